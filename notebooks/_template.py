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
# # {{TITLE}}
#
# *The template of a chapter (`scripts/new_chapter.py` copies it; see CONTRIBUTING.md). Replace
# this text with what the paper claims — theorem and figure numbers —, what we run, and what we
# see. Keep the order: claims, runs, figures, the ledger.*
#
# **Choices** (where the paper leaves a setting open, say what we chose and why)
#
# | what | our choice | why |
# |---|---|---|
# | data | four orthonormal inputs, targets $(1, 0.5, -1, -0.5)$ | the smallest problem with both signs |
# | network, init | width 20, balanced initialisation of scale $10^{-3}$ | small initialisation |
# | optimiser | full-batch GD, step 0.2, on $\frac1{2n}\sum_k (h(x_k)-y_k)^2$, float64 | converges in a second |

# %% tags=["parameters"]
seed = 0            # base seed of every random draw in this chapter
quick = False       # True: reduced size (tests only)
ledger_path = ""    # write the claims ledger to this JSON file (empty string: no file)

# %%
import torch

from lrlib import chapter
from lrlib.losses import half_mse
from lrlib.models import balanced_init, generator
from lrlib.plots import glue
from lrlib.plots import {{KEY}} as plots
from lrlib.train import train

ch = chapter.start("{{KEY}}", seed, quick, ledger_path)
quick, N_SEEDS, ledger = ch.quick, ch.n_seeds, ch.ledger

# %% [markdown]
# ## An example experiment (replace it)
#
# Every seed is one run of a batch (the leading dimension of the parameters). The claim
# `example.fit` is declared in `{{STEM}}.claims.yaml` before it is measured, with its measurement
# (`lrlib.theory.{{KEY}}.claims.loss_ratio`) and its control run: the same runs stopped after 20 steps,
# which go through the same measurement and must fail the same rule. The ledger also measures the
# runs at their initial state (`run.head(1)`): a rule that held there would not test the dynamics.

# %%
X = torch.eye(4, dtype=torch.float64)
y = torch.tensor([1.0, 0.5, -1.0, -0.5], dtype=torch.float64)
p0 = balanced_init(20, 4, scale=1e-3, gen=generator(seed), runs=(N_SEEDS,))
run = train(p0, X, y, loss=half_mse(), lr=0.2, steps=1000 if quick else 2000, record=40)
short = train(p0, X, y, loss=half_mse(), lr=0.2, steps=20, record=5)      # the control

# %%
ledger.measure("example.fit", run, controls={"short": short}, init=run.head(1))

# %%
fig = plots.loss_curves(run.time[1:], run.loss[1:].numpy())    # lrlib/plots/{{KEY}}.py, tested
glue("{{KEY}}-fig1", fig, display=False)

# %% [markdown]
# ```{glue:figure} {{KEY}}-fig1
# :name: {{KEY}}-fig1
#
# **Figure 1 of the paper** (replace): what the paper shows, what to compare (axes, scale), and
# the number to look at. Here: the loss of each seed; a plateau, then a drop.
# ```

# %% [markdown]
# ## Claims ledger
#
# Every claim of this chapter, graded seed by seed against its declaration.

# %%
ch.finish()
