"""Tests for lrlib.theory.synthesis.runs: the notebook's runs and tables, on small problems and hand-built
curves with known answers (AGF and the per-run readers replaced by stand-ins where only the bookkeeping is
tested)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.losses import Loss
from lrlib.models import TwoLayer, balanced_init, generator
from lrlib.schedules import log_schedule
from lrlib.theory import orthogonal as orth
from lrlib.theory import race as rc
from lrlib.theory import synthesis as sy
from lrlib.theory.orthogonal.data import orthonormal_testbed
from lrlib.train import train

F64 = torch.float64
SQ = Loss("square", reduction="mean", scale=0.5)


def _curves(loss):
    """A stand-in trajectory: times ``0, 1, …`` and losses ``(T, R)``."""
    loss = torch.as_tensor(np.asarray(loss, dtype=float))
    return SimpleNamespace(time=np.arange(loss.shape[0], dtype=float), loss=loss)


def _staircase(t, drops, levels):
    """A loss falling linearly through each drop (width 1) from one level to the next."""
    out = np.full_like(t, levels[0], dtype=float)
    for d, hi, lo in zip(drops, levels[:-1], levels[1:]):
        out = np.where(t >= d + 0.5, lo, np.where(t > d - 0.5, np.minimum(out, hi + (lo - hi) * (t - d + 0.5)),
                                                    out))
    return out


def test_gd_run_is_train_recorded_every_few_steps():
    X, y = orthonormal_testbed()
    p0 = balanced_init(5, X.shape[1], scale=0.1, gen=generator(0), runs=(2,))
    g = sy.gd_run(p0, X, y, loss=SQ, lr=0.1, steps=20, every=5)
    ref = train(p0, X, y, loss=SQ, lr=0.1, steps=20, record=np.arange(0, 21, 5))
    assert list(g.steps) == [0, 5, 10, 15, 20]
    torch.testing.assert_close(g.loss, ref.loss)


def test_scaled_runs_orders_runs_scale_major_and_keeps_the_draw():
    base = balanced_init(4, 3, scale=1.0, gen=generator(1), runs=(2,))
    p, per_run = sy.scaled_runs(base, [1e-3, 1e-6, 1e-9])
    assert p.W1.shape == (6, 4, 3) and per_run.tolist() == [1e-3, 1e-3, 1e-6, 1e-6, 1e-9, 1e-9]
    torch.testing.assert_close(p.W1[3], 1e-6 * base.W1[1])          # run k·S + s: scale k, seed s
    torch.testing.assert_close(p.W2[4], 1e-9 * base.W2[0])
    assert sy.scaled_runs(base, [1.0], act="linear")[0].act == "linear"


def test_by_scale_reads_run_k_S_plus_s():
    v = np.arange(2 * 6).reshape(2, 6)                             # T = 2, K = 3, S = 2
    out = sy.by_scale(v, 3)
    assert out.shape == (2, 3, 2) and out[1, 2, 0] == v[1, 4] and out[0, 1, 1] == v[0, 3]


def test_orthogonal_agf_horizon_and_cost_phase(monkeypatch):
    calls = []
    monkeypatch.setattr(sy.runs, "agf", lambda net, X, y, **kw: calls.append((net, kw)) or kw["tau_max"])
    X, y = orthonormal_testbed()
    p, lams = sy.scaled_runs(balanced_init(3, X.shape[1], scale=1.0, gen=generator(2), runs=(1,)), [1e-2, 1e-8])
    out = sy.orthogonal_agf(p, X, y, lams, loss=SQ, norm_minus=2.0)
    np.testing.assert_allclose(out, [1.5 * math.log(1e2) / 2, 1.5 * math.log(1e8) / 2])
    torch.testing.assert_close(calls[1][0].W1, p.W1[1])
    cost = calls[0][1]["cost_fn"]
    assert cost.func is sy.cost_phase and cost.keywords["lr"] == 0.05 and cost.keywords["steps"] == 4000


def test_drop_times_of_and_jump_table_on_known_staircases():
    X, y = orthonormal_testbed()
    kv = orth.key_vectors(X, y)
    t = np.arange(0, 21, dtype=float)
    stair = _staircase(t, [5.0, 12.0], [1.0, 0.4, 0.0])
    np.testing.assert_allclose(sy.drop_times_of(_curves(stair[:, None]), 0, [1.0, 0.4, 0.0]), [5.0, 12.0])
    gd = _curves(np.stack([stair, stair], 1))
    runs = [SimpleNamespace(tau=np.array([0.0, 6.0, 12.0]), levels=np.array([1.0, 0.4, 0.0])),
            SimpleNamespace(tau=np.array([0.0]), levels=np.array([1.0]))]
    with pytest.raises(ParameterError):                             # a run without two jumps has no level
        sy.jump_table((gd, gd, gd), runs, torch.tensor([1e-3, 1e-6], dtype=F64), kv, 2)
    tab = sy.jump_table((gd, gd, gd), runs[:1], torch.tensor([1e-3], dtype=F64), kv, 1)
    assert isinstance(tab, pd.DataFrame) and tab.jump.tolist() == [1, 2]
    assert tab.err_agf.tolist() == pytest.approx([0.2, 0.0]) and (tab.step_gap == 0).all()
    assert tab.tol.iloc[0] == pytest.approx(1 / math.log(1e3))
    assert tab.leading.tolist() == pytest.approx([orth.phase_times(kv, 1e-3).t2_scale,
                                                  orth.phase_times(kv, 1e-3).t3_scale])


def test_lambda_sweep_groups_runs_by_lambda_and_seed():
    X, y = orthonormal_testbed()
    kv = orth.key_vectors(X, y)
    T, K, S = 4, 2, 3
    gd = _curves(np.arange(T * K * S, dtype=float).reshape(T, K * S))
    runs = [SimpleNamespace(tau=np.array([0.0, float(r)]), levels=np.array([1.0, 0.0])) for r in range(K * S)]
    sw = sy.lambda_sweep([1e-3, 1e-6], gd, gd, runs, kv, np.ones((K, S)))
    assert sw.loss.shape == (T, K, S) and sw.loss[2, 1, 0] == gd.loss[2, 3]
    assert sw.tau[1][2][1] == 5.0 and sw.leading.shape == (K, 2)
    assert sw.leading[1, 0] == pytest.approx(orth.phase_times(kv, 1e-6).t2_scale)


def test_resampled_interpolates_each_run_on_the_fine_grid():
    coarse = SimpleNamespace(time=np.array([0.0, 2.0]), loss=torch.tensor([[1.0, 4.0], [0.0, 2.0]]))
    np.testing.assert_allclose(sy.resampled(np.array([0.0, 1.0, 2.0]), coarse),
                               [[1.0, 4.0], [0.5, 3.0], [0.0, 2.0]])


def test_race_sgd_is_setting_1s_optimiser():
    X = torch.randn(2, 8, 3, generator=generator(3))
    y = (X[..., 0] > 0).long()
    p = rc.race_init(4, 3, 0.1, generator(4), runs=(2,))
    ce = Loss("cross_entropy")
    g = sy.race_sgd(p, X, y, loss=ce, lr=0.05, steps=30, seed=7)
    ref = train(p, X, y, loss=ce, lr=0.05, momentum=0.9, batch_size=4, steps=30, record=log_schedule(30, 60),
                seed=7, check_every=1000)
    torch.testing.assert_close(g.loss, ref.loss)


def test_lens_table_reads_run_r_with_its_data(monkeypatch):
    seen = []
    monkeypatch.setattr(sy.runs, "alignment_lens_rows",
                        lambda tr, X, y, plateau_level: seen.append((tr, X, plateau_level)) or [dict(when="init")])
    traj = SimpleNamespace(run=lambda r: f"run{r}")
    X = torch.arange(2 * 3 * 2, dtype=F64).reshape(2, 3, 2)
    tab = sy.lens_table(traj, X, torch.zeros(2, 3), seed=10)
    assert tab.seed.tolist() == [10, 11] and seen[1][0] == "run1"
    torch.testing.assert_close(seen[1][1], X[1])
    assert seen[0][2] == pytest.approx(0.99 * math.log(2))


def test_xor_table_order_and_step_gap(monkeypatch):
    def fake(time, closs, run, X, Y, cl):                           # GD's drop at the curve's first value
        return [dict(cluster=0, gd=float(closs[0]), agf=run)], run > 1
    monkeypatch.setattr(sy.runs, "xor_agf_vs_gd", fake)
    closs, closs2 = np.array([[2.0, 4.0]]), np.array([[2.2, 4.0]])
    tab, order, gap = sy.xor_table(_curves([[0.0]]), closs, _curves([[0.0]]), closs2, [1.0, 3.0],
                                   torch.zeros(2, 1), torch.zeros(2, 1), torch.zeros(1))
    assert tab.seed.tolist() == [0, 1] and not tab.control.any()
    assert order == [0.0, 1.0] and gap == pytest.approx([0.1, 0.0])


def test_largest_neuron_norm_and_half_fit_time():
    W1 = torch.tensor([[[3.0, 0.0], [0.0, 1.0]]])                   # (1, 2, 2)
    W2 = torch.tensor([[[4.0, 0.0]]])                               # (1, 1, 2): neuron 0 has ‖(3, 0, 4)‖ = 5
    assert sy.largest_neuron_norm(TwoLayer(W1=W1, W2=W2)).tolist() == [5.0]
    t = np.arange(5, dtype=float)
    closs = np.stack([np.array([1.0, 0.8, 0.4, 0.2, 0.1]), np.array([1.0, 0.9, 0.8, 0.6, 0.5])], -1)[:, None]
    assert sy.half_fit_time(t, closs) == pytest.approx(4.0)         # the slower cluster halves at t = 4


def test_xor_batch_takes_the_rows_and_worst_error_keeps_nan():
    traj = _curves(np.arange(6.0).reshape(2, 3))
    closs = np.arange(12.0).reshape(2, 3, 2)
    b = sy.xor_batch(traj, closs, [1, 2], ["a", "b"], torch.zeros(2, 1), torch.zeros(2, 1), torch.zeros(1))
    assert b.loss.tolist() == [[1.0, 2.0], [4.0, 5.0]] and b.closs.shape == (2, 2, 2) and b.agf == ["a", "b"]
    tab = pd.DataFrame(dict(run=[0, 0, 1, 1], err=[0.1, 0.3, np.nan, 0.2]))
    w = sy.worst_error(tab)
    assert w[0] == pytest.approx(0.3) and np.isnan(w[1])


def test_ce_cluster_drops_against_a_direct_computation():
    ce = Loss("cross_entropy")
    X = torch.tensor([[[1.0, 0.0], [0.0, 1.0]]], dtype=F64)          # one run, two points, one per cluster
    y = torch.tensor([[0, 1]])
    cl = torch.tensor([0, 1])
    s = torch.tensor([0.0, 1.0, 2.0, 4.0], dtype=F64)               # snapshots: weights grow
    W1 = s[:, None, None, None] * torch.eye(2, dtype=F64)[None, None]
    W2 = s[:, None, None, None] * torch.tensor([[1.0, -1.0], [-1.0, 2.0]], dtype=F64)[None, None]
    traj = SimpleNamespace(time=s.numpy(), params=TwoLayer(W1=W1, W2=W2))
    out = sy.ce_cluster_drops(traj, X, y, cl, ce)
    for c, (a, b) in enumerate([(1.0, -1.0), (-1.0, 2.0)]):          # logits of point c: s² (W2 column c)
        z = (s ** 2)[:, None] * torch.tensor([a, b], dtype=F64)
        L = torch.nn.functional.cross_entropy(z, torch.full((4,), c), reduction="none").numpy()
        from_hand = np.interp(L[0] / 2, L[::-1], s.numpy()[::-1])
        assert out[0, c] == pytest.approx(from_hand)
    assert sy.same_order(out, out[:, ::-1]) == 0 and sy.same_order(out, out + 1) == 1

