"""Key the book's execution cache on what each chapter's results depend on, and drop only the
chapters whose inputs changed: ``python scripts/book_cache.py _build``.

The jupyter-cache keys a notebook on its code cells only, so a change in ``lrlib/``, a claims
file, the data checksums or a pinned version would not re-execute anything. This script keys
each chapter on its provenance hash (:func:`lrlib.ledger.provenance.code_hash`: its notebook, the
grading fields of its claims file, the ``lrlib`` files it imports, ``data/SHA256SUMS`` and
``requirements.txt``), the same hash that decides whether a published sweep is fresh. The keys
of the last build are stored in ``<build>/.lrlib-cache-key`` (JSON, one per chapter). A chapter
whose key changed loses its cache record and its notebook is touched, so that the build reads
it again (Sphinx re-reads a page whose source is newer than its doctree) and executes it; the
other chapters keep theirs. Editing ``lrlib/theory/race/`` re-executes ``race`` and the chapters
that import it, nothing else. Without a readable key file (a first build, an older format) the
whole cache and Sphinx's environment are cleared.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def chapter_keys(root: Path = ROOT) -> dict[str, str]:
    """Every chapter's provenance hash, by notebook stem (``01_orthogonal``)."""
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from lrlib.ledger.provenance import code_hash
    from lrlib.paths import chapters

    return {p.stem: code_hash(key, root=root) for key, p in chapters(root / "notebooks", ".py").items()}


def cache_key(root: Path = ROOT) -> str:
    """All chapters' keys as one string (changes when any chapter's inputs change)."""
    return json.dumps(chapter_keys(root), sort_keys=True)


def drop_chapters(cache_dir: Path, notebooks: list[Path]) -> int:
    """Remove the execution-cache records of the given notebooks; returns how many were removed."""
    if not cache_dir.exists():
        return 0
    from jupyter_cache import get_cache

    cache = get_cache(str(cache_dir))
    wanted = {str(p.resolve()) for p in notebooks}
    n = 0
    for rec in cache.list_cache_records():
        if str(Path(rec.uri).resolve()) in wanted:
            cache.remove_cache(rec.pk)
            n += 1
    return n


def main(argv: list[str] | None = None, root: Path = ROOT) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) > 1 or (argv and argv[0].startswith("-")):
        print("usage: python scripts/book_cache.py [BUILD_DIR]  (default _build): clears the execution cache "
              "entries of the chapters whose inputs changed", file=sys.stderr)
        return 2
    build = Path(argv[0] if argv else "_build")
    key_file = build / ".lrlib-cache-key"
    keys = json.loads(cache_key(root))
    try:
        old = json.loads(key_file.read_text())
        old = old if isinstance(old, dict) else None
    except (OSError, ValueError):
        old = None
    if old == keys:
        return 0
    build.mkdir(parents=True, exist_ok=True)
    if old is None:
        stale_dirs = [build / ".jupyter_cache", build / ".doctrees"]
        if any(p.exists() for p in stale_dirs):
            print("book: no per-chapter cache keys from the last build: clearing the execution cache")
        for p in stale_dirs:
            shutil.rmtree(p, ignore_errors=True)
    else:
        changed = [s for s in keys if old.get(s) != keys[s]]
        nbs = [root / "notebooks" / f"{s}.ipynb" for s in changed]
        n = drop_chapters(build / ".jupyter_cache", nbs)
        for nb in nbs:
            if nb.is_file():
                os.utime(nb)          # newer than its doctree: the build reads it again
        if changed:
            print(f"book: the inputs of {', '.join(changed)} changed since the last build (their notebook, claims, "
                  f"lrlib modules, data or pins): {n} cached execution(s) dropped; the other chapters keep theirs")
    key_file.write_text(json.dumps(keys, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
