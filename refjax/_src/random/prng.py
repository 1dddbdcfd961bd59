"""PRNG keys: the threefry2x32 hash, key dtypes and key arrays (SPEC RNG-1 .. RNG-19).

How random numbers are made, as in JAX:

* A *key* is a few uint32 words (two for threefry2x32).  Typed keys
  (``random.key``) are arrays of dtype ``key<fry>`` whose elements are whole
  keys; legacy raw keys (``random.PRNGKey``) are plain ``uint32[..., 2]``
  arrays that the samplers wrap on entry (``random_wrap``).
* Every operation on keys is one of six primitives, which jaxprs show:
  ``random_seed``, ``random_split``, ``random_fold_in``, ``random_bits``,
  ``random_wrap`` and ``random_unwrap`` (plus ``random_clone``).  Their
  implementations act on the key *data*: a uint32 buffer of shape
  ``(*key_shape, 2)``.  A key array of shape ``(4,)`` therefore vectorizes
  over its four keys, which is also how these primitives batch under vmap.
* All randomness comes from the threefry2x32 block cipher
  (``threefry2x32_p``), applied to counters derived from the requested shape.
  How counters are laid out depends on ``jax_threefry_partitionable``
  (RNG-5): True (JAX 0.5+'s default) hashes the row-major index of each
  element as a 64-bit counter; False hashes ``iota(n)`` split into halves.
* Shape primitives (reshape, slicing, concatenation, gather, select...)
  accept key arrays: their ``physical`` rule applies the primitive to the
  key data with the trailing key-data axes carried along.  Arithmetic does
  not (RNG-7).
"""
import math
from typing import Callable, NamedTuple

import numpy as np

from refjax._src import backend as _backend
from refjax._src import config as _config
from refjax._src import dtypes
from refjax._src import mesh as _mesh
from refjax._src.array import Array, ArrayImpl
from refjax._src.core import Primitive, ShapedArray
from refjax._src.interpreters import ad, batching
from refjax._src.interpreters import key_reuse as kr
from refjax._src.lax import lax, shapes
from refjax._src.lax.lax import _xp
from refjax._src.random import counter_prngs

_u32 = np.uint32
UINT_DTYPES = {8: np.dtype(np.uint8), 16: np.dtype(np.uint16),
               32: np.dtype(np.uint32), 64: np.dtype(np.uint64)}



# ---------------------------------------------------------------------------
# The threefry2x32 block cipher (RNG-1)
# ---------------------------------------------------------------------------
# Threefish's 2x32 variant with 20 rounds, as in Salmon et al., "Parallel
# random numbers: as easy as 1, 2, 3" (SC 2011) and the Random123 library:
# five groups of four mix/rotate rounds, with the key schedule injected
# after each group.

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_KEY_PARITY = 0x1BD11BDA


def threefry2x32_kernel(k0, k1, x0, x1):
    """Hash the counter pairs ``(x0, x1)`` under the key ``(k0, k1)``.

    Operands are uint32 buffers that broadcast together; returns two uint32
    buffers of the broadcast shape.  Arithmetic wraps modulo 2**32."""
    xp = _xp()
    shape = np.broadcast_shapes(*(np.shape(a) for a in (k0, k1, x0, x1)))
    # Flat 1-d buffers: NumPy warns on overflow of 0-d (scalar) arithmetic.
    k0, k1, x0, x1 = (xp.broadcast_to(xp.asarray(a, dtype=_u32), shape).reshape(-1)
                      for a in (k0, k1, x0, x1))
    ks = (k0, k1, k0 ^ k1 ^ _u32(_KEY_PARITY))
    x0 = x0 + ks[0]
    x1 = x1 + ks[1]
    high = xp.empty_like(x1)
    # In place: the hash is most of the cost of every sampler.
    for group in range(5):
        for r in _ROTATIONS[group % 2]:
            x0 += x1
            xp.left_shift(x1, _u32(r), out=high)
            x1 >>= _u32(32 - r)
            x1 |= high
            x1 ^= x0
        x0 += ks[(group + 1) % 3]
        x1 += ks[(group + 2) % 3]
        x1 += _u32(group + 1)
    return x0.reshape(shape), x1.reshape(shape)


threefry2x32_p = Primitive("threefry2x32", multiple_results=True)


@threefry2x32_p.def_abstract_eval
def _threefry2x32_abstract_eval(k0, k1, x0, x1):
    avals = (k0, k1, x0, x1)
    if any(a.dtype != dtypes.uint32 for a in avals):
        got = ", ".join(a.dtype.name for a in avals)
        raise TypeError(f"threefry2x32 requires uint32 arguments, got {got}")
    try:
        shape = np.broadcast_shapes(*(a.shape for a in avals))
    except ValueError:
        raise TypeError("threefry2x32 got incompatible shapes for broadcasting: "
                        + ", ".join(str(a.shape) for a in avals)) from None
    return [ShapedArray(shape, dtypes.uint32)] * 2


threefry2x32_p.def_impl(lambda k0, k1, x0, x1: list(threefry2x32_kernel(k0, k1, x0, x1)))


def _threefry2x32_batch(axis_data, vals, dims):
    vals = [batching.bdim_at_front(v, d, axis_data.size) for v, d in zip(vals, dims)]
    return threefry2x32_p.bind(*vals), [0, 0]


threefry2x32_p.batch = _threefry2x32_batch
threefry2x32_p.not_supported("jvp", "integer-only: operands and results are uint32, "
                             "whose tangents are float0 zeros; JAX defines no JVP either")


def threefry_2x32(keypair, count):
    """JAX's ``threefry_2x32(key, count)``: hash a flat uint32 ``count``
    array under one key, pairing its first half with its second half (an
    odd count is padded with one zero word, dropped from the result)."""
    key0, key1 = keypair[0], keypair[1]
    flat = shapes.reshape(count, (int(np.size(count)),))
    n = flat.shape[0]
    if n % 2:
        flat = shapes.concatenate([flat, lax.full((1,), 0, dtypes.uint32)], 0)
    half = flat.shape[0] // 2
    y0, y1 = threefry2x32_p.bind(key0, key1, flat[:half], flat[half:])
    out = shapes.concatenate([y0, y1], 0)
    return shapes.reshape(out[:n], np.shape(count))


# ---------------------------------------------------------------------------
# Threefry on key data: seed, split, fold_in, bits (RNG-2, RNG-4, RNG-5)
# ---------------------------------------------------------------------------
# These run on backend buffers: ``keys`` is uint32 of shape (*batch, 2) and
# every function vectorizes over the batch axes.

def _partitionable():
    return _config.threefry_partitionable.value


def threefry_seed(seeds):
    """Key data for integer seeds: high and low 32-bit words of the seed.

    Seeds narrower than 64 bits have a zero high word; negative seeds keep
    their two's-complement bits (``-1`` gives ``[0, 4294967295]`` for
    int32, ``[4294967295, 4294967295]`` for int64)."""
    xp = _xp()
    lo = seeds.astype(_u32)
    if seeds.dtype.itemsize == 8:
        hi = (seeds.astype(np.uint64) >> np.uint64(32)).astype(_u32)
    else:
        hi = xp.zeros_like(lo)
    return xp.stack([hi, lo], axis=-1)


def _iota_2x32(shape):
    """The row-major index of every element of ``shape`` as a 64-bit
    counter, split into (high, low) uint32 buffers of that shape."""
    xp = _xp()
    size = math.prod(shape)
    if size >= 2 ** 32:
        flat = xp.arange(size, dtype=np.uint64)
        hi, lo = (flat >> np.uint64(32)).astype(_u32), flat.astype(_u32)
    else:
        lo = xp.arange(size, dtype=_u32)
        hi = xp.zeros(size, dtype=_u32)
    return hi.reshape(shape), lo.reshape(shape)


def _key_words(keys, extra_rank):
    """The two key words, shaped to broadcast against ``extra_rank`` more axes."""
    batch = keys.shape[:-1]
    pad = (1,) * extra_rank
    return keys[..., 0].reshape(batch + pad), keys[..., 1].reshape(batch + pad)


def _hash_counts(keys, count):
    """``threefry_2x32`` of a 1-d counter buffer under each key of ``keys``:
    shape (*batch, len(count))."""
    xp = _xp()
    n = count.shape[0]
    if n % 2:
        count = xp.concatenate([count, xp.zeros(1, dtype=_u32)])
    half = count.shape[0] // 2
    k0, k1 = _key_words(keys, 1)
    y0, y1 = threefry2x32_kernel(k0, k1, count[:half], count[half:])
    return xp.concatenate([y0, y1], axis=-1)[..., :n]


def _hash_indices(keys, shape):
    """Each key's hash of every 64-bit row-major index of ``shape`` (the
    partitionable layout): two uint32 buffers of shape (*batch, *shape)."""
    k0, k1 = _key_words(keys, len(shape))
    hi, lo = _iota_2x32(shape)
    return threefry2x32_kernel(k0, k1, hi, lo)


def threefry_split(keys, shape):
    """``shape`` new keys from each key: shape (*batch, *shape, 2)."""
    xp = _xp()
    batch = keys.shape[:-1]
    if _partitionable():
        return xp.stack(_hash_indices(keys, shape), axis=-1)
    num = math.prod(shape)
    out = _hash_counts(keys, xp.arange(2 * num, dtype=_u32))
    return out.reshape(batch + tuple(shape) + (2,))


def threefry_fold_in(keys, data):
    """Mix uint32 ``data`` (broadcast against the key batch) into each key:
    the hash of the counter pair ``(0, data)``."""
    xp = _xp()
    k0, k1 = keys[..., 0], keys[..., 1]
    y0, y1 = threefry2x32_kernel(k0, k1, xp.zeros_like(data, dtype=_u32),
                                 data.astype(_u32))
    return xp.stack([y0, y1], axis=-1)


def threefry_random_bits(keys, bit_width, shape):
    """Random unsigned integers of ``bit_width`` bits, shape (*batch, *shape)."""
    if _partitionable():
        return _bits_partitionable(keys, bit_width, shape)
    return _bits_original(keys, bit_width, shape)


def _bits_partitionable(keys, bit_width, shape):
    """Each element hashes its own 64-bit index; the two output words are
    xor-ed (or, for 64 bits, concatenated)."""
    b0, b1 = _hash_indices(keys, shape)
    dtype = UINT_DTYPES[bit_width]
    if bit_width == 64:
        return (b0.astype(dtype) << np.uint64(32)) | b1.astype(dtype)
    return (b0 ^ b1).astype(dtype)


def _bits_original(keys, bit_width, shape):
    """``ceil(bit_width * size / 32)`` words from hashing ``iota``; 64-bit
    values join the first half (high words) with the second; 8- and 16-bit
    values are the words' little-endian pieces."""
    xp = _xp()
    batch = keys.shape[:-1]
    size = math.prod(shape)
    words = -(-bit_width * size // 32)
    if words > np.iinfo(np.uint32).max:
        raise ValueError(f"random_bits: {size} values of {bit_width} bits need "
                         "more than 2**32 - 1 counter words, which refjax does "
                         "not support with jax_threefry_partitionable=False")
    bits = _hash_counts(keys, xp.arange(words, dtype=_u32))
    dtype = UINT_DTYPES[bit_width]
    if bit_width == 64:
        half = words // 2
        bits = (bits[..., :half].astype(dtype) << np.uint64(32)) | bits[..., half:].astype(dtype)
    elif bit_width < 32:
        per_word = 32 // bit_width
        shifts = xp.arange(per_word, dtype=_u32) * _u32(bit_width)
        pieces = (bits[..., None] >> shifts) & _u32(np.iinfo(dtype).max)
        bits = pieces.reshape(batch + (words * per_word,))[..., :size].astype(dtype)
    return bits.reshape(batch + tuple(shape))


# ---------------------------------------------------------------------------
# PRNG implementations (RNG-11)
# ---------------------------------------------------------------------------

class PRNGImpl(NamedTuple):
    """A PRNG: the shape of its key data and its four operations on it.

    Each operation takes and returns backend buffers and vectorizes over
    leading key axes.  ``tag`` names the key dtype: ``key<fry>``."""
    key_shape: tuple
    seed: Callable
    split: Callable
    random_bits: Callable
    fold_in: Callable
    name: str = "<unnamed>"
    tag: str = "?"

    def __str__(self):
        return self.name

    def pprint(self):
        return self.name


threefry_prng_impl = PRNGImpl(
    key_shape=(2,), seed=threefry_seed, split=threefry_split,
    random_bits=threefry_random_bits, fold_in=threefry_fold_in,
    name="threefry2x32", tag="fry")


# rbg ("random bit generator") keys hold two threefry half-keys.  Seeding,
# splitting and folding are threefry's on each half, exactly as JAX does;
# JAX draws the bits with XLA's RngBitGenerator, whose output is
# backend-defined, so refjax draws them with threefry (RNG-11).

def _halves(keys):
    return keys.reshape(keys.shape[:-1] + (2, 2))


def _rbg_seed(seeds):
    half = threefry_seed(seeds)
    return _xp().concatenate([half, half], axis=-1)


def _rbg_split(keys, shape):
    halves = threefry_split(_halves(keys), shape)        # (*b, 2, *shape, 2)
    halves = _xp().moveaxis(halves, keys.ndim - 1, -2)   # (*b, *shape, 2, 2)
    return halves.reshape(halves.shape[:-2] + (4,))


def _rbg_fold_in(keys, data):
    folded = threefry_fold_in(_halves(keys), data[..., None])
    return folded.reshape(folded.shape[:-2] + (4,))


def _rbg_random_bits(keys, bit_width, shape):
    """Threefry bits under one key that mixes both halves: the first half
    hashes the second.  (A plain xor of the two halves' bits would be all
    zero for freshly seeded keys, whose halves are equal.)"""
    halves = _halves(keys)
    first, second = halves[..., 0, :], halves[..., 1, :]
    mixed = _xp().stack(threefry2x32_kernel(first[..., 0], first[..., 1],
                                            second[..., 0], second[..., 1]), axis=-1)
    return threefry_random_bits(mixed, bit_width, shape)


def _unsafe_rbg_split(keys, shape):
    return _rbg_random_bits(keys, 32, tuple(shape) + (4,))


def _unsafe_rbg_fold_in(keys, data):
    mixed = _rbg_random_bits(keys, 32, (4,))
    return mixed ^ data.astype(_u32)[..., None]


rbg_prng_impl = PRNGImpl(
    key_shape=(4,), seed=_rbg_seed, split=_rbg_split,
    random_bits=_rbg_random_bits, fold_in=_rbg_fold_in, name="rbg", tag="rbg")

unsafe_rbg_prng_impl = PRNGImpl(
    key_shape=(4,), seed=_rbg_seed, split=_unsafe_rbg_split,
    random_bits=_rbg_random_bits, fold_in=_unsafe_rbg_fold_in,
    name="unsafe_rbg", tag="urbg")

def _counter_impl(name, tag, key_size):
    """A PRNGImpl of ``counter_prngs``'s functions named ``name_*`` (RNG-100)."""
    part = lambda op: getattr(counter_prngs, f"{name}_{op}")  # noqa: E731
    return PRNGImpl(key_shape=(key_size,), seed=part("seed"), split=part("split"),
                    random_bits=part("random_bits"), fold_in=part("fold_in"),
                    name=name, tag=tag)


philox2x32_prng_impl = _counter_impl("philox2x32", "phx2", 1)
philox4x32_prng_impl = _counter_impl("philox4x32", "phx4", 2)
threefry4x32_prng_impl = _counter_impl("threefry4x32", "fry4", 4)

# In JAX's registration order, which its error messages list.
prngs = {impl.name: impl for impl in
         (philox2x32_prng_impl, philox4x32_prng_impl, threefry_prng_impl, rbg_prng_impl,
          unsafe_rbg_prng_impl, threefry4x32_prng_impl)}


class PRNGSpec:
    """What ``random.key_impl`` returns: names an implementation."""

    __slots__ = ("_impl",)

    def __init__(self, impl):
        self._impl = impl

    def __str__(self):
        return self._impl.name

    def __repr__(self):
        return repr(self._impl.name)

    def __eq__(self, other):
        return isinstance(other, PRNGSpec) and self._impl == other._impl

    def __hash__(self):
        return hash(self._impl.name)


def default_prng_impl():
    return prngs[_config.default_prng_impl.value]


def resolve_prng_impl(impl_spec):
    """An implementation from ``None`` (the default), a name, a
    :class:`PRNGSpec`, a :class:`PRNGImpl` or a key dtype, which names its
    implementation (SPEC RNG-101)."""
    if impl_spec is None:
        return default_prng_impl()
    if isinstance(impl_spec, PRNGImpl):
        return impl_spec
    if isinstance(impl_spec, (PRNGSpec, KeyTy)):
        return impl_spec._impl
    if isinstance(impl_spec, str):
        if impl_spec in prngs:
            return prngs[impl_spec]
        keys_fmt = ", ".join(f'"{k}"' for k in prngs)
        raise ValueError(f'unrecognized PRNG implementation "{impl_spec}". '
                         f"Did you mean one of: {keys_fmt}?")
    raise TypeError(f"unrecognized type {type(impl_spec)} for specifying PRNG "
                    "implementation.")


# ---------------------------------------------------------------------------
# The key dtype and key arrays (RNG-3, RNG-7 .. RNG-10)
# ---------------------------------------------------------------------------

class KeyTy(dtypes.ExtendedDType):
    """The dtype of typed keys of one implementation, ``key<fry>``."""

    type = dtypes.prng_key

    def __init__(self, impl):
        self._impl = impl

    @property
    def name(self):
        return f"key<{self._impl.tag}>"

    @property
    def data_shape(self):
        return self._impl.key_shape

    @property
    def itemsize(self):
        return math.prod(self._impl.key_shape) * 4

    def __eq__(self, other):
        return isinstance(other, KeyTy) and self._impl == other._impl

    def __hash__(self):
        return hash((KeyTy, self._impl.name))

    def wrap_physical(self, buffer, aval):
        """The key array whose data is ``buffer`` (``core.wrap_buffer``)."""
        return PRNGKeyArray(self._impl, buffer)

    def full(self, shape, fill_value):
        """Keys of ``shape`` filled with ``fill_value`` (``jnp.full`` and
        the ``*_like`` creators, RNG-104): a key array of this dtype is
        broadcast; a scalar is converted to uint32 and sets every word."""
        shape = tuple(shape)
        fill_dtype = getattr(fill_value, "dtype", None)
        if is_key_dtype(fill_dtype):
            return _broadcast_keys(self, fill_value, shape)
        if np.ndim(fill_value):
            raise ValueError(f"Cannot convert_element_type from "
                             f"{np.result_type(fill_value).name} to {self.name}: "
                             "fill keys with a scalar or with a key array")
        data = lax.full(shape + self._impl.key_shape, fill_value, dtypes.uint32)
        return random_wrap(data, self._impl)


def _broadcast_keys(dtype, keys, shape):
    """``keys`` broadcast to ``shape`` as the fill of an array of key ``dtype``."""
    if keys.dtype != dtype:
        raise ValueError(f"Cannot fill an array of dtype {dtype.name} with keys "
                         f"of dtype {keys.dtype.name}")
    rank = len(keys.shape)
    if rank > len(shape) or any(k not in (1, n) for k, n in
                                zip(keys.shape[::-1], shape[::-1])):
        raise ValueError(f"Incompatible shapes for broadcasting: {keys.shape} "
                         f"and requested shape {shape}")
    dims = tuple(range(len(shape) - rank, len(shape)))
    return shapes.broadcast_in_dim(keys, shape, dims)


def key_dtype(impl):
    return _KEY_DTYPES.setdefault(impl.name, KeyTy(impl))


_KEY_DTYPES = {}


def is_key_dtype(dtype):
    return isinstance(dtype, KeyTy)


def key_data_shape(aval):
    """The full shape of the data of a key aval: (*shape, *key_shape)."""
    return tuple(aval.shape) + aval.dtype._impl.key_shape


class PRNGKeyArray(Array):
    """A concrete array of typed keys: its shape counts keys, and its data is
    a uint32 array of shape (*shape, *key_shape), ``_base_array`` (RNG-3).

    Shape operations, indexing, ``vmap`` and the control-flow primitives
    accept it; numeric operations raise ``TypeError``; ``np.asarray`` of it
    raises too (use ``random.key_data``).  Placement, deletion and the other
    runtime queries of ``jax.Array`` are those of the data (RNG-102).
    ``_consumed`` is the key-reuse checker's state (RNG-65): ``False``,
    ``True`` or a mask over the keys."""

    __slots__ = ("_impl", "_base_array", "_consumed", "__weakref__")
    __hash__ = None

    def __init__(self, impl, base):
        self._impl = impl
        # ``base`` is a backend buffer (from a kernel) or a uint32 Array.
        self._base_array = base if isinstance(base, ArrayImpl) else \
            ArrayImpl(base, dtypes.uint32)
        self._consumed = False

    @property
    def _base(self):
        return self._base_array._value

    @property
    def _value(self):
        return self._base_array._value

    @property
    def aval(self):
        return ShapedArray(self.shape, self.dtype)

    @property
    def dtype(self):
        return key_dtype(self._impl)

    @property
    def shape(self):
        base_shape = self._base_array.shape
        return tuple(base_shape[:len(base_shape) - len(self._impl.key_shape)])

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return math.prod(self.shape)

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.size * self.itemsize

    weak_type = False

    # -- placement and lifetime: the data's (RNG-102) ------------------------
    @property
    def committed(self):
        return self._base_array.committed

    def devices(self):
        return self._base_array.devices()

    @property
    def device(self):
        return self._base_array.device

    @property
    def sharding(self):
        """Where the keys live: the data's sharding while that is on one
        device, as for JAX's uncommitted key arrays (FUZZ-2)."""
        return self._base_array.sharding

    @property
    def is_fully_addressable(self):
        return self._base_array.is_fully_addressable

    @property
    def is_fully_replicated(self):
        return self._base_array.is_fully_replicated

    def delete(self):
        self._base_array.delete()

    def is_deleted(self):
        return self._base_array.is_deleted()

    def block_until_ready(self):
        self._base_array.block_until_ready()
        return self

    def copy_to_host_async(self):
        self._base_array.copy_to_host_async()

    def on_device_size_in_bytes(self):
        return self._base_array.on_device_size_in_bytes()

    def unsafe_buffer_pointer(self):
        return self._base_array.unsafe_buffer_pointer()

    def addressable_data(self, index):
        return PRNGKeyArray(self._impl, self._base_array.addressable_data(index))

    @property
    def addressable_shards(self):
        """The data's shards, each holding its block as keys."""
        return [_mesh.Shard(s.device, s.index, s.replica_id,
                            PRNGKeyArray(self._impl, s.data))
                for s in self._base_array.addressable_shards]

    @property
    def global_shards(self):
        return self.addressable_shards

    def copy(self):
        out = self.__copy__()
        out._consumed = self._consumed
        return out

    # -- Python protocols -----------------------------------------------------
    def __len__(self):
        if not self.ndim:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.ndim:
            raise TypeError("iteration over a 0-d key array")
        # Fresh key arrays over the data, as JAX iterates (no slicing, so
        # the key-reuse checker sees no consumption; RNG-65).
        base = self._base
        return (PRNGKeyArray(self._impl, base[i]) for i in range(self.shape[0]))

    def __bool__(self):
        raise TypeError("key array cannot be converted to boolean.")

    def astype(self, dtype):
        # JAX's key arrays leave this abstract method unimplemented.
        raise NotImplementedError("Cannot call abstract method astype")

    def __array__(self, dtype=None, copy=None):
        raise TypeError("JAX array with PRNGKey dtype cannot be converted to a "
                        "NumPy array. Use jax.random.key_data(arr) if you wish "
                        "to extract the underlying integer array.")

    def __repr__(self):
        host = _backend.get().to_host(self._base)
        return f"Array({self.shape}, dtype={self.dtype.name}) overlaying:\n{host}"

    __str__ = __repr__

    def __format__(self, spec):
        return format(repr(self), spec)

    def __copy__(self):
        # A new data Array over the same immutable buffer: deleting the
        # copy leaves the original usable.
        return PRNGKeyArray(self._impl, self._base_array.clone())

    def __deepcopy__(self, memo):
        return self.__copy__()


def _abstract_method(name):
    def method(self, *args, **kwargs):
        raise NotImplementedError(f"Cannot call abstract method {name}")
    method.__name__ = method.__qualname__ = name
    return method


def _abstract_property(name):
    def getter(self):
        raise NotImplementedError(f"Cannot call abstract method {name}")
    return property(getter)


# Array methods and properties that have no meaning on keys: JAX's key
# arrays leave them abstract, so calling one raises NotImplementedError
# whatever the arguments (found by tests/test_fuzz_bad_input.py, FUZZ-4).
for _name in ("all", "any", "argmax", "argmin", "argpartition", "argsort", "byteswap",
              "choose", "clip", "compress", "conj", "conjugate", "cumprod", "cumsum",
              "diagonal", "dot", "item", "max", "mean", "min", "nonzero", "prod", "ptp",
              "repeat", "round", "searchsorted", "sort", "std", "sum", "to_device", "trace",
              "var", "view"):
    setattr(PRNGKeyArray, _name, _abstract_method(_name))
for _name in ("flat", "imag", "mT", "real"):
    setattr(PRNGKeyArray, _name, _abstract_property(_name))
del _name


# ---------------------------------------------------------------------------
# Primitives on keys (RNG-2, RNG-3)
# ---------------------------------------------------------------------------

def _key_impl_of(aval, name, position=0):
    if not is_key_dtype(aval.dtype):
        raise TypeError(f"{name} accepts only typed PRNG key arrays; got "
                        f"dtype {aval.dtype.name} at position {position}")
    return aval.dtype._impl


def _pp_impl_param(params):
    shown = dict(params)
    shown["impl"] = _ImplTag(params["impl"])
    return shown


class _ImplTag:
    """Prints an implementation by its tag, as JAX's jaxprs do (``impl=fry``)."""

    def __init__(self, impl):
        self.impl = impl

    def __repr__(self):
        return self.impl.tag


def _keys_first_batch(prim):
    """Batching for primitives whose operands are key arrays with the batch
    as leading key axes: move every batch dim to the front."""
    def rule(axis_data, vals, dims, **params):
        vals = [batching.bdim_at_front(v, d, axis_data.size) for v, d in zip(vals, dims)]
        out = prim.bind(*vals, **params)
        return out, 0
    prim.batch = rule


def _key_primitive(name, abstract_eval, physical, pp_impl=False):
    """A primitive on key data: ``physical(buffers, avals_in, avals_out,
    **params)`` computes, both eagerly and inside compiled programs."""
    prim = Primitive(name)
    prim.def_abstract_eval(abstract_eval)
    prim.physical = physical
    prim.impl = _physical_only(name)
    if pp_impl:
        prim.pp_params = _pp_impl_param
    _keys_first_batch(prim)
    return prim


def _physical_only(name):
    def impl(*args, **params):
        raise TypeError(f"{name} needs typed key operands")
    return impl


# random_seed: integer seeds -> keys.  Its operand is not a key, so its
# impl (not a physical rule) runs; the result buffer is the key data.

random_seed_p = Primitive("random_seed")
random_seed_p.pp_params = _pp_impl_param
_keys_first_batch(random_seed_p)


@random_seed_p.def_abstract_eval
def _random_seed_abstract_eval(seeds, *, impl):
    if not dtypes.issubdtype(seeds.dtype, np.integer):
        # JAX checks the seed while tracing its seeding function under jit.
        raise TypeError(f"PRNG key seed must be an integer; got JitTracer({seeds})")
    return ShapedArray(seeds.shape, key_dtype(impl))


@random_seed_p.def_impl
def _random_seed_impl(seeds, *, impl):
    return impl.seed(seeds)


def random_seed(seeds, impl):
    """Keys from integer seeds (``random.key``); see ``threefry_seed``.
    ``jax_random_seed_offset`` is added to the seeds first, in their own
    dtype (SPEC CFG-20)."""
    offset = _config.states["jax_random_seed_offset"].value
    dtype = getattr(seeds, "dtype", None)
    if offset and dtype is not None and dtypes.issubdtype(dtype, np.integer):
        seeds = lax.add(seeds, np.array(offset).astype(dtype))
    return random_seed_p.bind(seeds, impl=impl)


def _split_abstract_eval(keys, *, shape):
    _key_impl_of(keys, "random_split")
    return ShapedArray((*keys.shape, *shape), keys.dtype)


def _split_physical(buffers, avals_in, avals_out, *, shape):
    return avals_in[0].dtype._impl.split(buffers[0], tuple(shape))


random_split_p = _key_primitive("random_split", _split_abstract_eval, _split_physical)


def random_split(keys, shape):
    return random_split_p.bind(keys, shape=tuple(shape))


def _fold_in_abstract_eval(keys, msgs):
    _key_impl_of(keys, "random_fold_in")
    shape = np.broadcast_shapes(keys.shape, msgs.shape)
    return ShapedArray(shape, keys.dtype)


def _fold_in_physical(buffers, avals_in, avals_out, **_):
    keys, msgs = buffers
    shape = avals_out[0].shape if isinstance(avals_out, list) else avals_out.shape
    impl = avals_in[0].dtype._impl
    xp = _xp()
    keys = xp.broadcast_to(keys, tuple(shape) + impl.key_shape)
    return impl.fold_in(keys, xp.broadcast_to(msgs, shape))


random_fold_in_p = _key_primitive("random_fold_in", _fold_in_abstract_eval,
                                  _fold_in_physical)


def _fold_in_batch(axis_data, vals, dims):
    keys, msgs = (batching.bdim_at_front(v, d, axis_data.size) for v, d in zip(vals, dims))
    # Align the batch axes: pad the lower-rank operand after its batch axis.
    kr, mr = len(keys.shape), len(msgs.shape)
    if mr < kr:
        msgs = shapes.expand_dims(msgs, tuple(range(1, 1 + kr - mr)))
    elif kr < mr:
        keys = shapes.expand_dims(keys, tuple(range(1, 1 + mr - kr)))
    return random_fold_in_p.bind(keys, msgs), 0


random_fold_in_p.batch = _fold_in_batch


def random_fold_in(keys, msgs):
    return random_fold_in_p.bind(keys, msgs)


def _bits_abstract_eval(keys, *, bit_width, shape):
    _key_impl_of(keys, "random_bits")
    return ShapedArray((*keys.shape, *shape), UINT_DTYPES[bit_width])


def _bits_physical(buffers, avals_in, avals_out, *, bit_width, shape):
    return avals_in[0].dtype._impl.random_bits(buffers[0], bit_width, tuple(shape))


random_bits_p = _key_primitive("random_bits", _bits_abstract_eval, _bits_physical)


def random_bits(keys, bit_width, shape):
    return random_bits_p.bind(keys, bit_width=bit_width, shape=tuple(shape))


# random_wrap: uint32 key data -> keys (a raw key becoming a typed one).

random_wrap_p = Primitive("random_wrap")
random_wrap_p.pp_params = _pp_impl_param
_keys_first_batch(random_wrap_p)


@random_wrap_p.def_abstract_eval
def _wrap_abstract_eval(base, *, impl):
    check_key_data(base, impl)
    nk = len(impl.key_shape)
    return ShapedArray(base.shape[:len(base.shape) - nk], key_dtype(impl))


@random_wrap_p.def_impl
def _wrap_impl(base, *, impl):
    return base


def check_key_data(data, impl):
    """JAX's ``TypeError`` for values that cannot be key data (RNG-18)."""
    if not all(hasattr(data, attr) for attr in ("ndim", "shape", "dtype")):
        raise TypeError("JAX encountered invalid PRNG key data: expected "
                        "key_data to have ndim, shape, and dtype attributes. "
                        f"Got {data}")
    if is_key_dtype(data.dtype):
        raise TypeError("random_wrap: key data is already a typed key array "
                        f"(dtype {data.dtype.name}); pass it as the key directly.")
    if data.dtype != dtypes.uint32:
        raise TypeError("JAX encountered invalid PRNG key data: expected "
                        f"key_data.dtype = uint32; got dtype={data.dtype}")
    nk = len(impl.key_shape)
    if data.ndim < nk or tuple(data.shape[data.ndim - nk:]) != impl.key_shape:
        raise TypeError("JAX encountered invalid PRNG key data: expected "
                        f"key_data.shape to end with {impl.key_shape}; got "
                        f"shape={tuple(data.shape)} for impl={impl!r}")


def random_wrap(base, impl):
    return random_wrap_p.bind(base, impl=impl)


def _check_unwrap_operand(keys):
    """JAX's TypeError for unwrapping what is not a key array (RNG-103)."""
    dtype = getattr(keys, "dtype", None)
    if not is_key_dtype(dtype):
        raise TypeError(f"random_unwrap takes key array operand, got keys.dtype={dtype!r}")


def _unwrap_abstract_eval(keys):
    _check_unwrap_operand(keys)
    return ShapedArray(key_data_shape(keys), dtypes.uint32)


random_unwrap_p = _key_primitive("random_unwrap", _unwrap_abstract_eval,
                                 lambda buffers, avals_in, avals_out: buffers[0])


def random_unwrap(keys):
    _check_unwrap_operand(keys)
    return random_unwrap_p.bind(keys)


# random_clone: the same key data as a fresh (unconsumed) key (RNG-12).
random_clone_p = _key_primitive(
    "random_clone", lambda keys: keys,
    lambda buffers, avals_in, avals_out: buffers[0])


def random_clone(keys):
    return random_clone_p.bind(keys)


# Keys carry no tangents: every output of these primitives is an integer or
# a key, whose tangent is a float0 zero, as JAX's rules say.
for _prim in (random_seed_p, random_split_p, random_fold_in_p, random_bits_p,
              random_wrap_p, random_unwrap_p):
    ad.defjvp_zero(_prim)
# Key reuse (RNG-66, RNG-68): drawing bits and splitting consume the key;
# fold_in, seeding, wrapping and clone make fresh keys and leave the
# operand usable, as in JAX.
random_bits_p.key_reuse = kr.KeyReuseSignature(kr.Sink(0))
random_split_p.key_reuse = kr.KeyReuseSignature(kr.Sink(0), kr.Source(0))
for _prim in (random_fold_in_p, random_seed_p, random_wrap_p, random_clone_p):
    _prim.key_reuse = kr.KeyReuseSignature(kr.Source(0))
random_unwrap_p.key_reuse = kr.NO_KEYS
random_clone_p.not_supported("jvp", "key-only: operand and result are PRNG keys, whose "
                             "tangents are float0 zeros; JAX defines no JVP for it")


# Shape primitives (reshape, slicing, gather...) and ``==``/``!=`` apply to
# key arrays through their ``physical`` rules, next to each primitive in
# lax, which read the key-data shape from ``KeyTy.data_shape`` (RNG-20).
