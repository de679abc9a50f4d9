"""Tests for lrlib.ledger.rules: the rule language of claim declarations."""

from __future__ import annotations

import numpy as np
import pytest

from lrlib.errors import ParameterError
from lrlib.ledger.rules import Rule


def test_element_wise_over_seeds_with_broadcasting():
    r = Rule("4000 <= exit1 <= 6500 and abs(plateau - 0.5) <= 0.01")
    out = r({"exit1": [5000, 7000, 4000], "plateau": 0.505})
    assert out.tolist() == [True, False, True]
    assert r.names == {"exit1", "plateau"}


def test_operators_and_functions():
    v = {"a": np.array([1.0, 100.0]), "b": np.array([2.0, 2.0])}
    assert Rule("log10(a) < 1 or not (b == 2)")(v).tolist() == [True, False]
    assert Rule("a ** 2 / b - 1 > 0")(v).tolist() == [False, True]
    assert Rule("max(a, b) == b")(v).tolist() == [True, False]
    assert Rule("-a < 0 and +b > 0")(v).tolist() == [True, True]


def test_nan_compares_false():
    assert Rule("t < 5")({"t": [np.nan, 1]}).tolist() == [False, True]
    assert Rule("not (t >= 5)")({"t": [np.nan]}).tolist() == [True]
    assert Rule("isnan(t)")({"t": [np.nan, 1]}).tolist() == [True, False]


def test_whitespace_is_normalised():
    assert Rule("a  <\n 1").text == "a < 1"


@pytest.mark.parametrize("text, msg", [
    ("", "non-empty"),
    ("a <", "not an expression"),
    ("__import__('os')", "calls are limited|not allowed"),
    ("a.real > 0", "Attribute is not allowed"),
    ("a[0] > 0", "not allowed"),
    ("'x' == a", "only numbers"),
    ("print(a)", "calls are limited"),
    ("a if b else c", "not allowed"),
])
def test_unsafe_or_malformed_rules_are_rejected(text, msg):
    with pytest.raises(ParameterError, match=msg):
        Rule(text)


def test_missing_measurement_is_named():
    with pytest.raises(ParameterError, match=r"needs measurement\(s\) \['b'\]"):
        Rule("a < b")({"a": 1})
