"""Rerun every chapter with another seed, at reduced size: the seed sweep on real chapters.

All ``notebooks/NN_<key>.ipynb`` run with ``seed=1``, ``quick=True`` through
:func:`lrlib.sweep.sweep` on a local Dask cluster (two worker processes, one thread
each, reached over TCP as ``--scheduler tcp://host:port`` does): each run is papermill
executing the notebook the way the README tells a reader to (the notebook's folder as
working directory, the parameters injected).  Then every chapter's record and the claims
ledger it wrote are checked (every declared claim graded, reproductions with their
controls), and the aggregate the ledger page reads.

A chapter that raises (an error, or a verdict check) fails here with the notebook's
traceback.  Bad papermill parameters stop a chapter with a clear message.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import papermill
import pytest

from lrlib import ledger_page as lp
from lrlib import sweep as sw
from lrlib.ledger import load_declarations
from lrlib.ledger.verdicts import VERDICTS
from lrlib.paths import NOTEBOOKS_DIR, REPO_ROOT, chapters

# minutes of CPU: `make test` runs them as their own step, after the unit tests (pytest -m slow)
pytestmark = pytest.mark.slow

CHAPTERS = list(chapters().values())

CLAIM_KEYS = {"id", "kind", "statement", "quantity", "rule", "tolerance", "expect", "control", "premises",
              "verdicts", "measured", "control_verdicts", "control_measured", "passes", "graded",
              "margins", "control_margins", "tier", "tier_reason", "expect_basis", "history", "rule_kind", "measure"}
SEED = 1


def test_there_are_chapters():
    assert CHAPTERS, f"no chapter notebooks (NN_<key>.ipynb) in {NOTEBOOKS_DIR}"


@pytest.fixture(scope="module")
def sweep_seed1(tmp_path_factory) -> tuple[dict, Path]:
    """One reduced-size sweep, seed 1, of every chapter on a local Dask cluster."""
    distributed = pytest.importorskip("distributed")
    out = tmp_path_factory.mktemp("sweep")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        agg = sw.sweep(chapters(NOTEBOOKS_DIR), [SEED], out, quick=True,
                       scheduler=cluster.scheduler_address, timeout=1800, log=print)
    return agg, out


@pytest.mark.parametrize("notebook", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_rerun_with_seed_1_quick_writes_valid_ledger(notebook: Path, sweep_seed1):
    agg, out = sweep_seed1
    key = notebook.stem.split("_", 1)[1]  # 01_orthogonal -> orthogonal
    rec = next(r for r in agg["runs"] if r["chapter"] == key)
    assert rec["ok"], f"{notebook.name} with seed {SEED} (quick) failed:\n{next(f['error'] for f in agg['failed'] if f['chapter'] == key)}"
    ledger = out / key / f"seed{SEED}.json"
    assert ledger.is_file(), f"{notebook.name} did not write its claims ledger to ledger_path"
    doc = json.loads(ledger.read_text())
    assert doc["schema"] == 2 and doc["chapter"] == key and doc["seeds"][0] == SEED
    claims = doc["claims"]
    declared = [d.id for d in load_declarations(notebook.with_name(notebook.stem + ".claims.yaml"))]
    # every declared claim is graded exactly once (in the order the chapter measures them)
    ids = [c["id"] for c in claims]
    assert len(ids) == len(set(ids)) and sorted(ids) == sorted(declared)
    for claim in claims:
        missing = CLAIM_KEYS - claim.keys()
        assert not missing, f"claim {claim['id']!r} lacks {sorted(missing)}"
        assert claim["verdicts"] and set(claim["verdicts"]) <= set(VERDICTS), claim["verdicts"]
        assert len(claim["margins"]) == len(claim["verdicts"]) and claim["expect_basis"] in ("predicted", "observed")
        if claim["kind"] == "reproduction":   # a reproduction is graded with its control
            assert claim["control_verdicts"] and set(claim["control_verdicts"]) <= set(VERDICTS)
    # the aggregate holds this run's verdicts of every claim
    for c in claims:
        entry = agg["claims"][f"{key}.{c['id']}"]
        assert [r["verdicts"] for r in entry["runs"]] == [c["verdicts"]]
        assert entry["rule"] == c["rule"] and entry["kind"] == c["kind"]
    # and the chapter's figures were glued under its key (the sweep collects their names)
    glued = agg["glued"][key][str(SEED)]
    assert any(v == "<figure>" for k, v in glued.items() if k.startswith(f"{key}-")), glued.keys()


def test_sweep_aggregate_is_readable_by_the_ledger_page(sweep_seed1):
    agg, out = sweep_seed1
    assert agg["provenance"]["quick"] is True and agg["provenance"]["seeds"] == [SEED]
    assert agg["provenance"]["runner"].startswith("dask scheduler tcp://")
    rows = lp.ledger_rows(chapters(NOTEBOOKS_DIR), [agg])
    assert rows and all(r["sweeps"]["quick"] is not None for r in rows)
    html = lp.ledger_html(rows, [agg])
    assert html.count("<tr data-chapter") == len(rows)
    assert json.loads((out / "sweep-quick.json").read_text())["claims"].keys() == agg["claims"].keys()


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
