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
# unit-tested against each other, ODE solutions and the spec's reference numbers), and gradient descent
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
# **Choices the paper leaves open (or that we changed for speed)**
#
# | what | our choice | why |
# |---|---|---|
# | DLN data (Fig. 3) | the authors' draw (numpy seed 10): $d=5$, $n=20$, $x\sim\mathcal N(0,\mathrm{diag}(1/i))$, $\beta^*=10\,\mathcal N(0,I)$ | reproduces the spec's reference jump times and levels to 5 digits (unit test) |
# | DLN step size | $h=2\cdot10^{-3}$ (Fig. 3) and $h=2\cdot10^{-3}$ (Fig. 8), authors $10^{-3}$ and $10^{-4}$ | 2–20× fewer steps; a check below reruns Fig. 8's first two drops at $h=5\cdot10^{-4}$ |
# | FC data (Fig. 4) | $\Sigma_{xx}=MM^\top$, $M=U\mathrm{diag}(1/i)V^\top$, $B\sim\mathcal N(0,1)$, numpy seed 0; commuting variant with $\Sigma_{xx}$'s eigenvectors replaced by $B$'s right singular vectors | the authors' recipe; our draw order differs from theirs (their numbers are not reproduced digit for digit; the unit test checks the recursion instead) |
# | FC protocol | **population loss** via a design with $\tfrac1n X^\top X=\Sigma_{xx}$ exactly, $\alpha=10^{-6}$ and $10^{-12}$, $h=0.05$; authors: fresh batches of 1000, $\alpha=10^{-15}$, $10^7$ steps | the population loss is what the theory is about; sampling noise only blurs it; $10^7$ steps do not fit the budget |
# | transformer protocol (Fig. 5) | population loss (closed form, exact via a 16-point product design), $\alpha=10^{-3}$, $h=0.01$, 3 seeds; authors: batches of 8192 | same reason; the design's loss equals the closed form (unit test) |
# | transformer init | every head parameter $\alpha\,\mathcal N(0,1)$, $V_h\ge0$ | the authors' code ("N(0, α)" read as a standard deviation) |
# | modular addition (Fig. 6) | $p=20$, template $\hat x[\pm1,\pm3,\pm5]=10,5,2.5$, $H=18$, authors' init variances, momentum 0.9 and their step converted to our loss ($h=10^{-3}$), **$\alpha=0.1$** instead of $10^{-2}$, 3 seeds | $\kappa=3$: time scales like $1/\alpha$; $\alpha=10^{-2}$ needs $10^6$ steps, far outside the budget |
# | ties | every neuron crossing its threshold in the same integration step activates together | the paper activates one at a time |
# | return to dormancy (general AGF) | an active neuron whose norm falls below `dormant_tol` during cost minimisation | the spec's proposal |

# %% tags=["parameters"]
seed = 0            # base seed of every random draw in this chapter
quick = False       # True: fewer seeds and steps (tests only)
ledger_path = ""    # write the claims ledger to this JSON file (empty string: no file)

# %%
import math

import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
import torch
from scipy.integrate import solve_ivp

from lrlib import nbparams
from lrlib.claims_legacy import Ledger, fmt
from lrlib.losses import half_mse
from lrlib.models import agf_init, generator
from lrlib.models import forward as net_forward
from lrlib.plots import PALETTE, POS, THEORY, glue, label_panels, panel_grid, set_style
from lrlib.theory.agf import core, dln, linear, modular, transformer
from lrlib.theory.agf import measure as ms
from lrlib.theory.agf import models as AM
from lrlib.train import train
from lrlib.trajectory import log_schedule

quick = nbparams.check_common(seed, quick, ledger_path)
torch.set_num_threads(1)
set_style()
ledger = Ledger("agf")
LOSS = half_mse()
F64 = torch.float64
N_SEEDS = 2 if quick else 3
SCALE = 0.15 if quick else 1.0          # quick mode: fewer GD steps (the ledger is not strict there)
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
t_end3 = 1.25 * agf_inf.tau[-1] * dln.eta_alpha(1e-16)            # raw GF time past the last jump at α = 1e-16
steps3 = int(SCALE * t_end3 / h3)
a3 = torch.tensor(alphas3, dtype=F64)
p3 = AM.dln_params((math.sqrt(2) * a3).unsqueeze(-1).expand(-1, 5).clone(), torch.zeros(8, 5, dtype=F64))
run3 = train(p3, X3t, y3t, loss=LOSS, lr=h3, steps=steps3, record=log_schedule(steps3, 500), grad_fn=AM.dln_grad,
             dense_loss=True, progress=False, meta=dict(model="DLN", alphas=alphas3.tolist()))
beta3 = AM.dln_beta(run3.params).numpy()                         # (T, 8, 5)
dense3 = run3.dense_loss.numpy()                                 # (steps+1, 8)
t_dense3 = np.arange(steps3 + 1) * h3
print(f"{steps3} GD steps; AGF order {agf_inf.order}, levels {np.round(agf_inf.levels, 4)}")

# %%
fig, axes = panel_grid(2, width=4.8, height=3.6)
cols = plt.cm.viridis(np.linspace(0, 0.9, len(alphas3)))
for r, (a, c) in enumerate(zip(alphas3, cols)):
    axes[0].loglog(t_dense3[1:] / -math.log(a), dense3[1:, r], color=c, lw=1.2, label=f"α = {a:g}")
    for i in range(5):
        axes[1].semilogx(run3.time[1:] / -math.log(a), beta3[1:, r, i], color=PALETTE[i % 6], lw=0.8, alpha=0.35 + 0.6 * r / 8)
tt = np.geomspace(1e-2, 1e4, 2000)
scale_inf = agf_inf.eta / -math.log(1e-100)
axes[0].loglog(tt, agf_inf.loss_at(tt / scale_inf) + 1e-12, "k--", lw=1.5, label="AGF (α → 0)")
kk = np.searchsorted(agf_inf.tau, tt / scale_inf, side="right") - 1
for i in range(5):
    axes[1].semilogx(tt, agf_inf.betas[kk, i], "--", color=PALETTE[i % 6], lw=1.5)
    axes[1].axhline(bstar3[i], color=PALETTE[i % 6], ls=":", lw=0.8)
axes[0].set(xlabel="accelerated time $t/(-\\log\\alpha)$", ylabel="training loss", ylim=(1e-6, 300), xlim=(1e-2, 1e4),
            title="loss")
axes[0].legend(fontsize="x-small", ncol=2)
axes[1].set(xlabel="accelerated time $t/(-\\log\\alpha)$", ylabel="$\\beta_i$", xlim=(1e-2, 1e4),
            title="coefficients (dashed: AGF; dotted: $\\beta^*$)")
label_panels(axes)
fig.suptitle("Figure 3 — diagonal linear network, d = 5, n = 20: GD approaches the AGF staircase as α → 0")
glue("agf-fig3", fig)

# %% [markdown]
# Large $\alpha$ gives smooth, kernel-like curves; as $\alpha$ shrinks the curves become the staircase and
# the coefficients switch on one at a time. We now compare GD at each small $\alpha$ with AGF *at the same*
# $\alpha$: the drop time is the first crossing of the mid-level between consecutive AGF levels, and
# the plateau value is the GD loss at the geometric middle of each predicted plateau. The tolerance is
# fixed before looking: relative error $\le 1/\eta_\alpha$ (the size of AGF's leading corrections,
# $O(\log 2/\eta_\alpha)$), which tightens as $\alpha$ shrinks. The errors turn out to be $O(1/\eta_\alpha)$ with a
# constant of about 1.5, not 1: the mid-level crossing comes $O(1)$ gradient-flow time after the jump
# (the neuron still has to grow from norm 1 to its final size), which AGF's instantaneous cost step ignores,
# and the first drop (at $\tau_1\approx0.12$) is the most sensitive in relative terms. The claims are therefore
# published as *not reproduced* against the tolerance we fixed, with the measured errors and their
# scaled values (error × $\eta_\alpha$) in the ledger: GD does approach AGF as $\alpha$ shrinks, at the rate
# $O(1/\eta_\alpha)$, but with a larger constant than our tolerance allowed. (A first version of this chapter
# added a *partial* tier after seeing that result; we removed it: a tolerance is not changed after the fact.)

# %%
rows3 = {}
for r, a in enumerate(alphas3):
    if a <= 1e-4:
        rows3[a] = ms.dln_vs_agf(X3, y3, a, t_dense3, dense3[:, r])
        print(f"α = {a:g}: η = {rows3[a][1]:.2f}, drop-time errors {np.round(rows3[a][2], 4)}, level errors {np.round(rows3[a][3], 4)}")
ledger.add("fig3.drop-times", "§3, Fig. 3", "GD on a diagonal linear network follows AGF's jump times, more closely as α shrinks.",
           measured="; ".join(f"α={a:g}: rel. errors {np.round(v[2], 3).tolist()} (1/η = {1 / v[1]:.3f}; max × η = {np.nanmax(v[2]) * v[1]:.2f})"
                              for a, v in rows3.items()),
           tolerance="every drop within 1/η_α at α = 1e-4, 1e-8, 1e-16",
           passed=ms.verdict_1_over_eta([(v[1], v[2]) for v in rows3.values()]), expected="not reproduced")
ledger.add("fig3.levels", "§3, Fig. 3", "GD's plateaus sit at AGF's loss levels ℓ_k.",
           measured="; ".join(f"α={a:g}: rel. errors {np.round(v[3], 4).tolist()}" for a, v in rows3.items()),
           tolerance="as for the drop times, at the geometric middle of each predicted plateau",
           passed=ms.verdict_1_over_eta([(v[1], v[3]) for v in rows3.values()]), expected="not reproduced")
order_gd = ms.activation_order(run3.time, beta3[:, -1, :], agf_inf.betas[-1])
ledger.add("fig3.order", "§3, App. C", "Coordinates are learned in AGF's order.",
           measured=f"GD at α = 1e-16 (first time |β_i| reaches half its final value): {order_gd}; AGF: {sum(agf_inf.order, [])}",
           tolerance="identical order", passed=order_gd == sum(agf_inf.order, []), expected="reproduced")

# %% [markdown]
# **Is the miss an artefact of GD's step?** The paper's object is gradient flow; we ran GD with
# $h=2\times10^{-3}$. `lrlib.integrate` integrates the flow itself (adaptive Runge–Kutta, float64,
# `rtol` $=10^{-10}$) from the same initialisation, and we measure it exactly as GD above. If the flow
# met the tolerance where GD does not, the verdict above would be about our step, not about AGF.

# %%
t_flow3 = np.linspace(0.0, t_dense3[-1], 20001)
flow_rows = []
for a in [a for a in alphas3 if a <= 1e-4]:
    u0 = torch.full((5,), math.sqrt(2) * a, dtype=F64)
    fl3 = AM.dln_flow(X3t, y3t, u0, torch.zeros(5, dtype=F64), t_flow3)
    _, eta_a, err_t, err_l = ms.dln_vs_agf(X3, y3, a, t_flow3, fl3.loss.numpy())
    flow_rows.append({"α": f"{a:g}", "1/η_α": 1 / eta_a, "GD: max drop-time error": np.nanmax(rows3[a][2]),
                      "flow: max drop-time error": np.nanmax(err_t), "GD: max level error": np.nanmax(rows3[a][3]),
                      "flow: max level error": np.nanmax(err_l), "flow gradient evaluations": fl3.grad_evals})
flow3 = pd.DataFrame(flow_rows)
print("the flow meets the 1/η_α tolerance at every α:" , bool((flow3["flow: max drop-time error"] <= flow3["1/η_α"]).all()))
flow3.round(4)

# %% [markdown]
# What we see (full size; Figure 3's data and initialisation do not depend on the seed): the flow's
# drop-time errors are somewhat smaller than GD's (e.g. 0.036 against 0.044 at $\alpha=10^{-16}$), so
# the step accounts for a part of the error, but the flow too misses the $1/\eta_\alpha$ tolerance at
# every $\alpha$, and its level errors are GD's. The *not reproduced* verdicts above are about AGF's
# $O(1/\eta_\alpha)$ corrections, not about our discretisation.

# %% [markdown]
# **AGF → Pesme–Flammarion.** As $\alpha\to0$, $\log\cosh x\to|x|$ and $\cosh^{-1}e^x\sim x+\log2$, so AGF's
# jump times converge to those of Pesme and Flammarion's algorithm (piecewise-linear $S$), at rate
# $O(\log2/\eta_\alpha)$; the levels and active sets are identical.

# %%
alist = [1e-4, 1e-8, 1e-16, 1e-50]
pf_err = [np.abs(dln.agf(X3, y3, a).tau - pf3.tau).max() for a in alist]
pf_scaled = [e * dln.eta_alpha(a) for e, a in zip(pf_err, alist)]
same = all(dln.agf(X3, y3, a).order == pf3.order for a in alist)
ledger.add("thm.agf-to-pf", "§3 (AGF → PF), Algorithm 2", "AGF converges to Pesme–Flammarion's algorithm as α → 0.",
           measured=f"max |τ_AGF − τ_PF| at α = 1e-4, 1e-8, 1e-16, 1e-50: {', '.join(fmt(e, 3) for e in pf_err)}; × η_α: "
                    f"{', '.join(f'{s:.3f}' for s in pf_scaled)}; same order and levels: {same}",
           tolerance="strictly decreasing; error × η_α within a factor 3 (O(1/η_α)); same active sets",
           passed=bool(same and all(x > y for x, y in zip(pf_err, pf_err[1:])) and max(pf_scaled) < 3 * min(pf_scaled)),
           expected="reproduced")

# %% [markdown]
# **The general algorithm against the closed form (and Figure 2).** `core.agf` knows nothing about
# diagonal networks: it integrates each dormant neuron's direction on the sphere (Heun's method) and its
# norm from $\kappa\bar U$, and minimises the cost with `lrlib.train.train` on the active neurons. On the
# Fig. 3 data at $\alpha=10^{-8}$ it must reproduce the closed form. Figure 2 of the paper is a schematic of
# this alternation; we draw it from this run: each neuron's norm (log scale) against accelerated time,
# dormant (thin) or active (thick), with the loss levels.

# %%
a_gen = 1e-8
cost_steps = 1000 if quick else 3000


def dln_cost(net):
    mask = (net.W1 != 0).to(F64)
    return train(net, X3t, y3t, loss=LOSS, lr=0.05, steps=cost_steps, record=np.arange(0, cost_steps + 1, 5),
                 grad_fn=AM.masked_grad_fn(LOSS, mask), progress=False)


p_gen = AM.dln_params(torch.full((5,), math.sqrt(2) * a_gen, dtype=F64), torch.zeros(5, dtype=F64))
gen_run = core.agf(p_gen, X3t, y3t, loss=LOSS, kappa=2, eta=dln.eta_alpha(a_gen), cost_fn=dln_cost, mask=AM.dln_mask(5))
cf = dln.agf(X3, y3, a_gen)
err_gen = ms.relative_errors(gen_run.tau[1:], cf.tau[1:])
ledger.add("alg.general-vs-closed", "Algorithm 1, Thm C.4", "The general AGF (utility flow on the sphere + GD cost minimisation) "
           "reproduces the closed-form DLN AGF.",
           measured=f"order {gen_run.order} vs {cf.order}; max rel. jump-time error {fmt(err_gen.max(), 3)}; "
                    f"max level error {fmt(np.max(np.abs(gen_run.levels[:-1] - cf.levels[:-1]) / cf.levels[:-1]), 3)}",
           tolerance="same order; jump times within 1%; levels within 1e-6 relative",
           passed=bool(gen_run.order == cf.order and err_gen.max() < 0.01
                       and np.max(np.abs(gen_run.levels[:-1] - cf.levels[:-1]) / cf.levels[:-1]) < 1e-6),
           expected="reproduced")

H2 = gen_run.hist
fig, axes = panel_grid(2, width=4.6, height=3.4)
ax = axes[0]
for i in range(5):
    dorm = H2["dormant"][:, i]
    nrm = np.where(dorm, H2["norm"][:, i], np.nan)
    ax.semilogy(H2["t"], nrm, color=PALETTE[i % 6], lw=1.0)
    act = np.where(~dorm, np.maximum(H2["norm"][:, i], 1.0), np.nan)
    ax.semilogy(H2["t"], act, color=PALETTE[i % 6], lw=3.5, label=f"neuron {i}")
for k, tk in enumerate(gen_run.tau[1:], 1):
    ax.axvline(tk, color="0.6", ls=":", lw=0.8)
ax.axhline(1.0, color="k", lw=0.6)
ax.set(xlabel="accelerated time $\\tau$", ylabel="$\\|\\theta_i\\|$ (dormant: thin; active: thick)",
       title="dormant neurons grow, one at a time they jump", ylim=(1e-9, 5))
ax.legend(fontsize="x-small", ncol=2)
ax = axes[1]
ax.step(gen_run.tau, gen_run.levels + 1e-12, where="post", color="k")
for k, (tk, idx) in enumerate(zip(gen_run.tau[1:], gen_run.order), 1):
    ax.annotate(f"{idx[0]} active", (tk, gen_run.levels[k] + 1e-12), fontsize="x-small", color=PALETTE[idx[0] % 6])
ax.set(yscale="log", xlabel="accelerated time $\\tau$", ylabel="loss of the active network", title="cost minimisation after each jump",
       ylim=(1e-2, 200))
label_panels(axes)
fig.suptitle("Figure 2 — AGF alternates utility maximisation (dormant) and cost minimisation (active): a real run")
glue("agf-fig2", fig)

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
X8t, y8t = torch.tensor(X8), torch.tensor(y8)
alphas8 = np.array([0.5, 0.1, 1e-2, 1e-4, 1e-6])
pf8 = dln.pesme_flammarion(X8, y8)
h8 = 2e-3
steps8 = int(SCALE * 1.3 * dln.agf(X8, y8, 1e-6).tau[-1] * dln.eta_alpha(1e-6) / h8)
a8 = torch.tensor(alphas8, dtype=F64)
p8 = AM.dln_params((math.sqrt(2) * a8).unsqueeze(-1).expand(-1, 2).clone(), torch.zeros(5, 2, dtype=F64))
run8 = train(p8, X8t, y8t, loss=LOSS, lr=h8, steps=steps8, record=log_schedule(steps8, 600), grad_fn=AM.dln_grad,
             dense_loss=True, progress=False)
u8 = torch.diagonal(run8.params.W1, dim1=-2, dim2=-1).numpy()      # (T, 5, 2)
v8 = run8.params.W2[..., 0, :].numpy()
beta8 = u8 * v8
agf8 = dln.agf(X8, y8, 1e-6)
print("AGF (α = 1e-6):", np.round(agf8.tau, 4), "levels", np.round(agf8.levels, 4), "order", agf8.order)

# %%
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
eta6 = dln.eta_alpha(1e-6)
tt8 = np.linspace(0, agf8.tau[-1] * 1.25, 800)
S_th = agf8.S_at(tt8)
for r, c in enumerate(cols8):
    eta_r = dln.eta_alpha(alphas8[r])
    nrm = np.hypot(u8[:, r], v8[:, r])
    St = np.log(nrm / nrm[0]) / eta_r
    for i, ls in ((0, "-"), (1, "--")):
        axS.plot(run8.time / eta_r, St[:, i], color=c, ls=ls, lw=1)
        axA.plot(run8.time / eta_r, np.arctan2(v8[:, r, i], u8[:, r, i]), color=c, ls=ls, lw=1)
for i, ls in ((0, "-"), (1, "--")):
    axS.plot(tt8, np.abs(S_th[:, i]), color="k", ls=ls, lw=2, alpha=0.6)
    axA.plot(tt8, np.where(np.abs(S_th[:, i]) > 0, -np.sign(S_th[:, i]) * np.pi / 4 * (S_th[:, i] != 0), 0) * -1, color="k", ls=ls, lw=2, alpha=0.6)
ticks = [agf8.tau[1], agf8.tau[2], 0.5 * (agf8.tau[2] + agf8.tau[3]), agf8.tau[3]]
for ax in (axS, axA):
    ax.set_xticks(ticks)
    ax.set_xticklabels(["$\\tau_1$", "$\\tau_2$", "mid", "$\\tau_3$"])
    ax.set_xlim(0, tt8[-1])
    ax.set_xlabel("accelerated time $t/\\eta_\\alpha$")
axS.set(ylabel="$\\tilde S_i$ (solid: 0, dashed: 1)", title="accumulated utility (black: AGF α = 1e-6)")
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
    axL.semilogy(np.arange(steps8 + 1)[1:] * h8 / eta_r, run8.dense_loss[1:, r].numpy(), color=c, lw=1.2)
axL.semilogy(tt8, agf8.loss_at(tt8) + 1e-12, "k--", lw=1.5, label="AGF (α = 1e-6)")
axL.set(xlabel="accelerated time $t/\\eta_\\alpha$, $\\eta_\\alpha = -\\log(\\sqrt{2}\\alpha)$", ylabel="loss", xlim=(0, tt8[-1]), ylim=(1e-5, 5), title="loss")
axL.legend(fontsize="x-small")
label_panels([axp[0], axp[1], axS, axA, axC, axL])
fig.suptitle("Figure 8 — a coordinate returns to dormancy and reactivates with the opposite sign")
glue("agf-fig8", fig)

# %%
r6 = int(np.flatnonzero(alphas8 == 1e-6)[0])
tt_gd = run8.time / dln.eta_alpha(1e-6)
sign_change = np.flatnonzero(np.diff(np.sign(beta8[:, r6, 0])) != 0)
t_flip = float(tt_gd[sign_change[-1] + 1]) if len(sign_change) else float("nan")
mid = 0.5 * (agf8.tau[2] + agf8.tau[3])
drops8 = ms.drop_times(np.arange(steps8 + 1) * h8, run8.dense_loss[:, r6].numpy(), agf8.levels) / dln.eta_alpha(1e-6)
err8 = ms.relative_errors(drops8, agf8.tau[1:])
flip_ok = np.sign(beta8[-1, r6, 0]) == -np.sign(agf8.betas[1, 0]) and abs(t_flip - mid) <= mid / dln.eta_alpha(1e-6)
ledger.add("fig8.dormancy", "App. B.3, Fig. 8", "A DLN coordinate returns to dormancy and reactivates with the opposite sign; "
           "its sign flips when its accumulated utility returns to 0, halfway between τ₂ and τ₃.",
           measured=f"GD α = 1e-6: β₀ {agf8.betas[1, 0]:+.3f} → {beta8[-1, r6, 0]:+.3f}; sign change at τ = {t_flip:.3f} vs AGF (τ₂+τ₃)/2 = {mid:.3f}; "
                    f"drop times {np.round(drops8, 3)} vs {np.round(agf8.tau[1:], 3)}",
           tolerance="opposite sign at the end; flip time within 1/η_α relative of the AGF midpoint",
           passed=bool(flip_ok), expected="reproduced")
ledger.add("fig8.drop-times", "App. B.3, Fig. 8", "GD's three drops happen at AGF's jump times.",
           measured=f"relative errors {np.round(err8, 4)} (1/η = {1 / dln.eta_alpha(1e-6):.3f})",
           tolerance="within 1/η_α relative", passed=bool(np.nanmax(err8) <= 1 / dln.eta_alpha(1e-6)), expected="reproduced")

# %% [markdown]
# **Does the larger step change the result?** We rerun the $\alpha=10^{-4}$ case of Figure 8 up to the
# second drop at the step $h=5\cdot10^{-4}$ (4× smaller) and compare the drop times with our
# $h=2\cdot10^{-3}$. (GD does not conserve $u_i^2-v_i^2$ exactly: each step multiplies it by
# $1-h^2g_i^2$, an effective shrinking of $\alpha$ — the reason not to take $h$ much larger.)

# %%
r4 = int(np.flatnonzero(alphas8 == 1e-4)[0])
agf4 = dln.agf(X8, y8, 1e-4)
h_small = 5e-4
steps_small = int(SCALE * 1.15 * agf4.tau[2] * dln.eta_alpha(1e-4) / h_small)
small = train(p8.map(lambda t: t[r4:r4 + 1]), X8t, y8t, loss=LOSS, lr=h_small, steps=steps_small, record=2,
              grad_fn=AM.dln_grad, dense_loss=True, progress=False)
d_small = ms.drop_times(np.arange(steps_small + 1) * h_small, small.dense_loss[:, 0].numpy(), agf4.levels[:3])
d_big = ms.drop_times(np.arange(steps8 + 1) * h8, run8.dense_loss[:, r4].numpy(), agf4.levels[:3])
step_err = ms.relative_errors(d_big, d_small)
ledger.add("protocol.step-size", "(our protocol)", "Raising the DLN step from 5e-4 to 2e-3 does not change the drop times.",
           measured=f"drops (GF time) at h = 5e-4: {np.round(d_small, 3)}; at h = 2e-3: {np.round(d_big, 3)}; rel. difference {fmt(np.nanmax(step_err), 3)}",
           tolerance="< 1%", passed=bool(np.nanmax(step_err) < 0.01), expected="reproduced")

# %% [markdown]
# ## Lemmas C.1–C.3, Corollary C.5, and the homogeneous-neuron identities
# For one DLN neuron under a fixed gradient $g$ the flow is $\dot u=-gv$, $\dot v=-gu$: $u^2-v^2=2\alpha^2$ is
# conserved (Lemma C.2), $\mathrm{sgn}(uv)=-\mathrm{sgn}(g)$ and $|u|=|v|$ at the maximiser with
# $\bar U^*=|g|/2$ (Lemma C.1), and $\|\theta\|^2=2\alpha^2\cosh(2|g|t)$, i.e. $S$ is a log-cosh (Lemma C.3,
# Thm C.4) and the threshold time is Corollary C.5. We integrate the flow numerically and compare. For
# general $\kappa$-homogeneous neurons: Theorem B.2's scaling symmetry
# $\theta_{\alpha\theta_0}(t)=\alpha\,\theta_{\theta_0}(\alpha^{\kappa-2}t)$ of the utility flow, the conserved
# $(\kappa-1)\|a_i\|^2-\|w_i\|^2$ under gradient flow, and "alignment is instantaneous in accelerated time
# iff $\kappa=2$".

# %%
g_c, a_c = -1.7, 1e-3
t_c = np.linspace(0, 5, 51)
sol = solve_ivp(lambda _, z: [-g_c * z[1], -g_c * z[0]], (0, 5), [math.sqrt(2) * a_c, 0.0], t_eval=t_c, rtol=1e-12,
                atol=1e-20, method="DOP853")
u_c, v_c = sol.y
cfc = dln.utility_flow(g_c, a_c, t_c)
e_norm = np.max(np.abs(u_c ** 2 + v_c ** 2 - cfc["norm2"]) / cfc["norm2"])
e_cons = np.max(np.abs(u_c ** 2 - v_c ** 2 - 2 * a_c ** 2)) / (2 * a_c ** 2)
t_hit = float(np.arccosh(1 / (2 * a_c ** 2)) / (2 * abs(g_c)))           # Cor. C.5 in raw time, S(0) = 0
sol_hit = solve_ivp(lambda _, z: [-g_c * z[1], -g_c * z[0]], (0, 2 * t_hit), [math.sqrt(2) * a_c, 0.0], rtol=1e-12, atol=1e-20,
                    method="DOP853", events=lambda _, z: z[0] ** 2 + z[1] ** 2 - 1)
e_hit = abs(sol_hit.t_events[0][0] - t_hit) / t_hit
Ubar_end = -(u_c[-1] * v_c[-1]) * g_c / (u_c[-1] ** 2 + v_c[-1] ** 2)
ledger.add("lemma.C1-C3-C5", "Lemmas C.1–C.3, Thm C.4, Cor. C.5", "DLN utility flow: ū maximiser |u| = |v|, sgn(uv) = −sgn g, Ū* = |g|/2; "
           "u² − v² = 2α² conserved; ‖θ‖² = 2α² cosh(2|g|t); jump time arccosh(1/(2α²))/(2|g|).",
           measured=f"ODE vs closed form: norm {fmt(e_norm, 2)}, conservation {fmt(e_cons, 2)}, threshold time {fmt(e_hit, 2)} (relative); "
                    f"Ū at t = 5: {Ubar_end:.6f} vs |g|/2 = {abs(g_c) / 2}",
           tolerance="relative errors < 1e-6; Ū → |g|/2 to 1e-6",
           passed=bool(max(e_norm, e_cons, e_hit) < 1e-6 and abs(Ubar_end - abs(g_c) / 2) < 1e-6), expected="reproduced")
e_typo = np.max(np.abs(u_c ** 2 - v_c ** 2 - 2 * a_c)) / (2 * a_c)
ledger.add("erratum.C2-2alpha", "Lemma C.2", "Erratum: the conserved quantity u_i² − v_i² equals 2α² (the text prints 2α).",
           measured=f"u² − v² along the flow from the init (u, v) = (√2α, 0), α = {a_c:g}: relative deviation from 2α² "
                    f"{fmt(e_cons, 2)}, from 2α {fmt(e_typo, 2)}",
           tolerance="within 1e-6 of 2α² and not within 1e-6 of 2α", passed=bool(e_cons < 1e-6 and e_typo > 1e-6),
           expected="reproduced")

# %%
gen_b = generator(seed + 5)
Xb = torch.randn(30, 4, generator=gen_b, dtype=F64)
Gb = torch.randn(30, 2, generator=gen_b, dtype=F64)
th0 = torch.randn(6, generator=gen_b, dtype=F64)
th0 = 0.1 * th0 / th0.norm()
b2_err = {}
for act_, kap in (("linear", 2), ("square", 3)):
    T_ = 2.0 if kap == 2 else 0.5
    a_s = 1e-2
    ts_ = np.linspace(0, T_ / a_s ** (kap - 2), 9)
    th_a = core.utility_flow(a_s * th0, Xb, Gb, 4, act_, ts_)
    th_1 = core.utility_flow(th0, Xb, Gb, 4, act_, a_s ** (kap - 2) * ts_)
    b2_err[kap] = float(np.max(np.abs(th_a - a_s * th_1)) / np.max(np.abs(a_s * th_1)))
ledger.add("thm.B2-scaling", "Thm B.2", "Scaling symmetry of the utility flow: from αθ₀ the solution is α θ(α^{κ−2} t).",
           measured=f"max relative deviation: κ = 2: {fmt(b2_err[2], 2)}, κ = 3: {fmt(b2_err[3], 2)}",
           tolerance="< 1e-6", passed=bool(max(b2_err.values()) < 1e-6), expected="reproduced")

# %% [markdown]
# **Alignment speed.** By Theorem B.2, with $\kappa=2$ the direction of a dormant neuron converges in $O(1)$
# gradient-flow time while its jump takes $\eta_\alpha=\log(1/\alpha)$: in accelerated time the alignment is
# instantaneous. With $\kappa=3$ both scale as $1/\alpha$, so the fraction of the jump time spent aligning
# stays $O(1)$. We measure, for one neuron of each kind (same data and frozen residual as above), the fraction
# of the time to reach norm 1 during which its direction is more than 0.1 rad from the direction it has
# then: for $\kappa=2$ it should fall like $1/\log(1/\alpha)$, for $\kappa=3$ stay put. (Our first criterion,
# "the $\kappa=2$ fraction at $10^{-64}$ is $1/16$ of that at $10^{-4}$ within a factor 2", fails: $\alpha=10^{-4}$ is not yet
# asymptotic (most of the time to norm 1 is still spent aligning). The ledger keeps that criterion, fixed before
# the run, and publishes the claim as *not reproduced*; the weaker, qualitative trend — the $\kappa=2$ fraction
# falls with $\alpha$, the $\kappa=3$ one does not — is reported next to it.) For $\kappa=3$ the direction keeps turning until the very end —
# the directional speed grows with the norm — so it is almost never within 0.1 rad of its final direction.

# %%
al2, al3 = (1e-4, 1e-16, 1e-64), (1e-2, 1e-4, 1e-8)
f2 = [ms.align_fraction(th0, Xb, Gb, 4, "linear", 2, a, angle=0.1) for a in al2]
f3 = [ms.align_fraction(th0, Xb, Gb, 4, "square", 3, a, angle=0.1) for a in al3]
print("κ = 2:", np.round(f2, 3), " κ = 3:", np.round(f3, 3))
ledger.add("B4.alignment", "App. B.4", "Alignment is instantaneous in accelerated time iff κ = 2.",
           measured=f"fraction of the time to norm 1 spent > 0.1 rad from the direction at that time: κ = 2 (α = 1e-4, 1e-16, 1e-64): "
                    f"{', '.join(f'{f:.3f}' for f in f2)}; κ = 3 (α = 1e-2, 1e-4, 1e-8): {', '.join(f'{f:.3f}' for f in f3)}"
                    f"; κ = 2 ratio (α = 1e-64 / 1e-4) {f2[2] / f2[0]:.3f}; qualitative trend (κ = 2 strictly decreasing, "
                    f"κ = 3 never below its α = 1e-2 value minus 0.05): {bool(f2[0] > f2[1] > f2[2] and min(f3) >= f3[0] - 0.05)}",
           tolerance="κ = 2: the fraction at α = 1e-64 is 1/16 of that at α = 1e-4 within a factor 2 (the 1/log(1/α) law); "
                     "κ = 3: never below its α = 1e-2 value minus 0.05",
           passed=bool(1 / 32 <= f2[2] / f2[0] <= 1 / 8 and min(f3) >= f3[0] - 0.05),
           expected="not reproduced")

# %% [markdown]
# ## Fully connected linear networks (Figure 4, Conjecture 4.1)
# $f(x)=AWx$ with $c=d=H=10$, targets $y=Bx$, $x\sim\mathcal N(0,\Sigma_{xx})$. AGF here is Greedy Low-Rank
# Learning: the dormant frame aligns with the top singular pairs of $-\nabla_\beta\mathcal L(\beta_A)$
# (Lemma D.1, $U^*_i=\sigma_i/2$), the cost step is reduced-rank regression, and Conjecture 4.1 gives the
# levels $\ell_k=\tfrac12\sum_{i>k}\mu_i$ and the jump-time recursion
# $\Delta\tau_k=[1-\sum_{l\le k-2}\sigma^{(l)}_{k-l}\Delta\tau_{l+1}]/\sigma^{(k-1)}_1$; when $\Sigma_{xx}$ commutes with
# $\Sigma_{yx}^\top\Sigma_{yx}$ this is proved and $\tau_k=1/\sigma_k(\Sigma_{yx})$. Only the non-commuting run tests
# the open part. GD on the exact population loss (a 10-point design with $\frac1n X^\top X=\Sigma_{xx}$), the
# paper's initialisation $a_i\sim\mathcal N(0,\alpha^2/2c)$, $w_i\sim\mathcal N(0,\alpha^2/2d)$, so
# $\eta_\alpha=-\log\alpha$; $\alpha=10^{-6}$ and $10^{-12}$, $h=0.05$, both variants and both $\alpha$ in one batched run, up to
# 1.15× the ninth predicted jump of the non-commuting case.

# %%
alphas4, h4 = np.array([1e-6, 1e-12]), 0.05
etas4 = -np.log(alphas4)
variants = {"commuting": True, "non-commuting": False}
setups4 = {k: linear.fig4_setup(seed=0, commuting=c) for k, c in variants.items()}
preds4 = {k: linear.conjecture(S, B) for k, (S, B) in setups4.items()}
D4 = [torch.tensor(linear.population_design(S)) for S, _ in setups4.values()]
X4 = torch.stack([torch.cat([D, -D]) for D in D4])          # (2, 20, 10): ± copies keep mean xxᵀ = Σ_xx (and n ≠ c)
Y4 = torch.stack([X4[i] @ torch.tensor(B).T for i, (_, B) in enumerate(setups4.values())])      # (2, 20, 10)
steps4 = int(SCALE * 1.15 * preds4["non-commuting"].tau[9] * etas4.max() / h4)
p4 = agf_init(10, 10, 10, alpha=1.0, gen=generator(seed + 40), runs=(2, 2), act="linear")      # runs: (α, variant)
p4 = p4.map(lambda t: t * torch.tensor(alphas4, dtype=F64).reshape(2, 1, 1, 1))
run4 = train(p4, X4, Y4, loss=LOSS, lr=h4, steps=steps4, record=log_schedule(steps4, 500), dense_loss=True, progress=False)
sv4 = torch.linalg.svdvals(run4.params.W2 @ run4.params.W1).numpy()                           # (T, 2, 2, 10)
t_dense4 = np.arange(steps4 + 1) * h4
print(f"{steps4} steps; predicted τ:", {k: np.round(v.tau[1:], 3) for k, v in preds4.items()})

# %%
fig, axes = panel_grid(2, 2, width=4.8, height=3.3)
for j, (name, pr) in enumerate(preds4.items()):
    tmax = t_dense4[-1] / etas4[1]
    tt4 = np.geomspace(1e-2, tmax, 1500)
    ax = axes[2 * j]
    for ia, (a, ls, lw) in enumerate(zip(alphas4, (":", "-"), (1.0, 1.5))):
        ax.loglog(t_dense4[1:] / etas4[ia], run4.dense_loss[1:, ia, j].numpy(), color=POS, ls=ls, lw=lw, label=f"GD, α = {a:g}")
    ax.loglog(tt4, pr.loss_at(tt4) + 1e-12, "k--", lw=1.2, label="Conjecture 4.1")
    for lv in pr.levels[:-1]:
        ax.axhline(lv, color=THEORY, ls=":", lw=0.7)
    for tk in pr.tau[1:]:
        if tk < tmax:
            ax.axvline(tk, color="0.6", ls="--", lw=0.6)
    ax.set(xlabel="accelerated time $t/(-\\log\\alpha)$", ylabel="loss", title=f"{name}: loss", ylim=(1e-6, 50), xlim=(1e-2, tmax))
    ax.legend(fontsize="x-small")
    ax = axes[2 * j + 1]
    for i in range(10):
        ax.semilogx(run4.time[1:] / etas4[1], sv4[1:, 1, j, i], color=plt.cm.tab10(i), lw=1.2)
        ax.semilogx(tt4, pr.sv_at(tt4)[:, i], color=plt.cm.tab10(i), ls="--", lw=0.9)
    ax.set(xlabel="accelerated time $t/(-\\log\\alpha)$", ylabel="singular values of $AW$",
           title=f"{name}: spectrum, α = 1e-12 (dashed: β^(k))", xlim=(1e-2, tmax))
label_panels(axes)
fig.suptitle("Figure 4 — fully connected linear network, c = d = H = 10: GD against Conjecture 4.1")
glue("agf-fig4", fig)

# %% [markdown]
# Drop times and plateaus against the conjecture, at both $\alpha$. Our pre-set tolerance was $1/\eta_\alpha$
# (as for the DLN). In a first run with $\alpha=10^{-6}$ alone it failed for both variants — the proved
# commuting one included (errors 6–20%) — and the non-commuting plateaus had not converged to the
# reduced-rank solutions ($\Sigma_{xx}$'s eigenvalues go down to $10^{-2}$, so the cost minimisation is slow and not
# instantaneous on the accelerated clock at this $\alpha$). We added $\alpha=10^{-12}$ (more evidence, same
# tolerance): the claims whose errors stay above $1/\eta_\alpha$ are published as *not reproduced*, with the
# errors at both $\alpha$ in the ledger, so a reader sees whether and how fast they shrink.

# %%
res4 = {}
for j, (name, pr) in enumerate(preds4.items()):
    K = int((pr.tau[1:] < t_dense4[-1] / etas4[1] / 1.1).sum())
    out = []
    for ia, eta in enumerate(etas4):
        dr = ms.drop_times(t_dense4 / eta, run4.dense_loss[:, ia, j].numpy(), pr.levels[:K + 1])
        err = ms.relative_errors(dr, pr.tau[1:K + 1])
        pl = ms.plateau_values(run4.time / eta, run4.loss[:, ia, j].numpy(), pr.tau[:K + 1])
        errl = ms.relative_errors(pl, pr.levels[1:K])
        err_sv = ms.plateau_spectrum_errors(run4.time / eta, sv4[:, ia, j], pr.tau[:K + 1], pr.sv)
        out.append((eta, err, np.maximum(errl, err_sv)))
        print(f"{name}, α = {alphas4[ia]:g}: drop-time errors {np.round(err, 3)}, level/spectrum errors {np.round(np.maximum(errl, err_sv), 3)}")
    res4[name] = (K, out)
for name, (K, out) in res4.items():
    ledger.add(f"fig4.times-{name}", "Conj. 4.1, Fig. 4" + (" (commuting: proved)" if name == "commuting" else " (open part)"),
               f"GD's drop times follow the conjectured recursion ({name} Σ_xx).",
               measured="; ".join(f"α = {a:g}: first {K} drops, rel. errors {', '.join(f'{e:.3f}' for e in o[1])} (1/η = {1 / o[0]:.3f}, "
                                  f"median × η = {np.nanmedian(o[1]) * o[0]:.2f})" for a, o in zip(alphas4, out)),
               tolerance="every drop within 1/η_α at both α",
               passed=ms.verdict_1_over_eta([(o[0], o[1]) for o in out]), expected="not reproduced")
    ledger.add(f"fig4.levels-{name}", "Conj. 4.1, Lemma D.1, Fig. 4", f"GD's plateaus are the reduced-rank regression solutions ({name}): "
               "levels ½Σ_{i>k}μ_i and the singular values of AW.",
               measured="; ".join(f"α = {a:g}: max rel. error of level and spectrum per plateau {', '.join(f'{e:.3f}' for e in o[2])}"
                                  for a, o in zip(alphas4, out)),
               tolerance="as for the drop times", passed=ms.verdict_1_over_eta([(o[0], o[2]) for o in out]),
               expected={"commuting": "reproduced", "non-commuting": "not reproduced"}[name])

# %% [markdown]
# What we see: every level and spectrum of the commuting run sits on the reduced-rank solutions; the
# non-commuting plateaus approach them only as $\alpha$ shrinks (the cost minimisation is slow there). The drop
# times converge to the recursion in both cases — from $\alpha=10^{-6}$ to $10^{-12}$ the error falls for every drop,
# roughly like $1/\eta_\alpha$ — but not within $1/\eta_\alpha$: the first drop, the shortest plateau, stays 10–20% late.
# So both drop-time claims are *not reproduced* against our tolerance, and so are the non-commuting levels;
# the median error × $\eta_\alpha$ printed in the ledger shows how the errors scale, and the difference between
# the two covariances is within the noise of the random initialisation, which shifts each jump by
# $O(1/\eta_\alpha)$. The open part of the conjecture (non-commuting) behaves like the proved part.

# %%
Syx = setups4["non-commuting"][1] @ setups4["non-commuting"][0]
Mt = torch.tensor(Syx)
uD1, _ = ms.maximise_on_sphere(lambda th: th[:10] @ Mt @ th[10:], torch.randn(20, generator=generator(seed + 41), dtype=F64), lr=0.02, steps=3000)
s1 = np.linalg.svd(Syx, compute_uv=False)[0]
ledger.add("lemma.D1", "Lemma D.1", "A normalised dormant neuron's maximal utility is σ₁/2 of −∇_βL(β_A) (here β_A = 0: Σ_yx).",
           measured=f"projected ascent: {uD1:.10f}; σ₁/2 = {s1 / 2:.10f}", tolerance="relative error < 1e-8",
           passed=bool(abs(uD1 - s1 / 2) / (s1 / 2) < 1e-8), expected="reproduced")
c4 = core.conserved(run4.params, 2)                                                           # (T, 2, 2, 10)
drift4 = float((c4 - c4[0]).abs().max() / (run4.params.neuron_vectors()[-1] ** 2).sum(-1).max())
ledger.add("B3.conserved", "App. B.3", "(κ−1)‖a_i‖² − ‖w_i‖² is conserved (here κ = 2, the FC run; κ = 3 below).",
           measured=f"FC GD run: max drift relative to the largest final ‖θ_i‖²: {fmt(drift4, 3)}",
           tolerance="< 1e-2 (GD, not the flow: O(h) drift)", passed=bool(drift4 < 1e-2), expected="reproduced")

# %% [markdown]
# ## Attention-only linear transformer (Figure 5)
# In-context linear regression with $d=4$, $N=32$, $\mathrm{tr}\,\Sigma=2$ with eigenvalues $\propto(1,\frac12,\frac13,\frac14)$,
# $H=5$ rank-one heads $\hat y=\sum_hV_h(z^\top K_h)(Q_h^\top x_q)$, $z=\sum_ny_nx_n$ (each head a $\kappa=3$ neuron,
# $\eta_\alpha=1/\alpha$). AGF: heads align with the eigenvectors $v_k$ one by one (Lemma E.1,
# $\bar U^*_k=N\lambda_k^2/(3\sqrt3)$), the $k$-th learns $A_k=1/(\mathrm{tr}\Sigma+(N+1)\lambda_k)$ (Lemma E.2), the levels are
# Eq. 7, and the $k$-th jump comes no earlier than $\sqrt3/(\eta_\alpha N\lambda_k^2\mu^{(k-1)})$ after the previous one,
# $\mu^{(k-1)}$ the largest dormant norm then. GD on the exact population loss $\mathcal L(\Gamma)$ (closed form; the
# recorded loss is the 16-point design's plus its constant), $\alpha=10^{-3}$, $h=0.01$, over seeds. The heads
# enter `train` as tied pairs of square neurons (`lrlib.theory.agf.models`).

# %%
Sig5 = transformer.fig5_sigma(seed=seed)
pred5 = transformer.predict(Sig5, 32)
Z5, y5, c5 = transformer.design(Sig5, 32)
alpha5, h5 = 1e-3, 0.01
steps5 = int(SCALE * 100_000)
g5 = generator(seed + 50)
V5 = (alpha5 * torch.randn(N_SEEDS, 5, generator=g5, dtype=F64)).abs()
K5 = alpha5 * torch.randn(N_SEEDS, 5, 4, generator=g5, dtype=F64)
Q5 = alpha5 * torch.randn(N_SEEDS, 5, 4, generator=g5, dtype=F64)
run5 = train(AM.heads_params(V5, K5, Q5), torch.tensor(Z5), torch.tensor(y5), loss=LOSS, lr=h5, steps=steps5,
             record=log_schedule(steps5, 500), grad_fn=AM.heads_grad_population(torch.tensor(Sig5), 32), dense_loss=True,
             progress=False)
L5 = run5.dense_loss.numpy() + c5                                                             # (steps+1, R) population loss
Gam5 = AM.heads_gamma(run5.params).numpy()                                                    # (T, R, 4, 4)
proj5 = np.einsum("ik,trij,jk->trk", pred5.v, Gam5, pred5.v)                                  # v_kᵀ Γ v_k (T, R, 4)
Vh, Kh, Qh = AM.heads_of(run5.params)
head_norm5 = torch.sqrt(Vh ** 2 + (Kh ** 2).sum(-1) + (Qh ** 2).sum(-1)).numpy()               # (T, R, 5)
print("levels", np.round(pred5.levels, 5), "A_k", np.round(pred5.A, 5))

# %%
s_idx = np.arange(steps5 + 1)
bounds5, drops5, okb = [], [], True
for r in range(N_SEEDS):
    dr = ms.drop_times(s_idx.astype(float), L5[:, r], pred5.levels)
    b_r, prev = [], 0.0
    for k in range(1, 5):
        i_prev = min(np.searchsorted(run5.steps, prev), len(run5.steps) - 1)
        mu = np.sort(head_norm5[i_prev, r])[::-1][k - 1:].max()                                  # largest dormant norm
        b_r.append(prev + pred5.bound_gap(k, 1.0, mu) / h5)                                       # √3/(N λ_k² μ), raw time → steps
        prev = dr[k - 1] if np.isfinite(dr[k - 1]) else prev
    bounds5.append(b_r)
    drops5.append(dr)
    okb &= bool(np.all(dr >= np.array(b_r)))
bounds5, drops5 = np.array(bounds5), np.array(drops5)
fig, axes = panel_grid(2, width=5.0, height=3.5)
for r in range(N_SEEDS):
    axes[0].loglog(s_idx[1:], L5[1:, r], color=PALETTE[r % 6], lw=1.2, label=f"GD seed {r}")
    for i in range(4):
        axes[1].semilogx(run5.steps[1:], proj5[1:, r, i], color=plt.cm.tab10(i), lw=1.0, alpha=1 if r == 0 else 0.4)
for lv in pred5.levels:
    axes[0].axhline(lv, color=THEORY, ls=":", lw=0.8)
for b in bounds5[0]:
    axes[0].axvline(b, color="0.5", ls="--", lw=0.8)
for i, A in enumerate(pred5.A):
    axes[1].axhline(A, color=plt.cm.tab10(i), ls=":", lw=0.8)
    axes[1].annotate("", xy=(bounds5[0, i], A), xytext=(bounds5[0, i], 0), arrowprops=dict(arrowstyle="->", color=plt.cm.tab10(i), lw=0.8))
axes[0].set(xlabel="GD step (GF time t = 0.01 × step)", ylabel="population loss", title="loss (dotted: Eq. 7; dashed: bounds, seed 0)",
            xlim=(100, steps5), ylim=(0.1, 1.2))
axes[0].legend(fontsize="x-small")
axes[1].set(xlabel="GD step (GF time t = 0.01 × step)", ylabel="$v_k^\\top \\Gamma v_k$",
            title="$\\Gamma=\\sum_h V_hK_hQ_h^\\top$ on $v_k$ (dotted: $A_k$; arrows: bounds)", xlim=(100, steps5), ylim=(-0.005, 0.12))
label_panels(axes)
fig.suptitle(f"Figure 5 — linear transformer, in-context regression (d = 4, N = 32, 5 heads, α = 1e-3, {N_SEEDS} seeds)")
glue("agf-fig5", fig)

# %%
near5 = np.array([[np.min(np.abs(L5[:, r] / lv - 1)) for lv in pred5.levels[1:]] for r in range(N_SEEDS)])
fin5 = np.abs(L5[-1] / pred5.levels[-1] - 1)
gam_err = np.abs(Gam5[-1] - pred5.gamma(4)).max(axis=(-1, -2)) / pred5.A.max()
ledger.add("fig5.levels", "Lemma E.2, Eq. 7, Fig. 5", "GD visits the AGF levels ℓ_k = ½[trΣ − Σ_{i≤k} Nλ_i²/(trΣ + (N+1)λ_i)] and ends at "
           "Γ = Σ_k A_k v_k v_kᵀ.",
           measured=f"closest approach to ℓ₁..ℓ₄ per seed (relative): {np.round(near5, 4).tolist()}; final loss error {np.round(fin5, 5).tolist()}; "
                    f"final Γ error / max A_k: {np.round(gam_err, 4).tolist()}",
           tolerance="every level approached within 2%, final loss and Γ within 1e-3, every seed",
           passed=bool(near5.max() <= 0.02 and fin5.max() <= 1e-3 and gam_err.max() <= 1e-3), expected="reproduced")
ledger.add("fig5.jump-bound", "App. E (jump bound), Fig. 5", "Each drop comes no earlier than τ_{k−1} + √3/(η_α N λ_k² μ^{(k−1)}).",
           measured=f"drop steps per seed {np.round(drops5).astype(int).tolist()} vs bounds {np.round(bounds5).astype(int).tolist()}",
           tolerance="one-sided, every drop, every seed", passed=bool(okb), expected="reproduced")
uE1, thE1 = ms.maximise_on_sphere(lambda th: transformer.head_utility(th[:1], th[1:5].unsqueeze(0), th[5:].unsqueeze(0),
                                                                      torch.zeros(4, 4, dtype=F64), torch.tensor(Sig5), 32)[0],
                                  torch.randn(9, generator=generator(seed + 51), dtype=F64), lr=0.002, steps=5000)
ledger.add("lemma.E1", "Lemma E.1", "Maximal utility of a normalised head: Ū* = Nλ_k²/(3√3), at V̄ = ±1/√3, Q̄ = K̄ = ±v_k/√3.",
           measured=f"projected ascent: {uE1:.8f} vs {pred5.u_star[0]:.8f}; |V̄| = {abs(float(thE1[0])):.6f}, "
                    f"|⟨K̄, v₁⟩| = {abs(float(thE1[1:5] @ torch.tensor(pred5.v[:, 0]))):.6f} (1/√3 = {1 / math.sqrt(3):.6f})",
           tolerance="relative error < 1e-8; components within 1e-6",
           passed=bool(abs(uE1 / pred5.u_star[0] - 1) < 1e-8 and abs(abs(float(thE1[0])) - 1 / math.sqrt(3)) < 1e-6), expected="reproduced")
orders5 = [ms.activation_order(run5.steps, proj5[:, r], pred5.A) for r in range(N_SEEDS)]
ledger.add("fig5.order", "§4, App. E", "Heads learn Σ's eigenvectors in decreasing order of eigenvalue (principal-component regression).",
           measured=f"order in which v_kᵀΓv_k reaches A_k/2, per seed: {orders5}", tolerance="[0, 1, 2, 3] in every seed",
           passed=all(o == [0, 1, 2, 3] for o in orders5), expected="reproduced")

# %% [markdown]
# **Does the population loss change the result?** The authors train on fresh batches of 8192 prompts. Our
# loss is the expectation of theirs, evaluated exactly. A Monte Carlo estimate of the loss at the final
# GD iterate (and at the first plateau) with $10^5$ sampled prompts must agree with the population value
# to within its sampling error.

# %%
rs5 = np.random.RandomState(seed + 52)
i_pl = min(int(np.searchsorted(run5.steps, 0.5 * (drops5[0, 0] + drops5[0, 1]))), len(run5.steps) - 1)   # nan (quick): last
mc5 = [(transformer.monte_carlo_loss(Gam5[i, 0], Sig5, 32, 20_000 if quick else 100_000, rs5),
        float(transformer.population_loss(Gam5[i, 0], Sig5, 32))) for i in (i_pl, -1)]
ledger.add("protocol.population", "(our protocol)", "The closed-form population loss used for GD equals the sampled loss of the "
           "authors' protocol in expectation.",
           measured="; ".join(f"Monte Carlo {m:.4f} vs population {q:.4f}" for m, q in mc5),
           tolerance="within 3% (sampling error of 1e5 prompts ≈ 1%)",
           passed=bool(all(abs(m / q - 1) < 0.03 for m, q in mc5)), expected="reproduced")

# %% [markdown]
# ## Modular addition with a quadratic network (Figure 6)
# Input $(a\cdot x,b\cdot x)$ ($a\cdot x$ the cyclic shift of a centred template $x\in\mathbb R^p$), neurons
# $f_i=w_i(\langle u_i,a\cdot x\rangle+\langle v_i,b\cdot x\rangle)^2$ ($\kappa=3$), target $(a+b)\cdot x$, mean over all $p^2$ pairs.
# AGF (Lemma F.2, Theorem F.3): dormant neurons specialise to the dominant remaining frequency $\xi$ with
# $\bar U^*=\sqrt{2/(27p^3)}\,|\hat x[\xi]|^3$ and the phase condition $s_u+s_v-s_w-s_x\equiv0$; frequencies are learned in
# decreasing order of $|\hat x[\xi]|$; the levels are $\ell_k=\frac1{2p}\sum_{\text{unlearned}}|\hat x[k]|^2$ (Eq. 9). Authors'
# setup: $p=20$, $\hat x[\pm1,\pm3,\pm5]=10,5,2.5$, $H=18$, $u,v\sim\mathcal N(0,\alpha^2/2p)$, $w\sim\mathcal N(0,\alpha^2/p)$,
# heavy-ball momentum 0.9; their `nn.MSELoss` step 0.01 is our $h=10^{-3}$ (same iterates), i.e. $t\approx0.01$ per step.
# We use $\alpha=0.1$ (see the table above). We also run the general AGF (κ = 3, utility flow on the sphere,
# cost minimisation by the same momentum GD for 1000 steps per phase) from seed 0's initialisation. The drop lower bounds are the authors' formula
# $t_k\ge(1/\|\theta_0\|-1)/(3\bar U^*_k)$ with $\|\theta_0\|=\sqrt2\alpha$.

# %%
p6, H6, alpha6, h6, mom6 = 20, 18, 0.1, 1e-3, 0.9
x6 = modular.template(p6, {1: 10.0, 3: 5.0, 5: 2.5})
pred6 = modular.predict(x6)
X6, Y6 = (torch.tensor(a) for a in modular.dataset(x6))
g6 = generator(seed + 60)
U6 = alpha6 / math.sqrt(2 * p6) * torch.randn(N_SEEDS, H6, p6, generator=g6, dtype=F64)
V6 = alpha6 / math.sqrt(2 * p6) * torch.randn(N_SEEDS, H6, p6, generator=g6, dtype=F64)
W6 = alpha6 / math.sqrt(p6) * torch.randn(N_SEEDS, H6, p6, generator=g6, dtype=F64)
steps6 = int(SCALE * 25_000)
run6 = train(AM.modular_params(U6, V6, W6), X6, Y6, loss=LOSS, lr=h6, momentum=mom6, steps=steps6,
             record=log_schedule(steps6, 300), grad_fn=AM.square_grad, dense_loss=True, progress=False)
L6 = run6.dense_loss.numpy()
out6 = net_forward(run6.params, X6)                                                           # (T, R, p², p)
pow6 = modular.output_power(out6, p6).numpy()                                                 # (T, R, p//2+1)
t_step6 = h6 / (1 - mom6)
bound6 = (1 / (math.sqrt(2) * alpha6) - 1) / (3 * pred6.u_star) / t_step6                   # in steps
print("order", pred6.order, "levels", pred6.levels, "Ū*", np.round(pred6.u_star, 5), "bounds (steps)", np.round(bound6))

# simulated AGF (the general algorithm, κ = 3) from seed 0's initialisation, on the GD window
cost6 = 400 if quick else 1000


def mod_cost(net):
    return train(net, X6, Y6, loss=LOSS, lr=h6, momentum=mom6, steps=cost6, record=np.arange(0, cost6 + 1, 20),
                 grad_fn=AM.square_grad, progress=False)


agf6 = core.agf(AM.modular_params(U6[0], V6[0], W6[0]), X6, Y6, loss=LOSS, kappa=3, eta=1 / alpha6, cost_fn=mod_cost,
                dormant_tol=0.02, tau_max=steps6 * t_step6 * alpha6, dtau_max=0.05)
agf6_steps = agf6.tau / alpha6 / t_step6                                                      # accelerated τ → GD steps
agf6_pow = np.stack([modular.output_power(net_forward(n, X6), p6).numpy() for n in agf6.nets])  # (K+1, p//2+1)
print("simulated AGF: jumps (GD steps)", np.round(agf6_steps[1:]).astype(int), "levels", np.round(agf6.levels, 4))

# %%
fig = plt.figure(figsize=(14, 8), constrained_layout=True)
gsf = fig.add_gridspec(2, 4)
axL6, axP6 = fig.add_subplot(gsf[0, 0:2]), fig.add_subplot(gsf[0, 2:4])
s6 = np.arange(steps6 + 1)
for r in range(N_SEEDS):
    axL6.loglog(s6[1:], L6[1:, r], color=PALETTE[r % 6], lw=1.2, label=f"GD seed {r}")
for lv in pred6.levels[:-1]:
    axL6.axhline(lv, color=THEORY, ls=":", lw=0.8)
for b in bound6:
    axL6.axvline(b, color="0.5", ls="--", lw=0.8)
axL6.step(np.append(agf6_steps, steps6), np.append(agf6.levels, agf6.levels[-1]), where="post", color="k", ls="--", lw=1.3,
          label="simulated AGF (seed 0)")
axL6.set(xlabel="GD step (heavy ball: t ≈ 0.01 × step)", ylabel="loss", title="loss (dotted: Eq. 9 levels; dashed: drop lower bounds)", ylim=(1e-3, 10))
axL6.legend(fontsize="x-small")
for i, k in enumerate(pred6.order):
    axP6.semilogx(run6.steps[1:], pow6[1:, 0, k], color=PALETTE[i], lw=1.5, label=f"frequency {k}")
    axP6.axhline(pred6.amps[i], color=PALETTE[i], ls=":", lw=0.8)
    axP6.step(np.append(agf6_steps, steps6), np.append(agf6_pow[:, k], agf6_pow[-1, k]), where="post", color=PALETTE[i], ls="--", lw=1.0)
    axP6.annotate("", xy=(bound6[i], pred6.amps[i]), xytext=(bound6[i], 0), arrowprops=dict(arrowstyle="->", color=PALETTE[i], lw=0.8))
axP6.set(xlabel="GD step (heavy ball: t ≈ 0.01 × step)", ylabel="mean |rfft(output)|", title="output power per frequency (seed 0; dashed: AGF; dotted: target)")
axP6.legend(fontsize="x-small")
snap_steps = [int(s) for s in np.geomspace(max(10, bound6[0] / 2), steps6, 4)]
pair = int(torch.randint(0, p6 * p6, (1,), generator=generator(seed + 61)))
for j, st in enumerate(snap_steps):
    ax = fig.add_subplot(gsf[1, j])
    i_s = run6.index_of_step(st)
    ax.plot(Y6[pair].numpy(), "k--", lw=1, label="target")
    ax.plot(out6[i_s, 0, pair].numpy(), color=POS, lw=1.5, label="network")
    W_t = run6.params.W2[i_s, 0].T.numpy()                                                   # (H, p)
    dom = modular.dominant_frequency(torch.tensor(W_t)).numpy()
    big = np.linalg.norm(W_t, axis=1) > 0.3 * np.linalg.norm(W_t, axis=1).max()
    ax.set(title=f"step {run6.steps[i_s]:,}", xlabel="output index", ylim=(-2.2, 2.6))
    ax.text(0.02, 0.97, f"large neurons' frequencies: {sorted(set(dom[big].tolist()))}", transform=ax.transAxes, fontsize="x-small", va="top")
    if j == 0:
        ax.legend(fontsize="x-small", loc="lower left")
label_panels(fig.axes)
fig.suptitle(f"Figure 6 — modular addition, p = 20, H = 18, α = {alpha6}: frequencies 1, 3, 5 learned in turn (seed 0)")
glue("agf-fig6", fig)

# %%
fig, axes = panel_grid(3, width=4.4, height=3.3)
Wf = run6.params.W2[-1, 0].T.numpy()
Uf, Vf = run6.params.W1[-1, 0, :, :p6].numpy(), run6.params.W1[-1, 0, :, p6:].numpy()
domf = modular.dominant_frequency(torch.tensor(Wf)).numpy()
for i in np.argsort(domf):
    axes[0].plot(Wf[i], color=PALETTE[pred6.order.index(domf[i]) if domf[i] in pred6.order else 5], lw=1, alpha=0.8)
axes[0].set(title="rows $w_i$ at the end (colour: dominant frequency)", xlabel="index")
spec = np.abs(np.fft.rfft(Wf, axis=1)) ** 2
axes[1].imshow(spec[np.argsort(domf)], aspect="auto", cmap="Greys")
axes[1].set(title="power spectra of $w_i$ (sorted)", xlabel="frequency", ylabel="neuron")
ax = fig.add_subplot(1, 3, 3, projection="polar")
axes[2].remove()
phase_res = []
xh6 = np.fft.fft(x6)
for i in range(H6):
    k = domf[i]
    s_ = [np.angle(np.fft.fft(t)[k]) for t in (Uf[i], Vf[i], Wf[i])] + [np.angle(xh6[k])]
    res = (s_[0] + s_[1] - s_[2] - s_[3] + np.pi) % (2 * np.pi) - np.pi
    phase_res.append(res)
    ax.scatter([s_[2]], [1 + pred6.order.index(k) if k in pred6.order else 4], color=PALETTE[pred6.order.index(k) if k in pred6.order else 5], s=20)
ax.set_title("phases of $\\hat w_i[\\xi_i]$ (radius: frequency rank)", fontsize="small")
label_panels([axes[0], axes[1], ax])
fig.suptitle("Figure 6 (d) — the learned neurons: single-frequency waveforms")
glue("agf-fig6d", fig)

# %%
near6 = np.array([[np.min(np.abs(L6[:, r] / lv - 1)) for lv in pred6.levels[1:3]] for r in range(N_SEEDS)])
orders6, drops6 = [], []
for r in range(N_SEEDS):
    t_half = [float(np.interp(0.5 * pred6.amps[i], pow6[:, r, k], run6.steps)) if pow6[-1, r, k] >= 0.5 * pred6.amps[i] else np.inf
              for i, k in enumerate(pred6.order)]
    orders6.append([pred6.order[i] for i in np.argsort(t_half) if np.isfinite(t_half[i])])
    drops6.append(ms.drop_times(s6.astype(float), L6[:, r], pred6.levels))
drops6 = np.array(drops6)
ledger.add("fig6.order", "§5, Thm F.3, Fig. 6", "Frequencies are learned one at a time in decreasing order of |x̂[ξ]|.",
           measured=f"order in which the output power reaches half the target, per seed: {orders6}", tolerance="[1, 3, 5] in every seed",
           passed=all(o == [1, 3, 5] for o in orders6), expected="reproduced")
ledger.add("fig6.levels", "Eq. 9, Fig. 6", "The loss plateaus at ℓ_k = (1/2p) Σ_unlearned |x̂[k]|² (1.5625 and 0.3125; ×2/p in nn.MSELoss units: 0.15625, 0.03125).",
           measured=f"closest approach to ℓ₁, ℓ₂ per seed (relative): {np.round(near6, 4).tolist()}",
           tolerance="within 2% in every seed", passed=bool(near6.max() <= 0.02), expected="reproduced")
agf_cross = ms.staircase_drop_times(agf6_steps, agf6.levels, pred6.levels)
err6 = ms.relative_errors(drops6[0], agf_cross)
ledger.add("fig6.agf-vs-gd", "§5 (simulated AGF ≈ GF), Fig. 6", "Simulated AGF reproduces the GD loss curve of modular addition.",
           measured=f"seed 0: GD mid-level drops {np.round(drops6[0]).tolist()} vs AGF {np.round(agf_cross).tolist()} (rel. errors "
                    f"{np.round(err6, 3).tolist()}); AGF levels after the groups {np.round(agf6.levels, 3).tolist()}",
           tolerance="every drop reached by both, within 25% (α = 0.1 is not small)", passed=bool(np.all(err6 <= 0.25)), expected="reproduced")
ledger.add("fig6.bounds", "§5 (jump bound), Fig. 6", "Each frequency is learned no earlier than (1/‖θ₀‖ − 1)/(3Ū*_k).",
           measured=f"GD mid-level drop steps per seed {np.round(drops6).tolist()} vs bounds {np.round(bound6).astype(int).tolist()}",
           tolerance="one-sided, every drop reached, every seed", passed=bool(np.all(drops6 >= bound6)), expected="reproduced")
big6 = np.linalg.norm(Wf, axis=1) > 0.3 * np.linalg.norm(Wf, axis=1).max()
ledger.add("thmF3.phase", "Thm F.3", "Learned neurons are single-frequency and satisfy s_u + s_v − s_w − s_x ≡ 0 (mod 2π).",
           measured=f"seed 0, {int(big6.sum())} large neurons: max |phase residual| {np.max(np.abs(np.array(phase_res)[big6])):.3f} rad; "
                    f"share of spectral power at the dominant frequency ≥ {np.min((spec.max(1) / spec.sum(1))[big6]):.3f}",
           tolerance="residual < 0.1 rad; dominant share > 0.9",
           passed=bool(np.max(np.abs(np.array(phase_res)[big6])) < 0.1 and np.min((spec.max(1) / spec.sum(1))[big6]) > 0.9),
           expected="not reproduced")
# GD (with or without momentum) is not the flow: test the O(h) vanishing of the drift instead, from the
# network at the end of the run, over the same GF time at h and h/2 without momentum
p_mid = run6.at(-1)
drift6 = []
for h_ in (2e-3, 1e-3):
    tr_ = train(p_mid, X6, Y6, loss=LOSS, lr=h_, steps=int(2.0 / h_), record=20, grad_fn=AM.square_grad, progress=False)
    c6 = core.conserved(tr_.params, 3)
    drift6.append(float((c6 - c6[0]).abs().max() / (tr_.params.neuron_vectors()[0] ** 2).sum(-1).max()))
ledger.add("B3.conserved-k3", "App. B.3", "2‖a_i‖² − ‖w_i‖² is conserved for κ = 3 neurons (modular-addition network): "
           "GD's drift vanishes with the step.",
           measured=f"drift over GF time 2 (relative to the largest ‖θ_i‖²): {fmt(drift6[0], 3)} at h = 2e-3, {fmt(drift6[1], 3)} at h = 1e-3 "
                    f"(ratio {drift6[0] / drift6[1]:.2f})",
           tolerance="ratio 2 ± 0.2 (O(h)); drift < 1e-2", passed=bool(abs(drift6[0] / drift6[1] - 2) <= 0.2 and drift6[0] < 1e-2),
           expected="reproduced")

# %%
xF = modular.template(11, {1: 4.0, 2: 6.0, 4: 1.0})
predF = modular.predict(xF)
XF, YF = (torch.tensor(a) for a in modular.dataset(xF))


def util_F(th):
    f = (XF[:, :11] @ th[:11] + XF[:, 11:22] @ th[11:22]) ** 2
    return (f * (YF @ th[22:])).mean()


uF, thF = ms.maximise_on_sphere(util_F, torch.randn(33, generator=generator(seed + 70), dtype=F64), lr=0.02, steps=4000)
thF = thF.numpy()
rsF = np.random.RandomState(seed)
uvw = rsF.randn(3, 11)
f2_err = abs(modular.fourier_utility(*uvw, xF) - modular.direct_utility(*uvw, xF)) / abs(modular.direct_utility(*uvw, xF))
phF = [np.angle(np.fft.fft(t)[predF.order[0]]) for t in (thF[:11], thF[11:22], thF[22:], xF)]
resF = abs((phF[0] + phF[1] - phF[2] - phF[3] + np.pi) % (2 * np.pi) - np.pi)
ledger.add("lemma.F2-thm.F3", "Lemma F.2, Thm F.3", "Fourier form of the utility; the unit-norm maximiser sits on the dominant frequency "
           "with Ū* = √(2/(27p³))|x̂[ξ]|³, norms 1/√3 and the phase condition (p = 11, x̂[1, 2, 4] = 4, 6, 1).",
           measured=f"Fourier vs direct utility: rel. error {fmt(f2_err, 2)}; ascent max {uF:.8f} vs {predF.u_star[0]:.8f}; "
                    f"block norms {np.round([np.linalg.norm(thF[:11]), np.linalg.norm(thF[11:22]), np.linalg.norm(thF[22:])], 6).tolist()}; phase residual {resF:.2e}",
           tolerance="identity to 1e-10; Ū* to 1e-6 relative; norms to 1e-5; phase < 1e-4",
           passed=bool(f2_err < 1e-10 and abs(uF / predF.u_star[0] - 1) < 1e-6 and resF < 1e-4
                       and max(abs(np.linalg.norm(b) - 1 / math.sqrt(3)) for b in (thF[:11], thF[11:22], thF[22:])) < 1e-5),
           expected="reproduced")

# %% [markdown]
# ## What we see
# AGF's closed forms are exact where they can be checked (every lemma and theorem above, and the
# general algorithm reproduces the DLN closed form). Against gradient descent: the *order* in which
# features are learned and the *loss levels* are reproduced in every model and every seed; the *jump
# times* converge to AGF's as $\alpha\to0$ at the rate $O(1/\eta_\alpha)$, but at practical $\alpha$ the mid-level
# crossings lag the jumps by 2–20% — more than our pre-set $1/\eta_\alpha$ tolerance for the diagonal and fully
# connected networks. Conjecture 4.1's open (non-commuting) case behaves like the proved commuting case.
# For $\kappa=3$ (transformer, modular addition) the paper's jump lower bounds hold in every seed, and the
# simulated AGF follows the GD loss of modular addition including its single-neuron sub-steps.
#
# **Not done.** The authors' $\alpha=10^{-2}$ for modular addition (we use $0.1$; the order and levels do not depend
# on $\alpha$, the time scale does, and we have not checked that nothing else does); a simulated AGF for the
# transformer (we draw its levels and bounds, not an AGF step curve); the authors' exact random draws for
# Figure 4; and the CIFAR-10 ReLU experiment of the authors' code (no dataset offline).

# %% [markdown]
# ## Claims ledger
# Every checkable statement this chapter tests, with what we measured, the tolerance and the
# verdict. The build fails if a measured verdict differs from the expected one.

# %%
ledger.save(ledger_path)
print(ledger.summary())
ledger.check(strict=not quick and seed == 0)   # enforced for the book's own run
ledger.table()
