"""Tests for lrlib.theory.orthogonal.core: the closed forms of Boursier, Pillaud-Vivien & Flammarion (2022) on
the chapter's two data sets, against hand-computed values and independent computations."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.losses import half_mse
from lrlib.measure import line_fit
from lrlib.models import TwoLayer, balanced_init, forward, generator, sweep_init
from lrlib.theory import orthogonal as th
from lrlib.track import balancedness_drift
from lrlib.train import train
from orthogonal_helpers import limit_network

F64 = torch.float64


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


def test_limit_network_interpolates_with_min_norm(testbed):
    X, y = testbed
    p = limit_network(X, y)
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
    p = limit_network(X, y)
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
