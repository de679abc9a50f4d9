"""Figure helpers of the Alternating Gradient Flows chapter (Kunin et al. 2025): each draws one of the
paper's figures from arrays the chapter has measured and returns the figure (the house style lives in
:mod:`lrlib.plots`)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import torch

from ..theory.agf import dln, modular
from . import PALETTE, POS, THEORY, label_panels, panel_grid


def fig4(time, loss, sv, etas, alphas, preds: dict, tmax: float, seed_index: int = 0):
    """Figure 4: the integrated flow against Conjecture 4.1, one row per variant.

    Parameters
    ----------
    time : ndarray
        ``(T,)`` raw gradient-flow time.
    loss : ndarray
        ``(T, A, V, S)`` loss per α, variant and seed.
    sv : ndarray
        ``(T, A, V, S, r)`` singular values of ``AW``.
    etas : ndarray
        ``(A,)`` ``η_α = −log α`` (the accelerated clock is ``t/η_α``).
    alphas : ndarray
        ``(A,)`` initialisation scales (the first two are drawn; the spectrum at the second).
    preds : dict
        variant name → Conjecture 4.1's prediction (:func:`lrlib.theory.agf.linear.conjecture`), in
        the order of the variant axis.
    tmax : float
        right end of the accelerated-time axis.
    seed_index : int, optional
        the seed drawn.

    Returns
    -------
    matplotlib.figure.Figure
    """
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


def fig5(steps_dense, loss, steps_rec, proj, pred, bounds, agf_steps, agf_levels, steps_max: int,
         seed_index: int = 0):
    """Figure 5: the linear transformer's GD loss against Eq. 7 and the simulated AGF.

    Parameters
    ----------
    steps_dense : ndarray
        ``(n+1,)`` GD step indices of ``loss``.
    loss : ndarray
        ``(n+1, S)`` population loss per step and seed.
    steps_rec : ndarray
        ``(T,)`` recorded GD steps.
    proj : ndarray
        ``(T, S, d)`` projections ``v_kᵀΓv_k`` at the recorded steps.
    pred : TransformerAGF
        Eq. 7's prediction (:func:`lrlib.theory.agf.transformer.predict`: levels, ``A_k``).
    bounds : ndarray
        ``(4,)`` jump lower bounds of the seed drawn, in GD steps.
    agf_steps : ndarray
        ``(K+1,)`` simulated AGF's jump times (the seed drawn), in GD steps.
    agf_levels : ndarray
        ``(K+1,)`` its loss levels.
    steps_max : int
        right end of the step axis.
    seed_index : int, optional
        the seed drawn opaque in (b), whose bounds and simulated AGF are drawn.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = panel_grid(2, width=5.0, height=3.5)
    for r in range(loss.shape[1]):
        axes[0].loglog(steps_dense[1:], loss[1:, r], color=PALETTE[r % 6], lw=1.2, label=f"GD seed {r}")
        for i in range(proj.shape[-1]):
            axes[1].semilogx(steps_rec[1:], proj[1:, r, i], color=plt.cm.tab10(i), lw=1.0,
                             alpha=1 if r == seed_index else 0.4)
    for lv in pred.levels:
        axes[0].axhline(lv, color=THEORY, ls=":", lw=0.8)
    for b in bounds:
        axes[0].axvline(b, color="0.5", ls="--", lw=0.8)
    axes[0].step(np.append(agf_steps, steps_max), np.append(agf_levels, agf_levels[-1]), where="post", color="k", ls="--",
                 lw=1.3, label=f"simulated AGF (seed {seed_index})")
    for i, A in enumerate(pred.A):
        axes[1].axhline(A, color=plt.cm.tab10(i), ls=":", lw=0.8)
        axes[1].annotate("", xy=(bounds[i], A), xytext=(bounds[i], 0), arrowprops=dict(arrowstyle="->", color=plt.cm.tab10(i), lw=0.8))
    axes[0].set(xlabel="GD step (GF time t = 0.01 × step)", ylabel="population loss",
                title=f"loss (dotted: Eq. 7; dashed: bounds, seed {seed_index})", xlim=(100, steps_max),
                ylim=(0.1, 1.2))
    axes[0].legend(fontsize="x-small")
    axes[1].set(xlabel="GD step (GF time t = 0.01 × step)", ylabel="$v_k^\\top \\Gamma v_k$",
                title="$\\Gamma=\\sum_h V_hK_hQ_h^\\top$ on $v_k$ (dotted: $A_k$; arrows: bounds)", xlim=(100, steps_max),
                ylim=(-0.005, 0.12))
    label_panels(axes)
    fig.suptitle(f"Figure 5 — linear transformer, in-context regression (d = 4, N = 32, 5 heads, {loss.shape[1]} seeds)")
    return fig


def fig3(time_dense, loss_dense, time_rec, beta, alphas, agf_inf, beta_star):
    """Figure 3: GD on the diagonal linear network from several α, on the clock ``t/(−log α)``.

    Parameters
    ----------
    time_dense : ndarray
        ``(n+1,)`` raw gradient-flow time of every GD step.
    loss_dense : ndarray
        ``(n+1, A)`` loss per step and α.
    time_rec : ndarray
        ``(T,)`` raw time of the recorded snapshots.
    beta : ndarray
        ``(T, A, d)`` coefficients ``β = u ⊙ v`` at the snapshots.
    alphas : ndarray
        ``(A,)`` initialisation scales.
    agf_inf : DLNResult
        the closed-form AGF at a vanishing α (:class:`~lrlib.theory.agf.dln.DLNResult`).
    beta_star : ndarray
        ``(d,)`` the target coefficients.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = panel_grid(2, width=4.8, height=3.6)
    cols = plt.cm.viridis(np.linspace(0, 0.9, len(alphas)))
    d = beta.shape[-1]
    for r, (a, c) in enumerate(zip(alphas, cols)):
        axes[0].loglog(time_dense[1:] / -np.log(a), loss_dense[1:, r], color=c, lw=1.2, label=f"α = {a:g}")
        for i in range(d):
            axes[1].semilogx(time_rec[1:] / -np.log(a), beta[1:, r, i], color=PALETTE[i % 6], lw=0.8,
                             alpha=0.35 + 0.6 * r / len(alphas))
    tt = np.geomspace(1e-2, 1e4, 2000)
    scale = agf_inf.eta / -np.log(1e-100)
    axes[0].loglog(tt, agf_inf.loss_at(tt / scale) + 1e-12, "k--", lw=1.5, label="AGF (α → 0)")
    kk = np.searchsorted(agf_inf.tau, tt / scale, side="right") - 1
    for i in range(d):
        axes[1].semilogx(tt, agf_inf.betas[kk, i], "--", color=PALETTE[i % 6], lw=1.5)
        axes[1].axhline(beta_star[i], color=PALETTE[i % 6], ls=":", lw=0.8)
    axes[0].set(xlabel="accelerated time $t/(-\\log\\alpha)$", ylabel="training loss", ylim=(1e-6, 300), xlim=(1e-2, 1e4),
                title="loss")
    axes[0].legend(fontsize="x-small", ncol=2)
    axes[1].set(xlabel="accelerated time $t/(-\\log\\alpha)$", ylabel="$\\beta_i$", xlim=(1e-2, 1e4),
                title="coefficients (dashed: AGF; dotted: $\\beta^*$)")
    label_panels(axes)
    fig.suptitle("Figure 3 — diagonal linear network, d = 5, n = 20: GD approaches the AGF staircase as α → 0")
    return fig


def fig2(run):
    """Figure 2 from a run of the general algorithm.

    Parameters
    ----------
    run : AGFRun
        an :class:`~lrlib.theory.agf.core.AGFRun` (its ``hist`` of norms over accelerated time).

    Returns
    -------
    matplotlib.figure.Figure
        (a) each neuron's norm (log scale) against accelerated time, thin while dormant, thick once
        active; (b) the loss of the active network after each jump.
    """
    H = run.hist
    fig, axes = panel_grid(2, width=4.6, height=3.4)
    ax = axes[0]
    for i in range(H["norm"].shape[1]):
        dorm = H["dormant"][:, i]
        ax.semilogy(H["t"], np.where(dorm, H["norm"][:, i], np.nan), color=PALETTE[i % 6], lw=1.0)
        ax.semilogy(H["t"], np.where(~dorm, np.maximum(H["norm"][:, i], 1.0), np.nan), color=PALETTE[i % 6], lw=3.5,
                    label=f"neuron {i}")
    for tk in run.tau[1:]:
        ax.axvline(tk, color="0.6", ls=":", lw=0.8)
    ax.axhline(1.0, color="k", lw=0.6)
    ax.set(xlabel="accelerated time $\\tau$", ylabel="$\\|\\theta_i\\|$ (dormant: thin; active: thick)",
           title="dormant neurons grow, one at a time they jump", ylim=(1e-9, 5))
    ax.legend(fontsize="x-small", ncol=2)
    ax = axes[1]
    ax.step(run.tau, run.levels + 1e-12, where="post", color="k")
    for k, (tk, idx) in enumerate(zip(run.tau[1:], run.order), 1):
        ax.annotate(f"{idx[0]} active", (tk, run.levels[k] + 1e-12), fontsize="x-small", color=PALETTE[idx[0] % 6])
    ax.set(yscale="log", xlabel="accelerated time $\\tau$", ylabel="loss of the active network",
           title="cost minimisation after each jump", ylim=(1e-2, 200))
    label_panels(axes)
    fig.suptitle("Figure 2 — AGF alternates utility maximisation (dormant) and cost minimisation (active): a real run")
    return fig


def fig8(u, v, beta, alphas, time_rec, dense_loss, h, agf8, alpha_agf, X, y):
    """Figure 8: GD on Pesme–Flammarion's 2-D example from several α.

    Parameters
    ----------
    u, v, beta : ndarray
        ``(T, A, 2)`` the DLN's coordinates and ``β = u ⊙ v`` at the snapshots.
    alphas : ndarray
        ``(A,)`` initialisation scales.
    time_rec : ndarray
        ``(T,)`` raw gradient-flow time of the snapshots.
    dense_loss : ndarray
        ``(n+1, A)`` loss at every GD step.
    h : float
        the GD step (raw time per step).
    agf8 : DLNResult
        the closed-form AGF at ``alpha_agf`` (:func:`lrlib.theory.agf.dln.agf`).
    alpha_agf : float
        its initialisation scale.
    X, y : ndarray
        ``(n, 2)`` and ``(n,)`` the data (for the loss landscape).

    Returns
    -------
    matplotlib.figure.Figure
        Each coordinate in polar coordinates (log radius), accumulated utility, angle, the path of β
        over the loss landscape, the loss.
    """
    u8, v8, beta8, alphas8, X8, y8 = u, v, beta, alphas, X, y
    fig = plt.figure(figsize=(14, 7.5), constrained_layout=True)
    gs = fig.add_gridspec(2, 4)
    axp = [fig.add_subplot(gs[0, i], projection="polar") for i in range(2)]
    axS, axA = fig.add_subplot(gs[0, 2]), fig.add_subplot(gs[0, 3])
    axC, axL = fig.add_subplot(gs[1, 0:2]), fig.add_subplot(gs[1, 2:4])
    cols8 = plt.cm.viridis(np.linspace(0, 0.9, len(alphas8)))
    for i in range(2):
        for r, c in enumerate(cols8):
            ang = np.arctan2(v8[:, r, i], u8[:, r, i])
            rad = np.log10(np.hypot(u8[:, r, i], v8[:, r, i]))
            axp[i].plot(ang, rad + 7, color=c, lw=1)
        for a_ in (np.pi / 4, -np.pi / 4, np.pi / 2, -np.pi / 2, 3 * np.pi / 4, -3 * np.pi / 4):
            axp[i].plot([a_, a_], [0, 8], color="0.7", lw=0.6, ls="--")
        axp[i].set_rticks([1, 4, 7, 8])
        axp[i].set_yticklabels(["1e-6", "1e-3", "1", "10"], fontsize="x-small")
        axp[i].set_title(f"neuron {i}: $(u_{i}, v_{i})$, log radius", fontsize="small")
    eta6 = dln.eta_alpha(alpha_agf)
    tt8 = np.linspace(0, agf8.tau[-1] * 1.25, 800)
    S_th = agf8.S_at(tt8)
    for r, c in enumerate(cols8):
        eta_r = dln.eta_alpha(alphas8[r])
        nrm = np.hypot(u8[:, r], v8[:, r])
        St = np.log(nrm / nrm[0]) / eta_r
        for i, ls in ((0, "-"), (1, "--")):
            axS.plot(time_rec / eta_r, St[:, i], color=c, ls=ls, lw=1)
            axA.plot(time_rec / eta_r, np.arctan2(v8[:, r, i], u8[:, r, i]), color=c, ls=ls, lw=1)
    for i, ls in ((0, "-"), (1, "--")):
        axS.plot(tt8, np.abs(S_th[:, i]), color="k", ls=ls, lw=2, alpha=0.6)
        axA.plot(tt8, np.where(np.abs(S_th[:, i]) > 0, -np.sign(S_th[:, i]) * np.pi / 4 * (S_th[:, i] != 0), 0) * -1, color="k", ls=ls, lw=2, alpha=0.6)
    ticks = [agf8.tau[1], agf8.tau[2], 0.5 * (agf8.tau[2] + agf8.tau[3]), agf8.tau[3]]
    for ax in (axS, axA):
        ax.set_xticks(ticks)
        ax.set_xticklabels(["$\\tau_1$", "$\\tau_2$", "mid", "$\\tau_3$"])
        ax.set_xlim(0, tt8[-1])
        ax.set_xlabel("accelerated time $t/\\eta_\\alpha$")
    axS.set(ylabel="$\\tilde S_i$ (solid: 0, dashed: 1)", title=f"accumulated utility (black: AGF α = {alpha_agf:g})")
    axA.set(ylabel="angle of $(u_i, v_i)$", title="angle; ±π/4 = active with sign ±", yticks=[-np.pi / 2, -np.pi / 4, 0, np.pi / 4, np.pi / 2],
            yticklabels=["−π/2", "−π/4", "0", "π/4", "π/2"])
    g0, g1 = np.meshgrid(np.linspace(-1.2, 1.2, 200), np.linspace(-0.5, 2.5, 200))
    B = np.stack([g0, g1], -1)
    Lgrid = 0.5 * np.mean((B @ X8.T - y8) ** 2, -1)
    axC.contour(g0, g1, np.log(Lgrid + 1e-3), 25, cmap="Greys", linewidths=0.6)
    for r, c in enumerate(cols8):
        axC.plot(beta8[:, r, 0], beta8[:, r, 1], color=c, lw=1.3, label=f"α = {alphas8[r]:g}")
    axC.scatter(agf8.betas[:, 0], agf8.betas[:, 1], color="k", zorder=5, s=25)
    for k, b_ in enumerate(agf8.betas):
        axC.annotate(f"$\\beta^{{({k})}}$", b_, textcoords="offset points", xytext=(5, 5))
    axC.set(xlabel="$\\beta_0$", ylabel="$\\beta_1$", title="β on the loss landscape (dots: AGF saddles)")
    axC.legend(fontsize="x-small")
    for r, c in enumerate(cols8):
        eta_r = dln.eta_alpha(alphas8[r])
        axL.semilogy(np.arange(1, len(dense_loss)) * h / eta_r, dense_loss[1:, r], color=c, lw=1.2)
    axL.semilogy(tt8, agf8.loss_at(tt8) + 1e-12, "k--", lw=1.5, label=f"AGF (α = {alpha_agf:g})")
    axL.set(xlabel="accelerated time $t/\\eta_\\alpha$, $\\eta_\\alpha = -\\log(\\sqrt{2}\\alpha)$", ylabel="loss", xlim=(0, tt8[-1]), ylim=(1e-5, 5), title="loss")
    axL.legend(fontsize="x-small")
    label_panels([axp[0], axp[1], axS, axA, axC, axL])
    fig.suptitle("Figure 8 — a coordinate returns to dormancy and reactivates with the opposite sign")
    return fig


def fig6(time, loss, bounds, agf_time, agf_levels, agf_power, power, pred, out, targets, W_hist, pair: int, alpha: float,
         seed_index: int = 0):
    """Figure 6 (a–c): modular addition, the integrated gradient flow against Eq. 9 and the simulated AGF.

    Parameters
    ----------
    time : ndarray
        ``(T,)`` recorded flow times ``t`` (``time[0] = 0``).
    loss : ndarray
        ``(T, S)`` the flow's loss per recorded time and seed.
    bounds : ndarray
        ``(K,)`` drop lower bounds, in flow time.
    agf_time : ndarray
        ``(J+1,)`` simulated AGF's jump times (the seed drawn), in flow time (first entry 0).
    agf_levels : ndarray
        ``(J+1,)`` its loss after each jump.
    agf_power : ndarray
        ``(J+1, p//2+1)`` its output power per frequency after each jump.
    power : ndarray
        ``(T, S, p//2+1)`` the flow's mean |rfft(output)| per frequency.
    pred : ModularAGF
        :class:`lrlib.theory.agf.modular.ModularAGF` (order, levels, amps).
    out : ndarray
        ``(T, S, p², p)`` the outputs at the recorded times.
    targets : ndarray
        ``(p², p)`` the targets.
    W_hist : ndarray
        ``(T, H, p)`` the drawn seed's output weights (rows ``w_i``) at the recorded times.
    pair : int
        index of the ``(a, b)`` pair drawn in (c).
    alpha : float
        the initialisation scale (title).
    seed_index : int, optional
        the seed of panels (b) and (c) and of the simulated AGF.

    Returns
    -------
    matplotlib.figure.Figure
    """
    s = seed_index
    fig = plt.figure(figsize=(14, 8), constrained_layout=True)
    gsf = fig.add_gridspec(2, 4)
    axL, axP = fig.add_subplot(gsf[0, 0:2]), fig.add_subplot(gsf[0, 2:4])
    t_end = float(time[-1])
    for r in range(loss.shape[1]):
        axL.loglog(time[1:], loss[1:, r], color=PALETTE[r % 6], lw=1.2, label=f"flow, seed {r}")
    for lv in pred.levels[:-1]:
        axL.axhline(lv, color=THEORY, ls=":", lw=0.8)
    for b in bounds:
        axL.axvline(b, color="0.5", ls="--", lw=0.8)
    axL.step(np.append(agf_time, t_end), np.append(agf_levels, agf_levels[-1]), where="post", color="k", ls="--",
             lw=1.3, label=f"simulated AGF (seed {s})")
    axL.set(xlabel="flow time t", ylabel="loss",
            title="loss (dotted: Eq. 9 levels; dashed: drop lower bounds)", ylim=(1e-3, 10))
    axL.legend(fontsize="x-small")
    for i, k in enumerate(pred.order):
        axP.semilogx(time[1:], power[1:, s, k], color=PALETTE[i], lw=1.5, label=f"frequency {k}")
        axP.axhline(pred.amps[i], color=PALETTE[i], ls=":", lw=0.8)
        axP.step(np.append(agf_time, t_end), np.append(agf_power[:, k], agf_power[-1, k]), where="post",
                 color=PALETTE[i], ls="--", lw=1.0)
        axP.annotate("", xy=(bounds[i], pred.amps[i]), xytext=(bounds[i], 0),
                     arrowprops=dict(arrowstyle="->", color=PALETTE[i], lw=0.8))
    axP.set(xlabel="flow time t", ylabel="mean |rfft(output)|",
            title=f"output power per frequency (seed {s}; dashed: AGF; dotted: target)")
    axP.legend(fontsize="x-small")
    for j, t_s in enumerate(np.geomspace(max(float(time[1]), bounds[0] / 2), t_end, 4)):
        ax = fig.add_subplot(gsf[1, j])
        i_s = max(int(np.searchsorted(time, t_s * (1 + 1e-9), side="right")) - 1, 0)     # last snapshot at or before t_s
        ax.plot(targets[pair], "k--", lw=1, label="target")
        ax.plot(out[i_s, s, pair], color=POS, lw=1.5, label="network")
        W_t = W_hist[i_s]
        dom = modular.dominant_frequency(torch.tensor(W_t)).numpy()
        big = np.linalg.norm(W_t, axis=1) > 0.3 * np.linalg.norm(W_t, axis=1).max()
        ax.set(title=f"t = {time[i_s]:.3g}", xlabel="output index", ylim=(-2.2, 2.6))
        ax.text(0.02, 0.97, f"large neurons' frequencies: {sorted(set(dom[big].tolist()))}", transform=ax.transAxes,
                fontsize="x-small", va="top")
        if j == 0:
            ax.legend(fontsize="x-small", loc="lower left")
    label_panels(fig.axes)
    fig.suptitle(f"Figure 6 — modular addition, p = {len(targets[pair])}, H = {W_hist.shape[1]}, α = {alpha}: "
                 f"frequencies {', '.join(map(str, pred.order))} learned in turn (seed {s})")
    return fig


def fig6d(W, order):
    """Figure 6 (d): the learned neurons of one network.

    Parameters
    ----------
    W : ndarray
        ``(H, p)`` the output weights ``w_i`` (rows) at the end of the run.
    order : list of int
        the predicted frequencies in learning order (colours: rank in this list).

    Returns
    -------
    matplotlib.figure.Figure
        Three panels: rows ``w_i`` coloured by dominant frequency, their power spectra (sorted), and the
        phase of ``ŵ_i`` at that frequency (polar; radius: frequency rank).
    """
    fig, axes = panel_grid(3, width=4.4, height=3.3)
    dom = modular.dominant_frequency(torch.tensor(W)).numpy()
    colour = [PALETTE[order.index(k) if k in order else 5] for k in dom]
    for i in np.argsort(dom):
        axes[0].plot(W[i], color=colour[i], lw=1, alpha=0.8)
    axes[0].set(title="rows $w_i$ at the end (colour: dominant frequency)", xlabel="index")
    power = np.abs(np.fft.rfft(W, axis=1)) ** 2
    axes[1].imshow(power[np.argsort(dom)], aspect="auto", cmap="Greys")
    axes[1].set(title="power spectra of $w_i$ (sorted)", xlabel="frequency", ylabel="neuron")
    ax = fig.add_subplot(1, 3, 3, projection="polar")
    axes[2].remove()
    for i, k in enumerate(dom):
        ax.scatter([np.angle(np.fft.fft(W[i])[k])], [1 + order.index(k) if k in order else 4], color=colour[i], s=20)
    ax.set_title("phases of $\\hat w_i[\\xi_i]$ (radius: frequency rank)", fontsize="small")
    label_panels([axes[0], axes[1], ax])
    fig.suptitle("Figure 6 (d) — the learned neurons: single-frequency waveforms")
    return fig

