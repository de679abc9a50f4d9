"""Tests for lrlib.theory.race.merging (Pinson 2026): merging of aligned neurons and splitting (exact for parallel neurons)."""

from __future__ import annotations


import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.losses import Loss
from lrlib.models import TwoLayer, forward, generator
from lrlib.theory import race as rc
from race_helpers import setup_net

F64 = torch.float64
CE = Loss("cross_entropy")


def test_merge_is_exact_for_parallel_neurons_and_counts_groups():
    p, X, y = setup_net(12, m=10)
    q = rc.split_neuron(rc.split_neuron(p, 3, 0.6), 5, 0.8)
    assert q.width == 12
    assert torch.allclose(forward(q, X), forward(p, X), atol=1e-13)
    merged, k = rc.merge(q, 0.999)
    assert k == 10
    assert (forward(merged, X) - forward(p, X)).abs().max() < 1e-12
    labels = rc.merge_groups(q, 0.999)
    assert labels[3] == labels[10] and labels[5] == labels[11]
    with pytest.raises(ParameterError):
        rc.merge_groups(rc.race_init(3, 2, 1.0, generator(0), runs=(2,)))


def test_split_all_merges_back_and_counts_parameters():
    p, X, y = setup_net(22, m=7)
    q = rc.split_all(p, 0.6)
    assert q.width == 14
    assert torch.allclose(forward(q, X), forward(p, X), atol=1e-13)
    merged, k = rc.merge(q, 0.999)
    assert k == 7
    assert rc.n_parameters(p) == 7 * 5 + 7 + 2 * 7 + 2
    with pytest.raises(ParameterError):
        rc.split_all(p, 1.0)


def test_merge_rows_split_neuron_merges_back_exactly():
    g = generator(1)
    X, y = torch.randn(30, 20, generator=g, dtype=F64), torch.randint(0, 2, (30,), generator=g)
    p = rc.race_init(8, 20, 0.5, g, dtype=F64)
    sp = rc.split_neuron(p, 2, 0.6)                           # 9 neurons, two exactly parallel
    rows = rc.merge_rows(sp, X, y, CE, setting=1, seed=7)
    assert [r["threshold"] for r in rows] == [0.99, 0.999, 0.9999]
    assert list(rows[0])[:2] == ["setting", "seed"] and rows[0]["seed"] == 7
    assert all(r["groups"] == 8 for r in rows)                # random directions in 20-D never reach 0.99
    assert max(abs(r["rel_loss_change"]) for r in rows) <= 1e-14
    assert [r["threshold"] for r in rc.merge_rows(sp, X, y, CE, thresholds=(0.5,))] == [0.5]


def test_merge_direction_weighted_is_first_order_exact_and_leader_is_not():
    """Two nearly parallel neurons (angle ε): the ‖θ‖²-weighted direction keeps the group's output to
    O(ε²), the leader's direction only to O(ε); both give the paper's norm √(Σ‖θ‖²)."""
    g = generator(3)
    X = torch.randn(40, 5, generator=g, dtype=F64)
    p = rc.race_init(1, 5, 1.0, g, dtype=F64)
    p.b1 = torch.tensor([0.3], dtype=F64)
    th = rc.theta(p)[0]
    errs = {}
    for eps in (1e-2, 5e-3):
        d = torch.randn(th.shape, generator=generator(4), dtype=F64)
        d = d - (d @ th) / (th @ th) * th
        th2 = (th + eps * th.norm() * d / d.norm()) * 0.8          # a smaller member, rotated by ≈ ε
        W = torch.stack([th, th2])
        q = TwoLayer(W1=W[:, :5], b1=W[:, 5], W2=W[:, 6:].T.contiguous(), b2=p.b2)
        for direction in rc.MERGE_DIRECTIONS:
            merged, k = rc.merge(q, 0.99, direction)
            assert k == 1
            assert torch.isclose(rc.theta(merged)[0].norm(), rc.theta(q).norm(dim=-1).pow(2).sum().sqrt())
            errs[direction, eps] = float((forward(merged, X) - forward(q, X)).abs().max())
    assert errs["weighted", 5e-3] < errs["weighted", 1e-2] / 3             # ~ε²: a quarter
    assert errs["leader", 5e-3] > errs["leader", 1e-2] / 3                 # ~ε: a half
    assert errs["weighted", 1e-2] < errs["leader", 1e-2] / 5
    with pytest.raises(ParameterError):
        rc.merge(q, 0.99, "mean")
