"""Key the book's execution cache on what a chapter's results depend on, and clear it when
that changes: ``python scripts/book_cache.py _build``.

The jupyter-cache keys a notebook on its code cells only, so a change in ``lrlib/``, a claims
file, the data checksums or a pinned version would not re-execute anything. This script keys the
cache on every chapter's provenance hash (:func:`lrlib.ledger.provenance.code_hash`: its notebook,
the grading fields of its claims file, the ``lrlib`` files it imports, ``data/SHA256SUMS`` and
``requirements.txt``), the same hash that decides whether a published sweep is fresh, and, when
the key differs from the one stored in
``<build>/.lrlib-cache-key``, deletes the execution cache and Sphinx's environment (``.doctrees``:
otherwise Sphinx would not re-read the unchanged pages, and old outputs would stay).
"""

from __future__ import annotations

import hashlib
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cache_key(root: Path = ROOT) -> str:
    """Every chapter's provenance hash, combined (the chapters found as ``notebooks/NN_<key>.py``)."""
    sys.path.insert(0, str(root))
    from lrlib.ledger.provenance import code_hash

    keys = sorted(p.stem.split("_", 1)[1] for p in (root / "notebooks").glob("[0-9][0-9]_*.py"))
    h = hashlib.sha256()
    for k in keys:
        h.update(f"{k}={code_hash(k, root=root)}\n".encode())
    return h.hexdigest()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    build = Path(argv[0] if argv else "_build")
    key_file = build / ".lrlib-cache-key"
    key = cache_key()
    if key_file.is_file() and key_file.read_text().strip() == key:
        return 0
    stale = [build / ".jupyter_cache", build / ".doctrees"]
    if any(p.exists() for p in stale):
        print("book: lrlib/, a claims file, data/SHA256SUMS or requirements.txt changed since the last build: "
              "clearing the execution cache")
    for p in stale:
        shutil.rmtree(p, ignore_errors=True)
    build.mkdir(parents=True, exist_ok=True)
    key_file.write_text(key + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
