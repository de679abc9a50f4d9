"""Tests for lrlib.data: checksums, error messages, and the two real-data tasks."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from lrlib import data as D

REPO_DATA = Path(D.__file__).resolve().parent.parent / "data"
SHARED = REPO_DATA.parent.parent / "shared" / "data"
CIFAR_SOURCE = SHARED / "cifar10_airplane_automobile_bird_cat.npz"
MNIST_SOURCE = SHARED / "mnist.npz"


@pytest.fixture(autouse=True)
def _repo_data_dir(monkeypatch):
    """Every test starts from the committed data folder."""
    monkeypatch.setenv("LRLIB_DATA_DIR", str(REPO_DATA))


@pytest.fixture
def tmp_data(tmp_path, monkeypatch):
    """A temporary data folder holding a copy of SHA256SUMS only."""
    shutil.copy(REPO_DATA / "SHA256SUMS", tmp_path / "SHA256SUMS")
    monkeypatch.setenv("LRLIB_DATA_DIR", str(tmp_path))
    return tmp_path


# --- checksums and errors ---------------------------------------------------

@pytest.mark.parametrize("fname", sorted(D.SUBSET_FILES.values()))
def test_committed_files_verify(fname):
    digest = D.verify_file(REPO_DATA / fname)
    assert len(digest) == 64
    assert f"{digest}  {fname}" in (REPO_DATA / "SHA256SUMS").read_text()


def test_data_dir_default_and_env(monkeypatch, tmp_path):
    monkeypatch.delenv("LRLIB_DATA_DIR")
    assert D.data_dir() == REPO_DATA
    monkeypatch.setenv("LRLIB_DATA_DIR", str(tmp_path))
    assert D.data_dir() == tmp_path


def test_missing_file(tmp_data):
    with pytest.raises(D.DataError) as err:
        D.load_subset("mnist")
    msg = str(err.value)
    assert "missing" in msg and "mnist_subset.npz" in msg
    assert "make_subsets.py" in msg and "git checkout" in msg


def test_corrupted_copy(tmp_data):
    target = tmp_data / "mnist_subset.npz"
    raw = bytearray((REPO_DATA / "mnist_subset.npz").read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    target.write_bytes(bytes(raw))
    with pytest.raises(D.DataError) as err:
        D.load_subset("mnist")
    msg = str(err.value)
    assert "Checksum mismatch" in msg and "corrupt" in msg
    assert "git checkout -- data/mnist_subset.npz" in msg


def test_truncated_file(tmp_data):
    target = tmp_data / "cifar4_gray_subset.npz"
    target.write_bytes((REPO_DATA / "cifar4_gray_subset.npz").read_bytes()[:100_000])
    with pytest.raises(D.DataError, match="Checksum mismatch.*git checkout"):
        D.load_subset("cifar4")


def test_unreadable_zip_with_matching_checksum(tmp_data):
    """A truncated file whose checksum was (wrongly) re-listed still fails clearly."""
    target = tmp_data / "mnist_subset.npz"
    target.write_bytes((REPO_DATA / "mnist_subset.npz").read_bytes()[:50_000])
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    (tmp_data / "SHA256SUMS").write_text(f"{digest}  mnist_subset.npz\n")
    with pytest.raises(D.DataError) as err:
        D.load_subset("mnist")
    assert "cannot be read" in str(err.value) and "corrupt" in str(err.value)


def test_unlisted_file(tmp_data):
    shutil.copy(REPO_DATA / "mnist_subset.npz", tmp_data / "mnist_subset.npz")
    (tmp_data / "SHA256SUMS").write_text("")
    with pytest.raises(D.DataError, match="not listed.*make_subsets.py"):
        D.load_subset("mnist")


def test_explicit_expected_sha256():
    with pytest.raises(D.DataError, match="Checksum mismatch"):
        D.verify_file(REPO_DATA / "mnist_subset.npz", expected_sha256="0" * 64)


def test_unknown_subset():
    with pytest.raises(ValueError, match="mnist"):
        D.load_subset("cifar10")


# --- subset contents ----------------------------------------------------------

def test_subset_layout():
    m = D.load_subset("mnist")
    assert m["x"].shape == (12500, 28, 28) and m["x"].dtype == np.uint8
    assert m["index"].dtype == np.int32 and np.all(np.diff(m["index"]) > 0)
    assert dict(zip(*np.unique(m["y"], return_counts=True))) == {d: 2500 for d in (0, 1, 3, 7, 8)}
    c = D.load_subset("cifar4")
    assert c["x"].shape == (5000, 32, 32) and c["x"].dtype == np.uint8
    assert np.all(np.diff(c["index"]) > 0)
    assert np.bincount(c["y"]).tolist() == [1250] * 4
    assert not c["x"].flags.writeable


# --- mnist_pair -----------------------------------------------------------------

def test_mnist_pair_shapes_labels_centering():
    X, y = D.mnist_pair(3, 8, 100)
    assert X.shape == (200, 784) and y.shape == (200,)
    assert X.dtype == torch.float64 and y.dtype == torch.float64
    assert torch.equal(y, torch.cat([torch.ones(100), -torch.ones(100)]).double())
    assert X.mean(0).abs().max() < 1e-12
    Xr, _ = D.mnist_pair(3, 8, 100, center=False, dtype=torch.float32)
    assert Xr.dtype == torch.float32 and Xr.min() >= 0 and Xr.max() <= 1
    assert torch.allclose(Xr.double() - Xr.double().mean(0), X, atol=1e-6)
    m = D.load_subset("mnist")
    first3 = m["x"][m["y"] == 3][0].reshape(-1) / 255.0
    assert np.allclose(Xr[0].numpy(), first3)


def test_mnist_pair_all():
    X, y = D.mnist_pair(1, 7)
    assert X.shape == (5000, 784) and (y == 1).sum() == 2500


@pytest.mark.parametrize("args, match", [
    ((2, 8), "available digits"),
    ((3, 3), "must differ"),
    ((3, 8, 0), "between 1 and 2500"),
    ((3, 8, 2501), "between 1 and 2500"),
    ((3, 8, 1.5), "must be an int"),
])
def test_mnist_pair_bad_args(args, match):
    with pytest.raises(ValueError, match=match):
        D.mnist_pair(*args)


# --- cifar_race -----------------------------------------------------------------

def test_cifar_race_shapes_balance_determinism():
    X, y = D.cifar_race(50, seed=0)
    assert X.shape == (200, 1024) and X.dtype == torch.float32
    assert y.shape == (200,) and y.dtype == torch.int64
    assert X.min() >= 0 and X.max() <= 1
    assert y.bincount().tolist() == [100, 100]
    assert not torch.equal(y[:100], y.sort().values[:100])  # shuffled
    X2, y2 = D.cifar_race(50, seed=0)
    assert torch.equal(X, X2) and torch.equal(y, y2)
    X3, _ = D.cifar_race(50, seed=1)
    assert not torch.equal(X, X3)


def test_cifar_race_labels_match_classes():
    c = D.load_subset("cifar4")
    flat = c["x"].reshape(5000, -1)
    X, y = D.cifar_race(20, seed=3, dtype=torch.float64)
    rows = np.rint(X.numpy() * 255).astype(np.uint8)
    lookup = {r.tobytes(): int(k) for r, k in zip(flat, c["y"])}
    classes = np.array([lookup[r.tobytes()] for r in rows])
    assert np.bincount(classes).tolist() == [20] * 4
    assert np.array_equal(y.numpy(), np.isin(classes, [1, 2]).astype(np.int64))


@pytest.mark.parametrize("kwargs, match", [
    (dict(n_per_class=1251, seed=0), "between 1 and 1250"),
    (dict(n_per_class=0, seed=0), "between 1 and 1250"),
    (dict(n_per_class=10, seed=-1), "non-negative"),
    (dict(n_per_class=10, seed=0, dtype=torch.int64), "floating"),
])
def test_cifar_race_bad_args(kwargs, match):
    with pytest.raises(ValueError, match=match):
        D.cifar_race(**kwargs)


# --- against the full source copies (skipped where ../shared/data is absent) ------

@pytest.mark.skipif(not CIFAR_SOURCE.is_file(), reason="../shared/data not available")
def test_cifar_grayscale_formula_against_source():
    c = D.load_subset("cifar4")
    rng = np.random.default_rng(0)
    rows = rng.choice(5000, size=8, replace=False)
    with np.load(CIFAR_SOURCE) as src:
        x_src, y_src = src["x_train"], src["y_train"]
    for r in rows:
        i = int(c["index"][r])
        assert y_src[i] == c["y"][r]
        for (a, b) in rng.integers(0, 32, size=(4, 2)):
            R, G, B = (int(v) for v in x_src[i, a, b])
            assert c["x"][r, a, b] == (R * 299 + G * 587 + B * 114 + 500) // 1000
    # first 1250 of each class, in source order
    for k in range(4):
        assert np.array_equal(c["index"][c["y"] == k], np.flatnonzero(y_src == k)[:1250])


@pytest.mark.skipif(not MNIST_SOURCE.is_file(), reason="../shared/data not available")
def test_mnist_subset_against_source():
    m = D.load_subset("mnist")
    with np.load(MNIST_SOURCE) as src:
        x_src, y_src = src["x_train"], src["y_train"]
    for d in (0, 1, 3, 7, 8):
        assert np.array_equal(m["index"][m["y"] == d], np.flatnonzero(y_src == d)[:2500])
    assert np.array_equal(m["x"], x_src[m["index"]])
