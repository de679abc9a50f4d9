"""Tests of the chapter's tables and printed rows (lrlib.theory.agf.report)."""

import numpy as np

from lrlib.theory.agf import report


def test_rate_line_and_plateau_windows():
    rates = {"a": "5/5", "b": "2/5"}
    assert report.rate_line(rates.get, ["a", "b"]) == "a: 5/5; b: 2/5"
    assert report.rate_line(rates.get, ["b"], sep="\n") == "b: 2/5"
    lvl, lo, hi = (np.array([[1.0, 2.0], [3.0, 4.0]]) + k for k in (0.0, -0.5, 0.5))
    out = report.plateau_windows((lvl, lo, hi))
    rows = out.split("; ")
    assert len(rows) == 2 and len(rows[0].split(" ")) == 2 and rows[0].split(" ")[0].count("/") == 2


def test_fig3_table_rows_and_missing_gd():
    alphas, etas = [1e-4, 1e-8], np.array([9.2, 18.4])
    err = np.array([[0.1, 0.05], [0.2, 0.1]])
    lvl = np.array([[1e-3, 1e-4], [0, 0]])
    t = report.fig3_table(alphas, etas, err, lvl, {1e-4: (None, None, np.array([0.3, np.nan]))})
    assert list(t["α"]) == ["0.0001", "1e-08"]
    assert t["GD (h = 2e-3): max drop-time error"][0] == 0.3 and np.isnan(t["GD (h = 2e-3): max drop-time error"][1])
    np.testing.assert_allclose(t["flow: error × η_α (seed 0)"], err[0] * etas)
    assert t["flow: error × η_α, seeds 1–"][1] == [round(0.1 * 18.4, 2)]


def test_alignment_and_step_gap_tables():
    t = report.alignment_table([1e-4, 1e-8], np.array([0.5, 0.25]), np.array([0.1, 0.1]), np.array([0.9, 0.8]))
    assert t.shape == (2, 1) and t.iloc[1, 0] == "0.250 / 0.100 / 0.800"
    g = report.step_gap_table({0.05: np.array([[0.1, 0.2], [0.3, 0.4]])}, ["c", "n"])
    assert list(g.columns) == ["c: GD h = 0.05 vs flow", "n: GD h = 0.05 vs flow"]
    np.testing.assert_array_equal(g["n: GD h = 0.05 vs flow"], [0.3, 0.4])


def test_fig4_rows_name_the_numbers():
    errs = np.array([[0.1, 0.2], [0.05, 0.07]])
    note = report.fig4_times_note(np.array([0.1234, 0.2]), 6, errs, np.array([13.8, 27.6]), np.array([1e-6, 1e-12]))
    assert "[0.123, 0.2]" in note and "first 6 drops" in note and f"α = 1e-06 {0.15 * 13.8:.2f}" in note
    line = report.fig4_summary("commuting", 6, errs, errs, errs, np.array([13.8, 27.6]))
    assert line.startswith("commuting: 6 drops") and "1/η_α = 0.072" in line


def test_changes_table_reads_rate_and_tier_per_claim():
    t = report.changes_table(lambda c: "now", lambda c: "tier")
    assert list(t["claim"]) == list(report.BEFORE)
    assert (t["after"] == "now").all() and (t["tier now"] == "tier").all()
    assert t.set_index("claim").loc["fig5.jump-bound", "referee"] == "as before"
    assert t.set_index("claim").loc["fig3.levels", "referee"] == report.REFEREE["fig3.levels"]


def test_width_table_orders_widths_and_marks_the_threshold():
    t = report.width_table({11: (np.array([1e-5, 2e-5]), np.array([1.0, 0.0])),
                            18: (np.array([3e-6, 0.31]), np.array([1.0, 1.0])),
                            15: (np.array([1e-6, 1e-6]), np.array([1.0, 1.0]))}, 5)
    assert list(t.index) == ["H = 18 (> 3p)", "H = 15 (= 3p)", "H = 11 (< 3p)"]
    assert list(t.columns) == ["seed 0", "seed 1"]
    assert t.loc["H = 11 (< 3p)", "seed 1"].endswith("/ 0")


def test_stretched_note_shows_the_named_quantities():
    s = report.stretched_note({"slope": np.array([0.0912, 0.1]), "stab": np.array([3.5, 3.6])}, ["slope"])
    assert s == "clock stretched ×1.25 (shown, not a control): slope [0.09, 0.1]"
