"""Exponential integrals and the dilogarithm: ``expi``, ``exp1``, ``expn``
and ``spence`` (SPEC SPC-33 .. SPC-35).

The methods are Cephes' (``ei.c``, ``expn.c``, ``spence.c``; tables in
``special_p2_tables``): rational approximations on fixed intervals for
``Ei``; for ``E_n`` a power series (``x <= 1``), a continued fraction
(``x > 1``) or a three-term asymptotic expansion (``n >= 5000``), the two
first run by ``lax.while_loop`` until the next term is below the dtype's
epsilon.  ``expi`` and ``expn`` are ``custom_jvp`` functions: their
derivatives are ``exp(x)/x`` and ``-E_{n-1}(x)``.  Two deliberate
departures from JAX 0.10.2 (SPEC SPC-30, SPC-34): float16/bfloat16 are
computed in float32 (JAX overflows to NaN in float16), and
``E_n(0) = 1/(n-1)`` as in SciPy (JAX returns ``1/n``).
"""
import math

import numpy as np

from refjax._src.api import jit
from refjax._src.custom_derivatives import custom_jvp
from refjax._src.lax import lax
from refjax._src.lax.control_flow.loops import while_loop
from refjax._src.nn import numpy_ops as jnp
from refjax._src.numpy import creation, lax_numpy, ufuncs
from refjax._src.numpy.statistics import piecewise
from refjax._src.numpy.vectorize import vectorize
from refjax._src.scipy import special_p2_tables as tables
from refjax._src.scipy.special import promote_args_inexact
from refjax._src.scipy.special_p2_util import (
    in_float32_if_half, polyval, reject_complex,
)

__all__ = ["exp1", "expi", "expn", "spence"]


# ---------------------------------------------------------------------------
# Ei (SPEC SPC-33)
# ---------------------------------------------------------------------------

def _ei_small(x):
    """``Ei(x) = x P(x)/Q(x) + gamma + log x`` on ``(0, 2]``."""
    f = polyval(tables.EI1_P, x) / polyval(tables.EI1_Q, x)
    return x * f + np.euler_gamma + ufuncs.log(x)


def _ei_interval(num, den):
    """``Ei(x) = exp(x)/x (1 + P(1/x) / (x Q(1/x)))`` on one interval."""
    def ei(x):
        one = jnp.const(x, 1.0)
        w = one / x
        f = w * (polyval(num, w) / polyval(den, w)) + one
        return ufuncs.exp(x) * w * f
    return ei


_EI_PIECES = [_ei_small] + [
    _ei_interval(getattr(tables, f"EI{i}_P"), getattr(tables, f"EI{i}_Q"))
    for i in range(2, 8)]


def _expi_positive(x):
    """``Ei`` for ``x >= 0``: ``(0, 2]``, ``(2, 4]``, ..., ``(32, 64]``, and
    the last approximation elsewhere (``x > 64``, also 0 and NaN)."""
    edges = [0, 2, 4, 8, 16, 32, 64]
    conds = [(jnp.const(x, lo) < x) & (x <= jnp.const(x, hi))
             for lo, hi in zip(edges[:-1], edges[1:])]
    return piecewise(x, conds, _EI_PIECES)


def _expi_negative(x):
    return -exp1(-x)


@custom_jvp
@jit
def expi(x):
    """The exponential integral ``Ei(x) = int_{-inf}^x exp(t)/t dt``, real
    only; ``Ei(x) = -E_1(-x)`` for ``x < 0``.  Derivative ``exp(x)/x``
    (SPEC SPC-33)."""
    x, = promote_args_inexact("expi", x)
    reject_complex("expi", x)
    return in_float32_if_half(
        lambda v: piecewise(v, [v < 0], [_expi_negative, _expi_positive]), x)


@expi.defjvp
@jit
def _expi_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return expi(x), ufuncs.exp(x) / x * x_dot


# ---------------------------------------------------------------------------
# E_n (SPEC SPC-34)
# ---------------------------------------------------------------------------

def _expn_series(x, n):
    """``E_n(x) = (-x)^(n-1) psi(n) / Gamma(n) - sum_k' (-x)^k / ((k-n+1) k!)``
    for ``0 < x <= 1``, ``psi(n) = -gamma - log x + sum_{i<n} 1/i`` (the
    ``k = n - 1`` term is left out of the sum)."""
    eps = float(np.finfo(jnp.dtype_of(x)).eps)
    zero, one = jnp.const(x, 0.0), jnp.const(x, 1.0)
    # Batched (under vmap or piecewise), this branch also sees the lanes
    # other branches serve; give those a quickly converging argument.
    # (Written with negations so that NaN lanes keep their NaN.)
    used = ~((x <= zero) | (x > one) | (n < zero) | (n >= 5000))
    x = lax_numpy.where(used, x, 0.5)
    n = lax_numpy.where(used, n, one)
    psi0 = -np.euler_gamma - ufuncs.log(x)
    _, psi = while_loop(lambda c: c[0] < n,
                        lambda c: (c[0] + one, c[1] + one / c[0]),
                        (lax.full_like(n, 1), psi0))
    z = -x
    n1 = lax_numpy.where(n == one, one + one, n)
    start = lax_numpy.where(n == one, zero, one / (one - n1))

    def body(carry):
        xk, yk, pk, ans, _ = carry
        xk, pk = xk + one, pk + one
        yk = yk * z / xk
        ans = ans + lax_numpy.where(pk != zero, yk / pk, zero)
        t = lax_numpy.where(ans != zero, ufuncs.abs(yk / ans), one)
        return xk, yk, pk, ans, t

    init = (zero, one, one - n, start, jnp.const(x, np.inf))
    ans = while_loop(lambda c: (x > zero) & (c[4] > eps), body, init)[3]
    return z ** (n - one) * psi / ufuncs.exp(lax.lgamma(n)) - ans


def _expn_continued_fraction(x, n):
    """``E_n(x) = exp(-x) / (x + n / (1 + 1 / (x + (n+1) / (1 + 2 / (x + ...)))))``
    for ``x > 1``, its convergents rescaled when they grow past 2**57."""
    big = jnp.const(x, 1.44115188075855872e17)
    eps = float(np.finfo(jnp.dtype_of(x)).eps)
    zero, one, two = jnp.const(x, 0.0), jnp.const(x, 1.0), jnp.const(x, 2.0)
    x = lax_numpy.where(x > one, x, two)     # lanes of other branches, as above

    def body(carry):
        k, pkm2, qkm2, pkm1, qkm1, ans, _, r = carry
        k = k + one
        odd = k % two == one
        yk = lax_numpy.where(odd, one, x)
        xk = lax_numpy.where(odd, n + (k - one) / two, k / two)
        pk = pkm1 * yk + pkm2 * xk
        qk = qkm1 * yk + qkm2 * xk
        nonzero = qk != zero
        r = lax_numpy.where(nonzero, pk / qk, r)
        t = lax_numpy.where(nonzero, ufuncs.abs((ans - r) / r), one)
        ans = lax_numpy.where(nonzero, r, ans)
        rescale = ufuncs.abs(pk) > big
        pkm2, pkm1, qkm2, qkm1 = (lax_numpy.where(rescale, v / big, v)
                                  for v in (pkm1, pk, qkm1, qk))
        return k, pkm2, qkm2, pkm1, qkm1, ans, t, r

    init = (one, one, x, one, x + n, one / (x + n), jnp.const(x, np.inf), zero)
    ans = while_loop(lambda c: (x > zero) & (c[6] > eps), body, init)[5]
    return ans * ufuncs.exp(-x)


def _expn_large_order(x, n):
    """Three terms of the expansion in ``1/(x + n)`` for ``n >= 5000``."""
    xk = x + n
    yk = jnp.const(x, 1.0) / (xk * xk)
    ans = yk * n * (jnp.const(x, 6) * x * x - jnp.const(x, 8) * n * x + n * n)
    ans = yk * (ans + n * (n - jnp.const(x, 2) * x))
    ans = yk * (ans + n)
    return (ans + jnp.const(x, 1.0)) * ufuncs.exp(-x) / xk


@jit
def _expn_scalar(n, x):
    n, x = promote_args_inexact("expn", n, x)
    reject_complex("expn", x)
    if jnp.dtype_of(x) not in (np.float32, np.float64):
        half = jnp.dtype_of(x)
        return _expn_scalar(n.astype(np.float32), x.astype(np.float32)).astype(half)
    zero, one = jnp.const(x, 0), jnp.const(x, 1)
    # piecewise takes the last true condition.
    conds = [(n < zero) | (x < zero),
             (x == zero) & (n < 2),
             (x == zero) & (n >= 2),
             (n == zero) & (x >= zero),
             n >= 5000,
             x > one]
    # E_n(0) = 1/(n-1) (n >= 2), as in Cephes and SciPy; JAX 0.10.2 has 1/n.
    at_zero = one / lax_numpy.where(n >= 2, n - one, one)
    values = [np.nan, np.inf, at_zero, ufuncs.exp(-x) / x,
              _expn_large_order, _expn_continued_fraction, _expn_series]
    return piecewise(x, conds, values, n=n)


_expn_scalar.__name__ = "expn"
_expn = custom_jvp(vectorize(_expn_scalar), nondiff_argnums=(0,))


@_expn.defjvp
@jit
def _expn_jvp(n, primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return _expn(n, x), lax.mul(lax.neg(x_dot), _expn(lax.sub(n, lax._const(n, 1)), x))


def expn(n, x):
    """The generalized exponential integral ``E_n(x) = int_1^inf
    exp(-x t) / t**n dt`` (SPEC SPC-34): NaN for ``n < 0`` or ``x < 0``,
    ``inf`` at ``x = 0`` for ``n < 2`` and ``1/(n-1)`` for ``n >= 2``,
    ``exp(-x)/x`` for ``n = 0``.  ``n`` is promoted with ``x`` to a float;
    a non-integral ``n`` gives the result of the same formulas, as in JAX.
    Differentiable in ``x`` only: ``dE_n/dx = -E_{n-1}``."""
    return _expn(n, x)


def exp1(x):
    """``E_1(x) = expn(1, x)``, real only (SPEC SPC-34)."""
    x, = promote_args_inexact("exp1", x)
    reject_complex("exp1", x)
    return _expn(1, x)


# ---------------------------------------------------------------------------
# Spence's function (SPEC SPC-35)
# ---------------------------------------------------------------------------

def spence(x):
    """``spence(x) = int_1^x log(t) / (1 - t) dt`` for ``x >= 0``, NaN for
    ``x < 0``; only float32 and float64 arrays (``TypeError`` otherwise;
    lists are converted first) (SPEC SPC-35)."""
    x = creation.asarray(x)
    dtype = jnp.dtype_of(x)
    if dtype not in (np.float32, np.float64):
        raise TypeError(
            f"x.dtype={dtype} is not supported, see docstring for supported types.")
    return piecewise(x, [x < 0.0, x == 1.0, x == 0.0],
                     [np.nan, 0, math.pi ** 2 / 6, _spence_positive])


def _spence_positive(x):
    """Cephes' method: map ``x`` into ``[1/2, 3/2]`` with ``spence(1/x)``
    and ``spence(1 - x)`` identities, there a rational function of
    ``w = x - 1``."""
    inverted = x > 2.0
    x = lax_numpy.where(inverted, 1.0 / x, x)
    above = x > 1.5
    below = x < 0.5
    w = lax_numpy.where(above, 1.0 / x - 1.0, lax_numpy.where(below, -x, x - 1.0))
    y = -w * polyval(tables.SPENCE_P, w) / polyval(tables.SPENCE_Q, w)
    y = lax_numpy.where(
        below, math.pi ** 2 / 6.0 - ufuncs.log(x) * ufuncs.log(1.0 - x) - y, y)
    return lax_numpy.where(inverted | above, -0.5 * ufuncs.log(x) ** 2 - y, y)

