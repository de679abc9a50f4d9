"""Tests of the chapter's models as TwoLayer networks (lrlib.theory.agf.models): closed-form
gradients and Hessians against autograd, flows against fine-step GD (float64)."""

import math

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.losses import half_mse
from lrlib.models import TwoLayer, forward, generator
from lrlib.theory.agf import dln, modular, transformer
from lrlib.theory.agf import measure as ms
from lrlib.theory.agf import models as AM
from lrlib.train import train

F64 = torch.float64


def test_dln_grad_matches_autograd():
    X, y, _ = dln.fig3_data()
    Xt, yt = torch.tensor(X), torch.tensor(y)
    gen = torch.Generator().manual_seed(0)
    p = AM.dln_params(torch.randn(3, 5, generator=gen, dtype=F64), torch.randn(3, 5, generator=gen, dtype=F64))
    g = AM.dln_grad(p, Xt, yt)
    W1, W2 = p.W1.clone().requires_grad_(True), p.W2.clone().requires_grad_(True)
    L = half_mse()(forward(TwoLayer(W1=W1, W2=W2, act="linear"), Xt), yt).sum()
    a1, a2 = torch.autograd.grad(L, (W1, W2))
    torch.testing.assert_close(g["W1"], a1 * torch.eye(5, dtype=F64))
    torch.testing.assert_close(g["W2"], a2)
    torch.testing.assert_close(AM.dln_beta(p), torch.diagonal(p.W1, dim1=-2, dim2=-1) * p.W2[..., 0, :])


def test_dln_flow_matches_fine_step_gd_and_conserves_u2_minus_v2():
    """The integrated DLN flow agrees with GD at a 10× smaller step than the chapter's, and keeps
    u² − v² = 2α² (conserved by the flow, not by GD)."""
    X, y, _ = dln.fig3_data()
    Xt, yt = torch.tensor(X), torch.tensor(y)
    a = 1e-2
    u0, v0 = torch.full((5,), math.sqrt(2) * a, dtype=F64), torch.zeros(5, dtype=F64)
    times = np.linspace(0.0, 10.0, 11)
    res = AM.dln_flow(Xt, yt, u0, v0, times)
    h = 2e-4
    gd = train(AM.dln_params(u0, v0), Xt, yt, loss=half_mse(), lr=h, steps=int(10.0 / h),
               record=(times / h).round().astype(int), grad_fn=AM.dln_grad, progress=False)
    np.testing.assert_allclose(res.loss.numpy(), gd.loss.numpy(), rtol=2e-3)
    assert res.loss[-1] < 0.5 * res.loss[0]                                 # something was learnt
    cons = res.states["u"] ** 2 - res.states["v"] ** 2
    np.testing.assert_allclose(cons.numpy(), 2 * a ** 2, rtol=1e-6)


def test_closed_form_grads_match_autograd():
    gen = torch.Generator().manual_seed(5)
    x = modular.template(7, {1: 3.0, 2: 1.0})
    X, Y = (torch.tensor(a) for a in modular.dataset(x))
    p = AM.modular_params(*(0.3 * torch.randn(2, 4, 7, generator=gen, dtype=F64) for _ in range(3)))
    g = AM.square_grad(p, X, Y)
    W1, W2 = p.W1.clone().requires_grad_(True), p.W2.clone().requires_grad_(True)
    L = half_mse()(forward(TwoLayer(W1=W1, W2=W2, act="square"), X), Y).sum()
    a1, a2 = torch.autograd.grad(L, (W1, W2))
    torch.testing.assert_close(g["W1"], a1)
    torch.testing.assert_close(g["W2"], a2)
    S = transformer.fig5_sigma()
    Z, y, _ = transformer.design(S, 32)
    V, K, Q = (0.2 * torch.randn(*sh, generator=gen, dtype=F64) for sh in [(3, 5), (3, 5, 4), (3, 5, 4)])
    ph = AM.heads_params(V, K, Q)
    g1 = AM.heads_grad_population(torch.tensor(S), 32)(ph, None, None)
    g2 = AM.heads_grad_fn(half_mse())(ph, torch.tensor(Z), torch.tensor(y))
    torch.testing.assert_close(g1["W1"], g2["W1"])
    torch.testing.assert_close(g1["W2"], g2["W2"])


def test_harmonic_grad_keeps_neurons_in_the_span_and_exact_minimiser_passes():
    x = modular.template(11, {1: 6.0, 2: 4.0})
    X, Y = (torch.tensor(a) for a in modular.dataset(x))
    P = torch.tensor(modular.harmonic_basis(11, 1))
    c = 0.2 * torch.randn(3, 1, 6, 2, generator=generator(3), dtype=F64)
    U, V, W = (ci @ P.T for ci in c)
    run = train(AM.modular_params(U, V, W), X, Y, loss=half_mse(), lr=0.01, steps=3000, record=[0, 3000],
                grad_fn=AM.harmonic_grad_fn(P), progress=False)
    Pr = P @ P.T
    W1 = run.params.W1[-1, 0]
    torch.testing.assert_close(W1[:, :11] @ Pr, W1[:, :11])
    pred = modular.predict(x)
    assert abs(float(run.loss[-1, 0]) - pred.levels[1]) < 1e-8 * pred.levels[1]
    R = (Y - forward(run.params, X)[-1, 0]).numpy()
    th = np.random.RandomState(1).randn(4, 3, 11)
    assert ms.utility_update_error(th, X.numpy(), R, x, 1) < 1e-6
    assert ms.utility_update_error(th, X.numpy(), Y.numpy(), x, 1) > 0.1    # nothing learned: the ξ terms remain


def test_modular_grad_fn_equals_square_grad():
    from lrlib.theory.agf import modular
    from lrlib.theory.agf import models as agf_models

    x = modular.template(7, {1: 3.0, 2: 1.0})
    X, Y = (torch.tensor(a) for a in modular.dataset(x))
    g = torch.Generator().manual_seed(0)
    net = agf_models.modular_params(*(torch.randn(2, 3, 4, 7, generator=g, dtype=torch.float64) for _ in range(3)))
    fast, ref = agf_models.modular_grad_fn(7), agf_models.square_grad(net, X, Y)
    grads = fast(net, X, Y)
    for k in ref:
        assert torch.allclose(grads[k], ref[k], rtol=1e-12, atol=1e-12)
    with pytest.raises(ParameterError):
        fast(net, X[:-1], Y[:-1])


def test_square_hessian_matches_autograd():
    from lrlib.theory.agf import modular
    from lrlib.theory.agf import models as agf_models

    x = modular.template(7, {1: 3.0, 2: 1.0})
    X, Y = (torch.tensor(a) for a in modular.dataset(x))
    g = torch.Generator().manual_seed(1)
    net = agf_models.modular_params(*(torch.randn(3, 7, generator=g, dtype=torch.float64) for _ in range(3)))
    m, d, k = 3, 14, 7

    def loss(v):
        W1, W2 = v[:m * d].reshape(m, d), v[m * d:].reshape(k, m)
        return half_mse()(forward(TwoLayer(W1=W1, W2=W2, act="square"), X), Y)

    ref = torch.autograd.functional.hessian(loss, torch.cat([net.W1.reshape(-1), net.W2.reshape(-1)]))
    got = agf_models.square_hessian(net, X, Y)
    torch.testing.assert_close(got, ref, rtol=1e-10, atol=1e-10)
    with pytest.raises(ParameterError):
        agf_models.square_hessian(net.map(lambda t: t.unsqueeze(0)), X, Y)


def test_bdf_flow_with_square_hessian_matches_rk45_on_modular_addition():
    """Modular addition (p = 7, two runs) from α = 0.1: the implicit flow with the closed-form
    Hessian, through the first drops, against the explicit flow."""
    from lrlib.integrate import flow
    from lrlib.theory.agf import modular
    from lrlib.theory.agf import models as agf_models

    x = modular.template(7, {1: 3.0, 2: 1.0})
    X, Y = (torch.tensor(a) for a in modular.dataset(x))
    g = torch.Generator().manual_seed(0)
    net = agf_models.modular_params(*(0.1 * torch.randn(2, 4, 7, generator=g, dtype=torch.float64) for _ in range(3)))
    kw = dict(loss=half_mse(), lr=0.01, steps=3000, record=np.arange(0, 3001, 100))
    ref = flow(net, X, Y, method="RK45", rtol=1e-9, atol=1e-13, **kw)
    got = flow(net, X, Y, method="BDF", rtol=1e-8, atol=1e-13, hessian_fn=agf_models.square_hessian, **kw)
    assert ref.loss[-1].max() < 0.6 * ref.loss[0].min()                    # the run passes drops
    torch.testing.assert_close(got.loss, ref.loss, rtol=0, atol=1e-6)
    torch.testing.assert_close(got.params.W1, ref.params.W1, rtol=0, atol=1e-6)



def test_max_hessian_eigenvalue_is_the_largest_over_runs():
    gen = torch.Generator().manual_seed(4)
    p_, H = 3, 4
    X = torch.randn(5, 2 * p_, generator=gen, dtype=F64)
    Y = torch.randn(5, p_, generator=gen, dtype=F64)
    nets = [AM.modular_params(*(torch.randn(H, p_, generator=gen, dtype=F64) * s for _ in range(3)))
            for s in (0.1, 1.0)]
    batch = TwoLayer(W1=torch.stack([n.W1 for n in nets]), W2=torch.stack([n.W2 for n in nets]), act="square")
    each = [float(torch.linalg.eigvalsh(AM.square_hessian(n, X, Y))[-1]) for n in nets]
    assert AM.max_hessian_eigenvalue(batch, X, Y) == pytest.approx(max(each), rel=1e-12)
    assert each[1] > each[0]                            # the larger network is the steeper one here
