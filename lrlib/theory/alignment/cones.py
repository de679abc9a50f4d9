"""The cones S₊, S₋, S_dead of Min, Mallada & Vidal (2024) and the direction dynamics (eq. 4).

* the cones (:func:`cone_membership`), the signed activated sum
  ``x_a(w) = Σ_{⟨x_i,w⟩>0} y_i x_i`` (:func:`signed_active_sum`), whether a cap of half-angle
  ζ around ``x_±`` leaves its cone (:func:`cap_leaves_cone`);
* the exact direction velocity d/dt(w_j/‖w_j‖) under gradient flow, its approximation
  ``sign(v_j) P_{w_j} x_a(w_j)`` (eq. 4), and the norm/direction split of the velocity
  (Figs 12/13).

Tested in ``tests/test_theory_alignment_cones.py``.

Shapes and units: the package's conventions (:mod:`lrlib.theory.alignment`).
"""

from __future__ import annotations

import math

import torch

from ...losses import Loss
from ...measure import active
from ...models import TwoLayer, forward
from .core import F64

Tensor = torch.Tensor


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


def project(W: Tensor, V: Tensor) -> Tensor:
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
    out = project(W, -G) / nrm.clamp_min(torch.finfo(W.dtype).tiny)
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
    return torch.sign(p.a.detach()).unsqueeze(-1) * project(W, xa)


def norm_and_direction_change(p: TwoLayer, X: Tensor, y: Tensor, loss: Loss) -> tuple[Tensor, Tensor]:
    """Figs 12/13 (A.5): how fast the neuron norms and directions change, per run.

    With ``G = ∇_{W1}𝓛`` (full batch, first layer only): the norm change
    ``Σ_j d/dt‖w_j‖² = Σ_j 2⟨−∇_{w_j}𝓛, w_j⟩`` and the direction change
    ``Σ_j ‖P_{w_j}(−∇_{w_j}𝓛 / ‖w_j‖)‖`` (= ``Σ_j ‖d/dt (w_j/‖w_j‖)‖``).

    Parameters
    ----------
    p : TwoLayer
        The network, ``W1 (R..., m, D)``; only the first layer's gradient is taken.
    X, y : Tensor
        The full batch, as in :func:`direction_velocity`.
    loss : Loss
        The loss, as in :func:`direction_velocity`.

    Returns
    -------
    (Tensor, Tensor)
        Norm change and direction change, ``(R...)`` each (per unit time).
    """
    W = p.W1.detach()
    G = _grad_W1(p, X, y, loss)
    norm_change = 2 * (-G * W).sum((-1, -2))
    nrm = torch.linalg.vector_norm(W, dim=-1, keepdim=True)
    d = project(W, -G) / nrm.clamp_min(torch.finfo(W.dtype).tiny)
    d = torch.where(nrm > 0, d, torch.zeros_like(d))
    return norm_change, torch.linalg.vector_norm(d, dim=-1).sum(-1)


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
