"""Figure helpers of the orthogonal chapter (Boursier, Pillaud-Vivien & Flammarion 2022): the 1-D panels of
Figures 2, 4 and 5, Figure 1 from a run, the neuron animations, the λ figure and the unbalanced-initialisation figure. Times are
paper time t unless a docstring says otherwise."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

import torch

from ..models import forward
from ..theory.orthogonal.report import iteration_numbers
from . import FUNC, NEG, POS, THEORY, label_panels, mark_times, panel_grid


def lambda_panels(time: np.ndarray, losses: dict[float, np.ndarray], lams: np.ndarray, dwell: np.ndarray,
                  plateau: float, threshold: float = 0.5):
    """The λ figure (§3.1's remark on larger λ).

    (a) The loss of one draw against paper time for each λ; (b) the time each seed's loss dwells at the
    plateau level, against λ, with the claim's threshold.

    Parameters
    ----------
    time : ndarray
        ``(T,)`` snapshot times (paper time t).
    losses : dict
        ``{λ: (T,) loss}`` (½-mean loss L), one curve per λ.
    lams : ndarray
        ``(K,)`` the λ of the columns of ``dwell``.
    dwell : ndarray
        ``(seeds, K)`` dwell at the plateau level, in units of ``1/‖D₋‖`` (0 is drawn as 0.01).
    plateau : float
        The plateau (saddle) loss level, drawn dotted.
    threshold : float
        The claim's bound on the dwell at λ = 0.1, drawn dashed.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = panel_grid(2, width=4.6, height=3.4)
    cmap = plt.get_cmap("viridis")
    for k, (lam, L) in enumerate(sorted(losses.items())):
        axes[0].semilogy(time, L, color=cmap(k / max(len(losses) - 1, 1)), lw=1.2, label=f"$\\lambda$={lam:.0e}")
    axes[0].axhline(plateau, color=THEORY, ls=":", lw=1)
    axes[0].set(xlabel="paper time $t$", ylabel="loss $L$", ylim=(1e-8, 2), title="seed 0: the plateau shortens as λ grows")
    axes[0].legend(fontsize="x-small", ncol=2)
    for s in range(dwell.shape[0]):
        axes[1].loglog(lams, np.maximum(dwell[s], 1e-2), "o-", color=POS if s == 0 else "0.6", alpha=0.8)
    axes[1].axhline(threshold, color=NEG, ls="--", lw=1, label=f"claim: < {threshold:g} at λ = 0.1")
    axes[1].set(xlabel="$\\lambda$", ylabel="time at the plateau level × $\\|D_-\\|$", title="dwell at the saddle (0 shown as 0.01)")
    axes[1].legend(fontsize="x-small")
    label_panels(axes)
    return fig


def neuron_animation(P: np.ndarray, a: np.ndarray, titles: list[str], *, dpi: int = 60, size: float = 3.6,
                     interval: int = 150):
    """An animation of the neurons over time, as HTML/JavaScript (``to_jshtml``: no ffmpeg needed).

    Drawn in polar axes: angle = the neuron's direction, radius = ``log10`` of its norm (norms span many
    decades from a small initialisation), shifted so that the smallest norm sits at radius 0.

    Parameters
    ----------
    P : ndarray
        ``(F, m, 2)`` each neuron's 2-D coordinates per frame (its weights for 1-D inputs with a bias
        coordinate, or a projection on two principal components).
    a : ndarray
        ``(F, m)`` output weights (colour = sign).
    titles : list of str
        One title per frame.
    dpi : int
        Resolution of the frames.
    size : float
        Figure size (inches).
    interval : int
        Delay between frames (milliseconds).

    Returns
    -------
    IPython.display.HTML
        The animation (the figure is closed).

    Raises
    ------
    ValueError
        If the shapes do not match.
    """
    # lazy imports: IPython and matplotlib's animation writer are needed only for this figure
    from IPython.display import HTML
    from matplotlib import animation

    if P.ndim != 3 or P.shape[-1] != 2 or a.shape != P.shape[:2] or len(titles) != P.shape[0]:
        raise ValueError("neuron_animation needs P (F, m, 2), a (F, m) and one title per frame")
    norm = np.hypot(P[..., 0], P[..., 1])
    logn = np.log10(np.maximum(norm, 1e-300))
    lo = np.floor(logn[norm > 0].min()) if (norm > 0).any() else 0.0
    r, th = np.maximum(logn - lo, 0), np.arctan2(P[..., 1], P[..., 0])
    fig = plt.figure(figsize=(size, size), dpi=dpi)
    ax = fig.add_subplot(projection="polar")
    ax.set_ylim(0, r.max() * 1.05 + 1e-9)
    ax.tick_params(labelsize="x-small")
    colors = np.where(a > 0, POS, NEG)
    sc = ax.scatter(th[0], r[0], s=12, c=colors[0])
    title = ax.set_title(titles[0], fontsize="small")
    fig.text(0.01, 0.01, f"radius: log10 norm + {-lo:.0f}", fontsize="x-small")

    def update(k):
        sc.set_offsets(np.c_[th[k], r[k]])
        sc.set_color(colors[k])
        title.set_text(titles[k])
        return sc, title

    anim = animation.FuncAnimation(fig, update, frames=P.shape[0], interval=interval, blit=False)
    html = HTML(anim.to_jshtml(default_mode="once"))
    plt.close(fig)
    return html


def function_and_kinks(ax, grid, h, x, y, kinks, heights, *, ylim_neurons=None, title: str = ""):
    """Boursier et al.'s 1-D panel: the network function and its neurons.

    The function on ``grid`` (left axis, green, with the data), and each neuron ``j`` as a star at its
    kink ``−b_j/w_j`` with height ``a_j`` (right axis, coloured by sign).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    grid : ndarray
        ``(G,)`` the x values.
    h : ndarray
        ``(G,)`` the network function on ``grid``.
    x, y : ndarray
        ``(n,)`` the data.
    kinks, heights : ndarray
        ``(m,)`` each neuron's kink and output weight ``a_j`` (kinks outside the grid are not drawn).
    ylim_neurons : tuple of float or None
        Limits of the right axis.
    title : str
        Panel title.

    Returns
    -------
    matplotlib.axes.Axes
        The right (neuron) axis.
    """
    ax.plot(grid, h, color=FUNC, lw=1.8, label="network $h_\\theta(x)$")
    ax.scatter(x, y, color="k", zorder=5, s=25, label="data")
    ax.set_xlabel("$x$")
    ax.set_ylabel("$h_\\theta(x)$", color=FUNC)
    ax.set_xlim(grid[0], grid[-1])
    ax2 = ax.twinx()
    ax2.grid(False)
    inside = (kinks >= grid[0]) & (kinks <= grid[-1])
    ax2.scatter(kinks[inside], heights[inside], marker="*", s=40,
                c=[POS if h_ > 0 else NEG for h_ in heights[inside]], zorder=4)
    ax2.set_ylabel("neuron $a_j$ at its kink", color=POS)
    if ylim_neurons is not None:
        ax2.set_ylim(*ylim_neurons)
    ax.set_title(title)
    return ax2


def draw_1d_panels(nets, X, y, axes, grid, titles) -> None:
    """The paper's 1-D panels, one per network.

    For each network (one run, inputs ``(x, 1)``): its function on ``grid`` and each neuron at its kink
    ``−w_{j,2}/w_{j,1}`` with height ``a_j`` (:func:`function_and_kinks`).

    Parameters
    ----------
    nets : sequence of TwoLayer
        One run each, ``W1 (m, 2)``.
    X : Tensor
        ``(n, 2)`` inputs ``(x_k, 1)``.
    y : Tensor
        ``(n,)`` labels.
    axes : sequence of matplotlib.axes.Axes
        One per network.
    grid : Tensor
        ``(G,)`` the x values.
    titles : sequence of str
        One per network.
    """
    Z = torch.stack([grid, torch.ones_like(grid)], -1)
    for ax, p, title in zip(axes, nets, titles):
        w = p.W1.numpy()
        kinks = -w[:, 1] / np.where(w[:, 0] == 0, np.nan, w[:, 0])
        function_and_kinks(ax, grid.numpy(), forward(p, Z)[:, 0].numpy(), X[:, 0].numpy(), y.numpy(),
                           kinks, p.a.numpy(), title=title)


def excess_vs_lambda(lams: np.ndarray, curves: dict, threshold: float = 0.01):
    """The unbalanced-initialisation figure: the relative excess of ``‖θ‖²`` over the minimal
    interpolating norm against λ, one line per run.

    Parameters
    ----------
    lams : ndarray
        ``(K,)`` initialisation scales λ.
    curves : dict
        ``{label: (values, colour, linestyle)}`` with ``values (rows, K)`` (or ``(K,)``), the excess
        (dimensionless) of each run at each λ; the first row of each entry is drawn darker.
    threshold : float
        The claim's bound at the smallest λ, drawn dashed.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, ax = plt.subplots(figsize=(5.6, 3.6), constrained_layout=True)
    for label, (vals, color, ls) in curves.items():
        for s, row in enumerate(np.atleast_2d(np.asarray(vals, dtype=float))):
            ax.loglog(lams, row, ls, color=color, lw=1.2, alpha=1.0 if s == 0 else 0.45, label=label if s == 0 else None)
    ax.axhline(threshold, color=THEORY, ls="--", lw=1, label=f"claim: < {threshold:g} at the smallest λ")
    ax.set(xlabel="$\\lambda$", ylabel="$(\\|\\theta\\|^2-\\|\\theta^*\\|^2)/\\|\\theta^*\\|^2$",
           title="distance to the minimal norm, balanced vs unbalanced start")
    ax.legend(fontsize="x-small")
    return fig


def four_phases(time: np.ndarray, loss: np.ndarray, u_plus: np.ndarray, u_minus: np.ndarray, limits: tuple,
                times: dict, plateau: float, t_end: float, title: str):
    """Figure 1 from a run: the loss with the four phases shaded, and the fitted masses.

    Parameters
    ----------
    time : np.ndarray
        ``(T,)`` paper time.
    loss : np.ndarray
        ``(T,)`` the loss ``L``.
    u_plus, u_minus : np.ndarray
        ``(T,)`` the fitted masses ``u_± = Σ_{S_{±,1}} ‖w_j‖²``.
    limits : tuple of float
        Their limits ``(n‖D_+‖, n‖D_−‖)`` (dotted).
    times : dict
        The theory's times by label: ``t_{+1}``, ``t_{-1}``, then the two growth times, in this order
        (they bound the shaded phases).
    plateau : float
        The plateau level (dotted).
    t_end : float
        The end of the run.
    title : str
        The top panel's title.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(7, 5.2), sharex=True, constrained_layout=True)
    ax1.semilogy(time, loss, color="k", lw=1.6, label="loss $L$")
    ax1.axhline(plateau, color=THEORY, ls=":", label="plateau $\\frac{1}{2n}\\sum_{y<0}y^2$")
    mark_times(ax1, times)
    t1, t2, t3 = list(times.values())[1:4]
    ax1.set(ylabel="$L$", ylim=(1e-12, 2), xlim=(0, 1.4 * t3), title=title)
    phases = [(0, t1, "1: alignment"), (t1, t2, "2: fit $y_+$"), (t2, t3, "3: plateau, then fit $y_-$"),
              (t3, t_end, "4: convergence")]
    for k, (lo, hi, name) in enumerate(phases):
        ax1.axvspan(lo, hi, color=["#eeeeee", "#dce9f5", "#f7e1e4", "#e3f1ee"][k], zorder=0)
        ax1.text((lo + hi) / 2, 3e-12 * 30 ** (k % 2), name, ha="center", fontsize="x-small")
    ax1.legend(loc="center right")
    ax2.plot(time, u_plus, color=POS, label="$u_+=\\sum_{S_{+,1}}\\|w_j\\|^2$")
    ax2.plot(time, u_minus, color=NEG, label="$u_-=\\sum_{S_{-,1}}\\|w_j\\|^2$")
    ax2.axhline(limits[0], color=POS, ls=":", lw=1)
    ax2.axhline(limits[1], color=NEG, ls=":", lw=1)
    ax2.set(xlabel="paper time $t$ (GF on $L$)", ylabel="fitted mass")
    ax2.legend(loc="center right")
    return fig


def saddle_panels(nets, X, y, grid, it: np.ndarray, loss: np.ndarray, idx: list, plateau: tuple, title: str):
    """Figure 4: five 1-D panels (:func:`draw_1d_panels`) and the loss of every seed, one highlighted.

    Parameters
    ----------
    nets : sequence of TwoLayer
        The five snapshots of the seed shown.
    X, y, grid : Tensor
        As in :func:`draw_1d_panels`.
    it : np.ndarray
        ``(T,)`` iterations.
    loss : np.ndarray
        ``(T, R)`` every seed's loss, the seed shown first.
    idx : list of int
        The snapshots' indices into ``it`` (dotted lines).
    plateau : tuple of int
        First and last index of the seed's plateau (shaded).
    title : str
        The figure's title.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = panel_grid(3, 2, width=3.8)
    draw_1d_panels(nets, X, y, axes[:5], grid, iteration_labels(it, idx))
    axes[5].semilogy(it, loss[:, 1:], color="0.75", lw=0.8)
    axes[5].semilogy(it, loss[:, 0], color="k")
    axes[5].axvspan(it[plateau[0]], it[plateau[1]], color="#f7e1e4", label="plateau")
    for i in idx:
        axes[5].axvline(it[i], color=THEORY, ls=":", lw=1)
    axes[5].set(xlabel="iteration (η = 1e-3 equivalent)", ylabel="mean-MSE loss", title="loss (grey: other seeds)")
    axes[5].legend()
    label_panels(axes)
    fig.suptitle(title)
    return fig


def polar_snapshots(P: np.ndarray, a: np.ndarray, titles: list[str], title: str):
    """Figure 6: the neurons of one run projected on two principal directions, in polar coordinates.

    Parameters
    ----------
    P : np.ndarray
        ``(K, m, 2)`` the projections of the ``m`` neurons at ``K`` snapshots.
    a : np.ndarray
        ``(K, m)`` the output weights (colour: blue ``a_j > 0``, red ``a_j < 0``).
    titles : list of str
        One panel title per snapshot.
    title : str
        The figure's title.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig = plt.figure(figsize=(3.25 * len(titles), 3.6), constrained_layout=True)
    for k, (Pk, ak) in enumerate(zip(P, a)):
        ax = fig.add_subplot(1, len(titles), k + 1, projection="polar")
        ax.scatter(np.arctan2(Pk[:, 1], Pk[:, 0]), np.hypot(Pk[:, 0], Pk[:, 1]), s=10,
                   c=[POS if v > 0 else NEG for v in ak])
        ax.set_title(f"({'abcdefgh'[k]}) {titles[k]}", fontsize="medium")
        ax.tick_params(labelsize="x-small")
    fig.suptitle(title)
    return fig


def loss_and_spectrum(it: np.ndarray, loss: np.ndarray, ev: np.ndarray, *, plateaus=(), extra=(),
                      marks=(), title: str = ""):
    """Figure 7: every seed's loss (the seed shown in black, first column) and its explained variances.

    Parameters
    ----------
    it : np.ndarray
        ``(T,)`` iterations.
    loss : np.ndarray
        ``(T, R)`` every seed's loss, the seed shown first.
    ev : np.ndarray
        ``(k,)`` the shown seed's explained variance ratios, largest first.
    plateaus : sequence of (float, float)
        Iteration ranges shaded as the seed's plateaus.
    extra : sequence of (np.ndarray, np.ndarray, dict)
        Further curves ``(it, loss, plot kwargs)`` (a rerun, a control), drawn with a label.
    marks : sequence of (float, dict)
        Vertical lines ``(iteration, axvline kwargs)``.
    title : str
        The figure's title.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = panel_grid(2, width=4.4)
    axes[0].semilogy(it, loss[:, 1:], color="0.75", lw=0.8)
    axes[0].semilogy(it, loss[:, 0], color="k", label="seed shown")
    for x, y, kw in extra:
        axes[0].semilogy(x, y, **kw)
    for a_, b_ in plateaus:
        axes[0].axvspan(a_, b_, color="#f7e1e4")
    for x, kw in marks:
        axes[0].axvline(x, **kw)
    axes[0].set(xlabel="iteration ($\\eta=10^{-3}$ equivalent)", ylabel="mean-MSE loss",
                title="training loss (grey: other seeds)")
    axes[0].legend(fontsize="x-small")
    n = min(10, len(ev))
    axes[1].bar(np.arange(1, n + 1), ev[:n], color=POS)
    axes[1].set(xlabel="principal component", ylabel="explained variance ratio", title=f"top-2: {ev[:2].sum():.2f}")
    label_panels(axes)
    fig.suptitle(title)
    return fig


def toy_losses(loss: np.ndarray, control: np.ndarray, level: float, times: dict, title: str):
    """Figure 3: every seed's loss on the toy (seed 0 in colour), the large-initialisation control, the
    plateau level and the predicted phase times.

    Parameters
    ----------
    loss : np.ndarray
        ``(T, R)`` every seed's dense loss (one value per iteration), seed 0 first.
    control : np.ndarray
        ``(T',)`` the control run's dense loss.
    level : float
        The plateau level (dotted).
    times : dict
        Label → iteration, marked with :func:`lrlib.plots.mark_times`.
    title : str
        The axes' title.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, ax = plt.subplots(figsize=(6.5, 3.4), constrained_layout=True)
    ax.plot(np.arange(loss.shape[0]), loss[:, 1:], color="0.7", lw=0.8, zorder=2)
    ax.plot([], [], color="0.7", lw=0.8, label="other seeds")
    ax.plot(np.arange(loss.shape[0]), loss[:, 0], color=POS, lw=1.8, zorder=3, label="seed 0")
    ax.plot(np.arange(control.shape[0]), control, color="k", ls="--", lw=1, label="control: $\\lambda=1$")
    ax.axhline(level, color=THEORY, ls=":", lw=1, label="plateau level $\\frac{1}{n}\\sum_{y<0}y^2$")
    mark_times(ax, times)
    ax.set(xlabel="iteration (GD step $\\eta=10^{-3}$; paper time $=2\\eta\\cdot$iteration)",
           ylabel="mean-MSE loss $2L$", title=title, ylim=(-0.02, 1.1))
    ax.legend(loc="lower left")
    return fig


def deviations_vs_lambda(lams: np.ndarray, devs: dict, title: str):
    """One log-log panel per deviation from the limit against λ (λ decreasing to the right), every seed.

    Parameters
    ----------
    lams : np.ndarray
        ``(K,)`` the λ values.
    devs : dict
        Panel title → ``(R, K)`` deviations (absolute values are drawn).
    title : str
        The figure's title.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = panel_grid(len(devs), width=3.3, height=3.0)
    for ax, (name, dev) in zip(axes, devs.items()):
        ax.loglog(lams, np.abs(dev).T, "o-", ms=3, color="0.4", alpha=0.8)
        ax.set(xlabel="$\\lambda$", title=name)
        ax.invert_xaxis()
    label_panels(axes)
    fig.suptitle(title)
    return fig


def half_fit_and_plateau(logs: np.ndarray, t2: np.ndarray, t3: np.ndarray, slopes: tuple[float, float],
                         lams: np.ndarray, plateau: np.ndarray, level: float):
    """The λ-sweep's figure: (a) the half-fit times against ``ln(1/λ)`` with the theory's slopes through
    the deepest point, (b) the plateau level against λ.

    Parameters
    ----------
    logs : np.ndarray
        ``(K,)`` ``ln(1/λ)``.
    t2, t3 : np.ndarray
        ``(R, K)`` the half-fit times of the positive and negative clusters (paper time).
    slopes : tuple of float
        The theory's slopes ``(1/‖D₊‖, 1/‖D₋‖)``.
    lams : np.ndarray
        ``(K,)`` λ.
    plateau : np.ndarray
        ``(R, K)`` the loss between the two half-fit times.
    level : float
        The predicted plateau level.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = panel_grid(2, width=4.2, height=3.2)
    for t, col, mk, name, sl in ((t2, POS, "o-", "$t_2^{1/2}$", slopes[0]), (t3, NEG, "s-", "$t_3^{1/2}$", slopes[1])):
        axes[0].plot(logs, t.T, mk, color=col, alpha=0.6)
        axes[0].plot([], [], mk, color=col, label=name)
        axes[0].plot(logs, np.nanmean(t[:, -1]) + sl * (logs - logs[-1]), "--", color=THEORY, lw=1)
    axes[0].set(xlabel="$\\ln(1/\\lambda)$", ylabel="paper time", title="half-fit times (dashed: theory slopes)")
    axes[0].legend()
    axes[1].semilogx(lams, plateau.T, "o-", color="0.4", alpha=0.7)
    axes[1].axhline(level, color=THEORY, ls="--", label="$\\frac{1}{2n}\\sum_{y<0}y^2$")
    axes[1].set(xlabel="$\\lambda$", ylabel="loss midway between $t_2^{1/2}$ and $t_3^{1/2}$", title="plateau level")
    axes[1].legend()
    return fig


def lazy_panels(nets, X, y, grid, h_ntk: np.ndarray, title: str):
    """Figure 5: the network at initialisation and at the end (:func:`draw_1d_panels`), with the kernel
    (NTK) interpolator at initialisation dashed on the second panel.

    Parameters
    ----------
    nets : sequence of TwoLayer
        The two snapshots of one run.
    X, y, grid : Tensor
        As in :func:`draw_1d_panels`.
    h_ntk : np.ndarray
        ``(G,)`` the NTK interpolator on ``grid``.
    title : str
        The figure's title.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = panel_grid(2, width=4.4)
    draw_1d_panels(nets, X, y, axes, grid, ["initialisation", "end of training"])
    axes[1].plot(grid.numpy(), h_ntk, color=THEORY, ls="--", lw=1.2, label="NTK interpolator at init")
    axes[1].legend(fontsize="x-small", loc="lower left")
    label_panels(axes)
    fig.suptitle(title)
    return fig


def snapshot_panels(nets, X, y, grid, titles: list[str], title: str):
    """Figure 2: one 1-D panel per snapshot of a run (:func:`draw_1d_panels`), in a row.

    Parameters
    ----------
    nets : sequence of TwoLayer
        The snapshots.
    X, y, grid : Tensor
        As in :func:`draw_1d_panels`.
    titles : list of str
        One title per panel.
    title : str
        The figure's title.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = panel_grid(len(nets), width=3.6)
    draw_1d_panels(nets, X, y, axes, grid, titles)
    label_panels(axes)
    fig.suptitle(title)
    return fig


def iteration_labels(steps: np.ndarray, idx, scale: float = 1.0) -> list[str]:
    """Panel titles ``iteration 12,345`` for some snapshots (the numbers of
    :func:`~lrlib.theory.orthogonal.report.iteration_numbers`).

    Parameters
    ----------
    steps : ndarray
        As in :func:`~lrlib.theory.orthogonal.report.iteration_numbers`.
    idx : sequence of int
        As there.
    scale : float
        As there.

    Returns
    -------
    list of str
        One title per index.
    """
    return [f"iteration {n}" for n in iteration_numbers(steps, idx, scale)]


def run_snapshots(traj, idx, X, y, grid, title: str):
    """Figure 2: :func:`snapshot_panels` of one run at some snapshots, titled by their iteration.

    Parameters
    ----------
    traj : Trajectory
        One run (1-D inputs with a bias coordinate, as in :func:`draw_1d_panels`).
    idx : sequence of int
        Snapshot indices, one panel each.
    X, y, grid : Tensor
        As in :func:`draw_1d_panels`.
    title : str
        The figure's title.

    Returns
    -------
    matplotlib.figure.Figure
    """
    return snapshot_panels([traj.at(i) for i in idx], X, y, grid, iteration_labels(traj.steps, idx), title)


def phase_marks(pt, per: float = 1.0, exits: bool = True) -> dict:
    """The predicted times marked on a loss curve (Figures 1 and 3), by their TeX label.

    Parameters
    ----------
    pt : lrlib.theory.orthogonal.PhaseTimes
        The predicted times (paper time).
    per : float
        Paper time per unit of the figure's axis (e.g. ``2η`` for an axis in iterations).
    exits : bool
        Also mark the ends of alignment ``t_{+1}``, ``t_{-1}``.

    Returns
    -------
    dict
        Label → time in the axis' unit: ``ln(1/λ)/‖D_±‖`` and, with ``exits``, ``t_{±1}``.
    """
    marks = {"$t_{+1}$": pt.t_plus1 / per, "$t_{-1}$": pt.t_minus1 / per} if exits else {}
    marks.update({"$\\ln(1/\\lambda)/\\|D_+\\|$": pt.t2_scale / per, "$\\ln(1/\\lambda)/\\|D_-\\|$": pt.t3_scale / per})
    return marks


def projected_snapshots(traj, idx, run: int, V) -> tuple[np.ndarray, np.ndarray]:
    """One run's neurons at some snapshots, projected on two directions (Figures 6 and 7's animation).

    Parameters
    ----------
    traj : Trajectory
        Runs ``(R,)``, neurons ``W1`` ``(T, R, m, d)``.
    idx : sequence of int
        Snapshot indices.
    run : int
        The run shown.
    V : Tensor
        ``(2, d)`` the directions (rows).

    Returns
    -------
    (ndarray, ndarray)
        ``(len(idx), m, 2)`` projections ``W1 Vᵀ`` and ``(len(idx), m)`` output weights ``a``.
    """
    idx = list(idx)
    P = (traj.params.W1[idx, run] @ V.T).numpy()
    return P, traj.params.a[idx, run].numpy()
