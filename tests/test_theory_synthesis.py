"""Tests for lrlib.theory.synthesis: the cross-paper bridges, and the chapter's measurements (the AGF-vs-GD
jump table and the alignment paper's lens on a race network) on hand-built inputs with known answers."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.losses import Loss
from lrlib.models import TwoLayer, forward, generator
from lrlib.theory import alignment as al
from lrlib.theory import race as rc
from lrlib.theory import synthesis as sy
from lrlib.trajectory import Trajectory

F64 = torch.float64


def _race_net(gen, m=7, D=5, std=0.3):
    p = rc.race_init(m, D, std, gen, dtype=F64)
    return TwoLayer(W1=p.W1, W2=p.W2, b1=0.1 * torch.randn(m, generator=gen, dtype=F64),
                    b2=0.2 * torch.randn(2, generator=gen, dtype=F64))


def test_pm_labels_and_bad_labels():
    assert sy.pm_labels(torch.tensor([0, 1, 1])).tolist() == [-1.0, 1.0, 1.0]
    with pytest.raises(ParameterError):
        sy.pm_labels(torch.tensor([0, 2]))


def test_cross_entropy_is_logistic_loss_of_logit_difference():
    gen = generator(3)
    p = _race_net(gen)
    X = torch.randn(11, 5, generator=gen, dtype=F64)
    y = torch.randint(0, 2, (11,), generator=gen)
    ce = Loss("cross_entropy")(forward(p, X), y)
    z = forward(sy.logit_difference(p), X)[:, 0]
    logistic = torch.nn.functional.softplus(-sy.pm_labels(y) * z).mean()
    assert abs(float(ce - logistic)) < 1e-14
    with pytest.raises(ParameterError):
        sy.logit_difference(TwoLayer(W1=p.W1, W2=p.W2[:1], act="relu"))


def test_race_gamma_equals_its_alignment_form_exactly():
    gen = generator(4)
    p = _race_net(gen)
    X = torch.randn(13, 5, generator=gen, dtype=F64)
    y = torch.randint(0, 2, (13,), generator=gen)
    torch.testing.assert_close(sy.race_gamma_from_alignment(p, X, y), rc.gamma(p, X, y), rtol=1e-12, atol=1e-14)


def test_race_gamma_is_signed_active_sum_at_small_init():
    gen = generator(5)
    p = rc.race_init(9, 4, 1e-6, gen, dtype=F64)
    X = torch.randn(17, 4, generator=gen, dtype=F64)
    y = torch.randint(0, 2, (17,), generator=gen)
    q = sy.logit_difference(p)
    v = q.W2[0]
    xa = al.signed_active_sum(p.W1, X, sy.pm_labels(y))
    expected = (v / torch.linalg.vector_norm(p.W2, dim=0) / (2 * X.shape[0])).unsqueeze(-1) * xa
    torch.testing.assert_close(rc.gamma(p, X, y), expected, rtol=1e-5, atol=1e-12)


# ---------------------------------------------------------------------------
# the chapter's measurements: the alignment lens and the AGF-vs-GD jump table
# ---------------------------------------------------------------------------

E = torch.eye(4, dtype=F64)


def _net(W1, v, scale=None):
    """Two-output race network with first layer ``W1 (m, D)`` and logit difference ``v (m,)``
    (``W2[1] = v/2``, ``W2[0] = −v/2``), no biases."""
    v = torch.as_tensor(v, dtype=F64)
    return TwoLayer(W1=W1.to(F64), W2=torch.stack([-v / 2, v / 2]), b1=torch.zeros(W1.shape[0], dtype=F64),
                    b2=torch.zeros(2, dtype=F64))


# X = e1..e4 with labels 1, 1, 0, 0, i.e. y = +1, +1, −1, −1: x_a(w) = Σ_{active} y_i x_i
X4, Y4 = E.clone(), torch.tensor([1, 1, 0, 0])
W_HAND = torch.stack([E[0] + E[1], E[2] + E[3], E[0] + E[2]])
V_HAND = [1.0, 1.0, -1.0]


def test_alignment_lens_hand_built_network():
    # neuron 1: active on the two positives, v > 0: S₊ (in its cone), x_a = e1 + e2 = w → cos 1
    # neuron 2: active on the two negatives, v > 0: S₋ (wrong cone), sign(v) x_a = −(e3 + e4) → cos −1
    # neuron 3: active on x1 (+) and x3 (−), v < 0: neither cone, sign(v) x_a = −e1 + e3 ⟂ w → cos 0
    q, c = sy.alignment_lens(_net(W_HAND, V_HAND), X4, Y4)
    torch.testing.assert_close(c, torch.tensor([1.0, -1.0, 0.0], dtype=F64), rtol=0, atol=1e-15)
    assert q["in_cone"] == pytest.approx(1 / 3)
    assert q["cos_all"] == pytest.approx(0.0, abs=1e-15)
    # W Wᵀ = 2I + B with eig(B) = ±√2, 0: ‖W‖_F² = 6, ‖W‖_2² = 2 + √2
    assert q["stable_rank"] == pytest.approx(6 / (2 + math.sqrt(2)), rel=1e-12)


def test_alignment_lens_mirror_and_dead_neurons():
    # v < 0 on the negatives is in S₋ (its cone) with cos +1; a dead neuron is in S_dead (in its cone)
    W = torch.stack([E[2] + E[3], -(E[0] + E[1] + E[2] + E[3])])
    q, c = sy.alignment_lens(_net(W, [-1.0, 1.0]), X4, Y4)
    assert q["in_cone"] == 1.0
    assert float(c[0]) == pytest.approx(1.0, abs=1e-15)
    assert float(c[1]) == 0.0                         # x_a = 0 for a neuron active on no point: cosine 0


def test_alignment_lens_rank_one_first_layer():
    g = torch.Generator().manual_seed(0)
    u, w = torch.randn(9, 1, generator=g, dtype=F64), torch.randn(1, 6, generator=g, dtype=F64)
    X = torch.randn(15, 6, generator=g, dtype=F64)
    y = torch.randint(0, 2, (15,), generator=g)
    q, _ = sy.alignment_lens(_net(u @ w, torch.randn(9, generator=g, dtype=F64)), X, y)
    assert q["stable_rank"] == pytest.approx(1.0, abs=1e-12)


def test_alignment_lens_bad_inputs():
    p = _net(W_HAND, V_HAND)
    batched = TwoLayer(W1=p.W1.expand(2, -1, -1), W2=p.W2.expand(2, -1, -1))
    with pytest.raises(ParameterError):
        sy.alignment_lens(batched, X4, Y4)
    with pytest.raises(ParameterError):
        sy.alignment_lens(p, X4[:, :3], Y4)
    with pytest.raises(ParameterError):
        sy.alignment_lens(p, X4, Y4[:3])
    with pytest.raises(ParameterError):
        sy.alignment_lens(p, X4, torch.tensor([1, 2, 0, 0]))
    with pytest.raises(ParameterError):          # one output: not a race network
        sy.alignment_lens(TwoLayer(W1=p.W1, W2=p.W2[:1]), X4, Y4)


def _staircase():
    t = np.linspace(0.0, 10.0, 21)                               # knots on the grid: interpolation is exact
    loss = np.interp(t, [0, 2, 4, 6, 8, 10], [1.0, 1.0, 0.4, 0.4, 0.0, 0.0])
    return t, loss                                               # crosses 0.7 at t = 3 and 0.2 at t = 7


def test_agf_vs_gd_jumps_known_relative_errors():
    t, loss = _staircase()
    rows = sy.agf_vs_gd_jumps(t, loss, np.array([0.0, 2.5, 7.7]), np.array([1.0, 0.4, 0.0]), (3.3, 6.3), tol=0.2)
    assert [r["jump"] for r in rows] == [1, 2]
    assert list(rows[0]) == ["jump", "gd", "agf", "leading", "err_agf", "err_leading", "tol", "n_jumps", "level", "gd_level"]
    np.testing.assert_allclose([r["gd"] for r in rows], [3.0, 7.0], rtol=1e-12)
    np.testing.assert_allclose([r["err_agf"] for r in rows], [0.5 / 3, 0.7 / 7], rtol=1e-12)
    np.testing.assert_allclose([r["err_leading"] for r in rows], [0.3 / 3, 0.7 / 7], rtol=1e-12)
    assert [r["level"] for r in rows] == [0.4, 0.0]
    assert [r["n_jumps"] for r in rows] == [2, 2] and [r["tol"] for r in rows] == [0.2, 0.2]
    assert rows[0]["gd_level"] == pytest.approx(0.4)             # GD loss at t = (3 + 7)/2
    assert np.isnan(rows[1]["gd_level"])


def test_agf_vs_gd_jumps_row_count_and_errors():
    t, loss = _staircase()
    tau3, lv3 = np.array([0.0, 2.5, 7.7, 9.0]), np.array([1.0, 0.4, 0.0, 0.0])
    assert len(sy.agf_vs_gd_jumps(t, loss, tau3, lv3, (3.0, 7.0), tol=0.1)) == 2      # rows: min(K, len(reference))
    assert len(sy.agf_vs_gd_jumps(t, loss, tau3, lv3, (3.0,), tol=0.1)) == 1
    with pytest.raises(ParameterError):          # one jump: no level between two drops
        sy.agf_vs_gd_jumps(t, loss, np.array([0.0, 2.5]), np.array([1.0, 0.4]), (3.0, 7.0), tol=0.1)
    with pytest.raises(ParameterError):
        sy.agf_vs_gd_jumps(t, loss, np.array([0.0, 2.5, 7.7]), np.array([1.0, 0.4]), (3.0, 7.0), tol=0.1)


def test_plateau_end():
    assert sy.plateau_end(np.array([0.7, 0.69, 0.7, 0.5, 0.69, 0.2]), 0.69) == 4
    with pytest.raises(ParameterError):
        sy.plateau_end(np.array([0.5, 0.4]), 0.69)


def test_alignment_lens_rows_on_a_hand_made_trajectory():
    # three snapshots of the hand-built network, scaled; the final a = ‖w1‖‖w2‖ is largest for neuron 1
    scales = torch.tensor([[1e-3] * 3, [1e-2] * 3, [3.0, 1.0, 1.0]], dtype=F64)       # (T, m)
    nets = [_net(W_HAND * s.unsqueeze(-1), torch.tensor(V_HAND, dtype=F64) * s) for s in scales]
    params = TwoLayer(W1=torch.stack([n.W1 for n in nets]), W2=torch.stack([n.W2 for n in nets]),
                      b1=torch.stack([n.b1 for n in nets]), b2=torch.stack([n.b2 for n in nets]))
    loss = torch.tensor([0.6931, 0.6900, 0.3], dtype=F64)
    tr = Trajectory(steps=np.array([0, 10, 20]), time=np.array([0.0, 1.0, 2.0]), params=params, loss=loss)
    rows = sy.alignment_lens_rows(tr, X4, Y4, plateau_level=0.99 * math.log(2))
    assert [r["when"] for r in rows] == ["init", "end of plateau", "final"]
    assert [r["step"] for r in rows] == [0, 10, 20]                 # 0.6900 ≥ 0.99 ln 2 = 0.6862
    np.testing.assert_allclose([r["loss"] for r in rows], loss.numpy())
    assert all(r["cos_winners"] == pytest.approx(1.0) for r in rows)   # the winner is neuron 1 (cos 1)
    assert all(r["in_cone"] == pytest.approx(1 / 3) for r in rows)
    series = sy.alignment_lens_series(tr, X4, Y4)
    assert [r["step"] for r in series] == [0, 10, 20]
    assert series[1] == dict(step=10, **sy.alignment_lens(tr.at(1), X4, Y4)[0])


def test_separable_pairs_satisfy_assumption_1_on_x_1():
    X, y = sy.separable_pairs(10, 5, generator(3))
    assert X.shape == (20, 5) and X.dtype == torch.float32 and y.tolist() == [0, 1] * 10
    assert sy.claims.data_mu((X[None], y[None]))["mu"][0] > 0
    assert (torch.sign(X[:, 0]) == 2 * y - 1).all()


# ---------------------------------------------------------------------------
# part 3: AGF on the race paper's XOR toy
# ---------------------------------------------------------------------------

def test_xor_task_shapes_targets_and_constant_input():
    Xa, Y, cl = sy.xor_task(3, generator(0))
    assert Xa.shape == (12, 3) and Y.shape == (12, 2) and cl.tolist() == [0] * 3 + [1] * 3 + [2] * 3 + [3] * 3
    assert bool((Xa[:, 2] == 1).all()) and Xa.dtype == F64
    torch.testing.assert_close(Y[cl == 0], torch.tensor([[0.5, -0.5]] * 3, dtype=F64))   # label 0
    torch.testing.assert_close(Y[cl == 1], torch.tensor([[-0.5, 0.5]] * 3, dtype=F64))   # label 1


def test_homogeneous_race_net_is_the_race_network():
    gen = generator(1)
    p = rc.race_init(6, 2, 0.3, gen, dtype=F64)
    p = TwoLayer(W1=p.W1, W2=p.W2, b1=0.1 * torch.randn(6, generator=gen, dtype=F64), b2=p.b2)
    X, _, _ = rc.xor_clusters(4, gen)
    q = sy.homogeneous_race_net(p)
    assert q.b1 is None and q.b2 is None and q.W1.shape == (6, 3)
    torch.testing.assert_close(forward(q, torch.cat([X, torch.ones(16, 1, dtype=F64)], -1)), forward(p, X))
    with pytest.raises(ParameterError):
        sy.homogeneous_race_net(TwoLayer(W1=p.W1, W2=p.W2, b1=p.b1, b2=p.b2 + 1))
    with pytest.raises(ParameterError):
        sy.homogeneous_race_net(TwoLayer(W1=p.W1, W2=p.W2))


def test_square_loss_on_centred_targets_has_the_cross_entropy_gradient_at_zero():
    Xa, Y, cl = sy.xor_task(5, generator(2))
    y = (Y[:, 1] > 0).long()
    f = torch.zeros(20, 2, dtype=F64, requires_grad=True)
    (g_sq,) = torch.autograd.grad(Loss("square", "mean", 0.5)(f, Y), f)
    (g_ce,) = torch.autograd.grad(Loss("cross_entropy")(f, y), f)
    torch.testing.assert_close(g_sq, g_ce, rtol=0, atol=1e-15)


def test_cluster_losses_and_neuron_clusters_on_a_hand_built_network():
    Xa, Y, cl = sy.xor_task(4, generator(3), std=0.0)
    # neuron 0 points at cluster 0 (45°) and outputs its target exactly at the centroid; neuron 1 is dead
    c0 = Xa[0, :2]
    w = torch.cat([c0 / c0.norm() ** 2, torch.zeros(1, dtype=F64)])                 # w · x̃ = 1 on cluster 0
    p = TwoLayer(W1=torch.stack([w, -torch.tensor([0, 0, 1.0], dtype=F64)]), W2=torch.tensor([[0.5, 0], [-0.5, 0]], dtype=F64))
    L = sy.cluster_losses(p, Xa, Y, cl)
    torch.testing.assert_close(L, torch.tensor([0.0, 0.25, 0.25, 0.25], dtype=F64), rtol=0, atol=1e-15)
    assert sy.neuron_clusters(p.W1, Xa, cl).tolist() == [0, -1]
    batched = TwoLayer(W1=p.W1.expand(3, 2, 2, 3), W2=p.W2.expand(3, 2, 2, 2))           # leading dims pass through
    assert sy.cluster_losses(batched, Xa, Y, cl).shape == (3, 2, 4)
    with pytest.raises(ParameterError):
        sy.cluster_losses(p, Xa, Y, cl[:-1])


class _Run:
    """A stand-in for an AGFRun: jump times, activated neurons and the active nets."""

    def __init__(self, tau, order, nets):
        self.tau, self.order, self.nets = np.asarray(tau, dtype=float), order, nets


def _xor_staircase():
    Xa, Y, cl = sy.xor_task(4, generator(5), std=0.0)
    W = torch.stack([torch.cat([Xa[4 * c, :2] / Xa[4 * c, :2].norm() ** 2, torch.zeros(1, dtype=F64)]) for c in range(4)])
    A = torch.stack([Y[4 * c] for c in range(4)]).T                                  # (2, 4): neuron c fits cluster c
    nets = [TwoLayer(W1=W * (torch.arange(4) < k).unsqueeze(-1), W2=A * (torch.arange(4) < k)) for k in range(5)]
    return Xa, Y, cl, nets


def test_xor_agf_vs_gd_known_order_and_errors():
    Xa, Y, cl, nets = _xor_staircase()
    # jumps fit clusters 0, 1, 2, 3 at τ = 1, 2, 3, 4; GD's per-cluster losses (0.25 → 0) cross 0.125 at 1.1, 2.2, 3.3, 4.4
    t = np.linspace(0, 10, 1001)
    closs = np.stack([np.interp(t, [0, 1.1 * (c + 1) - 0.1, 1.1 * (c + 1) + 0.1, 10], [0.25, 0.25, 0.0, 0.0]) for c in range(4)], -1)
    rows, ok = sy.xor_agf_vs_gd(t, closs, _Run([0, 1, 2, 3, 4], [[0], [1], [2], [3]], nets), Xa, Y, cl)
    assert ok
    assert [r["jump"] for r in rows] == [1, 2, 3, 4]
    np.testing.assert_allclose([r["gd"] for r in rows], [1.1, 2.2, 3.3, 4.4], rtol=1e-9)
    np.testing.assert_allclose([r["err"] for r in rows], [0.1 / 1.1] * 4, rtol=1e-9)
    # GD fits clusters 1 and 0 in the other order: the order fails, the times are still read
    rows, ok = sy.xor_agf_vs_gd(t, closs[:, [1, 0, 2, 3]], _Run([0, 1, 2, 3, 4], [[0], [1], [2], [3]], nets), Xa, Y, cl)
    assert not ok and np.isfinite([r["gd"] for r in rows]).all()


def test_xor_agf_vs_gd_multi_cluster_jump_and_invalid_run():
    Xa, Y, cl, nets = _xor_staircase()
    t = np.linspace(0, 10, 101)
    closs = np.tile(np.linspace(0.25, 0.0, 101)[:, None], (1, 4))
    two = [nets[0], nets[2], nets[4]]                                               # two clusters per jump
    rows, ok = sy.xor_agf_vs_gd(t, closs, _Run([0, 1, 2], [[0, 1], [2, 3]], two), Xa, Y, cl)
    assert not ok and [r["jump"] for r in rows] == [1, 1, 2, 2]
    rows, ok = sy.xor_agf_vs_gd(t, closs, _Run([0, -3.0, -3.0], [[0], [1]], nets[:3]), Xa, Y, cl)  # norms ≥ 1 at the start
    assert not ok and all(np.isnan(r["agf"]) for r in rows)
    with pytest.raises(ParameterError):
        sy.xor_agf_vs_gd(t, closs[:, :3], _Run([0, 1], [[0]], nets[:2]), Xa, Y, cl)


def test_level_deviation_reads_the_plateau_between_s_extremes():
    from lrlib.measure import plateau_between
    t = np.linspace(0, 10, 1001)
    p = plateau_between(t, 10.0 - t, np.array([2.0, 6.0, np.nan]))      # window [3, 5]: level 6, low 5, high 7
    np.testing.assert_allclose(p.level[0], 6.0)
    dev = sy.level_deviation(p, [6.0, 1.0])
    np.testing.assert_allclose(dev[0], 1 / 6)
    assert np.isnan(dev[1])


def test_swap_first_two_is_a_wrong_prediction_the_rule_sees():
    Xa, Y, cl, nets = _xor_staircase()
    t = np.linspace(0, 10, 1001)
    closs = np.stack([np.interp(t, [0, 1.1 * (c + 1) - 0.1, 1.1 * (c + 1) + 0.1, 10], [0.25, 0.25, 0.0, 0.0]) for c in range(4)], -1)
    rows, ok = sy.xor_agf_vs_gd(t, closs, _Run([0, 1, 2, 3, 4], [[0], [1], [2], [3]], nets), Xa, Y, cl)
    swapped, ok2 = sy.swap_first_two(rows)
    assert ok and not ok2
    assert [r["jump"] for r in swapped] == [2, 1, 3, 4] and [r["agf"] for r in swapped][:2] == [2.0, 1.0]
    np.testing.assert_allclose([r["err"] for r in swapped], [0.9 / 1.1, 1.2 / 2.2, 0.1 / 1.1, 0.1 / 1.1], rtol=1e-9)
    assert [r["jump"] for r in rows] == [1, 2, 3, 4]                       # the input rows are not modified


def test_xor_variant_data_keeps_sizes_and_norms_per_cluster():
    X, Y, cl = sy.xor_variant_data([3, 1, 2, 4], [4.0, 3.0, 2.0, 1.0], [generator(0), generator(1)])
    assert X.shape == (2, 10, 3) and Y.shape == (2, 10, 2) and cl.shape == (10,)
    assert [int((cl == c).sum()) for c in range(4)] == [3, 1, 2, 4]
    assert not torch.equal(X[0], X[1])                                    # a fresh draw per seed
    centre = torch.stack([X[0, cl == c, :2].mean(0).norm() for c in range(4)])
    assert torch.allclose(centre, torch.tensor([4.0, 3.0, 2.0, 1.0], dtype=X.dtype), atol=0.3)


def test_xor_agf_runs_is_xor_agf_per_run(monkeypatch):
    import lrlib.theory.synthesis.xor as xm
    monkeypatch.setattr(xm, "xor_agf", lambda net, X, Y, **kw: (net.W1.clone(), X.shape, kw["tau_max"]))
    p = TwoLayer(W1=torch.randn(3, 4, 3, dtype=torch.float64), W2=torch.randn(3, 2, 4, dtype=torch.float64))
    out = xm.xor_agf_runs(p, torch.zeros(3, 5, 3), torch.zeros(3, 5, 2), tau_max=7.0)
    assert len(out) == 3 and all(torch.equal(o[0], p.W1[r]) and o[2] == 7.0 for r, o in enumerate(out))
