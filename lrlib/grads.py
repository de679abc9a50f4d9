"""Closed-form gradients of a two-layer network's loss (the training loop's fast path).

For ``f(x) = W2 σ(W1 x + b1) + b2`` and every :class:`~lrlib.losses.Loss`, one forward
and one backward pass by hand, batched over the run dimensions ``R...``:

* ``pre = X W1ᵀ + b1`` ``(R..., n, m)``, ``h = σ(pre)``, ``out = h W2ᵀ + b2`` ``(R..., n, k)``;
* ``δout = ∂L/∂out`` ``(R..., n, k)`` (:func:`loss_and_dpred`);
* ``∂W2 = δoutᵀ h`` ``(R..., k, m)``, ``∂b2 = Σ_i δout_i``;
* ``δpre = (δout W2) ⊙ σ'(pre)``, ``∂W1 = δpreᵀ X`` ``(R..., m, d)``, ``∂b1 = Σ_i δpre_i``.

``σ'(0) = 0`` for ReLU, the subgradient autograd uses and the theory needs, so the result
equals autograd's to rounding (``tests/test_grads.py``).  Autograd costs a graph per step;
on the small shapes of the orthogonal test bed that overhead is most of a step.
"""

from __future__ import annotations

from typing import Callable, Iterable

import torch

from .losses import Loss, residual
from .models import TwoLayer

Tensor = torch.Tensor
ACTS = ("relu", "linear", "square")
LOSSES = ("square", "cross_entropy", "exponential", "logistic")


def supported(p: TwoLayer, loss: Loss) -> bool:
    """Whether :func:`backprop` covers this activation and loss.

    Parameters
    ----------
    p : TwoLayer
        The network (its ``act`` is checked).
    loss : Loss
        The loss (its ``name`` is checked).

    Returns
    -------
    bool
    """
    return p.act in ACTS and loss.name in LOSSES


def loss_and_dpred(loss: Loss, pred: Tensor, y: Tensor, need_loss: bool = True) -> tuple[Tensor | None, Tensor]:
    """Per-run loss and its derivative with respect to the predictions.

    The value is ``loss(pred, y)`` itself; the derivative of ``L = scale · reduce_i ℓ(pred_i, y_i)``
    is by hand (the reduction contributes ``1/n`` for the mean, ``1`` for the sum).

    Parameters
    ----------
    loss : Loss
        The loss.
    pred : Tensor
        Predictions ``(R..., n, k)``.
    y : Tensor
        Targets as :class:`~lrlib.losses.Loss` takes them (shared ``(n, …)`` or per run).
    need_loss : bool
        Compute the value too (else ``None``).

    Returns
    -------
    L : Tensor or None
        The loss ``(R...)``.
    dpred : Tensor
        ``∂L/∂pred`` ``(R..., n, k)``.

    Raises
    ------
    ValueError
        When there is no closed form for the loss.
    """
    n = pred.shape[-2]
    c = loss.scale / n if loss.reduction == "mean" else loss.scale
    L = loss(pred, y) if need_loss else None          # the value: the Loss itself, one definition
    if loss.name == "square":
        return L, residual(pred, y).mul_(2 * c)
    if loss.name == "cross_entropy":
        d = torch.softmax(pred, dim=-1)
        idx = y.long().expand(pred.shape[:-1]).unsqueeze(-1)
        d.scatter_add_(-1, idx, torch.full_like(idx, -1, dtype=d.dtype))
        return L, d.mul_(c)
    if loss.name == "exponential":
        return L, (-c * y * torch.exp(-y * pred[..., 0])).unsqueeze(-1)
    if loss.name == "logistic":
        return L, (-c * y * torch.sigmoid(-y * pred[..., 0])).unsqueeze(-1)
    raise ValueError(f"no closed-form gradient for loss {loss.name!r}")


def _act_and_slope(act: str, pre: Tensor) -> tuple[Tensor, Tensor | None]:
    """``σ(pre)`` and ``σ'(pre)`` (``None`` for the identity)."""
    if act == "relu":
        return pre.clamp(min=0), pre > 0
    if act == "linear":
        return pre, None
    if act == "square":
        return pre * pre, 2 * pre
    raise ValueError(f"no closed-form gradient for activation {act!r}")


def backprop(
    p: TwoLayer, X: Tensor, y: Tensor, loss: Loss, *, need_loss: bool = True,
    trainable: Iterable[str] = ("W1", "b1", "W2", "b2"),
    into: dict[str, Tensor] | None = None, beta: float = 0.0,
) -> tuple[Tensor | None, dict[str, Tensor]]:
    """Loss and gradients of a two-layer network, by hand (see the module docstring).

    The gradient of each run's loss with respect to its own parameters (runs do not interact).

    Parameters
    ----------
    p : TwoLayer
        The network, parameters ``W1 (R..., m, d)`` etc.
    X : Tensor
        Inputs ``(n, d)`` shared by all runs, or ``(R..., n, d)``.
    y : Tensor
        Targets as ``loss`` takes them.
    loss : Loss
        The loss (one of :data:`LOSSES`; ``p.act`` one of :data:`ACTS`).
    need_loss : bool
        Compute the loss value too (else ``None``).
    trainable : iterable of str
        The parameters to differentiate; only those ``p`` has are returned.
    into : dict of str to Tensor, or None
        Buffers (e.g. momentum) updated in place, ``into[name] ← beta · into[name] + ∂L``, and
        returned instead of fresh gradients; for a single run the weight gradients are then
        accumulated by the matrix product itself (``addmm``), saving a pass over ``W1``.
    beta : float
        The factor on ``into``'s old values.

    Returns
    -------
    L : Tensor or None
        The loss ``(R...)``.
    grads : dict of str to Tensor
        ``{name: ∂L/∂name}``, each shaped like ``p.<name>``.

    Raises
    ------
    ValueError
        When the loss or activation has no closed form (check with :func:`supported`).
    """
    want = {k for k in trainable if getattr(p, k) is not None}
    pre = X @ p.W1.mT
    if p.b1 is not None:
        pre = pre + p.b1.unsqueeze(-2)
    h, slope = _act_and_slope(p.act, pre)
    out = h @ p.W2.mT
    if p.b2 is not None:
        out = out + p.b2.unsqueeze(-2)
    L, dout = loss_and_dpred(loss, out, y, need_loss)

    def weight(a: Tensor, b: Tensor, name: str) -> Tensor:
        return _matmul_t(a, b, getattr(p, name), into, name, beta)

    def bias(a: Tensor, name: str) -> Tensor:
        return _put(_sum_to(a.sum(-2), getattr(p, name)), into, name, beta)

    def times_slope(d: Tensor) -> Tensor:
        return d.mul_(slope)

    return L, layer_grads(X, h, dout, p.W2, want, slope_=None if slope is None else times_slope,
                          weight=weight, bias=bias)


def transpose(a):
    """``aᵀ`` over the last two axes, for a numpy array or a torch tensor alike.

    Parameters
    ----------
    a : array or Tensor
        Shape ``(..., i, j)``.

    Returns
    -------
    array or Tensor
        A view of shape ``(..., j, i)``.
    """
    return a.swapaxes(-1, -2)


def _weight(a, b, name: str):
    return transpose(a) @ b


def _bias(a, name: str):
    return a.sum(-2)


def layer_grads(X, h, dout, W2, want: Iterable[str], *, slope_: Callable | None = None,
                weight: Callable = _weight, bias: Callable = _bias) -> dict:
    """The backward pass of ``out = σ(X W1ᵀ + b1) W2ᵀ + b2`` from ``δout = ∂L/∂out``: the one formula.

    ``∂W2 = δoutᵀ h``, ``∂b2 = Σ_i δout_i``, ``δpre = (δout W2) ⊙ σ'(pre)``, ``∂W1 = δpreᵀ X``,
    ``∂b1 = Σ_i δpre_i``. The operands are numpy arrays or torch tensors alike: :func:`backprop`
    (torch), :class:`lrlib.small_step.SmallGD` (numpy) and the race chapter's
    :func:`~lrlib.theory.race.toy_step.toy_gradients` (numpy, cross-entropy) all differentiate through
    it, each with its own fast products.

    Parameters
    ----------
    X : array or Tensor
        Inputs ``(n, d)`` or ``(R..., n, d)``.
    h : array or Tensor
        Hidden activations ``σ(pre)`` ``(R..., n, m)``.
    dout : array or Tensor
        ``∂L/∂out`` ``(R..., n, k)``.
    W2 : array or Tensor
        Output weights ``(R..., k, m)``.
    want : iterable of str
        The parameters to differentiate, among ``W1, b1, W2, b2``.
    slope_ : callable or None
        ``δ ↦ δ ⊙ σ'(pre)`` (may work in place and return its argument); ``None`` for the identity.
    weight : callable
        ``(a, b, name) ↦ aᵀ b`` for weight ``name`` (default: the plain product; :func:`backprop`
        sums broadcast run axes away and accumulates into momentum buffers).
    bias : callable
        ``(a, name) ↦ Σ_i a_i`` over the points for bias ``name`` (default ``a.sum(-2)``).

    Returns
    -------
    dict of str to array or Tensor
        ``{name: ∂L/∂name}`` for the names in ``want``, in the order ``W2, b2, W1, b1``.
    """
    want = set(want)
    g = {}
    if "W2" in want:
        g["W2"] = weight(dout, h, "W2")
    if "b2" in want:
        g["b2"] = bias(dout, "b2")
    if want & {"W1", "b1"}:
        dpre = dout @ W2
        if slope_ is not None:
            dpre = slope_(dpre)
        if "W1" in want:
            g["W1"] = weight(dpre, X, "W1")
        if "b1" in want:
            g["b1"] = bias(dpre, "b1")
    return g


def _matmul_t(a: Tensor, b: Tensor, like: Tensor, into: dict[str, Tensor] | None, name: str, beta: float) -> Tensor:
    """``aᵀ b`` summed to ``like``'s shape, or accumulated into ``into[name]``."""
    if into is not None and a.dim() == 2 and b.dim() == 2:
        return into[name].addmm_(a.mT, b, beta=beta)
    return _put(_sum_to(a.mT @ b, like), into, name, beta)


def _put(g: Tensor, into: dict[str, Tensor] | None, name: str, beta: float) -> Tensor:
    return g if into is None else into[name].mul_(beta).add_(g)


def _sum_to(g: Tensor, like: Tensor) -> Tensor:
    """Sum broadcast run dimensions away so that ``g`` has ``like``'s shape."""
    if g.shape == like.shape:
        return g
    lead = g.dim() - like.dim()
    g = g.sum(tuple(range(lead))) if lead > 0 else g
    dims = tuple(i for i, (a, b) in enumerate(zip(g.shape, like.shape)) if a != b)
    return g.sum(dims, keepdim=True) if dims else g
