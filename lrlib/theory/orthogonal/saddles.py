"""The saddles of the orthogonal chapter (Boursier et al. 2022): intermediate plateaus, the walk past a saddle,
its distance, the linearised rate of escape, and the high-dimensional runs of Figures 6–7. Conventions: as in :mod:`.phases`.
"""

from __future__ import annotations

import math
import operator

import numpy as np
import pandas as pd
import torch

from ...errors import ParameterError
from ...losses import half_mse
from ...models import TwoLayer, forward
from ...measure import plateaus
from ...schedules import log_schedule
from ...track import max_direction_change
from ...trajectory import Trajectory
from .core import fit_vectors, s_sets
from .limit import tangent_features
from .phases import drop_iteration

Tensor = torch.Tensor


def intermediate_plateaus(L: np.ndarray, above: float, below: float = 0.95, tol: float = 0.01,
                          min_len: int = 5) -> list[tuple[int, int]]:
    """The plateaus (:func:`lrlib.measure.plateaus`) of one loss series between its first and last drops.

    A plateau counts if it starts below ``below·L(0)`` (after the first drop) and ends above
    ``above·L(T)`` (before the last one).

    Parameters
    ----------
    L : ndarray
        ``(T,)`` loss series.
    above : float
        Factor over the final loss.
    below : float
        Factor of the initial loss.
    tol : float
        Largest relative change of ``L`` per snapshot on a plateau.
    min_len : int
        Fewest snapshots of a plateau.

    Returns
    -------
    list of tuple of int
        ``(first, last)`` snapshot indices of each plateau.
    """
    L = np.asarray(L, dtype=float)
    return [pl for pl in plateaus(L, tol=tol, min_len=min_len)
            if pl[0] > 0 and L[pl[0]] < below * L[0] and L[pl[1]] > above * L[-1]]


def saddle_walk(traj: Trajectory, iterations: np.ndarray, above: float) -> dict:
    """One run's saddle-to-saddle measurements (Figures 4 and 7).

    Parameters
    ----------
    traj : Trajectory
        One run.
    iterations : ndarray
        ``(T,)`` the snapshots' iterations (any unit).
    above : float
        ``above`` of :func:`intermediate_plateaus`.

    Returns
    -------
    dict
        ``plateaus`` (the intermediate plateaus), ``main`` (the longest in ``iterations``, or ``None``),
        ``i_b`` (the snapshot just before the loss first drops below ``0.99·L(0)``), ``turn`` (the largest
        direction change, degrees, of the 10 largest neurons from ``i_b`` to just after the start of the
        longest plateau; nan without one) and ``speedup`` (the largest :func:`plateau_speedup` of the
        plateaus; nan without one).
    """
    L = traj.loss.numpy()
    pls = intermediate_plateaus(L, above=above)
    main = max(pls, key=lambda ab: iterations[ab[1]] - iterations[ab[0]]) if pls else None
    i_b = max(int(np.argmax(L < 0.99 * L[0])) - 1, 1)
    turn = max_direction_change(traj.at(i_b), traj.at(main[0] + 1)) if main else float("nan")
    speedup = max((plateau_speedup(L, iterations, pl) for pl in pls), default=float("nan"))
    return dict(plateaus=pls, main=main, i_b=i_b, turn=turn, speedup=speedup)


def plateau_speedup(L: np.ndarray, iterations: np.ndarray, plateau: tuple[int, int], factor: float = 10.0) -> float:
    """How much faster the loss falls when it leaves a plateau than on it.

    The mean decay rate of ``ln L`` per iteration from the plateau's end until the loss is ``factor``
    times lower (or the end of the series), over its mean decay rate along the plateau. A saddle gives a
    large value; a slowing exponential decay, as in the lazy regime, about 1 or less.

    Parameters
    ----------
    L : ndarray
        ``(T,)`` loss series.
    iterations : ndarray
        ``(T,)`` the snapshots' iterations.
    plateau : tuple of int
        ``(first, last)`` snapshot indices.
    factor : float
        How far below the plateau the exit rate is measured.

    Returns
    -------
    float
        ``inf`` for a flat or rising plateau, nan when nothing follows it.
    """
    L = np.asarray(L, dtype=float)
    a, b = plateau
    rate_in = (math.log(L[a]) - math.log(L[b])) / (iterations[b] - iterations[a])
    below = np.nonzero(L[b:] <= L[b] / factor)[0]
    j = b + int(below[0]) if below.size else len(L) - 1
    if j == b:
        return float("nan")
    rate_out = (math.log(L[b]) - math.log(L[j])) / (iterations[j] - iterations[b])
    return rate_out / rate_in if rate_in > 0 else float("inf")


def count_saddles(loss: Tensor, iterations: np.ndarray, walks: list[dict], speedup: float = 10.0) -> np.ndarray:
    """The number of saddles per run: intermediate plateaus left at least ``speedup`` times faster than the
    loss moves on them (:func:`plateau_speedup`).

    Parameters
    ----------
    loss : Tensor
        ``(T, R)`` loss series.
    iterations : ndarray
        ``(T,)`` the snapshots' iterations.
    walks : list of dict
        ``R`` results of :func:`saddle_walk` (their ``plateaus``).
    speedup : float
        Exit-rate factor that marks a saddle.

    Returns
    -------
    ndarray
        ``(R,)`` counts.
    """
    if len(walks) != loss.shape[1]:
        raise ParameterError(f"{loss.shape[1]} runs but {len(walks)} saddle walks")
    return np.array([sum(plateau_speedup(loss[:, r].numpy(), iterations, pl) >= speedup for pl in w["plateaus"])
                     for r, w in enumerate(walks)])


def saddle_distance(traj: Trajectory, X: Tensor, y: Tensor) -> Tensor:
    """The relative distance ``‖θ(t) − θ_S(t)‖/‖θ_S‖`` to the saddle set, per snapshot.

    ``θ_S(t)`` is built from ``θ(t)``: every ``S_{+,1}`` neuron (sets of the first snapshot) projected on
    ``v_+`` (:func:`fit_vectors`), all rescaled by one factor so that ``Σ‖w_j‖² = ‖v_+‖``,
    ``a_j = ‖w_j‖``; every other neuron 0; ``‖θ_S‖² = 2‖v_+‖``. An upper bound on the distance to the
    saddle set.

    Parameters
    ----------
    traj : Trajectory
        Runs ``(R...)``.
    X, y : Tensor
        The data (module conventions) that fix ``θ_S``.

    Returns
    -------
    Tensor
        ``(T, R...)``.
    """
    vp, _ = fit_vectors(X, y)
    mass = float(torch.linalg.vector_norm(vp))
    u = vp / mass
    Sp, _ = s_sets(traj.at(0), X, y)
    W, a = traj.params.W1, traj.params.a                                     # (T, R..., m, d), (T, R..., m)
    c = (W @ u).clamp_min(0) * Sp.to(W.dtype)                                # projections, 0 outside S_{+,1}
    scale = torch.sqrt(mass / (c ** 2).sum(-1, keepdim=True).clamp_min(1e-300))
    cs = c * scale
    dW = ((W - cs.unsqueeze(-1) * u) ** 2).sum((-1, -2))
    da = ((a - cs) ** 2).sum(-1)
    return torch.sqrt(dW + da) / math.sqrt(2 * mass)


def linearised_loss_rate(p: TwoLayer, X: Tensor) -> float:
    """The decay rate ``2 λ_min(K)/n`` of ``ln L`` for the flow linearised at ``p`` (½-mean loss L).

    ``K = J Jᵀ`` is the ``(n, n)`` tangent-kernel Gram matrix of ``(W1, W2)``.

    Parameters
    ----------
    p : TwoLayer
        One run (no run axes).
    X : Tensor
        ``(n, d)`` inputs.

    Returns
    -------
    float
        Rate per unit of paper time.
    """
    J = tangent_features(p, X)
    return 2 * torch.linalg.eigvalsh(J @ J.T)[0].item() / X.shape[0]


def hd_measures(dense_loss: Tensor, W_paper: Tensor, eta: float, horizon: int = 200_000, ref: float = 1e-3,
                window: tuple[float, float] = (60_000, 97_500), short: int = 20_000, num: int = 300) -> dict:
    """Figures 6–7's measurements per run, from a GD run on the mean MSE.

    Iterations are in units of the paper's step ``ref``; the run must reach ``horizon`` such iterations.

    Parameters
    ----------
    dense_loss : Tensor
        ``(steps+1, R)`` the loss at every step.
    W_paper : Tensor
        ``(R, m, d)`` the first layer at the paper's horizon.
    eta : float
        The run's step.
    horizon : int
        The paper's horizon, in iterations of ``ref``.
    ref : float
        The paper's step.
    window : tuple of float
        Iterations where the paper puts its saddle.
    short : int
        Iterations at which ``drop_short`` is read.
    num : int
        Number of log-spaced steps the plateaus are detected on.

    Returns
    -------
    dict
        Arrays ``(R,)``: ``exit`` (first iteration with ``L < 0.99 L(0)``), ``n_plateaus`` and ``ratio``
        (:func:`intermediate_plateaus` with ``above=10``, on the paper's horizon; the loss at the start of
        the first one over the run's final loss, as ``drop`` reads it), ``on_saddle`` (a plateau overlaps ``window``), ``top2``
        (:func:`top2_explained` of ``W_paper``), ``drop`` (the last loss over ``L(0)``), ``drop_short``
        (the loss at ``short`` iterations over ``L(0)``); and ``plateaus`` (list per run), ``grid`` (step
        indices) and ``it`` (their iterations).

    Raises
    ------
    ParameterError
        If the run is shorter than the horizon.
    """
    scale = eta / ref
    h = int(round(horizon / scale))
    if dense_loss.shape[0] <= h:
        raise ParameterError(f"the run has {dense_loss.shape[0] - 1} steps, fewer than the horizon's {h}")
    grid = log_schedule(h, num)
    L = dense_loss[grid].numpy()
    it = grid * scale
    pls = [intermediate_plateaus(L[:, r], above=10) for r in range(L.shape[1])]
    D = dense_loss.numpy()
    return dict(
        exit=drop_iteration(dense_loss[:h + 1], 0.99, scale),
        n_plateaus=np.array([len(p) for p in pls]),
        ratio=np.array([L[p[0][0], r] / D[-1, r] if p else np.nan for r, p in enumerate(pls)]),
        on_saddle=np.array([any(it[a] <= window[1] and it[b] >= window[0] for a, b in p) for p in pls], dtype=float),
        top2=top2_explained(W_paper).numpy(), drop=D[-1] / D[0], drop_short=D[int(round(short / scale))] / D[0],
        plateaus=pls, grid=grid, it=it)


def top2_explained(W1: Tensor) -> Tensor:
    """The explained-variance ratio of the top two components of the uncentred PCA (SVD) of ``W1``.

    Parameters
    ----------
    W1 : Tensor
        ``(R..., m, d)`` first layers.

    Returns
    -------
    Tensor
        ``(R...)``.
    """
    ev = torch.linalg.svdvals(W1) ** 2
    return ev[..., :2].sum(-1) / ev.sum(-1)


def step_table(runs: dict[str, dict], verdicts: dict[str, dict[str, str]], run: int = 0, ref: float = 1e-3):
    """One run's first-saddle exit and rule verdicts, for the same run trained with several steps.

    Parameters
    ----------
    runs : dict
        Row label (e.g. the step) → :func:`hd_measures` of a run with that step.
    verdicts : dict
        Row label → claim id → the rule's verdict on that run
        (:func:`lrlib.ledger.grading.verdicts_by_variant`).
    run : int
        Which run (seed) of each :func:`hd_measures` result to read.
    ref : float
        The paper's step: the exit iteration ``k`` (in its units) is paper time ``t = 2·ref·k``
        (mean-MSE runs).

    Returns
    -------
    pandas.DataFrame
        One row per label: ``exit (iterations)``, ``exit (paper time t)`` and the verdicts.
    """
    rows = {}
    for label, m in runs.items():
        it = float(np.asarray(m["exit"])[run])
        rows[label] = {"exit (iterations)": it, "exit (paper time t)": 2 * ref * it, **verdicts[label]}
    return pd.DataFrame(rows).T




def saddle_snapshots(L: np.ndarray, walk: dict) -> tuple[list[int], tuple[int, int]]:
    """Figure 4's five snapshots of a run that passes a saddle, and its plateau.

    Parameters
    ----------
    L : ndarray
        ``(T,)`` the run's loss series.
    walk : dict
        :func:`saddle_walk` of the run (``main``: its longest plateau or None, ``i_b``: end of alignment).

    Returns
    -------
    (list of int, (int, int))
        Snapshot indices: the start, the end of alignment ``i_b``, the first growth (the loss halfway
        between ``L(0)`` and the plateau's mean), leaving the saddle (after the plateau, the geometric
        mean of the plateau's loss and the final loss, floored at 1e-12), the end; and the plateau
        ``(first, last)`` (the middle snapshot twice when there is none).
    """
    pl = walk["main"] or (len(L) // 2, len(L) // 2)
    L_pl = L[pl[0]:pl[1] + 1].mean()
    i_c = int(np.argmax(L < (L[0] + L_pl) / 2))
    i_d = pl[1] + int(np.argmax(L[pl[1]:] < np.sqrt(L_pl * max(L[-1], 1e-12))))
    return [0, walk["i_b"], i_c, i_d, len(L) - 1], pl


def loss_gradient_norm(p: TwoLayer, X: Tensor, y: Tensor) -> float:
    """The norm of the gradient of the ½-mean square loss in ``(W1, W2)`` at one network (e.g. the saddle).

    Parameters
    ----------
    p : TwoLayer
        One run (no run axes), ReLU.
    X : Tensor
        ``(n, d)`` inputs.
    y : Tensor
        ``(n,)`` labels.

    Returns
    -------
    float
        ``‖∇L(θ)‖`` (Euclidean, over ``W1`` and ``W2`` together).
    """
    def loss_of(W1: Tensor, W2: Tensor) -> Tensor:
        return half_mse()(forward(TwoLayer(W1=W1, W2=W2), X), y)

    grads = torch.func.grad(loss_of, argnums=(0, 1))(p.W1, p.W2)
    return float(sum(g.norm() ** 2 for g in grads) ** 0.5)


def linearised_rates(p: TwoLayer, X: Tensor) -> np.ndarray:
    """:func:`linearised_loss_rate` of every run of a λ-sweep's networks.

    Parameters
    ----------
    p : TwoLayer
        Runs ``(seeds, K)``.
    X : Tensor
        ``(n, d)`` inputs.

    Returns
    -------
    ndarray
        ``(seeds, K)`` rates per unit of paper time.
    """
    seeds, K = p.runs
    return np.array([[linearised_loss_rate(p.map(operator.itemgetter((s, k))), X) for k in range(K)]
                     for s in range(seeds)])

__all__ = ["count_saddles", "hd_measures", "intermediate_plateaus", "linearised_loss_rate", "linearised_rates", "loss_gradient_norm", "plateau_speedup", "saddle_distance", "saddle_snapshots", "saddle_walk", "step_table", "top2_explained"]
