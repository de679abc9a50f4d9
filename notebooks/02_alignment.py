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
# # Early neuron alignment with small initialisation
#
# :::{note} Running this chapter yourself
# `make rerun CHAPTER=alignment SEED=3` reruns it with another seed: {glue:text}`alignment-rerun-full` at full size
# on a 2-core machine, {glue:text}`alignment-rerun-quick` with `QUICK=1` (the last recorded timings). On Binder
# (the rocket icon above) the first start builds the environment of `binder/`, which takes several
# minutes; we have not timed it, since the machines that build this book cannot reach Binder. Binder's
# free machines are small, so expect at least the 2-core times there. Change `seed` in the cell
# tagged `parameters`, then run all cells.
# :::
#
# **Paper.** H. Min, E. Mallada, R. Vidal, *Early Neuron Alignment in Two-layer ReLU Networks
# with Small Initialization*, ICLR 2024 {cite}`min2024early`.
#
# **What the paper claims.** Train $f(x)=\sum_{j=1}^h v_j\,\sigma(\langle w_j,x\rangle)$ for binary
# classification (exponential or logistic loss) by gradient flow from a small initialisation of
# scale $\varepsilon$. If the data are *orthogonally separable* — every same-label pair positively
# correlated, every opposite-label pair negatively correlated, $\mu>0$ (Assumption 1) — then
# (Theorem 1, part 1) within time $t_1=O(\log n/\sqrt\mu)$ every neuron with $v_j>0$ lands in the cone
# $\mathcal S_+$ of directions that activate exactly the positive points, or dies in
# $\mathcal S_{\rm dead}$ (mirror for $v_j<0$), and the live ones align with $x_+=\sum_{y_i>0}x_i$
# ($x_-$). Then (part 2) the loss decays as $O(1/t)$ and the first layer becomes low-rank: its
# stable rank $\|W\|_F^2/\|W\|_2^2$ ends $\le 2$. Experiments show the same two phases on centred
# MNIST (Figures 5, 10, 11), on a 2-D toy (Figure 6), the role of $\mu$ (Figures 7–9) and a
# comparison of training schemes (Figures 12–13).
#
# **What we run.** Every experimental figure, on the committed MNIST subset and synthetic data,
# and the theorem's statements on synthetic orthogonally separable data in float64, over seeds. Each
# claim declares its rule, tolerance, premises, control run and expectation, says whether that expectation
# was predicted before any run or copied from a result (almost all of this chapter's are copied: they guard
# against regressions), and lists every change made after a result was seen. The ledger at the end grades
# every seed with its margin, reports the pass rate and the tier, and checks that each control is rejected
# by the same measurement and rule. Statements that hold by construction, invariants of the dynamics and
# bounds that no run could fail are graded separately, as consistency checks.
#
# **Conventions: one loss for every experiment.** The paper's theory is stated for the *sum*
# $\mathcal L=\sum_i \ell(y_i,f(x_i))$ with $\ell(y,\hat y)=e^{-y\hat y}$ (or $2\log(1+e^{-y\hat y})$), minimised
# by gradient flow; of every experiment it says only "gradient descent with step size $\eta=2\cdot10^{-3}$".
# The experiments cannot have used the sum at that step on MNIST: GD on the summed loss with
# $\eta=2\cdot10^{-3}$ on 2000 centred images diverges within a few steps (measured below, in the MNIST
# section), while the paper's MNIST time scales (alignment by about iteration 2000, loss drop at about
# 3000) are those of GD on the **mean** $\frac1n\sum_i e^{-y_if(x_i)}$ (GD on the mean with step $\eta$ is GD on
# the sum with step $\eta/n$: the same gradient-flow path, time rescaled by $n$). The MNIST numbers are the
# only ones in the paper that tell the two reductions apart, so we read its experiments as using the mean
# and use the mean for **every** experiment: the toy (Figure 6), Figures 7–9, MNIST and Figures 12–13.
# Where it is cheap (the toy and Figures 7–9) we also run the sum and print what changes (the counts are
# printed at each figure; the stragglers of Figure 8 are seed-dependent and can change with the reduction). The theorem's own checks (the theory section) keep the
# sum, the setting in which its constants ($t_1$, $T$, $\alpha$) are written; time there is $t=\eta k$.
# The figure runs reproduce the paper's own GD experiments; the theory runs, where GD stands in for the
# flow, carry a step-convergence premise (the graded quantity barely moves when $\eta$ is halved), or use
# the adaptive flow integrator.
#
# **What holds** (pass rates over the seeds and tiers, from this run's ledger; each row says how many
# independent data draws its seeds rest on — most theory rows have one data draw and five initialisations.
# Theorem 1 is checked inside the proved $\varepsilon$ of its eq. (28) only once, for part 1 on $n=2$ data, where
# the check cannot fail (a consistency check); every other theorem row is graded at $\varepsilon$ far above that
# bound, outside the proved $\varepsilon$, as an extension; see the theory section):
#
# ```{glue:} alignment-what-holds
# ```

# %% [markdown]
# **Choices the paper leaves open**
#
# | what | our choice | why |
# |---|---|---|
# | MNIST images | the first 500 training images of each digit (committed subset), pixels in $[0,1]$, centred by the mean of the selected images; the pair 1 vs 0 is also run on 1000 per digit, graded as a consistency check (`mnist.image-count`) | the paper gives no count; at the paper's 15 000 iterations three pairs of 2000 per digit would take at least 360 s of CPU (the protocol study: 60.4 s per pair at 1000 per digit), over the chapter's budget, so we halve the count and show on one pair that the four MNIST verdicts do not change when it is doubled; centring makes $x_+=-x_-$ exactly |
# | labels | $1\to+1$, $0\to-1$; $3\to+1$, $8\to-1$; $1\to+1$, $7\to-1$ | the heatmap lists digit 1 first; the problem is symmetric |
# | loss of the experiments | exponential, **mean** over points, for the toy, Figs. 7–9, MNIST and Figs. 12–13 (float64 for the toy and Figs. 7–9, float32 for MNIST); the toy and Figs. 7–9 are also run on the sum, printed beside | the paper's MNIST time scales fix the mean, see Conventions |
# | loss of the theory checks | exponential, **sum** (the theorem's setting) | the constants $t_1$, $T$, $\alpha$ are written for it |
# | $\varepsilon$ of the theory runs | $10^{-24}$ (float64) | chosen from the horizon formula so that $T\approx0.4$ exceeds the alignment times ($\approx0.2$–$0.3$); at $10^{-10}$ every run aligned after $T$ |
# | windows of the $O(1/t)$ rate and the low-rank bound | adaptive flow of the summed loss to $t=1000$ on data with $\mu\approx0.95$ (rate) and on data whose $x_+$, $x_-$ are $120°$ apart (low rank) | the rate bound must itself fall by orders of magnitude; the rank bound must not hold just because $x_+\approx-x_-$ |
# | MNIST iterations | 15 000 (the paper's: its panel (e) is drawn at iteration 15 000); the stable rank is read only once it has converged — relative change below 1% over the last 5000 iterations, declared before the run — each pair being continued in blocks of 5000 iterations up to 30 000 until it has; a pair that has not converged by then leaves the low-rank claim *premise not met* | the paper shows iteration 15 000; "final" stable rank needs a converged one |
# | MNIST speed-ups (exact) | pixels that are zero in every selected image are left out of the training (their first-layer weights have zero gradient at every step and never contribute; their initial values are put back for every measurement), which also speeds up Figs. 12–13; snapshots every 50 iterations up to 6000 (where the alignment and the loss drop happen), every 1000 after | a unit test checks the reduced run against the full-width reference to $10^{-10}$ |
# | toy data (Fig. 6) | a family declared before the run: per seed 3 positives at angles uniform in $[5°,45°]$, radii uniform in $[0.8,1.2]$, and 3 negatives at angles uniform in $[135°,175°]$, radii uniform in $[0.4,0.8]$ | the paper only draws its toy; all points lie in a half-plane ($\mathcal S_{\rm dead}\neq\emptyset$) and Assumption 1 holds for every draw; the shorter negative class is fitted later, the mechanism behind two loss drops |
# | seeds | 5 seeds, batched, for every synthetic experiment; MNIST is one seed in the build (its pass rates come from the published 5-seed sweep) | the paper's counts are one instance |
# | controls | one counterfactual run per reproduction claim (named in the claims table: what it removes), measured by the claim's own declared function | a check must be able to fail, and a control must be a run, not a perturbed prediction |
# | Figs. 12–13 | all 5000 images of 0/1 in the subset, batch 2000 (the paper's), 6000 steps | ~2.5 steps per epoch, as close to the paper as the subset allows |
# | CPU budget (the whole chapter ≤ 420 s of CPU at full size, ≤ 45 s at reduced size) | full size: the MNIST pairs use 500 images per digit (above) and the exact speed-ups above; reduced size (`quick`, for tests only): 100 images per digit and 1500 MNIST iterations (one continuation block at most), 1000 SGD steps for Figs. 12–13, 2 seeds, shorter synthetic runs, and the rate claim's flow at rtol $10^{-4}$ with its convergence re-run at $10^{-5}$ (instead of $10^{-6}$ and $10^{-7}$) | the reduced run exercises every cell in under a minute; its verdicts are not the book's (the book's are the full-size run's) |

# %% tags=["parameters"]
seed = 0            # base seed of every random draw in this chapter
quick = False       # True: fewer images, seeds and iterations (tests only)
ledger_path = ""    # write the claims ledger to this JSON file (empty string: no file)

# %%
import json
import math
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from lrlib import chapter
from lrlib.ledger.grading import verdicts_by_variant
from lrlib.ledger.summary import glue_what_holds
from lrlib.data import mnist_pair
from lrlib.losses import Loss
from lrlib.models import TwoLayer, gaussian_init, generator
from lrlib.plots import glue, glue_seeds
from lrlib.plots import alignment as al_plots
from lrlib.theory import alignment as al
from lrlib.errors import DivergenceError
from lrlib.integrate import flow
from lrlib.measure import cosine, relative_error, row_slopes
from lrlib.track import balancedness_drift, stable_rank
from lrlib.train import train
from lrlib.schedules import linear_schedule

# %%
# checks, one torch thread, style, the declared ledger; N_SEEDS: runs of every batched experiment
ch = chapter.start("alignment", seed, quick, ledger_path)
quick, N_SEEDS, ledger = ch.quick, ch.n_seeds, ch.ledger
EXP_SUM = Loss("exponential", "sum")      # the paper's loss
EXP_MEAN = Loss("exponential", "mean")    # every experiment (see Conventions)
print("experiments:", EXP_MEAN.describe(), "| theory checks:", EXP_SUM.describe())

# %% [markdown]
# ## The mechanism (Figures 1 and 2), computed
# While all neurons are tiny the output is $\approx0$, $-\ell'\approx y$, and each direction follows
# $\frac{d}{dt}\frac{w_j}{\|w_j\|}\simeq \operatorname{sign}(v_j)\,P_{w_j}x_a(w_j)$ with the signed
# activated sum $x_a(w)=\sum_{i:\langle x_i,w\rangle>0}y_ix_i$ (eq. 4). Figure 1 draws this field on
# the unit circle for a positive neuron and three points ($x_1$ positive; $x_2,x_3$ negative).
# Figure 2 colours every direction of the plane by the cone it belongs to, for the first seed's toy data
# of Figure 6: $\mathcal S_+$ (activates exactly the positive points), $\mathcal S_-$, $\mathcal S_{\rm dead}$.

# %%
angles = torch.linspace(0, 2 * math.pi, 48 + 1, dtype=torch.float64)[:-1]
circle = torch.stack([angles.cos(), angles.sin()], -1)                     # (48, 2)
X_f1 = torch.tensor([[1.0, 0.35], [0.1, 1.0], [-1.0, -0.45]], dtype=torch.float64)
y_f1 = torch.tensor([1.0, -1.0, -1.0], dtype=torch.float64)
probe = TwoLayer(W1=circle, W2=torch.ones(1, len(circle), dtype=torch.float64))
field = al.approx_direction_velocity(probe, X_f1, y_f1)                   # (48, 2)

# %%
# Fig. 6's declared family (below), its control (mirrored negatives), the first seed's draw
X_fam, y_toy = al.toy_family(N_SEEDS, generator(seed + 5))
X_mir, _ = al.toy_family(N_SEEDS, generator(seed + 5), mirror=True)
X_toy = X_fam[0]
g_toy = al.geometry(X_toy, y_toy)
fine = torch.linspace(0, 2 * math.pi, 721, dtype=torch.float64)[:-1]
dirs = torch.stack([fine.cos(), fine.sin()], -1)

# %%
cones = al.cone_membership(dirs, X_toy, y_toy)

glue("alignment-fig1", al_plots.direction_field(circle, field, X_f1, y_f1), display=False)
fig2 = al_plots.cones(dirs, cones, X_toy, y_toy, g_toy.x_plus, g_toy.x_minus)
glue("alignment-fig2", fig2, display=False)
print(f"toy data: mu = {g_toy.mu:.4f}, S_dead non-empty: {bool(cones['S_dead'].any())}")

# %% [markdown]
# ```{glue:figure} alignment-fig1
# :name: alignment-fig1
#
# **Figure 1 of the paper.** The simplified direction field $\operatorname{sign}(v)P_wx_a(w)$ of a positive neuron on the
# unit circle (blue: the positive point $x_1$; red: the negatives). Compare with the paper: the arrows point
# towards $x_1$ where it is active and away from the active negatives.
# ```
#
# ```{glue:figure} alignment-fig2
# :name: alignment-fig2
#
# **Figure 2 of the paper, on the first toy draw.** Every direction of the plane coloured by its cone:
# $\mathcal S_+$ (blue), $\mathcal S_-$ (red), $\mathcal S_{\rm dead}$ (dark grey), other (light grey); arrows: $x_\pm$.
# Compare: $x_+\in\mathcal S_+$, $x_-\in\mathcal S_-$, and $\mathcal S_{\rm dead}$ is non-empty (printed above).
# ```

# %% [markdown]
# ## A 2-D toy example (Figure 6)
# Appendix A.1: $h=50$, $[W]_{ij},v_j\sim\mathcal N(0,\alpha^2)$ with $\alpha=10^{-6}$ (not balanced),
# GD on $W$ and $v$ with $\eta=2\cdot10^{-3}$ on the mean exponential loss (Conventions), 180 000 iterations — the
# same flow time as the paper's 30 000 on the sum (the mean with step $\eta$ is the sum with step $\eta/n$, $n=6$). Since the
# initialisation is not balanced, $V_\pm(t)$ is read from $\operatorname{sign}v_j(t)$ at each snapshot.
# The paper: after alignment "the loss experiences two sharp decreases before it gets close to zero".
#
# **Data and test, fixed before this run.** The paper only draws its toy, so we test a family: each
# seed draws 3 positive points at angles uniform in $[5°,45°]$ with radii uniform in $[0.8,1.2]$ and 3
# negative points at angles uniform in $[135°,175°]$ with radii uniform in $[0.4,0.8]$ (the shorter
# class is fitted later). The test counts the separate peaks of the decrease rate
# $-\Delta\log\mathcal L/\Delta k$ over snapshots every 100 iterations (peaks above 10% of the largest;
# two peaks are separate only if the rate dips below half the smaller one between them) and asks for
# exactly two, with a final loss below 1% of the initial one. The control draws the same positives but
# replaces each negative by the mirror image $-x_{+,i}$ of a positive, so that both classes are fitted
# at the same time: the same test must not find two drops there. *History:* an earlier version of this
# chapter tested one hand-made toy with a plateau test, which found no plateau; it then shortened that
# toy's negatives by 0.6 and counted decrease-rate peaks instead — the family and test above replace
# that after-the-fact choice.
#
# Panels (one draw at a time, chosen in the page): (a) initialisation; (b) the first snapshot where every neuron lies in
# $\mathcal S_+$, $\mathcal S_-$ or $\mathcal S_{\rm dead}$ (end of alignment); (c) the end; (d) loss,
# $\|W\|_2^2$ and stable rank. Neurons are drawn at $w_j/\max_k\|w_k\|$ (blue: $v_j>0$, red: $v_j<0$).

# %%
steps_toy = 30_000
p6 = gaussian_init(50, 2, std_in=1e-6, std_out=1e-6, gen=generator(seed), runs=(2 * N_SEEDS,))
X_6 = torch.cat([X_fam, X_mir])          # runs: N_SEEDS family draws, then their controls
# the mean at eta for 6x the steps = the sum's 30 000 (n = 6); then the summed loss itself
toy_all = al.runs.gd(p6, X_6, y_toy, 2e-3, 6 * steps_toy, 100, loss=EXP_MEAN)
toy_sum = al.runs.gd(p6, X_6, y_toy, 2e-3, steps_toy, 100, loss=EXP_SUM)

# %%
def fig6(r):
    """Figure 6 for draw ``r`` of the family, and the iteration at which its alignment ends."""
    ctrl = toy_all.loss[:, N_SEEDS + r].numpy()
    return al_plots.toy_figure(toy_all.run(r), X_fam[r], y_toy, ctrl)

# %% [markdown]
# ```{glue:figure} alignment-fig6
# :name: alignment-fig6
#
# **Figure 6 of the paper, one draw of the toy family at a time** (choose it above the figure; the note under it
# gives that draw's numbers). (a–c) Neurons (blue: $v_j>0$, red: $v_j<0$) at
# initialisation, at the end of alignment and at the end; (d) the loss (black; grey: its mirrored control),
# $\|W\|_2^2$ and the stable rank against the iteration. Compare: at (b) every neuron is in $\mathcal S_+$,
# $\mathcal S_-$ or $\mathcal S_{\rm dead}$; in (d) two separate drops of the black curve, one of the grey.
# ```


# %%
n_drops = al.runs.drop_counts(toy_all)                                    # (2·N_SEEDS,)
print("drops per seed:", n_drops[:N_SEEDS], "| control (mirrored negatives):", n_drops[N_SEEDS:])
print("mu per draw:", [round(al.mu(X, y_toy), 3) for X in X_fam])
fam, mirrored = toy_all.run(slice(0, N_SEEDS)), toy_all.run(slice(N_SEEDS, 2 * N_SEEDS))
ledger.measure("fig6.two-drops", fam, controls={"mirrored": mirrored})
# drawn and closed in this cell (no stray output)
figs6 = [fig6(r) for r in range(N_SEEDS)]
notes6 = al_plots.toy_notes([it for _, it in figs6], n_drops[:N_SEEDS], n_drops[N_SEEDS:])
glue_seeds("alignment-fig6", [f for f, _ in figs6], notes6,
           labels=[f"draw {r}" for r in range(N_SEEDS)])

# %%
L_sum = toy_sum.loss.numpy()
print("summed loss instead: drops", al.runs.drop_counts(toy_sum)[:N_SEEDS],
      "| final ratio", (L_sum[-1] / L_sum[0])[:N_SEEDS].round(4),
      "| the same rule passes", al.runs.two_drop_passes(toy_sum, N_SEEDS), "of", N_SEEDS)

# %% [markdown]
# The printed counts are the whole result: the number of drops in each seed's draw of the family and in
# its mirrored control (grey curve in panel (d) for the draw shown); the ledger turns them into the pass
# rate over the draws. The first revision stopped the mean-loss runs at 30 000 iterations, a sixth of the flow
# time of the paper's 30 000 on the sum, where the loss was still a few percent of its start and the "close to
# zero" half failed: an artefact of the horizon, not of the dynamics. The mean-loss runs now cover the same flow
# time as the summed loss (printed, 30 000 iterations of the same step); the change is recorded in the claim's history.

# %% [markdown]
# ## The effect of $\mu$ (Figures 7, 8, 9)
# Appendices A.2–A.3: the setting of Figure 6 with two positive points only, $x_1=[1,0]$ and
# $x_2=[\sin\theta,\cos\theta]$, so $\mu=\sin\theta$: $\theta=0.1$ (Figure 7), $\theta=0.001$ (Figure 8)
# and $\theta=0$, orthogonal data (Figure 9). The paper: with $\mu=\sin0.1$ the non-dead positive
# neurons all reach $\mathcal S_+$ (activating both points) quickly; with $\mu=\sin0.001$ some are still
# outside $\mathcal S_+$ at iteration 7000 and, "in this particular instance", one at 21 000; with
# orthogonal data neurons end aligned with $x_1$, $x_2$ or $x_+$ and only those in $\mathcal S_+$ grow.
# The counts are random, so we train 5 seeds of each (one batched run for all $\theta$) and count, at
# iterations 7000 and 21 000, the non-dead $v_j>0$ neurons outside $\mathcal S_+$. Controls: for Figure 7
# the orthogonal runs (Assumption 1 fails, stragglers must be counted); for Figure 8 well-separated data
# ($\theta=0.5$), batched with the others; for Figure 9 the runs of Figure 7.
# All on the mean loss (Conventions); the same runs on the summed loss are printed beside the counts
# (Figure 7: no straggler at 7000 under either reduction; Figure 8: on the sum a seed can have no straggler left
# at 7000, since the sum runs $n=2$ times faster — compare the printed counts).

# %%
steps_mu = 30_000
rec_mu = np.union1d(linear_schedule(steps_mu, 500), [7000, 21_000])
thetas_mu = {"fig7": 0.1, "fig8": 0.001, "fig9": 0.0, "ctrl": 0.5}
X_mu = {name: al.two_point_data(th)[0] for name, th in thetas_mu.items()}
y2 = al.two_point_data(0.1)[1]
p2 = gaussian_init(50, 2, std_in=1e-6, std_out=1e-6, gen=generator(seed + 10),
                   runs=(len(thetas_mu) * N_SEEDS,))

# %%
X_mu_all = torch.cat([X.expand(N_SEEDS, 2, 2) for X in X_mu.values()])
tr_mu = train(p2, X_mu_all, y2, loss=EXP_MEAN, lr=2e-3, steps=steps_mu, record=rec_mu)
tr_mu_sum = train(p2, X_mu_all, y2, loss=EXP_SUM, lr=2e-3, steps=steps_mu, record=rec_mu)  # printed
seeds_of = {name: slice(k * N_SEEDS, (k + 1) * N_SEEDS) for k, name in enumerate(thetas_mu)}
runs_mu = {name: (X_mu[name], y2, tr_mu.run(seeds_of[name])) for name in thetas_mu}
counts = {name: al.runs.stragglers_at(tr, X2, y2, (7000, 21_000))
          for name, (X2, y2, tr) in runs_mu.items()}

# %%
for name, cts in counts.items():
    print(name, {k: v.tolist() for k, v in cts.items()})
for name in thetas_mu:
    cts = al.runs.stragglers_at(tr_mu_sum.run(seeds_of[name]), X_mu[name], y2, (7000, 21_000))
    print("summed loss:", name, {k: v.tolist() for k, v in cts.items()})

# %%
for name, mu_txt in zip(["fig7", "fig8", "fig9"], ["\\sin 0.1", "\\sin 0.001", "0"]):
    X2, y2, tr = runs_mu[name]
    r = int(np.argmax(counts[name][7000]))      # show the seed with the most stragglers at 7000
    title = (f"Figure {name[3]} — two positive points, $\\mu={mu_txt}$ "
             f"(seed {r} of {N_SEEDS}: most stragglers at 7000)")
    counts_r = {k: counts[name][k][r] for k in (7000, 21_000)}
    fig = al_plots.two_point_panels(tr.run(r), X2, y2, counts_r, [0, 7000, 21_000, steps_mu], title)
    glue(f"alignment-{name}", fig, display=False)

# %% [markdown]
# ```{glue:figure} alignment-fig7
# :name: alignment-fig7
#
# **Figure 7 of the paper ($\mu=\sin0.1$).** Neurons at iterations 0, 7000, 21 000, 30 000 for the seed with
# the most stragglers at 7000 (count in the panels). Compare: every live blue neuron between the two points
# ($\mathcal S_+$) by iteration 7000.
# ```
#
# ```{glue:figure} alignment-fig8
# :name: alignment-fig8
#
# **Figure 8 of the paper ($\mu=\sin0.001$).** As Figure 7. Compare: live blue neurons still outside
# $\mathcal S_+$ at 7000 (the count in panel b).
# ```
#
# ```{glue:figure} alignment-fig9
# :name: alignment-fig9
#
# **Figure 9 of the paper (orthogonal data, $\mu=0$).** As Figure 7. Compare: neurons stay aligned with $x_1$ or
# $x_2$ alone (outside $\mathcal S_+$), and the ones that grow are those in $\mathcal S_+$; the norm ratio is printed above.
# ```


# %%
two_pt = {name: al.claims.TwoPointRuns(tr, X2, y2) for name, (X2, y2, tr) in runs_mu.items()}
at_init = {name: al.claims.TwoPointRuns(al.claims.initial(tr), X2, y2)
           for name, (X2, y2, tr) in runs_mu.items()}
ledger.measure("fig7.fast", two_pt["fig7"], controls={"small_mu": two_pt["fig8"]},
               init=at_init["fig7"])
ledger.measure("fig8.slow", two_pt["fig8"], controls={"well_separated": two_pt["ctrl"]},
               init=at_init["fig8"])
res9 = ledger.measure("fig9.orthogonal", two_pt["fig9"], controls={"assumption1": two_pt["fig7"]})
share9, ratio9 = (np.asarray(res9.values[k], dtype=float) for k in ("share", "ratio"))
X9, _, tr9 = runs_mu["fig9"]

# %%
growth9 = al.runs.outside_growth(tr9, X9, y2)
print(f"mu = 0: share of live V+ neurons outside S+ {share9.round(2)}; "
      f"largest outside norm / largest S+ norm {ratio9.round(4)}; "
      f"the fastest-growing neuron outside S+ grew by {growth9.min():.2g}-{growth9.max():.2g}x")

# %% [markdown]
# With $\mu=\sin0.001$ the slow neurons are seed-dependent; the paper shows one instance, so the claim is
# graded per seed on its general part (stragglers at 7000) and the counts at 21 000 (printed above) are
# reported beside it. With orthogonal data the printed shares show how many live positive neurons stay
# outside $\mathcal S_+$ (aligned with $x_1$ or $x_2$ alone), and the printed norm ratios how large they
# become next to the $\mathcal S_+$ neurons: the paper's "only those aligned with $x_+$ grow" is graded as
# staying below 1% of the largest $\mathcal S_+$ norm, with a *partial* tier when only the first half
# holds. Its control is the $\mu=\sin0.1$ run of Figure 7 (Assumption 1 holds: nothing stays outside
# $\mathcal S_+$), measured the same way; the norm ratio is undefined there (no neuron outside to compare), not 0 as
# before, so the control fails on its share instead of passing "do not grow" trivially. The partial verdict is
# expected at finite $\alpha$: an $x_1$-aligned neuron grows at rate $\|x_1\|/n$ in the small-output phase, an
# $\mathcal S_+$ neuron at $\|x_1+x_2\|/n$, so the outside norms should shrink relative to the $\mathcal S_+$ norms
# only as a power of $\alpha$ (about $\alpha^{0.29}$, the referee's estimate; not graded as a trend in this revision).
# The ledger at the end gives the verdict per seed and the controls'. The ledger also counts the stragglers
# of Figures 7 and 8 at initialisation: random neurons start outside $\mathcal S_+$, so "some are still outside at
# 7000" (Figure 8) already holds before any training, and the ledger files that claim as *consistency* — it shows
# that alignment is slow at small $\mu$ only beside its control (well-separated data, no straggler at 7000), not on its
# own; Figure 7's "all have arrived" fails at initialisation, as it should.

# %% [markdown]
# ## Centred MNIST (Figures 5, 10 and 11)
# Section 4: two digits, centred (so Assumption 1 holds only approximately), $h=50$,
# $[W]_{ij},v_j\sim\mathcal N(0,\alpha^2)$ with $\alpha=10^{-6}$, full-batch GD on $W$ and $v$ with
# $\eta=2\cdot10^{-3}$. Four panels per pair: (a) the Gram matrix $\langle x_i,x_j\rangle$ sorted by label
# (positive digit first); (b, c) the alignment $\cos(\bar w_\pm,x_\pm)$ of the mean neuron
# $\bar w_+=\frac1{|V_+|}\sum_{j\in V_+}w_j$ with a min–max band over $V_\pm(t)$; (d) loss, stable rank and
# $\|W\|_2^2$; (e) $\bar w_\pm$ next to the class means $\bar x_\pm$ as images, at iteration 15 000 as in the paper.
# Each pair runs the paper's 15 000 iterations on 500 images per digit and is continued, if needed, until its
# stable rank has converged (Choices). The build runs one seed (the
# 5-seed pass rates come from the published sweep). Control for all four MNIST claims: digits 0/1 from a
# *large* initialisation ($\alpha=0.1$, 200 images per digit), where the loss moves before any alignment
# phase; the ledger applies each claim's declared measurement to it as to the three pairs. That run never reaches
# $\cos>0.95$, so its alignment iteration is undefined and the two claims that read it (`mnist.timescales`,
# `mnist.align-first`) are tiered *inconclusive*: an undefined control is not counted as a rejection. First, the
# literal reading of the paper — GD on the *summed* loss with $\eta=2\cdot10^{-3}$:

# %%
X_sum, y_sum = mnist_pair(1, 0, 1000, dtype=torch.float32)
try:
    p_sum = gaussian_init(50, 784, std_in=1e-6, std_out=1e-6, gen=generator(seed),
                          dtype=torch.float32)
    train(p_sum, X_sum, y_sum, loss=EXP_SUM, lr=2e-3, steps=200, record=2, check_every=1)
    sum_diverged = "did not diverge in 200 steps"
except DivergenceError as err:
    sum_diverged = str(err).split(":")[0]
print(f"GD on the summed loss, digits 1/0, 2000 images, eta = 2e-3: {sum_diverged}")

# %%
n_img = 100 if quick else 500                       # images per digit (Choices)
steps_mn = 1500 if quick else 15_000                # the paper's iteration count
# stable-rank convergence window and continuation block; the continuation cap
block_mn = 500 if quick else 5000
cap_mn = steps_mn + block_mn if quick else 30_000
rec_mn = np.union1d(linear_schedule(min(6000, steps_mn), 50),
                    linear_schedule(steps_mn, block_mn // 5))


def run_mnist(pos, neg, n=n_img, alpha=1e-6, cap=cap_mn):
    return al.mnist.run_pair(pos, neg, n, alpha, seed, loss=EXP_MEAN, steps=steps_mn,
                             block=block_mn, cap=cap, record=rec_mn)

# %%
mn = {}
for pos, neg, fig_no in [(1, 0, 5), (3, 8, 10), (1, 7, 11)]:
    mn[(pos, neg)] = run_mnist(pos, neg)
    fig = al_plots.mnist_figure(*mn[(pos, neg)][:3], pos, neg, fig_no, at_step=steps_mn)
    glue(f"alignment-fig{fig_no}", fig, display=False)

# %% [markdown]
# ```{glue:figure} alignment-fig5
# :name: alignment-fig5
#
# **Figure 5 of the paper (digits 1 vs 0, first seed, 500 images per digit).** (a) Gram matrix sorted by label;
# (b, c) alignment $\cos(\bar w_\pm,x_\pm)$ with the min–max band over $V_\pm$; (d) loss, $\|W\|_2^2$, stable rank;
# (e) mean neurons next to the class means at iteration 15 000, as in the paper. Compare: alignment near 1 before
# the loss falls (iterations in the table below: the paper reads about 2000 and 3000), then a slight decrease of
# the alignment, and a stable rank ending near 1 (final values and iterations in the table).
# ```
#
# ```{glue:figure} alignment-fig10
# :name: alignment-fig10
#
# **Figure 10 of the paper (digits 3 vs 8).** As Figure 5; compare the same order of events. The run is continued
# past 15 000 iterations while its stable rank still moves (the last iteration is in the table).
# ```
#
# ```{glue:figure} alignment-fig11
# :name: alignment-fig11
#
# **Figure 11 of the paper (digits 1 vs 7).** As Figure 5; compare the same order of events.
# ```


# %%
mn_runs = al.claims.MnistRuns({f"{pos} vs {neg}": run for (pos, neg), run in mn.items()})
ctl_run = run_mnist(1, 0, n=100 if quick else 200, alpha=0.1, cap=steps_mn)
ctl_runs = al.claims.MnistRuns({"1 vs 0, control α = 0.1": ctl_run})
mn_tab, ctl_tab = (pd.DataFrame([dict(pair=k, **v) for k, v in zip(m.runs, m.summaries)])
                   for m in (mn_runs, ctl_runs))
pd.concat([mn_tab, ctl_tab])

# %%
r01 = mn_runs.summaries[0]                        # digits 1/0
ctl_mn = {"large_init": ctl_runs}                 # the control run of all four MNIST claims
note = {kind: al.mnist.summary_note(mn_runs.runs, mn_runs.summaries, kind)
        for kind in ("timing", "rank")}
ledger.measure("mnist.timescales", mn_runs, controls=ctl_mn)
ledger.measure("mnist.align-first", mn_runs, controls=ctl_mn, note=note["timing"])
ledger.measure("mnist.align-decreases", mn_runs, controls=ctl_mn)
ledger.measure("mnist.low-rank", mn_runs, controls=ctl_mn, note=note["rank"])

# %% [markdown]
# **Does the image count matter?** The build trains on 500 images per digit (Choices). The declared check
# reruns the pair 1 vs 0 with twice as many, 1000 per digit (same initialisation, iterations and
# continuation rule), and grades each of the four MNIST rules on that pair alone at both counts: the
# verdicts must not change.

# %%
big01 = al.claims.MnistRuns({"1 vs 0": run_mnist(1, 0, n=2 * n_img)}).summaries[0]
counts = {f"{n_img} per digit": al.rule_inputs(r01),
          f"{2 * n_img} per digit": al.rule_inputs(big01)}
verdicts_n = verdicts_by_variant(ledger.decls, al.RULE_CLAIMS, counts, run=0, premises=True)
k_shift = max(abs(big01[k] / r01[k] - 1) for k in ("k_align", "k_drop"))
small, big = verdicts_n.values()
changed = sum(small[c] != big[c] for c in small)
ledger.grade("mnist.image-count", changed=changed, k_shift=k_shift)
pd.DataFrame(verdicts_n)

# %% [markdown]
# **How the graded quantities move with the protocol (a one-off study).** The paper gives no image count. The study
# `scripts/study_alignment_protocol.py` trains the pair 1 vs 0 as above on 250, 500 and 1000 images per digit for
# 15 000 iterations and reads the graded quantities on the run cut at 8000 and at 15 000 iterations (output committed
# in `notebooks/results/alignment_mnist_protocol.json`; its CPU seconds per count are in the last column; reproduce
# with `PYTHONPATH=$PWD .venv/bin/python scripts/study_alignment_protocol.py`; about 110 s on 2 shared cores). What it
# measured: the alignment and drop iterations move by under 2% between 250 and 1000 images per digit and do not depend
# on the horizon (they happen before iteration 3000); the loss of alignment (`align_drop`) grows from about 0.065 at
# iteration 8000 to 0.10–0.11 at 15 000, and the stable rank keeps moving after 8000 (1.03–1.05 → 1.05–1.08), by a few
# percent with the image count. So the iteration count matters and the image count barely does: we keep the
# paper's 15 000 iterations (continued while the stable rank moves) and 500 images per digit, chosen from these
# quantities, not from the verdicts; the table is not graded.

# %%
proto = json.loads((Path(chapter.__file__).parents[1] / "notebooks" / "results"
                    / "alignment_mnist_protocol.json").read_text())
proto_tab = pd.DataFrame(proto["rows"])
proto_tab["cpu_s"] = proto_tab.images_per_digit.astype(str).map(proto["seconds"])
proto_tab.round(3)

# %% [markdown]
# Reading the table and the ledger: the order of events (alignment, then the loss drop, then a slower loss of
# alignment) and the iterations are in the table, per pair. Two declarations changed after the first run at the
# paper's 15 000 iterations, each recorded in its claim's history (ledger): over the longer run the
# large-initialisation control also lost a little alignment, enough to pass the old threshold of 0.01 for "the
# alignment decreases", so the threshold was raised to 0.05 (the pairs' decreases are in the `align_drop` column);
# and the low-rank claim was graded only once every pair's stable rank had converged, which 3 vs 8 rarely does by
# the cap of 30 000 iterations. *This round:* the paper says "≈ 1" only of the 0/1 experiment, and Theorem 1's
# "≤ 2" holds for every pair, so the claim grades both as stated — 1 vs 0's converged stable rank within 10% of 1
# (the chapter's reading of "≈"), every pair's at most 2 — and its premise is 1 vs 0's convergence
# (`sr_conv` in the table); before, the largest stable rank over the pairs had to be below 1.1, and the unconverged
# 3 vs 8 decided (history in the ledger).

# %% [markdown]
# ## Training schemes: two phases or not (Figures 12 and 13)
# Appendix A.5: digits 0/1, SGD with batch 2000 and $\eta=2\cdot10^{-3}$, (Figure 12) training $W$ and $v$
# from $\mathcal N(0,\alpha^2)$, or (Figure 13) training only $W$ with $v_j=\pm1$ fixed (the scheme of
# Brutzkus et al. and Wang et al.). At the end of each epoch the paper measures, with a full-batch
# gradient, the change of the neuron norms $\sum_j2\langle-\nabla_{w_j}\mathcal L,w_j\rangle$ and of their
# directions $\sum_j\|P_{w_j}(-\nabla_{w_j}\mathcal L/\|w_j\|)\|$. We use all 5000 images of 0 and 1 in the
# subset (2.5 SGD steps per epoch) and measure at about 150 log-spaced epochs. The paper: with both
# layers trained, early on only the directions change and the norms do not grow (two phases); with
# $v$ fixed there is no such separation. The first-layer-only scheme is Figure 12's control (a run without a
# trained output layer, same $W$ init and SGD); Figure 13's "no two phases" is that control read the other way, so
# the pair counts as one reproduction (fig12) and fig13 is a consistency check, as is "both schemes fit" (its
# former control, the same runs read at the peak of the direction change, was not a counterfactual run, and the
# paper gives no number for "small"). Like MNIST above, the build runs one seed and the pass rates come from the
# published 5-seed sweep.

# %%
X01, y01 = mnist_pair(1, 0, 500 if quick else 2500, dtype=torch.float32)
batch = 2000 if not quick else 400
per_epoch = math.ceil(len(y01) / batch)
steps_sgd = 1000 if quick else 6000
epochs = np.unique(np.geomspace(1, steps_sgd // per_epoch, 150).astype(int))
rec_sgd = np.unique(np.concatenate([[0], epochs * per_epoch]))

# %%
schemes = al.mnist.sgd_schemes(X01, y01, seed, loss=EXP_MEAN, steps=steps_sgd, batch_size=batch,
                               record=rec_sgd)

# %%
changes = {name: al.runs.scheme_changes(tr, X01, y01, EXP_MEAN, per_epoch)
           for name, tr in schemes.items()}
for (name, (ep, nc, dc, L)), fig_no in zip(changes.items(), (12, 13)):
    fig = al_plots.scheme_changes(ep, nc, dc, L, f"Figure {fig_no} — SGD on digits 0/1, {name}")
    glue(f"alignment-fig{fig_no}", fig, display=False)

# %% [markdown]
# ```{glue:figure} alignment-fig12
# :name: alignment-fig12
#
# **Figure 12 of the paper (both layers trained).** Norm change (blue) and direction change (red) per epoch,
# log–log, loss dashed. Compare: early on the direction change dominates by orders of magnitude while the norms
# do not grow (the ratio in the table below).
# ```
#
# ```{glue:figure} alignment-fig13
# :name: alignment-fig13
#
# **Figure 13 of the paper (first layer only, $v=\pm1$ fixed).** As Figure 12. Compare: no early phase in which
# only the directions move.
# ```

# %%
tp = {}
for name, (ep, nc, dc, L) in changes.items():
    i, ratio = al.two_phase_ratio(nc, dc)
    tp[name] = dict(ratio=ratio, flat=float(L[i] > 0.99 * L[0]), loss_at_peak=L[i], final=L[-1])
pd.DataFrame(tp).T

# %%
both_, first_ = tp["both layers"], tp["first layer only, v = ±1"]
scheme_runs = {name: al.claims.SchemeRun(nc, dc, L) for name, (ep, nc, dc, L) in changes.items()}
ledger.measure("fig12.two-phase", scheme_runs["both layers"],
               controls={"first_layer_only": scheme_runs["first layer only, v = ±1"]})
ledger.grade("fig13.one-phase", ratio=first_["ratio"])
ledger.grade("a5.both-fit", final=max(both_["final"], first_["final"]))

# %% [markdown]
# ## Theorem 1 on orthogonally separable data
# The theory's setting: the **summed** exponential loss, the balanced initialisation (3)
# $W=\varepsilon W_0$, $[W_0]_{ij}\sim\mathcal N(0,1/D)$, $v_j=\pm\|w_j\|$, float64, and GD with
# $\eta=0.01/(nX_{\max})$ (at most 1% of direction change per step) standing in for the flow; time is
# $t=\eta k$. Data: $n=16$ points in $\mathbb R^{10}$, $\pm e_1+0.3\,g$ with $g\sim\mathcal N(0,I)$, redrawn until
# $\mu>0$ (Assumption 1); $h=50$, $\varepsilon=10^{-24}$, 5 initialisations (the seeds). **Our runs are
# outside the proved $\varepsilon$.** Theorem 1 is proved for $\varepsilon$ below the bound of its eq. (28),
# about $10^{-6\cdot10^5}$ for this test bed (computed below, in log space: it underflows float64); every theory
# claim graded at our $\varepsilon$ tests the statement outside the proved $\varepsilon$, as an extension, and each
# such claim's statement says so. Which statements: Theorem 1's parts 1 and 2 (`thm1.*`, `eps.t2-log`), the refined
# alignment, Lemma 13 and the dwell time; Lemmas 1–4, 11 and 15 carry their own, weaker conditions, met here.
# Part 1 is also graded inside the bound, on $n=2$ data (`thm1.t1-eq28`, below). What the proof needs
# and we can check is that the alignment ends within the horizon
# $T=\log(1/(\sqrt h\,\varepsilon))/(4nX_{\max})$ of the small-output phase (Lemma 1). An earlier version ran
# $\varepsilon=10^{-10}$, where $T=0.167$ and every run aligned later ($t_1=0.18$–$0.27$).
# The alignment time does not depend on $\varepsilon$ to leading order while $T$ grows like $\log(1/\varepsilon)$, so
# we chose $\varepsilon=10^{-24}$ from the formula alone ($T\approx0.4$; float64 represents it without
# trouble) and declared the run before making it. Step convergence: the same initialisations are re-run to $t=2$ at $\eta$ and
# $\eta/2$, and each theory claim's premise bounds how much its quantity moves.

# %%
gen_t = generator(seed + 20)
X_t, y_t = al.synthetic_separable(16, 10, 0.3, gen_t)
g_t = al.geometry(X_t, y_t)
eps_t, R_t = 1e-24, N_SEEDS
p_t = al.balanced_theory_init(50, 10, eps_t, gen_t, runs=(R_t,))
eta_t = 0.01 / (g_t.n * g_t.X_max)

# %%
steps_t = int((10.0 if quick else 14.0) / eta_t)      # the fit starts near t ≈ log(1/ε)/8 ≈ 7
th_run = al.runs.gd(p_t, X_t, y_t, eta_t, steps_t, 10)
t_fix = 2.0                          # step-convergence re-runs: t in [0, 2] at eta and eta/2
short = {k: al.runs.gd(p_t, X_t, y_t, eta_t / k, int(round(t_fix * k / eta_t)), 10 * k)
         for k in (1, 2)}
P = th_run.params

# %%
cm = al.cone_membership(P.W1, X_t, y_t)                                    # masks (T, R, m)
vpos = (P.a > 0)
settled = al.settled(P, X_t, y_t)                                          # (T, R, m)
t1_emp = al.alignment_times(th_run, X_t, y_t)
t1_h = {k: al.alignment_times(tr, X_t, y_t) for k, tr in short.items()}
z2 = np.array([al.zeta2(p_t.W1[r] / eps_t, torch.sign(p_t.a[r]), g_t) for r in range(R_t)])

# %%
t1_bd = np.array([al.t1_bound(g_t, al.zeta(g_t.zeta1, z), g_t.xi_lower) for z in z2])
T_h = al.horizon(g_t, 50, eps_t)
print(f"mu = {g_t.mu:.4f}, X_max = {g_t.X_max:.3f}, X_min = {g_t.X_min:.3f}, "
      f"zeta1 = {g_t.zeta1:.4f}, xi >= mu^2 = {g_t.xi_lower:.2e}")
print("t1 (measured):", t1_emp.round(4), " at eta/2:", t1_h[2].round(4),
      " horizon T:", round(T_h, 4), " bound:", t1_bd.round(1))
W0_max = p_t.norms_in().amax(-1).numpy() / eps_t                          # W_max of W = eps W0
lb28 = np.array([al.eq28_log10_bound(g_t, 50, W0_max[r], al.zeta(g_t.zeta1, z2[r]))
                 for r in range(R_t)])
print(f"eq. (28): proved for eps <= 10^{lb28.max():.0f} (the most generous run; log10 per run "
      f"{lb28.round(0).tolist()}); these runs: eps = {eps_t:g}")

# %%
i1 = al.runs.snapshots_at_times(th_run, t1_emp, eta_t)
at_t1 = TwoLayer(W1=torch.stack([P.W1[i1[r], r] for r in range(R_t)]), W2=p_t.W2)
unsettled = np.array([int((~settled[i1[r], r]).sum()) for r in range(R_t)])
ledger.grade("thm1.part1", unsettled=unsettled, lost=al.lost_neurons(p_t, at_t1, X_t, y_t))
eps_big, n_fix = 1e-2, int(round(t_fix / eta_t))        # the same directions at a large scale
p_big = TwoLayer(W1=p_t.W1 * (eps_big / eps_t), W2=p_t.W2 * (eps_big / eps_t))
big_run = al.runs.gd(p_big, X_t, y_t, eta_t, n_fix, 10)
coarse_run = al.runs.gd(p_t, X_t, y_t, 100 * eta_t, n_fix // 100, 1)
res_t1 = ledger.measure("thm1.t1-bound", al.claims.TheoryRuns(th_run, X_t, y_t, p_t, eps_t),
                        coarse=al.claims.TheoryRuns(coarse_run, X_t, y_t, p_t, eps_t),
                        premises=dict(t1_gap=relative_error(t1_h[2], t1_h[1])))
big_t1 = al.claims.t1_within_bound(al.claims.TheoryRuns(big_run, X_t, y_t, p_big, eps_big))
print(f"eps = {eps_big:g} (not a control): t1 {np.round(big_t1['t1'], 4)}, "
      f"horizon {big_t1['T'][0]:.4f}; "
      f"coarse step 100 eta: t1 {np.round(al.alignment_times(coarse_run, X_t, y_t), 4)}")

# %% [markdown]
# $t_1$ is *defined* as the first snapshot where every neuron is settled, so the first half of part 1 holds
# by construction; the second half (no neuron that initially activated a point of its own class ends
# outside its cone) follows from Assumption 1 alone: with $v_j>0$, $\langle x_a(w_j),x_i\rangle>0$ for every
# positive $x_i$, so no positive point is ever lost, whatever the step. Part 1 is therefore filed as a
# consistency check (an earlier version of this chapter graded it as a reproduction). The theorem's
# quantitative content is the bound on $t_1$ and the statement that alignment ends within the horizon $T$.
# The bound holds with an enormous slack (about $5\cdot10^4$: $\xi$ and $\zeta$ enter squared through $\mu^2$ and the
# worst-case path argument assumes every activation pattern is visited), so no run can fail it alone; the claim's
# rule is therefore $t_1\le$ bound **and** $t_1\le T$, and its margin is that of the horizon. **What the control
# removes now:** the small initialisation. The same initial directions at $\varepsilon=10^{-2}$ have a horizon
# $T\approx0.02$, ten times shorter than the alignment time, which does not depend on $\varepsilon$ (printed above):
# the rule rejects it. (The previous control, the same $t_1$ against the bound divided by $10^5$, was a scaled
# prediction, and it passed in 9 of the 25 seed-runs of the published sweep.) The ledger also measures a GD run
# with a step 100 times larger ($\eta=1/(nX_{\max})$, far too large to follow the flow): it aligns just as fast and
# passes the rule, so the claim is tiered *consistency* — alignment is a property of the direction field that
# coarse GD follows too, and the claim does not test the flow's time scale.
#
# **Errata.** (i) The paper defines $\zeta:=\max\{\zeta_1,\zeta_2\}$, but its proof needs both the cap
# $\{z:\cos(z,x_\pm)\ge\sqrt{1-\zeta}\}$ inside $\mathcal S_\pm$ (which holds for $\zeta\le\zeta_1$) and the
# initial neurons outside that cap ($\zeta\le\zeta_2$): it needs $\min\{\zeta_1,\zeta_2\}$. We use the min
# (a valid, larger bound). Since our $\zeta_1$ is computed as the largest cap inside the cone, "the
# min-cap stays inside, the max-cap leaks when $\zeta_2>\zeta_1$" restates that computation: the check
# below is a consistency check of our $\zeta_1$ (earlier graded as a reproduction), the erratum itself is
# the argument above. (ii) The
# printed flow "$\dot W\in\partial_W\mathcal L$" lacks its minus sign: it is gradient *descent* (every run here
# descends, and the loss falls). (iii) A toy with points at 15°, 30°, 45° and 135°, 150°, 165° would put
# two opposite-label points at 90°, so $\mu=0$; our toy family keeps every opposite-label pair above 90°.

# %%
zetas = {"min": [al.zeta(g_t.zeta1, z) for z in z2], "max": [max(g_t.zeta1, z) for z in z2]}
leak = {name: al.runs.erratum_leaks(g_t, zs, X_t, y_t, seed) for name, zs in zetas.items()}
ledger.grade("erratum.zeta", leak_min=leak["min"], leak_max=leak["max"],
             z2_over=(z2 > g_t.zeta1).astype(float),
             note=f"ζ₁ = {g_t.zeta1:.4f}, ζ₂ = {z2.min():.4f}–{z2.max():.4f}")

# %% [markdown]
# **Inside the proved $\varepsilon$ (eq. 28).** The bound printed above, $10^{-6\cdot10^5}$ or so, is set by its
# second term, $h^{-1/2}\exp(-64nX_{\max}\log n/(\min\{\zeta,\xi\}\sqrt\mu X_{\min}))$, which is exactly the condition
# "$T\ge$ the $t_1$ bound"; with $\xi\ge\mu^2\approx10^{-4}$ and $n=16$ no float64 run (smallest positive number
# $\approx10^{-308}$), nor any log-domain run that must follow the fit (flow time $\propto\log(1/\varepsilon)\approx10^6$), reaches it.
# Every claim on these data is therefore graded **outside the proved $\varepsilon$, as an extension**. Part 1 of
# the theorem can be graded inside: on the smallest member of the family, $n=2$ (one point per class, spread
# $0.05$, $\mu\approx0.95$), the bound is about $10^{-70}$–$10^{-90}$, and float64 runs $\varepsilon=10^{-120}$
# ($\varepsilon^2$ and every $|f|\approx10^{-240}$ stay representable). Theorem 1 puts every positive neuron in
# $\mathcal S_+$ or $\mathcal S_{\rm dead}$ within the bound and the horizon $T\approx30$; only those that
# initially activate a positive point are guaranteed $\mathcal S_+$. A *consistency check*: inside eq. (28)
# $T\ge$ the $t_1$ bound by construction, and $t_1\approx0.7$ sits 28–31× below the bound whatever $\varepsilon$
# (the same directions at $\varepsilon=10^{-2}$, printed, have the same $t_1$; only $T$ changes).

# %%
X_28, y_28 = al.synthetic_separable(2, 10, 0.05, generator(seed + 200))
g_28, eps_28 = al.geometry(X_28, y_28), 1e-120
p_28 = al.balanced_theory_init(50, 10, eps_28, generator(seed + 201), runs=(R_t,))
W0_28 = p_28.norms_in().amax(-1).numpy() / eps_28
z2_28 = [al.zeta2(p_28.W1[r] / eps_28, torch.sign(p_28.a[r]), g_28) for r in range(R_t)]
lb_28 = np.array([al.eq28_log10_bound(g_28, 50, W0_28[r], al.zeta(g_28.zeta1, z2_28[r]))
                  for r in range(R_t)])

# %%
eta_28 = 0.01 / (g_28.n * g_28.X_max)
n_28 = int(round(10 / eta_28))                                            # to t = 10
p_28b = TwoLayer(W1=p_28.W1 * (1e-2 / eps_28), W2=p_28.W2 * (1e-2 / eps_28))   # control: eps = 1e-2
tr_28 = {k: train(p, X_28, y_28, loss=EXP_SUM, lr=eta_28 / d, steps=d * n_28,
                  record=linear_schedule(d * n_28, 10 * d))
         for k, d, p in ((1, 1, p_28), (2, 2, p_28), ("big", 1, p_28b))}
t1_28 = {k: al.alignment_times(tr_28[k], X_28, y_28) for k in (1, 2)}

# %%
big_28 = al.claims.TheoryRuns(tr_28["big"], X_28, y_28, p_28b, 1e-2)
res_28 = ledger.measure("thm1.t1-eq28", al.claims.TheoryRuns(tr_28[1], X_28, y_28, p_28, eps_28),
                        premises=dict(in28=(math.log10(eps_28) <= lb_28).astype(float),
                                      t1_gap=relative_error(t1_28[2], t1_28[1])))
print(f"n = 2: mu = {g_28.mu:.3f}; eq. (28) bound 10^{lb_28.round(0).tolist()}, eps = 1e-120; "
      f"t1 {np.round(res_28.values['t1'], 3)}, bound {np.round(res_28.values['bound'], 1)}, "
      f"T {res_28.values['T'][0]:.1f}; eps = 1e-2 (not a control): t1 "
      f"{np.round(al.claims.t1_within_bound(big_28)['t1'], 3)}, "
      f"T {al.claims.t1_within_bound(big_28)['T'][0]:.2f}")

# %% [markdown]
# Next, the lemmas behind the proof, on the same runs: balancedness and sign invariance (Section
# 2.1); activation patterns change only in the allowed direction — a $v_j>0$ neuron never loses a
# positive point nor gains a negative one (eq. 7/8); the trapping regions (Lemma 12); the masses
# $\sum_{\tilde V_\pm}\|w_j\|^2$ never decrease after $t_1$ (Lemma 14); and Lemma 2,
# $|-\ell'(y,\hat y)-y|\le2|\hat y|$ on $|\hat y|\le1$, for the exponential and $2\times$logistic losses.
# These are invariants of the dynamics, filed as consistency checks.

# %%
# GD, not the flow, breaks the balance by O(eta) over a fixed time: halving eta halves the drift
drift = {k: balancedness_drift(tr, relative_to="current").numpy() for k, tr in short.items()}
actp = (X_t @ P.W1.transpose(-1, -2) > 0)                                   # (T, R, n, m)
inv = al.runs.pattern_invariants(P, y_t, cm, actp, i1)
n_changes = inv["n_changes"]                                # (R, m) pattern changes per neuron

# %%
ledger.grade("lemmas.invariants", drift_ratio=drift[1] / drift[2], flips=inv["flips"],
             wrong_way=inv["wrong_way"], changes_over_n=n_changes.amax(-1).numpy() / g_t.n,
             escapes=inv["escapes"], mass_ok=inv["mass_ok"])
ledger.grade("lemma2", gap=al.runs.lemma2_excess(100_001))

# %% [markdown]
# **Figure 4 from a real trajectory.** The paper draws the activation-pattern timeline of one neuron as a
# schematic: a $v_j>0$ neuron outside $\mathcal S_+\cup\mathcal S_{\rm dead}$ keeps changing its pattern — it only
# gains positive points and loses negative ones (eq. 7/8) — until it lands in $\mathcal S_+$ or $\mathcal S_{\rm dead}$.
# We draw it, for each theory run (choose it above the figure), for the neuron that changes its pattern most often.

# %%
def fig4(r):
    """Figure 4 for theory run ``r``: the timeline of its neuron with the most pattern changes."""
    j = int(n_changes[r].argmax())
    win = th_run.time <= 2 * t1_emp[r]
    title = f"Figure 4 — neuron {j} (v > 0: {bool(vpos[0, r, j])}), run {r}"
    return al_plots.activation_timeline(th_run.time[win], actp[win, r, :, j].numpy(), y_t.numpy(),
                                        t1_emp[r], title=title), j


figs4 = [fig4(r) for r in range(R_t)]             # drawn and glued in this cell (no stray output)
glue_seeds("alignment-fig4", [f for f, _ in figs4],
           [f"run {r}: neuron {j}, {int(n_changes[r, j])} pattern changes (n = {g_t.n}), "
            f"t₁ = {t1_emp[r]:.3f}"
            for r, (_, j) in enumerate(figs4)], labels=[f"run {r}" for r in range(R_t)])

# %% [markdown]
# ```{glue:figure} alignment-fig4
# :name: alignment-fig4
#
# **Figure 4 of the paper, from a trajectory, one theory run at a time** (choose it above the figure; the note
# under it gives that run's neuron, its number of pattern changes and $t_1$). One row per data point (blue: positive, red: negative); a bar
# where the point activates the neuron, grey lines at the pattern changes, dashed: $t_1$. Compare with the
# paper's schematic: changes only in the allowed direction (gaining points of the neuron's own class, losing
# the others), at most $n$ of them, and none after the neuron is settled.
# ```

# %% [markdown]
# **Refined alignment and Lemma 13.** After $t_1$ the paper shows that inside $\mathcal S_+$ the neurons keep
# turning towards $x_+$: $\cos(w_j,x_+)\ge1/4$ for every $j\in\tilde{\mathcal V}_+$ (the $v_j>0$ neurons in
# $\mathcal S_+$ at $t_1$) on $[t_1+6/(\sqrt\mu n_+X_{\min}),\,t_2^+]$ (mirror for $x_-$). This revision
# files it as a *consistency check*: it holds with a slack of about $6\cdot10^4$ in $1-\cos$, and no cheap
# counterfactual run has the window the statement is about (the same draws at $\varepsilon=10^{-2}$ fit before they
# align: their window is empty, printed below); its former control, the same run read from $t=0$, failed by
# construction. Lemma 13 bounds the mass those neurons can lose during alignment,
# $\sum_{\tilde{\mathcal V}_\pm}\|w_j(t_1)\|^2\ge e^{-4nX_{\max}t_1}\sum_{\tilde{\mathcal V}_\pm}\|w_j(0)\|^2$. This
# revision files Lemma 13 as a *consistency check*: $e^{-4nX_{\max}t}$ is the fastest decay of a squared neuron norm
# that the gradient allows while $|f|\le1$ ($|-\ell'|\le2$ by Lemma 2, $\|x_a\|\le nX_{\max}$), for any data and any
# signs, so no run in the small-output phase can fail it; its former control (the exponent's sign flipped) was a
# perturbed prediction, not a run. Lemma 11, $\|x_a(w)\|\ge\sqrt\mu\,n_a(w)X_{\min}$ ($n_a$ the points $w$ activates), the step
# that turns Assumption 1 into a speed, is checked on every neuron of every snapshot: a *consistency check*, as it
# follows from Assumption 1 alone for every $w$.

# %%
t2pm_t = al.fitting_times(th_run, X_t, y_t, per_class=True)                    # (R, 2): t2+, t2-
off_t = 6 / (math.sqrt(g_t.mu) * int((y_t > 0).sum()) * g_t.X_min)
th_runs = al.claims.TheoryRuns(th_run, X_t, y_t, p_t, eps_t)
res_ra = ledger.measure("thm1.refined-alignment", th_runs)
ra_big = al.claims.refined_alignment(al.claims.TheoryRuns(big_run, X_t, y_t, p_big, eps_big))
cos_min = 1 - np.asarray(res_ra.values["one_minus_cos"], dtype=float)
cos_min0, _ = al.refined_alignment_min(th_run, X_t, y_t, t1_emp, t2pm_t, -np.inf)
ledger.grade("lemma13", ratio=al.lemma13_ratio(th_run, X_t, y_t, g_t, t1_emp))
res_l11 = ledger.measure("lemma11", th_runs)
print(f"refined alignment: window starts {off_t:.2f} after t1, t2± = {t2pm_t.round(2).tolist()}, "
      f"min cos {cos_min.round(3)} (from t = 0: {cos_min0.round(3)}); "
      f"the eps = {eps_big:g} run's window "
      f"{ra_big['window'].round(2)} (empty: it fits before it aligns); "
      f"Lemma 11, min ||x_a|| / (sqrt(mu) n_a X_min): "
      f"{np.round(res_l11.values['ratio'], 3)}")

# %% [markdown]
# **Dwell time and the random initialisation.** The proof's engine: a neuron not yet in its cone or
# $\mathcal S_{\rm dead}$ cannot keep its activation pattern longer than $\Delta t=4/(\min\{\zeta,\xi\}\sqrt\mu X_{\min}n_a)$
# (checked on the theory runs; a *consistency check* in this revision: $\Delta t$ is of order $10^3$–$10^4$ in flow time,
# the slack of $t_1$'s bound, while every run here has settled or fitted by $t\approx8$, and data without Assumption 1
# have no $\Delta t$ at all, so no counterfactual run can fail it; its former control, the bound divided by $10^5$, was a
# perturbed prediction). And the paper's argument for a
# Gaussian $W_0$: a neuron activates some positive point with probability $\ge1/2$, so none of $m$ does with
# probability $\le2^{-m}$ (Monte Carlo, $m=4$; a *consistency check* in this revision: both follow from the symmetry
# of the Gaussian and independence, an identity, and the former control, an initialisation pointing away from the
# positives, failed by construction).

# %%
# Lemma 10's Δt of run r (al.runs.dwell_bound with its zeta), as a function of n_a
dt_bounds = [partial(al.runs.dwell_bound, g_t, al.zeta(g_t.zeta1, z)) for z in z2]
dwell = np.array([al.dwell_ratio(th_run.time, actp[:, r:r + 1], settled[:, r:r + 1], dt)[0]
                  for r, dt in enumerate(dt_bounds)])
ledger.grade("dwell-time", ratio=dwell, t1_gap=relative_error(t1_h[2], t1_h[1]))
draws = al.claims.InitDraws(X_t, y_t, [seed + 100 + r for r in range(R_t)])
res_mc = ledger.measure("init-probability", draws)
mc = np.stack([res_mc.values["p_one"], res_mc.values["p_none"]], -1)
print(f"longest constant-pattern interval over Δt: {dwell}; "
      f"Monte Carlo z scores (one, none of 4): {mc.round(1).tolist()}")

# %% [markdown]
# ### Theorem 1, part 2: the $O(1/t)$ rate and the low-rank bias
# With $t_2^\pm$ the first time $\max_{i\in I_\pm}|f(x_i)|>1/4$ and $t_2=\max(t_2^+,t_2^-)$, the theorem
# bounds $\mathcal L(t)\le\mathcal L(t_2)/(\mathcal L(t_2)\,\alpha\,(t-t_2)+1)$ with
# $\alpha=(\mu X_{\min})^2/(32X_{\max})$, and after $t_1$
# $\|W\|_F^2\le2\|W\|_2^2+4\sqrt h\,\varepsilon W_{\max}^2$, so the stable rank ends $\le2$.
#
# *The rate.* On the data above $\mu\approx0.01$, so $\alpha$ is so small that over any affordable run the bound
# stays within 1% of $\mathcal L(t_2)$ while the loss falls by orders of magnitude: the inequality would only
# say that the loss has not grown (an earlier version of this chapter graded exactly that; the claim keeps an
# *inconclusive* verdict for such a window, bound drop below one half). We therefore grade it where the bound
# is informative: data of the same family with spread $0.05$ ($\mu\approx0.95$, $\alpha\approx0.02$), 5
# initialisations at $\varepsilon=10^{-24}$, integrated by the adaptive flow (no step to choose; its premise: the
# final loss moves by less than 1% when the tolerance is tightened tenfold) up to $t=1000$, where the bound
# has fallen to a few percent of $\mathcal L(t_2)$ (printed: the bound drop). *Revision:* the claim is now a
# *consistency check*. Its former control, a curve decaying at half the theorem's rate, was a perturbed prediction;
# the run that removes the mechanism — one label flipped, so the data are no longer orthogonally separable — cannot be
# integrated cheaply (a probe: 200 000 gradient evaluations reached only $t=17$ of 1000, 130 s, the flow sliding along a
# ReLU kink), and a large initialisation or a linear network on these easy data would keep a fast decay. Its margin is
# also 1 by construction (the bound equals the loss at $t_2$).
#
# *The low rank.* On the data above $x_+\approx-x_-$, so every live neuron ends near $\pm x_+$ and a stable
# rank near 1 is automatic; an earlier control on orthonormal data ($\mu=0$, kept below as a printed
# history) passed too, and that check is filed as a consistency check of the inequality. The theorem's
# low-rank statement is graded on data whose class sums are $120°$ apart (so $W$ has two directions and
# its stable rank can approach 2), with a large initialisation ($\varepsilon=1$, no alignment phase) as control.

# %%
X_r, y_r = al.synthetic_separable(16, 10, 0.05, generator(seed + 80))
g_r = al.geometry(X_r, y_r)
p_r = al.balanced_theory_init(50, 10, eps_t, generator(seed + 81), runs=(R_t,))
# flow time t = lr_f · step, up to t = 1000
lr_f, steps_f = 1e-3, int((20 if quick else 1000) / 1e-3)
rec_f = np.unique(np.concatenate([[0], np.geomspace(1, steps_f, 200).astype(int)]))
# the run, and its tighter re-run (premise)
rtols = (1e-4, 1e-5) if quick else (1e-6, 1e-7)
rate = [flow(p_r, X_r, y_r, loss=EXP_SUM, lr=lr_f, steps=steps_f, record=rec_f, rtol=rt, atol=1e-40)
        for rt in rtols]

# %%
lr_ck = al.loss_rate_check(rate[0], X_r, y_r, g_r)
ledger.grade("thm1.loss-rate", ratio_min=lr_ck["ratio_min"], bound_drop=lr_ck["bound_drop"],
             loss_gap=relative_error(rate[1].loss[-1].numpy(), rate[0].loss[-1].numpy()),
             t1=al.alignment_times(rate[0], X_r, y_r), T=al.horizon(g_r, 50, eps_t))
print(f"mu = {g_r.mu:.3f}, alpha = {al.alpha_rate(g_r):.4f}, t2 = {lr_ck['t2'].round(2)}, "
      f"bound drop {lr_ck['bound_drop'].round(4)}, "
      f"L(t_end)/L(0) {(rate[0].loss[-1] / rate[0].loss[0]).numpy()}")

# %% [markdown]
# *$\|W\|\to\infty$.* The theorem's last statement: as $t\to\infty$ the loss goes to 0, so every margin
# $y_if(x_i)\ge\log(1/\mathcal L)\to\infty$, and since $f(x_i)\le\|W\|_F^2X_{\max}$ the weights diverge — like
# $\sqrt{\log t}$, since $\mathcal L=O(1/t)$. A limit, so graded as a trend: the same flows continued to $t=10^{15}$
# (60 log-spaced snapshots; the solver's steps grow with $t$, about 500 gradient evaluations), reading $1/\|W\|_F^2$
# against the scale $1/\log t$ (slope 1 for $\|W\|_F^2\propto\log t$, 0 for a finite limit). Control: the same
# initialisations and data on the summed *square* loss, whose minimum is reached at finite weights — GD with
# $\eta=5\cdot10^{-2}$ to $t=10^4$ (the adaptive flow of the square loss, stiff near its minimum, took over 100 s for
# $t\le20$ in a probe, and cannot reach $t=10^{15}$: its step is capped by the curvature, not by $t$).

# %%
rec_c = np.unique(np.geomspace(1, 1e15, 60).astype(np.int64))
cont_r = flow(rate[0].final, X_r, y_r, loss=EXP_SUM, lr=1.0, steps=10 ** 15, record=rec_c,
              atol=1e-40)
steps_sq = int((20 if quick else 10_000) / 5e-2)                      # control: to t = 10^4
sq_r = train(p_r, X_r, y_r, loss=Loss("square", "sum"), lr=5e-2, steps=steps_sq, record=200)
t_min = 10.0 if quick else 100.0
res_ng = ledger.measure("thm1.norm-growth", al.claims.NormRuns(rate[0], cont_r, t_min),
                        controls={"square_loss": al.claims.NormRuns(sq_r, sq_r.head(1), t_min)})
print(f"||W||_F^2 at t = 1e15 {np.round(res_ng.values['wf2_end'], 2)}; "
      f"trend of 1/||W||_F^2 in 1/log t: slope {np.round(res_ng.values['slope'], 3)}, "
      f"decades {np.round(res_ng.values['decades'], 2)}; square loss "
      f"(control): slope {np.round(np.array(res_ng.control_values['slope'], dtype=float), 3)}")

# %% [markdown]
# *Lemma 15*, the step behind the rate: for a *linear* two-layer network $f(x)=v^\top W^\top x$ under the gradient
# flow of the summed exponential loss on linearly separable data ($y_i\langle z,x_i\rangle\ge\gamma>0$, $\|z\|=1$),
# whenever every margin $y_if(x_i)\ge0$ the loss obeys $\dot{\mathcal L}\le-\frac14\|v\|^2\mathcal L^2\gamma^2$. We
# run it on the data of the theory runs with $z\propto x_+-x_-$ (so $\gamma=\min_iy_i\langle z,x_i\rangle$), $h=50$,
# $W,v\sim\mathcal N(0,0.1^2)$ entries, 5 initialisations, the adaptive flow to $t=100$, and compare the
# *measured* decay rate $-\Delta\mathcal L/\Delta t$ between consecutive snapshots with the bound wherever every
# margin is non-negative. The control freezes the first layer: the bound rests on the first-layer gradient
# $\|\nabla_W\mathcal L\|^2=\|v\|^2\|\sum_iy_i\ell_ix_i\|^2$, and without it the same rule must fail.

# %%
z15 = (g_t.x_plus - g_t.x_minus) / (g_t.x_plus - g_t.x_minus).norm()
gamma15 = float((y_t * (X_t @ z15)).min())
p15 = gaussian_init(50, 10, std_in=0.1, std_out=0.1, gen=generator(seed + 120), runs=(R_t,),
                    act="linear")
kw15 = dict(loss=EXP_SUM, lr=1e-3, steps=int((30 if quick else 100) / 1e-3), record=300)
both = ("W1", "W2")
l15 = {k: flow(p15, X_t, y_t, rtol=rt, trainable=tw, **kw15)
       for k, rt, tw in (("main", 1e-6, both), ("tight", 1e-7, both), ("frozen W", 1e-6, ("W2",)))}

# %%
gap15 = relative_error(l15["tight"].loss[-1].numpy(), l15["main"].loss[-1].numpy())
res15 = ledger.measure("lemma15", l15["main"], controls={"frozen_W": l15["frozen W"]},
                       X=X_t, y=y_t, gamma=gamma15, premises=dict(gamma=gamma15, loss_gap=gap15))
print(f"gamma = {gamma15:.3f}; min measured rate / bound {np.round(res15.values['ratio'], 2)} over "
      f"{res15.values['n_win']} snapshot pairs; "
      f"first layer frozen (control): {np.round(res15.control_values['ratio'], 4)}")

# %%
viol, sr_fin = al.low_rank_check(th_run, p_t, eps_t, t1_emp)
sr_half, sr_eta = (stable_rank(short[k].final.W1)[0].numpy() for k in (2, 1))
sr_gap = relative_error(sr_half, sr_eta)
ledger.grade("thm1.low-rank", viol=viol, sr_final=sr_fin, sr_gap=sr_gap)
X_o, y_o = torch.eye(10, dtype=torch.float64), torch.tensor([1.0, -1.0] * 5, dtype=torch.float64)
# history: the first control
p_o = al.balanced_theory_init(50, 10, 1e-10, generator(seed + 21), runs=(R_t,))
o_run = train(p_o, X_o, y_o, loss=EXP_SUM, lr=1e-3, steps=6000, record=linear_schedule(6000, 10))
viol_o, sr_fin_o = al.low_rank_check(o_run, p_o, 1e-10, al.alignment_times(o_run, X_o, y_o))
print(f"orthonormal data (mu = 0, eps = 1e-10): violations {viol_o.tolist()}, "
      f"final stable rank {sr_fin_o.round(3).tolist()}")

# %%
X_2d, y_2d = al.two_direction_separable(16, 10, 120.0, 0.1, generator(seed + 82))
g_2d = al.geometry(X_2d, y_2d)
p_small = al.balanced_theory_init(50, 10, eps_t, generator(seed + 83), runs=(R_t,))
p_large = al.balanced_theory_init(50, 10, 1.0, generator(seed + 84), runs=(R_t,))  # control
p_2d = TwoLayer(W1=torch.cat([p_small.W1, p_large.W1]), W2=torch.cat([p_small.W2, p_large.W2]))
tr_2d = flow(p_2d, X_2d, y_2d, loss=EXP_SUM, lr=lr_f, steps=steps_f, record=rec_f, atol=1e-40)

# %%
small_2d = al.claims.TheoryRuns(tr_2d.run(slice(0, R_t)), X_2d, y_2d, p_small, eps_t)
large_2d = al.claims.TheoryRuns(tr_2d.run(slice(R_t, 2 * R_t)), X_2d, y_2d, p_large, 1.0)
init_2d = al.claims.TheoryRuns(al.claims.initial(small_2d.traj), X_2d, y_2d, p_small, eps_t)
xpm_cos = float(cosine(g_2d.x_plus, -g_2d.x_minus))
res_2d = ledger.measure("thm1.low-rank-two-dir", small_2d, controls={"large_init": large_2d},
                        init=init_2d,
                        premises=dict(t1=al.alignment_times(small_2d.traj, X_2d, y_2d),
                                      T=al.horizon(g_2d, 50, eps_t), xpm_cos=xpm_cos))
print(f"mu = {g_2d.mu:.3f}, cos(x+, -x-) = {xpm_cos:.3f}; final stable rank "
      f"{np.round(res_2d.values['sr_final'], 3)} (eps = 1e-24), "
      f"{np.round(res_2d.control_values['sr_final'], 3)} (eps = 1, control), "
      f"at initialisation {np.round(res_2d.init_margins, 3)} (margin 2/sr where no violation)")

# %% [markdown]
# ### The initialisation scale: fitting time and the error of the simplified dynamics
# Lemma 1 and Theorem 1 tie everything to $\varepsilon$: up to the horizon $T=\log(1/(\sqrt h\varepsilon))/(4nX_{\max})$ the
# directions follow the simplified dynamics $\operatorname{sign}(v_j)P_{w_j}x_a(w_j)$ up to an error
# $\le4\varepsilon n\sqrt hX_{\max}^2W_{\max}^2$ (Lemmas 1, 3), and the loss is fitted at $t_2=\Theta(\log(1/(\sqrt h\varepsilon))/n)$.
# We keep each theory initialisation ($W_0$ and the signs) and scale it by six values
# $\varepsilon=10^{-4},10^{-8},\dots,10^{-24}$ (20 decades), all 30 runs in one batch of the adaptive flow on the
# data of the theory runs. An aligned balanced neuron grows at rate $\|x_\pm\|$, so the simplified dynamics
# predict the slope $1/\min\|x_\pm\|$ of $t_2$ against $\log(1/\varepsilon)$ — the paper's $\Theta(1/n)$ made explicit;
# the claim asks for a straight line ($1-R^2\le0.01$) and that slope within 15% — the graded content is this
# chapter's slope prediction (the paper says only $\Theta(\cdot/n)$); $t_2\ge T$ is guaranteed by Lemma 1 and is a
# premise. The error claim
# measures the exact direction velocity against the simplified one at every snapshot up to $T$. It is computed
# in closed form on the balanced state, $\|P_{w_j}\sum_i y_i\,\mathrm{expm1}(-y_if_i)\,1[\langle x_i,w_j\rangle>0]\,x_i\|$: our first
# version differentiated the integrated state by autograd and measured the integrator's own loss of balance
# (relative $10^{-6}$, so a deviation near $10^{-6}$ for every $\varepsilon$, $10^{14}$ times the bound at $\varepsilon=10^{-24}$)
# instead of the lemma's error; the correction was made after that result and is recorded with the claim.
# Both claims are predictions at $\varepsilon$ far above eq. (28)'s bound (see the theory section). *Revision:* "vanishes
# $\propto\varepsilon$" is a limit $\varepsilon\to0$ and is now graded as a trend over the 20 decades of the sweep (the error
# never grows towards smaller $\varepsilon$, its log–log slope is at least 0.9, the sweep spans at least 10 decades), beside
# the bound itself. This round files it as a *consistency check*: up to $T$ Lemma 3's growth bounds keep $\max|f|\propto
# \varepsilon$, so no balanced run in the small-output phase can fail the bound (slack about $10^5$) or the slope; the same
# flows read up to $t_2$ (where $|f|=1/4$) are printed beside it, no longer as a control. The fitting-time claim's control is now a run too: the same
# initialisations and $\varepsilon$ sweep for a *linear* network, which removes the ReLU gating — its neurons grow together
# at rate $\|x_+-x_-\|\approx2\|x_\pm\|$, so its slope is about half the predicted one (printed below); the former control,
# the same $t_2$ against a rate half as fast, is kept as a *sensitivity*, shown apart.

# %%
eps_grid = 10.0 ** -np.arange(4, 13 if quick else 25, 4)                          # 1e-4 ... 1e-24
E = len(eps_grid)
p_one = al.balanced_theory_init(50, 10, 1.0, generator(seed + 90), runs=(R_t,))  # W0 per init
p_eps = al.runs.scaled_copies(p_one, eps_grid)                                  # runs: (eps, seed)
T_eps = np.array([al.horizon(g_t, 50, e) for e in eps_grid])

# %%
steps_eps = 5000 if quick else 8000                                    # to t = 8, past every t2
rec_eps = np.union1d(linear_schedule(steps_eps, 20), np.round(T_eps / 1e-3).astype(int))
tr_eps = flow(p_eps, X_t, y_t, loss=EXP_SUM, lr=1e-3, steps=steps_eps, record=rec_eps, atol=1e-40)
t2_eps = al.fitting_times(tr_eps, X_t, y_t).reshape(E, R_t)
sweep_eps = al.claims.eps_sweep(tr_eps, X_t, y_t, eps_grid, R_t)       # with the direction error
dev_all = sweep_eps.dev                                                           # (T, E·R)
p_lin = TwoLayer(W1=p_eps.W1, W2=p_eps.W2, act="linear")               # control: no ReLU gating
lin_eps = train(p_lin, X_t, y_t, loss=EXP_SUM, lr=1e-3, steps=steps_eps, record=rec_eps)

# %%
log_inv = np.log(1 / (math.sqrt(50) * eps_grid))
x_min_norm = min(g_t.x_plus.norm().item(), g_t.x_minus.norm().item())
res_t2 = ledger.measure("eps.t2-log", sweep_eps,
                        controls={"linear_net": al.claims.eps_sweep(lin_eps, X_t, y_t, eps_grid,
                                                                    R_t, deviation=False)})
print(f"t2 (median over seeds) per eps: {np.median(t2_eps, 1).round(3).tolist()}; "
      f"T: {T_eps.round(3).tolist()}; "
      f"slope x min|x±| = {np.round(res_t2.values['slope_ratio'], 3)}, "
      f"R2 = {np.round(res_t2.values['r2'], 5)}; linear network (control): "
      f"slope x min|x±| = {np.round(res_t2.control_values['slope_ratio'], 3)}")

# %% [markdown]
# *The $1/n$ of $t_2$* (`eps.t2-n`, referee item 2.7, declared before its run): the same slope prediction at
# $n\in\{4,16,64\}$ on the data of the $t_1$-against-$n$ runs, by GD ($\eta=0.05/(nX_{\max})$, with its
# step-halving premise) at $\varepsilon\in\{10^{-4},10^{-8},10^{-12}\}$; control: the linear network.

# %%
def t2_n_runs(n_, act="relu", div=1):
    """The eps sweep on the n-point data (al.claims.t2_n_sweep) from this section's W0."""
    return al.claims.t2_n_sweep(p_one, n_, seed, R_t, act, div)


n_list = (4, 16, 64)
t2n = {d: {n_: t2_n_runs(n_, div=d) for n_ in n_list} for d in (1, 2)}
t2_of = {d: np.stack([al.fitting_times(sw.traj, sw.X, sw.y) for sw in t2n[d].values()])
         for d in (1, 2)}
res_t2n = ledger.measure("eps.t2-n", t2n[1],
                         controls={"linear_net": {n_: t2_n_runs(n_, "linear") for n_ in n_list}},
                         premises=dict(t2_gap=np.nanmax(np.abs(t2_of[2] / t2_of[1] - 1)
                                                        .reshape(-1, 3, R_t), (0, 1))))
print(f"slope x min|x±| per n {n_list}: "
      f"{[np.round(res_t2n.values[f'ratio_{n_}'], 3).tolist() for n_ in n_list]}; "
      f"1 - R2 max {np.round(res_t2n.values['r2_gap'], 5)}; linear network (control): dev "
      f"{np.round(np.array(res_t2n.control_values['dev'], dtype=float), 3)}")

# %%
dev_T = al.runs.max_until(dev_all, tr_eps.time, T_eps, R_t)                      # (E, R)
W_max0 = p_one.norms_in().amax(-1).numpy()                                       # W0 = W/eps
bound1 = al.lemma1_bound(g_t, 50, eps_grid[:, None], W_max0[None, :])
eps_ok = float((eps_grid.max() <= 1 / (4 * math.sqrt(50) * g_t.X_max * W_max0 ** 2)).all())

# %%
res_l1 = ledger.measure("eps.lemma1-error", sweep_eps, premises=dict(eps_ok=eps_ok))
fig = al_plots.eps_sweep(log_inv, t2_eps, T_eps, 1 / x_min_norm, eps_grid, dev_T, bound1)
glue("alignment-eps", fig, display=False)
# c1: read up to t2 (reported)
v1, c1 = res_l1.values, al.claims.eps_lemma1_trend(sweep_eps.window(t2_eps))
print(f"deviation up to T, trend as eps -> 0: slope {np.round(v1['slope'], 2)}, "
      f"monotone fraction {v1['mono']}, shrink {np.array(v1['shrink'], dtype=float)}; "
      f"largest ratio to the Lemma 1 bound {v1['within']}; up to t2 (control): "
      f"slope {np.round(c1['slope'], 2)}, ratio to the bound {np.round(c1['within'], 1)}")

# %% [markdown]
# **Lemmas 3 and 4 on the same flows.** Lemma 3 bounds the norms and outputs up to $T$: $\max_j\|w_j\|^2\le
# 2\varepsilon W_{\max}^2/\sqrt h$ and $\max_i|f(x_i)|\le2\varepsilon\sqrt hX_{\max}W_{\max}^2$ — Grönwall bounds at the fastest
# growth the gradient allows, true of every balanced run, so a *consistency check* (its margin shows the slack).
# Lemma 4 bounds the direction error *pointwise* by the output, $\le2nX_{\max}\max_i|f(x_i)|$, whenever
# $\max_i|f|\le1$ — read here through the whole fitting phase up to $|f|=1$, not only up to $T$. It rests on the
# balance $|v_j|=\|w_j\|$ of the initialisation (3), and on a balanced state it cannot fail: the left-hand side
# is $\|P\sum_iy_i\,\mathrm{expm1}(-y_if_i)1_ix_i\|\le nX_{\max}(e-1)\max|f|$ (Lemma 2), a ratio $\le(e-1)/2$
# whatever the dynamics — a *consistency check* (an unbalanced run, the former control, removes the hypothesis,
# not a mechanism). The velocity is computed in closed form for any $|v_j|/\|w_j\|$ (unit test against autograd).

# %%
res_l3 = ledger.measure("lemma3.norm-bounds", sweep_eps, premises=dict(eps_ok=eps_ok))
res_l4 = ledger.measure("lemma4.direction", tr_eps, X=X_t, y=y_t, R=R_t)
print(f"Lemma 3: largest ||w||^2 / bound {np.round(res_l3.values['w_ratio'], 4)}, |f| / bound "
      f"{np.round(res_l3.values['f_ratio'], 4)}; Lemma 4: largest error / bound "
      f"{np.round(res_l4.values['ratio'], 3)} over {res_l4.values['n_snap']} snapshots "
      f"(at most (e - 1)/2 = {(math.e - 1) / 2:.3f} on any balanced state)")

# %% [markdown]
# ```{glue:figure} alignment-eps
# :name: alignment-eps
#
# **The initialisation scale (Lemmas 1, 3; Theorem 1's $t_2$).** (a) The fitting time $t_2$ of each
# initialisation against $\log(1/(\sqrt h\varepsilon))$ over 20 decades of $\varepsilon$, with the horizon $T$ (dashed)
# and the slope $1/\min\|x_\pm\|$ of the simplified dynamics (dotted); compare the points with the dotted slope
# (measured slope × $\min\|x_\pm\|$ printed above, 1 predicted) and check they stay above
# $T$. (b) The largest deviation of the exact direction dynamics from the simplified ones up to $T$, against
# $\varepsilon$, with Lemma 1's bound (dashed); compare the slopes (measured log–log slopes printed above; the
# bound's is 1) and check every point stays below the bound.
# ```

# %% [markdown]
# ### How $t_1$ scales with $\mu$ and $n$
# The theorem gives $t_1=O(\log n/\sqrt\mu)$, an upper bound. We measure $t_1$ (i) on the two-point family
# of Figures 7–9 with $\mu=\sin\theta$ for six values of $\theta$ and (ii) on the synthetic family for
# $n\in\{4,16,64\}$, 5 initialisations each ($\varepsilon=10^{-12}$, balanced, summed loss, the same GD
# step rule), graded per initialisation. For two positive points $t_1$ is the first time every live
# positive neuron activates both points. Step convergence: the two-point runs use the step $\eta/4$ and the
# $\theta=0.1$ runs are repeated at $\eta/8$. *Revision:* at $\eta$ (checked against $\eta/2$) the step moved $t_1$ by
# more than 5% in 23 of the 25 published seed-runs, so the claim was *premise not met* almost everywhere; a probe
# found $t_1$ at $\eta/4$ and $\eta/8$ within 2% of each other (about 8 s more CPU), so the premise is now constructed
# rather than only checked.

# %%
thetas = [0.5, 0.2, 0.1, 0.05, 0.02] + ([] if quick else [0.01])
two_pts = [al.two_point_data(th_) for th_ in thetas]
mu_s, t1_mu, bd_mu = al.runs.t1_sweep(two_pts, N_SEEDS, 1e-12, seed + 30, t_max=30.0, step_div=4)

# %%
t1_half = al.alignment_time_and_bound(*al.two_point_data(0.1), N_SEEDS, 1e-12, seed + 30,
                                      t_max=30.0, step_div=8)[1]
data_n = [al.synthetic_separable(n_, 10, 0.3, generator(seed + 40 + n_)) for n_ in (4, 16, 64)]
_, t1_n, bd_n = al.runs.t1_sweep(data_n, N_SEEDS, 1e-12, seed + 50, t_max=3.0)      # (n, R)

# %%
slopes = row_slopes(np.log(mu_s), np.log(t1_mu).T)                        # one fit per seed
mu_tab = pd.DataFrame(dict(mu=mu_s, t1_median=np.median(t1_mu, 1), t1_max=t1_mu.max(1),
                           bound_min=bd_mu.min(1)))
n_tab = pd.DataFrame(dict(n=[4, 16, 64], t1_median=np.median(t1_n, 1), t1_max=t1_n.max(1),
                          bound_min=bd_n.min(1)))
k_mu = np.polyfit(np.log(mu_tab.mu), np.log(mu_tab.t1_median), 1)[0]
glue("alignment-t1-scaling", al_plots.t1_scaling(mu_tab, n_tab, k_mu), display=False)

# %%
print(f"log-log slope of the median t1 against mu: {k_mu:.2f} (1/sqrt(mu) would give -0.5); "
      f"per initialisation {slopes.round(2)}; "
      f"median t1 at n = 4, 16, 64: {n_tab.t1_median.round(3).tolist()}")
print(f"step convergence at theta = 0.1: t1 at eta/4 {t1_mu[thetas.index(0.1)].round(2).tolist()}, "
      f"at eta/8 {t1_half.round(2).tolist()}")
pd.concat([mu_tab, n_tab])

# %% [markdown]
# ```{glue:figure} alignment-t1-scaling
# :name: alignment-t1-scaling
#
# **Theorem 1's $t_1=O(\log n/\sqrt\mu)$ (Appendix A.2).** (a) Median measured $t_1$ against $\mu$ on the two-point
# family (log–log) with a $1/\sqrt\mu$ line; (b) against $n$ on the synthetic family. Compare the slope in (a)
# (printed in the panel title) with $-0.5$, and the measured $t_1$ with the bounds in the table (four orders larger).
# ```

# %%
# μ decreases down the table
mono = np.all(np.diff(t1_mu, axis=0) >= 0, axis=0).astype(float)
within = ((t1_mu <= bd_mu).all(0) & (t1_n <= bd_n).all(0)).astype(float)
ledger.grade("thm1.t1-scaling", mono=mono, slope=slopes, within=within,
             t1_gap=relative_error(t1_half, t1_mu[thetas.index(0.1)]))

# %% [markdown]
# The printed slopes compare the growth of $t_1$ as $\mu$ shrinks with $1/\sqrt\mu$. Strict monotonicity of a
# max-over-neurons first-passage time over adjacent $\mu$ is not implied by an $O(\log n/\sqrt\mu)$ bound (an earlier
# explanation, that the last neurons' alignment at small $\mu$ overlaps with the fitting phase, is withdrawn: $t_1$ is
# the same at $\varepsilon=10^{-12}$, $10^{-24}$ and $10^{-48}$). *Revision:* this claim is now a *consistency check*: no run can fail its bound half (slack
# about $10^4$; $t_1$ depends neither on $\varepsilon$ nor, at $\eta/4$, on the step) and its former control, the bounds
# divided by $10^5$, was a perturbed prediction; the monotone half is our reading of an $O(\cdot)$ upper bound. Against $n$ the step is scaled as $1/(nX_{\max})$, and more points make $x_a$ longer,
# so $t_1$ need not grow with $n$ (printed medians). The theorem's $O(\log n/\sqrt\mu)$ is an upper bound;
# the ledger below gives, per initialisation, whether the trend is monotone (reproduced) or only holds
# overall (partial), and whether halving the step left $t_1$ in place (the premise, printed above for
# $\theta=0.1$). Where halving the step moves $t_1$ by more than 5%, GD at our step does not stand in for
# the flow for this quantity (plausibly because the last neurons to settle sit near a cone boundary,
# where the discretisation decides when they cross), and the seed is graded *premise not met*: the trend
# is then shown (figure, table) but not graded.

# %% [markdown]
# ## Statements not graded, and why
# Each statement of the paper (or item of the issue that asked for it) that this chapter does not grade as a ledger
# row, or grades only in part, with what it would cost. Costs are measured on this 2-core machine, shared.
#
# * **Theorem 1 inside eq. (28)'s bound, beyond part 1.** The bound is about $10^{-6\cdot10^5}$ for the theory data
#   (printed in the theory section). Only part 1 is graded inside it (`thm1.t1-eq28`, $n=2$, $\varepsilon=10^{-120}$).
#   The $n=2$ data make part 2 trivial (one point per class: the stable rank and the rate say nothing). At
#   $n\ge4$ the bound leaves float64 for *our* family ($\approx10^{-250}$–$10^{-340}$ for $D=10$, spread $0.05$,
#   measured in a probe), but not for every one: the referee measured $10^{-162}$–$10^{-172}$ for $n=4$, $D=100$,
#   spread $0.01$ ($\mu\approx0.99$), where $\varepsilon\approx10^{-180}$ is representable ($f\approx\varepsilon^2$ underflows to 0,
#   a term below float64 resolution) and $t_2\approx200$ flow time, about $8\cdot10^4$ GD steps of a tiny net —
#   an estimated tens of seconds. Grading part 1, the rate and $\|W\|\to\infty$ there is left to the next round
#   (this round had 45 minutes); our earlier "not affordable" held only for our $D=10$ family. Part 1's content does not depend on $\varepsilon$ to leading order (Lemma 1's
#   error is $\propto\varepsilon$, graded as a trend in `eps.lemma1-error`), which is what the extension claims rest on.
# * **The $n$-dependence of $t_2=\Theta(\log(1/\varepsilon)/n)$ and of the $t_1$ bound (item 5a).** `eps.t2-log` grades the
#   slope $1/\min\|x_\pm\|$ on $n=16$; this round grades the $1/n$ too (`eps.t2-n`): as the referee noted, GD at
#   $\varepsilon\in\{10^{-4},10^{-8},10^{-12}\}$ with a step-halving premise costs seconds (6 s in the reduced run, 22 s in the full run at load 4–5), where the
#   adaptive flow to $\varepsilon=10^{-24}$ below does not. The earlier estimate for the flow: a sweep over
#   $n\in\{4,16,64\}$ needs two more adaptive-flow batches of the $\varepsilon$ sweep; a probe measured them
#   ($\varepsilon\in\{10^{-8},10^{-16},10^{-24}\}$, 5 seeds, the data of the $t_1$ runs): $n=4$ to $t=40$ (past its
#   $t_2\approx28$) took 98 s, $n=64$ to $t=4$ more than 70 s (stopped; the flow is stiffer, $nX_{\max}$ larger) —
#   together about twice this revision's +90 s. The $t_1$ medians against $n$ are shown (figure
#   `alignment-t1-scaling`, panel b) but not graded: the bound's slack ($\approx10^4$) lets no run fail it.
# * **The $\mu$-dependence of $t_1$ (item 5b)** is graded (`thm1.t1-scaling`): its step-convergence premise is now
#   built (steps $\eta/4$ against $\eta/8$) and holds in every seed-run of the published sweep; it stays a consistency
#   check, as no run can fail the bound half.
# * **MNIST at the paper's protocol (item 6).** The paper's 15 000 iterations are run (and continued while the
#   stable rank moves, Choices); the paper gives no image count. The build's 500 per digit against 1000 per digit
#   is `mnist.image-count` (same four verdicts on 1 vs 0, one extra pair run), and the one-off study in the MNIST
#   section measures how the graded quantities move with 250–1000 images per digit and 8000 or 15 000 iterations
#   (109 s in all, not part of the build): the images barely matter, the iterations do. The study's own timing
#   (60.4 s for one pair at 1000 per digit) extrapolates to about 120 s per pair at 2000 per digit, so at least
#   360 s for three pairs before any continuation block, over the chapter's budget.
# * **Step and horizon of the figures (item 7).** Figure 6 runs the mean loss for the flow time of the paper's
#   30 000 iterations on the sum (180 000 iterations; the sum is printed beside it); Figures 7–9 run the paper's
#   30 000 iterations at its step and read its iterations 7000 and 21 000; MNIST runs the paper's 15 000; Figures 12–13
#   run 6000 SGD steps (2.5 per epoch on the 5000-image subset) — the paper's epoch count is not given. No figure
#   uses a step other than the paper's $\eta=2\cdot10^{-3}$, so no step-convergence premise is needed for them; the
#   theory runs, where GD stands in for the flow, carry one (or use the adaptive flow).
# * **Seed switchers (item 8).** Figures 4 and 6 switch between the five seeds. Figures 7–9 already show, per
#   figure, the seed with the most stragglers (their counts for every seed are printed); Figures 5, 10–13 come from
#   the build's one MNIST seed (the other seeds' runs exist only in the published sweep, whose figures are not
#   stored); Figures 1–2 and the $\varepsilon$ and $t_1$ scaling figures draw fixed data or every seed at once.

# %% [markdown]
# **A referee's report (ref_al11): findings answered, not fixed in this round** (one sentence each, with the cost).
#
# * *1.3* `thm1.norm-growth` rests on one data draw (the toy batches one $X$ for the five initialisations); drawing
#   $X$ per seed means five flows to $t=10^{15}$ instead of one batched flow — not measured, so its 5/5 counts once.
# * *1.7* `lemma3.norm-bounds`' margin is a max over $\varepsilon$ and so reflects $\varepsilon=10^{-4}$ only (slack
#   $\sim10^{23}$ at $10^{-24}$); `lemma11` is checked on the visited activation patterns, not on random directions
#   (about $10^5$ directions, seconds) — both left (time).
# * *2.2* `fig9.orthogonal`'s growth half: the chapter's own argument predicts ratio $\approx\alpha^{1-1/\sqrt2}\approx0.0175$
#   at $\alpha=10^{-6}$ (measured 0.014–0.031), so `ratio < 0.01` fails there by construction; a trend over
#   $\alpha\in[10^{-15},10^{-4}]$ on the two-point problem is the right test, left (one Figure-9 batch per $\alpha$).
# * *2.3* Figure 6 runs the sum's flow time while Figures 7–8 read the paper's iterations on the mean (= 3500 and
#   10 500 iterations on the sum); the two reductions are printed beside Figures 7–9, one convention for all is left.
# * *2.4–2.6* MNIST: `k_align` (mean neuron, 870–928 in the sweep) is under half the paper's "about 2000" but passes the
#   one-sided "by 2500"; the stable rank of 1 vs 0 still drifts (1.039 → 1.072 from 8000 to 20 000 iterations);
#   the large-init control runs 200 images capped at 15 000 — each needs a rule change and the 5-seed MNIST sweep
#   (≈ 10 min), left to the lead engineer's sweep.
# * *2.8* The `t1_gap` premises read snapshots every 10 steps (6.5 % of $t_1$), so they can read only 0 or
#   $\ge6.5$ %; dense recording around $t_1$ is left (time).
# * *3.3* eq. (39)'s upper bound on $t_2$ (slope $8/(\sqrt\mu n_+X_{\min})$, about 100× the measured) is not graded.

# %% [markdown]
# ## Claims ledger
# Every checkable statement this chapter tests: its rule and tolerance (each says whether its expectation was
# predicted or copied from a result, and what changed after a result was seen), the measured values over the
# seeds, the verdict per seed with its margin, the pass rate and the tier, and the control run that the same
# measurement and rule must reject. MNIST claims show the pass rate of the published 5-seed sweep. The book's
# own run fails if a control passes or a pass rate leaves its declared expectation.
#
# ### What changed in this revision
# *This round (referee report ref_al11), each change with a history entry in the claims file, made after the
# results were seen:* `thm1.t1-eq28` and `thm1.t1-bound` became consistency checks (their $\varepsilon=10^{-2}$
# "controls" had the main run's $t_1$ and differed only in the formula $T$; the runs are printed, not graded);
# `lemma4.direction` became a consistency check without control (its ratio is $\le(e-1)/2$ on any balanced state);
# `thm1.loss-rate` reads $\min$ bound$/\mathcal L$ from $t_2+1/(\alpha\mathcal L(t_2))$, where the bound has halved
# (at $t_2$ it equals $\mathcal L$, which pinned the margin at 1); `lemmas.invariants` no longer grades
# `changes_over_n <= 1` (implied by `wrong_way == 0`). New: `eps.t2-n` grades $t_2$'s slope at
# $n\in\{4,16,64\}$ (declared before its run, expectation predicted; control: the linear network). Text only: `thm1.norm-growth` says its five seeds are one data
# draw (one observation), that `mono` holds by homogeneity and `slope >= 0.5` is our reading; `eps.t2-log` says its
# slope is our prediction; `thm1.part1` and `thm1.low-rank` carry the "outside the proved $\varepsilon$" label; the
# "What holds" rows state their data draws and Figure 9's failing half. The table below is the *previous* round's:
# its "before" column is the revision before that round, as recorded in the claims' history entries (some of its
# numbers come from sweeps since replaced, not from the currently published sweep of commit `f9a6f3a`,
# 2026-12-02 11:35 UTC); its "after" column and the tables under it are this build (base seed 0). The lead engineer
# re-runs the published sweep at this code.
#
# Claims declare their measurement and a control *run*; the ledger applies the one to the other. All
# reproductions are now in this form. In this round (after a referee's report):
# `mnist.timescales` and `mnist.align-first` measure a crossing that never happens within the run as $\infty$
# (not undefined), so the large-initialisation control, which never aligns, is rejected rather than inconclusive;
# `fig7.fast`'s control is the $\mu=\sin0.001$ runs (Figure 8), where alignment is slow, instead of orthogonal
# data, where it never completes; `fig6.two-drops` runs the mean loss for the sum's flow time (180 000 iterations);
# `eps.t2-log` grades $1-R^2\le0.01$ and the slope, with $t_2\ge T$ a premise; `eps.lemma1-error` and
# `init-probability` became consistency checks; `fig9.orthogonal` is measured by a declared function whose norm ratio is undefined where no neuron lies outside
# $\mathcal S_+$, against the $\mu=\sin0.1$ run; `fig12.two-phase` keeps the first-layer-only scheme as its control
# run and `fig13.one-phase` (the same comparison with the roles swapped) and `a5.both-fit` (control: the same
# runs read earlier) became consistency checks; `thm1.refined-alignment` is written $1-\cos_{\min}\le 3/4$ (the
# margin shows the slack) and became a consistency check (its counterfactual run has no window). Per claim whose
# verdict or tier changed (before: the published 5-seed sweep of the previous revision, where every claim was graded
# without tiers; after: printed below from this run's ledger):
#
# | claim | before | after |
# |---|---|---|
# | `thm1.t1-bound` | reproduced 25/25, control (bound/10⁵) *passed* in 9/25 | rule $t_1\le$ bound and $t_1\le T$; tier *consistency* (a step 100× too coarse passes too); this round: kind consistency, the $\varepsilon=10^{-2}$ run printed, not a control |
# | `thm1.t1-scaling` | premise not met 23/25, partial 2/25 | steps $\eta/4$ vs $\eta/8$: the premise holds; a consistency check (no run can fail the bound) |
# | `thm1.loss-rate` | reproduced 25/25, control a half-rate curve | a consistency check (the counterfactual run is too costly to integrate) |
# | `eps.lemma1-error` | reproduced 25/25 (bound and slope) | graded as a trend $\varepsilon\to0$ (`mono == 1`, decades a premise); a consistency check (no small-output run can fail it) |
# | `init-probability` | reproduced 25/25, control biased draws | a consistency check (an identity) |
# | `eps.t2-log` | reproduced 25/25, control a halved rate | control: a linear network; tier *quantitative* |
# | `lemma15` | reproduced 25/25 | tier *loose bound* (median slack above ×10: the lemma's rate is far from tight here) |
# | `mnist.timescales`, `mnist.align-first` | reproduced 5/5, control "not reproduced" | first round: tier *inconclusive* (the control's alignment iteration was undefined); this round: a crossing that never happens is $\infty$, the control is rejected |
# | `thm1.low-rank-two-dir` | reproduced 25/25 | also measured at initialisation (fails there); tier *quantitative* |
# | `fig8.slow` | reproduced 25/25 | also measured at initialisation, where random neurons already lie outside $\mathcal S_+$: tier *consistency* |
# | `lemma13`, `dwell-time` | reproduced 25/25 as reproductions | consistency checks: no run can fail these worst-case bounds |
# | `fig6.two-drops` | not reproduced 0/5 (expected 0–0.2) at 30 000 mean-loss iterations | mean-loss runs to 180 000 iterations (the sum's flow time); expectation 0.6–1 restored |
# | `fig7.fast` | control: orthogonal data (could not pass at any horizon) | control: the $\mu=\sin0.001$ runs of Figure 8 (the paper's own contrast) |
# | `mnist.low-rank` | not reproduced / premise not met (3 vs 8 decided) | "≈ 1" on 1 vs 0, "≤ 2" on every pair; expected reproduced |
# | `fig9.orthogonal` | partial 5/5, control handed in (share 0, ratio 0) | control run measured: share 0, ratio undefined (rejected on its share) |
# | `fig13.one-phase`, `a5.both-fit` | reproduced, controls handed in | consistency checks (fig13 is fig12's control read the other way) |
# | `thm1.refined-alignment` | reproduced 25/25, control the same run from $t=0$ | a consistency check, $1-\cos_{\min}\le3/4$ |

# %% [markdown]
# *This revision (issue 25: every statement, in the regime the paper proves it).* New rows, all declared before the
# run that graded them (`expect_basis: predicted`) except where a history entry says otherwise:
# `thm1.t1-eq28` grades Theorem 1's part 1 at an $\varepsilon$ *inside* eq. (28)'s bound ($n=2$ data,
# $\varepsilon=10^{-120}$); `thm1.norm-growth` grades $\|W\|\to\infty$ as a trend in $1/\log t$ to $t=10^{15}$ (control: the
# square loss; its control run was changed, for cost, before the claim was graded — history entry);
# `lemma4.direction` (control: an unbalanced initialisation; its measurement was corrected after the first reduced
# run, which measured the integrator's loss of balance — history entry, expectation now *observed*);
# `lemma3.norm-bounds` and `lemma11` (consistency checks). The theorem's claims now say in their statements that
# they are graded outside the proved $\varepsilon$, as an extension (text only; rules unchanged). Figure 4 switches
# between the five theory runs; a one-off study of the MNIST protocol (images per digit, iterations) is shown as a
# table in the MNIST section; "Statements not graded, and why" lists what is left, with costs. The new rows, from
# this run's ledger:

# %%
new_rows = ["eps.t2-n", "thm1.t1-eq28", "thm1.norm-growth", "lemma3.norm-bounds",
            "lemma4.direction", "lemma11"]
pd.DataFrame({c: dict(rate=ch.rate(c), tier=ledger.results[c].tier()[0],
                      control=ledger.results[c].control_status) for c in new_rows}).T

# %%
changed = ["lemmas.invariants", "thm1.t1-eq28", "lemma4.direction", "fig6.two-drops", "fig7.fast",
           "mnist.low-rank", "thm1.t1-bound", "thm1.t1-scaling", "eps.lemma1-error", "eps.t2-log",
           "lemma15", "thm1.low-rank-two-dir", "lemma13", "dwell-time", "thm1.loss-rate",
           "fig8.slow",
           "mnist.timescales", "mnist.align-first", "fig9.orthogonal", "fig12.two-phase",
           "init-probability", "fig13.one-phase", "a5.both-fit", "thm1.refined-alignment"]
pd.DataFrame({c: dict(after=ch.rate(c), tier=ledger.results[c].tier()[0],
                      control=ledger.results[c].control_status) for c in changed}).T

# %%
_ = glue_what_holds("alignment", ledger, al.claims.WHAT_HOLDS)

# %%
ch.finish()
