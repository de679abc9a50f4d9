"""Sphinx extension for two defects of the Jupyter Book 1 toolchain that the browser test
(scripts/site_check.py) finds on the built site.

1. With Sphinx 7.4 and Jupyter Book 1.0.4 (sphinx-thebe 0.3.1, sphinx-togglebutton), an
   inline script added through ``app.add_js_file(None, body=...)`` reaches every page twice
   (once with filename ``None``, once with ``''``): ``const THEBE_JS_URL`` is declared twice,
   a SyntaxError in the reader's console on every page. Exact duplicates are dropped.
2. sphinx-book-theme gives a page written as a MyST Markdown notebook (``book/ledger.md``,
   which only renders JSON) Binder/Colab launch buttons that point at the ``.md`` (Colab
   opens ``.ipynb`` only). Launch buttons are for the chapter notebooks: such pages get none.

And one need of a book read offline:

3. MathJax is served from the build, not a CDN: the pinned ``django-static-mathjax`` package's
   MathJax 3 (es5: the TeX-to-CHTML component, its fonts, TeX extensions, menu and assistive
   MathML) is copied into the site's ``_static/mathjax/``, which ``mathjax_path`` in
   ``_config.yml`` points at. A page opened from disk without a network renders its math.
4. Matplotlib's animation player (``Animation.to_jshtml``, the orthogonal chapter's neuron
   animations) links Font Awesome 4 from a CDN for its button icons. The theme already ships Font
   Awesome with the site, so the outside link is dropped from the built pages.
"""

from __future__ import annotations

import re
from pathlib import Path


def dedupe_scripts(app, pagename, templatename, context, doctree) -> None:
    files = context.get("script_files")
    if not files:
        return
    seen, unique = set(), []
    for js in files:
        key = (getattr(js, "filename", js) or "", repr(sorted(getattr(js, "attributes", {}).items())))
        if key not in seen:
            seen.add(key)
            unique.append(js)
    files[:] = unique


def no_launch_buttons_for_text_notebooks(app, doctree) -> None:
    docname = app.env.docname
    if Path(app.env.doc2path(docname)).suffix != ".ipynb":
        app.env.metadata.get(docname, {}).pop("kernelspec", None)


#: What MathJax's tex-chtml component loads, relative to the es5 folder (the speech rule engine,
#: 3.9 MB and loaded only by the accessibility explorer when a reader turns it on, is left out).
MATHJAX_PARTS = ("tex-chtml.js", "output/chtml/fonts/woff-v2", "input/tex/extensions", "ui", "a11y")


def mathjax_es5() -> Path:
    """MathJax 3's es5 build in the pinned ``django-static-mathjax`` package."""
    import mathjax

    root = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"
    if not (root / "tex-chtml.js").is_file():
        raise RuntimeError(f"no MathJax in {root}: reinstall requirements.txt (django-static-mathjax)")
    return root


def stage_mathjax(app, config) -> None:
    import shutil

    src = mathjax_es5()
    stage = Path(app.outdir).parent / ".mathjax-static"
    dest = stage / "mathjax"
    if not (dest / "tex-chtml.js").is_file():
        for part in MATHJAX_PARTS:
            (dest / part).parent.mkdir(parents=True, exist_ok=True)
            if (src / part).is_dir():
                shutil.copytree(src / part, dest / part, dirs_exist_ok=True)
            else:
                shutil.copy2(src / part, dest / part)
    if str(stage) not in config.html_static_path:
        config.html_static_path.append(str(stage))


OUTSIDE_STYLES = re.compile(r'<link[^>]+href="https://maxcdn\.bootstrapcdn\.com/font-awesome/[^"]*"[^>]*>\s*')


def drop_outside_styles(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    for page in Path(app.outdir).rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        new = OUTSIDE_STYLES.sub("", text)
        if new != text:
            page.write_text(new, encoding="utf-8")


def setup(app):
    app.connect("config-inited", stage_mathjax)
    app.connect("build-finished", drop_outside_styles)
    app.connect("html-page-context", dedupe_scripts, priority=900)
    app.connect("doctree-read", no_launch_buttons_for_text_notebooks, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
