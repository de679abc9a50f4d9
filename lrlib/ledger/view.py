"""How a chapter shows its graded claims: two HTML tables (reproductions, consistency checks).

Only presentation lives here; grading is :mod:`lrlib.ledger.grading`.
"""

from __future__ import annotations

import html

from .aggregate import tier_counts
from .verdicts import COLOURS, MARKS, headline


def _h(x) -> str:
    return html.escape(str(x))


def verdict_cell(v: str) -> str:
    """A coloured verdict label.

    Parameters
    ----------
    v : str
        A verdict (:data:`lrlib.verdicts.VERDICTS`; another string gets a white background).

    Returns
    -------
    str
        An HTML ``<span>``.
    """
    return (f'<span class="lr-verdict" style="background:{COLOURS.get(v, "#fff")};padding:0 .3em;'
            f'border-radius:3px;white-space:nowrap">{_h(v)}</span>')


def seed_marks(verdicts, seeds=None) -> str:
    """One mark per seed (✓ ◐ ✗ ? ∅), each with its seed and verdict as a tooltip.

    Parameters
    ----------
    verdicts : sequence of str
        One verdict per seed.
    seeds : iterable of int or None
        The seeds' labels; ``None``: ``0, 1, …``.

    Returns
    -------
    str
        HTML, one ``<span>`` per seed.
    """
    seeds = list(seeds) if seeds is not None else list(range(len(verdicts)))
    return "".join(f'<span title="seed {s}: {_h(v)}" style="background:{COLOURS.get(v, "#fff")};'
                   f'padding:0 .15em">{MARKS.get(v, "·")}</span>'
                   for s, v in zip(seeds, verdicts))


def _rate_cell(r, marks: bool = True) -> str:
    head = headline(r.rate_verdicts)
    word = head.split(" ")[0] if head[0].isalpha() else "partial"
    colour = COLOURS.get(head.rsplit(" ", 1)[0], COLOURS.get(word, COLOURS["partial"]))
    src = "" if not r.sweep_source else f'<br><small>from {_h(r.sweep_source)}</small>'
    exp = "" if r.expected_ok else ' <b title="outside the declared expectation">≠ expected</b>'
    return (f'<span style="background:{colour};padding:0 .3em;border-radius:3px;white-space:nowrap">'
            f'{_h(head)}</span>{exp}' + (f'<br>{seed_marks(r.rate_verdicts)}' if marks else "") + src)


def _premises(decl) -> str:
    return "<br>".join(f"{_h(p.text)} <code>{_h(p.rule)}</code>" for p in decl.premises) or "—"


def legend_html() -> str:
    """The verdict colours and marks, for the top of a claims table."""
    return ('<div class="lr-legend"><small>' + "".join(
        f'<span style="background:{COLOURS[v]}">{MARKS[v]} {_h(v)}</span>' for v in COLOURS) + "</small></div>")


def table_html(rows: list[list[str]], header: list[str], row_attrs: list[str] | None = None) -> str:
    """A claims table.

    Each cell carries its column name (``data-label``), which the narrow-screen layout of
    ``book/_static/lrlib.css`` shows when rows become cards.

    Parameters
    ----------
    rows : list of list of str
        The cells, row by row, as HTML (not escaped).
    header : list of str
        The column names (escaped).
    row_attrs : list of str or None
        HTML attributes of each ``<tr>`` (e.g. ``' class="x"'``); ``None``: none.

    Returns
    -------
    str
        The table's HTML.
    """
    head = "".join(f"<th>{_h(h)}</th>" for h in header)
    attrs = row_attrs or [""] * len(rows)
    body = "".join(f"<tr{a}>" + "".join(f'<td data-label="{_h(h)}">{c}</td>' for h, c in zip(header, row)) + "</tr>"
                   for a, row in zip(attrs, rows))
    return (f'<div class="lr-ledger"><table class="lr-claims">'
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>")


def fmt_margin(m) -> str:
    """A margin as a factor (``×12``, ``×0.3``, ``×∞``; ``—`` undefined).

    Parameters
    ----------
    m : float, str or None
        The margin (``"inf"`` and ``None`` as stored in JSON).

    Returns
    -------
    str
    """
    if m is None:
        return "—"
    m = float(m)
    if m != m:
        return "—"
    if m == float("inf"):
        return "×∞"
    return f"×{m:.2g}" if m < 100 else f"×{m:.1e}".replace("e+0", "e").replace("e+", "e")


def margin_marks(verdicts, margins_, seeds=None) -> str:
    """One mark per seed with its margin beside it (``✓×3.1 ✗×0.4``), the verdict as a tooltip.

    Parameters
    ----------
    verdicts : sequence of str
        One verdict per seed.
    margins_ : sequence of float or None
        One margin per seed (may be shorter: no margin shown).
    seeds : iterable of int or None
        The seeds' labels; ``None``: ``0, 1, …``.

    Returns
    -------
    str
        HTML.
    """
    seeds = list(seeds) if seeds is not None else list(range(len(verdicts)))
    ms = list(margins_) + [None] * (len(verdicts) - len(margins_))
    return " ".join(f'<span title="seed {s}: {_h(v)}" style="background:{COLOURS.get(v, "#fff")};'
                    f'padding:0 .15em;white-space:nowrap">{MARKS.get(v, "·")}{fmt_margin(m)}</span>'
                    for s, v, m in zip(seeds, verdicts, ms))


def _history(decl) -> str:
    if not decl.history:
        return ""
    items = "".join(f"<li>{_h(c.date or 'undated')}: {_h(c.change)} — {_h(c.reason)}</li>" for c in decl.history)
    return f"<b>history</b><ul>{items}</ul>"


def _details(r) -> str:
    d = r.decl
    parts = [f"<b>rule</b> <code>{_h(d.rule)}</code> ({_h(d.rule_kind or 'legacy')})",
             f"<b>tolerance from</b> {_h(d.tolerance)}",
             f"<b>measured</b> {_h(r.measured())}" + (f" — {_h(r.note)}" if r.note else ""),
             f"<b>premises</b> {_premises(d)}",
             f"<b>expected</b> {_h(d.expect)} (<i>{_h(d.expect_basis)}</i>"
             + (": written before any run" if d.expect_basis == "predicted" else ": copied from a result, a regression guard")
             + ")"]
    if d.measure:
        parts.append(f"<b>measurement</b> <code>lrlib.theory.{_h(d.measure)}</code>")
    if d.limit:
        parts.append(f"<b>limit</b> {_h(d.limit)}")
    if d.partial:
        parts.append(f"<b>partial tier</b> <code>{_h(d.partial)}</code> ({_h(d.partial_reason)})")
    if r.init_verdicts:
        parts.append(f"<b>at initialisation</b> {margin_marks(r.init_verdicts, r.init_margins)}")
    if r.coarse_verdicts:
        parts.append(f"<b>step far too large</b> {margin_marks(r.coarse_verdicts, r.coarse_margins)}")
    for s in r.sensitivity:
        parts.append(f"<b>sensitivity</b> {_h(s['name'])} ×{s['factor']:g}: {seed_marks(s['verdicts'])}")
    if r.control_values:
        parts.append(f"<b>control measured</b> {_h(r.control_measured())}")
    h = _history(d)
    if h:
        parts.append(h)
    return "<details><summary>details</summary>" + "<br>".join(parts) + "</details>"


class ChapterTables:
    """The chapter's tables; displays as HTML in a notebook (a text summary as ``repr``).

    One compact row per claim: the claim, the paper's statement, the pass rate with every seed's
    margin, the control with every control seed's verdict and margin, the tier; the rule,
    premises, measured values, expectation (and its basis) and history fold into a detail.

    Parameters
    ----------
    ledger : Ledger
        The chapter's graded claims (:class:`lrlib.ledger.grading.Ledger`).
    """

    def __init__(self, ledger):
        self.ledger = ledger

    def _repr_html_(self) -> str:
        res = list(self.ledger.results.values())
        rep = [r for r in res if r.decl.kind == "reproduction"]
        con = [r for r in res if r.decl.kind == "consistency"]
        tiers = [r.tier()[0] for r in res]
        counts = ", ".join(f"{n} {t}" for t, n in tier_counts(tiers).items() if n)
        out = [legend_html(), f"<p><b>Reproductions</b> ({len(rep)} claims; pass rate over seeds "
               f"{self.ledger.seeds[0]}–{self.ledger.seeds[-1]} unless marked <i>from sweep</i>; "
               f"margins: the factor by which each seed clears (&gt;1) or misses (&lt;1) the rule). "
               f"Tiers: {_h(counts)}.</p>"]
        rows = []
        for r in rep:
            d = r.decl
            tier, why = r.tier()
            ctrl = (f"<small>{_h(d.control_text)}</small><br>"
                    + margin_marks(r.control_verdicts, r.control_margins))
            rows.append([f"<code>{_h(d.id)}</code><br><small>{_h(d.ref)}</small>",
                         _h(d.statement) + _details(r),
                         _rate_cell(r, marks=r.sweep_verdicts is not None) + "<br>"
                         + ("<small>this run:</small> " if r.sweep_verdicts is not None else "")
                         + margin_marks(r.verdicts, r.margins, r.seeds),
                         ctrl, f"<b>{_h(tier)}</b>" + (f"<br><small>{_h(why)}</small>" if why else "")])
        out.append(table_html(rows, ["claim", "statement", "pass rate, margins", "control run", "tier"]))
        if con:
            out.append(f"<p><b>Consistency checks</b> ({len(con)}; identities and implementation "
                       "invariants, not counted as reproductions)</p>")
            crow = [[f"<code>{_h(r.decl.id)}</code><br><small>{_h(r.decl.ref)}</small>",
                     _h(r.decl.statement) + _details(r), _rate_cell(r)] for r in con]
            out.append(table_html(crow, ["claim", "statement", "result"]))
        return "\n".join(out)

    def __repr__(self) -> str:
        lines = []
        for r in self.ledger.results.values():
            lines.append(f"{r.decl.kind[:4]} {r.decl.id}: {headline(r.rate_verdicts)} [{r.tier()[0]}] | {r.measured()}"
                         + (f" | control {r.control_measured()} -> {','.join(r.control_verdicts)}"
                            if r.control_verdicts else ""))
        return "\n".join(lines)


def chapter_tables(ledger) -> ChapterTables:
    """The tables of a chapter's ledger, for display.

    Parameters
    ----------
    ledger : Ledger
        The chapter's graded claims.

    Returns
    -------
    ChapterTables
    """
    return ChapterTables(ledger)
