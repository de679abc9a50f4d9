"""Modular addition with a quadratic network (Kunin et al. 2025, §5, App. F).

Input ``(a·x, b·x)`` with ``a·x = roll(x, a)`` for a centred template ``x ∈ R^p``; neuron
``θ_i = (u_i, v_i, w_i)``, ``f = Σ_i w_i (⟨u_i, a·x⟩ + ⟨v_i, b·x⟩)²`` (κ = 3); target
``y = (a+b)·x``; loss ``L = ½ E_{a,b} ‖f − y‖²`` (mean over the ``p²`` pairs, *sum* over the ``p``
outputs).  DFT ``x̂[k] = Σ_n x[n] e^{−2πikn/p}`` (numpy's ``fft``).

* Lemma F.2: ``U = (2/p³) Σ_{k≠0} |x̂[k]|² û[k] v̂[k] conj(ŵ[k]) conj(x̂[k])`` for the empty active set;
* Thm F.3: ``Ū* = √(2/(27p³)) |x̂[ξ]|³`` on the dominant frequency ξ;
* Eq. 9: ``ℓ^{(k)} = (1/2p) Σ_{unlearned k'} |x̂[k']|²``; frequencies learned in decreasing ``|x̂|``.

Conventions: ``x`` is the ``(p,)`` template; ``u, v, w`` are a neuron's three ``(p,)`` weight vectors
(``(K, p)`` for ``K`` neurons).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

Tensor = torch.Tensor


def template(p: int, amps: dict[int, float]) -> np.ndarray:
    """A real, centred template with ``x̂[±k] = amps[k]`` (zero phase) and every other ``x̂`` zero.

    Parameters
    ----------
    p : int
        its length.
    amps : dict[int, float]
        frequency → DFT modulus.

    Returns
    -------
    np.ndarray
        ``(p,)``.
    """
    xh = np.zeros(p, complex)
    for k, a in amps.items():
        xh[k % p] = a
        xh[(-k) % p] = a
    x = np.fft.ifft(xh).real
    return x - x.mean()


def dataset(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All ``p²`` pairs ``(a, b)`` of the modular-addition task.

    Parameters
    ----------
    x : ndarray
        the template (module conventions), rolled by ``a``, ``b`` and ``a + b``.

    Returns
    -------
    (np.ndarray, np.ndarray)
        Inputs ``(p², 2p)`` = ``(roll(x, a), roll(x, b))`` and targets ``(p², p)`` = ``roll(x, a+b)``.
    """
    p = len(x)
    a, b = np.meshgrid(np.arange(p), np.arange(p), indexing="ij")
    a, b = a.ravel(), b.ravel()
    rolls = np.stack([np.roll(x, k) for k in range(p)])
    return np.concatenate([rolls[a], rolls[b]], 1), rolls[(a + b) % p]


def fourier_utility(u: np.ndarray, v: np.ndarray, w: np.ndarray, x: np.ndarray) -> float:
    """Lemma F.2's Fourier form of ``U = mean_{a,b} ⟨w (⟨u,a·x⟩+⟨v,b·x⟩)², (a+b)·x⟩``.

    Parameters
    ----------
    u, v, w, x : ndarray
        one neuron and the template (module conventions); only ``k ≠ 0`` enters.

    Returns
    -------
    float
        ``U``, the real part of the Fourier sum.
    """
    p = len(x)
    xh, uh, vh, wh = (np.fft.fft(t) for t in (x, u, v, w))
    k = np.arange(1, p)
    return float((2 / p ** 3 * np.sum(np.abs(xh[k]) ** 2 * uh[k] * vh[k] * np.conj(wh[k]) * np.conj(xh[k]))).real)


def direct_utility(u: np.ndarray, v: np.ndarray, w: np.ndarray, x: np.ndarray) -> float:
    """The same utility as :func:`fourier_utility`, by summing over the ``p²`` pairs.

    Parameters
    ----------
    u, v, w, x : ndarray
        one neuron and the template (module conventions), as for :func:`fourier_utility`.

    Returns
    -------
    float
        ``U``, the mean over the ``p²`` pairs.
    """
    X, Y = dataset(x)
    p = len(x)
    f = (X[:, :p] @ u + X[:, p:] @ v) ** 2
    return float(np.mean(f * (Y @ w)))


@dataclass
class ModularAGF:
    """Eq. 9's prediction for a template.

    Parameters
    ----------
    order : list[int]
        frequencies ``1 ≤ ξ ≤ p/2`` by decreasing ``|x̂|``.
    levels : ndarray
        ``(K+1,)`` loss levels (½-sum-over-outputs, mean-over-pairs loss).
    u_star : ndarray
        ``(K,)`` maximal utilities ``Ū*`` of Thm F.3.
    amps : ndarray
        ``(K,)`` ``|x̂[ξ]|`` in that order.
    """

    order: list[int]
    levels: np.ndarray
    u_star: np.ndarray
    amps: np.ndarray

    def jump_bound(self, alpha: float) -> np.ndarray:
        """A non-recursive simplification (ours) of the paper's jump bound (App. E.3) on each frequency's
        learning time, ``(1/‖θ₀‖ − 1)/(3Ū*_k)`` with ``‖θ₀‖ = √2 α`` (κ = 3; flow time, the mean-over-pairs
        loss). Not the paper's bound: E.3 uses the largest dormant norm at the previous drop.

        Parameters
        ----------
        alpha : float
            the initialisation scale.

        Returns
        -------
        np.ndarray
            ``(K,)`` in the order of ``order``.
        """
        return (1 / (math.sqrt(2) * alpha) - 1) / (3 * self.u_star)


def predict(x: np.ndarray, tol: float = 1e-9) -> ModularAGF:
    """Order, levels and ``Ū*`` for a template (Eq. 9, Thm F.3).

    Parameters
    ----------
    x : ndarray
        the template (module conventions).
    tol : float, optional
        frequencies with ``|x̂| ≤ tol·max|x̂|`` are ignored.

    Returns
    -------
    ModularAGF
    """
    p = len(x)
    xh = np.abs(np.fft.fft(x))
    freqs = [k for k in range(1, p // 2 + 1) if xh[k] > tol * xh.max()]
    freqs.sort(key=lambda k: -xh[k])
    power = {k: (xh[k] ** 2 if 2 * k == p else 2 * xh[k] ** 2) for k in freqs}   # ±k together
    total = sum(power.values())
    levels = [total / (2 * p)]
    for k in freqs:
        total -= power[k]
        levels.append(max(total, 0.0) / (2 * p))
    u_star = np.array([math.sqrt(2 / (27 * p ** 3)) * xh[k] ** 3 for k in freqs])
    return ModularAGF(freqs, np.array(levels), u_star, xh[freqs])


def output_power(pred: Tensor, p: int) -> Tensor:
    """Mean modulus of the rfft of the outputs, per frequency.

    Parameters
    ----------
    pred : Tensor
        ``(..., n, p)`` network outputs.
    p : int
        the template length.

    Returns
    -------
    Tensor
        ``(..., p//2+1)``.
    """
    return torch.fft.rfft(pred, dim=-1).abs().mean(-2)


def dominant_frequency(W: Tensor) -> Tensor:
    """Dominant rfft frequency (≥ 1) of each row.

    Parameters
    ----------
    W : Tensor
        ``(..., m, p)``.

    Returns
    -------
    Tensor
        ``(..., m)`` int.
    """
    P = torch.fft.rfft(W, dim=-1).abs()
    P[..., 0] = 0
    return P.argmax(-1)


def harmonic_basis(p: int, xi: int) -> np.ndarray:
    """Orthonormal basis of the real harmonic of frequency ``xi``.

    Parameters
    ----------
    p : int
        the length.
    xi : int
        the frequency (``0 < 2ξ < p``).

    Returns
    -------
    np.ndarray
        ``(p, 2)``, columns ``√(2/p) cos(2πξn/p)`` and ``√(2/p) sin(2πξn/p)``.
    """
    if not 0 < 2 * xi < p:
        raise ValueError(f"need 0 < 2·xi < p, got xi = {xi}, p = {p}")
    n = np.arange(p)
    return math.sqrt(2 / p) * np.stack([np.cos(2 * np.pi * xi * n / p), np.sin(2 * np.pi * xi * n / p)], 1)


def without_frequency(x: np.ndarray, xi: int) -> np.ndarray:
    """The template with its ``±xi`` harmonic removed.

    Parameters
    ----------
    x : ndarray
        the template (module conventions).
    xi : int
        the frequency to remove.

    Returns
    -------
    np.ndarray
        ``(p,)``.
    """
    xh = np.fft.fft(x)
    xh[xi % len(x)] = 0
    xh[(-xi) % len(x)] = 0
    return np.fft.ifft(xh).real


def residual_utility(u: np.ndarray, v: np.ndarray, w: np.ndarray, X: np.ndarray, R: np.ndarray) -> np.ndarray:
    """Utility ``mean_{a,b} ⟨w (⟨u,a·x⟩+⟨v,b·x⟩)², r(a, b)⟩`` of neurons against a residual.

    Parameters
    ----------
    u, v, w : ndarray
        the ``K`` neurons, ``(K, p)`` each (module conventions).
    X : ndarray
        ``(p², 2p)`` the inputs of :func:`dataset`.
    R : ndarray
        ``(p², p)`` the residual.

    Returns
    -------
    np.ndarray
        ``(K,)``.
    """
    p = u.shape[-1]
    f = (X[:, :p] @ u.T + X[:, p:] @ v.T) ** 2                   # (p², K)
    return np.mean(f * (R @ w.T), axis=0)
