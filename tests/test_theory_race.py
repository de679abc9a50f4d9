"""Tests for lrlib.theory.race (Pinson 2026): the per-neuron gradient identities (eqs. 4–8, 66)
against autograd in float64, eq. 15, Theorem 4.1's drive, the conserved quantity with the bias,
the growth rates of a, App. G, merging, and the racing statistics; plus the optimiser facts the
chapter relies on (PyTorch SGD momentum, epochs without replacement, batched runs); and the chapter's
measurements on hand-built inputs with known answers."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.losses import Loss
from lrlib.models import TwoLayer, forward, generator
from lrlib.measure import cosine
from lrlib.theory import race as rc
from lrlib.train import train

F64 = torch.float64
CE = Loss("cross_entropy")


def _setup(seed=0, m=12, D=5, N=30, std=0.5, bias=0.3, runs=()):
    g = generator(seed)
    X = torch.randn(*runs, N, D, generator=g, dtype=F64)
    y = torch.randint(0, 2, (*runs, N), generator=g)
    p = rc.race_init(m, D, std, g, runs=runs, dtype=F64)
    p.b1 = bias * torch.randn(p.b1.shape, generator=g, dtype=F64)
    p.b2 = 0.2 * torch.randn(p.b2.shape, generator=g, dtype=F64)
    return p, X, y


@pytest.mark.parametrize("seed,runs", [(0, ()), (1, ()), (2, (3,))])
def test_polar_gradients_match_autograd(seed, runs):
    p, X, y = _setup(seed, runs=runs)
    f, a = rc.polar_gradients(p, X, y), rc.autograd_polar(p, X, y)
    for k in ("dphi", "dnorm2", "dnorm1", "dtheta", "db", "dw1"):
        scale = a[k].abs().max()
        assert scale > 1e-6, k
        assert (f[k] - a[k]).abs().max() <= 1e-12 * max(1.0, float(scale)), k


def test_eq17_needs_zero_bias():
    p, X, y = _setup(3, bias=0.0)
    g = rc.polar_gradients(p, X, y)
    gam = rc.gamma(p, X, y)
    eq17 = -p.norms_in(with_bias=False) * gam.norm(dim=-1) * rc.cos_delta(p, X, y)
    assert torch.allclose(g["dnorm2"], eq17, atol=1e-14, rtol=1e-12)
    p.b1 = 0.3 * torch.ones_like(p.b1)                   # with a bias eq. 17 is no longer exact
    g = rc.polar_gradients(p, X, y)
    eq17 = -p.norms_in(with_bias=False) * rc.gamma(p, X, y).norm(dim=-1) * rc.cos_delta(p, X, y)
    assert (g["dnorm2"] - eq17).abs().max() > 1e-6


def test_error_vector_angles_are_fixed():
    p, X, y = _setup(4)
    dy = rc.error_vectors(p, X, y)
    ang = torch.remainder(torch.atan2(dy[:, 1], dy[:, 0]), 2 * math.pi)
    want = torch.where(y == 0, torch.full_like(ang, rc.PHI1), torch.full_like(ang, rc.PHI2))
    assert (ang - want).abs().max() < 1e-12


def test_eq15_ratio_is_exact():
    p, X, y = _setup(5, m=200)
    r, pred = rc.phi_ratio(p, X, y)
    keep = torch.cos(rc.PHI2 - rc.phi(p)).abs() > 0.05
    assert keep.sum() > 100
    assert ((r / pred - 1)[keep]).abs().max() < 1e-10


def test_theorem41_drive_equals_minus_dphi():
    p, X, y = _setup(6)
    assert torch.allclose(rc.phi_drive(p, X, y), -rc.polar_gradients(p, X, y)["dphi"], atol=1e-14, rtol=1e-12)


def test_phi_star_prediction_for_frozen_incoming_weights():
    g = generator(7)
    X, y, _ = rc.xor_clusters(20, g)
    p = rc.race_init(40, 2, 0.5, g, dtype=F64)
    p.W2 = 1e-4 * p.W2                                    # w2·(1,1) is conserved: start it small
    tr = train(p, X, y, loss=CE, lr=0.05, steps=4000, trainable=("W2",), record=[0, 4000], progress=False)
    fin = tr.final
    gap = rc.angle_gap(rc.phi(fin), rc.phi_star_predicted(fin, X, y))
    assert gap.abs().max() < math.radians(1)
    s = tr.params.W2.sum(-2)                              # the (1, 1) component of every w2 never moves
    assert torch.allclose(s[1], s[0], atol=1e-15)


def test_gamma_parallel_to_m1_when_error_norm_constant():
    p, X, y = _setup(8, std=1e-5, bias=0.0)
    p.b2 = torch.zeros_like(p.b2)
    c = cosine(rc.gamma(p, X, y), rc.target_m1(p, X, y)).abs()
    assert c.min() > 0.9999


def test_conserved_quantity_needs_bias_term():
    g = generator(9)
    X, y, _ = rc.xor_clusters(20, g)
    p = rc.race_init(30, 2, 0.3, g, dtype=F64)
    tr = train(p, X, y, loss=CE, lr=1e-3, steps=3000, record=[0, 3000], progress=False)
    c_ok, c_paper = rc.conserved(tr.params)
    a_max = rc.total_norm(tr.final).max()
    drift_ok = (c_ok[1] - c_ok[0]).abs().max() / a_max
    drift_paper = (c_paper[1] - c_paper[0]).abs().max() / a_max
    assert drift_ok < 0.05 * drift_paper and drift_ok < 1e-3
    assert drift_paper > 1e-3


def test_growth_rate_exact_and_factor_two():
    g = generator(10)
    X, y, _ = rc.xor_clusters(20, g)
    p = rc.race_init(30, 2, 1e-3, g, dtype=F64)
    p.W2 = p.W1[:, :2].T.norm(dim=0, keepdim=True) * torch.tensor([[1.0], [-1.0]], dtype=F64) / math.sqrt(2)
    lr = 1e-6
    tr = train(p, X, y, loss=CE, lr=lr, steps=1, record=[0, 1], trainable=("W1", "W2"), progress=False)
    da = (rc.total_norm(tr.at(1)) - rc.total_norm(tr.at(0))) / lr
    r = rc.growth_rates(p, X, y)
    assert torch.allclose(r["exact"], r["eq90"], rtol=1e-12, atol=1e-18)     # b = 0
    assert torch.allclose(da, r["exact"], rtol=1e-4, atol=1e-12)
    big = r["eq18"].abs() > 1e-3 * r["eq18"].abs().max()
    assert torch.allclose((r["exact"] / r["eq18"])[big], torch.full_like(r["exact"][big], 2.0), rtol=1e-9)  # balanced


def test_appendix_g_sign_and_value():
    g = generator(11)
    X, y, _ = rc.xor_clusters(25, g)
    p = rc.race_init(20, 2, 1e-3, g, dtype=F64)
    p.W2[:, 0] = p.W2[:, 0].norm() * torch.tensor([1.0, -1.0], dtype=F64) / math.sqrt(2)   # aligned to 7π/4
    fd, formula = rc.appendix_g(p, X, y, 0)
    assert math.copysign(1, fd) == math.copysign(1, formula)
    assert abs(fd / formula - 1) < 0.05


def test_merge_is_exact_for_parallel_neurons_and_counts_groups():
    p, X, y = _setup(12, m=10)
    q = rc.split_neuron(rc.split_neuron(p, 3, 0.6), 5, 0.8)
    assert q.width == 12
    assert torch.allclose(forward(q, X), forward(p, X), atol=1e-13)
    merged, k = rc.merge(q, 0.999)
    assert k == 10
    assert (forward(merged, X) - forward(p, X)).abs().max() < 1e-12
    labels = rc.merge_groups(q, 0.999)
    assert labels[3] == labels[10] and labels[5] == labels[11]
    with pytest.raises(ParameterError):
        rc.merge_groups(rc.race_init(3, 2, 1.0, generator(0), runs=(2,)))


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


def test_xor_clusters_layout():
    X, y, cl = rc.xor_clusters(50, generator(0), std=0.0)
    norms = [X[cl == c].norm(dim=-1).mean().item() for c in range(4)]
    assert norms == pytest.approx([4, 3, 1, 2])
    assert y.tolist()[::50] == [0, 1, 0, 1]
    assert torch.allclose(X[cl == 0][0] / 4, -X[cl == 2][0] / 1)


def test_race_init_zero_biases_and_per_run_std():
    p = rc.race_init(100, 50, torch.tensor([1e-3, 1.0]), generator(0), runs=(2,))
    assert p.W1.dtype == torch.float32 and (p.b1 == 0).all() and (p.b2 == 0).all()
    assert p.W1[0].std().item() == pytest.approx(1e-3, rel=0.05)
    assert p.W1[1].std().item() == pytest.approx(1.0, rel=0.05)


# ---------------------------------------------------------------------------
# the optimiser facts the chapter relies on
# ---------------------------------------------------------------------------

def test_train_is_pytorch_sgd_momentum_with_epoch_batches():
    """lrlib.train = torch.optim.SGD(lr, momentum) on mini-batches that walk a fresh permutation
    each epoch (without replacement, last partial batch kept), with the same generator stream."""
    p, X, y = _setup(14, N=10, bias=0.0)
    steps, bs, lr, mom = 7, 4, 0.05, 0.9
    tr = train(p, X, y, loss=CE, lr=lr, momentum=mom, batch_size=bs, steps=steps, record=[steps], seed=3,
               progress=False)
    ps = [t.detach().clone().requires_grad_(True) for t in (p.W1, p.b1, p.W2, p.b2)]
    opt = torch.optim.SGD(ps, lr=lr, momentum=mom)
    gen = generator(3)
    batches, seen = [], []
    while len(batches) < steps:
        perm = torch.randperm(10, generator=gen)
        for i in range(0, 10, bs):
            batches.append(perm[i:i + bs])
    for idx in batches[:steps]:
        seen.append(len(idx))
        opt.zero_grad()
        q = TwoLayer(W1=ps[0], b1=ps[1], W2=ps[2], b2=ps[3])
        CE(forward(q, X[idx]), y[idx]).backward()
        opt.step()
    assert seen[:3] == [4, 4, 2]                      # the partial batch of each epoch is kept
    assert torch.allclose(tr.final.W1, ps[0].detach(), atol=1e-13)
    assert torch.allclose(tr.final.W2, ps[2].detach(), atol=1e-13)


def test_batched_runs_with_per_run_data_equal_separate_runs():
    p, X, y = _setup(15, runs=(2,), N=12)
    tr = train(p, X, y, loss=CE, lr=0.05, momentum=0.9, batch_size=4, steps=9, record=[9], progress=False)
    for r in range(2):
        one = train(p.map(lambda t: t[r]), X[r], y[r], loss=CE, lr=0.05, momentum=0.9, batch_size=4, steps=9,
                    record=[9], progress=False)
        assert torch.allclose(tr.final.W1[r], one.final.W1, atol=1e-13)


def test_snapshot_stats_target_gap_and_alignment_score():
    p, X, y = _setup(16, runs=(2,), N=20)
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
    p, X, y = _setup(21, m=6, D=3, N=10, bias=0.0)
    assert rc.gate_change(p, p, X).item() == 0.0
    q = p.clone()
    q.W1[0] = -q.W1[0]                                     # neuron 0 flips every gate with h ≠ 0
    g0 = rc.gating(p, X)[0]
    assert rc.gate_change(p, q, X).item() == pytest.approx(float(((g0 == 1) | (preact_nonzero(p, X)[0])).sum()) / 60)


def preact_nonzero(p, X):
    from lrlib.models import preactivations
    return (preactivations(p, X) != 0).transpose(-1, -2)


def test_align_to_own_m1_settles_and_appendix_g_sign_follows():
    g = generator(11)
    X, y, _ = rc.xor_clusters(25, g)
    p = rc.race_init(20, 2, 1e-3, g, dtype=F64)
    for al in range(5):
        q, c, settled = rc.align_to_own_m1(p, X, y, al)
        if not settled:
            continue
        assert c == pytest.approx(1.0, abs=1e-12)            # w1 ∥ m¹ of its own (final) gating
        fd, formula = rc.appendix_g(q, X, y, al)
        assert fd < 0 and formula < 0 and abs(fd / formula - 1) < 0.05
    with pytest.raises(ParameterError):
        rc.align_to_own_m1(rc.race_init(3, 2, 1.0, generator(0), runs=(2,)), X, y, 0)


def test_split_all_merges_back_and_counts_parameters():
    p, X, y = _setup(22, m=7)
    q = rc.split_all(p, 0.6)
    assert q.width == 14
    assert torch.allclose(forward(q, X), forward(p, X), atol=1e-13)
    merged, k = rc.merge(q, 0.999)
    assert k == 7
    assert rc.n_parameters(p) == 7 * 5 + 7 + 2 * 7 + 2
    with pytest.raises(ParameterError):
        rc.split_all(p, 1.0)


def test_shuffled_permutes_within_runs_and_flip_inverts_rule_agreement():
    v = torch.arange(12.0).reshape(2, 6)
    s = rc.shuffled(v, generator(0))
    assert torch.equal(s.sort(-1).values, v)
    p, X, y = _setup(23, m=8, runs=(2,))
    a, aw = rc.rule_agreement(p, p, X, y, tol=math.pi)      # every neuron "near"; rule vs itself
    fa, _ = rc.rule_agreement(p, p, X, y, tol=math.pi, flip=True)
    assert np.all(np.isfinite(a)) and np.all(fa <= a)


# ---------------------------------------------------------------------------
# the chapter's measurements: identity error, merging, the rule's agreement, top alignment,
# medians and first crossings (hand-built inputs with known answers)
# ---------------------------------------------------------------------------

def _polar_net(W1, angles, norms):
    """Race network with incoming ``W1 (m, D)`` and outgoing vectors at ``angles`` (radians) with ``norms``."""
    ang, nrm = torch.as_tensor(angles, dtype=F64), torch.as_tensor(norms, dtype=F64)
    return TwoLayer(W1=W1.to(F64), W2=torch.stack([nrm * torch.cos(ang), nrm * torch.sin(ang)]),
                    b1=torch.zeros(W1.shape[0], dtype=F64), b2=torch.zeros(2, dtype=F64))


# ---------------------------------------------------------------------------
# race
# ---------------------------------------------------------------------------

def test_identity_error_is_rounding_in_float64():
    g = generator(3)
    X, y = torch.randn(40, 6, generator=g, dtype=F64), torch.randint(0, 2, (40,), generator=g)
    p = rc.race_init(9, 6, 0.5, g, dtype=F64)
    p.b1 = 0.3 * torch.randn(9, generator=g, dtype=F64)
    assert 0 <= rc.identity_error(p, X, y) <= 1e-12


def test_merge_rows_split_neuron_merges_back_exactly():
    g = generator(1)
    X, y = torch.randn(30, 20, generator=g, dtype=F64), torch.randint(0, 2, (30,), generator=g)
    p = rc.race_init(8, 20, 0.5, g, dtype=F64)
    sp = rc.split_neuron(p, 2, 0.6)                           # 9 neurons, two exactly parallel
    rows = rc.merge_rows(sp, X, y, CE, setting=1, seed=7)
    assert [r["threshold"] for r in rows] == [0.99, 0.999, 0.9999]
    assert list(rows[0])[:2] == ["setting", "seed"] and rows[0]["seed"] == 7
    assert all(r["groups"] == 8 for r in rows)                # random directions in 20-D never reach 0.99
    assert max(abs(r["rel_loss_change"]) for r in rows) <= 1e-14
    assert [r["threshold"] for r in rc.merge_rows(sp, X, y, CE, thresholds=(0.5,))] == [0.5]


# data x1 = e1 (label 0, paper's class 1), x2 = e2 (label 1, class 2); with W2 = 0 the rule of
# Thm. 4.1 gives 7π/4 for a neuron gated on x1 only and 3π/4 for one gated on x2 only.
XR, YR = torch.eye(2, dtype=F64), torch.tensor([0, 1])
W_R = torch.tensor([[1.0, -1.0], [1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]], dtype=F64)


def test_rule_agreement_hand_built():
    P = _polar_net(W_R, [0.0] * 4, [0.0] * 4)
    torch.testing.assert_close(rc.phi_star_predicted(P, XR, YR), torch.tensor([rc.PHI1] * 3 + [rc.PHI2], dtype=F64))
    # final: A at 7π/4 (agrees), B at 3π/4 (the rule says 7π/4), C at π/4 (near no target),
    # D at 3π/4 + 0.5° (agrees within 1°); a = ‖w1‖‖w2‖ = √2 × (1, 3, 5, 2)
    s2 = math.sqrt(2)
    fin = _polar_net(W_R, [rc.PHI1, rc.PHI2, math.pi / 4, rc.PHI2 + math.radians(0.5)], [1.0, 3.0, 5.0, 2.0])
    by_count, weighted = rc.rule_agreement(P, fin, XR, YR)
    assert by_count == pytest.approx(2 / 3)                   # near: A, B, D; agree: A, D
    assert weighted == pytest.approx((1 + 2) * s2 / ((1 + 3 + 2) * s2))
    by_count, _ = rc.rule_agreement(P, fin, XR, YR, tol=math.radians(0.25))
    assert by_count == pytest.approx(1 / 2)                   # D no longer near
    none = _polar_net(W_R, [math.pi / 4] * 4, [1.0] * 4)
    assert np.isnan(rc.rule_agreement(P, none, XR, YR)[0])


def test_rule_agreement_batched_runs():
    P = _polar_net(W_R, [0.0] * 4, [0.0] * 4)
    f1 = _polar_net(W_R, [rc.PHI1, rc.PHI2, math.pi / 4, rc.PHI2], [1.0, 3.0, 5.0, 2.0])
    f2 = _polar_net(W_R, [rc.PHI1] * 3 + [rc.PHI2], [1.0] * 4)

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


def test_merge_direction_weighted_is_first_order_exact_and_leader_is_not():
    """Two nearly parallel neurons (angle ε): the ‖θ‖²-weighted direction keeps the group's output to
    O(ε²), the leader's direction only to O(ε); both give the paper's norm √(Σ‖θ‖²)."""
    g = generator(3)
    X = torch.randn(40, 5, generator=g, dtype=F64)
    p = rc.race_init(1, 5, 1.0, g, dtype=F64)
    p.b1 = torch.tensor([0.3], dtype=F64)
    th = rc.theta(p)[0]
    errs = {}
    for eps in (1e-2, 5e-3):
        d = torch.randn(th.shape, generator=generator(4), dtype=F64)
        d = d - (d @ th) / (th @ th) * th
        th2 = (th + eps * th.norm() * d / d.norm()) * 0.8          # a smaller member, rotated by ≈ ε
        W = torch.stack([th, th2])
        q = TwoLayer(W1=W[:, :5], b1=W[:, 5], W2=W[:, 6:].T.contiguous(), b2=p.b2)
        for direction in rc.MERGE_DIRECTIONS:
            merged, k = rc.merge(q, 0.99, direction)
            assert k == 1
            assert torch.isclose(rc.theta(merged)[0].norm(), rc.theta(q).norm(dim=-1).pow(2).sum().sqrt())
            errs[direction, eps] = float((forward(merged, X) - forward(q, X)).abs().max())
    assert errs["weighted", 5e-3] < errs["weighted", 1e-2] / 3             # ~ε²: a quarter
    assert errs["leader", 5e-3] > errs["leader", 1e-2] / 3                 # ~ε: a half
    assert errs["weighted", 1e-2] < errs["leader", 1e-2] / 5
    with pytest.raises(ParameterError):
        rc.merge(q, 0.99, "mean")


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
    p, _, _ = _setup(5, runs=(2,))
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
