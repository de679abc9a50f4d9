"""Tests for lrlib.theory.orthogonal: the closed forms of Boursier, Pillaud-Vivien &
Flammarion (2022) on the chapter's two data sets, against hand-computed values and
independent computations, and the measurement helpers behind the chapter's claims."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.losses import half_mse
from lrlib.measure import decreasing, first_crossing, line_fit
from lrlib.models import TwoLayer, balanced_init, forward, generator, sweep_init
from lrlib.theory import orthogonal as th
from lrlib.track import balancedness_drift
from lrlib.train import train
from lrlib.trajectory import Trajectory

F64 = torch.float64


# ---------------------------------------------------------------------------
# reference numbers
# ---------------------------------------------------------------------------

def test_testbed_key_vectors(testbed):
    X, y = testbed
    kv = th.key_vectors(X, y)
    torch.testing.assert_close(kv.D_plus, torch.tensor([1, 1.5, 2, 0, 0, 0, 0, 0, 0, 0], dtype=F64) / 6,
                               rtol=0, atol=1e-16)
    torch.testing.assert_close(kv.D_minus, torch.tensor([0, 0, 0, -1, -1, -0.5, 0, 0, 0, 0], dtype=F64) / 6,
                               rtol=0, atol=1e-16)
    assert kv.norm_plus == pytest.approx(math.sqrt(7.25) / 6, rel=1e-14)
    assert kv.norm_plus == pytest.approx(0.44876, abs=5e-6)
    assert kv.norm_minus == pytest.approx(0.25, rel=1e-14)
    assert kv.r == pytest.approx(1.79505, abs=5e-6)


def test_testbed_min_norm_and_plateau(testbed):
    X, y = testbed
    assert th.min_norm_squared(X, y) == pytest.approx(2 * (math.sqrt(7.25) + 1.5), rel=1e-14)
    assert th.min_norm_squared(X, y) == pytest.approx(8.38516, abs=5e-6)
    assert th.min_f1_norm(X, y) == pytest.approx(math.sqrt(7.25) + 1.5, rel=1e-14)
    assert th.plateau_loss(y) == pytest.approx(0.1875, rel=1e-15)            # (1 + 1 + 0.25) / 12
    assert th.plateau_loss(y, r_gt_1=False) == pytest.approx(7.25 / 12, rel=1e-15)


def test_toy_key_vectors_and_norms(toy):
    X, y = toy
    kv = th.key_vectors(X, y)
    assert kv.norm_plus == pytest.approx(math.sqrt(5) / 2, rel=1e-14)
    assert kv.norm_plus == pytest.approx(1.1180, abs=5e-5)
    assert kv.norm_minus == pytest.approx(math.sqrt(1.25) / 2, rel=1e-14)
    assert kv.norm_minus == pytest.approx(0.5590, abs=5e-5)
    assert th.min_f1_norm(X, y) == pytest.approx(1 / math.sqrt(5) + 1 / math.sqrt(1.25), rel=1e-14)
    assert th.min_f1_norm(X, y) == pytest.approx(1.34164, abs=5e-6)
    assert th.min_norm_squared(X, y) == pytest.approx(2 * 1.341640786, rel=1e-9)


# ---------------------------------------------------------------------------
# the limit
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("dataset", ["testbed", "toy"])
def test_limit_function_interpolates(dataset, request):
    X, y = request.getfixturevalue(dataset)
    torch.testing.assert_close(th.limit_function(X, y, X), y, rtol=0, atol=1e-15)


def test_limit_function_toy_closed_form(toy):
    X, y = toy
    x = torch.linspace(-3, 4, 141, dtype=F64)
    Z = torch.stack([x, torch.ones_like(x)], -1)
    ref = torch.relu(2 * x + 1) / 5 - 0.8 * torch.relu(1 - x / 2)
    torch.testing.assert_close(th.limit_function(X, y, Z), ref, rtol=0, atol=1e-15)


def _limit_network(X, y) -> TwoLayer:
    """Two balanced neurons along limit_directions with cluster masses ‖w‖² = n‖D±‖, a = ±‖w‖."""
    kv = th.key_vectors(X, y)
    up, um = th.limit_directions(X, y)
    n = X.shape[0]
    sp, sm = math.sqrt(n * kv.norm_plus), math.sqrt(n * kv.norm_minus)
    return TwoLayer(W1=torch.stack([sp * up, sm * um]), W2=torch.tensor([[sp, -sm]], dtype=F64))


def test_limit_network_interpolates_with_min_norm(testbed):
    X, y = testbed
    p = _limit_network(X, y)
    torch.testing.assert_close(forward(p, X)[:, 0], y, rtol=0, atol=1e-14)
    norm2 = sum((t ** 2).sum() for t in p).item()
    assert norm2 == pytest.approx(th.min_norm_squared(X, y), rel=1e-14)
    Z = torch.randn(200, 10, generator=generator(0), dtype=F64)
    torch.testing.assert_close(forward(p, Z)[:, 0], th.limit_function(X, y, Z), rtol=0, atol=1e-13)
    assert half_mse()(forward(p, X), y).item() < 1e-28


def test_min_norm_is_a_lower_bound_for_other_interpolators(testbed):
    """Any interpolator we can build is at least as heavy: split the clusters unevenly,
    add a dead neuron, or use one neuron per point (‖θ‖² = 2 Σ|y_k| ≥ 2(‖y₊‖ + ‖y₋‖))."""
    X, y = testbed
    target = th.min_norm_squared(X, y)
    per_point = TwoLayer(W1=torch.sqrt(y.abs()).unsqueeze(-1) * X, W2=(torch.sign(y) * y.abs().sqrt()).unsqueeze(0))
    torch.testing.assert_close(forward(per_point, X)[:, 0], y, rtol=0, atol=1e-14)
    assert sum((t ** 2).sum() for t in per_point).item() > target + 0.5
    # unbalanced rescaling w → c w, a → a / c keeps the function and raises the norm
    p = _limit_network(X, y)
    q = TwoLayer(W1=2 * p.W1, W2=p.W2 / 2)
    torch.testing.assert_close(forward(q, X), forward(p, X), rtol=0, atol=1e-14)
    assert sum((t ** 2).sum() for t in q).item() > target


def test_limit_directions_match_limit_function_on_unequal_norms():
    X = torch.tensor([[1.0, 0, 0], [0, 2.0, 0], [0, 0, 1.0]], dtype=F64)
    y = torch.tensor([1.0, 1.0, -1.0], dtype=F64)
    th.check_orthogonal(X)
    up, _ = th.limit_directions(X, y)
    v = sum(y[k] * X[k] / (X[k] @ X[k]) for k in range(3) if y[k] > 0)  # limit_function's positive weights
    assert torch.dot(up, v / v.norm()).item() == pytest.approx(1.0, abs=1e-12)


# ---------------------------------------------------------------------------
# the saddle and its escape direction
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("m_plus", [1, 3])
def test_saddle_point_is_critical_with_plateau_loss(testbed, m_plus):
    X, y = testbed
    p = th.saddle_point(X, y, m_plus=m_plus)
    assert p.width == m_plus + 1
    torch.testing.assert_close(p.a.abs(), p.norms_in(), rtol=1e-15, atol=0)
    W1, W2 = p.W1.clone().requires_grad_(True), p.W2.clone().requires_grad_(True)
    L = half_mse()(forward(TwoLayer(W1=W1, W2=W2), X), y)
    g1, g2 = torch.autograd.grad(L, [W1, W2])
    assert g1.abs().max().item() < 1e-12 and g2.abs().max().item() < 1e-12
    assert L.item() == pytest.approx(th.plateau_loss(y), rel=1e-14)
    # the positive labels are fitted, the negative ones not at all
    h = forward(p, X)[:, 0]
    torch.testing.assert_close(h[y > 0], y[y > 0], rtol=0, atol=1e-14)
    assert torch.equal(h[y < 0], torch.zeros(3, dtype=F64))


def test_saddle_point_on_toy(toy):
    X, y = toy
    p = th.saddle_point(X, y)
    W1, W2 = p.W1.clone().requires_grad_(True), p.W2.clone().requires_grad_(True)
    L = half_mse()(forward(TwoLayer(W1=W1, W2=W2), X), y)
    assert L.item() == pytest.approx(th.plateau_loss(y), rel=1e-12)
    assert max(g.abs().max().item() for g in torch.autograd.grad(L, [W1, W2])) < 1e-12


def test_escape_curvature(testbed):
    X, y = testbed
    deltas = torch.tensor([1e-3, 3e-3, 1e-2], dtype=F64)
    dL, slope = th.escape_curvature(X, y, deltas)
    assert slope == -th.key_vectors(X, y).norm_minus
    assert dL.shape == (3,) and (dL < 0).all()  # the loss decreases: θ_S is a saddle, not a minimum
    np.testing.assert_allclose((dL / deltas ** 2).numpy(), -0.25, rtol=1e-3)
    fit = line_fit((deltas ** 2).numpy(), dL.numpy()).slope
    assert fit == pytest.approx(-0.25, rel=1e-3)
    # independent: the escape neuron adds −δ²⟨v, x_k⟩ on the negative points only
    d = 1e-2
    v = -th.key_vectors(X, y).D_minus / 0.25
    h_neg = -d ** 2 * (X[y < 0] @ v)
    direct = ((h_neg - y[y < 0]) ** 2 - y[y < 0] ** 2).sum() / (2 * 6)
    assert dL[-1].item() == pytest.approx(direct.item(), rel=1e-10)


# ---------------------------------------------------------------------------
# sets, probabilities, orthogonality
# ---------------------------------------------------------------------------

def test_s_sets_against_loop(testbed):
    X, y = testbed
    p = balanced_init(40, 10, scale=0.1, gen=generator(2), runs=(3,))
    Sp, Sm = th.s_sets(p, X, y)
    assert Sp.shape == Sm.shape == (3, 40)
    W, a = p.W1.numpy(), p.a.numpy()
    Xn, yn = X.numpy(), y.numpy()
    for r in range(3):
        for j in range(40):
            on_pos = all(W[r, j] @ Xn[k] > 0 for k in range(6) if yn[k] > 0)
            on_neg = all(W[r, j] @ Xn[k] > 0 for k in range(6) if yn[k] < 0)
            assert bool(Sp[r, j]) == (a[r, j] > 0 and on_pos)
            assert bool(Sm[r, j]) == (a[r, j] < 0 and on_neg)
    assert Sp.any() and Sm.any() and not (Sp & Sm).any()


def test_assumption3_failure_probability():
    f = th.assumption3_failure_probability
    assert f(10, 3, 3) == 1.0  # the union bound 2(15/16)^10 > 1 is clamped
    assert f(30, 3, 3) == pytest.approx(2 * (15 / 16) ** 30, rel=1e-15)
    assert f(20, 2, 4) == pytest.approx((7 / 8) ** 20 + (31 / 32) ** 20, rel=1e-15)
    vals = [f(m, 3, 3) for m in (16, 20, 50, 100, 500)]
    assert all(0 <= v <= 1 for v in vals)
    assert all(a > b for a, b in zip(vals, vals[1:]))
    assert f(2000, 3, 3) < 1e-50


def test_assumption3_bound_holds_by_monte_carlo(testbed):
    """Empirical P(S₊,₁ = ∅) matches (1 − 2^{−n₊−1})^m and P(either empty) ≤ the bound."""
    X, y = testbed
    m, runs = 40, 4000
    p = balanced_init(m, 10, scale=1.0, gen=generator(9), runs=(runs,))
    Sp, Sm = th.s_sets(p, X, y)
    empty_p = (~Sp.any(-1)).double().mean().item()
    either = ((~Sp.any(-1)) | (~Sm.any(-1))).double().mean().item()
    q = (1 - 2.0 ** -4) ** m
    assert empty_p == pytest.approx(q, abs=4 * math.sqrt(q * (1 - q) / runs))
    bound = th.assumption3_failure_probability(m, 3, 3)
    assert either <= bound + 4 * math.sqrt(bound / runs)


def test_check_orthogonal(testbed, toy):
    th.check_orthogonal(testbed[0])
    th.check_orthogonal(toy[0])
    with pytest.raises(ParameterError, match="orthogonal"):
        th.check_orthogonal(torch.tensor([[1.0, 0.0], [1.0, 1.0]], dtype=F64))
    with pytest.raises(ParameterError):
        th.check_orthogonal(torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1e-6, 0.0, 1.0]], dtype=F64))


# ---------------------------------------------------------------------------
# time scales and measurements
# ---------------------------------------------------------------------------

def test_phase_times(testbed):
    X, y = testbed
    kv = th.key_vectors(X, y)
    lam, eps = 1e-6, 0.1
    pt = th.phase_times(kv, lam, eps)
    Lg = 6 * math.log(10)  # −ln λ
    Dp, Dm = math.sqrt(7.25) / 6, 0.25
    assert pt.t_plus1 == pytest.approx(eps * Lg / Dp, rel=1e-14)
    assert pt.t_plus1 == pytest.approx(3.0786, abs=5e-4)
    assert pt.t_minus1 == pytest.approx(eps * Lg / Dm, rel=1e-14)
    assert pt.t_minus1 == pytest.approx(5.5262, abs=5e-4)
    assert pt.t2_scale == pytest.approx(Lg / Dp, rel=1e-14)
    assert pt.t3_scale == pytest.approx(Lg / Dm, rel=1e-14)
    assert pt.t2_bound == pytest.approx(1.3 * Lg / Dp, rel=1e-14)
    assert pt.t3_bound == pytest.approx((1 + 3 * (Dp / Dm) * eps) * Lg / Dm, rel=1e-14)
    assert pt.t_plus1 < pt.t_minus1 < pt.t2_scale < pt.t2_bound < pt.t3_scale < pt.t3_bound


def test_local_rate(testbed):
    kv = th.key_vectors(*testbed)
    assert th.local_rate(kv, 3) == pytest.approx(0.5, rel=1e-15)
    assert th.local_rate(kv, 1) == pytest.approx(1.0, rel=1e-15)


def test_sweep_init_shares_the_draw_across_lambdas():
    lams = torch.tensor([1e-3, 2e-3, 0.5], dtype=F64)
    p = sweep_init(7, 10, lams, seeds=2, seed=4)
    assert p.W1.shape == (2, 3, 7, 10) and p.W2.shape == (2, 3, 1, 7) and p.runs == (2, 3)
    assert torch.equal(p.W1[:, 1], 2 * p.W1[:, 0])
    assert torch.equal(p.W2[:, 1], 2 * p.W2[:, 0])
    torch.testing.assert_close(p.W1[:, 2], 500 * p.W1[:, 0], rtol=1e-14, atol=0)
    torch.testing.assert_close(p.a.abs(), p.norms_in(), rtol=1e-15, atol=0)  # balanced
    assert not torch.allclose(p.W1[0], p.W1[1])                             # seeds differ
    assert torch.equal(p.W1, sweep_init(7, 10, lams, seeds=2, seed=4).W1)
    base = balanced_init(7, 10, scale=1.0, gen=generator(4), runs=(2,))
    torch.testing.assert_close(p.W1[:, 0], 1e-3 * base.W1, rtol=1e-15, atol=0)


def test_gd_on_testbed_freezes_inactive_preactivations(testbed):
    """Lemma 6: ⟨w_j, e_k⟩ ≤ 0 stays exactly where it is (ReLU'(0) = 0), and the
    coordinates outside the data span never move."""
    X, y = testbed
    p = balanced_init(20, 10, scale=0.3, gen=generator(1))
    steps = 200
    traj = train(p, X, y, loss=half_mse(), lr=0.2, steps=steps, record=range(steps + 1), progress=False)
    W = traj.params.W1.numpy()  # (T, m, d)
    pre = W[:, :, :6]  # ⟨w_j, e_k⟩ = w_jk for the 6 data points
    checked = 0
    for j in range(20):
        for k in range(6):
            off = np.nonzero(pre[:, j, k] <= 0)[0]
            if off.size:
                t0 = off[0]
                assert np.all(pre[t0:, j, k] == pre[t0, j, k]), (j, k)
                checked += 1
    assert checked >= 20
    assert np.array_equal(W[:, :, 6:], np.broadcast_to(W[0, :, 6:], W[:, :, 6:].shape))
    moved = np.abs(pre[-1] - pre[0]) > 1e-3
    assert moved.sum() >= 10  # the active coordinates do move
    assert traj.loss[-1] < traj.loss[0]


def test_u_fitted_and_min_alignment(testbed):
    X, y = testbed
    p = balanced_init(6, 10, scale=0.5, gen=generator(3))
    traj = train(p, X, y, loss=half_mse(), lr=0.1, steps=4, record=[0, 4], progress=False)
    mask = torch.tensor([True, False, True, True, False, False])
    u = th.u_fitted(traj, mask)
    W = traj.params.W1
    for t in range(2):
        assert u[t].item() == pytest.approx(sum((W[t, j] ** 2).sum().item() for j in (0, 2, 3)), rel=1e-14)
    kv = th.key_vectors(X, y)
    up, _ = th.alignment_directions(kv)
    cos = [(p.W1[j] @ up / p.W1[j].norm()).item() for j in (0, 2, 3)]
    assert th.min_alignment(p, mask, up).item() == pytest.approx(min(cos), rel=1e-13)
    assert th.min_alignment(p, torch.zeros(6, dtype=torch.bool), up).item() == 1.0


def test_f1_cost_of_the_limit_network_is_half_min_norm(testbed):
    X, y = testbed
    p = _limit_network(X, y)
    assert th.f1_cost(p).item() == pytest.approx(th.min_f1_norm(X, y), rel=1e-14)
    q = TwoLayer(W1=torch.tensor([[3.0, 4.0]], dtype=F64), W2=torch.tensor([[-2.0]], dtype=F64))
    assert th.f1_cost(q).item() == 10.0


def test_balancedness_drift_zero_at_balanced_and_exact_when_perturbed(testbed):
    X, y = testbed
    p = balanced_init(5, 10, scale=0.3, gen=generator(2))
    traj = train(p, X, y, loss=half_mse(), lr=0.01, steps=0, record=[0], progress=False)
    assert balancedness_drift(traj).item() < 1e-15
    q = TwoLayer(W1=p.W1.clone(), W2=p.W2.clone())
    q.W2[0, 1] *= 2                                    # a_1² − ‖w_1‖² = 3‖w_1‖²
    traj = train(q, X, y, loss=half_mse(), lr=0.01, steps=0, record=[0], progress=False)
    w2 = (p.W1 ** 2).sum(-1)
    assert balancedness_drift(traj).item() == pytest.approx((3 * w2[1] / w2.max()).item(), rel=1e-12)


def test_linearised_loss_rate_against_explicit_kernel(testbed):
    """K_kl = Σ_j a_j² 1{⟨w_j,x_k⟩>0}1{⟨w_j,x_l⟩>0}⟨x_k,x_l⟩ + σ(⟨w_j,x_k⟩)σ(⟨w_j,x_l⟩)."""
    X, y = testbed
    p = balanced_init(7, 10, scale=0.5, gen=generator(4))
    pre = X @ p.W1.T                                   # (n, m)
    act = (pre > 0).to(F64)
    a2 = p.a ** 2
    K = (act * a2) @ act.T * (X @ X.T) + torch.relu(pre) @ torch.relu(pre).T
    expected = 2 * torch.linalg.eigvalsh(K)[0].item() / X.shape[0]
    assert th.linearised_loss_rate(p, X) == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_inactive_violations_zero_on_orthonormal_and_positive_on_correlated(testbed):
    from lrlib.theory.orthogonal.data import correlated_testbed
    X, y = testbed
    Xc, _ = correlated_testbed(rho=0.2)
    p = balanced_init(20, 10, scale=0.3, gen=generator(1), runs=(2,))
    ok = train(p, X, y, loss=half_mse(), lr=0.2, steps=200, record=range(0, 201, 5), progress=False)
    bad = train(p, Xc, y, loss=half_mse(), lr=0.2, steps=200, record=range(0, 201, 5), progress=False)
    assert th.inactive_violations(ok, X).tolist() == [0, 0]
    assert (th.inactive_violations(bad, Xc) > 0).all()


def test_excess_gap_and_clusters_at_the_limit_network(testbed):
    X, y = testbed
    vp, vm = th.fit_vectors(X, y)
    W1 = torch.stack([vp / vp.norm().sqrt(), vm / vm.norm().sqrt()])
    a = torch.stack([vp.norm().sqrt(), -vm.norm().sqrt()])
    p = TwoLayer(W1=W1, W2=a.view(1, 2))
    assert abs(float(th.excess_norm(p, X, y))) < 1e-14
    Z = torch.randn(50, 10, generator=generator(2), dtype=F64)
    assert float(th.function_gap(p, X, y, Z)) < 1e-13
    clustered, outside = th.two_clusters(p, X, y)
    assert bool(clustered) and float(outside) == 0.0
    q = TwoLayer(W1=torch.cat([W1, torch.eye(1, 10, dtype=F64)]), W2=torch.cat([a, torch.ones(1, dtype=F64)]).view(1, 3))
    clustered, outside = th.two_clusters(q, X, y)
    assert not bool(clustered) and float(outside) > 0


def test_uncovered_floor_and_stuck_measures(testbed):
    X, y = testbed
    # neuron 0: positive, active on x_1..x_3; neuron 1: negative, active on x_4 only
    W1 = torch.zeros(2, 10, dtype=F64)
    W1[0, :3] = 1e-6
    W1[1, 3] = 1e-6
    p = TwoLayer(W1=W1, W2=torch.tensor([[1e-6 * math.sqrt(3), -1e-6]], dtype=F64))
    floor = float(th.uncovered_floor(p, X, y))
    assert floor == pytest.approx((1 + 0.25) / 12, rel=1e-14)            # x_5 (y=-1) and x_6 (y=-0.5) uncovered
    runs = p.map(lambda t: t.expand(4, *t.shape).clone())
    final = torch.tensor([floor, floor * (1 + 1e-4), floor * 1.1, floor], dtype=F64)
    m = th.stuck_measures(runs, final, X, y, groups=2)
    assert m["match"].tolist() == [True, False]
    assert m["n_stuck"].tolist() == [2, 2]            # S₋,₁ = ∅ (no negative neuron active on every negative input): all violate
    with pytest.raises(ParameterError):
        th.stuck_measures(runs, final, X, y, groups=3)


def test_toy_timings_and_drop_iteration():
    L = torch.tensor([1.0, 1.0, 0.98, 0.5, 0.5, 0.3, 1e-7], dtype=F64).view(-1, 1)
    tt = th.toy_timings(L)
    assert tt["exit1"][0] == pytest.approx(1 + 0.01 / 0.02) and tt["exit2"][0] == pytest.approx(4.5)
    assert tt["plateau"][0] == 0.5 and tt["final"][0] == 1e-7
    assert th.toy_timings(L, iteration_scale=2.0)["exit2"][0] == pytest.approx(9.0)
    assert th.drop_iteration(L, 0.5)[0] == pytest.approx(3.0)
    assert np.isnan(th.drop_iteration(torch.ones(5, 1, dtype=F64), 0.5)[0])


def test_intermediate_plateaus_and_kinks():
    L = np.r_[np.ones(3), np.geomspace(1, 1e-2, 5)[1:], np.full(8, 1e-2), np.geomspace(1e-2, 1e-8, 6)[1:]]
    pls = th.intermediate_plateaus(L, above=100)
    assert len(pls) == 1 and L[pls[0][0]] == pytest.approx(1e-2)
    assert th.intermediate_plateaus(L, above=1e7) == []
    W1 = torch.tensor([[1.0, 0.5], [2.0, 1.0], [1.0, -2.0], [1e-4, 3e-4]], dtype=F64)   # kinks −0.5, −0.5, 2; the last neuron is tiny
    n, kinks = th.kink_clusters(TwoLayer(W1=W1, W2=torch.ones(1, 4, dtype=F64)))
    assert n == 2 and kinks.tolist() == pytest.approx([-0.5, -0.5, 2.0])
    with pytest.raises(ParameterError):
        th.kink_clusters(TwoLayer(W1=torch.ones(2, 3, dtype=F64), W2=torch.ones(1, 2, dtype=F64)))


def test_movement_and_top2(testbed):
    X, y = testbed
    p = balanced_init(5, 10, scale=1.0, gen=generator(0), runs=(2,))
    traj = train(p, X, y, loss=half_mse(), lr=0.01, steps=5, record=[0, 5], progress=False)
    mv = th.movement(traj)
    for r in range(2):
        d0 = torch.cat([traj.params.W1[0, r].reshape(-1), traj.params.W2[0, r].reshape(-1)])
        d1 = torch.cat([traj.params.W1[-1, r].reshape(-1), traj.params.W2[-1, r].reshape(-1)])
        assert float(mv[r]) == pytest.approx(float((d1 - d0).norm() / d0.norm()), rel=1e-12)
    W = torch.zeros(2, 4, 3, dtype=F64)
    W[0, :, 0] = 1.0
    W[1] = torch.eye(4, 3, dtype=F64)
    torch.testing.assert_close(th.top2_explained(W), torch.tensor([1.0, 2 / 3], dtype=F64))


def test_decay_rates():
    t = np.linspace(0, 100, 201)
    L = torch.tensor(np.exp(-0.5 * t), dtype=F64).view(-1, 1)
    assert th.decay_rates(t, L, (1e-20, 1e-5))[0] == pytest.approx(0.5, rel=1e-10)
    assert np.isnan(th.decay_rates(t, L, (1e-300, 1e-299))[0])
    assert first_crossing(t, L, math.exp(-10))[0] == pytest.approx(20.0, rel=1e-2)


def test_plateau_speedup_tells_a_saddle_from_a_slow_decay():
    it = np.arange(60, dtype=float)
    saddle = np.r_[np.geomspace(1, 1e-2, 10), np.full(20, 1e-2) * np.geomspace(1, 0.99, 20), np.geomspace(1e-2, 1e-9, 30)]
    pls = th.intermediate_plateaus(saddle, above=100)
    assert pls and th.plateau_speedup(saddle, it, pls[0]) > 10
    slow = np.exp(-0.005 * it)                                    # constant-rate decay: no speedup
    assert th.plateau_speedup(slow, it, (10, 20)) == pytest.approx(1.0, rel=1e-9)
    assert np.isnan(th.plateau_speedup(slow, it, (50, 59)))


def _sweep(X, y, lams, steps=3000, dt=1e-2, seeds=1):
    p = sweep_init(20, X.shape[1], lams, seeds=seeds, seed=3)
    return train(p, X, y, loss=half_mse(), lr=dt, steps=steps, record=list(range(0, steps + 1, 10)))


def test_no_collapse_margin_and_mass_times(testbed):
    X, y = testbed
    lams = torch.tensor([1e-8], dtype=torch.float64)
    tr = _sweep(X, y, lams, steps=16_000)
    m, m_flip = th.no_collapse_margin(tr, X, y, lams), th.no_collapse_margin(tr, X, y, lams, flip=True)
    assert m.shape == (1,) and m[0] > 1 and m_flip[0] < m[0]
    assert np.isinf(th.no_collapse_margin(tr, X, y, lams, lam_max=1e-9)).all()   # no λ in range
    t2, t3 = th.mass_times(tr, X, y, lams)
    t2h, t3h = th.half_fit_times(tr, X, y)
    # u₊ must pass half of n‖D₊‖ first; n‖D₋‖ − λ^{ε/29} = 0.56 is below half of n‖D₋‖ = 0.75
    assert t2.shape == (1, 1) and t2h[0, 0] < t2[0, 0] and t3[0, 0] < t3h[0, 0] < tr.time[-1]


def test_saddle_distance_zero_on_the_saddle_and_positive_off_it(testbed):
    X, y = testbed
    p = th.saddle_point(X, y, m_plus=2)
    params = p.map(lambda t: torch.stack([t, 1.1 * t]))
    traj = Trajectory(steps=np.array([0, 1]), time=np.array([0.0, 1.0]), params=params, loss=torch.zeros(2))
    d = th.saddle_distance(traj, X, y)
    assert d.shape == (2,) and d[0].item() < 1e-14
    # scaling every weight by 1.1 leaves the direction, so the nearest point is θ_S: distance 0.1 exactly
    assert d[1].item() == pytest.approx(0.1, rel=1e-12)


def test_hd_measures():
    eta, steps = 2e-2, 20_000
    t = np.arange(steps + 1) * eta / 1e-3
    L = np.where(t < 50_000, 1.0, np.where(t < 100_000, 1e-2, 1e-2 * np.exp(-(t - 100_000) / 5_000)))
    L = torch.tensor(np.stack([L, np.exp(-t / 20_000)], 1))                  # a saddle, and a plain decay
    W = torch.zeros(2, 4, 3)
    W[:, :, 0] = 1.0
    m = th.hd_measures(L, W, eta)
    assert m["exit"][0] == pytest.approx(50_000, abs=100) and m["n_plateaus"][0] >= 1 and m["n_plateaus"][1] == 0
    assert m["on_saddle"].tolist() == [1.0, 0.0] and m["top2"] == pytest.approx([1.0, 1.0])
    assert m["drop"][0] < 1e-10 and m["drop_short"][0] == 1.0
    start = L[m["grid"][m["plateaus"][0][0][0]], 0].item()                   # the run (400 000) outlasts the horizon
    assert m["ratio"][0] == pytest.approx(start / L[-1, 0].item())            # over the run's final loss
    with pytest.raises(ParameterError):
        th.hd_measures(L[:5000], W, eta)


def test_dwell_time_and_lambda_panels():
    t = np.arange(0, 10.25, 0.25)
    L = torch.tensor(np.stack([np.where((t >= 2) & (t < 5), 0.5, 1.0), np.full_like(t, 0.2)], 1))
    assert th.dwell_time(t, L, 0.5).tolist() == [3.0, 0.0]
    with pytest.raises(ParameterError):
        th.dwell_time(np.r_[0.0, 1.0, 3.0, 4.0, 5.0], L[:5], 0.5)
    import matplotlib
    matplotlib.use("Agg")
    from lrlib.plots import orthogonal as plot_orth
    fig = plot_orth.lambda_panels(t, {1e-4: L[:, 0].numpy(), 1e-1: L[:, 1].numpy()}, np.array([1e-4, 1e-1]),
                                  np.array([[3.0, 0.0]]), 0.5)
    assert len(fig.axes) == 2 and len(fig.axes[0].lines) == 3


def test_ntk_interpolator_interpolates_with_the_min_norm_change(toy):
    X, y = toy
    p0 = balanced_init(30, 2, scale=1.0, gen=generator(1))
    Z = torch.linspace(-1.0, 2.5, 15, dtype=torch.float64)
    Z = torch.stack([Z, torch.ones_like(Z)], -1)
    torch.testing.assert_close(th.ntk_interpolator(p0, X, y, X), y, rtol=0, atol=1e-10)
    # the same by a pseudo-inverse and finite differences of the network along the change
    f = lambda W1, W2, inp: forward(TwoLayer(W1=W1, W2=W2), inp)[:, 0]          # noqa: E731
    jac = lambda inp: torch.cat([j.reshape(inp.shape[0], -1) for j in torch.func.jacrev(f, argnums=(0, 1))(p0.W1, p0.W2, inp)], 1)  # noqa: E731
    dtheta = torch.linalg.pinv(jac(X)) @ (y - f(p0.W1, p0.W2, X))
    torch.testing.assert_close(th.ntk_interpolator(p0, X, y, Z), f(p0.W1, p0.W2, Z) + jac(Z) @ dtheta, rtol=1e-8, atol=1e-10)
    with pytest.raises(ParameterError):
        th.ntk_interpolator(p0.map(lambda t: t.unsqueeze(0)), X, y, Z)


def test_neuron_animation_is_small_html():
    import matplotlib
    matplotlib.use("Agg")
    from lrlib.plots import orthogonal as plot_orth
    rng = np.random.default_rng(0)
    P = rng.normal(size=(4, 10, 2)) * np.logspace(-6, 0, 4)[:, None, None]
    html = plot_orth.neuron_animation(P, rng.normal(size=(4, 10)), [f"frame {k}" for k in range(4)])
    assert "<script" in html.data and len(html.data) < 500_000
    with pytest.raises(ValueError):
        plot_orth.neuron_animation(P[..., :1], rng.normal(size=(4, 10)), ["x"] * 4)


# ---------------------------------------------------------------------------
# unbalanced initialisation (§3.2)
# ---------------------------------------------------------------------------

def test_unbalanced_sweep_init_keeps_the_draw_and_scales_with_lambda():
    lams = torch.tensor([1e-2, 1e-6], dtype=F64)
    bal = sweep_init(7, 4, lams, seeds=3, seed=5)
    unb = th.unbalanced_sweep_init(7, 4, lams, seeds=3, seed=5)
    assert unb.W1.shape == (3, 2, 7, 4) and unb.W2.shape == (3, 2, 1, 7)
    torch.testing.assert_close(unb.W1, bal.W1, rtol=0, atol=0)                 # same hidden layer
    assert torch.equal(torch.sign(unb.a), torch.sign(bal.a))                     # same signs, same S sets
    ratio = unb.a / lams.view(1, -1, 1)                                          # a_j / λ: one draw for every λ
    torch.testing.assert_close(ratio[:, 0], ratio[:, 1], rtol=1e-12, atol=0)
    assert not torch.allclose(unb.a.abs(), bal.a.abs())                          # not balanced
    ctrl = th.unbalanced_sweep_init(7, 4, lams, seeds=3, seed=5, out_std=0.5)
    torch.testing.assert_close(ctrl.a[:, 0], ctrl.a[:, 1], rtol=0, atol=0)       # does not scale with λ
    torch.testing.assert_close(ctrl.a, 0.5 * ratio, rtol=1e-12, atol=0)


def test_unbalanced_sweep_init_is_gaussian_and_rejects_bad_scale():
    a = th.unbalanced_sweep_init(400, 3, torch.tensor([1.0], dtype=F64), seeds=5, seed=0).a.reshape(-1)
    assert abs(a.mean().item()) < 0.1 and a.std().item() == pytest.approx(1.0, abs=0.1)
    with pytest.raises(ParameterError):
        th.unbalanced_sweep_init(4, 3, torch.tensor([1.0], dtype=F64), seeds=1, seed=0, out_std=0.0)


def test_thm1_measures_match_the_single_formulas(testbed):
    X, y = testbed
    lams = torch.tensor([1e-2, 1e-3], dtype=F64)
    p = sweep_init(6, X.shape[1], lams, seeds=2, seed=1)
    Z = torch.eye(X.shape[1], dtype=F64)
    loss = torch.tensor([[1e-3, 2e-3], [5e-4, 1e-4]], dtype=F64)
    m = th.thm1_measures(p, X, y, Z, loss)
    ex, gap = th.excess_norm(p, X, y).numpy(), th.function_gap(p, X, y, Z).numpy()
    np.testing.assert_allclose(m["final_max"], [2e-3, 5e-4])
    np.testing.assert_allclose(m["excess_min"], ex.min(-1))
    np.testing.assert_allclose(m["excess_last"], ex[:, -1])
    np.testing.assert_allclose(m["gap_last"], gap[:, -1])
    np.testing.assert_array_equal(m["excess_mono"], decreasing(ex).astype(float))
    assert set(m) == {"final_max", "excess_min", "excess_mono", "excess_last", "gap_mono", "gap_last"}


def test_half_fit_gap_is_zero_against_itself_and_checks_lengths(testbed):
    X, y = testbed
    lams = torch.tensor([1e-2, 1e-3], dtype=F64)
    p = sweep_init(50, X.shape[1], lams, seeds=1, seed=0)
    gd = train(p.map(lambda t: t[0]), X, y, loss=half_mse(), lr=2e-2, steps=5000, record=250)
    single = [gd.run(k) for k in range(2)]
    assert th.half_fit_gap(gd, single, X, y) == 0.0
    late = Trajectory(steps=single[0].steps, time=single[0].time * 1.1, params=single[0].params,
                      loss=single[0].loss, meta=dict(single[0].meta))          # a "flow" 10 % slower
    assert th.half_fit_gap(gd.run(slice(0, 1)), [late], X, y) == pytest.approx(1 - 1 / 1.1, rel=1e-9)
    with pytest.raises(ParameterError):
        th.half_fit_gap(gd, single[:1], X, y)


def test_ntk_gap_is_the_scaled_sup_distance():
    p = balanced_init(4, 3, scale=0.7, gen=generator(2), runs=(2,))
    Z = torch.randn(9, 3, generator=generator(3), dtype=F64)
    h = forward(p, Z)[..., 0]
    y = torch.tensor([1.0, -2.0], dtype=F64)
    np.testing.assert_allclose(th.ntk_gap(p, h, Z, y), [0.0, 0.0], atol=1e-15)
    shifted = h.clone()
    shifted[1, 4] += 0.5
    np.testing.assert_allclose(th.ntk_gap(p, shifted, Z, y), [0.0, 0.25], atol=1e-15)


def test_count_saddles_counts_plateaus_left_fast():
    slow = 0.5 * 0.999 ** np.arange(10)
    L = np.r_[1.0, slow, slow[-1] * 10.0 ** -np.arange(1, 4)]                 # plateau, then a fast drop
    loss = torch.tensor(np.c_[L, L], dtype=F64)
    its = np.arange(len(L), dtype=float)
    walks = [dict(plateaus=[(1, 10)]), dict(plateaus=[])]
    np.testing.assert_array_equal(th.count_saddles(loss, its, walks), [1, 0])
    np.testing.assert_array_equal(th.count_saddles(loss, its, walks, speedup=1e9), [0, 0])
    with pytest.raises(ParameterError):
        th.count_saddles(loss, its, walks[:1])


def test_step_table_reads_one_run_and_grades_each_rule():
    from lrlib.ledger import Declaration
    from lrlib.ledger.grading import verdicts_by_variant

    def decl(id_, rule):
        return Declaration(id=id_, kind="reproduction", ref="r", statement="s", quantity="q", rule=rule,
                           tolerance="t", expect="reproduced")

    decls = {"a": decl("a", "top2 > 0.5"), "b": decl("b", "n_plateaus >= 1")}
    runs = {"η=1": dict(exit=np.array([100.0, 5.0]), top2=np.array([0.8, 0.1]), n_plateaus=np.array([0, 3])),
            "η=2": dict(exit=np.array([102.0, 5.0]), top2=np.array([0.4, 0.9]), n_plateaus=np.array([1, 3]))}
    tab = th.step_table(runs, verdicts_by_variant(decls, {"a": ("top2",), "b": ("n_plateaus",)}, runs, run=0))
    assert list(tab.index) == ["η=1", "η=2"]
    assert tab.loc["η=1", "exit (paper time t)"] == pytest.approx(0.2)
    assert list(tab["a"]) == ["reproduced", "not reproduced"] and list(tab["b"]) == ["not reproduced", "reproduced"]
