"""Boursier, Pillaud-Vivien & Flammarion (NeurIPS 2022), gradient flow of shallow ReLU networks on
orthogonal inputs: the paper's data sets (:mod:`.data`), its closed forms (:mod:`.core`: key vectors,
neuron sets, the limit, the saddle, phase times), the measurements behind the chapter's claims
(:mod:`.phases`, :mod:`.lemmas`, :mod:`.saddles`, :mod:`.limit`; the claims' measurement functions in
:mod:`.claims`), the chapter's batched runs (:mod:`.runs`) and its tables (:mod:`.report`).
``from lrlib.theory import orthogonal as th`` gives the closed forms, the measurements, the runs and the
tables; the data sets are ``th.data``."""

from . import claims, core, data, lemmas, limit, phases, report, runs, saddles
from .core import (alignment_directions, assumption3_failure_probability, check_orthogonal, escape_curvature,
                   fit_vectors, key_vectors, KeyVectors, limit_directions, limit_function, local_rate,
                   min_f1_norm, min_norm_squared, phase_times, PhaseTimes, plateau_loss, s_sets, saddle_point,
                   unbalanced_sweep_init)
from .lemmas import (assumption3_counts, inactive_violations, lemma2_holds, min_alignment, no_collapse_margin,
                     stuck_measures, uncovered_floor)
from .limit import (excess_norm, f1_cost, function_gap, kink_clusters, movement, ntk_gap, ntk_interpolator,
                    tangent_features, thm1_measures, two_clusters)
from .phases import (decay_rates, drop_iteration, dwell_time, gd_flow_table, half_fit_gap, half_fit_times,
                     loss_at, mass_times, pl_rates, toy_events, toy_timings, u_fitted)
from .report import (admissible_table, claims_table, coarse_outcomes, control_table, iteration_numbers,
                     lambda_frame, migrated_table, per_run_frame, rounded, seed_index, share_where,
                     stacked_measures)
from .runs import (coarse_sweep, flat_runs, flow_columns, inits_at_scales, paper_gd, select_runs, split_runs,
                   stacked_inputs, step_gap, sweep_gd, tile_columns, unbalanced_control, unflat_runs)
from .saddles import (count_saddles, hd_measures, intermediate_plateaus, linearised_loss_rate,
                      linearised_rates, loss_gradient_norm, plateau_speedup, saddle_distance,
                      saddle_snapshots, saddle_walk, step_table, top2_explained)

__all__ = ["claims", "core", "data", "lemmas", "limit", "phases", "report", "runs", "saddles",
           "admissible_table", "alignment_directions", "assumption3_counts",
           "assumption3_failure_probability", "check_orthogonal", "claims_table", "coarse_outcomes",
           "coarse_sweep", "control_table", "count_saddles", "decay_rates", "drop_iteration", "dwell_time",
           "escape_curvature", "excess_norm", "f1_cost", "fit_vectors", "flat_runs", "flow_columns",
           "function_gap", "gd_flow_table", "half_fit_gap", "half_fit_times", "hd_measures",
           "inactive_violations", "inits_at_scales", "intermediate_plateaus", "iteration_numbers",
           "key_vectors", "KeyVectors", "kink_clusters", "lambda_frame", "lemma2_holds", "limit_directions",
           "limit_function", "linearised_loss_rate", "linearised_rates", "local_rate", "loss_at",
           "loss_gradient_norm", "mass_times", "migrated_table", "min_alignment", "min_f1_norm",
           "min_norm_squared", "movement", "no_collapse_margin", "ntk_gap", "ntk_interpolator", "paper_gd", "tangent_features",
           "per_run_frame", "phase_times", "PhaseTimes", "pl_rates", "plateau_loss", "plateau_speedup",
           "rounded", "s_sets", "saddle_distance", "saddle_point", "saddle_snapshots", "saddle_walk",
           "seed_index", "select_runs", "share_where", "split_runs", "stacked_inputs", "stacked_measures",
           "step_gap", "step_table", "stuck_measures", "sweep_gd", "thm1_measures", "tile_columns",
           "top2_explained", "toy_events", "toy_timings", "two_clusters", "u_fitted", "unbalanced_control",
           "unbalanced_sweep_init", "uncovered_floor", "unflat_runs"]
