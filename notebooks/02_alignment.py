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
# and the theorem's statements on synthetic orthogonally separable data in float64, over seeds.
#
# **Conventions.** The paper's loss is a *sum* $\mathcal L=\sum_i \ell(y_i,f(x_i))$ with
# $\ell(y,\hat y)=e^{-y\hat y}$ (or $2\log(1+e^{-y\hat y})$), minimised by gradient flow; GD step $k$
# with step $\eta$ is time $t=\eta k$. The theory runs and the toy figures use this sum. The MNIST
# figures use the **mean** $\frac1n\sum_i e^{-y_if(x_i)}$: with the sum and the paper's step
# $\eta=2\cdot10^{-3}$, one step moves a neuron by $\eta\|x_+\|\gg1$ at $n$ in the thousands, GD is
# far from the flow and no alignment phase is visible (the spec's pilot); with the mean the
# paper's time scales (~2000 iterations to align, ~3000 to start fitting) are recovered.

# %% [markdown]
# **Choices the paper leaves open**
#
# | what | our choice | why |
# |---|---|---|
# | MNIST images | the first 1000 training images of each digit (committed subset), pixels in $[0,1]$, centred by the mean of the selected images | the paper gives no count; 2000 images keep a rerun to a minute; centring makes $x_+=-x_-$ exactly |
# | labels | $1\to+1$, $0\to-1$; $3\to+1$, $8\to-1$; $1\to+1$, $7\to-1$ | the heatmap lists digit 1 first; the problem is symmetric |
# | MNIST loss | exponential, mean over points; float32 | see Conventions |
# | MNIST iterations | 8000 (images of panel 4 at the last iterate) | the two phases are complete by then |
# | toy data (Fig. 6) | 3 positive points at 10°, 25°, 40° (norms 0.8, 1, 1.2) and 3 negative at 140°, 155°, 170° with norms ×0.6 | only drawn in the paper; all in a half-plane so $\mathcal S_{\rm dead}\neq\emptyset$; $\mu=\cos80°$; shorter negatives make the classes fit at different times, as the paper's two loss drops require (the spec's 15°…165° proposal has $\mu=0$) |
# | seeds | 10 seeds for the $\mu$ counts, 5 for sweeps | the paper's counts are one instance |
# | Figs. 12–13 | all 5000 images of 0/1 in the subset, batch 2000 (the paper's), 6000 steps | ~2.5 steps per epoch, as close to the paper as the subset allows |

# %% tags=["parameters"]
seed = 0            # base seed of every random draw in this chapter
quick = False       # True: fewer images, seeds and iterations (tests only)
ledger_path = ""    # write the claims ledger to this JSON file (empty string: no file)

# %%
import math

import numpy as np
import matplotlib.pyplot as plt
import torch

from lrlib import nbparams
from lrlib.claims_legacy import Ledger, fmt
from lrlib.data import mnist_pair
from lrlib.losses import Loss
from lrlib.models import TwoLayer, forward, gaussian_init, generator, random_signs
from lrlib.plots import NEG, POS, THEORY, glue, label_panels, panel_grid, set_style
from lrlib.theory import alignment as al
from lrlib.track import balancedness_drift, drops, first_crossing, plateaus, stable_rank
from lrlib.train import train
from lrlib.trajectory import linear_schedule

quick = nbparams.check_common(seed, quick, ledger_path)
torch.set_num_threads(1)
set_style()
ledger = Ledger("alignment")
EXP_SUM = Loss("exponential", "sum")      # the paper's loss
EXP_MEAN = Loss("exponential", "mean")    # MNIST figures (see Conventions)
N_SEEDS = 3 if quick else 10
print("theory and toy runs:", EXP_SUM.describe(), "| MNIST runs:", EXP_MEAN.describe())

# %% [markdown]
# ## The mechanism (Figures 1 and 2), computed
# While all neurons are tiny the output is $\approx0$, $-\ell'\approx y$, and each direction follows
# $\frac{d}{dt}\frac{w_j}{\|w_j\|}\simeq \operatorname{sign}(v_j)\,P_{w_j}x_a(w_j)$ with the signed
# activated sum $x_a(w)=\sum_{i:\langle x_i,w\rangle>0}y_ix_i$ (eq. 4). Figure 1 draws this field on
# the unit circle for a positive neuron and three points ($x_1$ positive; $x_2,x_3$ negative).
# Figure 2 colours every direction of the plane by the cone it belongs to, for the toy data of
# Figure 6: $\mathcal S_+$ (activates exactly the positive points), $\mathcal S_-$, $\mathcal S_{\rm dead}$.

# %%
angles = torch.linspace(0, 2 * math.pi, 48 + 1, dtype=torch.float64)[:-1]
circle = torch.stack([angles.cos(), angles.sin()], -1)                     # (48, 2)
X_f1 = torch.tensor([[1.0, 0.35], [0.1, 1.0], [-1.0, -0.45]], dtype=torch.float64)
y_f1 = torch.tensor([1.0, -1.0, -1.0], dtype=torch.float64)
probe = TwoLayer(W1=circle, W2=torch.ones(1, len(circle), dtype=torch.float64))
field = al.approx_direction_velocity(probe, X_f1, y_f1)                   # (48, 2)
X_toy, y_toy = al.toy_2d()
X_toy[y_toy < 0] *= 0.6                      # shorter negatives: the two classes are fitted at different times
g_toy = al.geometry(X_toy, y_toy)
fine = torch.linspace(0, 2 * math.pi, 721, dtype=torch.float64)[:-1]
dirs = torch.stack([fine.cos(), fine.sin()], -1)
cones = al.cone_membership(dirs, X_toy, y_toy)

fig, ax = plt.subplots(figsize=(4.2, 4.2), constrained_layout=True)
ax.plot(circle[:, 0], circle[:, 1], color="0.8", lw=0.8)
ax.quiver(circle[:, 0], circle[:, 1], field[:, 0], field[:, 1], color=POS, angles="xy", scale_units="xy", scale=4, width=0.004)
for x, lab in zip(X_f1, y_f1):
    ax.scatter(*x, color=POS if lab > 0 else NEG, s=60, marker="o" if lab > 0 else "s", zorder=4)
ax.set(aspect="equal", title="Figure 1 — sign(v) $P_w x_a(w)$ for $v>0$ (circle: $x_1$ positive)", xticks=[], yticks=[])
glue("alignment-fig1", fig)

fig, ax = plt.subplots(figsize=(4.6, 4.6), constrained_layout=True)
for name, col in [("S_plus", POS), ("S_minus", NEG), ("S_dead", "0.3"), ("other", "0.85")]:
    sel = cones[name]
    ax.scatter(dirs[sel, 0], dirs[sel, 1], s=6, color=col, label={"S_plus": "$\\mathcal{S}_+$", "S_minus": "$\\mathcal{S}_-$",
                                                                  "S_dead": "$\\mathcal{S}_{dead}$", "other": "other"}[name])
for x, lab in zip(X_toy, y_toy):
    ax.scatter(*(0.8 * x), color=POS if lab > 0 else NEG, s=40, marker="o" if lab > 0 else "s", zorder=4)
for v, col, nm in [(g_toy.x_plus, POS, "$x_+$"), (g_toy.x_minus, NEG, "$x_-$")]:
    u = 0.6 * v / v.norm()
    ax.annotate("", xy=u.tolist(), xytext=(0, 0), arrowprops=dict(color=col, width=1.5, headwidth=7))
    ax.text(*(1.15 * u).tolist(), nm, color=col)
ax.set(aspect="equal", title="Figure 2 — the cones of the toy data", xticks=[], yticks=[])
ax.legend(loc="lower center", ncol=4, fontsize="small", markerscale=2)
glue("alignment-fig2", fig)
print(f"toy data: mu = {g_toy.mu:.4f}, S_dead non-empty: {bool(cones['S_dead'].any())}")

# %% [markdown]
# ## A 2-D toy example (Figure 6)
# Appendix A.1: $h=50$, $[W]_{ij},v_j\sim\mathcal N(0,\alpha^2)$ with $\alpha=10^{-6}$ (not balanced),
# GD on $W$ and $v$ with $\eta=2\cdot10^{-3}$ on the summed exponential loss, 30 000 iterations. Since the
# initialisation is not balanced, $V_\pm(t)$ is read from $\operatorname{sign}v_j(t)$ at each snapshot.
# Panels: (a) initialisation; (b) the first snapshot where every neuron lies in $\mathcal S_+$,
# $\mathcal S_-$ or $\mathcal S_{\rm dead}$ (end of alignment); (c) the end; (d) loss, $\|W\|_2^2$ and
# stable rank. Neurons are drawn at $w_j/\max_k\|w_k\|$ (blue: $v_j>0$, red: $v_j<0$).

# %%
steps_toy = 30_000
p6 = gaussian_init(50, 2, std_in=1e-6, std_out=1e-6, gen=generator(seed))
toy = train(p6, X_toy, y_toy, loss=EXP_SUM, lr=2e-3, steps=steps_toy, record=linear_schedule(steps_toy, 100))
ok_t = al.settled(toy.params, X_toy, y_toy).all(-1).numpy()
i_al = int(np.argmax(ok_t)) if ok_t.any() else len(toy) - 1


def draw_neurons(ax, p, X, y, title):
    w = p.W1 / p.norms_in().max()
    for x, lab in zip(X, y):
        ax.scatter(*(x / X.norm(dim=-1).max()).tolist(), color=POS if lab > 0 else NEG, s=50,
                   marker="o" if lab > 0 else "s", edgecolor="k", zorder=5)
    for wj, vj in zip(w, p.a):
        col = POS if vj > 0 else NEG
        ax.plot([0, wj[0]], [0, wj[1]], color=col, lw=0.6, alpha=0.6)
        ax.scatter(wj[0], wj[1], color=col, s=8, marker="^")
    ax.set(aspect="equal", xlim=(-1.1, 1.1), ylim=(-1.1, 1.1), xticks=[], yticks=[], title=title)


sr_t, s2_t = stable_rank(toy.params.W1)
fig, axes = panel_grid(4, width=3.3, height=3.3)
for ax, i, name in zip(axes, [0, i_al, len(toy) - 1], ["initialisation", "end of alignment", "end of training"]):
    draw_neurons(ax, toy.at(i), X_toy, y_toy, f"{name}, it. {toy.steps[i]:,}")
ax = axes[3]
ax.semilogy(toy.steps, toy.loss.numpy(), color="k", label="loss")
ax.semilogy(toy.steps, s2_t.numpy(), color=THEORY, label="$\\|W\\|_2^2$")
ax.semilogy(toy.steps, sr_t.numpy(), color="0.5", ls="--", label="stable rank")
ax.axvline(toy.steps[i_al], color=THEORY, ls=":", lw=1)
ax.set(xlabel="iteration", title="training curves")
ax.legend(fontsize="small")
label_panels(axes)
fig.suptitle("Figure 6 — 2-D toy: alignment, then growth")
glue("alignment-fig6", fig)

# %%
L_toy = toy.loss.numpy()
pl_toy = [pl for pl in plateaus(L_toy, tol=0.002) if pl[0] > i_al and L_toy[pl[0]] < 0.9 * L_toy[0]]
dr_toy = drops(toy.steps, L_toy)
print(f"plateaus after the first drop: {len(pl_toy)}; sharp drops at iterations {[int(toy.steps[i]) for i in dr_toy]}")
ledger.add("fig6.two-drops", "Fig. 6, App. A.1", "After alignment the loss shows two sharp decreases before approaching zero.",
           measured=f"{len(dr_toy)} separate drops of the loss (peaks of −d log L/dk at iterations "
                    f"{', '.join(str(int(toy.steps[i])) for i in dr_toy)}); loss {L_toy[0]:.3g} → {L_toy[-1]:.3g}",
           tolerance="exactly two drops (decrease-rate peaks above 10% of the largest, separated by a dip below half); "
                     "final loss < 1% of the initial",
           passed=bool(len(dr_toy) == 2 and L_toy[-1] < 0.01 * L_toy[0]), expected="reproduced")

# %% [markdown]
# The two drops are the two classes being fitted one after the other (their $\|x_\pm\|$ differ).
# Between them the loss is not flat — it keeps falling by about 2% per 100 iterations — so a plateau
# test (our first attempt: $\log\mathcal L$ flat to 0.2% per 100 iterations) finds no plateau; the
# ledger counts the separate peaks of the decrease rate instead, which is what "two sharp decreases"
# says.

# %% [markdown]
# ## The effect of $\mu$ (Figures 7, 8, 9)
# Appendices A.2–A.3: the setting of Figure 6 with two positive points only, $x_1=[1,0]$ and
# $x_2=[\sin\theta,\cos\theta]$, so $\mu=\sin\theta$: $\theta=0.1$ (Figure 7), $\theta=0.001$ (Figure 8)
# and $\theta=0$, orthogonal data (Figure 9). The paper: with $\mu=\sin0.1$ the non-dead positive
# neurons all reach $\mathcal S_+$ (activating both points) quickly; with $\mu=\sin0.001$ some are still
# outside $\mathcal S_+$ at iteration 7000 and, "in this particular instance", one at 21 000; with
# orthogonal data neurons end aligned with $x_1$, $x_2$ or $x_+$ and only those in $\mathcal S_+$ grow.
# The counts are random, so we train 10 seeds of each (one batched run per $\theta$) and count, at
# iterations 7000 and 21 000, the non-dead $v_j>0$ neurons outside $\mathcal S_+$.

# %%
steps_mu = 30_000
rec_mu = np.union1d(linear_schedule(steps_mu, 500), [7000, 21_000])
runs_mu = {}
for name, theta in [("fig7", 0.1), ("fig8", 0.001), ("fig9", 0.0)]:
    X2, y2 = al.two_point_data(theta)
    p2 = gaussian_init(50, 2, std_in=1e-6, std_out=1e-6, gen=generator(seed + 10), runs=(N_SEEDS,))
    runs_mu[name] = (X2, y2, train(p2, X2, y2, loss=EXP_SUM, lr=2e-3, steps=steps_mu, record=rec_mu))


counts = {name: {k: al.live_outside_s_plus(tr.at(tr.index_of_step(k)), X2, y2).numpy() for k in (7000, 21_000)}
          for name, (X2, y2, tr) in runs_mu.items()}
for name, cts in counts.items():
    print(name, {k: v.tolist() for k, v in cts.items()})

for (name, (X2, y2, tr)), mu_txt in zip(runs_mu.items(), ["\\sin 0.1", "\\sin 0.001", "0"]):
    r = int(np.argmax(counts[name][7000]))      # show the seed with the most stragglers at 7000
    fig, axes = panel_grid(4, width=2.9, height=2.9)
    for ax, step in zip(axes, [0, 7000, 21_000, steps_mu]):
        draw_neurons(ax, tr.run(r).at(tr.index_of_step(step)), X2, y2, f"iteration {step:,}")
        if step in (7000, 21_000):
            ax.text(-1.05, -1.0, f"outside $\\mathcal{{S}}_+$: {counts[name][step][r]}", fontsize="small")
    label_panels(axes)
    fig.suptitle(f"Figure {name[3]} — two positive points, $\\mu={mu_txt}$ (seed {r} of {N_SEEDS}: most stragglers at 7000)")
    glue(f"alignment-{name}", fig)

# %% [markdown]
# With $\mu=\sin0.001$ the slow neurons are seed-dependent: in some seeds every live positive neuron
# has reached $\mathcal S_+$ by iteration 7000, in others a few have not, and some are still outside at
# 21 000. The paper shows one instance; the summed loss we use (the paper's) gives fewer stragglers
# than a mean-reduced one would (a larger effective step). We publish the claim as *partial*.

# %%
c7, c8 = counts["fig7"], counts["fig8"]
ledger.add("fig7.fast", "Fig. 7, App. A.2", "With μ = sin 0.1 every non-dead positive neuron has reached S₊ by iteration 7000.",
           measured=f"non-dead V₊ neurons outside S₊ at 7000: {c7[7000].tolist()} over {N_SEEDS} seeds",
           tolerance="0 in every seed", passed=bool((c7[7000] == 0).all()), expected="reproduced")
ledger.add("fig8.slow", "Fig. 8, App. A.2", "With μ = sin 0.001 alignment is slower: neurons are still outside S₊ at "
           "iteration 7000, and in some instances at 21000.",
           measured=f"outside S₊ at 7000: {c8[7000].tolist()}; at 21000: {c8[21_000].tolist()}",
           tolerance="reproduced: ≥ 1 at 7000 in every seed and ≥ 1 at 21000 in at least one; partial: "
                     "≥ 1 at 7000 and at 21000 in some seeds (the paper reports one instance)",
           passed="reproduced" if ((c8[7000] >= 1).all() and (c8[21_000] >= 1).any())
           else ("partial" if ((c8[7000] >= 1).any() and (c8[21_000] >= 1).any()) else "not reproduced"),
           expected="partial")
X9, y9, tr9 = runs_mu["fig9"]
fin9 = tr9.final
c9 = al.cone_membership(fin9.W1, X9, y9)
live9 = (fin9.a > 0) & ~c9["S_dead"]
grow = fin9.norms_in()
big_in = torch.where(live9 & c9["S_plus"], grow, torch.zeros_like(grow)).amax(-1)
big_out = torch.where(live9 & ~c9["S_plus"], grow, torch.zeros_like(grow)).amax(-1)
frac_out = ((live9 & ~c9["S_plus"]).sum(-1) / live9.sum(-1).clamp_min(1)).numpy()
ledger.add("fig9.orthogonal", "Fig. 9, App. A.3", "With orthogonal data (μ = 0) S₊ no longer collects all non-dead positive "
           "neurons; only those in S₊ grow.",
           measured=f"share of non-dead V₊ neurons outside S₊ at the end: {frac_out.min():.2f}–{frac_out.max():.2f}; "
                    f"largest norm outside / inside S₊: {fmt((big_out / big_in).max().item())}",
           tolerance="reproduced: share > 0 in every seed and outside norms < 1% of the largest S₊ norm; "
                     "partial: only the first holds",
           passed="reproduced" if ((frac_out > 0).all() and ((big_out / big_in) < 0.01).all())
           else ("partial" if (frac_out > 0).all() else "not reproduced"),
           expected="partial")

# %% [markdown]
# With orthogonal data most live positive neurons indeed stay outside $\mathcal S_+$ (aligned with
# $x_1$ or $x_2$ alone), as the paper says. But they do not stay small: they too grow, by orders of
# magnitude, to a few percent of the norm of the $\mathcal S_+$ neurons, because each of them fits its
# own point. "Only those aligned with $x_+$ grow" holds only in relative terms; the claim is *partial*.

# %% [markdown]
# ## Centred MNIST (Figures 5, 10 and 11)
# Section 4: two digits, centred (so Assumption 1 holds only approximately), $h=50$,
# $[W]_{ij},v_j\sim\mathcal N(0,\alpha^2)$ with $\alpha=10^{-6}$, full-batch GD on $W$ and $v$ with
# $\eta=2\cdot10^{-3}$. Four panels per pair: (a) the Gram matrix $\langle x_i,x_j\rangle$ sorted by label
# (positive digit first); (b, c) the alignment $\cos(\bar w_\pm,x_\pm)$ of the mean neuron
# $\bar w_+=\frac1{|V_+|}\sum_{j\in V_+}w_j$ with a min–max band over $V_\pm(t)$; (d) loss, stable rank and
# $\|W\|_2^2$; (e) $\bar w_\pm$ next to the class means $\bar x_\pm$ as images.

# %%
n_img = 200 if quick else 1000
steps_mn = 4000 if quick else 8000
rec_mn = linear_schedule(steps_mn, 50)


def run_mnist(pos, neg):
    X, y = mnist_pair(pos, neg, n_img, dtype=torch.float32)
    p = gaussian_init(50, 784, std_in=1e-6, std_out=1e-6, gen=generator(seed), dtype=torch.float32)
    return X, y, train(p, X, y, loss=EXP_MEAN, lr=2e-3, steps=steps_mn, record=rec_mn)


def mnist_figure(X, y, traj, pos, neg, key, fig_no):
    bands = al.class_alignment(traj, X, y)
    sr, s2 = stable_rank(traj.params.W1)
    fig = plt.figure(figsize=(13, 6.4), constrained_layout=True)
    gs = fig.add_gridspec(2, 3)
    ax = fig.add_subplot(gs[0, 0])
    order = torch.argsort(-y, stable=True)
    G = (X[order] @ X[order].T).numpy()
    lim = np.quantile(np.abs(G), 0.99)
    im = ax.imshow(G, cmap="RdBu_r", vmin=-lim, vmax=lim, interpolation="nearest")
    fig.colorbar(im, ax=ax, shrink=0.8)
    ax.set(title=f"(a) Gram matrix, digit {pos} then {neg}", xticks=[], yticks=[])
    for k, (side, col) in enumerate([("+", POS), ("-", NEG)]):
        ax = fig.add_subplot(gs[0, 1 + k])
        mean_c, lo, hi = bands[side]
        ax.plot(traj.steps, mean_c, color=col, label=f"$\\cos(\\bar w_{side}, x_{side})$")
        ax.fill_between(traj.steps, lo, hi, color=col, alpha=0.25, label="min–max over $V_" + side + "$")
        ax.set(xlabel="iteration", ylim=(-1, 1.05), title=f"({'bc'[k]}) alignment, $V_{side}$ (digit {pos if side == '+' else neg})")
        ax.legend(loc="lower right", fontsize="small")
    ax = fig.add_subplot(gs[1, 0:2])
    ax.semilogy(traj.steps, traj.loss.numpy(), color="k", label="loss")
    ax.semilogy(traj.steps, s2.numpy(), color=THEORY, label="$\\|W\\|_2^2$")
    ax.semilogy(traj.steps, sr.numpy(), color="0.5", ls="--", label="stable rank $\\|W\\|_F^2/\\|W\\|_2^2$")
    ax.set(xlabel="iteration (GD, $\\eta=2\\cdot10^{-3}$)", title="(d) training curves")
    ax.legend(fontsize="small", loc="lower right")
    ax = fig.add_subplot(gs[1, 2])
    fin = traj.final
    tiles = []
    for sgn in (1, -1):
        mask = torch.sign(fin.a) == sgn
        w_mean = fin.W1[mask].mean(0)
        x_mean = X[y == sgn].mean(0)
        tiles.append(np.hstack([(v / v.abs().max()).reshape(28, 28).numpy() for v in (w_mean, x_mean)]))
    ax.imshow(np.vstack(tiles), cmap="gray")
    ax.set(title=f"(e) $\\bar w_+$, $\\bar x_+$ (top); $\\bar w_-$, $\\bar x_-$ (bottom), it. {traj.steps[-1]:,}",
           xticks=[], yticks=[])
    fig.suptitle(f"Figure {fig_no} — centred MNIST, digits {pos} (+1) vs {neg} (−1), {len(y)} images")
    glue(key, fig)
    return bands, sr.numpy(), s2.numpy()


mn = {}
for pos, neg, key, fig_no in [(1, 0, "alignment-fig5", 5), (3, 8, "alignment-fig10", 10), (1, 7, "alignment-fig11", 11)]:
    X, y, tr = run_mnist(pos, neg)
    mn[(pos, neg)] = (X, y, tr, *mnist_figure(X, y, tr, pos, neg, key, fig_no))

# %%
rows = []
for (pos, neg), (X, y, tr, bands, sr, s2) in mn.items():
    both = np.minimum(bands["+"][0], bands["-"][0])
    k_align = first_crossing(tr.steps, -both, -0.95)                        # first step with both cos > 0.95
    L = tr.loss.numpy()
    k_drop = first_crossing(tr.steps, L, 0.9 * L[0])
    drop = max(bands[s][0].max() - bands[s][0][-1] for s in "+-")
    G = X @ X.T
    consistent = float(((G * (y[:, None] * y[None, :])) > 0).float().mean())
    rows.append(dict(pair=f"{pos} vs {neg}", consistent_pairs=consistent, k_align=k_align, k_drop=k_drop,
                     align_drop=drop, final_stable_rank=sr[-1], final_loss=L[-1]))
import pandas as pd
mn_tab = pd.DataFrame(rows)
mn_tab

# %%
r01 = mn_tab.iloc[0]
ledger.add("mnist.timescales", "Fig. 5, §4", "On centred MNIST 0 vs 1 the neurons are well aligned (cos > 0.95) after about "
           "2000 iterations, and the loss starts to fall after about 3000.",
           measured=f"both cos > 0.95 at iteration {r01.k_align:.0f}; loss < 0.9·L₀ at {r01.k_drop:.0f}",
           tolerance="alignment by 2500; loss drop in [2500, 4500]",
           passed=bool(r01.k_align <= 2500 and 2500 <= r01.k_drop <= 4500), expected="reproduced")
ledger.add("mnist.align-first", "Figs. 5, 10, 11", "Good alignment (cos > 0.95) comes before the loss drops, for each digit pair.",
           measured="; ".join(f"{r.pair}: aligned at {r.k_align:.0f}, drop at {r.k_drop:.0f}" for r in mn_tab.itertuples()),
           tolerance="k_align < k_drop for every pair", passed=bool((mn_tab.k_align < mn_tab.k_drop).all()),
           expected="reproduced")
ledger.add("mnist.align-decreases", "Fig. 5, §4", "Once the loss falls, the alignment decreases.",
           measured="; ".join(f"{r.pair}: peak − final cos = {r.align_drop:.3f}" for r in mn_tab.itertuples()),
           tolerance="> 0.01 for every pair", passed=bool((mn_tab.align_drop > 0.01).all()), expected="reproduced")
ledger.add("mnist.low-rank", "Thm. 1 (part 2), Fig. 5", "The final stable rank is ≤ 2, and ≈ 1 on centred MNIST.",
           measured="; ".join(f"{r.pair}: {r.final_stable_rank:.4f}" for r in mn_tab.itertuples()),
           tolerance="< 1.1 for every pair", passed=bool((mn_tab.final_stable_rank < 1.1).all()), expected="reproduced")

# %% [markdown]
# ## Training schemes: two phases or not (Figures 12 and 13)
# Appendix A.5: digits 0/1, SGD with batch 2000 and $\eta=2\cdot10^{-3}$, (Figure 12) training $W$ and $v$
# from $\mathcal N(0,\alpha^2)$, or (Figure 13) training only $W$ with $v_j=\pm1$ fixed (the scheme of
# Brutzkus et al. and Wang et al.). At the end of each epoch the paper measures, with a full-batch
# gradient, the change of the neuron norms $\sum_j2\langle-\nabla_{w_j}\mathcal L,w_j\rangle$ and of their
# directions $\sum_j\|P_{w_j}(-\nabla_{w_j}\mathcal L/\|w_j\|)\|$. We use all 5000 images of 0 and 1 in the
# subset (2.5 SGD steps per epoch) and measure at about 150 log-spaced epochs. The paper: with both
# layers trained, early on only the directions change and the norms do not grow (two phases); with
# $v$ fixed there is no such separation.

# %%
X01, y01 = mnist_pair(1, 0, 500 if quick else 2500, dtype=torch.float32)
batch = 2000 if not quick else 400
per_epoch = math.ceil(len(y01) / batch)
steps_sgd = 1500 if quick else 6000
epochs = np.unique(np.geomspace(1, steps_sgd // per_epoch, 150).astype(int))
rec_sgd = np.unique(np.concatenate([[0], epochs * per_epoch]))
p_both = gaussian_init(50, 784, std_in=1e-6, std_out=1e-6, gen=generator(seed + 3), dtype=torch.float32)
p_first = TwoLayer(W1=p_both.W1.clone(), W2=random_signs((1, 50), generator(seed + 4), torch.float32))
schemes = {"both layers": train(p_both, X01, y01, loss=EXP_MEAN, lr=2e-3, steps=steps_sgd, batch_size=batch, record=rec_sgd, seed=seed),
           "first layer only, v = ±1": train(p_first, X01, y01, loss=EXP_MEAN, lr=2e-3, steps=steps_sgd, batch_size=batch,
                                               record=rec_sgd, seed=seed, trainable=("W1",))}
changes = {}
for name, tr in schemes.items():
    nc, dc = zip(*[al.norm_and_direction_change(tr.at(i), X01, y01, EXP_MEAN) for i in range(len(tr))])
    changes[name] = (tr.steps / per_epoch, np.array([float(v) for v in nc]), np.array([float(v) for v in dc]), tr.loss.numpy())

for (name, (ep, nc, dc, L)), fig_no in zip(changes.items(), (12, 13)):
    fig, ax = plt.subplots(figsize=(6, 3.6), constrained_layout=True)
    ax.loglog(ep[1:], np.abs(nc[1:]), color=POS, label="norm change $\\sum_j 2\\langle-\\nabla_{w_j}L, w_j\\rangle$")
    ax.loglog(ep[1:], dc[1:], color=NEG, label="direction change $\\sum_j\\|P_{w_j}(-\\nabla_{w_j}L)\\|/\\|w_j\\|$")
    ax2 = ax.twinx()
    ax2.semilogx(ep[1:], L[1:], color="k", ls="--", lw=1)
    ax2.set_ylabel("training loss (dashed)")
    ax2.grid(False)
    ax.set(xlabel="epoch", title=f"Figure {fig_no} — SGD on digits 0/1, {name}")
    ax.legend(fontsize="x-small", loc="lower left")
    glue(f"alignment-fig{fig_no}", fig)


tp = {}
for name, (ep, nc, dc, L) in changes.items():
    i, ratio = al.two_phase_ratio(nc, dc)
    tp[name] = (ratio, bool(L[i] > 0.99 * L[0]))     # (relative norm change, loss still within 1% of its start)
print(tp)

# %%
(r12, flat12), (r13, flat13) = tp["both layers"], tp["first layer only, v = ±1"]
ledger.add("fig12.two-phase", "Fig. 12, App. A.5", "Training both layers: early on only the directions change, the norms "
           "do not grow (two-phase convergence).",
           measured=f"norm change at the epoch of peak direction change: {fmt(r12)} × its maximum; loss not yet down: {flat12}",
           tolerance="< 1e-3 of its maximum, before the loss has fallen by 1%", passed=bool(r12 < 1e-3 and flat12),
           expected="reproduced")
ledger.add("fig13.one-phase", "Fig. 13, App. A.5", "Training only the first layer (v = ±1 fixed): no two-phase behaviour.",
           measured=f"norm change at the epoch of peak direction change: {fmt(r13)} × its maximum",
           tolerance="≥ 1e-3 of its maximum (norms already move when the directions move most)",
           passed=bool(r13 >= 1e-3), expected="reproduced")
ledger.add("a5.both-fit", "§4, App. A.5", "Both schemes reach a small training loss.",
           measured="; ".join(f"{k}: {fmt(v[3][-1])}" for k, v in changes.items()),
           tolerance="final loss < 0.1 (initial 1)", passed=bool(all(v[3][-1] < 0.1 for v in changes.values())),
           expected="reproduced")

# %% [markdown]
# ## Theorem 1 on orthogonally separable data
# The theory's setting: the **summed** exponential loss, the balanced initialisation (3)
# $W=\varepsilon W_0$, $[W_0]_{ij}\sim\mathcal N(0,1/D)$, $v_j=\pm\|w_j\|$, float64, and GD with
# $\eta=0.01/(nX_{\max})$ (at most 1% of direction change per step) standing in for the flow; time is
# $t=\eta k$. Data: $n=16$ points in $\mathbb R^{10}$, $\pm e_1+0.3\,g$ with $g\sim\mathcal N(0,I)$, redrawn until
# $\mu>0$ (Assumption 1); $h=50$, $\varepsilon=10^{-10}$, 5 initialisations. The paper's admissible
# $\varepsilon$ (eq. 28) is astronomically small, so we check the *statements* at a practical $\varepsilon$.

# %%
gen_t = generator(seed + 20)
X_t, y_t = al.synthetic_separable(16, 10, 0.3, gen_t)
g_t = al.geometry(X_t, y_t)
eps_t, R_t = 1e-10, (2 if quick else 5)
p_t = al.balanced_theory_init(50, 10, eps_t, gen_t, runs=(R_t,))
eta_t = 0.01 / (g_t.n * g_t.X_max)
steps_t = int((3.0 if quick else 6.0) / eta_t)
th_run = train(p_t, X_t, y_t, loss=EXP_SUM, lr=eta_t, steps=steps_t, record=linear_schedule(steps_t, 10))
P = th_run.params
cm = al.cone_membership(P.W1, X_t, y_t)                                    # masks (T, R, m)
vpos = (P.a > 0)
settled = al.settled(P, X_t, y_t)                                          # (T, R, m)
t1_emp = al.alignment_times(th_run, X_t, y_t)
z2 = [al.zeta2(p_t.W1[r] / eps_t, torch.sign(p_t.a[r]), g_t) for r in range(R_t)]
t1_bd = np.array([al.t1_bound(g_t, al.zeta(g_t.zeta1, z), g_t.xi_lower) for z in z2])
print(f"mu = {g_t.mu:.4f}, X_max = {g_t.X_max:.3f}, X_min = {g_t.X_min:.3f}, zeta1 = {g_t.zeta1:.4f}, xi >= mu^2 = {g_t.xi_lower:.2e}")
print("t1 (measured):", t1_emp.round(4), " bound:", t1_bd.round(1))

# %%
i1 = [th_run.index_of_step(int(round(t / eta_t))) for t in t1_emp]
act0 = (X_t @ p_t.W1.transpose(-1, -2) > 0)                                 # (R, n, m) at init
init_pos = act0[:, y_t > 0, :].any(-2)
init_neg = act0[:, y_t < 0, :].any(-2)
part1 = all(settled[i1[r], r].all() for r in range(R_t))
part1c = all(bool(torch.where(vpos[0, r] & init_pos[r], cm["S_plus"][i1[r], r], True).all()
                  & torch.where(~vpos[0, r] & init_neg[r], cm["S_minus"][i1[r], r], True).all()) for r in range(R_t))
ledger.add("thm1.part1", "Thm. 1 (part 1)", "After alignment every V₊ neuron is in S₊ ∪ S_dead (mirror for V₋), and every V₊ "
           "neuron that initially activated a positive point is in S₊.",
           measured=f"at the measured t₁: all neurons settled in {R_t}/{R_t} runs: {part1}; initially active ones in their cone: {part1c}",
           tolerance="exact, every run", passed=bool(part1 and part1c), expected="reproduced")
ledger.add("thm1.t1-bound", "Thm. 1, App. C (t₁ = 16 log n/(min{ζ,ξ}√μ X_min))", "The alignment time is at most the explicit bound.",
           measured=f"t₁ = {np.nanmin(t1_emp):.3f}–{np.nanmax(t1_emp):.3f} vs bound {t1_bd.min():.4g} "
                    f"(slack ×{t1_bd.min() / np.nanmax(t1_emp):.2g}; ζ = min(ζ₁, ζ₂), ξ ≥ μ²)",
           tolerance="t₁ ≤ bound in every run", passed=bool(np.all(t1_emp <= t1_bd)), expected="reproduced")

# %% [markdown]
# The bound holds with an enormous slack: $\xi$ and $\zeta$ enter squared through $\mu^2$ and the
# worst-case path argument assumes every activation pattern is visited.
#
# **Errata.** (i) The paper defines $\zeta:=\max\{\zeta_1,\zeta_2\}$, but its proof needs both the cap
# $\{z:\cos(z,x_\pm)\ge\sqrt{1-\zeta}\}$ inside $\mathcal S_\pm$ (which holds for $\zeta\le\zeta_1$) and the
# initial neurons outside that cap ($\zeta\le\zeta_2$): it needs $\min\{\zeta_1,\zeta_2\}$. We use the min
# (a valid, larger bound) and check below that with the max the cap can leak out of the cone. (ii) The
# printed flow "$\dot W\in\partial_W\mathcal L$" lacks its minus sign: it is gradient *descent* (every run here
# descends, and the loss falls). (iii) The spec's proposed toy angles (15°…165°) put two opposite-label
# points at 90°, so $\mu=0$; our toy uses 10°…170°.

# %%
z_min, z_max = al.zeta(g_t.zeta1, min(z2)), max(g_t.zeta1, max(z2))
leak_min, leak_max = ((al.cap_leaves_cone(g_t.x_plus, z, X_t, y_t, "S_plus", generator(seed + 60))
                       or al.cap_leaves_cone(g_t.x_minus, z, X_t, y_t, "S_minus", generator(seed + 61))) for z in (z_min, z_max))
ledger.add("erratum.zeta", "App. C, eq. 26", "Erratum: ζ must be min{ζ₁, ζ₂} (the paper prints max).",
           measured=f"ζ₁ = {g_t.zeta1:.4f}, ζ₂ = {min(z2):.4f}–{max(z2):.4f}; cap with the min leaves its cone: {leak_min}; "
                    f"with the max: {leak_max}",
           tolerance="the min-cap stays inside; the max-cap leaks whenever ζ₂ > ζ₁",
           passed=bool(not leak_min and (leak_max or max(z2) <= g_t.zeta1)), expected="reproduced")

# %% [markdown]
# Next, the lemmas behind the proof, on the same runs: balancedness and sign invariance (Section
# 2.1); activation patterns change only in the allowed direction — a $v_j>0$ neuron never loses a
# positive point nor gains a negative one (eq. 7/8); the trapping regions (Lemma 12); the masses
# $\sum_{\tilde V_\pm}\|w_j\|^2$ never decrease after $t_1$ (Lemma 14); and Lemma 2,
# $|-\ell'(y,\hat y)-y|\le2|\hat y|$ on $|\hat y|\le1$, for the exponential and $2\times$logistic losses.

# %%
# GD, not the flow, breaks the balance: by O(η) over a fixed time. Halving η must halve the drift.
t_fix = 2.0
bal_h = [balancedness_drift(train(p_t, X_t, y_t, loss=EXP_SUM, lr=h, steps=int(t_fix / h), record=50),
                            relative_to="current").max().item()
         for h in (eta_t, eta_t / 2)]
flips = int((torch.sign(P.a) != torch.sign(P.a[0])).sum())
actp = (X_t @ P.W1.transpose(-1, -2) > 0)                                   # (T, R, n, m)
gain_neg = actp[1:, :, y_t < 0] & ~actp[:-1, :, y_t < 0]
lose_pos = ~actp[1:, :, y_t > 0] & actp[:-1, :, y_t > 0]
gain_pos = actp[1:, :, y_t > 0] & ~actp[:-1, :, y_t > 0]
lose_neg = ~actp[1:, :, y_t < 0] & actp[:-1, :, y_t < 0]
vp = vpos[0].unsqueeze(0).unsqueeze(-2)                                     # (1, R, 1, m)
wrong_way = int(((gain_neg | lose_pos) & vp).sum() + ((gain_pos | lose_neg) & ~vp).sum())
n_changes = ((actp[1:] != actp[:-1]).any(-2)).sum(0)                         # pattern changes per neuron
trap = {k: cm[k] for k in ("S_plus", "S_minus", "S_dead")}
trap_own = torch.where(vpos, trap["S_plus"], trap["S_minus"]) | trap["S_dead"]
escapes = int((trap_own[:-1] & ~trap_own[1:]).sum())
mass_ok = True
for r in range(R_t):
    for sgn, cone in ((1, "S_plus"), (-1, "S_minus")):
        Vt = cm[cone][i1[r], r] & (torch.sign(P.a[0, r]) == sgn)
        u = ((P.W1[i1[r]:, r] ** 2).sum(-1) * Vt).sum(-1)
        mass_ok &= bool((u[1:] >= u[:-1] * (1 - 1e-12)).all())
yh = torch.linspace(-1, 1, 100_001, dtype=torch.float64)
lem2 = max(float((al.lemma2_gap(torch.full_like(yh, s_), yh, k) - 2 * yh.abs()).max()) for s_ in (1.0, -1.0)
           for k in ("exponential", "logistic2"))
ledger.add("lemmas.invariants", "§2.1, eq. 7/8, Lemmas 12, 14", "Balancedness and sign invariance; activation changes only in the "
           "allowed direction (≤ n changes); trapping regions; non-decreasing cone masses after t₁.",
           measured=f"balance drift to t = 2: {fmt(bal_h[0])} at η, {fmt(bal_h[1])} at η/2 (ratio {bal_h[0] / bal_h[1]:.2f}), sign flips {flips}, wrong-way activation changes {wrong_way}, "
                    f"max pattern changes {int(n_changes.max())} (n = {g_t.n}), escapes from trapping regions {escapes}, "
                    f"masses non-decreasing: {mass_ok}",
           tolerance="drift ratio 2 ± 0.2 (an O(η) effect of GD, zero for the flow); 0 flips, 0 wrong-way changes, "
                     "≤ n changes, 0 escapes; monotone masses",
           passed=bool(abs(bal_h[0] / bal_h[1] - 2) <= 0.2 and flips == 0 and wrong_way == 0 and n_changes.max() <= g_t.n and escapes == 0 and mass_ok),
           expected="reproduced")
ledger.add("lemma2", "Lemma 2", "|−ℓ′(y, ŷ) − y| ≤ 2|ŷ| for |ŷ| ≤ 1 (exponential and 2·logistic losses).",
           measured=f"max over 10⁵ grid points of the gap minus 2|ŷ|: {fmt(lem2)}", tolerance="≤ 1e-12",
           passed=bool(lem2 <= 1e-12), expected="reproduced")

# %% [markdown]
# ### Theorem 1, part 2: the $O(1/t)$ rate and the low-rank bias
# With $t_2^\pm$ the first time $\max_{i\in I_\pm}|f(x_i)|>1/4$ and $t_2=\max(t_2^+,t_2^-)$, the theorem
# bounds $\mathcal L(t)\le\mathcal L(t_2)/(\mathcal L(t_2)\,\alpha\,(t-t_2)+1)$ with
# $\alpha=(\mu X_{\min})^2/(32X_{\max})$, and after $t_1$
# $\|W\|_F^2\le2\|W\|_2^2+4\sqrt h\,\varepsilon W_{\max}^2$, so the stable rank ends $\le2$.

# %%
f_t = forward(P, X_t)[..., 0]                                               # (T, R, n)
alpha_t = al.alpha_rate(g_t)
loss_ok, slack = True, []
for r in range(R_t):
    t2s = [first_crossing(th_run.time, -f_t[:, r, y_t * s_ > 0].abs().amax(-1).numpy(), -0.25) for s_ in (1, -1)]
    t2 = max(t2s)
    i2 = th_run.index_of_step(int(math.ceil(t2 / eta_t)))
    L2 = th_run.loss[i2, r].item()
    after = th_run.time[i2:]
    bound = al.loss_bound(L2, th_run.time[i2], after, alpha_t)
    Lr = th_run.loss[i2:, r].numpy()
    loss_ok &= bool(np.all(Lr <= bound * (1 + 1e-9)))
    slack.append(float(np.min(bound[1:] / Lr[1:])) if len(Lr) > 1 else float("nan"))
W_max = (p_t.norms_in() / eps_t).amax(-1)                                    # (R,)
sr_th, s2_th = stable_rank(P.W1)
fro = sr_th * s2_th
lowrank_ok = all(bool((fro[i1[r]:, r] <= 2 * s2_th[i1[r]:, r] + 4 * math.sqrt(50) * eps_t * W_max[r] ** 2).all())
                 for r in range(R_t))
ledger.add("thm1.loss-rate", "Thm. 1 (part 2)", "After t₂ the loss obeys L(t) ≤ L(t₂)/(L(t₂) α (t − t₂) + 1), α = (μX_min)²/(32X_max).",
           measured=f"holds at every snapshot after t₂ in every run: {loss_ok}; min bound/loss ratio after t₂ {min(slack):.3g}",
           tolerance="inequality at every snapshot (1e-9 relative)", passed=loss_ok, expected="reproduced")
ledger.add("thm1.low-rank", "Thm. 1 (part 2), App. D.3", "After t₁, ‖W‖_F² ≤ 2‖W‖₂² + 4√h ε W_max², so the stable rank ends ≤ 2.",
           measured=f"bound holds at every snapshot after t₁: {lowrank_ok}; final stable rank "
                    f"{sr_th[-1].min().item():.4f}–{sr_th[-1].max().item():.4f}",
           tolerance="inequality everywhere after t₁; final stable rank ≤ 2", passed=bool(lowrank_ok and (sr_th[-1] <= 2).all()),
           expected="reproduced")

# %% [markdown]
# ### How $t_1$ scales with $\mu$ and $n$
# The theorem gives $t_1=O(\log n/\sqrt\mu)$, an upper bound. We measure $t_1$ (i) on the two-point family
# of Figures 7–9 with $\mu=\sin\theta$ for six values of $\theta$ and (ii) on the synthetic family for
# $n\in\{4,16,64\}$, 5 initialisations each ($\varepsilon=10^{-12}$, balanced, summed loss, the same GD
# step rule). For two positive points $t_1$ is the first time every live positive neuron activates
# both points.

# %%
def first_settled(X, y, R, eps, seed_, t_max):
    g = al.geometry(X, y)
    p = al.balanced_theory_init(50, X.shape[1], eps, generator(seed_), runs=(R,))
    eta = 0.01 / (g.n * g.X_max)
    steps = int(t_max / eta)
    tr = train(p, X, y, loss=EXP_SUM, lr=eta, steps=steps, record=linear_schedule(steps, max(1, steps // 400)))
    t1 = al.alignment_times(tr, X, y)
    bounds = np.array([al.t1_bound(g, al.zeta(g.zeta1, al.zeta2(p.W1[r] / eps, torch.sign(p.a[r]), g)), g.xi_lower)
                       for r in range(R)])
    return g, t1, bounds


thetas = [0.5, 0.2, 0.1, 0.05, 0.02] + ([] if quick else [0.01])
R_s = 2 if quick else 5
mu_rows = []
for th_ in thetas:
    X2, y2 = al.two_point_data(th_)
    g2, t1s, bds = first_settled(X2, y2, R_s, 1e-12, seed + 30, t_max=30.0)
    mu_rows.append(dict(mu=g2.mu, t1_median=np.median(t1s), t1_max=np.max(t1s), bound_min=bds.min()))
n_rows = []
for n_ in (4, 16, 64):
    Xn, yn = al.synthetic_separable(n_, 10, 0.3, generator(seed + 40 + n_))
    gn, t1s, bds = first_settled(Xn, yn, R_s, 1e-12, seed + 50, t_max=3.0)
    n_rows.append(dict(n=n_, mu=gn.mu, t1_median=np.median(t1s), t1_max=np.max(t1s), bound_min=bds.min()))
mu_tab, n_tab = pd.DataFrame(mu_rows), pd.DataFrame(n_rows)
k_mu = np.polyfit(np.log(mu_tab.mu), np.log(mu_tab.t1_median), 1)[0]
fig, axes = panel_grid(2, width=4.2, height=3.2)
axes[0].loglog(mu_tab.mu, mu_tab.t1_median, "o-", color=POS, label="measured $t_1$ (median)")
axes[0].loglog(mu_tab.mu, mu_tab.t1_median.iloc[0] * np.sqrt(mu_tab.mu.iloc[0] / mu_tab.mu), "--", color=THEORY, label="$\\propto 1/\\sqrt{\\mu}$")
axes[0].set(xlabel="$\\mu$", ylabel="$t_1$", title=f"two points: slope {k_mu:.2f}")
axes[0].legend(fontsize="small")
axes[1].semilogx(n_tab.n, n_tab.t1_median, "o-", color=NEG)
axes[1].set(xlabel="$n$", ylabel="$t_1$", title="synthetic family")
label_panels(axes)
glue("alignment-t1-scaling", fig)
pd.concat([mu_tab, n_tab])

# %%
mono = bool(np.all(np.diff(mu_tab.t1_median.values) >= 0))                  # μ decreasing along the table
within = bool((mu_tab.t1_max <= mu_tab.bound_min).all() and (n_tab.t1_max <= n_tab.bound_min).all())
ledger.add("thm1.t1-scaling", "Thm. 1, App. A.2", "t₁ = O(log n/√μ): alignment takes longer as μ shrinks, within the bound.",
           measured=f"median t₁ over μ = {', '.join(f'{m:.3g}' for m in mu_tab.mu)}: "
                    f"{', '.join(f'{t:.2f}' for t in mu_tab.t1_median)} (log–log slope {k_mu:.2f}); "
                    f"n = 4, 16, 64: {', '.join(f'{t:.3f}' for t in n_tab.t1_median)}; all below the bound: {within}",
           tolerance="reproduced: median t₁ non-decreasing as μ decreases and every t₁ ≤ its bound; "
                     "partial: within the bound and growing overall (log–log slope < 0) but not monotone",
           passed="reproduced" if (mono and within) else ("partial" if (within and k_mu < 0) else "not reproduced"),
           expected="partial")

# %% [markdown]
# $t_1$ grows as $\mu$ shrinks, but more mildly than $1/\sqrt\mu$ and not monotonically over our
# seeds: at small $\mu$ the alignment of the last neurons overlaps with the fitting phase, which
# then drives them anyway. Against $n$ (with the step scaled as $1/(nX_{\max})$) $t_1$ *decreases*: more
# points make $x_a$ longer. The theorem's $O(\log n/\sqrt\mu)$ is an upper bound, which holds
# everywhere, by orders of magnitude; the monotone trend holds only overall, so the claim is *partial*.

# %% [markdown]
# ## Claims ledger
# Every checkable statement this chapter tests, with what we measured, the tolerance and the
# verdict. The build fails if a measured verdict differs from the expected one.

# %%
ledger.save(ledger_path)
print(ledger.summary())
ledger.check(strict=not quick and seed == 0)   # enforced for the book's own run
ledger.table()
