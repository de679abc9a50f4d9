"""Figure helpers of the orthogonal chapter (Boursier, Pillaud-Vivien & Flammarion 2022)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from . import NEG, POS, THEORY, label_panels, panel_grid


def lambda_panels(time: np.ndarray, losses: dict[float, np.ndarray], lams: np.ndarray, dwell: np.ndarray,
                  plateau: float, threshold: float = 1.0):
    """The λ figure: (a) the loss of one draw against paper time for each λ in ``losses`` ({λ: (T,)});
    (b) the dwell at the plateau level (``dwell (seeds, len(lams))``, in units of 1/‖D₋‖) against λ,
    with the ``threshold`` of the claim. Returns the figure."""
    fig, axes = panel_grid(2, width=4.6, height=3.4)
    cmap = plt.get_cmap("viridis")
    for k, (lam, L) in enumerate(sorted(losses.items())):
        axes[0].semilogy(time, L, color=cmap(k / max(len(losses) - 1, 1)), lw=1.2, label=f"$\\lambda$={lam:.0e}")
    axes[0].axhline(plateau, color=THEORY, ls=":", lw=1)
    axes[0].set(xlabel="paper time $t$", ylabel="loss $L$", ylim=(1e-8, 2), title="seed 0: the plateau shortens as λ grows")
    axes[0].legend(fontsize="x-small", ncol=2)
    for s in range(dwell.shape[0]):
        axes[1].loglog(lams, np.maximum(dwell[s], 1e-2), "o-", color=POS if s == 0 else "0.6", alpha=0.8)
    axes[1].axhline(threshold, color=NEG, ls="--", lw=1, label="claim: < 1 at λ = 0.1")
    axes[1].set(xlabel="$\\lambda$", ylabel="time at the plateau level × $\\|D_-\\|$", title="dwell at the saddle (0 shown as 0.01)")
    axes[1].legend(fontsize="x-small")
    label_panels(axes)
    return fig
