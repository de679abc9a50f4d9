"""Helpers shared by the race chapter's theory tests (tests/test_theory_race_*.py)."""

from __future__ import annotations


import numpy as np
import torch

from lrlib.losses import Loss
from lrlib.models import TwoLayer, generator
from lrlib.theory import race as rc

F64 = torch.float64
CE = Loss("cross_entropy")


def setup_net(seed=0, m=12, D=5, N=30, std=0.5, bias=0.3, runs=()):
    g = generator(seed)
    X = torch.randn(*runs, N, D, generator=g, dtype=F64)
    y = torch.randint(0, 2, (*runs, N), generator=g)
    p = rc.race_init(m, D, std, g, runs=runs, dtype=F64)
    p.b1 = bias * torch.randn(p.b1.shape, generator=g, dtype=F64)
    p.b2 = 0.2 * torch.randn(p.b2.shape, generator=g, dtype=F64)
    return p, X, y


def preact_nonzero(p, X):
    from lrlib.models import preactivations
    return (preactivations(p, X) != 0).transpose(-1, -2)


def polar_net(W1, angles, norms):
    """Race network with incoming ``W1 (m, D)`` and outgoing vectors at ``angles`` (radians) with ``norms``."""
    ang, nrm = torch.as_tensor(angles, dtype=F64), torch.as_tensor(norms, dtype=F64)
    return TwoLayer(W1=W1.to(F64), W2=torch.stack([nrm * torch.cos(ang), nrm * torch.sin(ang)]),
                    b1=torch.zeros(W1.shape[0], dtype=F64), b2=torch.zeros(2, dtype=F64))


def toy_problem(R=3, m=30, std=0.5, dtype=F64):
    """Three XOR toy runs with biases, float64 by default: (p, X, y)."""
    X = torch.stack([rc.xor_clusters(20, generator(r))[0] for r in range(R)]).to(dtype)
    y = rc.xor_clusters(20, generator(0))[1].expand(R, -1).clone()
    p = rc.race_init(m, 2, std, generator(5), runs=(R,), dtype=dtype)
    p.b1 = 0.3 * torch.randn(R, m, generator=generator(1), dtype=F64).to(dtype)
    p.b2 = torch.tensor([[0.1, -0.2]] * R, dtype=dtype)
    return p, X, y
