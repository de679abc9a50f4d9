"""When a run records snapshots: step schedules, written once (numpy only, below every model).

- :func:`log_schedule` — about ``num`` log-spaced steps (dense at the start), with 0 and the last;
- :func:`linear_schedule` — every ``every``-th step, with 0 and the last;
- :func:`record_steps` — a run's ``record=`` argument (a count or explicit steps) made into steps.
"""

from __future__ import annotations

import numpy as np

from .errors import ParameterError


def log_schedule(steps: int, num: int = 200) -> np.ndarray:
    """About ``num`` log-spaced step indices in ``[0, steps]``, always with 0 and ``steps``.

    Dense at the start (every step up to ~num/10) and geometric afterwards.

    Parameters
    ----------
    steps : int
        The last step, ≥ 0.
    num : int
        About how many indices, ≥ 2 (rounding merges some).

    Returns
    -------
    np.ndarray
        Steps ``(T,)``, sorted, unique, ``int64``, ``T ≤ num + 1``.

    Raises
    ------
    ParameterError
        When ``steps < 0`` or ``num < 2``.
    """
    if steps < 0 or num < 2:
        raise ParameterError(f"log_schedule needs steps ≥ 0 and num ≥ 2 (got {steps}, {num})")
    geo = np.geomspace(1, max(steps, 1), num=num)
    pts = np.unique(np.concatenate([[0, steps], np.round(geo).astype(np.int64)]))
    return pts[pts <= steps]


def linear_schedule(steps: int, every: int) -> np.ndarray:
    """Every ``every``-th step, plus 0 and ``steps``.

    Parameters
    ----------
    steps : int
        The last step.
    every : int
        The spacing in steps, ≥ 1.

    Returns
    -------
    np.ndarray
        Sorted unique steps ``(T,)``.

    Raises
    ------
    ParameterError
        When ``every < 1``.
    """
    if every < 1:
        raise ParameterError(f"linear_schedule needs every ≥ 1, got {every}")
    return np.unique(np.concatenate([np.arange(0, steps + 1, every), [steps]]))


def record_steps(record, steps: int) -> np.ndarray:
    """The steps at which a run records snapshots.

    Parameters
    ----------
    record : int or sequence of int
        An int: that many snapshots, log-spaced over ``[0, steps]`` (:func:`log_schedule`);
        a sequence: these steps, sorted and made unique.
    steps : int
        The run's number of steps.

    Returns
    -------
    np.ndarray
        Sorted unique steps ``(T,)``, int64, all within ``[0, steps]``.

    Raises
    ------
    ParameterError
        When no step is given or a step lies outside ``[0, steps]``.
    """
    sched = log_schedule(steps, int(record)) if np.isscalar(record) else np.unique(np.asarray(record, dtype=np.int64))
    if sched.size == 0 or sched.min() < 0 or sched.max() > steps:
        raise ParameterError(f"record steps must lie in [0, {steps}]")
    return sched


__all__ = ["linear_schedule", "log_schedule", "record_steps"]
