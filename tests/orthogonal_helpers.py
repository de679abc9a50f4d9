"""Networks and runs shared by the orthogonal chapter's theory tests."""

from __future__ import annotations

import math

import torch

from lrlib.losses import half_mse
from lrlib.models import TwoLayer, sweep_init
from lrlib.theory import orthogonal as th
from lrlib.train import train

F64 = torch.float64


def limit_network(X, y) -> TwoLayer:
    """Two balanced neurons along limit_directions with cluster masses ‖w‖² = n‖D±‖, a = ±‖w‖."""
    kv = th.key_vectors(X, y)
    up, um = th.limit_directions(X, y)
    n = X.shape[0]
    sp, sm = math.sqrt(n * kv.norm_plus), math.sqrt(n * kv.norm_minus)
    return TwoLayer(W1=torch.stack([sp * up, sm * um]), W2=torch.tensor([[sp, -sm]], dtype=F64))


def sweep_run(X, y, lams, steps=3000, dt=1e-2, seeds=1):
    p = sweep_init(20, X.shape[1], lams, seeds=seeds, seed=3)
    return train(p, X, y, loss=half_mse(), lr=dt, steps=steps, record=list(range(0, steps + 1, 10)))
