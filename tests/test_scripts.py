"""Tests for the Makefile's helpers in scripts/: pytest_step.py (collecting no test fails the
step) and book_cache.py (the execution cache is cleared when what the chapters depend on changes)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

import book_cache  # noqa: E402
import pytest_step  # noqa: E402


def test_no_collected_test_fails_the_step(tmp_path, capsys):
    (tmp_path / "test_nothing.py").write_text("x = 1\n")
    assert pytest_step.main(["the things", "--", str(tmp_path), "-q", "-p", "no:cacheprovider"]) == 1
    assert "collected no tests for the things" in capsys.readouterr().err
    (tmp_path / "test_one.py").write_text("def test_ok():\n    assert True\n")
    assert pytest_step.main(["the things", "--env", "LRLIB_X=1", "--", str(tmp_path), "-q", "-p", "no:cacheprovider"]) == 0


def test_shards_run_every_file_and_fail_when_one_fails(tmp_path, capsys):
    for i in range(3):
        (tmp_path / f"test_{i}.py").write_text("def test_ok():\n    assert True\n")
    args = ["--", str(tmp_path / "test_*.py"), "-q", "-p", "no:cacheprovider"]
    assert pytest_step.main(["the shards", "--shards", "2", *args]) == 0
    out = capsys.readouterr().out
    assert out.count("---- pytest on") == 2 and out.count("1 passed") + out.count("2 passed") == 2
    (tmp_path / "test_1.py").write_text("def test_bad():\n    assert False\n")
    assert pytest_step.main(["the shards", "--shards", "2", *args]) == 1
    (tmp_path / "test_1.py").write_text("x = 1\n")          # a shard that collects nothing fails too
    (tmp_path / "test_0.py").write_text("x = 1\n")
    (tmp_path / "test_2.py").write_text("x = 1\n")
    assert pytest_step.main(["the shards", "--shards", "2", *args]) == 1
    with pytest.raises(SystemExit, match="--shards N"):
        pytest_step.main(["x", "--shards", "two", *args])


def test_a_glob_that_matches_nothing_is_an_error(tmp_path):
    with pytest.raises(SystemExit, match="no file matches"):
        pytest_step.main(["x", "--", str(tmp_path / "*.ipynb")])
    with pytest.raises(SystemExit, match="usage"):
        pytest_step.main(["--", "tests"])


def test_book_cache_is_cleared_when_the_key_changes(tmp_path, monkeypatch):
    build = tmp_path / "_build"
    (build / ".jupyter_cache").mkdir(parents=True)
    (build / ".doctrees").mkdir()
    keys = iter(["a", "a", "b"])
    monkeypatch.setattr(book_cache, "cache_key", lambda: next(keys))
    book_cache.main([str(build)])                       # no key yet: start over
    assert not (build / ".jupyter_cache").exists() and (build / ".lrlib-cache-key").read_text().strip() == "a"
    (build / ".jupyter_cache").mkdir()
    book_cache.main([str(build)])                       # same key: kept
    assert (build / ".jupyter_cache").exists()
    book_cache.main([str(build)])                       # another key: cleared
    assert not (build / ".jupyter_cache").exists()


def test_cache_key_is_every_chapters_provenance_hash(tmp_path):
    import json

    claim = dict(id="c", ref="r", statement="s", quantity="q", rule="x < 1", tolerance="t", expect="reproduced",
                 control="a legacy control text")
    files = {"lrlib/__init__.py": "", "lrlib/a.py": "A = 1", "lrlib/b.py": "B = 1", "data/SHA256SUMS": "1",
             "requirements.txt": "torch==2.13.0", "notebooks/01_x.py": "import lrlib.a\n",
             "notebooks/01_x.claims.yaml": json.dumps({"chapter": "x", "claims": [claim]})}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    keys = [book_cache.cache_key(tmp_path)]
    for rel, text in [("lrlib/a.py", "A = 2"), ("requirements.txt", "torch==2.14.1"),
                      ("notebooks/01_x.claims.yaml", json.dumps({"chapter": "x", "claims": [{**claim, "rule": "x < 2"}]}))]:
        (tmp_path / rel).write_text(text)
        keys.append(book_cache.cache_key(tmp_path))
    assert len(set(keys)) == 4                               # an imported module, a pin, a rule: a new key
    (tmp_path / "lrlib" / "b.py").write_text("B = 2")        # a module no chapter imports: same key
    assert book_cache.cache_key(tmp_path) == keys[-1]


def test_check_notebooks_style_flags_long_cells_and_functions(tmp_path):
    import check_notebooks

    long_def = "def f(x):\n" + "".join(f"    x = x + {i}\n" for i in range(9)) + "    return x\n"
    py = tmp_path / "01_x.py"
    py.write_text("# %%\n" + "\n".join(f"a{i} = {i}" for i in range(30)) + "\n\n# %%\n" + long_def)
    problems = check_notebooks.check_style(py)
    assert any("code cell 1 has 30 lines" in p for p in problems)
    assert any("function f has 10 lines" in p for p in problems)
    assert any("median code cell" in p for p in problems)
    hidden = tmp_path / "03_z.py"                  # a long figure cell the book collapses is allowed
    hidden.write_text("# %%\nx = 1\n\n# %% tags=[\"hide-input\"]\n" + "\n".join(f"a{i} = {i}" for i in range(30)) + "\n")
    assert not any("has 30 lines" in p for p in check_notebooks.check_style(hidden))
    short = tmp_path / "02_y.py"
    short.write_text("# %%\nx = 1\n\n# %%\ndef g():\n    return 2\n")
    assert check_notebooks.check_style(short) == []


def test_execute_chapters_starts_the_longest_chapter_first(tmp_path):
    import json

    import execute_chapters

    results = tmp_path / "results.json"
    results.write_text(json.dumps({"book": {"rows": [{"chapter": "01_a", "seconds": 100.0},
                                                     {"chapter": "02_b", "seconds": 400.0},
                                                     {"chapter": "03_c", "seconds": 250.0}]}}))
    paths = ["nb/01_a.ipynb", "nb/02_b.ipynb", "nb/03_c.ipynb", "nb/04_new.ipynb"]
    assert execute_chapters.longest_first(paths, results) == ["nb/04_new.ipynb", "nb/02_b.ipynb", "nb/03_c.ipynb",
                                                              "nb/01_a.ipynb"]
    assert execute_chapters.longest_first(paths, tmp_path / "missing.json") == paths


def test_the_workflows_run_the_readme_commands():
    import yaml

    ROOT = REPO
    wf = ROOT / ".github" / "workflows"
    runs = {f.name: [s.get("run", "") for job in yaml.safe_load(f.read_text())["jobs"].values()
                     for s in job.get("steps", [])] for f in wf.glob("*.yml")}
    readme = (ROOT / "README.md").read_text()
    assert "bash .ci/run" in runs["ci.yml"] and "make test" in (ROOT / ".ci" / "run").read_text()
    assert "make book" in runs["pages.yml"] and "make book" in readme and "make test" in readme
    pages = (wf / "pages.yml").read_text()
    assert "actions/upload-pages-artifact" in pages and "actions/deploy-pages" in pages
    ci = (wf / "ci.yml").read_text()
    assert "hashFiles('requirements.txt')" in ci and ".jupyter_cache" in ci


def test_binder_is_in_step_with_the_lock():
    """binder/ installs requirements.txt itself (one lock, no second list to drift), with the CPU
    index for torch, on the Python the Makefile asks for, and installs lrlib."""
    binder = REPO / "binder"
    req = [ln.strip() for ln in (binder / "requirements.txt").read_text().splitlines()
           if ln.strip() and not ln.startswith("#")]
    assert "-r ../requirements.txt" in req and "--extra-index-url https://download.pytorch.org/whl/cpu" in req
    pins = [ln for ln in req if not ln.startswith("-")]
    assert pins == [], f"binder/requirements.txt pins packages of its own: {pins}"
    assert (binder / "runtime.txt").read_text().strip() == "python-3.11" and "python3.11" in (REPO / "Makefile").read_text()
    assert "pip install --no-deps -e ." in (binder / "postBuild").read_text()


def test_licence_and_citation():
    import yaml

    lic = (REPO / "LICENSE").read_text()
    assert "MIT License" in lic and "CC BY 4.0" in lic
    cff = yaml.safe_load((REPO / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0" and cff["title"] and cff["authors"] and cff["message"]
    assert set(cff["license"]) == {"MIT", "CC-BY-4.0"}
    data = (REPO / "book" / "data.md").read_text()
    assert "Sources and terms of use" in data and "CC BY-SA 3.0" in data
