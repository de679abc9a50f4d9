"""Tests for lrlib.claims: the ledger, its verdict guard and its outputs."""

from __future__ import annotations

import json
import math

import pytest

from lrlib.claims_legacy import VERDICTS, Ledger, VerdictMismatch, fmt, verdict_of
from lrlib.errors import LrlibError, ParameterError

KEYS = ["id", "ref", "statement", "measured", "tolerance", "verdict", "expected", "value"]


def _ledger(**override) -> Ledger:
    led = Ledger("orthogonal")
    led.add("thm1.min-norm", "Thm. 1", "min-norm limit", measured="excess 1e-4", tolerance="< 1e-2",
            passed=True, expected="reproduced", value=1e-4)
    led.add("orthogonal.lemma2.align", "Lemma 2", "alignment", measured="cos 0.999", tolerance="> 0.99",
            passed=override.get("passed", True), expected="reproduced", value=0.999)
    led.add("fig3.rate", "Fig. 3", "rate", measured="slope 0.5", tolerance="±10%",
            passed="partial", expected="partial")
    return led


def test_add_prefixes_ids_with_chapter():
    led = _ledger()
    assert [c.id for c in led.claims] == ["orthogonal.thm1.min-norm", "orthogonal.lemma2.align", "orthogonal.fig3.rate"]
    assert led.claims[0].value == 1e-4 and isinstance(led.claims[0].value, float)
    assert led.claims[2].value is None


def test_duplicate_ids_rejected():
    led = _ledger()
    with pytest.raises(ParameterError, match="duplicate claim id 'orthogonal.thm1.min-norm'"):
        led.add("orthogonal.thm1.min-norm", "x", "y", measured="", tolerance="", passed=True, expected="reproduced")
    with pytest.raises(ParameterError, match="duplicate"):
        led.add("fig3.rate", "x", "y", measured="", tolerance="", passed=True, expected="reproduced")
    assert len(led.claims) == 3


@pytest.mark.parametrize("passed,verdict", [
    (True, "reproduced"), (False, "not reproduced"), (1, "reproduced"), (0, "not reproduced"),
    ("reproduced", "reproduced"), ("partial", "partial"), ("not reproduced", "not reproduced"),
])
def test_verdict_of(passed, verdict):
    assert verdict_of(passed) == verdict


@pytest.mark.parametrize("bad", ["yes", "Reproduced", "", "failed"])
def test_invalid_verdict_raises(bad):
    with pytest.raises(ParameterError, match="verdict must be one of"):
        verdict_of(bad)
    with pytest.raises(ParameterError):
        Ledger("c").add("a", "r", "s", measured="", tolerance="", passed=True, expected=bad)
    with pytest.raises(ParameterError):
        Ledger("c").add("a", "r", "s", measured="", tolerance="", passed=bad, expected="reproduced")


def test_check_passes_when_all_match():
    led = _ledger()
    assert all(c.ok for c in led.claims)
    led.check()
    led.check(strict=False)


def test_check_raises_listing_mismatches():
    led = _ledger(passed=False)  # lemma2 measured "not reproduced", expected "reproduced"
    with pytest.raises(VerdictMismatch) as err:
        led.check()
    msg = str(err.value)
    assert "orthogonal.lemma2.align" in msg and "not reproduced" in msg
    assert "orthogonal.thm1.min-norm" not in msg and "orthogonal.fig3.rate" not in msg
    assert "1 claim(s)" in msg
    assert isinstance(err.value, LrlibError)


def test_published_not_reproduced_is_ok():
    led = Ledger("c")
    led.add("x", "r", "s", measured="m", tolerance="t", passed=False, expected="not reproduced")
    led.check()
    assert led.summary() == {"reproduced": 0, "partial": 0, "not reproduced": 1}


def test_check_not_strict_prints_but_does_not_raise(capsys):
    led = _ledger(passed=False)
    led.check(strict=False)
    out = capsys.readouterr().out
    assert "orthogonal.lemma2.align" in out and "not enforced" in out


def test_summary():
    assert _ledger(passed=False).summary() == {"reproduced": 1, "partial": 1, "not reproduced": 1}
    assert set(_ledger().summary()) == set(VERDICTS)


def test_save_writes_json(tmp_path):
    led = _ledger()
    led.add("nan.value", "r", "s", measured="m", tolerance="t", passed=True, expected="reproduced",
            value=float("nan"))
    path = led.save(tmp_path / "deep" / "ledger.json")
    assert path.is_file()
    claims = json.loads(path.read_text())
    assert isinstance(claims, list) and len(claims) == 4
    for c in claims:
        assert list(c) == KEYS
    assert claims[0] == {"id": "orthogonal.thm1.min-norm", "ref": "Thm. 1", "statement": "min-norm limit",
                         "measured": "excess 1e-4", "tolerance": "< 1e-2", "verdict": "reproduced",
                         "expected": "reproduced", "value": 1e-4}
    assert claims[3]["value"] is None  # NaN is written as null (strict JSON)


@pytest.mark.parametrize("empty", ["", None])
def test_save_empty_path_writes_nothing(tmp_path, monkeypatch, empty):
    monkeypatch.chdir(tmp_path)
    assert _ledger().save(empty) is None
    assert list(tmp_path.iterdir()) == []


def test_frame_and_table_html():
    led = _ledger(passed=False)
    df = led.frame()
    assert list(df.columns) == KEYS and len(df) == 3
    html = led.table().to_html()
    assert "orthogonal.lemma2.align" in html and "not reproduced" in html
    assert "#f8d7da" in html and "#d9f2d9" in html and "#fff2cc" in html  # verdict colours
    assert "<table" in html and ">value<" not in html and ">verdict<" in html  # the value column is dropped


def test_fmt():
    assert fmt(0.123456) == "0.1235"
    assert fmt(123456.0, 3) == "1.23e+05"
    assert fmt(float("nan")) == "nan" and fmt(None) == "nan"
    assert fmt("text") == "text"
