"""Min, Mallada & Vidal (ICLR 2024), "Early neuron alignment in two-layer ReLU
networks with small initialization": f(x) = Σ_j v_j σ(⟨w_j, x⟩) trained by gradient
flow on the **sum** loss 𝓛 = Σ_i ℓ(y_i, f(x_i)), ℓ = exponential or 2·logistic,
from a small balanced init (eq. 3).

Closed forms and geometric objects of the paper's Sections 2–3 and Appendix C (tested in
``tests/test_theory_alignment.py``):

* Assumption 1's ``μ`` and the data aggregates ``x_±``, ``X_max``, ``X_min`` (:func:`geometry`);
* the cones S₊, S₋, S_dead (:func:`cone_membership`), the signed activated sum
  ``x_a(w) = Σ_{⟨x_i,w⟩>0} y_i x_i`` (:func:`signed_active_sum`);
* the exact direction velocity d/dt(w_j/‖w_j‖) under gradient flow and its
  approximation ``sign(v_j) P_{w_j} x_a(w_j)`` (eq. 4), with Lemma 4's error bound;
* Lemma 2's loss-derivative gap, the constants ζ₁, ζ₂, ζ, ξ, t₁, α and the O(1/t) loss bound;
* data sets: the two-point family (Figs 7–9), a 2-D toy (Fig 6), a synthetic
  separable family, and the theory init (3).

Shapes: data ``X (n, D)`` (rows x_i) or ``(R..., n, D)``; labels ``y (n,)`` or ``(R..., n)``
with values ±1; neurons ``W (R..., m, D)`` (rows w_j, the ``W1`` of
:class:`lrlib.models.TwoLayer`); output weights ``v_j = p.a`` ``(R..., m)``.
Everything is float64-friendly and vectorised over neurons and runs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence, TypeVar

import numpy as np
import torch

from ...errors import ParameterError
from ...measure import active, cosine
from ...losses import Loss
from ...models import TwoLayer, balanced_init, forward, random_signs
from ...trajectory import Trajectory

Tensor = torch.Tensor
F64 = torch.float64
_T = TypeVar("_T")


# ---------------------------------------------------------------------------
# data geometry (Assumption 1, Lemmas 5, 8, 9)
# ---------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------
# activation geometry
# ---------------------------------------------------------------------------

def signed_active_sum(W: Tensor, X: Tensor, y: Tensor) -> Tensor:
    """The signed activated sum ``x_a(w_j) = Σ_{i: ⟨x_i,w_j⟩>0} y_i x_i`` (eq. 5).

    Parameters
    ----------
    W : Tensor
        Neurons ``(..., m, D)``.
    X : Tensor
        Data ``(n, D)`` or ``(..., n, D)``.
    y : Tensor
        Labels ``(n,)`` or ``(..., n)``.

    Returns
    -------
    Tensor
        ``(..., m, D)``.
    """
    X = X.to(W.dtype)
    act = active(W, X).transpose(-1, -2).to(W.dtype)  # (..., n, m)
    coef = act * y.to(W.dtype).unsqueeze(-1)  # (..., n, m)
    return coef.transpose(-1, -2) @ X


def n_active(W: Tensor, X: Tensor) -> Tensor:
    """``n_a(w_j) = |{i : ⟨x_i, w_j⟩ > 0}|``, the number of points a neuron activates.

    Parameters
    ----------
    W, X : Tensor
        Neurons ``(..., m, D)`` and data ``(n, D)``; the labels play no part.

    Returns
    -------
    Tensor
        ``(..., m)``, int64.
    """
    return active(W, X).transpose(-1, -2).sum(-2)


def cone_membership(W: Tensor, X: Tensor, y: Tensor) -> dict[str, Tensor]:
    """Boolean masks of the paper's neuron cones.

    ``"S_plus"``: ``w_j`` activates exactly the positive points; ``"S_minus"``: exactly the negative
    points; ``"S_dead"``: no point (``⟨x_i, w⟩ ≤ 0`` for all i); ``"other"``: none of these.  With one
    class empty the masks overlap (e.g. S₋ = S_dead when every label is +1).

    Parameters
    ----------
    W : Tensor
        Neurons ``(..., m, D)``.
    X : Tensor
        Data ``(n, D)``.
    y : Tensor
        Labels ``(n,)``.

    Returns
    -------
    dict of str to Tensor
        Each mask ``(..., m)``, bool.
    """
    act = active(W, X).transpose(-1, -2)  # (..., n, m)
    pos = (y > 0).unsqueeze(-1)
    s_plus = (act == pos).all(-2)
    s_minus = (act == ~pos).all(-2)
    s_dead = (~act).all(-2)
    return {"S_plus": s_plus, "S_minus": s_minus, "S_dead": s_dead, "other": ~(s_plus | s_minus | s_dead)}


def _project(W: Tensor, V: Tensor) -> Tensor:
    """Row-wise projection ``P_{w_j} v_j = v_j − ⟨v_j, w_j⟩ w_j / ‖w_j‖²`` (``v_j`` where ``w_j = 0``).

    Parameters
    ----------
    W, V : Tensor
        ``(..., m, D)`` each.

    Returns
    -------
    Tensor
        ``(..., m, D)``.
    """
    sq = (W * W).sum(-1, keepdim=True)
    coef = torch.where(sq > 0, (V * W).sum(-1, keepdim=True) / sq.clamp_min(torch.finfo(W.dtype).tiny),
                       torch.zeros_like(sq))
    return V - coef * W


# ---------------------------------------------------------------------------
# direction dynamics (eq. 4, Lemmas 2 and 4, Figs 12/13)
# ---------------------------------------------------------------------------

def _grad_W1(p: TwoLayer, X: Tensor, y: Tensor, loss: Loss) -> Tensor:
    """``∇_{W1} 𝓛`` ``(R..., m, D)`` of ``loss(forward(p, X), y)`` per run (full batch, autograd);
    the arguments are those of :func:`direction_velocity`."""
    W1 = p.W1.detach().clone().requires_grad_(True)
    q = TwoLayer(W1=W1, W2=p.W2.detach(), b1=None if p.b1 is None else p.b1.detach(),
                 b2=None if p.b2 is None else p.b2.detach(), act=p.act)
    with torch.enable_grad():
        L = loss(forward(q, X.to(W1.dtype)), y.to(W1.dtype)).sum()  # runs are independent
        (g,) = torch.autograd.grad(L, W1)
    return g


def direction_velocity(p: TwoLayer, X: Tensor, y: Tensor, loss: Loss) -> Tensor:
    """The exact direction velocity ``d/dt (w_j/‖w_j‖) = −P_{w_j} ∇_{w_j}𝓛 / ‖w_j‖`` under gradient flow.

    The gradient is taken by autograd (ReLU with σ′(0) = 0, the paper's subgradient).  Zero neurons
    get 0.

    Parameters
    ----------
    p : TwoLayer
        ``W1`` of shape ``(R..., m, D)``.
    X, y : Tensor
        Data ``(n, D)`` and labels ``(n,)``.
    loss : Loss

    Returns
    -------
    Tensor
        ``(R..., m, D)``, in 1/time.
    """
    W = p.W1.detach()
    G = _grad_W1(p, X, y, loss)
    nrm = torch.linalg.vector_norm(W, dim=-1, keepdim=True)
    out = _project(W, -G) / nrm.clamp_min(torch.finfo(W.dtype).tiny)
    return torch.where(nrm > 0, out, torch.zeros_like(out))


def approx_direction_velocity(p: TwoLayer, X: Tensor, y: Tensor) -> Tensor:
    """Eq. (4), the simplified direction velocity ``sign(v_j) P_{w_j} x_a(w_j)``.

    Parameters
    ----------
    p : TwoLayer
        ``W1`` of shape ``(R..., m, D)``; ``v_j = p.a``.
    X, y : Tensor
        Data ``(n, D)`` and labels ``(n,)``.

    Returns
    -------
    Tensor
        ``(R..., m, D)``.
    """
    W = p.W1.detach()
    xa = signed_active_sum(W, X, y)
    return torch.sign(p.a.detach()).unsqueeze(-1) * _project(W, xa)


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


def norm_and_direction_change(p: TwoLayer, X: Tensor, y: Tensor, loss: Loss) -> tuple[Tensor, Tensor]:
    """Figs 12/13 (A.5): how fast the neuron norms and directions change, per run.

    With ``G = ∇_{W1}𝓛`` (full batch, first layer only): the norm change
    ``Σ_j d/dt‖w_j‖² = Σ_j 2⟨−∇_{w_j}𝓛, w_j⟩`` and the direction change
    ``Σ_j ‖P_{w_j}(−∇_{w_j}𝓛 / ‖w_j‖)‖`` (= ``Σ_j ‖d/dt (w_j/‖w_j‖)‖``).

    Parameters
    ----------
    p, X, y, loss
        The network (``W1 (R..., m, D)``; only the first layer's gradient is taken), the full batch
        and the loss, as in :func:`direction_velocity`.

    Returns
    -------
    (Tensor, Tensor)
        Norm change and direction change, ``(R...)`` each (per unit time).
    """
    W = p.W1.detach()
    G = _grad_W1(p, X, y, loss)
    norm_change = 2 * (-G * W).sum((-1, -2))
    nrm = torch.linalg.vector_norm(W, dim=-1, keepdim=True)
    d = _project(W, -G) / nrm.clamp_min(torch.finfo(W.dtype).tiny)
    d = torch.where(nrm > 0, d, torch.zeros_like(d))
    return norm_change, torch.linalg.vector_norm(d, dim=-1).sum(-1)


# ---------------------------------------------------------------------------
# data sets and init
# ---------------------------------------------------------------------------

def two_point_data(theta: float, dtype: torch.dtype = F64) -> tuple[Tensor, Tensor]:
    """Figs 7–9's data: ``x₁ = [1, 0]``, ``x₂ = [sin θ, cos θ]``, both labelled +1.

    Parameters
    ----------
    theta : float
        Angle in radians; μ = ⟨x₁, x₂⟩ = sin θ for θ ∈ [0, π/2] (θ = 0: orthogonal, Fig 9).
    dtype : torch.dtype, optional

    Returns
    -------
    (Tensor, Tensor)
        ``X (2, 2)``, ``y (2,)``.
    """
    X = torch.tensor([[1.0, 0.0], [math.sin(theta), math.cos(theta)]], dtype=F64).to(dtype)
    return X, torch.ones(2, dtype=dtype)


TOY_POS_DEG = (10.0, 25.0, 40.0)
TOY_NEG_DEG = (140.0, 155.0, 170.0)
TOY_NORMS = (0.8, 1.0, 1.2)


def toy_2d(
    dtype: torch.dtype = F64,
    *,
    pos_deg: Sequence[float] = TOY_POS_DEG,
    neg_deg: Sequence[float] = TOY_NEG_DEG,
    norms: Sequence[float] = TOY_NORMS,
) -> tuple[Tensor, Tensor]:
    """A fixed Fig 6 toy: points ``r(cos a, sin a)``, positives at ``pos_deg``, negatives at ``neg_deg``.

    Default angles 10°, 25°, 40° / 140°, 155°, 170°: μ = cos 80° ≈ 0.174 and S_dead ≠ ∅.  Angles 15°,
    30°, 45° / 135°, 150°, 165° would not do: 45° and 135° are orthogonal, so μ = 0.

    Parameters
    ----------
    dtype : torch.dtype, optional
    pos_deg, neg_deg : sequence of float
        Angles in degrees.
    norms : sequence of float
        Radii per class, in that order.

    Returns
    -------
    (Tensor, Tensor)
        ``X (n, 2)``, ``y (n,)`` (positives first).
    """
    if not (len(pos_deg) == len(neg_deg) == len(norms)):
        raise ParameterError("toy_2d: pos_deg, neg_deg and norms must have equal lengths")
    ang = torch.tensor([*pos_deg, *neg_deg], dtype=F64) * (math.pi / 180)
    r = torch.tensor([*norms, *norms], dtype=F64)
    X = r.unsqueeze(-1) * torch.stack([torch.cos(ang), torch.sin(ang)], -1)
    y = torch.cat([torch.ones(len(pos_deg), dtype=F64), -torch.ones(len(neg_deg), dtype=F64)])
    return X.to(dtype), y.to(dtype)


def synthetic_separable(
    n: int, D: int, s: float, gen: torch.Generator, dtype: torch.dtype = F64, max_tries: int = 10_000
) -> tuple[Tensor, Tensor]:
    """The synthetic separable family: positives ``e₁ + s g`` then negatives ``−e₁ + s g``, ``g ~ N(0, I_D)``.

    ``n₊ = n − ⌊n/2⌋``, ``n₋ = ⌊n/2⌋``; the whole set is redrawn from ``gen`` until ``μ > 0``.

    Parameters
    ----------
    n, D, s, gen, dtype, max_tries
        Points, dimension, noise scale, generator, dtype and the number of redraws allowed, as in
        :func:`.data.two_direction_separable`.

    Returns
    -------
    (Tensor, Tensor)
        ``X (n, D)``, ``y (n,)``.

    Raises
    ------
    ParameterError
        Bad sizes, or no draw with ``μ > 0`` in ``max_tries`` (lower ``s``).
    """
    if n < 2 or D < 1:
        raise ParameterError(f"synthetic_separable: need n ≥ 2 and D ≥ 1, got n={n}, D={D}")
    n_minus = n // 2
    y = torch.cat([torch.ones(n - n_minus, dtype=F64), -torch.ones(n_minus, dtype=F64)])
    u = torch.zeros(D, dtype=F64)
    u[0] = 1.0
    for _ in range(max_tries):
        X = y.unsqueeze(-1) * u + s * torch.randn((n, D), generator=gen, dtype=F64)
        if mu(X, y) > 0:
            return X.to(dtype), y.to(dtype)
    raise ParameterError(f"synthetic_separable: no draw with μ > 0 in {max_tries} tries; lower s={s}")


def balanced_theory_init(
    h: int, D: int, eps: float, gen: torch.Generator, runs: tuple[int, ...] = (), dtype: torch.dtype = F64
) -> TwoLayer:
    """The theory's initialisation (3): ``W = ε W₀``, ``[W₀]_ij ~ N(0, 1/D)``, ``v_j = s_j ‖w_j‖``.

    Signs are equiprobable; a run that misses a sign is redrawn (from ``gen``) until it has both.
    ``W₀ = W/ε`` (so ``W_max = max_j ‖w_j‖/ε``); the sign of ``v_j`` is ``sign(p.a)``.

    Parameters
    ----------
    h, D : int
        Width (``h ≥ 2``) and input dimension.
    eps : float
        Scale ε.
    gen : torch.Generator
    runs : tuple of int, optional
        Leading run dimensions.
    dtype : torch.dtype, optional

    Returns
    -------
    TwoLayer
        ``W1 (R..., h, D)``, ``W2 (R..., 1, h)``.
    """
    if h < 2:
        raise ParameterError(f"balanced_theory_init: need h ≥ 2 for both signs, got {h}")
    s = random_signs((*runs, h), gen)
    while True:  # redraw only the runs that miss a sign
        bad = ~((s > 0).any(-1) & (s < 0).any(-1))
        if not bool(bad.any()):
            break
        s[bad] = random_signs((int(bad.sum()), h), gen)
    return balanced_init(h, D, scale=eps / math.sqrt(D), gen=gen, signs=s, runs=runs, dtype=dtype)


# ---------------------------------------------------------------------------
# Measurements on networks and trajectories (used by the chapter)
# ---------------------------------------------------------------------------

def settled(p: TwoLayer, X: Tensor, y: Tensor) -> Tensor:
    """Theorem 1 part 1's end state, per neuron.

    ``w_j ∈ S₊ ∪ S_dead`` when ``v_j > 0``, ``w_j ∈ S₋ ∪ S_dead`` when ``v_j < 0`` (``V±`` read from the
    current sign of ``v_j``).

    Parameters
    ----------
    p : TwoLayer
        ``W1`` of shape ``(..., m, D)``.
    X, y : Tensor
        Data ``(n, D)`` and labels ``(n,)``.

    Returns
    -------
    Tensor
        ``(..., m)``, bool.
    """
    c = cone_membership(p.W1, X, y)
    return torch.where(p.a > 0, c["S_plus"] | c["S_dead"], c["S_minus"] | c["S_dead"])


def alignment_times(traj: Trajectory, X: Tensor, y: Tensor) -> np.ndarray:
    """Measured ``t₁`` per run: the first snapshot time at which every neuron is :func:`settled`.

    Parameters
    ----------
    traj : Trajectory
        ``T`` snapshots of ``R...`` runs.
    X, y : Tensor
        Data ``(n, D)`` and labels ``(n,)``.

    Returns
    -------
    ndarray
        ``(R...)``, flow time; NaN where never.
    """
    ok = settled(traj.params, X, y).all(-1)                                    # (T, R...)
    flat = ok.reshape(ok.shape[0], -1).numpy()
    out = np.array([traj.time[int(np.argmax(flat[:, r]))] if flat[:, r].any() else np.nan
                    for r in range(flat.shape[1])])
    return out.reshape(ok.shape[1:])


def live_outside_s_plus(p: TwoLayer, X: Tensor, y: Tensor) -> Tensor:
    """Figs 7–9's count: neurons with ``v_j > 0``, not dead and not in ``S₊``.

    Parameters
    ----------
    p, X, y
        The network (``W1 (..., m, D)``, signs of ``v_j = p.a``) and the data, as in :func:`settled`.

    Returns
    -------
    Tensor
        ``(...)``, int.
    """
    c = cone_membership(p.W1, X, y)
    return ((p.a > 0) & ~c["S_dead"] & ~c["S_plus"]).sum(-1)


def class_alignment(traj: Trajectory, X: Tensor, y: Tensor) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Fig 5's alignment panels for one run.

    For ``side`` in ``"+"``, ``"-"``: the cosine of the mean neuron ``w̄± = mean_{j∈V±(t)} w_j`` with
    ``x± = Σ_{y_i=±1} x_i``, and the min and max of ``cos(w_j, x±)`` over ``V±(t)`` (``V±(t)`` from
    ``sign v_j(t)``).

    Parameters
    ----------
    traj : Trajectory
        One run, ``W1`` of shape ``(T, m, D)``.
    X, y : Tensor
        Data ``(n, D)`` and labels ``(n,)``.

    Returns
    -------
    dict
        ``{"+": (mean, lo, hi), "-": (mean, lo, hi)}``, each ``(T,)``.
    """
    out = {}
    W, a = traj.params.W1, traj.params.a                                      # (T, m, D), (T, m)
    for side, sgn in (("+", 1), ("-", -1)):
        xs = X[y == sgn].sum(0)
        c = cosine(W, xs)
        mask = torch.sign(a) == sgn
        mean_w = (W * mask.unsqueeze(-1)).sum(-2) / mask.sum(-1, keepdim=True).clamp_min(1)
        out[side] = (cosine(mean_w, xs).numpy(), torch.where(mask, c, torch.inf).amin(-1).numpy(),
                     torch.where(mask, c, -torch.inf).amax(-1).numpy())
    return out


def cap_leaves_cone(x: Tensor, zeta_: float, X: Tensor, y: Tensor, cone: str, gen: torch.Generator,
                    n_dirs: int = 20_000) -> bool:
    """Does the boundary of the cap ``{z : cos(z, x) = √(1 − ζ)}`` leave ``cone``?

    Tested on ``n_dirs`` random directions of that boundary: a tiny leak can be missed, an inclusion
    is never wrongly refuted.

    Parameters
    ----------
    x : Tensor
        The cap's axis ``(D,)``.
    zeta_ : float
        ζ.
    X, y : Tensor
        Data ``(n, D)`` and labels ``(n,)``.
    cone : str
        ``"S_plus"`` or ``"S_minus"``.
    gen : torch.Generator
    n_dirs : int, optional

    Returns
    -------
    bool
    """
    u = x / torch.linalg.vector_norm(x)
    g = torch.randn(n_dirs, x.numel(), generator=gen, dtype=F64)
    g = g - (g @ u)[:, None] * u
    g = g / torch.linalg.vector_norm(g, dim=-1, keepdim=True)
    c = math.sqrt(1 - zeta_)
    z = c * u + math.sqrt(1 - c * c) * g
    return bool((~cone_membership(z, X, y)[cone]).any())


def two_phase_ratio(norm_change: np.ndarray, direction_change: np.ndarray) -> tuple[int, float]:
    """Figs 12/13: where the direction change peaks, and the norm change there.

    Parameters
    ----------
    norm_change, direction_change : ndarray
        Per snapshot, ``(T,)`` (from :func:`norm_and_direction_change`).

    Returns
    -------
    (int, float)
        The snapshot ``i ≥ 1`` of the peak direction change and ``|norm_change[i]|`` over the largest
        ``|norm_change|`` of the run.
    """
    i = int(np.argmax(direction_change[1:])) + 1
    return i, float(np.abs(norm_change[i]) / np.abs(norm_change[1:]).max())


# ---------------------------------------------------------------------------
# Declared data families and measurements of the claims ledger
# ---------------------------------------------------------------------------

def toy_family(runs: int, gen: torch.Generator, *, mirror: bool = False,
               dtype: torch.dtype = F64) -> tuple[Tensor, Tensor]:
    """Fig 6's declared toy family, one draw per run.

    Three positives at angles uniform in [5°, 45°] with radii uniform in [0.8, 1.2]; three negatives at
    angles uniform in [135°, 175°] with radii uniform in [0.4, 0.8] (the shorter class is fitted later).
    ``mirror=True`` (the control) replaces each negative by the mirror image ``−x₊ᵢ`` of a positive of
    the same draw; the draw is the same with and without ``mirror`` for the same generator state.

    Parameters
    ----------
    runs : int
    gen : torch.Generator
    mirror : bool, optional
    dtype : torch.dtype, optional

    Returns
    -------
    (Tensor, Tensor)
        ``X (runs, 6, 2)``, ``y (6,)`` (positives first).
    """
    if runs < 1:
        raise ParameterError(f"toy_family: need runs ≥ 1, got {runs}")
    u = torch.rand((runs, 4, 3), generator=gen, dtype=F64)
    ang_p = (5 + 40 * u[:, 0]) * (math.pi / 180)
    ang_n = (135 + 40 * u[:, 1]) * (math.pi / 180)
    r_p, r_n = 0.8 + 0.4 * u[:, 2], 0.4 + 0.4 * u[:, 3]
    pos = r_p.unsqueeze(-1) * torch.stack([ang_p.cos(), ang_p.sin()], -1)
    neg = -pos if mirror else r_n.unsqueeze(-1) * torch.stack([ang_n.cos(), ang_n.sin()], -1)
    y = torch.cat([torch.ones(3, dtype=F64), -torch.ones(3, dtype=F64)])
    return torch.cat([pos, neg], -2).to(dtype), y.to(dtype)


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


def lost_neurons(p0: TwoLayer, p: TwoLayer, X: Tensor, y: Tensor) -> Tensor:
    """Theorem 1 part 1's "moreover" clause, per run.

    Counts neurons with ``v_j(0) > 0`` that initially activated a positive point but are not in ``S₊``
    under ``p`` (mirror for ``v_j < 0`` and ``S₋``).

    Parameters
    ----------
    p0, p : TwoLayer
        Initial and current networks, same run shape, ``W1 (R..., m, D)``.
    X, y : Tensor
        Data ``(n, D)`` and labels ``(n,)``.

    Returns
    -------
    Tensor
        ``(R...)``, int.
    """
    act0 = active(p0.W1, X).transpose(-1, -2)                                                  # (R..., n, m)
    init_pos, init_neg = act0[..., y > 0, :].any(-2), act0[..., y < 0, :].any(-2)
    c = cone_membership(p.W1, X, y)
    pos = p0.a > 0
    lost = (pos & init_pos & ~c["S_plus"]) | (~pos & init_neg & ~c["S_minus"])
    return lost.sum(-1)


def rel_gap(a: _T, b: _T) -> _T:
    """``|a − b| / |b|`` (step-convergence gaps: ``a`` at η/2, ``b`` at η).

    Parameters
    ----------
    a, b : float, ndarray or Tensor

    Returns
    -------
    Same type as the inputs.
    """
    return abs(a - b) / abs(b)
