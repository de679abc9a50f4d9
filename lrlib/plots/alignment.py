"""Figure helpers of the alignment chapter (Min, Mallada & Vidal 2024)."""

from __future__ import annotations

import numpy as np
import torch

from . import NEG, POS, THEORY, label_panels, panel_grid


def eps_sweep(log_inv, t2, T, slope_pred, eps, dev, bound):
    """Two panels: (a) t₂ against log(1/(√h ε)) per initialisation, with the horizon T and a line
    of slope ``slope_pred`` through the median; (b) the deviation from the simplified dynamics up
    to T against ε (log–log), with Lemma 1's bound. ``t2``, ``dev``, ``bound``: ``(E, R)``."""
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
    """Fig 4 from a trajectory: one row per data point (positives blue, negatives red), a bar where the
    point activates the neuron; ``active`` ``(T, n)`` bool, ``y`` ``(n,)``; ``t1`` marked."""
    import matplotlib.pyplot as plt

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
