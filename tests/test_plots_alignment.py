"""Tests for lrlib.plots.alignment: each figure helper of the alignment chapter draws what it promises."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import math  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from lrlib.models import TwoLayer, generator  # noqa: E402
from lrlib.plots import alignment as al_plots  # noqa: E402
from lrlib.theory import alignment as al  # noqa: E402
from lrlib.trajectory import Trajectory  # noqa: E402

pytestmark = pytest.mark.usefixtures("close_figures")


def test_eps_sweep_draws_runs_horizon_slope_and_bound():
    eps = np.array([1e-4, 1e-8, 1e-12])
    log_inv = np.log(1 / (math.sqrt(50) * eps))
    t2 = np.stack([log_inv, log_inv + 0.1], -1)                          # (E, R = 2)
    fig = al_plots.eps_sweep(log_inv, t2, log_inv / 10, 1.0, eps, np.outer(eps, [1, 2]), np.outer(eps, [10, 10]))
    a, b = fig.axes[:2]
    assert len(a.lines) == 2 + 1 + 1                                     # two runs, the horizon, the slope
    np.testing.assert_allclose(a.lines[3].get_ydata(), np.median(t2, 1)[-1]
                               + (log_inv - log_inv[-1]))
    assert b.get_xscale() == "log" and b.get_yscale() == "log" and len(b.lines) == 2 + 2


def test_activation_timeline_marks_every_pattern_change_and_t1():
    time = np.linspace(0, 1, 5)
    active = np.array([[1, 0], [1, 0], [1, 1], [1, 1], [1, 1]], bool)    # point 2 joins at t = 0.5
    fig = al_plots.activation_timeline(time, active, np.array([1.0, -1.0]), 0.6, title="x")
    ax = fig.axes[0]
    xs = sorted(line.get_xdata()[0] for line in ax.lines)
    assert xs == [0.5, 0.6]                                              # one change, then t1
    assert [t.get_text() for t in ax.get_yticklabels()] == ["$x_{1}$ (+)", "$x_{2}$ (−)"]


def test_direction_field_one_arrow_per_direction():
    ang = torch.linspace(0, 2 * math.pi, 9, dtype=torch.float64)[:-1]
    circle = torch.stack([ang.cos(), ang.sin()], -1)
    X = torch.tensor([[1.0, 0.2], [-1.0, 0.1]], dtype=torch.float64)
    y = torch.tensor([1.0, -1.0], dtype=torch.float64)
    field = al.approx_direction_velocity(TwoLayer(W1=circle, W2=torch.ones(1, 8, dtype=torch.float64)), X, y)
    fig = al_plots.direction_field(circle, field, X, y)
    q = fig.axes[0].collections[0]
    assert q.N == 8
    np.testing.assert_allclose(q.U, field[:, 0].numpy())


def test_scheme_changes_drops_epoch_zero_and_uses_abs_norm_change():
    ep = np.array([0, 1, 2, 4])
    nc, dc, L = np.array([0.0, -1e-3, 2e-3, 1.0]), np.array([0.0, 1.0, 0.5, 0.1]), np.array([1.0, 1.0, 0.9, 0.1])
    fig = al_plots.scheme_changes(ep, nc, dc, L, "t")
    ax = fig.axes[0]
    np.testing.assert_allclose(ax.lines[0].get_ydata(), np.abs(nc[1:]))
    np.testing.assert_allclose(ax.lines[1].get_ydata(), dc[1:])
    np.testing.assert_allclose(fig.axes[1].lines[0].get_ydata(), L[1:])


def test_t1_scaling_reference_line_is_inverse_sqrt_mu_and_slope_in_title():
    mu_tab = pd.DataFrame(dict(mu=[0.5, 0.1, 0.02], t1_median=[1.0, 2.0, 5.0]))
    n_tab = pd.DataFrame(dict(n=[4, 16, 64], t1_median=[0.3, 0.2, 0.25]))
    fig = al_plots.t1_scaling(mu_tab, n_tab, -0.53)
    a, b = fig.axes[:2]
    np.testing.assert_allclose(a.lines[1].get_ydata(), 1.0 * np.sqrt(0.5 / mu_tab.mu))
    assert "-0.53" in a.get_title(loc="left")
    np.testing.assert_allclose(b.lines[0].get_ydata(), n_tab.t1_median)


def test_cones_draws_on_the_first_toy_draw():
    X_fam, y = al.toy_family(1, generator(5))
    g = al.geometry(X_fam[0], y)
    ang = torch.linspace(0, 2 * math.pi, 73, dtype=torch.float64)[:-1]
    dirs = torch.stack([ang.cos(), ang.sin()], -1)
    fig = al_plots.cones(dirs, al.cone_membership(dirs, X_fam[0], y), X_fam[0], y, g.x_plus, g.x_minus)
    assert len(fig.axes) >= 1


def test_toy_figure_marks_the_first_settled_snapshot():
    X, y = al.toy_2d()
    g = al.geometry(X, y)
    unsettled = TwoLayer(W1=torch.stack([g.x_minus, g.x_plus]), W2=torch.tensor([[1.0, -1.0]], dtype=torch.float64))
    good = TwoLayer(W1=torch.stack([g.x_plus, g.x_minus]), W2=unsettled.W2)
    stack = TwoLayer(W1=torch.stack([unsettled.W1, unsettled.W1, good.W1, good.W1]),
                     W2=torch.stack([unsettled.W2, unsettled.W2, good.W2, good.W2]))
    traj = Trajectory(steps=np.array([0, 10, 20, 30]), time=np.arange(4.0), params=stack,
                      loss=torch.tensor([1.0, 0.5, 0.2, 0.1], dtype=torch.float64), meta={})
    fig, it = al_plots.toy_figure(traj, X, y, np.ones(4))
    assert it == 20 and len(fig.axes) >= 4
    assert fig.axes[3].lines[-1].get_xdata()[0] == 20                     # the end-of-alignment marker
    never = TwoLayer(W1=stack.W1[:2], W2=stack.W2[:2])
    traj2 = Trajectory(steps=np.array([0, 10]), time=np.arange(2.0), params=never,
                       loss=torch.tensor([1.0, 0.5], dtype=torch.float64), meta={})
    assert al_plots.toy_figure(traj2, X, y, np.ones(2))[1] == 10              # never settled: the last one


def test_toy_notes_one_per_draw():
    notes = al_plots.toy_notes([1200, 30000], [2, 1], [1, 1])
    assert notes == ["draw 0: alignment ends at iteration 1,200; 2 drop(s) (its mirrored control: 1)",
                     "draw 1: alignment ends at iteration 30,000; 1 drop(s) (its mirrored control: 1)"]
