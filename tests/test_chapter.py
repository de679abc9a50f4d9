"""Tests for lrlib.chapter: the one-call start and finish of a chapter."""

from __future__ import annotations

import json
import textwrap

import pytest
import torch

from lrlib import chapter
from lrlib.ledger import ControlPassed
from lrlib.errors import ParameterError

CLAIMS = textwrap.dedent("""\
    chapter: toy
    claims:
      - {id: a, ref: r, statement: s, quantity: q, rule: v > 0, tolerance: t, expect: reproduced, control: c}
    """)


@pytest.fixture
def toy(tmp_path, monkeypatch):
    (tmp_path / "09_toy.claims.yaml").write_text(CLAIMS)
    (tmp_path / "09_toy.py").write_text("# a chapter\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LRLIB_QUICK", raising=False)
    threads = torch.get_num_threads()
    yield tmp_path
    torch.set_num_threads(threads)


def test_start_opens_the_ledger_and_finish_writes_it(toy):
    ch = chapter.start("toy", 0, False, str(toy / "out" / "ledger.json"))
    assert (ch.quick, ch.n_seeds, ch.strict) == (False, 5, True)
    assert ch.ledger.seeds == [0, 1, 2, 3, 4] and torch.get_num_threads() == 1
    ch.ledger.grade("a", v=torch.ones(5), control=dict(v=-1.0))
    assert ch.rate("a") == "reproduced 5/5"
    ch.finish()
    assert json.loads((toy / "out" / "ledger.json").read_text())["chapter"] == "toy"


def test_quick_and_other_seeds_are_not_strict(toy):
    ch = chapter.start("toy", 3, True, "")
    assert (ch.n_seeds, ch.strict, ch.ledger.seeds) == (2, False, [3, 4])
    ch.ledger.grade("a", v=torch.ones(2), control=dict(v=1.0))   # a passing control: only the strict run fails
    ch.finish()


def test_strict_finish_fails_on_a_passing_control(toy):
    ch = chapter.start("toy", 0, False, "")
    ch.ledger.grade("a", v=torch.ones(5), control=dict(v=1.0))
    with pytest.raises(ControlPassed):
        ch.finish()


@pytest.mark.parametrize("args, msg", [(("toy", -1, False, ""), "seed"), (("toy", 0, "yes", ""), "quick"),
                                       (("toy", 0, False, 3), "ledger_path")])
def test_bad_parameters_are_named(toy, args, msg):
    with pytest.raises(ParameterError, match=msg):
        chapter.start(*args)


def test_rerun_costs_come_from_the_recorded_timings():
    from lrlib.chapter import rerun_costs

    c = rerun_costs("orthogonal")
    assert c["quick"].startswith("about ") and c["full"].startswith("about ")
    assert rerun_costs("no_such_chapter") == {"quick": "not recorded yet", "full": "not recorded yet"}
