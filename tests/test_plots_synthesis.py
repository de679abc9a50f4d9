"""Tests for lrlib.plots.synthesis: each figure helper returns one figure with its panels and draws
the series it is given."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from lrlib.plots import synthesis as figs  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


class _Run:
    def __init__(self, tau, levels):
        self.tau, self.levels = np.asarray(tau, dtype=float), np.asarray(levels, dtype=float)


def test_agf_on_orthogonal_two_panels_one_curve_and_staircase_per_lambda():
    t = np.linspace(0, 10, 11)
    lams = [1e-3, 1e-6]
    jumps = pd.DataFrame([dict(lam=lam, jump=k, err_agf=0.01 * k, err_leading=0.1 * k) for lam in lams for k in (1, 2)])
    fig = figs.agf_on_orthogonal(t, {lam: np.exp(-t) for lam in lams}, {lam: _Run([0, 2, 5], [1, 0.5, 0]) for lam in lams}, jumps)
    a, b = fig.axes
    assert len(a.lines) == 4                                  # GD and AGF per λ
    assert len(b.lines) == 5                                  # AGF and leading order for two drops, and the tolerance
    np.testing.assert_allclose(b.lines[-1].get_ydata(), 1 / np.log(1 / np.array(sorted(lams, reverse=True))))


def test_alignment_on_race_three_panels():
    series = pd.DataFrame(dict(step=[0, 10, 100], in_cone=[0.1, 0.2, 0.3], stable_rank=[5.0, 2.0, 1.1]))
    cos = np.linspace(-1, 1, 20)
    fig = figs.alignment_on_race(series, cos, cos > 0.8, 10)
    assert len(fig.axes) == 3
    np.testing.assert_allclose(fig.axes[0].lines[0].get_ydata(), [0.2, 0.3])   # the first snapshot is skipped (log axis)


def test_agf_on_xor_curves_and_one_point_per_seed_and_cluster():
    t = np.linspace(0, 10, 11)
    closs = np.tile(np.linspace(0.25, 0, 11)[:, None], (1, 4))
    table = pd.DataFrame([dict(cluster=c, gd=1.0 + c, agf=1.1 + c) for c in range(4) for _ in range(3)])
    fig = figs.agf_on_xor(t, closs.sum(1) / 4, closs, _Run([0, 1, 2, 3, 4], [0.25, 0.19, 0.12, 0.06, 0]), table, 0.07,
                          [f"c{c}" for c in range(4)])
    a, b = fig.axes
    assert len(a.lines) == 6                                  # total, four clusters, AGF
    np.testing.assert_allclose(a.lines[1].get_ydata(), closs[:, 0] / 4)
    assert sum(len(c.get_offsets()) for c in b.collections[:4]) == 12
