"""``ragged_dot``/``ragged_dot_general`` and ``scaled_dot`` (SPEC LXM-15,
LXM-16).

A ragged dot splits one dimension of ``lhs`` into consecutive groups of
``group_sizes`` rows.  Each primitive is defined by a *decomposition* into
ordinary lax operations (a group-membership mask and ``dot_general``): the
implementation evaluates it, and the transpose and batching rules
transform it, so the rules cannot disagree with the values.
"""
import builtins
from typing import Union

import ml_dtypes
import numpy as np

from refjax._src import core, dtypes
from refjax._src.compiler import executable_for
from refjax._src.core import Primitive, ShapedArray
from refjax._src.interpreters import ad, batching
from refjax._src.interpreters import partial_eval as pe
from refjax._src.lax import dot as lax_dot
from refjax._src.lax import lax, reductions, shapes
from refjax._src.lax.dot_algorithms import DotAlgorithm, DotAlgorithmPreset
from refjax._src.lax.misc_ops import check_operands

PrecisionLike = Union[None, str, lax_dot.Precision, tuple[str, str],
                      tuple[lax_dot.Precision, lax_dot.Precision],
                      DotAlgorithm, DotAlgorithmPreset]


class RaggedDotDimensionNumbers:
    """The dot dimension numbers of a ragged dot, the ragged dimension of
    ``lhs`` and the group dimension of ``rhs`` (SPEC LXM-15)."""

    __slots__ = ("dot_dimension_numbers", "lhs_ragged_dimensions", "rhs_group_dimensions")

    def __init__(self, dot_dimension_numbers, lhs_ragged_dimensions, rhs_group_dimensions):
        object.__setattr__(self, "dot_dimension_numbers",
                           tuple(tuple(map(tuple, t)) for t in dot_dimension_numbers))
        object.__setattr__(self, "lhs_ragged_dimensions", tuple(lhs_ragged_dimensions))
        object.__setattr__(self, "rhs_group_dimensions", tuple(rhs_group_dimensions))

    def __setattr__(self, name, value):
        raise AttributeError(f"cannot assign to field {name!r}")

    def _key(self):
        return (self.dot_dimension_numbers, self.lhs_ragged_dimensions,
                self.rhs_group_dimensions)

    def __eq__(self, other):
        return isinstance(other, RaggedDotDimensionNumbers) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return (f"RaggedDotDimensionNumbers(dot_dimension_numbers={self.dot_dimension_numbers}, "
                f"lhs_ragged_dimensions={self.lhs_ragged_dimensions}, "
                f"rhs_group_dimensions={self.rhs_group_dimensions})")


_BASIC = RaggedDotDimensionNumbers((([1], [1]), ([], [])), [0], [0])


def _mode(dn):
    """Where the ragged dimension lies: "batch", "contracting" or "free"."""
    (lc, _), (lb, _) = dn.dot_dimension_numbers
    r, = dn.lhs_ragged_dimensions
    return "batch" if r in lb else "contracting" if r in lc else "free"


def _check_in_range(dim, rank, what, operand):
    if not 0 <= dim < rank:
        raise TypeError(f"ragged_dot_general requires {what} numbers to be nonnegative "
                        f"and less than the number of axes of the {operand} value, got "
                        f"{dim} for {operand} of rank {rank}.")


def _prefix_dims(lhs_ndim, dn):
    """The lhs axes a multi-dimensional ``group_sizes`` runs along (before its
    last, group axis): the batch axes, then the axes of the ragged axis'
    kind (free or contracting) that come before it (SPEC LXM-36)."""
    (lc, _), (lb, _) = dn.dot_dimension_numbers
    r, = dn.lhs_ragged_dimensions
    free = [d for d in range(lhs_ndim) if d not in lc and d not in lb]
    mode = _mode(dn)
    if mode == "batch":
        return tuple(lb[:list(lb).index(r)])
    same_kind = list(lc) if mode == "contracting" else free
    return tuple(lb) + tuple(same_kind[:same_kind.index(r)])


def _check(lhs, rhs, group_sizes, dn):
    """JAX's shape rules for a ragged dot's operands, in JAX's order and
    words (SPEC LXM-15, LXM-36)."""
    if len(dn.lhs_ragged_dimensions) != 1:
        raise TypeError("ragged_dot_general expects exactly one lhs ragged dimension.")
    r, = dn.lhs_ragged_dimensions
    _check_in_range(r, lhs.ndim, "lhs ragged dimension", "lhs")
    if group_sizes.ndim == 0:
        raise TypeError("expected rank of group_sizes to be >=1.")
    if group_sizes.ndim != 1:
        expected = tuple(lhs.shape[d] for d in _prefix_dims(lhs.ndim, dn))
        expected += (group_sizes.shape[-1],)
        if group_sizes.shape != expected:
            raise TypeError(f"expected group_sizes to have shape {expected}, "
                            f"got {group_sizes.shape}.")
    _check_group_dimension(rhs, group_sizes.shape[-1], dn)
    if not dtypes.issubdtype(group_sizes.dtype, np.integer):
        raise TypeError("ragged_dot_general requires that group_sizes.dtype is "
                        f"subtype of np.integer, but got {group_sizes.dtype}")


def _check_group_dimension(rhs, groups, dn):
    """A free ragged axis needs one rhs group axis of ``groups`` entries,
    apart from rhs's contracting and batch axes; the other kinds none."""
    group_dims = dn.rhs_group_dimensions
    if _mode(dn) != "free":
        if group_dims:
            raise TypeError("ragged_dot_general requires zero group dimensions in the "
                            "rhs when lhs ragged dimension is contracting or batch.")
        return
    if len(group_dims) != 1:
        raise TypeError("ragged_dot_general requires exactly one rhs group dimension "
                        "when lhs ragged dimension is noncontracting.")
    gd, = group_dims
    _check_in_range(gd, rhs.ndim, "rhs group dimension", "rhs")
    (_, rc), (_, rb) = dn.dot_dimension_numbers
    if gd in rc or gd in rb:
        raise TypeError("ragged_dot_general requires rhs group dimension numbers to be "
                        "distinct from contracting and batch dimensions.")
    if rhs.shape[gd] != groups:
        raise TypeError(f"expected rhs group dimension size to be {groups}, "
                        f"got {rhs.shape[gd]}.")


def _plain_dn(lhs_ndim, rhs_ndim, dn):
    """The dot dimension numbers of the decomposition's ``dot_general``."""
    (lc, rc), (lb, rb) = dn.dot_dimension_numbers
    if _mode(dn) != "free":
        return (lc, rc), (lb, rb)
    gd, = dn.rhs_group_dimensions
    # The mask adds the group axis as the last axis of lhs.
    return (tuple(lc) + (lhs_ndim,), tuple(rc) + (gd,)), (lb, rb)


def _membership(group_sizes, size, dtype):
    """``m[p..., s, g]``: 1 where row ``s`` of the ragged dimension is in
    group ``g`` (groups are consecutive, in order) of the group sizes
    ``group_sizes[p..., :]``, else 0."""
    gs = lax.convert_element_type(group_sizes, np.int32)
    shape = core.get_aval(gs).shape
    ends = reductions.cumsum(gs, len(shape) - 1)
    starts = lax.sub(ends, gs)
    out_shape = shape[:-1] + (size, shape[-1])
    rows = shapes.broadcasted_iota(np.int32, out_shape, len(shape) - 1)
    spread = tuple(range(len(shape) - 1)) + (len(shape),)
    inside = lax.bitwise_and(lax.ge(rows, shapes.broadcast_in_dim(starts, out_shape, spread)),
                             lax.lt(rows, shapes.broadcast_in_dim(ends, out_shape, spread)))
    return lax.convert_element_type(inside, dtype)


def _decomposed(lhs, rhs, group_sizes, *, ragged_dot_dimension_numbers, precision,
                preferred_element_type, group_offset, out_sharding):
    """The ragged dot as a masked ``dot_general`` (linear in lhs and rhs)."""
    dn = ragged_dot_dimension_numbers
    r, = dn.lhs_ragged_dimensions
    lhs_aval = core.get_aval(lhs)
    mask = _membership(group_sizes, lhs_aval.shape[r], lhs_aval.dtype)
    ndim = lhs_aval.ndim
    # The mask's leading axes follow the lhs axes ``group_sizes`` runs along.
    prefix = _prefix_dims(ndim, dn) if core.get_aval(group_sizes).ndim > 1 else ()
    mode = _mode(dn)
    if mode == "batch":
        rows = reductions.reduce_max(mask, (mask.ndim - 1,))
        lhs = lax.mul(lhs, shapes.broadcast_in_dim(rows, lhs_aval.shape, prefix + (r,)))
    else:
        shape = lhs_aval.shape + (mask.shape[-1],)
        lhs = lax.mul(shapes.broadcast_in_dim(lhs, shape, tuple(range(ndim))),
                      shapes.broadcast_in_dim(mask, shape, prefix + (r, ndim)))
    out = lax_dot.dot_general(lhs, rhs, _plain_dn(ndim, core.get_aval(rhs).ndim, dn),
                              precision, preferred_element_type)
    if mode != "contracting":
        return out
    # The group axis is lhs's last free axis; JAX puts it first.
    nb = len(dn.dot_dimension_numbers[1][0])
    n_free = ndim - nb - len(dn.dot_dimension_numbers[0][0]) + 1
    axis = nb + n_free - 1
    perm = (axis,) + tuple(i for i in range(core.get_aval(out).ndim) if i != axis)
    return shapes.transpose(out, perm)


ragged_dot_general_p = Primitive("ragged_dot_general")


def _decomposition_jaxpr(avals, params):
    return pe.trace_to_jaxpr(lambda a, b, g: [_decomposed(a, b, g, **params)], list(avals))


@ragged_dot_general_p.def_abstract_eval
def _ragged_abstract_eval(lhs, rhs, group_sizes, **params):
    dn = params["ragged_dot_dimension_numbers"]
    _check(lhs, rhs, group_sizes, dn)
    return _decomposition_jaxpr([lhs, rhs, group_sizes], params).out_avals[0]


@ragged_dot_general_p.def_impl
def _ragged_impl(lhs, rhs, group_sizes, **params):
    avals = [ShapedArray(x.shape, x.dtype) for x in (lhs, rhs, group_sizes)]
    return executable_for(_decomposition_jaxpr(avals, params))(lhs, rhs, group_sizes)[0]


def _ragged_transpose(ct, lhs, rhs, group_sizes, **params):
    """The decomposition's transpose in the linear operand (SPEC LXM-15)."""
    args = [lhs, rhs, group_sizes]
    avals = [a.aval if ad.is_undefined_primal(a) else core.get_aval(a) for a in args]
    closed = _decomposition_jaxpr(avals, params)
    cts = ad.backward_pass(closed.jaxpr, closed.consts, args, [ct])
    return [c if ad.is_undefined_primal(a) else None for c, a in zip(cts, args)]


ragged_dot_general_p.transpose = lambda ct, *args, **params: (
    ad.zero_cotangents(args) if type(ct) is ad.Zero else _ragged_transpose(ct, *args, **params))


def _ragged_jvp(primals, tangents, **params):
    lhs, rhs, gs = primals
    out = ragged_dot_general_p.bind(lhs, rhs, gs, **params)
    parts = []
    if type(tangents[0]) is not ad.Zero:
        parts.append(ragged_dot_general_p.bind(tangents[0], rhs, gs, **params))
    if type(tangents[1]) is not ad.Zero:
        parts.append(ragged_dot_general_p.bind(lhs, tangents[1], gs, **params))
    if not parts:
        return out, ad.Zero.from_primal_value(out)
    total = parts[0] if len(parts) == 1 else ad.add_tangents(*parts)
    return out, total


ragged_dot_general_p.jvp = _ragged_jvp


def _ragged_batch(axis_data, vals, dims, **params):
    """The batched decomposition (every operand moved to axis 0)."""
    bat = [d is not batching.not_mapped for d in dims]
    vals = [batching.moveaxis(v, d, 0) if b else v for v, d, b in zip(vals, dims, bat)]
    avals = [batching.unbatched_aval(core.get_aval(v), 0) if b else core.get_aval(v)
             for v, b in zip(vals, bat)]
    closed = _decomposition_jaxpr(avals, params)
    batched, _ = batching.batch_jaxpr(closed, axis_data, bat, True)
    return core.eval_jaxpr(batched.jaxpr, batched.consts, *vals)[0], 0


ragged_dot_general_p.batch = _ragged_batch


def ragged_dot_general(lhs, rhs, group_sizes, ragged_dot_dimension_numbers, precision=None,
                       preferred_element_type=None, group_offset=None, out_sharding=None):
    """A dot product whose lhs ragged dimension is split into consecutive
    groups of ``group_sizes``: a non-contracted ragged dimension multiplies
    each group by its own slice of rhs's group dimension; a contracted one
    gives one product per group (a new leading axis); a batch one masks the
    rows past the groups.  Rows past ``sum(group_sizes)`` contribute zero
    (SPEC LXM-15)."""
    precision = lax_dot._canon_precision(precision)
    check_operands("ragged_dot_general", lhs, rhs, group_sizes)
    lax.check_out_sharding(out_sharding, "ragged_dot_general")
    if not isinstance(ragged_dot_dimension_numbers, RaggedDotDimensionNumbers):
        raise TypeError("ragged_dot_dimension_numbers must be a RaggedDotDimensionNumbers, "
                        f"got {ragged_dot_dimension_numbers!r}")
    if group_offset is not None:
        hash(group_offset)          # a static parameter in JAX: TypeError if unhashable
        raise NotImplementedError("Unimplemented group_offset support.")
    pet = dtypes.check_user_dtype(preferred_element_type, "ragged_dot_general")
    return ragged_dot_general_p.bind(
        lhs, rhs, group_sizes, ragged_dot_dimension_numbers=ragged_dot_dimension_numbers,
        precision=precision, preferred_element_type=pet,
        group_offset=None, out_sharding=out_sharding)


def ragged_dot(lhs, rhs, group_sizes, precision=None, preferred_element_type=None,
               group_offset=None, out_sharding=None):
    """``lhs[m, k]`` rows in consecutive groups of ``group_sizes[g]``, each
    group times its ``rhs[g, k, n]``: ``out[m, n]`` (SPEC LXM-15)."""
    return ragged_dot_general(lhs, rhs, group_sizes, _BASIC, precision,
                              preferred_element_type, group_offset, out_sharding)


# ---------------------------------------------------------------------------
# scaled_dot (SPEC LXM-16)
# ---------------------------------------------------------------------------

scaled_dot_p = Primitive("scaled_dot")


def _expand_scale(scale, operand_shape, contract):
    """A block scale repeated along the contracting dimension to the
    operand's shape (each scale entry covers ``size // blocks`` entries)."""
    shape = core.get_aval(scale).shape
    out = lax.convert_element_type(scale, np.float32)
    for d in contract:
        reps = operand_shape[d] // shape[d]
        if reps != 1:
            out = shapes.broadcast_in_dim(out, shape[:d + 1] + (reps,) + shape[d + 1:],
                                          tuple(i if i <= d else i + 1 for i in range(len(shape))))
            shape = shape[:d] + (shape[d] * reps,) + shape[d + 1:]
            out = shapes.reshape(out, shape)
    return out


def _via_bf16(x):
    return lax.convert_element_type(lax.convert_element_type(x, dtypes.bfloat16), np.float32)


def _scaled_decomposed(lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers,
                       preferred_element_type):
    """Operands rounded to bfloat16 (as XLA's CPU decomposition does),
    scaled in float32, contracted in float32."""
    (lc, rc), _ = dimension_numbers
    a = lax.mul(_via_bf16(lhs), _expand_scale(lhs_scale, core.get_aval(lhs).shape, lc))
    b = lax.mul(_via_bf16(rhs), _expand_scale(rhs_scale, core.get_aval(rhs).shape, rc))
    out = lax_dot.dot_general(a, b, dimension_numbers, None, np.float32)
    return lax.convert_element_type(out, preferred_element_type)


@scaled_dot_p.def_abstract_eval
def _scaled_abstract_eval(lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers,
                          preferred_element_type):
    (lc, rc), _ = dimension_numbers
    out = lax_dot._dot_general_shape(lhs, rhs, dimension_numbers)
    for a, name, contract in ((lhs, "LHS", lc), (rhs, "RHS", rc)):
        scale = lhs_scale if name == "LHS" else rhs_scale
        for d in contract:
            if scale.ndim == a.ndim and scale.shape[d] and a.shape[d] // scale.shape[d] < 2:
                raise TypeError(f"The ratio of {name} contracting dim {d} to its scale's "
                                f"dim size ({a.shape[d] // scale.shape[d]}) must be at "
                                "least 2.")
        if scale.ndim != a.ndim or builtins.any(
                a.shape[d] % scale.shape[d] if d in contract else a.shape[d] != scale.shape[d]
                for d in range(a.ndim)):
            raise TypeError(f"{name} scale shape {scale.shape} does not match the "
                            f"operand shape {a.shape}.")
    return ShapedArray(out, preferred_element_type)


@scaled_dot_p.def_impl
def _scaled_impl(*bufs, **params):
    avals = [ShapedArray(b.shape, b.dtype) for b in bufs]
    closed = pe.trace_to_jaxpr(lambda *xs: [_scaled_decomposed(*xs, **params)], avals)
    return executable_for(closed)(*bufs)[0]


scaled_dot_p.not_supported("jvp", "undefined in JAX: scaled_dot has no JVP rule")


def _scaled_batch(axis_data, vals, dims, *, dimension_numbers, preferred_element_type):
    """Every operand batched along axis 0, a new leading batch dimension."""
    vals = [batching.bdim_at_front(v, d, axis_data.size) for v, d in zip(vals, dims)]
    (lc, rc), (lb, rb) = dimension_numbers
    up = lambda ds: tuple(d + 1 for d in ds)   # noqa: E731
    dn = ((up(lc), up(rc)), ((0,) + up(lb), (0,) + up(rb)))
    return scaled_dot_p.bind(*vals, dimension_numbers=dn,
                             preferred_element_type=preferred_element_type), 0


scaled_dot_p.batch = _scaled_batch


def _dummy_scale(x, contract):
    """All-ones scales, one block per contracting dimension."""
    shape = tuple(1 if d in contract else s for d, s in enumerate(core.get_aval(x).shape))
    return lax.convert_element_type(
        shapes.broadcast_in_dim(np.array(1.0, dtypes.bfloat16), shape, ()),
        np.dtype(ml_dtypes.float8_e8m0fnu))


def scaled_dot(lhs, rhs, *, lhs_scale=None, rhs_scale=None, dimension_numbers=None,
               preferred_element_type=None):
    """``dot_general`` of block-scaled operands: each scale entry multiplies
    a block of the contracting dimension.  Default dimension numbers are a
    batched matmul; default scales are ones; the result is
    ``preferred_element_type`` (bfloat16 by default) (SPEC LXM-16).

    JAX's order: the dimension numbers are unpacked, missing scales made,
    the element type checked, and only then the operands read as JAX
    values."""
    if dimension_numbers is None:
        n = shapes.rank_of(lhs)
        if n < 2:
            raise TypeError("scaled_dot does not support 0-rank and 1-rank operands.")
        dimension_numbers = (((n - 1,), (n - 2,)), (tuple(range(n - 2)), tuple(range(n - 2))))
    (lc, rc), batch = dimension_numbers
    if lhs_scale is None:
        lhs_scale = _dummy_scale(lhs, lc)
    if rhs_scale is None:
        rhs_scale = _dummy_scale(rhs, rc)
    pet = dtypes.check_user_dtype(
        dtypes.bfloat16 if preferred_element_type is None else preferred_element_type,
        "scaled_dot")
    check_operands("scaled_dot", lhs, rhs, lhs_scale, rhs_scale)
    lb, rb = batch
    dimension_numbers = ((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb)))
    return scaled_dot_p.bind(lhs, rhs, lhs_scale, rhs_scale,
                             dimension_numbers=dimension_numbers, preferred_element_type=pet)

