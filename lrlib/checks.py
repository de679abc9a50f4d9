"""Argument checks, written once: every public function of ``lrlib`` validates its inputs
with these and raises :class:`~lrlib.errors.ParameterError` with a message that names the
argument, what it got and what it accepts."""

from __future__ import annotations

import math
from typing import Iterable

import numpy as np
import torch

from .errors import ParameterError

Tensor = torch.Tensor
PARAM_NAMES = ("W1", "b1", "W2", "b2")


def integer(name: str, value: object, *, low: int | None = None, what: str = "an int") -> int:
    """``value`` as an ``int`` (numpy integers accepted, bools rejected), at least ``low``;
    else ``ParameterError("<name> must be <what>, got ...")``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or (low is not None and value < low):
        raise ParameterError(f"{name} must be {what}, got {value!r}")
    return int(value)


def positive_int(name: str, value: object) -> int:
    """A whole number ≥ 1."""
    return integer(name, value, low=1, what="a positive integer")


def nonneg_int(name: str, value: object) -> int:
    """A whole number ≥ 0."""
    return integer(name, value, low=0, what="a non-negative integer")


def positive_number(name: str, value: object) -> float:
    """A finite real number > 0 (bools rejected)."""
    if isinstance(value, bool) or not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
        raise ParameterError(f"{name} must be a finite number > 0, got {value!r}")
    return float(value)


def point_axis(y: Tensor, n: int) -> int:
    """Axis of ``y`` that indexes the ``n`` data points: ``-1`` for labels/scalar
    targets ``(R..., n)``, ``-2`` for vector targets ``(R..., n, k)``."""
    last = y.shape[-1] == n
    second = y.dim() >= 2 and y.shape[-2] == n
    if last and second:
        raise ParameterError(f"cannot tell the data axis of y {tuple(y.shape)} (n = {n}); reshape the targets")
    if not (last or second):
        raise ParameterError(f"X has {n} points but y has shape {tuple(y.shape)}")
    return -1 if last else -2


def run_arguments(p0, X: Tensor, y: Tensor, *, lr: float, steps: int, momentum: float = 0.0,
                  batch_size: int | None = None, trainable: Iterable[str] = PARAM_NAMES) -> None:
    """The arguments of a training run (:func:`lrlib.train.train`, :func:`lrlib.integrate.flow`):
    step ``lr`` > 0, ``steps`` ≥ 0, momentum in [0, 1), a batch size in [1, n] or ``None``,
    data matching the network (features, points, dtype, finite) and known parameter names."""
    positive_number("lr", lr)
    nonneg_int("steps", steps)
    if not 0 <= momentum < 1:
        raise ParameterError(f"momentum must be in [0, 1), got {momentum!r}")
    n = X.shape[-2]
    if batch_size is not None and (isinstance(batch_size, bool) or not (isinstance(batch_size, int) and 1 <= batch_size <= n)):
        raise ParameterError(f"batch_size must be None (full batch) or an int in [1, {n}], got {batch_size!r}")
    if X.shape[-1] != p0.in_dim:
        raise ParameterError(f"X has {X.shape[-1]} features but the network expects {p0.in_dim}")
    point_axis(y, n)
    if not torch.isfinite(X.sum()) and not torch.isfinite(X).all():   # one cheap pass first
        raise ParameterError("X contains NaN or inf")
    unknown = set(trainable) - set(PARAM_NAMES)
    if unknown:
        raise ParameterError(f"unknown trainable parameters {sorted(unknown)}; use {PARAM_NAMES}")
    for name, t in p0.tensors().items():
        if t.dtype != X.dtype:
            raise ParameterError(f"dtype mismatch: {name} is {t.dtype} but X is {X.dtype}")


def record_steps(record, steps: int) -> np.ndarray:
    """The steps to record: ``record`` snapshots log-spaced over ``[0, steps]`` (an int), or the
    sorted unique steps given (a sequence), all within ``[0, steps]``."""
    from .trajectory import log_schedule

    sched = log_schedule(steps, int(record)) if np.isscalar(record) else np.unique(np.asarray(record, dtype=np.int64))
    if sched.size == 0 or sched.min() < 0 or sched.max() > steps:
        raise ParameterError(f"record steps must lie in [0, {steps}]")
    return sched
