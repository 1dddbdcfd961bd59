"""Array algorithms for the special-function primitives of ``special``.

Every kernel takes float64 arrays of one shape and returns a float64 array;
``special`` upcasts the operands and rounds the result to their dtype, so a
float32 result is the float64 value rounded once.  The kernels use only the
active backend's array module and its ``gammaln`` and ``digamma`` (SPEC
BE-1), and follow the edge cases of JAX 0.10.2 (SPEC SPF-2 .. SPF-7).

Iterations (series and continued fractions) run on the elements that have
not converged yet: each step gathers the still-active elements, so one slow
element does not make every element pay for its iterations.  The incomplete
gamma sums are carried as truncated Taylor series in ``a``, which gives
their derivatives in ``a`` to any order (SPEC SPF-12).
"""
import math
from fractions import Fraction

import numpy as np

from refjax._src import backend

_EPS = np.finfo(np.float64).eps


def _xp():
    return backend.get().xp


def _lgamma(x):
    return backend.get().special("gammaln")(x)


def _digamma(x):
    return backend.get().special("digamma")(x)


def _where(mask, x, y):
    return _xp().where(mask, x, y)


# ---------------------------------------------------------------------------
# Modified Bessel functions, exponentially scaled (SPEC SPF-2)
# ---------------------------------------------------------------------------

# Below this |x| the power series is summed; above it the large-argument
# expansion, whose smallest term there is below float64's epsilon.
_BESSEL_SWITCH = 25.0
_BESSEL_SERIES_TERMS = 72
_BESSEL_ASYMPTOTIC_TERMS = 50


def _bessel_series(x, order):
    """sum_k (x^2/4)^k / (k! (k + order)!), all terms positive."""
    q = x * x * 0.25
    term = _xp().ones_like(q) / math.factorial(order)
    total = term
    for k in range(1, _BESSEL_SERIES_TERMS):
        term = term * q / (k * (k + order))
        total = total + term
    return total


def _bessel_asymptotic(x, order):
    """e^-x I_order(x) for large x > 0: (2 pi x)^-1/2 times
    sum_k prod_{j<=k} -(4 order^2 - (2j-1)^2) / (8 j x)."""
    mu = 4.0 * order * order
    term = _xp().ones_like(x)
    total = term
    for k in range(1, _BESSEL_ASYMPTOTIC_TERMS):
        term = term * (-(mu - (2 * k - 1) ** 2) / (8.0 * k)) / x
        total = total + term
    return total / _xp().sqrt(2.0 * np.pi * x)


def _bessel_scaled(x, order):
    """e^-|x| I_order(|x|)."""
    xp = _xp()
    ax = xp.abs(x)
    small = ax <= _BESSEL_SWITCH
    xs = _where(small, ax, 0.0)
    xl = _where(small, _BESSEL_SWITCH, ax)
    series = _bessel_series(xs, order) * xp.exp(-xs)
    if order == 1:
        series = series * xs * 0.5
    return _where(small, series, _bessel_asymptotic(xl, order))


def bessel_i0e(x):
    """e^-|x| I0(x): 1 at 0, 0 at +-inf (SPEC SPF-2)."""
    return _bessel_scaled(x, 0)


def bessel_i1e(x):
    """e^-|x| I1(x), odd: the sign of ``x`` (including -0.0) is kept
    (SPEC SPF-2)."""
    return _xp().copysign(_bessel_scaled(x, 1), x)


# ---------------------------------------------------------------------------
# Iterations on the active elements
# ---------------------------------------------------------------------------

def _iterate(state, step, max_steps):
    """Run ``step(state, n) -> (state, done)`` on the elements whose
    ``done`` is still False, for n = 1 .. max_steps; return the final state.

    ``state`` is a dict of 1-D arrays of one length (the elements that take
    part); finished elements keep the values of the step that finished them.
    """
    xp = _xp()
    out = {k: v.copy() for k, v in state.items()}
    index = xp.arange(next(iter(state.values())).shape[0])
    for n in range(1, max_steps + 1):
        if index.shape[0] == 0:
            break
        state, done = step(state, n)
        for k, v in state.items():
            out[k][index] = v
        if bool(done.all()):
            break
        keep = ~done
        index = index[keep]
        state = {k: v[keep] for k, v in state.items()}
    return out


# ---------------------------------------------------------------------------
# Incomplete gamma functions (SPEC SPF-3, SPF-4)
# ---------------------------------------------------------------------------

_SERIES_STEPS = 100000
_FRACTION_STEPS = 20000
# Rescale the continued fraction's convergents by an exact power of two.
_BIG = 2.0 ** 500
_SMALL = 2.0 ** -500
# Stands in for a zero divisor in the continued fractions.
_TINY = 1e-300

# Truncated Taylor series in ``e`` (for a + e): arrays of shape (n, degree + 1)
# whose column j is the coefficient of e^j.  Carrying them through the
# iterations differentiates the series and the continued fraction in ``a``
# to any order, as JAX's forward differentiation of its loops does.


def _taylor_mul(u, v):
    """The product of two truncated series (same degree)."""
    xp = _xp()
    out = xp.empty_like(u)
    for j in range(u.shape[-1]):
        total = u[..., 0] * v[..., j]
        for i in range(1, j + 1):
            total = total + u[..., i] * v[..., j - i]
        out[..., j] = total
    return out


def _taylor_div(u, v):
    """u / v for truncated series, v[..., 0] != 0."""
    xp = _xp()
    out = xp.empty_like(u)
    for j in range(u.shape[-1]):
        rest = u[..., j]
        for i in range(1, j + 1):
            rest = rest - v[..., i] * out[..., j - i]
        out[..., j] = rest / v[..., 0]
    return out


def _taylor_reciprocal_shift(r, degree):
    """1 / (r + e) = sum_j (-1)^j r^-(j+1) e^j."""
    xp = _xp()
    powers = xp.arange(degree + 1)
    return (-1.0) ** powers / r[..., None] ** (powers + 1)


def _taylor_deriv(u):
    """d/de of a series, one degree lower."""
    xp = _xp()
    return u[..., 1:] * xp.arange(1, u.shape[-1])


def _gamma_series(a, x, degree):
    """S(a + e) = sum_n c_n, c_0 = 1, c_n = c_(n-1) x / (a + e + n), as a
    series of ``degree`` in e: P(a, x) = e^(a log x - x - lgamma(a + 1)) S.
    Every c_n is completely monotone in ``a``, so the coefficients of one
    order all have one sign and the sums do not cancel."""
    xp = _xp()
    start = xp.zeros(a.shape + (degree + 1,))
    start[..., 0] = 1.0
    state = dict(a=a, x=x, c=start, s=start.copy())

    def step(st, n):
        shift = _taylor_reciprocal_shift(st["a"] + n, degree) * st["x"][:, None]
        c = _taylor_mul(st["c"], shift)
        s = st["s"] + c
        done = (xp.abs(c) <= _EPS * xp.abs(s)).all(axis=1) | ~xp.isfinite(s[:, 0])
        return dict(st, c=c, s=s), done
    return _iterate(state, step, _SERIES_STEPS)["s"]


def _fraction_start(a, x, degree):
    """The convergents p_-1 / q_-1 and p_0 / q_0 of Legendre's continued
    fraction for the upper function, as series in e (where ``a`` is a + e),
    and the quotient of the latter."""
    xp = _xp()
    z = x + 2.0 - a
    p2, q2, p1, q1 = (xp.zeros(a.shape + (degree + 1,)) for _ in range(4))
    p2[..., 0], q2[..., 0], p1[..., 0], q1[..., 0] = 1.0, x, x + 1.0, z * x
    if degree:
        q1[..., 1] = -x
    return dict(p2=p2, q2=q2, p1=p1, q1=q1, f=_taylor_div(p1, q1))


def _fraction_terms(a, x, n, degree):
    """The n-th partial denominator b_n = x + 2 + 2n - a - e and numerator
    a_n = -n (1 + n - a - e) of the fraction, as series in e."""
    xp = _xp()
    b, num = (xp.zeros(a.shape + (degree + 1,)) for _ in range(2))
    b[..., 0], num[..., 0] = x + 2.0 + 2.0 * n - a, -n * (1.0 + n - a)
    if degree:
        b[..., 1], num[..., 1] = -1.0, n
    return b, num


def _fraction_length(a, x):
    """How many steps the fraction takes: where the values of its
    convergents stop changing (the three-term recurrence on p_n and q_n),
    at ``a`` and at a + 1/2, whichever is later, plus a quarter.  At a
    positive integer the value terminates but its derivatives in ``a`` do
    not; a + 1/2 shows how fast they converge."""
    xp = _xp()
    both_a, both_x = xp.concatenate([a, a + 0.5]), xp.concatenate([x, x])
    start = _fraction_start(both_a, both_x, 0)
    state = {k: v[:, 0] for k, v in start.items()}
    state.update(y=1.0 - both_a, z=both_x + 2.0 - both_a, n=0.0 * both_a)

    def step(st, n):
        y, z = st["y"] + 1.0, st["z"] + 2.0
        p = st["p1"] * z - st["p2"] * (y * n)
        q = st["q1"] * z - st["q2"] * (y * n)
        nonzero = q != 0
        f = _where(nonzero, p / _where(nonzero, q, 1.0), st["f"])
        done = nonzero & (xp.abs(f - st["f"]) <= _EPS * xp.abs(f)) | ~xp.isfinite(f)
        scale = _where(xp.abs(p) > _BIG, _SMALL, 1.0)
        return dict(y=y, z=z, p2=st["p1"] * scale, q2=st["q1"] * scale, p1=p * scale,
                    q1=q * scale, f=f, n=0.0 * y + n), done
    steps = _iterate(state, step, _FRACTION_STEPS)["n"]
    steps = xp.maximum(steps[:a.shape[0]], steps[a.shape[0]:])
    return (steps + steps // 4 + 8).astype(np.int64)


def _gamma_fraction(a, x, degree):
    """F(a + e) of Legendre's continued fraction for the upper function,
    Q(a, x) = e^(a log x - x - lgamma(a)) F, as a series of ``degree`` in e.

    The fraction is summed from its tail, t_N = b_N, t_k = b_k + a_(k+1) /
    t_(k+1), F = (p_0 t_1 + a_1 p_-1) / (q_0 t_1 + a_1 q_-1): this keeps
    the derivatives in ``a`` to rounding, where the forward recurrence of
    the convergents loses digits to cancellation.  The elements are sorted
    by their length N, so the ones still summing are a prefix."""
    xp = _xp()
    length = _fraction_length(a, x)
    order = xp.argsort(-length, kind="stable")
    a, x, length = a[order], x[order], length[order]
    tail = xp.zeros(a.shape + (degree + 1,))
    for k in range(int(length[0]) if length.shape[0] else 0, 0, -1):
        m = int((length >= k).sum())
        b, _ = _fraction_terms(a[:m], x[:m], k, degree)
        _, num = _fraction_terms(a[:m], x[:m], k + 1, degree)
        t = tail[:m]
        t[..., 0] = _where(t[..., 0] == 0, _TINY, t[..., 0])
        tail[:m] = _where((length[:m] == k)[:, None], b, b + _taylor_div(num, t))
    start = _fraction_start(a, x, degree)
    _, num = _fraction_terms(a, x, 1, degree)
    top = _taylor_mul(start["p1"], tail) + _taylor_mul(num, start["p2"])
    bottom = _taylor_mul(start["q1"], tail) + _taylor_mul(num, start["q2"])
    out = xp.empty_like(tail)
    out[order] = _taylor_div(top, bottom)
    return out


def _underflow_bound(dtype):
    """Where JAX's igamma kernels skip their iterations: the prefactor's
    logarithm is below -log(max) of the computation dtype (float32 for
    every float narrower than 64 bits)."""
    wide = np.float64 if np.dtype(dtype).itemsize == 8 else np.float32
    return -math.log(float(np.finfo(wide).max))


def _igamma_parts(a, x, dtype, enabled, degree=1):
    """For the elements of ``enabled``: whether the continued fraction is
    used (x >= 1 and x > a), the log of the factor that multiplies the sum
    (x^a e^-x / Gamma(a) for the fraction, x^a e^-x / Gamma(a+1) for the
    series, exact for tiny a), and the sum (F or S) as a series of
    ``degree`` in e at a + e (shape ``a.shape + (degree + 1,)``: column j is
    its j-th derivative in ``a`` over j!).  Where x^a e^-x / Gamma(a)
    underflows the iterations are skipped and the first term kept, as in
    JAX's kernels (SPEC SPF-3)."""
    xp = _xp()
    with np.errstate(all="ignore"):
        log_x = xp.log(x)
        log_ax = a * log_x - x - _lgamma(a)
        use_fraction = (x >= 1) & (x > a)
        log_factor = _where(use_fraction, log_ax, a * log_x - x - _lgamma(a + 1.0))
        # The first term of the series and the first convergent of the
        # fraction, kept where they do not iterate.
        first = _fraction_start(a, x, degree)["f"]
    first[..., 0] = _where(use_fraction, first[..., 0], 1.0)
    first[..., 1:] = _where(use_fraction[..., None], first[..., 1:], 0.0)
    iterate = enabled & ~(log_ax < _underflow_bound(dtype))
    taylor = first.reshape(-1, degree + 1)
    for mask, fn in ((iterate & ~use_fraction, _gamma_series),
                     (iterate & use_fraction, _gamma_fraction)):
        where = xp.nonzero(mask.ravel())[0]
        if where.shape[0]:
            taylor[where] = fn(a.ravel()[where], x.ravel()[where], degree)
    return use_fraction, log_factor, taylor.reshape(a.shape + (degree + 1,))


def _gamma_domain(a, x):
    xp = _xp()
    return xp.isnan(a) | xp.isnan(x) | (x < 0) | (a < 0) | ((a == 0) & (x == 0))


def igamma(a, x, dtype):
    """P(a, x); 0 at x = 0, 1 at x = inf, NaN outside the domain
    (SPEC SPF-3)."""
    xp = _xp()
    bad = _gamma_domain(a, x)
    enabled = ~(bad | (x == 0) | xp.isinf(x))
    frac, log_factor, taylor = _igamma_parts(a, x, dtype, enabled, 0)
    with np.errstate(all="ignore"):
        part = xp.exp(log_factor) * taylor[..., 0]
        out = _where(frac, 1.0 - part, part)
        # a = 0 < x < 1: JAX's series divides 0 by a = 0.
        out = _where((a == 0) & ~frac, np.nan, out)
    out = _where(x == 0, 0.0, out)
    out = _where(xp.isposinf(x), 1.0, out)
    return _where(bad, np.nan, out)


def igammac(a, x, dtype):
    """Q(a, x) = 1 - P(a, x); 1 at x = 0, 0 at x = inf and at a = 0
    (SPEC SPF-3)."""
    xp = _xp()
    bad = _gamma_domain(a, x)
    enabled = ~(bad | (x == 0) | xp.isinf(x) | (a == 0))
    frac, log_factor, taylor = _igamma_parts(a, x, dtype, enabled, 0)
    with np.errstate(all="ignore"):
        part = xp.exp(log_factor) * taylor[..., 0]
        out = _where(frac, part, 1.0 - part)
    out = _where(x == 0, 1.0, out)
    out = _where(xp.isposinf(x) | (a == 0), 0.0, out)
    return _where(bad, np.nan, out)


def _grad_domain(a, x):
    """NaN: a <= 0, x < 0, or an infinite operand where x is not 0."""
    xp = _xp()
    return (xp.isnan(a) | xp.isnan(x) | (x < 0) | (a <= 0)
            | (xp.isinf(x) | xp.isinf(a)) & (x != 0))


def _dlog_factor(a, x, frac):
    """d/da of the log of the factor: log x - psi(a), or psi(a+1) for the series."""
    return _log_minus_digamma(x, _where(frac, a, a + 1.0))


def igamma_grad_a(a, x, dtype):
    """dP(a, x)/da; 0 at x = 0, NaN where a <= 0, x < 0 or an operand is
    infinite (SPEC SPF-4)."""
    xp = _xp()
    bad = _grad_domain(a, x)
    enabled = ~(bad | (x == 0))
    frac, log_factor, taylor = _igamma_parts(a, x, dtype, enabled)
    s, ds = taylor[..., 0], taylor[..., 1]
    with np.errstate(all="ignore"):
        part = xp.exp(log_factor) * (s * _dlog_factor(a, x, frac) + ds)
        out = _where(frac, -part, part)
    out = _where(x == 0, 0.0, out)
    return _where(bad, np.nan, out)


def random_gamma_grad(a, x, dtype):
    """dx/da along P(a, x) = const: -(dP/da) / (dP/dx), computed without
    the factor x^a e^-x / Gamma(a) (it cancels), so it stays finite where
    that underflows (SPEC SPF-4)."""
    bad = _grad_domain(a, x)
    enabled = ~(bad | (x == 0))
    frac, _, taylor = _igamma_parts(a, x, dtype, enabled)
    s, ds = taylor[..., 0], taylor[..., 1]
    with np.errstate(all="ignore"):
        # dP/dx = x^(a-1) e^-x / Gamma(a): the series' factor times a / x.
        part = (ds + s * _dlog_factor(a, x, frac)) * x
        out = _where(frac, part, -part / a)
    out = _where(x == 0, 0.0, out)
    return _where(bad, np.nan, out)


def _log_minus_digamma(x, b):
    """log x - psi(b).  From b = 8 on, as log(x / b) + (log b - psi(b)),
    the latter by its asymptotic series 1/(2b) + sum_k B_2k / (2k b^2k),
    and log(x / b) as log1p((x - b) / b) where x / b is within a factor 2
    of 1: for x near a large b the two logarithms nearly cancel."""
    xp = _xp()
    with np.errstate(all="ignore"):
        direct = xp.log(x) - _digamma(b)
        big = b >= _DIGAMMA_ASYMPTOTIC
        w = _where(big, b, _DIGAMMA_ASYMPTOTIC)
        inv2 = 1.0 / (w * w)
        tail = xp.zeros_like(w)
        for k in range(len(_EULER_MACLAURIN), 0, -1):
            tail = (tail + _BERNOULLI_OVER_2K[k - 1]) * inv2
        ratio = x / w
        log_ratio = _where((ratio > 0.5) & (ratio < 2.0), xp.log1p((x - w) / w),
                           xp.log(x) - xp.log(w))
        near = log_ratio + 0.5 / w + tail
    return _where(big, near, direct)


def _log_x_minus_digamma(x, b, degree):
    """log x - psi(b + e) as a series of ``degree`` in e: its j-th
    coefficient is -psi^(j)(b) / j! for j >= 1."""
    xp = _xp()
    out = xp.empty(b.shape + (degree + 1,))
    out[..., 0] = _log_minus_digamma(x, b)
    for j in range(1, degree + 1):
        out[..., j] = -polygamma(xp.full_like(b, float(j)), b) / math.factorial(j)
    return out


def random_gamma_grad_da(a, x, dtype, order):
    """The ``order``-th derivative in ``a`` of random_gamma_grad(a, x), x
    held (SPEC SPF-12).  With L(b) = log x - psi(b) and the sums as series
    in e at a + e, the sample derivative is x (F' + F L(a + e)) on the
    continued fraction's side and -x (S' + S L(a + 1 + e)) / (a + e) on the
    series' side; the e^order coefficient times order! is the result.  As
    JAX's derivatives of its loops give, it is 0 where x = 0 or x < 0,
    a <= 0 or an operand is NaN, and NaN where an operand is otherwise
    infinite."""
    xp = _xp()
    zero = xp.isnan(a) | xp.isnan(x) | (a <= 0) | (x <= 0)
    infinite = ~zero & (xp.isinf(a) | xp.isinf(x))
    frac, _, v = _igamma_parts(a, x, dtype, ~(zero | infinite), order + 1)
    with np.errstate(all="ignore"):
        slope = _log_x_minus_digamma(x, _where(frac, a, a + 1.0), order)
        inner = _taylor_deriv(v) + _taylor_mul(v[..., :-1], slope)
        series = -_taylor_mul(inner, _taylor_reciprocal_shift(a, order))
        coefficient = _where(frac, inner[..., order], series[..., order])
        out = coefficient * x * math.factorial(order)
    out = _where(zero, 0.0, out)
    return _where(infinite, np.nan, out)


# ---------------------------------------------------------------------------
# Hurwitz zeta and polygamma (SPEC SPF-5)
# ---------------------------------------------------------------------------

def _bernoulli_ratios(count):
    """B_2j / (2j)! for j = 1 .. count, from the recurrence
    sum_{k<m} C(m+1, k) B_k = -(m+1) B_m."""
    b = [Fraction(1)]
    for m in range(1, 2 * count + 1):
        b.append(-sum(math.comb(m + 1, k) * b[k] for k in range(m)) / (m + 1))
    return [float(b[2 * j] / math.factorial(2 * j)) for j in range(1, count + 1)]


_EULER_MACLAURIN = _bernoulli_ratios(12)
# B_2k / (2k) for the asymptotic series of log b - psi(b), used from b = 8.
_BERNOULLI_OVER_2K = [r * math.factorial(2 * k) / (2 * k)
                      for k, r in enumerate(_EULER_MACLAURIN, start=1)]
_DIGAMMA_ASYMPTOTIC = 8.0
# The direct sum runs until q + n exceeds this (and for at least as many terms).
_ZETA_SHIFT = 9
# Beyond this many direct terms (q far below 0) the value is not computed.
_ZETA_MAX_SHIFT = 1 << 16


def _zeta_tail(s, w):
    """sum_{k>=0} (w + k)^-s for w >= 9 by Euler-Maclaurin: the integral,
    half the first term, and twelve Bernoulli corrections."""
    with np.errstate(all="ignore"):
        tail = w ** (1.0 - s) / (s - 1.0) + 0.5 * w ** -s
        rising = s                       # s (s+1) ... (s+2j-2)
        power = w ** (-s - 1.0)
        for j, ratio in enumerate(_EULER_MACLAURIN, start=1):
            tail = tail + ratio * rising * power
            rising = rising * (s + 2 * j - 1) * (s + 2 * j)
            power = power / (w * w)
    return tail


def _zeta_value(s, q):
    """sum_{k>=0} (q + k)^-s: n direct terms (q + n > 9, n >= 9), then the
    tail from q + n; the direct terms are added smallest first."""
    xp = _xp()
    with np.errstate(all="ignore"):
        need = xp.maximum(_ZETA_SHIFT, xp.floor(_ZETA_SHIFT - q) + 1)
        need = _where(xp.isfinite(need), need, _ZETA_SHIFT)
        need = xp.minimum(need, _ZETA_MAX_SHIFT)
        n_max = int(need.max()) if need.size else _ZETA_SHIFT
        total = _zeta_tail(s, q + need)
        # Neumaier's compensated sum: for q < 0 terms of opposite signs
        # cancel, and the lost low-order parts are carried in ``carry``.
        carry = xp.zeros_like(total)
        for k in range(n_max - 1, -1, -1):
            term = _where(k < need, (q + k) ** -s, 0.0)
            new = total + term
            big = xp.abs(total) >= xp.abs(term)
            carry = carry + _where(big, (total - new) + term, (term - new) + total)
            total = new
        total = total + _where(xp.isfinite(carry), carry, 0.0)
    return _where(q + need > _ZETA_SHIFT, total, np.nan)


def zeta(s, q):
    """Hurwitz zeta(s, q) = sum_k (q + k)^-s, with JAX's edge cases
    (SPEC SPF-5): inf at s = 1, NaN for s < 1; for q <= 0, NaN unless s is
    an integer, and at the poles (q a non-positive integer) inf for even s
    and NaN for odd s; NaN at q = inf; inf at s = 1 for every q."""
    xp = _xp()
    with np.errstate(all="ignore"):
        out = _zeta_value(s, _where(xp.isinf(q) | (q <= 0) & (q == xp.floor(q)), 1.0, q))
        s_int = s == xp.floor(s)
        s_even = s_int & (xp.fmod(s, 2.0) == 0)
    out = _where(s < 1, np.nan, out)
    out = _where((q <= 0) & ~s_int, np.nan, out)
    pole = (q <= 0) & (q == xp.floor(q))
    out = _where(pole, _where(s_even, np.inf, np.nan), out)
    out = _where(xp.isnan(s) | xp.isnan(q) | xp.isposinf(q), np.nan, out)
    # s = 1 (the harmonic series) is inf whatever q is, NaN included.
    return _where(s == 1, np.inf, out)


_FACTORIALS = np.array([float(math.factorial(k)) for k in range(171)])


def polygamma(m, x):
    """psi^(m)(x) = (-1)^(m+1) m! zeta(m + 1, x) for integer m >= 1,
    digamma at m = 0, NaN for other m (SPEC SPF-5)."""
    xp = _xp()
    valid = (m >= 0) & (m == xp.floor(m))
    order = _where(valid & xp.isfinite(m), m, 1.0)
    with np.errstate(all="ignore"):
        index = xp.minimum(order, 170).astype(np.int64)
        factorial = _where(order > 170, np.inf, xp.asarray(_FACTORIALS)[index])
        sign = _where(xp.fmod(order, 2.0) == 1, 1.0, -1.0)
        out = sign * factorial * zeta(order + 1.0, x)
        out = _where(xp.isinf(m), zeta(m, x) * np.inf, out)
    out = _where(m == 0, _digamma(x), out)
    return _where(valid, out, np.nan)


# ---------------------------------------------------------------------------
# Regularized incomplete beta function (SPEC SPF-6)
# ---------------------------------------------------------------------------

_BETA_STEPS = 5000


def _beta_fraction(a, b, x):
    """The continued fraction of I_x(a, b) (x below the mean, where it
    converges fast), by the modified Lentz method on the even and odd
    partial numerators d_2m and d_2m+1."""
    xp = _xp()

    def clamp(v):
        return _where(xp.abs(v) < _TINY, _TINY, v)

    d = 1.0 / clamp(1.0 - (a + b) * x / (a + 1.0))
    state = dict(a=a, b=b, x=x, c=xp.ones_like(x), d=d, h=d)

    def step(st, m):
        a, b, x = st["a"], st["b"], st["x"]
        even = m * (b - m) * x / ((a + 2 * m - 1.0) * (a + 2 * m))
        d = 1.0 / clamp(1.0 + even * st["d"])
        c = clamp(1.0 + even / st["c"])
        h = st["h"] * d * c
        odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1.0))
        d = 1.0 / clamp(1.0 + odd * d)
        c = clamp(1.0 + odd / c)
        factor = d * c
        done = (xp.abs(factor - 1.0) <= _EPS) | ~xp.isfinite(factor)
        return dict(st, c=c, d=d, h=h * factor), done
    return _iterate(state, step, _BETA_STEPS)["h"]


def betainc(a, b, x):
    """I_x(a, b) with JAX's edge cases (SPEC SPF-6): a = 0 or b = inf
    puts all mass at 0, b = 0 or a = inf at 1; NaN for negative
    parameters, x outside [0, 1] or both degenerate."""
    xp = _xp()
    at_zero = (a == 0) | xp.isposinf(b)
    at_one = (b == 0) | xp.isposinf(a)
    bad = ((a < 0) | (b < 0) | (x < 0) | (x > 1) | (at_zero & at_one)
           | xp.isnan(a) | xp.isnan(b) | xp.isnan(x))
    special = bad | at_zero | at_one
    swap = ~(x < (a + 1.0) / (a + b + 2.0))
    pa, pb = _where(swap, b, a), _where(swap, a, b)
    px = _where(swap, 1.0 - x, x)
    pa, pb, px = (_where(special, v, w) for v, w in ((1.0, pa), (1.0, pb), (0.5, px)))
    out = xp.zeros_like(x)
    where = xp.nonzero(~special.ravel())[0]
    if where.shape[0]:
        fa, fb, fx = (v.ravel()[where] for v in (pa, pb, px))
        with np.errstate(all="ignore"):
            # x^a (1-x)^b / (a B(a, b)), with a B(a, b) = G(a+1) G(b) / G(a+b).
            log_front = (fa * xp.log(fx) + fb * xp.log1p(-fx)
                         - (_lgamma(fa + 1.0) + _lgamma(fb) - _lgamma(fa + fb)))
            value = xp.exp(log_front) * _beta_fraction(fa, fb, fx)
        out = out.ravel().copy()
        out[where] = value
        out = out.reshape(x.shape)
    out = _where(swap, 1.0 - out, out)
    out = _where(at_one & (x != 1) | at_zero & (x == 0), 0.0, out)
    out = _where(at_zero & (x != 0) | at_one & (x == 1), 1.0, out)
    return _where(bad, np.nan, out)
