"""Closed forms of Alternating Gradient Flows (Kunin et al. 2025) against reference numbers computed once from the authors' data,
the general numerical algorithm, ODE solutions and autograd (float64); and the chapter's measurements
(lrlib.theory.agf.measure) on hand-built inputs with known answers."""

import math

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.losses import half_mse
from lrlib.models import TwoLayer, forward, generator
from lrlib.theory.agf import core, dln, linear, modular, transformer
from lrlib.theory.agf import measure as ms
from lrlib.theory.agf import models as AM
from lrlib.train import train

F64 = torch.float64


# ---------------------------------------------------------------- diagonal linear networks
def test_dln_fig3_reference_numbers():
    X, y, _ = dln.fig3_data()
    r = dln.agf(X, y, 1e-100)
    assert r.order == [[1], [2], [3], [0], [4]]
    raw = r.tau[1:] * r.eta            # raw GF time
    np.testing.assert_allclose(raw, [27.659, 138.315, 226.047, 256.113, 971.519], rtol=2e-5)
    np.testing.assert_allclose(r.levels[:5], [82.417, 13.323, 2.267, 0.98805, 0.16556], rtol=2e-4)
    assert r.levels[-1] < 1e-20


def test_dln_fig8_return_to_dormancy_and_reference_times():
    X, y, _ = dln.fig8_data()
    pf = dln.pesme_flammarion(X, y)
    np.testing.assert_allclose(pf.tau[1:], [0.1930, 0.6002, 3.4574], atol=1e-4)
    np.testing.assert_allclose(pf.levels[:3], [2.3111, 1.11465, 0.07], rtol=1e-4)
    for a, ref in [(1e-4, [0.2006, 0.6237, 3.5925]), (1e-8, [0.1967, 0.6117, 3.5237]), (1e-50, [0.1936, 0.6020, 3.4678])]:
        r = dln.agf(X, y, a)
        np.testing.assert_allclose(r.tau[1:], ref, atol=1e-4)
        assert r.order == [[0], [1], [0]]
    # coordinate 0 is active after jump 1, dormant after jump 2, active with the opposite sign after jump 3
    assert list(r.active[:, 0]) == [False, True, False, True]
    assert np.sign(r.betas[1, 0]) == -np.sign(r.betas[3, 0])
    # its accumulated utility passes through 0 halfway between τ2 and τ3 (S decreases linearly in the PF limit)
    S = pf.S_at(np.array([0.5 * (pf.tau[2] + pf.tau[3])]))
    assert abs(S[0, 0]) < 1e-9


def test_agf_converges_to_pf():
    for X, y, _ in (dln.fig8_data(), dln.fig3_data()):
        pf = dln.pesme_flammarion(X, y)
        errs = []
        for a in (1e-4, 1e-8, 1e-16, 1e-50):
            r = dln.agf(X, y, a)
            assert r.order == pf.order
            np.testing.assert_allclose(r.levels, pf.levels, rtol=1e-9, atol=1e-20)
            errs.append(np.abs(r.tau - pf.tau).max())
        assert all(e1 > e2 for e1, e2 in zip(errs, errs[1:]))
        # O(log 2 / η_α): the error times η_α stays bounded
        etas = [dln.eta_alpha(a) for a in (1e-4, 1e-8, 1e-16, 1e-50)]
        scaled = np.array(errs) * np.array(etas)
        assert scaled.max() < 3 * scaled.min()


def test_dln_single_neuron_closed_form_vs_ode():
    """Lemmas C.2–C.3 / Thm C.4: (u, v) under a fixed gradient g: u̇ = −g v, v̇ = −g u."""
    from scipy.integrate import solve_ivp

    g, alpha = -1.7, 1e-3
    t = np.linspace(0, 5, 21)
    sol = solve_ivp(lambda _, z: [-g * z[1], -g * z[0]], (0, 5), [math.sqrt(2) * alpha, 0.0], t_eval=t,
                    rtol=1e-12, atol=1e-20, method="DOP853")
    u, v = sol.y
    cf = dln.utility_flow(g, alpha, t)
    np.testing.assert_allclose(u ** 2 + v ** 2, cf["norm2"], rtol=1e-9)
    np.testing.assert_allclose(u ** 2 - v ** 2, 2 * alpha ** 2, rtol=1e-9, atol=1e-13)
    np.testing.assert_allclose(np.log(np.sqrt(u ** 2 + v ** 2) / (math.sqrt(2) * alpha)), cf["S"], atol=1e-9)
    assert np.all(np.sign(u[1:] * v[1:]) == -np.sign(g))           # Lemma C.1: sgn(uv) = −sgn(g)


def test_dln_grad_matches_autograd():
    X, y, _ = dln.fig3_data()
    Xt, yt = torch.tensor(X), torch.tensor(y)
    gen = torch.Generator().manual_seed(0)
    p = AM.dln_params(torch.randn(3, 5, generator=gen, dtype=F64), torch.randn(3, 5, generator=gen, dtype=F64))
    g = AM.dln_grad(p, Xt, yt)
    W1, W2 = p.W1.clone().requires_grad_(True), p.W2.clone().requires_grad_(True)
    L = half_mse()(forward(TwoLayer(W1=W1, W2=W2, act="linear"), Xt), yt).sum()
    a1, a2 = torch.autograd.grad(L, (W1, W2))
    torch.testing.assert_close(g["W1"], a1 * torch.eye(5, dtype=F64))
    torch.testing.assert_close(g["W2"], a2)
    torch.testing.assert_close(AM.dln_beta(p), torch.diagonal(p.W1, dim1=-2, dim2=-1) * p.W2[..., 0, :])


def test_dln_flow_matches_fine_step_gd_and_conserves_u2_minus_v2():
    """The integrated DLN flow agrees with GD at a 10× smaller step than the chapter's, and keeps
    u² − v² = 2α² (conserved by the flow, not by GD)."""
    X, y, _ = dln.fig3_data()
    Xt, yt = torch.tensor(X), torch.tensor(y)
    a = 1e-2
    u0, v0 = torch.full((5,), math.sqrt(2) * a, dtype=F64), torch.zeros(5, dtype=F64)
    times = np.linspace(0.0, 10.0, 11)
    res = AM.dln_flow(Xt, yt, u0, v0, times)
    h = 2e-4
    gd = train(AM.dln_params(u0, v0), Xt, yt, loss=half_mse(), lr=h, steps=int(10.0 / h),
               record=(times / h).round().astype(int), grad_fn=AM.dln_grad, progress=False)
    np.testing.assert_allclose(res.loss.numpy(), gd.loss.numpy(), rtol=2e-3)
    assert res.loss[-1] < 0.5 * res.loss[0]                                 # something was learnt
    cons = res.states["u"] ** 2 - res.states["v"] ** 2
    np.testing.assert_allclose(cons.numpy(), 2 * a ** 2, rtol=1e-6)


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


# ---------------------------------------------------------------- homogeneous neurons: Eq. 2, Thm B.2, B.3
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


# ---------------------------------------------------------------- fully connected linear networks
def test_linear_commuting_case_and_rrr():
    Sxx, B = linear.fig4_setup(commuting=True)
    r = linear.conjecture(Sxx, B)
    np.testing.assert_allclose(r.tau[1:], linear.commuting_times(Sxx, B), rtol=1e-9)
    Syx = B @ Sxx
    mu = np.sort(np.linalg.eigvalsh(Syx @ np.linalg.inv(Sxx) @ Syx.T))[::-1]
    np.testing.assert_allclose(r.levels, [0.5 * mu[k:].sum() for k in range(11)], rtol=1e-8, atol=1e-12)
    for k in (1, 3):
        beta, U = linear.reduced_rank(Syx, Sxx, k)
        grad = (beta - B) @ Sxx
        Pp = np.eye(10) - U[:, :k] @ U[:, :k].T
        np.testing.assert_allclose(-grad, Pp @ Syx, atol=1e-9)
    Sxx2, B2 = linear.fig4_setup(commuting=False)
    r2 = linear.conjecture(Sxx2, B2)
    assert np.all(np.diff(r2.tau) > 0)


def test_lemma_d1_utility_is_half_singular_value():
    """A normalised neuron (a, w), ‖a‖² + ‖w‖² = 1, maximising aᵀMw reaches σ₁(M)/2."""
    rs = np.random.RandomState(3)
    M = rs.randn(4, 5)
    th = rs.randn(9)
    for _ in range(4000):
        th /= np.linalg.norm(th)
        a, w = th[:4], th[4:]
        g = np.concatenate([M @ w, M.T @ a])
        th = th + 0.05 * (g - (g @ th) * th)
    th /= np.linalg.norm(th)
    assert th[:4] @ M @ th[4:] == pytest.approx(np.linalg.svd(M, compute_uv=False)[0] / 2, rel=1e-8)


def test_population_design_is_exact():
    Sxx, B = linear.fig4_setup(commuting=False)
    X = linear.population_design(Sxx)
    np.testing.assert_allclose(X.T @ X / len(X), Sxx, atol=1e-12)
    beta = np.random.RandomState(0).randn(10, 10)
    emp = 0.5 * np.mean(np.sum((X @ (beta - B).T) ** 2, 1))
    assert emp == pytest.approx(float(linear.population_loss(beta, B, Sxx)), rel=1e-10)


# ---------------------------------------------------------------- linear transformer
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


# ---------------------------------------------------------------- modular addition
def test_modular_fourier_utility_and_reference_numbers():
    x = modular.template(20, {1: 10, 3: 5, 5: 2.5})
    m = modular.predict(x)
    assert m.order == [1, 3, 5]
    np.testing.assert_allclose(m.levels, [6.5625, 1.5625, 0.3125, 0], atol=1e-12)
    np.testing.assert_allclose(m.u_star, [3.0429, 0.38036, 0.047550], rtol=1e-4)
    np.testing.assert_allclose(m.jump_bound(0.01), [7.64, 61.09, 488.73], rtol=1e-3)   # (1/(√2α) − 1)/(3Ū*)
    rs = np.random.RandomState(0)
    for _ in range(3):
        u, v, w = rs.randn(3, 20)
        assert modular.fourier_utility(u, v, w, x) == pytest.approx(modular.direct_utility(u, v, w, x), rel=1e-12)


def test_theorem_f3_max_utility_and_phase():
    p = 11
    x = modular.template(p, {1: 4.0, 2: 6.0, 4: 1.0})
    m = modular.predict(x)
    assert m.order[0] == 2
    X, Y = (torch.tensor(a) for a in modular.dataset(x))
    th = torch.randn(3 * p, generator=torch.Generator().manual_seed(0), dtype=F64)
    for _ in range(4000):
        th = (th / th.norm()).requires_grad_(True)
        f = (X[:, :p] @ th[:p] + X[:, p:] @ th[p:2 * p]) ** 2
        U = (f * (Y @ th[2 * p:])).mean()
        (g,) = torch.autograd.grad(U, th)
        th = (th + 0.02 * (g - (g @ th) * th)).detach()
    th = (th / th.norm()).numpy()
    u, v, w = th[:p], th[p:2 * p], th[2 * p:]
    assert modular.direct_utility(u, v, w, x) == pytest.approx(m.u_star[0], rel=1e-6)
    for t in (u, v, w):
        assert np.linalg.norm(t) == pytest.approx(1 / math.sqrt(3), rel=1e-5)
    ph = [np.angle(np.fft.fft(t)[2]) for t in (u, v, w, x)]
    phase = (ph[0] + ph[1] - ph[2] - ph[3] + np.pi) % (2 * np.pi) - np.pi
    assert abs(phase) < 1e-4


def test_closed_form_grads_match_autograd():
    gen = torch.Generator().manual_seed(5)
    x = modular.template(7, {1: 3.0, 2: 1.0})
    X, Y = (torch.tensor(a) for a in modular.dataset(x))
    p = AM.modular_params(*(0.3 * torch.randn(2, 4, 7, generator=gen, dtype=F64) for _ in range(3)))
    g = AM.square_grad(p, X, Y)
    W1, W2 = p.W1.clone().requires_grad_(True), p.W2.clone().requires_grad_(True)
    L = half_mse()(forward(TwoLayer(W1=W1, W2=W2, act="square"), X), Y).sum()
    a1, a2 = torch.autograd.grad(L, (W1, W2))
    torch.testing.assert_close(g["W1"], a1)
    torch.testing.assert_close(g["W2"], a2)
    S = transformer.fig5_sigma()
    Z, y, _ = transformer.design(S, 32)
    V, K, Q = (0.2 * torch.randn(*sh, generator=gen, dtype=F64) for sh in [(3, 5), (3, 5, 4), (3, 5, 4)])
    ph = AM.heads_params(V, K, Q)
    g1 = AM.heads_grad_population(torch.tensor(S), 32)(ph, None, None)
    g2 = AM.heads_grad_fn(half_mse())(ph, torch.tensor(Z), torch.tensor(y))
    torch.testing.assert_close(g1["W1"], g2["W1"])
    torch.testing.assert_close(g1["W2"], g2["W2"])


def test_measure_helpers():
    from lrlib.theory.agf import measure as ms

    t = np.linspace(0, 10, 1001)
    loss = np.where(t < 3, 4.0, np.where(t < 7, 2.0, 1.0))
    vals = np.stack([np.clip(t - 5, 0, 1), np.clip(t - 2, 0, 1), np.zeros_like(t)], 1)
    assert ms.activation_order(t, vals, np.array([1.0, 1.0, 0.0])) == [1, 0]
    val, th = ms.maximise_on_sphere(lambda v: v[0] * v[1], torch.tensor([1.0, 0.2], dtype=F64), lr=0.1, steps=500)
    assert val == pytest.approx(0.5, rel=1e-10)


def test_dln_pf_s_path_and_loss_at():
    X, y, _ = dln.fig8_data()
    pf = dln.pesme_flammarion(X, y)
    S = pf.S_at(np.array([0.0, pf.tau[1] * 0.5, pf.tau[1] * 1.0001]))
    assert np.all(np.abs(S[0]) == 0) and 0 < np.abs(S[1, 0]) < 1 and abs(S[2, 0]) == 1
    assert pf.loss_at(np.array([0.0]))[0] == pytest.approx(pf.levels[0])
    assert pf.loss_at(np.array([1e9]))[0] == pytest.approx(pf.levels[-1])


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


# ---------------------------------------------------------------- measurement helpers (claims v2)
def test_phase_constraint_grades_the_weighted_sum_not_each_neuron():
    from lrlib.theory.agf import measure as ms
    p, k = 11, 2
    x = modular.template(p, {k: 3.0, 4: 1.0})
    sx = np.angle(np.fft.fft(x)[k])
    n = np.arange(p)

    def neuron(su, sv, sw, a=1.0):
        return (a * np.cos(2 * np.pi * k * n / p + su), a * np.cos(2 * np.pi * k * n / p + sv),
                a * np.cos(2 * np.pi * k * n / p + sw))

    # each neuron off by ±0.4 rad but the weighted sines cancel: the constraint holds
    rows = [neuron(0.4 + sx, 0.0, 0.0), neuron(-0.4 + sx, 0.0, 0.0)]
    U, V, W = (np.stack(r) for r in zip(*rows))
    assert ms.phase_constraint(U, V, W, x, [k])[0] < 1e-12
    # both off by +0.4: it fails, by sin 0.4
    rows = [neuron(0.4 + sx, 0.0, 0.0), neuron(0.4 + sx, 0.1, 0.1)]
    U, V, W = (np.stack(r) for r in zip(*rows))
    np.testing.assert_allclose(ms.phase_constraint(U, V, W, x, [k, 4]), [math.sin(0.4), np.nan])
    with pytest.raises(Exception):
        ms.phase_constraint(U[:, :5], V, W, x, [k])


# ---------------------------------------------------------------- the chapter's measurements (lrlib.theory.agf.measure)
def test_dln_vs_agf_on_agfs_own_staircase():
    X, y, _ = dln.fig3_data()
    alpha = 1e-8
    pred, eta = dln.agf(X, y, alpha), dln.eta_alpha(alpha)
    t = np.linspace(0, 1.3 * pred.tau[-1] * eta, 200001)                   # raw GF time
    loss = pred.loss_at(t / eta)                                          # the AGF step curve itself
    p2, eta2, err_t, err_l = ms.dln_vs_agf(X, y, alpha, t, loss)
    assert eta2 == eta and np.array_equal(p2.tau, pred.tau) and err_t.shape == (len(pred.tau) - 1,)
    dt = (t[1] - t[0]) / eta
    assert np.all(err_t <= dt / pred.tau[1:] + 1e-12)                    # drops within one grid step of τ_k
    np.testing.assert_array_equal(err_l, np.zeros(len(pred.tau) - 2))     # plateaus sit exactly on the levels


def test_verdict_1_over_eta():
    assert ms.verdict_1_over_eta([(10.0, np.array([0.05, 0.1]))]) == "reproduced"     # ≤ is inclusive
    assert ms.verdict_1_over_eta([(10.0, np.array([0.1001]))]) == "not reproduced"
    assert ms.verdict_1_over_eta([(10.0, np.array([np.nan, 0.05]))]) == "reproduced"   # nan ignored
    assert ms.verdict_1_over_eta([(10.0, np.array([0.05])), (20.0, np.array([0.06]))]) == "not reproduced"


def test_plateaus_between_own_drops_reads_levels_and_spectra_apart():
    from types import SimpleNamespace

    levels = np.array([3.0, 2.0, 1.0, 0.5])
    sv_pred = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.5], [2.0, 1.0]])
    pred = SimpleNamespace(levels=levels, sv=sv_pred)
    t = np.linspace(0, 10, 1001)
    k = np.searchsorted([1.0, 4.0, 9.0], t, side="right")                   # the run's own drops at 1, 4, 9
    L = np.array([3.0, 2.0, 1.1, 0.5])[k]                                   # plateau 2 is 10 % high
    sv = np.array([[0.0, 0.0], [1.0, 0.3], [2.0, 0.6], [2.0, 1.0]])[k]
    el, es = ms.plateaus_between_own_drops(t, L[:, None, None], sv[:, None, None, :], np.array([1.0]), pred, K=3)
    # plateau 1: only σ₁ is learned (0.3 vs 0 ignored) → 0; plateau 2: |0.6 − 0.5| / 2; levels apart: 10 %
    np.testing.assert_allclose(el, [[0.1]], rtol=1e-12)
    np.testing.assert_allclose(es, [[0.05]], rtol=1e-12)
    el2, _ = ms.plateaus_between_own_drops(t, np.full((t.size, 1, 1), 3.0), sv[:, None, None, :], np.array([1.0]),
                                           pred, K=3)
    assert np.isnan(el2[0, 0])                                              # no drop: no plateau


def test_align_fraction_top_direction_never_turns():
    g = generator(4)
    X, G = torch.randn(30, 4, generator=g, dtype=F64), torch.randn(30, 2, generator=g, dtype=F64)
    # linear neuron: U(w, a) = wᵀ M a with M = −XᵀG; (u₁, v₁) of M is a fixed direction of the flow
    U, S, Vh = torch.linalg.svd(-X.T @ G)
    top = torch.cat([U[:, 0], Vh[0]])
    assert ms.align_fraction(top, X, G, 4, "linear", 2, 1e-4) == 0.0
    other = torch.randn(6, generator=g, dtype=F64)
    f = ms.align_fraction(other, X, G, 4, "linear", 2, 1e-4)
    assert 0.0 < f < 1.0
    assert ms.align_fraction(other, X, G, 4, "linear", 2, 1e-16) < f            # κ = 2: aligning takes O(1) of log(1/α)
    assert np.isnan(ms.align_fraction(other, X, G, 4, "linear", 2, 1e-4, horizon=1e-3))   # norm 1 not reached


def test_staircase_drop_times():
    tau, levels = np.array([0.0, 10.0, 20.0]), np.array([1.0, 0.5, 0.1])
    np.testing.assert_array_equal(ms.staircase_drop_times(tau, levels, np.array([1.0, 0.6, 0.0])), [10.0, 20.0])
    out = ms.staircase_drop_times(tau, levels, np.array([1.0, 0.0, -1.0]))      # mid-levels 0.5, −0.5
    assert out[0] == 10.0 and np.isnan(out[1])


def test_align_fractions_batch_equals_single_runs_and_utility_flow():
    g = generator(6)
    X, G = torch.randn(3, 30, 4, generator=g, dtype=F64), torch.randn(3, 30, 2, generator=g, dtype=F64)
    th = torch.randn(3, 6, generator=g, dtype=F64)
    for act, kap, a in (("linear", 2, 1e-8), ("square", 3, 1e-2)):
        batch = ms.align_fractions(th, X, G, 4, act, kap, a)
        single = [ms.align_fraction(th[r], X[r], G[r], 4, act, kap, a) for r in range(3)]
        np.testing.assert_allclose(batch, single, atol=2e-3)       # one error control for the batch vs three
    # the direction/log-norm integration lands where the plain utility flow does (κ = 3, norm 1)
    th0 = th[0] / th[0].norm()
    ref = core.utility_flow(1e-2 * th0, X[0], G[0], 4, "square", np.linspace(0, 1e4, 3), stop_norm=1.0)[-1]
    f = ms.align_fractions(th0.unsqueeze(0), X[:1], G[:1], 4, "square", 3, 1e-2, angle=1e-3)
    assert np.isfinite(f[0]) and np.linalg.norm(ref) == pytest.approx(1.0, rel=1e-6)
    with pytest.raises(ParameterError):
        ms.align_fractions(th, X[:2], G, 4, "linear", 2, 1e-4)
    with pytest.raises(ParameterError):
        ms.align_fractions(th, X, G, 4, "tanh", 2, 1e-4)


def test_fc_drops_shape_and_values():
    class P:
        levels = np.array([4.0, 2.0, 0.0])
    t = np.linspace(0, 10, 1001)
    L = np.where(t < 3, 4.0, np.where(t < 6, 2.0, 0.0))[:, None, None, None] * np.ones((1, 2, 1, 3))
    d = ms.fc_drops(t, L, np.array([1.0, 2.0]), {"a": P()}, 2)
    assert d.shape == (1, 2, 3, 2)
    np.testing.assert_allclose(d[0, 0, 0], [3.0, 6.0], atol=0.02)
    np.testing.assert_allclose(d[0, 1, 0], [1.5, 3.0], atol=0.01)
    with pytest.raises(ParameterError):
        ms.fc_drops(t, L[:, 0], np.array([1.0, 2.0]), {"a": P()}, 2)


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


def test_maximise_on_stiefel_reaches_ky_fan_sum():
    M = np.random.RandomState(3).randn(5, 4)
    sv = np.linalg.svd(M, compute_uv=False)
    for m in (1, 2, 3):
        u, Th = ms.maximise_on_stiefel(M, m, steps=3000)
        assert u == pytest.approx(sv[:m].sum() / 2, rel=1e-8)
        np.testing.assert_allclose(Th.T @ Th, np.eye(m), atol=1e-12)
    with pytest.raises(ParameterError):
        ms.maximise_on_stiefel(M, 5)


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


def test_staircase_errors_on_an_exact_staircase():
    from types import SimpleNamespace

    from lrlib.theory.agf import measure as ms

    tau, levels = np.array([0.0, 2.0, 5.0, 9.0]), np.array([3.0, 2.0, 1.0, 0.5])
    t = np.linspace(0, 12, 4801)
    k = np.searchsorted(tau[1:], t, side="right")                             # plateau index at t
    L = levels[k]
    sv_pred = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 0.5], [1.0, 0.5]])
    sv = sv_pred[k]
    pred = SimpleNamespace(tau=tau, levels=levels, sv=sv_pred)
    loss = np.stack([np.stack([L, L], -1), np.stack([L, L], -1)], 1)           # (T, A=2, S=2)
    sv_b = np.broadcast_to(sv[:, None, None, :], (t.size, 2, 2, 2))
    et, el = ms.staircase_errors(t, loss, sv_b, np.array([1.0, 2.0]), pred, K=2)
    assert et.shape == el.shape == (2, 2)
    assert np.all(et[0] < 2e-3) and np.all(el[0] < 1e-12)                     # on its own clock: exact
    assert np.all(et[1] > 0.4)                                                  # read at twice the acceleration: late


def test_sign_flip_and_drops():
    from types import SimpleNamespace

    from lrlib.theory.agf import measure as ms

    time = np.arange(6.0)
    beta0 = np.array([0.0, 0.1, 0.2, -0.1, -0.3, -0.4])                         # one flip, at t = 3
    pred = SimpleNamespace(betas=np.array([[0.0], [0.5]]), levels=np.array([2.0, 1.0]))
    dt = np.linspace(0, 5, 51)
    opp, t_flip, drops = ms.sign_flip_and_drops(time, beta0, dt, np.where(dt < 2.5, 2.0, 1.0), pred, eta=2.0)
    assert opp == 1.0 and t_flip == 1.5 and drops == pytest.approx([1.25], abs=0.03)
    opp, t_flip, _ = ms.sign_flip_and_drops(time, np.abs(beta0), dt, np.ones_like(dt), pred, eta=1.0)
    assert opp == 0.0


# ---------------------------------------------------------------- cost step helpers (Thm F.7, Lemma F.6)
def test_harmonic_basis_orthonormal_and_checked():
    P = modular.harmonic_basis(11, 2)
    np.testing.assert_allclose(P.T @ P, np.eye(2), atol=1e-12)
    assert np.abs(np.fft.fft(P[:, 0]))[[0, 1, 3, 4, 5]].max() < 1e-12
    with pytest.raises(ValueError):
        modular.harmonic_basis(10, 5)


def test_without_frequency_and_residual_utility():
    x = modular.template(11, {1: 6.0, 2: 4.0})
    xr = modular.without_frequency(x, 1)
    np.testing.assert_allclose(xr, modular.template(11, {2: 4.0}), atol=1e-12)
    X, Y = modular.dataset(x)
    rs = np.random.RandomState(0)
    u, v, w = rs.randn(3, 2, 11)
    got = modular.residual_utility(u, v, w, X, Y)
    want = [modular.direct_utility(u[k], v[k], w[k], x) for k in range(2)]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_harmonic_grad_keeps_neurons_in_the_span_and_exact_minimiser_passes():
    x = modular.template(11, {1: 6.0, 2: 4.0})
    X, Y = (torch.tensor(a) for a in modular.dataset(x))
    P = torch.tensor(modular.harmonic_basis(11, 1))
    c = 0.2 * torch.randn(3, 1, 6, 2, generator=generator(3), dtype=F64)
    U, V, W = (ci @ P.T for ci in c)
    run = train(AM.modular_params(U, V, W), X, Y, loss=half_mse(), lr=0.01, steps=3000, record=[0, 3000],
                grad_fn=AM.harmonic_grad_fn(P), progress=False)
    Pr = P @ P.T
    W1 = run.params.W1[-1, 0]
    torch.testing.assert_close(W1[:, :11] @ Pr, W1[:, :11])
    pred = modular.predict(x)
    assert abs(float(run.loss[-1, 0]) - pred.levels[1]) < 1e-8 * pred.levels[1]
    R = (Y - forward(run.params, X)[-1, 0]).numpy()
    th = np.random.RandomState(1).randn(4, 3, 11)
    assert ms.utility_update_error(th, X.numpy(), R, x, 1) < 1e-6
    assert ms.utility_update_error(th, X.numpy(), Y.numpy(), x, 1) > 0.1    # nothing learned: the ξ terms remain


def test_frequency_order():
    pred = modular.predict(modular.template(11, {1: 6.0, 2: 4.0}))
    t = np.arange(4.0)
    power = np.zeros((4, 6))
    power[2:, 2] = 4.0
    power[3:, 1] = 6.0
    assert ms.frequency_order(t, power, pred) == [2, 1]


def test_agf_refuses_an_initial_norm_of_one_or_more():
    X, y, _ = dln.fig3_data()
    Xt, yt = torch.tensor(X), torch.tensor(y)
    for scale in (1.0, 3.0):
        p0 = AM.dln_params(torch.full((5,), scale, dtype=F64), torch.zeros(5, dtype=F64))
        with pytest.raises(ParameterError, match="norm"):
            core.agf(p0, Xt, yt, loss=half_mse(), kappa=2, eta=1.0, cost_fn=dln_cost(Xt, yt), mask=AM.dln_mask(5))


def test_modular_grad_fn_equals_square_grad():
    from lrlib.theory.agf import modular
    from lrlib.theory.agf import models as agf_models

    x = modular.template(7, {1: 3.0, 2: 1.0})
    X, Y = (torch.tensor(a) for a in modular.dataset(x))
    g = torch.Generator().manual_seed(0)
    net = agf_models.modular_params(*(torch.randn(2, 3, 4, 7, generator=g, dtype=torch.float64) for _ in range(3)))
    fast, ref = agf_models.modular_grad_fn(7), agf_models.square_grad(net, X, Y)
    grads = fast(net, X, Y)
    for k in ref:
        assert torch.allclose(grads[k], ref[k], rtol=1e-12, atol=1e-12)
    with pytest.raises(ParameterError):
        fast(net, X[:-1], Y[:-1])


def test_square_hessian_matches_autograd():
    from lrlib.theory.agf import modular
    from lrlib.theory.agf import models as agf_models

    x = modular.template(7, {1: 3.0, 2: 1.0})
    X, Y = (torch.tensor(a) for a in modular.dataset(x))
    g = torch.Generator().manual_seed(1)
    net = agf_models.modular_params(*(torch.randn(3, 7, generator=g, dtype=torch.float64) for _ in range(3)))
    m, d, k = 3, 14, 7

    def loss(v):
        W1, W2 = v[:m * d].reshape(m, d), v[m * d:].reshape(k, m)
        return half_mse()(forward(TwoLayer(W1=W1, W2=W2, act="square"), X), Y)

    ref = torch.autograd.functional.hessian(loss, torch.cat([net.W1.reshape(-1), net.W2.reshape(-1)]))
    got = agf_models.square_hessian(net, X, Y)
    torch.testing.assert_close(got, ref, rtol=1e-10, atol=1e-10)
    with pytest.raises(ParameterError):
        agf_models.square_hessian(net.map(lambda t: t.unsqueeze(0)), X, Y)


def test_bdf_flow_with_square_hessian_matches_rk45_on_modular_addition():
    """Modular addition (p = 7, two runs) from α = 0.1: the implicit flow with the closed-form
    Hessian, through the first drops, against the explicit flow."""
    from lrlib.integrate import flow
    from lrlib.theory.agf import modular
    from lrlib.theory.agf import models as agf_models

    x = modular.template(7, {1: 3.0, 2: 1.0})
    X, Y = (torch.tensor(a) for a in modular.dataset(x))
    g = torch.Generator().manual_seed(0)
    net = agf_models.modular_params(*(0.1 * torch.randn(2, 4, 7, generator=g, dtype=torch.float64) for _ in range(3)))
    kw = dict(loss=half_mse(), lr=0.01, steps=3000, record=np.arange(0, 3001, 100))
    ref = flow(net, X, Y, method="RK45", rtol=1e-9, atol=1e-13, **kw)
    got = flow(net, X, Y, method="BDF", rtol=1e-8, atol=1e-13, hessian_fn=agf_models.square_hessian, **kw)
    assert ref.loss[-1].max() < 0.6 * ref.loss[0].min()                    # the run passes drops
    torch.testing.assert_close(got.loss, ref.loss, rtol=0, atol=1e-6)
    torch.testing.assert_close(got.params.W1, ref.params.W1, rtol=0, atol=1e-6)
