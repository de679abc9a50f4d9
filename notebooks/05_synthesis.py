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
from IPython.display import HTML, Markdown
from myst_nb import glue as glue_value

from lrlib import chapter
from lrlib import measure
from lrlib.data import cifar_race
from lrlib.ledger.summary import what_holds_rows
from lrlib.ledger.view import table_html
from lrlib.losses import Loss
from lrlib.models import TwoLayer, balanced_init, forward, generator
from lrlib.plots import glue_seeds
from lrlib.plots import synthesis as sy_plots
from lrlib.theory.orthogonal.data import orthonormal_testbed
from lrlib.theory import agf
from lrlib.theory import alignment as al
from lrlib.theory import orthogonal as orth
from lrlib.theory import race as rc
from lrlib.theory import synthesis as sy
from lrlib.train import train
from lrlib.schedules import log_schedule

# %%
ch = chapter.start("synthesis", seed, quick, ledger_path)
quick, N_SEEDS, ledger = ch.quick, ch.n_seeds, ch.ledger
SQ = Loss("square", reduction="mean", scale=0.5)     # L = 1/(2n) Σ ‖h − y‖²
CE = Loss("cross_entropy")
LAMS = [1e-3, 1e-6, 1e-12, 1e-18, 1e-24, 1e-30]        # λ → 0, one draw per seed scaled by λ (float64)
print(SQ.describe(), "|", CE.describe(), f"| λ = {LAMS}")


# %%
def say(key: str, cid: str) -> str:
    """Glue claim ``cid``'s pass rate, as the ledger states it, under ``key`` for the text."""
    v = ledger.results[cid].verdicts
    extra = [f"{w} in {v.count(w)} of {len(v)}" for w in ("partial", "premise not met") if w in v and len(set(v)) > 1]
    s = ch.rate(cid) + (f" ({'; '.join(extra)})" if extra else "")
    glue_value(key, Markdown(s), display=False)
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
lam_runs = torch.tensor(LAMS, dtype=torch.float64).repeat_interleave(N_SEEDS)      # run i·N_SEEDS + s: λ_i, seed s
base = balanced_init(m, d, scale=1.0, gen=generator(seed), runs=(N_SEEDS,))
p0 = TwoLayer(W1=base.W1.repeat(len(LAMS), 1, 1) * lam_runs[:, None, None], W2=base.W2.repeat(len(LAMS), 1, 1) * lam_runs[:, None, None])
DT = 1e-2
STEPS = int(1.25 * math.log(1 / min(LAMS)) / kv.norm_minus / DT)
gd = train(p0, X, y, loss=SQ, lr=DT, steps=STEPS, record=np.arange(0, STEPS + 1, 10))
gd2 = train(p0, X, y, loss=SQ, lr=2 * DT, steps=STEPS // 2, record=np.arange(0, STEPS // 2 + 1, 5))   # 2·DT: Richardson
gd4 = train(p0, X, y, loss=SQ, lr=4 * DT, steps=STEPS // 4, record=np.arange(0, STEPS // 4 + 1, 5))   # 4·DT: its residual
COARSE = 0.2                                                            # coarse= run: a step far too large for the flow
gdc = train(p0, X, y, loss=SQ, lr=COARSE, steps=int(STEPS * DT / COARSE), record=np.arange(0, int(STEPS * DT / COARSE) + 1))
lin_p0 = TwoLayer(W1=p0.W1, W2=p0.W2, act="linear")                      # control: the same networks without the ReLU
lin = train(lin_p0, X, y, loss=SQ, lr=DT, steps=STEPS, record=np.arange(0, STEPS + 1, 10))

# %%
agf_runs = [agf.agf(TwoLayer(W1=p0.W1[r], W2=p0.W2[r]), X, y, loss=SQ, kappa=2, eta=1.0, dtau_max=0.5,
                    cost_fn=lambda net: train(net, X, y, loss=SQ, lr=0.05, steps=4000, record=log_schedule(4000, 30)),
                    tau_max=1.5 * math.log(1 / lam) / kv.norm_minus) for r, lam in enumerate(lam_runs.tolist())]

# %%
rows = []
for r, (lam, run) in enumerate(zip(lam_runs.tolist(), agf_runs)):
    L1, L2 = gd.loss[:, r].numpy(), gd2.loss[:, r].numpy()
    gap, rgap = [np.nan], [np.nan]
    if len(run.tau) >= 3:
        t1, t2, t4 = (measure.drop_times(g.time, g.loss[:, r].numpy(), run.levels[:3]) for g in (gd, gd2, gd4))
        gap, rgap = measure.relative_error(t2, t1), measure.relative_error(2 * t2 - t4, 2 * t1 - t2)   # Richardson residual ≈ rgap/3
    pt = orth.phase_times(kv, lam)
    rows += [dict(lam=lam, run=r, seed=r % N_SEEDS, step_gap=np.max(gap), rich_gap=np.max(rgap), **row) for row in sy.agf_vs_gd_jumps(
        gd.time, L1, run.tau, run.levels, (pt.t2_scale, pt.t3_scale), tol=1 / math.log(1 / lam))]
jumps = pd.DataFrame(rows)
jumps.groupby(["lam", "jump"])[["gd", "agf", "leading", "err_agf", "err_leading", "tol"]].median()

# %%
def orth_fig(s):
    """Part 1's figure for seed ``s`` of the batch (panel (b): medians over the seeds)."""
    at = {lam: i * N_SEEDS + s for i, lam in enumerate(LAMS)}
    losses = {lam: gd.loss[:, r].numpy() for lam, r in at.items()}
    runs = {lam: agf_runs[r] for lam, r in at.items()}
    return sy_plots.agf_on_orthogonal(gd.time, losses, runs, jumps, seed=seed + s)

# %%
deep = jumps[jumps.lam == min(LAMS)].groupby("seed")[["err_agf", "err_leading"]].max()
notes = [f"seed {seed + s}: at λ = {min(LAMS):.0e}, AGF's worst relative drop-time error "
         f"{deep.err_agf[s]:.4f}, the leading order's {deep.err_leading[s]:.4f} (drops not "
         "extrapolated)" for s in range(N_SEEDS)]
glue_seeds("synthesis-agf-orthogonal", [orth_fig(s) for s in range(N_SEEDS)], notes,   # drawn here
           labels=[f"seed {seed + s}" for s in range(N_SEEDS)])

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
per_lam = lambda xs: [[xs[i * N_SEEDS + s] for s in range(N_SEEDS)] for i in range(K)]
sweep = sy.claims.LambdaSweep(lams=np.array(LAMS), time=gd.time, loss=gd.loss.numpy().reshape(-1, K, N_SEEDS),
                              tau=per_lam([r.tau for r in agf_runs]), levels=per_lam([r.levels for r in agf_runs]),
                              leading=np.array([[orth.phase_times(kv, lam).t2_scale, orth.phase_times(kv, lam).t3_scale] for lam in LAMS]),
                              loss2=gd2.loss.numpy().reshape(-1, K, N_SEEDS),                         # drops: 2 t(DT) − t(2·DT)
                              c=(p0.W1.norm(dim=-1).amax(-1) / lam_runs).numpy().reshape(K, N_SEEDS))   # Boursier et al.'s c
linear_net = sweep.with_loss(lin.loss.numpy().reshape(-1, K, N_SEEDS))      # control, read without extrapolation
coarse = sweep.with_loss(np.stack([np.interp(gd.time, gdc.time, gdc.loss[:, r].numpy()) for r in range(len(lam_runs))], 1).reshape(-1, K, N_SEEDS))
step_gap = jumps.groupby("seed").step_gap.max().to_numpy()
rich_gap = jumps.groupby("seed").rich_gap.max().to_numpy()

# %%
neg = float((y[y < 0] ** 2).sum() / (2 * n))
RATE = 1 - kv.norm_minus / kv.norm_plus                                     # the level's deviation ∝ λ^RATE
for cid in ("agf-on-orthogonal.jump-times", "agf-on-orthogonal.leading-order-limit"):
    ledger.measure(cid, sweep, controls={"linear_net": linear_net}, coarse=coarse, premises=dict(rich_gap=rich_gap))
ledger.measure("agf-on-orthogonal.levels", sweep, controls={"linear_net": linear_net}, coarse=coarse, rate=RATE,
               premises=dict(step_gap=step_gap), note=f"closed-form level Σ_(y<0) y²/(2n) = {neg:.5f}; rate 1 − ‖D−‖/‖D+‖ = {RATE:.3f}")
ledger.measure("agf-on-orthogonal.vs-leading-order", sweep, premises=dict(step_gap=step_gap))

# %%
vs_vals = ledger.results["agf-on-orthogonal.vs-leading-order"].values
ctl_t = {k: np.array(v, dtype=float) for k, v in ledger.results["agf-on-orthogonal.jump-times"].control_values.items()}
ctl_v = {k: np.array(v, dtype=float) for k, v in ledger.results["agf-on-orthogonal.levels"].control_values.items()}
for key, txt in (("orth-ratio-c", f"{np.min(vs_vals['ratio_c']):.1f} to {np.max(vs_vals['ratio_c']):.1f}"),
                 ("orth-ctl-slope", f"{ctl_t['slope'].min():.2f} to {ctl_t['slope'].max():.2f}"),
                 ("orth-ctl-shrink", f"{ctl_t['shrink'].min():.2f} to {ctl_t['shrink'].max():.2f}"),
                 ("orth-ctl-lslope", f"{ctl_v['slope'].min():.1e} to {ctl_v['slope'].max():.1e}"),
                 ("orth-rate", f"{RATE:.3f}"), ("orth-step-gap", f"{step_gap.max():.4f}"),
                 ("orth-coarse", ", ".join(f"{cid.split('.')[-1]} {ledger.results[cid].coarse_verdicts.count('reproduced')} of {N_SEEDS}"
                                           for cid in ("agf-on-orthogonal.jump-times", "agf-on-orthogonal.leading-order-limit", "agf-on-orthogonal.levels")))):
    glue_value(f"synthesis-{key}", Markdown(txt), display=False)
# %%
for key, cid in (("orth-times", "agf-on-orthogonal.jump-times"), ("orth-lead", "agf-on-orthogonal.leading-order-limit"),
                 ("orth-levels", "agf-on-orthogonal.levels"), ("orth-vs", "agf-on-orthogonal.vs-leading-order")):
    print(f"{cid}: {say(f'synthesis-{key}', cid)}")
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
# The **control** of all three is the same two-layer network **without the ReLU** ($\sigma=\mathrm{id}$), from the same
# $\lambda$-scaled initialisations, with the same step and horizon. It keeps the saddle at the origin and a plateau of
# length $\approx\ln(1/\lambda)$, but not the ReLU's two phases: it fits every label in one escape, so AGF's two jump
# times miss its drops by a relative amount that does not shrink with $\lambda$ (slope {glue:md}`synthesis-orth-ctl-slope`,
# shrink {glue:md}`synthesis-orth-ctl-shrink` over the seeds), and its loss between AGF's drops misses the level by a
# constant (slope {glue:md}`synthesis-orth-ctl-lslope`). (The previous revision's control, one linear model $\beta$ from 0,
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
Xc = torch.stack([dd[0] for dd in data])
yc = torch.stack([dd[1] for dd in data])
mus = sy.claims.data_mu((Xc, yc))                                 # μ on (x, 1) (hidden biases) and on raw x
STD_BIG = 3e-2                                                    # control: neuron norms ≈ 1 at the start
pc0 = rc.race_init(250, 1024, 1e-4, generator(seed + 100), runs=(N_SEEDS,))
pc_big = rc.race_init(250, 1024, STD_BIG, generator(seed + 100), runs=(N_SEEDS,))
race1 = train(TwoLayer(**{k: torch.cat([getattr(pc0, k), getattr(pc_big, k)]) for k in ("W1", "W2", "b1", "b2")
                         if getattr(pc0, k) is not None}),
             Xc.repeat(2, 1, 1), yc.repeat(2, 1), loss=CE, lr=1e-3, momentum=0.9, batch_size=4, steps=STEPS_C,
              record=log_schedule(STEPS_C, 60), seed=seed + 1, check_every=1000)     # runs: N_SEEDS small, then N_SEEDS control
t_r2 = time.perf_counter()
race2 = train(pc0, Xc, yc, loss=CE, lr=2e-3, momentum=0.9, batch_size=4, steps=STEPS_C // 2,       # step premise: 2× step
              record=log_schedule(STEPS_C // 2, 60), seed=seed + 1, check_every=1000)
race_cost = f"{time.perf_counter() - t_r2:.0f} s for the step-premise run of the {N_SEEDS} seeds"
glue_value("synthesis-race-cost", Markdown(race_cost), display=False)

# %%
lens, lens2 = (pd.DataFrame([dict(seed=seed + r, **row) for r in range(N_SEEDS) for row in
                             sy.alignment_lens_rows(tr.run(r), Xc[r], yc[r], plateau_level=0.99 * math.log(2))])
               for tr in (race1, race2))
print("Assumption 1 (mu on (x, 1) / raw pixels):", np.round(mus["mu"], 3), np.round(mus["mu_raw"], 3))
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
at_end = lens[lens.when == "end of plateau"].set_index("seed")
glue_seeds("synthesis-alignment-on-race", [race_fig(r) for r in range(N_SEEDS)],   # drawn, closed
           [f"seed {seed + r}: μ on (x, 1) = {mus['mu'][r]:.3f}; at the end of the plateau "
            f"{at_end.in_cone[seed + r]:.2f} of the neurons in their cone, winners' median cosine "
            f"{at_end.cos_winners[seed + r]:.2f}" for r in range(N_SEEDS)],
           labels=[f"seed {seed + r}" for r in range(N_SEEDS)])

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
end, ini, fin = (lens[lens.when == w].sort_values("seed") for w in ("end of plateau", "init", "final"))
rr_small, rr_big = sy.claims.RaceRuns(race1, Xc, yc), sy.claims.RaceRuns(race1, Xc, yc, first=N_SEEDS)
win, win2 = sy.claims.local_field(rr_small), sy.claims.local_field(sy.claims.RaceRuns(race2, Xc, yc))  # step premise: 2× step
ledger.measure("alignment-on-race.assumption1", (Xc, yc),
               note=f"raw pixels {np.round(mus['mu_raw'], 3).tolist()}")
for cid in ("alignment-on-race.cones", "alignment-on-race.low-rank"):
    ledger.measure(cid, rr_small, controls={"race_large_init": rr_big}, init=rr_small.start(), premises=dict(mu=mu_seed))
ledger.measure("alignment-on-race.local-field", rr_small, init=rr_small.start(),
               premises=dict(cos_gap=np.abs(win["cos_w"] - win2["cos_w"])),
               note=f"all neurons at the end of the plateau: {[round(v, 3) for v in end.cos_all]}")

# %%
for key, cid in (("mu", "alignment-on-race.assumption1"), ("cones", "alignment-on-race.cones"),
                 ("field", "alignment-on-race.local-field"), ("rank", "alignment-on-race.low-rank")):
    print(f"{cid}: {say(f'synthesis-{key}', cid)}")
glue_value("synthesis-mu-range", Markdown(f"{mu_seed.min():.2f} to {mu_seed.max():.2f}"), display=False)
glue_value("synthesis-srank-range", Markdown(f"{fin.stable_rank.min():.2f} to {fin.stable_rank.max():.2f}"), display=False)
glue_value("synthesis-cone-range", Markdown(f"{end.in_cone.min():.2f} to {end.in_cone.max():.2f}"), display=False)
glue_value("synthesis-window", Markdown(f"{int(win['window'].min())} to {int(win['window'].max())}"), display=False)
glue_value("synthesis-bias", Markdown(f"{win['bias_ratio'].max():.3f}"), display=False)
glue_value("synthesis-cos-end", Markdown(f"{end.cos_winners.min():.2f} to {end.cos_winners.max():.2f}"), display=False)
print("μ per seed:", np.round(mu_seed, 3), "| stable rank at the end:", np.round(fin.stable_rank.to_numpy(), 3))

# %% [markdown]
# On CIFAR-10 the alignment paper's data assumption fails: pixel images of different classes are strongly
# positively correlated — $\mu$ on the bias-augmented inputs $(x,1)$ (the race network has hidden biases) is {glue:md}`synthesis-mu-range`
# over the seeds (Assumption 1: {glue:md}`synthesis-mu`, a measurement of the premise). Theorem 1's two
# conclusions are therefore **not graded**: cones {glue:md}`synthesis-cones`, low rank {glue:md}`synthesis-rank`
# on Pinson's data (they are read below on separable data, with the same network and optimiser, as consistency
# checks).
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
both = {k: torch.cat([getattr(ps0, k), getattr(ps_big, k)]) for k in ("W1", "W2", "b1", "b2")}
race_s = train(TwoLayer(**both), Xs.repeat(2, 1, 1), ys.repeat(2, 1), loss=CE, lr=1e-3,
               momentum=0.9, batch_size=4, steps=STEPS_C, record=log_schedule(STEPS_C, 60),
               seed=seed + 1, check_every=1000)
rs_small, rs_big = (sy.claims.RaceRuns(race_s, Xs, ys, first=f) for f in (0, N_SEEDS))
mu_sep = sy.claims.data_mu((Xs, ys))["mu"]
for cid in ("alignment-on-race.separable-cones", "alignment-on-race.separable-low-rank"):
    ledger.measure(cid, rs_small, init=rs_small.start(), premises=dict(mu=mu_sep))   # consistency
    print(f"{cid}: {say('synthesis-' + cid.split('.')[1], cid)}")

# %%
sv = ledger.results["alignment-on-race.separable-cones"].values
sep_c = sy.claims.cones_and_rank(rs_big)        # the std-1/√D runs: shown, not graded
for key, vals in (("mu", mu_sep), ("cone", sv["in_cone"]), ("srank", sv["srank"]),
                  ("nout", sv["n_out"]), ("cone-fin", sv["in_cone_final"]),
                  ("cone-b", sv["in_cone_b"]), ("srank-b", sv["srank_b"]),
                  ("ctl-cone", sep_c["in_cone_final"]), ("ctl-srank", sep_c["srank"])):
    fmt = ".0f" if key == "nout" else ".2f"
    txt = f"{np.min(vals):{fmt}} to {np.max(vals):{fmt}}"
    glue_value(f"synthesis-sep-{key}", Markdown(txt), display=False)

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
# stable rank {glue:md}`synthesis-sep-ctl-srank`. The setting where every premise holds (about 10 points with two
# class directions ~120° apart, balanced init with $\varepsilon$ inside the bound in float64, full-batch GD with a
# step-halving check; seconds of compute) is left open; with every premise imposed (one logit difference, no
# biases, balanced start, full-batch GD) the race network is Min et al.'s own network, whose Theorem 1 the
# alignment chapter grades (`thm1.*`), so what this part can add is the race network's departures from it.

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
Xx, Yx = (torch.stack([s[i] for s in xor_sets]).repeat(2, 1, 1) for i in (0, 1))    # runs: N_SEEDS small, then N_SEEDS control
clx = xor_sets[0][2]                                                                # same cluster layout in every draw
stds = torch.tensor([STD] * N_SEEDS + [STD_CTL] * N_SEEDS, dtype=torch.float64)
px0 = sy.homogeneous_race_net(rc.race_init(M_X, 2, stds, generator(seed + 300), runs=(2 * N_SEEDS,), dtype=torch.float64))
S_X = int(T_X / LR_X)
xgd = train(px0, Xx, Yx, loss=SQ, lr=LR_X, steps=S_X, record=np.arange(0, S_X + 1, 10))
small = TwoLayer(W1=px0.W1[:N_SEEDS], W2=px0.W2[:N_SEEDS])
xgd2 = train(small, Xx[:N_SEEDS], Yx[:N_SEEDS], loss=SQ, lr=2 * LR_X, steps=S_X // 2, record=np.arange(0, S_X // 2 + 1, 5))

# %%
xruns = [sy.xor_agf(TwoLayer(W1=px0.W1[r], W2=px0.W2[r]), Xx[r], Yx[r], tau_max=T_X, loss=SQ)
         for r in range(N_SEEDS)]                                             # small init only

# %%
closs = sy.cluster_losses(xgd.params, Xx, Yx, clx).numpy()                               # (T, runs, 4)
closs2 = sy.cluster_losses(xgd2.params, Xx[:N_SEEDS], Yx[:N_SEEDS], clx).numpy()

# %%
xrows, xorder, xgap = [], [], []
for r, run in enumerate(xruns):
    rows_r, ok = sy.xor_agf_vs_gd(xgd.time, closs[:, r], run, Xx[r], Yx[r], clx)
    xrows += [dict(run=r, seed=r, control=False, **row) for row in rows_r]
    xorder.append(float(ok))
    rows2, _ = sy.xor_agf_vs_gd(xgd2.time, closs2[:, r], run, Xx[r], Yx[r], clx)
    xgap.append(np.max(measure.relative_error([q["gd"] for q in rows2], [q["gd"] for q in rows_r])))
xtab = pd.DataFrame(xrows)
xtab[~xtab.control].pivot(index="seed", columns="cluster", values=["agf", "gd", "err"]).round(3)

# %%
labels = [f"cluster of norm {int(v)}" for v in (4, 3, 1, 2)]
late = (xtab.agf - xtab.gd).groupby(xtab.seed)
xfig = lambda r: sy_plots.agf_on_xor(xgd.time, xgd.loss[:, r].numpy(), closs[:, r], xruns[r],
                                    xtab[~xtab.control], 1 / math.log(1 / STD), labels,
                                    seed=seed + r)
glue_seeds("synthesis-xor-agf", [xfig(r) for r in range(N_SEEDS)],                 # drawn, closed
           [f"seed {seed + r}: AGF's jumps minus GD's per-cluster drops {late.min()[r]:.1f} to "
            f"{late.max()[r]:.1f}; cluster order as GD's: {'yes' if xorder[r] else 'no'}"
            for r in range(N_SEEDS)], labels=[f"seed {seed + r}" for r in range(N_SEEDS)])

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
xt = xtab.groupby("run")
worst = xt.err.agg(lambda e: np.max(e.to_numpy())).to_numpy() * math.log(1 / STD)   # nan where a cluster got no AGF jump
norm0 = torch.linalg.vector_norm(torch.cat([px0.W1, px0.W2.transpose(-1, -2)], -1), dim=-1).amax(-1).numpy()
fit_norm = torch.linalg.vector_norm(torch.cat([xgd.params.W1[-1], xgd.params.W2[-1].transpose(-1, -2)], -1), dim=-1).amax(-1).numpy()
ctl_half = max(measure.first_crossing(xgd.time, closs[:, r, c], closs[0, r, c] / 2) for r in range(N_SEEDS, 2 * N_SEEDS) for c in range(4))
xsmall = sy.claims.XorRuns(xgd.time, xgd.loss[:, :N_SEEDS].numpy(), closs[:, :N_SEEDS], xruns, Xx[:N_SEEDS], Yx[:N_SEEDS], clx)
xbig = sy.claims.XorRuns(xgd.time, xgd.loss[:, N_SEEDS:].numpy(), closs[:, N_SEEDS:], xruns, Xx[N_SEEDS:], Yx[N_SEEDS:], clx)
xprem = dict(norm0=norm0[:N_SEEDS], step_gap=np.array(xgap))
ledger.measure("agf-on-xor.clusters", xsmall, premises=xprem, std=STD,
               note=f"largest neuron norm at the end of GD: {fit_norm[:N_SEEDS].min():.2f}–{fit_norm[:N_SEEDS].max():.2f}")
ledger.measure("agf-on-xor.levels", xsmall, controls={"gd_large_init": xbig}, premises=xprem)

# %%
for key, cid in (("xor-clusters", "agf-on-xor.clusters"), ("xor-levels", "agf-on-xor.levels")):
    print(f"{cid}: {say(f'synthesis-{key}', cid)}")
sm = xtab[~xtab.control]
facts = {"xor-order": f"{int(sum(xorder[:N_SEEDS]))} of {N_SEEDS}", "xor-late": f"{(sm.agf - sm.gd).min():.1f} to {(sm.agf - sm.gd).max():.1f}",
         "xor-worst": f"{np.nanmin(worst[:N_SEEDS]) / math.log(1 / STD):.3f} to {np.nanmax(worst[:N_SEEDS]) / math.log(1 / STD):.3f}", "xor-tol": f"{1 / math.log(1 / STD):.3f}",
         "xor-dev": (lambda v: f"{np.min(v['dev']):.4f} to {np.max(v['dev']):.4f}, at the midpoints alone {np.min(v['dev_mid']):.4f} to {np.max(v['dev_mid']):.4f}")(ledger.results["agf-on-xor.levels"].values),
         "xor-fitnorm": f"{fit_norm[:N_SEEDS].min():.2f} to {fit_norm[:N_SEEDS].max():.2f}",
         "xor-ctl-gd": f"{ctl_half:.2f}"}
for k, v in facts.items():
    glue_value(f"synthesis-{k}", Markdown(v), display=False)

# %%
ctl_c = sy.claims.xor_clusters(xbig, std=STD)                                      # GD from std 0.5, shown (not a control)
ctl_l = {k: np.array(v, dtype=float) for k, v in ledger.results["agf-on-xor.levels"].control_values.items()}   # "inf" stored as text
glue_value("synthesis-xor-ctl-order", Markdown(f"{int(np.nansum(ctl_c['order_ok']))} of {N_SEEDS}"), display=False)
glue_value("synthesis-xor-ctl-worst", Markdown(f"{np.nanmin(ctl_c['worst']) / math.log(1 / STD):.3f} to {np.nanmax(ctl_c['worst']) / math.log(1 / STD):.3f}"), display=False)
glue_value("synthesis-xor-ctl-dev", Markdown(f"{np.nanmin(ctl_l['dev']):.3f} to {np.nanmax(ctl_l['dev']):.3f}"), display=False)
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
# after seeing this; whether the tilt vanishes as std $\to0$ would need the levels read along the std-trend below (not
# graded in this revision). Both claims carry the premises of a small
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
# (GD to $t\approx320$) cost about 45–60 s more, past this chapter's budget. Shown beside it: the same std-scaled
# networks with $\sigma=\mathrm{id}$, which removes **ReLU gating** (not AGF's mechanism: AGF applies to linear
# networks too); a linear network has at most two saddles and cannot fit XOR, so it is read on the clusters it fits.

# %%
STDS_T, T_T, LR_T = [1e-3, STD, 1e-12], 150.0, 2 * LR_X     # STD: part 3's runs at twice the step
S_T, K_T = int(T_T / LR_T), len(STDS_T)
fac = torch.tensor(STDS_T, dtype=torch.float64).repeat_interleave(N_SEEDS)[:, None, None] / STD
Xt, Yt = Xx[:N_SEEDS].repeat(K_T, 1, 1), Yx[:N_SEEDS].repeat(K_T, 1, 1)     # run k·N_SEEDS + s
pt0 = TwoLayer(W1=small.W1.repeat(K_T, 1, 1) * fac, W2=small.W2.repeat(K_T, 1, 1) * fac)
ext = [r for r in range(K_T * N_SEEDS) if STDS_T[r // N_SEEDS] != STD]      # the new std points

# %%
xt = train(TwoLayer(W1=pt0.W1[ext], W2=pt0.W2[ext]), Xt[ext], Yt[ext], loss=SQ, lr=LR_T, steps=S_T,
           record=np.arange(0, S_T + 1, 10))
xlin = train(TwoLayer(W1=pt0.W1, W2=pt0.W2, act="linear"), Xt, Yt, loss=SQ, lr=LR_T, steps=S_T,
             record=np.arange(0, S_T + 1, 10))                                # control: σ = id
xruns_t = {r: sy.xor_agf(TwoLayer(W1=pt0.W1[r], W2=pt0.W2[r]), Xt[r], Yt[r], tau_max=T_T, loss=SQ)
           for r in ext}

# %%
def xor_runs(g, cl_loss, rows, runs):
    """The runs ``rows`` of trajectory ``g`` (per-cluster losses ``cl_loss``) as an XOR batch."""
    return sy.claims.XorRuns(g.time, g.loss[:, rows].numpy(), cl_loss[:, rows], runs,
                             Xx[:N_SEEDS], Yx[:N_SEEDS], clx)

# %%
cl_t, cl_lin = (sy.cluster_losses(g.params, X_, Y_, clx).numpy() for g, X_, Y_ in
                ((xt, Xt[ext], Yt[ext]), (xlin, Xt, Yt)))
seeds_at = [list(range(k * N_SEEDS, (k + 1) * N_SEEDS)) for k in range(K_T)]
std_runs = [xor_runs(xgd2, closs2, list(range(N_SEEDS)), xruns) if s == STD else
            xor_runs(xt, cl_t, [ext.index(r) for r in at], [xruns_t[r] for r in at])
            for s, at in zip(STDS_T, seeds_at)]
xsw = sy.claims.XorStdSweep(np.array(STDS_T), std_runs)

# %%
lin_runs = [xor_runs(xlin, cl_lin, seeds_at[k], xr.agf) for k, xr in enumerate(std_runs)]
ledger.measure("agf-on-xor.jump-times-limit", xsw, premises=dict(bias=2 * np.array(xgap)))
print(f"agf-on-xor.jump-times-limit: {say('synthesis-xor-trend', 'agf-on-xor.jump-times-limit')}")

# %%
v_t = ledger.results["agf-on-xor.jump-times-limit"]
ct = sy.claims.xor_time_trend(xsw.with_runs(lin_runs))      # σ = id (no ReLU gating): shown
vt, c_std = v_t.values, sy.claims.xor_time_constants(xsw)  # c = err·ln(1/std), (std, seed)
for key, vals, fmt in (("slope", vt["slope"], ".2f"), ("shrink", vt["shrink"], ".1f"),
                       ("cdeep", vt["c_deep"], ".2f"), ("ctl-slope", ct["slope"], ".2f"),
                       ("ctl-mono", ct["mono"], ".2f"), ("ctl-fitted", ct["fitted"], ".0f"),
                       ("ctl-shrink", ct["shrink"], ".1f"), ("ctl-cnoninc", ct["c_noninc"], ".0f"),
                       *((f"c{k}", c_std[k], ".2f") for k in range(len(STDS_T)))):
    txt = f"{np.nanmin(vals):{fmt}} to {np.nanmax(vals):{fmt}}"
    glue_value(f"synthesis-xor-trend-{key}", Markdown(txt), display=False)
print({k: np.round(np.asarray(v, dtype=float), 3) for k, v in vt.items()}, "| σ = id:", ct)
ledger.measure("agf-on-xor.levels-limit", xsw)                             # consistency, no new run
print(f"agf-on-xor.levels-limit: {say('synthesis-xor-lev-trend', 'agf-on-xor.levels-limit')}")
dev_std = np.array([sy.claims.xor_levels(xr)["dev"] for xr in std_runs])   # the same dev, per std
for k, d in enumerate(dev_std):
    glue_value(f"synthesis-xor-lev-std{k}", Markdown(f"{np.nanmin(d):.3f} to {np.nanmax(d):.3f}"),
               display=False)
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
# for the same reason as the jump times (three points) and declared after these values had been seen. The tilt
# that fails the levels claim at std $10^{-6}$ is a finite-std effect: it shrinks as the std does.

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
    g = train(p0v, Xv, Yv, loss=SQ, lr=LR_X, steps=S_X, record=np.arange(0, S_X + 1, 10))
    closs = sy.cluster_losses(g.params, Xv, Yv, clv).numpy()
    runs = sy.xor_agf_runs(p0v, Xv, Yv, tau_max=T_X, loss=SQ)
    return sy.claims.XorRuns(g.time, g.loss.numpy(), closs, runs, Xv, Yv, clv)


# %%
SIZES = [80, 40, 60, 20]                        # clusters at 45°, 135°, 225°, 315°; every norm 3
xeq = xor_variant(SIZES, [3.0] * 4, 600)
eq_id = "agf-on-xor.order-equal-norms"
ledger.measure(eq_id, xeq, std=STD)
print(f"{eq_id}: {say('synthesis-xor-eq-order', eq_id)}")

# %%
xut = xor_variant([20, 40, 60, 80], [4.0, 3.0, 2.0, 1.0], 800)   # utility ≠ size ≠ norm order
ledger.measure("agf-on-xor.order-utility", xut, std=STD)
print(f"agf-on-xor.order-utility: {say('synthesis-xor-ut-order', 'agf-on-xor.order-utility')}")
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
xce = train(small, Xx[:N_SEEDS], yx, loss=CE, lr=LR_X, steps=S_X, record=np.arange(0, S_X + 1, 10))
ce_cl = torch.stack([CE(forward(xce.params, Xx[:N_SEEDS, clx == c]), yx[:, clx == c]) for c in range(4)], -1).numpy()
t_ce = np.array([[measure.first_crossing(xce.time, ce_cl[:, r, c], ce_cl[0, r, c] / 2) for c in range(4)] for r in range(N_SEEDS)])
agf_t = sm.pivot(index="seed", columns="cluster", values="agf").to_numpy()        # AGF's jump time per seed and cluster
ce_same = sum(list(np.argsort(t_ce[r])) == list(np.argsort(agf_t[r])) for r in range(N_SEEDS))
glue_value("synthesis-xor-ce-order", Markdown(f"{ce_same} of {N_SEEDS}"), display=False)
glue_value("synthesis-xor-ce-late", Markdown(f"{np.nanmin(agf_t - t_ce):.1f} to {np.nanmax(agf_t - t_ce):.1f}"), display=False)
print("cross-entropy per-cluster drops:", np.round(t_ce, 2), "| same order as AGF in", ce_same, "seeds")

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
for cid in ledger.results:                  # "after" column: the pass rate and the tier, as the ledger states them
    glue_value(f"synthesis-after-{cid.replace('.', '-')}", Markdown(f"{ch.rate(cid)}, {ledger.results[cid].tier()[0]}"), display=False)

# %% [markdown]
# ## What changed in this revision
# **This revision (referee report s11).** Verdicts before (the previous full run, 5 seeds) and after (this run);
# each change is in the claim's `history`, in a commit of its own:
#
# | claim | before | after | what changed |
# |---|---|---|---|
# | `alignment-on-race.separable-cones`, `.separable-low-rank` | 5 of 5, quantitative | {glue:md}`synthesis-after-alignment-on-race-separable-cones`; {glue:md}`synthesis-after-alignment-on-race-separable-low-rank` | consistency checks, outside Theorem 1's $\varepsilon$, balance and gradient-flow conditions (only $\mu>0$ holds; low rank cannot fail on antipodal class directions); the std-$1/\sqrt{20}$ run is shown at the last step, not graded; out-of-cone count, final-step and bias-augmented readings shown |
# | `agf-on-xor.order-utility` | new | {glue:md}`synthesis-after-agf-on-xor-order-utility` | the cluster order on a variant where AGF's utility order differs from both the size and the norm order (declared and committed before its first run: `predicted`, consistency) |
# | `agf-on-xor.levels-limit` | new | {glue:md}`synthesis-after-agf-on-xor-levels-limit` | the levels' deviation along the jump-time sweep's runs (no new run), as a trend towards std $\to0$; declared after its values were seen (`observed`), consistency (three points) |
# | `agf-on-xor.jump-times-limit` | 5 of 5, quantitative (`predicted`) | {glue:md}`synthesis-after-agf-on-xor-jump-times-limit` | consistency check (three std points are not a trend; std $10^{-18}$, $10^{-24}$ cost 45–60 s, past the budget); rule: `fitted == 4` dropped (it failed the $\sigma=\mathrm{id}$ run by construction), $c=\text{err}\cdot\ln(1/\text{std})$ non-increasing added; the $\sigma=\mathrm{id}$ run (it removes ReLU gating, not AGF's mechanism) shown, not graded; `expect_basis` observed (the rule had changed after the first quick run) |
#
# Text and shown values (no rule changed): the "What holds" table names cross-paper statements, says where a
# premise fails in some seeds, states both ratios of the finite-$\lambda$ comparison and words the XOR rows
# neutrally; `agf-on-xor.order-equal-norms` tells the papers apart "no" (was "partly"); the XOR cluster order is
# cited to Pinson's Prop. 4.6 / eqs. 18–19; part 3 shows $c=\text{err}\cdot\ln(1/\text{std})$ per std and the levels'
# deviation on the std-sweep's runs; "What remains open" states the separable rows' missing premises and calls
# the local-field explanation a hypothesis.
#
# **The revision before (issue 26).** Verdicts before (the published sweep, base seed 0, 5 seeds) and after (this run), for
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
# **The previous revision** answered a referee's report on the one before (which had moved every claim to a declared
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
# consistency check); the deeper points std $10^{-18}$ and $10^{-24}$ need GD to $t\approx320$ (the slowest
# cluster drops near $t=257$ at $10^{-24}$), about 45–60 s more on the shared machine (the referee's probe of all
# four points took 60 s), past this chapter's 150 s budget. The clusters claim stays a consistency check at std
# $10^{-6}$. Its order is checked where the centroid-norm order is silent (`agf-on-xor.order-equal-norms`), but a
# variant where AGF's utility order differs from both the size order and the norm order (sizes 20/40/60/80
# against norms 4/3/2/1) is now checked too (`agf-on-xor.order-utility`), but a control run not fitted in the
# utility order has not been found.
# (ii) Theorem 1's cones and low rank on CIFAR-10 stay *not graded* (Assumption 1 fails, also on $(x,1)$). On
# separable data (`alignment-on-race.separable-*`) only $\mu>0$ holds: Theorem 1's $\varepsilon$ bound, balanced
# initialisation and gradient flow do not, and low rank cannot fail on those data, so both rows are consistency
# checks. The setting where every premise holds (about 10 points with two class directions ~120° apart, a
# balanced init with $\varepsilon$ inside the bound in float64, full-batch GD with a step-halving check; seconds)
# was not built in this revision.
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
# The shared glue_what_holds, with two changes: the header names a cross-paper statement (not "the paper
# says"), and a claim whose premise fails in some seeds says in how many (the headline counts graded seeds).
rows = what_holds_rows(ledger, sy.claims.WHAT_HOLDS)
for row, (_, ids) in zip(rows, sy.claims.WHAT_HOLDS):
    for i in ids:
        v, n = ledger.results[i].verdicts, ledger.results[i].verdicts.count("premise not met")
        if 0 < n < len(v):
            row[1] += f"<br><small>{i}: premise not met in {n} of {len(v)}</small>"
holds = table_html(rows, ["cross-paper statement", "graded by: pass rate (kind, tier)"])
glue_value("synthesis-what-holds", HTML(holds), display=False)

# %%
ch.finish()
