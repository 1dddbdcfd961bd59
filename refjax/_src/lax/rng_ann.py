"""``approx_max_k``/``approx_min_k`` and the low-level random-bit
primitives ``rng_bit_generator`` and ``rng_uniform`` (SPEC LXM-17..19).

On CPU, XLA computes the "approximate" top-k exactly (a sort), which is
what refjax does.  The bits of ``rng_bit_generator`` are defined by each
XLA backend; refjax produces Philox-4x32-10 bits of its own layout, with
JAX's shapes, dtypes and key update, but not XLA's bit values.
"""
import builtins
import enum
import operator

import numpy as np

from refjax._src import backend, core, dtypes
from refjax._src.core import Primitive, ShapedArray
from refjax._src.errors import JaxRuntimeError
from refjax._src.interpreters import ad, batching
from refjax._src.lax import dynamic_slice, lax, sorting
from refjax._src.lax.misc_ops import check_operands

_xp = lax._xp


# ---------------------------------------------------------------------------
# approx_max_k / approx_min_k (SPEC LXM-17)
# ---------------------------------------------------------------------------

approx_top_k_p = Primitive("approx_top_k", multiple_results=True)


@approx_top_k_p.def_abstract_eval
def _approx_top_k_abstract_eval(operand, *, k, reduction_dimension, recall_target,
                                is_max_k, reduction_input_size_override,
                                aggregate_to_topk):
    """JAX's checks, in JAX's order; on CPU an unaggregated result keeps
    the whole (sorted) reduction dimension."""
    if k <= 0:
        raise ValueError(f"k must be positive, got {k}")
    if len(operand.shape) == 0:
        raise TypeError("approx_top_k operand must have >= 1 dimension, got "
                        f"{operand.shape}")
    dims = list(operand.shape)
    if not -len(dims) <= reduction_dimension < len(dims):
        raise IndexError(f"reduction_dimension {reduction_dimension} is out of range "
                         f"for an operand of rank {len(dims)}")
    if dims[reduction_dimension] < k:
        raise ValueError("k must be smaller than the size of reduction_dim "
                         f"{dims[reduction_dimension]}, got {k}")
    if not dtypes.issubdtype(operand.dtype, np.floating):
        raise ValueError("operand must be a floating type")
    if aggregate_to_topk:
        dims[reduction_dimension] = k
    return [ShapedArray(dims, operand.dtype, operand.weak_type),
            ShapedArray(dims, np.int32, operand.weak_type)]


@approx_top_k_p.def_impl
def _approx_top_k_impl(operand, *, k, reduction_dimension, recall_target, is_max_k,
                       reduction_input_size_override, aggregate_to_topk):
    """The exact top (or bottom) k, ties to the lower index."""
    if not 0.0 < recall_target <= 1.0:
        raise JaxRuntimeError("UNKNOWN: 'stablehlo.custom_call' op recall_target "
                              "out of range")
    axis = reduction_dimension % operand.ndim
    n = operand.shape[axis] if not aggregate_to_topk else k
    x = operand if is_max_k else -operand
    values, indices = sorting._top_k_impl(x, n, axis)
    return [values if is_max_k else -values, indices]


def _approx_top_k_jvp(primals, tangents, **params):
    """The values' tangent is the operand's tangent at the chosen indices."""
    operand, = primals
    values, indices = approx_top_k_p.bind(operand, **params)
    index_zero = ad.Zero.from_primal_value(indices)
    if type(tangents[0]) is ad.Zero:
        return [values, indices], [ad.Zero.from_primal_value(values), index_zero]
    axis = params["reduction_dimension"] % core.get_aval(operand).ndim
    return [values, indices], [sorting._take_along(tangents[0], indices, axis), index_zero]


def _approx_top_k_batch(axis_data, vals, dims, *, reduction_dimension, **params):
    """``reduction_dimension`` renumbered among the non-batch axes."""
    (x,), (bdim,) = vals, dims
    dim_map = [d for d in range(core.get_aval(x).ndim) if d != bdim]
    outs = approx_top_k_p.bind(x, reduction_dimension=dim_map[reduction_dimension], **params)
    return outs, [bdim, bdim]


approx_top_k_p.jvp = _approx_top_k_jvp
approx_top_k_p.batch = _approx_top_k_batch


def _approx_k(operand, k, reduction_dimension, recall_target,
              reduction_input_size_override, aggregate_to_topk, is_max_k):
    core.get_aval(operand)          # the operand is checked first, as in JAX
    return approx_top_k_p.bind(
        operand, k=operator.index(k), reduction_dimension=operator.index(reduction_dimension),
        recall_target=float(recall_target), is_max_k=is_max_k,
        reduction_input_size_override=reduction_input_size_override,
        aggregate_to_topk=aggregate_to_topk)


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True):
    """The ``k`` largest values along ``reduction_dimension`` and their
    indices, as a list; exact on CPU (SPEC LXM-17)."""
    return _approx_k(operand, k, reduction_dimension, recall_target,
                     reduction_input_size_override, aggregate_to_topk, True)


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True):
    """The ``k`` smallest values along ``reduction_dimension`` and their
    indices, as a list; exact on CPU (SPEC LXM-17)."""
    return _approx_k(operand, k, reduction_dimension, recall_target,
                     reduction_input_size_override, aggregate_to_topk, False)


# ---------------------------------------------------------------------------
# rng_bit_generator (SPEC LXM-18)
# ---------------------------------------------------------------------------

class RandomAlgorithm(enum.IntEnum):
    """The algorithm ``rng_bit_generator`` asks the backend for."""
    RNG_DEFAULT = 0
    RNG_THREE_FRY = 1
    RNG_PHILOX = 2

    def __str__(self):
        return self.name


_BIT_DTYPES = {np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64)}

rng_bit_generator_p = Primitive("rng_bit_generator", multiple_results=True)


@rng_bit_generator_p.def_abstract_eval
def _rbg_abstract_eval(key, *, shape, dtype, algorithm, out_sharding):
    if key.dtype not in (np.dtype(np.uint32), np.dtype(np.uint64)):
        raise TypeError(f"rng_bit_generator key must be uint32 or uint64, got {key.dtype}")
    return [ShapedArray(key.shape, key.dtype, key.weak_type), ShapedArray(shape, dtype)]


_M0, _M1, _W0, _W1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85


def _philox(counters, k0, k1):
    """Philox-4x32-10 of 4 counter words (uint64 arrays holding 32 bits)."""
    xp = _xp()
    mask = np.uint64(0xFFFFFFFF)
    c0, c1, c2, c3 = counters
    k0, k1 = np.uint64(k0), np.uint64(k1)
    for _ in range(10):
        p0, p1 = np.uint64(_M0) * c0, np.uint64(_M1) * c2
        c0, c1, c2, c3 = ((p1 >> np.uint64(32)) ^ c1 ^ k0, p1 & mask,
                          (p0 >> np.uint64(32)) ^ c3 ^ k1, p0 & mask)
        k0, k1 = (k0 + np.uint64(_W0)) & mask, (k1 + np.uint64(_W1)) & mask
    return xp.stack([c0, c1, c2, c3], axis=-1).reshape(-1)


def _key_words(key):
    """The key as four 32-bit words (a uint64[2] key split in halves)."""
    k = np.asarray(backend.get().to_host(key))
    if k.dtype == np.uint32 and k.shape == (4,):
        return [int(v) for v in k]
    if k.dtype == np.uint64 and k.shape == (2,):
        return [int(k[0]) & 0xFFFFFFFF, int(k[0]) >> 32, int(k[1]) & 0xFFFFFFFF, int(k[1]) >> 32]
    raise AssertionError(
        f"rng_bit_generator takes a uint32[4] or uint64[2] key, got {k.dtype}{list(k.shape)}")


@rng_bit_generator_p.def_impl
def _rbg_impl(key, *, shape, dtype, algorithm, out_sharding):
    """Bits from (key words 0-1, counter = words 2-3 + block number); the
    counter advances by the number of 128-bit blocks drawn, as XLA's does."""
    xp = _xp()
    words = _key_words(key)
    dtype = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64))
    blocks = -(-n * dtype.itemsize // 16)
    counter = (words[2] | words[3] << 32)
    ctr = xp.arange(blocks, dtype=np.uint64) + np.uint64(counter)
    mask = np.uint64(0xFFFFFFFF)
    bits = _philox([ctr & mask, ctr >> np.uint64(32), xp.zeros_like(ctr), xp.zeros_like(ctr)],
                   words[0], words[1]).astype(np.uint32)
    out = bits.view(np.uint8)[:n * dtype.itemsize].view(dtype).reshape(shape)
    new = (counter + blocks) & ((1 << 64) - 1)
    new_words = [words[0], words[1], new & 0xFFFFFFFF, new >> 32]
    if key.dtype == np.uint64:
        new_key = np.array([words[0] | words[1] << 32, new], np.uint64)
    else:
        new_key = np.array(new_words, np.uint32)
    return [xp.asarray(new_key), out]


def _rbg_batch(axis_data, vals, dims, *, shape, **params):
    """As JAX: the first key draws every example's bits, and only it is
    advanced (SPEC LXM-18)."""
    (keys,), (bdim,) = vals, dims
    keys = batching.moveaxis(keys, bdim, 0)
    first = dynamic_slice.dynamic_index_in_dim(keys, 0, 0, keepdims=False)
    new_key, bits = rng_bit_generator_p.bind(first, shape=(axis_data.size, *shape), **params)
    new_keys = dynamic_slice.dynamic_update_index_in_dim(keys, new_key, 0, 0)
    return [new_keys, bits], [0, 0]


rng_bit_generator_p.batch = _rbg_batch
rng_bit_generator_p.not_supported(
    "jvp", "integer-only: keys and bits are unsigned integers, with float0 tangents")


def rng_bit_generator(key, shape, dtype=np.uint32, algorithm=RandomAlgorithm.RNG_DEFAULT,
                      *, out_sharding=None):
    """``(new_key, bits)``: unsigned random bits of ``shape`` and ``dtype``
    from a ``uint32[4]`` key.  The bit values are refjax's own (XLA's
    differ by backend); shapes, dtypes and the key update follow JAX
    (SPEC LXM-18)."""
    shape = core.canonicalize_shape(shape)
    dt = dtypes.check_user_dtype(dtype, "rng_bit_generator")
    lax.check_out_sharding(out_sharding, "rng_bit_generator")
    if np.dtype(dt) not in _BIT_DTYPES:
        raise TypeError(f"rng_bit_generator: unsupported dtype {dt}")
    return tuple(rng_bit_generator_p.bind(key, shape=shape, dtype=np.dtype(dt),
                                          algorithm=algorithm, out_sharding=out_sharding))


# ---------------------------------------------------------------------------
# rng_uniform (SPEC LXM-19)
# ---------------------------------------------------------------------------

rng_uniform_p = Primitive("rng_uniform")
rng_uniform_p.effectful = True      # stateful: each run draws anew


@rng_uniform_p.def_abstract_eval
def _rng_uniform_abstract_eval(a, b, *, shape):
    if a.dtype != b.dtype:
        raise ValueError("Arguments to rng_uniform must have identical dtypes, got "
                         f"{a.dtype} and {b.dtype}.")
    if a.shape != () or b.shape != ():
        raise ValueError("Arguments to rng_uniform must be scalars; got shapes "
                         f"{a.shape} and {b.shape}.")
    return ShapedArray(shape, a.dtype, a.weak_type and b.weak_type)


_state = np.random.default_rng()


@rng_uniform_p.def_impl
def _rng_uniform_impl(a, b, *, shape):
    """Uniform in [a, b) from a process-wide generator (XLA's is stateful
    too); integers are drawn in [a, b)."""
    a_host, b_host = (np.asarray(backend.get().to_host(v)) for v in (a, b))
    if a_host.dtype.kind in "iu":
        hi = builtins.max(int(b_host), int(a_host) + 1)
        out = _state.integers(int(a_host), hi, size=shape).astype(a_host.dtype)
    else:
        out = _state.uniform(float(a_host), float(b_host), size=shape).astype(a_host.dtype)
    return _xp().asarray(out)


rng_uniform_p.not_supported("jvp", "undefined in JAX: rng_uniform has no JVP rule")
rng_uniform_p.not_supported("batch", "undefined in JAX: rng_uniform has no batching rule")


def rng_uniform(a, b, shape):
    """Stateful uniform random numbers in ``[a, b)`` of ``shape``; ``a`` and
    ``b`` are scalars of one dtype (SPEC LXM-19)."""
    check_operands("rng_uniform", a, b)
    return rng_uniform_p.bind(a, b, shape=tuple(shape))
