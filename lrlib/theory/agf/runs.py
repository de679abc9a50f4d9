"""The chapter's training runs, one function per kind of run, so that the notebook reads as a few
lines per experiment.  Each builds the initial network of :mod:`.models` and hands it to ONE loop
(:func:`lrlib.train.train` for GD and heavy-ball GD, :func:`lrlib.integrate.flow` for the
integrated gradient flow).

Conventions
-----------
``S`` is the number of seeds (a leading runs dimension), ``T`` the number of recorded snapshots.
Times: ``h`` (learning rate, i.e. flow time per step), ``steps`` (GD steps or, for the flow, steps
of ``dt`` that only set the time axis), ``record`` (:func:`lrlib.train.train`'s record: an ``int``
stride or the step indices to record).  ``loss`` is the chapter's :class:`lrlib.losses.Loss`
(``half_mse`` by default).  Every run is float64 and silent (``progress=False``).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from ...integrate import flow
from dataclasses import replace

from ...losses import Loss, half_mse
from ...measure import relative_error
from ...models import TwoLayer, agf_init
from ...schedules import log_schedule
from ...train import train
from ...trajectory import Trajectory
from . import linear, measure, models, transformer
from .claims_modular import HeadsRun

Tensor = torch.Tensor
F64 = torch.float64


def dln_init(alphas: np.ndarray, d: int) -> TwoLayer:
    """Diagonal linear networks at App. C's initialisation ``u = √2 α``, ``v = 0``, one run per ``α``.

    Parameters
    ----------
    alphas : ndarray
        ``(A,)`` initialisation scales.
    d : int
        the input dimension.

    Returns
    -------
    TwoLayer
        ``W1 (A, d, d)`` (diagonal), ``W2 (A, 1, d)`` (zero).
    """
    a = torch.tensor(np.asarray(alphas, dtype=float), dtype=F64)
    return models.dln_params((math.sqrt(2) * a).unsqueeze(-1).expand(-1, d).clone(),
                             torch.zeros(len(a), d, dtype=F64))


def dln_gd(X: np.ndarray, y: np.ndarray, alphas: np.ndarray, h: float, steps: int, record,
           loss: Loss | None = None, meta: dict | None = None) -> Trajectory:
    """GD (closed-form DLN gradient) from :func:`dln_init`, one run per ``α``, with the dense loss.

    Parameters
    ----------
    X, y : ndarray
        ``(n, d)``, ``(n,)`` the regression data.
    alphas : ndarray
        ``(A,)`` initialisation scales (the runs).
    h, steps, record : float / int / int or array_like
        learning rate (flow time per step), GD steps, record (module conventions).
    loss : Loss or None, optional
        the loss (default ``half_mse``).
    meta : dict or None, optional
        optional metadata stored on the trajectory.

    Returns
    -------
    Trajectory
        Runs ``(A,)``; ``dense_loss`` ``(steps+1, A)``.
    """
    return train(dln_init(alphas, X.shape[1]), torch.tensor(X), torch.tensor(y), loss=loss or half_mse(),
                 lr=h, steps=steps, record=record, grad_fn=models.dln_grad, dense_loss=True,
                 progress=False, meta=meta)


def heads_init(alpha: float, n_seeds: int, H: int, d: int, gen: torch.Generator
               ) -> tuple[Tensor, Tensor, Tensor]:
    """Figure 5's initial heads: ``V = |α N(0, 1)|``, ``K, Q = α N(0, 1)``, drawn in that order.

    Parameters
    ----------
    alpha : float
        the initialisation scale.
    n_seeds, H, d : int
        seeds ``S``, heads and the token dimension.
    gen : torch.Generator
        the generator (consumed: ``V``, then ``K``, then ``Q``).

    Returns
    -------
    (Tensor, Tensor, Tensor)
        ``V (S, H)``, ``K (S, H, d)``, ``Q (S, H, d)``.
    """
    V = (alpha * torch.randn(n_seeds, H, generator=gen, dtype=F64)).abs()
    K = alpha * torch.randn(n_seeds, H, d, generator=gen, dtype=F64)
    Q = alpha * torch.randn(n_seeds, H, d, generator=gen, dtype=F64)
    return V, K, Q


def heads_gd(V: Tensor, K: Tensor, Q: Tensor, Sigma: np.ndarray, N: int, h: float, steps: int, record,
             loss: Loss | None = None) -> Trajectory:
    """GD of the attention heads on the exact population design of :func:`.transformer.design`.

    Parameters
    ----------
    V, K, Q : Tensor
        ``(S, H)``, ``(S, H, d)``, ``(S, H, d)`` initial heads.
    Sigma, N : ndarray / int
        the in-context task (:mod:`.transformer` conventions).
    h, steps, record : float / int / int or array_like
        learning rate, GD steps, record (module conventions).
    loss : Loss or None, optional
        the loss (default ``half_mse``).

    Returns
    -------
    Trajectory
        Runs ``(S,)``; ``dense_loss`` ``(steps+1, S)`` is the population loss minus its constant.
    """
    Z, y, _ = transformer.design(Sigma, N)
    return train(models.heads_params(V, K, Q), torch.tensor(Z), torch.tensor(y), loss=loss or half_mse(),
                 lr=h, steps=steps, record=record,
                 grad_fn=models.heads_grad_population(torch.tensor(Sigma), N), dense_loss=True,
                 progress=False)


def modular_init(alpha: float, n_seeds: int, H: int, p: int, gen: torch.Generator
                 ) -> tuple[Tensor, Tensor, Tensor]:
    """The authors' initialisation for modular addition: ``U, V ~ α N(0, 1/(2p))``, ``W ~ α N(0, 1/p)``,
    drawn in that order.

    Parameters
    ----------
    alpha : float
        the initialisation scale.
    n_seeds, H, p : int
        seeds ``S``, hidden width and the modulus.
    gen : torch.Generator
        the generator (consumed: ``U``, ``V``, ``W``).

    Returns
    -------
    (Tensor, Tensor, Tensor)
        ``U, V, W`` each ``(S, H, p)``.
    """
    U = alpha / math.sqrt(2 * p) * torch.randn(n_seeds, H, p, generator=gen, dtype=F64)
    V = alpha / math.sqrt(2 * p) * torch.randn(n_seeds, H, p, generator=gen, dtype=F64)
    W = alpha / math.sqrt(p) * torch.randn(n_seeds, H, p, generator=gen, dtype=F64)
    return U, V, W


def modular_flow(U: Tensor, V: Tensor, W: Tensor, X: Tensor, Y: Tensor, dt: float, steps: int, record, *,
                 rtol: float, atol: float, loss: Loss | None = None):
    """The integrated gradient flow (BDF, closed-form Hessian) of the square-activation network.

    Parameters
    ----------
    U, V, W : Tensor
        ``(S, H, p)`` initial weights (:func:`.models.modular_params`).
    X, Y : Tensor
        ``(p², 2p)``, ``(p², p)`` the modular-addition data.
    dt, steps, record : float / int / int or array_like
        the time axis (flow time ``dt`` per step) and the steps to record.
    rtol, atol : float
        the integrator's tolerances.
    loss : Loss or None, optional
        the loss (default ``half_mse``).

    Returns
    -------
    FlowResult
        Runs ``(S,)``; ``time`` in flow time.
    """
    return flow(models.modular_params(U, V, W), X, Y, loss=loss or half_mse(), lr=dt, steps=steps,
                record=record, method="BDF", rtol=rtol, atol=atol, hessian_fn=models.square_hessian)


def modular_gd(U: Tensor, V: Tensor, W: Tensor, X: Tensor, Y: Tensor, h: float, steps: int, *,
               momentum: float = 0.9, n_record: int = 150, loss: Loss | None = None) -> Trajectory:
    """The authors' heavy-ball GD of the square-activation network (closed-form gradient).

    Parameters
    ----------
    U, V, W : Tensor
        ``(S, H, p)`` initial weights.
    X, Y : Tensor
        ``(p², 2p)``, ``(p², p)`` the modular-addition data.
    h, steps : float / int
        learning rate and steps (module conventions).
    momentum : float, optional
        the heavy-ball coefficient.
    n_record : int, optional
        about this many log-spaced snapshots.
    loss : Loss or None, optional
        the loss (default ``half_mse``).

    Returns
    -------
    Trajectory
        Runs ``(S,)``.
    """
    return train(models.modular_params(U, V, W), X, Y, loss=loss or half_mse(), lr=h, momentum=momentum,
                 steps=steps, record=log_schedule(steps, n_record),
                 grad_fn=models.modular_grad_fn(U.shape[-1]), progress=False)


def per_seed_normals(gens: list[torch.Generator], shapes) -> list[Tensor]:
    """Standard normal draws, one per seed's generator, stacked over seeds, one tensor per shape (all
    seeds draw the first shape, then the second, …).

    Parameters
    ----------
    gens : list[torch.Generator]
        ``S`` generators, one per seed.
    shapes : sequence of tuple of int
        the shapes to draw, in order.

    Returns
    -------
    list of Tensor
        One ``(S, *shape)`` float64 tensor per shape.
    """
    return [torch.stack([torch.randn(*shape, generator=g, dtype=F64) for g in gens]) for shape in shapes]


def fig4_design(setups: list[tuple[np.ndarray, np.ndarray]]) -> tuple[Tensor, Tensor]:
    """Figure 4's data per variant: the population design of ``Σ_xx`` and its negative (the ± copies keep
    ``mean xxᵀ = Σ_xx`` with a zero mean) and the teacher's targets ``y = B x``.

    Parameters
    ----------
    setups : list[tuple[ndarray, ndarray]]
        ``V`` pairs ``(Σ_xx (d, d), B (c, d))`` (:func:`.linear.fig4_setup`).

    Returns
    -------
    (Tensor, Tensor)
        ``X (V, 2d, d)`` and ``Y (V, 2d, c)``.
    """
    D = [torch.tensor(linear.population_design(S)) for S, _ in setups]
    X = torch.stack([torch.cat([Di, -Di]) for Di in D])
    Y = torch.stack([X[i] @ torch.tensor(B).T for i, (_, B) in enumerate(setups)])
    return X, Y


def fc_init(alphas: np.ndarray, n_variants: int, n_seeds: int, gen: torch.Generator, d: int = 10
            ) -> TwoLayer:
    """Figure 4's linear networks ``A W`` (width ``d``), :func:`lrlib.models.agf_init` directions scaled by
    each ``α``: the same directions for every ``α``.

    Parameters
    ----------
    alphas : ndarray
        ``(A,)`` initialisation scales.
    n_variants, n_seeds : int
        the other run dimensions (variants, seeds).
    gen : torch.Generator
        the generator of the directions.
    d : int, optional
        width, input and output dimension.

    Returns
    -------
    TwoLayer
        Runs ``(A, V, S)``.
    """
    p = agf_init(d, d, d, alpha=1.0, gen=gen, runs=(len(alphas), n_variants, n_seeds), act="linear")
    scale = torch.tensor(alphas, dtype=F64).reshape(len(alphas), 1, 1, 1, 1)
    return p.map(lambda t: t * scale)


def fc_flow(p: TwoLayer, X: Tensor, Y: Tensor, dt: float, steps: int, record, loss: Loss | None = None,
            stretch: float = 1.0):
    """The integrated gradient flow (RK45, ``rtol = 1e-8``, ``atol = 1e-30``) of Figure 4's networks.

    Parameters
    ----------
    p : TwoLayer
        runs ``(A, V, S)`` (:func:`fc_init`).
    X, Y : Tensor
        ``(V, n, d)``, ``(V, n, c)`` per variant (:func:`fig4_design`).
    dt, steps, record : float / int / int or array_like
        the time axis (flow time ``dt`` per step) and the steps to record.
    loss : Loss or None, optional
        the loss (default ``half_mse``).
    stretch : float, optional
        integrate the flow of ``loss / stretch`` instead: the same trajectory on a clock stretched by this
        factor (a perturbed time scale; integrate ``stretch`` times longer to reach the same point). The
        recorded ``loss`` is then ``loss / stretch``: multiply it by ``stretch`` to read the loss itself.

    Returns
    -------
    FlowResult
        Runs ``(A, V, S)``; ``time`` in flow time.
    """
    base = loss or half_mse()
    return flow(p, X.unsqueeze(1), Y.unsqueeze(1), loss=replace(base, scale=base.scale / stretch), lr=dt,
                steps=steps, record=record, rtol=1e-8, atol=1e-30)


def fc_step_gaps(p: TwoLayer, X: Tensor, Y: Tensor, t_end: float, hs, flow_drops: np.ndarray,
                 etas: np.ndarray, preds: dict, K: int = 2, loss: Loss | None = None
                 ) -> dict[float, np.ndarray]:
    """GD at each step size against the flow: the largest relative difference of the first ``K`` drops.

    Parameters
    ----------
    p : TwoLayer
        runs ``(A, V, S)``; the first ``len(etas)`` values of ``α`` are run.
    X, Y : Tensor
        per variant (:func:`fig4_design`).
    t_end : float
        the flow time to run to.
    hs : sequence of float
        the step sizes.
    flow_drops : ndarray
        ``(V, A', S, K)`` the flow's drops (:func:`.measure.fc_drops` on the same ``α``).
    etas : ndarray
        ``(A',)`` ``η_α`` of the ``α`` run.
    preds : dict
        variant name → prediction (:func:`.linear.conjecture`).
    K : int, optional
        the number of drops compared.
    loss : Loss or None, optional
        the loss (default ``half_mse``).

    Returns
    -------
    dict
        Step size → ``(V, S)`` the largest relative drop-time difference over ``α`` and drops.
    """
    n_a = len(etas)
    gaps = {}
    for h in hs:
        n = int(t_end / h)
        gd = train(p[:n_a], X.unsqueeze(1), Y.unsqueeze(1), loss=loss or half_mse(), lr=h,
                   steps=n, record=[0, n], dense_loss=True, progress=False)
        drops = measure.fc_drops(np.arange(n + 1) * h, gd.dense_loss.numpy(), etas, preds, K)
        gaps[h] = relative_error(drops, flow_drops).max(axis=(1, 3))
    return gaps


def heads_view(run: Trajectory, pred, const: float, h: float) -> HeadsRun:
    """The claims' view of a heads GD run (:class:`.claims_modular.HeadsRun`).

    Parameters
    ----------
    run : Trajectory
        a :func:`heads_gd` trajectory, runs ``(S,)``.
    pred : TransformerAGF
        Eq. 7's prediction (:func:`.transformer.predict`; its eigenvectors ``v``).
    const : float
        the population loss's constant (:func:`.transformer.design`).
    h : float
        the step size.

    Returns
    -------
    HeadsRun
        Population loss ``(n+1, S)``, ``v_kᵀ Γ v_k`` ``(T, S, d)``, head norms ``(T, S, H)``, ``Γ`` at the end.
    """
    gam = models.heads_gamma(run.params).numpy()                               # (T, S, d, d)
    V, K, Q = models.heads_of(run.params)
    return HeadsRun(loss=run.dense_loss.numpy() + const, steps=run.steps, h=h, gamma_end=gam[-1],
                    proj=np.einsum("ik,trij,jk->trk", pred.v, gam, pred.v),
                    head_norm=torch.sqrt(V ** 2 + (K ** 2).sum(-1) + (Q ** 2).sum(-1)).numpy())
