"""Tests for lrlib.theory.alignment.mnist (the exact reductions of the MNIST runs)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.losses import Loss
from lrlib.models import gaussian_init, generator
from lrlib.schedules import linear_schedule
from lrlib.theory import alignment as al
from lrlib.train import train

EXP_MEAN = Loss("exponential", "mean")


def _zero_column_data(n=40, d=12, dead=(0, 3, 7), seed=0):
    g = generator(seed)
    X = torch.randn(n, d, generator=g, dtype=torch.float64)
    X[:, list(dead)] = 0.0
    y = torch.where(X[:, 1] + 0.3 * X[:, 2] > 0, 1.0, -1.0).to(torch.float64)
    return X, y


def test_active_columns():
    X, _ = _zero_column_data()
    keep = al.active_columns(X)
    assert keep.shape == (12,) and keep.sum() == 9 and not keep[[0, 3, 7]].any()
    assert al.active_columns(X.expand(2, *X.shape)).equal(keep)
    with pytest.raises(ParameterError):
        al.active_columns(torch.zeros(5))


def test_train_active_equals_full_reference():
    """The speed-up agrees with the reference path (training on every column) to 1e-10."""
    X, y = _zero_column_data()
    p0 = gaussian_init(8, 12, std_in=1e-3, std_out=1e-3, gen=generator(1), runs=(2,), dtype=torch.float64)
    kw = dict(loss=EXP_MEAN, lr=0.05, steps=400, record=linear_schedule(400, 50))
    ref = train(p0, X, y, **kw)
    red = al.train_active(p0, X, y, **kw)
    assert red.meta["active_columns"] == 9
    assert np.array_equal(ref.steps, red.steps)
    assert torch.allclose(red.params.W1, ref.params.W1, rtol=1e-10, atol=1e-16)
    assert torch.allclose(red.params.W2, ref.params.W2, rtol=1e-10, atol=1e-16)
    assert torch.allclose(red.loss, ref.loss, rtol=1e-10)
    assert red.params.W1[..., [0, 3, 7]].eq(p0.W1[..., [0, 3, 7]]).all()     # never moved


def test_train_active_sgd_equals_reference():
    X, y = _zero_column_data()
    p0 = gaussian_init(8, 12, std_in=1e-3, std_out=1e-3, gen=generator(2), dtype=torch.float64)
    kw = dict(loss=EXP_MEAN, lr=0.05, steps=60, batch_size=16, record=[0, 30, 60], seed=3)
    ref, red = train(p0, X, y, **kw), al.train_active(p0, X, y, **kw)
    assert torch.allclose(red.params.W1, ref.params.W1, rtol=1e-10, atol=1e-16)


def test_train_until_stable_equals_one_long_run():
    X, y = _zero_column_data()
    p0 = gaussian_init(8, 12, std_in=1e-3, std_out=1e-3, gen=generator(4), dtype=torch.float64)
    kw = dict(loss=EXP_MEAN, lr=0.05)
    tr, change = al.train_until_stable(p0, X, y, steps=200, block=100, cap=400, tol=0.0,
                                       record=linear_schedule(200, 50), **kw)      # tol 0: never converged
    assert tr.steps[-1] == 400 and change >= 0
    assert np.all(np.diff(tr.steps) > 0) and np.allclose(tr.time, tr.steps * 0.05)
    ref = train(p0, X, y, steps=400, record=[0, 400], **kw)
    assert torch.allclose(tr.final.W1, ref.final.W1, rtol=1e-10, atol=1e-16)
    assert torch.allclose(tr.loss[-1], ref.loss[-1], rtol=1e-10)
    tr2, ch2 = al.train_until_stable(p0, X, y, steps=200, block=100, cap=400, tol=1.0,
                                     record=linear_schedule(200, 50), **kw)       # tol 1: converged at once
    assert tr2.steps[-1] == 200 and ch2 < 1.0
    assert np.isclose(ch2, float(al.stable_rank_change(tr2, 100)))
    with pytest.raises(ParameterError):
        al.stable_rank_change(tr2, 75)
    with pytest.raises(ParameterError):
        al.train_until_stable(p0, X, y, steps=50, block=100, cap=400, tol=0.1, record=10, **kw)
