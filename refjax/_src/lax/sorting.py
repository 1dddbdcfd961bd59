"""``sort`` and its differentiation rules.

Defined as in :mod:`refjax._src.lax.lax`.  Sorting permutes its operands,
so the tangents are permuted the same way: each tangent is sorted along
with the keys as an extra operand; transposing that puts each cotangent
back in the original positions (SPEC AD-25).  Under ``vmap`` every
operand is batched along one common axis (SPEC VMAP-26).

Import these names from :mod:`refjax._src.lax.lax`, which re-exports them.
"""
import builtins
import operator

import numpy as np

from refjax._src import backend, core, dtypes
from refjax._src.core import Primitive, ShapedArray
from refjax._src.interpreters import ad, batching
from refjax._src.lax import gather_scatter, shapes
from refjax._src.lax.lax import _xp

sort_p = Primitive("sort", multiple_results=True)


@sort_p.def_abstract_eval
def _sort_abstract_eval(*operands, dimension, is_stable, num_keys):
    shape = operands[0].shape
    if builtins.any(o.shape != shape for o in operands):
        raise TypeError("Arguments to sort must have equal shapes, got: "
                        f"{' '.join(str(o.shape) for o in operands)}")
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
    perm = backend.get().lexsort(list(reversed(keys)))
    return [xp.moveaxis(xp.take_along_axis(o, perm, axis=-1), -1, dimension)
            for o in moved]


def sort(operand, dimension=-1, is_stable=True, num_keys=1):
    """Sort one array, or several by their first ``num_keys`` (lexicographic);
    ``num_keys`` is checked, then ``dimension`` against the rank (rank 0:
    ValueError, as in JAX) (SPEC LAX-17)."""
    single = not isinstance(operand, (tuple, list))
    operands = [operand] if single else list(operand)
    if not operands:
        raise TypeError("Sort requires at least one operand")
    _check_num_keys(num_keys, len(operands), single)
    avals = [core.get_aval(o) for o in operands]
    _check_not_keys(avals, dimension)
    # A rank-0 operand has no axis to sort along: ValueError, as in JAX
    # (SPEC LAX-17).
    dim = core.canonicalize_axis(dimension, avals[0].ndim)
    out = sort_p.bind(*operands, dimension=dim, is_stable=bool(is_stable),
                      num_keys=1 if single else operator.index(num_keys))
    return out[0] if single else tuple(out)


def _check_not_keys(avals, dimension):
    """PRNG keys have no order.  As in JAX, a rank-0 key fails on the axis
    first (``ValueError``), a key array on its dtype (``TypeError``)
    (SPEC LAX-12)."""
    for i, aval in enumerate(avals):
        if dtypes.is_extended(aval.dtype):
            if aval.ndim == 0:
                core.canonicalize_axis(dimension, 0)
            raise TypeError(f"sort does not accept dtype {aval.dtype} at position {i}. "
                            f"Sort numbers, or the key data (jax.random.key_data).")


def _check_num_keys(num_keys, n, single):
    """``num_keys`` is checked before the dimension, with JAX's wording
    (a NaN fails the comparison: ``ValueError``) (SPEC LAX-12)."""
    if single:
        if num_keys != 1:
            raise ValueError(f"{num_keys=} must equal 1 for a single operand.")
    elif not 1 <= num_keys <= n:
        raise ValueError(f"{num_keys=} must be between 1 and len(operand)={n}")


def sort_key_val(keys, values, dimension=-1, is_stable=True):
    """Sort ``keys`` and permute ``values`` the same way.  As in JAX, the
    dimension is checked against the keys' rank before ``values`` is read
    (rank-0 keys: ValueError) (SPEC LAX-12)."""
    dimension = core.canonicalize_axis(dimension, core.get_aval(keys).ndim)
    return sort((keys, values), dimension, is_stable, 1)


def _sort_jvp(primals, tangents, dimension, is_stable, num_keys):
    """Each output's tangent is its operand's tangent permuted as the sort
    permuted the operands: equal keys keep their order, so a tie's tangent
    follows its own element (SPEC AD-25)."""
    params = dict(dimension=dimension, is_stable=is_stable, num_keys=num_keys)
    out = sort_p.bind(*primals, **params)
    keys = primals[:num_keys]
    tangents_out = [ad.Zero.from_primal_value(o) if type(t) is ad.Zero
                    else sort_p.bind(*keys, t, **params)[-1]
                    for o, t in zip(out, tangents)]
    return out, tangents_out


def _sort_transpose(cts, *operands, dimension, is_stable, num_keys):
    """Linear in the operands after the keys (the keys fixed): each
    cotangent goes back to the position its element came from."""
    keys = operands[:num_keys]
    if any(ad.is_undefined_primal(k) for k in keys):
        raise NotImplementedError(
            "Transpose rule (for reverse-mode differentiation) for 'sort' not "
            "implemented")
    source = None
    if any(type(ct) is not ad.Zero for ct in cts):
        source = _sorted_positions(keys, dimension, is_stable, num_keys)

    def cotangent(operand, ct):
        if not ad.is_undefined_primal(operand):
            return None
        if type(ct) is ad.Zero:
            return ad.Zero(operand.aval)
        return _unsort(ct, source, dimension)
    return [cotangent(o, ct) for o, ct in zip(operands, cts)]


def _sorted_positions(keys, dimension, is_stable, num_keys):
    """For each output position, the index along ``dimension`` it came from."""
    shape = core.get_aval(keys[0]).shape
    if not shape:
        return None
    index = shapes.broadcasted_iota(np.int32, shape, dimension)
    return sort_p.bind(*keys, index, dimension=dimension, is_stable=is_stable,
                       num_keys=num_keys)[-1]


def _unsort(ct, source, dimension):
    """``ct`` moved from sorted order back to the operand's order."""
    if source is None:
        return ct
    return sort_p.bind(source, ct, dimension=dimension, is_stable=True, num_keys=1)[1]


sort_p.jvp = _sort_jvp
sort_p.transpose = _sort_transpose


def _sort_batch(axis_data, vals, dims, *, dimension, is_stable, num_keys):
    """Sort with every operand batched along the first batched operand's
    batch axis: other batched operands are moved there, unbatched ones
    broadcast to its shape; ``dimension`` is renumbered around that axis
    (SPEC VMAP-26).  ``lax.sort`` refuses rank-0 examples before binding
    (LAX-17); a direct bind of one is the identity."""
    proto, bdim = next((v, d) for v, d in zip(vals, dims) if d is not None)
    shape = core.get_aval(proto).shape
    if len(shape) == 1:
        return list(vals), list(dims)
    others = tuple(i for i in range(len(shape)) if i != bdim)
    operands = [shapes.broadcast_in_dim(v, shape, others) if d is None
                else batching.moveaxis(v, d, bdim) for v, d in zip(vals, dims)]
    outs = sort_p.bind(*operands, dimension=batching.shift_axis_param(dimension, bdim),
                       is_stable=is_stable, num_keys=num_keys)
    return outs, [bdim] * len(outs)


sort_p.batch = _sort_batch


# ---------------------------------------------------------------------------
# top_k (SPEC NP-58)
# ---------------------------------------------------------------------------

top_k_p = Primitive("top_k", multiple_results=True)


@top_k_p.def_abstract_eval
def _top_k_abstract_eval(x, k, axis):
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    if x.shape[axis] < k:
        raise ValueError("k argument to top_k must be no larger than size along "
                         f"axis; got k={k} with shape={list(x.shape)} and axis={axis}")
    if x.shape[axis] > 2**31:
        raise ValueError("top_k returns int32 indices, which will overflow for array "
                         f"dimensions larger than the maximum int32 ({2**31 - 1}). "
                         f"Got operand.shape={x.shape}")    # SPEC LXM-26
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
    ascending = backend.get().lexsort(list(reversed(_ascending_keys(moved))))
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
    dnums = gather_scatter.GatherDimensionNumbers(
        offset_dims=(), collapsed_slice_dims=(axis,), start_index_map=(axis,),
        operand_batching_dims=others, start_indices_batching_dims=others)
    starts = shapes.expand_dims(indices, (rank,))
    return gather_scatter.gather(x, starts, dnums, (1,) * rank)


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
    k = operator.index(k)
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    # JAX checks ``k`` and ``axis`` before it reads the operand as a JAX
    # value: a string operand is 0-d there (SPEC LAX-12).
    axis = core.canonicalize_axis(axis, shapes.rank_of(operand))
    aval = core.get_aval(operand)
    if dtypes.issubdtype(aval.dtype, np.complexfloating):
        raise ValueError("top_k is not compatible with complex inputs.")
    return top_k_p.bind(operand, k=k, axis=axis)
