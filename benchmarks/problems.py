"""The two validation problems of the adaptive gradient-flow integrator (lrlib.integrate).

Shared by ``tests/test_integrate.py`` (small, fast settings) and ``benchmarks/run.py``
(the paper's settings).  Each returns phase/jump times measured on a GD run and on
the integrator, so that the two can be compared.

1. **Orthogonal toy** (Boursier et al. 2022, Fig. 3; chapter 01): two points with a bias
   coordinate, width 60, balanced init λ = 1e-6/√60, GD on the mean MSE with
   η = 1e-3 for 20 000 iterations (the authors' code).  Phase times: first saddle
   exit (loss < 0.99·L₀) and second saddle exit (loss < 0.4), in units of τ = steps·η
   (the flow of the mean MSE; the paper's time is 2τ).
2. **Diagonal linear network** ``f(x) = ⟨u ⊙ v, x⟩`` (d = 5, n = 20, the authors' code for
   AGF Fig. 3), loss ``½ mean (f − y)²``, init ``u = √2α·1, v = 0`` with α = 1e-4, GD step
   1e-3: saddle-to-saddle
   dynamics, one coordinate of β = u ⊙ v learnt after the other.  Jump time of
   coordinate i: first time β_i reaches half of β*_i.  It is not a TwoLayer, so it
   goes through the generic closure :func:`lrlib.integrate.integrate`; its GD
   reference uses the closed-form gradient (an independent check of autograd).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from lrlib.integrate import flow, integrate
from lrlib.losses import Loss
from lrlib.models import balanced_init, generator
from lrlib.theory.orthogonal.data import orthogonal_toy
from lrlib.measure import first_crossing
from lrlib.train import train

F64 = torch.float64
# The integrator's settings in the benchmark and the tests (RK45): rtol 1e-4, and atol 1e-10,
# below 1e-3 of the smallest initial parameter scale of both problems (1.3e-7 and 1.4e-4).
FLOW_RTOL, FLOW_ATOL = 1e-4, 1e-10

# --------------------------------------------------------------------------- orthogonal toy

TOY_ETA = 1e-3          # the paper's (authors' code) step
TOY_STEPS = 20_000      # the paper's iterations: τ_end = 20
TOY_M = 60
MEAN_MSE = Loss("square", "mean")


def toy_problem(seed: int = 0, runs: tuple[int, ...] = ()):
    """``(p0, X, y)`` of the orthogonal toy (chapter 01, Fig. 2-3)."""
    X, y = orthogonal_toy()
    p0 = balanced_init(TOY_M, 2, scale=1e-6 / math.sqrt(TOY_M), gen=generator(seed), runs=runs)
    return p0, X, y


def toy_phase_times(tau: np.ndarray, loss: np.ndarray) -> np.ndarray:
    """``[exit₁, exit₂]`` in τ: loss below 0.99·L₀, then below 0.4 (mean-MSE units)."""
    return np.array([first_crossing(tau, loss, 0.99 * loss[0]), first_crossing(tau, loss, 0.4)])


def toy_gd(eta: float, tau_end: float, seed: int = 0) -> tuple[np.ndarray, int]:
    """Phase times of GD at step ``eta`` (loss at every step) and its gradient evaluations."""
    p0, X, y = toy_problem(seed)
    steps = int(round(tau_end / eta))
    tr = train(p0, X, y, loss=MEAN_MSE, lr=eta, steps=steps, record=[0, steps], dense_loss=True,
               time_scale=2.0, progress=False)
    return toy_phase_times(np.arange(steps + 1) * eta, tr.dense_loss.numpy()), steps


def toy_flow(tau_end: float, *, rtol: float, atol: float, method: str = "RK45", seed: int = 0,
             records: int = 2000) -> tuple[np.ndarray, int]:
    """Phase times of the adaptive flow (``records`` evenly spaced records) and its gradient evaluations."""
    p0, X, y = toy_problem(seed)
    steps = int(round(tau_end / TOY_ETA))
    rec = np.unique(np.linspace(0, steps, records + 1).round().astype(np.int64))
    tr = flow(p0, X, y, loss=MEAN_MSE, lr=TOY_ETA, steps=steps, record=rec, time_scale=2.0,
              rtol=rtol, atol=atol, method=method)
    return toy_phase_times(tr.steps * TOY_ETA, tr.loss.numpy()), tr.meta["grad_evals"]


# --------------------------------------------------------------------------- diagonal linear network

DIAG_D, DIAG_N = 5, 20    # the authors' code for AGF Fig. 3 (spec 003 §2.1)
DIAG_ALPHA = 1e-4          # small α: a sharp staircase (larger α blurs the jumps)
DIAG_ETA = 1e-3            # the authors' GD step
DIAG_TAU = 15.0            # past the last jump of our draw (τ ≈ 9.2): 15 000 GD steps at the paper's step


@dataclass
class Diag:
    X: torch.Tensor      # (n, d)
    y: torch.Tensor      # (n,)
    beta: torch.Tensor   # (d,) the teacher β*
    alpha: float

    def theta0(self) -> dict[str, torch.Tensor]:
        d = self.X.shape[1]
        return {"u": torch.full((d,), math.sqrt(2) * self.alpha, dtype=F64), "v": torch.zeros(d, dtype=F64)}

    def loss(self, theta: dict[str, torch.Tensor]) -> torch.Tensor:
        """``½ mean_i (⟨u ⊙ v, x_i⟩ − y_i)²`` (the closure given to the integrator)."""
        r = self.X @ (theta["u"] * theta["v"]) - self.y
        return 0.5 * (r * r).mean()

    def grad(self, u: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Closed form: with ``g = Xᵀ(Xβ − y)/n``, ``∂L/∂u = v ⊙ g`` and ``∂L/∂v = u ⊙ g``."""
        g = self.X.T @ (self.X @ (u * v) - self.y) / self.X.shape[0]
        return v * g, u * g

    def jump_times(self, tau: np.ndarray, beta_t: np.ndarray) -> np.ndarray:
        """Per coordinate, the first τ at which β_i(τ)/β*_i reaches ½: ``(d,)``."""
        frac = beta_t / self.beta.numpy()
        return np.array([first_crossing(tau, frac[:, i], 0.5, below=False) for i in range(frac.shape[1])])


def diag_problem(seed: int = 0, alpha: float = DIAG_ALPHA) -> Diag:
    """The authors' setting with our own draw: ``x ~ N(0, diag(1, 1/2, …, 1/d))``,
    ``β* = 10·N(0, I_d)``, noiseless ``y = Xβ*``."""
    gen = generator(seed)
    scale = torch.arange(1, DIAG_D + 1, dtype=F64).rsqrt()
    X = torch.randn(DIAG_N, DIAG_D, generator=gen, dtype=F64) * scale
    beta = 10 * torch.randn(DIAG_D, generator=gen, dtype=F64)
    return Diag(X=X, y=X @ beta, beta=beta, alpha=alpha)


def diag_gd(prob: Diag, eta: float, tau_end: float) -> tuple[np.ndarray, int]:
    """Jump times of plain GD at step ``eta`` (closed-form gradient; β every step) and its steps.

    The reference for a model that is not a TwoLayer (lrlib.train only trains TwoLayer).
    """
    steps = int(round(tau_end / eta))
    th = prob.theta0()
    u, v = th["u"], th["v"]
    betas = torch.empty(steps + 1, u.shape[0], dtype=F64)
    betas[0] = u * v
    for s in range(steps):
        gu, gv = prob.grad(u, v)
        u, v = u - eta * gu, v - eta * gv
        betas[s + 1] = u * v
    return prob.jump_times(np.arange(steps + 1) * eta, betas.numpy()), steps


def diag_flow(prob: Diag, tau_end: float, *, rtol: float, atol: float, method: str = "RK45",
              records: int = 4000) -> tuple[np.ndarray, int]:
    """Jump times of the adaptive flow (``records`` evenly spaced records) and its gradient evaluations."""
    tau = np.linspace(0.0, tau_end, records + 1)
    res = integrate(prob.loss, prob.theta0(), tau, rtol=rtol, atol=atol, method=method)
    beta_t = (res.states["u"] * res.states["v"]).numpy()
    return prob.jump_times(tau, beta_t), res.grad_evals
