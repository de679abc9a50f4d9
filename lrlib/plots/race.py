"""Figure helpers of the race chapter (Pinson 2026).  They draw arrays the chapter computed
(:mod:`lrlib.theory.race`); they never train or compute theory."""

from __future__ import annotations

from typing import Sequence

import matplotlib.pyplot as plt
import numpy as np

from . import NEG, POS, THEORY, label_panels, panel_grid

#: colour of each XOR cluster 0..3 (centroid norms 4, 3, 1, 2)
CLUSTER_COLOURS = ["#56b4e9", "#e69f00", "#d1495b", "#009e73"]


def directions(ax, vec: np.ndarray, groups: np.ndarray, colours: Sequence[str] = CLUSTER_COLOURS, *,
               lw: float = 0.7, alpha: float = 0.8) -> None:
    """Unit vectors of ``vec (m, 2)`` drawn from the origin, coloured by ``groups (m,)``.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The panel drawn into.
    vec : np.ndarray
        ``(m, 2)`` vectors.
    groups : np.ndarray
        ``(m,)`` colour index of each.
    colours : sequence of str
        Colour of each group.
    lw : float
        Line width.
    alpha : float
        Opacity.
    
    Returns
    -------
    None
        Draws into ``ax``.
    """
    vec, groups = np.asarray(vec, dtype=float), np.asarray(groups)
    u = vec / np.linalg.norm(vec, axis=-1, keepdims=True)
    for k, c in enumerate(colours):
        sel = groups == k
        ax.plot(np.stack([np.zeros(int(sel.sum())), u[sel, 0]]), np.stack([np.zeros(int(sel.sum())), u[sel, 1]]),
                color=c, lw=lw, alpha=alpha)
    ax.set(aspect="equal", xlim=(-1.1, 1.1), ylim=(-1.1, 1.1), xticks=[], yticks=[])


def fig3_ratio(gap, ratio, exact, norm_out):
    """Figure 3: the ratio of eq. 15 against 3π/4 − φ (left), and divided by ‖w2‖ against tan (right).

    Parameters
    ----------
    gap : Tensor
        ``(m,)`` 3π/4 − φ (radians).
    ratio : Tensor
        ``(m,)`` the measured ratio of eq. 15.
    exact : Tensor
        ``(m,)`` ‖w2‖ tan(3π/4 − φ).
    norm_out : Tensor
        ``(m,)`` ‖w2‖.

    Returns
    -------
    matplotlib.figure.Figure
    """
    gap, ratio, exact, norm_out = (np.asarray(v, dtype=float) for v in (gap, ratio, exact, norm_out))
    fig, axes = panel_grid(2, width=4.2, height=3.3)
    axes[0].scatter(gap, ratio, s=5, color=POS, label="measured ratio")
    axes[0].scatter(gap, exact, s=14, facecolor="none", edgecolor=THEORY, lw=0.5, label="$\\|w_2\\|\\tan(3\\pi/4-\\phi)$")
    axes[0].set(ylim=(-0.3, 0.3), xlabel="$3\\pi/4-\\phi_\\alpha$", ylabel="$\\partial_\\phi L\\,/\\,\\partial_{\\|w_2\\|}L$",
                title=f"Figure 3 — ratio at $t=0$ ({len(gap)} neurons)")
    axes[0].legend(fontsize="small")
    xs = np.linspace(-np.pi, np.pi, 400)
    axes[1].scatter(gap, ratio / norm_out, s=5, color=POS)
    axes[1].plot(xs, np.where(np.abs(np.tan(xs)) < 12, np.tan(xs), np.nan), color=THEORY, lw=1)
    axes[1].set(ylim=(-10, 10), xlabel="$3\\pi/4-\\phi_\\alpha$", ylabel="ratio $/\\,\\|w_2\\|$", title="divided by $\\|w_2\\|$: $\\tan$")
    label_panels(axes)
    return fig


def fig9_toy(X, y, cl, norms=(4, 3, 1, 2)):
    """Figure 9: the XOR-like toy set, one marker per class, each cluster labelled with its centroid norm.

    Parameters
    ----------
    X : Tensor
        ``(N, 2)``.
    y : Tensor
        ``(N,)`` labels.
    cl : Tensor
        ``(N,)`` cluster index.
    norms : sequence of float
        Centroid norms of the clusters at 45°, 135°, 225°, 315°.

    Returns
    -------
    matplotlib.figure.Figure
    """
    X, y, cl = np.asarray(X, dtype=float), np.asarray(y), np.asarray(cl)
    fig, ax = plt.subplots(figsize=(3.6, 3.6), constrained_layout=True)
    for k in range(4):
        sel = cl == k
        cls = y[sel][0]
        ax.scatter(X[sel, 0], X[sel, 1], s=8, color=POS if cls == 0 else NEG, marker="o" if cls == 0 else "s")
        ax.text(*(X[sel].mean(0) * 1.15).tolist(), f"‖c‖={norms[k]}", fontsize="small")
    ax.set(aspect="equal", title="Figure 9 — XOR-like toy data", xlabel="$x_1$", ylabel="$x_2$")
    return fig


def fig2_xor(steps, loss, cluster_loss, drop_steps, snaps, groups, norms=(4, 3, 1, 2), seed: int = 0):
    """Figure 2: (a) the total loss and each cluster's loss (``cluster_loss (T, 4)``) with the drops
    marked; (b, c) incoming and outgoing directions at the snapshots ``snaps`` = [(t, W1, W2out)],
    coloured by ``groups`` (the cluster nearest each neuron's final incoming direction).

    Parameters
    ----------
    steps : np.ndarray
        ``(T,)`` optimiser steps.
    loss : np.ndarray
        ``(T,)`` total loss.
    cluster_loss : np.ndarray
        ``(T, 4)``.
    drop_steps : sequence of int
        Steps of the drops.
    snaps : list of tuple
        ``(t, W1 (m, 2), W2out (m, 2))`` per snapshot.
    groups : Tensor
        ``(m,)`` cluster of each neuron.
    norms : sequence of float
        Centroid norms of the clusters at 45°, 135°, 225°, 315°.
    seed : int
        The seed shown (written in the title).

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig = plt.figure(figsize=(2.3 * len(snaps), 7.0), constrained_layout=True)
    gs = fig.add_gridspec(3, len(snaps))
    axL = fig.add_subplot(gs[0, :])
    axL.plot(steps, loss, color="k", label="total")
    for k in np.argsort([-n for n in norms]):
        axL.plot(steps, np.asarray(cluster_loss)[:, k], color=CLUSTER_COLOURS[k], lw=0.9, ls="--",
                 label=f"cluster of norm {norms[k]}")
    axL.legend(fontsize="small", ncol=5)
    for t in drop_steps:
        axL.axvline(t, color=THEORY, ls=":", lw=1)
    axL.set(xlabel="step $t$ (full batch)", ylabel="loss",
            title=f"(a) Figure 2 — training loss (seed {seed}): {len(drop_steps)} drops")
    for j, (s, W1, W2) in enumerate(snaps):
        for row, vec in ((1, W1), (2, W2)):
            ax = fig.add_subplot(gs[row, j])
            directions(ax, vec, groups)
            if row == 1:
                ax.set_title(f"$t$ = {s}", fontsize="small")
            if j == 0:
                ax.set_ylabel("(b) incoming $w_1$" if row == 1 else "(c) outgoing $w_2$")
    return fig


def fig4_lazy(panels, stds, seed: int = 0):
    """Figure 4: incoming directions for each init std; ``panels[row][col] = (W1, groups, title)``
    (row 0: early, row 1: end).

    Parameters
    ----------
    panels : list of list of tuple
        ``panels[row][col] = (W1 (m, 2), groups (m,), title)``.
    stds : sequence of float
        Init std of each column.
    seed : int
        The seed shown (written in the title).

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = panel_grid(len(stds), nrows=2, width=2.4, height=2.4)
    for row, cols in enumerate(panels):
        for col, (W1, groups, title) in enumerate(cols):
            ax = axes[len(stds) * row + col]
            directions(ax, W1, groups, lw=0.6, alpha=0.7)
            ax.set_title(title)
    fig.suptitle(f"Figure 4 — incoming directions for four init scales, seed {seed} (colour: nearest target $u_k$)")
    return fig


def cos_matrix(ax, C, order, title: str) -> None:
    """A cosine-similarity matrix ``C (m, m)`` reordered by ``order`` (e.g. a clustering's leaves).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The panel drawn into.
    C : np.ndarray
        ``(m, m)``.
    order : np.ndarray
        ``(m,)`` row/column order.
    title : str
        Panel title.
    
    Returns
    -------
    None
        Draws into ``ax``.
    """
    C = np.asarray(C)
    ax.imshow(C[np.ix_(order, order)], cmap="RdBu_r", vmin=-1, vmax=1, interpolation="nearest")
    ax.set(xticks=[], yticks=[], title=title)
    ax.grid(False)


def scatter_cd_a(ax, cd, a, af, title: str) -> None:
    """``a`` against cos δ (log y), darker for a larger final ``af`` (drawn last).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The panel drawn into.
    cd : Tensor
        ``(m,)`` cos δ.
    a : Tensor
        ``(m,)`` the a drawn.
    af : Tensor
        ``(m,)`` final a (shade).
    title : str
        Panel title.
    
    Returns
    -------
    None
        Draws into ``ax``.
    """
    cd, a, af = (np.asarray(v, dtype=float) for v in (cd, a, af))
    o = np.argsort(af)
    ax.scatter(cd[o], a[o], c=np.log10(af[o]), cmap="Blues", s=9, edgecolor="0.6", linewidth=0.2)
    ax.set(yscale="log", xlabel="$\\cos\\delta_\\alpha$", title=title)


def loss_curves(ax, steps, loss, *, shown: int = 0, marks: Sequence[float] = (), title: str = "") -> None:
    """Training loss of every run (``loss (T, R)``): run ``shown`` in blue, the others grey; vertical
    dotted lines at ``marks``.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The panel drawn into.
    steps : np.ndarray
        ``(T,)``.
    loss : Tensor or np.ndarray
        ``(T, R)``.
    shown : int
        Run drawn in blue.
    marks : sequence of float
        Steps marked by dotted lines.
    title : str
        Panel title.
    
    Returns
    -------
    None
        Draws into ``ax``.
    """
    loss = np.asarray(loss, dtype=float)
    for r in range(loss.shape[1]):
        ax.plot(steps, loss[:, r], color=POS if r == shown else "0.7", lw=1.2 if r == shown else 0.7,
                zorder=3 if r == shown else 2)
    for t in marks:
        ax.axvline(t, color=THEORY, ls=":")
    ax.set(xlabel="step $t$", ylabel="training loss (full set)", yscale="log", title=title)


def fig1(steps, loss, cos_panels, cd_a_panels, *, marks: Sequence[float] = (), shown: int = 0):
    """Figure 1: (a) loss curves; (b) cosine matrices ``cos_panels = [(C, order, title)]``; (c) the 2×2
    grid ``cd_a_panels = [[(cd, a, af, title), (cd, af, af, title)], [...]]``.

    Parameters
    ----------
    steps : np.ndarray
        ``(T,)``.
    loss : Tensor
        ``(T, R)``.
    cos_panels : list of tuple
        ``(C (m, m), order (m,), title)``.
    cd_a_panels : list of list of tuple
        2×2 ``(cd, a, af, title)``.
    marks : sequence of float
        Steps marked on the loss.
    shown : int
        The run whose panels (b), (c) are drawn: its loss is blue in (a).

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig = plt.figure(figsize=(12, 12.5), constrained_layout=True)
    gs = fig.add_gridspec(3, 1, height_ratios=[0.9, 0.8, 2.0])
    loss_curves(fig.add_subplot(gs[0]), steps, loss, marks=marks, shown=shown,
                title="(a) Figure 1 — setting 1: loss at the recorded steps (blue: the seed shown, grey: the other seeds)")
    g1 = gs[1].subgridspec(1, len(cos_panels))
    for i, (C, order, title) in enumerate(cos_panels):
        cos_matrix(fig.add_subplot(g1[i]), C, order, title)
    g2 = gs[2].subgridspec(2, 2)
    for row, pair in enumerate(cd_a_panels):
        for col, args in enumerate(pair):
            scatter_cd_a(fig.add_subplot(g2[row, col]), *args)
    return fig


def cos_grid(rows, suptitle: str):
    """Rows of cosine matrices, ``rows[i] = [(C, order, title), ...]`` (Figure 6).

    Parameters
    ----------
    rows : list of list of tuple
        ``rows[i] = [(C, order, title), ...]``.
    suptitle : str
        Figure title.

    Returns
    -------
    matplotlib.figure.Figure
    """
    ncols = max(len(r) for r in rows)
    fig, axes = panel_grid(ncols, nrows=len(rows), width=2.4, height=2.5)
    for i, row in enumerate(rows):
        for j, (C, order, title) in enumerate(row):
            cos_matrix(axes[i * ncols + j], C, order, title)
    fig.suptitle(suptitle)
    return fig


def scatter_grid(rows, suptitle: str, *, loss_rows=None):
    """Rows of :func:`scatter_cd_a` panels ``rows[i] = [(cd, a, af, title), ...]``; with ``loss_rows[i] =
    (steps, loss (T,), title)`` each row starts with a loss panel (Figure 7).

    Parameters
    ----------
    rows : list of list of tuple
        ``rows[i] = [(cd, a, af, title), ...]``.
    suptitle : str
        Figure title.
    loss_rows : list of tuple or None
        ``(steps, loss (T,), title)`` per row.

    Returns
    -------
    matplotlib.figure.Figure
    """
    extra = 1 if loss_rows is not None else 0
    ncols = extra + max(len(r) for r in rows)
    fig, axes = panel_grid(ncols, nrows=len(rows), width=2.6, height=2.6)
    for i, row in enumerate(rows):
        if loss_rows is not None:
            steps, loss, title = loss_rows[i]
            loss_curves(axes[i * ncols], steps, np.asarray(loss, dtype=float).reshape(len(steps), -1), title=title)
        for j, args in enumerate(row):
            scatter_cd_a(axes[i * ncols + extra + j], *args)
    fig.suptitle(suptitle)
    return fig
