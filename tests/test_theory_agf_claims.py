"""Tests of the agf chapter's claim measurements (lrlib.theory.agf.claims)."""

import math

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.losses import half_mse
from lrlib.models import forward
from lrlib.theory.agf import claims, dln, modular
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


def test_trend_and_finite_errors_tell_the_flow_from_a_fast_clock():
    data = [dln.fig3_data(10)[:2]]
    alphas = [1e-4, 1e-16, 1e-64]
    sw = claims.dln_sweep(data, alphas, n_grid=401)
    fast = claims.dln_sweep(data, alphas, time_scale=1.2, n_grid=401)
    assert sw.loss.shape == (1, 3, sw.time.shape[1]) and sw.beta.shape[-1] == 5
    tr, tf = claims.drop_time_trend(sw), claims.drop_time_trend(fast)
    assert tr["mono"][0] == 1 and abs(tr["slope"][0] - 1) < 0.1 and tr["shrink"][0] > 10
    assert abs(tf["slope"][0]) < 0.2 and tf["shrink"][0] < 2
    e, _ = claims.sweep_errors(sw)
    np.testing.assert_allclose(tr["c_deep"], e[:, -1] * sw.etas[-1])
    fin = claims.finite_alpha_errors(sw)
    assert set(fin) == {"e4", "e8", "e16", "l4", "l8", "l16", "eta4", "eta8", "eta16"}
    assert fin["eta4"] == pytest.approx(dln.eta_alpha(1e-4)) and fin["e4"].shape == (1,)


def test_fig8_data_defaults_are_the_paper_example():
    X, y, b = dln.fig8_data()
    X2, y2, b2 = dln.fig8_data(150.0, (-0.2, 2.0))
    np.testing.assert_array_equal(X, X2)
    assert b.tolist() == [-0.2, 2.0] and np.allclose(y, X @ b)
    Xr, _, _ = dln.fig8_data(140.0, (-0.2, 2.0))
    assert not np.allclose(Xr, X)


def test_dormancy_and_drop_errors_tell_the_flow_from_a_fast_clock():
    data = [dln.fig8_data()[:2]]
    sw = claims.dln_sweep(data, [1e-6], past=1.3, n_grid=801)
    fast = claims.dln_sweep(data, [1e-6], past=1.3, n_grid=801, time_scale=1.2)
    d, df = claims.dormancy(sw), claims.dormancy(fast)
    eta = dln.eta_alpha(1e-6)
    assert d["opposite"][0] == 1 and d["flip_err"][0] < 1 / eta and d["eta"][0] == pytest.approx(eta)
    assert df["flip_err"][0] == pytest.approx(1 - 1 / 1.2, abs=0.02)          # the flip comes 1/1.2 as late
    e, ef = claims.deep_drop_errors(sw), claims.deep_drop_errors(fast)
    assert e["e"][0] < 1 / eta < ef["e"][0]


def test_dormancy_without_a_flip_is_infinitely_far():
    data = [dln.fig8_data()[:2]]
    sw = claims.dln_sweep(data, [1e-6], past=1.3, n_grid=201)
    early = claims.DLNSweep(sw.X, sw.y, sw.alphas, sw.time[:, :50], sw.loss[:, :, :50], sw.beta[:, :, :50])
    assert claims.dormancy(early)["flip_err"][0] == np.inf


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

