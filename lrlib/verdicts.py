"""The verdict vocabulary of the claims ledger, defined once (names, colours, marks).

A claim is graded once per seed; each seed's grade is one of :data:`VERDICTS`:

``reproduced``
    the declared rule holds.
``partial``
    the rule fails but a declared, weaker tier of the *paper's own statement* holds
    (the tier and its reason are part of the declaration).
``not reproduced``
    the rule fails.
``inconclusive``
    the measurement cannot separate the outcomes (a declared condition, e.g. both groups
    cross the threshold at the same snapshot).
``premise not met``
    a measurable hypothesis of the theorem fails in this run (a draw that violates an
    assumption, a GD step too coarse to follow the flow, ...). Shown, never counted
    for or against the paper.

The *pass rate* of a claim is ``#reproduced / #graded`` where graded seeds are those whose
verdict is ``reproduced``, ``partial`` or ``not reproduced``.
"""

from __future__ import annotations

VERDICTS = ("reproduced", "partial", "not reproduced", "inconclusive", "premise not met")
GRADED = ("reproduced", "partial", "not reproduced")

COLOURS = {  # background colours of verdict cells (light, readable with black text)
    "reproduced": "#d9f2d9",
    "partial": "#fff2cc",
    "not reproduced": "#f8d7da",
    "inconclusive": "#e2e3e5",
    "premise not met": "#dde7f7",
}
MARKS = {"reproduced": "✓", "partial": "◐", "not reproduced": "✗", "inconclusive": "?",
         "premise not met": "∅"}
KINDS = ("reproduction", "consistency")


def check_verdict(v: str) -> str:
    """Check that ``v`` is a verdict of :data:`VERDICTS`.

    Parameters
    ----------
    v : str
        The verdict.

    Returns
    -------
    str
        ``v`` unchanged.

    Raises
    ------
    ValueError
        When ``v`` is not in :data:`VERDICTS`.
    """
    if v not in VERDICTS:
        raise ValueError(f"verdict must be one of {VERDICTS}, got {v!r}")
    return v


def pass_rate(verdicts) -> tuple[int, int]:
    """Count the reproduced and the graded seeds of a claim.

    Parameters
    ----------
    verdicts : iterable of str
        One verdict per seed, each of :data:`VERDICTS`.

    Returns
    -------
    tuple of int
        ``(#reproduced, #graded)`` (inconclusive and premise-not-met seeds are not graded).

    Raises
    ------
    ValueError
        When an entry is not a verdict.
    """
    vs = [check_verdict(v) for v in verdicts]
    return sum(v == "reproduced" for v in vs), sum(v in GRADED for v in vs)
