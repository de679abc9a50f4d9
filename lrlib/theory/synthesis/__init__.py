"""Cross-paper bridges for the synthesis chapter: one paper's theory applied to another's experiment.

* :mod:`.agf_gd` — AGF's jumps against gradient descent's drops: deviation of the plateaus between drops
  from predicted levels, the jump table of part 1 (AGF on the orthogonal-input data of Boursier et al.),
  AGF's cost phase as GD.
* :mod:`.race_alignment` — the race paper's two-output network seen as the alignment paper's scalar
  network, and the alignment paper's predictions measured on it (part 2).
* :mod:`.xor` — the race paper's XOR toy in the form AGF needs, per-cluster losses and the table of
  AGF's cluster activations against GD's per-cluster drops (part 3).
* :mod:`.claims` — the chapter's claim measurements (one function per claim, applied by the ledger to
  the main and the control runs).
* :mod:`.runs` — the notebook's runs and tables (batched sweeps, AGF per run, the jump tables).
* :mod:`.report` — the short texts the chapter glues and its "What holds" rows.

``from lrlib.theory import synthesis as sy`` gives every public name below.
"""

from . import agf_gd, claims, race_alignment, report, runs, xor
from .agf_gd import agf_vs_gd_jumps, cost_phase, level_deviation
from .race_alignment import (alignment_lens, alignment_lens_rows, alignment_lens_series,
                             logit_difference, plateau_end, pm_labels, race_gamma_from_alignment,
                             separable_pairs)
from .runs import (by_scale, ce_cluster_drops, drop_times_of, gd_run, half_fit_time,
                   jump_table, lambda_sweep, largest_neuron_norm, lens_table, orthogonal_agf,
                   race_sgd, resampled, same_order, scaled_runs, worst_error, xor_batch, xor_table)
from .xor import (homogeneous_race_net, neuron_clusters, swap_first_two, xor_agf,
                  xor_agf_runs, xor_agf_vs_gd, xor_task, xor_variant_data)

__all__ = [
    "agf_gd", "claims", "race_alignment", "report", "runs", "xor",
    "agf_vs_gd_jumps", "cost_phase", "level_deviation",
    "alignment_lens", "alignment_lens_rows", "alignment_lens_series", "logit_difference", "plateau_end",
    "pm_labels", "race_gamma_from_alignment", "separable_pairs",
    "by_scale", "ce_cluster_drops", "drop_times_of", "gd_run", "half_fit_time", "jump_table",
    "lambda_sweep", "largest_neuron_norm", "lens_table", "orthogonal_agf", "race_sgd", "resampled",
    "same_order", "scaled_runs", "worst_error", "xor_batch", "xor_table",
    "homogeneous_race_net", "neuron_clusters", "swap_first_two", "xor_agf",
    "xor_agf_runs", "xor_agf_vs_gd", "xor_task", "xor_variant_data",
]
