"""Pinson (2026): short printed forms of the chapter's per-seed values (its printed rows and
ledger notes), so that a notebook line stays short.

Conventions: ``values`` is anything :func:`numpy.asarray` reads as numbers (a list, an array, a
tensor), one entry per seed run (any shape; read flattened).  Every function returns plain Python
lists or strings, ready for an f-string."""

from __future__ import annotations

import numpy as np
import pandas as pd


def rl(values, d: int = 2) -> list[float]:
    """The values rounded to ``d`` decimals, as a flat list of floats.

    Parameters
    ----------
    values : array-like
        Numbers (module conventions).
    d : int
        Decimals.

    Returns
    -------
    list of float
        ``(n,)``, ``n`` the number of entries.
    """
    return [round(float(v), d) for v in np.asarray(values, dtype=float).ravel()]


def pct(values, d: int = 2) -> list[str]:
    """Relative changes as signed percentages, ``0.0123 -> '+1.23%'``.

    Parameters
    ----------
    values : array-like
        Fractions (module conventions), e.g. ΔL/L.
    d : int
        Decimals of the percentage.

    Returns
    -------
    list of str
        ``(n,)``.
    """
    return [f"{float(v):+.{d}%}" for v in np.asarray(values, dtype=float).ravel()]


def sci(values, d: int = 1) -> list[str]:
    """The values in scientific notation, ``0.00123 -> '1.2e-03'``.

    Parameters
    ----------
    values : array-like
        Numbers (module conventions).
    d : int
        Digits after the point.

    Returns
    -------
    list of str
        ``(n,)``.
    """
    return [f"{float(v):.{d}e}" for v in np.asarray(values, dtype=float).ravel()]


def ints(values) -> list[int]:
    """The values as a flat list of ints (counts, steps, 0/1 flags).

    Parameters
    ----------
    values : array-like
        Numbers or bools (module conventions).

    Returns
    -------
    list of int
        ``(n,)``.
    """
    return np.asarray(values).astype(int).ravel().tolist()


def kv(d: int = 3, **named) -> str:
    """``name [v, ...]; name [v, ...]``: named per-seed values rounded to ``d`` decimals.

    Parameters
    ----------
    d : int
        Decimals.
    **named
        Each a name and its values (module conventions).

    Returns
    -------
    str
        The entries joined by ``'; '``.
    """
    return "; ".join(f"{name} {rl(v, d)}" for name, v in named.items())


def halving_steps(values, r: int, norms=(4, 3, 2, 1)) -> list:
    """Run ``r``'s step at which each cluster's loss halves, clusters listed by norm.

    Parameters
    ----------
    values : dict
        The ``fig2.speeds`` measurement (:func:`~lrlib.theory.race.claims.cluster_times`):
        ``t<n>`` holds, per run, the step of the cluster of norm ``n``, in steps.
    r : int
        The run.
    norms : sequence of int
        The clusters' norms, in the order to list them.

    Returns
    -------
    list
        ``(len(norms),)`` steps.
    """
    return [values[f"t{n}"][r] for n in norms]


def change_table(results, before, rate, columns=("control", "tier", "why")) -> pd.DataFrame:
    """A "what changed" table: each claim's headline before and after, with ledger columns.

    Parameters
    ----------
    results : mapping
        The ledger's results by claim id (:attr:`lrlib.ledger.grading.Ledger.results`).
    before : dict
        Claim id -> the headline before (text).
    rate : callable
        ``rate(id) -> str``, the headline now (:meth:`lrlib.chapter.Chapter.rate`).
    columns : sequence of str
        Columns after ``after``, in order: ``expected`` (the declared expectation), ``control``
        (the control's status), ``tier``, ``why`` (the tier's reason); ``after_tier`` writes the
        tier into ``after`` (``"3/5 (quantitative)"``) instead.

    Returns
    -------
    pandas.DataFrame
        One row per claim of ``before``, indexed by ``claim``.
    """
    rows = []
    for cid, b in before.items():
        res = results[cid]
        tier, why = res.tier()
        row = dict(claim=cid, before=b, after=rate(cid))
        extra = dict(expected=res.decl.expect, control=res.control_status, tier=tier, why=why)
        for c in columns:
            if c == "after_tier":
                row["after"] = f"{row['after']} ({tier})"
            else:
                row[c] = extra[c]
        rows.append(row)
    return pd.DataFrame(rows).set_index("claim")
