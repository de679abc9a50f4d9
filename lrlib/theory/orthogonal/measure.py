"""Measurements on trajectories behind the orthogonal chapter's claims (Boursier et al. 2022): crossing
and phase times, alignment, distances to the saddle, the Lemma checks, the figure measurements.

Conventions (as in :mod:`lrlib.theory.orthogonal.core`): ``X`` is ``(n, d)``, the (orthogonal) inputs
(rows), ``y`` is ``(n,)``, the labels; ``X, y : Tensor / The data (module conventions)`` is this pair.
The λ-sweep checks take ``traj, X, y, lams`` (``The λ-sweep and its data``): ``traj`` a
:class:`lrlib.trajectory.Trajectory` with runs ``(rows, K)`` and time in paper time, ``lams`` a
``(K,)`` tensor, the λ of the columns. Times are paper time (½-mean loss L) unless said otherwise.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import torch

from ...errors import ParameterError
from ...models import TwoLayer, forward
from ...measure import active, cosine, decreasing, first_crossing, line_fit, plateaus
from ...schedules import log_schedule
from ...track import max_direction_change
from ...trajectory import Trajectory
from .core import (alignment_directions, fit_vectors, key_vectors, limit_directions, limit_function,
                   min_norm_squared, phase_times, s_sets)

Tensor = torch.Tensor


def u_fitted(traj: Trajectory, mask: Tensor) -> Tensor:
    """The fitted mass ``Σ_{j ∈ mask} ‖w_j‖²`` over time (e.g. ``u_±`` with the sets ``S_{±,1}``).

    Parameters
    ----------
    traj : Trajectory
        Runs ``(R...)``, ``T`` snapshots.
    mask : Tensor
        ``(R..., m)`` boolean neuron mask.

    Returns
    -------
    Tensor
        ``(T, R...)``.
    """
    return ((traj.params.W1 ** 2).sum(-1) * mask.to(traj.params.W1.dtype)).sum(-1)


def min_alignment(p: TwoLayer, mask: Tensor, direction: Tensor) -> Tensor:
    """The worst alignment ``min_{j ∈ mask} cos(w_j, direction)`` per run (``+1`` for an empty mask).

    Parameters
    ----------
    p : TwoLayer
        Networks, runs ``(R...)`` (or ``(T, R...)``).
    mask : Tensor
        ``(R..., m)`` boolean neuron mask.
    direction : Tensor
        ``(d,)`` target direction.

    Returns
    -------
    Tensor
        ``(R...)`` cosines.
    """
    c = cosine(p.W1, direction)
    return torch.where(mask, c, torch.ones_like(c)).min(-1).values


def f1_cost(p: TwoLayer) -> Tensor:
    """The F1 (path) cost ``Σ_j |a_j| ‖w_j‖`` per run (scalar output).

    Parameters
    ----------
    p : TwoLayer
        Networks, runs ``(R...)``.

    Returns
    -------
    Tensor
        ``(R...)``.
    """
    return (p.a.abs() * p.norms_in()).sum(-1)


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
    def f(W1: Tensor, W2: Tensor) -> Tensor:
        return forward(TwoLayer(W1=W1, W2=W2, act=p.act), X)[:, 0]

    n = X.shape[0]
    J = torch.cat([j.reshape(n, -1) for j in torch.func.jacrev(f, argnums=(0, 1))(p.W1, p.W2)], 1)
    return 2 * torch.linalg.eigvalsh(J @ J.T)[0].item() / n


# ---------------------------------------------------------------------------
# Measurements behind the chapter's claims (per run, vectorised where cheap)
# ---------------------------------------------------------------------------

def assumption3_counts(p: TwoLayer, X: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    """The sizes ``(|S_{+,1}|, |S_{−,1}|)`` of Assumption 3's sets at the network ``p`` (its init).

    Parameters
    ----------
    p : TwoLayer
        Runs ``(R...)``.
    X, y : Tensor
        The data (module conventions) on which the sets are read.

    Returns
    -------
    s_plus, s_minus : Tensor
        ``(R...)`` counts.
    """
    Sp, Sm = s_sets(p, X, y)
    return Sp.sum(-1), Sm.sum(-1)


def inactive_violations(traj: Trajectory, X: Tensor) -> Tensor:
    """Lemma 6 check: the number of (snapshot, neuron, point) where ``⟨w_j, x_k⟩ ≤ 0`` at one snapshot and
    differs (bitwise) at the next.

    Parameters
    ----------
    traj : Trajectory
        Runs ``(R...)``.
    X : Tensor
        ``(n, d)`` inputs (or ``(R..., n, d)``).

    Returns
    -------
    Tensor
        ``(R...)`` counts.
    """
    pre = X @ traj.params.W1.transpose(-1, -2)                     # (T, R..., n, m)
    bad = (pre[:-1] <= 0) & (pre[1:] != pre[:-1])
    return bad.flatten(-2).sum(-1).sum(0)


def lemma2_holds(traj: Trajectory, X: Tensor, y: Tensor, lams: Tensor, dt: float, eps: float = 0.1,
                 lam_max: float = 1e-8) -> dict[str, np.ndarray]:
    """Lemma 2 (App. Lemmas 7–8) on a λ-sweep, per row, at every ``λ ≤ lam_max`` and on both sides, at
    ``t_{±1}`` (last snapshot at or before it).

    * ``bounds``: the ``S_{±,1}`` neurons have ``cos(w_j, ±D_±) ≥ 1 − 2λ^ε`` and every neuron
      ``‖w_j‖ ≤ 2cλ^{1−ε}`` (``+``) or ``2cλ^{1−rε}`` (``−``), with ``c = max_j ‖w_j(0)‖/λ``;
    * ``deactivated``: every ``S_{+,1}`` neuron is inactive (``⟨w_j, x_k⟩ ≤ 0``) on every negative-label
      input at ``t_{+1}``, and every ``S_{−,1}`` neuron on every positive-label input at ``t_{−1}``.

    Parameters
    ----------
    traj, X, y, lams
        The λ-sweep and its data (module conventions).
    dt : float
        The GD step (paper time per step), to find the snapshot of ``t_{±1}``.
    eps, lam_max : float
        The lemma's ε; the largest λ checked (the statement is asymptotic).

    Returns
    -------
    dict
        ``{"bounds": (rows,) bool, "deactivated": (rows,) bool}``.
    """
    kv = key_vectors(X, y)
    up, um = alignment_directions(kv)
    p0 = traj.at(0)
    Sp, Sm = s_sets(p0, X, y)
    c = (p0.norms_in() / lams.view(1, -1, 1)).amax(-1)                   # (rows, lams)
    bounds = np.ones(traj.runs[0], dtype=bool)
    deact = np.ones(traj.runs[0], dtype=bool)
    for li, lam in enumerate(lams.tolist()):
        if lam > lam_max:
            continue
        pt = phase_times(kv, lam, eps)
        for t_side, mask, u, expo, other in ((pt.t_plus1, Sp, up, 1 - eps, y < 0),
                                             (pt.t_minus1, Sm, um, 1 - kv.r * eps, y > 0)):
            p_i = traj.at(traj.index_of_step(int(round(t_side / dt))))
            cos_min = min_alignment(p_i, mask, u)[:, li]
            nmax = p_i.norms_in()[:, li].amax(-1)
            bounds &= ((cos_min >= 1 - 2 * lam ** eps) & (nmax <= 2 * c[:, li] * lam ** expo)).numpy()
            pre = (X @ p_i.W1.transpose(-1, -2))[:, li][:, other, :]        # (rows, points, m)
            deact &= ~((pre > 0) & mask[:, li].unsqueeze(-2)).any(-1).any(-1).numpy()
    return {"bounds": bounds, "deactivated": deact}


def half_fit_times(traj: Trajectory, X: Tensor, y: Tensor) -> tuple[np.ndarray, np.ndarray]:
    """The half-fit times ``t_2^{1/2}, t_3^{1/2}``: the first times ``u_+`` (``u_−``) reach half of
    ``n‖D_+‖`` (``n‖D_−‖``), with the sets ``S_{±,1}`` of the first snapshot.

    Parameters
    ----------
    traj : Trajectory
        Runs ``(R...)``, time in paper time.
    X, y : Tensor
        The data (module conventions) that fix ``S_{±,1}`` and ``‖D_±‖``.

    Returns
    -------
    t2, t3 : ndarray
        ``(R...)`` paper time (interpolated between snapshots); nan if never.
    """
    kv = key_vectors(X, y)
    Sp, Sm = s_sets(traj.at(0), X, y)
    n = X.shape[0]
    return (first_crossing(traj.time, u_fitted(traj, Sp), 0.5 * n * kv.norm_plus, below=False),
            first_crossing(traj.time, u_fitted(traj, Sm), 0.5 * n * kv.norm_minus, below=False))


def loss_at(traj: Trajectory, times: np.ndarray) -> np.ndarray:
    """The loss of each run at the last snapshot at or before a given time.

    Parameters
    ----------
    traj : Trajectory
        Runs ``(R...)``.
    times : ndarray
        ``(R...)`` one time per run (paper time; nan allowed).

    Returns
    -------
    ndarray
        ``(R...)`` losses; nan where the time is nan.
    """
    times = np.asarray(times, dtype=float)
    L = traj.loss.reshape(len(traj), -1).numpy()
    out = np.full(L.shape[1], np.nan)
    for r, t in enumerate(times.reshape(-1)):
        if np.isfinite(t):
            out[r] = L[max(int(np.searchsorted(traj.time, t, side="right")) - 1, 0), r]
    return out.reshape(times.shape)


def excess_norm(p: TwoLayer, X: Tensor, y: Tensor) -> Tensor:
    """The relative excess of ``‖θ‖² = Σ_j a_j² + ‖w_j‖²`` over :func:`min_norm_squared`.

    Parameters
    ----------
    p : TwoLayer
        Networks, runs ``(R...)``.
    X, y : Tensor
        The data (module conventions) of the formula's minimal norm.

    Returns
    -------
    Tensor
        ``(R...)`` dimensionless.
    """
    target = min_norm_squared(X, y)
    return ((p.W1 ** 2).sum((-1, -2)) + (p.W2 ** 2).sum((-1, -2)) - target) / target


def function_gap(p: TwoLayer, X: Tensor, y: Tensor, Z: Tensor) -> Tensor:
    """The sup distance ``max_z |h_θ(z) − h*(z)|`` to the limit function (:func:`limit_function`).

    Parameters
    ----------
    p : TwoLayer
        Networks, runs ``(R...)``.
    X, y : Tensor
        The data (module conventions) of the limit ``h*``.
    Z : Tensor
        ``(N, d)`` test inputs.

    Returns
    -------
    Tensor
        ``(R...)``.
    """
    return (forward(p, Z)[..., 0] - limit_function(X, y, Z)).abs().amax(-1)


def two_clusters(p: TwoLayer, X: Tensor, y: Tensor, rel: float = 1e-3, cos_min: float = 0.999
                 ) -> tuple[Tensor, Tensor]:
    """Whether the network has the two clusters of Theorem 1's limit.

    Every neuron with ``‖w_j‖ > rel·max_j ‖w_j‖`` must have cosine ``> cos_min`` with one of the two
    limit directions (:func:`limit_directions`).

    Parameters
    ----------
    p : TwoLayer
        Networks, runs ``(R...)``.
    X, y : Tensor
        The data (module conventions) that fix the two limit directions.
    rel : float
        Norm threshold, relative to the largest neuron.
    cos_min : float
        Cosine threshold.

    Returns
    -------
    clustered : Tensor
        ``(R...)`` bool.
    outside : Tensor
        ``(R...)`` the share of ``‖θ‖²`` carried by the neurons outside the clusters.
    """
    u_plus, u_minus = limit_directions(X, y)
    norms = p.norms_in()
    big = norms > rel * norms.amax(-1, keepdim=True)
    best = torch.maximum(cosine(p.W1, u_plus), cosine(p.W1, u_minus))
    clustered = torch.where(big, best > cos_min, torch.ones_like(big)).all(-1)
    mass = (p.W1 ** 2).sum(-1) + p.a ** 2
    outside = torch.where(best > cos_min, torch.zeros_like(mass), mass).sum(-1) / mass.sum(-1)
    return clustered, outside


def decay_rates(time: np.ndarray, loss: Tensor, window: tuple[float, float], min_points: int = 6) -> np.ndarray:
    """The fitted decay rate ``−d ln L/dt`` where the loss lies in a window.

    Parameters
    ----------
    time : ndarray
        ``(T,)`` paper time.
    loss : Tensor
        ``(T, R...)``.
    window : tuple of float
        ``(lo, hi)``: snapshots with ``lo < L < hi`` are fitted by least squares.
    min_points : int
        Fewest snapshots in the window for a fit.

    Returns
    -------
    ndarray
        ``(R...)`` rates per unit of paper time; nan with too few points.
    """
    lo, hi = window
    L = loss.reshape(loss.shape[0], -1).numpy()
    out = np.full(L.shape[1], np.nan)
    for r in range(L.shape[1]):
        win = (L[:, r] > lo) & (L[:, r] < hi)
        if win.sum() >= min_points:
            out[r] = -line_fit(time[win], np.log(L[win, r])).slope
    return out.reshape(loss.shape[1:])


def uncovered_floor(p0: TwoLayer, X: Tensor, y: Tensor) -> Tensor:
    """The loss floor ``(1/2n) Σ_{k uncovered} y_k²`` set by the labels no neuron can fit.

    A label is covered when some neuron of its sign is active on its input at initialisation; on
    orthogonal inputs (Lemma 6) an uncovered label is never fitted.

    Parameters
    ----------
    p0 : TwoLayer
        Initial networks, runs ``(R...)``.
    X, y : Tensor
        The data (module conventions) whose uncovered labels set the floor.

    Returns
    -------
    Tensor
        ``(R...)`` paper units (½-mean loss).
    """
    act = active(p0.W1, X).transpose(-1, -2)                                  # (R..., n, m)
    sgn = torch.sign(p0.a).unsqueeze(-2)                                      # (R..., 1, m)
    covered = torch.where(y.view(-1, 1) > 0, (act & (sgn > 0)).any(-1, keepdim=True),
                          (act & (sgn < 0)).any(-1, keepdim=True))[..., 0]    # (R..., n)
    return ((~covered) * y ** 2).sum(-1) / (2 * X.shape[0])


def toy_timings(dense_loss: Tensor, iteration_scale: float = 1.0) -> dict[str, np.ndarray]:
    """Figure 3's quantities per run from the loss at every step.

    ``exit1`` (first iteration with ``L < 0.99 L(0)``), ``exit2`` (first with ``L < 0.4``), ``plateau``
    (the loss midway between them; nan if either is missing) and ``final``.

    Parameters
    ----------
    dense_loss : Tensor
        ``(steps+1, R...)`` mean-MSE loss at every GD step.
    iteration_scale : float
        Iterations are multiplied by it (2 for a run with twice the step, in units of the reference step).

    Returns
    -------
    dict
        ``{"exit1", "plateau", "exit2", "final"}``, each ``(R...)``.
    """
    L = dense_loss.reshape(dense_loss.shape[0], -1).numpy()
    it = np.arange(L.shape[0], dtype=float)
    out = {k: np.full(L.shape[1], np.nan) for k in ("exit1", "plateau", "exit2", "final")}
    for r in range(L.shape[1]):
        e1, e2 = first_crossing(it, L[:, r], 0.99 * L[0, r]), first_crossing(it, L[:, r], 0.4)
        out["exit1"][r], out["exit2"][r] = e1 * iteration_scale, e2 * iteration_scale
        if np.isfinite(e1 + e2):
            out["plateau"][r] = L[int((e1 + e2) / 2), r]
        out["final"][r] = L[-1, r]
    return {k: v.reshape(dense_loss.shape[1:]) for k, v in out.items()}


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


def kink_clusters(p: TwoLayer, rel: float = 1e-2, merge: float = 0.05) -> tuple[int, np.ndarray]:
    """The number of kink clusters of a 1-D network with a bias coordinate.

    Kinks ``−w_{j,2}/w_{j,1}`` of the neurons with ``‖w_j‖ > rel·max‖w_j‖``, closer than ``merge``
    merged.

    Parameters
    ----------
    p : TwoLayer
        One run, ``W1 (m, 2)``.
    rel : float
        Norm threshold, relative to the largest neuron.
    merge : float
        Kinks closer than this are one cluster.

    Returns
    -------
    count : int
    kinks : ndarray
        The sorted kinks.
    """
    if p.W1.dim() != 2 or p.W1.shape[-1] != 2:
        raise ParameterError("kink_clusters expects one run of 1-D inputs with a bias coordinate (W1 of shape (m, 2))")
    norms = p.norms_in()
    big = norms > rel * norms.max()
    kinks = np.sort((-p.W1[:, 1] / p.W1[:, 0])[big].numpy())
    return (1 + int((np.diff(kinks) > merge).sum()) if kinks.size else 0), kinks


def movement(traj: Trajectory) -> Tensor:
    """The relative movement ``‖θ_T − θ_0‖ / ‖θ_0‖`` over all parameters (the lazy-regime diagnostic).

    Parameters
    ----------
    traj : Trajectory
        Runs ``(R...)``.

    Returns
    -------
    Tensor
        ``(R...)``.
    """
    runs = traj.runs
    flat = lambda t: t.reshape(*runs, -1)                                      # noqa: E731
    d0 = torch.cat([flat(t[0]) for t in traj.params], -1)
    d1 = torch.cat([flat(t[-1]) for t in traj.params], -1)
    return torch.linalg.vector_norm(d1 - d0, dim=-1) / torch.linalg.vector_norm(d0, dim=-1)


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


def toy_events(traj: Trajectory, X: Tensor, y: Tensor, plateau_level: float = 0.5,
               aligned: float = 0.99) -> list[int]:
    """The snapshot indices of the toy's panels (Figure 2) for one run.

    Initialisation; the end of alignment (the first snapshot where every ``S_{±,1}`` neuron has cosine
    ``> aligned`` with its target direction); the middle of the plateau (snapshots within 0.01 of
    ``plateau_level``; the middle snapshot if there is none); the end.

    Parameters
    ----------
    traj : Trajectory
        One run.
    X, y : Tensor
        The toy's data (module conventions).
    plateau_level : float
        The plateau's loss (mean-MSE units).
    aligned : float
        Cosine threshold for the end of alignment.

    Returns
    -------
    list of int
        Four snapshot indices.
    """
    Sp, Sm = s_sets(traj.at(0), X, y)
    up, um = alignment_directions(key_vectors(X, y))
    ok = (min_alignment(traj.params, Sp, up) > aligned) & (min_alignment(traj.params, Sm, um) > aligned)
    i_align = int(np.argmax(ok.numpy()))
    L = traj.loss.numpy()
    plateau = np.nonzero(np.abs(L - plateau_level) < 0.01)[0]
    i_mid = int(plateau[len(plateau) // 2]) if plateau.size else len(L) // 2
    return [0, i_align, i_mid, len(L) - 1]


def stuck_measures(p0: TwoLayer, final: Tensor, X: Tensor, y: Tensor, groups: int) -> dict[str, Tensor]:
    """The Assumption-3 demonstration's measurements, for draws split into consecutive groups (one per seed).

    Parameters
    ----------
    p0 : TwoLayer
        Initial networks, runs ``(groups·k,)``.
    final : Tensor
        ``(groups·k,)`` final losses (paper units).
    X, y : Tensor
        The data (module conventions) of every draw.
    groups : int
        Number of groups.

    Returns
    -------
    dict
        ``match`` ``(groups,)``: whether every final loss lies within 0.1 % of its
        :func:`uncovered_floor` (or below 1e-10 when the floor is 0); ``n_stuck`` ``(groups,)``: how many
        draws that violate Assumption 3 end above 1e-6.

    Raises
    ------
    ParameterError
        If the draws cannot be split into ``groups`` equal groups.
    """
    if final.numel() % groups:
        raise ParameterError(f"{final.numel()} draws cannot be split into {groups} equal groups")
    floor = uncovered_floor(p0, X, y)
    match = torch.where(floor > 0, (final / floor - 1).abs() < 1e-3, final < 1e-10)
    Sp, Sm = s_sets(p0, X, y)
    viol = ~(Sp.any(-1) & Sm.any(-1))
    return dict(match=match.reshape(groups, -1).all(-1), n_stuck=(viol & (final > 1e-6)).reshape(groups, -1).sum(-1))


def drop_iteration(dense_loss: Tensor, frac: float = 0.5, iteration_scale: float = 1.0) -> np.ndarray:
    """The first iteration where the loss falls below ``frac·L(0)``.

    Parameters
    ----------
    dense_loss : Tensor
        ``(steps+1, R...)`` the loss at every GD step.
    frac : float
        Fraction of the initial loss.
    iteration_scale : float
        Iterations are multiplied by it (to express them in another step's units).

    Returns
    -------
    ndarray
        ``(R...)`` iterations (interpolated); nan if never.
    """
    L = dense_loss.reshape(dense_loss.shape[0], -1).numpy()
    it = np.arange(L.shape[0], dtype=float)
    out = np.array([first_crossing(it, L[:, r], frac * L[0, r]) for r in range(L.shape[1])]) * iteration_scale
    return out.reshape(dense_loss.shape[1:])


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


def no_collapse_margin(traj: Trajectory, X: Tensor, y: Tensor, lams: Tensor, eps: float = 0.1,
                       lam_max: float = 1e-8, flip: bool = False) -> np.ndarray:
    """App. Lemma 9 on a λ-sweep: the smallest ratio of a neuron's norm to the lemma's lower bound.

    ``‖w_j(t)‖ / (c̲ λ^{1+ε}/2)`` over ``j ∈ S_{+,1}`` and snapshots ``t ≤ t_{+1}``, and
    ``‖w_j(t)‖ / (c̲ λ^{1+rε}/2)`` over ``j ∈ S_{−,1}``, ``t ≤ t_{−1}``, over ``λ ≤ lam_max``, with
    ``c̲ = min_j ‖w_j(0)‖/λ``. The lemma says it is > 1.

    Parameters
    ----------
    traj, X, y, lams
        The λ-sweep and its data (module conventions).
    eps, lam_max : float
        The lemma's ε; the largest λ checked.
    flip : bool
        Use the exponents ``1 − ε`` and ``1 − rε`` instead (a perturbed bound, for a control).

    Returns
    -------
    ndarray
        ``(rows,)``.
    """
    kv = key_vectors(X, y)
    p0 = traj.at(0)
    Sp, Sm = s_sets(p0, X, y)
    c_low = (p0.norms_in() / lams.view(1, -1, 1)).amin(-1)                   # (rows, lams)
    norms = traj.params.norms_in()                                           # (T, rows, lams, m)
    sgn = -1.0 if flip else 1.0
    out = np.full(traj.runs[0], np.inf)
    for li, lam in enumerate(lams.tolist()):
        if lam > lam_max:
            continue
        pt = phase_times(kv, lam, eps)
        for t_side, mask, expo in ((pt.t_plus1, Sp, 1 + sgn * eps), (pt.t_minus1, Sm, 1 + sgn * kv.r * eps)):
            upto = traj.time <= t_side
            nrm = torch.where(mask[:, li], norms[upto][:, :, li], torch.full_like(norms[upto][:, :, li], math.inf))
            bound = c_low[:, li] * lam ** expo / 2
            out = np.minimum(out, (nrm.amin(-1).amin(0) / bound).numpy())
    return out


def mass_times(traj: Trajectory, X: Tensor, y: Tensor, lams: Tensor, eps: float = 0.1) -> tuple[np.ndarray, np.ndarray]:
    """The ends of phases 2 and 3 as Lemmas 3–4 state them.

    The first times ``u_+ ≥ n‖D_+‖ − λ^{ε/5}`` and ``u_− ≥ n‖D_−‖ − λ^{ε/29}`` (``S_{±,1}`` of the first
    snapshot).

    Parameters
    ----------
    traj, X, y, lams
        The λ-sweep and its data (module conventions).
    eps : float
        The lemmas' ε.

    Returns
    -------
    t2, t3 : ndarray
        ``(rows, K)`` paper time; nan if never.
    """
    kv = key_vectors(X, y)
    Sp, Sm = s_sets(traj.at(0), X, y)
    n = X.shape[0]
    rows = traj.runs[0]
    lv2 = (n * kv.norm_plus - lams ** (eps / 5)).expand(rows, -1)
    lv3 = (n * kv.norm_minus - lams ** (eps / 29)).expand(rows, -1)
    return (first_crossing(traj.time, u_fitted(traj, Sp), lv2.numpy(), below=False),
            first_crossing(traj.time, u_fitted(traj, Sm), lv3.numpy(), below=False))


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


def dwell_time(time: np.ndarray, loss: Tensor, level: float, rel: float = 0.05) -> np.ndarray:
    """The time the loss spends within ``±rel`` of a level.

    Parameters
    ----------
    time : ndarray
        ``(T,)`` uniformly spaced snapshot times (the last gap may be shorter), paper time.
    loss : Tensor
        ``(T, R...)``.
    level : float
        The level (e.g. the plateau loss).
    rel : float
        Relative half-width of the band.

    Returns
    -------
    ndarray
        ``(R...)`` the number of snapshots in the band times the spacing (paper time).

    Raises
    ------
    ParameterError
        If the snapshots are not uniformly spaced.
    """
    gaps = np.diff(np.asarray(time, dtype=float))
    if gaps.size == 0 or not np.allclose(gaps[:-1], gaps[0]):
        raise ParameterError("dwell_time needs uniformly spaced snapshots (the last gap may be shorter)")
    inside = ((loss / level - 1).abs() < rel).sum(0).numpy()
    return inside * gaps[0]


def ntk_interpolator(p0: TwoLayer, X: Tensor, y: Tensor, Z: Tensor) -> Tensor:
    """The neural-tangent-kernel interpolator at an initialisation.

    The network linearised at ``p0`` and moved by the minimum-norm parameter change that interpolates
    ``(X, y)``: ``h0(z) + J(z) J(X)ᵀ (J(X) J(X)ᵀ)⁻¹ (y − h0(X))``, where gradient descent on the linearised
    model converges from ``p0``.

    Parameters
    ----------
    p0 : TwoLayer
        One run (no run axes), scalar output.
    X, y : Tensor
        The data (module conventions) to interpolate.
    Z : Tensor
        ``(N, d)`` where to evaluate it.

    Returns
    -------
    Tensor
        ``(N,)``.

    Raises
    ------
    ParameterError
        If ``p0`` has run axes.
    """
    if p0.runs:
        raise ParameterError("ntk_interpolator takes one run (no run axes)")

    def f(W1: Tensor, W2: Tensor, inp: Tensor) -> Tensor:
        return forward(TwoLayer(W1=W1, W2=W2, act=p0.act), inp)[:, 0]

    def jac(inp: Tensor) -> Tensor:
        return torch.cat([j.reshape(inp.shape[0], -1)
                          for j in torch.func.jacrev(f, argnums=(0, 1))(p0.W1, p0.W2, inp)], 1)

    JX, JZ = jac(X), jac(Z)
    coef = torch.linalg.solve(JX @ JX.T, y - f(p0.W1, p0.W2, X))
    return f(p0.W1, p0.W2, Z) + JZ @ (JX.T @ coef)


def half_fit_gap(gd: Trajectory, flows: list[Trajectory], X: Tensor, y: Tensor) -> float:
    """Largest relative difference of the half-fit times (:func:`half_fit_times`) between GD and the
    integrated gradient flow, for one draw at several λ.

    Parameters
    ----------
    gd : Trajectory
        GD runs ``(K,)`` (one draw, K values of λ), snapshot times in paper time.
    flows : list of Trajectory
        ``K`` single-run flow trajectories (:func:`lrlib.integrate.flow`), recorded at the same steps.
    X, y : Tensor
        Inputs ``(n, d)`` and labels ``(n,)``.

    Returns
    -------
    float
        ``max |t_GD / t_flow − 1|`` over ``t_2^{1/2}``, ``t_3^{1/2}`` and the K runs (dimensionless;
        nan if a time is missing).
    """
    if len(flows) != gd.runs[0]:
        raise ParameterError(f"{gd.runs[0]} GD runs but {len(flows)} flow runs")
    t2, t3 = half_fit_times(gd, X, y)
    tf = np.array([[float(v) for v in half_fit_times(f, X, y)] for f in flows])      # (K, 2)
    return float(np.max(np.abs(np.c_[t2, t3] / tf - 1)))


def thm1_measures(p: TwoLayer, X: Tensor, y: Tensor, Z: Tensor, final_loss: Tensor) -> dict[str, np.ndarray]:
    """Theorem 1's measurements on a λ-sweep's final networks (the quantities of ``thm1.zero-loss``,
    ``thm1.min-norm`` and ``thm1.function-limit``).

    Parameters
    ----------
    p : TwoLayer
        Final networks, runs ``(rows, K)`` with λ decreasing along the K axis.
    X, y : Tensor
        Orthogonal inputs ``(n, d)`` and labels ``(n,)`` (the formulas' data).
    Z : Tensor
        ``(N, d)`` test inputs for the function gap.
    final_loss : Tensor
        ``(rows, K)`` final losses (½-mean, paper units).

    Returns
    -------
    dict
        Arrays ``(rows,)``: ``final_max`` (largest final loss over λ), ``excess_min``, ``excess_mono``,
        ``excess_last`` (:func:`excess_norm`: its minimum over λ, 1 if it decreases strictly as λ
        decreases, its value at the smallest λ) and ``gap_mono``, ``gap_last`` (:func:`function_gap`:
        1 if it does not increase as λ decreases, its value at the smallest λ).
    """
    ex = excess_norm(p, X, y).numpy()
    gap = function_gap(p, X, y, Z).numpy()
    return dict(final_max=final_loss.amax(-1).numpy(), excess_min=ex.min(-1), excess_mono=decreasing(ex).astype(float),
                excess_last=ex[:, -1], gap_mono=decreasing(gap, strict=False).astype(float), gap_last=gap[:, -1])


def ntk_gap(p: TwoLayer, h_ntk: Tensor, Z: Tensor, y: Tensor) -> np.ndarray:
    """The sup distance of the final function to the NTK interpolator, over the largest label.

    Parameters
    ----------
    p : TwoLayer
        Final networks, runs ``(R,)``.
    h_ntk : Tensor
        ``(R, N)`` each run's NTK interpolator on ``Z`` (:func:`ntk_interpolator`).
    Z : Tensor
        ``(N, d)`` the grid.
    y : Tensor
        ``(n,)`` the labels (for the scale ``max_k |y_k|``).

    Returns
    -------
    ndarray
        ``(R,)`` ``max_z |h_θ(z) − h_NTK(z)| / max_k |y_k|`` (dimensionless).
    """
    return ((forward(p, Z)[..., 0] - h_ntk).abs().amax(-1) / y.abs().max()).numpy()


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


__all__ = ["assumption3_counts", "count_saddles", "decay_rates", "drop_iteration",
           "dwell_time", "excess_norm", "f1_cost", "function_gap", "half_fit_gap", "half_fit_times",
           "hd_measures", "inactive_violations", "intermediate_plateaus", "kink_clusters", "lemma2_holds",
           "linearised_loss_rate", "loss_at", "mass_times", "min_alignment", "movement", "no_collapse_margin",
           "ntk_gap", "ntk_interpolator", "plateau_speedup", "saddle_distance", "saddle_walk",
           "step_table", "stuck_measures", "thm1_measures", "top2_explained", "toy_events",
           "toy_timings", "two_clusters", "u_fitted", "uncovered_floor"]
