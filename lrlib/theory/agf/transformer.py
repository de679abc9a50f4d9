"""Attention-only linear transformer on in-context linear regression (Kunin et al. 2025, §4, App. E).

Tokens ``(x_n; y_n)``, ``n ≤ N``, ``x_n ~ N(0, Σ)``, ``y_n = βᵀx_n``, ``β ~ N(0, I_d)``; query ``x_q``.
With every parameter zero except ``V_h ∈ R``, ``K_h, Q_h ∈ R^d`` (Zhang et al.'s reduction) the
prediction is ``ŷ = Σ_h V_h (zᵀK_h)(Q_hᵀx_q) = zᵀ Γ x_q`` with ``z = Σ_n y_n x_n`` and
``Γ = Σ_h V_h K_h Q_hᵀ``.  Loss ``L = ½ E(ŷ − y_q)²`` (population).  Each head is a κ = 3 neuron;
``η_α = 1/α`` and accelerated time ``τ = t/η_α = α t``.

Closed forms (the paper's §4 and App. E):

* ``L(Γ) = ½[tr Σ − 2N tr(ΓΣ²) + tr(Γᵀ M_zz Γ Σ)]`` with ``M_zz = E zzᵀ = N(N+1)Σ² + N trΣ Σ``;
* Lemma E.1: ``Ū*_k = Nλ_k²/(3√3)`` at ``V̄ = ±1/√3``, ``Q̄ = K̄ = ±v_k/√3``;
* Lemma E.2 / Eq. 7: ``A_k = 1/(trΣ + (N+1)λ_k)``, ``ℓ^{(k)} = ½[trΣ − Σ_{i≤k} Nλ_i² A_i]``;
* jump bound: ``τ^{(k)} ≥ τ^{(k−1)} + √3/(η_α N λ_k² μ^{(k−1)})``, ``μ`` the largest dormant norm.

Conventions: the task is ``Sigma`` ``(d, d)``, the covariance Σ of ``x_n`` (numpy, or a tensor where
the function takes tensors), and ``N``, the context length; ``Gamma`` is a ``Γ`` of shape
``(..., d, d)`` (leading dimensions, where allowed, give one result each).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
from scipy.integrate import solve_ivp

from ...errors import ParameterError
from .core import step_at
from .linear import population_design

Tensor = torch.Tensor


def moments(Sigma: np.ndarray, N: int) -> tuple[np.ndarray, np.ndarray]:
    """The moments ``(M_zz, E[z βᵀ]) = (N(N+1)Σ² + N trΣ Σ, NΣ)``.

    Parameters
    ----------
    Sigma, N : ndarray / int
        the task (module conventions), which fixes both moments.

    Returns
    -------
    (np.ndarray, np.ndarray)
        Both ``(d, d)``.
    """
    return N * (N + 1) * Sigma @ Sigma + N * np.trace(Sigma) * Sigma, N * Sigma


def population_loss(Gamma: np.ndarray, Sigma: np.ndarray, N: int) -> np.ndarray:
    """Population loss ``L(Γ)`` (½ convention).

    Parameters
    ----------
    Gamma, Sigma, N : ndarray / int
        module conventions; one loss for each ``Γ`` of the stack.

    Returns
    -------
    np.ndarray
        ``(...)``.
    """
    Mzz, _ = moments(Sigma, N)
    S2 = Sigma @ Sigma
    lin = np.einsum("...ij,ji->...", Gamma, S2)
    quad = np.einsum("...ji,jk,...kl,li->...", Gamma, Mzz, Gamma, Sigma)
    return 0.5 * (np.trace(Sigma) - 2 * N * lin + quad)


def population_grad(Gamma: np.ndarray, Sigma: np.ndarray, N: int) -> np.ndarray:
    """``∇_Γ L = −NΣ² + M_zz Γ Σ``.

    Parameters
    ----------
    Gamma, Sigma, N : ndarray / int
        module conventions; the gradient is taken at each ``Γ`` of the stack.

    Returns
    -------
    np.ndarray
        ``(..., d, d)``.
    """
    Mzz, _ = moments(Sigma, N)
    return -N * Sigma @ Sigma + Mzz @ Gamma @ Sigma


def monte_carlo_loss(Gamma: np.ndarray, Sigma: np.ndarray, N: int, samples: int, rs: np.random.RandomState) -> float:
    """``½ mean (zᵀΓx_q − y_q)²`` over sampled prompts (checks :func:`population_loss`).

    Parameters
    ----------
    Gamma, Sigma, N : ndarray / int
        module conventions, with a single ``Γ`` ``(d, d)`` here.
    samples : int
        number of prompts.
    rs : np.random.RandomState
        numpy ``RandomState``.

    Returns
    -------
    float
    """
    d = len(Sigma)
    Lc = np.linalg.cholesky(Sigma)
    x = rs.randn(samples, N + 1, d) @ Lc.T
    beta = rs.randn(samples, d)
    y = np.einsum("snd,sd->sn", x, beta)
    z = np.einsum("sn,snd->sd", y[:, :N], x[:, :N])
    pred = np.einsum("sd,de,se->s", z, Gamma, x[:, N])
    return 0.5 * float(np.mean((pred - y[:, N]) ** 2))


@dataclass
class TransformerAGF:
    """Eq. 7's prediction.

    Parameters
    ----------
    levels : ndarray
        ``(d+1,)`` loss levels.
    A : ndarray
        ``(d,)`` the learned magnitudes ``A_k``.
    u_star : ndarray
        ``(d,)`` maximal utilities ``Ū*_k``.
    lam : ndarray
        ``(d,)`` eigenvalues of Σ, descending.
    v : ndarray
        ``(d, d)`` eigenvectors (columns).
    """

    levels: np.ndarray
    A: np.ndarray
    u_star: np.ndarray
    lam: np.ndarray
    v: np.ndarray

    def gamma(self, k: int) -> np.ndarray:
        """``Γ^{(k)} = Σ_{i≤k} A_i v_i v_iᵀ``.

        Parameters
        ----------
        k : int
            number of learned heads.

        Returns
        -------
        np.ndarray
            ``(d, d)``.
        """
        return sum((self.A[i] * np.outer(self.v[:, i], self.v[:, i]) for i in range(k)), np.zeros_like(self.v))

    def bound_gap(self, k: int, eta: float, mu: float) -> float:
        """Lower bound on ``τ^{(k)} − τ^{(k−1)}``: ``1/(3η Ū*_k μ) = √3/(η N λ_k² μ)``.

        Parameters
        ----------
        k : int
            the jump (``≥ 1``).
        eta : float
            the acceleration (``1`` gives raw flow time).
        mu : float
            the largest dormant head norm at the previous jump.

        Returns
        -------
        float
        """
        return 1.0 / (3 * eta * self.u_star[k - 1] * mu)


def predict(Sigma: np.ndarray, N: int) -> TransformerAGF:
    """Lemma E.1, E.2 and Eq. 7.

    Parameters
    ----------
    Sigma, N : ndarray / int
        the task (module conventions); Σ's eigenvalues, descending, order the jumps.

    Returns
    -------
    TransformerAGF
    """
    lam, v = np.linalg.eigh(Sigma)
    idx = np.argsort(lam)[::-1]
    lam, v = lam[idx], v[:, idx]
    tr = float(np.trace(Sigma))
    A = 1.0 / (tr + (N + 1) * lam)
    levels = 0.5 * (tr - np.concatenate([[0.0], np.cumsum(N * lam ** 2 * A)]))
    return TransformerAGF(levels, A, N * lam ** 2 / (3 * math.sqrt(3)), lam, v)


def head_utility(V: Tensor, K: Tensor, Q: Tensor, Gamma_A: Tensor, Sigma: Tensor, N: int) -> Tensor:
    """Utilities ``U_h = −⟨∇_Γ L(Γ_A), V_h K_h Q_hᵀ⟩`` of heads.

    Parameters
    ----------
    V : Tensor
        ``(H,)``.
    K, Q : Tensor
        ``(H, d)``.
    Gamma_A : Tensor
        ``(d, d)`` the active heads' ``Γ``.
    Sigma, N : Tensor / int
        the task (module conventions), ``Sigma`` a tensor here.

    Returns
    -------
    Tensor
        ``(H,)``.
    """
    Mzz = N * (N + 1) * Sigma @ Sigma + N * torch.trace(Sigma) * Sigma
    G = N * Sigma @ Sigma - Mzz @ Gamma_A @ Sigma
    return V * torch.einsum("hi,ij,hj->h", K, G, Q)


def head_utility_flat(theta: Tensor, Sigma: np.ndarray, N: int) -> Tensor:
    """:func:`head_utility` of ONE head packed as ``θ = (V, K, Q)`` at ``Γ_A = 0`` (Lemma E.1's problem).

    Parameters
    ----------
    theta : Tensor
        ``(1 + 2d,)`` the head ``(V, K, Q)``.
    Sigma, N : ndarray / int
        the task (module conventions).

    Returns
    -------
    Tensor
        A scalar, the head's utility.
    """
    d = len(Sigma)
    return head_utility(theta[:1], theta[1:1 + d].unsqueeze(0), theta[1 + d:].unsqueeze(0),
                        torch.zeros(d, d, dtype=theta.dtype), torch.tensor(Sigma), N)[0]


def fig5_sigma(seed: int = 0, d: int = 4, trace: float = 2.0) -> np.ndarray:
    """Figure 5's covariance: eigenvalues ∝ (1, ½, …, 1/d) scaled to ``tr Σ = trace``, random orthogonal
    eigenvectors (QR of a Gaussian matrix).

    Parameters
    ----------
    seed : int, optional
        numpy seed.
    d : int, optional
        the dimension.
    trace : float, optional
        ``tr Σ``.

    Returns
    -------
    np.ndarray
        ``(d, d)``.
    """
    lam = 1.0 / np.arange(1, d + 1)
    lam = trace * lam / lam.sum()
    Q, _ = np.linalg.qr(np.random.RandomState(seed).randn(d, d))
    return Q @ np.diag(lam) @ Q.T


def design(Sigma: np.ndarray, N: int) -> tuple[np.ndarray, np.ndarray, float]:
    """An exact *population design* for the bilinear model ``ŷ = zᵀΓx_q``: ``d²`` points ``(z_i, x_j)``
    (a product of a ``d``-point design with second moment ``M_zz`` and one with second moment ``Σ``) and
    targets ``y_ij = z_iᵀ C x_j`` with ``C = M_zz⁻¹ E[zβᵀ]``.  Then for every ``Γ``:
    ``½ mean (zᵀΓx − y)² + const = L(Γ)``.

    Parameters
    ----------
    Sigma, N : ndarray / int
        the task (module conventions) whose population loss the design reproduces.

    Returns
    -------
    (np.ndarray, np.ndarray, float)
        Inputs ``(d², 2d)`` = ``(z, x_q)``, targets ``(d²,)`` and ``const``.
    """
    d = len(Sigma)
    Mzz, Mzb = moments(Sigma, N)
    Zs, Xs = population_design(Mzz), population_design(Sigma)
    C = np.linalg.solve(Mzz, Mzb)
    Zg = np.repeat(Zs, d, axis=0)
    Xg = np.tile(Xs, (d, 1))
    y = np.einsum("ni,ij,nj->n", Zg, C, Xg)
    const = 0.5 * (np.trace(Sigma) - np.trace(C.T @ Mzz @ C @ Sigma))
    return np.concatenate([Zg, Xg], 1), y, float(const)


@dataclass
class HeadsAGF:
    """Simulated AGF of the heads (:func:`agf_heads`).

    Parameters
    ----------
    tau : ndarray
        ``(K+1,)`` jump times in accelerated time ``τ = α t`` (``tau[0] = 0``).
    levels : ndarray
        ``(K+1,)`` the loss after each jump.
    order : list[int]
        the head that jumped at each jump.
    """

    tau: np.ndarray
    levels: np.ndarray
    order: list[int]

    def loss_at(self, times: np.ndarray) -> np.ndarray:
        """The simulated AGF's step curve.

        Parameters
        ----------
        times : ndarray
            ``(T,)`` accelerated times ``τ = α t``.

        Returns
        -------
        np.ndarray
            ``(T,)`` the simulated level in force at each time.
        """
        return step_at(self.tau, self.levels, times)


def agf_heads(V0: np.ndarray, K0: np.ndarray, Q0: np.ndarray, Sigma: np.ndarray, N: int, alpha: float, *,
              rtol: float = 1e-8) -> HeadsAGF:
    """AGF (Algorithm 1) for the heads of one initialisation of scale ``alpha``.

    Utility maximisation: every dormant head follows its utility flow ``dθ/dt = ∇U_h(θ)``,
    ``U_h = V_h K_hᵀ G Q_h`` with ``G = −∇_Γ L(Γ_A)`` frozen, integrated as direction and log-norm (κ = 3,
    ``solve_ivp`` RK45) until the first dormant head reaches norm 1 (the jump).  Cost minimisation is
    taken in closed form: after jump ``k`` the active heads realise ``Γ^{(k)} = Σ_{i≤k} A_i v_i v_iᵀ``
    (Lemma E.2, which assumes the jumping head is aligned with ``v_k``), so the levels are Eq. 7's and
    the jump times are what this simulation adds.  ``min(H, d)`` jumps.

    Parameters
    ----------
    V0 : ndarray
        ``(H,)`` initial values.
    K0, Q0 : ndarray
        ``(H, d)`` initial keys and queries.
    Sigma, N : ndarray / int
        the task (module conventions).
    alpha : float
        the initialisation scale (``η_α = 1/α``).
    rtol : float, optional
        relative tolerance of the integrator.

    Returns
    -------
    HeadsAGF
    """
    V0, K0, Q0 = (np.asarray(a, dtype=float) for a in (V0, K0, Q0))
    if V0.ndim != 1 or K0.shape != Q0.shape or K0.shape != (len(V0), len(Sigma)):
        raise ParameterError(f"agf_heads needs V0 (H,), K0, Q0 (H, d) with d = {len(Sigma)}; got "
                             f"{V0.shape}, {K0.shape}, {Q0.shape}")
    H, d = K0.shape
    D = 1 + 2 * d
    pred = predict(Sigma, N)
    Mzz, _ = moments(Sigma, N)
    theta = np.concatenate([V0[:, None], K0, Q0], 1)
    nrm = np.linalg.norm(theta, axis=1)
    tb, rho = theta / nrm[:, None], np.log(nrm)
    dormant = np.ones(H, dtype=bool)
    t, tau, order = 0.0, [0.0], []
    for k in range(min(H, d)):
        Gm = N * Sigma @ Sigma - Mzz @ pred.gamma(k) @ Sigma            # −∇_Γ L(Γ^{(k)})
        live = dormant.astype(float)

        def rhs(_t, z):
            zz = z.reshape(H, D + 1)
            v, kk, q, r = zz[:, 0], zz[:, 1:1 + d], zz[:, 1 + d:D], zz[:, D]
            kg, gq = kk @ Gm, q @ Gm.T                                   # Kᵀ G (as rows), G Q
            U = v * np.einsum("hi,hi->h", kg, q)
            g = np.concatenate([np.einsum("hi,hi->h", kg, q)[:, None], v[:, None] * gq, v[:, None] * kg], 1)
            u = zz[:, :D]
            s = np.exp(np.minimum(r, 0.0)) * live
            return np.concatenate([s[:, None] * (g - (g * u).sum(1, keepdims=True) * u), (3 * s * U)[:, None]], 1).reshape(-1)

        def jump(_t, z):
            return float(np.max(np.where(dormant, z.reshape(H, D + 1)[:, D], -np.inf)))
        jump.terminal, jump.direction = True, 1

        z0 = np.concatenate([tb, rho[:, None]], 1).reshape(-1)
        sol = solve_ivp(rhs, (t, t + 1e4 / alpha), z0, method="RK45", rtol=rtol, atol=1e-12, events=jump)
        if sol.status != 1:
            raise RuntimeError(f"agf_heads: no head reached norm 1 ({sol.message})")
        zz = sol.y_events[0][0].reshape(H, D + 1)
        tb, rho, t = zz[:, :D] / np.linalg.norm(zz[:, :D], axis=1, keepdims=True), zz[:, D], float(sol.t_events[0][0])
        i = int(np.argmax(np.where(dormant, rho, -np.inf)))
        dormant[i] = False
        tau.append(alpha * t)
        order.append(i)
    return HeadsAGF(np.array(tau), pred.levels[:len(tau)], order)
