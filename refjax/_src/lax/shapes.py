"""Shape primitives of ``jax.lax`` and their differentiation rules.

Broadcasting, reshaping, transposing, squeezing, reversing, joining,
splitting, tiling, padding, slicing, ``iota`` and ``copy``.  Each primitive
is defined as in :mod:`refjax._src.lax.lax` (abstract evaluation, backend
implementation, public function); its rules follow it.  Every one of them
is linear, so each declares its transpose: the cotangent is routed back to
where the operand's elements went (SPEC AD-21).  Each also declares how
it batches under ``vmap`` (SPEC VMAP-20 .. VMAP-24).

Import these names from :mod:`refjax._src.lax.lax`, which re-exports them.
"""
import builtins
import math
import operator

import numpy as np

from refjax._src import core, mesh
from refjax._src.core import Primitive, ShapedArray, Tracer
from refjax._src.interpreters import ad, batching
from refjax._src.interpreters import key_reuse as kr
from refjax._src.lax import lax, reductions
from refjax._src.lax.lax import _all_weak, _check_same_dtypes, _xp


def _static_shape(shape, what="shape"):
    # A 0-d array is no shape to lax, as in JAX (SPEC LAX-14).
    return core.canonicalize_shape(shape, allow_0d_array=False)


broadcast_in_dim_p = Primitive("broadcast_in_dim")


@broadcast_in_dim_p.def_abstract_eval
def _broadcast_in_dim_abstract_eval(x, shape, broadcast_dimensions, sharding):
    """JAX's checks, in JAX's order and words (SPEC LXM-24); the dimensions
    need not increase (a transposing broadcast)."""
    dims = broadcast_dimensions
    if builtins.any(d < 0 for d in dims):
        raise TypeError("broadcast_in_dim broadcast_dimensions must have every element "
                        f"be nonnegative, got {dims}.")
    if len(dims) != x.ndim:
        raise TypeError(
            "broadcast_in_dim broadcast_dimensions must have length equal to "
            f"operand ndim; got broadcast_dimensions {dims} for operand ndim {x.ndim}.")
    if len(shape) < x.ndim:
        raise TypeError("broadcast_in_dim target broadcast shape must have equal or "
                        "higher rank to the operand shape; got operand ndim "
                        f"{x.ndim} and target broadcast ndim {len(shape)}.")
    if not set(dims) <= set(range(len(shape))):
        raise TypeError("broadcast_in_dim broadcast_dimensions must be a subset of "
                        f"output dimensions, got {dims} for operand ndim {x.ndim} and "
                        f"shape {shape}.")
    if builtins.any(x.shape[i] not in (1, shape[d]) for i, d in enumerate(dims)):
        raise TypeError(
            "broadcast_in_dim operand dimension sizes must either be 1, or be "
            "equal to their corresponding dimensions in the target broadcast "
            f"shape; got operand of shape {x.shape}, target broadcast shape "
            f"{shape}, broadcast_dimensions {dims} ")
    if len(set(dims)) != len(dims):
        raise TypeError("broadcast_in_dim broadcast_dimensions must not contain "
                        f"duplicates, got broadcast_dimensions {dims}")
    core.check_array_size(shape, getattr(x.dtype, "itemsize", 1))
    return ShapedArray(shape, x.dtype, x.weak_type)


def _increasing_order(broadcast_dimensions):
    """The operand axes sorted by the output axis each lands on."""
    return tuple(sorted(range(len(broadcast_dimensions)),
                        key=lambda i: broadcast_dimensions[i]))


@broadcast_in_dim_p.def_impl
def _broadcast_in_dim_impl(x, shape, broadcast_dimensions, sharding):
    xp = _xp()
    order = _increasing_order(broadcast_dimensions)
    if order != tuple(range(len(order))):
        x = xp.transpose(x, order)
    expanded = [1] * len(shape)
    for i in order:
        expanded[broadcast_dimensions[i]] = x.shape[order.index(i)]
    return xp.broadcast_to(x.reshape(expanded), shape).copy()


def _pp_broadcast_in_dim(params):
    shown = {k: v for k, v in params.items() if k not in ("shape", "sharding")}
    if not shown["broadcast_dimensions"]:
        del shown["broadcast_dimensions"]
    return shown


broadcast_in_dim_p.pp_params = _pp_broadcast_in_dim


def broadcast_in_dim(operand, shape, broadcast_dimensions, out_sharding=None):
    """Broadcast ``operand`` to ``shape``, its axes landing on
    ``broadcast_dimensions``; ``out_sharding`` is checked first, as in JAX
    (SPEC LAX-12)."""
    lax.check_out_sharding(out_sharding, "broadcast_in_dim")
    shape = _static_shape(shape)
    aval = core.get_aval(operand)
    dims = tuple(operator.index(d) for d in broadcast_dimensions)
    if aval.shape == shape and dims == tuple(range(len(shape))) and isinstance(
            operand, (Tracer, core.ArrayImpl)):
        return operand
    return broadcast_in_dim_p.bind(operand, shape=shape, broadcast_dimensions=dims,
                                   sharding=None)


def broadcast(operand, sizes, out_sharding=None):
    """Add leading axes of ``sizes``, a sequence (an int or a 0-d array has
    no length: TypeError, as in JAX; a JAX array is no static shape), then
    broadcast as ``broadcast_in_dim`` does (SPEC LAX-14)."""
    if isinstance(sizes, (core.Array, Tracer)) and np.ndim(sizes):
        raise TypeError(f"unhashable type: {type(sizes).__name__!r}: lax.broadcast "
                        "needs a static sequence of sizes, not an array.")
    if len(sizes) == 0 and out_sharding is None:
        return lax.asarray(operand)
    lax.check_out_sharding(out_sharding, "broadcast_in_dim")
    sizes = _static_shape(sizes)
    aval = core.get_aval(operand)
    dims = tuple(range(len(sizes), len(sizes) + aval.ndim))
    return broadcast_in_dim(operand, sizes + aval.shape, dims)


def broadcast_to_rank(x, rank):
    """``x`` with leading size-1 axes up to ``rank``.  As in JAX, ``rank`` is
    compared with ``x``'s rank before ``x`` is read as a JAX value (a rank
    that is an array of several elements: ValueError) (SPEC LAX-14)."""
    ndim = rank_of(x)
    if ndim == rank:
        return lax.asarray(x)
    return broadcast(x, (1,) * (rank - ndim))


def rank_of(x):
    """The rank JAX's ``np.ndim(x)`` reads: an object with no ``ndim`` (a
    string) is 0-d until it is read as a JAX value; a list is read now."""
    if hasattr(x, "ndim"):
        return x.ndim
    if isinstance(x, (list, tuple)):
        return core.get_aval(x).ndim
    return 0


def expand_dims(array, dimensions):
    """Insert size-1 axes at ``dimensions`` (lowered to ``broadcast_in_dim``)."""
    aval = core.get_aval(array)
    if hasattr(dimensions, "dtype"):    # an array: JAX needs a hashable tuple
        raise TypeError(f"lax.expand_dims needs a sequence of int dimensions, got "
                        f"{type(dimensions).__name__}.")
    ndim_out = aval.ndim + len(dimensions)
    dims = sorted(core.canonicalize_axis(d, ndim_out) for d in dimensions)
    if len(set(dims)) != len(dims):
        raise ValueError(f"repeated axis in lax.expand_dims: {dimensions}")
    shape = list(aval.shape)
    for d in dims:
        shape.insert(d, 1)
    kept = [i for i in range(ndim_out) if i not in dims]
    return broadcast_in_dim(array, tuple(shape), tuple(kept))


def _broadcast_in_dim_transpose(ct, operand, shape, broadcast_dimensions, sharding):
    """Sum the cotangent over the axes the broadcast created or stretched
    (the operand's size-1 axes), then restore those size-1 axes (SPEC AD-21)."""
    in_shape = operand.aval.shape
    unit = tuple(i for i, s in enumerate(in_shape) if s == 1)
    kept = {d for i, d in enumerate(broadcast_dimensions) if i not in unit}
    summed = reductions.reduce_sum(ct, tuple(d for d in range(len(shape)) if d not in kept))
    # ``summed`` has the kept operand axes in output order; put them back
    # in operand order (they differ for a transposing broadcast).
    kept_axes = [i for i in _increasing_order(broadcast_dimensions) if i not in unit]
    perm = tuple(kept_axes.index(i) for i in sorted(kept_axes))
    if perm != tuple(range(len(perm))):
        summed = transpose(summed, perm)
    return [expand_dims(summed, unit)]


ad.deflinear(broadcast_in_dim_p, _broadcast_in_dim_transpose)


def _broadcast_in_dim_batch(axis_data, vals, dims, *, shape, broadcast_dimensions,
                            sharding):
    """The batch axis goes first in the operand and in the target shape;
    the operand's other axes land one further along (SPEC VMAP-20)."""
    x = batching.moveaxis(vals[0], dims[0], 0)
    out_dims = (0,) + tuple(d + 1 for d in broadcast_dimensions)
    return broadcast_in_dim(x, (axis_data.size,) + shape, out_dims), 0


broadcast_in_dim_p.batch = _broadcast_in_dim_batch


def _broadcast_in_dim_sharding(params, in_dims, in_avals, out_avals):
    dims = [()] * out_avals[0].ndim
    shape = out_avals[0].shape
    for i, j in enumerate(params["broadcast_dimensions"]):
        if in_avals[0].shape[i] == shape[j]:
            dims[j] = in_dims[0][i]
    return [tuple(dims)]


broadcast_in_dim_p.sharding_rule = _broadcast_in_dim_sharding


def _broadcast_in_dim_physical(b, ai, ao, *, shape, broadcast_dimensions, sharding):
    """Keys (SPEC RNG-20): the key-data axes are carried along, unbroadcast."""
    return broadcast_in_dim_p.impl(
        b[0], shape=tuple(shape) + ai[0].dtype.data_shape,
        broadcast_dimensions=tuple(broadcast_dimensions) + lax.data_axes(len(shape), ai[0]),
        sharding=sharding)


broadcast_in_dim_p.physical = _broadcast_in_dim_physical
broadcast_in_dim_p.key_reuse = kr.FORWARD   # SPEC RNG-66


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


def _reshape_transpose(ct, operand, new_sizes, dimensions, sharding):
    """Reshape back; with ``dimensions``, undo the permutation too (SPEC AD-21)."""
    shape = operand.aval.shape
    if dimensions is None:
        return [reshape(ct, shape)]
    permuted = reshape(ct, tuple(shape[d] for d in dimensions))
    return [transpose(permuted, tuple(np.argsort(dimensions)))]


ad.deflinear(reshape_p, _reshape_transpose)


def _reshape_batch(axis_data, vals, dims, *, new_sizes, dimensions, sharding):
    """Reshape with the batch axis moved to the front and kept there; a
    permutation ``dimensions`` keeps the batch axis first (SPEC VMAP-20)."""
    x = batching.moveaxis(vals[0], dims[0], 0)
    if dimensions is not None:
        dimensions = (0,) + tuple(d + 1 for d in dimensions)
    return reshape(x, (axis_data.size,) + new_sizes, dimensions), 0


reshape_p.batch = _reshape_batch


def _reshape_sharding(params, in_dims, in_avals, out_avals):
    """Where a run of input dims maps onto a run of output dims, the major
    input dim's axes go to the major output dim (SHD-46)."""
    src, dst = in_avals[0].shape, out_avals[0].shape
    d = in_dims[0]
    out = [()] * len(dst)
    i = j = 0
    while i < len(src) and j < len(dst):
        gi, gj = [i], [j]
        a, b = src[i], dst[j]
        while a != b:
            if a < b:
                i += 1
                if i >= len(src):
                    break
                gi.append(i)
                a *= src[i]
            else:
                j += 1
                if j >= len(dst):
                    break
                gj.append(j)
                b *= dst[j]
        if all(not d[k] for k in gi[1:]):
            out[gj[0]] = d[gi[0]]
        i, j = gi[-1] + 1, gj[-1] + 1
    return [tuple(out)]


reshape_p.sharding_rule = _reshape_sharding


def _reshape_physical(b, ai, ao, *, new_sizes, dimensions, sharding):
    if dimensions is not None:
        dimensions = tuple(dimensions) + lax.data_axes(len(ai[0].shape), ai[0])
    return reshape_p.impl(b[0], new_sizes=tuple(new_sizes) + ai[0].dtype.data_shape,
                          dimensions=dimensions, sharding=sharding)


reshape_p.physical = _reshape_physical
reshape_p.key_reuse = kr.FORWARD   # SPEC RNG-66


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


ad.deflinear(transpose_p, lambda ct, operand, permutation:
             [transpose(ct, tuple(np.argsort(permutation)))])


def _transpose_batch(axis_data, vals, dims, *, permutation):
    """One transpose that also brings the batch axis to the front
    (SPEC VMAP-20)."""
    bdim = dims[0]
    perm = (bdim,) + tuple(batching.shift_axis_param(p, bdim) for p in permutation)
    return transpose(vals[0], perm), 0


transpose_p.batch = _transpose_batch


def _transpose_sharding(params, in_dims, in_avals, out_avals):
    d = in_dims[0]
    return [tuple(d[p] for p in params["permutation"])]


transpose_p.sharding_rule = _transpose_sharding
transpose_p.physical = lambda b, ai, ao, *, permutation: transpose_p.impl(
    b[0], permutation=tuple(permutation) + lax.data_axes(len(permutation), ai[0]))


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
    if len(set(dims)) != len(dims):
        raise ValueError(f"dimensions are not unique: {dims}")    # SPEC LXM-24
    if not dims and isinstance(array, (Tracer, core.ArrayImpl)):
        return array
    return squeeze_p.bind(array, dimensions=dims)


ad.deflinear(squeeze_p, lambda ct, operand, dimensions: [expand_dims(ct, dimensions)])


def _squeeze_batch(axis_data, vals, dims, *, dimensions):
    """Squeeze with the batch axis moved to the front (SPEC VMAP-20)."""
    x = batching.moveaxis(vals[0], dims[0], 0)
    return squeeze(x, tuple(d + 1 for d in dimensions)), 0


squeeze_p.batch = _squeeze_batch


def _squeeze_sharding(params, in_dims, in_avals, out_avals):
    gone = {a % in_avals[0].ndim for a in params["dimensions"]}
    return [tuple(x for i, x in enumerate(in_dims[0]) if i not in gone)]


squeeze_p.sharding_rule = _squeeze_sharding
squeeze_p.physical = lax.physical_same_params(squeeze_p)   # keys (RNG-20)
squeeze_p.key_reuse = kr.FORWARD   # SPEC RNG-66


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


ad.deflinear(rev_p, lambda ct, operand, dimensions: [rev(ct, dimensions)])


def _rev_batch(axis_data, vals, dims, *, dimensions):
    """Reverse the same axes, renumbered around the batch axis, which stays
    put (SPEC VMAP-21)."""
    bdim = dims[0]
    return rev(vals[0], tuple(batching.shift_axis_param(d, bdim) for d in dimensions)), bdim


rev_p.batch = _rev_batch
rev_p.physical = lax.physical_same_params(rev_p)   # keys (RNG-20)


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
    # Traced programs build shapes without allocating: a doubling loop can
    # reach sizes no array can have (SPEC FUZZ-3).
    core.check_array_size(shape, getattr(first.dtype, "itemsize", 1))
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


def _concatenate_transpose(ct, *operands, dimension):
    """Each linear operand gets its piece of the cotangent (SPEC AD-21)."""
    sizes = [_aval(o).shape[dimension] for o in operands]
    pieces = split(ct, sizes, dimension)
    return [p if ad.is_undefined_primal(o) else None for p, o in zip(pieces, operands)]


def _aval(x):
    """The abstract value of an operand of a rule, linear or not."""
    return x.aval if ad.is_undefined_primal(x) else core.get_aval(x)


ad.deflinear(concatenate_p, _concatenate_transpose)


def _concatenate_batch(axis_data, vals, dims, *, dimension):
    """Every operand batched along the front (unbatched ones broadcast),
    joined along ``dimension + 1`` (SPEC VMAP-22)."""
    operands = [batching.bdim_at_front(v, d, axis_data.size) for v, d in zip(vals, dims)]
    return concatenate(operands, dimension + 1), 0


concatenate_p.batch = _concatenate_batch
concatenate_p.physical = lax.physical_same_params(concatenate_p)   # keys (RNG-20)


def _concatenate_key_reuse(eqn):
    """Joining several key arrays consumes them all; one is forwarded
    (refjax's ``stack`` is JAX's broadcast + concatenate, RNG-69)."""
    if len(eqn.invars) == 1:
        return kr.KeyReuseSignature(kr.Forward(0, 0))
    return kr.KeyReuseSignature(*(kr.Sink(i) for i in range(len(eqn.invars))), kr.Source(0))


concatenate_p.key_reuse = _concatenate_key_reuse


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


def _split_transpose(cts, operand, sizes, axis):
    """Concatenate the pieces' cotangents, zeros for unused pieces (SPEC AD-21)."""
    return [concatenate([ad.instantiate_zeros(c) for c in cts], axis)]


ad.deflinear(split_p, _split_transpose)


def _split_batch(axis_data, vals, dims, *, sizes, axis):
    """Split along the renumbered axis; every piece keeps the operand's
    batch axis (SPEC VMAP-21)."""
    bdim = dims[0]
    pieces = split(vals[0], sizes, batching.shift_axis_param(axis, bdim))
    return pieces, [bdim] * len(pieces)


split_p.batch = _split_batch
split_p.physical = lax.physical_same_params(split_p)   # keys (RNG-20)


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


def _stack_transpose(ct, *operands, axis):
    """Slice the cotangent along the new axis, one slice per operand (SPEC AD-21)."""
    pieces = split(ct, (1,) * len(operands), axis)
    return [squeeze(p, (axis,)) if ad.is_undefined_primal(o) else None
            for p, o in zip(pieces, operands)]


ad.deflinear(stack_p, _stack_transpose)


def _stack_batch(axis_data, vals, dims, *, axis):
    """When every operand is batched along the same axis, stack them as they
    are (the new axis and the batch axis renumbered around each other);
    otherwise batch every operand along the front, unbatched ones by
    broadcasting, and stack along ``axis + 1`` (SPEC VMAP-22)."""
    bdim = dims[0]
    if bdim is not None and all(d == bdim for d in dims):
        if axis <= bdim:
            return stack_p.bind(*vals, axis=axis), bdim + 1
        return stack_p.bind(*vals, axis=axis + 1), bdim
    operands = [batching.bdim_at_front(v, d, axis_data.size) for v, d in zip(vals, dims)]
    return stack_p.bind(*operands, axis=axis + 1), 0


stack_p.batch = _stack_batch
stack_p.physical = lax.physical_same_params(stack_p)   # keys (RNG-20)
stack_p.key_reuse = _concatenate_key_reuse


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


def _tile_transpose(ct, operand, reps):
    """Sum the copies: axis ``i`` of the cotangent is split into
    ``(reps[i], size_i)`` and the repetition axes are summed (SPEC AD-21)."""
    shape = operand.aval.shape
    split_shape = tuple(k for pair in zip(reps, shape) for k in pair)
    return [reductions.reduce_sum(reshape(ct, split_shape), tuple(range(0, 2 * len(shape), 2)))]


ad.deflinear(tile_p, _tile_transpose)


def _tile_batch(axis_data, vals, dims, *, reps):
    """The batch axis is repeated once; it stays put (SPEC VMAP-21)."""
    bdim = dims[0]
    reps = list(reps)
    reps.insert(bdim, 1)
    return tile(vals[0], reps), bdim


tile_p.batch = _tile_batch
tile_p.physical = lambda b, ai, ao, *, reps: tile_p.impl(
    b[0], reps=tuple(reps) + (1,) * len(ai[0].dtype.data_shape))


pad_p = Primitive("pad")


@pad_p.def_abstract_eval
def _pad_abstract_eval(x, padding_value, padding_config):
    if padding_value.shape != ():
        raise ValueError("padding_value must be a scalar; got "
                         f"np.shape(padding_value)={padding_value.shape}")
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
    return ShapedArray(shape, x.dtype, x.weak_type and padding_value.weak_type)


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
    try:
        config = tuple(tuple(v if isinstance(v, (int, np.integer)) else operator.index(v)
                             for v in triple) for triple in padding_config)
    except TypeError:
        # Left to the shape rule, as JAX does: the padding value and the
        # config's length are checked before its entries (SPEC LAX-17).
        config = tuple(padding_config)
    return pad_p.bind(operand, padding_value, padding_config=config)


def _pad_transpose(ct, operand, padding_value, padding_config):
    """Linear in the operand and the padding value (SPEC AD-21).

    The operand's cotangent is the cotangent with the padding cut away; the
    padding value's is the sum of the rest (every padded position)."""
    kept = _unpad(ct, padding_config)
    ct_operand = kept if ad.is_undefined_primal(operand) else None
    ct_value = None
    if ad.is_undefined_primal(padding_value):
        every = tuple(range(len(padding_config)))
        ct_value = lax.sub(reductions.reduce_sum(ct, every), reductions.reduce_sum(kept, every))
    return [ct_operand, ct_value]


def _unpad(ct, padding_config):
    """The positions of ``ct`` that came from the operand: negate the edge
    padding, then step over the interior padding."""
    zero = np.array(0, core.get_aval(ct).dtype)
    cropped = pad(ct, zero, [(-lo, -hi, 0) for lo, hi, _ in padding_config])
    shape = core.get_aval(cropped).shape
    return slice(cropped, (0,) * len(shape), shape,
                 tuple(interior + 1 for _, _, interior in padding_config))


ad.deflinear(pad_p, _pad_transpose)


def _pad_batch(axis_data, vals, dims, *, padding_config):
    """The batch axis gets no padding (SPEC VMAP-23).

    An unbatched operand is broadcast along the front.  A batched padding
    value (one scalar per example) cannot be a ``pad`` operand: the operand
    is padded with zero, and a ``select_n`` on a mask of the padded
    positions takes each example's value there."""
    (x, value), (bdim, value_bdim) = vals, dims
    if bdim is None:
        x, bdim = batching.broadcast(x, axis_data.size, 0), 0
    config = list(padding_config)
    config.insert(bdim, (0, 0, 0))
    if value_bdim is None:
        return pad(x, value, config), bdim
    padded = pad(x, lax.full_like(x, 0, shape=()), config)
    kept = pad(lax.full_like(x, True, np.bool_), np.array(False), config)
    spread = broadcast_in_dim(value, core.get_aval(padded).shape, (bdim,))
    return lax.select(kept, padded, spread), bdim


pad_p.batch = _pad_batch


slice_p = Primitive("slice")


@slice_p.def_abstract_eval
def _slice_abstract_eval(x, start_indices, limit_indices, strides):
    if len(start_indices) != x.ndim or len(limit_indices) != x.ndim:
        raise TypeError("slice start_indices and limit_indices must have length "
                        f"equal to the number of dimensions of the operand, got "
                        f"start_indices {start_indices} and limit_indices "
                        f"{limit_indices} for operand shape {x.shape}.")
    strides = strides or (1,) * x.ndim
    if len(strides) != x.ndim or not all(st >= 1 for st in strides):
        raise TypeError("slice strides must have one positive element per "
                        f"dimension of the operand, got strides {strides} for "
                        f"operand shape {x.shape}.")
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


class AxisError(IndexError, ValueError):
    """An axis outside an operand's rank: an IndexError, as JAX raises from
    its ``*_in_dim`` helpers, and a ValueError, as NumPy's AxisError is."""


def in_dim_axis(axis, ndim):
    """The ``axis`` of a ``*_in_dim`` helper as a non-negative int; out of
    range an AxisError (SPEC IDX-37)."""
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise AxisError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def slice_in_dim(operand, start_index, limit_index, stride=1, axis=0):
    """``slice`` along one axis.  ``None`` means the axis' start or end and a
    negative bound counts from the end once; bounds are not clamped, so one
    outside the axis, a limit before the start or a stride below 1 is the
    TypeError of ``slice`` (SPEC IDX-37)."""
    aval = core.get_aval(operand)
    axis = in_dim_axis(axis, aval.ndim)
    size = aval.shape[axis]
    start = 0 if start_index is None else operator.index(start_index)
    limit = size if limit_index is None else operator.index(limit_index)
    start, limit = (start + size if start < 0 else start,
                    limit + size if limit < 0 else limit)
    starts = [0] * aval.ndim
    limits = list(aval.shape)
    strides = [1] * aval.ndim
    starts[axis], limits[axis], strides[axis] = start, limit, operator.index(stride)
    # Always explicit strides: JAX prints ``strides=(1, 1)`` for these
    # (``strides=None`` comes from jnp's static indexing instead).
    return slice(operand, starts, limits, strides)


def index_in_dim(operand, index, axis=0, keepdims=True):
    """Element ``index`` of axis ``axis`` as a static slice."""
    aval = core.get_aval(operand)
    axis = in_dim_axis(axis, aval.ndim)
    size = aval.shape[axis]
    index = operator.index(index)
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for axis {axis} with size {size}")
    index %= size
    out = slice_in_dim(operand, index, index + 1, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


def _slice_transpose(ct, operand, start_indices, limit_indices, strides):
    """Pad the cotangent back to the operand's shape with zeros, strided
    slices spreading it with interior padding (SPEC AD-21)."""
    shape = operand.aval.shape
    ct_shape = core.get_aval(ct).shape
    strides = strides or (1,) * len(shape)
    config = []
    for size, start, n, stride in zip(shape, start_indices, ct_shape, strides):
        end = start + (0 if n == 0 else (n - 1) * stride + 1)
        config.append((start, size - end, stride - 1))
    return [pad(ct, np.array(0, core.get_aval(ct).dtype), config)]


ad.deflinear(slice_p, _slice_transpose)


def _slice_batch(axis_data, vals, dims, *, start_indices, limit_indices, strides):
    """The whole batch axis is kept, stride 1; it stays put (SPEC VMAP-21)."""
    x, bdim = vals[0], dims[0]

    def insert(seq, value):
        seq = list(seq)
        seq.insert(bdim, value)
        return seq
    strides = None if strides is None else insert(strides, 1)
    return slice(x, insert(start_indices, 0),
                 insert(limit_indices, axis_data.size), strides), bdim


slice_p.batch = _slice_batch


def _slice_physical(b, ai, ao, *, start_indices, limit_indices, strides):
    k = ai[0].dtype.data_shape
    return slice_p.impl(
        b[0], start_indices=tuple(start_indices) + (0,) * len(k),
        limit_indices=tuple(limit_indices) + k,
        strides=None if strides is None else tuple(strides) + (1,) * len(k))


slice_p.physical = _slice_physical


def _slice_key_reuse(eqn):
    """``slice`` consumes exactly the sliced keys and returns fresh keys,
    so distinct elements of a split key array stay usable (RNG-69)."""
    aval = eqn.invars[0].aval
    if not kr.is_key(eqn.invars[0]):
        return kr.KeyReuseSignature(kr.Forward(0, 0))
    p = eqn.params
    strides = p["strides"] or (1,) * len(p["start_indices"])
    mask = np.zeros(aval.shape, dtype=bool)
    mask[tuple(map(builtins.slice, p["start_indices"], p["limit_indices"], strides))] = True
    return kr.KeyReuseSignature(kr.Sink(0, mask), kr.Source(0))


slice_p.key_reuse = _slice_key_reuse


iota_p = Primitive("iota")


@iota_p.def_abstract_eval
def _iota_abstract_eval(dtype, shape, dimension, sharding):
    lax._check_dtype("iota", dtype, lax._num)  # no bool iota, as in JAX
    return ShapedArray(shape, dtype)


@iota_p.def_impl
def _iota_impl(dtype, shape, dimension, sharding):
    xp = _xp()
    line = xp.arange(shape[dimension]).astype(dtype)
    view = [1] * len(shape)
    view[dimension] = shape[dimension]
    return xp.broadcast_to(line.reshape(view), shape).copy()


iota_p.not_supported("jvp", "no operands: iota takes no inputs, so no tangent "
                      "ever reaches it; JAX defines no JVP for iota either")
iota_p.not_supported("batch", "no operands: iota takes no inputs, so it is never "
                     "batched; JAX defines no batching rule for iota either")


def iota(dtype, size):
    """``[0, 1, ..., size-1]`` of ``dtype`` (no ``out_sharding``, as in JAX)."""
    return broadcasted_iota(dtype, (size,), 0)


def broadcasted_iota(dtype, shape, dimension, *, out_sharding=None):
    """An iota along ``dimension`` of an array of ``shape`` (SPEC LAX-12).

    The dtype is required; ``dimension`` is read with ``int()`` (``True``
    is 1, ``1.5`` is 1) and is not counted from the end: it must lie in
    ``[0, len(shape))`` (``ValueError``), as in JAX."""
    dtype = lax.required_dtype(dtype, "broadcasted_iota")
    shape = core.canonicalize_shape(shape, op="iota")
    dimension = builtins.int(dimension)
    lax.check_out_sharding(out_sharding, "broadcasted_iota")
    if not 0 <= dimension < len(shape):
        raise ValueError("iota dimension must be between 0 and len(shape), got "
                         f"{dimension=} for {shape=}")
    return iota_p.bind(dtype=dtype, shape=shape, dimension=dimension, sharding=None)


copy_p = Primitive("copy")
copy_p.def_abstract_eval(lambda x: x)
copy_p.def_impl(lambda x: x.copy())


ad.deflinear(copy_p, lambda ct, operand: [copy_p.bind(ct)])

# A copy acts on each element alone (SPEC VMAP-28).  ``iota`` has no operands,
# so it never sees a batched value and needs no rule.
batching.defvectorized(copy_p)
copy_p.sharding_rule = mesh.elementwise_sharding_rule
copy_p.physical = lax.physical_same_params(copy_p)   # keys (RNG-20)
copy_p.key_reuse = kr.FORWARD   # SPEC RNG-66

# Core and the interpreters apply these to tracers (``core.lax_ops``).
core.lax_ops.install(
    index_in_dim=index_in_dim, convert_element_type=lax._convert_element_type,
    broadcast=broadcast, transpose=transpose, broadcast_in_dim=broadcast_in_dim)
