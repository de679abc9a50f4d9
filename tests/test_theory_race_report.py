"""Tests for lrlib.theory.race.report: the printed forms of per-seed values."""

from __future__ import annotations

import numpy as np
import torch

from lrlib.theory import race as rc


def test_rl_rounds_and_flattens():
    assert rc.rl(torch.tensor([[0.123456, 2.0]]), 3) == [0.123, 2.0]
    assert rc.rl(np.float64(1.5)) == [1.5]


def test_pct_signs_and_percent():
    assert rc.pct([0.0123, -0.5]) == ["+1.23%", "-50.00%"]
    assert rc.pct([0.0123], 1) == ["+1.2%"]


def test_sci_and_ints():
    assert rc.sci([0.00123, 2.0]) == ["1.2e-03", "2.0e+00"]
    assert rc.ints(np.array([True, False, True])) == [1, 0, 1]
    assert rc.ints(torch.tensor([[3.0, 4.0]])) == [3, 4]


def test_kv_names_each_entry():
    assert rc.kv(2, share=[0.123, 0.5], n=[1]) == "share [0.12, 0.5]; n [1.0]"


def test_halving_steps_lists_by_norm():
    v = {"t1": [10, 11], "t2": [20, 21], "t3": [30, 31], "t4": [40, 41]}
    assert rc.halving_steps(v, 1) == [41, 31, 21, 11]
    assert rc.halving_steps(v, 0, norms=(1, 2)) == [10, 20]


class _Decl:
    expect = "0.8-1"


class _Result:
    decl = _Decl()
    control_status = "failed"

    def tier(self):
        return "quantitative", "control fails"


def test_change_table_columns_and_after_tier():
    res = {"a": _Result()}
    t = rc.change_table(res, {"a": "2/5"}, lambda i: "3/5")
    assert list(t.columns) == ["before", "after", "control", "tier", "why"]
    assert t.loc["a", "after"] == "3/5" and t.loc["a", "control"] == "failed"
    t2 = rc.change_table(res, {"a": "2/5"}, lambda i: "3/5", columns=("after_tier", "expected"))
    assert t2.loc["a", "after"] == "3/5 (quantitative)" and t2.loc["a", "expected"] == "0.8-1"
