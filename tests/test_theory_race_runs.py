"""Tests for lrlib.theory.race.runs: seeds trained one after another equal the batched run."""

from __future__ import annotations

import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.losses import Loss
from lrlib.models import generator
from lrlib.theory import race as rc
from lrlib.train import train

CE = Loss("cross_entropy")


def _problem(R=3, N=24, D=6, m=10):
    g = generator(5)
    X = torch.rand(R, N, D, generator=g)
    y = torch.randint(0, 2, (R, N), generator=g)
    return rc.race_init(m, D, 0.3, g, runs=(R,)), X, y


def test_train_each_matches_the_batched_run():
    p0, X, y = _problem()
    kw = dict(loss=CE, lr=0.05, momentum=0.9, batch_size=4, steps=40, record=[0, 7, 20, 40])
    batched = train(p0, X, y, seed=[11, 12, 13], **kw)
    each = rc.train_each(p0, X, y, seed=[11, 12, 13], **kw)
    assert each.params.W1.shape == batched.params.W1.shape and each.loss.shape == batched.loss.shape
    for k, t in batched.params.tensors().items():
        torch.testing.assert_close(getattr(each.params, k), t, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(each.loss, batched.loss, rtol=1e-5, atol=1e-6)
    assert each.meta["seed"] == [11, 12, 13]
    assert (each.steps == batched.steps).all()


def test_stack_runs_and_train_each_reject_bad_input():
    p0, X, y = _problem()
    kw = dict(loss=CE, lr=0.05, steps=4, record=[0, 4])
    with pytest.raises(ParameterError):
        rc.train_each(p0, X, y, seed=[1, 2], **kw)
    with pytest.raises(ParameterError):
        rc.stack_runs([])
    a = train(p0.map(lambda t: t[0]), X[0], y[0], **kw)
    b = train(p0.map(lambda t: t[1]), X[1], y[1], loss=CE, lr=0.05, steps=4, record=[0, 2, 4])
    with pytest.raises(ParameterError):
        rc.stack_runs([a, b])
    with pytest.raises(ParameterError):
        rc.stack_runs([train(p0, X, y, **kw)])


def test_stack_nets_joins_runs():
    p0, _, _ = _problem()
    nets = [p0.map(lambda t: t[r]) for r in range(3)]
    st = rc.stack_nets(nets)
    for k, t in p0.tensors().items():
        assert torch.equal(getattr(st, k), t), k
    with pytest.raises(ParameterError):
        rc.stack_nets([])
