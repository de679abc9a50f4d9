"""The orthogonal chapter's runs (Boursier et al. 2022): initialisations, batched inputs, the split of a
batched trajectory into its groups of runs, the λ-sweep's GD, coarse-step and gradient-flow runs.

The chapter trains many experiments in one batch (one call of :func:`lrlib.train.train`); the helpers
here build those batches and take them apart again, so that the notebook reads as the experiment.
A network's run axes are ``R...`` (:class:`lrlib.models.TwoLayer`); a λ-sweep's runs are
``(seeds, K)`` with ``K`` values of λ (:func:`lrlib.models.sweep_init`). Times are paper time
(½-mean loss ``L``, :func:`lrlib.losses.half_mse`), as in :mod:`lrlib.theory.orthogonal.phases`.
"""

from __future__ import annotations

import functools

import numpy as np
import torch

from ...errors import ParameterError
from ...integrate import flow
from ...losses import Loss, half_mse
from ...measure import relative_error
from ...models import TwoLayer, balanced_init, cat_runs, generator
from ...schedules import linear_schedule
from ...train import train
from ...trajectory import Trajectory
from .claims import Sweep
from .core import unbalanced_sweep_init

Tensor = torch.Tensor


def select_runs(p: TwoLayer, *idx, clone: bool = False) -> TwoLayer:
    """The runs ``p[idx]`` of a batched network (every parameter indexed the same way).

    Parameters
    ----------
    p : TwoLayer
        Network with run axes ``R...``.
    *idx : int or slice
        Indices into the leading run axes (as ``t[idx]`` for every parameter ``t``).
    clone : bool
        Copy the parameters (so that an in-place change leaves ``p`` alone).

    Returns
    -------
    TwoLayer
        The selected runs (a view of ``p`` unless ``clone``).
    """
    out = p[idx]
    return out.map(torch.clone) if clone else out


def _flatten_first_two(t: Tensor) -> Tensor:
    return t.flatten(0, 1)


def flat_runs(p: TwoLayer) -> TwoLayer:
    """Merge the first two run axes of a network: runs ``(A, B, R...)`` become ``(A·B, R...)``.

    Parameters
    ----------
    p : TwoLayer
        Network with at least two run axes ``(A, B, R...)``.

    Returns
    -------
    TwoLayer
        The same runs, ``(A·B, R...)``, in row-major order.
    """
    if len(p.runs) < 2:
        raise ParameterError(f"flat_runs needs two run axes, the network has {len(p.runs)}")
    return p.map(_flatten_first_two)


def inits_at_scales(m: int, d: int, scales, seed: int) -> TwoLayer:
    """One balanced draw per initialisation scale, each from a fresh generator of the same seed.

    Parameters
    ----------
    m, d : int
        Width and input dimension.
    scales : sequence of float
        The scales λ (dimensionless) of :func:`lrlib.models.balanced_init`, one run each.
    seed : int
        Seed of every draw (:func:`lrlib.models.generator`): the runs share their directions.

    Returns
    -------
    TwoLayer
        Runs ``(len(scales),)``, in the order of ``scales``.
    """
    return cat_runs(*(balanced_init(m, d, scale=s, gen=generator(seed), runs=(1,)) for s in scales))


def unbalanced_control(m: int, d: int, lams: Tensor, seeds: int, seed: int) -> TwoLayer:
    """The non-vanishing-imbalance control of the unbalanced sweep: seed 0's draw with ``a_j⁰ ~ N(0, 1/m)``.

    Parameters
    ----------
    m, d : int
        Width and input dimension.
    lams : Tensor
        ``(K,)`` initialisation scales λ.
    seeds : int
        Seeds of the sweep the draw is taken from (:func:`unbalanced_sweep_init`).
    seed : int
        Base seed.

    Returns
    -------
    TwoLayer
        Runs ``(1, K)``.
    """
    return select_runs(unbalanced_sweep_init(m, d, lams, seeds, seed, out_std=m ** -0.5), slice(0, 1))


def stacked_inputs(X: Tensor, runs: tuple[int, ...], replace=()) -> Tensor:
    """Per-run inputs: ``X`` repeated over the run axes, with some runs' inputs replaced.

    Parameters
    ----------
    X : Tensor
        ``(n, d)`` inputs of every run.
    runs : tuple of int
        Run shape ``R...``.
    replace : sequence of (int or slice, Tensor)
        Pairs ``(index, X_other)``: the runs ``out[index]`` (an int or slice of the first run axis) get
        the ``(n, d)`` inputs ``X_other``.

    Returns
    -------
    Tensor
        ``(R..., n, d)``, a fresh tensor.
    """
    out = X.expand(*runs, *X.shape).clone()
    for index, X_other in replace:
        out[index] = X_other
    return out


def split_runs(traj: Trajectory, sizes) -> list[Trajectory]:
    """Split a batched trajectory along its first run axis into consecutive groups.

    Parameters
    ----------
    traj : Trajectory
        Runs ``(R, ...)``.
    sizes : sequence of int
        Group sizes; the last group may be ``None`` (every remaining run).

    Returns
    -------
    list of Trajectory
        ``traj.run(slice(a, b))`` per group, runs ``(size, ...)``.
    """
    starts = np.cumsum([0] + [s for s in sizes if s is not None]).tolist()
    ends = starts[1:] + ([None] if sizes[-1] is None else [])
    if sizes[-1] is not None and starts[-1] != traj.runs[0]:
        raise ParameterError(f"groups of {sum(sizes)} runs for a batch of {traj.runs[0]}")
    return [traj.run(slice(a, b)) for a, b in zip(starts, ends)]


def sweep_gd(p: TwoLayer, X: Tensor, y: Tensor, dt: float, T: float, every: int) -> Trajectory:
    """GD with step ``dt`` on the ½-mean square loss up to paper time ``T``, recorded every ``every`` steps.

    Parameters
    ----------
    p : TwoLayer
        Initialisation, runs ``R...``.
    X : Tensor
        ``(n, d)`` or ``(R..., n, d)`` inputs.
    y : Tensor
        ``(n,)`` labels.
    dt : float
        Step (paper time per step).
    T : float
        Horizon (paper time): ``int(T / dt)`` steps.
    every : int
        Recording interval in steps (:func:`lrlib.schedules.linear_schedule`).

    Returns
    -------
    Trajectory
        Runs ``R...``, time in paper time.
    """
    steps = int(T / dt)
    return train(p, X, y, loss=half_mse(), lr=dt, steps=steps, record=linear_schedule(steps, every))


def coarse_sweep(p: TwoLayer, X: Tensor, y: Tensor, lams: Tensor, T: float, dt: float) -> Sweep:
    """The λ-sweep rerun with a coarse step (the ledger's ``coarse=`` run), recorded at every step.

    Parameters
    ----------
    p : TwoLayer
        Initialisation, runs ``(seeds, K)``.
    X, y : Tensor
        ``(n, d)`` inputs and ``(n,)`` labels.
    lams : Tensor
        ``(K,)`` the λ of the columns.
    T : float
        Horizon (paper time).
    dt : float
        The coarse step (paper time).

    Returns
    -------
    Sweep
        The sweep as the claims measure it (:class:`lrlib.theory.orthogonal.claims.Sweep`).
    """
    return Sweep(sweep_gd(p, X, y, dt, T, 1), X, y, lams)


def flow_columns(p: TwoLayer, X: Tensor, y: Tensor, columns, dt: float, T: float, record) -> list[Trajectory]:
    """The gradient flow (:func:`lrlib.integrate.flow`, rtol 1e-8, atol 1e-14) from seed 0's draw at some λ.

    Parameters
    ----------
    p : TwoLayer
        Initialisation, runs ``(seeds, K)``.
    X, y : Tensor
        ``(n, d)`` inputs and ``(n,)`` labels.
    columns : iterable of int
        The λ columns ``k`` to integrate (run ``(0, k)`` each).
    dt, T : float
        The GD step it stands for and the horizon (paper time): ``int(T / dt)`` steps of time ``dt``.
    record : array of int
        GD step indices to record at.

    Returns
    -------
    list of Trajectory
        One single-run flow trajectory per column.
    """
    return [flow(select_runs(p, 0, k), X, y, loss=half_mse(), lr=dt, steps=int(T / dt), record=record,
                 rtol=1e-8, atol=1e-14) for k in columns]


def step_gap(coarse: dict, fine: dict, keys) -> np.ndarray:
    """The largest relative change of some times between two step sizes, per run.

    Parameters
    ----------
    coarse, fine : dict
        Times (any unit, the same in both) by name, arrays ``(R,)``.
    keys : sequence of str
        The names compared.

    Returns
    -------
    ndarray
        ``(R,)`` ``max_k |coarse[k] / fine[k] − 1|`` (dimensionless; nan propagates).
    """
    gaps = [relative_error(coarse[k], fine[k]) for k in keys]
    return functools.reduce(np.maximum, gaps)


def tile_columns(p: TwoLayer, K: int) -> TwoLayer:
    """Repeat a network's runs ``(R, 1)`` over ``K`` columns (the same draw at every λ of a sweep's grid).

    Parameters
    ----------
    p : TwoLayer
        Runs ``(R, 1)``.
    K : int
        Number of columns.

    Returns
    -------
    TwoLayer
        Runs ``(R, K)``, a fresh copy.
    """
    if len(p.runs) != 2 or p.runs[1] != 1:
        raise ParameterError(f"tile_columns needs runs (R, 1), got {p.runs}")
    return p.map(functools.partial(_tile_second, K=K))


def _tile_second(t: Tensor, K: int) -> Tensor:
    return t.expand(-1, K, *([-1] * (t.dim() - 2))).clone()


def unflat_runs(p: TwoLayer, runs: tuple[int, ...]) -> TwoLayer:
    """Split a network's first run axis into several: runs ``(A·B, R...)`` become ``(A, B, R...)``.

    Parameters
    ----------
    p : TwoLayer
        Network whose first run axis has ``prod(runs)`` entries.
    runs : tuple of int
        The new leading run axes.

    Returns
    -------
    TwoLayer
        The same runs, reshaped (row-major, the inverse of :func:`flat_runs`).
    """
    return p.map(functools.partial(_unflatten_first, runs=tuple(runs)))


def _unflatten_first(t: Tensor, runs: tuple[int, ...]) -> Tensor:
    return t.reshape(*runs, *t.shape[1:])



def paper_gd(p: TwoLayer, X: Tensor, y: Tensor, lr: float, steps: int, record, dense_loss: bool = True) -> Trajectory:
    """GD as in the authors' code, for the chapter's figure runs: the mean square loss ``mean (h − y)² = 2L``.

    Its time axis is the paper's time (``time_scale = 2``: one step of ``lr`` on ``2L`` is ``2·lr`` of
    paper time), and by default the loss is kept at every step (``dense_loss``).

    Parameters
    ----------
    p : TwoLayer
        Initialisation, runs ``R...``.
    X : Tensor
        ``(n, d)`` or ``(R..., n, d)`` inputs.
    y : Tensor
        ``(n,)`` or ``(R..., n)`` labels.
    lr : float
        Step (on the mean square loss).
    steps : int
        Number of GD steps.
    record : int or array of int
        Snapshots, as in :func:`lrlib.train.train`.
    dense_loss : bool
        Keep the loss at every step.

    Returns
    -------
    Trajectory
        Runs ``R...``; ``loss`` is the mean square loss ``2L``, ``time`` paper time.
    """
    return train(p, X, y, loss=Loss("square", "mean"), lr=lr, steps=steps, record=record, time_scale=2.0,
                 dense_loss=dense_loss)



__all__ = ["coarse_sweep", "flat_runs", "flow_columns", "inits_at_scales", "paper_gd", "select_runs", "split_runs", "stacked_inputs", "step_gap", "sweep_gd", "tile_columns", "unbalanced_control", "unflat_runs"]
