#!/usr/bin/env python
"""Build the small real-data subsets that the book ships in ``data/``.

Run from anywhere::

    .venv/bin/python data/make_subsets.py [--source DIR] [--out DIR]

``--source`` defaults to ``../shared/data`` relative to the repository root
(resolved from this script's location, not from the working directory);
``--out`` defaults to the folder holding this script (``data/``).

Steps:

1. verify the SHA-256 of ``mnist.npz`` and
   ``cifar10_airplane_automobile_bird_cat.npz`` against the source
   ``SHA256SUMS``;
2. write ``mnist_subset.npz``: the first 2500 training images (original
   order) of each of the digits 0, 1, 3, 7, 8, sorted by original index;
3. write ``cifar4_gray_subset.npz``: the first 1250 training images of each
   of the classes airplane(0), automobile(1), bird(2), cat(3), converted to
   grayscale with the ITU-R 601-2 luma transform in integer arithmetic,
   ``L = (299 R + 587 G + 114 B + 500) // 1000``, sorted by original index
   (the source is stored class by class, so this is also (class, index)
   order);
4. write ``SHA256SUMS`` for the two subset files and print their sizes.

The archives are written with ``np.savez_compressed`` and are byte-identical
from run to run: ``zipfile.ZipFile.open(name, "w")``, which numpy uses, stamps
each member with the fixed zip epoch 1980-01-01 00:00:00 rather than the
current time, and nothing else in the archive depends on the clock. The script
checks those member dates after writing and stops if a future Python/numpy
starts embedding real timestamps. (The bytes can still differ across zlib
versions; the committed ``SHA256SUMS`` is of the committed files.)
"""

from __future__ import annotations

import argparse
import os
import sys
import zipfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # the repository root: lrlib
from lrlib.data import sha256_of  # noqa: E402  (one checksum function for the data and its tooling)

SCRIPT_DIR = Path(__file__).resolve().parent
REPO_ROOT = SCRIPT_DIR.parent
DEFAULT_SOURCE = (REPO_ROOT / ".." / "shared" / "data").resolve()

MNIST_SOURCE = "mnist.npz"
CIFAR_SOURCE = "cifar10_airplane_automobile_bird_cat.npz"
MNIST_OUT = "mnist_subset.npz"
CIFAR_OUT = "cifar4_gray_subset.npz"

MNIST_DIGITS = (0, 1, 3, 7, 8)
MNIST_PER_DIGIT = 2500
CIFAR_CLASSES = (0, 1, 2, 3)  # airplane, automobile, bird, cat
CIFAR_PER_CLASS = 1250

ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # earliest date a zip header can hold


def read_sums(path: Path) -> dict[str, str]:
    """Parse a ``sha256sum``-style file into {filename: hex digest}."""
    sums: dict[str, str] = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        digest, name = line.split(maxsplit=1)
        sums[name.lstrip("*")] = digest.lower()
    return sums


def verify_sources(source: Path) -> None:
    """Check both source archives against ``source/SHA256SUMS``; exit on failure."""
    sums_path = source / "SHA256SUMS"
    if not sums_path.is_file():
        sys.exit(f"error: {sums_path} not found; pass --source DIR pointing at the "
                 "shared data folder (the one with mnist.npz and SHA256SUMS)")
    sums = read_sums(sums_path)
    for name in (MNIST_SOURCE, CIFAR_SOURCE):
        path = source / name
        if not path.is_file():
            sys.exit(f"error: source file {path} not found; pass --source DIR "
                     "pointing at the shared data folder")
        if name not in sums:
            sys.exit(f"error: {sums_path} has no entry for {name}")
        got = sha256_of(path)
        if got != sums[name]:
            sys.exit(f"error: checksum mismatch for {path}:\n  expected {sums[name]}\n"
                     f"  got      {got}\nThe source copy is damaged or not the one "
                     "this script was written for; do not build subsets from it.")
        print(f"ok  {name}  sha256 {got[:16]}…")


def first_per_class(y: np.ndarray, classes: tuple[int, ...], n: int) -> np.ndarray:
    """Indices of the first ``n`` items of each class in ``y``, sorted ascending."""
    picks = []
    for c in classes:
        idx = np.flatnonzero(y == c)
        if idx.size < n:
            sys.exit(f"error: class {c} has only {idx.size} items, need {n}")
        picks.append(idx[:n])
    return np.sort(np.concatenate(picks))


def luma_601(rgb: np.ndarray) -> np.ndarray:
    """ITU-R 601-2 luma of uint8 RGB (..., 3) -> uint8 (...), integer arithmetic."""
    c = rgb.astype(np.int32)
    gray = (c[..., 0] * 299 + c[..., 1] * 587 + c[..., 2] * 114 + 500) // 1000
    return gray.astype(np.uint8)


def write_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """``np.savez_compressed`` to ``path``, then check it holds no timestamps."""
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez_compressed(tmp, **arrays)
    with zipfile.ZipFile(tmp) as zf:
        dates = {info.date_time for info in zf.infolist()}
    if dates != {ZIP_DATE}:
        tmp.unlink()
        sys.exit(f"error: np.savez_compressed wrote member dates {sorted(dates)}, not "
                 f"the fixed {ZIP_DATE}; the output would not be reproducible. "
                 "Write the zip with zipfile.ZipInfo(..., date_time=ZIP_DATE) instead.")
    os.replace(tmp, path)


def build_mnist(source: Path) -> dict[str, np.ndarray]:
    with np.load(source / MNIST_SOURCE) as d:
        x, y = d["x_train"], d["y_train"]
    idx = first_per_class(y, MNIST_DIGITS, MNIST_PER_DIGIT)
    return {"x": x[idx].astype(np.uint8), "y": y[idx].astype(np.uint8),
            "index": idx.astype(np.int32)}


def build_cifar(source: Path) -> dict[str, np.ndarray]:
    with np.load(source / CIFAR_SOURCE) as d:
        x, y = d["x_train"], d["y_train"]
    idx = first_per_class(y, CIFAR_CLASSES, CIFAR_PER_CLASS)
    return {"x": luma_601(x[idx]), "y": y[idx].astype(np.uint8),
            "index": idx.astype(np.int32)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", type=Path, default=DEFAULT_SOURCE,
                    help=f"folder with the full source archives (default {DEFAULT_SOURCE})")
    ap.add_argument("--out", type=Path, default=SCRIPT_DIR,
                    help=f"folder to write the subsets to (default {SCRIPT_DIR})")
    args = ap.parse_args(argv)
    source, out = args.source.resolve(), args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)

    verify_sources(source)
    outputs = {MNIST_OUT: build_mnist(source), CIFAR_OUT: build_cifar(source)}
    for name, arrays in outputs.items():
        write_npz(out / name, arrays)

    lines = [f"{sha256_of(out / name)}  {name}\n" for name in sorted(outputs)]
    (out / "SHA256SUMS").write_text("".join(lines))

    total = 0
    for name, arrays in outputs.items():
        size = (out / name).stat().st_size
        total += size
        shapes = ", ".join(f"{k} {v.dtype}{v.shape}" for k, v in arrays.items())
        print(f"wrote {name}: {size / 1e6:.2f} MB ({shapes})")
    print(f"wrote SHA256SUMS; subsets total {total / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
