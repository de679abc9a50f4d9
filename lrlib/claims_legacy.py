"""The claims ledger: every checkable statement of a paper, what we measured,
the tolerance, the verdict — and a guard that fails the build when a measured
verdict differs from the one the chapter expects.

Verdicts: ``reproduced``, ``partial``, ``not reproduced``.  A claim that does
not reproduce is *published* as such (expected = ``not reproduced``); the
ledger never hides it.  ``Ledger.check()`` raises :class:`VerdictMismatch` when
a measurement changes a verdict, so CI catches regressions and surprises.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

from .errors import LrlibError, ParameterError

VERDICTS = ("reproduced", "partial", "not reproduced")


class VerdictMismatch(LrlibError):
    """A measured verdict differs from the chapter's expected verdict."""


def verdict_of(passed: bool | str) -> str:
    """``True → reproduced``, ``False → not reproduced``, or a verdict string."""
    if isinstance(passed, str):
        if passed not in VERDICTS:
            raise ParameterError(f"verdict must be one of {VERDICTS}, got {passed!r}")
        return passed
    return "reproduced" if bool(passed) else "not reproduced"


def fmt(x: float, digits: int = 4) -> str:
    """Compact number formatting for the ledger (``nan`` stays ``nan``)."""
    if isinstance(x, str):
        return x
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "nan"
    return f"{x:.{digits}g}"


@dataclass
class Claim:
    """One row of the ledger."""

    id: str
    ref: str
    statement: str
    measured: str
    tolerance: str
    verdict: str
    expected: str
    value: float | None = None

    @property
    def ok(self) -> bool:
        return self.verdict == self.expected


class Ledger:
    """An ordered collection of :class:`Claim` for one chapter."""

    def __init__(self, chapter: str):
        self.chapter = chapter
        self.claims: list[Claim] = []

    def add(
        self,
        id: str,
        ref: str,
        statement: str,
        *,
        measured: str,
        tolerance: str,
        passed: bool | str,
        expected: str,
        value: float | None = None,
    ) -> None:
        """Record a claim.  ``passed`` is the outcome of the check (a bool, or a
        verdict string for graded outcomes); ``expected`` the verdict the chapter
        publishes.  Ids are ``<chapter>.<ref>.<slug>`` and must be unique.  Returns nothing, so
        that a notebook cell ending in ``ledger.add(...)`` prints nothing (the claims are in ``Ledger.claims``)."""
        full = id if id.startswith(self.chapter + ".") else f"{self.chapter}.{id}"
        if any(c.id == full for c in self.claims):
            raise ParameterError(f"duplicate claim id {full!r}")
        claim = Claim(full, ref, statement, measured, tolerance, verdict_of(passed),
                      verdict_of(expected), None if value is None else float(value))
        self.claims.append(claim)

    # ---- views ---------------------------------------------------------
    def frame(self) -> pd.DataFrame:
        return pd.DataFrame([asdict(c) for c in self.claims],
                            columns=["id", "ref", "statement", "measured", "tolerance", "verdict", "expected", "value"])

    def table(self) -> "pd.io.formats.style.Styler":
        """A styled table for the notebook (verdict cells coloured)."""
        df = self.frame().drop(columns=["value"])
        colours = {"reproduced": "#d9f2d9", "partial": "#fff2cc", "not reproduced": "#f8d7da"}
        return (df.style.hide(axis="index")
                .map(lambda v: f"background-color: {colours.get(v, '')}", subset=["verdict", "expected"])
                .set_properties(**{"text-align": "left", "white-space": "pre-wrap"}))

    def summary(self) -> dict[str, int]:
        out = {v: 0 for v in VERDICTS}
        for c in self.claims:
            out[c.verdict] += 1
        return out

    # ---- output and guard -------------------------------------------
    def save(self, path: str | Path | None) -> Path | None:
        """Write the ledger as a JSON list of claims (skipped for an empty path)."""
        if not path:
            return None
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        rows = [asdict(c) for c in self.claims]
        for r in rows:  # strict JSON: NaN/inf values become null
            if r["value"] is not None and not math.isfinite(r["value"]):
                r["value"] = None
        path.write_text(json.dumps(rows, indent=1, allow_nan=False))
        return path

    def check(self, strict: bool = True) -> None:
        """Raise :class:`VerdictMismatch` listing every claim whose measured verdict
        differs from its expected verdict.

        ``strict=False`` (a run that is not the book's own — another seed, or the
        reduced size — whose verdicts are not the published ones) only prints the
        mismatches.  Chapters call ``ledger.check(strict=not quick and seed == 0)``."""
        bad = [c for c in self.claims if not c.ok]
        if bad and not strict:
            print(f"{len(bad)} verdict(s) of this run differ from the book's (seed 0, full size; not enforced here): "
                  + ", ".join(c.id for c in bad))
            return
        if bad:
            lines = "\n".join(f"  {c.id}: measured {c.verdict!r}, expected {c.expected!r} ({c.measured}; tol {c.tolerance})"
                              for c in bad)
            raise VerdictMismatch(
                f"{len(bad)} claim(s) of chapter {self.chapter!r} changed verdict:\n{lines}\n"
                "Investigate the run; if the new verdict is right, update `expected` and the chapter text."
            )
