#!/usr/bin/env python
"""Check the chapter notebooks in ``notebooks/`` before they are tested or built.

Every chapter is a jupytext pair, ``notebooks/NN_<key>.py`` (py:percent, the half
you edit) and ``notebooks/NN_<key>.ipynb`` (the half the book, papermill, nbval and
the Binder/Colab buttons use). For every pair this script checks that:

1. both halves exist;
2. they are in sync: the same cells, in the same order, with the same type, the
   same source and the same tags, as jupytext parses them (modification times
   are ignored: a fresh clone gives every file the same age);
3. the ``.ipynb`` is committed clean: no outputs, no execution counts, and no
   papermill/nbclient execution metadata;
4. it has exactly one cell tagged ``parameters``, and that cell is a code cell;
5. its code reads as a chapter: the median code cell has at most 8 non-blank lines, no code cell
   more than 25 (except figure-drawing cells tagged ``hide-input``, which the book collapses), no
   line of a code cell longer than 100 characters (a long line is how a long cell hides), and no
   function defined in it has a body of more than 8 non-blank lines (longer code belongs in
   ``lrlib``, where it is tested).

Usage (from anywhere; ``make test`` runs it first)::

    .venv/bin/python scripts/check_notebooks.py            # check, exit 1 on a problem
    .venv/bin/python scripts/check_notebooks.py --strip    # clear outputs/metadata in place, then check

Each problem is printed with the command that fixes it.
"""

from __future__ import annotations

import argparse
import ast
import json
import statistics
import sys
from pathlib import Path

import jupytext

from lrlib.paths import NOTEBOOKS_DIR, REPO_ROOT
PY_FMT = "py:percent"

# Metadata that execution adds and that must not be committed.
NB_VOLATILE = ("papermill", "widgets")
CELL_VOLATILE = ("papermill", "execution", "ExecuteTime")


def rel(path: Path) -> str:
    try:
        return str(path.relative_to(REPO_ROOT))
    except ValueError:
        return str(path)


def cell_signature(nb) -> list[tuple[str, str, tuple[str, ...]]]:
    """(type, source, tags) per cell, as jupytext sees them."""
    sig = []
    for cell in nb.cells:
        tags = tuple(sorted(cell.metadata.get("tags", [])))
        sig.append((cell.cell_type, cell.source.strip(), tags))
    return sig


def first_difference(a, b) -> str:
    for i, (ca, cb) in enumerate(zip(a, b)):
        if ca != cb:
            what = "type" if ca[0] != cb[0] else "source" if ca[1] != cb[1] else "tags"
            snippet = (cb[1] or ca[1]).splitlines()[:1]
            return f"cell {i + 1} differs in its {what} (starts: {snippet[0][:60] if snippet else ''!r})"
    return f"the .py has {len(a)} cells, the .ipynb {len(b)}"


def strip_ipynb(path: Path) -> bool:
    """Clear outputs, execution counts and execution metadata in place. True if changed."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    before = json.dumps(raw, sort_keys=True)
    for key in NB_VOLATILE:
        raw.get("metadata", {}).pop(key, None)
    for cell in raw.get("cells", []):
        md = cell.get("metadata", {})
        for key in CELL_VOLATILE:
            md.pop(key, None)
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
    if json.dumps(raw, sort_keys=True) == before:
        return False
    path.write_text(json.dumps(raw, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return True


MEDIAN_CELL, MAX_CELL, MAX_DEF_BODY, MAX_WIDTH = 8, 25, 8, 100


def _lines(src: str) -> int:
    return sum(1 for line in src.splitlines() if line.strip())


def check_style(py: Path) -> list[str]:
    """Code cells short enough to read, functions short enough to live in a notebook."""
    nb = jupytext.read(py)
    code = [c for c in nb.cells if c.cell_type == "code"]
    cells = [c.source for c in code]
    hidden = ["hide-input" in c.metadata.get("tags", []) for c in code]
    problems = []
    sizes = [_lines(c) for c in cells]
    if sizes and statistics.median(sizes) > MEDIAN_CELL:
        problems.append(f"{rel(py)}: the median code cell has {statistics.median(sizes):g} lines (at most {MEDIAN_CELL}); "
                        f"split cells or move code into lrlib")
    for i, (src, n) in enumerate(zip(cells, sizes)):
        if n > MAX_CELL and not hidden[i]:
            problems.append(f"{rel(py)}: code cell {i + 1} has {n} lines (at most {MAX_CELL})")
        wide = [j + 1 for j, line in enumerate(src.splitlines()) if len(line) > MAX_WIDTH]
        if wide:
            problems.append(f"{rel(py)}: code cell {i + 1} has {len(wide)} line(s) over {MAX_WIDTH} characters "
                            f"(its lines {wide[:5]}{' ...' if len(wide) > 5 else ''}); move code into lrlib")
        try:
            tree = ast.parse(src)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                body = "\n".join(src.splitlines()[node.body[0].lineno - 1:node.end_lineno])
                if _lines(body) > MAX_DEF_BODY:
                    problems.append(f"{rel(py)}: function {node.name} has {_lines(body)} lines (at most {MAX_DEF_BODY}); "
                                    f"move it to lrlib/theory/<paper>/ or lrlib/plots/<paper>.py, with a test")
    return problems


def check_pair(ipynb: Path, py: Path) -> list[str]:
    problems: list[str] = []
    r_ipynb, r_py = rel(ipynb), rel(py)

    # --- the .ipynb must be valid and clean -------------------------------
    try:
        raw = json.loads(ipynb.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        return [f"{r_ipynb}: not valid notebook JSON ({exc}). Regenerate it from the .py: "
                f"`jupytext --to ipynb {r_py}`"]

    cells = raw.get("cells", [])
    with_outputs = [i + 1 for i, c in enumerate(cells) if c.get("cell_type") == "code" and c.get("outputs")]
    with_counts = [i + 1 for i, c in enumerate(cells)
                   if c.get("cell_type") == "code" and c.get("execution_count") is not None]
    volatile = sorted({k for k in NB_VOLATILE if k in raw.get("metadata", {})}
                      | {k for c in cells for k in CELL_VOLATILE if k in c.get("metadata", {})})
    if with_outputs or with_counts or volatile:
        parts = []
        if with_outputs:
            parts.append(f"outputs in cells {with_outputs}")
        if with_counts:
            parts.append(f"execution counts in cells {with_counts}")
        if volatile:
            parts.append(f"execution metadata {volatile}")
        problems.append(
            f"{r_ipynb}: committed executed ({'; '.join(parts)}). Outputs come from execution, not "
            f"from git. Fix: `python scripts/check_notebooks.py --strip`, or "
            f"`jupyter nbconvert --clear-output --inplace {r_ipynb}`, or regenerate it from the .py "
            f"with `jupytext --to ipynb {r_py}`."
        )

    tagged = [(i + 1, c.get("cell_type")) for i, c in enumerate(cells)
              if "parameters" in c.get("metadata", {}).get("tags", [])]
    if len(tagged) != 1:
        problems.append(
            f"{r_ipynb}: needs exactly one cell tagged `parameters` (papermill injects `seed`, `quick`, "
            f"`ledger_path` after it), found {len(tagged)}"
            + (f" (cells {[i for i, _ in tagged]})" if tagged else "")
            + f". In {r_py} the cell header reads `# %% tags=[\"parameters\"]`; then "
            f"`jupytext --sync {r_py}`."
        )
    elif tagged[0][1] != "code":
        problems.append(f"{r_ipynb}: the cell tagged `parameters` (cell {tagged[0][0]}) is not a code cell.")

    # --- the two halves must hold the same cells ---------------------------
    try:
        nb_py = jupytext.read(py, fmt=PY_FMT)
        nb_ipynb = jupytext.read(ipynb)
        # Round-trip the .ipynb through the text format, so both sides are
        # normalised by jupytext the same way (blank lines, cell markers).
        nb_ipynb_rt = jupytext.reads(jupytext.writes(nb_ipynb, fmt=PY_FMT), fmt=PY_FMT)
    except Exception as exc:  # noqa: BLE001 - report any parse error as a problem
        problems.append(f"{r_py} / {r_ipynb}: jupytext cannot read the pair ({type(exc).__name__}: {exc}).")
        return problems

    sig_py, sig_ipynb = cell_signature(nb_py), cell_signature(nb_ipynb_rt)
    if sig_py != sig_ipynb:
        problems.append(
            f"{r_py} and {r_ipynb} are out of sync: {first_difference(sig_py, sig_ipynb)}. "
            f"If you edited the .py (the usual case): `jupytext --update --to ipynb {r_py}` "
            f"(the .py wins). Otherwise `jupytext --sync {r_py}` syncs from the more recently "
            f"modified half. Then check `git diff`."
        )
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--strip", action="store_true",
                        help="clear outputs, execution counts and execution metadata of every "
                             ".ipynb in place before checking")
    parser.add_argument("--dir", type=Path, default=NOTEBOOKS_DIR, help="notebook folder (default: notebooks/)")
    args = parser.parse_args(argv)

    folder: Path = args.dir.resolve()
    if not folder.is_dir():
        print(f"check_notebooks: no folder {rel(folder)}; nothing to check.")
        return 0

    # the chapter template (`_template`) is a pair too; only the style rules are for chapters
    ipynbs = {p.stem: p for p in sorted(folder.glob("*.ipynb"))}
    pys = {p.stem: p for p in sorted(folder.glob("*.py"))}
    problems: list[str] = []

    for stem in sorted(set(pys) - set(ipynbs)):
        problems.append(f"{rel(pys[stem])} has no .ipynb twin. Create it: `jupytext --sync {rel(pys[stem])}`.")
    for stem in sorted(set(ipynbs) - set(pys)):
        problems.append(f"{rel(ipynbs[stem])} has no .py twin. Create it: "
                        f"`jupytext --sync {rel(ipynbs[stem])}` (jupytext.toml pairs ipynb with py:percent).")

    for stem in sorted(set(ipynbs) & set(pys)):
        if args.strip and strip_ipynb(ipynbs[stem]):
            print(f"check_notebooks: stripped {rel(ipynbs[stem])}")
        problems.extend(check_pair(ipynbs[stem], pys[stem]))
        if not stem.startswith("_"):
            problems.extend(check_style(pys[stem]))

    n = len(set(ipynbs) | set(pys))
    if problems:
        print(f"check_notebooks: {len(problems)} problem(s) in {rel(folder)}/:", file=sys.stderr)
        for p in problems:
            print(f"  - {p}", file=sys.stderr)
        return 1
    print(f"check_notebooks: {n} notebook pair(s) in {rel(folder)}/ in sync, clean, with one parameters cell.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
