"""Tests for lrlib.checks: the argument checks shared by train, integrate, models and data."""

import numpy as np
import pytest
import torch

from lrlib import checks
from lrlib.errors import ParameterError
from lrlib.models import balanced_init, generator


@pytest.mark.parametrize("f, good, bad", [
    (checks.positive_int, [1, np.int64(3)], [0, -1, 1.0, True, "2"]),
    (checks.nonneg_int, [0, 5], [-1, 0.5, False]),
    (checks.positive_number, [1e-9, 2], [0, -1.0, float("nan"), float("inf"), True, "1"]),
])
def test_scalar_checks(f, good, bad):
    for v in good:
        f("x", v)
    for v in bad:
        with pytest.raises(ParameterError, match="x must be"):
            f("x", v)


def test_run_arguments():
    p = balanced_init(4, 3, scale=0.1, gen=generator(0))
    X, y = torch.randn(5, 3, dtype=torch.float64), torch.randn(5, dtype=torch.float64)
    checks.run_arguments(p, X, y, lr=0.1, steps=10)
    with pytest.raises(ParameterError, match="features"):
        checks.run_arguments(p, X[:, :2], y, lr=0.1, steps=10)
    with pytest.raises(ParameterError, match="momentum"):
        checks.run_arguments(p, X, y, lr=0.1, steps=10, momentum=1.0)
    with pytest.raises(ParameterError, match="batch_size"):
        checks.run_arguments(p, X, y, lr=0.1, steps=10, batch_size=6)
    with pytest.raises(ParameterError, match="unknown trainable"):
        checks.run_arguments(p, X, y, lr=0.1, steps=10, trainable=("W3",))
    assert checks.point_axis(torch.zeros(2, 5, 3), 5) == -2
