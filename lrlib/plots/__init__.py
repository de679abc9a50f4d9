"""Seaborn helpers in one house style, and gluing figures into the book.

Plots never compute theory or train: they take measurements from :mod:`lrlib.measure`, :mod:`lrlib.track`
and numbers from :mod:`lrlib.theory`.
"""

from __future__ import annotations

import base64
import html
import io
import re
from typing import Sequence

import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns
from IPython.display import HTML
from matplotlib.figure import Figure
from myst_nb import glue as _myst_glue
from PIL import Image

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


def glue(key: str, obj, *, display: bool = True) -> None:
    """Glue a figure, or any displayable object (an animation's or a seed switcher's HTML, a
    number), into the book: the one way every chapter glues (``myst_nb.glue``). A figure is closed
    after gluing, so that the notebook shows it only where ``display`` asks.

    Parameters
    ----------
    key : str
        The glue key, ``<chapter>-fig<N>`` for a figure of the paper.
    obj : Figure or object
        The figure or object.
    display : bool
        Also display it in the notebook's output (``myst_nb.glue``'s ``display``).
    """
    _myst_glue(key, obj, display=display)
    if isinstance(obj, Figure):
        plt.close(obj)


def png_bytes(fig, dpi: int = 110) -> bytes:
    """A figure as a compact PNG, and the figure closed: drawn at ``dpi``, then reduced to an adaptive
    256-colour palette (a seed switcher inlines five figures in the page; the palette makes a heatmap's
    PNG several times smaller and looks the same).

    Parameters
    ----------
    fig : Figure
        The figure.
    dpi : int
        Resolution.

    Returns
    -------
    bytes
        The PNG file's bytes.
    """
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    buf.seek(0)
    img = Image.open(buf).convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    out = io.BytesIO()
    img.save(out, format="PNG", optimize=True)
    return out.getvalue()


def seed_switcher_html(key: str, figs: Sequence, notes: Sequence[str], *, labels: Sequence[str] | None = None,
                       dpi: int = 96) -> str:
    """A static control that shows one seed's figure at a time: radio buttons and CSS, no script,
    no kernel, no network (the images are inlined as PNG).

    Parameters
    ----------
    key : str
        The figure's glue key (``<chapter>-fig<N>``); it names the control's elements.
    figs : sequence of Figure
        One figure per seed, seed 0 first (shown at first); each is closed.
    notes : sequence of str
        One line per seed shown under its figure: the numbers the caption quotes, for that seed.
    labels : sequence of str or None
        The buttons' labels; ``None``: ``seed 0``, ``seed 1``, ...
    dpi : int
        Resolution of the inlined images.

    Returns
    -------
    str
        HTML (an ``.lr-seeds`` block).
    """
    if len(figs) != len(notes) or not figs:
        raise ValueError("seed_switcher_html: one note per figure, at least one figure")
    labels = list(labels) if labels is not None else [f"seed {i}" for i in range(len(figs))]
    uid = re.sub(r"[^A-Za-z0-9_-]", "-", key)
    css = [f"#lr-seeds-{uid} .lr-seed-panel {{ display: none; }}"]
    radios, panels = [], []
    for i, (fig, note, lab) in enumerate(zip(figs, notes, labels)):
        png = base64.b64encode(png_bytes(fig, dpi)).decode()
        css.append(f"#lr-seeds-{uid} #{uid}-s{i}:checked ~ .lr-seed-panels .lr-seed-{i} {{ display: block; }}")
        radios.append(f'<input type="radio" name="{uid}-seed" id="{uid}-s{i}" value="{i}"{" checked" if i == 0 else ""}>'
                      f'<label for="{uid}-s{i}">{html.escape(lab)}</label>')
        panels.append(f'<div class="lr-seed-panel lr-seed-{i}"><img src="data:image/png;base64,{png}" '
                      f'alt="{html.escape(key)}, {html.escape(lab)}"><p class="lr-seed-note">{html.escape(note)}</p></div>')
    return (f'<div class="lr-seeds" id="lr-seeds-{uid}"><style>{" ".join(css)}</style>'
            f'<span class="lr-seed-pick">Show: </span>{"".join(radios)}'
            f'<div class="lr-seed-panels">{"".join(panels)}</div></div>')


def glue_seeds(key: str, figs: Sequence, notes: Sequence[str], **kw) -> None:
    """Glue a figure with one panel set per seed and a control to switch between them.

    The ``{glue:figure}`` caption says what to compare; the numbers for the seed shown stand in
    the note under each seed's figure (:func:`seed_switcher_html`).

    Parameters
    ----------
    key : str
        The glue key, ``<chapter>-fig<N>``.
    figs, notes : sequence
        One figure and one note per seed (see :func:`seed_switcher_html`).
    **kw : object
        Passed to :func:`seed_switcher_html`.
    """
    glue(key, HTML(seed_switcher_html(key, figs, notes, **kw)), display=False)


__all__ = ["POS", "NEG", "OTHER", "THEORY", "FUNC", "PALETTE", "set_style", "panel_grid",
           "label_panels", "mark_times", "glue", "glue_seeds", "png_bytes", "seed_switcher_html"]
