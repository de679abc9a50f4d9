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

import re

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

#: What a reproduction's rule is (declared per claim as ``rule_kind``); it decides how its margin reads:
#: ``bound`` — the paper's own inequality: a pass with margin >= :data:`LOOSE_FACTOR` is a loose bound;
#: ``tolerance`` — a prediction matched within a tolerance: the margin is 1 / (deviation in tolerances);
#: ``threshold`` — a threshold standing for a qualitative statement: evidence only if the control
#: lands clearly on the other side (margin <= :data:`CLEAR_FACTOR`);
#: ``trend`` — a limit (λ, α, ε → 0, t → ∞) graded on how the deviation shrinks across a sweep.
RULE_KINDS = ("bound", "tolerance", "threshold", "trend")
#: ``predicted``: the expectation was written before any run graded it; ``observed``: it was copied
#: from a result (a regression guard, not a prediction).
EXPECT_BASES = ("predicted", "observed")
#: The three headline tiers of a graded claim (:func:`lrlib.ledger.grading.Result.tier`).
TIERS = ("quantitative", "loose bound", "consistency")
LOOSE_FACTOR = 10.0
CLEAR_FACTOR = 0.5


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


_EXPECT_RANGE = re.compile(r"^\s*(\d*\.?\d+)\s*-\s*(\d*\.?\d+)\s*$")


def expect_range(expect: str) -> tuple[float, float] | None:
    """The pass-rate range of an expectation.

    Parameters
    ----------
    expect : str
        A declared expectation: a verdict or ``lo-hi``.

    Returns
    -------
    tuple of float or None
        ``(lo, hi)``, or ``None`` for a verdict.
    """
    m = _EXPECT_RANGE.match(expect)
    return (float(m.group(1)), float(m.group(2))) if m else None


def expectation_met(expect: str, verdicts: list[str]) -> bool:
    """Whether per-seed verdicts meet a declared expectation.

    Parameters
    ----------
    expect : str
        A verdict (every seed has it; for ``reproduced``/``not reproduced``/``partial`` every
        *graded* seed, at least one) or a pass-rate range ``lo-hi``.
    verdicts : list of str
        One verdict per seed.

    Returns
    -------
    bool
    """
    passes, graded = pass_rate(verdicts)
    rng = expect_range(expect)
    if rng:
        return graded > 0 and rng[0] - 1e-9 <= passes / graded <= rng[1] + 1e-9
    if expect in ("reproduced", "not reproduced", "partial"):
        gv = [v for v in verdicts if v in GRADED]
        return bool(gv) and all(v == expect for v in gv)
    return bool(verdicts) and all(v == expect for v in verdicts)


def headline(verdicts: list[str]) -> str:
    """A claim's pass rate in words.

    Parameters
    ----------
    verdicts : list of str
        One verdict per seed.

    Returns
    -------
    str
        ``reproduced 5/5``, ``not reproduced 0/5``, ``3/5``, ``premise not met (5)``, ...; seeds
        left out of the rate are counted after it: ``reproduced 3/3 (+2 premise not met)``.
    """
    passes, graded = pass_rate(verdicts)
    if graded == 0:
        kinds = sorted(set(verdicts))
        return f"{kinds[0]} ({len(verdicts)})" if len(kinds) == 1 else "not graded"
    if passes == graded:
        text = f"reproduced {passes}/{graded}"
    elif passes == 0:
        word = "partial" if "partial" in verdicts else "not reproduced"
        text = f"{word} 0/{graded}"
    else:
        text = f"{passes}/{graded}"
    if graded == len(verdicts):
        return text
    left = sorted({v for v in verdicts if v in ("premise not met", "inconclusive")})
    counts = ", ".join(f"+{verdicts.count(v)} {v}" for v in left)
    return f"{text} ({counts})" if counts else text
