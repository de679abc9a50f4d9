"""Tests for lrlib.ledger.view: a chapter's claims tables as HTML (the legend, one row per claim,
the consistency table, escaping) and the plain-text repr."""

from __future__ import annotations

from lrlib.ledger import Ledger, declaration_from_dict
from lrlib.ledger.view import chapter_tables, legend_html, seed_marks, table_html, verdict_cell
from lrlib.ledger.verdicts import COLOURS, MARKS

BASE = dict(ref="Thm. 1", statement="s", quantity="q", rule="abs(rate - 1) < 0.1",
            tolerance="10 %", expect="reproduced", control="a perturbed prediction")


def _ledger(consistency=True):
    decls = [declaration_from_dict({**BASE, "id": "thm1.rate"}),
             declaration_from_dict({**BASE, "id": "thm2.gap", "statement": "gap < <b>1</b>", "rule": "gap < 1"})]
    if consistency:
        decls.append(declaration_from_dict({**BASE, "id": "ident", "kind": "consistency", "control": "",
                                            "rule": "err < 1e-12"}))
    led = Ledger("x", decls, seeds=[0, 1, 2])
    led.grade("thm1.rate", rate=[1.0, 1.02, 1.5], control=dict(rate=[2.0]))
    led.grade("thm2.gap", gap=[0.5, 0.2, 0.1], control=dict(gap=[3.0]))
    if consistency:
        led.grade("ident", err=1e-15)
    return led


def test_legend_lists_every_verdict():
    html = legend_html()
    assert html.startswith('<div class="lr-legend">')
    for v in COLOURS:
        assert f"{MARKS[v]} {v}" in html and COLOURS[v] in html


def test_chapter_tables_html():
    html = chapter_tables(_ledger())._repr_html_()
    assert html.startswith(legend_html())
    assert html.count('<table class="lr-claims">') == 2                        # reproductions, consistency
    rep, con = html.split("<b>Consistency checks</b>")
    assert rep.count("<tr><td") == 2 and con.count("<tr><td") == 1              # one row per claim
    assert "<code>thm1.rate</code>" in rep and "<code>thm2.gap</code>" in rep and "<code>ident</code>" in con
    assert "(2 claims; pass rate over seeds 0–2" in rep and "(1; identities" in con
    assert "a perturbed prediction" in rep and 'data-label="control run"' in rep
    assert "gap &lt; &lt;b&gt;1&lt;/b&gt;" in rep and "<b>1</b>" not in html       # statements are escaped


def test_no_consistency_table_without_consistency_checks():
    html = chapter_tables(_ledger(consistency=False))._repr_html_()
    assert html.count('<table class="lr-claims">') == 1 and "Consistency checks" not in html


def test_repr_one_line_per_claim():
    lines = repr(chapter_tables(_ledger())).splitlines()
    assert [line.split(":")[0] for line in lines] == ["repr thm1.rate", "repr thm2.gap", "cons ident"]
    assert "control" in lines[0] and "control" not in lines[2]


def test_cells_and_table():
    assert "reproduced" in verdict_cell("reproduced") and COLOURS["reproduced"] in verdict_cell("reproduced")
    marks = seed_marks(["reproduced", "not reproduced"], seeds=[3, 4])
    assert 'title="seed 3: reproduced"' in marks and 'title="seed 4: not reproduced"' in marks
    t = table_html([["<i>a</i>", "b"]], ["x & y", "z"], row_attrs=[' data-k="1"'])
    assert '<th>x &amp; y</th>' in t and '<tr data-k="1"><td data-label="x &amp; y"><i>a</i></td>' in t
