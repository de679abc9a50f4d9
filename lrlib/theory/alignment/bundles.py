"""The run bundles that the chapter hands to its claims' measurement functions (:mod:`.claims`):
a trajectory with what is needed to read it (its data, its initialisation and scale, its sweep),
and the helpers that build them (:func:`eps_sweep`, :func:`t2_n_sweep`, :func:`initial`).
Tested in ``tests/test_theory_alignment_claims.py``.

Conventions
-----------
``R`` is the number of initialisations (seeds), ``E`` the number of values of ε of a sweep, ``T``
the number of snapshots. Times are flow time ``t = η k`` (summed exponential loss).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np
import torch

from ...losses import Loss
from ...models import TwoLayer, generator
from ...schedules import linear_schedule
from ...train import train
from ...trajectory import Trajectory
from .core import geometry, horizon
from .data import synthetic_separable
from .measure import mnist_summary, simplified_deviation

Tensor = torch.Tensor


@dataclass
class TheoryRuns:
    """Runs of the theory setting (balanced init of scale ε) with their data.

    Parameters
    ----------
    traj : Trajectory
        ``T`` snapshots of ``R`` runs, flow time.
    X, y : Tensor
        Data ``(n, D)`` and labels ``(n,)``.
    p0 : object
        The initialisation (:class:`lrlib.models.TwoLayer`, ``W1 (R, m, D)``).
    eps : float
        Its scale ε (``W1 = ε W₀``).
    h : int
        Width.
    """

    traj: Trajectory
    X: Tensor
    y: Tensor
    p0: object
    eps: float
    h: int = 50


@dataclass
class EpsSweep:
    """One flow per (ε, initialisation): the same ``W₀`` scaled by each ε of a sweep.

    Parameters
    ----------
    traj : Trajectory
        Runs ordered ``(ε, seed)``: ``E·R`` runs, flow time.
    X, y : Tensor
        Data ``(n, D)`` and labels ``(n,)``.
    eps : ndarray
        ``(E,)`` the scales.
    R : int
        Initialisations per scale.
    t_end : ndarray
        ``(E, R)`` the end of the window read by :func:`eps_lemma1_trend` (the horizon ``T(ε)``).
    h : int
        Width.
    dev : ndarray or None
        ``(T, E·R)`` the direction error of :func:`~lrlib.theory.alignment.measure.simplified_deviation`
        (made once by :func:`eps_sweep`, shared with a copy that reads another window).
    """

    traj: Trajectory
    X: Tensor
    y: Tensor
    eps: np.ndarray
    R: int
    t_end: np.ndarray
    h: int = 50
    dev: np.ndarray | None = field(default=None, repr=False)

    def window(self, t_end: np.ndarray) -> "EpsSweep":
        """The same sweep read up to another time, sharing the direction error.

        Parameters
        ----------
        t_end : ndarray
            ``(E, R)`` the window's end per run (flow time).

        Returns
        -------
        EpsSweep
        """
        return replace(self, t_end=np.asarray(t_end, dtype=float))


def eps_sweep(traj: Trajectory, X: Tensor, y: Tensor, eps: np.ndarray, R: int, h: int = 50,
              deviation: bool = True) -> EpsSweep:
    """Bundle an ε sweep, read up to the horizon ``T(ε)``, with its direction error.

    Parameters
    ----------
    traj : Trajectory
        ``E·R`` runs ordered ``(ε, seed)``.
    X, y : Tensor
        Data ``(n, D)`` and labels ``(n,)``.
    eps : ndarray
        ``(E,)`` scales.
    R : int
        Initialisations per scale.
    h : int
        Width.
    deviation : bool
        Compute the direction error (a ReLU network from a balanced init; False for other models).

    Returns
    -------
    EpsSweep
    """
    eps = np.asarray(eps, dtype=float)
    g = geometry(X, y)
    T = np.repeat(np.array([horizon(g, h, e) for e in eps])[:, None], R, 1)
    dev = simplified_deviation(traj, X, y) if deviation else None
    return EpsSweep(traj, X, y, eps, R, T, h, dev)


def t2_n_sweep(W0, n: int, seed: int, R: int, act: str = "relu", div: int = 1) -> EpsSweep:
    """GD of a balanced init at ε ∈ {10⁻⁴, 10⁻⁸, 10⁻¹²} on ``n`` points of the synthetic family.

    Parameters
    ----------
    W0 : TwoLayer
        The initialisation at scale 1 (``R`` runs, ``D = 10``), scaled by each ε.
    n : int
        Points: ``synthetic_separable(n, 10, 0.3, generator(seed + 40 + n))`` (the t₁-against-n data).
    seed : int
        The chapter's base seed.
    R : int
        Initialisations.
    act : str
        ``"relu"``, or ``"linear"`` for the control.
    div : int
        The step is ``0.05/(n X_max)/div`` (``div = 2``: the step-halving re-run).

    Returns
    -------
    EpsSweep
        The runs ``(ε, seed)``, summed exponential loss, to ``t = 1.5 log(1/(√50·10⁻¹²))/min‖x±‖ + 2``,
        snapshots every ``5·div`` steps (no direction error).
    """
    X, y = synthetic_separable(n, 10, 0.3, generator(seed + 40 + n))
    g, eps = geometry(X, y), 10.0 ** -np.arange(4, 13, 4)
    sc = torch.as_tensor(eps).repeat_interleave(R)[:, None, None]
    p = TwoLayer(W1=W0.W1.repeat(3, 1, 1) * sc, W2=W0.W2.repeat(3, 1, 1) * sc, act=act)
    eta = 0.05 / (n * g.X_max) / div
    k = int((1.5 * math.log(1 / (math.sqrt(50) * 1e-12)) / min(g.x_plus.norm().item(), g.x_minus.norm().item())
             + 2) / eta)
    tr = train(p, X, y, loss=Loss("exponential", "sum"), lr=eta, steps=k, record=linear_schedule(k, 5 * div))
    return eps_sweep(tr, X, y, eps, R, deviation=False)


def initial(traj: Trajectory) -> Trajectory:
    """The initial snapshot of a trajectory, as a trajectory of one snapshot (the ``init=`` of a claim).

    Parameters
    ----------
    traj : Trajectory
        ``T`` snapshots of ``R...`` runs.

    Returns
    -------
    Trajectory
        Its snapshot 0 alone (tensors ``(1, R..., …)``).
    """
    return replace(traj.head(1), dense_loss=None)


@dataclass
class TwoPointRuns:
    """Runs of the two-point family of Figures 7–9 with their data.

    Parameters
    ----------
    traj : Trajectory
        ``T`` snapshots of ``R`` runs (GD iterations in ``traj.steps``).
    X, y : Tensor
        Data ``(2, 2)`` and labels ``(2,)``.
    """

    traj: Trajectory
    X: Tensor
    y: Tensor


@dataclass
class MnistRuns:
    """MNIST runs, one network per digit pair (one seed), with what the claims read of them.

    Parameters
    ----------
    runs : dict
        Pair label → ``(X, y, traj, sr_conv)``: centred images ``(n, 784)``, labels ``(n,)``, the
        run (GD iterations in ``traj.steps``) and its final relative stable-rank change
        (:func:`~lrlib.theory.alignment.mnist.train_until_stable`). The first pair is the one
        :func:`mnist_timescales` reads.
    """

    runs: dict

    @cached_property
    def summaries(self) -> list[dict]:
        """Per pair, :func:`~lrlib.theory.alignment.measure.mnist_summary` with ``sr_conv`` and ``last_iteration``."""
        return [dict(mnist_summary(X, y, tr), sr_conv=float(conv), last_iteration=int(tr.steps[-1]))
                for X, y, tr, conv in self.runs.values()]


@dataclass
class InitDraws:
    """Monte Carlo draws of initial neurons, one independent set per seed (§3.1).

    Parameters
    ----------
    X, y : Tensor
        Data ``(n, D)`` and labels ``(n,)``.
    seeds : list of int
        One generator seed per seed of the claim.
    draws : int
        Draws per seed.
    m : int
        Neurons per draw for the "none of m" probability.
    bias : Tensor or None
        ``(D,)``: draw ``bias + 0.3 g`` instead of ``N(0, I/D)`` (a biased initialisation).
    """

    X: Tensor
    y: Tensor
    seeds: list
    draws: int = 20_000
    m: int = 4
    bias: Tensor | None = None


@dataclass
class SchemeRun:
    """One SGD training scheme of Figures 12/13, measured per epoch.

    Parameters
    ----------
    norm_change, direction_change : ndarray
        Per snapshot ``(T,)`` (:func:`~lrlib.theory.alignment.cones.norm_and_direction_change`).
    loss : ndarray
        Mean loss per snapshot ``(T,)``.
    """

    norm_change: np.ndarray
    direction_change: np.ndarray
    loss: np.ndarray


@dataclass
class NormRuns:
    """A flow and its continuation by the same flow, read for ``‖W(t)‖_F`` as ``t → ∞``.

    Parameters
    ----------
    first, cont : Trajectory
        ``R`` runs; ``cont`` starts from ``first``'s last snapshot, its time counted from there.
    t_min : float
        The earliest flow time read.
    fit_last : int
        The number of deepest snapshots the slope is fitted on.
    """

    first: Trajectory
    cont: Trajectory
    t_min: float = 100.0
    fit_last: int = 20
