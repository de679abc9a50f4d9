"""The chapter's claim measurements: one function per claim, applied by the ledger to the main runs,
the control runs and the initial state alike (:meth:`lrlib.ledger.grading.Ledger.measure`).

Conventions
-----------
A *DLN sweep* (:class:`DLNSweep`) holds gradient-flow loss curves of diagonal linear networks over
seeds ``S`` (each seed its own data) and initialisation scales ``A``, on one grid of raw flow times
``(T,)``; ``time_scale`` is the factor by which the flow's clock was sped up (1: the flow of the
loss itself; a control run uses another). Every measurement reads the curves against closed-form
AGF at the *same* ``α`` (:func:`lrlib.theory.agf.measure.dln_vs_agf`) on the accelerated clock
``t/η_α`` of the unperturbed flow, and returns arrays of shape ``(S,)``.

The flow itself is :func:`dln_flow_reduced`: the gradient flow of ``½ mean (Xβ − y)²`` in
``(u, v)`` from ``u = √2α``, ``v = 0`` reduced by the conserved ``u² − v² = 2α²`` (Lemma C.2) to
``z = asinh(β/α²)``, ``dz/dt = −2 g(β)``, which reaches ``α = 1e-100`` without tiny numbers and is
integrated by an implicit method (the converged coordinates are stiff).

The modular-addition measurements (:func:`cost_step_frac`, :func:`utility_update`,
:func:`width_outcome`) read square-activation networks on the dataset of
:func:`lrlib.theory.agf.modular.dataset`, batched over runs ``R`` (groups or seeds).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
from scipy.integrate import solve_ivp

from ...errors import ParameterError
from ...ledger.trend import trend_stats
from ...losses import half_mse
from ...models import TwoLayer, forward
from ...measure import drop_times, first_crossing, plateau_between, relative_error
from . import dln, modular
from .claims_modular import sequential_order
from .measure import (activation_order, dln_vs_agf, frequency_order, plateaus_between_own_drops,
                      sign_flip_and_drops, staircase_errors, utility_update_error)


def _beta(z: np.ndarray, log_a2: float) -> np.ndarray:
    """``α² sinh z`` without overflow (``log_a2 = log α²``)."""
    return np.sign(z) * 0.5 * (np.exp(np.abs(z) + log_a2) - np.exp(-np.abs(z) + log_a2))


def dln_flow_reduced(X: np.ndarray, y: np.ndarray, alpha: float, times: np.ndarray, *, time_scale: float = 1.0,
                     rtol: float = 1e-10, atol: float = 1e-12) -> tuple[np.ndarray, np.ndarray]:
    """Gradient flow of a diagonal linear network from ``u = √2α``, ``v = 0``, in ``z = asinh(β/α²)``.

    With ``u² − v² = 2α²`` conserved, ``dβ/dt = −(u² + v²) g = −2 g √(α⁴ + β²)``, ``g = Xᵀ(Xβ − y)/n``,
    so ``dz/dt = −2 g`` exactly. Integrated by Radau with the closed-form Jacobian.

    Parameters
    ----------
    X : ndarray
        ``(n, d)`` inputs.
    y : ndarray
        ``(n,)`` targets.
    alpha : float
        the initialisation scale (any positive float; ``α² > 1e-300``).
    times : ndarray
        ``(T,)`` increasing raw flow times to record.
    time_scale : float, optional
        the flow's clock is sped up by this factor (the flow of ``time_scale · L``).
    rtol, atol : float, optional
        the integrator's tolerances (on ``z``, whose scale is ``log(1/α²)``).

    Returns
    -------
    (np.ndarray, np.ndarray)
        ``β (T, d)`` and the loss ``½ mean (Xβ − y)²`` ``(T,)``.

    Raises
    ------
    ParameterError
        When ``alpha`` is not positive or the integrator fails.
    """
    if not alpha > 0:
        raise ParameterError(f"alpha must be positive, got {alpha!r}")
    X, y = np.asarray(X, float), np.asarray(y, float)
    n = X.shape[0]
    H, b = X.T @ X / n, X.T @ y / n
    log_a2 = 2 * math.log(alpha)

    def rhs(_, z):
        return -2 * time_scale * (H @ _beta(z, log_a2) - b)

    def jac(_, z):
        return -2 * time_scale * H * (0.5 * (np.exp(np.abs(z) + log_a2) + np.exp(-np.abs(z) + log_a2)))[None, :]

    times = np.asarray(times, float)
    with np.errstate(over="ignore", invalid="ignore"):      # Radau's trial steps may overshoot
        sol = solve_ivp(rhs, (0.0, float(times[-1])), np.zeros(X.shape[1]), method="Radau", t_eval=times,
                        rtol=rtol, atol=atol, jac=jac)
    if not sol.success:
        raise ParameterError(f"dln_flow_reduced: the integrator failed ({sol.message})")
    beta = _beta(sol.y.T, log_a2)
    return beta, 0.5 * np.mean((beta @ X.T - y) ** 2, axis=-1)


@dataclass(frozen=True)
class DLNSweep:
    """Gradient-flow loss curves of diagonal linear networks over seeds and initialisation scales.

    Parameters
    ----------
    X : ndarray
        ``(S, n, d)`` each seed's inputs.
    y : ndarray
        ``(S, n)`` each seed's targets.
    alphas : ndarray
        ``(A,)`` the initialisation scales, shallow to deep.
    time : ndarray
        ``(A, T)`` raw flow time of the records, per ``α``.
    loss : ndarray
        ``(S, A, T)`` the loss curves.
    beta : ndarray
        ``(S, A, T, d)`` the coefficients.
    time_scale : float, optional
        the factor by which the flow's clock was sped up (1: the flow itself).
    """

    X: np.ndarray
    y: np.ndarray
    alphas: np.ndarray
    time: np.ndarray
    loss: np.ndarray
    beta: np.ndarray
    time_scale: float = 1.0

    @property
    def etas(self) -> np.ndarray:
        """``η_α = −log(√2α)`` per ``α`` ``(A,)``."""
        return np.array([dln.eta_alpha(a) for a in self.alphas])


def dln_sweep(data, alphas, *, time_scale: float = 1.0, n_grid: int = 1001, past: float = 1.25) -> DLNSweep:
    """Integrate :func:`dln_flow_reduced` for every seed's data and every ``α``.

    The records of each ``α`` lie on ``η_α`` times one accelerated grid: ``n_grid`` uniform points
    and ``n_grid`` geometric points (from a twentieth of AGF's first jump) up to ``past`` times
    AGF's last jump at ``α → 0``, so that early drops are resolved as finely as late ones.

    Parameters
    ----------
    data : array_like
        sequence of ``(X (n, d), y (n,))``, one per seed.
    alphas : array_like
        ``(A,)`` initialisation scales.
    time_scale : float, optional
        see :func:`dln_flow_reduced` (a control run perturbs it).
    n_grid : int, optional
        points of each half of the accelerated grid.
    past : float, optional
        the grid's end over AGF's last jump time.

    Returns
    -------
    DLNSweep
    """
    alphas = np.asarray(alphas, float)
    X = np.stack([np.asarray(d[0], float) for d in data])
    y = np.stack([np.asarray(d[1], float) for d in data])
    time = dln_grid(data, alphas, n_grid=n_grid, past=past)
    runs = [[dln_flow_reduced(Xs, ys, a, time[j], time_scale=time_scale) for j, a in enumerate(alphas)]
            for Xs, ys in zip(X, y)]
    beta = np.array([[r[0] for r in row] for row in runs])
    loss = np.array([[r[1] for r in row] for row in runs])
    return DLNSweep(X, y, alphas, time, loss, beta, time_scale)


def sweep_errors(sw: DLNSweep) -> tuple[np.ndarray, np.ndarray]:
    """Largest relative drop-time and plateau-level errors against AGF at the same ``α``.

    Parameters
    ----------
    sw : DLNSweep
        the sweep (module conventions).

    Returns
    -------
    (np.ndarray, np.ndarray)
        ``(S, A)`` each; the drop-time error is ``inf`` where a drop did not happen within the run (beyond
        every threshold), the level error ``nan`` where no plateau was measured.
    """
    e = np.full(sw.loss.shape[:2], np.nan)
    lv = np.full(sw.loss.shape[:2], np.nan)
    for i in range(sw.loss.shape[0]):
        for j, a in enumerate(sw.alphas):
            _, _, et, el = dln_vs_agf(sw.X[i], sw.y[i], a, sw.time[j], sw.loss[i, j])
            e[i, j] = np.inf if np.isnan(et).any() else np.max(et)         # a missing drop: inf
            lv[i, j] = np.max(el) if len(el) and not np.isnan(el).all() else np.nan
    return e, lv


def drop_time_trend(sw: DLNSweep) -> dict[str, np.ndarray]:
    """How the flow's drop-time error against AGF shrinks as ``α → 0`` (claim ``fig3.drop-times``).

    Parameters
    ----------
    sw : DLNSweep
        the sweep (module conventions), at least two ``α``.

    Returns
    -------
    dict of str to np.ndarray
        :func:`lrlib.ledger.trend.trend_stats` of the largest relative drop-time error ``(S, A)``
        against the scale ``1/η_α`` (slope fitted over the three deepest ``α``): ``mono``,
        ``slope``, ``shrink``, ``decades``, each ``(S,)``; ``npts``, the number of ``α`` with a finite
        error (a missing drop is ``inf``, which trend_stats leaves out); ``c_deep``, the error × ``η_α`` at
        the deepest ``α`` (the constant of the ``1/η_α`` rate, shown, not graded); and ``stab``, max/min of the
        error × ``η_α`` over the three deepest ``α`` (:func:`rate_stability`).
    """
    e, _ = sweep_errors(sw)
    out = trend_stats(1 / sw.etas, e, fit_last=3)
    out["npts"] = np.isfinite(e).sum(axis=1).astype(float)
    out["c_deep"] = e[:, -1] * sw.etas[-1]
    out["stab"] = rate_stability(e, sw.etas)
    return out


def rate_stability(e: np.ndarray, etas: np.ndarray, last: int = 3) -> np.ndarray:
    """How far the rate's constant ``e × η_α`` moves over the deepest ``α`` (``fig3.drop-times``' ``stab``).

    Parameters
    ----------
    e : ndarray
        ``(S, A)`` relative errors, ``α`` in the order of ``etas``.
    etas : ndarray
        ``(A,)`` ``η_α`` (dimensionless), increasing towards the limit.
    last : int, optional
        how many of the deepest ``α`` are compared.

    Returns
    -------
    ndarray
        ``(S,)`` max/min of ``e × η_α`` over the ``last`` largest ``η_α`` (1: a constant exactly stable; ``inf``
        or ``nan`` where an error there is missing or zero).
    """
    order = np.argsort(np.asarray(etas, float))[-last:]
    c = np.asarray(e, float)[:, order] * np.asarray(etas, float)[order]
    with np.errstate(divide="ignore", invalid="ignore"):
        return c.max(axis=1) / c.min(axis=1)


# ---------------------------------------------------------------------------------------------
# modular addition: cost step and width (Thm F.7, Lemma F.6, H ≥ 3p)

def cost_step_frac(net: TwoLayer, *, X: torch.Tensor, Y: torch.Tensor, pred) -> dict[str, np.ndarray]:
    """The share of the dominant frequency's component a group leaves unlearned (claim ``thmF7.cost-step``).

    Parameters
    ----------
    net : TwoLayer
        the square-activation networks ``(R, ...)`` (the groups at the end of their descent, or at its start).
    X, Y : Tensor
        ``(p², 2p)`` inputs and ``(p², p)`` targets of :func:`lrlib.theory.agf.modular.dataset`.
    pred : ModularAGF
        the :class:`~lrlib.theory.agf.modular.ModularAGF` of the template (``levels``).

    Returns
    -------
    dict of str to np.ndarray
        ``frac`` ``(R,)``: ``(L − ℓ^{(1)})/(ℓ^{(0)} − ℓ^{(1)})`` with ``L = ½ mean ‖f(x) − y‖²`` (``half_mse``).
    """
    L = half_mse()(forward(net, X), Y).detach().numpy()
    return {"frac": (L - pred.levels[1]) / (pred.levels[0] - pred.levels[1])}


def utility_update(net: TwoLayer, *, X: torch.Tensor, Y: torch.Tensor, template: np.ndarray, xi: int,
                   neurons: np.ndarray) -> dict[str, np.ndarray]:
    """Lemma F.6's check on each group's residual (claim ``lemmaF6.utility-update``).

    Parameters
    ----------
    net : TwoLayer
        the square-activation networks ``(R, ...)``.
    X, Y : Tensor
        as for :func:`cost_step_frac`.
    template : ndarray
        ``(p,)`` the template ``x``.
    xi : int
        the dominant frequency removed.
    neurons : ndarray
        ``(R, K, 3, p)`` unit test neurons per run.

    Returns
    -------
    dict of str to np.ndarray
        ``util_err`` ``(R,)`` (:func:`lrlib.theory.agf.measure.utility_update_error`).
    """
    R = (Y - forward(net, X)).detach().numpy()
    Xn = X.numpy()
    return {"util_err": np.array([utility_update_error(neurons[r], Xn, R[r], template, xi) for r in range(R.shape[0])])}


def width_outcome(run, *, X: torch.Tensor, pred) -> dict[str, np.ndarray]:
    """Does a trained quadratic network learn every frequency, in order, to zero loss (claim ``H3p.all-frequencies``)?

    Parameters
    ----------
    run : array_like
        a :class:`~lrlib.trajectory.Trajectory` of square-activation networks ``(T, S, ...)``.
    X : Tensor
        ``(p², 2p)`` inputs of :func:`lrlib.theory.agf.modular.dataset`.
    pred : ModularAGF
        the :class:`~lrlib.theory.agf.modular.ModularAGF` of the template (``levels``, ``order``).

    Returns
    -------
    dict of str to np.ndarray
        ``fin`` — final loss over ``ℓ^{(0)}``; ``match`` — 1 if the order in which the output power of
        each frequency first reaches half its target is AGF's; each ``(S,)``.
    """
    orders = width_orders(run, X=X, pred=pred)
    return {"fin": run.loss[-1].numpy() / pred.levels[0],
            "match": np.array([o == list(pred.order) for o in orders], dtype=float)}


def width_orders(run, *, X: torch.Tensor, pred) -> list[list[int]]:
    """The order in which each seed's network learns the frequencies (output power at half its target).

    Parameters
    ----------
    run, X, pred : object / Tensor
        as for :func:`width_outcome`.

    Returns
    -------
    list of list of int
        One order per seed (frequencies never learned are left out).
    """
    p = X.shape[1] // 2
    power = modular.output_power(forward(run.params, X), p).numpy()                 # (T, S, p//2+1)
    return [frequency_order(run.steps, power[:, s], pred) for s in range(power.shape[1])]


# ---------------------------------------------------------------------------------------------
# control runs without saddle-to-saddle dynamics, plateaus between the flow's own drops, ratios
# (diagonal and fully connected linear networks, App. B.4)

def dln_grid(data, alphas, *, n_grid: int = 1001, past: float = 1.25) -> np.ndarray:
    """The raw flow times of :func:`dln_sweep`'s records: ``η_α`` times one accelerated grid.

    Parameters
    ----------
    data, alphas, n_grid, past : object / int, optional / float, optional
        as for :func:`dln_sweep`.

    Returns
    -------
    np.ndarray
        ``(A, T)`` raw flow times per ``α``.
    """
    taus = [dln.agf(np.asarray(X, float), np.asarray(y, float), 1e-100).tau for X, y in data]
    end = past * max(t[-1] for t in taus)
    first = min(t[1] for t in taus)
    s = np.unique(np.concatenate([np.linspace(0.0, end, n_grid), np.geomspace(first / 20, end, n_grid)]))
    return np.stack([dln.eta_alpha(a) * s for a in np.asarray(alphas, float)])


def linear_model_sweep(data, alphas, *, n_grid: int = 1001, past: float = 1.25) -> DLNSweep:
    """The plain linear model ``β̇ = −∇L(β)`` from ``β = 0`` on the records of :func:`dln_sweep` (a control run).

    ``L = ½ mean (Xβ − y)²``, so ``β(t) = Q diag((1 − e^{−λt})/λ) Qᵀ b`` with ``H = XᵀX/n = QΛQᵀ`` and
    ``b = Xᵀy/n``: every coordinate is learned at once, on the time scale of ``H``, whatever ``α`` (which
    only sets the accelerated clock ``t/η_α`` the measurements read it on). No plateaus, no order.

    Parameters
    ----------
    data, alphas, n_grid, past : object / int, optional / float, optional
        as for :func:`dln_sweep`.

    Returns
    -------
    DLNSweep
        ``beta (S, A, T, d)`` and ``loss (S, A, T)`` of the linear model; ``time_scale`` 1.
    """
    alphas = np.asarray(alphas, float)
    X = np.stack([np.asarray(d[0], float) for d in data])
    y = np.stack([np.asarray(d[1], float) for d in data])
    time = dln_grid(data, alphas, n_grid=n_grid, past=past)
    n = X.shape[1]
    betas = []
    for Xs, ys in zip(X, y):
        lam, Q = np.linalg.eigh(Xs.T @ Xs / n)
        c = Q.T @ (Xs.T @ ys / n)
        lt = lam[None, None, :] * time[:, :, None]                                  # (A, T, d)
        gain = np.where(lam > 1e-14, -np.expm1(-lt) / np.where(lam > 1e-14, lam, 1.0), time[:, :, None])
        betas.append((gain * c) @ Q.T)
    beta = np.array(betas)                                                           # (S, A, T, d)
    loss = 0.5 * np.mean((np.einsum("satd,snd->satn", beta, X) - y[:, None, None, :]) ** 2, axis=-1)
    return DLNSweep(X, y, alphas, time, loss, beta, 1.0)


def _worst_ratio(drops: np.ndarray, tau: np.ndarray) -> float:
    """The ratio ``d_k/τ_k`` of the drop farthest from its prediction (``nan`` if any drop is missing)."""
    r = np.asarray(drops, float) / np.asarray(tau, float)
    return float(r[np.argmax(np.abs(r - 1))]) if np.isfinite(r).all() else np.nan


def sweep_ratios(sw: DLNSweep) -> np.ndarray:
    """The ratio of the flow's drop time to AGF's, for the drop with the largest relative error.

    ``|ratio − 1|`` is :func:`sweep_errors`' drop-time error; a clock sped up by ``c`` divides the ratio by ``c``
    (so the fast clock is a declared sensitivity of a rule on the ratio, not a control run).

    Parameters
    ----------
    sw : DLNSweep
        the sweep (module conventions).

    Returns
    -------
    np.ndarray
        ``(S, A)``; ``nan`` where a drop is missing.
    """
    out = np.full(sw.loss.shape[:2], np.nan)
    for i in range(sw.loss.shape[0]):
        for j, a in enumerate(sw.alphas):
            pred = dln.agf(sw.X[i], sw.y[i], a)
            out[i, j] = _worst_ratio(drop_times(sw.time[j] / dln.eta_alpha(a), sw.loss[i, j], pred.levels), pred.tau[1:])
    return out


def finite_alpha_ratios(sw: DLNSweep) -> dict[str, np.ndarray]:
    """Drop-time ratios at the three shallowest ``α`` with their ``η_α`` (claim ``fig3.drop-times-finite``).

    Parameters
    ----------
    sw : DLNSweep
        the sweep (module conventions); its first three ``α`` are read (1e-4, 1e-8, 1e-16 in the chapter).

    Returns
    -------
    dict of str to np.ndarray
        ``r4, r8, r16`` (:func:`sweep_ratios`), each ``(S,)``; ``eta4, eta8, eta16`` (scalars).
    """
    r = sweep_ratios(sw)
    return {k: v for j, s in enumerate(("4", "8", "16")) for k, v in (("r" + s, r[:, j]), ("eta" + s, float(sw.etas[j])))}


def deep_drop_ratio(sw: DLNSweep) -> dict[str, np.ndarray]:
    """The worst drop-time ratio at the sweep's deepest ``α`` (claim ``fig8.drop-times``).

    Parameters
    ----------
    sw : DLNSweep
        the sweep (module conventions).

    Returns
    -------
    dict of str to np.ndarray
        ``r`` (:func:`sweep_ratios`) and ``eta`` (``η_α``), each ``(S,)``.
    """
    r = sweep_ratios(sw)[:, -1]
    return {"r": r, "eta": np.full(r.shape, sw.etas[-1])}


def dormancy_ratio(sw: DLNSweep) -> dict[str, np.ndarray]:
    """Return to dormancy (claim ``fig8.dormancy``): does ``β₀`` flip sign at AGF's midpoint?

    Read at the sweep's deepest ``α``: ``β₀``'s last sign change in accelerated time ``t/η_α`` against
    AGF's ``(τ₂ + τ₃)/2`` at the same ``α``.

    Parameters
    ----------
    sw : DLNSweep
        the sweep (module conventions), data with AGF's dormancy (≥ 3 jumps).

    Returns
    -------
    dict of str to np.ndarray
        ``opposite`` — 1 if ``β₀`` ends with the sign opposite to its first AGF value; ``flip`` — ``t_flip/mid``
        (``inf`` when ``β₀`` never changes sign, ``nan`` when AGF predicts fewer than three jumps); ``eta`` —
        ``η_α``; each ``(S,)``.
    """
    a, eta = sw.alphas[-1], sw.etas[-1]
    opp, flips = [], []
    for i in range(sw.loss.shape[0]):
        pred = dln.agf(sw.X[i], sw.y[i], a)
        b0 = sw.beta[i, -1, :, 0]
        nz = b0 != 0                                  # β₀ starts at exactly 0: that is no sign change
        o, t_flip, _ = sign_flip_and_drops(sw.time[-1][nz], b0[nz], sw.time[-1], sw.loss[i, -1], pred, eta)
        mid = 0.5 * (pred.tau[2] + pred.tau[3]) if len(pred.tau) > 3 else np.nan
        opp.append(o)
        flips.append(np.inf if np.isnan(t_flip) and np.isfinite(mid) else t_flip / mid)
    return {"opposite": np.array(opp), "flip": np.array(flips), "eta": np.full(len(opp), eta)}


def plateau_levels(sw: DLNSweep) -> dict[str, np.ndarray]:
    """The flow's plateaus read between its own drops, at the sweep's deepest ``α`` (claim ``fig3.levels``).

    Each plateau ``k`` is the median loss over the middle half of the interval between the flow's own
    mid-level drops ``d_k, d_{k+1}`` (:func:`lrlib.measure.plateau_between`, the book's one reading of a
    plateau), compared with AGF's ``ℓ_k`` at the same ``α``: a reading that cannot fall inside a transition,
    however short the plateau.

    Parameters
    ----------
    sw : DLNSweep
        the sweep (module conventions).

    Returns
    -------
    dict of str to np.ndarray
        ``lev`` — the largest relative level error (``nan`` if a drop is missing); ``eta`` — ``η_α``; each ``(S,)``.
    """
    a, eta = sw.alphas[-1], sw.etas[-1]
    lev = []
    for i in range(sw.loss.shape[0]):
        pred = dln.agf(sw.X[i], sw.y[i], a)
        t = sw.time[-1] / eta
        d = drop_times(t, sw.loss[i, -1], pred.levels)
        lev.append(float(np.max(relative_error(plateau_between(t, sw.loss[i, -1], d).level, pred.levels[1:-1]))))
    return {"lev": np.array(lev), "eta": np.full(len(lev), eta)}


def order_onset(sw: DLNSweep, *, index: int = 2) -> dict[str, np.ndarray]:
    """Are the coordinates learned one at a time in AGF's order (claim ``fig3.order``)?

    Parameters
    ----------
    sw : DLNSweep
        the sweep (module conventions).
    index : int, optional
        the ``α`` read (2: ``1e-16`` in the chapter).

    Returns
    -------
    dict of str to np.ndarray
        ``match`` — 1 if the order in which ``|β_i|`` first reach half their AGF final values equals AGF's
        activation order; ``onset`` — the accelerated time at which the first coordinate reaches half its
        final value over AGF's first jump time ``τ_1`` (≈ 1 for a flow that waits on the saddle, ≪ 1 for a
        model that learns every coordinate at once); ``overlap`` — how far the next coordinate in AGF's order
        has got (``|β|`` over its AGF final value) when the previous one reaches half its final value, the
        largest over the sequence (:func:`~lrlib.theory.agf.claims_modular.sequential_order`; 0 for
        one-at-a-time learning, ``inf`` if undefined); each ``(S,)``.
    """
    a, eta = sw.alphas[index], sw.etas[index]
    match, onset, overlap = [], [], []
    for i in range(sw.loss.shape[0]):
        pred = dln.agf(sw.X[i], sw.y[i], a)
        t = sw.time[index] / eta
        order = activation_order(t, sw.beta[i, index], pred.betas[-1])
        match.append(float(order == sum(pred.order, [])))
        hits = [first_crossing(t, np.abs(sw.beta[i, index, :, k]), 0.5 * abs(b), below=False)
                for k, b in enumerate(pred.betas[-1]) if abs(b) > 0]
        onset.append(np.nanmin(hits) / pred.tau[1] if np.isfinite(hits).any() else np.inf)
        seq = [k for k in dict.fromkeys(sum(pred.order, [])) if abs(pred.betas[-1][k]) > 0]
        ov = sequential_order(t, sw.beta[i, index][:, seq], pred.betas[-1][seq])[1]
        overlap.append(ov if np.isfinite(ov) else np.inf)
    return {"match": np.array(match), "onset": np.array(onset), "overlap": np.array(overlap)}


@dataclass(frozen=True)
class FCSweep:
    """Loss curves and spectra of fully connected linear networks over initialisation scales and seeds (Figure 4).

    Parameters
    ----------
    time : ndarray
        ``(T,)`` raw flow time.
    loss : ndarray
        ``(T, A, S)`` the loss.
    sv : ndarray
        ``(T, A, S, r)`` singular values of the end-to-end map ``AW``.
    alphas : ndarray
        ``(A,)`` the initialisation scales (``η_α = −log α``).
    """

    time: np.ndarray
    loss: np.ndarray
    sv: np.ndarray
    alphas: np.ndarray

    @property
    def etas(self) -> np.ndarray:
        """``η_α = −log α`` ``(A,)``."""
        return -np.log(np.asarray(self.alphas, float))


def fc_linear_model(Sxx: np.ndarray, B: np.ndarray, time: np.ndarray, alphas, n_seeds: int) -> FCSweep:
    """The plain linear model ``β̇ = −∇L(β)`` from ``β = 0`` (population loss of Figure 4), as an :class:`FCSweep`.

    ``L(β) = ½ tr((β − B)Σ_xx(β − B)ᵀ)``, so ``β(t) = B(I − e^{−Σ_xx t})``: every direction is learned at once,
    on the time scale of ``Σ_xx``. The same curve is recorded for every ``α`` and seed (``α`` only sets the
    clock ``t/η_α`` it is read on).

    Parameters
    ----------
    Sxx : ndarray
        ``(d, d)`` input covariance.
    B : ndarray
        ``(c, d)`` the target map.
    time : ndarray
        ``(T,)`` raw flow times.
    alphas : array_like
        ``(A,)`` the scales whose clocks the measurements use.
    n_seeds : int
        ``S``.

    Returns
    -------
    FCSweep
    """
    lam, Q = np.linalg.eigh(np.asarray(Sxx, float))
    time = np.asarray(time, float)
    E = np.einsum("ij,tj,kj->tik", Q, np.exp(-lam[None, :] * time[:, None]), Q)      # e^{−Σt} (T, d, d)
    R = -np.asarray(B, float) @ E                                                       # β − B (T, c, d)
    loss = 0.5 * np.einsum("tcd,de,tce->t", R, Sxx, R)
    sv = np.linalg.svd(R + B, compute_uv=False)                                         # (T, r)
    A = len(alphas)
    return FCSweep(time, np.broadcast_to(loss[:, None, None], (len(time), A, n_seeds)).copy(),
                   np.broadcast_to(sv[:, None, None, :], (len(time), A, n_seeds, sv.shape[-1])).copy(),
                   np.asarray(alphas, float))


def fc_time_trend(run: FCSweep, *, pred, K: int) -> dict[str, np.ndarray]:
    """How Figure 4's drop-time error against Conjecture 4.1 shrinks as ``α → 0`` (claims ``fig4.times-*``).

    Parameters
    ----------
    run : FCSweep
        the sweep (one variant).
    pred : LinearAGF
        the conjecture's prediction (:func:`lrlib.theory.agf.linear.conjecture`).
    K : int
        the drops graded (those predicted inside the integration window).

    Returns
    -------
    dict of str to np.ndarray
        :func:`lrlib.ledger.trend.trend_stats` of the largest relative drop-time error ``(S, A)`` against
        ``1/η_α`` (``mono``, ``slope`` over the three deepest ``α``, ``shrink``, ``decades``) and ``c_deep``, the error × ``η_α``
        at the deepest ``α`` (shown); each ``(S,)``.
    """
    et, _ = staircase_errors(run.time, run.loss, run.sv, run.etas, pred, K)          # (A, S)
    out = trend_stats(1 / run.etas, et.T, fit_last=3)
    out["c_deep"] = et[np.argmax(run.etas)] * run.etas.max()
    return out


def _at_graded_alphas(run: FCSweep, err: np.ndarray, name: str) -> dict[str, np.ndarray]:
    """``err`` ``(A, S)`` at ``α = 1e-6`` and ``1e-12`` as ``<name>6, <name>12``, with ``eta6, eta12``."""
    out = {}
    for a, k in ((1e-6, "6"), (1e-12, "12")):
        j = int(np.argmin(np.abs(np.log(run.alphas) - math.log(a))))
        out[name + k], out["eta" + k] = err[j], float(run.etas[j])
    return out


def fc_level_errors(run: FCSweep, *, pred, K: int) -> dict[str, np.ndarray]:
    """Figure 4's plateau levels at ``α = 1e-6`` and ``1e-12`` (claims ``fig4.levels-*``).

    Parameters
    ----------
    run : FCSweep
        the sweep (one variant), containing ``α = 1e-6`` and ``1e-12``.
    pred, K : object / int
        as for :func:`fc_time_trend`.

    Returns
    -------
    dict of str to np.ndarray
        ``l6, l12`` — largest relative error of the plateau levels read between the run's own drops
        (:func:`lrlib.theory.agf.measure.plateaus_between_own_drops`), each ``(S,)``; ``eta6, eta12`` (scalars).
    """
    el, _ = plateaus_between_own_drops(run.time, run.loss, run.sv, run.etas, pred, K)
    return _at_graded_alphas(run, el, "l")


def fc_spectrum_errors(run: FCSweep, *, pred, K: int) -> dict[str, np.ndarray]:
    """Figure 4's plateau spectra at ``α = 1e-6`` and ``1e-12`` (claims ``fig4.spectra-*``).

    Parameters
    ----------
    run, pred, K : FCSweep / object / int
        as for :func:`fc_level_errors`.

    Returns
    -------
    dict of str to np.ndarray
        ``s6, s12`` — largest spectrum error of the plateaus read between the run's own drops
        (:func:`lrlib.theory.agf.measure.plateaus_between_own_drops`), each ``(S,)``; ``eta6, eta12`` (scalars).
    """
    _, es = plateaus_between_own_drops(run.time, run.loss, run.sv, run.etas, pred, K)
    return _at_graded_alphas(run, es, "s")


@dataclass(frozen=True)
class AlignSweep:
    """App. B.4's alignment fractions (:func:`lrlib.theory.agf.measure.align_fractions`) over a sweep of ``α``.

    Parameters
    ----------
    alphas : ndarray
        ``(A,)`` initial norms, shallow to deep.
    frac : ndarray
        ``(A, S)`` the fraction of the time to norm 1 spent far from the final direction, per seed.
    """

    alphas: np.ndarray
    frac: np.ndarray


def align_trend(sw: AlignSweep) -> dict[str, np.ndarray]:
    """Does alignment become instantaneous in accelerated time as ``α → 0`` (claims ``B4.*``)?

    Parameters
    ----------
    sw : AlignSweep
        the sweep.

    Returns
    -------
    dict of str to np.ndarray
        :func:`lrlib.ledger.trend.trend_stats` of the fraction against ``1/log(1/α)`` (slope over the three
        deepest ``α``): ``mono``, ``slope``, ``shrink``, ``decades``; ``mono8``, ``shrink8`` — the same
        over ``α ≤ 1e-8`` only (the shallowest point, where the fraction is capped near 1, left out); ``ratio`` —
        the fraction at the deepest ``α`` over that at the shallowest (shown); each ``(S,)``.
    """
    f = np.asarray(sw.frac, float)
    a = np.asarray(sw.alphas, float)
    out = trend_stats(1 / np.log(1 / a), f.T, fit_last=3)
    deep = a <= 1e-8
    d8 = trend_stats(1 / np.log(1 / a[deep]), f[deep].T, fit_last=3)
    out["mono8"], out["shrink8"] = d8["mono"], d8["shrink"]
    out["ratio"] = f[-1] / f[0]
    return out


#: The chapter's "what holds" summary (:func:`lrlib.ledger.summary.glue_what_holds`): each of the paper's main
#: statements, in a few words, and the claims that grade it.
WHAT_HOLDS = [
    ("AGF's closed forms and its general algorithm: utility maximisers, conserved quantities, the scaling "
     "symmetry (exact identities)",
     ["lemma.C1-C3-C5", "thm.B2-scaling", "B3.inequality", "B3.conserved", "lemma.D1", "lemma.D1-stiefel",
      "lemma.E1", "lemma.F2-thm.F3", "alg.general-vs-closed", "thm.agf-to-pf"]),
    ("Diagonal linear networks (Fig. 3): the flow's drop times converge to AGF's as α → 0, an instance of "
     "Pesme–Flammarion's theorem (a consistency check); the error falls like 1/log(1/α) — our rate, not the "
     "paper's — with a constant stable over the deepest α but different from draw to draw (c_deep in the "
     "ledger); the coordinates switch on one at a time; plateaus near AGF's levels (a consistency check)",
     ["fig3.drop-times", "fig3.order", "fig3.levels"]),
    ("Return to dormancy (Fig. 8), at one α: a coordinate's sign flips near the time AGF gives (halfway between "
     "τ₂ and τ₃, where its accumulated utility returns to 0 — the utility itself is not graded) and it "
     "reactivates with the opposite sign", ["fig8.dormancy", "fig8.drop-times"]),
    ("Alignment in accelerated time (App. B.4): the κ = 2 alignment fraction falls like 1/log(1/α); a "
     "neuron-wise rate makes κ = 3 align as fast (a consistency check). Plain κ = 3 staying put is the "
     "control, not a grade of the paper's 'only if'",
     ["B4.alignment", "B4.adaptive-rate"]),
    ("Fully connected linear networks (Fig. 4, Conjecture 4.1): the flow's drop times approach the "
     "recursion's as α → 0 (consistency checks: the trend of the main run, no control that can fail), the "
     "plateaus sit on its levels, commuting (proved) and non-commuting (open); the plateau spectra match "
     "in the commuting case only",
     ["fig4.times-commuting", "fig4.times-non-commuting", "fig4.levels-commuting", "fig4.levels-non-commuting",
      "fig4.spectra-commuting", "fig4.spectra-non-commuting"]),
    ("Linear transformer (Fig. 5): heads learn the eigenvectors one at a time, on Eq. 7's levels, no earlier "
     "than the jump bound", ["fig5.order", "fig5.levels", "fig5.jump-bound"]),
    ("Modular addition (Fig. 6): frequencies learned one at a time in decreasing amplitude; Eq. 9's levels "
     "(graded only in the seeds whose plateaus are flat: the others are premise not met); AGF's drop times "
     "within tolerance in some seeds only; the lower bounds; the phase constraint",
     ["fig6.order", "fig6.levels", "fig6.agf-vs-gd", "fig6.bounds", "thmF3.phase"]),
    ("Modular addition, the theory's setting (Thm F.7, Lemma F.6, H ≥ 3p): descent restricted to the "
     "dominant harmonic reaches ℓ⁽¹⁾ (an identity of the projection: a consistency check) and leaves Lemma "
     "F.2's utility for the rest; networks with H ≥ 3p learn every frequency in order (consistency checks: "
     "narrower networks do too here, so the threshold is sufficient, not necessary)",
     ["thmF7.cost-step", "lemmaF6.utility-update", "H3p.all-frequencies", "H3p.all-frequencies-p5"]),
]


def dln_gd_sweep(data, alphas, h: float, *, n_grid: int = 1001, past: float = 1.25) -> DLNSweep:
    """Plain gradient descent of diagonal linear networks at step ``h``, on :func:`dln_sweep`'s records.

    GD in ``(u, v)`` from ``u = √2α``, ``v = 0`` (``β = u ⊙ v``, ``½ mean (Xβ − y)²``), every seed and ``α`` in one
    batch; each record of :func:`dln_grid` is taken at the nearest step (time ``step · h``). A step ``h`` lags the
    flow's exponential growth by a relative ``O(hσ)`` in every growth phase, independent of ``α``: a run on the
    same slow clock whose time scale is perturbed (the control of ``fig3.drop-times``).

    Parameters
    ----------
    data : array_like
        sequence of ``(X (n, d), y (n,))``, one per seed.
    alphas : array_like
        ``(A,)`` initialisation scales.
    h : float
        the step.
    n_grid, past : int, optional / float, optional
        as for :func:`dln_sweep`.

    Returns
    -------
    DLNSweep
        ``time`` the GD times of the records (``step · h``).
    """
    alphas = np.asarray(alphas, float)
    X = np.stack([np.asarray(d[0], float) for d in data])
    y = np.stack([np.asarray(d[1], float) for d in data])
    idx = np.rint(dln_grid(data, alphas, n_grid=n_grid, past=past) / h).astype(int)           # (A, T) steps
    need = np.unique(idx)
    u = np.broadcast_to(math.sqrt(2) * alphas[None, :, None], (X.shape[0], len(alphas), X.shape[2])).copy()
    v = np.zeros_like(u)
    snaps, k = {}, 0
    for target in need:
        while k < target:
            r = np.einsum("snd,sad->san", X, u * v) - y[:, None, :]                        # (S, A, n)
            g = np.einsum("snd,san->sad", X, r) / X.shape[1]
            u, v = u - h * g * v, v - h * g * u
            k += 1
        b = u * v
        r = np.einsum("snd,sad->san", X, b) - y[:, None, :]
        snaps[target] = (0.5 * (r ** 2).mean(-1), b)
    loss = np.stack([np.stack([snaps[i][0][:, j] for i in idx[j]], -1) for j in range(len(alphas))], 1)
    beta = np.stack([np.stack([snaps[i][1][:, j] for i in idx[j]], 1) for j in range(len(alphas))], 1)
    return DLNSweep(X, y, alphas, idx * h, loss, beta)
