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


def _two_chapters(root):
    import json

    import nbformat

    claim = dict(id="c", ref="r", statement="s", quantity="q", rule="x < 1", tolerance="t", expect="reproduced",
                 control="a legacy control text")
    files = {"lrlib/__init__.py": "", "lrlib/theory/__init__.py": "", "lrlib/theory/a.py": "A = 1",
             "lrlib/theory/b.py": "B = 1", "data/SHA256SUMS": "1", "requirements.txt": "x==1",
             "notebooks/01_a.py": "import lrlib.theory.a\n", "notebooks/02_b.py": "import lrlib.theory.b\n"}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    for stem in ("01_a", "02_b"):
        (root / "notebooks" / f"{stem}.claims.yaml").write_text(json.dumps({"chapter": stem[3:], "claims": [claim]}))
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell(f"x = '{stem}'")]
        nbformat.write(nb, root / "notebooks" / f"{stem}.ipynb")


def test_book_cache_drops_only_the_chapters_whose_inputs_changed(tmp_path):
    import nbformat
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    root, build = tmp_path / "repo", tmp_path / "repo" / "_build"
    _two_chapters(root)
    (build / ".jupyter_cache").mkdir(parents=True)
    (build / ".doctrees").mkdir()
    book_cache.main([str(build)], root=root)            # no keys yet: start over
    assert not (build / ".jupyter_cache").exists() and not (build / ".doctrees").exists()
    cache = get_cache(str(build / ".jupyter_cache"))
    for stem in ("01_a", "02_b"):                        # both chapters executed and cached
        path = root / "notebooks" / f"{stem}.ipynb"
        stage = cache.add_nb_to_project(str(path))
        cache.cache_notebook_bundle(CacheBundleIn(nbformat.read(path, as_version=4), stage.uri), check_validity=False)
    book_cache.main([str(build)], root=root)            # nothing changed: both kept
    assert len(cache.list_cache_records()) == 2
    (root / "lrlib" / "theory" / "b.py").write_text("B = 2")   # one theory module: only its chapter goes
    book_cache.main([str(build)], root=root)
    left = [Path(r.uri).name for r in get_cache(str(build / ".jupyter_cache")).list_cache_records()]
    assert left == ["01_a.ipynb"]
    (root / "requirements.txt").write_text("x==2")       # a pin: every chapter goes
    book_cache.main([str(build)], root=root)
    assert get_cache(str(build / ".jupyter_cache")).list_cache_records() == []


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
    wide = tmp_path / "04_w.py"                    # a line over 100 characters is how a long cell hides
    wide.write_text("# %%\nx = 1\n# %%\ny = '" + "a" * 100 + "'\n")
    assert any("code cell 2 has 1 line(s) over 100" in p for p in check_notebooks.check_style(wide))
    wide.write_text("# %%\nx = 1\n# %%\ny = '" + "a" * 94 + "'\n")
    assert check_notebooks.check_style(wide) == []


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


def test_book_cache_refuses_an_option_instead_of_a_folder(tmp_path, capsys, monkeypatch):
    """`book_cache.py --help` used to create a folder named --help; it prints its usage instead."""
    monkeypatch.chdir(tmp_path)
    assert book_cache.main(["--help"]) == 2 and book_cache.main(["a", "b"]) == 2
    assert "usage" in capsys.readouterr().err and not any(tmp_path.iterdir())
