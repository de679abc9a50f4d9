"""The lrlib benchmarks: one command, a printed table, benchmarks/results.json.

    .venv/bin/python benchmarks/run.py                      # per-step, integrator, batched seeds (~5 min)
    .venv/bin/python benchmarks/run.py --chapters           # ... and every chapter at full scale (long)
    .venv/bin/python benchmarks/run.py --chapters 01 agf    # ... and only these chapters (NN or key)
    .venv/bin/python benchmarks/run.py --only steps         # only some sections: steps, integrator, seeds, book
    .venv/bin/python benchmarks/run.py --only book          # the book's execution, as `make book` (~10 min)
    .venv/bin/python benchmarks/run.py --only steps --chapters --quick-chapters   # reduced-size reruns

Sections that are not run keep their previous entry in results.json (each section has its own
date, machine load and settings).  The tables are also written into book/performance.md
between its markers.  Speed is measured here, never asserted in tests.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from anywhere, without PYTHONPATH

import torch  # noqa: E402

from benchmarks import others, report, steps  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results.json"
SECTIONS = ("steps", "integrator", "seeds", "book")
DEFAULT = ("steps", "integrator", "seeds")        # `book` executes every chapter: asked for by name


def machine() -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return dict(cpu=cpu, cores=os.cpu_count(), platform=platform.platform(), python=platform.python_version(),
                torch=torch.__version__, torch_threads=torch.get_num_threads(), hostname=platform.node())


def _stamp(result: dict, load0: tuple) -> dict:
    return dict(result, date=dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                load_before=[round(x, 2) for x in load0], load_after=[round(x, 2) for x in os.getloadavg()],
                machine=machine())


def _save(results: dict) -> None:
    RESULTS.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chapters", nargs="*", default=None, metavar="NN|key",
                    help="also time the chapters (all of notebooks/NN_*.ipynb, or only those named)")
    ap.add_argument("--quick-chapters", action="store_true", help="run the chapters with quick = True")
    ap.add_argument("--only", nargs="+", choices=SECTIONS, default=None, help="run only these sections")
    ap.add_argument("--repeat", type=int, default=3, help="timed repetitions per step case, best kept (default 3)")
    ap.add_argument("--scale", type=float, default=1.0, help="fraction of each step case's steps (default 1)")
    ap.add_argument("--record-ci", nargs=3, metavar=("SECONDS", "COMMIT", "DATE"), default=None,
                    help="record the duration of a fresh-clone .ci/run (see --ci-source)")
    ap.add_argument("--ci-source", default="as reported by the CI service",
                    help="where the --record-ci duration comes from (e.g. 'timed on a fresh local clone, CI=true')")
    ap.add_argument("--record-book", default=None, metavar="TIMINGS_JSON",
                    help="record the book's execution from the --timings file of scripts/execute_chapters.py "
                         "(make book and make test write _build/execution-timings.json), e.g. a fresh-clone "
                         "CI run's on an otherwise idle machine")
    ap.add_argument("--threads", type=int, default=1,
                    help="torch threads (default 1, as the chapters use; the matmul ceiling uses the same)")
    args = ap.parse_args(argv)
    if args.repeat < 1 or args.scale <= 0 or args.threads < 1:
        ap.error("--repeat and --threads must be ≥ 1 and --scale > 0")
    torch.set_num_threads(args.threads)
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    if args.record_ci:
        sec, commit, date = args.record_ci
        results["ci"] = dict(seconds=float(sec), commit=commit, date=date,
                             source=f"duration of `.ci/run` on a fresh clone, {args.ci_source}")
        _save(results)
        report.write_pages(results)
        print(f"recorded CI: {float(sec):.0f} s for {commit}")
        return 0
    if args.record_book:
        doc = json.loads(Path(args.record_book).read_text())
        if doc.get("failed") or not doc.get("chapters"):
            ap.error(f"{args.record_book}: no complete execution to record (failed: {doc.get('failed')})")
        book = others.book_from_timings(doc)
        book.update(date=dt.datetime.fromtimestamp(Path(args.record_book).stat().st_mtime, dt.timezone.utc)
                    .strftime("%Y-%m-%d %H:%M UTC"), load_before=doc.get("load_before", []),
                    load_after=doc.get("load_after", []), machine=machine(), source=str(args.record_book))
        results["book"] = book
        _save(results)
        report.write_pages(results)
        print(f"recorded the book's execution: {book['execution_wall_s']:.0f} s from {args.record_book}")
        return 0
    todo = args.only or list(DEFAULT)
    print(f"lrlib benchmarks: {', '.join(todo)}{' + chapters' if args.chapters is not None else ''}; "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs", flush=True)

    jobs = dict(steps=lambda: steps.run(scale=args.scale, repeat=args.repeat),
                integrator=others.integrator, seeds=others.seeds, book=others.book)
    for name in todo:
        print(f"- {name} ...", flush=True)
        load0 = os.getloadavg()
        results[name] = _stamp(jobs[name](), load0)
        _save(results)
    if args.chapters is not None:
        print("- chapters (papermill) ...", flush=True)
        nbs = others.chapter_notebooks(args.chapters or None)
        if not nbs:
            ap.error(f"no chapter matches {args.chapters}")
        load0, rows = os.getloadavg(), []
        key = "chapters_quick" if args.quick_chapters else "chapters"
        for nb in nbs:                                   # save after each chapter: they take minutes
            rows += others.chapters([nb.stem], quick=args.quick_chapters)["rows"]
            results[key] = _stamp(dict(quick=args.quick_chapters, rows=rows,
                                       total_s=sum(r["wall_s"] for r in rows)), load0)
            _save(results)

    text = report.tables(results)
    print("\n" + text)
    report.write_pages(results)
    print(f"\nwrote {RESULTS.relative_to(ROOT)} and the tables of book/performance.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
