"""``lax.top_k`` and ``lax.reduce_precision`` (SPEC NP-58, NP-59).

Two primitives defined the same way as those of ``lax.py``: abstract
evaluation with JAX's errors, an implementation on backend buffers, and the
public function that binds them.
"""
import operator

import numpy as np

from refjax._src.interpreters import ad
from refjax._src.interpreters import batching
from refjax._src import backend as _backend
from refjax._src import core
from refjax._src import dtypes
from refjax._src.core import Primitive, ShapedArray
from refjax._src.lax import lax, slicing
from refjax._src.lax import shapes


def _xp():
    return _backend.get().xp


# ---------------------------------------------------------------------------
# top_k
# ---------------------------------------------------------------------------

top_k_p = Primitive("top_k", multiple_results=True)


@top_k_p.def_abstract_eval
def _top_k_abstract_eval(x, k, axis):
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    if x.shape[axis] < k:
        raise ValueError("k argument to top_k must be no larger than size along "
                         f"axis; got k={k} with shape={list(x.shape)} and axis={axis}")
    shape = list(x.shape)
    shape[axis] = k
    # Both outputs follow the standard weak-type rule, the indices too.
    return [ShapedArray(shape, x.dtype, x.weak_type),
            ShapedArray(shape, np.int32, x.weak_type)]


def _ascending_keys(x):
    """Lexicographic keys of XLA's total order used by top_k:
    -NaN < -inf < ... < -0.0 < 0.0 < ... < inf < NaN."""
    xp = _xp()
    if x.dtype.kind in "biu":
        return [x]
    wide = x.astype(np.float64)
    nan = xp.isnan(wide)
    sign = xp.signbit(wide)
    group = xp.where(nan, xp.where(sign, 0, 2), 1)
    return [group, xp.where(nan, 0.0, wide), (~sign).astype(np.int8)]


@top_k_p.def_impl
def _top_k_impl(x, k, axis):
    """Largest first with ties to the lower index: a stable ascending sort
    of the reversed axis, read backwards."""
    xp = _xp()
    moved = xp.flip(xp.moveaxis(x, axis, -1), -1)
    n = moved.shape[-1]
    ascending = _backend.get().lexsort(list(reversed(_ascending_keys(moved))))
    order = (n - 1 - xp.flip(ascending, -1))[..., :k]
    values = xp.take_along_axis(xp.flip(moved, -1), order, axis=-1)
    return [xp.moveaxis(values, -1, axis),
            xp.moveaxis(order.astype(np.int32), -1, axis)]


def _top_k_jvp(primals, tangents, *, k, axis):
    """The values' tangent is the operand's tangent at the chosen indices;
    the indices are integers with a float0 tangent (SPEC AD-37)."""
    operand, = primals
    values, indices = top_k_p.bind(operand, k=k, axis=axis)
    index_zero = ad.Zero.from_primal_value(indices)
    if type(tangents[0]) is ad.Zero:
        return [values, indices], [ad.Zero.from_primal_value(values), index_zero]
    return [values, indices], [_take_along(tangents[0], indices, axis), index_zero]


def _take_along(x, indices, axis):
    """``x[..., indices, ...]`` along ``axis``, elementwise in the other axes:
    a gather batched over every axis but ``axis``."""
    rank = core.get_aval(indices).ndim
    others = tuple(d for d in range(rank) if d != axis)
    dnums = slicing.GatherDimensionNumbers(
        offset_dims=(), collapsed_slice_dims=(axis,), start_index_map=(axis,),
        operand_batching_dims=others, start_indices_batching_dims=others)
    starts = shapes.expand_dims(indices, (rank,))
    return slicing.gather(x, starts, dnums, (1,) * rank)


top_k_p.jvp = _top_k_jvp


def _top_k_batch(axis_data, vals, dims, *, k, axis):
    """``top_k`` along the renumbered axis; values and indices keep the
    operand's batch axis (SPEC VMAP-27)."""
    (x,), (bdim,) = vals, dims
    outs = top_k_p.bind(x, k=k, axis=batching.shift_axis_param(axis, bdim))
    return outs, [bdim, bdim]


top_k_p.batch = _top_k_batch


def top_k(operand, k, *, axis=-1):
    """The ``k`` largest entries along ``axis`` and their indices, largest
    first, ties by lower index (SPEC NP-58)."""
    aval = core.get_aval(operand)
    if dtypes.issubdtype(aval.dtype, np.complexfloating):
        raise ValueError("top_k is not compatible with complex inputs.")
    k = operator.index(k)
    axis = core.canonicalize_axis(axis, aval.ndim)
    return top_k_p.bind(operand, k=k, axis=axis)


# ---------------------------------------------------------------------------
# reduce_precision
# ---------------------------------------------------------------------------

reduce_precision_p = Primitive("reduce_precision")


@reduce_precision_p.def_abstract_eval
def _reduce_precision_abstract_eval(x, exponent_bits, mantissa_bits):
    if not dtypes.issubdtype(x.dtype, np.floating):
        raise TypeError("reduce_precision does not accept dtype "
                        f"{x.dtype.name}. Accepted dtypes are subtypes of floating.")
    if exponent_bits < 1:
        raise ValueError(f"exponent_bits argument must be at least 1, got {exponent_bits}")
    if mantissa_bits < 0:
        raise ValueError(f"mantissa_bits argument must be at least 0, got {mantissa_bits}")
    return x


def _float_layout(dt):
    info = dtypes.finfo(dt)
    return dt.itemsize * 8, int(info.nexp), int(info.nmant)


@reduce_precision_p.def_impl
def _reduce_precision_impl(x, exponent_bits, mantissa_bits):
    """Round the mantissa to nearest even, then flush exponents outside the
    reduced range to zero or infinity, working on the bit pattern."""
    xp = _xp()
    nbits, src_exp, src_mant = _float_layout(x.dtype)
    udt = np.dtype(f"u{x.dtype.itemsize}")
    one = udt.type(1)
    bits = x.copy().view(udt)
    if mantissa_bits < src_mant:
        shift = udt.type(src_mant - mantissa_bits)
        last_bit = one << shift
        bias = (last_bit >> one) - one
        odd = (bits & last_bit) >> shift
        bits = (bits + odd + bias) & ~(last_bit - one)
    if exponent_bits < src_exp:
        sign_mask = one << udt.type(nbits - 1)
        exp_mask = ((one << udt.type(src_exp)) - one) << udt.type(src_mant)
        src_bias = (1 << (src_exp - 1)) - 1
        red_bias = (1 << (exponent_bits - 1)) - 1
        exponent = bits & exp_mask
        over = exponent > udt.type((src_bias + red_bias) << src_mant)
        under = exponent <= udt.type((src_bias - red_bias) << src_mant)
        signed_zero = bits & sign_mask
        bits = xp.where(over, signed_zero | exp_mask,
                        xp.where(under, signed_zero, bits)).astype(udt)
    out = bits.view(x.dtype)
    if mantissa_bits > 0:
        out = xp.where(xp.isnan(x), x, out).astype(x.dtype)
    return out


def _reduce_precision_transpose(ct, x, *, exponent_bits, mantissa_bits):
    """Treated as linear, as JAX does: tangents and cotangents are rounded
    the same way (SPEC AD-37)."""
    return [reduce_precision_p.bind(ct, exponent_bits=exponent_bits,
                                    mantissa_bits=mantissa_bits)]


ad.deflinear(reduce_precision_p, _reduce_precision_transpose)
# Rounding acts on each element alone (SPEC VMAP-28).
batching.defvectorized(reduce_precision_p)


def reduce_precision(operand, exponent_bits, mantissa_bits):
    """Round ``operand`` as if to a float with the given exponent and
    mantissa widths, keeping its dtype (SPEC NP-59)."""
    return reduce_precision_p.bind(operand, exponent_bits=operator.index(exponent_bits),
                                   mantissa_bits=operator.index(mantissa_bits))
