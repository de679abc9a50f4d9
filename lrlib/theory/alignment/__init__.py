"""Min, Mallada & Vidal (ICLR 2024), "Early neuron alignment in two-layer ReLU networks with
small initialization": the paper's closed forms (:mod:`.core`), the cones and the direction
dynamics (:mod:`.cones`), its data sets and initialisation (:mod:`.data`), measurements on
trajectories (:mod:`.measure`, and those behind the lemmas in :mod:`.lemmas`), the MNIST training
helpers (:mod:`.mnist`), the chapter's experiments (:mod:`.runs`), the run bundles handed to the
claims (:mod:`.bundles`) and the claims' measurement functions (:mod:`.claims`).
``from lrlib.theory import alignment as al`` exposes their public names.

Conventions (every module): data ``X (n, D)`` (rows x_i) or ``(R..., n, D)``; labels ``y (n,)`` or
``(R..., n)`` with values ±1; neurons ``W (R..., m, D)`` (rows w_j, the ``W1`` of
:class:`lrlib.models.TwoLayer`); output weights ``v_j = p.a`` ``(R..., m)``. A trajectory
(:class:`lrlib.trajectory.Trajectory`) holds ``T`` snapshots of ``R`` runs, and its ``time`` is flow
time. Everything is float64-friendly and vectorised over neurons and runs."""

from . import bundles, claims, cones, core, data, lemmas, measure, mnist, runs
from .cones import (approx_direction_velocity, cap_leaves_cone, cone_membership, direction_velocity, n_active,
                    norm_and_direction_change, project, signed_active_sum)
from .core import (DataGeometry, alpha_rate, eq28_log10_bound, geometry, horizon, lemma1_bound, lemma2_gap,
                   lemma4_bound, loss_bound, mu, t1_bound, zeta, zeta2)
from .data import (TOY_NEG_DEG, TOY_NORMS, TOY_POS_DEG, balanced_theory_init, synthetic_separable, toy_2d,
                   toy_family, two_direction_separable, two_point_data)
from .lemmas import (alignment_time_and_bound, dwell_ratio, init_activation_mc, lemma11_min_ratio, lemma13_ratio,
                     lemma15_ratio, refined_alignment_min)
from .measure import (alignment_times, class_alignment, direction_deviation, fitting_times, growth_outside_s_plus,
                      live_outside_s_plus, lost_neurons, loss_rate_check, low_rank_check, mnist_summary, settled,
                      simplified_deviation, two_phase_ratio)
from .mnist import RULE_CLAIMS, active_columns, rule_inputs, stable_rank_change, train_active, train_until_stable

__all__ = ["bundles", "claims", "cones", "core", "data", "lemmas", "measure", "mnist", "runs",
           "approx_direction_velocity", "cap_leaves_cone", "cone_membership", "direction_velocity", "n_active",
           "norm_and_direction_change", "project", "signed_active_sum",
           "DataGeometry", "alpha_rate", "eq28_log10_bound", "geometry", "horizon", "lemma1_bound", "lemma2_gap",
           "lemma4_bound", "loss_bound", "mu", "t1_bound", "zeta", "zeta2",
           "TOY_NEG_DEG", "TOY_NORMS", "TOY_POS_DEG", "balanced_theory_init", "synthetic_separable", "toy_2d",
           "toy_family", "two_direction_separable", "two_point_data",
           "alignment_time_and_bound", "dwell_ratio", "init_activation_mc", "lemma11_min_ratio", "lemma13_ratio",
           "lemma15_ratio", "refined_alignment_min",
           "alignment_times", "class_alignment", "direction_deviation", "fitting_times", "growth_outside_s_plus",
           "live_outside_s_plus", "lost_neurons", "loss_rate_check", "low_rank_check", "mnist_summary", "settled",
           "simplified_deviation", "two_phase_ratio",
           "RULE_CLAIMS", "active_columns", "rule_inputs", "stable_rank_change", "train_active", "train_until_stable"]
