"""Tests for lrlib.theory.race.toy_step: the toy runs' numpy gradient against backprop and in training."""

import pytest
import torch

from lrlib import grads
from lrlib.errors import ParameterError
from lrlib.losses import Loss
from lrlib.models import TwoLayer
from lrlib.theory import race as rc
from lrlib.train import train
from race_helpers import toy_problem

CE = Loss("cross_entropy")
F64 = torch.float64


@pytest.mark.parametrize("dtype,tol", [(F64, 1e-12), (torch.float32, 1e-5)])
def test_toy_gradients_match_backprop(dtype, tol):
    p, X, y = toy_problem(dtype=dtype)
    mine = rc.toy_gradients(p, X, y)
    _, ref = grads.backprop(p, X, y, CE)
    for k in ("W1", "b1", "W2", "b2"):
        assert mine[k].shape == getattr(p, k).shape
        assert float((mine[k] - ref[k]).abs().max() / ref[k].abs().max()) < tol


def test_toy_gradients_shared_inputs_and_errors():
    p, X, y = toy_problem()
    mine = rc.toy_gradients(p, X[0], y[0])                 # one data set for every run
    _, ref = grads.backprop(p, X[0], y[0], CE)
    assert float((mine["W1"] - ref["W1"]).abs().max()) < 1e-12
    with pytest.raises(ParameterError):
        rc.toy_gradients(p, X.float(), y)                  # dtype mismatch
    with pytest.raises(ParameterError):
        rc.toy_gradients(TwoLayer(W1=p.W1, W2=p.W2), X, y)  # no biases


def test_toy_gradients_in_train_equal_torch_step():
    p, X, y = toy_problem(m=10, std=0.1)
    a = train(p, X, y, loss=CE, lr=1e-2, momentum=0.9, steps=50, record=[0, 50], grad_fn=rc.toy_gradients)
    b = train(p, X, y, loss=CE, lr=1e-2, momentum=0.9, steps=50, record=[0, 50])
    assert float((a.final.W1 - b.final.W1).abs().max()) < 1e-12
