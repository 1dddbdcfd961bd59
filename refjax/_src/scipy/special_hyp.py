"""The confluent and Gauss hypergeometric functions ``hyp1f1`` and
``hyp2f1`` (SPEC SPC-18 .. SPC-20).

Both follow Pearson, Olver and Porter, "Numerical methods for the
computation of the confluent and Gauss hypergeometric functions" (2014,
arXiv:1407.7786), as JAX does: Taylor series summed in a ``while_loop``
until a term falls below ``eps`` relative to the sum (250 terms at most),
an asymptotic series for ``1F1`` at ``|x| >= 100``, and for ``2F1``
Euler's transformation, terminating series and the digamma expansion of
Abramowitz and Stegun 15.3.10-12 near ``x = 1``.

As in JAX, each function is a ``custom_jvp`` of a ``jit`` of an
elementwise (``vectorize``) function; the derivatives in the parameters
are series of digamma differences and the derivative in ``x`` is the
contiguous function ``(a b / c) 2F1(a+1, b+1; c+1; x)``.
"""
import functools

import numpy as np

from refjax._src import dtypes
from refjax._src.api import jit
from refjax._src.custom_derivatives import custom_jvp
from refjax._src.lax import lax
from refjax._src.lax.control_flow.conditionals import cond
from refjax._src.lax.control_flow.loops import while_loop
from refjax._src.numpy import creation, lax_numpy, ufuncs
from refjax._src.numpy.vectorize import vectorize
from refjax._src.scipy.special import digamma, gamma, promote_args_inexact
from refjax._src.scipy.special_more import check_custom_jvp_args

__all__ = ["hyp1f1", "hyp2f1"]

# No series runs past this many terms.
_MAX_TERMS = 250


def _eps(x):
    return dtypes.finfo(x.dtype).eps


def _sum_series(first_term, ratio, weight, x, start=0):
    """``sum_k weight(k) t_k`` with ``t_1 = first_term`` and
    ``t_{k+1} = t_k ratio(k)``, from ``k = 1`` until ``|t_k| <= eps |sum|``
    or ``k = 250``.  ``start`` is the sum before the first term (JAX's
    series start from 1, its derivative series from 0)."""
    precision = _eps(x)
    total = creation.full_like(x, start)

    def more(state):
        total, k, term = state
        return (k < _MAX_TERMS) & (lax.abs(term) / lax.abs(total) > precision)

    def add(state):
        total, k, term = state
        return total + term * weight(k), k + 1, term * ratio(k)

    return while_loop(more, add, (total, 1, first_term))[0]


def _one(k):
    return 1


# ---------------------------------------------------------------------------
# 1F1 (SPEC SPC-18)
# ---------------------------------------------------------------------------

def _hyp1f1_taylor(a, b, x):
    """``sum_k (a)_k / (b)_k x^k / k!`` (POP14 eq. 3.2)."""
    return _sum_series(a / b * x, lambda k: (a + k) / (b + k) * x / (k + 1),
                       _one, x, start=1)


def _hyp1f1_asymptotic(a, b, x):
    """``Gamma(b)/Gamma(a) e^x x^(a-b) sum_k (b-a)_k (1-a)_k / k! x^-k``
    for large ``|x|`` (POP14 eq. 3.8, real arguments)."""
    tail = _sum_series((b - a) * (1 - a) / x,
                       lambda k: (b - a + k) * (1 - a + k) / (k + 1) / x,
                       _one, x, start=1)
    return gamma(b) / gamma(a) * lax.exp(x) * x ** (a - b) * tail


def _hyp1f1_scalar(a, b, x):
    a, b, x = promote_args_inexact("hyp1f1", a, b, x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise ValueError("hyp1f1 does not support complex-valued inputs.")
    value = cond(lax.abs(x) < 100, _hyp1f1_taylor, _hyp1f1_asymptotic, a, b, x)
    # Closed forms: 1F1(0; b; x) = 1 (also for b = 0, unlike SciPy),
    # 1F1(a; a; x) = e^x, and a pole at b = 0.
    special = ((a == 0) * 1 + ((a == b) & (a != 0)) * 2
               + ((b == 0) & (a != 0)) * 3)
    return lax.select_n(special, value, creation.array(1, dtype=x.dtype),
                        ufuncs.exp(x), creation.array(np.inf, dtype=x.dtype))


def _checked(fun):
    """``fun`` after ``custom_jvp``'s checks of its arguments (SPEC SPC-21),
    which JAX makes before the ``jit`` inside sees them."""
    @functools.wraps(fun)     # (custom_jvp binds arguments to its signature)
    def checked(*args):
        check_custom_jvp_args(*args)
        return fun(*args)
    return checked


_hyp1f1_scalar.__name__ = "hyp1f1"
hyp1f1 = custom_jvp(_checked(jit(vectorize(_hyp1f1_scalar))))
hyp1f1.__doc__ = """The confluent hypergeometric function
``1F1(a; b; x) = sum_k (a)_k / ((b)_k k!) x^k`` for real arguments
(SPEC SPC-18).

The Taylor series for ``|x| < 100``, the asymptotic series beyond;
``1`` where ``a == 0``, ``exp(x)`` where ``a == b``, ``inf`` where
``b == 0 != a``.  Complex inputs are JAX's ``ValueError``.  Differentiable
in all three arguments (SPEC SPC-20)."""


@jit
@vectorize
def _hyp1f1_da(a, b, x):
    """``d 1F1/da = sum_k (psi(a+k) - psi(a)) t_k``."""
    return _sum_series(a / b * x, lambda k: (a + k) / (b + k) * x / (k + 1),
                       lambda k: digamma(a + k) - digamma(a), x)


@jit
@vectorize
def _hyp1f1_db(a, b, x):
    """``d 1F1/db = sum_k (psi(b) - psi(b+k)) t_k``."""
    return _sum_series(a / b * x, lambda k: (a + k) / (b + k) * x / (k + 1),
                       lambda k: digamma(b) - digamma(b + k), x)


@jit
def _hyp1f1_dx(a, b, x):
    return a / b * hyp1f1(a + 1, b + 1, x)


hyp1f1.defjvps(
    lambda a_dot, _, a, b, x: _hyp1f1_da(a, b, x) * a_dot,
    lambda b_dot, _, a, b, x: _hyp1f1_db(a, b, x) * b_dot,
    lambda x_dot, _, a, b, x: _hyp1f1_dx(a, b, x) * x_dot,
)


# ---------------------------------------------------------------------------
# 2F1 (SPEC SPC-19)
# ---------------------------------------------------------------------------

def _near_int(v, eps):
    return lax.abs(v - ufuncs.round(v)) < eps


def _hyp2f1_taylor(a, b, c, x):
    """``sum_k (a)_k (b)_k / (c)_k x^k / k!`` (POP14 eq. 4.1), stopped once
    ``|t_k| <= eps |sum|``."""
    precision = _eps(x)

    def more(state):
        total, k, term = state
        return (k < _MAX_TERMS) & (lax.abs(term) > precision * lax.abs(total))

    def add(state):
        total, k, term = state
        ratio = (a + k - 1) * (b + k - 1) / (c + k - 1) / k * x
        return total + term, k + 1, term * ratio

    zero, one = creation.array(0, dtype=x.dtype), creation.array(1, dtype=x.dtype)
    return while_loop(more, add, (zero, one, one))[0]


def _hyp2f1_terminating(a, b, c, x):
    """The finite series when ``a`` (or ``b``) is a non-positive integer
    ``-n``: ``n`` terms.  Of the two, ``b`` bounds the loop when it is the
    more negative integer, unless ``c`` is a non-positive integer between
    them (then the series must stop before ``(c)_k`` vanishes)."""
    eps = _eps(x) * 50
    c_blocks_b = (c % 1 == 0) & (c <= 0) & (c > b)
    use_b = (b < a) & _near_int(b, eps) & ufuncs.logical_not(c_blocks_b)
    a, b = lax_numpy.where(use_b, b, a), lax_numpy.where(use_b, a, b)
    n = lax.abs(a)
    one = creation.array(1, dtype=x.dtype)

    def more(state):
        i, _, _ = state
        return i < n + 1

    def add(state):
        i, total, term = state
        term = term * (-(n - i + 1) / (c + i - 1) * (b + i - 1) / i * x)
        return i + 1, total + term, term

    return while_loop(more, add, (creation.array(1, dtype=n.dtype), one, one))[1]


def _hyp2f1_series(a, b, c, x):
    """The Taylor series, its terminating form for a non-positive integer
    ``a`` or ``b``, or (for ``x > 0.9``, ``c - a - b`` an integer) the
    digamma expansion (POP14 section 4.6.1)."""
    eps = _eps(x) * 50
    d = c - a - b
    neg_int = (((a <= 0) & _near_int(a, eps))
               | ((b <= 0) & _near_int(b, eps)))
    method = lax_numpy.where(
        (x > 0.9) & ufuncs.logical_not(neg_int),
        lax_numpy.where(_near_int(d, eps), 1, 0),
        lax_numpy.where(neg_int, 2, 0))
    return lax.select_n(method, _hyp2f1_taylor(a, b, c, x),
                        _hyp2f1_digamma_expansion(a, b, c, x),
                        _hyp2f1_terminating(a, b, c, x))


def _hyp2f1_digamma_expansion(a, b, c, x):
    """Abramowitz and Stegun 15.3.10-12: ``2F1`` in powers of ``s = 1 - x``
    with ``log s`` and digamma terms, for ``c - a - b`` (rounded to ``m``)
    an integer: a logarithmic series plus, for ``m != 0``, a finite sum of
    ``|m|`` terms."""
    d = c - a - b
    s = 1 - x
    m = ufuncs.round(d)
    nonneg = m >= 0
    zero = creation.array(0, dtype=d.dtype)
    e = lax_numpy.where(nonneg, d, -d)
    d1 = lax_numpy.where(nonneg, d, zero)     # shift of the log series
    d2 = lax_numpy.where(nonneg, zero, d)     # shift of the finite sum
    log_s = ufuncs.log(s)
    y = _hyp2f1_log_series(a, b, e, d1, s, log_s, x)
    abs_m = lax_numpy.where(nonneg, m, -m).astype("int32")
    finite = _hyp2f1_finite_sum(a, b, e, d2, s, abs_m, x)
    g_c = gamma(c)
    finite = finite * (gamma(e) * g_c / (gamma(a + d1) * gamma(b + d1)))
    y_scaled = y * (g_c / (gamma(a + d2) * gamma(b + d2)))
    y_scaled = lax_numpy.where((abs_m & 1) != 0, -y_scaled, y_scaled)
    s_m = s ** m
    mixed = lax_numpy.where(m > 0, y_scaled * s_m + finite, y_scaled + finite * s_m)
    return lax_numpy.where(m == 0, y * g_c / (gamma(a) * gamma(b)), mixed)


def _hyp2f1_log_series(a, b, e, d1, s, log_s, x):
    """``sum_t p_t r_t`` with ``r_t = psi(1+t) + psi(1+t+e) - psi(a+t+d1)
    - psi(b+t+d1) - log s`` and ``p_t`` the ratio of Pochhammer products
    times ``s^t``; stopped when a term is below ``eps`` of the sum."""
    precision = _eps(x)
    y = (digamma(1.0) + digamma(1.0 + e) - digamma(a + d1) - digamma(b + d1)
         - log_s) / gamma(e + 1.0)
    p = (a + d1) * (b + d1) * s / gamma(e + 2.0)

    def more(state):
        _, q, t, y = state
        return ufuncs.logical_and(t < _MAX_TERMS, lax.abs(q) >= precision * lax.abs(y))

    def add(state):
        p, _, t, y = state
        r = (digamma(1.0 + t) + digamma(1.0 + t + e) - digamma(a + t + d1)
             - digamma(b + t + d1) - log_s)
        q = p * r
        p = p * (s * (a + t + d1) / (t + 1.0))
        p = p * ((b + t + d1) / (t + 1.0 + e))
        return p, q, t + 1.0, y + q

    one = creation.array(1, dtype=x.dtype)
    return while_loop(more, add, (p, y, one, y))[3]


def _hyp2f1_finite_sum(a, b, e, d2, s, count, x):
    """``1 + sum_{t=1}^{count-1} p_t``, ``p_t`` built by
    ``p_t = p_{t-1} s (a+t-1+d2)(b+t-1+d2) / ((t - e) t)``."""
    def more(state):
        i, _, _, _ = state
        return i < count

    def add(state):
        i, p, t, total = state
        p = p * (s * (a + t + d2) * (b + t + d2) / (1.0 - e + t))
        t = t + 1.0
        p = p / t
        return i + 1, p, t, total + p

    one = creation.array(1, dtype=x.dtype)
    zero = creation.array(0, dtype=x.dtype)
    return while_loop(more, add, (creation.array(1, dtype=count.dtype), one, zero, one))[3]


def _hyp2f1_scalar(a, b, c, x):
    a, b, c, x = promote_args_inexact("hyp2f1", a, b, c, x)
    eps = _eps(x) * 50
    d = c - a - b
    s = 1 - x
    # 0: 1; 1: inf; 2: Euler's transformation s^d 2F1(c-a, c-b; c; x);
    # 3, 4: s^-a, s^-b; 5: Gauss's sum at x = 1; 6: the series.
    c_pole = ufuncs.logical_or(c == 0, (c < 0) & (c % 1 == 0))
    euler = (d <= -1) & ufuncs.logical_not(
        ufuncs.logical_not(_near_int(d, eps)) & (s < 0))
    case = lax_numpy.where(
        (x == 0) | (((a == 0) | (b == 0)) & (c != 0)), 0,
        lax_numpy.where(c_pole, 1,
        lax_numpy.where(euler, 2,
        lax_numpy.where((d <= 0) & (x == 1), 1,
        lax_numpy.where((x < 1) & (b == c), 3,
        lax_numpy.where((x < 1) & (a == c), 4,
        lax_numpy.where(x > 1, 1,
        lax_numpy.where(x == 1, 5, 6))))))))
    return lax.select_n(
        case, creation.array(1, dtype=x.dtype), creation.array(np.inf, dtype=x.dtype),
        s ** d * _hyp2f1_series(c - a, c - b, c, x), s ** (-a), s ** (-b),
        gamma(c) * gamma(d) / (gamma(c - a) * gamma(c - b)),
        _hyp2f1_series(a, b, c, x))


_hyp2f1_scalar.__name__ = "hyp2f1"
hyp2f1 = custom_jvp(_checked(jit(vectorize(_hyp2f1_scalar))))
hyp2f1.__doc__ = """The Gauss hypergeometric function
``2F1(a, b; c; x) = sum_k (a)_k (b)_k / ((c)_k k!) x^k`` for real
arguments (SPEC SPC-19).

``1`` at ``x == 0`` or ``a b == 0 != c``; ``inf`` at the poles of
``(c)_k``, for ``x > 1`` and at ``x == 1`` with ``c - a - b <= 0``;
Gauss's sum at ``x == 1``; ``(1 - x)^-a`` for ``b == c`` (and
symmetrically); Euler's transformation when ``c - a - b <= -1``; else the
series.  Differentiable in all four arguments (SPEC SPC-20)."""


def _hyp2f1_parameter_derivative(weight):
    """``sum_k weight(a, b, c, k) t_k`` over the terms of the series."""
    @jit
    @vectorize
    def derivative(a, b, c, x):
        return _sum_series(a * b / c * x,
                           lambda k: (a + k) * (b + k) / (c + k) / (k + 1) * x,
                           lambda k: weight(a, b, c, k), x)
    return derivative


_hyp2f1_da = _hyp2f1_parameter_derivative(
    lambda a, b, c, k: digamma(a + k) - digamma(a))
_hyp2f1_db = _hyp2f1_parameter_derivative(
    lambda a, b, c, k: digamma(b + k) - digamma(b))
_hyp2f1_dc = _hyp2f1_parameter_derivative(
    lambda a, b, c, k: digamma(c) - digamma(c + k))


@jit
def _hyp2f1_dx(a, b, c, x):
    return a * b / c * hyp2f1(a + 1, b + 1, c + 1, x)


hyp2f1.defjvps(
    lambda a_dot, _, a, b, c, x: _hyp2f1_da(a, b, c, x) * a_dot,
    lambda b_dot, _, a, b, c, x: _hyp2f1_db(a, b, c, x) * b_dot,
    lambda c_dot, _, a, b, c, x: _hyp2f1_dc(a, b, c, x) * c_dot,
    lambda x_dot, _, a, b, c, x: _hyp2f1_dx(a, b, c, x) * x_dot,
)
