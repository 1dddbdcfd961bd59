"""Reductions of ``jax.numpy`` (SPEC NP-5 .. NP-15, NP-28).

Every reduction goes through :func:`_reduction`, which states JAX's rules
once: the ``axis`` argument (None, int, tuple, negative; duplicates and
out-of-range axes rejected), ``where=`` masks (filled with the reduction's
identity), ``initial=`` (combined after reducing), ``keepdims``, ``dtype=``,
the integer promotion of ``sum``/``prod`` and the float16 upcast, and the
``out=`` argument JAX does not support.  The primitive bound is the monoid
reduction of the operation (``reduce_sum`` for ``add`` ...).

Reductions JAX defines under ``jit(inline=True)`` are plain functions here;
those under a plain ``jit`` (``_var``, ``_std``, ``_ptp``, ``nansum``,
``cumsum``, ``quantile`` ...) are wrapped by refjax's ``jit`` with the same
name (SPEC NP-27).
"""
import builtins
import math
import operator

import numpy as np

from refjax._src import core, dtypes, tree_util
from refjax._src.api import jit
from refjax._src.interpreters.ad import stop_gradient
from refjax._src.lax import lax
from refjax._src.lax import reductions as lax_reductions
from refjax._src.lax import shapes as lax_shapes
from refjax._src.lax import sorting
from refjax._src.numpy import ufuncs, util
from refjax._src.numpy.util import _where, check_where


def _reject_out(name, out, traced=False):
    """JAX arrays are immutable: ``out=`` is refused (SPEC NP-5).

    Where JAX passes ``out`` to its jitted kernel as an array argument
    (``traced``), a value that is no array at all (a slice, a string) is the
    TypeError of that argument first, as in JAX (SPEC NP-72).
    """
    if out is None:
        return
    if traced and not (hasattr(out, "shape") and hasattr(out, "dtype")):
        try:
            for leaf in tree_util.tree_leaves(out):     # a pytree argument
                core.get_aval(leaf)
        except TypeError:
            raise TypeError(
                f"Error interpreting argument `out` to jnp.{name} as an abstract "
                f"array. The problematic value is of type {type(out)}; `out` must "
                "be left as None (JAX arrays are immutable: use the result).") from None
    raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")

__all__ = [
    "all", "amax", "amin", "any", "argmax", "argmin", "average",
    "count_nonzero", "cumprod", "cumsum", "cumulative_prod", "cumulative_sum",
    "max", "mean", "median", "min", "nanargmax", "nanargmin", "nancumprod",
    "nancumsum", "nanmax", "nanmean", "nanmedian", "nanmin", "nanpercentile",
    "nanprod", "nanquantile", "nanstd", "nansum", "nanvar", "percentile",
    "prod", "ptp", "quantile", "std", "sum", "var",
]


def _dtype(x):
    return util._aval(x).dtype


def _shape(x):
    return util._aval(x).shape


def _ndim(x):
    return len(util._aval(x).shape)


# ---------------------------------------------------------------------------
# The reduction machinery (SPEC NP-5)
# ---------------------------------------------------------------------------

class _Monoid:
    """A binary operation and the ``lax`` reduction it defines."""

    __slots__ = ("op", "reduce")

    def __init__(self, op, reduce):
        self.op, self.reduce = op, reduce


_ADD = _Monoid(lax.add, lax_reductions.reduce_sum)
_MUL = _Monoid(lax.mul, lax_reductions.reduce_prod)
_MAX = _Monoid(lax.max, lax_reductions.reduce_max)
_MIN = _Monoid(lax.min, lax_reductions.reduce_min)
_AND = _Monoid(lax.bitwise_and, lax_reductions.reduce_and)
_OR = _Monoid(lax.bitwise_or, lax_reductions.reduce_or)
_XOR = _Monoid(lax.bitwise_xor, lax_reductions.reduce_xor)


def _ensure_optional_axes(axis):
    """``axis`` as None, an int or a tuple of ints; it must be static."""
    def force(x):
        if x is None:
            return None
        try:
            return operator.index(x)
        except TypeError:
            return tuple(operator.index(i) for i in x)
    return core.concrete_or_error(force, axis, "The axis argument must be known statically.")


def _reduction_dims(a, axis):
    """The canonical (non-negative) axes to reduce; ValueError on duplicates."""
    ndim = _ndim(a)
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, (tuple, list, np.ndarray)) else (axis,)
    canon = tuple(core.canonicalize_axis(x, ndim) for x in axes)
    if len(canon) != len(set(canon)):
        raise ValueError(f"duplicate value in 'axis': {axis}")
    return canon


def _canonical_axis_tuple(a, axis):
    """Canonical axes; duplicates are ``ValueError: repeated axis: ...``."""
    axes = axis if isinstance(axis, tuple) else (axis,)
    # ``None`` is an empty pytree to JAX's jit, not a bad array: its axes
    # are those of a 0-d value (SPEC NP-72).
    ndim = 0 if a is None else _ndim(a)
    canon = tuple(core.canonicalize_axis(x, ndim) for x in axes)
    if len(set(canon)) != len(canon):
        raise ValueError(f"repeated axis: {axis}")
    return canon


def _upcast_f16(dtype):
    """float16 and bfloat16 accumulate in float32 (SPEC NP-6)."""
    if np.dtype(dtype) in (np.dtype(np.float16), dtypes.bfloat16):
        return np.dtype(np.float32)
    return np.dtype(dtype)


def _promote_integer_dtype(dtype):
    """bool and narrow integers become the default (u)int (SPEC NP-6)."""
    if dtype == dtypes.bool_:
        return dtypes.default_int_dtype()
    if dtypes.issubdtype(dtype, np.unsignedinteger):
        wide = dtypes.default_uint_dtype()
        return wide if dtypes.iinfo(dtype).bits < dtypes.iinfo(wide).bits else dtype
    if dtypes.issubdtype(dtype, np.integer):
        wide = dtypes.default_int_dtype()
        return wide if dtypes.iinfo(dtype).bits < dtypes.iinfo(wide).bits else dtype
    return dtype


def _reduction_init_val(a, init_val):
    """The identity ``init_val`` as a constant of ``a``'s dtype; infinities
    become the integer extremes for integer dtypes."""
    dt = _dtype(a)
    if dt == dtypes.bool_:
        return np.array(init_val > 0, dtype=dt)
    try:
        with np.errstate(invalid="ignore"):
            return np.array(init_val, dtype=dt)
    except OverflowError:
        info = dtypes.iinfo(dt)
        return np.array(info.min if np.sign(init_val) < 0 else info.max, dtype=dt)


def _cast_to_bool(x):
    if dtypes.issubdtype(_dtype(x), np.complexfloating):
        x = lax.real(x)
    return lax.convert_element_type(x, np.bool_)


def _cast_to_numeric(x):
    return util.promote_dtypes_numeric(x)[0]


def _require_integer(x):
    dt = _dtype(x)
    if not (dt == dtypes.bool_ or dtypes.issubdtype(dt, np.integer)):
        raise ValueError(f"integer argument required; got dtype={dt}")
    return x


def _reduction(a, name, monoid, init_val, *, has_identity=True, preproc=None,
               bool_monoid=None, upcast_f16_for_computation=False, axis=None,
               dtype=None, out=None, keepdims=False, initial=None, where_=None,
               promote_integers=False):
    """Reduce ``a`` over ``axis`` with ``monoid`` (SPEC NP-5 .. NP-7, NP-15).

    Steps, as JAX takes them: reject ``out``; check ``where``; preprocess
    (cast to numeric/bool); pick the result dtype (``dtype=``, or the input's,
    integer-promoted for sum/prod) and the computation dtype (float16 upcast);
    convert; fill masked-out elements with the identity; reduce; combine with
    ``initial``; restore reduced axes for ``keepdims``; convert to the result
    dtype.
    """
    _reject_out(name, out, traced=True)
    util.check_static(dtype, keepdims, promote_integers)   # before the body, as jit
    a = util.ensure_arraylike(name, a)
    where_ = check_where(name, where_)
    if initial is None and not has_identity and where_ is not None:
        raise ValueError(f"reduction operation {name} does not have an identity, so "
                         "to use a where mask one has to specify 'initial'")
    if preproc is not None:
        a = preproc(a)
    dims = _reduction_dims(a, axis)
    if initial is None and not has_identity:
        shape = _shape(a)
        if not builtins.all(shape[d] >= 1 for d in dims):
            raise ValueError(f"zero-size array to reduction operation {name} "
                             "which has no identity")
    if dtype is None:
        result_dtype = _dtype(a)
        if promote_integers:
            result_dtype = _promote_integer_dtype(result_dtype)
    else:
        result_dtype = dtypes.check_user_dtype(dtype, name)
    computation_dtype = result_dtype
    if upcast_f16_for_computation and dtypes.issubdtype(result_dtype, np.inexact):
        computation_dtype = _upcast_f16(result_dtype)
    a = lax.convert_element_type(a, computation_dtype)
    if computation_dtype == dtypes.bool_ and bool_monoid is not None:
        monoid = bool_monoid
    init = _reduction_init_val(a, init_val)
    if where_ is not None:
        a = _where(where_, a, init)
    result = monoid.reduce(a, dims)
    if initial is not None:
        initial_arr = lax.convert_element_type(initial, _dtype(a))
        if _shape(initial_arr) != ():
            raise ValueError("initial value must be a scalar. Got array of shape "
                             f"{_shape(initial_arr)}")
        result = monoid.op(initial_arr, result)
    if keepdims:
        result = lax_shapes.expand_dims(result, dims)
    return lax.convert_element_type(result, result_dtype)


# ---------------------------------------------------------------------------
# sum, prod, max, min, all, any (SPEC NP-6 .. NP-8)
# ---------------------------------------------------------------------------

def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None,  # noqa: A001
        where=None, promote_integers=True):
    """Sum over ``axis``.  Booleans and integers narrower than the default
    int accumulate in the default (u)int; float16 accumulates in float32 and
    is returned as float16; a boolean ``dtype=`` means logical or (SPEC NP-6)."""
    return _reduction(a, "sum", _ADD, 0, preproc=_cast_to_numeric, bool_monoid=_OR,
                      upcast_f16_for_computation=dtype is None,
                      axis=_ensure_optional_axes(axis), dtype=dtype, out=out,
                      keepdims=keepdims, initial=initial, where_=where,
                      promote_integers=promote_integers)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None,
         where=None, promote_integers=True):
    """Product over ``axis``, with the dtype rules of ``sum`` (SPEC NP-6)."""
    return _reduction(a, "prod", _MUL, 1, preproc=_cast_to_numeric, bool_monoid=_AND,
                      upcast_f16_for_computation=dtype is None,
                      axis=_ensure_optional_axes(axis), dtype=dtype, out=out,
                      keepdims=keepdims, initial=initial, where_=where,
                      promote_integers=promote_integers)


def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
    """Largest element; NaN propagates.  No identity: an empty reduction or a
    ``where`` mask without ``initial`` is a ValueError (SPEC NP-7)."""
    return _reduction(a, "max", _MAX, -np.inf, has_identity=False,
                      axis=_ensure_optional_axes(axis), out=out, keepdims=keepdims,
                      initial=initial, where_=where)


def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
    """Smallest element; NaN propagates (SPEC NP-7)."""
    return _reduction(a, "min", _MIN, np.inf, has_identity=False,
                      axis=_ensure_optional_axes(axis), out=out, keepdims=keepdims,
                      initial=initial, where_=where)


def amax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Alias of ``max``."""
    return max(a, axis=axis, out=out, keepdims=keepdims, initial=initial, where=where)


def amin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Alias of ``min``."""
    return min(a, axis=axis, out=out, keepdims=keepdims, initial=initial, where=where)


def all(a, axis=None, out=None, keepdims=False, *, where=None):  # noqa: A001
    """Whether every element is true (non-zero); the input is cast to bool
    (a complex number by its real part) (SPEC NP-8)."""
    return _reduction(a, "all", _AND, True, preproc=_cast_to_bool,
                      axis=_ensure_optional_axes(axis), out=out, keepdims=keepdims,
                      where_=where)


def any(a, axis=None, out=None, keepdims=False, *, where=None):  # noqa: A001
    """Whether some element is true (non-zero) (SPEC NP-8)."""
    return _reduction(a, "any", _OR, False, preproc=_cast_to_bool,
                      axis=_ensure_optional_axes(axis), out=out, keepdims=keepdims,
                      where_=where)


# The reductions behind ``jnp.maximum.reduce``, ``jnp.bitwise_and.reduce``,
# ``jnp.logaddexp.reduce`` ... (SPEC NP-3).

def _reduce_max(a, axis=None, dtype=None, out=None, keepdims=False, initial=None,
                where=None):
    return _reduction(a, "max", _MAX, -np.inf, has_identity=False,
                      axis=_ensure_optional_axes(axis), dtype=dtype, out=out,
                      keepdims=keepdims, initial=initial, where_=where)


def _reduce_min(a, axis=None, dtype=None, out=None, keepdims=False, initial=None,
                where=None):
    return _reduction(a, "min", _MIN, np.inf, has_identity=False,
                      axis=_ensure_optional_axes(axis), dtype=dtype, out=out,
                      keepdims=keepdims, initial=initial, where_=where)


def _bitwise_reduction(name, monoid, init_val, preproc):
    def reduce(a, axis=None, dtype=None, out=None, keepdims=False, initial=None,
               where=None):
        a = util.asarray(a)
        init = init_val
        if name == "reduce_bitwise_and":
            init = np.array(-1).astype(dtype or _dtype(a))
        return _reduction(a, name, monoid, init, preproc=preproc,
                          axis=_ensure_optional_axes(axis), dtype=dtype, out=out,
                          keepdims=keepdims, initial=initial, where_=where)
    return _named(reduce, f"_{name}")


def _logsumexp(a, axis=None, dtype=None, out=None, keepdims=False, initial=None,
               where=None):
    """``log(sum(exp(a)))`` computed around the maximum (``logaddexp.reduce``)."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.logaddexp.reduce is not "
                                  "supported.")
    if dtype is not None:
        dtypes.check_user_dtype(dtype, "jnp.logaddexp.reduce")
    a = util.ensure_arraylike("logsumexp", a)
    where = check_where("logsumexp", where)
    a, = util.promote_dtypes_inexact(a)
    dims = _reduction_dims(a, axis)
    amax = max(ufuncs.real(a), axis=dims, keepdims=keepdims, where=where, initial=-np.inf)
    amax = lax.select(lax.is_finite(amax), amax, util._zeros(amax))
    # The shift only guards against overflow: it is not differentiated (SPEC AD-76).
    amax = stop_gradient(amax)
    amax_with_dims = amax if keepdims else lax_shapes.expand_dims(amax, dims)
    exp_a = lax.exp(lax.sub(a, lax.convert_element_type(amax_with_dims, _dtype(a))))
    sumexp = sum(exp_a, axis=dims, keepdims=keepdims, where=where)
    result = lax.add(lax.log(sumexp), lax.convert_element_type(amax, _dtype(sumexp)))
    return result if initial is None else ufuncs.logaddexp(initial, result)


def _logsumexp2(a, axis=None, dtype=None, out=None, keepdims=False, initial=None,
                where=None):
    """``log2(sum(2**a))`` (``logaddexp2.reduce``)."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.logaddexp2.reduce is not "
                                  "supported.")
    a = util.ensure_arraylike("logsumexp2", a)
    ln2 = float(np.log(2))
    if initial is not None:
        initial = ufuncs.multiply(initial, ln2)
    return ufuncs.true_divide(_logsumexp(ufuncs.multiply(a, ln2), axis=axis, dtype=dtype,
                                         keepdims=keepdims, where=where, initial=initial),
                              ln2)


# ---------------------------------------------------------------------------
# mean, average, var, std, ptp, count_nonzero (SPEC NP-9, NP-10, NP-28)
# ---------------------------------------------------------------------------

def _axis_size(a, axis):
    # Plain indexing, as JAX does: an out-of-range axis is an IndexError here.
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    shape = _shape(a)
    return math.prod(shape[i] for i in axes)


def _count(a, axis, keepdims, where, dtype):
    """The number of elements reduced: a constant, or ``sum(where)``."""
    if where is None:
        size = math.prod(_shape(a)) if axis is None else _axis_size(a, axis)
        return lax.convert_element_type(size, dtype)
    return sum(util._broadcast_to(where, _shape(a)), axis, dtype=dtype, keepdims=keepdims)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """``sum / count`` in an inexact dtype (SPEC NP-9).

    Integers and booleans average in the default float dtype; float16 sums
    in float32.  With ``where`` the count is the number of selected elements;
    an empty reduction gives NaN.
    """
    return _mean(a, _ensure_optional_axes(axis), dtype, out, keepdims, where=where,
                 upcast_f16_for_computation=dtype is None)


def _mean(a, axis=None, dtype=None, out=None, keepdims=False, *,
          upcast_f16_for_computation=True, where=None):
    a = util.ensure_arraylike("mean", a)
    where = check_where("mean", where)
    _reject_out("mean", out, traced=True)
    util.check_static(dtype, keepdims)
    if dtype is None:
        result_dtype = util.to_inexact_dtype(_dtype(a))
    else:
        result_dtype = dtypes.check_user_dtype(dtype, "mean")
    computation_dtype = result_dtype
    if upcast_f16_for_computation and dtypes.issubdtype(result_dtype, np.inexact):
        computation_dtype = _upcast_f16(result_dtype)
    normalizer = _count(a, axis, keepdims, where, computation_dtype)
    total = sum(a, axis, dtype=computation_dtype, keepdims=keepdims, where=where)
    return lax.convert_element_type(lax.div(total, normalizer), result_dtype)


def average(a, axis=None, weights=None, returned=False, keepdims=False):
    """Weighted mean ``sum(a * w) / sum(w)`` (SPEC NP-28).

    Without weights it is ``mean`` and the weight sum is the element count.
    1-d weights along a single ``axis`` broadcast against ``a``; other
    mismatched shapes are a ValueError.  ``returned=True`` also gives the
    weight sum, broadcast to the result's shape.
    """
    return _average(a, _ensure_optional_axes(axis), weights, returned, keepdims)


def _average(a, axis=None, weights=None, returned=False, keepdims=False):
    util.check_static(returned, keepdims)
    axis_tuple = None if axis is None else _canonical_axis_tuple(a, axis)
    if weights is None:
        a = util.ensure_arraylike("average", a)
        a, = util.promote_dtypes_inexact(a)
        avg = mean(a, axis=axis, keepdims=keepdims)
        count = (math.prod(_shape(a)) if axis is None else
                 math.prod(_shape(a)[d] for d in axis_tuple))
        weights_sum = util._full_like(avg, count, dtype=_dtype(avg), shape=())
    else:
        a, weights = util.ensure_arraylike("average", a, weights)
        a, weights = util.promote_dtypes_inexact(a, weights)
        if _shape(a) != _shape(weights):
            if axis is None:
                raise ValueError("Axis must be specified when shapes of a and "
                                 "weights differ.")
            if _shape(weights) != tuple(_shape(a)[ax] for ax in axis_tuple):
                raise ValueError("Shape of weights must be consistent with shape "
                                 "of a along specified axis.")
            new_shape = tuple(d if i in axis_tuple else 1
                              for i, d in enumerate(_shape(a)))
            weights = lax_shapes.reshape(weights, new_shape,
                                  dimensions=tuple(int(i) for i in np.argsort(axis_tuple)))
        weights_sum = sum(weights, axis=axis, keepdims=keepdims)
        avg = ufuncs.true_divide(sum(ufuncs.multiply(a, weights), axis=axis,
                                     keepdims=keepdims), weights_sum)
    if returned:
        if _shape(avg) != _shape(weights_sum):
            weights_sum = util._broadcast_to(weights_sum, _shape(avg))
        return avg, weights_sum
    return avg


def _var_promote_types(a_dtype, dtype):
    """(computation dtype, result dtype) of ``var``: integers in the default
    float; complex gives its real dtype; float16 computes in float32."""
    if dtype is not None:
        if (not dtypes.issubdtype(dtype, np.complexfloating)
                and dtypes.issubdtype(a_dtype, np.complexfloating)):
            raise ValueError(
                "jax.numpy.var does not yet support real dtype parameters when "
                "computing the variance of an array of complex values. The "
                "semantics of numpy.var seem unclear in this case. Please comment "
                "on https://github.com/jax-ml/jax/issues/2283 if this behavior is "
                "important to you.")
        computation_dtype = dtype
    elif not dtypes.issubdtype(a_dtype, np.inexact):
        dtype = util.to_inexact_dtype(a_dtype)
        computation_dtype = dtype
    else:
        dtype = np.finfo(a_dtype).dtype if a_dtype.kind == "c" else a_dtype
        computation_dtype = a_dtype
    return _upcast_f16(computation_dtype), np.dtype(dtype)


def _correction(ddof, correction):
    if correction is None:
        return ddof
    if not isinstance(ddof, int) or ddof != 0:
        raise ValueError("ddof and correction can't be provided simultaneously.")
    return correction


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *,
        where=None, mean=None, correction=None):
    """Variance: ``sum(|a - mean|**2) / (count - correction)`` (SPEC NP-10).

    ``correction`` is NumPy 2's name for ``ddof`` (giving both is a
    ValueError).  Where ``count - correction <= 0`` the result is NaN.
    """
    correction = _correction(ddof, correction)
    a = util.ensure_arraylike("var", a)
    return _var(a, axis=_ensure_optional_axes(axis), dtype=dtype, out=out,
                correction=correction, keepdims=keepdims, where=where, a_mean=mean)


def _var_impl(a, *, axis=None, dtype=None, out=None, correction=0, keepdims=False,
              where=None, a_mean=None):
    where = check_where("var", where)
    if dtype is not None:
        dtype = dtypes.check_user_dtype(dtype, "var")
    _reject_out("var", out)
    computation_dtype, dtype = _var_promote_types(_dtype(a), dtype)
    a = lax.convert_element_type(a, computation_dtype)
    if a_mean is None:
        a_mean = mean(a, axis, dtype=computation_dtype, keepdims=True, where=where)
    else:
        a_mean = lax.convert_element_type(util.ensure_arraylike("var", a_mean),
                                          computation_dtype)
    centered = lax.sub(a, a_mean)
    if dtypes.issubdtype(computation_dtype, np.complexfloating):
        centered = lax.real(lax.mul(centered, lax.conj(centered)))
        computation_dtype = _dtype(centered)
    else:
        centered = lax.square(centered)
    normalizer = _count(a, axis, keepdims, where, computation_dtype)
    normalizer = lax.sub(normalizer, lax.convert_element_type(correction, computation_dtype))
    result = sum(centered, axis, dtype=computation_dtype, keepdims=keepdims, where=where)
    result = lax.convert_element_type(lax.div(result, normalizer), dtype)
    return _where(ufuncs.greater(normalizer, 0), result, np.nan)


def _named(fn, name):
    fn.__name__ = fn.__qualname__ = name
    return fn


_var = jit(_named(_var_impl, "_var"), static_argnames=("axis", "dtype", "keepdims"))


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *,
        where=None, mean=None, correction=None):
    """``sqrt(var(...))``; ``dtype`` must be inexact (SPEC NP-10)."""
    correction = _correction(ddof, correction)
    a = util.ensure_arraylike("std", a)
    return _std(a, axis=_ensure_optional_axes(axis), dtype=dtype, out=out,
                correction=correction, keepdims=keepdims, where=where, mean=mean)


def _std_impl(a, *, axis=None, dtype=None, out=None, correction=0, keepdims=False,
              where=None, mean=None):
    where = check_where("std", where)
    if dtype is not None:
        dtype = dtypes.check_user_dtype(dtype, "std")
        if not dtypes.issubdtype(dtype, np.inexact):
            raise ValueError(f"dtype argument to jnp.std must be inexact; got {dtype}")
    _reject_out("std", out)
    return lax.sqrt(var(a, axis=axis, dtype=dtype, correction=correction,
                        keepdims=keepdims, where=where, mean=mean))


_std = jit(_named(_std_impl, "_std"), static_argnames=("axis", "dtype", "keepdims"))


def ptp(a, axis=None, out=None, keepdims=False):
    """Peak to peak: ``max - min`` over ``axis`` (SPEC NP-7)."""
    a = util.ensure_arraylike("ptp", a)
    return _ptp(a, _ensure_optional_axes(axis), out, keepdims)


def _ptp_impl(a, axis=None, out=None, keepdims=False):
    _reject_out("ptp", out)
    return lax.sub(amax(a, axis=axis, keepdims=keepdims),
                   amin(a, axis=axis, keepdims=keepdims))


_ptp = jit(_named(_ptp_impl, "_ptp"), static_argnames=("axis", "keepdims"))


def _count_nonzero(a, axis=None, keepdims=False):
    """Number of non-zero elements, in the default int dtype (SPEC NP-8)."""
    a = util.ensure_arraylike("count_nonzero", a)
    return sum(lax.ne(a, util._const(a, 0)), axis=axis,
               dtype=dtypes.default_int_dtype(), keepdims=keepdims)


count_nonzero = jit(_named(_count_nonzero, "count_nonzero"),
                    static_argnames=("axis", "keepdims"))


_reduce_bitwise_and = _bitwise_reduction("reduce_bitwise_and", _AND, -1, _require_integer)
_reduce_bitwise_or = _bitwise_reduction("reduce_bitwise_or", _OR, 0, _require_integer)
_reduce_bitwise_xor = _bitwise_reduction("reduce_bitwise_xor", _XOR, 0, _require_integer)
_reduce_logical_and = _bitwise_reduction("reduce_logical_and", _AND, True, _cast_to_bool)
_reduce_logical_or = _bitwise_reduction("reduce_logical_or", _OR, False, _cast_to_bool)
_reduce_logical_xor = _bitwise_reduction("reduce_logical_xor", _XOR, False, _cast_to_bool)


# ---------------------------------------------------------------------------
# argmax, argmin (SPEC NP-11)
# ---------------------------------------------------------------------------

def _arg_reduce(name, lax_fn, a, axis, out, keepdims):
    a = util.ensure_arraylike(name, a)
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")
    axis = None if axis is None else operator.index(axis)
    if axis is None:
        dims = tuple(range(_ndim(a)))
        a = lax_shapes.reshape(a, (math.prod(_shape(a)),))
        axis = 0
    else:
        dims = (axis,)
    if _shape(a)[axis] == 0:   # an out-of-range axis is an IndexError here
        raise ValueError(f"attempt to get {name} of an empty sequence")
    result = lax_fn(a, core.canonicalize_axis(axis, _ndim(a)), dtypes.default_int_dtype())
    return lax_shapes.expand_dims(result, dims) if keepdims else result


def argmax(a, axis=None, out=None, keepdims=None):
    """Index of the first largest element (NaN counts as largest); with no
    axis, of the flattened array; in the default int dtype (SPEC NP-11)."""
    return _arg_reduce("argmax", lax_reductions.argmax, a, axis, out, bool(keepdims))


def argmin(a, axis=None, out=None, keepdims=None):
    """Index of the first smallest element (NaN counts as smallest)."""
    return _arg_reduce("argmin", lax_reductions.argmin, a, axis, out, bool(keepdims))


def _nanarg(name, arg_fn, fill):
    def impl(a, axis=None, keepdims=False):
        if not dtypes.issubdtype(_dtype(a), np.inexact):
            return arg_fn(a, axis=axis, keepdims=keepdims)
        nan_mask = util._isnan(a)
        res = arg_fn(_where(nan_mask, fill, a), axis=axis, keepdims=keepdims)
        return _where(all(nan_mask, axis=axis, keepdims=keepdims), -1, res)
    return jit(_named(impl, f"_{name}"), static_argnames=("axis", "keepdims"))


_nanargmax = _nanarg("nanargmax", argmax, -np.inf)
_nanargmin = _nanarg("nanargmin", argmin, np.inf)


def nanargmax(a, axis=None, out=None, keepdims=None):
    """``argmax`` ignoring NaN; -1 where every element is NaN (SPEC NP-13)."""
    _reject_out("nanargmax", out)
    a = util.ensure_arraylike("nanargmax", a)
    return _nanargmax(a, None if axis is None else operator.index(axis),
                      keepdims=bool(keepdims))


def nanargmin(a, axis=None, out=None, keepdims=None):
    """``argmin`` ignoring NaN; -1 where every element is NaN (SPEC NP-13)."""
    _reject_out("nanargmin", out)
    a = util.ensure_arraylike("nanargmin", a)
    return _nanargmin(a, None if axis is None else operator.index(axis),
                      keepdims=bool(keepdims))


# ---------------------------------------------------------------------------
# NaN-ignoring reductions (SPEC NP-13)
# ---------------------------------------------------------------------------

def _nan_reduction(a, name, reduction, init_val, nan_if_all_nan, axis=None,
                   keepdims=False, where=None, **kwargs):
    """``reduction`` with NaNs replaced by its identity; for max/min a slice
    of only NaNs gives NaN.  Integer inputs reduce unchanged."""
    a = util.ensure_arraylike(name, a)
    where = check_where(name, where)
    if not dtypes.issubdtype(_dtype(a), np.inexact):
        return reduction(a, axis=axis, keepdims=keepdims, where=where, **kwargs)
    filled = _where(util._isnan(a), _reduction_init_val(a, init_val), a)
    out = reduction(filled, axis=axis, keepdims=keepdims, where=where, **kwargs)
    if nan_if_all_nan:
        return _where(all(util._isnan(a), axis=axis, keepdims=keepdims),
                      util._const(a, np.nan), out)
    return out


def _nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    return _nan_reduction(a, "nanmin", min, np.inf, nan_if_all_nan=initial is None,
                          axis=axis, out=out, keepdims=keepdims, initial=initial,
                          where=where)


def _nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    return _nan_reduction(a, "nanmax", max, -np.inf, nan_if_all_nan=initial is None,
                          axis=axis, out=out, keepdims=keepdims, initial=initial,
                          where=where)


def _nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None,
            where=None):
    if dtype is not None:
        dtype = dtypes.check_user_dtype(dtype, "nanprod")
    return _nan_reduction(a, "nansum", sum, 0, nan_if_all_nan=False, axis=axis,
                          dtype=dtype, out=out, keepdims=keepdims, initial=initial,
                          where=where)


def _nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None,
             where=None):
    if dtype is not None:
        dtype = dtypes.check_user_dtype(dtype, "nanprod")
    return _nan_reduction(a, "nanprod", prod, 1, nan_if_all_nan=False, axis=axis,
                          dtype=dtype, out=out, keepdims=keepdims, initial=initial,
                          where=where)


nanmin = jit(_named(_nanmin, "nanmin"), static_argnames=("axis", "keepdims"))
nanmax = jit(_named(_nanmax, "nanmax"), static_argnames=("axis", "keepdims"))
nansum = jit(_named(_nansum, "nansum"), static_argnames=("axis", "dtype", "keepdims"))
nanprod = jit(_named(_nanprod, "nanprod"), static_argnames=("axis", "dtype", "keepdims"))
nanmin.__doc__ = "``min`` ignoring NaN; NaN where a slice is all NaN (SPEC NP-13)."
nanmax.__doc__ = "``max`` ignoring NaN; NaN where a slice is all NaN (SPEC NP-13)."
nansum.__doc__ = "``sum`` treating NaN as zero (SPEC NP-13)."
nanprod.__doc__ = "``prod`` treating NaN as one (SPEC NP-13)."


def _nanmean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    """Mean of the non-NaN elements; NaN where there are none (SPEC NP-13)."""
    a = util.ensure_arraylike("nanmean", a)
    where = check_where("nanmean", where)
    _reject_out("nanmean", out)
    if _dtype(a) == dtypes.bool_ or dtypes.issubdtype(_dtype(a), np.integer):
        return mean(a, axis, dtype, out, keepdims, where=where)
    if dtype is None:
        dtype = util.to_inexact_dtype(_dtype(a))
    else:
        dtype = dtypes.check_user_dtype(dtype, "mean")
    not_nan = lax.bitwise_not(util._isnan(a))
    normalizer = sum(not_nan, axis=axis, dtype=dtype, keepdims=keepdims, where=where)
    total = nansum(a, axis, dtype=dtype, keepdims=keepdims, where=where)
    return lax.div(total, normalizer)


nanmean = jit(_named(_nanmean, "nanmean"), static_argnames=("axis", "dtype", "keepdims"))


def _nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None,
            mean=None):
    """Variance of the non-NaN elements (SPEC NP-13)."""
    a = util.ensure_arraylike("nanvar", a)
    where = check_where("nanvar", where)
    if dtype is not None:
        dtype = dtypes.check_user_dtype(dtype, "nanvar")
    _reject_out("nanvar", out)
    computation_dtype, dtype = _var_promote_types(_dtype(a), dtype)
    a = lax.convert_element_type(a, computation_dtype)
    if mean is None:
        a_mean = nanmean(a, axis, dtype=computation_dtype, keepdims=True, where=where)
    else:
        a_mean = lax.convert_element_type(util.ensure_arraylike("nanvar", mean),
                                          computation_dtype)
    centered = _where(util._isnan(a), 0, lax.sub(a, a_mean))
    if dtypes.issubdtype(_dtype(centered), np.complexfloating):
        centered = lax.real(lax.mul(centered, lax.conj(centered)))
    else:
        centered = lax.square(centered)
    normalizer = sum(lax.bitwise_not(util._isnan(a)), axis=axis, keepdims=keepdims,
                     where=where)
    normalizer = ufuncs.subtract(normalizer, ddof)
    normalizer_mask = lax.le(normalizer, util._const(normalizer, 0))
    result = sum(centered, axis, keepdims=keepdims, where=where)
    result = _where(normalizer_mask, np.nan, result)
    divisor = _where(normalizer_mask, 1, normalizer)
    result = lax.div(result, lax.convert_element_type(divisor, _dtype(result)))
    return lax.convert_element_type(result, dtype)


nanvar = jit(_named(_nanvar, "nanvar"), static_argnames=("axis", "dtype", "keepdims"))


def _nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None,
            mean=None):
    """``sqrt(nanvar(...))`` (SPEC NP-13)."""
    a = util.ensure_arraylike("nanstd", a)
    where = check_where("nanstd", where)
    if dtype is not None:
        dtype = dtypes.check_user_dtype(dtype, "nanstd")
    _reject_out("nanstd", out)
    return lax.sqrt(nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims,
                           where=where, mean=mean))


nanstd = jit(_named(_nanstd, "nanstd"), static_argnames=("axis", "dtype", "keepdims"))


# ---------------------------------------------------------------------------
# Cumulative reductions (SPEC NP-12)
# ---------------------------------------------------------------------------

def _cumulative_reduction(name, reduction, a, axis, dtype, out=None, fill_nan=False,
                          fill_value=0, promote_integers=False):
    """Scan ``a`` along ``axis`` (flattened when ``axis`` is None).

    The result keeps ``a``'s dtype, except that booleans accumulate in the
    default int (and every integer does with ``promote_integers``); a boolean
    ``dtype=`` accumulates ``a != 0`` in the default int and casts back.
    """
    a = util.ensure_arraylike(name, a)
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported")
    # A weakly typed scalar is raveled even with an axis (JAX's _isscalar).
    if axis is None or (_ndim(a) == 0 and util._aval(a).weak_type):
        a = lax_shapes.reshape(a, (math.prod(_shape(a)),))
    if axis is None:
        axis = 0
    axis = core.canonicalize_axis(axis, _ndim(a))
    if fill_nan:
        a = _where(util._isnan(a), util._const(a, fill_value), a)
    if dtype is None:
        if promote_integers or _dtype(a) == dtypes.bool_:
            result_type = _promote_integer_dtype(_dtype(a))
        else:
            result_type = _dtype(a)
        computation_type = result_type
    elif np.dtype(dtype) == dtypes.bool_:
        result_type = dtypes.bool_
        if _dtype(a) != result_type:
            a = lax.ne(a, util._const(a, 0))
        computation_type = _promote_integer_dtype(result_type)
    else:
        result_type = dtypes.check_user_dtype(dtype, name)
        computation_type = result_type
    a = lax.convert_element_type(a, computation_type)
    return lax.convert_element_type(reduction(a, axis), result_type)


def _cumulative(name, reduction, **options):
    def fn(a, axis=None, dtype=None, out=None):
        return _cumulative_reduction(name, reduction, a, axis, dtype, out, **options)
    fn.__doc__ = (f"Cumulative ``{reduction.__name__[3:]}`` along ``axis`` "
                  "(flattened when None) (SPEC NP-12).")
    return jit(_named(fn, name), static_argnames=("axis", "dtype"))


cumsum = _cumulative("cumsum", lax_reductions.cumsum)
cumprod = _cumulative("cumprod", lax_reductions.cumprod)
nancumsum = _cumulative("nancumsum", lax_reductions.cumsum, fill_nan=True, fill_value=0)
nancumprod = _cumulative("nancumprod", lax_reductions.cumprod, fill_nan=True, fill_value=1)
_cumsum_with_promotion = _cumulative("_cumsum_with_promotion", lax_reductions.cumsum,
                                     promote_integers=True)


def _array_api_cumulative(name, what, x, axis, dtype):
    x = util.ensure_arraylike(name, x)
    if _ndim(x) == 0:
        raise ValueError(f"The input must be non-scalar to take a cumulative {what}, "
                         "however a scalar value or scalar array was given.")
    if axis is None:
        axis = 0
        if _ndim(x) > 1:
            raise ValueError(
                f"The input array has rank {_ndim(x)}, however axis was not set "
                "to an explicit value. The axis argument is only optional for "
                "one-dimensional arrays.")
    axis = core.canonicalize_axis(axis, _ndim(x))
    if dtype is not None:
        dtype = dtypes.check_user_dtype(dtype, name)
    return x, axis, dtype


def _with_initial(out, axis, value, x):
    shape = list(_shape(x))
    shape[axis] = 1
    first = util._full_like(out, value, dtype=_dtype(out), shape=shape)
    return lax_shapes.concatenate([first, out], axis)


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """Array-API cumulative sum: integers accumulate in at least the default
    int; ``include_initial`` prepends a zero (SPEC NP-12)."""
    x, axis, dtype = _array_api_cumulative("cumulative_sum", "sum", x, axis, dtype)
    out = _cumsum_with_promotion(x, axis=axis, dtype=dtype)
    return _with_initial(out, axis, 0, x) if include_initial else out


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """Array-API cumulative product; ``include_initial`` prepends a one."""
    x, axis, dtype = _array_api_cumulative("cumulative_prod", "product", x, axis, dtype)
    out = _cumulative_reduction("cumulative_prod", lax_reductions.cumprod, x, axis, dtype)
    return _with_initial(out, axis, 1, x) if include_initial else out


# ---------------------------------------------------------------------------
# Quantiles (SPEC NP-14)
# ---------------------------------------------------------------------------

_QUANTILE_METHODS = ("linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf")


def _quantile(a, q, axis, method, keepdims, squash_nans, weights=None):
    """Quantiles ``q`` of ``a`` along ``axis`` (SPEC NP-14).

    The reduced axes are moved last and merged; the slice is sorted (NaN
    last) and the two order statistics around ``q * (n - 1)`` are picked and
    combined by ``method``.  A slice holding a NaN gives NaN (the ``nan*``
    variants count only non-NaN elements).  The result's leading axes are
    those of ``q``; its dtype is ``a``'s promoted to inexact.
    """
    if method not in _QUANTILE_METHODS:
        raise ValueError("method can only be 'linear', 'lower', 'higher', 'midpoint', "
                         "'nearest' or 'inverted_cdf'")
    if weights is not None:
        a, weights = _quantile_weights(a, weights, axis, method)
    else:
        a, = util.promote_dtypes_inexact(a)
    if dtypes.issubdtype(_dtype(a), np.complexfloating):
        raise ValueError("quantile does not support complex input, as the operation "
                         "is poorly defined.")
    if _ndim(q) > 1:
        raise ValueError(f"q must be have rank <= 1, got shape {_shape(q)}")
    a2, kept_shape = _move_reduced_axes_last(a, axis)
    if weights is not None:
        w2, _ = _move_reduced_axes_last(weights, axis)
        result = _weighted_inverted_cdf(a2, w2, q, squash_nans)
        result = lax.convert_element_type(result, _dtype(a))
        return lax_shapes.reshape(result, _shape(q) + kept_shape) if keepdims else result
    n = _shape(a2)[-1]
    if n == 0:
        # JAX's classes: the gather of an order statistic fails (TypeError),
        # or its NaN-skipping index lookup (IndexError), SPEC NP-71.
        error = IndexError if squash_nans else TypeError
        raise error("quantile, percentile and median need at least one element "
                    f"along the reduced axes; the array of shape {_shape(a)} has "
                    "none there.")
    q_dtype = _dtype(q)
    if squash_nans:
        a2 = _where(util._isnan(a2), np.nan, a2)
        count = sum(lax.bitwise_not(util._isnan(a2)), axis=-1, dtype=q_dtype)
    else:
        a2 = _where(any(util._isnan(a2), axis=-1, keepdims=True), np.nan, a2)
        count = lax.convert_element_type(n, q_dtype)
    a2 = sorting.sort(a2, dimension=_ndim(a2) - 1)
    result = _pick_quantiles(a2, q, count, method)
    result = lax.convert_element_type(result, _dtype(a))
    if keepdims:
        result = lax_shapes.reshape(result, _shape(q) + kept_shape)
    return result


def _quantile_weights(a, weights, axis, method):
    """(``a``, ``weights``) promoted together to inexact, the weights
    broadcast to ``a``'s shape (SPEC NP-221).  Only 'inverted_cdf' takes
    weights (else NotImplementedError); complex weights, or weights
    matching neither ``a`` nor its reduced axes, are ValueError."""
    weights = util.ensure_arraylike("quantile", weights)
    if dtypes.issubdtype(_dtype(weights), np.complexfloating):
        raise ValueError("Weights cannot be complex types.")
    if method != "inverted_cdf":
        raise NotImplementedError(f"{method} doesn't support weights. Only method "
                                  "'inverted_cdf' supports weights.")
    a, weights = util.promote_dtypes_inexact(a, weights)
    if _shape(weights) == _shape(a):
        return a, weights
    if axis is None:
        raise ValueError("Weights shape must match 'a' shape when axis is None.")
    axes = _canonical_axis_tuple(a, axis)
    reduced = tuple(_shape(a)[ax] for ax in axes)
    if _shape(weights) != reduced:
        raise ValueError(f"Weights shape {_shape(weights)} must match reduction axes "
                         f"{reduced}")
    return a, lax_shapes.broadcast_in_dim(weights, _shape(a), axes)


def _weighted_inverted_cdf(a, w, q, squash_nans):
    """Weighted 'inverted_cdf' quantiles along the last axis (SPEC NP-221).

    Sorted with its weights, each slice's answer is its first element whose
    cumulative weight reaches ``q`` times the total weight.  NaN elements
    weigh nothing; a negative or NaN weight makes the slice's answer NaN,
    as does a NaN element (for the ``nan*`` variants: only NaN elements).
    """
    a = _where(util._isnan(a), np.nan, a)           # NaNs sort last
    a, w = sorting.sort_key_val(a, w, dimension=_ndim(a) - 1)
    nan_data = util._isnan(a)
    bad = lax.bitwise_or(lax.lt(w, util._zeros(w)), util._isnan(w))
    cum = cumsum(_where(lax.bitwise_or(bad, nan_data), util._zeros(w), w), axis=-1)
    q_nd, rest, n = _ndim(q), _shape(a)[:-1], _shape(a)[-1]
    out_shape = _shape(q) + rest
    total = lax_shapes.squeeze(lax_shapes.slice_in_dim(cum, n - 1, n, axis=-1), (-1,))
    target = lax.mul(
        lax_shapes.broadcast_in_dim(lax.convert_element_type(q, _dtype(w)), out_shape,
                                    tuple(range(q_nd))),
        lax_shapes.broadcast_in_dim(total, out_shape, tuple(range(q_nd, len(out_shape)))))
    below = lax.lt(lax_shapes.broadcast_in_dim(cum, out_shape + (n,),
                                               tuple(range(q_nd, len(out_shape) + 1))),
                   lax_shapes.expand_dims(target, (len(out_shape),)))
    idx = sum(below, axis=-1, dtype=dtypes.default_int_dtype())
    count = (sum(lax.bitwise_not(nan_data), axis=-1, dtype=dtypes.default_int_dtype())
             if squash_nans else np.array(n, dtypes.default_int_dtype()))
    lead = len(out_shape) - _ndim(count)
    last = lax_shapes.broadcast_in_dim(lax.sub(count, util._const(count, 1)), out_shape,
                                       tuple(range(lead, len(out_shape))))
    idx = lax.max(util._zeros(idx), lax.min(idx, last))
    result = _take_last(a, idx, q_nd)
    nan_seen = all(nan_data, axis=-1) if squash_nans else any(nan_data, axis=-1)
    force_nan = lax.bitwise_or(any(bad, axis=-1), nan_seen)
    force_nan = lax_shapes.broadcast_in_dim(force_nan, out_shape,
                                            tuple(range(q_nd, len(out_shape))))
    return _where(force_nan, np.nan, result)


def _move_reduced_axes_last(a, axis):
    """(``a`` with the reduced axes merged into one last axis, keepdims shape)."""
    shape = _shape(a)
    if axis is None:
        reduced = tuple(range(len(shape)))
    else:
        axes = axis if isinstance(axis, tuple) else (axis,)
        reduced = tuple(core.canonicalize_axis(x, len(shape)) for x in axes)
        if len(set(reduced)) != len(reduced):
            raise ValueError("repeated axis")
    kept = [i for i in range(len(shape)) if i not in reduced]
    moved = lax_shapes.transpose(a, tuple(kept) + tuple(reduced))
    merged = tuple(shape[i] for i in kept) + (math.prod(shape[i] for i in reduced),)
    keepdims_shape = tuple(1 if i in reduced else s for i, s in enumerate(shape))
    return lax_shapes.reshape(moved, merged), keepdims_shape


def _pick_quantiles(a, q, count, method):
    """Combine the order statistics of the sorted last axis of ``a``."""
    q_nd = _ndim(q)
    rest = _shape(a)[:-1]
    # q's axes lead; the slices' axes follow.
    q_b = lax_shapes.broadcast_in_dim(q, _shape(q) + rest, tuple(range(q_nd)))
    count_b = lax_shapes.broadcast_in_dim(count, _shape(q) + rest,
                                   tuple(range(q_nd, q_nd + _ndim(count))))
    last = lax.sub(count_b, util._const(count_b, 1))
    if method == "inverted_cdf":
        pos = lax.sub(lax.ceil(lax.mul(q_b, count_b)), util._const(q_b, 1))
        idx = lax.max(util._const(pos, 0), lax.min(pos, last))
        return _take_last(a, idx, q_nd)
    pos = lax.mul(q_b, last)
    low, high = lax.floor(pos), lax.ceil(pos)
    high_weight = lax.sub(pos, low)
    low_weight = lax.sub(util._const(high_weight, 1), high_weight)
    low = lax.max(util._const(low, 0), lax.min(low, last))
    high = lax.max(util._const(high, 0), lax.min(high, last))
    low_value, high_value = _take_last(a, low, q_nd), _take_last(a, high, q_nd)
    if method == "lower":
        return low_value
    if method == "higher":
        return high_value
    if method == "nearest":
        return lax.select(lax.le(high_weight, util._const(high_weight, 0.5)),
                          low_value, high_value)
    if method == "midpoint":
        return lax.mul(lax.add(low_value, high_value), util._const(low_value, 0.5))
    return lax.add(lax.mul(lax.convert_element_type(low_value, _dtype(q)), low_weight),
                   lax.mul(lax.convert_element_type(high_value, _dtype(q)), high_weight))


def _take_last(a, index, q_nd):
    """``a[..., index]`` for a float ``index`` array shaped ``q.shape + rest``:
    the element whose position along the last axis equals ``index``."""
    n = _shape(a)[-1]
    out_shape = _shape(index)
    full = out_shape + (n,)
    idx = lax.convert_element_type(index, dtypes.default_int_dtype())
    idx = lax_shapes.broadcast_in_dim(idx, full, tuple(range(len(out_shape))))
    positions = lax_shapes.broadcasted_iota(dtypes.default_int_dtype(), full, len(full) - 1)
    values = lax_shapes.broadcast_in_dim(a, full, tuple(range(q_nd, len(full))))
    picked = lax.select(lax.eq(positions, idx), values, util._zeros(values))
    return lax_reductions.reduce_sum(picked, (len(full) - 1,))


def _quantile_args(name, a, q, out, overwrite_input):
    a, q = util.ensure_arraylike(name, a, q)
    if overwrite_input or out is not None:
        raise ValueError(f"jax.numpy.{name} does not support overwrite_input=True or "
                         "out != None")
    return a, q


_QUANTILE_STATICS = ("axis", "overwrite_input", "keepdims", "method")


def _quantile_fn(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                 keepdims=False, *, weights=None):
    """The ``q``-th quantiles (``0 <= q <= 1``) of ``a`` along ``axis``;
    methods as NumPy's: linear, lower, higher, midpoint, nearest,
    inverted_cdf (SPEC NP-14)."""
    a, q = _quantile_args("quantile", a, q, out, overwrite_input)
    return _quantile(a, q, axis, method, keepdims, False, weights)


def _nanquantile_fn(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                    keepdims=False, *, weights=None):
    """``quantile`` of the non-NaN elements (SPEC NP-14)."""
    a, q = _quantile_args("nanquantile", a, q, out, overwrite_input)
    return _quantile(a, q, axis, method, keepdims, True, weights)


quantile = jit(_named(_quantile_fn, "quantile"), static_argnames=_QUANTILE_STATICS)
nanquantile = jit(_named(_nanquantile_fn, "nanquantile"), static_argnames=_QUANTILE_STATICS)


def _percentile_fn(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                   keepdims=False, *, weights=None):
    """``quantile(a, q / 100, ...)`` (SPEC NP-14)."""
    a, q = util.ensure_arraylike("percentile", a, q)
    q, = util.promote_dtypes_inexact(q)
    return quantile(a, ufuncs.true_divide(q, 100), axis=axis, out=out,
                    overwrite_input=overwrite_input, method=method,
                    keepdims=keepdims, weights=weights)


def _nanpercentile_fn(a, q, axis=None, out=None, overwrite_input=False,
                      method="linear", keepdims=False, *, weights=None):
    """``nanquantile(a, q / 100, ...)`` (SPEC NP-14)."""
    a, q = util.ensure_arraylike("nanpercentile", a, q)
    q, = util.promote_dtypes_inexact(q)
    return nanquantile(a, ufuncs.true_divide(q, 100), axis=axis, out=out,
                       overwrite_input=overwrite_input, method=method,
                       weights=weights, keepdims=keepdims)


percentile = jit(_named(_percentile_fn, "percentile"), static_argnames=_QUANTILE_STATICS)
nanpercentile = jit(_named(_nanpercentile_fn, "nanpercentile"),
                    static_argnames=_QUANTILE_STATICS)


def _median_fn(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The middle value (mean of the two middle values): ``quantile`` at 0.5
    with the midpoint method (SPEC NP-14)."""
    a = util.ensure_arraylike("median", a)
    return quantile(a, 0.5, axis=axis, out=out, overwrite_input=overwrite_input,
                    keepdims=keepdims, method="midpoint")


def _nanmedian_fn(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """``median`` of the non-NaN elements (SPEC NP-14)."""
    a = util.ensure_arraylike("nanmedian", a)
    return nanquantile(a, 0.5, axis=axis, out=out, overwrite_input=overwrite_input,
                       keepdims=keepdims, method="midpoint")


_MEDIAN_STATICS = ("axis", "overwrite_input", "keepdims")
median = jit(_named(_median_fn, "median"), static_argnames=_MEDIAN_STATICS)
nanmedian = jit(_named(_nanmedian_fn, "nanmedian"), static_argnames=_MEDIAN_STATICS)
