"""Tests for lrlib.theory.orthogonal.runs: building the chapter's batched runs and taking them apart."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.losses import half_mse
from lrlib.models import balanced_init, cat_runs, generator, sweep_init
from lrlib.schedules import linear_schedule
from lrlib.theory import orthogonal as th
from lrlib.train import train

F64 = torch.float64


def test_select_runs_indexes_every_parameter_and_clone_detaches():
    p = sweep_init(6, 10, torch.tensor([1e-2, 1e-4, 1e-6], dtype=F64), seeds=3, seed=1)
    one = th.select_runs(p, 1, 2)
    assert one.runs == () and torch.equal(one.W1, p.W1[1, 2]) and torch.equal(one.W2, p.W2[1, 2])
    first = th.select_runs(p, slice(0, 1))
    assert first.runs == (1, 3)
    copy = th.select_runs(p, slice(0, 1), clone=True)
    copy.W2.abs_()
    assert (p.W2 < 0).any() and not (copy.W2 < 0).any()
    view = th.select_runs(p, slice(0, 1))
    view.W2.zero_()
    assert (p.W2[0] == 0).all()                             # a view, not a copy


def test_flat_and_unflat_runs_are_inverse():
    p = balanced_init(4, 10, scale=1e-3, gen=generator(2), runs=(2, 3))
    flat = th.flat_runs(p)
    assert flat.runs == (6,) and torch.equal(flat.W1[4], p.W1[1, 1])
    back = th.unflat_runs(flat, (2, 3))
    assert torch.equal(back.W1, p.W1) and torch.equal(back.W2, p.W2)
    with pytest.raises(ParameterError):
        th.flat_runs(balanced_init(4, 10, scale=1e-3, gen=generator(2), runs=(5,)))


def test_inits_at_scales_share_the_draw_and_tile_columns_repeats_it():
    p = th.inits_at_scales(5, 2, [1.0, 1e-3], seed=7)
    q = balanced_init(5, 2, scale=1e-3, gen=generator(7), runs=(1,))
    assert p.runs == (2,) and torch.equal(p.W1[1], q.W1[0])
    assert torch.allclose(p.W1[0] * 1e-3, p.W1[1], rtol=1e-12)      # the same directions, scaled
    t = th.tile_columns(balanced_init(5, 2, scale=1.0, gen=generator(1), runs=(2, 1)), 4)
    assert t.runs == (2, 4) and torch.equal(t.W1[1, 3], t.W1[1, 0])
    t.W1[0, 0].zero_()
    assert not (t.W1[0, 1] == 0).all()                       # a copy per column
    with pytest.raises(ParameterError):
        th.tile_columns(p, 3)


def test_unbalanced_control_is_seed_zero_with_output_weights_of_variance_one_over_m():
    lams = torch.tensor([1e-4, 1e-8], dtype=F64)
    c = th.unbalanced_control(50, 10, lams, seeds=3, seed=0)
    full = th.unbalanced_sweep_init(50, 10, lams, 3, 0, out_std=50 ** -0.5)
    assert c.runs == (1, 2) and torch.equal(c.W1, full.W1[:1]) and torch.equal(c.W2, full.W2[:1])
    assert 0.5 < float(c.a.std() * 50 ** 0.5) < 1.5


def test_stacked_inputs_replaces_the_given_rows_only(testbed):
    X, _ = testbed
    other = torch.zeros_like(X)
    S = th.stacked_inputs(X, (4, 3), [(2, other)])
    assert S.shape == (4, 3, *X.shape)
    assert torch.equal(S[2, 1], other) and torch.equal(S[3, 2], X)
    S2 = th.stacked_inputs(X, (5,), [(slice(-2, None), other)])
    assert torch.equal(S2[3], other) and torch.equal(S2[2], X)
    S2[0].zero_()
    assert not (X == 0).all()                                # a fresh tensor


def test_split_runs_groups_and_checks_the_total(testbed):
    X, y = testbed
    p = balanced_init(3, 10, scale=0.1, gen=generator(0), runs=(5,))
    traj = train(p, X, y, loss=half_mse(), lr=0.1, steps=2, record=[0, 2], progress=False)
    a, b, c = th.split_runs(traj, [2, 1, None])
    assert (a.runs, b.runs, c.runs) == ((2,), (1,), (2,))
    assert torch.equal(c.params.W1, traj.params.W1[:, 3:])
    with pytest.raises(ParameterError):
        th.split_runs(traj, [2, 2])


def test_sweep_gd_and_coarse_sweep_are_the_chapter_gd(testbed):
    X, y = testbed
    lams = torch.tensor([1e-2, 1e-4], dtype=F64)
    p = sweep_init(4, 10, lams, seeds=2, seed=3)
    g = th.sweep_gd(p, X, y, dt=0.5, T=5.0, every=5)
    ref = train(p, X, y, loss=half_mse(), lr=0.5, steps=10, record=linear_schedule(10, 5))
    assert torch.equal(g.params.W1, ref.params.W1) and list(g.steps) == [0, 5, 10]
    c = th.coarse_sweep(p, X, y, lams, T=5.0, dt=1.0)
    assert isinstance(c, th.claims.Sweep) and len(c.traj) == 6


def test_flow_columns_integrates_seed_zero_at_each_column(testbed):
    X, y = testbed
    lams = torch.tensor([1e-1, 1e-2], dtype=F64)
    p = sweep_init(4, 10, lams, seeds=2, seed=3)
    flows = th.flow_columns(p, X, y, [1], dt=0.1, T=1.0, record=[0, 10])
    assert len(flows) == 1 and flows[0].runs == ()
    assert torch.equal(flows[0].params.W1[0], p.W1[0, 1])
    gd = train(th.select_runs(p, 0, 1), X, y, loss=half_mse(), lr=0.01, steps=100, record=[0, 100])
    assert float(flows[0].loss[-1]) == pytest.approx(float(gd.loss[-1]), rel=1e-3)
    assert float(flows[0].loss[-1]) < float(flows[0].loss[0])


def test_step_gap_is_the_largest_relative_change():
    fine = {"a": np.array([1.0, 2.0]), "b": np.array([4.0, 4.0])}
    coarse = {"a": np.array([1.1, 2.0]), "b": np.array([4.0, 3.0])}
    assert th.step_gap(coarse, fine, ["a", "b"]) == pytest.approx([0.1, 0.25])
    assert np.isnan(th.step_gap({"a": np.array([np.nan])}, {"a": np.array([1.0])}, ["a"])[0])


def test_paper_gd_is_gd_on_twice_the_loss_in_paper_time(toy):
    X, y = toy
    p = balanced_init(5, 2, scale=0.3, gen=generator(4), runs=(2,))
    run = th.paper_gd(p, X, y, lr=0.01, steps=20, record=[0, 20])
    half = train(p, X, y, loss=half_mse(), lr=0.02, steps=20, record=[0, 20])
    assert torch.allclose(run.params.W1, half.params.W1, rtol=1e-12, atol=1e-15)   # ∇(2L) with η = ∇L with 2η
    assert torch.allclose(run.loss, 2 * half.loss, rtol=1e-12)
    assert float(run.time[-1]) == pytest.approx(0.4) and run.dense_loss.shape[0] == 21
    assert th.paper_gd(p, X, y, lr=0.01, steps=2, record=[0, 2], dense_loss=False).dense_loss is None
