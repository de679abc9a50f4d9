"""Tests for lrlib.theory.synthesis: the cross-paper bridges."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.losses import Loss
from lrlib.models import TwoLayer, forward, generator
from lrlib.theory import alignment as al
from lrlib.theory import race as rc
from lrlib.theory import synthesis as sy

F64 = torch.float64


def _race_net(gen, m=7, D=5, std=0.3):
    p = rc.race_init(m, D, std, gen, dtype=F64)
    return TwoLayer(W1=p.W1, W2=p.W2, b1=0.1 * torch.randn(m, generator=gen, dtype=F64),
                    b2=0.2 * torch.randn(2, generator=gen, dtype=F64))


def test_mid_level_drop_times_on_a_staircase():
    t = np.linspace(0, 10, 1001)
    loss = np.where(t < 3, 1.0, np.where(t < 7, 0.4, 0.0))
    out = sy.mid_level_drop_times(t, loss, np.array([1.0, 0.4, 0.0]))
    np.testing.assert_allclose(out, [3.0, 7.0], atol=0.011)
    assert np.isnan(sy.mid_level_drop_times(t, np.ones_like(t), np.array([1.0, 0.0]))[0])
    with pytest.raises(ParameterError):
        sy.mid_level_drop_times(t, loss, np.array([1.0]))


def test_relative_errors():
    np.testing.assert_allclose(sy.relative_errors([1.1, 1.8], [1.0, 2.0]), [0.1, 0.1])


def test_pm_labels_and_bad_labels():
    assert sy.pm_labels(torch.tensor([0, 1, 1])).tolist() == [-1.0, 1.0, 1.0]
    with pytest.raises(ParameterError):
        sy.pm_labels(torch.tensor([0, 2]))


def test_cross_entropy_is_logistic_loss_of_logit_difference():
    gen = generator(3)
    p = _race_net(gen)
    X = torch.randn(11, 5, generator=gen, dtype=F64)
    y = torch.randint(0, 2, (11,), generator=gen)
    ce = Loss("cross_entropy")(forward(p, X), y)
    z = forward(sy.logit_difference(p), X)[:, 0]
    logistic = torch.nn.functional.softplus(-sy.pm_labels(y) * z).mean()
    assert abs(float(ce - logistic)) < 1e-14
    with pytest.raises(ParameterError):
        sy.logit_difference(TwoLayer(W1=p.W1, W2=p.W2[:1], act="relu"))


def test_race_gamma_equals_its_alignment_form_exactly():
    gen = generator(4)
    p = _race_net(gen)
    X = torch.randn(13, 5, generator=gen, dtype=F64)
    y = torch.randint(0, 2, (13,), generator=gen)
    torch.testing.assert_close(sy.race_gamma_from_alignment(p, X, y), rc.gamma(p, X, y), rtol=1e-12, atol=1e-14)


def test_race_gamma_is_signed_active_sum_at_small_init():
    gen = generator(5)
    p = rc.race_init(9, 4, 1e-6, gen, dtype=F64)
    X = torch.randn(17, 4, generator=gen, dtype=F64)
    y = torch.randint(0, 2, (17,), generator=gen)
    q = sy.logit_difference(p)
    v = q.W2[0]
    xa = al.signed_active_sum(p.W1, X, sy.pm_labels(y))
    expected = (v / torch.linalg.vector_norm(p.W2, dim=0) / (2 * X.shape[0])).unsqueeze(-1) * xa
    torch.testing.assert_close(rc.gamma(p, X, y), expected, rtol=1e-5, atol=1e-12)
