"""Elementwise ``jax.numpy`` functions (SPEC NP-3).

Each function promotes its arguments with JAX's rules (``util``) and binds
one ``lax`` primitive; the few whose NumPy meaning differs from the
primitive's (floor division, remainder, ``power`` on integers) are composed
from primitives the way JAX composes them, under a ``jit`` of the same name
so that their jaxprs print as JAX prints them.
"""
import numpy as np

from refjax._src import core
from refjax._src import dtypes
from refjax._src.lax import lax
from refjax._src.numpy import util

__all__ = [
    "add", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2",
    "arctanh", "bitwise_and", "bitwise_or", "bitwise_xor", "cbrt", "cos",
    "cosh", "divide", "equal", "exp", "exp2", "expm1", "greater",
    "greater_equal", "less", "less_equal", "log", "log1p", "maximum",
    "minimum", "multiply", "negative", "nextafter", "not_equal", "sin", "sinh",
    "sqrt", "subtract", "tan", "tanh", "true_divide",
]

def _unary(name, lax_fn, inexact=True):
    promote = util.promote_args_inexact if inexact else util.promote_args

    def fn(x, /):
        x, = promote(name, x)
        return lax_fn(x)
    fn.__name__ = name
    fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}`` with JAX's dtype rules (``lax.{lax_fn.__name__}``)."
    return fn


def _binary(name, lax_fn, inexact=False):
    promote = util.promote_args_inexact if inexact else util.promote_args

    def fn(x, y, /):
        x, y = promote(name, x, y)
        return lax_fn(x, y)
    fn.__name__ = name
    fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}`` with JAX's dtype rules (``lax.{lax_fn.__name__}``)."
    return fn


def _bool_or_bitwise(name, lax_fn):
    def fn(x, y, /):
        x, y = util.promote_args(name, x, y)
        _check_integer_or_bool(name, x)
        return lax_fn(x, y)
    fn.__name__ = name
    fn.__doc__ = f"Elementwise ``{name}`` of integer or boolean arrays."
    return fn


def _check_integer_or_bool(name, x):
    dt = core.get_aval(x).dtype
    if not (dtypes.issubdtype(dt, np.integer) or dt == dtypes.bool_):
        raise TypeError(f"{name} is only defined for integer and boolean "
                        f"types, got {dt.name}")


sin = _unary("sin", lax.sin)
cos = _unary("cos", lax.cos)
tan = _unary("tan", lax.tan)
arcsin = _unary("arcsin", lax.asin)
arccos = _unary("arccos", lax.acos)
arctan = _unary("arctan", lax.atan)
sinh = _unary("sinh", lax.sinh)
cosh = _unary("cosh", lax.cosh)
tanh = _unary("tanh", lax.tanh)
arcsinh = _unary("arcsinh", lax.asinh)
arccosh = _unary("arccosh", lax.acosh)
arctanh = _unary("arctanh", lax.atanh)
exp = _unary("exp", lax.exp)
exp2 = _unary("exp2", lax.exp2)
expm1 = _unary("expm1", lax.expm1)
log = _unary("log", lax.log)
log1p = _unary("log1p", lax.log1p)
sqrt = _unary("sqrt", lax.sqrt)
cbrt = _unary("cbrt", lax.cbrt)

add = _binary("add", lax.add)
subtract = _binary("subtract", lax.sub)
multiply = _binary("multiply", lax.mul)
maximum = _binary("maximum", lax.max)
minimum = _binary("minimum", lax.min)
arctan2 = _binary("arctan2", lax.atan2, inexact=True)
nextafter = _binary("nextafter", lax.nextafter, inexact=True)
equal = _binary("equal", lax.eq)
not_equal = _binary("not_equal", lax.ne)
less = _binary("less", lax.lt)
less_equal = _binary("less_equal", lax.le)
greater = _binary("greater", lax.gt)
greater_equal = _binary("greater_equal", lax.ge)
bitwise_and = _bool_or_bitwise("bitwise_and", lax.bitwise_and)
bitwise_or = _bool_or_bitwise("bitwise_or", lax.bitwise_or)
bitwise_xor = _bool_or_bitwise("bitwise_xor", lax.bitwise_xor)


def true_divide(x1, x2, /):
    """``x1 / x2`` in the promoted inexact dtype (integers divide as floats)."""
    x1, x2 = util.promote_args_inexact("true_divide", x1, x2)
    return lax.div(x1, x2)


divide = true_divide


def negative(x, /):
    """``-x``; booleans are rejected as in NumPy."""
    x, = util.promote_args("negative", x)
    if core.get_aval(x).dtype == dtypes.bool_:
        raise TypeError("Negation of boolean arrays is not supported; use "
                        "jnp.logical_not or the ~ operator instead.")
    return lax.neg(x)
