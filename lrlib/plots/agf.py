"""Figure helpers of the Alternating Gradient Flows chapter (Kunin et al. 2025): each draws one of the
paper's figures from arrays the chapter has measured and returns the figure (the house style lives in
:mod:`lrlib.plots`)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from . import PALETTE, POS, THEORY, label_panels, panel_grid


def fig4(time, loss, sv, etas, alphas, preds: dict, tmax: float, seed_index: int = 0):
    """Figure 4: integrated flow against Conjecture 4.1, one row per variant (``preds``, in the order of
    the variant axis).  ``time (T,)`` raw flow time; ``loss (T, α, variant, seed)``; ``sv (T, α, variant,
    seed, r)`` singular values of ``AW``; ``etas``, ``alphas`` per α (the first two are drawn; the
    spectrum at the second); ``tmax`` the right end of the accelerated axis."""
    fig, axes = panel_grid(2, 2, width=4.8, height=3.3)
    tt = np.geomspace(1e-2, tmax, 1500)
    s = seed_index
    for j, (name, pr) in enumerate(preds.items()):
        ax = axes[2 * j]
        for ia, (a, ls, lw) in enumerate(zip(alphas[:2], (":", "-"), (1.0, 1.5))):
            ax.loglog(time[1:] / etas[ia], loss[1:, ia, j, s], color=POS, ls=ls, lw=lw, label=f"flow, α = {a:g} (seed {s})")
        ax.loglog(tt, pr.loss_at(tt) + 1e-12, "k--", lw=1.2, label="AGF (Conjecture 4.1)")
        for lv in pr.levels[:-1]:
            ax.axhline(lv, color=THEORY, ls=":", lw=0.7)
        for tk in pr.tau[1:]:
            if tk < tmax:
                ax.axvline(tk, color="0.6", ls="--", lw=0.6)
        ax.set(xlabel="accelerated time $t/(-\\log\\alpha)$", ylabel="loss", title=f"{name}: loss", ylim=(1e-6, 50),
               xlim=(1e-2, tmax))
        ax.legend(fontsize="x-small")
        ax = axes[2 * j + 1]
        for i in range(sv.shape[-1]):
            ax.semilogx(time[1:] / etas[1], sv[1:, 1, j, s, i], color=plt.cm.tab10(i % 10), lw=1.2)
            ax.semilogx(tt, pr.sv_at(tt)[:, i], color=plt.cm.tab10(i % 10), ls="--", lw=0.9)
        ax.set(xlabel="accelerated time $t/(-\\log\\alpha)$", ylabel="singular values of $AW$",
               title=f"{name}: spectrum, α = {alphas[1]:g}, seed {s} (dashed: AGF)", xlim=(1e-2, tmax))
    label_panels(axes)
    fig.suptitle("Figure 4 — fully connected linear network, c = d = H = 10: gradient flow against AGF (Conjecture 4.1)")
    return fig


def fig5(steps_dense, loss, steps_rec, proj, pred, bounds, agf_steps, agf_levels, steps_max: int):
    """Figure 5: the transformer's GD loss ``loss (steps+1, seed)`` at the GD steps ``steps_dense`` with
    Eq. 7's levels (``pred``), the jump bounds ``bounds (4,)`` and the simulated AGF staircase
    (``agf_steps``, ``agf_levels``, both ``(K+1,)``, of the first seed); and ``proj (T, seed, d)``, the
    projections ``v_kᵀΓv_k`` at the recorded steps ``steps_rec``, with ``A_k``."""
    fig, axes = panel_grid(2, width=5.0, height=3.5)
    for r in range(loss.shape[1]):
        axes[0].loglog(steps_dense[1:], loss[1:, r], color=PALETTE[r % 6], lw=1.2, label=f"GD seed {r}")
        for i in range(proj.shape[-1]):
            axes[1].semilogx(steps_rec[1:], proj[1:, r, i], color=plt.cm.tab10(i), lw=1.0, alpha=1 if r == 0 else 0.4)
    for lv in pred.levels:
        axes[0].axhline(lv, color=THEORY, ls=":", lw=0.8)
    for b in bounds:
        axes[0].axvline(b, color="0.5", ls="--", lw=0.8)
    axes[0].step(np.append(agf_steps, steps_max), np.append(agf_levels, agf_levels[-1]), where="post", color="k", ls="--",
                 lw=1.3, label="simulated AGF (seed 0)")
    for i, A in enumerate(pred.A):
        axes[1].axhline(A, color=plt.cm.tab10(i), ls=":", lw=0.8)
        axes[1].annotate("", xy=(bounds[i], A), xytext=(bounds[i], 0), arrowprops=dict(arrowstyle="->", color=plt.cm.tab10(i), lw=0.8))
    axes[0].set(xlabel="GD step (GF time t = 0.01 × step)", ylabel="population loss",
                title="loss (dotted: Eq. 7; dashed: bounds, seed 0)", xlim=(100, steps_max), ylim=(0.1, 1.2))
    axes[0].legend(fontsize="x-small")
    axes[1].set(xlabel="GD step (GF time t = 0.01 × step)", ylabel="$v_k^\\top \\Gamma v_k$",
                title="$\\Gamma=\\sum_h V_hK_hQ_h^\\top$ on $v_k$ (dotted: $A_k$; arrows: bounds)", xlim=(100, steps_max),
                ylim=(-0.005, 0.12))
    label_panels(axes)
    fig.suptitle(f"Figure 5 — linear transformer, in-context regression (d = 4, N = 32, 5 heads, {loss.shape[1]} seeds)")
    return fig
