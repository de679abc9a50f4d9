"""The small regression problem that the train and trajectory tests share: data, a network and
a training call with the tests' defaults (imported by the test modules; not a test file)."""

from __future__ import annotations

import torch

from lrlib.losses import half_mse
from lrlib.models import gaussian_init, generator
from lrlib.train import train

F64 = torch.float64


def data(n=5, d=3, seed=100):
    """``(X, y)``: ``n`` Gaussian points in ``d`` dimensions and Gaussian targets, float64."""
    g = generator(seed)
    return torch.randn(n, d, generator=g, dtype=F64), torch.randn(n, generator=g, dtype=F64)


def net(m=4, d=3, seed=0, runs=(), bias=False, act="relu"):
    """A Gaussian-initialised two-layer network of width ``m`` (unit scales)."""
    return gaussian_init(m, d, std_in=1.0, std_out=1.0, gen=generator(seed), bias_in=bias, bias_out=bias,
                         runs=runs, act=act)


def fit(p, X, y, **kw):
    """``train`` with the half-MSE loss and no progress bar unless told otherwise."""
    kw.setdefault("loss", half_mse())
    kw.setdefault("progress", False)
    return train(p, X, y, **kw)
