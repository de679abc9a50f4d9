"""Full-batch GD on small shapes in numpy: the training loop's dispatch-free step.

On the book's small problems (the orthogonal test bed: 6 points, 10 features, 50 neurons —
about 14 kFLOP a step) a step of :func:`lrlib.train.train` is bound by the ~25 torch dispatches
of :func:`lrlib.grads.backprop`, not by arithmetic. This module takes the same closed-form
gradients (:func:`lrlib.grads.layer_grads`, the one formula) in about ten numpy calls and updates the
parameters **in place through numpy views of the torch tensors**, so that the rest of the loop
(snapshots, checks, the recorded losses) is unchanged. It agrees with the torch step to rounding
(``tests/test_small_step.py``); ``train(..., kernel="torch")`` turns it off.

Covered: full-batch GD with or without momentum, activations ``relu`` and ``linear``, losses
``square`` and ``exponential`` (any reduction and scale), any trainable subset, runs batched
along leading dimensions, CPU tensors, and sizes up to :data:`MAX_WORK` multiply-adds per
matrix product (above it torch's matmul is as fast and the dispatch cost is negligible).
"""

from __future__ import annotations

import math
from typing import Iterable

import numpy as np
import torch

from .grads import layer_grads
from .losses import Loss
from .models import TwoLayer, forward

Tensor = torch.Tensor

#: Largest ``runs · n · m · max(d, k)`` (multiply-adds of the largest product of a step) for
#: which the numpy step is used; measured crossover on the book's machines (benchmarks/).
MAX_WORK = 1 << 18
ACTS = ("relu", "linear")
LOSSES = ("square", "exponential")


def eligible(p: TwoLayer, X: Tensor, loss: Loss, *, batch_size: int | None, closed_form: bool) -> bool:
    """Whether :class:`SmallGD` covers this run (and it is small enough to gain).

    Parameters
    ----------
    p : TwoLayer
        The network (activation, contiguity, dtype, run shape are checked).
    X : Tensor
        Inputs ``(n, d)`` or ``(R..., n, d)``; CPU, float32 or float64.
    loss : Loss
        The loss (square or exponential).
    batch_size : int or None
        Must be ``None`` (full batch).
    closed_form : bool
        Whether the run uses the closed-form gradients at all.

    Returns
    -------
    bool
        ``True`` when covered and ``runs · n · m · max(d, k) ≤`` :data:`MAX_WORK`.
    """
    if batch_size is not None or not closed_form or p.act not in ACTS or loss.name not in LOSSES:
        return False
    if X.device.type != "cpu" or X.dtype not in (torch.float32, torch.float64) or X.requires_grad:
        return False
    if X.dim() > 2 and tuple(X.shape[:-2]) != tuple(p.runs):
        return False
    if any(not t.is_contiguous() or t.requires_grad or t.dtype != X.dtype for t in p.tensors().values()):
        return False
    n, d = X.shape[-2], X.shape[-1]
    m, k = p.W1.shape[-2], p.W2.shape[-2]
    return math.prod(p.runs) * n * m * max(d, k) <= MAX_WORK


class SmallGD:
    """One network's full-batch GD in numpy, updating ``p``'s tensors in place.

    Parameters
    ----------
    p : TwoLayer
        The network being trained (its tensors must be contiguous CPU tensors; they are
        updated in place through numpy views).
    X : Tensor
        Inputs ``(n, d)`` or ``(R..., n, d)``.
    y : Tensor
        Targets as :class:`~lrlib.losses.Loss` takes them.
    loss : Loss
        A square or exponential :class:`~lrlib.losses.Loss`.
    trainable : iterable of str
        The parameter names that move.
    momentum : float
        Heavy-ball coefficient μ (torch's SGD convention).
    """

    def __init__(self, p: TwoLayer, X: Tensor, y: Tensor, loss: Loss, trainable: Iterable[str], momentum: float = 0.0):
        self.act, self.loss, self.momentum = p.act, loss, float(momentum)
        self.views = {k: t.numpy() for k, t in p.tensors().items()}        # share memory with p
        # transposed views, made once: they follow the in-place updates of the parameters
        self.W1T, self.W2T = (np.swapaxes(self.views[k], -1, -2) for k in ("W1", "W2"))
        self.trainable = tuple(trainable)
        self.X = X.detach().numpy()
        n = X.shape[-2]
        self.c = loss.scale / n if loss.reduction == "mean" else loss.scale
        pred_shape = forward(p, X[..., :1, :]).shape
        if loss.name == "square":        # targets as (…, n, k), the way lrlib.losses.residual reads them
            k = pred_shape[-1]
            has_k_axis = y.dim() >= 2 and y.shape[-2] == n and y.shape[-1] == k
            Y = y if has_k_axis or k != 1 else y.unsqueeze(-1)
        else:                            # exponential: labels (…, n)
            Y = y
        self.Y = Y.detach().to(X.dtype).numpy()
        self.bufs = {k: np.zeros_like(self.views[k]) for k in self.trainable} if momentum else {}

    def _reduce(self, per_point: np.ndarray) -> np.ndarray:
        s = per_point.sum(-1)
        return self.loss.scale * (s / per_point.shape[-1] if self.loss.reduction == "mean" else s)

    def gradients(self, need_loss: bool) -> tuple[Tensor | None, dict[str, np.ndarray]]:
        """The loss and the gradients at the current parameters.

        Overflow is not warned about: a diverging run is caught by the training loop's checks,
        as with torch.

        Parameters
        ----------
        need_loss : bool
            Compute the loss value too.

        Returns
        -------
        L : Tensor or None
            The loss ``(R...)`` (``None`` unless ``need_loss``).
        grads : dict of str to np.ndarray
            The gradients of the trainable parameters, shaped like them.
        """
        with np.errstate(over="ignore", invalid="ignore"):
            return self._gradients(need_loss)

    def _gradients(self, need_loss: bool) -> tuple[Tensor | None, dict[str, np.ndarray]]:
        v = self.views
        W2 = v["W2"]
        pre = self.X @ self.W1T
        if "b1" in v:
            pre += v["b1"][..., None, :]
        h = np.maximum(pre, 0) if self.act == "relu" else pre
        out = h @ self.W2T
        if "b2" in v:
            out += v["b2"][..., None, :]
        L = None
        if self.loss.name == "square":
            r = out - self.Y
            if need_loss:
                L = self._reduce((r * r).sum(-1))
            dout = r * (2 * self.c)
        else:
            e = np.exp(-self.Y * out[..., 0])
            if need_loss:
                L = self._reduce(e)
            dout = (-self.c * self.Y * e)[..., None]
        slope_ = _relu_slope(pre) if self.act == "relu" else None
        g = layer_grads(self.X, h, dout, W2, self.trainable, slope_=slope_)
        return (None if L is None else torch.from_numpy(np.asarray(L))), g

    def run(self, steps: int, lr: float) -> None:
        """Several steps of GD without measuring the loss, in place.

        The stretch of the training loop between two recorded or checked steps; the same
        arithmetic as :meth:`gradients` + :meth:`apply`.

        Parameters
        ----------
        steps : int
            How many steps.
        lr : float
            The step size.
        """
        with np.errstate(over="ignore", invalid="ignore"):
            for _ in range(steps):
                self._apply(self._gradients(False)[1], lr)

    def apply(self, g: dict[str, np.ndarray], lr: float) -> None:
        """The step ``θ ← θ − lr · g`` (with momentum: ``v ← μ v + g``, ``θ ← θ − lr · v``), in place.

        Parameters
        ----------
        g : dict of str to np.ndarray
            Gradients from :meth:`gradients`.
        lr : float
            The step size.
        """
        with np.errstate(over="ignore", invalid="ignore"):
            self._apply(g, lr)

    def _apply(self, g: dict[str, np.ndarray], lr: float) -> None:
        for name, gk in g.items():
            if self.momentum:
                buf = self.bufs[name]
                buf *= self.momentum
                buf += gk
                gk = buf
            self.views[name] -= lr * gk


def _relu_slope(pre: np.ndarray):
    """``δ ↦ δ ⊙ 1[pre > 0]`` in place (ReLU's derivative, 0 at 0)."""
    def times_slope(d: np.ndarray) -> np.ndarray:
        d *= pre > 0
        return d
    return times_slope


__all__ = ["MAX_WORK", "eligible", "SmallGD"]
