"""Tests for lrlib.theory.alignment.core (Min, Mallada & Vidal 2024): the closed forms (μ, the data
geometry, ζ₁, ζ₂, ζ, t₁, α, the horizon, eq. (28), Lemmas 1, 2 and 4's bounds) against manual formulas."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.measure import cosine
from lrlib.models import generator
from lrlib.theory import alignment as al

F64 = torch.float64
Tensor = torch.Tensor


def _datasets():
    """A few Assumption-1 data sets: the toy, and synthetic ones of varied n, D, spread."""
    gen = generator(11)
    out = [al.toy_2d()]
    for n, D, s in [(4, 3, 0.3), (12, 10, 0.2), (30, 10, 0.15), (7, 2, 0.5)]:
        out.append(al.synthetic_separable(n, D, s, gen))
    return out


DATASETS = _datasets()


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


def test_lemma4_bound_formula():
    X, y = al.toy_2d()
    g = al.geometry(X, y)
    assert al.lemma4_bound(g, 0.25) == pytest.approx(2 * 6 * 1.2 * 0.25, rel=1e-14)


def test_lemma1_bound_is_linear_in_eps():
    X, y = al.synthetic_separable(8, 5, 0.3, generator(2))
    g = al.geometry(X, y)
    assert al.lemma1_bound(g, 50, 2e-6, 1.5) == pytest.approx(2 * al.lemma1_bound(g, 50, 1e-6, 1.5))


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


def test_horizon_formula_and_errors():
    X, y = DATASETS[2]
    g = al.geometry(X, y)
    assert al.horizon(g, 50, 1e-10) == pytest.approx(math.log(1 / (math.sqrt(50) * 1e-10)) / (4 * g.n * g.X_max))
    for bad in (0.0, -1.0, 1.0):
        with pytest.raises(ParameterError):
            al.horizon(g, 50, bad)


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
