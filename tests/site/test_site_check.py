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
    from lrlib.paths import chapters

    rows = lp.ledger_rows(chapters(REPO_ROOT / "notebooks"), [])
    long = "a very long statement that wraps over many lines " * 6
    for r in rows:
        r["decl"] = r["decl"].__class__(**{**r["decl"].__dict__, "statement": long})
    css = (REPO_ROOT / "book" / "_static" / "lrlib.css").read_text()
    page_html = (f"<html><head><meta name='viewport' content='width=device-width'><style>{css}</style></head>"
                 f"<body><main>{lp.ledger_html(rows, [], page_dir=tmp_path, toc_file=tmp_path / 'x')}</main></body></html>")
    (tmp_path / "p.html").write_text(page_html)
    _readable_at_both_widths(chromium, tmp_path / "p.html")


def _readable_at_both_widths(chromium: str, page_file: Path, shots: Path | None = None) -> None:
    """Open a page at a laptop's and a phone's width: the table checks find nothing."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=site.CHROMIUM_ARGS)
        for width, height, mobile in site.WIDTHS:
            page = browser.new_context(viewport={"width": width, "height": height}, is_mobile=mobile).new_page()
            page.goto(page_file.as_uri())
            assert site.check_tables(page) == [], width
            if shots is not None:
                page.screenshot(path=str(shots / f"{width}.png"), full_page=True)
        browser.close()


def test_chapter_ledger_and_code_cells_are_readable_at_a_laptop_and_a_phone_width(tmp_path, monkeypatch):
    """A chapter's claims tables (five seeds with margins, a control run with five seeds, long rules
    and statements) and a code cell with a long line, with the book's CSS: no cell narrower than
    ~12 characters, nothing clipped, no sideways scrolling, at 1280 and 390 px."""
    import json
    import shutil

    import numpy as np
    import pytest

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("no chromium here (make test's site step installs it)")
    from playwright.sync_api import sync_playwright

    from lrlib.ledger import grading as gr

    long_rule = " and ".join(f"abs(quantity_{i} - 1) <= 0.1" for i in range(6))
    claims = [dict(id=f"lemma{i}.a-rather-long-claim-id", ref="Lemma 3 (ii), App. B.4", statement="a statement " * 20,
                   quantity="q", rule=long_rule, tolerance="t " * 30, expect="0-1", rule_kind="tolerance",
                   expect_basis="observed", measure="x.claims.m",
                   control={"run": "large_initialisation", "removes": "the small initialisation " * 4},
                   history=[{"date": "2026-12-02", "change": "rule", "reason": "why " * 20}]) for i in range(4)]
    claims.append(dict(id="identity", ref="eq. 4", statement="an identity", quantity="q", rule="quantity_0 <= 1e-12",
                       tolerance="float64", expect="reproduced", kind="consistency", measure="x.claims.m",
                       expect_basis="predicted"))
    (tmp_path / "01_x.py").write_text("# chapter\n")
    (tmp_path / "01_x.claims.yaml").write_text(json.dumps({"chapter": "x", "claims": claims}))
    monkeypatch.setattr(gr, "resolve_measure", lambda d: lambda run: {f"quantity_{i}": np.asarray(run) for i in range(6)})
    led = gr.Ledger.declared("x", n_seeds=5, path=tmp_path / "01_x.claims.yaml")
    for c in claims[:4]:
        led.measure(c["id"], [1.0, 1.05, 0.93, 1.5, np.nan], controls={"large_initialisation": [3.0, 2.0, 1.5, np.nan, 9.0]},
                    init=[7.0] * 5)
    led.measure("identity", [1e-15] * 5)
    code = ('<div class="cell_input"><div class="highlight"><pre>'
            + "ledger.measure('lemma34.time-bounds', sweep_runs, controls={'large_initialisation': big}, " * 3
            + "</pre></div></div>")
    css = (REPO_ROOT / "book" / "_static" / "lrlib.css").read_text()
    (tmp_path / "p.html").write_text(
        f"<html><head><meta name='viewport' content='width=device-width'><style>{css}</style></head>"
        f"<body><main style='max-width: 720px'>{code}{gr.chapter_tables(led)._repr_html_()}</main></body></html>")
    _readable_at_both_widths(chromium, tmp_path / "p.html", shots=tmp_path)
    shutil.copy(tmp_path / "1280.png", "/tmp/chapter_table_1280.png")
    shutil.copy(tmp_path / "390.png", "/tmp/chapter_table_390.png")


def test_a_seed_control_shows_the_seed_chosen_offline(tmp_path):
    import shutil

    import matplotlib
    import pytest

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("no chromium here (make test's site step installs it)")
    from playwright.sync_api import sync_playwright

    from lrlib.plots import seed_switcher_html

    figs = []
    for s in range(5):
        fig, ax = plt.subplots(figsize=(2, 1.5))
        ax.plot([0, 1], [0, s])
        figs.append(fig)
    widget = seed_switcher_html("x-fig1", figs, [f"seed {s}: exit at {100 * s}" for s in range(5)])
    css = (REPO_ROOT / "book" / "_static" / "lrlib.css").read_text()
    (tmp_path / "p.html").write_text(f"<html><head><style>{css}</style></head><body><main><figure>{widget}"
                                     "<figcaption>a caption of twenty characters</figcaption></figure></main></body></html>")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=site.CHROMIUM_ARGS)
        ctx = browser.new_context()
        ctx.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort())
        page = ctx.new_page()
        page.goto((tmp_path / "p.html").as_uri())
        assert page.evaluate(site.SEED_CHECK) == []
        page.click("label[for=x-fig1-s3]")
        assert page.inner_text(".lr-seed-panel.lr-seed-3 .lr-seed-note") == "seed 3: exit at 300"
        assert not page.is_visible(".lr-seed-panel.lr-seed-0 img")
        browser.close()


def test_the_build_drops_the_animation_players_outside_style_sheet():
    import sys
    sys.path.insert(0, str(REPO_ROOT / "book" / "_ext"))
    import site_fixes

    page = ('<div class="output text_html">\n<link rel="stylesheet"\nhref="https://maxcdn.bootstrapcdn.com/font-awesome/'
            '4.4.0/css/font-awesome.min.css">\n<script language="javascript">')
    assert "font-awesome" not in site_fixes.OUTSIDE_STYLES.sub("", page) and "<script" in site_fixes.OUTSIDE_STYLES.sub("", page)
