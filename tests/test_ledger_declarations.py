"""Tests for lrlib.ledger.declarations: the claims files, the new form (measurement function, control
run, rule kind, expectation basis, history) and the lint; and a walk over every chapter's claims."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from lrlib.errors import ParameterError
from lrlib.ledger.declarations import Control, declaration_from_dict, lint, load_declarations, resolve_measure

ROOT = Path(__file__).resolve().parent.parent
NEW = dict(id="c", ref="Thm. 1", statement="s", quantity="q", rule="abs(rate - 1) <= 0.1", tolerance="t",
           expect="reproduced", rule_kind="tolerance", expect_basis="predicted",
           measure="orthogonal.claims.something", control={"run": "big_init", "removes": "the small initialisation"})


def test_new_form_fields():
    d = declaration_from_dict({**NEW, "history": [{"date": "2026-12-02", "change": "rule", "reason": "why"}],
                               "sensitivity": [{"name": "rate", "factor": 0.5}]})
    assert d.control == Control("big_init", "the small initialisation") and not d.legacy
    assert d.history[0].reason == "why" and d.sensitivity[0].factor == 0.5
    assert d.control_text == "big_init — the small initialisation"


@pytest.mark.parametrize("bad, msg", [
    (dict(control="a text"), "a reproduction's control is a run"),
    (dict(control={"run": "x"}), "a reproduction's control is a run"),
    (dict(rule_kind="loose"), "rule_kind"),
    (dict(expect_basis="declared"), "expect_basis"),
    (dict(rule_kind="trend"), "limit"),
    (dict(measure="not dotted"), "dotted"),
    (dict(sensitivity=[{"name": "other", "factor": 2}]), "sensitivity"),
    (dict(history=[{"date": "x"}]), "history"),
])
def test_new_form_is_validated(bad, msg):
    with pytest.raises(ParameterError, match=msg):
        declaration_from_dict({**NEW, **bad})


def test_legacy_form_defaults_to_observed():
    d = declaration_from_dict({k: v for k, v in NEW.items() if k not in ("measure", "expect_basis", "rule_kind")}
                              | {"control": "a perturbed prediction", "rule_change": "changed after the run"})
    assert d.legacy and d.expect_basis == "observed" and d.history[0].reason == "changed after the run"


def test_a_control_that_cannot_pass_is_a_load_error():
    # the control goes through the claim's own rule: a rule that no input satisfies can pass neither
    with pytest.raises(ParameterError, match="no input satisfies"):
        declaration_from_dict({**NEW, "rule": "rate > 2 and rate < 1"})


def test_a_rule_that_cannot_fail_is_a_load_error():
    with pytest.raises(ParameterError, match="every input satisfies"):
        declaration_from_dict({**NEW, "rule": "rate >= 0 or rate < 0"})


def test_lint_finds_narrow_conjunctions():
    lint("4000 <= a <= 6500 and abs(b - 0.5) <= 0.01 and 10000 <= c <= 13000 and d < 1e-6 and e == 0 and f == 1")
    with pytest.raises(ParameterError):
        lint("2")
    # several equalities: their margins are 0 or ∞, so the ascent counts the conditions met
    lint("abs(drift_ratio - 2) <= 0.2 and flips == 0 and wrong_way == 0 and escapes == 0 and mass_ok == 1")
    with pytest.raises(ParameterError, match="no input"):
        lint("x > 1 and x < 0")
    with pytest.raises(ParameterError, match="every input"):
        lint("x > 1 or x <= 1")


def test_resolve_measure_reports_a_missing_function():
    with pytest.raises(ParameterError, match="does not resolve"):
        resolve_measure(declaration_from_dict({**NEW, "measure": "orthogonal.claims.no_such_function"}))


# ---------------------------------------------------------------------------------
# the walk over every chapter's declarations

CLAIMS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.claims.yaml"))
#: Reproductions still graded on handed-in values, by chapter (the ledger tiers them "legacy"). The
#: migration to control runs is finished: the list is empty and may not grow.
LEGACY_LEFT: dict[str, set[str]] = {}
_PERTURBED = re.compile(r"control\s*=\s*dict\(")


@pytest.mark.parametrize("path", CLAIMS, ids=lambda p: p.stem)
def test_every_reproduction_control_is_a_run(path):
    """Every reproduction declares its measurement function and a control run; the notebook hands the
    ledger runs (``ledger.measure``), never control values, and names the declared control run."""
    decls = load_declarations(path)
    source = path.with_name(path.name.replace(".claims.yaml", ".py")).read_text(encoding="utf-8")
    allowed = LEGACY_LEFT.get(path.name.replace(".claims.yaml", ""), set())
    legacy = {d.id for d in decls if d.kind == "reproduction" and d.legacy}
    assert legacy <= allowed, f"reproductions graded on handed-in values (no `measure`, control not a run): {legacy - allowed}"
    assert allowed <= legacy, f"migrated since: remove {allowed - legacy} from LEGACY_LEFT"
    for d in decls:
        resolve_measure(d) if d.measure else None
        if d.kind == "reproduction" and not d.legacy:
            assert isinstance(d.control, Control) and d.control.removes
            assert re.search(rf"[\"']{re.escape(d.control.run)}[\"']\s*:", source), \
                f"{d.id}: the notebook never hands the ledger a run named {d.control.run!r}"
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "grade":
            kws = {k.arg for k in node.keywords}
            arg = node.args[0] if node.args else None
            if isinstance(arg, ast.Constant):
                ok = arg.value in allowed
            else:   # an f-string id: every claim it can name (its constant prefix) must be a listed one
                head = arg.values[0].value if isinstance(arg, ast.JoinedStr) and isinstance(arg.values[0], ast.Constant) else ""
                ok = bool(head) and any(i.startswith(head) for i in allowed) and not any(
                    d.id.startswith(head) and d.id not in allowed for d in decls)
            assert "control" not in kws or ok, f"line {node.lineno}: a control handed in as values"
