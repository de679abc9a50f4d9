"""Tests for lrlib.theory.alignment.cones: the cones, the signed activated sum (Lemmas 5 and 11), the
direction velocity and its approximation (eq. 4, Lemma 4), the norm/direction split, the cap test."""

from __future__ import annotations

import math

import pytest
import torch

from lrlib.losses import Loss
from lrlib.measure import cosine
from lrlib.models import TwoLayer, forward, generator
from lrlib.theory import alignment as al
from test_theory_alignment_core import DATASETS  # the shared Assumption-1 data sets

F64 = torch.float64
EXP_SUM = Loss("exponential", "sum")
LOG2_SUM = Loss("logistic", "sum", 2.0)


def _scaled_balanced_states(X, y, R, m, gen, lo=1e-6, hi=1.0):
    """R random balanced states (runs) with max_i|f(x_i)| log-uniform in [lo, hi]."""
    p = al.balanced_theory_init(m, X.shape[1], 1.0, gen, runs=(R,))
    fmax = forward(p, X)[..., 0].abs().amax(-1)
    assert bool((fmax > 0).all())
    target = torch.exp(math.log(lo) + (math.log(hi) - math.log(lo)) * torch.rand(R, generator=gen, dtype=F64))
    lam = (target / fmax).sqrt()[:, None, None]  # f is 2-homogeneous in the balanced scale
    return TwoLayer(W1=p.W1 * lam, W2=p.W2 * lam)


@pytest.mark.parametrize("loss", [EXP_SUM, LOG2_SUM], ids=["exp", "2logistic"])
def test_lemma4_random_balanced_states(loss):
    gen = generator(3)
    worst = 0.0
    states = 0
    for X, y in DATASETS:
        g = al.geometry(X, y)
        p = _scaled_balanced_states(X, y, 2000, 16, gen)
        assert torch.allclose(p.a.abs(), p.W1.norm(dim=-1), rtol=1e-13, atol=0)  # balanced
        fmax = forward(p, X)[..., 0].abs().amax(-1)
        assert float(fmax.max()) <= 1 + 1e-12 and float(fmax.min()) >= 1e-6 * (1 - 1e-12)
        err = (al.direction_velocity(p, X, y, loss) - al.approx_direction_velocity(p, X, y)).norm(dim=-1).amax(-1)
        bound = al.lemma4_bound(g, fmax)
        assert bool((err <= bound * (1 + 1e-10)).all())
        worst = max(worst, float((err / bound).max()))
        states += p.W1.shape[0]
    assert states >= 10_000
    assert worst > 0.05  # the bound is not vacuous: errors reach a fair fraction of it


@pytest.mark.parametrize("loss", [Loss("logistic", "sum"), Loss("exponential", "mean")], ids=["logistic", "exp-mean"])
def test_lemma4_needs_the_papers_loss(loss):
    """With −ℓ′(0) ≠ y (standard logistic) or a mean loss the approximation error does not
    vanish with f, so the bound is violated: the test above can fail."""
    X, y = DATASETS[2]
    g = al.geometry(X, y)
    p = _scaled_balanced_states(X, y, 200, 16, generator(4), lo=1e-6, hi=1e-3)
    fmax = forward(p, X)[..., 0].abs().amax(-1)
    err = (al.direction_velocity(p, X, y, loss) - al.approx_direction_velocity(p, X, y)).norm(dim=-1).amax(-1)
    assert bool((err > al.lemma4_bound(g, fmax)).all())


@pytest.mark.parametrize("idx", range(len(DATASETS)))
def test_lemma5_conic_combinations(idx):
    X, y = DATASETS[idx]
    g = al.geometry(X, y)
    gen = generator(5 + idx)
    Z = X * y[:, None]  # generators x_i y_i of K
    n = X.shape[0]
    C = torch.rand((2, 10_000, n), generator=gen, dtype=F64)
    C = C * (torch.rand((2, 10_000, n), generator=gen, dtype=F64) < 0.4)  # sparse combinations too
    C[..., 0] += 1e-3  # nonzero
    z1, z2 = C[0] @ Z, C[1] @ Z
    cos = cosine(z1, z2)
    assert float(cos.min()) >= g.mu - 1e-12
    # Lemma 9's derived ξ = min_{z∈K, i} cos²(z, x_i) is ≥ μ², with equality at a generator
    xi_emp = float((cosine(z1[:, None, :], X[None]) ** 2).min())
    assert xi_emp >= g.xi_lower - 1e-12
    assert float((cosine(Z[:, None, :], X[None]) ** 2).min()) == pytest.approx(g.xi_lower, rel=1e-12)


@pytest.mark.parametrize("idx", range(len(DATASETS)))
def test_lemma11_active_sum_norm(idx):
    X, y = DATASETS[idx]
    g = al.geometry(X, y)
    W = torch.randn((10_000, X.shape[1]), generator=generator(8 + idx), dtype=F64)
    W = W / W.norm(dim=-1, keepdim=True)
    xa = al.signed_active_sum(W, X, y)
    na = al.n_active(W, X).to(F64)
    assert bool((xa.norm(dim=-1) >= math.sqrt(g.mu) * na * g.X_min * (1 - 1e-12)).all())
    assert float(na.max()) > 1  # non-trivial cases are covered


def test_cone_membership_and_active_sum_against_loops():
    gen = generator(2)
    X, y = DATASETS[1]
    # random neurons, plus the aggregates x₊ (∈ S₊) and x₋ (∈ S₋)
    W = torch.randn((2, 40, X.shape[1]), generator=gen, dtype=F64)
    g = al.geometry(X, y)
    W[0, 0], W[0, 1] = g.x_plus, g.x_minus
    cm = al.cone_membership(W, X, y)
    xa = al.signed_active_sum(W, X, y)
    na = al.n_active(W, X)
    for r in range(2):
        for j in range(40):
            act = [float(X[i] @ W[r, j]) > 0 for i in range(X.shape[0])]
            pos = [float(y[i]) > 0 for i in range(X.shape[0])]
            sp = act == pos
            sm = act == [not q for q in pos]
            sd = not any(act)
            assert bool(cm["S_plus"][r, j]) == sp and bool(cm["S_minus"][r, j]) == sm
            assert bool(cm["S_dead"][r, j]) == sd and bool(cm["other"][r, j]) == (not (sp or sm or sd))
            ref = sum((float(y[i]) * X[i] for i in range(X.shape[0]) if act[i]), torch.zeros(X.shape[1], dtype=F64))
            assert torch.allclose(xa[r, j], ref, rtol=0, atol=1e-13)
            assert int(na[r, j]) == sum(act)
    assert bool(cm["S_plus"][0, 0]) and bool(cm["S_minus"][0, 1])
    # per-run data (R, n, D) gives the same as shared data
    assert torch.equal(al.signed_active_sum(W, X.expand(2, -1, -1), y.expand(2, -1)), xa)


def test_direction_velocity_finite_difference():
    X, y = DATASETS[2]
    p = al.balanced_theory_init(10, X.shape[1], 0.3, generator(6), runs=(3,))
    for loss in (EXP_SUM, LOG2_SUM, Loss("square", "mean", 0.5)):
        W = p.W1.clone().requires_grad_(True)
        L = loss(forward(TwoLayer(W1=W, W2=p.W2), X), y).sum()
        (G,) = torch.autograd.grad(L, W)
        eta = 1e-7
        W1 = p.W1 - eta * G
        fd = (W1 / W1.norm(dim=-1, keepdim=True) - p.W1 / p.W1.norm(dim=-1, keepdim=True)) / eta
        dv = al.direction_velocity(p, X, y, loss)
        assert torch.allclose(dv, fd, rtol=0, atol=1e-5 * float(dv.abs().max()))
        assert float(dv.abs().max()) > 0
        # tangent to the sphere
        assert float((dv * p.W1).sum(-1).abs().max()) <= 1e-12 * float(dv.abs().max() * p.W1.norm(dim=-1).max())


def test_norm_and_direction_change_manual():
    X, y = DATASETS[1]
    p = al.balanced_theory_init(12, X.shape[1], 0.5, generator(9), runs=(2,))
    nc, dc = al.norm_and_direction_change(p, X, y, EXP_SUM)
    assert nc.shape == (2,) and dc.shape == (2,)
    for r in range(2):
        W, a = p.W1[r], p.a[r]
        f = torch.relu(X @ W.T) @ a  # (n,)
        lp = -y * torch.exp(-y * f)  # ℓ′ for the exponential loss
        act = ((X @ W.T) > 0).to(F64)  # (n, m)
        G = (lp[:, None] * act * a[None, :]).T @ X  # ∇_{w_j} 𝓛 = Σ_i ℓ′_i v_j 𝟙 x_i
        nc_ref = float(sum(2 * torch.dot(-G[j], W[j]) for j in range(12)))
        dc_ref = 0.0
        for j in range(12):
            u = -G[j] / W[j].norm()
            w = W[j] / W[j].norm()
            dc_ref += float((u - torch.dot(u, w) * w).norm())
        assert float(nc[r]) == pytest.approx(nc_ref, rel=1e-10)
        assert float(dc[r]) == pytest.approx(dc_ref, rel=1e-10)


def test_cap_leaves_cone_tracks_zeta1():
    X, y = al.toy_2d()
    g = al.geometry(X, y)
    assert not al.cap_leaves_cone(g.x_plus, g.zeta1, X, y, "S_plus", generator(0))
    assert not al.cap_leaves_cone(g.x_minus, g.zeta1, X, y, "S_minus", generator(0))
    # a cap twice as wide (in 1 − cos²) around the tight side leaks out of its cone
    assert al.cap_leaves_cone(g.x_plus, min(1.0, 2 * g.zeta1), X, y, "S_plus", generator(0))
