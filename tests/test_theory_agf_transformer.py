"""Tests of the attention-only linear transformer (lrlib.theory.agf.transformer) (float64)."""

import math

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.losses import half_mse
from lrlib.models import forward, generator
from lrlib.theory.agf import transformer
from lrlib.theory.agf import models as AM
from lrlib.train import train

F64 = torch.float64


def test_transformer_levels_reference_and_monte_carlo():
    S = transformer.fig5_sigma()
    r = transformer.predict(S, 32)
    np.testing.assert_allclose(r.levels, [1.0, 0.56219, 0.35555, 0.22510, 0.13220], atol=1e-5)
    np.testing.assert_allclose(r.A, [0.02969, 0.05605, 0.07962, 0.10081], atol=1e-5)
    np.testing.assert_allclose(r.u_star, 32 * r.lam ** 2 / (3 * math.sqrt(3)))
    assert r.bound_gap(2, 1e3, 0.1) == pytest.approx(math.sqrt(3) / (1e3 * 32 * r.lam[1] ** 2 * 0.1))
    G = r.gamma(2)
    assert transformer.population_loss(G, S, 32) == pytest.approx(r.levels[2], rel=1e-12)
    mc = transformer.monte_carlo_loss(G, S, 32, 100_000, np.random.RandomState(0))
    assert mc == pytest.approx(r.levels[2], rel=2e-2)
    # the closed-form gradient vanishes on the learned eigen-directions at Γ^{(k)}
    g = transformer.population_grad(G, S, 32)
    for i in range(2):
        assert abs(r.v[:, i] @ g @ r.v[:, i]) < 1e-10


def test_transformer_design_and_tied_heads():
    S = transformer.fig5_sigma()
    Z, y, c = transformer.design(S, 32)
    gen = torch.Generator().manual_seed(0)
    V, K, Q = (0.1 * torch.randn(*sh, generator=gen, dtype=F64) for sh in [(5,), (5, 4), (5, 4)])
    p = AM.heads_params(V, K, Q)
    Gam = AM.heads_gamma(p).numpy()
    L = half_mse()(forward(p, torch.tensor(Z)), torch.tensor(y)).item() + c
    assert L == pytest.approx(float(transformer.population_loss(Gam, S, 32)), rel=1e-10)
    tr = train(p, torch.tensor(Z), torch.tensor(y), loss=half_mse(), lr=1e-2, steps=50, record=[50],
               grad_fn=AM.heads_grad_fn(half_mse()))
    V1, K1, Q1 = AM.heads_of(tr.final)
    torch.testing.assert_close(AM.heads_params(V1, K1, Q1).W1, tr.final.W1)
    # the same 50 steps directly on the closed-form gradient in Γ-space, by the chain rule
    Vt, Kt, Qt = (t.clone().requires_grad_(True) for t in (V, K, Q))
    Sig = torch.tensor(S)
    for _ in range(50):
        Gm = torch.einsum("h,hi,hj->ij", Vt, Kt, Qt)
        Mzz = 32 * 33 * Sig @ Sig + 32 * torch.trace(Sig) * Sig
        Lt = 0.5 * (-2 * 32 * torch.trace(Gm @ Sig @ Sig) + torch.trace(Gm.T @ Mzz @ Gm @ Sig))
        gs = torch.autograd.grad(Lt, (Vt, Kt, Qt))
        with torch.no_grad():
            for t_, g_ in zip((Vt, Kt, Qt), gs):
                t_ -= 1e-2 * g_
    torch.testing.assert_close(V1, Vt.detach())
    torch.testing.assert_close(K1, Kt.detach())


def test_lemma_e1_max_utility():
    S = transformer.fig5_sigma()
    r = transformer.predict(S, 32)
    Sig = torch.tensor(S)
    th = torch.randn(9, generator=torch.Generator().manual_seed(0), dtype=F64)
    for _ in range(5000):
        th = (th / th.norm()).requires_grad_(True)
        U = transformer.head_utility(th[:1], th[1:5].unsqueeze(0), th[5:].unsqueeze(0), torch.zeros(4, 4, dtype=F64), Sig, 32)
        (g,) = torch.autograd.grad(U.sum(), th)
        th = (th + 0.002 * (g - (g @ th) * th)).detach()
    th = th / th.norm()
    U = transformer.head_utility(th[:1], th[1:5].unsqueeze(0), th[5:].unsqueeze(0), torch.zeros(4, 4, dtype=F64), Sig, 32)
    assert U.item() == pytest.approx(r.u_star[0], rel=1e-8)
    assert abs(th[0].item()) == pytest.approx(1 / math.sqrt(3), rel=1e-6)
    assert abs(float(th[1:5] @ torch.tensor(r.v[:, 0]))) == pytest.approx(1 / math.sqrt(3), rel=1e-6)


def test_agf_heads_levels_order_and_scaling():
    Sig = transformer.fig5_sigma(seed=0)
    pred = transformer.predict(Sig, 32)
    g = generator(7)
    V, K, Q = (torch.randn(*s, generator=g, dtype=F64).numpy() for s in ((5,), (5, 4), (5, 4)))
    r = transformer.agf_heads(np.abs(V) * 1e-3, K * 1e-3, Q * 1e-3, Sig, 32, 1e-3)
    assert len(r.tau) == 5 and np.all(np.diff(r.tau) > 0) and len(set(r.order)) == 4
    np.testing.assert_allclose(r.levels, pred.levels)
    # κ = 3 (Thm B.2): halving the initial scale at the same direction doubles the first jump's raw time, up
    # to the time from norm 1 to norm 2 (short: the norm blows up in finite time), so within 1 % but not equal
    r2 = transformer.agf_heads(np.abs(V) * 5e-4, K * 5e-4, Q * 5e-4, Sig, 32, 5e-4)
    ratio = (r2.tau[1] / 5e-4) / (r.tau[1] / 1e-3)
    assert 2.0 < ratio < 2.02
    assert r.loss_at(np.array([0.0, r.tau[2]]))[1] == pred.levels[2]
    with pytest.raises(ParameterError):
        transformer.agf_heads(V, K[:, :3], Q, Sig, 32, 1e-3)



def test_head_utility_flat_unpacks_one_head_at_gamma_zero():
    Sig = transformer.fig5_sigma(seed=0)
    gen = torch.Generator().manual_seed(5)
    th = torch.randn(9, generator=gen, dtype=torch.float64)
    direct = transformer.head_utility(th[:1], th[1:5].unsqueeze(0), th[5:].unsqueeze(0),
                                      torch.zeros(4, 4, dtype=torch.float64), torch.tensor(Sig), 32)[0]
    assert float(transformer.head_utility_flat(th, Sig, 32)) == pytest.approx(float(direct), rel=1e-14)
    # homogeneous of degree 3 in θ, odd in V
    assert float(transformer.head_utility_flat(2 * th, Sig, 32)) == pytest.approx(8 * float(direct), rel=1e-12)
    flip = th.clone()
    flip[0] = -flip[0]
    assert float(transformer.head_utility_flat(flip, Sig, 32)) == pytest.approx(-float(direct), rel=1e-12)
