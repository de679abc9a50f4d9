"""The synthesis chapter's text: the short strings its prose glues (ranges over the seeds, pass rates
with their premise notes, the seed notes under the figures) and its "What holds" rows.

Conventions
-----------
``result`` is one claim's :class:`~lrlib.ledger.grading.Result` (``verdicts``, ``values``,
``control_values``); ``seeds`` are the seeds shown, in the order of the runs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd



def span(values, fmt: str = ".2f") -> str:
    """``"a to b"``: the smallest and largest value over the seeds, ``nan`` ignored.

    Parameters
    ----------
    values : array_like
        The values (any shape); text such as ``"inf"`` is read as a float.
    fmt : str
        The format of each end (e.g. ``".2f"``, ``".1e"``).

    Returns
    -------
    str
        The range.
    """
    v = np.asarray(values, dtype=float)
    return f"{np.nanmin(v):{fmt}} to {np.nanmax(v):{fmt}}"


def rate_note(rate: str, verdicts: list) -> str:
    """A claim's pass rate with how many graded seeds were *partial*, where the verdicts differ
    (the rate itself already counts the seeds left out, e.g. ``+2 premise not met``).

    Parameters
    ----------
    rate : str
        The pass rate as the ledger states it (:meth:`lrlib.chapter.Chapter.rate`).
    verdicts : list of str
        The claim's verdict per seed.

    Returns
    -------
    str
        ``rate`` or ``"rate (partial in 1 of 5)"``.
    """
    n = verdicts.count("partial")
    return rate + (f" (partial in {n} of {len(verdicts)})" if n and len(set(verdicts)) > 1 else "")


def control_floats(result) -> dict[str, np.ndarray]:
    """A claim's control values as float arrays (the ledger stores ``inf`` as text).

    Parameters
    ----------
    result : Result
        The claim's result (module conventions), one control run.

    Returns
    -------
    dict of str to np.ndarray
        Each control measurement, ``(S,)``.
    """
    return {k: np.array(v, dtype=float) for k, v in result.control_values.items()}


def seed_labels(seed: int, n: int) -> list[str]:
    """The seed switcher's labels ``"seed s"``.

    Parameters
    ----------
    seed : int
        The base seed.
    n : int
        The number of seeds.

    Returns
    -------
    list of str
        ``n`` labels.
    """
    return [f"seed {seed + s}" for s in range(n)]


def orthogonal_notes(jumps: pd.DataFrame, lam: float, seed: int) -> list[str]:
    """Part 1's figure notes: each seed's worst relative drop-time error at one ``λ``.

    Parameters
    ----------
    jumps : pd.DataFrame
        Part 1's table (:func:`~.runs.jump_table`).
    lam : float
        The ``λ`` read (the deepest).
    seed : int
        The base seed.

    Returns
    -------
    list of str
        One note per seed.
    """
    deep = jumps[jumps.lam == lam].groupby("seed")[["err_agf", "err_leading"]].max()
    return [f"seed {seed + s}: at λ = {lam:.0e}, AGF's worst relative drop-time error "
            f"{deep.err_agf[s]:.4f}, the leading order's {deep.err_leading[s]:.4f} (drops not "
            "extrapolated)" for s in range(len(deep))]


def race_notes(mu: np.ndarray, lens: pd.DataFrame, seed: int) -> list[str]:
    """Part 2's figure notes: each seed's ``μ``, cone fraction and winners' cosine at the end of the plateau.

    Parameters
    ----------
    mu : np.ndarray
        ``(S,)`` ``μ`` on ``(x, 1)``.
    lens : pd.DataFrame
        Part 2's table (:func:`~.runs.lens_table`).
    seed : int
        The base seed.

    Returns
    -------
    list of str
        One note per seed.
    """
    at_end = lens[lens.when == "end of plateau"].set_index("seed")
    return [f"seed {seed + r}: μ on (x, 1) = {mu[r]:.3f}; at the end of the plateau "
            f"{at_end.in_cone[seed + r]:.2f} of the neurons in their cone, winners' median cosine "
            f"{at_end.cos_winners[seed + r]:.2f}" for r in range(len(mu))]


def xor_notes(table: pd.DataFrame, order: list, seed: int) -> list[str]:
    """Part 3's figure notes: each seed's AGF jumps minus GD's drops and whether the order is GD's.

    Parameters
    ----------
    table : pd.DataFrame
        Part 3's table (:func:`~.runs.xor_table`, columns ``seed``, ``agf``, ``gd``).
    order : list of float
        Per seed, 1.0 where AGF's cluster order is GD's.
    seed : int
        The base seed.

    Returns
    -------
    list of str
        One note per seed.
    """
    late = (table.agf - table.gd).groupby(table.seed)
    lo, hi = late.min(), late.max()
    return [f"seed {seed + r}: AGF's jumps minus GD's per-cluster drops {lo[r]:.1f} to "
            f"{hi[r]:.1f}; cluster order as GD's: {'yes' if order[r] else 'no'}" for r in range(len(order))]


def coarse_counts(results: dict, ids: list, n: int) -> str:
    """How many seeds' coarse runs each claim's rule reproduces, e.g. ``"levels 5 of 5, …"``.

    Parameters
    ----------
    results : dict
        The ledger's results by claim id.
    ids : list of str
        The claims.
    n : int
        The number of seeds.

    Returns
    -------
    str
        One entry per claim, named by the last part of its id.
    """
    return ", ".join(f"{cid.split('.')[-1]} {results[cid].coarse_verdicts.count('reproduced')} of {n}"
                     for cid in ids)


def levels_dev_text(values: dict) -> str:
    """The XOR levels claim's deviations over the seeds: over the middle half and at the midpoints.

    Parameters
    ----------
    values : dict
        The claim's values (``dev``, ``dev_mid``, each ``(S,)``).

    Returns
    -------
    str
        Both ranges, four decimals.
    """
    return f"{span(values['dev'], '.4f')}, at the midpoints alone {span(values['dev_mid'], '.4f')}"
