"""Tests for lrlib.theory.race.neuron (Pinson 2026): the per-neuron gradient identities (eqs. 4–8, 66) against autograd in float64, eq. 15, Theorem 4.1's drive, the conserved quantity with the bias, the growth rates of a, App. G."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.losses import Loss
from lrlib.models import generator
from lrlib.measure import cosine
from lrlib.theory import race as rc
from lrlib.train import train
from race_helpers import setup_net

F64 = torch.float64
CE = Loss("cross_entropy")


@pytest.mark.parametrize("seed,runs", [(0, ()), (1, ()), (2, (3,))])
def test_polar_gradients_match_autograd(seed, runs):
    p, X, y = setup_net(seed, runs=runs)
    f, a = rc.polar_gradients(p, X, y), rc.autograd_polar(p, X, y)
    for k in ("dphi", "dnorm2", "dnorm1", "dtheta", "db", "dw1"):
        scale = a[k].abs().max()
        assert scale > 1e-6, k
        assert (f[k] - a[k]).abs().max() <= 1e-12 * max(1.0, float(scale)), k


def test_eq17_needs_zero_bias():
    p, X, y = setup_net(3, bias=0.0)
    g = rc.polar_gradients(p, X, y)
    gam = rc.gamma(p, X, y)
    eq17 = -p.norms_in(with_bias=False) * gam.norm(dim=-1) * rc.cos_delta(p, X, y)
    assert torch.allclose(g["dnorm2"], eq17, atol=1e-14, rtol=1e-12)
    p.b1 = 0.3 * torch.ones_like(p.b1)                   # with a bias eq. 17 is no longer exact
    g = rc.polar_gradients(p, X, y)
    eq17 = -p.norms_in(with_bias=False) * rc.gamma(p, X, y).norm(dim=-1) * rc.cos_delta(p, X, y)
    assert (g["dnorm2"] - eq17).abs().max() > 1e-6


def test_error_vector_angles_are_fixed():
    p, X, y = setup_net(4)
    dy = rc.error_vectors(p, X, y)
    ang = torch.remainder(torch.atan2(dy[:, 1], dy[:, 0]), 2 * math.pi)
    want = torch.where(y == 0, torch.full_like(ang, rc.PHI1), torch.full_like(ang, rc.PHI2))
    assert (ang - want).abs().max() < 1e-12


def test_eq15_ratio_is_exact():
    p, X, y = setup_net(5, m=200)
    r, pred = rc.phi_ratio(p, X, y)
    keep = torch.cos(rc.PHI2 - rc.phi(p)).abs() > 0.05
    assert keep.sum() > 100
    assert ((r / pred - 1)[keep]).abs().max() < 1e-10


def test_theorem41_drive_equals_minus_dphi():
    p, X, y = setup_net(6)
    assert torch.allclose(rc.phi_drive(p, X, y), -rc.polar_gradients(p, X, y)["dphi"], atol=1e-14, rtol=1e-12)


def test_phi_star_prediction_for_frozen_incoming_weights():
    g = generator(7)
    X, y, _ = rc.xor_clusters(20, g)
    p = rc.race_init(40, 2, 0.5, g, dtype=F64)
    p.W2 = 1e-4 * p.W2                                    # w2·(1,1) is conserved: start it small
    tr = train(p, X, y, loss=CE, lr=0.05, steps=4000, trainable=("W2",), record=[0, 4000], progress=False)
    fin = tr.final
    gap = rc.angle_gap(rc.phi(fin), rc.phi_star_predicted(fin, X, y))
    assert gap.abs().max() < math.radians(1)
    s = tr.params.W2.sum(-2)                              # the (1, 1) component of every w2 never moves
    assert torch.allclose(s[1], s[0], atol=1e-15)


def test_gamma_parallel_to_m1_when_error_norm_constant():
    p, X, y = setup_net(8, std=1e-5, bias=0.0)
    p.b2 = torch.zeros_like(p.b2)
    c = cosine(rc.gamma(p, X, y), rc.target_m1(p, X, y)).abs()
    assert c.min() > 0.9999


def test_conserved_quantity_needs_bias_term():
    g = generator(9)
    X, y, _ = rc.xor_clusters(20, g)
    p = rc.race_init(30, 2, 0.3, g, dtype=F64)
    tr = train(p, X, y, loss=CE, lr=1e-3, steps=3000, record=[0, 3000], progress=False)
    c_ok, c_paper = rc.conserved(tr.params)
    a_max = rc.total_norm(tr.final).max()
    drift_ok = (c_ok[1] - c_ok[0]).abs().max() / a_max
    drift_paper = (c_paper[1] - c_paper[0]).abs().max() / a_max
    assert drift_ok < 0.05 * drift_paper and drift_ok < 1e-3
    assert drift_paper > 1e-3


def test_growth_rate_exact_and_factor_two():
    g = generator(10)
    X, y, _ = rc.xor_clusters(20, g)
    p = rc.race_init(30, 2, 1e-3, g, dtype=F64)
    p.W2 = p.W1[:, :2].T.norm(dim=0, keepdim=True) * torch.tensor([[1.0], [-1.0]], dtype=F64) / math.sqrt(2)
    lr = 1e-6
    tr = train(p, X, y, loss=CE, lr=lr, steps=1, record=[0, 1], trainable=("W1", "W2"), progress=False)
    da = (rc.total_norm(tr.at(1)) - rc.total_norm(tr.at(0))) / lr
    r = rc.growth_rates(p, X, y)
    assert torch.allclose(r["exact"], r["eq90"], rtol=1e-12, atol=1e-18)     # b = 0
    assert torch.allclose(da, r["exact"], rtol=1e-4, atol=1e-12)
    big = r["eq18"].abs() > 1e-3 * r["eq18"].abs().max()
    assert torch.allclose((r["exact"] / r["eq18"])[big], torch.full_like(r["exact"][big], 2.0), rtol=1e-9)  # balanced


def test_appendix_g_sign_and_value():
    g = generator(11)
    X, y, _ = rc.xor_clusters(25, g)
    p = rc.race_init(20, 2, 1e-3, g, dtype=F64)
    p.W2[:, 0] = p.W2[:, 0].norm() * torch.tensor([1.0, -1.0], dtype=F64) / math.sqrt(2)   # aligned to 7π/4
    fd, formula = rc.appendix_g(p, X, y, 0)
    assert math.copysign(1, fd) == math.copysign(1, formula)
    assert abs(fd / formula - 1) < 0.05


def test_identity_error_is_rounding_in_float64():
    g = generator(3)
    X, y = torch.randn(40, 6, generator=g, dtype=F64), torch.randint(0, 2, (40,), generator=g)
    p = rc.race_init(9, 6, 0.5, g, dtype=F64)
    p.b1 = 0.3 * torch.randn(9, generator=g, dtype=F64)
    assert 0 <= rc.identity_error(p, X, y) <= 1e-12


def test_align_to_own_m1_settles_and_appendix_g_sign_follows():
    g = generator(11)
    X, y, _ = rc.xor_clusters(25, g)
    p = rc.race_init(20, 2, 1e-3, g, dtype=F64)
    for al in range(5):
        q, c, settled = rc.align_to_own_m1(p, X, y, al)
        if not settled:
            continue
        assert c == pytest.approx(1.0, abs=1e-12)            # w1 ∥ m¹ of its own (final) gating
        fd, formula = rc.appendix_g(q, X, y, al)
        assert fd < 0 and formula < 0 and abs(fd / formula - 1) < 0.05
    with pytest.raises(ParameterError):
        rc.align_to_own_m1(rc.race_init(3, 2, 1.0, generator(0), runs=(2,)), X, y, 0)
