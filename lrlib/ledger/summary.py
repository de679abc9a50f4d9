"""A chapter's "what holds" summary: the paper's main statements, each with its claims' pass rates
and tiers, for the top of the chapter (glued at the end of the run, shown at the top of the page).

A chapter calls, after grading its claims::

    summary.glue_what_holds("orthogonal", ledger, [("Theorem 1: ...", ["thm1.min-norm", ...]), ...])

and its opening section shows ``{glue:}`orthogonal-what-holds```.
"""

from __future__ import annotations

from typing import Sequence

from IPython.display import HTML

from ..plots import glue
from .verdicts import headline
from .view import _h, table_html


def what_holds_rows(ledger, statements: Sequence[tuple[str, Sequence[str]]]) -> list[list[str]]:
    """One row per statement: the statement, then each of its claims with pass rate and tier.

    Parameters
    ----------
    ledger : Ledger
        The chapter's graded claims.
    statements : sequence of (str, sequence of str)
        The paper's statement in a few words, and the ids of the claims that grade it.

    Returns
    -------
    list of list of str
        ``[statement, claims]`` per statement, as HTML cells.

    Raises
    ------
    KeyError
        When a claim was not graded.
    """
    rows = []
    for text, ids in statements:
        parts = []
        for i in ids:
            r = ledger.results[i]
            tier, _ = r.tier()
            parts.append(f"<code>{_h(i)}</code>: {_h(headline(r.rate_verdicts))} <small>({_h(r.decl.kind)}, "
                         f"{_h(tier)})</small>")
        rows.append([_h(text), "<br>".join(parts)])
    return rows


def glue_what_holds(key: str, ledger, statements: Sequence[tuple[str, Sequence[str]]], *,
                    header: str = "the paper says") -> str:
    """Glue the summary table as ``<key>-what-holds`` (HTML) and return it.

    Parameters
    ----------
    key : str
        The chapter key.
    ledger : Ledger
        The chapter's graded claims.
    statements : sequence of (str, sequence of str)
        As in :func:`what_holds_rows`.
    header : str
        The first column's title (a chapter that crosses papers: ``"cross-paper statement"``).

    Returns
    -------
    str
        The table's HTML. A pass rate counts the seeds left out of it, e.g.
        ``reproduced 3/3 (+2 premise not met)``.
    """
    body = table_html(what_holds_rows(ledger, statements), [header, "graded by: pass rate (kind, tier)"])
    glue(f"{key}-what-holds", HTML(body), display=False)
    return body


__all__ = ["glue_what_holds", "what_holds_rows"]
