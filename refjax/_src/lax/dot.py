"""``dot_general`` and its differentiation rules.

Defined as in :mod:`refjax._src.lax.lax` (abstract evaluation, backend
implementation, public functions).  ``dot_general`` is bilinear: its JVP
contracts each tangent with the other operand, and the transpose for one
operand contracts the cotangent with the other operand over that operand's
free axes (SPEC AD-24).  Under ``vmap`` the mapped axes become a new pair of
batch axes, or a free axis of the one operand that has one (SPEC VMAP-60).

Import these names from :mod:`refjax._src.lax.lax`, which re-exports them.
"""
import builtins
import enum
import math
import operator
from typing import NamedTuple

import numpy as np

from refjax._src import config, core, dtypes
from refjax._src.core import Primitive, ShapedArray
from refjax._src.interpreters import ad
from refjax._src.lax import dot_algorithms, lax
from refjax._src.lax import shapes as lax_shapes
from refjax._src.lax.lax import _xp

dot_general_p = Primitive("dot_general")


def _check_dimension_numbers(lhs, rhs, dimension_numbers):
    """Every contracting and batch axis names an axis of its operand (no
    negative axes), without repeats, and the two sides pair up one to one
    (SPEC LAX-12)."""
    (lc, rc), (lb, rb) = dimension_numbers
    for side, aval, contract, batch in (("lhs", lhs, lc, lb), ("rhs", rhs, rc, rb)):
        if not all(0 <= d < aval.ndim for d in (*contract, *batch)):
            raise TypeError(
                f"dot_general requires {side} dimension numbers to be nonnegative "
                f"and less than the number of axes of the {side} value, got "
                f"{side}_batch of {batch} and {side}_contracting of {contract} "
                f"for {side} of rank {aval.ndim}")
        if len(set((*contract, *batch))) != len(contract) + len(batch):
            raise TypeError(
                f"dot_general requires no repeated dimensions among {side}_batch "
                f"{batch} and {side}_contracting {contract}.")
    if len(lb) != len(rb):
        raise TypeError("dot_general requires equal numbers of lhs_batch and "
                        f"rhs_batch dimensions, got lhs_batch {lb} and rhs_batch {rb}.")
    if len(lc) != len(rc):
        raise TypeError("dot_general requires equal numbers of lhs_contracting and "
                        f"rhs_contracting dimensions, got {lc} and {rc}.")


def _dot_general_shape(lhs, rhs, dimension_numbers):
    _check_dimension_numbers(lhs, rhs, dimension_numbers)
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


class _Layout(NamedTuple):
    """How ``dot_general`` runs as one batched ``matmul``: the operands
    transposed to (batch, free, contract) and (batch, contract, free), then
    reshaped to 3-D; ``k`` is the contracted size."""
    lperm: tuple
    rperm: tuple
    a_shape: tuple
    b_shape: tuple
    out_shape: tuple
    k: int


def _layout(lhs_shape, rhs_shape, dimension_numbers):
    (lc, rc), (lb, rb) = dimension_numbers
    lfree = [i for i in range(len(lhs_shape)) if i not in lc and i not in lb]
    rfree = [i for i in range(len(rhs_shape)) if i not in rc and i not in rb]
    batch = tuple(lhs_shape[i] for i in lb)
    lf = tuple(lhs_shape[i] for i in lfree)
    rf = tuple(rhs_shape[i] for i in rfree)
    k = math.prod(lhs_shape[i] for i in lc)
    return _Layout((*lb, *lfree, *lc), (*rb, *rc, *rfree),
                   batch + (math.prod(lf), k), batch + (k, math.prod(rf)),
                   batch + lf + rf, k)


# XLA's CPU matrix-vector product adds up fewer than this many float32
# products one after another, each with a fused multiply-add.
_FMA_MATVEC_MAX_K = 8


def _product_for(lay, compute):
    """The kernel multiplying the 2-D or 3-D operands of ``lay``."""
    if lay.k == 1:
        # Nothing contracted (outer products, as per-example gradients
        # make): a broadcast multiply beats many one-column matmuls.
        return _xp().multiply
    if (np.dtype(compute) == np.float32 and len(lay.a_shape) == 2
            and lay.b_shape[-1] == 1 and lay.k < _FMA_MATVEC_MAX_K):
        return _fma_matvec
    return _xp().matmul


def _fma_matvec(a, b):
    """``a @ b`` for an (m, k) float32 matrix and a (k, 1) vector, k < 8,
    as XLA's CPU computes it: the products are added in order of k, each
    with one rounding to float32 (a fused multiply-add, exact in float64
    before that rounding), so results match JAX's bit for bit (SPEC LAX-19)."""
    xp = _xp()
    a64, b64 = a.astype(xp.float64), b[:, 0].astype(xp.float64)
    total = xp.zeros(a.shape[0], xp.float64)
    for i in range(a.shape[1]):
        total = (a64[:, i] * b64[i] + total).astype(xp.float32).astype(xp.float64)
    return total.astype(xp.float32).reshape(-1, 1)


@dot_general_p.def_impl
def _dot_general_impl(lhs, rhs, dimension_numbers, precision,
                      preferred_element_type, out_sharding):
    """One batched ``matmul``, so the contraction runs in BLAS."""
    dot_algorithms.check_cpu_algorithm(precision)      # SPEC LXM-14
    xp = _xp()
    lay = _layout(lhs.shape, rhs.shape, dimension_numbers)
    out_dtype = preferred_element_type or lhs.dtype
    compute = _dot_compute_dtype(lhs.dtype, rhs.dtype, out_dtype)
    a = xp.transpose(lhs.astype(compute, copy=False), lay.lperm).reshape(lay.a_shape)
    b = xp.transpose(rhs.astype(compute, copy=False), lay.rperm).reshape(lay.b_shape)
    with np.errstate(all="ignore"):
        out = _product_for(lay, compute)(a, b)
    return out.reshape(lay.out_shape).astype(out_dtype, copy=False)


def _specialize_dot_general(avals_in, avals_out, dimension_numbers, precision,
                            preferred_element_type, out_sharding):
    """``dot_general`` for fixed operand types (SPEC PERF-3): the layout work
    of ``_dot_general_impl`` done once, leaving one ``matmul`` and the
    transposes and casts that are not no-ops."""
    dot_algorithms.check_cpu_algorithm(precision)      # SPEC LXM-14
    lhs, rhs = avals_in
    out_dtype = avals_out[0].dtype
    lay = _layout(lhs.shape, rhs.shape, dimension_numbers)
    lperm, rperm, a_shape, b_shape, out_shape, k = lay
    compute = _dot_compute_dtype(lhs.dtype, rhs.dtype, out_dtype)
    xp = _xp()
    # Each step is kept only when it changes something.
    cast_l = lhs.dtype != compute
    cast_r = rhs.dtype != compute
    perm_l = lperm != tuple(range(len(lhs.shape)))
    perm_r = rperm != tuple(range(len(rhs.shape)))
    cast_out = compute != out_dtype
    product = _product_for(lay, compute)

    def kernel(a, b):
        if cast_l:
            a = a.astype(compute)
        if cast_r:
            b = b.astype(compute)
        if perm_l:
            a = xp.transpose(a, lperm)
        if perm_r:
            b = xp.transpose(b, rperm)
        out = product(a.reshape(a_shape), b.reshape(b_shape)).reshape(out_shape)
        return out.astype(out_dtype) if cast_out else out
    return kernel


dot_general_p.specialize = _specialize_dot_general


def specialize_transposed_dot(avals_in, out_aval, params, permutation):
    """A kernel of ``(lhs, rhs)`` computing ``transpose(dot_general(lhs, rhs),
    permutation)`` when the permutation only swaps the lhs-free and
    rhs-free blocks: that is ``dot_general(rhs, lhs)``, which BLAS writes
    directly in the transposed layout (a reverse-mode weight gradient,
    ``x.T @ g``, is the common case).  None for any other permutation.
    The compiler fuses such pairs (SPEC PERF-3)."""
    lhs, rhs = avals_in
    (lc, rc), (lb, rb) = params["dimension_numbers"]
    nb = len(lb)
    nl = len(lhs.shape) - len(lc) - nb
    nr = len(rhs.shape) - len(rc) - nb
    swapped = (*range(nb), *range(nb + nl, nb + nl + nr), *range(nb, nb + nl))
    if tuple(permutation) != swapped or nl == 0 or nr == 0:
        return None
    flipped = dict(params, dimension_numbers=((rc, lc), (rb, lb)))
    kernel = _specialize_dot_general([rhs, lhs], [out_aval], **flipped)
    return lambda a, b: kernel(b, a)


dot_general_p.specialize_transposed = specialize_transposed_dot


def batch_matmul(lhs, rhs, precision=None):
    """Matrix products over equal leading batch axes."""
    ln, rn = core.get_aval(lhs).ndim, core.get_aval(rhs).ndim
    if ln < 2 or ln != rn:
        raise ValueError("Arguments to batch_matmul must be at least 2D and have "
                         f"the same rank, got {ln} and {rn}.")
    batch = tuple(range(ln - 2))
    return dot_general(lhs, rhs, (((ln - 1,), (rn - 2,)), (batch, batch)), precision)


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

    def __repr__(self):
        # As JAX prints it, e.g. inside a jaxpr's ``precision`` tuple.
        return f"Precision.{self.name}"


# The lower-case names JAX accepts for each precision.
_PRECISION_NAMES = {
    "highest": Precision.HIGHEST, "float32": Precision.HIGHEST,
    "high": Precision.HIGH, "bfloat16_3x": Precision.HIGH,
    "tensorfloat32": Precision.HIGH,
    "default": Precision.DEFAULT, "bfloat16": Precision.DEFAULT,
    "fastest": Precision.DEFAULT,
}


def _precision_error(precision):
    # JAX lists its name table, whose last key is None.
    names = list(_PRECISION_NAMES) + [None]
    return ValueError(
        "Precision argument must be one of:\n- None,\n"
        f"- a string in {names},\n"
        "- a lax.Precision value,\n"
        "- a tuple of two lax.Precision values or strings,\n"
        "- a lax.DotAlgorithmPreset or the name of one of these presets, or\n"
        "- a lax.DotAlgorithm value;\n"
        f"but got {precision}.")


def _canon_precision(precision):
    """``None``, a pair of Precision values (lhs, rhs), or an algorithm: a
    name or a Precision stands for both operands, the name of a
    ``DotAlgorithmPreset`` for that preset; anything else is a ValueError.
    ``None`` takes ``jax_default_matmul_precision`` when it is set
    (SPEC LAX-12, LXM-28)."""
    if precision is None:
        default = config.default_matmul_precision.value
        return None if default is None else _canon_precision(default)
    if dot_algorithms.is_algorithm(precision):
        return precision            # an algorithm is kept whole (SPEC LXM-14)
    if isinstance(precision, str):
        if precision in _PRECISION_NAMES:
            precision = _PRECISION_NAMES[precision]
        elif precision in dot_algorithms.DotAlgorithmPreset.__members__:
            return dot_algorithms.DotAlgorithmPreset[precision]
        else:
            raise _precision_error(precision)
    if isinstance(precision, Precision):
        return (precision, precision)
    if isinstance(precision, (tuple, list)) and len(precision) == 2:
        if all(isinstance(p, Precision) for p in precision):
            return tuple(precision)
        if all(isinstance(p, str) for p in precision):
            return tuple(_canon_precision(p)[0] for p in precision)
    raise _precision_error(precision)


def dot_general(lhs, rhs, dimension_numbers, precision=None,
                preferred_element_type=None, out_sharding=None):
    """General tensor contraction: ``((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))``."""
    (lc, rc), (lb, rb) = dimension_numbers
    dn = ((tuple(map(operator.index, lc)), tuple(map(operator.index, rc))),
          (tuple(map(operator.index, lb)), tuple(map(operator.index, rb))))
    pet = dtypes.check_user_dtype(preferred_element_type, "dot")
    lax.check_out_sharding(out_sharding, "dot_general")
    return dot_general_p.bind(lhs, rhs, dimension_numbers=dn,
                              precision=_canon_precision(precision),
                              preferred_element_type=pet, out_sharding=None)


def dot(lhs, rhs, *, dimension_numbers=None, precision=None,
        preferred_element_type=None, out_sharding=None):
    """Vector/matrix products of rank-1 and rank-2 operands, or
    ``dot_general`` when ``dimension_numbers`` are given.  Other ranks are a
    ValueError asking for ``dimension_numbers``; the options are keyword-only,
    as in JAX (SPEC LAX-12)."""
    if dimension_numbers is not None:
        return dot_general(lhs, rhs, dimension_numbers, precision, preferred_element_type,
                           out_sharding)
    lshape, rshape = np.shape(lhs), np.shape(rhs)
    # Mismatched contracting sizes get the same ValueError, as in JAX.
    if not (1 <= len(lshape) <= 2 and 1 <= len(rshape) <= 2
            and lshape[-1] == rshape[0]):
        raise ValueError("jax.lax.dot: dimension_numbers must be specified when not "
                         "performing simple un-batched matrix-matrix, matrix-vector, "
                         f"or vector-vector products; got lhs_shape={lshape} "
                         f"rhs_shape={rshape}")
    return dot_general(lhs, rhs, (((len(lshape) - 1,), (0,)), ((), ())), precision,
                       preferred_element_type, out_sharding)


def _dot_transpose_lhs(ct, lhs, rhs, dimension_numbers, precision,
                       preferred_element_type, out_sharding):
    (lc, rc), (lb, rb) = dimension_numbers
    return _dot_transpose(ct, lhs.aval, rhs, lc, rc, lb, rb, True, precision,
                          preferred_element_type)


def _dot_transpose_rhs(ct, lhs, rhs, dimension_numbers, precision,
                       preferred_element_type, out_sharding):
    (lc, rc), (lb, rb) = dimension_numbers
    return _dot_transpose(ct, rhs.aval, lhs, rc, lc, rb, lb, False, precision,
                          preferred_element_type)


def _dot_transpose(ct, aval, other, contract, other_contract, batch, other_batch,
                   is_lhs, precision, preferred_element_type):
    """The cotangent of one operand (of abstract value ``aval``).

    The cotangent's axes are (batch, lhs free, rhs free).  Contracting it
    with ``other`` over ``other``'s free axes leaves (batch, this operand's
    free axes, its contracting axes in the order of ``other``'s), which a
    transpose puts back in this operand's order; the result takes this
    operand's dtype (SPEC AD-24)."""
    other_ndim = core.get_aval(other).ndim
    free = [i for i in range(aval.ndim) if i not in contract and i not in batch]
    other_free = [i for i in range(other_ndim)
                  if i not in other_contract and i not in other_batch]
    nb = len(batch)
    start = nb + len(free) if is_lhs else nb
    ct_other = tuple(range(start, start + len(other_free)))
    dims = ((ct_other, tuple(other_free)), (tuple(range(nb)), tuple(other_batch)))
    out = dot_general(ct, other, dims, precision, preferred_element_type)
    contract_in_other_order = [c for _, c in sorted(zip(other_contract, contract))]
    order = list(batch) + free + contract_in_other_order
    out = lax_shapes.transpose(out, tuple(int(i) for i in np.argsort(order)))
    return lax._convert_element_type(out, aval.dtype, aval.weak_type)


ad.defbilinear(dot_general_p, _dot_transpose_lhs, _dot_transpose_rhs)


def _dot_general_batch_rule(axis_data, vals, dims, *, dimension_numbers,
                            precision, preferred_element_type, out_sharding):
    """One ``dot_general`` of the batched operands (SPEC VMAP-60).

    ``precision`` and ``preferred_element_type`` carry over unchanged."""
    lhs, rhs = vals
    dn, out_dim = _batched_dimension_numbers(np.ndim(lhs), dims,
                                             dimension_numbers)
    out = dot_general_p.bind(lhs, rhs, dimension_numbers=dn, precision=precision,
                             preferred_element_type=preferred_element_type,
                             out_sharding=out_sharding)
    return out, out_dim


def _batched_dimension_numbers(lhs_ndim, dims, dimension_numbers):
    """Dimension numbers for the batched operands and the output's mapped
    axis (``lhs_ndim`` counts the lhs's mapped axis where it has one).

    Mapped on both sides, the mapped axes form a new leading pair of batch
    axes, so the output's mapped axis is 0.  Mapped on one side only, the
    mapped axis is one more free axis of that operand; the output lists
    (batch, lhs free, rhs free) axes in order, which places it."""
    lbd, rbd = dims
    (lc, rc), (lb, rb) = dimension_numbers

    def bump(axes, bdim):
        return tuple(a + (a >= bdim) for a in axes)

    if lbd is not None and rbd is not None:
        dn = ((bump(lc, lbd), bump(rc, rbd)),
              ((lbd,) + bump(lb, lbd), (rbd,) + bump(rb, rbd)))
        return dn, 0
    if lbd is not None:
        free_before = sum(1 for a in range(lbd) if a not in lc and a not in lb)
        dn = ((bump(lc, lbd), rc), (bump(lb, lbd), rb))
        return dn, len(lb) + free_before
    free_before = sum(1 for a in range(rbd) if a not in rc and a not in rb)
    dn = ((lc, bump(rc, rbd)), (lb, bump(rb, rbd)))
    return dn, lhs_ndim - len(lc) + free_before


dot_general_p.batch = _dot_general_batch_rule


def _dot_general_sharding(params, in_dims, in_avals, out_avals):
    """Batch and free dimensions keep their axes; contracted ones drop them
    (SHD-39)."""
    (lc, rc), (lb, rb) = params["dimension_numbers"]
    ld = in_dims[0] or ((),) * in_avals[0].ndim
    rd = in_dims[1] or ((),) * in_avals[1].ndim
    batch = [ld[i] or rd[j] for i, j in zip(lb, rb)]
    lfree = [ld[i] for i in range(len(ld)) if i not in lc and i not in lb]
    rfree = [rd[i] for i in range(len(rd)) if i not in rc and i not in rb]
    return [tuple(batch + lfree + rfree)]


dot_general_p.sharding_rule = _dot_general_sharding
