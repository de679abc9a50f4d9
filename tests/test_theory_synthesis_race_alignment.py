"""Tests for lrlib.theory.synthesis.race_alignment: the race network as the alignment paper's network, the alignment lens on hand-built networks and the separable data."""

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
