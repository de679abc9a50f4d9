"""Execute the book's chapter notebooks in parallel into the Jupyter Book execution cache.

``jupyter-book build`` executes outdated notebooks one after another, so on a 2-core
machine one core idles for the whole build (every chapter runs single-threaded). This
script does that execution first, on ``--jobs`` processes, and stores each executed
notebook in the cache exactly as MyST-NB's ``cache`` mode does (same cache, same
staging, same working directory: the notebook's folder); the book build that follows
finds every chapter in the cache and only renders it.

A chapter that raises stops this script with the notebook's traceback (exit 1). A
chapter already in the cache with the same code is not executed again.

Usage: ``python scripts/execute_chapters.py --cache _build/.jupyter_cache --jobs 2 notebooks/0*.ipynb``
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import sys
import time
from pathlib import Path


def _execute(path: str, timeout: int) -> tuple[str, object, float, str | None]:
    """Execute one notebook in its folder; returns (path, executed notebook, seconds, error text)."""
    import nbformat
    from jupyter_cache.executors.utils import single_nb_execution

    nb = nbformat.read(path, as_version=4)
    t0 = time.time()
    res = single_nb_execution(nb, cwd=str(Path(path).parent), timeout=timeout, allow_errors=False,
                              meta_override=True)
    err = None if res.err is None else (res.exc_string or repr(res.err))
    return path, nb, res.time if res.time else time.time() - t0, err


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("notebooks", nargs="+", help="the .ipynb files to execute")
    ap.add_argument("--cache", required=True, help="the execution cache folder (_config.yml: execute.cache)")
    ap.add_argument("--jobs", type=int, default=2, help="notebooks executed at once (default 2)")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds per cell (default 1800)")
    a = ap.parse_args(argv)
    if a.jobs < 1:
        ap.error("--jobs must be >= 1")

    import nbformat
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    cache = get_cache(a.cache)
    todo = []
    for p in a.notebooks:
        path = str(Path(p).resolve())
        if not Path(path).is_file():
            print(f"execute_chapters: no such notebook {p}", file=sys.stderr)
            return 2
        nb = nbformat.read(path, as_version=4)
        try:
            cache.match_cache_notebook(nb)
            print(f"execute_chapters: {Path(p).name}: in the cache (unchanged code)")
        except KeyError:
            todo.append(path)
    if not todo:
        return 0
    print(f"execute_chapters: executing {len(todo)} notebook(s) on {min(a.jobs, len(todo))} process(es)", flush=True)
    failed = []
    t0 = time.time()
    with cf.ProcessPoolExecutor(max_workers=min(a.jobs, len(todo))) as pool:
        futures = [pool.submit(_execute, p, a.timeout) for p in todo]
        for fut in cf.as_completed(futures):
            path, nb, seconds, err = fut.result()
            name = Path(path).name
            if err:
                failed.append(name)
                print(f"execute_chapters: {name}: FAILED after {seconds:.0f}s\n{err}", file=sys.stderr, flush=True)
                continue
            stage = cache.add_nb_to_project(path)
            cache.cache_notebook_bundle(CacheBundleIn(nb, stage.uri, data={"execution_seconds": seconds}),
                                        check_validity=False, overwrite=True)
            print(f"execute_chapters: {name}: executed in {seconds:.0f}s", flush=True)
    print(f"execute_chapters: done in {time.time() - t0:.0f}s" + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
