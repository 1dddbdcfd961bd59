"""Polynomials in ``jax.numpy``: coefficient arrays, highest power first
(SPEC NPP-2 .. NPP-5).

The conventions of ``lax_numpy.py`` hold: each function is composed of the
``jnp`` and ``lax`` operations JAX composes it of (``convolve`` for
products, ``scan`` for Horner evaluation, an eigenvalue problem for roots),
and wrapped in a ``jit`` of the same name where JAX wraps it.  ``polymul``,
``polydiv`` and ``roots`` are not jitted, as in JAX, because they may look
at values (leading zeros) to decide output shapes.
"""
import operator

import numpy as np

from refjax._src import core, dtypes
from refjax._src.api import jit
from refjax._src.lax import lax
from refjax._src.lax import sorting as lax_sorting
from refjax._src.lax.control_flow.scan import scan
from refjax._src.numpy import creation, reductions, ufuncs, util
from refjax._src.numpy.contractions import diag, dot, outer
from refjax._src.numpy.lax_numpy import (
    _where, atleast_1d, broadcast_shapes, concatenate, roll,
)
from refjax._src.numpy.signal import convolve

__all__ = [
    "poly", "polyadd", "polyder", "polydiv", "polyfit", "polyint", "polymul",
    "polysub", "polyval", "roots",
]


def _eigvals(a):
    """``jnp.linalg.eigvals(a)``: ``lax.linalg.eig`` without eigenvectors
    (imported when used, like ``_lstsq``, so that this module loads
    without the decompositions)."""
    from refjax._src.numpy import linalg_extra
    return linalg_extra.eigvals(a)


def _complex_dtype(dtype):
    return util.to_complex_dtype(dtype)


# ---------------------------------------------------------------------------
# Roots and construction from roots (SPEC NPP-2)
# ---------------------------------------------------------------------------

@jit
def _roots_no_zeros(p):
    if p.size < 2:
        return creation.array([], dtype=_complex_dtype(p.dtype))
    # The companion matrix: ones below the diagonal, -p[1:]/p[0] on top.
    companion = diag(creation.ones((p.size - 2,), p.dtype), -1)
    companion = companion.at[0, :].set(-p[1:] / p[0])
    return _eigvals(companion)


@jit
def _roots_with_zeros(p, num_leading_zeros):
    # With n leading zeros the polynomial rolled left by n has n trailing
    # zeros, i.e. n roots at zero; those are replaced by NaN at the end.
    p = _where(len(p) == num_leading_zeros, 1.0, p)
    found = _roots_no_zeros(roll(p, -num_leading_zeros))
    found = lax_sorting.sort_key_val(found == 0, found)[1]
    keep = creation.arange(found.size) < found.size - num_leading_zeros
    return _where(keep, found, complex(np.nan, np.nan))


def roots(p, *, strip_zeros=True):
    """The roots of ``p`` (coefficients, highest power first): eigenvalues of
    its companion matrix, a complex array (SPEC NPP-2).

    Leading zeros are stripped, which needs a concrete ``p``; with
    ``strip_zeros=False`` the output keeps the length ``len(p) - 1`` and the
    roots that leading zeros would remove are NaN, so it works under ``jit``.
    """
    p = util.ensure_arraylike("roots", p)
    p, = util.promote_dtypes_inexact(p)
    p = atleast_1d(p)
    if p.ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    if p.size < 2:
        return creation.array([], dtype=_complex_dtype(p.dtype))
    num_leading_zeros = _where(reductions.all(p == 0), len(p), reductions.argmin(p == 0))
    if strip_zeros:
        num_leading_zeros = core.concrete_or_error(
            int, num_leading_zeros,
            "The error occurred in the jnp.roots() function. To use this within a "
            "JIT-compiled context, pass strip_zeros=False, but be aware that leading "
            "zeros will result in some returned roots being set to NaN.")
        return _roots_no_zeros(p[num_leading_zeros:])
    return _roots_with_zeros(p, num_leading_zeros)


@jit
def poly(seq_of_zeros):
    """The monic polynomial with the given roots, or with the eigenvalues of
    a non-empty square matrix as roots (SPEC NPP-2).  Inexact dtype (complex
    when eigenvalues are computed); ``1.`` (0-d) for no roots."""
    seq_of_zeros = util.ensure_arraylike("poly", seq_of_zeros)
    seq_of_zeros, = util.promote_dtypes_inexact(seq_of_zeros)
    zeros_ = atleast_1d(seq_of_zeros)
    sh = zeros_.shape
    if len(sh) == 2 and sh[0] == sh[1] and sh[0] != 0:
        zeros_ = _eigvals(zeros_)
    if zeros_.ndim != 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    dt = zeros_.dtype
    if len(zeros_) == 0:
        return creation.ones((), dtype=dt)
    result = creation.ones((1,), dtype=dt)
    for k in range(len(zeros_)):
        result = convolve(result, creation.array([1, -zeros_[k]], dtype=dt), mode="full")
    return result


# ---------------------------------------------------------------------------
# Evaluation and arithmetic (SPEC NPP-3)
# ---------------------------------------------------------------------------

@jit(static_argnames=("unroll",))
def polyval(p, x, *, unroll=16):
    """``p`` evaluated at ``x`` by Horner's rule, one ``scan`` step per
    coefficient (``p``'s leading axis); ``p`` and ``x`` promote together
    without becoming inexact (SPEC NPP-3)."""
    p, x = util.ensure_arraylike("polyval", p, x)
    p, x = util.promote_dtypes(p, x)
    if p.ndim == 0:
        # JAX fails here indexing the (empty) shape: the same class.
        raise IndexError("polyval: p must have at least one dimension (the "
                         "coefficients), got a 0-d array")
    shape = broadcast_shapes(p.shape[1:], x.shape)
    y = lax.full_like(x, 0, shape=shape, dtype=x.dtype)
    y, _ = scan(lambda acc, c: (acc * x + c, None), y, p, unroll=unroll)
    return y


@jit
def polyadd(a1, a2):
    """The sum of two polynomials: the shorter added onto the tail of the
    longer (SPEC NPP-3)."""
    a1, a2 = util.ensure_arraylike("polyadd", a1, a2)
    a1, a2 = util.promote_dtypes(a1, a2)
    if a2.shape[0] <= a1.shape[0]:
        return a1.at[-a2.shape[0]:].add(a2)
    return a2.at[-a1.shape[0]:].add(a1)


@jit
def polysub(a1, a2):
    """``polyadd(a1, -a2)`` after promotion (SPEC NPP-3)."""
    a1, a2 = util.ensure_arraylike("polysub", a1, a2)
    a1, a2 = util.promote_dtypes(a1, a2)
    return polyadd(a1, -a2)


def polymul(a1, a2, *, trim_leading_zeros=False):
    """The product of two polynomials, a full ``convolve`` in an inexact
    dtype; an empty factor counts as ``[0]`` (SPEC NPP-3)."""
    a1, a2 = util.ensure_arraylike("polymul", a1, a2)
    a1, a2 = util.promote_dtypes_inexact(a1, a2)
    if trim_leading_zeros and (len(a1) > 1 or len(a2) > 1):
        a1, a2 = _trim_leading_zeros(a1), _trim_leading_zeros(a2)
    if len(a1) == 0:
        a1 = creation.zeros(1, dtype=a2.dtype)
    if len(a2) == 0:
        a2 = creation.zeros(1, dtype=a1.dtype)
    return convolve(a1, a2, mode="full")


def _trim_leading_zeros(filt):
    """``filt`` without its leading zeros (``jnp.trim_zeros(filt, 'f')``):
    needs concrete values, like JAX's."""
    core.concrete_or_error(None, filt, "Error arose in the `filt` argument of trim_zeros()")
    nonzero = np.asarray(core.concrete_or_error(None, filt != 0))
    if not nonzero.any():
        return filt[0:0]
    return filt[int(nonzero.argmax()):]


def _trim_leading_small(filt, tol):
    """``filt`` without its leading entries of magnitude below ``tol``;
    empty if all are."""
    filt = core.concrete_or_error(
        creation.asarray, filt, "Error arose in the `filt` argument of trim_zeros_tol()")
    small = ufuncs.abs(filt) < tol
    if reductions.all(small):
        return creation.empty(0, filt.dtype)
    return filt[int(reductions.argmin(small)):]


def polydiv(u, v, *, trim_leading_zeros=False):
    """Quotient and remainder of ``u / v`` by long division, in an inexact
    dtype; the remainder keeps ``u``'s length unless ``trim_leading_zeros``
    (then entries below ``sqrt(eps)`` are trimmed, needing concrete values)
    (SPEC NPP-3)."""
    u, v = util.ensure_arraylike("polydiv", u, v)
    u, v = util.promote_dtypes_inexact(u, v)
    m, n = len(u) - 1, len(v) - 1
    scale = 1. / v[0]
    q = creation.zeros(max(m - n + 1, 1), dtype=u.dtype)
    for k in range(0, m - n + 1):
        d = scale * u[k]
        q = q.at[k].set(d)
        u = u.at[k:k + n + 1].add(-d * v)
    if trim_leading_zeros:
        u = _trim_leading_small(u, ufuncs.sqrt(dtypes.finfo(u.dtype).eps))
    return q, u


# ---------------------------------------------------------------------------
# Calculus (SPEC NPP-4)
# ---------------------------------------------------------------------------

@jit(static_argnames=("m",))
def polyint(p, m=1, k=None):
    """The ``m``-th antiderivative of ``p``, integration constants ``k`` (a
    scalar, or one per order) appended; inexact dtype (SPEC NPP-4)."""
    m = core.concrete_or_error(operator.index, m, "'m' argument of jnp.polyint")
    k = 0 if k is None else k
    p, k = util.ensure_arraylike("polyint", p, k)
    p, k = util.promote_dtypes_inexact(p, k)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    k = atleast_1d(k)
    if len(k) == 1:
        k = creation.full((m,), k[0])
    if k.shape != (m,):
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or m.")
    if m == 0:
        return p
    # Coefficient j (from the end) is divided by (j+1)(j+2)...(j+m).
    grid = (creation.arange(len(p) + m, dtype=p.dtype)[np.newaxis]
            - creation.arange(m, dtype=p.dtype)[:, np.newaxis])
    coeff = ufuncs.maximum(1, grid).prod(0)[::-1]
    return ufuncs.true_divide(concatenate((p, k)), coeff)


@jit(static_argnames=("m",))
def polyder(p, m=1):
    """The ``m``-th derivative of ``p``; inexact dtype (SPEC NPP-4)."""
    p = util.ensure_arraylike("polyder", p)
    m = core.concrete_or_error(operator.index, m, "'m' argument of jnp.polyder")
    p, = util.promote_dtypes_inexact(p)
    if m < 0:
        raise ValueError("Order of derivative must be positive")
    if m == 0:
        return p
    coeff = (creation.arange(m, len(p), dtype=p.dtype)[np.newaxis]
             - creation.arange(m, dtype=p.dtype)[:, np.newaxis]).prod(0)
    return p[:-m] * coeff[::-1]


# ---------------------------------------------------------------------------
# Least-squares fit (SPEC NPP-5)
# ---------------------------------------------------------------------------

def _vander(x, order):
    """Columns ``x**(order-1) ... x**0`` (``jnp.vander(x, order)``)."""
    powers = lax.sub(lax._const(creation.arange(order, dtype=x.dtype), order - 1),
                     creation.arange(order, dtype=x.dtype))
    return ufuncs.power(x[..., None], powers[None])


def _lstsq(a, b, rcond):
    """``jnp.linalg.lstsq(a, b, rcond)`` (imported when used)."""
    from refjax._src.numpy import linalg_extra
    return linalg_extra.lstsq(a, b, rcond)


def _check_polyfit_args(x, y, deg):
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")


def _weigh(lhs, rhs, w, y):
    w, = util.promote_dtypes_inexact(w)
    if w.ndim != 1:
        raise TypeError("expected a 1-d array for weights")
    if w.shape[0] != y.shape[0]:
        raise TypeError("expected w and y to have the same length")
    lhs = lhs * w[:, np.newaxis]
    rhs = rhs * (w[:, np.newaxis] if rhs.ndim == 2 else w)
    return lhs, rhs


@jit(static_argnames=("deg", "rcond", "full", "cov"))
def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """Least-squares fit of a degree-``deg`` polynomial to ``(x, y)``
    (optionally weighted by ``w``), on a Vandermonde matrix whose columns are
    scaled to unit norm; ``full`` adds (residuals, rank, singular values,
    rcond), ``cov`` the scaled covariance (SPEC NPP-5)."""
    if w is None:
        x, y = util.ensure_arraylike("polyfit", x, y)
    else:
        x, y, w = util.ensure_arraylike("polyfit", x, y, w)
    deg = core.concrete_or_error(int, deg, "deg must be int")
    order = deg + 1
    _check_polyfit_args(x, y, deg)
    if rcond is None:
        rcond = len(x) * float(dtypes.finfo(x.dtype).eps)
    rcond = core.concrete_or_error(float, rcond, "rcond must be float")
    lhs, rhs = _vander(x, order), y
    if w is not None:
        lhs, rhs = _weigh(lhs, rhs, w, y)
    scale = ufuncs.sqrt((lhs * lhs).sum(axis=0))
    lhs = lhs / scale[np.newaxis, :]
    c, resids, rank, s = _lstsq(lhs, rhs, rcond)
    c = (c.T / scale[np.newaxis, :]).T if c.ndim > 1 else c / scale
    if full:
        return c, resids, rank, s, lax.asarray(rcond)
    if cov:
        return c, _polyfit_cov(lhs, scale, resids, x, y, order, cov)
    return c


def _polyfit_cov(lhs, scale, resids, x, y, order, cov):
    from refjax._src.numpy import linalg
    base = linalg.inv(dot(lhs.T, lhs))
    base = base / outer(scale, scale)
    if cov == "unscaled":
        fac = creation.array(1.0)
    else:
        if len(x) <= order:
            raise ValueError("the number of data points must exceed order"
                             " to scale the covariance matrix")
        fac = resids / (len(x) - order)
    if y.ndim == 1:
        return base * atleast_1d(fac)[np.newaxis]
    return base[:, :, np.newaxis] * atleast_1d(fac)[np.newaxis, np.newaxis, :]
