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
# :::{note} Running this chapter yourself
# `make rerun CHAPTER=race SEED=3` reruns it with another seed: {glue:text}`race-rerun-full` at full size
# on a 2-core machine, {glue:text}`race-rerun-quick` with `QUICK=1` (the last recorded timings). On Binder
# (the rocket icon above) the first start builds the environment of `binder/`, which takes several
# minutes; we have not timed it, since the machines that build this book cannot reach Binder. Binder's
# free machines are small, so expect at least the 2-core times there. Change `seed` in the cell
# tagged `parameters`, then run all cells.
# :::
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
# scale: width 250, 200/200/2000 images, batch 4/4/32, SGD with $\lambda=10^{-3}$ and momentum 0.9; 20 000 steps
# for every setting, with a declared convergence criterion)
# and on an XOR-like toy set; the gradient identities in float64 against autograd. Every claim is
# graded **seed by seed** over 5 seeds (different image subsets or toy draws, and initialisations,
# trained one after another), and its headline is the pass rate, e.g. "3/5". Each claim declares one
# measurement function (`lrlib.theory.race.claims`), and the ledger applies it to the chapter's runs and to
# the claim's **control run**: a counterfactual run or input that removes the mechanism the claim is about
# (a larger initialisation, equal centroid norms, frozen incoming weights, an unbalanced network, ...), on
# which the same rule must fail; the chapter's build fails if a control passes. Where the measurement is
# defined on the untrained network (or on a run with a far too coarse step) the ledger applies it there
# too, and a rule that already holds there marks the claim as a *consistency check*. Every verdict shows its
# margin, and the ledger sorts the claims into tiers (quantitative, loose bound, consistency,
# inconclusive). Claims that are identities or counts are graded as *consistency checks* and never count
# as reproductions.
#
# **Conventions.** Loss: softmax cross-entropy (natural log), **mean** over the batch (PyTorch's
# default); the paper's $\langle\cdot\rangle$ is $\frac1N\sum_s g^s_\alpha(\cdot)$ over the *whole* training set
# (the paper's appendix mixes this with a plain sum; we use the mean throughout). Time $t$ is the
# **optimiser step** (one mini-batch). `lrlib.train` is PyTorch's
# SGD: $v\leftarrow\mu v+g$, $\theta\leftarrow\theta-\lambda v$, with a fresh permutation of the data
# each epoch, drawn separately for every run of a batch (sampling without replacement, last partial batch kept). With momentum 0.9 the slow
# dynamics move at $\lambda_{\rm eff}=\lambda/(1-\mu)=0.01$ per step, so gradient-flow time is
# $\tau=0.01\,t$. Class 1 of the paper (airplane + cat) is label 0 (output node 0, $\phi_{\Delta y}=7\pi/4$),
# class 2 (automobile + bird) label 1. CIFAR training runs in float32; every identity is checked in
# float64.

# %% [markdown]
# ## The paper's statements, graded
# The paper's main statements, each with the claims of the ledger (at the bottom of the page) that grade
# it: the pass rate over the seeds, the claim's kind and its tier (*quantitative*, *loose bound*,
# *consistency*, *inconclusive*, *not graded*), filled in from this run's ledger. The **verdict** after each
# statement is read from its rows of the reproduction tier (*quantitative* or *loose bound*) only: *reproduced*
# (every such row passes in every graded seed), *not reproduced* (none passes), *mixed*, or *not tested as a
# reproduction* where every row is a consistency check or not graded. A *consistency* row is not evidence: its
# rule holds where the mechanism is absent, or it has no counterfactual run (each row's reason is in the ledger);
# identities and algebra are named as such, and rows that grade this chapter's own extension (the
# fixed-gating closed form, which the paper does not give) are named and do not count.
#
# ```{glue:} race-what-holds
# ```

# %% [markdown]
# **Choices the paper leaves open**
#
# | what | our choice | why |
# |---|---|---|
# | setting 1 init std | $10^{-4}$ (all weights), biases 0 | the paper says only "low scale" and describes $t=500$ as "before the loss drops", on "a relatively long plateau". We fix the std by that criterion alone: the **largest** of the decades $10^{-2}$, $10^{-3}$, $10^{-4}$ at which the full training loss at $t=500$ is still within 0.1 % of $\ln2$ in every seed run. The chapter measures it (std $10^{-2}$ is setting 2, std $10^{-3}$ is the merge control below) and stops if the criterion picks another std. The criterion does not look at merging. |
# | unit of $t$ | optimiser steps | with $t$ in steps the paper's $t=500$ is on the plateau; in epochs (50 steps each) it would be long after the drop |
# | run length | 20 000 steps in every setting (400 epochs of 200 images in settings 1 and 2, 320 epochs of 2000 in setting 3); "final" means the end of the run | the paper gives no run length. We declare a run *converged* at its end when its full training loss is ≤ 0.05 and no recorded loss of its last 2000 steps exceeds twice the final one (no SGD spike in progress); every run's convergence is printed after its training, and the merge of setting 1 is graded only where it holds |
# | data | train split, `cifar_race(50 or 500, seed + r)`: equal numbers of each original class, ITU-R 601 luma in $[0,1]$, not centred | the paper: grayscale, flattened; settings 1 and 2 use the same subsets |
# | $b^{(2)}$, weight decay, Nesterov | 0, none, no | PyTorch defaults |
# | $\delta_\alpha$ | the vector angle $\angle(w^{(1)}_\alpha,\langle\gamma_\alpha\rangle)$ on the full training set | the paper's per-coordinate angles are exact only in 2-D |
# | total parameter vector | $\theta_\alpha=[w^{(1)}_\alpha, b_\alpha, w^{(2)}_\alpha]$ | "total parameter vector"; merging $\theta\mapsto\hat\theta\sqrt{\sum\|\theta\|^2}$ is exact for parallel $\theta$ (2-homogeneity) |
# | merging | greedy in decreasing $\|\theta\|$: each unassigned neuron absorbs every unassigned one with cosine $\ge0.999$; the merged neuron has the paper's norm $\sqrt{\sum\|\theta\|^2}$ and the direction of the $\|\theta\|^2$-weighted mean of its members' unit vectors | the paper gives only the threshold and the norm (for exactly parallel neurons); the weighted mean is the direction that keeps the group's function to first order (see the merging section) |
# | XOR toy (Figs. 2, 3, 4, 9) | centroids at 45°, 135°, 225°, 315° with norms 4, 3, 1, 2 and labels 0, 1, 0, 1; std 0.1; 50 points each; a fresh draw per seed | the paper draws it only; interleaving the norms between the classes separates the clusters' fits |
# | XOR training | full batch, $\lambda=10^{-3}$, momentum 0.9 (as for CIFAR), init std $10^{-6}$, 6000 steps; width 1000 for Figs. 2 and 3 and 500 for Fig. 4 (the paper's), every graded run and control included | the paper's widths are 1000 (Figs. 2–3: Fig. 3 is "the XOR-like experiment with 1000 hidden neurons") and 500 (Fig. 4). A toy step's cost is set by the hidden layer (runs × 200 points × width); the toy runs take their gradient from a numpy kernel of the same closed form (`rc.toy_gradients`, about three times faster than the torch step there) |
# | snapshots | log-spaced, plus $t\in\{0,250,500,1000,2000,4000\}$ and the end; setting 1 also every 100 steps up to 4000 and every 250 after, setting 2 every 500, setting 3 every 1000 | the paper names $t=0$ and $t=500$ only; the dense record of setting 1 times the two supergroups of Fig. 5 and shows the SGD spikes of Fig. 1a |
# | frozen-gating closed form (Props. 4.2–4.3) | checked on setting 1's own run at its recorded steps up to $t=500$, flow time $\tau=\lambda_{\rm eff}t$, the bias as one more input coordinate; a neuron's gating counts as fixed while at most 1 % of its gates differ from $t=0$; rule: the closed form within 0.05 in cosine | the paper states the fixed points, not the dynamics; the closed form is the exact solution of the fixed-gating flow at $\|\Delta y\|=\sqrt2/2$, so the only choices are where to test it (the plateau of the small-init run, where its premises are closest to hold) and how much gating change to tolerate in 1024 dimensions |
# | "the initial alignment remains" (Prop. 4.4) | the 20 neurons of largest final $a$, from the first recorded step with loss $<0.95\ln2$ to the end; ≤ 5° ($a$-weighted mean angle) | the paper gives no number; 5° is small against the 90° between the toy's clusters |
# | seeds | 5 (image subset, init and mini-batch order); figures show seed `seed`. The toy runs of a figure are one batched run; the CIFAR seed runs are trained one after another | each run draws its own mini-batch order (its own permutation each epoch), so the seeds differ as independent reruns do. A CIFAR step (batch 4 or 32 on the 250 × 1024 layer) is bound by memory traffic, and there a run trained alone costs 10–15 % less CPU per step than the same run inside a batch; it sees exactly the same mini-batches, and its result agrees with the batched run's to float32 rounding over a short run (`rc.train_each`, tested); over 20 000 SGD steps the rounding differences grow (see Figure 5's section) |

# %% tags=["parameters"]
seed = 0            # base seed of every random draw in this chapter
quick = False       # True: fewer seeds, steps and images (tests only)
ledger_path = ""    # write the claims ledger to this JSON file (empty string: no file)

# %%
import math
import time

import numpy as np
import pandas as pd
import torch

from lrlib import chapter
from lrlib.data import cifar_race
from lrlib.ledger.summary import glue_what_holds
from lrlib.losses import Loss
from lrlib.measure import cosine, drops, first_crossing
from lrlib.models import forward, generator
from lrlib.plots import glue, glue_seeds
from lrlib.plots import race as rc_plots
from lrlib.theory import race as rc
from lrlib.track import cosine_similarity_matrix
from lrlib.train import train
from lrlib.schedules import linear_schedule

# %%
ch = chapter.start("race", seed, quick, ledger_path)
quick, N_SEEDS, ledger, rate = ch.quick, ch.n_seeds, ch.ledger, ch.rate
CE = Loss("cross_entropy")
F64 = torch.float64
T_START = time.time()
glue("race-seed", seed, display=False)
SEED_LABELS = [f"seed {seed + r}" for r in range(N_SEEDS)]          # the seed switchers' buttons
rl, pct = rc.rl, rc.pct                                              # short printed forms


def gen(purpose, r=0):
    """The generator of one random draw: ``purpose`` names the draw, ``r`` the seed run."""
    return generator(seed + r + 1000 * purpose)


# %%
LR, MOM = 1e-3, 0.9
SNAP_T = [0, 250, 500, 1000, 2000, 4000] if not quick else [0, 250, 500]      # plus each run's end
SETTINGS = {1: dict(n_per=50, bs=4, std=1e-4, steps=20_000),
            2: dict(n_per=50, bs=4, std=1e-2, steps=20_000),
            3: dict(n_per=500, bs=32, std=1e-2, steps=20_000)}
if quick:
    SETTINGS = {k: dict(s, steps=800, n_per=min(s["n_per"], 100)) for k, s in SETTINGS.items()}
CONV_LOSS, CONV_WINDOW = 0.05, 2000                        # the convergence criterion (see Choices)
XOR_W, XOR4_W = (40, 40) if quick else (1000, 500)         # Figs. 2 and 4: the paper's widths
XOR_STEPS = 2000 if quick else 6000
print(CE.describe(), f"| SGD lr {LR}, momentum {MOM} | {N_SEEDS} seeds, steps per setting "
      f"{ {k: s['steps'] for k, s in SETTINGS.items()} }")

# %% [markdown]
# ## The per-neuron equations (eqs. 4–8, 15) and Figure 3
# Writing $w^{(2)}_\alpha$ in polar form $(\|w^{(2)}_\alpha\|,\phi_\alpha)$, the paper's eqs. 4–8 give the
# gradient of the loss in norms and angles through $\Delta y^s=y^s-\hat y^s$, the gate
# $g^s_\alpha=1[w^{(1)}_\alpha\cdot x^s+b_\alpha>0]$ and $\langle\gamma_\alpha\rangle=\frac1N\sum_sg^s_\alpha\cos(\phi_{\Delta y^s}-\phi_\alpha)\|\Delta y^s\|x^s$,
# e.g. $\nabla_{w^{(1)}_\alpha}L=-\|w^{(2)}_\alpha\|\langle\gamma_\alpha\rangle$ (eq. 66). Since every $\Delta y^s$ points
# to $7\pi/4$ (class 1) or $3\pi/4$ (class 2), the ratio of eq. 15 is **exactly**
# $\|w^{(2)}_\alpha\|\tan(3\pi/4-\phi_\alpha)$ — for any data, gating and time. Figure 3 plots it at $t=0$
# for the XOR toy with 1000 neurons (init std 0.01 for the figure, float64). The small values on the
# paper's y-axis are the factor $\|w^{(2)}_\alpha\|\approx0.014$. Both are identities, so they are graded as
# consistency checks (one network per seed, with random biases for eqs. 4–8).

# %%
xor_data = [rc.xor_clusters(50, generator(seed + r)) for r in range(N_SEEDS)]
X_xs = torch.stack([d[0] for d in xor_data])               # (R, 200, 2) float64
X_x, y_x, cl_x = xor_data[0]                               # labels, clusters: as in every draw
# %%
nets15, nets_id = [], []
for r in range(N_SEEDS):
    nets15.append((rc.race_init(1000, 2, 1e-2, gen(1, r), dtype=F64), X_xs[r], y_x))
    p_id = rc.race_init(50, 2, 0.5, gen(2, r), dtype=F64)
    p_id.b1 = 0.2 * torch.randn(50, generator=gen(3, r), dtype=F64)
    nets_id.append((p_id, X_xs[r], y_x))
err_id = ledger.measure("eqs4-8.identities", nets_id).values["err"]
err15 = ledger.measure("eq15.ratio", nets15).values["err15"]
print(f"eq. 15: max relative error {max(err15):.1e}; eqs. 4–8 vs autograd: {max(err_id):.1e} "
      f"(over {N_SEEDS} seeds)")

# %%
def fig3(r):
    """Figure 3 for seed run ``r``: the ratio of eq. 15 of each neuron at t = 0."""
    p3 = nets15[r][0]
    ratio, exact = rc.phi_ratio(p3, X_xs[r], y_x)
    ph3 = rc.phi(p3)
    gap = rc.angle_gap(torch.full_like(ph3, rc.PHI2), ph3)
    return rc_plots.fig3_ratio(gap, ratio, exact, p3.norms_out())


glue_seeds("race-fig3", [fig3(r) for r in range(N_SEEDS)],
           [f"seed {seed + r}: largest relative error of eq. 15 {err15[r]:.1e}"
            for r in range(N_SEEDS)],
           labels=SEED_LABELS)

# %% [markdown]
# ```{glue:figure} race-fig3
# :name: race-fig3
#
# **Figure 3 of the paper.** (a) The ratio $\partial_\phi L/\partial_{\|w_2\|}L$ of each of the 1000 neurons at
# $t=0$ (dots) against $3\pi/4-\phi_\alpha$, and the closed form $\|w^{(2)}_\alpha\|\tan(3\pi/4-\phi_\alpha)$ (circles):
# the dots sit in the circles, and the y-range is of the order of $\|w^{(2)}\|\approx0.014$, as on the paper's
# axis. (b) The same ratio divided by $\|w^{(2)}_\alpha\|$ lies on $\tan$ (line). One seed at a time (choose
# it above the figure; the note under it gives that seed's largest relative error).
# ```

# %% [markdown]
# ## The XOR-like toy: four subsystems at four speeds (Figures 9, 2)
# Four Gaussian clusters, two per class, with centroid norms 4, 3, 1, 2 (Figure 9). By eq. 19 a
# group of neurons grows at a rate $\propto\|\langle\gamma\rangle\|$, which scales with the norm of the
# cluster it serves, so the paper expects one loss drop per cluster, in the order of the norms, and
# neurons that align (top row: incoming directions, bottom row: outgoing directions) before their drop.
# Colours: the data cluster nearest to each neuron's *final* incoming direction. Besides the drops of
# the total loss (peaks of its decrease rate), we time each cluster separately: $t_k$ is the step at
# which the mean loss on cluster $k$ falls below half of $\ln 2$. The negative control of `fig2.speeds` is
# one more run in the same batch, on a toy set whose four centroids all have norm 2.5: one speed for
# every cluster (its drop count is printed; `fig2.four-drops` has no control since round 12, referee 1.4).

# %%
X_eq = rc.xor_clusters(50, gen(4), norms=(2.5,) * 4)[0]
R_x = N_SEEDS + 1                                          # the seeds, then the control
Xr = torch.cat([X_xs, X_eq[None]]).float()
yr = y_x.expand(R_x, -1).clone()
p2 = rc.race_init(XOR_W, 2, 1e-6, gen(5), runs=(R_x,))
xor = train(p2, Xr, yr, loss=CE, lr=LR, momentum=MOM, steps=XOR_STEPS,
            record=linear_schedule(XOR_STEPS, 25), grad_fn=rc.toy_gradients)
glue("race-xor-width", XOR_W, display=False)
cen_dir = rc.centroid_directions()                         # (4, 2) unit vectors
Lx = xor.loss.numpy()                                      # (T, R_x)
n_drops = np.array([len(drops(xor.steps, Lx[:, r], rel=0.05)) for r in range(R_x)])

# %%
norm_of = [4, 3, 1, 2]
by_norm = np.argsort([-n for n in norm_of])                # clusters of norms 4, 3, 2, 1
xor_main = xor.run(slice(0, N_SEEDS))                      # the seeds
xor_eq = xor.run(slice(N_SEEDS, R_x))                      # the equal-norm control
ledger.measure("fig2.four-drops", xor_main)                  # no control (referee 1.4)
speeds = ledger.measure("fig2.speeds", (xor_main, Xr[:N_SEEDS], yr[:N_SEEDS]),
                        controls={"xor_equal": (xor_eq, Xr[N_SEEDS:], yr[N_SEEDS:])},
                        clusters=cl_x, order=tuple(by_norm))
print(f"drops of the total loss per seed {n_drops[:N_SEEDS].tolist()} (control: "
      f"{n_drops[N_SEEDS]}) -> four drops: {rate('fig2.four-drops')}")
print(f"step at which each cluster's loss halves (norms 4, 3, 2, 1), seed {seed}: "
      f"{rc.halving_steps(speeds.values, 0)}; equal-norm control: "
      f"{rc.halving_steps(speeds.control_values, 0)} -> ordered speeds: {rate('fig2.speeds')}")

# %%
glue_seeds("race-fig9", [rc_plots.fig9_toy(X_xs[r], y_x, cl_x, norm_of) for r in range(N_SEEDS)],
           [f"seed {seed + r}: a fresh draw of the 200 points" for r in range(N_SEEDS)],
           labels=SEED_LABELS)

# %% [markdown]
# ```{glue:figure} race-fig9
# :name: race-fig9
#
# **Figure 9 of the paper.** The XOR-like toy set, one seed's draw at a time (choose it above the figure): four clusters at 45°, 135°,
# 225°, 315°, opposite clusters in the same class (circles: label 0, the paper's class 1; squares: label
# 1), with centroid norms 4, 3, 1, 2 written beside them. Compare the layout with the paper's figure (the paper
# gives no coordinates; these are our choices, see the table of choices); the norms are what sets the four speeds
# graded under Figure 2.
# ```

# %% tags=["hide-input"]
def fig2(r):
    """Figure 2 for draw ``r`` of the batch, and the steps of its total loss's drops."""
    xr = xor.run(r)
    grp = cosine(xr.final.W1.unsqueeze(-2), cen_dir).argmax(-1)          # nearest centroid, (m,)
    t_drop = [int(xor.steps[i]) for i in drops(xor.steps, Lx[:, r], rel=0.05)]
    snaps = rc.drop_snapshots(xr, t_drop, XOR_STEPS)
    Lk = rc.cluster_losses(xr.params, Xr[r], yr[r], cl_x, CE)                # (T, 4)
    fig = rc_plots.fig2_xor(xor.steps, Lx[:, r], Lk.numpy(), t_drop, snaps, grp, norm_of, seed + r)
    return fig, t_drop


figs2 = [fig2(r) for r in range(N_SEEDS)]
glue_seeds("race-fig2", [f for f, _ in figs2],
           [f"seed {seed + r}: drops of the total loss at steps {t or 'none'}; each cluster's loss "
            f"halves at steps {rc.halving_steps(speeds.values, r)} (norms 4, 3, 2, 1)"
            for r, (_, t) in enumerate(figs2)], labels=SEED_LABELS)

# %% [markdown]
# ```{glue:figure} race-fig2
# :name: race-fig2
#
# **Figure 2 of the paper** ({glue:text}`race-xor-width` neurons, as the paper; one seed at a time: choose it above the
# figure, the note under it gives that seed's drops). (a) The training loss
# (black) and the loss on each cluster (dashed, coloured as the cluster's neurons); dotted lines: the drops
# of the total loss. The paper shows four drops; compare the number in the title and the order of the
# dashed curves (largest centroid norm first). (b) Incoming and (c) outgoing directions at the snapshots,
# coloured by the cluster nearest each neuron's final incoming direction: the incoming vectors collapse onto
# the four cluster directions, the outgoing ones onto $7\pi/4$ (lower right) or $3\pi/4$ (upper left).
# ```

# %% [markdown]
# **What we see.** The clusters are fitted one after the other in the order of their centroid norms
# (dashed lines, any seed shown), each group of neurons having aligned (top row) before its cluster's loss
# falls, and the outgoing vectors end on $7\pi/4$ or $3\pi/4$ (bottom row). While the large clusters are
# fitted, the losses of the small clusters first *rise* (the output bias and the winning groups push
# every point towards the classes already fitted). In the *total* loss the fits of neighbouring clusters
# overlap, so its decrease rate shows fewer separate peaks than clusters: the printed drop counts and
# pass rates above are what the ledger grades (the paper does not give its own layout). On the
# equal-norm control the clusters are fitted together.

# %% [markdown]
# ## Initialisation scale: rich to lazy (Figure 4)
# The same toy, four init stds, the same optimiser, for every seed, at the paper's width of
# {glue:text}`race-xor4-width` neurons (one batch of 24 runs: 5 seeds × 4 stds, and the control). Alignment score: the
# $a$-weighted mean over neurons of $\max_k\cos(w^{(1)}_\alpha,u_k)$, where $u_k$ are the four final incoming
# directions of the same seed's smallest-std run (the direction of its largest-$a$ neuron in each cluster).
# Control: four runs that all start from std $10^{-4}$, scored in the same order (no change of scale).

# %%
STD4 = [1e-4, 1e-2, 1e-1, 1.0]
std4 = torch.tensor(STD4 * N_SEEDS + [1e-4] * 4)           # 4 per seed, then the control
X4 = torch.cat([X_xs.repeat_interleave(4, 0), X_xs[:1].expand(4, -1, -1)]).float()
p4 = rc.race_init(XOR4_W, 2, std4, gen(6), runs=(len(std4),))
rec4 = sorted(set([0, XOR_STEPS // 8, XOR_STEPS // 4, XOR_STEPS // 2, XOR_STEPS]))
xor4 = train(p4, X4, y_x.expand(len(std4), -1).clone(), loss=CE, lr=LR, momentum=MOM,
             steps=XOR_STEPS, record=rec4, grad_fn=rc.toy_gradients)
glue("race-xor4-width", XOR4_W, display=False)
# %%
lazy = [rc.lazy_scores(rc.run_block(xor4.final, 4 * g_, 4 * g_ + 4), cen_dir)
        for g_ in range(N_SEEDS + 1)]
score = torch.stack([sc for sc, _ in lazy]).numpy()        # (N_SEEDS + 1, 4)
n4 = 4 * N_SEEDS
# a consistency check; the all-1e-4 row is context
ledger.measure("fig4.lazy", rc.head_runs(xor4.final, n4), init=rc.head_runs(xor4.at(0), n4),
               centroids=cen_dir)
rows4 = [f"seed {seed + r}" for r in range(N_SEEDS)] + ["control (all 1e-4)"]
print(pd.DataFrame(score, columns=[f"std {s:g}" for s in STD4], index=rows4).round(4).to_string())
print(f"rich → lazy: {rate('fig4.lazy')}")

# %%
def fig4(r):
    """Figure 4 for seed run ``r`` (runs 4r to 4r + 3 of the batch)."""
    panels = []
    for row, i in enumerate([1, len(xor4) - 1]):
        W = xor4.at(i).W1[4 * r:4 * r + 4]
        panels.append([(W[c], cosine(W[c].unsqueeze(-2), lazy[r][1]).argmax(-1),
                        f"std {s:g}, $t$={xor4.steps[i]}" + row * f"\nscore {score[r, c]:.3f}")
                       for c, s in enumerate(STD4)])
    return rc_plots.fig4_lazy(panels, STD4, seed + r)


stds4 = ", ".join(f"{s:g}" for s in STD4)
glue_seeds("race-fig4", [fig4(r) for r in range(N_SEEDS)],
           [f"seed {seed + r}: alignment scores {rl(score[r], 3)} (std {stds4})"
            for r in range(N_SEEDS)], labels=SEED_LABELS)

# %% [markdown]
# ```{glue:figure} race-fig4
# :name: race-fig4
#
# **Figure 4 of the paper** ({glue:text}`race-xor4-width` neurons, as the paper; one seed at a time: choose it above
# the figure, the note under it gives that seed's scores). Incoming directions
# early (top) and at the end (bottom) for init std $10^{-4}$, $10^{-2}$, $10^{-1}$, $1$ (left to right), coloured by
# the nearest of the four target directions $u_k$. Compare the collapse onto four directions at small std with
# the spread at std 1; the number to look at is the alignment score in the lower titles (1 = every unit of
# norm on a target), which the claim `fig4.lazy` grades per seed (table above).
# ```

# %% [markdown]
# With a small init the incoming vectors collapse onto the four targets; at std 1 they barely move from
# their random initial directions (lazy regime).

# %% [markdown]
# ## The three CIFAR-10 settings
# Five seed runs per setting, trained one after another, each with its own image subset (`cifar_race(n, seed + r)`),
# initialisation **and mini-batch order** (as independent reruns); all weights $\mathcal N(0,\text{std}^2)$,
# biases 0; 250 neurons. Every setting runs 20 000 SGD steps (400 epochs in settings 1 and 2, 320 in
# setting 3). The full training loss is recorded every 100 steps up to $t=4000$
# in setting 1 (Figure 5), then every 250; every 500 steps in setting 2 and every 1000 in setting 3 (whose
# full loss, on 2000 images, costs ten times more).
#
# **Convergence, declared.** A run has *converged* at its end $T$ when its full training loss is at most
# 0.05 (7 % of $\ln2$: the training set fitted) and no recorded loss of the last 2000 steps exceeds twice the
# loss at $T$ (no SGD spike in progress). Every "final" quantity is the network at $T$; the merge of setting 1
# is graded only where the run has converged (a premise of `merge.setting1`).

# %%
def batch_seeds(k, n):
    """One mini-batch order per run: run r of setting k draws its own permutations."""
    return rc.batch_seeds(k, n, seed)


# %%
def record_of(k):
    """Setting k's recorded steps: log-spaced, the snapshots, and a dense grid (see rc.runs)."""
    return rc.setting_record(k, SETTINGS[k]["steps"], SNAP_T)


# %%
def run_setting(k):
    s = SETTINGS[k]
    data = [cifar_race(s["n_per"], seed + r) for r in range(N_SEEDS)]
    X, y = torch.stack([d[0] for d in data]), torch.stack([d[1] for d in data])
    p0 = rc.race_init(250, 1024, s["std"], generator(seed + 100 * k), runs=(N_SEEDS,))
    tr = rc.train_each(p0, X, y, loss=CE, lr=LR, momentum=MOM, batch_size=s["bs"], steps=s["steps"],
                       record=record_of(k), seed=batch_seeds(k, N_SEEDS), check_every=1000)
    return X, y, tr


# %%
def converged(tr):
    """Per run: the declared convergence criterion at the end of the run (see the text)."""
    return rc.converged(tr, CONV_LOSS, CONV_WINDOW)


# %%
def txy(k):
    """Setting k's runs as the claims' measurements take them: (trajectory, X, y)."""
    X, y, tr = runs[k]
    return tr, X, y


# %%
runs, stats, conv = {}, {}, {}
for k in SETTINGS:
    t0 = time.process_time()
    X_, y_, tr_ = runs[k] = run_setting(k)
    stats[k] = rc.snapshot_stats(tr_, X_, y_, SNAP_T + [SETTINGS[k]["steps"]])   # last: the end
    conv[k] = converged(tr_)
    print(f"setting {k}: N = {X_.shape[1]}, {SETTINGS[k]['steps']} steps in "
          f"{time.process_time() - t0:.0f} s CPU; final loss {rl(tr_.loss[-1], 4)}; "
          f"converged: {rc.ints(conv[k])}")
i500 = SNAP_T.index(500)
glue("race-T1", int(runs[1][2].steps[-1]), display=False)
glue("race-conv3", f"{int(conv[3].sum())}/{N_SEEDS}", display=False)

# %% [markdown]
# **Setting 1's init scale, by the plateau criterion.** The control run of the merging claim below
# trains the first two image subsets of setting 1 from std $10^{-3}$ (with the same mini-batch orders and
# run length as those two runs). With setting 2 (std $10^{-2}$) and setting 1 itself it gives the loss at
# $t=500$ for the three decades of the criterion stated in the table of choices.

# %%
N_CTL, STD1 = min(2, N_SEEDS), SETTINGS[1]["std"]
X1, y1, tr1 = runs[1]
rec_ctl = np.union1d(record_of(1)[::4], [0, 500, SETTINGS[1]["steps"]])
ctl = rc.train_each(rc.race_init(250, 1024, 1e-3, gen(7), runs=(N_CTL,)), X1[:N_CTL], y1[:N_CTL],
                    loss=CE, lr=LR, momentum=MOM, batch_size=4, steps=SETTINGS[1]["steps"],
                    record=rec_ctl, seed=batch_seeds(1, N_CTL), check_every=1000)

# %%
L500 = {k: runs[k][2].loss[runs[k][2].index_of_step(500)].numpy() / math.log(2) for k in SETTINGS}
L500_ctl = ctl.loss[ctl.index_of_step(500)].numpy() / math.log(2)
plateau_at = {1e-2: L500[2], 1e-3: L500_ctl, 1e-4: L500[1]}
on_plateau = {s: bool((v >= 0.999).all()) for s, v in plateau_at.items()}
std_chosen = max([s for s, ok in on_plateau.items() if ok], default=float("nan"))
print(pd.DataFrame([{"std": s, "L(500)/ln 2 per seed run": rl(v, 4), "on_plateau": on_plateau[s]}
                    for s, v in plateau_at.items()]).to_string(index=False))
print(f"largest std on the plateau at t = 500: {std_chosen:g}; setting 1 uses {STD1:g}")
if not quick and std_chosen != STD1:
    raise RuntimeError(f"the plateau criterion picks std {std_chosen:g}, not setting 1's {STD1:g}")

# %% [markdown]
# **A lazy run (context, no longer a control).** A network initialised at a large scale stays near its initialisation
# (lazy regime): no neuron outgrows the others. This run trains setting 1's first two image subsets (same
# mini-batch orders) from std 0.3 for 4000 steps (loss below 0.05 well before; W1 moves by about 3 %, printed). It was
# the control of `predict.*`, `prune.*` and `unlock.exp-fit` in the fifth round; since this revision it is printed
# beside them only, and they are consistency checks again (ledger histories), because it fails their rules for
# reasons other than a missing race: for `predict.*` and `unlock.exp-fit` it is the initial state again (at a Gaussian
# init a neuron's norm is independent of its direction, so any direction-based predictor gives $\rho\approx0$, and
# the ledger's init grading fails the same way); for `prune.*` its large init leaves a large random output function;
# for setting 3 it is not comparable (200 images, batch 4). **Its std was chosen after a probe**: at std 0.05 the
# $t=0$ correlation reached 0.34 and would have passed `rho0 > 0.3`; std 0.3 was preferred as "lazier" (W1 moves
# 3 % against 8 %), with no W1-movement threshold declared in advance. Over a 20 000-step probe its $\rho_0$ was
# $-0.05/-0.06$ against $-0.14/-0.15$ here (4000 steps): the verdicts, not the values, were the same.

# %%
LAZY_STD, LAZY_T = 0.3, min(4000, SETTINGS[1]["steps"])
X1l, y1l = X1[:N_CTL], y1[:N_CTL]                                             # its image subsets
lazy1 = rc.train_each(rc.race_init(250, 1024, LAZY_STD, gen(11), runs=(N_CTL,)), X1l, y1l, loss=CE,
                      lr=LR, momentum=MOM, batch_size=4, steps=LAZY_T, seed=batch_seeds(1, N_CTL),
                      record=[t for t in record_of(1) if t < LAZY_T] + [LAZY_T])
S_lazy = rc.snapshot_stats(lazy1, X1l, y1l, [t for t in SNAP_T if t <= LAZY_T] + [LAZY_T])
W1_0 = lazy1.at(0).W1
moved = ((lazy1.final.W1 - W1_0).norm(dim=(-2, -1)) / W1_0.norm(dim=(-2, -1))).numpy()
print(f"lazy control (std {LAZY_STD:g}, {LAZY_T} steps): final loss {rl(lazy1.loss[-1], 4)}, "
      f"converged {converged(lazy1).astype(int).tolist()}; W1 moved by {rl(100 * moved, 1)} %; "
      f"Spearman ρ(a(0), final a) "
      f"{rl(rc.spearman(S_lazy['a'][0].double(), S_lazy['a_final'].double()))}")

# %% [markdown]
# ### Setting 1 (Figure 1)
# (a) the loss of every seed, on the full training set at the recorded steps: a plateau at
# $\ln2$, then the drop; SGD with batch 4 and momentum 0.9 gives occasional spikes later on. (b) cosine-similarity matrices of
# the total parameter vectors $\theta_\alpha$, each reordered by average-linkage clustering. (c) the
# paper's 2×2 grid: current (left) and final (right) $a_\alpha$ against $\cos\delta_\alpha$ at $t=0$ (top) and
# $t=500$ (bottom), darker = larger final $a_\alpha$.

# %%
S1 = stats[1]
T1 = int(tr1.steps[-1])


# %% tags=["hide-input"]
def cos_panel(tr, s, title, r=0):
    """(cosine matrix of θ of seed run ``r`` at step s, its clustering order, title): a panel."""
    C = cosine_similarity_matrix(rc.theta(tr.at(tr.index_of_step(s)))[r].double()).numpy()
    return C, rc.cluster_order(C), title


t_cm = [s for s in SNAP_T if s in (0, 500, 1000, 2000)] + [T1]


# %%
def cda_panels(r):
    """Figure 1(c) of seed run ``r``: current and final a against cos δ at t = 0 and 500."""
    af = S1["a_final"][r]
    return [[(S1["cd"][j, r], S1["a"][j, r], af,
              ("(c) " if row == 0 else "") + f"current $a_\\alpha$ at $t$ = {s}"),
             (S1["cd"][j, r], af, af, f"final $a_\\alpha$ vs $\\cos\\delta_\\alpha$ at $t$ = {s}")]
            for row, (s, j) in enumerate([(0, 0), (500, i500)])]


# %%
def fig1(r):
    """Figure 1 for seed run ``r`` (panel (a) shows every seed, run ``r`` in blue)."""
    head = "(b) cosine similarity of $\\theta_\\alpha$, "
    cos1 = [cos_panel(tr1, s, (head if i == 0 else "") + f"$t$ = {s}", r)
            for i, s in enumerate(t_cm)]
    return rc_plots.fig1(tr1.steps, tr1.loss, cos1, cda_panels(r), marks=[500], shown=r)


glue_seeds("race-fig1", [fig1(r) for r in range(N_SEEDS)],
           [f"seed {seed + r}: final loss {float(tr1.loss[-1, r]):.4f}, "
            f"converged: {bool(conv[1][r])}"
            for r in range(N_SEEDS)], labels=SEED_LABELS)

# %% [markdown]
# ```{glue:figure} race-fig1
# :name: race-fig1
#
# **Figure 1 of the paper** (setting 1; one seed at a time: choose it above the figure). (a) The full training
# loss of the five seeds (blue: the seed shown), on a log scale, recorded every 100 steps up to $t=4000$ and every 250 after: the plateau
# at $\ln 2$ up to about $t=500$ (dotted line), the drop, and the SGD spikes later on; the run ends at $t$ =
# {glue:text}`race-T1`, where the merge is taken. (b) Cosine similarities of the total vectors $\theta_\alpha$,
# each matrix reordered by clustering: blocks form as the neurons align. (c) Current (left) and final (right)
# $a_\alpha$ against $\cos\delta_\alpha$ at $t=0$ (top) and $t=500$ (bottom), darker = larger final $a_\alpha$;
# compare the straight rising edge of the lower-left panel (exponential growth in $\cos\delta$, graded by
# `unlock.exp-fit`, a consistency check) and how well the right column orders the dark points (graded by `predict.setting1.*`).
# ```

# %% [markdown]
# **Merging (§5).** At the end of setting 1 the paper merges every group of neurons with cosine
# $\ge0.999$ and finds 150 effective neurons out of 250, "with an increase in the loss of merely 0.1 %".
# We merge the final float64 network of each seed (exact for parallel $\theta$: checked by splitting a
# neuron and merging it back) and measure the groups and the relative change $\Delta L/L$ of the full
# training loss, at 0.999 and, for context, 0.99 and 0.9999. The rule, per seed: 150 ± 30 groups *and*
# $|\Delta L/L|\le0.3\,\%$ (three times the paper's 0.1 %); *partial* if only the group count holds.
# **Rule change:** an earlier version of this chapter bounded only an *increase* of the loss, so a merge
# that lowered the loss by several percent passed; the paper's point is that merging leaves the loss
# essentially unchanged, so the size $|\Delta L/L|$ is graded now. **Two more changes, declared before
# they were measured.** (i) *The merged neuron's direction.* The paper merges neurons "that have the same
# direction of their total parameter vector" into one of norm $\sqrt{\sum\|\theta\|^2}$; for exactly parallel
# $\theta$ every member gives that direction, and for members parallel only to 0.999 the paper states no rule.
# Its justification — merging "without affecting the predictions" — picks one: a neuron $\theta=n\,u$
# computes $n^2f_u$ (2-homogeneity), so a group computes $\sum_\beta n_\beta^2f_{u_\beta}=(\sum n_\beta^2)f_{\bar u}+O(\text{spread}^2)$
# with $\bar u$ the $\|\theta\|^2$-weighted mean of the unit vectors. We merge in that direction (an earlier
# version took the direction of the group's largest member, which is off at first order; its loss change is
# printed beside). (ii) *The network merged* is the one at the end of the 20 000-step run, and the claim is
# graded only where that run has converged by the declared criterion (premise): an earlier version merged the
# network at step 8000, in one seed about 1600 steps after an SGD spike. Control: the std-$10^{-3}$ runs
# above (same run length), merged the same way. In settings 2 and 3 the paper says neurons *cannot* be merged without
# affecting the loss: per seed, merging removes fewer than 10 % of the neurons or raises the loss by at
# least 1 %; control: the same final network with every neuron split into two exactly parallel halves,
# which can be merged without any change. The untrained network cannot be merged either, so the rule of settings 2 and 3
# already holds at $t=0$ (graded as the initial state): the ledger counts them as consistency checks.

# %%
def merge_table(k):
    """Setting k's merge table at the end of the run: one row per seed and threshold."""
    X, y, tr = runs[k]
    return pd.DataFrame([row for r in range(N_SEEDS) for row in rc.merge_rows(
        rc.run_net(tr.final, r, F64), X[r].double(), y[r], CE, setting=k, seed=seed + r)])


# %%
fin0 = rc.run_net(tr1.final, 0, F64)
# two parallel halves of one neuron
split = rc.split_neuron(fin0, int(rc.total_norm(fin0).argmax()), 0.6)
exact_split = float((forward(split, X1[0].double()) - forward(fin0, X1[0].double())).abs().max())
same_groups = rc.merge(split, 0.999)[1] == rc.merge(fin0, 0.999)[1]
merges = pd.concat([merge_table(k) for k in SETTINGS], ignore_index=True)
m999 = merges[merges.threshold == 0.999]
mt1 = m999[m999.setting == 1]
dl_leader = [rc.merge_rows(rc.run_net(tr1.final, r, F64), X1[r].double(), y1[r], CE,
                           thresholds=(0.999,), direction="leader")[0]["rel_loss_change"]
             for r in range(N_SEEDS)]
# %%
ctl_rows = pd.DataFrame([row for r in range(N_CTL) for row in rc.merge_rows(
    rc.run_net(ctl.final, r, F64), X1[r].double(), y1[r], CE, std=1e-3, seed=seed + r)])
c999 = ctl_rows[ctl_rows.threshold == 0.999]
ctl1 = (ctl.final, X1[:N_CTL], y1[:N_CTL])
note1 = (f"merged in the leader's direction instead: ΔL/L {pct(dl_leader)}; control converged: "
         f"{rc.ints(converged(ctl))}; seed {seed}: splitting the largest neuron into two parallel "
         f"halves changes the outputs by {exact_split:.1e}, and the split network merges into as "
         f"many groups as the unsplit one: {same_groups}")
ledger.measure("merge.setting1", (tr1.final, X1, y1), controls={"std_1e3": ctl1},
               init=(tr1.at(0), X1, y1), premises=dict(conv=conv[1].astype(int)), note=note1)
# %%
for k in (2, 3):
    X_, y_, tr_ = runs[k]
    split_r = rc.stack_nets([rc.split_all(rc.run_net(tr_.final, r, F64)) for r in range(N_SEEDS)])
    ledger.measure(f"merge.setting{k}", (tr_.final, X_, y_), controls={"split": (split_r, X_, y_)},
                   init=(tr_.at(0), X_, y_),
                   note=f"run converged at its end (step {SETTINGS[k]['steps']}): "
                        f"{rc.ints(conv[k])}")
print(f"setting 1 at 0.999 (end of run, t = {T1}): groups {mt1.groups.tolist()}, "
      f"ΔL/L {pct(mt1.rel_loss_change)} (leader's direction: {pct(dl_leader)}), "
      f"converged {rc.ints(conv[1])} -> {rate('merge.setting1')}; "
      f"control (std 1e-3): groups {c999.groups.tolist()}")
print(f"settings 2 and 3 cannot be merged freely: {rate('merge.setting2')}, "
      f"{rate('merge.setting3')}")
# %% [markdown]
# **What we see.** The group counts and loss changes per seed are printed above and graded in the
# ledger; the pass rate is the headline (seeds where only the group count holds are *partial*, seeds whose
# run had not converged are *premise not met*). The loss changes printed beside, for the leader's direction,
# show how much of the change the choice of direction alone makes. Compare
# the control's group counts (std $10^{-3}$, printed above and tabulated below) with setting 1's: at this
# run length the unaligned part of $w^{(1)}$ (norm $\approx32\,$std at init) weighs more at the larger
# scale, so the merge count depends on the init scale, which is why that scale is fixed by the plateau
# criterion and not by the merges.

# %%
pd.concat([ctl_rows, mt1.assign(std=SETTINGS[1]["std"]).drop(columns="setting")]).pivot_table(
    index=["std", "seed"], columns="threshold", values=["groups", "rel_loss_change"])

# %% [markdown]
# **Merging at matched group counts (new in this revision).** At one threshold the three settings leave different
# numbers of groups, so the loss changes above compare different compressions. `merge.matched` merges every setting's
# final network to the same count, the paper's 150 neurons (at the largest cosine threshold that leaves at most 150,
# found by bisection), and compares the loss changes: about 0.1 % in setting 1 (≤ 0.3 %), at least 1 % in settings 2
# and 3. Control: the std-$10^{-3}$ runs in place of setting 1. At 150 groups settings 2 and 3 need thresholds near
# 0.5 and lose hundreds of per cent, so their conjuncts could not fail and are dropped from the rule since round 12
# (referee 1.3, history; printed as context): **this claim tests setting 1 only**, and
# since this revision only where setting 1's run converged (premise, as `merge.setting1`; ledger history). Setting 1's init scale is the one the plateau criterion
# of the table of choices picks (the largest decade whose loss at $t=500$ is still within 0.1 % of $\ln2$); the
# criterion reads the loss at $t=500$, never a merge. Expectation written before the first run that graded it.
#
# **Pruning.** The paper's other compression: the neurons that lose the race "can subsequently be pruned". Per setting
# and seed we remove the half of the neurons with the lowest $a$ and measure the relative change of the full training
# loss (`prune.setting1`–`3`, rule $|\Delta L/L|\le1\,\%$, the chapter's reading of "can be pruned"). Since this
# revision every setting is pruned **at the same training loss**: at the first recorded snapshot whose full training
# loss is at most 0.2 (premise: the run reaches it), read from the snapshots already recorded (no new training). We
# chose 0.2 because it is a level every setting reaches in every seed of the published run — setting 3, which never
# converges in 20 000 steps, ends at 0.10–0.13, settings 1 and 2 lower — with room for SGD noise, and it lies well
# off the plateau ($\ln2\approx0.69$). Before, the rows were graded at the end of the run where it had converged,
# and `prune.setting3` was *premise not met* in every seed (no setting-3 run converges). The control is a run through
# the same measurement: the same snapshot's networks with the same number of neurons removed in a random order
# (`random_order`), which removes the race's ranking. Declared (rule, premise, control, predicted expectations)
# and committed before the run that graded it (histories). **Round 12 (referee 1.1, 2.1):** the random order is a
# swapped role on the same network (removing a random half breaks any trained network), not a run without the race,
# so the three rows are consistency checks (history; the random order is printed as context). The matched loss is
# not a matched stage (setting 1 is pruned mid-race, setting 3 near its end), and the verdicts move with the 0.2
# level and the 50 % cut (sensitivity printed for levels 0.15/0.2/0.3 and cuts 40/50/60 %). The paper's statement is
# comparative: `prune.compare` grades it at the paper's time, the end of each run, on a scale-free cost
# $(L_{\rm pruned}-L)/(\ln2-L)$ (the share of what training took off the plateau's loss that the cut gives back),
# rule $g_3>g_2$ (the paper's "harder to prune") and $g_2,g_3>g_1$; declared before any run of it, expectation left
# open (observed: the matched-loss values had been seen). Printed beside, as context: the snapshot's step and loss,
# the old end-of-run pruning, the lazy std-0.3 runs pruned at their end (their large random output makes one or two
# removed neurons already cost > 1 %), and the **early pruning** of §4.6 — the cut made with the order of $a$ at
# $t=500$, applied to setting 1's final network. It measures only how far the $t=500$ order mis-ranks the final
# neurons; the paper's warning is about pruning early and *continuing* training, which is not run here.

# %%
s23 = [runs[2], runs[3]]
mm = ledger.measure("merge.matched", ((tr1.final, X1, y1),) + rc.final_heads(s23, N_SEEDS),
                    controls={"std_1e3": (ctl1,) + rc.final_heads(s23, N_CTL)},
                    premises=dict(conv=conv[1].astype(int)))     # setting 1 converged (referee 1.5)
mv, mc = mm.values, mm.control_values
print(f"merged to at most 150 neurons: ΔL/L setting 1 {pct(mv['dl1'])} "
      f"(threshold {rl(mv['thr1'], 4)}), setting 2 {pct(mv['dl2'])} ({rl(mv['thr2'], 3)}), "
      f"setting 3 {pct(mv['dl3'])} ({rl(mv['thr3'], 3)}) -> {rate('merge.matched')}; "
      f"control (std 1e-3 as setting 1): {pct(mc['dl1'])}")

# %%
LEVEL = 0.2                       # the matched training loss (nats): every setting reaches it
for k in SETTINGS:
    X_, y_, tr_ = runs[k]
    rnd = torch.rand(tr_.final.W1.shape[:-1], generator=gen(10 + k))      # (R, m): a random order
    v = ledger.measure(f"prune.setting{k}", (tr_, X_, y_, None), level=LEVEL).values
    c = rc.claims.prune_at_level((tr_, X_, y_, rnd), level=LEVEL)         # random order: context
    end = rc.claims.prune_loss((tr_.final, X_, y_, rc.total_norm(tr_.final)))     # context
    print(f"setting {k}: at loss ≤ {LEVEL} (steps {rc.ints(v['step'])}, loss {rl(v['loss'], 3)}): "
          f"lowest-a half removed ΔL/L {pct(v['dl'])}, prunable at ≤ 1 % {rl(v['frac'])} -> "
          f"{rate(f'prune.setting{k}')}; random half (context) {pct(c['dl'])}; at the end of "
          f"the run (context; converged {rc.ints(conv[k])}): {pct(end['dl'])}")
    glue(f"race-rate-prune{k}", rate(f"prune.setting{k}"), display=False)

# %%
heads = rc.final_heads([runs[k] for k in SETTINGS], N_SEEDS)            # the final networks
g = ledger.measure("prune.compare", heads).values
print("end of the run, lowest-a half removed, (L_pruned - L) / (ln 2 - L): " + "; ".join(
    f"setting {k} {rl(g[f'g{k}'], 3)} (L {rl(g[f'L{k}'], 3)})" for k in SETTINGS)
    + f" -> {rate('prune.compare')}")
glue("race-rate-prune-compare", rate("prune.compare"), display=False)
for k in SETTINGS:                                  # sensitivity to the level and the cut (2.1)
    X_, y_, tr_ = runs[k]
    sens = rc.claims.prune_sensitivity((tr_, X_, y_))
    print(f"setting {k} ΔL/L: " + "; ".join(f"{n} {pct(d)}" for n, d in sens.items()))

# %%
prune_lazy = rc.claims.prune_loss((lazy1.final, X1[:N_CTL], y1[:N_CTL], rc.total_norm(lazy1.final)))
early = rc.claims.prune_loss((tr1.final, X1, y1, rc.total_norm(tr1.at(tr1.index_of_step(500)))))
print(f"lazy run at its end (context): ΔL/L {pct(prune_lazy['dl'], 1)}; early pruning (order of a "
      f"at t = 500), setting 1: ΔL/L {pct(early['dl'])}, prunable at ≤ 1 %: {rl(early['frac'])}")

# %% [markdown]
# **What we see.** Merged to 150 neurons, setting 1 keeps its loss within the paper's 0.1 %–0.3 % and settings 2 and 3
# lose it many times over (`merge.matched`, printed above); the std-$10^{-3}$ control, merged the same way, changes its
# loss by more than the tolerance. Pruning is harder than merging. At the matched training loss (≤ 0.2, reached by
# every run: setting 3 only after about 16 000 steps, printed), removing the lowest-$a$ half of setting 1 changes the
# loss by at most 1 % in {glue:text}`race-rate-prune1` seeds (`prune.setting1`); in settings 2 and 3 it does so in
# {glue:text}`race-rate-prune2` and {glue:text}`race-rate-prune3`, and the two lose about the same (a few per cent,
# printed). The paper's comparison is setting 3 against setting 2: at the matched loss of the published run setting 3
# lost more than setting 2 in 3 of 5 seeds and was prunable to a smaller fraction in only 1 of 5, so it is **not
# supported** there (we wrote before that it "holds against setting 1": that swapped the comparator). At the end of
# the run it is graded by `prune.compare` ({glue:text}`race-rate-prune-compare`, a consistency check: no run removes
# the difference between the settings). The random half (context) costs tens to hundreds of per cent in every seed of
# every setting; the order by $a$ selects among the neurons, but that is true of any trained network. At the end of the run
# (context, printed) the losses are smaller and the same cut costs more in relative terms in most seeds. Early
# pruning — the order of $a$ at $t=500$ applied to the final network — costs far more than pruning by the final norm
# (printed): the $t=500$ order mis-ranks some final neurons; which ones (e.g. the slower $\phi^{2*}$ group) is not
# measured. Printed, not graded.

# %% [markdown]
# **Racing: early $\cos\delta$ predicts the final norm.** Spearman's $\rho$ between $\cos\delta_\alpha(t)$ and
# the final $a_\alpha$, and the overlap of the top 10 % by each, at $t=0$ and $t=500$, per seed. Thresholds:
# setting 1 $\rho(0)>0.3$ ("to a large degree"; graded on $|\cos\delta(0)|$ since this revision, see below), $\rho(500)>0.8$ and $\rho(500)\ge\rho(0)$ ("very well");
# setting 2 $\rho>0.3$ at both times (§5: its $\cos\delta$ "still correlate to a large degree", setting 1's words),
# setting 3 $\rho>0.21$ ("still predictive"; one-sided $p<10^{-3}$ for 250 neurons) at both times; "sharper in
# setting 1": per seed, setting 1's $\rho(500)$ above those of settings 2 and 3. Consistency checks (no control): the lazy
# std-0.3 runs above, through the same correlations, are printed as context only (they are the initial state again);
# the shuffled pairing (printed in each note) is a swapped role, context only. **Since this revision the neurons dead
# at $t=0$** (no active image: $\gamma=0$, $\cos\delta=0$, $a$ never changes) **are left out** of every `predict.*`
# ranking: they tie at the bottom of both rankings and inflate $\rho$ (referee 1.4; expectations predicted before
# the run, ledger histories); their count and the old $\rho$ with them are printed below.

# %%
g_perm = gen(8)
pred_rows, rho_of, rho_ctl, a_shuf = [], {}, {}, {}
for k in SETTINGS:
    S = stats[k]
    a_shuf[k] = rc.shuffled(S["a_final"].double(), g_perm)
    for j in (0, i500):
        rho = rc.spearman(S["cd"][j].double(), S["a_final"].double())
        rho_of[k, SNAP_T[j]] = rho.numpy()
        rho_ctl[k, SNAP_T[j]] = rc.spearman(S["cd"][j].double(), a_shuf[k]).numpy()
        ov = rc.top_overlap(S["cd"][j], S["a_final"])
        rho_abs = rc.spearman(S["cd"][j].double().abs(), S["a_final"].double())
        for r in range(N_SEEDS):
            pred_rows.append(dict(setting=k, t=SNAP_T[j], seed=seed + r, rho=float(rho[r]),
                                  top10_overlap=float(ov[r]), rho_abs=float(rho_abs[r])))
# %%
pred = pd.DataFrame(pred_rows)
live_of = {k: rc.gating(runs[k][2].at(0), runs[k][0]).sum(-1) >= 1 for k in SETTINGS}  # N^e(0) >= 1
race_of = {k: (stats[k]["cd"][0], stats[k]["cd"][i500], stats[k]["a_final"], live_of[k])
           for k in SETTINGS}
shuf_of = {k: (c0, c5, a_shuf[k], lv) for k, (c0, c5, _, lv) in race_of.items()}
# "final" a read at t = 0
init_of = {k: (c0, c5, stats[k]["a"][0], lv) for k, (c0, c5, _, lv) in race_of.items()}
lazy_of = (S_lazy["cd"][0], S_lazy["cd"][i500], S_lazy["a_final"])          # the lazy control runs

# %%
PRED = {"predict.setting1.t0": 1, "predict.setting1.t500": 1, "predict.setting2": 2,
        "predict.setting3": 3}
view = {cid: rc.claims.abs_t0 if cid.endswith("t0") else tuple for cid in PRED}
for cid, k in PRED.items():
    shuf = {n: rl(v, 3) for n, v in rc.claims.rank_prediction(view[cid](shuf_of[k])).items()}
    ledger.measure(cid, view[cid](race_of[k]), init=view[cid](init_of[k]),
                   note=f"shuffled pairing (context): {shuf}")
ledger.measure("predict.sharper", [race_of[k][1:] for k in SETTINGS])
lazy_ctx = {cid: rc.claims.rank_prediction(view[cid](lazy_of)) for cid in PRED}
lazy_ctx["predict.sharper"] = rc.claims.sharper_prediction(
    [lazy_of[1:]] + [tuple(v[:N_CTL] for v in race_of[k][1:]) for k in (2, 3)])
for cid, v_ in lazy_ctx.items():
    ctx = {n: rl(v) for n, v in v_.items()}
    print(f"{cid}: {rate(cid)}; lazy run (context, not a control): {ctx}")
glue("race-rate-t0", rate("predict.setting1.t0"), display=False)

# %%
for k in SETTINGS:                                   # referee 1.4: dead-at-init neurons tie at 0
    v = (rc.claims.abs_t0 if k == 1 else tuple)(race_of[k])
    with_dead = rc.claims.rank_prediction(v[:3])
    print(f"setting {k}: neurons dead at t = 0 (N^e(0) = 0) per seed "
          f"{(~live_of[k]).sum(-1).tolist()} of 250; ρ graded without them "
          f"{rl(rc.claims.rank_prediction(v)['rho0'])} (t = 0), with "
          f"them (context, as before this revision) {rl(with_dead['rho0'])} (t = 0), "
          f"{rl(with_dead['rho500'])} (t = 500)")
pred.groupby(["setting", "t"])[["rho", "rho_abs", "top10_overlap"]].agg(["mean", "min", "max"])


# %% [markdown]
# **What we see.** At $t=0$ the signed $\cos\delta_\alpha$ ranks the final norms only moderately: a neuron
# whose $w^{(1)}$ points away from its $\langle\gamma\rangle$ can still win, because its outgoing vector turns
# fast (eq. 15) and $\langle\gamma\rangle$ turns with it; $|\cos\delta(0)|$ ranks better (column `rho_abs`). The
# sign of $\cos\delta(0)$ is set by the random $\phi(0)$, that is by which target a neuron races to, while Thm. 4.1
# makes the alignment $|\cos(w^{(1)},m^1)|$ the predictor; so `predict.setting1.t0` ranks $|\cos\delta(0)|$ since this
# revision ({glue:text}`race-rate-t0`; the signed $\rho$ stays in the table as context). By
# $t=500$, still on the plateau, the ranking is much sharper in setting 1. With std 0.01 (settings 2, 3)
# the prediction is weaker and varies from seed to seed (pass rates above).

# %% [markdown]
# **Exponential growth in $\cos\delta$ before the drop (Fig. 1c, lower left).** Eq. 19 says
# $\log a_\alpha\approx A+B\cos\delta_\alpha$ at a fixed early time. We fit it on the neurons with $\cos\delta$
# above the median, per seed, at $t=500$. **Rule change:** an earlier version graded only $R^2\ge0.8$ of
# this fit, which any smooth increasing relation over the narrow range fitted also passes. The rule now
# also asks that the exponential form fit better than a power law $\log a=A+B\log\cos\delta$ (same
# monotonicity, same number of parameters). A synthetic $a=\cos^k\delta$ on the same neurons (its $R^2$ printed) is
# context: it fits the power law exactly by construction. A consistency check since this revision: the lazy std-0.3
# runs at $t=500$ (printed) are the initial state again, so they cannot pass. The frozen-gating form below fits better than the exponential form in every seed (printed in the note). For context
# we also fit the closed form the theory gives if the gating were frozen, $a=\|w^{(1)}_\perp\|^2\cos\delta/\sin^2\delta$,
# i.e. $\log a$ linear in $\log(\cos\delta/\sin^2\delta)$.

# %%
cd_500, a_500 = S1["cd"][i500], S1["a"][i500]
fits = pd.DataFrame([dict(seed=seed + r, **rc.growth_form_fits(cd_500[r], a_500[r]))
                     for r in range(N_SEEDS)])
fits_ctl = pd.DataFrame([rc.growth_form_fits(cd_500[r], rc.power_law_like(cd_500[r], a_500[r]))
                         for r in range(N_SEEDS)])

# %%
ulk = ledger.measure("unlock.exp-fit", (cd_500, a_500), init=(S1["cd"][0], S1["a"][0]),
                     note="R² of the frozen-gating form: " + str(rl(fits.r2_frozen, 3)))
r2_lazy = rc.claims.growth_form((S_lazy["cd"][i500], S_lazy["a"][i500]))["r2_exp"]
print(f"exponential form: {rate('unlock.exp-fit')}; R² exponential {rl(fits.r2_exp, 3)}, "
      f"power law {rl(fits.r2_pow, 3)}; on the power-law control R²_exp = {rl(fits_ctl.r2_exp, 3)} "
      f"(the old rule R² ≥ 0.8 alone would accept it in {int((fits_ctl.r2_exp >= 0.8).sum())}/"
      f"{N_SEEDS}); lazy run (context) R²_exp {rl(r2_lazy, 3)}")
fits

# %% [markdown]
# On these neurons, at this time, a straight line in $\cos\delta$ and one in $\log\cos\delta$ fit $\log a$
# about equally well: the pass rate printed above is the share of seeds in which the exponential form is
# the better of the two, and the control shows that $R^2$ alone does not tell them apart.


# %% [markdown]
# ### Two supergroups at two speeds (Figure 5)
# Neurons whose final $\phi_\alpha$ is nearer $3\pi/4$ (they push class 2) are drawn at $-\cos\delta_\alpha$, so
# that they fill the left half. The paper sees the $\phi^{2*}$ group evolve slightly more slowly. We
# measure each group's pace by the first recorded step (setting 1 is recorded at least every 100 steps)
# at which its summed $a$ reaches half its final value. **Rule change:** an earlier version recorded only
# log-spaced snapshots, both groups then crossed on the same snapshot in every run, and that tie was
# graded as "not reproduced"; a tie is now *inconclusive*, and the dense record lets the times differ.
# This is graded as a **consistency check** in this revision: its old control compared the $\phi^{1*}$ group with
# itself, which is not a counterfactual run, and the run that would be one (setting 1 with the two class
# labels exchanged, so that a pace set by the classes would reverse) costs another 20 000-step setting-1 run,
# beyond the chapter's time budget. The time to ten times the initial $\Sigma a$ is printed for context (not graded).

# %%
grp1 = (rc.angle_gap(S1["phi_final"], rc.PHI1).abs() < math.pi / 2)   # (R, m): final φ nearer 7π/4
aT = rc.total_norm(tr1.params)                                          # (T, R, m)
tot_g = [(aT * mask).sum(-1) for mask in (grp1, ~grp1)]                 # per group (T, R)
cross = dict(below=False, interpolate=False)
t10 = np.stack([first_crossing(tr1.steps, tot, 10 * tot[0], **cross) for tot in tot_g])
thalf = np.stack([first_crossing(tr1.steps, tot, 0.5 * tot[-1], **cross) for tot in tot_g])
ledger.measure("fig5.two-speeds", tr1,
               note=f"10× the initial Σa (not graded): φ¹* {t10[0].tolist()}, φ²* "
                    f"{t10[1].tolist()}; group sizes φ¹* {grp1.sum(-1).tolist()}")
n_inc = sum(v == "inconclusive" for v in ledger.results["fig5.two-speeds"].verdicts)
print(f"half the final Σa: φ¹* {thalf[0].tolist()}, φ²* {thalf[1].tolist()} -> "
      f"{rate('fig5.two-speeds')} ({n_inc} inconclusive); 10× the initial Σa: φ¹* "
      f"{t10[0].tolist()}, φ²* {t10[1].tolist()}")

# %% tags=["hide-input"]
t_show = [s for s in SNAP_T if s in (0, 250, 500, 1000, 2000)]


def fig5(r):
    """Figure 5 for seed run ``r``: ±cos δ (left: the φ²* group) against current a."""
    cd = [S1["cd"][SNAP_T.index(s), r] for s in t_show]
    pm = [(torch.where(grp1[r], c, -c), S1["a"][SNAP_T.index(s), r], S1["a_final"][r], f"$t$ = {s}")
          for c, s in zip(cd, t_show)]
    return rc_plots.scatter_grid([pm], f"Figure 5 — setting 1, seed {seed + r}: the two "
                                 "supergroups ($\\pm\\cos\\delta_\\alpha$; left: "
                                 "the $\\phi^{2*}$ group)")


glue_seeds("race-fig5", [fig5(r) for r in range(N_SEEDS)],
           [f"seed {seed + r}: half the final Σa at step {thalf[0, r]} (φ¹*) and "
            f"{thalf[1, r]} (φ²*)"
            for r in range(N_SEEDS)], labels=SEED_LABELS)

# %% [markdown]
# ```{glue:figure} race-fig5
# :name: race-fig5
#
# **Figure 5 of the paper** (setting 1, one seed at a time: choose it above the figure, the note under it gives
# that seed's half-final times). Current $a_\alpha$ against $\cos\delta_\alpha$
# for the neurons whose final $\phi$ is near $7\pi/4$ (right half) and against $-\cos\delta_\alpha$ for those near
# $3\pi/4$ (left half), at five early times; darker = larger final $a$. The paper sees the left half move
# slightly later; compare the two halves at $t=500$–$1000$. The graded number is the step at which each
# group reaches half its final $\Sigma a$ (`fig5.two-speeds`).
# ```

# %% [markdown]
# The pass rate above counts the seeds in which the $\phi^{2*}$ group reaches half its final $\Sigma a$ on a
# later snapshot than the $\phi^{1*}$ group, among the seeds where the two times differ; the earlier
# growth (ten times the initial $\Sigma a$) is printed beside it for context. The half-final times fall long
# after the drop, where SGD spikes still move $\Sigma a$, and the two groups' times are a few snapshots apart
# at most, so a seed's verdict depends on the exact SGD path: when this chapter went from training the seeds in
# one batch to training them one after another (the same mini-batches; float32 results equal to rounding over
# a short run), the rounding differences, grown over 20 000 steps, reversed the order of the two times in one
# seed. The ordering is a weak signal here, whatever its pass rate.

# %% [markdown]
# ### Alignment theorems on the CIFAR runs
# **Theorem 4.1.** Every $\Delta y^s$ is parallel to $(1,-1)$, so the gradient of $w^{(2)}_\alpha$ is too:
# the component $w^{(2)}_\alpha\cdot(1,1)$ never moves (under SGD and momentum as well), and $\phi_\alpha$
# reaches $7\pi/4$ or $3\pi/4$ only as $\|w^{(2)}_\alpha\|$ outgrows that frozen component. Which of the two
# is set by the sign of $w^{(1)}_\alpha\cdot(\xi_1-\xi_2)$ (eqs. 10–12) — at **fixed gating**. We evaluate the
# theorem's rule on the network at $t=500$ (on the plateau) and compare with the target each settled
# neuron (within 1°) reaches at the end. The premise is measured: at most 5 % of the gates $g^s_\alpha$ may
# have changed between $t=0$ and $t=500$; where more have changed the claim is not graded (*premise not
# met*). **Changed in this revision.** (i) The theorem holds the gating fixed *while $\phi_\alpha$ converges*,
# i.e. after the time at which its rule is read, so the premise now counts the gates that change **after**
# the prediction time (the largest share of gates, over the recorded steps from $t_{\rm pred}$ to the end,
# that differ from those at $t_{\rm pred}$); the old premise counted changes before it. (ii) The claim is graded
# on the full-batch XOR toy of Figure 2 ($t_{\rm pred}=750$, on its plateau), the cheapest setting without SGD
# noise; CIFAR setting 1 ($t_{\rm pred}=500$) is measured the same way and printed in the note. (iii) The
# control was the rule with its two targets exchanged (a perturbed prediction); it is now a run: the std-1
# toy runs of Figure 4 (lazy regime), whose outgoing vectors barely turn, so almost none settles on a target
# (the control's values are in the ledger). In both settings the gating does not stay fixed after $t_{\rm pred}$
# (printed): on the toy the points of the two neighbouring clusters lie on the gating boundary of a neuron
# aligned with a cluster, and they switch as the neuron grows, so every neuron changes about a third of its
# gates; on CIFAR the loss drop itself re-gates the network. **Changed in round 12 (referee 2.4):** counted over the
# whole run, that count includes the four drops, long after $\phi$ has settled; the theorem needs the gating fixed
# only while $\phi$ converges. The premise now counts, per neuron, the gates that change from $t_{\rm pred}$ to that
# neuron's own $t_{\rm set}$ (first recorded step within 1° of a target; as in `thm4.1.window`), averaged over the
# settling neurons, at most 5 % (history; expectation observed from a throwaway full-size probe of the toy, 0.03–0.04
# against 0.05: a small margin). The whole-run count is printed beside. With this window `thm4.1.targets` is the row
# for Theorem 4.1; `thm4.1.window` reads the rule at $t=0$, before the plateau, outside the theorem. An earlier version
# evaluated the rule on the network at the end of training, where the gating has long changed; that
# agreement is shown as context. The agreement at $t_{\rm pred}=750$ printed below is near-tautological (once the
# growing mode dominates, the sign of $q$ is the side $\phi$ is already on) and is not evidence. **Read its pass rate
# with that in mind:** with the per-neuron window the premise holds and the row is graded, but what it shows is that
# the neurons settle with their gating (nearly) fixed and on the side the rule names on the plateau; its control, the
# std-1 toy runs, fails through `share` (they do not settle), not through the rule. A test of the rule's link before
# the plateau is `thm4.1.window` (at $t=0$, a consistency check). **Props. 4.2–4.3.** While $\|\Delta y\|\approx\sqrt2/2$,
# $\langle\gamma_\alpha\rangle\propto\cos(7\pi/4-\phi_\alpha)\,m^1_\alpha$, so $|\cos\angle(\langle\gamma_\alpha\rangle,m^1_\alpha)|\approx1$
# for every neuron, whatever its $\phi_\alpha$. At $t=0$ this holds by construction of the small init, so it is
# graded as a **consistency check** now (its old control, the end of training, is printed beside it).

# %%
fin1 = tr1.final.to(F64)
X1d = X1.double()
af1 = rc.total_norm(fin1)
near = rc.target_gap(rc.phi(fin1)) < math.radians(1)
share_near = ((af1 * near).sum(-1) / af1.sum(-1)).numpy()

# %%
P0_1 = tr1.at(0).to(F64)
early = [i for i, s in enumerate(tr1.steps) if s <= 500]
# (T_early, R): the share of gates changed since t = 0
changed_t = np.stack([rc.gate_change(P0_1, tr1.at(i).to(F64), X1d).numpy() for i in early])
i_last = [early[int(np.nonzero(changed_t[:, r] <= 0.05)[0].max())] for r in range(N_SEEDS)]
agree_last = [rc.rule_agreement(rc.run_block(tr1.at(i), r, r + 1).to(F64),
                                rc.run_block(fin1, r, r + 1), X1d[r:r + 1], y1[r:r + 1])
              for r, i in enumerate(i_last)]
P500 = tr1.at(tr1.index_of_step(500)).to(F64)
# %%
agree = rc.rule_agreement(P500, fin1, X1d, y1)
# %%
agree_end = rc.rule_agreement(fin1, fin1, X1d, y1)
w2sum = tr1.params.W2.sum(-2)                                          # (T, R, m)
drift11 = float((w2sum - w2sum[0]).abs().max() / tr1.params.W2.abs().amax())
T_PRED = XOR_STEPS // 8                      # on the toy's plateau (recorded in Fig. 4's runs too)
lazy_runs = [4 * g_ + 3 for g_ in range(N_SEEDS)]                      # the std-1 runs of Fig. 4
xor4_lazy = xor4.run(lazy_runs)
tc = rc.claims.phi_targets((tr1, X1, y1), 500, stride=4)              # context: every 4th snapshot
steps_last, agree_l = [int(tr1.steps[i]) for i in i_last], rl([a[0][0] for a in agree_last])

# %%
note_t = (f"CIFAR setting 1 the same way (t_pred = 500): share {rl(tc['share'])}, agree_n "
          f"{rl(tc['agree_n'])}, gates changed after t_pred {rl(tc['changed'])}; rule evaluated "
          f"at the end (outside the premise): by count {rl(agree_end[0])}; last recorded step "
          f"with ≤ 5 % of the gates changed since t = 0 {steps_last}, rule there: by count "
          f"{agree_l}; "
          f"w2·(1,1) moved by {drift11:.1e} of max|W2| (float32)")
ledger.measure("thm4.1.targets", (xor_main, Xr[:N_SEEDS], yr[:N_SEEDS]), t_pred=T_PRED, note=note_t,
               controls={"lazy": (xor4_lazy, X4[lazy_runs], yr[:N_SEEDS])})
thm = ledger.results["thm4.1.targets"].values
print(f"toy: gates changed from t = {T_PRED} to each neuron's t_set {rl(thm['changed'], 3)} "
      f"(whole network to the end: {rl(thm['changed_all'], 3)}); rule at t = {T_PRED} vs "
      f"final target (by count) {rl(thm['agree_n'], 3)} -> {rate('thm4.1.targets')}; CIFAR: gates "
      f"changed after t = 500 {rl(tc['changed'], 3)}, rule at t = 500 (by count) {rl(agree[0], 3)}")
print(f"last recorded step with ≤ 5 % of the gates changed: {steps_last}; the rule evaluated there "
      f"gives the final target for {agree_l} of the settled neurons (by count); "
      f"evaluated at the end: {rl(agree_end[0])}")

# %% [markdown]
# **Theorem 4.1 from $t=0$, where its premise holds (new in this revision).** The premise above is read over the
# whole network; the theorem is a statement about one neuron while *its* gating is fixed. So we read both rules on the
# toy network at $t=0$ and follow each neuron only until its $\phi$ first comes within 1° of a target ($t_{\rm set}$),
# keeping the neurons whose gating stays fixed over that window (at most 1 % of their gates differ from $t=0$ at every
# recorded step up to $t_{\rm set}$). The premise then holds by selection, for one or two percent of the settled
# neurons (printed), not for the network; and at a balanced init $\phi$ settles through the growth of $v$ at the same
# rate as $w^{(1)}$ turns, so Prop. 4.3's "$w^{(2)}$ already aligned" never holds before $w^{(1)}$ moves. Reading the
# theorem's rule at $t=0$ for the final target is the chapter's reading: the theorem gives the target for the current
# $w^{(1)}$ "as long as" its sign holds. With 11–23 neurons per seed, 0.95 allows at most one miss. Two rules are compared on these neurons: the theorem's $\operatorname{sign}w^{(1)}\cdot(\xi_1-\xi_2)$
# (`thm4.1.window`) and the sign of $q_0+v_0$ that the fixed-gating linear flow says decides it (`thm4.1.linear-sign`;
# $q=\tilde w^{(1)}\cdot\hat m^1$, $v=w^{(2)}\cdot(1,-1)/\sqrt2$, $\dot q=kv$, $\dot v=kq$, so the growing mode is
# $v\propto(q_0+v_0)e^{k\tau}$). With a balanced small init $|v_0|$ is of the order of $|q_0|$, so the two rules differ
# for the neurons whose $v_0$ opposes $q_0$ and outweighs it. Both are consistency checks: the std-1 toy runs of Figure 4
# (printed) remove convergence, not the link from the initial state to the target (their few settled neurons follow
# $q_0+v_0$ too). Both expectations were written before the first run; `thm4.1.linear-sign`'s missed and is observed.

# %%
xyN = (Xr[:N_SEEDS], yr[:N_SEEDS])
win = ledger.measure("thm4.1.window", (xor_main, *xyN), t_pred=0)               # consistency checks
ledger.measure("thm4.1.linear-sign", (xor_main, *xyN), t_pred=0)
win_lazy = rc.claims.settle_targets((xor4_lazy, X4[lazy_runs], yr[:N_SEEDS]), t_pred=0)  # context
wv = win.values
print(f"settled neurons {rl(wv['settled'])}, of them with their gating fixed until they settle "
      f"{rl(wv['fixed'], 3)} ({rc.ints(wv['n_ok'])} neurons); theorem's rule at t = 0 right for "
      f"{rl(wv['agree_thm'], 3)} -> {rate('thm4.1.window')}; sign of q0 + v0 right for "
      f"{rl(wv['agree_lin'], 3)} -> {rate('thm4.1.linear-sign')}; lazy runs: n_ok "
      f"{rc.ints(win_lazy['n_ok'])}, agree_lin {rl(win_lazy['agree_lin'], 3)}")
pooled = rc.claims.pooled_agreement(wv, ("agree_lin", "agree_thm"))
print("pooled over the seeds (referee 2.7, context):", pooled)

# %% [markdown]
# **What this says about "lottery or race".** Every neuron of the toy settles on a target, but only one or two percent
# of them keep their gating from $t=0$ until $\phi$ settles (printed): for almost every neuron the gating changes while
# it turns, which is why the whole-network premise above is never met. On the neurons where the premise does hold, the
# theorem's rule read at $t=0$ names the final target only for a part of them, fewer than the linear flow's sign of
# $q_0+v_0$ (shares and pass rates printed): at $t=0$ the outgoing vector's $v_0$ is as large as $q_0$ and decides the
# target where it opposes $q_0$ with $|v_0|>|q_0|$. In the growing mode $q=v=\tfrac12(q_0+v_0)e^{k\tau}$, so $|q|\gg|v|$
# never happens: the two rules differ only for those neurons, and that is decided at $t=0$. Within one gating group (the same $m^1$, so the same rate $k$)
# the linear flow orders the neurons by $|q_0+v_0|$; between groups it orders them by $k=\|m^1\|/(\sqrt2N)$,
# exponentially in time. So where the premise holds, the outcome is a deterministic function of the initial condition
# read through a dynamics — a race whose starting positions are random, not a draw. We grade the target (which of the
# two races), not the ranking of the winners inside a group: with the gating of almost every neuron changing before it
# settles, that ranking is outside the linear flow.

# %%
P_e = rc.at_steps(tr1, [0, 500, int(tr1.steps[-1])]).to(F64)
cgm = cosine(rc.gamma(P_e, X1d, y1), rc.target_m1(P_e, X1d, y1)).abs()          # (3, R, m)
live = rc.gating(P_e, X1d).sum(-1) > 0                                          # N^e ≥ 1
cmin = torch.where(live, cgm, torch.full_like(cgm, math.inf)).amin(-1).numpy()  # (3, R)
ledger.measure("prop4.2-4.3.gamma-m", (tr1.at(0), X1, y1),
               note=f"at t = 500: {rl(cmin[1], 4)}; neurons with an empty effective set at t = 0: "
                    f"{int((~live[0]).sum())} of {N_SEEDS} × 250")
print(f"min |cos(⟨γ⟩, m¹)| at t = 0, 500, end: {rl(cmin[0], 6)}, {rl(cmin[1], 4)}, "
      f"{rl(cmin[2], 3)} -> {rate('prop4.2-4.3.gamma-m')}")

# %% [markdown]
# **Prop. 4.2 over time.** With fixed gating the incoming vector's fixed point is the direction of
# $\langle\gamma_\alpha\rangle$; in the running network both move, and the paper's Fig. 1c shows the winners well
# aligned by $t=500$. We follow the mean $\cos\delta_\alpha$ of the 25 neurons of largest final $a$ at every recorded
# step up to $t=500$ (every 100 steps, and every 50 in $[250, 500]$): per seed it must rise with time, read as
# Spearman's rank correlation of the step with the mean $\ge0.9$ (since round 12; it was the share of rising steps,
# ≥ 90 %, which one noisy 1–3-step interval of batch-4 SGD fails; history), and by at least 0.1 over the plateau. Control: setting 2 (std $10^{-2}$), where the paper sees the
# tendency to align reduced, measured the same way on its recorded steps.

# %%
rot = ledger.measure("prop4.2.w1-to-gamma", txy(1), controls={"setting2": txy(2)})
rv, rcv = rot.values, rot.control_values
print(f"mean cos δ of the 25 largest, setting 1: t = 0 {rl(rv['c0'], 3)}, t = 500 "
      f"{rl(rv['c500'], 3)}, Spearman rho(t) {rl(rv['rho'], 3)} (rising at {rl(rv['up'])}) -> "
      f"{rate('prop4.2.w1-to-gamma')}; setting 2 (control): {rl(rcv['c0'], 3)} → "
      f"{rl(rcv['c500'], 3)}, rho {rl(rcv['rho'], 3)}")

# %% [markdown]
# The mean $\cos\delta$ of the winners rises over the plateau in every seed (printed above), but not at nearly
# every recorded step: the record includes log-spaced steps early on, where one SGD step of batch 4 moves the
# mean by less than its noise, so the share of rising steps (printed, context) stays below 90 % in most seeds;
# the rank correlation reads the rise over the whole window instead. The pass rate above is what the ledger grades;
# the setting-2 control fails on the rise $c_{500}-c_0$ whatever its $\rho$.

# %% [markdown]
# **The frozen-gating closed form over time (Props. 4.2–4.3, App. E).** Fix a neuron's gating, its error
# vectors at $\hat y=(\frac12,\frac12)$ (so $\|\Delta y\|=\sqrt2/2$) and write the bias as one more input
# coordinate ($\tilde w=[w^{(1)},b]$, $\tilde x=[x,1]$). The mean-loss flow is then linear: with
# $\tilde m^1_\alpha$ the $m^1$ of eq. 13 in these coordinates, $q=\tilde w\cdot\hat m^1$, $v=w^{(2)}\cdot(1,-1)/\sqrt2$ and
# $k=\|\tilde m^1\|/(\sqrt2N)$, $\dot q=kv$, $\dot v=kq$, and $\tilde w-q\hat m^1$ does not move, so
# $q(\tau)=\frac12[(q_0+v_0)e^{k\tau}+(q_0-v_0)e^{-k\tau}]$ and $\tilde w$ turns towards $\tilde m^1$ — the target of
# Props. 4.2–4.3 — at a rate set by $k$. We start this closed form from each neuron of setting 1 at $t=0$ and
# compare its $\cos\angle(\tilde w(\tau),\tilde m^1)$ with the network's at **every recorded step** up to $t=500$
# ($\tau=\lambda_{\rm eff}t$), on the neurons whose gating stays fixed (at most 1 % of their gates change).
# Premises: at least half the neurons keep their gating, the outputs stay below 0.05, and a rerun with half
# the step (same init and mini-batch orders, twice the steps) changes the error by less than 25 %. Control
# (new in this revision; it was the no-rotation *prediction*, $\tilde w$ keeping its initial direction): a
# **run** of the same seeds up to $t=500$, same init and mini-batches, with $w^{(1)}$ and $b$ frozen, so that the
# incoming vectors cannot turn, measured the same way. A second claim, declared after the
# reduced-size run had shown that only a quarter to a third of the neurons keep their gating up to $t=500$
# (so that the first claim's premise fails), grades every neuron only inside its own window of fixed gating
# (from $t=0$ to its last recorded step with at most 1 % of its gates changed), provided at least 10 windows
# reach $t=250$.

# %%
fz, fz_ctl = rc.frozen_flow_check(tr1, X1, y1, LR / (1 - MOM), 500)
rec_h = [2 * int(s_) for s_ in tr1.steps if s_ <= 500]
p1_0 = rc.race_init(250, 1024, STD1, generator(seed + 100), runs=(N_SEEDS,))   # setting 1's init
sgd1 = dict(loss=CE, momentum=MOM, batch_size=4, seed=batch_seeds(1, N_SEEDS))
tr1h = train(p1_0, X1, y1, lr=LR / 2, steps=rec_h[-1], record=rec_h, **sgd1)
fz_h = rc.claims.frozen_flow((tr1h, X1, y1), LR / 2 / (1 - MOM), rec_h[-1])
rec_f = [int(s_) for s_ in tr1.steps if s_ <= 500]
# the control: w1 and b cannot turn
tr1f = train(p1_0, X1, y1, lr=LR, steps=500, record=rec_f, trainable=("W2", "b2"), **sgd1)
fz_kw = dict(tau_scale=LR / (1 - MOM), t_max=500)           # no control (referee 1.2)
gap_f, gap_w = (np.abs(fz_h[n] / fz[n] - 1) for n in ("err", "err_w"))
ledger.measure("prop4.3.frozen-flow", (tr1, X1, y1), premises=dict(gap=gap_f), **fz_kw)
ledger.measure("prop4.3.frozen-window", (tr1, X1, y1), premises=dict(gap=gap_w), **fz_kw)

# %%
fz_c = rc.claims.frozen_flow((tr1f, X1, y1), **fz_kw)          # w1 frozen: context
print(f"frozen closed form, setting 1, t ≤ 500, fixed-gating neurons ({rl(fz['fixed'])} of them): "
      f"max |Δcos| {rl(fz['err'], 3)} (no rotation: {rl(fz_ctl['err'], 3)}; w1 frozen: "
      f"{rl(fz_c['err'], 3)}), median rise of cos {rl(fz['rise'], 3)} -> "
      f"{rate('prop4.3.frozen-flow')}")
print(f"each neuron inside its own window: {rl(fz['err_w'], 3)} (no rotation: "
      f"{rl(fz_ctl['err_w'], 3)}; half step: {rl(fz_h['err_w'], 3)}; windows reaching t = 250: "
      f"{fz['n_long'].tolist()}) -> {rate('prop4.3.frozen-window')}")

# %% [markdown]
# **What we see.** Neither version is graded, and the printed numbers say why. Only a minority of the neurons
# keep their gating over the plateau (the first claim's premise), and the run with half the step moves the
# error by much more than the declared 25 % (the second's): with batch 4 the mini-batch noise, which shrinks
# with the step, turns the incoming vectors about as much as the flow does over $t\le500$, so this run does
# not stand for the gradient flow the closed form solves. The closed form is still closer to the run than the
# no-rotation model in every seed (printed), but the gap between them is small in some seeds.
#
# **A run that stands for the flow (new in this revision).** Full-batch plain GD from the same init on the same
# images, with $\lambda=0.02$ for 250 steps (flow time $\tau\le5$, as $t\le500$ above), recorded every 10 steps, and
# the same with $\lambda=0.01$ for 500 steps for the step-halving premise. The runs with $w^{(1)}$ and $b$ frozen
# are printed as context only: with the gating frozen their error is the closed form's own rise (the same for SGD
# and GD), a prediction renamed as a run, so the three frozen rows are consistency checks since round 12 (referee
# 1.2, history). The first claim's premise (half of the neurons fixed) fails on the GD run too (0.22–0.29 on the
# published run): `prop4.3.frozen-flow`'s statement stays **untested** (referee 3.3). `prop4.3.frozen-window-gd` grades the closed form inside each neuron's window on these runs (the
# second claim's rule and premises; the first claim's premise, half of the neurons fixed, is not met here either:
# printed). Its expectation was set after an exploratory run of two seeds (see its history in the ledger).
# **An extension, not the paper's statement** (referee 3.5): the paper states only the fixed points of Props. 4.2–4.3;
# the closed form graded here is this chapter's, so its row does not count towards the statement's verdict at the top.

# %%
GD_LR, GD_T = 0.02, 250
rec_gd = list(range(0, GD_T + 1, 10))
gd = train(p1_0, X1, y1, loss=CE, lr=GD_LR, steps=GD_T, record=rec_gd)     # full batch, plain GD
gd_h = train(p1_0, X1, y1, loss=CE, lr=GD_LR / 2, steps=2 * GD_T, record=[2 * s_ for s_ in rec_gd])
gd_f = train(p1_0, X1, y1, loss=CE, lr=GD_LR, steps=GD_T, record=rec_gd, trainable=("W2", "b2"))
fz_gd_h = rc.claims.frozen_flow((gd_h, X1, y1), GD_LR / 2, 2 * GD_T)
gap_gd = np.abs(fz_gd_h["err_w"] / rc.claims.frozen_flow((gd, X1, y1), GD_LR, GD_T)["err_w"] - 1)
gdw = ledger.measure("prop4.3.frozen-window-gd", (gd, X1, y1), tau_scale=GD_LR, t_max=GD_T,
                     premises=dict(gap=gap_gd))
gv, gc = gdw.values, rc.claims.frozen_flow((gd_f, X1, y1), GD_LR, GD_T)      # w1 frozen: context
print(f"full-batch GD: inside each neuron's window max |Δcos| {rl(gv['err_w'], 3)} (w1 frozen: "
      f"{rl(gc['err_w'], 3)}; half step: {rl(fz_gd_h['err_w'], 3)}); fixed-gating share "
      f"{rl(gv['fixed'])}; windows reaching half the time {gv['n_long']}; max |z| "
      f"{rl(gv['zmax'], 3)} -> {rate('prop4.3.frozen-window-gd')}")

# %% [markdown]
# **Prop. 4.4: the initial alignment stays on simple data.** App. E's corrections to the target of
# $w^{(1)}$ involve the higher moments of the effective data; the paper expects them to matter only after the
# loss drops, and not at all for a data set as simple as Figure 2's: "the initial alignment remains the
# same". Per seed we take the 20 neurons of largest final $a$ of the toy run of Figure 2 and measure the
# $a$-weighted mean angle between $w^{(1)}_\alpha$ when the loss first falls below $0.95\ln2$ and at the end
# (rule: ≤ 5°). The same measurement on CIFAR setting 1, where the paper expects the targets to keep moving,
# is printed as context: it was the control, dropped in round 12 (referee 1.4: a row expected to fail whose control
# fails too says nothing), so the row is a consistency check.

# %%
stay = ledger.measure("prop4.4.xor-stays", xor_main)             # no control (referee 1.4)
stay_c = rc.claims.winner_drift(tr1)                               # CIFAR setting 1, context
print(f"drift of the winners' w1 after the loss leaves the plateau: XOR "
      f"{rl(stay.values['drift'], 2)}° (from t = {stay.values['t_off']}); CIFAR setting 1 "
      f"{rl(stay_c['drift'], 1)}° -> {rate('prop4.4.xor-stays')}")

# %% [markdown]
# **What we see.** On the toy the winners keep their direction far better than on CIFAR (printed: the CIFAR
# control turns several times more), as the paper expects — but not within the declared 5°: after the loss
# leaves the plateau the winning neurons still turn by more than that (printed), while the other clusters are
# fitted; we have not measured which change of their targets turns them. "The initial alignment remains the
# same" holds here only in the comparative sense.

# %%
ledger.measure("eqs4-8.cifar", [(rc.run_net(P500, r), X1d[r], y1[r]) for r in range(N_SEEDS)])

# %% [markdown]
# **Appendix G.** For a neuron with $\phi_\alpha=7\pi/4$, $\partial\langle\|\Delta y\|\rangle_\alpha/\partial a_\alpha=\frac12\|m^1\|\cos(\pi+\Delta)$
# (average over the effective set, $m^1$ normalised by $N^e$), negative when $w^{(1)}_\alpha$ is close to $m^1$.
# For every seed we take the network at $t=0$ and, neuron after neuron, turn $w^{(2)}$ to $7\pi/4$ (norm
# kept) and $w^{(1)}$ onto $m^1$ (norm kept), and finite-difference the effective mean error against
# $a_\alpha$, for the first 20 neurons with at least 10 effective samples. The formula's $m^1$ is that of the
# neuron's *own* effective set, which the rotation itself changes; so the rotation is repeated until the
# gating no longer changes, and the alignment with the $m^1$ the formula uses is a measured premise.
# **Rule change:** an earlier version rotated once, onto the $m^1$ of the gating before the rotation;
# some neurons then pointed slightly *away* from the $m^1$ of their new gating, where the formula itself
# predicts a positive sign, and the test failed there. **A consistency check (changed in this revision):** the
# neurons are built by hand and their outputs are $\sim10^{-8}$, so the finite difference is the linearised formula
# itself; the former control ($w^{(2)}$ turned to $3\pi/4$) flipped the sign exactly, a negated prediction rather than
# a run without the mechanism. Testing the sign on the network's own winners near the drop against a lazy run's
# largest neurons needs new runs and is listed under "Not done" below.

# %%
aligned = [(rc.aligned_neurons(rc.run_net(tr1.at(0), r, F64), X1d[r], y1[r]), X1d[r], y1[r])
           for r in range(N_SEEDS)]
appg = ledger.measure("appG.sign", aligned)
ag = appg.values
print(f"App. G: share of negative derivatives per seed {rl(ag['neg'])}, max deviation from the "
      f"formula {rl(ag['dev'], 5)}, min cos(w1, m¹) {rl(ag['cos_min'], 4)} -> {rate('appG.sign')}")

# %% [markdown]
# ## Settings 2 and 3 (Figures 6, 7, 8)
# Setting 2: the same images, init std 0.01. Setting 3: 2000 images, batch 32, std 0.01.

# %%
def fig6(r):
    """Figure 6 for seed run ``r``: clustered cosine matrices, settings 2 and 3."""
    rows6 = [[cos_panel(runs[k][2], s, f"setting {k}, $t$ = {s}", r)
              for s in t_cm[:-1] + [SETTINGS[k]["steps"]]] for k in (2, 3)]
    return rc_plots.cos_grid(rows6, "Figure 6 — cosine similarity of $\\theta_\\alpha$, clustered, "
                             f"seed {seed + r}: (a) setting 2, (b) setting 3")


glue_seeds("race-fig6", [fig6(r) for r in range(N_SEEDS)],
           [f"seed {seed + r}" for r in range(N_SEEDS)], labels=SEED_LABELS)

# %% [markdown]
# ```{glue:figure} race-fig6
# :name: race-fig6
#
# **Figure 6 of the paper.** Cosine similarities of the total vectors $\theta_\alpha$ (one seed at a time: choose it above the figure),
# each matrix reordered by clustering, for setting 2 (top) and setting 3 (bottom), from $t=0$ to the end of
# each run. Compare the size and sharpness of the blocks with Figure 1(b) (setting 1) and between the two
# rows; the paper sees stronger alignment in setting 3 than in setting 2 (graded by `align.s3-vs-s2`).
# ```

# %% tags=["hide-input"]
t7 = [0, 500, 2000, "end"]
j7 = [0, i500, SNAP_T.index(2000) if 2000 in SNAP_T else -1, -1]
T7 = ("loss, and current $a_\\alpha$ against current $\\cos\\delta_\\alpha$ "
      "(darker: larger final $a$)")


def fig7(r):
    """Figure 7 for seed run ``r``: loss, and current a against current cos δ, settings 2 and 3."""
    rows7 = [[(S["cd"][j, r], S["a"][j, r], S["a_final"][r], f"$t$ = {t}")
              for t, j in zip(t7, j7)] for S in (stats[2], stats[3])]
    loss7 = [(runs[k][2].steps, runs[k][2].loss[:, r], f"({'ab'[i]}) setting {k}: loss")
             for i, k in enumerate((2, 3))]
    return rc_plots.scatter_grid(rows7, f"Figure 7 — seed {seed + r}: " + T7, loss_rows=loss7)


glue_seeds("race-fig7", [fig7(r) for r in range(N_SEEDS)],
           [f"seed {seed + r}: final loss setting 2 {float(runs[2][2].loss[-1, r]):.4f}, setting 3 "
            f"{float(runs[3][2].loss[-1, r]):.4f}" for r in range(N_SEEDS)],
           labels=SEED_LABELS)

# %% [markdown]
# ```{glue:figure} race-fig7
# :name: race-fig7
#
# **Figure 7 of the paper** (one seed at a time: choose it above the figure). Left: the full training loss of (a) setting 2 and (b)
# setting 3 (log scale; no plateau at $\ln2$ with std 0.01). Right: current $a_\alpha$ against current
# $\cos\delta_\alpha$ at four times, darker = larger final $a$. The paper sees the exponential growth in
# $\cos\delta$ "less clearly defined" than in setting 1 (Figure 1c), and still less in setting 3.
# ```

# %% [markdown]
# **"Less clearly defined" (Figure 7), measured, not graded.** The $R^2$ of the exponential form
# $\log a=A+B\cos\delta$ at $t=500$ (the fit of `unlock.exp-fit`, on the neurons with $\cos\delta$ above the median) per
# setting and seed. It is printed, not graded: at $t=500$ setting 2's loss is already 0.95–0.97 $\ln2$, so $t=500$ is not
# "right before the loss drops" in settings 2 and 3; grading $R^2_1>R^2_2>R^2_3$ at each setting's own pre-drop time
# needs that time measured per setting (Not done).

# %%
r2_exp = {k: rl([rc.growth_form_fits(stats[k]["cd"][i500, r], stats[k]["a"][i500, r])["r2_exp"]
                 for r in range(N_SEEDS)], 3) for k in SETTINGS}
print("R² of log a = A + B cos δ at t = 500: "
      + "; ".join(f"setting {k}: {v}" for k, v in r2_exp.items()))

# %%
def fig8(r):
    """Figure 8 for seed run ``r``: final a against early cos δ, settings 2 and 3."""
    rows8 = [[(stats[k]["cd"][j, r], stats[k]["a_final"][r], stats[k]["a_final"][r],
               f"setting {k}: final $a$ vs $\\cos\\delta(t={s})$")
              for k in (2, 3) for s, j in ((0, 0), (500, i500))]]
    return rc_plots.scatter_grid(rows8, f"Figure 8 — seed {seed + r}: early $\\cos\\delta_\\alpha$ "
                                 "against final $a_\\alpha$, settings 2 (left) and 3 (right)")


glue_seeds("race-fig8", [fig8(r) for r in range(N_SEEDS)],
           [f"seed {seed + r}: Spearman ρ at t = 0, 500: setting 2 "
            f"{rl([rho_of[2, t][r] for t in (0, SNAP_T[i500])])}, setting 3 "
            f"{rl([rho_of[3, t][r] for t in (0, SNAP_T[i500])])}" for r in range(N_SEEDS)],
           labels=SEED_LABELS)

# %% [markdown]
# ```{glue:figure} race-fig8
# :name: race-fig8
#
# **Figure 8 of the paper** (one seed at a time: choose it above the figure, the note under it gives that seed's
# Spearman ρ). Final $a_\alpha$ against $\cos\delta_\alpha$ at $t=0$ and
# $t=500$, setting 2 (left pair) and setting 3 (right pair). The paper: the early $\cos\delta$ "still
# correlates to a large degree" with the final norm; the rank correlations are graded by
# `predict.setting2` and `predict.setting3`, and compared with setting 1's (Figure 1c, right column) by
# `predict.sharper`.
# ```

# %% [markdown]
# Two more statements of §5, per seed: in setting 2 "the initial plateau disappears" (the loss at $t=500$
# already more than 1 % below $\ln2$; control, changed in this revision: setting 1's own runs, an init a hundred
# times smaller on the same images, through the same measurement in every seed), and setting 3 aligns more strongly
# than setting 2 (the mean $|\cos|$ between the $\theta$ of the 25 neurons of largest final $a$, at the end, larger
# in setting 3). The previous control, the std-$10^{-3}$ runs, was itself close to leaving the plateau by $t=500$
# and landed at 95 % of the threshold; and the rule's former second term (setting 1 still on its plateau) could not
# fail in a full run, since the notebook stops earlier unless it holds.
# The latter is a **consistency check** now: its old control, setting 3 at $t=0$, is the untrained network
# (graded as the initial state), and a counterfactual run without the larger data set is setting 2 itself.

# %%
ledger.measure("plateau.setting2", (tr1, runs[2][2]))         # consistency: setting 1 is context
tr2, tr3 = runs[2][2], runs[3][2]
al = ledger.measure("align.s3-vs-s2", (tr2.final, tr3.final), init=(tr2.at(0), tr3.at(0)),
                    note=f"converged at the end of the run: setting 2 {rc.ints(conv[2])}, "
                         f"setting 3 {rc.ints(conv[3])}")
print(f"loss at t = 500 / ln 2: setting 1 {rl(L500[1], 3)}, setting 2 {rl(L500[2], 3)} -> "
      f"{rate('plateau.setting2')}")
print(f"alignment of the 25 largest: setting 2 {rl(al.values['al2'], 3)}, setting 3 "
      f"{rl(al.values['al3'], 3)} -> {rate('align.s3-vs-s2')}")

# %% [markdown]
# **What we see.** With std 0.01 the loss leaves $\ln2$ at once, the norms still spread over two decades
# and the neurons still form two opposite blocks (Fig. 6). Setting 3 runs as long as settings 1 and 2
# (20 000 steps, 320 epochs of batch 32), and by the declared criterion it has converged in
# {glue:text}`race-conv3` of its seed runs (final losses printed after its training): at the same step size
# 2000 images take longer to fit than 200. Its "final" quantities (Figs. 6–8, `align.s3-vs-s2`,
# `predict.setting3`, `predict.sharper`, `top-share`, `merge.setting3`) are those at step 20 000, the end of
# the declared run length, and where that run has not converged they describe a network still fitting its
# data; the convergence per seed is in the notes of `align.s3-vs-s2` and `merge.setting3`.

# %% [markdown]
# **Winners starve losers.** The share of $\sum_\alpha a_\alpha$ held by the top 10 % of neurons at the end.
# The paper: the more complex the task, the more races, the less pronounced the differences — so
# the share should fall from setting 1 to 2 to 3 ("less sparsity"; setting 2's larger init also
# blurs the race). A **consistency check**: its old control, setting 1 at $t=0$, is the untrained network
# (graded as the initial state now); the lazy run of the racing section could be its control (Not done).

# %%
share = {k: rc.top_share(stats[k]["a_final"].double()).numpy() for k in SETTINGS}
share1_init = rc.top_share(rc.total_norm(tr1.at(0)).double()).numpy()
trs = [runs[k][2] for k in SETTINGS]
ledger.measure("top-share", tuple(t.final for t in trs), init=tuple(t.at(0) for t in trs))
print("top-10 % share of Σa: " + "; ".join(f"setting {k}: {rl(v, 3)}" for k, v in share.items())
      + f"; setting 1 at t = 0: {rl(share1_init, 3)} -> {rate('top-share')}")

# %% [markdown]
# ## Errata, checked
# **E8 — the exact conserved quantity includes the bias.** Under gradient flow
# $\frac{d}{dt}(\|w^{(2)}\|^2-\|w^{(1)}\|^2-b^2)=0$ exactly, while the paper's eq. 84 omits $b^2$. App. F states
# the assumption $b_\alpha\approx0$ just before eqs. 83–84, so eq. 84 is correct to $O(b^2)$ in the paper's regime;
# the test below leaves that regime on purpose and is a **consistency check** of the exact invariant (changed in
# this revision: its former control, the biases frozen at 0, made both quantities equal by identity). We run
# full-batch plain GD in float64 on the toy of each seed (50 neurons, init std 0.1 so that the biases grow,
# $\lambda=10^{-3}$) and track both versions relative to the largest $a$. GD stands in for the flow here:
# the premise is that halving the step (over the same flow time) changes the paper's drift by less
# than 5 %. The same measurement on a run with a step fifty times larger
# ($\lambda=0.05$, same flow time) is graded as the coarse run: the rule must fail there.
#
# **E11 — the growth rate misses a factor 2.** With $c\approx0$, eq. 91 gives
# $\dot a=2\lambda\|\langle\gamma\rangle\|\cos\delta\,a$, not eq. 18's $\lambda\|\langle\gamma\rangle\|\cos\delta\,a$. (i) exact: from
# the toy run of Figure 2 of each seed (before its first drop), one plain GD step in float64 gives
# $\Delta a/\lambda$, which we divide by eq. 90 (should be 1) and by eq. 18 (should be 2) over the 20
# neurons of largest $a$ (premise: halving that step changes the quotient by < 1 %); (ii) on CIFAR
# setting 1, the measured $d\log a/dt$ between $t=250$ and $t=500$ of the 10 largest neurons against
# $\lambda_{\rm eff}$ times eq. 90 and eq. 18 divided by $a$ ($\lambda_{\rm eff}=0.01$, mean of both ends). The two are
# **separate claims** since the erratum's premise, $c\approx0$, is measurable and holds only on the toy: the CIFAR init
# is unbalanced ($\|w^{(1)}\|^2\approx1024\,\text{std}^2$ vs $\|w^{(2)}\|^2\approx2\,\text{std}^2$), and by the paper's
# own eq. 91 the exact factor is then $(\|w^{(1)}\|^2+\|w^{(2)}\|^2)/a$, not 2. So `erratum.E11-cifar` is graded only
# where that factor is within 10 % of 2 (a declared premise). **Rule change:** an earlier version graded the toy and
# CIFAR parts in one rule, so the toy's exact factor 2 was reported as not reproduced because of a CIFAR measurement
# outside the erratum's premise; the toy's rule is unchanged. **Both are consistency checks in this revision.** The
# toy's one-step quotient checks algebra: eq. 90 is the exact flow derivative for $b=0$, and eq. 18 understates it by
# the exact factor $(\|w^{(1)}\|^2+\|w^{(2)}\|^2)/a\ge2$ (AM–GM), equal to 2 when $c=0$; its former control (the same
# networks unbalanced) returned that factor by the same algebra. The CIFAR claim repeated its premise in its rule,
# which alone rejected its control (setting 2), whose $c_{18}$ fell inside the band in one seed of the published
# run; it is superseded by `erratum.E11-balanced` below, where the premise holds.
# Also printed (context, not graded): the measured CIFAR rate against eq. 90 itself, with
# eq. 90's rate averaged over the two ends of the window and integrated over it from snapshots every 50 steps.
# Eq. 90 is the exact $\dot a$ for $b=0$ under gradient flow, whatever $c$; the CIFAR runs are SGD with batch 4
# and momentum, with biases, and their measured rate falls short of it (ratios in the note of `erratum.E11-cifar`).
# Averaging the rate over the window does not explain that (the integrated ratio is only a few percent above the
# other); what is left — mini-batch noise, whose mean effect on $\log a$ is negative, and the biases — is outside
# the premises of both formulas and is not measured here: the CIFAR ratio to eq. 90 stays an open observation,
# not a graded claim.

# %%
pc = rc.race_init(50, 2, 0.1, gen(9), runs=(N_SEEDS,), dtype=F64)
n_c = 1000 if quick else 5000
yE = y_x.expand(N_SEEDS, -1).clone()
toy = dict(loss=CE, grad_fn=rc.toy_gradients)
trc = train(pc, X_xs, yE, lr=1e-3, steps=n_c, record=linear_schedule(n_c, 100), **toy)
trh = train(pc, X_xs, yE, lr=5e-4, steps=2 * n_c, record=linear_schedule(2 * n_c, 200), **toy)
# %%
d_ok, d_paper = rc.conservation_drifts(trc.params)
gap = np.abs(rc.conservation_drifts(trh.params)[1] / d_paper - 1)
trg = train(pc, X_xs, yE, lr=5e-2, steps=n_c // 50, record=linear_schedule(n_c // 50, 2), **toy)
ledger.measure("erratum.E8-conservation", trc, coarse=trg, premises=dict(gap=gap),
               note=f"final max |b| {rl(trc.final.b1.abs().amax(-1), 2)}")
print(f"E8: drift with b² {rc.sci(d_ok)}, without (paper) {rc.sci(d_paper)} -> "
      f"{rate('erratum.E8-conservation')}")

# %%
pre_nets, t_pre = [], []
for r in range(N_SEEDS):
    xr = xor.run(r)
    dr = drops(xor.steps, Lx[:, r], rel=0.05)
    # half-way to the first drop
    i_pre = max(xr.index_of_step(int(xor.steps[dr[0]]) // 2) if dr else 1, 1)
    pre_nets.append(xr.at(i_pre).to(F64))
    t_pre.append(int(xor.steps[i_pre]))
# %%
P0, P1 = tr1.at(tr1.index_of_step(250)), tr1.at(tr1.index_of_step(500))
a0_, a1_ = rc.total_norm(P0), rc.total_norm(P1)
slope = (a1_.log() - a0_.log()) / 250                                 # measured d log a / dt
g0_, g1_ = rc.growth_rates(P0, X1, y1), rc.growth_rates(P1, X1, y1)
lam_eff = LR / (1 - MOM)
top1 = torch.topk(a1_, 10, -1).indices                                # (R, 10)
g_mean = {n: 0.5 * (g0_[n] / a0_ + g1_[n] / a1_) for n in ("eq90", "eq18")}   # mean of the two ends
c_r90 = rc.median_at(slope / (lam_eff * g_mean["eq90"]), top1).numpy()
c_r18 = rc.median_at(slope / (lam_eff * g_mean["eq18"]), top1).numpy()
c_fac = rc.median_at(0.5 * (g0_["eq90"] / g0_["eq18"] + g1_["eq90"] / g1_["eq18"]), top1).numpy()
# %%
i_win = [i for i, s_ in enumerate(tr1.steps) if 250 <= s_ <= 500]      # every 50 steps (record_of)
r_win = torch.stack([rc.growth_rates(tr1.at(i), X1, y1)["eq90"] / rc.total_norm(tr1.at(i))
                     for i in i_win])
t_win = torch.as_tensor(tr1.steps[i_win], dtype=r_win.dtype)
pred_int = lam_eff * torch.trapezoid(r_win, t_win, dim=0)
c_int90 = rc.median_at((a1_.log() - a0_.log()) / pred_int, top1).numpy()   # measured ÷ integrated

# %%
pre = rc.stack_nets(pre_nets)
e11 = ledger.measure("erratum.E11-factor2", (pre, X_xs, y_x.expand(N_SEEDS, -1)),
                     note=f"toy step at t = {t_pre}")
r90, r18 = np.array(e11.values["r90"]), np.array(e11.values["r18"])
ledger.measure("erratum.E11-cifar", (tr1, X1, y1), lam_eff=lam_eff,
               note=f"÷ (λ_eff × eq. 90 / a, mean of the two ends) = {rl(c_r90)}, ÷ (λ_eff × "
                    f"eq. 90 / a integrated every 50 steps) = {rl(c_int90)}, exact factor "
                    f"(‖w1‖² + ‖w2‖²)/a = {rl(c_fac)}")
print(f"E11 toy: Δa/λ ÷ eq. 90 = {rl(r90, 4)}, ÷ eq. 18 = {rl(r18, 3)}; CIFAR ÷ eq. 18 = "
      f"{rl(c_r18)} (exact factor {rl(c_fac)}) -> toy {rate('erratum.E11-factor2')}, "
      f"CIFAR {rate('erratum.E11-cifar')}")

# %% [markdown]
# **E11 where its premise holds (new in this revision).** The CIFAR init is unbalanced, so `erratum.E11-cifar` is
# never graded. We rebalance every neuron of setting 1's init ($\|\tilde w^{(1)}\|=\|w^{(2)}\|$, the same function
# and the same $a$: `rc.rebalanced`), train it like setting 1 (same images, SGD, mini-batch orders) for 500 steps,
# and measure the same growth rates. A consistency check: setting 1's own (unbalanced) runs land in the same band in two
# seeds, so they are no control of the rate; balance is the premise, not the graded quantity. Its
# expectation was first written before any run of it, and it was wrong: we predicted that the shortfall of
# the measured rate against eq. 90 seen in setting 1 would stay and leave $c_{18}$ below the band, but with
# balanced neurons the shortfall is smaller (printed: the rate against eq. 90), and the factor 2 is reproduced
# in most seeds (pass rate printed). The expectation is now a guard copied from that result (the claim's history).
# **What this does not show** (referee 3.4): the premise $c\approx0$ holds, but this batch-4 SGD run does not stand
# for the flow (the step-halving check of the frozen rows fails by 27–39 % on the published run), the rate against
# eq. 90 is 0.72–0.88 there, not 1, and the pass comes from a ±20 % band around 2 ($c_{18}$ 1.46–1.77): it is not
# "where the premise holds". **Its replacement for E11 is `erratum.E11-balanced-gd` below** (full-batch GD,
# step-halving premise); this row stays as a consistency check.

# %%
tr1b = rc.train_each(rc.rebalanced(p1_0), X1, y1, lr=LR, steps=500, record=[0, 250, 500], **sgd1)
e11b = ledger.measure("erratum.E11-balanced", (tr1b, X1, y1), lam_eff=lam_eff)   # consistency check
eb = e11b.values
print(f"E11 balanced: ÷ eq. 18 = {rl(eb['c18'])}, ÷ eq. 90 = {rl(eb['c90'])}, exact factor "
      f"{rl(eb['c_fac'], 3)} -> {rate('erratum.E11-balanced')}")

# %% [markdown]
# **Eq. 19 neuron by neuron (new in this revision).** Setting 1's init rebalanced ($c=0$), trained by full-batch plain
# GD ($\lambda=0.02$, 50 steps, flow time $\tau\le1$, on the plateau), recorded every 5 steps. Per seed, the measured
# $d\log\tilde a_\alpha/d\tau$ of every neuron and interval against $2\|\tilde\gamma_\alpha\|\cos\tilde\delta_\alpha$
# (the bias as an input coordinate): `eq19.growth-law` grades a slope within 2 % of 1, with the step-halving run as its
# premise. **This row is an identity and cannot fail** (referee 1.3): with the bias as an input coordinate,
# $d\tilde a/d\tau=\|\tilde\gamma\|\cos\tilde\delta\,(\|\tilde w^{(1)}\|^2+\|w^{(2)}\|^2)$ holds exactly under the flow, which
# is $2\tilde a\|\tilde\gamma\|\cos\tilde\delta$ at $c=0$, and the step-halving premise already forces the slope to 1; $c$ is
# read at $t=0$ only, and the window ($\tau\le1$) ends long before unlocking. So it checks the GD run against the flow;
# it is **not evidence that $a$ grows exponentially in $\cos\delta$** (the statement's verdict above does not count it).
# The same GD with $w^{(1)}$ and $b$ frozen (printed, two seeds) reads half the slope by the same algebra: context, not
# a control. A test of eq. 19 proper — over the whole plateau, predicting $\log\tilde a(\tau)/\tilde a(\tau_u)$ from
# the rate at $\tau_u$, with $c$ checked over the window — needs a longer GD run (estimated ~30–60 s; not done).

# %%
G19_LR, G19_T = 0.02, 50
pb_0, n_ = rc.rebalanced(p1_0), N_CTL
rec19 = list(range(0, G19_T + 1, 5))
g19 = train(pb_0, X1, y1, loss=CE, lr=G19_LR, steps=G19_T, record=rec19)
g19_h = train(pb_0, X1, y1, loss=CE, lr=G19_LR / 2, steps=2 * G19_T, record=[2 * t for t in rec19])
g19_f = train(rc.head_runs(pb_0, n_), X1[:n_], y1[:n_], loss=CE, lr=G19_LR, steps=G19_T,
              record=rec19, trainable=("W2", "b2"))                   # w1 and b frozen (context)
gl_h = rc.claims.growth_law((g19_h, X1, y1), G19_LR / 2)
gl_f = rc.claims.growth_law((g19_f, X1[:n_], y1[:n_]), G19_LR)
slope19 = rc.claims.growth_law((g19, X1, y1), G19_LR)["slope"]
gl = ledger.measure("eq19.growth-law", (g19, X1, y1), tau_scale=G19_LR,
                    premises=dict(gap=np.abs(gl_h["slope"] / slope19 - 1)))
print(f"eq. 19 (c = 0, GD): slope {rl(gl.values['slope'], 4)}, R² {rl(gl.values['r2'], 4)}, "
      f"half step {rl(gl_h['slope'], 4)}; w1 frozen (context): {rl(gl_f['slope'], 3)} "
      f"-> {rate('eq19.growth-law')}")

# %% [markdown]
# **E11 on the full-batch GD run (new in the seventh round).** `erratum.E11-balanced` above reads the factor 2 on
# batch-4 SGD, where an unbalanced run lands in the same band. The same run as eq. 19's — setting 1's init rebalanced
# ($c=0$), full-batch GD with $\lambda=0.02$ — lets us grade it where both premises can hold: between steps 20 and 50
# (flow time 0.4 → 1), $\Delta\log a/\Delta t$ of the 10 largest live neurons (a dead one has rate and slope 0: at
# $\tau\le1$ the largest are still the init's largest) divided by $\lambda$ times eq. 18's rate
# ($c_{18}$, should be 2) within 10 % (`erratum.E11-balanced-gd`); premises: $c_{\rm fac}\le2.2$, and the same measured
# on the half-step run (steps 40 → 100) within 5 %. Control: the same GD from setting 1's own unbalanced init (the
# run of `prop4.3.frozen-window-gd`), where $c_{18}$ should follow $c_{\rm fac}$ and leave the band. No new training
# (both runs exist). Declared, with its expectation predicted, and committed before the run that graded it:
# {glue:text}`race-rate-e11gd`.

# %%
e11_kw = dict(lam_eff=G19_LR, t0=20, t1=50, live_only=True)
c18_h = rc.claims.cifar_growth((g19_h, X1, y1), G19_LR / 2, t0=40, t1=100, live_only=True)["c18"]
gap_e11 = np.abs(c18_h / rc.claims.cifar_growth((g19, X1, y1), **e11_kw)["c18"] - 1)
e11g = ledger.measure("erratum.E11-balanced-gd", (g19, X1, y1), premises=dict(gap=gap_e11),
                      controls={"unbalanced_gd": (gd, X1, y1)}, **e11_kw)
eg, ec = e11g.values, e11g.control_values
print(f"E11 balanced, full-batch GD (steps 20 → 50): ÷ eq. 18 = {rl(eg['c18'], 3)}, ÷ eq. 90 = "
      f"{rl(eg['c90'], 3)}, exact factor {rl(eg['c_fac'], 3)}; half step ÷ eq. 18 = {rl(c18_h, 3)}"
      f" -> {rate('erratum.E11-balanced-gd')}; unbalanced (control): ÷ eq. 18 = {rl(ec['c18'], 3)}")
glue("race-rate-e11gd", rate("erratum.E11-balanced-gd"), display=False)

# %% [markdown]
# **E15 — setting 3 is not underparameterized by parameter count.** The paper calls setting 3
# underparameterized "in the conventional sense of less parameters than samples". We count the parameters
# of the network setting 3 trains and the samples it is trained on; this is a count, not an experiment,
# so it is a consistency check (no control). **Rule change:** an earlier version compared two typed
# constants and could not fail. **E7** — at initialisation $\|\Delta y\|\approx\sqrt2/2$, not 0.5
# (App. C.2). **E6** — App. C writes the fixed point as $7\pi/3$; it is $7\pi/4$: $\partial L/\partial\phi$
# vanishes there and not at $7\pi/3$. Both are identities at the small init (consistency checks), per seed.

# %%
X3, y3, tr3 = runs[3]
ledger.measure("erratum.E15-params", (rc.run_net(tr3.final, 0), X3[0]))
# %%
ledger.measure("erratum.E6-E7", [(rc.run_net(tr1.at(0), r, F64), X1d[r], y1[r])
                                 for r in range(N_SEEDS)])
n_par = rc.n_parameters(rc.run_net(tr3.final, 0))
print(f"E15: {n_par:,} parameters, {X3.shape[-2]} samples -> {rate('erratum.E15-params')}; "
      f"E6-E7: {rate('erratum.E6-E7')}")

# %% [markdown]
# Other slips of the text, stated rather than measured: the gating vector has one entry
# per *sample*; Prop. 4.2 is about the *incoming* vector and $n$ is an integer; the angular
# distance must be the vector angle beyond 2-D (used throughout); eq. 86's sign and eq. 90's
# missing $\cos\delta$ do not affect eq. 88/91; both sums of eqs. 75–76 run over $\beta/\!/C_1$, so the
# printed $Q\equiv0$ (App. E is qualitative); eq. 71 should use $w^{(2)}_{\beta,0}$; the text says
# std 0.01 is a *reduction* from setting 1's "low scale" init, which must be an increase; eq. 98's
# $w_{\alpha'}$ is $w_\alpha$.

# %%
print(f"chapter run time: {time.time() - T_START:.0f} s")

# %% [markdown]
# ## What changed in this revision
# The claims moved to the ledger's new form: each declares one measurement function, which the ledger applies
# to the chapter's runs, to a **control run** and, where it is defined, to the untrained network (and, for E8,
# to a run with a far too coarse step); every verdict carries its margin and every claim a tier. Before, every
# reproduction claim was graded on values the notebook handed in (tier *legacy*). What each new control
# removes is said with its claim above and in the ledger. Changes to rules, premises, controls and
# expectations are listed, with their reasons, in each claim's history in the ledger. In short:
# - controls that were perturbed predictions or swapped roles are now runs: `thm4.1.targets` (std-1 toy runs),
#   `prop4.3.frozen-flow` and `prop4.3.frozen-window` (the same runs with frozen incoming weights),
#   `erratum.E11-factor2` (the same networks unbalanced), `erratum.E11-cifar` (setting 2), `plateau.setting2`
#   (the std-$10^{-3}$ runs);
# - `fig5.two-speeds` (no cheap counterfactual run), `align.s3-vs-s2` and `top-share` (their control was the
#   untrained network) and `prop4.2-4.3.gamma-m` (true at $t=0$ by construction) are consistency checks;
# - `thm4.1.targets` counts the gate changes after the prediction time and is graded on the full-batch toy;
# - three rules are rewritten so that their margin reads the decisive quantity, passing the same seeds:
#   `fig4.lazy` ($s_1-s_4\ge0.05$), `plateau.setting2` ($1-l_2>0.01$), `unlock.exp-fit` (the unexplained variances);
# - two claims are new, in settings where a premise that failed in every seed can hold:
#   `prop4.3.frozen-window-gd` (full-batch GD, which stands for the flow) and `erratum.E11-balanced` (balanced
#   neurons, $c\approx0$; its expectation was predicted before its first run, missed, and is now observed);
# - `appG.sign` keeps its control (the aligned neurons with $w^{(2)}$ at $3\pi/4$), now measured by the same function,
#   and the five identities (`eqs4-8.identities`, `eq15.ratio`, `eqs4-8.cifar`, `erratum.E15-params`,
#   `erratum.E6-E7`) declare their measurement too: no claim is left in the legacy form.
#
# **Second round (after a referee's report).** Changed without new runs:
# - `appG.sign` (an identity on hand-built neurons, its control a negated prediction), `erratum.E11-factor2` (algebra:
#   eq. 90 is the exact flow derivative), `erratum.E8-conservation` (an exact invariant; restated: eq. 84 holds under
#   the paper's own assumption $b\approx0$) and `erratum.E11-cifar` (superseded by `erratum.E11-balanced`; the premise
#   $c_{\rm fac}\le2.2$ is no longer repeated in its rule) are consistency checks, each with its reason;
# - `plateau.setting2`: rule $1-l_2>0.01$ alone, control setting 1's own runs in every seed (was the std-$10^{-3}$
#   runs at 95 % of the threshold, and a second term that could not fail in a full run);
# - every declared consistency check states why it is one (field `reason`); `predict.setting2`'s lower threshold
#   ($\rho>0.21$, against $\rho>0.3$ in `predict.setting1.t0`) follows the paper's weaker wording there ("still
#   correlates" against "to a large degree"); `predict.setting1.t0` ranks $|\cos\delta(0)|$, the alignment with
#   Thm. 4.1's target, instead of the signed $\cos\delta(0)$, whose sign only says which target a neuron races to.
#
# **Third round (issue "the theory tested where its premises hold").** New claims, each declared (and committed) before
# the first run that graded it; `prune.setting1` and `thm4.1.linear-sign` missed their predictions and are now
# *observed* (their histories), the others stay *predicted*; their rows are in the second table below:
# - a setting where Thm. 4.1's premise holds: `thm4.1.window` and `thm4.1.linear-sign` read the theorem's rule and the
#   fixed-gating linear flow's sign of $q_0+v_0$ at $t=0$ on the toy of Figure 2, neuron by neuron, on the neurons
#   whose gating stays fixed until their $\phi$ settles (control: the std-1 toy runs). This also closes the referee's
#   item 2.1 (gate changes per neuron up to its first step within 1° of its target);
# - pruning, tested nowhere before: `prune.setting1`–`3` (control: the same number of neurons removed at random), and
#   early pruning (the order of $a$ at $t=500$) printed beside;
# - merging at matched group counts: `merge.matched` (150 groups in every setting; control: the std-$10^{-3}$ runs).
#   This closes the referee's item 1.7;
# - printed, not graded: Figure 7's "less clearly defined" exponential growth ($R^2$ per setting at $t=500$, in that
#   section, with the reason it is not graded).
#
# **Not tested, and why** (issue items without a row):
# - Prop. 4.3's closed form is graded by `prop4.3.frozen-window-gd` (full-batch GD). Eq. 19's growth law was **not
#   graded** in this round (since the fifth, `eq19.growth-law` checks it as an identity): that run starts from setting 1's unbalanced init ($c_{\rm fac}$ 3.2–7.7) while eq. 19 needs $c\approx0$,
#   and its cosine tests $q(\tau)$, not $a$'s exponent $\propto\cos\delta$; it needs the GD run rebalanced and
#   $d\log a/d\tau$ regressed per neuron on $2\|\tilde\gamma\|\cos\delta$ (a new claim, ≈ 30 s and a strict run);
# - Prop. 4.5 for $\theta$ ("a similar observation holds"): for the incoming vector the ratio of the angular to the radial
#   gradient is $\|w^{(1)}\|\tan\delta_\alpha$ exactly, because $\nabla_{w^{(1)}}L=-\|w^{(2)}\|\langle\gamma\rangle$ (eq. 66),
#   which `eqs4-8.identities` already checks against autograd; a separate row would grade the same identity;
# - App. E's first-order correction to Prop. 4.4: as printed it vanishes identically (both sums of eqs. 75–76 run over
#   $\beta/\!/C_1$), an evident typo — the second sum should run over $\beta/\!/C_2$; with that fixed the correction is
#   testable against `prop4.4.xor-stays`' drift, not done in this round;
# - within a gating group, the ranking of the winners by the linear flow's $|q_0+v_0|$: most neurons change their
#   gating before they settle (printed under `thm4.1.window`), so the linear flow does not apply to them.
#
# **Fourth round (a referee's report on the third).** Controls that were no runs, or that failed only through a premise
# repeated inside the rule, are gone; each row below is now a *consistency check* with its reason (the last table
# gives its pass rate and tier now; its verdicts before were those of a reproduction with the control named):
# - `predict.*` (control: a shuffled pairing), `prune.setting1`–`3` (a random pruning order), `unlock.exp-fit` (a
#   synthetic power law), `fig4.lazy` (targets from the std-$10^{-4}$ run itself, $s_1\equiv1$), `plateau.setting2`
#   (setting 1, whose std was selected to stay on the plateau): none removes the mechanism by a real run;
# - `erratum.E11-balanced`: $c_{\rm fac}\le2.2$ is the premise only (it was also in the rule, and the unbalanced
#   control failed only there); `thm4.1.window`, `thm4.1.linear-sign`: $n_{\rm ok}\ge10$ is the premise only (the lazy
#   control failed only there). Pass rates unchanged; the controls would pass or do not remove the link they test;
# - `predict.setting2`: the threshold is setting 1's $\rho>0.3$, since §5 says "still correlate to a large degree"
#   (the tolerance had misquoted it), expectation 0–0.4 copied from the published run (1/5 there);
# - text: the pruning outcome (setting 3 is *easier* to prune than setting 2), early pruning (mis-ranking only), Thm.
#   4.1's $t=0$ reading and the minority it holds for, the $|q|\gg|v|$ slip, Figure 7's reason, eq. 19 (not graded).
#
# **Fifth round (issue 26: the theory tested where its premises hold).**
# - *What holds* at the top of the page: the paper's statements with their rows' pass rates and tiers, glued from
#   this run's ledger (`rc.claims.WHAT_HOLDS`; a unit test checks that it names every declared claim once);
# - a lazy control run (setting 1's first two image subsets from std 0.3, 4000 steps; $w^{(1)}$ moves by about 3 %,
#   printed) for `predict.*`, `prune.setting1`–`3` and `unlock.exp-fit`: each is a reproduction again, with that run
#   as its control (history entries; rules and measurements unchanged, `prune.*`'s expectations changed below). Its cost is in the chapter's
#   timing; 20 000 steps would cost five times more (a probe gave the same verdicts). The std was chosen by how far
#   $W^{(1)}$ moves: at std 0.05 (8 %) the $t=0$ correlation still reached 0.34 in a probe;
# - new: `eq19.growth-law`, eq. 19 neuron by neuron on setting 1's init rebalanced ($c=0$) and trained by full-batch GD,
#   with a step-halving premise; a consistency check (under its premises it is the exact derivative of $\tilde a$),
#   with the $w^{(1)}$-frozen run (half the slope) printed as context;
# - every figure drawn from one seed (Figures 1, 3–9) shows any of the five seeds (a switch above the figure); Figure 2
#   already did. None is left on seed 0 only.
# - `prune.setting1`–`3` are graded only where the run has converged at its end (premise, as `merge.setting1`):
#   setting 3 has converged in no seed, so `prune.setting3` is *premise not met*; expectations copied from the
#   published sweep's convergence (history entries).
#
# **Sixth round (a referee's report on the fifth; no new runs).**
# - `predict.*`, `unlock.exp-fit` and `prune.setting1`–`3` are consistency checks again (histories): the lazy std-0.3
#   run failed their rules only as the initial state again (`predict.*`, `unlock.exp-fit`: a Gaussian init's norms
#   are independent of its directions, and the ledger's init grading fails the same way) or through its large random
#   output (`prune.*`), and it is not comparable for setting 3; its std was chosen after a probe in which std 0.05
#   passed `rho0 > 0.3`. Its values stay printed beside each row (the table below gives before → after);
# - `merge.matched`: graded only where setting 1's run converged (premise, history); it tests setting 1 only;
# - the top table is now *The paper's statements, graded*: each statement's verdict read from its reproduction-tier
#   rows only, identities and this chapter's extensions (the fixed-gating closed form) named, App. G on its own line,
#   merging and pruning on separate lines; `eq19.growth-law` and `erratum.E11-balanced` say what they cannot show;
# - `predict.*` rank only the neurons alive at $t=0$ (referee 1.4; dead ones, about 3–8 % per setting, tie at the
#   bottom of both rankings): a new measurement, its expectations predicted and committed before the run (histories);
#   `predict.setting3`'s prediction (0–0.6) missed — it passes 4/5 as before, having only 2–5 dead neurons — and is
#   now observed (0.6–1, history);
# - printed, not graded: the dead counts and the old $\rho$ with them; pruning's rate over all seeds with the
#   unconverged count (2.3); `thm4.1.*` pooled over the seeds with a one-sided binomial bound (2.7).
#
# **Seventh round (issue 26's last acceptance gap; issue 27, code the next engineer can live in).**
# - `prune.setting1`–`3` are graded **at a matched training loss** (the first recorded snapshot with full training
#   loss ≤ 0.2, read from the snapshots already recorded: no new training), with the premise that the run reaches it
#   and a control run through the same measurement (the same snapshot's networks pruned in a random order). Declared
#   and committed before the run that graded it, expectations predicted (histories). Before, `prune.setting3` was
#   *premise not met* in every seed (no setting-3 run converges); the table below gives before → after. The end-of-run
#   pruning is printed beside as context. The fourth round's reading that setting 3 is *easier* to prune than
#   setting 2 does not survive: at the same loss the two lose about the same (setting 3 was read at a larger loss);
# - rows *premise not met* in every seed of this run, and where the statement is graded instead:
#   `thm4.1.targets` (the toy's gates keep changing after the prediction time) → `thm4.1.window`,
#   `thm4.1.linear-sign`, inside each neuron's fixed-gating window; `prop4.3.frozen-flow` and
#   `prop4.3.frozen-window` (SGD fails the step-halving premise) → `prop4.3.frozen-window-gd` on full-batch GD;
#   `erratum.E11-cifar` (setting 1's neurons are unbalanced, $c_{\rm fac}>2.2$) → `erratum.E11-balanced`;
# - code only, every value, verdict and note unchanged (checked on the reduced run, and against the published sweep
#   on the full one): the notebook's bookkeeping and printed forms moved into tested functions (`rc.runs`, the new
#   `rc.report`, `rc.measure.cluster_losses`, `rc.claims.abs_t0`), no lambdas, no code line over 100 characters;
#   `rc` has an explicit `__all__` and no longer re-exports `cosine`/`cosine_similarity_matrix`; one test file per
#   theory module;
# - new: `erratum.E11-balanced-gd`, E11's factor 2 on eq. 19's full-batch GD run with a step-halving premise and the
#   unbalanced GD run as its control (no new training), declared and predicted before its run.
#
# **Round 12 (a referee's report on the seventh round).** Each change to a rule, premise, control or expectation
# has a history entry, committed in a claims-only commit that says why:
# - tiers, no new runs: `prune.setting1`–`3` → consistency (1.1: the random order is a swapped role; printed as
#   context); `fig2.four-drops`, `prop4.4.xor-stays` → consistency, controls dropped (1.4: expected not reproduced,
#   their controls fail too); `prop4.3.frozen-flow`, `-window`, `-window-gd` → consistency (1.2: with $w^{(1)}$, $b$
#   frozen the error is the closed form's own rise; those runs printed as context);
# - new `prune.compare` (2.1–2.3, 3.2, 3.6): the paper's comparison, $g_3>g_2$ and $g_2,g_3>g_1$ with the scale-free
#   $g=(L_{\rm pruned}-L)/(\ln2-L)$ at the end of each run; consistency (no run removes the setting difference),
#   expectation left open (observed); sensitivity of the matched-loss rows to levels 0.15/0.2/0.3 and cuts 40/50/60 %
#   printed; the "holds against setting 1" reading withdrawn; the summary's pruning statement now names
#   `prune.compare` and merging is split into setting 1 (tested) and settings 2–3 (3.1);
# - `merge.matched`: the conjuncts on $dl_2$, $dl_3$ (which could not fail) dropped from the rule (1.3);
# - `thm4.1.targets`: premise window per neuron from $t_{\rm pred}$ to its own $t_{\rm set}$ (2.4), the statement's row
#   (3.5); expectation *premise not met* → 0.8–1, observed from a throwaway full-size probe of the toy (~150 s);
# - `prop4.2.w1-to-gamma`: Spearman $\rho(t,\overline{\cos\delta})\ge0.9$ instead of the share of rising steps (2.6);
# - `erratum.E11-balanced-gd` is back (3.4; the three reverted commits cherry-picked) as E11's replacement for
#   `erratum.E11-balanced`, which is not "where the premise holds".
#
# **Answered, not changed in round 12** (costs measured on this 2-core machine under load):
# - 2.7, `prop4.4.xor-stays` from each cluster's own drop, and 2.8, `fig2.four-drops` per cluster: ~1 s of compute
#   each on the recorded toy run, but each changes a measurement and needs a strict full run to publish (7–14 min);
# - 2.9, `fig5.two-speeds` on $t_{10}$: needs a label-swapped control run, ~3000 steps of setting 1 (~15 s), plus a
#   strict run;
# - 3.3: `prop4.3.frozen-flow`'s premise (half of the neurons fixed) fails on the GD run too (0.22–0.29), so its
#   statement stays untested; no cheaper setting is known where half the gates stay fixed over the plateau.
#
# **Still not done** (with costs; an expectation can be predicted before its run, so none waits on a probe):
# - the lazy control's replacements (referee 1.1, 1.2, 3.2): an antisymmetric (output-zero) lazy init for `prune.*`
#   and a std sweep $10^{-2}$–0.3 graded as a monotone fall of $\rho$ against $W^{(1)}$ movement (~15 s per std at
#   4000 steps), null predictors $a(0)$, $\|w^{(2)}(0)\|$, $N^e(0)$ beside $\cos\delta$ (~0 s); `unlock.exp-fit` on
#   $\log(a(500)/a(0))$ within each supergroup (~0 s);
# - a control run for `prune.compare`: the std-$10^{-3}$ runs in place of setting 1 (no new training: they exist for
#   `merge.matched`), not declared because a control that passes stops the strict run and no probe fit this round;
# - `merge.matched` at a fixed threshold would add nothing the rows `merge.setting1`–`3` do not already grade (they
#   merge at the paper's 0.999): dropped from this list;
# - measurement windows (compute ~1 s each; publishing needs a strict full run, 7–14 min): `prop4.3.frozen-window-gd`
#   on a percentile, `thm4.1.*` graded pooled, `fig4.lazy` against the clusters' $m^1$, `top-share` split into two
#   orderings and against the lazy run, the null predictors sign $v_0$, sign $q_0$ for `thm4.1.*`;
# - new runs: `fig5.two-speeds`' label-swapped run (~3000 steps, ~15 s); eq. 19 over the whole plateau on a longer
#   full-batch run (30–60 s), which would also let `erratum.E11-balanced-gd` read $c_{90}$ over the plateau; an
#   unselected std sweep for `plateau.setting2`, 500 steps per std and seed (~2 s each, ~10 s per std over 5 seeds);
#   pruning at $t=500$ then training on (a second 20 000-step run of setting 1, ~60 s per seed).
#
# **Not done in the second round** (each needs new runs; the chapter's full run has a 420 s budget and about 5 s of slack
# was left by the first round), with the referee's item and an estimate (1.7 and 2.1 are done in the third round):
# - `fig4.lazy` targets from the clusters' $m^1$
#   (1.9), `unlock.exp-fit` regressed per neuron on the full-batch GD run with a run as control (1.5, 2.3), `predict.*`
#   against a lazy-init run (1.6; done in the fifth round, withdrawn as a control in the sixth) and with the convergence premise (2.10),
#   `fig5.two-speeds` on $t_{10}$ with a label-swapped run (2.5, ~3000 steps, ~15 s),
#   geometric cluster norms for Figure 2 (2.6, a new toy run per seed, ~10 s);
# - measurement windows: `prop4.4.xor-stays` from each cluster's own drop (2.2), `prop4.2.w1-to-gamma` on a fixed 50-step
#   grid (2.4): each changes its measurement function and needs a strict run to set its expectation (~7 min each time);
# - `erratum.E11-balanced` on full-batch GD with a step-halving premise and $c_{90}\approx1$ graded (1.3, 3.2, ~30 s),
#   $b^2/a$ at unlocking in setting 1 (3.1), setting 3 run to convergence (2.8, 3.5: several minutes), one control
#   draw per seed (2.13), a within-group alignment measure (2.7), percentile statistics for the frozen windows (2.11),
#   merging at the last converged snapshot (2.12).
#
# The table compares, per migrated claim, the previous revision's verdicts (the published full-size sweep, made
# from commit 164b40b) with this run's, and gives the new tier with its reason.

# %%
# headline per claim in the previous revision's published full-size sweep (164b40b; legacy)
BEFORE = {
    "fig2.four-drops": "not reproduced 0/5", "fig2.speeds": "reproduced 5/5",
    "fig4.lazy": "reproduced 5/5", "merge.setting1": "reproduced 3/3",
    "merge.setting2": "reproduced 5/5", "merge.setting3": "reproduced 5/5",
    "predict.setting1.t0": "4/5", "predict.setting1.t500": "4/5", "predict.setting2": "2/5",
    "predict.setting3": "4/5", "predict.sharper": "reproduced 5/5", "unlock.exp-fit": "2/5",
    "fig5.two-speeds": "3/4", "thm4.1.targets": "premise not met (5)",
    "prop4.2-4.3.gamma-m": "reproduced 5/5", "prop4.2.w1-to-gamma": "2/5",
    "prop4.3.frozen-flow": "premise not met (5)", "prop4.3.frozen-window": "premise not met (5)",
    "prop4.4.xor-stays": "not reproduced 0/5", "plateau.setting2": "reproduced 5/5",
    "align.s3-vs-s2": "not reproduced 0/5", "top-share": "2/5",
    "erratum.E8-conservation": "reproduced 5/5", "erratum.E11-factor2": "reproduced 5/5",
    "erratum.E11-cifar": "premise not met (5)", "appG.sign": "reproduced 5/5",
}
rc.change_table(ledger.results, BEFORE, rate)

# %%
NEW3 = ["thm4.1.window", "thm4.1.linear-sign", "prune.setting1", "prune.setting2", "prune.setting3",
        "merge.matched"]
rc.change_table(ledger.results, {i: "— (new in the third round)" for i in NEW3}, rate,
                columns=("expected", "control", "tier", "why"))

# %%
# fourth round. Before: a reproduction; the published sweep (quantitative) or, *, round 3's run
CHANGED4 = {
    "predict.setting1.t0": "5/5", "predict.setting1.t500": "4/5",
    "predict.setting2": "2/5 (ρ > 0.21)", "predict.setting3": "4/5", "predict.sharper": "5/5",
    "unlock.exp-fit": "2/5", "fig4.lazy": "5/5",
    "plateau.setting2": "5/5", "erratum.E11-balanced": "4/5", "prune.setting1": "2/5 *",
    "prune.setting2": "0/5 *", "prune.setting3": "0/5 *", "thm4.1.window": "0/5 *",
    "thm4.1.linear-sign": "3/5 *",
}
rc.change_table(ledger.results, CHANGED4, rate, columns=("tier", "why"))

# %%
CHANGED5 = {  # fifth round. Before: the fourth round's published sweep (624cbbb), consistency
    "predict.setting1.t0": "5/5", "predict.setting1.t500": "4/5", "predict.setting2": "1/5",
    "predict.setting3": "4/5", "predict.sharper": "5/5", "prune.setting1": "2/5",
    "prune.setting2": "0/5", "prune.setting3": "0/5",
    "unlock.exp-fit": "2/5", "eq19.growth-law": "— (new)",  # prune.*: a convergence premise too
}
rc.change_table(ledger.results, CHANGED5, rate)

# %%
CHANGED6 = {  # sixth round. Before: the fifth round's published sweep (race-s11), headline (tier)
    "predict.setting1.t0": "5/5", "predict.setting1.t500": "4/5", "predict.setting2": "1/5",
    "predict.setting3": "4/5", "predict.sharper": "5/5", "unlock.exp-fit": "2/5",
    "prune.setting1": "2/3", "prune.setting2": "0/4",
    "prune.setting3": "premise not met (5) (not graded)", "merge.matched": "5/5"}
CHANGED6 = {i: b if "(" in b else f"{b} (quantitative)" for i, b in CHANGED6.items()}
rc.change_table(ledger.results, CHANGED6, rate, columns=("after_tier",))


# %%
# seventh round. Before: the sixth round's published sweep (consistency, at the end of the run)
CHANGED7 = {
    "prune.setting1": "2/3 (+2 premise not met)", "prune.setting2": "0/4 (+1 premise not met)",
    "prune.setting3": "premise not met (5)", "erratum.E11-balanced-gd": "— (new)"}
rc.change_table(ledger.results, CHANGED7, rate, columns=("expected", "control", "tier", "why"))


# %%
# round 12. Before: the published full sweep (sixth round), headline (tier)
CHANGED12 = {
    "fig2.four-drops": "0/5 (quantitative)", "prop4.4.xor-stays": "0/5 (quantitative)",
    "prop4.3.frozen-window-gd": "2/5 (quantitative)", "merge.matched": "3/3 (quantitative)",
    "thm4.1.targets": "premise not met (5)", "prop4.2.w1-to-gamma": "2/5 (quantitative)",
    "prune.compare": "— (new)"}
rc.change_table(ledger.results, CHANGED12, rate, columns=("after_tier", "expected"))

# %% [markdown]
# ## Claims ledger
# Every checkable statement this chapter tests: the declared rule, where its tolerance comes from, the
# measured values over the seeds, the per-seed verdicts and pass rate, and the negative control (which
# must fail the same rule). Declarations live in `03_race.claims.yaml` next to this notebook.

# %%
_ = glue_what_holds("race", ledger, rc.claims.graded_statements(ledger))

# %%
ch.finish()
