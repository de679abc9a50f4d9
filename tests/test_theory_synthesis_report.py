"""Tests for lrlib.theory.synthesis.report: the texts the chapter glues, on hand-made tables and stand-in
ledger results."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd

from lrlib.theory import synthesis as sy

R = sy.report


def _result(verdicts, kind="reproduction", **kw):
    """A stand-in for one claim's ledger result."""
    return SimpleNamespace(verdicts=verdicts, rate_verdicts=verdicts, decl=SimpleNamespace(kind=kind),
                           tier=lambda: ("quantitative", ""), **kw)


def test_span_ignores_nan_and_reads_text_as_float():
    assert R.span([0.5, np.nan, 0.25]) == "0.25 to 0.50"
    assert R.span(["inf", "1.5"], ".1f") == "1.5 to inf"
    assert R.span(np.array([[3.0], [1.0]]), ".0f") == "1 to 3"


def test_rate_note_counts_partial_only_when_verdicts_differ():
    from lrlib.ledger.verdicts import headline

    assert R.rate_note("5 of 5", ["reproduced"] * 5) == "5 of 5"
    assert R.rate_note("0 of 0", ["premise not met"] * 2) == "0 of 0"
    v = ["reproduced", "partial", "premise not met", "premise not met"]
    # the headline already counts the seeds left out; the note adds the partial ones only
    assert R.rate_note(headline(v), v) == "1/2 (+2 premise not met) (partial in 1 of 4)"


def test_control_floats_and_seed_labels():
    out = R.control_floats(SimpleNamespace(control_values={"slope": [1, "inf"]}))
    assert out["slope"].dtype == float and np.isinf(out["slope"][1])
    assert R.seed_labels(3, 2) == ["seed 3", "seed 4"]


def test_figure_notes_one_per_seed_with_that_seeds_numbers():
    jumps = pd.DataFrame(dict(lam=[1e-30] * 4 + [1e-3] * 2, seed=[0, 0, 1, 1, 0, 1],
                              err_agf=[0.01, 0.02, 0.03, 0.001, 0.9, 0.9], err_leading=[0.1] * 6))
    notes = R.orthogonal_notes(jumps, 1e-30, 5)
    assert len(notes) == 2 and notes[1].startswith("seed 6: at λ = 1e-30") and "0.0300" in notes[1]
    lens = pd.DataFrame(dict(seed=[5, 5, 6], when=["init", "end of plateau", "end of plateau"],
                             in_cone=[0.0, 0.25, 0.75], cos_winners=[0.0, 0.5, 0.9]))
    notes = R.race_notes(np.array([0.1, -0.2]), lens, 5)
    assert "μ on (x, 1) = -0.200" in notes[1] and "0.75 of the neurons" in notes[1] and "cosine 0.90" in notes[1]
    table = pd.DataFrame(dict(seed=[0, 0, 1], agf=[3.0, 5.0, 4.0], gd=[1.0, 4.5, 4.0]))
    notes = R.xor_notes(table, [1.0, 0.0], 0)
    assert notes[0].endswith("0.5 to 2.0; cluster order as GD's: yes") and notes[1].endswith("no")


def test_coarse_counts_and_levels_text():
    res = {"a.times": SimpleNamespace(coarse_verdicts=["reproduced", "not reproduced"]),
           "a.levels": SimpleNamespace(coarse_verdicts=["reproduced", "reproduced"])}
    assert R.coarse_counts(res, ["a.times", "a.levels"], 2) == "times 1 of 2, levels 2 of 2"
    text = R.levels_dev_text({"dev": [0.1, 0.2], "dev_mid": [0.01, 0.03]})
    assert text == "0.1000 to 0.2000, at the midpoints alone 0.0100 to 0.0300"
