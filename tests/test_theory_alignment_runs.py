"""Tests for lrlib.theory.alignment.runs: the chapter's run helpers and per-run counts, each against
the direct computation it replaces in the notebook (loops over runs, the package's own measures)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lrlib.losses import Loss
from lrlib.measure import drops
from lrlib.models import TwoLayer, gaussian_init, generator
from lrlib.schedules import linear_schedule
from lrlib.theory import alignment as al
from lrlib.train import train
from lrlib.trajectory import Trajectory

F64 = torch.float64
EXP_SUM = Loss("exponential", "sum")


@pytest.fixture(scope="module")
def theory():
    """A short GD run of the theory setting: 3 runs, 12 neurons, 8 points in R^4."""
    X, y = al.synthetic_separable(8, 4, 0.3, generator(1))
    p0 = al.balanced_theory_init(12, 4, 1e-6, generator(2), runs=(3,))
    g = al.geometry(X, y)
    eta = 0.01 / (g.n * g.X_max)
    return X, y, p0, g, eta, al.runs.gd(p0, X, y, eta, int(3.0 / eta), 20)


def test_gd_is_train_on_a_linear_schedule(theory):
    X, y, p0, _, eta, tr = theory
    ref = train(p0, X, y, loss=EXP_SUM, lr=eta, steps=int(3.0 / eta), record=linear_schedule(int(3.0 / eta), 20))
    np.testing.assert_array_equal(tr.steps, ref.steps)
    assert torch.equal(tr.params.W1, ref.params.W1) and torch.equal(tr.loss, ref.loss)


def _loss_traj(L):
    """A trajectory carrying only a loss ``(T, R)`` (its parameters are placeholders)."""
    T, R = L.shape
    params = TwoLayer(W1=torch.zeros(T, R, 1, 1, dtype=F64), W2=torch.zeros(T, R, 1, 1, dtype=F64))
    steps = np.arange(T) * 10
    return Trajectory(steps=steps, time=steps.astype(float), params=params, loss=torch.as_tensor(L), meta={})


def test_drop_counts_and_two_drop_passes():
    k = np.arange(200.0)
    one = np.exp(-np.clip(k - 50, 0, 20))                                    # one sharp drop
    two = one * np.exp(-np.clip(k - 150, 0, 20))                             # two separate drops
    flat = np.ones_like(k)
    tr = _loss_traj(np.stack([two, one, flat, two * 0.5 + 0.5 * two[-1] * 1e3], -1))
    L = tr.loss.numpy()
    direct = [len(drops(tr.steps, L[:, r])) for r in range(L.shape[1])]
    np.testing.assert_array_equal(al.runs.drop_counts(tr), direct)
    assert direct[:3] == [2, 1, 0]
    ok = [(direct[r] == 2) and L[-1, r] / L[0, r] < 0.01 for r in range(3)]
    assert al.runs.two_drop_passes(tr, 3) == sum(ok) == 1


def test_stragglers_at_and_outside_growth(theory):
    X, y, _, _, _, tr = theory
    steps = (int(tr.steps[3]), int(tr.steps[-1]))
    got = al.runs.stragglers_at(tr, X, y, steps)
    for k in steps:
        np.testing.assert_array_equal(got[k], al.live_outside_s_plus(tr.at(tr.index_of_step(k)), X, y).numpy())
    growth = al.runs.outside_growth(tr, X, y)
    cm = al.cone_membership(tr.final.W1, X, y)
    for r in range(3):
        ratio = [float(tr.final.W1[r, j].norm() / tr.at(0).W1[r, j].norm()) for j in range(12)
                 if tr.final.a[r, j] > 0 and not cm["S_dead"][r, j] and not cm["S_plus"][r, j]]
        assert growth[r] == pytest.approx(max(ratio, default=0.0), rel=1e-12)


def test_snapshots_at_times(theory):
    *_, eta, tr = theory
    t = np.array([tr.time[5], np.inf, tr.time[2]])
    assert al.runs.snapshots_at_times(tr, t, eta) == [5, len(tr) - 1, 2]


def test_pattern_invariants_against_loops(theory):
    X, y, _, _, _, tr = theory
    P = tr.params
    cm = al.cone_membership(P.W1, X, y)
    actp = X @ P.W1.transpose(-1, -2) > 0
    i1 = [3, 5, 7]
    inv = al.runs.pattern_invariants(P, y, cm, actp, i1)
    T, R, n, m = actp.shape
    for r in range(R):
        wrong = changes = esc = 0
        for j in range(m):
            own = cm["S_plus" if P.a[0, r, j] > 0 else "S_minus"][:, r, j] | cm["S_dead"][:, r, j]
            esc += int(sum(bool(own[t] and not own[t + 1]) for t in range(T - 1)))
            for t in range(T - 1):
                for i in range(n):
                    a, b = bool(actp[t, r, i, j]), bool(actp[t + 1, r, i, j])
                    bad = (b and not a and y[i] < 0) or (a and not b and y[i] > 0)
                    if P.a[0, r, j] < 0:
                        bad = (b and not a and y[i] > 0) or (a and not b and y[i] < 0)
                    wrong += int(bad)
            changes = max(changes, sum(bool((actp[t + 1, r, :, j] != actp[t, r, :, j]).any()) for t in range(T - 1)))
        assert inv["wrong_way"][r] == wrong and inv["escapes"][r] == esc
        assert int(inv["n_changes"][r].max()) == changes
    assert inv["flips"].tolist() == [0, 0, 0]
    np.testing.assert_array_equal(inv["mass_ok"], al.runs.mass_ok(P, cm, i1))


def test_mass_ok_sees_a_decrease():
    W = torch.ones(3, 1, 2, 2, dtype=F64)
    W[2, 0, 0] = 0.5                                                       # neuron 0 shrinks at the end
    P = TwoLayer(W1=W, W2=torch.tensor([1.0, -1.0], dtype=F64).expand(3, 1, 1, 2).clone())
    cm = {"S_plus": torch.tensor([True, False]).expand(3, 1, 2), "S_minus": torch.tensor([False, True]).expand(3, 1, 2)}
    assert al.runs.mass_ok(P, cm, [0]).tolist() == [0.0]
    assert al.runs.mass_ok(P, cm, [2]).tolist() == [1.0]


def test_dwell_bound_formula(theory):
    *_, g, _, _ = theory
    z = 0.5 * g.zeta1
    want = 4 / (min(z, g.xi_lower) * math.sqrt(g.mu) * g.X_min * 3)
    assert al.runs.dwell_bound(g, z, 3) == pytest.approx(want, rel=1e-15)
    np.testing.assert_allclose(al.runs.dwell_bound(g, z, np.array([1, 3])), [3 * want, want])


def test_scaled_copies_and_max_until():
    p = gaussian_init(4, 3, std_in=1.0, std_out=1.0, gen=generator(0), runs=(2,), dtype=F64)
    eps = np.array([1.0, 1e-3, 1e-6])
    q = al.runs.scaled_copies(p, eps)
    for e in range(3):
        for r in range(2):
            assert torch.allclose(q.W1[e * 2 + r], p.W1[r] * eps[e]) and torch.allclose(q.W2[e * 2 + r], p.W2[r] * eps[e])
    time = np.linspace(0, 1, 11)
    dev = np.random.default_rng(0).random((11, 6))
    got = al.runs.max_until(dev, time, np.array([0.3, 1.0, 0.0]), 2)
    assert got.shape == (3, 2)
    assert got[0, 1] == dev[:4, 1].max() and got[1, 0] == dev[:, 2].max() and got[2, 1] == dev[0, 5]


def test_t1_sweep_matches_alignment_time_and_bound():
    data = [al.two_point_data(0.5), al.two_point_data(0.2)]
    mu_s, t1, bd = al.runs.t1_sweep(data, 2, 1e-12, [3, 4], t_max=2.0)
    for k, (X, y) in enumerate(data):
        g, t1k, bdk = al.alignment_time_and_bound(X, y, 2, 1e-12, 3 + k, t_max=2.0)
        assert mu_s[k] == g.mu
        np.testing.assert_array_equal(t1[k], t1k)
        np.testing.assert_array_equal(bd[k], bdk)
    assert t1.shape == bd.shape == (2, 2)


def test_erratum_leaks_matches_cap_leaves_cone(theory):
    X, y, _, g, _, _ = theory
    zetas = [0.5 * g.zeta1, 0.999]
    got = al.runs.erratum_leaks(g, zetas, X, y, 7)
    for r, z in enumerate(zetas):
        want = (al.cap_leaves_cone(g.x_plus, z, X, y, "S_plus", generator(7 + 60 + r))
                or al.cap_leaves_cone(g.x_minus, z, X, y, "S_minus", generator(7 + 70 + r)))
        assert got[r] == float(want)
    assert got[0] == 0.0 and got[1] == 1.0                                 # a small cap stays, a wide one leaves


def test_lemma2_excess():
    assert al.runs.lemma2_excess(2001) <= 1e-12                             # Lemma 2: gap ≤ 2|ŷ| on [-1, 1]
    yh = torch.linspace(-1, 1, 11, dtype=F64)
    want = max(float((al.lemma2_gap(torch.full_like(yh, s), yh, k) - 2 * yh.abs()).max())
               for s in (1.0, -1.0) for k in ("exponential", "logistic2"))
    assert al.runs.lemma2_excess(11) == want


def test_scheme_changes(theory):
    X, y, _, _, _, tr = theory
    one = tr.run(0)
    ep, nc, dc, L = al.runs.scheme_changes(one, X, y, EXP_SUM, 4)
    np.testing.assert_array_equal(ep, one.steps / 4)
    for i in (0, 5, len(one) - 1):
        n_i, d_i = al.norm_and_direction_change(one.at(i), X, y, EXP_SUM)
        assert nc[i] == float(n_i) and dc[i] == float(d_i)
    np.testing.assert_array_equal(L, one.loss.numpy())
