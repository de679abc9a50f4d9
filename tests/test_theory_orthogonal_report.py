"""Tests for lrlib.theory.orthogonal.report: the chapter's tables and printed rows."""

from __future__ import annotations

import types

import numpy as np
import torch

from lrlib.theory import orthogonal as th

from orthogonal_helpers import sweep_run

F64 = torch.float64


def test_seed_index_rounded_and_iteration_numbers():
    assert th.seed_index(2, ["control"]) == ["seed 0", "seed 1", "control"]
    assert th.rounded({"a": np.array([0.12345, 2.0]), "b": 1.23456}, 2) == {"a": [0.12, 2.0], "b": 1.23}
    assert th.iteration_numbers(np.array([0, 1250, 20000]), [1, 2]) == ["1,250", "20,000"]
    assert th.iteration_numbers(np.array([0, 10]), [1], scale=100.0) == ["1,000"]


def test_per_run_frame_and_lambda_frame_are_seed_major():
    lams = np.array([1e-2, 1e-4, 1e-6])
    v = np.arange(6.0).reshape(2, 3)
    df = th.per_run_frame(lams, {"v": v, "t": torch.tensor(v)})
    assert list(df["seed"]) == [0, 0, 0, 1, 1, 1] and list(df["lambda"])[:3] == list(lams)
    assert df["v"].iloc[4] == v[1, 1] and df["t"].iloc[5] == v[1, 2]
    lf = th.lambda_frame(v / 3, lams, decimals=2)
    assert list(lf.columns) == ["λ=1e-02", "λ=1e-04", "λ=1e-06"] and lf.iloc[1, 0] == 1.0
    assert list(lf.index) == ["seed 0", "seed 1"]


def test_control_table_and_stacked_measures():
    df = th.control_table({"x": np.array([1.0, 2.0])}, {"x": np.array([9.0])}, {"X": "x"},
                          {"ref": np.array([5.0, 6.0])})
    assert list(df.columns) == ["ref", "X"] and list(df.index)[-1] == "control (seed 0)"
    assert df.loc["control (seed 0)", "X"] == 9.0 and np.isnan(df.loc["control (seed 0)", "ref"])
    st = th.stacked_measures({"η=1": {"a": np.array([1, 2])}, "η=2": {"a": np.array([3, 4])}}, ["a"])
    assert list(st.index) == ["seed 0, η=1", "seed 1, η=1", "seed 0, η=2", "seed 1, η=2"]
    assert list(st["a"]) == [1, 2, 3, 4]


def test_share_where_per_seed_with_nan_for_no_selection():
    flags = np.array([[True, False, True], [True, True, False]])
    sel = np.array([[True, True, False], [False, False, False]])
    out = th.share_where(flags, sel)
    assert out[0] == 0.5 and np.isnan(out[1])


def _fake_ledger():
    control = types.SimpleNamespace(run="ctrl")
    decls = {"a": types.SimpleNamespace(id="a", kind="theorem", control=control, legacy=False),
             "b": types.SimpleNamespace(id="b", kind="reproduction", control=None, legacy=True)}
    res = {k: types.SimpleNamespace(decl=d, tier=lambda k=k: ("quantitative" if k == "a" else "legacy", ""),
                                    coarse_verdicts=["reproduced"] if k == "a" else ["not reproduced"])
           for k, d in decls.items()}
    return types.SimpleNamespace(decls=decls, results=res)


def test_claims_tables_read_the_ledger():
    led = _fake_ledger()
    rate = {"a": "5/5", "b": "1/5"}.get
    t = th.claims_table(led, rate, {"a": "0/5", "b": "2/5"}, "before")
    assert t.loc["a", "control run now"] == "ctrl" and t.loc["b", "control run now"] == "—"
    assert t.loc["b", "now"] == "1/5" and t.loc["a", "tier now"] == "quantitative"
    m = th.migrated_table(led, rate, {}, "same")
    assert list(m.index) == ["a"] and m.loc["a", "before (published sweep)"] == "same"
    assert th.coarse_outcomes(led) == (["a"], ["b"])


def test_admissible_table_has_one_column_per_lambda(testbed):
    X, y = testbed
    lams = torch.tensor([1e-20, 1e-30], dtype=F64)
    run = th.claims.Sweep(sweep_run(X, y, lams, steps=400, dt=5e-2), X, y, lams)
    df = th.admissible_table(run, lams.tolist())
    assert list(df.columns) == ["λ=1e-20", "λ=1e-30"] and "n_active" in df.index
    assert all(isinstance(v, str) for v in df.to_numpy().ravel())
