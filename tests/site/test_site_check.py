"""The pure parts of the browser test (scripts/site_check.py): the pages it visits, the
launch/download-button and raw-math checks. The browser run itself is the last step of
`make test`, on the built book."""

from __future__ import annotations

import importlib.util
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("site_check", REPO_ROOT / "scripts" / "site_check.py")
site = importlib.util.module_from_spec(spec)
spec.loader.exec_module(site)


def test_toc_pages_lists_every_page_in_order(tmp_path):
    toc = tmp_path / "_toc.yml"
    toc.write_text("format: jb-book\nroot: book/intro\nparts:\n  - caption: A\n    chapters:\n"
                   "      - file: notebooks/01_x\n        sections:\n          - file: notebooks/01_x_more.md\n"
                   "  - caption: B\n    chapters:\n      - file: book/ledger\n")
    assert site.toc_pages(toc) == ["book/intro", "notebooks/01_x", "notebooks/01_x_more", "book/ledger"]
    real = site.toc_pages(REPO_ROOT / "_toc.yml")
    assert real[0] == "book/intro" and all(site.source_of(p) for p in real)


def test_launch_buttons_must_name_tracked_notebooks():
    base = "http://127.0.0.1:1/"
    nb = sorted(p.relative_to(REPO_ROOT).as_posix() for p in (REPO_ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))[0]
    good = [f"https://mybinder.org/v2/gh/o/r/main?urlpath=tree/{nb}",
            f"https://colab.research.google.com/github/o/r/blob/main/{nb}"]
    tracked = {nb}
    assert site.check_buttons(good, base, tracked) == []
    bad = site.check_buttons(["https://mybinder.org/v2/gh/o/r/main?urlpath=tree/notebooks/99_gone.ipynb",
                              "https://colab.research.google.com/github/o/r/blob/main/book/ledger.md"], base, tracked)
    assert "not in the repository" in bad[0] and "not a notebook" in bad[1]
    assert "git does not track" in site.check_buttons(good[:1], base, set())[0]


def test_raw_math_pattern():
    assert site.RAW_MATH.search("the loss $L$ decays") and site.RAW_MATH.search(r"see \(x\)")
    assert not site.RAW_MATH.search("plain text, 5 % of runs")


def test_glued_figures_of_a_chapter():
    chapters = sorted((REPO_ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    keys = site.glued_figures(chapters[0].relative_to(REPO_ROOT).with_suffix("").as_posix())
    assert keys and all(k.startswith(chapters[0].stem.split("_", 1)[1] + "-") for k in keys)


def test_claims_tables_are_readable_at_a_laptop_and_a_phone_width(tmp_path):
    """The ledger page's table with the book's CSS, in headless Chromium at 1280 and 375 px:
    the id and verdict cells are not clipped, and the chapter filter hides other chapters' rows."""
    import shutil

    import pytest

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("no chromium here (make test's site step installs it)")
    from playwright.sync_api import sync_playwright

    from lrlib import ledger_page as lp
    from lrlib import sweep as sw

    rows = lp.ledger_rows(sw.discover(REPO_ROOT / "notebooks"), [])
    long = "a very long statement that wraps over many lines " * 6
    for r in rows:
        r["decl"] = r["decl"].__class__(**{**r["decl"].__dict__, "statement": long})
    css = (REPO_ROOT / "book" / "_static" / "lrlib.css").read_text()
    page_html = (f"<html><head><meta name='viewport' content='width=device-width'><style>{css}</style></head>"
                 f"<body><main>{lp.ledger_html(rows, [], page_dir=tmp_path, toc_file=tmp_path / 'x')}</main></body></html>")
    (tmp_path / "p.html").write_text(page_html)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=site.CHROMIUM_ARGS)
        for width, height, mobile in site.WIDTHS:
            page = browser.new_context(viewport={"width": width, "height": height}, is_mobile=mobile).new_page()
            page.goto((tmp_path / "p.html").as_uri())
            assert site.check_tables(page) == [], width
        browser.close()
