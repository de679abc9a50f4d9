"""The synthesis chapter's runs and their tables: the bookkeeping of the notebook's three parts.

Conventions
-----------
Every experiment is batched over a leading run dimension ``R``. In a sweep over ``K`` scales (part 1's
``λ``, part 3's std) and ``S`` seeds, run ``k·S + s`` is scale ``k``, seed ``s`` (one initial draw per
seed, scaled), and arrays over the runs reshape to ``(K, S)``. Part 2's race runs hold the ``S`` seeds
of the small initialisation first, then the ``S`` control runs. Times are gradient-flow time
(steps × step) in parts 1 and 3 and SGD steps in part 2. ``X, y`` (or ``X, Y``) are a batch's data,
``(R, N, D)`` and ``(R, N)`` or ``(R, N, k)``, or one run's ``(N, D)`` where noted; ``loss`` is a
:class:`~lrlib.losses.Loss`.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np
import pandas as pd
import torch

from ...losses import Loss
from ...measure import drop_times, first_crossing, relative_error
from ...models import TwoLayer
from ...schedules import log_schedule
from ...train import train
from ..agf import agf
from ..orthogonal import KeyVectors, phase_times
from ..race import cluster_losses
from .agf_gd import agf_vs_gd_jumps, cost_phase
from .claims import LambdaSweep, XorRuns
from .race_alignment import alignment_lens_rows
from .xor import xor_agf_vs_gd

Tensor = torch.Tensor


def gd_run(p0: TwoLayer, X: Tensor, y: Tensor, *, loss: Loss, lr: float, steps: int, every: int = 10):
    """Full-batch GD from ``p0``, recorded every ``every`` steps (parts 1 and 3).

    Parameters
    ----------
    p0 : TwoLayer
        The initial networks, ``(R, m, D)`` first layers.
    X, y : Tensor
        The data (module conventions).
    loss : Loss
        The loss.
    lr : float
        The step (gradient-flow time per step).
    steps : int
        Number of steps.
    every : int
        Steps between snapshots.

    Returns
    -------
    Trajectory
        The run (:func:`lrlib.train.train`), snapshots at steps ``0, every, …, steps``.
    """
    return train(p0, X, y, loss=loss, lr=lr, steps=steps, record=np.arange(0, steps + 1, every))


def scaled_runs(base: TwoLayer, scales, act: str = "relu") -> tuple[TwoLayer, Tensor]:
    """One initial draw per seed, scaled by each of ``K`` scales (run ``k·S + s``).

    Parameters
    ----------
    base : TwoLayer
        ``S`` bias-free networks at scale 1, first layers ``(S, m, D)``.
    scales : sequence of float
        The ``K`` scales (``λ`` or std, relative to ``base``).
    act : str
        The activation of the scaled networks (``"linear"``: the ``σ = id`` control).

    Returns
    -------
    (TwoLayer, Tensor)
        The ``K·S`` networks and each run's scale ``(K·S,)`` (float64).
    """
    S = base.W1.shape[0]
    per_run = torch.tensor(list(scales), dtype=torch.float64).repeat_interleave(S)
    W1 = base.W1.repeat(len(per_run) // S, 1, 1) * per_run[:, None, None]
    W2 = base.W2.repeat(len(per_run) // S, 1, 1) * per_run[:, None, None]
    return TwoLayer(W1=W1, W2=W2, act=act), per_run


def by_scale(values: np.ndarray, n_scales: int) -> np.ndarray:
    """Curves over the runs of a sweep as ``(T, K, S)`` (run ``k·S + s``).

    Parameters
    ----------
    values : np.ndarray
        ``(T, K·S)`` one curve per run.
    n_scales : int
        ``K``.

    Returns
    -------
    np.ndarray
        ``(T, K, S)``.
    """
    values = np.asarray(values)
    return values.reshape(values.shape[0], n_scales, -1)


def orthogonal_agf(p0: TwoLayer, X: Tensor, y: Tensor, lams: Tensor, *, loss: Loss, norm_minus: float,
                   cost_lr: float = 0.05, cost_steps: int = 4000) -> list:
    """AGF (``κ = 2``, ``η = 1``) from each run's initial network on part 1's orthogonal data.

    Parameters
    ----------
    p0 : TwoLayer
        The ``R`` initial networks of the λ-sweep (:func:`scaled_runs`).
    X, y : Tensor
        One run's data, ``(N, D)`` and ``(N,)``.
    lams : Tensor
        ``(R,)`` each run's ``λ``.
    loss : Loss
        The square loss.
    norm_minus : float
        ``‖D−‖``; AGF's horizon is ``1.5 ln(1/λ)/‖D−‖`` (gradient-flow time).
    cost_lr, cost_steps : float, int
        The cost phase's GD step and number of steps (:func:`~.agf_gd.cost_phase`).

    Returns
    -------
    list of AGFRun
        ``R`` runs (:class:`~lrlib.theory.agf.AGFRun`).
    """
    cost = partial(cost_phase, X=X, y=y, loss=loss, lr=cost_lr, steps=cost_steps)
    return [agf(TwoLayer(W1=p0.W1[r], W2=p0.W2[r]), X, y, loss=loss, kappa=2, eta=1.0, dtau_max=0.5,
                cost_fn=cost, tau_max=1.5 * math.log(1 / lam) / norm_minus)
            for r, lam in enumerate(lams.tolist())]


def jump_table(gds: tuple, agf_runs: list, lams: Tensor, kv: KeyVectors, n_seeds: int) -> pd.DataFrame:
    """Part 1's table: AGF's and the leading order's jump times against GD's drops, per run and jump.

    Parameters
    ----------
    gds : (Trajectory, Trajectory, Trajectory)
        GD at steps ``dt``, ``2 dt`` and ``4 dt`` from the same networks (``(T, R)`` losses).
    agf_runs : list of AGFRun
        ``R`` AGF runs from the same networks.
    lams : Tensor
        ``(R,)`` each run's ``λ``.
    kv : KeyVectors
        The data's key vectors (:func:`lrlib.theory.orthogonal.key_vectors`).
    n_seeds : int
        ``S`` (run ``r`` is seed ``r mod S``).

    Returns
    -------
    pd.DataFrame
        The rows of :func:`~.agf_gd.agf_vs_gd_jumps` (tolerance ``1/ln(1/λ)``) with ``lam``, ``run``,
        ``seed``, ``step_gap`` (the largest relative change of the drops at twice the step) and
        ``rich_gap`` (the change of the Richardson extrapolation ``2 t(dt) − t(2dt)`` at twice the step;
        its residual is about a third of it); ``nan`` gaps where AGF made fewer than two jumps.
    """
    gd, gd2, gd4 = gds
    rows = []
    for r, (lam, run) in enumerate(zip(lams.tolist(), agf_runs)):
        gap, rgap = [np.nan], [np.nan]
        if len(run.tau) >= 3:
            t1, t2, t4 = (drop_times_of(g, r, run.levels[:3]) for g in (gd, gd2, gd4))
            gap, rgap = relative_error(t2, t1), relative_error(2 * t2 - t4, 2 * t1 - t2)
        pt = phase_times(kv, lam)
        table = agf_vs_gd_jumps(gd.time, gd.loss[:, r].numpy(), run.tau, run.levels,
                                (pt.t2_scale, pt.t3_scale), tol=1 / math.log(1 / lam))
        rows += [dict(lam=lam, run=r, seed=r % n_seeds, step_gap=np.max(gap), rich_gap=np.max(rgap), **row)
                 for row in table]
    return pd.DataFrame(rows)


def drop_times_of(traj, run: int, levels: np.ndarray) -> np.ndarray:
    """GD's drop times of one run of a batched trajectory against a staircase of levels.

    Parameters
    ----------
    traj : Trajectory
        A batched run, ``(T, R)`` losses.
    run : int
        The run read.
    levels : np.ndarray
        ``(J+1,)`` the levels (:func:`lrlib.measure.drop_times`).

    Returns
    -------
    np.ndarray
        ``(J,)`` drop times (the trajectory's time units).
    """
    return drop_times(traj.time, traj.loss[:, run].numpy(), levels)


def lambda_sweep(lams, gd, gd2, agf_runs: list, kv: KeyVectors, c: np.ndarray) -> LambdaSweep:
    """Part 1's λ-sweep (:class:`~.claims.LambdaSweep`) from GD at ``dt`` and ``2 dt`` and AGF's runs.

    Parameters
    ----------
    lams : sequence of float
        The ``K`` scales ``λ``.
    gd, gd2 : Trajectory
        GD at steps ``dt`` and ``2 dt`` (Richardson), ``K·S`` runs on the same time grid.
    agf_runs : list of AGFRun
        ``K·S`` AGF runs from the same networks.
    kv : KeyVectors
        The data's key vectors (for the leading-order times).
    c : np.ndarray
        ``(K, S)`` Boursier et al.'s initial scale ``max_j ‖w_j(0)‖/λ``.

    Returns
    -------
    LambdaSweep
        The sweep, curves ``(T, K, S)``.
    """
    K = len(lams)
    S = len(agf_runs) // K
    tau = [[agf_runs[i * S + s].tau for s in range(S)] for i in range(K)]
    levels = [[agf_runs[i * S + s].levels for s in range(S)] for i in range(K)]
    leading = np.array([[phase_times(kv, lam).t2_scale, phase_times(kv, lam).t3_scale] for lam in lams])
    return LambdaSweep(lams=np.array(lams), time=gd.time, loss=by_scale(gd.loss.numpy(), K), tau=tau,
                       levels=levels, leading=leading, loss2=by_scale(gd2.loss.numpy(), K), c=c)


def resampled(time: np.ndarray, traj) -> np.ndarray:
    """Every run's loss of ``traj`` interpolated on another time grid (a coarse run read on the fine grid).

    Parameters
    ----------
    time : np.ndarray
        ``(T,)`` the grid.
    traj : Trajectory
        The run, ``(T', R)`` losses.

    Returns
    -------
    np.ndarray
        ``(T, R)``.
    """
    return np.stack([np.interp(time, traj.time, traj.loss[:, r].numpy()) for r in range(traj.loss.shape[1])], 1)


def race_sgd(p0: TwoLayer, X: Tensor, y: Tensor, *, loss: Loss, lr: float, steps: int, seed: int):
    """The race chapter's setting-1 optimiser: SGD with momentum 0.9, batch 4, 60 log-spaced snapshots.

    Parameters
    ----------
    p0 : TwoLayer
        The race networks, ``(R, m, D)`` first layers.
    X, y : Tensor
        The data (module conventions), labels ``{0, 1}``.
    loss : Loss
        The cross-entropy.
    lr : float
        The SGD step.
    steps : int
        Number of steps.
    seed : int
        The mini-batch seed.

    Returns
    -------
    Trajectory
        The run (time in steps).
    """
    return train(p0, X, y, loss=loss, lr=lr, momentum=0.9, batch_size=4, steps=steps,
                 record=log_schedule(steps, 60), seed=seed, check_every=1000)


def lens_table(traj, X: Tensor, y: Tensor, seed: int) -> pd.DataFrame:
    """:func:`~.race_alignment.alignment_lens_rows` (plateau end at ``0.99 ln 2``) for the first ``S`` runs.

    Parameters
    ----------
    traj : Trajectory
        A batched race run.
    X, y : Tensor
        ``(S, N, D)`` inputs and ``(S, N)`` labels of the runs read.
    seed : int
        The seed of run 0 (run ``r`` is seed ``seed + r``).

    Returns
    -------
    pd.DataFrame
        Three rows per run (``init``, ``end of plateau``, ``final``) with a ``seed`` column.
    """
    return pd.DataFrame([dict(seed=seed + r, **row) for r in range(X.shape[0]) for row in
                         alignment_lens_rows(traj.run(r), X[r], y[r], plateau_level=0.99 * math.log(2))])


def xor_table(gd, closs: np.ndarray, gd2, closs2: np.ndarray, agf_runs: list, X: Tensor, Y: Tensor,
              cl: Tensor) -> tuple[pd.DataFrame, list, list]:
    """Part 3's table: AGF's cluster activations against GD's per-cluster drops, per seed.

    Parameters
    ----------
    gd, gd2 : Trajectory
        GD at steps ``dt`` and ``2 dt`` (the step premise); their times.
    closs, closs2 : np.ndarray
        ``(T, R, C)`` and ``(T', S, C)`` their per-cluster losses
        (:func:`lrlib.theory.race.cluster_losses`, half square loss).
    agf_runs : list of AGFRun
        ``S`` AGF runs, one per seed (the first ``S`` runs).
    X, Y : Tensor
        The data (module conventions).
    cl : Tensor
        ``(N,)`` cluster index.

    Returns
    -------
    (pd.DataFrame, list of float, list of float)
        The rows of :func:`~.xor.xor_agf_vs_gd` with ``run``, ``seed``, ``control`` (False); per seed, 1.0
        where AGF's cluster order is GD's; per seed, the largest relative change of GD's drops at twice
        the step.
    """
    rows, order, gap = [], [], []
    for r, run in enumerate(agf_runs):
        rows_r, ok = xor_agf_vs_gd(gd.time, closs[:, r], run, X[r], Y[r], cl)
        rows += [dict(run=r, seed=r, control=False, **row) for row in rows_r]
        order.append(float(ok))
        rows2, _ = xor_agf_vs_gd(gd2.time, closs2[:, r], run, X[r], Y[r], cl)
        gap.append(np.max(relative_error([q["gd"] for q in rows2], [q["gd"] for q in rows_r])))
    return pd.DataFrame(rows), order, gap


def largest_neuron_norm(p: TwoLayer) -> np.ndarray:
    """Per run, the largest neuron norm ``max_j ‖(w_j, a_j)‖`` of a bias-free network.

    Parameters
    ----------
    p : TwoLayer
        Networks with first layers ``(R, m, D)`` and second layers ``(R, k, m)``.

    Returns
    -------
    np.ndarray
        ``(R,)``.
    """
    theta = torch.cat([p.W1, p.W2.transpose(-1, -2)], -1)
    return torch.linalg.vector_norm(theta, dim=-1).amax(-1).numpy()


def half_fit_time(time: np.ndarray, closs: np.ndarray) -> float:
    """The time by which every run's every per-cluster loss has halved.

    Parameters
    ----------
    time : np.ndarray
        ``(T,)`` times.
    closs : np.ndarray
        ``(T, R, C)`` per-cluster losses.

    Returns
    -------
    float
        The latest first crossing of half the initial value (``nan`` if one never halves).
    """
    return max(first_crossing(time, closs[:, r, c], closs[0, r, c] / 2)
               for r in range(closs.shape[1]) for c in range(closs.shape[2]))


def xor_batch(traj, closs: np.ndarray, rows: list, agf_runs: list, X: Tensor, Y: Tensor,
              cl: Tensor) -> XorRuns:
    """Runs ``rows`` of a batched GD trajectory on the XOR toy, with AGF's runs (:class:`~.claims.XorRuns`).

    Parameters
    ----------
    traj : Trajectory
        The batched GD run.
    closs : np.ndarray
        ``(T, R, C)`` its per-cluster losses.
    rows : list of int
        The ``S`` runs taken.
    agf_runs : list of AGFRun
        ``S`` AGF runs, one per taken run.
    X, Y : Tensor
        ``(S, N, D)``, ``(S, N, k)`` the taken runs' data.
    cl : Tensor
        ``(N,)`` cluster index.

    Returns
    -------
    XorRuns
        The batch.
    """
    return XorRuns(traj.time, traj.loss[:, rows].numpy(), closs[:, rows], agf_runs, X, Y, cl)


def worst_error(table: pd.DataFrame) -> np.ndarray:
    """Per run of an XOR table, the largest relative jump-time error over the clusters.

    Parameters
    ----------
    table : pd.DataFrame
        Rows of :func:`xor_table` (columns ``run``, ``err``).

    Returns
    -------
    np.ndarray
        ``(R,)`` by run; ``nan`` where a cluster got no AGF jump.
    """
    return np.array([np.max(g.err.to_numpy()) for _, g in table.groupby("run")])


def ce_cluster_drops(traj, X: Tensor, y: Tensor, cl: Tensor, loss: Loss) -> np.ndarray:
    """Per run and cluster, the first time the cluster's cross-entropy has halved.

    Parameters
    ----------
    traj : Trajectory
        The batched run.
    X, y : Tensor
        ``(S, N, D)`` inputs and ``(S, N)`` labels.
    cl : Tensor
        ``(N,)`` cluster index.
    loss : Loss
        The cross-entropy.

    Returns
    -------
    np.ndarray
        ``(S, C)`` drop times (``nan`` where it never halves).
    """
    C = int(cl.max()) + 1
    ce = cluster_losses(traj.params, X, y, cl, loss, C).numpy()
    return np.array([[first_crossing(traj.time, ce[:, r, c], ce[0, r, c] / 2) for c in range(C)]
                     for r in range(X.shape[0])])


def same_order(t_a: np.ndarray, t_b: np.ndarray) -> int:
    """The number of rows in which two tables of times order their columns alike.

    Parameters
    ----------
    t_a, t_b : np.ndarray
        ``(S, C)`` times.

    Returns
    -------
    int
        Rows with equal ``argsort``.
    """
    return sum(list(np.argsort(t_a[r])) == list(np.argsort(t_b[r])) for r in range(len(t_a)))
