"""The "Adding a chapter" guide works as written: ``scripts/new_chapter.py`` builds a throwaway
chapter from ``notebooks/_template.py`` in a scratch copy of the book's layout, and that chapter
is collected by the book (``_toc.yml``, the notebook pair check, the execution glob), run by the
sweep (its claim graded, its control failing) and listed on the ledger page."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

import check_notebooks  # noqa: E402
import new_chapter  # noqa: E402
import site_check  # noqa: E402

from lrlib import ledger_page, paths, sweep  # noqa: E402


@pytest.fixture
def scratch(tmp_path):
    (tmp_path / "notebooks").mkdir()
    for f in ("_template.py", "_template.ipynb", "_template.claims.yaml"):
        shutil.copy(REPO / "notebooks" / f, tmp_path / "notebooks" / f)
    for nb in sorted((REPO / "notebooks").glob("[0-9][0-9]_*.py")):   # the existing chapters' numbers
        (tmp_path / "notebooks" / nb.name).write_text("# stands in for a chapter\n")
    shutil.copy(REPO / "_toc.yml", tmp_path / "_toc.yml")
    # the scaffold writes the chapter's theory package into lrlib/theory/: a copy of lrlib here,
    # first on the kernels' path, holds it
    shutil.copytree(REPO / "lrlib", tmp_path / "lrlib", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def test_new_chapter_is_collected_by_the_book_the_sweep_and_the_ledger_page(scratch, monkeypatch):
    monkeypatch.delenv("LRLIB_QUICK", raising=False)
    monkeypatch.setattr(sweep, "REPO_ROOT", scratch)      # first on the kernels' path
    existing = sorted(p.stem for p in (REPO / "notebooks").glob("[0-9][0-9]_*.py"))
    closing = [s for s in existing if s[3:] in new_chapter.CLOSING]
    py = new_chapter.new_chapter("toychapter", "A toy chapter", root=scratch)
    stem = f"{len(existing) - len(closing) + 1:02d}_toychapter"
    assert py.name == f"{stem}.py"
    nb = scratch / "notebooks" / f"{stem}.ipynb"

    # the book: listed in the table of contents after the last paper's chapter and before the
    # closing chapters, which move one number up; a clean pair, matched by the glob the build executes
    pages = site_check.toc_pages(scratch / "_toc.yml")
    moved = [f"notebooks/{int(s[:2]) + 1:02d}_{s[3:]}" for s in closing]
    chapter_pages = [p for p in pages if p.startswith("notebooks/")]
    assert chapter_pages[-len(moved) - 1:] == [f"notebooks/{stem}", *moved]
    assert all((scratch / f"{m}.py").is_file() for m in moved)
    assert not any((scratch / "notebooks" / f"{s}.py").exists() for s in closing)
    for other in (scratch / "notebooks").glob("[0-9][0-9]_*.py"):   # the stand-ins are not pairs
        if other != py:
            other.unlink()
    assert check_notebooks.main(["--dir", str(scratch / "notebooks")]) == 0
    assert nb in set((scratch / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert (scratch / "lrlib" / "theory" / "toychapter" / "claims.py").is_file()
    assert (scratch / "tests" / "test_theory_toychapter_claims.py").is_file()
    assert (scratch / "lrlib" / "plots" / "toychapter.py").is_file()

    # the sweep: discovered, executed (quick), its claim graded
    chapters = paths.chapters(scratch / "notebooks")
    assert list(chapters) == ["toychapter"]
    agg = sweep.sweep(chapters, [0], scratch / "runs", quick=True, workers=1, log=lambda *a: None)
    assert agg["failed"] == []
    claim = agg["claims"]["toychapter.example.fit"]
    assert claim["runs"][0]["verdicts"] == ["reproduced"] * 2
    assert set(claim["runs"][0]["control_verdicts"]) == {"not reproduced"}
    assert claim["runs"][0]["init_verdicts"] == ["not reproduced"] * 2 and claim["tier"] == "quantitative"
    assert claim["expect_basis"] == "predicted" and claim["control_run"] == "short"

    # the package front has the house's one form: explicit __all__, names from its modules
    front = (scratch / "lrlib" / "theory" / "toychapter" / "__init__.py").read_text()
    assert '__all__ = ["claims", "loss_ratio"]' in front and "import *" not in front

    # the generated test asserts something that can fail
    import subprocess
    test = scratch / "tests" / "test_theory_toychapter_claims.py"
    ok = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)], cwd=scratch)
    assert ok.returncode == 0
    claims_py = scratch / "lrlib" / "theory" / "toychapter" / "claims.py"
    claims_py.write_text(claims_py.read_text().replace("run.loss[-1] / run.loss[0]", "run.loss[0] / run.loss[-1]"))
    bad = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)], cwd=scratch)
    assert bad.returncode == 1
    plots_test = scratch / "tests" / "test_plots_toychapter.py"
    ok = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(plots_test)], cwd=scratch)
    assert ok.returncode == 0

    # the ledger page: a row for the claim, with the sweep's pass rate
    rows = ledger_page.ledger_rows(chapters, [agg])
    assert [r["id"] for r in rows] == ["toychapter.example.fit"]
    html = ledger_page.ledger_html(rows, [agg], page_dir=scratch / "book", toc_file=scratch / "_toc.yml")
    assert "toychapter.example.fit" in html


def test_new_chapter_refuses_a_taken_or_bad_key(scratch):
    new_chapter.new_chapter("toychapter", "A toy chapter", root=scratch)
    with pytest.raises(SystemExit, match="exists already"):
        new_chapter.new_chapter("toychapter", "again", root=scratch)
    with pytest.raises(SystemExit, match="lower-case"):
        new_chapter.new_chapter("Bad-Key", "x", root=scratch)
