"""How a chapter shows its graded claims: two HTML tables (reproductions, consistency checks).

Only presentation lives here; grading is :mod:`lrlib.claims`.
"""

from __future__ import annotations

import html

from .verdicts import COLOURS, MARKS


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


def _rate_cell(r) -> str:
    from .claims import headline
    head = headline(r.rate_verdicts)
    word = head.split(" ")[0] if head[0].isalpha() else "partial"
    colour = COLOURS.get(head.rsplit(" ", 1)[0], COLOURS.get(word, COLOURS["partial"]))
    src = "" if not r.sweep_source else f'<br><small>from {_h(r.sweep_source)}</small>'
    exp = "" if r.expected_ok else ' <b title="outside the declared expectation">≠ expected</b>'
    return (f'<span style="background:{colour};padding:0 .3em;border-radius:3px;white-space:nowrap">'
            f'{_h(head)}</span>{exp}<br>{seed_marks(r.rate_verdicts)}{src}')


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


class ChapterTables:
    """The chapter's tables; displays as HTML in a notebook (a text summary as ``repr``).

    Parameters
    ----------
    ledger : Ledger
        The chapter's graded claims (:class:`lrlib.claims.Ledger`).
    """

    def __init__(self, ledger):
        self.ledger = ledger

    def _repr_html_(self) -> str:
        res = list(self.ledger.results.values())
        rep = [r for r in res if r.decl.kind == "reproduction"]
        con = [r for r in res if r.decl.kind == "consistency"]
        out = [legend_html(), f"<p><b>Reproductions</b> ({len(rep)} claims; pass rate over seeds "
               f"{self.ledger.seeds[0]}–{self.ledger.seeds[-1]} unless marked <i>from sweep</i>)</p>"]
        rows = []
        for r in rep:
            d = r.decl
            ctrl = (f"{_h(d.control)}<br><small>{_h(r.control_measured())}</small><br>"
                    + " ".join(verdict_cell(v) for v in sorted(set(r.control_verdicts))))
            change = f"<br><small><i>rule changed: {_h(d.rule_change)}</i></small>" if d.rule_change else ""
            partial = (f"<br><small>partial tier: <code>{_h(d.partial)}</code> ({_h(d.partial_reason)})</small>"
                       if d.partial else "")
            rows.append([f"<code>{_h(d.id)}</code><br><small>{_h(d.ref)}</small>", _h(d.statement),
                         f"<code>{_h(d.rule)}</code>{partial}<br><small>{_h(d.tolerance)}</small>{change}",
                         _premises(d),
                         _h(r.measured()) + (f"<br><small>{_h(r.note)}</small>" if r.note else ""),
                         ctrl, _rate_cell(r)])
        out.append(table_html(rows, ["claim", "statement", "rule (tolerance from)", "premises",
                                 "measured (over seeds)", "negative control", "pass rate"]))
        if con:
            out.append(f"<p><b>Consistency checks</b> ({len(con)}; identities and implementation "
                       "invariants, not counted as reproductions)</p>")
            crow = [[f"<code>{_h(r.decl.id)}</code><br><small>{_h(r.decl.ref)}</small>", _h(r.decl.statement),
                     f"<code>{_h(r.decl.rule)}</code>", _h(r.measured()), _rate_cell(r)] for r in con]
            out.append(table_html(crow, ["claim", "statement", "rule", "measured", "result"]))
        return "\n".join(out)

    def __repr__(self) -> str:
        lines = []
        for r in self.ledger.results.values():
            from .claims import headline
            lines.append(f"{r.decl.kind[:4]} {r.decl.id}: {headline(r.rate_verdicts)} | {r.measured()}"
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
