"""``jax.scipy.linalg``'s matrix functions (SPEC SLA-40 .. SLA-44).

* ``expm``: scaling and squaring with a diagonal Padé approximant (Higham
  2005), written with ``lax.switch``/``cond``/``scan`` so that it is
  traceable and differentiable by the ordinary rules of those primitives,
  as in JAX (no custom derivative rule).
* ``expm_frechet``: the JVP of ``expm``.
* ``sqrtm`` and ``funm``: from the complex Schur form ``A = Z T Z^H``; the
  function of the triangular ``T`` is filled in one superdiagonal or
  column at a time (Björck-Hammarling for the square root, Parlett's
  recurrence for ``funm``).  The ``schur`` primitive has no derivative
  rule, so neither has these two.
"""
import functools
import math

import numpy as np

from refjax._src import core, dtypes
from refjax._src.ad_api import jvp
from refjax._src.api import jit
from refjax._src.lax import linalg as lax_linalg
from refjax._src.lax import linalg_eig
from refjax._src.lax.control_flow.conditionals import cond, switch
from refjax._src.lax.control_flow.scan import fori_loop, scan
from refjax._src.lax.dot import Precision
from refjax._src.numpy import contractions, creation, lax_numpy
from refjax._src.numpy import linalg as jnp_linalg
from refjax._src.numpy import reductions, statistics, ufuncs, util
from refjax._src.numpy.vectorize import vectorize
from refjax._src.scipy import linalg_schur

__all__ = ["expm", "expm_frechet", "funm", "sqrtm"]


def _shape(x):
    return core.get_aval(x).shape


def _dtype(x):
    return core.get_aval(x).dtype


def _mm(a, b):
    return contractions.matmul(a, b, precision=Precision.HIGHEST)


def _H(x):
    return ufuncs.conj(lax_numpy.matrix_transpose(x))


# ---------------------------------------------------------------------------
# expm (SPEC SLA-40)
# ---------------------------------------------------------------------------

def _pade_coefficients(m):
    """The coefficients ``b_0 .. b_m`` of the [m/m] Padé approximant of
    ``exp``, ``p(x) = sum b_k x^k`` with ``exp(x) ~ p(x) / p(-x)``,
    scaled so that ``b_m == 1`` (then they are integers)."""
    def term(k):
        return (math.factorial(2 * m - k) * math.factorial(m)
                // (math.factorial(k) * math.factorial(m - k)))
    return tuple(float(term(k) // term(m)) for k in range(m + 1))


# Higham's thresholds on ||A||_1: below THETA[m] the degree-m approximant is
# accurate to the unit roundoff; above the largest, A is scaled by 2^-s.
_DEGREES = {
    np.dtype(np.float64): ((3, 5, 7, 9, 13),
                           (1.495585217958292e-2, 2.539398330063230e-1,
                            9.504178996162932e-1, 2.097847961257068e0),
                           5.371920351148152),
    np.dtype(np.float32): ((3, 5, 7),
                           (4.258730016922831e-1, 1.880152677804762e0),
                           3.925724783138660),
}


def _degrees_for(dtype):
    real = np.dtype(dtypes.finfo(dtype).dtype) if dtype.kind == "c" else dtype
    if real not in _DEGREES:
        raise TypeError(f"A.dtype={dtype} is not supported.")
    return _DEGREES[real]


def _pade_terms(A, m):
    """``(U, V)``: the odd and even parts of ``p(A) = U + V`` for the
    degree-``m`` approximant; ``p(-A) = V - U``.  Degree 13 groups the
    terms around ``A^6`` to save products, as Higham does."""
    b = _pade_coefficients(m)
    n = _shape(A)[0]
    eye = creation.eye(n, dtype=_dtype(A))
    A2 = _mm(A, A)
    if m == 13:
        A4 = _mm(A2, A2)
        A6 = _mm(A4, A2)
        odd = (_mm(A6, b[13] * A6 + b[11] * A4 + b[9] * A2)
               + b[7] * A6 + b[5] * A4 + b[3] * A2 + b[1] * eye)
        V = (_mm(A6, b[12] * A6 + b[10] * A4 + b[8] * A2)
             + b[6] * A6 + b[4] * A4 + b[2] * A2 + b[0] * eye)
        return _mm(A, odd), V
    powers = [eye, A2]                       # A^0, A^2, A^4, ...
    while len(powers) <= m // 2:
        powers.append(_mm(powers[-1], A2))
    odd = _sum_high_to_low([b[2 * k + 1] * powers[k] for k in range(m // 2 + 1)])
    V = _sum_high_to_low([b[2 * k] * powers[k] for k in range(m // 2 + 1)])
    return _mm(A, odd), V


def _sum_high_to_low(terms):
    total = terms[-1]
    for t in reversed(terms[:-1]):
        total = total + t
    return total


def _scaled_pade(A):
    """``(P, Q, s)``: ``A`` is scaled by ``2^-s`` so that its 1-norm is at
    most the largest threshold, and the approximant whose threshold the
    norm falls under gives ``exp(A 2^-s) ~ Q^-1 P``."""
    degrees, thresholds, max_norm = _degrees_for(_dtype(A))
    norm = jnp_linalg.norm(A, 1)
    s = ufuncs.maximum(0, ufuncs.floor(ufuncs.log2(norm / max_norm)))
    A = A / ufuncs.power(2, s.astype(_dtype(A)))
    which = statistics.digitize(norm, creation.asarray(thresholds, dtype=_dtype(norm)))
    branches = [functools.partial(_pade_terms, m=m) for m in degrees]
    U, V = switch(which, branches, A)
    return U + V, V - U, s


def _repeated_squaring(R, s, max_squarings):
    """``R^(2^s)``, as ``max_squarings`` steps that square only while the
    step number is below ``s`` (a ``scan`` over ``cond``s, so reverse mode
    works)."""
    def step(x, i):
        return cond(i < s, lambda y: _mm(y, y), lambda y: y, x), None
    out, _ = scan(step, R, creation.arange(max_squarings, dtype=_dtype(s)))
    return out


@jit(static_argnames=("upper_triangular", "max_squarings"))
def expm(A, *, upper_triangular=False, max_squarings=16):
    """The matrix exponential of each square matrix in ``A`` (``(..., n,
    n)``; integers promote to float).  Scaling and squaring: float32 and
    complex64 use Padé degrees 3, 5, 7; float64 and complex128 also 9 and
    13; other dtypes are a TypeError.  ``upper_triangular`` solves with the
    triangular solver; a matrix needing more than ``max_squarings``
    squarings gives NaNs (SPEC SLA-40)."""
    A, = util.promote_dtypes_inexact(A)      # None, lists, text: JAX's errors
    shape = _shape(A)
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"Expected A to be a (batched) square matrix, got A.shape={shape}.")
    if len(shape) > 2:
        one = functools.partial(expm, upper_triangular=upper_triangular,
                                max_squarings=max_squarings)
        return vectorize(one, signature="(n,n)->(n,n)")(A)
    P, Q, s = _scaled_pade(A)

    def nans(A, P, Q):
        return creation.full_like(A, np.nan)

    def approximate(A, P, Q):
        if upper_triangular:
            R = lax_linalg.triangular_solve(Q, P, left_side=True, lower=False)
        else:
            R = jnp_linalg.solve(Q, P)
        return _repeated_squaring(R, s, max_squarings)

    return cond(s > max_squarings, nans, approximate, A, P, Q)


@jit(static_argnames=("method", "compute_expm"))
def expm_frechet(A, E, *, method=None, compute_expm=True):
    """The Fréchet derivative of ``expm`` at ``A`` in the direction ``E``
    (the JVP of ``expm``), with ``expm(A)`` first unless ``compute_expm``
    is false; ``method`` is ignored.  Integer ``A`` is jvp's TypeError
    (SPEC SLA-41)."""
    del method
    A, E = creation.asarray(A), creation.asarray(E)
    # JAX 0.10.2 compares A.shape[-2] with A.shape[1] (not [-1]); kept so
    # that the same shapes are accepted.
    if A.ndim < 2 or A.shape[-2] != A.shape[1]:
        raise ValueError(f"expected A to be a (batched) square matrix, got A.shape={A.shape}")
    if E.ndim < 2 or E.shape[-2] != E.shape[-1]:
        raise ValueError(f"expected E to be a (batched) square matrix, got E.shape={E.shape}")
    if A.shape != E.shape:
        raise ValueError("expected A and E to be the same shape, got "
                         f"A.shape={A.shape} E.shape={E.shape}")
    expm_A, derivative = jvp(expm, (A,), (E,))
    return (expm_A, derivative) if compute_expm else derivative


# ---------------------------------------------------------------------------
# sqrtm (SPEC SLA-42)
# ---------------------------------------------------------------------------

def _check_matrix(A):
    """The shape errors of JAX's ``sqrtm``: rank below 2 is the Schur
    primitive's TypeError, anything else not a square matrix a ValueError."""
    shape = _shape(A)
    if len(shape) < 2:
        raise TypeError(f"Input 0 to schur must have rank at least 2, but got shape={shape}")
    if len(shape) > 2:
        raise ValueError(f"sqrtm expects a single square matrix, got shape {shape}.")
    if shape[0] != shape[1]:
        raise ValueError(f"The input to schur must be a square matrix. Got shape {shape}.")


def _sqrt_upper_triangular(T):
    """``U`` upper triangular with ``U @ U == T``: ``U[i, i] = sqrt(T[i, i])``
    and, column by column upwards, ``U[i, j] = (T[i, j] - sum_{i<k<j}
    U[i, k] U[k, j]) / (U[i, i] + U[j, j])`` -- 0 when the numerator is
    exactly 0, so a singular ``T`` with zero off-diagonal entries works."""
    root = ufuncs.sqrt(contractions.diagonal(T))
    n = _shape(T)[0]
    k = creation.arange(n)

    def entry(offset, carry):
        j, U = carry
        i = j - 1 - offset
        between = (k > i) & (k < j)
        s = reductions.sum(lax_numpy.where(between, U[i, :] * U[:, j], 0))
        value = lax_numpy.where(T[i, j] == s, 0, (T[i, j] - s) / (root[i] + root[j]))
        return j, U.at[i, j].set(value)

    def column(j, U):
        return fori_loop(0, j, entry, (j, U))[1]

    return fori_loop(0, n, column, contractions.diag(root))


@jit
def _sqrtm(A):
    A = A.astype(util.to_complex_dtype(_dtype(A)))
    T, Z = linalg_eig.schur(A)
    return _mm(_mm(Z, _sqrt_upper_triangular(T)), _H(Z))


def sqrtm(A, blocksize=1):
    """The principal square root of the square matrix ``A`` (one matrix, no
    batch axes), always complex: ``Z sqrt(T) Z^H`` from the complex Schur
    form.  ``blocksize > 1`` is NotImplementedError, as in JAX (SPEC SLA-42)."""
    if blocksize > 1:
        raise NotImplementedError("Blocked version is not implemented yet.")
    util.check_arraylike("sqrtm", A)
    A = creation.asarray(A)
    _check_matrix(A)
    if A.size == 0:
        return creation.zeros(A.shape, util.to_complex_dtype(A.dtype))
    return _sqrtm(A)


# ---------------------------------------------------------------------------
# funm (SPEC SLA-43)
# ---------------------------------------------------------------------------

def _parlett(F, T):
    """Fill the strict upper triangle of ``F = f(T)`` (its diagonal given),
    one superdiagonal at a time, from ``F T = T F`` (Golub and Van Loan,
    Algorithm 11.1.1).  Where ``T[j, j] == T[i, i]`` the numerator is kept
    undivided, as SciPy does.  Also returns the smallest ``|T[j, j] - T[i,
    i]|`` (and ``|T[0, 0]|``), the error estimate's denominator."""
    n = _shape(T)[0]
    k = creation.arange(n)

    def entry(i, carry):
        p, F, minden = carry
        j = i + p
        between = (k > i) & (k < j)
        s = T[i, j] * (F[j, j] - F[i, i])
        s = s + (lax_numpy.where(between, T[i], 0) @ lax_numpy.where(between, F[:, j], 0)
                 - lax_numpy.where(between, F[i], 0) @ lax_numpy.where(between, T[:, j], 0))
        den = T[j, j] - T[i, i]
        s = lax_numpy.where(den != 0, s / den, s)
        return p, F.at[i, j].set(s), ufuncs.minimum(minden, ufuncs.abs(den))

    def superdiagonal(p, carry):
        _, F, minden = fori_loop(0, n - p, entry, (p, *carry))
        return F, minden

    return fori_loop(1, n, superdiagonal, (F, ufuncs.abs(T[0, 0])))


def _funm_error(F, T, minden):
    """SciPy's estimate of ``funm``'s relative error: ``eps / minden *
    ||triu(T, 1)||_1`` clipped to ``[eps, 1]``, ``inf`` if ``F`` has an
    infinity; ``eps`` is float32's for complex64 ``F``, float64's otherwise."""
    eps = dtypes.finfo(np.float32 if _dtype(F) == np.complex64 else np.float64).eps
    minden = lax_numpy.where(minden == 0.0, eps, minden)
    strict_upper = contractions.triu(T, 1)
    estimate = ufuncs.minimum(1, ufuncs.maximum(
        eps, (eps / minden) * jnp_linalg.norm(strict_upper, 1)))
    return lax_numpy.where(reductions.any(ufuncs.isinf(F)), np.inf, estimate)


def funm(A, func, disp=True):
    """``func`` of the square matrix ``A`` (one matrix): with ``A = Z T Z^H``
    its complex Schur form (real Schur form then ``rsf2csf`` for a real
    ``A``), ``func`` is applied to the eigenvalues on ``T``'s diagonal and
    Parlett's recurrence fills the rest; the result is complex.  With
    ``disp=False`` SciPy's error estimate comes too (SPEC SLA-43)."""
    A = creation.asarray(A)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError("expected square array_like input")
    linalg_eig.check_dtypes("schur", [core.get_aval(A)], (np.floating, np.complexfloating))
    if A.size == 0:
        # No eigenvalues: an empty result (JAX and SciPy fail on an index).
        F = creation.zeros(A.shape, util.to_complex_dtype(A.dtype))
        return F if disp else (F, _funm_error(F, F, 0.0))
    T, Z = linalg_eig.schur(A)
    T, Z = linalg_schur.rsf2csf_2d(T, Z)
    F = contractions.diag(func(contractions.diagonal(T))).astype(_dtype(T))
    F, minden = _parlett(F, T)
    F = Z @ F @ _H(Z)
    if disp:
        return F
    return F, _funm_error(F, T, minden)
