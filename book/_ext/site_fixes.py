"""Sphinx extension for two defects of the Jupyter Book 1 toolchain that the browser test
(scripts/site_check.py) finds on the built site.

1. With Sphinx 7.4 and Jupyter Book 1.0.4 (sphinx-thebe 0.3.1, sphinx-togglebutton), an
   inline script added through ``app.add_js_file(None, body=...)`` reaches every page twice
   (once with filename ``None``, once with ``''``): ``const THEBE_JS_URL`` is declared twice,
   a SyntaxError in the reader's console on every page. Exact duplicates are dropped.
2. sphinx-book-theme gives a page written as a MyST Markdown notebook (``book/ledger.md``,
   which only renders JSON) Binder/Colab launch buttons that point at the ``.md`` (Colab
   opens ``.ipynb`` only). Launch buttons are for the chapter notebooks: such pages get none.
"""

from __future__ import annotations

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


def setup(app):
    app.connect("html-page-context", dedupe_scripts, priority=900)
    app.connect("doctree-read", no_launch_buttons_for_text_notebooks, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
