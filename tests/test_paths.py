"""lrlib.paths: the repository's folders and the chapter list, written once."""

from __future__ import annotations

import pytest

from lrlib.errors import ParameterError
from lrlib.paths import NOTEBOOKS_DIR, REPO_ROOT, chapter_paths, chapters, claims_file


def test_the_book_has_its_chapters_in_reading_order():
    found = chapters()
    assert list(found)[:2] == ["orthogonal", "alignment"] and "_template" not in found
    assert all(p.parent == NOTEBOOKS_DIR and p.suffix == ".ipynb" for p in found.values())
    assert list(chapters(suffix=".py")) == list(found)
    assert (REPO_ROOT / "lrlib" / "paths.py").is_file()


def test_chapters_ignores_other_files_and_orders_by_number(tmp_path):
    for name in ("02_b.ipynb", "01_zz.ipynb", "_template.ipynb", "notes.ipynb", "03_c.py", "1_bad.ipynb"):
        (tmp_path / name).write_text("{}")
    assert list(chapters(tmp_path)) == ["zz", "b"]
    assert list(chapters(tmp_path, ".py")) == ["c"]


def test_claims_file_and_chapter_paths(tmp_path):
    assert claims_file(tmp_path / "01_x.ipynb") == tmp_path / "01_x.claims.yaml"
    assert claims_file(tmp_path / "01_x.py") == tmp_path / "01_x.claims.yaml"
    (tmp_path / "01_x.py").write_text("")
    assert chapter_paths("x", tmp_path) == (tmp_path / "01_x.py", tmp_path / "01_x.claims.yaml")
    with pytest.raises(ParameterError):
        chapter_paths("missing", tmp_path)
