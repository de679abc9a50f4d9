"""Tests for lrlib.theory.race.measure (Pinson 2026): the chapter's measurements on hand-built inputs with known answers (racing statistics, growth-form fits, rule agreement, alignment, per-cluster losses)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.losses import Loss, half_mse
from lrlib.models import TwoLayer, forward, generator
from lrlib.measure import cosine
from lrlib.theory import race as rc
from lrlib.train import train
from race_helpers import polar_net, preact_nonzero, setup_net

F64 = torch.float64
CE = Loss("cross_entropy")
# Thm. 4.1 gives 7π/4 for a neuron gated on x1 only and 3π/4 for one gated on x2 only.
XR, YR = torch.eye(2, dtype=F64), torch.tensor([0, 1])
W_R = torch.tensor([[1.0, -1.0], [1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]], dtype=F64)


def test_cluster_order_groups_blocks():
    v = torch.tensor([[1.0, 0], [0, 1], [1, 0.01], [0.01, 1]], dtype=F64)
    C = cosine(v.unsqueeze(-2), v.unsqueeze(-3)).numpy()
    o = list(rc.cluster_order(C))
    assert sorted(o) == [0, 1, 2, 3]
    assert abs(o.index(0) - o.index(2)) == 1 and abs(o.index(1) - o.index(3)) == 1


def test_racing_statistics():
    from scipy.stats import spearmanr

    g = generator(13)
    u, v = torch.randn(3, 50, generator=g, dtype=F64), torch.randn(3, 50, generator=g, dtype=F64)
    s = rc.spearman(u, v)
    for i in range(3):
        assert s[i].item() == pytest.approx(spearmanr(u[i], v[i]).statistic, abs=1e-12)
    assert rc.spearman(u, 2 * u + 1).min().item() == pytest.approx(1.0)
    a = torch.arange(1.0, 11.0, dtype=F64)
    assert rc.top_share(a, 0.1).item() == pytest.approx(10 / 55)
    assert rc.top_overlap(a, a, 0.2).item() == 1.0
    assert rc.top_overlap(-a, a, 0.2).item() == 0.0


def test_growth_form_fits_recovers_exponential():
    cd = torch.linspace(-0.9, 0.95, 200, dtype=F64)
    a = torch.exp(1.0 + 7.0 * cd)
    f = rc.growth_form_fits(cd, a)
    assert f["slope_exp"] == pytest.approx(7.0) and f["r2_exp"] == pytest.approx(1.0)
    assert f["r2_frozen"] < 1.0


def test_snapshot_stats_target_gap_and_alignment_score():
    p, X, y = setup_net(16, runs=(2,), N=20)
    tr = train(p, X, y, loss=CE, lr=0.05, steps=6, record=[0, 3, 6], progress=False)
    S = rc.snapshot_stats(tr, X, y, [0, 4, 6])
    assert S["step"].tolist() == [0, 3, 6]
    assert torch.allclose(S["cd"][1], rc.cos_delta(tr.at(1), X, y))
    assert torch.allclose(S["a_final"], rc.total_norm(tr.final)) and S["a"].shape == (3, 2, 12)
    ph = torch.tensor([rc.PHI1, rc.PHI2, rc.PHI1 + 0.1, rc.PHI2 - 0.2, math.pi / 4 + 0.3], dtype=F64)
    assert torch.allclose(rc.target_gap(ph), torch.tensor([0, 0, 0.1, 0.2, math.pi / 2 - 0.3], dtype=F64), atol=1e-12)
    U = torch.tensor([[1.0, 0.0], [0.0, 1.0]], dtype=F64)
    W = torch.tensor([[2.0, 0.0], [0.0, -1.0], [1.0, 1.0]], dtype=F64)
    a = torch.tensor([1.0, 1.0, 2.0], dtype=F64)
    assert rc.alignment_score(W, a, U).item() == pytest.approx((1 + 0 + 2 * math.sqrt(0.5)) / 4)


def test_growth_form_fits_tells_power_law_from_exponential():
    cd = torch.linspace(-0.9, 0.95, 200, dtype=F64)
    a = torch.exp(1.0 + 7.0 * cd)
    f = rc.growth_form_fits(cd, a)
    assert f["r2_exp"] > f["r2_pow"]
    a_pow = rc.power_law_like(cd, a)                     # same range and monotonicity, power law
    sel = rc.growth_fit_mask(cd)
    assert a_pow[sel].min() == pytest.approx(a[sel].min().item()) and a_pow[sel].max() == pytest.approx(a[sel].max().item())
    fp = rc.growth_form_fits(cd, torch.as_tensor(a_pow))
    assert fp["r2_pow"] == pytest.approx(1.0) and fp["r2_pow"] > fp["r2_exp"]
    assert fp["r2_exp"] >= 0.8                            # the old rule (R² ≥ 0.8 alone) accepts it
    with pytest.raises(ParameterError):
        rc.growth_form_fits(cd[:2], a[:2])


def test_gate_change_counts_flipped_gates():
    p, X, y = setup_net(21, m=6, D=3, N=10, bias=0.0)
    assert rc.gate_change(p, p, X).item() == 0.0
    q = p.clone()
    q.W1[0] = -q.W1[0]                                     # neuron 0 flips every gate with h ≠ 0
    g0 = rc.gating(p, X)[0]
    assert rc.gate_change(p, q, X).item() == pytest.approx(float(((g0 == 1) | (preact_nonzero(p, X)[0])).sum()) / 60)


def test_shuffled_permutes_within_runs_and_flip_inverts_rule_agreement():
    v = torch.arange(12.0).reshape(2, 6)
    s = rc.shuffled(v, generator(0))
    assert torch.equal(s.sort(-1).values, v)
    p, X, y = setup_net(23, m=8, runs=(2,))
    a, aw = rc.rule_agreement(p, p, X, y, tol=math.pi)      # every neuron "near"; rule vs itself
    fa, _ = rc.rule_agreement(p, p, X, y, tol=math.pi, flip=True)
    assert np.all(np.isfinite(a)) and np.all(fa <= a)


def test_rule_agreement_hand_built():
    P = polar_net(W_R, [0.0] * 4, [0.0] * 4)
    torch.testing.assert_close(rc.phi_star_predicted(P, XR, YR), torch.tensor([rc.PHI1] * 3 + [rc.PHI2], dtype=F64))
    # final: A at 7π/4 (agrees), B at 3π/4 (the rule says 7π/4), C at π/4 (near no target),
    # D at 3π/4 + 0.5° (agrees within 1°); a = ‖w1‖‖w2‖ = √2 × (1, 3, 5, 2)
    s2 = math.sqrt(2)
    fin = polar_net(W_R, [rc.PHI1, rc.PHI2, math.pi / 4, rc.PHI2 + math.radians(0.5)], [1.0, 3.0, 5.0, 2.0])
    by_count, weighted = rc.rule_agreement(P, fin, XR, YR)
    assert by_count == pytest.approx(2 / 3)                   # near: A, B, D; agree: A, D
    assert weighted == pytest.approx((1 + 2) * s2 / ((1 + 3 + 2) * s2))
    by_count, _ = rc.rule_agreement(P, fin, XR, YR, tol=math.radians(0.25))
    assert by_count == pytest.approx(1 / 2)                   # D no longer near
    none = polar_net(W_R, [math.pi / 4] * 4, [1.0] * 4)
    assert np.isnan(rc.rule_agreement(P, none, XR, YR)[0])


def test_rule_agreement_batched_runs():
    P = polar_net(W_R, [0.0] * 4, [0.0] * 4)
    f1 = polar_net(W_R, [rc.PHI1, rc.PHI2, math.pi / 4, rc.PHI2], [1.0, 3.0, 5.0, 2.0])
    f2 = polar_net(W_R, [rc.PHI1] * 3 + [rc.PHI2], [1.0] * 4)

    def stack(a, b):
        return TwoLayer(W1=torch.stack([a.W1, b.W1]), W2=torch.stack([a.W2, b.W2]), b1=torch.stack([a.b1, b.b1]),
                        b2=torch.stack([a.b2, b.b2]))

    by_count, weighted = rc.rule_agreement(stack(P, P), stack(f1, f2), torch.stack([XR, XR]), torch.stack([YR, YR]))
    np.testing.assert_allclose(by_count, [2 / 3, 1.0])
    np.testing.assert_allclose(weighted, [0.5, 1.0])


def test_top_alignment_parallel_and_orthogonal():
    big = torch.tensor([1.0, 0.0, 0.0, 1.0, 0.0], dtype=F64)           # θ = [w1 (2), b, w2 (2)]
    small = 0.1 * torch.tensor([0.0, 1.0, 0.0, 0.0, 1.0], dtype=F64)   # orthogonal to big
    th = torch.stack([2.0 * big, -1.5 * big, 3.0 * big, small])          # a = 4, 2.25, 9, 0.01
    p = TwoLayer(W1=th[:, :2], b1=th[:, 2], W2=th[:, 3:].T.contiguous(), b2=torch.zeros(2, dtype=F64))
    assert float(rc.top_alignment(p, n_top=3)) == pytest.approx(1.0)    # antiparallel counts as |cos| = 1
    assert float(rc.top_alignment(p, n_top=4)) == pytest.approx(6 / 12)  # 6 of the 12 off-diagonal pairs are 1
    batched = TwoLayer(W1=p.W1.expand(2, -1, -1), b1=p.b1.expand(2, -1), W2=p.W2.expand(2, -1, -1), b2=p.b2.expand(2, -1))
    np.testing.assert_allclose(rc.top_alignment(batched, n_top=4).numpy(), [0.5, 0.5])
    with pytest.raises(ParameterError):
        rc.top_alignment(p, n_top=1)
    with pytest.raises(ParameterError):
        rc.top_alignment(p, n_top=5)


def test_median_at():
    v = torch.tensor([[5.0, 1.0, 3.0, 2.0], [0.0, 4.0, 8.0, 6.0]])
    np.testing.assert_array_equal(rc.median_at(v, torch.tensor([[0, 2, 3], [1, 2, 3]])).numpy(), [3.0, 6.0])
    assert float(rc.median_at(v[:1], torch.tensor([[0, 1]]))) == 1.0     # even count: the lower median


def test_appendix_g_check_finds_aligned_neurons_with_negative_derivative_and_control_positive():
    from lrlib.data import cifar_race

    X, y = cifar_race(50, 0)[:2]
    X = X.double()
    meas, ctl = rc.appendix_g_check(rc.race_init(40, 1024, 1e-4, generator(1), dtype=F64), X, y, n_want=2)
    assert meas["n"] == 2 and meas["cos_min"] > 0.99
    assert meas["neg"] == 1 and meas["dev"] < 0.05
    assert ctl["neg"] == 0
    with pytest.raises(ParameterError):
        rc.appendix_g_check(rc.race_init(3, 2, 1.0, generator(0), runs=(2,)), X, y)
    g = generator(11)
    Xt, yt, _ = rc.xor_clusters(25, g)
    with pytest.raises(ParameterError, match="no neuron settled"):
        rc.appendix_g_check(rc.race_init(5, 2, 1e-3, g, dtype=F64), Xt, yt, n_want=1, min_samples=1000)


def test_conservation_drifts_zero_for_a_constant_trajectory_and_see_a_bias_change():
    p, _, _ = setup_net(5, runs=(2,))
    P = p.map(lambda t: torch.stack([t, t]))                                  # (T=2, R=2, ...)
    ok, paper = rc.conservation_drifts(P)
    assert ok.shape == (2,) and np.all(ok == 0) and np.all(paper == 0)
    q = p.clone()
    q.b1 = q.b1 + 0.1
    ok, paper = rc.conservation_drifts(TwoLayer(**{k: torch.stack([getattr(p, k), getattr(q, k)]) for k in ("W1", "W2", "b1", "b2")}))
    assert np.all(ok > 0) and np.all(paper == 0)


def test_rising_share_and_top_cos_delta_path():
    np.testing.assert_allclose(rc.rising_share(np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 0.5]])), [1.0, 0.5])
    with pytest.raises(ParameterError):
        rc.rising_share(np.zeros((1, 2)))
    X, y, _ = rc.xor_clusters(10, generator(2))
    p = rc.race_init(6, 2, 1e-3, generator(3), runs=(2,), dtype=F64)
    tr = train(p, X.expand(2, -1, -1), y.expand(2, -1), loss=CE, lr=0.05, steps=40, record=[0, 10, 20, 40])
    steps, path = rc.top_cos_delta_path(tr, X, y, t_max=20, n_top=3)
    np.testing.assert_array_equal(steps, [0, 10, 20])
    assert path.shape == (3, 2) and np.all(np.abs(path) <= 1)
    top = torch.topk(rc.total_norm(tr.final), 3, -1).indices
    want = rc.cos_delta(tr.at(1), X, y).gather(-1, top).mean(-1).numpy()
    np.testing.assert_allclose(path[1], want)


def test_cluster_losses_equal_the_loss_on_each_cluster():
    X, y, cl = rc.xor_clusters(10, generator(1))
    p = rc.race_init(8, 2, 0.5, generator(2), dtype=torch.float64)
    Lk = rc.cluster_losses(p, X, y, cl, CE)
    assert Lk.shape == (4,)
    for k in range(4):
        assert float(Lk[k]) == pytest.approx(float(CE(forward(p, X[cl == k]), y[cl == k])))


def test_cluster_losses_take_batched_inputs_and_vector_targets():
    X, y, cl = rc.xor_clusters(5, generator(1))
    Y = torch.nn.functional.one_hot(y, 2).to(X.dtype)                        # (N, 2) targets
    p = rc.race_init(8, 2, 0.5, generator(2), runs=(3,), dtype=torch.float64)
    Lk = rc.cluster_losses(p, X.expand(3, -1, -1), Y.expand(3, -1, -1), cl, half_mse())
    assert Lk.shape == (3, 4)
    per_point = 0.5 * ((forward(p, X) - Y) ** 2).sum(-1)                       # (3, N)
    for k in range(4):
        torch.testing.assert_close(Lk[:, k], per_point[:, cl == k].mean(-1), rtol=1e-14, atol=0)
    with pytest.raises(ParameterError):
        rc.cluster_losses(p, X, Y, cl[:-1], half_mse())


def test_lazy_scores_and_centroids():
    U = rc.centroid_directions(F64)
    assert U.shape == (4, 2) and torch.allclose(U.norm(dim=-1), torch.ones(4, dtype=F64))
    W1 = torch.cat([U.repeat(3, 1), torch.randn(12, 2, generator=generator(0), dtype=F64)])   # run 0 aligned
    W1 = torch.stack([W1[:12], W1[:12], W1[12:], W1[12:]])
    p = TwoLayer(W1=W1, W2=torch.ones(4, 2, 12, dtype=F64), b1=torch.zeros(4, 12, dtype=F64), b2=torch.zeros(4, 2, dtype=F64))
    score, targets = rc.lazy_scores(p, U)
    assert score.shape == (4,) and targets.shape == (4, 2)
    assert torch.allclose(score[:2], torch.ones(2, dtype=F64)) and (score[2:] < 1).all()


def test_masked_share_counts_only_the_neurons_that_count():
    hit = torch.tensor([[True, False, True, True], [True, True, False, False]])
    ok = torch.tensor([[True, True, True, False], [False, False, False, False]])
    out = rc.masked_share(hit, ok)
    assert out.dtype == torch.float64
    assert float(out[0]) == pytest.approx(2 / 3) and math.isnan(float(out[1]))
