"""Pinson (2026): the paper's per-neuron quantities — error vectors, gating, the polar angle φ of
``w2``, ⟨γ⟩ (eq. 9), cos δ, a = ‖w2‖‖w1‖, the gradients in norms and angles (eqs. 4–8, 66), the
targets of Thm. 4.1 / Props. 4.2–4.3, the growth rates (eqs. 18, 90) and App. G.

The network is :class:`~lrlib.models.TwoLayer` with ``k = 2`` outputs, biases and
softmax cross-entropy, mean over the ``N`` samples (the paper's ⟨·⟩ is
``(1/N) Σ_s g^s ·``, not a plain sum).  Labels ``y ∈ {0, 1}``: label 0 is the
paper's *class 1* (output node 0, ``φ_Δy = 7π/4``), label 1 its *class 2*
(``φ_Δy = 3π/4``).

Conventions (the arguments shared by the functions here and in :mod:`.measure` and :mod:`.merging`;
their docstrings name them compactly and add only what is specific):

- ``p`` (:class:`~lrlib.models.TwoLayer`): the network(s); tensors may carry leading run/time dims
  ``B...``: ``W1 (B..., m, D)``, ``b1 (B..., m)``, ``W2 (B..., 2, m)``, ``b2 (B..., 2)``.
- ``X`` (Tensor): inputs ``(N, D)`` shared by every run, or ``(B..., N, D)``.
- ``y`` (Tensor): labels ``(N,)`` or ``(B..., N)`` in {0, 1}; label 0 is the paper's class 1
  (φ_Δy = 7π/4).
- *Single network*: ``p`` without run dims, ``W1 (m, D)``, ``b1 (m,)``, ``W2 (2, m)``, ``b2 (2,)``
  (float64 for the identities), with ``X (N, D)``, ``y (N,)``; ``alpha`` (int) indexes one neuron.

Per-neuron outputs are ``(B..., m)`` or ``(B..., m, D)``.  Angles are in radians, ``φ ∈ [0, 2π)``.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from ...errors import ParameterError
from ...losses import Loss
from ...models import TwoLayer, forward, preactivations
from ...measure import active, cosine

Tensor = torch.Tensor
PHI1 = 7 * math.pi / 4   # φ* of neurons that push output node 0 (paper's class 1)
PHI2 = 3 * math.pi / 4   # φ* of neurons that push output node 1 (paper's class 2)

def error_vectors(p: TwoLayer, X: Tensor, y: Tensor) -> Tensor:
    """``Δy^s = y^s − ŷ^s`` (one-hot minus softmax), ``(B..., N, 2)``.

    Parameters
    ----------
    p : TwoLayer
        Network(s) (module conventions).
    X, y : Tensor
        Inputs and labels (module conventions); ``y`` is one-hot encoded against the softmax.

    Returns
    -------
    Tensor
        ``(B..., N, 2)``.
    """
    z = forward(p, X)
    return F.one_hot(y.long(), 2).to(z.dtype) - torch.softmax(z, -1)


def gating(p: TwoLayer, X: Tensor) -> Tensor:
    """Gating vectors ``g_α^s = 1[w1_α·x^s + b_α > 0]`` as float ``(B..., m, N)`` (one entry per sample).

    Parameters
    ----------
    p : TwoLayer
        Network(s) (module conventions); only ``W1`` and ``b1`` are read.
    X : Tensor
        Inputs (module conventions).

    Returns
    -------
    Tensor
        ``(B..., m, N)``, 1.0 where the neuron is active on the sample.
    """
    return active(p, X).to(p.W1.dtype)


def phi(p: TwoLayer) -> Tensor:
    """Polar angle of each outgoing vector ``w2_α``, in ``[0, 2π)``, ``(B..., m)``.

    Parameters
    ----------
    p : TwoLayer
        Network(s) (module conventions); only ``W2`` is read.

    Returns
    -------
    Tensor
        ``(B..., m)`` radians.
    """
    return torch.remainder(torch.atan2(p.W2[..., 1, :], p.W2[..., 0, :]), 2 * math.pi)


def angle_gap(a: Tensor, b: float | Tensor) -> Tensor:
    """Signed angle ``a − b`` wrapped into ``(−π, π]``.

    Parameters
    ----------
    a : Tensor
        Angles (radians), any shape.
    b : float or Tensor
        Angles broadcastable to ``a``.

    Returns
    -------
    Tensor
        ``a − b`` in ``(−π, π]``, the broadcast shape.
    """
    d = torch.remainder(a - b + math.pi, 2 * math.pi) - math.pi
    return torch.where(d == -math.pi, torch.full_like(d, math.pi), d)


def _unit_out(p: TwoLayer) -> Tensor:
    w2 = p.outgoing()                                                   # (B..., m, 2)
    return w2 / torch.linalg.vector_norm(w2, dim=-1, keepdim=True)


def gamma(p: TwoLayer, X: Tensor, y: Tensor) -> Tensor:
    """⟨γ_α⟩ = (1/N) Σ_s g_α^s cos(φ_Δy^s − φ_α) ‖Δy^s‖ x^s (eq. 9), ``(B..., m, D)``.

    Uses ``cos(φ_Δy − φ_α)‖Δy‖ = Δy · ŵ2_α``.

    Parameters
    ----------
    p : TwoLayer
        Network(s) (module conventions).
    X, y : Tensor
        Inputs and labels (module conventions); the mean runs over the ``N`` samples.

    Returns
    -------
    Tensor
        ``(B..., m, D)``.
    """
    dy = error_vectors(p, X, y)                                         # (B..., N, 2)
    c = _unit_out(p) @ dy.transpose(-1, -2)                             # (B..., m, N)
    return (gating(p, X) * c) @ X / X.shape[-2]


def cos_delta(p: TwoLayer, X: Tensor, y: Tensor) -> Tensor:
    """cos δ_α, δ_α = ∠(w1_α, ⟨γ_α⟩) (the vector angle, valid beyond 2-D), ``(B..., m)``.

    Parameters
    ----------
    p : TwoLayer
        Network(s) (module conventions).
    X, y : Tensor
        Inputs and labels (module conventions); ⟨γ_α⟩ as in :func:`gamma`.

    Returns
    -------
    Tensor
        ``(B..., m)``.
    """
    return cosine(p.W1, gamma(p, X, y))


def total_norm(p: TwoLayer) -> Tensor:
    """``a_α = ‖w2_α‖ ‖w1_α‖`` (bias excluded, as in the paper), ``(B..., m)``.

    Parameters
    ----------
    p : TwoLayer
        Network(s) (module conventions); ``b1`` is left out of ‖w1_α‖.

    Returns
    -------
    Tensor
        ``(B..., m)``.
    """
    return p.norms_out() * p.norms_in(with_bias=False)


def polar_gradients(p: TwoLayer, X: Tensor, y: Tensor) -> dict[str, Tensor]:
    """The paper's per-neuron gradients of the mean loss (eqs. 4–8, 66), by formula.

    Returns ``dphi`` ∂L/∂φ_α (eq. 4), ``dnorm2`` ∂L/∂‖w2_α‖ (eq. 5), ``dnorm1`` ∂L/∂‖w1_α‖
    (eq. 7, vector form −‖w2‖‖γ‖cos δ), ``dtheta`` the size of the angular derivative of w1_α in the
    plane of (w1_α, γ_α) (eq. 6: −‖w2‖‖w1‖‖γ‖ sin δ), ``db`` ∂L/∂b_α (eq. 8), all ``(B..., m)``, and
    ``dw1`` ∇_{w1_α} L = −‖w2_α‖⟨γ_α⟩ (eq. 66) ``(B..., m, D)``.

    Parameters
    ----------
    p : TwoLayer
        Network(s) (module conventions).
    X, y : Tensor
        Inputs and labels (module conventions); the gradients are those of the mean cross-entropy.

    Returns
    -------
    dict[str, Tensor]
        ``dphi``, ``dnorm2``, ``dnorm1``, ``dtheta``, ``db`` ``(B..., m)`` and ``dw1`` ``(B..., m, D)``.
    """
    N = X.shape[-2]
    dy = error_vectors(p, X, y)                                         # (B..., N, 2)
    u = _unit_out(p)                                                    # (B..., m, 2)
    g = gating(p, X)                                                    # (B..., m, N)
    h = preactivations(p, X).transpose(-1, -2) * g                     # (B..., m, N)
    cos_part = u @ dy.transpose(-1, -2)                                 # ‖Δy‖cos(φ_Δy − φ)
    sin_part = u[..., 0:1] * dy[..., 1].unsqueeze(-2) - u[..., 1:2] * dy[..., 0].unsqueeze(-2)
    n2, n1 = p.norms_out(), p.norms_in(with_bias=False)
    gam = (g * cos_part) @ X / N
    cd = cosine(p.W1, gam)
    gn = torch.linalg.vector_norm(gam, dim=-1)
    return dict(
        dphi=-n2 * (h * sin_part).sum(-1) / N,
        dnorm2=-(h * cos_part).sum(-1) / N,
        dnorm1=-n2 * gn * cd,
        dtheta=-n2 * n1 * gn * torch.sqrt((1 - cd ** 2).clamp_min(0)),
        db=-n2 * (g * cos_part).sum(-1) / N,
        dw1=-n2.unsqueeze(-1) * gam,
    )


def autograd_polar(p: TwoLayer, X: Tensor, y: Tensor) -> dict[str, Tensor]:
    """The same quantities from autograd's Cartesian gradient of the mean cross-entropy,
    projected on the polar directions (reference for :func:`polar_gradients`).

    Parameters
    ----------
    p : TwoLayer
        Network(s) (module conventions).
    X, y : Tensor
        Inputs and labels (module conventions); ``b2`` is held fixed (not differentiated).

    Returns
    -------
    dict[str, Tensor]
        The keys and shapes of :func:`polar_gradients`.
    """
    W1 = p.W1.detach().clone().requires_grad_(True)
    W2 = p.W2.detach().clone().requires_grad_(True)
    b1 = p.b1.detach().clone().requires_grad_(True)
    q = TwoLayer(W1=W1, W2=W2, b1=b1, b2=p.b2)
    L = Loss("cross_entropy")(forward(q, X), y).sum()
    gW1, gW2, gb = torch.autograd.grad(L, [W1, W2, b1])
    w2 = p.outgoing()
    n2 = torch.linalg.vector_norm(w2, dim=-1)
    gw2 = gW2.transpose(-1, -2)
    tangent = torch.stack([-w2[..., 1], w2[..., 0]], -1)                # ∂w2/∂φ
    w1hat = p.W1 / p.norms_in(with_bias=False).unsqueeze(-1)
    radial = (gW1 * w1hat).sum(-1)
    return dict(dphi=(gw2 * tangent).sum(-1), dnorm2=(gw2 * w2).sum(-1) / n2, dnorm1=radial,
                dtheta=-p.norms_in(with_bias=False) * torch.linalg.vector_norm(gW1 - radial.unsqueeze(-1) * w1hat, dim=-1),
                db=gb, dw1=gW1)


def identity_error(p: TwoLayer, X: Tensor, y: Tensor) -> float:
    """Largest relative deviation of :func:`polar_gradients` from :func:`autograd_polar`: the max over
    the six quantities of ``max|formula − autograd| / max|autograd|`` (dimensionless; use float64).

    Parameters
    ----------
    p : TwoLayer
        Network(s) (module conventions).
    X, y : Tensor
        Inputs and labels (module conventions); the maxima run over every run and neuron at once.

    Returns
    -------
    float
        The largest relative deviation (dimensionless).
    """
    f, a = polar_gradients(p, X, y), autograd_polar(p, X, y)
    return max(float((f[k] - a[k]).abs().max() / a[k].abs().max()) for k in f)


def phi_ratio(p: TwoLayer, X: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    """Eq. 15 (Fig. 3): the measured ratio ⟨∂L/∂φ_α⟩ / ⟨∂L/∂‖w2_α‖⟩ and the exact value
    ``‖w2_α‖ tan(3π/4 − φ_α)`` (valid for any data, gating and time, because every φ_Δy is
    7π/4 or 3π/4), both ``(B..., m)``.

    Parameters
    ----------
    p : TwoLayer
        Network(s) (module conventions).
    X, y : Tensor
        Inputs and labels (module conventions); the ratio is taken elementwise, unguarded against ∂L/∂‖w2_α‖ = 0.

    Returns
    -------
    ratio, exact : Tensor
        Each ``(B..., m)``.
    """
    g = polar_gradients(p, X, y)
    return g["dphi"] / g["dnorm2"], p.norms_out() * torch.tan(PHI2 - phi(p))


def class_sums(p: TwoLayer, X: Tensor, y: Tensor, weight: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """Σ over each neuron's effective samples of class 1 (label 0) and class 2 (label 1) of
    ``weight^s x^s`` (weight 1 if None), each ``(B..., m, D)``.

    Parameters
    ----------
    p : TwoLayer
        Network(s) (module conventions).
    X, y : Tensor
        Inputs and labels (module conventions); ``y`` splits the samples into the two classes.
    weight : Tensor or None
        Per-sample weights ``(B..., N)`` (``None``: 1).

    Returns
    -------
    s1, s2 : Tensor
        Each ``(B..., m, D)``.
    """
    g = gating(p, X)
    w = torch.ones_like(g[..., 0, :]) if weight is None else weight
    c1 = (y == 0).to(X.dtype) * w
    c2 = (y == 1).to(X.dtype) * w
    return (g * c1.unsqueeze(-2)) @ X, (g * c2.unsqueeze(-2)) @ X


def xi(p: TwoLayer, X: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    """ξ₁, ξ₂ of eq. 12: Σ_{s∈C_c, g_α^s=1} ‖Δy^s‖ x^s, each ``(B..., m, D)``.

    Parameters
    ----------
    p : TwoLayer
        Network(s) (module conventions).
    X, y : Tensor
        Inputs and labels (module conventions); the sample weights are ‖Δy^s‖ (:func:`class_sums`).

    Returns
    -------
    xi1, xi2 : Tensor
        Each ``(B..., m, D)``.
    """
    return class_sums(p, X, y, torch.linalg.vector_norm(error_vectors(p, X, y), dim=-1))


def target_m1(p: TwoLayer, X: Tensor, y: Tensor) -> Tensor:
    """m¹_α = Σ_{C1, g=1} x − Σ_{C2, g=1} x (eq. 13); m² = −m¹.  ``(B..., m, D)``.

    Parameters
    ----------
    p : TwoLayer
        Network(s) (module conventions).
    X, y : Tensor
        Inputs and labels (module conventions); unweighted class sums (:func:`class_sums`).

    Returns
    -------
    Tensor
        ``(B..., m, D)``.
    """
    s1, s2 = class_sums(p, X, y)
    return s1 - s2


def phi_star_predicted(p: TwoLayer, X: Tensor, y: Tensor) -> Tensor:
    """Theorem 4.1: 7π/4 where w1_α·ξ₁ > w1_α·ξ₂, else 3π/4, ``(B..., m)``.

    Parameters
    ----------
    p : TwoLayer
        Network(s) (module conventions).
    X, y : Tensor
        Inputs and labels (module conventions); ξ₁, ξ₂ as in :func:`xi`.

    Returns
    -------
    Tensor
        ``(B..., m)``, 7π/4 or 3π/4 (radians).
    """
    x1, x2 = xi(p, X, y)
    s = (p.W1 * (x1 - x2)).sum(-1)
    return torch.where(s > 0, torch.full_like(s, PHI1), torch.full_like(s, PHI2))


def phi_drive(p: TwoLayer, X: Tensor, y: Tensor) -> Tensor:
    """Exact form of −⟨∂L/∂φ_α⟩ (eqs. 41–43): (‖w2_α‖/N)(A₁ − A₂) sin(7π/4 − φ_α), with
    A_c = Σ_{s∈C_c} g h ‖Δy‖.  ``(B..., m)``.

    Parameters
    ----------
    p : TwoLayer
        Network(s) (module conventions).
    X, y : Tensor
        Inputs and labels (module conventions); h is each neuron's ReLU preactivation on each sample.

    Returns
    -------
    Tensor
        ``(B..., m)``.
    """
    nd = torch.linalg.vector_norm(error_vectors(p, X, y), dim=-1)      # (B..., N)
    h = (preactivations(p, X) * (preactivations(p, X) > 0)).transpose(-1, -2)
    A1 = (h * ((y == 0) * nd).unsqueeze(-2)).sum(-1)
    A2 = (h * ((y == 1) * nd).unsqueeze(-2)).sum(-1)
    return p.norms_out() * (A1 - A2) * torch.sin(PHI1 - phi(p)) / X.shape[-2]


def conserved(p: TwoLayer) -> tuple[Tensor, Tensor]:
    """``(‖w2‖² − ‖w1‖² − b², ‖w2‖² − ‖w1‖²)``: the corrected conserved quantity (with the bias) and
    the paper's eq. 84, each ``(B..., m)``.

    Parameters
    ----------
    p : TwoLayer
        Network(s) (module conventions); a missing ``b1`` counts as 0.

    Returns
    -------
    corrected, paper : Tensor
        Each ``(B..., m)``.
    """
    paper = p.norms_out() ** 2 - p.norms_in(with_bias=False) ** 2
    return paper - (p.b1 ** 2 if p.b1 is not None else 0.0), paper


def growth_rates(p: TwoLayer, X: Tensor, y: Tensor) -> dict[str, Tensor]:
    """Gradient-flow rates of ``a_α`` per unit ``λ t`` (all ``(B..., m)``).

    ``exact``: ‖w1‖(−∂L/∂‖w2‖) + ‖w2‖(−∂L/∂‖w1‖) (the true da/dt/λ, bias included);
    ``eq90``: ‖γ‖cos δ (‖w1‖² + ‖w2‖²) (eq. 90 with the cos δ of eq. 91; equal to ``exact`` when b = 0);
    ``eq18``: ‖γ‖cos δ · a (the paper's eq. 18).

    Parameters
    ----------
    p : TwoLayer
        Network(s) (module conventions).
    X, y : Tensor
        Inputs and labels (module conventions); built on :func:`polar_gradients` and :func:`gamma`.

    Returns
    -------
    dict[str, Tensor]
        ``exact``, ``eq90``, ``eq18``, each ``(B..., m)``, per unit flow time λt.
    """
    g = polar_gradients(p, X, y)
    gam = gamma(p, X, y)
    k = torch.linalg.vector_norm(gam, dim=-1) * cosine(p.W1, gam)
    n1, n2 = p.norms_in(with_bias=False), p.norms_out()
    return dict(exact=-n1 * g["dnorm2"] - n2 * g["dnorm1"], eq90=k * (n1 ** 2 + n2 ** 2), eq18=k * n1 * n2)


def effective_error_mean(p: TwoLayer, X: Tensor, y: Tensor, alpha: int) -> Tensor:
    """⟨‖Δy^s‖⟩ over neuron ``alpha``'s effective samples, normalised by N^e (App. G, eq. 95).

    Parameters
    ----------
    p : TwoLayer
        A single network (module conventions).
    X, y : Tensor
        Inputs and labels (module conventions); the error vectors are those of the whole network.
    alpha : int
        The neuron whose effective samples are averaged.

    Returns
    -------
    Tensor
        A scalar.
    """
    g = gating(p, X)[..., alpha, :]
    nd = torch.linalg.vector_norm(error_vectors(p, X, y), dim=-1)
    return (g * nd).sum(-1) / g.sum(-1)


def appendix_g(p: TwoLayer, X: Tensor, y: Tensor, alpha: int, eps: float = 1e-4) -> tuple[float, float]:
    """App. G: finite-difference ∂⟨‖Δy‖⟩_α/∂a_α (scale w1_α, w2_α by 1+ε; single network, b = 0)
    and the paper's value ½‖m¹‖cos(π + Δ) = −½ ŵ1_α·m¹ (m¹ normalised by N^e, eq. 102), for a
    neuron whose w2 is aligned to 7π/4.  Returns ``(finite difference, formula)``.

    Parameters
    ----------
    p : TwoLayer
        A single network (module conventions), left unchanged; b = 0 and ``w2_alpha`` at 7π/4.
    X, y : Tensor
        Inputs and labels (module conventions).
    alpha : int
        The neuron whose w1 and w2 are scaled by 1+ε.
    eps : float
        Relative scaling of ``w1_α`` and ``w2_α`` for the finite difference.

    Returns
    -------
    finite_difference, formula : float
        ∂⟨‖Δy‖⟩_α/∂a_α measured and by eq. 102.
    """
    q = p.clone()
    q.W1[alpha] *= 1 + eps
    q.W2[:, alpha] *= 1 + eps
    a0, a1 = total_norm(p)[alpha], total_norm(q)[alpha]
    fd = (effective_error_mean(q, X, y, alpha) - effective_error_mean(p, X, y, alpha)) / (a1 - a0)
    g = gating(p, X)[alpha]
    m1 = target_m1(p, X, y)[alpha] / g.sum()
    w1hat = p.W1[alpha] / p.W1[alpha].norm()
    return float(fd), float(-0.5 * (w1hat @ m1))


def align_to_own_m1(p: TwoLayer, X: Tensor, y: Tensor, alpha: int, iters: int = 50) -> tuple[TwoLayer, float, bool]:
    """Turn ``w2_α`` to 7π/4 and ``w1_α`` onto the m¹ of its *own* effective set (single network).

    Rotating ``w1_α`` onto m¹ changes its gating, hence m¹; the rotation is repeated (norms kept)
    until the gating no longer changes (at most ``iters`` times).  Returns the network, the final
    ``cos(w1_α, m¹_α)`` with m¹ from the final gating (the one App. G's formula uses), and whether
    the gating settled.

    Parameters
    ----------
    p : TwoLayer
        A single network (module conventions); a copy is turned, ``p`` is left unchanged.
    X, y : Tensor
        Inputs and labels (module conventions).
    alpha : int
        The neuron turned.
    iters : int
        Most rotations tried.

    Returns
    -------
    network : TwoLayer
        A copy of ``p`` with neuron ``alpha`` turned.
    cos : float
        ``cos(w1_α, m¹_α)`` with m¹ from the final gating.
    settled : bool
        Whether the gating stopped changing.
    """
    if p.runs:
        raise ParameterError("align_to_own_m1 takes a single network (no run dimensions)")
    q = p.clone()
    q.W2[:, alpha] = q.W2[:, alpha].norm() * torch.tensor([1.0, -1.0], dtype=q.W2.dtype) / math.sqrt(2)
    settled = False
    for _ in range(iters):
        g_old = gating(q, X)[alpha]
        m1 = target_m1(q, X, y)[alpha]
        if m1.norm() == 0:
            break
        q.W1[alpha] = q.W1[alpha].norm() * m1 / m1.norm()
        if torch.equal(gating(q, X)[alpha], g_old):
            settled = True
            break
    m1 = target_m1(q, X, y)[alpha]
    c = float(cosine(q.W1[alpha], m1)) if m1.norm() > 0 else float("nan")
    return q, c, settled


def target_gap(ph: Tensor) -> Tensor:
    """Angular distance (radians) of φ to the nearer of 7π/4 and 3π/4, ``ph``'s shape.

    Parameters
    ----------
    ph : Tensor
        Angles φ (radians), any shape.

    Returns
    -------
    Tensor
        ``ph``'s shape, radians in ``[0, π/2]``.
    """
    return torch.minimum(angle_gap(ph, PHI1).abs(), angle_gap(ph, PHI2).abs())
