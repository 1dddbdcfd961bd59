"""``jax.scipy.special`` functions that bind the special-function primitives
of ``lax`` (SPEC SPF-8): ``i0e``, ``i1e``, ``i0``, ``i1``, ``gammainc``,
``gammaincc``, ``polygamma``, ``zeta`` and ``betainc``.

Each promotes its arguments as ``jax.numpy`` does (integers and booleans to
the default float, SPEC SPC-1), then binds the primitive.  ``zeta`` is a
``custom_jvp`` function, as in JAX: the primitive has no derivative, so its
tangent is that of a truncated Euler-Maclaurin expansion (SPEC SPF-9).
"""
import numpy as np

from refjax._src import core, dtypes, tree_util
from refjax._src.ad_api import jvp
from refjax._src.custom_derivatives import custom_jvp
from refjax._src.lax import lax
from refjax._src.lax import special as lax_special
from refjax._src.lax.misc_ops import dtype as lax_dtype
from refjax._src.lax.special_kernels import _EULER_MACLAURIN
from refjax._src.nn import numpy_ops as jnp
from refjax._src.scipy import special as _scipy_special

__all__ = ["betainc", "gammainc", "gammaincc", "i0", "i0e", "i1", "i1e", "polygamma",
           "zeta"]


def promote_args_inexact(fun_name, *args):
    """SPC-1's promotion, except that a Python int outside the default
    integer dtype's range is taken as a float first: JAX converts Python
    scalars straight to the float dtype here, so ``i0e(2**62)`` works with
    x64 off (SPEC SPF-11)."""
    info = np.iinfo(dtypes.default_int_dtype())
    args = [float(a) if type(a) is int and not info.min <= a <= info.max else a
            for a in args]
    return _scipy_special.promote_args_inexact(fun_name, *args)


def _reject_complex(name, x):
    if dtypes.issubdtype(jnp.dtype_of(x), np.complexfloating):
        raise ValueError(f"{name} does not support complex-valued inputs.")


def i0e(x):
    """``exp(-|x|) I0(x)`` (the ``bessel_i0e`` primitive)."""
    x, = promote_args_inexact("i0e", x)
    return lax_special.bessel_i0e(x)


def i1e(x):
    """``exp(-|x|) I1(x)`` (the ``bessel_i1e`` primitive)."""
    x, = promote_args_inexact("i1e", x)
    return lax_special.bessel_i1e(x)


def i0(x):
    """``I0(x)`` as ``exp(|x|) * i0e(x)``, so it overflows to inf as JAX's does."""
    x, = promote_args_inexact("i0", x)
    return lax.mul(lax.exp(lax.abs(x)), lax_special.bessel_i0e(x))


def i1(x):
    """``I1(x)`` as ``exp(|x|) * i1e(x)``."""
    x, = promote_args_inexact("i1", x)
    return lax.mul(lax.exp(lax.abs(x)), lax_special.bessel_i1e(x))


def gammainc(a, x):
    """The regularized lower incomplete gamma function ``P(a, x)``."""
    a, x = promote_args_inexact("gammainc", a, x)
    return lax_special.igamma(a, x)


def gammaincc(a, x):
    """The regularized upper incomplete gamma function ``Q(a, x)``."""
    a, x = promote_args_inexact("gammaincc", a, x)
    return lax_special.igammac(a, x)


def betainc(a, b, x):
    """The regularized incomplete beta function ``I_x(a, b)``; complex
    inputs are JAX's ``ValueError``."""
    a, b, x = promote_args_inexact("betainc", a, b, x)
    _reject_complex("betainc", x)
    return lax_special.betainc(a, b, x)


def polygamma(n, x):
    """``psi^(n)(x)``: ``n`` must have an integer dtype (JAX's
    ``ValueError`` otherwise, ``n``'s dtype read as ``lax.dtype`` reads it,
    SPEC SPF-11); both are then promoted to a float (SPEC SPF-8)."""
    n_dtype = lax_dtype(n)
    if not dtypes.issubdtype(n_dtype, np.integer):
        raise ValueError("Argument `n` to polygamma must be of integer type. "
                         f"Got dtype {n_dtype}.")
    n, x = promote_args_inexact("polygamma", n, x)
    _reject_complex("polygamma", x)
    return lax_special.polygamma(n, x)


@custom_jvp
def zeta(x, q=None):
    """The Hurwitz zeta function ``sum_k (q + k)^-x``; the Riemann zeta
    function (``q=None``) is JAX's ``NotImplementedError`` (SPEC SPF-9)."""
    _check_hurwitz(x, q)
    x, q = _scipy_special.promote_args_inexact("zeta", x, q)
    return lax_special.zeta(x, q)


def _check_hurwitz(x, q):
    """``q=None`` is refused, after the checks JAX's ``custom_jvp`` makes
    of its arguments first: each leaf is a JAX value (``TypeError``) and a Python
    int fits the default integer dtype (``OverflowError``) (SPEC SPF-11)."""
    for arg in tree_util.tree_leaves((x, q)):
        if type(arg) is int:
            dtypes.check_python_int(arg, dtypes.default_int_dtype())
        elif isinstance(arg, (type, np.ndarray)) or not hasattr(arg, "dtype"):
            core.get_aval(arg)      # (a ShapeDtypeStruct passes in JAX)
    if q is None:
        raise NotImplementedError(
            "Riemann zeta function not implemented; pass q != None to compute "
            "the Hurwitz Zeta function.")


def _zeta_expansion(x, q=None):
    """Euler-Maclaurin with ``n`` direct terms and ``n`` Bernoulli
    corrections (8 for float32, 16 wider), written with differentiable
    operations: sum_{k<n} (q+k)^-x + (q+n)^(1-x)/(x-1)
    + (q+n)^-x (1/2 + sum_j B_2j/(2j)! x (x+1)...(x+2j-2) / (q+n)^(2j-1))."""
    _check_hurwitz(x, q)
    s, a = promote_args_inexact("zeta", x, q)
    dtype = jnp.dtype_of(a)
    n = 8 if dtype == np.float32 else 16
    one = np.array(1, dtype)
    total = jnp.full_like(a + s, 0)
    for k in range(n):
        total = total + (a + np.array(k, dtype)) ** -s
    w = a + np.array(n, dtype)
    total = total + w ** (one - s) / (s - one)
    corrections = np.array(0.5, dtype)
    rising = s / w                      # x (x+1) ... (x+2j-2) / w^(2j-1)
    for j, ratio in enumerate(_EULER_MACLAURIN[:n], start=1):
        corrections = corrections + np.array(ratio, dtype) * rising
        rising = rising * (s + np.array(2 * j - 1, dtype)) / w
        rising = rising * (s + np.array(2 * j, dtype)) / w
    return total + w ** -s * corrections


@zeta.defjvp
def _zeta_jvp(primals, tangents):
    """Value and tangent of the expansion: under differentiation JAX's
    ``zeta`` returns the expansion's value too (SPEC SPF-9)."""
    return jvp(_zeta_expansion, primals, tangents)


# JAX's rule is ``partial(jvp, expansion)``, which prints as ``jvp``.
_zeta_jvp.__name__ = "jvp"
