"""Pinson (2026): the chapter's measurements on trained networks — rank correlations, top shares,
the growth-form fits of eq. 19, per-snapshot statistics, Thm. 4.1's rule agreement, alignment
scores.

Conventions: networks ``p`` (and single networks) as in :mod:`.neuron`.  A ``traj`` is a recorded
(batched) :class:`~lrlib.trajectory.Trajectory`, params ``(T, R..., ...)``, steps ``(T,)`` in
optimiser steps; with it (and in :func:`rule_agreement`) ``X (R..., N, D)`` and ``y (R..., N)`` are
the runs' data.  Per-neuron inputs are ``(B..., m)``; per-run results ``(B...)``."""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from scipy.cluster.hierarchy import leaves_list, linkage
from scipy.spatial.distance import squareform

from ...errors import ParameterError
from ...measure import cosine, line_fit, relative_error
from ...models import TwoLayer, forward
from ...track import cosine_similarity_matrix
from .merging import theta
from .neuron import (
    PHI1, PHI2, align_to_own_m1, angle_gap, appendix_g, conserved, cos_delta, gating, phi, phi_star_predicted, target_gap,
    total_norm,
)

Tensor = torch.Tensor

def cluster_order(C: np.ndarray | Tensor) -> np.ndarray:
    """Leaf order of average-linkage clustering on 1 − C for a cosine matrix ``C (m, m)``.

    Parameters
    ----------
    C : np.ndarray or Tensor
        ``(m, m)`` cosine matrix.

    Returns
    -------
    np.ndarray
        ``(m,)`` the leaf order.
    """

    Dm = np.clip(1 - np.asarray(C, dtype=np.float64), 0, 2)
    Dm = (Dm + Dm.T) / 2
    np.fill_diagonal(Dm, 0)
    return leaves_list(linkage(squareform(Dm, checks=False), "average"))


def spearman(u: Tensor, v: Tensor) -> Tensor:
    """Spearman rank correlation along the last axis (no ties assumed), ``(B...)``.

    Parameters
    ----------
    u : Tensor
        ``(B..., m)``.
    v : Tensor
        ``(B..., m)``.

    Returns
    -------
    Tensor
        ``(B...)`` rank correlations.
    """
    def ranks(t):
        return torch.argsort(torch.argsort(t, -1), -1).to(torch.float64)
    ru, rv = ranks(u), ranks(v)
    ru, rv = ru - ru.mean(-1, keepdim=True), rv - rv.mean(-1, keepdim=True)
    return (ru * rv).sum(-1) / torch.sqrt((ru ** 2).sum(-1) * (rv ** 2).sum(-1))


def top_overlap(score: Tensor, target: Tensor, frac: float = 0.1) -> Tensor:
    """Fraction of the top-``frac`` neurons by ``target`` that are also top by ``score``, ``(B...)``.

    Parameters
    ----------
    score : Tensor
        ``(B..., m)`` the predictor.
    target : Tensor
        ``(B..., m)`` the predicted quantity.
    frac : float
        Share of neurons at the top of each ranking.

    Returns
    -------
    Tensor
        ``(B...)`` in [0, 1].
    """
    k = max(1, int(round(frac * score.shape[-1])))
    a = F.one_hot(torch.topk(score, k, -1).indices, score.shape[-1]).sum(-2)
    b = F.one_hot(torch.topk(target, k, -1).indices, score.shape[-1]).sum(-2)
    return (a * b).sum(-1).to(torch.float64) / k


def top_share(a: Tensor, frac: float = 0.1) -> Tensor:
    """Share of Σ_α a_α held by the top ``frac`` neurons, ``(B...)``.

    Parameters
    ----------
    a : Tensor
        ``(B..., m)`` nonnegative.
    frac : float
        Share of neurons whose ``a`` is summed.

    Returns
    -------
    Tensor
        ``(B...)`` in [0, 1].
    """
    k = max(1, int(round(frac * a.shape[-1])))
    return torch.topk(a, k, -1).values.sum(-1) / a.sum(-1)


def growth_fit_mask(cd: Tensor | np.ndarray) -> np.ndarray:
    """The neurons :func:`growth_form_fits` fits: cos δ above its median and in (0, 1).

    Parameters
    ----------
    cd : Tensor or np.ndarray
        ``(m,)`` cos δ of one network.

    Returns
    -------
    np.ndarray
        ``(m,)`` bool.
    """
    cd = np.asarray(cd, dtype=float)
    return (cd > np.median(cd)) & (cd > 0) & (cd < 1)


def growth_form_fits(cd: Tensor, a: Tensor) -> dict[str, float]:
    """Compare, on the neurons of :func:`growth_fit_mask` (single network), the fits of log a against
    (i) cos δ (eq. 19's exponential form), (ii) log cos δ (a power law a ∝ cos^k δ: the same
    monotonicity and number of parameters) and (iii) log(cos δ / sin²δ) (the frozen-gating closed form
    a = ‖w1⊥‖² cos δ / sin²δ).  Returns the slopes and R² of the three and the number of neurons fitted.

    Parameters
    ----------
    cd : Tensor
        ``(m,)`` cos δ of one network.
    a : Tensor
        ``(m,)`` its a.

    Returns
    -------
    dict
        ``slope_exp``, ``r2_exp``, ``slope_pow``, ``r2_pow``, ``slope_frozen``, ``r2_frozen``, ``n`` (floats).
    """
    cd, a = np.asarray(cd, dtype=float), np.asarray(a, dtype=float)
    if cd.shape != a.shape or cd.ndim != 1 or (a <= 0).any():
        raise ParameterError("growth_form_fits takes 1-D cos δ and a > 0 of one network, same shape")
    sel = growth_fit_mask(cd)
    if sel.sum() < 3:
        raise ParameterError(f"growth_form_fits needs ≥ 3 neurons with cos δ above the median in (0, 1), got {int(sel.sum())}")
    B1, _, r1 = line_fit(cd[sel], np.log(a[sel]))
    B3, _, r3 = line_fit(np.log(cd[sel]), np.log(a[sel]))
    B2, _, r2 = line_fit(np.log(cd[sel] / (1 - cd[sel] ** 2)), np.log(a[sel]))
    return dict(slope_exp=B1, r2_exp=r1, slope_pow=B3, r2_pow=r3, slope_frozen=B2, r2_frozen=r2,
                n=int(sel.sum()))


def power_law_like(cd: Tensor | np.ndarray, a: Tensor | np.ndarray) -> np.ndarray:
    """A synthetic ``a' = a_lo (cos δ / c_lo)^k`` on the neurons of :func:`growth_fit_mask`, with ``k``
    such that it spans the same range of ``a`` (from its value at the smallest to that at the largest
    fitted cos δ): a power law with the measurement's monotonicity and range.  Other neurons keep
    their ``a``.  Single network; returns a numpy array of ``a``'s shape.

    Parameters
    ----------
    cd : Tensor or np.ndarray
        ``(m,)`` cos δ of one network.
    a : Tensor or np.ndarray
        ``(m,)`` its a.

    Returns
    -------
    np.ndarray
        ``(m,)`` the synthetic a.
    """
    cd, a = np.asarray(cd, dtype=float), np.asarray(a, dtype=float)
    sel = growth_fit_mask(cd)
    c, v = cd[sel], a[sel]
    lo, hi = np.argmin(c), np.argmax(c)
    k = np.log(v[hi] / v[lo]) / np.log(c[hi] / c[lo])
    out = a.copy()
    out[sel] = v[lo] * (c / c[lo]) ** k
    return out


def snapshot_stats(traj, X: Tensor, y: Tensor, steps) -> dict[str, Tensor]:
    """cos δ, a and φ at the snapshots at or before each of ``steps`` (in the trajectory's
    dtype), plus the final a and φ.  Returns ``cd``, ``a``, ``phi`` ``(S, R..., m)``,
    ``a_final``, ``phi_final`` ``(R..., m)`` and ``step`` ``(S,)`` (the snapshot steps used).

    Parameters
    ----------
    traj : Trajectory
        A recorded (batched) run (module conventions), read at ``steps``.
    X, y : Tensor
        Its data (module conventions).
    steps : sequence of int
        Optimiser steps (``S`` of them).

    Returns
    -------
    dict[str, Tensor]
        ``cd``, ``a``, ``phi`` ``(S, R..., m)``; ``a_final``, ``phi_final`` ``(R..., m)``; ``step`` ``(S,)``.
    """
    idx = [traj.index_of_step(int(s)) for s in steps]
    P = traj.params[idx]
    return dict(cd=cos_delta(P, X, y), a=total_norm(P), phi=phi(P), a_final=total_norm(traj.final),
                phi_final=phi(traj.final), step=torch.as_tensor(traj.steps[idx]))


def alignment_score(W1: Tensor, a: Tensor, U: Tensor) -> Tensor:
    """a-weighted mean over neurons of max_k cos(w1_α, u_k) for target directions ``U (K, D)``;
    ``W1 (B..., m, D)``, ``a (B..., m)`` → ``(B...)``.  1 = every unit of norm on a target.

    Parameters
    ----------
    W1 : Tensor
        ``(B..., m, D)``.
    a : Tensor
        ``(B..., m)`` weights (the neurons' a).
    U : Tensor
        ``(K, D)`` target directions.

    Returns
    -------
    Tensor
        ``(B...)`` in [−1, 1].
    """
    c = cosine(W1.unsqueeze(-2), U.to(W1.dtype)).amax(-1)               # (B..., m)
    return (a * c).sum(-1) / a.sum(-1)


def rule_agreement(P: TwoLayer, final: TwoLayer, X: Tensor, y: Tensor,
                   tol: float = math.radians(1), flip: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Theorem 4.1's rule evaluated on the network ``P`` against the targets reached by ``final``.

    Among the neurons of ``final`` within ``tol`` radians of a target (7π/4 or 3π/4,
    :func:`target_gap`), the share whose final φ is within ``tol`` of the target the rule
    :func:`phi_star_predicted` gives on ``P`` (same run dims ``(R...)``, ``X (R..., N, D)``,
    ``y (R..., N)``).  Returns the share by count and the a-weighted share (weights: final
    :func:`total_norm`), each ``(R...)`` as numpy (``nan`` where no neuron is near a target).
    ``flip=True`` exchanges the rule's two targets (a perturbed prediction, for a negative control).

    Parameters
    ----------
    P : TwoLayer
        The network the rule is evaluated on, ``(R..., ...)``.
    final : TwoLayer
        The network whose targets are compared, same run dims.
    X, y : Tensor
        Data of the runs (module conventions), on which ``P`` is evaluated.
    tol : float
        Radians from a target that counts as settled.
    flip : bool
        Exchange the rule's two targets (the control).

    Returns
    -------
    by_count, by_a : np.ndarray
        Each ``(R...)``.
    """
    ph_fin, a_fin = phi(final), total_norm(final)
    near = target_gap(ph_fin) < tol
    pred = phi_star_predicted(P, X, y)
    if flip:
        pred = PHI1 + PHI2 - pred
    ok = (angle_gap(ph_fin, pred).abs() < tol) & near
    return (ok.sum(-1) / near.sum(-1)).numpy(), ((a_fin * ok).sum(-1) / (a_fin * near).sum(-1)).numpy()


def top_alignment(p: TwoLayer, n_top: int = 25) -> Tensor:
    """Mean ``|cos|`` between the total vectors θ (:func:`theta`) of the ``n_top`` neurons of largest
    ``a`` (off-diagonal pairs only), in float64, ``(B...)``; 1 = all parallel or antiparallel.

    Parameters
    ----------
    p : TwoLayer
        Network(s) (conventions of :mod:`.neuron`); θ includes ``b1``.
    n_top : int
        Neurons kept, by a.

    Returns
    -------
    Tensor
        ``(B...)`` in [0, 1].
    """
    if not 2 <= n_top <= p.W1.shape[-2]:
        raise ParameterError(f"top_alignment needs 2 ≤ n_top ≤ m = {p.W1.shape[-2]}, got {n_top}")
    th_all = theta(p)
    idx = torch.topk(total_norm(p), n_top, -1).indices                               # (B..., n_top)
    th = torch.gather(th_all, -2, idx.unsqueeze(-1).expand(*idx.shape, th_all.shape[-1])).double()
    C = cosine_similarity_matrix(th).abs()
    return (C.sum((-1, -2)) - n_top) / (n_top * (n_top - 1))


def median_at(v: Tensor, idx: Tensor) -> Tensor:
    """Median of ``v (B..., m)`` over the neurons ``idx (B..., k)`` of each run, ``(B...)``
    (torch's lower median for even ``k``).

    Parameters
    ----------
    v : Tensor
        ``(B..., m)``.
    idx : Tensor
        ``(B..., k)`` neuron indices.

    Returns
    -------
    Tensor
        ``(B...)``.
    """
    return v.gather(-1, idx).median(-1).values


def gate_change(p_from: TwoLayer, p_to: TwoLayer, X: Tensor) -> Tensor:
    """Fraction of the gates g_α^s (neurons × samples) that differ between two networks with the
    same run dims, on the same ``X``; ``(R...)``.

    Parameters
    ----------
    p_from, p_to : TwoLayer
        Network(s) with the same run dims (conventions of :mod:`.neuron`).
    X : Tensor
        Inputs (conventions of :mod:`.neuron`), gated by both networks.

    Returns
    -------
    Tensor
        ``(R...)`` in [0, 1].
    """
    return (gating(p_from, X) != gating(p_to, X)).to(torch.float64).mean((-1, -2))


def shuffled(v: Tensor, gen: torch.Generator) -> Tensor:
    """``v (R..., m)`` with its last axis permuted independently in each run (breaks the pairing of
    neurons between two per-neuron quantities).

    Parameters
    ----------
    v : Tensor
        ``(R..., m)``.
    gen : torch.Generator
        The permutations' generator.

    Returns
    -------
    Tensor
        ``v``'s shape.
    """
    flat = v.reshape(-1, v.shape[-1])
    out = torch.stack([row[torch.randperm(v.shape[-1], generator=gen)] for row in flat])
    return out.reshape(v.shape)


def n_parameters(p: TwoLayer) -> int:
    """Number of parameters of one network (all tensors; run dims must be absent).

    Parameters
    ----------
    p : TwoLayer
        A single network (conventions of :mod:`.neuron`); ``None`` tensors are not counted.

    Returns
    -------
    int
    """
    if p.runs:
        raise ParameterError("n_parameters takes a single network (no run dimensions)")
    return int(sum(t.numel() for t in p.tensors().values() if t is not None))


def aligned_neurons(p: TwoLayer, X: Tensor, y: Tensor, n_want: int = 20, min_samples: int = 10) -> list[tuple]:
    """App. G's neurons: neuron after neuron of ``p`` (no run dims, float64), turn it to 7π/4 and onto the
    m¹ of its own effective set (:func:`~.neuron.align_to_own_m1`), and keep it if the gating settled with
    at least ``min_samples`` effective samples, until ``n_want`` neurons are found.

    Parameters
    ----------
    p : TwoLayer
        A single network (float64), left unchanged.
    X, y : Tensor
        Its inputs and labels (conventions of :mod:`.neuron`).
    n_want : int
        Neurons wanted.
    min_samples : int
        Fewest effective samples of a kept neuron.

    Returns
    -------
    list of tuple
        ``(network, alpha, cos)`` per kept neuron: a copy of ``p`` with neuron ``alpha`` turned, and
        ``cos(w1_α, m¹_α)`` with m¹ of its final gating.

    Raises
    ------
    ParameterError
        When ``p`` has run dimensions or no neuron settles.
    """
    if p.runs:
        raise ParameterError("aligned_neurons takes a single network (no run dimensions)")
    out = []
    for al in range(p.W1.shape[0]):
        q, c, settled = align_to_own_m1(p, X, y, al)
        if settled and gating(q, X)[al].sum() >= min_samples:
            out.append((q, al, c))
            if len(out) == n_want:
                break
    if not out:
        raise ParameterError(f"aligned_neurons: no neuron settled with ≥ {min_samples} effective samples")
    return out


def appendix_g_check(p: TwoLayer, X: Tensor, y: Tensor, n_want: int = 20, min_samples: int = 10) -> tuple[dict, dict]:
    """App. G on one network ``p`` (no run dims, float64): on the neurons of :func:`aligned_neurons`,
    finite-difference ∂⟨‖Δy‖⟩/∂a (:func:`~.neuron.appendix_g`).  Returns ``(measured, control)``: ``neg``
    the share of negative derivatives, ``dev`` the largest relative deviation from the formula, and for
    the measurement ``cos_min`` (smallest cos(w1, m¹)) and ``n`` (neurons found); the control turns w2 to
    3π/4 instead.

    Parameters
    ----------
    p : TwoLayer
        A single network (float64), as in :func:`aligned_neurons`.
    X, y : Tensor
        Its inputs and labels, as in :func:`aligned_neurons`.
    n_want, min_samples : int
        As in :func:`aligned_neurons`.

    Returns
    -------
    measured, control : dict
        ``neg``, ``dev``, ``cos_min``, ``n`` (floats) for w2 at 7π/4 and, in the control, at 3π/4.
    """
    nets = aligned_neurons(p, X, y, n_want, min_samples)
    return appendix_g_stats(nets, X, y), appendix_g_stats(turned_out(nets), X, y)


def turned_out(nets: list[tuple]) -> list[tuple]:
    """The neurons of :func:`aligned_neurons` with each w2 turned from 7π/4 to 3π/4 (a copy).

    Parameters
    ----------
    nets : list of tuple
        ``(network, alpha, cos)`` as :func:`aligned_neurons` returns.

    Returns
    -------
    list of tuple
        The same, each network a copy with ``w2_alpha`` negated.
    """
    out = []
    for q, al, c in nets:
        qc = q.clone()
        qc.W2[:, al] = -qc.W2[:, al]                                               # 7π/4 → 3π/4
        out.append((qc, al, c))
    return out


def appendix_g_stats(nets: list[tuple], X: Tensor, y: Tensor) -> dict:
    """App. G's finite difference on given neurons: share of negative ∂⟨‖Δy‖⟩/∂a, largest relative
    deviation from eq. 102, smallest cos(w1, m¹) and the number of neurons.

    Parameters
    ----------
    nets : list of tuple
        ``(network, alpha, cos)`` as :func:`aligned_neurons` returns.
    X, y : Tensor
        The data (conventions of :mod:`.neuron`).

    Returns
    -------
    dict
        ``neg``, ``dev``, ``cos_min``, ``n`` (floats).
    """
    fd = np.array([appendix_g(q, X, y, al) for q, al, _ in nets]).reshape(-1, 2)
    return dict(neg=(fd[:, 0] < 0).mean(), dev=relative_error(fd[:, 0], fd[:, 1]).max(),
                cos_min=min((c for _, _, c in nets), default=np.nan), n=len(fd))


def conservation_drifts(P: TwoLayer) -> tuple[np.ndarray, np.ndarray]:
    """Max over time and neurons of the drift of ‖w2‖² − ‖w1‖² − b² (corrected) and of the paper's
    ‖w2‖² − ‖w1‖² (eq. 84) from their first value, relative to the largest a at each time; ``P`` has
    dims ``(T, R..., ...)``; returns two arrays ``(R...)``.

    Parameters
    ----------
    P : TwoLayer
        Snapshots ``(T, R..., ...)``.

    Returns
    -------
    corrected, paper : np.ndarray
        Each ``(R...)``.
    """
    c_ok, c_paper = conserved(P)
    amax = total_norm(P).amax(-1, keepdim=True)
    return (((c_ok - c_ok[0]).abs() / amax).amax((0, -1)).numpy(), ((c_paper - c_paper[0]).abs() / amax).amax((0, -1)).numpy())


def top_cos_delta_path(traj, X: Tensor, y: Tensor, t_max: int, n_top: int = 25) -> tuple[np.ndarray, np.ndarray]:
    """Mean cos δ over the ``n_top`` neurons of largest *final* a, at every recorded step ≤ ``t_max`` of a
    (batched) trajectory.  Returns the steps ``(S,)`` and the means ``(S, R...)``.

    Parameters
    ----------
    traj : Trajectory
        A recorded (batched) run (module conventions), read up to ``t_max``.
    X, y : Tensor
        Its data (module conventions).
    t_max : int
        Last step (optimiser steps).
    n_top : int
        Neurons kept, by final a.

    Returns
    -------
    steps : np.ndarray
        ``(S,)``.
    means : np.ndarray
        ``(S, R...)``.
    """
    idx = [i for i, s in enumerate(traj.steps) if s <= t_max]
    top = torch.topk(total_norm(traj.final), n_top, -1).indices                       # (R..., n_top)
    means = [cos_delta(traj.at(i), X, y).gather(-1, top).mean(-1).numpy() for i in idx]
    return np.asarray(traj.steps)[idx], np.stack(means)


def rising_share(path: np.ndarray) -> np.ndarray:
    """Share of the steps of ``path (S, R...)`` (after the first) at which it is larger than at the
    step before, ``(R...)``.

    Parameters
    ----------
    path : np.ndarray
        ``(S, R...)``.

    Returns
    -------
    np.ndarray
        ``(R...)`` in [0, 1].
    """
    path = np.asarray(path, dtype=float)
    if path.shape[0] < 2:
        raise ParameterError("rising_share needs at least two recorded steps")
    return (np.diff(path, axis=0) > 0).mean(0)


def lazy_scores(final: TwoLayer, centroids: Tensor) -> tuple[Tensor, Tensor]:
    """Figure 4's alignment scores of the four runs of one seed (init std from small to large).

    Parameters
    ----------
    final : TwoLayer
        The four final networks, ``W1 (4, m, 2)``; run 0 is the smallest init std, whose incoming
        directions define the targets.
    centroids : Tensor
        ``(4, 2)`` unit vectors of the toy's cluster directions.

    Returns
    -------
    score : Tensor
        ``(4,)`` :func:`alignment_score` of each run against the targets ``U``.
    U : Tensor
        ``(4, 2)`` the targets: in run 0, the incoming vector of the largest-``a`` neuron among those
        nearest each centroid.
    """
    a = total_norm(final)                                                 # (4, m)
    near = cosine(final.W1[0].unsqueeze(-2), centroids).argmax(-1)         # (m,)
    U = torch.stack([final.W1[0][torch.where(near == k, a[0], torch.zeros_like(a[0])).argmax()]
                     for k in range(centroids.shape[0])])
    return alignment_score(final.W1, a, U), U


def cluster_losses(params: TwoLayer, X: Tensor, y: Tensor, clusters: Tensor, loss, n_clusters: int = 4) -> Tensor:
    """The loss on each cluster of the data alone, for every snapshot (Figure 2's per-cluster curves;
    the synthesis chapter's per-cluster square losses).

    Parameters
    ----------
    params : TwoLayer
        Networks, possibly with leading dims (e.g. a run's snapshots, ``W1 (T, m, D)``, or time and runs).
    X : Tensor
        Inputs ``(N, D)`` or ``(…, N, D)``, broadcasting against ``params``.
    y : Tensor
        Labels ``(…, N)`` (one axis fewer than ``X``) or targets ``(…, N, k)`` (as many as ``X``), as
        the loss takes them.
    clusters : Tensor
        ``(N,)`` int, each point's cluster in ``0 .. n_clusters - 1``.
    loss : Loss
        ``loss(outputs, y)`` reduced over the points (:class:`lrlib.losses.Loss`).
    n_clusters : int
        Number of clusters.

    Returns
    -------
    Tensor
        ``(…, n_clusters)``: the loss of each cluster.

    Raises
    ------
    ParameterError
        When ``clusters`` is not one index per point of ``X`` and ``y``.
    """
    n_point_axis = y.ndim - (2 if y.ndim == X.ndim else 1)
    if clusters.ndim != 1 or clusters.shape[0] != X.shape[-2] or y.shape[n_point_axis] != X.shape[-2]:
        raise ParameterError(f"cluster_losses: X {tuple(X.shape)}, y {tuple(y.shape)} and clusters "
                             f"{tuple(clusters.shape)} disagree")
    out = []
    for k in range(n_clusters):
        m = clusters == k
        out.append(loss(forward(params, X[..., m, :]), y[..., m, :] if y.ndim == X.ndim else y[..., m]))
    return torch.stack(out, -1)


def masked_share(hit: Tensor, ok: Tensor) -> Tensor:
    """Per run: the share of the neurons that count (``ok``) for which ``hit`` holds; ``nan`` where none counts.

    Parameters
    ----------
    hit, ok : Tensor
        ``(R..., m)`` bool.

    Returns
    -------
    Tensor
        ``(R...)`` float64.
    """
    n_ok = ok.sum(-1).to(torch.float64)
    return torch.where(n_ok > 0, (hit & ok).sum(-1) / n_ok.clamp_min(1), torch.full_like(n_ok, math.nan))
