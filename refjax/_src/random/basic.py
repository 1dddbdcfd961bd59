"""``jax.random``: keys and the basic samplers (SPEC RNG-1 .. RNG-23).

The rules a user meets first (RNG-2 .. RNG-10):

* ``key(seed)`` makes a typed key (dtype ``key<fry>``, shape ``()``);
  ``PRNGKey(seed)`` the legacy raw ``uint32[2]`` key data.  Every function
  accepts both; raw keys are wrapped on entry (``random_wrap``) and results
  that are keys are unwrapped again, so raw in means raw out.
* Functions are pure: the same key gives the same numbers.  ``split`` and
  ``fold_in`` derive new keys; a key used once should not be used again
  (``jax_debug_key_reuse`` checks it, RNG-65).
* Samplers take one key (``vmap`` over key arrays for batches), static
  shapes and dtypes, and may take traced distribution parameters.

The samplers follow JAX's algorithms step for step, so that integer and
uniform results are bit-identical and transcendental ones agree to 2 ulp
(RNG-4, RNG-5, RNG-21).
"""
import functools
import operator
import warnings
from collections.abc import Sequence

import numpy as np

from refjax._src import config as _config
from refjax._src import core, dtypes
from refjax._src.api import jit
from refjax._src.array import Array
from refjax._src.lax import lax, precision
from refjax._src.lax import shapes as lax_shapes
from refjax._src.numpy import creation, ufuncs
from refjax._src.random import prng

# A sampler's shape is a sequence: a 0-d array is JAX's TypeError (SPEC LAX-14).
canonicalize_shape = functools.partial(core.canonicalize_shape, allow_0d_array=False)

KeyArray = Array


# ---------------------------------------------------------------------------
# Keys (RNG-2, RNG-3, RNG-8 .. RNG-12, RNG-18, RNG-19)
# ---------------------------------------------------------------------------

_LEGACY_KEY_MSG = (
    "Legacy uint32 key array passed as key to jax.random function. Please "
    "create keys using jax.random.key(). If use of a raw key array was "
    "intended, set jax_legacy_prng_key=\"allow\".")


def _is_typed_key(x):
    return isinstance(x, Array) and prng.is_key_dtype(x.dtype)


def _check_prng_key(name, key, *, allow_batched=False):
    """(typed key, whether it was wrapped from raw key data).

    Raw keys pass ``jax_legacy_prng_key`` (RNG-19) and the key-data checks
    (RNG-18); batched keys are refused unless ``allow_batched`` (RNG-20)."""
    if _is_typed_key(key):
        typed, wrapped = key, False
    elif core.is_array_like(key) or isinstance(key, (int, float)):
        # Invalid key data is reported before the legacy-key mode (RNG-106).
        impl = prng.default_prng_impl()
        prng.check_key_data(key, impl)
        mode = _config.legacy_prng_key.value
        if mode == "error":
            raise ValueError(_LEGACY_KEY_MSG)
        if mode == "warn":
            warnings.warn(_LEGACY_KEY_MSG, UserWarning, stacklevel=3)
        typed, wrapped = prng.random_wrap(key, impl), True
    else:
        raise TypeError(f"unexpected PRNG key type {type(key)}")
    if not allow_batched and typed.ndim:
        raise ValueError(f"{name} accepts a single key, but was given a key "
                         f"array of shape {typed.shape} != (). Use jax.vmap "
                         "for batching.")
    return typed, wrapped


def _is_raw_key_data(x):
    try:
        prng.check_key_data(x, prng.default_prng_impl())
    except TypeError:
        return False
    return True


def _return_prng_keys(was_wrapped, keys):
    return prng.random_unwrap(keys) if was_wrapped else keys


def _seed_array(ctor_name, seed):
    """The seed as an integer array: Python ints go through int64 first,
    so large seeds wrap to 32 bits with x64 off rather than overflow (RNG-2)."""
    if _is_typed_key(seed):
        raise TypeError(f"{ctor_name} accepts a scalar seed, but was given a "
                        "PRNG key.")
    if np.ndim(seed):
        raise TypeError(f"{ctor_name} accepts a scalar seed, but was given an "
                        f"array of shape {np.shape(seed)} != (). Use jax.vmap "
                        "for batching")
    if isinstance(seed, int) and not isinstance(seed, bool):
        return creation.asarray(np.int64(seed))
    return creation.asarray(seed)


def _impl_or_dtype(fun_name, impl, dtype):
    """The implementation named by ``impl`` or by ``dtype`` (a key dtype or
    an implementation's name); naming both is ValueError (RNG-101)."""
    if dtype is None:
        return prng.resolve_prng_impl(impl)
    if impl is not None:
        raise ValueError(f"Cannot specify both `impl` and `dtype` arguments to "
                         f"jax.random.{fun_name}")
    return prng.resolve_prng_impl(dtype)


def key(seed, *, impl=None, dtype=None):
    """A typed key, dtype ``key<impl>`` and shape ``()`` (RNG-1); ``dtype``
    may name the implementation instead of ``impl`` (RNG-101)."""
    impl = _impl_or_dtype("key", impl, dtype)
    return prng.random_seed(_seed_array("key", seed), impl)


def PRNGKey(seed, *, impl=None):  # noqa: N802 - JAX's name
    """Legacy raw key data: ``uint32[2]`` for threefry (RNG-1)."""
    impl = prng.resolve_prng_impl(impl)
    return prng.random_unwrap(prng.random_seed(_seed_array("PRNGKey", seed), impl))


def key_dtype(impl_spec=None):
    """The key dtype of a PRNG implementation (``key<fry>`` for
    threefry2x32, the default), named or given as an impl (RNG-99)."""
    return prng.key_dtype(prng.resolve_prng_impl(impl_spec))


def key_data(keys):
    """The uint32 data behind typed keys; raw key data is returned as is (RNG-9)."""
    typed, wrapped = _check_prng_key("key_data", keys, allow_batched=True)
    return prng.random_unwrap(typed)


def wrap_key_data(key_bits_array, *, impl=None, dtype=None):
    """Typed keys whose data is ``key_bits_array`` (uint32[..., 2]) (RNG-9);
    ``dtype`` may name the implementation instead of ``impl`` (RNG-101)."""
    impl = _impl_or_dtype("wrap_key_data", impl, dtype)
    prng.check_key_data(key_bits_array, impl)
    return prng.random_wrap(key_bits_array, impl)


def key_impl(keys):
    """The name of the implementation behind ``keys``, a ``str`` such as
    ``'threefry2x32'``, as JAX 0.10.2 returns (RNG-10)."""
    typed, _ = _check_prng_key("key_impl", keys, allow_batched=True)
    return typed.dtype._impl.name


def clone(key):
    """The same key, fresh for the key-reuse checker (RNG-12).  A value that
    is neither a key nor raw key data comes back unchanged as an array: JAX's
    clone primitive takes any array (found by the bad-input fuzz, FUZZ-4)."""
    if not _is_typed_key(key) and not _is_raw_key_data(key):
        if not (hasattr(key, "dtype") or isinstance(key, (bool, int, float, complex))):
            raise TypeError("Error interpreting argument to random_clone as a JAX value. "
                            f"The problematic value is of type {type(key)} and was "
                            "passed to random_clone at position 0.")
        return creation.asarray(key)
    typed, wrapped = _check_prng_key("clone", key, allow_batched=True)
    return _return_prng_keys(wrapped, prng.random_clone(typed))


def _split_shape(num):
    if isinstance(num, float):
        operator.index(num)      # Python's TypeError, as JAX gives
    if isinstance(num, Sequence):
        return canonicalize_shape(tuple(num))
    return canonicalize_shape((num,))


def _split(key, num=2):
    if key.ndim:
        raise ValueError("split accepts a single key, but was given a key array "
                         f"of shape {key.shape} != (). Use jax.vmap for batching.")
    return prng.random_split(key, _split_shape(num))


def split(key, num=2):
    """``num`` new keys (an int or a shape) from one key (RNG-3)."""
    typed, wrapped = _check_prng_key("split", key, allow_batched=True)
    return _return_prng_keys(wrapped, _split(typed, num))


def fold_in(key, data):
    """A new key from ``key`` and the integer ``data`` (RNG-12)."""
    typed, wrapped = _check_prng_key("fold_in", key)
    if isinstance(data, (str, bytes, complex)):
        # Python's int() decides, as JAX's conversion: '5' is 5, 'a' and 1j fail.
        data = int(data)
    if np.ndim(data):
        raise TypeError("fold_in accepts a scalar, but was given an array of "
                        f"shape {np.shape(data)} != (). Use jax.vmap for batching.")
    if type(data) is int and not 0 <= data < 2 ** 32:
        raise OverflowError(f"Python integer {data} out of bounds for uint32")
    data = lax._convert_element_type(data, dtypes.uint32, False)
    return _return_prng_keys(wrapped, prng.random_fold_in(typed, data))


# ---------------------------------------------------------------------------
# Shapes and dtypes of samplers
# ---------------------------------------------------------------------------

def broadcast_shapes(*shapes):
    """The broadcast of parameter shapes; shapes that do not broadcast fail
    with JAX's ``ValueError`` naming them, not NumPy's (RNG-16, FUZZ-2)."""
    shapes = [tuple(s) for s in shapes]
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting: shapes={shapes}") from None


def check_shape(name, shape, *param_shapes):
    """Parameters must broadcast to exactly ``shape`` (RNG-16)."""
    if param_shapes:
        shapes = [tuple(shape), *map(tuple, param_shapes)]
        try:
            joined = np.broadcast_shapes(*shapes)
        except ValueError:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={shapes}") from None
        if joined != tuple(shape):
            raise ValueError(
                f"{name} parameter shapes must be broadcast-compatible with shape "
                "argument, and the result of broadcasting the shapes must equal "
                f"the shape argument, but got result {joined} for shape argument "
                f"{tuple(shape)}.")


def user_dtype(dtype, default):
    """``dtype`` canonicalized (warning when 64-bit is asked for with x64
    off), or the default dtype of its kind."""
    if dtype is None:
        return default()
    if isinstance(dtype, Array):     # a NumPy array is np.dtype's TypeError below
        raise ValueError("Passing an array as a dtype argument is no longer supported; "
                         "instead of dtype=arr use dtype=arr.dtype.")
    if isinstance(dtype, type) and issubclass(dtype, dtypes.prng_key):
        # Not a dtype to canonicalize: the sampler's kind check refuses it
        # with its ValueError, as in JAX (found by the bad-input fuzz).
        return dtype
    return dtypes.check_user_dtype(dtype, None)


def random_bits(key, bit_width, shape):
    """``shape`` random unsigned integers of ``bit_width`` bits from one key."""
    return prng.random_bits(key, bit_width, shape)


def bits(key, shape=(), dtype=None):
    """Uniform random bits as unsigned integers (RNG-4)."""
    typed, _ = _check_prng_key("bits", key)
    given = dtype
    dtype = user_dtype(dtype, dtypes.default_uint_dtype)
    if not dtypes.issubdtype(dtype, np.unsignedinteger):
        raise ValueError("dtype argument to `bits` must be an unsigned int "
                         f"dtype, got {_shown_dtype(given, dtype)}")
    shape = canonicalize_shape(shape)
    return random_bits(typed, dtypes.itemsize_bits(dtype), shape)


# ---------------------------------------------------------------------------
# uniform, normal, randint (RNG-4, RNG-17)
# ---------------------------------------------------------------------------

def uniform(key, shape=(), dtype=None, minval=0.0, maxval=1.0):
    """Floats in ``[minval, maxval)``: the top mantissa bits of random
    words, as a float in [1, 2), minus one, scaled (RNG-17)."""
    typed, _ = _check_prng_key("uniform", key)
    shape = canonicalize_shape(shape)
    dtype = _float_dtype(dtype, np.floating, "uniform", "a float dtype")
    return _uniform(typed, shape, dtype, minval, maxval)


def _float_dtype(dtype, kind, name, what):
    """The canonical requested (or default float) dtype, which must be of
    ``kind``: JAX's ValueError names the dtype as the user gave it (RNG-17)."""
    canonical = user_dtype(dtype, dtypes.default_float_dtype)
    if not dtypes.issubdtype(canonical, kind):
        raise ValueError(f"dtype argument to `{name}` must be {what}, "
                         f"got {_shown_dtype(dtype, canonical)}")
    return canonical


def _shown_dtype(given, canonical):
    """The dtype as the user gave it, for messages: a NumPy dtype where one
    exists, else the object itself (``jax.dtypes.prng_key``)."""
    if given is None:
        return canonical
    try:
        return np.dtype(given)
    except TypeError:
        return given


def _uniform_impl(key, shape, dtype, minval, maxval):
    check_shape("uniform", shape)
    minval = lax._convert_element_type(minval, dtype, False)
    maxval = lax._convert_element_type(maxval, dtype, False)
    minval = lax_shapes.broadcast_to_rank(minval, len(shape))
    maxval = lax_shapes.broadcast_to_rank(maxval, len(shape))
    finfo = dtypes.finfo(dtype)
    nbits, nmant = finfo.bits, finfo.nmant
    rng_bits = 8 if nmant < 8 else nbits    # bfloat16 and narrower: one byte
    uint_dtype = prng.UINT_DTYPES[nbits]
    words = random_bits(key, rng_bits, shape)
    if rng_bits != nbits:
        words = lax.convert_element_type(words, uint_dtype)
    one_bits = np.array(1.0, dtype).view(uint_dtype)
    float_bits = lax.bitwise_or(
        lax.shift_right_logical(words, np.array(rng_bits - nmant, uint_dtype)), one_bits)
    floats = lax.bitcast_convert_type(float_bits, dtype) - np.array(1.0, dtype)
    # XLA fuses the scaling into one multiply-add (one rounding).
    scaled = precision.fma(floats, maxval - minval, minval)
    return lax.max(minval, lax_shapes.reshape(scaled, shape))


def _named(fun, name):
    fun.__name__ = fun.__qualname__ = name
    return fun


_uniform = jit(_named(_uniform_impl, "_uniform"), static_argnums=(1, 2))


def normal(key, shape=(), dtype=None):
    """Standard normal samples: ``sqrt(2) * erf_inv(u)`` for ``u`` uniform
    in (-1, 1); complex dtypes split the key for real and imaginary parts
    (RNG-4)."""
    typed, _ = _check_prng_key("normal", key)
    shape = canonicalize_shape(shape)
    dtype = _float_dtype(dtype, np.inexact, "normal", "a float or complex dtype")
    return _normal(typed, shape, dtype)


def _normal_impl(key, shape, dtype):
    if dtypes.issubdtype(dtype, np.complexfloating):
        real_dtype = np.array(0, dtype).real.dtype
        key_re, key_im = _split(key)
        re = lax.convert_element_type(_normal_real(key_re, shape, real_dtype), dtype)
        im = lax.convert_element_type(_normal_real(key_im, shape, real_dtype), dtype)
        return (re + 1j * im) / np.array(np.sqrt(2), dtype)
    return _normal_real(key, shape, dtype)


def _normal_real_impl(key, shape, dtype):
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype), dtype=dtype)
    u = _uniform(key, shape, dtype, lo, np.array(1.0, dtype))
    return lax.mul(np.array(np.sqrt(2), dtype), lax.erf_inv(u))


_normal = jit(_named(_normal_impl, "_normal"), static_argnums=(1, 2))
_normal_real = jit(_named(_normal_real_impl, "_normal_real"), static_argnums=(1, 2))


def randint(key, shape, minval, maxval, dtype=None):
    """Integers in ``[minval, maxval)`` (RNG-17).

    Two words of random bits per value reduce the bias of the modulo; a
    ``maxval`` beyond the dtype's range still reaches the dtype's maximum."""
    typed, _ = _check_prng_key("randint", key)
    shape = canonicalize_shape(shape)
    dtype = user_dtype(dtype, dtypes.default_int_dtype)
    if not dtypes.issubdtype(dtype, np.integer):
        raise TypeError(f"randint only accepts integer dtypes, got {dtype}")
    info = np.iinfo(dtype)
    if info.bits >= 32:
        return _randint(typed, shape, minval, maxval, dtype)
    # 8- and 16-bit values are drawn as int32 and cast, to reduce the bias.
    minval = creation.asarray(minval).astype("int32").clip(int(info.min), int(info.max))
    maxval = creation.asarray(maxval).astype("int32").clip(int(info.min), int(info.max) + 1)
    return _randint(typed, shape, minval, maxval, dtypes.int32).astype(dtype)


def _convert_and_clip_integer(val, dtype):
    """``val`` (an integer array) converted to ``dtype``, clipped to its range."""
    val = val if isinstance(val, Array) else creation.asarray(val)
    if not dtypes.issubdtype(val.dtype, np.integer):
        raise TypeError("_convert_and_clip_integer only accepts integer dtypes.")
    val_dtype = dtypes.canonicalize_dtype(val.dtype)
    if val_dtype != val.dtype:
        val = lax.convert_element_type(val, val_dtype)
    min_val = np.array(_bound(dtype, val_dtype, "min"), val_dtype)
    max_val = np.array(_bound(dtype, val_dtype, "max"), val_dtype)
    return lax.convert_element_type(ufuncs.clip(val, min_val, max_val), dtype)


def _bound(dtype, val_dtype, which):
    """The tighter of two integer types' bounds, as a value of ``val_dtype``."""
    a, b = np.iinfo(dtype), np.iinfo(val_dtype)
    if which == "min":
        return max(a.min, b.min)
    return min(a.max, b.max)


def _randint_impl(key, shape, minval, maxval, dtype):
    check_shape("randint", shape, np.shape(minval), np.shape(maxval))
    if not dtypes.issubdtype(dtype, np.integer):
        raise TypeError(f"randint only accepts integer dtypes, got {dtype}")
    minval, maxval = creation.asarray(minval), creation.asarray(maxval)
    if not dtypes.issubdtype(minval.dtype, np.integer):
        minval = minval.astype(int)
    if not dtypes.issubdtype(maxval.dtype, np.integer):
        maxval = maxval.astype(int)
    top = _convert_and_clip_integer(creation.array(np.iinfo(dtype).max, dtype), maxval.dtype)
    maxval_out_of_range = lax.gt(maxval, top)
    minval = lax_shapes.broadcast_to_rank(_convert_and_clip_integer(minval, dtype), len(shape))
    maxval = lax_shapes.broadcast_to_rank(_convert_and_clip_integer(maxval, dtype), len(shape))
    nbits = np.iinfo(dtype).bits
    if nbits not in (8, 16, 32, 64):
        raise TypeError("randint only accepts 8-, 16-, 32-, or 64-bit dtypes, "
                        f"got {dtype}")
    k1, k2 = _split(key)
    higher_bits = random_bits(k1, nbits, shape)
    lower_bits = random_bits(k2, nbits, shape)
    unsigned = prng.UINT_DTYPES[nbits]
    span = lax.convert_element_type(maxval - minval, unsigned)
    # An empty range returns minval; an out-of-range maxval widens the span
    # by one (which wraps for a full-range span, giving 0: every value).
    span = lax.select(maxval <= minval, lax.full_like(span, 1), span)
    span = lax.select(maxval_out_of_range & (maxval > minval),
                      lax.add(span, np.array(1, unsigned)), span)
    # (high * 2**nbits + low) % span, without overflow: 2**nbits % span is
    # (2**(nbits/2) % span)**2 % span.
    multiplier = lax.rem(np.array(2 ** (nbits // 2), unsigned), span)
    multiplier = lax.rem(lax.mul(multiplier, multiplier), span)
    offset = lax.add(lax.mul(lax.rem(higher_bits, span), multiplier),
                     lax.rem(lower_bits, span))
    offset = lax.rem(offset, span)
    return lax.add(minval, lax.convert_element_type(offset, dtype))


_randint = jit(_named(_randint_impl, "_randint"), static_argnums=(1, 4))

