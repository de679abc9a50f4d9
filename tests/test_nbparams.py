"""Tests for lrlib.nbparams: papermill parameter validation and its messages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lrlib.errors import ParameterError
from lrlib.nbparams import check_bool, check_common, check_int, check_path


@pytest.mark.parametrize("seed", [0, 1, 2**31 - 1])
@pytest.mark.parametrize("quick", [True, False])
def test_check_common_accepts_good_values(tmp_path, seed, quick):
    check_common(seed, quick, str(tmp_path / "ledger.json"))
    check_common(seed, quick, "")


def test_check_path_creates_the_folder(tmp_path):
    target = tmp_path / "a" / "b" / "ledger.json"
    assert check_path("ledger_path", target) == str(target)
    assert target.parent.is_dir() and not target.exists()


def test_empty_path_creates_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert check_path("ledger_path", "") == ""
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name,args", [
    ("seed", ("1", True, "")),
    ("seed", (-1, True, "")),
    ("seed", (True, True, "")),
    ("seed", (1.0, True, "")),
    ("seed", (2**31, True, "")),
    ("quick", (0, "yes", "")),
    ("quick", (0, 1, "")),
    ("ledger_path", (0, True, 3)),
    ("ledger_path", (0, True, None)),
], ids=["seed-str", "seed-negative", "seed-bool", "seed-float", "seed-too-big", "quick-str", "quick-int",
        "ledger-int", "ledger-None"])
def test_check_common_rejects(name, args):
    with pytest.raises(ParameterError) as err:
        check_common(*args)
    msg = str(err.value)
    assert f"`{name}`" in msg, msg
    assert re.search(rf"`-p {name} \S+`", msg), msg
    got = args[("seed", "quick", "ledger_path").index(name)]
    assert repr(got) in msg and type(got).__name__ in msg


def test_check_int_range_and_messages():
    assert check_int("n", 5, low=1, high=10) == 5
    with pytest.raises(ParameterError, match=r"in \[1, 10\].*`-p n 1`"):
        check_int("n", 11, low=1, high=10)
    with pytest.raises(ParameterError, match="≥ 2"):
        check_int("n", 1, low=2)


def test_check_bool():
    assert check_bool("quick", False) is False
    with pytest.raises(ParameterError, match="True or False"):
        check_bool("quick", "False")


def test_check_path_accepts_pathlib(tmp_path):
    assert check_path("p", Path(tmp_path) / "x.json") == str(tmp_path / "x.json")


@pytest.mark.parametrize("env,quick,expected", [("", False, False), ("", True, True), ("0", False, False),
                                                 ("1", False, True), ("1", True, True)])
def test_lrlib_quick_environment_forces_reduced_size(monkeypatch, env, quick, expected):
    monkeypatch.setenv("LRLIB_QUICK", env)
    assert check_common(0, quick, "") is expected


def test_lrlib_quick_environment_rejects_other_values(monkeypatch):
    monkeypatch.setenv("LRLIB_QUICK", "yes")
    with pytest.raises(ParameterError, match="LRLIB_QUICK must be 0 or 1"):
        check_common(0, False, "")


def test_check_int_accepts_what_checks_integer_accepts():
    """One notion of a whole number (lrlib.checks.integer): numpy integers pass, bools and floats do not."""
    import numpy as np

    from lrlib.checks import integer
    for v in (3, np.int64(3), np.int32(3)):
        assert check_int("n", v) == integer("n", v) == 3 and type(check_int("n", v)) is int
    for v in (True, 3.0, "3"):
        with pytest.raises(ParameterError):
            check_int("n", v)
        with pytest.raises(ParameterError):
            integer("n", v)
