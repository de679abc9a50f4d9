"""Tests for lrlib.plots: the figure helpers return the axes they promise and draw what they say."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from lrlib import plots  # noqa: E402

pytestmark = pytest.mark.usefixtures("close_figures")


def test_panel_grid_returns_flat_axes_sized_per_panel():
    fig, axes = plots.panel_grid(3, 2, width=2.0, height=1.5)
    assert len(axes) == 6 and all(isinstance(ax, matplotlib.axes.Axes) for ax in axes)
    assert tuple(fig.get_size_inches()) == pytest.approx((6.0, 3.0))
    _, one = plots.panel_grid(1)
    assert len(one) == 1


def test_label_panels_prefixes_titles():
    _, axes = plots.panel_grid(2)
    axes[0].set_title("loss")
    plots.label_panels(axes)
    assert axes[0].get_title(loc="left") == "(a) loss" and axes[0].get_title() == ""
    assert axes[1].get_title(loc="left") == "(b) "


def test_mark_times_skips_non_finite_times():
    _, (ax,) = plots.panel_grid(1)
    plots.mark_times(ax, {"t1": 1.0, "t2": np.inf, "t3": 3.0})
    assert [line.get_xdata()[0] for line in ax.get_lines()] == [1.0, 3.0]
    assert [t.get_text() for t in ax.texts] == [" t1", " t3"]


def test_function_and_kinks_returns_the_twin_axes():
    from lrlib.plots import orthogonal as plot_orth
    _, (ax,) = plots.panel_grid(1)
    grid = np.linspace(-2, 2, 41)
    kinks, heights = np.array([-1.0, 0.5, 5.0]), np.array([0.3, -0.2, 1.0])
    ax2 = plot_orth.function_and_kinks(ax, grid, np.abs(grid), [0.0, 1.0], [0.0, 1.0], kinks, heights,
                                   ylim_neurons=(-1, 1), title="f")
    assert isinstance(ax2, matplotlib.axes.Axes) and ax2 is not ax
    assert ax2.get_ylim() == (-1, 1) and ax.get_title() == "f" and ax.get_xlim() == (-2, 2)
    stars = ax2.collections[0].get_offsets()
    assert np.array_equal(np.asarray(stars), [[-1.0, 0.3], [0.5, -0.2]])    # the kink at 5 is off the grid


def test_book_time_figure_draws_each_chapter_and_says_when_not_measured():
    import matplotlib.pyplot as plt

    from lrlib.plots.benchmarks import book_time_figure

    book = dict(wall_s=500.0, rows=[dict(chapter="01_a", seconds=300.0, sections={"setup": 10.0, "Fig 2": 200.0, "x": 90.0}),
                                    dict(chapter="02_b", seconds=100.0, sections={"setup": 100.0})])
    fig = book_time_figure(book, top=1)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["01_a", "02_b"]
    widths = sorted(round(p.get_width()) for p in ax.patches)
    assert widths == [100, 100, 200]          # 01_a: Fig 2 + other (setup + x); 02_b: setup
    plt.close(fig)
    empty = book_time_figure(None)
    assert "not measured" in empty.axes[0].texts[0].get_text()
    plt.close(empty)


def test_seed_switcher_inlines_one_panel_per_seed():
    import matplotlib.pyplot as plt
    import pytest

    from lrlib.plots import seed_switcher_html

    figs = [plt.subplots()[0] for _ in range(3)]
    h = seed_switcher_html("orthogonal-fig3", figs, ["a", "b", "c"])
    assert h.count('type="radio"') == 3 and h.count("data:image/png;base64,") == 3 and h.count(" checked") == 1
    assert "#orthogonal-fig3-s2:checked ~ .lr-seed-panels .lr-seed-2" in h and "http" not in h
    assert plt.get_fignums() == []                      # the figures are closed
    with pytest.raises(ValueError):
        seed_switcher_html("k", [plt.subplots()[0]], [])


def test_png_bytes_is_a_palette_png_smaller_than_the_plain_one():
    import io

    import matplotlib.pyplot as plt
    import numpy as np
    from PIL import Image

    from lrlib.plots import png_bytes

    def heatmap():
        fig, ax = plt.subplots(figsize=(4, 4))
        ax.imshow(np.random.default_rng(0).normal(size=(200, 200)), cmap="viridis", interpolation="nearest")
        return fig

    plain = io.BytesIO()
    f = heatmap()
    f.savefig(plain, format="png", dpi=110, bbox_inches="tight")
    plt.close(f)
    b = png_bytes(heatmap())
    img = Image.open(io.BytesIO(b))
    assert img.format == "PNG" and img.mode == "P" and len(b) < len(plain.getvalue())
    assert not plt.get_fignums()
