"""``jax.random``: discrete and combinatorial samplers (SPEC RNG-50 .. RNG-64).

Every sampler follows JAX 0.10.2's algorithm step for step -- the same key
splits, the same random words and the same float32 operations -- so integer
results are bit-identical to JAX's (RNG-50):

* ``bernoulli`` compares a uniform with ``p``; ``rademacher`` maps it to +-1.
* ``categorical`` and ``choice(p=..., replace=False)`` add Gumbel noise and
  take the argmax or the top k (the Gumbel-max trick).
* ``permutation`` and ``choice(replace=False)`` sort by fresh random 32-bit
  keys, in as many rounds as the size needs (RNG-54).
* ``poisson`` uses Knuth's product of uniforms below ``lam = 10`` and
  Hormann's transformed rejection above; ``binomial`` geometric inversion
  below ``n * p = 10`` and BTRS above; ``multinomial`` a chain of binomials.
* ``geometric`` inverts the cdf of one uniform.
"""
import math
from collections.abc import Sequence

import numpy as np

from refjax._src import config as _config
from refjax._src import core, dtypes
from refjax._src.api import jit
from refjax._src.lax import lax
from refjax._src.lax import reductions as lax_reductions
from refjax._src.lax import shapes as lax_shapes
from refjax._src.lax import sorting as lax_sorting
from refjax._src.lax.control_flow import loops, scan
from refjax._src.numpy import creation, lax_numpy, reductions, sorting, ufuncs
from refjax._src.random import basic as _random
from refjax._src.random.basic import canonicalize_shape

__all__ = [
    "bernoulli", "binomial", "categorical", "choice", "geometric",
    "multinomial", "permutation", "poisson", "rademacher",
]

_named = _random._named
_split = _random._split
_check_prng_key = _random._check_prng_key


def _check_shape(name, shape, *param_shapes):
    """Parameter shapes must broadcast to exactly ``shape`` (SPEC RNG-50).

    Shapes that do not broadcast at all fail first, with
    ``lax.broadcast_shapes``' message naming the shapes as given."""
    try:
        np.broadcast_shapes(tuple(shape), *map(tuple, param_shapes))
    except ValueError:
        shapes = [shape, *param_shapes]
        raise ValueError(
            f"Incompatible shapes for broadcasting: shapes={shapes}") from None
    _random.check_shape(name, shape, *param_shapes)


def _util():
    from refjax._src.numpy import util
    return util


def _canonical_dtype(x):
    """The canonical dtype of ``x`` as a JAX value (``lax.dtype`` in JAX)."""
    return dtypes.dtype_and_weak_type(x)[0]


def _uniform(key, shape, dtype, minval=0.0, maxval=1.0):
    return _random._uniform(key, tuple(shape), np.dtype(dtype), minval, maxval)


def _isnan(x):
    return lax.ne(x, x)


# ---------------------------------------------------------------------------
# bernoulli, rademacher (RNG-51, RNG-52)
# ---------------------------------------------------------------------------

def bernoulli(key, p=0.5, shape=None, mode="low"):
    """Booleans that are True with probability ``p`` (SPEC RNG-51).

    ``uniform(key, shape, p.dtype) < p``; ``mode='high'`` draws two uniforms
    so that tiny ``p`` keep their resolution.  ``p`` must be floating; the
    mode is checked before the key."""
    if shape is not None:
        shape = canonicalize_shape(shape)
    if mode not in ["high", "low"]:
        raise ValueError(f"got mode={mode!r}, expected 'high' or 'low'")
    key, _ = _check_prng_key("bernoulli", key)
    dtype = _canonical_dtype(p)
    if not dtypes.issubdtype(dtype, np.floating):
        raise TypeError(
            f"bernoulli probability `p` must have a floating dtype, got {dtype}.")
    p = lax._convert_element_type(p, dtype, False)
    return _bernoulli(key, p, shape, mode)


def _bernoulli_impl(key, p, shape, mode):
    if shape is None:
        shape = np.shape(p)
    else:
        _check_shape("bernoulli", shape, np.shape(p))
    dtype = p.dtype
    if mode == "high":
        both = _uniform(key, (2, *shape), dtype)
        u1, u2 = both[0], both[1]
        # u2 refines u1 below the uniform's resolution, 2**-nmant.
        u2 = u2 * (2 ** -dtypes.finfo(dtype).nmant)
        return u2 < p - u1
    return _uniform(key, shape, dtype) < p


_bernoulli = jit(_named(_bernoulli_impl, "_bernoulli"), static_argnums=(2, 3))


def rademacher(key, shape=(), dtype=None):
    """-1 or +1 with equal probability: ``2 * bernoulli(key, 0.5) - 1`` in
    ``dtype`` (default int) (SPEC RNG-52)."""
    key, _ = _check_prng_key("rademacher", key)
    dtype = _random.user_dtype(dtype, dtypes.default_int_dtype)
    shape = canonicalize_shape(shape)
    return _rademacher(key, shape, dtype)


def _rademacher_impl(key, shape, dtype):
    samples = bernoulli(key, 0.5, shape).astype(dtype)
    return (2 * samples - 1).astype(dtype)


_rademacher = jit(_named(_rademacher_impl, "_rademacher"), static_argnums=(1, 2))


# ---------------------------------------------------------------------------
# Gumbel noise, categorical (RNG-53)
# ---------------------------------------------------------------------------

def _gumbel_mode(mode):
    if mode is None:
        high = getattr(_config, "use_high_dynamic_range_gumbel", None)
        return "high" if (high is not None and high.value) else "low"
    return mode


def _gumbel(key, shape=(), dtype=None, mode=None):
    """Gumbel noise ``-log(-log(u))`` exactly as ``jax.random.gumbel``
    (private copy: categorical and choice need it, RNG-53)."""
    key, _ = _check_prng_key("gumbel", key)
    dtype = _random.user_dtype(dtype, dtypes.default_float_dtype)
    if not dtypes.issubdtype(dtype, np.floating):
        raise ValueError(f"dtype argument to `gumbel` must be a float "
                         f"dtype, got {dtype}")
    shape = canonicalize_shape(shape)
    mode = _gumbel_mode(mode)
    if mode not in ("highest", "high", "low"):
        raise ValueError("Must provide valid mode for gumbel got: %s" % mode)
    return _gumbel_jit(key, shape, dtype, mode)


def _gumbel_impl(key, shape, dtype, mode):
    info = dtypes.finfo(dtype)
    if dtype == np.float32 and mode == "highest":
        return _gumbel_highest(key, shape)
    if mode in ("high", "highest"):
        both = _uniform(key, (2, *shape), dtype)
        high, low = both[0], both[1]
        # Below 0.5, `low` adds the bits that `high` lacks; the tiny offset
        # keeps x away from 0 (JAX guards only the branch that cannot round up).
        x = lax_numpy.where(high >= 0.5, high,
                      high + 2 ** -info.nmant * low + np.array(info.tiny, dtype))
        return -ufuncs.log(-ufuncs.log1p(-x))
    u = _uniform(key, shape, dtype, np.array(info.tiny, dtype), 1.0)
    return -ufuncs.log(-ufuncs.log(u))


def _gumbel_highest(key, shape):
    """float32 Gumbel from 64 random bits per value: the uniform is built as
    a float from a 64-bit fixed-point number, and its smaller tail goes
    through ``log1p`` (mode 'highest')."""
    words = _random.random_bits(key, 32, (2, *shape))
    neg = lax.bitwise_not(words)
    lo_bits = neg[1]
    # 1 - words, as a 64-bit fixed-point subtraction: carry into the high word.
    carry = creation.array([lo_bits == np.uint32(0xFFFFFFFF), creation.ones_like(lo_bits)],
                      dtype=np.uint32)
    neg = neg + carry
    flip = words[0] < np.uint32(1 << 31)
    x = _safe_int_to_float(lax_numpy.where(flip, words, neg))
    return lax_numpy.where(flip, -ufuncs.log(-ufuncs.log1p(-x)), -ufuncs.log(-ufuncs.log(x)))


def _safe_int_to_float(words):
    """uint32[2, ...] (a 64-bit fixed-point fraction) to float32 in (0, 1)."""
    finfo = dtypes.finfo(np.float32)
    hi, lo = words[0], words[1]
    hiclz, loclz = lax.clz(hi), lax.clz(lo)
    mantissa = lax.bitwise_or(
        lax.shift_left(hi, hiclz),
        lax_numpy.where(hiclz == 32, lax.shift_left(lo, loclz),
                  lax.shift_right_logical(lo, np.uint32(32) - hiclz)))
    mantissa = lax.shift_right_logical(mantissa, np.uint32(32 - finfo.nmant - 1))
    mantissa = lax.bitwise_and(mantissa, np.uint32((1 << finfo.nmant) - 1))
    exp = lax.shift_left(
        np.uint32(-finfo.minexp) - lax_numpy.where(hiclz == 32, 32 + loclz, hiclz),
        np.uint32(finfo.nmant))
    exp = lax.bitwise_and(exp, np.uint32((1 << 30) - (1 << (finfo.nmant - 1))))
    return lax.bitcast_convert_type(lax.bitwise_or(exp, mantissa), np.float32)


_gumbel_jit = jit(_named(_gumbel_impl, "_gumbel"), static_argnums=(1, 2, 3))


def categorical(key, logits, axis=-1, shape=None, replace=True, mode=None):
    """Indices drawn with probabilities ``softmax(logits, axis)`` (SPEC RNG-53).

    With replacement: ``argmax(gumbel + logits, axis)``, the noise of shape
    ``shape`` with the category axis put back.  Without: the top ``k`` of
    ``logits + gumbel``, ``k`` the product of the leading dims of ``shape``."""
    key, _ = _check_prng_key("categorical", key)
    _util().check_arraylike("categorical", logits)
    logits_arr = creation.asarray(logits)
    # np.delete gives NumPy ints: JAX's error message shows them as such.
    np_batch_shape = tuple(np.delete(logits_arr.shape, axis))
    batch_shape = tuple(int(d) for d in np_batch_shape)
    if shape is None:
        shape = batch_shape
    else:
        shape = canonicalize_shape(shape)
        _check_shape("categorical", shape, np_batch_shape)
    prefix = shape[:len(shape) - len(batch_shape)]
    if replace:
        return _categorical_replace(key, logits_arr, shape, batch_shape, prefix,
                                    axis, mode)
    return _categorical_no_replace(key, logits_arr, shape, batch_shape, prefix,
                                   axis, mode)


def _categorical_replace(key, logits, shape, batch_shape, prefix, axis, mode):
    if axis >= 0:
        axis -= logits.ndim
    noise_shape = list(shape[len(shape) - len(batch_shape):])
    noise_shape.insert(axis % logits.ndim, logits.shape[axis])
    noise = _gumbel(key, (*prefix, *noise_shape), logits.dtype, mode=mode)
    lifted = lax_shapes.expand_dims(logits, tuple(range(len(prefix))))
    return reductions.argmax(noise + lifted, axis=axis)


def _categorical_no_replace(key, logits, shape, batch_shape, prefix, axis, mode):
    logits = logits + _gumbel(key, logits.shape, logits.dtype, mode=mode)
    k = math.prod(prefix)
    if k > logits.shape[axis]:
        raise ValueError(
            f"Number of samples without replacement ({k}) cannot exceed number "
            f"of categories ({logits.shape[axis]}).")
    _, indices = lax_sorting.top_k(lax_numpy.moveaxis(logits, axis, -1), k)
    # indices: batch_shape + (k,); the k samples become the leading dims.
    dimensions = (indices.ndim - 1, *range(indices.ndim - 1))
    return lax_shapes.reshape(indices, shape, dimensions)


# ---------------------------------------------------------------------------
# permutation, choice (RNG-54, RNG-55, RNG-56)
# ---------------------------------------------------------------------------

def permutation(key, x, axis=0, independent=False):
    """``x`` shuffled along ``axis`` (or ``arange(x)`` for an integer ``x``)
    (SPEC RNG-54).

    A multi-dimensional ``x`` has whole slices permuted unless
    ``independent``, which shuffles each 1-D lane on its own."""
    key, _ = _check_prng_key("permutation", key)
    _util().check_arraylike("permutation", x)
    axis = core.canonicalize_axis(axis, np.ndim(x) or 1)
    if not np.ndim(x):
        if not dtypes.issubdtype(_canonical_dtype(x), np.integer):
            raise TypeError("x must be an integer or at least 1-dimensional")
        r = core.concrete_or_error(int, x, "argument x of jax.random.permutation()")
        return _shuffle(key, creation.arange(r), axis)
    return _permutation(key, x, axis, independent)


def _permutation(key, x, axis, independent):
    if independent or np.ndim(x) == 1:
        return _shuffle(key, x, axis)
    order = _shuffle(key, creation.arange(x.shape[axis]), 0)
    return lax_numpy.take(x, order, axis, unique_indices=True)


def _shuffle_rounds(size):
    """Sorting rounds that make 32-bit sort-key collisions negligible:
    ``ceil(3 * log(size) / log(2**32 - 1))`` (1 up to ~2**32 elements)."""
    exponent = 3
    uint32max = np.iinfo(np.uint32).max
    return int(np.ceil(exponent * np.log(max(1, size)) / np.log(uint32max)))


def _shuffle_impl(key, x, axis):
    # Each round draws a fresh subkey and stably sorts x by random words.
    for _ in range(_shuffle_rounds(x.size)):
        key, subkey = _split(key)
        sort_keys = _random.random_bits(subkey, 32, x.shape)
        _, x = lax_sorting.sort_key_val(sort_keys, x, axis)
    return x


_shuffle = jit(_named(_shuffle_impl, "_shuffle"), static_argnums=(2,))


def choice(key, a, shape=(), replace=True, p=None, axis=0, mode=None):
    """A sample of ``shape`` from ``a`` (or ``arange(a)``) along ``axis``
    (SPEC RNG-55, RNG-56).

    Uniform with replacement: ``randint`` indices.  Uniform without: the head
    of a ``permutation``.  Weighted with replacement: inverse cdf by
    ``searchsorted``; weighted without: top k of ``gumbel + log(p)``."""
    key, _ = _check_prng_key("choice", key)
    if not isinstance(shape, Sequence):
        raise TypeError("shape argument of jax.random.choice must be a sequence, "
                        f"got {shape}")
    _util().check_arraylike_unjitted("choice", a)
    arr = creation.asarray(a)
    if arr.ndim == 0:
        n_inputs = core.concrete_or_error(
            int, a, "The error occurred in jax.random.choice()")
    else:
        axis = core.canonicalize_axis(axis, arr.ndim)
        n_inputs = arr.shape[axis]
    n_draws = math.prod(shape)
    if n_draws == 0:
        return creation.zeros(shape, dtype=arr.dtype)
    if n_inputs <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(
            f"Cannot take a larger sample (size {n_draws}) than "
            f"population (size {n_inputs}) when 'replace=False'")
    if p is None:
        result = _choice_uniform(key, a, arr, shape, replace, axis, n_inputs, n_draws)
    else:
        result = _choice_weighted(key, arr, shape, replace, p, axis, n_inputs,
                                  n_draws, mode)
    if arr.ndim == 0:
        return result.reshape(shape)
    return result.reshape(arr.shape[0:axis] + tuple(shape) + arr.shape[axis + 1:])


def _choice_uniform(key, a, arr, shape, replace, axis, n_inputs, n_draws):
    if replace:
        ind = _random.randint(key, shape, 0, n_inputs)
        return ind if arr.ndim == 0 else lax_numpy.take(arr, ind, axis)
    slices = (slice(None),) * axis + (slice(n_draws),)
    return permutation(key, n_inputs if arr.ndim == 0 else arr, axis)[slices]


def _choice_weighted(key, arr, shape, replace, p, axis, n_inputs, n_draws, mode):
    _util().check_arraylike("choice", p)   # then converted: text is TypeError
    p_arr, = _util().promote_dtypes_inexact(creation.asarray(p))
    if p_arr.shape != (n_inputs,):
        raise ValueError(
            "p must be None or a 1D vector with the same size as a.shape[axis]. "
            f"p has shape {p_arr.shape} and a.shape[axis] is {n_inputs}.")
    if replace:
        p_cuml = reductions.cumsum(p_arr)
        u = _random.uniform(key, shape, dtype=p_cuml.dtype)
        r = p_cuml[-1] * (1 - u)
        ind = sorting.searchsorted(p_cuml, r).astype(int)
    else:
        g = _gumbel(key, (n_inputs,), dtype=p_arr.dtype, mode=mode) + ufuncs.log(p_arr)
        ind = lax_sorting.top_k(g, n_draws)[1].astype(int)
    return ind if arr.ndim == 0 else lax_numpy.take(arr, ind, axis)


# ---------------------------------------------------------------------------
# poisson (RNG-57, RNG-58)
# ---------------------------------------------------------------------------

def poisson(key, lam, shape=None, dtype=None):
    """Poisson counts with rate ``lam`` (float32 internally), in ``dtype``
    (default int) (SPEC RNG-57, RNG-58)."""
    key, _ = _check_prng_key("poisson", key)
    dtype = _random.user_dtype(dtype, dtypes.default_int_dtype)
    if shape is not None:
        shape = canonicalize_shape(shape)
    else:
        shape = np.shape(lam)
    lam = lax_numpy.broadcast_to(lam, shape)
    lam = lax.convert_element_type(lam, np.float32)
    return _poisson(key, lam, shape, dtype)


def _poisson_knuth_impl(key, lam, shape, dtype, max_iters):
    """Knuth: count uniforms until their product drops below ``exp(-lam)``
    (sums of logs against ``-lam``), minus one."""

    def body(carry):
        i, k, rng, log_prod = carry
        rng, subkey = _split(rng)
        k = lax.select(log_prod > -lam, k + 1, k)
        u = _uniform(subkey, shape, np.float32)
        return i + 1, k, rng, log_prod + ufuncs.log(u)

    def cond(carry):
        i, log_prod = carry[0], carry[3]
        return (log_prod > -lam).any() & (i < max_iters)

    k_init = lax.full_like(lam, 0, dtype, shape)
    log_init = lax.full_like(lam, 0, np.float32, shape)
    k = loops.while_loop(cond, body, (0, k_init, key, log_init))[1]
    return (k - 1).astype(dtype)


def _poisson_rejection_impl(key, lam, shape, dtype, max_iters):
    """Hormann's transformed rejection (PTRS), repeated until every lane
    has accepted."""
    log_lam = lax.log(lam)
    b = 0.931 + 2.53 * lax.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)

    def body(carry):
        i, k_out, accepted, key = carry
        keys = _split(key, 3)
        key, subkey_0, subkey_1 = keys[0], keys[1], keys[2]
        u = _uniform(subkey_0, shape, lam.dtype) - 0.5
        v = _uniform(subkey_1, shape, lam.dtype)
        u_shifted = 0.5 - abs(u)
        k = lax.floor((2 * a / u_shifted + b) * u + lam + 0.43)
        s = lax.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        t = -lam + k * log_lam - lax.lgamma(k + 1)
        accept1 = (u_shifted >= 0.07) & (v <= v_r)
        reject = (k < 0) | ((u_shifted < 0.013) & (v > u_shifted))
        accept = accept1 | (~reject & (s <= t))
        k_out = lax.select(accept, k, k_out)
        return i + 1, k_out, accepted | accept, key

    def cond(carry):
        i, accepted = carry[0], carry[2]
        return (~accepted).any() & (i < max_iters)

    k_init = lax.full_like(lam, -1, lam.dtype, shape)
    accepted = lax.full_like(lam, False, np.dtype("bool"), shape)
    k = loops.while_loop(cond, body, (0, k_init, accepted, key))[1]
    return k.astype(dtype)


_poisson_knuth = jit(_named(_poisson_knuth_impl, "_poisson_knuth"),
                     static_argnums=(2, 3, 4))
_poisson_rejection = jit(_named(_poisson_rejection_impl, "_poisson_rejection"),
                         static_argnums=(2, 3, 4))


def _poisson_impl(key, lam, shape, dtype):
    # Both algorithms run on every lane with the same key; each lane keeps
    # the one its lam selects.  Neutral rates (0 for Knuth, 1e5 for the
    # rejection, which accepts ~89% per round there) keep the loops short.
    use_knuth = _isnan(lam) | (lam < 10)
    lam_knuth = lax.select(use_knuth, lam, lax.full_like(lam, 0.0))
    lam_rejection = lax.select(use_knuth, lax.full_like(lam, 1e5), lam)
    max_iters = np.dtype(dtype).type(np.iinfo(dtype).max)
    result = lax.select(
        use_knuth,
        _poisson_knuth(key, lam_knuth, shape, dtype, max_iters),
        _poisson_rejection(key, lam_rejection, shape, dtype, max_iters))
    return lax.select(lam == 0, creation.zeros_like(result), result)


_poisson = jit(_named(_poisson_impl, "_poisson"), static_argnums=(2, 3))


# ---------------------------------------------------------------------------
# geometric (RNG-59)
# ---------------------------------------------------------------------------

def geometric(key, p, shape=None, dtype=None):
    """Trials up to the first success: ``floor(log(u) / log1p(-p)) + 1``
    in an integer ``dtype`` (SPEC RNG-59)."""
    key, _ = _check_prng_key("geometric", key)
    dtype = _random.user_dtype(dtype, dtypes.default_int_dtype)
    if not dtypes.issubdtype(dtype, np.integer):
        raise ValueError("dtype argument to `geometric` must be an int "
                         f"dtype, got {dtype}")
    if shape is None:
        shape = tuple(np.broadcast_shapes(np.shape(p)))
    else:
        shape = canonicalize_shape(shape)
        _check_shape("geometric", shape, np.shape(p))
    return _geometric(key, p, shape, dtype)


def _geometric_impl(key, p, shape, dtype):
    _util().check_arraylike("geometric", p)
    p, = _util().promote_dtypes_inexact(p)
    u = _uniform(key, shape, p.dtype)
    # u == 0 is mapped to 1 (JAX's choice) so that log(u) stays finite.
    u = lax_numpy.where(u == 0, 1, u)
    log_u = lax.log(u)
    log_one_minus_p = lax_numpy.broadcast_to(lax.log1p(-p), shape)
    g = lax.floor(lax.div(log_u, log_one_minus_p)) + 1
    return g.astype(dtype)


_geometric = jit(_named(_geometric_impl, "_geometric"), static_argnums=(2, 3))


# ---------------------------------------------------------------------------
# binomial, multinomial (RNG-60, RNG-61, RNG-62)
# ---------------------------------------------------------------------------

def binomial(key, n, p, shape=None, dtype=None):
    """Successes in ``n`` trials of probability ``p``, as floats of
    ``dtype`` (default float) (SPEC RNG-60, RNG-61)."""
    key, _ = _check_prng_key("binomial", key)
    _util().check_arraylike("binomial", n, p)
    dtype = _random.user_dtype(dtype, dtypes.default_float_dtype)
    if not dtypes.issubdtype(dtype, np.floating):
        raise ValueError(
            f"dtype argument to `binomial` must be a float dtype, got {dtype}")
    if shape is not None:
        shape = canonicalize_shape(shape)
    return _binomial(key, n, p, shape, dtype)


_STIRLING_TAIL = (
    0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
    0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
    0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
    0.00833056343336287,
)


def _stirling_approx_tail(k):
    """``log(k!) - Stirling(k)``: a table for k <= 9, else the series
    ``(1/12 - (1/360 - 1/1260/(k+1)^2)/(k+1)^2)/(k+1)`` (with k clamped to
    9 as JAX does, so the series term is that of k = 9)."""
    table = creation.array(_STIRLING_TAIL, dtype=k.dtype)
    use_table = k <= 9
    k = lax.clamp(lax._const(k, 0.0), k, lax._const(k, 9.0))
    kp1sq = (k + 1) * (k + 1)
    approx = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    k = ufuncs.floor(k)
    return lax.select(use_table, table[creation.asarray(k, dtype="int32")], approx)


def _binomial_inversion(key, count, prob, shape, dtype, max_iters):
    """Sum geometric waiting times until they pass ``count``; the number
    of whole waits is the sample."""
    log1minusprob = ufuncs.log1p(-prob)

    def body(carry):
        i, num_geom, geom_sum, key = carry
        keys = _split(key)
        subkey, key = keys[0], keys[1]
        num_geom_out = lax.select(geom_sum <= count, num_geom + 1, num_geom)
        u = _uniform(subkey, shape, prob.dtype)
        geom = ufuncs.ceil(ufuncs.log(u) / log1minusprob)
        return i + 1, num_geom_out, geom_sum + geom, key

    def cond(carry):
        i, geom_sum = carry[0], carry[2]
        return (geom_sum <= count).any() & (i < max_iters)

    num_geom_init = lax.full_like(prob, 0, prob.dtype, shape)
    geom_sum_init = lax.full_like(prob, 0, prob.dtype, shape)
    k = loops.while_loop(cond, body, (0, num_geom_init, geom_sum_init, key))[1]
    return (k - 1).astype(dtype)


def _btrs(key, count, prob, shape, dtype, max_iters):
    """Hormann's BTRS transformed rejection, repeated until every lane has
    accepted."""
    stddev = ufuncs.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = ufuncs.floor((count + 1) * prob)

    def bound(k):
        return ((m + 0.5) * ufuncs.log((m + 1) / (r * (count - m + 1)))
                + (count + 1) * ufuncs.log((count - m + 1) / (count - k + 1))
                + (k + 0.5) * ufuncs.log(r * (count - k + 1) / (k + 1))
                + _stirling_approx_tail(m)
                + _stirling_approx_tail(count - m)
                - _stirling_approx_tail(k)
                - _stirling_approx_tail(count - k))

    def body(carry):
        i, k_out, accepted, key = carry
        keys = _split(key, 3)
        key, subkey_0, subkey_1 = keys[0], keys[1], keys[2]
        u = _uniform(subkey_0, shape, prob.dtype)
        v = _uniform(subkey_1, shape, prob.dtype)
        u = u - 0.5
        us = 0.5 - ufuncs.abs(u)
        accept1 = (us >= 0.07) & (v <= v_r)
        k = ufuncs.floor((2 * a / us + b) * u + c)
        reject = (k < 0) | (k > count)
        v = ufuncs.log(v * alpha / (a / (us * us) + b))
        accept = accept1 | (~reject & (v <= bound(k)))
        k_out = lax.select(accept, k, k_out)
        return i + 1, k_out, accepted | accept, key

    def cond(carry):
        i, accepted = carry[0], carry[2]
        return (~accepted).any() & (i < max_iters)

    k_init = lax.full_like(prob, -1, prob.dtype, shape)
    carry = (0, k_init, creation.full(shape, False, bool), key)
    return loops.while_loop(cond, body, carry)[1].astype(dtype)


def _binomial_impl(key, count, prob, shape, dtype):
    # Sample with q = min(p, 1 - p) and reflect (count - k) when p >= 1/2.
    if shape is None:
        shape = lax_numpy.broadcast_shapes(np.shape(count), np.shape(prob))
    else:
        _check_shape("binomial", shape, np.shape(count), np.shape(prob))
    prob, = _util().promote_dtypes_inexact(prob)
    count = lax.convert_element_type(count, prob.dtype)
    count = lax_numpy.broadcast_to(count, shape)
    prob = lax_numpy.broadcast_to(prob, shape)
    p_lt_half = prob < 0.5
    q = lax.select(p_lt_half, prob, 1.0 - prob)
    count_nan_or_neg = _isnan(count) | (count < 0.0)
    count_inf = ufuncs.isinf(count)
    q_is_nan = _isnan(q)
    q_l_0 = q < 0.0
    q = lax.select(q_is_nan | q_l_0, lax.full_like(q, 0.01), q)
    use_inversion = count_nan_or_neg | (count * q <= 10.0)
    count = ufuncs.floor(count)  # a float count behaves as np.random.binomial's
    count_inv = lax.select(use_inversion, count, lax.full_like(count, 0.0))
    count_btrs = lax.select(use_inversion, lax.full_like(count, 1e4), count)
    q_btrs = lax.select(use_inversion, lax.full_like(q, 0.5), q)
    max_iters = np.dtype(dtype).type(np.finfo(dtype).max)
    samples = lax.select(
        use_inversion,
        _binomial_inversion(key, count_inv, q, shape, dtype, max_iters),
        _btrs(key, count_btrs, q_btrs, shape, dtype, max_iters))
    return _binomial_fixups(samples, count, dtype, p_lt_half, count_nan_or_neg,
                            count_inf, q_is_nan, q_l_0)


def _binomial_fixups(samples, count, dtype, p_lt_half, count_nan_or_neg,
                     count_inf, q_is_nan, q_l_0):
    """NaN for a NaN/negative p or n, inf for n = inf, and the reflection
    ``count - k`` for p >= 1/2 (SPEC RNG-61)."""
    invalid = q_l_0 | q_is_nan | count_nan_or_neg
    samples = lax.select(invalid, creation.full_like(samples, np.nan, dtype), samples)
    samples = lax.select(count_inf & (~invalid),
                         creation.full_like(samples, np.inf, dtype), samples)
    return lax.select(p_lt_half | count_nan_or_neg | q_is_nan | count_inf,
                      samples, count.astype(dtype) - samples)


_binomial = jit(_named(_binomial_impl, "_binomial"), static_argnums=(3, 4),
                inline=True)


def multinomial(key, n, p, *, shape=None, dtype=None, unroll=1):
    """Counts of ``n`` trials over the outcomes on ``p``'s last axis: a scan
    of binomials, each on the trials left and the outcome's share of the
    probability left (SPEC RNG-62)."""
    key, _ = _check_prng_key("multinomial", key)
    _util().check_arraylike("multinomial", n, p)
    n, p = _util().promote_dtypes_inexact(creation.asarray(n), creation.asarray(p))
    if shape is None:
        shape = p.shape
    n = lax_numpy.broadcast_to(n, shape[:-1])
    p = lax_numpy.broadcast_to(p, shape)

    def step(remainder, ratio_key):
        ratio, subkey = ratio_key
        count = binomial(subkey, remainder, ratio.clip(0, 1), dtype=remainder.dtype)
        return remainder - count, count

    p = lax_numpy.moveaxis(p, -1, 0)
    remaining_probs = lax_reductions.cumsum(p, 0, reverse=True)
    ratios = p / lax_numpy.where(remaining_probs == 0, 1, remaining_probs)
    keys = _random.split(key, ratios.shape[0])
    _, counts = scan.scan(step, n, (ratios, keys), unroll=unroll)
    return lax_numpy.moveaxis(counts, 0, -1).astype(dtype)
