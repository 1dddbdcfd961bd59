"""Collective operations over named axes: ``jax.lax.psum`` and friends.

A collective combines the values that the members of a *named* mapped axis
hold: ``vmap(f, axis_name='i')`` binds ``'i'`` while it traces ``f`` (SPEC
VMAP-70), and ``psum(x, 'i')`` inside ``f`` is the sum of ``x`` over the
examples.  Each collective is a primitive whose parameters name the axes;
the batching rule of the ``vmap`` that owns a name rewrites the collective
into ordinary array operations on the batched value (a reduction over the
batch axis, a ``transpose``, an ``iota``...), which is why these primitives
have no evaluation rule of their own: met outside every transformation that
binds their axis, they raise JAX's ``NameError`` (SPEC VMAP-78).

The rules follow JAX's formulations, so that ``make_jaxpr(vmap(f))`` shows
JAX's equations.  Primitive names and parameters are JAX's: ``psum``,
``pmax``, ``pmin`` (``axes``, ``axis_index_groups``), ``axis_index``,
``ppermute``, ``all_gather``, ``reduce_scatter`` (``psum_scatter``) and
``all_to_all``.  Their rules are flagged ``is_collective`` and
``batch_unmapped``, so a ``vmap`` sees them even when no operand is mapped
(``psum`` of an unmapped value is the value times the axis size).
"""
import math
import threading

import numpy as np

from refjax._src import core, tree_util
from refjax._src.core import Primitive, ShapedArray, Tracer
from refjax._src.interpreters import ad, batching
from refjax._src.lax import dynamic_slice, lax
from refjax._src.lax import reductions
from refjax._src.lax import reductions as _reductions
from refjax._src.lax import shapes

# ---------------------------------------------------------------------------
# Axis names
# ---------------------------------------------------------------------------

def _as_names(axis_name):
    """One axis name or a tuple/list of them, as a tuple."""
    if isinstance(axis_name, (tuple, list)):
        return tuple(axis_name)
    return (axis_name,)


def _is_positional(axis):
    return isinstance(axis, int)


def _named(axes):
    return tuple(a for a in axes if not _is_positional(a))


def _positional(axes):
    return tuple(a for a in axes if _is_positional(a))


def _hash_names(names):
    """Every axis name must be hashable: JAX looks names up in sets, so an
    unhashable one (a dict, a list, an array) raises ``TypeError`` before
    the name is resolved (SPEC LAX-13, VMAP-78)."""
    for name in names:
        hash(name)


def _check_operands(x):
    """The leaves of ``x`` as JAX values, checked before the axis names
    are: ``psum('abc', 'x')`` is a ``TypeError`` about ``'abc'`` (LAX-13)."""
    leaves = tree_util.tree_leaves(x)
    for leaf in leaves:
        _dtype_of(leaf)
    return leaves


def _check_bound(names, api_name):
    """JAX's error for a name no enclosing transformation binds (VMAP-78)."""
    for name in names:
        hash(name)      # TypeError for an unhashable name, as in JAX
        if not core.axis_exists(name):
            raise NameError(f"Found an unbound axis name: {name}. To fix this, "
                            f"please call {api_name} under `jax.shard_map`.")


def _unmapped_error(name):
    """Evaluating a collective whose named axes no transformation turned into
    array operations: a name bound only by ``make_jaxpr(axis_env=...)`` has
    no members to combine (SPEC VMAP-78)."""
    return RuntimeError(f"{name} must be used within a mapped context like "
                        "vmap or shard_map.")


def _unhandled(name):
    def impl(*args, **params):
        raise _unmapped_error(name)
    return impl


def _frame_has(axis_data, names):
    """Whether the axis being mapped is one of ``names``."""
    return axis_data.name is not None and axis_data.name in names


def _collective(name, names_of):
    """A primitive over the named axes ``names_of(params)``: its batching
    rule runs even when no operand is mapped, if the axis being mapped is
    one of those names (SPEC VMAP-73)."""
    prim = Primitive(name)
    prim.is_collective = True
    prim.batch_unmapped = lambda params, axis_data: _frame_has(axis_data,
                                                               names_of(params))
    return prim


def _canonical_groups(axis_index_groups):
    if axis_index_groups is None:
        return None
    return tuple(tuple(g) for g in axis_index_groups)


def _validate_reduce_groups(axis_index_groups):
    if axis_index_groups is None:
        return
    members = [i for g in axis_index_groups for i in g]
    if set(members) != set(range(len(members))):
        raise ValueError("axis_index_groups must cover all indices exactly once")


def _axis_size(axis_name, axis_index_groups=None):
    """The number of members of the named axes (a Python int)."""
    return psum(1, axis_name, axis_index_groups=axis_index_groups)


def _split_axis(x, axis, factor):
    """``x`` with axis ``axis`` (of size ``factor * n``) as two axes ``factor, n``."""
    shape = list(core.get_aval(x).shape)
    shape[axis:axis + 1] = [factor, shape[axis] // factor]
    return shapes.reshape(x, tuple(shape))


def _merge_axes(x, axis):
    """``x`` with axes ``axis`` and ``axis + 1`` merged into one (row-major)."""
    shape = list(core.get_aval(x).shape)
    shape[axis:axis + 2] = [shape[axis] * shape[axis + 1]]
    return shapes.reshape(x, tuple(shape))


def _swap_axes(x, a, b):
    perm = list(range(core.get_aval(x).ndim))
    perm[a], perm[b] = perm[b], perm[a]
    return shapes.transpose(x, tuple(perm))


# ---------------------------------------------------------------------------
# psum, pmax, pmin (SPEC VMAP-71, VMAP-72, VMAP-73)
# ---------------------------------------------------------------------------

def _allreduce_abstract_eval(x, *, axes, axis_index_groups):
    """The operand's shape less its positional axes; named axes must be bound.

    pmax and pmin report unbound names as ``psum`` does in JAX."""
    _check_bound(_named(axes), "psum")
    pos = _positional(axes)
    if axis_index_groups is not None and pos:
        raise ValueError("axis_index_groups can only be used with reductions over "
                         f"named axes, but got: {axes}")
    if any(not 0 <= a < x.ndim for a in pos):
        raise ValueError(f"reduction axes {pos} contains out-of-bounds indices "
                         f"for {x.str_short()}.")
    shape = tuple(s for i, s in enumerate(x.shape) if i not in pos)
    return ShapedArray(shape, x.dtype)


def _allreduce(name, reducer_p, if_unmapped):
    """A reduction over named and positional axes; ``if_unmapped(x, n)`` is
    its value over an axis of ``n`` members that all hold ``x``."""
    prim = _collective(name, lambda params: params["axes"])
    prim.def_abstract_eval(_allreduce_abstract_eval)

    def impl(x, *, axes, axis_index_groups):
        if _named(axes):
            raise _unmapped_error(name)
        return reducer_p.impl(x, axes=axes)

    prim.def_impl(impl)
    prim.batch = lambda axis_data, vals, dims, **params: _allreduce_batch(
        prim, if_unmapped, axis_data, vals, dims, **params)
    return prim


def _allreduce_batch(prim, if_unmapped, axis_data, vals, dims, *, axes,
                     axis_index_groups):
    """Batching of psum/pmax/pmin (SPEC VMAP-73).

    Over the mapped axis the reduction becomes a positional one over the
    batch axis (moved to the front), and the result is unmapped: every
    example holds it.  An unmapped operand needs no reduction: ``psum`` is
    the value times the axis size, ``pmax``/``pmin`` the value.  Positional
    axes of other reductions are renumbered around the batch axis."""
    (x,), (d,) = vals, dims
    here = _frame_has(axis_data, axes)
    if d is None and not here:
        return prim.bind(x, axes=axes, axis_index_groups=axis_index_groups), None
    if d is None:
        return _unmapped_reduction(prim, if_unmapped, axis_data, x, axes,
                                   axis_index_groups), None
    if not here and not _positional(axes):
        return prim.bind(x, axes=axes, axis_index_groups=axis_index_groups), d
    if axis_index_groups is not None:
        raise NotImplementedError("axis_index_groups not supported in vmap "
                                  "collectives. Please open a feature request!")
    x = batching.moveaxis(x, d, 0)
    # Negative positional axes are not counted from the end here, as in JAX:
    # they stay negative and the abstract rule rejects them.
    new_axes = tuple((a + 1 if a >= 0 else a) if _is_positional(a)
                     else 0 if a == axis_data.name else a for a in axes)
    out = prim.bind(x, axes=new_axes, axis_index_groups=None)
    return out, (None if here else 0)


def _unmapped_reduction(prim, if_unmapped, axis_data, x, axes, axis_index_groups):
    """The reduction of an unmapped ``x``: the other axes are reduced by the
    enclosing transformations, this one by ``if_unmapped``."""
    if axis_index_groups:
        raise NotImplementedError  # JAX gives no message here
    rest = tuple(a for a in axes if a != axis_data.name)
    if rest:
        x = prim.bind(x, axes=rest, axis_index_groups=axis_index_groups)
    return if_unmapped(x, axis_data.size)


def _times(x, n):
    """``n * x`` in ``x``'s dtype (a Python number for a Python number)."""
    c = lax._const(x, n)
    if type(x) in (int, float, complex):
        return c * x
    return lax.mul(c, x)


psum_p = _allreduce("psum", _reductions.reduce_sum_p, _times)
pmax_p = _allreduce("pmax", _reductions.reduce_max_p, lambda x, n: x)
pmin_p = _allreduce("pmin", _reductions.reduce_min_p, lambda x, n: x)
for _name, _prim in (("pmax", pmax_p), ("pmin", pmin_p)):
    _prim.not_supported("jvp", f"undefined in JAX: JAX defines no JVP for {_name}, so "
                        "differentiating it raises NotImplementedError, as here")


def _psum_transpose(ct, x, *, axes, axis_index_groups):
    """Positional axes broadcast the cotangent back; named axes sum it again
    over the members, since every member used the sum (SPEC VMAP-79)."""
    pos = _positional(axes)
    if pos:
        shape = x.aval.shape
        ct = shapes.broadcast_in_dim(ct, shape, tuple(i for i in range(len(shape))
                                                   if i not in pos))
    return [psum_p.bind(ct, axes=_named(axes), axis_index_groups=axis_index_groups)]


ad.deflinear(psum_p, _psum_transpose)


def _reduce_axes(axis_name, axis_index_groups):
    axes = _as_names(axis_name)
    if axis_index_groups is not None and _positional(axes):
        raise ValueError("axis_index_groups only supported for sums over just named axes")
    _validate_reduce_groups(axis_index_groups)
    return axes, _canonical_groups(axis_index_groups)


def psum(x, axis_name, *, axis_index_groups=None):
    """The sum of ``x`` over the members of ``axis_name`` (SPEC VMAP-71).

    ``axis_name`` is a name, an int (a positional axis of ``x``) or a tuple
    of them; ``x`` is a pytree.  Booleans are summed as int32.  When no leaf
    is a tracer the result is computed at once: ``x`` times the axis size
    (a Python number stays a Python number, so ``psum(1, 'i')`` is the
    size)."""
    axes = _as_names(axis_name)
    if not axes or not _check_operands(x):
        return x
    _hash_names(axes)
    axes, groups = _reduce_axes(axis_name, axis_index_groups)
    leaves, tree = tree_util.tree_flatten(x)
    leaves = [lax.convert_element_type(leaf, np.int32)
              if _dtype_of(leaf) == np.bool_ else leaf for leaf in leaves]
    if any(isinstance(leaf, Tracer) for leaf in leaves):
        outs = [psum_p.bind(leaf, axes=axes, axis_index_groups=groups) for leaf in leaves]
    else:
        outs = [_constant_psum(leaf, axes, groups) for leaf in leaves]
    return tree_util.tree_unflatten(tree, outs)


def _dtype_of(x):
    try:
        return core.get_aval(x).dtype
    except TypeError:
        raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type") from None


def _constant_psum(x, axes, groups):
    """psum of a concrete value: every member holds ``x``."""
    named, pos = _named(axes), _positional(axes)
    if groups is not None:
        size = len(groups[0])
    else:
        size = math.prod(core.axis_size(name) for name in named)
    if pos:
        ndim = core.get_aval(x).ndim
        x = reductions.reduce_sum(x, tuple(core.canonicalize_axis(a, ndim) for a in pos))
    return _times(x, size)


def pmean(x, axis_name, *, axis_index_groups=None):
    """The mean of ``x`` over the members of ``axis_name``: ``psum`` divided
    by the axis size (SPEC VMAP-71)."""
    x = psum(x, axis_name, axis_index_groups=axis_index_groups)
    n = _axis_size(axis_name, axis_index_groups)
    return tree_util.tree_map(lambda v: v / n, x)


def _pmax_pmin(prim, x, axis_name, axis_index_groups):
    axes, groups = _reduce_axes(axis_name, axis_index_groups)
    return tree_util.tree_map(
        lambda leaf: prim.bind(leaf, axes=axes, axis_index_groups=groups), x)


def pmax(x, axis_name, *, axis_index_groups=None):
    """The maximum of ``x`` over the members of ``axis_name`` (SPEC VMAP-72)."""
    return _pmax_pmin(pmax_p, x, axis_name, axis_index_groups)


def pmin(x, axis_name, *, axis_index_groups=None):
    """The minimum of ``x`` over the members of ``axis_name`` (SPEC VMAP-72)."""
    return _pmax_pmin(pmin_p, x, axis_name, axis_index_groups)


def axis_size(axis_name):
    """The number of members of ``axis_name`` (a name or a tuple of names),
    as a Python int (SPEC VMAP-71)."""
    return _axis_size(axis_name)


# ---------------------------------------------------------------------------
# axis_index (SPEC VMAP-74)
# ---------------------------------------------------------------------------

axis_index_p = _collective("axis_index", lambda params: _as_names(params["axis_name"]))


@axis_index_p.def_abstract_eval
def _axis_index_abstract_eval(*, axis_name):
    _check_bound(_as_names(axis_name), "axis_index")
    return ShapedArray((), np.dtype(np.int32))


axis_index_p.def_impl(_unhandled("axis_index"))


def _axis_index_batch(axis_data, vals, dims, *, axis_name):
    """Over the mapped axis the index is ``iota``, mapped along axis 0."""
    if not _frame_has(axis_data, _as_names(axis_name)):
        return axis_index_p.bind(axis_name=axis_name), None
    return shapes.iota(np.int32, axis_data.size), 0


axis_index_p.batch = _axis_index_batch
axis_index_p.not_supported("jvp", "no operands: axis_index takes no inputs, so no "
                           "tangent ever reaches it; JAX defines no JVP for it either")


def axis_index(axis_name):
    """This member's index along ``axis_name`` (int32).  For a tuple of
    names, the row-major index over all of them (SPEC VMAP-74)."""
    if not isinstance(axis_name, (tuple, list)):
        return axis_index_p.bind(axis_name=axis_name)
    index, inner = lax.asarray(0), 1
    for name in reversed(axis_name):
        index = index + axis_index(name) * inner
        inner *= axis_size(name)
    return index


# ---------------------------------------------------------------------------
# ppermute (SPEC VMAP-76)
# ---------------------------------------------------------------------------

ppermute_p = _collective("ppermute", lambda params: params["axis_name"])


@ppermute_p.def_abstract_eval
def _ppermute_abstract_eval(x, *, axis_name, perm):
    _check_bound(axis_name, "ppermute")
    return x


def _ppermute_impl(x, *, axis_name, perm):
    raise NotImplementedError("Evaluation rule for 'ppermute' not implemented")


ppermute_p.def_impl(_ppermute_impl)


def _bind_ppermute(x, axis_name, perm):
    # JAX has no evaluation rule for ppermute and looks for one before
    # checking the axis names (but after reading the operand as a JAX
    # value): run eagerly, it fails that way (VMAP-78).
    if core.current_trace() is core.eval_trace:
        _check_operand("ppermute", x)
        _ppermute_impl(x, axis_name=axis_name, perm=perm)
    return ppermute_p.bind(x, axis_name=axis_name, perm=perm)


def _ppermute_batch(axis_data, vals, dims, *, axis_name, perm):
    """Over the mapped axis, example ``dst`` takes example ``src``'s value
    (a ``take`` along the batch axis).  With several names, the mapped one
    is dropped and the others permute, as in JAX."""
    (x,), (d,) = vals, dims
    if not _frame_has(axis_data, axis_name):
        return _bind_ppermute(x, axis_name, perm), d
    rest = tuple(n for n in axis_name if n != axis_data.name)
    if rest:
        return _bind_ppermute(x, rest, perm), d
    if len(perm) != axis_data.size:
        raise AssertionError("Permutation doesn't match the axis size!")
    if d is None:
        return x, None
    source = np.zeros(axis_data.size, dtype=int)
    for src, dst in perm:
        source[dst] = src
    return x.take(source, d), d


ppermute_p.batch = _ppermute_batch


def _ppermute_transpose(ct, x, *, axis_name, perm):
    """The inverse permutation carries cotangents back (SPEC VMAP-79)."""
    return [ppermute(ct, axis_name, [(dst, src) for src, dst in perm])]


ad.deflinear(ppermute_p, _ppermute_transpose)


def _check_operand(name, x):
    """JAX's TypeError for an operand that is no JAX value, raised as its
    ``bind`` raises it before it looks for an evaluation rule (VMAP-78)."""
    if not core.is_array_like(x):
        raise TypeError(f"Error interpreting argument to {name} as a JAX value. The "
                        f"problematic value is of type {type(x)} and was passed to "
                        f"{name} at position 0.")


def ppermute(x, axis_name, perm):
    """Send each member's ``x`` to another: ``perm`` holds ``(source,
    destination)`` index pairs (under ``vmap``, one per member) (SPEC
    VMAP-76).  As in JAX, ``perm`` is read only when ``x`` has leaves."""
    names = axis_name if isinstance(axis_name, (tuple, list)) else (axis_name,)
    if isinstance(names, list):
        raise TypeError("As of JAX v0.7, parameters to jaxpr equations must have "
                        "__hash__ and __eq__ methods. In a call to primitive "
                        f"ppermute, the value of parameter axis_name was not "
                        f"hashable: {names}")
    if not tree_util.tree_leaves(x):
        return x
    perm = tuple(tuple(pair) for pair in perm)
    if _manual(names) and (len(names) > 1 or len(perm) < _axis_size(names, None)):
        return tree_util.tree_map(lambda leaf: _manual_ppermute(leaf, names, perm), x)
    return tree_util.tree_map(lambda leaf: _bind_ppermute(leaf, names, perm), x)


def pshuffle(x, axis_name, perm):
    """``ppermute`` where member ``i`` receives from member ``perm[i]``."""
    if set(perm) != set(range(len(perm))):
        raise ValueError(f"`perm` does not represent a permutation: {perm}")
    return ppermute(x, axis_name, list(zip(perm, range(len(perm)))))


# ---------------------------------------------------------------------------
# all_gather and psum_scatter (SPEC VMAP-75)
# ---------------------------------------------------------------------------

all_gather_p = _collective("all_gather", lambda params: params["axis_name"])
reduce_scatter_p = _collective("reduce_scatter", lambda params: params["axis_name"])


@all_gather_p.def_abstract_eval
def _all_gather_abstract_eval(x, *, all_gather_dimension, axis_name,
                              axis_index_groups, axis_size, tiled):
    _check_bound(axis_name, "all_gather")
    shape = list(x.shape)
    if tiled:
        shape[all_gather_dimension] *= axis_size
    else:
        shape.insert(all_gather_dimension, axis_size)
    return ShapedArray(tuple(shape), x.dtype, x.weak_type)


@reduce_scatter_p.def_abstract_eval
def _reduce_scatter_abstract_eval(x, *, axis_name, scatter_dimension,
                                  axis_index_groups, axis_size, tiled):
    _check_bound(axis_name, "reduce_scatter")
    shape = _scattered_shape(x.shape, scatter_dimension, axis_size, tiled)
    return ShapedArray(shape, x.dtype, x.weak_type)


def _scattered_shape(shape, dim, size, tiled):
    """The shape each member keeps of a scattered sum, with JAX's errors."""
    shape = list(shape)
    n = shape[core.canonicalize_axis(dim, len(shape))]
    if tiled:
        if n % size:
            raise ValueError(f"tiled reduce_scatter operand scatter dimension size "
                             f"{n} must be divisible by shard_count {size}")
        shape[dim] = n // size
    else:
        if n != size:
            raise ValueError(f"reduce_scatter operand scatter dimension size {n} "
                             f"must match shard count {size}")
        del shape[dim]
    return tuple(shape)


all_gather_p.def_impl(_unhandled("all_gather"))
reduce_scatter_p.def_impl(_unhandled("reduce_scatter"))


def _check_single_frame(axis_data, axis_name, axis_index_groups, axis_size):
    """all_gather/reduce_scatter under vmap handle one name without groups,
    raising JAX's errors otherwise."""
    if axis_index_groups is not None:
        raise NotImplementedError("axis_index_groups not supported in vmap")
    if axis_size != axis_data.size:
        raise AssertionError("axis size doesn't match")
    if len(axis_name) > 1:
        raise NotImplementedError("Please open a feature request!")


def _around_batch_axis(dim, d, tiled):
    """For a gather/scatter over another name: its per-example axis ``dim``
    and the batch axis ``d`` as axes of the batched operand and result (an
    untiled collective adds or removes axis ``dim``)."""
    if d is None:
        return dim, d
    if d <= dim:
        return dim + 1, d
    return dim, (d if tiled else d + 1)


def _all_gather_batch(axis_data, vals, dims, *, all_gather_dimension, axis_name,
                      axis_index_groups, axis_size, tiled):
    """Over the mapped axis, the batch axis *is* the gathered one: it moves
    to ``all_gather_dimension`` (merged into it when tiled), and every
    example holds the result (unmapped)."""
    (x,), (d,) = vals, dims
    dim = all_gather_dimension
    if not _frame_has(axis_data, axis_name):
        dim, d = _around_batch_axis(dim, d, tiled)
        out = all_gather_p.bind(x, all_gather_dimension=dim, axis_name=axis_name,
                                axis_index_groups=axis_index_groups,
                                axis_size=axis_size, tiled=tiled)
        return out, d
    _check_single_frame(axis_data, axis_name, axis_index_groups, axis_size)
    if d is None:
        y = batching.broadcast(x, axis_size, dim)
    else:
        y = batching.moveaxis(x, d, dim)
    return (_merge_axes(y, dim) if tiled else y), None


def _reduce_scatter_batch(axis_data, vals, dims, *, axis_name, scatter_dimension,
                          axis_index_groups, axis_size, tiled):
    """Over the mapped axis: the sum over the batch axis, whose
    ``scatter_dimension`` (split in ``axis_size`` blocks when tiled) becomes
    the batch axis, example ``k`` keeping block ``k``."""
    (x,), (d,) = vals, dims
    dim = scatter_dimension
    if not _frame_has(axis_data, axis_name):
        dim, d = _around_batch_axis(dim, d, tiled)
        out = reduce_scatter_p.bind(x, axis_name=axis_name, scatter_dimension=dim,
                                    axis_index_groups=axis_index_groups,
                                    axis_size=axis_size, tiled=tiled)
        return out, d
    _check_single_frame(axis_data, axis_name, axis_index_groups, axis_size)
    y = lax.mul(x, lax._const(x, axis_size)) if d is None else reductions.reduce_sum(x, (d,))
    # JAX leaves the scattered size unchecked under vmap; refjax raises the
    # error JAX gives when the collective is staged (VMAP-75).
    shape = core.get_aval(y).shape
    dim = core.canonicalize_axis(dim, len(shape))
    _scattered_shape(shape, dim, axis_size, tiled)
    return (_split_axis(y, dim, axis_size) if tiled else y), dim


all_gather_p.batch = _all_gather_batch
reduce_scatter_p.batch = _reduce_scatter_batch


def _all_gather_transpose(ct, x, *, all_gather_dimension, axis_name,
                          axis_index_groups, axis_size, tiled):
    """Each member's slice of the gathered cotangent, summed (VMAP-79)."""
    return [psum_scatter(ct, axis_name, scatter_dimension=all_gather_dimension,
                         axis_index_groups=axis_index_groups, tiled=tiled)]


def _reduce_scatter_transpose(ct, x, *, axis_name, scatter_dimension,
                              axis_index_groups, axis_size, tiled):
    return [all_gather(ct, axis_name, axis_index_groups=axis_index_groups,
                       axis=scatter_dimension, tiled=tiled)]


ad.deflinear(all_gather_p, _all_gather_transpose)
ad.deflinear(reduce_scatter_p, _reduce_scatter_transpose)


def all_gather(x, axis_name, *, axis_index_groups=None, axis=0, tiled=False):
    """Every member's ``x``, stacked along a new axis ``axis`` (or
    concatenated along the existing ``axis`` when ``tiled``) (SPEC VMAP-75)."""
    names = axis_name if isinstance(axis_name, tuple) else (axis_name,)
    if not names:
        return x
    _hash_names(names)
    if _manual(names) and axis_index_groups is None:
        return tree_util.tree_map(
            lambda leaf: _manual_all_gather(leaf, names, axis, tiled), x)
    groups = _canonical_groups(axis_index_groups)
    size = _axis_size(names, groups)

    def bind(leaf):
        ndim = core.get_aval(leaf).ndim
        dim = core.canonicalize_axis(axis, ndim if tiled else ndim + 1)
        return all_gather_p.bind(leaf, all_gather_dimension=dim, axis_name=names,
                                 axis_index_groups=groups, axis_size=size,
                                 tiled=bool(tiled))
    return tree_util.tree_map(bind, x)


def psum_scatter(x, axis_name, *, scatter_dimension=0, axis_index_groups=None,
                 tiled=False):
    """``psum`` of ``x`` of which member ``k`` keeps only block ``k`` along
    ``scatter_dimension`` (the ``reduce_scatter`` primitive, SPEC VMAP-75)."""
    names = axis_name if isinstance(axis_name, tuple) else (axis_name,)
    if not names or not _check_operands(x):
        return x
    _hash_names(names)
    if _manual(names) and len(names) > 1 and axis_index_groups is None:
        return tree_util.tree_map(
            lambda leaf: _manual_psum_scatter(leaf, names, scatter_dimension, tiled), x)
    size = _axis_size(names, axis_index_groups)
    groups = _canonical_groups(axis_index_groups)
    return tree_util.tree_map(
        lambda leaf: reduce_scatter_p.bind(
            leaf, axis_name=names, scatter_dimension=scatter_dimension,
            axis_index_groups=groups, axis_size=size, tiled=bool(tiled)), x)


# ---------------------------------------------------------------------------
# Collectives over shard_map's mesh axes (SPEC SHD-60 .. SHD-63)
#
# shard_map runs its body under one vmap per mesh axis (refjax/_src/
# shard_map.py), which pushes the names of those axes here while it traces.
# Over several mesh axes at once (row-major in the order named), or with a
# partial permutation, a collective is spelled with the single-axis ones;
# and all_gather's result is typed as varying, as JAX's check_vma does.
# ---------------------------------------------------------------------------

class _ManualAxes(threading.local):
    """The mesh axes of the shard_map bodies this thread is tracing,
    innermost last (SPEC THR-1).  ``shard_map`` pushes and pops with
    ``append`` and ``pop``; each thread has its own stack."""

    def __init__(self):
        self.stack = []

    def append(self, names):
        self.stack.append(names)

    def pop(self):
        return self.stack.pop()


_manual_axes = _ManualAxes()


def _manual(names):
    stack = _manual_axes.stack
    return bool(stack) and all(n in stack[-1] for n in names)


def _varying(y, names):
    """``y`` marked as differing per device (batched along every axis)."""
    idx = axis_index(names)
    return lax.select(shapes.broadcast(idx >= 0, np.shape(y)), y, y)


def _manual_all_gather(x, names, axis, tiled):
    y, ndim = x, np.ndim(x)
    dim = core.canonicalize_axis(axis, ndim if tiled else ndim + 1)
    for n in reversed(names):
        y = _gather_one(y, n, dim, tiled)
    if not tiled and len(names) > 1:
        shape = list(np.shape(y))
        merged = math.prod(shape[dim:dim + len(names)])
        y = shapes.reshape(y, tuple(shape[:dim] + [merged] + shape[dim + len(names):]))
    return _varying(y, names)


def _gather_one(x, name, dim, tiled):
    size = core.axis_size(name)
    return all_gather_p.bind(x, all_gather_dimension=dim, axis_name=(name,),
                             axis_index_groups=None, axis_size=size, tiled=tiled)


def _manual_psum_scatter(x, names, dim, tiled):
    y = x
    for n in names:
        y = psum_scatter(y, n, scatter_dimension=dim, tiled=True)
    if not tiled:
        y = shapes.squeeze(y, (dim,))
    return y


def _manual_ppermute(x, names, perm):
    """Member ``d`` receives from the ``s`` of pair ``(s, d)``, or zeros."""
    sources = [s for s, _ in perm]
    dests = [d for _, d in perm]
    if len(set(sources)) != len(sources) or len(set(dests)) != len(dests):
        raise ValueError(f"ppermute sources and destinations must be unique, got {perm}.")
    n = _axis_size(names, None)
    src_of = np.full(n, -1, np.int32)
    for s, d in perm:
        src_of[d] = s
    gathered = _manual_all_gather(x, names, 0, False)
    me = axis_index(names)
    src = dynamic_slice.dynamic_index_in_dim(lax.asarray(src_of), me, keepdims=False)
    got = dynamic_slice.dynamic_index_in_dim(gathered, lax.max(src, np.int32(0)),
                                       keepdims=False)
    zero = lax.full_like(got, 0)
    return lax.select(shapes.broadcast(src >= 0, np.shape(got)), got, zero)


# ---------------------------------------------------------------------------
# all_to_all (SPEC VMAP-77)
# ---------------------------------------------------------------------------

all_to_all_p = _collective("all_to_all", lambda params: _as_names(params["axis_name"]))


@all_to_all_p.def_abstract_eval
def _all_to_all_abstract_eval(x, *, axis_name, split_axis, concat_axis,
                              axis_index_groups, tiled):
    names = _as_names(axis_name)
    _check_bound(names, "all_to_all")
    size = (math.prod(core.axis_size(n) for n in names) if axis_index_groups is None
            else len(axis_index_groups[0]))
    shape = list(x.shape)
    if shape[split_axis] % size:
        raise ValueError(f"The size of all_to_all split_axis ({shape[split_axis]}) has "
                         f"to be divisible by the size of the named axis "
                         f"{axis_name} ({size})")
    shape[split_axis] //= size
    shape[concat_axis] *= size
    return ShapedArray(tuple(shape), x.dtype)


all_to_all_p.def_impl(_unhandled("all_to_all"))


def _all_to_all_batch(axis_data, vals, dims, *, axis_name, split_axis, concat_axis,
                      axis_index_groups, tiled):
    """Batching of all_to_all: the mapped axis (the members) trades places
    with the blocks of ``split_axis`` (SPEC VMAP-77).  Other names in
    ``axis_name`` are exchanged by binding all_to_all over them for the
    enclosing transformations."""
    if axis_index_groups is not None:
        raise NotImplementedError("Please open a feature request!")
    (x,), (d,) = vals, dims
    names = _as_names(axis_name)
    if not _frame_has(axis_data, names):
        if d is not None:
            split_axis += d <= split_axis
            concat_axis += d <= concat_axis
        out = all_to_all_p.bind(x, axis_name=axis_name, split_axis=split_axis,
                                concat_axis=concat_axis, axis_index_groups=None,
                                tiled=tiled)
        return out, d
    if d is None:
        x, d = batching.broadcast(x, axis_data.size, 0), 0
    pos = names.index(axis_data.name)
    major, minor = names[:pos], names[pos + 1:]
    if major or minor:
        return _all_to_all_among(x, d, axis_data.size, split_axis, concat_axis,
                                 major, minor, tiled)
    return _all_to_all_local(x, d, axis_data.size, split_axis, concat_axis)


def _all_to_all_local(x, d, size, split_axis, concat_axis):
    """The exchange over the mapped axis alone (batch axis ``d``)."""
    if split_axis == concat_axis:
        # Split the axis in blocks and swap the block index with the batch
        # index: example k then holds every example's block k, in order.
        axis = split_axis + (d <= split_axis)
        x = _split_axis(x, axis, size)
        x = _swap_axes(x, d + (axis <= d), axis)
        return _merge_axes(x, axis), d
    # Put the members in front of concat_axis (merging them into it), then
    # split split_axis in blocks: the block index is the new batch axis.
    x = _merge_axes(batching.moveaxis(x, d, concat_axis), concat_axis)
    return _split_axis(x, split_axis, size), split_axis


def _all_to_all_among(x, d, size, split_axis, concat_axis, major, minor, tiled):
    """The exchange over several names, the mapped one between the ``major``
    names (before it) and the ``minor`` ones (after it).

    Three leading axes collect the blocks received from the major names,
    the mapped axis and the minor names; they are then merged (row-major,
    as the member index over all names is) into ``concat_axis``."""
    x = shapes.expand_dims(batching.moveaxis(x, d, 0), (0, 2))
    split_axis, concat_axis = split_axis + 3, concat_axis + 3
    if major:
        x = all_to_all_p.bind(x, axis_name=major, split_axis=split_axis, concat_axis=0,
                              axis_index_groups=None, tiled=tiled)
    x = _split_axis(x, split_axis, size)
    new_d = split_axis
    concat_axis += split_axis <= concat_axis
    split_axis += 1
    if minor:
        x = all_to_all_p.bind(x, axis_name=minor, split_axis=split_axis, concat_axis=2,
                              axis_index_groups=None, tiled=tiled)
    x = _merge_axes(_merge_axes(x, 0), 0)
    concat_axis, new_d = concat_axis - 2, new_d - 2
    x = _merge_axes(batching.moveaxis(x, 0, concat_axis - 1), concat_axis - 1)
    return x, new_d - 1


all_to_all_p.batch = _all_to_all_batch


def _all_to_all_transpose(ct, x, *, axis_name, split_axis, concat_axis,
                          axis_index_groups, tiled):
    """The exchange with split and concat axes swapped undoes it (VMAP-79)."""
    return [all_to_all(ct, axis_name, concat_axis, split_axis,
                       axis_index_groups=axis_index_groups, tiled=tiled)]


ad.deflinear(all_to_all_p, _all_to_all_transpose)


def all_to_all(x, axis_name, split_axis, concat_axis, *, axis_index_groups=None,
               tiled=False):
    """Split ``split_axis`` in one block per member, send block ``k`` to
    member ``k``, and stack the blocks received along ``concat_axis`` (a new
    axis; concatenate into the existing one when ``tiled``) (SPEC VMAP-77)."""
    groups = _canonical_groups(axis_index_groups)
    return tree_util.tree_map(
        lambda leaf: _all_to_all_leaf(leaf, axis_name, split_axis, concat_axis,
                                      groups, tiled), x)


def _all_to_all_leaf(x, axis_name, split_axis, concat_axis, groups, tiled):
    size = _axis_size(axis_name, groups)
    shape = core.get_aval(x).shape
    # JAX 0.10.2 takes negative axes as given (and then fails under vmap);
    # refjax counts them from the end.
    split_axis = core.canonicalize_axis(split_axis, len(shape))
    concat_axis = core.canonicalize_axis(concat_axis, len(shape))
    n = shape[split_axis]
    if tiled:
        if n % size:
            raise ValueError(f"The size of all_to_all split_axis ({n}) has to be "
                             f"divisible by the size of the named axis {axis_name} "
                             f"({size})")
    elif n != size:
        raise ValueError("all_to_all requires the size of the mapped axis axis_name "
                         "to equal x.shape[split_axis], but they are "
                         f"{size} and {n} respectively.")
    elif split_axis < concat_axis:
        # concat_axis counts positions after split_axis is removed.
        concat_axis += 1
        x = shapes.expand_dims(x, (concat_axis,))
    elif concat_axis < split_axis:
        x = shapes.expand_dims(x, (concat_axis,))
        split_axis += 1
    out = all_to_all_p.bind(x, axis_name=axis_name, split_axis=split_axis,
                            concat_axis=concat_axis, axis_index_groups=groups,
                            tiled=bool(tiled))
    if not tiled and split_axis != concat_axis:
        out = shapes.squeeze(out, (split_axis,))
    return out


def pswapaxes(x, axis_name, axis, *, axis_index_groups=None):
    """Swap the members of ``axis_name`` with the positional ``axis``:
    ``all_to_all(x, axis_name, axis, axis)`` (SPEC VMAP-77)."""
    return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups)
