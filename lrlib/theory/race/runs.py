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
    return stack_runs([train(p0.map(lambda t: t[r]), X[r], y[r], seed=int(seed[r]), **kwargs) for r in range(len(seed))])


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
