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

The chapter's runs are :func:`run_pair` (Figs 5, 10, 11) and :func:`sgd_schemes` (Figs 12/13);
:func:`summary_note` and :func:`rule_inputs` read the pairs' summaries for the ledger.
"""

from __future__ import annotations

import numpy as np
import torch

from ...data import mnist_pair
from ...errors import ParameterError
from ...losses import Loss
from ...models import TwoLayer, gaussian_init, generator, random_signs
from ...track import stable_rank
from ...train import train
from ...schedules import linear_schedule
from ...trajectory import Trajectory

Tensor = torch.Tensor

__all__ = ["RULE_CLAIMS", "active_columns", "train_active", "join", "stable_rank_change", "train_until_stable",
           "rule_inputs", "run_pair", "sgd_schemes", "summary_note"]


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
    p0 : TwoLayer
        Initial network, as for :func:`train_active` (one run).
    X, y : Tensor
        Inputs and labels, as for :func:`train_active`.
    steps : int
        Steps of the first leg; ``record`` must contain ``steps − block``.
    block : int
        Length of a continuation block and of the convergence window (steps).
    cap : int
        No continuation beyond this many steps in all.
    tol : float
        Converged when :func:`stable_rank_change` over ``block`` is below ``tol``.
    record : int or sequence of int
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


RULE_CLAIMS = ("mnist.timescales", "mnist.align-first", "mnist.align-decreases", "mnist.low-rank")
"""The four MNIST claims whose rules :func:`rule_inputs` feeds."""


def rule_inputs(summary: dict) -> dict[str, float]:
    """The measurements the four MNIST claims (:data:`RULE_CLAIMS`) read, computed from one pair alone.

    Parameters
    ----------
    summary : dict
        One pair's :func:`lrlib.theory.alignment.mnist_summary` plus ``sr_conv`` (its final relative
        stable-rank change, from :func:`train_until_stable`).

    Returns
    -------
    dict
        Measurement name → its value on this pair (iterations; cosines; stable ranks), for grading
        each claim's declared rule on a single pair (the chapter's image-count check, through
        :func:`lrlib.ledger.grading.verdicts_by_variant`).
    """
    return dict(k_align=summary["k_align"], k_drop=summary["k_drop"], lead=summary["k_drop"] - summary["k_align"],
                decrease=summary["align_drop"], sr_first=summary["final_stable_rank"],
                sr_max=summary["final_stable_rank"], sr_conv=summary["sr_conv"])


def run_pair(pos: int, neg: int, n: int, alpha: float, seed: int, *, loss: Loss, steps: int, block: int,
             cap: int, record) -> tuple[Tensor, Tensor, Trajectory, float]:
    """One MNIST run of Figs 5, 10, 11: digits ``pos`` (+1) against ``neg`` (−1), width 50, GD at
    η = 2·10⁻³ from a Gaussian init of scale ``alpha`` until the stable rank settles
    (:func:`train_until_stable`, tolerance 0.01).

    Parameters
    ----------
    pos, neg : int
        The two digits.
    n : int
        Images per digit.
    alpha : float
        The standard deviation of both layers' initial weights.
    seed : int
        Seed of the initialisation.
    loss : Loss
        The training loss.
    steps, block, cap : int
        The iterations, the continuation block and the cap (:func:`train_until_stable`).
    record : array-like
        Steps recorded within ``steps``.

    Returns
    -------
    (Tensor, Tensor, Trajectory, np.ndarray)
        The images ``(2n, 784)``, labels ``(2n,)``, the run and its last stable-rank change.
    """
    X, y = mnist_pair(pos, neg, n, dtype=torch.float32)
    p = gaussian_init(50, 784, std_in=alpha, std_out=alpha, gen=generator(seed), dtype=torch.float32)
    return X, y, *train_until_stable(p, X, y, loss=loss, lr=2e-3, steps=steps, block=block, cap=cap,
                                     tol=0.01, record=record)


def sgd_schemes(X: Tensor, y: Tensor, seed: int, *, loss: Loss, steps: int, batch_size: int,
                record) -> dict[str, Trajectory]:
    """Figs 12/13's two training schemes on the same first layer: both layers from a Gaussian
    init of scale 10⁻⁶ (``generator(seed + 3)``), and the first layer only with output weights
    ±1 (``generator(seed + 4)``); mini-batch SGD at η = 2·10⁻³ (:func:`train_active`).

    Parameters
    ----------
    X, y : Tensor
        Images ``(n, 784)`` and labels ``(n,)`` ±1.
    seed : int
        Base seed (initialisation as above; the batches of ``seed``).
    loss : Loss
        The training loss.
    steps, batch_size : int
        SGD iterations and batch size.
    record : array-like
        Steps recorded.

    Returns
    -------
    dict
        ``{"both layers": run, "first layer only, v = ±1": run}``.
    """
    p_both = gaussian_init(50, 784, std_in=1e-6, std_out=1e-6, gen=generator(seed + 3), dtype=torch.float32)
    p_first = TwoLayer(W1=p_both.W1.clone(), W2=random_signs((1, 50), generator(seed + 4), torch.float32))
    kw = dict(loss=loss, lr=2e-3, steps=steps, batch_size=batch_size, record=record, seed=seed)
    return {"both layers": train_active(p_both, X, y, **kw),
            "first layer only, v = ±1": train_active(p_first, X, y, trainable=("W1",), **kw)}


def summary_note(names, summaries, kind: str) -> str:
    """A ledger note over the MNIST pairs: their alignment and drop iterations (``kind="timing"``)
    or their final stable rank (``kind="rank"``).

    Parameters
    ----------
    names : sequence of str
        The pairs' names.
    summaries : sequence of dict
        Their summaries (:class:`~.claims.MnistRuns`).
    kind : str
        ``"timing"`` or ``"rank"``.

    Returns
    -------
    str
        One ``"<pair>: ..."`` item per pair, joined by ``"; "``.
    """
    if kind == "timing":
        return "; ".join(f"{k}: aligned at {s['k_align']:.0f}, drop at {s['k_drop']:.0f}"
                         for k, s in zip(names, summaries))
    return "; ".join(f"{k}: stable rank {s['final_stable_rank']:.3f} at iteration {s['last_iteration']}"
                     for k, s in zip(names, summaries))
