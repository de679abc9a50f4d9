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
# # Synthesis: one phenomenon, four lenses
#
# :::{note} Running this chapter yourself
# `make rerun CHAPTER=synthesis SEED=3` reruns it with another seed: {glue:text}`synthesis-rerun-full` at full size
# on a 2-core machine, {glue:text}`synthesis-rerun-quick` with `QUICK=1` (the last recorded timings). On Binder
# (the rocket icon above) the first start builds the environment of `binder/`, which takes several
# minutes; we have not timed it, since the machines that build this book cannot reach Binder. Binder's
# free machines are small, so expect at least the 2-core times there. Change `seed` in the cell
# tagged `parameters`, then run all cells.
# :::
#
# The four papers of this book look at the same regime — a two-layer network trained by gradient
# descent from a small initialisation — through different lenses:
#
# | paper | lens | what it predicts |
# |---|---|---|
# | Boursier et al. {cite}`boursier2022gradient` | phases on orthogonal inputs | align, fit the positives, plateau, fit the negatives; phase times $\approx\ln(1/\lambda)/\lVert D_\pm\rVert$ |
# | Min et al. {cite}`min2024early` | early alignment | neurons turn towards their signed active sum $x_a(w)$ and land in cones; the first layer ends low-rank |
# | Kunin et al. {cite}`kunin2025alternating` | saddle-to-saddle jumps (AGF) | a staircase of loss levels and jump times, computed by alternating utility maximisation and cost minimisation |
# | Pinson {cite}`pinson2026lottery` | racing | neurons race along their $\langle\gamma\rangle$ direction; early winners take the norm |
#
# This chapter tests whether **one paper's theory predicts another paper's experiment**, and grades
# a prediction only where the borrowed theorem's hypotheses hold (elsewhere the ledger says *premise
# not met* and the text reports an observation, not a test):
#
# 1. **AGF on the orthogonal-input data.** AGF's general algorithm (the numerical one of the
#    {doc}`04_agf` chapter, not a closed form written for this case) predicts the jump times and loss
#    levels of gradient descent on the orthonormal test bed of {doc}`01_orthogonal`, at the same
#    initialisations; we compare it with that paper's own leading-order phase times.
# 2. **The alignment paper's theory on the race paper's CIFAR-10 run.** The race network is an
#    alignment-paper network up to its trainable biases (below); we measure that paper's predictions — cones, alignment with
#    $x_a(w)$, a low-rank first layer — on setting 1 of {doc}`03_race`, where its data assumption fails.
# 3. **AGF on the race paper's XOR toy.** The same AGF algorithm, run from the race network's own
#    initialisation, predicts which of the four clusters the network fits at each loss drop, when, and
#    at what loss level.
#
# **Conventions.** Parts 1 and 3 use the square loss $L=\frac1{2n}\sum_k\lVert h(x_k)-y_k\rVert^2$,
# full-batch GD in float64, time $t=$ steps $\times$ step (gradient-flow time); AGF runs with $\eta=1$,
# so its clock is the same $t$. Part 2 uses the race chapter's setting 1: softmax cross-entropy (mean
# over the mini-batch), SGD with step $10^{-3}$, momentum 0.9, batch 4, float32; time in steps.

# %% [markdown]
# ## What holds
# Each cross-paper statement — which paper's theory predicts what, on which paper's experiment — with the
# claims of the ledger (at the bottom of the page) that grade it: the pass rate over the seeds, the claim's
# kind and its tier (*quantitative*, *loose bound*, *consistency*, *inconclusive*, *not graded*), filled in
# from this run's ledger.
#
# ```{glue:} synthesis-what-holds
# ```

# %% [markdown]
# **Choices** (no paper prescribes these cross experiments)
#
# | what | our choice | why |
# |---|---|---|
# | part 1 data, width, init | the orthogonal chapter's test bed: $x_k=e_k\in\mathbb R^{10}$, $y=(1,1.5,2,-1,-1,-0.5)$, $m=50$, balanced init of scale $\lambda$; GD step $dt=10^{-2}$ | its phases are known in closed form |
# | $\lambda$ grid, seeds | $10^{-3}, 10^{-6}, 10^{-12}, 10^{-18}, 10^{-24}, 10^{-30}$, one initial draw per seed scaled by $\lambda$; 5 seeds | AGF and the leading order are $\lambda\to0$ limits, graded as trends (float64 reaches $10^{-30}$ in 2.5× the time of $10^{-12}$); one draw per seed so that the trend is that of one system, not of five draws mixed |
# | part 1 control, drops | the same $\lambda$-scaled two-layer networks with $\sigma=\mathrm{id}$, same step and horizon; GD's drop times Richardson-extrapolated from steps $dt$ and $2dt$ (residual checked with $4dt$); coarse run: GD with step 0.2 | the control keeps the saddle and the $\ln(1/\lambda)$ plateau but not the ReLU's two phases; extrapolation removes GD's first-order step bias, which was as large as AGF's error at $\lambda=10^{-30}$ |
# | AGF cost phase | part 1: 4000 GD steps of $0.05$ on the active neurons; part 3: 2000 steps of $0.1$ | converges on these data |
# | drop time | first crossing of the mid-level between consecutive AGF levels (part 3, per cluster: between the cluster's AGF loss before and after its jump) | the AGF chapter's definition |
# | jump times | part 1: the relative error must shrink along the $\lambda$-sweep at least like $(1/\ln(1/\lambda))^{0.8}$; part 3 at std $10^{-6}$ (consistency check): within $1/\ln(1/\text{std})$; part 3 along std $10^{-3},10^{-6},10^{-12}$ (consistency check): shrinking like $(1/\ln(1/\text{std}))^{0.8}$ or faster, $c=\text{err}\cdot\ln(1/\text{std})$ not growing | AGF drops $O(1)$ corrections to times of order $\ln(1/\lambda)$ |
# | part 2 run | race setting 1 (200 images, std $10^{-4}$, 8000 steps), 5 seeds | the race chapter's calibrated setting |
# | part 3 data | the race chapter's XOR toy: centroids at 45°, 135°, 225°, 315° with norms 4, 3, 1, 2, labels 0, 1, 0, 1, std 0.1, 50 points each, a fresh draw per seed | the race paper's Fig. 9 data |
# | part 3 network | the race network (two outputs, every weight $\mathcal N(0,\text{std}^2)$, hidden biases 0) with std $10^{-6}$, width 50; the hidden bias as the weight on a constant input, no output bias | AGF needs homogeneous neurons; width 50 as in part 1 keeps AGF's per-neuron picture (each extra neuron on a cluster adds to GD's fit, not to AGF's) and the budget |
# | part 3 loss and optimiser | square loss on centred one-hot targets $y=e_{\text{label}}-\tfrac12$; plain GD with step $10^{-2}$ to $t=80$ (the race paper: cross-entropy, momentum 0.9) | AGF is derived for the square loss; at $h=0$ these targets give the cross-entropy's output gradient $(e_y-\tfrac12)/n$, so the utilities that rank the clusters are the race paper's; plain GD follows the flow AGF describes; $t=80$ covers the slowest cluster's jump, estimated at $\approx\ln(1/\lVert\theta(0)\rVert)/(2\bar U^*)\approx 52$ plus its alignment |
# | part 3 control | GD from std 0.5 on the same data (same step and horizon), read against the small-initialisation AGF prediction | a run without saddles (every cluster fitted at once); AGF itself is not defined at std 0.5 |
# | part 2 control | the same race runs from std $3\cdot10^{-2}$ (neuron norms $\approx1$), batched with the small-initialisation runs | no alignment phase: the neurons barely turn |
# | part 2 alignment window | the last snapshot at which the largest first-layer row norm is at most twice its initial value | eqs. 4–5 neglect the network's output; Min et al.'s own window $T=\log(1/(\sqrt h\,\varepsilon))/(4nX_{\max})$ is a bound that is a few SGD steps here |
# | step premises | parts 1 and 3: GD rerun at twice the step, its drops must move by < 1 %; part 2: the run repeated with twice the SGD step, the graded cosine must move by < 0.1 | GD stands in for the flow the theories describe |
# | part 3 std-trend | part 3's draws rescaled to std $10^{-3}$, $10^{-12}$ (std $10^{-6}$: part 3's run at step $2\cdot10^{-2}$), GD at step $2\cdot10^{-2}$ to $t=150$; shown: the same networks with $\sigma=\mathrm{id}$ (no ReLU gating) | the slowest cluster at std $10^{-12}$ drops near $t\approx126$ (a timing probe); three points keep the cost near 15 s; step $2\cdot10^{-2}$ halves it, its first-order bias ($\approx0.7$ %) checked against a fifth of the graded error |
# | part 2, separable setting | 200 points in $\mathbb R^{20}$, $x=(2y-1)\,3e_1+0.3\,\mathcal N(0,I)$; race width 250, std $10^{-4}$, setting 1's SGD; a run from std $1/\sqrt{20}$ shown | the cheapest data on which Assumption 1 holds on $(x,1)$ ($\mu\approx0.4$); the control starts at neuron norms $\approx1$ like part 2's |
# | "end of the plateau" | last snapshot with loss $\ge 0.99\ln 2$ (cones) | before the drop, as the alignment phase requires |
# | "winners" | the 10 % of neurons with the largest $a_\alpha=\lVert w^1_\alpha\rVert\lVert w^2_\alpha\rVert$ at the end | the race paper's top-10 % |

# %% tags=["parameters"]
seed = 0            # base seed of every random draw in this chapter
quick = False       # True: fewer seeds, initialisations and steps (tests only)
ledger_path = ""    # write the claims ledger to this JSON file (empty string: no file)

# %%
import math
import time

import numpy as np
import pandas as pd
import torch
from IPython.display import Markdown

from lrlib import chapter
from lrlib.data import cifar_race
from lrlib.ledger.summary import glue_what_holds
from lrlib.losses import Loss
from lrlib.models import TwoLayer, balanced_init, cat_runs, generator
from lrlib.plots import glue, glue_seeds
from lrlib.plots import synthesis as sy_plots
from lrlib.theory.orthogonal.data import orthonormal_testbed
from lrlib.theory import orthogonal as orth
from lrlib.theory import race as rc
from lrlib.theory import synthesis as sy
from lrlib.theory.synthesis.report import span

# %%
ch = chapter.start("synthesis", seed, quick, ledger_path)
quick, N_SEEDS, ledger = ch.quick, ch.n_seeds, ch.ledger
SQ = Loss("square", reduction="mean", scale=0.5)     # L = 1/(2n) Σ ‖h − y‖²
CE = Loss("cross_entropy")
# λ → 0, one draw per seed scaled by λ (float64)
LAMS = [1e-3, 1e-6, 1e-12, 1e-18, 1e-24, 1e-30]
print(SQ.describe(), "|", CE.describe(), f"| λ = {LAMS}")


# %%
def put(key: str, text: str) -> None:
    """Glue ``text`` under ``synthesis-<key>`` for the prose."""
    glue(f"synthesis-{key}", Markdown(text), display=False)


def say(key: str, cid: str) -> str:
    """Glue claim ``cid``'s pass rate, as the ledger states it, under ``synthesis-<key>``."""
    s = sy.report.rate_note(ch.rate(cid), ledger.results[cid].verdicts)
    put(key, s)
    return s

# %% [markdown]
# ## 1. AGF predicts the phases of the orthogonal-input paper
# On orthonormal inputs a ReLU neuron $(w,a)$ on the unit sphere has utility
# $U=\frac1n\sum_k a\,\sigma(w_k)\,r_k$, maximised at $w\propto r_+$ with $\bar U^*=\lVert r_+\rVert/(2n)$
# (or $r_-$ for $a<0$). AGF therefore predicts two jumps: the positive labels are fitted when the
# best positive neuron's accumulated utility reaches its threshold, leaving the level
# $\frac1{2n}\sum_{y_k<0}y_k^2$, then the negative ones. Boursier et al. give the leading order of
# the same times, $\ln(1/\lambda)/\lVert D_\pm\rVert$. Here AGF runs numerically from each GD run's
# own initial network: dormant directions flow on the sphere, utilities accumulate, and the cost
# phase is GD on the active neurons.

# %%
X, y = orthonormal_testbed()
n, d, m = X.shape[0], X.shape[1], 50
kv = orth.key_vectors(X, y)
base = balanced_init(m, d, scale=1.0, gen=generator(seed), runs=(N_SEEDS,))
p0, lam_runs = sy.scaled_runs(base, LAMS)                  # run i·N_SEEDS + s: λ_i, seed s
DT = 1e-2
STEPS = int(1.25 * math.log(1 / min(LAMS)) / kv.norm_minus / DT)
gd = sy.gd_run(p0, X, y, loss=SQ, lr=DT, steps=STEPS)
# twice the step for Richardson's extrapolation, four times for its residual
gd2 = sy.gd_run(p0, X, y, loss=SQ, lr=2 * DT, steps=STEPS // 2, every=5)
gd4 = sy.gd_run(p0, X, y, loss=SQ, lr=4 * DT, steps=STEPS // 4, every=5)
COARSE = 0.2                               # coarse= run: a step far too large for the flow
gdc = sy.gd_run(p0, X, y, loss=SQ, lr=COARSE, steps=int(STEPS * DT / COARSE), every=1)
lin_p0 = TwoLayer(W1=p0.W1, W2=p0.W2, act="linear")   # control: the same networks without the ReLU
lin = sy.gd_run(lin_p0, X, y, loss=SQ, lr=DT, steps=STEPS)

# %%
agf_runs = sy.orthogonal_agf(p0, X, y, lam_runs, loss=SQ, norm_minus=kv.norm_minus)

# %%
jumps = sy.jump_table((gd, gd2, gd4), agf_runs, lam_runs, kv, N_SEEDS)
cols = ["gd", "agf", "leading", "err_agf", "err_leading", "tol"]
jumps.groupby(["lam", "jump"])[cols].median()

# %%
def orth_fig(s):
    """Part 1's figure for seed ``s`` of the batch (panel (b): medians over the seeds)."""
    at = {lam: i * N_SEEDS + s for i, lam in enumerate(LAMS)}
    losses = {lam: gd.loss[:, r].numpy() for lam, r in at.items()}
    runs = {lam: agf_runs[r] for lam, r in at.items()}
    return sy_plots.agf_on_orthogonal(gd.time, losses, runs, jumps, seed=seed + s)

# %%
notes = sy.report.orthogonal_notes(jumps, min(LAMS), seed)
glue_seeds("synthesis-agf-orthogonal", [orth_fig(s) for s in range(N_SEEDS)], notes,   # drawn here
           labels=sy.report.seed_labels(seed, N_SEEDS))

# %% [markdown]
# ```{glue:figure} synthesis-agf-orthogonal
# :name: synthesis-agf-orthogonal
#
# **AGF's staircase on Boursier et al.'s Fig. 1 setting** (orthonormal inputs, two drops; choose the seed above the
# figure, the note under it gives that seed's errors at $\lambda=10^{-30}$). (a) GD's loss
# (solid, symlog scale) and AGF's levels and jump times (dashed, same colour) for the seed shown at each $\lambda$:
# the dashed steps should sit on the solid curve's drops and plateau. (b) Median relative error of the
# two drop times against $\ln(1/\lambda)$, $\lambda=10^{-3}\dots10^{-30}$: AGF (blue) against the orthogonal paper's
# leading order $\ln(1/\lambda)/\lVert D_\pm\rVert$ (red, dotted); the green dashed line is the rate
# $1/\ln(1/\lambda)$: what to look at is that both errors fall towards the right at least as steeply as it.
# ```

# %%
K = len(LAMS)
c0 = (p0.W1.norm(dim=-1).amax(-1) / lam_runs).numpy().reshape(K, N_SEEDS)   # Boursier et al.'s c
sweep = sy.lambda_sweep(LAMS, gd, gd2, agf_runs, kv, c0)          # drops: 2 t(DT) − t(2·DT)
# control, read without extrapolation; the coarse run read on GD's time grid
linear_net = sweep.with_loss(sy.by_scale(lin.loss.numpy(), K))
coarse = sweep.with_loss(sy.by_scale(sy.resampled(gd.time, gdc), K))
step_gap = jumps.groupby("seed").step_gap.max().to_numpy()
rich_gap = jumps.groupby("seed").rich_gap.max().to_numpy()

# %%
neg = float((y[y < 0] ** 2).sum() / (2 * n))
RATE = 1 - kv.norm_minus / kv.norm_plus                # the level's deviation ∝ λ^RATE
ctl = {"linear_net": linear_net}
ledger.measure("agf-on-orthogonal.jump-times", sweep, coarse=coarse,          # consistency
               premises=dict(rich_gap=rich_gap))
ledger.measure("agf-on-orthogonal.leading-order-limit", sweep, controls=ctl, coarse=coarse,
               premises=dict(rich_gap=rich_gap))
note = f"closed-form level Σ_(y<0) y²/(2n) = {neg:.5f}; rate 1 − ‖D−‖/‖D+‖ = {RATE:.3f}"
ledger.measure("agf-on-orthogonal.levels", sweep, controls=ctl, coarse=coarse, rate=RATE,
               premises=dict(step_gap=step_gap), note=note)
ledger.measure("agf-on-orthogonal.vs-leading-order", sweep, premises=dict(step_gap=step_gap))

# %%
res = ledger.results
ctl_t = sy.claims.agf_time_trend(linear_net)             # σ = id: shown, not a control of AGF
ctl_v = sy.report.control_floats(res["agf-on-orthogonal.levels"])
put("orth-ratio-c", span(res["agf-on-orthogonal.vs-leading-order"].values["ratio_c"], ".1f"))
put("orth-ctl-slope", span(ctl_t["slope"]))
put("orth-ctl-shrink", span(ctl_t["shrink"]))
put("orth-ctl-lslope", span(ctl_v["slope"], ".1e"))
put("orth-rate", f"{RATE:.3f}")
put("orth-step-gap", f"{step_gap.max():.4f}")
ORTH = {"orth-times": "jump-times", "orth-lead": "leading-order-limit", "orth-levels": "levels",
        "orth-vs": "vs-leading-order"}
ORTH = {key: f"agf-on-orthogonal.{c}" for key, c in ORTH.items()}
put("orth-coarse", sy.report.coarse_counts(res, list(ORTH.values())[:3], N_SEEDS))

# %%
for key, cid in ORTH.items():
    print(f"{cid}: {say(key, cid)}")
jumps.groupby(["lam", "jump"])[["err_agf", "err_leading", "tol", "step_gap", "rich_gap"]].max()

# %% [markdown]
# AGF, run from the same initial network as GD, is graded per seed as a **limit**: each seed is one initial
# draw scaled by $\lambda=10^{-3},\dots,10^{-30}$ (float64 reaches this cheaply: the flow's times grow only like
# $\ln(1/\lambda)$), and the ledger reads how the relative error of the two drop times shrinks along the sweep
# (`lrlib.ledger.trend.trend_stats` against $1/\ln(1/\lambda)$: AGF drops $O(1)$ corrections to times of order
# $\ln(1/\lambda)$, so the error should fall at least like $1/\ln(1/\lambda)$). **AGF's jump times**:
# {glue:md}`synthesis-orth-times`. **The orthogonal paper's leading order** $\ln(1/\lambda)/\lVert D_\pm\rVert$,
# graded the same way on the same runs: {glue:md}`synthesis-orth-lead`. Both theories predict this limit, so
# these two rows do **not** tell the papers apart (the limit is Boursier et al.'s §4 reading; their Lemmas 3–4
# bound the times one-sidedly with a fixed $\varepsilon$, which is not graded as stated). **Intermediate level**
# (GD's plateau between its drops, the median of its loss over the middle half of the interval as the book reads
# every plateau, `lrlib.measure.plateau_between`, against AGF's level): {glue:md}`synthesis-orth-levels`. The flow gives its
# rate: midway between the drops the negative-label neurons have grown to $\approx\lambda^{1-\lVert D_-\rVert/\lVert D_+\rVert}$
# of the level, so the log-log slope of the deviation against $\lambda$ (fitted above the float64 round-off floor
# $10^{-10}$) must be within 0.05 of $1-\lVert D_-\rVert/\lVert D_+\rVert=$ {glue:md}`synthesis-orth-rate`.
#
# The **control** of the leading order and of the level is the same two-layer network **without the ReLU**
# ($\sigma=\mathrm{id}$), from the same $\lambda$-scaled initialisations, with the same step and horizon. It removes
# Boursier et al.'s mechanism, the ReLU's sign split that fits the positive labels first, but keeps the saddle at the
# origin and a plateau of length $\approx\ln(1/\lambda)$: it fits every label in one escape, so AGF's two jump
# times miss its drops by a relative amount that does not shrink with $\lambda$ (slope {glue:md}`synthesis-orth-ctl-slope`,
# shrink {glue:md}`synthesis-orth-ctl-shrink` over the seeds, shown), and its loss between AGF's drops misses the level by a
# constant (slope {glue:md}`synthesis-orth-ctl-lslope`). It does **not** remove AGF's mechanism (the saddles of a small
# initialisation; AGF applies to linear networks too), so **AGF's jump-time row is a consistency check**: a run
# without saddles (a large initialisation) makes no drops whose times could be read along a $\lambda$-sweep, and AGF
# refuses to run there; for the same reason the level row grades Boursier et al.'s Lemma 3 against a control and
# AGF's level only as a consistency check. (The previous revision's control, one linear model $\beta$ from 0,
# was the same for every seed and $\lambda$ and failed by construction.) GD stands in for the flow, and at the deepest
# $\lambda$ its first-order step bias (doubling the step moves the drops by {glue:md}`synthesis-orth-step-gap`,
# $\approx\lVert D_+\rVert\,dt/2$) was as large as AGF's error; the drop times are therefore **Richardson-extrapolated**,
# $2t(dt)-t(2dt)$, and the premise asks that the extrapolation's own change at twice the step stay below a fifth of the
# graded error at $\lambda=10^{-30}$. A **coarse run** (GD with step 0.2, read without extrapolation: a constant relative
# bias $\approx\lVert D_\pm\rVert\,dt/2$) passes the rules in: {glue:md}`synthesis-orth-coarse`. The time trends reject it;
# the level trend does not (the plateau's level and its rate do not depend on the step), so the ledger tiers
# `levels` as a consistency check.
#
# **AGF closer to GD than the leading order** at every $\lambda$ and drop ({glue:md}`synthesis-orth-vs`) is a
# consistency check at finite $\lambda$, not a reproduction: it compares the $O(1)$ constants, which Boursier et
# al. do not state (their Lemmas 3–4 bound the times up to an unspecified $\varepsilon$), and no run can serve as
# its control. The row mainly tells whether the **initial norm** is included: against the leading order with
# Boursier et al.'s own constant $c=\max_j\lVert w_j(0)\rVert/\lambda$, $\ln(1/(c\lambda))/\lVert D_\pm\rVert$, the same
# ratio is {glue:md}`synthesis-orth-ratio-c` over the seeds (above 1: that leading order is closer than AGF). The two theories agree on the mechanism: on orthogonal inputs a neuron's best
# utility is $\lVert D_\pm\rVert/2$, so AGF's jump condition $\lVert\theta\rVert e^{2\bar U^* t}=1$ is the
# paper's $t\approx\ln(1/\lambda)/\lVert D_\pm\rVert$ with the constants kept: the leading order ignores the
# initial norm $\lVert\theta_j(0)\rVert$ (here $\approx\sqrt{2d}\,\lambda$, not $\lambda$) and the time spent aligning.

# %% [markdown]
# ## 2. The alignment paper's theory on the race paper's CIFAR-10 run
# The race network has two softmax outputs; the alignment paper's has one output and the logistic
# (or exponential) loss. Up to the race network's trainable biases (the hidden $b_1$ and the output $b_2$,
# whose difference shifts $z$; the alignment paper's network has neither; their size is reported below) they are the same
# network: the cross-entropy of the logits $(z_0,z_1)$ is
# the logistic loss $\log(1+e^{-y z})$ of the logit difference $z=z_1-z_0$ with $y=\pm1$, and neuron
# $\alpha$'s outgoing weight is $v_\alpha=w^2_{1\alpha}-w^2_{0\alpha}$. The race paper's target
# direction is then exactly the alignment paper's field (tested in `tests/test_theory_synthesis.py`):
#
# $$\langle\gamma_\alpha\rangle=\frac{v_\alpha}{\lVert w^2_\alpha\rVert}\,\frac1N\sum_{s:\,\text{active}}
# \bigl(-\ell'(y_sz_s)\bigr)\,y_s x_s \;\approx\; \frac{v_\alpha}{2N\lVert w^2_\alpha\rVert}\,x_a(w_\alpha)
# \quad\text{at a small initialisation.}$$
#
# So the alignment paper makes predictions for the race paper's run: (i) its Assumption 1
# (orthogonal separability, $\mu>0$); (ii) by the end of the alignment phase every neuron with
# $v>0$ lies in $\mathcal S_+\cup\mathcal S_{\rm dead}$ (mirror for $v<0$); (iii) live neurons align
# with $\operatorname{sign}(v)\,x_a(w)$; (iv) at the end, the first layer has stable rank $\le 2$.
# Predictions (ii) and (iv) are Theorem 1's conclusions and need Assumption 1: each carries the premise
# $\mu>0$, measured per seed. We run setting 1 of the race chapter and measure each.

# %%
STEPS_C = 2000 if quick else 8000
data = [cifar_race(50, seed + r) for r in range(N_SEEDS)]
Xc, yc = torch.stack([dd[0] for dd in data]), torch.stack([dd[1] for dd in data])
mus = sy.claims.data_mu((Xc, yc))             # μ on (x, 1) (hidden biases) and on raw x
STD_BIG = 3e-2                                # control: neuron norms ≈ 1 at the start
pc0 = rc.race_init(250, 1024, 1e-4, generator(seed + 100), runs=(N_SEEDS,))
pc_big = rc.race_init(250, 1024, STD_BIG, generator(seed + 100), runs=(N_SEEDS,))
# runs: N_SEEDS small, then N_SEEDS control
race1 = sy.race_sgd(cat_runs(pc0, pc_big), Xc.repeat(2, 1, 1), yc.repeat(2, 1), loss=CE,
                    lr=1e-3, steps=STEPS_C, seed=seed + 1)
t_r2 = time.perf_counter()
# step premise: twice the step
race2 = sy.race_sgd(pc0, Xc, yc, loss=CE, lr=2e-3, steps=STEPS_C // 2, seed=seed + 1)
race_cost = time.perf_counter() - t_r2
put("race-cost", f"{race_cost:.0f} s for the step-premise run of the {N_SEEDS} seeds")

# %%
lens = sy.lens_table(race1, Xc, yc, seed)
print("Assumption 1, μ on (x, 1) / raw pixels:", np.round(mus["mu"], 3), np.round(mus["mu_raw"], 3))
lens

# %%
def race_fig(r):
    """Part 2's figure for run ``r`` of the batch (seed ``seed + r``)."""
    tr = race1.run(r)
    i_end = int(lens[(lens.seed == seed + r) & (lens.when == "end of plateau")].step.iloc[0])
    _, c_end = sy.alignment_lens(tr.at(tr.index_of_step(i_end)), Xc[r], yc[r])
    a_fin = rc.total_norm(tr.final)
    series = pd.DataFrame(sy.alignment_lens_series(tr, Xc[r], yc[r]))
    winners = (a_fin >= a_fin.quantile(0.9)).numpy()
    return sy_plots.alignment_on_race(series, c_end.numpy(), winners, i_end, seed=seed + r)

# %%
notes = sy.report.race_notes(mus["mu"], lens, seed)
# drawn, closed
glue_seeds("synthesis-alignment-on-race", [race_fig(r) for r in range(N_SEEDS)], notes,
           labels=sy.report.seed_labels(seed, N_SEEDS))

# %% [markdown]
# ```{glue:figure} synthesis-alignment-on-race
# :name: synthesis-alignment-on-race
#
# **Min et al.'s Theorem 1 and eq. 4–5 on Pinson's setting 1** (CIFAR-10, 200 images; choose the seed above the
# figure, the note under it gives that seed's $\mu$, cone fraction and winners' cosine). (a)
# Fraction of neurons in their predicted cone over the steps (log scale); Theorem 1 predicts 1 (dashed) —
# but only under Assumption 1, which fails on these data. (b) Cosines of every neuron with
# $\operatorname{sign}(v)\,x_a(w)$ at the end of the plateau, the race's winners (top 10 % by final
# $\lVert w^1\rVert\lVert w^2\rVert$) stacked in blue: the number to look at is where the blue mass sits (the
# local-field claim grades its median against 0.5). (c) Stable rank of $W_1$ (log–log); the theorem's bound 2
# is dashed.
# ```

# %%
mu_seed = mus["mu"]
end, fin = (lens[lens.when == w].sort_values("seed") for w in ("end of plateau", "final"))
rr_small = sy.claims.RaceRuns(race1, Xc, yc)
rr_big = sy.claims.RaceRuns(race1, Xc, yc, first=N_SEEDS)
win = sy.claims.local_field(rr_small)
win2 = sy.claims.local_field(sy.claims.RaceRuns(race2, Xc, yc))          # step premise: 2× step
ledger.measure("alignment-on-race.assumption1", (Xc, yc),
               note=f"raw pixels {np.round(mus['mu_raw'], 3).tolist()}")
for cid in ("alignment-on-race.cones", "alignment-on-race.low-rank"):
    ledger.measure(cid, rr_small, controls={"race_large_init": rr_big}, init=rr_small.start(),
                   premises=dict(mu=mu_seed))
ledger.measure("alignment-on-race.local-field", rr_small, init=rr_small.start(),
               premises=dict(cos_gap=np.abs(win["cos_w"] - win2["cos_w"])),
               note=f"all neurons at the end of the plateau: {[round(v, 3) for v in end.cos_all]}")

# %%
RACE = {"mu": "assumption1", "cones": "cones", "field": "local-field", "rank": "low-rank"}
for key, c in RACE.items():
    print(f"alignment-on-race.{c}: {say(key, f'alignment-on-race.{c}')}")
put("mu-range", span(mu_seed))
put("srank-range", span(fin.stable_rank))
put("cone-range", span(end.in_cone))
put("window", span(win["window"], ".0f"))
put("bias", f"{win['bias_ratio'].max():.3f}")
put("cos-end", span(end.cos_winners))
print("μ per seed:", np.round(mu_seed, 3),
      "| stable rank at the end:", np.round(fin.stable_rank.to_numpy(), 3))

# %% [markdown]
# On CIFAR-10 the alignment paper's data assumption fails: pixel images of different classes are strongly
# positively correlated — $\mu$ on the bias-augmented inputs $(x,1)$ (the race network has hidden biases) is {glue:md}`synthesis-mu-range`
# over the seeds (Assumption 1: {glue:md}`synthesis-mu`, a measurement of the premise). Theorem 1's two
# conclusions are therefore **not graded**: cones {glue:md}`synthesis-cones`, low rank {glue:md}`synthesis-rank`
# on Pinson's data. This is the data's geometry, not the run's: $\mu$ is a property of the images and labels alone,
# so **no setting on the race's data meets $\mu>0$** (no initialisation, step or width changes it), and these two rows
# stay premise-not-met in every seed. Theorem 1 is graded where its premises hold in {doc}`02_alignment`
# (`thm1.part1` and `thm1.low-rank`, consistency checks; `thm1.low-rank-two-dir`, a
# reproduction, quantitative in the published sweep; pass rates in that chapter's ledger). Below, the same network
# and optimiser on separable data meet $\mu>0$ only (consistency checks).
# What we see there is an **out-of-premise observation**, not a test of the theorem: at the end of the
# plateau only {glue:md}`synthesis-cone-range` of the neurons are in their cone (most are active on images
# of both classes), while the first layer still ends with a stable rank of {glue:md}`synthesis-srank-range`.
# The *local* mechanism does not need Assumption 1 — the early-alignment field is derived for a small
# initialisation — and it is graded **inside the alignment window**, the last snapshot at which the largest
# first-layer row has at most doubled its initial norm (steps {glue:md}`synthesis-window` over the seeds), and
# only in the seeds where the step premise holds (repeating the run with twice the SGD step moves the winners'
# median cosine by less than 0.1): the winners have turned towards $\operatorname{sign}(v)\,x_a(w)$, the race
# paper's $\langle\gamma\rangle$, in {glue:md}`synthesis-field`. (The previous revision read the cosine at the end
# of the plateau, {glue:md}`synthesis-cos-end` over the seeds, after the winners' norms had grown tenfold, outside the
# window where eqs. 4–5 hold.) This row does not tell the papers apart: at a small initialisation the race paper's
# $\langle\gamma\rangle$ is the same field (the identity above). It is graded as a **consistency check**, not a
# reproduction: at small output the SGD gradient on row $\alpha$ is exactly $\propto v_\alpha x_a(w_\alpha)$, so a winner
# that has grown by ~15 % has a cosine $\ge0.5$ from how it moved, and the previous revision's control (the race run
# from std $3\cdot10^{-2}$, read at step 8000 while the main runs are read at their window end) failed because lazy
# neurons barely move relative to their norm, not because the field is absent. No cheap run removes the field and
# keeps the dynamics. The race network's **hidden biases** are trainable and the lens reads $W_1$ alone;
# at the end of the window the largest $|b_1|$ is at most {glue:md}`synthesis-bias` of the largest row norm, so
# the network is an alignment-paper network up to that bias. The race paper's lens suggests why the rank stays
# low: only the winners move, and they chase nearly the same direction.

# %% [markdown]
# **Theorem 1 where Assumption 1 holds.** We build the cheapest setting in which Assumption 1 (but not the
# theorem's other conditions, see below) holds for the race network: 200 points in $\mathbb R^{20}$,
# $x=(2y-1)\,3e_1+0.3\,\mathcal N(0,I)$ (`sy.separable_pairs`, a fresh draw per seed), so that same-class inputs
# $(x,1)$ correlate positively and the two classes negatively. The race network (width 250, std $10^{-4}$) is
# trained as in setting 1 (cross-entropy, SGD step $10^{-3}$, momentum 0.9, batch 4, the same number of steps);
# a comparison run (shown, not graded) starts the same runs at std $1/\sqrt{20}$ (neuron norms $\approx1$).

# %%
sep = [sy.separable_pairs(100, 20, generator(seed + 400 + r)) for r in range(N_SEEDS)]
Xs, ys = (torch.stack(t) for t in zip(*sep))
ps0, ps_big = (rc.race_init(250, 20, std, generator(seed + 500), runs=(N_SEEDS,))
               for std in (1e-4, 20 ** -0.5))                         # small; control: norms ≈ 1
race_s = sy.race_sgd(cat_runs(ps0, ps_big), Xs.repeat(2, 1, 1), ys.repeat(2, 1), loss=CE,
                     lr=1e-3, steps=STEPS_C, seed=seed + 1)
rs_small, rs_big = (sy.claims.RaceRuns(race_s, Xs, ys, first=f) for f in (0, N_SEEDS))
mu_sep = sy.claims.data_mu((Xs, ys))["mu"]
for cid in ("alignment-on-race.separable-cones", "alignment-on-race.separable-low-rank"):
    ledger.measure(cid, rs_small, init=rs_small.start(), premises=dict(mu=mu_sep))   # consistency
    print(f"{cid}: {say(cid.split('.')[1], cid)}")

# %%
sv = ledger.results["alignment-on-race.separable-cones"].values
sep_c = sy.claims.cones_and_rank(rs_big)        # the std-1/√D runs: shown, not graded
for key, vals in (("mu", mu_sep), ("cone", sv["in_cone"]), ("srank", sv["srank"]),
                  ("nout", sv["n_out"]), ("cone-fin", sv["in_cone_final"]),
                  ("cone-b", sv["in_cone_b"]), ("srank-b", sv["srank_b"]),
                  ("ctl-cone", sep_c["in_cone_final"]), ("ctl-srank", sep_c["srank"])):
    put(f"sep-{key}", span(vals, ".0f" if key == "nout" else ".2f"))

# %% [markdown]
# Here $\mu$ is {glue:md}`synthesis-sep-mu` over the seeds, so Assumption 1 holds, but this is **not** yet a
# test of Theorem 1: both rows are **consistency checks, outside Theorem 1's $\varepsilon$, balance and
# gradient-flow conditions**. The theorem needs $\varepsilon=O(h^{-1/2}e^{-(n/\sqrt\mu)\log n})$, below
# $10^{-700}$ for $n=200$ (the run uses std $10^{-4}$), a balanced start $v_j(0)=\pm\lVert w_j(0)\rVert$ (the
# race init is not balanced) and gradient flow (the run is batch-4 SGD with momentum, two outputs, trainable
# biases, a finite horizon). **Cones** {glue:md}`synthesis-separable-cones`: at the end of the plateau
# {glue:md}`synthesis-sep-cone` of the neurons are in their cone, {glue:md}`synthesis-sep-nout` of 250 outside
# their cone in each seed, where the theorem says every neuron (the 90 % is the book's tolerance); at the last step
# {glue:md}`synthesis-sep-cone-fin`. **Low rank** {glue:md}`synthesis-separable-low-rank` (stable rank at the end
# {glue:md}`synthesis-sep-srank`) cannot fail on these data: the two classes' directions are antipodal
# ($x\approx\pm3e_1$), so any first layer grown along the signal has stable rank near 1. With the hidden bias
# read as a weight on a constant input ($[W_1,b_1]$ on $(x,1)$, what $\mu$ is measured on) the cones hold for
# {glue:md}`synthesis-sep-cone-b` and the stable rank is {glue:md}`synthesis-sep-srank-b`. The run from std
# $1/\sqrt{20}$ (shown, not a control: it was chosen after a probe, and its neurons barely turn) has
# {glue:md}`synthesis-sep-ctl-cone` in cone at its last step (the same step as the main runs' final reading),
# stable rank {glue:md}`synthesis-sep-ctl-srank`. No setting with every premise exists on the race's CIFAR-10 data
# ($\mu<0$ there). On other data, with every premise imposed (one logit difference, no biases, a balanced start
# with $\varepsilon$ inside the bound, full-batch GD) the race network is Min et al.'s own network on the alignment
# chapter's data, and {doc}`02_alignment` grades Theorem 1 there (`thm1.part1`, `thm1.low-rank`,
# `thm1.low-rank-two-dir`); what this part can add is the race network's departures from it.

# %% [markdown]
# ## 3. AGF on the race paper's XOR toy: which cluster, when, at what level
# The race paper's XOR toy has four clusters of different centroid norms; its Fig. 2 shows four loss drops,
# one per cluster. For AGF each neuron is 2-homogeneous once the hidden bias is read as the weight on a
# constant input $\tilde x=(x,1)$; a neuron active on cluster $c$ alone has utility
# $\bar U=a^\top M_c\tilde w$ with $M_c=\frac1n\sum_{s\in c}y_s\tilde x_s^\top$, so at $h=0$ the cluster with
# the largest centroid norm offers the largest utility and is fitted first; once fitted, its residual
# vanishes while the other clusters' stay, so AGF predicts one cluster per jump, each level
# $\frac1{2n}\sum\lVert y\rVert^2$ over the clusters not yet fitted. Below, AGF runs from each GD run's
# own initial network (std $10^{-6}$); the control is GD from std 0.5 (below).

# %%
STD, STD_CTL, M_X, T_X, LR_X = 1e-6, 0.5, 50, 80.0, 1e-2
xor_sets = [sy.xor_task(50, generator(seed + 200 + r)) for r in range(N_SEEDS)]
# runs: N_SEEDS small, then N_SEEDS control; the same cluster layout in every draw
Xx, Yx = (torch.stack([s[i] for s in xor_sets]).repeat(2, 1, 1) for i in (0, 1))
clx = xor_sets[0][2]
stds = torch.tensor([STD] * N_SEEDS + [STD_CTL] * N_SEEDS, dtype=torch.float64)
race_x = rc.race_init(M_X, 2, stds, generator(seed + 300), runs=(2 * N_SEEDS,), dtype=torch.float64)
px0 = sy.homogeneous_race_net(race_x)
S_X = int(T_X / LR_X)
xgd = sy.gd_run(px0, Xx, Yx, loss=SQ, lr=LR_X, steps=S_X)
small = TwoLayer(W1=px0.W1[:N_SEEDS], W2=px0.W2[:N_SEEDS])
xgd2 = sy.gd_run(small, Xx[:N_SEEDS], Yx[:N_SEEDS], loss=SQ, lr=2 * LR_X, steps=S_X // 2, every=5)

# %%
xruns = [sy.xor_agf(TwoLayer(W1=px0.W1[r], W2=px0.W2[r]), Xx[r], Yx[r], tau_max=T_X, loss=SQ)
         for r in range(N_SEEDS)]                                             # small init only

# %%
closs = rc.cluster_losses(xgd.params, Xx, Yx, clx, SQ).numpy()          # (T, runs, 4)
closs2 = rc.cluster_losses(xgd2.params, Xx[:N_SEEDS], Yx[:N_SEEDS], clx, SQ).numpy()

# %%
xtab, xorder, xgap = sy.xor_table(xgd, closs, xgd2, closs2, xruns, Xx, Yx, clx)
xtab[~xtab.control].pivot(index="seed", columns="cluster", values=["agf", "gd", "err"]).round(3)

# %%
def xor_fig(r):
    """Part 3's figure for run ``r`` of the batch (seed ``seed + r``)."""
    labels = [f"cluster of norm {int(v)}" for v in (4, 3, 1, 2)]
    return sy_plots.agf_on_xor(xgd.time, xgd.loss[:, r].numpy(), closs[:, r], xruns[r],
                               xtab[~xtab.control], 1 / math.log(1 / STD), labels, seed=seed + r)


# %%
notes = sy.report.xor_notes(xtab, xorder, seed)
glue_seeds("synthesis-xor-agf", [xor_fig(r) for r in range(N_SEEDS)], notes,      # drawn, closed
           labels=sy.report.seed_labels(seed, N_SEEDS))

# %% [markdown]
# ```{glue:figure} synthesis-xor-agf
# :name: synthesis-xor-agf
#
# **AGF on Pinson's Fig. 2 / Fig. 9 setting** (XOR toy, four clusters of centroid norms 4, 3, 1, 2; race
# network of width 50 from std $10^{-6}$, square loss on centred one-hot targets; choose the seed above the figure,
# the note under it gives that seed's numbers). (a) The seed shown: GD's loss
# (black), each cluster's share of it (colours) and AGF's staircase (green, dashed) against gradient-flow
# time: compare the order of the coloured drops with AGF's steps, and the height of each step with the
# black plateau. (b) Every seed and cluster: AGF's jump time against GD's per-cluster drop time; points on
# the diagonal are exact, the shaded band is the tolerance $\pm1/\ln(1/\text{std})$. The number to look at:
# how far above the band the points sit.
# ```

# %%
worst = sy.worst_error(xtab)                # per run; nan where a cluster got no AGF jump
norm0 = sy.largest_neuron_norm(px0)[:N_SEEDS]
fit_norm = sy.largest_neuron_norm(TwoLayer(W1=xgd.params.W1[-1], W2=xgd.params.W2[-1]))[:N_SEEDS]
ctl_half = sy.half_fit_time(xgd.time, closs[:, N_SEEDS:])
mine, ctls = list(range(N_SEEDS)), list(range(N_SEEDS, 2 * N_SEEDS))
xsmall = sy.xor_batch(xgd, closs, mine, xruns, Xx[:N_SEEDS], Yx[:N_SEEDS], clx)
xbig = sy.xor_batch(xgd, closs, ctls, xruns, Xx[N_SEEDS:], Yx[N_SEEDS:], clx)
xprem = dict(norm0=norm0, step_gap=np.array(xgap))
note = f"largest neuron norm at the end of GD: {fit_norm.min():.2f}–{fit_norm.max():.2f}"
ledger.measure("agf-on-xor.clusters", xsmall, premises=xprem, std=STD, note=note)
ledger.measure("agf-on-xor.levels", xsmall, controls={"gd_large_init": xbig}, premises=xprem)

# %%
for key, cid in (("xor-clusters", "agf-on-xor.clusters"), ("xor-levels", "agf-on-xor.levels")):
    print(f"{cid}: {say(key, cid)}")
sm = xtab[~xtab.control]
facts = {"xor-order": f"{int(sum(xorder[:N_SEEDS]))} of {N_SEEDS}",
         "xor-late": span(sm.agf - sm.gd, ".1f"), "xor-worst": span(worst[:N_SEEDS], ".3f"),
         "xor-tol": f"{1 / math.log(1 / STD):.3f}",
         "xor-dev": sy.report.levels_dev_text(ledger.results["agf-on-xor.levels"].values),
         "xor-fitnorm": span(fit_norm), "xor-ctl-gd": f"{ctl_half:.2f}"}
for k, v in facts.items():
    put(k, v)

# %%
ctl_c = sy.claims.xor_clusters(xbig, std=STD)        # GD from std 0.5, shown (not a control)
ctl_l = sy.report.control_floats(ledger.results["agf-on-xor.levels"])
put("xor-ctl-order", f"{int(np.nansum(ctl_c['order_ok']))} of {N_SEEDS}")
put("xor-ctl-worst", span(np.asarray(ctl_c["worst"]) / math.log(1 / STD), ".3f"))
put("xor-ctl-dev", span(ctl_l["dev"], ".3f"))
print(facts, "| control (GD from std 0.5):", ctl_c, ctl_l)

# %% [markdown]
# **Which cluster, when.** AGF activates the four clusters one per jump, in the order in which GD's
# per-cluster losses drop, in {glue:md}`synthesis-xor-order` seeds. Its jump times are another matter: AGF's
# jump time minus GD's per-cluster drop time ranges over {glue:md}`synthesis-xor-late` (gradient-flow time), and
# each seed's worst relative error, {glue:md}`synthesis-xor-worst` over the seeds, is to be compared with the
# tolerance $1/\ln(1/\text{std})=$ {glue:md}`synthesis-xor-tol`. The claim (order *and* times) is
# {glue:md}`synthesis-xor-clusters`, now a **consistency check at finite std**: the tolerance's constant 1 is ours,
# not a paper's, and the std-0.5 run below cannot serve as its control (the cluster order holds there in some seeds,
# the largest centroid norm being first by default; it fails only through $O(1)$ drop times). A miss here says
# that AGF's $O(1)$ constants are large on this toy at std $10^{-6}$, not that its $\text{std}\to0$ limit fails. Where AGF is late, the lateness is the
# $O(1)$ correction AGF drops, and it is large here: AGF activates a neuron when its norm reaches 1, but on
# these data a neuron fits its cluster at a smaller norm (the largest neuron norm at the end of GD is
# {glue:md}`synthesis-xor-fitnorm` over the seeds), and GD's loss has dropped halfway well before; several neurons on the same
# cluster also grow together in GD, while AGF activates one. Each is a fixed number of e-folds of the
# norm, i.e. an error $c/\ln(1/\text{std})$ with $c$ above 1; on this reading a smaller initialisation would
# not bring it within this tolerance (we did not test that: the explanation is ours, not graded).
#
# **At what level.** AGF's levels after its first three jumps — the loss with one, two, three clusters
# fitted — are compared with GD's plateaus over the **middle half** of each interval between drops
# (`lrlib.measure.plateau_between`: the largest deviation of its lowest or highest loss there), within 5 % (a
# plateau-free decay through the level would deviate by tens of per cent at the quarter points, while at the midpoint
# alone it could pass): {glue:md}`synthesis-xor-levels` (largest deviation per seed {glue:md}`synthesis-xor-dev`).
# GD does sit on AGF's levels at the midpoints; towards the next drop the plateau tilts as the next cluster grows,
# and at std $10^{-6}$ that tilt exceeds the 5 % we had estimated for the midpoint. We did not widen the tolerance
# after seeing this; whether the tilt vanishes as std $\to0$ is read along the std-trend below
# (`agf-on-xor.levels-limit`, a consistency check on three points). Both claims carry the premises of a small
# initialisation and of GD following the flow (twice the step moves the per-cluster drops by < 1 %).
# **Control** (of the levels claim; shown for the clusters). The same gradient descent (data, step, horizon) from std 0.5, where the neurons start near norm 1
# and there are no saddles to jump between: GD fits every cluster at once, all per-cluster losses having halved by
# $t=$ {glue:md}`synthesis-xor-ctl-gd`. Read against the same small-initialisation AGF prediction, its cluster order
# matches in {glue:md}`synthesis-xor-ctl-order` seeds, its worst relative time error is {glue:md}`synthesis-xor-ctl-worst`,
# and its loss over the middle half between its crossings of AGF's mid-levels deviates from AGF's levels by
# {glue:md}`synthesis-xor-ctl-dev` (against the 5 % the levels claim allows). AGF itself is not run there: its jump
# condition already holds at the start, and it refuses such an initialisation. (The previous revision's control
# was AGF's prediction with its first two clusters swapped, a wrong prediction rather than a run without the
# mechanism.) The jump times are graded here at one std with the constant 1 in $1/\ln(1/\text{std})$, which no paper
# states; their std $\to0$ trend over three points is read next (a consistency check, unlike part 1's limits).

# %% [markdown]
# **Jump times as std $\to0$.** AGF drops $O(1)$ corrections to jump times of order $\ln(1/\text{std})$, so the
# statement is a limit, read as in part 1: each seed's draw of part 3 is rescaled to std $=10^{-3}$ and
# $10^{-12}$ (GD at step $2\cdot10^{-2}$ to $t=150$, where the slowest cluster of the deepest std has dropped; the
# std-$10^{-6}$ point is part 3's run at twice its step), AGF runs from each network, and the ledger reads how the
# worst relative error over the four clusters shrinks against $1/\ln(1/\text{std})$, and whether
# $c=\text{err}\cdot\ln(1/\text{std})$ stops growing. With three points (0.6 decades, std $10^{-3}$ above the
# small-initialisation premise) this is a **consistency check**, not a graded limit: std $10^{-18}$ and $10^{-24}$
# (GD to $t\approx320$) cost 43 s more in a probe, and at this step GD's bias would fail the step premise at
# $10^{-24}$ ("What remains open"). Shown beside it: the same std-scaled
# networks with $\sigma=\mathrm{id}$, which removes **ReLU gating** (not AGF's mechanism: AGF applies to linear
# networks too); a linear network has at most two saddles and cannot fit XOR, so it is read on the clusters it fits.

# %%
STDS_T, T_T, LR_T = [1e-3, STD, 1e-12], 150.0, 2 * LR_X     # STD: part 3's runs at twice the step
S_T, K_T = int(T_T / LR_T), len(STDS_T)
pt0, _ = sy.scaled_runs(small, [s / STD for s in STDS_T])               # run k·N_SEEDS + s
Xt, Yt = Xx[:N_SEEDS].repeat(K_T, 1, 1), Yx[:N_SEEDS].repeat(K_T, 1, 1)
ext = [r for r in range(K_T * N_SEEDS) if STDS_T[r // N_SEEDS] != STD]      # the new std points

# %%
xt = sy.gd_run(TwoLayer(W1=pt0.W1[ext], W2=pt0.W2[ext]), Xt[ext], Yt[ext], loss=SQ, lr=LR_T,
               steps=S_T)
lin_t = TwoLayer(W1=pt0.W1, W2=pt0.W2, act="linear")                           # σ = id
xlin = sy.gd_run(lin_t, Xt, Yt, loss=SQ, lr=LR_T, steps=S_T)
xruns_t = {r: sy.xor_agf(TwoLayer(W1=pt0.W1[r], W2=pt0.W2[r]), Xt[r], Yt[r], tau_max=T_T, loss=SQ)
           for r in ext}

# %%
def xor_runs(g, cl_loss, rows, runs):
    """The runs ``rows`` of trajectory ``g`` (per-cluster losses ``cl_loss``) as an XOR batch."""
    return sy.xor_batch(g, cl_loss, rows, runs, Xx[:N_SEEDS], Yx[:N_SEEDS], clx)

# %%
cl_t, cl_lin = (rc.cluster_losses(g.params, X_, Y_, clx, SQ).numpy() for g, X_, Y_ in
                ((xt, Xt[ext], Yt[ext]), (xlin, Xt, Yt)))
seeds_at = [list(range(k * N_SEEDS, (k + 1) * N_SEEDS)) for k in range(K_T)]
std_runs = [xor_runs(xgd2, closs2, list(range(N_SEEDS)), xruns) if s == STD else
            xor_runs(xt, cl_t, [ext.index(r) for r in at], [xruns_t[r] for r in at])
            for s, at in zip(STDS_T, seeds_at)]
xsw = sy.claims.XorStdSweep(np.array(STDS_T), std_runs)

# %%
lin_runs = [xor_runs(xlin, cl_lin, seeds_at[k], xr.agf) for k, xr in enumerate(std_runs)]
ledger.measure("agf-on-xor.jump-times-limit", xsw, premises=dict(bias=2 * np.array(xgap)))
print(f"agf-on-xor.jump-times-limit: {say('xor-trend', 'agf-on-xor.jump-times-limit')}")

# %%
v_t = ledger.results["agf-on-xor.jump-times-limit"]
ct = sy.claims.xor_time_trend(xsw.with_runs(lin_runs))      # σ = id (no ReLU gating): shown
vt, c_std = v_t.values, sy.claims.xor_time_constants(xsw)  # c = err·ln(1/std), (std, seed)
for key, vals, fmt in (("slope", vt["slope"], ".2f"), ("shrink", vt["shrink"], ".1f"),
                       ("cdeep", vt["c_deep"], ".2f"), ("ctl-slope", ct["slope"], ".2f"),
                       ("ctl-mono", ct["mono"], ".2f"), ("ctl-fitted", ct["fitted"], ".0f"),
                       ("ctl-shrink", ct["shrink"], ".1f"), ("ctl-cnoninc", ct["c_noninc"], ".0f"),
                       *((f"c{k}", c_std[k], ".2f") for k in range(len(STDS_T)))):
    put(f"xor-trend-{key}", span(vals, fmt))
print({k: np.round(np.asarray(v, dtype=float), 3) for k, v in vt.items()}, "| σ = id:", ct)
ledger.measure("agf-on-xor.levels-limit", xsw)                             # consistency, no new run
print(f"agf-on-xor.levels-limit: {say('xor-lev-trend', 'agf-on-xor.levels-limit')}")
dev_std = np.array([sy.claims.xor_levels(xr)["dev"] for xr in std_runs])   # the same dev, per std
for k, d in enumerate(dev_std):
    put(f"xor-lev-std{k}", span(d, ".3f"))
print("levels' dev per std (rows: std", STDS_T, "):", np.round(dev_std, 3))

# %% [markdown]
# AGF's XOR jump times as std $\to0$: {glue:md}`synthesis-xor-trend` (slope {glue:md}`synthesis-xor-trend-slope`
# against $1/\ln(1/\text{std})$, shrink {glue:md}`synthesis-xor-trend-shrink` from std $10^{-3}$ to $10^{-12}$). The
# error times $\ln(1/\text{std})$ is {glue:md}`synthesis-xor-trend-c0` at std $10^{-3}$,
# {glue:md}`synthesis-xor-trend-c1` at $10^{-6}$ and {glue:md}`synthesis-xor-trend-c2` at $10^{-12}$: it falls, so the
# error shrinks faster than $1/\ln(1/\text{std})$ over these three points, but it is still above 1 (the clusters
# claim's tolerance) at the deepest point. The linear network fits
# {glue:md}`synthesis-xor-trend-ctl-fitted` of the four clusters (those of norms 4 and 3, at times that also grow like
# $\ln(1/\text{std})$), and on those its error against AGF: monotone fraction
# {glue:md}`synthesis-xor-trend-ctl-mono`, slope {glue:md}`synthesis-xor-trend-ctl-slope`, shrink
# {glue:md}`synthesis-xor-trend-ctl-shrink`, $c$ non-increasing {glue:md}`synthesis-xor-trend-ctl-cnoninc`. This is the
# $\text{std}\to0$ form of the clusters claim's times, which stays a consistency check at std $10^{-6}$.
# On the same runs the levels claim's deviation (largest over the middle half of each plateau) is
# {glue:md}`synthesis-xor-lev-std0` at std $10^{-3}$, {glue:md}`synthesis-xor-lev-std1` at $10^{-6}$ (step
# $2\cdot10^{-2}$) and {glue:md}`synthesis-xor-lev-std2` at $10^{-12}$: `agf-on-xor.levels-limit` (no deviation
# growing towards std $\to0$, within 5 % at $10^{-12}$) {glue:md}`synthesis-xor-lev-trend`, a consistency check
# for the same reason as the jump times (three points) and declared after these values had been seen. It carries no
# premises: the std-$10^{-3}$ point starts at neuron norms $\approx4\cdot10^{-3}$, above the levels claim's norm
# premise ($<10^{-3}$), and the std-$10^{-6}$ point is GD at step $2\cdot10^{-2}$. That the tilt which fails the levels
# claim at std $10^{-6}$ is a finite-std effect is what these three points suggest, not a graded limit.

# %% [markdown]
# **The order where the centroid norms are silent.** On Pinson's toy the largest centroid norm comes first, which is
# also what a run without saddles does by default. On a variant with every centroid norm 3 and cluster sizes 80, 40,
# 60, 20 (a fresh draw per seed, std $10^{-6}$, part 3's GD) the norm order says nothing, and AGF's utility ranks
# the clusters by size. A consistency check: GD from std 0.5 fits the larger clusters faster too, so no cheap run
# removes the ranking.

# %%
# Part 3's GD and AGF on an XOR variant (cluster c: sizes[c] points, centroid norm norms[c]).
def xor_variant(sizes, norms, off):
    gens = [generator(seed + off + r) for r in range(N_SEEDS)]
    Xv, Yv, clv = sy.xor_variant_data(sizes, norms, gens)
    p0v = sy.homogeneous_race_net(rc.race_init(M_X, 2, STD, generator(seed + off + 100),
                                               runs=(N_SEEDS,), dtype=torch.float64))
    g = sy.gd_run(p0v, Xv, Yv, loss=SQ, lr=LR_X, steps=S_X)
    closs = rc.cluster_losses(g.params, Xv, Yv, clv, SQ).numpy()
    runs = sy.xor_agf_runs(p0v, Xv, Yv, tau_max=T_X, loss=SQ)
    return sy.claims.XorRuns(g.time, g.loss.numpy(), closs, runs, Xv, Yv, clv)


# %%
SIZES = [80, 40, 60, 20]          # clusters at 45°, 135°, 225°, 315°; every norm 3
xeq = xor_variant(SIZES, [3.0] * 4, 600)
eq_id = "agf-on-xor.order-equal-norms"
ledger.measure(eq_id, xeq, std=STD)
print(f"{eq_id}: {say('xor-eq-order', eq_id)}")

# %%
xut = xor_variant([20, 40, 60, 80], [4.0, 3.0, 2.0, 1.0], 800)   # utility ≠ size ≠ norm order
ledger.measure("agf-on-xor.order-utility", xut, std=STD)
print(f"agf-on-xor.order-utility: {say('xor-ut-order', 'agf-on-xor.order-utility')}")
print("AGF's jump times (utility variant):",
      [np.round(np.asarray(r.tau[1:5], float), 1) for r in xut.agf])

# %% [markdown]
# AGF's order is GD's in {glue:md}`synthesis-xor-eq-order`. Equal norms only silence the norm order; on a second
# variant, sizes 20, 40, 60, 80 against norms 4, 3, 2, 1, AGF's utility (about $n_c\sqrt{\lVert\mu_c\rVert^2+1}$)
# orders the clusters differently from both the size order and the largest-norm-first order, and AGF's order is
# GD's in {glue:md}`synthesis-xor-ut-order` (`agf-on-xor.order-utility`, declared before its first run; a
# consistency check for the same reason).

# %% [markdown]
# **Out of AGF's premise: the race paper's own loss.** AGF is derived for the square loss; the race paper
# trains with cross-entropy, whose cost phase has no minimum. As an observation (not graded), we rerun the
# small-initialisation GD runs with cross-entropy on the class labels, from the same networks, and read
# each cluster's drop as the first time its cross-entropy falls to half its initial value.

# %%
yx = (Yx[:N_SEEDS, :, 1] > 0).long()
xce = sy.gd_run(small, Xx[:N_SEEDS], yx, loss=CE, lr=LR_X, steps=S_X)
t_ce = sy.ce_cluster_drops(xce, Xx[:N_SEEDS], yx, clx, CE)
# AGF's jump time per seed and cluster
agf_t = sm.pivot(index="seed", columns="cluster", values="agf").to_numpy()
ce_same = sy.same_order(t_ce, agf_t)
put("xor-ce-order", f"{ce_same} of {N_SEEDS}")
put("xor-ce-late", span(agf_t - t_ce, ".1f"))
print("cross-entropy per-cluster drops:", np.round(t_ce, 2))
print("same order as AGF in", ce_same, "seeds")

# %% [markdown]
# With cross-entropy the clusters drop in AGF's order in {glue:md}`synthesis-xor-ce-order` seeds, and AGF's
# jump times minus these drop times range over {glue:md}`synthesis-xor-ce-late`. At $h=0$ both losses have
# the same output gradient, so the first jump is the same problem; after it, this is an observation outside
# AGF's hypotheses, not a test.

# %% [markdown]
# ## Summary
# What the ledger below shows, claim by claim (pass rates over the seeds; *premise not met* where the
# borrowed theorem's hypotheses fail):
#
# | cross-paper prediction | pass rate | tells the two papers apart? |
# |---|---|---|
# | AGF's jump times on orthogonal inputs: error $\to0$ as $\lambda\to0$ (trend, $\lambda$ down to $10^{-30}$) | {glue:md}`synthesis-orth-times` | no: the orthogonal paper's leading order has the same limit |
# | the orthogonal paper's leading-order times: error $\to0$ as $\lambda\to0$ (trend) | {glue:md}`synthesis-orth-lead` | no: AGF has the same limit |
# | AGF's intermediate level on orthogonal inputs: deviation $\to0$ as $\lambda\to0$ (trend) | {glue:md}`synthesis-orth-levels` | no: Boursier et al.'s Lemma 3 predicts the same level |
# | AGF closer to GD than the leading-order phase times (finite $\lambda$, consistency check) | {glue:md}`synthesis-orth-vs` | only in $O(1)$ constants Boursier et al. do not state |
# | CIFAR-10 data satisfy the alignment paper's Assumption 1 (a measurement) | {glue:md}`synthesis-mu` | no: a premise of one paper, on the other's data |
# | cones (Theorem 1, needs Assumption 1) | {glue:md}`synthesis-cones` | not tested: the race paper's own prediction is not graded |
# | winners align with $\operatorname{sign}(v)\,x_a(w)$ inside the alignment window (step premise; consistency check) | {glue:md}`synthesis-field` | no: at small initialisation the race paper's $\langle\gamma\rangle$ is the same field |
# | low-rank first layer (Theorem 1, needs Assumption 1) | {glue:md}`synthesis-rank` | not tested: the race paper's own prediction is not graded |
# | Theorem 1 on the race network on separable data ($\mu>0$; outside its $\varepsilon$, balance and gradient-flow conditions; consistency checks): cones; low rank | {glue:md}`synthesis-separable-cones`; {glue:md}`synthesis-separable-low-rank` | not tested: the race paper's own prediction is not graded |
# | AGF on the XOR toy: cluster order and jump times (finite std, consistency check) | {glue:md}`synthesis-xor-clusters` | the order no (Pinson's growth law, Prop. 4.6 / eqs. 18–19, gives the same order; largest-norm-first is our reading of it); the times only in $O(1)$ constants (Pinson's eqs. 18–19 give AGF's leading-order time) |
# | AGF's XOR jump times: error shrinks over std $10^{-3}\dots10^{-12}$ (3 points, consistency check) | {glue:md}`synthesis-xor-trend` | no: Pinson's eqs. 18–19 give the same leading-order time |
# | AGF's cluster order where the centroid norms are equal (sizes 80, 40, 60, 20; consistency check) | {glue:md}`synthesis-xor-eq-order` | no: Pinson's $\langle\gamma\rangle$ ranks by the same utility |
# | AGF on the XOR toy: loss levels (middle half of each plateau, 5 %) | {glue:md}`synthesis-xor-levels` | no: one cluster fitted per plateau is the race paper's picture too |
# | AGF's cluster order where its utility order differs from the size and norm orders (sizes 20–80 against norms 4–1; consistency check) | {glue:md}`synthesis-xor-ut-order` | no: Pinson's $\langle\gamma\rangle$ ranks by the same utility |
# | the plateaus' tilt shrinks as std $\to0$, within 5 % at std $10^{-12}$ (3 points, consistency check) | {glue:md}`synthesis-xor-lev-trend` | no |

# %%
# the "after" column: the pass rate and the tier, as the ledger states them
for cid in ledger.results:
    put(f"after-{cid.replace('.', '-')}", f"{ch.rate(cid)}, {ledger.results[cid].tier()[0]}")

# %% [markdown]
# ## What changed in this revision
# **This revision (acceptance audit of issue 26, session 12).** Verdicts before (the published sweep) and after
# (this run); each change is in the claim's `history`, in a commit of its own:
#
# | claim | before | after | what changed |
# |---|---|---|---|
# | `agf-on-orthogonal.jump-times` | 5 of 5, quantitative | {glue:md}`synthesis-after-agf-on-orthogonal-jump-times` | consistency check: its control $\sigma=\mathrm{id}$ removes the ReLU (Boursier et al.'s sign split), not AGF's mechanism (the saddles of a small initialisation); a large initialisation has no drops to time along a $\lambda$-sweep, so no cheap run without AGF's mechanism was found; control removed, its values shown; rule, premises, expectation unchanged |
#
# Text only (no rule, premise, run or expectation changed): `agf-on-orthogonal.levels`' control text says it
# removes Boursier et al.'s Lemma 3 mechanism, not AGF's; `alignment-on-race.cones` and `.low-rank` say that their
# premise fails in every seed by the data's geometry ($\mu$ is a property of the images, so no setting on the race's
# data meets it) and cite the alignment chapter's `thm1.*` rows, and the sentence that called a full-premise
# setting "seconds" of compute is replaced (no such setting exists on these data; the full-premise setting is the
# alignment chapter's); `agf-on-xor.levels-limit` says it has no premises, that its std-$10^{-3}$ point is above the
# levels claim's norm premise and that it was declared after its values were seen; "What holds" says what is
# graded (a six-point trend, not "exactly as $\lambda\to0$"; the local field near an identity; the XOR tilt on
# three points), the stale "not graded in this revision" is gone, and the budget sentences agree (43 s probed,
# about 60 s estimated at step $10^{-2}$).
#
# **The revision before (issue 27: code the next engineer can live in).** No claim's rule, premise, control,
# expectation or measurement changed. The notebook's runs and tables moved into tested functions of
# `lrlib.theory.synthesis.runs` (the batched sweeps, AGF from each run, part 1's jump table and λ-sweep, part 3's
# XOR table, the cross-entropy drops) and its glued texts into `lrlib.theory.synthesis.report` (ranges over the
# seeds, pass rates with their premise notes, the notes under the figures, the "What holds" rows); AGF's cost
# phase is the named `agf_gd.cost_phase` instead of a lambda; the theory package's tests are split by module.
# The full strict run gives the published sweep's values, verdicts and tiers for every claim. Two shown texts
# changed: a range over the seeds now skips a seed whose value is undefined instead of printing `nan`, and the
# part-2 lens table of the step-premise run, computed but never shown, is no longer computed. Issue 26's
# deeper std points for `agf-on-xor.jump-times-limit` were probed, not added ("What remains open", (i)).
#
# **Earlier (referee report s11).** Verdicts before (the previous full run, 5 seeds) and after (this run);
# each change is in the claim's `history`, in a commit of its own:
#
# | claim | before | after | what changed |
# |---|---|---|---|
# | `alignment-on-race.separable-cones`, `.separable-low-rank` | 5 of 5, quantitative | {glue:md}`synthesis-after-alignment-on-race-separable-cones`; {glue:md}`synthesis-after-alignment-on-race-separable-low-rank` | consistency checks, outside Theorem 1's $\varepsilon$, balance and gradient-flow conditions (only $\mu>0$ holds; low rank cannot fail on antipodal class directions); the std-$1/\sqrt{20}$ run is shown at the last step, not graded; out-of-cone count, final-step and bias-augmented readings shown |
# | `agf-on-xor.order-utility` | new | {glue:md}`synthesis-after-agf-on-xor-order-utility` | the cluster order on a variant where AGF's utility order differs from both the size and the norm order (declared and committed before its first run: `predicted`, consistency) |
# | `agf-on-xor.levels-limit` | new | {glue:md}`synthesis-after-agf-on-xor-levels-limit` | the levels' deviation along the jump-time sweep's runs (no new run), as a trend towards std $\to0$; declared after its values were seen (`observed`), consistency (three points) |
# | `agf-on-xor.jump-times-limit` | 5 of 5, quantitative (`predicted`) | {glue:md}`synthesis-after-agf-on-xor-jump-times-limit` | consistency check (three std points are not a trend; std $10^{-18}$, $10^{-24}$ cost 43 s in a probe, inside the budget, but fail the step premise at step $2\cdot10^{-2}$: "What remains open", (i)); rule: `fitted == 4` dropped (it failed the $\sigma=\mathrm{id}$ run by construction), $c=\text{err}\cdot\ln(1/\text{std})$ non-increasing added; the $\sigma=\mathrm{id}$ run (it removes ReLU gating, not AGF's mechanism) shown, not graded; `expect_basis` observed (the rule had changed after the first quick run) |
#
# Text and shown values (no rule changed): the "What holds" table names cross-paper statements, says where a
# premise fails in some seeds, states both ratios of the finite-$\lambda$ comparison and words the XOR rows
# neutrally; `agf-on-xor.order-equal-norms` tells the papers apart "no" (was "partly"); the XOR cluster order is
# cited to Pinson's Prop. 4.6 / eqs. 18–19; part 3 shows $c=\text{err}\cdot\ln(1/\text{std})$ per std and the levels'
# deviation on the std-sweep's runs; "What remains open" states the separable rows' missing premises and calls
# the local-field explanation a hypothesis.
#
# **Earlier (issue 26).** Verdicts before (the published sweep, base seed 0, 5 seeds) and after (this run), for
# each claim whose measurement, rule, control or expectation changed; each change is in the claim's `history`:
#
# | claim | before | after | what changed |
# |---|---|---|---|
# | `agf-on-orthogonal.levels` | 5 of 5, consistency | {glue:md}`synthesis-after-agf-on-orthogonal-levels` | GD's plateau read with the book's one plateau reader `lrlib.measure.plateau_between` (median over the middle half of the interval) instead of the loss at the midpoint: the same reading on this monotone, evenly sampled curve |
# | `agf-on-xor.levels` | 0 of 5, quantitative | {glue:md}`synthesis-after-agf-on-xor-levels` | `dev` read with `plateau_between` ($\max(\lvert\text{high}-\ell\rvert,\lvert\text{low}-\ell\rvert)/\lvert\ell\rvert$, the same window and numbers as before); `dev_mid` is the plateau's median |
# | `agf-on-xor.jump-times-limit` | new | {glue:md}`synthesis-after-agf-on-xor-jump-times-limit` | the std $\to0$ trend of AGF's XOR jump times (declared and committed before its first run: `predicted`); after the first quick run the worst error is read over the clusters both fit, with `fitted == 4` in the rule, because the linear control's measurement was undefined (history) |
# | `agf-on-xor.order-equal-norms` | new | {glue:md}`synthesis-after-agf-on-xor-order-equal-norms` | the cluster order on an XOR variant with equal centroid norms, where the norm order is silent and AGF's utility ranks by size (a consistency check, declared after a probe: `observed`) |
# | `alignment-on-race.separable-cones`, `.separable-low-rank` | new | {glue:md}`synthesis-after-alignment-on-race-separable-cones`; {glue:md}`synthesis-after-alignment-on-race-separable-low-rank` | Theorem 1 where its premise holds: the race network on separable data (declared after a probe: `observed`) |
#
# The three figures drawn from seed 0 now let the reader switch seeds (`glue_seeds`; panel (b) of Figures 1 and 3
# pools the seeds and is the same in each).
#
# The "What holds" table at the top is new (`lrlib.theory.synthesis.claims.WHAT_HOLDS`). Every claim's statement now
# opens with the theory that predicts it and the experiment it is tested on; every control was checked to be a run
# without that theory's mechanism (ReLU gating for part 1's three trends — the ReLU's sign split is Boursier et al.'s mechanism; AGF applies to linear networks too, so for AGF's rows the $\sigma=\mathrm{id}$ control removes ReLU gating, not AGF's mechanism — the small initialisation for
# Theorem 1 and for AGF's XOR levels), and the three controls whose text did not name it now do (text only).
#
# **An earlier revision** answered a referee's report on the one before (which had moved every claim to a declared
# measurement with a control run). Verdicts before (that revision's full run, seed 0) and after (this run), for each
# claim whose verdict, tier or measurement changed then:
#
# | claim | before | after | what changed |
# |---|---|---|---|
# | `agf-on-orthogonal.jump-times` | 5 of 5, quantitative | {glue:md}`synthesis-after-agf-on-orthogonal-jump-times` | control: the same networks with $\sigma=\mathrm{id}$ (`linear_net`) instead of one linear model from 0, which failed by construction; drops Richardson-extrapolated; premise on the extrapolation's residual relative to the graded error; `coarse=` run added |
# | `agf-on-orthogonal.leading-order-limit` | 5 of 5, quantitative | {glue:md}`synthesis-after-agf-on-orthogonal-leading-order-limit` | as for the jump times; the limit cited from Boursier et al. §4 |
# | `agf-on-orthogonal.levels` | 5 of 5, quantitative | {glue:md}`synthesis-after-agf-on-orthogonal-levels` | rule: the flow's rate $1-\lVert D_-\rVert/\lVert D_+\rVert$ for the slope instead of shrink $\ge1000$ (slack $\sim10^9$ on a round-off deep point; the old control's deviation was flat at 0.14 and passed `mono`); control `linear_net`; the coarse run passes, hence the consistency tier |
# | `agf-on-orthogonal.vs-leading-order` | 5 of 5, consistency | {glue:md}`synthesis-after-agf-on-orthogonal-vs-leading-order` | shows the ratio against $\ln(1/(c\lambda))/\lVert D_\pm\rVert$ too |
# | `alignment-on-race.assumption1` | 0 of 5, consistency | {glue:md}`synthesis-after-alignment-on-race-assumption1` | $\mu$ on $(x,1)$ (hidden biases) instead of the larger of raw and centred pixels |
# | `alignment-on-race.local-field` | 3 of 3 graded (seeds 2, 4 premise not met), reproduction | {glue:md}`synthesis-after-alignment-on-race-local-field` | consistency check (near an identity of the gradient); control removed |
# | `agf-on-xor.clusters` | 0 of 5, quantitative | {glue:md}`synthesis-after-agf-on-xor-clusters` | consistency check at finite std (a tolerance no paper states; a control that could not tell runs apart); rule unchanged |
# | `agf-on-xor.levels` | 5 of 5, quantitative | {glue:md}`synthesis-after-agf-on-xor-levels` | deviation over the middle half of each inter-drop interval instead of at the midpoint (which a smooth decay could pass); the plateaus tilt by more than 5 % towards the next drop; expectation now `not reproduced` (observed) |
#
# Each change made after a result had been seen is in the claim's `history` (claims file); every expectation is
# `observed`.
#
# ## What remains open
# (i) The XOR jump times' std $\to0$ limit is read on three std points (`agf-on-xor.jump-times-limit`, a
# consistency check). The deeper points std $10^{-18}$ and $10^{-24}$ need GD to $t\approx320$ (the slowest
# cluster drops near $t=259$ at $10^{-24}$). A probe of both (5 seeds, GD at step $2\cdot10^{-2}$, the
# $\sigma=\mathrm{id}$ runs, AGF from each network) took 43 s on the shared machine (GD 16 s, $\sigma=\mathrm{id}$
# 4 s, AGF 22 s, load 3.4), inside the 60 s this chapter may grow by; but at that step the claim's step premise
# (GD's first-order bias, 0.66 % of the drop times, below a fifth of the graded error at the deepest std) fails
# at $10^{-24}$, where the probe's worst error is 2.2–2.7 %. The deep points need GD at step $10^{-2}$ (the GD
# share doubles: about 60 s in all, an estimate, at the edge of the budget) or Richardson-extrapolated drops as in part 1, a
# change of the claim's measurement not declared in this revision; the probe's errors kept falling
# ($c=\text{err}\cdot\ln(1/\text{std})$ 1.3–1.6 at $10^{-18}$, 1.2–1.5 at $10^{-24}$; not graded). The clusters
# claim stays a consistency check at std
# $10^{-6}$. Its order is checked where the centroid-norm order is silent (`agf-on-xor.order-equal-norms`), but a
# variant where AGF's utility order differs from both the size order and the norm order (sizes 20/40/60/80
# against norms 4/3/2/1) is now checked too (`agf-on-xor.order-utility`), but a control run not fitted in the
# utility order has not been found.
# (ii) Theorem 1's cones and low rank on CIFAR-10 stay *not graded* (Assumption 1 fails, also on $(x,1)$): $\mu$ is
# a property of the data, so no setting on the race's data meets the premise. On separable data
# (`alignment-on-race.separable-*`) only $\mu>0$ holds: Theorem 1's $\varepsilon$ bound, balanced initialisation and
# gradient flow do not, and low rank cannot fail on those data, so both rows are consistency checks. Theorem 1 with
# every premise is graded on the alignment chapter's data (`thm1.*`), not on the race's; the race network
# with every premise imposed is that chapter's network, so it was not rebuilt here.
# (iii) The XOR levels' tilt is read along the same three std points (`agf-on-xor.levels-limit`, a consistency
# check); a graded limit needs the deeper points of (i).
# (iv) The local-field step premise compares two SGD runs that pick their own winners from different batches; that
# the seeds where it fails fail through SGD noise rather than the step is a
# hypothesis, not tested: a same-step, other-batch-seed baseline is one more batched race run of part 2's small
# half, twice the cost of the step-premise run ({glue:md}`synthesis-race-cost` in this run).
# (v) The levels claim on orthogonal inputs is tiered consistency because GD with a coarse step reproduces the
# plateau and its rate: the claim shows what the flow's plateau is, not that GD's step is small.

# %% [markdown]
# ## Claims ledger
# The cross-paper predictions: the declared rule, premises and negative control
# (`notebooks/05_synthesis.claims.yaml`), what we measured per seed, and the verdicts. The book's own run
# fails if a control passes its rule or a pass rate leaves its declared expectation.

# %%
# The header names a cross-paper statement, not "the paper says"; a pass rate counts the seeds
# whose premise failed, e.g. "3/3 (+2 premise not met)".
glue_what_holds("synthesis", ledger, sy.claims.WHAT_HOLDS, header="cross-paper statement")

# %%
ch.finish()
