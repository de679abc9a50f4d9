"""Start a new chapter from the template: ``python scripts/new_chapter.py <key> --title "..."``.

Creates, from ``notebooks/_template.py`` and ``notebooks/_template.claims.yaml``:

- ``notebooks/NN_<key>.py`` and its paired ``.ipynb`` (no outputs), NN = the next free number;
- ``notebooks/NN_<key>.claims.yaml`` (one example claim, with its control);
- ``lrlib/theory/<key>/__init__.py`` and ``claims.py`` (the paper's theory package, with the example claim's measurement) and ``tests/test_theory_<key>.py``;
- the chapter's line in ``_toc.yml`` (after the last chapter).

The chapter then runs as it is (``make rerun CHAPTER=<key>``), is executed by the book build,
run by the sweep and listed on the ledger page. See CONTRIBUTING.md for what to write next.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from lrlib.paths import REPO_ROOT, chapters
KEY_RE = re.compile(r"^[a-z][a-z0-9_]*$")


def _fill(text: str, **values: str) -> str:
    for k, v in values.items():
        text = text.replace("{{" + k + "}}", v)
    return text


def _add_to_toc(toc: Path, entry: str) -> None:
    lines = toc.read_text(encoding="utf-8").splitlines(keepends=True)
    last = max((i for i, ln in enumerate(lines) if re.match(r"^\s*- file: notebooks/\d\d_", ln)), default=None)
    if last is None:
        raise SystemExit(f"new_chapter: no chapter (`- file: notebooks/NN_...`) in {toc} to add {entry} after")
    indent = lines[last][:len(lines[last]) - len(lines[last].lstrip())]
    lines.insert(last + 1, f"{indent}- file: {entry}\n")
    toc.write_text("".join(lines), encoding="utf-8")


_CLAIMS_MODULE = '''"""The chapter's claim measurements: one function per claim, applied by the ledger to every run."""

from __future__ import annotations

import numpy as np


def loss_ratio(run) -> dict[str, np.ndarray]:
    """Final loss over initial loss, per seed.

    Parameters
    ----------
    run : Trajectory
        The runs (``loss`` of shape ``(T, seeds)``).

    Returns
    -------
    dict of str to np.ndarray
        ``ratio``, shape ``(seeds,)``.
    """
    return {"ratio": (run.loss[-1] / run.loss[0]).numpy()}
'''

_TEST_MODULE = '''"""Tests for lrlib.theory.{{KEY}}: each helper against a direct computation."""

import numpy as np
import torch

from lrlib.theory.{{KEY}} import claims


def test_loss_ratio_is_final_over_initial():
    class Run:
        loss = torch.tensor([[2.0, 4.0], [1.0, 1.0]])
    assert np.allclose(claims.loss_ratio(Run())["ratio"], [0.5, 0.25])
'''


def new_chapter(key: str, title: str, root: Path = REPO_ROOT) -> Path:
    """Create the chapter ``key`` under ``root``; returns the path of its ``.py`` notebook."""
    import jupytext

    if not KEY_RE.match(key):
        raise SystemExit(f"new_chapter: the key must be lower-case letters, digits and _, starting with a letter; got {key!r}")
    nbdir = root / "notebooks"
    taken = {k: int(p.name[:2]) for k, p in chapters(nbdir, ".py").items()}
    if key in taken:
        raise SystemExit(f"new_chapter: chapter {key!r} exists already (notebooks/{taken[key]:02d}_{key}.py)")
    stem = f"{max(taken.values(), default=0) + 1:02d}_{key}"
    values = dict(KEY=key, TITLE=title, STEM=stem)
    py = nbdir / f"{stem}.py"
    py.write_text(_fill((nbdir / "_template.py").read_text(encoding="utf-8"), **values), encoding="utf-8")
    (nbdir / f"{stem}.claims.yaml").write_text(
        _fill((nbdir / "_template.claims.yaml").read_text(encoding="utf-8"), **values), encoding="utf-8")
    jupytext.write(jupytext.read(py), nbdir / f"{stem}.ipynb")
    pkg = root / "lrlib" / "theory" / key
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text(f'"""The theory of the paper of chapter `{key}`: its data, closed forms and measurements."""\n',
                                     encoding="utf-8")
    (pkg / "claims.py").write_text(_CLAIMS_MODULE, encoding="utf-8")
    tests = root / "tests" / f"test_theory_{key}.py"
    tests.parent.mkdir(parents=True, exist_ok=True)
    tests.write_text(_fill(_TEST_MODULE, KEY=key), encoding="utf-8")
    _add_to_toc(root / "_toc.yml", f"notebooks/{stem}")
    return py


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("key", help="the chapter key, e.g. `lazy` (lower case)")
    ap.add_argument("--title", required=True, help="the chapter's title")
    ap.add_argument("--root", type=Path, default=REPO_ROOT, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    py = new_chapter(args.key, args.title, args.root.resolve())
    print(f"new_chapter: created {py.relative_to(args.root.resolve())} (+ .ipynb, claims file, "
          f"lrlib/theory/{args.key}/, tests/test_theory_{args.key}.py, _toc.yml entry). Next: CONTRIBUTING.md.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
