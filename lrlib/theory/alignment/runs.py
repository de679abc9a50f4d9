"""The chapter's experiments and their bookkeeping: the runs the notebook trains and the per-run
counts it reads off them (drops of the loss, stragglers outside S₊, pattern changes, the
alignment-time sweeps, the ε sweep's initialisations), so that the notebook's cells stay a few
lines of science. Tested in ``tests/test_theory_alignment_runs.py``.

Conventions
-----------
``traj`` is a :class:`lrlib.trajectory.Trajectory` of ``T`` snapshots of ``R`` runs (flow time
``t = η k`` for the summed loss); ``X (n, D)`` and ``y (n,)`` are the data and labels ±1;
``R`` is the number of initialisations (seeds).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from ...losses import Loss
from ...measure import drops
from ...models import TwoLayer, generator
from ...schedules import linear_schedule
from ...train import train
from ...trajectory import Trajectory
from .cones import cap_leaves_cone, cone_membership, norm_and_direction_change
from .core import DataGeometry, lemma2_gap
from .lemmas import alignment_time_and_bound
from .measure import live_outside_s_plus

Tensor = torch.Tensor
EXP_SUM = Loss("exponential", "sum")


def gd(p0: TwoLayer, X: Tensor, y: Tensor, lr: float, steps: int, every: int, loss: Loss = EXP_SUM,
       **kw) -> Trajectory:
    """Full-batch GD (:func:`lrlib.train.train`) recording every ``every``-th step (and 0, ``steps``).

    Parameters
    ----------
    p0 : TwoLayer
        The initialisation, ``W1 (R..., m, D)``.
    X, y : Tensor
        The data (module conventions).
    lr : float
        Step size η.
    steps : int
        Number of GD steps.
    every : int
        The recording interval in steps (``linear_schedule(steps, every)``).
    loss : Loss, optional
        The loss (default: the paper's summed exponential loss).
    **kw : object
        Passed to :func:`lrlib.train.train`.

    Returns
    -------
    Trajectory
        The recorded snapshots of the runs of ``p0``.
    """
    return train(p0, X, y, loss=loss, lr=lr, steps=steps, record=linear_schedule(steps, every), **kw)


def drop_counts(traj: Trajectory) -> np.ndarray:
    """The number of separate sharp drops of each run's loss (:func:`lrlib.measure.drops`).

    Parameters
    ----------
    traj : Trajectory
        ``T`` snapshots of ``R`` runs (module conventions).

    Returns
    -------
    np.ndarray
        ``(R,)`` integer counts.
    """
    L = traj.loss.numpy().reshape(len(traj), -1)
    return np.array([len(drops(traj.steps, L[:, r])) for r in range(L.shape[1])])


def two_drop_passes(traj: Trajectory, runs: int) -> int:
    """How many of the first ``runs`` runs show Fig 6's rule: two drops and a final loss below 1 %.

    Parameters
    ----------
    traj : Trajectory
        ``T`` snapshots of at least ``runs`` runs.
    runs : int
        The runs read (the first ones).

    Returns
    -------
    int
        The number of runs with exactly two drops and ``L(end) / L(0) < 0.01``.
    """
    L = traj.loss.numpy().reshape(len(traj), -1)[:, :runs]
    return int(((drop_counts(traj)[:runs] == 2) & (L[-1] / L[0] < 0.01)).sum())


def stragglers_at(traj: Trajectory, X: Tensor, y: Tensor, steps) -> dict[int, np.ndarray]:
    """Live neurons with ``v_j > 0`` outside S₊ (:func:`~.measure.live_outside_s_plus`) at given steps.

    Parameters
    ----------
    traj : Trajectory
        ``T`` snapshots of ``R`` runs recording each of ``steps``.
    X, y : Tensor
        The data (module conventions).
    steps : sequence of int
        GD iterations.

    Returns
    -------
    dict
        ``{step: (R,) counts}``.
    """
    return {k: live_outside_s_plus(traj.at(traj.index_of_step(k)), X, y).numpy() for k in steps}


def outside_growth(traj: Trajectory, X: Tensor, y: Tensor) -> np.ndarray:
    """The largest norm growth ``‖w_j(end)‖ / ‖w_j(0)‖`` of a live ``v_j > 0`` neuron outside S₊ at the end.

    Parameters
    ----------
    traj : Trajectory
        ``T`` snapshots of ``R`` runs.
    X, y : Tensor
        The data (module conventions).

    Returns
    -------
    np.ndarray
        ``(R,)`` growth factors (0 where no such neuron).
    """
    cm = cone_membership(traj.final.W1, X, y)
    out = (traj.final.a > 0) & ~cm["S_dead"] & ~cm["S_plus"]
    return torch.where(out, traj.final.norms_in() / traj.at(0).norms_in(), torch.zeros(())).amax(-1).numpy()


def snapshots_at_times(traj: Trajectory, t: np.ndarray, lr: float) -> list[int]:
    """The snapshot index of the step ``round(t / η)`` per run (the last snapshot where ``t`` is not finite).

    Parameters
    ----------
    traj : Trajectory
        GD snapshots recording the steps asked for.
    t : np.ndarray
        ``(R,)`` flow times.
    lr : float
        The step size η (flow time per step).

    Returns
    -------
    list of int
        ``R`` snapshot indices.
    """
    return [traj.index_of_step(int(round(s / lr))) if np.isfinite(s) else len(traj) - 1 for s in t]


def pattern_invariants(P: TwoLayer, y: Tensor, cm: dict[str, Tensor], actp: Tensor,
                       i1: list[int]) -> dict[str, np.ndarray]:
    """Lemmas 6, 7 and 10 on a trajectory's activation patterns, per run.

    Parameters
    ----------
    P : TwoLayer
        The stacked snapshots, ``W1 (T, R, m, D)``, ``W2 (T, R, 1, m)``.
    y : Tensor
        The labels ``(n,)`` (module conventions).
    cm : dict
        :func:`~.cones.cone_membership` of ``P.W1``, masks ``(T, R, m)``.
    actp : Tensor
        The activation patterns ``⟨x_i, w_j⟩ > 0``, ``(T, R, n, m)`` bool.
    i1 : list of int
        ``R`` snapshot indices of the alignment time ``t₁``.

    Returns
    -------
    dict
        ``flips`` — output-weight sign changes; ``wrong_way`` — activations a ``v_j > 0`` neuron gains
        on a negative or loses on a positive point (and the converse for ``v_j < 0``);
        ``n_changes`` ``(R, m)`` — pattern changes per neuron; ``escapes`` — neurons leaving their own
        cone or S_dead; ``mass_ok`` — 1 where ``Σ‖w_j‖²`` over each ``V±`` in its cone at ``t₁``
        never decreases after ``t₁``. Each ``(R,)`` unless said.
    """
    vpos = P.a > 0
    gain, lose = actp[1:] & ~actp[:-1], ~actp[1:] & actp[:-1]
    vp = vpos[0].unsqueeze(0).unsqueeze(-2)                                # (1, R, 1, m)
    bad_pos = ((gain[:, :, y < 0] | lose[:, :, y > 0]) & vp).sum((0, 2, 3))
    bad_neg = ((gain[:, :, y > 0] | lose[:, :, y < 0]) & ~vp).sum((0, 2, 3))
    trap_own = torch.where(vpos, cm["S_plus"], cm["S_minus"]) | cm["S_dead"]
    return dict(flips=(torch.sign(P.a) != torch.sign(P.a[0])).sum((0, -1)).numpy(),
                wrong_way=(bad_pos + bad_neg).numpy(), n_changes=(actp[1:] != actp[:-1]).any(-2).sum(0),
                escapes=(trap_own[:-1] & ~trap_own[1:]).sum((0, -1)).numpy(), mass_ok=mass_ok(P, cm, i1))


def mass_ok(P: TwoLayer, cm: dict[str, Tensor], i1: list[int]) -> np.ndarray:
    """Whether ``Σ_{j ∈ V±, w_j(t₁) ∈ S±} ‖w_j‖²`` never decreases after ``t₁`` (relative slack 1e-12).

    Parameters
    ----------
    P : TwoLayer
        The stacked snapshots, ``W1 (T, R, m, D)``.
    cm : dict
        :func:`~.cones.cone_membership` of ``P.W1``, masks ``(T, R, m)``.
    i1 : list of int
        ``R`` snapshot indices of ``t₁``.

    Returns
    -------
    np.ndarray
        ``(R,)``: 1.0 where it holds for both classes, else 0.0.
    """
    ok = np.ones(len(i1))
    for r in range(len(i1)):
        for sgn, cone in ((1, "S_plus"), (-1, "S_minus")):
            Vt = cm[cone][i1[r], r] & (torch.sign(P.a[0, r]) == sgn)
            u = ((P.W1[i1[r]:, r] ** 2).sum(-1) * Vt).sum(-1)
            ok[r] *= float((u[1:] >= u[:-1] * (1 - 1e-12)).all())
    return ok


def dwell_bound(g: DataGeometry, zeta_: float, n_a):
    """Lemma 10's longest constant-pattern interval ``Δt = 4 / (min(ζ, ξ) √μ X_min n_a)``.

    Parameters
    ----------
    g : DataGeometry
        The data's geometry.
    zeta_ : float
        The run's ζ.
    n_a : int or np.ndarray
        The number of active points.

    Returns
    -------
    float or np.ndarray
        ``Δt`` in flow time, the shape of ``n_a``.
    """
    return 4 / (min(zeta_, g.xi_lower) * math.sqrt(g.mu) * g.X_min * n_a)


def scaled_copies(p0: TwoLayer, scales: np.ndarray) -> TwoLayer:
    """``p0`` (``R`` runs) scaled by each of ``E`` factors: runs ordered (scale, seed).

    Parameters
    ----------
    p0 : TwoLayer
        ``W1 (R, m, D)``, ``W2 (R, 1, m)``.
    scales : np.ndarray
        ``(E,)`` factors (ε).

    Returns
    -------
    TwoLayer
        ``W1 (E·R, m, D)``, ``W2 (E·R, 1, m)``.
    """
    E, R = len(scales), p0.W1.shape[0]
    s = torch.as_tensor(scales).repeat_interleave(R)[:, None, None]
    return TwoLayer(W1=p0.W1.repeat(E, 1, 1) * s, W2=p0.W2.repeat(E, 1, 1) * s)


def max_until(dev: np.ndarray, time: np.ndarray, T: np.ndarray, R: int) -> np.ndarray:
    """The largest value of a ``(T, E·R)`` series up to a time ``T_e`` per sweep value.

    Parameters
    ----------
    dev : np.ndarray
        ``(T, E·R)`` series, runs ordered (sweep value, seed).
    time : np.ndarray
        ``(T,)`` flow times.
    T : np.ndarray
        ``(E,)`` horizons.
    R : int
        Seeds per sweep value.

    Returns
    -------
    np.ndarray
        ``(E, R)``.
    """
    return np.array([[dev[time <= T[e], e * R + r].max() for r in range(R)] for e in range(len(T))])


def t1_sweep(datasets, runs: int, eps: float, seeds, t_max: float, step_div: int = 1
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`~.lemmas.alignment_time_and_bound` over a list of data sets.

    Parameters
    ----------
    datasets : sequence of (Tensor, Tensor)
        ``K`` pairs ``(X, y)`` (module conventions).
    runs : int
        Initialisations per data set.
    eps : float
        Initialisation scale ε.
    seeds : int or sequence of int
        The initialisation seed, one for all or one per data set.
    t_max : float
        Flow-time horizon.
    step_div : int, optional
        Divides the step.

    Returns
    -------
    (np.ndarray, np.ndarray, np.ndarray)
        ``μ`` per data set ``(K,)``, the measured ``t₁`` and its bound ``(K, R)`` (flow time).
    """
    seeds = [seeds] * len(datasets) if np.ndim(seeds) == 0 else seeds
    out = [alignment_time_and_bound(X, y, runs, eps, s, t_max=t_max, step_div=step_div)
           for (X, y), s in zip(datasets, seeds)]
    return np.array([g.mu for g, _, _ in out]), np.array([t for _, t, _ in out]), np.array([b for _, _, b in out])


def erratum_leaks(g: DataGeometry, zetas, X: Tensor, y: Tensor, seed: int) -> np.ndarray:
    """Per run, whether the cap of half-angle ``ζ`` around ``x₊`` leaves S₊ or the one around ``x₋``
    leaves S₋ (:func:`~.cones.cap_leaves_cone`).

    Parameters
    ----------
    g : DataGeometry
        The data's geometry.
    zetas : sequence of float
        ``R`` values of ζ, one per run.
    X, y : Tensor
        The data (module conventions).
    seed : int
        Run ``r`` draws its directions from ``generator(seed + 60 + r)`` (S₊) and
        ``generator(seed + 70 + r)`` (S₋).

    Returns
    -------
    np.ndarray
        ``(R,)``: 1.0 where a cap leaves its cone.
    """
    return np.array([float(cap_leaves_cone(g.x_plus, z, X, y, "S_plus", generator(seed + 60 + r))
                           or cap_leaves_cone(g.x_minus, z, X, y, "S_minus", generator(seed + 70 + r)))
                     for r, z in enumerate(zetas)])


def lemma2_excess(n: int = 100_001) -> float:
    """The largest ``gap(y, ŷ) − 2|ŷ|`` of Lemma 2 over ``ŷ ∈ [−1, 1]`` (``n`` points), both labels and
    both losses (:func:`~.core.lemma2_gap`); Lemma 2 says it is ≤ 0.

    Parameters
    ----------
    n : int, optional
        Grid points.

    Returns
    -------
    float
        The largest excess.
    """
    yh = torch.linspace(-1, 1, n, dtype=torch.float64)
    return max(float((lemma2_gap(torch.full_like(yh, s), yh, k) - 2 * yh.abs()).max())
               for s in (1.0, -1.0) for k in ("exponential", "logistic2"))


def scheme_changes(traj: Trajectory, X: Tensor, y: Tensor, loss: Loss, per_epoch: int
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The norm and direction change of every snapshot (:func:`~.cones.norm_and_direction_change`).

    Parameters
    ----------
    traj : Trajectory
        ``T`` snapshots of one run.
    X, y : Tensor
        The data (module conventions).
    loss : Loss
        The training loss.
    per_epoch : int
        Steps per epoch.

    Returns
    -------
    (np.ndarray, np.ndarray, np.ndarray, np.ndarray)
        Epochs, norm change, direction change and loss, each ``(T,)``.
    """
    nc, dc = zip(*[norm_and_direction_change(traj.at(i), X, y, loss) for i in range(len(traj))])
    return (traj.steps / per_epoch, np.array([float(v) for v in nc]), np.array([float(v) for v in dc]),
            traj.loss.numpy())
