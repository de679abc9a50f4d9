"""Loading the real data sets that the book ships in ``data/``.

Only real data lives here (synthetic data is generated in code, in each paper's
``lrlib.theory.<paper>.data``). The files are small subsets that
``data/make_subsets.py`` cuts from the full MNIST and CIFAR-10 releases; see
``data/README.md``.

Every load verifies the file's SHA-256 against ``SHA256SUMS`` in the same
folder, so a damaged or stale file fails loudly with a :class:`DataError` that
says how to fix it, instead of silently changing results.

The data folder is ``<repo>/data``; set the environment variable
``LRLIB_DATA_DIR`` to use another folder (it is read at every call, so tests
can point it at a temporary copy).
"""

from __future__ import annotations

import hashlib
import os
import zipfile
from pathlib import Path

import numpy as np
import torch

from .checks import integer
from .errors import LrlibError, ParameterError
from .paths import REPO_ROOT

__all__ = [
    "DATA_DIR",
    "DataError",
    "SUBSET_FILES",
    "cifar_race",
    "data_dir",
    "load_subset",
    "mnist_pair",
    "sha256_of",
    "verify_file",
]

DATA_DIR: Path = Path(
    os.environ.get("LRLIB_DATA_DIR") or REPO_ROOT / "data"
)
"""The data folder at import time: ``$LRLIB_DATA_DIR`` if set, else ``<repo>/data``."""

SUBSET_FILES: dict[str, str] = {
    "mnist": "mnist_subset.npz",
    "cifar4": "cifar4_gray_subset.npz",
}
"""Subset name -> file name inside the data folder."""

SUMS_FILE = "SHA256SUMS"
REGENERATE = "run `python data/make_subsets.py` from the repository root to regenerate it"

# CIFAR-10 class index -> class of the race paper's binary task.
CIFAR_NAMES = ("airplane", "automobile", "bird", "cat")
RACE_LABEL = np.array([0, 1, 1, 0], dtype=np.int64)  # airplane, cat -> 0; automobile, bird -> 1
CIFAR_PER_CLASS = 1250

_cache: dict[tuple[str, str], dict[str, np.ndarray]] = {}


class DataError(LrlibError):
    """A data file is missing, unlisted, corrupt or unreadable.

    The message always says what to do about it.
    """


def data_dir() -> Path:
    """The data folder now: ``$LRLIB_DATA_DIR`` if set, else ``<repo>/data``."""
    env = os.environ.get("LRLIB_DATA_DIR")
    return Path(env) if env else REPO_ROOT / "data"


def sha256_of(path: str | os.PathLike[str]) -> str:
    """Hex SHA-256 of a file's bytes (read in 1 MiB blocks).

    Parameters
    ----------
    path : str or os.PathLike
        The file.

    Returns
    -------
    str
        The hex digest.
    """
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _restore_hint(path: Path) -> str:
    return (f"restore it with `git checkout -- data/{path.name}`, or {REGENERATE} "
            "(needs the full MNIST and CIFAR-10 files: data/README.md)")


def _expected_sha256(path: Path) -> str:
    sums_path = path.parent / SUMS_FILE
    if not sums_path.is_file():
        raise DataError(
            f"No checksum list {sums_path} next to {path.name}: restore it with "
            f"`git checkout -- data/{SUMS_FILE}`, or {REGENERATE}."
        )
    for line in sums_path.read_text().splitlines():
        parts = line.split(maxsplit=1)
        if len(parts) == 2 and parts[1].strip().lstrip("*") == path.name:
            return parts[0].lower()
    raise DataError(
        f"{path.name} is not listed in {sums_path}, so it cannot be verified: "
        f"{REGENERATE} (it rewrites {SUMS_FILE}), or pass expected_sha256."
    )


def verify_file(path: str | os.PathLike[str], expected_sha256: str | None = None) -> str:
    """Check that ``path`` exists and has the expected SHA-256.

    Parameters
    ----------
    path : str or os.PathLike
        The file to check.
    expected_sha256 : str or None
        Hex digest to compare with; ``None``: the entry for the file's name in
        ``SHA256SUMS`` in the file's own folder.

    Returns
    -------
    str
        The file's hex SHA-256 digest.

    Raises
    ------
    DataError
        The file is missing, not listed in ``SHA256SUMS`` (or that list is missing),
        or its checksum does not match.
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(f"Data file {path} is missing: {_restore_hint(path)}.")
    expected = expected_sha256.lower() if expected_sha256 else _expected_sha256(path)
    actual = sha256_of(path)
    if actual != expected:
        raise DataError(
            f"Checksum mismatch for {path}: expected sha256 {expected}, got {actual}. "
            f"The file is corrupt or was modified: {_restore_hint(path)}."
        )
    return actual


def load_subset(name: str) -> dict[str, np.ndarray]:
    """Verify and load one of the shipped subsets.

    Parameters
    ----------
    name : str
        ``"mnist"`` (``mnist_subset.npz``) or ``"cifar4"`` (``cifar4_gray_subset.npz``).

    Returns
    -------
    dict of str to np.ndarray
        A new dict of read-only arrays (cached in memory per path and checksum):

        - ``"mnist"``: ``x`` uint8 (12500, 28, 28) pixel intensities 0–255;
          ``y`` uint8 (12500,) digit in {0, 1, 3, 7, 8}; ``index`` int32
          (12500,) index into the original MNIST training set. 2500 per digit,
          the first in the original order, sorted by ``index``.
        - ``"cifar4"``: ``x`` uint8 (5000, 32, 32) grayscale (ITU-R 601-2 luma)
          0–255; ``y`` uint8 (5000,) CIFAR-10 class 0 airplane, 1 automobile,
          2 bird, 3 cat; ``index`` int32 (5000,) index into the source's
          training arrays. 1250 per class, sorted by ``index`` (which is also
          class-major order).

    Raises
    ------
    ParameterError
        Unknown ``name`` (a ``ValueError``).
    DataError
        The file is missing, fails its checksum, or cannot be read.
    """
    if name not in SUBSET_FILES:
        raise ParameterError(f"unknown subset {name!r}; choose one of {sorted(SUBSET_FILES)}")
    path = (data_dir() / SUBSET_FILES[name]).resolve()
    sha = verify_file(path)
    key = (str(path), sha)
    if key not in _cache:
        try:
            with np.load(path, allow_pickle=False) as npz:
                arrays = {k: npz[k] for k in npz.files}
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, KeyError) as exc:
            raise DataError(
                f"{path} cannot be read as an .npz archive ({type(exc).__name__}: {exc}). "
                f"The file is corrupt: {_restore_hint(path)}."
            ) from exc
        missing = {"x", "y", "index"} - arrays.keys()
        if missing:
            raise DataError(
                f"{path} lacks the arrays {sorted(missing)}: it is not a subset built by "
                f"data/make_subsets.py; {REGENERATE}."
            )
        for a in arrays.values():
            a.setflags(write=False)
        _cache[key] = arrays
    return dict(_cache[key])


def mnist_pair(
    pos_digit: int,
    neg_digit: int,
    n_per_class: int | None = None,
    *,
    center: bool = True,
    dtype: torch.dtype = torch.float64,
) -> tuple[torch.Tensor, torch.Tensor]:
    """A binary MNIST task from the shipped subset (digits 0, 1, 3, 7, 8).

    Takes the first ``n_per_class`` images of each digit (in original MNIST
    order); positives come first, then negatives.

    Parameters
    ----------
    pos_digit : int
        Digit labelled +1.
    neg_digit : int
        Digit labelled -1 (must differ from ``pos_digit``).
    n_per_class : int or None
        Images per digit, 1..2500; ``None`` takes all 2500.
    center : bool
        Subtract the mean image of the selected images (computed in float64), so every
        pixel column has mean 0.
    dtype : torch.dtype
        Floating dtype of both returned tensors.

    Returns
    -------
    X : Tensor
        ``(2 * n_per_class, 784)``: pixel intensities scaled to [0, 1] (row-major flattening
        of the 28x28 image), centred if ``center``.
    y : Tensor
        ``(2 * n_per_class,)``: +1.0 for ``pos_digit``, -1.0 for ``neg_digit``, in ``dtype``.

    Raises
    ------
    ParameterError
        A digit is not in the subset, the digits are equal, ``n_per_class`` is out of
        range, or ``dtype`` is not floating (a ``ValueError``).
    DataError
        The subset file is missing or corrupt.
    """
    pos_digit = integer("pos_digit", pos_digit)
    neg_digit = integer("neg_digit", neg_digit)
    if not (isinstance(dtype, torch.dtype) and dtype.is_floating_point):
        raise ParameterError(f"dtype must be a floating torch dtype, got {dtype!r}")
    d = load_subset("mnist")
    x, y = d["x"], d["y"]
    available = sorted(int(v) for v in np.unique(y))
    for label, digit in (("pos_digit", pos_digit), ("neg_digit", neg_digit)):
        if digit not in available:
            raise ParameterError(f"{label}={digit} is not in the MNIST subset; "
                             f"available digits: {available}")
    if pos_digit == neg_digit:
        raise ParameterError(f"pos_digit and neg_digit must differ, both are {pos_digit}")
    pos_idx = np.flatnonzero(y == pos_digit)
    neg_idx = np.flatnonzero(y == neg_digit)
    n_max = min(pos_idx.size, neg_idx.size)
    if n_per_class is None:
        n = n_max
    else:
        n = integer("n_per_class", n_per_class)
        if not 1 <= n <= n_max:
            raise ParameterError(f"n_per_class must be between 1 and {n_max} "
                             f"(or None for all {n_max}), got {n}")
    sel = np.concatenate([pos_idx[:n], neg_idx[:n]])
    X = x[sel].reshape(2 * n, 28 * 28).astype(np.float64) / 255.0
    if center:
        X -= X.mean(axis=0, keepdims=True)
    labels = np.concatenate([np.ones(n), -np.ones(n)])
    return torch.from_numpy(X).to(dtype), torch.from_numpy(labels).to(dtype)


def cifar_race(
    n_per_class: int,
    seed: int,
    *,
    dtype: torch.dtype = torch.float32,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The race paper's binary CIFAR task, grayscale, from the shipped subset.

    Class 0 = airplane + cat, class 1 = automobile + bird. Draws
    ``n_per_class`` images of *each* of the four original classes at random
    without replacement (so ``N = 4 * n_per_class``, balanced 2:2 between the
    binary classes), then shuffles the order, all with one
    ``np.random.default_rng(seed)``: the same ``seed`` gives the same data.

    Parameters
    ----------
    n_per_class : int
        Images per original CIFAR class, 1..1250.
    seed : int
        Non-negative seed for ``np.random.default_rng``.
    dtype : torch.dtype
        Floating dtype of ``X``.

    Returns
    -------
    X : Tensor
        ``(N, 1024)``: grayscale intensities in [0, 1] (ITU-R 601-2 luma / 255), each 32x32
        image flattened row-major, not centred.
    y : Tensor
        ``(N,)``, int64 in {0, 1}.

    Raises
    ------
    ParameterError
        ``n_per_class`` out of range, bad ``seed`` or ``dtype`` (a ``ValueError``).
    DataError
        The subset file is missing or corrupt.
    """
    n = integer("n_per_class", n_per_class)
    if not 1 <= n <= CIFAR_PER_CLASS:
        raise ParameterError(f"n_per_class must be between 1 and {CIFAR_PER_CLASS} "
                         f"(images per original class in the subset), got {n}")
    seed = integer("seed", seed)
    if seed < 0:
        raise ParameterError(f"seed must be a non-negative int, got {seed}")
    if not (isinstance(dtype, torch.dtype) and dtype.is_floating_point):
        raise ParameterError(f"dtype must be a floating torch dtype, got {dtype!r}")
    d = load_subset("cifar4")
    x, y = d["x"], d["y"]
    rng = np.random.default_rng(seed)
    picks = []
    for c in range(len(CIFAR_NAMES)):
        idx = np.flatnonzero(y == c)
        if idx.size < n:
            raise DataError(f"the cifar4 subset holds only {idx.size} images of class "
                            f"{CIFAR_NAMES[c]}, expected {CIFAR_PER_CLASS}; {REGENERATE}.")
        picks.append(rng.choice(idx, size=n, replace=False))
    sel = np.concatenate(picks)[rng.permutation(4 * n)]
    X = x[sel].reshape(4 * n, 32 * 32).astype(np.float64) / 255.0
    labels = RACE_LABEL[y[sel]]
    return torch.from_numpy(X).to(dtype), torch.from_numpy(labels)
