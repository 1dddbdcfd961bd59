"""Contractions (``dot``, ``matmul``, ``einsum``...), diagonals, triangles and grids in ``jax.numpy`` (SPEC NP-47, NP-52).

Split from ``lax_numpy.py``, whose conventions hold here: each function is
composed of ``lax`` primitives as JAX composes it, wrapped in a ``jit`` of
the same name where JAX wraps it.
"""
import builtins
import collections
import operator

import numpy as np

from refjax._src import core, dtypes
from refjax._src.api import jit
from refjax._src.lax import dot as lax_dot
from refjax._src.lax import lax, reductions
from refjax._src.lax import shapes as lax_shapes
from refjax._src.numpy import creation as creation
from refjax._src.numpy import util
from refjax._src.numpy.lax_numpy import (
    _aval, _broadcast_shapes, _broadcast_to, _canonicalize_axis, _ensure, _static_int,
    _where, _zero, astype, moveaxis, ravel, stack,
)
from refjax._src.numpy.signal import _static_slice

__all__ = [
    "cross", "diag", "diagflat", "diagonal", "dot", "einsum", "indices",
    "inner", "kron", "matmul", "meshgrid", "outer", "tensordot", "trace",
    "tri", "tril", "triu", "vdot", "vecdot",
]


# ---------------------------------------------------------------------------
# Contractions (SPEC NP-47)
# ---------------------------------------------------------------------------

def _result_dtype(fun_name, preferred_element_type, *args):
    """(dtype, weak) of a contraction: the promoted type, or the requested one."""
    if preferred_element_type is None:
        return dtypes.result_type(*args, return_weak_type_flag=True)
    dt = dtypes.check_user_dtype(preferred_element_type, fun_name)
    return dtypes.canonicalize_dtype(dt), False


def dot(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
    """NumPy's ``dot``: the last axis of ``a`` against the second-to-last of
    ``b`` (its only axis when 1-d); a scalar operand multiplies.

    One ``dot_general`` with ``preferred_element_type`` set to the promoted
    dtype, so mixed operand dtypes need no conversion (SPEC NP-47).
    """
    lax.check_out_sharding(out_sharding, "dot_general")
    a, b = _ensure("dot", a, b)
    pet, weak = _result_dtype("dot", preferred_element_type, a, b)
    an, bn = _aval(a).ndim, _aval(b).ndim
    if an == 0 or bn == 0:
        contract = ((), ())
    elif bn == 1:
        contract = ((an - 1,), (0,))
    else:
        contract = ((an - 1,), (bn - 2,))
    out = lax_dot.dot_general(a, b, (contract, ((), ())), precision, pet)
    return lax._convert_element_type(out, pet, weak)


def matmul(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
    """Matrix product with broadcast batch axes; 1-d operands act as a row
    (``a``) or column (``b``) vector whose axis is removed (SPEC NP-47).

    Batch axes of size 1 facing a larger one are squeezed out of that
    operand and become free axes of the other; equal batch axes become
    ``dot_general`` batch dimensions; a transpose restores NumPy's order.
    """
    lax.check_out_sharding(out_sharding, "dot_general")
    a, b = _ensure("matmul", a, b)
    for i, x in enumerate((a, b)):
        if _aval(x).ndim < 1:
            raise ValueError(f"matmul input operand {i} must have ndim at least 1, "
                             f"but it has ndim {_aval(x).ndim}")
    pet, weak = _result_dtype("matmul", preferred_element_type, a, b)
    plan = _matmul_plan(_aval(a), _aval(b))
    a = lax_shapes.squeeze(a, plan["a_squeeze"])
    b = lax_shapes.squeeze(b, plan["b_squeeze"])
    an, bn = _aval(a).ndim, _aval(b).ndim
    contract = ((an - 1,), (bn - 1 - int(plan["b_is_mat"]),))
    out = lax_dot.dot_general(a, b, (contract, (plan["a_batch"], plan["b_batch"])),
                          precision, pet)
    out = lax_shapes.transpose(out, plan["perm"])
    if plan["both_squeeze"]:
        out = lax_shapes.expand_dims(out, plan["both_squeeze"])
    return lax._convert_element_type(out, pet, weak)


def _matmul_plan(a, b):
    """Which batch axes to squeeze, batch or keep free, and the final order."""
    a_is_mat, b_is_mat = a.ndim > 1, b.ndim > 1
    a_bat = a.shape[:-2] if a_is_mat else ()
    b_bat = b.shape[:-2] if b_is_mat else ()
    nb = builtins.max(len(a_bat), len(b_bat))
    a_bat = (None,) * (nb - len(a_bat)) + a_bat
    b_bat = (None,) * (nb - len(b_bat)) + b_bat
    a_sq, b_sq, both_sq, a_batch, b_batch = [], [], [], [], []
    idx_batch, idx_a, idx_b = [], [], []
    for i, (ba, bb) in enumerate(zip(a_bat, b_bat)):
        if ba is None:
            idx_b.append(i)
        elif bb is None:
            idx_a.append(i)
        elif ba == 1 and bb == 1:
            a_sq.append(len(idx_batch) + len(idx_a) + len(a_sq))
            b_sq.append(len(idx_batch) + len(idx_b) + len(b_sq))
            both_sq.append(i)
        elif ba == 1:
            idx_b.append(i)
            a_sq.append(len(idx_batch) + len(idx_a) + len(a_sq))
        elif bb == 1:
            idx_a.append(i)
            b_sq.append(len(idx_batch) + len(idx_b) + len(b_sq))
        elif ba == bb:
            a_batch.append(len(idx_batch) + len(idx_a))
            b_batch.append(len(idx_batch) + len(idx_b))
            idx_batch.append(i)
        else:
            raise ValueError("Incompatible types for matmul arguments: "
                             f"{a.str_short()} and {b.str_short()}")
    if a_is_mat:
        idx_a.append(nb)
    if b_is_mat:
        idx_b.append(nb + a_is_mat)
    perm = tuple(int(p) for p in np.argsort(idx_batch + idx_a + idx_b))
    return {"a_squeeze": tuple(a_sq), "b_squeeze": tuple(b_sq),
            "both_squeeze": tuple(both_sq), "a_batch": tuple(a_batch),
            "b_batch": tuple(b_batch), "perm": perm, "b_is_mat": b_is_mat}


def vdot(a, b, *, precision=None, preferred_element_type=None):
    """Dot product of the flattened arrays, conjugating ``a``."""
    a, b = _ensure("vdot", a, b)
    if dtypes.issubdtype(_aval(a).dtype, np.complexfloating):
        a = lax.conj(a)
    return dot(ravel(a), ravel(b), precision=precision,
               preferred_element_type=preferred_element_type)


def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    """Conjugated dot product along ``axis``, the other axes broadcast."""
    x1, x2 = _ensure("vecdot", x1, x2)
    n1, n2 = _aval(x1).ndim, _aval(x2).ndim
    if _aval(x1).shape[_canonicalize_axis(axis, n1)] != \
            _aval(x2).shape[_canonicalize_axis(axis, n2)]:
        raise ValueError("axes must match; got shapes "
                         f"{_aval(x1).shape} and {_aval(x2).shape} with axis={axis}")
    x1 = moveaxis(x1, axis, -1)
    x2 = moveaxis(x2, axis, -1)
    if dtypes.issubdtype(_aval(x1).dtype, np.complexfloating):
        x1 = lax.conj(x1)
    batch = _broadcast_shapes([_aval(x1).shape[:-1], _aval(x2).shape[:-1]])
    x1 = _broadcast_to(x1, batch + _aval(x1).shape[-1:])
    x2 = _broadcast_to(x2, batch + _aval(x2).shape[-1:])
    pet, weak = _result_dtype("vecdot", preferred_element_type, x1, x2)
    nb = len(batch)
    dims = (((nb,), (nb,)), (tuple(range(nb)), tuple(range(nb))))
    return lax._convert_element_type(lax_dot.dot_general(x1, x2, dims, precision, pet),
                                     pet, weak)


def inner(a, b, *, precision=None, preferred_element_type=None):
    """Contraction of the last axes of ``a`` and ``b``; a scalar multiplies."""
    a, b = _ensure("inner", a, b)
    if _aval(a).ndim == 0 or _aval(b).ndim == 0:
        if preferred_element_type is not None:
            a = astype(a, preferred_element_type)
            b = astype(b, preferred_element_type)
        return _multiply(a, b)
    return tensordot(a, b, (-1, -1), precision=precision,
                     preferred_element_type=preferred_element_type)


def _multiply(a, b):
    """``jnp.multiply``: booleans multiply as ``and`` (SPEC NP-29)."""
    from refjax._src.numpy.ufuncs import multiply
    return multiply(a, b)


def outer(a, b, out=None):
    """Products of every element of ``a`` with every element of ``b``."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.outer is not supported.")
    a, b = _ensure("outer", a, b)
    a, b = util.promote_dtypes(a, b)
    return _multiply(lax_shapes.expand_dims(ravel(a), (1,)), lax_shapes.expand_dims(ravel(b), (0,)))


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None,
              out_sharding=None):
    """Sum over the given axes: an int (last ``axes`` of ``a`` with first of
    ``b``), a pair of ints, or a pair of axis sequences."""
    lax.check_out_sharding(out_sharding, "dot_general")
    a, b = _ensure("tensordot", a, b)
    an, bn = _aval(a).ndim, _aval(b).ndim
    pet, weak = _result_dtype("tensordot", preferred_element_type, a, b)
    if type(axes) is int:
        if axes > builtins.min(an, bn):
            raise TypeError(f"Number of tensordot axes (axes {axes}) exceeds input ranks "
                            f"({_aval(a).shape} and {_aval(b).shape})")
        contract = (tuple(range(an - axes, an)), tuple(range(axes)))
    elif isinstance(axes, (tuple, list)) and len(axes) == 2:
        ax1, ax2 = axes
        if isinstance(ax1, int) and isinstance(ax2, int):
            contract = ((_canonicalize_axis(ax1, an),), (_canonicalize_axis(ax2, bn),))
        elif isinstance(ax1, (tuple, list)) and isinstance(ax2, (tuple, list)):
            if len(ax1) != len(ax2):
                raise TypeError("tensordot requires axes lists to have equal length, "
                                f"got {ax1} and {ax2}.")
            contract = (tuple(_canonicalize_axis(i, an) for i in ax1),
                        tuple(_canonicalize_axis(i, bn) for i in ax2))
        else:
            raise TypeError("tensordot requires both axes lists to be either ints, "
                            f"tuples or lists, got {ax1} and {ax2}")
    else:
        raise TypeError("tensordot axes argument must be an int, a pair of ints, or a "
                        "pair of lists/tuples of ints.")
    out = lax_dot.dot_general(a, b, (contract, ((), ())), precision, pet)
    return lax._convert_element_type(out, pet, weak)


@jit
def kron(a, b):
    """Kronecker product: ``a`` and ``b`` interleaved on alternate axes,
    multiplied, then merged pairwise."""
    a, b = util.promote_dtypes(*_ensure("kron", a, b))
    na, nb = _aval(a).ndim, _aval(b).ndim
    if na < nb:
        a = lax_shapes.expand_dims(a, tuple(range(nb - na)))
    elif nb < na:
        b = lax_shapes.expand_dims(b, tuple(range(na - nb)))
    nd = _aval(a).ndim
    a_r = lax_shapes.expand_dims(a, tuple(range(1, 2 * nd, 2)))
    b_r = lax_shapes.expand_dims(b, tuple(range(0, 2 * nd, 2)))
    shape_ = tuple(x * y for x, y in zip(_aval(a).shape, _aval(b).shape))
    return lax_shapes.reshape(lax.mul(a_r, b_r), shape_)


@jit(static_argnames=("axisa", "axisb", "axisc", "axis"))
def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Cross product of 2- or 3-vectors along the given axes; a 2-vector
    has a zero third component, and two 2-vectors give a scalar."""
    a, b = util.promote_dtypes(*_ensure("cross", a, b))
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)
    na, nb = _aval(a).shape[-1], _aval(b).shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError("Dimension must be either 2 or 3 for cross product")
    a0, a1, a2 = _components(a)
    b0, b1, b2 = _components(b)
    if na == 2 and nb == 2:
        return _arith(lax.sub, _arith(lax.mul, a0, b1), _arith(lax.mul, a1, b0))
    parts = [_arith(lax.sub, _arith(lax.mul, a1, b2), _arith(lax.mul, a2, b1)),
             _arith(lax.sub, _arith(lax.mul, a2, b0), _arith(lax.mul, a0, b2)),
             _arith(lax.sub, _arith(lax.mul, a0, b1), _arith(lax.mul, a1, b0))]
    nd = _aval(parts[0]).ndim
    c = lax_shapes.concatenate([lax_shapes.expand_dims(p, (nd,)) for p in parts], nd)
    return moveaxis(c, -1, axisc)


def _components(v):
    """``v[..., 0]``, ``v[..., 1]`` and ``v[..., 2]`` (a zero scalar for 2-vectors)."""
    last = _aval(v).ndim - 1
    comps = [lax_shapes.squeeze(_static_slice(v, last, i, i + 1), (last,))
             for i in range(_aval(v).shape[-1])]
    return comps + [np.zeros((), _aval(v).dtype)] * (3 - len(comps))


def _arith(op, x, y):
    """A binary jnp operator: promotion and rank promotion, then ``op``."""
    x, y = util.promote_args(op.__name__, x, y)
    return op(x, y)


# -- einsum -------------------------------------------------------------------

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def einsum(subscripts, /, *operands, out=None, optimize="auto", precision=None,
           preferred_element_type=None, _dot_general=None, out_sharding=None):
    """Einstein summation (SPEC NP-47).

    Subscripts may use ``...`` and may omit the output (then it is the
    labels used once, sorted).  Operands are contracted pairwise from the
    left, each pair with one ``dot_general`` (labels only one side needs
    are summed first, repeated labels are taken on their diagonal); the
    result has the promoted dtype of all operands.
    """
    lax.check_out_sharding(out_sharding, "einsum")
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.einsum is not supported.")
    if not isinstance(subscripts, str):
        subscripts, operands = _interleaved_subscripts(subscripts, operands)
    operands = _ensure("einsum", *operands)
    inputs, output = _parse_subscripts(subscripts, [_aval(o) for o in operands])
    _check_label_sizes(inputs, operands)
    pet, weak = _result_dtype("einsum", preferred_element_type, *operands)
    ops, names = list(operands), list(inputs)
    path = _explicit_path(optimize)
    if len(ops) == 1:
        result, rnames = _einsum_single(ops[0], names[0], output, pet)
        return lax._convert_element_type(_to_order(result, rnames, output), pet, weak)
    while len(ops) > 1:
        # Contract the next pair of the path, else the first two (popped as
        # JAX's contraction paths do: the higher index is the lhs) into
        # labels still needed afterwards; the result goes last.
        step = _next_pair(path, ops, names)
        lhs, rhs = ops.pop(step[1]), ops.pop(step[0])
        lhs_names, rhs_names = names.pop(step[1]), names.pop(step[0])
        later = output if not ops else output + "".join(names)
        kept = "".join(dict.fromkeys(c for c in lhs_names + rhs_names if c in later))
        result_names = output if not ops else kept
        ops.append(_einsum_pair(lhs, lhs_names, rhs, rhs_names, result_names,
                                precision, pet))
        names.append(result_names)
    return lax._convert_element_type(ops[0], pet, weak)


def _explicit_path(optimize):
    """The steps of an explicit contraction path (``optimize`` a list of
    tuples of operand indices), or None.  A step contracting three or more
    operands at once is NotImplementedError, as in JAX (SPEC NP-220)."""
    if not isinstance(optimize, (list, tuple)):
        return None
    steps = [tuple(operator.index(i) for i in step) for step in optimize]
    for step in steps:
        if len(step) > 2:
            raise NotImplementedError(
                "jax.numpy.einsum does not support simultaneous contraction of 3 or "
                f"more operands; got the contraction step {step}. Use a path whose "
                "steps contract at most two operands.")
    return steps


def _next_pair(path, ops, names):
    """The sorted operand indices of the next pairwise contraction: a
    one-operand step of the path only moves that operand last (its summed
    labels are reduced when it is next contracted)."""
    while path:
        step = sorted(path.pop(0))
        if builtins.any(not 0 <= i < len(ops) for i in step):
            raise ValueError(f"einsum contraction path step {tuple(step)} refers to "
                             f"operands beyond the {len(ops)} left.")
        if len(step) == 2 and step[0] != step[1]:
            return step
        if len(step) == 1:
            ops.append(ops.pop(step[0]))
            names.append(names.pop(step[0]))
    return [0, 1]


def _interleaved_subscripts(first, rest):
    """einsum(op0, sub0, op1, sub1, ..., [out]) as a subscript string."""
    args = [first, *rest]
    out = args.pop() if len(args) % 2 else None   # a trailing output sublist
    ops, subs = args[0::2], args[1::2]

    def term(sub):
        return "".join("..." if s is Ellipsis else _LETTERS[operator.index(s)]
                       for s in sub)
    text = ",".join(term(s) for s in subs)
    if out is not None:
        text += "->" + term(out)
    return text, ops


def _parse_subscripts(subscripts, avals):
    """Input label strings (ellipses expanded) and the output labels."""
    spec = subscripts.replace(" ", "")
    explicit = "->" in spec
    lhs, out = spec.split("->") if explicit else (spec, None)
    terms = lhs.split(",")
    if len(terms) != len(avals):
        raise ValueError(f"Number of einsum subscripts, {len(terms)}, must be equal to "
                         f"the number of operands, {len(avals)}.")
    used = set(c for c in spec if c.isalpha())
    free = [c for c in _LETTERS if c not in used]
    n_ell = 0
    for t, a in zip(terms, avals):
        if "..." in t:
            n_ell = builtins.max(n_ell, a.ndim - (len(t) - 3))
    ell = "".join(free[:n_ell])
    inputs = []
    for i, (t, a) in enumerate(zip(terms, avals)):
        if "..." in t:
            k = builtins.max(a.ndim - (len(t) - 3), 0)
            t = t.replace("...", ell[n_ell - k:] if k else "")
        if len(t) != a.ndim:
            raise ValueError(f"Einstein sum subscript '{terms[i]}' does not contain the "
                             f"correct number of indices for operand {i}.")
        inputs.append(t)
    if out is None:
        counts = collections.Counter("".join(inputs))
        out = ell + "".join(sorted(c for c in counts if counts[c] == 1 and c not in ell))
    else:
        out = out.replace("...", ell)
        for c in out:
            if c not in "".join(inputs):
                raise ValueError(f"Output character '{c}' did not appear in the input")
    return inputs, out


def _check_label_sizes(inputs, operands):
    sizes = {}
    for i, (t, op) in enumerate(zip(inputs, operands)):
        for c, d in zip(t, _aval(op).shape):
            prev = sizes.get(c)
            if prev is not None and d != prev and 1 not in (d, prev):
                # The sizes are reported in this order by JAX (opt_einsum).
                raise ValueError(f"Size of label '{c}' for operand {i} ({prev}) does not "
                                 f"match previous terms ({d}).")
            if prev is None or prev == 1:
                sizes[c] = d


def _einsum_sum(x, axes, pet):
    if dtypes.result_type(x, pet) != _aval(x).dtype:
        x = astype(x, pet)
    if _aval(x).dtype == np.bool_:
        return reductions.reduce_or(x, tuple(axes))
    return reductions.reduce_sum(x, tuple(axes))


def _delta(shape_, axes):
    """Boolean mask of ``shape_``: true where the ``axes`` indices are equal."""
    base = tuple(shape_[a] for a in axes)
    iotas = [lax_shapes.broadcasted_iota(np.uint32, base, i) for i in range(len(base))]
    eyes = [lax.eq(i1, i2) for i1, i2 in zip(iotas[:-1], iotas[1:])]
    mask = eyes[0]
    for e in eyes[1:]:
        mask = lax.bitwise_and(mask, e)
    return lax_shapes.broadcast_in_dim(mask, tuple(shape_), tuple(axes))


def _sum_uniques(x, names, uniques, pet):
    if uniques:
        x = _einsum_sum(x, [names.index(c) for c in uniques], pet)
        names = "".join(c for c in names if c not in uniques)
    return x, names


def _sum_repeats(x, names, keep, pet):
    """Take repeated labels on their diagonal; sum them away unless kept."""
    for c, count in collections.Counter(names).items():
        if count < 2:
            continue
        axes = [i for i, n in enumerate(names) if n == c]
        x = lax.select(_delta(_aval(x).shape, axes), x, creation.zeros_like(x))
        if c not in keep:
            x = _einsum_sum(x, axes, pet)
            names = names.replace(c, "")
        else:
            x = _einsum_sum(x, axes[:-1], pet)
            names = names.replace(c, "", count - 1)
    return x, names


def _einsum_single(x, names, result, pet):
    counts = collections.Counter(names)
    uniques = [c for c in sorted(set(names) - set(result)) if counts[c] == 1]
    x, names = _sum_uniques(x, names, uniques, pet)
    return _sum_repeats(x, names, result, pet)


def _filter_singletons(x, names, other_shape, other_names):
    """Squeeze size-1 axes whose label has a larger size in the other operand."""
    sh = _aval(x).shape
    keep = []
    for i, c in enumerate(names):
        j = other_names.find(c)
        keep.append(sh[i] != 1 or j == -1 or other_shape[j] == 1)
    drop = tuple(i for i, k in enumerate(keep) if not k)
    return lax_shapes.squeeze(x, drop), "".join(c for c, k in zip(names, keep) if k)


def _einsum_pair(lhs, lhs_names, rhs, rhs_names, result, precision, pet):
    contracted = sorted((set(lhs_names) | set(rhs_names)) - set(result))
    lhs, lhs_names = _filter_singletons(lhs, lhs_names, _aval(rhs).shape, rhs_names)
    rhs, rhs_names = _filter_singletons(rhs, rhs_names, _aval(lhs).shape, lhs_names)
    lc, rc = collections.Counter(lhs_names), collections.Counter(rhs_names)
    lhs, lhs_names = _sum_uniques(lhs, lhs_names, [c for c in contracted if lc[c] == 1
                                                   and rc[c] == 0], pet)
    rhs, rhs_names = _sum_uniques(rhs, rhs_names, [c for c in contracted if rc[c] == 1
                                                   and lc[c] == 0], pet)
    lhs, lhs_names = _sum_repeats(lhs, lhs_names, result + rhs_names, pet)
    rhs, rhs_names = _sum_repeats(rhs, rhs_names, result + lhs_names, pet)
    contracted = [c for c in contracted if c in lhs_names or c in rhs_names]
    both = set(lhs_names) & set(rhs_names)
    batch = "".join(c for c in result if c in both)
    lb = tuple(lhs_names.find(c) for c in batch)
    rb = tuple(rhs_names.find(c) for c in batch)
    lcon = tuple(lhs_names.index(c) for c in contracted)
    rcon = tuple(rhs_names.index(c) for c in contracted)
    gone = batch + "".join(contracted)
    l_rest = "".join(c for c in lhs_names if c not in gone)
    r_rest = "".join(c for c in rhs_names if c not in gone)
    # Of the two operand orders, prefer the one needing no transpose.
    names = batch + r_rest + l_rest
    if names == result:
        out = lax_dot.dot_general(rhs, lhs, ((rcon, lcon), (rb, lb)), precision, pet)
    else:
        names = batch + l_rest + r_rest
        out = lax_dot.dot_general(lhs, rhs, ((lcon, rcon), (lb, rb)), precision, pet)
    return _to_order(out, names, result)


def _to_order(x, names, result):
    if names == result:
        return x
    return lax_shapes.transpose(x, tuple(names.index(c) for c in result))


# ---------------------------------------------------------------------------
# Diagonals, triangles and grids (SPEC NP-52)
# ---------------------------------------------------------------------------

def _eye_bool(n, m, k):
    """``iota(0) + k == iota(1)`` over an (n, m) grid; ``k`` may be traced."""
    rows = lax_shapes.broadcasted_iota(np.int32, (n, m), 0)
    cols = lax_shapes.broadcasted_iota(np.int32, (n, m), 1)
    if isinstance(k, core.Tracer):
        k = lax._convert_element_type(k, np.int32, weak_type=False)
    else:
        k = np.int32(operator.index(k))
    return lax.eq(lax.add(rows, k), cols)


def _sum_dtype(dt):
    """The accumulation dtype of ``jnp.sum``: small ints and bool widen."""
    default_int = dtypes.default_int_dtype()
    if dt == np.bool_:
        return default_int
    if dtypes.issubdtype(dt, np.signedinteger) and dt.itemsize < default_int.itemsize:
        return default_int
    if dtypes.issubdtype(dt, np.unsignedinteger):
        default_uint = np.dtype(f"uint{dtypes.default_int_dtype().itemsize * 8}")
        if dt.itemsize < default_uint.itemsize:
            return default_uint
    return dt


@jit(static_argnames=("axis1", "axis2", "dtype", "out"))
def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """Sum of the ``offset`` diagonal over ``axis1``/``axis2``: the other
    entries are masked with ``where`` and everything summed (SPEC NP-52).
    The two axes must differ (ValueError, SPEC NP-225)."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.trace is not supported.")
    a, = _ensure("trace", a)
    nd = _aval(a).ndim
    if _canonicalize_axis(axis1, nd) == _canonicalize_axis(axis2, nd):
        raise ValueError("axis1 and axis2 can not be same. "
                         f"axis1={axis1} and axis2={axis2}")
    a = moveaxis(a, (axis1, axis2), (-2, -1))
    n, m = _aval(a).shape[-2:]
    a = _where(_eye_bool(n, m, offset), a, creation.zeros_like(a))
    acc = (_sum_dtype(_aval(a).dtype) if dtype is None else
           dtypes.canonicalize_dtype(dtypes.check_user_dtype(dtype, "trace")))
    if acc != _aval(a).dtype:
        a = lax.convert_element_type(a, acc)
    nd = _aval(a).ndim
    return reductions.reduce_sum(a, (nd - 2, nd - 1))


@jit(static_argnames=("offset", "axis1", "axis2"))
def diagonal(a, offset=0, axis1=0, axis2=1):
    """The ``offset`` diagonal over ``axis1``/``axis2``, as the last axis.

    Taken as a strided ``slice`` of the flattened matrices (SPEC NP-52).
    """
    a, = _ensure("diagonal", a)
    if _aval(a).ndim < 2:
        raise ValueError("diagonal requires an array of at least two dimensions.")
    offset = operator.index(offset)
    a = moveaxis(a, (axis1, axis2), (-2, -1))
    *batch, n, m = _aval(a).shape
    if offset >= 0:
        start, length = offset, builtins.max(0, builtins.min(n, m - offset))
    else:
        start, length = -offset * m, builtins.max(0, builtins.min(n + offset, m))
    flat = lax_shapes.reshape(a, tuple(batch) + (n * m,))
    if not length:  # an offset past the corner: an empty slice in range
        start = 0
    stop = start + (length - 1) * (m + 1) + 1 if length else start
    return lax_shapes.slice_in_dim(flat, start, stop, m + 1, axis=len(batch))


def diag(v, k=0):
    """The ``k`` diagonal of a matrix, or a matrix with ``v`` on it."""
    v, = _ensure("diag", v)
    k = _static_int(k, "'k' argument of jnp.diag")
    return _diag(v, k)


@jit(static_argnames=("k",))
def _diag(v, k):
    nd = _aval(v).ndim
    if nd == 2:
        return diagonal(v, k)
    if nd != 1:
        raise ValueError("diag input must be 1d or 2d")
    n = _aval(v).shape[0] + builtins.abs(k)
    zero = _zero(v)
    v = lax_shapes.pad(v, zero, ((builtins.max(0, -k), builtins.max(0, k), 0),))
    return _where(_eye_bool(n, n, k), lax_shapes.expand_dims(v, (1,)), zero)


def diagflat(v, k=0):
    """A matrix with the flattened ``v`` on its ``k`` diagonal."""
    v, = _ensure("diagflat", v)
    return diag(ravel(v), k)


def tri(N, M=None, k=0, dtype=None):
    """Ones at and below the ``k`` diagonal (float32 by default, as in JAX).

    ``k`` may be traced; it must have an integer dtype (a bool, float or
    string is TypeError) and a Python int must fit the default int type
    (else OverflowError), as in JAX (SPEC NP-52, NP-72, NP-216)."""
    dt = np.dtype(np.float32) if dtype is None else dtypes.canonicalize_dtype(
        dtypes.check_user_dtype(dtype, "tri"))
    M = N if M is None else M
    offset = _tri_offset(k)                 # checked before the sizes, as in JAX
    shape_ = creation.canonicalize_shape((N, M))
    it = _tri_index_dtype(offset.dtype)
    rows = lax.add(lax_shapes.broadcasted_iota(it, shape_, 0), lax.convert_element_type(offset, it))
    tri_ = lax.ge(rows, lax_shapes.broadcasted_iota(it, shape_, 1))
    return lax.convert_element_type(tri_, dt)


def _tri_offset(k):
    """``tri``'s diagonal offset as an integer array: what is not an int, a
    tracer or an int32/int64 scalar must support ``operator.index``."""
    if not isinstance(k, (int, core.Tracer, np.int32, np.int64)):
        k = operator.index(k)
    offset = creation.asarray(k)
    if not dtypes.issubdtype(offset.dtype, np.integer):
        raise TypeError(f"offset must be an integer, got {offset!r}")
    return offset


def _tri_index_dtype(offset_dtype):
    """int32 indices, unless the offset's type holds values int32 cannot."""
    info, i32 = np.iinfo(offset_dtype), np.iinfo(np.int32)
    if info.min < i32.min or info.max > i32.max:
        return dtypes.canonicalize_dtype(np.int64)
    return np.dtype(np.int32)


def _tri_bool(n, m, k):
    shape_ = creation.canonicalize_shape((n, m))
    return lax.ge(lax.add(lax_shapes.broadcasted_iota(np.int32, shape_, 0), np.int32(k)),
                  lax_shapes.broadcasted_iota(np.int32, shape_, 1))


@jit(static_argnames=("k",))
def tril(m, k=0):
    """Zeros above the ``k`` diagonal of the last two axes."""
    m, = _ensure("tril", m)
    sh = _aval(m).shape
    if len(sh) < 2:
        raise ValueError("Argument to jax.numpy.tril must be at least 2D")
    which = lax_shapes.broadcast(_tri_bool(sh[-2], sh[-1], k), sh[:-2])
    return lax.select(which, m, creation.zeros_like(m))


@jit(static_argnames=("k",))
def triu(m, k=0):
    """Zeros below the ``k`` diagonal of the last two axes."""
    m, = _ensure("triu", m)
    sh = _aval(m).shape
    if len(sh) < 2:
        raise ValueError("Argument to jax.numpy.triu must be at least 2D")
    which = lax_shapes.broadcast(_tri_bool(sh[-2], sh[-1], k - 1), sh[:-2])
    return lax.select(which, creation.zeros_like(m), m)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate arrays from 1-d vectors; 'xy' swaps the first two axes."""
    args = _ensure("meshgrid", *xi)
    if builtins.any(_aval(a).ndim != 1 for a in args):
        raise ValueError("Arguments to jax.numpy.meshgrid must be 1D, got shapes "
                         f"{[_aval(a).shape for a in args]}")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
    if indexing == "xy" and len(args) >= 2:
        args[0], args[1] = args[1], args[0]
    sizes = [_aval(a).shape[0] for a in args]

    def target(i):
        if not sparse:
            return tuple(sizes)
        return tuple(sizes[i] if j == i else 1 for j in range(len(sizes)))
    output = [lax_shapes.broadcast_in_dim(a, target(i), (i,)) for i, a in enumerate(args)]
    if indexing == "xy" and len(args) >= 2:
        output[0], output[1] = output[1], output[0]
    return output


def indices(dimensions, dtype=None, sparse=False):
    """Index grids over ``dimensions``: stacked, or a tuple when ``sparse``
    (one ``iota`` broadcast per axis)."""
    dt = dtypes.default_int_dtype() if dtype is None else dtypes.canonicalize_dtype(
        dtypes.check_user_dtype(dtype, "indices"))
    dimensions = tuple(operator.index(d) for d in dimensions)
    out = []
    for i, d in enumerate(dimensions):
        shape_ = ((1,) * i + (d,) + (1,) * (len(dimensions) - i - 1)) if sparse else dimensions
        out.append(lax_shapes.broadcast_in_dim(lax_shapes.iota(dt, d), shape_, (i,)))
    if sparse:
        return tuple(out)
    return stack(out, 0) if out else creation.zeros((0,), dt)


_index_grids = indices   # for functions whose ``indices`` argument shadows it
