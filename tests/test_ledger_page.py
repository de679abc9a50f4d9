"""Tests for lrlib.ledger_page: rows from declarations and sweeps, staleness, rule history."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from lrlib import ledger_page as lp
from lrlib.paths import chapters
from lrlib import sweep as sw

CLAIMS = """\
chapter: fake
claims:
  - {id: thm1.a, ref: Thm. 1, statement: S1, quantity: q, rule: v > 0, tolerance: t, expect: reproduced,
     control: a negative v}
  - {id: erratum.b, ref: eq. 3, statement: S2, quantity: q, rule: e < 1e-12, tolerance: t, expect: reproduced,
     kind: consistency}
"""


def _chapter(folder: Path) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "01_fake.ipynb").write_text('{"cells": [{"cell_type": "markdown", "source": "# Fake"}]}')
    (folder / "01_fake.claims.yaml").write_text(CLAIMS)
    return chapters(folder)


def _agg(rule="v > 0"):
    claim = {"id": "thm1.a", "kind": "reproduction", "rule": rule, "verdicts": ["reproduced", "premise not met"],
             "seeds_run": [0, 1], "measured": "v 1", "control_measured": "v -1",
             "control_verdicts": ["not reproduced"]}
    recs = [{"chapter": "fake", "seed": 0, "ok": True, "seconds": 1, "host": "h", "error": None, "glued": {},
             "code_hash": "h", "claims": [claim]}]
    return sw.aggregate(recs, sw.provenance(chapters=["fake"], seeds=[0], quick=False, workers=1,
                                            scheduler=None, wall_seconds=60))


def test_rows_and_html(tmp_path):
    chapters = _chapter(tmp_path / "notebooks")
    agg = _agg()
    rows = lp.ledger_rows(chapters, [agg])
    assert [r["id"] for r in rows] == ["fake.thm1.a", "fake.erratum.b"]
    html = lp.ledger_html(rows, [agg], page_dir=tmp_path, toc_file=tmp_path / "none.yml")
    assert "reproduced 1/1" in html and "1 premise not met" in html and "a negative v" in html
    assert "v -1" in html and "not reproduced" in html
    assert "consistency check" in html and "not in a published sweep" in html
    assert html.count("<tr data-chapter") == 2 and "data-outcome=\"reproduced\"" in html and "<script>" in html
    assert "differs from the rule" not in html
    summary = lp.chapter_summary(rows, [agg])
    assert "**0 quantitative reproductions**" in summary and "**1 consistency checks**" in summary
    assert "1 legacy" in summary and "the whole book" in summary        # a claim of the old form: counted apart


def test_tiers_margins_and_revision_changes(tmp_path):
    chapters = _chapter(tmp_path / "notebooks")
    agg = _agg()
    c = agg["claims"]["fake.thm1.a"]
    c["runs"][0].update(margins=[3.0, None], control_margins=[0.2], tier="quantitative")
    c["tier"], c["tier_reason"] = sw.sweep_tier(c["runs"], "reproduction")
    rows = lp.ledger_rows(chapters, [agg])
    html = lp.ledger_html(rows, [agg], page_dir=tmp_path, toc_file=tmp_path / "none.yml")
    assert "✓×3" in html and "×0.2" in html and 'data-tier="quantitative"' in html
    assert "**1 quantitative reproductions** (1 reproduced in every graded seed" in lp.chapter_summary(rows, [agg])
    before = {"claims": {"fake.thm1.a": {"passes": 0, "graded": 1, "runs": [{"verdicts": ["not reproduced"]}]}}}
    text = lp.revision_changes(rows, [agg], before)
    assert "`fake.thm1.a`: not reproduced 0/1 → reproduced 1/1 (+1 premise not met) (now: quantitative)" in text
    assert "| `fake` | 0 / 0 / 1 / 0 | 1 / 0 / 0 / 0 | 1 / 0 / 1 / 0 |" in text


def test_a_rule_that_differs_from_the_sweep_is_flagged(tmp_path):
    chapters = _chapter(tmp_path / "notebooks")
    agg = _agg(rule="v > -1")
    html = lp.ledger_html(lp.ledger_rows(chapters, [agg]), [agg], page_dir=tmp_path, toc_file=tmp_path / "x")
    assert "differs from the rule the published sweep graded" in html and "v &gt; -1" in html


def test_describe_sweep_says_which_chapters_are_stale():
    agg = _agg()
    agg["chapters"] = {"orthogonal": {"code_hash": "0" * 16, "seeds": [0]}}
    text = lp.describe_sweep(agg)
    assert "**Stale for** `orthogonal`" in text and "Full sweep" in text


def test_declaration_history_names_the_commit_that_changed_a_claim(tmp_path):
    git = lambda *a: subprocess.run(["git", *a], cwd=tmp_path, check=True, capture_output=True, text=True)
    git("init", "-q")
    git("config", "user.email", "t@t")
    git("config", "user.name", "t")
    f = tmp_path / "01_fake.claims.yaml"
    f.write_text(CLAIMS)
    git("add", ".")
    git("commit", "-qm", "declare")
    first = git("rev-parse", "HEAD").stdout.strip()
    f.write_text(CLAIMS.replace("rule: e < 1e-12", "rule: e < 1e-10"))
    git("commit", "-qam", "loosen b")
    second = git("rev-parse", "HEAD").stdout.strip()
    hist = lp.declaration_history(f, root=tmp_path)
    assert hist["thm1.a"]["commit"] == first and hist["erratum.b"]["commit"] == second
    assert hist["erratum.b"]["subject"] == "loosen b"
    f.write_text(CLAIMS.replace("rule: v > 0", "rule: v > 1"))
    assert lp.declaration_history(f, root=tmp_path)["thm1.a"]["commit"] == "uncommitted"


def test_outcome_classes_and_summary_figure(tmp_path):
    assert lp.outcome(None) == ("not in a sweep", -1.0)
    assert lp.outcome({"passes": 0, "graded": 0}) == ("not graded", -1.0)
    assert lp.outcome({"passes": 2, "graded": 4}) == ("mixed", 0.5)
    chapters = _chapter(tmp_path / "notebooks")
    agg = _agg()
    fig = lp.summary_figure(lp.ledger_rows(chapters, [agg]), [agg])
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["fake"]


def test_a_reproduction_with_no_graded_seed_is_not_graded(tmp_path):
    chapters = _chapter(tmp_path / "notebooks")
    agg = _agg()
    c = agg["claims"]["fake.thm1.a"]
    c["runs"][0]["verdicts"] = ["premise not met"] * 2
    c["tier"], c["graded"], c["passes"] = "quantitative", 0, 0
    rows = lp.ledger_rows(chapters, [agg])
    assert lp.claim_tier(rows[0], "full") == "not graded"
    assert "counted apart: 1 not graded" in lp.chapter_summary(rows, [agg])
