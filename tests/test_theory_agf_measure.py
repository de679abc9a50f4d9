"""Tests of the chapter's measurements (lrlib.theory.agf.measure) on hand-built inputs with known
answers (float64)."""

import math

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.models import generator
from lrlib.theory.agf import core, dln, modular
from lrlib.theory.agf import measure as ms

F64 = torch.float64


def test_measure_helpers():
    from lrlib.theory.agf import measure as ms

    t = np.linspace(0, 10, 1001)
    loss = np.where(t < 3, 4.0, np.where(t < 7, 2.0, 1.0))
    vals = np.stack([np.clip(t - 5, 0, 1), np.clip(t - 2, 0, 1), np.zeros_like(t)], 1)
    assert ms.activation_order(t, vals, np.array([1.0, 1.0, 0.0])) == [1, 0]
    val, th = ms.maximise_on_sphere(lambda v: v[0] * v[1], torch.tensor([1.0, 0.2], dtype=F64), lr=0.1, steps=500)
    assert val == pytest.approx(0.5, rel=1e-10)


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


def test_maximise_on_stiefel_reaches_ky_fan_sum():
    M = np.random.RandomState(3).randn(5, 4)
    sv = np.linalg.svd(M, compute_uv=False)
    for m in (1, 2, 3):
        u, Th = ms.maximise_on_stiefel(M, m, steps=3000)
        assert u == pytest.approx(sv[:m].sum() / 2, rel=1e-8)
        np.testing.assert_allclose(Th.T @ Th, np.eye(m), atol=1e-12)
    with pytest.raises(ParameterError):
        ms.maximise_on_stiefel(M, 5)


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


def test_frequency_order():
    pred = modular.predict(modular.template(11, {1: 6.0, 2: 4.0}))
    t = np.arange(4.0)
    power = np.zeros((4, 6))
    power[2:, 2] = 4.0
    power[3:, 1] = 6.0
    assert ms.frequency_order(t, power, pred) == [2, 1]



def test_align_sweep_stacks_align_fractions_per_alpha():
    gen = torch.Generator().manual_seed(6)
    X = torch.randn(2, 12, 3, generator=gen, dtype=torch.float64)
    G = torch.randn(2, 12, 2, generator=gen, dtype=torch.float64)
    th = torch.randn(2, 5, generator=gen, dtype=torch.float64)
    alphas = [1e-3, 1e-6]
    sweep = ms.align_sweep(th, X, G, 3, "linear", 2, alphas, angle=0.1)
    assert sweep.shape == (2, 2)
    for i, a in enumerate(alphas):
        np.testing.assert_array_equal(sweep[i], ms.align_fractions(th, X, G, 3, "linear", 2, a, angle=0.1))
