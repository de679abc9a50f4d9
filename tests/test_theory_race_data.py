"""Tests for lrlib.theory.race.data (Pinson 2026): the XOR toy data and the initialisation."""

from __future__ import annotations


import numpy as np
import pytest
import torch

from lrlib.losses import Loss
from lrlib.models import generator
from lrlib.theory import race as rc

F64 = torch.float64
CE = Loss("cross_entropy")


def test_xor_clusters_layout():
    X, y, cl = rc.xor_clusters(50, generator(0), std=0.0)
    norms = [X[cl == c].norm(dim=-1).mean().item() for c in range(4)]
    assert norms == pytest.approx([4, 3, 1, 2])
    assert y.tolist()[::50] == [0, 1, 0, 1]
    assert torch.allclose(X[cl == 0][0] / 4, -X[cl == 2][0] / 1)


def test_race_init_zero_biases_and_per_run_std():
    p = rc.race_init(100, 50, torch.tensor([1e-3, 1.0]), generator(0), runs=(2,))
    assert p.W1.dtype == torch.float32 and (p.b1 == 0).all() and (p.b2 == 0).all()
    assert p.W1[0].std().item() == pytest.approx(1e-3, rel=0.05)
    assert p.W1[1].std().item() == pytest.approx(1.0, rel=0.05)
