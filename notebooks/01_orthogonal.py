# ---
# jupyter:
#   jupytext:
#     cell_metadata_filter: tags,mystnb,-all
#     notebook_metadata_filter: kernelspec,jupytext,-all
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Orthogonal inputs: gradient flow from small initialisation
#
# **Paper.** E. Boursier, L. Pillaud-Vivien, N. Flammarion, *Gradient flow dynamics of shallow
# ReLU networks for square loss and orthogonal inputs*, NeurIPS 2022 {cite}`boursier2022gradient`.
#
# **What the paper claims.** A one-hidden-layer ReLU network
# $h_\theta(x)=\sum_{j=1}^m a_j\,\sigma(\langle w_j,x\rangle)$, trained by gradient flow on the square
# loss from a *balanced* initialisation of scale $\lambda\to 0$ ($w_j=\lambda g_j$, $a_j=s_j\|w_j\|$)
# on orthonormal inputs, goes through four phases (Figure 1): (1) the neurons **align** with two
# key directions $D_+$ and $-D_-$ while their norms stay tiny; (2) the neurons aligned with $D_+$
# **grow** and fit the positive labels; the loss then sits on a **plateau** at a strict saddle;
# (3) the $-D_-$ neurons grow and fit the negative labels; (4) the loss converges to zero
# (Theorem 1). As $\lambda\to0$ the limit is a **minimal-norm interpolator** made of two neuron
# clusters. Large initialisation (lazy regime) and non-orthogonal data behave differently
# (Figures 4–7).
#
# **What we run.** Every figure of the paper's experiments, at the paper's scale (width,
# $\lambda$, data), and a $\lambda$-sweep over 5 seeds on an orthonormal test bed for the scaling
# laws of Lemmas 2–4. Every checkable statement ends in the claims ledger at the bottom; the
# build fails if a verdict changes.
#
# **Conventions.** The paper's loss is $L=\frac{1}{2n}\sum_k (h(x_k)-y_k)^2$ and its time $t$ is
# gradient-flow time on $L$. The theory runs below minimise exactly this $L$ by full-batch GD
# with step $dt$, so step $s$ is time $t = s\,dt$. The figure runs copy the authors' code, which
# minimises the *mean* MSE $\frac1n\sum_k(h-y)^2=2L$ with step $\eta=10^{-3}$: one of their
# iterations is paper time $2\eta$, and their loss axis is $2L$. Figures say which axis they
# use. All runs are float64 (the authors used float32); ReLU's derivative at $0$ is $0$, the
# subgradient the theory requires.

# %% [markdown]
# **Choices the paper leaves open** (each is explained again where it is used):
#
# | what | our choice | why |
# |---|---|---|
# | precision | float64 everywhere | the theory checks compare tiny norms ($\lambda$ down to $10^{-20}$) |
# | signs $s_j$ | i.i.d. uniform $\pm1$ | the authors' code |
# | theory test bed | $x_k=e_k\in\mathbb R^{10}$, $y=(1,1.5,2,-1,-1,-0.5)$, $m=50$ | orthonormal, $r\ne1$, several points per sign |
# | flow discretisation | GD on $L$ with $dt=10^{-2}$ (test bed) | stable (Hessian $\lesssim1$); we check the $O(dt)$ drift below |
# | $\lambda$ grid, seeds | $10^{-4}\dots10^{-12}$, 5 seeds, one draw per seed for all $\lambda$ | the theorem's limit is $\lambda\to0$ at a fixed draw |
# | $\varepsilon$ in the bounds | $0.1$ | the paper only says "small enough" |
# | panel iterations | event-based (alignment, plateau, end) | the paper gives none |
# | Fig. 4 data | the authors' code's five points | not in the text |
# | Fig. 6/7 step | $\eta=10^{-2}$ instead of $10^{-3}$, same flow time | 10× faster; checked against $2\cdot10^{-2}$ |
# | Fig. 6/7 teacher | our own draw | the authors' draw depends on their layer creation order |

# %% tags=["parameters"]
seed = 0            # base seed of every random draw in this chapter
quick = False       # True: fewer seeds and a coarser step for the long runs (tests only)
ledger_path = ""    # write the claims ledger to this JSON file (empty string: no file)

# %%
import math
import time

import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
import torch

from lrlib import nbparams
from lrlib.claims_legacy import Ledger, fmt
from lrlib.integrate import flow
from lrlib.losses import Loss, half_mse
from lrlib.models import TwoLayer, balanced_init, forward, generator
from lrlib.plots import (NEG, POS, THEORY, function_and_kinks, glue, label_panels, mark_times,
                         panel_grid, set_style)
from lrlib.synthetic import nonorthogonal_1d, orthogonal_toy, orthonormal_testbed, relu_teacher
from lrlib.theory import orthogonal as th
from lrlib.track import (balancedness_drift, cosine, first_crossing, max_direction_change, plateaus,
                         relative_movement)
from lrlib.train import train
from lrlib.trajectory import linear_schedule

quick = nbparams.check_common(seed, quick, ledger_path)
torch.set_num_threads(1)
set_style()
ledger = Ledger("orthogonal")
N_SEEDS = 2 if quick else 5
MEAN_MSE = Loss("square", "mean")   # the authors' code: mean (h - y)^2 = 2 L
print(f"seed = {seed}, quick = {quick}, {N_SEEDS} seeds for the repeated claims")
print("theory runs:", half_mse().describe(), "| figure runs:", MEAN_MSE.describe())

# %% [markdown]
# ## The orthogonal toy example (Figures 2 and 3)
#
# Two points with a bias coordinate: $x_1=(-0.5,1)$ with $y_1=-1$ and $x_2=(2,1)$ with $y_2=+1$.
# They are orthogonal but not unit norm. Width $m=60$, $\lambda=10^{-6}/\sqrt{m}$, balanced
# initialisation with i.i.d. uniform signs, GD with $\eta=10^{-3}$ on the mean MSE for 20 000
# iterations, as in the authors' code. We run 5 independent draws at once (a batched run) and
# draw the panels from the first one.

# %%
X_toy, y_toy = orthogonal_toy()
m_toy, lam_toy, eta = 60, 1e-6 / math.sqrt(60), 1e-3
p_toy = balanced_init(m_toy, 2, scale=lam_toy, gen=generator(seed), runs=(N_SEEDS,))
toy = train(p_toy, X_toy, y_toy, loss=MEAN_MSE, lr=eta, steps=20_000,
            record=linear_schedule(20_000, 50), time_scale=2.0, dense_loss=True)
kv_toy = th.key_vectors(X_toy, y_toy)
print(f"|D+| = {kv_toy.norm_plus:.4f}, |D-| = {kv_toy.norm_minus:.4f}, r = {kv_toy.r:.3f}")

# %% [markdown]
# The panels: (a) initialisation; (b) the end of the alignment phase, taken as the first
# snapshot where every neuron of $S_{+,1}$ and $S_{-,1}$ has cosine $>0.99$ with its target
# direction ($D_+$ or $-D_-$); (c) the middle of the plateau, (d) the end of training. The
# paper gives no iteration numbers for its panels, so these are our event-based choices.

# %%
def toy_events(traj, X, y):
    """Snapshot indices of the four panels for run 0 (alignment, plateau middle, end)."""
    r0 = traj.run(0)
    Sp, Sm = th.s_sets(r0.at(0), X, y)
    up, um = th.alignment_directions(th.key_vectors(X, y))
    aligned = (th.min_alignment(r0.params, Sp, up) > 0.99) & (th.min_alignment(r0.params, Sm, um) > 0.99)
    i_align = int(np.argmax(aligned.numpy()))
    L = r0.loss.numpy()
    plateau = np.nonzero(np.abs(L - 0.5) < 0.01)[0]
    i_mid = int(plateau[len(plateau) // 2]) if plateau.size else len(L) // 2
    return [0, i_align, i_mid, len(L) - 1]


def draw_1d_panels(nets, X, y, axes, grid, titles):
    """The paper's 1-D panels: for each network, its function on ``grid`` and each neuron at
    its kink −w_{j,2}/w_{j,1} with height a_j (inputs are (x, 1))."""
    Z = torch.stack([grid, torch.ones_like(grid)], -1)
    for ax, p, title in zip(axes, nets, titles):
        w = p.W1.numpy()
        kinks = -w[:, 1] / np.where(w[:, 0] == 0, np.nan, w[:, 0])
        function_and_kinks(ax, grid.numpy(), forward(p, Z)[:, 0].numpy(), X[:, 0].numpy(), y.numpy(),
                           kinks, p.a.numpy(), title=title)


grid_toy = torch.linspace(-1.5, 3.0, 100, dtype=torch.float64)
idx_toy = toy_events(toy, X_toy, y_toy)
fig, axes = panel_grid(4, width=3.6)
draw_1d_panels([toy.run(0).at(i) for i in idx_toy], X_toy, y_toy, axes, grid_toy,
               [f"iteration {toy.steps[i]:,}" for i in idx_toy])
label_panels(axes)
fig.suptitle("Figure 2 — orthogonal toy: function (green) and neurons (stars: kink, $a_j$)")
glue("orthogonal-fig2", fig)

# %% [markdown]
# Figure 3 shows the mean-MSE loss of the same run against the iteration. The paper: the loss
# "needs 5000 iterations to leave this first saddle", plateaus at the second saddle and "only
# leaves this saddle around iteration 11000". Theory (code units) puts the two growth phases
# near $\ln(1/\lambda)/(2\eta\|D_\pm\|)$ iterations, minus a shift from the initialisation
# constants; the plateau is at $\frac1n\sum_{y_k<0}y_k^2=0.5$ in code units.

# %%
def toy_timings(traj):
    """Per run: first-saddle exit (L < 0.99 L0), plateau level, second exit (L < 0.4), final loss."""
    L = traj.dense_loss.numpy()          # (steps+1, runs), mean MSE
    it = np.arange(L.shape[0])
    rows = []
    for r in range(L.shape[1]):
        exit1 = first_crossing(it, L[:, r], 0.99 * L[0, r])
        exit2 = first_crossing(it, L[:, r], 0.4)
        mid = int((exit1 + exit2) / 2) if np.isfinite(exit1 + exit2) else 0
        rows.append(dict(run=r, exit1=exit1, plateau=L[mid, r], exit2=exit2, final=L[-1, r]))
    return pd.DataFrame(rows)


tt = toy_timings(toy)
pred_toy = th.phase_times(kv_toy, lam_toy)
fig, ax = plt.subplots(figsize=(6.5, 3.4), constrained_layout=True)
for r in range(toy.dense_loss.shape[1]):
    ax.plot(np.arange(toy.dense_loss.shape[0]), toy.dense_loss[:, r].numpy(),
            color=POS if r == 0 else "0.7", lw=1.8 if r == 0 else 0.8, zorder=3 if r == 0 else 2,
            label="run 0" if r == 0 else ("other seeds" if r == 1 else None))
ax.axhline(0.5, color=THEORY, ls=":", lw=1, label="plateau level $\\frac{1}{n}\\sum_{y<0}y^2$")
mark_times(ax, {"$\\ln(1/\\lambda)/\\|D_+\\|$": pred_toy.t2_scale / (2 * eta),
                "$\\ln(1/\\lambda)/\\|D_-\\|$": pred_toy.t3_scale / (2 * eta)})
ax.set(xlabel="iteration (GD step $\\eta=10^{-3}$; paper time $=2\\eta\\cdot$iteration)",
       ylabel="mean-MSE loss $2L$", title="Figure 3 — loss of the toy run")
ax.legend(loc="lower left")
glue("orthogonal-fig3", fig)
tt

# %%
ok = tt.exit1.between(4000, 6500) & (tt.plateau - 0.5).abs().le(0.01) & tt.exit2.between(10_000, 13_000) & tt.final.lt(1e-6)
ledger.add("fig3.timings", "Fig. 3", "The loss leaves the first saddle after ≈5000 iterations, plateaus at the "
           "second saddle and leaves it around iteration 11000, then reaches 0.",
           measured=f"exit₁ {tt.exit1.min():.0f}–{tt.exit1.max():.0f}, plateau {tt.plateau.min():.4f}–{tt.plateau.max():.4f}, "
                    f"exit₂ {tt.exit2.min():.0f}–{tt.exit2.max():.0f}, final ≤ {fmt(tt.final.max())}; "
                    f"{ok.sum()}/{len(ok)} seeds pass",
           tolerance="exit₁ ∈ [4000, 6500], plateau 0.5 ± 0.01, exit₂ ∈ [10000, 13000], final < 1e-6, all seeds",
           passed=bool(ok.all()), expected="reproduced", value=ok.mean())

# %% [markdown]
# The final function of the toy run against the theory's limit
# $h^*(x)=\sigma(2x+1)/5-0.8\,\sigma(1-x/2)$: two kinks, at $x=-0.5$ and $x=2$ (the data points),
# so outside the data it is *not* the linear interpolator $0.8x-0.6$. Its $\mathcal F_1$ cost
# $\sum_j|a_j|\|w_j\|$ is $1/\sqrt5+1/\sqrt{1.25}=1.342$, against $2$ for the linear interpolator
# (the paper's remark against the "learned function is linear" conjecture).

# %%
Z_toy = torch.stack([grid_toy, torch.ones_like(grid_toy)], -1)
h_fin = forward(toy.final, Z_toy)[..., 0]                         # (runs, 100)
h_star = th.limit_function(X_toy, y_toy, Z_toy)
gap_toy = (h_fin - h_star).abs().amax(-1)
f1_toy = th.f1_cost(toy.final)
print("max |h - h*| on the grid per seed:", gap_toy.numpy().round(6))
print("F1 cost per seed:", f1_toy.numpy().round(5), " theory:", round(th.min_f1_norm(X_toy, y_toy), 5))
ledger.add("thm1.toy-limit", "Thm. 1, Fig. 2(d)", "The final function of the toy has two kinks and equals the "
           "minimal-F1 interpolator h*, not the linear interpolator (F1 cost 1.342 < 2).",
           measured=f"max_x |h − h*| ≤ {fmt(gap_toy.max().item())}; F1 cost {fmt(f1_toy.min().item(), 6)}–{fmt(f1_toy.max().item(), 6)}",
           tolerance="|h − h*| < 1e-3 on [−1.5, 3]; |F1 − 1.3416| < 1e-3; all seeds",
           passed=bool((gap_toy < 1e-3).all() and ((f1_toy - th.min_f1_norm(X_toy, y_toy)).abs() < 1e-3).all()),
           expected="reproduced")

# %% [markdown]
# ## The $\lambda$-sweep: Theorem 1 and Lemmas 1–6 on an orthonormal test bed
#
# The paper's toy has only two points. To test the theorem and the scaling laws we use an
# orthonormal test bed (our choice, from the spec): $n=6$ points $x_k=e_k\in\mathbb R^{10}$ with
# labels $y=(1,1.5,2,-1,-1,-0.5)$, so $\|D_+\|=0.449$, $\|D_-\|=0.25$, $r=1.795$. Width $m=50$;
# for each of the seeds one draw $(g_j,s_j)$ is scaled to $\lambda\in\{10^{-4},10^{-6},\dots,10^{-12}\}$
# (the theorem's limit is $\lambda\to0$ at a fixed draw). GD with $dt=10^{-2}$ on the paper's $L$
# (the Hessian's largest eigenvalue stays below 1, so this step tracks the flow), for
# $t=220$, past the convergence of the smallest $\lambda$. All $5\times5$ runs train as one batch.

# %%
X_tb, y_tb = orthonormal_testbed()
kv = th.key_vectors(X_tb, y_tb)
lams = torch.tensor([1e-4, 1e-6, 1e-8, 1e-10, 1e-12], dtype=torch.float64)
dt, T_sweep = 1e-2, 220.0
p_sw = th.sweep_init(50, 10, lams, seeds=N_SEEDS, seed=seed)
t0_sweep = time.perf_counter()
sw = train(p_sw, X_tb, y_tb, loss=half_mse(), lr=dt, steps=int(T_sweep / dt),
           record=linear_schedule(int(T_sweep / dt), 25))
t_gd_sweep = time.perf_counter() - t0_sweep
Sp, Sm = th.s_sets(p_sw, X_tb, y_tb)
n_tb = X_tb.shape[0]
print(f"|D+| = {kv.norm_plus:.4f}  |D-| = {kv.norm_minus:.4f}  r = {kv.r:.4f}")
print("|S+,1| per seed:", Sp[:, 0].sum(-1).tolist(), " |S-,1| per seed:", Sm[:, 0].sum(-1).tolist())

# %% [markdown]
# ### Figure 1: the four phases
# The paper's Figure 1 summarises the phases. We draw it from a real run (seed 0,
# $\lambda=10^{-10}$): the loss against paper time with the theory's times — the end of
# alignment $t_{\pm1}=-\varepsilon\ln\lambda/\|D_\pm\|$ (with $\varepsilon=0.1$), the growth
# scales $\ln(1/\lambda)/\|D_\pm\|$ — and the plateau level $\frac1{2n}\sum_{y_k<0}y_k^2$; below,
# the fitted masses $u_\pm=\sum_{j\in S_{\pm,1}}\|w_j\|^2$ against their limits $n\|D_\pm\|$.

# %%
up_t = th.u_fitted(sw, Sp)      # (T, seeds, lams)
um_t = th.u_fitted(sw, Sm)
i_lam = 3
pt = th.phase_times(kv, lams[i_lam].item())
fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(7, 5.2), sharex=True, constrained_layout=True)
ax1.semilogy(sw.time, sw.loss[:, 0, i_lam].numpy(), color="k", lw=1.6, label="loss $L$")
ax1.axhline(th.plateau_loss(y_tb), color=THEORY, ls=":", label="plateau $\\frac{1}{2n}\\sum_{y<0}y^2$")
mark_times(ax1, {"$t_{+1}$": pt.t_plus1, "$t_{-1}$": pt.t_minus1, "$\\ln(1/\\lambda)/\\|D_+\\|$": pt.t2_scale,
                 "$\\ln(1/\\lambda)/\\|D_-\\|$": pt.t3_scale})
ax1.set(ylabel="$L$", ylim=(1e-12, 2), xlim=(0, 1.4 * pt.t3_scale), title="Figure 1 — the four phases (test bed, $\\lambda=10^{-10}$)")
for k, (lo, hi, name) in enumerate([(0, pt.t_minus1, "1: alignment"), (pt.t_minus1, pt.t2_scale, "2: fit $y_+$"),
                                     (pt.t2_scale, pt.t3_scale, "3: plateau, then fit $y_-$"), (pt.t3_scale, T_sweep, "4: convergence")]):
    ax1.axvspan(lo, hi, color=["#eeeeee", "#dce9f5", "#f7e1e4", "#e3f1ee"][k], zorder=0)
    ax1.text((lo + hi) / 2, 3e-12 * 30 ** (k % 2), name, ha="center", fontsize="x-small")
ax1.legend(loc="center right")
ax2.plot(sw.time, up_t[:, 0, i_lam].numpy(), color=POS, label="$u_+=\\sum_{S_{+,1}}\\|w_j\\|^2$")
ax2.plot(sw.time, um_t[:, 0, i_lam].numpy(), color=NEG, label="$u_-=\\sum_{S_{-,1}}\\|w_j\\|^2$")
ax2.axhline(n_tb * kv.norm_plus, color=POS, ls=":", lw=1)
ax2.axhline(n_tb * kv.norm_minus, color=NEG, ls=":", lw=1)
ax2.set(xlabel="paper time $t$ (GF on $L$)", ylabel="fitted mass")
ax2.legend(loc="center right")
glue("orthogonal-fig1", fig)

# %% [markdown]
# ### Theorem 1: zero loss, minimal norm, two clusters
# For every $\lambda\le10^{-4}$ and seed: the final loss, the squared parameter norm
# $\|\theta\|^2=\sum_j a_j^2+\|w_j\|^2$ against the minimal interpolating norm
# $2(\|y_+\|+\|y_-\|)=8.385$, the function gap to $h^*$ on 1000 random unit inputs, and whether
# the neurons with non-negligible norm form the two predicted clusters.

# %%
fin = sw.final
norm2 = (fin.W1 ** 2).sum((-1, -2)) + (fin.W2 ** 2).sum((-1, -2))          # (seeds, lams)
target = th.min_norm_squared(X_tb, y_tb)
excess = (norm2 - target) / target
Zr = torch.randn(1000, 10, generator=generator(seed + 1), dtype=torch.float64)
Zr = Zr / Zr.norm(dim=-1, keepdim=True)
fgap = (forward(fin, Zr)[..., 0] - th.limit_function(X_tb, y_tb, Zr)).abs().amax(-1)
u_plus, u_minus = th.limit_directions(X_tb, y_tb)          # = the phase-1 directions here (unit-norm inputs)
norms = fin.norms_in()
big = norms > 1e-3 * norms.amax(-1, keepdim=True)
cos_best = torch.maximum(cosine(fin.W1, u_plus), cosine(fin.W1, u_minus))
clustered = torch.where(big, cos_best > 0.999, torch.ones_like(big)).all(-1)
sweep_tab = pd.DataFrame({"lambda": np.tile(lams.numpy(), N_SEEDS), "seed": np.repeat(range(N_SEEDS), len(lams)),
                          "final loss": sw.loss[-1].reshape(-1).numpy(), "norm²": norm2.reshape(-1).numpy(),
                          "rel. excess": excess.reshape(-1).numpy(), "sup|h-h*|": fgap.reshape(-1).numpy(),
                          "two clusters": clustered.reshape(-1).numpy()})
sweep_tab.groupby("lambda").agg(["min", "max"]).drop(columns="seed")

# %%
ledger.add("thm1.zero-loss", "Thm. 1", "For λ small enough, gradient flow converges to zero training loss.",
           measured=f"max final loss over λ ≤ 1e-4 and {N_SEEDS} seeds: {fmt(sw.loss[-1].max().item())}",
           tolerance="< 1e-20 (float64) at t = 220", passed=bool(sw.loss[-1].max() < 1e-20), expected="reproduced")
mono = bool((excess[:, 1:] < excess[:, :-1]).all())
ledger.add("thm1.min-norm", "Thm. 1, Eq. 8", "As λ → 0 the limit is a minimal-norm interpolator: "
           "‖θ*‖² = 2(‖y₊‖ + ‖y₋‖).",
           measured=f"relative excess at λ=1e-12: {fmt(excess[:, -1].min().item())}–{fmt(excess[:, -1].max().item())}; "
                    f"decreasing in λ for every seed: {mono}",
           tolerance="excess > 0, decreasing as λ ↓, < 1% at λ = 1e-12",
           passed=bool(mono and (excess > 0).all() and (excess[:, -1] < 0.01).all()), expected="reproduced",
           value=excess[:, -1].max().item())
ledger.add("thm1.function-limit", "Thm. 1", "The learned function converges to the two-neuron limit h* as λ → 0.",
           measured=f"sup |h − h*| on 1000 unit inputs: λ=1e-4 → {fmt(fgap[:, 0].max().item())}, "
                    f"λ=1e-12 → {fmt(fgap[:, -1].max().item())}",
           tolerance="decreasing in λ (every seed) and < 0.05 at λ = 1e-12",
           passed=bool((fgap[:, 1:] <= fgap[:, :-1]).all() and (fgap[:, -1] < 0.05).all()), expected="reproduced")
mass = (fin.W1 ** 2).sum(-1) + fin.a ** 2                                   # ‖θ_j‖² per neuron
outside = (torch.where(cos_best > 0.999, torch.zeros_like(mass), mass).sum(-1) / mass.sum(-1))  # (seeds, lams)
out_mono = bool((outside[:, 1:] < outside[:, :-1]).all())
strict_ok = bool(clustered[:, -1].all())
ledger.add("thm1.two-clusters", "Thm. 1", "The limit (λ → 0) has two neuron clusters, along D₊ and −D₋; all other neurons vanish.",
           measured=f"runs where every neuron above 1e-3·max norm has cos > 0.999 with D₊ or −D₋: "
                    f"{int(clustered[:, -1].sum())}/{N_SEEDS} at λ = 1e-12; share of ‖θ‖² outside the two clusters: "
                    f"{fmt(outside[:, 0].max().item())} at λ=1e-4 → {fmt(outside[:, -1].max().item())} at λ=1e-12, "
                    f"decreasing for every seed: {out_mono}",
           tolerance="reproduced: strict clustering at λ = 1e-12 in every seed; partial: the share outside "
                     "the clusters decreases as λ ↓ and is < 1% at λ = 1e-12",
           passed="reproduced" if strict_ok else ("partial" if out_mono and (outside[:, -1] < 0.01).all() else "not reproduced"),
           expected="not reproduced")

# %% [markdown]
# The limit is approached very slowly. A positive-sign neuron outside $S_{+,1}$ that is active on
# a *subset* $A$ of the positive points grows during phase 2 at the rate $\|D^0_j\|=\frac1n\|y_A\|<\|D_+\|$
# instead of $\|D_+\|$, so it ends with a norm of order $\lambda^{1-\|D^0_j\|/\|D_+\|}$. On this test
# bed the worst subset, the points with $y=1.5$ and $y=2$, gives the exponent
# $1-2.5/\sqrt{7.25}\approx0.07$: such neurons shrink by only a factor $\approx1.6$ per three decades of
# $\lambda$. At every $\lambda$ we can run they still carry a few percent of $\|\theta\|^2$ while pointing
# elsewhere, so the two-cluster structure is **not reproduced** at finite $\lambda$ under the tolerance
# we fixed (share below 1% at $\lambda=10^{-12}$), although the share falls with $\lambda$ in every seed, as
# the limit requires. The norm of $\theta$ is much less sensitive (its excess is already below 1%).
#
# ### Lemmas 1 and 6: conservation and frozen inactivity
# Lemma 1: $a_j^2-\|w_j\|^2$ is conserved by the flow (GD conserves it up to $O(dt^2)$ per step).
# Lemma 6: on orthogonal data a neuron inactive on a point stays inactive *with the same
# pre-activation*: $\langle w_j,x_k\rangle$ is frozen once $\le0$.

# %%
# GD changes a_j² − ‖w_j‖² by exactly dt²(⟨w_j, D_j⟩² − a_j²‖D_j‖²) per step: an O(dt²) defect
# of the flow's conservation law. Halving dt must divide the drift accumulated up to a fixed time by ~2.
drift_toy = balancedness_drift(toy).max().item()
lam_c = torch.tensor([1e-8], dtype=torch.float64)
drifts = [balancedness_drift(train(th.sweep_init(50, 10, lam_c, seeds=N_SEEDS, seed=seed), X_tb, y_tb, loss=half_mse(),
                              lr=h, steps=int(100 / h), record=101)).max().item() for h in (1e-2, 5e-3)]
pre = sw.params.W1[..., :n_tb]                                               # ⟨w_j, e_k⟩, (T, seeds, lams, m, n)
frozen = torch.where(pre[:-1] <= 0, pre[1:] == pre[:-1], torch.ones_like(pre[1:], dtype=torch.bool))
ledger.add("lemma1.balancedness", "Lemma 1", "a_j² − ‖w_j‖² is conserved along the flow (balanced init: a_j = s_j‖w_j‖ for all t).",
           measured=f"relative drift max_t max_j |a_j² − ‖w_j‖²| / max_j ‖w_j(T)‖²: toy run (η = 1e-3) {fmt(drift_toy)}; "
                    f"test bed to t = 100: {fmt(drifts[0])} at dt = 1e-2, {fmt(drifts[1])} at dt = 5e-3 (ratio {drifts[0] / drifts[1]:.2f})",
           tolerance="toy drift ≤ 1e-4; halving dt divides the drift by 2 ± 0.2 (an O(dt) total drift, zero for the flow)",
           passed=bool(drift_toy <= 1e-4 and abs(drifts[0] / drifts[1] - 2) <= 0.2), expected="reproduced")
ledger.add("lemma6.inactive", "Lemma 6", "A neuron inactive on an input (⟨w_j, x_k⟩ ≤ 0) stays inactive, with the same pre-activation.",
           measured=f"{int((~frozen).sum())} violations among {frozen.numel():,} (snapshot, run, neuron, point) pairs",
           tolerance="exactly 0 (bitwise)", passed=bool(frozen.all()), expected="reproduced")

# %% [markdown]
# ### Lemma 2: alignment at the end of phase 1
# At $t_{+1}=-\varepsilon\ln\lambda/\|D_+\|$ every $S_{+,1}$ neuron has
# $\langle \bar w_j, D_+\rangle\ge(1-2\lambda^\varepsilon)\|D_+\|$ and every neuron is still tiny,
# $\|w_j\|\le2c\lambda^{1-\varepsilon}$, $c=\max_j\|g_j\|$; at $t_{-1}$ the same holds for
# $S_{-,1}$ and $-D_-$ with the bound $2c\lambda^{1-r\varepsilon}$. We check the raw inequalities
# with $\varepsilon=0.1$ at every $\lambda$ (they are asymptotic, so failures at large $\lambda$ are
# possible and are reported).

# %%
eps = 0.1
rows = []
c_const = (p_sw.norms_in() / lams.view(1, -1, 1)).amax(-1)                   # (seeds, lams)
for li, lam in enumerate(lams.tolist()):
    ptl = th.phase_times(kv, lam, eps)
    for side, (tt_, mask, u, bound_exp) in {"+": (ptl.t_plus1, Sp, u_plus, 1 - eps),
                                            "-": (ptl.t_minus1, Sm, u_minus, 1 - kv.r * eps)}.items():
        i = sw.index_of_step(int(round(tt_ / dt)))
        p_i = sw.at(i)
        cos_min = th.min_alignment(p_i, mask, u)[:, li]
        nmax = p_i.norms_in()[:, li].amax(-1)
        rows.append(dict(side=side, lam=lam, t=tt_, cos_min=cos_min.min().item(), cos_bound=1 - 2 * lam ** eps,
                         norm_max=nmax.max().item(), norm_bound=(2 * c_const[:, li] * lam ** bound_exp).min().item()))
l2 = pd.DataFrame(rows)
l2["holds"] = (l2.cos_min >= l2.cos_bound) & (l2.norm_max <= l2.norm_bound)
l2

# %%
small = l2[l2.lam <= 1e-8]
ledger.add("lemma2.alignment", "Lemma 2 (App. Lemmas 7–8)", "At t_{±1} = −ε ln λ/‖D_±‖ the S_{±,1} neurons are aligned with "
           "±D_± to 1 − 2λ^ε and all norms are ≤ 2cλ^{1−ε} (resp. 2cλ^{1−rε}).",
           measured=f"inequalities hold at {int(l2.holds.sum())}/{len(l2)} (λ, side) pairs; "
                    f"min cos at λ=1e-12: {fmt(l2[l2.lam == 1e-12].cos_min.min())}",
           tolerance="ε = 0.1; all pairs with λ ≤ 1e-8 (asymptotic statement)",
           passed=bool(small.holds.all()), expected="reproduced")

# %% [markdown]
# ### Lemmas 3–4: the growth phases scale like $\ln(1/\lambda)/\|D_\pm\|$
# Let $t_2^{1/2}$ ($t_3^{1/2}$) be the first time $u_+$ ($u_-$) reaches half its limit
# $n\|D_+\|$ ($n\|D_-\|$). The lemmas put the end of phase 2 (3) at $\approx\ln(1/\lambda)/\|D_+\|$
# ($/\|D_-\|$) up to $O(\varepsilon)$ and constants; hence the slope of $t_2^{1/2}$ against
# $\ln(1/\lambda)$ is $1/\|D_+\|$ and that of $t_3^{1/2}$ is $1/\|D_-\|$. We fit over
# $\lambda\in\{10^{-8},10^{-10},10^{-12}\}$ (where $\ln(1/\lambda)\ge18$; larger $\lambda$ still
# carries $O(1)$ offsets) for every seed. The plateau between the phases sits at the strict
# saddle $\theta_S$ with loss $\frac1{2n}\sum_{y_k<0}y_k^2=0.1875$.

# %%
t2h = th.crossing_times(sw.time, up_t, 0.5 * n_tb * kv.norm_plus)           # (seeds, lams)
t3h = th.crossing_times(sw.time, um_t, 0.5 * n_tb * kv.norm_minus)
logs = -np.log(lams.numpy())
fit = slice(2, None)
s2 = np.array([th.slope(logs[fit], t2h[s, fit])[0] for s in range(N_SEEDS)])
s3 = np.array([th.slope(logs[fit], t3h[s, fit])[0] for s in range(N_SEEDS)])
mid = (t2h + t3h) / 2
missed = int(np.isnan(mid).sum())            # (seed, λ) runs in which u₊ or u₋ never reached half its limit
plateau = np.array([[sw.loss[sw.index_of_step(int(mid[s, li] / dt)), s, li].item() if np.isfinite(mid[s, li]) else np.nan
                     for li in range(len(lams))] for s in range(N_SEEDS)])
if missed:
    print(f"{missed} (seed, λ) run(s) did not reach a half-fit time within the run: their times and plateau are nan "
          "and the claims below count them as failures")
fig, axes = panel_grid(2, width=4.2, height=3.2)
for s in range(N_SEEDS):
    axes[0].plot(logs, t2h[s], "o-", color=POS, alpha=0.6, label="$t_2^{1/2}$" if s == 0 else None)
    axes[0].plot(logs, t3h[s], "s-", color=NEG, alpha=0.6, label="$t_3^{1/2}$" if s == 0 else None)
for sl, col, name in [(1 / kv.norm_plus, POS, "$1/\\|D_+\\|$"), (1 / kv.norm_minus, NEG, "$1/\\|D_-\\|$")]:
    base = (t2h if col == POS else t3h)[:, -1].mean()
    axes[0].plot(logs, base + sl * (logs - logs[-1]), "--", color=THEORY, lw=1)
axes[0].set(xlabel="$\\ln(1/\\lambda)$", ylabel="paper time", title="half-fit times (dashed: theory slopes)")
axes[0].legend()
axes[1].semilogx(lams.numpy(), plateau.T, "o-", color="0.4", alpha=0.7)
axes[1].axhline(th.plateau_loss(y_tb), color=THEORY, ls="--", label="$\\frac{1}{2n}\\sum_{y<0}y^2$")
axes[1].set(xlabel="$\\lambda$", ylabel="loss midway between $t_2^{1/2}$ and $t_3^{1/2}$", title="plateau level")
axes[1].legend()
glue("orthogonal-sweep", fig)
pd.DataFrame({"slope t2 × |D+|": s2 * kv.norm_plus, "slope t3 × |D-|": s3 * kv.norm_minus,
              "plateau at 1e-12": plateau[:, -1]})

# %%
ledger.add("lemma3.t2-scaling", "Lemma 3", "Phase 2 (fitting y₊) ends at t₂ ≈ ln(1/λ)/‖D₊‖ (up to O(ε)).",
           measured=f"slope of t₂^½ vs ln(1/λ), × ‖D₊‖: {s2.min() * kv.norm_plus:.4f}–{s2.max() * kv.norm_plus:.4f}"
                    + (f"; {missed} (seed, λ) run(s) never reached a half-fit time" if missed else ""),
           tolerance="1 ± 0.03, every seed (λ ∈ {1e-8, 1e-10, 1e-12})",
           passed=bool((np.abs(s2 * kv.norm_plus - 1) < 0.03).all()), expected="reproduced")
ledger.add("lemma4.t3-scaling", "Lemma 4", "Phase 3 (fitting y₋) ends at t₃ ≈ ln(1/λ)/‖D₋‖; t₃/t₂ → r.",
           measured=f"slope of t₃^½ vs ln(1/λ), × ‖D₋‖: {s3.min() * kv.norm_minus:.4f}–{s3.max() * kv.norm_minus:.4f}; "
                    f"t₃^½/t₂^½ at 1e-12: {np.min(t3h[:, -1] / t2h[:, -1]):.3f}–{np.max(t3h[:, -1] / t2h[:, -1]):.3f} (r = {kv.r:.3f})",
           tolerance="slope 1 ± 0.03, every seed", passed=bool((np.abs(s3 * kv.norm_minus - 1) < 0.03).all()),
           expected="reproduced")
ledger.add("saddle.plateau", "Prop. (strict saddle)", "Between phases 2 and 3 the loss plateaus at a strict saddle with "
           "loss (1/2n) Σ_{y<0} y² = 0.1875.",
           measured=f"loss midway at λ ≤ 1e-8: {plateau[:, 2:].min():.5f}–{plateau[:, 2:].max():.5f}",
           tolerance="within 1% of 0.1875, every seed, λ ≤ 1e-8",
           passed=bool((np.abs(plateau[:, 2:] / th.plateau_loss(y_tb) - 1) < 0.01).all()), expected="reproduced")

# %% [markdown]
# ### Is GD with $dt=10^{-2}$ the gradient flow? Checked with the adaptive integrator
# The theorems are about gradient flow; the sweep runs GD. `lrlib.integrate.flow` integrates the
# flow itself (float64, adaptive Runge–Kutta with local error control, `rtol` $=10^{-8}$,
# `atol` $=10^{-14}$). For seed 0 we integrate all five $\lambda$ and recompute the half-fit times
# $t_2^{1/2},t_3^{1/2}$ at the sweep's own snapshot times, so both sides are interpolated alike.
# *Why the sweep itself stays GD:* the solver needs fewer gradient evaluations per run than GD's
# 22 000 steps (the table counts them), but each of its evaluations carries the solver's own
# bookkeeping and we integrate one run at a time (a batch would share one error control), while GD
# advances all 25 runs in one batched computation; the cell prints both wall times. On the non-orthogonal data of Figure 4 the flow *slides along* ReLU
# kinks and an explicit solver's steps shrink without end (see `lrlib.integrate`), so Figure 4 keeps
# the authors' GD with $\eta=10^{-3}$.

# %%
gf_rows, t0_gf = [], time.perf_counter()
for li in range(len(lams)):
    run = p_sw.map(lambda t: t[0, li])
    gf = flow(run, X_tb, y_tb, loss=half_mse(), lr=dt, steps=int(T_sweep / dt), record=sw.steps, rtol=1e-8, atol=1e-14)
    t2_gf = th.crossing_times(gf.time, th.u_fitted(gf, Sp[0, li]), 0.5 * n_tb * kv.norm_plus)
    t3_gf = th.crossing_times(gf.time, th.u_fitted(gf, Sm[0, li]), 0.5 * n_tb * kv.norm_minus)
    gf_rows.append({"λ": f"{lams[li].item():.0e}", "t₂½ GD": t2h[0, li], "t₂½ flow": float(t2_gf),
                    "t₃½ GD": t3h[0, li], "t₃½ flow": float(t3_gf), "flow gradient evaluations": gf.meta["grad_evals"]})
t_gf = time.perf_counter() - t0_gf
gf_table = pd.DataFrame(gf_rows)
gf_dev = np.nanmax(np.abs(np.r_[gf_table["t₂½ GD"] / gf_table["t₂½ flow"], gf_table["t₃½ GD"] / gf_table["t₃½ flow"]] - 1))
print(f"largest relative difference GD vs flow in the half-fit times: {gf_dev:.2%}; "
      f"cost: GD sweep (25 runs of {int(T_sweep / dt):,} steps in one batch) {t_gd_sweep:.1f} s, "
      f"flow for 5 runs {t_gf:.1f} s")
gf_table.round(3)

# %% [markdown]
# The saddle is *strict*: adding to $\theta_S$ a neuron pair $w=\delta(-D_-/\|D_-\|)$,
# $a=-\delta$ lowers the loss as $-\|D_-\|\delta^2+O(\delta^4)$ (our derivation). We check the
# curvature exactly on the closed-form $\theta_S$, with no training involved.

# %%
deltas = torch.logspace(-4, -2, 5, dtype=torch.float64)
dL, pred_slope = th.escape_curvature(X_tb, y_tb, deltas)
curv = (dL / deltas ** 2).numpy()
theta_S = th.saddle_point(X_tb, y_tb)
grad_S = torch.func.grad(lambda W1, W2: th.paper_loss(TwoLayer(W1=W1, W2=W2), X_tb, y_tb), argnums=(0, 1))(theta_S.W1, theta_S.W2)
gnorm = float(sum(g.norm() ** 2 for g in grad_S) ** 0.5)
ledger.add("saddle.strict", "Prop. (strict saddle)", "θ_S (S₊ neurons along D₊ with Σ‖w‖² = n‖D₊‖) is a stationary point "
           "with a direction of negative curvature.",
           measured=f"‖∇L(θ_S)‖ = {fmt(gnorm)}; (L(δ) − L(θ_S))/δ² = {curv.min():.6f}…{curv.max():.6f} vs −‖D₋‖ = {pred_slope:.6f}",
           tolerance="‖∇L‖ < 1e-12; curvature within 1% of −‖D₋‖",
           passed=bool(gnorm < 1e-12 and np.all(np.abs(curv / pred_slope - 1) < 0.01)), expected="reproduced")

# %% [markdown]
# ### Lemma 5 and convergence: the last phase is exponential
# After phase 3 the loss decays exponentially. Linearising the flow at the limit (our
# derivation, the paper's PL constant is lost from the text), the residuals of the labels fitted
# last decay at rate $\|D_-\|$ per unit time, so $\ln L$ falls with slope $-2\|D_-\|=-0.5$ here
# ($n_-=3\ge2$). We fit $\ln L$ between $10^{-8}$ and $10^{-16}$. The non-asymptotic Theorem 1
# (Lemma 12, absent from the text) says convergence happens after a time of order $\ln(1/\lambda)$:
# the time to reach $L<10^{-6}$ grows linearly in $\ln(1/\lambda)$ with slope $\approx1/\|D_-\|$.

# %%
rate = np.full((N_SEEDS, len(lams)), np.nan)
rate_lin = np.full_like(rate, np.nan)
t_conv = np.zeros((N_SEEDS, len(lams)))
for s in range(N_SEEDS):
    for li in range(len(lams)):
        Lr = sw.loss[:, s, li].numpy()
        win = (Lr < 1e-16) & (Lr > 1e-24)          # deep in the asymptotic regime
        if win.sum() > 5:
            rate[s, li] = -th.slope(sw.time[win], np.log(Lr[win]))[0]
        rate_lin[s, li] = th.linearised_loss_rate(sw.final.map(lambda t: t[s, li]), X_tb)
        t_conv[s, li] = first_crossing(sw.time, Lr, 1e-6)
r_pred = th.local_rate(kv, int((y_tb < 0).sum()))
dev = np.abs(rate / r_pred - 1)
lin_ok = bool(np.all(np.abs(rate / rate_lin - 1) < 0.01))
dev_mono = bool(np.all(np.diff(dev, axis=1) < 0))
ledger.add("lemma5.local-rate", "Lemma 5 (local PL)", "After phase 3 the loss converges exponentially, at a rate set by ‖D₋‖ "
           "(linearisation: d ln L/dt → −2‖D₋‖ here).",
           measured=f"fitted rate of ln L (L ∈ [1e-24, 1e-16]): λ=1e-4 {np.nanmin(rate[:, 0]):.4f}–{np.nanmax(rate[:, 0]):.4f}, "
                    f"λ=1e-12 {np.nanmin(rate[:, -1]):.4f}–{np.nanmax(rate[:, -1]):.4f} vs 2‖D₋‖ = {r_pred:.4f}; "
                    f"equals the exact linearised rate 2λ_min(K)/n within 1% in every run: {lin_ok}",
           tolerance="reproduced: within 3% of 2‖D₋‖ in every run; partial: equals the linearised rate (1%) "
                     "and the gap to 2‖D₋‖ shrinks monotonically as λ ↓",
           passed="reproduced" if np.all(dev < 0.03) else ("partial" if lin_ok and dev_mono else "not reproduced"),
           expected="partial")
s_conv = np.array([th.slope(logs[fit], t_conv[s, fit])[0] for s in range(N_SEEDS)]) * kv.norm_minus
ledger.add("lemma12.convergence-time", "Thm. 1 / Lemma 12", "Convergence happens after a time of order ln(1/λ) "
           "(spec: slope 1/‖D₋‖).",
           measured=f"slope of t(L < 1e-6) vs ln(1/λ), × ‖D₋‖: {s_conv.min():.3f}–{s_conv.max():.3f}",
           tolerance="reproduced: 1 ± 0.05 in every seed; partial: 1 ± 0.2 (order ln(1/λ) holds, the constant does not)",
           passed="reproduced" if np.all(np.abs(s_conv - 1) < 0.05) else ("partial" if np.all(np.abs(s_conv - 1) < 0.2) else "not reproduced"),
           expected="partial")

# %% [markdown]
# The asymptotic rate is exactly the one of the flow linearised at the end point,
# $2\lambda_{\min}(K)/n$ with $K=JJ^\top$ the tangent-kernel Gram matrix, but that end point is
# not yet the $\lambda\to0$ limit: the small neurons outside $S_{-,1}$ (see Theorem 1 above) change
# $K$, so the rate reaches $2\|D_-\|$ only as $\lambda\to0$ (seed by seed the gap shrinks
# monotonically). For the same reason the time to converge grows like $\ln(1/\lambda)$ with a
# slope that, in some seeds, is further from $1/\|D_-\|$ than the 5% the spec proposed: "of order
# $\ln(1/\lambda)$" holds, the sharper constant does not hold in every seed. Both claims are published as *partial*.

# %% [markdown]
# ### When Assumption 3 fails, gradient flow can get stuck
# Assumption 3 asks for at least one neuron in $S_{+,1}$ and one in $S_{-,1}$. With a narrow
# network it can fail. By Lemma 6 a label $y_k<0$ can only be fitted by a negative-sign neuron
# active on $x_k$ at initialisation (and mirror for $y_k>0$); if there is none, the loss can never
# drop below $\frac1{2n}\sum_{k\,\text{uncovered}}y_k^2$. We train 40 draws of width $m=4$
# ($\lambda=10^{-6}$, $t=400$) and compare each final loss with that floor. The assumption is
# sufficient, not necessary: a draw can violate it and still converge when other neurons cover
# every point.

# %%
n_draw = 10 if quick else 40
p4 = balanced_init(4, 10, scale=1e-6, gen=generator(seed + 7), runs=(n_draw,))
stuck = train(p4, X_tb, y_tb, loss=half_mse(), lr=dt, steps=40_000, record=50)
act0 = (X_tb @ p4.W1.transpose(-1, -2) > 0)                                # (draws, n, m)
sgn = torch.sign(p4.a).unsqueeze(-2)
covered = torch.where(y_tb.view(-1, 1) > 0, (act0 & (sgn > 0)).any(-1, keepdim=True),
                      (act0 & (sgn < 0)).any(-1, keepdim=True))[..., 0]    # (draws, n)
floor = ((~covered) * y_tb ** 2).sum(-1) / (2 * n_tb)
S4p, S4m = th.s_sets(p4, X_tb, y_tb)
viol = ~(S4p.any(-1) & S4m.any(-1))
final4 = stuck.loss[-1]
stuck_tab = pd.DataFrame({"assumption 3": ~viol.numpy(), "final loss": final4.numpy(), "floor": floor.numpy()})
print(stuck_tab.groupby("assumption 3").agg(runs=("final loss", "size"),
                                           stuck=("final loss", lambda v: int((v > 1e-6).sum()))))
match = torch.where(floor > 0, (final4 / floor - 1).abs() < 1e-3, final4 < 1e-10)
ledger.add("assumption3.stuck", "Assumption 3, Lemma 6", "Without neurons covering every label sign, gradient flow can stop "
           "at a non-zero loss: the uncovered labels are never fitted.",
           measured=f"{int(viol.sum())}/{n_draw} draws violate Assumption 3, {int((final4[viol] > 1e-6).sum())} of them stuck; "
                    f"final loss = floor (1/2n)Σ_uncovered y² in {int(match.sum())}/{n_draw} draws",
           tolerance="final loss within 0.1% of the floor (or < 1e-10 when all covered) in every draw",
           passed=bool(match.all() and (final4[viol] > 1e-6).any()), expected="reproduced")

# %% [markdown]
# ## Non-orthogonal data (Figure 4)
# Appendix A.1: five 1-D points with a bias coordinate. The text does not give the values; we use
# the authors' camera-ready code's $x=(-1.5,-1,0,0.25,2)$, $y=(0.7,-0.3,-0.3,0.4,0.2)$; $m=60$,
# $\lambda=10^{-4}/\sqrt m$, GD with $\eta=10^{-3}$ on the mean MSE for 400 000 iterations (the
# authors' older commit). The paper's point: two groups of neurons grow *and change direction*
# during the growth (panel c), the loss shows saddle-to-saddle steps (f), and the final function is
# still sparse in kinks (e).

# %%
X_no, y_no = nonorthogonal_1d()
eta4 = 1e-2 if quick else 1e-3
steps4 = int(400 * 1e-3 / eta4 * 1000)
p_no = balanced_init(60, 2, scale=1e-4 / math.sqrt(60), gen=generator(seed + 2))
no = train(p_no, X_no, y_no, loss=MEAN_MSE, lr=eta4, steps=steps4, record=400, time_scale=2.0)
it_no = no.steps * eta4 / 1e-3                                              # in units of the paper's iterations
L_no = no.loss.numpy()
print(f"L0 = {L_no[0]:.4f}, final = {L_no[-1]:.3g}")

# %% [markdown]
# Panels: (a) init; (b) early alignment, just before the loss first drops; (c) the first growth,
# when the loss has made half of its first drop; (d) leaving the intermediate saddle, half-way down
# the second drop; (e) the end; (f) the loss. We locate the plateau as the longest stretch of
# snapshots where $\log L$ changes by less than 1% per snapshot.

# %%
plat = [pl for pl in plateaus(L_no) if pl[0] > 0 and L_no[pl[0]] < 0.95 * L_no[0] and L_no[pl[1]] > 100 * L_no[-1]]
main_pl = max(plat, key=lambda ab: it_no[ab[1]] - it_no[ab[0]]) if plat else (len(L_no) // 2, len(L_no) // 2)
L_pl = L_no[main_pl[0]:main_pl[1]].mean()
i_b = int(np.argmax(L_no < 0.99 * L_no[0]))
i_c = int(np.argmax(L_no < (L_no[0] + L_pl) / 2))
i_d = main_pl[1] + int(np.argmax(L_no[main_pl[1]:] < np.sqrt(L_pl * max(L_no[-1], 1e-12))))
idx_no = [0, max(i_b - 1, 1), i_c, i_d, len(L_no) - 1]
fig, axes = panel_grid(3, 2, width=3.8)
grid_no = torch.linspace(-2.5, 3.0, 200, dtype=torch.float64)
draw_1d_panels([no.at(i) for i in idx_no], X_no, y_no, axes[:5], grid_no,
               [f"iteration {it_no[i]:,.0f}" for i in idx_no])
axes[5].semilogy(it_no, L_no, color="k")
axes[5].axvspan(it_no[main_pl[0]], it_no[main_pl[1]], color="#f7e1e4", label="plateau")
for i in idx_no:
    axes[5].axvline(it_no[i], color=THEORY, ls=":", lw=1)
axes[5].set(xlabel="iteration (η = 1e-3 equivalent)", ylabel="mean-MSE loss", title="loss")
axes[5].legend()
label_panels(axes)
fig.suptitle("Figure 4 — non-orthogonal data, small initialisation")
glue("orthogonal-fig4", fig)

# %%
turn_no = max_direction_change(no.at(idx_no[1]), no.at(main_pl[0] + 1))
turn_toy = max_direction_change(toy.run(0).at(idx_toy[1]), toy.run(0).at(idx_toy[2]))
fin_no = no.final
big_no = fin_no.norms_in() > 1e-2 * fin_no.norms_in().max()
kinks_no = np.sort((-fin_no.W1[:, 1] / fin_no.W1[:, 0])[big_no].numpy())
n_clusters = 1 + int((np.diff(kinks_no) > 0.05).sum()) if kinks_no.size else 0
print(f"turn during growth: non-orthogonal {turn_no:.1f}°, orthogonal toy {turn_toy:.2f}°; "
      f"{n_clusters} kink clusters: {np.round(kinks_no, 2)}")
ledger.add("fig4.saddles", "Fig. 4(f), App. A.1", "On non-orthogonal data the loss still goes saddle to saddle and reaches zero.",
           measured=f"{len(plat)} intermediate plateau(s), longest at loss {L_pl:.4g} over iterations "
                    f"{it_no[main_pl[0]]:,.0f}–{it_no[main_pl[1]]:,.0f}; final loss {fmt(L_no[-1])}",
           tolerance="≥ 1 intermediate plateau; final mean-MSE < 1e-5",
           passed=bool(len(plat) >= 1 and L_no[-1] < 1e-5), expected="reproduced")
ledger.add("fig4.realign", "Fig. 4(c–d), §4", "Unlike the orthogonal case, the growing neurons change direction during growth.",
           measured=f"max direction change of the 10 largest neurons from alignment to plateau: {turn_no:.1f}° "
                    f"(orthogonal toy, same window: {turn_toy:.2f}°)",
           tolerance="> 10° here and < 1° in the orthogonal toy", passed=bool(turn_no > 10 and turn_toy < 1),
           expected="reproduced")
ledger.add("fig4.sparse", "Fig. 4(e)", "The final function is sparse in kinks.",
           measured=f"{n_clusters} kink clusters among neurons above 1% of the max norm",
           tolerance="≤ 5 clusters (kinks closer than 0.05 merged)", passed=bool(n_clusters <= 5), expected="reproduced")

# %% [markdown]
# ## Large initialisation: the lazy regime (Figure 5)
# Same data, $\lambda=10/\sqrt m$. The paper: the neurons barely move, convergence is fast with
# no saddle, and the final function is close to the kernel (NTK) interpolator at initialisation
# rather than sparse. We run 20 000 iterations (the loss reaches its floor long before).

# %%
p_lazy = balanced_init(60, 2, scale=10 / math.sqrt(60), gen=generator(seed + 2))
lazy = train(p_lazy, X_no, y_no, loss=MEAN_MSE, lr=1e-3, steps=20_000, record=200, time_scale=2.0)
fig, axes = panel_grid(2, width=4.4)
grid_lz = torch.linspace(-2.5, 3.0, 200, dtype=torch.float64)
draw_1d_panels([lazy.at(0), lazy.final], X_no, y_no, axes, grid_lz, ["initialisation", "end of training"])
label_panels(axes)
fig.suptitle("Figure 5 — large initialisation ($\\lambda=10/\\sqrt{m}$): lazy regime")
glue("orthogonal-fig5", fig)


mv_lazy, mv_rich = relative_movement(lazy), relative_movement(no)
f1_lazy = float(th.f1_cost(lazy.final))
f1_rich = float(th.f1_cost(no.final))
print(f"relative movement: lazy {mv_lazy:.3f}, small init {mv_rich:.3g}; F1 cost: lazy {f1_lazy:.1f}, small init {f1_rich:.2f}")
ledger.add("fig5.lazy", "Fig. 5, App. A.1", "With a large initialisation the neurons barely move and the interpolator is not "
           "sparse (large F1 cost), unlike small initialisation.",
           measured=f"‖θ_T − θ_0‖/‖θ_0‖ = {mv_lazy:.3f} (small init: {mv_rich:.3g}); F1 cost {f1_lazy:.1f} vs {f1_rich:.2f}; "
                    f"final loss {fmt(lazy.loss[-1].item())}",
           tolerance="movement < 0.2 (small init > 100); F1 cost ≥ 10× the small-init one; loss < 1e-6",
           passed=bool(mv_lazy < 0.2 and mv_rich > 100 and f1_lazy > 10 * f1_rich and lazy.loss[-1] < 1e-6),
           expected="reproduced")

# %% [markdown]
# ## High-dimensional, nearly orthogonal data (Figures 6 and 7)
# Appendix A.2: $n=75$ Gaussian inputs in $\mathbb R^{150}$ (nearly orthogonal), labels from a
# random bias-free 6-neuron ReLU teacher; student width $m=200$ without bias,
# $\lambda=10^{-20}/\sqrt{md}$, 200 000 iterations of step $10^{-3}$ on the mean MSE in the paper.
# **Our step:** $\eta=10^{-2}$ for 20 000 iterations — the same flow time, ten times faster. We
# verify below that doubling the step again leaves the loss curve unchanged, so the step does not
# matter here. Our teacher draw is ours (the authors' exact draw depends on their PyTorch layer
# creation order), so saddle times differ from theirs.

# %%
X_hd, y_hd = relu_teacher(75, 150, 6, gen=generator(seed + 4))
lam_hd = 1e-20 / math.sqrt(200 * 150)
p_hd = balanced_init(200, 150, scale=lam_hd, gen=generator(seed + 5))
eta_hd = 2e-2 if quick else 1e-2
hd = train(p_hd, X_hd, y_hd, loss=MEAN_MSE, lr=eta_hd, steps=int(200 / eta_hd), record=300, time_scale=2.0)
it_hd = hd.steps * eta_hd / 1e-3
if not quick:
    hd2 = train(p_hd, X_hd, y_hd, loss=MEAN_MSE, lr=2 * eta_hd, steps=int(100 / eta_hd), record=300, time_scale=2.0)
    t_common = np.intersect1d(hd.time, hd2.time)
    gapL = np.max(np.abs(np.log(hd.loss.numpy()[np.isin(hd.time, t_common)] / hd2.loss.numpy()[np.isin(hd2.time, t_common)])))
    print(f"max |log L(η) − log L(2η)| at common times: {gapL:.3g}")
ev = torch.linalg.svdvals(hd.final.W1) ** 2
ev = (ev / ev.sum()).numpy()
print(f"explained variance of the top-2 PCs of the final W: {ev[:2].sum():.3f}")

# %%
V = torch.linalg.svd(hd.final.W1, full_matrices=False).Vh[:2]              # (2, d), uncentred PCA of the final W
L_hd = hd.loss.numpy()
pl_hd = [pl for pl in plateaus(L_hd) if L_hd[pl[0]] < 0.95 * L_hd[0] and L_hd[pl[1]] > 10 * L_hd[-1]]
i_b6 = int(np.argmax(L_hd < 0.99 * L_hd[0])) - 1
i_c6 = pl_hd[0][0] if pl_hd else len(L_hd) // 2
idx_hd = [0, max(i_b6, 1), i_c6, len(L_hd) - 1]
fig = plt.figure(figsize=(13, 3.6), constrained_layout=True)
for k, i in enumerate(idx_hd):
    ax = fig.add_subplot(1, 4, k + 1, projection="polar")
    P = (hd.at(i).W1 @ V.T).numpy()
    sgn = np.sign(hd.at(i).a.numpy())
    ax.scatter(np.arctan2(P[:, 1], P[:, 0]), np.hypot(P[:, 0], P[:, 1]), s=10,
               c=[POS if v > 0 else NEG for v in sgn])
    ax.set_title(f"({'abcd'[k]}) iteration {it_hd[i]:,.0f}", fontsize="medium")
    ax.tick_params(labelsize="x-small")
fig.suptitle("Figure 6 — neurons projected on the top-2 principal components of the final W (blue: $a_j>0$, red: $a_j<0$)")
glue("orthogonal-fig6", fig)

fig, axes = panel_grid(2, width=4.4)
axes[0].semilogy(it_hd, L_hd, color="k", label="$\\eta=10^{-2}$")
if not quick:
    axes[0].semilogy(hd2.steps * 2 * eta_hd / 1e-3, hd2.loss.numpy(), color=THEORY, ls="--", lw=1, label="$\\eta=2\\cdot10^{-2}$")
for a_, b_ in pl_hd:
    axes[0].axvspan(it_hd[a_], it_hd[b_], color="#f7e1e4")
axes[0].set(xlabel="iteration ($\\eta=10^{-3}$ equivalent)", ylabel="mean-MSE loss", title="training loss")
axes[0].legend()
axes[1].bar(np.arange(1, 11), ev[:10], color=POS)
axes[1].set(xlabel="principal component", ylabel="explained variance ratio", title=f"top-2: {ev[:2].sum():.2f}")
label_panels(axes)
fig.suptitle("Figure 7 — high-dimensional data")
glue("orthogonal-fig7", fig)

# %%
ledger.add("fig7.saddle", "Fig. 7(a), App. A.2", "On nearly orthogonal high-dimensional data the loss shows an intermediate "
           "saddle before decreasing towards 0.",
           measured=f"{len(pl_hd)} intermediate plateau(s); final loss {fmt(L_hd[-1])} "
                    f"({L_hd[pl_hd[0][0]] / L_hd[-1]:.0f}× below the first plateau)" if pl_hd else "no plateau found",
           tolerance="≥ 1 plateau; final loss ≥ 10× below it", passed=bool(pl_hd), expected="reproduced")
ledger.add("fig7.pca", "Fig. 7(b)", "≈80% of the final neurons' variance is explained by two principal components "
           "(close to, but not exactly, a two-neuron network).",
           measured=f"top-2 explained variance {ev[:2].sum():.3f} (PC1 {ev[0]:.3f}, PC2 {ev[1]:.3f})",
           tolerance="in [0.7, 0.9]", passed=bool(0.7 <= ev[:2].sum() <= 0.9), expected="reproduced",
           value=float(ev[:2].sum()))

# %% [markdown]
# ## Claims ledger
# Every checkable statement of the paper that this chapter tests, with what we measured, the
# tolerance (fixed before looking at the result, from the reproduction spec) and the verdict.
# The build fails if a measured verdict differs from the expected one.

# %%
ledger.save(ledger_path)
print(ledger.summary())
ledger.check(strict=not quick and seed == 0)   # enforced for the book's own run
ledger.table()
