"""AGF's jumps against gradient descent's drops (parts 1 and 3 of the synthesis chapter).

A loss curve's drops are read against a staircase of predicted levels with
:func:`lrlib.measure.drop_times` (the first crossing of the midpoint between consecutive levels) and
compared with :func:`lrlib.measure.relative_error`; GD's plateaus between drops are read with
:func:`lrlib.measure.plateau_between` (the median, lowest and highest loss over the middle half of each
interval), their deviation from predicted levels with :func:`level_deviation`; :func:`agf_vs_gd_jumps` is the table of AGF's jumps against GD's drops and a
reference prediction (AGF on the orthogonal-input data of Boursier et al.). AGF's cost phase in both
parts is plain GD on the active neurons (:func:`cost_phase`).
"""

from __future__ import annotations

import numpy as np
import torch

from ...errors import ParameterError
from ...losses import Loss
from ...measure import Plateau, drop_times, plateau_between, relative_error
from ...models import TwoLayer
from ...schedules import log_schedule
from ...train import train

Tensor = torch.Tensor


def level_deviation(plateau: Plateau, levels: np.ndarray) -> np.ndarray:
    """The largest relative deviation of a curve from predicted levels over the plateaus read by
    :func:`lrlib.measure.plateau_between` (the middle half of each interval between consecutive drops).

    Parameters
    ----------
    plateau : Plateau
        the plateaus, ``(K,)`` each of ``level``, ``low``, ``high``.
    levels : np.ndarray
        ``(K,)`` the predicted level ``ℓ_k`` of each plateau.

    Returns
    -------
    np.ndarray
        ``(K,)`` ``max(|high − ℓ|, |low − ℓ|) / |ℓ|``: the largest ``|L(t) − ℓ| / |ℓ|`` over the window
        (a plateau is flat there; a smooth decay through the level is not); ``nan`` where a drop is missing.
    """
    lv = np.asarray(levels, dtype=float)
    return np.maximum(np.abs(plateau.high - lv), np.abs(plateau.low - lv)) / np.abs(lv)


def agf_vs_gd_jumps(time: np.ndarray, loss: np.ndarray, tau: np.ndarray, levels: np.ndarray,
                    reference: tuple[float, ...], tol: float) -> list[dict]:
    """One row per jump ``k = 1, 2, …`` comparing AGF's jump times with GD's drops and a reference
    prediction (e.g. the orthogonal paper's leading-order phase times).

    GD's drop ``k`` is the first crossing of the mid-level ``(levels[k−1] + levels[k]) / 2``
    (:func:`lrlib.measure.drop_times`). The rows cover the first ``min(K, len(reference))`` jumps.

    Parameters
    ----------
    time : np.ndarray
        ``(T,)`` times of the GD loss curve, in the units of ``tau`` (here gradient-flow time).
    loss : np.ndarray
        ``(T,)`` one GD loss curve.
    tau : np.ndarray
        ``(K+1,)`` AGF's jump times (``tau[0] = 0``), from :class:`~lrlib.theory.agf.AGFRun`.
    levels : np.ndarray
        ``(K+1,)`` AGF's loss levels.
    reference : tuple[float, ...]
        the reference times of the first jumps (same units).
    tol : float
        the tolerance, passed through to the rows.

    Returns
    -------
    list[dict]
        Columns ``jump``; ``gd``, ``agf``, ``leading`` (the three times); ``err_agf``, ``err_leading``
        (relative errors against ``gd``); ``tol``; ``n_jumps = K``; ``level = levels[k]``; ``gd_level``: for
        ``k = 1`` GD's plateau between its first two drops (the median over the middle half of the interval,
        :func:`lrlib.measure.plateau_between`; needs ``K ≥ 2``), ``nan`` for ``k > 1``.
    """
    tau, levels = np.asarray(tau, dtype=float), np.asarray(levels, dtype=float)
    if tau.ndim != 1 or levels.shape != tau.shape:
        raise ParameterError(f"agf_vs_gd_jumps needs tau and levels of the same 1-D shape, got {tau.shape} and {levels.shape}")
    t_gd = drop_times(time, loss, levels)
    rows = []
    for k, (t_agf, t_ref) in enumerate(zip(tau[1:], reference)):
        gd_level = np.nan
        if k == 0:
            if t_gd.size < 2:
                raise ParameterError("agf_vs_gd_jumps needs at least two AGF jumps for the level between the drops")
            gd_level = float(plateau_between(time, loss, t_gd[:2]).level[0])
        rows.append(dict(jump=k + 1, gd=t_gd[k], agf=t_agf, leading=t_ref,
                         err_agf=float(relative_error(t_agf, t_gd[k])), err_leading=float(relative_error(t_ref, t_gd[k])),
                         tol=tol, n_jumps=len(tau) - 1, level=levels[k + 1], gd_level=gd_level))
    return rows




def cost_phase(net: TwoLayer, X: Tensor, y: Tensor, *, loss: Loss, lr: float, steps: int,
               n_record: int = 30):
    """AGF's cost phase as plain GD on the active neurons (the ``cost_fn`` of
    :func:`lrlib.theory.agf.agf`, bound to the data with :func:`functools.partial`).

    Parameters
    ----------
    net : TwoLayer
        The active neurons, no run dimension.
    X : Tensor
        ``(N, D)`` inputs.
    y : Tensor
        ``(N,)`` or ``(N, k)`` targets.
    loss : Loss
        The loss (the square loss in this chapter).
    lr : float
        GD's step (gradient-flow time per step).
    steps : int
        Number of GD steps.
    n_record : int
        Snapshots recorded, log-spaced over the steps.

    Returns
    -------
    Trajectory
        The GD run (:func:`lrlib.train.train`); AGF reads its final state.
    """
    return train(net, X, y, loss=loss, lr=lr, steps=steps, record=log_schedule(steps, n_record))
