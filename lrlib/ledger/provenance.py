"""Provenance: what a chapter's results depend on, as one hash.

:func:`code_hash` serves both the book's execution cache (``scripts/book_cache.py``) and the
freshness check of a published sweep (:mod:`lrlib.ledger.aggregate`): a chapter's notebook, the
grading fields of its claims file, the ``lrlib`` files it imports (its import closure), the data
checksums and the pinned versions (``requirements.txt``).
"""

from __future__ import annotations

import ast
import hashlib
import json
from pathlib import Path

import yaml

from ..errors import ParameterError
from ..paths import REPO_ROOT, chapters, claims_file
from .declarations import GRADING_FIELDS, load_declarations

#: lrlib modules that run chapters or render pages; no chapter result depends on them
NOT_RUN_BY_CHAPTERS = ("lrlib/sweep.py", "lrlib/ledger_page.py")
#: Files outside lrlib that every chapter's results depend on
SHARED_INPUTS = ("data/SHA256SUMS", "requirements.txt")

def grading_digest(path: Path) -> bytes:
    """The grading-relevant content of a claims file, for :func:`code_hash`.

    Parameters
    ----------
    path : Path
        The claims file.

    Returns
    -------
    bytes
        :data:`GRADING_FIELDS` and the premises' rules, in file order, as canonical JSON; the raw
        bytes when the file does not parse (so that any edit of a broken file still counts).
    """
    try:
        decls = load_declarations(path)
    except (ParameterError, yaml.YAMLError):
        return path.read_bytes()
    rows = [[getattr(d, f) for f in GRADING_FIELDS] + [[p.rule for p in d.premises]] for d in decls]
    return json.dumps(rows, ensure_ascii=False).encode()


def _module_file(name: str, root: Path) -> Path | None:
    """The source file of the dotted module ``name`` under ``root`` (module or package), if any."""
    base = root.joinpath(*name.split("."))
    for f in (base.with_suffix(".py"), base / "__init__.py"):
        if f.is_file():
            return f
    return None


def _imported_modules(source: str, module: str, is_package: bool) -> set[str]:
    """Dotted names of the ``lrlib`` modules (and, for ``from m import x``, the candidates
    ``m.x``) that the Python ``source`` of ``module`` imports anywhere in its text."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    found: set[str] = set()
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1])
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{a.name}" for a in node.names)
    out = set()
    for name in found:
        parts = name.split(".")
        if parts[0] == "lrlib":
            out.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))   # parents run too
    return out


def lrlib_closure(source: str, root: str | Path = REPO_ROOT) -> list[Path]:
    """The ``lrlib`` source files that a chapter's code imports, directly or through other modules.

    Static: every ``import`` statement in a file counts, wherever it stands.

    Parameters
    ----------
    source : str
        Python source (a chapter's code).
    root : str or Path
        The repository root, where the ``lrlib`` package lies.

    Returns
    -------
    list of Path
        Sorted, with the packages around the modules (their ``__init__`` runs on import).
    """
    root = Path(root)
    seen: dict[str, Path] = {}
    todo = sorted(_imported_modules(source, "__chapter__", False))
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        f = _module_file(name, root)
        if f is None:
            continue
        seen[name] = f
        todo += sorted(_imported_modules(f.read_text(encoding="utf-8"), name, f.name == "__init__.py") - set(seen))
    return sorted(set(seen.values()))


def _notebook_source(path: Path) -> str:
    """A chapter's code: the ``.py`` half as is, or the code cells of an ``.ipynb`` (magics dropped)."""
    if path.suffix == ".py":
        return path.read_text(encoding="utf-8")
    try:
        cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
    except ValueError:
        return ""
    code = ("".join(c.get("source", "")) if isinstance(c.get("source"), list) else c.get("source", "")
            for c in cells if c.get("cell_type") == "code")
    return "\n".join(line for cell in code for line in cell.splitlines() if not line.lstrip().startswith(("%", "!")))


def code_hash(chapter: str, notebooks_dir: str | Path | None = None, root: str | Path = REPO_ROOT) -> str:
    """SHA-256 (first 16 hex digits) of what a chapter's results depend on: its notebook
    (``.py`` half, else ``.ipynb``), the grading fields of its claims file
    (:func:`grading_digest`: editing a statement or an expectation does not make a sweep stale,
    editing a rule does; both in ``notebooks_dir``, default ``<root>/notebooks``), the ``lrlib``
    source files the chapter imports (:func:`lrlib_closure`: a change to another paper's module
    does not make this chapter's sweep stale; :data:`NOT_RUN_BY_CHAPTERS` never counts) and
    ``data/SHA256SUMS`` and ``requirements.txt`` (:data:`SHARED_INPUTS`).

    Parameters
    ----------
    chapter : str
        The chapter key.
    notebooks_dir : str or Path or None
        The notebooks' folder; ``None``: ``<root>/notebooks``.
    root : str or Path
        The repository root.

    Returns
    -------
    str
        16 hex digits.

    Raises
    ------
    ParameterError
        When the chapter has not exactly one notebook.
    """
    root = Path(root)
    nbdir = Path(notebooks_dir) if notebooks_dir is not None else root / "notebooks"
    nb = chapters(nbdir, ".py").get(chapter) or chapters(nbdir).get(chapter)
    if nb is None:
        raise ParameterError(f"chapter {chapter!r}: expected one notebook NN_{chapter}.py in {nbdir}")
    claims = claims_file(nb)
    named = [(f"notebooks/{nb.name}", nb.read_bytes())]
    if claims.is_file():
        named.append((f"notebooks/{claims.name}", grading_digest(claims)))
    named += [(f.relative_to(root).as_posix(), f.read_bytes()) for f in lrlib_closure(_notebook_source(nb), root)
              if f.relative_to(root).as_posix() not in NOT_RUN_BY_CHAPTERS]
    for rel in SHARED_INPUTS:
        if (root / rel).is_file():
            named.append((rel, (root / rel).read_bytes()))
    h = hashlib.sha256()
    for name, content in named:
        h.update(name.encode() + b"\0")
        h.update(content.replace(b"\r\n", b"\n") + b"\0")
    return h.hexdigest()[:16]


__all__ = ["NOT_RUN_BY_CHAPTERS", "SHARED_INPUTS", "code_hash",
           "grading_digest", "lrlib_closure"]
