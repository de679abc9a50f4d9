"""Tests for lrlib.track: each measurement against a direct computation with numpy or a case
solved by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lrlib.models import TwoLayer, generator
from lrlib.track import balancedness_drift, cosine_similarity_matrix, max_direction_change, stable_rank

F64 = torch.float64


def test_cosine_similarity_matrix():
    V = torch.randn(2, 6, 4, generator=generator(3), dtype=F64)
    C = cosine_similarity_matrix(V)
    assert C.shape == (2, 6, 6)
    torch.testing.assert_close(torch.diagonal(C, dim1=-2, dim2=-1), torch.ones(2, 6, dtype=F64), rtol=0, atol=1e-15)
    torch.testing.assert_close(C, C.transpose(-1, -2), rtol=0, atol=1e-15)
    Vn = V.numpy()
    for r in range(2):
        for i in range(6):
            for j in range(6):
                ref = Vn[r, i] @ Vn[r, j] / (np.linalg.norm(Vn[r, i]) * np.linalg.norm(Vn[r, j]))
                assert C[r, i, j].item() == pytest.approx(ref, rel=1e-13, abs=1e-15)


def test_stable_rank_against_numpy():
    W = torch.randn(3, 7, 5, generator=generator(4), dtype=F64)
    sr, s2 = stable_rank(W)
    for r in range(3):
        Wn = W[r].numpy()
        fro2, spec2 = np.linalg.norm(Wn, "fro") ** 2, np.linalg.norm(Wn, 2) ** 2
        assert s2[r].item() == pytest.approx(spec2, rel=1e-12)
        assert sr[r].item() == pytest.approx(fro2 / spec2, rel=1e-12)
    # rank one → 1; orthonormal rows → m
    u = torch.randn(6, 1, generator=generator(6), dtype=F64)
    v = torch.randn(1, 4, generator=generator(7), dtype=F64)
    assert stable_rank(u @ v)[0].item() == pytest.approx(1.0, rel=1e-12)
    assert stable_rank(torch.eye(3, 5, dtype=F64))[0].item() == pytest.approx(3.0, rel=1e-14)


def test_max_direction_change_known_rotation():
    W = torch.tensor([[1.0, 0.0], [0.0, 3.0], [0.1, 0.0]], dtype=torch.float64)
    c, s = math.cos(math.radians(30)), math.sin(math.radians(30))
    R = torch.tensor([[c, -s], [s, c]], dtype=torch.float64)
    W2 = W.clone()
    W2[0] = R @ W[0]                                   # neuron 0 turns by 30°
    W2[2] = torch.tensor([0.0, -0.1])                  # a small neuron turns by 90° but is not in the top 2
    a = torch.ones(1, 3, dtype=torch.float64)
    p0, p1 = TwoLayer(W1=W, W2=a), TwoLayer(W1=W2, W2=a)
    assert max_direction_change(p0, p1, top=2) == pytest.approx(30.0, abs=1e-9)
    assert max_direction_change(p0, p1, top=3) == pytest.approx(90.0, abs=1e-9)


def test_balancedness_drift_relative_to_current_norms():
    from lrlib.trajectory import Trajectory
    W1 = torch.tensor([[[1.0, 0.0]], [[10.0, 0.0]]], dtype=torch.float64)      # (T=2, m=1, d=2)
    W2 = torch.tensor([[[2.0]], [[10.0]]], dtype=torch.float64)                 # a² − ‖w‖² = 3, then 0
    traj = Trajectory(steps=np.array([0, 1]), time=np.array([0.0, 1.0]), params=TwoLayer(W1=W1, W2=W2),
                      loss=torch.zeros(2, dtype=torch.float64))
    assert balancedness_drift(traj, relative_to="current").item() == pytest.approx(3.0)
    assert balancedness_drift(traj).item() == pytest.approx(3.0 / 100)
    with pytest.raises(ValueError):
        balancedness_drift(traj, relative_to="initial")
