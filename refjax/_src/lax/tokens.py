"""Ordering tokens (``create_token``, ``after_all``) and the point-to-point
and broadcast collectives ``psend``, ``precv``, ``pbroadcast``, ``pcast``
and ``ragged_all_to_all`` (SPEC LXM-20..22).

A token carries no data: it only orders effects in XLA, which refjax runs
in program order anyway.  Its abstract value prints as JAX's ``Tok``.
The collectives use the named-axis machinery of
:mod:`refjax._src.lax.parallel`: their batching rules run where a ``vmap``
or ``shard_map`` binds the axis.
"""
import numpy as np

from refjax._src import core, dtypes, tree_util
from refjax._src.core import Primitive, ShapedArray, Tracer
from refjax._src.errors import JaxRuntimeError
from refjax._src.interpreters import ad
from refjax._src.lax import lax, parallel, shapes
from refjax._src.lax.misc_ops import check_operands


class AbstractToken(ShapedArray):
    """The abstract value of a token (shown as ``Tok``)."""

    __slots__ = ()

    def __init__(self):
        super().__init__((), np.bool_)

    def str_short(self, short_dtypes=False):
        return "Tok"

    def __str__(self):
        return "Tok"

    def __repr__(self):
        return "AbstractToken()"

    def update(self, shape=None, dtype=None, weak_type=None):
        return self

    # A token crosses a jit boundary as a buffer that carries nothing, and
    # comes back out as a fresh Token (SPEC LXM-37).
    def to_buffer(self, token):
        return np.zeros((), np.bool_)

    def from_buffer(self, buffer):
        return Token()


abstract_token = AbstractToken()


class Token:
    """A concrete token: no value, only an ordering point (SPEC LXM-20)."""

    __slots__ = ()

    def __repr__(self):
        return "Token()"


core.pytype_aval_mappings[Token] = lambda token: abstract_token
core.opaque_types.add(Token)

create_token_p = Primitive("create_token")
create_token_p.def_abstract_eval(lambda *_: abstract_token)
create_token_p.def_impl(lambda *_: np.zeros((), np.bool_))
# A token carries no value: a zero tangent, never batched.
ad.defjvp_zero(create_token_p)
create_token_p.batch = lambda axis_data, vals, dims: (create_token_p.bind(), None)


def _is_token(x):
    return isinstance(x, Token) or (isinstance(x, Tracer) and isinstance(x.aval, AbstractToken))


def create_token(_=None):
    """A new token; the argument is ignored, as in JAX (SPEC LXM-20)."""
    if core.current_trace() is core.eval_trace:
        return Token()
    return create_token_p.bind()


after_all_p = Primitive("after_all")
after_all_p.def_impl(lambda *_: np.zeros((), np.bool_))
ad.defjvp_zero(after_all_p)
after_all_p.batch = lambda axis_data, vals, dims: (after_all_p.bind(*vals), None)


@after_all_p.def_abstract_eval
def _after_all_abstract_eval(*operands):
    if any(not isinstance(a, AbstractToken) for a in operands):
        raise TypeError("Arguments to after_all must be tokens")
    return abstract_token


def after_all(*operands):
    """A token ordered after every token in ``operands`` (SPEC LXM-20)."""
    if not all(_is_token(x) for x in operands):
        raise TypeError("Arguments to after_all must be tokens")
    if all(isinstance(x, Token) for x in operands):
        return Token()
    operands = [x if isinstance(x, Tracer) else create_token_p.bind() for x in operands]
    return after_all_p.bind(*operands)


# ---------------------------------------------------------------------------
# psend / precv (SPEC LXM-21)
# ---------------------------------------------------------------------------

def _p2p_unsupported(name):
    return NotImplementedError(
        f"{name} lowers to XLA Send/Recv between devices (NCCL on GPU); refjax, "
        "like XLA's CPU backend, has no point-to-point transfers")


def psend(x, axis_name, perm):
    """Send ``x`` along ``perm`` over a named axis (GPU/TPU only in JAX).
    An unbound name is JAX's ``NameError``; a bound one is a
    ``NotImplementedError`` naming the reason (SPEC LXM-21)."""
    hash(tuple(tuple(p) for p in perm))     # JAX reads the static permutation first
    if not tree_util.tree_leaves(x):
        return x
    check_operands("psend", *tree_util.tree_leaves(x))
    parallel._check_bound(parallel._as_names(axis_name), "psend")
    raise _p2p_unsupported("psend")


def precv(token, out_shape, axis_name, perm):
    """Receive values sent by ``psend``; never evaluable in refjax, as in
    JAX on CPU (SPEC LXM-21).  JAX's order: ``out_shape`` must have a shape
    and a dtype (TypeError here, where JAX fails internally), ``perm`` is
    read, ``token`` must be a JAX value; then an unbound axis name is JAX's
    NotImplementedError (no evaluation rule)."""
    if not (hasattr(out_shape, "shape") and hasattr(out_shape, "dtype")):
        raise TypeError("precv's out_shape must have a shape and a dtype (a "
                        f"jax.ShapeDtypeStruct), got {out_shape!r}")
    hash(tuple(tuple(p) for p in perm))
    if not isinstance(token, Token):
        check_operands("precv", token)
    if not all(core.axis_exists(n) for n in parallel._as_names(axis_name)):
        raise NotImplementedError("Evaluation rule for 'precv' not implemented")
    raise _p2p_unsupported("precv")


# ---------------------------------------------------------------------------
# pbroadcast and pcast (SPEC LXM-21)
# ---------------------------------------------------------------------------

def pbroadcast(x, axis_name, source):
    """Every member of the named axis gets member ``source``'s ``x``:
    ``psum(where(axis_index == source, x, 0))`` under ``vmap``; inside
    ``shard_map`` JAX's CPU error (no collective broadcast) (SPEC LXM-21)."""
    if not tree_util.tree_leaves(x):
        return x
    check_operands("pbroadcast", *tree_util.tree_leaves(x))
    names = parallel._as_names(axis_name)
    if not all(core.axis_exists(n) for n in names):
        raise NotImplementedError("Evaluation rule for 'pbroadcast' not implemented")
    if parallel._manual(names):
        # XLA's CPU backend has no collective broadcast (JAX's error).
        raise NotImplementedError(
            "MLIR translation rule for primitive 'pbroadcast' not found for platform cpu")

    def one(leaf):
        me = parallel.axis_index(axis_name)
        chosen = lax.eq(me, np.int32(source))
        zero = lax.full_like(leaf, 0)
        pick = shapes.broadcast_in_dim(chosen, np.shape(leaf), ())
        return parallel.psum(lax.select(pick, leaf, zero), axis_name)
    return tree_util.tree_map(one, x)


_PCAST_TO = ("unreduced", "reduced", "varying")


def pcast(x, axis_name, *, to):
    """Change how values are typed across a ``shard_map`` axis; refjax does
    not track varying/invariant types, so inside ``shard_map`` the values
    are unchanged.  Outside it: JAX's ``ValueError`` (SPEC LXM-21)."""
    if isinstance(axis_name, (set, frozenset)):
        raise TypeError(f"{axis_name=} must be a tuple or a str. Got {axis_name}")
    if not axis_name:
        return x
    if to not in set(_PCAST_TO):      # an unhashable ``to`` is a TypeError
        raise ValueError("Got unexpected `to` value. Allowed `to` values are:"
                         f" {set(_PCAST_TO)}")
    if not parallel._manual(parallel._as_names(axis_name)):
        raise ValueError("pvary should be called under jax.shard_map.")
    return x


# ---------------------------------------------------------------------------
# ragged_all_to_all (SPEC LXM-22)
# ---------------------------------------------------------------------------

ragged_all_to_all_p = Primitive("ragged_all_to_all")
ragged_all_to_all_p.is_collective = True
ragged_all_to_all_p.batch_unmapped = lambda params, axis_data: parallel._frame_has(
    axis_data, params["axis_name"])
ragged_all_to_all_p.def_impl(parallel._unhandled("ragged_all_to_all"))


def _r2a_jvp(primals, tangents, **params):
    """Linear in ``operand`` and ``output``: the same exchange of tangents."""
    out = ragged_all_to_all_p.bind(*primals, **params)
    t_op, t_out = (ad.instantiate_zeros(t) if type(t) is not ad.Zero
                   else ad.zeros_like_aval(t.aval) for t in tangents[:2])
    return out, ragged_all_to_all_p.bind(t_op, t_out, *primals[2:], **params)


def _r2a_transpose(ct, *args, **params):
    """The reverse exchange; a program holding it cannot run on CPU
    (SPEC LXM-22), so it is refused with the CPU backend's error."""
    raise JaxRuntimeError("UNIMPLEMENTED: HLO opcode `ragged-all-to-all` is not "
                          "supported by XLA:CPU ThunkEmitter")


ragged_all_to_all_p.jvp = _r2a_jvp
ragged_all_to_all_p.transpose = _r2a_transpose


@ragged_all_to_all_p.def_abstract_eval
def _r2a_abstract_eval(operand, output, input_offsets, send_sizes, output_offsets,
                       recv_sizes, *, axis_name, axis_index_groups):
    if operand.dtype != output.dtype:
        raise ValueError("ragged_all_to_all input and output dtypes must be equal, "
                         f"got {operand.dtype} and {output.dtype}.")
    if operand.shape[1:] != output.shape[1:]:
        raise ValueError("ragged_all_to_all input and output shapes must be equal, "
                         f"except for the outermost dimension, got {operand.shape} "
                         f"and {output.shape}.")
    for name, a in (("input_offsets", input_offsets), ("send_sizes", send_sizes),
                    ("output_offsets", output_offsets), ("recv_sizes", recv_sizes)):
        if not dtypes.issubdtype(a.dtype, np.integer):
            raise ValueError(f"ragged_all_to_all {name} must be integer type, "
                             f"got {a.dtype}.")
        if a.ndim != 1:
            raise ValueError(f"ragged_all_to_all {name} must be rank 1, got {a.ndim}.")
    return ShapedArray(output.shape, output.dtype, output.weak_type)


def _r2a_batch(axis_data, vals, dims, *, axis_name, axis_index_groups):
    """JAX defines no ``vmap`` of ``ragged_all_to_all``."""
    raise NotImplementedError("Please open a feature request!")


ragged_all_to_all_p.batch = _r2a_batch


def ragged_all_to_all(operand, output, input_offsets, send_sizes, output_offsets,
                      recv_sizes, *, axis_name, axis_index_groups=None):
    """All-to-all of variable-sized row blocks over a named axis.  As in JAX
    on CPU it never runs: outside a mapped context a ``RuntimeError``,
    under ``vmap`` a ``NotImplementedError``, inside ``shard_map`` the CPU
    backend's ``JaxRuntimeError`` (SPEC LXM-22)."""
    check_operands("ragged_all_to_all", operand, output, input_offsets, send_sizes,
                   output_offsets, recv_sizes)
    names = parallel._as_names(axis_name)
    if not all(core.axis_exists(n) for n in names):
        raise parallel._unmapped_error("ragged_all_to_all")
    if axis_index_groups is not None:
        raise NotImplementedError("ragged_all_to_all with axis_index_groups is not "
                                  "supported")
    if parallel._manual(names):
        # XLA's CPU backend has no kernel for it; neither has refjax.
        raise JaxRuntimeError("UNIMPLEMENTED: HLO opcode `ragged-all-to-all` is not "
                              "supported by XLA:CPU ThunkEmitter")
    return ragged_all_to_all_p.bind(operand, output, input_offsets, send_sizes,
                                    output_offsets, recv_sizes, axis_name=names,
                                    axis_index_groups=None)
