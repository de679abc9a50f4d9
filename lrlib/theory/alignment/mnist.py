"""Training helpers of the alignment chapter's MNIST runs (Figures 5, 10–13).

Two exact reductions keep the paper's 15 000 iterations affordable:

* :func:`train_active` trains only on the pixels that are non-zero in some image.  A pixel that
  is zero in every selected image (after centring: a constant column) has zero gradient for its
  first-layer weights at every step, so those weights keep their initial value and never
  contribute to the output.  The reduced run is the full run to rounding (tested against the
  full-width reference in ``tests/test_theory_alignment_mnist.py``); the returned trajectory puts
  the frozen initial weights back, so every measurement sees the full ``W``.
* :func:`train_until_stable` continues a run in blocks until its stable rank has converged.
  GD without momentum is memoryless, so continuing from the last state equals one longer run.
"""

from __future__ import annotations

import numpy as np
import torch

from ...errors import ParameterError
from ...models import TwoLayer
from ...track import stable_rank
from ...train import train
from ...schedules import linear_schedule
from ...trajectory import Trajectory

Tensor = torch.Tensor

__all__ = ["active_columns", "train_active", "join", "stable_rank_change", "train_until_stable", "rule_inputs"]


def active_columns(X: Tensor) -> Tensor:
    """Which input coordinates are non-zero in at least one point.

    Parameters
    ----------
    X : Tensor
        Inputs ``(n, d)`` or ``(R..., n, d)`` (for batched inputs, a column counts as active if
        it is non-zero in any run).

    Returns
    -------
    Tensor
        Boolean mask ``(d,)``.
    """
    if X.dim() < 2:
        raise ParameterError(f"active_columns: X must be (n, d) or (R..., n, d), got shape {tuple(X.shape)}")
    return (X != 0).reshape(-1, X.shape[-1]).any(0)


def train_active(p0: TwoLayer, X: Tensor, y: Tensor, **kw) -> Trajectory:
    """:func:`lrlib.train.train` on the active input coordinates only, returned at full width.

    Parameters
    ----------
    p0 : TwoLayer
        Initial network, ``W1`` of shape ``(R..., m, d)``.
    X, y : Tensor
        Inputs ``(n, d)`` or ``(R..., n, d)`` and labels, as for ``train``.
    **kw
        Every other argument of ``train`` (loss, lr, steps, record, batch_size, trainable, ...).

    Returns
    -------
    Trajectory
        The run with ``params.W1`` of shape ``(T, R..., m, d)``: the trained active columns and the
        initial inactive ones (which GD never moves); ``meta["active_columns"]`` holds their count.
    """
    keep = active_columns(X)
    if keep.all():
        return train(p0, X, y, **kw)
    red = TwoLayer(W1=p0.W1[..., keep].contiguous(), W2=p0.W2, b1=p0.b1, b2=p0.b2, act=p0.act)
    tr = train(red, X[..., keep].contiguous(), y, **kw)
    W = p0.W1.unsqueeze(0).repeat(len(tr), *([1] * p0.W1.dim()))
    W[..., keep] = tr.params.W1
    params = TwoLayer(W1=W, W2=tr.params.W2, b1=tr.params.b1, b2=tr.params.b2, act=p0.act)
    return Trajectory(steps=tr.steps, time=tr.time, params=params, loss=tr.loss,
                      meta=dict(tr.meta, active_columns=int(keep.sum())), dense_loss=tr.dense_loss)


def join(first: Trajectory, more: Trajectory) -> Trajectory:
    """Append ``more`` (a run started from ``first.final``) to ``first``.

    Parameters
    ----------
    first, more : Trajectory
        ``more`` starts at its own step 0 = the last snapshot of ``first``; its steps and flow
        times are shifted by those of ``first``'s last snapshot, and its first snapshot dropped.

    Returns
    -------
    Trajectory
        The joined trajectory (``T₁ + T₂ − 1`` snapshots).
    """
    params = TwoLayer(**{k: (None if getattr(first.params, k) is None else
                             torch.cat([getattr(first.params, k), getattr(more.params, k)[1:]]))
                         for k in ("W1", "W2", "b1", "b2")}, act=first.params.act)
    return Trajectory(steps=np.concatenate([first.steps, more.steps[1:] + first.steps[-1]]),
                      time=np.concatenate([first.time, more.time[1:] + first.time[-1]]),
                      params=params, loss=torch.cat([first.loss, more.loss[1:]]), meta=first.meta)


def stable_rank_change(traj: Trajectory, block: int) -> np.ndarray:
    """Relative change of the stable rank of ``W1`` over the last ``block`` steps.

    Parameters
    ----------
    traj : Trajectory
        Must have a snapshot at step ``steps[-1] − block``.
    block : int
        Window in GD steps.

    Returns
    -------
    ndarray
        ``|sr(k) − sr(k − block)| / sr(k)`` per run, shape ``(R...)`` (``()`` for one run).
    """
    k = int(traj.steps[-1]) - block
    if k not in set(int(s) for s in traj.steps):
        raise ParameterError(f"stable_rank_change: no snapshot at step {k}")
    now = stable_rank(traj.final.W1)[0]
    then = stable_rank(traj.at(traj.index_of_step(k)).W1)[0]
    return ((now - then).abs() / now).numpy()


def train_until_stable(p0: TwoLayer, X: Tensor, y: Tensor, *, steps: int, block: int, cap: int,
                       tol: float, record, **kw) -> tuple[Trajectory, float]:
    """Train ``steps`` GD steps, then continue in blocks until the stable rank has converged.

    Parameters
    ----------
    p0, X, y
        As for :func:`train_active` (one run).
    steps : int
        Steps of the first leg; ``record`` must contain ``steps − block``.
    block : int
        Length of a continuation block and of the convergence window (steps).
    cap : int
        No continuation beyond this many steps in all.
    tol : float
        Converged when :func:`stable_rank_change` over ``block`` is below ``tol``.
    record
        Snapshot steps of the first leg (continuations record every ``block // 5`` steps).
    **kw
        Passed to ``train`` (loss, lr, ...).

    Returns
    -------
    (Trajectory, float)
        The whole run and its final relative stable-rank change (compare with ``tol``).
    """
    if steps < block or cap < steps:
        raise ParameterError(f"train_until_stable: need block ≤ steps ≤ cap, got {block}, {steps}, {cap}")
    tr = train_active(p0, X, y, steps=steps, record=record, **kw)
    change = float(stable_rank_change(tr, block))
    while change >= tol and tr.steps[-1] + block <= cap:
        tr = join(tr, train_active(tr.final, X, y, steps=block, record=linear_schedule(block, max(1, block // 5)), **kw))
        change = float(stable_rank_change(tr, block))
    return tr, change


def rule_inputs(summary: dict) -> dict[str, dict[str, float]]:
    """The measurements the four MNIST claims read, computed from one pair alone.

    Parameters
    ----------
    summary : dict
        One pair's :func:`lrlib.theory.alignment.mnist_summary` plus ``sr_conv`` (its final relative
        stable-rank change, from :func:`train_until_stable`).

    Returns
    -------
    dict
        Claim id → its measurements on this pair (iterations; cosines; stable ranks), for grading
        each claim's declared rule on a single pair (the chapter's image-count check).
    """
    return {"mnist.timescales": dict(k_align=summary["k_align"], k_drop=summary["k_drop"]),
            "mnist.align-first": dict(lead=summary["k_drop"] - summary["k_align"]),
            "mnist.align-decreases": dict(decrease=summary["align_drop"]),
            "mnist.low-rank": dict(sr_first=summary["final_stable_rank"], sr_max=summary["final_stable_rank"],
                                   sr_conv=summary["sr_conv"])}
