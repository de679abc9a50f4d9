"""Shared set-up of the unit tests.

* One torch thread for the whole session (the tests are small; several threads only add
  scheduling noise, and CI has two cores).
* torch's default dtype stays float32: every test that needs float64 says so
  (``dtype=torch.float64``), so a test cannot pass only because another one changed the default.
* The chapter's two orthogonal data sets as fixtures (``toy``, ``testbed``), used by the
  orthogonal theory tests and the synthetic data tests.
* ``close_figures``: closes every matplotlib figure after a test (figure test modules take it with
  ``pytestmark = pytest.mark.usefixtures("close_figures")``).
"""

from __future__ import annotations

import pytest
import torch

from lrlib.theory.orthogonal.data import orthogonal_toy, orthonormal_testbed


def pytest_configure(config):
    # before collection: some test modules build their data at import time
    torch.set_num_threads(1)


@pytest.fixture(scope="session", autouse=True)
def _one_thread_float32_default():
    torch.set_num_threads(1)
    torch.set_default_dtype(torch.float32)
    yield


@pytest.fixture(autouse=True)
def _default_dtype_unchanged():
    """A test that changes torch's default dtype fails (and the default is put back)."""
    yield
    changed = torch.get_default_dtype()
    if changed != torch.float32:
        torch.set_default_dtype(torch.float32)
        pytest.fail(f"the test changed torch's default dtype to {changed}")


@pytest.fixture
def close_figures():
    """Close every matplotlib figure once the test is done."""
    yield
    import matplotlib.pyplot as plt
    plt.close("all")


@pytest.fixture
def testbed():
    """Orthonormal test bed of the orthogonal chapter: ``(X, y)`` in float64."""
    return orthonormal_testbed()


@pytest.fixture
def toy():
    """The orthogonal chapter's two-point toy: ``(X, y)`` in float64."""
    return orthogonal_toy()
