"""The "what holds" summary of a chapter (lrlib.ledger.summary)."""

from __future__ import annotations

from lrlib.ledger import Ledger
from lrlib.ledger.summary import glue_what_holds, what_holds_rows

CLAIMS = """chapter: x
claims:
  - {id: thm1.rate, ref: Thm 1, statement: s, quantity: q, rule: "abs(rate - 1) < 0.1", tolerance: t,
     expect: reproduced, control: "c", rule_kind: tolerance, expect_basis: observed}
  - {id: ident, ref: Eq 2, statement: s, quantity: q, rule: "err < 1e-9", tolerance: t, kind: consistency,
     expect: reproduced, expect_basis: observed}
"""


def test_each_statement_lists_its_claims_with_pass_rate_and_tier(tmp_path):
    (tmp_path / "01_x.py").write_text("# chapter\n")
    (tmp_path / "01_x.claims.yaml").write_text(CLAIMS)
    led = Ledger.declared("x", n_seeds=2, path=tmp_path / "01_x.claims.yaml")
    led.grade("thm1.rate", rate=[1.0, 1.5], control=dict(rate=[3.0, 3.0]))
    led.grade("ident", err=[0.0, 0.0])
    rows = what_holds_rows(led, [("Theorem 1 & its rate", ["thm1.rate"]), ("an identity", ["ident"])])
    assert rows[0][0] == "Theorem 1 &amp; its rate"
    assert "<code>thm1.rate</code>: 1/2" in rows[0][1] and "reproduction" in rows[0][1]
    assert "reproduced 2/2" in rows[1][1] and "consistency" in rows[1][1]
    html = glue_what_holds("x", led, [("an identity", ["ident"])])
    assert "the paper says" in html and "ident" in html
    html = glue_what_holds("x", led, [("an identity", ["ident"])], header="cross-paper statement")
    assert "cross-paper statement" in html and "the paper says" not in html
