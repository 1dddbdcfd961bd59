"""Elementwise ``jax.numpy`` functions (SPEC NP-3 and NP-16 .. NP-27).

Each function promotes its arguments with JAX's rules (``util``) and binds
``lax`` primitives in the order JAX binds them, so results, dtypes, weak
types and jaxprs match.  Two kinds of definitions (SPEC NP-27):

* Functions JAX defines with ``jit(inline=True)`` are plain functions here:
  their equations appear directly in a jaxpr (``sin a``).
* Functions JAX defines with a plain ``jit`` (``floor_divide``, ``remainder``,
  ``isinf``, ``clip``, ...) are wrapped by refjax's ``jit`` under the same
  name, so a jaxpr shows ``jit[name=remainder jaxpr={...}]``.

No work is done per call beyond promotion and binding: the hot path of a
unary function is one dtype check and one ``bind`` (SPEC NP-3).
"""
import builtins
import operator
from functools import partial

import numpy as np

from refjax._src import core, dtypes
from refjax._src.api import jit
from refjax._src.array import Array
from refjax._src.custom_derivatives import custom_jvp
from refjax._src.interpreters import ad
from refjax._src.lax import lax
from refjax._src.lax.control_flow.loops import while_loop
from refjax._src.numpy import util
from refjax._src.numpy.ufunc_api import frompyfunc, ufunc
from refjax._src.numpy.util import _const, _full_like, _where

__all__ = [
    # arithmetic
    "abs", "absolute", "add", "cbrt", "divide", "divmod", "fabs",
    "float_power", "floor_divide", "fmod", "mod", "multiply", "negative",
    "positive", "pow", "power", "reciprocal", "remainder", "sign", "sqrt",
    "square", "subtract", "true_divide",
    # exponentials and logarithms
    "exp", "exp2", "expm1", "log", "log10", "log1p", "log2", "logaddexp",
    "logaddexp2",
    # trigonometric and hyperbolic
    "acos", "acosh", "arccos", "arccosh", "arcsin", "arcsinh", "arctan",
    "arctan2", "arctanh", "asin", "asinh", "atan", "atan2", "atanh", "cos",
    "cosh", "deg2rad", "degrees", "hypot", "rad2deg", "radians", "sin", "sinc",
    "sinh", "tan", "tanh",
    # rounding
    "around", "ceil", "floor", "rint", "round", "trunc",
    # comparisons, extrema, logic and bits
    "bitwise_and", "bitwise_count", "bitwise_invert", "bitwise_left_shift",
    "bitwise_not", "bitwise_or", "bitwise_right_shift", "bitwise_xor", "clip",
    "equal", "fmax", "fmin", "greater", "greater_equal", "invert",
    "left_shift", "less", "less_equal", "logical_and", "logical_not",
    "logical_or", "logical_xor", "maximum", "minimum", "not_equal",
    "right_shift",
    # floating-point classification and decomposition
    "copysign", "frexp", "heaviside", "isfinite", "isinf", "isnan",
    "isneginf", "isposinf", "ldexp", "modf", "nan_to_num", "nextafter",
    "signbit", "spacing",
    # complex numbers
    "angle", "conj", "conjugate", "imag", "iscomplex", "isreal", "real",
    # integers
    "gcd", "lcm",
    # ufunc objects
    "frompyfunc", "ufunc",
]

_ARRAY_TYPES = (Array,)


def _dtype(x):
    return util._aval(x).dtype


def _is(x, kind):
    return dtypes.issubdtype(_dtype(x), kind)


def _constant_like(x, value):
    """``value`` as a strong constant of ``x``'s dtype (never weak)."""
    return np.array(value, _dtype(x))


def _to_bool(x):
    """``x != 0`` unless ``x`` is boolean already (logical functions)."""
    return x if _dtype(x) == dtypes.bool_ else lax.ne(x, _const(x, 0))


def _named(fn, name, doc):
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


# ---------------------------------------------------------------------------
# Unary functions of one primitive
# ---------------------------------------------------------------------------

def _float_unary(name, lax_fn):
    """``lax_fn`` on the argument promoted to an inexact dtype (SPEC NP-3).

    Integers and booleans compute in the default float dtype; a Python
    scalar stays weakly typed.
    """
    promote = util.promote_args_inexact
    arrays = util._ARRAYS

    def fn(x, /):
        if isinstance(x, arrays) and x.dtype.kind in "fc":
            return lax_fn(x)        # nothing to promote: the hot path
        return lax_fn(*promote(name, x))
    return _named(fn, name, f"Elementwise ``{name}`` in an inexact dtype "
                            f"(``lax.{lax_fn.__name__}``; SPEC NP-3).")


sin = _float_unary("sin", lax.sin)
cos = _float_unary("cos", lax.cos)
tan = _float_unary("tan", lax.tan)
arcsin = _float_unary("arcsin", lax.asin)
arccos = _float_unary("arccos", lax.acos)
arctan = _float_unary("arctan", lax.atan)
sinh = _float_unary("sinh", lax.sinh)
cosh = _float_unary("cosh", lax.cosh)
tanh = _float_unary("tanh", lax.tanh)
arcsinh = _float_unary("arcsinh", lax.asinh)
arctanh = _float_unary("arctanh", lax.atanh)
exp = _float_unary("exp", lax.exp)
exp2 = _float_unary("exp2", lax.exp2)
expm1 = _float_unary("expm1", lax.expm1)
log = _float_unary("log", lax.log)
log1p = _float_unary("log1p", lax.log1p)
sqrt = _float_unary("sqrt", lax.sqrt)
cbrt = _float_unary("cbrt", lax.cbrt)


@jit
def arccosh(x, /):
    """Inverse hyperbolic cosine; complex results take the branch with a
    non-negative real part (SPEC NP-3)."""
    result = lax.acosh(*util.promote_args_inexact("arccosh", x))
    if _is(result, np.complexfloating):
        re = real(result)
        result = _where(lax.lt(re, _const(re, 0)), lax.neg(result), result)
    return result


def _alias(name, target):
    """Array-API spelling of ``target`` (``acos`` for ``arccos``...)."""
    def fn(*args):
        if not args:    # the target's own TypeError names the missing argument
            return target()
        return target(*util.promote_args(name, *args))
    return _named(fn, name, f"Alias of ``jnp.{target.__name__}`` (SPEC NP-3).")


acos = _alias("acos", arccos)
acosh = _alias("acosh", arccosh)
asin = _alias("asin", arcsin)
asinh = _alias("asinh", arcsinh)
atan = _alias("atan", arctan)
atanh = _alias("atanh", arctanh)


def log2(x, /):
    """``log(x) / log(2)``; for complex input both parts are divided."""
    x, = util.promote_args_inexact("log2", x)
    if _is(x, np.complexfloating):
        r = lax.log(x)
        re, im = lax.real(r), lax.imag(r)
        ln2 = lax.log(_constant_like(re, 2))
        return lax.complex(lax.div(re, ln2), lax.div(im, ln2))
    return lax.div(lax.log(x), lax.log(_constant_like(x, 2)))


def log10(x, /):
    """``log(x) * (1 / log(10))``; for complex input both parts are scaled."""
    x, = util.promote_args_inexact("log10", x)
    factor = np.array(0.4342944819032518, dtype=dtypes.finfo(_dtype(x)).dtype)
    if _is(x, np.complexfloating):
        r = lax.log(x)
        re, im = lax.real(r), lax.imag(r)
        return lax.complex(lax.mul(re, factor), lax.mul(im, factor))
    return lax.mul(lax.log(x), factor)


def deg2rad(x, /):
    """Degrees to radians: ``x * (pi / 180)`` in an inexact dtype."""
    x, = util.promote_args_inexact("deg2rad", x)
    return lax.mul(x, _const(x, np.pi / 180))


def rad2deg(x, /):
    """Radians to degrees: ``x * (180 / pi)`` in an inexact dtype."""
    x, = util.promote_args_inexact("rad2deg", x)
    return lax.mul(x, _const(x, 180 / np.pi))


def degrees(x, /):
    """Alias of ``rad2deg``."""
    return rad2deg(x)


def radians(x, /):
    """Alias of ``deg2rad``."""
    return deg2rad(x)


def reciprocal(x, /):
    """``1 / x`` in an inexact dtype, staged as ``integer_pow[y=-1]``."""
    x, = util.promote_dtypes_inexact(util.ensure_arraylike("reciprocal", x))
    return lax.integer_pow(x, -1)


def square(x, /):
    """``x * x``; booleans square as the default int (SPEC NP-3)."""
    x, = util.promote_dtypes_numeric(util.ensure_arraylike("square", x))
    return lax.square(x)


# ---------------------------------------------------------------------------
# Signs and absolute values (SPEC NP-24)
# ---------------------------------------------------------------------------

def negative(x, /):
    """``-x``; unsigned integers wrap, booleans are rejected by ``neg``."""
    return lax.neg(*util.promote_args("negative", x))


def positive(x, /):
    """``+x``: the argument as an array, unchanged."""
    return util.promote_args("positive", x)[0]


def sign(x, /):
    """-1, 0 or 1 (``x / |x|`` for complex); booleans are rejected."""
    return lax.sign(*util.promote_args("sign", x))


def absolute(x, /):
    """``|x|``; booleans and unsigned integers are returned unchanged, and a
    complex argument gives its real dtype (SPEC NP-24)."""
    x = util.ensure_arraylike("absolute", x)
    dt = _dtype(x)
    if dt == dtypes.bool_ or dtypes.issubdtype(dt, np.unsignedinteger):
        return x
    return lax.abs(x)


def abs(x, /):  # noqa: A001 - the jnp name
    """Alias of ``absolute`` (also ``abs(array)``)."""
    return absolute(x)


def fabs(x, /):
    """``|x|`` in an inexact dtype; complex input is a TypeError."""
    x = util.ensure_arraylike("fabs", x)
    if _is(x, np.complexfloating):
        raise TypeError("ufunc 'fabs' does not support complex dtypes")
    return lax.abs(*util.promote_args_inexact("fabs", x))


# ---------------------------------------------------------------------------
# Binary arithmetic
# ---------------------------------------------------------------------------

def add(x, y, /):
    """``x + y``; for booleans this is logical or (SPEC NP-3)."""
    x, y = util.promote_args("add", x, y)
    return lax.bitwise_or(x, y) if _dtype(x) == dtypes.bool_ else lax.add(x, y)


def subtract(x, y, /):
    """``x - y``; booleans are rejected by ``sub``."""
    return lax.sub(*util.promote_args("subtract", x, y))


def multiply(x, y, /):
    """``x * y``; for booleans this is logical and."""
    x, y = util.promote_args("multiply", x, y)
    return lax.bitwise_and(x, y) if _dtype(x) == dtypes.bool_ else lax.mul(x, y)


def true_divide(x1, x2, /):
    """``x1 / x2`` in the promoted inexact dtype (integers divide as floats)."""
    return lax.div(*util.promote_args_inexact("true_divide", x1, x2))


def divide(x1, x2, /):
    """Alias of ``true_divide``."""
    return true_divide(x1, x2)


def maximum(x, y, /):
    """Elementwise larger value; NaN wins (SPEC NP-23)."""
    return lax.max(*util.promote_args("maximum", x, y))


def minimum(x, y, /):
    """Elementwise smaller value; NaN wins (SPEC NP-23)."""
    return lax.min(*util.promote_args("minimum", x, y))


def arctan2(x1, x2, /):
    """Quadrant-aware ``arctan(x1 / x2)`` in an inexact dtype."""
    return lax.atan2(*util.promote_args_inexact("arctan2", x1, x2))


def atan2(x1, x2, /):
    """Alias of ``arctan2``."""
    return arctan2(*util.promote_args("atan2", x1, x2))


def nextafter(x, y, /):
    """The next representable value after ``x`` towards ``y``."""
    return lax.nextafter(*util.promote_args_inexact("nextafter", x, y))


def float_power(x, y, /):
    """``x ** y`` computed in an inexact dtype (``pow``; SPEC NP-18)."""
    return lax.pow(*util.promote_args_inexact("float_power", x, y))


# Integer division and remainder (SPEC NP-16) ------------------------------

def _float_divmod(x1, x2):
    """Python's float divmod: the quotient floored, the remainder taking the
    sign of the divisor, composed as JAX composes it."""
    mod = lax.rem(x1, x2)
    x1_corrected = _where(equal(x2, 0), x1, lax.sub(x1, mod))
    div = lax.div(x1_corrected, x2)
    fix = lax.bitwise_and(not_equal(mod, 0), not_equal(lax.sign(x2), lax.sign(mod)))
    mod = lax.select(fix, add(mod, x2), mod)
    div = lax.select(fix, subtract(div, 1.0), div)
    return lax.round(div), mod


@jit
def floor_divide(x1, x2, /):
    """``x1 // x2`` rounded toward negative infinity (SPEC NP-16).

    Signed integers correct ``lax.div``'s truncation; unsigned integers use
    it directly; floats use Python's float divmod.  Integer division by zero
    gives XLA's answer (no error).  Complex input is a TypeError.
    """
    x1, x2 = util.promote_args_numeric("floor_divide", x1, x2)
    dt = _dtype(x1)
    if dtypes.issubdtype(dt, np.unsignedinteger):
        return lax.div(x1, x2)
    if dtypes.issubdtype(dt, np.integer):
        quotient = lax.div(x1, x2)
        select = logical_and(not_equal(lax.sign(x1), lax.sign(x2)),
                             not_equal(lax.rem(x1, x2), 0))
        return _where(select, subtract(quotient, 1), quotient)
    if dtypes.issubdtype(dt, np.complexfloating):
        raise TypeError("floor_divide does not support complex-valued inputs")
    return _float_divmod(x1, x2)[0]


@jit
def remainder(x1, x2, /):
    """``x1 % x2`` with the sign of the divisor (Python/NumPy semantics).

    An integer divisor of zero is replaced by one before ``rem``, so
    ``x % 0`` is 0 for integers (SPEC NP-16).
    """
    x1, x2 = util.promote_args_numeric("remainder", x1, x2)
    zero = _constant_like(x1, 0)
    if _is(x2, np.integer):
        x2 = _where(equal(x2, 0), util._ones(x2), x2)
    trunc_mod = lax.rem(x1, x2)
    trunc_mod_not_zero = lax.ne(trunc_mod, zero)
    do_plus = lax.bitwise_and(lax.ne(lax.lt(trunc_mod, zero), lax.lt(x2, zero)),
                              trunc_mod_not_zero)
    return lax.select(do_plus, lax.add(trunc_mod, x2), trunc_mod)


def mod(x1, x2, /):
    """Alias of ``remainder``."""
    return remainder(x1, x2)


@jit
def fmod(x1, x2, /):
    """C-style remainder with the sign of the dividend (``lax.rem``); an
    integer divisor of zero is replaced by one (SPEC NP-16)."""
    x1, x2 = util.ensure_arraylike("fmod", x1, x2)
    if dtypes.issubdtype(dtypes.result_type(x1, x2), np.integer):
        x2 = _where(equal(x2, 0), util._ones(x2), x2)
    return lax.rem(*util.promote_args_numeric("fmod", x1, x2))


@jit
def divmod(x1, x2, /):  # noqa: A001 - the jnp name
    """``(floor_divide(x1, x2), remainder(x1, x2))`` (SPEC NP-16)."""
    x1, x2 = util.promote_args_numeric("divmod", x1, x2)
    if _is(x1, np.integer):
        return floor_divide(x1, x2), remainder(x1, x2)
    return _float_divmod(x1, x2)


# Powers (SPEC NP-18) -------------------------------------------------------

def power(x1, x2, /):
    """``x1 ** x2`` with JAX's special cases (SPEC NP-18).

    * A concrete integer exponent (Python int, NumPy int, concrete integer
      array) binds ``integer_pow[y=n]`` on the base (booleans become the
      default int); integers to a negative power are a TypeError.
    * Integer bases with integer exponents use binary exponentiation.
    * An inexact base with an integer exponent binds ``pow`` unpromoted.
    * Otherwise both are promoted and ``pow`` is bound.
    """
    util.check_arraylike("power", x1, x2)
    exponent = _concrete_int(x2)
    if exponent is not None:
        x1, = util.promote_dtypes_numeric(x1)
        return lax.integer_pow(x1, exponent)
    return _power(x1, x2)


def pow(x1, x2, /):  # noqa: A001 - the jnp name
    """Alias of ``power``."""
    return power(x1, x2)


def _concrete_int(x):
    """``x`` as a Python int if it is a concrete integer scalar, else None."""
    if isinstance(x, core.Tracer):
        return None
    try:
        return operator.index(x)
    except TypeError:
        return None


def _power(x1, x2):
    x1, x2 = util.promote_shapes("power", x1, x2)   # shapes only, not dtypes
    x1_, x2_ = util.promote_args_numeric("power", x1, x2)
    if _is(x1_, np.integer) or _is(x1_, np.bool_):
        return _pow_int_int(x1_, x2_)
    if _is(x1, np.inexact) and _is(x2, np.integer):
        return lax.pow(x1, x2)
    return lax.pow(x1_, x2_)


def _pow_int_int(x1, x2):
    """Integer power by squaring, unrolled over the 6 bits that can matter."""
    zero = _constant_like(x2, 0)
    one = _constant_like(x2, 1)
    acc = _where(lax.bitwise_and(lax.eq(x1, zero), lax.ne(x2, zero)), zero, one)
    for _ in range(6):
        acc = _where(lax.bitwise_and(x2, one), lax.mul(acc, x1), acc)
        x1 = lax.mul(x1, x1)
        x2 = lax.shift_right_logical(x2, one)
    return acc


# Logarithms of sums ----------------------------------------------------------

def _logaddexp(x1, x2, exp_fn, scale, period):
    """``amax + log1p(exp(-|x1 - x2|))`` (times ``scale`` for base 2).

    Complex inputs use ``amax + log1p(exp(x1 + x2 - 2 amax))`` with the
    imaginary part wrapped into ``[-period, period)``.
    """
    amax = lax.max(x1, x2)
    if _is(x1, np.complexfloating):
        delta = lax.sub(lax.add(x1, x2), lax.mul(amax, _const(amax, 2)))
        term = _scaled(lax.log1p(exp_fn(delta)), scale)
        out = lax.add(amax, term)
        return lax.complex(lax.real(out), _wrap_between(lax.imag(out), period))
    delta = lax.sub(x1, x2)
    is_nan = lax.ne(delta, delta)
    total = lax.add(x1, x2)
    term = _scaled(lax.log1p(exp_fn(lax.neg(lax.abs(delta)))), scale)
    return lax.select(is_nan, total, lax.add(amax, term))


def _scaled(term, scale):
    return term if scale is None else lax.mul(_const(term, scale), term)


def _wrap_between(x, a):
    """``x`` wrapped into ``[-a, a)``."""
    two_a, zero = _const(x, 2 * a), _const(x, 0)
    rem = lax.rem(lax.add(x, _const(x, a)), two_a)
    rem = lax.select(lax.lt(rem, zero), lax.add(rem, two_a), rem)
    return lax.sub(rem, _const(x, a))


def _replace_inf(x):
    """``x`` with ``+inf`` (in the real part) replaced by 0."""
    re_x = lax.real(x) if _is(x, np.complexfloating) else x
    return lax.select(lax.eq(re_x, _const(re_x, np.inf)), util._zeros(x), x)


def _custom_logaddexp(name, exp_fn, scale, period):
    """``name(x1, x2)`` as a ``custom_jvp`` function (SPEC AD-74).

    The derivative with respect to ``x_i`` is ``exp_fn(x_i - out)``, the
    weight of ``x_i`` in the sum, computed with ``+inf`` read as 0 on both
    sides: equal arguments get 1/2 each, a ``-inf`` argument gets 0, and an
    infinite result does not turn the derivative into NaN.
    """
    def fn(x1, x2):
        return _logaddexp(x1, x2, exp_fn, scale, period)

    def jvp(primals, tangents):
        (x1, x2), (t1, t2) = primals, tangents
        out = wrapped(x1, x2)

        def weight(x):
            return exp_fn(lax.sub(_replace_inf(x), _replace_inf(out)))
        return out, lax.add(lax.mul(t1, weight(x1)), lax.mul(t2, weight(x2)))

    wrapped = custom_jvp(_named(fn, name, f"``{name}`` of promoted arguments."))
    wrapped.defjvp(_named(jvp, f"_{name}_jvp", f"The JVP rule of ``{name}``."))
    return wrapped


_lax_logaddexp = _custom_logaddexp("logaddexp", lax.exp, None, np.pi)
_lax_logaddexp2 = _custom_logaddexp("logaddexp2", lax.exp2, 1 / np.log(2),
                                    np.pi / np.log(2))


def logaddexp(x1, x2, /):
    """``log(exp(x1) + exp(x2))`` without overflow; where ``x1 - x2`` is NaN
    (equal infinities) the result is ``x1 + x2`` (SPEC NP-25).  Differentiated
    by its custom rule (SPEC AD-74)."""
    return _lax_logaddexp(*util.promote_args_inexact("logaddexp", x1, x2))


def logaddexp2(x1, x2, /):
    """``log2(2**x1 + 2**x2)`` without overflow (SPEC NP-25, AD-74)."""
    return _lax_logaddexp2(*util.promote_args_inexact("logaddexp2", x1, x2))


# ---------------------------------------------------------------------------
# Rounding (SPEC NP-17)
# ---------------------------------------------------------------------------

def floor(x, /):
    """Round down; integers and booleans are returned unchanged."""
    x = util.ensure_arraylike("floor", x)
    if _is(x, np.integer) or _dtype(x) == dtypes.bool_:
        return x
    return lax.floor(*util.promote_args_inexact("floor", x))


def ceil(x, /):
    """Round up; integers and booleans are returned unchanged."""
    x = util.ensure_arraylike("ceil", x)
    if _is(x, np.integer) or _dtype(x) == dtypes.bool_:
        return x
    return lax.ceil(*util.promote_args_inexact("ceil", x))


@jit
def trunc(x):
    """Round toward zero (``ceil`` below zero, ``floor`` above)."""
    x = util.ensure_arraylike("trunc", x)
    if _is(x, np.integer) or _dtype(x) == dtypes.bool_:
        return x
    return _where(lax.lt(x, _const(x, 0)), ceil(x), floor(x))


@jit
def rint(x, /):
    """Round half to even; integers and booleans become the default float
    dtype (not weak), complex rounds both parts."""
    x = util.ensure_arraylike("rint", x)
    dt = _dtype(x)
    if dt == dtypes.bool_ or dtypes.issubdtype(dt, np.integer):
        return lax.convert_element_type(x, dtypes.default_float_dtype())
    if dtypes.issubdtype(dt, np.complexfloating):
        return lax.complex(rint(lax.real(x)), rint(lax.imag(x)))
    return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)


def _round(a, decimals=0, out=None):
    """Round half to even to ``decimals`` places (SPEC NP-17).

    Integers are returned unchanged (negative ``decimals`` on integers is
    not implemented); booleans are a ValueError.  With ``decimals`` the value
    is scaled by ``10**decimals``, rounded and scaled back (float16 computes
    in float32); complex rounds both parts.
    """
    a = util.ensure_arraylike("round", a)
    decimals = core.concrete_or_error(operator.index, decimals,
                                      "'decimals' argument of jnp.round")
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.round is not supported.")
    dt = _dtype(a)
    if dtypes.issubdtype(dt, np.integer):
        if decimals < 0:
            raise NotImplementedError("integer np.round not implemented for decimals < 0")
        return a
    if decimals > np.log10(dtypes.finfo(dt).max):
        return a
    if dtypes.issubdtype(dt, np.complexfloating):
        return lax.complex(_round_float(lax.real(a), decimals),
                           _round_float(lax.imag(a), decimals))
    return _round_float(a, decimals)


def _round_float(x, decimals):
    if decimals == 0:
        return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)
    dt = _dtype(x)
    if dt == np.float16:
        x = lax.convert_element_type(x, np.float32)
    factor = _const(x, 10 ** decimals)
    out = lax.div(lax.round(lax.mul(x, factor), lax.RoundingMethod.TO_NEAREST_EVEN),
                  factor)
    return lax.convert_element_type(out, dt) if dt == np.float16 else out


round = jit(_named(_round, "round", _round.__doc__),  # noqa: A001
            static_argnames=("decimals",))


def _around(a, decimals=0, out=None):
    return round(a, decimals, out)


around = jit(_named(_around, "around", "Alias of ``round``."),
             static_argnames=("decimals",))


# ---------------------------------------------------------------------------
# Comparisons and logic (SPEC NP-19)
# ---------------------------------------------------------------------------

def _complex_comparison(lax_op, x, y):
    """Complex numbers compare lexicographically: real parts, then imaginary."""
    if _is(x, np.complexfloating):
        return lax.select(lax.eq(lax.real(x), lax.real(y)),
                          lax_op(lax.imag(x), lax.imag(y)),
                          lax_op(lax.real(x), lax.real(y)))
    return lax_op(x, y)


def equal(x, y, /):
    """``x == y`` elementwise (a boolean array)."""
    return lax.eq(*util.promote_args("equal", x, y))


def not_equal(x, y, /):
    """``x != y`` elementwise (a boolean array)."""
    return lax.ne(*util.promote_args("not_equal", x, y))


def less(x, y, /):
    """``x < y``; complex numbers compare lexicographically."""
    return _complex_comparison(lax.lt, *util.promote_args("less", x, y))


def less_equal(x, y, /):
    """``x <= y``; complex numbers compare lexicographically."""
    return _complex_comparison(lax.le, *util.promote_args("less_equal", x, y))


def greater(x, y, /):
    """``x > y``; complex numbers compare lexicographically."""
    return _complex_comparison(lax.gt, *util.promote_args("greater", x, y))


def greater_equal(x, y, /):
    """``x >= y``; complex numbers compare lexicographically."""
    return _complex_comparison(lax.ge, *util.promote_args("greater_equal", x, y))


def logical_and(x, y, /):
    """Truth of both; non-booleans count as ``x != 0``."""
    x, y = util.promote_args("logical_and", x, y)
    return lax.bitwise_and(_to_bool(x), _to_bool(y))


def logical_or(x, y, /):
    """Truth of either; non-booleans count as ``x != 0``."""
    x, y = util.promote_args("logical_or", x, y)
    return lax.bitwise_or(_to_bool(x), _to_bool(y))


def logical_xor(x, y, /):
    """Truth of exactly one; non-booleans count as ``x != 0``."""
    x, y = util.promote_args("logical_xor", x, y)
    return lax.bitwise_xor(_to_bool(x), _to_bool(y))


def logical_not(x, /):
    """Negated truth; non-booleans count as ``x != 0``."""
    x, = util.promote_args("logical_not", x)
    return lax.bitwise_not(_to_bool(x))


# Extrema and clipping (SPEC NP-23) ------------------------------------------

@jit
def fmax(x1, x2):
    """Elementwise maximum ignoring NaN: ``x1 if x1 > x2 or x2 is NaN else x2``."""
    mask = bitwise_or(greater(x1, x2), isnan(x2))
    return _where(mask, x1, x2)


@jit
def fmin(x1, x2):
    """Elementwise minimum ignoring NaN: ``x1 if x1 < x2 or x2 is NaN else x2``."""
    mask = bitwise_or(less(x1, x2), isnan(x2))
    return _where(mask, x1, x2)


def _clip(arr=None, /, min=None, max=None):  # noqa: A002 - NumPy's names
    """``minimum(max, maximum(min, arr))``, skipping a bound that is None.

    ``min``/``max`` broadcast against ``arr`` and take part in promotion;
    complex values are a ValueError (SPEC NP-23).
    """
    if arr is None:
        raise ValueError("No input was provided to the clip function.")
    util.check_arraylike("clip", arr)
    if builtins.any(iscomplexobj(t) for t in (arr, min, max)):
        raise ValueError(
            "Clip received a complex value either through the input or the "
            "min/max keywords. Complex values have no ordering and cannot be "
            "clipped. Please convert to a real value or array by taking the "
            "real or imaginary components via jax.numpy.real/imag respectively.")
    if min is not None:
        arr = maximum(min, arr)
    if max is not None:
        arr = minimum(max, arr)
    return util.asarray(arr)


clip = jit(_named(_clip, "clip", _clip.__doc__))


# Bitwise operations (SPEC NP-20) --------------------------------------------

def bitwise_and(x, y, /):
    """``x & y`` of integers or booleans."""
    return lax.bitwise_and(*util.promote_args("bitwise_and", x, y))


def bitwise_or(x, y, /):
    """``x | y`` of integers or booleans."""
    return lax.bitwise_or(*util.promote_args("bitwise_or", x, y))


def bitwise_xor(x, y, /):
    """``x ^ y`` of integers or booleans."""
    return lax.bitwise_xor(*util.promote_args("bitwise_xor", x, y))


def invert(x, /):
    """``~x``: bitwise not of integers, logical not of booleans."""
    return lax.bitwise_not(*util.promote_args("invert", x))


def bitwise_not(x, /):
    """Alias of ``invert``."""
    return lax.bitwise_not(*util.promote_args("bitwise_not", x))


def bitwise_invert(x, /):
    """Alias of ``invert``."""
    return lax.bitwise_not(*util.promote_args("bitwise_invert", x))


def left_shift(x, y, /):
    """``x << y``; booleans shift as the default int; shifting by the bit
    width or more gives 0."""
    return lax.shift_left(*util.promote_args_numeric("left_shift", x, y))


def bitwise_left_shift(x, y, /):
    """Alias of ``left_shift``."""
    return lax.shift_left(*util.promote_args_numeric("bitwise_left_shift", x, y))


def right_shift(x1, x2, /):
    """``x1 >> x2``: arithmetic for signed integers, logical for unsigned."""
    x1, x2 = util.promote_args_numeric("right_shift", x1, x2)
    if _is(x1, np.unsignedinteger):
        return lax.shift_right_logical(x1, x2)
    return lax.shift_right_arithmetic(x1, x2)


def bitwise_right_shift(x1, x2, /):
    """Alias of ``right_shift``."""
    return right_shift(x1, x2)


@jit
def bitwise_count(x, /):
    """Number of set bits of ``|x|``, as uint8."""
    x, = util.promote_args_numeric("bitwise_count", x)
    return lax.convert_element_type(lax.population_count(abs(x)), np.uint8)


# ---------------------------------------------------------------------------
# Floating-point classification (SPEC NP-21)
# ---------------------------------------------------------------------------

def isnan(x, /):
    """``x != x`` (False for integers and booleans)."""
    x = util.ensure_arraylike("isnan", x)
    return lax.ne(x, x)


def isfinite(x, /):
    """Not infinite and not NaN; True for integers and booleans."""
    x = util.ensure_arraylike("isfinite", x)
    if _is(x, np.floating):
        return lax.is_finite(x)
    if _is(x, np.complexfloating):
        return lax.bitwise_and(lax.is_finite(real(x)), lax.is_finite(imag(x)))
    return _full_like(x, True, dtype=np.bool_)


@jit
def isinf(x, /):
    """``|x| == inf`` (either part for complex); False for integers."""
    x = util.ensure_arraylike("isinf", x)
    if _is(x, np.floating):
        return lax.eq(lax.abs(x), _constant_like(x, np.inf))
    if _is(x, np.complexfloating):
        re, im = lax.real(x), lax.imag(x)
        return lax.bitwise_or(lax.eq(lax.abs(re), _constant_like(re, np.inf)),
                              lax.eq(lax.abs(im), _constant_like(im, np.inf)))
    return _full_like(x, False, dtype=np.bool_)


def _isposneginf(infinity, x, out):
    if out is not None:
        raise NotImplementedError("The 'out' argument to isneginf/isposinf is not supported.")
    if _is(x, np.floating):
        return lax.eq(x, _constant_like(x, infinity))
    if _is(x, np.complexfloating):
        raise ValueError("isposinf/isneginf are not well defined for complex types")
    return _full_like(x, False, dtype=np.bool_)


def isposinf(x, /, out=None):
    """``x == +inf``; False for integers; complex input is a ValueError."""
    return _isposneginf(np.inf, util.ensure_arraylike("isposinf", x), out)


def isneginf(x, /, out=None):
    """``x == -inf``; False for integers; complex input is a ValueError."""
    return _isposneginf(-np.inf, util.ensure_arraylike("isneginf", x), out)


_INT_OF_BITS = {16: np.int16, 32: np.int32, 64: np.int64}


@jit
def signbit(x, /):
    """The sign bit: ``x < 0`` for integers, False for booleans, the top bit
    of the bit pattern for floats (so ``signbit(-0.0)`` is True)."""
    x, = util.promote_args("signbit", x)
    dt = _dtype(x)
    if dtypes.issubdtype(dt, np.integer):
        return lax.lt(x, _constant_like(x, 0))
    if dt == dtypes.bool_:
        return _full_like(x, False, dtype=np.bool_)
    if not dtypes.issubdtype(dt, np.floating):
        raise ValueError(f"jax.numpy.signbit is not well defined for {dt}")
    info = dtypes.finfo(dt)
    if info.bits not in _INT_OF_BITS:
        raise NotImplementedError(
            "jax.numpy.signbit only supports 16, 32, and 64-bit types.")
    bits = lax.bitcast_convert_type(x, _INT_OF_BITS[info.bits])
    return lax.convert_element_type(right_shift(bits, info.nexp + info.nmant), np.bool_)


# ---------------------------------------------------------------------------
# Floating-point decomposition and friends (SPEC NP-25)
# ---------------------------------------------------------------------------

@jit
def copysign(x1, x2, /):
    """``|x1|`` with the sign bit of ``x2``; complex input is a TypeError."""
    x1, x2 = util.promote_args_inexact("copysign", x1, x2)
    if _is(x1, np.complexfloating):
        raise TypeError("copysign does not support complex-valued inputs")
    return _where(signbit(x2), lax.neg(lax.abs(x1)), lax.abs(x1))


def spacing(x, /):
    """Distance from ``x`` to the next representable value away from zero."""
    arr, = util.promote_args_inexact("spacing", x)
    dt = _dtype(arr)
    if dtypes.issubdtype(dt, np.complexfloating):
        raise ValueError("jnp.spacing is not defined for complex inputs.")
    inf = _const(arr, np.inf)
    if dt == np.float16:
        return subtract(lax.nextafter(arr, inf), arr)
    result = subtract(lax.nextafter(arr, copysign(inf, arr)), arr)
    tiny = dtypes.finfo(dt).smallest_subnormal
    return _where(equal(result, 0), copysign(tiny, arr), result)


def _normalize_float(x):
    """Scale subnormals up by ``2**nmant``; return (bits, exponent offset)."""
    info = dtypes.finfo(_dtype(x))
    int_type = _INT_OF_BITS[info.bits]
    cond = less(lax.abs(x), info.tiny)
    x1 = _where(cond, lax.mul(x, _const(x, 1 << info.nmant)), x)
    x2 = _where(cond, int_type(-info.nmant), int_type(0))
    return lax.bitcast_convert_type(x1, int_type), x2


@custom_jvp
def _frexp(x):
    dt = _dtype(x)
    info = dtypes.finfo(dt)
    mask = (1 << info.nexp) - 1
    bias = 1 - info.minexp
    x1, x2 = _normalize_float(x)
    x2 = add(x2, add(subtract(bitwise_and(right_shift(x1, info.nmant), mask), bias), 1))
    x1 = bitwise_and(x1, ~(mask << info.nmant))
    x1 = bitwise_or(x1, (bias - 1) << info.nmant)
    x1 = lax.bitcast_convert_type(x1, dt)
    cond = bitwise_or(bitwise_or(isinf(x), isnan(x)), equal(x, 0))
    x2 = _where(cond, util._zeros(x2), x2)
    return _where(cond, x, x1), lax.convert_element_type(x2, np.int32)


@_frexp.defjvp
def _frexp_jvp(primals, tangents):
    """The mantissa moves with ``x`` scaled by ``2**-e``; the integer
    exponent has a ``float0`` tangent (SPEC AD-78)."""
    (x,), (t,) = primals, tangents
    m, e = frexp(x)
    m_dot = multiply(t, exp2(negative(lax.convert_element_type(e, _dtype(t)))))
    return (m, e), (m_dot, ad.Zero.from_primal_value(e))


@jit
def frexp(x, /):
    """Mantissa in [0.5, 1) and int32 exponent with ``x == m * 2**e``; zero,
    infinities and NaN give ``(x, 0)``.  Complex input is a TypeError."""
    x = util.ensure_arraylike("frexp", x)
    x, = util.promote_dtypes_inexact(x)
    if _is(x, np.complexfloating):
        raise TypeError("frexp does not support complex-valued inputs")
    return _frexp(x)


@jit
def ldexp(x1, x2, /):
    """``x1 * 2**x2`` for integer ``x2``; an inexact ``x2`` or complex ``x1``
    is a ValueError."""
    x1, x2 = util.ensure_arraylike("ldexp", x1, x2)
    d1, d2 = _dtype(x1), _dtype(x2)
    if dtypes.issubdtype(d1, np.complexfloating) or dtypes.issubdtype(d2, np.inexact):
        raise ValueError(f"ldexp not supported for input types {(d1, d2)}")
    x1, = util.promote_args_inexact("ldexp", x1)
    x2 = lax.convert_element_type(x2, _dtype(x1))
    m, e = frexp(x1)
    e = add(lax.convert_element_type(e, _dtype(x2)), x2)
    m = _where(greater(e, 0), multiply(m, 2), m)
    e = _where(greater(e, 0), subtract(e, 1), e)
    x = multiply(m, power(2, e))
    return _where(bitwise_or(isinf(x1), equal(x1, 0)), x1, x)


def _modf(x, /, out=None):
    """Fractional and integral parts, both with the sign of ``x``."""
    x = util.ensure_arraylike("modf", x)
    x, = util.promote_dtypes_inexact(x)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.modf is not supported.")
    whole = _where(lax.ge(x, _const(x, 0)), floor(x), ceil(x))
    return subtract(x, whole), whole


modf = jit(_named(_modf, "modf", _modf.__doc__))


@jit
def heaviside(x1, x2, /):
    """0 where ``x1 < 0``, 1 where ``x1 > 0``, ``x2`` where ``x1 == 0`` (NaN
    stays NaN)."""
    x1, x2 = util.ensure_arraylike("heaviside", x1, x2)
    x1, x2 = util.promote_dtypes_inexact(x1, x2)
    zero = _const(x1, 0)
    return _where(lax.lt(x1, zero), zero,
                  _where(lax.gt(x1, zero), _const(x1, 1),
                         _where(util._isnan(x1), x1, x2)))


@jit
def hypot(x1, x2, /):
    """``sqrt(x1**2 + x2**2)`` without intermediate overflow; infinite if
    either is infinite.  Complex input is a ValueError."""
    x1, x2 = util.promote_args_inexact("hypot", x1, x2)
    if _is(x1, np.complexfloating):
        raise ValueError(
            "jnp.hypot is not well defined for complex-valued inputs. Please "
            "convert to real values first, such as by using abs(x)")
    x1, x2 = lax.abs(x1), lax.abs(x2)
    idx_inf = lax.bitwise_or(isposinf(x1), isposinf(x2))
    x1, x2 = maximum(x1, x2), minimum(x1, x2)
    is_zero = equal(x1, 0)
    safe = _where(equal(x1, 0), util._ones(x1), x1)
    ratio = lax.square(lax.div(x2, safe))
    x = _where(is_zero, x1, multiply(x1, lax.sqrt(add(1, ratio))))
    return _where(idx_inf, _const(x, np.inf), x)


@jit
def sinc(x, /):
    """``sin(pi x) / (pi x)``, with the limit 1 at zero.

    At zero the value comes from ``_sinc_maclaurin``, whose custom rule
    gives the Maclaurin coefficients as derivatives of every order
    (SPEC AD-73): 0, ``-pi**2/3``, 0, ``pi**4/5`` ...
    """
    x = util.ensure_arraylike("sinc", x)
    x, = util.promote_dtypes_inexact(x)
    eq_zero = lax.eq(x, _const(x, 0))
    pi_x = lax.mul(_const(x, np.pi), x)
    safe_pi_x = _where(eq_zero, _const(x, 1), pi_x)
    return _where(eq_zero, _sinc_maclaurin(0, pi_x),
                  lax.div(lax.sin(safe_pi_x), safe_pi_x))


@partial(custom_jvp, nondiff_argnums=(0,))
def _sinc_maclaurin(k, x):
    """The ``k``-th derivative of ``sin(x)/x`` at 0, in ``x``'s shape.

    Written ``x * 0 + c`` so that it depends on ``x`` and is differentiated
    by the rule below, which moves on to the next coefficient.
    """
    zero = multiply(x, 0)
    if k % 2:
        return zero
    return add(zero, _const(x, (-1) ** (k // 2) / (k + 1)))


@_sinc_maclaurin.defjvp
def _sinc_maclaurin_jvp(k, primals, tangents):
    (x,), (t,) = primals, tangents
    return _sinc_maclaurin(k, x), multiply(_sinc_maclaurin(k + 1, x), t)


def _nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN to ``nan``, +inf to ``posinf`` (default: largest finite value),
    -inf to ``neginf`` (default: most negative finite value)."""
    del copy
    x = util.ensure_arraylike("nan_to_num", x)
    dt = _dtype(x)
    if not dtypes.issubdtype(dt, np.inexact):
        return x
    if dtypes.issubdtype(dt, np.complexfloating):
        return lax.complex(
            nan_to_num(lax.real(x), nan=nan, posinf=posinf, neginf=neginf),
            nan_to_num(lax.imag(x), nan=nan, posinf=posinf, neginf=neginf))
    info = dtypes.finfo(dt)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    out = _where(isnan(x), _as_dtype(nan, dt), x)
    out = _where(isposinf(out), _as_dtype(posinf, dt), out)
    return _where(isneginf(out), _as_dtype(neginf, dt), out)


def _as_dtype(value, dt):
    """``jnp.asarray(value, dtype=dt)`` for a scalar or array value."""
    if isinstance(value, _ARRAY_TYPES):
        return lax.convert_element_type(value, dt)
    return np.asarray(value, dtype=dt)


nan_to_num = jit(_named(_nan_to_num, "nan_to_num", _nan_to_num.__doc__))


# ---------------------------------------------------------------------------
# Complex numbers (SPEC NP-22)
# ---------------------------------------------------------------------------

def _is_complex_value(x):
    return dtypes.issubdtype(util._aval(x).dtype, np.complexfloating)


def real(val, /):
    """The real part; a real argument is returned unchanged."""
    val = util.ensure_arraylike("real", val)
    return lax.real(val) if _is_complex_value(val) else val


def imag(val, /):
    """The imaginary part; zeros of the argument's dtype for real input."""
    val = util.ensure_arraylike("imag", val)
    return lax.imag(val) if _is_complex_value(val) else _full_like(val, 0)


def conjugate(x, /):
    """The complex conjugate; a real argument is returned unchanged."""
    x = util.ensure_arraylike("conjugate", x)
    return lax.conj(x) if _is_complex_value(x) else x


def conj(x, /):
    """Alias of ``conjugate``."""
    return conjugate(x)


def _angle(z, deg=False):
    """``atan2(imag, real)`` in radians (degrees with ``deg=True``); integer
    and real scalar inputs compute in the default float dtype."""
    z = util.ensure_arraylike("angle", z)
    re, im = real(z), imag(z)
    dt = _dtype(re)
    if not dtypes.issubdtype(dt, np.inexact) or (
            _is(z, np.floating) and util._aval(z).ndim == 0):
        dt = dtypes.default_float_dtype()
        re = lax.convert_element_type(re, dt)
        im = lax.convert_element_type(im, dt)
    result = lax.atan2(im, re)
    return degrees(result) if deg else result


angle = jit(_named(_angle, "angle", _angle.__doc__), static_argnames=("deg",))


@jit
def iscomplex(x):
    """Elementwise: imaginary part not zero."""
    i = imag(x)
    return lax.ne(i, _const(i, 0))


@jit
def isreal(x):
    """Elementwise: imaginary part zero."""
    i = imag(x)
    return lax.eq(i, _const(i, 0))


def iscomplexobj(x):
    """Whether ``x`` has a complex dtype (a Python bool; no array needed)."""
    if isinstance(x, (complex, np.complexfloating)):
        return True
    if x is None or isinstance(x, (bool, int, float, str, np.generic)):
        return False
    dt = getattr(x, "dtype", None)
    if dt is None:
        from refjax._src.numpy.creation import asarray
        dt = asarray(x).dtype
    return dtypes.issubdtype(dt, np.complexfloating)


def isrealobj(x):
    """``not iscomplexobj(x)``."""
    return not iscomplexobj(x)


# ---------------------------------------------------------------------------
# Integers (SPEC NP-26)
# ---------------------------------------------------------------------------

def _gcd_step(x1, x2):
    """One Euclid step on both arrays, keeping ``x1 >= x2``."""
    nonzero = not_equal(x2, 0)
    x1, x2 = (_where(nonzero, x2, x1),
              _where(nonzero, lax.rem(x1, x2), _const(x2, 0)))
    swap = less(x1, x2)
    return _where(swap, x2, x1), _where(swap, x1, x2)


@jit
def gcd(x1, x2):
    """Greatest common divisor of integers (non-negative); anything else is a
    ValueError."""
    x1, x2 = util.ensure_arraylike("gcd", x1, x2)
    x1, x2 = util.promote_dtypes(x1, x2)
    if not _is(x1, np.integer):
        raise ValueError("Arguments to jax.numpy.gcd must be integers.")
    x1, x2 = util._broadcast_arrays(x1, x2)
    state = (abs(x1), abs(x2))
    from refjax._src.numpy import reductions
    return while_loop(lambda s: reductions.any(not_equal(s[1], 0)),
                      lambda s: _gcd_step(*s), state)[0]


@jit
def lcm(x1, x2):
    """Least common multiple of integers (0 if either is 0)."""
    x1, x2 = util.ensure_arraylike("lcm", x1, x2)
    x1, x2 = util.promote_dtypes(x1, x2)
    x1, x2 = abs(x1), abs(x2)
    if not _is(x1, np.integer):
        raise ValueError("Arguments to jax.numpy.lcm must be integers.")
    d = gcd(x1, x2)
    return _where(equal(d, 0), _const(d, 0),
                  multiply(x1, floor_divide(x2, d)))



# ---------------------------------------------------------------------------
# ufunc objects (SPEC NP-3): jnp.add.reduce, jnp.multiply.outer, ...
# The class is in ufunc_api; these are the fast paths the built-ins bring.
# ---------------------------------------------------------------------------

def _reduction(name):
    """The jnp reduction ``name``, looked up when first used (no import cycle)."""
    def call(*args, **kwargs):
        from refjax._src.numpy import reductions
        return getattr(reductions, name)(*args, **kwargs)
    return call


def _at_method(method):
    def at(a, indices, b):
        a = util.asarray(a)
        if _dtype(a) == dtypes.bool_ and method in ("add", "multiply"):
            # Booleans add (or multiply) as 0/1 integers, then read back
            # as truth values, as NumPy's bool add/multiply do.
            one_zero = lambda x: lax.convert_element_type(x, np.int32)  # noqa: E731
            b = one_zero(lax.convert_element_type(b, dtypes.bool_))
            out = getattr(one_zero(a).at[indices], method)(b)
            return lax.convert_element_type(out, dtypes.bool_)
        return getattr(a.at[indices], method)(b)
    return at


def _sum_reduce(a, axis=0, dtype=None, keepdims=False, initial=None, where=None):
    return _reduction("sum")(a, axis=axis, dtype=dtype, keepdims=keepdims,
                             initial=initial, where=where)


def _prod_reduce(a, axis=0, dtype=None, keepdims=False, initial=None, where=None):
    return _reduction("prod")(a, axis=axis, dtype=dtype, keepdims=keepdims,
                              initial=initial, where=where)


def _ufunc(fn, nin, identity=None, reduce=None, accumulate=None, at=None):
    """A built-in ufunc: ``fn`` is its own call (no per-element loop)."""
    return ufunc(fn, nin, 1, identity=identity, call=fn, reduce=reduce,
                 accumulate=accumulate, at=at)


negative = _ufunc(negative, 1)
add = _ufunc(add, 2, 0, _sum_reduce, _reduction("cumsum"), _at_method("add"))
multiply = _ufunc(multiply, 2, 1, _prod_reduce, _reduction("cumprod"),
                  _at_method("multiply"))
subtract = _ufunc(subtract, 2, None, at=_at_method("subtract"))
maximum = _ufunc(maximum, 2, None, _reduction("_reduce_max"))
minimum = _ufunc(minimum, 2, None, _reduction("_reduce_min"))
bitwise_and = _ufunc(bitwise_and, 2, -1, _reduction("_reduce_bitwise_and"))
bitwise_or = _ufunc(bitwise_or, 2, 0, _reduction("_reduce_bitwise_or"))
bitwise_xor = _ufunc(bitwise_xor, 2, 0, _reduction("_reduce_bitwise_xor"))
logical_and = _ufunc(logical_and, 2, True, _reduction("_reduce_logical_and"))
logical_or = _ufunc(logical_or, 2, False, _reduction("_reduce_logical_or"))
logical_xor = _ufunc(logical_xor, 2, False, _reduction("_reduce_logical_xor"))
logaddexp = _ufunc(logaddexp, 2, -np.inf, _reduction("_logsumexp"))
logaddexp2 = _ufunc(logaddexp2, 2, -np.inf, _reduction("_logsumexp2"))

