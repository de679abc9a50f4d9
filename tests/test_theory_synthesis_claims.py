"""Tests for lrlib.theory.synthesis.claims: the chapter's claim measurements on hand-built runs with known answers."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.losses import half_mse
from lrlib.models import TwoLayer
from lrlib.theory import race as rc
from lrlib.theory import synthesis as sy
from lrlib.theory.synthesis import claims as C
from lrlib.trajectory import Trajectory

from test_theory_synthesis_race_alignment import V_HAND, W_HAND, X4, Y4, _net
from test_theory_synthesis_xor import _Run, _xor_staircase

F64 = torch.float64
LAMS = np.array([1e-3, 1e-6, 1e-12, 1e-24])


def _staircase(t, drops, levels):
    """A loss curve that steps from ``levels[k]`` to ``levels[k+1]`` at ``drops[k]`` (linear over ±0.05)."""
    L = np.full_like(t, levels[0])
    for d, a, b in zip(drops, levels[:-1], levels[1:]):
        L = np.where(t >= d - 0.05, np.interp(t, [d - 0.05, d + 0.05], [a, b]), L)
    return L


def _sweep(gd_times, agf_times, lead_times, plateau=None):
    """One seed; GD drops at ``gd_times[k]`` (two per λ), AGF and the leading order at the given times."""
    t = np.linspace(0, 200, 20001)
    lev = np.array([0.5, 0.2, 0.0])
    loss = np.stack([_staircase(t, g, lev if plateau is None else [0.5, plateau[i], 0.0]) for i, g in enumerate(gd_times)], 1)
    return C.LambdaSweep(lams=LAMS, time=t, loss=loss[:, :, None], tau=[[np.r_[0, a]] for a in agf_times],
                         levels=[[lev] for _ in LAMS], leading=np.asarray(lead_times, float))


def test_time_trends_read_relative_errors_along_the_sweep():
    eta = np.log(1 / LAMS)
    gd = np.stack([eta, 2 * eta], 1)                                       # drops at η and 2η
    sw = _sweep(gd, gd + 1.0, gd * 1.1)                                    # AGF late by 1: error 1/η; leading 10 % late
    a = C.agf_time_trend(sw)
    np.testing.assert_allclose(a["err_deep"], [1 / eta[-1]], rtol=1e-3)
    assert a["mono"][0] == 1 and a["slope"][0] == pytest.approx(1.0, abs=1e-2) and a["shrink"][0] == pytest.approx(8, rel=1e-2)
    assert a["decades"][0] == pytest.approx(math.log10(8))
    b = C.leading_time_trend(sw)
    assert b["mono"][0] == 1 and b["slope"][0] == pytest.approx(0, abs=1e-2)      # a constant 10 %: no shrink
    np.testing.assert_allclose(C.agf_vs_leading(sw)["ratio"], [(1 / eta[0]) / 0.1], rtol=1e-2)


def test_richardson_drops_and_the_leading_order_with_its_constant():
    eta = np.log(1 / LAMS)
    gd = np.stack([eta, 2 * eta], 1)
    sw = _sweep(gd, gd, gd)
    late = _sweep(gd * 1.01, gd, gd)                                       # the same runs with twice the step: 1 % late
    rich = sw.with_loss(late.loss, late.loss)                              # t(dt) = t(2dt) = 1.01 t: extrapolation 1.01 t
    np.testing.assert_allclose(rich.table()["gd"][:, 0], gd * 1.01, rtol=1e-4)
    both = sw.with_loss(sw.loss, late.loss)                                # 2 t − 1.01 t = 0.99 t
    np.testing.assert_allclose(both.table()["gd"][:, 0], gd * 0.99, rtol=1e-4)
    assert np.isnan(C.agf_vs_leading(sw)["ratio_c"]).all()
    c = np.full((len(LAMS), 1), math.e)                                    # ln(1/(cλ)) = ln(1/λ) − 1
    wc = _sweep(gd, gd * 1.1, gd)
    wc = C.LambdaSweep(**{**wc.__dict__, "c": c})
    np.testing.assert_allclose(wc.table()["lead_c"][:, 0], gd * (1 - 1 / eta[:, None]))
    np.testing.assert_allclose(C.agf_vs_leading(wc)["ratio_c"], [0.1 * eta[-1]], rtol=1e-3)
    with pytest.raises(ParameterError):
        sw.with_loss(sw.loss, sw.loss[:, :2])


def test_time_trend_counts_a_missing_drop_as_infinite():
    eta = np.log(1 / LAMS)
    gd = np.stack([eta, 2 * eta], 1)
    gd[-1, 1] = 500.0                                                      # beyond the curve: never crossed
    a = C.agf_time_trend(_sweep(gd, gd + 1.0, gd))
    assert a["err_deep"][0] == np.inf


def test_level_trend_and_the_control_sweep():
    eta = np.log(1 / LAMS)
    gd = np.stack([eta, 2 * eta], 1)
    sw = _sweep(gd, gd, gd, plateau=[0.2 * (1 + d) for d in (1e-1, 1e-3, 1e-6, 0.0)])
    v = C.level_trend(sw, rate=0.5)
    np.testing.assert_allclose(v["dev_shallow"], [0.1], rtol=1e-6)
    assert v["rate"][0] == 0.5
    assert v["slope"][0] == pytest.approx(np.polyfit(np.log(LAMS[:3]), np.log([1e-1, 1e-3, 1e-6]), 1)[0])   # 0 left out
    assert v["dev_deep"][0] == 0 and v["mono"][0] == 1 and v["shrink"][0] > 1e100 and v["decades"][0] == pytest.approx(21)
    flat = sw.with_loss(np.repeat(sw.loss[:, :1], len(LAMS), 1))          # the shallowest curve at every λ: no shrink
    assert C.level_trend(flat, rate=0.5)["shrink"][0] == pytest.approx(1.0)
    with pytest.raises(ParameterError):
        sw.with_loss(sw.loss[:, :2])


def test_xor_measurements_on_a_hand_built_staircase():
    Xa, Y, cl, nets = _xor_staircase()
    t = np.linspace(0, 10, 1001)
    closs = np.stack([np.interp(t, [0, 1.1 * (c + 1) - 0.1, 1.1 * (c + 1) + 0.1, 10], [0.25, 0.25, 0.0, 0.0]) for c in range(4)], -1)
    run = _Run([0, 1, 2, 3, 4], [[0], [1], [2], [3]], nets)
    run.levels = np.array([float(rc.cluster_losses(n, Xa, Y, cl, half_mse()).sum()) / 4 for n in nets])   # equal clusters: ¼ Σ
    total = closs.mean(-1)
    xr = C.XorRuns(t, total[:, None], closs[:, None], [run], Xa[None], Y[None], cl)
    out = C.xor_clusters(xr, std=math.exp(-10))
    assert out["order_ok"].tolist() == [1.0]
    np.testing.assert_allclose(out["worst"], [0.1 / 1.1 * 10], rtol=1e-9)
    assert C.xor_levels(xr)["dev"][0] == pytest.approx(0.0, abs=1e-9)    # flat steps: the plateaus are the levels
    never = C.XorRuns(t, total[:, None], np.full_like(closs, 0.25)[:, None], [run], Xa[None], Y[None], cl)
    assert C.xor_clusters(never, std=math.exp(-10))["worst"][0] == np.inf
    flat = C.XorRuns(t, np.full((t.size, 1), 0.25), closs[:, None], [run], Xa[None], Y[None], cl)
    assert C.xor_levels(flat)["dev"][0] == np.inf


def test_plateau_reading_tells_a_plateau_from_a_smooth_decay():
    from lrlib.measure import plateau_between
    t = np.linspace(0, 4, 4001)
    stairs = _staircase(t, [1.0, 3.0], [1.0, 0.5, 0.0])
    np.testing.assert_allclose(sy.level_deviation(plateau_between(t, stairs, [1.0, 3.0]), [0.5]), [0.0], atol=1e-12)
    decay = np.exp(-math.log(2) * (t - 1.0))                               # passes 0.5 at t = 2, the midpoint
    p = plateau_between(t, decay, [1.0, 3.0])
    assert sy.level_deviation(p, [0.5])[0] == pytest.approx(2 ** 0.5 - 1, rel=1e-6)   # at the quarter point t = 1.5
    assert abs(p.level[0] - 0.5) < 1e-6                                    # the median alone would see no deviation


def _race_traj(scales, loss):
    nets = [_net(W_HAND * s.unsqueeze(-1), torch.tensor(V_HAND, dtype=F64) * s) for s in scales]
    params = TwoLayer(W1=torch.stack([n.W1 for n in nets])[:, None], W2=torch.stack([n.W2 for n in nets])[:, None],
                      b1=torch.stack([n.b1 for n in nets])[:, None], b2=torch.stack([n.b2 for n in nets])[:, None])
    return Trajectory(steps=np.arange(len(scales)) * 10, time=np.arange(len(scales), dtype=float), params=params,
                      loss=torch.tensor(loss, dtype=F64)[:, None])


def test_race_measurements_window_cones_rank_and_mu():
    scales = torch.tensor([[1e-3] * 3, [1.5e-3] * 3, [1e-2] * 3, [3.0, 1.0, 1.0]], dtype=F64)
    tr = _race_traj(scales, [0.6931, 0.6931, 0.6900, 0.3])
    assert C.window_end(tr.run(0), 2.0) == 1 and C.window_end(tr.run(0), 20.0) == 2
    with pytest.raises(ParameterError):
        C.window_end(tr.run(0), 1.0)
    rr = C.RaceRuns(tr, X4[None], Y4[None])
    f = C.local_field(rr)
    assert f["cos_w"][0] == pytest.approx(1.0) and f["window"][0] == 10 and f["bias_ratio"][0] == 0
    cr = C.cones_and_rank(rr)
    assert cr["in_cone"][0] == pytest.approx(1 / 3)
    assert cr["n_out"][0] == 2 and 0 <= cr["in_cone_final"][0] <= 1 and 0 <= cr["in_cone_b"][0] <= 1
    assert cr["srank_b"][0] >= 1 - 1e-9                                       # [W1, b1] on (x, 1), shown
    W = W_HAND.to(F64)
    direct = lambda W: float((W ** 2).sum() / torch.linalg.matrix_norm(W, ord=2) ** 2)
    assert cr["srank"][0] == pytest.approx(direct(W * scales[-1].unsqueeze(-1)))            # the last snapshot
    assert C.cones_and_rank(rr.start())["srank"][0] == pytest.approx(direct(W))            # step 0
    assert C.local_field(rr.start())["window"][0] == 0
    v = C.data_mu((X4[None], Y4[None]))
    mu = v["mu"]
    assert mu.shape == (1,) and np.isfinite(mu).all() and np.isfinite(v["mu_raw"]).all()


def test_what_holds_names_every_declared_claim_once():
    from lrlib.ledger import load_declarations
    from lrlib.paths import chapter_paths

    declared = {d.id for d in load_declarations(chapter_paths("synthesis")[1])}
    named = [i for _, ids in C.WHAT_HOLDS for i in ids]
    assert set(named) == declared and len(named) == len(set(named))


def test_xor_time_trend_reads_the_worst_cluster_along_the_std_sweep():
    from lrlib.ledger.trend import trend_stats
    Xa, Y, cl, nets = _xor_staircase()
    t = np.linspace(0, 10, 2001)
    run = _Run([0, 1, 2, 3, 4], [[0], [1], [2], [3]], nets)                 # AGF: cluster c at τ = c + 1
    stds, late = np.array([1e-3, 1e-6, 1e-12]), [0.4, 0.2, 0.1]

    def batch(e):                                                           # GD drops cluster c at (c + 1)(1 + e)
        closs = np.stack([np.interp(t, [0, (c + 1) * (1 + e) - 0.01, (c + 1) * (1 + e) + 0.01, 10],
                                    [0.25, 0.25, 0.0, 0.0]) for c in range(4)], -1)
        return C.XorRuns(t, closs.mean(-1)[:, None], closs[:, None], [run], Xa[None], Y[None], cl)

    sw = C.XorStdSweep(stds, [batch(e) for e in late])
    v = C.xor_time_trend(sw)
    err = np.array([e / (1 + e) for e in late])
    ref = trend_stats(1 / np.log(1 / stds), err[None])
    for k in ("mono", "slope", "shrink", "decades"):
        np.testing.assert_allclose(v[k], ref[k], rtol=1e-6)
    np.testing.assert_allclose(v["err_deep"], [err[-1]], rtol=1e-6)
    np.testing.assert_allclose(v["c_deep"], [err[-1] * np.log(1e12)], rtol=1e-6)
    flat = C.XorRuns(t, np.full((t.size, 1), 0.25), np.full((t.size, 1, 4), 0.25), [run], Xa[None], Y[None], cl)
    assert v["fitted"][0] == 4
    assert v["c_noninc"][0] == 0                                           # c = err·ln(1/std): 1.97 → 2.30 grows
    fast = C.xor_time_trend(sw.with_runs([batch(e) for e in (0.4, 0.1, 0.02)]))
    assert fast["c_noninc"][0] == 1                                        # c: 1.97 → 1.26 → 0.54
    np.testing.assert_allclose(C.xor_time_constants(sw)[:, 0], err * np.log(1 / stds), rtol=1e-6)
    never = C.xor_time_trend(sw.with_runs([batch(0.4), flat, flat]))      # no cluster fitted: an infinite error
    assert np.isinf(never["err_deep"][0]) and np.isnan(never["slope"][0]) and never["fitted"][0] == 0
    two = batch(0.1).closs.copy()
    two[:, 0, 2:] = 0.25                                                  # clusters 2, 3 never fitted: left out
    some = C.xor_time_trend(sw.with_runs([batch(0.4), batch(0.2), C.XorRuns(t, two.mean(-1), two, [run], Xa[None], Y[None], cl)]))
    assert some["fitted"][0] == 2 and some["err_deep"][0] == pytest.approx(err[-1])
    with pytest.raises(ParameterError):
        sw.with_runs([flat])


def test_xor_levels_trend_reads_xor_levels_along_the_sweep(monkeypatch):
    from lrlib.ledger.trend import trend_stats
    stds, dev = np.array([1e-3, 1e-6, 1e-12]), {0: 0.15, 1: 0.06, 2: 0.01}
    sw = type("Sweep", (), {"stds": stds, "runs": [0, 1, 2]})()
    monkeypatch.setattr(C, "xor_levels", lambda xr: {"dev": np.array([dev[xr]])})
    v = C.xor_levels_trend(sw)
    ref = trend_stats(stds, np.array([[0.15, 0.06, 0.01]]))
    assert v["mono"][0] == ref["mono"][0] == 1 and v["dev_deep"][0] == 0.01
    np.testing.assert_allclose(v["slope"], ref["slope"])
