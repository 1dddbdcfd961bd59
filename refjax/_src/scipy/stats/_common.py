"""What the ``jax.scipy.stats`` distributions share (SPEC STA-1).

Every density, mass and distribution function promotes its arguments as
``jax.numpy`` does (integers and booleans to the default float, float16
kept) and broadcasts them to one shape before composing ``lax``
primitives.  These functions are not jitted in JAX, so a Python int outside
int32 is converted straight to the float dtype (SPEC STA-1).
"""
import numpy as np

from refjax._src import core
from refjax._src.lax import lax
from refjax._src.numpy import lax_numpy, ufuncs, util

NAN = np.nan
NEG_INF = -np.inf


def promote(fun_name, *args):
    """The arguments as arrays of one inexact dtype and one shape; a Python
    int outside int32 converts straight to that dtype (SPEC STA-1)."""
    return util.promote_args_inexact_unjitted(fun_name, *util.huge_ints_as_floats(args))


def promote_dtypes(*args):
    """``promote_dtypes_inexact`` (no shape broadcasting, no arraylike
    check), with ``promote``'s rule for large Python ints (SPEC STA-1)."""
    args = util.huge_ints_as_floats(args)
    to_dtype, _ = util._result_type(args)
    to_dtype = util.to_inexact_dtype(to_dtype)
    args = [lax.big_int_to(a, to_dtype) if type(a) is int and a not in _INT32 else a
            for a in args]
    return util.promote_dtypes_inexact(*args)


_INT32 = range(-2**31, 2**31)


def const(x, value):
    """``value`` in ``x``'s dtype; a Python scalar when ``x`` is a weak scalar,
    so that the result stays weakly typed (``lax._const``)."""
    return util._const(x, value)


def where(condition, x, y):
    """``jnp.where``: promoted and broadcast, scalars such as ``-inf`` taking
    the array's dtype."""
    return lax_numpy.where(condition, x, y)


def either(a, b):
    return ufuncs.logical_or(a, b)


def both(a, b):
    return ufuncs.logical_and(a, b)


def outside(x, low, high):
    """``x < low or x > high`` by ``lax`` comparisons (which refuse complex
    operands, as JAX's support checks do)."""
    return either(lax.lt(x, low), lax.gt(x, high))


def bad_probability(q):
    """``isnan(q) or q < 0 or q > 1`` (``jnp`` comparisons, as JAX's
    ``ppf`` checks)."""
    return either(ufuncs.isnan(q), either(ufuncs.less(q, 0), ufuncs.greater(q, 1)))


def standardize(x, loc, scale):
    """``(x - loc) / scale``."""
    return lax.div(lax.sub(x, loc), scale)


def dtype_of(x):
    return core.get_aval(x).dtype
