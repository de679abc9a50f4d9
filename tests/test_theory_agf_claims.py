"""Tests of the agf chapter's claim measurements (lrlib.theory.agf.claims)."""

import math

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.theory.agf import claims, dln
from lrlib.theory.agf import models as agf_models


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
