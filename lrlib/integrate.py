"""Adaptive gradient flow: ``dθ/dτ = −∇L(θ)`` with local error control.

Instead of many small GD steps, a well-kept adaptive Runge–Kutta solver
(:func:`scipy.integrate.solve_ivp`: ``RK45`` by default, ``DOP853`` or ``RK23``;
explicit Runge–Kutta pairs with embedded error estimates) integrates
the flow in float64 and takes long steps where the dynamics are slow (the
plateaus and the alignment phase from small initialisation).  For stiff flows of
smooth networks there is one implicit method, ``BDF`` (variable order 1–5), which
needs the Hessian of the loss (see "Cost" below).

ReLU kinks: the gradient field is only piecewise smooth (a pre-activation
crossing 0 switches a term on or off; autograd uses σ'(0) = 0, as
:func:`lrlib.train.train` does).  A step that straddles a kink has a large
embedded error estimate, so the solver **rejects** it and retries with a smaller
step until the local error is below ``atol + rtol·|θ|`` again.  No kink
detection is needed, at the price of a few rejected steps (they are counted in
the gradient evaluations).  (Use the explicit methods for ReLU networks: a
Jacobian across a kink stalls implicit solvers such as LSODA on these nets.)

Cost: explicit methods are stability-limited where the loss is converged and
stiff (step ≲ 3/λ_max(Hessian), about GD's own limit 2/λ_max), so the gain
over GD comes from the plateaus and the growth phases, not from the tail.
Where the tail is long and stiff (a converged part of the network beside
slowly growing dormant neurons, e.g. modular addition from small α), ``BDF``
takes steps set by accuracy alone, at the price of a Hessian now and then and an
LU factorisation of a ``P × P`` matrix whenever its step changes; :func:`flow`
then integrates the runs one after another (each run its own steps and a
``P × P`` rather than ``RP × RP`` system).

Two entry points:

* :func:`flow` mirrors :func:`lrlib.train.train` for a :class:`TwoLayer`: it
  records at GD step indices ``s`` (GD at step ``lr`` approximates the flow at
  ``τ = s·lr``), and returns a :class:`~lrlib.trajectory.Trajectory` with the same
  fields and ``meta`` (``steps``, ``time = steps·lr·time_scale``, loss, lr,
  time_scale, …), so trackers work unchanged; ``meta["grad_evals"]`` is the
  number of gradient evaluations.
* :func:`integrate` takes any loss closure over a dict of tensors (e.g. a
  diagonal linear network) and returns the states at requested times.

Gradients: :func:`flow` uses the same closed forms as the GD loop
(:func:`lrlib.grads.backprop`, tested against autograd); :func:`integrate` uses
autograd on the caller's loss closure unless given ``value_and_grad``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import numpy as np
import torch
from scipy.integrate import solve_ivp

from . import grads as closed_forms
from .errors import DivergenceError, ParameterError
from .checks import PARAM_NAMES, positive_int, positive_number, run_arguments
from .schedules import record_steps
from .losses import Loss
from .models import TwoLayer, forward
from .trajectory import Trajectory

Tensor = torch.Tensor
F64 = torch.float64
EXPLICIT = ("RK45", "DOP853", "RK23")
METHODS = EXPLICIT + ("BDF",)


@dataclass
class FlowResult:
    """What :func:`integrate` returns.

    Parameters
    ----------
    states : dict of str to Tensor
        ``{name: (T, …)}`` the parameters at each requested time (float64).
    loss : Tensor
        ``(T, R...)`` the closure's loss at each requested time.
    times : np.ndarray
        ``(T,)`` the requested flow times ``τ``.
    grad_evals : int
        Gradient evaluations used (every call of the right-hand side: rejected steps included).
    method, rtol, atol : str, float, float
        The solver settings.
    hessian_evals : int
        Hessians used (``BDF`` only; 0 for the explicit methods).
    """

    states: dict[str, Tensor]
    loss: Tensor
    times: np.ndarray
    grad_evals: int
    method: str
    rtol: float
    atol: float
    hessian_evals: int = 0


def _check_solver(method: str, rtol: float, atol: float) -> None:
    if method not in METHODS:
        raise ParameterError(f"method must be one of {METHODS} (solve_ivp methods), got {method!r}")
    positive_number("rtol", rtol)
    positive_number("atol", atol)


def integrate(
    loss_fn: Callable[[dict[str, Tensor]], Tensor],
    theta0: dict[str, Tensor],
    times: Sequence[float] | np.ndarray,
    *,
    method: str = "RK45",
    rtol: float = 1e-6,
    atol: float = 1e-12,
    max_loss: float = 1e30,
    max_evals: int = 200_000,
    value_and_grad: Callable[[dict[str, Tensor]], tuple[Tensor, dict[str, Tensor]]] | None = None,
    hessian: Callable[[dict[str, Tensor]], Tensor] | None = None,
) -> FlowResult:
    """Integrate ``dθ/dτ = −∇_θ Σ loss_fn(θ)`` from ``τ = 0`` and record at ``times``.

    Parameters
    ----------
    loss_fn : callable
        ``{name: tensor} -> (R...)`` loss per run; runs are summed for the gradient, so
        independent runs do not interact (as in ``train``).
    theta0 : dict of str to Tensor
        Initial tensors (not modified); cast to float64.
    times : sequence of float
        Increasing record times ``τ ≥ 0`` ``(T,)`` (units of the flow of ``loss_fn``).
    method, rtol, atol : str, float, float
        :func:`scipy.integrate.solve_ivp` settings (one of ``METHODS``); the local error of each
        step is kept below ``atol + rtol·|θ|`` componentwise, so ``atol`` must sit well below the
        smallest parameter scale you care about.
    max_loss : float
        A non-finite gradient or a loss above it raises DivergenceError.
    max_evals : int
        More gradient evaluations than this raise DivergenceError.  This is what happens when
        the flow *slides along* a kink (both sides push a pre-activation towards 0): the
        solver's steps shrink without end.  Use GD (``lrlib.train.train``) for such runs.
    value_and_grad : callable or None
        Optional ``θ -> (loss (R...), {name: ∂Σloss/∂θ_name})`` computed in closed form (must
        agree with autograd on ``loss_fn``); ``None``: autograd.
    hessian : callable or None
        ``BDF`` only: ``θ -> (P, P)`` the Hessian of ``Σ loss_fn`` over the parameters flattened in
        the order of ``theta0`` (each tensor row-major); ``None``: autograd
        (:func:`torch.autograd.functional.hessian`, fine for small ``P``).

    Returns
    -------
    FlowResult
        The states ``{name: (T, …)}`` and loss ``(T, R...)`` at ``times``, and the cost.

    Raises
    ------
    ParameterError
        When a solver setting, ``max_evals`` or ``times`` is invalid.
    DivergenceError
        When the flow diverges or needs more than ``max_evals`` gradient evaluations.
    """
    _check_solver(method, rtol, atol)
    if hessian is not None and method in EXPLICIT:
        raise ParameterError(f"hessian is used by the implicit method BDF only, got method {method!r}")
    max_evals = positive_int("max_evals", max_evals)
    times = np.asarray(times, dtype=np.float64)
    if times.ndim != 1 or times.size == 0 or times[0] < 0 or np.any(np.diff(times) < 0):
        raise ParameterError("times must be a non-empty increasing 1-D sequence of values ≥ 0")
    names = list(theta0)
    shapes = [tuple(theta0[k].shape) for k in names]
    sizes = [math.prod(s) for s in shapes]
    y0 = torch.cat([theta0[k].detach().to(F64).reshape(-1) for k in names]).numpy().copy()

    def unflatten(vec: np.ndarray) -> dict[str, Tensor]:
        parts = torch.from_numpy(np.ascontiguousarray(vec)).split(sizes)
        return {k: t.view(s) for k, t, s in zip(names, parts, shapes)}

    evals = [0]

    def rhs(_t: float, vec: np.ndarray) -> np.ndarray:
        evals[0] += 1
        if evals[0] > max_evals:
            raise DivergenceError(
                f"gradient flow used more than max_evals = {max_evals} gradient evaluations by τ = {_t:.6g} "
                f"(steps shrinking without end: the flow probably slides along a ReLU kink); use lrlib.train.train")
        if value_and_grad is not None:
            theta = unflatten(vec)
            with torch.no_grad():
                L, gd = value_and_grad(theta)
            grads = [gd.get(k) for k in names]
        else:
            theta = {k: t.requires_grad_(True) for k, t in unflatten(vec).items()}
            L = loss_fn(theta)
            grads = torch.autograd.grad(L.sum(), list(theta.values()), allow_unused=True)
        g = torch.cat([(torch.zeros_like(theta[k]) if gk is None else gk).reshape(-1)
                       for k, gk in zip(names, grads)])
        if not torch.isfinite(g).all() or not torch.isfinite(L).all() or (L.detach() > max_loss).any():
            raise DivergenceError(f"gradient flow diverged at τ = {_t:.6g} (loss = {L.detach().max().item():.3g})")
        return -g.numpy()

    hess_evals = [0]

    def jac(_t: float, vec: np.ndarray) -> np.ndarray:
        hess_evals[0] += 1
        with torch.no_grad():
            if hessian is not None:
                Hm = hessian(unflatten(vec))
            else:
                def total(v: Tensor) -> Tensor:
                    parts = v.split(sizes)
                    return loss_fn({k: t.view(s) for k, t, s in zip(names, parts, shapes)}).sum()
                with torch.enable_grad():
                    Hm = torch.autograd.functional.hessian(total, torch.from_numpy(vec.copy()))
        return -Hm.numpy()

    extra = dict(jac=jac) if method not in EXPLICIT else {}
    sol = solve_ivp(rhs, (0.0, float(times[-1])), y0, method=method, t_eval=times, rtol=rtol, atol=atol, **extra)
    if sol.status != 0:
        raise DivergenceError(f"solve_ivp stopped at τ = {sol.t[-1] if sol.t.size else 0:.6g}: {sol.message}")
    Y = torch.from_numpy(sol.y.T.copy())                        # (T, P)
    states = {k: t.reshape(len(times), *s) for k, t, s in zip(names, Y.split(sizes, dim=1), shapes)}
    with torch.no_grad():
        loss = torch.stack([loss_fn({k: v[i] for k, v in states.items()}) for i in range(len(times))])
    return FlowResult(states=states, loss=loss, times=times, grad_evals=evals[0],
                      method=method, rtol=rtol, atol=atol, hessian_evals=hess_evals[0])


def input_basis(X: Tensor, rtol: float = 1e-10) -> Tensor:
    """An orthonormal basis of the row space of the inputs.

    Parameters
    ----------
    X : ``(n, d)`` inputs.
    rtol : singular values below ``rtol·s_max`` count as zero.

    Returns
    -------
    Tensor
        ``Q`` ``(d, r)`` with orthonormal columns spanning the rows of ``X`` (``r`` its rank).
    """
    _, sv, Vh = torch.linalg.svd(X, full_matrices=False)
    return Vh[: int((sv > rtol * sv[0]).sum())].T


def flow(
    p0: TwoLayer, X: Tensor, y: Tensor, *, loss: Loss, lr: float, steps: int,   # as train's
    record: int | Sequence[int] | np.ndarray = 200, time_scale: float = 1.0,
    trainable: Iterable[str] = PARAM_NAMES,
    method: str = "RK45",
    rtol: float = 1e-6,
    atol: float = 1e-12,
    max_loss: float = 1e30,
    max_evals: int = 200_000,
    hessian_fn: Callable[[TwoLayer, Tensor, Tensor], Tensor] | None = None,
    meta: dict | None = None,
) -> Trajectory:
    """The gradient flow that GD ``train(p0, X, y, loss=loss, lr=lr, steps=steps)`` approximates.

    Integrates ``dθ/dτ = −∇ loss(forward(θ, X), y)`` (float64) up to ``τ = steps·lr``
    and records at the GD step indices ``record`` (a count of log-spaced steps, or
    explicit steps, as in ``train``), i.e. at ``τ = s·lr``.  The returned
    Trajectory has ``steps``, ``time = steps·lr·time_scale``, ``loss`` ``(T, R...)``
    and the same ``meta`` keys as ``train`` (``momentum = 0``, ``batch_size = None``,
    ``seed = None``), plus ``integrator``, ``rtol``, ``atol`` and ``grad_evals``.
    ``lr`` only fixes the time axis: the solver chooses its own steps.
    Parameters with run dimensions ``R...`` are integrated together (one error
    control for all runs; ``grad_evals`` is for the whole batch) by the explicit
    methods, and one run after another by ``BDF`` (``grad_evals`` and
    ``hessian_evals`` summed over the runs).

    ``BDF`` also integrates ``W1`` in the coordinates of the inputs' row space
    (:func:`input_basis`, ``Q``: ``d × r``): every neuron's gradient is a combination
    of inputs, so the part of ``W1`` orthogonal to them never moves, and the flow of
    ``C = W1 Q`` is the flow of the same network on the inputs ``X Q``.  With
    ``r < d`` the implicit solver's ``P × P`` systems shrink (modular addition:
    ``d = 40``, ``r = 12``); ``W1(τ) = W1(0)(I − QQᵀ) + C(τ)Qᵀ`` is returned.

    Parameters
    ----------
    p0 : TwoLayer
        The initial network, as in :func:`lrlib.train.train` (cast to float64).
    X, y : Tensor
        Inputs and targets, as in :func:`lrlib.train.train` (``X`` and a floating ``y`` are cast to
        float64).
    loss : Loss
        The loss, as in :func:`lrlib.train.train`.
    lr : float
        The GD step the flow stands in for: it fixes the time axis only.
    steps : int
        GD steps; ``steps·lr`` is the final flow time τ.
    record : int or sequence of int or np.ndarray
        A count of log-spaced steps, or explicit steps, as in :func:`lrlib.train.train`.
    time_scale : float
        Factor from flow time τ to the recorded ``time``.
    trainable : iterable of str
        The parameters that move, as in :func:`lrlib.train.train`.
    meta : dict or None
        Extra keys for the Trajectory's ``meta``, as in :func:`lrlib.train.train`.
    method : str
        Solver, as in :func:`integrate`.
    rtol, atol : float
        Tolerances, as in :func:`integrate`.
    max_loss : float
        Divergence threshold, as in :func:`integrate`.
    max_evals : int
        Gradient-evaluation budget, as in :func:`integrate`.
    hessian_fn : callable or None
        ``BDF`` only: ``(net, X, y) -> (P, P)`` the Hessian of the loss of one run (no run
        dimensions) over its trainable tensors in the order ``W1, b1, W2, b2``, each flattened
        row-major (e.g. :func:`lrlib.theory.agf.models.square_hessian`); ``None``: autograd.
        It is called with the row-space coordinates (``net.W1 = C``, ``X Q``; see above).

    Returns
    -------
    Trajectory
        Snapshots at the recorded steps: parameters ``(T, R..., …)``, loss ``(T, R...)``.

    Raises
    ------
    ParameterError
        When an argument is invalid.
    DivergenceError
        As in :func:`integrate`.
    """
    trainable = tuple(trainable)
    X64 = X.to(F64)
    y64 = y.to(F64) if y.is_floating_point() else y
    p64 = p0.to(F64)
    run_arguments(p64, X64, y64, lr=lr, steps=steps, trainable=trainable)
    trainable = tuple(n for n in trainable if getattr(p64, n) is not None)
    sched = record_steps(record, steps)
    frozen = {k: v for k, v in p64.tensors().items() if k not in trainable}

    if hessian_fn is not None and method in EXPLICIT:
        raise ParameterError(f"hessian_fn is used by the implicit method BDF only, got method {method!r}")

    Xs, Q = X64, None
    if method not in EXPLICIT and "W1" in trainable:
        Q = input_basis(X64)
        Q, Xs = (None, X64) if Q.shape[1] == X64.shape[1] else (Q, X64 @ Q)

    def solve(net: TwoLayer) -> FlowResult:
        if Q is not None:                                           # W1 in the inputs' row-space coordinates
            net = TwoLayer(act=net.act, **{**net.tensors(), "W1": net.W1 @ Q})
        fixed = {k: v for k, v in net.tensors().items() if k not in trainable}

        def with_(theta: dict[str, Tensor]) -> TwoLayer:
            return TwoLayer(act=net.act, **fixed, **theta)

        def value_and_grad(theta: dict[str, Tensor]) -> tuple[Tensor, dict[str, Tensor]]:
            return closed_forms.backprop(with_(theta), Xs, y64, loss, trainable=trainable)

        hess = None
        if hessian_fn is not None:
            def hess(theta: dict[str, Tensor]) -> Tensor:
                return hessian_fn(with_(theta), Xs, y64)

        return integrate(lambda theta: loss(forward(with_(theta), Xs), y64), {k: getattr(net, k) for k in trainable},
                         sched * float(lr), method=method, rtol=rtol, atol=atol, max_loss=max_loss,
                         max_evals=max_evals, hessian=hess,
                         value_and_grad=value_and_grad if closed_forms.supported(net, loss) else None)

    T = len(sched)
    run_shape = tuple(p64.W1.shape[:-2])
    if method not in EXPLICIT and run_shape:                               # one run after another
        flat = p64.map(lambda t: t.reshape(-1, *t.shape[len(run_shape):]))
        parts = [solve(flat[r]) for r in range(math.prod(run_shape))]
        states = {k: torch.stack([q.states[k] for q in parts], 1).reshape(T, *run_shape, *parts[0].states[k].shape[1:])
                  for k in parts[0].states}
        res = FlowResult(states=states, loss=torch.stack([q.loss for q in parts], 1).reshape(T, *run_shape),
                         times=parts[0].times, grad_evals=sum(q.grad_evals for q in parts), method=method,
                         rtol=rtol, atol=atol, hessian_evals=sum(q.hessian_evals for q in parts))
    else:
        res = solve(p64)
    if Q is not None:                                              # back: the orthogonal part never moves
        res.states["W1"] = p64.W1 - p64.W1 @ Q @ Q.T + res.states["W1"] @ Q.T
    params = TwoLayer(act=p64.act, **{k: v.expand(T, *v.shape) for k, v in frozen.items()}, **res.states)
    info = dict(
        loss=loss.describe(), loss_name=loss.name, reduction=loss.reduction, loss_scale=loss.scale,
        lr=lr, momentum=0.0, batch_size=None, steps=int(steps), seed=None, dtype="float64",
        time_scale=time_scale, trainable=list(trainable),
        integrator=f"scipy.integrate.solve_ivp/{method}", rtol=rtol, atol=atol, grad_evals=res.grad_evals,
        hessian_evals=res.hessian_evals,
    )
    info.update(meta or {})
    return Trajectory(steps=sched, time=sched * lr * time_scale, params=params.map(lambda t: t.clone()),
                      loss=res.loss, meta=info)
