"""Tables and printed rows of the orthogonal chapter (Boursier et al. 2022): the bookkeeping that turns the
chapter's measurements and its ledger into the tables the reader sees. Nothing here trains: the functions
take measured values (arrays per seed, or per seed and λ), a sweep (whose claims' margins they tabulate)
or the ledger, and lay them out.

Conventions: a λ-sweep's values are ``(seeds, K)`` arrays (``K`` values of λ, dimensionless); a
per-seed table has one row per seed, ``seed 0 … seed n−1``, and then any extra rows (controls).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .claims import Sweep, lemma2_margins, lemma34_margins


def seed_index(n_seeds: int, extra=()) -> list[str]:
    """Row labels of a per-seed table.

    Parameters
    ----------
    n_seeds : int
        Number of seeds.
    extra : sequence of str
        Labels of further rows (controls), after the seeds.

    Returns
    -------
    list of str
        ``["seed 0", …, "seed n−1", *extra]``.
    """
    return [f"seed {s}" for s in range(n_seeds)] + list(extra)


def rounded(values: dict, decimals: int = 3) -> dict:
    """Values rounded for printing.

    Parameters
    ----------
    values : dict
        Name → number or array (any shape; cast to float).
    decimals : int
        Decimals kept.

    Returns
    -------
    dict
        Name → rounded value as a (nested) list, or a float for a scalar.
    """
    return {k: np.round(np.asarray(v, dtype=float), decimals).tolist() for k, v in values.items()}


def iteration_numbers(steps: np.ndarray, idx, scale: float = 1.0) -> list[str]:
    """The iterations of some snapshots, with thousands separators: the one formatting of the
    snapshots' iterations in the chapter's notes and panel titles.

    Parameters
    ----------
    steps : ndarray
        ``(T,)`` GD step of every snapshot.
    idx : sequence of int
        Snapshot indices.
    scale : float
        Iterations per step (e.g. the step over the paper's step).

    Returns
    -------
    list of str
        One per index, e.g. ``["0", "1,250", "20,000"]``.
    """
    return [f"{steps[i] * scale:,.0f}" for i in idx]


def per_run_frame(lams: np.ndarray, columns: dict) -> pd.DataFrame:
    """A long table of a λ-sweep: one row per (seed, λ).

    Parameters
    ----------
    lams : ndarray
        ``(K,)`` the λ of the columns.
    columns : dict
        Name → ``(seeds, K)`` array or tensor.

    Returns
    -------
    DataFrame
        Columns ``lambda``, ``seed`` and the given ones, ``seeds·K`` rows (seed-major).
    """
    arrays = {k: np.asarray(v).reshape(-1) for k, v in columns.items()}
    n_seeds = len(next(iter(arrays.values()))) // len(lams)
    return pd.DataFrame({"lambda": np.tile(lams, n_seeds), "seed": np.repeat(range(n_seeds), len(lams)),
                         **arrays})


def lambda_frame(values: np.ndarray, lams, decimals: int | None = None) -> pd.DataFrame:
    """A per-seed table with one column per λ.

    Parameters
    ----------
    values : ndarray
        ``(seeds, K)``.
    lams : sequence of float
        ``(K,)`` the λ of the columns (labels ``λ=1e-04``).
    decimals : int, optional
        Round to this many decimals.

    Returns
    -------
    DataFrame
        ``seeds × K``.
    """
    out = pd.DataFrame(values, index=seed_index(len(values)), columns=[f"λ={v:.0e}" for v in lams])
    return out if decimals is None else out.round(decimals)


def control_table(seeds: dict, control: dict, measured: dict, reference: dict) -> pd.DataFrame:
    """Per-seed measurements beside a control run's, and reference columns the control lacks.

    Parameters
    ----------
    seeds, control : dict
        Measurement name → ``(seeds,)`` values, and → the control's ``(1,)`` value.
    measured : dict
        Column label → measurement name (a row per seed and one for the control).
    reference : dict
        Column label → ``(seeds,)`` values (the control's row is nan).

    Returns
    -------
    DataFrame
        Rows ``seed 0 …`` and ``control (seed 0)``; the ``reference`` columns first.
    """
    cols = {k: np.r_[v, np.nan] for k, v in reference.items()}
    cols.update({k: np.r_[seeds[name], control[name]] for k, name in measured.items()})
    n_seeds = len(next(iter(cols.values()))) - 1
    return pd.DataFrame(cols, index=seed_index(n_seeds, ["control (seed 0)"]))


def stacked_measures(measures: dict, keys) -> pd.DataFrame:
    """Measurements of several variants of a run (e.g. step sizes), stacked per seed.

    Parameters
    ----------
    measures : dict
        Variant label → {name: ``(seeds,)`` values}.
    keys : sequence of str
        The names shown (columns).

    Returns
    -------
    DataFrame
        One row per (variant, seed), labelled ``seed s, <variant>``.
    """
    labels = [f"seed {s}, {v}" for v, m in measures.items() for s in range(len(m[keys[0]]))]
    return pd.DataFrame({k: np.concatenate([np.asarray(m[k]) for m in measures.values()]) for k in keys},
                        index=labels)


def _control_run(ledger, claim: str) -> str:
    decl = ledger.decls[claim]
    return decl.control.run if decl.control else "—"


def claims_table(ledger, rate, before: dict, label: str = "before") -> pd.DataFrame:
    """A 'before → now' table of claims: earlier verdicts beside this run's ledger.

    Parameters
    ----------
    ledger : lrlib.ledger.Ledger
        This run's ledger (its ``decls`` and graded ``results``).
    rate : callable
        Claim id → pass rate as the chapter prints it (``chapter.rate``).
    before : dict
        Claim id → the earlier verdict (text).
    label : str
        Header of the earlier verdicts' column.

    Returns
    -------
    DataFrame
        Indexed by claim: ``label``, ``now``, ``tier now``, ``kind now``, ``control run now``.
    """
    return pd.DataFrame([{"claim": c, label: b, "now": rate(c), "tier now": ledger.results[c].tier()[0],
                          "kind now": ledger.decls[c].kind, "control run now": _control_run(ledger, c)}
                         for c, b in before.items()]).set_index("claim")


def migrated_table(ledger, rate, before: dict, default: str) -> pd.DataFrame:
    """Every claim graded in the ledger's current form, with its earlier verdict.

    Parameters
    ----------
    ledger : lrlib.ledger.Ledger
        This run's ledger.
    rate : callable
        Claim id → pass rate (``chapter.rate``).
    before : dict
        Claim id → earlier verdict (text), where it differs from ``default``.
    default : str
        The earlier verdict of every other claim.

    Returns
    -------
    DataFrame
        Indexed by claim (the non-legacy results, in ledger order).
    """
    return pd.DataFrame([{"claim": r.decl.id, "before (published sweep)": before.get(r.decl.id, default),
                          "now": rate(r.decl.id), "tier now": r.tier()[0],
                          "control run": _control_run(ledger, r.decl.id)}
                         for r in ledger.results.values() if not r.decl.legacy]).set_index("claim")


def coarse_outcomes(ledger) -> tuple[list[str], list[str]]:
    """The claims that hold, and those that fail, when rerun with the coarse step.

    Parameters
    ----------
    ledger : lrlib.ledger.Ledger
        This run's ledger (results with ``coarse_verdicts``).

    Returns
    -------
    (list of str, list of str)
        Claim ids reproduced by some coarse run, and the others that had a coarse run.
    """
    coarse = {r.decl.id: r.coarse_verdicts for r in ledger.results.values() if r.coarse_verdicts}
    return ([c for c, v in coarse.items() if "reproduced" in v],
            [c for c, v in coarse.items() if "reproduced" not in v])


def share_where(flags: np.ndarray, select: np.ndarray) -> np.ndarray:
    """Per seed, the share of the selected draws whose flag is set.

    Parameters
    ----------
    flags : ndarray
        ``(seeds, draws)`` booleans (e.g. the draw converged).
    select : ndarray
        ``(seeds, draws)`` booleans, the draws counted.

    Returns
    -------
    ndarray
        ``(seeds,)`` shares in [0, 1]; nan for a seed with no selected draw.
    """
    return np.array([flags[s][select[s]].mean() if select[s].any() else np.nan for s in range(len(flags))])


def admissible_table(run: Sweep, lams) -> pd.DataFrame:
    """The Lemma 2-4 margins of a deep λ-sweep, one column per λ (:func:`.claims.lemma34_margins`, and
    the active neuron count of :func:`.claims.lemma2_margins` with no λ cut).

    Parameters
    ----------
    run : Sweep
        The sweep, ``K`` columns.
    lams : sequence of float
        ``(K,)`` its λ (column labels ``λ=1e-20``).

    Returns
    -------
    DataFrame
        Rows: the margins' names and ``n_active``; cells: per-seed values as text (3 digits).
    """
    table = {}
    for i, v in enumerate(lams):
        col = run.columns([i])
        margins = {k: m.round(3) for k, m in lemma34_margins(col).items()}
        margins["n_active"] = lemma2_margins(col, lam_max=1.0)["n_active"]
        table[f"λ={v:.0e}"] = {k: np.array2string(np.asarray(m), precision=3) for k, m in margins.items()}
    return pd.DataFrame(table)



__all__ = ["claims_table", "coarse_outcomes", "control_table", "iteration_numbers", "lambda_frame", "migrated_table", "per_run_frame", "rounded", "seed_index", "share_where", "admissible_table", "stacked_measures"]
