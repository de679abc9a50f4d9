"""Start a new chapter from the template: ``python scripts/new_chapter.py <key> --title "..."``.

Creates, from ``notebooks/_template.py`` and ``notebooks/_template.claims.yaml``:

- ``notebooks/NN_<key>.py`` and its paired ``.ipynb`` (no outputs), NN = the number after the last
  paper's chapter: the chapters that close the book (``CLOSING``: ``synthesis``, which crosses the
  papers) stay last and move one number up, with every ``notebooks/NN_<closing>`` reference in
  ``_toc.yml``, ``book/*.md`` and ``notebooks/`` (``git add -A`` records the renames);
- ``notebooks/NN_<key>.claims.yaml`` (one example claim, with its control);
- ``lrlib/theory/<key>/__init__.py`` and ``claims.py`` (the paper's theory package, with the example
  claim's measurement), ``tests/test_theory_<key>_claims.py``;
- ``lrlib/plots/<key>.py`` (the chapter's figures, one example) and ``tests/test_plots_<key>.py``;
- the chapter's line in ``_toc.yml`` (before the closing chapters).

The chapter then runs as it is (``make rerun CHAPTER=<key>``), is executed by the book build,
run by the sweep and listed on the ledger page. See CONTRIBUTING.md for what to write next.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import jupytext

from lrlib.paths import REPO_ROOT, chapters

KEY_RE = re.compile(r"^[a-z][a-z0-9_]*$")
#: Chapters that close the book (they cross the papers): a new paper's chapter goes before them.
CLOSING = ("synthesis",)


def _fill(text: str, **values: str) -> str:
    for k, v in values.items():
        text = text.replace("{{" + k + "}}", v)
    return text


def _add_to_toc(toc: Path, entry: str) -> None:
    """Insert ``entry`` after the last chapter that is not a closing one."""
    lines = toc.read_text(encoding="utf-8").splitlines(keepends=True)
    found = [(i, m.group(1)) for i, ln in enumerate(lines)
             if (m := re.match(r"^\s*- file: notebooks/\d\d_(\w+)", ln))]
    if not found:
        raise SystemExit(f"new_chapter: no chapter (`- file: notebooks/NN_...`) in {toc} to add {entry} after")
    papers = [i for i, key in found if key not in CLOSING]
    at = papers[-1] + 1 if papers else found[0][0]
    ref = lines[found[0][0]]
    indent = ref[:len(ref) - len(ref.lstrip())]
    lines.insert(at, f"{indent}- file: {entry}\n")
    toc.write_text("".join(lines), encoding="utf-8")


def _shift_closing(root: Path, taken: dict[str, int]) -> int:
    """Move the closing chapters one number up; return the number the new chapter takes."""
    closing = sorted((n, k) for k, n in taken.items() if k in CLOSING)
    papers = [n for k, n in taken.items() if k not in CLOSING]
    number = max(papers, default=0) + 1
    if not closing or closing[0][0] > number:
        return number
    texts = [root / "_toc.yml", *sorted((root / "book").glob("*.md")), *sorted((root / "notebooks").glob("[0-9][0-9]_*"))]
    for n, key in reversed(closing):
        old, new = f"{n:02d}_{key}", f"{n + 1:02d}_{key}"
        for f in sorted((root / "notebooks").glob(f"{old}.*")):
            f.rename(f.with_name(new + f.name[len(old):]))
        texts = [t.with_name(new + t.name[len(old):]) if t.name.startswith(old + ".") else t for t in texts]
        for t in texts:
            if t.is_file() and old in (text := t.read_text(encoding="utf-8")):
                t.write_text(text.replace(old, new), encoding="utf-8")
    return number


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

_PLOTS_MODULE = '''"""The figures of chapter `{{KEY}}`: one function per figure, drawn from arrays the chapter computed."""

from __future__ import annotations

import numpy as np

from . import panel_grid


def loss_curves(time: np.ndarray, loss: np.ndarray):
    """The loss of every seed against gradient-flow time, on log-log axes.

    Parameters
    ----------
    time : np.ndarray
        Recorded times (step × learning rate, > 0), shape ``(T,)``.
    loss : np.ndarray
        Loss per recorded time and seed, shape ``(T, seeds)``.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (ax,) = panel_grid(1)
    ax.loglog(time, loss, color="k", lw=1)
    ax.set(xlabel="gradient-flow time $t$", ylabel="loss")
    return fig
'''

_PLOTS_TEST = '''"""Tests for lrlib.plots.{{KEY}}: each figure draws the data it is given."""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402

from lrlib.plots import {{KEY}} as plots  # noqa: E402


def test_loss_curves_draws_one_line_per_seed():
    loss = np.array([[1.0, 2.0], [0.5, 0.1], [0.1, 0.01]])
    fig = plots.loss_curves(np.arange(1, 4), loss)
    lines = fig.axes[0].get_lines()
    assert len(lines) == 2
    np.testing.assert_allclose(lines[1].get_ydata(), loss[:, 1])
'''

_TEST_MODULE = '''"""Tests for lrlib.theory.{{KEY}}.claims: each measurement against a direct computation."""

import numpy as np
import torch

from lrlib.theory.{{KEY}} import claims


def test_loss_ratio_is_final_over_initial():
    class Run:
        loss = torch.tensor([[2.0, 4.0], [1.0, 1.0]])
    assert np.allclose(claims.loss_ratio(Run())["ratio"], [0.5, 0.25])
'''


_PACKAGE_FRONT = '''"""The theory of the paper of chapter `{{KEY}}`: its data, closed forms and measurements
(:mod:`.claims`: the claims' measurement functions). ``from lrlib.theory import {{KEY}}`` exposes
their public names."""

from . import claims
from .claims import loss_ratio

__all__ = ["claims", "loss_ratio"]
'''


def new_chapter(key: str, title: str, root: Path = REPO_ROOT) -> Path:
    """Create the chapter ``key`` under ``root``; returns the path of its ``.py`` notebook."""
    if not KEY_RE.match(key):
        raise SystemExit(f"new_chapter: the key must be lower-case letters, digits and _, starting with a letter; got {key!r}")
    nbdir = root / "notebooks"
    taken = {k: int(p.name[:2]) for k, p in chapters(nbdir, ".py").items()}
    if key in taken:
        raise SystemExit(f"new_chapter: chapter {key!r} exists already (notebooks/{taken[key]:02d}_{key}.py)")
    stem = f"{_shift_closing(root, taken):02d}_{key}"
    values = dict(KEY=key, TITLE=title, STEM=stem)
    py = nbdir / f"{stem}.py"
    py.write_text(_fill((nbdir / "_template.py").read_text(encoding="utf-8"), **values), encoding="utf-8")
    (nbdir / f"{stem}.claims.yaml").write_text(
        _fill((nbdir / "_template.claims.yaml").read_text(encoding="utf-8"), **values), encoding="utf-8")
    jupytext.write(jupytext.read(py), nbdir / f"{stem}.ipynb")
    pkg = root / "lrlib" / "theory" / key
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text(_fill(_PACKAGE_FRONT, KEY=key), encoding="utf-8")
    (pkg / "claims.py").write_text(_CLAIMS_MODULE, encoding="utf-8")
    tests = root / "tests" / f"test_theory_{key}_claims.py"
    tests.parent.mkdir(parents=True, exist_ok=True)
    tests.write_text(_fill(_TEST_MODULE, KEY=key), encoding="utf-8")
    (root / "lrlib" / "plots" / f"{key}.py").write_text(_fill(_PLOTS_MODULE, KEY=key), encoding="utf-8")
    (root / "tests" / f"test_plots_{key}.py").write_text(_fill(_PLOTS_TEST, KEY=key), encoding="utf-8")
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
          f"lrlib/theory/{args.key}/, lrlib/plots/{args.key}.py, their tests, _toc.yml entry). "
          f"Next: git add -A, then CONTRIBUTING.md.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
