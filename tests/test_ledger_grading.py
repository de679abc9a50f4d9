"""Tests for lrlib.ledger: declarations, per-seed grading, controls, premises, expectations,
sweep-sourced pass rates and the build's checks."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch

from lrlib.ledger import aggregate as ag
from lrlib.ledger import grading as gr
from lrlib.ledger import provenance as pv
from lrlib.ledger import (ControlPassed, Ledger, StaleSweep, VerdictMismatch, declaration_from_dict,
                          expectation_met, headline, load_declarations)
from lrlib.ledger.grading import grade_seeds
from lrlib.errors import ParameterError

BASE = dict(id="thm1.rate", ref="Thm. 1", statement="s", quantity="q", rule="abs(rate - 1) < 0.1",
            tolerance="10 %, the theorem's O(ε)", expect="reproduced", control="a perturbed prediction")


def decl(**kw):
    return declaration_from_dict({**BASE, **kw})


# ---- declarations -----------------------------------------------------------------

@pytest.mark.parametrize("change, msg", [
    ({"control": ""}, "needs a negative control"),
    ({"rule": "rate <"}, "not an expression"),
    ({"expect": "mostly"}, "expect must be"),
    ({"expect": "0.8-0.2"}, "expect must be"),
    ({"kind": "identity"}, "kind must be"),
    ({"seeds": "all"}, "seeds must be"),
    ({"partial": "rate > 0"}, "needs its reason"),
    ({"premises": [{"text": "t1 <= T"}]}, "with `text` and `rule`"),
    ({"colour": "red"}, "unknown field"),
    ({"tolerance": ""}, "missing field"),
    ({"id": "a b"}, "ids are"),
])
def test_bad_declarations_are_rejected(change, msg):
    with pytest.raises(ParameterError, match=msg):
        decl(**change)


def test_consistency_checks_need_no_control():
    d = decl(kind="consistency", control="")
    assert d.kind == "consistency"


def test_load_declarations_rejects_duplicates(tmp_path):
    f = tmp_path / "01_x.claims.yaml"
    f.write_text(textwrap.dedent("""\
        chapter: x
        claims:
          - {id: a, ref: r, statement: s, quantity: q, rule: v > 0, tolerance: t, expect: reproduced, control: c}
          - {id: a, ref: r, statement: s, quantity: q, rule: v > 0, tolerance: t, expect: reproduced, control: c}
        """))
    with pytest.raises(ParameterError, match="duplicate claim id 'a'"):
        load_declarations(f)
    with pytest.raises(ParameterError, match="not found"):
        load_declarations(tmp_path / "missing.yaml")


# ---- grading ------------------------------------------------------------------------

def test_each_verdict_per_seed():
    d = decl(partial="abs(rate - 1) < 0.5", partial_reason="the paper's weaker bound",
             inconclusive="t_a == t_b", premises=[{"text": "t₁ ≤ T", "rule": "t1 <= T"}])
    v = dict(rate=[1.0, 1.3, 2.0, 1.0, 1.0], t_a=[0, 0, 0, 1, 0], t_b=[1, 1, 1, 1, 1],
             t1=[0.1, 0.1, 0.1, 0.1, 0.5], T=0.2)
    assert grade_seeds(d, v) == ["reproduced", "partial", "not reproduced", "inconclusive", "premise not met"]


def test_nan_measurement_is_not_reproduced():
    assert grade_seeds(decl(), {"rate": [np.nan]}) == ["not reproduced"]


def test_expectations():
    assert expectation_met("reproduced", ["reproduced", "premise not met"])
    assert not expectation_met("reproduced", ["premise not met"])
    assert expectation_met("not reproduced", ["not reproduced", "inconclusive"])
    assert expectation_met("0.6-1", ["reproduced"] * 3 + ["not reproduced"] * 2)
    assert not expectation_met("0.6-1", ["reproduced"] * 2 + ["not reproduced"] * 3)
    assert expectation_met("premise not met", ["premise not met"] * 2)
    assert headline(["reproduced"] * 5) == "reproduced 5/5"
    assert headline(["reproduced", "not reproduced", "premise not met"]) == "1/2 (+1 premise not met)"
    assert headline(["premise not met"] * 3) == "premise not met (3)"
    assert headline(["reproduced"] * 3 + ["premise not met"] * 2) == "reproduced 3/3 (+2 premise not met)"
    assert headline(["reproduced", "not reproduced", "inconclusive"]) == "1/2 (+1 inconclusive)"


def ledger(tmp_path, *extra, seeds=5):
    body = "\n".join(["chapter: x", "claims:", _yaml(BASE)] + [_yaml({**BASE, **e}) for e in extra])
    nbdir = tmp_path / "notebooks"
    nbdir.mkdir(exist_ok=True)
    (nbdir / "01_x.py").write_text("# chapter\n")
    (nbdir / "01_x.claims.yaml").write_text(body)
    return Ledger.declared("x", n_seeds=seeds, path=nbdir / "01_x.claims.yaml")


def _yaml(d):
    lines = [f"  - id: {d['id']}"]
    for k, v in d.items():
        if k == "id":
            continue
        if k == "premises":
            lines.append("    premises:")
            lines += [f"      - text: \"{p['text']}\"\n        rule: \"{p['rule']}\"" for p in v]
        else:
            lines.append(f"    {k}: \"{v}\"")
    return "\n".join(lines)


def test_grade_accepts_torch_and_numpy_and_saves_json(tmp_path, monkeypatch):
    monkeypatch.setattr(gr, "PUBLISHED_FULL", tmp_path / "none.json")
    led = ledger(tmp_path, {"id": "ident", "kind": "consistency", "control": "", "rule": "err < 1e-12"})
    led.grade("thm1.rate", rate=torch.tensor([1.0, 1.01, 0.99, 1.02, 1.0], dtype=torch.float64),
              control=dict(rate=np.array([2.0, 2.1])), note="context")
    led.grade("ident", err=1e-15)
    tables = led.finish(tmp_path / "l.json", strict=True)
    doc = json.loads((tmp_path / "l.json").read_text())
    assert doc["schema"] == 2 and doc["seeds"] == [0, 1, 2, 3, 4] and len(doc["code_hash"]) == 16
    c = doc["claims"][0]
    assert c["verdicts"] == ["reproduced"] * 5 and c["passes"] == 5 and c["control_verdicts"] == ["not reproduced"] * 2
    assert c["measured"] == "rate 0.99–1.02" and c["control_measured"] == "rate 2–2.1" and c["note"] == "context"
    assert c["rule"] == "abs(rate - 1) < 0.1" and c["kind"] == "reproduction"
    html = tables._repr_html_()
    assert "Consistency checks" in html and "reproduced 5/5" in html and "a perturbed prediction" in html


def test_a_control_that_passes_fails_the_build(tmp_path, monkeypatch):
    monkeypatch.setattr(gr, "PUBLISHED_FULL", tmp_path / "none.json")
    led = ledger(tmp_path)
    led.grade("thm1.rate", rate=[1.0] * 5, control=dict(rate=[1.05]))
    with pytest.raises(ControlPassed, match="thm1.rate"):
        led.finish(None, strict=True)
    led.finish(None, strict=False)   # another seed or the reduced size: printed, not raised


def test_a_pass_rate_outside_its_expectation_fails_the_build(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(gr, "PUBLISHED_FULL", tmp_path / "none.json")
    led = ledger(tmp_path)
    led.grade("thm1.rate", rate=[1.0, 1.0, 1.0, 1.0, 3.0], control=dict(rate=[3.0]))
    with pytest.raises(VerdictMismatch, match="4/5"):
        led.finish(None, strict=True)
    led.finish(None, strict=False)
    assert "finding" in capsys.readouterr().out


def test_premise_not_met_is_excluded_from_the_pass_rate(tmp_path, monkeypatch):
    monkeypatch.setattr(gr, "PUBLISHED_FULL", tmp_path / "none.json")
    led = ledger(tmp_path, {"id": "p", "premises": [{"text": "Assumption 3 holds", "rule": "a3 == 1"}]})
    led.grade("thm1.rate", rate=1.0, control=dict(rate=3.0))
    led.grade("p", rate=[1.0, 1.0, 5.0, 1.0, 1.0], a3=[1, 1, 0, 1, 1], control=dict(rate=3.0))
    led.finish(None, strict=True)
    assert led.results["p"].verdicts[2] == "premise not met"
    assert headline(led.results["p"].verdicts) == "reproduced 4/4 (+1 premise not met)"


def test_grade_errors(tmp_path):
    led = ledger(tmp_path, {"id": "c", "kind": "consistency", "control": ""})
    with pytest.raises(ParameterError, match="not declared"):
        led.grade("nope", rate=1.0)
    with pytest.raises(ParameterError, match="graded with its control"):
        led.grade("thm1.rate", rate=1.0)
    with pytest.raises(ParameterError, match="takes no control"):
        led.grade("c", rate=1.0, control={"rate": 2.0})
    with pytest.raises(ParameterError, match="measured 3 seed"):
        led.grade("thm1.rate", rate=[1.0, 1.0, 1.0], control={"rate": 2.0})
    with pytest.raises(ParameterError, match="needs measurement"):
        led.grade("thm1.rate", other=1.0, control={"other": 2.0})
    led.grade("thm1.rate", rate=1.0, control={"rate": 2.0})
    with pytest.raises(ParameterError, match="graded twice"):
        led.grade("thm1.rate", rate=1.0, control={"rate": 2.0})
    with pytest.raises(ParameterError, match="never graded"):
        led.finish(None, strict=True)


def test_sweep_claims_take_their_pass_rate_from_a_fresh_sweep(tmp_path, monkeypatch):
    led = ledger(tmp_path, {"id": "mnist", "seeds": "sweep", "expect": "0.6-1"})
    led.grade("thm1.rate", rate=1.0, control=dict(rate=3.0))
    led.grade("mnist", rate=1.0, control=dict(rate=3.0))
    here = pv.code_hash("x", led.notebooks_dir)
    runs = [{"seed": s, "verdicts": [v]} for s, v in enumerate(["reproduced"] * 3 + ["not reproduced"] * 2)]
    agg = {"schema": 2, "chapters": {"x": {"code_hash": here}}, "claims": {"x.mnist": {"runs": runs}}}
    path = tmp_path / "sweep-full.json"
    path.write_text(json.dumps(agg))
    monkeypatch.setattr(gr, "PUBLISHED_FULL", path)
    led.finish(None, strict=True)
    assert headline(led.results["mnist"].rate_verdicts) == "3/5"
    # the code changed since the sweep: the book's own run refuses the stale pass rate ...
    agg["chapters"]["x"]["code_hash"] = "0" * 16
    path.write_text(json.dumps(agg))
    led.results["mnist"].sweep_verdicts = None
    with pytest.raises(StaleSweep, match="lrlib.sweep --chapters x"):
        led.finish(None, strict=True)
    # ... but a run inside a sweep (which refreshes it) goes on, on its own seed's verdicts: the sweep it
    # replaces says nothing about them
    monkeypatch.setenv(ag.SWEEP_ENV, "1")
    led.finish(None, strict=True)
    assert led.results["mnist"].sweep_verdicts is None
    assert led.results["mnist"].rate_verdicts == led.results["mnist"].verdicts
    # and other runs attach the stale sweep, labelled as stale
    monkeypatch.delenv(ag.SWEEP_ENV)
    led.finish(None, strict=False)
    assert "stale" in led.results["mnist"].sweep_source


def test_a_reproduction_premise_not_met_in_every_seed_is_not_graded(tmp_path):
    led = ledger(tmp_path, {"id": "p", "premises": [{"text": "it converged", "rule": "ok == 1"}]}, seeds=2)
    r = led.grade("p", rate=[1.0, 1.0], ok=[0.0, 0.0], control=dict(rate=[3.0, 3.0], ok=[1.0, 1.0]))
    assert r.verdicts == ["premise not met"] * 2 and r.tier()[0] == "not graded"


def test_code_hash_follows_the_chapter_and_lrlib_but_not_the_sweep_runner(tmp_path):
    root = tmp_path
    (root / "notebooks").mkdir()
    (root / "lrlib").mkdir()
    (root / "notebooks" / "01_x.py").write_text("import lrlib.core\nimport lrlib.sweep\n")
    (root / "notebooks" / "01_x.claims.yaml").write_text("b")
    (root / "lrlib" / "core.py").write_text("c")
    (root / "lrlib" / "sweep.py").write_text("d")
    h0 = pv.code_hash("x", root=root)
    (root / "lrlib" / "sweep.py").write_text("changed")
    assert pv.code_hash("x", root=root) == h0
    (root / "notebooks" / "01_x.claims.yaml").write_text("changed")
    h1 = pv.code_hash("x", root=root)
    assert h1 != h0
    (root / "lrlib" / "core.py").write_text("changed")
    assert pv.code_hash("x", root=root) != h1


def test_code_hash_follows_only_the_lrlib_modules_the_chapter_imports(tmp_path):
    root = tmp_path
    theory = root / "lrlib" / "theory" / "paper"
    (root / "notebooks").mkdir()
    theory.mkdir(parents=True)
    files = {
        "notebooks/01_x.py": "# %%\nfrom lrlib.theory import paper as th\n\ndef f():\n    import lrlib.late\n",
        "lrlib/__init__.py": "", "lrlib/theory/__init__.py": "", "lrlib/late.py": "l",
        "lrlib/theory/paper/__init__.py": "from . import closed\n",
        "lrlib/theory/paper/closed.py": "from ...core import x\n",
        "lrlib/core.py": "from .errors import E\n", "lrlib/errors.py": "E = 1\n",
        "lrlib/theory/other.py": "o", "lrlib/unused.py": "u",
    }
    for name, text in files.items():
        (root / name).write_text(text)
    closure = {f.relative_to(root).as_posix() for f in
               pv.lrlib_closure((root / "notebooks/01_x.py").read_text(), root)}
    assert closure == {n for n in files if n.startswith("lrlib/")} - {"lrlib/theory/other.py", "lrlib/unused.py"}
    h = pv.code_hash("x", root=root)
    for name in ("lrlib/theory/other.py", "lrlib/unused.py"):
        (root / name).write_text("changed")
        assert pv.code_hash("x", root=root) == h, name
    for name in ("lrlib/errors.py", "lrlib/theory/paper/closed.py", "lrlib/late.py"):
        (root / name).write_text((root / name).read_text() + "# changed\n")
        h2 = pv.code_hash("x", root=root)
        assert h2 != h, name
        h = h2


def test_code_hash_follows_the_rules_but_not_the_prose_of_the_claims_file(tmp_path):
    root = tmp_path
    (root / "notebooks").mkdir()
    (root / "notebooks" / "01_x.py").write_text("a")
    f = root / "notebooks" / "01_x.claims.yaml"
    claim = dict(id="a", ref="r", statement="s", quantity="q", rule="v > 0", tolerance="t",
                 expect="reproduced", control="c", premises=[{"text": "p", "rule": "w > 0"}])

    def write(**kw):
        f.write_text(json.dumps({"chapter": "x", "claims": [{**claim, **kw}]}))   # JSON is YAML
        return pv.code_hash("x", root=root)

    h0 = write()
    assert write(statement="reworded", expect="0.6-1", tolerance="other words") == h0
    assert write(rule="v > 1") != h0
    assert write(premises=[{"text": "p", "rule": "w > 1"}]) != h0
    assert write(kind="consistency", control="") != h0
    f.write_text("claims: [broken")
    h_broken = pv.code_hash("x", root=root)
    f.write_text("claims: [broken again")
    assert pv.code_hash("x", root=root) != h_broken
