"""Tests for the measurements moved from the race and AGF chapters into lrlib.theory.race and
lrlib.theory.agf.measure, on hand-built inputs with known answers."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.losses import Loss
from lrlib.models import TwoLayer, generator
from lrlib.theory import race as rc
from lrlib.theory.agf import dln
from lrlib.theory.agf import measure as ms

F64 = torch.float64
CE = Loss("cross_entropy")


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


def test_median_at_and_first_step_reaching():
    v = torch.tensor([[5.0, 1.0, 3.0, 2.0], [0.0, 4.0, 8.0, 6.0]])
    np.testing.assert_array_equal(rc.median_at(v, torch.tensor([[0, 2, 3], [1, 2, 3]])).numpy(), [3.0, 6.0])
    assert float(rc.median_at(v[:1], torch.tensor([[0, 1]]))) == 1.0     # even count: the lower median
    steps = np.array([0, 10, 20, 30])
    vals = torch.tensor([[1.0, 5.0, 0.0], [2.0, 5.0, 0.0], [3.0, 9.0, 0.0], [4.0, 9.0, 0.0]])
    out = rc.first_step_reaching(steps, vals, torch.tensor([2.5, 9.0, 1.0]))
    np.testing.assert_array_equal(out, [20, 20, 0])                       # never reached → steps[0]


# ---------------------------------------------------------------------------
# AGF
# ---------------------------------------------------------------------------

def test_dln_vs_agf_on_agfs_own_staircase():
    X, y, _ = dln.fig3_data()
    alpha = 1e-8
    pred, eta = dln.agf(X, y, alpha), dln.eta_alpha(alpha)
    t = np.linspace(0, 1.3 * pred.tau[-1] * eta, 200001)                   # raw GF time
    loss = pred.loss_at(t / eta)                                          # the AGF step curve itself
    p2, eta2, err_t, err_l = ms.dln_vs_agf(X, y, alpha, t, loss)
    assert eta2 == eta and np.array_equal(p2.tau, pred.tau) and err_t.shape == (len(pred.tau) - 1,)
    dt = (t[1] - t[0]) / eta
    assert np.all(err_t <= dt / pred.tau[1:] + 1e-12)                    # drops within one grid step of τ_k
    np.testing.assert_array_equal(err_l, np.zeros(len(pred.tau) - 2))     # plateaus sit exactly on the levels


def test_verdict_1_over_eta():
    assert ms.verdict_1_over_eta([(10.0, np.array([0.05, 0.1]))]) == "reproduced"     # ≤ is inclusive
    assert ms.verdict_1_over_eta([(10.0, np.array([0.1001]))]) == "not reproduced"
    assert ms.verdict_1_over_eta([(10.0, np.array([np.nan, 0.05]))]) == "reproduced"   # nan ignored
    assert ms.verdict_1_over_eta([(10.0, np.array([0.05])), (20.0, np.array([0.06]))]) == "not reproduced"


def test_plateau_spectrum_errors_known_offsets():
    tau = np.array([0.0, 1.0, 4.0, 9.0])                                  # plateau middles √4 = 2, √36 = 6
    sv_pred = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.5], [2.0, 1.0]])
    t = np.linspace(0, 10, 101)
    sv = np.where((t >= 4)[:, None], [2.0, 0.6], np.where((t >= 1)[:, None], [1.0, 0.3], [0.0, 0.0]))
    # plateau 1: only σ₁ is learned (0.3 vs 0 ignored) → 0; plateau 2: |0.6 − 0.5| / 2
    np.testing.assert_allclose(ms.plateau_spectrum_errors(t, sv, tau, sv_pred), [0.0, 0.05], atol=1e-15)
    with pytest.raises(ParameterError):
        ms.plateau_spectrum_errors(t, sv[:-1], tau, sv_pred)


def test_align_fraction_top_direction_never_turns():
    g = generator(4)
    X, G = torch.randn(30, 4, generator=g, dtype=F64), torch.randn(30, 2, generator=g, dtype=F64)
    # linear neuron: U(w, a) = wᵀ M a with M = −XᵀG; (u₁, v₁) of M is a fixed direction of the flow
    U, S, Vh = torch.linalg.svd(-X.T @ G)
    top = torch.cat([U[:, 0], Vh[0]])
    assert ms.align_fraction(top, X, G, 4, "linear", 2, 1e-4) == 0.0
    other = torch.randn(6, generator=g, dtype=F64)
    f = ms.align_fraction(other, X, G, 4, "linear", 2, 1e-4)
    assert 0.0 < f < 1.0
    assert ms.align_fraction(other, X, G, 4, "linear", 2, 1e-16) < f            # κ = 2: aligning takes O(1) of log(1/α)
    assert np.isnan(ms.align_fraction(other, X, G, 4, "linear", 2, 1e-4, horizon=1e-3))   # norm 1 not reached


def test_staircase_drop_times():
    tau, levels = np.array([0.0, 10.0, 20.0]), np.array([1.0, 0.5, 0.1])
    np.testing.assert_array_equal(ms.staircase_drop_times(tau, levels, np.array([1.0, 0.6, 0.0])), [10.0, 20.0])
    out = ms.staircase_drop_times(tau, levels, np.array([1.0, 0.0, -1.0]))      # mid-levels 0.5, −0.5
    assert out[0] == 10.0 and np.isnan(out[1])
