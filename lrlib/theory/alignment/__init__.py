"""Min, Mallada & Vidal (ICLR 2024), "Early neuron alignment in two-layer ReLU networks with
small initialization": the closed forms, geometric objects, data sets and measurements of the
paper (:mod:`.core`), further data sets (:mod:`.data`), trajectory measurements (:mod:`.measure`)
and the MNIST training helpers (:mod:`.mnist`).  ``from lrlib.theory import
alignment as al`` exposes their public names."""

from . import core, data  # noqa: F401
from .core import *  # noqa: F401,F403
from .core import _project, _unit_rows  # noqa: F401
from .data import two_direction_separable  # noqa: F401
from . import measure  # noqa: F401,E402
from .measure import (fitting_times, lemma1_bound, lemma13_ratio, loss_rate_check, low_rank_check,  # noqa: F401,E402
                      refined_alignment_min, simplified_deviation, dwell_ratio, init_activation_mc,
                      growth_outside_s_plus, mnist_summary, alignment_time_and_bound, lemma15_ratio)
from . import mnist  # noqa: F401,E402
from . import claims  # noqa: F401,E402
from .mnist import active_columns, rule_inputs, stable_rank_change, train_active, train_until_stable  # noqa: F401,E402
