"""Measurements that compare gradient descent with AGF's predictions."""

from __future__ import annotations

import math
from typing import Callable, Iterable

import numpy as np
import torch
from scipy.integrate import solve_ivp

from ...errors import ParameterError
from ...measure import drop_times, first_crossing, plateau_between, relative_error
from . import dln, modular

Tensor = torch.Tensor
_ACT = {"linear": (lambda z: z, lambda z: np.ones_like(z)), "square": (lambda z: z * z, lambda z: 2 * z),
        "relu": (lambda z: np.maximum(z, 0.0), lambda z: (z > 0).astype(z.dtype))}   # σ, σ′ (numpy)


def fc_drops(time: np.ndarray, loss: np.ndarray, etas: np.ndarray, preds: dict, K: int) -> np.ndarray:
    """The first ``K`` mid-level drop times, in accelerated time, of fully connected runs.

    Parameters
    ----------
    time : ndarray
        ``(T,)`` raw gradient-flow time.
    loss : ndarray
        ``(T, A, V, S)`` loss per α, variant and seed.
    etas : ndarray
        ``(A,)`` the ``η_α`` of each α.
    preds : dict
        variant → prediction (with ``levels``), in the order of the variant axis.
    K : int
        number of drops.

    Returns
    -------
    np.ndarray
        ``(V, A, S, K)``; ``nan`` where a drop is not reached.
    """
    loss = np.asarray(loss)
    if loss.ndim != 4 or loss.shape[1] != len(etas) or loss.shape[2] != len(preds):
        raise ParameterError(f"fc_drops needs loss (T, {len(etas)}, {len(preds)}, S), got {loss.shape}")
    return np.array([[[drop_times(time / eta, loss[:, ia, j, r], pr.levels[:K + 1]) for r in range(loss.shape[3])]
                      for ia, eta in enumerate(etas)] for j, pr in enumerate(preds.values())])


def activation_order(time: np.ndarray, values: np.ndarray, finals: np.ndarray, frac: float = 0.5) -> list[int]:
    """Coordinates sorted by the first time they reach a fraction of their final value.

    Parameters
    ----------
    time : ndarray
        ``(T,)`` times.
    values : ndarray
        ``(T, m)`` the coordinates.
    finals : ndarray
        ``(m,)`` their reference values (a zero reference is left out).
    frac : float, optional
        the fraction of ``|finals[i]|`` to reach.

    Returns
    -------
    list[int]
        Indices in order of first crossing (coordinates that never cross are left out).
    """
    hits = []
    for i in range(values.shape[1]):
        if abs(finals[i]) > 0:
            t = first_crossing(time, np.abs(values[:, i]), frac * abs(finals[i]), below=False)
            if np.isfinite(t):
                hits.append((t, i))
    return [i for _, i in sorted(hits)]


def maximise_on_sphere(fn: Callable[[Tensor], Tensor], theta0: Tensor, *, lr: float = 0.02,
                       steps: int = 4000) -> tuple[float, Tensor]:
    """Projected gradient ascent of ``fn`` on the unit sphere.  (A small step matters: a step of 0.5 can
    stall at 0.7·Ū*.)

    Parameters
    ----------
    fn : callable
        ``θ (D,) -> scalar`` tensor function.
    theta0 : Tensor
        ``(D,)`` the start (normalised here).
    lr : float, optional
        the ascent step.
    steps : int, optional
        number of steps.

    Returns
    -------
    (float, Tensor)
        The maximum and the maximiser ``(D,)``.
    """
    th = theta0 / theta0.norm()
    for _ in range(steps):
        th = th.detach().requires_grad_(True)
        (g,) = torch.autograd.grad(fn(th), th)
        th = th.detach() + lr * (g - (g @ th.detach()) * th.detach())
        th = th / th.norm()
    return float(fn(th)), th.detach()


def maximise_on_stiefel(M: np.ndarray, m: int, *, lr: float = 0.1, steps: int = 4000,
                        seed: int = 0) -> tuple[float, np.ndarray]:
    """Total utility ``Σ_i a_iᵀ M w_i`` of ``m`` linear neurons whose stacked unit vectors
    ``θ_i = (w_i, a_i)`` form an orthonormal frame (Lemma D.1's Stiefel form), maximised by Riemannian
    gradient ascent with a QR retraction from a random frame.

    Parameters
    ----------
    M : ndarray
        ``(c, d)`` ``−∇_β L(β_A)``.
    m : int
        number of neurons.
    lr : float, optional
        ascent step.
    steps : int, optional
        number of steps.
    seed : int, optional
        numpy seed of the random start.

    Returns
    -------
    (float, np.ndarray)
        The maximum (``Σ_{i≤m} σ_i(M)/2``, Ky Fan) and the frame ``(d + c, m)``.
    """
    M = np.asarray(M, dtype=float)
    c, d = M.shape
    if not 1 <= m <= min(c, d):
        raise ParameterError(f"maximise_on_stiefel needs 1 <= m <= {min(c, d)}, got {m}")
    B = np.zeros((d + c, d + c))
    B[d:, :d], B[:d, d:] = M / 2, M.T / 2                       # θᵀBθ = aᵀMw
    Th, _ = np.linalg.qr(np.random.RandomState(seed).randn(d + c, m))
    step = lr / np.linalg.norm(M, 2)
    for _ in range(steps):
        G = 2 * B @ Th
        G = G - Th @ (0.5 * (Th.T @ G + G.T @ Th))                 # tangent projection
        Th, R = np.linalg.qr(Th + step * G)
        Th = Th * np.sign(np.diag(R))
    return float(np.trace(Th.T @ B @ Th)), Th


def dln_vs_agf(X: np.ndarray, y: np.ndarray, alpha: float, time: np.ndarray,
               loss: np.ndarray) -> tuple[dln.DLNResult, float, np.ndarray, np.ndarray]:
    """A diagonal linear network's loss curve against closed-form AGF at the same ``alpha``.

    Parameters
    ----------
    X : ndarray
        ``(n, d)`` inputs.
    y : ndarray
        ``(n,)`` targets.
    alpha : float
        the initialisation scale.
    time : ndarray
        ``(T,)`` raw gradient-flow time of the loss curve.
    loss : ndarray
        ``(T,)`` the loss curve.

    Returns
    -------
    (DLNResult, float, np.ndarray, np.ndarray)
        AGF's prediction (:func:`dln.agf`), ``η_α`` (:func:`dln.eta_alpha`), the relative errors of the
        mid-level drop times, in accelerated time ``t/η_α``, against ``pred.tau[1:]`` ``(K,)``, and of the
        plateaus read between the curve's own drops (:func:`lrlib.measure.plateau_between`, the median over
        the middle half) against ``pred.levels[1:-1]`` ``(K−1,)``.
    """
    pred = dln.agf(X, y, alpha)
    eta = dln.eta_alpha(alpha)
    drops_ = drop_times(time, loss, pred.levels) / eta
    err_t = relative_error(drops_, pred.tau[1:])
    err_l = relative_error(plateau_between(time / eta, loss, drops_).level, pred.levels[1:-1])
    return pred, eta, err_t, err_l


def verdict_1_over_eta(errs: Iterable[tuple[float, np.ndarray]]) -> str:
    """``"reproduced"`` when for every pair the largest (non-nan) relative error is ``≤ 1/η_α``.

    Parameters
    ----------
    errs : Iterable[tuple[float, ndarray]]
        pairs ``(η_α, errors)`` with ``errors`` an array of relative errors.

    Returns
    -------
    str
        ``"reproduced"`` or ``"not reproduced"`` (an all-nan error array does not pass).
    """
    return "reproduced" if all(np.nanmax(e) <= 1 / eta for eta, e in errs) else "not reproduced"


def align_fraction(theta0: Tensor, X: Tensor, G: Tensor, d: int, act: str, kappa: int, alpha: float, *,
                   angle: float = 0.1, n_grid: int = 2001, horizon: float = 200.0) -> float:
    """One neuron's :func:`align_fractions`.

    Parameters
    ----------
    theta0 : Tensor
        ``(D,)`` direction.
    X : Tensor
        ``(n, d)`` data.
    G : Tensor
        ``(n, k)`` frozen residual gradient.
    d, act, kappa, alpha, angle, n_grid, horizon : int / str / float / float, optional / int, optional
        as for :func:`align_fractions`.

    Returns
    -------
    float
    """
    return float(align_fractions(theta0.unsqueeze(0), X.unsqueeze(0), G.unsqueeze(0), d, act, kappa, alpha,
                                 angle=angle, n_grid=n_grid, horizon=horizon)[0])


def align_fractions(theta0: Tensor, X: Tensor, G: Tensor, d: int, act: str, kappa: int, alpha: float, *,
                    angle: float = 0.1, n_grid: int = 2001, horizon: float = 200.0,
                    rtol: float = 1e-7, adaptive: bool = False) -> np.ndarray:
    """Fraction of the time a dormant neuron needs to reach ``‖θ‖ = 1`` that it spends more than ``angle``
    radians from the direction it has at that moment (App. B.4), for ``R`` independent neurons at once.

    Neuron ``r`` starts at ``alpha · θ̄0_r`` and follows its utility flow ``dθ/dt = ∇U_r(θ)`` (Eq. 2,
    η = 1).  Written as direction ``θ̄`` and log-norm ``ρ = log‖θ‖`` its path is that of the *norm-free*
    system ``dθ̄/dσ = P⊥∇U_r(θ̄)``, ``dρ/dσ = κU_r(θ̄)`` in the time ``dt = e^{−(κ−2)ρ} dσ``, which we
    integrate (``solve_ivp`` RK45, O(1) time scales whatever ``alpha``) up to each neuron's ``σ_r`` at norm 1;
    the fraction is read on ``n_grid`` uniform ``σ`` in ``[0, σ_r]`` weighted by ``e^{−(κ−2)ρ}`` (trapezoid),
    i.e. as a fraction of ``t``.

    Parameters
    ----------
    theta0 : Tensor
        ``(R, D)`` directions (normalised here).
    X : Tensor
        ``(R, n, d)`` each neuron's data.
    G : Tensor
        ``(R, n, k)`` each neuron's frozen residual gradient ``∇_f L(f_A)``.
    d : int
        the input dimension.
    act : str
        the activation name.
    kappa : int
        the homogeneity degree.
    alpha : float
        the initial norm.
    angle : float, optional
        the threshold angle (radians).
    n_grid : int, optional
        number of ``σ`` samples.
    horizon : float, optional
        integration horizon, in units of ``log(1/α)``.
    rtol : float, optional
        relative tolerance of the integrator.
    adaptive : bool, optional
        App. B.4's neuron-wise learning rate ``η‖θ‖^{2−κ}``, whose flow *is* the norm-free system
        (uniform weights).

    Returns
    -------
    np.ndarray
        ``(R,)`` fractions; ``nan`` for a neuron that does not reach norm 1.
    """
    if theta0.ndim != 2 or X.ndim != 3 or G.ndim != 3 or not (theta0.shape[0] == X.shape[0] == G.shape[0]):
        raise ParameterError(f"align_fractions needs theta0 (R, D), X (R, n, d), G (R, n, k); got "
                             f"{tuple(theta0.shape)}, {tuple(X.shape)}, {tuple(G.shape)}")
    if not 0 < alpha < 1:
        raise ParameterError(f"align_fractions needs 0 < alpha < 1, got {alpha}")
    if act not in _ACT:
        raise ParameterError(f"align_fractions supports the activations {sorted(_ACT)}, got {act!r}")
    R, D = theta0.shape
    sig, dsig = _ACT[act]
    Xn, Gn = X.numpy(), G.numpy()
    power = 0.0 if adaptive else kappa - 2.0

    def rhs(_t, z):
        zz = z.reshape(R, D + 1)
        w, a, rho = zz[:, :d], zz[:, d:D], zz[:, D]
        pre = np.einsum("rnd,rd->rn", Xn, w)
        ga = np.einsum("rnk,rk->rn", Gn, a)                                       # ⟨G_n, a⟩
        U = -np.einsum("rn,rn->r", ga, sig(pre))
        g = np.concatenate([-np.einsum("rn,rnd->rd", ga * dsig(pre), Xn), -np.einsum("rnk,rn->rk", Gn, sig(pre))], -1)
        tb = zz[:, :D]
        live = np.clip((0.01 - rho) / 0.01, 0.0, 1.0)                              # continuous stop at ρ = 0.01
        dtb = live[:, None] * (g - (g * tb).sum(-1, keepdims=True) * tb)
        return np.concatenate([dtb, (kappa * live * U)[:, None]], -1).reshape(-1)

    def done(_t, z):
        return float(z.reshape(R, D + 1)[:, D].min()) - 0.005
    done.terminal, done.direction = True, 1                                     # (every ρ ≥ 0.005)

    th = theta0.numpy()
    z0 = np.concatenate([th / np.linalg.norm(th, axis=1, keepdims=True), np.full((R, 1), math.log(alpha))], -1).reshape(-1)
    sol = solve_ivp(rhs, (0.0, horizon * math.log(1 / alpha)), z0, method="RK45", rtol=rtol, atol=1e-12,
                    dense_output=True, events=done)
    if sol.status < 0:
        raise RuntimeError(f"align_fractions: the integration failed ({sol.message})")
    tg = np.linspace(0.0, sol.t[-1], 20 * n_grid)
    rho = sol.sol(tg).reshape(R, D + 1, -1)[:, D]                                 # (R, T)
    out = np.full(R, np.nan)
    for r in range(R):
        S_r = first_crossing(tg, rho[r], 0.0, below=False)
        if not np.isfinite(S_r):
            continue
        zs = sol.sol(np.linspace(0.0, S_r, n_grid)).reshape(R, D + 1, -1)[r]     # (D + 1, n_grid)
        tb = zs[:D].T / np.linalg.norm(zs[:D].T, axis=1, keepdims=True)
        far = (np.arccos(np.clip(tb @ tb[-1], -1, 1)) > angle).astype(float)
        wgt = np.exp(-power * (zs[D] - zs[D].max()))                              # dt/dσ up to a constant
        out[r] = float(np.trapezoid(far * wgt) / np.trapezoid(wgt))
    return out



def align_sweep(theta0: Tensor, X: Tensor, G: Tensor, d: int, act: str, kappa: int, alphas, **kw
                ) -> np.ndarray:
    """:func:`align_fractions` at each ``α`` of a sweep.

    Parameters
    ----------
    theta0, X, G, d, act, kappa : Tensor / int / str
        as :func:`align_fractions`.
    alphas : array_like
        ``(A,)`` initialisation scales.
    **kw : dict
        passed to :func:`align_fractions` (``angle``, ``adaptive``, …).

    Returns
    -------
    np.ndarray
        ``(A, R)`` fractions.
    """
    return np.array([align_fractions(theta0, X, G, d, act, kappa, a, **kw) for a in alphas])

def staircase_drop_times(tau: np.ndarray, levels: np.ndarray, ref_levels: np.ndarray) -> np.ndarray:
    """Drop times of a step curve against the mid-levels of a reference staircase.

    Parameters
    ----------
    tau : ndarray
        ``(K+1,)`` the step curve's jump times.
    levels : ndarray
        ``(K+1,)`` its levels (``levels[k]`` from ``tau[k]`` on).
    ref_levels : ndarray
        ``(J+1,)`` the reference levels.

    Returns
    -------
    np.ndarray
        ``(J,)`` for each mid-level the first ``tau[k]`` with ``levels[k] ≤`` it (``nan`` if none), in
        the units of ``tau``.
    """
    tau, levels, ref = (np.asarray(a, dtype=float) for a in (tau, levels, ref_levels))
    mids = 0.5 * (ref[:-1] + ref[1:])
    return np.array([first_crossing(tau, levels, m, interpolate=False) for m in mids])


def phase_constraint(U: np.ndarray, V: np.ndarray, W: np.ndarray, x: np.ndarray,
                     freqs: Iterable[int]) -> np.ndarray:
    """The cost-minimisation phase constraint of the modular-addition network (App. F.2), per frequency.

    For each frequency ``ξ``, over the neurons whose output weights ``w_i`` have dominant frequency
    ``ξ``, with ``A_i = |û_i[ξ]||v̂_i[ξ]||ŵ_i[ξ]|`` and the phase residual ``ρ_i = s_u + s_v − s_w − s_x``:
    ``|Σ_i A_i sin ρ_i| / Σ_i A_i``.  A minimiser of the cost over aligned neurons has
    ``Σ_i A_i sin ρ_i = 0`` (the individual ``ρ_i`` are free).

    Parameters
    ----------
    U, V, W : ndarray
        ``(H, p)`` each neuron's input weights on ``a·x`` and ``b·x`` and its output weights.
    x : ndarray
        ``(p,)`` the template.
    freqs : Iterable[int]
        the frequencies.

    Returns
    -------
    np.ndarray
        ``(len(freqs),)`` (``nan`` if no neuron has that frequency).
    """
    U, V, W = (np.asarray(a, dtype=float) for a in (U, V, W))
    if U.ndim != 2 or U.shape != V.shape or U.shape != W.shape or U.shape[1] != len(x):
        raise ParameterError(f"phase_constraint needs U, V, W of one shape (H, p) with p = len(x); got "
                             f"{U.shape}, {V.shape}, {W.shape}, p = {len(x)}")
    Fu, Fv, Fw, Fx = (np.fft.fft(a, axis=-1) for a in (U, V, W, np.asarray(x, dtype=float)))
    p = U.shape[1]
    dom = np.argmax(np.abs(Fw[:, 1:p // 2 + 1]), axis=1) + 1
    out = []
    for k in freqs:
        sel = dom == k
        if not sel.any():
            out.append(np.nan)
            continue
        A = np.abs(Fu[sel, k]) * np.abs(Fv[sel, k]) * np.abs(Fw[sel, k])
        rho = np.angle(Fu[sel, k]) + np.angle(Fv[sel, k]) - np.angle(Fw[sel, k]) - np.angle(Fx[k])
        out.append(float(abs((A * np.sin(rho)).sum()) / A.sum()))
    return np.array(out)


def neuron_phase_residuals(U: np.ndarray, V: np.ndarray, W: np.ndarray, x: np.ndarray) -> dict[str, np.ndarray]:
    """Per-neuron phase residual of Theorem F.3 (stated for the utility *maximiser*; after cost
    minimisation only the weighted sum of :func:`phase_constraint` is constrained).

    Parameters
    ----------
    U, V, W : ndarray
        ``(H, p)`` the neurons.
    x : ndarray
        ``(p,)`` the template.

    Returns
    -------
    dict
        ``res (H,)`` = ``s_u + s_v − s_w − s_x`` wrapped to ``(−π, π]`` at each neuron's dominant frequency
        (of ``w_i``); ``share (H,)`` = that frequency's share of ``w_i``'s power; ``norm (H,)`` = ``‖w_i‖``.
    """
    U, V, W = (np.asarray(a, dtype=float) for a in (U, V, W))
    if U.ndim != 2 or U.shape != V.shape or U.shape != W.shape or U.shape[1] != len(x):
        raise ParameterError("neuron_phase_residuals needs U, V, W of one shape (H, p) with p = len(x)")
    Fu, Fv, Fw, Fx = (np.fft.fft(a, axis=-1) for a in (U, V, W, np.asarray(x, dtype=float)))
    p = U.shape[1]
    dom = np.argmax(np.abs(Fw[:, 1:p // 2 + 1]), axis=1) + 1
    i = np.arange(U.shape[0])
    rho = np.angle(Fu[i, dom]) + np.angle(Fv[i, dom]) - np.angle(Fw[i, dom]) - np.angle(Fx[dom])
    power = np.abs(np.fft.rfft(W, axis=1)) ** 2
    return dict(res=(rho + np.pi) % (2 * np.pi) - np.pi, share=power.max(1) / power.sum(1), norm=np.linalg.norm(W, axis=1))


def staircase_errors(time: np.ndarray, loss: np.ndarray, sv: np.ndarray, etas: np.ndarray, pred, K: int
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Largest relative errors of a batch of runs against one AGF staircase (Figure 4).

    Parameters
    ----------
    time : ndarray
        ``(T,)`` raw flow time.
    loss : ndarray
        ``(T, A, S)`` loss of ``S`` seeds at ``A`` initial scales.
    sv : ndarray
        ``(T, A, S, r)`` singular values of the end-to-end map.
    etas : ndarray
        ``(A,)`` the accelerations ``η_α``.
    pred : LinearAGF
        the prediction (``levels``, ``tau``, ``sv``: the predicted plateaus' spectra).
    K : int
        number of drops that count.

    Returns
    -------
    (np.ndarray, np.ndarray)
        ``(A, S)`` each: the largest relative error of the mid-level drop times against ``τ_1..τ_K``,
        and the larger of the plateau level and spectrum errors read between the run's own drops
        (:func:`plateaus_between_own_drops`).
    """
    A, S = loss.shape[1], loss.shape[2]
    et = np.full((A, S), np.nan)
    for ia, eta in enumerate(etas):
        t = time / eta
        for r in range(S):
            et[ia, r] = np.nanmax(relative_error(drop_times(t, loss[:, ia, r], pred.levels[:K + 1]), pred.tau[1:K + 1]))
    lev, spec = plateaus_between_own_drops(time, loss, sv, etas, pred, K)
    return et, np.maximum(lev, spec)


def plateaus_between_own_drops(time: np.ndarray, loss: np.ndarray, sv: np.ndarray, etas: np.ndarray, pred, K: int
                               ) -> tuple[np.ndarray, np.ndarray]:
    """Figure 4's plateaus read between each run's own drops: level and spectrum errors, apart.

    Each run's drops are its mid-level crossings of ``pred.levels[:K+1]`` on the accelerated clock; plateau
    ``k = 1..K−1`` is read over the middle half of ``[d_k, d_{k+1}]`` by :func:`lrlib.measure.plateau_between`
    (the median), for the loss and for each singular value of the end-to-end map alike.

    Parameters
    ----------
    time : ndarray
        ``(T,)`` raw flow time.
    loss : ndarray
        ``(T, A, S)`` loss of ``S`` seeds at ``A`` initial scales.
    sv : ndarray
        ``(T, A, S, r)`` singular values of the end-to-end map, descending.
    etas : ndarray
        ``(A,)`` the accelerations ``η_α``.
    pred : LinearAGF
        the prediction (``levels``; ``sv``: row ``k`` the predicted spectrum after jump ``k``).
    K : int
        number of drops that count.

    Returns
    -------
    (np.ndarray, np.ndarray)
        ``(A, S)`` each: the largest relative error of the plateau levels against ``ℓ₁..ℓ_{K−1}``, and the
        largest spectrum error ``max_{i ≤ k} |σ_i − σ^{(k)}_i| / σ^{(k)}_1`` over the plateaus (only the ``k``
        learned values count); ``nan`` where a drop is missing.
    """
    A, S = loss.shape[1], loss.shape[2]
    el, es = np.full((A, S), np.nan), np.full((A, S), np.nan)
    for ia, eta in enumerate(etas):
        t = time / eta
        for r in range(S):
            d = drop_times(t, loss[:, ia, r], pred.levels[:K + 1])
            lev = relative_error(plateau_between(t, loss[:, ia, r], d).level, pred.levels[1:K])
            med = np.stack([plateau_between(t, sv[:, ia, r, i], d).level for i in range(sv.shape[-1])], -1)
            err = [np.abs(med[k, :k + 1] - pred.sv[k + 1, :k + 1]).max() / pred.sv[k + 1, 0] for k in range(K - 1)]
            if np.isfinite(lev).all():
                el[ia, r] = lev.max()
            if np.isfinite(err).all():
                es[ia, r] = max(err)
    return el, es


def sign_flip_and_drops(time: np.ndarray, beta0: np.ndarray, dense_time: np.ndarray, dense_loss: np.ndarray,
                        pred, eta: float) -> tuple[float, float, np.ndarray]:
    """Figure 8's dormancy measurements for one run of a diagonal linear network.

    Parameters
    ----------
    time : ndarray
        ``(T,)`` raw time of the snapshots.
    beta0 : ndarray
        ``(T,)`` the first coefficient ``β₀`` at the snapshots.
    dense_time : ndarray
        ``(N,)`` raw time of every step.
    dense_loss : ndarray
        ``(N,)`` the loss at every step.
    pred : DLNResult
        the AGF prediction (``betas``, ``levels``).
    eta : float
        the acceleration ``η_α``.

    Returns
    -------
    (float, float, np.ndarray)
        1.0 if β₀ ends with the sign opposite to the one AGF first gives it (else 0.0); the accelerated
        time of its last sign change (nan if none); the mid-level drop times in accelerated time.
    """
    sc = np.flatnonzero(np.diff(np.sign(beta0)) != 0)
    t_flip = float(time[sc[-1] + 1] / eta) if len(sc) else float("nan")
    opposite = float(np.sign(beta0[-1]) == -np.sign(pred.betas[1, 0]))
    return opposite, t_flip, drop_times(dense_time, dense_loss, pred.levels) / eta


def utility_update_error(neurons: np.ndarray, X: np.ndarray, R: np.ndarray, x: np.ndarray, xi: int) -> float:
    """Lemma F.6's check: how far the utility against a residual is from Lemma F.2's form for the
    template with its ``±xi`` harmonic removed.

    Parameters
    ----------
    neurons : ndarray
        ``(K, 3, p)`` unit neurons ``(u, v, w)``.
    X : ndarray
        ``(p², 2p)`` inputs of :func:`lrlib.theory.agf.modular.dataset`.
    R : ndarray
        ``(p², p)`` residual ``y − f`` of the network after the cost step.
    x : ndarray
        ``(p,)`` the template.
    xi : int
        the removed frequency.

    Returns
    -------
    float
        ``max_k |U_R(θ_k) − U_F2(θ_k; x − x_ξ)| / max_k |U_F2(θ_k; x)|`` (dimensionless).
    """
    u, v, w = neurons[:, 0], neurons[:, 1], neurons[:, 2]
    direct = modular.residual_utility(u, v, w, X, R)
    x_rest = modular.without_frequency(x, xi)
    removed = np.array([modular.fourier_utility(*n, x_rest) for n in neurons])
    full = np.array([modular.fourier_utility(*n, x) for n in neurons])
    return float(np.max(np.abs(direct - removed)) / np.max(np.abs(full)))


def frequency_order(time: np.ndarray, power: np.ndarray, pred) -> list[int]:
    """Frequencies in the order in which the output power first reaches half its target.

    Parameters
    ----------
    time : ndarray
        ``(T,)`` times.
    power : ndarray
        ``(T, p//2+1)`` output power per frequency (:func:`lrlib.theory.agf.modular.output_power`).
    pred : ModularAGF
        the :class:`lrlib.theory.agf.modular.ModularAGF` (``order``, ``amps``).

    Returns
    -------
    list[int]
    """
    return [pred.order[i] for i in activation_order(time, power[:, pred.order], pred.amps)]
