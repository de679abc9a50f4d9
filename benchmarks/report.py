"""Markdown tables from benchmarks/results.json, and their place in book/performance.md.

    .venv/bin/python benchmarks/report.py      # rewrite the page's tables from results.json only
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results.json"
PAGE = ROOT / "book" / "performance.md"
INTRO = ROOT / "book" / "intro.md"
START, END = "<!-- benchmark-results:start -->", "<!-- benchmark-results:end -->"
TIMES_START, TIMES_END = "<!-- chapter-times:start -->", "<!-- chapter-times:end -->"

# the targets of issue 7
T_FLOOR, T_MATMUL, T_EVALS, T_ERR, T_SEEDS = 1.5, 0.5, 10.0, 0.01, 4.0
T_CHAPTER, T_BOOK = 300.0, 900.0          # seconds: no chapter > 5 min, the whole book ≤ 15 min


def _verdict(ok: bool) -> str:
    return "met" if ok else "**missed**"


def _when(sec: dict) -> str:
    m = sec.get("machine", {})
    return (f"*{sec.get('date', '?')}; {m.get('cpu', '?')}, {m.get('cores', '?')} CPUs, torch {m.get('torch', '?')}, "
            f"{m.get('torch_threads', '?')} thread(s); load average (1, 5, 15 min) before "
            f"{tuple(sec.get('load_before', []))}, after {tuple(sec.get('load_after', []))}.*")


def _fmt_t(x: float) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3f}"


def steps_table(sec: dict) -> str:
    rates = sec["matmul_gflops"]
    out = [f"**Time per training step** (`lrlib.train.train`, best of {sec['repeat']}). Matrix-multiply rate of this "
           f"machine (1024×1024 product): {rates['float64']:.1f} GFLOP/s in float64, {rates['float32']:.1f} in float32.",
           "", "| shape | dtype | batch × d → m → k | steps | lrlib µs/step | floor µs/step | lrlib / floor "
           "| lrlib GFLOP/s | % of matmul | target | same loop with autograd: µs/step (/ floor) |",
           "|---|---|---|---:|---:|---:|---:|---:|---:|---|---:|"]
    for r in sec["cases"]:
        if r["key"] in ("small", "medium"):
            target = f"≤ {T_FLOOR}× floor: {_verdict(r['ratio_to_floor'] <= T_FLOOR)}"
        else:
            target = f"≥ {T_MATMUL:.0%} of matmul: {_verdict(r['share_of_matmul'] >= T_MATMUL)}"
        out.append(f"| {r['key']}: {r['label']} | {r['dtype']} | {r['batch']} × {r['d']} → {r['m']} → {r['k']} | "
                   f"{r['steps']:,} | {r['us_per_step']:,.1f} | {r['floor_us_per_step']:,.1f} | "
                   f"{r['ratio_to_floor']:.2f} | {r['gflops']:.2f} | {100 * r['share_of_matmul']:.0f} % | {target} | "
                   + (f"{r['autograd_us_per_step']:,.1f} ({r['autograd_ratio_to_floor']:.2f}) |" if "autograd_us_per_step" in r else "– |"))
    return "\n".join(out + ["", _when(sec)])


def integrator_table(sec: dict) -> str:
    out = ["**Adaptive gradient flow** (`lrlib.integrate`) against GD: phase/jump times, gradient evaluations.",
           "", "| problem | run | phase / jump times τ | grad. evals | wall s | max rel. error vs reference | "
           "GD steps / evals | target |", "|---|---|---|---:|---:|---:|---:|---|"]
    for r in sec["rows"]:
        target = ""
        if r["method"].startswith("flow"):
            ok = r["evals_ratio"] >= T_EVALS and r["max_rel_err"] <= T_ERR
            target = f"≥ {T_EVALS:g}× fewer, ≤ {T_ERR:.0%}: {_verdict(ok)}"
        times = ", ".join(_fmt_t(t) for t in r["times"])
        out.append(f"| {r['problem']} | {r['method']} | {times} | {r['grad_evals']:,} | {r['wall_s']:.2f} | "
                   f"{r['max_rel_err']:.2e} | {r['evals_ratio']:.1f} | {target} |")
    notes = sec.get("notes", {})
    out += ["", *(f"- {k}: {v}" for k, v in notes.items()), "", _when(sec)]
    return "\n".join(out)


def seeds_table(sec: dict) -> str:
    return "\n".join([
        f"**Batched seeds**: {sec['K']} seeds of the {sec['model']}, {sec['steps']:,} steps each.", "",
        "| mode | wall s | run-steps / s |", "|---|---:|---:|",
        f"| {sec['K']} seeds in one batched call | {sec['batched_s']:.2f} | {sec['batched_run_steps_per_s']:,.0f} |",
        f"| {sec['K']} sequential calls | {sec['sequential_s']:.2f} | {sec['sequential_run_steps_per_s']:,.0f} |",
        f"| throughput ratio (target ≥ {T_SEEDS:g}×) | {sec['speedup']:.1f}× | {_verdict(sec['speedup'] >= T_SEEDS)} |",
        "", _when(sec)])


def chapters_table(sec: dict) -> str:
    size = "quick = True (reduced size)" if sec["quick"] else "published settings (quick = False)"
    out = [f"**Chapters** through papermill at {size}, one after another.", "",
           "| chapter | wall s | ran | load before → after (1 min) | target |", "|---|---:|---|---|---|"]
    for r in sec["rows"]:
        out.append(f"| {r['chapter']} | {r['wall_s']:.0f} | {'ok' if r['ok'] else 'FAILED'} | "
                   f"{r['load_before'][0]:.1f} → {r['load_after'][0]:.1f} | "
                   f"≤ {T_CHAPTER:.0f} s: {_verdict(r['wall_s'] <= T_CHAPTER)} |")
    timed = {r["chapter"] for r in sec["rows"]}
    missing = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb") if p.stem not in timed)
    book = "" if missing else f"≤ {T_BOOK:.0f} s: {_verdict(sec['total_s'] <= T_BOOK)}"
    out.append(f"| **sum{' (incomplete)' if missing else ': the whole book'}** | **{sec['total_s']:.0f}** | | | {book} |")
    if missing:
        out += ["", f"Not timed in this run: {', '.join(missing)}."]
    out += ["", _when(sec)]
    return "\n".join(out)


def tables(results: dict) -> str:
    parts = []
    for key, fn in (("steps", steps_table), ("integrator", integrator_table), ("seeds", seeds_table),
                    ("chapters", chapters_table)):
        if key in results:
            parts.append(fn(results[key]))
    return "\n\n".join(parts) if parts else "*No benchmark results yet: run `.venv/bin/python benchmarks/run.py`.*"


def chapter_times(results: dict) -> str:
    """The intro's short table: each chapter's wall time at full size (and the machine)."""
    sec = results.get("chapters")
    if not sec or sec.get("quick"):
        return "*Not measured yet at full size: run `.venv/bin/python benchmarks/run.py --chapters`.*"
    m = sec.get("machine", {})
    rows = ["| chapter | full size, one run |", "|---|---:|"]
    rows += [f"| {r['chapter']} | {r['wall_s'] / 60:.1f} min |" for r in sec["rows"]]
    rows.append(f"| all chapters, one after another | {sec['total_s'] / 60:.1f} min |")
    return "\n".join(rows + ["", f"*Measured {sec.get('date', '?')} on {m.get('cpu', '?')}, {m.get('cores', '?')} CPUs, "
                              f"torch {m.get('torch_threads', '?')} thread(s) per chapter (benchmarks/results.json).*"])


def write_page(text: str, page: Path = PAGE, start: str = START, end: str = END) -> None:
    """Replace what lies between the page's markers with ``text``."""
    src = page.read_text()
    if start not in src or end not in src:
        raise SystemExit(f"{page}: markers {start} … {end} not found")
    head, rest = src.split(start, 1)
    _, tail = rest.split(end, 1)
    page.write_text(f"{head}{start}\n{text}\n{end}{tail}")


def write_pages(results: dict) -> None:
    """The performance page's tables and the intro's chapter times."""
    write_page(tables(results))
    write_page(chapter_times(results), INTRO, TIMES_START, TIMES_END)


if __name__ == "__main__":
    write_pages(json.loads(RESULTS.read_text()))
    sys.exit(0)
