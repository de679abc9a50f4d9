"""Seed sweeps (lrlib.sweep) on tiny fake chapters: local processes, a local Dask
cluster, failed runs reported by seed and kept out of the pass rates, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from lrlib import sweep as sw

PARAMS = 'seed = 0            # seed\nquick = False       # reduced size\nledger_path = ""    # ledger JSON'

BODY = '''\
import os
from myst_nb import glue
from lrlib.claims import Ledger
if seed == FAIL_SEED:
    raise ValueError(f"fake failure for seed {seed}")
ledger = Ledger("KEY")
ledger.add("thm1.even", "Thm. 1", "The seed is even.", measured=f"seed {seed}",
           tolerance="seed % 2 == 0", passed=seed % 2 == 0, expected="reproduced", value=seed)
ledger.add("thm2.always", "Thm. 2", "Always holds.", measured="yes", tolerance="-",
           passed=True, expected="reproduced")
ledger.save(ledger_path)
glue("KEY-threads", os.environ.get("OMP_NUM_THREADS"), display=False)
glue("KEY-quick", quick, display=False)
ledger.check(strict=not quick)  # as a chapter ends: at full size an odd seed raises VerdictMismatch
'''


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
    return path


@pytest.fixture
def chapters(tmp_path: Path) -> dict[str, Path]:
    nbdir = tmp_path / "notebooks"
    fake_chapter(nbdir, "01_fake", fail_seed=2)
    fake_chapter(nbdir, "02_other")
    (nbdir / "notes.ipynb").write_text("{}")  # not a chapter: no NN_ prefix
    return sw.discover(nbdir)


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
    assert even["verdicts"] == {"0": "reproduced", "1": "not reproduced"}
    assert (even["runs"], even["pass_rate"]) == (2, 0.5)
    assert even["counts"] == {"reproduced": 1, "partial": 0, "not reproduced": 1}
    assert even["measured"] == {"0": "seed 0", "1": "seed 1"} and even["values"] == {"0": 0.0, "1": 1.0}
    assert (always["runs"], always["pass_rate"], always["statement"]) == (2, 1.0, "Always holds.")
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
    assert {(r["seed"], r["ok"]) for r in agg["runs"]} == {(0, True), (2, False)}
    assert "ValueError: fake failure for seed 2" in agg["failed"][0]["error"]
    assert agg["claims"]["fake.thm1.even"]["verdicts"] == {"0": "reproduced"}  # seed 2 counts nowhere
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
    assert published["claims"]["other.thm1.even"]["verdicts"] == {"3": "not reproduced"}
    assert published["claims"]["other.thm1.even"]["pass_rate"] == 0.0
    assert "VerdictMismatch" in published["runs"][0]["note"]
    assert "1/1 run(s) ok" in capsys.readouterr().out
    # a failed run: the aggregate is written all the same, and the exit status says so
    rc = sw.main(["--notebooks", str(nbdir), "--chapters", "fake", "--seeds", "2", "--workers", "1",
                  "--out", str(out)])
    assert rc == 1
    assert "failed: fake seed 2" in capsys.readouterr().out
    assert json.loads((out / "sweep-full.json").read_text())["failed"][0]["seed"] == 2


def test_aggregate_excludes_failed_runs_and_missing_claims():
    prov = {"chapters": ["a"]}
    claim = {"id": "a.x", "ref": "r", "statement": "s", "tolerance": "t", "expected": "partial"}
    recs = [
        {"chapter": "a", "seed": 0, "ok": True, "seconds": 1, "host": "h", "error": None, "glued": {},
         "claims": [dict(claim, verdict="partial", measured="m0", value=None)]},
        {"chapter": "a", "seed": 1, "ok": False, "seconds": 1, "host": "h", "error": "boom", "glued": {},
         "claims": []},
        {"chapter": "a", "seed": 2, "ok": True, "seconds": 1, "host": "h", "error": None, "glued": {},
         "claims": [dict(claim, verdict="reproduced", measured="m2", value=0.5)]},
    ]
    agg = sw.aggregate(recs, prov)
    e = agg["claims"]["a.x"]
    assert e["runs"] == 2 and e["pass_rate"] == 0.5 and e["counts"]["partial"] == 1
    assert agg["failed"] == [{"chapter": "a", "seed": 1, "error": "boom"}]


def test_bad_arguments():
    with pytest.raises(SystemExit):
        sw.main(["--workers", "0"])
    with pytest.raises(SystemExit, match="seeds"):
        sw.sweep({"x": Path("x.ipynb")}, [-1], "out")


# ---- the ledger page (book/ledger.md) --------------------------------------------

def test_chapter_claims_reads_ids_from_source(tmp_path):
    nb = fake_chapter(tmp_path, "03_race")
    nb.with_suffix(".py").write_text(
        'ledger.add("thm1.a", "Thm 1", "x", measured="m", tolerance="t", passed=True, expected="reproduced")\n'
        "ledger.add('race.fig2.b', 'Fig 2', 'y', measured='m', tolerance='t', passed=True, expected='partial')\n"
        'ledger.add(f"thm{k}.c", "Thm", "z", measured="m", tolerance="t", passed=True, expected="partial")\n')
    claims, dynamic = sw.chapter_claims(nb)
    assert list(claims) == ["race.thm1.a", "race.fig2.b"] and dynamic == 1
    assert claims["race.fig2.b"] == {"ref": "Fig 2", "statement": "y", "tolerance": "t", "expected": "partial"}
    nb.with_suffix(".py").write_text("%matplotlib inline\n" + nb.with_suffix(".py").read_text())
    claims, dynamic = sw.chapter_claims(nb)  # not Python: ids by pattern only
    assert list(claims) == ["race.thm1.a", "race.fig2.b"] and dynamic == 1
    assert claims["race.thm1.a"]["statement"] is None
    nb.with_suffix(".py").unlink()  # without the .py half: the .ipynb code cells
    claims, _ = sw.chapter_claims(nb)
    assert list(claims) == ["race.thm1.even", "race.thm2.always"]
    assert claims["race.thm1.even"]["statement"] == "The seed is even."


def test_every_chapter_declares_claims():
    """The ledger page lists claims from the chapters' sources: each chapter must have some."""
    chapters = sw.discover()
    assert chapters
    for key, nb in chapters.items():
        claims, _ = sw.chapter_claims(nb)
        assert claims and all(i.startswith(key + ".") for i in claims), key
        assert all(c["expected"] in (None, *sw.VERDICTS) for c in claims.values()), key


def test_ledger_rows_keep_claims_not_in_the_sweep(chapters, tmp_path):
    claim = {"ref": "Thm. 1", "statement": "The seed is even.", "tolerance": "t", "expected": "reproduced"}
    recs = [{"chapter": "fake", "seed": s, "ok": True, "seconds": 1, "host": "h", "error": None, "glued": {},
             "claims": [dict(claim, id="fake.thm1.even", verdict=v, measured=f"seed {s}", value=s),
                        dict(claim, id="fake.thm2.always", verdict="reproduced", measured="yes", value=None)]}
            for s, v in [(0, "reproduced"), (1, "not reproduced")]]
    prov = sw.provenance(chapters=["fake"], seeds=[0, 1], quick=True, workers=2, scheduler=None, wall_seconds=9)
    (tmp_path / "sweep-quick.json").write_text(json.dumps(sw.aggregate(recs, prov)))
    sw.publish(tmp_path / "sweep-quick.json", tmp_path / "pub")
    aggs = sw.load_published(tmp_path / "pub")
    rows = sw.ledger_rows(chapters, aggs)
    by_id = {r["id"]: r for r in rows}
    assert list(by_id) == ["fake.thm1.even", "fake.thm2.always", "other.thm1.even", "other.thm2.always"]
    assert by_id["fake.thm1.even"]["sweeps"]["quick"]["pass_rate"] == 0.5
    assert by_id["other.thm1.even"]["sweeps"]["quick"] == {"missing": "not in the sweep"}
    # a claim no sweep ran still shows what the chapter declares
    assert (by_id["other.thm1.even"]["statement"], by_id["other.thm1.even"]["expected"]) == ("The seed is even.", "reproduced")
    (tmp_path / "_toc.yml").write_text("root: book/intro\nchapters:\n  - file: notebooks/01_fake\n")
    html = sw.ledger_html(rows, aggs, page_dir=chapters["fake"].parent.parent / "book", toc_file=tmp_path / "_toc.yml")
    assert html.count("<tr>") == 5 and "not in the sweep" in html and "<strong>1/2</strong> (50%)" in html
    assert 'href="../notebooks/01_fake.html"' in html and "other <em>(not in the book yet)</em>" in html
    text = sw.describe_sweep(aggs[0], book_commit="0" * 40)
    assert "seeds 0, 1" in text and "reduced size" in text and "no run failed" in text
    assert "--quick --publish" in text
    assert "seed" in sw.measured_per_seed_html(aggs)


def test_ledger_shows_seed_0_measured_when_the_sweep_ran_it(chapters):
    """The measured column is the book's own seed 0 when present, else the sweep's first seed."""
    claim = {"ref": "Thm. 1", "statement": "s", "tolerance": "t", "expected": "reproduced", "id": "fake.thm1.even",
             "verdict": "reproduced", "value": None}
    for seeds, shown in [([3, 0, 1], 0), ([2, 5], 2)]:
        recs = [{"chapter": "fake", "seed": s, "ok": True, "seconds": 1, "host": "h", "error": None, "glued": {},
                 "claims": [dict(claim, measured=f"value of seed {s}")]} for s in seeds]
        prov = sw.provenance(chapters=["fake"], seeds=seeds, quick=False, workers=2, scheduler=None, wall_seconds=9)
        agg = sw.aggregate(recs, prov)
        html = sw.ledger_html(sw.ledger_rows({"fake": chapters["fake"]}, [agg]), [agg])
        assert f"value of seed {shown}" in html and f"seed {shown})" in html
        assert sum(f"value of seed {s}" in html for s in seeds) == 1


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


def test_describe_sweep_says_whether_the_chapters_changed_since():
    recs = [{"chapter": "fake", "seed": 0, "ok": True, "seconds": 1, "host": "h", "error": None, "glued": {},
             "claims": []}]
    agg = sw.aggregate(recs, sw.provenance(chapters=["fake"], seeds=[0], quick=False, workers=1, scheduler=None,
                                           wall_seconds=1))
    agg["provenance"]["git_commit"] = "a" * 40
    same = sw.describe_sweep(agg, "b" * 40, since=[])
    assert "none of the files the chapters run" in same
    moved = sw.describe_sweep(agg, "b" * 40, since=["notebooks/03_race.ipynb"])
    assert "`notebooks/03_race.ipynb`" in moved and "may have moved" in moved
    assert "may have moved" in sw.describe_sweep(agg, "b" * 40, since=None)
    assert "built at" not in sw.describe_sweep(agg, "a" * 40, since=["x"])     # same commit: nothing to say
    head = sw._git("rev-parse", "HEAD")
    if head:                                                    # in a git checkout: HEAD against itself
        assert all(not f.endswith("sweep.py") for f in sw.changed_since(head) or [])


def test_pass_summary_counts_claims_by_how_often_they_hold():
    def rec(seed, verdicts):
        return {"chapter": "fake", "seed": seed, "ok": True, "seconds": 1, "host": "h", "error": None, "glued": {},
                "claims": [{"id": f"fake.c{i}", "verdict": v, "measured": "", "value": None} for i, v in enumerate(verdicts)]}
    recs = [rec(0, ["reproduced", "reproduced", "partial"]), rec(1, ["reproduced", "not reproduced", "not reproduced"])]
    agg = sw.aggregate(recs, sw.provenance(chapters=["fake"], seeds=[0, 1], quick=True, workers=1, scheduler=None,
                                           wall_seconds=1))
    assert sw.pass_summary(agg) == "Of its 3 claims, 1 were reproduced in every run, 1 in some runs only and 1 in none."
    assert sw.pass_summary(agg) in sw.describe_sweep(agg)
