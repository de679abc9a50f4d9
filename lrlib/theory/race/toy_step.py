"""Pinson (2026): a numpy gradient for the full-batch toy runs (2-D inputs, wide networks).

On the XOR-like toy (200 points in 2-D) at the paper's widths (500 and 1000 neurons) a step of
:func:`lrlib.train.train` is bound by elementwise passes over the ``(R, N, m)`` hidden layer, and
torch's step makes several extra ones (a boolean mask cast to float, batched products with an inner
dimension of 2). :func:`toy_gradients` computes the same closed-form gradient of the mean
softmax cross-entropy in numpy, through the one backward formula :func:`lrlib.grads.layer_grads`, about three times faster on
these shapes; it is passed to :func:`lrlib.train.train` as ``grad_fn`` (the training loop, the
momentum and the records stay :func:`lrlib.train.train`'s). The ReLU and its derivative are torch's in-place
kernels on the same memory (``relu_`` and ReLU's backward, ``threshold_backward``): np.maximum and a
boolean mask cast to float take about three times longer on these arrays. :mod:`lrlib.small_step` does not cover
the cross-entropy loss nor these sizes. Agreement with :func:`lrlib.grads.backprop` is tested.
"""

from __future__ import annotations

import numpy as np
import torch

from ...errors import ParameterError
from ...grads import layer_grads
from ...models import TwoLayer

Tensor = torch.Tensor


def toy_gradients(p: TwoLayer, X: Tensor, y: Tensor) -> dict[str, Tensor]:
    """Gradient of the mean softmax cross-entropy of a ReLU network with both biases, in numpy.

    Parameters
    ----------
    p : TwoLayer
        The network, ``W1 (R..., m, D)``, ``b1 (R..., m)``, ``W2 (R..., 2, m)``, ``b2 (R..., 2)``;
        CPU tensors, float32 or float64, all four present.
    X : Tensor
        Inputs ``(N, D)`` shared by every run or ``(R..., N, D)``, same dtype as ``p``.
    y : Tensor
        Integer labels ``(N,)`` or ``(R..., N)``, in ``{0, …, K−1}``.

    Returns
    -------
    dict[str, Tensor]
        ``{"W1", "b1", "W2", "b2"}``, each shaped like the parameter, the gradient of the mean
        over the ``N`` points of each run's loss (runs do not interact).
    """
    if p.act != "relu" or p.b1 is None or p.b2 is None:
        raise ParameterError("toy_gradients covers ReLU networks with both biases")
    if X.dtype != p.W1.dtype or X.device.type != "cpu":
        raise ParameterError(f"toy_gradients needs CPU inputs of the network's dtype ({p.W1.dtype}), got {X.dtype}")
    W1, b1, W2, b2 = (t.detach().numpy() for t in (p.W1, p.b1, p.W2, p.b2))
    Xn = X.detach().numpy()
    n = Xn.shape[-2]
    h = Xn @ np.swapaxes(W1, -1, -2)
    h += b1[..., None, :]
    torch.relu_(torch.from_numpy(h))                                   # in place, (R..., N, m); np.maximum is slower here
    z = h @ np.swapaxes(W2, -1, -2)
    z += b2[..., None, :]
    z -= z.max(-1, keepdims=True)
    np.exp(z, out=z)
    z /= z.sum(-1, keepdims=True)                                      # softmax (R..., N, K)
    lab = np.broadcast_to(y.detach().numpy().astype(np.int64), z.shape[:-1])[..., None]
    np.put_along_axis(z, lab, np.take_along_axis(z, lab, -1) - 1, -1)
    z /= n                                                             # ∂L/∂z
    th = torch.from_numpy(h)

    def relu_slope_(dpre: np.ndarray) -> np.ndarray:                   # ReLU' (0 at 0), in place: torch's ReLU
        td = torch.from_numpy(dpre)                                    # backward kernel on the same memory
        torch.ops.aten.threshold_backward.grad_input(td, th, 0.0, grad_input=td)
        return dpre

    g = layer_grads(Xn, h, z, W2, ("W1", "b1", "W2", "b2"), slope_=relu_slope_)
    return {k: torch.from_numpy(np.ascontiguousarray(v).reshape(getattr(p, k).shape)) for k, v in g.items()}
