"""Min, Mallada & Vidal (ICLR 2024), "Early neuron alignment in two-layer ReLU
networks with small initialization": f(x) = Σ_j v_j σ(⟨w_j, x⟩) trained by gradient
flow on the **sum** loss 𝓛 = Σ_i ℓ(y_i, f(x_i)), ℓ = exponential or 2·logistic,
from a small balanced init (eq. 3).

The paper's closed forms (tested in ``tests/test_theory_alignment_core.py``):

* Assumption 1's ``μ`` and the data aggregates ``x_±``, ``X_max``, ``X_min`` (:func:`geometry`);
* Lemma 2's loss-derivative gap, Lemma 4's error bound, Lemma 1's deviation bound;
* the constants ζ₁, ζ₂, ζ, ξ, t₁, α, the horizon T, eq. (28)'s bound and the O(1/t) loss bound.

The cones and the direction velocity are in :mod:`.cones`, the data sets in :mod:`.data`,
the measurements on trajectories in :mod:`.measure` and :mod:`.lemmas`.

Shapes and units: the package's conventions (:mod:`lrlib.theory.alignment`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import torch

from ...errors import ParameterError
from ...measure import cosine

Tensor = torch.Tensor
F64 = torch.float64
_T = TypeVar("_T")


def _unit_rows(Z: Tensor) -> Tensor:
    return Z / torch.linalg.vector_norm(Z, dim=-1, keepdim=True)


def mu(X: Tensor, y: Tensor) -> float:
    """Assumption 1's separability constant μ.

    ``μ = min_{i,j} ⟨x_i y_i, x_j y_j⟩ / (‖x_i‖‖x_j‖)``; ``μ > 0`` means same-label pairs are
    positively and opposite-label pairs negatively correlated.  Always ``μ ≤ 1`` (the diagonal
    ``i = j`` is included).

    Parameters
    ----------
    X, y : Tensor
        Data ``(n, D)`` and labels ``(n,)`` ±1; the pairs ``i = j`` count too.

    Returns
    -------
    float
        μ (dimensionless, a cosine).
    """
    Z = _unit_rows(X * y.to(X.dtype).unsqueeze(-1))
    return float((Z @ Z.T).min())


@dataclass(frozen=True)
class DataGeometry:
    """Data constants of the paper for ``X (n, D)``, ``y (n,)``.

    Parameters
    ----------
    mu : float
        Assumption 1's μ.
    x_plus, x_minus : Tensor
        ``Σ_{i∈I±} x_i``, ``(D,)`` (zero vector for an empty class).
    X_max, X_min : float
        ``max_i ‖x_i‖``, ``min_i ‖x_i‖``.
    n, n_plus, n_minus : int
        Point counts.
    zeta1 : float
        ``0.999·min{min_i cos²(x₊,x_i), min_i cos²(x₋,x_i)}`` (Lemma 8's value; the 0.999 makes the
        cap ``{z: cos(z,x±) ≥ √(1−ζ₁)}`` lie strictly inside S±); an empty class is left out.
    xi_lower : float
        μ², a valid lower bound for Lemma 9's ξ.  It is in fact exact: ``z ↦ ⟨z,u⟩/‖z‖`` is
        quasi-concave on the cone ``K = cone{x_i y_i}``, so the min is attained at a generator.
    """

    mu: float
    x_plus: Tensor
    x_minus: Tensor
    X_max: float
    X_min: float
    n: int
    n_plus: int
    n_minus: int
    zeta1: float
    xi_lower: float


def geometry(X: Tensor, y: Tensor) -> DataGeometry:
    """All :class:`DataGeometry` constants of a data set.

    Parameters
    ----------
    X, y : Tensor
        One data set: ``X (n, D)``, labels ``y (n,)`` ±1 (no run dimensions).

    Returns
    -------
    DataGeometry

    Raises
    ------
    ParameterError
        Wrong shapes or labels other than ±1.
    """
    if X.dim() != 2 or y.shape != X.shape[:1]:
        raise ParameterError(f"geometry: need X (n, D) and y (n,), got {tuple(X.shape)} and {tuple(y.shape)}")
    pos, neg = y > 0, y < 0
    if not bool((pos | neg).all()):
        raise ParameterError("geometry: labels must be ±1")
    x_plus, x_minus = X[pos].sum(0), X[neg].sum(0)
    norms = torch.linalg.vector_norm(X, dim=-1)
    c2 = []
    for cls, xc in ((pos, x_plus), (neg, x_minus)):
        if bool(cls.any()):
            c2.append(float((cosine(X, xc) ** 2).min()))
    m = mu(X, y)
    return DataGeometry(
        mu=m, x_plus=x_plus, x_minus=x_minus, X_max=float(norms.max()), X_min=float(norms.min()),
        n=int(X.shape[0]), n_plus=int(pos.sum()), n_minus=int(neg.sum()),
        zeta1=0.999 * min(c2), xi_lower=m * m,
    )


def zeta2(W0: Tensor, signs: Tensor, g: DataGeometry) -> float:
    """ζ₂ of Assumption 2 / eq. (26) for an initialisation.

    Eq. (26) asks for ``max_{j∈V₊} cos(w_j(0), x₋) < √(1−ζ₂)`` and ``max_{j∈V₋} cos(w_j(0), x₊) <
    √(1−ζ₂)``.  With ``c`` the larger maximum (over all runs) clipped at ``≥ 0`` this returns ``1 − c²``,
    the supremum of the valid ζ₂; ``c ≤ 0`` gives 1.  An empty class contributes nothing.  Only the
    directions of ``W0`` matter, so ``W(0) = εW₀`` can be passed directly.

    Parameters
    ----------
    W0 : Tensor
        Initial neurons ``(R..., m, D)``.
    signs : Tensor
        Output signs ``(R..., m)``.
    g : DataGeometry
        The data's constants.

    Returns
    -------
    float
    """
    c = 0.0
    for side, x in ((signs > 0, g.x_minus), (signs < 0, g.x_plus)):
        if float(torch.linalg.vector_norm(x)) == 0.0 or not bool(side.any()):
            continue
        cs = cosine(W0, x.to(W0.dtype))
        c = max(c, float(cs[side].max()))
    return 1.0 - c * c


def zeta(zeta1: float, zeta2: float) -> float:
    """ζ = min{ζ₁, ζ₂} (an erratum of the paper, which prints max).

    The proof of Theorem 1 needs both ``S^ζ_{x₋} ⊂ S₋`` (true for ζ ≤ ζ₁, Lemma 8) and
    ``w_j(0) ∉ S^ζ_{x₋}`` for ``j ∈ V₊`` (true for ζ ≤ ζ₂, eq. 26); the caps grow with ζ, so only the
    min gives both.

    Parameters
    ----------
    zeta1, zeta2 : float

    Returns
    -------
    float
    """
    return min(zeta1, zeta2)


def t1_bound(g: DataGeometry, zeta: float, xi: float) -> float:
    """Theorem 1's alignment-time bound ``t₁ = 16 log n / (min{ζ, ξ} √μ X_min)`` (Appendix C).

    Parameters
    ----------
    g : DataGeometry
    zeta, xi : float
        ζ (use :func:`zeta`) and a lower bound on ξ (``g.xi_lower``).

    Returns
    -------
    float
        Flow time.
    """
    return 16 * math.log(g.n) / (min(zeta, xi) * math.sqrt(g.mu) * g.X_min)


def alpha_rate(g: DataGeometry) -> float:
    """Final-phase rate constant ``α = (μ X_min)² / (32 X_max)`` (Appendix D.2).

    Parameters
    ----------
    g : DataGeometry

    Returns
    -------
    float
        In 1/(loss · time).
    """
    return (g.mu * g.X_min) ** 2 / (32 * g.X_max)


def loss_bound(L2: float, t2: float, t: _T, alpha: float) -> _T:
    """Theorem 1's O(1/t) bound ``𝓛(t) ≤ 𝓛(t₂) / (𝓛(t₂)·α·(t − t₂) + 1)`` for ``t ≥ t₂``.

    Parameters
    ----------
    L2 : float
        The summed loss at ``t₂``.
    t2 : float
        Fitting time (flow time).
    t : float, ndarray or Tensor
        Times ``≥ t₂`` (flow time).
    alpha : float
        :func:`alpha_rate`.

    Returns
    -------
    Same type as ``t``
        The bound at each ``t``.
    """
    return L2 / (L2 * alpha * (t - t2) + 1)


def lemma4_bound(g: DataGeometry, f_max: float | Tensor) -> float | Tensor:
    """Lemma 4's error bound ``‖d/dt(w_j/‖w_j‖) − sign(v_j) P_{w_j} x_a(w_j)‖ ≤ 2 n X_max max_i|f(x_i)|``.

    Valid for balanced weights (``|v_j| = ‖w_j‖``), ``max_i |f(x_i)| ≤ 1`` and the summed loss.

    Parameters
    ----------
    g : DataGeometry
    f_max : float or Tensor
        ``max_i |f(x_i)|`` (one per run for a tensor).

    Returns
    -------
    float or Tensor
    """
    return 2 * g.n * g.X_max * f_max


def lemma2_gap(y: Tensor, yhat: Tensor, kind: str) -> Tensor:
    """Lemma 2's gap ``|−∂ℓ/∂ŷ (y, ŷ) − y|``, elementwise.

    Parameters
    ----------
    y, yhat : Tensor
        Labels and outputs (broadcasting).
    kind : str
        ``"exponential"`` (ℓ = e^{−yŷ}), ``"logistic2"`` (ℓ = 2 log(1 + e^{−yŷ}), the appendix's) or
        ``"logistic"`` (the standard one, for contrast: its gap at ŷ = 0 is 1/2).

    Returns
    -------
    Tensor
        Broadcast shape of ``y`` and ``yhat``.
    """
    z = y * yhat
    if kind == "exponential":
        neg_d = y * torch.exp(-z)
    elif kind == "logistic2":
        neg_d = 2 * y * torch.sigmoid(-z)
    elif kind == "logistic":
        neg_d = y * torch.sigmoid(-z)
    else:
        raise ParameterError(f"lemma2_gap: kind must be 'exponential', 'logistic2' or 'logistic', got {kind!r}")
    return (neg_d - y).abs()


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


def horizon(g: DataGeometry, h: int, eps: float) -> float:
    """Lemma 1's horizon of the small-initialisation phase, ``T = log(1/(√h ε)) / (4 n X_max)``.

    Theorem 1 needs the alignment to finish by then (``t₁ ≤ T``).

    Parameters
    ----------
    g : DataGeometry
    h : int
        Width.
    eps : float
        Scale, ``0 < ε < 1/√h``.

    Returns
    -------
    float
        Flow time.
    """
    if not (0 < eps < 1 / math.sqrt(h)):
        raise ParameterError(f"horizon: need 0 < ε < 1/√h, got ε={eps}, h={h}")
    return math.log(1 / (math.sqrt(h) * eps)) / (4 * g.n * g.X_max)


def eq28_log10_bound(g: DataGeometry, h: int, W_max: float, zeta: float) -> float:
    """The largest initialisation scale Theorem 1 is proved for (eq. 28), as ``log10 ε_max``.

    ``ε ≤ min{min{μ, ζ, ξ}√μ X_min/(4√h n X_max² W_max²), h^{-1/2} exp(−64 n X_max log n/(min{ζ, ξ}√μ X_min))}``
    with ``ξ`` its lower bound ``μ²`` (``g.xi_lower``). Computed in log space: for most data the second
    term underflows float64 (``10^{-6·10^5}`` for the chapter's theory data). The second term is the
    condition ``T(ε) ≥`` the bound of :func:`t1_bound` written for ε.

    Parameters
    ----------
    g : DataGeometry
    h : int
        Width.
    W_max : float
        ``max_j ‖[W₀]_j‖`` of the initialisation ``W = εW₀``.
    zeta : float
        ζ (use :func:`zeta`).

    Returns
    -------
    float
        ``log10`` of the bound.
    """
    m = min(zeta, g.xi_lower)
    first = (math.log(min(g.mu, zeta, g.xi_lower) * math.sqrt(g.mu) * g.X_min)
             - math.log(4 * math.sqrt(h) * g.n * g.X_max ** 2 * W_max ** 2))
    second = -0.5 * math.log(h) - 64 * g.n * g.X_max * math.log(g.n) / (m * math.sqrt(g.mu) * g.X_min)
    return min(first, second) / math.log(10)
