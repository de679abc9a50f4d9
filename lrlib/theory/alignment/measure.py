"""Theorem 1 part 2 measurements on trajectories: the fitting time ``t₂``, the O(1/t) loss bound
checked after it, and the low-rank inequality after ``t₁``."""

from __future__ import annotations

import math

import numpy as np
import torch

from ...losses import Loss
from ...models import TwoLayer, forward, generator
from ...measure import active, cosine, first_crossing
from ...track import stable_rank
from ...train import train
from ...schedules import linear_schedule
from ...trajectory import Trajectory
from .core import (DataGeometry, _project, alignment_times, alpha_rate, balanced_theory_init, class_alignment,
                   cone_membership, geometry, loss_bound, t1_bound, zeta, zeta2)

Tensor = torch.Tensor


def fitting_times(traj: Trajectory, X: Tensor, y: Tensor, *, per_class: bool = False) -> np.ndarray:
    """The fitting time ``t₂ = max(t₂⁺, t₂⁻)`` per run.

    ``t₂^±`` is the first time ``max_{i∈I±}|f(x_i)| > 1/4`` (linear interpolation between snapshots).

    Parameters
    ----------
    traj : Trajectory
        ``T`` snapshots of ``R`` runs; the network's outputs on ``X`` are evaluated at each.
    X, y : Tensor
        Data ``(n, D)`` and labels ``(n,)`` (the classes I±).
    per_class : bool, optional
        Return ``[t₂⁺, t₂⁻]`` instead of their max.

    Returns
    -------
    ndarray
        ``(R,)`` or ``(R, 2)``, flow time; NaN where never reached.
    """
    f = forward(traj.params, X)[..., 0]                                      # (T, R, n)
    t2 = np.array([[first_crossing(traj.time, -f[:, r, y * s > 0].abs().amax(-1).numpy(), -0.25)
                    for s in (1, -1)] for r in range(f.shape[1])])
    return t2 if per_class else t2.max(-1)


def lemma1_bound(g: DataGeometry, h: int, eps: float | np.ndarray, W_max: float | np.ndarray):
    """Lemma 1's bound on the direction error up to ``T``: ``4 ε n √h X_max² W_max²``.

    Parameters
    ----------
    g : DataGeometry
    h : int
        Width.
    eps : float or ndarray
        Scale(s) ε.
    W_max : float or ndarray
        ``max_j ‖w_j(0)‖/ε``.

    Returns
    -------
    float or ndarray
        Broadcast over ``eps`` and ``W_max`` (1/time).
    """
    return 4 * eps * g.n * math.sqrt(h) * g.X_max ** 2 * W_max ** 2


def simplified_deviation(traj: Trajectory, X: Tensor, y: Tensor) -> np.ndarray:
    """Lemma 1's left-hand side at each snapshot, for the summed exponential loss on the balanced state.

    The max over neurons of ``‖d/dt(w_j/‖w_j‖) − sign(v_j) P_{w_j} x_a(w_j)‖ = ‖P_{w_j} Σ_i y_i
    expm1(−y_i f_i) 1[⟨x_i, w_j⟩ > 0] x_i‖``.  Under the flow from a balanced init ``|v_j| = ‖w_j‖``
    exactly, so this closed form avoids two artefacts of differentiating the integrated state: the
    integrator's O(rtol) loss of balance and the cancellation in ``e^{−yf} − 1`` at tiny ``f``.

    Parameters
    ----------
    traj : Trajectory
        ``T`` snapshots of ``R`` runs from a balanced initialisation.
    X, y : Tensor
        Data ``(n, D)`` and labels ``(n,)``.

    Returns
    -------
    ndarray
        ``(T, R)`` (1/time).
    """
    out = []
    for i in range(len(traj)):
        p = traj.at(i)
        f = forward(p, X)[..., 0]                                             # (R, n)
        c = y * torch.expm1(-y * f)                                           # −ℓ′ − y, (R, n)
        act = active(p.W1, X).transpose(-1, -2).to(X.dtype)                   # (R, n, m)
        e = torch.einsum("rn,rnm,nd->rmd", c, act, X)                         # (R, m, D)
        d = _project(p.W1, e)
        out.append(torch.linalg.vector_norm(d, dim=-1).amax(-1).numpy())
    return np.array(out)


def refined_alignment_min(traj: Trajectory, X: Tensor, y: Tensor, t1: np.ndarray, t2pm: np.ndarray,
                          offset: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
    """The refined-alignment check: the smallest ``cos(w_j, x±)`` inside the paper's window, per run.

    Min over both signs of ``cos(w_j, x±)`` over ``j ∈ Ṽ±`` (``v_j`` of that sign and in S± at ``t₁``)
    and the snapshots with ``t₁ + offset ≤ t ≤ t₂±``.

    Parameters
    ----------
    traj : Trajectory
        ``T`` snapshots of ``R`` runs.
    X, y : Tensor
        Data ``(n, D)`` and labels ``(n,)``.
    t1 : ndarray
        ``(R,)`` alignment times.
    t2pm : ndarray
        ``(R, 2)`` = ``[t₂⁺, t₂⁻]``.
    offset : float or ndarray
        Start of the window after ``t₁`` (``−inf``: from the start).

    Returns
    -------
    (ndarray, ndarray)
        ``cos_min`` ``(R,)`` and the shorter window length ``t₂± − (t₁ + offset)`` ``(R,)`` (flow time).
    """
    P = traj.params
    time = np.asarray(traj.time)
    cm = cone_membership(P.W1, X, y)                                         # (T, R, m)
    x_pm = {1: X[y > 0].sum(0), -1: X[y < 0].sum(0)}
    R = P.W1.shape[1]
    offset = np.broadcast_to(np.asarray(offset, float), (R,))
    cos_min, window = np.full(R, np.inf), np.full(R, np.inf)
    for r in range(R):
        i1 = int(np.searchsorted(time, t1[r]))
        for k, (s, cone) in enumerate(((1, "S_plus"), (-1, "S_minus"))):
            start = max(t1[r] + offset[r], 0.0) if np.isfinite(offset[r]) else 0.0
            window[r] = min(window[r], t2pm[r, k] - start)
            V = cm[cone][i1, r] & (torch.sign(P.a[0, r]) == s)
            sel = (time >= start) & (time <= t2pm[r, k])
            if V.any() and sel.any():
                c = cosine(P.W1[sel][:, r][:, V], x_pm[s])
                cos_min[r] = min(cos_min[r], float(c.min()))
    return cos_min, window


def lemma13_ratio(traj: Trajectory, X: Tensor, y: Tensor, g: DataGeometry, t1: np.ndarray,
                  sign: int = -1) -> np.ndarray:
    """Lemma 13's mass ratio per run.

    Min over both signs of ``Σ_{Ṽ±}‖w_j(t₁)‖² / (exp(sign·4 n X_max t₁) Σ_{Ṽ±}‖w_j(0)‖²)``.

    Parameters
    ----------
    traj : Trajectory
        ``T`` snapshots of ``R`` runs; the snapshots at 0 and at ``t₁`` are read.
    X, y : Tensor
        Data ``(n, D)`` and labels ``(n,)``, which define the cones S± at ``t₁``.
    g : DataGeometry
    t1 : ndarray
        ``(R,)`` alignment times.
    sign : int, optional
        −1: Lemma 13; +1: the perturbed prediction of the control.

    Returns
    -------
    ndarray
        ``(R,)`` (the lemma holds where ≥ 1).
    """
    P = traj.params
    time = np.asarray(traj.time)
    cm = cone_membership(P.W1, X, y)
    out = np.full(P.W1.shape[1], np.inf)
    for r in range(P.W1.shape[1]):
        i1 = int(np.searchsorted(time, t1[r]))
        for s, cone in ((1, "S_plus"), (-1, "S_minus")):
            V = cm[cone][i1, r] & (torch.sign(P.a[0, r]) == s)
            m1, m0 = float((P.W1[i1, r][V] ** 2).sum()), float((P.W1[0, r][V] ** 2).sum())
            out[r] = min(out[r], m1 / (math.exp(sign * 4 * g.n * g.X_max * t1[r]) * m0))
    return out


def loss_rate_check(traj: Trajectory, X: Tensor, y: Tensor, g: DataGeometry) -> dict[str, np.ndarray]:
    """Theorem 1's O(1/t) loss bound checked after ``t₂``, per run.

    Parameters
    ----------
    traj : Trajectory
        ``T`` snapshots of ``R`` runs (summed loss, flow time).
    X, y : Tensor
        Data ``(n, D)`` and labels ``(n,)``.
    g : DataGeometry

    Returns
    -------
    dict of str to ndarray
        ``ratio_min`` — min over the snapshots at ``t ≥ t₂ + 1/(α L(t₂))`` (where the bound has halved;
        at ``t₂`` itself bound = L by construction) of bound/L, NaN where none; ``bound_drop`` —
        ``1 − bound(t_end)/L(t₂)``; ``ratio_ctl`` — the same min for a curve decaying at half the rate
        (the control); ``t2``; each ``(R,)``.  ``t₂`` is taken at the first snapshot at or after it.
    """
    alpha = alpha_rate(g)
    t2s = fitting_times(traj, X, y)
    out = {k: np.full(len(t2s), np.nan) for k in ("ratio_min", "bound_drop", "ratio_ctl", "t2")}
    time = np.asarray(traj.time)
    for r, t2 in enumerate(t2s):
        if not np.isfinite(t2):
            continue
        i2 = int(np.searchsorted(time, t2))
        L = traj.loss[i2:, r].numpy()
        bound = loss_bound(float(L[0]), time[i2], time[i2:], alpha)
        late = time[i2:] >= time[i2] + 1 / (alpha * float(L[0]))
        out["ratio_min"][r] = np.min(bound[late] / L[late]) if late.any() else np.nan
        out["bound_drop"][r] = 1 - bound[-1] / L[0]
        out["ratio_ctl"][r] = np.min(bound / loss_bound(float(L[0]), time[i2], time[i2:], alpha / 2))
        out["t2"][r] = t2
    return out


def low_rank_check(traj: Trajectory, p0: TwoLayer, eps: float, t1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Theorem 1's low-rank inequality after ``t₁``, per run.

    Parameters
    ----------
    traj : Trajectory
        ``T`` snapshots of ``R`` runs.
    p0 : TwoLayer
        The initialisation, ``W1 (R, m, D)``.
    eps : float
        Its scale ε.
    t1 : ndarray
        ``(R,)`` alignment times (NaN: the whole run is checked).

    Returns
    -------
    (ndarray, ndarray)
        The number of snapshots at or after ``t₁`` violating ``‖W‖_F² ≤ 2‖W‖₂² + 4√h ε W_max²``
        (``W_max = max_j ‖w_j(0)‖/ε``) and the final stable rank, ``(R,)`` each.
    """
    sr, s2 = stable_rank(traj.params.W1)                                     # (T, R)
    W_max = (p0.norms_in() / eps).amax(-1)
    after = torch.as_tensor(traj.time)[:, None] >= torch.as_tensor(np.nan_to_num(t1, nan=0.0))[None, :]
    viol = ((sr * s2 > 2 * s2 + 4 * math.sqrt(p0.W1.shape[-2]) * eps * W_max ** 2) & after).sum(0)
    return viol.numpy(), sr[-1].numpy()


def dwell_ratio(time: np.ndarray, active: Tensor, settled: Tensor, dt_bound) -> np.ndarray:
    """The dwell-time check: how long a neuron keeps one activation pattern before it settles, over Δt.

    An interval ends at the first snapshot with another pattern or at the first settled snapshot,
    whichever comes first.

    Parameters
    ----------
    time : ndarray
        ``(T,)`` flow time.
    active : Tensor
        ``(T, R, n, m)`` bool.
    settled : Tensor
        ``(T, R, m)`` bool.
    dt_bound : callable
        Maps the number of active points ``n_a ≥ 1`` to the paper's Δt.

    Returns
    -------
    ndarray
        ``(R,)``: max over neurons and intervals of (length / Δt(n_a)); 0 when never unsettled.
    """
    time = np.asarray(time)
    act = active.numpy()
    st = settled.numpy()
    T, R, n, m = act.shape
    out = np.zeros(R)
    for r in range(R):
        for j in range(m):
            pat = act[:, r, :, j]
            start = 0
            for k in range(1, T + 1):
                if k == T or st[k, r, j] or (pat[k] != pat[start]).any():
                    if not st[start, r, j]:
                        n_a = int(pat[start].sum())
                        if n_a > 0:
                            out[r] = max(out[r], (time[min(k, T - 1)] - time[start]) / dt_bound(n_a))
                    if k == T or st[k, r, j]:
                        break
                    start = k
    return out


def init_activation_mc(X: Tensor, y: Tensor, gen: torch.Generator, draws: int, m: int,
                       bias: Tensor | None = None, spread: float = 0.3) -> tuple[float, float]:
    """Monte Carlo of the random-initialisation argument of §3.1.

    Draws ``w ~ N(0, I/D)`` (or ``bias + spread·g`` when ``bias`` is given).

    Parameters
    ----------
    X, y : Tensor
        Data ``(n, D)`` and labels ``(n,)``.
    gen : torch.Generator
    draws : int
        Monte Carlo draws.
    m : int
        Neurons per draw for the "none of m" probability.
    bias : Tensor, optional
        ``(D,)`` mean direction (the control).
    spread : float, optional

    Returns
    -------
    (float, float)
        z scores ``(p̂_one − 1/2)/se`` (a neuron activates some positive point) and
        ``(p̂_none − 2⁻ᵐ)/se`` (none of ``m`` neurons does).
    """
    D = X.shape[-1]
    g = torch.randn((draws, m, D), generator=gen, dtype=X.dtype)
    W = g / math.sqrt(D) if bias is None else bias + spread * g
    hit = ((W @ X[y > 0].T) > 0).any(-1)                                    # (draws, m)
    p1 = float(hit[:, 0].double().mean())
    p0 = float((~hit).all(-1).double().mean())
    se1 = max(math.sqrt(p1 * (1 - p1) / draws), 1 / draws)
    q = 2.0 ** -m
    se0 = max(math.sqrt(q * (1 - q) / draws), 1 / draws)
    return (p1 - 0.5) / se1, (p0 - q) / se0


def growth_outside_s_plus(X: Tensor, y: Tensor, traj: Trajectory) -> tuple[np.ndarray, np.ndarray]:
    """Figs 7–9 at the end of a run: stragglers outside ``S₊`` and how large they grew.

    Parameters
    ----------
    X, y : Tensor
        Data ``(n, 2)`` and labels ``(n,)``.
    traj : Trajectory
        ``T`` snapshots of ``R`` runs.

    Returns
    -------
    (ndarray, ndarray)
        Among the live ``V₊`` neurons (``a_j > 0``, not dead): the share outside ``S₊`` and the largest
        norm outside ``S₊`` over the largest inside, ``(R,)`` each; the ratio is ``NaN`` where no live
        neuron is outside ``S₊`` (nothing to compare: undefined, not 0).
    """
    fin = traj.final
    c = cone_membership(fin.W1, X, y)
    live = (fin.a > 0) & ~c["S_dead"]
    nrm = fin.norms_in()
    big_in = torch.where(live & c["S_plus"], nrm, torch.zeros_like(nrm)).amax(-1)
    big_out = torch.where(live & ~c["S_plus"], nrm, torch.zeros_like(nrm)).amax(-1)
    share = ((live & ~c["S_plus"]).sum(-1) / live.sum(-1).clamp_min(1)).numpy()
    ratio = torch.where((live & ~c["S_plus"]).any(-1), big_out / big_in, torch.full_like(big_in, torch.nan))
    return share, ratio.numpy()


def mnist_summary(X: Tensor, y: Tensor, traj: Trajectory) -> dict[str, float]:
    """The MNIST measurements of one run (one network).

    Parameters
    ----------
    X, y : Tensor
        Centred images ``(n, 784)`` and labels ``(n,)``.
    traj : Trajectory
        One run; ``steps`` are GD iterations.

    Returns
    -------
    dict of str to float
        ``consistent_pairs`` — share of pairs with ``y_i y_j ⟨x_i, x_j⟩ > 0``; ``k_align`` — first
        iteration where both mean neurons have cosine > 0.95 with their class sum; ``k_drop`` — first
        iteration where the loss < 0.9·L(0); ``align_drop`` — peak minus final mean cosine (the larger of
        the two classes); ``final_stable_rank``; ``final_loss``.
    """
    bands = class_alignment(traj, X, y)
    both = np.minimum(bands["+"][0], bands["-"][0])
    L = traj.loss.numpy()
    G = X @ X.T
    return dict(consistent_pairs=float(((G * (y[:, None] * y[None, :])) > 0).float().mean()),
                k_align=first_crossing(traj.steps, -both, -0.95), k_drop=first_crossing(traj.steps, L, 0.9 * L[0]),
                align_drop=max(bands[s][0].max() - bands[s][0][-1] for s in "+-"),
                final_stable_rank=stable_rank(traj.final.W1)[0].item(), final_loss=L[-1])


def alignment_time_and_bound(X: Tensor, y: Tensor, runs: int, eps: float, seed: int, t_max: float, step_div: int = 1,
                             *, width: int = 50, loss: Loss = Loss("exponential", "sum")
                             ) -> tuple[DataGeometry, np.ndarray, np.ndarray]:
    """Theorem 1's ``t₁`` measured and bounded on balanced initialisations.

    GD on ``loss`` with step ``0.01 / (n X_max) / step_div`` up to flow time ``t_max``, 400 snapshots.

    Parameters
    ----------
    X, y : Tensor
        Data ``(n, D)`` and labels ``(n,)``.
    runs : int
        Initialisations (batched).
    eps : float
        Scale ε.
    seed : int
        Seed of the initialisation.
    t_max : float
        Flow-time horizon.
    step_div : int, optional
        Divides the step (step-convergence re-runs).
    width : int, optional
    loss : Loss, optional
        Default: the summed exponential loss.

    Returns
    -------
    (DataGeometry, ndarray, ndarray)
        The geometry, the measured ``t₁`` per run ``(R,)`` and the theorem's bound per run ``(R,)``
        (flow time).
    """
    g = geometry(X, y)
    p = balanced_theory_init(width, X.shape[1], eps, generator(seed), runs=(runs,))
    eta = 0.01 / (g.n * g.X_max) / step_div
    steps = int(t_max / eta)
    tr = train(p, X, y, loss=loss, lr=eta, steps=steps, record=linear_schedule(steps, max(1, steps // 400)))
    t1 = alignment_times(tr, X, y)
    bounds = np.array([t1_bound(g, zeta(g.zeta1, zeta2(p.W1[r] / eps, torch.sign(p.a[r]), g)), g.xi_lower)
                       for r in range(runs)])
    return g, t1, bounds


def lemma15_ratio(traj: Trajectory, X: Tensor, y: Tensor, gamma: float) -> tuple[np.ndarray, np.ndarray]:
    """Lemma 15 on a recorded flow of a linear two-layer network.

    Parameters
    ----------
    traj : Trajectory
        A run of ``f(x) = vᵀWᵀx`` (``act="linear"``) on the summed exponential loss, ``T`` snapshots
        of ``R`` runs; time in flow time.
    X, y : Tensor
        Data ``(n, D)`` and labels ``(n,)`` in ``{−1, +1}``.
    gamma : float
        A margin of the data: ``yᵢ⟨z, xᵢ⟩ ≥ γ`` for a unit ``z``.

    Returns
    -------
    (ndarray, ndarray)
        ``ratio`` ``(R,)``: min over consecutive snapshot pairs where every margin ``yᵢ f(xᵢ) ≥ 0``
        at both ends of the measured decay rate ``−ΔL/Δt`` over the lemma's ``¼‖v‖²L²γ²`` (the
        larger of its two end values); NaN where no pair qualifies.  ``n_win`` ``(R,)``: the number
        of qualifying pairs.
    """
    P = traj.params
    margins = y * forward(P, X)[..., 0]                                       # (T, R, n)
    ok = (margins >= 0).all(-1)                                               # (T, R)
    L = traj.loss.to(torch.float64)
    bound = 0.25 * (P.W2[..., 0, :].to(torch.float64) ** 2).sum(-1) * L ** 2 * gamma ** 2
    dt = torch.as_tensor(np.diff(traj.time), dtype=torch.float64).reshape(-1, *([1] * (L.dim() - 1)))
    rate = -(L[1:] - L[:-1]) / dt
    win = ok[1:] & ok[:-1]
    r = torch.where(win, rate / torch.maximum(bound[1:], bound[:-1]), torch.full_like(rate, torch.inf)).amin(0)
    n_win = win.sum(0)
    return torch.where(n_win > 0, r, torch.full_like(r, torch.nan)).numpy(), n_win.numpy()


def direction_deviation(traj: Trajectory, X: Tensor, y: Tensor) -> tuple[np.ndarray, np.ndarray]:
    """Lemma 4's left-hand side for any ``|v_j|/‖w_j‖``, and ``max_i |f(x_i)|``, at each snapshot.

    For the summed exponential loss ``d/dt w_j = v_j Σ_i y_i e^{−y_i f_i} 1[⟨x_i, w_j⟩ > 0] x_i``, so
    ``d/dt(w_j/‖w_j‖) − sign(v_j) P x_a = sign(v_j) P[(r_j − 1) g_j + Σ_i y_i expm1(−y_i f_i) 1[·] x_i]`` with
    ``r_j = |v_j|/‖w_j‖`` and ``g_j = Σ_i y_i e^{−y_i f_i} 1[·] x_i`` (``r_j = 1``: :func:`simplified_deviation`).
    ``r_j`` is read from the flow's invariant ``v_j² − ‖w_j‖² = c_j`` of the first snapshot,
    ``r_j = √(‖w_j‖² + c_j)/‖w_j‖``, not from the integrated ``v_j``, whose O(rtol) drift would otherwise
    dominate the error of a balanced run (``c_j = 0``); ``|c_j| ≤ 10⁻¹² ‖w_j(0)‖²`` is the rounding of
    ``v_j = ‖w_j‖`` and counts as 0 (at ``ε = 10⁻²⁴`` the lemma's error is ``∝ |f| ≈ 10⁻⁴⁸``, far below it).

    Parameters
    ----------
    traj : Trajectory
        ``T`` snapshots of ``R`` runs.
    X, y : Tensor
        Data ``(n, D)`` and labels ``(n,)``.

    Returns
    -------
    (ndarray, ndarray)
        The max over neurons of the deviation ``(T, R)`` (1/time) and ``max_i |f(x_i)|`` ``(T, R)``.
    """
    dev, fmax = [], []
    p0 = traj.at(0)
    sq0 = (p0.W1 ** 2).sum(-1)
    c = p0.a ** 2 - sq0                                                        # (R, m), conserved by the flow
    c = torch.where(c.abs() <= 1e-12 * sq0, torch.zeros_like(c), c)            # v_j = ‖w_j‖ up to rounding
    for i in range(len(traj)):
        p = traj.at(i)
        f = forward(p, X)[..., 0]                                             # (R, n)
        act = active(p.W1, X).transpose(-1, -2).to(X.dtype)                   # (R, n, m)
        em1 = torch.einsum("rn,rnm,nd->rmd", y * torch.expm1(-y * f), act, X)
        g = torch.einsum("rn,rnm,nd->rmd", y * torch.exp(-y * f), act, X)
        sq = (p.W1 ** 2).sum(-1)
        r = torch.where(sq > 0, ((sq + c).clamp_min(0) / sq.clamp_min(torch.finfo(X.dtype).tiny)).sqrt(),
                        torch.ones_like(sq))
        d = _project(p.W1, (r - 1).unsqueeze(-1) * g + em1)
        dev.append(torch.linalg.vector_norm(d, dim=-1).amax(-1).numpy())
        fmax.append(f.abs().amax(-1).numpy())
    return np.array(dev), np.array(fmax)


def lemma11_min_ratio(traj: Trajectory, X: Tensor, y: Tensor, g: DataGeometry) -> np.ndarray:
    """Lemma 11's ``‖x_a(w)‖/(√μ n_a(w) X_min)``, min over snapshots and neurons with ``n_a ≥ 1``.

    Parameters
    ----------
    traj : Trajectory
        ``T`` snapshots of ``R`` runs.
    X, y : Tensor
        Data ``(n, D)`` and labels ``(n,)``.
    g : DataGeometry
        Of ``X, y`` (``μ > 0``).

    Returns
    -------
    ndarray
        ``(R,)``; ``inf`` where no neuron activates a point.
    """
    W = traj.params.W1                                                        # (T, R, m, D)
    act = (W @ X.T > 0).to(X.dtype)                                           # (T, R, m, n)
    xa = torch.linalg.vector_norm(act @ (y[:, None] * X), dim=-1)             # (T, R, m)
    na = act.sum(-1)
    ratio = torch.where(na > 0, xa / (math.sqrt(g.mu) * na.clamp_min(1) * g.X_min), torch.full_like(xa, math.inf))
    return ratio.amin(-1).amin(0).numpy()
