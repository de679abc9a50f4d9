"""Pinson (2026), *It's not a Lottery, it's a Race*: the paper's data (:mod:`.data`), its per-neuron
quantities and formulas (:mod:`.neuron`), merging of aligned neurons (:mod:`.merging`), seed runs trained one after another (:mod:`.runs`), a numpy gradient for the wide toy runs
(:mod:`.toy_step`), the chapter's measurements on trained networks (:mod:`.measure`) and one measurement function per claim (:mod:`.claims`).

Every public name is re-exported here, so ``from lrlib.theory import race as rc`` gives
``rc.race_init``, ``rc.gamma``, ``rc.merge``, ... as before the package existed.
"""

from ...measure import cosine  # noqa: F401
from ...track import cosine_similarity_matrix  # noqa: F401
from . import claims, data, frozen, measure, merging, neuron, runs, toy_step  # noqa: F401
from .data import centroid_directions, race_init, rebalanced, xor_clusters  # noqa: F401
from .measure import (  # noqa: F401
    aligned_neurons, alignment_score, appendix_g_check, appendix_g_stats, lazy_scores, cluster_order, rising_share, top_cos_delta_path, conservation_drifts, gate_change, growth_fit_mask, growth_form_fits,
    median_at, n_parameters, power_law_like, rule_agreement, shuffled, snapshot_stats, spearman, top_alignment,
    top_overlap, top_share, turned_out,
)
from .runs import stack_nets, stack_runs, train_each  # noqa: F401
from .toy_step import toy_gradients  # noqa: F401
from .frozen import augmented, direction_drift, frozen_cos, frozen_flow_check  # noqa: F401
from .merging import MERGE_DIRECTIONS, merge, merge_groups, merge_rows, split_all, split_neuron, theta  # noqa: F401
from .neuron import (  # noqa: F401
    PHI1, PHI2, align_to_own_m1, angle_gap, appendix_g, autograd_polar, class_sums, conserved, cos_delta,
    effective_error_mean, error_vectors, gamma, gating, growth_rates, identity_error, phi, phi_drive, phi_ratio,
    phi_star_predicted, polar_gradients, target_gap, target_m1, total_norm, xi,
)
