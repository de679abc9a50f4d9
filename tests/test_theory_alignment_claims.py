"""The claim measurements of the alignment chapter (lrlib/theory/alignment/claims.py) against
direct computations with the package's own helpers, on tiny runs."""

import math

import numpy as np
import pytest
import torch

from lrlib.losses import Loss
from lrlib.models import gaussian_init, generator, TwoLayer
from lrlib.theory import alignment as al
from lrlib.theory.alignment import claims as C
from lrlib.train import train
from lrlib.schedules import linear_schedule
from lrlib.measure import drops
from lrlib.ledger import load_declarations
from lrlib.paths import chapter_paths
from lrlib.trajectory import Trajectory

EXP_SUM = Loss("exponential", "sum")


@pytest.fixture(scope="module")
def theory():
    gen = generator(3)
    X, y = al.synthetic_separable(16, 10, 0.3, gen)
    g = al.geometry(X, y)
    p0 = al.balanced_theory_init(50, 10, 1e-24, gen, runs=(2,))
    eta = 0.01 / (g.n * g.X_max)
    steps = int(1.0 / eta)
    traj = train(p0, X, y, loss=EXP_SUM, lr=eta, steps=steps, record=linear_schedule(steps, 10))
    return X, y, g, p0, traj


def test_t1_within_bound_matches_the_helpers(theory):
    X, y, g, p0, traj = theory
    out = C.t1_within_bound(C.TheoryRuns(traj, X, y, p0, 1e-24))
    np.testing.assert_array_equal(out["t1"], al.alignment_times(traj, X, y))
    assert np.allclose(out["T"], al.horizon(g, 50, 1e-24))
    for r in range(2):
        z2 = al.zeta2(p0.W1[r] / 1e-24, torch.sign(p0.a[r]), g)
        assert out["bound"][r] == pytest.approx(al.t1_bound(g, al.zeta(g.zeta1, z2), g.xi_lower))
    # the horizon shrinks with log(1/eps): the control's scale
    big = C.t1_within_bound(C.TheoryRuns(traj, X, y, p0, 1e-2))
    assert (big["T"] < out["T"]).all() and big["T"][0] == pytest.approx(math.log(1 / (math.sqrt(50) * 1e-2)) / (4 * g.n * g.X_max))


def test_low_rank_two_dir_and_initial(theory):
    X, y, _, p0, traj = theory
    out = C.low_rank_two_dir(C.TheoryRuns(traj, X, y, p0, 1e-24))
    viol, sr = al.low_rank_check(traj, p0, 1e-24, al.alignment_times(traj, X, y))
    np.testing.assert_array_equal(out["viol"], viol)
    np.testing.assert_allclose(out["sr_final"], sr)
    init = C.initial(traj)
    assert len(init) == 1 and torch.equal(init.params.W1[0], traj.params.W1[0])
    sr0 = C.low_rank_two_dir(C.TheoryRuns(init, X, y, p0, 1e-24))["sr_final"]
    assert (sr0 > 2).all()          # a random 50 × 10 first layer: stable rank well above 2


def test_lemma15_rate_matches_lemma15_ratio(theory):
    X, y, g, _, _ = theory
    p = TwoLayer(W1=0.1 * torch.randn(2, 50, 10, generator=generator(5), dtype=torch.float64),
                 W2=0.1 * torch.randn(2, 1, 50, generator=generator(6), dtype=torch.float64), act="linear")
    traj = train(p, X, y, loss=EXP_SUM, lr=1e-3, steps=2000, record=50)
    z = (g.x_plus - g.x_minus) / (g.x_plus - g.x_minus).norm()
    gamma = float((y * (X @ z)).min())
    out = C.lemma15_rate(traj, X, y, gamma)
    r, n = al.lemma15_ratio(traj, X, y, gamma)
    np.testing.assert_array_equal(out["ratio"], r)
    np.testing.assert_array_equal(out["n_win"], n)


def _sweep(X, y, act, eps, R=1, steps=8000):
    p1 = al.balanced_theory_init(50, 10, 1.0, generator(9), runs=(R,))
    s = torch.as_tensor(eps).repeat_interleave(R)
    p = TwoLayer(W1=p1.W1.repeat(len(eps), 1, 1) * s[:, None, None], W2=p1.W2.repeat(len(eps), 1, 1) * s[:, None, None], act=act)
    return train(p, X, y, loss=EXP_SUM, lr=1e-3, steps=steps, record=linear_schedule(steps, 20))


def test_eps_t2_log_of_a_linear_network(theory):
    """A balanced linear network grows at rate ‖x₊ − x₋‖: slope × min‖x±‖ = min‖x±‖/‖x₊ − x₋‖."""
    X, y, g, _, _ = theory
    eps = np.array([1e-4, 1e-8, 1e-12])
    out = C.eps_t2_log(C.eps_sweep(_sweep(X, y, "linear", eps), X, y, eps, 1, deviation=False))
    pred = min(g.x_plus.norm().item(), g.x_minus.norm().item()) / (g.x_plus - g.x_minus).norm().item()
    assert out["r2"][0] > 0.999
    assert out["slope_ratio"][0] == pytest.approx(pred, rel=0.05)
    assert out["lo"][0] > 1


def test_eps_lemma1_trend_on_a_known_deviation(theory):
    X, y, g, _, _ = theory
    eps = np.array([1e-4, 1e-8])
    sw = C.eps_sweep(_sweep(X, y, "relu", eps, steps=400), X, y, eps, 1, deviation=False)
    T = len(sw.traj)
    sw.dev = np.tile(np.array([1e-4, 1e-8]) * 3.0, (T, 1))          # (T, E·R): ∝ ε at every snapshot
    out = C.eps_lemma1_trend(sw)
    assert out["slope"][0] == pytest.approx(1.0) and out["mono"][0] == 1 and out["decades"][0] == pytest.approx(4)
    W0 = sw.traj.at(0).norms_in().amax(-1).numpy() / eps
    bound = al.lemma1_bound(g, 50, eps, W0)
    assert out["within"][0] == pytest.approx((3.0 * eps / bound).max())
    # a window ending before the first snapshot after 0 reads the initial snapshot alone
    assert C.eps_lemma1_trend(sw.window(np.zeros((2, 1))))["within"][0] == pytest.approx(out["within"][0])


def test_toy_drops_and_stragglers():
    X, y = al.two_point_data(0.1)
    p = gaussian_init(50, 2, std_in=1e-6, std_out=1e-6, gen=generator(2), runs=(2,))
    traj = train(p, X.expand(2, 2, 2), y, loss=Loss("exponential", "mean"), lr=2e-3, steps=8000,
                 record=np.union1d(linear_schedule(8000, 500), [7000]))
    out = C.toy_drops(traj)
    L = traj.loss.numpy()
    assert out["drops"].tolist() == [len(drops(traj.steps, L[:, r])) for r in range(2)]
    np.testing.assert_allclose(out["final_ratio"], L[-1] / L[0])
    c = C.stragglers(C.TwoPointRuns(traj, X, y))
    np.testing.assert_array_equal(c["c7"], al.live_outside_s_plus(traj.at(traj.index_of_step(7000)), X, y).numpy())
    np.testing.assert_array_equal(c["c21"], al.live_outside_s_plus(traj.final, X, y).numpy())   # 21 000 > the run
    c0 = C.stragglers(C.TwoPointRuns(C.initial(traj), X, y))
    np.testing.assert_array_equal(c0["c7"], al.live_outside_s_plus(traj.at(0), X, y).numpy())


def test_mnist_measurements_read_the_summaries(theory):
    X, y, _, _, _ = theory
    runs = {}
    for k, seed in (("a", 1), ("b", 2)):
        p = gaussian_init(20, 10, std_in=1e-6, std_out=1e-6, gen=generator(seed))
        runs[k] = (X, y, train(p, X, y, loss=Loss("exponential", "mean"), lr=0.05, steps=3000, record=100), 0.01 * seed)
    mr = C.MnistRuns(runs)
    s = [al.mnist_summary(X_, y_, tr) for X_, y_, tr, _ in runs.values()]
    inf = lambda k: math.inf if math.isnan(k) else k   # noqa: E731 -- a crossing that never happens
    assert C.mnist_timescales(mr) == {"k_align": np.array([inf(s[0]["k_align"])]), "k_drop": np.array([inf(s[0]["k_drop"])])}
    assert C.mnist_align_first(mr)["lead"][0] == pytest.approx(min(inf(v["k_drop"]) - inf(v["k_align"]) for v in s))
    assert C.mnist_align_decreases(mr)["decrease"][0] == pytest.approx(min(v["align_drop"] for v in s))
    lr = C.mnist_low_rank(mr)
    assert lr["sr_max"][0] == pytest.approx(max(v["final_stable_rank"] for v in s)) and lr["sr_conv_max"][0] == 0.02
    assert lr["sr_first"][0] == pytest.approx(s[0]["final_stable_rank"]) and lr["sr_conv"][0] == 0.01
    assert mr.summaries[1]["last_iteration"] == 3000


def test_init_probability_matches_the_monte_carlo(theory):
    X, y, g, _, _ = theory
    out = C.init_probability(C.InitDraws(X, y, [4, 5], draws=2000))
    for r, s in enumerate((4, 5)):
        assert (out["p_one"][r], out["p_none"][r]) == al.init_activation_mc(X, y, generator(s), 2000, 4)
    away = -g.x_plus / g.x_plus.norm()
    assert (C.init_probability(C.InitDraws(X, y, [4], draws=2000, bias=away))["p_one"] < -3).all()


def test_never_crossing_is_inf_not_nan():
    mr = C.MnistRuns({})
    mr.__dict__["summaries"] = [dict(k_align=float("nan"), k_drop=11.5)]
    assert C.mnist_timescales(mr) == {"k_align": np.array([math.inf]), "k_drop": np.array([11.5])}
    assert C.mnist_align_first(mr)["lead"][0] == -math.inf


def test_orthogonal_growth_and_refined_alignment(theory):
    X, y, g, p0, traj = theory
    out = C.orthogonal_growth(C.TwoPointRuns(traj, X, y))
    share, ratio = al.growth_outside_s_plus(X, y, traj)
    np.testing.assert_array_equal(out["share"], share)
    assert np.isnan(out["ratio"][share == 0]).all()               # nothing outside S+: undefined, not 0
    ra = C.refined_alignment(C.TheoryRuns(traj, X, y, p0, 1e-24))
    t1 = al.alignment_times(traj, X, y)
    t2pm = al.fitting_times(traj, X, y, per_class=True)
    off = 6 / (math.sqrt(g.mu) * int((y > 0).sum()) * g.X_min)
    cos_min, window = al.refined_alignment_min(traj, X, y, t1, t2pm, off)
    np.testing.assert_allclose(ra["window"], window)
    np.testing.assert_allclose(ra["one_minus_cos"], np.where(window > 0, 1 - cos_min, np.nan))


def test_two_phase_reads_the_peak():
    nc, dc, L = np.array([0.0, 1e-5, 1e-2, 1.0]), np.array([0.0, 5.0, 1.0, 0.1]), np.array([1.0, 1.0, 0.5, 0.1])
    out = C.two_phase(C.SchemeRun(nc, dc, L))
    assert out["ratio"][0] == pytest.approx(1e-5) and out["flat"][0] == 1.0


def test_what_holds_names_only_declared_claims_and_each_once():

    declared = {d.id for d in load_declarations(chapter_paths("alignment")[1])}
    named = [i for _, ids in C.WHAT_HOLDS for i in ids]
    assert set(named) <= declared and len(named) == len(set(named))


def _traj_with_norms(time, wf2):
    """A trajectory of one neuron in R^1 per run whose ‖W‖_F² follows ``wf2`` (T, R)."""
    W1 = torch.as_tensor(np.sqrt(wf2))[..., None, None]                       # (T, R, 1, 1)
    p = TwoLayer(W1=W1, W2=torch.ones(len(time), wf2.shape[1], 1, 1, dtype=torch.float64))
    return Trajectory(steps=np.arange(len(time)), time=np.asarray(time, float), params=p,
                      loss=torch.zeros(len(time), wf2.shape[1], dtype=torch.float64))


def test_norm_growth_slope_one_for_log_growth_zero_for_a_limit():
    t = np.geomspace(1, 1e3, 30)
    tc = np.concatenate([[0.0], np.geomspace(1, 1e15, 40)])
    grow = np.stack([np.log(t), 2 * np.log(t)], -1)
    first = _traj_with_norms(t, np.maximum(grow, 1e-3))
    cont = _traj_with_norms(tc, np.stack([np.log(1e3 + tc), 2 * np.log(1e3 + tc)], -1))
    out = C.norm_growth(C.NormRuns(first, cont, t_min=100.0, fit_last=10))
    np.testing.assert_allclose(out["slope"], [1.0, 1.0], atol=1e-9)
    np.testing.assert_array_equal(out["mono"], [1.0, 1.0])
    np.testing.assert_allclose(out["wf2_end"], [np.log(1e3 + 1e15), 2 * np.log(1e3 + 1e15)], rtol=1e-12)
    flat = _traj_with_norms(t, np.full((30, 2), 3.0))
    out = C.norm_growth(C.NormRuns(flat, flat.head(1), t_min=100.0))
    np.testing.assert_allclose(out["slope"], [0.0, 0.0], atol=1e-12)


def test_lemma11_ratio_direct(theory):
    X, y, g, p0, traj = theory
    out = C.lemma11_ratio(C.TheoryRuns(traj, X, y, p0, 1e-24))["ratio"]
    want = []
    for r in range(2):
        best = math.inf
        for i in range(0, len(traj), 7):
            W = traj.at(i).W1[r]
            for w in W:
                act = (X @ w > 0)
                if act.any():
                    xa = (y[act, None] * X[act]).sum(0).norm().item()
                    best = min(best, xa / (math.sqrt(g.mu) * int(act.sum()) * g.X_min))
        want.append(best)
    assert (out <= np.array(want) + 1e-12).all() and (out >= 1).all()


def test_eps_t2_n_takes_the_worst_n():
    fake = {4: {"slope_ratio": np.array([1.1, 0.9]), "r2": np.array([0.999, 1.0])},
            16: {"slope_ratio": np.array([1.0, 0.7]), "r2": np.array([1.0, 0.98])}}
    orig = C.eps_t2_log
    C.eps_t2_log = lambda s: fake[s]
    try:
        out = C.eps_t2_n({4: 4, 16: 16})
    finally:
        C.eps_t2_log = orig
    assert np.allclose(out["dev"], [0.1, 0.3]) and np.allclose(out["r2_gap"], [0.001, 0.02])
    assert np.allclose(out["ratio_16"], [1.0, 0.7])
