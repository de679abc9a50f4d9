"""Tests for lrlib.models: forward pass against a hand-written loop, per-neuron
views, the initialisations and their error messages."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.models import (
    TwoLayer,
    activation,
    agf_init,
    cat_runs,
    balanced_init,
    forward,
    gaussian_init,
    generator,
    preactivations,
    random_signs,
)

F64 = torch.float64

SIGMA = {
    "relu": lambda u: u if u > 0 else 0.0,
    "linear": lambda u: u,
    "square": lambda u: u * u,
}


def _ref_single(W1, W2, b1, b2, act, X):
    """f(x_i) = Σ_j W2[:, j] σ(⟨w_j, x_i⟩ + b1_j) + b2, one neuron at a time (numpy, float64)."""
    n, d = X.shape
    k, m = W2.shape
    out = np.zeros((n, k))
    for i in range(n):
        for j in range(m):
            u = sum(W1[j, l] * X[i, l] for l in range(d))
            if b1 is not None:
                u += b1[j]
            out[i] += W2[:, j] * SIGMA[act](u)
        if b2 is not None:
            out[i] += b2
    return out


def _ref_forward(p: TwoLayer, X: torch.Tensor) -> np.ndarray:
    runs = p.runs
    W1, W2 = p.W1.numpy(), p.W2.numpy()
    b1 = None if p.b1 is None else p.b1.numpy()
    b2 = None if p.b2 is None else p.b2.numpy()
    Xn = X.numpy()
    per_run_X = Xn.ndim > 2
    out = np.zeros((*runs, Xn.shape[-2], p.out_dim))
    for r in np.ndindex(*runs) if runs else [()]:
        out[r] = _ref_single(W1[r], W2[r], None if b1 is None else b1[r], None if b2 is None else b2[r],
                             p.act, Xn[r] if per_run_X else Xn)
    return out


def _net(runs, m, d, k, bias_in, bias_out, act, seed=0):
    return gaussian_init(m, d, k, std_in=0.9, std_out=0.7, gen=generator(seed), bias_in=bias_in,
                         bias_out=bias_out, runs=runs, act=act)


@pytest.mark.parametrize("act", ["relu", "linear", "square"])
@pytest.mark.parametrize("bias_in,bias_out", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("k", [1, 3])
@pytest.mark.parametrize("runs", [(), (2,), (2, 3)])
def test_forward_matches_loop_shared_X(act, bias_in, bias_out, k, runs):
    m, d, n = 5, 3, 4
    p = _net(runs, m, d, k, bias_in, bias_out, act)
    X = torch.randn(n, d, generator=generator(1), dtype=F64)
    out = forward(p, X)
    assert out.shape == (*runs, n, k)
    np.testing.assert_allclose(out.numpy(), _ref_forward(p, X), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("act", ["relu", "linear", "square"])
@pytest.mark.parametrize("runs", [(2,), (2, 3)])
@pytest.mark.parametrize("k", [1, 2])
def test_forward_matches_loop_per_run_X(act, runs, k):
    m, d, n = 4, 3, 5
    p = _net(runs, m, d, k, True, True, act)
    X = torch.randn(*runs, n, d, generator=generator(2), dtype=F64)
    out = forward(p, X)
    assert out.shape == (*runs, n, k)
    np.testing.assert_allclose(out.numpy(), _ref_forward(p, X), rtol=1e-12, atol=1e-12)
    # each run really sees its own data: differs from using run 0's data everywhere
    X0 = X[(0,) * len(runs)]
    assert not torch.allclose(out, forward(p, X0))


def test_forward_relu_kills_negative_preactivations():
    # one neuron, w = (1, -1), a = 2: f(x) = 2 relu(x1 - x2)
    p = TwoLayer(W1=torch.tensor([[1.0, -1.0]], dtype=F64), W2=torch.tensor([[2.0]], dtype=F64))
    X = torch.tensor([[3.0, 1.0], [1.0, 3.0], [2.0, 2.0]], dtype=F64)
    assert forward(p, X)[:, 0].tolist() == [4.0, 0.0, 0.0]


@pytest.mark.parametrize("runs", [(), (3,)])
def test_preactivations(runs):
    p = _net(runs, 4, 3, 1, True, False, "relu")
    X = torch.randn(6, 3, generator=generator(3), dtype=F64)
    pre = preactivations(p, X)
    assert pre.shape == (*runs, 6, 4)
    ref = np.einsum("...md,nd->...nm", p.W1.numpy(), X.numpy()) + p.b1.numpy()[..., None, :]
    np.testing.assert_allclose(pre.numpy(), ref, rtol=1e-13, atol=1e-13)


# ---------------------------------------------------------------------------
# structure and per-neuron views
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("runs", [(), (2,), (2, 3)])
def test_structure_properties(runs):
    p = _net(runs, 7, 4, 3, True, True, "relu")
    assert (p.width, p.in_dim, p.out_dim, p.runs) == (7, 4, 3, runs)
    assert list(p.tensors()) == ["W1", "W2", "b1", "b2"]
    q = _net(runs, 7, 4, 1, False, False, "relu")
    assert list(q.tensors()) == ["W1", "W2"]
    assert len(list(q)) == 2


@pytest.mark.parametrize("runs", [(), (2,)])
@pytest.mark.parametrize("k", [1, 3])
def test_per_neuron_views(runs, k):
    m, d = 5, 3
    p = _net(runs, m, d, k, True, True, "relu")
    W1, W2, b1 = p.W1.numpy(), p.W2.numpy(), p.b1.numpy()
    inc, out = p.incoming().numpy(), p.outgoing().numpy()
    assert inc.shape == (*runs, m, d + 1) and out.shape == (*runs, m, k)
    for r in np.ndindex(*runs) if runs else [()]:
        for j in range(m):
            np.testing.assert_array_equal(inc[r][j], np.append(W1[r][j], b1[r][j]))
            np.testing.assert_array_equal(out[r][j], W2[r][:, j])
            np.testing.assert_allclose(p.norms_in().numpy()[r][j],
                                       math.sqrt(sum(v * v for v in W1[r][j]) + b1[r][j] ** 2), rtol=1e-14)
            np.testing.assert_allclose(p.norms_in(with_bias=False).numpy()[r][j],
                                       math.sqrt(sum(v * v for v in W1[r][j])), rtol=1e-14)
            np.testing.assert_allclose(p.norms_out().numpy()[r][j],
                                       math.sqrt(sum(v * v for v in W2[r][:, j])), rtol=1e-14)
    torch.testing.assert_close(p.incoming(with_bias=False), p.W1, rtol=0, atol=0)
    nv = p.neuron_vectors()
    assert nv.shape == (*runs, m, d + 1 + k)
    torch.testing.assert_close(nv[..., : d + 1], p.incoming(), rtol=0, atol=0)
    torch.testing.assert_close(nv[..., d + 1:], p.outgoing(), rtol=0, atol=0)


def test_incoming_without_b1_is_W1_and_a_view():
    p = _net((2,), 4, 3, 1, False, False, "relu")
    assert p.incoming().shape == (2, 4, 3)
    torch.testing.assert_close(p.incoming(), p.W1, rtol=0, atol=0)
    np.testing.assert_array_equal(p.a.numpy(), p.W2.numpy()[:, 0, :])
    torch.testing.assert_close(p.norms_out(), p.a.abs(), rtol=1e-15, atol=0)


def test_clone_and_to_and_map():
    p = _net((2,), 4, 3, 1, True, True, "square")
    q = p.clone()
    q.W1 += 1.0
    assert not torch.equal(p.W1, q.W1)  # a real copy
    assert q.act == "square"
    p32 = p.to(torch.float32)
    assert all(t.dtype == torch.float32 for t in p32)
    assert p.map(lambda t: 2 * t).W2.equal(2 * p.W2)


def test_indexing_selects_runs_of_every_parameter():
    p = _net((3, 2), 4, 3, 1, True, True, "square")
    q = p[1:, 0]
    assert q.runs == (2,) and q.act == "square"
    for name, t in p.tensors().items():
        assert getattr(q, name).equal(t[1:, 0])
    assert p[2].W1.data_ptr() == p.W1[2].data_ptr()          # a view, as tensor indexing


# ---------------------------------------------------------------------------
# initialisations
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("runs", [(), (4,)])
def test_balanced_init_is_exactly_balanced(runs):
    p = balanced_init(40, 6, scale=0.3, gen=generator(0), runs=runs)
    assert p.W1.shape == (*runs, 40, 6) and p.W2.shape == (*runs, 1, 40)
    assert p.b1 is None and p.b2 is None
    # |a_j| is the very same number as ‖w_j‖ …
    assert torch.equal(p.a.abs(), p.norms_in())
    # … and a_j² = Σ_l w_jl² to rounding
    torch.testing.assert_close(p.a ** 2, (p.W1 ** 2).sum(-1), rtol=1e-14, atol=0)
    s = torch.sign(p.a)
    assert set(s.unique().tolist()) == {-1.0, 1.0}


def test_balanced_init_scale_and_signs():
    g1 = balanced_init(30, 5, scale=1.0, gen=generator(3))
    lam = 0.01
    gl = balanced_init(30, 5, scale=lam, gen=generator(3))
    torch.testing.assert_close(gl.W1, lam * g1.W1, rtol=1e-15, atol=0)
    torch.testing.assert_close(gl.a, lam * g1.a, rtol=1e-15, atol=0)
    signs = torch.tensor([1.0, -1.0, -1.0, 1.0], dtype=F64)
    ps = balanced_init(4, 3, scale=2.0, gen=generator(1), signs=signs)
    assert torch.equal(torch.sign(ps.a), signs)
    assert torch.equal(ps.a.abs(), ps.norms_in())


def test_balanced_init_tensor_scale_per_run():
    scales = torch.tensor([1e-3, 0.5, 7.0], dtype=F64)
    ref = balanced_init(8, 4, scale=1.0, gen=generator(5), runs=(3,))
    p = balanced_init(8, 4, scale=scales, gen=generator(5), runs=(3,))
    for r in range(3):
        torch.testing.assert_close(p.W1[r], scales[r] * ref.W1[r], rtol=1e-15, atol=0)
        torch.testing.assert_close(p.a[r], scales[r] * ref.a[r], rtol=1e-15, atol=0)
    assert torch.equal(p.a.abs(), p.norms_in())
    # 2-D run grid (seeds, λ) with one λ per column
    p2 = balanced_init(8, 4, scale=scales, gen=generator(5), runs=(2, 3))
    ratio = p2.norms_in() / balanced_init(8, 4, scale=1.0, gen=generator(5), runs=(2, 3)).norms_in()
    torch.testing.assert_close(ratio, scales.view(1, 3, 1).expand(2, 3, 8), rtol=1e-14, atol=0)


def test_balanced_init_dtype():
    p = balanced_init(5, 3, scale=0.5, gen=generator(0), dtype=torch.float32)
    assert p.W1.dtype == torch.float32 and p.W2.dtype == torch.float32


@pytest.mark.parametrize("k", [1, 3])
def test_agf_init_second_moments(k):
    alpha, m, d = 0.3, 20000, 5
    p = agf_init(m, d, k, alpha=alpha, gen=generator(11))
    Ew2 = (p.W1 ** 2).sum(-1).mean().item()
    Ea2 = (p.W2 ** 2).sum(-2).mean().item()
    assert Ew2 == pytest.approx(alpha ** 2 / 2, rel=0.03)
    assert Ea2 == pytest.approx(alpha ** 2 / 2, rel=0.05)
    # per-coordinate variances α²/(2d), α²/(2k)
    assert p.W1.var().item() == pytest.approx(alpha ** 2 / (2 * d), rel=0.03)
    assert p.W2.var().item() == pytest.approx(alpha ** 2 / (2 * k), rel=0.05)
    assert abs(p.W1.mean().item()) < 0.02 * alpha


def test_gaussian_init_stds_and_biases():
    p = gaussian_init(20000, 2, 1, std_in=2.0, std_out=0.5, gen=generator(0), bias_in=True, bias_out=True,
                      std_bias=0.1)
    assert p.W1.std().item() == pytest.approx(2.0, rel=0.02)
    assert p.W2.std().item() == pytest.approx(0.5, rel=0.02)
    assert p.b1.std().item() == pytest.approx(0.1, rel=0.02)
    assert p.b2.shape == (1,)
    q = gaussian_init(20000, 2, 1, std_in=2.0, std_out=0.5, gen=generator(0), bias_in=True)
    assert q.b1.std().item() == pytest.approx(2.0, rel=0.02) and q.b2 is None


@pytest.mark.parametrize("init", ["gaussian", "balanced", "agf"])
def test_generator_determinism(init):
    def make(seed):
        gen = generator(seed)
        if init == "gaussian":
            return gaussian_init(6, 3, 2, std_in=1.0, std_out=1.0, gen=gen, bias_in=True, bias_out=True, runs=(2,))
        if init == "balanced":
            return balanced_init(6, 3, scale=0.1, gen=gen, runs=(2,))
        return agf_init(6, 3, 2, alpha=0.5, gen=gen, runs=(2,))

    a, b, c = make(7), make(7), make(8)
    for name, t in a.tensors().items():
        assert torch.equal(t, b.tensors()[name]), name
        assert not torch.equal(t, c.tensors()[name]), name


def test_random_signs():
    s = random_signs((10000,), generator(0))
    assert set(s.unique().tolist()) == {-1.0, 1.0}
    assert abs(s.mean().item()) < 0.05
    assert torch.equal(s, random_signs((10000,), generator(0)))


# ---------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------

def test_unknown_activation_raises():
    with pytest.raises(ParameterError, match="unknown activation 'tanh'"):
        activation("tanh")
    p = TwoLayer(W1=torch.ones(2, 3, dtype=F64), W2=torch.ones(1, 2, dtype=F64), act="tanh")
    with pytest.raises(ParameterError, match="relu"):
        forward(p, torch.ones(4, 3, dtype=F64))


@pytest.mark.parametrize("seed", [-1, True, False, 1.0, "1", None])
def test_bad_seed_raises(seed):
    with pytest.raises(ParameterError, match="seed must be a non-negative integer"):
        generator(seed)


def test_generator_accepts_zero_and_large():
    assert torch.equal(torch.randn(3, generator=generator(0)), torch.randn(3, generator=torch.Generator().manual_seed(0)))
    generator(2**40)


@pytest.mark.parametrize("make", [
    lambda: balanced_init(0, 3, scale=1.0, gen=generator(0)),
    lambda: balanced_init(3, 0, scale=1.0, gen=generator(0)),
    lambda: gaussian_init(0, 3, std_in=1.0, std_out=1.0, gen=generator(0)),
    lambda: gaussian_init(3, 2, 0, std_in=1.0, std_out=1.0, gen=generator(0)),
    lambda: agf_init(0, 3, alpha=1.0, gen=generator(0)),
    lambda: balanced_init(2.5, 3, scale=1.0, gen=generator(0)),
], ids=["balanced-m0", "balanced-d0", "gaussian-m0", "gaussian-k0", "agf-m0", "balanced-m-float"])
def test_bad_sizes_raise(make):
    with pytest.raises(ParameterError, match="must be a positive integer"):
        make()


@pytest.mark.parametrize("scale", [0.0, -1.0, torch.tensor([1.0, 0.0, 2.0]), torch.tensor([-1e-3])])
def test_balanced_init_bad_scale(scale):
    runs = (3,) if isinstance(scale, torch.Tensor) and scale.numel() == 3 else ()
    with pytest.raises(ParameterError, match="scale must be > 0"):
        balanced_init(4, 3, scale=scale, gen=generator(0), runs=runs)


@pytest.mark.parametrize("alpha", [0.0, -0.5])
def test_agf_init_bad_alpha(alpha):
    with pytest.raises(ParameterError, match="alpha must be > 0"):
        agf_init(4, 3, alpha=alpha, gen=generator(0))


def test_a_on_vector_output_raises():
    p = gaussian_init(4, 3, 2, std_in=1.0, std_out=1.0, gen=generator(0))
    with pytest.raises(ParameterError, match="scalar output"):
        p.a
    # but outgoing() works
    assert p.outgoing().shape == (4, 2)


def test_cat_runs_trains_as_one_batch_and_run_slices_give_the_parts_back():
    from lrlib.losses import half_mse
    from lrlib.train import train

    X = torch.eye(10, dtype=torch.float64)[:4]
    y = torch.tensor([1.0, -1.0, 0.5, 2.0], dtype=torch.float64)
    a = balanced_init(5, 10, scale=0.1, gen=generator(0), runs=(2, 3))
    b = balanced_init(5, 10, scale=0.2, gen=generator(1), runs=(1, 3))
    ab = cat_runs(a, b)
    assert ab.runs == (3, 3) and torch.equal(ab.W1[:2], a.W1) and torch.equal(ab.W2[2:], b.W2)
    with pytest.raises(ParameterError):
        cat_runs(a, balanced_init(5, 10, scale=0.1, gen=generator(0)))
    traj = train(ab, X, y, loss=half_mse(), lr=0.1, steps=3, record=[0, 3], progress=False)
    sub = traj.run(slice(2, None))
    alone = train(b, X, y, loss=half_mse(), lr=0.1, steps=3, record=[0, 3], progress=False)
    torch.testing.assert_close(sub.loss, alone.loss, rtol=1e-14, atol=0)
    assert sub.runs == (1, 3)


def test_cat_runs_keeps_biases_present_or_absent():
    biased = TwoLayer(W1=torch.ones(2, 3, 2), W2=torch.ones(2, 1, 3), b1=torch.zeros(2, 3), b2=torch.ones(2, 1))
    c = cat_runs(biased, biased[:1])
    assert c.runs == (3,) and c.b1.shape == (3, 3) and torch.equal(c.b2[2], biased.b2[0])
    assert cat_runs(TwoLayer(W1=biased.W1, W2=biased.W2), TwoLayer(W1=biased.W1, W2=biased.W2)).b1 is None


def test_cat_runs_along_the_second_run_axis_and_sq_norm():
    a = balanced_init(3, 2, scale=0.1, gen=generator(0), runs=(2, 3))
    b = balanced_init(3, 2, scale=0.2, gen=generator(1), runs=(2, 1))
    ab = cat_runs(a, b, axis=1)
    assert ab.runs == (2, 4) and torch.equal(ab.W1[:, 3], b.W1[:, 0])
    with pytest.raises(ParameterError):
        cat_runs(a, balanced_init(3, 2, scale=0.1, gen=generator(0), runs=(2,)), axis=1)
    expected = (ab.W1 ** 2).sum((-1, -2)) + (ab.W2 ** 2).sum((-1, -2))
    torch.testing.assert_close(ab.sq_norm(), expected, rtol=1e-15, atol=0)
