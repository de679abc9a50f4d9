"""Tests of the agf chapter's claim measurements (lrlib.theory.agf.claims)."""

import math

import numpy as np
import pytest
import torch
from scipy.integrate import solve_ivp

from lrlib.errors import ParameterError
from lrlib.losses import half_mse
from lrlib.models import forward
from lrlib.theory.agf import claims, dln, linear, modular
from lrlib.theory.agf import measure as ms
from lrlib.theory.agf import models as agf_models
from lrlib.train import train


def test_reduced_flow_matches_the_uv_flow():
    X, y, _ = dln.fig3_data(10)
    t = np.linspace(0.0, 1.2 * dln.agf(X, y, 1e-100).tau[-1] * dln.eta_alpha(1e-4), 801)
    u0 = torch.full((5,), math.sqrt(2) * 1e-4, dtype=torch.float64)
    ref = agf_models.dln_flow(torch.tensor(X), torch.tensor(y), u0, torch.zeros_like(u0), t)
    beta, loss = claims.dln_flow_reduced(X, y, 1e-4, t)
    np.testing.assert_allclose(loss, ref.loss.numpy(), rtol=1e-6, atol=1e-9 * loss.max())
    np.testing.assert_allclose(beta, (ref.states["u"] * ref.states["v"]).numpy(), atol=1e-6 * np.abs(beta).max())


def test_time_scale_is_a_faster_clock():
    X, y, _ = dln.fig3_data(11)
    t = np.linspace(0.0, 200.0, 401)
    _, fast = claims.dln_flow_reduced(X, y, 1e-8, t, time_scale=2.0)
    _, slow = claims.dln_flow_reduced(X, y, 1e-8, 2 * t)
    np.testing.assert_allclose(fast, slow, rtol=1e-6, atol=1e-9 * slow.max())


def test_reduced_flow_rejects_a_bad_alpha():
    X, y, _ = dln.fig3_data(10)
    with pytest.raises(ParameterError):
        claims.dln_flow_reduced(X, y, 0.0, np.linspace(0, 1, 3))


def test_trend_ratios_and_levels_tell_the_flow_from_the_linear_model():
    data = [dln.fig3_data(10)[:2]]
    alphas = [1e-4, 1e-8, 1e-16, 1e-64]
    sw = claims.dln_sweep(data, alphas, n_grid=401)
    lin = claims.linear_model_sweep(data, alphas, n_grid=401)
    assert sw.loss.shape == (1, 4, sw.time.shape[1]) and sw.beta.shape[-1] == 5
    np.testing.assert_array_equal(lin.time, sw.time)
    tr, tl = claims.drop_time_trend(sw), claims.drop_time_trend(lin)
    assert tr["mono"][0] == 1 and abs(tr["slope"][0] - 1) < 0.1 and tr["shrink"][0] > 10
    assert tl["mono"][0] == 0 and abs(tl["slope"][0]) < 0.2 and tl["shrink"][0] < 1
    e, _ = claims.sweep_errors(sw)
    np.testing.assert_allclose(tr["c_deep"], e[:, -1] * sw.etas[-1])
    r = claims.sweep_ratios(sw)
    np.testing.assert_allclose(np.abs(r - 1), e, rtol=1e-12)                  # |ratio − 1| is the error
    fin = claims.finite_alpha_ratios(sw)
    assert set(fin) == {"r4", "r8", "r16", "eta4", "eta8", "eta16"} and fin["r4"].shape == (1,)
    assert fin["eta4"] == pytest.approx(dln.eta_alpha(1e-4))
    assert claims.finite_alpha_ratios(lin)["r16"][0] < 0.2                      # learned at once: drops far too early
    lev, levl = claims.plateau_levels(sw), claims.plateau_levels(lin)
    assert lev["lev"][0] < 1 / lev["eta"][0] < levl["lev"][0]
    o, ol = claims.order_onset(sw), claims.order_onset(lin)
    assert o["match"][0] == 1 and 0.9 < o["onset"][0] < 1.2 and ol["onset"][0] < 0.5
    assert o["overlap"][0] <= 0.1 < ol["overlap"][0]                            # one at a time vs. all at once


def test_linear_model_sweep_is_the_closed_form_flow():
    X, y, _ = dln.fig3_data(12)
    lin = claims.linear_model_sweep([(X, y)], [1e-4], n_grid=51)
    t = lin.time[0]
    sol = solve_ivp(lambda _, b: -(X.T @ (X @ b - y)) / len(y), (0, t[-1]), np.zeros(5), t_eval=t, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(lin.beta[0, 0], sol.y.T, atol=1e-7 * np.abs(sol.y).max())
    np.testing.assert_allclose(lin.loss[0, 0], 0.5 * np.mean((sol.y.T @ X.T - y) ** 2, axis=-1), rtol=1e-6, atol=1e-12)


def test_fig8_data_defaults_are_the_paper_example():
    X, y, b = dln.fig8_data()
    X2, y2, b2 = dln.fig8_data(150.0, (-0.2, 2.0))
    np.testing.assert_array_equal(X, X2)
    assert b.tolist() == [-0.2, 2.0] and np.allclose(y, X @ b)
    Xr, _, _ = dln.fig8_data(140.0, (-0.2, 2.0))
    assert not np.allclose(Xr, X)


def test_dormancy_and_drop_ratios_tell_the_flow_from_the_linear_model():
    data = [dln.fig8_data()[:2]]
    sw = claims.dln_sweep(data, [1e-6], past=1.3, n_grid=801)
    fast = claims.dln_sweep(data, [1e-6], past=1.3, n_grid=801, time_scale=1.2)
    lin = claims.linear_model_sweep(data, [1e-6], past=1.3, n_grid=801)
    d, df, dl = claims.dormancy_ratio(sw), claims.dormancy_ratio(fast), claims.dormancy_ratio(lin)
    eta = dln.eta_alpha(1e-6)
    assert d["opposite"][0] == 1 and abs(d["flip"][0] - 1) < 1 / eta and d["eta"][0] == pytest.approx(eta)
    assert df["flip"][0] == pytest.approx(d["flip"][0] / 1.2, rel=0.02)           # the fast clock: a factor 1/1.2
    assert dl["flip"][0] < 0.5
    r, rf, rl = (claims.deep_drop_ratio(s)["r"][0] for s in (sw, fast, lin))
    assert abs(r - 1) < 1 / eta and rf == pytest.approx(r / 1.2, rel=0.02) and rl < 0.5


def test_dormancy_without_a_flip_is_infinitely_far():
    data = [dln.fig8_data()[:2]]
    sw = claims.dln_sweep(data, [1e-6], past=1.3, n_grid=201)
    early = claims.DLNSweep(sw.X, sw.y, sw.alphas, sw.time[:, :50], sw.loss[:, :, :50], sw.beta[:, :, :50])
    assert claims.dormancy_ratio(early)["flip"][0] == np.inf


def test_fc_trend_and_levels_read_a_staircase_and_reject_the_linear_model():
    S, B = linear.fig4_setup(seed=0, commuting=True)
    pred = linear.conjecture(S, B)
    alphas = np.array([1e-3, 1e-6, 1e-12])
    time = np.geomspace(1e-3, 1.2 * pred.tau[3] * 27.7, 4000)
    # a staircase that drops exactly at τ_k(1 + 1/η_α): error × η_α = 1 at every α, the spectrum on the prediction
    at = [time / eta / (1 + 1 / eta) for eta in -np.log(alphas)]
    loss = np.repeat(np.stack([pred.loss_at(a) for a in at], axis=1)[:, :, None], 2, axis=2)          # (T, A, 2)
    sv = np.repeat(np.stack([pred.sv_at(a) for a in at], axis=1)[:, :, None], 2, axis=2)              # (T, A, 2, r)
    run = claims.FCSweep(time, loss, sv, alphas)
    tr = claims.fc_time_trend(run, pred=pred, K=3)
    assert tr["mono"].tolist() == [1, 1] and np.allclose(tr["slope"], 1, atol=0.05)
    np.testing.assert_allclose(tr["c_deep"], 1, rtol=0.05)
    lev = claims.fc_level_errors(run, pred=pred, K=3)
    assert lev["eta12"] == pytest.approx(-math.log(1e-12)) and (lev["l12"] < 1 / lev["eta12"]).all()
    lin = claims.fc_linear_model(S, B, time, alphas, 2)
    assert lin.loss.shape == (len(time), 3, 2) and lin.loss[0, 0, 0] == pytest.approx(pred.levels[0], rel=1e-2)
    assert (claims.fc_time_trend(lin, pred=pred, K=3)["mono"] == 0).all()
    assert (claims.fc_level_errors(lin, pred=pred, K=3)["l12"] > 1 / lev["eta12"]).all()
    spec, spec_lin = (claims.fc_spectrum_errors(r, pred=pred, K=3) for r in (run, lin))
    assert (spec["s12"] < 1e-9).all() and (spec_lin["s6"] > 0.3).all()


def test_align_trend_reads_a_one_over_log_law():
    alphas = np.array([1e-4, 1e-16, 1e-64, 1e-256])
    frac = np.stack([0.5 / np.log(1 / alphas), np.full(4, 0.9)], axis=1)          # (A, 2): a 1/log law, a constant
    out = claims.align_trend(claims.AlignSweep(alphas, frac))
    assert out["mono"].tolist() == [1, 1] and out["slope"][0] == pytest.approx(1) and abs(out["slope"][1]) < 1e-9
    assert out["shrink"][0] == pytest.approx(64) and out["ratio"][1] == pytest.approx(1)


# ---------------------------------------------------------------- modular addition
def _modular_setup():
    x = modular.template(11, {1: 6.0, 2: 4.0})
    pred = modular.predict(x)
    X, Y = (torch.tensor(a) for a in modular.dataset(x))
    return x, pred, X, Y


def test_cost_step_frac_is_one_at_the_zero_network_and_matches_the_loss():
    x, pred, X, Y = _modular_setup()
    z = torch.zeros(2, 3, 11, dtype=torch.float64)
    net = agf_models.modular_params(z, z, z)
    np.testing.assert_allclose(claims.cost_step_frac(net, X=X, Y=Y, pred=pred)["frac"], [1.0, 1.0], rtol=1e-12)
    g = torch.Generator().manual_seed(0)
    U, V, W = (0.3 * torch.randn(2, 3, 11, generator=g, dtype=torch.float64) for _ in range(3))
    net = agf_models.modular_params(U, V, W)
    L = half_mse()(forward(net, X), Y).numpy()
    np.testing.assert_allclose(claims.cost_step_frac(net, X=X, Y=Y, pred=pred)["frac"],
                               (L - pred.levels[1]) / (pred.levels[0] - pred.levels[1]))


def test_utility_update_reads_each_run_residual():
    x, pred, X, Y = _modular_setup()
    g = torch.Generator().manual_seed(1)
    U, V, W = (0.3 * torch.randn(2, 3, 11, generator=g, dtype=torch.float64) for _ in range(3))
    net = agf_models.modular_params(U, V, W)
    th = np.random.default_rng(0).normal(size=(2, 4, 3, 11))
    th /= np.linalg.norm(th.reshape(2, 4, -1), axis=-1)[..., None, None]
    R = (Y - forward(net, X)).numpy()
    got = claims.utility_update(net, X=X, Y=Y, template=x, xi=pred.order[0], neurons=th)["util_err"]
    want = [ms.utility_update_error(th[r], X.numpy(), R[r], x, pred.order[0]) for r in range(2)]
    np.testing.assert_allclose(got, want)


def test_width_outcome_reads_the_final_loss_and_the_order():
    x, pred, X, Y = _modular_setup()
    g = torch.Generator().manual_seed(2)
    U, V, W = (0.01 * torch.randn(2, 33, 11, generator=g, dtype=torch.float64) for _ in range(3))
    run = train(agf_models.modular_params(U, V, W), X, Y, loss=half_mse(), lr=1e-3, momentum=0.9, steps=200,
                record=[0, 100, 200], grad_fn=agf_models.modular_grad_fn(11), progress=False)
    out = claims.width_outcome(run, X=X, pred=pred)
    np.testing.assert_allclose(out["fin"], run.loss[-1].numpy() / pred.levels[0])
    orders = claims.width_orders(run, X=X, pred=pred)
    assert len(orders) == 2 and out["match"].tolist() == [float(o == list(pred.order)) for o in orders]



def test_what_holds_names_only_declared_claims_and_each_once():
    from lrlib.ledger import load_declarations
    from lrlib.paths import chapter_paths
    from lrlib.theory.agf.claims import WHAT_HOLDS

    declared = {d.id for d in load_declarations(chapter_paths("agf")[1])}
    named = [i for _, ids in WHAT_HOLDS for i in ids]
    assert set(named) <= declared and len(named) == len(set(named))


def test_dln_gd_sweep_approaches_the_flow_and_lags_at_a_coarse_step():
    data = [dln.fig3_data(10)[:2]]
    flow = claims.dln_sweep(data, [1e-4], n_grid=201)
    fine, coarse = (claims.dln_gd_sweep(data, [1e-4], h, n_grid=201) for h in (2e-3, 0.05))
    assert fine.loss.shape == flow.loss.shape and fine.beta.shape == flow.beta.shape
    e_flow, e_fine, e_coarse = (claims.sweep_errors(s)[0][0, 0] for s in (flow, fine, coarse))
    assert abs(e_fine - e_flow) < 0.02 and e_coarse > e_flow + 0.05


def test_align_trend_reads_mono_and_shrink_past_the_shallowest_alpha():
    alphas = np.array([1e-4, 1e-16, 1e-64, 1e-256])
    frac = np.stack([np.r_[0.9, 0.5 / np.log(1 / alphas[1:])], np.full(4, 0.9)], axis=1)   # capped at 1e-4
    out = claims.align_trend(claims.AlignSweep(alphas, frac))
    assert out["mono8"].tolist() == [1, 1] and out["shrink8"][0] == pytest.approx(16)
    assert out["shrink8"][1] == pytest.approx(1)


def test_rate_stability_is_one_for_an_exact_rate_and_reads_the_deepest_alphas():
    etas = np.array([10.0, 20.0, 40.0, 80.0])
    e = np.stack([2.0 / etas, np.array([1.0, 3.0 / 20, 2.0 / 40, 4.0 / 80])])   # exact rate; a drifting constant
    st = claims.rate_stability(e, etas)
    assert st[0] == pytest.approx(1.0)
    assert st[1] == pytest.approx(2.0)          # c = 3, 2, 4 over the deepest three: 4/2
    assert claims.rate_stability(e[:, ::-1], etas[::-1])[1] == pytest.approx(2.0)   # order of α irrelevant
    assert np.isinf(claims.rate_stability(np.array([[1.0, 1.0, 0.0, 1.0]]), etas)[0])
