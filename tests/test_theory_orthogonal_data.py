"""Tests for lrlib.synthetic: shapes, dtypes, the bias coordinate, (non-)orthogonality and the
inner products of the synthetic data sets, and their errors."""

from __future__ import annotations

import math

import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.theory.orthogonal.data import (correlated_testbed, nonorthogonal_1d, orthonormal_testbed, relu_teacher,
                             with_bias_coordinate)

F64 = torch.float64


def test_with_bias_coordinate():
    X = with_bias_coordinate([0.5, -2.0, 3.0])
    assert X.shape == (3, 2) and X.dtype == F64
    assert X[:, 0].tolist() == [0.5, -2.0, 3.0] and X[:, 1].tolist() == [1.0, 1.0, 1.0]
    assert with_bias_coordinate(torch.tensor([1.0]), dtype=torch.float32).dtype == torch.float32


def test_orthogonal_toy_points_are_orthogonal_not_unit(toy):
    X, y = toy
    assert X.shape == (2, 2) and y.shape == (2,) and X.dtype == y.dtype == F64
    assert X.tolist() == [[-0.5, 1.0], [2.0, 1.0]] and y.tolist() == [-1.0, 1.0]
    assert float(X[0] @ X[1]) == 0.0
    assert not torch.allclose(X.norm(dim=1), torch.ones(2, dtype=F64))


def test_orthonormal_testbed_is_orthonormal(testbed):
    X, y = testbed
    assert X.shape == (6, 10) and y.shape == (6,)
    assert torch.equal(X @ X.T, torch.eye(6, dtype=F64))
    assert y.tolist() == [1.0, 1.5, 2.0, -1.0, -1.0, -0.5]


def test_orthonormal_testbed_other_sizes_and_error():
    X, y = orthonormal_testbed(y=(1.0, -1.0, 2.0), d=3, dtype=torch.float32)
    assert torch.equal(X, torch.eye(3)) and X.dtype == y.dtype == torch.float32
    with pytest.raises(ParameterError, match="n ≤ d"):
        orthonormal_testbed(y=(1.0,) * 4, d=3)


def test_nonorthogonal_1d():
    X, y = nonorthogonal_1d()
    assert X.shape == (5, 2) and y.shape == (5,)
    assert torch.equal(X[:, 1], torch.ones(5, dtype=F64))
    G = X @ X.T
    assert bool((G - torch.diag(torch.diagonal(G))).abs().max() > 0)      # not orthogonal


@pytest.mark.parametrize("rho", [0.0, 0.2, 0.7])
def test_correlated_testbed_unit_rows_with_equal_inner_products(rho):
    X, y = correlated_testbed(rho=rho)
    assert X.shape == (6, 10) and y.shape == (6,)
    G = X @ X.T
    torch.testing.assert_close(torch.diagonal(G), torch.ones(6, dtype=F64), rtol=0, atol=1e-15)
    off = G[~torch.eye(6, dtype=torch.bool)]
    torch.testing.assert_close(off, torch.full_like(off, rho), rtol=0, atol=1e-15)


def test_correlated_testbed_errors():
    with pytest.raises(ParameterError, match="n < d"):
        correlated_testbed(y=(1.0,) * 10, d=10)
    for rho in (-0.1, 1.0):
        with pytest.raises(ParameterError, match="rho"):
            correlated_testbed(rho=rho)


def test_relu_teacher_shapes_determinism_and_labels():
    X, y = relu_teacher(50, 4, 3, gen=torch.Generator().manual_seed(0))
    assert X.shape == (50, 4) and y.shape == (50,) and X.dtype == y.dtype == F64
    X2, y2 = relu_teacher(50, 4, 3, gen=torch.Generator().manual_seed(0))
    assert torch.equal(X, X2) and torch.equal(y, y2)
    X3, _ = relu_teacher(50, 4, 3, gen=torch.Generator().manual_seed(1))
    assert not torch.equal(X, X3)
    Xf, yf = relu_teacher(50, 4, 3, gen=torch.Generator().manual_seed(0), dtype=torch.float32)
    assert Xf.dtype == yf.dtype == torch.float32
    torch.testing.assert_close(yf, y.float())
    assert math.isfinite(float(y.abs().max())) and float(y.abs().max()) > 0
