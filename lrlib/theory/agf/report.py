"""The chapter's tables and printed summaries: each formats measurements the notebook already holds
(nothing here measures), so that a notebook cell stays a few short lines.

Conventions
-----------
``S`` seeds, ``A`` values of ``α``.  Times are whatever the caller's arrays hold (they are printed, not
converted).  ``rate`` is :meth:`lrlib.chapter.Chapter.rate` (claim id → pass-rate text).
"""

from __future__ import annotations

from typing import Callable, Iterable

import numpy as np
import pandas as pd

from ...ledger.text import fmt

# The published full-size sweep of the previous revision (base seed 0, 5 seeds): pass rate (tier).
BEFORE = {
    "fig3.drop-times": "5/5 (quantitative)", "fig3.drop-times-finite": "2/5 (quantitative)",
    "fig3.levels": "0/5 (quantitative)", "fig3.order": "1/1 (legacy)",
    "fig8.dormancy": "5/5 (quantitative)", "fig8.drop-times": "5/5 (quantitative)",
    "fig4.times-commuting": "0/5 (legacy)", "fig4.times-non-commuting": "0/5 (legacy)",
    "fig4.levels-commuting": "5/5 (legacy)", "fig4.levels-non-commuting": "0/5 (legacy)",
    "B4.alignment": "3/5 (legacy)", "B4.adaptive-rate": "3/5 (legacy)",
    "fig5.levels": "5/5 (legacy)", "fig5.order": "5/5 (legacy)", "fig5.jump-bound": "5/5 (legacy)",
    "fig6.order": "5/5 (legacy)", "fig6.levels": "5/5 (legacy)", "fig6.agf-vs-gd": "3/5 (legacy)",
    "thmF3.phase": "5/5 (legacy)", "thmF7.cost-step": "5/5 (quantitative)",
    "lemmaF6.utility-update": "5/5 (quantitative)", "H3p.all-frequencies": "5/5 (quantitative)",
    "fig6.bounds": "5/5 (consistency)"}

# The sweep the referee read (base seed 0, 5 seeds), for the claims that round changed.
REFEREE = {
    "fig3.drop-times": "5/5 (quantitative)", "fig4.levels-commuting": "5/5 (quantitative)",
    "B4.alignment": "3/5 (quantitative)", "B4.adaptive-rate": "3/5 (quantitative)",
    "H3p.all-frequencies": "5/5 (quantitative)", "fig6.levels": "4/5 (quantitative)",
    "fig3.drop-times-finite": "2/5 (quantitative)", "fig3.levels": "4/5 (quantitative)",
    "fig3.order": "5/5 (quantitative)", "fig8.dormancy": "5/5 (quantitative)",
    "fig8.drop-times": "5/5 (quantitative)", "fig4.times-commuting": "4/5 (quantitative)",
    "fig4.times-non-commuting": "4/5 (quantitative)", "fig5.levels": "5/5 (quantitative)",
    "thmF7.cost-step": "5/5 (quantitative)"}


def rate_line(rate: Callable[[str], str], ids: Iterable[str], sep: str = "; ") -> str:
    """``"id: rate"`` for each claim, joined.

    Parameters
    ----------
    rate : callable
        claim id → its pass-rate text (module conventions).
    ids : Iterable[str]
        the claim ids, in print order.
    sep : str, optional
        the separator.

    Returns
    -------
    str
    """
    return sep.join(f"{c}: {rate(c)}" for c in ids)


def fig3_table(alphas, etas, errors: np.ndarray, level_errors: np.ndarray, gd_rows: dict) -> pd.DataFrame:
    """Figure 3's sweep per ``α``: the flow's drop-time and level errors, the rate's constant, GD's error.

    Parameters
    ----------
    alphas : array_like
        ``(A,)`` the sweep's ``α``.
    etas : array_like
        ``(A,)`` ``η_α``.
    errors, level_errors : ndarray
        ``(S, A)`` the flow's largest drop-time and level errors per seed.
    gd_rows : dict
        ``α`` → :func:`.measure.dln_vs_agf`'s result for GD on the paper's data (index 2: the
        drop-time errors); an ``α`` missing here prints ``nan``.

    Returns
    -------
    pandas.DataFrame
        One row per ``α``.
    """
    rows = []
    for j, (a, eta) in enumerate(zip(alphas, etas)):
        rows.append({"α": f"{a:g}", "1/η_α": 1 / eta, "flow: max drop-time error": errors[0, j],
                     "GD (h = 2e-3): max drop-time error": np.nanmax(gd_rows[a][2]) if a in gd_rows else np.nan,
                     "flow: max level error": level_errors[0, j],
                     "flow: error × η_α (seed 0)": errors[0, j] * eta,
                     "flow: error × η_α, seeds 1–": np.round(errors[1:, j] * eta, 2).tolist()})
    return pd.DataFrame(rows)


def alignment_table(alphas, k2: np.ndarray, k3_adaptive: np.ndarray, k3_plain: np.ndarray) -> pd.DataFrame:
    """App. B.4's aligned fractions of one seed per ``α``: ``κ = 2`` / ``κ = 3`` adaptive / ``κ = 3`` plain.

    Parameters
    ----------
    alphas : array_like
        ``(A,)`` the sweep's ``α``.
    k2, k3_adaptive, k3_plain : ndarray
        ``(A,)`` the fractions.

    Returns
    -------
    pandas.DataFrame
        One row per ``α``, one column.
    """
    cells = {f"α = {a:g}": [f"{k2[i]:.3f} / {k3_adaptive[i]:.3f} / {k3_plain[i]:.3f}"]
             for i, a in enumerate(alphas)}
    return pd.DataFrame(cells, index=["seed 0: κ = 2 / κ = 3 adaptive / κ = 3 plain"]).T


def step_gap_table(gaps: dict[float, np.ndarray], names: list[str]) -> pd.DataFrame:
    """GD against the flow, per step size and variant (rows: seeds).

    Parameters
    ----------
    gaps : dict[float, ndarray]
        step size → ``(V, S)`` (:func:`.runs.fc_step_gaps`).
    names : list[str]
        the ``V`` variant names.

    Returns
    -------
    pandas.DataFrame
        ``S`` rows, one column per (step size, variant).
    """
    return pd.DataFrame({f"{name}: GD h = {h:g} vs flow": gaps[h][j]
                         for h in gaps for j, name in enumerate(names)})


def width_table(outcomes: dict[int, tuple[np.ndarray, np.ndarray]], p: int) -> pd.DataFrame:
    """Final loss and order per width, beside the threshold ``H = 3p`` (rows: widths; columns: seeds).

    Parameters
    ----------
    outcomes : dict[int, tuple[ndarray, ndarray]]
        width ``H`` → (``fin`` ``(S,)``, final loss / ``ℓ^{(0)}``; ``match`` ``(S,)``, 1 where the frequencies
        were learned in order) (:func:`.claims.width_outcome`).
    p : int
        the template length (the threshold is ``3p``).

    Returns
    -------
    pandas.DataFrame
        one row per width, widest first, indexed ``"H = 18 (> 3p)"`` etc.; cells ``"<fin> / <in order>"``.
    """
    rows = {}
    for H in sorted(outcomes, reverse=True):
        side = ">" if H > 3 * p else ("=" if H == 3 * p else "<")
        fin, match = outcomes[H]
        rows[f"H = {H} ({side} 3p)"] = [f"{fmt(f, 2)} / {int(m)}" for f, m in zip(fin, match)]
    return pd.DataFrame.from_dict(rows, orient="index",
                                  columns=[f"seed {r}" for r in range(len(next(iter(rows.values()))))])


def stretched_note(trend: dict[str, np.ndarray], keys: Iterable[str]) -> str:
    """The note line of a run on a clock stretched by 1.25, read by a claim's trend measurement.

    Parameters
    ----------
    trend : dict of str to ndarray
        the measurement's output (e.g. :func:`.claims.drop_time_trend`), each ``(S,)``.
    keys : iterable of str
        the names shown.

    Returns
    -------
    str
        ``"clock stretched ×1.25 (shown, not a control): slope [...], ..."``, two decimals.
    """
    return ("clock stretched ×1.25 (shown, not a control): "
            + ", ".join(f"{k} {np.round(trend[k], 2).tolist()}" for k in keys))


def fig4_times_note(coarse_gap: np.ndarray, K: int, errors: np.ndarray, etas, alphas) -> str:
    """The ledger note of a ``fig4.times-*`` row.

    Parameters
    ----------
    coarse_gap : ndarray
        ``(S,)`` GD at ``h = 0.05`` against the flow.
    K : int
        the number of drops graded.
    errors : ndarray
        ``(A, S)`` the largest drop-time error per ``α`` and seed.
    etas, alphas : array_like
        ``(A,)``.

    Returns
    -------
    str
    """
    per_alpha = ", ".join(f"α = {a:g} {np.median(errors[ia]) * etas[ia]:.2f}" for ia, a in enumerate(alphas))
    return (f"GD at h = 0.05 is off the flow by {np.round(coarse_gap, 3).tolist()}; first {K} drops; "
            f"median error × η_α: " + per_alpha)


def fig4_summary(name: str, K: int, errors: np.ndarray, levels: np.ndarray, spectra: np.ndarray,
                 etas) -> str:
    """One printed line per Figure 4 variant: drop-time errors at the two graded ``α``, level and
    spectrum errors.

    Parameters
    ----------
    name : str
        the variant.
    K : int
        the number of drops graded.
    errors : ndarray
        ``(A, S)`` the largest drop-time error per ``α`` and seed.
    levels, spectra : ndarray
        ``(A, S)`` the largest level and spectrum errors.
    etas : array_like
        ``(A,)``; the first two are the graded ``α`` (1e-6, 1e-12).

    Returns
    -------
    str
    """
    return (f"{name}: {K} drops; largest drop-time error per seed: α = 1e-6 {np.round(errors[0], 3)}, "
            f"α = 1e-12 {np.round(errors[1], 3)} (1/η_α = {1 / etas[0]:.3f}, {1 / etas[1]:.3f}); "
            f"levels: {[fmt(v, 2) for v in levels[0]]}, {[fmt(v, 2) for v in levels[1]]}; "
            f"spectra: {[fmt(v, 2) for v in spectra[0]]}, {[fmt(v, 2) for v in spectra[1]]}")


def plateau_windows(plateaus: tuple[np.ndarray, np.ndarray, np.ndarray]) -> str:
    """``level/low/high`` of each plateau, per seed (``;``-separated).

    Parameters
    ----------
    plateaus : tuple[ndarray, ndarray, ndarray]
        ``(level, low, high)``, each ``(S, P)`` (:func:`.claims_modular.plateaus`).

    Returns
    -------
    str
    """
    n_seeds, n_plateaus = plateaus[0].shape
    return "; ".join(" ".join("/".join(fmt(plateaus[q][r, k], 4) for q in range(3)) for k in range(n_plateaus))
                     for r in range(n_seeds))


def changes_table(rate: Callable[[str], str], tier: Callable[[str], str]) -> pd.DataFrame:
    """Per claim of :data:`BEFORE`: its pass rate before, in the referee's sweep (:data:`REFEREE`), now,
    and its tier now.

    Parameters
    ----------
    rate : callable
        claim id → pass-rate text (module conventions).
    tier : callable
        claim id → its tier now.

    Returns
    -------
    pandas.DataFrame
        One row per claim.
    """
    return pd.DataFrame([{"claim": c, "before": b, "referee": REFEREE.get(c, "as before"), "after": rate(c),
                          "tier now": tier(c)} for c, b in BEFORE.items()])
