"""Pinson (2026): the chapter's seeds trained one after another instead of as one batched run.

The CIFAR settings train five seed runs of a 250 × 1024 network with mini-batches of 4 or 32
images. Such a step is bound by memory traffic on the ``(m, D)`` layer, and the batched kernel
(a leading runs dimension) costs about 10–15 % more per run than a run trained alone. Since
:func:`lrlib.train.train` gives run ``r`` of a batched call exactly the mini-batches a single-run
call with ``seed[r]`` sees, :func:`train_each` trains every run alone with :func:`lrlib.train.train`
and :func:`stack_runs` joins the single-run trajectories into the batched one (the same snapshots,
params ``(T, R, ...)``); the results agree with the batched call (tested).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import torch

from ...errors import ParameterError
from ...models import TwoLayer
from ...schedules import log_schedule
from ...train import train
from ...trajectory import Trajectory

Tensor = torch.Tensor


def stack_runs(trajs: Sequence[Trajectory]) -> Trajectory:
    """Join single-run trajectories with the same snapshots into one batched trajectory.

    Parameters
    ----------
    trajs : sequence of Trajectory
        ``R`` trajectories without run dimensions (params ``(T, ...)``, loss ``(T,)``), all recorded
        at the same steps.

    Returns
    -------
    Trajectory
        Params ``(T, R, ...)``, loss ``(T, R)``; ``meta`` of the first run with ``seed`` the list of
        the runs' seeds.

    Raises
    ------
    ParameterError
        When the list is empty, a trajectory has run dimensions, or the recorded steps differ.
    """
    if not trajs:
        raise ParameterError("stack_runs needs at least one trajectory")
    if any(t.runs for t in trajs):
        raise ParameterError("stack_runs joins single-run trajectories (no run dimensions)")
    if any(not np.array_equal(t.steps, trajs[0].steps) for t in trajs):
        raise ParameterError("stack_runs: the trajectories were recorded at different steps")
    names = trajs[0].params.tensors()
    params = TwoLayer(act=trajs[0].params.act, **{k: torch.stack([getattr(t.params, k) for t in trajs], 1) for k in names})
    return Trajectory(steps=trajs[0].steps, time=trajs[0].time, params=params,
                      loss=torch.stack([t.loss for t in trajs], 1),
                      meta=dict(trajs[0].meta, seed=[t.meta["seed"] for t in trajs]))


def train_each(p0: TwoLayer, X: Tensor, y: Tensor, *, seed: Sequence[int], **kwargs) -> Trajectory:
    """:func:`lrlib.train.train` on each run of a batch alone, joined as the batched call's trajectory.

    Parameters
    ----------
    p0 : TwoLayer
        Initial networks with one run dimension, ``W1 (R, m, D)``.
    X : Tensor
        Inputs ``(R, N, D)``.
    y : Tensor
        Labels ``(R, N)``.
    seed : sequence of int
        One mini-batch seed per run (``R`` of them), as for a batched call.
    **kwargs
        The other arguments of :func:`lrlib.train.train` (loss, lr, steps, record, ...).

    Returns
    -------
    Trajectory
        Params ``(T, R, ...)``, loss ``(T, R)``: the batched call's result (runs do not interact).

    Raises
    ------
    ParameterError
        When ``p0`` has not exactly one run dimension or ``seed`` has not one entry per run.
    """
    if len(p0.runs) != 1 or len(seed) != p0.runs[0]:
        raise ParameterError(f"train_each: one run dimension and one seed per run, got runs {p0.runs}, {len(seed)} seeds")
    return stack_runs([train(p0[r], X[r], y[r], seed=int(seed[r]), **kwargs) for r in range(len(seed))])


def stack_nets(nets: Sequence[TwoLayer]) -> TwoLayer:
    """Join networks without run dimensions into one batch of runs (a leading run axis).

    Parameters
    ----------
    nets : sequence of TwoLayer
        ``R`` networks with the same shapes and activation (tensors ``(m, ...)``).

    Returns
    -------
    TwoLayer
        Tensors ``(R, m, ...)``.

    Raises
    ------
    ParameterError
        When the list is empty.
    """
    if not nets:
        raise ParameterError("stack_nets needs at least one network")
    return TwoLayer(act=nets[0].act, **{k: torch.stack([getattr(p, k) for p in nets]) for k in nets[0].tensors()})


def run_net(p: TwoLayer, r: int, dtype: torch.dtype | None = None) -> TwoLayer:
    """Run ``r`` of a batch of networks, optionally cast.

    Parameters
    ----------
    p : TwoLayer
        Networks with a leading run dimension, ``W1 (R, m, D)``.
    r : int
        The run (``0 <= r < R``).
    dtype : torch.dtype, optional
        Cast to this dtype (default: keep it).

    Returns
    -------
    TwoLayer
        The run's network without run dimensions, ``W1 (m, D)``.
    """
    q = p[r]
    return q if dtype is None else q.to(dtype)


def head_runs(p: TwoLayer, n: int) -> TwoLayer:
    """The first ``n`` runs of a batch of networks (or of snapshots, ``(T, ...)``).

    Parameters
    ----------
    p : TwoLayer
        Networks with a leading run (or snapshot) dimension of size ``R``.
    n : int
        How many to keep (``n <= R``).

    Returns
    -------
    TwoLayer
        Tensors ``(n, ...)``.
    """
    return p[:n]


def run_block(p: TwoLayer, start: int, stop: int) -> TwoLayer:
    """Runs ``start`` to ``stop - 1`` of a batch of networks (e.g. one seed's four stds in Fig. 4).

    Parameters
    ----------
    p : TwoLayer
        Networks with a leading run dimension.
    start, stop : int
        The slice of runs, ``start <= stop``.

    Returns
    -------
    TwoLayer
        Tensors ``(stop - start, ...)``.
    """
    return p[start:stop]


def batch_seeds(k: int, n: int, seed: int) -> list[int]:
    """One mini-batch seed per run: run ``r`` of CIFAR setting ``k`` draws its own permutations.

    Parameters
    ----------
    k : int
        The setting (1, 2 or 3).
    n : int
        Number of runs.
    seed : int
        The chapter's base seed.

    Returns
    -------
    list of int
        ``10_000 (k + 1) + seed + r`` for ``r < n``.
    """
    return [10_000 * (k + 1) + seed + r for r in range(n)]


def setting_record(k: int, steps: int, snap_t) -> np.ndarray:
    """The recorded steps of CIFAR setting ``k``: log-spaced, the snapshots, and a dense grid.

    Setting 1 is recorded every 100 steps up to 4000, every 250 after, and every 50 steps in
    [250, 500] (erratum E11 integrates there); setting 2 every 500 and setting 3 every 1000 steps
    (a full-data loss costs 10× more there).

    Parameters
    ----------
    k : int
        The setting (1, 2 or 3).
    steps : int
        The run's length in optimiser steps.
    snap_t : sequence of int
        The chapter's snapshot steps (those ``<= steps`` are kept), in steps.

    Returns
    -------
    np.ndarray
        Sorted unique steps ``(S,)``, from 0 to ``steps``.
    """
    dense = np.arange(0, steps + 1, 500 if k == 2 else 1000)
    if k == 1:
        dense = np.union1d(np.arange(0, min(steps, 4000) + 1, 100), np.arange(0, steps + 1, 250))
        dense = np.union1d(dense, np.arange(250, 501, 50))
    marks = [t for t in snap_t if t <= steps] + [steps]
    return np.union1d(np.union1d(log_schedule(steps, 20 if k == 3 else 40), marks), dense)


def converged(traj: Trajectory, level: float = 0.05, window: int = 2000) -> np.ndarray:
    """Per run: the chapter's convergence criterion at the end of a recorded run.

    The final loss is at most ``level`` and the loss over the last ``window`` steps (at most a
    quarter of the run) stays within twice the final loss.

    Parameters
    ----------
    traj : Trajectory
        A recorded run, loss ``(T, R)``, steps ``(T,)``.
    level : float
        Largest final loss (the loss's units).
    window : int
        Length of the closing window, in steps.

    Returns
    -------
    np.ndarray
        ``(R,)`` bool.
    """
    L = traj.loss.numpy()
    win = traj.steps >= traj.steps[-1] - min(window, traj.steps[-1] // 4)
    return (L[-1] <= level) & (L[win].max(0) <= 2 * L[-1])


def final_heads(settings: Sequence[tuple], n: int) -> tuple:
    """The first ``n`` runs of each setting's final networks, with their data.

    Parameters
    ----------
    settings : sequence of tuple
        ``(X, y, traj)`` per setting: data ``X (R, N, D)``, ``y (R, N)`` and a recorded run
        (params ``(T, R, ...)``).
    n : int
        How many runs to keep (``n <= R``).

    Returns
    -------
    tuple
        One ``(p, X, y)`` per setting: the final networks ``(n, m, ...)`` and ``X[:n]``, ``y[:n]``.
    """
    return tuple((head_runs(traj.final, n), X[:n], y[:n]) for X, y, traj in settings)


def drop_snapshots(traj: Trajectory, drop_steps: Sequence[int], last: int, n: int = 7) -> list[tuple]:
    """Figure 2's snapshots: t = 0, half-way to the first drop, each drop, the end (at most ``n``).

    Parameters
    ----------
    traj : Trajectory
        One recorded run without run dimensions (params ``(T, m, ...)``).
    drop_steps : sequence of int
        The steps of the loss's drops (may be empty: then half-way to ``last``).
    last : int
        The run's last step.
    n : int
        At most this many snapshots (the earliest are kept).

    Returns
    -------
    list of tuple
        ``(step, W1 (m, D), outgoing weights)`` per snapshot, in increasing step.
    """
    half = (drop_steps[0] if drop_steps else last) // 2
    snap = sorted(set([0, half] + list(drop_steps) + [last]))[:n]
    idx = [traj.index_of_step(s) for s in snap]
    return [(s, traj.at(i).W1, traj.at(i).outgoing()) for s, i in zip(snap, idx)]


def at_steps(traj: Trajectory, steps: Sequence[int]) -> TwoLayer:
    """The recorded networks at (or just before) each of ``steps``, stacked on a leading axis.

    Parameters
    ----------
    traj : Trajectory
        A recorded run, params ``(T, R..., ...)``.
    steps : sequence of int
        Optimiser steps (``S`` of them).

    Returns
    -------
    TwoLayer
        Tensors ``(S, R..., ...)``.
    """
    idx = [traj.index_of_step(int(s)) for s in steps]
    return traj.params[idx]
