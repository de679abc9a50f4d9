"""Tests for lrlib.schedules: the record schedules (endpoints, order, density, errors) and a run's
``record=`` argument made into steps."""

from __future__ import annotations

import numpy as np
import pytest

from lrlib.errors import ParameterError
from lrlib.schedules import linear_schedule, log_schedule, record_steps


@pytest.mark.parametrize("steps,num", [(0, 2), (1, 2), (10, 200), (1000, 50), (123_457, 200), (5, 3)])
def test_log_schedule(steps, num):
    s = log_schedule(steps, num)
    assert s.dtype == np.int64
    assert s[0] == 0 and s[-1] == steps
    assert np.all(np.diff(s) > 0)
    assert len(s) <= num + 2


def test_log_schedule_is_dense_early_and_geometric_late():
    s = log_schedule(100_000, 200)
    assert set(range(0, 11)) <= set(s.tolist())
    ratios = s[-20:][1:] / s[-20:][:-1]
    assert np.allclose(ratios, (100_000) ** (1 / 199), rtol=0.02)


def test_linear_schedule():
    assert linear_schedule(10, 4).tolist() == [0, 4, 8, 10]
    assert linear_schedule(8, 4).tolist() == [0, 4, 8]
    with pytest.raises(ParameterError):
        linear_schedule(10, 0)
    with pytest.raises(ParameterError):
        log_schedule(10, 1)
    with pytest.raises(ParameterError):
        log_schedule(-1, 10)


@pytest.mark.parametrize("steps,every", [(0, 1), (1, 1), (10, 3), (10, 10), (10, 25), (1000, 7)])
def test_linear_schedule_endpoints_and_spacing(steps, every):
    s = linear_schedule(steps, every)
    assert s[0] == 0 and s[-1] == steps
    assert np.all(np.diff(s) > 0)
    assert np.all(np.diff(s)[:-1] == every)               # evenly spaced but for the last gap
    if steps > 0:
        assert 0 < s[-1] - s[-2] <= every


def test_log_schedule_of_zero_steps_is_the_initialisation():
    assert log_schedule(0, 50).tolist() == [0]
    assert linear_schedule(0, 4).tolist() == [0]


def test_record_steps_from_a_count_or_explicit_steps():
    assert record_steps([5, 0, 5], 10).tolist() == [0, 5]
    assert record_steps(3, 100)[[0, -1]].tolist() == [0, 100]
    assert record_steps(50, 1000).tolist() == log_schedule(1000, 50).tolist()
    with pytest.raises(ParameterError, match=r"record steps must lie in \[0, 10\]"):
        record_steps([11], 10)
