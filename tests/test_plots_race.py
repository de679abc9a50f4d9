"""Tests for lrlib.plots.race: each figure helper of the race chapter draws the panels it promises."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from lrlib.plots import race as rplot  # noqa: E402

RNG = np.random.default_rng(0)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_directions_draws_one_line_per_neuron_in_its_group_colour():
    fig, ax = plt.subplots()
    rplot.directions(ax, RNG.normal(size=(6, 2)), np.array([0, 0, 1, 2, 3, 3]))
    assert len(ax.lines) == 6
    assert matplotlib.colors.to_hex(ax.lines[0].get_color()) == rplot.CLUSTER_COLOURS[0]
    assert ax.get_xlim() == pytest.approx((-1.1, 1.1))


def test_fig3_fig9_and_fig2_panels():
    gap = RNG.uniform(-3, 3, 20)
    fig = rplot.fig3_ratio(gap, 0.01 * np.tan(gap), 0.01 * np.tan(gap), np.full(20, 0.01))
    assert len(fig.axes) == 2 and "20 neurons" in fig.axes[0].get_title(loc="left")
    X, y, cl = RNG.normal(size=(8, 2)), np.array([0, 0, 1, 1, 0, 0, 1, 1]), np.repeat(np.arange(4), 2)
    assert len(rplot.fig9_toy(X, y, cl).axes[0].texts) == 4
    snaps = [(t, RNG.normal(size=(5, 2)), RNG.normal(size=(5, 2))) for t in (0, 10, 20)]
    fig = rplot.fig2_xor(np.arange(3), np.ones(3), np.ones((3, 4)), [10], snaps, np.zeros(5, int))
    assert len(fig.axes) == 1 + 2 * 3
    assert "1 drops" in fig.axes[0].get_title()


def test_fig4_cos_grid_scatter_grid_and_fig1_panel_counts():
    W = RNG.normal(size=(5, 2))
    panels = [[(W, np.zeros(5, int), f"s{c}") for c in range(4)] for _ in range(2)]
    assert len(rplot.fig4_lazy(panels, [1, 2, 3, 4]).axes) == 8
    C = np.eye(4)
    assert len(rplot.cos_grid([[(C, np.arange(4), "a")] * 3] * 2, "t").axes) == 6
    sc = (RNG.uniform(0, 1, 10), RNG.uniform(1, 2, 10), RNG.uniform(1, 2, 10), "x")
    fig = rplot.scatter_grid([[sc] * 2] * 2, "t", loss_rows=[(np.arange(5), np.ones(5), "L")] * 2)
    assert len(fig.axes) == 6 and fig.axes[0].get_yscale() == "log"
    fig = rplot.fig1(np.arange(5), np.ones((5, 3)), [(C, np.arange(4), "b")] * 2, [[sc, sc], [sc, sc]], marks=[2])
    assert len(fig.axes) == 1 + 2 + 4
    assert len(fig.axes[0].lines) == 3 + 1                                      # three runs and the mark


def test_scatter_cd_a_draws_largest_final_last():
    fig, ax = plt.subplots()
    af = np.array([3.0, 1.0, 2.0])
    rplot.scatter_cd_a(ax, np.array([0.1, 0.2, 0.3]), af, af, "t")
    off = ax.collections[0].get_offsets()
    assert off[-1][0] == pytest.approx(0.1) and ax.get_yscale() == "log"
