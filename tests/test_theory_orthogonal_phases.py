"""Tests for lrlib.theory.orthogonal.phases: times and phases (fitted mass, half-fit times, drops, dwell times,
decay rates, the toy's events)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.losses import half_mse
from lrlib.measure import first_crossing
from lrlib.models import balanced_init, generator, sweep_init
from lrlib.theory import orthogonal as th
from lrlib.train import train
from lrlib.trajectory import Trajectory

F64 = torch.float64


def test_u_fitted_and_min_alignment(testbed):
    X, y = testbed
    p = balanced_init(6, 10, scale=0.5, gen=generator(3))
    traj = train(p, X, y, loss=half_mse(), lr=0.1, steps=4, record=[0, 4], progress=False)
    mask = torch.tensor([True, False, True, True, False, False])
    u = th.u_fitted(traj, mask)
    W = traj.params.W1
    for t in range(2):
        assert u[t].item() == pytest.approx(sum((W[t, j] ** 2).sum().item() for j in (0, 2, 3)), rel=1e-14)
    kv = th.key_vectors(X, y)
    up, _ = th.alignment_directions(kv)
    cos = [(p.W1[j] @ up / p.W1[j].norm()).item() for j in (0, 2, 3)]
    assert th.min_alignment(p, mask, up).item() == pytest.approx(min(cos), rel=1e-13)
    assert th.min_alignment(p, torch.zeros(6, dtype=torch.bool), up).item() == 1.0


def test_toy_timings_and_drop_iteration():
    L = torch.tensor([1.0, 1.0, 0.98, 0.5, 0.5, 0.3, 1e-7], dtype=F64).view(-1, 1)
    tt = th.toy_timings(L)
    assert tt["exit1"][0] == pytest.approx(1 + 0.01 / 0.02) and tt["exit2"][0] == pytest.approx(4.5)
    assert tt["plateau"][0] == 0.5 and tt["final"][0] == 1e-7
    assert th.toy_timings(L, iteration_scale=2.0)["exit2"][0] == pytest.approx(9.0)
    assert th.drop_iteration(L, 0.5)[0] == pytest.approx(3.0)
    assert np.isnan(th.drop_iteration(torch.ones(5, 1, dtype=F64), 0.5)[0])


def test_decay_rates():
    t = np.linspace(0, 100, 201)
    L = torch.tensor(np.exp(-0.5 * t), dtype=F64).view(-1, 1)
    assert th.decay_rates(t, L, (1e-20, 1e-5))[0] == pytest.approx(0.5, rel=1e-10)
    assert np.isnan(th.decay_rates(t, L, (1e-300, 1e-299))[0])
    assert first_crossing(t, L, math.exp(-10))[0] == pytest.approx(20.0, rel=1e-2)


def test_dwell_time_and_lambda_panels():
    t = np.arange(0, 10.25, 0.25)
    L = torch.tensor(np.stack([np.where((t >= 2) & (t < 5), 0.5, 1.0), np.full_like(t, 0.2)], 1))
    assert th.dwell_time(t, L, 0.5).tolist() == [3.0, 0.0]
    with pytest.raises(ParameterError):
        th.dwell_time(np.r_[0.0, 1.0, 3.0, 4.0, 5.0], L[:5], 0.5)
    import matplotlib
    matplotlib.use("Agg")
    from lrlib.plots import orthogonal as plot_orth
    fig = plot_orth.lambda_panels(t, {1e-4: L[:, 0].numpy(), 1e-1: L[:, 1].numpy()}, np.array([1e-4, 1e-1]),
                                  np.array([[3.0, 0.0]]), 0.5)
    assert len(fig.axes) == 2 and len(fig.axes[0].lines) == 3


def test_half_fit_gap_is_zero_against_itself_and_checks_lengths(testbed):
    X, y = testbed
    lams = torch.tensor([1e-2, 1e-3], dtype=F64)
    p = sweep_init(50, X.shape[1], lams, seeds=1, seed=0)
    gd = train(p.map(lambda t: t[0]), X, y, loss=half_mse(), lr=2e-2, steps=5000, record=250)
    single = [gd.run(k) for k in range(2)]
    assert th.half_fit_gap(gd, single, X, y) == 0.0
    late = Trajectory(steps=single[0].steps, time=single[0].time * 1.1, params=single[0].params,
                      loss=single[0].loss, meta=dict(single[0].meta))          # a "flow" 10 % slower
    assert th.half_fit_gap(gd.run(slice(0, 1)), [late], X, y) == pytest.approx(1 - 1 / 1.1, rel=1e-9)
    with pytest.raises(ParameterError):
        th.half_fit_gap(gd, single[:1], X, y)


def test_pl_rates_reads_the_rate_after_the_fit_and_on_the_plateau():
    t = np.linspace(0.0, 10.0, 11)
    # run 0: exp(-t) (rate 1) everywhere; run 1: exp(-3t)
    L = np.stack([np.exp(-t), np.exp(-3 * t)], -1)[:, :, None]           # (T, rows=2, K=1)
    after, plat = th.pl_rates(t, L, plateau=1.0, t2=np.array([[2.0]]), t3=np.array([[6.0]]))
    assert after.shape == (2, 1) and plat.shape == (1, 1)
    assert after[0, 0] == pytest.approx(1.0) and after[1, 0] == pytest.approx(3.0)
    assert plat[0, 0] == pytest.approx(1.0)
    _, none = th.pl_rates(t, L, plateau=1.0, t2=np.array([[20.0]]), t3=np.array([[30.0]]))
    assert none[0, 0] == np.inf


def test_gd_flow_table_compares_seed_zero_with_the_flows(testbed):
    X, y = testbed
    lams = torch.tensor([1e-2, 1e-3], dtype=F64)
    p = sweep_init(6, 10, lams, seeds=2, seed=1)
    gd = train(p, X, y, loss=half_mse(), lr=0.05, steps=1200, record=list(range(0, 1201, 4)), progress=False)
    t2, t3 = th.half_fit_times(gd, X, y)
    flows = [gd.run(0, k) for k in range(2)]                  # GD standing in for the flow: gap 0
    for f in flows:
        f.meta["grad_evals"] = 7
    table, gap = th.gd_flow_table(t2, t3, flows, X, y, lams, [0, 1])
    assert list(table["λ"]) == ["1e-02", "1e-03"] and list(table["flow gradient evaluations"]) == [7, 7]
    assert gap == 0.0 or np.isnan(gap)
    table2, gap2 = th.gd_flow_table(t2 * 1.1, t3, flows, X, y, lams, [0, 1])
    assert gap2 == pytest.approx(0.1) or np.isnan(gap2)
