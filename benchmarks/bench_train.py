"""Speed of lrlib.train.train at the sizes chapter 01 (orthogonal) uses.

Not a test (pytest does not collect ``bench_*.py``): run it by hand,

    PYTHONPATH=. .venv/bin/python benchmarks/bench_train.py [--scale 0.1] [--repeat 3] [--threads 1]

It prints a Markdown table (µs per step, steps per second) to stdout and writes no file.
Speed is measured here, never asserted in tests.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere without installing

import torch  # noqa: E402

from lrlib.losses import Loss, half_mse  # noqa: E402
from lrlib.models import balanced_init, generator  # noqa: E402
from lrlib.synthetic import orthogonal_toy, orthonormal_testbed, relu_teacher  # noqa: E402
from lrlib.theory.orthogonal import sweep_init  # noqa: E402
from lrlib.train import train  # noqa: E402


@dataclass
class Case:
    name: str
    n: int
    d: int
    m: int
    runs: int
    steps: int
    make: object  # () -> (p0, X, y, loss, lr)


def _toy():
    X, y = orthogonal_toy()
    p = balanced_init(60, 2, scale=1e-6 / math.sqrt(60), gen=generator(0), runs=(5,))
    return p, X, y, Loss("square", "mean"), 1e-3


def _testbed_sweep():
    X, y = orthonormal_testbed()
    lams = torch.tensor([1e-4, 1e-6, 1e-8, 1e-10, 1e-12], dtype=torch.float64)
    p = sweep_init(50, 10, lams, seeds=5, seed=0)  # runs (5 seeds, 5 λ) = 25, batched
    return p, X, y, half_mse(), 1e-2


def _high_dim():
    X, y = relu_teacher(75, 150, 6, gen=generator(4))
    p = balanced_init(200, 150, scale=1e-20 / math.sqrt(200 * 150), gen=generator(5))
    return p, X, y, Loss("square", "mean"), 1e-2


CASES = [
    Case("toy (Fig. 2)", 2, 2, 60, 5, 20_000, _toy),
    Case("test bed λ-sweep", 6, 10, 50, 25, 5_000, _testbed_sweep),
    Case("high-dim (Figs. 6-7)", 75, 150, 200, 1, 2_000, _high_dim),
]


def bench(case: Case, scale: float, repeat: int) -> tuple[int, float]:
    steps = max(10, int(case.steps * scale))
    p, X, y, loss, lr = case.make()
    train(p, X, y, loss=loss, lr=lr, steps=10, record=2, progress=False)  # warm-up
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        train(p, X, y, loss=loss, lr=lr, steps=steps, record=50, progress=False)
        best = min(best, time.perf_counter() - t0)
    return steps, best


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0, help="fraction of each case's steps (default 1)")
    ap.add_argument("--repeat", type=int, default=1, help="timed repetitions, best kept (default 1)")
    ap.add_argument("--threads", type=int, default=None, help="torch.set_num_threads (default: torch's)")
    args = ap.parse_args(argv)
    if args.scale <= 0 or args.repeat < 1:
        ap.error("--scale must be > 0 and --repeat ≥ 1")
    if args.threads:
        torch.set_num_threads(args.threads)

    print(f"# lrlib.train speed ({time.strftime('%Y-%m-%d %H:%M')})\n")
    print(f"torch {torch.__version__}, {torch.get_num_threads()} thread(s), {os.cpu_count()} CPU(s), "
          f"{platform.processor() or platform.machine()}, Python {platform.python_version()}; "
          f"float64, full-batch GD, autograd, record = 50 snapshots; best of {args.repeat}.\n")
    print("| case | n | d | m | runs | steps | total s | µs/step | steps/s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for c in CASES:
        steps, sec = bench(c, args.scale, args.repeat)
        print(f"| {c.name} | {c.n} | {c.d} | {c.m} | {c.runs} | {steps:,} | {sec:.2f} | "
              f"{1e6 * sec / steps:.1f} | {steps / sec:,.0f} |", flush=True)


if __name__ == "__main__":
    main()
