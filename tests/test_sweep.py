"""Seed sweeps (lrlib.sweep) on tiny fake chapters: local processes, a local Dask
cluster, failed runs reported by seed and kept out of the pass rates, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from lrlib import sweep as sw
from lrlib import paths

PARAMS = 'seed = 0            # seed\nquick = False       # reduced size\nledger_path = ""    # ledger JSON'

BODY = '''\
import os
from myst_nb import glue
from lrlib.ledger import Ledger
if seed == FAIL_SEED:
    raise ValueError(f"fake failure for seed {seed}")
ledger = Ledger.declared("KEY", n_seeds=1, base_seed=seed)
ledger.grade("thm1.even", parity=seed % 2, control=dict(parity=1))
ledger.grade("thm2.always", one=1.0)
glue("KEY-threads", os.environ.get("OMP_NUM_THREADS"), display=False)
glue("KEY-quick", quick, display=False)
ledger.finish(ledger_path, strict=not quick)  # at full size an odd seed raises VerdictMismatch
'''

CLAIMS = """\
chapter: KEY
claims:
  - id: thm1.even
    ref: Thm. 1
    statement: The seed is even.
    quantity: parity, the seed modulo 2
    rule: parity == 0
    tolerance: exact
    control: an odd number
    expect: reproduced
  - id: thm2.always
    kind: consistency
    ref: Thm. 2
    statement: Always holds.
    quantity: one
    rule: one == 1
    tolerance: exact
    expect: reproduced
"""


def fake_chapter(folder: Path, stem: str, fail_seed: int = -1) -> Path:
    """A chapter notebook ``folder/<stem>.ipynb`` that ledgers two claims (one passes for
    even seeds only) and raises for ``fail_seed``."""
    key = stem.split("_", 1)[1]
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(PARAMS, metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell(BODY.replace("FAIL_SEED", str(fail_seed)).replace("KEY", key))]
    path = folder / f"{stem}.ipynb"
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    (folder / f"{stem}.claims.yaml").write_text(CLAIMS.replace("KEY", key))
    return path


@pytest.fixture
def chapters(tmp_path: Path) -> dict[str, Path]:
    nbdir = tmp_path / "notebooks"
    fake_chapter(nbdir, "01_fake", fail_seed=2)
    fake_chapter(nbdir, "02_other")
    (nbdir / "notes.ipynb").write_text("{}")  # not a chapter: no NN_ prefix
    return paths.chapters(nbdir)


def test_discover_and_select(chapters):
    assert list(chapters) == ["fake", "other"]
    assert list(sw.select(chapters, ["02_other"])) == ["other"]
    assert list(sw.select(chapters, [])) == ["fake", "other"]
    with pytest.raises(SystemExit, match="no chapter 'race'.*fake, other"):
        sw.select(chapters, ["race"])


def check_fake_aggregate(agg: dict, out: Path, threads: str) -> None:
    runs = {(r["chapter"], r["seed"]): r["ok"] for r in agg["runs"]}
    assert runs == {("fake", 0): True, ("fake", 1): True, ("fake", 2): False}
    # the failed run is reported by seed, with the notebook's own error ...
    [failed] = agg["failed"]
    assert (failed["chapter"], failed["seed"]) == ("fake", 2)
    assert "ValueError: fake failure for seed 2" in failed["error"]
    # ... and counts nowhere else: pass rates are over the two runs that ran
    even, always = agg["claims"]["fake.thm1.even"], agg["claims"]["fake.thm2.always"]
    assert [(r["seed"], r["verdicts"]) for r in even["runs"]] == [(0, ["reproduced"]), (1, ["not reproduced"])]
    assert (even["passes"], even["graded"], even["pass_rate"]) == (1, 2, 0.5)
    assert even["counts"]["reproduced"] == 1 and even["counts"]["not reproduced"] == 1
    assert [r["measured"] for r in even["runs"]] == ["parity 0", "parity 1"]
    assert even["runs"][0]["values"] == {"parity": [0.0]}
    # the declaration travels with the verdicts: kind, rule text, control and its verdict
    assert even["kind"] == "reproduction" and even["rule"] == "parity == 0"
    assert even["runs"][0]["control_measured"] == "parity 1"
    assert even["runs"][0]["control_verdicts"] == ["not reproduced"]
    assert (always["kind"], always["pass_rate"], always["statement"]) == ("consistency", 1.0, "Always holds.")
    assert agg["chapters"]["fake"]["seeds"] == [0, 1] and len(agg["chapters"]["fake"]["code_hash"]) == 16
    # the glued numbers of each run, and the kernel environment the sweep set
    assert agg["glued"]["fake"]["0"] == {"fake-threads": f"'{threads}'", "fake-quick": "True"}
    prov = agg["provenance"]
    assert prov["seeds"] == [0, 1, 2] and prov["quick"] is True and prov["mode"] == "quick"
    assert prov["python"] and prov["date_utc"].endswith("Z") and prov["wall_seconds"] > 0
    # the files: executed notebooks, ledgers of the runs that ran, the aggregate
    assert (out / "fake" / "seed0.ipynb").is_file() and (out / "fake" / "seed1.json").is_file()
    assert not (out / "fake" / "seed2.json").exists()
    assert json.loads((out / "sweep-quick.json").read_text())["claims"].keys() == agg["claims"].keys()


def test_local_processes_report_failed_seed(chapters, tmp_path):
    out = tmp_path / "sweep"
    agg = sw.sweep({"fake": chapters["fake"]}, [2, 0, 1], out, quick=True, workers=2, log=lambda *_: None)
    check_fake_aggregate(agg, out, threads=str(max(1, (__import__("os").cpu_count() or 1) // 2)))


def test_dask_local_cluster(chapters, tmp_path):
    distributed = pytest.importorskip("distributed")
    out = tmp_path / "sweep"
    # a worker in its own process, reached over TCP by address, as `--scheduler tcp://host:port` does
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=True,
                                  dashboard_address=None) as cluster:
        agg = sw.sweep({"fake": chapters["fake"]}, [0, 2], out, quick=True,
                       scheduler=cluster.scheduler_address, log=lambda *_: None)
    assert {(r["seed"], r["ok"]) for r in agg["runs"]} == {(0, True), (2, False)}, agg["failed"]
    assert "ValueError: fake failure for seed 2" in agg["failed"][0]["error"]
    assert [r["seed"] for r in agg["claims"]["fake.thm1.even"]["runs"]] == [0]  # seed 2 counts nowhere
    assert agg["glued"]["fake"]["0"]["fake-threads"] == "'1'"  # one thread per kernel on a cluster
    assert (out / "fake" / "seed0.json").is_file() and (out / "sweep-quick.json").is_file()
    assert agg["provenance"]["runner"] == f"dask scheduler {cluster.scheduler_address}"


def test_cli_exit_status_and_publish(chapters, tmp_path, monkeypatch, capsys):
    nbdir = chapters["other"].parent
    out = tmp_path / "cli"
    monkeypatch.setattr(sw, "PUBLISH_DIR", tmp_path / "book" / "ledger_data")
    rc = sw.main(["--notebooks", str(nbdir), "--chapters", "other", "--seeds", "3",
                  "--workers", "1", "--out", str(out), "--publish"])
    assert rc == 0
    published = json.loads((tmp_path / "book" / "ledger_data" / "sweep-full.json").read_text())
    assert published["provenance"]["mode"] == "full" and published["failed"] == []
    # seed 3 is odd: the chapter raised VerdictMismatch after saving its ledger, which is the
    # seed's result (counted in the pass rate), not a failed run
    assert published["claims"]["other.thm1.even"]["runs"][0]["verdicts"] == ["not reproduced"]
    assert published["claims"]["other.thm1.even"]["pass_rate"] == 0.0
    assert "VerdictMismatch" in published["runs"][0]["note"]
    assert "1/1 run(s) ok" in capsys.readouterr().out
    # a failed run: the aggregate is written all the same, and the exit status says so
    rc = sw.main(["--notebooks", str(nbdir), "--chapters", "fake", "--seeds", "2", "--workers", "1",
                  "--out", str(out)])
    assert rc == 1
    assert "failed: fake seed 2" in capsys.readouterr().out
    assert json.loads((out / "sweep-full.json").read_text())["failed"][0]["seed"] == 2


def test_aggregate_excludes_failed_runs_and_counts_every_seed():
    prov = {"chapters": ["a"]}
    claim = {"id": "x", "kind": "reproduction", "ref": "r", "statement": "s", "rule": "v > 0",
             "tolerance": "t", "expect": "0-1", "control": "c", "control_measured": "v -1",
             "control_verdicts": ["not reproduced"]}
    recs = [
        {"chapter": "a", "seed": 0, "ok": True, "seconds": 1, "host": "h", "error": None, "glued": {},
         "code_hash": "h0", "claims": [dict(claim, verdicts=["partial", "premise not met"], seeds_run=[0, 1])]},
        {"chapter": "a", "seed": 1, "ok": False, "seconds": 1, "host": "h", "error": "boom", "glued": {},
         "claims": []},
        {"chapter": "a", "seed": 2, "ok": True, "seconds": 1, "host": "h", "error": None, "glued": {},
         "code_hash": "h0", "claims": [dict(claim, verdicts=["reproduced", "inconclusive"], seeds_run=[2, 3])]},
    ]
    agg = sw.aggregate(recs, prov)
    e = agg["claims"]["a.x"]
    assert len(e["runs"]) == 2 and (e["passes"], e["graded"], e["pass_rate"]) == (1, 2, 0.5)
    assert e["counts"] == {"reproduced": 1, "partial": 1, "not reproduced": 0, "inconclusive": 1,
                           "premise not met": 1}
    assert agg["failed"] == [{"chapter": "a", "seed": 1, "error": "boom"}]
    assert agg["chapters"]["a"]["code_hash"] == "h0" and agg["chapters"]["a"]["seeds"] == [0, 2]


def test_bad_arguments():
    with pytest.raises(SystemExit):
        sw.main(["--workers", "0"])
    with pytest.raises(SystemExit, match="seeds"):
        sw.sweep({"x": Path("x.ipynb")}, [-1], "out")




def test_provenance_is_the_code_state_when_the_runs_start(chapters, tmp_path, monkeypatch):
    """A commit made while a sweep runs must not be recorded as the code that ran."""
    state = {"head": "a" * 40}
    monkeypatch.setattr(sw, "_git", lambda *args: state["head"] if args[0] == "rev-parse" else "")

    def fake_run_local(tasks, workers, on_done=None):
        state["head"] = "b" * 40          # someone commits during the runs
        return [{"chapter": t["chapter"], "seed": t["seed"], "ok": True, "seconds": 1.0, "host": "h",
                 "error": None, "glued": {}, "claims": []} for t in tasks]

    monkeypatch.setattr(sw, "run_local", fake_run_local)
    agg = sw.sweep({"fake": chapters["fake"]}, [0], tmp_path / "s", quick=True, workers=1, log=lambda *_: None)
    assert agg["provenance"]["git_commit"] == "a" * 40 and agg["provenance"]["git_dirty"] is False


def test_kernels_of_a_sweep_do_not_require_a_fresh_sweep():
    assert sw.kernel_env(1)["LRLIB_SWEEP"] == "1"


def test_merge_keeps_the_chapters_the_new_sweep_did_not_run():
    def agg(chapters, commit):
        recs = [{"chapter": c, "seed": 0, "ok": True, "seconds": 1, "host": "h", "error": None, "glued": {},
                 "code_hash": commit, "claims": [{"id": "x", "verdicts": ["reproduced"]}]} for c in chapters]
        prov = sw.provenance(chapters=chapters, seeds=[0], quick=False, workers=1, scheduler=None, wall_seconds=1)
        prov["git_commit"] = commit
        return sw.aggregate(recs, prov)
    old, new = agg(["a", "b"], "old"), agg(["b"], "new")
    m = sw.merge(old, new)
    assert m["provenance"]["chapters"] == ["a", "b"] and set(m["claims"]) == {"a.x", "b.x"}
    assert m["chapters"]["a"]["commit"] == "old" and m["chapters"]["b"]["commit"] == "new"
    assert [r["chapter"] for r in m["runs"]] == ["a", "b"]
    assert m["provenance"]["merged_from"][0]["chapters"] == ["a"]
    quick = agg(["a"], "q")
    quick["provenance"]["mode"] = "quick"
    with pytest.raises(SystemExit, match="cannot merge"):
        sw.merge(old, quick)


def test_glued_numbers_lists_images_and_seed_switchers_as_figures():
    """A seed switcher is glued as HTML holding images: it counts as a figure, a glued number stays text."""
    pre = "application/papermill.record/"
    nb = {"cells": [{"outputs": [
        {"metadata": {"scrapbook": {"name": "k-fig1", "mime_prefix": pre}}, "data": {pre + "image/png": "x"}},
        {"metadata": {"scrapbook": {"name": "k-fig2", "mime_prefix": pre}},
         "data": {pre + "text/html": ['<div class="lr-seeds"><img src="data:image/png;base64,AA"></div>'],
                  pre + "text/plain": "<IPython.core.display.HTML object>"}},
        {"metadata": {"scrapbook": {"name": "k-n", "mime_prefix": pre}}, "data": {pre + "text/plain": "'3/5'"}},
        {"metadata": {}, "data": {"text/plain": "not glued"}}]}]}
    assert sw.glued_numbers(nb) == {"k-fig1": "<figure>", "k-fig2": "<figure>", "k-n": "'3/5'"}
