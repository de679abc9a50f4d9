"""Tests for lrlib.theory.orthogonal.claims: each claim measurement against a direct computation or
a case solved by hand, on small runs of the orthonormal test bed."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lrlib.losses import half_mse
from lrlib.measure import cosine as th_cos, first_crossing
from lrlib.models import balanced_init, generator, sweep_init
from lrlib.theory import orthogonal as th
from lrlib.theory.orthogonal import claims
from lrlib.track import max_direction_change
from lrlib.train import train
from lrlib.trajectory import Trajectory

LAMS = torch.tensor([1e-4, 1e-8, 1e-10, 1e-12], dtype=torch.float64)


@pytest.fixture(scope="module")
def small_sweep():
    from lrlib.theory.orthogonal.data import orthonormal_testbed
    X, y = orthonormal_testbed()
    p = sweep_init(20, 10, LAMS, seeds=2, seed=1)                              # Assumption 3 holds
    tr = train(p, X, y, loss=half_mse(), lr=2e-2, steps=15_000, record=np.arange(0, 15_001, 50), progress=False)
    return claims.Sweep(tr, X, y, LAMS)


def test_first_snapshots_and_start(small_sweep):
    s0 = small_sweep.start()
    assert len(s0.traj) == 1 and s0.traj.runs == small_sweep.traj.runs
    torch.testing.assert_close(s0.traj.final.W1, small_sweep.traj.at(0).W1, rtol=0, atol=0)
    c = small_sweep.columns([0, 3])
    assert c.traj.runs == (2, 2) and c.lams.tolist() == [1e-4, 1e-12]


def test_final_loss(small_sweep):
    out = claims.final_loss(small_sweep)
    np.testing.assert_array_equal(out["final_max"], small_sweep.traj.loss[-1].amax(-1).numpy())
    assert claims.final_loss(small_sweep.start())["final_max"].min() > 0.1    # nothing fitted at t = 0


def test_trends_match_trend_stats_and_fail_at_the_start(small_sweep):
    from lrlib.ledger.trend import trend_stats
    X, y = small_sweep.X, small_sweep.y
    ex = th.excess_norm(small_sweep.traj.final, X, y).numpy()
    out = claims.min_norm_trend(small_sweep)
    ref = trend_stats(LAMS.numpy(), ex)
    for k in ("mono", "slope", "shrink", "decades"):
        np.testing.assert_allclose(out[k], ref[k], rtol=1e-12)
    np.testing.assert_allclose(out["excess_min"], ex.min(-1))
    np.testing.assert_allclose(out["dev_last"], np.abs(ex[:, -1]))
    np.testing.assert_allclose(out["decades"], 8.0)
    Z = torch.eye(10, dtype=torch.float64)
    for f, kw in ((claims.min_norm_trend, {}), (claims.function_limit_trend, {"Z": Z}),
                  (claims.clusters_trend, {}), (claims.saddle_trend, {})):
        st = f(small_sweep.start(), **kw)                                   # the initial state: no shrinking
        assert (st["shrink"] < 1.01).all(), f.__name__
    np.testing.assert_allclose(claims.saddle_trend(small_sweep)["dev_last"],
                               th.saddle_distance(small_sweep.traj, X, y).amin(0).numpy()[:, -1])


def test_half_fit_and_convergence_slopes_against_direct_fits(small_sweep):
    X, y = small_sweep.X, small_sweep.y
    kv = th.key_vectors(X, y)
    t2, t3 = th.half_fit_times(small_sweep.traj, X, y)
    logs = -np.log(LAMS.numpy()[1:])                                         # λ ≤ 1e-8
    out = claims.half_fit_slopes(small_sweep, kv)
    for r in range(2):
        assert out["slope2"][r] == pytest.approx(np.polyfit(logs, t2[r, 1:], 1)[0] * kv.norm_plus, rel=1e-10)
        assert out["slope3"][r] == pytest.approx(np.polyfit(logs, t3[r, 1:], 1)[0] * kv.norm_minus, rel=1e-10)
    assert np.all(np.abs(out["slope2"] - 1) < 0.1)                           # the law, roughly, at dt = 2e-2
    tc = first_crossing(small_sweep.traj.time, small_sweep.traj.loss, 1e-6)
    sc = claims.convergence_slope(small_sweep, kv)["slope_conv"]
    assert sc[0] == pytest.approx(np.polyfit(logs, tc[0, 1:], 1)[0] * kv.norm_minus, rel=1e-10)


def test_phase_end_ratios_and_a_start_at_lambda_squared(small_sweep):
    X, y = small_sweep.X, small_sweep.y
    kv = th.key_vectors(X, y)
    out = claims.phase_end_ratios(small_sweep, kv)
    t2, _ = th.mass_times(small_sweep.traj, X, y, LAMS)
    b2 = np.array([th.phase_times(kv, v).t2_bound for v in (1e-8, 1e-10, 1e-12)])
    assert out["ratio2"][0] == pytest.approx(np.max(t2[0, 1:] / b2), rel=1e-12)
    # the column started at 1e-8 = (1e-4)², timed against the bound for 1e-4: later than that bound
    sq = claims.Sweep(small_sweep.columns([1]).traj, X, y, LAMS[:1])
    assert claims.phase_end_ratios(sq, kv, lam_max=1e-4)["ratio2"][0] > 1


def test_no_collapse_plateau_and_local_rate(small_sweep):
    X, y = small_sweep.X, small_sweep.y
    np.testing.assert_array_equal(claims.no_collapse(small_sweep)["margin"],
                                  th.no_collapse_margin(small_sweep.traj, X, y, LAMS))
    t2, t3 = th.half_fit_times(small_sweep.traj, X, y)
    mid = th.loss_at(small_sweep.traj, (t2 + t3) / 2)[:, 1:]
    np.testing.assert_allclose(claims.plateau_deviation(small_sweep)["plateau_dev"],
                               np.abs(mid / 0.1875 - 1).max(-1))
    kv = th.key_vectors(X, y)
    rate = th.decay_rates(small_sweep.traj.time, small_sweep.traj.loss, (1e-24, 1e-16))
    np.testing.assert_allclose(claims.local_rate_deviation(small_sweep, kv, (1e-24, 1e-16), 3)["rate_dev"],
                               np.abs(rate / 0.5 - 1).max(-1))


def test_lazy_regime_fast_convergence_and_realignment(testbed):
    X, y = testbed
    p = balanced_init(8, 10, scale=1e-3, gen=generator(0), runs=(2,))
    tr = train(p, X, y, loss=half_mse(), lr=0.05, steps=4000, record=np.arange(0, 4001, 20), progress=False)
    lz = claims.lazy_regime(tr, f1_ref=[2.0, 4.0])
    assert lz["f1_ratio"][0] == pytest.approx(th.f1_cost(tr.final)[0].item() / 2.0)
    assert lz["f1_ratio"][1] == pytest.approx(th.f1_cost(tr.final)[1].item() / 4.0)
    np.testing.assert_allclose(lz["mv"], th.movement(tr).numpy())
    assert lz["loss"].tolist() == tr.loss[-1].tolist()
    assert np.isnan(lz["clusters"]).all()                                   # kinks need 1-D inputs with a bias
    init = claims.lazy_regime(claims.first_snapshots(tr), f1_ref=[1.0, 1.0])
    assert (init["mv"] == 0).all()                                          # nothing moved at t = 0
    it = tr.steps.astype(float)
    fc = claims.fast_convergence((tr, it), it_ref=[1000.0, 1000.0], level=1e-5)
    first = first_crossing(it, tr.loss, 1e-5)
    want = np.where(np.isnan(first), it[-1], first) / 1000.0
    np.testing.assert_allclose(fc["it_ratio"], want)
    assert fc["saddles"].shape == (2,)
    rl = claims.realignment((tr, [(0, len(tr) - 1), None]))
    assert rl["turn"][0] == pytest.approx(max_direction_change(tr.run(0).at(0), tr.run(0).final))
    assert math.isnan(rl["turn"][1])
    mid = len(tr) // 2                                                       # rel: neurons large at the start
    w0, w1 = tr.run(0).at(mid).incoming(), tr.run(0).final.incoming()
    big = w0.norm(dim=-1) >= 0.01 * w1.norm(dim=-1).max()
    assert big.any() and not big.all()
    want = torch.rad2deg(torch.arccos((th_cos(w0[big], w1[big])).clamp(-1, 1))).max().item()
    assert claims.realignment((tr, [(mid, len(tr) - 1), None]), rel=0.01)["turn"][0] == pytest.approx(want)
    assert math.isnan(claims.realignment((tr, [(mid, len(tr) - 1), None]), rel=1e9)["turn"][0])   # no such neuron


def test_every_claims_function_is_declared_by_the_chapter():
    from pathlib import Path
    from lrlib.ledger.declarations import load_declarations
    decls = load_declarations(Path(__file__).resolve().parents[1] / "notebooks" / "01_orthogonal.claims.yaml")
    used = {d.measure.rsplit(".", 1)[1] for d in decls if d.measure}
    assert used <= set(claims.__all__)
    assert all(d.measure.startswith("orthogonal.claims.") for d in decls if d.measure)


def test_sweep_wrappers_match_the_measure_functions(small_sweep):
    X, y = small_sweep.X, small_sweep.y
    kv = th.key_vectors(X, y)
    np.testing.assert_array_equal(claims.frozen_inactivity(small_sweep)["violations"],
                                  th.inactive_violations(small_sweep.traj, X).sum(-1).numpy())
    assert (claims.frozen_inactivity(small_sweep)["violations"] == 0).all()       # orthonormal inputs (Lemma 6)
    l2 = claims.alignment_end(small_sweep, dt=2e-2)
    ref = th.lemma2_holds(small_sweep.traj, X, y, LAMS, 2e-2)
    assert l2["bounds"].tolist() == ref["bounds"].astype(float).tolist()
    assert l2["deactivated"].dtype == float
    dw = claims.plateau_dwell(small_sweep, kv)["dwell"]
    per_col = th.dwell_time(small_sweep.traj.time, small_sweep.traj.loss, 0.1875) * 0.25
    np.testing.assert_allclose(dw, per_col.max(-1))
    assert (dw > 1).all()                                                     # small λ: the saddle holds the loss


def test_toy_measures_and_stuck_draws(testbed, toy):
    Xt, yt = toy
    p = balanced_init(6, 2, scale=1e-3, gen=generator(0), runs=(2,))
    tr = train(p, Xt, yt, loss=half_mse(), lr=0.05, steps=400, record=[0, 400], dense_loss=True, progress=False)
    Z = torch.stack([torch.linspace(-1, 2, 7, dtype=torch.float64), torch.ones(7, dtype=torch.float64)], -1)
    tl = claims.toy_limit(tr, Xt, yt, Z)
    np.testing.assert_allclose(tl["gap"], th.function_gap(tr.final, Xt, yt, Z).numpy())
    assert tl["f1_err"][0] == pytest.approx(abs(th.f1_cost(tr.final)[0].item() - th.min_f1_norm(Xt, yt)))
    tt = claims.toy_phase_timings(tr)
    ref = th.toy_timings(tr.dense_loss)
    assert set(tt) == set(ref) == {"exit1", "plateau", "exit2", "final"}
    X, y = testbed
    p4 = balanced_init(4, 10, scale=1e-6, gen=generator(7), runs=(4,))
    final = torch.tensor([0.1, 0.0, 0.2, 0.0], dtype=torch.float64)
    st = claims.stuck_draws((p4, final), X, y, groups=2)
    ref = th.stuck_measures(p4, final, X, y, 2)
    assert st["match"].tolist() == ref["match"].numpy().astype(float).tolist() and st["n_stuck"].shape == (2,)


def test_figure4_and_5_measures(toy):
    X, y = toy                                                               # 1-D inputs with a bias coordinate
    p = balanced_init(8, 2, scale=1e-3, gen=generator(1), runs=(2,))
    tr = train(p, X, y, loss=half_mse(), lr=0.05, steps=3000, record=np.arange(0, 3001, 10), progress=False)
    it = tr.steps.astype(float)
    ss = claims.saddle_steps((tr, it))
    walks = [th.saddle_walk(tr.run(r), it, above=100) for r in range(2)]
    assert ss["n_plateaus"].tolist() == [len(w["plateaus"]) for w in walks]
    for r, w in enumerate(walks):
        assert ss["speedup"][r] == (w["speedup"] if w["plateaus"] else 0.0) or np.isnan(w["speedup"])
    flat = Trajectory(steps=np.arange(3), time=np.arange(3.0), params=p.map(lambda t: torch.stack([t] * 3)),
                      loss=torch.ones(3, 2, dtype=torch.float64))
    assert claims.saddle_steps((flat, np.arange(3.0)))["speedup"].tolist() == [0.0, 0.0]   # no plateau: defined, 0
    assert claims.kink_count(tr)["clusters"].tolist() == [float(th.kink_clusters(tr.run(r).final)[0]) for r in range(2)]
    assert claims.lazy_regime(tr, f1_ref=[1.0, 1.0])["clusters"].tolist() == claims.kink_count(tr)["clusters"].tolist()
    Z = torch.stack([torch.linspace(-1, 2, 5, dtype=torch.float64), torch.ones(5, dtype=torch.float64)], -1)
    h = torch.zeros(2, 5, dtype=torch.float64)
    np.testing.assert_allclose(claims.ntk_distance(tr, h, Z, y)["gap_ntk"], th.ntk_gap(tr.final, h, Z, y))


def test_unbalanced_trends_combine_the_theorem_checks(small_sweep):
    from lrlib.ledger.trend import trend_stats
    X, y = small_sweep.X, small_sweep.y
    Z = torch.eye(10, dtype=torch.float64)
    out = claims.unbalanced_trends(small_sweep, Z)
    ex = th.excess_norm(small_sweep.traj.final, X, y).numpy()
    gap = th.function_gap(small_sweep.traj.final, X, y, Z).numpy()
    np.testing.assert_allclose(out["norm_shrink"], trend_stats(LAMS.numpy(), ex)["shrink"])
    np.testing.assert_allclose(out["gap_mono"], trend_stats(LAMS.numpy(), gap)["mono"])
    np.testing.assert_allclose(out["final_max"], small_sweep.traj.loss[-1].amax(-1).numpy())
    np.testing.assert_allclose(out["excess_min"], ex.min(-1))
    assert (claims.unbalanced_trends(small_sweep.start(), Z)["norm_shrink"] < 1.01).all()


def test_high_dim_figure_matches_hd_measures_and_converged_share():
    g = torch.Generator().manual_seed(0)
    t = torch.arange(2001, dtype=torch.float64)[:, None]
    dense = torch.cat([torch.exp(-t / 300), 1 + 0 * t], 1)               # (steps+1, 2): decaying and flat
    W = torch.randn(2, 5, 8, generator=g, dtype=torch.float64)
    got = claims.high_dim_figure((dense, W, 2e-2, 40_000))
    ref = th.hd_measures(dense, W, 2e-2, horizon=40_000)
    for k in ("n_plateaus", "top2", "drop", "drop_short"):
        np.testing.assert_allclose(got[k], np.asarray(ref[k], dtype=float))
    assert got["drop"][1] == 1.0 and got["drop"][0] < 1e-2
    L = np.array([[0.0, 1.0, 1e-12], [1.0, 1.0, 1.0]])
    sel = np.array([[True, True, False], [False, False, False]])
    out = claims.converged_share((L, sel))
    assert out["conv_viol"][0] == 0.5 and np.isnan(out["conv_viol"][1])
    np.testing.assert_array_equal(out["n_viol"], [2, 0])


def test_lemma2_margins_agree_with_lemma2_holds(small_sweep):
    out = claims.lemma2_margins(small_sweep, eps=0.1, lam_max=1e-8)
    ref = th.lemma2_holds(small_sweep.traj, small_sweep.X, small_sweep.y, LAMS, 2e-2, eps=0.1, lam_max=1e-8)
    np.testing.assert_array_equal((out["align"] <= 1) & (out["small"] <= 1), ref["bounds"])
    np.testing.assert_array_equal(out["n_active"] == 0, ref["deactivated"])
    assert (out["n_active_last"] <= out["n_active"]).all()                     # the smallest λ is one of those read
    assert (claims.lemma2_margins(small_sweep.start(), eps=0.1, lam_max=1e-8)["align"] > 1).all()   # unaligned at t = 0


def test_lemma34_margins_read_the_lemmas_at_the_mass_levels(small_sweep):
    kv = th.key_vectors(small_sweep.X, small_sweep.y)
    out = claims.lemma34_margins(small_sweep, eps=0.1, lam_max=1e-8)
    t2, t3 = th.mass_times(small_sweep.traj, small_sweep.X, small_sweep.y, LAMS, 0.1)
    fit = (LAMS <= 1e-8).numpy()
    b2 = np.array([th.phase_times(kv, v, 0.1).t2_bound for v in LAMS[fit].tolist()])
    lower = (t2[:, fit] / b2).max(-1)                                          # the crossing, interpolated
    assert (out["time3"] >= lower - 1e-12).all() and (out["time3"] <= lower + 50 * 2e-2 / b2.min()).all()
    # other3 by hand for row 0 at λ = 1e-12: the largest neuron outside S_{+,1} at the first snapshot past the level
    Sp, _ = th.s_sets(small_sweep.traj.at(0), small_sweep.X, small_sweep.y)
    u = th.u_fitted(small_sweep.traj, Sp)[:, 0, -1]
    i2 = int(np.argmax((u >= 6 * kv.norm_plus - 1e-12 ** (0.1 / 5)).numpy()))
    W = small_sweep.traj.params.W1[i2, 0, -1]
    c = float(small_sweep.traj.at(0).norms_in()[0, -1].max() / 1e-12)
    single = claims.lemma34_margins(small_sweep.columns([3]), eps=0.1, lam_max=1e-8)
    assert single["other3"][0] == pytest.approx(float(W[~Sp[0, -1]].norm(dim=-1).max()) / (2 * c * 1e-12 ** 0.1))
    assert (out["time4"] < 1).all() and (out["moved4"] >= 0).all()
    assert np.isnan(claims.lemma34_margins(small_sweep.start(), eps=0.1, lam_max=1e-8)["time3"]).all()   # ends before the bound


def test_violating_excess_takes_the_smallest_converged_selected_draw():
    from lrlib.theory.orthogonal.data import orthonormal_testbed
    X, y = orthonormal_testbed()
    p = balanced_init(4, 10, scale=0.5, gen=generator(3), runs=(2, 3))
    ex = th.excess_norm(p, X, y).numpy()
    L = torch.tensor([[0.0, 1.0, 0.0], [1.0, 1.0, 0.0]], dtype=torch.float64)
    sel = np.array([[True, True, True], [True, True, False]])
    out = claims.violating_excess((p, L, sel), X, y)
    assert out["excess_min"][0] == pytest.approx(min(ex[0, 0], ex[0, 2])) and np.isnan(out["excess_min"][1])
    np.testing.assert_array_equal(out["n_conv"], [2.0, 0.0])


def test_what_holds_names_only_declared_claims_and_each_once():
    from lrlib.ledger import load_declarations
    from lrlib.paths import chapter_paths
    from lrlib.theory.orthogonal.claims import WHAT_HOLDS

    declared = {d.id for d in load_declarations(chapter_paths("orthogonal")[1])}
    named = [i for _, ids in WHAT_HOLDS for i in ids]
    assert set(named) <= declared and len(named) == len(set(named))
