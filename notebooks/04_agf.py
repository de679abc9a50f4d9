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
# # Alternating Gradient Flows
#
# :::{note} Running this chapter yourself
# `make rerun CHAPTER=agf SEED=3` reruns it with another seed: {glue:text}`agf-rerun-full` at full size
# on a 2-core machine, {glue:text}`agf-rerun-quick` with `QUICK=1` (the last recorded timings). On Binder
# (the rocket icon above) the first start builds the environment of `binder/`, which takes several
# minutes; we have not timed it, since the machines that build this book cannot reach Binder. Binder's
# free machines are small, so expect at least the 2-core times there. Change `seed` in the cell
# tagged `parameters`, then run all cells.
# :::
#
# **Paper.** D. Kunin, G. L. Marchetti, F. Chen, D. Karkada, J. B. Simon, M. R. DeWeese, S. Ganguli,
# N. Miolane, *Alternating Gradient Flows: A Theory of Feature Learning in Two-layer Neural Networks*
# (2025, arXiv 2506.06489).
#
# **What the paper claims.** Train $f(x)=\sum_i a_i\sigma(w_i^\top g_i(x))$ by gradient flow from an
# initialisation of scale $\alpha\to0$. Then the loss follows a staircase, and *Alternating Gradient
# Flows* (AGF, Algorithm 1) predicts it: neurons are **dormant** or **active**; dormant neurons
# independently maximise their *utility* $U_i(\theta_i)=\mathbb E\langle f_i(x;\theta_i),r_A(x)\rangle$
# ($r_A$ the residual of the active network) on the sphere while their norm grows with the accumulated
# utility $S_i=\int\kappa\bar U_i$; the first whose norm reaches 1 jumps into the active set; the active
# neurons then jointly minimise the loss (instantly on the accelerated clock $\tau=t/\eta_\alpha$), and an
# active neuron that collapses to the origin returns to dormancy. The output is the sequence
# $(\tau_k,\ell_k,f_k)$ of jump times, loss levels and active networks. The paper derives it in closed
# form for diagonal linear networks (Figs. 3, 8; AGF → Pesme–Flammarion as $\alpha\to0$), fully
# connected linear networks (Fig. 4, Conjecture 4.1), an attention-only linear transformer (Fig. 5) and
# modular addition with a quadratic network (Fig. 6).
#
# **What we run.** The general algorithm (`lrlib.theory.agf.core.agf`, for any network of
# $\kappa$-homogeneous neurons) and every closed form (`lrlib.theory.agf.{dln,linear,transformer,modular}`,
# unit-tested against each other, ODE solutions and reference numbers computed once from the authors' data), and gradient descent
# on every model through the one training loop `lrlib.train.train`, compared with AGF on the accelerated
# time axis.
#
# **Conventions.** Loss $\mathcal L=\tfrac12\,\mathrm{mean}_j\|f(x_j)-y_j\|^2$ (½, mean over points,
# sum over outputs) everywhere; for Gaussian data it is the exact population loss (below). GD step $s$
# with step size $h$ (no momentum) is gradient-flow time $t=sh$; with heavy-ball momentum $\mu$ (modular
# addition only) $t\approx sh/(1-\mu)$. Accelerated time is $\tau=t/\eta_\alpha$ with
# $\eta_\alpha=-\log\|\theta_i(0)\|$ for $\kappa=2$ (DLN: $-\log(\sqrt2\alpha)$; FC with the paper's init:
# $-\log\alpha$) and $\eta_\alpha=1/\alpha$ for $\kappa=3$ (transformer, modular addition). The authors'
# code uses other conventions (`nn.MSELoss`, gradients of $\mathbb E\|\cdot\|^2$); we convert their step
# sizes to ours and say so per figure. Float64 throughout.

# %% [markdown]
# ## What holds
# The paper's main statements, each with the claims of the ledger (at the bottom of the page) that grade it:
# the pass rate over the seeds, the claim's kind and its tier (*quantitative*, *loose bound*, *consistency*,
# *inconclusive*, *not graded*), filled in from this run's ledger. The closed forms are exact identities
# (consistency checks); the statements about the dynamics are graded on the flow against control runs.
#
# ```{glue:} agf-what-holds
# ```

# %% [markdown]
# **Choices the paper leaves open (or that we changed for speed)**
#
# | what | our choice | why |
# |---|---|---|
# | DLN data (Fig. 3) | the authors' draw (numpy seed 10): $d=5$, $n=20$, $x\sim\mathcal N(0,\mathrm{diag}(1/i))$, $\beta^*=10\,\mathcal N(0,I)$ | reproduces the authors' jump times and levels to 5 digits (unit test) |
# | DLN step size | $h=2\cdot10^{-3}$ (Fig. 3) and $h=2\cdot10^{-3}$ (Fig. 8), authors $10^{-3}$ and $10^{-4}$ | 2–20× fewer steps; a check below reruns Fig. 8's first two drops at $h=5\cdot10^{-4}$ |
# | FC data (Fig. 4) | $\Sigma_{xx}=MM^\top$, $M=U\mathrm{diag}(1/i)V^\top$, $B\sim\mathcal N(0,1)$, numpy seed 0; commuting variant with $\Sigma_{xx}$'s eigenvectors replaced by $B$'s right singular vectors | the authors' recipe; our draw order differs from theirs (their numbers are not reproduced digit for digit; the unit test checks the recursion instead) |
# | FC protocol | **population loss** via a design with $\tfrac1n X^\top X=\Sigma_{xx}$ exactly, **gradient flow** (adaptive RK45), $\alpha=10^{-6}$ and $10^{-12}$, 5 seeds, up to the sixth jump; authors: GD on fresh batches of 1000, $\alpha=10^{-15}$, $10^7$ steps | the population loss and the flow are what the theory is about; sampling noise only blurs it; GD's step adds a lag of its own; $10^7$ steps do not fit the budget |
# | transformer protocol (Fig. 5) | population loss (closed form, exact via a 16-point product design), $\alpha=10^{-3}$, $h=0.01$, 5 seeds; authors: batches of 8192 | same reason; the design's loss equals the closed form (unit test) |
# | transformer init | every head parameter $\alpha\,\mathcal N(0,1)$, $V_h\ge0$ | the authors' code ("N(0, α)" read as a standard deviation) |
# | modular addition (Fig. 6) | $p=20$, template $\hat x[\pm1,\pm3,\pm5]=10,5,2.5$, $H=18$, the paper's $\alpha=10^{-2}$ and the authors' init variances, **gradient flow** by `lrlib.integrate.flow` (implicit BDF with the closed-form Hessian, each seed on its own, `rtol` $10^{-6}$; premise: a rerun at $10^{-7}$) for $0\le t\le3000$, 5 seeds; authors: heavy-ball GD, momentum 0.9, step $h=10^{-3}$ in our loss ($t\approx0.01$ per step) | the flow is what AGF describes; at the authors' step GD's drops moved by 11–14 % when the step was doubled (an earlier version of this chapter ran it); once a frequency is learned the flow is stiff, so an explicit integrator (or GD) needs a few hundred gradient evaluations per unit of flow time, while the implicit one takes steps set by accuracy; $t=3000$: $\kappa=3$ times scale like $1/\alpha$, ten times the $t=250$ that sufficed at $\alpha=0.1$, plus margin |
# | FC step check | plain GD at $h=2\cdot10^{-3}$ from the same initialisations, up to 1.15× the second predicted jump; premise: first two drops within 1 % of the integrated flow's | a check that GD converges to what we integrate; 1 % is about twice GD's own $O(h\sigma_1)$ lag at that step and a third of the smallest tolerance $1/\eta_\alpha$ |
# | transformer AGF (Fig. 5 overlay) | simulated from each seed's initialisation: utility flows of the dormant heads (RK45, direction and log-norm), cost step in closed form (Lemma E.2) | the heads' own jump times, with Eq. 7's levels; the cost step needs no solver |
# | alignment speed (App. B.4) | one neuron per seed, each seed its own data, residual and direction; direction and log-norm integrated together in the norm-free time of the adaptive rate (RK45, `rtol` $10^{-7}$), the plain flow's clock recovered by reweighting | batched over seeds; any $\alpha$ costs the same |
# | cost step and width (Thm F.7, Lemma F.6, $H\ge3p$) | $p=11$, $\hat x[1,2]=6,4$; cost step: GD restricted to the harmonic of $\xi$ ($h=0.01$, 5000 steps, no momentum) from amplitudes and phases $\mathcal N(0,0.2^2)$ per coefficient; width: $H=33=3p$, $\alpha=10^{-2}$, authors' variances, momentum 0.9, $h=10^{-3}$, $2\cdot10^4$ steps; controls $N=4$ and $H=6$; 5 seeds | the theory assumes $p$ odd; with Figure 6's template $H\ge3p$ means $H=60$, $P=1920$ parameters per seed in the implicit flow (see "Not done"); two frequencies keep the last drop near $1.2\cdot10^4$ steps |
# | ties | every neuron crossing its threshold in the same integration step activates together | the paper activates one at a time |
# | return to dormancy (general AGF) | an active neuron whose norm falls below `dormant_tol` during cost minimisation | our choice: the simplest rule that lets a neuron leave the active set |

# %% tags=["parameters"]
seed = 0            # base seed of every random draw in this chapter
quick = False       # True: fewer seeds and steps (tests only)
ledger_path = ""    # write the claims ledger to this JSON file (empty string: no file)

# %%
import os
# one BLAS thread, set before scipy loads (as one torch thread below)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import math

import numpy as np
import pandas as pd
import torch

from lrlib import chapter
from lrlib.ledger import fmt
from lrlib.ledger.summary import glue_what_holds
from lrlib.losses import half_mse
from lrlib.measure import drop_times, plateau_between, relative_error
from lrlib.models import generator
from lrlib.models import forward as net_forward
from lrlib.plots import glue, glue_seeds
from lrlib.plots import agf as agf_plots
from lrlib.theory.agf import core, dln, linear, modular, transformer
from lrlib.theory.agf import claims as agf_claims
from lrlib.theory.agf import claims_modular as agf_claims_mod
from lrlib.theory.agf import measure as agf_measure
from lrlib.theory.agf import models as agf_models
from lrlib.theory.agf import report as agf_report
from lrlib.theory.agf import runs as agf_runs
from lrlib.train import train
from lrlib.schedules import log_schedule

# %%
# seeds 0–4 (batched runs) of every seed-dependent experiment
ch = chapter.start("agf", seed, quick, ledger_path)
quick, N_SEEDS, ledger = ch.quick, ch.n_seeds, ch.ledger
LOSS = half_mse()
F64 = torch.float64
# quick mode: fewer GD steps (the ledger is not strict there)
SCALE = 0.1 if quick else 1.0
print(LOSS.describe())

# %% [markdown]
# ## Diagonal linear networks (Figure 3)
# $f(x)=\sum_i u_iv_ix_i$, $\beta=u\odot v$, initialised at $u_i=\sqrt2\alpha$, $v_i=0$ (each coordinate is a
# $\kappa=2$ neuron, $\|\theta_i(0)\|=\sqrt2\alpha$, $\eta_\alpha=-\log(\sqrt2\alpha)$). AGF in closed form
# (Thm C.4, Cor. C.5): $S_i(\tau_k+t)=\frac1{2\eta}\log\cosh\!\big(2\eta|g_i|t+\rho_i\cosh^{-1}e^{2\eta S_i(\tau_k)}\big)$
# with $g=\nabla_\beta\mathcal L(\beta_A)$; a coordinate jumps when $S_i=1$; the cost step is the
# sign-constrained least squares on the active set. GD runs all eight $\alpha$ at once (one batched run).
# The figure's time axis is the authors': $t/(-\log\alpha)$ (AGF drawn at $\alpha=10^{-100}$).

# %%
X3, y3, bstar3 = dln.fig3_data()
X3t, y3t = torch.tensor(X3), torch.tensor(y3)
alphas3 = np.array([0.99, 0.9, 0.5, 1e-1, 1e-2, 1e-4, 1e-8, 1e-16])
agf_inf = dln.agf(X3, y3, 1e-100)
pf3 = dln.pesme_flammarion(X3, y3)
h3 = 2e-3

# %%
# raw GF time past the last jump at α = 1e-16
t_end3 = 1.25 * agf_inf.tau[-1] * dln.eta_alpha(1e-16)
steps3 = int(SCALE * t_end3 / h3)
run3 = agf_runs.dln_gd(X3, y3, alphas3, h3, steps3, log_schedule(steps3, 500),
                       meta=dict(model="DLN", alphas=alphas3.tolist()))

# %%
beta3 = agf_models.dln_beta(run3.params).numpy()                         # (T, 8, 5)
dense3 = run3.dense_loss.numpy()                                 # (steps+1, 8)
t_dense3 = np.arange(steps3 + 1) * h3
print(f"{steps3} GD steps; AGF order {agf_inf.order}, levels {np.round(agf_inf.levels, 4)}")

# %%
fig = agf_plots.fig3(t_dense3, dense3, run3.time, beta3, alphas3, agf_inf, bstar3)
glue("agf-fig3", fig, display=False)

# %% [markdown]
# ```{glue:figure} agf-fig3
# :name: agf-fig3
#
# **Figure 3 of the paper.** Diagonal linear network ($d=5$, $n=20$) trained by GD from eight initialisation scales $\alpha$, on the accelerated clock $t/(-\log\alpha)$. (a) Loss, log–log: compare each coloured curve with the dashed AGF staircase ($\alpha\to0$) — the small-$\alpha$ curves should sit on it, the large-$\alpha$ ones be smooth. (b) Coefficients $\beta_i$ (solid: GD, darker = smaller $\alpha$; dashed: AGF; dotted: $\beta^*$): they switch on one at a time in AGF's order.
# ```

# %% [markdown]
# Large $\alpha$ gives smooth, kernel-like curves; as $\alpha$ shrinks the curves become the staircase and
# the coefficients switch on one at a time. We now compare with AGF *at the same* $\alpha$: the drop time
# is the first crossing of the mid-level between consecutive AGF levels, and the plateau value is the
# median loss over the middle half of the interval between two consecutive drops of the curve itself
# (`lrlib.measure.plateau_between`, the one reading of a plateau used for every figure of this chapter).
#
# **Flow, not GD, and a limit graded as a limit.** The paper's statement is about gradient flow as
# $\alpha\to0$, and GD with step $h$ lags the flow by a relative $O(h\,\sigma)$ in every growth phase. We
# therefore grade the flow itself. With $u_i^2-v_i^2=2\alpha^2$ conserved (Lemma C.2) the flow of
# $\beta$ is $\dot\beta_i=-2g_i\sqrt{\alpha^4+\beta_i^2}$, i.e. $\dot z_i=-2g_i$ for $z_i=\operatorname{asinh}(\beta_i/\alpha^2)$:
# no tiny numbers at any $\alpha$, integrated by an implicit method (`agf_claims.dln_flow_reduced`, Radau, `rtol`
# $10^{-10}$; it matches the $(u,v)$ flow of `lrlib.integrate` to $10^{-9}$, unit test). That lets the sweep
# reach deep into the limit cheaply: $\alpha=10^{-4},10^{-8},10^{-16},10^{-32},10^{-64}$, each seed with its own
# data (Figure 3's recipe, the authors' draw for seed 0). The paper states the limit only; we grade it with
# **our** rate $O(1/\eta_\alpha)$: the claim `fig3.drop-times` is a **trend**: the largest drop-time error must
# shrink at every step towards the limit, with log–log slope at least 0.75 against $1/\eta_\alpha$ (an upper
# bound: faster is allowed) and by at least half the factor that rate gives over the sweep. It is a **consistency
# check**: the flow's convergence to Pesme–Flammarion's jump times is their theorem, and AGF differs from PF by
# exactly $c/\eta_\alpha$ (below), so the limit cannot fail; the row is an instance of PF's theorem, and the rate is
# ours. **Coarse-step GD** of the same draws ($h=0.05$, 25 times the figure's step; `agf_claims.dln_gd_sweep`)
# goes through the same measurement as the ledger's `coarse=` run: it shares the slow clock and the
# saddle-to-saddle mechanism and lags the flow by an $\alpha$-independent $O(h\sigma)$, so it is a perturbed time
# scale, not a run without the mechanism (its step was chosen after $h=0.01$ passed in one draw; the largest step
# the rule still accepts is not measured: a probe over $h$ costs about one Figure 3 GD sweep per $h$). The slope
# alone is one-sided (it lets error × $\eta_\alpha$ double over the sweep), so the rule also asks that constant to
# stay within a factor 1.5 over the three deepest $\alpha$ (`stab`, declared after a probe: observed): bounded and
# stable. Its value differs from draw to draw (`c_deep` in the ledger). The issue's control — the same flows on a
# clock **stretched by 1.25** (the flow of $0.8\,\mathcal L$, `dln_sweep(..., time_scale=0.8)`) — goes through the
# same measurement and is printed below: its error settles near the clock's 25 % instead of shrinking. The ledger
# takes no control on a consistency check, so it is shown in the row's note, not graded. An earlier revision's control, the **plain linear model** $\dot\beta=-\nabla\mathcal L(\beta)$ from
# $\beta=0$ (`agf_claims.linear_model_sweep`), removes the slow clock itself and failed by construction; it remains
# the control of `fig3.order`, whose
# `overlap` is read on the run's own crossing times: it learns every coordinate at once. The old rule, error
# $\le1/\eta_\alpha$ at $\alpha=10^{-4},10^{-8},10^{-16}$, asked for a constant $\le1$ that the paper never states; it stays,
# shown as a consistency check, as `fig3.drop-times-finite`, and GD's errors are shown beside the flow's for the paper's data.

# %%
rows3 = {}
for r, a in enumerate(alphas3):
    if a <= 1e-4 or a == 0.1:
        rows3[a] = agf_measure.dln_vs_agf(X3, y3, a, t_dense3, dense3[:, r])

# %%
# draw i: numpy seed 10 + seed + i (base seed 0: the authors' draw first)
data3 = [dln.fig3_data(10 + seed + i)[:2] for i in range(N_SEEDS)]
a_sw3 = [1e-4, 1e-8, 1e-16, 1e-32, 1e-64]
sw3 = agf_claims.dln_sweep(data3, a_sw3)
# the plain linear model on the same clock (control); coarse-step GD, same draws and α
lin3 = agf_claims.linear_model_sweep(data3, a_sw3)
gd3 = agf_claims.dln_gd_sweep(data3, a_sw3, 0.05)
# the same flows on a clock stretched by 1.25 (the flow of 0.8·L), past 1.7 × AGF's last jump
slow3 = agf_claims.dln_sweep(data3, a_sw3, time_scale=0.8, past=1.7)
e_sw3, l_sw3 = agf_claims.sweep_errors(sw3)  # (S, A) each

# %%
flow3 = agf_report.fig3_table(a_sw3, sw3.etas, e_sw3, l_sw3, rows3)
flow3.round(4)

# %%
tr_slow3 = agf_claims.drop_time_trend(slow3)
slow_note3 = agf_report.stretched_note(tr_slow3, ("slope", "shrink", "stab"))
ledger.measure("fig3.drop-times", sw3, coarse=gd3,
               note="error × η_α at the deepest α per seed: the rate's constant; coarse GD's "
                    f"errors, seed 0: {np.round(agf_claims.sweep_errors(gd3)[0][0], 3).tolist()}; "
                    + slow_note3)
print(slow_note3, "; errors, seed 0:", np.round(agf_claims.sweep_errors(slow3)[0][0], 3))
gd_errs3 = ", ".join(f"{np.nanmax(rows3[a][2]):.3f}" for a in (1e-4, 1e-8, 1e-16))
ledger.measure("fig3.drop-times-finite", sw3, note="GD (h = 2e-3), paper's data: " + gd_errs3)

# %%
ledger.measure("fig3.levels", sw3)
# seed 0's data; the flow's order at α = 1e-64
agf_s0 = dln.agf(*data3[0], 1e-100)
order_flow = agf_measure.activation_order(sw3.time[4], sw3.beta[0, 4], agf_s0.betas[-1])
ledger.measure("fig3.order", sw3, controls={"linear_model": lin3}, index=4,
               note=f"seed 0, flow at α = 1e-64: {order_flow}; AGF: {sum(agf_s0.order, [])}")
print(agf_report.rate_line(ch.rate, ["fig3.drop-times", "fig3.drop-times-finite",
                                     "fig3.levels", "fig3.order"]))

# %% [markdown]
# What we see (pass rates printed above): in the seeds that `fig3.drop-times` reproduces, the drop-time error shrinks
# like $1/\eta_\alpha$ along 60 decades of $\alpha$, with a constant — error × $\eta_\alpha$, in the table for seed 0 and
# the other seeds — that depends on the draw; the finite-$\alpha$ check `fig3.drop-times-finite` holds only in the
# draws whose constant is below 1 (the ledger also shows, as a *sensitivity*, the same rule with every drop-time ratio
# divided by 1.2: the flow on a clock 20 % fast, which an earlier revision used as the control although it is the
# prediction rescaled). The linear model's error grows towards 1 along the sweep (its values are in the ledger). The
# plateaus (`fig3.levels`, a consistency check) are read between the flow's own drops at $\alpha=10^{-64}$: a plateau
# is a critical point of the restricted least-squares problem AGF solves with the same algebra, so the level matches
# to round-off wherever a plateau is resolved — the rule tells whether it is, not whether AGF holds. The order
# (`fig3.order`) is read per draw at $\alpha=10^{-64}$; `overlap` carries the test (the next coordinate must be below a
# tenth of its final value when the previous one reaches half: one at a time), `match` is a discrete check that a
# model learning everything at once can pass by chance, and the onset time is shown only. The mid-level crossing comes $O(1)$
# gradient-flow time after the jump (the neuron still has to grow from norm 1 to its final size), which AGF's
# instantaneous cost step ignores: that is the constant. GD's errors (paper's data) are larger than the flow's —
# that part is our step, not AGF. (A first version of this chapter added a *partial* tier after seeing the
# finite-$\alpha$ result; we removed it: a tolerance is not changed after the fact.)

# %% [markdown]
# **AGF → Pesme–Flammarion.** As $\alpha\to0$, $\log\cosh x\to|x|$ and $\cosh^{-1}e^x\sim x+\log2$, so AGF's
# jump times converge to those of Pesme and Flammarion's algorithm (piecewise-linear $S$), at rate
# $O(\log2/\eta_\alpha)$; the levels and active sets are identical.

# %%
alist = [1e-4, 1e-8, 1e-16, 1e-50]
pf_err = [np.abs(dln.agf(X3, y3, a).tau - pf3.tau).max() for a in alist]
pf_scaled = [e * dln.eta_alpha(a) for e, a in zip(pf_err, alist)]
same = all(dln.agf(X3, y3, a).order == pf3.order for a in alist)
ledger.grade("thm.agf-to-pf", decreasing=float(all(x > y for x, y in zip(pf_err, pf_err[1:]))),
             spread=max(pf_scaled) / min(pf_scaled), same=float(same),
             note="max |τ_AGF − τ_PF| × η_α at α = 1e-4, 1e-8, 1e-16, 1e-50: "
                  + ", ".join(f"{v:.3f}" for v in pf_scaled))

# %% [markdown]
# **The general algorithm against the closed form (and Figure 2).** `core.agf` knows nothing about
# diagonal networks: it integrates each dormant neuron's direction on the sphere (Heun's method) and its
# norm from $\kappa\bar U$, and minimises the cost with `lrlib.train.train` on the active neurons. On the
# Fig. 3 data at $\alpha=10^{-8}$ it must reproduce the closed form. Figure 2 of the paper is a schematic of
# this alternation; we draw it from this run: each neuron's norm (log scale) against accelerated time,
# dormant (thin) or active (thick), with the loss levels.

# %%
a_gen = 1e-8
cost_steps = 300 if quick else 3000


def dln_cost(net):
    mask = (net.W1 != 0).to(F64)
    return train(net, X3t, y3t, loss=LOSS, lr=0.05, steps=cost_steps,
                 record=np.arange(0, cost_steps + 1, 5),
                 grad_fn=agf_models.masked_grad_fn(LOSS, mask), progress=False)

# %%
p_gen = agf_models.dln_params(torch.full((5,), math.sqrt(2) * a_gen, dtype=F64),
                              torch.zeros(5, dtype=F64))
gen_run = core.agf(p_gen, X3t, y3t, loss=LOSS, kappa=2, eta=dln.eta_alpha(a_gen), cost_fn=dln_cost,
                   mask=agf_models.dln_mask(5))
cf = dln.agf(X3, y3, a_gen)
err_gen = relative_error(gen_run.tau[1:], cf.tau[1:])
l_err_gen = np.max(np.abs(gen_run.levels[:-1] - cf.levels[:-1]) / cf.levels[:-1])
ledger.grade("alg.general-vs-closed", same_order=float(gen_run.order == cf.order),
             t_err=err_gen.max(), l_err=l_err_gen)

# %%
fig = agf_plots.fig2(gen_run)
glue("agf-fig2", fig, display=False)

# %% [markdown]
# ```{glue:figure} agf-fig2
# :name: agf-fig2
#
# **Figure 2 of the paper** (a schematic there; a real run of the general algorithm here, Fig. 3 data, $\alpha=10^{-8}$). (a) Each neuron's norm, log scale, against accelerated time: thin while dormant, thick once active; vertical lines are the jumps, the black line norm 1. (b) The loss of the active network after each cost minimisation, with the neuron that jumped. Compare the jump times with the closed form (claim `alg.general-vs-closed`).
# ```

# %% [markdown]
# ## Return to dormancy (Figure 8)
# Pesme & Flammarion's 2-D example: $X=\mathrm{chol}(R\Lambda R^\top)$ ($R$ the rotation by 150°,
# $\Lambda=\mathrm{diag}(1,25)$), $\beta^*=(-0.2,2)$. AGF predicts: coordinate 0 activates at $\tau_1$; when
# coordinate 1 activates at $\tau_2$ the constrained optimum sets $\beta_0=0$, so coordinate 0 returns to
# dormancy, its accumulated utility falls back to 0 at $(\tau_2+\tau_3)/2$, regrows with the opposite sign
# and reactivates at $\tau_3$. Panels: (a) each neuron $(u_i,v_i)$ in polar coordinates with log radius;
# (b) $\tilde S_i=\log(\|\theta_i\|/\|\theta_i(0)\|)/\eta_\alpha$ and the angle; (c) the path of $\beta$ on the
# loss landscape; (d) the loss with AGF's steps. GD with $h=2\cdot10^{-3}$.

# %%
X8, y8, bstar8 = dln.fig8_data()
alphas8 = np.array([0.5, 0.1, 1e-2, 1e-4, 1e-6])
pf8 = dln.pesme_flammarion(X8, y8)
h8 = 2e-3
steps8 = int(SCALE * 1.3 * dln.agf(X8, y8, 1e-6).tau[-1] * dln.eta_alpha(1e-6) / h8)

# %%
run8 = agf_runs.dln_gd(X8, y8, alphas8, h8, steps8, log_schedule(steps8, 600))
u8 = torch.diagonal(run8.params.W1, dim1=-2, dim2=-1).numpy()      # (T, 5, 2)
v8 = run8.params.W2[..., 0, :].numpy()

# %%
beta8 = u8 * v8
agf8 = dln.agf(X8, y8, 1e-6)
print("AGF (α = 1e-6):", np.round(agf8.tau, 4), "levels", np.round(agf8.levels, 4),
      "order", agf8.order)

# %%
fig = agf_plots.fig8(u8, v8, beta8, alphas8, run8.time, run8.dense_loss.numpy(), h8, agf8, 1e-6,
                     X8, y8)
glue("agf-fig8", fig, display=False)

# %% [markdown]
# ```{glue:figure} agf-fig8
# :name: agf-fig8
#
# **Figure 8 of the paper.** Pesme–Flammarion's 2-D example, GD from five $\alpha$ (colours). (a, b) Each coordinate $(u_i,v_i)$ in polar coordinates with log radius; (c) accumulated utility $\tilde S_i$ and (d) the angle against accelerated time, black: AGF at $\alpha=10^{-6}$ — look for coordinate 0's $\tilde S$ returning to 0 at the midpoint between $\tau_2$ and $\tau_3$ and its angle flipping sign; (e) the path of $\beta$ over the loss landscape, dots: AGF's saddles; (f) the loss with AGF's staircase.
# ```

# %% [markdown]
# **Graded on the flow, per draw.** The claims about Figure 8 are about the flow, so they are graded on the
# flow itself (the reduced flow of Figure 3, exact up to the integrator), at $\alpha=10^{-6}$, on five draws:
# seed 0 is the paper's example, the others rotate it by $150°\pm10°$ and scale $\beta^*$ by $1\pm0.25$ (first
# coordinate) and $1\pm0.1$ (second), which keeps AGF's activate–return–reactivate sequence (AGF's order is
# printed below for each draw). Both claims are **consistency checks**: they are graded at one $\alpha$ with the
# constant 1 of $|r-1|\le1/\eta_\alpha$ ours, and the only control on this clock, the linear model, fails them by
# construction (its flip and drops are $t_\text{raw}/\eta_\alpha\to0$); `opposite` is a property of the least-squares
# end point. AGF's timing as a limit is graded by `fig3.drop-times`. The flow on a clock 20 % fast (flip and drops
# $1/1.2$ as late) is shown as a sensitivity of the same rules. GD, drawn
# in the figure, is checked against a 4× smaller step (`protocol.step-size`: GD at the figure's step
# $h=2\cdot10^{-3}$ moves the drops by less than 1 %). (GD does not conserve $u_i^2-v_i^2$ exactly: each
# step multiplies it by $1-h^2g_i^2$, an effective shrinking of $\alpha$ — the reason not to take $h$ much larger.)

# %%
r4 = int(np.flatnonzero(alphas8 == 1e-4)[0])
agf4 = dln.agf(X8, y8, 1e-4)
h_small = 5e-4
steps_small = int(SCALE * 1.15 * agf4.tau[2] * dln.eta_alpha(1e-4) / h_small)
small = agf_runs.dln_gd(X8, y8, alphas8[r4:r4 + 1], h_small, steps_small, record=2)

# %%
t_small = np.arange(steps_small + 1) * h_small
d_small = drop_times(t_small, small.dense_loss[:, 0].numpy(), agf4.levels[:3])
d_big = drop_times(np.arange(steps8 + 1) * h8, run8.dense_loss[:, r4].numpy(), agf4.levels[:3])
# nan if a drop is missing: premise not met
step_gap8 = float(np.max(relative_error(d_big, d_small)))
ledger.grade("protocol.step-size", step_gap=step_gap8,
             note=f"drops (GF time) at h = 5e-4: {np.round(d_small, 3)}; "
                  f"at h = 2e-3: {np.round(d_big, 3)}")

# %%
draws8 = dln.fig8_draws(seed, N_SEEDS)
data8 = [dln.fig8_data(a, b)[:2] for a, b in draws8]
sw8 = agf_claims.dln_sweep(data8, [1e-6], past=1.3)
print("AGF order per draw:", [dln.agf(Xd, yd, 1e-6).order for Xd, yd in data8])

# %%
r6 = int(np.flatnonzero(alphas8 == 1e-6)[0])
t_dense8 = np.arange(steps8 + 1) * h8
_, t_flip_gd, drops8 = agf_measure.sign_flip_and_drops(run8.time, beta8[:, r6, 0], t_dense8,
                                                      run8.dense_loss[:, r6].numpy(), agf8,
                                                      dln.eta_alpha(1e-6))
ledger.measure("fig8.dormancy", sw8,
               note=f"paper's draw: AGF τ₂ = {agf8.tau[2]:.3f}, τ₃ = {agf8.tau[3]:.3f}; "
                    f"GD (h = 2e-3) flips at {t_flip_gd:.3f}")
ledger.measure("fig8.drop-times", sw8,
               note=f"paper's draw, GD (h = 2e-3): drops {np.round(drops8, 3)} "
                    f"vs AGF {np.round(agf8.tau[1:], 3)}")
print(agf_report.rate_line(ch.rate, ["fig8.dormancy", "fig8.drop-times", "protocol.step-size"]))

# %% [markdown]
# ## Lemmas C.1–C.3, Corollary C.5, and the homogeneous-neuron identities
# For one DLN neuron under a fixed gradient $g$ the flow is $\dot u=-gv$, $\dot v=-gu$: $u^2-v^2=2\alpha^2$ is
# conserved (Lemma C.2), $\mathrm{sgn}(uv)=-\mathrm{sgn}(g)$ and $|u|=|v|$ at the maximiser with
# $\bar U^*=|g|/2$ (Lemma C.1), and $\|\theta\|^2=2\alpha^2\cosh(2|g|t)$, i.e. $S$ is a log-cosh (Lemma C.3,
# Thm C.4) and the threshold time is Corollary C.5. We integrate the flow numerically and compare. For
# general $\kappa$-homogeneous neurons: Theorem B.2's scaling symmetry
# $\theta_{\alpha\theta_0}(t)=\alpha\,\theta_{\theta_0}(\alpha^{\kappa-2}t)$ of the utility flow, the conserved
# $(\kappa-1)\|a_i\|^2-\|w_i\|^2$ under gradient flow, and "alignment is instantaneous in accelerated time
# iff $\kappa=2$". The integration itself (`dln.utility_flow_check`: DOP853 at `rtol` $10^{-12}$ against the
# closed forms) is also a unit test of the package; here it grades the rows, at $g=-1.7$, $\alpha=10^{-3}$.

# %%
ode_c = dln.utility_flow_check(-1.7, 1e-3)
ledger.grade("lemma.C1-C3-C5", **{k: ode_c[k] for k in ("e_norm", "e_cons", "e_hit", "u_err")})
ledger.grade("erratum.C2-2alpha", e_cons=ode_c["e_cons"],
             note=f"relative deviation from the printed 2α: {fmt(ode_c['e_typo'], 2)} "
                  "(by construction of this initialisation)")

# %%
gen_b = generator(seed + 5)
Xb = torch.randn(30, 4, generator=gen_b, dtype=F64)
Gb = torch.randn(30, 2, generator=gen_b, dtype=F64)
th0 = torch.randn(6, generator=gen_b, dtype=F64)
th0 = 0.1 * th0 / th0.norm()
b2_err = {}

# %%
for act_, kap in (("linear", 2), ("square", 3)):
    T_ = 2.0 if kap == 2 else 0.5
    a_s = 1e-2
    ts_ = np.linspace(0, T_ / a_s ** (kap - 2), 9)
    th_a = core.utility_flow(a_s * th0, Xb, Gb, 4, act_, ts_)
    th_1 = core.utility_flow(th0, Xb, Gb, 4, act_, a_s ** (kap - 2) * ts_)
    b2_err[kap] = float(np.max(np.abs(th_a - a_s * th_1)) / np.max(np.abs(a_s * th_1)))
ledger.grade("thm.B2-scaling", b2=max(b2_err.values()),
             note=f"κ = 2: {fmt(b2_err[2], 2)}, κ = 3: {fmt(b2_err[3], 2)}")

# %% [markdown]
# **Alignment speed.** By Theorem B.2, with $\kappa=2$ the direction of a dormant neuron converges in $O(1)$
# gradient-flow time while its jump takes $\eta_\alpha=\log(1/\alpha)$: in accelerated time the alignment is
# instantaneous. With $\kappa=3$ both scale as $1/\alpha$, so the fraction of the jump time spent aligning
# stays $O(1)$. We measure, for one neuron of each kind (same data and frozen residual as above), the fraction
# of the time to reach norm 1 during which its direction is more than 0.1 rad from the direction it has
# then: for $\kappa=2$ it should fall like $1/\log(1/\alpha)$, for $\kappa=3$ stay put. "Instantaneous" is a limit, so
# `B4.alignment` is graded as one (a **trend**): along $\alpha=10^{-4},10^{-8},\ldots,10^{-256}$ the fraction must never grow,
# fall with log–log slope at least 0.75 against $1/\log(1/\alpha)$ and shrink by at least half the factor 64 that rate gives
# (the rule of `fig3.drop-times`). The earlier criterion, "the fraction at $10^{-64}$ is $1/16$ of that at $10^{-4}$ within a
# factor 2", asked for a constant the paper does not state. Each seed draws its own data, residual and direction; the five
# neurons of one $\alpha$ are integrated together (direction and log-norm, so that $\alpha=10^{-256}$ is as easy as
# $10^{-4}$), and the fraction is read on 2001 times up to each neuron's own time to norm 1. The control is a run: the same
# seeds' neuron with $\kappa=3$ (square activation) under the plain flow, which removes the $\kappa=2$ mechanism (an earlier
# revision swapped the two neurons' roles in the rule, a swapped prediction).
# App. B.4 also proposes a neuron-wise learning rate $\eta\|\theta_i\|^{2-\kappa}$ (like RMSProp or Adam): it removes the
# norm from the directional dynamics, so a $\kappa=3$ neuron should align as fast as a $\kappa=2$ one. We grade it with
# the $\kappa=2$ trend rule unchanged, as a consistency check: for one neuron the adaptive rate is a time change of
# the plain $\kappa=3$ flow, so the plain run is the same trajectory on another clock, not a counterfactual. (Both are integrated as one norm-free system
# whose clock is reweighted by $\|\theta\|^{2-\kappa}$ for the plain flow, so that $\alpha=10^{-64}$ with $\kappa=3$ is no harder
# than $10^{-2}$.) For $\kappa=3$ the direction keeps turning until the very end —
# the directional speed grows with the norm — so it is almost never within 0.1 rad of its final direction.

# %%
# seed r: its own data, residual, direction
gens_b = [generator(seed + r + 5) for r in range(N_SEEDS)]
Xbs, Gbs, ths = agf_runs.per_seed_normals(gens_b, ((30, 4), (30, 2), (6,)))
# the α-sweep of both claims; fractions (A, S): κ = 2, κ = 3 with App. B.4's adaptive rate, plain
al2 = np.array([1e-4, 1e-8, 1e-16, 1e-32, 1e-64, 1e-128, 1e-256])
f2 = agf_measure.align_sweep(ths, Xbs, Gbs, 4, "linear", 2, al2, angle=0.1)
fa = agf_measure.align_sweep(ths, Xbs, Gbs, 4, "square", 3, al2, adaptive=True)
fc = agf_measure.align_sweep(ths, Xbs, Gbs, 4, "square", 3, al2)
k2, k3a, k3 = (agf_claims.AlignSweep(al2, f) for f in (f2, fa, fc))

# %%
ledger.measure("B4.alignment", k2, controls={"kappa3_plain": k3},
               note=f"seed 0: κ = 2 fractions {np.round(f2[:, 0], 3).tolist()}, "
                    f"κ = 3 {np.round(fc[:, 0], 3).tolist()} at α = {al2.tolist()}")
ledger.measure("B4.adaptive-rate", k3a,
               note=f"κ = 3 with the adaptive rate, seed 0: {np.round(fa[:, 0], 3).tolist()}")
agf_report.alignment_table(al2, f2[:, 0], fa[:, 0], fc[:, 0])

# %% [markdown]
# ## Fully connected linear networks (Figure 4, Conjecture 4.1)
# $f(x)=AWx$ with $c=d=H=10$, targets $y=Bx$, $x\sim\mathcal N(0,\Sigma_{xx})$. AGF here is Greedy Low-Rank
# Learning: the dormant frame aligns with the top singular pairs of $-\nabla_\beta\mathcal L(\beta_A)$
# (Lemma D.1, $U^*_i=\sigma_i/2$), the cost step is reduced-rank regression, and Conjecture 4.1 gives the
# levels $\ell_k=\tfrac12\sum_{i>k}\mu_i$ and the jump-time recursion
# $\Delta\tau_k=[1-\sum_{l\le k-2}\sigma^{(l)}_{k-l}\Delta\tau_{l+1}]/\sigma^{(k-1)}_1$; when $\Sigma_{xx}$ commutes with
# $\Sigma_{yx}^\top\Sigma_{yx}$ this is proved and $\tau_k=1/\sigma_k(\Sigma_{yx})$. Only the non-commuting run tests
# the open part. **Gradient flow**, not GD, on the exact population loss (a 10-point design with
# $\frac1n X^\top X=\Sigma_{xx}$): GD with the step $h=0.05$ of an earlier version of this chapter lags the flow by a
# relative $\approx h\sigma_1/2$ in every growth phase ($h\sigma_1\approx0.27$, a lag of about 13 % independent of $\alpha$),
# which that version attributed to AGF. `lrlib.integrate.flow` integrates the flow itself (RK45, `rtol` $10^{-8}$,
# an absolute tolerance far below the initial scale), so no step enters the graded quantities. The paper's
# initialisation $a_i\sim\mathcal N(0,\alpha^2/2c)$, $w_i\sim\mathcal N(0,\alpha^2/2d)$, so $\eta_\alpha=-\log\alpha$;
# $\alpha=10^{-3},10^{-6},10^{-9},10^{-12}$, five initialisations (seeds), both variants, in one batched
# integration, up to 1.15× the sixth predicted jump of the non-commuting case (at $\alpha=10^{-12}$; the budget of
# the build does not allow the ninth). The graded drops are those predicted inside that window. The sweep stops at
# $10^{-12}$: in float64 the dormant directions of a fully connected layer are lost in the round-off of the active
# ones below about $10^{-15}$ (an exploratory run at $10^{-24}$ and $10^{-48}$ gave error × $\eta_\alpha$ of 18 and 72: the
# later drops start from round-off, not from $\alpha$), unlike the diagonal network's separate coordinates.

# %%
# the first two drawn and step-checked; all four: the α-sweep
alphas4, h4 = np.array([1e-6, 1e-12, 1e-3, 1e-9]), 0.05
etas4 = -np.log(alphas4)
variants = {"commuting": True, "non-commuting": False}
setups4 = {k: linear.fig4_setup(seed=0, commuting=c) for k, c in variants.items()}
preds4 = {k: linear.conjecture(S, B) for k, (S, B) in setups4.items()}

# %%
# (2, 20, 10) each: ± copies keep mean xxᵀ = Σ_xx (and n ≠ c)
X4, Y4 = agf_runs.fig4_design(list(setups4.values()))
# h4 only sets the time axis; runs: (α, variant, seed)
steps4 = int(SCALE * 1.15 * preds4["non-commuting"].tau[6] * etas4[1] / h4)
p4 = agf_runs.fc_init(alphas4, 2, N_SEEDS, generator(seed + 40))
run4 = agf_runs.fc_flow(p4, X4, Y4, h4, steps4, log_schedule(steps4, 1500))
# the same flows on a clock stretched by 1.25 (the flow of 0.8·L), integrated 1.25× longer
steps4s = int(1.25 * steps4) + 1
run4s = agf_runs.fc_flow(p4, X4, Y4, h4, steps4s, log_schedule(steps4s, 1500), stretch=1.25)

# %%
# singular values (T, 4, 2, S, 10) and losses (T, 4, 2, S)
sv4 = torch.linalg.svdvals(run4.params.W2 @ run4.params.W1).numpy()
L4 = run4.loss.numpy()
# the stretched run: its recorded loss is L/1.25
sv4s = torch.linalg.svdvals(run4s.params.W2 @ run4s.params.W1).numpy()
L4s = run4s.loss.numpy() * 1.25
print(f"flow to t = {steps4 * h4:.0f}: {run4.meta['grad_evals']} gradient evaluations; "
      "predicted τ:",
      {k: np.round(v.tau[1:7], 3) for k, v in preds4.items()})

# %%
tmax = run4.time[-1] / etas4[1]
glue_seeds("agf-fig4", [agf_plots.fig4(run4.time, L4, sv4, etas4, alphas4, preds4, tmax,
                                       seed_index=r) for r in range(N_SEEDS)],
           [f"seed {r}: initialisation {r} of the figure's one data draw" for r in range(N_SEEDS)])

# %% [markdown]
# ```{glue:figure} agf-fig4
# :name: agf-fig4
#
# **Figure 4 of the paper.** Fully connected linear network, $c=d=H=10$, integrated gradient flow (the seed shown) against AGF's prediction (Conjecture 4.1, dashed black: its loss staircase; dashed vertical: its jump times). Top row commuting $\Sigma_{xx}$ (proved case), bottom row non-commuting (the open part). Left: loss at $\alpha=10^{-6}$ (dotted) and $10^{-12}$ (solid) on the accelerated clock — compare the drops with the vertical lines; the gap shrinks as $\alpha$ does. Right: singular values of $AW$ at $\alpha=10^{-12}$ (solid) against the reduced-rank solutions (dashed).
# ```

# %% [markdown]
# **Step check: is the integrated flow the flow GD approaches?** A short re-run by plain GD from the same
# initialisations (both graded $\alpha$, both variants, every seed), up to 1.15× the later second predicted jump, at
# $h=2\cdot10^{-3}$ (the premise of the Figure 4 claims: its first two drops within 1 % of the integrated flow's) and,
# for comparison, at the earlier version's $h=0.05$.

# %%
# quick mode: shorter
t_chk4 = SCALE * 1.15 * max(pr.tau[2] for pr in preds4.values()) * etas4[1]
# the first two drops at the first two α; GD at each step against the flow: (2 variants, S) each
flow_drops4 = agf_measure.fc_drops(run4.time, L4[:, :2], etas4[:2], preds4, 2)
gap4 = agf_runs.fc_step_gaps(p4, X4, Y4, t_chk4, (0.05, 2e-3), flow_drops4, etas4[:2], preds4)
agf_report.step_gap_table(gap4, list(preds4)).round(4)

# %% [markdown]
# Drop times and plateaus against the conjecture, for each seed. The drop times are graded as the limit they are
# (`fig4.times-*`, a **trend** over the four $\alpha$ with the rule of `fig3.drop-times`: the error never grows towards
# the limit, falls with slope at least 0.75 against $1/\eta_\alpha$ over the three deepest $\alpha$ and shrinks by at
# least half the factor 4 that rate gives); the plateaus keep the tolerance $1/\eta_\alpha$ at $\alpha=10^{-6}$ and
# $10^{-12}$, fixed before the first run. Levels and spectra are separate statements, graded apart (`fig4.levels-*`,
# `fig4.spectra-*`), and both are read between the flow's **own** drops, as every plateau in this chapter is
# (`lrlib.measure.plateau_between`: the median over the middle half of the interval between consecutive mid-level
# drops; for the spectra, of each singular value over the same window). The control of the non-commuting levels
# and of both spectra is the plain linear model $\dot\beta=-(\beta-B)\Sigma_{xx}$ from $\beta=0$ ($\beta$ standing
# for $AW$; closed form, `agf_claims.fc_linear_model`) read on the same clocks: as in Figure 3 it removes the slow
# clock itself, and it is one deterministic curve shared by every seed (Figure 4's data are one draw; the seeds are
# initialisations). The timing rows `fig4.times-*` are **consistency checks**: read on $t/\eta_\alpha$ the linear
# model's times are $t_\text{raw}/\eta_\alpha\to0$, so it fails them by construction and was no control. The issue's
# control, the same flows on a clock **stretched by 1.25** (the flow of $0.8\,\mathcal L$, integrated 1.25 times
# longer: `fc_flow(..., stretch=1.25)`), is run and read by the same measurement (printed below and in the rows'
# notes): its error settles near the clock's 25 % instead of shrinking. It is the main flow with its time axis
# multiplied by 1.25 — the mechanism is intact — so it shows that the rule rejects an $\alpha$-independent error,
# not that the mechanism is needed; the rows stay consistency checks.
# (An earlier revision held the flow from $\alpha=0.1$ to the tolerances of the graded $\alpha$.)

# %%
for j, (name, pr) in enumerate(preds4.items()):
    K = int((pr.tau[1:] < tmax / 1.1).sum())
    Lj, sj = L4[:, :, j], sv4[:, :, j]
    et, _ = agf_measure.staircase_errors(run4.time, Lj, sj, etas4, pr, K)
    el, es = agf_measure.plateaus_between_own_drops(run4.time, Lj, sj, etas4, pr, K)
    fc4 = agf_claims.FCSweep(run4.time, Lj, sj, alphas4)
    # control: the plain linear model
    lin4 = agf_claims.fc_linear_model(*setups4[name], run4.time, alphas4, N_SEEDS)
    kw4 = dict(premises=dict(step_gap=gap4[2e-3][j]), pred=pr, K=K)
    fc4s = agf_claims.FCSweep(run4s.time, L4s[:, :, j], sv4s[:, :, j], alphas4)
    tr4s = agf_claims.fc_time_trend(fc4s, pred=pr, K=K)
    note4 = agf_report.fig4_times_note(gap4[0.05][j], K, et, etas4, alphas4)
    ledger.measure(f"fig4.times-{name}", fc4, **kw4,
                   note=note4 + "; " + agf_report.stretched_note(tr4s, ("slope", "shrink")))
    for what in ("levels", "spectra"):
        ctl4 = None if (what, name) == ("levels", "commuting") else {"linear_model": lin4}
        ledger.measure(f"fig4.{what}-{name}", fc4, controls=ctl4, **kw4,
                       note=f"first {K - 1} plateaus, read between the flow's own drops")
    print(agf_report.fig4_summary(name, K, et, el, es, etas4))
    print(" ", agf_report.stretched_note(tr4s, ("mono", "slope", "shrink")))

# %% [markdown]
# What we see (the per-seed numbers are printed above; the verdicts are in the ledger at the end). The step check
# comes first: GD at $h=2\cdot10^{-3}$ lands on the integrated flow (its first two drops within the printed fraction of a
# per cent), so the integrated flow is the flow that GD approaches as $h\to0$, while GD at the earlier $h=0.05$ is off
# it by several per cent (the table above; more for the commuting run, whose $\sigma_1$ is larger) — the step, not AGF. With the step's lag removed, the flow's
# drop times are later than the recursion by what remains of AGF's own
# $O(1/\eta_\alpha)$ corrections and the random initialisation; the errors fall like $1/\eta_\alpha$ along the sweep, with a
# constant error × $\eta_\alpha$ between about 1 and 2.5 (the ledger's note gives its median per $\alpha$), so they stay above
# the $1/\eta_\alpha$ tolerance an earlier revision fixed, which asked for a constant the paper does not state.
# Every level and spectrum of the commuting run sits on the reduced-rank solutions. The non-commuting plateaus sit on
# the conjecture's *levels*, but the spectrum of $AW$ there is not yet the reduced-rank solution's (errors of about
# 0.15–0.19 of $\sigma_1$, printed above, shrinking slowly with $\alpha$): $\Sigma_{xx}$'s eigenvalues go down to $10^{-2}$,
# so the cost minimisation is not instantaneous on the accelerated clock, and the flow rests at the right loss before
# its map has converged. (An earlier revision graded the larger of the two errors at the conjecture's predicted plateau
# middles, and so reported the level as missed.)

# %% [markdown]
# Lemma D.1 for one neuron (maximal normalised utility $\sigma_1/2$) and in its Stiefel form ($m=3$ neurons whose unit
# vectors are orthonormal reach $\sum_{i\le3}\sigma_i/2$, by Riemannian ascent with a QR retraction), and App. B.3's conserved
# quantity along the integrated flow.

# %%
Syx = setups4["non-commuting"][1] @ setups4["non-commuting"][0]
Mt = torch.tensor(Syx)
theta0_D1 = torch.randn(20, generator=generator(seed + 41), dtype=F64)
uD1, _ = agf_measure.maximise_on_sphere(lambda th: th[:10] @ Mt @ th[10:], theta0_D1, lr=0.02,
                                        steps=3000)
s1 = np.linalg.svd(Syx, compute_uv=False)[0]
ledger.grade("lemma.D1", rel=abs(uD1 - s1 / 2) / (s1 / 2))
s3 = np.linalg.svd(Syx, compute_uv=False)[:3].sum() / 2

# %%
# three orthonormal neurons
uD3, _ = agf_measure.maximise_on_stiefel(Syx, 3, seed=seed)
ledger.grade("lemma.D1-stiefel", rel=abs(uD3 - s3) / s3)
# the graded α only
drift4 = core.conserved_drift(run4.params[:, :2], 2)
ledger.grade("B3.conserved", drift=drift4)

# %% [markdown]
# ## Attention-only linear transformer (Figure 5)
# In-context linear regression with $d=4$, $N=32$, $\mathrm{tr}\,\Sigma=2$ with eigenvalues $\propto(1,\frac12,\frac13,\frac14)$,
# $H=5$ rank-one heads $\hat y=\sum_hV_h(z^\top K_h)(Q_h^\top x_q)$, $z=\sum_ny_nx_n$ (each head a $\kappa=3$ neuron,
# $\eta_\alpha=1/\alpha$). AGF: heads align with the eigenvectors $v_k$ one by one (Lemma E.1,
# $\bar U^*_k=N\lambda_k^2/(3\sqrt3)$), the $k$-th learns $A_k=1/(\mathrm{tr}\Sigma+(N+1)\lambda_k)$ (Lemma E.2), the levels are
# Eq. 7, and the $k$-th jump comes no earlier than $\sqrt3/(\eta_\alpha N\lambda_k^2\mu^{(k-1)})$ after the previous one,
# $\mu^{(k-1)}$ the largest dormant norm then. AGF's jump times depend on the initialisation ($\kappa=3$: the heads turn
# while they grow), so we simulate it from each seed's initialisation (`transformer.agf_heads`: each dormant head follows
# its utility flow, integrated as direction and log-norm, until the first reaches norm 1; the cost step is taken in closed
# form, Lemma E.2, so its levels are Eq. 7's). GD on the exact population loss $\mathcal L(\Gamma)$ (closed form; the
# recorded loss is the 16-point design's plus its constant), $\alpha=10^{-3}$, $h=0.01$, over seeds. The heads
# enter `train` as tied pairs of square neurons (`lrlib.theory.agf.models`).

# %%
Sig5 = transformer.fig5_sigma(seed=seed)
pred5 = transformer.predict(Sig5, 32)
_, _, c5 = transformer.design(Sig5, 32)
alpha5, h5 = 1e-3, 0.01
steps5 = int(SCALE * 100_000)
g5 = generator(seed + 50)

# %%
V5, K5, Q5 = agf_runs.heads_init(alpha5, N_SEEDS, 5, 4, g5)
run5 = agf_runs.heads_gd(V5, K5, Q5, Sig5, 32, h5, steps5, log_schedule(steps5, 500))

# %%
# population loss (steps+1, R) and Γ (T, R, 4, 4)
L5 = run5.dense_loss.numpy() + c5
Gam5 = agf_models.heads_gamma(run5.params).numpy()
agf5 = [transformer.agf_heads(V5[r].numpy(), K5[r].numpy(), Q5[r].numpy(), Sig5, 32, alpha5)
        for r in range(N_SEEDS)]
# (S, 5) τ → GD steps
agf5_steps = np.array([a.tau / alpha5 / h5 for a in agf5])
print("levels", np.round(pred5.levels, 5), "A_k", np.round(pred5.A, 5),
      "; AGF jumps (seed 0, steps)", np.round(agf5_steps[0, 1:]).astype(int))

# %%
s_idx = np.arange(steps5 + 1)
hr5 = agf_runs.heads_view(run5, pred5, c5, h5)
# v_kᵀ Γ v_k (T, R, 4); GD's drops and the jump bounds (S, 4) in steps
proj5 = hr5.proj
drops5 = agf_claims_mod.run_drops(hr5, pred5)
bounds5 = agf_claims_mod.fig5_bound_steps(hr5, pred=pred5)

# %%
figs5 = [agf_plots.fig5(s_idx, L5, run5.steps, proj5, pred5, bounds5[r], agf5_steps[r],
                        agf5[r].levels, steps5, seed_index=r) for r in range(N_SEEDS)]
glue_seeds("agf-fig5", figs5,
           [f"seed {r}: GD's drops {np.round(drops5[r]).tolist()} vs bounds "
            f"{np.round(bounds5[r]).tolist()}; simulated AGF's jumps "
            f"{np.round(agf5_steps[r, 1:]).tolist()} (GD steps)" for r in range(N_SEEDS)])

# %% [markdown]
# ```{glue:figure} agf-fig5
# :name: agf-fig5
#
# **Figure 5 of the paper.** Attention-only linear transformer ($d=4$, $N=32$, 5 heads, $\alpha=10^{-3}$), GD on the population loss, all seeds. (a) Loss against GD step, log–log: dotted lines are Eq. 7's levels, dashed vertical lines the jump lower bounds (the seed shown), the dashed black staircase is AGF simulated from that seed's initialisation — compare its jumps with GD's drops (numbers under the figure). (b) $v_k^\top\Gamma v_k$ for each eigenvector (the seed shown opaque): each rises to $A_k$ (dotted) after its arrow (the bound).
# ```

# %%
# step premise: the same seeds at twice the step, up to 1.3× the latest first drop
# (GD's error is O(h): the change from h to 2h is about the error at h itself)
first5 = np.nanmax(drops5[:, 0]) if np.isfinite(drops5[:, 0]).any() else steps5
steps5b = int(min(1.3 * first5, steps5) / 2)
run5b = agf_runs.heads_gd(V5, K5, Q5, Sig5, 32, 2 * h5, steps5b, [0, steps5b])

# %%
t5b = 2 * np.arange(steps5b + 1.0)
drop1_2h = np.array([drop_times(t5b, run5b.dense_loss[:, r].numpy() + c5, pred5.levels[:2])[0]
                     for r in range(N_SEEDS)])
step_gap5 = relative_error(drop1_2h, drops5[:, 0])
print("first drop (steps of h) at h:", np.round(drops5[:, 0]), "at 2h:", np.round(drop1_2h),
      "relative change", np.round(step_gap5, 4))
agf_gd5 = np.nanmax(relative_error(drops5, agf5_steps[:, 1:]), axis=1)
print("simulated AGF's jumps against GD's drops, largest relative difference per seed "
      "(not graded):", np.round(agf_gd5, 4))

# %% [markdown]
# **Plateau values, not closest approach (a rule change).** An earlier version graded the levels of Figures 5
# and 6 by the closest approach $\min_t|L(t)/\ell_k-1|$, which is $\approx0$ for any loss curve that passes the level
# on its way down — a perturbed prediction passed it. We now read GD's plateau value between its own consecutive
# drops (the median over the middle half of the interval, `lrlib.measure.plateau_between`), as Figures 3–4 do, with
# the same 2 % tolerance; the ledger records the change.
#
# **The control run.** The same heads, from the same directions, at $\alpha=0.3$ instead of $10^{-3}$ (5000 steps):
# the head norms start near 1, so there is no dormant phase and no saddle to rest at. It removes the mechanism of all
# claims below: its loss falls through Eq. 7's levels without resting on them (drawn; `fig5.levels` is a consistency
# check: a plateau matches Eq. 7 by the same algebra wherever it is resolved, and its end point is the same $\Gamma^*$), and it learns the eigenvectors together (`fig5.order`). Larger eigenvalues are still learned
# first by any gradient method, this run included, so `fig5.order` grades the order *and* that the heads come one at a
# time: when $v_k^\top\Gamma v_k$ reaches $A_k/2$ the next one must still be below a tenth of $A_{k+1}$ (`overlap`). The
# jump bound is proved for AGF, not for the flow or GD (at margins 1.04–1.17 GD could violate it), and the
# large initialisation, which leaves the premise, violates it in some seeds only, so `fig5.jump-bound` is a
# consistency check for lack of a counterfactual run, and shows its margin.

# %%
# α = 0.3, the same directions
V5b, K5b, Q5b = (a * 0.3 / alpha5 for a in (V5, K5, Q5))
run5_big = agf_runs.heads_gd(V5b, K5b, Q5b, Sig5, 32, h5, 5000, log_schedule(5000, 200))
hr5_big = agf_runs.heads_view(run5_big, pred5, c5, h5)
kw5 = dict(premises=dict(step_gap=step_gap5), pred=pred5)
ledger.measure("fig5.levels", hr5, **kw5)
ledger.measure("fig5.jump-bound", hr5, **kw5,
               note=f"seed 0: drops {np.round(drops5[0]).astype(int).tolist()} "
                    f"vs bounds {np.round(bounds5[0]).astype(int).tolist()} (steps)")
ledger.measure("fig5.order", hr5, controls={"heads_large_init": hr5_big}, **kw5)

# %%
theta0_E1 = torch.randn(9, generator=generator(seed + 51), dtype=F64)
uE1, thE1 = agf_measure.maximise_on_sphere(lambda th: transformer.head_utility_flat(th, Sig5, 32),
                                           theta0_E1, lr=0.002, steps=2000 if quick else 5000)

# %%
ledger.grade("lemma.E1", u_rel=abs(uE1 / pred5.u_star[0] - 1),
             v_err=abs(abs(float(thE1[0])) - 1 / math.sqrt(3)))

# %% [markdown]
# **Does the population loss change the result?** The authors train on fresh batches of 8192 prompts. Our
# loss is the expectation of theirs, evaluated exactly. A Monte Carlo estimate of the loss at the final
# GD iterate (and at the first plateau) with $10^5$ sampled prompts must agree with the population value
# to within its sampling error.

# %%
rs5 = np.random.RandomState(seed + 52)
# the middle of seed 0's first plateau (nan in quick mode: the last snapshot)
mid5 = 0.5 * (drops5[0, 0] + drops5[0, 1])
i_pl = min(int(np.searchsorted(run5.steps, mid5)), len(run5.steps) - 1)
mc5 = [(transformer.monte_carlo_loss(Gam5[i, 0], Sig5, 32, 20_000 if quick else 100_000, rs5),
        float(transformer.population_loss(Gam5[i, 0], Sig5, 32))) for i in (i_pl, -1)]
ledger.grade("protocol.population", mc_err=max(abs(m / q - 1) for m, q in mc5),
             note="; ".join(f"Monte Carlo {m:.4f} vs population {q:.4f}" for m, q in mc5))

# %% [markdown]
# ## Modular addition with a quadratic network (Figure 6)
# Input $(a\cdot x,b\cdot x)$ ($a\cdot x$ the cyclic shift of a centred template $x\in\mathbb R^p$), neurons
# $f_i=w_i(\langle u_i,a\cdot x\rangle+\langle v_i,b\cdot x\rangle)^2$ ($\kappa=3$), target $(a+b)\cdot x$, mean over all $p^2$ pairs.
# AGF (Lemma F.2, Theorem F.3): dormant neurons specialise to the dominant remaining frequency $\xi$ with
# $\bar U^*=\sqrt{2/(27p^3)}\,|\hat x[\xi]|^3$ and the phase condition $s_u+s_v-s_w-s_x\equiv0$; frequencies are learned in
# decreasing order of $|\hat x[\xi]|$; the levels are $\ell_k=\frac1{2p}\sum_{\text{unlearned}}|\hat x[k]|^2$ (Eq. 9). Authors'
# setup: $p=20$, $\hat x[\pm1,\pm3,\pm5]=10,5,2.5$, $H=18$, $u,v\sim\mathcal N(0,\alpha^2/2p)$, $w\sim\mathcal N(0,\alpha^2/p)$,
# heavy-ball momentum 0.9; their `nn.MSELoss` step 0.01 is our $h=10^{-3}$ (same iterates), i.e. $t\approx0.01$ per step.
#
# **Gradient flow, not the authors' GD.** AGF is a theory of gradient flow, and the authors' momentum GD is their
# stand-in for it. An earlier version of this chapter ran that GD (25 000 steps, flow time about 250, $\alpha=0.1$) and
# found that doubling its step moved the first two drops by 11–14 %, so its drop times were not the flow's and neither
# AGF's times nor the lower bounds could be graded (*premise not met* in every seed). We integrate the flow itself, at
# the paper's $\alpha=10^{-2}$, over flow time $0\le t\le3000$; the time axis is flow time $t$ (the authors' step
# corresponds to $t=0.01$). The flow is cheap on the first plateau but **stiff** once a frequency is learned: the learned
# neurons sit in a steep valley while the dormant ones creep, and an explicit solver's step is then limited by the
# valley's curvature, not by accuracy (a few hundred gradient evaluations per unit of flow time; the version of this
# chapter that integrated $\alpha=0.1$ with RK23 needed about $6\cdot10^4$ for $t\le250$, and $\alpha=10^{-2}$ would need ten
# times the flow time). The implicit method of `lrlib.integrate.flow` (BDF, `rtol` $10^{-6}$, float64) takes steps set by
# accuracy alone; it needs the loss's Hessian (`agf_models.square_hessian`, closed form, tested against autograd),
# solves one seed at a time, and works in the coordinates of the inputs' row space (rank 12 of 40 here: only the
# template's six frequencies reach the neurons), so each solve is a $576\times576$ system. The counts are printed below. We
# also run the general AGF (κ = 3, utility flow on the sphere, cost minimisation by the authors' momentum GD for 1000
# steps per phase) from each seed's initialisation. The drop lower bounds are **our** non-recursive
# simplification $t_k\ge(1/\|\theta_0\|-1)/(3\bar U^*_k)$ with $\|\theta_0\|=\sqrt2\alpha$ of the paper's argument
# (Eq. 9 via App. E.3, which uses the largest dormant norm at the previous drop and, before phase $k$, only
# $\bar U^*_1$); for $k\ge2$ it does not follow from E.3, so `fig6.bounds` grades our formula, not the paper's.

# %%
p6, H6, alpha6 = 20, 18, 0.01
# the integrator's tolerance (quick mode: looser, not graded)
rtol6 = 1e-5 if quick else 1e-6
x6 = modular.template(p6, {1: 10.0, 3: 5.0, 5: 2.5})
pred6 = modular.predict(x6)
X6, Y6 = (torch.tensor(a) for a in modular.dataset(x6))
g6 = generator(seed + 60)

# %%
U6, V6, W6 = agf_runs.modular_init(alpha6, N_SEEDS, H6, p6, g6)
# flow time t = 0.01 s ≤ 3000 (s: the authors' momentum steps)
steps6, DT6 = int(SCALE * 300_000), 0.01
rec6 = log_schedule(steps6, 400)
run6 = agf_runs.modular_flow(U6, V6, W6, X6, Y6, DT6, steps6, rec6, rtol=rtol6, atol=1e-13)
L6 = run6.loss.numpy()  # (T, R) at run6.time

# %%
# outputs (T, R, p², p), their power per frequency (T, R, p//2+1), the jump bounds (flow time)
out6 = net_forward(run6.params, X6)
pow6 = modular.output_power(out6, p6).numpy()
bound6 = pred6.jump_bound(alpha6)
print(f"flow to t = {run6.time[-1]:g}: {run6.meta['grad_evals']} gradient evaluations and "
      f"{run6.meta['hessian_evals']} Hessians ({N_SEEDS} seeds)")
print("order", pred6.order, "levels", pred6.levels, "Ū*", np.round(pred6.u_star, 5),
      "bounds (t)", np.round(bound6, 2))
# AGF's cost step: the authors' momentum GD, per phase
h6, mom6, cost6 = 1e-3, 0.9, 200 if quick else 1000

# %%
def mod_cost(net):
    return train(net, X6, Y6, loss=LOSS, lr=h6, momentum=mom6, steps=cost6,
                 record=np.arange(0, cost6 + 1, 20), grad_fn=agf_models.modular_grad_fn(p6),
                 progress=False)


def agf6_of(r):
    return core.agf(agf_models.modular_params(U6[r], V6[r], W6[r]), X6, Y6, loss=LOSS, kappa=3,
                    eta=1 / alpha6, cost_fn=mod_cost, dormant_tol=0.02,
                    tau_max=run6.time[-1] * alpha6, dtau_max=0.05)


agf6_all = [agf6_of(r) for r in range(N_SEEDS)]
agf6 = agf6_all[0]

# %%
# accelerated τ → flow time; the output power per seed (K+1, p//2+1)
agf6_t = agf6.tau / alpha6
agf6_pows = [np.stack([modular.output_power(net_forward(n, X6), p6).numpy() for n in a.nets])
             for a in agf6_all]
print("simulated AGF: jumps (flow time)", np.round(agf6_t[1:], 2), "levels",
      np.round(agf6.levels, 4))

# %%
# the (a, b) pair of panel (c)
pair6 = int(torch.randint(0, p6 * p6, (1,), generator=generator(seed + 61)))
out6n, W6n = out6.numpy(), run6.params.W2.transpose(-1, -2).numpy()        # W6n: (T, R, H, p)
figs6 = [agf_plots.fig6(run6.time, L6, bound6, agf6_all[r].tau / alpha6, agf6_all[r].levels,
                        agf6_pows[r], pow6, pred6, out6n, Y6.numpy(), W6n[:, r], pair6, alpha6,
                        seed_index=r) for r in range(N_SEEDS)]
glue_seeds("agf-fig6", figs6, [f"seed {r}: simulated AGF's jumps at t = "
                               f"{np.round(agf6_all[r].tau[1:] / alpha6, 1).tolist()}"
                               for r in range(N_SEEDS)])

# %% [markdown]
# ```{glue:figure} agf-fig6
# :name: agf-fig6
#
# **Figure 6 of the paper** (a–c). Modular addition, $p=20$, $H=18$, $\alpha=10^{-2}$, integrated gradient flow. (a) Loss against flow time $t$ (the authors' momentum step is $t=0.01$), all seeds, with Eq. 9's levels (dotted), the drop lower bounds (dashed vertical) and the simulated AGF of the seed shown (dashed black staircase). (b) Output power per frequency (the seed shown; dashed: AGF; dotted: target): frequencies 1, 3, 5 should appear in that order. (c) One prediction against its target at four times, with the frequencies the large neurons carry.
# ```

# %%
Wf = W6n[-1, 0]                                                      # (H, p) seed 0 at the end
Uf, Vf = run6.params.W1[-1, 0, :, :p6].numpy(), run6.params.W1[-1, 0, :, p6:].numpy()
dom6 = [modular.dominant_frequency(torch.tensor(W6n[-1, r])).numpy() for r in range(N_SEEDS)]
glue_seeds("agf-fig6d", [agf_plots.fig6d(W6n[-1, r], pred6.order) for r in range(N_SEEDS)],
           [f"seed {r}: neurons per dominant frequency "
            f"{ {int(k): int((dom6[r] == k).sum()) for k in np.unique(dom6[r])} }"
            for r in range(N_SEEDS)])

# %% [markdown]
# ```{glue:figure} agf-fig6d
# :name: agf-fig6d
#
# **Figure 6 (d) of the paper.** The neurons of the seed shown at the end of the integrated flow ($t=3000$): rows $w_i$ coloured by dominant frequency, their power spectra (each row should be one frequency), and the phase of $\hat w_i$ at that frequency.
# ```

# %% [markdown]
# **Integrator premise.** The flow stands in for nothing, but its integration has a tolerance. We re-integrate the
# same batch at a 10× tighter `rtol` (and `atol`), up to 1.3× the latest second drop, on the same record grid. The
# timing claims (AGF against the flow, the lower bounds) require the first two drops to move by less than 1 %; the
# order and level claims require the same order of the first two frequencies and an $\ell_1$ plateau value that
# moves by less than 1 % (half the level tolerance). (At the authors' step, the earlier GD version's premise was a
# doubled step; the order and level premises had been moved from the drop times to the graded quantities after its
# first full run — both changes are recorded in the ledger.)

# %%
# (S, 3) flow time
drops6 = np.array([drop_times(run6.time, L6[:, r], pred6.levels) for r in range(N_SEEDS)])
second6 = np.nanmax(drops6[:, 1]) if np.isfinite(drops6[:, 1]).any() else run6.time[-1]
# the same record grid, up to 1.3× the latest second drop, at a tenth of the tolerance
rec6b = rec6[rec6 <= min(1.3 * second6, run6.time[-1]) / DT6]
run6b = agf_runs.modular_flow(U6, V6, W6, X6, Y6, DT6, int(rec6b[-1]), rec6b, rtol=rtol6 / 10,
                              atol=1e-14)
pow6b = modular.output_power(net_forward(run6b.params, X6), p6).numpy()  # (T, R, p//2+1)

# %%
drops6b = np.array([drop_times(run6b.time, run6b.loss[:, r].numpy(), pred6.levels[:3])
                    for r in range(N_SEEDS)])
tol_gap6 = np.max(relative_error(drops6b, drops6[:, :2]), axis=1)
print(f"first two drops at rtol {rtol6:g}:", np.round(drops6[:, :2], 3).tolist(),
      f"at {rtol6 / 10:g}:", np.round(drops6b, 3).tolist(),
      "largest relative change per seed:", [fmt(v, 2) for v in tol_gap6],
      f"({run6b.meta['grad_evals']} gradient evaluations)")

# %%
# (S, 2): ℓ₁, ℓ₂
plat6 = np.array([plateau_between(run6.time, L6[:, r], drops6[r]).level for r in range(N_SEEDS)])
mf6 = agf_claims_mod.ModularFlow(time=run6.time, loss=L6, power=pow6)

# %%
order_same6 = np.zeros(N_SEEDS)
for r in range(N_SEEDS):
    o_h = agf_measure.activation_order(run6.time, pow6[:, r, pred6.order[:2]], pred6.amps[:2])
    o_t = agf_measure.activation_order(run6b.time, pow6b[:, r, pred6.order[:2]], pred6.amps[:2])
    order_same6[r] = float(len(o_h) == 2 and o_h == o_t)
plat6b = np.array([plateau_between(run6b.time, run6b.loss[:, r].numpy(), drops6b[r]).level[0]
                   for r in range(N_SEEDS)])

# %%
level_gap6 = relative_error(plat6b, plat6[:, 0])

# %% [markdown]
# **The control run.** The same flow from the same directions at $\alpha=1$ instead of $10^{-2}$ (neuron norms about 1.4,
# integrated to $t=20$): no dormant phase, the random network's output already carries every frequency. It removes
# the mechanism of `fig6.order` and `fig6.levels`: its loss falls from above $\ell_0$ without resting on Eq. 9's levels,
# and its frequencies are present together. As for Figure 5, the order alone is no evidence (larger amplitudes are
# learned first by other initialisations too), so `fig6.order` also grades that the frequencies come one at a time
# (`overlap`: the next frequency's output power, over its target, when the previous one reaches half of its own).
# `fig6.levels` reads each plateau over the middle half of the interval between drops in **log** time (the drops
# are ×8–9 apart, so the linear middle half lies late in the plateau), with a premise that the loss moves by at
# most the rule's 2 % inside the window (`flat`); its step premise still reads $\ell_1$ in linear time.
# There is no counterfactual run for `fig6.agf-vs-gd` (AGF needs every neuron's norm below 1, and from
# $\alpha=0.5$ our simulation makes no jump within the run), nor for `thmF3.phase` (the constraint is the imaginary
# part of fitting the target's harmonic with its phase, so any network that fits meets it): both are consistency
# checks now. **Figure or theorem.** These rows run the authors' figure ($p=20$, $H=18$), outside the theory:
# Theorem F.3 needs $p$ odd ($H\ge3p$ is §5's summary for the whole picture): they reproduce the figure. The theorem's setting ($p=11$, $H=33=3p$) is graded in
# the last section: `H3p.all-frequencies` (order and zero loss), `thmF7.cost-step`, `lemmaF6.utility-update`.

# %%
# α = 1, the same directions, t ≤ 20
U6b, V6b, W6b = U6 / alpha6, V6 / alpha6, W6 / alpha6
run6_big = agf_runs.modular_flow(U6b, V6b, W6b, X6, Y6, DT6, 2000, log_schedule(2000, 100),
                                 rtol=rtol6, atol=1e-13)
pow6_big = modular.output_power(net_forward(run6_big.params, X6), p6).numpy()
mf6_big = agf_claims_mod.ModularFlow(time=run6_big.time, loss=run6_big.loss.numpy(), power=pow6_big)
ledger.measure("fig6.order", mf6, controls={"flow_large_init": mf6_big},
               premises=dict(order_same=order_same6), pred=pred6)

# %%
# level, low, high (S, 2) each: the log-time windows
pl6 = agf_claims_mod.plateaus(mf6, pred6, log_time=True)
ledger.measure("fig6.levels", mf6, controls={"flow_large_init": mf6_big},
               premises=dict(level_gap=level_gap6), pred=pred6,
               note=f"ℓ₁ plateau moves by {[fmt(v, 2) for v in level_gap6]} "
                    f"at rtol {rtol6 / 10:g}; "
                    "log-time windows, level/low/high per seed: "
                    + agf_report.plateau_windows(pl6))
# AGF's drops (S, 3) in flow time
agf_cross6 = np.array([agf_measure.staircase_drop_times(a.tau / alpha6, a.levels, pred6.levels)
                       for a in agf6_all])

# %%
# nan if a drop is missing
err6 = np.max(relative_error(drops6, agf_cross6), axis=1)
ledger.measure("fig6.agf-vs-gd", mf6, premises=dict(tol_gap=tol_gap6), pred=pred6,
               agf_drops=agf_cross6,
               note=f"seed 0: flow drops {np.round(drops6[0], 2).tolist()} "
                    f"vs AGF {np.round(agf_cross6[0], 2).tolist()} (flow time)")
ledger.grade("fig6.bounds", margin=np.min(drops6 / bound6[None, :], axis=1), tol_gap=tol_gap6,
             note=f"bounds {np.round(bound6, 2).tolist()} (flow time); the bound of α/10 is "
                  f"{np.round(pred6.jump_bound(alpha6 / 10) / bound6, 1).tolist()}× later")

# %%
ph0 = agf_measure.neuron_phase_residuals(Uf, Vf, Wf, x6)
big0 = ph0["norm"] > 0.3 * ph0["norm"].max()
ledger.measure("thmF3.phase", run6.at(-1), init=run6.at(0), x=x6, freqs=pred6.order,
               note="seed 0, per-neuron residuals of the large neurons (not constrained by the "
                    "theorem after cost minimisation): "
                    f"max {np.max(np.abs(ph0['res'][big0])):.2f} rad")

# %%
# GD (with or without momentum) is not the flow: test the O(h) vanishing of the drift instead,
# from the network at the end of the run, over the same GF time at h and h/2 without momentum;
# h = 1/λ_max (half GD's stability limit 2/λ_max, λ_max the largest Hessian eigenvalue over the
# seeds at the end of the flow). Changed after the first full run at α = 1e-2: the fixed steps
# used before (h = 2e-3 and 1e-3) made GD diverge from that steeper network, so the check could
# not be computed (recorded in the claim's history; the rule is unchanged)
p_mid = run6.at(-1)
lam6 = agf_models.max_hessian_eigenvalue(p_mid, X6, Y6)
drift6 = []
for h_ in (1 / lam6, 0.5 / lam6):
    tr_ = train(p_mid, X6, Y6, loss=LOSS, lr=h_, steps=round(2.0 / h_), record=20,
                grad_fn=agf_models.modular_grad_fn(p6), progress=False)
    drift6.append(core.conserved_drift(tr_.params, 3, ref=0))

# %%
ledger.grade("B3.conserved-k3", ratio=drift6[0] / drift6[1], drift=drift6[0],
             note=f"λ_max {lam6:.4g}; drift over GF time 2: {fmt(drift6[0], 3)} "
                  f"at h = {1 / lam6:.3g}, {fmt(drift6[1], 3)} at h/2")
slack = [core.norm_bound_slack(run4.params, 2), core.norm_bound_slack(run6.params, 3)]
ledger.grade("B3.inequality", worst=max(slack),
             note=f"largest slack: Figure 4 flow {slack[0]:.3g}, Figure 6 flow {slack[1]:.3g}")

# %% [markdown]
# **Phases (a rule change).** Theorem F.3's condition $s_u+s_v-s_w-s_x\equiv0$ is a property of the utility *maximiser*
# (checked exactly in the next cell). An earlier version tested it on trained neurons one by one and
# published it as not reproduced; but after cost minimisation the paper leaves each neuron's phases free
# subject to $\sum_iA_u^iA_v^iA_w^i\sin(s_u^i+s_v^i-s_w^i-s_x)=0$ per frequency, so that rule tested something the
# theory does not claim for a trained network. The claim now grades the constraint (relative to $\sum_iA_i$,
# within 5 %), with the network at initialisation shown beside it; the per-neuron residuals stay in the note. It is a
# consistency check: the constraint is what fitting the target's harmonic with its phase means (see the control run above).

# %%
xF = modular.template(11, {1: 4.0, 2: 6.0, 4: 1.0})
predF = modular.predict(xF)
XF, YF = (torch.tensor(a) for a in modular.dataset(xF))


def util_F(th):
    f = (XF[:, :11] @ th[:11] + XF[:, 11:22] @ th[11:22]) ** 2
    return (f * (YF @ th[22:])).mean()

# %%
theta0_F = torch.randn(33, generator=generator(seed + 70), dtype=F64)
uF, thF = agf_measure.maximise_on_sphere(util_F, theta0_F, lr=0.02, steps=2000 if quick else 4000)
thF = thF.numpy()
rsF = np.random.RandomState(seed)
uvw = rsF.randn(3, 11)
f2_direct = modular.direct_utility(*uvw, xF)
f2_err = abs(modular.fourier_utility(*uvw, xF) - f2_direct) / abs(f2_direct)
phF = [np.angle(np.fft.fft(t)[predF.order[0]]) for t in (thF[:11], thF[11:22], thF[22:], xF)]

# %%
resF = abs((phF[0] + phF[1] - phF[2] - phF[3] + np.pi) % (2 * np.pi) - np.pi)
ledger.grade("lemma.F2-thm.F3", f2=f2_err, u_rel=abs(uF / predF.u_star[0] - 1), res=resF,
             norm_err=max(abs(np.linalg.norm(b) - 1 / math.sqrt(3))
                          for b in (thF[:11], thF[11:22], thF[22:])))

# %% [markdown]
# ## The cost step and the width (Theorem F.7, Lemma F.6, $H\ge3p$)
# Our copy of the paper has lost the statements of Lemma F.6 and Theorem F.7; we grade what the surrounding text
# uses them for. **Theorem F.7**: a group of $N\ge6$ neurons aligned with the harmonic of the dominant frequency $\xi$,
# minimising the loss while staying aligned (the paper's assumption), outputs exactly the $\pm\xi$ part of the target,
# so the loss falls to $\ell^{(1)}$. **Lemma F.6** (with the lemmas after the theorem): a new dormant neuron then sees
# Lemma F.2's utility for the template with $\pm\xi$ removed. **Width**: a network with $H\ge3p$ learns every frequency,
# in decreasing order of $|\hat x[\xi]|$, down to zero loss. For the cost step we run gradient descent restricted to
# the harmonic (the gradient projected on it, `agf_models.harmonic_grad_fn`) from random amplitudes and phases, per
# seed, with $N=6$, and beside it the first four of the same neurons ($N=4$, below the premise: a square
# neuron also writes spurious harmonics that only enough phases cancel). The projection imposes the alignment, so
# `thmF7.cost-step` holds to round-off: a consistency check. Its step premise reruns at half the step.
# The width claim runs the paper's $\alpha=10^{-2}$ with $H=3p$, and beside it $H=6$ (the first six neurons of
# the same draws: three neurons per frequency; it stops on the last plateau, shown in the note. Why is not measured:
# at $p=5$ below, $H=11$ — fewer than Theorem F.7's six per frequency — learns both frequencies, so neither $H\ge3p$
# nor the count of six explains the failure, and $H=6$ is no control: the row is a consistency check); its step premise reruns at twice the step. `lemmaF6.utility-update` is a consistency check: once
# the group outputs exactly the $\pm\xi$ part (Theorem F.7's row), Lemma F.2's form for the rest follows, so it has no
# control of its own (the $N=4$ groups are shown in its note). Both use $p=11$ (odd, as the theory assumes) with
# $\hat x[1,2]=6,4$: with the Figure 6 template $H\ge3p$ means $H=60$, beyond this chapter's budget — see "Not done".

# %%
xF7 = modular.template(11, {1: 6.0, 2: 4.0})
predF7 = modular.predict(xF7)
XF7, YF7 = (torch.tensor(a) for a in modular.dataset(xF7))
# (p, 2): cos, sin of ξ; random amplitudes and phases; control runs: N = 4
P7 = torch.tensor(modular.harmonic_basis(11, predF7.order[0]))
c7 = 0.2 * torch.randn(3, N_SEEDS, 6, 2, generator=generator(seed + 90), dtype=F64)
keep7 = torch.ones(2 * N_SEEDS, 6, 1, dtype=F64)
keep7[N_SEEDS:, 4:] = 0
# (2S, 6, p) each; zero neurons stay zero
U7, V7, W7 = (torch.cat([ci @ P7.T] * 2) * keep7 for ci in c7)

# %%
steps7 = int(SCALE * 5000)


def cost_step_gd(n, h, steps):
    """GD restricted to the harmonic of ξ, the first ``n`` runs (a Trajectory)."""
    return train(agf_models.modular_params(U7[:n], V7[:n], W7[:n]), XF7, YF7, loss=LOSS, lr=h,
                 steps=steps, record=[0, steps], grad_fn=agf_models.harmonic_grad_fn(P7),
                 progress=False)


run7, run7h = cost_step_gd(2 * N_SEEDS, 0.01, steps7), cost_step_gd(N_SEEDS, 0.005, 2 * steps7)
L7 = run7.loss[-1].numpy()  # (2S,)
frac7 = (L7 - predF7.levels[1]) / (predF7.levels[0] - predF7.levels[1])
gap7 = np.abs(L7[:N_SEEDS] - run7h.loss[-1].numpy()) / predF7.levels[1]

# %%
six, four = slice(0, N_SEEDS), slice(N_SEEDS, None)
group7 = {"N6": run7.at(-1)[six], "N4": run7.at(-1)[four], "N6_init": run7.at(0)[six]}
ledger.measure("thmF7.cost-step", group7["N6"], init=group7["N6_init"],
               premises=dict(N=6.0, step_gap=gap7), X=XF7, Y=YF7, pred=predF7,
               note=f"N = 4 leaves {np.round(frac7[N_SEEDS:], 3).tolist()} of the ξ part unlearned")
th16 = torch.randn(N_SEEDS, 16, 3, 11, generator=generator(seed + 91), dtype=F64)
# unit neurons (S, 16, 3, p)
th16 = (th16 / th16.flatten(-2).norm(dim=-1)[..., None, None]).numpy()

# %%
ctx7 = dict(X=XF7, Y=YF7, template=xF7, xi=predF7.order[0], neurons=th16)
util4 = agf_claims.utility_update(group7["N4"], **ctx7)["util_err"]
ledger.measure("lemmaF6.utility-update", group7["N6"], init=group7["N6_init"],
               premises=dict(N=6.0, step_gap=gap7), **ctx7,
               note=f"the N = 4 groups: util_err {np.round(util4, 3).tolist()}")

# %%
gH = generator(seed + 92)
UH, VH, WH = agf_runs.modular_init(0.01, N_SEEDS, 33, 11, gH)
stepsH = int(SCALE * 20_000)

# %%
def width_run(H, h, steps):
    """Heavy-ball GD of the first ``H`` neurons of each seed's draw (a Trajectory, runs (S,))."""
    return agf_runs.modular_gd(UH[:, :H], VH[:, :H], WH[:, :H], XF7, YF7, h, steps)

# %%
runH, runH2 = width_run(33, 1e-3, stepsH), width_run(33, 2e-3, stepsH // 2)
runHc = width_run(6, 1e-3, stepsH)
outH, outH2, outHc = (agf_claims.width_outcome(r_, X=XF7, pred=predF7)
                      for r_ in (runH, runH2, runHc))
ordH, ordH2 = (agf_claims.width_orders(r_, X=XF7, pred=predF7) for r_ in (runH, runH2))
# the step premise
sameH = np.array([o == o2 for o, o2 in zip(ordH, ordH2)], dtype=float) * (outH2["fin"] <= 1e-3)
ledger.measure("H3p.all-frequencies", runH, premises=dict(H=33.0, p=11.0, step_same=sameH),
               X=XF7, pred=predF7,
               note=f"final loss / ℓ⁽⁰⁾: H = 33 {fmt(outH['fin'].max(), 2)} (worst seed), "
                    f"H = 6 {fmt(outHc['fin'].min(), 2)} (best seed)")

# %% [markdown]
# **Every frequency, at the threshold.** The template above has 2 of $p=11$'s five frequencies. The smallest odd $p$
# whose template has more than one frequency to order is $p=5$: $\hat x[1,2]=6,4$ is then *every* frequency, and the
# threshold is $H=3p=15$, against Theorem F.7's count of six neurons per frequency, $H=12$. We run $H=15$ (graded,
# `H3p.all-frequencies-p5`) and, from the same draws' first neurons, $H=12$ and $H=11$ (just below both), in one
# batch (absent neurons are zero and stay zero); the step premise reruns $H=15$ at twice the step. A probe of other
# draws found the narrower networks learning both frequencies too, so they are shown, not a control: $H\ge3p$ is
# sufficient here, not necessary, and the row is a consistency check.

# %%
g5p = generator(seed + 93)
U5p, V5p = (0.01 / math.sqrt(10) * torch.randn(N_SEEDS, 15, 5, generator=g5p, dtype=F64)
            for _ in range(2))
W5p = 0.01 / math.sqrt(5) * torch.randn(N_SEEDS, 15, 5, generator=g5p, dtype=F64)
keep5p = torch.ones(3 * N_SEEDS, 15, 1, dtype=F64)
keep5p[N_SEEDS:2 * N_SEEDS, 12:], keep5p[2 * N_SEEDS:, 11:] = 0, 0          # H = 12, H = 11
x5p = modular.template(5, {1: 6.0, 2: 4.0})
pred5p = modular.predict(x5p)
X5p, Y5p = (torch.tensor(a) for a in modular.dataset(x5p))

# %%
def run_p5(n, h, steps):
    """Heavy-ball GD of the first ``n`` runs of the p = 5 batch (H = 15, 12, 11 per seed block)."""
    U, V, W = (torch.cat([t] * 3)[:n] * keep5p[:n] for t in (U5p, V5p, W5p))
    return agf_runs.modular_gd(U, V, W, X5p, Y5p, h, steps, loss=LOSS)


run5p, run5p2 = run_p5(3 * N_SEEDS, 1e-3, stepsH), run_p5(N_SEEDS, 2e-3, stepsH // 2)
out5p = agf_claims.width_outcome(run5p, X=X5p, pred=pred5p)
ord5p = [agf_claims.width_orders(r_, X=X5p, pred=pred5p)[:N_SEEDS] for r_ in (run5p, run5p2)]
same5p = (np.array([o == o2 for o, o2 in zip(*ord5p)], dtype=float)
          * (agf_claims.width_outcome(run5p2, X=X5p, pred=pred5p)["fin"] <= 1e-3))

# %%
below5p = {H: tuple(out5p[q][k * N_SEEDS:(k + 1) * N_SEEDS] for q in ("fin", "match"))
           for k, H in ((1, 12), (2, 11))}
ledger.measure("H3p.all-frequencies-p5", run5p.run(slice(0, N_SEEDS)), X=X5p, pred=pred5p,
               premises=dict(H=15.0, p=5.0, step_same=same5p),
               note="; ".join(f"H = {H}: fin {[fmt(v, 2) for v in f]}, "
                              f"in order {m.astype(int).tolist()}"
                              for H, (f, m) in below5p.items()))

# %% [markdown]
# **Just above the threshold.** $H=18>3p$: the same draws' 15 neurons and three more (drawn after them, so the
# graded $H=15$ runs are unchanged), the same GD. The table shows every width: `final loss / ℓ⁽⁰⁾ / in order (1)`.

# %%
g18 = generator(seed + 94)
std18 = (0.01 / math.sqrt(10), 0.01 / math.sqrt(10), 0.01 / math.sqrt(5))
U18, V18, W18 = (torch.cat([t, sd * torch.randn(N_SEEDS, 3, 5, generator=g18, dtype=F64)], 1)
                 for t, sd in zip((U5p, V5p, W5p), std18))
run18 = train(agf_models.modular_params(U18, V18, W18), X5p, Y5p, loss=LOSS, lr=1e-3, momentum=0.9,
              steps=stepsH, record=log_schedule(stepsH, 150),
              grad_fn=agf_models.modular_grad_fn(5), progress=False)
out18 = agf_claims.width_outcome(run18, X=X5p, pred=pred5p)
widths5p = {18: (out18["fin"], out18["match"]),
            15: (out5p["fin"][:N_SEEDS], out5p["match"][:N_SEEDS]), **below5p}
agf_report.width_table(widths5p, 5)

# %% [markdown]
# Every width in the table, below the threshold as well as above it, is to be read against the sentence of the
# paper: $H\ge3p$ is **sufficient, not necessary** here — the narrower networks ($H=12$, $H=11$) learn both
# frequencies in order too (their values are in the table, not a ledger row: they are no counterfactual of the
# threshold), and the row `H3p.all-frequencies-p5` is a consistency check of the theorem's setting.

# %% [markdown]
# ## What we see
# The pass rates below are read from this run's ledger (seeds 0–4 for every experiment with a random draw;
# one measurement where the data and initialisation are fixed).

# %%
print(agf_report.rate_line(ch.rate, [
    "fig3.drop-times", "fig3.drop-times-finite", "fig3.levels", "fig3.order", "fig8.dormancy",
    "fig8.drop-times", "fig4.times-commuting", "fig4.times-non-commuting",
    "fig4.levels-commuting", "fig4.levels-non-commuting", "fig4.spectra-commuting",
    "fig4.spectra-non-commuting", "fig5.levels", "fig5.order", "fig5.jump-bound", "fig6.order",
    "fig6.levels", "fig6.agf-vs-gd", "fig6.bounds", "thmF3.phase", "B4.alignment",
    "B4.adaptive-rate", "thmF7.cost-step", "lemmaF6.utility-update", "H3p.all-frequencies",
    "H3p.all-frequencies-p5"], sep="\n"))
print("Figure 4 step check, GD vs integrated flow (first two drops, largest over α, per seed): "
      f"h = 2e-3 {np.round(gap4[2e-3], 4).tolist()}, h = 0.05 {np.round(gap4[0.05], 3).tolist()} "
      "(rows: commuting, non-commuting)")

# %%
print("Figure 5, simulated AGF vs GD drops (not graded), largest relative difference per seed: "
      f"{np.round(agf_gd5, 4).tolist()}")
margin6 = np.min(drops6 / bound6[None, :], axis=1)
print(f"Figure 6 (integrated flow, α = {alpha6}): AGF vs flow largest drop-time error per seed "
      f"{np.round(err6, 3).tolist()} "
      f"(per drop: {np.round(relative_error(drops6, agf_cross6), 3).tolist()}); "
      f"flow drops / bounds, smallest per seed {np.round(margin6, 2).tolist()}; "
      f"rtol/10 moves the first two drops by {fmt(np.nanmax(tol_gap6), 2)} at most")

# %% [markdown]
# AGF's closed forms are exact where they can be checked (the lemmas and theorems above are consistency
# checks: exact identities, float precision, no control), and the general algorithm reproduces the DLN
# closed form. Against the dynamics (pass rates printed above): the *order* in which features are learned and
# the *loss levels* are the robust part. The *jump times* of the flow converge to AGF's as $\alpha\to0$ (the paper's
# statement), here at our rate $O(1/\eta_\alpha)$ — graded as the limit it is, for the diagonal network (`fig3.drop-times`, a trend over 60 decades
# of $\alpha$ on five draws) and for both fully connected variants (`fig4.times-*`, a trend over $\alpha=10^{-3}\ldots10^{-12}$,
# as deep as float64 allows there; consistency checks, without a control) — with a constant that depends on the data and is often above the $1/\eta_\alpha$
# tolerance an earlier revision fixed (our finite-$\alpha$ reading `fig3.drop-times-finite`); the open, non-commuting
# part of Conjecture 4.1 holds less well than the proved commuting part (its spectra are not reproduced, its
# times and levels pass with smaller margins: the rates are in the ledger). The `fig4.times-*` rows are consistency
# checks: the linear model fails them by construction, and the same flows on a clock stretched by 1.25 (printed with
# Figure 4) keep the mechanism, so no run through their measurement removes it. An earlier version of this chapter compared GD at $h=0.05$ with
# Conjecture 4.1 and attributed its lag to AGF; most of that lag was GD's step (GD at $h=0.05$ is off the flow by the
# amount printed above), which is why Figures 3–4 are now graded on the integrated flow, and Figure 4's claims carry
# the premise that GD at $h=2\cdot10^{-3}$ lands on it (printed above, and met or not per seed in the ledger). The
# transformer's simulated AGF (its own jump times, from each seed's initialisation) meets GD's drops to the printed
# relative difference — shown, not graded: a consistency row like `fig6.agf-vs-gd` needs a
# declaration and a measurement function (about 15 minutes), not done this round. For $\kappa=3$: the transformer's jump bounds, levels and order hold under a
# step premise that is met. For modular addition, graded on the gradient flow at the paper's $\alpha=10^{-2}$ (integrated
# by the implicit method; its tolerance check moves the drops by far less than the 1 % premise allows, printed above),
# the order, the levels, the lower bounds and the phase constraint of the cost step hold in the seeds printed above;
# the simulated AGF meets the flow's drop times within its 25 % tolerance (whose origin is stated in the ledger) in the
# seeds printed above; the per-drop errors printed above show in which drop it misses. (AGF activates the neurons of a
# frequency one group at a time, so a group that jumps early or late moves its staircase across a mid-level before or
# after the flow; compare the dashed staircase with the loss curves in Figure 6a.) Two earlier versions are recorded
# in the claims' histories: the authors' momentum GD at their step (its drop times moved by 11–14 % when the step was
# doubled, so the timing claims were *premise not met*) and the flow at $\alpha=0.1$ with an explicit integrator (AGF
# within tolerance at a pass rate of 0.4). App. B.4, over five draws and $\alpha$ down to $10^{-256}$: the
# $\kappa=2$ alignment fraction and, with the adaptive rate, the $\kappa=3$ one fall like $1/\log(1/\alpha)$ towards 0 (pass
# rates printed above; a draw fails where its fraction still rises between $10^{-4}$ and $10^{-8}$, before the asymptotic
# regime, or shrinks by less than half the rate's factor), while the plain $\kappa=3$ fraction stays put (the control).
# The cost step and the width (pass rates printed above, controls in the ledger): six aligned neurons minimising the
# loss inside their harmonic reach $\ell^{(1)}$ and leave a new neuron Lemma F.2's utility without $\pm\xi$, four do not;
# with $H=3p$ at the paper's $\alpha=10^{-2}$ the network learns both frequencies in order down to zero loss, with $H=6$ it
# stops after the first (not explained by $H<3p$ nor by Theorem F.7's count: at $p=5$, $H=12$ and $H=11$ learn every
# frequency and $H=18$ does as $H=15$ does; the threshold is sufficient, not necessary, here; consistency checks) — on a
# smaller problem than Figure 6's (see the section's introduction).
#
# **Not done**, each with its cost:
#
# - $H\ge3p$ at Figure 6's size: with its template that is $H=60$ neurons, and the implicit flow's linear systems
#   would grow from 576 to 1920 unknowns per seed (each LU factorisation about 37 times dearer), beyond this
#   chapter's budget; `H3p.all-frequencies` ($p=11$) and `H3p.all-frequencies-p5` ($p=5$, every frequency) stand in.
# - Figure 4 on five *data* draws (referee 3.4): the flow would cost the same (the batched integration of all
#   $\alpha$, variants and seeds took 13 s in a probe), but every Figure 4 measurement takes one prediction per
#   variant, so per-seed $\Sigma_{xx}$, $B$ and predictions are a refactor of the chapter's Figure 4 code (about an hour)
#   not done in this revision nor in the code round after it (issue 27 took that round); its seeds remain
#   initialisations of one draw.
# - A control for `fig4.times-*` that removes the mechanism and keeps the slow clock (a κ = 3 network of the same
#   data, or Figure 4 on the jump recursion's own clock with the recursion switched off): no cheap one is known; a
#   κ = 3 fully connected network needs its own prediction and sweep (about an hour of work, seconds per run).
# - The ninth drop of Figure 4 (budget), the authors' exact draws for Figure 4, a graded comparison of the
#   transformer's simulated AGF with GD (drawn and printed only), and the CIFAR-10 ReLU experiment of the authors'
#   code (no dataset offline).
# - Figures 1 and 7 of the paper: our copy of the paper (text only) names Figures 2–6 and 8, each mapped to a
#   section above; Figures 1 and 7 are never referenced in its text, so what they show cannot be read here. What it
#   would take: the paper's figure pages (not in this offline copy) to identify them; then, if either shows one of
#   the settings above (as an overview figure of a loss staircase would), a figure drawn from the chapter's existing
#   runs — about half an hour of work and seconds of compute; a new setting would cost as one of the sections above.

# %% [markdown]
# ## What changed in this revision
# **This round (acceptance audit of issue 26).** Each change has a `history` entry in its own commit, made before
# the run that grades it. `fig3.drop-times` also asks `stab <= 1.5` (error × $\eta_\alpha$ stable over the three
# deepest $\alpha$; observed, after a full-size probe), and the same flows on a clock stretched by 1.25 are run and
# shown in its note (the ledger takes no control on a consistency check). `fig4.times-*` are consistency checks
# now (they were reproductions whose only control, the linear model, fails by construction); the same Figure 4
# flows on the stretched clock are run and shown in their notes. A width just above
# the threshold, $H=18$, runs beside `H3p.all-frequencies-p5` (table). Wording: "What holds" no longer
# overstates Figure 3's rate, Figure 4's spectra and timing, Figure 6's graded seeds, Theorem F.7's cost step (an
# identity of the projection), the width threshold (sufficient, not necessary), Figure 8's utility (not graded) or
# B.4's "iff" (its "only if" is a control, not a grade); the $H=6$ failure is no longer explained by six neurons per
# frequency; Figures 1 and 7 have an estimated cost.
#
# **Previous round (issue 27, code only).** No claim, rule, premise, control or expectation changed, and the
# ledger's values are the same (the quick rerun's ledger is identical to the previous revision's, field for field).
# The chapter's loops and bookkeeping moved into tested functions of the theory package: the runs into
# `lrlib.theory.agf.runs` (`dln_gd`, `heads_gd`, `modular_flow`, `modular_gd`, `fc_flow`, `fc_step_gaps`, the
# initialisations), the tables and printed rows into `lrlib.theory.agf.report`, and the direct integration behind
# `lemma.C1-C3-C5` and `erratum.C2-2alpha` into `dln.utility_flow_check`, which a unit test also runs; no code line
# of the chapter is longer than 100 characters. The unit tests are one file per module.
# On the random draws of the figures kept as the paper's: Figure 8 has none (the paper's 2-D example and the
# deterministic initialisation $u=\sqrt2\alpha$, $v=0$); Figures 2 and 3 draw ONE data set, $X$ and $\beta^*$ from
# numpy's seed 10 as the authors' code does (the initialisation is deterministic), and the `fig3.*` rows are graded
# on five such draws (seeds $10+\text{seed}+i$), the figures on the authors' one.
#
# **Round before (second referee).** Five rows are consistency checks now, each with a `history` entry:
# `fig3.drop-times` (an instance of Pesme–Flammarion's theorem, the rate ours; its coarse-step GD goes to the
# ledger as `coarse=`, not as a control, since it shares the mechanism), `fig4.levels-commuting` (a level at a
# resolved plateau is an identity), `thmF7.cost-step` (the projection imposes the alignment: round-off),
# `H3p.all-frequencies` (its $H=6$ run fails by capacity, not by $H<3p$), `B4.adaptive-rate` (its control was the
# same trajectory on another clock). Measurement fixes, declared in the claims' `history` before the rerun: a
# drop missing from the Figure 3 sweep counts as `inf` and `fig3.drop-times` asks for all five points (`npts`);
# `B4.*` read `mono` and `shrink` over $\alpha\le10^{-8}$ (`mono8`, `shrink8 >= 16`); `fig6.levels` reads the
# plateaus over the middle half in log time with a flatness premise (the full run: every seed's median within
# 0.5 % of the levels, but three of five windows move by more than 2 % inside — the log window starts on the
# tail of the previous drop in those seeds — so three seeds are *premise not met*); `B4.alignment`'s
# expectation became 0.8–1 after that run (observed, 5/5; its history says so). Wording: the rate $O(1/\eta_\alpha)$ is ours,
# not the paper's (everywhere, "What holds" included); `fig6.bounds` grades our non-recursive formula, not the
# paper's Eq. 9; the jump bounds are proved for AGF, not for the flow; `fig3.drop-times-finite` left "What holds";
# the `fig8.*` reasons and the attribution of $H\ge3p$ corrected.
#
# **Earlier round (issue 26).** A "What holds" summary at the top; seed switchers for Figures 4, 5, 6 and 6 (d) (Figures
# 2, 3 and 8 draw the paper's data and stay: Figure 8's is fixed, Figures 2 and 3 show the authors' one draw); every plateau of Figures 3–6 read in one declared way,
# `lrlib.measure.plateau_between` (the median over the middle half of the interval between a run's own drops):
# `fig3.levels`, `fig5.levels`, `fig6.levels` (and its premise) with rules unchanged (read this way, seed 3 of
# `fig6.levels` is 15 % off $\ell_2$, where the old single point was within 2 %: its expectation became 0.8–1, observed
# after the run); `fig4.levels-*` now grade the
# levels alone, read between the flow's own drops (referee 2.3), and `fig4.spectra-*` are split off with the same
# tolerance (`fig4.levels-non-commuting`'s expectation became *reproduced*, observed in a probe; its spectra are not
# reproduced); `fig3.drop-times`' control is coarse-step GD of the same draws ($h=0.05$: the slow clock with a
# perturbed time scale, an $\alpha$-independent error; it was the plain linear model, which removed the clock); a new
# consistency row `H3p.all-frequencies-p5` tests $H\ge3p$ with every frequency of $p=5$, beside
# widths just below the threshold, which also learn everything. Each change is in the claim's `history`.
#
# The ledger now applies every claim's measurement function to the main runs and to a control *run*
# (house rules of the issue "Verdicts that measure agreement"); no claim is graded on handed-in values any more
# (tier *legacy*). Every expectation is labelled `observed` (copied from a result); the old
# `rule_change` notes are the claims' `history`. The table below gives, per claim whose verdict or tier changed, the
# published full-size sweep of the previous revision (*before*), the sweep a referee read after the first rounds
# (*referee*), and this run (*after*). What each claim is now, read from `notebooks/04_agf.claims.yaml`:
#
# - `fig3.drop-times`: the limit $\alpha\to0$, a trend of the drop-time error against $1/\eta_\alpha$ over
#   $\alpha=10^{-4}\ldots10^{-64}$ on five draws (was one draw, three $\alpha$): never growing, slope $\ge0.75$ over the
#   three deepest $\alpha$, shrink $\ge8$. Control: coarse-step GD of the same draws ($h=0.05$), the slow clock with a
#   perturbed time scale (this round; see the Figure 3 section). The earlier controls — GD from $\alpha=0.1$, the
#   same flows on a clock 20 % fast (the prediction rescaled), the plain linear model (which removed the clock and
#   failed by construction) — are gone.
# - `fig3.drop-times-finite` (split off): the old rule $|r-1|\le1/\eta_\alpha$ at $10^{-4},10^{-8},10^{-16}$, per draw, a
#   **consistency check** (our constant, not the paper's); the fast clock is a declared sensitivity ($r\times1/1.2$).
# - `fig3.levels`: read between the flow's own drops at $\alpha=10^{-64}$ (was: at AGF's predicted plateau middles,
#   inside a transition where a plateau is short); a **consistency check** (a plateau matches $\ell_k$ by the same
#   algebra wherever it is resolved).
# - `fig3.order`: per draw at $\alpha=10^{-64}$, `match == 1 and overlap <= 0.1` (was: seed 0's order against a
#   swapped prediction, then `onset >= 0.5`, a timing quantity); control: the linear model, which learns every
#   coordinate at once (overlap 0.4–4.7 in a probe).
# - `fig8.dormancy`, `fig8.drop-times`: graded on the flow on five draws (was GD on the paper's one example);
#   **consistency checks** (one $\alpha$, our constant, no control on this clock but the linear model, which fails by
#   construction); the fast clock is a declared sensitivity.
# - `fig4.times-*`: the limit, a trend over $\alpha=10^{-3}\ldots10^{-12}$, slope $\ge0.75$ over the three deepest
#   $\alpha$ (was: error $\le1/\eta_\alpha$ at two $\alpha$, then slope $1\pm0.25$ over all four); `fig4.levels-*`: the
#   same tolerance. Control of the six Figure 4 rows (but `fig4.levels-commuting`, a consistency check since this round):
#   the plain linear model (slow clock removed; one deterministic curve shared by every seed).
# - `B4.alignment`, `B4.adaptive-rate`: the limit, a trend over $\alpha=10^{-4}\ldots10^{-256}$ with slope $\ge0.75$
#   (was: a ratio of two fractions within a factor 2 of 1/16); control: the plain $\kappa=3$ neuron's own run (was:
#   the two neurons' roles swapped, handed-in values).
# - `thmF7.cost-step`: `abs(frac) <= 1e-3` (was one-sided: an overshoot below $\ell^{(1)}$ passed);
#   `lemmaF6.utility-update`, `H3p.all-frequencies`: the same runs and rules, measured by the ledger, with control
#   runs ($N=4$ neurons, width $H=6$) and `init` through the same measurement.
# - `fig6.bounds` is a *consistency* check: its control was the bound of a smaller initialisation held against the
#   runs (a perturbed prediction), and no cheap counterfactual run exists (the bound is for AGF, and the graded
#   formula is our simplification, not the paper's Eq. 9).
#
# The transformer and modular-addition rows (Figures 5 and 6, App. F):
#
# - `fig5.levels`: a **consistency check** now (margins 186–3573 in the referee's sweep; `fin` and `gam` pass on any
#   converged run); the heads from $\alpha=0.3$ are drawn, not graded.
# - `fig5.order`, `fig6.order`: the rule also grades that features come *one at a time* (`overlap` ≤ 0.1: the next
#   eigenvector/frequency below a tenth of its target when the previous one reaches half), since other initialisations
#   also learn the larger eigenvalues/amplitudes first; controls: the same heads from $\alpha=0.3$, the same flow from
#   $\alpha=1$ (was: the measured order against a swapped prediction). The $\alpha$ of these controls and the 0.1 were
#   chosen after one-off trials (the claims' history says so).
# - `fig6.levels`: the control is the same flow from $\alpha=1$ (was: the levels of the reversed order).
# - `fig5.jump-bound`, `fig6.agf-vs-gd`, `thmF3.phase`, `lemmaF6.utility-update` are consistency checks now: a bound
#   proved for AGF with no cheap counterfactual run; no counterfactual run has an AGF to compare with; the phase constraint is what
#   fitting the target's harmonic with its phase means (the untrained network, graded as `init`, fails it); Lemma F.6's
#   row follows from Theorem F.7's.
# - The Figure 6 rows ($p=20$, $H=18$) reproduce the authors' figure, not Theorem F.3 ($H\ge3p$, $p$ odd); the
#   theorem's setting ($p=11$, $H=33$) is graded by `H3p.all-frequencies`, `thmF7.cost-step` and `lemmaF6.utility-update`.

# %%
agf_report.changes_table(ch.rate, lambda c: ledger.results[c].tier()[0])

# %% [markdown]
# ## What a referee found that this revision leaves open
# A second referee read the ledger for rows that cannot fail, controls that fail by construction and
# artefacts (findings numbered as in their report). Fixed this round: 1.1–1.2, 1.6, 1.7, 1.8, 1.11 (tiers, above),
# 1.3 (a missing drop is `inf`, `npts`), 2.3 (`B4.*` read deep), 2.1 (`fig6.levels` in log time, `flat` premise),
# 2.7, 3.1, 3.3, 3.6 (wording). Left open, one sentence each, with the cost:
#
# - 1.2 (rest): the largest step the `fig3.drop-times` rule still accepts is not measured (one coarse GD
#   sweep per step, seconds each, plus a declaration).
# - 1.4: `fig4.times-*`' control is still the linear model, which fails by construction; coarse GD of all four
#   $\alpha$ and six drops as `coarse=` is one batched GD run of about $10^5$ steps (minutes), not built.
# - 1.5: `fig4.levels-non-commuting`' control is rejected only by `l12`; an $\alpha$-independent tolerance is a
#   rule change after the results and needs a declaration before a rerun; not done.
# - 1.7 (rest): App. F.2.1's alignment assumption (an unprojected $N=6$ group staying on the harmonic) is not
#   graded (one GD run of seconds, plus a declaration).
# - 1.9: `H3p.all-frequencies-p5` tests neither $H\ge3p$ nor F.7's count; $p=11$ with all five frequencies,
#   $H=33$ against $H=24$–27 costs three width runs (about a minute) plus a declaration; not done.
# - 1.10: `fig3.order`'s `overlap` is graded at $\alpha=10^{-64}$ only; a trend over the existing sweep is a new
#   measurement function and a declaration (about 15 minutes), not done.
# - 1.12: `fig6.levels`' control (the flow from $\alpha=1$) stops at $t\le20$–50 before its third drop, so it fails
#   on its horizon (`lev = inf`), not on a level; integrating it to $\ell_K$ (the $\kappa=3$ equivalent of $t=3000$ at
#   $\alpha=10^{-2}$ is $t\approx30$, but the stiff tail costs implicit steps) is not done.
# - 2.2: `fig4.spectra-non-commuting` (0/5) lacks a premise that the spectrum has converged on the plateau
#   (directions of $\Sigma_{xx}$-eigenvalue $10^{-2}$ converge more slowly than a plateau lasts); not declared.
# - 2.4: `fig6.agf-vs-gd` has no convergence premise for the simulated AGF (3× the cost steps and half
#   `dormant_tol`: three more AGF simulations per seed, about the cost of the current one each); per-drop errors
#   are printed, not in the ledger.
# - 2.5: `fig3.levels` seed 1 (a plateau spanning ×1.08) would need $\alpha=10^{-128}$ in the sweep (one more
#   point, about a fifth of the Figure 3 sweep) or a plateau-length premise; not declared.
# - 2.6: Figure 4's `staircase_errors` still ignores a missing drop (`nanmax`); making it `inf` changes six rows'
#   measurement after the results and needs declarations; not done.
# - 3.2 (rest): `fig6.bounds` grades our non-recursive formula; the recursive E.3 bound (largest dormant norm at
#   the previous drop, $\bar U^*$ per phase, as `fig5_bound_steps` does for Figure 5) is about 30 minutes of code
#   and a declaration, not built.
# - 3.4: $H\ge3p$ at an odd $p$ of Figure 6's kind ($p=21$, $H=63$) by momentum GD (which needs no timing premise)
#   would take minutes per seed; Theorem F.3 needs $p$ odd only, $H\ge3p$ is §5's summary; not done.
# - 3.5: the `fig8.*` reasons now name coarse GD and the one-call trend over $\alpha$; the trend is not built.
# - 3.7: Figure 5's simulated AGF vs GD stays printed, not graded: a consistency row like `fig6.agf-vs-gd`
#   needs a measurement function (about 15 minutes), not done.
# - From the first referee, still open: Figure 4's seeds are initialisations of one data draw (3.4), and its
#   trend spans 0.6 decades of $1/\eta_\alpha$ (float64, 2.7).

# %% [markdown]
# ## Claims ledger
# Every checkable statement this chapter tests: the declared rule, premises and negative control
# (`notebooks/04_agf.claims.yaml`), what we measured per seed, and the verdicts. The book's own run
# fails if a control passes its rule or a pass rate leaves its declared expectation.

# %%
_ = glue_what_holds("agf", ledger, agf_claims.WHAT_HOLDS)

# %%
ch.finish()
