"""Seaborn helpers in one house style, and gluing figures into the book.

Plots never compute theory or train: they take measurements from :mod:`lrlib.measure`, :mod:`lrlib.track`
and numbers from :mod:`lrlib.theory`.
"""

from __future__ import annotations

from typing import Sequence

import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns

#: Colours with a fixed meaning across the book.
POS = "#1f6fb4"   # positive-sign neurons / positive labels
NEG = "#d1495b"   # negative-sign neurons / negative labels
OTHER = "#8c8c8c"  # everything else
THEORY = "#2a9d8f"  # theory predictions
FUNC = "#3b8b3b"   # the network function
PALETTE = [POS, NEG, THEORY, "#e9a03b", "#6c4f9c", OTHER]


def set_style() -> None:
    """The house style: seaborn ``ticks`` with a muted grid, one palette, readable sizes."""
    sns.set_theme(context="notebook", style="ticks", palette=PALETTE, font_scale=0.9,
                  rc={"axes.grid": True, "grid.alpha": 0.3, "figure.dpi": 110,
                      "savefig.dpi": 110, "axes.spines.top": False, "axes.spines.right": False,
                      "legend.frameon": False})


def panel_grid(ncols: int, nrows: int = 1, *, width: float = 3.4, height: float = 2.9, **kw):
    """A figure with a grid of axes sized per panel (constrained layout).

    Parameters
    ----------
    ncols, nrows : int
        Columns and rows of panels.
    width, height : float
        Size of one panel in inches.
    **kw
        Passed to :func:`matplotlib.pyplot.subplots` (e.g. ``sharey=True``).

    Returns
    -------
    fig : Figure
    axes : np.ndarray
        The ``nrows · ncols`` axes, flattened row by row.
    """
    fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows), squeeze=False,
                             constrained_layout=True, **kw)
    return fig, axes.ravel()


def label_panels(axes: Sequence, letters: str = "abcdefghijklmnop") -> None:
    """Write (a), (b), … in the upper-left corner of each panel, before its title.

    Parameters
    ----------
    axes : sequence of Axes
        The panels, in order.
    letters : str
        The labels' letters, one per panel.
    """
    for ax, c in zip(axes, letters):
        title = ax.get_title()
        ax.set_title("")
        ax.set_title(f"({c}) {title}", loc="left", fontsize="medium")


def mark_times(ax, times: dict[str, float], *, color: str = THEORY, ymax: float = 0.97) -> None:
    """Vertical dashed lines with labels at the given (named) times.

    Parameters
    ----------
    ax : Axes
        The panel.
    times : dict of str to float
        Label → time in the x-axis's units; a non-finite time is skipped.
    color : str
        Colour of lines and labels (default: the theory colour).
    ymax : float
        Height of the first label in axes coordinates; successive labels cycle through three heights below it.
    """
    for i, (name, t) in enumerate(times.items()):
        if np.isfinite(t):
            ax.axvline(t, color=color, ls="--", lw=1)
            ax.text(t, ymax - 0.08 * (i % 3), f" {name}", transform=ax.get_xaxis_transform(),
                    color=color, fontsize="small", va="top")


def glue(key: str, fig, *, display: bool = True) -> None:
    """Glue a figure into the book and close it.

    Outside a Jupyter Book build (no ``myst_nb``) the figure is just shown.

    Parameters
    ----------
    key : str
        The glue key, ``<chapter>-fig<N>``.
    fig : Figure
        The figure.
    display : bool
        Also display it in the notebook's output (``myst_nb.glue``'s ``display``).
    """
    try:
        from myst_nb import glue as _glue
    except ImportError:  # pragma: no cover - myst_nb ships with jupyter-book
        plt.show()
        return
    _glue(key, fig, display=display)
    plt.close(fig)


__all__ = ["POS", "NEG", "OTHER", "THEORY", "FUNC", "PALETTE", "set_style", "panel_grid",
           "label_panels", "mark_times", "glue"]
