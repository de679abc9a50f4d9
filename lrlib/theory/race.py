"""Pinson (2026), *It's not a Lottery, it's a Race*: per-neuron quantities.

The network is :class:`~lrlib.models.TwoLayer` with ``k = 2`` outputs, biases and
softmax cross-entropy, mean over the ``N`` samples (the paper's ⟨·⟩ is
``(1/N) Σ_s g^s ·``, not a plain sum).  Labels ``y ∈ {0, 1}``: label 0 is the
paper's *class 1* (output node 0, ``φ_Δy = 7π/4``), label 1 its *class 2*
(``φ_Δy = 3π/4``).

Shapes: parameters may carry leading run/time dims ``B...``; ``X`` is ``(N, D)`` or
``(B..., N, D)``; ``y`` is ``(N,)`` or ``(B..., N)``.  Per-neuron outputs are
``(B..., m)`` or ``(B..., m, D)``.  Angles are in radians, ``φ ∈ [0, 2π)``.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F

from ..errors import ParameterError
from ..losses import Loss
from ..models import TwoLayer, forward, preactivations
from ..track import cosine, cosine_similarity_matrix

Tensor = torch.Tensor
PHI1 = 7 * math.pi / 4   # φ* of neurons that push output node 0 (paper's class 1)
PHI2 = 3 * math.pi / 4   # φ* of neurons that push output node 1 (paper's class 2)


# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------

def xor_clusters(n_per_cluster: int, gen: torch.Generator, *, norms=(4.0, 3.0, 1.0, 2.0), std: float = 0.1,
                 dtype: torch.dtype = torch.float64) -> tuple[Tensor, Tensor]:
    """The XOR-like toy set (paper Fig. 9): four Gaussian clusters at 45°, 135°, 225°, 315° with
    centroid norms ``norms`` and labels 0, 1, 0, 1 (opposite clusters share a label, so the set is
    not linearly separable).  Returns ``X (4n, 2)``, ``y (4n,)`` int64, cluster index ``(4n,)``."""
    if n_per_cluster < 1 or len(norms) != 4:
        raise ParameterError("xor_clusters needs n_per_cluster ≥ 1 and four norms")
    ang = torch.tensor([45.0, 135.0, 225.0, 315.0], dtype=torch.float64).deg2rad()
    cen = torch.stack([ang.cos(), ang.sin()], -1) * torch.tensor(norms, dtype=torch.float64)[:, None]
    cl = torch.arange(4).repeat_interleave(n_per_cluster)
    X = cen[cl] + std * torch.randn(4 * n_per_cluster, 2, generator=gen, dtype=torch.float64)
    y = torch.tensor([0, 1, 0, 1])[cl]
    return X.to(dtype), y.long(), cl


def race_init(m: int, D: int, std: float | Tensor, gen: torch.Generator, *, runs: tuple[int, ...] = (),
              dtype: torch.dtype = torch.float32) -> TwoLayer:
    """The paper's init: every weight ``N(0, std²)``, both biases 0.  ``std`` may be a tensor
    broadcastable to ``runs`` (one scale per run)."""
    s = torch.as_tensor(std, dtype=torch.float64)
    s = s.reshape(s.shape + (1, 1))
    W1 = s * torch.randn((*runs, m, D), generator=gen, dtype=torch.float64)
    W2 = s * torch.randn((*runs, 2, m), generator=gen, dtype=torch.float64)
    return TwoLayer(W1=W1.to(dtype), W2=W2.to(dtype), b1=torch.zeros((*runs, m), dtype=dtype),
                    b2=torch.zeros((*runs, 2), dtype=dtype))


# ---------------------------------------------------------------------------
# the paper's per-neuron quantities
# ---------------------------------------------------------------------------

def error_vectors(p: TwoLayer, X: Tensor, y: Tensor) -> Tensor:
    """``Δy^s = y^s − ŷ^s`` (one-hot minus softmax), ``(B..., N, 2)``."""
    z = forward(p, X)
    return F.one_hot(y.long(), 2).to(z.dtype) - torch.softmax(z, -1)


def gating(p: TwoLayer, X: Tensor) -> Tensor:
    """Gating vectors ``g_α^s = 1[w1_α·x^s + b_α > 0]`` as float ``(B..., m, N)`` (one entry per sample)."""
    return (preactivations(p, X) > 0).to(p.W1.dtype).transpose(-1, -2)


def phi(p: TwoLayer) -> Tensor:
    """Polar angle of each outgoing vector ``w2_α``, in ``[0, 2π)``, ``(B..., m)``."""
    return torch.remainder(torch.atan2(p.W2[..., 1, :], p.W2[..., 0, :]), 2 * math.pi)


def angle_gap(a: Tensor, b: float | Tensor) -> Tensor:
    """Signed angle ``a − b`` wrapped into ``(−π, π]``."""
    d = torch.remainder(a - b + math.pi, 2 * math.pi) - math.pi
    return torch.where(d == -math.pi, torch.full_like(d, math.pi), d)


def _unit_out(p: TwoLayer) -> Tensor:
    w2 = p.outgoing()                                                   # (B..., m, 2)
    return w2 / torch.linalg.vector_norm(w2, dim=-1, keepdim=True)


def gamma(p: TwoLayer, X: Tensor, y: Tensor) -> Tensor:
    """⟨γ_α⟩ = (1/N) Σ_s g_α^s cos(φ_Δy^s − φ_α) ‖Δy^s‖ x^s (eq. 9), ``(B..., m, D)``.

    Uses ``cos(φ_Δy − φ_α)‖Δy‖ = Δy · ŵ2_α``."""
    dy = error_vectors(p, X, y)                                         # (B..., N, 2)
    c = _unit_out(p) @ dy.transpose(-1, -2)                             # (B..., m, N)
    return (gating(p, X) * c) @ X / X.shape[-2]


def cos_delta(p: TwoLayer, X: Tensor, y: Tensor) -> Tensor:
    """cos δ_α, δ_α = ∠(w1_α, ⟨γ_α⟩) (the vector angle, valid beyond 2-D), ``(B..., m)``."""
    return cosine(p.W1, gamma(p, X, y))


def total_norm(p: TwoLayer) -> Tensor:
    """``a_α = ‖w2_α‖ ‖w1_α‖`` (bias excluded, as in the paper), ``(B..., m)``."""
    return p.norms_out() * p.norms_in(with_bias=False)


def polar_gradients(p: TwoLayer, X: Tensor, y: Tensor) -> dict[str, Tensor]:
    """The paper's per-neuron gradients of the mean loss (eqs. 4–8, 66), by formula.

    Returns ``dphi`` ∂L/∂φ_α (eq. 4), ``dnorm2`` ∂L/∂‖w2_α‖ (eq. 5), ``dnorm1`` ∂L/∂‖w1_α‖
    (eq. 7, vector form −‖w2‖‖γ‖cos δ), ``dtheta`` the size of the angular derivative of w1_α in the
    plane of (w1_α, γ_α) (eq. 6: −‖w2‖‖w1‖‖γ‖ sin δ), ``db`` ∂L/∂b_α (eq. 8), all ``(B..., m)``, and
    ``dw1`` ∇_{w1_α} L = −‖w2_α‖⟨γ_α⟩ (eq. 66) ``(B..., m, D)``."""
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
    projected on the polar directions (reference for :func:`polar_gradients`)."""
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


def phi_ratio(p: TwoLayer, X: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    """Eq. 15 (Fig. 3): the measured ratio ⟨∂L/∂φ_α⟩ / ⟨∂L/∂‖w2_α‖⟩ and the exact value
    ``‖w2_α‖ tan(3π/4 − φ_α)`` (valid for any data, gating and time, because every φ_Δy is
    7π/4 or 3π/4), both ``(B..., m)``."""
    g = polar_gradients(p, X, y)
    return g["dphi"] / g["dnorm2"], p.norms_out() * torch.tan(PHI2 - phi(p))


def class_sums(p: TwoLayer, X: Tensor, y: Tensor, weight: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """Σ over each neuron's effective samples of class 1 (label 0) and class 2 (label 1) of
    ``weight^s x^s`` (weight 1 if None), each ``(B..., m, D)``."""
    g = gating(p, X)
    w = torch.ones_like(g[..., 0, :]) if weight is None else weight
    c1 = (y == 0).to(X.dtype) * w
    c2 = (y == 1).to(X.dtype) * w
    return (g * c1.unsqueeze(-2)) @ X, (g * c2.unsqueeze(-2)) @ X


def xi(p: TwoLayer, X: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    """ξ₁, ξ₂ of eq. 12: Σ_{s∈C_c, g_α^s=1} ‖Δy^s‖ x^s, each ``(B..., m, D)``."""
    return class_sums(p, X, y, torch.linalg.vector_norm(error_vectors(p, X, y), dim=-1))


def target_m1(p: TwoLayer, X: Tensor, y: Tensor) -> Tensor:
    """m¹_α = Σ_{C1, g=1} x − Σ_{C2, g=1} x (eq. 13); m² = −m¹.  ``(B..., m, D)``."""
    s1, s2 = class_sums(p, X, y)
    return s1 - s2


def phi_star_predicted(p: TwoLayer, X: Tensor, y: Tensor) -> Tensor:
    """Theorem 4.1: 7π/4 where w1_α·ξ₁ > w1_α·ξ₂, else 3π/4, ``(B..., m)``."""
    x1, x2 = xi(p, X, y)
    s = (p.W1 * (x1 - x2)).sum(-1)
    return torch.where(s > 0, torch.full_like(s, PHI1), torch.full_like(s, PHI2))


def phi_drive(p: TwoLayer, X: Tensor, y: Tensor) -> Tensor:
    """Exact form of −⟨∂L/∂φ_α⟩ (eqs. 41–43): (‖w2_α‖/N)(A₁ − A₂) sin(7π/4 − φ_α), with
    A_c = Σ_{s∈C_c} g h ‖Δy‖.  ``(B..., m)``."""
    nd = torch.linalg.vector_norm(error_vectors(p, X, y), dim=-1)      # (B..., N)
    h = (preactivations(p, X) * (preactivations(p, X) > 0)).transpose(-1, -2)
    A1 = (h * ((y == 0) * nd).unsqueeze(-2)).sum(-1)
    A2 = (h * ((y == 1) * nd).unsqueeze(-2)).sum(-1)
    return p.norms_out() * (A1 - A2) * torch.sin(PHI1 - phi(p)) / X.shape[-2]


def conserved(p: TwoLayer) -> tuple[Tensor, Tensor]:
    """``(‖w2‖² − ‖w1‖² − b², ‖w2‖² − ‖w1‖²)``: the corrected conserved quantity (with the bias) and
    the paper's eq. 84, each ``(B..., m)``."""
    paper = p.norms_out() ** 2 - p.norms_in(with_bias=False) ** 2
    return paper - (p.b1 ** 2 if p.b1 is not None else 0.0), paper


def growth_rates(p: TwoLayer, X: Tensor, y: Tensor) -> dict[str, Tensor]:
    """Gradient-flow rates of ``a_α`` per unit ``λ t`` (all ``(B..., m)``).

    ``exact``: ‖w1‖(−∂L/∂‖w2‖) + ‖w2‖(−∂L/∂‖w1‖) (the true da/dt/λ, bias included);
    ``eq90``: ‖γ‖cos δ (‖w1‖² + ‖w2‖²) (eq. 90 with the cos δ of eq. 91; equal to ``exact`` when b = 0);
    ``eq18``: ‖γ‖cos δ · a (the paper's eq. 18)."""
    g = polar_gradients(p, X, y)
    gam = gamma(p, X, y)
    k = torch.linalg.vector_norm(gam, dim=-1) * cosine(p.W1, gam)
    n1, n2 = p.norms_in(with_bias=False), p.norms_out()
    return dict(exact=-n1 * g["dnorm2"] - n2 * g["dnorm1"], eq90=k * (n1 ** 2 + n2 ** 2), eq18=k * n1 * n2)


def effective_error_mean(p: TwoLayer, X: Tensor, y: Tensor, alpha: int) -> Tensor:
    """⟨‖Δy^s‖⟩ over neuron ``alpha``'s effective samples, normalised by N^e (App. G, eq. 95)."""
    g = gating(p, X)[..., alpha, :]
    nd = torch.linalg.vector_norm(error_vectors(p, X, y), dim=-1)
    return (g * nd).sum(-1) / g.sum(-1)


def appendix_g(p: TwoLayer, X: Tensor, y: Tensor, alpha: int, eps: float = 1e-4) -> tuple[float, float]:
    """App. G: finite-difference ∂⟨‖Δy‖⟩_α/∂a_α (scale w1_α, w2_α by 1+ε; single network, b = 0)
    and the paper's value ½‖m¹‖cos(π + Δ) = −½ ŵ1_α·m¹ (m¹ normalised by N^e, eq. 102), for a
    neuron whose w2 is aligned to 7π/4.  Returns ``(finite difference, formula)``."""
    q = p.clone()
    q.W1[alpha] *= 1 + eps
    q.W2[:, alpha] *= 1 + eps
    a0, a1 = total_norm(p)[alpha], total_norm(q)[alpha]
    fd = (effective_error_mean(q, X, y, alpha) - effective_error_mean(p, X, y, alpha)) / (a1 - a0)
    g = gating(p, X)[alpha]
    m1 = target_m1(p, X, y)[alpha] / g.sum()
    w1hat = p.W1[alpha] / p.W1[alpha].norm()
    return float(fd), float(-0.5 * (w1hat @ m1))


# ---------------------------------------------------------------------------
# merging, clustering, racing statistics
# ---------------------------------------------------------------------------

def theta(p: TwoLayer) -> Tensor:
    """Total parameter vectors θ_α = [w1_α, b_α, w2_α], ``(B..., m, D+3)``."""
    return p.neuron_vectors()


def merge_groups(p: TwoLayer, threshold: float = 0.999) -> Tensor:
    """Greedy grouping of one network's neurons (§4.5): in decreasing ‖θ‖, each unassigned neuron
    leads a group with every unassigned neuron whose θ has cosine ≥ ``threshold`` with its own.
    Returns the group label of each neuron ``(m,)`` (label = index of the leader)."""
    if p.runs:
        raise ParameterError("merge_groups takes a single network (no run dimensions)")
    th = theta(p).to(torch.float64)
    C = cosine_similarity_matrix(th)                                      # (m, m), by one matmul
    order = torch.argsort(torch.linalg.vector_norm(th, dim=-1), descending=True)
    label = torch.full((th.shape[0],), -1, dtype=torch.long)
    for i in order.tolist():
        if label[i] >= 0:
            continue
        label[(label < 0) & (C[i] >= threshold)] = i
        label[i] = i
    return label


def merge(p: TwoLayer, threshold: float = 0.999) -> tuple[TwoLayer, int]:
    """Merge each group of :func:`merge_groups` into one neuron θ = θ̂_leader √(Σ‖θ‖²) (exact for
    parallel θ by 2-homogeneity).  Returns the merged network and its number of neurons."""
    label = merge_groups(p, threshold)
    leaders = torch.unique(label)
    th = theta(p)
    sq = torch.zeros(th.shape[0], dtype=th.dtype).index_add_(0, label, (th ** 2).sum(-1))
    lead = th[leaders]
    new = lead / torch.linalg.vector_norm(lead, dim=-1, keepdim=True) * sq[leaders].sqrt().unsqueeze(-1)
    D = p.in_dim
    q = TwoLayer(W1=new[:, :D], b1=new[:, D], W2=new[:, D + 1:].T.contiguous(), b2=p.b2, act=p.act)
    return q, int(leaders.numel())


def split_neuron(p: TwoLayer, alpha: int, c: float) -> TwoLayer:
    """Replace neuron ``alpha`` by two parallel copies ``c θ`` and ``√(1−c²) θ`` (same function)."""
    th = theta(p)
    new = torch.cat([th, th[alpha:alpha + 1] * math.sqrt(1 - c * c)], 0)
    new[alpha] = th[alpha] * c
    D = p.in_dim
    return TwoLayer(W1=new[:, :D], b1=new[:, D], W2=new[:, D + 1:].T.contiguous(), b2=p.b2, act=p.act)


def cluster_order(C: np.ndarray | Tensor) -> np.ndarray:
    """Leaf order of average-linkage clustering on 1 − C for a cosine matrix ``C (m, m)``."""
    from scipy.cluster.hierarchy import leaves_list, linkage
    from scipy.spatial.distance import squareform

    Dm = np.clip(1 - np.asarray(C, dtype=np.float64), 0, 2)
    Dm = (Dm + Dm.T) / 2
    np.fill_diagonal(Dm, 0)
    return leaves_list(linkage(squareform(Dm, checks=False), "average"))


def spearman(u: Tensor, v: Tensor) -> Tensor:
    """Spearman rank correlation along the last axis (no ties assumed), ``(B...)``."""
    def ranks(t):
        return torch.argsort(torch.argsort(t, -1), -1).to(torch.float64)
    ru, rv = ranks(u), ranks(v)
    ru, rv = ru - ru.mean(-1, keepdim=True), rv - rv.mean(-1, keepdim=True)
    return (ru * rv).sum(-1) / torch.sqrt((ru ** 2).sum(-1) * (rv ** 2).sum(-1))


def top_overlap(score: Tensor, target: Tensor, frac: float = 0.1) -> Tensor:
    """Fraction of the top-``frac`` neurons by ``target`` that are also top by ``score``, ``(B...)``."""
    k = max(1, int(round(frac * score.shape[-1])))
    a = F.one_hot(torch.topk(score, k, -1).indices, score.shape[-1]).sum(-2)
    b = F.one_hot(torch.topk(target, k, -1).indices, score.shape[-1]).sum(-2)
    return (a * b).sum(-1).to(torch.float64) / k


def top_share(a: Tensor, frac: float = 0.1) -> Tensor:
    """Share of Σ_α a_α held by the top ``frac`` neurons, ``(B...)``."""
    k = max(1, int(round(frac * a.shape[-1])))
    return torch.topk(a, k, -1).values.sum(-1) / a.sum(-1)


def line_fit(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """Least-squares ``y ≈ A + B x``: returns ``(A, B, R²)``."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    B, A = np.polyfit(x, y, 1)
    res = y - (A + B * x)
    return float(A), float(B), float(1 - res.var() / y.var())


def growth_fit_mask(cd: Tensor | np.ndarray) -> np.ndarray:
    """The neurons :func:`growth_form_fits` fits: cos δ above its median and in (0, 1)."""
    cd = np.asarray(cd, dtype=float)
    return (cd > np.median(cd)) & (cd > 0) & (cd < 1)


def growth_form_fits(cd: Tensor, a: Tensor) -> dict[str, float]:
    """Compare, on the neurons of :func:`growth_fit_mask` (single network), the fits of log a against
    (i) cos δ (eq. 19's exponential form), (ii) log cos δ (a power law a ∝ cos^k δ: the same
    monotonicity and number of parameters) and (iii) log(cos δ / sin²δ) (the frozen-gating closed form
    a = ‖w1⊥‖² cos δ / sin²δ).  Returns the slopes and R² of the three and the number of neurons fitted."""
    cd, a = np.asarray(cd, dtype=float), np.asarray(a, dtype=float)
    if cd.shape != a.shape or cd.ndim != 1 or (a <= 0).any():
        raise ParameterError("growth_form_fits takes 1-D cos δ and a > 0 of one network, same shape")
    sel = growth_fit_mask(cd)
    if sel.sum() < 3:
        raise ParameterError(f"growth_form_fits needs ≥ 3 neurons with cos δ above the median in (0, 1), got {int(sel.sum())}")
    _, B1, r1 = line_fit(cd[sel], np.log(a[sel]))
    _, B3, r3 = line_fit(np.log(cd[sel]), np.log(a[sel]))
    _, B2, r2 = line_fit(np.log(cd[sel] / (1 - cd[sel] ** 2)), np.log(a[sel]))
    return dict(slope_exp=B1, r2_exp=r1, slope_pow=B3, r2_pow=r3, slope_frozen=B2, r2_frozen=r2,
                n=int(sel.sum()))


def power_law_like(cd: Tensor | np.ndarray, a: Tensor | np.ndarray) -> np.ndarray:
    """A synthetic ``a' = a_lo (cos δ / c_lo)^k`` on the neurons of :func:`growth_fit_mask`, with ``k``
    such that it spans the same range of ``a`` (from its value at the smallest to that at the largest
    fitted cos δ): a power law with the measurement's monotonicity and range.  Other neurons keep
    their ``a``.  Single network; returns a numpy array of ``a``'s shape."""
    cd, a = np.asarray(cd, dtype=float), np.asarray(a, dtype=float)
    sel = growth_fit_mask(cd)
    c, v = cd[sel], a[sel]
    lo, hi = np.argmin(c), np.argmax(c)
    k = np.log(v[hi] / v[lo]) / np.log(c[hi] / c[lo])
    out = a.copy()
    out[sel] = v[lo] * (c / c[lo]) ** k
    return out


# ---------------------------------------------------------------------------
# per-snapshot statistics of a (batched) CIFAR run, and the toy alignment score
# ---------------------------------------------------------------------------

def snapshot_stats(traj, X: Tensor, y: Tensor, steps) -> dict[str, Tensor]:
    """cos δ, a and φ at the snapshots at or before each of ``steps`` (in the trajectory's
    dtype), plus the final a and φ.  Returns ``cd``, ``a``, ``phi`` ``(S, R..., m)``,
    ``a_final``, ``phi_final`` ``(R..., m)`` and ``step`` ``(S,)`` (the snapshot steps used)."""
    idx = [traj.index_of_step(int(s)) for s in steps]
    P = traj.params.map(lambda t: t[idx])
    return dict(cd=cos_delta(P, X, y), a=total_norm(P), phi=phi(P), a_final=total_norm(traj.final),
                phi_final=phi(traj.final), step=torch.as_tensor(traj.steps[idx]))


def target_gap(ph: Tensor) -> Tensor:
    """Angular distance (radians) of φ to the nearer of 7π/4 and 3π/4, ``ph``'s shape."""
    return torch.minimum(angle_gap(ph, PHI1).abs(), angle_gap(ph, PHI2).abs())


def alignment_score(W1: Tensor, a: Tensor, U: Tensor) -> Tensor:
    """a-weighted mean over neurons of max_k cos(w1_α, u_k) for target directions ``U (K, D)``;
    ``W1 (B..., m, D)``, ``a (B..., m)`` → ``(B...)``.  1 = every unit of norm on a target."""
    c = cosine(W1.unsqueeze(-2), U.to(W1.dtype)).amax(-1)               # (B..., m)
    return (a * c).sum(-1) / a.sum(-1)


# ---------------------------------------------------------------------------
# measurements of the chapter (moved from the notebook)
# ---------------------------------------------------------------------------

def identity_error(p: TwoLayer, X: Tensor, y: Tensor) -> float:
    """Largest relative deviation of :func:`polar_gradients` from :func:`autograd_polar`: the max over
    the six quantities of ``max|formula − autograd| / max|autograd|`` (dimensionless; use float64)."""
    f, a = polar_gradients(p, X, y), autograd_polar(p, X, y)
    return max(float((f[k] - a[k]).abs().max() / a[k].abs().max()) for k in f)


def merge_rows(p: TwoLayer, X: Tensor, y: Tensor, loss: Loss,
               thresholds: tuple[float, ...] = (0.99, 0.999, 0.9999), **tags) -> list[dict]:
    """Merge one network ``p`` (no run dims) at each cosine threshold (:func:`merge`) and measure it on
    ``X (N, D)``, ``y (N,)``: one row per threshold with ``tags`` first, then ``threshold``, ``groups``
    (neurons left) and ``rel_loss_change`` ``(L_merged − L) / L`` of the mean ``loss``."""
    L0 = loss(forward(p, X), y).item()
    return [dict(**tags, threshold=thr, groups=n_g, rel_loss_change=(loss(forward(q, X), y).item() - L0) / L0)
            for thr in thresholds for q, n_g in [merge(p, thr)]]


def rule_agreement(P: TwoLayer, final: TwoLayer, X: Tensor, y: Tensor,
                   tol: float = math.radians(1), flip: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Theorem 4.1's rule evaluated on the network ``P`` against the targets reached by ``final``.

    Among the neurons of ``final`` within ``tol`` radians of a target (7π/4 or 3π/4,
    :func:`target_gap`), the share whose final φ is within ``tol`` of the target the rule
    :func:`phi_star_predicted` gives on ``P`` (same run dims ``(R...)``, ``X (R..., N, D)``,
    ``y (R..., N)``).  Returns the share by count and the a-weighted share (weights: final
    :func:`total_norm`), each ``(R...)`` as numpy (``nan`` where no neuron is near a target).
    ``flip=True`` exchanges the rule's two targets (a perturbed prediction, for a negative control)."""
    ph_fin, a_fin = phi(final), total_norm(final)
    near = target_gap(ph_fin) < tol
    pred = phi_star_predicted(P, X, y)
    if flip:
        pred = PHI1 + PHI2 - pred
    ok = (angle_gap(ph_fin, pred).abs() < tol) & near
    return (ok.sum(-1) / near.sum(-1)).numpy(), ((a_fin * ok).sum(-1) / (a_fin * near).sum(-1)).numpy()


def top_alignment(p: TwoLayer, n_top: int = 25) -> Tensor:
    """Mean ``|cos|`` between the total vectors θ (:func:`theta`) of the ``n_top`` neurons of largest
    ``a`` (off-diagonal pairs only), in float64, ``(B...)``; 1 = all parallel or antiparallel."""
    if not 2 <= n_top <= p.W1.shape[-2]:
        raise ParameterError(f"top_alignment needs 2 ≤ n_top ≤ m = {p.W1.shape[-2]}, got {n_top}")
    th_all = theta(p)
    idx = torch.topk(total_norm(p), n_top, -1).indices                               # (B..., n_top)
    th = torch.gather(th_all, -2, idx.unsqueeze(-1).expand(*idx.shape, th_all.shape[-1])).double()
    C = cosine_similarity_matrix(th).abs()
    return (C.sum((-1, -2)) - n_top) / (n_top * (n_top - 1))


def median_at(v: Tensor, idx: Tensor) -> Tensor:
    """Median of ``v (B..., m)`` over the neurons ``idx (B..., k)`` of each run, ``(B...)``
    (torch's lower median for even ``k``)."""
    return v.gather(-1, idx).median(-1).values


def first_step_reaching(steps: np.ndarray, values: Tensor, level: Tensor) -> np.ndarray:
    """First recorded step at which ``values (T, R...)`` is ``≥ level (R...)``, per run, ``(R...)`` int.
    A run that never reaches its level gets ``steps[0]`` (``argmax`` of an all-false mask)."""
    return np.asarray(steps)[np.argmax((values >= level).numpy(), axis=0)]


def gate_change(p_from: TwoLayer, p_to: TwoLayer, X: Tensor) -> Tensor:
    """Fraction of the gates g_α^s (neurons × samples) that differ between two networks with the
    same run dims, on the same ``X``; ``(R...)``."""
    return (gating(p_from, X) != gating(p_to, X)).to(torch.float64).mean((-1, -2))


def align_to_own_m1(p: TwoLayer, X: Tensor, y: Tensor, alpha: int, iters: int = 50) -> tuple[TwoLayer, float, bool]:
    """Turn ``w2_α`` to 7π/4 and ``w1_α`` onto the m¹ of its *own* effective set (single network).

    Rotating ``w1_α`` onto m¹ changes its gating, hence m¹; the rotation is repeated (norms kept)
    until the gating no longer changes (at most ``iters`` times).  Returns the network, the final
    ``cos(w1_α, m¹_α)`` with m¹ from the final gating (the one App. G's formula uses), and whether
    the gating settled."""
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


def split_all(p: TwoLayer, c: float = 0.6) -> TwoLayer:
    """Every neuron of a single network replaced by two parallel copies ``c θ`` and ``√(1−c²) θ``
    (the same function, with 2m neurons that merge back exactly)."""
    if p.runs or not 0 < c < 1:
        raise ParameterError("split_all takes a single network and 0 < c < 1")
    th = theta(p)
    new = torch.cat([th * c, th * math.sqrt(1 - c * c)], 0)
    D = p.in_dim
    return TwoLayer(W1=new[:, :D], b1=new[:, D], W2=new[:, D + 1:].T.contiguous(), b2=p.b2, act=p.act)


def shuffled(v: Tensor, gen: torch.Generator) -> Tensor:
    """``v (R..., m)`` with its last axis permuted independently in each run (breaks the pairing of
    neurons between two per-neuron quantities)."""
    flat = v.reshape(-1, v.shape[-1])
    out = torch.stack([row[torch.randperm(v.shape[-1], generator=gen)] for row in flat])
    return out.reshape(v.shape)


def n_parameters(p: TwoLayer) -> int:
    """Number of parameters of one network (all tensors; run dims must be absent)."""
    if p.runs:
        raise ParameterError("n_parameters takes a single network (no run dimensions)")
    return int(sum(t.numel() for t in p.tensors().values() if t is not None))
