"""Tests of the chapter's run builders (lrlib.theory.agf.runs): initialisations (draw order, scales,
shapes) and runs against the loops they wrap (float64)."""

import math

import numpy as np
import torch

from lrlib.losses import half_mse
from lrlib.models import agf_init, generator
from lrlib.theory.agf import claims_modular, dln, linear, measure, models, modular, runs, transformer
from lrlib.train import train

F64 = torch.float64


def test_dln_init_is_the_pesme_flammarion_init():
    p = runs.dln_init(np.array([0.5, 1e-3]), 3)
    assert p.W1.shape == (2, 3, 3) and p.W2.shape == (2, 1, 3)
    np.testing.assert_allclose(torch.diagonal(p.W1, dim1=-2, dim2=-1).numpy(),
                               [[math.sqrt(2) * 0.5] * 3, [math.sqrt(2) * 1e-3] * 3])
    assert float(p.W2.abs().max()) == 0.0 and float((p.W1 - torch.diag_embed(torch.diagonal(
        p.W1, dim1=-2, dim2=-1))).abs().max()) == 0.0


def test_dln_gd_equals_train_and_learns():
    X, y, _ = dln.fig8_data()
    r = runs.dln_gd(X, y, np.array([0.1]), 2e-3, 400, record=100)
    ref = train(runs.dln_init([0.1], 2), torch.tensor(X), torch.tensor(y), loss=half_mse(), lr=2e-3, steps=400,
                record=100, grad_fn=models.dln_grad, dense_loss=True, progress=False)
    np.testing.assert_array_equal(r.dense_loss.numpy(), ref.dense_loss.numpy())
    assert r.dense_loss.shape == (401, 1) and r.dense_loss[-1, 0] < r.dense_loss[0, 0]


def test_heads_and_modular_init_draw_order_and_scales():
    V, K, Q = runs.heads_init(1e-3, 2, 5, 4, generator(7))
    g = generator(7)
    np.testing.assert_array_equal(V.numpy(), (1e-3 * torch.randn(2, 5, generator=g, dtype=F64)).abs().numpy())
    np.testing.assert_array_equal(K.numpy(), (1e-3 * torch.randn(2, 5, 4, generator=g, dtype=F64)).numpy())
    np.testing.assert_array_equal(Q.numpy(), (1e-3 * torch.randn(2, 5, 4, generator=g, dtype=F64)).numpy())
    assert (V >= 0).all()
    U, Vm, W = runs.modular_init(0.01, 3, 6, 5, generator(8))
    g = generator(8)
    for t, s in ((U, 0.01 / math.sqrt(10)), (Vm, 0.01 / math.sqrt(10)), (W, 0.01 / math.sqrt(5))):
        assert t.shape == (3, 6, 5)
        np.testing.assert_array_equal(t.numpy(), (s * torch.randn(3, 6, 5, generator=g, dtype=F64)).numpy())


def test_per_seed_normals_draws_each_shape_over_seeds_in_turn():
    a, b = runs.per_seed_normals([generator(1), generator(2)], ((3, 2), (4,)))
    assert a.shape == (2, 3, 2) and b.shape == (2, 4)
    g1 = generator(1)
    torch.randn(3, 2, generator=g1, dtype=F64)
    np.testing.assert_array_equal(b[0].numpy(), torch.randn(4, generator=g1, dtype=F64).numpy())


def test_fig4_design_reproduces_the_population_moments():
    setups = [linear.fig4_setup(seed=0, commuting=c) for c in (True, False)]
    X, Y = runs.fig4_design(setups)
    assert X.shape == (2, 20, 10) and Y.shape == (2, 20, 10)
    for i, (S, B) in enumerate(setups):
        np.testing.assert_allclose((X[i].T @ X[i] / 20).numpy(), S, atol=1e-12)
        np.testing.assert_allclose(Y[i].numpy(), X[i].numpy() @ B.T, atol=1e-12)
        np.testing.assert_allclose(X[i].mean(0).numpy(), 0, atol=1e-12)


def test_fc_init_scales_the_same_directions_per_alpha():
    alphas = np.array([1e-2, 1e-5])
    p = runs.fc_init(alphas, 2, 3, generator(40))
    ref = agf_init(10, 10, 10, alpha=1.0, gen=generator(40), runs=(2, 2, 3), act="linear")
    assert p.W1.shape == ref.W1.shape
    np.testing.assert_allclose(p.W1[1].numpy(), 1e-5 * ref.W1[1].numpy(), rtol=1e-15)
    np.testing.assert_allclose(p.W2[0].numpy(), 1e-2 * ref.W2[0].numpy(), rtol=1e-15)


def test_fc_step_gaps_shrink_as_the_step_does():
    """GD's drops approach the flow's at O(h): a five times smaller step, a gap about five times smaller."""
    setups = [linear.fig4_setup(seed=0, commuting=c) for c in (True, False)]
    preds = {"commuting": linear.conjecture(*setups[0]), "non-commuting": linear.conjecture(*setups[1])}
    X, Y = runs.fig4_design(setups)
    alphas = np.array([1e-6])
    etas = -np.log(alphas)
    p = runs.fc_init(alphas, 2, 1, generator(40))
    t_end = 1.15 * max(pr.tau[2] for pr in preds.values()) * etas[0]
    fl = runs.fc_flow(p, X, Y, 0.05, int(t_end / 0.05), 400)
    flow_drops = measure.fc_drops(fl.time, fl.loss.numpy(), etas, preds, 2)
    gaps = runs.fc_step_gaps(p, X, Y, t_end, (0.05, 0.01), flow_drops, etas, preds)
    assert gaps[0.01].shape == (2, 1) and np.all(np.isfinite(gaps[0.05]))
    assert np.all(gaps[0.01] < 0.05) and np.all(gaps[0.01] < gaps[0.05] / 3)


def test_heads_gd_and_view_on_the_population_design():
    Sig = transformer.fig5_sigma(seed=0)
    pred = transformer.predict(Sig, 32)
    _, _, c = transformer.design(Sig, 32)
    V, K, Q = runs.heads_init(0.1, 2, 5, 4, generator(50))
    r = runs.heads_gd(V, K, Q, Sig, 32, 0.01, 50, [0, 25, 50])
    hv = runs.heads_view(r, pred, c, 0.01)
    assert isinstance(hv, claims_modular.HeadsRun)
    assert hv.loss.shape == (51, 2) and hv.proj.shape == (3, 2, 4) and hv.head_norm.shape == (3, 2, 5)
    np.testing.assert_allclose(hv.head_norm[0], torch.sqrt(V ** 2 + (K ** 2).sum(-1) + (Q ** 2).sum(-1)).numpy())
    # the population loss at step 0 is the design loss plus its constant
    p0 = models.heads_params(V, K, Q)
    gam0 = models.heads_gamma(p0).numpy()
    np.testing.assert_allclose(hv.proj[0], np.einsum("ik,rij,jk->rk", pred.v, gam0, pred.v), atol=1e-15)
    assert np.all(hv.loss[-1] < hv.loss[0])


def test_modular_flow_and_gd_learn_from_small_init():
    x = np.zeros(5)
    x[1], x[4] = 1.0, 1.0
    X, Y = (torch.tensor(a) for a in modular.dataset(x))
    U, V, W = runs.modular_init(0.5, 1, 6, 5, generator(9))
    fl = runs.modular_flow(U, V, W, X, Y, 0.1, 200, [0, 100, 200], rtol=1e-6, atol=1e-12)
    gd = runs.modular_gd(U, V, W, X, Y, 1e-3, 2000, n_record=10)
    assert fl.loss[-1, 0] < fl.loss[0, 0] and gd.loss[-1, 0] < gd.loss[0, 0]
    np.testing.assert_allclose(fl.time, [0.0, 10.0, 20.0])


def test_fc_flow_stretch_is_the_same_trajectory_on_a_slower_clock():
    setups = [linear.fig4_setup(seed=0, commuting=c) for c in (True, False)]
    X, Y = runs.fig4_design(setups)
    p = runs.fc_init(np.array([1e-2]), 2, 1, generator(41))
    a = runs.fc_flow(p, X, Y, 0.05, 40, [0, 20, 40])
    b = runs.fc_flow(p, X, Y, 0.05, 50, [0, 25, 50], stretch=1.25)
    np.testing.assert_allclose(b.loss.numpy() * 1.25, a.loss.numpy(), rtol=1e-5)
    assert np.all(a.loss.numpy()[-1] < a.loss.numpy()[0])
