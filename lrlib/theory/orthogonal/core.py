"""Boursier, Pillaud-Vivien & Flammarion (NeurIPS 2022): gradient flow of a
two-layer ReLU network ``h(x) = Σ_j a_j σ(⟨w_j, x⟩)`` on the square loss
``L = 1/(2n) Σ_k (h(x_k) − y_k)²`` with orthogonal inputs, balanced small init.

Closed forms (the paper's displays, some rebuilt from its prose; every one is tested in
``tests/test_theory_orthogonal_core.py``):

* key vectors ``D_± = (1/n) Σ_{±y_k > 0} y_k x_k`` and ``r = ‖D_+‖/‖D_−‖``;
* the neuron sets ``S_{±,1}`` (sign ±1 and active on every ±-label point at init);
* the limit ``h*(x) = σ(Σ_{y_k>0} y_k⟨x_k,x⟩/‖x_k‖²) − σ(Σ_{y_k<0} |y_k|⟨x_k,x⟩/‖x_k‖²)``
  and its parameter norm ``‖θ*‖² = 2(‖ỹ_+‖ + ‖ỹ_−‖)`` with ``ỹ_k = y_k/‖x_k‖``;
* the plateau (strict saddle) loss ``1/(2n) Σ_{y_k<0} y_k²`` when ``r > 1``;
* phase times ``t_{±1} = −ε ln λ / ‖D_±‖``; growth phases end after
  ``≈ ln(1/λ)/‖D_+‖`` and ``≈ ln(1/λ)/‖D_−‖``;
* the local (linearised) loss decay rate after convergence.

Conventions: ``X`` is ``(n, d)``, the inputs ``x_k`` (rows; the closed forms assume them pairwise
orthogonal), and ``y`` is ``(n,)``, the labels ``y_k``; an argument written ``X, y : Tensor / The data (module conventions)`` is this pair.
Networks are :class:`lrlib.models.TwoLayer` with scalar output and run axes ``(R...)``.
Paper time ``t`` (gradient flow on the ½-mean loss).  The authors'
code minimises the mean MSE (twice the loss), so one of their GD steps of size
``η`` is paper time ``2η``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from ...errors import ParameterError
from ...losses import half_mse
from ...measure import active
from ...models import TwoLayer, forward, generator, sweep_init

Tensor = torch.Tensor


@dataclass(frozen=True)
class KeyVectors:
    """The key vectors ``D_+``, ``D_−`` of Lemma 2, with their norms and ``r = ‖D_+‖/‖D_−‖``.

    Parameters
    ----------
    D_plus : Tensor
        ``(d,)`` ``D_+ = (1/n) Σ_{y_k>0} y_k x_k``.
    D_minus : Tensor
        ``(d,)`` ``D_− = (1/n) Σ_{y_k<0} y_k x_k``.
    """

    D_plus: Tensor
    D_minus: Tensor

    @property
    def norm_plus(self) -> float:
        return float(torch.linalg.vector_norm(self.D_plus))

    @property
    def norm_minus(self) -> float:
        return float(torch.linalg.vector_norm(self.D_minus))

    @property
    def r(self) -> float:
        return self.norm_plus / self.norm_minus


def check_orthogonal(X: Tensor, tol: float = 1e-12) -> None:
    """Raise unless the inputs are pairwise orthogonal (Assumption 1).

    Parameters
    ----------
    X : Tensor
        ``(n, d)`` inputs.
    tol : float
        Largest off-diagonal Gram entry allowed, relative to the largest squared norm.

    Raises
    ------
    ParameterError
        If two inputs are not orthogonal.
    """
    G = X @ X.T
    off = G - torch.diag(torch.diagonal(G))
    if off.abs().max() > tol * G.diagonal().max():
        raise ParameterError("inputs are not pairwise orthogonal (Assumption 1 of Boursier et al.)")


def key_vectors(X: Tensor, y: Tensor) -> KeyVectors:
    """The key vectors ``D_± = (1/n) Σ_{±y_k>0} y_k x_k``.

    Parameters
    ----------
    X, y : Tensor
        The data (module conventions); orthogonality is not needed here.

    Returns
    -------
    KeyVectors
        ``D_+`` and ``D_−``, each ``(d,)``, with their norms and ``r``.
    """
    n = X.shape[0]
    pos, neg = (y > 0).to(X.dtype), (y < 0).to(X.dtype)
    return KeyVectors(D_plus=(pos * y) @ X / n, D_minus=(neg * y) @ X / n)


def s_sets(p: TwoLayer, X: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    """The neuron sets ``S_{+,1}`` and ``S_{−,1}`` of Assumption 3 at the network ``p`` (its init).

    ``S_{+,1}``: ``a_j > 0`` and ``⟨w_j, x_k⟩ > 0`` for every ``y_k > 0``; mirror for ``S_{−,1}``.

    Parameters
    ----------
    p : TwoLayer
        Scalar-output network, runs ``(R...)``.
    X, y : Tensor
        The data (module conventions) on which the sets are read.

    Returns
    -------
    S_plus, S_minus : Tensor
        ``(R..., m)`` boolean masks.
    """
    act = active(p.W1, X).transpose(-1, -2)  # (R..., n, m)
    on_pos = act[..., y > 0, :].all(-2)
    on_neg = act[..., y < 0, :].all(-2)
    return (p.a > 0) & on_pos, (p.a < 0) & on_neg


def assumption3_failure_probability(m: int, n_plus: int, n_minus: int) -> float:
    """Upper bound on P(``S_{+,1} = ∅`` or ``S_{−,1} = ∅``) for a Gaussian init on orthogonal inputs:
    ``(1 − 2^{−n_+−1})^m + (1 − 2^{−n_−−1})^m`` (capped at 1).

    Parameters
    ----------
    m : int
        Width.
    n_plus, n_minus : int
        Numbers of positive and negative labels.

    Returns
    -------
    float
        A probability bound, at most 1.
    """
    return min(1.0, (1 - 2.0 ** (-n_plus - 1)) ** m + (1 - 2.0 ** (-n_minus - 1)) ** m)


def _scaled_labels(X: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    sq = (X * X).sum(-1)
    return y / sq.sqrt(), sq


def min_norm_squared(X: Tensor, y: Tensor) -> float:
    """The minimal squared parameter norm of an interpolator on orthogonal inputs:
    ``min{‖θ‖² : h_θ(x_k) = y_k ∀k} = 2(‖ỹ_+‖ + ‖ỹ_−‖)``, ``ỹ_k = y_k/‖x_k‖``.

    Parameters
    ----------
    X, y : Tensor
        The data to interpolate (module conventions).

    Returns
    -------
    float
        ``2(‖ỹ_+‖ + ‖ỹ_−‖)``.
    """
    yt, _ = _scaled_labels(X, y)
    return 2 * float(torch.linalg.vector_norm(yt[y > 0]) + torch.linalg.vector_norm(yt[y < 0]))


def min_f1_norm(X: Tensor, y: Tensor) -> float:
    """The minimal F1 (path) cost ``Σ_j |a_j| ‖w_j‖`` over interpolators (half of :func:`min_norm_squared`).

    Parameters
    ----------
    X, y : Tensor
        The data to interpolate (module conventions), as for :func:`min_norm_squared`.

    Returns
    -------
    float
        ``‖ỹ_+‖ + ‖ỹ_−‖``.
    """
    return min_norm_squared(X, y) / 2


def limit_function(X: Tensor, y: Tensor, Z: Tensor) -> Tensor:
    """The two-neuron limit ``h*`` of Theorem 1:
    ``h*(z) = σ(Σ_{y_k>0} y_k⟨x_k,z⟩/‖x_k‖²) − σ(Σ_{y_k<0} |y_k|⟨x_k,z⟩/‖x_k‖²)``.

    Parameters
    ----------
    X, y : Tensor
        The data (module conventions) that ``h*`` interpolates.
    Z : Tensor
        ``(N, d)`` where to evaluate it.

    Returns
    -------
    Tensor
        ``(N,)`` values.
    """
    _, sq = _scaled_labels(X, y)
    c = y / sq  # h*(x_k) = y_k exactly on orthogonal data
    up = torch.relu(Z @ ((c * (y > 0)) @ X))
    down = torch.relu(Z @ ((-c * (y < 0)) @ X))
    return up - down


def alignment_directions(kv: KeyVectors) -> tuple[Tensor, Tensor]:
    """Phase-1 targets (Lemma 2): ``D_+/‖D_+‖`` for ``S_{+,1}`` and ``−D_−/‖D_−‖`` for ``S_{−,1}``.

    Parameters
    ----------
    kv : KeyVectors

    Returns
    -------
    u_plus, u_minus : Tensor
        ``(d,)`` unit vectors.
    """
    return kv.D_plus / kv.norm_plus, -kv.D_minus / kv.norm_minus


def fit_vectors(X: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    """The vectors ``v_± = Σ_{±y_k>0} |y_k| x_k/‖x_k‖²``: a neuron mass ``‖v_±‖`` along ``v_±`` fits the
    ±-labels exactly (orthogonal inputs). Equal to ``±n D_±`` for unit-norm inputs.

    Parameters
    ----------
    X, y : Tensor
        The data (module conventions) whose ±-labels ``v_±`` fit.

    Returns
    -------
    v_plus, v_minus : Tensor
        ``(d,)`` each.
    """
    _, sq = _scaled_labels(X, y)
    c = y.abs() / sq
    return (c * (y > 0)) @ X, (c * (y < 0)) @ X


def limit_directions(X: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    """Unit directions of the two limit clusters, ``v_+/‖v_+‖`` and ``v_−/‖v_−‖`` (:func:`fit_vectors`).

    For unit-norm inputs these are ``D_+/‖D_+‖`` and ``−D_−/‖D_−‖``, the directions the neurons align
    with in phase 1.

    Parameters
    ----------
    X, y : Tensor
        The data (module conventions), as for :func:`fit_vectors`.

    Returns
    -------
    u_plus, u_minus : Tensor
        ``(d,)`` unit vectors.
    """
    vp, vm = fit_vectors(X, y)
    return vp / torch.linalg.vector_norm(vp), vm / torch.linalg.vector_norm(vm)


def plateau_loss(y: Tensor, r_gt_1: bool = True) -> float:
    """The loss at the intermediate strict saddle θ_S: ``1/(2n) Σ y_k²`` over the labels fitted last.

    Parameters
    ----------
    y : Tensor
        ``(n,)`` labels.
    r_gt_1 : bool
        ``True`` when ``r = ‖D_+‖/‖D_−‖ > 1`` (the negative labels are fitted last).

    Returns
    -------
    float
        Paper units (½-mean loss L).
    """
    side = y < 0 if r_gt_1 else y > 0
    return float((y[side] ** 2).sum() / (2 * y.numel()))


@dataclass(frozen=True)
class PhaseTimes:
    """The theory's time scales (paper time t) for an init scale λ and ε (:func:`phase_times`).

    Parameters
    ----------
    t_plus1 : float
        End of the alignment of ``S_{+,1}``, ``−ε ln λ / ‖D_+‖``.
    t_minus1 : float
        End of the alignment of ``S_{−,1}``, ``−ε ln λ / ‖D_−‖``.
    t2_scale : float
        The positive labels are fitted after ``≈ ln(1/λ)/‖D_+‖``.
    t3_scale : float
        The negative labels are fitted after ``≈ ln(1/λ)/‖D_−‖``.
    t2_bound : float
        Lemma 3's bound ``t_2 ≤ −(1 + 3ε) ln λ / ‖D_+‖``.
    t3_bound : float
        Lemma 4's bound ``t_3 ≤ −(1 + 3rε) ln λ / ‖D_−‖``.
    """

    t_plus1: float   # end of alignment of S_{+,1}:  −ε ln λ / ‖D_+‖
    t_minus1: float  # end of alignment of S_{−,1}:  −ε ln λ / ‖D_−‖
    t2_scale: float  # positive labels fitted after ≈ ln(1/λ)/‖D_+‖
    t3_scale: float  # negative labels fitted after ≈ ln(1/λ)/‖D_−‖
    t2_bound: float  # Lemma 3: t_2 ≤ −(1 + 3ε) ln λ / ‖D_+‖
    t3_bound: float  # Lemma 4: t_3 ≤ −(1 + 3rε) ln λ / ‖D_−‖


def phase_times(kv: KeyVectors, lam: float, eps: float = 0.1) -> PhaseTimes:
    """The phase times of Lemmas 2–4 (paper time t).

    Parameters
    ----------
    kv : KeyVectors
    lam : float
        Initialisation scale λ.
    eps : float
        The lemmas' ε.

    Returns
    -------
    PhaseTimes
    """
    L = -math.log(lam)
    return PhaseTimes(eps * L / kv.norm_plus, eps * L / kv.norm_minus, L / kv.norm_plus, L / kv.norm_minus,
                      (1 + 3 * eps) * L / kv.norm_plus, (1 + 3 * kv.r * eps) * L / kv.norm_minus)


def local_rate(kv: KeyVectors, n_last: int) -> float:
    """Asymptotic decay rate of ``ln L`` after convergence (Lemma 5; our derivation).

    Linearising around the limit, the slowest residual mode of the side fitted last decays at
    ``‖D_−‖`` (``n_last ≥ 2``) or ``2‖D_−‖`` (``n_last = 1``), so the loss at twice that.

    Parameters
    ----------
    kv : KeyVectors
    n_last : int
        Number of labels of the side fitted last.

    Returns
    -------
    float
        Rate per unit of paper time.
    """
    return 2 * kv.norm_minus * (2 if n_last == 1 else 1)


def saddle_point(X: Tensor, y: Tensor, m_plus: int = 1) -> TwoLayer:
    """A point of the saddle θ_S: ``m_plus`` neurons along ``v_+`` (:func:`fit_vectors`) with
    ``Σ ‖w_j‖² = ‖v_+‖`` (``= n‖D_+‖`` on unit-norm inputs; balanced, ``a_j = ‖w_j‖``), plus one zero
    neuron. It fits the positive labels exactly and leaves the negative ones at 0.

    Parameters
    ----------
    X, y : Tensor
        The data (module conventions); the saddle fits its positive labels.
    m_plus : int
        Number of neurons sharing the positive cluster.

    Returns
    -------
    TwoLayer
        One run, width ``m_plus + 1``.
    """
    vp, _ = fit_vectors(X, y)
    mass = float(torch.linalg.vector_norm(vp))          # Σ_j ‖w_j‖² needed to fit the positive labels
    u = vp / mass
    norm = math.sqrt(mass / m_plus)
    W1 = torch.cat([norm * u.expand(m_plus, -1), torch.zeros(1, X.shape[1], dtype=X.dtype)])
    a = torch.cat([torch.full((m_plus,), norm, dtype=X.dtype), torch.zeros(1, dtype=X.dtype)])
    return TwoLayer(W1=W1, W2=a.unsqueeze(0))


def escape_curvature(X: Tensor, y: Tensor, deltas: Tensor) -> tuple[Tensor, float]:
    """The loss along the escape direction from θ_S (orthonormal inputs only).

    The zero neuron of :func:`saddle_point` is set to ``w = δ(−D_−/‖D_−‖)``, ``a = −δ``.

    Parameters
    ----------
    X, y : Tensor
        The data (module conventions); orthonormal inputs only.
    deltas : Tensor
        ``(K,)`` the values of δ.

    Returns
    -------
    dL : Tensor
        ``(K,)`` ``L(δ) − L(θ_S)`` (paper loss L).
    slope : float
        The predicted slope of ``dL`` against ``δ²``, ``−‖D_−‖``.
    """
    kv = key_vectors(X, y)
    base = saddle_point(X, y)
    v = -kv.D_minus / kv.norm_minus
    out = []
    for dlt in deltas:
        p = base.clone()
        p.W1[-1] = dlt * v
        p.W2[0, -1] = -dlt
        out.append(half_mse()(forward(p, X), y))
    return torch.stack(out) - half_mse()(forward(base, X), y), -kv.norm_minus


def unbalanced_sweep_init(m: int, d: int, lams: Tensor, seeds: int, seed: int,
                          out_std: float | None = None) -> TwoLayer:
    """Unbalanced initialisations for a λ-sweep (§3.2's remark), on the draws of
    :func:`lrlib.models.sweep_init`.

    The hidden layer and the signs are those of ``sweep_init(m, d, lams, seeds, seed)``
    (``w_j = λ g_j``, signs ``s_j``); the output layer is redrawn as ``a_j = c s_j |b_j|`` with
    ``b_j ~ N(0, 1)`` independent (generator ``seed + 13``). ``s_j |b_j|`` is a standard Gaussian,
    so ``a_j ~ N(0, c²)`` i.i.d., and ``sign(a_j) = s_j`` keeps the neuron sets ``S_{±,1}`` of the
    balanced draw.

    Parameters
    ----------
    m, d : int
        Width and input dimension.
    lams : Tensor
        ``(K,)`` initialisation scales λ.
    seeds : int
        Number of draws (the leading run axis).
    seed : int
        Base seed, as for ``sweep_init``.
    out_std : float or None
        ``c``. ``None``: ``c = λ`` (the paper's "Gaussian scaling with λ", nearly balanced as
        λ → 0); a number: the same ``c`` for every λ (an imbalance that does not vanish).

    Returns
    -------
    TwoLayer
        Runs ``(seeds, K)``: ``W1 (seeds, K, m, d)``, ``W2 (seeds, K, 1, m)``.
    """
    if out_std is not None and not out_std > 0:
        raise ParameterError(f"out_std must be > 0 or None, got {out_std!r}")
    base = sweep_init(m, d, lams, seeds=seeds, seed=seed)
    b = torch.randn((seeds, 1, 1, m), generator=generator(seed + 13), dtype=torch.float64).abs()
    c = lams.to(torch.float64).view(1, -1, 1, 1) if out_std is None else torch.tensor(float(out_std), dtype=torch.float64)
    return TwoLayer(W1=base.W1, W2=(torch.sign(base.W2) * b * c).to(base.W2.dtype))


__all__ = ["alignment_directions", "assumption3_failure_probability", "check_orthogonal", "escape_curvature",
           "fit_vectors", "key_vectors", "KeyVectors", "limit_directions", "limit_function", "local_rate",
           "min_f1_norm", "min_norm_squared", "phase_times", "PhaseTimes", "plateau_loss", "s_sets",
           "saddle_point", "unbalanced_sweep_init"]
