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
# :::{note} Running this chapter yourself
# `make rerun CHAPTER=orthogonal SEED=3` reruns it with another seed: {glue:text}`orthogonal-rerun-full` at full size
# on a 2-core machine, {glue:text}`orthogonal-rerun-quick` with `QUICK=1` (the last recorded timings). On Binder
# (the rocket icon above) the first start builds the environment of `binder/`, which takes several
# minutes; we have not timed it, since the machines that build this book cannot reach Binder. Binder's
# free machines are small, so expect at least the 2-core times there. Change `seed` in the cell
# tagged `parameters`, then run all cells.
# :::
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
# $\lambda$, data), and a $\lambda$-sweep on an orthonormal test bed for the scaling laws of
# Lemmas 2–4, each for 5 seeds trained as one batch. Every checkable statement is declared, with
# its rule, tolerance, premises and negative control, in `01_orthogonal.claims.yaml` next to this
# notebook, and graded seed by seed in the claims ledger at the bottom; the build fails if a pass
# rate leaves its declared range or a control passes.
#
# **Conventions.** The paper's loss is $L=\frac{1}{2n}\sum_k (h(x_k)-y_k)^2$ and its time $t$ is
# gradient-flow time on $L$. The theory runs below minimise exactly this $L$ by full-batch GD
# with step $dt$, so step $s$ is time $t = s\,dt$. The figure runs copy the authors' code, which
# minimises the *mean* MSE $\frac1n\sum_k(h-y)^2=2L$ with step $\eta=10^{-3}$: one of their
# iterations is paper time $2\eta$, and their loss axis is $2L$. Figures say which axis they
# use. All runs are float64 (the authors used float32); ReLU's derivative at $0$ is $0$, the
# subgradient the theory requires.

# %% [markdown]
# ## What holds
# The paper's main statements, each with the claims of the ledger (at the bottom of the page) that grade
# it: the pass rate over the seeds, the claim's kind and its tier (*quantitative*, *loose bound*,
# *consistency*, *inconclusive*, *not graded*), filled in from this run's ledger. Lemmas 2–4 are graded at
# an $\varepsilon$ the paper admits ($0.018$, rows `*.admissible-eps`); the rows at $\varepsilon=0.1$ are
# illustrations, not the lemmas.
#
# ```{glue:} orthogonal-what-holds
# ```

# %% [markdown]
# **Choices the paper leaves open** (each is explained again where it is used):
#
# | what | our choice | why |
# |---|---|---|
# | precision | float64 everywhere | the theory checks compare tiny norms ($\lambda$ down to $10^{-20}$) |
# | signs $s_j$ | i.i.d. uniform $\pm1$ | the authors' code |
# | theory test bed | $x_k=e_k\in\mathbb R^{10}$, $y=(1,1.5,2,-1,-1,-0.5)$, $m=50$ | orthonormal, $r\ne1$, several points per sign |
# | flow discretisation | GD on $L$ with $dt=10^{-2}$ (test bed) | stable (Hessian $\lesssim1$); checked against the integrated flow below |
# | $\lambda$ grid, seeds | $10^{-4}\dots10^{-12}$, 5 seeds, one draw per seed for all $\lambda$ | the theorem's limit is $\lambda\to0$ at a fixed draw |
# | seeds of the figures | 5 per figure, batched; panels from seed 0 | pass rates, not one draw |
# | $\varepsilon$ in the bounds | $0.018$ for the lemmas (App. B.4 admits $\varepsilon\le0.0182$ here); $0.1$ in the illustrations and Figure 1 | the paper only says "small enough"; at $0.018$ the bounds bite only for $\lambda\lesssim10^{-17}$, which float64 reaches cheaply |
# | panel iterations | event-based (alignment, plateau, end) | the paper gives none |
# | Fig. 4 data | the authors' code's five points | not in the text |
# | Fig. 4 step | the authors' $\eta=10^{-3}$ | leaving the intermediate saddle is sensitive to the step (see Figure 4) |
# | Fig. 6/7 step | $\eta=2\cdot10^{-2}$ instead of $10^{-3}$, same flow time | 20× faster, so 5 seeds fit the build; every seed rerun at $4\cdot10^{-2}$: same verdicts required; seed 0 also at $10^{-2}$ (context) |
# | Fig. 6/7 horizon | 400 000 iterations (paper units), twice the paper's; figure claims read at 200 000 | "converges to 0" is a limit; some draws sit on a later saddle at 200 000 |
# | Fig. 6/7 teacher | our own draws, one per seed | the authors' draw depends on their layer creation order |
# | negative controls | runs: large initialisation, an Assumption-3-violating draw, non-orthogonal inputs, a draw whose imbalance does not vanish with $\lambda$ | a check must be able to fail; each control run is named in the claims file and goes through the claim's own measurement |
# | deep $\lambda$-sweep (limits) | $\lambda=10^{-4},10^{-8},\dots,10^{-24},10^{-27},10^{-30}$, each seed's draw, $t=400$ | a limit is graded as a trend; float64 reaches $10^{-30}$ for a few more $\ln(1/\lambda)$ of time |
# | "larger $\lambda$" (§3.1) | $\lambda=0.1=0.71/\sqrt m$, plus $10^{-2}$ in the figure | large, yet below the lazy scale; the theorem's $\lambda^*$ is not given |
# | "$\delta$ of order $\lambda$" | $\delta=\lambda=10^{-8}$, all pairwise inner products equal | the simplest nearly orthogonal inputs of the test bed |
# | unbalanced start (§3.2) | each seed's sweep draw ($g_j$, $s_j$) with $a_j^0=\lambda s_j\lvert b_j\rvert\sim\mathcal N(0,\lambda^2)$; control $a_j^0\sim\mathcal N(0,1/m)$ at every $\lambda$ | the paper's own example ("a Gaussian scaling with $\lambda$"): $\lvert a_j^0\rvert/\|w_j^0\|\sim1/\sqrt d$ per neuron, an imbalance $O(\lambda^2)$; same signs, same Assumption-3 sets; the control's imbalance does not vanish |
# | Assumption 3 Monte Carlo | 100 draws of width $m=4$ per seed | narrow, so that most draws violate the assumption |
# | NTK interpolator (Fig. 5) | linearised network at init + minimum-norm interpolating parameter change | where GD on the linearised model converges |
# | animations | 30 frames, log-norm radius, HTML/JavaScript | small enough to embed; norms span many decades |

# %% tags=["parameters"]
seed = 0            # base seed of every random draw in this chapter
quick = False       # True: fewer seeds and a coarser step for the long runs (tests only)
ledger_path = ""    # write the claims ledger to this JSON file (empty string: no file)

# %%
import math
import time

import numpy as np
import pandas as pd
import torch

from lrlib import chapter
from lrlib.ledger import fmt
from lrlib.ledger.grading import verdicts_by_variant
from lrlib.ledger.summary import glue_what_holds
from lrlib.losses import Loss, half_mse
from lrlib.measure import first_crossing, relative_error
from lrlib.models import balanced_init, cat_runs, generator, sweep_init
from lrlib.plots import orthogonal as orth_plots
from lrlib.plots import NEG, POS, THEORY, glue, glue_seeds
from lrlib.theory.orthogonal.data import (correlated_testbed, nonorthogonal_1d, orthogonal_toy,
                                          orthonormal_testbed, relu_teacher)
from lrlib.theory import orthogonal as orth
from lrlib.track import balancedness_drift, max_direction_change
from lrlib.train import train
from lrlib.schedules import linear_schedule, log_schedule

# %%
ch = chapter.start("orthogonal", seed, quick, ledger_path)
quick, N_SEEDS, ledger, rate_of = ch.quick, ch.n_seeds, ch.ledger, ch.rate
# the authors' code: mean (h - y)^2 = 2 L (orth.paper_gd)
print("theory runs:", half_mse().describe(), "| figure runs:", Loss("square", "mean").describe())

# %% [markdown]
# ## The orthogonal toy example (Figures 2 and 3)
#
# Two points with a bias coordinate: $x_1=(-0.5,1)$ with $y_1=-1$ and $x_2=(2,1)$ with $y_2=+1$.
# They are orthogonal but not unit norm. Width $m=60$, $\lambda=10^{-6}/\sqrt{m}$, balanced
# initialisation with i.i.d. uniform signs, GD with $\eta=10^{-3}$ on the mean MSE for 20 000
# iterations, as in the authors' code. We run 5 independent draws at once (a batched run) and
# draw the panels from the first one. One more run in the same batch is the **negative control**
# of the toy's claims: a large initialisation, $\lambda=1$, where the theory predicts neither
# saddles nor the sparse limit.

# %%
X_toy, y_toy = orthogonal_toy()
m_toy, lam_toy, eta = 60, 1e-6 / math.sqrt(60), 1e-3
p_toy = balanced_init(m_toy, 2, scale=lam_toy, gen=generator(seed), runs=(N_SEEDS,))
# one draw at λ = 1 (the figure) and at the controls' moderate λ = 1e-3/√m, 1e-2/√m
scales_toy = [1.0, 1e-3 / math.sqrt(m_toy), 1e-2 / math.sqrt(m_toy)]
p_toy_other = orth.inits_at_scales(m_toy, 2, scales_toy, seed + 11)
toy_all = orth.paper_gd(cat_runs(p_toy, p_toy_other), X_toy, y_toy, eta, 20_000,
                        linear_schedule(20_000, 50))

# %%
toy, toy_big, toy_m3, toy_m2 = orth.split_runs(toy_all, [N_SEEDS, 1, 1, None])
kv_toy = orth.key_vectors(X_toy, y_toy)
a3_toy = orth.assumption3_counts(p_toy, X_toy, y_toy)
print(f"|D+| = {kv_toy.norm_plus:.4f}, |D-| = {kv_toy.norm_minus:.4f}, r = {kv_toy.r:.3f}")
print("|S+,1| per seed:", a3_toy[0].tolist(), " |S-,1| per seed:", a3_toy[1].tolist())

# %% [markdown]
# The panels: (a) initialisation; (b) the end of the alignment phase, taken as the first
# snapshot where every neuron of $S_{+,1}$ and $S_{-,1}$ has cosine $>0.99$ with its target
# direction ($D_+$ or $-D_-$); (c) the middle of the plateau, (d) the end of training. The
# paper gives no iteration numbers for its panels, so these are our event-based choices.

# %%
grid_toy = torch.linspace(-1.5, 3.0, 100, dtype=torch.float64)
# the panels of every seed (snapshot indices)
idx_toy = [orth.toy_events(toy.run(r), X_toy, y_toy) for r in range(N_SEEDS)]
FIG2 = "Figure 2 — orthogonal toy, seed {}: function (green) and neurons (stars: kink, $a_j$)"
fig2 = [orth_plots.run_snapshots(toy.run(r), idx_toy[r], X_toy, y_toy, grid_toy, FIG2.format(r))
        for r in range(N_SEEDS)]
notes2 = [f"seed {r}: panels at iterations {', '.join(orth.iteration_numbers(toy.steps, i))}"
          for r, i in enumerate(idx_toy)]
glue_seeds("orthogonal-fig2", fig2, notes2)

# %% [markdown]
# ```{glue:figure} orthogonal-fig2
# :name: orthogonal-fig2
#
# **Figure 2 of the paper.** The orthogonal toy (two points, $m=60$, $\lambda=10^{-6}/\sqrt m$), one seed at a time (choose it above the figure; the note under it gives that seed's panel iterations): the network's function (green) and every neuron drawn at its kink with height $a_j$, at (a) initialisation, (b) the end of alignment, (c) the plateau, (d) the end. Compare with the paper: the neurons gather at two kinks, the data points, and the final function has exactly those two kinks.
# ```

# %% [markdown]
# The authors also published animations of the neurons. Ours are made here from the same run (seed 0,
# 30 frames): each neuron's direction in the $(w_{j,1},w_{j,2})$ plane is its angle and
# $\log_{10}\|w_j\|$ its radius (blue $a_j>0$, red $a_j<0$); Figure 2 above is the still version.

# %%
fr2 = np.linspace(0, len(toy) - 1, 4 if quick else 30).round().astype(int)
anim2 = orth_plots.neuron_animation(toy.params.W1[fr2, 0].numpy(), toy.params.a[fr2, 0].numpy(),
                                    orth_plots.iteration_labels(toy.steps, fr2))
glue("orthogonal-anim2", display=False, obj=anim2)

# %% [markdown]
# ```{glue:figure} orthogonal-anim2
# :name: orthogonal-anim2
#
# **Animation of Figure 2 (toy, seed 0).** Watch the neurons turn towards the two key directions while
# their norms stay at the initial scale, then two groups grow one after the other.
# ```

# %% [markdown]
# Figure 3 shows the mean-MSE loss of the same runs against the iteration. The paper: the loss
# "needs 5000 iterations to leave this first saddle", plateaus at the second saddle and "only
# leaves this saddle around iteration 11000". Theory (code units) puts the two growth phases
# near $\ln(1/\lambda)/(2\eta\|D_\pm\|)$ iterations, minus a shift from the initialisation
# constants; the plateau is at $\frac1n\sum_{y_k<0}y_k^2=0.5$ in code units. We measure the first
# iteration below $0.99\,L(0)$ (leaving the first saddle), the first below $0.4$ (leaving the
# second), the loss midway between them and the final loss. The runs stand in for gradient flow,
# so we rerun them with twice the step: the premise of the toy's claims is that both exit
# iterations move by less than 1 %.

# %%
tt = orth.toy_timings(toy.dense_loss)
tt_big = orth.toy_timings(toy_big.dense_loss)
toy2 = orth.paper_gd(p_toy, X_toy, y_toy, 2 * eta, 10_000, [0, 10_000])
tt2 = orth.toy_timings(toy2.dense_loss, iteration_scale=2.0)
step_toy = orth.step_gap(tt2, tt, ["exit1", "exit2"])

# %% tags=["hide-input"]
pred_toy = orth.phase_times(kv_toy, lam_toy)
times_toy = orth_plots.phase_marks(pred_toy, per=2 * eta, exits=False)
fig3 = orth_plots.toy_losses(toy.dense_loss.numpy(), toy_big.dense_loss[:, 0].numpy(), 0.5,
                             times_toy, "Figure 3 — loss of the toy runs")
glue("orthogonal-fig3", fig3, display=False)

# %%
toy_premises = dict(s_plus=a3_toy[0], s_minus=a3_toy[1], step_gap=step_toy)
ledger.measure("fig3.timings", toy, controls={"moderate_lambda": toy_m3}, premises=toy_premises)
print("control λ = 1e-3/√m:", orth.rounded(orth.claims.toy_phase_timings(toy_m3)))
pd.DataFrame({**tt, "exit1 (2η)": tt2["exit1"], "exit2 (2η)": tt2["exit2"], "step gap": step_toy})

# %% [markdown]
# ```{glue:figure} orthogonal-fig3
# :name: orthogonal-fig3
#
# **Figure 3 of the paper.** Mean-MSE loss against the iteration for every seed (seed 0 blue) and the $\lambda=1$ control (dashed). Compare the two exits with the paper's ≈5000 and ≈11 000 (the table below gives them per seed) and the plateau with the dotted level 0.5.
# ```

# %% [markdown]
# The final function of the toy run against the theory's limit
# $h^*(x)=\sigma(2x+1)/5-0.8\,\sigma(1-x/2)$: two kinks, at $x=-0.5$ and $x=2$ (the data points),
# so outside the data it is *not* the linear interpolator $0.8x-0.6$. Its $\mathcal F_1$ cost
# $\sum_j|a_j|\|w_j\|$ is $1/\sqrt5+1/\sqrt{1.25}=1.342$, against $2$ for the linear interpolator
# (the paper's remark against the "learned function is linear" conjecture). The control run is a
# moderate initialisation, $\lambda=10^{-2}/\sqrt m$ (one run in the same batch), measured the same way:
# the $10^{-3}$ tolerance must separate it from the small-$\lambda$ runs (until this revision the control
# was the $\lambda=1$ run, which misses by $10^4$ and so never tested the tolerance). Likewise
# `fig3.timings`' control is now a run at $\lambda=10^{-3}/\sqrt m$, whose exits should fall outside the
# windows $[4000,6500]$ and $[10000,13000]$ (the $\lambda=1$ run failed every conjunct by orders of
# magnitude and never tested the windows).

# %%
Z_toy = torch.stack([grid_toy, torch.ones_like(grid_toy)], -1)
f1_min = orth.min_f1_norm(X_toy, y_toy)
gap_toy = orth.function_gap(toy_all.final, X_toy, y_toy, Z_toy)
f1_err = (orth.f1_cost(toy_all.final) - f1_min).abs()
ledger.measure("thm1.toy-limit", toy, controls={"moderate_lambda": toy_m2}, X=X_toy, y=y_toy,
               Z=Z_toy, init=orth.claims.first_snapshots(toy), premises=toy_premises)
print(f"minimal F1 cost {f1_min:.5f}")
pd.DataFrame({"max |h - h*| on the grid": gap_toy.numpy(), "|F1 - min F1|": f1_err.numpy()},
             index=orth.seed_index(N_SEEDS, ["λ=1", "λ=1e-3/√m", "control λ=1e-2/√m"]))

# %% [markdown]
# ## The $\lambda$-sweep: Theorem 1 and Lemmas 1–6 on an orthonormal test bed
#
# The paper's toy has only two points. To test the theorem and the scaling laws we use an
# orthonormal test bed of our choice: $n=6$ points $x_k=e_k\in\mathbb R^{10}$ with
# labels $y=(1,1.5,2,-1,-1,-0.5)$, so $\|D_+\|=0.449$, $\|D_-\|=0.25$, $r=1.795$. Width $m=50$;
# for each of the seeds one draw $(g_j,s_j)$ is scaled to $\lambda\in\{10^{-4},10^{-6},\dots,10^{-12}\}$
# (the theorem's limit is $\lambda\to0$ at a fixed draw). GD with $dt=10^{-2}$ on the paper's $L$
# (the Hessian's largest eigenvalue stays below 1), for $t=220$, past the convergence of the
# smallest $\lambda$. Three rows of **negative controls** train in the same batch, each chosen for
# what it breaks:
#
# * *no negative neuron*: seed 0's draw with every sign $s_j=+1$, so $S_{-,1}=\emptyset$ and
#   Assumption 3 fails. It was the zero-loss claim's control until this revision; it cannot fit the
#   negative labels for *any* parameters ($h\ge0$, so $L\ge0.1875$), so it never tested the rule, and
#   `thm1.zero-loss` is now a consistency check (printed here for Lemma 9 only);
# * *non-orthogonal inputs*: seed 0's draw trained on unit inputs $x_k=(e_k+\frac12e_{10})/\|\cdot\|$
#   with pairwise inner products $0.2$, measured against the same formulas (control of the claims
#   that need Assumption 1: Lemmas 2–4 at $\varepsilon=0.1$, printed);
# * *large initialisation*: one draw at $\lambda=1$, the same in every column (printed beside the
#   timing laws: nothing grows out of a small scale; no graded claim uses it as its control now). Until this revision each column had its
#   own $\lambda=1$ draw; a draw that left $S_{+,1}$ empty made the control's times undefined.
#
# The same batch also trains each seed's draw from an *unbalanced* initialisation, and its control
# (see "Unbalanced initialisation" below).
#
# The claims graded on the sweep are about the gradient *flow*. Each is also measured on the same draws
# trained by GD with a step far too large for the flow, $dt=1$ (100 times the sweep's step; still
# stable, but each growth step multiplies a norm by $1+\|D_\pm\|$ instead of $e^{\|D_\pm\|}$). A rule that
# also passes there does not single out the flow, and the ledger tiers the claim *consistency*.
#
# The theorem assumes Assumption 3 ($S_{+,1}$ and $S_{-,1}$ non-empty). It is measured for each
# seed's draw and is a premise of every claim that needs it: a draw that violates it is reported
# as *premise not met*, not counted against the paper.

# %%
X_tb, y_tb = orthonormal_testbed()
X_co, _ = correlated_testbed(tuple(y_tb.tolist()), rho=0.2)
kv = orth.key_vectors(X_tb, y_tb)
n_tb = X_tb.shape[0]
lams = torch.tensor([1e-4, 1e-6, 1e-8, 1e-10, 1e-12], dtype=torch.float64)
dt, T_sweep = 1e-2, 220.0

# %%
p_sw = sweep_init(50, 10, lams, seeds=N_SEEDS, seed=seed)
# controls: seed 0 with every s_j = +1, and one λ = 1 draw in every column
p_pos = orth.select_runs(p_sw, slice(0, 1), clone=True)
p_pos.W2.abs_()
p_big = balanced_init(50, 10, scale=1.0, gen=generator(seed + 9), runs=(1, 1))
p_big = orth.tile_columns(p_big, len(lams))
# a_j ~ N(0, λ²) with the same g_j, s_j (§3.2), and its control a_j ~ N(0, 1/m) (seed 0)
p_unb = orth.unbalanced_sweep_init(50, 10, lams, N_SEEDS, seed)
p_unb_c = orth.unbalanced_control(50, 10, lams, N_SEEDS, seed)
# row N_SEEDS + 1 (seed 0's draw again) is the non-orthogonal row
X_sw = orth.stacked_inputs(X_tb, (2 * N_SEEDS + 4, len(lams)), [(N_SEEDS + 1, X_co)])

# %%
t0_sweep = time.perf_counter()
p_sw_all = cat_runs(p_sw, p_pos, orth.select_runs(p_sw, slice(0, 1)), p_big, p_unb, p_unb_c)
sw_all = orth.sweep_gd(p_sw_all, X_sw, y_tb, dt, T_sweep, 25)
t_gd_sweep = time.perf_counter() - t0_sweep
# the seeds; no negative neuron; non-orthogonal; λ = 1; unbalanced; its control
groups_sw = [N_SEEDS, 1, 1, 1, N_SEEDS, 1]
sw, sw_pos, sw_co, sw_big, sw_unb, sw_unb_c = orth.split_runs(sw_all, groups_sw)

# %%
Sp, Sm = orth.s_sets(p_sw, X_tb, y_tb)
# the draw is shared by every λ
s_plus, s_minus = Sp[:, 0].sum(-1), Sm[:, 0].sum(-1)
s_pos = int(orth.s_sets(p_pos, X_tb, y_tb)[1][0, 0].sum())
print(f"|D+| = {kv.norm_plus:.4f}  |D-| = {kv.norm_minus:.4f}  r = {kv.r:.4f}")
print("|S+,1| per seed:", s_plus.tolist(), " |S-,1| per seed:", s_minus.tolist(),
      f"(controls: no negative neuron |S-,1| = {s_pos})")

# %% [markdown]
# ### Is GD with $dt=10^{-2}$ the gradient flow? Checked with the adaptive integrator
# The theorems are about gradient flow; the sweep runs GD. `lrlib.integrate.flow` integrates the
# flow itself (float64, adaptive Runge–Kutta with local error control, `rtol` $=10^{-8}$,
# `atol` $=10^{-14}$). For seed 0 we integrate all five $\lambda$ and recompute the half-fit times
# $t_2^{1/2},t_3^{1/2}$ (defined with Lemmas 3–4 below) at the sweep's own snapshot times, so both
# sides are interpolated alike (reduced size: only $\lambda\le10^{-8}$, the cheap ones for the solver).
# Their largest relative difference is the **premise** of every
# claim graded on the sweep: GD stands in for the flow only if it is below 1 %.
# *Why the sweep itself stays GD:* the solver needs fewer gradient evaluations per run than GD's
# 22 000 steps (the table counts them), but each of its evaluations carries the solver's own
# bookkeeping and we integrate one run at a time (a batch would share one error control), while GD
# advances all runs in one batched computation; the cell prints both wall times. On the
# non-orthogonal data of Figure 4 the flow *slides along* ReLU kinks and an explicit solver's steps
# shrink without end (see `lrlib.integrate`), so Figure 4 stays GD, with its own step check.

# %%
# (seeds, lams)
t2h, t3h = orth.half_fit_times(sw, X_tb, y_tb)
t0_gf = time.perf_counter()
# reduced size: λ ≤ 1e-8 only
li_flow = range(2 if quick else 0, len(lams))
gf = orth.flow_columns(p_sw, X_tb, y_tb, li_flow, dt, T_sweep, sw.steps)
gf_table, flow_gap = orth.gd_flow_table(t2h, t3h, gf, X_tb, y_tb, lams, li_flow)
t_gf = time.perf_counter() - t0_gf

# %%
print(f"GD vs flow: largest relative gap in the half-fit times {flow_gap:.2%} (premise: < 1 %)")
print(f"cost: GD sweep ({sw_all.loss[0].numel()} runs of {int(T_sweep / dt):,} steps in one batch) "
      f"{t_gd_sweep:.1f} s, flow for 5 runs {t_gf:.1f} s")
sweep_premises = dict(s_plus=s_plus, s_minus=s_minus, flow_gap=flow_gap)
# a λ-sweep as the claims measure it
Sweep = orth.claims.Sweep
sweep, sweep_big = Sweep(sw, X_tb, y_tb, lams), Sweep(sw_big, X_tb, y_tb, lams)
sweep_co, sweep_pos = Sweep(sw_co, X_co, y_tb, lams), Sweep(sw_pos, X_tb, y_tb, lams)
# 100× dt: far too large for the flow
DT_COARSE = 1.0
sweep_coarse = orth.coarse_sweep(p_sw, X_tb, y_tb, lams, T_sweep, DT_COARSE)
gf_table.round(3)

# %% [markdown]
# ### Figure 1: the four phases
# The paper's Figure 1 summarises the phases. We draw it from a real run (seed 0,
# $\lambda=10^{-10}$): the loss against paper time with the theory's times — the end of
# alignment $t_{\pm1}=-\varepsilon\ln\lambda/\|D_\pm\|$ (with $\varepsilon=0.1$), the growth
# scales $\ln(1/\lambda)/\|D_\pm\|$ — and the plateau level $\frac1{2n}\sum_{y_k<0}y_k^2$; below,
# the fitted masses $u_\pm=\sum_{j\in S_{\pm,1}}\|w_j\|^2$ against their limits $n\|D_\pm\|$.

# %%
up_t = orth.u_fitted(sw, Sp)      # (T, seeds, lams)
um_t = orth.u_fitted(sw, Sm)
i_lam = 3                         # the figure's run: λ = 1e-10
pt = orth.phase_times(kv, lams[i_lam].item())

# %% tags=["hide-input"]
times1 = orth_plots.phase_marks(pt)
limits1 = (n_tb * kv.norm_plus, n_tb * kv.norm_minus)
FIG1 = "Figure 1 — the four phases (test bed, $\\lambda=10^{{-10}}$, seed {})"
def fig1(r):
    return orth_plots.four_phases(
        sw.time, sw.loss[:, r, i_lam].numpy(), up_t[:, r, i_lam].numpy(), um_t[:, r, i_lam].numpy(),
        limits1, times1, orth.plateau_loss(y_tb), T_sweep, FIG1.format(r))


def note1(r):
    return (f"seed {r}: at the end u+ = {up_t[-1, r, i_lam]:.3f} and u- = {um_t[-1, r, i_lam]:.3f} "
            f"(limits n|D+| = {limits1[0]:.3f}, n|D-| = {limits1[1]:.3f})")


glue_seeds("orthogonal-fig1", [fig1(r) for r in range(N_SEEDS)], [note1(r) for r in range(N_SEEDS)])

# %% [markdown]
# ```{glue:figure} orthogonal-fig1
# :name: orthogonal-fig1
#
# **Figure 1 of the paper (the four phases)**, drawn from a real run (test bed, $\lambda=10^{-10}$; choose the seed above the figure). Top: the loss, with the theory's times and the plateau level $0.1875$ (dotted); bottom: the fitted masses $u_\pm$ against their limits $n\|D_\pm\|$ (dotted). Compare the shaded phases with the loss's steps.
# ```

# %% [markdown]
# ### Theorem 1: zero loss, minimal norm, two clusters
# For every $\lambda\le10^{-4}$ and seed: the final loss, the squared parameter norm
# $\|\theta\|^2=\sum_j a_j^2+\|w_j\|^2$ against the minimal interpolating norm
# $2(\|y_+\|+\|y_-\|)=8.385$, the function gap to $h^*$ on 1000 random unit inputs, and whether
# the neurons with non-negligible norm form the two predicted clusters. The controls are measured
# with the same formulas on their own inputs.

# %%
Zr = torch.randn(1000, 10, generator=generator(seed + 1), dtype=torch.float64)
Zr = Zr / Zr.norm(dim=-1, keepdim=True)
fin = sw.final
excess, fgap = orth.excess_norm(fin, X_tb, y_tb), orth.function_gap(fin, X_tb, y_tb, Zr)
clustered, outside = orth.two_clusters(fin, X_tb, y_tb)

# %%
sweep_tab = orth.per_run_frame(lams.numpy(), {
    "final loss": sw.loss[-1], "rel. excess": excess, "sup|h-h*|": fgap, "two clusters": clustered,
    "share outside": outside})
sweep_tab.groupby("lambda").agg(["min", "max"]).drop(columns="seed")

# %%
ledger.measure("thm1.zero-loss", sweep, init=sweep.start(),
               premises=sweep_premises)
print(f"thm1.zero-loss: {rate_of('thm1.zero-loss')}")
print("share of ‖θ‖² outside the two clusters, per seed (columns: λ = 1e-4 … 1e-12):")
print(np.array2string(outside.numpy(), precision=4))

# %% [markdown]
# The limit is approached very slowly. A positive-sign neuron outside $S_{+,1}$ that is active on
# a *subset* $A$ of the positive points grows during phase 2 at the rate $\|D^0_j\|=\frac1n\|y_A\|<\|D_+\|$
# instead of $\|D_+\|$, so it ends with a norm of order $\lambda^{1-\|D^0_j\|/\|D_+\|}$. On this test
# bed the worst subset, the points with $y=1.5$ and $y=2$, gives the exponent
# $1-2.5/\sqrt{7.25}\approx0.07$: such neurons shrink by only a factor $\approx1.6$ per three decades of
# $\lambda$. At the $\lambda$ we can run they can still carry a visible share of $\|\theta\|^2$ while
# pointing elsewhere (the share printed above). The norm of $\theta$ is much less sensitive.
#
# ### Theorem 1's limits as trends: a deep $\lambda$-sweep to $10^{-30}$
# Theorem 1's minimal norm, limit function and two clusters, and the passage near the saddle below,
# are statements about the limit $\lambda\to0$; a threshold at one finite $\lambda$ grades the slow
# neurons' finite-$\lambda$ residue, not the limit. In float64 the sweep reaches much deeper at little
# cost: a larger $\lambda$-range costs only a few more $\ln(1/\lambda)$ of time. Each seed's draw is
# run at $\lambda=10^{-4},10^{-8},\dots,10^{-24},10^{-27},10^{-30}$ (GD, $dt=10^{-2}$, to $t=400$, past the convergence of
# the smallest $\lambda$; the flow premise is the one measured above for $\lambda\le10^{-12}$: the
# deeper runs add alignment time only), and each deviation from the limit is graded as a **trend**
# (`lrlib.ledger.trend.trend_stats`): it must never grow as $\lambda$ decreases and shrink at least
# $10\times$ (`mono == 1 and shrink >= 10`); that the sweep spans at least ten decades, and that every
# run of it has converged, are premises. The **control** of all four trains in the same batch: seed 0's
# draw with the output layer drawn at the common scale, $a_j^0=s_j|b_j|/\sqrt m\sim\mathcal N(0,1/m)$ at every
# $\lambda$, and $w_j^0=\lambda g_j$, on the same orthogonal inputs (the control of `unbalanced.thm1`, see below).
# It removes the vanishing of the initial scale that the limit rests on: by Lemma 1 every neuron keeps
# $a_j^2\ge a_j^{0\,2}-\lambda^2\|g_j\|^2$, so the neurons the fit does not use keep their output weights; and
# because its inputs are the test bed's, the formulas ($2(\|y_+\|+\|y_-\|)$, $h^*$, the two directions,
# $\theta_S$) apply to it. (Until this revision the control was the non-orthogonal row, measured against the
# orthogonal formulas that do not apply to its inputs, so it failed for any dynamics: share outside the
# clusters $\equiv1$, function gap flat at $0.98$, distance to $\theta_S$ shrinking $1.003\times$; the row still
# trains, for `lemma12.convergence-time`.) The initial state of the sweep is graded too (a deviation that already "shrank" at $t=0$ would
# not test the dynamics). These are end-point (implicit-bias) claims: a GD with a step far too large for
# the flow may share the end point, so the coarse step is not measured for them.

# %%
# 1e-4 … 1e-30
lams_deep = torch.tensor([10.0 ** -k for k in (4, 8, 12, 16, 20, 24, 27, 30)], dtype=torch.float64)
T_deep = 400.0
# the same draws as the sweep, the control a_j⁰ ~ N(0, 1/m); row N_SEEDS is the non-orthogonal row
p_deep = sweep_init(50, 10, lams_deep, seeds=N_SEEDS, seed=seed)
p_deep_nv = orth.unbalanced_control(50, 10, lams_deep, N_SEEDS, seed)
X_deep = orth.stacked_inputs(X_tb, (N_SEEDS + 2, len(lams_deep)), [(N_SEEDS, X_co)])
# the coarse step, for lemma12
deep_coarse = orth.coarse_sweep(p_deep, X_tb, y_tb, lams_deep, T_deep, DT_COARSE)
p_deep_all = cat_runs(p_deep, orth.select_runs(p_deep, slice(0, 1)), p_deep_nv)
deep_all = orth.sweep_gd(p_deep_all, X_deep, y_tb, dt, T_deep, 100)

# %%
deep = Sweep(deep_all.run(slice(0, N_SEEDS)), X_tb, y_tb, lams_deep)
deep_co = Sweep(deep_all.run(slice(N_SEEDS, N_SEEDS + 1)), X_co, y_tb, lams_deep)
deep_nv = Sweep(deep_all.run(slice(N_SEEDS + 1, None)), X_tb, y_tb, lams_deep)   # a_j⁰ ~ N(0, 1/m)
deep_premises = dict(sweep_premises, conv_loss=deep.traj.loss[-1].amax(-1))
for c, ctrl, ctx in (("thm1.min-norm", {"nonvanishing_imbalance": deep_nv}, {}),
                     ("thm1.function-limit", {"nonvanishing_imbalance": deep_nv}, {"Z": Zr}),
                     ("thm1.two-clusters", {"nonvanishing_imbalance": deep_nv}, {}),
                     ("saddle.passes-near", {"nonvanishing_imbalance": deep_nv}, {})):
    res = ledger.measure(c, deep, controls=ctrl, init=deep.start(), premises=deep_premises, **ctx)
    print(f"{c}: {rate_of(c)}, tier {res.tier()[0]} ({res.tier()[1] or 'a run of the flow'}); "
          f"deviation at λ = 1e-30 per seed {np.round(res.array('dev_last'), 6).tolist()}")

# %% tags=["hide-input"]
fin_deep = deep.traj.final
_, out_deep = orth.two_clusters(fin_deep, X_tb, y_tb)
saddle_deep = orth.saddle_distance(deep.traj, X_tb, y_tb).amin(0)
dev_deep = {"relative excess of $\\|\\theta\\|^2$": orth.excess_norm(fin_deep, X_tb, y_tb).numpy(),
            "$\\sup|h-h^*|$": orth.function_gap(fin_deep, X_tb, y_tb, Zr).numpy(),
            "share of $\\|\\theta\\|^2$ outside the clusters": out_deep.numpy(),
            "distance to the saddle set": saddle_deep.numpy()}
fig_deep = orth_plots.deviations_vs_lambda(
    lams_deep.numpy(), dev_deep, "Theorem 1 and the saddle as $\\lambda\\to0$: "
    "deviations from the limit on the deep sweep (every seed)")
glue("orthogonal-deep", fig_deep, display=False)

# %% [markdown]
# ```{glue:figure} orthogonal-deep
# :name: orthogonal-deep
#
# **Theorem 1's limits, $\lambda$ from $10^{-4}$ to $10^{-30}$** (no figure of the paper). For every seed: (a) the relative excess of the final $\|\theta\|^2$ over the minimal interpolating norm, (b) the sup distance of the final function to $h^*$, (c) the share of $\|\theta\|^2$ outside the two clusters, (d) the smallest distance along the run to the saddle set (Proposition 1); $\lambda$ decreases to the right. Compare: straight lines on log–log axes, falling towards the limit; their slopes (in the ledger's trend statistics) are of order $0.07$–$0.14$, the slow neurons' exponent $1-2.5/\sqrt{7.25}\approx0.07$ discussed above (twice it for the squared norms).
# ```

# %% [markdown]
# ### Unbalanced initialisation (§3.2)
# The theorem starts from a balanced network, $|a_j^0|=\|w_j^0\|$. The paper calls this "a minor
# assumption": if $a^0$ is instead "a Gaussian scaling with $\lambda$, the initialisation would be
# nearly balanced for small $\lambda$", and "our analysis can be extended to unbalanced
# initialisations". *Nearly balanced* because the flow conserves $a_j^2-\|w_j\|^2$ (Lemma 1), which
# then starts at $\lambda^2(b_j^2-\|g_j\|^2)$, negligible against the $O(1)$ norms of the neurons that
# fit the data. We take the paper's own example on each seed's sweep draw: the same $g_j$ and signs
# $s_j$, and $a_j^0=\lambda s_j|b_j|$ with independent $b_j\sim\mathcal N(0,1)$, so that
# $a_j^0\sim\mathcal N(0,\lambda^2)$ i.i.d. Neuron by neuron this is far from balanced
# ($|a_j^0|/\|w_j^0\|$ is of order $1/\sqrt d$; the table prints its median), while keeping the signs
# keeps the sets of Assumption 3. These runs train in the sweep's batch and are graded by the balanced
# sweep's own rules of `thm1.zero-loss`, `thm1.min-norm` and `thm1.function-limit` together
# (`unbalanced.thm1`), graded as trends like the balanced limits: the same draws are also run at
# $\lambda=10^{-4},10^{-12},10^{-20},10^{-30}$ to $t=400$ (and with the coarse step $dt=1$); the step
# premise is checked as for the sweep, by integrating seed 0's unbalanced draw with the adaptive flow
# integrator at every $\lambda$ of the main sweep. The **control** is an imbalance
# that does *not* vanish with $\lambda$: seed 0's draw with the common output initialisation
# $a_j^0\sim\mathcal N(0,1/m)$ at every $\lambda$. By Lemma 1 every neuron then keeps
# $a_j^2\ge\|w_j\|^2+a_j^{0\,2}-\lambda^2\|g_j\|^2$, so the neurons the fit does not use keep their output
# weights, and the final norm should stay above the minimum.

# %%
# the balanced draw's sets
s_unb = orth.assumption3_counts(orth.select_runs(p_unb, slice(None), 0), X_tb, y_tb)
gf_unb = orth.flow_columns(p_unb, X_tb, y_tb, li_flow, dt, T_sweep, sw.steps)
flow_gap_unb = orth.half_fit_gap(sw_unb.run(0, slice(li_flow[0], None)), gf_unb, X_tb, y_tb)
# the table below (λ ≤ 1e-12)
m_unb = orth.thm1_measures(sw_unb.final, X_tb, y_tb, Zr, sw_unb.loss[-1])
m_unb_c = orth.thm1_measures(sw_unb_c.final, X_tb, y_tb, Zr, sw_unb_c.loss[-1])

# %%
# λ = 1e-4, 1e-12, 1e-20, 1e-30; the seeds and the control (seed 0, a_j⁰ ~ N(0, 1/m))
lams_unb = lams_deep[[0, 2, 4, 7]]
p_unb_deep = cat_runs(orth.unbalanced_sweep_init(50, 10, lams_unb, N_SEEDS, seed),
                      orth.unbalanced_control(50, 10, lams_unb, N_SEEDS, seed))
unb_runs = {h: train(p_unb_deep, X_tb, y_tb, loss=half_mse(), lr=h, steps=int(T_deep / h),
                     record=[0, int(T_deep / h)]) for h in (dt, DT_COARSE)}
unb = {h: Sweep(r.run(slice(0, N_SEEDS)), X_tb, y_tb, lams_unb) for h, r in unb_runs.items()}
unb_ctrl = Sweep(unb_runs[dt].run(slice(N_SEEDS, None)), X_tb, y_tb, lams_unb)
ledger.measure("unbalanced.thm1", unb[dt], init=unb[dt].start(),
               controls={"nonvanishing_imbalance": unb_ctrl},
               premises=dict(s_plus=s_unb[0], s_minus=s_unb[1], flow_gap=flow_gap_unb), Z=Zr)
print(f"GD vs flow on seed 0's unbalanced draw: {flow_gap_unb:.2%} (premise: < 1 %); "
      f"unbalanced.thm1: {rate_of('unbalanced.thm1')}")

# %%
ex_unb = orth.excess_norm(sw_unb.final, X_tb, y_tb)
fig = orth_plots.excess_vs_lambda(lams.numpy(), {
    "balanced": (excess.numpy(), "0.5", "o-"),
    r"unbalanced, $a_j^0\sim N(0,\lambda^2)$": (ex_unb, POS, "s-"),
    r"control, $a_j^0\sim N(0,1/m)$": (orth.excess_norm(sw_unb_c.final, X_tb, y_tb), NEG, "^--")})
glue("orthogonal-unbalanced", fig, display=False)
ratio_unb = (p_unb.a.abs() / p_unb.norms_in())[:, 0].median(-1).values.numpy()
measured_unb = {"final loss (max over λ)": "final_max", "excess at λ=1e-12": "excess_last",
                "sup|h-h*| at λ=1e-12": "gap_last"}
balanced_unb = {"median |a⁰|/‖w⁰‖": ratio_unb, "excess, balanced start": excess[:, -1].numpy(),
                "sup|h-h*|, balanced start": fgap[:, -1].numpy()}
orth.control_table(m_unb, m_unb_c, measured_unb, balanced_unb)

# %% [markdown]
# The table puts each seed's unbalanced run beside its balanced run (same $g_j$, same signs) at the
# smallest $\lambda$, and the control below them; the verdicts are in the ledger (`unbalanced.thm1`). The
# control shows the mechanism the paper's remark relies on: an imbalance that does not shrink with
# $\lambda$ keeps the norm away from the minimum and the function away from $h^*$.

# %% [markdown]
# ```{glue:figure} orthogonal-unbalanced
# :name: orthogonal-unbalanced
#
# **§3.2's remark on unbalanced initialisation** (no figure in the paper). The relative excess of $\|\theta\|^2$ over the minimal interpolating norm $2(\|y_+\|+\|y_-\|)$ against $\lambda$, every seed: balanced start (grey), Gaussian output layer of scale $\lambda$ (blue), and the control with $a_j^0\sim\mathcal N(0,1/m)$ (red, dashed). Compare: the unbalanced curves should fall with $\lambda$ like the balanced ones and end below the dashed 1 % line at $\lambda=10^{-12}$; the control should not.
# ```

# %% [markdown]
# ### Lemmas 1 and 6: conservation and frozen inactivity
# Lemma 1: $a_j^2-\|w_j\|^2$ is conserved by the flow. Lemma 6: on orthogonal data a neuron
# inactive on a point stays inactive *with the same pre-activation*: $\langle w_j,x_k\rangle$ is
# frozen once $\le0$.
#
# Lemma 1 is an identity of the flow equations: $\frac{d}{dt}(a_j^2-\|w_j\|^2)=2a_j\langle w_j,D_j\rangle-2\langle w_j,a_jD_j\rangle=0$
# for *any* data, width and initialisation, so no counterfactual inside the model can make it
# fail. What a run can check is our discretisation: GD changes $a_j^2-\|w_j\|^2$ by exactly
# $dt^2(\langle w_j,D_j\rangle^2-a_j^2\|D_j\|^2)$ per step, an $O(dt)$ drift at a fixed time, so
# halving $dt$ must halve it. We grade this as a **consistency check** (an implementation
# invariant), not as a reproduction. Lemma 6 is one too (new in this revision): on $x_k=e_k$ with
# $\sigma'(0)=0$ an inactive coordinate gets exactly zero update for any step, $\lambda$ or initialisation,
# a bitwise identity of GD on these inputs. The non-orthogonal row, which breaks it, is printed as
# context.

# %%
lam_c = torch.tensor([1e-8], dtype=torch.float64)
p_c = sweep_init(50, 10, lam_c, seeds=N_SEEDS, seed=seed)
runs_c = [train(p_c, X_tb, y_tb, loss=half_mse(), lr=h, steps=int(100 / h), record=101)
          for h in (1e-2, 5e-3)]
drifts = [balancedness_drift(r)[:, 0] for r in runs_c]
drift_toy = balancedness_drift(toy)
ledger.grade("lemma1.balancedness", drift_toy=drift_toy, ratio=drifts[0] / drifts[1])
l6 = ledger.measure("lemma6.inactive", sweep,
                    premises=dict(flow_gap=flow_gap))
violations = l6.values["violations"]
# context: no longer a control
violations_co = orth.claims.frozen_inactivity(sweep_co)["violations"]
print(f"balancedness drift (toy, per seed): {drift_toy.numpy()}; "
      f"test-bed drift ratio dt / (dt/2): {(drifts[0] / drifts[1]).numpy().round(3)}")
print(f"Lemma 6 violations per seed: {violations} (non-orthogonal inputs: {violations_co})")

# %% [markdown]
# ### Lemma 2: alignment at the end of phase 1
# At $t_{+1}=-\varepsilon\ln\lambda/\|D_+\|$ every $S_{+,1}$ neuron has
# $\langle \bar w_j, D_+\rangle\ge(1-2\lambda^\varepsilon)\|D_+\|$ and every neuron is still tiny,
# $\|w_j\|\le2c\lambda^{1-\varepsilon}$, $c=\max_j\|g_j\|$; at $t_{-1}$ the same holds for
# $S_{-,1}$ and $-D_-$ with the bound $2c\lambda^{1-r\varepsilon}$. We check the raw inequalities
# with $\varepsilon=0.1$ at every $\lambda\le10^{-8}$ (they are asymptotic), together with the lemma's
# third conclusion (App. Lemmas 7–8 (iii)): at $t_{+1}$ every $S_{+,1}$ neuron has switched off on
# the negative-label inputs, and at $t_{-1}$ every $S_{-,1}$ neuron on the positive ones.
# *A finding:* graded on the two inequalities alone, the check accepted its control — seed 0's draw
# on inputs with pairwise inner products $0.2$. With $\varepsilon=0.1$ the bounds are loose
# ($1-2\lambda^\varepsilon=0.68$ at $\lambda=10^{-8}$), and early alignment also happens on mildly
# correlated inputs. We therefore grade the whole statement of the lemma, including the
# deactivation, which the correlated inputs do not give; the claims file records this change.
# **These rows are illustrations, not the lemma:** $\varepsilon=0.1$ is outside the paper's condition on
# $\varepsilon$ (the condition quoted in App. B.4, with our reading of $\alpha$, admits $\varepsilon\le0.0182$ here);
# the lemma is measured at $\varepsilon=0.018$ in "Lemmas 2–4 at an $\varepsilon$ the paper admits" below. Since
# this revision both are **consistency checks** without a control (referee findings 3.1, 1.2): the
# non-orthogonal row passes the two inequalities, and it fails the deactivation because with inner products
# $0.2$ every negative input has $\langle D_+,x_k\rangle=0.15>0$, a property of that correlation rather than a
# removal of the lemma's mechanism; it is printed below, not graded.

# %%
l2 = ledger.measure("lemma2.alignment", sweep, premises=sweep_premises, dt=dt)
# the non-orthogonal row, printed
l2_co = orth.claims.alignment_end(sweep_co, dt=dt)
print(f"Lemma 2 per seed: bounds {l2.values['bounds']}, deactivation {l2.values['deactivated']} "
      f"→ {rate_of('lemma2.alignment')}")
print(f"non-orthogonal row: bounds {l2_co['bounds']}, deactivation {l2_co['deactivated']}")

# %% [markdown]
# The deactivation (iii) is also graded on its own, and so is App. Lemma 9, which the proofs of
# Lemmas 3–4 lean on: until $t_{\pm1}$ the $S_{\pm,1}$ neurons do not collapse to $0$,
# $\|w_j(t)\|>\underline c\,\lambda^{1+\varepsilon}/2$ (resp. $\lambda^{1+r\varepsilon}$), with
# $\underline c=\min_j\|w_j(0)\|/\lambda$. We take the smallest ratio of norm to bound over the
# snapshots up to $t_{\pm1}$. *This revision:* the check used to be a reproduction whose control was
# the same norms against the bound with the sign of $\varepsilon$ flipped, a perturbed bound and not a
# run. No cheap run of ours breaks the bound: it holds at initialisation with a factor
# $2\lambda^{-\varepsilon}\ge12$ to spare, and the non-orthogonal row, the $\lambda=1$ row and the row
# without negative neurons all keep a margin above 10 (printed below). It is therefore a
# **consistency check** now, graded on the sweep and on its initial state.

# %%
ledger.measure("lemma2.deactivation", sweep, premises=sweep_premises, dt=dt)
l9 = ledger.measure("lemma9.no-collapse", sweep, init=sweep.start(), premises=sweep_premises)
print("Lemma 9 margin per seed:", np.round(l9.array("margin"), 3).tolist())
others9 = {"non-orthogonal": sweep_co, "λ = 1": sweep_big, "no negative neuron": sweep_pos}
margins9 = {k: orth.claims.no_collapse(v)["margin"] for k, v in others9.items()}
print("on the other rows (not graded):", orth.rounded(margins9))

# %% [markdown]
# ### Lemmas 3–4: the growth phases scale like $\ln(1/\lambda)/\|D_\pm\|$
# Let $t_2^{1/2}$ ($t_3^{1/2}$) be the first time $u_+$ ($u_-$) reaches half its limit
# $n\|D_+\|$ ($n\|D_-\|$). The lemmas put the end of phase 2 (3) at $\approx\ln(1/\lambda)/\|D_+\|$
# ($/\|D_-\|$) up to $O(\varepsilon)$ and constants; hence the slope of $t_2^{1/2}$ against
# $\ln(1/\lambda)$ is $1/\|D_+\|$ and that of $t_3^{1/2}$ is $1/\|D_-\|$. We fit over
# $\lambda\in\{10^{-8},10^{-10},10^{-12}\}$ (where $\ln(1/\lambda)\ge18$; larger $\lambda$ still
# carries $O(1)$ offsets) for every seed. The control of a timing law keeps $\lambda$ and removes what
# makes $\|D_\pm\|$ the rate: the orthogonality of the inputs. It is the sweep's non-orthogonal row
# (seed 0's draw at the same $\lambda$ on inputs with pairwise inner products $0.2$), its times read the
# same way and scaled by the test bed's $\|D_\pm\|$. On those inputs the $S_{-,1}$ mass never reaches
# half of $n\|D_-\|$, so `lemma4.t3-scaling`'s control is undefined and the claim *inconclusive*: we
# accept that tier rather than a control that cannot fail (until this revision: a $\lambda=1$ draw
# copied into every column, slope 0 by construction). A counterfactual with the $S_{-,1}$ output signs
# flipped (the referee's proposal) would need a second training of the sweep; it is not run here.
# The plateau between the phases sits at the strict saddle $\theta_S$ with loss
# $\frac1{2n}\sum_{y_k<0}y_k^2=0.1875$; its control is the same draws at $\lambda=0.1$ (trained below for
# `lambda.no-separation`), where the phases do not separate; where the $S_{+,1}$ mass never reaches
# its half-fit level there, the midpoint and so the control are undefined (inconclusive).

# %%
logs = -np.log(lams.numpy())
fit = slice(2, None)
# slope2, slope3 (for the table)
hs = orth.claims.half_fit_slopes(sweep, kv)
plateau = orth.loss_at(sw, (t2h + t3h) / 2)

# %%
missed = int(np.isnan(t2h + t3h).sum())
if missed:
    print(f"{missed} (seed, λ) run(s) reached no half-fit time: their times and plateau are nan")

# %% tags=["hide-input"]
slopes_sw = (1 / kv.norm_plus, 1 / kv.norm_minus)
fig_sw = orth_plots.half_fit_and_plateau(logs, t2h, t3h, slopes_sw, lams.numpy(), plateau,
                                         orth.plateau_loss(y_tb))
glue("orthogonal-sweep", fig_sw, display=False)

# %%
ctrl_co = {"nonorthogonal": sweep_co}
ledger.measure("lemma3.t2-scaling", sweep, controls=ctrl_co, coarse=sweep_coarse,
               premises=sweep_premises, kv=kv)
r34 = t3h[:, -1] / t2h[:, -1]
note34 = f"t₃½/t₂½ at λ = 1e-12: {fmt(np.nanmin(r34))}–{fmt(np.nanmax(r34))} (r = {kv.r:.3f})"
ledger.measure("lemma4.t3-scaling", sweep, controls=ctrl_co, coarse=sweep_coarse,
               premises=sweep_premises, kv=kv, note=note34)
pd.DataFrame({"slope t2 × |D+|": hs["slope2"], "slope t3 × |D-|": hs["slope3"],
              "plateau at 1e-12": plateau[:, -1], "|S+,1|": s_plus.numpy(),
              "|S-,1|": s_minus.numpy()})

# %% [markdown]
# ```{glue:figure} orthogonal-sweep
# :name: orthogonal-sweep
#
# **Lemmas 3–4 and the saddle on the test bed.** (a) Half-fit times against $\ln(1/\lambda)$ for every seed, with the theory's slopes $1/\|D_\pm\|$ (dashed); (b) the loss midway between them against $\lambda$, and the saddle's level $0.1875$ (dashed). No figure of the paper shows this (its Lemmas 3–4 and §3.1). Compare: the points should run parallel to the dashed slopes (the fitted slope ratios, 1 when the law holds, are in the table above) and sit on the dashed level in (b).
# ```

# %% [markdown]
# Lemmas 3–4 also bound the phase ends themselves: phase 2 is over by
# $t_2\le(1+3\varepsilon)\ln(1/\lambda)/\|D_+\|$, when $u_+\ge n\|D_+\|-\lambda^{\varepsilon/5}$, and phase 3 by
# $t_3\le(1+3r\varepsilon)\ln(1/\lambda)/\|D_-\|$, when $u_-\ge n\|D_-\|-\lambda^{\varepsilon/29}$. We measure
# the first times the masses reach those levels and divide by the bounds ($\varepsilon=0.1$,
# $\lambda\le10^{-8}$). **This is a consistency check, not a reproduction of Lemmas 3–4.** The paper's
# condition on $\varepsilon$ (App. B.4: $(1+3\varepsilon)\max((1-\alpha)\|D_+\|,\|D_-\|)/\|D_+\|\le1-\varepsilon$),
# with $\alpha=\min_{y_k>0}y_k^2/(2n^2\|D_+\|^2)=1/14.5$ on this test bed (*our* reading of $\alpha$: we
# inserted the factor $n^2$; as printed, $\alpha=2.48$ and the condition admits $\varepsilon\le0.166$, so
# $\varepsilon=0.1$ would be admissible), allows only $\varepsilon\le0.0182$; $\varepsilon=0.1$ is outside it. At these $\lambda$ the levels are also
# near-vacuous: the phase-3 level $n\|D_-\|-\lambda^{\varepsilon/29}$ is 37–39 % of the final mass. At an
# admissible $\varepsilon=0.018$ the alignment bound $1-2\lambda^\varepsilon$ of Lemma 2 is negative
# (vacuous) for every $\lambda\ge1.9\times10^{-17}$ ($=2^{-1/\varepsilon}$), so the lemmas at their own $\varepsilon$ speak only
# below that; they are graded there in the next section, and this row (like `lemma2.alignment` and
# `lemma2.deactivation` at $\varepsilon=0.1$) is an **illustration, not the lemma**. Until the previous revision
# the row was a reproduction whose control, a start at $\lambda^2$, only rescaled the prediction by 2
# ($\ln(1/\lambda^2)=2\ln(1/\lambda)$); no run at these $\lambda$ can fail bounds this loose.
# Between the phases the trajectory should pass *near* $\theta_S$, not only at its loss level; that
# claim (`saddle.passes-near`) is graded as a trend on the deep sweep above.

# %%
lb = ledger.measure("lemma34.time-bounds", sweep, coarse=sweep_coarse, premises=sweep_premises,
                    kv=kv)
ratios_b = orth.rounded({k: lb.array(k) for k in ("ratio2", "ratio3")})
print("t2 / bound, t3 / bound (λ ≤ 1e-8, max per seed):", ratios_b)

# %% [markdown]
# ### Lemmas 2–4 at an $\varepsilon$ the paper admits
# The condition quoted in App. B.4, with our reading of $\alpha$ (above), admits only $\varepsilon\le0.0182$ on this
# test bed; we take $\varepsilon=0.018$. The lemmas'
# bounds are powers $\lambda^{\varepsilon/k}$, so they bite only at very small $\lambda$: Lemma 2's alignment
# bound $1-2\lambda^\varepsilon$ is positive only below $1.9\times10^{-17}$; Lemma 3 (i),
# $\langle\bar w_j,D_+\rangle\ge\|D_+\|-\lambda^{\varepsilon/2}$, excludes cosines below $1-\lambda^{\varepsilon/2}/\|D_+\|$,
# i.e. something at every $\lambda<6\times10^{-6}$ ($\cos\ge-0.47$ at $10^{-20}$), and requires $\cos\ge0$ below
# $10^{-38.6}$, where $\lambda^{\varepsilon/2}<\|D_+\|=0.449$. Float64 reaches that cheaply
# (the time to fit grows like $\ln(1/\lambda)$), so each seed's draw is run at
# $\lambda=10^{-20},10^{-30},\dots,10^{-70}$ to $t=750$ (GD, $dt=10^{-2}$; snapshots every $\Delta t=0.05$
# up to $t=20$, where $t_{\pm1}$ lie, then every $\Delta t=1$), past the bound
# $(1+3r\varepsilon)\ln(1/\lambda)/\|D_-\|=707$ of the deepest run. Lemma 4's alignment
# $\langle\bar w_j,-D_-\rangle\ge\|D_-\|-\lambda^{\varepsilon/14}$ and its $\|D_+^{t_3}\|<\lambda^{\varepsilon/14}$ are
# not graded: $\|D_+^{t_3}\|<\lambda^{\varepsilon/14}$ excludes the unfitted state ($\|D_+\|=0.449$) only below
# $10^{-270.7}$, and the alignment excludes some cosines only below $10^{-234}$ (it requires $\cos\ge0$ only below
# $10^{-468}$); the smallest normal float64 is $2\times10^{-308}$ and $\lambda^2$ must stay representable, so a
# column at $\sim10^{-290}$ ($t\approx2930$, about four times this batch) would test them; it is not run in this
# revision. **All three rows are consistency checks** (this revision, referee findings 1.2–1.4): Lemma 2's two
# inequalities hold on the non-orthogonal row too (its `small` is a Grönwall bound any small start meets) and
# only its deactivation, read where it holds, separates it; Lemma 3's (i) and (iii) hold with factors $10^8$
# and $10^2$ to spare (loose bounds), and its time ratio restates `lemma3.t2-scaling`; Lemma 4's mass level is
# $35$–$40\,\%$ below the final mass (the near-vacuity for which `lemma34.time-bounds` is a consistency check)
# and the non-orthogonal row met its stillness only because it never reached $t_2$. The non-orthogonal row
# still trains in this batch and is printed below; the same draws trained with the coarse step $dt=1$ are
# measured too, and Lemma 2 also on the initial state. Where a mass level is never reached within the run, which outlasts
# the bound, the lemma's "for some $t\le$ bound" fails there: the time ratio is the run's end over the
# bound. The three rows: `lemma2.admissible-eps` {glue:text}`orthogonal-adm-l2`,
# `lemma3.admissible-eps` {glue:text}`orthogonal-adm-l3`, `lemma4.admissible-eps` {glue:text}`orthogonal-adm-l4`.
# *A finding:* Lemma 2's deactivation (iii) at $\varepsilon=0.018$ needs smaller $\lambda$ than its
# inequalities: $t_{+1}=-\varepsilon\ln\lambda/\|D_+\|$ is only $1.8$ time units at $10^{-20}$, and in an
# exploratory run one to six (neuron, input) pairs were still active at $10^{-20}$–$10^{-30}$ in three of
# five seeds, none at $10^{-40}$ and below; the rule reads it at the smallest $\lambda$ (the lemma holds
# "for $\lambda\le\lambda^*$"), and the table prints it at every $\lambda$.

# %%
lams_adm = torch.tensor([1e-20, 1e-30, 1e-40, 1e-50, 1e-60, 1e-70], dtype=torch.float64)
T_adm = 750.0
# the sweep's draws, and the control: seed 0 at δ = 0.2
p_adm = sweep_init(50, 10, lams_adm, seeds=N_SEEDS, seed=seed)
X_adm = orth.stacked_inputs(X_tb, (N_SEEDS + 1, len(lams_adm)), [(N_SEEDS, X_co)])
rec_adm = np.union1d(linear_schedule(int(T_adm / dt), 100), np.arange(0, int(20 / dt) + 1, 5))
adm_all = train(cat_runs(p_adm, orth.select_runs(p_adm, slice(0, 1))), X_adm, y_tb, loss=half_mse(),
                lr=dt, steps=int(T_adm / dt), record=rec_adm)
adm, adm_co = (Sweep(adm_all.run(sl), Xd, y_tb, lams_adm)
               for sl, Xd in ((slice(0, N_SEEDS), X_tb), (slice(N_SEEDS, None), X_co)))
adm_coarse = orth.coarse_sweep(p_adm, X_tb, y_tb, lams_adm, T_adm, DT_COARSE)

# %%
for c in ("lemma2.admissible-eps", "lemma3.admissible-eps", "lemma4.admissible-eps"):
    init = adm.start() if c.startswith("lemma2") else None
    res = ledger.measure(c, adm, coarse=adm_coarse, init=init, premises=sweep_premises)
    glue(f"orthogonal-adm-l{c[5]}", f"{rate_of(c)}, tier {res.tier()[0]}", display=False)
    print(f"{c}: {rate_of(c)}, tier {res.tier()[0]}")
margins_co = {**orth.claims.lemma2_margins(adm_co), **orth.claims.lemma34_margins(adm_co)}
print("non-orthogonal row (printed, not a control):", orth.rounded(margins_co))
orth.admissible_table(adm, lams_adm.tolist())

# %% [markdown]
# ### Larger $\lambda$: no separation between phases 2 and 3
# The theorem needs $\lambda\le\lambda^*$; the paper adds that for larger $\lambda$, still in the
# mean-field regime, it observes no separation between phases 2 and 3: no intermediate saddle. We
# train the same draws at $\lambda=10^{-2}$ and $10^{-1}$ ($=0.71/\sqrt m$) and measure how long the
# loss stays within $\pm5\%$ of the plateau level, in units of the third phase's e-folding time
# $1/\|D_-\|$. The claim is graded at $\lambda=0.1$ (dwell below half an e-folding time); the control
# is the same measurement at $\lambda=10^{-4}$, where the saddle should hold the loss. *A finding:* the
# threshold was first one e-folding time, and the control passed it in one seed of a reduced run (at
# $\lambda=10^{-4}$ the plateau sits partly outside $\pm5\%$ of its limit level); it was halved, and
# the claims file records the change. Even so, at $\lambda=10^{-4}$ the control was not clearly on the
# other side of the threshold (dwell up to $1.25$, so the claim was tiered consistency); in this
# revision the control is the same measurement at $\lambda=10^{-12}$, where the theory's plateau lasts
# about twelve e-folding times.

# %%
lams_up = torch.tensor([1e-2, 1e-1], dtype=torch.float64)
# λ = 1e-8, and inputs with inner products δ = 1e-8 (both for the next section)
li8 = 2
X_near, _ = correlated_testbed(tuple(y_tb.tolist()), rho=1e-8)
X_extra = torch.stack([X_tb, X_tb, X_near]).expand(N_SEEDS, 3, *X_tb.shape)
# runs (seeds, λ): λ = 1e-2, 1e-1, and 1e-8 on the nearly orthogonal inputs
p_extra = cat_runs(sweep_init(50, 10, lams_up, seeds=N_SEEDS, seed=seed),
                   orth.select_runs(p_sw, slice(None), slice(li8, li8 + 1)), axis=1)

# %%
extra = orth.sweep_gd(p_extra, X_extra, y_tb, dt, T_sweep, 25)
sw_up, near = extra.run(slice(None), slice(0, 2)), extra.run(slice(None), 2)
# (seeds, lams), in units of 1/‖D-‖
dwell = orth.dwell_time(sw.time, sw.loss, orth.plateau_loss(y_tb)) * kv.norm_minus
dwell_up = orth.dwell_time(sw_up.time, sw_up.loss, orth.plateau_loss(y_tb)) * kv.norm_minus
sweep_up = Sweep(sw_up, X_tb, y_tb, lams_up)
ledger.measure("saddle.plateau", sweep, controls={"moderate_lambda": sweep_up.columns([0])},
               coarse=sweep_coarse, premises=sweep_premises)
# λ = 0.1, and the control λ = 1e-12
ledger.measure("lambda.no-separation", sweep_up.columns([1]), premises=dict(flow_gap=flow_gap),
               kv=kv, controls={"small_lambda": sweep.columns([len(lams) - 1])})
lam_all = np.r_[lams.numpy(), lams_up.numpy()]

# %%
losses_lam = {v: sw.loss[:, 0, i].numpy() for i, v in enumerate(lams.tolist())}
losses_lam.update({v: sw_up.loss[:, 0, i].numpy() for i, v in enumerate(lams_up.tolist())})
fig = orth_plots.lambda_panels(sw.time, losses_lam, lam_all, np.c_[dwell, dwell_up],
                               orth.plateau_loss(y_tb))
glue("orthogonal-lambda", fig, display=False)
excess_up = orth.excess_norm(sw_up.final, X_tb, y_tb).numpy().round(3).tolist()
print(f"excess norm at λ = 1e-2, 1e-1 (per seed): {excess_up}")

# %% [markdown]
# ### Nearly orthogonal data, $\delta$ of order $\lambda$
# The paper: the analysis "can easily be extended to nearly orthogonal data where
# $|\langle x_k,x_{k'}\rangle|\le\delta$, with $\delta$ of order $\lambda$", while for $\delta\gg\lambda$ the dynamics
# is "drastically different". We train each seed's draw at $\lambda=10^{-8}$ on unit inputs whose
# pairwise inner products all equal $\delta=10^{-8}$ and compare $t_2^{1/2}$, $t_3^{1/2}$ and the final
# $\|\theta\|^2$ with the orthogonal run of the same draw. The control is the same comparison for
# $\delta=0.2$ (the sweep's non-orthogonal row), printed as context only.
# On the $\delta=0.2$ inputs the $S_{-,1}$ neurons' mass never reaches half of $n\|D_-\|$ within the run
# (the negative labels get fitted another way), so that gap is undefined (printed as nan): as a control
# it made the claim inconclusive, and it was handed in as a value. The claim is therefore declared a
# consistency check in this revision; controls at $\lambda=10^{-8}$ with $\delta\in\{10^{-6},10^{-4},10^{-2}\}$,
# where the half-fit times are defined, are left for a later revision.

# %%
# (trained in one batch with the larger λ above)
def largest_change(t2, t3, nn, k):
    """Largest relative change of t₂½, t₃½ and ‖θ‖² against the orthonormal runs at λ = 1e-8."""
    ref = (t2h[k, li8], t3h[k, li8], sw.final.sq_norm()[k, li8].numpy())
    return np.max([relative_error(v, r) for v, r in zip((t2, t3, nn), ref)], axis=0)


t2n, t3n = orth.half_fit_times(near, X_near, y_tb)
t2c, t3c = orth.half_fit_times(sw_co, X_co, y_tb)
gap_near = largest_change(t2n, t3n, near.final.sq_norm().numpy(), slice(None))
gap_co = largest_change(t2c[0, li8], t3c[0, li8], sw_co.final.sq_norm().numpy()[0, li8], 0)
ledger.grade("nearly-orthogonal.delta-lambda", gap=gap_near, **sweep_premises)
print(f"relative gap to the orthogonal run per seed: {gap_near.round(5)} (δ = 0.2: {gap_co:.3f})")

# %% [markdown]
# ```{glue:figure} orthogonal-lambda
# :name: orthogonal-lambda
#
# **§3.1's remark on larger $\lambda$.** (a) The loss of seed 0's draw for every $\lambda$ of the
# sweep and the two larger ones (dotted: the plateau level $0.1875$): the plateau shortens as
# $\lambda$ grows and is gone at $\lambda=0.1$. (b) The time each seed's loss spends within $\pm5\%$
# of the plateau level, times $\|D_-\|$; the claim `lambda.no-separation` asks for less than 0.5 at
# $\lambda=0.1$ (dashed line).
# ```

# %% [markdown]
# The paper also says that at such $\lambda$ the parameters "seem to also converge towards a minimal
# norm interpolator". We do not grade that part: at $\lambda=0.1$ the initial $\|\theta\|^2$ alone is
# already above the minimal interpolating norm on this test bed, and the excess printed above is large.

# %% [markdown]
# The saddle is *strict*: adding to $\theta_S$ a neuron pair $w=\delta(-D_-/\|D_-\|)$,
# $a=-\delta$ lowers the loss as $-\|D_-\|\delta^2+O(\delta^4)$ (our derivation). We check the
# curvature on our closed-form $\theta_S$, with no training involved: this checks our
# reconstruction of the saddle against itself, so it is a **consistency check**, not a
# reproduction; the trained runs meet the saddle through the plateau level above.

# %%
deltas = torch.logspace(-4, -2, 5, dtype=torch.float64)
dL, pred_slope = orth.escape_curvature(X_tb, y_tb, deltas)
curv = (dL / deltas ** 2).numpy()
theta_S = orth.saddle_point(X_tb, y_tb)
gnorm = orth.loss_gradient_norm(theta_S, X_tb, y_tb)
ledger.grade("saddle.strict", gnorm=gnorm, curv_dev=float(np.max(np.abs(curv / pred_slope - 1))))
print(f"‖∇L(θ_S)‖ = {gnorm:.3g}; (L(δ) − L(θ_S))/δ² = {curv.min():.6f}…{curv.max():.6f} "
      f"vs −‖D₋‖ = {pred_slope:.6f}")

# %% [markdown]
# ### Lemma 5 and convergence: the last phase is exponential
# After phase 3 the loss decays exponentially. The paper (§4) says the trajectory "converges
# exponentially at a rate $\|D_-\|$": the residuals of the labels fitted last decay at rate $\|D_-\|$
# per unit time, so $\ln L$ falls with slope $-2\|D_-\|=-0.5$ here ($n_-=3\ge2$). We fit $\ln L$ over a
# window of loss values deep in the asymptotic regime (the cell prints it). §4 adds that "the dynamics
# still require a large time $-\ln(\lambda)/\|D_-\|$ to escape the two first saddles" (the quantitative
# form is the paper's Lemma 12, App. B): the time to reach $L<10^{-6}$ grows linearly in $\ln(1/\lambda)$
# with slope $\approx1/\|D_-\|$. The slope is fitted on the deep sweep above ($\lambda=10^{-8}\dots10^{-30}$,
# seven values over about 51 nats; until this revision three values over 9 nats, where finite-$\lambda$
# offsets moved it by up to 13 %). The control of both is the non-orthogonal row at the same
# $\lambda$ (of the deep sweep for the convergence time), whose last phase and convergence time are set
# by its correlated inputs. The rate is still graded at finite $\lambda$ on the main sweep: on the deep
# sweep (a reduced probe, 2 seeds) its deviation from $2\|D_-\|$ falls from 0.10–0.14 at $\lambda=10^{-4}$ to
# $2\times10^{-4}$–$6\times10^{-4}$ at $10^{-20}$–$10^{-24}$ and rises again to 0.008–0.027 at $10^{-27}$–$10^{-30}$ (those runs reach
# the fit window late within $t=400$, read every $\Delta t=4$), so it is not monotone and a trend rule would
# grade that resolution, not the limit; a longer, denser deep sweep is left for a later revision. (Until this
# revision the convergence time's control was a $\lambda=1$ draw copied into every column, whose
# time cannot grow with the nominal $\lambda$.) The convergence time is a claim about the flow's time
# course, so it is also measured on the coarse step $dt=1$; where the rule holds there in at least
# half the seeds it is tiered consistency.

# %%
RATE_WINDOW = (1e-24, 1e-16)
# (seeds, lams)
rate = orth.decay_rates(sw.time, sw.loss, RATE_WINDOW)
rate_lin = orth.linearised_rates(fin, X_tb)
r_pred = orth.local_rate(kv, int((y_tb < 0).sum()))

# %%
note5 = ("fitted rate / linearised rate 2λ_min(K)/n at the end point: "
         f"{fmt(np.nanmin(rate / rate_lin))}–{fmt(np.nanmax(rate / rate_lin))}")
ledger.measure("lemma5.local-rate", sweep, controls=ctrl_co, coarse=sweep_coarse,
               premises=sweep_premises, kv=kv, window=RATE_WINDOW, n_last=int((y_tb < 0).sum()),
               note=note5)
l12 = ledger.measure("lemma12.convergence-time", deep, controls={"nonorthogonal": deep_co},
                     coarse=deep_coarse, premises=sweep_premises, kv=kv)
s_conv = l12.values["slope_conv"]

# %%
print(f"fit window: {RATE_WINDOW[0]:.0e} < L < {RATE_WINDOW[1]:.0e}; "
      f"predicted rate 2‖D₋‖ = {r_pred:.4f}")
for c in ("lemma5.local-rate", "lemma12.convergence-time"):
    print(f"{c}: {rate_of(c)}")
orth.lambda_frame(rate, lams.tolist()).assign(**{"slope t(L<1e-6) × |D-|": s_conv}).round(4)

# %% [markdown]
# The fitted asymptotic rate agrees with the rate of the flow linearised at the end point,
# $2\lambda_{\min}(K)/n$ with $K=JJ^\top$ the tangent-kernel Gram matrix (the ratio is printed as
# context in the ledger), but that end point is not yet the $\lambda\to0$ limit: the small neurons
# outside $S_{-,1}$ (see Theorem 1 above) change $K$, so the rate can reach $2\|D_-\|$ only as
# $\lambda\to0$, and at the larger $\lambda$ of the sweep the fitted rate stays visibly below it.
# The claims are graded on the rule declared for them, with the pass rates printed above; there is
# no weaker tier.

# %% [markdown]
# **Lemma 5 as the inequality it states.** Lemma 5 is a lower bound on the Polyak–Łojasiewicz constant,
# $\|\nabla L(\theta)\|^2\ge\mu\,L(\theta)$, in a ball around the state at $t_3$. Its displayed bound is
# missing from our copy of the paper's text (only "we have the following lower bound on the PL constant"
# survives), so we cannot grade its constant, and we do not make one up. What a run shows: along the flow
# $\frac{d}{dt}\ln L=-\|\nabla L\|^2/L$, so the PL ratio along the trajectory is read from the sweep's own
# loss snapshots, $\mu(t)=-\Delta\ln L/\Delta t$ (averaged over $\Delta t=0.25$; no extra run, no extra
# cost). The cell prints its smallest value after the third phase (from $L<10^{-2}\cdot0.1875$ down to
# $10^{-24}$), on the plateau between $t_2^{1/2}$ and $t_3^{1/2}$, and on the non-orthogonal row after its
# own convergence, at $\lambda\le10^{-8}$. In an exploratory run it was $\approx2\|D_-\|=0.5$ after the third
# phase for most draws, near $0$ on the plateau (no PL inequality holds near the saddle, the paper's point),
# and *larger* ($0.57$–$0.81$) on the non-orthogonal row (those exploratory draws were not this chapter's; the table below is): a PL inequality after the fit holds for any run
# that converges exponentially, so no cheap control run separates Lemma 5's mechanism from its absence;
# with its constant unknown it stays a printed measurement, not a ledger row.

# %%
mu_after, mu_plat = orth.pl_rates(sw_all.time, sw_all.loss, orth.plateau_loss(y_tb), t2h, t3h)
mu_co = mu_after[N_SEEDS + 1, fit].min()
pd.DataFrame({"min μ after the fit": list(mu_after[:N_SEEDS, fit].min(-1)) + [mu_co],
              "min μ on the plateau": list(mu_plat[:, fit].min(-1)) + [np.nan]},
             index=orth.seed_index(N_SEEDS, ["non-orthogonal (seed 0)"])).round(4)

# %% [markdown]
# ### When Assumption 3 fails, gradient flow can get stuck
# Assumption 3 asks for at least one neuron in $S_{+,1}$ and one in $S_{-,1}$. With a narrow
# network it can fail. By Lemma 6 a label $y_k<0$ can only be fitted by a negative-sign neuron
# active on $x_k$ at initialisation (and mirror for $y_k>0$); if there is none, the loss can never
# drop below $\frac1{2n}\sum_{k\,\text{uncovered}}y_k^2$. We train 8 draws per seed of width $m=4$
# ($\lambda=10^{-6}$, $t=400$) and compare each final loss with that floor. The assumption is
# sufficient, not necessary for zero loss: a draw can violate it and still converge when other neurons
# cover every point. The control is the same draws trained in the same batch on the non-orthogonal
# inputs (pairwise inner products $0.2$), where Lemma 6 no longer freezes an inactive neuron, measured
# against the floor of their own inputs. (Until this revision it was the sweep's wide draws, $m=50$,
# where no draw violates the assumption, so `n_stuck >= 1` could not pass there.)

# %%
n_per = 5 if quick else 8
# Monte Carlo draws per seed (below)
n_mc = 30 if quick else 100
p4 = balanced_init(4, 10, scale=1e-6, gen=generator(seed + 7), runs=(N_SEEDS * n_per,))
p_mc = balanced_init(4, 10, scale=1e-6, gen=generator(seed + 12), runs=(N_SEEDS, n_mc))
n4, n_nar = N_SEEDS * n_per, N_SEEDS * (2 * n_per + n_mc)
# all narrow experiments in one batch; the control: the same draws p4 at δ = 0.2 (the last n4 runs)
X_nar = orth.stacked_inputs(X_tb, (n_nar,), [(slice(-n4, None), X_co)])
narrow = train(cat_runs(p4, orth.flat_runs(p_mc), p4), X_nar, y_tb, loss=half_mse(), lr=dt,
               steps=40_000, record=[0, 40_000])

# %%
stuck, L_mc = narrow.run(slice(0, n4)), narrow.loss[-1, n4:-n4].view(N_SEEDS, n_mc)
L_stuck_co = narrow.loss[-1, -n4:]

st = ledger.measure("assumption3.stuck", (p4, stuck.loss[-1]),
                    controls={"nonorthogonal": (p4, L_stuck_co, X_co)},
                    premises=dict(flow_gap=flow_gap), X=X_tb, y=y_tb, groups=N_SEEDS).values
S4p, S4m = orth.s_sets(p4, X_tb, y_tb)
viol4 = ~(S4p.any(-1) & S4m.any(-1))
print(f"{int(viol4.sum())}/{len(viol4)} draws violate Assumption 3, "
      f"{int((stuck.loss[-1][viol4] > 1e-6).sum())} of them stuck")
pd.DataFrame({k: st[k] for k in ("match", "n_stuck")}, index=orth.seed_index(N_SEEDS))

# %% [markdown]
# **Is Assumption 3 necessary for zero loss?** The paper says that "the only sufficient and necessary
# requirement on the width $m$ stems from Assumption 3" (§3, after Theorem 1). That sentence is about
# Theorem 1's whole result, including the minimal-norm limit: a violating draw that converges fits a
# label sign with several partial neurons, whose F1 cost exceeds $\|y_\pm\|$, so it does not reach
# $\theta^*$. The row below tests only *our stricter reading*, necessity for zero loss, which the paper
# does not claim; its expected failure is **not** a disagreement with the paper (an earlier revision
# called it one). We quantify it by Monte Carlo: per seed, 100 independent draws of width
# $m=4$ ($\lambda=10^{-6}$, $t=400$, all seeds in one batch), and the fraction of the violating
# draws that reach $L<10^{-10}$. The control is the same fraction among the seed's draws that satisfy
# the assumption, which all converge if it is sufficient.
#
# The paper's necessity, for Theorem 1's whole conclusion, is graded on the same draws by
# `assumption3.min-norm` ({glue:text}`orthogonal-a3-min-norm`): among the violating draws that *do* reach zero
# loss, the smallest relative excess of the final $\|\theta\|^2$ over the minimal interpolating norm must be
# at least $0.05$. **This is a consistency check** (this revision, referee finding 1.1): on $x_k=e_k$ Lemma 6
# freezes the activation sets, and with $\|\theta\|^2\ge2\sum_j|a_j|\|w_j\|$ every converged violating draw pays
# at least $0.064$ on this test bed (three negative neurons; two neurons on the supports $\{1,2\},\{2,3\}$: $0.072$;
# positive side: $0.117$), whatever the dynamics; the earlier text's "least excess $0.099$" was wrong (seed 0's
# draw ends at $0.0904$). The row therefore restates a corollary of Lemma 6; it has no control. A reproduction
# would grade whether each converged violating draw reaches the minimal norm *for its own frozen activation
# sets* (a small convex problem per draw); not done in this revision. The satisfying draws are printed beside it.

# %%
# (trained in one batch with the draws above)
Smc_p, Smc_m = orth.s_sets(p_mc, X_tb, y_tb)
# (seeds, draws)
ok_mc = (Smc_p.any(-1) & Smc_m.any(-1)).numpy()
conv_mc = (L_mc < 1e-10).numpy()
ledger.measure("assumption3.necessary", (L_mc.numpy(), ~ok_mc),
               premises=dict(flow_gap=flow_gap))
fin_mc = orth.unflat_runs(orth.select_runs(narrow.final, slice(n4, -n4)), (N_SEEDS, n_mc))
a3n = ledger.measure("assumption3.min-norm", (fin_mc, L_mc, ~ok_mc), X=X_tb, y=y_tb,
                     premises=dict(n_conv_viol=(conv_mc & ~ok_mc).sum(-1), flow_gap=flow_gap))
glue("orthogonal-a3-min-norm", f"{rate_of('assumption3.min-norm')}, tier {a3n.tier()[0]}",
     display=False)
ex_ok = orth.claims.violating_excess((fin_mc, L_mc, ok_mc), X=X_tb, y=y_tb)["excess_min"]
print("assumption3.min-norm: smallest excess of a converged draw per seed,",
      orth.rounded({"violating": a3n.array("excess_min"), "satisfying": ex_ok}, 4))

# %%
bad = ~ok_mc
print(f"over all seeds {int(conv_mc[bad].sum())} of {int(bad.sum())} violating draws converged; "
      f"assumption3.necessary: {rate_of('assumption3.necessary')}")
pd.DataFrame({"violating draws": bad.sum(-1), "of which converge": orth.share_where(conv_mc, bad),
              "satisfying draws converging": orth.share_where(conv_mc, ok_mc),
              "bound on P(violation)": orth.assumption3_failure_probability(4, 3, 3)},
             index=orth.seed_index(N_SEEDS))

# %% [markdown]
# The counts printed above are the measurement: Assumption 3 is sufficient (the control), but
# where violating draws converge it is not necessary *for zero loss*. The paper does not claim that
# (its sentence is about Theorem 1's whole result, minimal-norm limit included), so this is a finding
# about our stricter reading, not a disagreement with the paper.

# %% [markdown]
# ## Non-orthogonal data (Figure 4)
# Appendix A.1: five 1-D points with a bias coordinate. The text does not give the values; we use
# the authors' camera-ready code's $x=(-1.5,-1,0,0.25,2)$, $y=(0.7,-0.3,-0.3,0.4,0.2)$; $m=60$,
# $\lambda=10^{-4}/\sqrt m$, GD with $\eta=10^{-3}$ on the mean MSE for 400 000 iterations (the
# authors' older commit), 5 seeds in one batch. The paper's point: two groups of neurons grow *and
# change direction* during the growth (panel c), the loss shows saddle-to-saddle steps (f), and the
# final function is still sparse in kinks (e). The premise that GD follows the flow is checked by
# rerunning the first 100 000 iterations with twice the step: the iteration where the loss has
# halved must move by less than 2 %. This covers the first drop only. Leaving the intermediate
# saddle is more fragile: near a saddle the gradient is tiny and small differences (a draw, a step)
# decide when, and within 400 000 iterations whether, a run leaves it. We therefore keep the
# authors' step rather than a larger one, and read a seed that stays on the saddle as a result of
# this GD run, not of the flow.

# %%
X_no, y_no = nonorthogonal_1d()
eta4 = 1e-2 if quick else 1e-3
steps4 = int(400 * 1e-3 / eta4 * 1000)
p_no = balanced_init(60, 2, scale=1e-4 / math.sqrt(60), gen=generator(seed + 2), runs=(N_SEEDS,))
no = orth.paper_gd(p_no, X_no, y_no, eta4, steps4, 400)
# in units of the paper's iterations
it_no = no.steps * eta4 / 1e-3

# %%
steps4_2 = int(100 * 1e-3 / (2 * eta4) * 1000)
no2 = orth.paper_gd(p_no, X_no, y_no, 2 * eta4, steps4_2, [0, steps4_2])
half_no = orth.drop_iteration(no.dense_loss, 0.5, eta4 / 1e-3)
step_no = np.abs(orth.drop_iteration(no2.dense_loss, 0.5, 2 * eta4 / 1e-3) / half_no - 1)
walk_no = [orth.saddle_walk(no.run(r), it_no, above=100) for r in range(N_SEEDS)]

# %%
L_no = no.loss[:, 0].numpy()
final_no = np.array2string(no.loss[-1].numpy(), precision=3)
print(f"L0 = {L_no[0]:.4f}, final loss per seed = {final_no}; iteration of the half-drop, "
      f"step η vs 2η: {half_no.round(0)} vs {(half_no * (1 + step_no)).round(0)}")

# %% [markdown]
# Panels (one seed at a time, chosen in the page): (a) init; (b) early alignment, just before the loss first drops; (c) the first
# growth, when the loss has made half of its first drop; (d) leaving the intermediate saddle,
# half-way down the second drop; (e) the end; (f) the loss. We locate the plateau as the longest
# stretch of snapshots where $\log L$ changes by less than 1% per snapshot.

# %%
# Figure 4's snapshots of every seed (init, early alignment, first growth, leaving the saddle, end)
snaps_no = [orth.saddle_snapshots(no.loss[:, r].numpy(), walk_no[r]) for r in range(N_SEEDS)]
grid_no = torch.linspace(-2.5, 3.0, 200, dtype=torch.float64)


# %% tags=["hide-input"]
def fig4(r):
    idx, pl = snaps_no[r]
    order = [r] + [k for k in range(N_SEEDS) if k != r]
    nets = [no.run(r).at(i) for i in idx]
    return orth_plots.saddle_panels(
        nets, X_no, y_no, grid_no, it_no, no.loss[:, order].numpy(), idx, pl,
        f"Figure 4 — non-orthogonal data, small initialisation, seed {r}")


def note4(r):
    pl = snaps_no[r][1]
    return (f"seed {r}: plateau from iteration {it_no[pl[0]]:,.0f} to {it_no[pl[1]]:,.0f}; "
            f"final loss {float(no.loss[-1, r]):.2e}")


glue_seeds("orthogonal-fig4", [fig4(r) for r in range(N_SEEDS)], [note4(r) for r in range(N_SEEDS)])

# %% [markdown]
# ```{glue:figure} orthogonal-fig4
# :name: orthogonal-fig4
#
# **Figure 4 of the paper.** Non-orthogonal 1-D data, small initialisation, one seed at a time (choose it above the figure): function and neurons at (a) initialisation, (b) early alignment, (c) the first growth, (d) leaving the intermediate saddle, (e) the end; (f) the loss (grey: other seeds; pink: the plateau). Compare: the growing neurons turn between (b) and (d), and the final function has few kinks.
# ```

# %% [markdown]
# ## Large initialisation: the lazy regime (Figure 5)
# Same data and draws, $\lambda=10/\sqrt m$. The paper: the neurons barely move, convergence is
# fast with no saddle, and the final function is close to the kernel (NTK) interpolator at
# initialisation rather than sparse. We run 20 000 iterations (the loss reaches its floor long
# before), and again with twice the step for the step premise. These runs are also the negative
# control of Figure 4's saddle and sparsity claims.

# %%
p_lazy = balanced_init(60, 2, scale=10 / math.sqrt(60), gen=generator(seed + 2), runs=(N_SEEDS,))
lazy = orth.paper_gd(p_lazy, X_no, y_no, 1e-3, 20_000, 400, dense_loss=False)
lazy2 = orth.paper_gd(p_lazy, X_no, y_no, 2e-3, 10_000, [0, 10_000], dense_loss=False)
grid_lz = torch.linspace(-2.5, 3.0, 200, dtype=torch.float64)
Z_lz = torch.stack([grid_lz, torch.ones_like(grid_lz)], -1)
# the NTK interpolators
h_ntk = torch.stack([orth.ntk_interpolator(lazy.run(r).at(0), X_no, y_no, Z_lz)
                     for r in range(N_SEEDS)])

# %% tags=["hide-input"]
def fig5(r):
    return orth_plots.lazy_panels(
        [lazy.run(r).at(0), lazy.run(r).final], X_no, y_no, grid_lz, h_ntk[r].numpy(),
        f"Figure 5 — large initialisation ($\\lambda=10/\\sqrt{{m}}$), seed {r}: lazy regime")


# %%
mv_lazy, mv_rich = orth.movement(lazy), orth.movement(no)
f1_lazy, f1_rich = orth.f1_cost(lazy.final), orth.f1_cost(no.final)
step_lazy = (orth.movement(lazy2) / mv_lazy - 1).abs()
glue_seeds("orthogonal-fig5", [fig5(r) for r in range(N_SEEDS)],
           [f"seed {r}: relative movement {mv_lazy[r]:.3g} (small initialisation: {mv_rich[r]:.3g})"
            for r in range(N_SEEDS)])
pd.DataFrame({"movement, large init": mv_lazy.numpy(), "movement, small init": mv_rich.numpy(),
              "F1, large init": f1_lazy.numpy(), "F1, small init": f1_rich.numpy(),
              "final loss, large init": lazy.loss[-1].numpy()}, index=orth.seed_index(N_SEEDS))

# %% [markdown]
# ```{glue:figure} orthogonal-fig5
# :name: orthogonal-fig5
#
# **Figure 5 of the paper.** Large initialisation ($\lambda=10/\sqrt m$), one seed at a time (choose it above the figure): function and neurons at initialisation and at the end; dashed in (b): the NTK interpolator of the initialisation. Compare: the neurons barely move and the final function follows the NTK interpolator (gaps per seed in the table below), not a sparse one.
# ```

# %% [markdown]
# **Grading Figures 4 and 5.** A plateau alone does not make a saddle: graded on "at least one
# plateau and a final loss below $10^{-5}$", the check accepted some of its controls, the lazy runs,
# whose slowing exponential decay also has stretches where $\log L$ changes by less than 1 % per
# snapshot. A saddle is left *faster* than the loss moves on it, so the rule now also asks that the
# loss, leaving some plateau, fall ten times faster than along it (the claims file records this
# change, made after that control result). The realignment of Figure 4 is measured as the largest direction
# change of the 10 largest neurons between the end of alignment and the start of the plateau,
# against the same window of the orthogonal toy (seed by seed). Its threshold, more than
# $10^\circ$, was set by us without a record written before the first run; we keep it and say so. Its
# control is the orthogonal toy run of the same seed, measured by the same function over its own window
# (end of alignment to the plateau): a check that accepted it would not see realignment. (Until this
# revision the rule also asked for less than $1^\circ$ on the toy, and the control put the toy in both
# places.) The claims of Figure 5 are measured on the large-initialisation run; their control is the
# same seed's small-initialisation run through the same measurement (until this revision: the two
# roles swapped in the rule), with the small run's F1 cost and convergence iteration as the reference.

# %%
it_lz = lazy.steps.astype(float)
walk_lazy = [orth.saddle_walk(lazy.run(r), it_lz, above=100) for r in range(N_SEEDS)]
turn_no = np.array([w["turn"] for w in walk_no])
turn_toy = np.array([max_direction_change(toy.run(r).at(i[1]), toy.run(r).at(i[2]))
                     for r, i in enumerate(idx_toy)])
clusters = [orth.kink_clusters(no.run(r).final) for r in range(N_SEEDS)]

# %%
ledger.measure("fig4.saddles", (no, it_no), controls={"large_init": (lazy, it_lz)},
               premises=dict(step_gap=step_no))
# alignment end → plateau start; the toy's own window (Figure 2)
win_no = [(w["i_b"], w["main"][0] + 1) if w["main"] else None for w in walk_no]
win_toy = [(i[1], i[2]) for i in idx_toy]
ledger.measure("fig4.realign", (no, win_no), controls={"orthogonal_toy": (toy, win_toy)},
               premises=dict(step_gap=step_no))
# plateau end → panel (d); neurons of at least 1 % of the largest norm
win_exit = [(w["main"][1], snaps_no[r][0][3]) if w["main"] else None for r, w in enumerate(walk_no)]
win_toy_exit = [(i[2], i[3]) for i in idx_toy]
_ = ledger.measure("fig4.realign-exit", (no, win_exit), premises=dict(step_gap=step_no), rel=0.01,
                   controls={"orthogonal_toy": (toy, win_toy_exit)})

# %%
ledger.measure("fig4.sparse", no, controls={"large_init": lazy}, premises=dict(step_gap=step_no),
               note=f"seed 0's kinks: {np.round(clusters[0][1], 2).tolist()}")
# one fixed reference: the small-initialisation runs' median F1 cost
init_lazy = orth.claims.first_snapshots(lazy)
ledger.measure("fig5.lazy", lazy, controls={"small_init": no}, init=init_lazy,
               premises=dict(step_gap=step_lazy), f1_ref=float(np.median(f1_rich.numpy())))
print(f"direction change during growth per seed: non-orthogonal {turn_no.round(1)}°, "
      f"orthogonal toy {turn_toy.round(2)}°")
for c in ("fig4.saddles", "fig4.realign", "fig4.realign-exit", "fig4.sparse", "fig5.lazy"):
    print(f"{c}: {rate_of(c)}")

# %% [markdown]
# **The NTK interpolator and the speed of the lazy regime.** The paper: the large-initialisation
# function "is approximately the interpolator coming from the Neural Tangent Kernel at
# initialisation", and this regime converges "much faster", without saddle points. We compute the
# NTK interpolator of each seed's initialisation exactly (the network linearised at $\theta_0$, moved
# by the minimum-norm parameter change that fits the data: where GD on the linearised model goes),
# dashed in Figure 5(b), and compare it with the final function on the grid. For the speed we compare
# the iterations needed to reach a mean MSE of $10^{-5}$ and count the saddles (plateaus left ten
# times faster than the loss moves on them, as in `fig4.saddles`) of the large-initialisation loss.
# The controls are the small-initialisation runs measured the same way. Where a measurement is a
# ratio to the small-initialisation runs (`fig5.lazy`'s F1 ratio, `fig5.faster`'s iteration ratio), the
# reference is one fixed number, the median over the seeds of those runs, for the main and the control
# run alike (until this revision each seed's own small-initialisation run, so the control was divided
# by itself and its ratio was 1 by construction).
# *A finding:* the final function follows the NTK interpolator's shape (Figure 5(b)) but, in our
# measure, not within 10 % of the largest label: the initial function is about twenty times the
# labels, and the small relative movement of the parameters still changes it by more than the
# linearisation captures. The claim was expected to pass; it is published as measured (the claims
# file records the change of expectation).

# %%
it_lazy = np.nan_to_num(first_crossing(it_lz, lazy.loss, 1e-5), nan=4e5)
it_rich = np.nan_to_num(first_crossing(it_no, no.loss, 1e-5), nan=4e5)

# %%
sad_lazy = orth.count_saddles(lazy.loss, it_lz, walk_lazy)
sad_rich = orth.count_saddles(no.loss, it_no, walk_no)
gap_lazy, gap_rich = (orth.ntk_gap(r.final, h_ntk, Z_lz, y_no) for r in (lazy, no))
ledger.measure("fig5.ntk", lazy, controls={"small_init": no}, init=init_lazy,
               premises=dict(step_gap=step_lazy), h_ntk=h_ntk, Z=Z_lz, y=y_no)
# one fixed reference: the small-initialisation runs' median iterations to 1e-5
ledger.measure("fig5.faster", (lazy, it_lz), controls={"small_init": (no, it_no)},
               premises=dict(step_gap=step_lazy), it_ref=float(np.median(it_rich)))
pd.DataFrame({"|h - h_NTK| / max|y|, large init": gap_lazy, "same, small init": gap_rich,
              "iterations to 1e-5, large": it_lazy, "iterations, small": it_rich,
              "saddles, large": sad_lazy, "saddles, small": sad_rich},
             index=orth.seed_index(N_SEEDS))

# %% [markdown]
# ## High-dimensional, nearly orthogonal data (Figures 6 and 7)
# Appendix A.2: $n=75$ Gaussian inputs in $\mathbb R^{150}$ (nearly orthogonal), labels from a
# random bias-free 6-neuron ReLU teacher; student width $m=200$ without bias,
# $\lambda=10^{-20}/\sqrt{md}$, 200 000 iterations of step $10^{-3}$ on the mean MSE in the paper.
# **Our step:** $\eta=2\cdot10^{-2}$, the same flow time in twenty times fewer iterations, so that
# 5 seeds (each its own teacher and student) fit in the build. In flow time: one of the paper's
# iterations is paper time $t=2\cdot10^{-3}$ (mean MSE, see Conventions), so its saddle "around
# iteration 75 000" is at $t\approx150$ (our iteration 3 750) and its horizon, 200 000 iterations, at
# $t=400$; every iteration axis below is in the paper's units. (The reduced-size run of the tests uses
# $4\cdot10^{-2}$ and the paper's horizon only.) We run twice the paper's horizon
# (400 000 iterations in the paper's units) because "the loss converges to 0" is a statement about
# the limit. *Does the step matter?* Every seed is rerun with the step doubled ($4\cdot10^{-2}$,
# the whole run). The premise of every Figure 6–7 claim is that this moves the first-saddle exit by
# less than 2 % **and leaves the claim's verdict unchanged**, seed by seed: read the other way, the
# verdicts would not change by going towards the paper's $10^{-3}$ either, as long as halving the
# step moves things less than doubling it does (GD's error is first order in the step). The
# adaptive flow integrator was no way out here: at $\lambda=10^{-20}$ one seed took it several
# CPU minutes without reaching the paper's horizon. Our teacher draws are ours (the authors'
# exact draw depends on their PyTorch layer creation order), so saddle times differ from theirs.
# The control is seed 0's data from a large initialisation ($\lambda=10/\sqrt{md}$, paper time 40,
# on the same snapshot grid).

# %%
# reduced size: the doubled step; steps_hd: the paper's 200 000 iterations
eta_hd = 4e-2 if quick else 2e-2
steps_hd = int(200 / eta_hd)
gen_hd = generator(seed + 4)
teachers = [relu_teacher(75, 150, 6, gen=gen_hd) for _ in range(N_SEEDS)]
X_hd, y_hd = torch.stack([t[0] for t in teachers]), torch.stack([t[1] for t in teachers])
lam_hd = 1e-20 / math.sqrt(200 * 150)

# %%
p_hd = balanced_init(200, 150, scale=lam_hd, gen=generator(seed + 5), runs=(N_SEEDS,))
# reduced size: the paper's horizon only
long_hd = 1 if quick else 2
rec_hd = np.union1d(log_schedule(steps_hd, 60), [long_hd * steps_hd])
hd = orth.paper_gd(p_hd, X_hd, y_hd, eta_hd, long_hd * steps_hd, rec_hd)
hd2 = None if quick else orth.paper_gd(p_hd, X_hd, y_hd, 2 * eta_hd, steps_hd,
                                       [0, steps_hd // 2, steps_hd])

# %%
m_hd = orth.hd_measures(hd.dense_loss, hd.at(hd.index_of_step(steps_hd)).W1, eta_hd)
m_hd2 = m_hd if quick else orth.hd_measures(hd2.dense_loss, hd2.at(1).W1, 2 * eta_hd)
# nan: not checked (reduced size)
step_hd = np.full(N_SEEDS, np.nan) if quick else np.abs(m_hd2["exit"] / m_hd["exit"] - 1)
p_hd_big = balanced_init(200, 150, scale=10 / math.sqrt(200 * 150), gen=generator(seed + 6))
hd_big = orth.paper_gd(p_hd_big, X_hd[0], y_hd[0], 2e-2, 2000, [0, 2000])

# %%
grid_hd, it_hd = m_hd["grid"], m_hd["it"]
# the control's horizon (2000 steps of 2e-2)
in_big = grid_hd * eta_hd <= 40
L_hd = hd.dense_loss[grid_hd].numpy()
L_big = hd_big.dense_loss[np.round(grid_hd[in_big] * eta_hd / 2e-2).astype(int)].numpy()
pl_hd, pl_big = m_hd["plateaus"], orth.intermediate_plateaus(L_big, above=10)
# at reduced size the second step's rows repeat the first's (no doubled-step run)
HD_KEYS = ("exit", "n_plateaus", "ratio", "on_saddle", "top2", "drop")
orth.stacked_measures({f"η={eta_hd:g}": m_hd, f"η={2 * eta_hd:g}": m_hd2}, HD_KEYS)

# %% [markdown]
# **Towards the paper's step.** The premise above doubles the step. As a further check, shown as
# context and not graded (it was added after the claims' premises were declared), seed 0 is rerun once
# more with *half* our step, $\eta=10^{-2}$, over the paper's horizon. The table gives, for the three
# steps, seed 0's first-saddle exit in the paper's iterations and in paper time $t=2\cdot10^{-3}k$, and
# each Figure 6–7 rule's verdict on seed 0 (`fig7.to-zero` is read at twice the horizon, which this
# rerun does not reach). The paper's own $10^{-3}$ would cost twenty times our run, beyond the build's
# budget. (Reduced size: skipped.)

# %%
FIG7_CLAIMS = ("fig7.saddle", "fig7.pca", "fig7.saddle-location")
by_step = {f"η={eta_hd:g}": m_hd}
if not quick:
    p_hd0 = orth.select_runs(p_hd, slice(0, 1))
    hd_half = orth.paper_gd(p_hd0, X_hd[:1], y_hd[:1], eta_hd / 2, 2 * steps_hd, [0, 2 * steps_hd])
    m_half = orth.hd_measures(hd_half.dense_loss, hd_half.final.W1, eta_hd / 2)
    by_step = {f"η={eta_hd / 2:g}": m_half, **by_step, f"η={2 * eta_hd:g}": m_hd2}
step_tab = orth.step_table(by_step, verdicts_by_variant(ledger.decls, FIG7_CLAIMS, by_step, run=0))
if not quick:
    # GD's error is first order in η: extrapolate linearly to the paper's η = 1e-3
    t_exit = step_tab["exit (paper time t)"].astype(float).to_numpy()
    t_paper = t_exit[0] - 0.9 * (t_exit[1] - t_exit[0])
    print(f"seed 0's first exit, linearly extrapolated from η = 1e-2 and 2e-2 to the paper's 1e-3: "
          f"paper time {t_paper:.2f} (iteration {t_paper / 2e-3:,.0f})")
step_tab

# %%
# (R, m, d) at the paper's horizon; uncentred PCA per seed
W_end = hd.at(hd.index_of_step(steps_hd)).W1
V_hd = torch.linalg.svd(W_end, full_matrices=False).Vh[:, :2]
# explained variance ratios (Fig. 7(b))
ev_hd = (torch.linalg.svdvals(W_end) ** 2).numpy()
ev_hd = ev_hd / ev_hd.sum(-1, keepdims=True)


def panel_steps(r):
    """Seed r's four Figure 6 snapshots: start, alignment, first plateau, the paper's horizon."""
    i_b = max(int(np.argmax(L_hd[:, r] < 0.99 * L_hd[0, r])) - 1, 1)
    i_c = pl_hd[r][0][0] if pl_hd[r] else len(grid_hd) // 2
    return [hd.index_of_step(int(grid_hd[i])) for i in (0, i_b, i_c, len(grid_hd) - 1)]


def hd_note(r):
    """The numbers under seed r's Figures 6 and 7."""
    return (f"seed {r}: {m_hd['n_plateaus'][r]:.0f} intermediate plateau(s), loss first 1 % down "
            f"at iteration {m_hd['exit'][r]:,.0f}, top-2 explained variance {m_hd['top2'][r]:.2f}")


notes_hd = [hd_note(r) for r in range(N_SEEDS)]


# %% tags=["hide-input"]
FIG6 = ("Figure 6 — seed {}'s neurons on the top-2 principal components of its W at 200 000 "
        "iterations (blue: $a_j>0$, red: $a_j<0$)")
def fig6(r):
    idx = panel_steps(r)
    P, a = orth_plots.projected_snapshots(hd, idx, r, V_hd[r])
    labels = orth_plots.iteration_labels(hd.steps, idx, eta_hd / 1e-3)
    return orth_plots.polar_snapshots(P, a, labels, FIG6.format(r))


glue_seeds("orthogonal-fig6", [fig6(r) for r in range(N_SEEDS)], notes_hd)
fr7 = np.linspace(0, hd.index_of_step(steps_hd), 4 if quick else 30).round().astype(int)
P7, a7 = orth_plots.projected_snapshots(hd, fr7, 0, V_hd[0])
labels7 = orth_plots.iteration_labels(hd.steps, fr7, eta_hd / 1e-3)
glue("orthogonal-anim7", display=False, obj=orth_plots.neuron_animation(P7, a7, labels7))


# %% tags=["hide-input"]
def fig7_extra(r):
    """Figure 7's further curves for seed r: the large-init control and the doubled-step rerun."""
    style = dict(color=NEG, ls=":", label="control: large init (seed 0's draw)")
    out = [(it_hd[in_big], L_big, style)]
    if hd2 is not None:
        it2 = np.arange(hd2.dense_loss.shape[0])[::10] * 2 * eta_hd / 1e-3
        style2 = dict(color=THEORY, ls="--", lw=1, label=f"seed {r}, $\\eta={2 * eta_hd:g}$")
        out.append((it2, hd2.dense_loss[::10, r].numpy(), style2))
    return out


def fig7(r):
    order = [r] + [s for s in range(N_SEEDS) if s != r]
    it7 = np.arange(hd.dense_loss.shape[0])[::20] * eta_hd / 1e-3
    return orth_plots.loss_and_spectrum(
        it7, hd.dense_loss[::20, order].numpy(), ev_hd[r],
        plateaus=[(it_hd[a_], it_hd[b_]) for a_, b_ in pl_hd[r]], extra=fig7_extra(r),
        marks=[(75_000, dict(color=THEORY, ls=":", lw=1)), (200_000, dict(color="0.5", lw=0.6))],
        title=f"Figure 7 — high-dimensional data, seed {r}")


glue_seeds("orthogonal-fig7", [fig7(r) for r in range(N_SEEDS)], notes_hd)

# %% [markdown]
# ```{glue:figure} orthogonal-fig6
# :name: orthogonal-fig6
#
# **Figure 6 of the paper.** One seed's neurons (switch seeds above the figure) in polar coordinates on the top two principal components of its first layer at 200 000 iterations (blue $a_j>0$, red $a_j<0$): (a) initialisation, (b) alignment, (c) the plateau, (d) the paper's horizon. Compare: two directions emerge, and at the end the neurons are near, not exactly on, them.
# ```

# %% [markdown]
# ```{glue:figure} orthogonal-fig7
# :name: orthogonal-fig7
#
# **Figure 7 of the paper.** (a) Mean-MSE loss against the iteration ($\eta=10^{-3}$ units): the seed shown (black; switch seeds above the figure), its rerun with the doubled step (dashed), other seeds (grey), the large-initialisation control on seed 0's draw (dotted); pink: the shown seed's plateaus; vertical lines at 75 000 (the paper's saddle; paper time $t=2\eta k=150$) and 200 000 (the paper's horizon, $t=400$). (b) Explained variance ratios. Compare: whether a plateau of the shown seed (and of the grey seeds) covers the dotted line, and the top-2 ratio in (b)'s title with the paper's "about 80 %".
# ```

# %% [markdown]
# ```{glue:figure} orthogonal-anim7
# :name: orthogonal-anim7
#
# **Animation of Figures 6–7 (seed 0).** The neurons projected on the top two principal components of
# the first layer at 200 000 iterations, frames log-spaced in time: alignment, then one cluster grows,
# then the other; radius $\log_{10}$ of the projected norm.
# ```

# %%
run_hd = (hd.dense_loss, hd.at(hd.index_of_step(steps_hd)).W1, eta_hd, 200_000)
# the control at its own horizon (paper time 40)
L_big_all = hd_big.dense_loss.reshape(hd_big.dense_loss.shape[0], -1)
run_big = (L_big_all, hd_big.final.W1.reshape(1, 200, 150), 2e-2, 40_000)
fig7_all = (*FIG7_CLAIMS, "fig7.to-zero")
same_step = verdicts_by_variant(ledger.decls, fig7_all, {"η": m_hd, "2η": m_hd2})
for c in same_step["η"]:
    same = (np.array(same_step["η"][c]) == np.array(same_step["2η"][c])).astype(float)
    ctrl = {"large_init": run_big} if ledger.decls[c].kind == "reproduction" else {}
    ledger.measure(c, run_hd, controls=ctrl, premises=dict(step_gap=step_hd, same_verdict=same))
    print(f"{c}: {rate_of(c)}")
print(f"first-saddle exit per seed: {m_hd['exit'].round(0)}; "
      f"doubling the step moves it by {np.round(100 * step_hd, 2)} %")

# %% [markdown]
# Reading Figures 6–7: the printed exits and the first table above say how much doubling the step moves
# each seed's first exit, and the premise records, claim by claim, that no verdict changed with it; the
# second table adds seed 0 at half our step.
# Where the loss sits near iteration 75 000 depends on the draw (ours are not the authors'; our seeds leave
# their first saddle between about 43 000 and 93 000 iterations), so `fig7.saddle-location` tests the draw, not
# the dynamics: since this revision it is a consistency check (a reproduction would predict each draw's own
# saddle time from its data). `fig7.saddle` now reads its ratio at the run's end (400 000 iterations), where
# `fig7.to-zero` reads the loss; it used to divide by the loss at 200 000, where slow seeds were still falling; `fig7.to-zero` is read at twice the
# paper's horizon, and the draws that fail it are those still on a later plateau (Figure 7(a)).
# In the previous revision the Figure 7 reproductions went through one measurement
# (`orthogonal.claims.high_dim_figure`) applied to the main runs and to the large-initialisation
# control, the latter at its own horizon (paper time 40). `fig7.to-zero` is a consistency check: its
# control, the same runs read at 20 000 iterations (before the first exit of a $\lambda=10^{-20}$ start),
# could not pass, and a run that cannot interpolate was not trained here.

# %% [markdown]
# ## Statements not graded, and why
# Each statement of the paper that this chapter does not grade as a ledger row, with what it would cost.
# Costs are estimated from this chapter's own batches: on 2 cores, the λ-sweep batch ({glue:text}`orthogonal-throughput`)
# is the unit; the chapter's whole full run must stay within about 200 s.
#
# * **Appendix D (only $\sigma'(0)=0$ gives a global solution).** An existence statement about the differential
#   inclusion, which GD cannot test: Lemma 7 (iii) has the flow reach $\langle w_j,x_k\rangle=0$ *exactly* and stay
#   there, while GD overshoots the kink. Over the λ-sweep's snapshots (not every step)
#   {glue:text}`orthogonal-exact-kinks` pre-activations are exactly $0$; a run with $\sigma'(0)=1$ would follow the
#   same iterates. No run can grade it.
# * **§3.2's threshold $\lambda^*\propto e^{-\Theta(n)}/\sqrt m$**, as the largest λ that still gives the sparse
#   limit while $n$ and $m$ vary: a grid of, say, $n\in\{6,12,24\}$, $m\in\{50,200,800\}$ and ten values of
#   λ per pair, 5 seeds each, run to convergence ($t\approx\ln(1/\lambda)/\|D_-\|$, longer as $\|D_-\|$
#   shrinks with $n$; about $3\times10^4$ GD steps at $dt=10^{-2}$). Measured with a 300-step probe of such
#   batches (50 runs each, one thread, on this 2-core machine while it was shared): 6000 steps/s at
#   $(n,m)=(6,50)$, 600 at $(12,200)$, 39 at $(24,800)$, so the largest batch alone would take about
#   13 minutes. The deeper reason it is not graded: the paper's $\lambda^*$ is a *sufficient* scale from its
#   analysis, with unspecified constants; "the largest λ with a sparse limit" is not the paper's quantity,
#   so no measurement of it could contradict the paper. Not falsifiable as stated; not run.
# * **The minimal-norm half of "larger λ" (§3.1).** A large initial $\|\theta\|^2$ alone would not prevent the
#   run from ending below it (an earlier text said so; wrong). The obstruction is the frozen coordinates: the
#   4 dimensions outside the data span ($d=10>n=6$) and the coordinates on which a neuron is inactive never
#   move, and keep about $2\lambda^2m(d-n/2)$ of norm, $\approx7$ at $\lambda=0.1$ and $\approx0.07$ ($0.8\,\%$) at
#   $10^{-2}$. The relative excess at $10^{-2}$ and $10^{-1}$ is printed in the "Larger λ" section; grading it
#   (the excess at $10^{-2}$ less the frozen part, within a declared tolerance) needs a rule written after
#   seeing those numbers; left for the next revision.
# * **Figure 4(c), the two groups.** `fig4.sparse` already declares a cluster threshold (kinks within $0.05$),
#   so "at least 2 kink clusters among neurons above 1 % of the largest norm at panel (c), the orthogonal toy
#   (one group) as control" is a cheap row (the runs exist); not added in this revision for lack of time.
# * **Figure 6 / App. A.2, "a first cluster grows in norm while keeping a fixed direction".** Gradable with
#   `max_direction_change` on the stored high-dimensional snapshots (as `fig4.realign`); not added in this
#   revision.
# * **Appendix A.1's "similar results for large initialisations, with unbalanced initialisation or orthogonal
#   data".** An earlier text read this as a statement about small unbalanced starts; it is a *lazy-regime*
#   statement (Figure 5's at a large scale). Grading it means applying `fig5.lazy`, `fig5.ntk` and
#   `fig5.faster` to an unbalanced run at $\lambda=10/\sqrt m$ and to the orthogonal toy at $10/\sqrt m$ (seconds
#   each); not done in this revision.
# * **Appendix A.2, similar final states at larger λ** (Figures 6–7 at a larger scale): one more batch of the
#   high-dimensional runs. At $\lambda\approx10^{-5}/\sqrt{md}$, $\ln(1/\lambda)\approx16.7$ against $51.2$, so about
#   a third of the horizon (an earlier text said it would double the section's cost: overstated); graded with
#   `fig7.pca`'s rule it is a cheap row, not added in this revision.
# * **Referee findings answered, not fixed, in this revision.** `lemma5.local-rate` (1/5) reads the rate at
#   finite λ with the horizon $t=400$ and snapshots every 4 (a deep sweep to $t\approx600$ with $dt\le0.25$ in
#   the fit window, graded at $\lambda\le10^{-20}$, would fix it); `fig5.ntk` (0/5) uses a tolerance of ours
#   (10 % of $\max|y|$) over $[-2.5,3]$, beyond the data range, although the linearisation error expected at
#   $mv\approx0.1$ is of order $\max|y|$ (restricting to the data range and normalising by $\sup|h_{NTK}-h_0|$ would
#   fix it, but does not separate: an exploratory probe of the same runs (12 s) measured the gap over the
#   NTK interpolator's own movement on $[-1.5,2]$ at $0.04$–$0.14$ for the large initialisation and $0.05$–$0.28$
#   for the small-initialisation control, $0.037$ against $0.046$ in one seed: with the function moved by
#   $22$–$109\max|y|$, both runs are "close" on that scale, so no tolerance tells them apart and the row stays as
#   it is, 0/5 on our 10 %-of-labels reading).
# * `lemma4.t3-scaling` (inconclusive) could take a control with the $S_{-,1}$ signs flipped in the same batch.
#   `nearly-orthogonal.delta-lambda` (no control): an exploratory probe of the $\delta$ batch at $\lambda=10^{-8}$
#   (5 seeds, about 1 s of training) measured the gap to the orthogonal run at $0.3$–$0.9\,\%$ for
#   $\delta=10^{-6}$, $0.5$–$5.4\,\%$ for $10^{-4}$ and $1.4$–$2.4\,\%$ for $10^{-2}$ (undefined in two seeds): the
#   1 % tolerance does not separate $\delta=\lambda$ from $\delta=100\lambda$, so no such control would be clearly
#   rejected, and the paper's "$\delta\gg\lambda$ drastically different" is not visible at this $\lambda$ within
#   $t=220$; the row stays a consistency check. The flow premise is measured at $10^{-4}$–$10^{-12}$ only and
#   applied down to $10^{-70}$: an adaptive-solver run to $t=750$ costs $0.6$ s at $10^{-20}$, but at $10^{-70}$
#   the solver's absolute tolerance ($10^{-14}$) swallows the whole early phase (62 gradient evaluations), so the
#   check needs a tolerance scaled with $\lambda$ first. Measured costs of the rest (probes on this machine,
#   2 threads): `lemma5.local-rate`'s deep sweep to $t=600$ with snapshots every $0.25$, 7.6 s of training;
#   Fig. 4(c)'s groups and Fig. 6's fixed-direction growth, no training (the runs exist), a measurement and its
#   test each; A.2 at a larger λ, about a third of the high-dimensional section (47 s in the last full run),
#   so about 16 s. Each is a rule, measurement or control change that needs its own result before it is
#   committed; not in this revision's time.
# * **Lemma 5's constant**: see "Lemma 5 as the inequality it states" above.

# %%
n_runs, n_steps = sw_all.loss[0].numel(), int(T_sweep / dt)
throughput = f"{n_runs} runs × {n_steps:,} GD steps in {t_gd_sweep:.1f} s in this run"
glue("orthogonal-throughput", throughput, display=False)
pre_tb = sw.params.W1 @ X_tb.T
glue("orthogonal-exact-kinks", f"{int((pre_tb == 0).sum())} of {pre_tb.numel():,}", display=False)

# %% [markdown]
# ## Claims ledger
# Every checkable statement of the paper that this chapter tests, graded seed by seed. Each rule,
# its tolerance and where that tolerance comes from (the paper's number, float precision, or a
# choice of ours, said as such), the theorem's measurable premises and the negative control are
# declared in `01_orthogonal.claims.yaml` next to this notebook (its `tolerance:` fields), and the
# table shows them beside what was measured. A claim is *reproduced* in a seed when its rule holds,
# *premise not met* when the run is outside the theorem's hypotheses (Assumption 3, or a GD step
# that does not follow the flow); the control must fail the same rule. The build fails if a pass
# rate leaves its declared range or a control passes. Each claim's *tier* says what a pass is worth:
# *quantitative*, *loose bound* (the paper's own inequality met ten times over), *consistency* (an
# identity, a check no cheap run can fail, or a rule that already holds at the initial state or, for
# a claim about the flow's time course, with a step far too large for the flow), *inconclusive* (a
# control whose measurement is undefined), or *legacy* (graded on values handed in by the notebook;
# only consistency checks remain in that form). Every
# expectation (`expect`) in the claims file is labelled `expect_basis: observed`: it was copied from an
# earlier result and is a regression guard, not a prediction. The one prediction of the previous revision,
# `fig4.realign-exit` (committed on its own before any run graded it), became observed in this revision: its
# window and neuron selection were changed after an exploratory probe had measured the new turn.
# The rows new in the previous revision (`lemma2.admissible-eps`, `lemma3.admissible-eps`,
# `lemma4.admissible-eps`, `assumption3.min-norm`) were written after an exploratory run of the same draws
# had printed their measurements (their `history` says so), and are consistency checks since this revision.
# The expectations changed in this revision (`fig7.saddle` 0–0.4 → 0.6–1, `fig4.saddles` 0.6–0.8 → 0.8–1)
# were set from the published full-size run's measurements, after seeing them: observed.
#
# **Rules set after results were seen.** Most rules were written before the first run. These were
# not, and the claims file says so in each one's `history` or `tolerance` field:
# the threshold of `fig4.realign` ($>10^\circ$) was set by us with no record written
# before the run — we keep it and give the check a control; `fig7.saddle` had been graded with
# "final loss $\ge10\times$ below the plateau", a threshold chosen after an earlier run had measured
# $88\times$ for one draw; it is graded again with the $\ge100\times$ we had written before the run;
# and the *partial* tiers
# that `lemma5.local-rate`, `lemma12.convergence-time` and `thm1.two-clusters` used to have were
# added after the results and are removed (a partial tier is kept only where the paper's own
# statement is graded, and none of these is). `lemma2.alignment` was first graded on its two
# inequalities alone; its control passed them, so its rule now includes the lemma's third
# conclusion (see Lemma 2 above). `fig4.saddles` was first graded on "a plateau and a final loss
# below $10^{-5}$"; its control, the lazy runs, passed that in some seeds, so its rule now also asks
# for the fast exit that marks a saddle (ten times faster than along the plateau, a threshold set
# after that control result; see Figure 4). The premises (Assumption 3, the step checks) and the controls
# were declared before the runs that measure them. `saddle.strict` (a closed form against itself) and
# `lemma1.balancedness` (an identity of the flow, checked on our discretisation) are consistency
# checks and carry no control.
#
# **Claims added in the previous revision** (`lemma2.deactivation`, `lemma9.no-collapse`, `lemma34.time-bounds`,
# `saddle.passes-near`, `lambda.no-separation`, `nearly-orthogonal.delta-lambda`,
# `assumption3.necessary`, `fig5.ntk`, `fig5.faster`, `fig7.saddle-location`, `fig7.to-zero`,
# `unbalanced.thm1`) had their
# rules, premises and controls declared before the runs that measure them. The expected pass ranges of
# `fig7.saddle-location` and `fig7.to-zero` were set after an exploratory run of the same draws had
# printed their losses (their `tolerance` fields say so). The step premise of Figures 6–7 changed from
# "halving the step moves seed 0's first exit by < 2 %" to "doubling the step moves every seed's first
# exit by < 2 % and leaves the verdict unchanged", declared before the run that measures it.
# `lambda.no-separation` was first graded with "dwell below one e-folding time"; its control passed that
# in one seed of a reduced run, and the threshold was halved (its `rule_change`, now a `history` entry).
# `assumption3.necessary` grades our stricter reading of the paper's sentence, necessity for zero loss
# (corrected in the current revision: the sentence is about Theorem 1's whole result; see above).

# %% [markdown]
# ### What changed in this revision
# A referee who saw only the paper, this chapter and its results (the full run at `f50208f`) found rows that
# could not fail, controls measured against formulas that do not apply to them, and sentences that were wrong.
# This revision:
# - **Rows that could not fail are consistency checks now** (each with a `reason` and a history entry):
#   `thm1.zero-loss` (its control, every sign $+1$, cannot represent a negative output, so $L\ge0.1875$ for any
#   parameters; a mixed-sign network with $S_{-,1}$ emptied can still fit with partial neurons);
#   `assumption3.min-norm` (a corollary of Lemma 6: every converged violating draw pays at least $0.064$ on this
#   test bed, whatever the dynamics; the text's "least excess $0.099$" was wrong); `lemma2.admissible-eps`,
#   `lemma3.admissible-eps`, `lemma4.admissible-eps` (a Grönwall bound any small start meets, slacks $10^8$ and
#   $10^2$, a mass level $35$–$40\,\%$ below the final mass); the $\varepsilon=0.1$ illustrations
#   `lemma2.alignment`, `lemma2.deactivation`; and `assumption3.necessary` (our reading, not the paper's).
#   "What holds" therefore counts no illustration as a quantitative reproduction.
# - **Controls that fail for any dynamics are replaced.** `thm1.min-norm`, `thm1.function-limit`,
#   `thm1.two-clusters` and `saddle.passes-near` were controlled by the non-orthogonal row, measured against
#   the orthogonal formulas that do not hold for its inputs. Their control is now seed 0's draw with a
#   non-vanishing output scale ($a_j^0\sim\mathcal N(0,1/m)$) on the same inputs, trained in the deep batch in
#   place of an unused $\lambda=1$ row (no extra cost). `saddle.plateau`'s control moves from $\lambda=0.1$
#   (undefined in four of five seeds) to $\lambda=10^{-2}$.
# - **Measurements that read the wrong thing.** `fig7.saddle`'s ratio divides by the run's final loss (400 000
#   iterations, as `fig7.to-zero`), not the loss at 200 000; `fig5.lazy` reads "not sparse" as the kink count
#   (more than 10 clusters; `f1_ratio > 10` followed from the initial scale); `fig4.saddles` is inconclusive,
#   not failed, in a seed that never leaves its first saddle (no plateau and not converged).
#   `fig4.realign-exit` reads the turn between the end of the plateau and panel (d), over the neurons that
#   already hold 1 % of the largest norm at the window's start (it counted the 10 largest at the run's end,
#   so tiny neurons' alignment could count; two seeds measured the same 22.35°); the probe that measured the
#   new turn (97–98°, toy 0°) ran before the change was committed, so its expectation is now observed.
#   `fig7.saddle-location` is a consistency check: "around 75 000" is the time of the authors' own draw, and
#   ours leave their first saddle between about 43 000 and 93 000 iterations.
# - **Sentences corrected**: where Lemma 3 (i) and Lemma 4's bounds start to exclude something
#   ($\lambda<6\times10^{-6}$; $10^{-270.7}$ and $10^{-234}$, within float64's range, not "never"), the
#   alignment bound's threshold $1.9\times10^{-17}$, App. B.4's condition on $\varepsilon$ as *our reading* of
#   $\alpha$ (as printed it admits $\varepsilon=0.1$), the introduction's control list.
# - **Code only, no value changed** (issue 27): the notebook's bookkeeping (building and splitting the batched
#   runs, the GD-vs-flow table, the tables and printed rows, Figure 4's snapshots) moved into tested functions
#   of `lrlib.theory.orthogonal.runs` and `.report` and `lrlib/plots/orthogonal.py`, so that no code line is
#   longer than 100 characters; every ledger value of seed 0 is identical before and after.
#
# Each claim whose control, measurement, verdict, tier or kind changed in this revision, before (the published
# full-size sweep, seeds 0–4, where it had the row; the four rows new at `f50208f` by the referee's report) and now:

# %%
BEFORE_REF = dict(line.split(" | ") for line in """\
thm1.zero-loss | 5/5, quantitative
lemma2.alignment | 5/5, quantitative
lemma2.deactivation | 5/5, quantitative
assumption3.necessary | 0/5, quantitative
assumption3.min-norm | reproduction (f50208f)
lemma2.admissible-eps | reproduction, consistency tier (coarse step)
lemma3.admissible-eps | reproduction (f50208f)
lemma4.admissible-eps | reproduction (f50208f)
thm1.min-norm | 5/5, quantitative
thm1.function-limit | 5/5, quantitative
thm1.two-clusters | 5/5, quantitative
saddle.passes-near | 5/5, quantitative
saddle.plateau | 5/5, consistency (coarse step); control inconclusive
fig7.saddle | 1/5, quantitative
fig7.saddle-location | 2/5, quantitative
fig4.saddles | 4/5, quantitative
fig4.realign-exit | 4/4, quantitative (predicted)
fig5.lazy | 5/5, quantitative""".splitlines())

# %%
orth.claims_table(ledger, rate_of, BEFORE_REF, "before")

# %% [markdown]
# ### The previous revision (issue 25)
# That revision (issue 25: every statement of the paper, in the regime the paper proves it):
# - **"What holds"** opens the chapter: the paper's main statements, each with its claims' pass rates,
#   kinds and tiers, glued from this run's ledger.
# - **Lemmas 2–4 at an $\varepsilon$ the paper admits.** App. B.4's condition allows only
#   $\varepsilon\le0.0182$ on the test bed; three new rows grade the lemmas at $\varepsilon=0.018$ on a sweep
#   $\lambda=10^{-20}\dots10^{-70}$ (`lemma2.admissible-eps`, `lemma3.admissible-eps` with Lemma 3 (i) and (iii),
#   `lemma4.admissible-eps` with the stillness of the $S_{+,1}$ neurons and the smallness of the others).
#   Lemma 4's alignment and $\|D_+^{t_3}\|$ bounds are vacuous at every λ float64 holds (measured, not
#   graded). The $\varepsilon=0.1$ rows (`lemma2.alignment`, `lemma2.deactivation`, `lemma34.time-bounds`)
#   are kept as illustrations, not the lemmas. Each new row's control is the non-orthogonal row at the same
#   λ; `lemma2.admissible-eps` also holds with the coarse step $dt=1$, so it is tiered consistency.
# - **Assumption 3's necessity for the minimal norm** (`assumption3.min-norm`): the violating draws that
#   reach zero loss are graded on the excess of their norm, their control the satisfying draws; this is the
#   paper's sentence, where `assumption3.necessary` (zero loss only) is our stricter reading.
# - **Figure 4(d)** (`fig4.realign-exit`): the realignment while leaving the intermediate saddle, declared
#   and committed before the first run that graded it (`expect_basis: predicted`).
# - **Lemma 5** is shown as the PL inequality it states (a printed measurement: its constant is missing from
#   our copy of the paper); the statements still not graded are listed with their cost in "Statements not
#   graded, and why".
#
# The new rows had no verdict before (every one of them "not graded" in the previous revision); their
# verdicts and tiers in this run:

# %%
NEW_ROWS = ["lemma2.admissible-eps", "lemma3.admissible-eps", "lemma4.admissible-eps",
            "assumption3.min-norm", "fig4.realign-exit"]
orth.claims_table(ledger, rate_of, dict.fromkeys(NEW_ROWS, "not graded"))

# %% [markdown]
# ### The previous revision (referee findings)
# A referee who saw the paper, the chapter and its previous results found controls that could not
# fail, tiers that were artefacts and one misread sentence of the paper. This revision:
# - **Controls that could not fail are replaced by runs that can.** `lemma3.t2-scaling`,
#   `lemma4.t3-scaling`, `lemma12.convergence-time` and `saddle.passes-near` had a $\lambda=1$ draw
#   copied into every column (slopes 0 and deviations constant by construction); their control is now
#   the non-orthogonal row at the same $\lambda$. `saddle.plateau`'s $\lambda=1$ control was degenerate
#   (both half-fit masses reached at $t=0$); it is now the $\lambda=0.1$ runs. `assumption3.stuck`'s
#   wide draws contain no violating draw; its control is now the same $m=4$ draws on the non-orthogonal
#   inputs. `fig5.lazy` and `fig5.faster` divided the control by itself; they now use one fixed
#   reference.
# - **Checks that no run can fail are declared consistency checks**: `lemma34.time-bounds` (its
#   "start at $\lambda^2$" control rescaled the prediction by 2; $\varepsilon=0.1$ is outside the paper's
#   condition $\varepsilon\le0.018$ on this test bed, and the bounds are near-vacuous at these $\lambda$),
#   `lemma6.inactive` (a bitwise identity on $x_k=e_k$), `fig7.to-zero` (its control could not pass) and
#   `nearly-orthogonal.delta-lambda` (its control was undefined and handed in).
# - **The coarse step no longer grades end-point claims** (zero loss, the minimal norm, the limit
#   function, the two clusters, the passage near the saddle, the unbalanced variant): a stable coarse GD
#   may share the limit, so a pass there said nothing; it still grades the time-course claims.
# - **Trend rules** read `mono == 1 and shrink >= 10` (the old `mono >= 0.99` pinned every margin at
#   1.01); the ten decades are a premise; `excess_min > 0`, which follows from the norm bound, is dropped.
# - **The legacy reproductions are in the run form**: the Figure 7 claims (one measurement applied to
#   the main runs and to the large-initialisation control at its own horizon) and
#   `assumption3.necessary`, which now says it tests our stricter zero-loss reading, not the paper's
#   necessity (the earlier "disagreement with the paper" is withdrawn).
# - `lemma12.convergence-time` is fitted on the deep sweep (seven $\lambda$ to $10^{-30}$ instead of three
#   to $10^{-12}$); `lambda.no-separation`'s control moves to $\lambda=10^{-12}$, where the saddle holds the
#   loss for many e-folding times (at $10^{-4}$ the control was not clearly on the other side).
#   `fig3.timings` and `thm1.toy-limit` have toy controls at a moderate $\lambda$ ($10^{-3}/\sqrt m$,
#   $10^{-2}/\sqrt m$) that their windows and tolerance must separate; `fig4.realign` is inconclusive,
#   not failed, in a seed whose turn is undefined (no plateau).
# - Texts corrected: the paper's §4 states the rate $\|D_-\|$ and the time $-\ln\lambda/\|D_-\|$ that
#   `lemma5.local-rate` and `lemma12.convergence-time` grade.
#
# The table below gives, for each claim whose control, kind or tier changed, the previous revision's
# pass rate and tier (its last full run, seed 0, as its commits record them) and this run's.

# %%
BEFORE = dict(line.split(" | ") for line in """\
fig3.timings | 5/5, quantitative
thm1.toy-limit | 5/5, quantitative
fig4.realign | 4/5, quantitative
thm1.zero-loss | 5/5, consistency (coarse step)
thm1.min-norm | 5/5, consistency (coarse step)
thm1.function-limit | 5/5, consistency (coarse step)
thm1.two-clusters | 5/5, consistency (coarse step)
saddle.passes-near | 5/5, consistency (coarse step)
unbalanced.thm1 | 5/5, consistency (coarse step)
lemma6.inactive | 5/5, consistency (coarse step)
lemma3.t2-scaling | 5/5, quantitative
lemma4.t3-scaling | 5/5, quantitative
lemma12.convergence-time | 4/5, consistency (coarse step)
lambda.no-separation | 5/5, consistency (control not clearly rejected)
saddle.plateau | 5/5, consistency (coarse step)
lemma34.time-bounds | 5/5, consistency (coarse step)
assumption3.stuck | 5/5, quantitative
fig5.lazy | 5/5, quantitative
fig5.faster | 5/5, quantitative
nearly-orthogonal.delta-lambda | 5/5, legacy
assumption3.necessary | 0/5, legacy""".splitlines())
BEFORE.update({"fig7.saddle": "1/5, legacy", "fig7.pca": "4/5, legacy",
               "fig7.saddle-location": "2/5, legacy", "fig7.to-zero": "3/5, legacy"})
orth.claims_table(ledger, rate_of, BEFORE, "before (previous revision)")

# %% [markdown]
# ### The previous revision (first migration)
# The chapter moved 26 of its 34 claims to the ledger's run form: the notebook hands the ledger *runs*, and
# each claim's declared measurement function (`lrlib.theory.orthogonal.claims`) is applied to the main
# runs, to the control run and, where it is defined, to the initial state; each seed now shows its
# margin, and each claim a tier. The claims graded on the $\lambda$-sweeps are also measured on the same
# draws trained by GD with $dt=1$, a step far too large for the flow: where a rule holds there too, the
# ledger tiers the claim *consistency* (the check does not single out the flow); the cell below lists
# which claims pass and which fail on the coarse step. What each control now removes:
#
# | claim | control before | control now (a run) |
# |---|---|---|
# | `lemma3.t2-scaling`, `lemma4.t3-scaling`, `lemma12.convergence-time` | the measured slope against a doubled prediction | the sweep's $\lambda=1$ row: removes the small initialisation whose logarithm the time counts |
# | `lemma5.local-rate` | the fitted rates against a doubled prediction | the non-orthogonal row: removes the orthogonality that sets the rate to $2\|D_-\|$ |
# | `lemma34.time-bounds` | the same times against the bounds with $\varepsilon$'s sign flipped | each draw started at $\lambda^2$ and timed against the bounds for $\lambda$ (a perturbed time scale) |
# | `lemma9.no-collapse` | the same norms against the bound with $\varepsilon$'s sign flipped | none: a consistency check (no cheap run breaks the bound; it holds at $t=0$) |
# | `fig5.lazy`, `fig5.faster` | the two roles (large, small initialisation) swapped in the rule | the small-initialisation run through the same measurement: removes the large initialisation |
# | `fig4.realign` | the toy put in both places of a two-part rule | the orthogonal toy run through the same measurement: removes the correlation of the inputs |
# | `thm1.min-norm`, `thm1.function-limit`, `thm1.two-clusters` | the non-orthogonal row, thresholds at $\lambda=10^{-12}$ | the deep sweep's non-orthogonal row, graded as a trend to $\lambda=10^{-30}$ |
# | `unbalanced.thm1` | an imbalance that does not vanish with $\lambda$, thresholds at $\lambda=10^{-12}$ | the same control run at the deep $\lambda$, graded as trends to $\lambda=10^{-30}$ |
# | `saddle.passes-near` | the $\lambda=1$ row, a threshold at $\lambda=10^{-12}$ | the deep sweep's $\lambda=1$ row, graded as a trend to $\lambda=10^{-30}$ |
# | `thm1.zero-loss`, `saddle.plateau`, `fig3.timings`, `thm1.toy-limit`, `lemma6.inactive`, `lemma2.alignment`, `lemma2.deactivation`, `lambda.no-separation`, `assumption3.stuck`, `fig4.saddles`, `fig4.sparse`, `fig5.ntk` | already runs (handed in as values) | the same runs, now through the claim's measurement |
#
# Before this revision every claim was graded on handed-in values (tier *legacy*); in the published
# full-size run (base seed 0, 5 seeds, commit `1ba2b81`) `thm1.two-clusters` was reproduced in 0 of 5
# seeds and `saddle.passes-near` in 1 of 5, both graded at $\lambda=10^{-12}$; every other migrated claim
# had the pass rate it has now. The table below gives each migrated claim's verdict and tier in this run
# (the "before" column is that published run). Eight claims are still in the legacy form:
# `lemma1.balancedness` and `saddle.strict` (consistency checks without a control),
# `nearly-orthogonal.delta-lambda` (its control's gap is undefined, nan: it would be inconclusive),
# `assumption3.necessary` (its control is a subset of the same draws, not a run of its own) and the four
# Figure 7 claims (their step premise regrades each rule on a second run; not migrated in this revision).

# %%
MIGRATED_BEFORE = {"thm1.two-clusters": "0/5, legacy (threshold at λ = 1e-12)",
                   "saddle.passes-near": "1/5, legacy (threshold at λ = 1e-12)",
                   "lemma9.no-collapse": "5/5, legacy (a reproduction)"}
held, failed = orth.coarse_outcomes(ledger)
print("holds with the coarse step dt = 1 (tier consistency):", held)
print("fails with the coarse step dt = 1:", failed)
orth.migrated_table(ledger, rate_of, MIGRATED_BEFORE, "the same pass rate, legacy")

# %%
_ = glue_what_holds("orthogonal", ledger, orth.claims.WHAT_HOLDS)

# %%
ch.finish()
