"""Tests for lrlib.plots.orthogonal: each figure helper of the orthogonal chapter draws what it promises."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from lrlib.models import balanced_init, generator  # noqa: E402
from lrlib.plots import orthogonal as oplot  # noqa: E402
from lrlib.theory.orthogonal.data import orthogonal_toy  # noqa: E402

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
