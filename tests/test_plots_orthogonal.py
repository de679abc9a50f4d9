"""Tests for lrlib.plots.orthogonal: each figure helper of the orthogonal chapter draws what it promises."""

from __future__ import annotations

import types

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from lrlib.losses import half_mse  # noqa: E402
from lrlib.models import balanced_init, generator  # noqa: E402
from lrlib.plots import orthogonal as oplot  # noqa: E402
from lrlib.theory.orthogonal.data import orthogonal_toy  # noqa: E402
from lrlib.train import train  # noqa: E402

pytestmark = pytest.mark.usefixtures("close_figures")


def test_excess_vs_lambda_draws_one_line_per_run_and_the_threshold():
    lams = np.array([1e-4, 1e-8, 1e-12])
    fig = oplot.excess_vs_lambda(lams, {"a": (np.full((3, 3), 0.1), "k", "o-"), "b": (np.array([1.0, 0.5, 0.2]), "r", "^--")},
                                 threshold=0.01)
    ax = fig.axes[0]
    assert len(ax.lines) == 3 + 1 + 1                       # 3 runs of "a", 1 of "b", the threshold
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert [t.get_text() for t in ax.get_legend().get_texts()][:2] == ["a", "b"]


def test_lambda_panels_draws_a_loss_per_lambda_and_a_dwell_per_seed():
    t = np.linspace(0, 10, 11)
    fig = oplot.lambda_panels(t, {1e-2: np.exp(-t), 1e-1: np.exp(-2 * t)}, np.array([1e-2, 1e-1]),
                              np.array([[1.0, 0.0], [2.0, 0.3]]), plateau=0.2)
    a, b = fig.axes[:2]
    assert len(a.lines) == 2 + 1 and len(b.lines) == 2 + 1
    assert np.min(b.lines[0].get_ydata()) == pytest.approx(1e-2)          # a dwell of 0 is drawn at 0.01


def test_draw_1d_panels_and_animation():
    X, y = orthogonal_toy()
    p = balanced_init(5, 2, scale=0.5, gen=generator(0))
    fig, axes = plt.subplots(1, 2)
    oplot.draw_1d_panels([p, p], X, y, axes, torch.linspace(-2, 3, 21, dtype=torch.float64), ["a", "b"])
    assert [ax.get_title() for ax in axes] == ["a", "b"] and len(axes[0].lines) == 1
    P = np.random.default_rng(0).normal(size=(3, 5, 2))
    html = oplot.neuron_animation(P, np.sign(P[..., 0]), ["1", "2", "3"])
    assert "<script" in html.data
    with pytest.raises(ValueError):
        oplot.neuron_animation(P, P[..., 0], ["1", "2"])


def test_four_phases_shades_four_phases_and_draws_both_masses():
    t = np.linspace(0, 50, 60)
    fig = oplot.four_phases(t, np.exp(-t / 10) + 1e-12, t / 50, t / 100, (1.0, 0.5),
                            {"a": 5.0, "b": 10.0, "c": 20.0, "d": 30.0}, 0.2, 50.0, "x")
    ax1, ax2 = fig.axes
    assert len(ax1.patches) == 4 and len(ax2.lines) == 4 and ax1.get_title() == "x"
    plt.close(fig)


def test_saddle_panels_draws_five_snapshots_and_every_seeds_loss():
    X, y = orthogonal_toy()
    p = balanced_init(6, 2, scale=0.1, gen=generator(0))
    it = np.arange(10.0)
    loss = np.exp(-np.outer(it, [1.0, 2.0, 3.0]))
    fig = oplot.saddle_panels([p] * 5, X, y, torch.linspace(-1, 1, 11, dtype=torch.float64), it, loss,
                              [0, 2, 4, 6, 9], (3, 5), "t")
    loss_ax = [a for a in fig.axes if "loss" in a.get_title(loc="left")]
    assert len(loss_ax) == 1 and len(loss_ax[0].lines) == 3 + 5 and len(loss_ax[0].patches) == 1
    plt.close(fig)


def test_polar_snapshots_draws_one_polar_panel_per_snapshot_coloured_by_sign():
    P = np.random.default_rng(0).normal(size=(4, 6, 2))
    a = np.tile([1.0, -1.0, 1.0, -1.0, 1.0, 1.0], (4, 1))
    fig = oplot.polar_snapshots(P, a, ["a", "b", "c", "d"], "t")
    assert len(fig.axes) == 4 and all(ax.name == "polar" for ax in fig.axes)
    assert fig.axes[0].collections[0].get_offsets().shape == (6, 2) and fig.axes[2].get_title() == "(c) c"
    plt.close(fig)


def test_loss_and_spectrum_draws_every_seed_the_extras_and_the_top2_ratio():
    it = np.arange(1.0, 11.0)
    loss = np.exp(-np.outer(it, [1.0, 2.0, 3.0]))
    fig = oplot.loss_and_spectrum(it, loss, np.array([0.6, 0.3, 0.1]), plateaus=[(2.0, 4.0)],
                                  extra=[(it, loss[:, 0] * 2, dict(ls="--", label="rerun"))],
                                  marks=[(5.0, dict(color="0.5"))], title="t")
    ax0, ax1 = fig.axes
    assert len(ax0.lines) == 3 + 1 + 1 and len(ax0.patches) == 1 and len(ax1.patches) == 3
    assert "top-2: 0.90" in ax1.get_title(loc="left") + ax1.get_title()
    plt.close(fig)


def test_toy_losses_draws_every_seed_the_control_and_the_level():
    loss = np.exp(-np.outer(np.arange(50.0), [0.1, 0.2, 0.3]))
    fig = oplot.toy_losses(loss, np.exp(-np.arange(20.0)), 0.5, {"a": 10.0}, "t")
    ax = fig.axes[0]
    assert ax.get_title() == "t" and len(ax.get_legend().get_texts()) == 4
    plt.close(fig)


def test_deviations_vs_lambda_one_panel_per_deviation():
    lams = np.array([1e-2, 1e-4, 1e-8])
    fig = oplot.deviations_vs_lambda(lams, {"a": np.ones((2, 3)), "b": -np.ones((2, 3))}, "t")
    assert len(fig.axes) == 2 and all(len(ax.lines) == 2 for ax in fig.axes) and fig.axes[0].xaxis_inverted()
    plt.close(fig)


def test_half_fit_and_plateau_draws_both_clusters_the_slopes_and_the_level():
    logs = np.array([5.0, 10.0, 20.0])
    t = np.array([[1.0, 2.0, 4.0], [1.1, 2.1, 4.1]])
    fig = oplot.half_fit_and_plateau(logs, t, 2 * t, (0.2, 0.4), np.exp(-logs), np.full((2, 3), 0.3), 0.3)
    a0, a1 = fig.axes
    assert len(a0.lines) == 2 * (2 + 1 + 1) and len(a1.lines) == 2 + 1
    plt.close(fig)


def test_lazy_and_snapshot_panels():
    X, y = orthogonal_toy()
    p = balanced_init(6, 2, scale=0.1, gen=generator(0))
    grid = torch.linspace(-1, 1, 11, dtype=torch.float64)
    fig = oplot.lazy_panels([p, p], X, y, grid, np.zeros(11), "t")
    assert fig.axes[1].get_legend() is not None
    plt.close(fig)
    fig = oplot.snapshot_panels([p] * 3, X, y, grid, ["a", "b", "c"], "t")
    assert sum(1 for ax in fig.axes if ax.get_title(loc="left") or ax.get_title()) >= 3
    plt.close(fig)


def test_iteration_labels_and_run_snapshots():
    X, y = orthogonal_toy()
    traj = train(balanced_init(4, 2, scale=0.5, gen=generator(0)), X, y, loss=half_mse(), lr=0.1, steps=4,
                 record=[0, 2, 4], progress=False)
    assert oplot.iteration_labels(traj.steps, [0, 2]) == ["iteration 0", "iteration 4"]
    assert oplot.iteration_labels(np.array([0, 100]), [1], scale=20.0) == ["iteration 2,000"]
    fig = oplot.run_snapshots(traj, [0, 2], X, y, torch.linspace(-2, 3, 11, dtype=torch.float64), "t")
    titles = [ax.get_title(loc) for ax in fig.axes for loc in ("center", "left", "right")]
    assert "(a) iteration 0" in titles and "(b) iteration 4" in titles and fig._suptitle.get_text() == "t"


def test_phase_marks_and_projected_snapshots():
    pt = types.SimpleNamespace(t_plus1=1.0, t_minus1=2.0, t2_scale=4.0, t3_scale=8.0)
    marks = oplot.phase_marks(pt, per=2.0)
    assert list(marks.values()) == [0.5, 1.0, 2.0, 4.0]
    assert list(oplot.phase_marks(pt, exits=False).values()) == [4.0, 8.0]
    W1 = torch.randn(3, 2, 5, 4, dtype=torch.float64)                  # (T, R, m, d)
    W2 = torch.randn(3, 2, 1, 5, dtype=torch.float64)
    traj = types.SimpleNamespace(params=types.SimpleNamespace(W1=W1, a=W2[..., 0, :]))
    V = torch.eye(4, dtype=torch.float64)[:2]
    P, a = oplot.projected_snapshots(traj, [0, 2], 1, V)
    assert P.shape == (2, 5, 2) and np.allclose(P[1], W1[2, 1, :, :2].numpy())
    assert np.allclose(a[0], W2[0, 1, 0].numpy())
