"""Tests for lrlib.theory.race.claims: each claim's measurement function against a direct computation
on small hand-built or trained inputs, and the chapter's claims file resolves to these functions."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import torch

from lrlib.ledger.declarations import load_declarations, resolve_measure
from lrlib.losses import Loss
from lrlib.measure import drops
from lrlib.models import forward, generator
from lrlib.theory import race as rc
from lrlib.theory.race import claims as rcc
from lrlib.train import train
from lrlib.schedules import linear_schedule

F64 = torch.float64
CE = Loss("cross_entropy")


@pytest.fixture(scope="module")
def toy():
    """Two toy runs (full batch, small init) of 40 neurons for 800 steps, float64."""
    data = [rc.xor_clusters(20, generator(r)) for r in range(2)]
    X = torch.stack([d[0] for d in data])
    y = data[0][1].expand(2, -1).clone()
    p = rc.race_init(40, 2, 1e-3, generator(7), runs=(2,), dtype=F64)
    tr = train(p, X, y, loss=CE, lr=0.05, momentum=0.9, steps=800, record=linear_schedule(800, 20),
               grad_fn=rc.toy_gradients)
    return tr, X, y, data[0][2]


def test_every_new_form_claim_resolves_to_a_function_here():
    decls = load_declarations(Path(__file__).resolve().parents[1] / "notebooks" / "03_race.claims.yaml")
    for d in decls:
        if not d.legacy:
            f = resolve_measure(d)
            assert f.__module__ == "lrlib.theory.race.claims" and f.__name__ in rcc.__all__, d.id


def test_loss_drops_counts_per_run(toy):
    tr, _, _, _ = toy
    n = rcc.loss_drops(tr)["n_drops"]
    L = tr.loss.numpy()
    assert n.tolist() == [len(drops(tr.steps, L[:, r], rel=0.05)) for r in range(2)]


def test_cluster_times_against_direct_losses(toy):
    tr, X, y, cl = toy
    out = rcc.cluster_times((tr, X, y), cl)
    for name, k in zip(("t4", "t3", "t2", "t1"), (0, 1, 3, 2)):
        for r in range(2):
            Lk = np.array([CE(forward(tr.at(i).map(lambda t: t[r]), X[r][cl == k]), y[r][cl == k]).item()
                           for i in range(len(tr))])
            hit = np.nonzero(Lk < 0.5 * math.log(2))[0]
            want = tr.steps[hit[0]] if hit.size else np.nan
            assert out[name][r] == want or (np.isnan(want) and np.isnan(out[name][r]))


def test_lazy_alignment_groups_of_four():
    g = generator(3)
    W1 = torch.randn(8, 30, 2, generator=g)
    p = rc.race_init(30, 2, 1.0, g, runs=(8,))
    p.W1 = W1
    cen = rc.centroid_directions()
    out = rcc.lazy_alignment(p, cen)
    for gi in range(2):
        sc = rc.lazy_scores(p.map(lambda t: t[4 * gi:4 * gi + 4]), cen)[0]
        assert np.allclose([out[f"s{j + 1}"][gi] for j in range(4)], sc.numpy())


def test_merge_effect_split_network_merges_back_without_loss_change(toy):
    tr, X, y, _ = toy
    fin = tr.final
    split = rc.claims.merge_effect((rc.stack_nets([rc.split_all(fin.map(lambda t: t[r])) for r in range(2)]), X, y))
    plain = rc.claims.merge_effect((fin, X, y))
    assert split["m"].tolist() == [80, 80] and plain["m"].tolist() == [40, 40]
    assert np.allclose(split["dl"], plain["dl"], atol=1e-9) and (split["groups"] == plain["groups"]).all()
    row = rc.merge_rows(fin.map(lambda t: t[0]), X[0], y[0], CE, thresholds=(0.999,))[0]
    assert plain["groups"][0] == row["groups"] and math.isclose(plain["dl"][0], row["rel_loss_change"], rel_tol=1e-9)


def test_rank_and_sharper_prediction():
    g = generator(1)
    a = torch.rand(3, 50, generator=g, dtype=F64)
    cd = a + 0.01 * torch.randn(3, 50, generator=g, dtype=F64)          # near-perfect ranking
    out = rcc.rank_prediction((torch.rand(3, 50, generator=g, dtype=F64), cd, a))
    assert (out["rho500"] > 0.99).all() and (np.abs(out["rho0"]) < 0.5).all()
    sh = rcc.sharper_prediction([(cd, a), (cd, -a), (cd, a)])
    assert np.allclose(sh["rho1"], -sh["rho2"]) and np.allclose(sh["rho1"], sh["rho3"])


def test_growth_form_per_run():
    g = generator(2)
    cd = torch.rand(2, 60, generator=g, dtype=F64) * 0.9 + 0.05
    a = torch.exp(5 * cd)
    out = rcc.growth_form((cd, a))
    assert np.allclose(out["r2_exp"], 1.0) and (out["r2_pow"] < 1.0).all()


def test_half_final_times_and_phi_targets(toy):
    tr, X, y, _ = toy
    h = rcc.half_final_times(tr)
    grp1 = rc.angle_gap(rc.phi(tr.final), rc.PHI1).abs() < math.pi / 2
    tot = (rc.total_norm(tr.params) * grp1).sum(-1)                        # (T, R)
    for r in range(2):
        want = tr.steps[int(np.nonzero((tot[:, r] >= 0.5 * tot[-1, r]).numpy())[0][0])]
        assert h["th1"][r] == want
    t = rcc.phi_targets((tr, X, y), 400)
    i0 = tr.index_of_step(400)
    P = tr.at(i0)
    ch = max(float(rc.gate_change(P.map(lambda x: x[0]), tr.at(i).map(lambda x: x[0]), X[0])) for i in range(i0, len(tr)))
    assert math.isclose(t["changed_all"][0], ch)
    assert np.allclose(t["agree_n"], rc.rule_agreement(P, tr.final, X, y)[0], equal_nan=True)
    assert ((0 <= t["share"]) & (t["share"] <= 1)).all()


def test_gamma_m_alignment_is_one_at_small_init():
    g = generator(4)
    X = torch.randn(2, 30, 5, generator=g, dtype=F64)
    y = torch.randint(0, 2, (2, 30), generator=g)
    p = rc.race_init(12, 5, 1e-6, g, runs=(2,), dtype=F64)
    assert (rcc.gamma_m_alignment((p, X, y))["cgm0"] > 1 - 1e-6).all()


def test_winner_rotation_and_drift_and_frozen_flow(toy):
    tr, X, y, _ = toy
    w = rcc.winner_rotation((tr, X, y), t_max=400, n_top=5)
    steps, path = rc.top_cos_delta_path(tr, X, y, 400, 5)
    assert np.allclose(w["c0"], path[0]) and np.allclose(w["c500"], path[-1]) and np.allclose(w["up"], rc.rising_share(path))
    assert np.allclose(w["rho"], rcc.time_rank_correlation(path))
    d = rcc.winner_drift(tr, n_top=5)
    assert np.allclose(d["drift"], rc.direction_drift(tr, d["t_off"], 5), equal_nan=True)
    f = rcc.frozen_flow((tr, X, y), 0.05 / 0.1, 200)
    assert set(f) >= {"err", "rise", "fixed", "zmax", "err_w", "n_long"}


def test_plateau_levels_pairs_the_first_runs(toy):
    tr, _, _, _ = toy
    one = tr.run(slice(0, 1))
    out = rcc.plateau_levels((tr, one), t=200)
    assert out["l1"].shape == (1,) and math.isclose(out["l1"][0], tr.loss[tr.index_of_step(200), 0].item() / math.log(2))


def test_setting_alignment_and_norm_concentration(toy):
    tr, _, _, _ = toy
    fin = tr.final
    al = rcc.setting_alignment((fin, fin), n_top=5)
    assert np.allclose(al["al2"], al["al3"]) and np.allclose(al["al2"], rc.top_alignment(fin, 5).numpy())
    sh = rcc.norm_concentration((fin, fin, fin))
    assert np.allclose(sh["share1"], rc.top_share(rc.total_norm(fin).double()).numpy())


def test_conservation_and_one_step_growth(toy):
    tr, X, y, _ = toy
    c = rcc.conservation(tr)
    ok, paper = rc.conservation_drifts(tr.params)
    assert np.allclose(c["d_ok"], ok) and np.allclose(c["d_paper"], paper)
    p = tr.at(tr.index_of_step(200))
    g = rcc.one_step_growth((p, X, y), n_top=5)
    assert np.allclose(g["r90"], 1, atol=1e-2) and (g["fd_gap"] < 1e-2).all()
    unbal = p.clone()
    unbal.W1, unbal.b1, unbal.W2 = 3 * p.W1, 3 * p.b1, p.W2 / 3
    gu = rcc.one_step_growth((unbal, X, y), n_top=5)
    assert np.allclose(gu["r90"], 1, atol=1e-2) and (gu["c_fac"] > 4 * g["c_fac"]).all()


def test_cifar_growth_ratio_is_one_for_a_network_growing_at_eq90(toy):
    tr, X, y, _ = toy
    out = rcc.cifar_growth((tr, X, y), lam_eff=0.5, t0=100, t1=120, n_top=5)
    assert set(out) == {"c18", "c90", "c_fac"} and (out["c90"] > 0).all()


def test_rebalanced_keeps_the_function_and_a():
    g = generator(9)
    X = torch.randn(2, 20, 6, generator=g, dtype=F64)
    p = rc.race_init(10, 6, 0.3, g, runs=(2,), dtype=F64)
    p.b1 = 0.1 * torch.randn(2, 10, generator=g, dtype=F64)
    for f in (1.0, 3.0):
        q = rc.rebalanced(p, f)
        assert torch.allclose(forward(q, X), forward(p, X), atol=1e-13)
        n1 = torch.sqrt((q.W1 ** 2).sum(-1) + q.b1 ** 2)
        assert torch.allclose(n1, f * q.W2.norm(dim=-2)) and torch.allclose(rc.total_norm(q), rc.total_norm(p))


def test_identity_and_eq15_errors_are_rounding():
    g = generator(11)
    X = torch.randn(20, 3, generator=g, dtype=F64)
    y = torch.randint(0, 2, (20,), generator=g)
    p = rc.race_init(8, 3, 0.5, g, dtype=F64)
    p.b1 = 0.2 * torch.randn(8, generator=g, dtype=F64)
    assert (rcc.identity_errors([(p, X, y)] * 2)["err"] <= 1e-12).all()
    assert rcc.eq15_errors([(p, X, y)])["err15"][0] <= 1e-10


def test_appendix_g_sign_matches_the_check_and_its_control():
    from lrlib.data import cifar_race
    X, y = cifar_race(50, 0)[:2]
    X = X.double()
    p = rc.race_init(40, 1024, 1e-4, generator(1), dtype=F64)
    nets = rc.aligned_neurons(p, X, y, n_want=2)
    meas, ctl = rc.appendix_g_check(p, X, y, n_want=2)
    got = rcc.appendix_g_sign([(nets, X, y)])
    got_c = rcc.appendix_g_sign([(rc.turned_out(nets), X, y)])
    for k in ("neg", "dev", "cos_min", "n"):
        assert math.isclose(got[k][0], meas[k], rel_tol=1e-12)
    assert math.isclose(got_c["neg"][0], ctl["neg"]) and math.isclose(got_c["dev"][0], ctl["dev"], rel_tol=1e-12)


def test_parameter_counts_and_fixed_point_errata():
    g = generator(12)
    X = torch.rand(40, 6, generator=g, dtype=F64)
    y = torch.randint(0, 2, (40,), generator=g)
    p = rc.race_init(5, 6, 1e-6, g, dtype=F64)
    c = rcc.parameter_counts((p, X))
    assert c["n_par"][0] == 5 * 6 + 5 + 2 * 5 + 2 and c["m"][0] == 5 and c["n_samples"][0] == 40
    e = rcc.fixed_point_errata([(p, X, y)])
    assert e["dphi74"][0] <= 1e-12 and e["dphi73"][0] >= 0.01 and e["dy_dev"][0] <= 1e-3


def test_settle_targets_against_a_direct_count(toy):
    tr, X, y, _ = toy
    out = rcc.settle_targets((tr, X, y), 0)
    for r in range(2):
        P0 = tr.at(0).map(lambda t: t[r]).to(F64)
        g0 = rc.gating(P0, X[r].double())
        pred = rc.phi_star_predicted(P0, X[r].double(), y[r])
        n_ok = hits = 0
        for a in range(P0.W1.shape[0]):
            gaps = [float(rc.target_gap(rc.phi(tr.at(i).map(lambda t: t[r]))[a])) for i in range(len(tr))]
            first = next((i for i, g in enumerate(gaps) if g < math.radians(1)), None)
            if first is None:
                continue
            worst = max(float((rc.gating(tr.at(i).map(lambda t: t[r]).to(F64), X[r].double())[a] != g0[a]).double().mean())
                        for i in range(first + 1))
            if worst <= 0.01 and bool(rc.target_m1(P0, X[r].double(), y[r])[a].abs().sum() > 0):
                n_ok += 1
                ph = float(rc.phi(tr.at(first).map(lambda t: t[r]))[a])
                hits += abs(float(rc.angle_gap(torch.tensor(ph), pred[a]))) < math.radians(1)
        assert out["n_ok"][r] == n_ok
        if n_ok:
            assert out["agree_thm"][r] == pytest.approx(hits / n_ok)
    assert np.all((out["settled"] >= 0) & (out["settled"] <= 1))


def test_prune_loss_removes_the_lowest_scores_first(toy):
    tr, X, y, _ = toy
    p = tr.final.to(F64)
    a = rc.total_norm(p)
    out = rcc.prune_loss((p, X, y, a))
    for r in range(2):
        q = p.map(lambda t: t[r])
        keep = torch.argsort(a[r])[20:]                                    # 40 neurons: the half of lowest a removed
        pruned = type(q)(W1=q.W1[keep], b1=q.b1[keep], W2=q.W2[:, keep], b2=q.b2)
        L0, L1 = CE(forward(q, X[r]), y[r]).item(), CE(forward(pruned, X[r]), y[r]).item()
        assert out["dl"][r] == pytest.approx((L1 - L0) / L0, rel=1e-9, abs=1e-12)
    assert np.all((out["frac"] >= 0) & (out["frac"] <= 1))
    assert rcc.prune_loss((p, X, y, torch.zeros_like(a)))["dl"].shape == (2,)


def test_cifar_growth_live_only_skips_dead_neurons(toy):
    tr, X, y, _ = toy
    P = tr.params.map(lambda t: t.clone())
    P.b1[:, :, 0] = -1e3                                   # neuron 0 dead at every snapshot ...
    P.W2[:, :, :, 0] = 100.0                               # ... and the largest a
    dead = type(tr)(steps=tr.steps, time=tr.time, params=P, loss=tr.loss, meta=tr.meta)
    t0, t1 = int(tr.steps[5]), int(tr.steps[10])
    out = rcc.cifar_growth((dead, X, y), 0.05, t0=t0, t1=t1, n_top=1)
    assert not np.any(np.isfinite(out["c18"]))                # 0/0 or x/0: the dead neuron
    live = rcc.cifar_growth((dead, X, y), 0.05, t0=t0, t1=t1, n_top=1, live_only=True)
    assert np.all(np.isfinite(live["c18"]))


def test_level_snapshots_find_the_first_crossing(toy):
    tr, _, _, _ = toy
    L = tr.loss.numpy()
    level = float(np.median(L[:, 0]))
    idx, reached = rcc.level_snapshots(tr, level)
    assert reached[0] == 1.0 and L[idx[0], 0] <= level and np.all(L[:idx[0], 0] > level)
    idx, reached = rcc.level_snapshots(tr, -1.0)                          # never reached: the last one
    assert np.all(reached == 0) and np.all(idx == len(tr.steps) - 1)


def test_prune_at_level_prunes_the_snapshot_network(toy):
    tr, X, y, _ = toy
    level = float(np.median(tr.loss.numpy()))
    out = rcc.prune_at_level((tr, X, y, None), level=level)
    idx, _ = rcc.level_snapshots(tr, level)
    for r in range(2):
        p = tr.params.map(lambda t: t[idx[r], r:r + 1])
        ref = rcc.prune_loss((p, X[r:r + 1], y[r:r + 1], rc.total_norm(p)))
        assert out["dl"][r] == pytest.approx(ref["dl"][0], rel=1e-9, abs=1e-12)
        assert out["step"][r] == tr.steps[idx[r]] and out["loss"][r] <= level
    rnd = torch.rand(2, 40, generator=generator(3))
    assert not np.allclose(rcc.prune_at_level((tr, X, y, rnd), level=level)["dl"], out["dl"])


def test_matched_merge_reaches_the_count_and_is_free_on_split_networks(toy):
    tr, X, y, _ = toy
    p = tr.final.to(F64)
    split = rc.stack_nets([rc.split_all(p.map(lambda t: t[r])) for r in range(2)])   # 80 neurons, 40 exact pairs
    out = rcc.matched_merge(((split, X, y), (p, X, y), (p, X, y)), n_groups=40)
    assert np.all(out["n1"] <= 40) and np.all(np.abs(out["dl1"]) < 1e-8)
    assert np.all(out["n2"] <= 40) and np.all(out["dl2"] == 0)


def test_what_holds_names_every_declared_claim_once():
    from lrlib.paths import chapter_paths

    declared = {d.id for d in load_declarations(chapter_paths("race")[1])}
    named = [i for _, ids in rcc.WHAT_HOLDS for i in ids]
    assert set(named) == declared and len(named) == len(set(named))


def test_growth_law_reads_slope_one_when_balanced_and_one_half_with_w1_frozen():
    data = [rc.xor_clusters(20, generator(r)) for r in range(2)]
    X = torch.stack([d[0] for d in data])
    y = data[0][1].expand(2, -1).clone()
    p = rc.rebalanced(rc.race_init(30, 2, 1e-3, generator(3), runs=(2,), dtype=F64))
    rec = list(range(0, 201, 10))
    both = train(p, X, y, loss=CE, lr=1e-3, steps=200, record=rec)
    w2_only = train(p, X, y, loss=CE, lr=1e-3, steps=200, record=rec, trainable=("W2", "b2"))
    out, frozen = rcc.growth_law((both, X, y), 1e-3), rcc.growth_law((w2_only, X, y), 1e-3)
    np.testing.assert_allclose(out["slope"], 1.0, atol=5e-3)
    np.testing.assert_allclose(frozen["slope"], 0.5, atol=5e-3)
    assert (out["r2"] > 0.999).all() and (out["c"] < 1e-12).all()


def test_statement_verdict_reads_reproduction_tier_rows_only():
    from types import SimpleNamespace as NS

    def res(kind, tier, verdicts, reason=""):
        return NS(decl=NS(kind=kind, reason=reason), rate_verdicts=verdicts, tier=lambda: (tier, ""))

    ok, bad = ["reproduced"] * 5, ["not reproduced"] * 5
    led = NS(results={"a": res("reproduction", "quantitative", ok), "b": res("reproduction", "quantitative", bad),
                      "c": res("consistency", "consistency", ok, "an identity: x"),
                      "prop4.3.frozen-window-gd": res("reproduction", "quantitative", ok)})
    assert rcc.statement_verdict(led, ["a", "c"]).startswith("reproduced (a reproduced 5/5); identities")
    assert rcc.statement_verdict(led, ["a", "b"]).startswith("mixed")
    assert rcc.statement_verdict(led, ["b"]).startswith("not reproduced")
    v = rcc.statement_verdict(led, ["c", "prop4.3.frozen-window-gd"])
    assert v.startswith("not tested as a reproduction") and "extension" in v
    assert len(rcc.graded_statements(led, [("s", ["a"])])) == 1


def test_pooled_agreement_counts_neurons_over_seeds():
    out = rcc.pooled_agreement({"n_ok": [10, 10, float("nan")], "x": [1.0, 0.9, float("nan")]}, ["x"])
    assert out.startswith("x 19/20 (95 % lower bound 0.7")


def test_rank_prediction_leaves_out_dead_neurons():
    g = generator(5)
    cd, a = torch.rand(2, 40, generator=g, dtype=F64), torch.rand(2, 40, generator=g, dtype=F64)
    live = torch.ones(2, 40, dtype=torch.bool)
    live[:, :5] = False
    cd[:, :5], a[:, :5] = 0.0, 0.0                                      # dead: tied at the bottom of both
    out = rcc.rank_prediction((cd, cd, a, live))
    ref = rcc.rank_prediction((cd[:, 5:], cd[:, 5:], a[:, 5:]))
    np.testing.assert_allclose(out["rho0"], ref["rho0"])
    assert out["n_dead"].tolist() == [5.0, 5.0]
    sh = rcc.sharper_prediction([(cd, a, live)] * 3)
    np.testing.assert_allclose(sh["rho1"], ref["rho0"])


def test_prune_compare_is_the_scale_free_cost_of_the_lowest_a_half(toy):
    tr, X, y, _ = toy
    p = tr.final.to(F64)
    out = rcc.prune_compare(((p, X, y), (p, X, y), (p, X, y)))
    ref = rcc.prune_loss((p, X, y, rc.total_norm(p)))
    for r in range(2):
        L = CE(forward(p.map(lambda t: t[r]), X[r]), y[r]).item()
        assert out["L1"][r] == pytest.approx(L, rel=1e-9)
        assert out["g2"][r] == pytest.approx(ref["dl"][r] * L / (math.log(2) - L), rel=1e-9, abs=1e-12)
    assert np.array_equal(out["g1"], out["g3"])


def test_prune_sensitivity_reads_each_level_and_cut(toy):
    tr, X, y, _ = toy
    level = float(np.median(tr.loss.numpy()))
    s = rcc.prune_sensitivity((tr, X, y), levels=(level,), cuts=(0.25, 0.5), level=level)
    assert list(s) == [f"L={level:g}", "cut=0.25", "cut=0.5"]
    assert np.allclose(s["cut=0.5"], rcc.prune_at_level((tr, X, y, None), level=level)["dl"])
    assert not np.allclose(s["cut=0.25"], s["cut=0.5"])


def test_time_rank_correlation_is_one_for_a_rising_path_and_ranks_only():
    path = np.stack([np.arange(6.0) ** 3, -np.arange(6.0), [0, 2, 1, 3, 4, 5]], axis=1)   # (6, 3)
    rho = rcc.time_rank_correlation(path)
    assert rho[0] == pytest.approx(1) and rho[1] == pytest.approx(-1) and 0.9 < rho[2] < 1


def test_window_gate_change_against_a_direct_count(toy):
    tr, X, y, _ = toy
    changed, settled = rcc.window_gate_change(tr, X, 0)
    r = 0
    for a in range(0, 40, 7):
        gaps = [float(rc.target_gap(rc.phi(tr.at(i).map(lambda t: t[r]))[a])) for i in range(len(tr))]
        first = next((i for i, g in enumerate(gaps) if g < math.radians(1)), len(tr) - 1)
        g0 = rc.gating(tr.at(0).map(lambda t: t[r]).to(F64), X[r].double())[a]
        worst = max(float((rc.gating(tr.at(i).map(lambda t: t[r]).to(F64), X[r].double())[a] != g0).double().mean())
                    for i in range(first + 1))
        assert float(changed[r, a]) == pytest.approx(worst)
        assert bool(settled[r, a]) == any(g < math.radians(1) for g in gaps)
    out = rcc.phi_targets((tr, X, y), 0)
    c, s = rcc.window_gate_change(tr, X, 0)
    assert np.allclose(out["changed"], [float(c[r][s[r]].mean()) for r in range(2)]) and "changed_all" in out
