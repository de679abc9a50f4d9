"""Tests for lrlib.ledger.grading in the new form: Ledger.measure applies the declared measurement to
the main, control, initial-state and coarse-step runs; margins, tiers, undefined controls."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from lrlib.errors import ParameterError
from lrlib.ledger import grading as gr
from lrlib.ledger.aggregate import published_control_failures, tier_counts
from lrlib.ledger.grading import ControlPassed, Ledger

CLAIM = dict(id="rate", ref="Thm. 1", statement="s", quantity="q", rule="abs(rate - 1) <= 0.1", tolerance="t",
             expect="reproduced", rule_kind="tolerance", expect_basis="predicted", measure="x.claims.rate",
             control={"run": "big_init", "removes": "the small initialisation"})


def measure_rate(run, shift=0.0):
    """A measurement function: the 'run' is an array of rates over seeds."""
    return {"rate": np.asarray(run, dtype=float) + shift}


@pytest.fixture
def make_ledger(tmp_path, monkeypatch):
    monkeypatch.setattr(gr, "resolve_measure", lambda decl: measure_rate)
    monkeypatch.setattr(gr, "PUBLISHED_FULL", tmp_path / "none.json")

    def make(*claims, seeds=3):
        nbdir = tmp_path / "notebooks"
        nbdir.mkdir(exist_ok=True)
        (nbdir / "01_x.py").write_text("# chapter\n")
        (nbdir / "01_x.claims.yaml").write_text(json.dumps({"chapter": "x", "claims": list(claims)}))
        return Ledger.declared("x", n_seeds=seeds, path=nbdir / "01_x.claims.yaml")
    return make


def test_measure_applies_the_function_to_the_runs(make_ledger):
    led = make_ledger(CLAIM)
    r = led.measure("rate", [1.0, 1.05, 1.5], controls={"big_init": [2.0, 3.0, 2.5]}, shift=0.0)
    assert r.verdicts == ["reproduced", "reproduced", "not reproduced"]
    assert r.margins[0] == math.inf and r.margins[1] == pytest.approx(2.0) and r.margins[2] == pytest.approx(0.2)
    assert r.control_verdicts == ["not reproduced"] * 3 and r.control_margins[0] == pytest.approx(0.1)
    assert r.tier() == ("quantitative", "")


def test_measure_needs_the_declared_control_run(make_ledger):
    led = make_ledger(CLAIM)
    with pytest.raises(ParameterError, match="big_init"):
        led.measure("rate", [1.0] * 3, controls={"other": [2.0] * 3})
    with pytest.raises(ParameterError, match="use measure"):
        led.grade("rate", rate=[1.0] * 3, control=dict(rate=[2.0] * 3))


def test_a_nan_control_is_inconclusive_not_rejected(make_ledger):
    led = make_ledger(CLAIM)
    r = led.measure("rate", [1.0] * 3, controls={"big_init": [np.nan, 2.0, 2.0]})
    assert r.control_verdicts == ["inconclusive", "not reproduced", "not reproduced"]
    assert r.control_status == "inconclusive" and r.tier()[0] == "inconclusive" and r.control_ok


def test_a_rule_that_holds_at_initialisation_is_flagged(make_ledger):
    led = make_ledger(CLAIM, {**CLAIM, "id": "coarse"})
    r = led.measure("rate", [1.0] * 3, controls={"big_init": [2.0] * 3}, init=[1.02, 1.05, 2.0])
    assert r.init_verdicts[:2] == ["reproduced"] * 2
    assert r.tier() == ("consistency", "the rule already holds at initialisation (2/3 seeds)")
    r2 = led.measure("coarse", [1.0] * 3, controls={"big_init": [2.0] * 3}, init=[3.0] * 3, coarse=[1.0] * 3)
    assert r2.tier()[0] == "consistency" and "step far too large" in r2.tier()[1]
    led2 = make_ledger({**CLAIM, "id": "once"})
    r3 = led2.measure("once", [1.0] * 3, controls={"big_init": [2.0] * 3}, coarse=[1.0, 3.0, 3.0])
    assert r3.tier()[0] == "quantitative"            # one seed of three passing coarse is no verdict


def test_margins_and_the_loose_tier_come_from_the_rule(make_ledger):
    bound = {**CLAIM, "id": "bound", "rule": "rate <= 1", "rule_kind": "bound"}
    tight = {**bound, "id": "tight"}
    led = make_ledger(bound, tight)
    r = led.measure("bound", [0.01, 0.05, 0.02], controls={"big_init": [2.0] * 3})
    assert r.margins == pytest.approx([100.0, 20.0, 50.0])
    assert r.tier()[0] == "loose bound" and "×50" in r.tier()[1]
    r2 = led.measure("tight", [0.5, 0.9, 0.3], controls={"big_init": [2.0] * 3})
    assert r2.tier()[0] == "quantitative"
    assert tier_counts([r.tier()[0], r2.tier()[0]]) == {"quantitative": 1, "loose bound": 1, "consistency": 0}


def test_a_threshold_needs_a_control_clearly_on_the_other_side(make_ledger):
    thr = {**CLAIM, "id": "thr", "rule": "rate >= 1", "rule_kind": "threshold"}
    led = make_ledger(thr, {**thr, "id": "clear"})
    assert led.measure("thr", [2.0] * 3, controls={"big_init": [0.9] * 3}).tier()[0] == "consistency"
    assert led.measure("clear", [2.0] * 3, controls={"big_init": [0.2] * 3}).tier()[0] == "quantitative"


def test_sensitivity_is_regraded_apart(make_ledger):
    led = make_ledger({**CLAIM, "sensitivity": [{"name": "rate", "factor": 0.5}]})
    r = led.measure("rate", [1.0] * 3, controls={"big_init": [2.0] * 3})
    assert r.sensitivity[0]["verdicts"] == ["not reproduced"] * 3 and r.control_status == "rejected"


def test_a_control_that_passes_in_the_published_sweep_fails_the_book(make_ledger, tmp_path, monkeypatch):
    agg = {"schema": 2, "chapters": {}, "claims": {"x.rate": {"rule": CLAIM["rule"], "runs": [
        {"seed": 0, "control_verdicts": ["not reproduced"] * 3},
        {"seed": 1, "control_verdicts": ["not reproduced", "reproduced", "inconclusive"]}]}}}
    assert "run 1 control seed 1" in published_control_failures(agg, "x", {"rate": CLAIM["rule"]})[0]
    assert published_control_failures(agg, "x", {"rate": "rate < 5"}) == []      # the rule changed since
    path = tmp_path / "agg.json"
    path.write_text(json.dumps(agg))
    monkeypatch.setattr(gr, "PUBLISHED_FULL", path)
    led = make_ledger(CLAIM)
    led.measure("rate", [1.0] * 3, controls={"big_init": [2.0] * 3})
    with pytest.raises(ControlPassed, match="published sweep"):
        led.finish(None, strict=True)


def test_results_serialise_margins_and_tiers(make_ledger, tmp_path):
    led = make_ledger(CLAIM)
    led.measure("rate", [1.0, 1.05, np.nan], controls={"big_init": [2.0] * 3}, init=[3.0] * 3)
    led.save(tmp_path / "l.json")
    c = json.loads((tmp_path / "l.json").read_text())["claims"][0]
    assert c["margins"][0] == "inf" and c["margins"][2] is None and c["tier"] == "quantitative"
    assert c["control_run"] == "big_init" and c["expect_basis"] == "predicted" and c["init_verdicts"]


def test_a_strict_comparison_at_zero_fails_with_margin_zero_and_inf_is_an_event_beyond_the_run(make_ledger, tmp_path):
    from lrlib.ledger.rules import Rule

    assert Rule("share > 0").margin({"share": [0.0, 0.2]}).tolist() == [0.0, math.inf]
    assert Rule("share >= 0").margin({"share": [0.0]}).tolist() == [math.inf]
    thr = {**CLAIM, "id": "thr", "rule": "rate < 2", "rule_kind": "threshold"}
    led = make_ledger(thr)
    r = led.measure("thr", [1.0] * 3, controls={"big_init": [np.inf, np.inf, 5.0]})    # never within the run
    assert r.control_verdicts == ["not reproduced"] * 3 and r.control_status == "rejected"
    assert r.control_margins[:2] == [0.0, 0.0] and r.tier()[0] == "quantitative"
    led.save(tmp_path / "l.json")
    c = json.loads((tmp_path / "l.json").read_text())["claims"][0]
    assert c["control_values"]["rate"][:2] == ["inf", "inf"] and "2 inf" in c["control_measured"]


def test_an_undefined_part_that_cannot_change_the_verdict_does_not_make_the_control_inconclusive(make_ledger):
    from lrlib.ledger.grading import could_pass
    from lrlib.ledger.rules import Rule

    rule = Rule("n >= 2 and speedup > 3")
    assert not could_pass(rule, {"n": 0.0, "speedup": np.nan})       # fails on n whatever the speed-up
    assert could_pass(rule, {"n": 3.0, "speedup": np.nan})           # the speed-up decides
    two = {**CLAIM, "id": "two", "rule": "rate < 2 and rate2 > 3", "rule_kind": "threshold"}
    led = make_ledger(two)
    from lrlib.ledger import grading as gr
    r = gr.grade_control(led.decls["two"], {"rate": np.array([5.0, 1.0]), "rate2": np.array([np.nan, np.nan])})
    assert r == ["not reproduced", "inconclusive"]


def test_a_declared_consistency_check_gives_its_reason(make_ledger):
    cons = {k: v for k, v in CLAIM.items() if k not in ("control", "rule_kind")} | {
        "id": "c", "kind": "consistency", "reason": "an empirical ordering with no cheap counterfactual run"}
    led = make_ledger(cons)
    r = led.measure("c", [1.0] * 3)
    assert r.tier() == ("consistency", "declared: an empirical ordering with no cheap counterfactual run")


def test_verdicts_by_variant_grades_the_rule_alone_or_the_whole_declaration():
    from lrlib.ledger import declaration_from_dict

    decl = declaration_from_dict(dict(id="x", kind="consistency", ref="r", statement="s", quantity="q",
                                      rule="a > 1", tolerance="t", expect="reproduced",
                                      premises=[dict(text="p", rule="b > 0")]))
    both = gr.verdicts_by_variant({"x": decl}, ["x"], {"h": {"a": [2, 0, 2]}, "h/2": {"a": [3, 0, 0]}})
    assert both == {"h": {"x": ["reproduced", "not reproduced", "reproduced"]},
                    "h/2": {"x": ["reproduced", "not reproduced", "not reproduced"]}}
    tab = gr.verdicts_by_variant({"x": decl}, ["x"], {"h": {"a": [2.0, 0.0]}, "h/2": {"a": [0.5, 3.0]}}, run=1)
    assert tab == {"h": {"x": "not reproduced"}, "h/2": {"x": "reproduced"}}
    whole = gr.verdicts_by_variant({"x": decl}, ["x"], {"h": {"a": [2.0, 2.0], "b": [1.0, -1.0]}}, premises=True)
    assert whole == {"h": {"x": ["reproduced", "premise not met"]}}
    with pytest.raises(ParameterError):
        gr.verdicts_by_variant({"x": decl}, ["x"], {"h": {"a": [2.0]}}, premises=True)


def test_result_array_reads_stored_values_back_as_floats():
    """The ledger stores undefined values as None and events that did not happen as "inf": array() undoes both."""
    r = gr.Result(decl=None, seeds=[0, 1, 2], values={"t": [1.5, None, "inf"]}, verdicts=[],
                  control_values={"t": ["-inf", 2.0, None]})
    a, c = r.array("t"), r.array("t", control=True)
    assert a.dtype == float and a[0] == 1.5 and np.isnan(a[1]) and a[2] == np.inf
    assert c[0] == -np.inf and c[1] == 2.0 and np.isnan(c[2])
