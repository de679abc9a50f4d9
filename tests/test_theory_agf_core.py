"""Tests of the general AGF algorithm and the homogeneous-neuron identities (lrlib.theory.agf.core)
(float64)."""

import math

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.losses import half_mse
from lrlib.models import TwoLayer, generator
from lrlib.theory.agf import core, dln, modular
from lrlib.theory.agf import measure as ms
from lrlib.theory.agf import models as AM
from lrlib.train import train

F64 = torch.float64


def dln_cost(Xt, yt, steps=3000):
    def cost(net):
        mask = (net.W1 != 0).to(net.W1.dtype)
        return train(net, Xt, yt, loss=half_mse(), lr=0.05, steps=steps, record=np.arange(0, steps + 1, 5),
                     grad_fn=AM.masked_grad_fn(half_mse(), mask), progress=False)
    return cost


def test_general_agf_matches_dln_closed_form():
    X, y, _ = dln.fig3_data()
    Xt, yt = torch.tensor(X), torch.tensor(y)
    alpha = 1e-8
    p0 = AM.dln_params(torch.full((5,), math.sqrt(2) * alpha, dtype=F64), torch.zeros(5, dtype=F64))
    r = core.agf(p0, Xt, yt, loss=half_mse(), kappa=2, eta=dln.eta_alpha(alpha), cost_fn=dln_cost(Xt, yt),
                 mask=AM.dln_mask(5))
    c = dln.agf(X, y, alpha)
    assert r.order == c.order
    np.testing.assert_allclose(r.tau, c.tau, rtol=1e-2)
    np.testing.assert_allclose(r.levels[:-1], c.levels[:-1], rtol=1e-6)
    # the accumulated utility at each jump equals the threshold c/η = 1 for the neuron that jumps
    for k, idx in enumerate(r.order, start=1):
        i = int(np.searchsorted(r.hist["t"], r.tau[k])) - 1
        assert r.hist["norm"][i, idx[0]] <= 1 + 1e-6


def test_general_agf_return_to_dormancy_fig8():
    X, y, _ = dln.fig8_data()
    Xt, yt = torch.tensor(X), torch.tensor(y)
    alpha = 1e-4
    p0 = AM.dln_params(torch.full((2,), math.sqrt(2) * alpha, dtype=F64), torch.zeros(2, dtype=F64))
    r = core.agf(p0, Xt, yt, loss=half_mse(), kappa=2, eta=dln.eta_alpha(alpha), cost_fn=dln_cost(Xt, yt, 6000),
                 mask=AM.dln_mask(2), dormant_tol=1e-3)
    c = dln.agf(X, y, alpha)
    assert r.order == c.order and r.returned[1] == [0]
    np.testing.assert_allclose(r.tau[:3], c.tau[:3], rtol=2e-2)
    np.testing.assert_allclose(r.levels, c.levels, rtol=1e-6, atol=1e-12)
    # the time a returned neuron stays dormant depends on an O(α⁴) offset of its direction from the
    # unstable point, below float64 resolution on the unit sphere: only the order is checked here
    assert r.tau[3] > r.tau[2]


@pytest.mark.parametrize("act,kappa", [("linear", 2), ("square", 3)])
def test_norm_law_and_scaling_symmetry(act, kappa):
    gen = torch.Generator().manual_seed(1)
    X = torch.randn(30, 4, generator=gen, dtype=F64)
    G = torch.randn(30, 2, generator=gen, dtype=F64)
    th0 = torch.randn(6, generator=gen, dtype=F64)
    th0 = 0.1 * th0 / th0.norm()
    T = 2.0 if kappa == 2 else 0.5                       # κ = 3 blows up in finite time
    t = np.linspace(0, T, 9)
    th = core.utility_flow(th0, X, G, 4, act, t)
    # radial law: ‖θ‖ from the quadrature of κ Ū along the path
    nrm = np.linalg.norm(th, axis=1)
    Ubar = np.array([core.utilities(torch.tensor(v / np.linalg.norm(v)).unsqueeze(0), X, G, 4, act)[0].item() for v in th])
    tf = np.linspace(0, T, 2001)
    thf = core.utility_flow(th0, X, G, 4, act, tf)
    Uf = np.array([core.utilities(torch.tensor(v / np.linalg.norm(v)).unsqueeze(0), X, G, 4, act)[0].item() for v in thf])
    nf = np.linalg.norm(thf, axis=1)
    integrand = kappa * Uf * nf ** (kappa - 2)       # d log‖θ‖/dt
    logn = np.log(nf[0]) + np.concatenate([[0], np.cumsum(0.5 * (integrand[1:] + integrand[:-1]) * np.diff(tf))])
    np.testing.assert_allclose(np.log(nf), logn, atol=2e-5)
    assert np.isfinite(Ubar).all() and nrm[0] > 0
    # Thm B.2: θ from αθ0 at time t equals α θ_1(α^{κ−2} t)
    a = 1e-2
    s = a ** (kappa - 2)
    ts = np.linspace(0, T / s, 9)
    th_a = core.utility_flow(a * th0, X, G, 4, act, ts)
    th_1 = core.utility_flow(th0, X, G, 4, act, s * ts)
    np.testing.assert_allclose(th_a, a * th_1, rtol=1e-6, atol=1e-14)


def test_conserved_quantity_under_gd():
    gen = torch.Generator().manual_seed(2)
    X = torch.randn(40, 3, generator=gen, dtype=F64)
    y = torch.randn(40, 2, generator=gen, dtype=F64)
    p0 = TwoLayer(W1=0.3 * torch.randn(5, 3, generator=gen, dtype=F64), W2=0.3 * torch.randn(2, 5, generator=gen, dtype=F64), act="square")
    drift = []
    for lr in (1e-3, 5e-4):
        tr = train(p0, X, y, loss=half_mse(), lr=lr, steps=int(1.0 / lr), record=20)
        c = core.conserved(tr.params, 3)
        drift.append(float((c - c[0]).abs().max() / tr.params.neuron_vectors().norm(dim=-1).max() ** 2))
    assert drift[1] < 0.6 * drift[0] and drift[0] < 1e-2


def test_general_agf_modular_matches_eq9():
    """κ = 3: the general AGF on a small modular-addition problem learns the dominant frequency first,
    with a group of 6 neurons reaching Eq. 9's first level (App. F.2's 'N ≥ 6')."""
    x = modular.template(7, {1: 3.0, 2: 1.0})
    pred = modular.predict(x)
    X, Y = (torch.tensor(a) for a in modular.dataset(x))
    g = torch.Generator().manual_seed(0)
    a = 0.05
    U, V, W = (a / math.sqrt(14) * torch.randn(12, 7, generator=g, dtype=F64) for _ in range(3))

    def cost(net):
        return train(net, X, Y, loss=half_mse(), lr=5e-3, momentum=0.9, steps=1500, record=np.arange(0, 1501, 25),
                     grad_fn=AM.square_grad, progress=False)

    r = core.agf(AM.modular_params(U, V, W), X, Y, loss=half_mse(), kappa=3, eta=1 / a, cost_fn=cost,
                 dormant_tol=0.005, dtau_max=0.05, max_iter=6)
    assert r.levels[0] == pytest.approx(pred.levels[0], rel=1e-12)
    assert r.levels[-1] == pytest.approx(pred.levels[1], rel=1e-2)
    assert np.all(np.diff(r.levels) < 0) and np.all(np.diff(r.tau) > 0)
    act = sum(r.order, [])
    dom = modular.dominant_frequency(r.nets[-1].W2.T[act])
    assert set(dom.tolist()) == {pred.order[0]}


def test_norm_bound_slack_and_adaptive_alignment():
    p = TwoLayer(W1=torch.tensor([[3.0, 0.0], [0.0, 0.1]], dtype=F64), W2=torch.tensor([[0.5, 2.0]], dtype=F64), act="square")
    assert core.norm_bound_slack(p, 3) < 0 and core.norm_bound_slack(p, 2) <= 1e-15
    g = generator(8)
    X, G = torch.randn(2, 30, 4, generator=g, dtype=F64), torch.randn(2, 30, 2, generator=g, dtype=F64)
    th = torch.randn(2, 6, generator=g, dtype=F64)
    # κ = 3 plain flow: the fraction hardly moves with α; with the adaptive rate it falls like κ = 2's
    plain = [ms.align_fractions(th, X, G, 4, "square", 3, a) for a in (1e-4, 1e-32)]
    adapt = [ms.align_fractions(th, X, G, 4, "square", 3, a, adaptive=True) for a in (1e-4, 1e-32)]
    assert np.all(adapt[1] < 0.6 * adapt[0]) and np.all(np.abs(plain[1] - plain[0]) < 0.05)


def test_agf_refuses_an_initial_norm_of_one_or_more():
    X, y, _ = dln.fig3_data()
    Xt, yt = torch.tensor(X), torch.tensor(y)
    for scale in (1.0, 3.0):
        p0 = AM.dln_params(torch.full((5,), scale, dtype=F64), torch.zeros(5, dtype=F64))
        with pytest.raises(ParameterError, match="norm"):
            core.agf(p0, Xt, yt, loss=half_mse(), kappa=2, eta=1.0, cost_fn=dln_cost(Xt, yt), mask=AM.dln_mask(5))



def test_conserved_drift_zero_for_a_constant_trajectory_and_scaled_otherwise():
    gen = torch.Generator().manual_seed(3)
    W1 = torch.randn(2, 4, 3, generator=gen, dtype=F64)
    W2 = torch.randn(2, 1, 4, generator=gen, dtype=F64)
    p = TwoLayer(W1=torch.stack([W1, W1]), W2=torch.stack([W2, W2]), act="linear")      # T = 2, same
    assert core.conserved_drift(p, 2) == 0.0
    q = TwoLayer(W1=torch.stack([W1, 2 * W1]), W2=torch.stack([W2, W2]), act="linear")
    c = core.conserved(q, 2)
    n2 = (q.neuron_vectors()[-1] ** 2).sum(-1).max()
    assert core.conserved_drift(q, 2) == pytest.approx(float((c[1] - c[0]).abs().max() / n2))
    assert core.conserved_drift(q, 2, ref=0) > core.conserved_drift(q, 2)         # a smaller scale
