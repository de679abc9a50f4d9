"""Fully connected linear networks ``f(x) = A W x`` (Kunin et al. 2025, §4, App. D).

Population loss ``L(β) = ½ E‖(β − B)x‖²`` with ``x ~ N(0, Σ_xx)``, ``β = AW``, targets ``y = Bx``;
``Σ_yx = B Σ_xx``.  Accelerated time ``τ = t/η_α`` with ``η_α = −log ‖θ_i(0)‖``.

* Lemma D.1: the dormant frame aligns with the top singular pairs of ``−∇_β L(β_A)``; ``U*_i = σ_i/2``;
* cost step = reduced-rank regression ``β^{(k)} = P_{U_k} Σ_yx Σ_xx⁻¹``, ``U_k`` the top-k eigenvectors of
  ``Σ_yx Σ_xx⁻¹ Σ_yxᵀ``, and ``−∇L(β^{(k)}) = P⊥_{U_k} Σ_yx``;
* Conjecture 4.1: ``ℓ^{(k)} = ½ Σ_{i>k} μ_i`` and
  ``Δτ^{(k)} = [1 − Σ_{l=0}^{k−2} σ^{(l)}_{k−l} Δτ^{(l+1)}] / σ^{(k−1)}_1``, ``σ^{(l)}_j`` the j-th singular
  value of ``P⊥_{U_l} Σ_yx``; in the commuting case ``τ^{(k)} = 1/σ_k(Σ_yx)``.

Conventions: ``Sxx`` is the ``(d, d)`` input covariance ``Σ_xx``, ``B`` the ``(c, d)`` target map,
``Syx`` the ``(c, d)`` cross-covariance ``Σ_yx = B Σ_xx`` and ``beta`` a ``(..., c, d)`` stack of
end-to-end maps ``β``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .core import step_at


@dataclass
class LinearAGF:
    """Conjecture 4.1's prediction.

    Parameters
    ----------
    tau : ndarray
        ``(K+1,)`` jump times in accelerated time (``tau[0] = 0``).
    levels : ndarray
        ``(K+1,)`` loss levels.
    betas : ndarray
        ``(K+1, c, d)`` the end-to-end map on each plateau.
    sv : ndarray
        ``(K+1, min(c, d))`` singular values of each ``β^{(k)}``.
    sigma : ndarray
        ``(K, r)`` the rows ``σ^{(l)}_·`` of the recursion.
    """

    tau: np.ndarray
    levels: np.ndarray
    betas: np.ndarray
    sv: np.ndarray
    sigma: np.ndarray

    def loss_at(self, times: np.ndarray) -> np.ndarray:
        """The predicted step curve.

        Parameters
        ----------
        times : ndarray
            ``(T,)`` accelerated times ``τ = t/η_α``.

        Returns
        -------
        np.ndarray
            ``(T,)`` the population loss ``ℓ^{(k)}`` in force at each time.
        """
        return step_at(self.tau, self.levels, times)

    def sv_at(self, times: np.ndarray) -> np.ndarray:
        """The predicted singular values of the end-to-end map.

        Parameters
        ----------
        times : ndarray
            ``(T,)`` accelerated times, as for :meth:`loss_at`.

        Returns
        -------
        np.ndarray
            ``(T, min(c, d))`` the singular values of the ``β^{(k)}`` in force at each time.
        """
        return step_at(self.tau, self.sv, times)


def population_loss(beta: np.ndarray, B: np.ndarray, Sxx: np.ndarray) -> np.ndarray:
    """Population loss ``½ tr((β − B) Σ (β − B)ᵀ)``.

    Parameters
    ----------
    beta, B, Sxx : ndarray
        the maps to score and the task (module conventions).

    Returns
    -------
    np.ndarray
        ``(...)``, the leading dimensions of ``beta``.
    """
    M = beta - B
    return 0.5 * np.einsum("...ij,jk,...ik->...", M, Sxx, M)


def reduced_rank(Syx: np.ndarray, Sxx: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Reduced-rank regression ``β^{(k)} = P_{U_k} Σ_yx Σ_xx⁻¹``.

    Parameters
    ----------
    Syx, Sxx : ndarray
        the covariances (module conventions).
    k : int
        the rank.

    Returns
    -------
    (np.ndarray, np.ndarray)
        ``β^{(k)} (c, d)`` and ``U`` (all eigenvectors, descending).
    """
    Sinv = np.linalg.inv(Sxx)
    mu, U = np.linalg.eigh(Syx @ Sinv @ Syx.T)
    U = U[:, np.argsort(mu)[::-1]]
    P = U[:, :k] @ U[:, :k].T
    return P @ Syx @ Sinv, U


def conjecture(Sxx: np.ndarray, B: np.ndarray) -> LinearAGF:
    """Conjecture 4.1's levels and jump times for targets ``y = Bx``, ``x ~ N(0, Σ_xx)``.

    Parameters
    ----------
    Sxx, B : ndarray
        the task (module conventions); ``r = min(c, d)`` jumps.

    Returns
    -------
    LinearAGF
    """
    Syx = B @ Sxx
    r = min(Syx.shape)
    betas, sig, levels = [], [], []
    for k in range(r + 1):
        beta, U = reduced_rank(Syx, Sxx, k)
        betas.append(beta)
        levels.append(float(population_loss(beta, B, Sxx)))
        Pp = np.eye(Syx.shape[0]) - U[:, :k] @ U[:, :k].T
        sig.append(np.linalg.svd(Pp @ Syx, compute_uv=False)[:r])
    sig = np.array(sig)
    dt = []
    for k in range(1, r + 1):
        num = 1.0 - sum(sig[l, k - 1 - l] * dt[l] for l in range(k - 1))
        dt.append(num / sig[k - 1, 0])
    tau = np.concatenate([[0.0], np.cumsum(dt)])
    sv = np.array([np.linalg.svd(b, compute_uv=False)[:r] for b in betas])
    return LinearAGF(tau, np.array(levels), np.array(betas), sv, sig[:r])


def commuting_times(Sxx: np.ndarray, B: np.ndarray) -> np.ndarray:
    """The proved commuting case ``τ^{(k)} = 1/σ_k(Σ_yx)``.

    Parameters
    ----------
    Sxx, B : ndarray
        the task (module conventions), for which ``Σ_xx`` commutes with ``Σ_yxᵀ Σ_yx``.

    Returns
    -------
    np.ndarray
        ``(r,)`` the jump times, ``r = min(c, d)``.
    """
    return 1.0 / np.linalg.svd(B @ Sxx, compute_uv=False)


def fig4_setup(seed: int = 0, d: int = 10, commuting: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Figure 4's ``Σ_xx`` and ``B`` as the authors' code draws them: ``Σ_xx = M Mᵀ``,
    ``M = U diag(1/i) Vᵀ``, ``B ~ N(0, 1)^{d×d}``; with ``commuting=True`` the eigenvectors of ``Σ_xx`` are
    replaced by the right singular vectors of ``B`` (then Σ_xx commutes with ``Σ_yxᵀ Σ_yx``).

    Parameters
    ----------
    seed : int, optional
        numpy legacy seed (the authors': 0).
    d : int, optional
        the dimension.
    commuting : bool, optional
        the commuting variant.

    Returns
    -------
    (np.ndarray, np.ndarray)
        ``Σ_xx (d, d)`` and ``B (d, d)``.
    """
    rs = np.random.RandomState(seed)
    U, _ = np.linalg.qr(rs.randn(d, d))
    V, _ = np.linalg.qr(rs.randn(d, d))
    M = U @ np.diag(1.0 / np.arange(1, d + 1)) @ V.T
    Sxx = M @ M.T
    B = rs.randn(d, d)
    if commuting:
        ev = np.sort(np.linalg.eigvalsh(Sxx))[::-1]
        _, _, VBt = np.linalg.svd(B)
        Sxx = VBt.T @ np.diag(ev) @ VBt
    return Sxx, B


def population_design(Sxx: np.ndarray) -> np.ndarray:
    """``d`` points with ``mean_j x_j x_jᵀ = Σ_xx`` exactly (``X = √d Σ^{1/2}``): a mean-reduced loss on
    them equals the population loss of any model that is linear in ``x`` (or whose loss is a quadratic
    form of ``x``).

    Parameters
    ----------
    Sxx : ndarray
        ``(d, d)`` the covariance.

    Returns
    -------
    np.ndarray
        ``X (d, d)``.
    """
    w, Q = np.linalg.eigh(Sxx)
    return np.sqrt(len(w)) * (Q * np.sqrt(np.clip(w, 0, None))) @ Q.T
