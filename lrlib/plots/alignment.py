"""Figure helpers of the alignment chapter (Min, Mallada & Vidal 2024)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.collections import LineCollection

from ..theory.alignment.measure import class_alignment, settled
from ..track import stable_rank
from . import NEG, POS, THEORY, label_panels, panel_grid


def eps_sweep(log_inv, t2, T, slope_pred, eps, dev, bound):
    """Two panels of the initialisation-scale sweep.

    (a) The fitting time ``t₂`` against ``log(1/(√h ε))`` per initialisation, with the horizon ``T``
    and a line of slope ``slope_pred`` through the median; (b) the largest deviation from the
    simplified dynamics up to ``T`` against ``ε`` (log–log), with Lemma 1's bound.

    Parameters
    ----------
    log_inv : ndarray
        ``log(1/(√h ε))`` per ε, ``(E,)``.
    t2 : ndarray
        Fitting times ``(E, R)`` (flow time).
    T : ndarray
        Horizons ``(E,)`` (flow time).
    slope_pred : float
        Predicted slope ``1/min‖x±‖`` of ``t₂`` against ``log(1/ε)``.
    eps : ndarray
        The scales ``(E,)``.
    dev, bound : ndarray
        Measured deviation and Lemma 1's bound, ``(E, R)`` (velocity units, 1/time).

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = panel_grid(2, width=4.3, height=3.3)
    ax = axes[0]
    ax.plot(log_inv, t2, "o-", color=POS, lw=0.8, ms=3, alpha=0.7)
    ax.plot(log_inv, T, "--", color="k", lw=1, label="horizon $T$")
    med = np.median(t2, 1)
    ax.plot(log_inv, med[-1] + slope_pred * (log_inv - log_inv[-1]), ":", color=THEORY, lw=1.5,
            label="slope $1/\\min\\|x_\\pm\\|$")
    ax.set(xlabel="$\\log(1/(\\sqrt{h}\\,\\varepsilon))$", ylabel="$t_2$", title="fitting time")
    ax.legend(fontsize="small")
    ax = axes[1]
    ax.loglog(eps, dev, "o-", color=NEG, lw=0.8, ms=3, alpha=0.7)
    ax.loglog(eps, bound, "--", color="k", lw=1, label="Lemma 1 bound")
    ax.set(xlabel="$\\varepsilon$", ylabel="max deviation for $t\\leq T$", title="error of the simplified dynamics")
    ax.legend(fontsize="small")
    label_panels(axes)
    return fig


def activation_timeline(time, active, y, t1, title=""):
    """Figure 4 from a trajectory: the activation pattern of one neuron over time.

    Parameters
    ----------
    time : ndarray
        Snapshot times ``(T,)`` (flow time).
    active : ndarray
        ``(T, n)`` bool, whether point ``i`` activates the neuron.
    y : ndarray
        Labels ``(n,)`` (rows sorted positives first; blue positive, red negative).
    t1 : float
        The measured alignment time, drawn dashed.
    title : str, optional
        Axes title.

    Returns
    -------
    matplotlib.figure.Figure
    """

    order = np.argsort(-np.asarray(y), kind="stable")
    fig, ax = plt.subplots(figsize=(6.4, 0.25 * len(y) + 1.4), constrained_layout=True)
    time = np.asarray(time)
    for row, i in enumerate(order):
        a = np.asarray(active[:, i], bool)
        col = POS if y[i] > 0 else NEG
        ax.fill_between(time, row - 0.4, row + 0.4, where=a, color=col, step="post", lw=0)
    ch = np.flatnonzero(np.any(np.asarray(active[1:]) != np.asarray(active[:-1]), axis=1)) + 1
    for k in ch:
        ax.axvline(time[k], color="0.7", lw=0.5, zorder=0)
    ax.axvline(t1, color=THEORY, ls="--", lw=1.2, label="$t_1$ (every neuron settled)")
    ax.set(yticks=range(len(order)), yticklabels=[f"$x_{{{i + 1}}}$ ({'+' if y[i] > 0 else '−'})" for i in order],
           xlabel="time $t$", title=title, ylim=(-0.6, len(order) - 0.4))
    ax.tick_params(axis="y", labelsize="x-small")
    ax.legend(fontsize="small", loc="upper right")
    return fig


def direction_field(circle, field, X, y):
    """Figure 1: the simplified direction field of a positive neuron on the unit circle.

    Parameters
    ----------
    circle : Tensor
        Directions ``(k, 2)`` on the unit circle.
    field : Tensor
        ``sign(v) P_w x_a(w)`` at each direction, ``(k, 2)``.
    X, y : Tensor
        Data ``(n, 2)`` and labels ``(n,)`` (blue circles positive, red squares negative).

    Returns
    -------
    matplotlib.figure.Figure
    """

    fig, ax = plt.subplots(figsize=(4.2, 4.2), constrained_layout=True)
    ax.plot(circle[:, 0], circle[:, 1], color="0.8", lw=0.8)
    ax.quiver(circle[:, 0], circle[:, 1], field[:, 0], field[:, 1], color=POS, angles="xy", scale_units="xy",
              scale=4, width=0.004)
    for x, lab in zip(X, y):
        ax.scatter(*x, color=POS if lab > 0 else NEG, s=60, marker="o" if lab > 0 else "s", zorder=4)
    ax.set(aspect="equal", title="Figure 1 — sign(v) $P_w x_a(w)$ for $v>0$ (circle: $x_1$ positive)",
           xticks=[], yticks=[])
    return fig


def cones(dirs, masks, X, y, x_plus, x_minus):
    """Figure 2: directions of the plane coloured by cone, with the data and ``x₊``, ``x₋``.

    Parameters
    ----------
    dirs : Tensor
        Unit directions ``(k, 2)``.
    masks : dict
        ``{"S_plus", "S_minus", "S_dead", "other"}`` → ``(k,)`` bool (from ``cone_membership``).
    X, y : Tensor
        Data ``(n, 2)`` and labels ``(n,)``.
    x_plus, x_minus : Tensor
        Class sums ``(2,)``.

    Returns
    -------
    matplotlib.figure.Figure
    """

    fig, ax = plt.subplots(figsize=(4.6, 4.6), constrained_layout=True)
    labels = {"S_plus": "$\\mathcal{S}_+$", "S_minus": "$\\mathcal{S}_-$", "S_dead": "$\\mathcal{S}_{dead}$", "other": "other"}
    for name, col in [("S_plus", POS), ("S_minus", NEG), ("S_dead", "0.3"), ("other", "0.85")]:
        sel = masks[name]
        ax.scatter(dirs[sel, 0], dirs[sel, 1], s=6, color=col, label=labels[name])
    for x, lab in zip(X, y):
        ax.scatter(*(0.8 * x), color=POS if lab > 0 else NEG, s=40, marker="o" if lab > 0 else "s", zorder=4)
    for v, col, nm in [(x_plus, POS, "$x_+$"), (x_minus, NEG, "$x_-$")]:
        u = 0.6 * v / v.norm()
        ax.annotate("", xy=u.tolist(), xytext=(0, 0), arrowprops=dict(color=col, width=1.5, headwidth=7))
        ax.text(*(1.15 * u).tolist(), nm, color=col)
    ax.set(aspect="equal", title="Figure 2 — the cones of the toy data", xticks=[], yticks=[])
    ax.legend(loc="lower center", ncol=4, fontsize="small", markerscale=2)
    return fig


def draw_neurons(ax, p, X, y, title):
    """Draw 2-D neurons ``w_j / max_k ‖w_k‖`` and the data scaled to the unit disc on ``ax``.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Target axes.
    p : TwoLayer
        One network, ``W1`` of shape ``(m, 2)`` (blue ``v_j > 0``, red ``v_j < 0``).
    X, y : Tensor
        Data ``(n, 2)`` and labels ``(n,)``.
    title : str
        Axes title.

    Returns
    -------
    None
    """
    w = (p.W1 / p.norms_in().max()).numpy()
    Xs = (X / X.norm(dim=-1).max()).numpy()
    for sgn, col, mk in ((1, POS, "o"), (-1, NEG, "s")):
        sel = (y * sgn > 0).numpy()
        ax.scatter(Xs[sel, 0], Xs[sel, 1], color=col, s=50, marker=mk, edgecolor="k", zorder=5)
    cols = np.where((p.a > 0).numpy(), POS, NEG)
    ax.add_collection(LineCollection([[(0, 0), tuple(wj)] for wj in w], colors=cols, linewidths=0.6, alpha=0.6))
    ax.scatter(w[:, 0], w[:, 1], c=cols, s=8, marker="^")
    ax.set(aspect="equal", xlim=(-1.1, 1.1), ylim=(-1.1, 1.1), xticks=[], yticks=[], title=title)


def toy_panels(toy, X, y, i_al, control_loss, sr, s2):
    """Figure 6: the toy run at initialisation, end of alignment and end, and its training curves.

    Parameters
    ----------
    toy : Trajectory
        One run, ``W1`` of shape ``(T, m, 2)``; x axis in iterations.
    X, y : Tensor
        Data ``(n, 2)`` and labels ``(n,)``.
    i_al : int
        Snapshot index of the end of alignment.
    control_loss : ndarray
        Loss of the control run ``(T,)``.
    sr, s2 : ndarray
        Stable rank and ``‖W‖₂²`` per snapshot, ``(T,)``.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = panel_grid(4, width=3.3, height=3.3)
    for ax, i, name in zip(axes, [0, i_al, len(toy) - 1], ["initialisation", "end of alignment", "end of training"]):
        draw_neurons(ax, toy.at(i), X, y, f"{name}, it. {toy.steps[i]:,}")
    ax = axes[3]
    ax.semilogy(toy.steps, toy.loss.numpy(), color="k", label="loss")
    ax.semilogy(toy.steps, control_loss, color="0.6", lw=1, label="loss, control (mirrored)")
    ax.semilogy(toy.steps, s2, color=THEORY, label="$\\|W\\|_2^2$")
    ax.semilogy(toy.steps, sr, color="0.5", ls="--", label="stable rank")
    ax.axvline(toy.steps[i_al], color=THEORY, ls=":", lw=1)
    ax.set(xlabel="iteration", title="training curves")
    ax.legend(fontsize="small")
    label_panels(axes)
    fig.suptitle("Figure 6 — 2-D toy: alignment, then growth")
    return fig


def toy_figure(toy, X, y, control_loss):
    """Figure 6 for one draw of the toy family (:func:`toy_panels`), with the end of its alignment.

    Parameters
    ----------
    toy, X, y, control_loss : object
        The run, its data and its control's loss, as in :func:`toy_panels`.

    Returns
    -------
    (matplotlib.figure.Figure, int)
        The figure and the iteration at which every neuron has settled
        (:func:`lrlib.theory.alignment.measure.settled`; the last one if never).
    """
    ok_t = settled(toy.params, X, y).all(-1).numpy()
    i_al = int(np.argmax(ok_t)) if ok_t.any() else len(toy) - 1
    sr, s2 = stable_rank(toy.params.W1)
    return toy_panels(toy, X, y, i_al, control_loss, sr.numpy(), s2.numpy()), int(toy.steps[i_al])


def toy_notes(iterations, n_drops, n_drops_control):
    """The per-draw notes under Figure 6's seed switcher.

    Parameters
    ----------
    iterations : sequence of int
        The end of alignment per draw (iterations).
    n_drops, n_drops_control : sequence of int
        The loss drops per draw and per mirrored control.

    Returns
    -------
    list of str
        One note per draw.
    """
    return [f"draw {r}: alignment ends at iteration {it:,}; {n_drops[r]} drop(s) (its mirrored control: "
            f"{n_drops_control[r]})" for r, it in enumerate(iterations)]


def two_point_panels(tr, X, y, counts, steps, title):
    """Figures 7–9: the neurons of one run at the given iterations.

    Parameters
    ----------
    tr : Trajectory
        One run, ``W1`` of shape ``(T, m, 2)``.
    X, y : Tensor
        Data ``(2, 2)`` and labels ``(2,)``.
    counts : dict
        ``{iteration: number of live v_j > 0 neurons outside S₊}``, written in the panels.
    steps : list of int
        Iterations to draw (one panel each).
    title : str
        Figure title.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = panel_grid(len(steps), width=2.9, height=2.9)
    for ax, step in zip(axes, steps):
        draw_neurons(ax, tr.at(tr.index_of_step(step)), X, y, f"iteration {step:,}")
        if step in counts:
            ax.text(-1.05, -1.0, f"outside $\\mathcal{{S}}_+$: {counts[step]}", fontsize="small")
    label_panels(axes)
    fig.suptitle(title)
    return fig


def mnist_figure(X, y, traj, pos, neg, fig_no, at_step=None):
    """Figures 5, 10, 11 from one MNIST run: computes the alignment bands and the stable rank, then
    draws :func:`mnist_panels`.

    Parameters
    ----------
    X, y : Tensor
        Centred images ``(n, 784)`` and labels ``(n,)``.
    traj : Trajectory
        One run (``W1`` of shape ``(T, m, 784)``), iterations on the x axes.
    pos, neg : int
        The digits labelled +1 and −1.
    fig_no : int
        The paper's figure number (title).
    at_step : int, optional
        Iteration of panel (e) (the paper's is 15 000); default: the last snapshot.

    Returns
    -------
    matplotlib.figure.Figure
    """
    sr, s2 = (v.numpy() for v in stable_rank(traj.params.W1))
    return mnist_panels(X, y, traj, pos, neg, class_alignment(traj, X, y), sr, s2, fig_no, at_step)


def mnist_panels(X, y, traj, pos, neg, bands, sr, s2, fig_no, at_step=None):
    """Figures 5, 10, 11: Gram matrix, alignment bands of V±, training curves, mean neurons and class
    means as images.

    Parameters
    ----------
    X, y : Tensor
        Centred images ``(n, 784)`` and labels ``(n,)``.
    traj : Trajectory
        One run, ``T`` snapshots.
    pos, neg, fig_no : int
        Digits labelled +1 / −1 and the paper's figure number.
    bands : dict
        ``{"+": (mean, lo, hi), "-": ...}``, each ``(T,)`` cosines (from ``class_alignment``).
    sr, s2 : ndarray
        Stable rank and ``‖W‖₂²`` per snapshot, ``(T,)``.
    at_step : int, optional
        Iteration of panel (e); default: the last snapshot.

    Returns
    -------
    matplotlib.figure.Figure
    """

    fig = plt.figure(figsize=(13, 6.4), constrained_layout=True)
    gs = fig.add_gridspec(2, 3)
    ax = fig.add_subplot(gs[0, 0])
    order = torch.argsort(-y, stable=True)
    G = (X[order] @ X[order].T).numpy()
    lim = np.quantile(np.abs(G), 0.99)
    im = ax.imshow(G, cmap="RdBu_r", vmin=-lim, vmax=lim, interpolation="nearest")
    fig.colorbar(im, ax=ax, shrink=0.8)
    ax.set(title=f"(a) Gram matrix, digit {pos} then {neg}", xticks=[], yticks=[])
    for k, (side, col) in enumerate([("+", POS), ("-", NEG)]):
        ax = fig.add_subplot(gs[0, 1 + k])
        mean_c, lo, hi = bands[side]
        ax.plot(traj.steps, mean_c, color=col, label=f"$\\cos(\\bar w_{side}, x_{side})$")
        ax.fill_between(traj.steps, lo, hi, color=col, alpha=0.25, label="min–max over $V_" + side + "$")
        ax.set(xlabel="iteration", ylim=(-1, 1.05),
               title=f"({'bc'[k]}) alignment, $V_{side}$ (digit {pos if side == '+' else neg})")
        ax.legend(loc="lower right", fontsize="small")
    ax = fig.add_subplot(gs[1, 0:2])
    ax.semilogy(traj.steps, traj.loss.numpy(), color="k", label="loss")
    ax.semilogy(traj.steps, s2, color=THEORY, label="$\\|W\\|_2^2$")
    ax.semilogy(traj.steps, sr, color="0.5", ls="--", label="stable rank $\\|W\\|_F^2/\\|W\\|_2^2$")
    ax.set(xlabel="iteration (GD, $\\eta=2\\cdot10^{-3}$)", title="(d) training curves")
    ax.legend(fontsize="small", loc="lower right")
    ax = fig.add_subplot(gs[1, 2])
    i_e = len(traj) - 1 if at_step is None else traj.index_of_step(at_step)
    fin = traj.at(i_e)
    tiles = []
    for sgn in (1, -1):
        w_mean = fin.W1[torch.sign(fin.a) == sgn].mean(0)
        x_mean = X[y == sgn].mean(0)
        tiles.append(np.hstack([(v / v.abs().max()).reshape(28, 28).numpy() for v in (w_mean, x_mean)]))
    ax.imshow(np.vstack(tiles), cmap="gray")
    ax.set(title=f"(e) $\\bar w_+$, $\\bar x_+$ (top); $\\bar w_-$, $\\bar x_-$ (bottom), it. {traj.steps[i_e]:,}",
           xticks=[], yticks=[])
    fig.suptitle(f"Figure {fig_no} — centred MNIST, digits {pos} (+1) vs {neg} (−1), {len(y)} images")
    return fig


def scheme_changes(ep, nc, dc, L, title):
    """Figures 12–13: norm change and direction change per epoch (log–log), loss on a twin axis.

    Parameters
    ----------
    ep : ndarray
        Epochs ``(T,)``.
    nc, dc : ndarray
        Norm change ``Σ_j 2⟨−∇_{w_j}L, w_j⟩`` and direction change ``Σ_j ‖P_{w_j}(−∇_{w_j}L)‖/‖w_j‖``
        (full-batch gradient) per epoch, ``(T,)``.
    L : ndarray
        Training loss ``(T,)``.
    title : str
        Axes title.

    Returns
    -------
    matplotlib.figure.Figure
    """

    fig, ax = plt.subplots(figsize=(6, 3.6), constrained_layout=True)
    ax.loglog(ep[1:], np.abs(nc[1:]), color=POS, label="norm change $\\sum_j 2\\langle-\\nabla_{w_j}L, w_j\\rangle$")
    ax.loglog(ep[1:], dc[1:], color=NEG, label="direction change $\\sum_j\\|P_{w_j}(-\\nabla_{w_j}L)\\|/\\|w_j\\|$")
    ax2 = ax.twinx()
    ax2.semilogx(ep[1:], L[1:], color="k", ls="--", lw=1)
    ax2.set_ylabel("training loss (dashed)")
    ax2.grid(False)
    ax.set(xlabel="epoch", title=title)
    ax.legend(fontsize="x-small", loc="lower left")
    return fig


def t1_scaling(mu_tab, n_tab, k_mu):
    """Theorem 1's ``t₁`` against ``μ`` (log–log, with a ``1/√μ`` line) and against ``n``.

    Parameters
    ----------
    mu_tab : pandas.DataFrame
        Columns ``mu`` and ``t1_median`` (flow time), one row per two-point data set.
    n_tab : pandas.DataFrame
        Columns ``n`` and ``t1_median``, one row per size of the synthetic family.
    k_mu : float
        Log–log slope of the medians against ``μ`` (shown in the title).

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = panel_grid(2, width=4.2, height=3.2)
    axes[0].loglog(mu_tab.mu, mu_tab.t1_median, "o-", color=POS, label="measured $t_1$ (median)")
    axes[0].loglog(mu_tab.mu, mu_tab.t1_median.iloc[0] * np.sqrt(mu_tab.mu.iloc[0] / mu_tab.mu), "--", color=THEORY,
                   label="$\\propto 1/\\sqrt{\\mu}$")
    axes[0].set(xlabel="$\\mu$", ylabel="$t_1$", title=f"two points: slope of the medians {k_mu:.2f}")
    axes[0].legend(fontsize="small")
    axes[1].semilogx(n_tab.n, n_tab.t1_median, "o-", color=NEG)
    axes[1].set(xlabel="$n$", ylabel="$t_1$", title="synthetic family")
    label_panels(axes)
    return fig
