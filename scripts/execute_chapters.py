"""Execute the book's chapter notebooks in parallel into the Jupyter Book execution cache.

``jupyter-book build`` executes outdated notebooks one after another, so on a 2-core
machine one core idles for the whole build (every chapter runs single-threaded). This
script does that execution first, on ``--jobs`` processes, and stores each executed
notebook in the cache exactly as MyST-NB's ``cache`` mode does (same cache, same
staging, same working directory: the notebook's folder); the book build that follows
finds every chapter in the cache and only renders it.

A chapter that raises stops this script with the notebook's traceback (exit 1). A
chapter already in the cache with the same code is not executed again.

The chapters start longest first (by the seconds ``benchmarks/results.json`` last recorded for
the book's execution; a chapter without a record first): with two processes and chapters of
very different lengths, the longest one started last would set the wall time.

Progress: a first line says how long the recorded timings say the execution takes; then each
chapter prints a line when it starts, as each of its ``##`` sections ends and when it ends, with
the elapsed time and what is left by the recorded timings (:mod:`lrlib.progress`).

With ``--timings FILE`` it also writes, per executed chapter, its seconds and the seconds
spent under each of its ``##`` sections (from the cells' execution timestamps), for
``benchmarks/run.py`` and the performance page.

Usage: ``python scripts/execute_chapters.py --cache _build/.jupyter_cache --jobs 2 notebooks/0*.ipynb``
"""

from __future__ import annotations

import argparse
import os
import concurrent.futures as cf
import datetime as dt
import json
import sys
import time
from pathlib import Path


def section_seconds(nb) -> dict[str, float]:
    """Seconds of cell execution under each ``##`` heading of an executed notebook (cells before
    the first heading count as ``setup``), from nbclient's ``metadata.execution`` timestamps;
    the timestamps are removed from the cells."""
    out: dict[str, float] = {}
    section = "setup"
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("## "):
                    section = line[3:].strip()
                    break
            continue
        ex = cell.get("metadata", {}).pop("execution", None)
        if not ex or "iopub.execute_input" not in ex or "shell.execute_reply" not in ex:
            continue
        t0 = dt.datetime.fromisoformat(ex["iopub.execute_input"].replace("Z", "+00:00"))
        t1 = dt.datetime.fromisoformat(ex["shell.execute_reply"].replace("Z", "+00:00"))
        out[section] = out.get(section, 0.0) + max(0.0, (t1 - t0).total_seconds())
    return {k: round(v, 2) for k, v in out.items()}


def longest_first(paths: list[str], results: str | Path) -> list[str]:
    """``paths`` ordered by the execution seconds last recorded in ``results`` (the
    ``book.rows`` of ``benchmarks/results.json``), longest first; chapters without a record
    (or no readable file) come first, in their given order."""
    try:
        rows = json.loads(Path(results).read_text())["book"]["rows"]
        seconds = {r["chapter"]: float(r["seconds"]) for r in rows}
    except (OSError, ValueError, KeyError, TypeError):
        seconds = {}
    return sorted(paths, key=lambda p: -seconds.get(Path(p).stem, float("inf")))


def _execute(path: str, timeout: int, timing: bool = False, t_all: float | None = None,
             recorded: dict | None = None) -> tuple[str, object, float, str | None]:
    """Execute one notebook in its folder, printing its progress; returns (path, executed notebook,
    seconds, error text)."""
    import nbformat
    from jupyter_cache.executors.utils import single_nb_execution

    from lrlib.progress import ChapterProgress

    nb = nbformat.read(path, as_version=4)
    t0 = time.time()
    prog = ChapterProgress(Path(path).stem, Path(path).stem, nb, recorded or {}, t_all or t0)
    prog.start()
    res = single_nb_execution(nb, cwd=str(Path(path).parent), timeout=timeout, allow_errors=False,
                              meta_override=True, record_timing=timing, on_cell_executed=prog.hook)
    err = None if res.err is None else (res.exc_string or repr(res.err))
    prog.end(err is None)
    return path, nb, res.time if res.time else time.time() - t0, err


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("notebooks", nargs="+", help="the .ipynb files to execute")
    ap.add_argument("--cache", required=True, help="the execution cache folder (_config.yml: execute.cache)")
    ap.add_argument("--jobs", type=int, default=2, help="notebooks executed at once (default 2)")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds per cell (default 1800)")
    ap.add_argument("--order-from", default=str(Path(__file__).resolve().parent.parent / "benchmarks" / "results.json"),
                    help="start the chapters longest first by this results.json's book rows (default: benchmarks/)")
    ap.add_argument("--timings", default=None, help="write per-chapter and per-section seconds to this JSON file")
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
    todo = longest_first(todo, a.order_from)
    from lrlib.progress import plan_line, recorded_timings

    recorded = recorded_timings(a.order_from)
    jobs = min(a.jobs, len(todo))
    t0 = time.time()
    print(plan_line("execute_chapters", [Path(p).stem for p in todo], jobs, recorded, t0), flush=True)
    failed, timings = [], {}
    load0 = os.getloadavg()
    with cf.ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(_execute, p, a.timeout, a.timings is not None, t0, recorded) for p in todo]
        for fut in cf.as_completed(futures):
            path, nb, seconds, err = fut.result()
            name = Path(path).name
            if err:
                failed.append(name)
                print(f"execute_chapters: {name}: FAILED after {seconds:.0f}s\n{err}", file=sys.stderr, flush=True)
                continue
            if a.timings is not None:
                timings[name] = dict(seconds=round(seconds, 1), sections=section_seconds(nb))
            stage = cache.add_nb_to_project(path)
            cache.cache_notebook_bundle(CacheBundleIn(nb, stage.uri, data={"execution_seconds": seconds}),
                                        check_validity=False, overwrite=True)
            print(f"execute_chapters: {name}: executed in {seconds:.0f}s", flush=True)
    wall = time.time() - t0
    print(f"execute_chapters: done in {wall:.0f}s" + (f"; failed: {', '.join(failed)}" if failed else ""))
    if a.timings is not None:
        Path(a.timings).write_text(json.dumps(dict(wall_s=round(wall, 1), jobs=a.jobs, chapters=timings,
                                                   failed=failed, load_before=[round(x, 2) for x in load0],
                                                   load_after=[round(x, 2) for x in os.getloadavg()]),
                                              indent=1, ensure_ascii=False))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
