# ---
# jupyter:
#   jupytext:
#     cell_metadata_filter: tags,mystnb,-all
#     formats: ipynb,py:percent
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
# # It's not a lottery, it's a race
#
# **Paper.** B. Pinson, *It's not a Lottery, it's a Race: Understanding How Gradient Descent Adapts
# the Network's Capacity to the Task*, 2026.
#
# **What the paper claims.** In a one-hidden-layer ReLU network with two softmax outputs, trained
# from a small initialisation, each neuron $\alpha$ follows three principles. *Mutual alignment*:
# the outgoing vector $w^{(2)}_\alpha\in\mathbb R^2$ turns to $\phi^*=7\pi/4$ or $3\pi/4$ (Theorem 4.1)
# and the incoming vector $w^{(1)}_\alpha$ turns towards $\langle\gamma_\alpha\rangle$ (eq. 9), which early
# on is the difference of the class sums of the neuron's effective data set (Props. 4.2–4.3).
# *Unlocking*: the product of norms $a_\alpha=\|w^{(2)}_\alpha\|\|w^{(1)}_\alpha\|$ grows as
# $\exp(\lambda\|\langle\gamma\rangle\|\cos\delta_\alpha\,t)$ (eq. 19), $\delta_\alpha$ the angle to the
# target. *Racing*: the neurons that start closest win, grow exponentially faster and starve the
# others, so the final norms are concentrated and aligned neurons can be merged. On a binary
# CIFAR-10 task the early $\cos\delta_\alpha$ predicts the final $a_\alpha$, and with a small init
# 250 neurons merge into about 150 at a loss cost of 0.1 %.
#
# **What we run.** Every figure, on the committed CIFAR-10 subset (the three settings at the paper's
# scale: width 250, 200/200/2000 images, batch 4/4/32, SGD with $\lambda=10^{-3}$ and momentum 0.9)
# and on an XOR-like toy set; the gradient identities in float64 against autograd; every random
# claim over 5 seeds (different image subsets and initialisations, trained as one batched run).
#
# **Conventions.** Loss: softmax cross-entropy (natural log), **mean** over the batch (PyTorch's
# default); the paper's $\langle\cdot\rangle$ is $\frac1N\sum_s g^s_\alpha(\cdot)$ over the *whole* training set
# (spec erratum E3). Time $t$ is the **optimiser step** (one mini-batch). `lrlib.train` is PyTorch's
# SGD: $v\leftarrow\mu v+g$, $\theta\leftarrow\theta-\lambda v$, with a fresh permutation of the data
# each epoch (sampling without replacement, last partial batch kept). With momentum 0.9 the slow
# dynamics move at $\lambda_{\rm eff}=\lambda/(1-\mu)=0.01$ per step, so gradient-flow time is
# $\tau=0.01\,t$. Class 1 of the paper (airplane + cat) is label 0 (output node 0, $\phi_{\Delta y}=7\pi/4$),
# class 2 (automobile + bird) label 1. CIFAR training runs in float32; every identity is checked in
# float64.

# %% [markdown]
# **Choices the paper leaves open**
#
# | what | our choice | why |
# |---|---|---|
# | setting 1 init std | $10^{-4}$ (all weights), biases 0 | "low scale" (< 0.01). Calibrated on seed 0 among $3\cdot10^{-3}$, $10^{-3}$, $10^{-4}$: only $10^{-4}$ keeps the loss at $t=500$ within 0.1 % of $\ln2$, i.e. "before the loss drops" as Fig. 1c says of $t=500$ (the others are 1.8 % and 1.1 % down). We had also seen the merge counts of these calibration runs when choosing; they are shown below, and the merging result depends strongly on the choice. |
# | unit of $t$ | optimiser steps | with $t$ in steps the paper's $t=500$ is on the plateau; in epochs (50 steps each) it would be long after the drop |
# | run length | 8000 steps for all settings (160 epochs for 200 images, 128 for 2000) | the loss is below 0.1 and falling slowly; "final" means step 8000; the time budget of the book (5 min for the chapter) allows no more |
# | data | train split, `cifar_race(50 or 500, seed + r)`: equal numbers of each original class, ITU-R 601 luma in $[0,1]$, not centred | the paper: grayscale, flattened; settings 1 and 2 use the same subsets |
# | $b^{(2)}$, weight decay, Nesterov | 0, none, no | PyTorch defaults |
# | $\delta_\alpha$ | the vector angle $\angle(w^{(1)}_\alpha,\langle\gamma_\alpha\rangle)$ on the full training set | the paper's per-coordinate angles are exact only in 2-D (spec E5) |
# | total parameter vector | $\theta_\alpha=[w^{(1)}_\alpha, b_\alpha, w^{(2)}_\alpha]$ | "total parameter vector"; merging $\theta\mapsto\hat\theta\sqrt{\sum\|\theta\|^2}$ is exact for parallel $\theta$ (2-homogeneity) |
# | merging | greedy in decreasing $\|\theta\|$: each unassigned neuron absorbs every unassigned one with cosine $\ge0.999$ | the paper gives only the threshold |
# | XOR toy (Figs. 2, 3, 4, 9) | centroids at 45°, 135°, 225°, 315° with norms 4, 3, 1, 2 and labels 0, 1, 0, 1; std 0.1; 50 points each | the paper draws it only; interleaving the norms between the classes gives separate drops (spec pilot) |
# | XOR training | full batch, $\lambda=10^{-3}$, momentum 0.9 (as for CIFAR), init std $10^{-6}$; width 200 for Fig. 2, 1000 for Fig. 3, 200 for Fig. 4 | the paper gives only the widths 1000 (Fig. 3) and 500 (Fig. 4); 200 keeps the chapter within its budget and the arrows readable |
# | snapshots | $t\in\{0,250,500,1000,2000,4000,8000\}$ | the paper names $t=0$ and $t=500$ only |
# | seeds | 5 (image subset and init), one batched run per setting (the runs share the mini-batch order, i.e. the positions drawn each step, but not the images at those positions); figures show seed `seed` | the paper shows one run |

# %% tags=["parameters"]
seed = 0            # base seed of every random draw in this chapter
quick = False       # True: fewer seeds, steps and images (tests only)
ledger_path = ""    # write the claims ledger to this JSON file (empty string: no file)

# %%
import math
import time

import numpy as np
import matplotlib.pyplot as plt
import pandas as pd
import torch

from lrlib import nbparams
from lrlib.claims_legacy import Ledger
from lrlib.data import cifar_race
from lrlib.losses import Loss
from lrlib.models import forward, generator
from lrlib.plots import NEG, POS, THEORY, glue, label_panels, panel_grid, set_style
from lrlib.theory import race as rc
from lrlib.track import cosine_similarity_matrix, drops
from lrlib.train import train
from lrlib.trajectory import linear_schedule, log_schedule

quick = nbparams.check_common(seed, quick, ledger_path)
torch.set_num_threads(1)
set_style()
ledger = Ledger("race")
CE = Loss("cross_entropy")
F64 = torch.float64
T_START = time.time()


def rl(x, d=2):
    """A short list of rounded floats for the ledger."""
    return [round(float(v), d) for v in np.asarray(x, dtype=float).ravel()]


N_SEEDS = 2 if quick else 5
STEPS = 800 if quick else 8000
LR, MOM = 1e-3, 0.9
SNAP_T = [0, 250, 500, 1000, 2000, 4000, STEPS] if not quick else [0, 250, 500, STEPS]
SETTINGS = {1: dict(n_per=50, bs=4, std=1e-4), 2: dict(n_per=50, bs=4, std=1e-2),
            3: dict(n_per=100 if quick else 500, bs=32, std=1e-2)}
XOR_W = 40 if quick else 200
XOR_STEPS = 2000 if quick else 6000
print(CE.describe(), f"| SGD lr {LR}, momentum {MOM} | {N_SEEDS} seeds, {STEPS} steps")

# %% [markdown]
# ## The per-neuron equations (eqs. 4–8, 15) and Figure 3
# Writing $w^{(2)}_\alpha$ in polar form $(\|w^{(2)}_\alpha\|,\phi_\alpha)$, the paper's eqs. 4–8 give the
# gradient of the loss in norms and angles through $\Delta y^s=y^s-\hat y^s$, the gate
# $g^s_\alpha=1[w^{(1)}_\alpha\cdot x^s+b_\alpha>0]$ and $\langle\gamma_\alpha\rangle=\frac1N\sum_sg^s_\alpha\cos(\phi_{\Delta y^s}-\phi_\alpha)\|\Delta y^s\|x^s$,
# e.g. $\nabla_{w^{(1)}_\alpha}L=-\|w^{(2)}_\alpha\|\langle\gamma_\alpha\rangle$ (eq. 66). Since every $\Delta y^s$ points
# to $7\pi/4$ (class 1) or $3\pi/4$ (class 2), the ratio of eq. 15 is **exactly**
# $\|w^{(2)}_\alpha\|\tan(3\pi/4-\phi_\alpha)$ — for any data, gating and time. Figure 3 plots it at $t=0$
# for the XOR toy with 1000 neurons (init std 0.01 for the figure, float64). The small values on the
# paper's y-axis are the factor $\|w^{(2)}_\alpha\|\approx0.014$.

# %%
X_x, y_x, cl_x = rc.xor_clusters(50, generator(seed))
p3 = rc.race_init(1000, 2, 1e-2, generator(seed + 1), dtype=F64)
ratio, exact = rc.phi_ratio(p3, X_x, y_x)
ph3 = rc.phi(p3)
keep = torch.cos(rc.PHI2 - ph3).abs() > 0.05
err15 = float((ratio / exact - 1)[keep].abs().max())
fig, axes = panel_grid(2, width=4.2, height=3.3)
xg = rc.angle_gap(torch.full_like(ph3, rc.PHI2), ph3).numpy()
axes[0].scatter(xg, ratio.numpy(), s=5, color=POS, label="measured ratio")
axes[0].scatter(xg, exact.numpy(), s=14, facecolor="none", edgecolor=THEORY, lw=0.5, label="$\\|w_2\\|\\tan(3\\pi/4-\\phi)$")
axes[0].set(ylim=(-0.3, 0.3), xlabel="$3\\pi/4-\\phi_\\alpha$", ylabel="$\\partial_\\phi L\\,/\\,\\partial_{\\|w_2\\|}L$",
            title="Figure 3 — ratio at $t=0$ (1000 neurons)")
axes[0].legend(fontsize="small")
xs = np.linspace(-np.pi, np.pi, 400)
axes[1].scatter(xg, (ratio / p3.norms_out()).numpy(), s=5, color=POS)
tan_xs = np.tan(xs)
axes[1].plot(xs, np.where(np.abs(tan_xs) < 12, tan_xs, np.nan), color=THEORY, lw=1)
axes[1].set(ylim=(-10, 10), xlabel="$3\\pi/4-\\phi_\\alpha$", ylabel="ratio $/\\,\\|w_2\\|$", title="divided by $\\|w_2\\|$: $\\tan$")
label_panels(axes)
glue("race-fig3", fig)
print(f"eq. 15: max relative error {err15:.2e} over {int(keep.sum())} neurons")

# %%
p_id = rc.race_init(50, 2, 0.5, generator(seed + 2), dtype=F64)
p_id.b1 = 0.2 * torch.randn(50, generator=generator(seed + 3), dtype=F64)
err_xor = rc.identity_error(p_id, X_x, y_x)
ledger.add("eqs4-8.identities", "eqs. 4–8, 66 (App. B)", "The per-neuron gradients in norms and angles are the "
           "Cartesian gradient of the mean loss (⟨·⟩ = (1/N)Σ g^s ·, vector angle δ).",
           measured=f"max relative error vs autograd (float64): XOR net with biases {err_xor:.1e}; CIFAR setting 1 "
                    "snapshot: see below", tolerance="≤ 1e-10", passed=err_xor <= 1e-10, expected="reproduced")
ledger.add("eq15.ratio", "eq. 15, Prop. 4.5, Fig. 3", "∂L/∂φ ÷ ∂L/∂‖w2‖ ∝ tan(φ_Δy − φ).",
           measured=f"ratio = ‖w2‖ tan(3π/4 − φ) exactly: max relative error {err15:.1e} over {int(keep.sum())} of 1000 "
                    "neurons (|cos(3π/4 − φ)| > 0.05)", tolerance="≤ 1e-10", passed=err15 <= 1e-10, expected="reproduced")

# %% [markdown]
# ## The XOR-like toy: four subsystems at four speeds (Figures 9, 2)
# Four Gaussian clusters, two per class, with centroid norms 4, 3, 1, 2 (Figure 9). By eq. 19 a
# group of neurons grows at a rate $\propto\|\langle\gamma\rangle\|$, which scales with the norm of the
# cluster it serves, so the paper expects one loss drop per cluster, in the order of the norms, and
# neurons that align (top row: incoming directions, bottom row: outgoing directions) before their drop.
# Colours: the data cluster nearest to each neuron's *final* incoming direction. Besides the drops of
# the total loss (peaks of its decrease rate), we time each cluster separately: $t_k$ is the step at
# which the mean loss on cluster $k$ falls below half of $\ln 2$.

# %%
p2 = rc.race_init(XOR_W, 2, 1e-6, generator(seed + 4))
X32 = X_x.float()
xor = train(p2, X32, y_x, loss=CE, lr=LR, momentum=MOM, steps=XOR_STEPS, record=linear_schedule(XOR_STEPS, 25),
            seed=seed)
Lx = xor.loss.numpy()
dr_x = drops(xor.steps, Lx, rel=0.05)
Lk = torch.stack([CE(forward(xor.params, X32[cl_x == k]), y_x[cl_x == k]) for k in range(4)], -1)   # (T, 4)
t_half = [int(xor.steps[int(np.argmax((Lk[:, k] < 0.5 * math.log(2)).numpy()))]) if (Lk[:, k] < 0.5 * math.log(2)).any()
          else -1 for k in range(4)]
norm_of = [4, 3, 1, 2]
by_norm = [t_half[k] for k in np.argsort([-n for n in norm_of])]                   # norms 4, 3, 2, 1
order_ok = min(by_norm) >= 0 and all(b - a >= 150 for a, b in zip(by_norm, by_norm[1:]))
fin_x = xor.final
a_x = rc.total_norm(fin_x)
cen_ang = torch.tensor([45.0, 135.0, 225.0, 315.0]).deg2rad()
cen_dir = torch.stack([cen_ang.cos(), cen_ang.sin()], -1)
grp = rc.cosine(fin_x.W1.unsqueeze(-2), cen_dir).argmax(-1)                        # nearest centroid, (m,)
CL_COL = ["#56b4e9", "#e69f00", "#d1495b", "#009e73"]   # cluster 0..3: norms 4, 3, 1, 2
print("drops at steps", [int(xor.steps[i]) for i in dr_x], "| cluster loss halves at (norms 4, 3, 2, 1)", by_norm,
      "| neurons per final cluster:",
      [int((grp == k).sum()) for k in range(4)], "| final loss", f"{Lx[-1]:.4f}")

# %%
fig, ax = plt.subplots(figsize=(3.6, 3.6), constrained_layout=True)
for k in range(4):
    sel = cl_x == k
    ax.scatter(X_x[sel, 0], X_x[sel, 1], s=8, color=POS if y_x[sel][0] == 0 else NEG,
               marker="o" if y_x[sel][0] == 0 else "s")
    ax.text(*(X_x[sel].mean(0) * 1.15).tolist(), f"‖c‖={[4, 3, 1, 2][k]}", fontsize="small")
ax.set(aspect="equal", title="Figure 9 — XOR-like toy data", xlabel="$x_1$", ylabel="$x_2$")
glue("race-fig9", fig)

t_drop = [int(xor.steps[i]) for i in dr_x]
snap_x = sorted(set([0, (t_drop[0] if t_drop else XOR_STEPS) // 2] + t_drop + [XOR_STEPS]))[:7]
fig = plt.figure(figsize=(2.3 * len(snap_x), 7.0), constrained_layout=True)
gs = fig.add_gridspec(3, len(snap_x))
axL = fig.add_subplot(gs[0, :])
axL.plot(xor.steps, Lx, color="k", label="total")
for k in np.argsort([-n for n in norm_of]):
    axL.plot(xor.steps, Lk[:, k].numpy(), color=CL_COL[k], lw=0.9, ls="--", label=f"cluster of norm {norm_of[k]}")
axL.legend(fontsize="small", ncol=5)
for i in dr_x:
    axL.axvline(xor.steps[i], color=THEORY, ls=":", lw=1)
axL.set(xlabel="step $t$ (full batch)", ylabel="loss", title=f"(a) Figure 2 — training loss: {len(dr_x)} drops")
for j, s in enumerate(snap_x):
    P = xor.at(xor.index_of_step(s))
    for row, vec in ((1, P.W1), (2, P.outgoing())):
        ax = fig.add_subplot(gs[row, j])
        u = vec / vec.norm(dim=-1, keepdim=True)
        for k in range(4):
            sel = grp == k
            ax.plot(np.stack([np.zeros(int(sel.sum())), u[sel, 0].numpy()]), np.stack([np.zeros(int(sel.sum())), u[sel, 1].numpy()]),
                    color=CL_COL[k], lw=0.7, alpha=0.8)
        ax.set(aspect="equal", xlim=(-1.1, 1.1), ylim=(-1.1, 1.1), xticks=[], yticks=[])
        if row == 1:
            ax.set_title(f"$t$ = {s}", fontsize="small")
        if j == 0:
            ax.set_ylabel("(b) incoming $w_1$" if row == 1 else "(c) outgoing $w_2$")
glue("race-fig2", fig)

# %%
ledger.add("fig2.four-drops", "Fig. 2a", "With four centroid norms the loss shows four drops.",
           measured=f"{len(dr_x)} drops (peaks of −d log L/dt above 5 % of the largest, separated by a dip below half) at "
                    f"steps {[int(xor.steps[i]) for i in dr_x]}; loss {Lx[0]:.3f} → {Lx[-1]:.4f}",
           tolerance="exactly 4 drops", passed=len(dr_x) == 4, expected="not reproduced")
ledger.add("fig2.speeds", "Fig. 2b, §4.6", "The four subsystems learn at four speeds, fastest for the largest centroid norm.",
           measured=f"step at which each cluster's loss halves, for centroid norms 4, 3, 2, 1: {by_norm}; "
                    f"neurons per final direction (clusters of norm 4, 3, 1, 2) {[int((grp == k).sum()) for k in range(4)]}",
           tolerance="all four clusters fitted, in decreasing order of norm, at least 150 steps apart",
           passed=bool(order_ok), expected="reproduced")


# %% [markdown]
# **What we see.** The clusters are fitted one after the other in the order of their centroid norms
# (dashed lines), each group of neurons having aligned (top row) before its cluster's loss falls, and
# the outgoing vectors end exactly on $7\pi/4$ or $3\pi/4$ (bottom row): four subsystems at four speeds.
# While the large clusters are fitted, the losses of the clusters of norms 2 and 1 first *rise* (the
# output bias and the winning groups push every point towards the classes already fitted), and the
# last group turns away from its centroid and back before it wins its own race.
# In the *total* loss, however, the fits of the clusters of norms 4 and 3, and of 2 and 1, overlap: its
# decrease rate has two separate peaks, not four, so by the criterion fixed in advance the "four drops"
# of Fig. 2a are not reproduced with this layout (the paper does not give its own).

# %% [markdown]
# ## Initialisation scale: rich to lazy (Figure 4)
# The same toy, 200 neurons, four init stds, the same optimiser. Alignment score: the $a$-weighted
# mean over neurons of $\max_k\cos(w^{(1)}_\alpha,u_k)$, where $u_k$ are the four final incoming
# directions of the smallest-std run (the direction of its largest-$a$ neuron in each cluster).

# %%
STD4 = [1e-4, 1e-2, 1e-1, 1.0]
p4 = rc.race_init(XOR_W, 2, torch.tensor(STD4), generator(seed + 5), runs=(4,))
rec4 = sorted(set([0, XOR_STEPS // 8, XOR_STEPS // 4, XOR_STEPS // 2, XOR_STEPS]))
xor4 = train(p4, X32, y_x, loss=CE, lr=LR, momentum=MOM, steps=XOR_STEPS, record=rec4, seed=seed)
f4 = xor4.final
a4 = rc.total_norm(f4)
g4 = rc.cosine(f4.W1[0].unsqueeze(-2), cen_dir).argmax(-1)
U = torch.stack([f4.W1[0][torch.where(g4 == k, a4[0], torch.zeros_like(a4[0])).argmax()] for k in range(4)])
score4 = rc.alignment_score(f4.W1, a4, U)
fig, axes = panel_grid(4, nrows=2, width=2.4, height=2.4)
for r, s in enumerate(STD4):
    for row, i in enumerate([1, len(xor4) - 1]):
        ax = axes[4 * row + r]
        P = xor4.at(i)
        w = P.W1[r] / P.W1[r].norm(dim=-1, keepdim=True)
        gk = rc.cosine(P.W1[r].unsqueeze(-2), U).argmax(-1)
        for k in range(4):
            sel = gk == k
            ax.plot(np.stack([np.zeros(int(sel.sum())), w[sel, 0].numpy()]), np.stack([np.zeros(int(sel.sum())), w[sel, 1].numpy()]),
                    color=CL_COL[k], lw=0.6, alpha=0.7)
        ax.set(aspect="equal", xlim=(-1.1, 1.1), ylim=(-1.1, 1.1), xticks=[], yticks=[],
               title=f"std {s:g}, $t$={xor4.steps[i]}" + (f"\nscore {score4[r]:.3f}" if row else ""))
fig.suptitle("Figure 4 — incoming directions for four init scales (colour: nearest target $u_k$)")
glue("race-fig4", fig)
mono4 = bool((score4[1:] <= score4[:-1]).all())
ledger.add("fig4.lazy", "Fig. 4, §5", "A larger init scale reduces the alignment of the incoming vectors (rich → lazy).",
           measured=f"alignment score at std {STD4}: {[round(float(s), 4) for s in score4]}",
           tolerance="score non-increasing in the std, and the largest std below the smallest by ≥ 0.05",
           passed=bool(mono4 and score4[-1] <= score4[0] - 0.05), expected="reproduced")


# %% [markdown]
# From std $10^{-4}$ to $10^{-2}$ the incoming vectors collapse onto the four targets; at std 1 they
# barely move from their random initial directions (lazy regime).

# %% [markdown]
# ## The three CIFAR-10 settings
# One batched run per setting: 5 seeds, each with its own image subset (`cifar_race(n, seed + r)`)
# and initialisation; all weights $\mathcal N(0,\text{std}^2)$, biases 0; 250 neurons; 8000 SGD steps.

# %%
def run_setting(k):
    s = SETTINGS[k]
    data = [cifar_race(s["n_per"], seed + r) for r in range(N_SEEDS)]
    X, y = torch.stack([d[0] for d in data]), torch.stack([d[1] for d in data])
    p0 = rc.race_init(250, 1024, s["std"], generator(seed + 100 * k), runs=(N_SEEDS,))
    rec = np.union1d(log_schedule(STEPS, 40), SNAP_T)
    tr = train(p0, X, y, loss=CE, lr=LR, momentum=MOM, batch_size=s["bs"], steps=STEPS, record=rec, seed=seed + k,
               check_every=1000)
    return X, y, tr


runs, stats = {}, {}
for k in SETTINGS:
    t0 = time.time()
    runs[k] = run_setting(k)
    stats[k] = rc.snapshot_stats(runs[k][2], runs[k][0], runs[k][1], SNAP_T)
    print(f"setting {k}: N = {runs[k][0].shape[1]}, trained in {time.time() - t0:.0f} s; final loss "
          f"{[round(v, 4) for v in runs[k][2].loss[-1].tolist()]}")
i500 = SNAP_T.index(500)

# %% [markdown]
# ### Setting 1 (Figure 1)
# (a) the loss of every seed, on the full training set at the recorded (log-spaced) steps: a plateau at
# $\ln2$, then the drop; SGD with batch 4 and momentum 0.9 gives occasional spikes later on. (b) cosine-similarity matrices of
# the total parameter vectors $\theta_\alpha$, each reordered by average-linkage clustering. (c) the
# paper's 2×2 grid: current (left) and final (right) $a_\alpha$ against $\cos\delta_\alpha$ at $t=0$ (top) and
# $t=500$ (bottom), darker = larger final $a_\alpha$.

# %%
def draw_cos(ax, tr, s, title):
    C = cosine_similarity_matrix(rc.theta(tr.at(tr.index_of_step(s)))[0].double()).numpy()
    o = rc.cluster_order(C)
    ax.imshow(C[np.ix_(o, o)], cmap="RdBu_r", vmin=-1, vmax=1, interpolation="nearest")
    ax.set(xticks=[], yticks=[], title=title)
    ax.grid(False)


def scatter_cd_a(ax, cd, a, af, title):
    o = np.argsort(af)
    ax.scatter(cd[o], a[o], c=np.log10(af[o]), cmap="Blues", s=9, edgecolor="0.6", linewidth=0.2)
    ax.set(yscale="log", xlabel="$\\cos\\delta_\\alpha$", title=title)


X1, y1, tr1 = runs[1]
S1 = stats[1]
t_cm = [s for s in SNAP_T if s in (0, 500, 1000, 2000, STEPS)]
fig = plt.figure(figsize=(12, 12.5), constrained_layout=True)
gs = fig.add_gridspec(3, 1, height_ratios=[0.9, 0.8, 2.0])
ax = fig.add_subplot(gs[0])
for r in range(N_SEEDS):
    ax.plot(tr1.steps, tr1.loss[:, r].numpy(), color=POS if r == 0 else "0.7", lw=1.6 if r == 0 else 0.8,
            marker="." if r == 0 else None, ms=4)
ax.axvline(500, color=THEORY, ls=":")
ax.set(xlabel="step $t$", ylabel="training loss (full set)",
       title="(a) Figure 1 — setting 1: loss at the recorded steps (blue: the seed shown, grey: the other seeds)")
g1 = gs[1].subgridspec(1, len(t_cm))
for i, s in enumerate(t_cm):
    draw_cos(fig.add_subplot(g1[i]), tr1, s, ("(b) cosine similarity of $\\theta_\\alpha$, " if i == 0 else "") + f"$t$ = {s}")
g2 = gs[2].subgridspec(2, 2)
for row, s in enumerate([0, 500]):
    j = SNAP_T.index(s)
    cd, a, af = S1["cd"][j, 0].numpy(), S1["a"][j, 0].numpy(), S1["a_final"][0].numpy()
    scatter_cd_a(fig.add_subplot(g2[row, 0]), cd, a, af, ("(c) " if row == 0 else "") + f"current $a_\\alpha$ at $t$ = {s}")
    scatter_cd_a(fig.add_subplot(g2[row, 1]), cd, af, af, f"final $a_\\alpha$ vs $\\cos\\delta_\\alpha$ at $t$ = {s}")
glue("race-fig1", fig)

# %% [markdown]
# **Merging (§5).** At the end of setting 1 the paper merges every group of neurons with cosine
# $\ge0.999$ and finds 150 effective neurons out of 250, with the loss up by only 0.1 %. We merge the
# final float64 network of each seed (exact for parallel $\theta$: checked by splitting a neuron and
# merging it back) and report the groups and the relative change of the full training loss, at
# 0.999 and, for context, 0.99 and 0.9999. The tolerance was fixed before the runs: 150 ± 30 groups
# *and* a loss increase ≤ 0.3 % (three times the paper's) in ≥ 4 of 5 seeds; *partial* if only the
# group count is met.

# %%
def merge_table(k):
    X, y, tr = runs[k]
    return pd.DataFrame([row for r in range(N_SEEDS)
                         for row in rc.merge_rows(tr.final.map(lambda t: t[r]).to(F64), X[r].double(), y[r], CE, setting=k, seed=seed + r)])


fin0 = tr1.final.map(lambda t: t[0]).to(F64)
split = rc.split_neuron(fin0, int(rc.total_norm(fin0).argmax()), 0.6)
back, n_back = rc.merge(split, 0.999)
exact_merge = float((forward(split, X1[0].double()) - forward(fin0, X1[0].double())).abs().max())
merges = pd.concat([merge_table(k) for k in SETTINGS], ignore_index=True)
m999 = merges[merges.threshold == 0.999]
mt1 = m999[m999.setting == 1]
ok1 = ((mt1.groups - 150).abs() <= 30) & (mt1.rel_loss_change <= 3e-3)
okg = (mt1.groups - 150).abs() <= 30
v_merge = "reproduced" if ok1.mean() >= 0.8 else ("partial" if okg.mean() >= 0.8 else "not reproduced")
ledger.add("merge.setting1", "§5 (Small initialization)", "At the end of setting 1, merging neurons with cosine ≥ 0.999 "
           "leaves about 150 of 250 effective neurons, with a loss increase of about 0.1 %.",
           measured=f"groups per seed {mt1.groups.tolist()}, relative loss change "
                    f"{[f'{v:+.2%}' for v in mt1.rel_loss_change]}; splitting + re-merging a neuron changes the "
                    f"outputs by {exact_merge:.1e}",
           tolerance="per seed: 150 ± 30 groups and ΔL/L ≤ 0.3 %; reproduced if ≥ 4/5 seeds pass, partial if only the "
                     "group count passes in ≥ 4/5", passed=v_merge, expected="reproduced")
not_free = []
for k in (2, 3):
    mk = m999[m999.setting == k]
    ok = (mk.groups >= 225) | (mk.rel_loss_change >= 0.01)
    not_free.append(ok.mean())
    ledger.add(f"merge.setting{k}", "§5 (Normal initialization / Larger dataset)", f"In setting {k} neurons cannot be "
               "merged without affecting the loss.",
               measured=f"groups at 0.999 per seed {mk.groups.tolist()}, ΔL/L {[f'{v:+.2%}' for v in mk.rel_loss_change]}",
               tolerance="per seed: merging removes < 10 % of the neurons (≥ 225 groups) or raises the loss by ≥ 1 %; "
                         "reproduced if ≥ 4/5 seeds", passed=bool(ok.mean() >= 0.8), expected="reproduced")
merges.pivot_table(index=["setting", "threshold"], values=["groups", "rel_loss_change"], aggfunc=["mean", "min", "max"])


# %% [markdown]
# **What we see.** Merging at 0.999 leaves about the paper's 150 neurons in every seed. The loss
# changes by a few tenths of a percent, in either direction: the members of a group are parallel only
# to 0.999, and the merged neuron takes its leader's direction. The tolerance (fixed before the runs)
# bounds the *increase* by 0.3 %; the size of the change, |ΔL|/L, exceeds the paper's 0.1 % in most
# seeds. "Final" is step 8000, where the loss is still 0.04–0.13. In settings 2 and 3 no two neurons
# reach cosine 0.999 at all, so nothing can be merged (the claim holds in the strongest sense).

# %% [markdown]
# **The init scale decides the merging.** Our choice of std $10^{-4}$ for setting 1 (see the table of
# choices) matters: here the seed-0 subset is trained the same way from std $3\cdot10^{-3}$ and
# $10^{-3}$ (the other two calibration candidates) and merged the same way.

# %%
STD_CAL = [3e-3, 1e-3]
cal = train(rc.race_init(250, 1024, torch.tensor(STD_CAL), generator(seed + 100), runs=(2,)), X1[0], y1[0], loss=CE,
            lr=LR, momentum=MOM, batch_size=4, steps=STEPS, record=[0, 500, STEPS], seed=seed + 1, check_every=1000)
cal_rows = [dict(std=sd, loss_t500=float(cal.loss[1, r]), **row) for r, sd in enumerate(STD_CAL)
            for row in rc.merge_rows(cal.final.map(lambda t: t[r]).to(F64), X1[0].double(), y1[0], CE)]
cal_rows += [dict(std=SETTINGS[1]["std"], loss_t500=float(tr1.loss[tr1.index_of_step(500), 0]), **row)
             for row in rc.merge_rows(fin0, X1[0].double(), y1[0], CE)]
pd.DataFrame(cal_rows).pivot_table(index=["std", "loss_t500"], columns="threshold", values=["groups", "rel_loss_change"])


# %% [markdown]
# From the larger init scales essentially nothing merges at 0.999: the unaligned part of $w^{(1)}$
# (norm $\approx32\,$std at init) is too large relative to the aligned growth reached in 8000 steps. The
# paper's 150 of 250 therefore fixes its "low scale" to about $10^{-4}$ at this run length.

# %% [markdown]
# **Racing: early $\cos\delta$ predicts the final norm.** Spearman's $\rho$ between $\cos\delta_\alpha(t)$ and
# the final $a_\alpha$, and the overlap of the top 10 % by each, at $t=0$ and $t=500$, per seed. The spec's
# thresholds, fixed before the runs: setting 1 $\rho(0)>0.3$, $\rho(500)>0.8$, $\rho(500)\ge\rho(0)$;
# settings 2 and 3 $\rho>0.21$ (one-sided $p<10^{-3}$ for 250 neurons) at both times; "more sharply in
# setting 1": the mean $\rho(500)$ of setting 1 above those of settings 2 and 3.

# %%
pred_rows = []
for k in SETTINGS:
    S = stats[k]
    for j in (0, i500):
        rho = rc.spearman(S["cd"][j].double(), S["a_final"].double())
        ov = rc.top_overlap(S["cd"][j], S["a_final"])
        rho_abs = rc.spearman(S["cd"][j].double().abs(), S["a_final"].double())
        for r in range(N_SEEDS):
            pred_rows.append(dict(setting=k, t=SNAP_T[j], seed=seed + r, rho=float(rho[r]), top10_overlap=float(ov[r]),
                                  rho_abs=float(rho_abs[r])))
pred = pd.DataFrame(pred_rows)
rho_of = {(k, t): pred[(pred.setting == k) & (pred.t == t)].rho.values for k in SETTINGS for t in (0, 500)}
ok_t0 = rho_of[1, 0] > 0.3
ok_t500 = (rho_of[1, 500] > 0.8) & (rho_of[1, 500] >= rho_of[1, 0])
rho_abs0 = pred[(pred.setting == 1) & (pred.t == 0)].rho_abs.values
ledger.add("predict.setting1.t0", "Fig. 1c (upper row), §4.6", "In setting 1, cos δ at t = 0 already predicts to a large "
           "degree which neurons end with the largest norm.",
           measured=f"ρ(cos δ(0), final a) = {rl(rho_of[1, 0], 2)}; with |cos δ(0)|: {rl(rho_abs0, 2)}; "
                    f"top-10 % overlap {pred[(pred.setting == 1) & (pred.t == 0)].top10_overlap.round(2).tolist()}",
           tolerance="ρ(0) > 0.3 (spec) in ≥ 4/5 seeds (a partial tier for 2–3 seeds was added after a first run "
                     "and removed: tolerances are fixed before the run)",
           passed=bool(ok_t0.mean() >= 0.8), expected="not reproduced")
ledger.add("predict.setting1.t500", "Fig. 1c (lower row), §4.6", "In setting 1, cos δ at t = 500 (before the drop) "
           "predicts the final norm very well.",
           measured=f"ρ(500) = {rl(rho_of[1, 500], 2)}; top-10 % overlap at 500: "
                    f"{pred[(pred.setting == 1) & (pred.t == 500)].top10_overlap.round(2).tolist()}",
           tolerance="per seed ρ(500) > 0.8 and ρ(500) ≥ ρ(0); reproduced if ≥ 4/5 seeds",
           passed=bool(ok_t500.mean() >= 0.8), expected="reproduced")
for k in (2, 3):
    okk = (rho_of[k, 0] > 0.21) & (rho_of[k, 500] > 0.21)
    ledger.add(f"predict.setting{k}", "Figs. 7–8, §5", f"In setting {k} the early cos δ still correlates with the final norm.",
               measured=f"ρ(0) = {rl(rho_of[k, 0], 2)}, ρ(500) = {rl(rho_of[k, 500], 2)}",
               tolerance="ρ > 0.21 (p < 1e-3) at t = 0 and 500; reproduced if ≥ 4/5 seeds", passed=bool(okk.mean() >= 0.8),
               expected="reproduced")
sharp = {k: float(np.mean(rho_of[k, 500])) for k in SETTINGS}
ledger.add("predict.sharper", "§5", "The prediction is sharper in setting 1 than in settings 2 and 3.",
           measured="mean ρ(500): " + ", ".join(f"setting {k}: {v:.3f}" for k, v in sharp.items()),
           tolerance="setting 1 above both", passed=bool(sharp[1] > max(sharp[2], sharp[3])), expected="reproduced")
pred.groupby(["setting", "t"])[["rho", "rho_abs", "top10_overlap"]].agg(["mean", "min", "max"])


# %% [markdown]
# **What we see.** At $t=0$ the signed $\cos\delta_\alpha$ ranks the final norms only moderately: a neuron
# whose $w^{(1)}$ points away from its $\langle\gamma\rangle$ can still win, because its outgoing vector turns
# fast (eq. 15) and $\langle\gamma\rangle$ turns with it; $|\cos\delta(0)|$ ranks better (column `rho_abs`). By
# $t=500$, still on the plateau, the race is decided ($\rho\approx0.93$, most of the final top 10 %
# already in the top 10 %). With std 0.01 (settings 2, 3) the prediction is much weaker and varies
# from seed to seed.

# %% [markdown]
# **Exponential growth in $\cos\delta$ before the drop (Fig. 1c, lower left).** Eq. 19 says
# $\log a_\alpha\approx A+B\cos\delta_\alpha$ at a fixed early time. We fit it on the neurons with $\cos\delta$
# above the median, per seed, at $t=500$, and compare with the alternative of the spec (T9): if the
# gating were frozen, $a=\|w^{(1)}_\perp\|^2\cos\delta/\sin^2\delta$, i.e. $\log a$ linear in
# $\log(\cos\delta/\sin^2\delta)$. Tolerance fixed in advance: $R^2\ge0.8$ for eq. 19 in ≥ 4 of 5 seeds.

# %%
fits = pd.DataFrame([dict(seed=seed + r, **rc.growth_form_fits(S1["cd"][i500, r], S1["a"][i500, r]))
                     for r in range(N_SEEDS)])
ok_fit = fits.r2_exp >= 0.8
ledger.add("unlock.exp-fit", "eq. 19, Fig. 1c (lower left)", "Before the drop, a_α grows exponentially in cos δ_α.",
           measured=f"R² of log a = A + B cos δ at t = 500: {fits.r2_exp.round(3).tolist()} (slopes B "
                    f"{fits.slope_exp.round(1).tolist()}); the frozen-gating form log(cos δ/sin²δ): R² "
                    f"{fits.r2_frozen.round(3).tolist()}",
           tolerance="R² ≥ 0.8 in ≥ 4/5 seeds (the comparison with the alternative is reported, not graded)",
           passed=bool(ok_fit.mean() >= 0.8), expected="reproduced")
fits


# %% [markdown]
# Both forms fit; the frozen-gating form $\log(\cos\delta/\sin^2\delta)$ fits slightly better in every
# seed, as expected if the neurons' gating is nearly fixed on the plateau.

# %% [markdown]
# ### Two supergroups at two speeds (Figure 5)
# Neurons whose final $\phi_\alpha$ is nearer $3\pi/4$ (they push class 2) are drawn at $-\cos\delta_\alpha$, so
# that they fill the left half. The paper sees the $\phi^{2*}$ group evolve slightly more slowly. We
# measure each group's pace by the first (log-spaced) snapshot at which its summed $a$ reaches half
# its final value, the measure we fixed before the run. It does not separate the groups ($\Sigma a$ keeps
# growing to the end of training in both), so the claim is *not reproduced*; the time to ten times the
# initial $\Sigma a$, which we tried after that result, is reported in the ledger but not graded.

# %%
grp1 = (rc.angle_gap(S1["phi_final"], rc.PHI1).abs() < math.pi / 2)            # (R, m): final φ nearer 7π/4
t_show = [s for s in SNAP_T if s in (0, 250, 500, 1000, 2000)]
fig, axes = panel_grid(len(t_show), width=2.9, height=2.8)
for ax, s in zip(axes, t_show):
    j = SNAP_T.index(s)
    x = torch.where(grp1[0], S1["cd"][j, 0], -S1["cd"][j, 0]).numpy()
    scatter_cd_a(ax, x, S1["a"][j, 0].numpy(), S1["a_final"][0].numpy(), f"$t$ = {s}")
    ax.axvline(0, color="0.5", lw=0.6)
    ax.set_xlabel("$\\pm\\cos\\delta_\\alpha$ (left: $\\phi^{2*}$ group)")
fig.suptitle("Figure 5 — setting 1: the two supergroups")
glue("race-fig5", fig)
aT = rc.total_norm(tr1.params)                                                  # (T, R, m)
tot_g = [(aT * mask).sum(-1) for mask in (grp1, ~grp1)]                        # per group (T, R)
t10 = np.stack([rc.first_step_reaching(tr1.steps, tot, 10 * tot[0]) for tot in tot_g])
thalf = np.stack([rc.first_step_reaching(tr1.steps, tot, 0.5 * tot[-1]) for tot in tot_g])
slower = thalf[1] > thalf[0]
ledger.add("fig5.two-speeds", "Fig. 5, §5", "The φ²* (class 2) supergroup evolves at a slightly slower pace than the φ¹* one.",
           measured=f"first snapshot at which each group's Σa reaches half its final value: φ¹* {thalf[0].tolist()}, "
                    f"φ²* {thalf[1].tolist()}; (not graded, chosen after that result: 10× its initial value: "
                    f"φ¹* {t10[0].tolist()}, φ²* {t10[1].tolist()}); group sizes φ¹* {grp1.sum(-1).tolist()}",
           tolerance="φ²* reaches half its final Σa strictly later in ≥ 4/5 seeds (the measure fixed before the run)",
           passed=bool(slower.mean() >= 0.8), expected="not reproduced")


# %% [markdown]
# By the time to ten times the initial $\Sigma a$, the $\phi^{2*}$ group (neurons that push class 2,
# automobile + bird) starts growing later than the $\phi^{1*}$ group in the seeds listed in the ledger, and
# fewer of its neurons win. But that measure was chosen after the one we had fixed (half the final
# $\Sigma a$) failed to separate the groups, so the ledger publishes the claim as *not reproduced*: the
# difference in pace the paper sees is there in the early growth, not in a pre-registered test.

# %% [markdown]
# ### Alignment theorems on the CIFAR runs
# **Theorem 4.1.** Every $\Delta y^s$ is parallel to $(1,-1)$, so the gradient of $w^{(2)}_\alpha$ is too:
# the component $w^{(2)}_\alpha\cdot(1,1)$ never moves (under SGD and momentum as well), and $\phi_\alpha$
# reaches $7\pi/4$ or $3\pi/4$ only as $\|w^{(2)}_\alpha\|$ outgrows that frozen component. Which of the two
# is set by the sign of $w^{(1)}_\alpha\cdot(\xi_1-\xi_2)$ (eqs. 10–12). We check, at the end of setting 1:
# the $a$-weighted share of neurons within 1° of a target, and, among those, the agreement of the
# target with the theorem's rule evaluated at the end. **Props. 4.2–4.3.** While
# $\|\Delta y\|\approx\sqrt2/2$, $\langle\gamma_\alpha\rangle\propto\cos(7\pi/4-\phi_\alpha)\,m^1_\alpha$, so
# $|\cos\angle(\langle\gamma_\alpha\rangle,m^1_\alpha)|\approx1$ for every neuron, whatever its $\phi_\alpha$.
#
# The theorem is a statement at fixed gating and, through $\xi_c$, at the current errors. We evaluate its
# rule on the plateau ($t=500$), where both are nearly frozen, and compare with the final target. At the
# end of training the rule no longer describes the settled neurons: there $\|\Delta y^s\|$ is small and
# uneven, many neurons are being pushed back (their $(1,-1)$ component shrinks, the only way $\phi$ can
# move), and the end-time rule agrees for only about half of them. The ledger grades the claim with the
# end-time rule, the test we fixed before running it, so it is *not reproduced*; the plateau-time agreement,
# which we looked at only after that result, is reported next to it in the same row.

# %%
fin1 = tr1.final.to(F64)
af1 = rc.total_norm(fin1)
ph_fin = rc.phi(fin1)
near = rc.target_gap(ph_fin) < math.radians(1)
share_near = ((af1 * near).sum(-1) / af1.sum(-1)).numpy()
agree = {s: rc.rule_agreement(tr1.at(tr1.index_of_step(s)).to(F64), fin1, X1.double(), y1, tol=math.radians(1))
         for s in (0, 500, STEPS)}
w2sum = tr1.params.W2.sum(-2)                                                       # (T, R, m)
drift11 = float((w2sum - w2sum[0]).abs().max() / tr1.params.W2.abs().amax())
ledger.add("thm4.1.targets", "Thm. 4.1, Fig. 2b", "Outgoing directions converge to 7π/4 or 3π/4, the one given by "
           "sign w1·(ξ1 − ξ2) while the gating is (nearly) fixed.",
           measured=f"setting 1, end: a-weighted share within 1° of a target {rl(share_near, 3)} "
                    f"(by count {rl(near.double().mean(-1).numpy(), 2)}); the rule at t = 500 gives the final "
                    f"target for {rl(agree[500][0], 3)} of them (a-weighted {rl(agree[500][1], 3)}); "
                    f"at t = 0: {rl(agree[0][0], 2)}; at the end: {rl(agree[STEPS][0], 2)}; "
                    f"w2·(1,1) moved by {drift11:.1e} of max|W2| (float32)",
           tolerance="every seed: a-weighted share ≥ 0.9; the rule evaluated at the end agrees for ≥ 95 % by count and "
                     "≥ 99 % a-weighted (the rule set before the run; the t = 500 numbers are reported, not graded)",
           passed=bool((share_near >= 0.9).all() and (agree[STEPS][0] >= 0.95).all() and (agree[STEPS][1] >= 0.99).all()),
           expected="not reproduced")

P_early = tr1.params.map(lambda t: t[[tr1.index_of_step(0), tr1.index_of_step(500)]]).to(F64)
cgm = rc.cosine(rc.gamma(P_early, X1.double(), y1), rc.target_m1(P_early, X1.double(), y1)).abs()   # (2, R, m)
live = rc.gating(P_early, X1.double()).sum(-1) > 0                                  # N^e ≥ 1
ledger.add("prop4.2-4.3.gamma-m", "Props. 4.2–4.3", "Early in training the target ⟨γ_α⟩ of every incoming vector is "
           "parallel to m¹_α (or m² = −m¹).",
           measured=f"setting 1, neurons with a non-empty effective set ({int((~live[0]).sum())} of {N_SEEDS} × 250 have "
                    f"none at t = 0): min |cos(⟨γ⟩, m¹)| = {cgm[0][live[0]].min():.6f} at t = 0, "
                    f"{cgm[1][live[1]].min():.4f} at t = 500 (median {cgm[1][live[1]].median():.4f})",
           tolerance="≥ 0.9999 at t = 0 (spec T5a)", passed=bool(cgm[0][live[0]].min() >= 0.9999), expected="reproduced")

p500 = tr1.at(tr1.index_of_step(500)).map(lambda t: t[0]).to(F64)
err_cifar = rc.identity_error(p500, X1[0].double(), y1[0])
ledger.add("eqs4-8.cifar", "eqs. 4–8, 66", "The same identities on a real network (CIFAR setting 1, t = 500, 1024 inputs).",
           measured=f"max relative error vs autograd (float64): {err_cifar:.1e}", tolerance="≤ 1e-10",
           passed=err_cifar <= 1e-10, expected="reproduced")

# %% [markdown]
# **Appendix G.** For a neuron with $\phi_\alpha=7\pi/4$, $\partial\langle\|\Delta y\|\rangle_\alpha/\partial a_\alpha=\frac12\|m^1\|\cos(\pi+\Delta)$
# (average over the effective set, $m^1$ normalised by $N^e$), negative when $w^{(1)}_\alpha$ is close to $m^1$.
# We take 20 neurons of the seed-0 network at $t=0$, turn their $w^{(2)}$ to $7\pi/4$ (norm kept) and their
# $w^{(1)}$ onto $m^1$ (norm kept), and finite-difference the effective mean error against $a_\alpha$.

# %%
p0g = tr1.at(0).map(lambda t: t[0]).to(F64)
m1g = rc.target_m1(p0g, X1[0].double(), y1[0])
fd_rows = []
for al_ in torch.nonzero(m1g.norm(dim=-1) > 0).flatten().tolist():
    q = p0g.clone()
    q.W2[:, al_] = q.W2[:, al_].norm() * torch.tensor([1.0, -1.0], dtype=F64) / math.sqrt(2)
    q.W1[al_] = q.W1[al_].norm() * m1g[al_] / m1g[al_].norm()
    if rc.gating(q, X1[0].double())[al_].sum() >= 10:
        fd_rows.append(rc.appendix_g(q, X1[0].double(), y1[0], al_))
    if len(fd_rows) == 20:
        break
fd = np.array(fd_rows)
relg = np.abs(fd[:, 0] / fd[:, 1] - 1)
ledger.add("appG.sign", "App. G, eq. 102", "Growing an aligned neuron lowers the mean error on its effective set: "
           "∂⟨‖Δy‖⟩/∂a = ½‖m¹‖cos(π + Δ) < 0.",
           measured=f"20 aligned neurons (t = 0, setting 1): finite differences all negative: {bool((fd[:, 0] < 0).all())}; "
                    f"max relative deviation from the formula {relg.max():.1e}",
           tolerance="sign negative for all; |relative deviation| ≤ 5 % (small-output regime)",
           passed=bool((fd[:, 0] < 0).all() and relg.max() <= 0.05), expected="reproduced")

# %% [markdown]
# ## Settings 2 and 3 (Figures 6, 7, 8)
# Setting 2: the same images, init std 0.01. Setting 3: 2000 images, batch 32, std 0.01.

# %%
fig, axes = panel_grid(len(t_cm), nrows=2, width=2.4, height=2.5)
for row, k in enumerate((2, 3)):
    for i, s in enumerate(t_cm):
        draw_cos(axes[row * len(t_cm) + i], runs[k][2], s, f"setting {k}, $t$ = {s}")
fig.suptitle("Figure 6 — cosine similarity of $\\theta_\\alpha$, clustered: (a) setting 2, (b) setting 3")
glue("race-fig6", fig)

t7 = [s for s in SNAP_T if s in (0, 500, 2000, STEPS)]
fig, axes = panel_grid(1 + len(t7), nrows=2, width=2.6, height=2.6)
for row, k in enumerate((2, 3)):
    X_, y_, tr_ = runs[k]
    S = stats[k]
    ax = axes[row * (1 + len(t7))]
    ax.plot(tr_.steps, tr_.loss[:, 0].numpy(), color="k")
    ax.set(xlabel="step $t$", ylabel="loss", title=f"({'ab'[row]}) setting {k}: loss")
    for i, s in enumerate(t7):
        j = SNAP_T.index(s)
        scatter_cd_a(axes[row * (1 + len(t7)) + 1 + i], S["cd"][j, 0].numpy(), S["a"][j, 0].numpy(),
                     S["a_final"][0].numpy(), f"$t$ = {s}")
fig.suptitle("Figure 7 — loss, and current $a_\\alpha$ against current $\\cos\\delta_\\alpha$ (darker: larger final $a$)")
glue("race-fig7", fig)

fig, axes = panel_grid(4, width=3.0, height=2.8)
for i, (k, s) in enumerate([(2, 0), (2, 500), (3, 0), (3, 500)]):
    S = stats[k]
    j = SNAP_T.index(s)
    scatter_cd_a(axes[i], S["cd"][j, 0].numpy(), S["a_final"][0].numpy(), S["a_final"][0].numpy(),
                 f"setting {k}: final $a$ vs $\\cos\\delta(t={s})$")
fig.suptitle("Figure 8 — early $\\cos\\delta_\\alpha$ against final $a_\\alpha$, settings 2 (left) and 3 (right)")
glue("race-fig8", fig)

# %% [markdown]
# Two more statements of §5, with thresholds fixed before the runs: in setting 2 "the initial plateau
# disappears" (we test: loss at $t=500$ already below 99 % of $\ln2$, while setting 1 is above it), and
# setting 3 aligns more strongly than setting 2 (we test: mean $|\cos|$ between the $\theta$ of the 25 neurons
# of largest final $a$, at the end, larger in setting 3).

# %%
L500 = {k: runs[k][2].loss[runs[k][2].index_of_step(500)].numpy() for k in SETTINGS}
no_plateau = (L500[2] < 0.99 * math.log(2)) & (L500[1] >= 0.99 * math.log(2))
ledger.add("plateau.setting2", "§5 (Normal initialization), Fig. 7a", "With std 0.01 the initial plateau of the loss disappears.",
           measured=f"loss at t = 500 / ln 2: setting 1 {rl(L500[1] / math.log(2), 3)}, setting 2 "
                    f"{rl(L500[2] / math.log(2), 3)}",
           tolerance="setting 2 below 0.99 and setting 1 at or above 0.99, in ≥ 4/5 seeds",
           passed=bool(no_plateau.mean() >= 0.8), expected="reproduced")


al23 = {k: rc.top_alignment(runs[k][2].final, n_top=25).numpy() for k in (2, 3)}
ledger.add("align.s3-vs-s2", "§5 (Larger dataset), Fig. 6", "Alignment is stronger in setting 3 than in setting 2.",
           measured=f"mean |cos θ| among the 25 largest neurons at the end: setting 2 {rl(al23[2], 3)}, "
                    f"setting 3 {rl(al23[3], 3)}",
           tolerance="setting 3 > setting 2 in ≥ 4/5 seeds", passed=bool((al23[3] > al23[2]).mean() >= 0.8),
           expected="not reproduced")


# %% [markdown]
# **What we see.** With std 0.01 the loss leaves $\ln2$ at once (no plateau), the norms still spread
# over two decades and the neurons still form two opposite blocks (Fig. 6), but no two reach cosine
# 0.999. Setting 3 is far from converged at step 8000 (loss ≈ 0.5; 128 epochs of batch 32): its "final"
# quantities are mid-training ones. There its large neurons are *less* mutually aligned than in setting
# 2, the opposite of the paper's statement; whether a much longer run would reverse this we cannot tell
# within this chapter's time budget.

# %% [markdown]
# **Winners starve losers.** The share of $\sum_\alpha a_\alpha$ held by the top 10 % of neurons at the end.
# The paper: the more complex the task, the more races, the less pronounced the differences — so
# the share should fall from setting 1 to 2 to 3 ("less sparsity"; setting 2's larger init also
# blurs the race).

# %%
share = {k: rc.top_share(stats[k]["a_final"].double()).numpy() for k in SETTINGS}
order_ok = (share[1] > share[2]) & (share[2] > share[3])
ledger.add("race.top-share", "§4.4, §4.6, §5", "Winners starve losers: the final norm concentrates on few neurons, "
           "more in setting 1 than in 2, more in 2 than in 3.",
           measured="top-10 % share of Σa: " + "; ".join(f"setting {k}: {rl(v, 3)}" for k, v in share.items()),
           tolerance="share(1) > share(2) > share(3) seed by seed (the seeds share image subsets in 1 and 2) in ≥ 4/5 seeds",
           passed=bool(order_ok.mean() >= 0.8), expected="reproduced")

# %% [markdown]
# ## Errata, checked
# **E8 — the conserved quantity needs the bias.** Under gradient flow
# $\frac{d}{dt}(\|w^{(2)}\|^2-\|w^{(1)}\|^2-b^2)=0$ exactly, while the paper's eq. 84 omits $b^2$. We run
# full-batch plain GD in float64 on the toy (50 neurons, init std 0.1 so that the biases grow,
# $\lambda=10^{-3}$) and track both versions relative to the largest $a$.
#
# **E11 — the growth rate misses a factor 2.** With $c\approx0$, eq. 91 gives
# $\dot a=2\lambda\|\langle\gamma\rangle\|\cos\delta\,a$, not eq. 18's $\lambda\|\langle\gamma\rangle\|\cos\delta\,a$. (i) exact: from
# snapshots of the toy run of Figure 2 (before the first drop), one plain GD step in float64 gives
# $\Delta a/\lambda$, which we divide by eq. 90 (should be 1) and by eq. 18 (should be 2) over the 20
# neurons of largest $a$; (ii) on CIFAR setting 1, the measured $d\log a/dt$ between $t=250$ and $t=500$
# of the 10 largest neurons against $\lambda_{\rm eff}$ times eq. 90 and eq. 18 divided by $a$ ($\lambda_{\rm eff}=0.01$,
# mean of both ends). On CIFAR the spec's first test (ratio to eq. 18 in [1.6, 2.4]) failed in 3 of 5
# seeds, for a reason the paper's own eq. 91 gives: the init is unbalanced ($\|w^{(1)}\|^2\approx1024\,\text{std}^2$
# vs $\|w^{(2)}\|^2\approx2\,\text{std}^2$, so $c\neq0$) and the exact factor $(\|w^{(1)}\|^2+\|w^{(2)}\|^2)/a$ is still 3–6 at
# $t\le500$; it tends to 2 only once $a\gg|c|$. The test we fixed before running it asks for both, so E11
# is *not reproduced* as a whole: the factor 2 is confirmed exactly in the balanced setting the paper's
# derivation assumes (the toy), while on CIFAR the paper's rate is off by more than a factor 2.

# %%
pc = rc.race_init(50, 2, 0.1, generator(seed + 6), dtype=F64)
n_c = 1000 if quick else 5000
trc = train(pc, X_x, y_x, loss=CE, lr=1e-3, steps=n_c, record=linear_schedule(n_c, 100), seed=seed)
c_ok, c_paper = rc.conserved(trc.params)
amax = rc.total_norm(trc.params).amax(-1, keepdim=True)
d_ok = float(((c_ok - c_ok[0]).abs() / amax).max())
d_paper = float(((c_paper - c_paper[0]).abs() / amax).max())
ledger.add("erratum.E8-conservation", "App. F, eq. 84 (spec E8)", "Erratum: ‖w2‖² − ‖w1‖² is conserved only with the "
           "bias term: ‖w2‖² − ‖w1‖² − b² = c.",
           measured=f"max drift / max a over {n_c} GD steps (float64): with b² {d_ok:.1e}, without (paper) {d_paper:.1e}; "
                    f"final max |b| {float(trc.final.b1.abs().max()):.2f}",
           tolerance="with b² ≤ 1e-3 (GD's O(λ) error) and the paper's version ≥ 10× larger",
           passed=bool(d_ok <= 1e-3 and d_paper >= 10 * d_ok), expected="reproduced")

i_pre = max(xor.index_of_step(int(xor.steps[dr_x[0]]) // 2) if dr_x else 1, 1)
pe = xor.at(i_pre).to(F64)
step1 = train(pe, X_x, y_x, loss=CE, lr=1e-7, steps=1, record=[0, 1], trainable=("W1", "W2", "b1"))
da = (rc.total_norm(step1.at(1)) - rc.total_norm(step1.at(0))) / 1e-7
gr = rc.growth_rates(pe, X_x, y_x)
top = torch.topk(rc.total_norm(pe), 20).indices
r90, r18 = (da / gr["eq90"])[top].median().item(), (da / gr["eq18"])[top].median().item()
P0, P1 = tr1.at(tr1.index_of_step(250)), tr1.at(tr1.index_of_step(500))
a0_, a1_ = rc.total_norm(P0), rc.total_norm(P1)
slope = (a1_.log() - a0_.log()) / 250                                              # measured d log a / dt
g0_, g1_ = rc.growth_rates(P0, X1, y1), rc.growth_rates(P1, X1, y1)
lam_eff = LR / (1 - MOM)
top1 = torch.topk(a1_, 10, -1).indices                                             # (R, 10)
c_r90 = rc.median_at(slope / (lam_eff * 0.5 * (g0_["eq90"] / a0_ + g1_["eq90"] / a1_)), top1).numpy()
c_r18 = rc.median_at(slope / (lam_eff * 0.5 * (g0_["eq18"] / a0_ + g1_["eq18"] / a1_)), top1).numpy()
c_fac = rc.median_at(0.5 * (g0_["eq90"] / g0_["eq18"] + g1_["eq90"] / g1_["eq18"]), top1).numpy()
ledger.add("erratum.E11-factor2", "eqs. 18–19, 92 (spec E11)", "Erratum: with c ≈ 0 the growth rate is "
           "a ~ exp(2λ‖γ‖cos δ t), twice the paper's eq. 19.",
           measured=f"toy, one GD step at t = {int(xor.steps[i_pre])}, top-20 neurons: Δa/λ ÷ eq. 90 = {r90:.4f}, ÷ eq. 18 = "
                    f"{r18:.3f}. CIFAR setting 1, t = 250→500, top-10 neurons per seed: d log a/dt ÷ (λ_eff × eq. 90 / a) = "
                    f"{rl(c_r90, 2)}, ÷ (λ_eff × eq. 18 / a) = {rl(c_r18, 2)}, where the exact factor "
                    f"(‖w1‖² + ‖w2‖²)/a = {rl(c_fac, 2)}",
           tolerance="toy: ÷ eq. 90 within 1 % of 1 and ÷ eq. 18 within 5 % of 2; CIFAR: ÷ eq. 18 in [1.6, 2.4] in ≥ 4/5 "
                     "seeds (the spec's test, fixed before the run)",
           passed=bool(abs(r90 - 1) <= 0.01 and abs(r18 - 2) <= 0.1 and ((c_r18 >= 1.6) & (c_r18 <= 2.4)).mean() >= 0.8),
           expected="not reproduced")

# %% [markdown]
# **E15 — setting 3 is not underparameterized by parameter count.** The network has
# $1024\cdot250+250+2\cdot250+2$ parameters against 2000 samples; the label holds only when counting
# hidden neurons (250 < 2000, against 250 ≥ 200 in settings 1–2). **E7** — at initialisation
# $\|\Delta y\|\approx\sqrt2/2$, not 0.5 (App. C.2). **E6** — App. C writes the fixed point as $7\pi/3$; it
# is $7\pi/4$: $\partial L/\partial\phi$ vanishes there and not at $7\pi/3$.

# %%
n_par = sum(t[0].numel() for t in tr1.at(0).tensors().values())
dy0 = rc.error_vectors(tr1.at(0), X1, y1).norm(dim=-1)
q6 = p0g.clone()
dphi_at = {}
for name, ang in (("7π/4", rc.PHI1), ("7π/3", 7 * math.pi / 3)):
    nrm = q6.W2.norm(dim=0)
    q6.W2 = torch.stack([nrm * math.cos(ang), nrm * math.sin(ang)])
    g6 = rc.polar_gradients(q6, X1[0].double(), y1[0])["dphi"]
    dphi_at[name] = float((g6.abs() / rc.polar_gradients(p0g, X1[0].double(), y1[0])["dphi"].abs().max()).max())
ledger.add("erratum.E15-params", "§5 setting 3 (spec E15)", "Erratum: setting 3 is called underparameterized "
           "('less parameters than samples'), but by parameter count it is not; the label holds only for hidden neurons.",
           measured=f"{n_par:,} parameters vs 2000 samples; 250 hidden neurons vs 2000 samples",
           tolerance="parameters > samples (the erratum holds) and hidden neurons < samples",
           passed=bool(n_par > 2000 and 250 < 2000), expected="reproduced")
ledger.add("erratum.E6-E7", "App. C (spec E6, E7)", "Errata: the stable angle is 7π/4 (not 7π/3) and ‖Δy‖ ≈ √2/2 "
           "(not 0.5) at initialisation.",
           measured=f"max |∂L/∂φ| with every φ set to 7π/4: {dphi_at['7π/4']:.1e}, to 7π/3: {dphi_at['7π/3']:.2f} "
                    f"(relative to init); ‖Δy‖ at t = 0: {float(dy0.min()):.5f}–{float(dy0.max()):.5f}",
           tolerance="∂L/∂φ at 7π/4 ≤ 1e-12 and at 7π/3 ≥ 0.01; ‖Δy‖ within 1e-3 of √2/2",
           passed=bool(dphi_at["7π/4"] <= 1e-12 and dphi_at["7π/3"] >= 0.01 and (dy0 - math.sqrt(0.5)).abs().max() <= 1e-3),
           expected="reproduced")

# %% [markdown]
# Other slips of the text (spec §0), stated rather than measured: the gating vector has one entry
# per *sample* (E2); Prop. 4.2 is about the *incoming* vector and $n$ is an integer (E4); the angular
# distance must be the vector angle beyond 2-D (E5, used throughout); eq. 86's sign (E9) and eq. 90's
# missing $\cos\delta$ (E10) do not affect eq. 88/91; both sums of eqs. 75–76 run over $\beta/\!/C_1$, so the
# printed $Q\equiv0$ (E12, App. E is qualitative); eq. 71 should use $w^{(2)}_{\beta,0}$ (E13); the text says
# std 0.01 is a *reduction* from setting 1's "low scale" init, which must be an increase (E14); eq. 98's
# $w_{\alpha'}$ is $w_\alpha$ (E16).

# %%
print(f"chapter run time so far: {time.time() - T_START:.0f} s")

# %% [markdown]
# ## Claims ledger
# Every checkable statement this chapter tests, with what we measured, the tolerance and the
# verdict. The build fails if a measured verdict differs from the expected one.

# %%
ledger.save(ledger_path)
print(ledger.summary())
ledger.check(strict=not quick and seed == 0)   # enforced for the book's own run
ledger.table()
