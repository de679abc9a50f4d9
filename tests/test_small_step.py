"""Tests for lrlib.small_step: the numpy full-batch step agrees with the torch step of
lrlib.train (closed-form gradients, themselves tested against autograd) to rounding, on every
case it covers, and is used exactly where it claims to be."""

from __future__ import annotations

import pytest
import torch

from lrlib import small_step
from lrlib.losses import Loss, half_mse
from lrlib.models import TwoLayer, balanced_init, gaussian_init, generator
from lrlib.train import train

F64 = torch.float64


def _case(name):
    g = generator(5)
    if name == "testbed":                                     # orthonormal inputs, balanced init, no bias
        X = torch.eye(6, 10, dtype=F64)
        y = torch.tensor([1.0, 1.5, 2.0, -1.0, -1.0, -0.5], dtype=F64)
        return balanced_init(12, 10, scale=0.3, gen=g, runs=(3,)), X, y, half_mse(), {}
    if name == "bias-momentum":
        X, y = torch.randn(9, 4, generator=g, dtype=F64), torch.randn(9, generator=g, dtype=F64)
        p = gaussian_init(7, 4, std_in=0.5, std_out=0.5, bias_in=True, bias_out=True, gen=g, runs=(2, 2))
        return p, X, y, Loss("square", "sum"), dict(momentum=0.9)
    if name == "vector-targets":
        X, y = torch.randn(8, 3, generator=g, dtype=F64), torch.randn(8, 2, generator=g, dtype=F64)
        return gaussian_init(5, 3, 2, std_in=0.5, std_out=0.5, bias_in=True, gen=g), X, y, half_mse(), {}
    if name == "per-run-X":
        X, y = torch.randn(3, 8, 3, generator=g, dtype=F64), torch.randn(3, 8, generator=g, dtype=F64)
        return gaussian_init(5, 3, std_in=0.5, std_out=0.5, gen=g, runs=(3,)), X, y, half_mse(), {}
    if name == "exponential":
        X = torch.randn(10, 2, generator=g, dtype=F64)
        y = torch.where(X[:, 0] > 0, 1.0, -1.0).to(F64)
        return gaussian_init(6, 2, std_in=0.3, std_out=0.3, gen=g, runs=(4,)), X, y, Loss("exponential", "sum"), {}
    if name == "linear-subset":
        X, y = torch.randn(7, 4, generator=g, dtype=F64), torch.randn(7, generator=g, dtype=F64)
        p = gaussian_init(5, 4, std_in=0.5, std_out=0.5, bias_in=True, gen=g, act="linear")
        return p, X, y, half_mse(), dict(trainable=("W1", "b1"), momentum=0.5)
    if name == "float32":
        X, y = torch.randn(9, 4, generator=g), torch.randn(9, generator=g)
        return gaussian_init(7, 4, std_in=0.5, std_out=0.5, bias_in=True, gen=g, dtype=torch.float32), X, y, half_mse(), {}
    raise KeyError(name)


CASES = ["testbed", "bias-momentum", "vector-targets", "per-run-X", "exponential", "linear-subset", "float32"]


@pytest.mark.parametrize("name", CASES)
def test_numpy_step_equals_torch_step(name):
    p, X, y, loss, kw = _case(name)
    assert small_step.eligible(p.clone(), X, loss, batch_size=None, closed_form=True)
    common = dict(loss=loss, lr=0.05, steps=60, record=[0, 1, 7, 30, 60], dense_loss=True, progress=False, **kw)
    a = train(p, X, y, kernel="auto", **common)
    b = train(p, X, y, kernel="torch", **common)
    tol = dict(rtol=1e-5, atol=1e-6) if X.dtype == torch.float32 else dict(rtol=1e-11, atol=1e-13)
    for k, t in b.params.tensors().items():
        torch.testing.assert_close(a.params.tensors()[k], t, **tol, msg=lambda m: f"{name}, {k}: {m}")
    torch.testing.assert_close(a.loss, b.loss, **tol)
    torch.testing.assert_close(a.dense_loss, b.dense_loss, **tol)
    assert not torch.equal(a.params.W1[0], a.params.W1[-1])        # it really trained
    assert torch.equal(a.params.W1[0], p.W1)                          # the snapshot at 0 is the init


def test_used_only_where_covered():
    p, X, y, loss, _ = _case("testbed")
    ok = dict(batch_size=None, closed_form=True)
    assert small_step.eligible(p, X, loss, **ok)
    assert not small_step.eligible(p, X, loss, batch_size=2, closed_form=True)          # SGD
    assert not small_step.eligible(p, X, Loss("cross_entropy"), **ok)                 # loss not covered
    assert not small_step.eligible(p, X, loss, batch_size=None, closed_form=False)    # grad_fn / autograd
    sq = TwoLayer(act="square", **{k: t for k, t in p.tensors().items()})
    assert not small_step.eligible(sq, X, loss, **ok)                                  # activation not covered
    big = balanced_init(400, 10, scale=0.1, gen=generator(0), runs=(20,))
    assert not small_step.eligible(big, torch.eye(10, dtype=F64).repeat(10, 1), loss, **ok)   # large: torch


def test_kernel_argument_is_checked():
    p, X, y, loss, _ = _case("testbed")
    with pytest.raises(Exception, match="kernel must be"):
        train(p, X, y, loss=loss, lr=0.1, steps=1, kernel="numpy")


def test_divergence_is_still_caught():
    from lrlib.errors import DivergenceError

    p, X, y, loss, _ = _case("testbed")
    with pytest.raises(DivergenceError):
        train(p, X, 1e8 * y, loss=loss, lr=50.0, steps=300, check_every=10, progress=False)
