"""Diagonal linear networks ``f(x) = Σ_i u_i v_i x_i`` (Kunin et al. 2025, §3, App. C).

Conventions: data ``X`` is ``(n, d)`` inputs (rows are points) with targets ``y`` ``(n,)``; ``beta``
is a ``(d,)`` vector of coefficients ``β_i = u_i v_i``; loss ``L(β) = ½ mean_j (x_jᵀβ − y_j)²``,
initialisation ``u_i = √2 α``, ``v_i = 0`` (the Pesme–Flammarion init), so ‖θ_i(0)‖ = √2 α and
``η_α = −log(√2 α)``.  Time is *accelerated time* ``τ = t / η_α`` with ``t`` gradient-flow time
on ``L``; one GD step of size ``lr`` is ``Δτ = lr / η_α``.

Closed forms (the paper's §3 and App. C, tested in ``tests/test_theory_agf_dln.py``):

* Lemma C.1: ``Ū*_i = ½ |g_i|`` with ``g = ∇_β L(β_A)``;
* Thm C.4: ``S_i(τ_k + t) = log cosh(2η|g_i| t + ρ_i arccosh(e^{2η S_i(τ_k)})) / (2η)``;
* Cor. C.5: ``Δτ_i = [arccosh(1/(2α²)) − ρ_i arccosh(e^{2η S_i})] / (2η |g_i|)``;
* cost step: the sign-constrained least squares on the active set (coordinates that end at 0
  return to dormancy with ``S_i = 1``);
* Pesme–Flammarion (α → 0): ``S_i`` piecewise linear, ``dS_i/dτ = −g_i``, activation at ``|S_i| = 1``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import lsq_linear

from ...errors import ParameterError
from .core import step_at


def log_cosh(a: np.ndarray) -> np.ndarray:
    """``log cosh a`` without overflow.

    Parameters
    ----------
    a : ndarray
        array-like.

    Returns
    -------
    np.ndarray
        Same shape as ``a``.
    """
    a = np.abs(np.asarray(a, dtype=float))
    return a + np.log1p(np.exp(-2 * a)) - math.log(2)


def acosh_exp(x: np.ndarray) -> np.ndarray:
    """``arccosh(e^x)`` for ``x ≥ 0`` without overflow (``x + log(1 + √(1 − e^{−2x}))``).

    Parameters
    ----------
    x : ndarray
        array-like, ``≥ 0``.

    Returns
    -------
    np.ndarray
        Same shape as ``x``.
    """
    x = np.maximum(np.asarray(x, dtype=float), 0.0)
    return x + np.log1p(np.sqrt(-np.expm1(-2 * x)))


def eta_alpha(alpha: float) -> float:
    """The DLN's acceleration ``η_α = −log(√2 α)`` (its initial neuron norm is √2 α).

    Parameters
    ----------
    alpha : float
        the initialisation scale, ``< 1/√2``.

    Returns
    -------
    float
    """
    if not 0 < alpha < 1 / math.sqrt(2):
        raise ParameterError(f"alpha must be in (0, 1/√2) for the AGF time scale, got {alpha!r}")
    return -math.log(math.sqrt(2) * alpha)


def loss(X: np.ndarray, y: np.ndarray, beta: np.ndarray) -> float:
    """The DLN's loss ``½ mean (Xβ − y)²``.

    Parameters
    ----------
    X, y, beta : ndarray
        the data and the coefficients at which the loss is read (module conventions).

    Returns
    -------
    float
    """
    return 0.5 * float(np.mean((X @ beta - y) ** 2))


def grad(X: np.ndarray, y: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """The gradient ``∇_β L = Xᵀ(Xβ − y)/n``.

    Parameters
    ----------
    X, y, beta : ndarray
        the data and the coefficients at which the gradient is taken (module conventions).

    Returns
    -------
    np.ndarray
        ``(d,)``.
    """
    return X.T @ (X @ beta - y) / len(y)


def constrained_ls(X: np.ndarray, y: np.ndarray, signs: np.ndarray, tol: float = 1e-10) -> np.ndarray:
    """The cost step: ``argmin L(β)`` s.t. ``β_i = 0`` where ``signs_i = 0`` and ``s_i β_i ≥ 0`` elsewhere.

    Parameters
    ----------
    X, y : ndarray
        the data (module conventions), fitted in the mean-reduced loss.
    signs : ndarray
        ``(d,)`` in ``{−1, 0, +1}``.
    tol : float, optional
        tolerance of the active-set iteration.

    Returns
    -------
    np.ndarray
        ``(d,)``.
    """
    d = X.shape[1]
    beta = np.zeros(d)
    act = np.flatnonzero(signs != 0)
    if act.size:
        lo = np.where(signs[act] > 0, 0.0, -np.inf)
        hi = np.where(signs[act] > 0, np.inf, 0.0)
        res = lsq_linear(X[:, act] / math.sqrt(len(y)), y / math.sqrt(len(y)), bounds=(lo, hi),
                         method="bvls", tol=1e-14)
        beta[act] = res.x
    beta[np.abs(beta) < tol * max(1.0, np.abs(beta).max())] = 0.0
    return beta


@dataclass
class DLNResult:
    """AGF (or PF) on a diagonal linear network.

    Parameters
    ----------
    tau : ndarray
        ``(K+1,)`` jump times in accelerated time (``tau[0] = 0``).
    levels : ndarray
        ``(K+1,)`` the loss ``ℓ_k`` after jump ``k``.
    betas : ndarray
        ``(K+1, d)`` the active network ``β_A``.
    active : ndarray
        ``(K+1, d)`` bool.
    order : list[list[int]]
        the coordinates activated at each jump.
    eta : float
        the acceleration ``η_α`` (``inf`` for PF).
    kind : str
        ``"agf"`` or ``"pf"``.
    segments : list, optional
        per iteration ``(g, ρ, A0)`` (AGF) or ``(g, S0)`` (PF), enough to evaluate ``S_i`` at any
        time (:meth:`S_at`).
    """

    tau: np.ndarray
    levels: np.ndarray
    betas: np.ndarray
    active: np.ndarray
    order: list[list[int]]
    eta: float
    kind: str
    segments: list = field(default_factory=list)

    def S_at(self, times: np.ndarray) -> np.ndarray:
        """Signed accumulated utility: sign = the neuron's sign sgn(u_i v_i) (AGF), or PF's ``S``; active
        coordinates are reported at ``±1``.

        Parameters
        ----------
        times : ndarray
            ``(T,)`` accelerated times.

        Returns
        -------
        np.ndarray
            ``(T, d)``.
        """
        times = np.asarray(times, dtype=float)
        out = np.zeros((len(times), len(self.tau) and self.betas.shape[1]))
        for j, t in enumerate(times):
            k = int(np.searchsorted(self.tau, t, side="right")) - 1
            k = min(k, len(self.segments) - 1)
            dt = t - self.tau[k]
            if self.kind == "agf":
                g, rho, A0, sig = self.segments[k]
                a = 2 * self.eta * np.abs(g) * dt + rho * A0
                S = log_cosh(a) / (2 * self.eta)
                sgn = np.where(a >= 0, -np.sign(g), np.sign(g))
                sgn = np.where(sgn == 0, sig, sgn)
                val = np.minimum(S, 1.0) * sgn
            else:
                g, S0 = self.segments[k]
                val = np.clip(S0 - g * dt, -1, 1)
            act = self.active[min(k, len(self.active) - 1)]
            val = np.where(act, np.sign(self.betas[k]) * 1.0, val)
            out[j] = val
        return out

    def loss_at(self, times: np.ndarray) -> np.ndarray:
        """The AGF step curve ``ℓ(τ)``.

        Parameters
        ----------
        times : ndarray
            ``(T,)`` accelerated times ``τ = t/η_α`` (as for :meth:`S_at`).

        Returns
        -------
        np.ndarray
            ``(T,)`` the level ``ℓ_k`` in force at each time.
        """
        return step_at(self.tau, self.levels, times)


def _agf_or_pf(X: np.ndarray, y: np.ndarray, alpha: float | None, max_iter: int, tie: float) -> DLNResult:
    X, y = np.asarray(X, float), np.asarray(y, float)
    n, d = X.shape
    pf = alpha is None
    eta = math.inf if pf else eta_alpha(alpha)
    thr = 0.0 if pf else acosh_exp(2 * eta)            # arccosh(1/(2α²))
    S = np.zeros(d)                                     # AGF: |S| ≥ 0; PF: signed S in [−1, 1]
    sig = np.zeros(d)                                   # neuron sign sgn(u_i v_i) (0: never moved)
    active = np.zeros(d, bool)
    signs = np.zeros(d)
    beta = np.zeros(d)
    tau, levels, betas, acts, order, segs = [0.0], [loss(X, y, beta)], [beta.copy()], [active.copy()], [], []
    t = 0.0
    for _ in range(max_iter):
        g = grad(X, y, beta)
        dorm = ~active
        if not dorm.any() or np.abs(g[dorm]).max() < 1e-12 * max(1.0, np.abs(g).max() + abs(levels[0])):
            break
        gd = np.where(dorm, np.abs(g), 0.0)
        if pf:
            segs.append((np.where(dorm, g, 0.0), np.where(dorm, S, np.sign(beta))))
            dtau = np.where(gd > 0, (1 - np.sign(-g) * S) / np.where(gd > 0, gd, 1), np.inf)
        else:
            rho = np.where((sig == 0) | (sig == -np.sign(g)), 1.0, -1.0)
            A0 = acosh_exp(2 * eta * S)
            segs.append((np.where(dorm, g, 0.0), rho, A0, sig.copy()))
            dtau = np.where(gd > 0, (thr - rho * A0) / (2 * eta * np.where(gd > 0, gd, 1)), np.inf)
        dtau = np.where(dorm, dtau, np.inf)
        dmin = float(dtau.min())
        if not math.isfinite(dmin):
            break
        new = np.flatnonzero(dtau <= dmin * (1 + tie) + 1e-300)
        # advance every dormant neuron by dmin
        if pf:
            S = np.where(dorm, np.clip(S - g * dmin, -1, 1), S)
            newsig = np.sign(S)
        else:
            a = 2 * eta * gd * dmin + rho * A0
            S = np.where(dorm, log_cosh(a) / (2 * eta), S)
            flipped = np.where(a >= 0, -np.sign(g), np.sign(g))
            sig = np.where(dorm & (gd > 0), flipped, sig)
            newsig = sig
        S[new] = 1.0 if not pf else np.sign(S[new])
        active[new] = True
        signs[new] = newsig[new] if not pf else np.sign(S[new])
        t += dmin
        beta = constrained_ls(X, y, np.where(active, signs, 0.0))
        back = active & (beta == 0)                 # return to dormancy (S_i = ±1, sign kept)
        active &= ~back
        signs[back] = 0.0
        if not pf:
            sig = np.where(active, np.sign(beta), sig)
        tau.append(t)
        levels.append(loss(X, y, beta))
        betas.append(beta.copy())
        acts.append(active.copy())
        order.append([int(i) for i in new])
    # final segment so S_at works after the last jump
    g = grad(X, y, beta)
    segs.append((np.where(~active, g, 0.0), np.ones(d), acosh_exp(2 * eta * S) if not pf else None, sig.copy())
                if not pf else (np.where(~active, g, 0.0), S.copy()))
    return DLNResult(np.array(tau), np.array(levels), np.array(betas), np.array(acts), order, eta,
                     "pf" if pf else "agf", segs)


def agf(X: np.ndarray, y: np.ndarray, alpha: float, *, max_iter: int = 100, tie: float = 1e-9) -> DLNResult:
    """Closed-form AGF on a DLN (Thm C.4, Cor. C.5, constrained least squares).

    Parameters
    ----------
    X, y : ndarray
        the data (module conventions).
    alpha : float
        the initialisation scale (``u = √2 α``, ``v = 0``).
    max_iter : int, optional
        most jumps.
    tie : float, optional
        relative tolerance under which jump times count as simultaneous.

    Returns
    -------
    DLNResult
    """
    return _agf_or_pf(X, y, alpha, max_iter, tie)


def pesme_flammarion(X: np.ndarray, y: np.ndarray, *, max_iter: int = 100, tie: float = 1e-9) -> DLNResult:
    """Pesme & Flammarion's algorithm (Algorithm 2), the α → 0 limit of AGF.

    Parameters
    ----------
    X, y : ndarray
        the data (module conventions); no initialisation scale (α → 0).
    max_iter : int, optional
        most jumps.
    tie : float, optional
        relative tolerance under which jump times count as simultaneous.

    Returns
    -------
    DLNResult
        With ``eta = inf`` and ``kind = "pf"``.
    """
    return _agf_or_pf(X, y, None, max_iter, tie)


def utility_flow(g: float, alpha: float, t: np.ndarray) -> dict[str, np.ndarray]:
    """Lemma C.2–C.3 / Thm C.4 for one neuron under a *fixed* gradient ``g``, from ``u = √2 α``, ``v = 0``:
    ``‖θ‖² = 2α² cosh(2|g| t)``, ``u² − v² = 2α²`` and ``S(t)`` with ``‖θ(t)‖ = ‖θ(0)‖ e^{S(t)}``.

    Parameters
    ----------
    g : float
        the fixed gradient ``∇_β L`` of the coordinate.
    alpha : float
        the initialisation scale.
    t : ndarray
        ``(T,)`` raw times (η = 1).

    Returns
    -------
    dict
        ``norm2 (T,)`` and ``S (T,)``.
    """
    t = np.asarray(t, dtype=float)
    return {"norm2": 2 * alpha ** 2 * np.cosh(2 * abs(g) * t), "S": 0.5 * log_cosh(2 * abs(g) * t)}


def utility_flow_check(g: float, alpha: float, t_end: float = 5.0, n_t: int = 51) -> dict[str, float]:
    """Lemmas C.1–C.3 and Cor. C.5 against a direct integration of one neuron's flow under a fixed
    gradient ``g`` (``u' = −g v``, ``v' = −g u`` from ``u = √2 α``, ``v = 0``; DOP853, ``rtol = 1e-12``).

    Parameters
    ----------
    g : float
        the fixed gradient ``∇_β L`` of the coordinate.
    alpha : float
        the initialisation scale.
    t_end : float, optional
        the last raw time (η = 1) of the comparison grid.
    n_t : int, optional
        the number of grid times in ``[0, t_end]``.

    Returns
    -------
    dict
        Relative errors (floats): ``e_norm`` of ``‖θ‖²`` against :func:`utility_flow`; ``e_cons`` of the
        conserved ``u² − v² = 2α²`` (Lemma C.2 as corrected); ``e_hit`` of the time where ``‖θ‖ = 1``
        against Cor. C.5 (``arccosh(1/(2α²)) / (2|g|)``); ``u_err``, the absolute error of the end
        utility against Lemma C.1's ``|g|/2``; ``e_typo``, the deviation from the printed ``2α``.
    """
    def rhs(_t, z):
        return [-g * z[1], -g * z[0]]

    def unit_norm(_t, z):
        return z[0] ** 2 + z[1] ** 2 - 1

    t = np.linspace(0, t_end, n_t)
    z0 = [math.sqrt(2) * alpha, 0.0]
    u, v = solve_ivp(rhs, (0, t_end), z0, t_eval=t, rtol=1e-12, atol=1e-20, method="DOP853").y
    cf = utility_flow(g, alpha, t)
    t_hit = float(np.arccosh(1 / (2 * alpha ** 2)) / (2 * abs(g)))
    hit = solve_ivp(rhs, (0, 2 * t_hit), z0, rtol=1e-12, atol=1e-20, method="DOP853", events=unit_norm)
    u_end = -(u[-1] * v[-1]) * g / (u[-1] ** 2 + v[-1] ** 2)
    return {"e_norm": float(np.max(np.abs(u ** 2 + v ** 2 - cf["norm2"]) / cf["norm2"])),
            "e_cons": float(np.max(np.abs(u ** 2 - v ** 2 - 2 * alpha ** 2)) / (2 * alpha ** 2)),
            "e_hit": float(abs(hit.t_events[0][0] - t_hit) / t_hit),
            "u_err": float(abs(u_end - abs(g) / 2)),
            "e_typo": float(np.max(np.abs(u ** 2 - v ** 2 - 2 * alpha)) / (2 * alpha))}

def fig3_data(seed: int = 10, n: int = 20, d: int = 5) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Figure 3's data, as the authors' code draws it: ``x ~ N(0, diag(1/i))``, ``β* = 10 N(0, I)``, ``y = Xβ*``.

    Parameters
    ----------
    seed : int, optional
        numpy legacy seed (the authors': 10).
    n : int, optional
        number of points.
    d : int, optional
        dimension.

    Returns
    -------
    (np.ndarray, np.ndarray, np.ndarray)
        ``X (n, d)``, ``y (n,)``, ``β* (d,)``.
    """
    rs = np.random.RandomState(seed)
    X = rs.randn(n, d) @ np.diag(np.sqrt(1 / np.arange(1, d + 1)))
    b = 10 * rs.randn(d)
    return X, X @ b, b


def fig8_data(angle: float = 150.0, beta: tuple[float, float] = (-0.2, 2.0)) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Figure 8's 2-D example (Pesme & Flammarion §3.1): ``X = chol(R Λ Rᵀ)`` with ``R`` the rotation
    by ``angle`` and ``Λ = diag(1, 25)``, ``β* = beta``, ``y = Xβ*``.  Rows of ``X`` are the points.

    Parameters
    ----------
    angle : float, optional
        the rotation in degrees (the paper's: 150).
    beta : tuple[float, float], optional
        the teacher ``β*`` (the paper's: (−0.2, 2)).

    Returns
    -------
    (np.ndarray, np.ndarray, np.ndarray)
        ``X (2, 2)``, ``y (2,)``, ``β* (2,)``.
    """
    th = math.radians(angle)
    R = np.array([[math.cos(th), -math.sin(th)], [math.sin(th), math.cos(th)]])
    C = R @ np.diag([1.0, 25.0]) @ R.T
    X = np.linalg.cholesky(C)
    b = np.array(beta, dtype=float)
    return X, X @ b, b


def fig8_draws(seed: int, n_seeds: int) -> list[tuple[float, tuple[float, float]]]:
    """The chapter's Figure 8 problems, one per seed: the paper's example (angle 150°, ``β* = (−0.2, 2)``)
    for base seed 0's first draw, otherwise the angle ``150° ± 10°`` and ``β*`` perturbed by ±25 % and
    ±10 % (uniform, ``numpy.random.default_rng(seed + 8)``).

    Parameters
    ----------
    seed : int
        the chapter's base seed.
    n_seeds : int
        the number of problems.

    Returns
    -------
    list of (float, (float, float))
        ``(angle, beta)`` per problem, the arguments of :func:`fig8_data`.
    """
    g = np.random.default_rng(seed + 8)
    draws = []
    for i in range(n_seeds):
        if seed == 0 and i == 0:
            draws.append((150.0, (-0.2, 2.0)))
        else:
            draws.append((150 + g.uniform(-10, 10), (-0.2 * (1 + g.uniform(-0.25, 0.25)),
                                                     2.0 * (1 + g.uniform(-0.1, 0.1)))))
    return draws
