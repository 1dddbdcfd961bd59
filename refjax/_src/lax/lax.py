"""The primitives of ``jax.lax`` and their public functions (SPEC LAX-1..).

Each primitive is defined in one block: its abstract evaluation (shape,
dtype, weak type, with JAX's error messages), its implementation on backend
buffers, how it prints, the public ``lax`` function that binds it, and its
differentiation rules (JVP, and transpose for linear primitives; SPEC
AD-20..AD-27).

This module holds the elementwise and type-conversion primitives; the shape
primitives, reductions, ``dot_general`` and ``sort`` live in the sibling
modules ``shapes``, ``reductions``, ``dot`` and ``sorting``, and every name
is re-exported here: other modules import ``refjax._src.lax.lax`` only.
``fma`` and ``reduce_precision`` live above it, in ``precision``.

Implementations receive backend buffers and return buffers of the dtype the
abstract evaluation promised; ``core.apply_primitive`` wraps them.
"""
import builtins
import math
import operator

import numpy as np

from refjax._src import backend as _backend
from refjax._src import casting, core, dtypes, mesh, placement
from refjax._src.array import Array
from refjax._src.core import Primitive, ShapedArray, Tracer
from refjax._src.fperrors import quiet
from refjax._src.interpreters import ad, batching
from refjax._src.interpreters import key_reuse as kr
from refjax._src.lax import bitcast, xla_cpu_math
from refjax._src.lax.arith_kernels import (
    RoundingMethod, div_kernel, rem_kernel, round_kernel,
)
from refjax._src.lax.dot_algorithms import AccuracyMode, Tolerance


def _xp():
    """The active backend's array module (NumPy or CuPy): lax kernels reach
    array functions only through it (SPEC BE-1)."""
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


def check_out_sharding(sharding, api_name):
    """``out_sharding`` is None, a ``NamedSharding``, or a ``PartitionSpec``
    inside a mesh context: anything else is JAX's ``TypeError`` (a
    ``PartitionSpec`` with no mesh its ``ValueError``) (SPEC LAX-12).  refjax
    runs on one device, so a valid sharding changes nothing here."""
    if sharding is None:
        return
    if not isinstance(sharding, (mesh.NamedSharding, mesh.PartitionSpec)):
        raise TypeError(f"`out_sharding` argument of {api_name} only supports "
                        "instances of `NamedSharding` or `PartitionSpec`. Got "
                        f"{sharding} of type: {type(sharding)}")
    if isinstance(sharding, mesh.PartitionSpec) and mesh.current_mesh() is None:
        raise ValueError("Using PartitionSpec when you are not under a mesh context "
                         "is not allowed. Please pass a NamedSharding instance or "
                         f"enter into a mesh context via `jax.set_mesh`. Got {sharding}")


def required_dtype(dtype, fun_name):
    """A dtype argument that has no default: None is JAX's ``ValueError``
    (SPEC LAX-12), anything else as ``dtypes.check_user_dtype`` reads it."""
    if dtype is None:
        raise ValueError("dtype must be specified.")
    return dtypes.canonicalize_dtype(dtypes.check_user_dtype(dtype, fun_name))


def _check_dtype(name, dtype, classes, position=None):
    """TypeError in JAX's words; n-ary operations name the operand position."""
    if not _accepts(dtype, classes):
        at = "" if position is None else f" at position {position}"
        if dtype == dtypes.float0:
            raise TypeError(f"Called {name} with a float0{at}. "
                            + dtypes.FLOAT0_NO_OPERATIONS.format(comma=","))
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
# Helpers for differentiation rules
# ---------------------------------------------------------------------------
# The rules beside each primitive follow JAX's formulas (SPEC AD-20): they
# are written with the lax functions below, so they run on whatever trace
# is current (and are themselves differentiable).

def _const(x, value):
    """``value`` as a constant of ``x``'s dtype: a Python scalar (weak)
    when ``x`` is weakly typed (of any shape), as JAX's rules make it, so
    that derivatives of weak values stay weak; otherwise a NumPy array."""
    aval = core.get_aval(x)
    if aval.weak_type:
        scalar = dtypes.scalar_type_of(np.zeros((), aval.dtype))(value)
        if dtypes.dtype_and_weak_type(scalar)[0] == aval.dtype:
            return scalar
    return np.array(value, aval.dtype)


def _zeros(x):
    """Zeros like ``x``, keeping its weak type (as JAX's rules do)."""
    return full_like(x, 0)


def _ones(x):
    return full_like(x, 1)


def _bcast_to(t, shape):
    """``t`` broadcast to ``shape`` (an elementwise operand's tangent
    becomes a tangent of the broadcast result)."""
    if core.get_aval(t).shape == tuple(shape):
        return t
    ndim = core.get_aval(t).ndim
    return shapes.broadcast_in_dim(t, shape, tuple(range(ndim)) if ndim else ())


def _out_shape(*xs):
    return np.broadcast_shapes(*(core.get_aval(x).shape for x in xs))


def _unbroadcast(aval, ct):
    """The cotangent of an operand of abstract value ``aval`` that an
    elementwise operation broadcast: ``ct`` summed over the broadcast axes."""
    ct_shape = core.get_aval(ct).shape
    if ct_shape == aval.shape:
        return ct
    if not aval.shape:
        return reductions.reduce_sum(ct, tuple(range(len(ct_shape))))
    axes = tuple(i for i, (a, c) in enumerate(zip(aval.shape, ct_shape)) if a != c)
    return shapes.reshape(reductions.reduce_sum(ct, axes), aval.shape)


def _replace_zero(x):
    """``x`` with its zeros replaced by ones (to keep a factor finite)."""
    return select(eq(x, _const(x, 0)), _ones(x), x)


def _balanced_eq(x, ans, y):
    """1 where ``x`` is the result ``ans`` of ``max``/``min``, halved where
    ``y`` is too: ties share the tangent equally (SPEC AD-23)."""
    return div(select(eq(x, ans), _ones(ans), _zeros(ans)),
               select(eq(y, ans), full_like(ans, 2), _ones(ans)))


def _linear_unbroadcast_transpose(ct_fns):
    """Transpose of an elementwise op linear in each operand; ``ct_fns[i](ct)``
    is operand ``i``'s cotangent before it is summed over broadcast axes."""
    def transpose(ct, *operands, **params):
        if type(ct) is ad.Zero:
            return ad.zero_cotangents(operands)
        return [_unbroadcast(o.aval, fn(ct)) if ad.is_undefined_primal(o) else None
                for o, fn in zip(operands, ct_fns)]
    return transpose


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
    every operand is weak (SPEC DT-3).  With ``out_dtype_param``, an
    ``out_dtype`` lets the operands' dtypes differ: they are converted to it
    before the operation (SPEC LXM-23).
    """
    prim = Primitive(name)

    def abstract_eval(*avals, out_dtype=None, **params):
        for i, a in enumerate(avals):
            _check_dtype(name, a.dtype, classes, i if len(avals) > 1 else None)
        if len(avals) > 1 and out_dtype is None:
            _check_same_dtypes(name, avals)
        shape = _broadcast_shape(name, avals)
        dt = avals[0].dtype if result_dtype is None else result_dtype(avals[0].dtype)
        dt = dt if out_dtype is None else out_dtype
        weak = _all_weak(avals)
        return ShapedArray(shape, dt, weak)

    # ``accuracy="ignored"``: JAX computes the op from others, whatever the
    # accuracy asked for (logistic), so no value of it is refused (LAX-17).
    checked = accuracy != "ignored"

    def impl_(*bufs, **params):
        if params and checked:
            _check_accuracy(params)
        # XLA never warns (SPEC LAX-10)
        return quiet(_converting(impl, params.get("out_dtype")), *bufs)

    def specialize(avals_in, avals_out, **params):
        if params and checked:
            _check_accuracy(params)
        return _converting(impl, params.get("out_dtype"))

    prim.def_abstract_eval(abstract_eval)
    prim.def_impl(impl_)
    # Kernels take only operands; compiled programs already run with
    # warnings off (SPEC PERF-3).
    prim.specialize = specialize
    # Batching (SPEC VMAP-2): unary ops keep the batch dim; n-ary ones
    # align operands as broadcasting requires.
    batching.defbroadcasting(prim)
    prim.sharding_rule = mesh.elementwise_sharding_rule    # SPEC SHD-37
    if accuracy:
        prim.pp_params = _hide_none("accuracy")
    if out_dtype_param:
        prim.pp_params = _hide_none("out_dtype")
    return prim


def _converting(impl, out_dtype):
    """``impl`` applied to its operands converted to ``out_dtype`` (the
    identity when it is None) (SPEC LXM-23)."""
    if out_dtype is None:
        return impl

    def kernel(*bufs):
        return impl(*(casting.convert(b, b.dtype, out_dtype) for b in bufs))
    return kernel


def _check_accuracy(params):
    """XLA's CPU backend computes every function one way, so it accepts any
    ``AccuracyMode`` or ``Tolerance`` and ignores it; running (not tracing)
    an operation with any other ``accuracy`` value is JAX's
    ``NotImplementedError`` (SPEC LXM-27)."""
    accuracy = params.get("accuracy")
    if accuracy is not None and not isinstance(accuracy, (AccuracyMode, Tolerance)):
        raise NotImplementedError(f"Accuracy {accuracy} not supported")


def _to_bool(_):
    return dtypes.bool_


def _real_dtype(dt):
    return np.finfo(dt).dtype if dt.kind == "c" else dt


def _unary(name, classes, impl, accuracy=False, result_dtype=None):
    prim = naryop(name, classes, impl, result_dtype, accuracy=accuracy)
    if accuracy:
        def fn(x, accuracy=None):
            hash(accuracy)      # a static parameter: TypeError if unhashable
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
        def fn(x, y, *, out_dtype=None):
            if out_dtype is not None:
                core.get_aval(x), core.get_aval(y)   # operands are read first
                out_dtype = required_dtype(out_dtype, name)
            return prim.bind(x, y, out_dtype=out_dtype)
    else:
        def fn(x, y):
            return prim.bind(x, y)
    fn.__name__ = name
    fn.__doc__ = f"Elementwise ``{name}`` (the ``{name}`` primitive)."
    return prim, fn


def _logistic(x):
    xp = _xp()
    return 1 / (1 + xp.exp(-x))



_fp = _float + _complex


def _xla_cpu(name, float32_kernel, float64_kernel=None, other=None):
    """A kernel that computes float32 and narrower real floats as XLA's CPU
    backend does (in float32, then rounded; SPEC LAX-11), float64 with
    ``float64_kernel`` where one is given, and everything else with
    ``other`` (by default the backend's function of that name)."""
    def kernel(x):
        if x.dtype.kind == "f" and x.dtype.itemsize <= 4:
            return float32_kernel(_xp(), x).astype(x.dtype)
        if x.dtype.kind == "f" and float64_kernel is not None:
            return float64_kernel(_xp(), x)
        return other(x) if other else getattr(_xp(), name)(x)
    kernel.__name__ = name
    return kernel

# Each operation is followed by its JVP rule, JAX's formula (SPEC AD-20);
# rules given the output ``ans`` (defjvp2) reuse it as JAX does.  With
# ``accuracy=AccuracyMode.HIGHEST`` the rules of expm1, tanh and logistic
# avoid the cancellation in ``ans + 1`` and ``1 - ans`` (SPEC LXM-27).
neg_p, neg = _unary("neg", _num, lambda x: -x)
ad.deflinear(neg_p, lambda ct, x: [neg(ct)])
sign_p, sign = _unary("sign", _num, lambda x: _xp().sign(x))
ad.defjvp_zero(sign_p)
floor_p, floor = _unary("floor", _float, lambda x: _xp().floor(x))
ad.defjvp_zero(floor_p)
ceil_p, ceil = _unary("ceil", _float, lambda x: _xp().ceil(x))
ad.defjvp_zero(ceil_p)
is_finite_p, is_finite = _unary("is_finite", _float, lambda x: _xp().isfinite(x),
                                result_dtype=_to_bool)
ad.defjvp_zero(is_finite_p)
exp_p, exp = _unary("exp", _fp, _xla_cpu("exp", xla_cpu_math.exp_f32), accuracy=True)
ad.defjvp2(exp_p, lambda g, ans, x, **_: mul(g, ans))
exp2_p, exp2 = _unary("exp2", _fp, lambda x: _xp().exp2(x), accuracy=True)
ad.defjvp2(exp2_p, lambda g, ans, x, **_: mul(log(_const(x, 2)), mul(g, ans)))
log_p, log = _unary("log", _fp, _xla_cpu("log", xla_cpu_math.log_f32), accuracy=True)
ad.defjvp(log_p, lambda g, x, **_: div(g, x))
expm1_p, expm1 = _unary("expm1", _fp, lambda x: _xp().expm1(x), accuracy=True)
ad.defjvp2(expm1_p, lambda g, ans, x, accuracy: mul(g, (
    exp(x, accuracy=accuracy) if accuracy is AccuracyMode.HIGHEST
    else add(ans, _const(ans, 1)))))
log1p_p, log1p = _unary("log1p", _fp, _xla_cpu(
    "log1p", xla_cpu_math.log1p_f32, xla_cpu_math.log1p_f64,
    # complex operands as XLA; bfloat16 (NumPy kind 'V') with the backend's
    lambda z: xla_cpu_math.log1p_complex(_xp(), z) if z.dtype.kind == "c"
    else _xp().log1p(z)), accuracy=True)
ad.defjvp(log1p_p, lambda g, x, **_: div(g, add(x, _const(x, 1))))
tanh_p, tanh = _unary("tanh", _fp, _xla_cpu("tanh", xla_cpu_math.tanh_f32), accuracy=True)
ad.defjvp2(tanh_p, lambda g, ans, x, accuracy: (
    mul(g, mul(_const(x, 4), mul(logistic(mul(_const(x, 2), x), accuracy=accuracy),
                                 logistic(mul(_const(x, -2), x), accuracy=accuracy))))
    if accuracy is AccuracyMode.HIGHEST
    else mul(add(g, mul(g, ans)), sub(_const(x, 1), ans))))
logistic_p, logistic = _unary("logistic", _fp, _xla_cpu("logistic", xla_cpu_math.logistic_f32,
                                                        other=_logistic), accuracy="ignored")
ad.defjvp2(logistic_p, lambda g, ans, x, accuracy: mul(g, mul(ans, (
    logistic(neg(x)) if accuracy is AccuracyMode.HIGHEST
    else sub(_const(ans, 1), ans)))))
sin_p, sin = _unary("sin", _fp, _xla_cpu("sin", xla_cpu_math.sin_f32), accuracy=True)
ad.defjvp(sin_p, lambda g, x, accuracy: mul(g, cos(x, accuracy=accuracy)))
cos_p, cos = _unary("cos", _fp, _xla_cpu("cos", xla_cpu_math.cos_f32), accuracy=True)
ad.defjvp(cos_p, lambda g, x, accuracy: neg(mul(g, sin(x, accuracy=accuracy))))
tan_p, tan = _unary("tan", _fp, _xla_cpu("tan", xla_cpu_math.tan_f32), accuracy=True)
ad.defjvp2(tan_p, lambda g, ans, x, **_: mul(g, add(_const(x, 1), square(ans))))
sqrt_p, sqrt = _unary("sqrt", _fp, lambda x: _xp().sqrt(x), accuracy=True)
ad.defjvp2(sqrt_p, lambda g, ans, x, **_: mul(g, div(_const(x, 0.5), ans)))
rsqrt_p, rsqrt = _unary("rsqrt", _fp, _xla_cpu("rsqrt", xla_cpu_math.rsqrt_f32,
                                               other=lambda x: 1 / _xp().sqrt(x)),
                         accuracy=True)
ad.defjvp2(rsqrt_p, lambda g, ans, x, **_: mul(g, mul(_const(x, -0.5), div(ans, x))))
square_p, square = _unary("square", _num, lambda x: x * x)
ad.defjvp(square_p, lambda g, x: mul(g, mul(_const(x, 2), x)))
cbrt_p, cbrt = _unary("cbrt", _float, lambda x: _xp().cbrt(x), accuracy=True)
ad.defjvp2(cbrt_p, lambda g, ans, x, **_: mul(g, mul(_const(x, 1 / 3),
                                                    integer_pow(ans, -2))))
asin_p, asin = _unary("asin", _fp, lambda x: _xp().arcsin(x))
ad.defjvp(asin_p, lambda g, x: mul(g, rsqrt(sub(_const(x, 1), square(x)))))
acos_p, acos = _unary("acos", _fp, lambda x: _xp().arccos(x))
ad.defjvp(acos_p, lambda g, x: mul(g, neg(rsqrt(sub(_const(x, 1), square(x))))))
atan_p, atan = _unary("atan", _fp, lambda x: _xp().arctan(x))
ad.defjvp(atan_p, lambda g, x: div(g, add(_const(x, 1), square(x))))
sinh_p, sinh = _unary("sinh", _fp, lambda x: _xp().sinh(x))
ad.defjvp(sinh_p, lambda g, x: mul(g, cosh(x)))
cosh_p, cosh = _unary("cosh", _fp, lambda x: _xp().cosh(x))
ad.defjvp(cosh_p, lambda g, x: mul(g, sinh(x)))
asinh_p, asinh = _unary("asinh", _fp, lambda x: _xp().arcsinh(x))
ad.defjvp(asinh_p, lambda g, x: mul(g, rsqrt(add(square(x), _const(x, 1)))))
acosh_p, acosh = _unary("acosh", _fp, lambda x: _xp().arccosh(x))
ad.defjvp(acosh_p, lambda g, x: mul(g, rsqrt(sub(square(x), _const(x, 1)))))
atanh_p, atanh = _unary("atanh", _fp, lambda x: _xp().arctanh(x))
ad.defjvp(atanh_p, lambda g, x: mul(reciprocal(add(_const(x, 1), x)),
                                    div(g, sub(_const(x, 1), x))))
erf_p, erf = _unary("erf", _float, lambda x: _special("erf")(x))
ad.defjvp(erf_p, lambda g, x: mul(_const(x, 2 / np.sqrt(np.pi)),
                                  mul(g, exp(neg(square(x))))))
erfc_p, erfc = _unary("erfc", _float, lambda x: _special("erfc")(x))
ad.defjvp(erfc_p, lambda g, x: mul(_const(x, -2 / np.sqrt(np.pi)),
                                   mul(g, exp(neg(square(x))))))
def _erf_inv_impl(x):
    """``erf_inv`` as XLA's CPU backend computes it (SPEC RNG-21, LAX-11):
    Giles' polynomials in ``w = -log1p(-x*x)``; narrower floats go through
    float32, as XLA upcasts them."""
    if x.dtype.itemsize > 4:
        return xla_cpu_math.erf_inv_f64(_xp(), x)
    return xla_cpu_math.erf_inv_f32(_xp(), x).astype(x.dtype)


erf_inv_p, erf_inv = _unary("erf_inv", _float, _erf_inv_impl)
ad.defjvp2(erf_inv_p, lambda g, ans, x: mul(_const(x, np.sqrt(np.pi) / 2),
                                            mul(g, exp(square(ans)))))
lgamma_p, lgamma = _unary("lgamma", _float, lambda x: _special("gammaln")(x))
ad.defjvp(lgamma_p, lambda g, x: mul(g, digamma(x)))
digamma_p, digamma = _unary("digamma", _float, lambda x: _special("digamma")(x))
ad.defjvp(digamma_p, lambda g, x: mul(g, _trigamma(x)))
not_p, bitwise_not = _unary("not", _ints_bool, lambda x: ~x)
ad.defjvp_zero(not_p)
population_count_p, population_count = _unary(
    "population_count", _int, lambda x: _popcount(x))
ad.defjvp_zero(population_count_p)
clz_p, clz = _unary("clz", _int, lambda x: _clz(x))
ad.defjvp_zero(clz_p)
real_p, real = _unary("real", _complex, lambda x: _xp().real(x),
                      result_dtype=_real_dtype)
ad.deflinear(real_p, lambda ct, x: [complex(ct, _strong_zero(ct))])
imag_p, imag = _unary("imag", _complex, lambda x: _xp().imag(x),
                      result_dtype=_real_dtype)
ad.deflinear(imag_p, lambda ct, x: [complex(_strong_zero(ct), neg(ct))])


def _strong_zero(x):
    """A strongly typed scalar 0 of ``x``'s dtype: the transposes of
    ``real`` and ``imag`` give strongly typed complex cotangents, as JAX's do."""
    return np.zeros((), core.get_aval(x).dtype)


def _trigamma(x):
    """psi'(x), the derivative of ``digamma`` (JAX's ``polygamma(1, x)``),
    from lax operations (SPEC AD-26).

    Below 1/2 the reflection psi'(x) + psi'(1 - x) = pi^2 / sin^2(pi x) is
    used (``x`` is reduced by its nearest integer first, so poles give an
    exact zero sine and +inf); then the recurrence
    psi'(z) = 1/z^2 + psi'(z + 1) carries ``z`` past 15, where the
    asymptotic series 1/z + 1/(2z^2) + sum B_2k / z^(2k+1) is accurate.
    At +inf the result is NaN, as JAX's ``polygamma`` gives.
    """
    reflect = lt(x, _const(x, 0.5))
    z = select(reflect, sub(_ones(x), x), x)
    acc = _zeros(x)
    for _ in range(15):
        small = lt(z, _const(x, 15))
        acc = add(acc, select(small, integer_pow(z, -2), _zeros(x)))
        z = select(small, add(z, _ones(x)), z)
    inv = reciprocal(z)
    inv2 = mul(inv, inv)
    # Bernoulli numbers B_2 .. B_12 (1/6, -1/30, 1/42, -1/30, 5/66, -691/2730).
    series = _const(x, -691 / 2730)
    for b in (5 / 66, -1 / 30, 1 / 42, -1 / 30, 1 / 6):
        series = add(_const(x, b), mul(inv2, series))
    tail = add(inv, mul(inv2, add(_const(x, 0.5), mul(inv, series))))
    value = add(acc, tail)
    # Elements not reflected take a harmless stand-in in the reflection
    # formula: select passes them a zero cotangent, but 0 * inf is NaN.
    xr = select(reflect, x, full_like(x, 0.25))
    pi = _const(x, np.pi)
    sine = sin(mul(pi, sub(xr, round(xr))))
    reflected = sub(div(square(pi), square(sine)), value)
    value = select(eq(x, _const(x, np.inf)), full_like(x, np.nan), value)
    return select(reflect, reflected, value)


def _complex_dtype(dt):
    """The complex dtype holding ``dt`` (complex dtypes are their own)."""
    if dt.kind == "c":
        return dt
    return np.dtype(np.complex64 if dt == np.float32 else np.complex128)


# A real input gives a complex result, as in JAX.
conj_p = naryop("conj", (np.float32, np.float64) + _complex,
                lambda x: _xp().conj(x).astype(_complex_dtype(x.dtype)),
                result_dtype=_complex_dtype)


def conj(x):
    """Complex conjugate (the ``conj`` primitive)."""
    return conj_p.bind(x, input_dtype=core.get_aval(x).dtype)


# Printed with its parameter, as JAX does: conj[input_dtype=complex64].


def _conj_transpose(ct, x, input_dtype):
    """conj is its own transpose; from a real input, the real part
    (SPEC AD-27)."""
    if dtypes.issubdtype(input_dtype, np.complexfloating):
        return [conj(ct)]
    return [real(ct)]


ad.deflinear(conj_p, _conj_transpose)


def _abs_result_dtype(dt):
    """Complex gives its real dtype; narrow signed ints are refused, as in
    JAX (SPEC LXM-30)."""
    if dt.name in ("int2", "int4"):
        raise TypeError(f"abs does not accept dtype {dt.name}. Support for narrow-width "
                        "integers is platform-dependent and limited to a few specific "
                        "operations, e.g. basic arithmetic and type casting.")
    return _real_dtype(dt)


abs_p = naryop("abs", _signedint + _fp, lambda x: _xp().abs(x),
               result_dtype=_abs_result_dtype)


def abs(x):  # noqa: A001 - mirrors lax.abs
    """Elementwise absolute value; complex inputs give their real dtype."""
    return abs_p.bind(x)


def _abs_jvp(g, ans, x):
    """sign(x) * g for reals, with slope 1 at 0 (and -0.0);
    re(conj(x) g) / |x| for complex, 0 at 0 (SPEC AD-27)."""
    if dtypes.issubdtype(core.get_aval(x).dtype, np.complexfloating):
        scale = _replace_zero(convert_element_type(ans, core.get_aval(x).dtype))
        return real(mul(g, div(conj(x), scale)))
    return select(ge(x, _zeros(x)), g, neg(g))


ad.defjvp2(abs_p, _abs_jvp)


round_p = Primitive("round")
round_p.def_impl(round_kernel)


@round_p.def_abstract_eval
def _round_abstract_eval(x, rounding_method):
    _check_dtype("round", x.dtype, _float)
    return x


def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):  # noqa: A001
    """Round to integral values; ties away from zero unless told otherwise."""
    return round_p.bind(x, rounding_method=RoundingMethod(rounding_method))


ad.defjvp_zero(round_p)
batching.defvectorized(round_p)  # SPEC VMAP-28
round_p.sharding_rule = mesh.elementwise_sharding_rule


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


def _integer_pow_jvp(g, x, y):
    """y x^(y-1) g; exactly 0 for y == 0 and g for y == 1, even where
    x^(y-1) is not finite (SPEC AD-20)."""
    if y == 0:
        return _zeros(g)
    if y == 1:
        return g
    if y == 2:
        return mul(g, mul(_const(x, 2), x))
    return mul(g, mul(_const(x, y), integer_pow(x, y - 1)))


ad.defjvp(integer_pow_p, _integer_pow_jvp)
batching.defvectorized(integer_pow_p)  # SPEC VMAP-28
integer_pow_p.sharding_rule = mesh.elementwise_sharding_rule


# Binary operations -------------------------------------------------------

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


def _additive_jvp(prim, combine, negate_y):
    """Tangents combine as the values do; one alone is broadcast to the
    result (SPEC AD-20)."""
    def rule(primals, tangents):
        out = prim.bind(*primals)
        tx, ty = tangents
        shape = core.get_aval(out).shape
        if type(tx) is ad.Zero and type(ty) is ad.Zero:
            return out, ad.Zero.from_primal_value(out)
        if type(ty) is ad.Zero:
            return out, _bcast_to(tx, shape)
        if type(tx) is ad.Zero:
            return out, _bcast_to(negate_y(ty), shape)
        return out, combine(tx, ty)
    return rule


add_p.jvp = _additive_jvp(add_p, add, lambda t: t)
add_p.transpose = _linear_unbroadcast_transpose([lambda ct: ct, lambda ct: ct])
sub_p, sub = _binary("sub", _num, lambda x, y: x - y)
sub_p.jvp = _additive_jvp(sub_p, sub, neg)
sub_p.transpose = _linear_unbroadcast_transpose([lambda ct: ct, neg])
mul_p, mul = _binary("mul", _num, lambda x, y: x * y, out_dtype_param=True)


def _mul_transpose(ct, x, y, out_dtype, operand):
    """The cotangent of the linear ``operand``, in its dtype when ``out_dtype``
    was given (SPEC LXM-23)."""
    cast = None if out_dtype is None else operand.aval.dtype
    return _unbroadcast(operand.aval, mul(ct, y if operand is x else x, out_dtype=cast))


ad.defbilinear(mul_p, lambda ct, x, y, out_dtype: _mul_transpose(ct, x, y, out_dtype, x),
               lambda ct, x, y, out_dtype: _mul_transpose(ct, x, y, out_dtype, y))
div_p, div = _binary("div", _num, div_kernel)
ad.defjvp(div_p, lambda g, x, y: div(g, y),
          lambda g, x, y: mul(mul(neg(g), x), integer_pow(y, -2)))


def _div_transpose(ct, x, y):
    """Linear in the numerator only (SPEC AD-21)."""
    if ad.is_undefined_primal(y):
        raise ValueError("div is not linear in its denominator and cannot be "
                         "transposed with respect to it")
    if type(ct) is ad.Zero:
        return [ad.Zero(x.aval), None]
    return [_unbroadcast(x.aval, div(ct, y)), None]


div_p.transpose = _div_transpose
rem_p, rem = _binary("rem", _int + _float, rem_kernel)
# d/dy rem(x, y) = -trunc(x / y), written as JAX writes it.
ad.defjvp(rem_p, lambda g, x, y: _bcast_to(g, _out_shape(x, y)),
          lambda g, x, y: mul(neg(g), mul(sign(div(x, y)), floor(abs(div(x, y))))))
pow_p, pow = _binary("pow", _fp, _pow_impl)  # noqa: A001
max_p, max = _binary("max", _any, _max_impl)  # noqa: A001
ad.defjvp2(max_p, lambda g, ans, x, y: mul(g, _balanced_eq(x, ans, y)),
           lambda g, ans, x, y: mul(g, _balanced_eq(y, ans, x)))
min_p, min = _binary("min", _any, _min_impl)  # noqa: A001
ad.defjvp2(min_p, lambda g, ans, x, y: mul(g, _balanced_eq(x, ans, y)),
           lambda g, ans, x, y: mul(g, _balanced_eq(y, ans, x)))
atan2_p, atan2 = _binary("atan2", _fp, lambda x, y: _atan2(x, y))
ad.defjvp(atan2_p, lambda g, x, y: mul(g, div(y, add(square(x), square(y)))),
          lambda g, x, y: mul(g, div(neg(x), add(square(x), square(y)))))
nextafter_p, nextafter = _binary("nextafter", _float, _nextafter)
nextafter_p.not_supported("jvp", "undefined in JAX: JAX defines no JVP for nextafter, "
                          "so differentiating it raises NotImplementedError, as here")
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


def _compare_whole_elements(prim):
    """``==`` and ``!=`` on extended dtypes (PRNG keys) compare whole keys
    (SPEC RNG-20); other comparisons and all arithmetic reject keys."""
    numeric = prim.abstract_eval

    def abstract_eval(x, y, **params):
        if not (dtypes.is_extended(x.dtype) or dtypes.is_extended(y.dtype)):
            return numeric(x, y, **params)
        if x.dtype != y.dtype:
            raise TypeError(f"{prim.name} does not accept dtypes "
                            f"{x.dtype.name}, {y.dtype.name}.")
        return ShapedArray(np.broadcast_shapes(x.shape, y.shape), dtypes.bool_)

    def physical(buffers, avals_in, avals_out):
        x, y = buffers
        axes = tuple(range(-len(avals_in[0].dtype.data_shape), 0))
        same = _xp().all(x == y, axis=axes)
        return same if prim is eq_p else ~same

    prim.abstract_eval = abstract_eval
    prim.physical = physical


_compare_whole_elements(eq_p)
_compare_whole_elements(ne_p)
eq_p.key_reuse = ne_p.key_reuse = kr.NO_KEYS   # comparing consumes no key (RNG-66)
# Orderings are not defined on complex numbers (eq/ne are).
_ordered = _int + _float + _bool
lt_p, lt = _binary("lt", _ordered, lambda x, y: x < y, result_dtype=_to_bool)
le_p, le = _binary("le", _ordered, lambda x, y: x <= y, result_dtype=_to_bool)
gt_p, gt = _binary("gt", _ordered, lambda x, y: x > y, result_dtype=_to_bool)
ge_p, ge = _binary("ge", _ordered, lambda x, y: x >= y, result_dtype=_to_bool)
# Integer, boolean and comparison results do not vary: zero tangents.
for _p in (and_p, or_p, xor_p, shift_left_p, shift_right_arithmetic_p,
           shift_right_logical_p, eq_p, ne_p, lt_p, le_p, gt_p, ge_p):
    ad.defjvp_zero(_p)


def _complex_impl(x, y):
    """Real and imaginary parts set separately: ``x + 1j*y`` would turn a
    real part of -0.0 into +0.0."""
    out = _xp().empty(np.broadcast_shapes(x.shape, y.shape),
                      np.complex64 if x.dtype == np.float32 else np.complex128)
    out.real = x
    out.imag = y
    return out


complex_p = naryop("complex", (np.float32, np.float64), _complex_impl,
                   result_dtype=_complex_dtype)


def complex(x, y):  # noqa: A001
    """``x + 1j * y`` (the ``complex`` primitive)."""
    return complex_p.bind(x, y)


# The transpose takes the real part for x and minus the imaginary part for
# y: the plain (not conjugated) transpose of x + iy (SPEC AD-27).
ad.deflinear(complex_p, _linear_unbroadcast_transpose(
    [real, lambda ct: neg(imag(ct))]))


def _pow_abstract_eval(x, y):
    _check_dtype("pow", x.dtype, _fp)
    if not (_accepts(y.dtype, _int) or y.dtype == x.dtype):
        _check_same_dtypes("pow", [x, y])
    return ShapedArray(_broadcast_shape("pow", [x, y]), x.dtype,
                       x.weak_type and y.weak_type)


pow_p.def_abstract_eval(_pow_abstract_eval)


def _pow_typed(x, y):
    """``x ** y``; float32 and narrower real floats are computed in float64
    and rounded, as the C library's ``powf`` that XLA calls on CPU does
    (it agrees bit for bit on all but about 0.06% of inputs; SPEC LAX-11)."""
    y = y.astype(x.dtype) if y.dtype.kind in "iu" else y
    with np.errstate(all="ignore"):
        if x.dtype.kind == "f" and x.dtype.itemsize <= 4 and y.dtype == x.dtype:
            return _xp().power(x.astype(np.float64), y.astype(np.float64)).astype(x.dtype)
        return _xp().power(x, y)


pow_p.def_impl(_pow_typed)


def _pow_jvp_x(g, ans, x, y):
    """y x^(y-1) g.  An integer exponent 0 gives exactly 0 (even at x = 0);
    a float exponent 0 at x = 0 gives NaN (0 * inf), as in JAX (SPEC AD-20)."""
    int_exponent = dtypes.issubdtype(core.get_aval(y).dtype, np.integer)
    # Both strongly typed in the result dtype, as JAX converts them.
    dtype = core.get_aval(x).dtype
    x, y = convert_element_type(x, dtype), convert_element_type(y, dtype)
    if int_exponent:
        shape = _out_shape(x, y)
        x, y = _bcast_to(x, shape), _bcast_to(y, shape)
        jac = select(eq(y, _zeros(y)), _zeros(y),
                     mul(_replace_zero(y), pow(x, sub(y, _const(y, 1)))))
    else:
        jac = mul(y, pow(x, sub(y, _const(y, 1))))
    return mul(g, jac)


def _pow_jvp_y(g, ans, x, y):
    """log(x) x^y g, with log(x) replaced by 0 at x = 0 (SPEC AD-20)."""
    return convert_element_type(mul(g, mul(log(_replace_zero(x)), ans)),
                                core.get_aval(y).dtype)


ad.defjvp2(pow_p, _pow_jvp_x, _pow_jvp_y)


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
    if which.dtype != dtypes.bool_ and not np.issubdtype(which.dtype, np.integer):
        raise TypeError("select `which` must be boolean or integer type, got "
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
    """Pick ``cases[which]`` elementwise (``which`` bool or any integer); no case
    at all is JAX's ValueError, before the operands are read (SPEC LAX-12)."""
    if not cases:
        raise ValueError("select_n() must have at least one case")
    return select_n_p.bind(which, *cases)


def select(pred, on_true, on_false):
    """``on_true`` where ``pred`` else ``on_false`` (``select_n`` reversed)."""
    return select_n_p.bind(pred, on_false, on_true)


def _select_n_jvp(primals, tangents):
    """The tangents selected like the cases (missing ones as zeros); the
    predicate has no tangent (SPEC AD-20)."""
    which, *cases = primals
    out = select_n_p.bind(which, *cases)
    case_tangents = tangents[1:]
    if all(type(t) is ad.Zero for t in case_tangents):
        return out, ad.Zero.from_primal_value(out)
    return out, select_n(which, *map(ad.instantiate_zeros, case_tangents))


def _select_n_transpose(ct, which, *cases):
    """Each linear case gets the cotangent where it was selected, zeros
    elsewhere; the predicate must be known (SPEC AD-21)."""
    if ad.is_undefined_primal(which):
        raise ValueError("select_n is not linear in its predicate")
    if type(ct) is ad.Zero:
        return [None] + ad.zero_cotangents(cases)
    zeros = _zeros(ct)
    boolean = core.get_aval(which).dtype == np.bool_

    def chosen(i):
        if boolean:
            return select_n(which, ct, zeros) if i == 0 else select_n(which, zeros, ct)
        return select_n(eq(which, _const(which, i)), zeros, ct)

    # Only the linear cases get a cotangent, so nothing is computed for the rest.
    return [None] + [chosen(i) if ad.is_undefined_primal(case) else None
                     for i, case in enumerate(cases)]


select_n_p.jvp = _select_n_jvp
select_n_p.transpose = _select_n_transpose


def _select_n_batch(axis_data, vals, dims):
    """Batching of ``select_n`` (SPEC VMAP-29), avoiding moves where it can.

    * Predicate and cases batched along the same axis: applied directly,
      after spreading a per-example scalar predicate over the cases' shape.
    * An unbatched scalar predicate with every case batched: the cases are
      aligned on the first case's batch axis.
    * Otherwise everything is batched along the front (unbatched operands
      broadcast, a scalar predicate kept scalar when it is unbatched), and a
      per-example scalar predicate is spread over the cases' shape (or the
      scalar cases over the predicate's)."""
    which, *cases = vals
    which_bdim, *case_dims = dims
    if all(d == which_bdim for d in case_dims):
        if np.shape(which) != np.shape(cases[0]):
            which = shapes.broadcast_in_dim(which, np.shape(cases[0]), (which_bdim,))
        return select_n(which, *cases), which_bdim
    if np.ndim(which) == 0 and all(d is not None for d in case_dims):
        bdim = case_dims[0]
        if all(np.shape(c) == np.shape(cases[0]) for c in cases):
            cases = [batching.moveaxis(c, d, bdim) for c, d in zip(cases, case_dims)]
            return select_n(which, *cases), bdim
    size = axis_data.size
    if np.shape(which):
        which = batching.bdim_at_front(which, which_bdim, size)
    if any(np.shape(c) for c in cases):
        cases = [batching.bdim_at_front(c, d, size) for c, d in zip(cases, case_dims)]
    case_shape = np.shape(cases[0])
    if 0 < np.ndim(which) < len(case_shape):
        which = shapes.broadcast_in_dim(which, case_shape, (0,))
    if np.ndim(which) > len(case_shape):
        cases = [shapes.broadcast(c, np.shape(which)) for c in cases]
    return select_n(which, *cases), 0


select_n_p.batch = _select_n_batch


def _select_n_physical(buffers, avals_in, avals_out):
    """Key cases (SPEC RNG-20): the selector broadcasts over the key data."""
    which, *cases = buffers
    if np.ndim(which):
        which = which.reshape(which.shape + (1,) * len(avals_in[1].dtype.data_shape))
    return select_n_p.impl(which, *cases)


select_n_p.physical = _select_n_physical
select_n_p.sharding_rule = mesh.elementwise_sharding_rule


def data_axes(rank, aval):
    """The trailing physical-data axes of an extended-dtype array of rank
    ``rank`` (SPEC RNG-20)."""
    return tuple(range(rank, rank + len(aval.dtype.data_shape)))


def physical_same_params(prim):
    """The ``physical`` rule of a primitive whose axis parameters already
    index the leading (element) axes: its impl applies to the data as is."""
    return lambda buffers, avals_in, avals_out, **params: prim.impl(*buffers, **params)


clamp_p = Primitive("clamp")


@clamp_p.def_abstract_eval
def _clamp_abstract_eval(lo, x, hi):
    for i, a in enumerate((lo, x, hi)):
        _check_dtype("clamp", a.dtype, (np.integer, np.bool_, np.floating,
                                         np.complexfloating), i)
    for name, b in (("min", lo), ("max", hi)):
        if b.shape and b.shape != x.shape:
            raise TypeError(f"clamp requires {name}.shape == operand.shape or "
                            f"{name}.shape == (), got {b.shape}.")
    if lo.dtype != x.dtype or hi.dtype != x.dtype:
        raise TypeError("lax.clamp requires arguments to have the same dtypes, "
                        f"got {lo.dtype.name}, {x.dtype.name}, {hi.dtype.name}.")
    return ShapedArray(x.shape, x.dtype, _all_weak((lo, x, hi)))


@clamp_p.def_impl
def _clamp_impl(lo, x, hi):
    """Any dtype, as in JAX.  Complex values compare by their real parts
    alone, a tie keeping ``min`` at the lower bound and the operand at the
    upper one, as XLA's CPU clamp does (SPEC LAX-12)."""
    xp = _xp()
    if x.dtype.kind == "c":
        y = xp.where(x.real > lo.real, x, lo)
        return xp.where(hi.real < y.real, hi, y)
    return xp.minimum(xp.maximum(x, lo), hi)


def clamp(min, x, max):  # noqa: A002
    """``min(max(x, min), max)`` elementwise."""
    return clamp_p.bind(min, x, max)


def _clamp_jvp_part(condition):
    """The tangent of one clamp operand where ``condition`` holds, else 0.

    The conditions are JAX's: the operand's tangent passes strictly inside
    (min, max), min's where x < min < max, max's where max < x; at
    ties no tangent passes (SPEC AD-23).  A scalar bound's tangent is
    broadcast to the operand's shape."""
    def part(g, lo, x, hi):
        shape = core.get_aval(x).shape
        return select(condition(lo, x, hi), _bcast_to(g, shape), _zeros(x))
    return part


ad.defjvp(clamp_p,
          _clamp_jvp_part(lambda lo, x, hi: bitwise_and(gt(lo, x), lt(lo, hi))),
          _clamp_jvp_part(lambda lo, x, hi: bitwise_and(gt(x, lo), lt(x, hi))),
          _clamp_jvp_part(lambda lo, x, hi: lt(hi, x)))


def _clamp_batch(axis_data, vals, dims):
    """Batching of ``clamp`` (SPEC VMAP-30), whose bounds may be scalars.

    Operands batched along one axis, or unbatched scalar bounds around a
    batched operand, need no move (per-example scalar bounds are spread
    over the operand's shape).  Otherwise everything non-scalar is batched
    along the front and scalars are spread to the common shape."""
    lo, x, hi = vals
    lo_dim, x_dim, hi_dim = dims
    if lo_dim == x_dim == hi_dim:
        if np.shape(lo) == np.shape(x) == np.shape(hi) or np.ndim(lo) == np.ndim(hi) == 0:
            return clamp_p.bind(lo, x, hi), x_dim
        if np.ndim(lo) == np.ndim(hi) == 1:
            lo = shapes.broadcast_in_dim(lo, np.shape(x), (lo_dim,))
            hi = shapes.broadcast_in_dim(hi, np.shape(x), (hi_dim,))
            return clamp_p.bind(lo, x, hi), x_dim
    elif np.ndim(lo) == np.ndim(hi) == 0 and x_dim is not None:
        return clamp_p.bind(lo, x, hi), x_dim
    size = axis_data.size
    lo, x, hi = (batching.bdim_at_front(v, d, size) if np.shape(v) else v
                 for v, d in zip(vals, dims))
    shape = np.shape(x)
    # Scalar bounds are spread first, then per-example ones (JAX's order).
    lo, hi = (shapes.broadcast(b, shape) if shape and np.ndim(b) == 0 else b for b in (lo, hi))
    lo, hi = (shapes.broadcast_in_dim(b, shape, (0,)) if 0 < np.ndim(b) < len(shape) else b
              for b in (lo, hi))
    # A scalar operand between per-example bounds takes their shape (JAX
    # 0.10.2 handles only a batched lower bound here).
    widest = builtins.max((lo, hi), key=np.ndim)
    if np.ndim(widest) > len(shape):
        x = shapes.broadcast(x, np.shape(widest))
    return clamp_p.bind(lo, x, hi), 0


clamp_p.batch = _clamp_batch
clamp_p.sharding_rule = mesh.elementwise_sharding_rule


# ---------------------------------------------------------------------------
# Types
# ---------------------------------------------------------------------------

convert_element_type_p = Primitive("convert_element_type")


@convert_element_type_p.def_abstract_eval
def _convert_abstract_eval(x, new_dtype, weak_type, sharding):
    return ShapedArray(x.shape, new_dtype, weak_type)


@convert_element_type_p.def_impl
def _convert_impl(x, new_dtype, weak_type, sharding):
    return casting.convert(x, x.dtype, new_dtype)


convert_element_type_p.pp_params = lambda p: {k: v for k, v in p.items()
                                              if k != "sharding"}


def convert_element_type(operand, new_dtype):
    """Cast to ``new_dtype`` with XLA's rules (SPEC DT-13); never weak.

    ``new_dtype=None`` is a ValueError; a Python complex with a real
    ``new_dtype`` NumPy's TypeError (SPEC LAX-17).  A Python int outside the
    int32 range is cast as :func:`_big_int_cast` says (SPEC LXM-31)."""
    if new_dtype is None:
        raise ValueError("dtype must be specified.")
    if type(operand) is int and operand not in _INT32_RANGE:
        operand = _big_int_cast(operand, new_dtype)
    return _convert_element_type(operand, new_dtype, weak_type=False)


def _big_int_cast(value, new_dtype):
    """A Python int outside the int32 range, cast as NumPy casts it: straight
    to a float, complex or bool ``new_dtype`` (SPEC LAX-12), and modulo
    2**bits to an integer one (``2**32`` to int32 is 0); beyond 64 bits it is
    NumPy's OverflowError (SPEC LXM-31)."""
    target = dtypes.to_dtype(new_dtype)
    if dtypes.issubdtype(target, np.integer) and dtypes.is_valid_jax_dtype(target):
        return np.asarray(value).astype(target)
    return big_int_to(value, new_dtype)


def big_int_to(operand, new_dtype):
    """A Python int outside the int32 range converts straight to a float,
    complex or bool ``new_dtype``: it need not fit an integer type first
    (``jnp.sin(2**70)``, ``erf(2**70)``), as in JAX (SPEC LAX-12)."""
    target = dtypes.to_dtype(new_dtype)
    if target.kind not in "iu" and dtypes.is_valid_jax_dtype(target):
        with np.errstate(over="ignore"):
            return np.asarray(builtins.float(operand)).astype(target)
    return operand


def asarray(x):
    """``lax.asarray``: ``x`` as an Array (or tracer), dtype and weak type kept.

    Arrays and tracers are returned as they are; Python scalars become weak
    0-d arrays, NumPy values strong ones.
    """
    if isinstance(x, Array):
        return x
    if hasattr(x, "__jax_array__"):
        return asarray(x.__jax_array__())
    return _convert_element_type(x, None, core.get_aval(x).weak_type)


def _convert_element_type(operand, new_dtype=None, weak_type=False):
    """Cast ``operand``; scalar constants are folded at trace time (JXP-3).

    Returns ``operand`` itself when dtype and weak type already match and it
    is an array or a tracer of an unknown value; Python scalars become arrays,
    and a tracer of a concrete value (eager ``jvp``) is converted (AD-105).
    """
    if not isinstance(new_dtype, np.dtype):
        pass
    elif operand is None:
        raise _none_operand()
    elif type(operand) is core.ArrayImpl:
        if operand._dtype is new_dtype and operand.weak_type == bool(weak_type):
            return operand      # eager promotion that changes nothing
    elif type(operand) in _FAST_SCALARS:
        fast = _scalar_array(operand, new_dtype, bool(weak_type))
        if fast is not None:
            return fast
    if operand is None:
        raise _none_operand()
    aval = core.get_aval(operand)
    if new_dtype is None:
        new_dtype = aval.dtype
    elif dtypes.is_extended(new_dtype) or dtypes.is_extended(aval.dtype):
        return _convert_extended(operand, aval, new_dtype)
    else:
        new_dtype = dtypes.canonicalize_dtype(
            dtypes.check_user_dtype(new_dtype, "convert_element_type")
            if not isinstance(new_dtype, np.dtype) else new_dtype)
    weak_type = bool(weak_type)
    check_python_complex(operand, new_dtype, weak_type)
    if (aval.dtype, aval.weak_type) == (new_dtype, weak_type):
        if isinstance(operand, core.ArrayImpl) or (
                isinstance(operand, Tracer) and operand.to_concrete_value() is None):
            return operand
        if not isinstance(operand, Tracer):
            return core.wrap_buffer(core.to_buffer(operand), aval)
        # A tracer of a concrete value (eager jvp) is converted, as in JAX:
        # its tangent then comes out an Array, not the Python scalar given.
    if not isinstance(operand, Tracer) and aval.shape == ():
        with core.set_current_trace(core.eval_trace):
            return convert_element_type_p.bind(
                operand, new_dtype=new_dtype, weak_type=weak_type, sharding=None)
    return convert_element_type_p.bind(operand, new_dtype=new_dtype,
                                       weak_type=weak_type, sharding=None)


def check_python_complex(value, new_dtype, weak_type):
    """A Python complex given a strong real or integer dtype is converted
    by NumPy, as JAX converts it: a finite one is NumPy's TypeError
    (``float() argument must be ... not 'complex'``); bool, float0 and
    non-finite values into integers pass (SPEC LAX-17)."""
    if type(value) is not builtins.complex or weak_type or dtypes.is_extended(new_dtype):
        return
    if new_dtype == dtypes.float0 or new_dtype.kind == "c":
        return
    if not np.isfinite(value) and dtypes.issubdtype(new_dtype, np.integer):
        return
    try:
        np.asarray(value, dtype=new_dtype)
    except OverflowError:
        pass


def _none_operand():
    """None where a value to convert is expected: JAX reads its dtype first
    and gives ``ValueError`` (SPEC LAX-12)."""
    return ValueError("Invalid argument to dtype: None.")


_FAST_SCALARS = (int, float)
_INT32_RANGE = range(-2**31, 2**31)
_FLOAT32_MAX = builtins.float(np.finfo(np.float32).max)
_INF = builtins.float("inf")


def _scalar_array(value, dtype, weak_type):
    """Python ``value`` as a 0-d array of ``dtype`` when that conversion is
    exact in kind and cannot overflow (the ``x * 2`` of eager code, SPEC
    PERF-1); None leaves every other case to ``convert_element_type``."""
    kind = dtype.kind
    if type(value) is int:
        if value not in _INT32_RANGE:
            return None         # range checks and wrapping: the general path
        if kind in "iu":
            info = _int_bounds(dtype)
            if not info[0] <= value <= info[1]:
                return None
        elif kind not in "fc":
            return None
    elif kind not in "fc" or (dtype.itemsize < 8 and _FLOAT32_MAX < builtins.abs(value)
                              < _INF):
        return None             # float to int, or overflow to inf
    if dtype.itemsize < 4 and kind in "fc":
        return None             # half precision: rounding through casting.convert
    buffer = _backend.get().asarray(np.asarray(value, dtype))
    return core.ArrayImpl(buffer, dtype, weak_type)


_INT_BOUNDS = {}


def _int_bounds(dtype):
    bounds = _INT_BOUNDS.get(dtype)
    if bounds is None:
        info = np.iinfo(dtype)
        bounds = _INT_BOUNDS[dtype] = (int(info.min), int(info.max))
    return bounds


def _convert_extended(operand, aval, new_dtype):
    """Key arrays convert only to their own dtype (SPEC RNG-7)."""
    if aval.dtype == new_dtype:
        return operand
    name = getattr(new_dtype, "name", None) or np.dtype(new_dtype).name
    raise ValueError(f"Cannot convert_element_type from {aval.dtype.name} to {name}")


def _convert_jvp(primals, tangents, new_dtype, weak_type, sharding):
    """The tangent converted like the value; zero when the new dtype is
    integer or boolean (SPEC AD-20)."""
    out = convert_element_type_p.bind(*primals, new_dtype=new_dtype,
                                      weak_type=weak_type, sharding=sharding)
    if ad.tangent_dtype(new_dtype) == ad.float0:
        return out, ad.Zero.from_primal_value(out)
    # Through _convert_element_type, so a tangent already of that type is
    # passed on, not staged as a no-op conversion (JAX's linear jaxprs).
    if sharding is None:
        return out, _convert_element_type(tangents[0], new_dtype, weak_type)
    return out, convert_element_type_p.bind(tangents[0], new_dtype=new_dtype,
                                            weak_type=weak_type, sharding=sharding)


def _convert_transpose(ct, operand, new_dtype, weak_type, sharding):
    """Convert the cotangent back to the operand's dtype (a complex one to
    a real dtype keeps its real part); integer operands get zero
    (SPEC AD-21)."""
    aval = operand.aval
    if type(ct) is ad.Zero or ad.tangent_dtype(aval.dtype) == ad.float0:
        return [ad.Zero(ad.tangent_aval(aval))]
    return [convert_element_type_p.bind(ct, new_dtype=aval.dtype,
                                        weak_type=aval.weak_type, sharding=None)]


convert_element_type_p.jvp = _convert_jvp
convert_element_type_p.transpose = _convert_transpose
# Each element is converted alone, dtype and weak type as given (SPEC VMAP-28).
batching.defvectorized(convert_element_type_p)
convert_element_type_p.sharding_rule = mesh.elementwise_sharding_rule
convert_element_type_p.key_reuse = kr.FORWARD   # SPEC RNG-66


# Reinterpreting bits lives in its own module (SPEC LXM-32).
bitcast_convert_type_p = bitcast.bitcast_convert_type_p
bitcast_convert_type = bitcast.bitcast_convert_type


# ---------------------------------------------------------------------------
# Filled arrays
# ---------------------------------------------------------------------------

def full(shape, fill_value, dtype=None, *, sharding=None):
    """An array of ``shape`` filled with ``fill_value`` (a broadcast scalar)."""
    shape = shapes._static_shape(shape)
    if np.shape(fill_value):
        raise TypeError(f"full must be called with scalar fill_value, got "
                        f"fill_value.shape {np.shape(fill_value)}.")
    weak = dtype is None and core.get_aval(fill_value).weak_type
    fill = _convert_element_type(_big_int_as(fill_value, dtype), dtype, weak)
    return shapes.broadcast(fill, shape)


def _big_int_as(value, dtype):
    """A Python int beyond int32 cast to a requested ``dtype`` as
    ``convert_element_type`` casts it, as JAX casts fill values (SPEC LAX-17)."""
    if type(value) is int and value not in _INT32_RANGE and dtype is not None \
            and not dtypes.is_extended(dtype):
        return _big_int_cast(value, dtype)
    return value


def full_like(x, fill_value, dtype=None, shape=None, sharding=None):
    """Like ``full``, taking the shape, dtype and weak type of ``x`` by default."""
    if x is None:
        raise _none_operand()
    aval = core.get_aval(x)
    keep_place = shape is None and sharding is None
    shape = aval.shape if shape is None else shapes._static_shape(shape)
    if np.shape(fill_value):
        raise TypeError(f"full must be called with scalar fill_value, got "
                        f"fill_value.shape {np.shape(fill_value)}.")
    weak = dtype is None and aval.weak_type
    target = aval.dtype if dtype is None else dtype
    fill = _convert_element_type(_big_int_as(fill_value, target), target, weak)
    out = shapes.broadcast(fill, shape)
    # A committed array's copy-alike stays where it is, as in JAX (NP-226).
    if keep_place and not weak and getattr(x, "_committed", False):
        out = placement.device_put(out, x.sharding)
    return out


def reciprocal(x):
    """``1 / x`` as ``integer_pow(x, -1)``."""
    return integer_pow(x, -1)


def collapse(operand, start_dimension, stop_dimension=None):
    """Merge axes ``start_dimension:stop_dimension`` into one; the bounds
    read as a Python slice of the axes (``None``, negative, clipped), and a
    bound that is not an integer or None is a TypeError (SPEC LAX-12)."""
    shape = core.get_aval(operand).shape
    start, stop, _ = builtins.slice(start_dimension, stop_dimension).indices(len(shape))
    if stop < start:
        raise ValueError(f"Invalid dimension range passed to collapse: "
                         f"{shape}[{start}:{stop}]")
    size = math.prod(shape[start:stop])
    return shapes.reshape(operand, shape[:start] + (size,) + shape[stop:])


from refjax._src.lax import reductions, shapes  # noqa: E402
