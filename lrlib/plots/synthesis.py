"""Figures of the synthesis chapter (one paper's theory against another paper's experiment).

Each function draws one glued figure and returns it; the notebook glues it and writes its caption.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from . import NEG, OTHER, PALETTE, POS, THEORY, label_panels, panel_grid


def agf_on_orthogonal(time: np.ndarray, losses: dict[float, np.ndarray], agf_runs: dict[float, object],
                      jumps: pd.DataFrame, seed: int = 0):
    """Part 1's figure: AGF's staircase on the orthogonal-input data.

    Parameters
    ----------
    time : np.ndarray
        ``(T,)`` gradient-flow time.
    losses : dict[float, np.ndarray]
        ``λ → (T,)`` GD's loss for one seed at each ``λ``.
    agf_runs : dict of float to AGFRun
        ``λ → AGFRun``, the AGF run from the same initialisation.
    jumps : pd.DataFrame
        table with columns ``lam, jump, err_agf, err_leading``.
    seed : int
        the seed of ``losses`` and ``agf_runs``, for panel (a)'s title.

    Returns
    -------
    matplotlib.figure.Figure
        (a) GD's loss (solid) and AGF's staircase (dashed) per ``λ``; (b) the median relative error of the
        drop times of AGF and of the leading order ``ln(1/λ)/‖D±‖`` against ``ln(1/λ)`` (log–log), with the
        rate ``1/ln(1/λ)`` for reference (both errors should fall at least as steeply).
    """
    fig, axes = panel_grid(2, width=4.4, height=3.2)
    ax = axes[0]
    lams = sorted(losses, reverse=True)
    for i, lam in enumerate(lams):
        col = plt.cm.viridis(i / max(len(lams) - 1, 1))
        ax.plot(time, losses[lam], color=col, lw=1.5, label=f"GD, $\\lambda$ = {lam:.0e}")
        run = agf_runs[lam]
        ax.step(np.r_[run.tau, time[-1]], np.r_[run.levels, run.levels[-1]], where="post", color=col, ls="--", lw=1)
    ax.set_yscale("symlog", linthresh=1e-3)
    ax.set(xlabel="gradient-flow time $t$", ylabel="$L$", title=f"GD (solid) and AGF (dashed), seed {seed}")
    ax.legend(fontsize="small")
    ax = axes[1]
    med = jumps.groupby(["lam", "jump"])[["err_agf", "err_leading"]].median().reset_index()
    for k, mk in [(1, "o"), (2, "s")]:
        sel = med[med.jump == k]
        x = np.log(1 / sel.lam)
        ax.plot(x, sel.err_agf, marker=mk, color=POS, label=f"AGF, drop {k}")
        ax.plot(x, sel.err_leading, marker=mk, color=NEG, ls=":", label=f"$\\ln(1/\\lambda)/\\|D_\\pm\\|$, drop {k}")
    xx = np.log(1 / np.array(lams))
    ax.plot(xx, 1 / xx, color=THEORY, ls="--", label="rate $1/\\ln(1/\\lambda)$")
    ax.set(xscale="log", yscale="log", xlabel="$\\ln(1/\\lambda)$", ylabel="relative error of drop time (median)",
           title="AGF vs the leading-order phase times")
    ax.legend(fontsize="x-small")
    label_panels(axes)
    return fig


def alignment_on_race(series: pd.DataFrame, cos_end: np.ndarray, winners: np.ndarray, step_end: int,
                      seed: int = 0):
    """Part 2's figure: the alignment paper's quantities along one race run.

    Parameters
    ----------
    series : pd.DataFrame
        table with columns ``step, in_cone, stable_rank`` over the steps of one run.
    cos_end : np.ndarray
        ``(m,)`` cosines to ``sign(v) x_a(w)`` at the end of the plateau.
    winners : np.ndarray
        ``(m,)`` bool, the race's winners.
    step_end : int
        the step of the end of the plateau.
    seed : int
        the run's seed, for panel (iii)'s title.

    Returns
    -------
    matplotlib.figure.Figure
        (a) fraction of neurons in their cone, (b) histogram of ``cos_end`` with the winners stacked,
        (c) stable rank of ``W1``.
    """
    fig, axes = panel_grid(3, width=3.6, height=3.0)
    s = series.iloc[1:]
    axes[0].semilogx(s.step, s.in_cone, color=POS, label="in the predicted cone")
    axes[0].axhline(1.0, color=THEORY, ls="--", label="prediction under Assumption 1")
    axes[0].set(xlabel="step", ylabel="fraction of neurons", ylim=(0, 1.05), title="(ii) cones")
    axes[0].legend(fontsize="small")
    axes[1].hist([cos_end[~winners], cos_end[winners]], bins=30, color=["0.7", POS],
                 label=["other 90 %", "winners (top 10 %)"], stacked=True)
    axes[1].set(xlabel="cos($w_\\alpha$, sign($v_\\alpha$) $x_a(w_\\alpha)$)", ylabel="neurons",
                title=f"(iii) end of the plateau (seed {seed}, step {step_end})")
    axes[1].legend(fontsize="small")
    axes[2].loglog(s.step, s.stable_rank, color=POS)
    axes[2].axhline(2.0, color=THEORY, ls="--", label="Thm. 1: $\\leq 2$ at the end")
    axes[2].set(xlabel="step", ylabel="stable rank of $W_1$", title="(iv) low rank")
    axes[2].legend(fontsize="small")
    return fig


def agf_on_xor(time: np.ndarray, loss: np.ndarray, closs: np.ndarray, run, table: pd.DataFrame,
               tol: float, labels: list[str], seed: int = 0):
    """Part 3's figure: AGF on the XOR toy.

    Parameters
    ----------
    time : np.ndarray
        ``(T,)`` gradient-flow time.
    loss : np.ndarray
        ``(T,)`` GD's total loss (one seed).
    closs : np.ndarray
        ``(T, C)`` its per-cluster losses.
    run : AGFRun
        the AGF run (:class:`~lrlib.theory.agf.AGFRun`) from the same initialisation.
    table : pd.DataFrame
        every seed and cluster, columns ``cluster, gd, agf`` (gradient-flow time).
    tol : float
        the relative tolerance drawn as a band.
    labels : list[str]
        ``C`` cluster names.
    seed : int
        the seed of ``loss``, ``closs`` and ``run``, for panel (a)'s title.

    Returns
    -------
    matplotlib.figure.Figure
        (a) GD's loss (black), per-cluster losses (colours) and AGF's staircase (dashed), AGF's jumps
        marked in the colour of the cluster each activates; (b) AGF's jump time against GD's per-cluster
        drop time, with the diagonal and the band ``± tol``.
    """
    fig, axes = panel_grid(2, width=4.4, height=3.2)
    ax = axes[0]
    ax.plot(time, loss, color="k", lw=1.6, label="GD, total")
    for c, lab in enumerate(labels):
        ax.plot(time, closs[:, c] / len(labels), color=PALETTE[c], lw=1, ls="-", alpha=0.8, label=f"GD, {lab}")
    ax.step(np.r_[run.tau, time[-1]], np.r_[run.levels, run.levels[-1]], where="post", color=THEORY, ls="--", lw=1.2,
            label="AGF")
    ax.set(xlabel="gradient-flow time $t$", ylabel="$L$ (clusters: share of $L$)", title=f"GD and AGF, seed {seed}")
    ax.legend(fontsize="x-small")
    ax = axes[1]
    for c, lab in enumerate(labels):
        sel = table[table.cluster == c]
        ax.scatter(sel.gd, sel.agf, color=PALETTE[c], s=18, label=lab)
    lim = np.array([0, float(np.nanmax(table[["gd", "agf"]].to_numpy())) * 1.05])
    ax.plot(lim, lim, color=OTHER, lw=1)
    ax.fill_between(lim, lim * (1 - tol), lim * (1 + tol), color=THEORY, alpha=0.15, label=f"± {tol:.3f} (tolerance)")
    ax.set(xlim=lim, ylim=lim, xlabel="GD: per-cluster drop time", ylabel="AGF: jump time", title="every seed and cluster")
    ax.legend(fontsize="x-small")
    label_panels(axes)
    return fig
