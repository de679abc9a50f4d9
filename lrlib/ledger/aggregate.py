"""Published sweeps: reading an aggregate, its freshness, its controls, and the headline counts.

A published full-size sweep (``book/ledger_data/sweep-full.json``, written by :mod:`lrlib.sweep`)
holds every run's per-seed verdicts, margins and control verdicts. The book's own run reads it
for two things: the pass rate of a ``seeds: sweep`` claim (which must come from the same code,
:func:`lrlib.ledger.provenance.code_hash`), and every seed's control (:func:`published_control_failures`:
a control that passes in any seed of a published sweep fails the build).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable, Mapping

from ..errors import LrlibError
from ..paths import PUBLISH_DIR
from .verdicts import TIERS

PUBLISHED_FULL = PUBLISH_DIR / "sweep-full.json"
SWEEP_ENV = "LRLIB_SWEEP"   # set by lrlib.sweep in the kernels it starts
SCHEMA = 2
PASSING = ("reproduced", "partial")


class StaleSweep(LrlibError):
    """A claim takes its pass rate from a published sweep that is missing or older than the code."""


def load_aggregate(path: str | Path = PUBLISHED_FULL) -> dict | None:
    """Read a published sweep aggregate.

    Parameters
    ----------
    path : str or Path
        The aggregate's JSON file (default: the published full-size sweep).

    Returns
    -------
    dict or None
        The aggregate (schema 2), or ``None`` when the file is missing or of another schema.
    """
    path = Path(path)
    if not path.is_file():
        return None
    agg = json.loads(path.read_text(encoding="utf-8"))
    return agg if agg.get("schema") == SCHEMA else None


def published_control_failures(agg: Mapping | None, chapter: str, rules: Mapping[str, str]) -> list[str]:
    """Controls that passed in any seed of a published sweep, for claims still graded by the same rule.

    Parameters
    ----------
    agg : mapping or None
        The aggregate.
    chapter : str
        The chapter key.
    rules : mapping of str to str
        The chapter's current rules by claim id (a claim whose rule changed since is not judged
        on the old sweep).

    Returns
    -------
    list of str
        One line per claim: its id, the base seeds and seeds whose control passed.
    """
    out = []
    for cid, rule in rules.items():
        c = (agg or {}).get("claims", {}).get(f"{chapter}.{cid}")
        if not c or c.get("rule") != rule:
            continue
        bad = [f"run {run['seed']} control seed {i}" for run in c.get("runs", [])
               for i, v in enumerate(run.get("control_verdicts", [])) if v in PASSING]
        if bad:
            out.append(f"  {cid}: control passed in the published sweep ({len(bad)} seed(s): {', '.join(bad[:6])}"
                       + (", ..." if len(bad) > 6 else "") + ")")
    return out


def tier_counts(tiers: Iterable[str]) -> dict[str, int]:
    """The headline split: how many claims in each tier.

    Parameters
    ----------
    tiers : iterable of str
        One tier per claim (:data:`~lrlib.ledger.verdicts.TIERS`, or ``inconclusive``, ``legacy``).

    Returns
    -------
    dict of str to int
        Counts for every tier of :data:`~lrlib.ledger.verdicts.TIERS`, then any other tier seen.
    """
    tiers = list(tiers)
    out = {t: tiers.count(t) for t in TIERS}
    for t in tiers:
        if t not in out:
            out[t] = tiers.count(t)
    return out


__all__ = ["PUBLISHED_FULL", "SCHEMA", "SWEEP_ENV", "StaleSweep", "load_aggregate",
           "published_control_failures", "tier_counts"]
