"""Where the book's files lie and which chapters it has, written once.

A chapter is a pair ``notebooks/NN_<key>.py`` ↔ ``NN_<key>.ipynb`` with its claims file
``NN_<key>.claims.yaml``; ``NN`` orders the chapters, ``<key>`` names them everywhere (the
theory package ``lrlib/theory/<key>/``, the glue keys ``<key>-fig<N>``, the ledger). Every module,
script and benchmark that needs a path or the list of chapters asks this module (standard library
only, so that anything may import it).
"""

from __future__ import annotations

import re
from pathlib import Path

from .errors import ParameterError

#: The repository's root (the folder holding ``lrlib/``).
REPO_ROOT = Path(__file__).resolve().parent.parent
#: The chapters' notebooks and claims files.
NOTEBOOKS_DIR = REPO_ROOT / "notebooks"
#: The published sweep aggregates the book's pages read.
PUBLISH_DIR = REPO_ROOT / "book" / "ledger_data"
#: A chapter's file name: ``NN_<key>.<suffix>``.
CHAPTER_RE = re.compile(r"^(\d\d)_([A-Za-z0-9_]+)\.(py|ipynb)$")


def chapters(notebooks_dir: str | Path = NOTEBOOKS_DIR, suffix: str = ".ipynb") -> dict[str, Path]:
    """The chapters in a folder, in reading order.

    Parameters
    ----------
    notebooks_dir : str or Path
        The folder of the notebooks.
    suffix : str
        ``".ipynb"`` (the executed half) or ``".py"`` (the edited half).

    Returns
    -------
    dict of str to Path
        ``{key: notebooks_dir / "NN_<key><suffix>"}`` for every chapter file there, ordered by ``NN``.
    """
    found = []
    for p in Path(notebooks_dir).glob(f"*{suffix}"):
        m = CHAPTER_RE.match(p.name)
        if m:
            found.append((m.group(1), m.group(2), p))
    return {key: p for _, key, p in sorted(found)}


def claims_file(notebook: str | Path) -> Path:
    """The claims file next to a chapter's notebook (either half): ``NN_<key>.claims.yaml``.

    Parameters
    ----------
    notebook : str or Path
        ``NN_<key>.py`` or ``NN_<key>.ipynb``.

    Returns
    -------
    Path
        The claims file's path (it need not exist).
    """
    p = Path(notebook)
    return p.with_name(p.stem + ".claims.yaml")


def chapter_paths(chapter: str, notebooks_dir: str | Path = NOTEBOOKS_DIR) -> tuple[Path, Path]:
    """The notebook and claims file of a chapter (``notebooks/NN_<key>.*``).

    Parameters
    ----------
    chapter : str
        The chapter key.
    notebooks_dir : str or Path
        The folder of the notebooks.

    Returns
    -------
    tuple of Path
        ``(notebook .py, claims .yaml)``; the claims file need not exist.

    Raises
    ------
    ParameterError
        When there is not exactly one ``NN_<chapter>.py``.
    """
    nbs = sorted(Path(notebooks_dir).glob(f"[0-9][0-9]_{chapter}.py"))
    if len(nbs) != 1:
        raise ParameterError(f"chapter {chapter!r}: expected one notebooks/NN_{chapter}.py, found {len(nbs)}")
    return nbs[0], claims_file(nbs[0])


__all__ = ["CHAPTER_RE", "NOTEBOOKS_DIR", "PUBLISH_DIR", "REPO_ROOT", "chapter_paths", "chapters", "claims_file"]
