"""Markdown tables from benchmarks/results.json, and their place in book/performance.md.

    .venv/bin/python benchmarks/report.py      # rewrite the page's tables from results.json only
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

from lrlib.paths import REPO_ROOT as ROOT
from lrlib.paths import chapters
RESULTS = ROOT / "benchmarks" / "results.json"
PAGE = ROOT / "book" / "performance.md"
INTRO = ROOT / "book" / "intro.md"
START, END = "<!-- benchmark-results:start -->", "<!-- benchmark-results:end -->"
TIMES_START, TIMES_END = "<!-- chapter-times:start -->", "<!-- chapter-times:end -->"

# the targets ("Performance at full fidelity")
T_SPEEDUP = 2.0            # small shapes: lrlib at least 2× faster per step than the hand-written torch floor
T_MATMUL = 0.6             # large shapes: at least 60 % of the machine's matmul rate
T_EVALS, T_ERR = 10.0, 0.01  # the flow integrator: ≥ 10× fewer gradient evaluations at ≤ 1 % phase-time error
T_SEEDS = 4.0              # batched seeds: ≥ 4× the throughput of sequential runs
T_BOOK = 720.0             # seconds: the whole book executed on 2 cores
T_CI = 1800.0              # seconds: a fresh-clone .ci/run
T_RERUN, T_RERUN_QUICK = 180.0, 45.0   # seconds: one chapter rerun at full / reduced size
SMALL = ("toy", "small")   # the dispatch-bound step cases
LARGE = ("cifar", "mnist")   # the large shapes as the book runs them (race: one seed at a time)


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
    probe = sec.get("dispatch")
    probe_txt = (f" Dispatch probe (one tiny operation): {probe['torch_op_us']:.2f} µs per torch call, "
                 f"{probe['numpy_op_us']:.2f} µs per numpy call." if probe else "")
    out = [f"**Time per training step** (`lrlib.train.train`, best of {sec['repeat']}). Matrix-multiply rate of this "
           f"machine (1024×1024 product): {rates['float64']:.1f} GFLOP/s in float64, {rates['float32']:.1f} in float32."
           + probe_txt,
           "", "| shape | dtype | batch × d → m → k | steps | lrlib µs/step | floor µs/step | lrlib / floor "
           "| lrlib GFLOP/s | % of matmul | target | same loop with autograd: µs/step (/ floor) |",
           "|---|---|---|---:|---:|---:|---:|---:|---:|---|---:|"]
    for r in sec["cases"]:
        if r["key"] in SMALL:
            target = f"≥ {T_SPEEDUP:g}× faster than the floor: {_verdict(r['ratio_to_floor'] <= 1 / T_SPEEDUP)}"
        elif r["key"] in LARGE:
            target = f"≥ {T_MATMUL:.0%} of matmul: {_verdict(r['share_of_matmul'] >= T_MATMUL)}"
        elif r["key"] == "cifar-book":
            target = "(five seeds batched: the race chapter's former way; judged on cifar)"
        else:
            target = "(no target)"
        floor = (f"{r['floor_us_per_step']:,.1f} | {r['ratio_to_floor']:.2f}" if "floor_us_per_step" in r
                 else "– (one run only) | –")
        runs = f"{r['runs']} × " if r.get("runs", 1) > 1 else ""
        out.append(f"| {r['key']}: {r['label']} | {r['dtype']} | {runs}{r['batch']} × {r['d']} → {r['m']} → {r['k']} | "
                   f"{r['steps']:,} | {r['us_per_step']:,.1f} | {floor} | "
                   f"{r['gflops']:.2f} | {100 * r['share_of_matmul']:.0f} % | {target} | "
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
    T_CHAPTER = T_RERUN_QUICK if sec["quick"] else T_RERUN
    out = [f"**Chapter reruns** (what `make rerun CHAPTER=… {'QUICK=1' if sec['quick'] else ''}` runs: papermill) "
           f"at {size}, one after another.", "",
           "| chapter | wall s | ran | load before → after (1 min) | target |", "|---|---:|---|---|---|"]
    for r in sec["rows"]:
        out.append(f"| {r['chapter']} | {r['wall_s']:.0f} | {'ok' if r['ok'] else 'FAILED'} | "
                   f"{r['load_before'][0]:.1f} → {r['load_after'][0]:.1f} | "
                   f"≤ {T_CHAPTER:.0f} s: {_verdict(r['wall_s'] <= T_CHAPTER)} |")
    timed = {r["chapter"] for r in sec["rows"]}
    missing = sorted(p.stem for p in chapters().values() if p.stem not in timed)
    out.append(f"| **sum{' (incomplete)' if missing else ''}** | **{sec['total_s']:.0f}** | | | |")
    if missing:
        out += ["", f"Not timed in this run: {', '.join(missing)}."]
    out += ["", _when(sec)]
    return "\n".join(out)


def book_table(sec: dict) -> str:
    out = [f"**The book's execution** as `make book` runs it from an empty `_build/` (`scripts/execute_chapters.py`, "
           f"{sec['jobs']} chapters at once, one thread each): {sec['wall_s']:.0f} s wall "
           f"(target ≤ {T_BOOK:.0f} s: {_verdict(sec['wall_s'] <= T_BOOK)}), {sec['cpu_s']:.0f} s of chapter time."
           + (f" **Failed: {', '.join(sec['failed'])}.**" if sec.get("failed") else ""), "",
           "| chapter | s | where the time goes (s per section, largest first) |", "|---|---:|---|"]
    for r in sec["rows"]:
        parts = sorted(r["sections"].items(), key=lambda kv: -kv[1])
        where = "; ".join(f"{k} {v:.0f}" for k, v in parts if v >= 1)
        out.append(f"| {r['chapter']} | {r['seconds']:.0f} | {where} |")
    return "\n".join(out + ["", _when(sec)])


def ci_table(sec: dict) -> str:
    return (f"**Fresh-clone CI** (`.ci/run`, 2 cores): {sec['seconds']:.0f} s for commit {sec['commit']} "
            f"({sec['source']}, {sec.get('date', '?')}); target ≤ {T_CI:.0f} s: {_verdict(sec['seconds'] <= T_CI)}.")


def _measure(results: dict) -> list[tuple[str, str, str, bool | None]]:
    """(measure, target, measured, met) for each target; met is None when not measured."""
    rows = []
    b = results.get("book")
    rows.append(("whole book executed, 2 cores", f"≤ {T_BOOK / 60:.0f} min",
                 f"{b['wall_s'] / 60:.1f} min" if b else "not measured", b["wall_s"] <= T_BOOK if b else None))
    c = results.get("ci")
    rows.append(("fresh-clone `.ci/run`", f"≤ {T_CI / 60:.0f} min", f"{c['seconds'] / 60:.1f} min" if c else "not measured",
                 c["seconds"] <= T_CI if c else None))
    full = results.get("chapters")
    if b and (not full or full.get("date", "") < b.get("date", "")):   # the newer measurement of a full-size run
        worst = max(b["rows"], key=lambda r: r["seconds"])
        rows.append(("one chapter rerun, full size", f"≤ {T_RERUN / 60:.0f} min each",
                     f"slowest {worst['chapter']}: {worst['seconds'] / 60:.1f} min (in the book's execution)",
                     worst["seconds"] <= T_RERUN))
    elif full:
        worst = max(full["rows"], key=lambda r: r["wall_s"])
        rows.append(("one chapter rerun, full size", f"≤ {T_RERUN / 60:.0f} min each",
                     f"slowest {worst['chapter']}: {worst['wall_s'] / 60:.1f} min", worst["wall_s"] <= T_RERUN))
    q = results.get("chapters_quick")
    worst_q = max(q["rows"], key=lambda r: r["wall_s"]) if q else None
    rows.append(("one chapter rerun, reduced size", f"≤ {T_RERUN_QUICK:.0f} s each",
                 f"slowest {worst_q['chapter']}: {worst_q['wall_s']:.0f} s" if q else "not measured",
                 worst_q["wall_s"] <= T_RERUN_QUICK if q else None))
    st = results.get("steps")
    if st:
        for r in st["cases"]:
            if r["key"] in SMALL:
                rows.append((f"small shapes ({r['key']}): time per step", f"≥ {T_SPEEDUP:g}× faster than the floor",
                             f"{1 / r['ratio_to_floor']:.1f}× ({r['us_per_step']:.0f} vs {r['floor_us_per_step']:.0f} µs)",
                             r["ratio_to_floor"] <= 1 / T_SPEEDUP))
            elif r["key"] in LARGE:
                rows.append((f"large shapes ({r['key']})", f"≥ {T_MATMUL:.0%} of matmul",
                             f"{r['share_of_matmul']:.0%}", r["share_of_matmul"] >= T_MATMUL))
    it = results.get("integrator")
    if it:
        for prob in dict.fromkeys(r["problem"] for r in it["rows"]):
            flows = [r for r in it["rows"] if r["problem"] == prob and r["method"].startswith("flow")]
            best = max(flows, key=lambda r: r["evals_ratio"] if r["max_rel_err"] <= T_ERR else -1)
            ok = best["evals_ratio"] >= T_EVALS and best["max_rel_err"] <= T_ERR
            rows.append((f"flow integrator vs GD ({prob})", f"≥ {T_EVALS:g}× fewer evaluations at ≤ {T_ERR:.0%} error",
                         f"{best['evals_ratio']:.0f}× at {best['max_rel_err']:.1e}", ok))
    return rows


def targets_table(results: dict) -> str:
    out = ["**Targets**", "", "| measure | target | measured | |", "|---|---|---|---|"]
    for what, target, got, ok in _measure(results):
        out.append(f"| {what} | {target} | {got} | {'not measured' if ok is None else _verdict(ok)} |")
    return "\n".join(out)


def tables(results: dict) -> str:
    parts = [targets_table(results)] if results else []
    for key, fn in (("book", book_table), ("ci", ci_table), ("steps", steps_table), ("integrator", integrator_table),
                    ("seeds", seeds_table), ("chapters", chapters_table), ("chapters_quick", chapters_table)):
        if key in results:
            parts.append(fn(results[key]))
    return "\n\n".join(parts) if parts else "*No benchmark results yet: run `.venv/bin/python benchmarks/run.py`.*"


def chapter_times(results: dict) -> str:
    """The intro's short table: each chapter's execution time at full size in the book's build."""
    sec = results.get("book")
    if not sec:
        return "*Not measured yet: run `.venv/bin/python benchmarks/run.py --only book`.*"
    m = sec.get("machine", {})
    rows = ["| chapter | full size, one run |", "|---|---:|"]
    rows += [f"| {r['chapter']} | {r['seconds'] / 60:.1f} min |" for r in sec["rows"]]
    rows.append(f"| the whole book, {sec['jobs']} chapters at once | {sec['wall_s'] / 60:.1f} min |")
    return "\n".join(rows + ["", f"*Measured {sec.get('date', '?')} on {m.get('cpu', '?')}, {m.get('cores', '?')} CPUs, "
                              f"one torch thread per chapter (benchmarks/results.json).*"])


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
