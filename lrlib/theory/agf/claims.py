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
from . import dln, modular
from .measure import dln_vs_agf, frequency_order, sign_flip_and_drops, utility_update_error


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
    X : ``(n, d)`` inputs.
    y : ``(n,)`` targets.
    alpha : the initialisation scale (any positive float; ``α² > 1e-300``).
    times : ``(T,)`` increasing raw flow times to record.
    time_scale : the flow's clock is sped up by this factor (the flow of ``time_scale · L``).
    rtol, atol : the integrator's tolerances (on ``z``, whose scale is ``log(1/α²)``).

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
    X : ``(S, n, d)`` each seed's inputs.
    y : ``(S, n)`` each seed's targets.
    alphas : ``(A,)`` the initialisation scales, shallow to deep.
    time : ``(A, T)`` raw flow time of the records, per ``α``.
    loss : ``(S, A, T)`` the loss curves.
    beta : ``(S, A, T, d)`` the coefficients.
    time_scale : the factor by which the flow's clock was sped up (1: the flow itself).
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
    data : sequence of ``(X (n, d), y (n,))``, one per seed.
    alphas : ``(A,)`` initialisation scales.
    time_scale : see :func:`dln_flow_reduced` (a control run perturbs it).
    n_grid : points of each half of the accelerated grid.
    past : the grid's end over AGF's last jump time.

    Returns
    -------
    DLNSweep
    """
    alphas = np.asarray(alphas, float)
    X = np.stack([np.asarray(d[0], float) for d in data])
    y = np.stack([np.asarray(d[1], float) for d in data])
    taus = [dln.agf(Xs, ys, 1e-100).tau for Xs, ys in zip(X, y)]
    end = past * max(t[-1] for t in taus)
    first = min(t[1] for t in taus)
    s = np.unique(np.concatenate([np.linspace(0.0, end, n_grid), np.geomspace(first / 20, end, n_grid)]))
    time = np.stack([dln.eta_alpha(a) * s for a in alphas])
    runs = [[dln_flow_reduced(Xs, ys, a, time[j], time_scale=time_scale) for j, a in enumerate(alphas)]
            for Xs, ys in zip(X, y)]
    beta = np.array([[r[0] for r in row] for row in runs])
    loss = np.array([[r[1] for r in row] for row in runs])
    return DLNSweep(X, y, alphas, time, loss, beta, time_scale)


def sweep_errors(sw: DLNSweep) -> tuple[np.ndarray, np.ndarray]:
    """Largest relative drop-time and plateau-level errors against AGF at the same ``α``.

    Parameters
    ----------
    sw : the sweep (module conventions).

    Returns
    -------
    (np.ndarray, np.ndarray)
        ``(S, A)`` each; ``nan`` where no drop (no plateau) was measured.
    """
    e = np.full(sw.loss.shape[:2], np.nan)
    lv = np.full(sw.loss.shape[:2], np.nan)
    for i in range(sw.loss.shape[0]):
        for j, a in enumerate(sw.alphas):
            _, _, et, el = dln_vs_agf(sw.X[i], sw.y[i], a, sw.time[j], sw.loss[i, j])
            e[i, j] = np.max(et) if not np.isnan(et).all() else np.nan     # a missing drop: nan
            lv[i, j] = np.max(el) if len(el) and not np.isnan(el).all() else np.nan
    return e, lv


def drop_time_trend(sw: DLNSweep) -> dict[str, np.ndarray]:
    """How the flow's drop-time error against AGF shrinks as ``α → 0`` (claim ``fig3.drop-times``).

    Parameters
    ----------
    sw : the sweep (module conventions), at least two ``α``.

    Returns
    -------
    dict of str to np.ndarray
        :func:`lrlib.ledger.trend.trend_stats` of the largest relative drop-time error ``(S, A)``
        against the scale ``1/η_α`` (slope fitted over the three deepest ``α``): ``mono``,
        ``slope``, ``shrink``, ``decades``, each ``(S,)``; and ``c_deep``, the error × ``η_α`` at
        the deepest ``α`` (the constant of the ``1/η_α`` rate, shown, not graded).
    """
    e, _ = sweep_errors(sw)
    out = trend_stats(1 / sw.etas, e, fit_last=3)
    out["c_deep"] = e[:, -1] * sw.etas[-1]
    return out


def finite_alpha_errors(sw: DLNSweep) -> dict[str, np.ndarray]:
    """Drop-time and level errors at the three shallowest ``α`` with their ``η_α`` (claims
    ``fig3.drop-times-finite`` and ``fig3.levels``).

    Parameters
    ----------
    sw : the sweep (module conventions); its first three ``α`` are read (1e-4, 1e-8, 1e-16 in the chapter).

    Returns
    -------
    dict of str to np.ndarray
        ``e4, e8, e16`` (largest relative drop-time errors), ``l4, l8, l16`` (largest relative
        plateau-level errors), each ``(S,)``; ``eta4, eta8, eta16`` (scalars).
    """
    e, lv = sweep_errors(sw)
    out = {}
    for j, k in enumerate(("4", "8", "16")):
        out["e" + k], out["l" + k], out["eta" + k] = e[:, j], lv[:, j], float(sw.etas[j])
    return out


def dormancy(sw: DLNSweep) -> dict[str, np.ndarray]:
    """Return to dormancy (claim ``fig8.dormancy``): does ``β₀`` flip sign at AGF's midpoint?

    Read at the sweep's deepest ``α``: ``β₀``'s last sign change in accelerated time ``t/η_α``
    against AGF's ``(τ₂ + τ₃)/2`` at the same ``α``.

    Parameters
    ----------
    sw : the sweep (module conventions), data with AGF's dormancy (≥ 3 jumps).

    Returns
    -------
    dict of str to np.ndarray
        ``opposite`` — 1 if ``β₀`` ends with the sign opposite to its first AGF value; ``flip_err`` —
        ``|t_flip − mid|/mid`` (``inf`` when ``β₀`` never changes sign, ``nan`` when AGF predicts fewer
        than three jumps); ``eta`` — ``η_α``; each ``(S,)``.
    """
    a, eta = sw.alphas[-1], sw.etas[-1]
    opp, err = [], []
    for i in range(sw.loss.shape[0]):
        pred = dln.agf(sw.X[i], sw.y[i], a)
        b0 = sw.beta[i, -1, :, 0]
        nz = b0 != 0                                  # β₀ starts at exactly 0: that is no sign change
        o, t_flip, _ = sign_flip_and_drops(sw.time[-1][nz], b0[nz], sw.time[-1], sw.loss[i, -1], pred, eta)
        mid = 0.5 * (pred.tau[2] + pred.tau[3]) if len(pred.tau) > 3 else np.nan
        opp.append(o)
        err.append(np.inf if np.isnan(t_flip) and np.isfinite(mid) else abs(t_flip - mid) / mid)
    return {"opposite": np.array(opp), "flip_err": np.array(err), "eta": np.full(len(opp), eta)}


def deep_drop_errors(sw: DLNSweep) -> dict[str, np.ndarray]:
    """The largest relative drop-time error against AGF at the sweep's deepest ``α`` (claim
    ``fig8.drop-times``).

    Parameters
    ----------
    sw : the sweep (module conventions).

    Returns
    -------
    dict of str to np.ndarray
        ``e`` ``(S,)`` and ``eta`` ``(S,)`` (``η_α``).
    """
    e, _ = sweep_errors(sw)
    return {"e": e[:, -1], "eta": np.full(e.shape[0], sw.etas[-1])}


# ---------------------------------------------------------------------------------------------
# modular addition: cost step and width (Thm F.7, Lemma F.6, H ≥ 3p)

def cost_step_frac(net: TwoLayer, *, X: torch.Tensor, Y: torch.Tensor, pred) -> dict[str, np.ndarray]:
    """The share of the dominant frequency's component a group leaves unlearned (claim ``thmF7.cost-step``).

    Parameters
    ----------
    net : the square-activation networks ``(R, ...)`` (the groups at the end of their descent, or at its start).
    X, Y : ``(p², 2p)`` inputs and ``(p², p)`` targets of :func:`lrlib.theory.agf.modular.dataset`.
    pred : the :class:`~lrlib.theory.agf.modular.ModularAGF` of the template (``levels``).

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
    net : the square-activation networks ``(R, ...)``.
    X, Y : as for :func:`cost_step_frac`.
    template : ``(p,)`` the template ``x``.
    xi : the dominant frequency removed.
    neurons : ``(R, K, 3, p)`` unit test neurons per run.

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
    run : a :class:`~lrlib.trajectory.Trajectory` of square-activation networks ``(T, S, ...)``.
    X : ``(p², 2p)`` inputs of :func:`lrlib.theory.agf.modular.dataset`.
    pred : the :class:`~lrlib.theory.agf.modular.ModularAGF` of the template (``levels``, ``order``).

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
    run, X, pred : as for :func:`width_outcome`.

    Returns
    -------
    list of list of int
        One order per seed (frequencies never learned are left out).
    """
    p = X.shape[1] // 2
    power = modular.output_power(forward(run.params, X), p).numpy()                 # (T, S, p//2+1)
    return [frequency_order(run.steps, power[:, s], pred) for s in range(power.shape[1])]
