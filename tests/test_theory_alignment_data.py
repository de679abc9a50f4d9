"""Tests for lrlib.theory.alignment.data: the data sets (Assumption 1, their geometry) and the theory init."""

from __future__ import annotations

import math

import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.measure import cosine
from lrlib.models import generator
from lrlib.theory import alignment as al

F64 = torch.float64


def test_toy_2d_assumption1_and_dead_cone():
    X, y = al.toy_2d()
    assert X.shape == (6, 2) and torch.equal(y, torch.tensor([1.0, 1, 1, -1, -1, -1], dtype=F64))
    assert torch.allclose(X.norm(dim=-1), torch.tensor([0.8, 1.0, 1.2] * 2, dtype=F64))
    assert al.mu(X, y) == pytest.approx(math.cos(math.radians(80)), rel=1e-12) and al.mu(X, y) > 0
    dead = al.cone_membership(torch.tensor([[0.0, -1.0], [0.0, 1.0]], dtype=F64), X, y)["S_dead"]
    assert dead.tolist() == [True, False]
    # 15/30/45 vs 135/150/165 would have 45° ⟂ 135°, hence μ = 0 (Assumption 1 fails)
    Xs, ys = al.toy_2d(pos_deg=(15, 30, 45), neg_deg=(135, 150, 165))
    assert abs(al.mu(Xs, ys)) < 1e-12
    assert al.toy_2d(torch.float32)[0].dtype == torch.float32


@pytest.mark.parametrize("theta", [0.001, 0.1, 0.5, 1.2, math.pi / 2])
def test_two_point_data_mu(theta):
    X, y = al.two_point_data(theta)
    assert X.shape == (2, 2) and torch.equal(y, torch.ones(2, dtype=F64))
    assert float(X[0] @ X[1]) == pytest.approx(math.sin(theta), rel=1e-14)
    assert al.mu(X, y) == pytest.approx(math.sin(theta), rel=1e-12)
    g = al.geometry(X, y)  # one class only: x₋ = 0, ζ₁ from x₊ alone
    assert g.n_minus == 0 and float(g.x_minus.norm()) == 0 and g.zeta1 > 0


def test_two_point_data_orthogonal():
    X, y = al.two_point_data(0.0)
    assert abs(al.mu(X, y)) < 1e-15
    # boundary convention σ′(0) = 0: ⟨w, x₁⟩ = 0 exactly counts as inactive
    W = torch.tensor([[0.0, -1.0], [0.0, 1.0], [1.0, 1.0]], dtype=F64)
    cm = al.cone_membership(W, X, y)
    assert cm["S_dead"].tolist() == [True, False, False] and cm["other"].tolist() == [False, True, False]
    assert cm["S_plus"].tolist() == [False, False, True] and al.n_active(W, X).tolist() == [0, 1, 2]
    assert torch.equal(al.signed_active_sum(W, X, y), torch.tensor([[0.0, 0], [0, 1], [1, 1]], dtype=F64))


def test_synthetic_separable():
    X1, y1 = al.synthetic_separable(9, 10, 0.3, generator(7))
    X2, y2 = al.synthetic_separable(9, 10, 0.3, generator(7))
    assert torch.equal(X1, X2) and torch.equal(y1, y2)
    assert X1.shape == (9, 10) and int((y1 > 0).sum()) == 5 and int((y1 < 0).sum()) == 4
    assert al.mu(X1, y1) > 0
    X3, _ = al.synthetic_separable(9, 10, 0.3, generator(8))
    assert not torch.equal(X1, X3)
    # class means ≈ ±e₁
    Xb, yb = al.synthetic_separable(400, 3, 0.05, generator(1))
    assert torch.allclose(Xb[yb > 0].mean(0), torch.tensor([1.0, 0, 0], dtype=F64), atol=0.02)
    assert torch.allclose(Xb[yb < 0].mean(0), torch.tensor([-1.0, 0, 0], dtype=F64), atol=0.02)
    with pytest.raises(ParameterError):
        al.synthetic_separable(40, 10, 5.0, generator(0), max_tries=20)


def test_balanced_theory_init():
    eps, D, h = 1e-6, 10, 3
    p = al.balanced_theory_init(h, D, eps, generator(0), runs=(500,))
    q = al.balanced_theory_init(h, D, eps, generator(0), runs=(500,))
    assert torch.equal(p.W1, q.W1) and torch.equal(p.W2, q.W2)
    assert p.W1.shape == (500, h, D) and p.W2.shape == (500, 1, h) and p.W1.dtype == F64
    assert torch.allclose(p.a.abs(), p.W1.norm(dim=-1), rtol=1e-14, atol=0)
    s = torch.sign(p.a)
    assert bool(((s > 0).any(-1) & (s < 0).any(-1)).all())  # both signs in every run (h = 3)
    var = float((p.W1 / eps).var())
    assert var == pytest.approx(1 / D, rel=0.05)  # W₀ ~ N(0, 1/D)
    with pytest.raises(ParameterError):
        al.balanced_theory_init(1, D, eps, generator(0))


def test_toy_family_ranges_assumption1_and_mirror():
    X, y = al.toy_family(64, generator(3))
    assert X.shape == (64, 6, 2) and y.tolist() == [1, 1, 1, -1, -1, -1]
    ang = torch.rad2deg(torch.atan2(X[..., 1], X[..., 0]))
    r = X.norm(dim=-1)
    assert bool(((ang[:, :3] >= 5) & (ang[:, :3] <= 45)).all() and ((ang[:, 3:] >= 135) & (ang[:, 3:] <= 175)).all())
    assert bool(((r[:, :3] >= 0.8) & (r[:, :3] <= 1.2)).all() and ((r[:, 3:] >= 0.4) & (r[:, 3:] <= 0.8)).all())
    assert all(al.mu(Xr, y) > 0 for Xr in X)                      # every draw satisfies Assumption 1
    Xm, _ = al.toy_family(64, generator(3), mirror=True)
    assert torch.equal(Xm[:, :3], X[:, :3]) and torch.equal(Xm[:, 3:], -X[:, :3])
    with pytest.raises(ParameterError):
        al.toy_family(0, generator(0))


def test_two_direction_separable_geometry():
    X, y = al.two_direction_separable(16, 10, 120.0, 0.1, generator(1))
    assert X.shape == (16, 10) and X.dtype == torch.float64
    assert (y[:8] == 1).all() and (y[8:] == -1).all()
    g = al.geometry(X, y)
    assert g.mu > 0
    assert float(cosine(g.x_plus, -g.x_minus)) < 0.8          # not antipodal, unlike synthetic_separable


def test_two_direction_separable_errors():
    with pytest.raises(ParameterError):
        al.two_direction_separable(16, 10, 80.0, 0.1, generator(1))
    with pytest.raises(ParameterError):
        al.two_direction_separable(1, 10, 120.0, 0.1, generator(1))
