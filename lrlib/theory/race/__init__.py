"""Pinson (2026), *It's not a Lottery, it's a Race*: the paper's data (:mod:`.data`), its per-neuron
quantities and formulas (:mod:`.neuron`), merging of aligned neurons (:mod:`.merging`), seed runs
trained one after another and the chapter's run bookkeeping (:mod:`.runs`), a numpy gradient for
the wide toy runs (:mod:`.toy_step`), the frozen-gating closed form (:mod:`.frozen`), the
chapter's measurements on trained networks (:mod:`.measure`), one measurement function per claim
(:mod:`.claims`) and short printed forms of per-seed values (:mod:`.report`).

``from lrlib.theory import race as rc`` gives ``rc.race_init``, ``rc.gamma``, ``rc.merge``, ...;
cosines come from :mod:`lrlib.measure` and :mod:`lrlib.track`, not from here.
"""

from . import claims, data, frozen, measure, merging, neuron, report, runs, toy_step
from .data import centroid_directions, race_init, rebalanced, xor_clusters
from .frozen import augmented, direction_drift, frozen_cos, frozen_flow_check
from .measure import (aligned_neurons, alignment_score, appendix_g_check, appendix_g_stats, cluster_losses,
                      cluster_order,
                      conservation_drifts, gate_change, growth_fit_mask, growth_form_fits, lazy_scores, masked_share,
                      median_at,
                      n_parameters, power_law_like, rising_share, rule_agreement, shuffled, snapshot_stats, spearman,
                      top_alignment, top_cos_delta_path, top_overlap, top_share, turned_out)
from .merging import MERGE_DIRECTIONS, merge, merge_groups, merge_rows, split_all, split_neuron, theta
from .neuron import (PHI1, PHI2, align_to_own_m1, angle_gap, appendix_g, autograd_polar, class_sums, conserved,
                     cos_delta, effective_error_mean, error_vectors, gamma, gating, growth_rates, identity_error, phi,
                     phi_drive, phi_ratio, phi_star_predicted, polar_gradients, target_gap, target_m1, total_norm, xi)
from .report import change_table, halving_steps, ints, kv, pct, rl, sci
from .runs import (at_steps, batch_seeds, converged, drop_snapshots, final_heads, head_runs, run_block, run_net, setting_record, stack_nets, stack_runs,
                   train_each)
from .toy_step import toy_gradients

__all__ = [
    "claims", "data", "frozen", "measure", "merging", "neuron", "report", "runs", "toy_step",
    "centroid_directions", "race_init", "rebalanced", "xor_clusters",
    "augmented", "direction_drift", "frozen_cos", "frozen_flow_check",
    "aligned_neurons", "alignment_score", "appendix_g_check", "appendix_g_stats", "cluster_losses", "cluster_order",
    "conservation_drifts", "gate_change", "growth_fit_mask", "growth_form_fits", "lazy_scores", "masked_share", "median_at",
    "n_parameters", "power_law_like", "rising_share", "rule_agreement", "shuffled", "snapshot_stats", "spearman",
    "top_alignment", "top_cos_delta_path", "top_overlap", "top_share", "turned_out",
    "MERGE_DIRECTIONS", "merge", "merge_groups", "merge_rows", "split_all", "split_neuron", "theta",
    "PHI1", "PHI2", "align_to_own_m1", "angle_gap", "appendix_g", "autograd_polar", "class_sums", "conserved",
    "cos_delta", "effective_error_mean", "error_vectors", "gamma", "gating", "growth_rates", "identity_error", "phi",
    "phi_drive", "phi_ratio", "phi_star_predicted", "polar_gradients", "target_gap", "target_m1", "total_norm", "xi",
    "change_table", "halving_steps", "ints", "kv", "pct", "rl", "sci",
    "at_steps", "batch_seeds", "converged", "drop_snapshots", "final_heads", "head_runs", "run_block", "run_net", "setting_record", "stack_nets", "stack_runs",
    "train_each",
    "toy_gradients",
]
