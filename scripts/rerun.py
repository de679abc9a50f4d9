"""``make rerun CHAPTER=<key> SEED=<n> [QUICK=1]``: rerun one chapter with another seed.

A one-run seed sweep (:mod:`lrlib.sweep`): the chapter runs through papermill in its own
folder, with ``seed``, ``quick`` and ``ledger_path`` injected, and its executed notebook and
claims ledger land in ``runs/rerun/<key>/seed<N>.ipynb`` and ``.json`` (a full-size run) or in
``runs/rerun-quick/<key>/`` (``QUICK=1``): a quick run never overwrites a full run's ledger.
"""

from __future__ import annotations

import argparse
import sys

from lrlib import paths, sweep


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chapter", default="")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--quick", default="0")
    a = ap.parse_args(argv)
    chapters = paths.chapters()
    if a.chapter not in chapters:
        print(f"make rerun: give CHAPTER=<key>, one of: {' '.join(chapters)}", file=sys.stderr)
        return 2
    if not a.seed.isdigit():
        print(f"make rerun: SEED must be a whole number >= 0, got '{a.seed}'", file=sys.stderr)
        return 2
    if a.quick not in ("0", "1"):
        print(f"make rerun: QUICK must be 0 or 1, got '{a.quick}'", file=sys.stderr)
        return 2
    out = paths.REPO_ROOT / "runs" / ("rerun-quick" if a.quick == "1" else "rerun")
    agg = sweep.sweep({a.chapter: chapters[a.chapter]}, [int(a.seed)], out, quick=a.quick == "1", workers=1)
    base = out / a.chapter / f"seed{a.seed}"
    if agg["failed"]:
        return 1
    print(f"rerun: executed notebook {base.with_suffix('.ipynb')}, claims ledger {base.with_suffix('.json')}")
    notes = [r["note"] for r in agg["runs"] if r.get("note")]
    if notes and a.seed == "0" and a.quick == "0":   # the book's own run: the book would fail on these
        print("rerun: the book's own run (seed 0, full size) would FAIL: " + "; ".join(notes), file=sys.stderr)
        return 1
    for n in notes:
        print(f"rerun: finding (not enforced at this seed or size): {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
