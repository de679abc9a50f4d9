"""Tests for lrlib.theory.alignment (Min, Mallada & Vidal 2024): the theorem's objects (μ, cones,
direction velocity, Lemmas 2 and 4) and the helpers' closed forms, against independent loops / manual formulas."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.losses import Loss
from lrlib.measure import cosine
from lrlib.models import TwoLayer, forward, generator
from lrlib.theory import alignment as al

F64 = torch.float64
Tensor = torch.Tensor
EXP_SUM = Loss("exponential", "sum")
LOG2_SUM = Loss("logistic", "sum", 2.0)


def _datasets():
    """A few Assumption-1 data sets: the toy, and synthetic ones of varied n, D, spread."""
    gen = generator(11)
    out = [al.toy_2d()]
    for n, D, s in [(4, 3, 0.3), (12, 10, 0.2), (30, 10, 0.15), (7, 2, 0.5)]:
        out.append(al.synthetic_separable(n, D, s, gen))
    return out


DATASETS = _datasets()


def _scaled_balanced_states(X, y, R, m, gen, lo=1e-6, hi=1.0):
    """R random balanced states (runs) with max_i|f(x_i)| log-uniform in [lo, hi]."""
    p = al.balanced_theory_init(m, X.shape[1], 1.0, gen, runs=(R,))
    fmax = forward(p, X)[..., 0].abs().amax(-1)
    assert bool((fmax > 0).all())
    target = torch.exp(math.log(lo) + (math.log(hi) - math.log(lo)) * torch.rand(R, generator=gen, dtype=F64))
    lam = (target / fmax).sqrt()[:, None, None]  # f is 2-homogeneous in the balanced scale
    return TwoLayer(W1=p.W1 * lam, W2=p.W2 * lam)


# ---------------------------------------------------------------------------
# T1 — Lemma 2
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["exponential", "logistic2"])
def test_lemma2_gap_bound(kind):
    yhat = torch.linspace(-1, 1, 100_001, dtype=F64)
    for s in (1.0, -1.0):
        y = torch.full_like(yhat, s)
        gap = al.lemma2_gap(y, yhat, kind)
        assert bool((gap <= 2 * yhat.abs() + 1e-12).all())
        assert float(gap[yhat.abs().argmin()]) <= 1e-15  # −ℓ′(y, 0) = y


def test_lemma2_gap_values_and_standard_logistic_fails():
    y = torch.tensor([1.0, -1.0, 1.0], dtype=F64)
    yh = torch.tensor([0.5, 0.5, -1.0], dtype=F64)
    # exponential: |y e^{−yŷ} − y| = |e^{−yŷ} − 1|
    exp_ref = (torch.exp(-y * yh) - 1).abs()
    assert torch.allclose(al.lemma2_gap(y, yh, "exponential"), exp_ref, rtol=0, atol=1e-15)
    # 2·logistic: |2/(1+e^{yŷ}) − 1| = |tanh(yŷ/2)|
    assert torch.allclose(al.lemma2_gap(y, yh, "logistic2"), torch.tanh(y * yh / 2).abs(), rtol=0, atol=1e-15)
    # the standard logistic (no factor 2) has gap 1/2 at ŷ = 0: Lemma 2 fails
    zero = torch.zeros(2, dtype=F64)
    assert torch.equal(al.lemma2_gap(torch.tensor([1.0, -1.0], dtype=F64), zero, "logistic"),
                       torch.full((2,), 0.5, dtype=F64))
    yhat = torch.linspace(-0.1, 0.1, 201, dtype=F64)
    assert bool((al.lemma2_gap(torch.ones_like(yhat), yhat, "logistic") > 2 * yhat.abs()).all())
    with pytest.raises(ParameterError):
        al.lemma2_gap(y, yh, "square")


# ---------------------------------------------------------------------------
# T3 — Lemma 4 on random balanced states
# ---------------------------------------------------------------------------

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


def test_lemma4_bound_formula():
    X, y = al.toy_2d()
    g = al.geometry(X, y)
    assert al.lemma4_bound(g, 0.25) == pytest.approx(2 * 6 * 1.2 * 0.25, rel=1e-14)


# ---------------------------------------------------------------------------
# T5 — Lemma 5 (conic combinations) and Lemma 11
# ---------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------
# T6 — geometry (Lemmas 7–9) and helpers
# ---------------------------------------------------------------------------

def test_geometry_fields_toy():
    X, y = al.toy_2d()
    g = al.geometry(X, y)
    assert (g.n, g.n_plus, g.n_minus) == (6, 3, 3)
    assert (g.X_max, g.X_min) == pytest.approx((1.2, 0.8), rel=1e-14)
    assert torch.allclose(g.x_plus, X[:3].sum(0)) and torch.allclose(g.x_minus, X[3:].sum(0))
    Xn, yn = X.numpy(), y.numpy()
    c2 = [min(float(np.dot(xc, x) ** 2 / (np.dot(xc, xc) * np.dot(x, x))) for x in Xn)
          for xc in (Xn[yn > 0].sum(0), Xn[yn < 0].sum(0))]
    assert g.zeta1 == pytest.approx(0.999 * min(c2), rel=1e-12)
    assert g.xi_lower == pytest.approx(g.mu ** 2, rel=1e-15)
    with pytest.raises(ParameterError):
        al.geometry(X, torch.zeros(6, dtype=F64))


def _cap_samples(center: Tensor, zeta: float, N: int, gen) -> Tensor:
    """N points of the cap {z : cos(z, c) ≥ √(1−ζ)}, angles uniform in [0, θ_c] (boundary included)."""
    D = center.numel()
    u = center / center.norm()
    v = torch.randn((N, D), generator=gen, dtype=F64)
    v = v - (v @ u)[:, None] * u
    v = v / v.norm(dim=-1, keepdim=True)
    th_c = math.acos(math.sqrt(1 - zeta))
    th = th_c * torch.rand(N, generator=gen, dtype=F64)
    th[:100] = th_c
    r = 0.1 + 10 * torch.rand(N, 1, generator=gen, dtype=F64)
    return r * (torch.cos(th)[:, None] * u + torch.sin(th)[:, None] * v)



@pytest.mark.parametrize("idx", range(len(DATASETS)))
def test_geometry_caps_inside_cones(idx):
    X, y = DATASETS[idx]
    g = al.geometry(X, y)
    assert g.mu > 0 and g.zeta1 >= g.xi_lower
    cm = al.cone_membership(torch.stack([g.x_plus, g.x_minus]), X, y)
    assert bool(cm["S_plus"][0]) and bool(cm["S_minus"][1])
    gen = generator(20 + idx)
    for key, c in (("S_plus", g.x_plus), ("S_minus", g.x_minus)):
        Z = _cap_samples(c, g.zeta1, 10_000, gen)
        assert bool(al.cone_membership(Z, X, y)[key].all())
    # the cap radius is sharp: rotate x± toward its nearest hyperplane x_i^⊥ by the cap angle
    # (inside), and by the angle of a cap 2 % wider than this class's undilated bound (outside)
    for key, c in (("S_plus", g.x_plus), ("S_minus", g.x_minus)):
        u = c / c.norm()
        cos_i = X @ u / X.norm(dim=-1)
        i = int((cos_i ** 2).argmin())
        e = -torch.sign(cos_i[i]) * X[i]
        e = e - (e @ u) * u
        e = e / e.norm()
        own = float(cos_i[i] ** 2)  # this class's undilated bound (ζ₁ = 0.999·min over both classes)
        assert g.zeta1 <= 0.999 * own * (1 + 1e-12)
        for zeta_, inside in ((g.zeta1, True), (0.999 * own, True), (min(1.0, 1.02 * own), False)):
            th = math.acos(math.sqrt(1 - zeta_))
            z = math.cos(th) * u + math.sin(th) * e
            assert bool(al.cone_membership(z[None], X, y)[key][0]) == inside


def test_zeta2_and_zeta_erratum():
    X, y = al.toy_2d()
    g = al.geometry(X, y)
    xp, xm = g.x_plus / g.x_plus.norm(), g.x_minus / g.x_minus.norm()
    # V₊ neuron at cos 0.6 from x₋, V₋ neuron at cos 0.3 from x₊, others pointing away
    rot = torch.tensor([[0.0, -1.0], [1.0, 0.0]], dtype=F64)
    w_plus = 0.6 * xm + 0.8 * (rot @ xm)
    w_minus = 0.3 * xp + math.sqrt(1 - 0.09) * (rot @ xp)
    W0 = torch.stack([w_plus, w_minus, 3 * xp, 2 * xm])
    signs = torch.tensor([1.0, -1.0, 1.0, -1.0], dtype=F64)
    z2 = al.zeta2(W0, signs, g)
    assert z2 == pytest.approx(1 - 0.36, rel=1e-12)
    assert al.zeta2(1e-9 * W0, signs, g) == pytest.approx(z2, rel=1e-12)  # scale-free
    # only neurons pointing away from the wrong aggregate → c ≤ 0 → 1.0
    assert al.zeta2(W0[2:], signs[2:], g) == 1.0
    # runs: the max is over all runs
    W0r = torch.stack([W0, W0[[1, 0, 2, 3]]])
    assert al.zeta2(W0r, torch.stack([signs, signs]), g) == pytest.approx(1 - 0.36, rel=1e-12)
    # erratum: the paper prints max{ζ₁, ζ₂}; the proof needs the min
    assert al.zeta(0.1, 0.3) == 0.1 and al.zeta(0.5, 0.2) == 0.2
    assert al.zeta(g.zeta1, z2) == min(g.zeta1, z2)


def test_zeta2_from_random_init_satisfies_eq26():
    X, y = DATASETS[2]
    g = al.geometry(X, y)
    p = al.balanced_theory_init(50, X.shape[1], 1e-8, generator(1), runs=(3,))
    s = torch.sign(p.a)
    z2 = al.zeta2(p.W1, s, g)
    bound = math.sqrt(1 - z2)
    assert 0 < z2 <= 1
    assert float(cosine(p.W1, g.x_minus)[s > 0].max()) <= bound + 1e-12
    assert float(cosine(p.W1, g.x_plus)[s < 0].max()) <= bound + 1e-12
    assert max(float(cosine(p.W1, g.x_minus)[s > 0].max()),
               float(cosine(p.W1, g.x_plus)[s < 0].max())) == pytest.approx(bound, rel=1e-12)


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


def test_t1_bound_alpha_rate_loss_bound_closed_forms():
    X, y = al.toy_2d()
    g = al.geometry(X, y)
    mu = math.cos(math.radians(80))
    assert g.mu == pytest.approx(mu, rel=1e-12)
    assert al.alpha_rate(g) == pytest.approx((mu * 0.8) ** 2 / (32 * 1.2), rel=1e-12)
    z, xi = 0.05, mu ** 2
    assert al.t1_bound(g, z, xi) == pytest.approx(16 * math.log(6) / (min(z, xi) * math.sqrt(mu) * 0.8), rel=1e-12)
    assert al.t1_bound(g, 0.01, 0.5) == pytest.approx(16 * math.log(6) / (0.01 * math.sqrt(mu) * 0.8), rel=1e-12)
    # loss bound: L(t₂) at t₂, O(1/t) decay, vectorised for numpy and torch
    t = np.linspace(5, 1e6, 7)
    lb = al.loss_bound(3.0, 5.0, t, 0.01)
    assert lb[0] == 3.0 and bool(np.all(np.diff(lb) < 0))
    assert lb[-1] == pytest.approx(3.0 / (3.0 * 0.01 * (1e6 - 5) + 1), rel=1e-14)
    tt = torch.tensor(t, dtype=F64)
    assert torch.allclose(al.loss_bound(3.0, 5.0, tt, 0.01), torch.tensor(lb, dtype=F64))


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


# ---- measurements used by the chapter ------------------------------------------------

def _toy_net():
    X, y = al.toy_2d()
    # neuron 0: v>0 along x₊ (S₊); 1: v>0 pointing down (dead); 2: v<0 along x₋ (S₋);
    # 3: v>0 along x₋ (in S₋: not settled); 4: v<0 along x₊ (in S₊: not settled)
    g = al.geometry(X, y)
    W = torch.stack([g.x_plus, torch.tensor([0.0, -1.0], dtype=F64), g.x_minus, g.x_minus, g.x_plus])
    a = torch.tensor([[1.0, 1.0, -1.0, 1.0, -1.0]], dtype=F64)
    return X, y, TwoLayer(W1=W, W2=a)


def test_settled_and_live_outside():
    X, y, p = _toy_net()
    assert al.settled(p, X, y).tolist() == [True, True, True, False, False]
    assert int(al.live_outside_s_plus(p, X, y)) == 1          # neuron 3 only (neuron 1 is dead)


def test_alignment_times_first_settled_snapshot():
    from lrlib.trajectory import Trajectory
    X, y, p = _toy_net()
    good = TwoLayer(W1=p.W1.clone(), W2=p.W2.clone())
    good.W2[0, 3], good.W2[0, 4] = -1.0, 1.0                   # now every neuron is settled
    stack = TwoLayer(W1=torch.stack([p.W1, p.W1, good.W1])[:, None], W2=torch.stack([p.W2, p.W2, good.W2])[:, None])
    traj = Trajectory(steps=np.array([0, 10, 20]), time=np.array([0.0, 0.5, 1.0]), params=stack,
                      loss=torch.zeros(3, 1, dtype=F64))
    assert al.alignment_times(traj, X, y).tolist() == [1.0]
    never = Trajectory(steps=np.array([0, 10]), time=np.array([0.0, 0.5]),
                       params=TwoLayer(W1=torch.stack([p.W1, p.W1]), W2=torch.stack([p.W2, p.W2])), loss=torch.zeros(2, dtype=F64))
    assert np.isnan(al.alignment_times(never, X, y))


def test_class_alignment_against_direct_computation():
    from lrlib.trajectory import Trajectory
    X, y, p = _toy_net()
    traj = Trajectory(steps=np.array([0]), time=np.array([0.0]), params=p.map(lambda t: t[None]), loss=torch.zeros(1, dtype=F64))
    out = al.class_alignment(traj, X, y)
    xp = X[y > 0].sum(0)
    Vp = [0, 1, 3]
    cos = [float(p.W1[j] @ xp / (p.W1[j].norm() * xp.norm())) for j in Vp]
    wbar = p.W1[Vp].mean(0)
    assert out["+"][0][0] == pytest.approx(float(wbar @ xp / (wbar.norm() * xp.norm())), rel=1e-12)
    assert out["+"][1][0] == pytest.approx(min(cos), rel=1e-12)
    assert out["+"][2][0] == pytest.approx(max(cos), rel=1e-12)


def test_cap_leaves_cone_tracks_zeta1():
    X, y = al.toy_2d()
    g = al.geometry(X, y)
    assert not al.cap_leaves_cone(g.x_plus, g.zeta1, X, y, "S_plus", generator(0))
    assert not al.cap_leaves_cone(g.x_minus, g.zeta1, X, y, "S_minus", generator(0))
    # a cap twice as wide (in 1 − cos²) around the tight side leaks out of its cone
    assert al.cap_leaves_cone(g.x_plus, min(1.0, 2 * g.zeta1), X, y, "S_plus", generator(0))


def test_two_phase_ratio():
    nc = np.array([0.0, 1e-6, 1e-4, 1.0, 0.5])
    dc = np.array([0.0, 2.0, 3.0, 1.0, 0.1])
    assert al.two_phase_ratio(nc, dc) == (2, pytest.approx(1e-4))


# ---------------------------------------------------------------------------
# Declared data families and measurements of the claims ledger
# ---------------------------------------------------------------------------

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


def test_horizon_formula_and_errors():
    X, y = DATASETS[2]
    g = al.geometry(X, y)
    assert al.horizon(g, 50, 1e-10) == pytest.approx(math.log(1 / (math.sqrt(50) * 1e-10)) / (4 * g.n * g.X_max))
    for bad in (0.0, -1.0, 1.0):
        with pytest.raises(ParameterError):
            al.horizon(g, 50, bad)


def test_lost_neurons_against_loop():
    X, y = DATASETS[1]
    gen = generator(5)
    p0 = al.balanced_theory_init(20, X.shape[1], 1.0, gen, runs=(3,))
    p1 = al.balanced_theory_init(20, X.shape[1], 1.0, gen, runs=(3,))
    got = al.lost_neurons(p0, p1, X, y)
    c = al.cone_membership(p1.W1, X, y)
    for r in range(3):
        n = 0
        for j in range(20):
            act = (X @ p0.W1[r, j] > 0)
            if p0.a[r, j] > 0:
                n += bool(act[y > 0].any()) and not bool(c["S_plus"][r, j])
            else:
                n += bool(act[y < 0].any()) and not bool(c["S_minus"][r, j])
        assert int(got[r]) == n
    assert al.lost_neurons(p0, p0.map(lambda t: t), X, y).shape == (3,)


def test_rel_gap():
    assert al.rel_gap(1.1, 1.0) == pytest.approx(0.1)
    np.testing.assert_allclose(al.rel_gap(np.array([2.0, 3.0]), np.array([4.0, 3.0])), [0.5, 0.0])


def test_eq28_bound_direct_and_horizon_identity():
    X, y = al.synthetic_separable(2, 10, 0.05, generator(200))
    g = al.geometry(X, y)
    z, h, W_max = 0.5, 50, 1.3
    m = min(z, g.xi_lower)
    first = min(g.mu, z, g.xi_lower) * math.sqrt(g.mu) * g.X_min / (4 * math.sqrt(h) * g.n * g.X_max ** 2 * W_max ** 2)
    second = math.exp(-64 * g.n * g.X_max * math.log(g.n) / (m * math.sqrt(g.mu) * g.X_min)) / math.sqrt(h)
    lb = al.eq28_log10_bound(g, h, W_max, z)
    assert lb == pytest.approx(math.log10(min(first, second)), rel=1e-12)
    # the exponential term is "T(eps) >= the t1 bound" written for eps: equality at that eps
    assert al.horizon(g, h, second) == pytest.approx(al.t1_bound(g, z, g.xi_lower), rel=1e-9)
    # the chapter's theory data: far below float64 (log space)
    Xt, yt = al.synthetic_separable(16, 10, 0.3, generator(20))
    assert al.eq28_log10_bound(al.geometry(Xt, yt), 50, 1.5, 0.2) < -1000
