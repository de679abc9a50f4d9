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

# %%

# %% [markdown]
# # Synthesis: one phenomenon, four lenses
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
# This chapter tests whether **one paper's theory predicts another paper's experiment**:
#
# 1. **AGF on the orthogonal-input data.** AGF's general algorithm (the numerical one of the
#    {doc}`04_agf` chapter, not a closed form written for this case) predicts the jump times and loss
#    levels of gradient descent on the orthonormal test bed of {doc}`01_orthogonal`, at the same
#    initialisations; we compare it with that paper's own leading-order phase times.
# 2. **The alignment paper's theory on the race paper's CIFAR-10 run.** The race network is, exactly,
#    an alignment-paper network (below); we measure that paper's predictions — cones, alignment with
#    $x_a(w)$, a low-rank first layer — on setting 1 of {doc}`03_race`, where its data assumption fails.
#
# **Conventions.** Part 1 uses the orthogonal chapter's loss $L=\frac1{2n}\sum_k(h(x_k)-y_k)^2$,
# full-batch GD with step $dt=10^{-2}$ in float64, time $t=$ steps $\times\,dt$ (gradient-flow time);
# AGF runs with $\eta=1$, so its clock is the same $t$. Part 2 uses the race chapter's setting 1:
# softmax cross-entropy (mean over the mini-batch), SGD with step $10^{-3}$, momentum 0.9, batch 4,
# float32; time in steps.

# %% [markdown]
# **Choices** (neither paper pair prescribes these cross experiments)
#
# | what | our choice | why |
# |---|---|---|
# | part 1 data, width, init | the orthogonal chapter's test bed: $x_k=e_k\in\mathbb R^{10}$, $y=(1,1.5,2,-1,-1,-0.5)$, $m=50$, balanced init of scale $\lambda$ | its phases are known in closed form |
# | $\lambda$ grid, seeds | $10^{-3}, 10^{-6}, 10^{-12}$; 5 seeds | AGF is the $\lambda\to0$ limit: the error should shrink along the grid |
# | AGF cost phase | 4000 GD steps of $0.05$ on the active neurons | converges to machine precision on this data |
# | drop time | first crossing of the mid-level between consecutive AGF levels | the AGF chapter's definition |
# | tolerance on jump times | relative error $\le 1/\ln(1/\lambda)$ | AGF drops $O(1)$ corrections to times of order $\ln(1/\lambda)$ |
# | part 2 run | race setting 1 (200 images, std $10^{-4}$, 8000 steps), 5 seeds | the race chapter's calibrated setting |
# | step premises | part 1: GD rerun at $2\,dt$, its drops must move by < 1 %; part 2: the run repeated with twice the SGD step, the graded cosine must move by < 0.1 | GD stands in for the flow the theories describe |
# | "end of the plateau" | last snapshot with loss $\ge 0.99\ln 2$ | before the drop, as the alignment phase requires |
# | "winners" | the 10 % of neurons with the largest $a_\alpha=\lVert w^1_\alpha\rVert\lVert w^2_\alpha\rVert$ at the end | the race paper's top-10 % |

# %% tags=["parameters"]
seed = 0            # base seed of every random draw in this chapter
quick = False       # True: fewer seeds, initialisations and steps (tests only)
ledger_path = ""    # write the claims ledger to this JSON file (empty string: no file)

# %%
import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import torch

from lrlib import nbparams
from lrlib.claims import Ledger
from lrlib.data import cifar_race
from lrlib.losses import Loss
from lrlib.models import TwoLayer, balanced_init, generator
from lrlib.plots import NEG, POS, THEORY, glue, label_panels, panel_grid, set_style
from lrlib.theory import alignment as al
from lrlib.theory import orthogonal as orth
from lrlib.theory import race as rc
from lrlib.theory import synthesis as sy
from lrlib.theory.agf import agf
from lrlib.synthetic import orthonormal_testbed
from lrlib.train import train
from lrlib.trajectory import log_schedule

quick = nbparams.check_common(seed, quick, ledger_path)
torch.set_num_threads(1)
set_style()
SQ = Loss("square", reduction="mean", scale=0.5)     # L = 1/(2n) Σ (h − y)²
CE = Loss("cross_entropy")
N_SEEDS = 2 if quick else 5
ledger = Ledger.declared("synthesis", n_seeds=N_SEEDS, base_seed=seed)
LAMS = [1e-3, 1e-6] if quick else [1e-3, 1e-6, 1e-12]
print(SQ.describe(), "|", CE.describe(), f"| {N_SEEDS} seeds, λ = {LAMS}")

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
lam_runs = torch.tensor(LAMS, dtype=torch.float64).repeat_interleave(N_SEEDS)
p0 = balanced_init(m, d, scale=lam_runs, gen=generator(seed), runs=(len(lam_runs),))
DT = 1e-2
T_END = 1.25 * math.log(1 / min(LAMS)) / kv.norm_minus
STEPS = int(T_END / DT)
gd = train(p0, X, y, loss=SQ, lr=DT, steps=STEPS, record=np.arange(0, STEPS + 1, 10))
gd2 = train(p0, X, y, loss=SQ, lr=2 * DT, steps=STEPS // 2, record=np.arange(0, STEPS // 2 + 1, 5))   # step premise: 2·DT


def cost_fn(net: TwoLayer):
    return train(net, X, y, loss=SQ, lr=0.05, steps=4000, record=log_schedule(4000, 30))


rows, agf_runs = [], []
for r, lam in enumerate(lam_runs.tolist()):
    run = agf(TwoLayer(W1=p0.W1[r], W2=p0.W2[r]), X, y, loss=SQ, kappa=2, eta=1.0, cost_fn=cost_fn,
              dtau_max=0.5, tau_max=1.5 * math.log(1 / lam) / kv.norm_minus)
    agf_runs.append(run)
    pt = orth.phase_times(kv, lam)
    gap = sy.relative_errors(sy.mid_level_drop_times(gd2.time, gd2.loss[:, r].numpy(), run.levels[:3]),
                             sy.mid_level_drop_times(gd.time, gd.loss[:, r].numpy(), run.levels[:3])) if len(run.tau) >= 3 else [np.nan]
    rows += [dict(lam=lam, run=r, seed=r % N_SEEDS, step_gap=np.max(gap), **row) for row in sy.agf_vs_gd_jumps(
        gd.time, gd.loss[:, r].numpy(), run.tau, run.levels, (pt.t2_scale, pt.t3_scale), tol=1 / math.log(1 / lam))]
jumps = pd.DataFrame(rows)
jumps.groupby(["lam", "jump"])[["gd", "agf", "leading", "err_agf", "err_leading", "tol"]].median()

# %%
fig, axes = panel_grid(2, width=4.4, height=3.2)
ax = axes[0]
for i, lam in enumerate(LAMS):
    r = i * N_SEEDS
    col = plt.cm.viridis(i / max(len(LAMS) - 1, 1))
    ax.plot(gd.time, gd.loss[:, r].numpy(), color=col, lw=1.5, label=f"GD, $\\lambda$ = {lam:.0e}")
    run = agf_runs[r]
    ts = np.r_[run.tau, gd.time[-1]]
    ax.step(ts, np.r_[run.levels, run.levels[-1]], where="post", color=col, ls="--", lw=1)
ax.set(yscale="symlog", xlabel="gradient-flow time $t$", ylabel="$L$", title="GD (solid) and AGF (dashed), seed 0")
ax.set_yscale("symlog", linthresh=1e-3)
ax.legend(fontsize="small")
ax = axes[1]
med = jumps.groupby(["lam", "jump"])[["err_agf", "err_leading", "tol"]].median().reset_index()
for k, mk in [(1, "o"), (2, "s")]:
    sel = med[med.jump == k]
    x = np.log(1 / sel.lam)
    ax.plot(x, sel.err_agf, marker=mk, color=POS, label=f"AGF, drop {k}")
    ax.plot(x, sel.err_leading, marker=mk, color=NEG, ls=":", label=f"$\\ln(1/\\lambda)/\\|D_\\pm\\|$, drop {k}")
xx = np.log(1 / np.array(LAMS))
ax.plot(xx, 1 / xx, color=THEORY, ls="--", label="tolerance $1/\\ln(1/\\lambda)$")
ax.set(yscale="log", xlabel="$\\ln(1/\\lambda)$", ylabel="relative error of drop time (median)",
       title="AGF vs the leading-order phase times")
ax.legend(fontsize="x-small")
label_panels(axes)
glue("synthesis-agf-orthogonal", fig)

# %%
per_seed = jumps.groupby("seed")
neg = float((y[y < 0] ** 2).sum() / (2 * n))
pos = float((y[y > 0] ** 2).sum() / (2 * n))
lv = jumps[jumps.jump == 1]
dev = {lam: lv[lv.lam == lam].sort_values("seed") for lam in LAMS}
step_gap = per_seed.step_gap.max().to_numpy()
ledger.grade("agf-on-orthogonal.jump-times", worst=per_seed.apply(lambda f: (f.err_agf / f.tol).max()).to_numpy(),
             two=per_seed.apply(lambda f: float((f.n_jumps == 2).all())).to_numpy(), step_gap=step_gap,
             control=dict(worst=per_seed.apply(lambda f: (f.err_leading / f.tol).max()).to_numpy(),
                          two=per_seed.apply(lambda f: float((f.n_jumps == 2).all())).to_numpy()))
devs = {k: (abs(dev[lam].gd_level - dev[lam].level) / dev[lam].level).to_numpy() if lam in dev else np.full(N_SEEDS, np.nan)
        for k, lam in (("dev3", 1e-3), ("dev6", 1e-6), ("dev12", 1e-12))}
devs_ctl = {k: (abs(dev[lam].gd_level - pos) / pos).to_numpy() if lam in dev else np.full(N_SEEDS, np.nan)
            for k, lam in (("dev3", 1e-3), ("dev6", 1e-6), ("dev12", 1e-12))}
ledger.grade("agf-on-orthogonal.levels", **devs, step_gap=step_gap, control=devs_ctl,
             note=f"AGF level {lv.level.iloc[0]:.5f}, closed form Σ_(y<0) y²/(2n) = {neg:.5f}")
ratio = per_seed.apply(lambda f: (f.err_agf / f.err_leading).max()).to_numpy()
ledger.grade("agf-on-orthogonal.vs-leading-order", ratio=ratio, step_gap=step_gap, control=dict(ratio=1 / ratio))


def rate(cid):
    v = ledger.results[cid].verdicts
    g = sum(x in ("reproduced", "partial", "not reproduced") for x in v)
    return (f"{sum(x == 'reproduced' for x in v)}/{g} seeds" + (f", partial in {sum(x == 'partial' for x in v)}" if "partial" in v else "")
            + (f", premise not met in {len(v) - g}" if g < len(v) else ""))


for cid in ("agf-on-orthogonal.jump-times", "agf-on-orthogonal.levels", "agf-on-orthogonal.vs-leading-order"):
    print(f"{cid}: reproduced in {rate(cid)}")
jumps.groupby(["lam", "jump"])[["err_agf", "err_leading", "tol", "step_gap"]].max()

# %% [markdown]
# AGF, run from the same initial network as GD, is graded per seed; the pass rates printed above are the
# result (each claim's values per seed are in the ledger). GD stands in for the flow here, so each claim
# carries a premise: doubling the step moves GD's drops by less than 1 %. The level claim is a
# $\lambda\to0$ statement: at $\lambda=10^{-3}$ there is no real plateau (the negative neurons grow before the
# positive labels are fitted), hence its declared *partial* tier (the level holds at $\lambda\le10^{-6}$ only). The
# orthogonal paper's leading-order times $\ln(1/\lambda)/\lVert D_\pm\rVert$ serve as the control of the jump-time
# claim: they ignore the initial norm $\lVert\theta_j(0)\rVert$ (here $\approx\sqrt{2d}\,\lambda$, not $\lambda$) and the
# time spent aligning, which AGF keeps. The two theories agree on the mechanism: on orthogonal inputs a
# neuron's best utility is $\lVert D_\pm\rVert/2$, so AGF's jump condition $\lVert\theta\rVert e^{2\bar U^* t}=1$ is the
# paper's $t\approx\ln(1/\lambda)/\lVert D_\pm\rVert$ with the constants kept.

# %% [markdown]
# ## 2. The alignment paper's theory on the race paper's CIFAR-10 run
# The race network has two softmax outputs; the alignment paper's has one output and the logistic
# (or exponential) loss. They are the same network: the cross-entropy of the logits $(z_0,z_1)$ is
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
# We run setting 1 of the race chapter and measure each.

# %%
STEPS_C = 2000 if quick else 8000
data = [cifar_race(50, seed + r) for r in range(N_SEEDS)]
Xc = torch.stack([dd[0] for dd in data])
yc = torch.stack([dd[1] for dd in data])
mus = [(al.mu(Xc[r].double(), sy.pm_labels(yc[r])), al.mu((Xc[r] - Xc[r].mean(0)).double(), sy.pm_labels(yc[r])))
       for r in range(N_SEEDS)]
pc0 = rc.race_init(250, 1024, 1e-4, generator(seed + 100), runs=(N_SEEDS,))
race1 = train(pc0, Xc, yc, loss=CE, lr=1e-3, momentum=0.9, batch_size=4, steps=STEPS_C,
              record=log_schedule(STEPS_C, 60), seed=seed + 1, check_every=1000)
lens = pd.DataFrame([dict(seed=seed + r, **row) for r in range(N_SEEDS)
                     for row in sy.alignment_lens_rows(race1.run(r), Xc[r], yc[r], plateau_level=0.99 * math.log(2))])
race2 = train(pc0, Xc, yc, loss=CE, lr=2e-3, momentum=0.9, batch_size=4, steps=STEPS_C // 2,       # step premise: 2× step
              record=log_schedule(STEPS_C // 2, 60), seed=seed + 1, check_every=1000)
lens2 = pd.DataFrame([dict(seed=seed + r, **row) for r in range(N_SEEDS)
                      for row in sy.alignment_lens_rows(race2.run(r), Xc[r], yc[r], plateau_level=0.99 * math.log(2))])
print("Assumption 1 (mu, raw / centred pixels):", [f"{a:.3f} / {b:.3f}" for a, b in mus])
lens

# %%
fig, axes = panel_grid(3, width=3.6, height=3.0)
tr0 = race1.run(0)
steps = tr0.steps
series = pd.DataFrame([dict(step=int(steps[i]), **sy.alignment_lens(tr0.at(i), Xc[0], yc[0])[0]) for i in range(len(steps))])
axes[0].semilogx(series.step[1:], series.in_cone[1:], color=POS, label="in the predicted cone")
axes[0].axhline(1.0, color=THEORY, ls="--", label="prediction under Assumption 1")
axes[0].set(xlabel="step", ylabel="fraction of neurons", ylim=(0, 1.05), title="(ii) cones")
axes[0].legend(fontsize="small")
i_end0 = int(lens[(lens.seed == seed) & (lens.when == "end of plateau")].step.iloc[0])
q, c = sy.alignment_lens(tr0.at(tr0.index_of_step(i_end0)), Xc[0], yc[0])
a_fin = rc.total_norm(tr0.final)
win = (a_fin >= a_fin.quantile(0.9)).numpy()
axes[1].hist([c[~win].numpy(), c[win].numpy()], bins=30, color=["0.7", POS], label=["other 90 %", "winners (top 10 %)"], stacked=True)
axes[1].set(xlabel="cos($w_\\alpha$, sign($v_\\alpha$) $x_a(w_\\alpha)$)", ylabel="neurons", title=f"(iii) at the end of the plateau (step {i_end0})")
axes[1].legend(fontsize="small")
axes[2].loglog(series.step[1:], series.stable_rank[1:], color=POS)
axes[2].axhline(2.0, color=THEORY, ls="--", label="Thm. 1: $\\leq 2$ at the end")
axes[2].set(xlabel="step", ylabel="stable rank of $W_1$", title="(iv) low rank")
axes[2].legend(fontsize="small")
glue("synthesis-alignment-on-race", fig)

# %%
mu_seed = np.array([max(a, b) for a, b in mus])
end = lens[lens.when == "end of plateau"].sort_values("seed")
ini = lens[lens.when == "init"].sort_values("seed")
fin = lens[lens.when == "final"].sort_values("seed")
cos_w0 = []
for r in range(N_SEEDS):
    tr = race1.run(r)
    a_f = rc.total_norm(tr.final)
    _, c0 = sy.alignment_lens(tr.at(0), Xc[r], yc[r])
    cos_w0.append(float(c0[a_f >= a_f.quantile(0.9)].median()))
ledger.grade("alignment-on-race.assumption1", mu=mu_seed,
             note=f"raw pixels {[round(a, 3) for a, _ in mus]}, centred {[round(b, 3) for _, b in mus]}")
ledger.grade("alignment-on-race.cones", in_cone=end.in_cone.to_numpy(), mu=mu_seed, control=dict(in_cone=ini.in_cone.to_numpy()))
end2 = lens2[lens2.when == "end of plateau"].sort_values("seed")
ledger.grade("alignment-on-race.local-field", cos_w=end.cos_winners.to_numpy(), control=dict(cos_w=np.array(cos_w0)),
             cos_gap=np.abs(end.cos_winners.to_numpy() - end2.cos_winners.to_numpy()),
             note=f"all neurons: {[round(v, 3) for v in end.cos_all]}")
ledger.grade("alignment-on-race.low-rank", srank=fin.stable_rank.to_numpy(), mu=mu_seed,
             control=dict(srank=ini.stable_rank.to_numpy()))
for cid in ("alignment-on-race.cones", "alignment-on-race.local-field", "alignment-on-race.low-rank"):
    print(f"{cid}: reproduced in {rate(cid)}")
print("μ per seed:", np.round(mu_seed, 3), "| stable rank at the end:", np.round(fin.stable_rank.to_numpy(), 3))

# %% [markdown]
# On CIFAR-10 the alignment paper's data assumption fails: pixel images of different classes are strongly
# positively correlated ($\mu<0$ in every seed, printed above, raw or centred), so Theorem 1's premise is not met
# and its two conclusions (cones, a low first-layer rank) are not graded: the ledger marks them *premise not
# met*. What we see there is an **out-of-premise observation**, not a test of the theorem: at the end of the
# plateau most neurons are active on images of both classes, far from the cones, while the first layer still
# ends with a small stable rank (printed above). The *local* mechanism does not need Assumption 1 — the
# early-alignment field is derived for a small initialisation — and it is graded, but only in the seeds where
# the step premise holds: repeating the run with twice the SGD step must move the winners' median cosine by
# less than 0.1. Where it holds, the neurons that go on to win the race have turned towards
# $\operatorname{sign}(v)\,x_a(w)$, the race paper's $\langle\gamma\rangle$; the pass rate and the number of seeds in which
# the cosine depends on the step (premise not met) are printed above — the statement is not made for every
# seed. The race paper's lens suggests why the rank stays low: only the winners move, and they chase nearly
# the same direction.

# %% [markdown]
# ## Claims ledger
# The cross-paper predictions: the declared rule, premises and negative control
# (`notebooks/05_synthesis.claims.yaml`), what we measured per seed, and the verdicts. The book's own run
# fails if a control passes its rule or a pass rate leaves its declared expectation.

# %%
ledger.finish(ledger_path, strict=not quick and seed == 0)
