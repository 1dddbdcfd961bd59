"""The primitives of ``jax.lax`` and their public functions (SPEC LAX-1..).

Each primitive is defined in one block: its abstract evaluation (shape,
dtype, weak type, with JAX's error messages), its implementation on backend
buffers, how it prints, and the public ``lax`` function that binds it.
Transformation rules (JVP, transpose, batching) are attached to the same
``Primitive`` objects by the modules that define those transformations.

Implementations receive backend buffers and return buffers of the dtype the
abstract evaluation promised; ``core.apply_primitive`` wraps them.
"""
import builtins
import enum
import math
import operator

import numpy as np

from refjax._src import backend as _backend
from refjax._src import core
from refjax._src import dtypes
from refjax._src.core import Primitive, ShapedArray, Tracer


def _xp():
    return _backend.get().xp


def _special(name):
    return _backend.get().special(name)


# ---------------------------------------------------------------------------
# Dtype classes and checks
# ---------------------------------------------------------------------------

_float = (np.floating,)
_complex = (np.complexfloating,)
_int = (np.integer,)
_bool = (np.bool_,)
_signedint = (np.signedinteger,)
_num = (np.integer, np.floating, np.complexfloating)
_any = (np.integer, np.floating, np.complexfloating, np.bool_)
_ints_bool = (np.integer, np.bool_)


_ACCEPTS = {}


def _accepts(dtype, classes):
    """Whether ``dtype`` is a subtype of one of ``classes`` (memoized: the
    answer never changes and this runs on every primitive application)."""
    key = (dtype, classes)
    ok = _ACCEPTS.get(key)
    if ok is None:
        ok = _ACCEPTS[key] = builtins.any(dtypes.issubdtype(dtype, c) for c in classes)
    return ok


def _class_names(classes):
    return ", ".join(c.__name__ if c is not np.bool_ else "bool" for c in classes)


def _check_dtype(name, dtype, classes, position=None):
    """TypeError in JAX's words; n-ary operations name the operand position."""
    if not _accepts(dtype, classes):
        at = "" if position is None else f" at position {position}"
        raise TypeError(f"{name} does not accept dtype {dtype.name}{at}. Accepted "
                        f"dtypes{at} are subtypes of {_class_names(classes)}.")


def _check_same_dtypes(name, avals):
    first = avals[0].dtype
    if builtins.any(a.dtype != first for a in avals[1:]):
        got = ", ".join(a.dtype.name for a in avals)
        raise TypeError(
            f"lax.{name} requires arguments to have the same dtypes, got {got}. "
            f"(Tip: jnp.{_JNP_TWIN.get(name, name)} is a similar function that "
            "does automatic type promotion on inputs).")


_JNP_TWIN = {"sub": "subtract", "mul": "multiply", "div": "divide",
             "rem": "remainder", "max": "maximum", "min": "minimum",
             "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
             "pow": "power", "eq": "equal", "ne": "not_equal", "lt": "less",
             "le": "less_equal", "gt": "greater", "ge": "greater_equal",
             "atan2": "arctan2"}


def _broadcast_shape(name, avals):
    """The result shape of an elementwise op (SPEC LAX-2).

    Rank-0 operands broadcast against anything; the others must have equal
    rank, and along each axis equal sizes or size 1.
    """
    if len(avals) == 1:
        return avals[0].shape
    shapes = [a.shape for a in avals if a.shape != ()]
    if not shapes:
        return ()
    if builtins.all(s == shapes[0] for s in shapes):
        return shapes[0]
    if len({len(s) for s in shapes}) > 1:
        raise TypeError(f"{name}: arrays must have the same number of dimensions, "
                        f"got {set(len(s) for s in shapes)}")
    out = []
    for sizes in zip(*shapes):
        big = {d for d in sizes if d != 1}
        if len(big) > 1:
            listed = ", ".join(str(a.shape) for a in avals)
            raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                            f"{listed}.")
        out.append(big.pop() if big else 1)
    return tuple(out)


def _all_weak(avals):
    return builtins.all(a.weak_type for a in avals)


# ---------------------------------------------------------------------------
# Elementwise primitives
# ---------------------------------------------------------------------------

def _hide_none(*names):
    """A printing hook that omits the named params when they are None."""
    def shown(params):
        return {k: v for k, v in params.items()
                if not (k in names and v is None)}
    return shown


def naryop(name, classes, impl, result_dtype=None, accuracy=False,
           out_dtype_param=False):
    """Define an elementwise primitive on operands of one dtype.

    ``result_dtype(dtype)`` gives the output dtype (default: the input's);
    comparisons and ``abs`` of complex use it.  Outputs are weak only when
    every operand is weak (SPEC DT-3).
    """
    prim = Primitive(name)

    def abstract_eval(*avals, **params):
        for i, a in enumerate(avals):
            _check_dtype(name, a.dtype, classes, i if len(avals) > 1 else None)
        if len(avals) > 1:
            _check_same_dtypes(name, avals)
        shape = _broadcast_shape(name, avals)
        dt = avals[0].dtype if result_dtype is None else result_dtype(avals[0].dtype)
        weak = _all_weak(avals)
        return ShapedArray(shape, dt, weak)

    def impl_(*bufs, **params):
        with np.errstate(all="ignore"):
            return impl(*bufs)

    prim.def_abstract_eval(abstract_eval)
    prim.def_impl(impl_)
    if accuracy:
        prim.pp_params = _hide_none("accuracy")
    if out_dtype_param:
        prim.pp_params = _hide_none("out_dtype")
    return prim


def _to_bool(_):
    return dtypes.bool_


def _real_dtype(dt):
    return np.finfo(dt).dtype if dt.kind == "c" else dt


def _unary(name, classes, impl, accuracy=False, result_dtype=None):
    prim = naryop(name, classes, impl, result_dtype, accuracy=accuracy)
    if accuracy:
        def fn(x, accuracy=None):
            return prim.bind(x, accuracy=accuracy)
    else:
        def fn(x):
            return prim.bind(x)
    fn.__name__ = name
    fn.__doc__ = f"Elementwise ``{name}`` (the ``{name}`` primitive)."
    return prim, fn


def _binary(name, classes, impl, result_dtype=None, out_dtype_param=False):
    prim = naryop(name, classes, impl, result_dtype, out_dtype_param=out_dtype_param)
    if out_dtype_param:
        def fn(x, y):
            return prim.bind(x, y, out_dtype=None)
    else:
        def fn(x, y):
            return prim.bind(x, y)
    fn.__name__ = name
    fn.__doc__ = f"Elementwise ``{name}`` (the ``{name}`` primitive)."
    return prim, fn


def _logistic(x):
    xp = _xp()
    return 1 / (1 + xp.exp(-x))


def _round_impl(x, rounding_method):
    xp = _xp()
    if int(rounding_method) == RoundingMethod.TO_NEAREST_EVEN:
        return xp.round(x)
    return xp.sign(x) * xp.floor(xp.abs(x) + x.dtype.type(0.5))


_fp = _float + _complex

neg_p, neg = _unary("neg", _num, lambda x: -x)
sign_p, sign = _unary("sign", _num, lambda x: _xp().sign(x))
floor_p, floor = _unary("floor", _float, lambda x: _xp().floor(x))
ceil_p, ceil = _unary("ceil", _float, lambda x: _xp().ceil(x))
is_finite_p, is_finite = _unary("is_finite", _float, lambda x: _xp().isfinite(x),
                                result_dtype=_to_bool)
exp_p, exp = _unary("exp", _fp, lambda x: _xp().exp(x), accuracy=True)
exp2_p, exp2 = _unary("exp2", _fp, lambda x: _xp().exp2(x), accuracy=True)
log_p, log = _unary("log", _fp, lambda x: _xp().log(x), accuracy=True)
expm1_p, expm1 = _unary("expm1", _fp, lambda x: _xp().expm1(x), accuracy=True)
log1p_p, log1p = _unary("log1p", _fp, lambda x: _xp().log1p(x), accuracy=True)
tanh_p, tanh = _unary("tanh", _fp, lambda x: _xp().tanh(x), accuracy=True)
logistic_p, logistic = _unary("logistic", _fp, _logistic, accuracy=True)
sin_p, sin = _unary("sin", _fp, lambda x: _xp().sin(x), accuracy=True)
cos_p, cos = _unary("cos", _fp, lambda x: _xp().cos(x), accuracy=True)
tan_p, tan = _unary("tan", _fp, lambda x: _xp().tan(x), accuracy=True)
sqrt_p, sqrt = _unary("sqrt", _fp, lambda x: _xp().sqrt(x), accuracy=True)
rsqrt_p, rsqrt = _unary("rsqrt", _fp, lambda x: 1 / _xp().sqrt(x), accuracy=True)
square_p, square = _unary("square", _num, lambda x: x * x)
cbrt_p, cbrt = _unary("cbrt", _float, lambda x: _xp().cbrt(x), accuracy=True)
asin_p, asin = _unary("asin", _fp, lambda x: _xp().arcsin(x))
acos_p, acos = _unary("acos", _fp, lambda x: _xp().arccos(x))
atan_p, atan = _unary("atan", _fp, lambda x: _xp().arctan(x))
sinh_p, sinh = _unary("sinh", _fp, lambda x: _xp().sinh(x))
cosh_p, cosh = _unary("cosh", _fp, lambda x: _xp().cosh(x))
asinh_p, asinh = _unary("asinh", _fp, lambda x: _xp().arcsinh(x))
acosh_p, acosh = _unary("acosh", _fp, lambda x: _xp().arccosh(x))
atanh_p, atanh = _unary("atanh", _fp, lambda x: _xp().arctanh(x))
erf_p, erf = _unary("erf", _float, lambda x: _special("erf")(x))
erfc_p, erfc = _unary("erfc", _float, lambda x: _special("erfc")(x))
erf_inv_p, erf_inv = _unary("erf_inv", _float, lambda x: _special("erfinv")(x))
lgamma_p, lgamma = _unary("lgamma", _float, lambda x: _special("gammaln")(x))
digamma_p, digamma = _unary("digamma", _float, lambda x: _special("digamma")(x))
not_p, bitwise_not = _unary("not", _ints_bool, lambda x: ~x)
population_count_p, population_count = _unary(
    "population_count", _int, lambda x: _popcount(x))
clz_p, clz = _unary("clz", _int, lambda x: _clz(x))
real_p, real = _unary("real", _complex, lambda x: _xp().real(x),
                      result_dtype=_real_dtype)
imag_p, imag = _unary("imag", _complex, lambda x: _xp().imag(x),
                      result_dtype=_real_dtype)
conj_p = naryop("conj", _complex + _float, lambda x: _xp().conj(x))


def conj(x):
    """Complex conjugate (the ``conj`` primitive)."""
    return conj_p.bind(x, input_dtype=core.get_aval(x).dtype)


# Printed with its parameter, as JAX does: conj[input_dtype=complex64].


abs_p = naryop("abs", _signedint + _fp, lambda x: _xp().abs(x),
               result_dtype=_real_dtype)


def abs(x):  # noqa: A001 - mirrors lax.abs
    """Elementwise absolute value; complex inputs give their real dtype."""
    return abs_p.bind(x)


class RoundingMethod(enum.IntEnum):
    """How ``lax.round`` breaks ties (``round[rounding_method=0]``)."""
    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1

    def __str__(self):
        return str(int(self))


round_p = Primitive("round")
round_p.def_impl(_round_impl)


@round_p.def_abstract_eval
def _round_abstract_eval(x, rounding_method):
    _check_dtype("round", x.dtype, _float)
    return x


def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):  # noqa: A001
    """Round to integral values; ties away from zero unless told otherwise."""
    return round_p.bind(x, rounding_method=RoundingMethod(rounding_method))


def _popcount(x):
    """Set bits of the two's-complement pattern (NumPy counts |x| for signed)."""
    unsigned = x.view(np.dtype(f"u{x.dtype.itemsize}"))
    return _xp().bitwise_count(unsigned).astype(x.dtype)


def _clz(x):
    xp = _xp()
    bits = x.dtype.itemsize * 8
    u = x.astype(np.dtype(f"u{x.dtype.itemsize}"))
    out = xp.full(x.shape, bits, dtype=x.dtype)
    for b in range(bits):
        set_ = (u >> np.uint64(bits - 1 - b).astype(u.dtype)) & 1
        out = xp.where((set_ == 1) & (out == bits), b, out)
    return out.astype(x.dtype)


integer_pow_p = Primitive("integer_pow")


@integer_pow_p.def_abstract_eval
def _integer_pow_abstract_eval(x, y):
    _check_dtype("integer_pow", x.dtype, _num)
    if y < 0 and dtypes.issubdtype(x.dtype, np.integer):
        raise TypeError("Integers cannot be raised to negative powers, got "
                        f"integer_pow({x}, {y})")  # str(aval): ~int32[] if weak
    return x


@integer_pow_p.def_impl
def _integer_pow_impl(x, y):
    xp = _xp()
    with np.errstate(all="ignore"):
        if y == 0:
            return xp.ones_like(x)
        acc, base, n = None, x, builtins.abs(y)
        while n:
            if n & 1:
                acc = base if acc is None else acc * base
            n >>= 1
            if n:
                base = base * base
        return 1 / acc if y < 0 else acc


def integer_pow(x, y):
    """``x ** y`` for a static Python integer ``y`` (repeated squaring)."""
    return integer_pow_p.bind(x, y=operator.index(y))


# Binary operations -------------------------------------------------------

def _int_div(x, y):
    """C-style division truncating toward zero, XLA's answers for y == 0."""
    xp = _xp()
    if x.dtype.kind not in "iu":
        return x / y
    zero = y == 0
    safe = xp.where(zero, 1, y).astype(x.dtype)
    q = xp.floor_divide(x, safe)
    if x.dtype.kind == "i":
        fix = (xp.remainder(x, safe) != 0) & ((x < 0) != (safe < 0))
        q = q + fix.astype(x.dtype)
    return xp.where(zero, xp.asarray(-1).astype(x.dtype), q).astype(x.dtype)


def _int_rem(x, y):
    xp = _xp()
    if x.dtype.kind not in "iu":
        return xp.fmod(x, y)
    zero = y == 0
    safe = xp.where(zero, 1, y).astype(x.dtype)
    return xp.where(zero, x, xp.fmod(x, safe)).astype(x.dtype)


def _pow_impl(x, y):
    return _xp().power(x, y)


def _max_impl(x, y):
    return _xp().maximum(x, y)


def _min_impl(x, y):
    return _xp().minimum(x, y)


def _shift_amount(x, y):
    bits = x.dtype.itemsize * 8
    return bits, (y.astype(np.int64) < 0) | (y.astype(np.int64) >= bits)


def _shift_left(x, y):
    xp = _xp()
    bits, out = _shift_amount(x, y)
    safe = xp.where(out, 0, y).astype(x.dtype)
    return xp.where(out, 0, xp.left_shift(x, safe)).astype(x.dtype)


def _shift_right_arithmetic(x, y):
    xp = _xp()
    bits, out = _shift_amount(x, y)
    signed = x.astype(np.dtype(f"i{x.dtype.itemsize}"))
    safe = xp.where(out, bits - 1, y).astype(signed.dtype)
    return xp.right_shift(signed, safe).astype(x.dtype)


def _shift_right_logical(x, y):
    xp = _xp()
    bits, out = _shift_amount(x, y)
    unsigned = x.astype(np.dtype(f"u{x.dtype.itemsize}"))
    safe = xp.where(out, 0, y).astype(unsigned.dtype)
    return xp.where(out, 0, xp.right_shift(unsigned, safe)).astype(x.dtype)


def _atan2(y, x):
    """``arctan2``; for complex operands ``-i log((x + i y) / sqrt(x^2 + y^2))``."""
    xp = _xp()
    if y.dtype.kind != "c":
        return xp.arctan2(y, x)
    return (-1j * xp.log((x + 1j * y) / xp.sqrt(x * x + y * y))).astype(y.dtype)


def _nextafter(x, y):
    return _xp().nextafter(x, y)


add_p, add = _binary("add", _num, lambda x, y: x + y)
sub_p, sub = _binary("sub", _num, lambda x, y: x - y)
mul_p, mul = _binary("mul", _num, lambda x, y: x * y, out_dtype_param=True)
div_p, div = _binary("div", _num, _int_div)
rem_p, rem = _binary("rem", _int + _float, _int_rem)
pow_p, pow = _binary("pow", _fp, _pow_impl)  # noqa: A001
max_p, max = _binary("max", _any, _max_impl)  # noqa: A001
min_p, min = _binary("min", _any, _min_impl)  # noqa: A001
atan2_p, atan2 = _binary("atan2", _fp, lambda x, y: _atan2(x, y))
nextafter_p, nextafter = _binary("nextafter", _float, _nextafter)
and_p, bitwise_and = _binary("and", _ints_bool, lambda x, y: x & y)
or_p, bitwise_or = _binary("or", _ints_bool, lambda x, y: x | y)
xor_p, bitwise_xor = _binary("xor", _ints_bool, lambda x, y: x ^ y)
shift_left_p, shift_left = _binary("shift_left", _int, _shift_left)
shift_right_arithmetic_p, shift_right_arithmetic = _binary(
    "shift_right_arithmetic", _int, _shift_right_arithmetic)
shift_right_logical_p, shift_right_logical = _binary(
    "shift_right_logical", _int, _shift_right_logical)
eq_p, eq = _binary("eq", _any, lambda x, y: x == y, result_dtype=_to_bool)
ne_p, ne = _binary("ne", _any, lambda x, y: x != y, result_dtype=_to_bool)
# Orderings are not defined on complex numbers (eq/ne are).
_ordered = _int + _float + _bool
lt_p, lt = _binary("lt", _ordered, lambda x, y: x < y, result_dtype=_to_bool)
le_p, le = _binary("le", _ordered, lambda x, y: x <= y, result_dtype=_to_bool)
gt_p, gt = _binary("gt", _ordered, lambda x, y: x > y, result_dtype=_to_bool)
ge_p, ge = _binary("ge", _ordered, lambda x, y: x >= y, result_dtype=_to_bool)

def _complex_impl(x, y):
    """Real and imaginary parts set separately: ``x + 1j*y`` would turn a
    real part of -0.0 into +0.0."""
    out = _xp().empty(np.broadcast_shapes(x.shape, y.shape),
                      np.complex64 if x.dtype == np.float32 else np.complex128)
    out.real = x
    out.imag = y
    return out


complex_p = naryop("complex", (np.float32, np.float64), _complex_impl,
                   result_dtype=lambda dt: np.dtype(np.complex64 if dt == np.float32
                                                    else np.complex128))


def complex(x, y):  # noqa: A001
    """``x + 1j * y`` (the ``complex`` primitive)."""
    return complex_p.bind(x, y)


def _pow_abstract_eval(x, y):
    _check_dtype("pow", x.dtype, _fp)
    if not (_accepts(y.dtype, _int) or y.dtype == x.dtype):
        _check_same_dtypes("pow", [x, y])
    return ShapedArray(_broadcast_shape("pow", [x, y]), x.dtype,
                       x.weak_type and y.weak_type)


pow_p.def_abstract_eval(_pow_abstract_eval)


def _pow_typed(x, y):
    with np.errstate(all="ignore"):
        out = _xp().power(x, y.astype(x.dtype) if y.dtype.kind in "iu" else y)
    return out


pow_p.def_impl(_pow_typed)


# select_n and clamp ------------------------------------------------------

select_n_p = Primitive("select_n")


@select_n_p.def_abstract_eval
def _select_n_abstract_eval(which, *cases):
    if not cases:
        raise ValueError("select_n requires at least one case")
    if builtins.any(c.dtype != cases[0].dtype for c in cases):
        got = ", ".join(c.dtype.name for c in cases)
        raise TypeError(f"select cases must have the same dtypes, got [{got}].")
    if builtins.any(c.shape != cases[0].shape for c in cases):
        got = ", ".join(str(c.shape) for c in cases)
        raise TypeError(f"select cases must have the same shapes, got [{got}].")
    if which.dtype != dtypes.bool_ and which.dtype != np.int32:
        raise TypeError("which must be boolean or int32, got "
                        f"{which.dtype.name}.")
    if which.dtype == dtypes.bool_ and len(cases) > 2:
        raise TypeError("select with boolean predicate requires one or two cases, "
                        f"got {len(cases)}.")
    if which.shape and which.shape != cases[0].shape:
        raise TypeError("select `which` must be scalar or have the same shape as "
                        f"cases, got `which` shape {which.shape} but case shape "
                        f"{cases[0].shape}.")
    return ShapedArray(cases[0].shape, cases[0].dtype, _all_weak(cases))


@select_n_p.def_impl
def _select_n_impl(which, *cases):
    xp = _xp()
    if len(cases) == 1:
        return cases[0]
    if which.dtype == np.bool_:
        return xp.where(which, cases[1], cases[0])
    idx = xp.clip(which, 0, len(cases) - 1)
    return xp.choose(xp.broadcast_to(idx, cases[0].shape), cases)


def select_n(which, *cases):
    """Pick ``cases[which]`` elementwise (``which`` bool or int32)."""
    return select_n_p.bind(which, *cases)


def select(pred, on_true, on_false):
    """``on_true`` where ``pred`` else ``on_false`` (``select_n`` reversed)."""
    return select_n_p.bind(pred, on_false, on_true)


clamp_p = Primitive("clamp")


@clamp_p.def_abstract_eval
def _clamp_abstract_eval(lo, x, hi):
    for name, b in (("min", lo), ("max", hi)):
        if b.shape and b.shape != x.shape:
            raise TypeError(f"clamp requires {name}.shape == operand.shape or "
                            f"{name}.shape == (), got {b.shape}.")
    if lo.dtype != x.dtype or hi.dtype != x.dtype:
        raise TypeError("lax.clamp requires arguments to have the same dtypes, "
                        f"got {lo.dtype.name}, {x.dtype.name}, {hi.dtype.name}.")
    _check_dtype("clamp", x.dtype, _int + _float)
    return ShapedArray(x.shape, x.dtype, x.weak_type)


@clamp_p.def_impl
def _clamp_impl(lo, x, hi):
    xp = _xp()
    return xp.minimum(xp.maximum(x, lo), hi)


def clamp(min, x, max):  # noqa: A002
    """``min(max(x, min), max)`` elementwise."""
    return clamp_p.bind(min, x, max)


# ---------------------------------------------------------------------------
# Types
# ---------------------------------------------------------------------------

convert_element_type_p = Primitive("convert_element_type")


@convert_element_type_p.def_abstract_eval
def _convert_abstract_eval(x, new_dtype, weak_type, sharding):
    return ShapedArray(x.shape, new_dtype, weak_type)


@convert_element_type_p.def_impl
def _convert_impl(x, new_dtype, weak_type, sharding):
    from refjax._src.casting import convert
    return convert(x, x.dtype, new_dtype)


convert_element_type_p.pp_params = lambda p: {k: v for k, v in p.items()
                                              if k != "sharding"}


def convert_element_type(operand, new_dtype):
    """Cast to ``new_dtype`` with XLA's rules (SPEC DT-13); never weak."""
    return _convert_element_type(operand, new_dtype, weak_type=False)


def _convert_element_type(operand, new_dtype=None, weak_type=False):
    """Cast ``operand``; scalar constants are folded at trace time (JXP-3).

    Returns ``operand`` itself when dtype and weak type already match and it
    is an array; Python scalars become arrays.
    """
    aval = core.get_aval(operand)
    new_dtype = aval.dtype if new_dtype is None else dtypes.canonicalize_dtype(
        dtypes.check_user_dtype(new_dtype, "convert_element_type")
        if not isinstance(new_dtype, np.dtype) else new_dtype)
    weak_type = bool(weak_type)
    if (aval.dtype, aval.weak_type) == (new_dtype, weak_type):
        if isinstance(operand, (Tracer, core.ArrayImpl)):
            return operand
        return core.wrap_buffer(core.to_buffer(operand), aval)
    if not isinstance(operand, Tracer) and aval.shape == ():
        with core.set_current_trace(core.eval_trace):
            return convert_element_type_p.bind(
                operand, new_dtype=new_dtype, weak_type=weak_type, sharding=None)
    return convert_element_type_p.bind(operand, new_dtype=new_dtype,
                                       weak_type=weak_type, sharding=None)


bitcast_convert_type_p = Primitive("bitcast_convert_type")


@bitcast_convert_type_p.def_abstract_eval
def _bitcast_abstract_eval(x, new_dtype):
    old, new = x.dtype.itemsize, new_dtype.itemsize
    if old == new:
        shape = x.shape
    elif old > new:
        shape = x.shape + (old // new,)
    else:
        if not x.shape or x.shape[-1] != new // old:
            raise TypeError(f"Attempting to convert array of shape {x.shape} "
                            f"from {x.dtype.name} of size {old} to {new_dtype.name} "
                            f"of size {new}, but the last dimension should be "
                            f"{new // old}.")
        shape = x.shape[:-1]
    return ShapedArray(shape, new_dtype)


@bitcast_convert_type_p.def_impl
def _bitcast_impl(x, new_dtype):
    x = x.copy()  # C-contiguous, and keeps 0-d arrays 0-d
    if x.dtype.itemsize == new_dtype.itemsize:
        return x.view(new_dtype)
    if x.dtype.itemsize > new_dtype.itemsize:
        return x.view(new_dtype).reshape(x.shape + (x.dtype.itemsize // new_dtype.itemsize,))
    return x.view(new_dtype).reshape(x.shape[:-1])


def bitcast_convert_type(operand, new_dtype):
    """Reinterpret the bits of ``operand`` as ``new_dtype``."""
    new_dtype = dtypes.canonicalize_dtype(dtypes.to_dtype(new_dtype))
    return bitcast_convert_type_p.bind(operand, new_dtype=new_dtype)


# ---------------------------------------------------------------------------
# Shapes
# ---------------------------------------------------------------------------

def _static_shape(shape, what="shape"):
    from refjax._src.numpy_creation import canonicalize_shape
    return canonicalize_shape(shape)


broadcast_in_dim_p = Primitive("broadcast_in_dim")


@broadcast_in_dim_p.def_abstract_eval
def _broadcast_in_dim_abstract_eval(x, shape, broadcast_dimensions, sharding):
    if len(broadcast_dimensions) != x.ndim:
        raise TypeError(
            "broadcast_in_dim broadcast_dimensions must have length equal to "
            f"operand ndim; got broadcast_dimensions {broadcast_dimensions} for "
            f"operand ndim {x.ndim}.")
    for i, d in enumerate(broadcast_dimensions):
        if not 0 <= d < len(shape) or x.shape[i] not in (1, shape[d]):
            raise TypeError(
                "broadcast_in_dim operand dimension sizes must either be 1, or be "
                "equal to their corresponding dimensions in the target broadcast "
                f"shape; got operand of shape {x.shape}, target broadcast shape "
                f"{shape}, broadcast_dimensions {broadcast_dimensions} ")
    if list(broadcast_dimensions) != sorted(set(broadcast_dimensions)):
        raise TypeError("broadcast_in_dim broadcast_dimensions must be strictly "
                        f"increasing; got broadcast_dimensions {broadcast_dimensions}")
    return ShapedArray(shape, x.dtype, x.weak_type)


@broadcast_in_dim_p.def_impl
def _broadcast_in_dim_impl(x, shape, broadcast_dimensions, sharding):
    xp = _xp()
    expanded = [1] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        expanded[d] = x.shape[i]
    return xp.broadcast_to(x.reshape(expanded), shape).copy()


def _pp_broadcast_in_dim(params):
    shown = {k: v for k, v in params.items() if k not in ("shape", "sharding")}
    if not shown["broadcast_dimensions"]:
        del shown["broadcast_dimensions"]
    return shown


broadcast_in_dim_p.pp_params = _pp_broadcast_in_dim


def broadcast_in_dim(operand, shape, broadcast_dimensions, out_sharding=None):
    """Broadcast ``operand`` to ``shape``, its axes landing on ``broadcast_dimensions``."""
    shape = _static_shape(shape)
    aval = core.get_aval(operand)
    dims = tuple(operator.index(d) for d in broadcast_dimensions)
    if aval.shape == shape and dims == tuple(range(len(shape))) and isinstance(
            operand, (Tracer, core.ArrayImpl)):
        return operand
    return broadcast_in_dim_p.bind(operand, shape=shape, broadcast_dimensions=dims,
                                   sharding=None)


def broadcast(operand, sizes, out_sharding=None):
    """Add leading axes of ``sizes``."""
    sizes = _static_shape(sizes)
    aval = core.get_aval(operand)
    dims = tuple(range(len(sizes), len(sizes) + aval.ndim))
    return broadcast_in_dim(operand, sizes + aval.shape, dims)


def broadcast_to_rank(x, rank):
    ndim = core.get_aval(x).ndim
    return x if ndim == rank else broadcast(x, (1,) * (rank - ndim))


def expand_dims(array, dimensions):
    """Insert size-1 axes at ``dimensions`` (lowered to ``broadcast_in_dim``)."""
    aval = core.get_aval(array)
    ndim_out = aval.ndim + len(dimensions)
    dims = sorted(core.canonicalize_axis(d, ndim_out) for d in dimensions)
    if len(set(dims)) != len(dims):
        raise ValueError(f"repeated axis in lax.expand_dims: {dimensions}")
    shape = list(aval.shape)
    for d in dims:
        shape.insert(d, 1)
    kept = [i for i in range(ndim_out) if i not in dims]
    return broadcast_in_dim(array, tuple(shape), tuple(kept))


reshape_p = Primitive("reshape")


@reshape_p.def_abstract_eval
def _reshape_abstract_eval(x, new_sizes, dimensions, sharding):
    if math.prod(new_sizes) != x.size:
        raise TypeError("reshape total size must be unchanged, got new_sizes "
                        f"{new_sizes} (of total size {math.prod(new_sizes)}) for "
                        f"shape {x.shape} (of total size {x.size}).")
    return ShapedArray(new_sizes, x.dtype, x.weak_type)


@reshape_p.def_impl
def _reshape_impl(x, new_sizes, dimensions, sharding):
    if dimensions is not None:
        x = _xp().transpose(x, dimensions)
    return x.reshape(new_sizes)


def reshape(operand, new_sizes, dimensions=None, out_sharding=None):
    """Reshape (after permuting by ``dimensions`` when given)."""
    new_sizes = _static_shape(new_sizes)
    aval = core.get_aval(operand)
    dims = None if dimensions is None else tuple(dimensions)
    if dims is not None and dims == tuple(range(aval.ndim)):
        dims = None
    if aval.shape == new_sizes and dims is None and isinstance(
            operand, (Tracer, core.ArrayImpl)):
        return operand
    return reshape_p.bind(operand, new_sizes=new_sizes, dimensions=dims, sharding=None)


transpose_p = Primitive("transpose")


@transpose_p.def_abstract_eval
def _transpose_abstract_eval(x, permutation):
    if sorted(permutation) != list(range(x.ndim)):
        raise TypeError("transpose permutation isn't a permutation of operand "
                        f"dimensions, got permutation {permutation} for operand "
                        f"shape {x.shape}.")
    return ShapedArray(tuple(x.shape[p] for p in permutation), x.dtype, x.weak_type)


@transpose_p.def_impl
def _transpose_impl(x, permutation):
    return _xp().transpose(x, permutation)


def transpose(operand, permutation):
    """Permute the axes of ``operand``."""
    permutation = tuple(operator.index(p) for p in permutation)
    if permutation == tuple(range(core.get_aval(operand).ndim)) and isinstance(
            operand, (Tracer, core.ArrayImpl)):
        return operand
    return transpose_p.bind(operand, permutation=permutation)


squeeze_p = Primitive("squeeze")


@squeeze_p.def_abstract_eval
def _squeeze_abstract_eval(x, dimensions):
    for d in dimensions:
        if x.shape[d] != 1:
            raise ValueError("cannot select an axis to squeeze out which has size "
                             f"not equal to one, got shape={x.shape} and "
                             f"dimensions={dimensions}")
    shape = tuple(s for i, s in enumerate(x.shape) if i not in dimensions)
    return ShapedArray(shape, x.dtype, x.weak_type)


@squeeze_p.def_impl
def _squeeze_impl(x, dimensions):
    return x.reshape(tuple(s for i, s in enumerate(x.shape) if i not in dimensions))


def squeeze(array, dimensions):
    """Remove the size-1 axes ``dimensions``."""
    ndim = core.get_aval(array).ndim
    dims = tuple(sorted(core.canonicalize_axis(d, ndim) for d in dimensions))
    if not dims and isinstance(array, (Tracer, core.ArrayImpl)):
        return array
    return squeeze_p.bind(array, dimensions=dims)


rev_p = Primitive("rev")


@rev_p.def_abstract_eval
def _rev_abstract_eval(x, dimensions):
    if len(set(dimensions)) != len(dimensions) or builtins.any(
            not 0 <= d < x.ndim for d in dimensions):
        raise TypeError("rev dimensions must be unique and within operand rank, "
                        f"got dimensions {dimensions} for operand ndim {x.ndim}.")
    return x


@rev_p.def_impl
def _rev_impl(x, dimensions):
    return _xp().flip(x, dimensions) if dimensions else x


def rev(operand, dimensions):
    """Reverse ``operand`` along ``dimensions``."""
    return rev_p.bind(operand, dimensions=tuple(operator.index(d) for d in dimensions))


concatenate_p = Primitive("concatenate")


@concatenate_p.def_abstract_eval
def _concatenate_abstract_eval(*avals, dimension):
    first = avals[0]
    if builtins.any(a.dtype != first.dtype for a in avals):
        raise TypeError("Cannot concatenate arrays with different dtypes, got "
                        f"{', '.join(a.dtype.name for a in avals)}.")
    if builtins.any(a.ndim != first.ndim for a in avals):
        raise TypeError("Cannot concatenate arrays with different numbers of "
                        f"dimensions: got {', '.join(str(a.shape) for a in avals)}.")
    if not 0 <= dimension < first.ndim:
        raise TypeError(f"concatenate dimension out of bounds: dimension "
                        f"{dimension} for shapes {', '.join(str(a.shape) for a in avals)}.")
    for a in avals:
        if builtins.any(s != t for i, (s, t) in enumerate(zip(a.shape, first.shape))
                        if i != dimension):
            raise TypeError("Cannot concatenate arrays with shapes that differ in "
                            "dimensions other than the one being concatenated: "
                            f"concatenating along dimension {dimension} for shapes "
                            f"{', '.join(str(a.shape) for a in avals)}.")
    shape = list(first.shape)
    shape[dimension] = builtins.sum(a.shape[dimension] for a in avals)
    return ShapedArray(shape, first.dtype, _all_weak(avals))


@concatenate_p.def_impl
def _concatenate_impl(*xs, dimension):
    return _xp().concatenate(xs, axis=dimension)


def concatenate(operands, dimension):
    """Join ``operands`` along ``dimension``."""
    operands = list(operands)
    if not operands:
        raise ValueError("concatenate requires a non-empty sequences of arrays")
    if len(operands) == 1 and isinstance(operands[0], (Tracer, core.ArrayImpl)):
        return operands[0]
    return concatenate_p.bind(*operands, dimension=operator.index(dimension))


split_p = Primitive("split", multiple_results=True)


@split_p.def_abstract_eval
def _split_abstract_eval(x, sizes, axis):
    if builtins.any(s < 0 for s in sizes):
        raise ValueError(f"Sizes passed to split must be nonnegative, got {list(sizes)}")
    if x.shape[axis] != builtins.sum(sizes):
        raise ValueError(f"Sum of sizes {builtins.sum(sizes)} must be equal to dimension "
                         f"{axis} of the operand shape {list(x.shape)}")
    outs = []
    for size in sizes:
        shape = list(x.shape)
        shape[axis] = int(size)
        outs.append(ShapedArray(shape, x.dtype, x.weak_type))
    return outs


@split_p.def_impl
def _split_impl(x, sizes, axis):
    bounds = np.cumsum([0] + [int(s) for s in sizes])
    return [x[(builtins.slice(None),) * axis + (builtins.slice(lo, hi),)]
            for lo, hi in zip(bounds[:-1], bounds[1:])]


def split(operand, sizes, axis=0):
    """Split ``operand`` along ``axis`` into pieces of ``sizes``."""
    ndim = core.get_aval(operand).ndim
    return split_p.bind(operand, sizes=tuple(sizes),
                        axis=core.canonicalize_axis(axis, ndim))


stack_p = Primitive("stack")


@stack_p.def_abstract_eval
def _stack_abstract_eval(*avals, axis):
    if not avals:
        raise ValueError("stack expects at least one operand, got 0.")
    if len({a.ndim for a in avals}) != 1:
        raise ValueError("Cannot stack arrays with different numbers of dimensions: "
                         f"got {', '.join(str(a.shape) for a in avals)}.")
    if len({a.shape for a in avals}) != 1:
        raise ValueError("All input arrays must have the same shape. Got "
                         f"{', '.join(str(a.shape) for a in avals)}.")
    if builtins.any(a.dtype != avals[0].dtype for a in avals):
        _check_same_dtypes("stack", avals)
    shape = list(avals[0].shape)
    shape.insert(axis, len(avals))
    return ShapedArray(shape, avals[0].dtype, _all_weak(avals))


@stack_p.def_impl
def _stack_impl(*xs, axis):
    return _xp().stack(xs, axis=axis)


def stack(operands, axis=0):
    """Join equally shaped ``operands`` along a new axis ``axis``."""
    operands = list(operands)
    if not operands:
        raise ValueError("stack expects at least one operand, got 0.")
    ndim = core.get_aval(operands[0]).ndim
    return stack_p.bind(*operands, axis=core.canonicalize_axis(axis, ndim + 1))


tile_p = Primitive("tile")


@tile_p.def_abstract_eval
def _tile_abstract_eval(x, reps):
    if x.ndim != len(reps):
        raise TypeError("reps length must be equal to the ndim of x, got "
                        f"len(reps)={len(reps)} and x.ndim={x.ndim}.")
    return ShapedArray(tuple(s * r for s, r in zip(x.shape, reps)), x.dtype,
                       x.weak_type)


@tile_p.def_impl
def _tile_impl(x, reps):
    return _xp().tile(x, reps) if x.ndim else x.copy()


def tile(operand, reps):
    """Repeat ``operand`` ``reps[i]`` times along each axis ``i``."""
    return tile_p.bind(operand, reps=tuple(operator.index(r) for r in reps))


pad_p = Primitive("pad")


@pad_p.def_abstract_eval
def _pad_abstract_eval(x, padding_value, padding_config):
    if padding_value.shape != ():
        raise TypeError(f"padding_value must be a scalar; got {padding_value.shape}")
    if padding_value.dtype != x.dtype:
        raise TypeError("lax.pad requires arguments to have the same dtypes, got "
                        f"{x.dtype.name}, {padding_value.dtype.name}.")
    if len(padding_config) != x.ndim:
        raise ValueError("length of padding_config must equal the number of axes "
                         f"of operand, got padding_config {padding_config} for "
                         f"operand shape {x.shape}")
    shape = []
    for s, (lo, hi, interior) in zip(x.shape, padding_config):
        if interior < 0:
            raise ValueError("interior padding in padding_config must be "
                             f"nonnegative, got padding_config {padding_config}")
        out = lo + hi + s + builtins.max(0, s - 1) * interior
        if out < 0:
            raise ValueError("Dimension size after padding is not at least 0, got "
                             f"result shape {tuple(shape)}, for padding_config "
                             f"{padding_config} and operand shape {x.shape}")
        shape.append(out)
    return ShapedArray(shape, x.dtype, x.weak_type)


@pad_p.def_impl
def _pad_impl(x, padding_value, padding_config):
    xp = _xp()
    grown = [(builtins.max(lo, 0), builtins.max(hi, 0), i) for lo, hi, i in padding_config]
    shape = [lo + hi + s + builtins.max(0, s - 1) * i
             for s, (lo, hi, i) in zip(x.shape, grown)]
    out = xp.full(shape, padding_value, dtype=x.dtype)
    index = tuple(builtins.slice(lo, lo + s + builtins.max(0, s - 1) * i, i + 1)
                  for s, (lo, hi, i) in zip(x.shape, grown))
    out[index] = x
    crop = tuple(builtins.slice(-lo if lo < 0 else 0, n + hi if hi < 0 else n)
                 for n, (lo, hi, _) in zip(shape, padding_config))
    return out[crop]


def pad(operand, padding_value, padding_config):
    """Pad with ``(low, high, interior)`` per axis; negative values crop."""
    # Integers are kept as given (NumPy ints included) so that the equation
    # prints the values jnp.pad passed, as JAX's does (SPEC NP-44).
    config = tuple(tuple(v if isinstance(v, (int, np.integer)) else operator.index(v)
                         for v in triple) for triple in padding_config)
    return pad_p.bind(operand, padding_value, padding_config=config)


slice_p = Primitive("slice")


@slice_p.def_abstract_eval
def _slice_abstract_eval(x, start_indices, limit_indices, strides):
    if len(start_indices) != x.ndim or len(limit_indices) != x.ndim:
        raise TypeError("slice start_indices and limit_indices must have length "
                        f"equal to the number of dimensions of the operand, got "
                        f"start_indices {start_indices} and limit_indices "
                        f"{limit_indices} for operand shape {x.shape}.")
    strides = strides or (1,) * x.ndim
    shape = []
    for s, lo, hi, st in zip(x.shape, start_indices, limit_indices, strides):
        if not 0 <= lo <= hi <= s:
            raise TypeError("slice start_indices must be greater than or equal to "
                            "zero and less than or equal to limit_indices, which "
                            "must be less than or equal to the operand shape, got "
                            f"start_indices {start_indices}, limit_indices "
                            f"{limit_indices} for operand shape {x.shape}.")
        shape.append(0 if hi == lo else (hi - lo + st - 1) // st)
    return ShapedArray(shape, x.dtype, x.weak_type)


@slice_p.def_impl
def _slice_impl(x, start_indices, limit_indices, strides):
    strides = strides or (1,) * x.ndim
    return x[tuple(builtins.slice(lo, hi, st) for lo, hi, st
                   in zip(start_indices, limit_indices, strides))]


def slice(operand, start_indices, limit_indices, strides=None):  # noqa: A001
    """Static slice ``operand[start:limit:stride]`` on every axis."""
    start = tuple(operator.index(i) for i in start_indices)
    limit = tuple(operator.index(i) for i in limit_indices)
    strides = None if strides is None else tuple(operator.index(i) for i in strides)
    return slice_p.bind(operand, start_indices=start, limit_indices=limit,
                        strides=strides)


def slice_in_dim(operand, start_index, limit_index, stride=1, axis=0):
    """``slice`` along one axis; ``None`` and negative bounds as in Python."""
    aval = core.get_aval(operand)
    axis = core.canonicalize_axis(axis, aval.ndim)
    size = aval.shape[axis]
    start, limit, _ = builtins.slice(start_index, limit_index).indices(size)
    starts = [0] * aval.ndim
    limits = list(aval.shape)
    strides = [1] * aval.ndim
    starts[axis], limits[axis], strides[axis] = start, builtins.max(start, limit), stride
    # Always explicit strides: JAX prints ``strides=(1, 1)`` for these
    # (``strides=None`` comes from jnp's static indexing instead).
    return slice(operand, starts, limits, strides)


def index_in_dim(operand, index, axis=0, keepdims=True):
    """Element ``index`` of axis ``axis`` as a static slice."""
    aval = core.get_aval(operand)
    axis = core.canonicalize_axis(axis, aval.ndim)
    size = aval.shape[axis]
    index = operator.index(index)
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for axis {axis} with size {size}")
    index %= size
    out = slice_in_dim(operand, index, index + 1, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


iota_p = Primitive("iota")


@iota_p.def_abstract_eval
def _iota_abstract_eval(dtype, shape, dimension, sharding):
    return ShapedArray(shape, dtype)


@iota_p.def_impl
def _iota_impl(dtype, shape, dimension, sharding):
    xp = _xp()
    line = xp.arange(shape[dimension]).astype(dtype)
    view = [1] * len(shape)
    view[dimension] = shape[dimension]
    return xp.broadcast_to(line.reshape(view), shape).copy()


def iota(dtype, size, out_sharding=None):
    """``[0, 1, ..., size-1]`` of ``dtype``."""
    return broadcasted_iota(dtype, (size,), 0)


def broadcasted_iota(dtype, shape, dimension, out_sharding=None):
    """An iota along ``dimension`` of an array of ``shape``."""
    dtype = dtypes.canonicalize_dtype(dtypes.to_dtype(dtype))
    shape = tuple(operator.index(d) for d in shape)
    if builtins.any(d < 0 for d in shape):
        raise TypeError(f"iota shape must have every element be nonnegative, got {shape}.")
    return iota_p.bind(dtype=dtype, shape=shape,
                       dimension=core.canonicalize_axis(dimension, len(shape)),
                       sharding=None)


copy_p = Primitive("copy")
copy_p.def_abstract_eval(lambda x: x)
copy_p.def_impl(lambda x: x.copy())


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------

def _reduction(name, classes, impl, extra_params=()):
    prim = Primitive(name)

    def abstract_eval(x, axes, **params):
        _check_dtype(name, x.dtype, classes)
        if builtins.any(not 0 <= a < x.ndim for a in axes) or len(set(axes)) != len(axes):
            raise ValueError(f"{name}: axes {axes} are out of range or repeated "
                             f"for operand of shape {x.shape}")
        shape = tuple(s for i, s in enumerate(x.shape) if i not in axes)
        return ShapedArray(shape, x.dtype, x.weak_type)

    def impl_(x, axes, **params):
        with np.errstate(all="ignore"):
            return impl(x, axes)

    prim.def_abstract_eval(abstract_eval)
    prim.def_impl(impl_)
    return prim


def _sum_impl(x, axes):
    return _xp().sum(x, axis=axes, dtype=x.dtype)


def _prod_impl(x, axes):
    return _xp().prod(x, axis=axes, dtype=x.dtype)


def _max_reduce_impl(x, axes):
    xp = _xp()
    if x.size == 0:
        return xp.full(_reduced_shape(x.shape, axes), _identity_for("max", x.dtype), x.dtype)
    return xp.max(x, axis=axes)


def _min_reduce_impl(x, axes):
    xp = _xp()
    if x.size == 0:
        return xp.full(_reduced_shape(x.shape, axes), _identity_for("min", x.dtype), x.dtype)
    return xp.min(x, axis=axes)


def _reduced_shape(shape, axes):
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def _identity_for(kind, dtype):
    """The identity of max/min over ``dtype`` (used for empty reductions)."""
    if dtype == np.bool_:
        return kind == "min"
    if dtypes.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return info.min if kind == "max" else info.max
    return -np.inf if kind == "max" else np.inf


reduce_sum_p = _reduction("reduce_sum", _num, _sum_impl)
reduce_prod_p = _reduction("reduce_prod", _num, _prod_impl)
reduce_max_p = _reduction("reduce_max", _any, _max_reduce_impl)
reduce_min_p = _reduction("reduce_min", _any, _min_reduce_impl)
reduce_and_p = _reduction("reduce_and", _ints_bool,
                          lambda x, axes: _xp().bitwise_and.reduce(x, axis=axes)
                          if x.dtype != np.bool_ else _xp().all(x, axis=axes))
reduce_or_p = _reduction("reduce_or", _ints_bool,
                         lambda x, axes: _xp().bitwise_or.reduce(x, axis=axes)
                         if x.dtype != np.bool_ else _xp().any(x, axis=axes))
reduce_xor_p = _reduction("reduce_xor", _ints_bool,
                          lambda x, axes: _xp().bitwise_xor.reduce(x, axis=axes)
                          if x.dtype != np.bool_ else (_xp().sum(x, axis=axes) % 2).astype(bool))


def _axes(axes):
    return tuple(operator.index(a) for a in axes)


def reduce_sum(operand, axes, out_sharding=None):
    return reduce_sum_p.bind(operand, axes=_axes(axes), out_sharding=None)


def reduce_prod(operand, axes):
    return reduce_prod_p.bind(operand, axes=_axes(axes))


def reduce_max(operand, axes, out_sharding=None):
    return reduce_max_p.bind(operand, axes=_axes(axes))


def reduce_min(operand, axes, out_sharding=None):
    return reduce_min_p.bind(operand, axes=_axes(axes))


def reduce_and(operand, axes):
    return reduce_and_p.bind(operand, axes=_axes(axes))


def reduce_or(operand, axes):
    return reduce_or_p.bind(operand, axes=_axes(axes))


def reduce_xor(operand, axes):
    return reduce_xor_p.bind(operand, axes=_axes(axes))


def _arg_reduction(name, np_fn):
    prim = Primitive(name)

    def abstract_eval(x, axes, index_dtype):
        _check_dtype(name, x.dtype, _any)
        axis, = axes
        if not 0 <= axis < x.ndim:
            raise ValueError(f"Invalid axis {axis} for operand shape {x.shape}")
        if x.shape[axis] == 0:
            raise ValueError(f"{name} on an empty axis is undefined: axis {axis} "
                             f"of shape {x.shape}")
        return ShapedArray(_reduced_shape(x.shape, axes), index_dtype)

    def impl(x, axes, index_dtype):
        # Complex numbers have no order: like XLA's comparator (gt/lt), refuse
        # them when running (staging them is allowed, as in JAX).
        _check_dtype("gt" if name == "argmax" else "lt", x.dtype, _ordered, 0)
        return getattr(_xp(), np_fn)(x, axis=axes[0]).astype(index_dtype)

    prim.def_abstract_eval(abstract_eval)
    prim.def_impl(impl)
    return prim


argmax_p = _arg_reduction("argmax", "argmax")
argmin_p = _arg_reduction("argmin", "argmin")


def argmax(operand, axis, index_dtype):
    """Index of the largest element along ``axis`` (first NaN wins)."""
    return argmax_p.bind(operand, axes=(operator.index(axis),),
                         index_dtype=dtypes.canonicalize_dtype(dtypes.to_dtype(index_dtype)))


def argmin(operand, axis, index_dtype):
    """Index of the smallest element along ``axis`` (first NaN wins)."""
    return argmin_p.bind(operand, axes=(operator.index(axis),),
                         index_dtype=dtypes.canonicalize_dtype(dtypes.to_dtype(index_dtype)))


def _cumulative(name, classes, impl):
    prim = Primitive(name)

    def abstract_eval(x, axis, reverse):
        _check_dtype(name, x.dtype, classes)
        if not 0 <= axis < builtins.max(x.ndim, 1):
            raise ValueError(f"axis {axis} is out of bounds for array of shape {x.shape}")
        return x

    def impl_(x, axis, reverse):
        xp = _xp()
        if x.ndim == 0:
            return x
        if reverse:
            x = xp.flip(x, axis)
        with np.errstate(all="ignore"):
            out = impl(x, axis)
        return xp.flip(out, axis) if reverse else out

    prim.def_abstract_eval(abstract_eval)
    prim.def_impl(impl_)

    def fn(operand, axis=0, reverse=False):
        ndim = core.get_aval(operand).ndim
        return prim.bind(operand, axis=core.canonicalize_axis(axis, builtins.max(ndim, 1)),
                         reverse=bool(reverse))
    fn.__name__ = name
    fn.__doc__ = f"Cumulative ``{name[3:]}`` along ``axis`` (the ``{name}`` primitive)."
    return prim, fn


def _cumlogsumexp_impl(x, axis):
    return _xp().logaddexp.accumulate(x, axis=axis)


cumsum_p, cumsum = _cumulative(
    "cumsum", _num, lambda x, axis: _xp().cumsum(x, axis=axis, dtype=x.dtype))
cumprod_p, cumprod = _cumulative(
    "cumprod", _num, lambda x, axis: _xp().cumprod(x, axis=axis, dtype=x.dtype))
cummax_p, cummax = _cumulative(
    "cummax", _any, lambda x, axis: _xp().maximum.accumulate(x, axis=axis))
cummin_p, cummin = _cumulative(
    "cummin", _any, lambda x, axis: _xp().minimum.accumulate(x, axis=axis))
cumlogsumexp_p, cumlogsumexp = _cumulative("cumlogsumexp", _float, _cumlogsumexp_impl)


# ---------------------------------------------------------------------------
# Contractions
# ---------------------------------------------------------------------------

dot_general_p = Primitive("dot_general")


def _dot_general_shape(lhs, rhs, dimension_numbers):
    (lc, rc), (lb, rb) = dimension_numbers
    for a, b in zip(lb, rb):
        if lhs.shape[a] != rhs.shape[b]:
            raise TypeError("dot_general requires lhs batch dimensions and rhs "
                            "batch dimensions to have the same shape, got "
                            f"{tuple(lhs.shape[i] for i in lb)} and "
                            f"{tuple(rhs.shape[i] for i in rb)}.")
    for a, b in zip(lc, rc):
        if lhs.shape[a] != rhs.shape[b]:
            raise TypeError("dot_general requires contracting dimensions to have "
                            "the same shape, got "
                            f"{tuple(lhs.shape[i] for i in lc)} and "
                            f"{tuple(rhs.shape[i] for i in rc)}.")
    batch = tuple(lhs.shape[i] for i in lb)
    lfree = tuple(s for i, s in enumerate(lhs.shape) if i not in lc and i not in lb)
    rfree = tuple(s for i, s in enumerate(rhs.shape) if i not in rc and i not in rb)
    return batch + lfree + rfree


@dot_general_p.def_abstract_eval
def _dot_general_abstract_eval(lhs, rhs, dimension_numbers, precision,
                               preferred_element_type, out_sharding):
    shape = _dot_general_shape(lhs, rhs, dimension_numbers)
    dt = _dot_general_dtype(lhs.dtype, rhs.dtype, preferred_element_type)
    # The standard weak-type rule, even with preferred_element_type (SPEC NP-47).
    return ShapedArray(shape, dt, lhs.weak_type and rhs.weak_type)


def _dot_type_rank(dt):
    """How XLA ranks operand types of a dot: complex, exponent and mantissa
    range, bit width, signedness (the wider operand gives the result)."""
    real = np.finfo(dt).dtype if dt.kind == "c" else dt
    is_float = real.kind == "f" or real == dtypes.bfloat16
    finfo = dtypes.finfo(real) if is_float else None
    bits = 1 if real == np.bool_ else real.itemsize * 8
    return (dt.kind == "c", finfo.maxexp if finfo else -1,
            finfo.nmant if finfo else -1, bits, real.kind != "u")


def _dot_general_dtype(lhs, rhs, preferred):
    """Mixed operand dtypes are allowed when one ranks above the other; a
    ``preferred_element_type`` then widens the result."""
    lr, rr = _dot_type_rank(lhs), _dot_type_rank(rhs)
    if lr == rr and lhs != rhs:
        raise TypeError(f"lax.dot_general argument type error: {lhs}, {rhs}")
    result = lhs if lr >= rr else rhs
    if preferred is None or preferred == result:
        return result
    if result.kind != "f" and result != dtypes.bfloat16 and (
            _dot_type_rank(preferred)[3] < _dot_type_rank(result)[3]):
        raise TypeError("`preferred_element_type` must not be narrower than the "
                        "original type, got preferred_element_type of "
                        f"{preferred} for result type of {result}.")
    return preferred


@dot_general_p.def_impl
def _dot_general_impl(lhs, rhs, dimension_numbers, precision,
                      preferred_element_type, out_sharding):
    xp = _xp()
    (lc, rc), (lb, rb) = dimension_numbers
    n = 0

    def fresh():
        nonlocal n
        n += 1
        return n - 1

    lsub = [fresh() for _ in range(lhs.ndim)]
    rsub = [None] * rhs.ndim
    for a, b in zip(lc, rc):
        rsub[b] = lsub[a]
    for a, b in zip(lb, rb):
        rsub[b] = lsub[a]
    rsub = [s if s is not None else fresh() for s in rsub]
    out = ([lsub[i] for i in lb]
           + [lsub[i] for i in range(lhs.ndim) if i not in lc and i not in lb]
           + [rsub[i] for i in range(rhs.ndim) if i not in rc and i not in rb])
    out_dtype = preferred_element_type or lhs.dtype
    compute = _dot_compute_dtype(lhs.dtype, rhs.dtype, out_dtype)
    with np.errstate(all="ignore"):
        result = xp.einsum(lhs.astype(compute), lsub, rhs.astype(compute), rsub, out)
    return xp.asarray(result).astype(out_dtype)


def _dot_compute_dtype(a, b, out):
    """Accumulate in at least float32 / the output's integer width."""
    if out.kind in "iub":
        return np.dtype(out) if out.kind != "b" else np.dtype(np.int32)
    wide = np.result_type(np.float32, *(d for d in (a, b, out)
                                        if d.kind in "fc" and d.itemsize >= 4))
    if builtins.any(d.kind == "c" for d in (a, b, out)):
        wide = np.result_type(wide, np.complex64)
    return wide


def _pp_dot_general(params):
    shown = {k: v for k, v in params.items() if v is not None}
    shown.pop("out_sharding", None)
    (lc, rc), (lb, rb) = params["dimension_numbers"]
    shown["dimension_numbers"] = ((list(lc), list(rc)), (list(lb), list(rb)))
    return shown


dot_general_p.pp_params = _pp_dot_general


class Precision(enum.Enum):
    """Matmul precision hints; refjax computes in full precision always."""
    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    def __str__(self):
        return self.name


def _canon_precision(precision):
    if precision is None:
        return None
    if isinstance(precision, str):
        precision = Precision[precision.upper()]
    if isinstance(precision, Precision):
        return (precision, precision)
    return tuple(precision)


def dot_general(lhs, rhs, dimension_numbers, precision=None,
                preferred_element_type=None, out_sharding=None):
    """General tensor contraction: ``((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))``."""
    (lc, rc), (lb, rb) = dimension_numbers
    dn = ((tuple(map(operator.index, lc)), tuple(map(operator.index, rc))),
          (tuple(map(operator.index, lb)), tuple(map(operator.index, rb))))
    pet = (None if preferred_element_type is None else
           dtypes.canonicalize_dtype(dtypes.to_dtype(preferred_element_type)))
    return dot_general_p.bind(lhs, rhs, dimension_numbers=dn,
                              precision=_canon_precision(precision),
                              preferred_element_type=pet, out_sharding=None)


def dot(lhs, rhs, precision=None, preferred_element_type=None, out_sharding=None):
    """Vector/matrix products of rank-1 and rank-2 operands."""
    ln, rn = core.get_aval(lhs).ndim, core.get_aval(rhs).ndim
    if not (1 <= ln <= 2 and 1 <= rn <= 2):
        raise TypeError("dot requires operands of rank 1 or 2, got shapes "
                        f"{core.get_aval(lhs).shape} and {core.get_aval(rhs).shape}.")
    return dot_general(lhs, rhs, (((ln - 1,), (0,)), ((), ())), precision,
                       preferred_element_type)


# ---------------------------------------------------------------------------
# Sorting
# ---------------------------------------------------------------------------

sort_p = Primitive("sort", multiple_results=True)


@sort_p.def_abstract_eval
def _sort_abstract_eval(*operands, dimension, is_stable, num_keys):
    shape = operands[0].shape
    if builtins.any(o.shape != shape for o in operands):
        raise TypeError("sort arguments must all have the same shape, got "
                        f"{', '.join(str(o.shape) for o in operands)}")
    if not 0 <= dimension < builtins.max(len(shape), 1):
        raise ValueError(f"dimension {dimension} out of bounds for shape {shape}")
    if not 1 <= num_keys <= len(operands):
        raise ValueError(f"{num_keys=} must be between 1 and {len(operands)}")
    return list(operands)


def _sort_key(x):
    """Keys ordering like XLA: -inf < ... < -0.0 == 0.0 < ... < inf < NaN (any sign)."""
    xp = _xp()
    if x.dtype.kind == "c":
        return _sort_key(xp.real(x)) + _sort_key(xp.imag(x))
    if x.dtype.kind != "f" and x.dtype not in (dtypes.bfloat16,):
        return [x]
    wide = x.astype(np.float64)
    nan = xp.isnan(wide)
    # Every NaN, whatever its sign, sorts last (as XLA's comparator does).
    return [nan.astype(np.int8), xp.where(nan, 0.0, wide)]


@sort_p.def_impl
def _sort_impl(*operands, dimension, is_stable, num_keys):
    xp = _xp()
    if operands[0].ndim == 0:
        return list(operands)
    moved = [xp.moveaxis(o, dimension, -1) for o in operands]
    keys = []
    for k in moved[:num_keys]:
        keys.extend(_sort_key(k))
    # lexsort sorts by the last key first.
    perm = xp.lexsort(list(reversed(keys)), axis=-1)
    return [xp.moveaxis(xp.take_along_axis(o, perm, axis=-1), -1, dimension)
            for o in moved]


def sort(operand, dimension=-1, is_stable=True, num_keys=1):
    """Sort one array, or several by their first ``num_keys`` (lexicographic)."""
    single = not isinstance(operand, (tuple, list))
    operands = [operand] if single else list(operand)
    ndim = core.get_aval(operands[0]).ndim
    dim = core.canonicalize_axis(dimension, builtins.max(ndim, 1))
    out = sort_p.bind(*operands, dimension=dim, is_stable=bool(is_stable),
                      num_keys=operator.index(num_keys))
    return out[0] if single else tuple(out)


def sort_key_val(keys, values, dimension=-1, is_stable=True):
    """Sort ``keys`` and permute ``values`` the same way."""
    return sort((keys, values), dimension, is_stable, 1)


# ---------------------------------------------------------------------------
# Filled arrays
# ---------------------------------------------------------------------------

def full(shape, fill_value, dtype=None, *, sharding=None):
    """An array of ``shape`` filled with ``fill_value`` (a broadcast scalar)."""
    shape = _static_shape(shape)
    if core.get_aval(fill_value).shape:
        raise TypeError(f"full must be called with scalar fill_value, got "
                        f"fill_value.shape {core.get_aval(fill_value).shape}.")
    weak = dtype is None and core.get_aval(fill_value).weak_type
    fill = _convert_element_type(fill_value, dtype, weak)
    return broadcast(fill, shape)


def full_like(x, fill_value, dtype=None, shape=None, sharding=None):
    """Like ``full``, taking the shape and dtype of ``x`` by default."""
    aval = core.get_aval(x)
    dt = aval.dtype if dtype is None else dtype
    out = full(aval.shape if shape is None else shape, fill_value, dt)
    return out


def reciprocal(x):
    """``1 / x`` as ``integer_pow(x, -1)``."""
    return integer_pow(x, -1)


def collapse(operand, start_dimension, stop_dimension=None):
    """Merge axes ``start_dimension:stop_dimension`` into one."""
    shape = core.get_aval(operand).shape
    stop = len(shape) if stop_dimension is None else stop_dimension
    start = start_dimension % builtins.max(len(shape), 1)
    size = math.prod(shape[start:stop])
    return reshape(operand, shape[:start] + (size,) + shape[stop:])


def batch_matmul(lhs, rhs, precision=None):
    """Matrix products over equal leading batch axes."""
    ln, rn = core.get_aval(lhs).ndim, core.get_aval(rhs).ndim
    if ln < 2 or ln != rn:
        raise ValueError("Arguments to batch_matmul must be at least 2D and have "
                         f"the same rank, got {ln} and {rn}.")
    batch = tuple(range(ln - 2))
    return dot_general(lhs, rhs, (((ln - 1,), (rn - 2,)), (batch, batch)), precision)
