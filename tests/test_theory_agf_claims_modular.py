"""Tests of the transformer and modular-addition claim measurements (lrlib.theory.agf.claims_modular)."""

import math
from types import SimpleNamespace

import numpy as np
import torch

from lrlib.theory.agf import claims_modular as cm
from lrlib.theory.agf import measure as ms
from lrlib.theory.agf import modular, transformer


def _ramp(t, t0, width=0.05):
    """A smooth step from 0 to 1 around ``t0`` (log time)."""
    return 1 / (1 + np.exp(-(np.log(t) - np.log(t0)) / width))


def test_sequential_order_tells_one_at_a_time_from_together():
    t = np.geomspace(1, 1e4, 2001)
    finals = np.array([2.0, 1.0, 0.5])
    seq = np.stack([f * _ramp(t, t0) for f, t0 in zip(finals, (10, 100, 1000))], axis=1)
    order, overlap = cm.sequential_order(t, seq, finals)
    assert order == [0, 1, 2] and overlap < 1e-6
    together = np.stack([f * _ramp(t, 10) for f in finals], axis=1)
    order, overlap = cm.sequential_order(t, together, finals)
    assert math.isclose(overlap, 0.5, rel_tol=1e-6)          # the next one is at half when the first is
    never = np.zeros((t.size, 3))
    order, overlap = cm.sequential_order(t, never, finals)
    assert order == [] and np.isnan(overlap)


def _staircase(levels, drops, n):
    """A loss at every step 0..n resting on ``levels`` and dropping at ``drops``."""
    s = np.arange(n + 1.0)
    L = np.full(s.shape, levels[0])
    for k, d in enumerate(drops):
        L = np.where(s >= d, levels[k + 1], L)
    return L


def test_fig5_measurements_read_a_staircase_and_its_end_point():
    Sig = transformer.fig5_sigma(seed=0)
    pred = transformer.predict(Sig, 32)
    n, drops = 4000, [100, 400, 1200, 3000]
    L = np.stack([_staircase(pred.levels, drops, n)] * 2, axis=1)                 # (n+1, 2)
    steps = np.arange(0, n + 1, 10)
    proj = np.stack([pred.A[k] * (steps[:, None] >= d) for k, d in enumerate(drops)], axis=-1)[:, 0]   # (T, 4)
    run = cm.HeadsRun(loss=L, steps=steps, proj=np.stack([proj] * 2, axis=1), head_norm=np.full((steps.size, 2, 5), 1e-3),
                      gamma_end=np.stack([pred.gamma(4)] * 2), h=0.01)
    lv = cm.fig5_levels(run, pred=pred)
    assert np.all(lv["lev"] < 1e-12) and np.all(lv["fin"] < 1e-12) and np.all(lv["gam"] < 1e-12)
    od = cm.fig5_order(run, pred=pred)
    assert np.all(od["match"] == 1) and np.all(od["overlap"] == 0)
    d = cm.run_drops(run, pred)[0]
    np.testing.assert_allclose(d, np.array(drops) - 0.5)                            # the crossing, interpolated
    b = cm.fig5_bound_steps(run, pred=pred)
    assert math.isclose(b[0, 0], pred.bound_gap(1, 1.0, 1e-3) / 0.01)
    assert math.isclose(b[0, 1], d[0] + pred.bound_gap(2, 1.0, 1e-3) / 0.01)
    np.testing.assert_allclose(cm.fig5_jump_bound(run, pred=pred)["margin"], np.min(d / b[0]))
    flat = cm.HeadsRun(loss=np.full((n + 1, 2), pred.levels[0]), steps=steps, proj=np.zeros_like(run.proj),
                       head_norm=run.head_norm, gamma_end=np.zeros((2, 4, 4)), h=0.01)
    assert np.all(cm.fig5_levels(flat, pred=pred)["lev"] == np.inf)                   # no drop: no plateau
    assert np.all(cm.fig5_order(flat, pred=pred)["overlap"] == np.inf)


def _fig6_staircase(drops):
    """Figure 6's prediction and a loss staircase dropping to its levels at ``drops`` (geometric times)."""
    pred = modular.predict(modular.template(20, {1: 10.0, 3: 5.0, 5: 2.5}))
    t = np.geomspace(0.01, 3000, 3001)
    L = np.full(t.shape, pred.levels[0])
    for k, d in enumerate(drops):
        L = np.where(t >= d, pred.levels[k + 1], L)
    return pred, t, L


def test_fig6_measurements_read_a_staircase_and_tell_missing_drops():
    drops = [100.0, 400.0, 1500.0]
    pred, t, L = _fig6_staircase(drops)
    power = np.zeros((t.size, 1, 11))
    for k, (f, a) in enumerate(zip(pred.order, pred.amps)):
        power[:, 0, f] = a * (t >= drops[k])
    run = cm.ModularFlow(time=t, loss=L[:, None], power=power)
    assert np.all(cm.fig6_levels(run, pred=pred)["lev"] < 1e-12)
    od = cm.fig6_order(run, pred=pred)
    assert od["match"][0] == 1 and od["overlap"][0] == 0
    np.testing.assert_allclose(cm.fig6_agf_error(run, pred=pred, agf_drops=np.array([drops]) * 1.1)["err"], [0.1 / 1.1], rtol=0.03)
    short = cm.ModularFlow(time=t[t < 1000], loss=L[t < 1000, None], power=power[t < 1000])   # no third drop
    assert cm.fig6_levels(short, pred=pred)["lev"][0] == np.inf
    assert cm.fig6_agf_error(short, pred=pred, agf_drops=np.array([drops]))["err"][0] == np.inf


def test_fig6_phase_is_the_measure_modules_constraint_per_run():
    x = modular.template(11, {1: 6.0, 2: 4.0})
    g = torch.Generator().manual_seed(0)
    W1 = torch.randn(3, 8, 22, generator=g, dtype=torch.float64)
    W2 = torch.randn(3, 11, 8, generator=g, dtype=torch.float64)
    net = SimpleNamespace(W1=W1, W2=W2)
    got = cm.fig6_phase(net, x=x, freqs=[1, 2])["constraint"]
    want = [np.nanmax(ms.phase_constraint(W1[r, :, :11].numpy(), W1[r, :, 11:].numpy(), W2[r].T.numpy(), x, [1, 2]))
            for r in range(3)]
    np.testing.assert_allclose(got, want)


def test_fig6_levels_read_log_time_windows_and_report_their_flatness():
    drops = [25.0, 200.0, 1900.0]
    pred, t, L = _fig6_staircase(drops)
    # the second plateau falls from 1200: inside the linear middle half [625, 1475], not the log one [351, 1084]
    L = np.where((t >= 1200) & (t < drops[2]), pred.levels[2] * (1 - 0.5 * (t - 1200) / 700), L)
    run = cm.ModularFlow(time=t, loss=L[:, None], power=np.zeros((t.size, 1, 11)))
    _, low, high = cm.plateaus(run, pred)                               # linear window: not flat
    assert (high / low - 1)[0, 1] > 0.02
    out = cm.fig6_levels(run, pred=pred)
    assert out["lev"][0] < 1e-12 and out["flat"][0] < 1e-12              # log window: on it, flat
    level, low, high = cm.plateaus(run, pred, log_time=True)
    assert level.shape == low.shape == high.shape == (1, 2)
