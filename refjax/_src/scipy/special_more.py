"""More ``jax.scipy.special`` functions built from the gamma family and
elementary operations (SPEC SPC-8 .. SPC-15): ``factorial``, ``comb``,
``beta``, ``poch``, ``loggamma``, ``multigammaln``, ``bernoulli``,
``boxcox``, ``boxcox1p``, ``rel_entr``, ``kl_div``, ``softmax`` and
``log_softmax``.

Each function promotes its arguments as SPC-1 says and composes ``lax``
and ``jax.numpy`` operations; ``poch`` is a ``custom_jvp`` function, as in
JAX, whose rule is written with ``digamma``.
"""
import operator

import numpy as np

from refjax._src import core, dtypes, tree_util
from refjax._src.api import jit
from refjax._src.custom_derivatives import custom_jvp
from refjax._src.lax import lax
from refjax._src.lax.control_flow.loops import while_loop
from refjax._src.nn import functions as nn_functions
from refjax._src.numpy import creation, lax_numpy, reductions, ufuncs
from refjax._src.numpy.util import _const
from refjax._src.scipy.complex_gamma import _log_gamma_right
from refjax._src.scipy.special import (
    _xlogx, betaln, digamma, gamma, gammaln, gammasgn, xlogy,
)
from refjax._src.scipy.special_lax import promote_args_inexact

__all__ = [
    "bernoulli", "beta", "boxcox", "boxcox1p", "comb", "factorial", "kl_div",
    "log_softmax", "loggamma", "multigammaln", "poch", "rel_entr", "softmax",
]


def check_custom_jvp_args(*args):
    """The checks JAX's ``custom_jvp`` makes before its function runs: a
    Python int must fit the default integer dtype (``OverflowError``) and
    every pytree leaf must be a JAX value (``TypeError``) (SPEC SPC-21)."""
    for position, leaf in enumerate(tree_util.tree_leaves(args)):
        if type(leaf) is int:
            dtypes.check_python_int(leaf, dtypes.default_int_dtype())
        elif isinstance(leaf, (type, np.ndarray)) or not hasattr(leaf, "dtype"):
            try:
                core.get_aval(leaf)
            except TypeError:
                raise TypeError(
                    "Error interpreting argument to custom_jvp_call as a JAX value. "
                    f"The problematic value is of type {type(leaf)} and was passed "
                    f"to custom_jvp_call at position {position}.\n") from None


def _reject_complex(name, x, prefix=""):
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise ValueError(f"{prefix}{name} does not support complex-valued inputs.")


# ---------------------------------------------------------------------------
# Factorials, binomials and the beta function (SPEC SPC-8, SPC-9)
# ---------------------------------------------------------------------------

def factorial(n, exact=False):
    """``n! = Gamma(n + 1)`` as a float, 0 for ``n < 0`` (SPEC SPC-8).

    ``exact=True`` (integer arithmetic) is refused with JAX's
    ``NotImplementedError``: no JAX integer type holds ``21!``.
    """
    if exact:
        raise NotImplementedError("factorial with exact=True")
    n, = promote_args_inexact("factorial", n)
    return lax_numpy.where(n < 0, 0, lax.exp(lax.lgamma(n + 1)))


def comb(N, k, *, repetition=False):
    """``N choose k = exp(gammaln(N+1) - gammaln(k+1) - gammaln(N-k+1))``
    (SPEC SPC-8).

    0 unless ``0 <= k <= N``.  With ``repetition``, the multiset count
    ``comb(N + k - 1, k)``, which is 1 for ``k == 0`` and ``N >= 0``.
    """
    N, k = promote_args_inexact("comb", N, k)
    if repetition:
        empty_choice = (k == 0) & (N >= 0)
        return lax_numpy.where(empty_choice, 1.0, comb(N + k - 1, k))
    valid = (k <= N) & (N >= 0) & (k >= 0)
    # Out-of-range entries are evaluated at 0 so that gammaln stays finite.
    N = lax_numpy.where(valid, N, 0.0)
    k = lax_numpy.where(valid, k, 0.0)
    log_value = gammaln(N + 1) - gammaln(k + 1) - gammaln(N - k + 1)
    return lax_numpy.where(valid, lax.exp(log_value), 0.0)


def beta(a, b):
    """``B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b)`` as the product of the
    three gamma signs and ``exp(betaln(a, b))`` (SPEC SPC-9); complex inputs
    are JAX's ``ValueError``."""
    a, b = promote_args_inexact("beta", a, b)
    _reject_complex("beta", a)
    sign = gammasgn(a) * gammasgn(b) * gammasgn(a + b)
    return sign * lax.exp(betaln(a, b))


@custom_jvp
def poch(z, m):
    """The rising factorial ``(z)_m = Gamma(z + m) / Gamma(z)``, exactly 1
    where ``m == 0`` (SPEC SPC-9).

    Differentiated by its closed forms ``d/dz = (psi(z+m) - psi(z)) (z)_m``
    and ``d/dm = psi(z+m) (z)_m`` (a ``custom_jvp``, as in JAX).
    """
    check_custom_jvp_args(z, m)
    z, m = promote_args_inexact("poch", z, m)
    _reject_complex("poch", z, prefix="jnp.")
    one = creation.array(1, dtype=z.dtype)
    return lax_numpy.where(m == 0., one, gamma(z + m) / gamma(z))


poch.defjvps(
    lambda z_dot, _, z, m: (digamma(z + m) - digamma(z)) * poch(z, m) * z_dot,
    lambda m_dot, _, z, m: digamma(z + m) * poch(z, m) * m_dot,
)


# ---------------------------------------------------------------------------
# Logarithms of gamma functions (SPEC SPC-10, SPC-11)
# ---------------------------------------------------------------------------

def loggamma(x):
    """The principal branch of ``log Gamma(x)`` (SPEC SPC-10).

    For real ``x``: ``gammaln(x)`` where ``x > 0``, NaN elsewhere.  For
    complex ``x``: a single branch cut along the negative real axis, as
    SciPy's ``loggamma``.
    """
    x, = promote_args_inexact("loggamma", x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        return _complex_loggamma(x)
    return lax_numpy.where(x > 0, lax.lgamma(x), np.nan)


@jit
def _complex_loggamma(z):
    """``log Gamma(z)`` continued from the right half-plane by
    ``log Gamma(z) = log Gamma(z + n) - sum_{k<n} log(z + k)``.

    ``n = max(0, ceil(1/2 - Re z))`` moves ``z + n`` to where Lanczos'
    approximation holds; summing the logarithms one by one keeps the branch
    cut on the negative real axis only (the reflection formula would put
    cuts between the poles).  Poles and NaNs give ``nan+nanj``.
    """
    re = ufuncs.real(z)
    pole = (ufuncs.imag(z) == 0) & (re == ufuncs.floor(re)) & (re <= 0)
    bad = pole | ufuncs.isnan(z)
    z = lax_numpy.where(bad, creation.ones_like(z), z)
    shift = ufuncs.maximum(0, ufuncs.ceil(0.5 - ufuncs.real(z))).astype(int)

    def more_terms(state):
        k, _ = state
        return reductions.any(k < shift)

    def add_term(state):
        k, log_sum = state
        active = k < shift
        # Inactive entries take log(1) = 0, which leaves their sum alone.
        term = ufuncs.log(lax_numpy.where(active, z + k, creation.ones_like(z)))
        return k + 1, log_sum + lax_numpy.where(active, term, creation.zeros_like(log_sum))

    _, log_sum = while_loop(more_terms, add_term, (0, creation.zeros_like(z)))
    value = _log_gamma_right(z + shift) - log_sum
    nan = creation.array(complex(np.nan, np.nan), dtype=z.dtype)
    return lax_numpy.where(bad, nan, value)


def multigammaln(a, d):
    """``log Gamma_d(a) = d(d-1)/4 log(pi) + sum_{i<d} gammaln(a - i/2)``,
    the multivariate log-gamma function (SPEC SPC-11).

    ``d`` must be concrete (it sets the number of terms):
    ``ConcretizationTypeError`` under ``jit`` otherwise.
    """
    d = core.concrete_or_error(int, d, "d argument of multigammaln")
    a, d_float = promote_args_inexact("multigammaln", a, d)
    log_pi = lax.log(_const(a, np.pi))
    constant = lax.mul(lax.mul(lax.mul(_const(a, 0.25), d_float),
                               lax.sub(d_float, _const(a, 1))), log_pi)
    halves = lax.div(creation.arange(d, dtype=d_float.dtype), _const(a, 2))
    # The terms run along a new last axis, summed away (ranks made equal,
    # so that jax_numpy_rank_promotion='raise' accepts it).
    halves = lax_numpy.expand_dims(halves, tuple(range(a.ndim)))
    shifted = lax_numpy.expand_dims(a, -1) - halves
    return reductions.sum(gammaln(shifted), axis=-1) + constant


# ---------------------------------------------------------------------------
# Bernoulli numbers (SPEC SPC-12)
# ---------------------------------------------------------------------------

# zeta(2j) is summed as 1 + 2^-2j + ... + 49^-2j, as JAX sums it: for B_4
# the omitted tail is about 3e-6 relative, which JAX's values show.
_ZETA_TERMS = 50


def bernoulli(n):
    """The Bernoulli numbers ``B_0 .. B_n`` (with ``B_1 = -1/2``) in the
    default float dtype (SPEC SPC-12).

    ``B_{2j} = (-1)^(j+1) 2 (2j)! zeta(2j) / (2 pi)^(2j)``: the factor in
    front of ``zeta`` grows by ``-(2j-1)(2j) / (2 pi)^2`` from one even index
    to the next (a cumulative product), and ``zeta(2j)`` is summed over its
    first 49 terms.  Odd numbers past ``B_1`` are 0.
    """
    n = core.concrete_or_error(operator.index, n, "Argument n of bernoulli")
    if n < 0:
        raise ValueError("n must be a non-negative integer.")
    if n >= np.iinfo(np.intp).max // 8:
        # (JAX crashes allocating it; NumPy's error would escape from zeros.)
        raise ValueError(f"bernoulli: n={n} is too large for an array.")
    first = creation.array([1, -1 / 2, 1 / 6])
    if n < 3:
        return first[:n + 1]
    numbers = creation.zeros(n + 1).at[:3].set(first)
    m = creation.arange(4, n + 1, 2, dtype=numbers.dtype)
    two_pi_sq = (2 * np.pi) ** 2
    # 2 (2j)! / (2 pi)^(2j) with its sign, from B_2's factor 2 * 2 / (2 pi)^2.
    growth = -(m - 1) * m / two_pi_sq
    factor = (4 / two_pi_sq) * reductions.cumprod(growth)
    k = creation.arange(2, _ZETA_TERMS, dtype=numbers.dtype)
    zeta_tail = reductions.sum(k[:, None] ** -m[None, :], axis=0)
    return numbers.at[4::2].set(factor * (1 + zeta_tail))


# ---------------------------------------------------------------------------
# Box-Cox transforms (SPEC SPC-13)
# ---------------------------------------------------------------------------

def boxcox(x, lmbda):
    """``(x^lmbda - 1) / lmbda``, ``log(x)`` where ``lmbda == 0``, computed
    as ``expm1(lmbda log x) / lmbda`` (SPEC SPC-13)."""
    x, lmbda = promote_args_inexact("boxcox", x, lmbda)
    return _boxcox_of_log(ufuncs.log(x), lmbda)


def boxcox1p(x, lmbda):
    """``boxcox(1 + x, lmbda)`` with ``log1p(x)`` in place of
    ``log(1 + x)`` (SPEC SPC-13)."""
    x, lmbda = promote_args_inexact("boxcox1p", x, lmbda)
    return _boxcox_of_log(ufuncs.log1p(x), lmbda)


def _boxcox_of_log(log_x, lmbda):
    at_zero = lmbda == 0
    # lmbda == 0 would divide by zero in the unused branch (and NaN grads).
    safe_lmbda = lax_numpy.where(at_zero, creation.ones_like(lmbda), lmbda)
    power = ufuncs.expm1(safe_lmbda * log_x) / safe_lmbda
    return lax_numpy.where(at_zero, log_x, power)


# ---------------------------------------------------------------------------
# Relative entropy (SPEC SPC-14)
# ---------------------------------------------------------------------------

def rel_entr(p, q):
    """``p log(p / q)`` for ``p, q > 0``; 0 for ``p == 0, q >= 0``; ``inf``
    otherwise (SPEC SPC-14).

    Written as ``xlogx(p) - xlogy(p, q)`` on entries replaced by 1 outside
    the positive quadrant, so that values and derivatives stay finite there.
    """
    p, q = promote_args_inexact("rel_entr", p, q)
    _reject_complex("rel_entr", p)
    zero = _const(p, 0.0)
    positive = lax.bitwise_and(lax.gt(p, zero), lax.gt(q, zero))
    zero_p = lax.bitwise_and(lax.eq(p, zero), lax.ge(q, zero))
    p = lax_numpy.where(positive, p, 1)
    q = lax_numpy.where(positive, q, 1)
    inside = lax.sub(_xlogx(p), xlogy(p, q))
    return lax_numpy.where(positive, inside, lax_numpy.where(zero_p, zero, np.inf))


def kl_div(p, q):
    """``rel_entr(p, q) - p + q`` (SPEC SPC-14)."""
    p, q = promote_args_inexact("kl_div", p, q)
    _reject_complex("kl_div", p)
    return rel_entr(p, q) - p + q


# ---------------------------------------------------------------------------
# softmax (SPEC SPC-15)
# ---------------------------------------------------------------------------

def softmax(x, /, *, axis=None):
    """``jax.nn.softmax(x, axis)``, over all axes by default (SPEC SPC-15)."""
    return nn_functions.softmax(x, axis=axis)


def log_softmax(x, /, *, axis=None):
    """``jax.nn.log_softmax(x, axis)``, over all axes by default
    (SPEC SPC-15)."""
    return nn_functions.log_softmax(x, axis=axis)
