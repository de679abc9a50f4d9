"""Key the book's execution cache on what a chapter's results depend on, and clear it when
that changes: ``python scripts/book_cache.py _build``.

The jupyter-cache keys a notebook on its code cells only, so a change in ``lrlib/``, a claims
file, the data checksums or a pinned version would not re-execute anything. This script hashes
those (every file under ``lrlib/`` except caches, ``data/SHA256SUMS``, ``requirements.txt``,
``notebooks/*.claims.yaml``) and, when the hash differs from the one stored in
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
    files = sorted(p for p in (root / "lrlib").rglob("*")
                   if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")
    files += [root / "data" / "SHA256SUMS", root / "requirements.txt"]
    files += sorted((root / "notebooks").glob("*.claims.yaml"))
    h = hashlib.sha256()
    for f in files:
        h.update(f.relative_to(root).as_posix().encode() + b"\0")
        h.update(hashlib.sha256(f.read_bytes()).digest() if f.is_file() else b"absent")
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
