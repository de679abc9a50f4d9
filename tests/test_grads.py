"""Tests for lrlib.grads: the closed-form gradients equal autograd's for every activation,
loss, reduction, run layout and bias choice; the in-place accumulation into momentum
buffers; and train's closed-form path gives the autograd path's trajectory."""

from __future__ import annotations

import itertools

import pytest
import torch

from lrlib.grads import backprop, layer_grads, loss_and_dpred, supported
from lrlib.losses import Loss, half_mse
from lrlib.models import TwoLayer, forward, gaussian_init, generator
from lrlib.train import train

F64 = torch.float64
LOSSES = [Loss("square", "mean", 0.5), Loss("square", "sum", 1.0), Loss("cross_entropy", "mean"),
          Loss("cross_entropy", "sum", 3.0), Loss("exponential", "mean", 2.0), Loss("logistic", "sum")]


def _problem(act: str, loss: Loss, runs: tuple[int, ...], bias: bool, shared_X: bool, seed: int = 0,
             n: int = 11, d: int = 5, m: int = 7):
    g = generator(seed)
    k = 3 if loss.name == "cross_entropy" else (2 if loss.reduction == "sum" and loss.name == "square" else 1)
    p = gaussian_init(m, d, k, std_in=0.5, std_out=0.5, bias_in=bias, bias_out=bias, gen=g, runs=runs, act=act)
    X = torch.randn((n, d) if shared_X else (*runs, n, d), generator=g, dtype=F64)
    if loss.name == "square":
        y = torch.randn((n, k) if k > 1 else (n,), generator=g, dtype=F64)
    elif loss.name == "cross_entropy":
        y = torch.randint(0, k, (n,), generator=g)
    else:
        y = 2.0 * torch.randint(0, 2, (n,), generator=g).to(F64) - 1
    return p, X, y


def _autograd(p: TwoLayer, X, y, loss):
    """The library loss and autograd's gradient.  For the logistic loss the gradient is taken of
    ``−scale · Σ logsigmoid(y f)``, the same function without softplus's linear switch at z > 20
    (see test_logistic_is_exact_where_softplus_switches_to_linear)."""
    leaves = {k: t.clone().requires_grad_(True) for k, t in p.tensors().items()}
    out = forward(TwoLayer(act=p.act, **leaves), X)
    L = loss(out, y)
    if loss.name == "logistic":
        per = -torch.nn.functional.logsigmoid(y * out[..., 0])
        red = per.mean(-1) if loss.reduction == "mean" else per.sum(-1)
        G = loss.scale * red
    else:
        G = L
    return L.detach(), dict(zip(leaves, torch.autograd.grad(G.sum(), list(leaves.values()))))


def _rel(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a - b).abs().max() / b.abs().max().clamp(min=1e-300))


@pytest.mark.parametrize("act,loss,runs,bias,shared_X", list(itertools.product(
    ["relu", "linear", "square"], LOSSES, [(), (3,), (2, 3)], [False, True], [True, False])))
def test_backprop_equals_autograd(act, loss, runs, bias, shared_X):
    p, X, y = _problem(act, loss, runs, bias, shared_X)
    L_ref, g_ref = _autograd(p, X, y, loss)
    L, g = backprop(p, X, y, loss)
    assert supported(p, loss)
    assert set(g) == set(g_ref)
    assert _rel(L, L_ref) < 1e-13
    for k in g_ref:
        assert g[k].shape == g_ref[k].shape
        assert _rel(g[k], g_ref[k]) < 1e-12, k


def test_relu_kink_has_zero_derivative_like_autograd():
    """A pre-activation exactly 0 contributes nothing (σ'(0) = 0), as autograd's ReLU."""
    X = torch.tensor([[1.0, 0.0], [0.0, 1.0]], dtype=F64)
    p = TwoLayer(W1=torch.tensor([[0.0, 1.0]], dtype=F64), W2=torch.tensor([[1.0]], dtype=F64))
    y = torch.tensor([1.0, 1.0], dtype=F64)
    _, g_ref = _autograd(p, X, y, half_mse())
    _, g = backprop(p, X, y, half_mse())
    assert torch.equal(g["W1"][0, 0], torch.tensor(0.0, dtype=F64))   # x_1 sits on the kink
    for k in g_ref:
        assert _rel(g[k], g_ref[k]) < 1e-15


def test_logistic_is_exact_where_softplus_switches_to_linear():
    """torch's softplus returns z for z > 20, so autograd's slope there is exactly 1; the
    closed form keeps sigmoid(z) = 1 − e^{−z}: the two differ by ≈ e^{−20} ≈ 2e-9 only."""
    pred = torch.tensor([[[25.0]], [[-25.0]]], dtype=F64).reshape(2, 1)
    y = torch.tensor([-1.0, 1.0], dtype=F64)
    _, d = loss_and_dpred(Loss("logistic", "sum"), pred, y)
    assert torch.allclose(d[:, 0], -y * torch.sigmoid(torch.tensor(25.0, dtype=F64)), rtol=1e-15)
    assert float((d[:, 0].abs() - 1).abs().max()) == pytest.approx(torch.exp(torch.tensor(-25.0)).item(), rel=1e-6)


def test_need_loss_false_skips_the_loss_only():
    p, X, y = _problem("relu", LOSSES[2], (), True, True)
    L, g = backprop(p, X, y, LOSSES[2], need_loss=False)
    _, g2 = backprop(p, X, y, LOSSES[2])
    assert L is None
    assert all(torch.equal(g[k], g2[k]) for k in g)


def test_trainable_subset():
    p, X, y = _problem("relu", LOSSES[0], (), True, True)
    _, g = backprop(p, X, y, LOSSES[0], trainable=("W1", "b2"))
    assert set(g) == {"W1", "b2"}


@pytest.mark.parametrize("runs", [(), (3,)])
def test_into_accumulates_beta_times_buffer_plus_gradient(runs):
    p, X, y = _problem("relu", LOSSES[2], runs, True, True)
    _, g = backprop(p, X, y, LOSSES[2])
    bufs = {k: torch.randn(t.shape, generator=generator(5), dtype=F64) for k, t in p.tensors().items()}
    want = {k: 0.9 * b + g[k] for k, b in bufs.items()}
    _, out = backprop(p, X, y, LOSSES[2], into=bufs, beta=0.9)
    for k in want:
        assert out[k] is bufs[k]                                   # written in place
        assert _rel(out[k], want[k]) < 1e-14


@pytest.mark.parametrize("loss", [half_mse(), Loss("cross_entropy")])
@pytest.mark.parametrize("momentum,batch_size,runs", [(0.0, None, ()), (0.9, 4, ()), (0.9, None, (3,)), (0.5, 3, (2,))])
def test_train_closed_form_equals_autograd_trajectory(loss, momentum, batch_size, runs):
    p, X, y = _problem("relu", loss, runs, True, True, n=9)
    kw = dict(loss=loss, lr=0.05, steps=60, momentum=momentum, batch_size=batch_size, record=range(61), progress=False)
    fast = train(p, X, y, **kw)
    slow = train(p, X, y, autograd=True, **kw)
    for k, t in slow.params.tensors().items():
        assert _rel(fast.params.tensors()[k], t) < 1e-11, k
    assert _rel(fast.loss, slow.loss) < 1e-11


def test_unsupported_activation_falls_back_to_autograd(monkeypatch):
    from lrlib import models

    monkeypatch.setitem(models.ACTIVATIONS, "tanh", torch.tanh)
    p, X, y = _problem("relu", half_mse(), (), False, True)
    p.act = "tanh"
    assert not supported(p, half_mse())
    tr = train(p, X, y, loss=half_mse(), lr=0.1, steps=5, record=range(6), progress=False)
    ref = train(p, X, y, loss=half_mse(), lr=0.1, steps=5, record=range(6), progress=False, autograd=True)
    assert torch.equal(tr.params.W1, ref.params.W1)


def test_layer_grads_is_one_formula_for_numpy_and_torch():
    """The same backward pass on numpy arrays and torch tensors, equal to backprop's and to the
    formula written out; ``want`` picks the parameters and ``slope_`` applies σ'."""
    gen = generator(3)
    p = gaussian_init(6, 4, 2, std_in=1.0, std_out=1.0, gen=gen, runs=(3,), bias_in=True, bias_out=True)
    X = torch.randn(9, 4, generator=gen, dtype=p.W1.dtype)
    y = torch.randn(9, 2, generator=gen, dtype=p.W1.dtype)
    pre = X @ p.W1.mT + p.b1.unsqueeze(-2)
    h = pre.clamp(min=0)
    dout = torch.randn(3, 9, 2, generator=gen, dtype=p.W1.dtype)
    mask = pre > 0
    g_t = layer_grads(X, h, dout, p.W2, ("W1", "b1", "W2", "b2"), slope_=lambda d: d * mask)
    g_n = layer_grads(X.numpy(), h.numpy(), dout.numpy(), p.W2.numpy(), ("W1", "b1", "W2", "b2"),
                      slope_=lambda d: d * mask.numpy())
    dpre = (dout @ p.W2) * mask
    want = {"W2": dout.mT @ h, "b2": dout.sum(-2), "W1": dpre.mT @ X, "b1": dpre.sum(-2)}
    assert list(g_t) == ["W2", "b2", "W1", "b1"]
    for k, v in want.items():
        torch.testing.assert_close(g_t[k], v)
        torch.testing.assert_close(torch.from_numpy(g_n[k]), v)
    assert set(layer_grads(X, h, dout, p.W2, ("b2",))) == {"b2"}
    L, g = backprop(p, X, y, half_mse())
    _, dpred = loss_and_dpred(half_mse(), h @ p.W2.mT + p.b2.unsqueeze(-2), y)
    for k, v in layer_grads(X, h, dpred, p.W2, g, slope_=lambda d: d * mask).items():
        torch.testing.assert_close(g[k], v)
