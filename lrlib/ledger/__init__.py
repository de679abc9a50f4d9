"""The claims ledger: declared claims graded over seeds, with margins, controls and tiers.

One module per job:

- :mod:`~lrlib.ledger.rules` — the rule language and its margins;
- :mod:`~lrlib.ledger.verdicts` — the vocabulary: verdicts, rule kinds, tiers, pass rates, headlines;
- :mod:`~lrlib.ledger.declarations` — the claims files: declarations, their lint, measurement functions;
- :mod:`~lrlib.ledger.trend` — limits graded as trends;
- :mod:`~lrlib.ledger.grading` — the chapter's ledger: measuring runs, controls, tiers;
- :mod:`~lrlib.ledger.provenance` — what a chapter's results depend on (one hash);
- :mod:`~lrlib.ledger.aggregate` — published sweeps and the headline counts;
- :mod:`~lrlib.ledger.view` — a chapter's tables.
"""

from .aggregate import PUBLISHED_FULL, StaleSweep, load_aggregate, tier_counts
from .declarations import Control, Declaration, Premise, declaration_from_dict, lint, load_declarations
from .grading import ControlPassed, Ledger, Result, VerdictMismatch, fmt, fmt_values
from .provenance import code_hash
from .rules import Rule
from .trend import trend_stats
from .verdicts import VERDICTS, expectation_met, headline, pass_rate

__all__ = ["Control", "ControlPassed", "Declaration", "Ledger", "PUBLISHED_FULL", "Premise", "Result",
           "Rule", "StaleSweep", "VERDICTS", "VerdictMismatch", "code_hash", "declaration_from_dict",
           "expectation_met", "fmt", "fmt_values", "headline", "lint", "load_aggregate", "load_declarations",
           "pass_rate", "tier_counts", "trend_stats"]
