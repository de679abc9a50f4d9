#!/usr/bin/env python
"""Test the built book as a reader sees it: serve ``_build/html`` on localhost and open
every page of the table of contents in headless Chromium.

For every page listed in ``_toc.yml`` it checks that:

1. the page loads (HTTP 200) without console errors or uncaught JavaScript exceptions;
2. every image of the page (so every glued figure) has loaded, is not 0×0 and is not
   one flat colour, and a chapter shows at least as many output images as it glues figures;
   every output image is a figure with a caption (``{glue:figure}`` and its text, ≥ 20 characters);
3. the math rendered: every ``.math`` element holds a MathJax container, no MathJax error
   (``mjx-merror``), and no raw ``$``, ``\\(`` or ``\\[`` is left in the text outside code;
4. every internal link resolves: HTTP 200, and the ``#fragment`` exists in the target;
5. the launch (Binder, Colab) and download buttons point at notebooks that exist in the
   repository (and that git tracks, in a git checkout): the buttons of a reader on the
   published site fetch them from the repository;
6. at a laptop's width (1280 px) and a phone's (390 px), on every page: no table cell is
   narrower than about 12 characters, no element's content is clipped by its overflow (a code
   cell whose lines run past its right edge, a claims table that needs sideways scrolling), no
   cell overlaps its neighbour, and the claim id and the verdict (pass rate) of every claims
   table are visible; on the ledger page, choosing a chapter in the filter hides the other
   chapters' rows; in every figure with a seed control, choosing seed j shows seed j's panels
   and no other.

A full-page screenshot of each page at each width goes to ``_build/site-test/`` (a test
artefact, not in git; CI keeps it). The site is tested **offline**: every request outside
localhost is refused and nothing is rerouted, so the math must render from the MathJax that the
build ships (``_static/mathjax``), and a page that needs an outside script, style sheet, font or
image fails. Other outside requests (links a reader may follow) are listed.

Chromium: Debian's ``chromium`` package (``/usr/bin/chromium``); when it is missing, this
script installs it with apt-get (as root, or through ``sudo -n``), else stops and says what
to install. Playwright (pinned in requirements.txt) drives it; no browser is downloaded.

Usage (``make test`` runs it last, on the book that its -W build produced)::

    .venv/bin/python scripts/site_check.py [--html _build/html] [--out _build/site-test]
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import yaml

from lrlib.paths import REPO_ROOT
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]
RAW_MATH = re.compile(r"\\\(|\\\)|\\\[|\\\]|\$")
GLUE_RE = re.compile(r"""\bglue\(\s*["']([^"']+)["']\s*,\s*fig""")


# ---------------------------------------------------------------------------------
# setup

def find_chromium(install: bool = True) -> str:
    """The path of Debian's chromium, installing the package when it is missing and we can."""
    for cand in ("/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")):
        if cand and Path(cand).is_file():
            return cand
    if install:
        cmd = None
        if os.geteuid() == 0:
            cmd = []
        elif shutil.which("sudo") and subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode == 0:
            cmd = ["sudo", "-n"]
        if cmd is not None:
            print("site: chromium is missing: apt-get install -y chromium", flush=True)
            env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
            subprocess.run(cmd + ["apt-get", "update", "-qq"], check=True, env=env)
            subprocess.run(cmd + ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "chromium"],
                           check=True, env=env)
            return find_chromium(install=False)
    sys.exit("site: Chromium is not installed and this user cannot install it. Install Debian's "
             "`chromium` package (as root: `apt-get install -y chromium`), then rerun.")


def toc_pages(toc_file: Path) -> list[str]:
    """Every page of a jb-book ``_toc.yml`` in reading order (paths without extension)."""
    toc = yaml.safe_load(toc_file.read_text())
    pages = [toc["root"]]

    def walk(entries):
        for e in entries or []:
            if "file" in e:
                pages.append(e["file"])
            walk(e.get("sections"))
            walk(e.get("chapters"))

    for part in toc.get("parts", []):
        walk(part.get("chapters"))
    walk(toc.get("chapters"))
    return [re.sub(r"\.(md|ipynb|rst)$", "", p) for p in pages]


def source_of(page: str) -> Path | None:
    for ext in (".ipynb", ".md", ".rst"):
        if (REPO_ROOT / (page + ext)).is_file():
            return REPO_ROOT / (page + ext)
    return None


def glued_figures(page: str) -> list[str]:
    """The figure keys a notebook page glues (``glue("<key>", fig...)`` in its code)."""
    src = source_of(page)
    if src is None or src.suffix != ".ipynb":
        return []
    cells = json.loads(src.read_text()).get("cells", [])
    code = "\n".join("".join(c.get("source", "")) for c in cells if c.get("cell_type") == "code")
    return sorted(set(GLUE_RE.findall(code)))


def tracked_files() -> set[str] | None:
    try:
        out = subprocess.run(["git", "ls-files"], cwd=REPO_ROOT, capture_output=True, text=True, check=True)
        return set(out.stdout.splitlines())
    except (OSError, subprocess.CalledProcessError):
        return None


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], ConnectionError):  # the browser dropped a request
            super().handle_error(request, client_address)


def serve(folder: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(Quiet, directory=str(folder))
    server = Server(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def http_status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


# ---------------------------------------------------------------------------------
# in the page

PAGE_FACTS = r"""
() => {
  const main = document.querySelector('main') || document.body;
  // text outside code, scripts and rendered math
  const skip = 'pre, code, script, style, mjx-container, .highlight, textarea, .MathJax';
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT, {acceptNode: n =>
      n.parentElement && !n.parentElement.closest(skip) ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_REJECT});
  const texts = [];
  while (walker.nextNode()) { const t = walker.currentNode.textContent; if (t.trim()) texts.push(t); }
  const maths = [...document.querySelectorAll('.math')];
  const imgs = [...main.querySelectorAll('img')].map(img => {
    let flat = null;
    try {  // one flat colour = an empty figure
      const c = document.createElement('canvas'), w = Math.min(img.naturalWidth, 200), h = Math.min(img.naturalHeight, 200);
      c.width = w; c.height = h; const g = c.getContext('2d'); g.drawImage(img, 0, 0, w, h);
      const d = g.getImageData(0, 0, w, h).data; flat = true;
      for (let i = 4; i < d.length; i += 4) if (d[i] !== d[0] || d[i+1] !== d[1] || d[i+2] !== d[2] || d[i+3] !== d[3]) { flat = false; break; }
    } catch (e) { flat = null; }
    return {src: img.getAttribute('src'), complete: img.complete, w: img.naturalWidth, h: img.naturalHeight,
            flat: flat, output: !!img.closest('.cell_output, .output, figure'),
            caption: ((img.closest('figure') || {querySelector: () => null}).querySelector('figcaption') || {textContent: ''})
                       .textContent.trim()};
  });
  const links = [...document.querySelectorAll('a[href]')].map(a => a.href);
  return {texts, nMath: maths.length, nRendered: maths.filter(m => m.querySelector('mjx-container')).length,
          nMerror: document.querySelectorAll('mjx-merror').length, imgs, links,
          hasMathJax: !!document.querySelector('script[src*="mathjax"]')};
}
"""


def check_page(page, url: str, refused: list[str]) -> tuple[list[str], dict | None]:
    """Open ``url`` in ``page`` (a Playwright page): the problems found (console errors,
    math, images) and the page's facts (links, images, formulas; ``None`` if it did not load).
    ``refused`` lists the outside requests refused meanwhile (their console errors do not count)."""
    problems, console = [], []
    page.on("console", lambda m: console.append(m) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"JavaScript exception: {e}"))
    resp = page.goto(url, wait_until="load", timeout=60_000)
    if resp is None or resp.status != 200:
        return [f"HTTP {None if resp is None else resp.status}"], None
    if page.evaluate("() => document.querySelector('script[src*=\"mathjax\"]') !== null"):
        try:
            page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=30_000)
            page.evaluate("() => MathJax.startup.promise")
        except Exception as e:  # noqa: BLE001
            problems.append(f"MathJax did not start: {e}")
    try:   # a loaded machine can keep a page busy for a while; the checks below read what is there
        page.wait_for_load_state("networkidle", timeout=60_000)
    except Exception:  # noqa: BLE001 - playwright's TimeoutError
        pass
    facts = page.evaluate(PAGE_FACTS)
    for m in console:
        loc = m.location.get("url", "") if m.location else ""
        if any(loc.startswith(r) for r in refused) and "Failed to load resource" in m.text:
            continue  # an outside resource we refused (listed separately)
        problems.append(f"console error: {m.text} ({loc})")
    # math
    if facts["nMath"] and facts["nRendered"] < facts["nMath"]:
        problems.append(f"math: {facts['nMath'] - facts['nRendered']} of {facts['nMath']} formulas not rendered by MathJax")
    if facts["nMerror"]:
        problems.append(f"math: {facts['nMerror']} MathJax error(s) (bad TeX)")
    raw = [t.strip()[:80] for t in facts["texts"] if RAW_MATH.search(t)]
    if raw:
        problems.append(f"raw TeX delimiters left in the text: {raw[:5]}")
    # images (glued figures)
    for im in facts["imgs"]:
        if not im["complete"] or im["w"] == 0 or im["h"] == 0:
            problems.append(f"image did not load or is empty: {im['src']}")
        elif im["flat"]:
            problems.append(f"image is one flat colour: {im['src']}")
        if im["output"] and len(im["caption"]) < 20:
            problems.append(f"figure without a caption (a {{glue:figure}} with a caption that says what to compare): "
                            f"{(im['src'] or '')[:60]}")
    return problems, facts


# For every claims table (class lr-claims): the first rows' claim id (first cell) and pass rate
# (last cell) must be visible, i.e. lie inside the viewport and inside the table's scroll box.
TABLE_FACTS = r"""
() => {
  const vw = document.documentElement.clientWidth;
  const out = [];
  document.querySelectorAll('table.lr-claims').forEach((t, ti) => {
    const box = (t.closest('.lr-ledger') || t).getBoundingClientRect();
    const rows = Array.from(t.querySelectorAll('tbody tr')).filter(r => r.offsetParent !== null).slice(0, 5);
    rows.forEach((r, ri) => {
      const cells = r.querySelectorAll('td');
      if (!cells.length) return;
      [['id', cells[0]], ['verdict', cells[cells.length - 1]]].forEach(([what, c]) => {
        const b = c.getBoundingClientRect();
        const left = Math.max(0, box.left), right = Math.min(vw, box.right);
        if (b.width < 1 || b.left < left - 1 || b.right > right + 1)
          out.push(`table ${ti + 1}, row ${ri + 1}: the ${what} cell is clipped (x ${b.left.toFixed(0)}..${b.right.toFixed(0)}, visible ${left.toFixed(0)}..${right.toFixed(0)})`);
      });
    });
  });
  return out;
}
"""

# The ledger page's filters: choosing one chapter must hide the other chapters' rows.
FILTER_CHECK = r"""
async () => {
  const tool = document.querySelector('.lr-ledger-tool');
  if (!tool) return null;
  const sel = tool.querySelector('select[data-filter="chapter"]');
  const visible = () => Array.from(tool.querySelectorAll('tbody tr')).filter(r => r.style.display !== 'none').length;
  const all = visible();
  if (sel.options.length < 3) return {all, filtered: all, chapters: sel.options.length - 1};
  sel.value = sel.options[1].value;
  sel.dispatchEvent(new Event('change'));
  const filtered = visible();
  sel.value = '';
  sel.dispatchEvent(new Event('change'));
  return {all, filtered, back: visible(), chapters: sel.options.length - 1};
}
"""

# Every seed control (lrlib.plots.glue_seeds): choosing seed j shows seed j's panel and only it.
SEED_CHECK = r"""
() => {
  const out = [];
  document.querySelectorAll('.lr-seeds').forEach((w, wi) => {
    const radios = Array.from(w.querySelectorAll('input[type=radio]'));
    const panels = Array.from(w.querySelectorAll('.lr-seed-panel'));
    if (radios.length !== panels.length) out.push(`seed control ${wi + 1}: ${radios.length} buttons, ${panels.length} panels`);
    radios.forEach((r, j) => {
      (w.querySelector(`label[for="${r.id}"]`) || r).click();
      const shown = panels.map(p => getComputedStyle(p).display !== 'none');
      if (!shown[j] || shown.filter(x => x).length !== 1)
        out.push(`seed control ${wi + 1}: choosing ${r.id} shows panels ${shown.map((x, i) => x ? i : null).filter(x => x !== null)}`);
    });
    if (radios.length) (w.querySelector(`label[for="${radios[0].id}"]`) || radios[0]).click();
  });
  return out;
}
"""

WIDTHS = ((1280, 900, False), (390, 844, True))   # a laptop, a phone
#: Outside resources a page cannot do without: refusing one is a failure of the offline test.
NEEDED = ("script", "stylesheet", "font", "image")

# Layout on every page: a table cell with more than 12 characters of text is at least ~12
# characters wide (else its text stands one word a line), no content clipped by its element's
# overflow (nor a code block or claims table that needs sideways scrolling: wide data-frame
# outputs may scroll), no table cell overlapping its neighbour.
LAYOUT_FACTS = r"""
() => {
  const out = [];
  const main = document.querySelector('main') || document.body;
  const name = el => (el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
                      + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\s+/).slice(0, 2).join('.') : ''));
  const visible = el => el.offsetParent !== null && el.getClientRects().length > 0;
  main.querySelectorAll('td, th').forEach(c => {
    if (!visible(c) || !c.textContent.trim()) return;
    const fs = parseFloat(getComputedStyle(c).fontSize) || 16;
    const w = c.getBoundingClientRect().width;
    if (c.textContent.trim().length > 12 && w < 12 * 0.5 * fs) out.push(`a table cell ${w.toFixed(0)} px wide (< 12 characters): "${c.textContent.trim().slice(0, 30)}"`);
  });
  main.querySelectorAll('tr').forEach(r => {
    const cells = Array.from(r.children).filter(visible);
    for (let i = 1; i < cells.length; i++) {
      const a = cells[i - 1].getBoundingClientRect(), b = cells[i].getBoundingClientRect();
      const sameLine = a.top < b.bottom - 1 && b.top < a.bottom - 1;
      if (sameLine && a.right > b.left + 1 && b.right > a.left + 1)
        out.push(`table cells overlap: "${cells[i - 1].textContent.trim().slice(0, 20)}" / "${cells[i].textContent.trim().slice(0, 20)}"`);
    }
  });
  main.querySelectorAll('*').forEach(el => {
    if (!visible(el) || el.closest('.math, mjx-container, .MathJax')) return;   // glyphs overhang their boxes
    const st = getComputedStyle(el);
    if (st.display === 'inline') return;
    const clip = ['hidden', 'clip'].includes(st.overflowX);
    const scroll = ['auto', 'scroll'].includes(st.overflowX) && el.matches('pre, .lr-ledger');
    if ((clip || scroll) && el.scrollWidth > el.clientWidth + 3 && el.clientWidth > 0)
      out.push(`${clip ? 'content clipped' : 'needs sideways scrolling'} in ${name(el)}: ${el.scrollWidth} px of content in ${el.clientWidth} px`
               + ` ("${el.textContent.trim().slice(0, 40)}")`);
  });
  return out.slice(0, 25);
}
"""


def check_tables(page) -> list[str]:
    """Claims tables with a clipped id or verdict cell, the page's layout faults (:data:`LAYOUT_FACTS`),
    seed controls that do not show the seed chosen (:data:`SEED_CHECK`), and (on the ledger page)
    filters that do not change the rows shown."""
    problems = list(page.evaluate(TABLE_FACTS)) + list(page.evaluate(LAYOUT_FACTS)) + list(page.evaluate(SEED_CHECK))
    f = page.evaluate(FILTER_CHECK)
    if f is not None and f["chapters"] > 1 and not (0 < f["filtered"] < f["all"] and f.get("back") == f["all"]):
        problems.append(f"ledger filters do not work: {f}")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--html", default=str(REPO_ROOT / "_build" / "html"), help="the built site (default: _build/html)")
    ap.add_argument("--toc", default=str(REPO_ROOT / "_toc.yml"))
    ap.add_argument("--out", default=str(REPO_ROOT / "_build" / "site-test"), help="screenshots (default: _build/site-test)")
    a = ap.parse_args(argv)
    html, shots = Path(a.html), Path(a.out)
    if not (html / "index.html").is_file():
        sys.exit(f"site: no built book in {html} (run `make book` first)")
    pages = toc_pages(Path(a.toc))
    chromium = find_chromium()
    tracked = tracked_files()
    shutil.rmtree(shots, ignore_errors=True)
    shots.mkdir(parents=True)
    server, base = serve(html)
    from playwright.sync_api import sync_playwright

    failures: dict[str, list[str]] = {}
    refused_all: set[str] = set()
    t0 = time.time()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
            refused: list[str] = []
            needed: list[str] = []

            def route(r):   # offline: everything outside localhost is refused, nothing rerouted
                u = r.request.url
                if u.startswith(base):
                    return r.continue_()
                refused.append(u)
                if r.request.resource_type in NEEDED:
                    needed.append(f"{r.request.resource_type} {u}")
                return r.abort()

            link_cache: dict[str, tuple[int, str]] = {}
            for width, height, mobile in WIDTHS:
                context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=mobile,
                                              has_touch=mobile)
                context.route("**/*", route)
                for p in pages:
                    url = urllib.parse.urljoin(base, p + ".html")
                    page = context.new_page()
                    refused.clear()
                    needed.clear()
                    problems, facts = check_page(page, url, refused)
                    refused_all.update(refused)
                    problems += [f"needs the network (refused offline): {x}" for x in dict.fromkeys(needed)]
                    if facts is not None:
                        if width == WIDTHS[0][0]:   # links, buttons and figures once; tables at every width
                            problems += check_links(facts["links"], base, link_cache)
                            problems += check_buttons(facts["links"], base, tracked)
                            n_out = sum(1 for im in facts["imgs"] if im["output"])
                            glued = glued_figures(p)
                            if len(glued) > n_out:
                                problems.append(f"{len(glued)} figures glued ({', '.join(glued)}) but {n_out} output images shown")
                        problems += check_tables(page)
                        page.screenshot(path=str(shots / f"{width}px__{p.replace('/', '__')}.png"), full_page=True)
                        print(f"site {width}px: {p}: {len(facts['imgs'])} images, {facts['nMath']} formulas, "
                              f"{len(facts['links'])} links" + ("" if not problems else f": {len(problems)} PROBLEM(S)"),
                              flush=True)
                    if problems:
                        failures.setdefault(p, []).extend(f"[{width}px] {x}" for x in problems)
                    page.close()
                context.close()
            browser.close()
    finally:
        server.shutdown()
    if refused_all:
        print(f"site: {len(refused_all)} outside request(s) refused (offline test; none a page needs): "
              + ", ".join(sorted(refused_all)[:8]) + (" ..." if len(refused_all) > 8 else ""))
    print(f"site: screenshots in {shots} ({time.time() - t0:.0f}s; offline: nothing outside localhost was reached)")
    if failures:
        for p, probs in failures.items():
            print(f"\nsite: FAILED {p}:", file=sys.stderr)
            for x in probs:
                print(f"  - {x}", file=sys.stderr)
        print(f"\n{len(pages) - len(failures)} passed, {len(failures)} failed")
        return 1
    print(f"{len(pages)} passed, 0 failed")
    return 0


def check_links(links: list[str], base: str, cache: dict) -> list[str]:
    """Every link into the site answers 200 and its #fragment exists in the target page."""
    problems = []
    for href in dict.fromkeys(links):
        if not href.startswith(base):
            continue
        target, _, frag = href.partition("#")
        if target not in cache:
            try:
                with urllib.request.urlopen(target, timeout=30) as r:
                    body = r.read().decode("utf-8", "replace") if target.endswith((".html", "/")) else ""
                    cache[target] = (r.status, body)
            except urllib.error.HTTPError as e:
                cache[target] = (e.code, "")
        status, body = cache[target]
        rel = href[len(base):]
        if status != 200:
            problems.append(f"broken internal link: {rel} (HTTP {status})")
        elif frag and body and not re.search(r"""\b(id|name)=["']""" + re.escape(urllib.parse.unquote(frag)) + r"""["']""", body):
            problems.append(f"internal link to a missing anchor: {rel}")
    return problems


BUTTONS = [  # (what, pattern giving the file path in the repository)
    ("Binder", re.compile(r"^https://mybinder\.org/v2/gh/[^/]+/[^/]+/[^?]+\?urlpath=(?:tree|lab/tree)/([^&#]+)")),
    ("Colab", re.compile(r"^https://colab\.research\.google\.com/github/[^/]+/[^/]+/blob/[^/]+/([^?#]+)")),
]


def check_buttons(links: list[str], base: str, tracked: set[str] | None) -> list[str]:
    """Launch buttons name a notebook that exists in the repository (and that git tracks);
    download buttons (``_sources/...``) serve a file of the built site."""
    problems = []
    for href in dict.fromkeys(links):
        for what, rx in BUTTONS:
            m = rx.match(href)
            if m:
                nb = urllib.parse.unquote(m.group(1))
                if what == "Colab" and not nb.endswith(".ipynb"):
                    problems.append(f"Colab button points at {nb}, which is not a notebook (Colab opens .ipynb only)")
                elif not (REPO_ROOT / nb).is_file():
                    problems.append(f"{what} button points at {nb}, which is not in the repository")
                elif tracked is not None and nb not in tracked:
                    problems.append(f"{what} button points at {nb}, which git does not track (a reader gets a 404)")
        if href.startswith(base + "_sources/"):
            src = urllib.parse.unquote(href[len(base + "_sources/"):].split("#")[0]).removesuffix(".txt")
            if not (REPO_ROOT / src).is_file():
                problems.append(f"download button serves {src}, which is not a file of the repository")
            if http_status(href.split("#")[0]) != 200:
                problems.append(f"download button: {href[len(base):]} does not load")
    return problems


if __name__ == "__main__":
    sys.exit(main())
