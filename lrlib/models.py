"""Two-layer networks ``f(x) = W2 σ(W1 x + b1) + b2`` as plain tensors.

Shapes (``R...`` are optional leading *run* dimensions, e.g. seeds or λ values,
trained together by one vectorised loop):

* ``W1``: ``(R..., m, d)`` — row ``j`` is neuron ``j``'s incoming vector ``w_j``;
* ``b1``: ``(R..., m)`` or ``None``;
* ``W2``: ``(R..., k, m)`` — column ``j`` is neuron ``j``'s outgoing vector
  (for scalar output ``k = 1`` and ``a_j = W2[..., 0, j]``);
* ``b2``: ``(R..., k)`` or ``None``.

``forward(p, X)`` takes ``X`` of shape ``(n, d)`` (shared by all runs) or
``(R..., n, d)`` (one data set per run) and returns ``(R..., n, k)``. ``cat_runs`` stacks networks
along the first run axis (real runs and their controls trained as one batch).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from typing import Callable, Iterator

import torch

from .checks import nonneg_int, positive_int
from .errors import ParameterError

Tensor = torch.Tensor

ACTIVATIONS: dict[str, Callable[[Tensor], Tensor]] = {
    "relu": torch.relu,  # autograd uses σ'(0) = 0, the subgradient the theory needs
    "linear": lambda u: u,
    "square": lambda u: u * u,
}


def activation(name: str) -> Callable[[Tensor], Tensor]:
    """The activation σ of a given name.

    Parameters
    ----------
    name : str
        A key of ``ACTIVATIONS``: ``"relu"`` (σ'(0) = 0 under autograd), ``"linear"`` or ``"square"``.

    Returns
    -------
    callable
        σ, applied element-wise to a tensor.

    Raises
    ------
    ParameterError
        When ``name`` is not a known activation.
    """
    try:
        return ACTIVATIONS[name]
    except KeyError:
        raise ParameterError(
            f"unknown activation {name!r}; choose one of {sorted(ACTIVATIONS)}"
        ) from None


@dataclass
class TwoLayer:
    """Parameters of a two-layer network ``f(x) = W2 σ(W1 x + b1) + b2`` (see the module docstring).

    Parameters
    ----------
    W1 : Tensor
        Incoming weights ``(R..., m, d)``; row ``j`` is neuron ``j``'s ``w_j``.
    W2 : Tensor
        Outgoing weights ``(R..., k, m)``; for scalar output ``a_j = W2[..., 0, j]``.
    b1 : Tensor or None
        Hidden biases ``(R..., m)``.
    b2 : Tensor or None
        Output biases ``(R..., k)``.
    act : str
        The activation's name (see :func:`activation`).
    """

    W1: Tensor
    W2: Tensor
    b1: Tensor | None = None
    b2: Tensor | None = None
    act: str = "relu"

    # ---- structure -------------------------------------------------
    @property
    def width(self) -> int:
        """Number of hidden neurons ``m``."""
        return self.W1.shape[-2]

    @property
    def in_dim(self) -> int:
        """Input dimension ``d``."""
        return self.W1.shape[-1]

    @property
    def out_dim(self) -> int:
        """Output dimension ``k``."""
        return self.W2.shape[-2]

    @property
    def runs(self) -> tuple[int, ...]:
        """Leading run dimensions ``R...`` (empty for a single network)."""
        return tuple(self.W1.shape[:-2])

    def tensors(self) -> dict[str, Tensor]:
        """The non-``None`` parameter tensors by name."""
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name != "act" and getattr(self, f.name) is not None
        }

    def map(self, fn: Callable[[Tensor], Tensor]) -> "TwoLayer":
        """Apply a function to every parameter tensor.

        Parameters
        ----------
        fn : callable
            Maps a tensor to a tensor (applied to the non-``None`` ones of :meth:`tensors`).

        Returns
        -------
        TwoLayer
            A new network with the mapped tensors and the same activation.
        """
        return replace(self, **{k: fn(v) for k, v in self.tensors().items()})

    def __getitem__(self, idx) -> "TwoLayer":
        """The runs ``p[idx]``: every parameter tensor indexed the same way along its leading axes.

        Parameters
        ----------
        idx : int, slice, tensor or tuple of them
            An index into the leading axes (run axes ``R...``, or a trajectory's snapshot axis),
            as ``t[idx]`` for every parameter ``t``.

        Returns
        -------
        TwoLayer
            A view of the selected runs, with the same activation.
        """
        return self.map(lambda t: t[idx])

    def clone(self) -> "TwoLayer":
        """A detached copy of the network."""
        return self.map(lambda t: t.detach().clone())

    def to(self, dtype: torch.dtype) -> "TwoLayer":
        """The network with every tensor cast to another dtype.

        Parameters
        ----------
        dtype : torch.dtype
            The new dtype.

        Returns
        -------
        TwoLayer
            A new network.
        """
        return self.map(lambda t: t.to(dtype))

    def __iter__(self) -> Iterator[Tensor]:
        return iter(self.tensors().values())

    # ---- per-neuron views -------------------------------------------
    def incoming(self, with_bias: bool = True) -> Tensor:
        """Per-neuron incoming vectors.

        Parameters
        ----------
        with_bias : bool
            Append ``b1`` (when there is one) as the last coordinate.

        Returns
        -------
        Tensor
            ``(R..., m, d)``, or ``(R..., m, d + 1)`` with the bias.
        """
        if with_bias and self.b1 is not None:
            return torch.cat([self.W1, self.b1.unsqueeze(-1)], dim=-1)
        return self.W1

    def outgoing(self) -> Tensor:
        """Outgoing vectors ``(R..., m, k)`` (column ``j`` of ``W2``)."""
        return self.W2.transpose(-1, -2)

    @property
    def a(self) -> Tensor:
        """Scalar output weights ``a_j`` ``(R..., m)``; only for ``k = 1``."""
        if self.out_dim != 1:
            raise ParameterError("`a` is defined only for scalar output (k = 1); use outgoing()")
        return self.W2[..., 0, :]

    def neuron_vectors(self) -> Tensor:
        """Per-neuron parameter vectors ``(R..., m, d[+1]+k)``: incoming ⊕ outgoing."""
        return torch.cat([self.incoming(), self.outgoing()], dim=-1)

    def norms_in(self, with_bias: bool = True) -> Tensor:
        """Norms ‖w_j‖ of the incoming vectors.

        Parameters
        ----------
        with_bias : bool
            Include ``b1`` (as in :meth:`incoming`).

        Returns
        -------
        Tensor
            ``(R..., m)``.
        """
        return torch.linalg.vector_norm(self.incoming(with_bias), dim=-1)

    def norms_out(self) -> Tensor:
        """‖W2[:, j]‖ ``(R..., m)`` (= |a_j| for scalar output)."""
        return torch.linalg.vector_norm(self.W2, dim=-2)

    def sq_norm(self) -> Tensor:
        """The squared parameter norm ``‖θ‖²`` (every weight and bias), ``(R...)``."""
        return sum((t ** 2).flatten(len(self.runs)).sum(-1) for t in self)


def forward(p: TwoLayer, X: Tensor) -> Tensor:
    """Network output.

    Parameters
    ----------
    p : TwoLayer
        The network.
    X : Tensor
        Inputs ``(n, d)`` (shared by all runs) or ``(R..., n, d)`` (one data set per run).

    Returns
    -------
    Tensor
        Outputs ``(R..., n, k)``.
    """
    out = activation(p.act)(preactivations(p, X)) @ p.W2.transpose(-1, -2)  # (R..., n, k)
    if p.b2 is not None:
        out = out + p.b2.unsqueeze(-2)
    return out


def preactivations(p: TwoLayer, X: Tensor) -> Tensor:
    """Hidden pre-activations ``W1 x + b1`` ``(R..., n, m)`` for every point (the first half of
    :func:`forward`).

    Parameters
    ----------
    p : TwoLayer
        The network, as in :func:`forward`.
    X : Tensor
        Its inputs ``(n, d)`` or ``(R..., n, d)``, as in :func:`forward`.

    Returns
    -------
    Tensor
        ``(R..., n, m)``.
    """
    pre = X @ p.W1.transpose(-1, -2)
    return pre + p.b1.unsqueeze(-2) if p.b1 is not None else pre


# ---------------------------------------------------------------------------
# Initialisations. Every one takes an explicit torch.Generator: no global RNG.
# ---------------------------------------------------------------------------

def generator(seed: int) -> torch.Generator:
    """A CPU generator seeded with ``seed`` (the only source of randomness).

    Parameters
    ----------
    seed : int
        The seed, ≥ 0.

    Returns
    -------
    torch.Generator

    Raises
    ------
    ParameterError
        When ``seed`` is not an integer ≥ 0.
    """
    return torch.Generator().manual_seed(nonneg_int("seed", seed))


def _randn(shape: tuple[int, ...], gen: torch.Generator, dtype: torch.dtype) -> Tensor:
    return torch.randn(shape, generator=gen, dtype=torch.float64).to(dtype)


def _check_sizes(**sizes: int) -> None:
    for name, v in sizes.items():
        positive_int(name, v)


def gaussian_init(
    m: int,
    d: int,
    k: int = 1,
    *,
    std_in: float,
    std_out: float,
    gen: torch.Generator,
    bias_in: bool = False,
    bias_out: bool = False,
    std_bias: float | None = None,
    runs: tuple[int, ...] = (),
    act: str = "relu",
    dtype: torch.dtype = torch.float64,
) -> TwoLayer:
    """I.i.d. Gaussian init: ``W1 ~ N(0, std_in²)``, ``W2 ~ N(0, std_out²)``.

    Parameters
    ----------
    m, d, k : int
        Width, input and output dimension (each ≥ 1).
    std_in, std_out : float
        Standard deviations of ``W1`` and ``W2``.
    gen : torch.Generator
        The random source (see :func:`generator`).
    bias_in, bias_out : bool
        Draw ``b1`` / ``b2`` (else ``None``).
    std_bias : float or None
        Standard deviation of the biases; ``None``: ``std_in`` for ``b1`` and ``std_out`` for ``b2``.
    runs : tuple of int
        Leading run dimensions ``R...``; every run is an independent draw.
    act : str
        The activation's name.
    dtype : torch.dtype
        The tensors' dtype (drawn in float64, then cast).

    Returns
    -------
    TwoLayer
        ``W1 (R..., m, d)``, ``W2 (R..., k, m)``, ``b1 (R..., m)``, ``b2 (R..., k)``.

    Raises
    ------
    ParameterError
        When a size is not a positive integer.
    """
    _check_sizes(m=m, d=d, k=k)
    W1 = std_in * _randn((*runs, m, d), gen, dtype)
    b1 = (std_in if std_bias is None else std_bias) * _randn((*runs, m), gen, dtype) if bias_in else None
    W2 = std_out * _randn((*runs, k, m), gen, dtype)
    b2 = (std_out if std_bias is None else std_bias) * _randn((*runs, k), gen, dtype) if bias_out else None
    return TwoLayer(W1=W1, W2=W2, b1=b1, b2=b2, act=act)


def random_signs(shape: tuple[int, ...], gen: torch.Generator, dtype: torch.dtype = torch.float64) -> Tensor:
    """I.i.d. uniform ±1 signs.

    Parameters
    ----------
    shape : tuple of int
        The shape of the result.
    gen : torch.Generator
        The random source.
    dtype : torch.dtype
        The result's dtype.

    Returns
    -------
    Tensor
        ±1 of ``shape``.
    """
    return (2 * torch.randint(0, 2, shape, generator=gen) - 1).to(dtype)


def balanced_init(
    m: int,
    d: int,
    *,
    scale: float | Tensor,
    gen: torch.Generator,
    signs: Tensor | None = None,
    runs: tuple[int, ...] = (),
    act: str = "relu",
    dtype: torch.dtype = torch.float64,
) -> TwoLayer:
    """Balanced init for scalar output: ``w_j = λ g_j``, ``a_j = s_j ‖w_j‖``.

    ``g_j ~ N(0, I_d)``; ``s_j`` i.i.d. uniform ±1 unless given.  Then ``a_j² = ‖w_j‖²``
    exactly, a balancedness that gradient flow conserves.

    Parameters
    ----------
    m, d : int
        Width and input dimension.
    gen : torch.Generator
        The random generator.
    runs : tuple of int
        Leading run dimensions ``R...``.
    act : str
        The activation's name.
    dtype : torch.dtype
        Floating type of the parameters (all as in :func:`gaussian_init`).
    scale : float or Tensor
        λ > 0: a float or a tensor broadcastable to ``runs`` (e.g. one λ per run).
    signs : Tensor or None
        The signs ``s_j`` ``(R..., m)``; ``None``: drawn.

    Returns
    -------
    TwoLayer
        ``W1 (R..., m, d)``, ``W2 (R..., 1, m)``, no biases.

    Raises
    ------
    ParameterError
        When a size is not a positive integer or ``scale`` is not > 0.
    """
    _check_sizes(m=m, d=d)
    lam = torch.as_tensor(scale, dtype=torch.float64)
    if (lam <= 0).any():
        raise ParameterError(f"balanced_init: scale must be > 0, got {scale!r}")
    g = _randn((*runs, m, d), gen, torch.float64)
    s = random_signs((*runs, m), gen) if signs is None else signs.to(torch.float64)
    W1 = lam.reshape(lam.shape + (1, 1)) * g
    a = s * torch.linalg.vector_norm(W1, dim=-1)
    return TwoLayer(W1=W1.to(dtype), W2=a.unsqueeze(-2).to(dtype), act=act)


def sweep_init(m: int, d: int, lams: Tensor, seeds: int, seed: int, dtype: torch.dtype = torch.float64) -> TwoLayer:
    """Balanced inits (:func:`balanced_init`) for a λ-sweep.

    For each seed one draw ``(g_j, s_j)`` is shared by every λ (``w_j = λ g_j``), as in the
    theorem's ``λ → 0`` limit for a fixed draw.

    Parameters
    ----------
    m, d : int
        Width and input dimension.
    lams : Tensor
        The scales λ ``(L,)``.
    seeds : int
        The number of draws (first run dimension).
    seed : int
        Seed of the generator that makes all draws.
    dtype : torch.dtype
        The tensors' dtype.

    Returns
    -------
    TwoLayer
        Runs ``(seeds, L)``: ``W1 (seeds, L, m, d)``, ``W2 (seeds, L, 1, m)``.
    """
    base = balanced_init(m, d, scale=1.0, gen=generator(seed), runs=(seeds,), dtype=dtype)
    lam = lams.to(dtype).view(1, -1, 1, 1)
    return base.map(lambda t: t.unsqueeze(1) * lam)


def agf_init(
    m: int,
    d: int,
    k: int = 1,
    *,
    alpha: float,
    gen: torch.Generator,
    runs: tuple[int, ...] = (),
    act: str = "relu",
    dtype: torch.dtype = torch.float64,
) -> TwoLayer:
    """AGF α-scaling (Kunin et al. 2025): ``a_i ~ N(0, α²/(2k) I_k)``, ``w_i ~ N(0, α²/(2d) I_d)``.

    The expected squared neuron norm ``E‖θ_i‖² = α²``. No biases.

    Parameters
    ----------
    alpha : float
        The scale α > 0.
    m, d, k : int
        Width, input and output dimensions; ``gen``, ``runs``, ``act`` and ``dtype`` as in
        :func:`gaussian_init`.
    gen : torch.Generator
    runs : tuple of int
    act : str
    dtype : torch.dtype

    Returns
    -------
    TwoLayer
        ``W1 (R..., m, d)``, ``W2 (R..., k, m)``.

    Raises
    ------
    ParameterError
        When ``alpha`` is not > 0 or a size is not a positive integer.
    """
    if alpha <= 0:
        raise ParameterError(f"agf_init: alpha must be > 0, got {alpha!r}")
    return gaussian_init(
        m, d, k, std_in=alpha / math.sqrt(2 * d), std_out=alpha / math.sqrt(2 * k),
        gen=gen, runs=runs, act=act, dtype=dtype,
    )


def cat_runs(*nets: TwoLayer, axis: int = 0) -> TwoLayer:
    """Concatenate networks along one of their run axes, e.g. real runs and their controls, to train them as
    one batch.

    Parameters
    ----------
    *nets : TwoLayer
        Networks with more than ``axis`` run axes; the other run axes must agree.
    axis : int
        Which run axis (``0``: the first of ``R...``).

    Returns
    -------
    TwoLayer

    Raises
    ------
    ParameterError
        If a network has too few run axes, or they differ in parameters or activation.
    """
    if not nets or any(len(p.runs) <= axis for p in nets):
        raise ParameterError(f"cat_runs needs networks with more than {axis} run axes")
    names = nets[0].tensors().keys()
    if any(p.tensors().keys() != names or p.act != nets[0].act for p in nets):
        raise ParameterError("cat_runs: the networks differ in their parameters or activation")
    return TwoLayer(**{k: torch.cat([getattr(p, k) for p in nets], dim=axis) for k in names}, act=nets[0].act)
