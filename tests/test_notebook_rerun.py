"""Rerun every chapter with another seed, at reduced size, through papermill.

For each ``notebooks/NN_<key>.ipynb`` this executes the notebook the way the README
tells a reader to (papermill, the notebook's folder as working directory) with
``seed=1``, ``quick=True`` and a ``ledger_path`` in a temporary folder, and checks
the claims ledger that the chapter writes there.

A chapter whose ledger raises (a verdict differs from the expected one) fails
here with the notebook's traceback.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import papermill
import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS_DIR = REPO_ROOT / "notebooks"
CHAPTERS = sorted(p for p in NOTEBOOKS_DIR.glob("*.ipynb") if re.match(r"^\d\d_", p.name))

VERDICTS = {"reproduced", "partial", "not reproduced"}
CLAIM_KEYS = {"id", "statement", "measured", "tolerance", "verdict", "expected"}


def test_there_are_chapters():
    assert CHAPTERS, f"no chapter notebooks (NN_<key>.ipynb) in {NOTEBOOKS_DIR}"


@pytest.mark.parametrize("notebook", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_rerun_with_seed_1_quick_writes_valid_ledger(notebook: Path, tmp_path: Path):
    ledger = tmp_path / "ledger.json"
    output = tmp_path / notebook.name
    papermill.execute_notebook(
        str(notebook),
        str(output),
        parameters={"seed": 1, "quick": True, "ledger_path": str(ledger)},
        cwd=str(NOTEBOOKS_DIR),
        kernel_name="python3",
        progress_bar=False,
        execution_timeout=1800,  # per cell, as in the book build
    )

    assert ledger.is_file(), f"{notebook.name} did not write its claims ledger to ledger_path"
    claims = json.loads(ledger.read_text())
    assert isinstance(claims, list) and claims, "the ledger must be a non-empty JSON list of claims"

    key = notebook.stem.split("_", 1)[1]  # 01_orthogonal -> orthogonal
    ids = []
    for i, claim in enumerate(claims):
        assert isinstance(claim, dict), f"claim {i} is not an object: {claim!r}"
        missing = CLAIM_KEYS - claim.keys()
        assert not missing, f"claim {claim.get('id', i)!r} lacks {sorted(missing)}"
        assert isinstance(claim["id"], str) and claim["id"].startswith(f"{key}."), (
            f"claim {i}: id {claim['id']!r} should start with the chapter key, e.g. '{key}.thm1.min-norm'"
        )
        assert claim["verdict"] in VERDICTS, f"{claim['id']}: verdict {claim['verdict']!r} not in {VERDICTS}"
        assert claim["expected"] in VERDICTS, f"{claim['id']}: expected {claim['expected']!r} not in {VERDICTS}"
        ids.append(claim["id"])
    assert len(ids) == len(set(ids)), "claim ids must be unique"


@pytest.mark.parametrize("notebook", CHAPTERS, ids=[p.stem for p in CHAPTERS])
@pytest.mark.parametrize("bad", [{"seed": -1}, {"seed": "one"}, {"quick": "yes"}, {"ledger_path": 3}],
                         ids=["seed-negative", "seed-str", "quick-str", "ledger-int"])
def test_bad_parameter_stops_with_a_clear_message(notebook: Path, tmp_path: Path, bad: dict):
    """A wrong papermill parameter stops the chapter at its parameter check, with a
    message that names the parameter and shows how to pass it."""
    name = next(iter(bad))
    with pytest.raises(papermill.PapermillExecutionError) as err:
        papermill.execute_notebook(str(notebook), str(tmp_path / notebook.name), parameters=bad,
                                   cwd=str(NOTEBOOKS_DIR), kernel_name="python3", progress_bar=False)
    assert err.value.ename == "ParameterError", err.value.ename
    assert f"`{name}`" in err.value.evalue and f"-p {name}" in err.value.evalue, err.value.evalue
