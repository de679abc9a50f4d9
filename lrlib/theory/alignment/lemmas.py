"""Measurements behind the paper's lemmas on trajectories: the refined alignment (Theorem 1),
Lemmas 11, 13 and 15, the dwell time of an activation pattern, the initial activation
probability, and the alignment time against its bound over data sets.

Shapes and units: the package's conventions (:mod:`lrlib.theory.alignment`). Tested in
``tests/test_theory_alignment_lemmas.py``.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from ...losses import Loss
from ...measure import active, cosine
from ...models import forward, generator
from ...schedules import linear_schedule
from ...train import train
from ...trajectory import Trajectory
from .cones import cone_membership
from .core import DataGeometry, geometry, t1_bound, zeta, zeta2
from .data import balanced_theory_init
from .measure import alignment_times, settled

Tensor = torch.Tensor


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
