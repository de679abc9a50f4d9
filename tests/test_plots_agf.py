"""lrlib.plots.agf: the AGF chapter's figure helpers draw from small fake arrays and return their figure."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from lrlib.plots import agf as agf_plots  # noqa: E402
from lrlib.theory.agf import dln, linear, modular, transformer  # noqa: E402


def test_fig4_draws_two_rows_of_loss_and_spectrum():
    preds = {k: linear.conjecture(*linear.fig4_setup(seed=0, d=4, commuting=c)) for k, c in (("a", True), ("b", False))}
    T = 50
    time = np.geomspace(1e-3, 100, T)
    loss = np.ones((T, 3, 2, 2))
    sv = np.ones((T, 3, 2, 2, 4))
    fig = agf_plots.fig4(time, loss, sv, np.array([10.0, 20.0, 2.0]), np.array([1e-5, 1e-9, 0.1]), preds, 5.0)
    assert len(fig.axes) == 4 and "Figure 4" in fig._suptitle.get_text()
    plt.close(fig)


def test_fig5_draws_loss_and_projections_with_the_agf_staircase():
    pred = transformer.predict(transformer.fig5_sigma(seed=0), 32)
    steps = np.arange(1001)
    fig = agf_plots.fig5(steps, np.ones((1001, 2)), steps[::10], np.zeros((101, 2, 4)), pred, np.array([100, 200, 300, 400]),
                         np.array([0, 150, 250, 350, 450]), pred.levels, 1000)
    ax = fig.axes[0]
    assert len(fig.axes) == 2 and any(line.get_label() == "simulated AGF (seed 0)" for line in ax.get_lines())
    plt.close(fig)
    fig = agf_plots.fig5(steps, np.ones((1001, 2)), steps[::10], np.zeros((101, 2, 4)), pred, np.array([100, 200, 300, 400]),
                         np.array([0, 150, 250, 350, 450]), pred.levels, 1000, seed_index=1)
    assert any(line.get_label() == "simulated AGF (seed 1)" for line in fig.axes[0].get_lines())
    plt.close(fig)


def test_fig3_and_fig2_draw_two_panels():
    X, y, bstar = dln.fig3_data()
    agf_inf = dln.agf(X, y, 1e-100)
    t = np.linspace(0, 10, 30)
    fig = agf_plots.fig3(t, np.ones((30, 2)), t, np.zeros((30, 2, 5)), np.array([0.5, 1e-4]), agf_inf, bstar)
    assert len(fig.axes) == 2 and "Figure 3" in fig._suptitle.get_text()
    plt.close(fig)

    class Run:
        tau, levels, order = np.array([0.0, 1.0, 2.0]), np.array([3.0, 1.0, 0.1]), [[0], [1]]
        hist = {"t": np.linspace(0, 2, 10), "norm": np.full((10, 2), 0.5), "dormant": np.ones((10, 2), dtype=bool)}
    fig = agf_plots.fig2(Run())
    assert len(fig.axes) == 2 and "Figure 2" in fig._suptitle.get_text()
    plt.close(fig)


def test_fig8_draws_six_panels():
    X, y, _ = dln.fig8_data()
    pred = dln.agf(X, y, 1e-6)
    T, A = 40, 2
    u = np.full((T, A, 2), 0.1)
    fig = agf_plots.fig8(u, u, u * u, np.array([0.1, 1e-4]), np.linspace(0, 50, T), np.ones((101, A)), 0.5, pred, 1e-6, X, y)
    assert len(fig.axes) == 6 and "Figure 8" in fig._suptitle.get_text()
    plt.close(fig)


def test_fig6_and_fig6d_draw_from_fake_arrays():
    x = modular.template(20, {1: 10.0, 3: 5.0, 5: 2.5})
    pred = modular.predict(x)
    T, S, H, n = 12, 2, 6, 400
    rec = np.unique(np.geomspace(1, 1000, T).astype(int))
    t_rec = 0.01 * np.concatenate([[0], rec])                                  # flow time
    rng = np.random.RandomState(0)
    W_hist = rng.randn(len(t_rec), H, 20)
    fig = agf_plots.fig6(t_rec, np.ones((len(t_rec), S)), np.array([0.5, 2.0, 6.0]), np.array([0, 1.0, 3.0, 7.0]),
                         np.array([6.5, 1.5, 0.3, 0.0]), np.ones((4, 11)), np.ones((len(t_rec), S, 11)), pred,
                         rng.randn(len(t_rec), S, n, 20), rng.randn(n, 20), W_hist, 7, 0.1)
    assert len(fig.axes) == 6 and "Figure 6" in fig._suptitle.get_text()
    plt.close(fig)
    fig = agf_plots.fig6(t_rec, np.ones((len(t_rec), S)), np.array([0.5, 2.0, 6.0]), np.array([0, 1.0, 3.0, 7.0]),
                         np.array([6.5, 1.5, 0.3, 0.0]), np.ones((4, 11)), np.ones((len(t_rec), S, 11)), pred,
                         rng.randn(len(t_rec), S, n, 20), rng.randn(n, 20), W_hist, 7, 0.1, seed_index=1)
    assert "(seed 1)" in fig._suptitle.get_text()
    plt.close(fig)
    fig = agf_plots.fig6d(W_hist[-1], pred.order)
    assert len(fig.axes) == 3 and "Figure 6 (d)" in fig._suptitle.get_text()
    plt.close(fig)
