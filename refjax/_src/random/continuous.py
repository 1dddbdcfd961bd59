"""``jax.random``: the continuous samplers (SPEC RNG-30 .. RNG-49).

Each sampler follows JAX 0.10.2 step for step: the same key splits, the
same uniform/normal draws and the same float32 operations, so results agree
with JAX to 2 ulp (bit-identical where no transcendental function is used).
Public functions check the key, the dtype (a float dtype; the message names
the sampler) and the shape, then call a jitted private body with JAX's name
(``_gamma``, ``_beta``...) whose shape and dtype are static (RNG-30).
"""
import operator
from functools import partial

import numpy as np

from refjax._src import config as _config
from refjax._src import core, dtypes
from refjax._src.interpreters import ad, batching
from refjax._src.interpreters.ad import stop_gradient
from refjax._src.lax import lax, precision
from refjax._src.lax import special as lax_special
from refjax._src.numpy import contractions, creation, lax_numpy
from refjax._src.numpy import linalg as np_linalg
from refjax._src.numpy import ufuncs, util
from refjax._src.random.basic import _check_prng_key, _named, _normal, _split, _uniform
from refjax._src.random.basic import broadcast_shapes as _broadcast_shapes
from refjax._src.random.basic import canonicalize_shape
from refjax._src.random.basic import check_shape as _lead_check_shape
from refjax._src.random.basic import jit, random_bits, user_dtype

__all__ = [
    "ball", "beta", "cauchy", "chisquare", "dirichlet", "double_sided_maxwell",
    "exponential", "f", "gamma", "generalized_normal", "gumbel", "laplace",
    "loggamma", "logistic", "lognormal", "maxwell", "multivariate_normal",
    "orthogonal", "pareto", "rayleigh", "t", "triangular", "truncated_normal",
    "wald", "weibull_min",
]


def _while_loop(cond, body, init):
    from refjax._src.lax.control_flow.loops import while_loop
    return while_loop(cond, body, init)


# ---------------------------------------------------------------------------
# Shared checks (RNG-30)
# ---------------------------------------------------------------------------

def _float_dtype(dtype, name, kinds=np.floating, what="a float"):
    """The canonical float dtype asked for (default float32 with x64 off);
    a non-float dtype raises JAX's ValueError (RNG-30)."""
    dtype = user_dtype(dtype, dtypes.default_float_dtype)
    if not dtypes.issubdtype(dtype, kinds):
        raise ValueError(f"dtype argument to `{name}` must be {what} "
                         f"dtype, got {dtype}")
    return dtype


def _check_shape(name, shape, *param_shapes):
    """Parameters must broadcast to exactly ``shape``; shapes that do not
    broadcast at all fail first with the broadcasting error (RNG-30)."""
    shapes = [tuple(shape), *map(tuple, param_shapes)]
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting: shapes={shapes}") from None
    _lead_check_shape(name, shape, *param_shapes)


def _broadcast_shape(name, shape, *args):
    """``shape``, or the parameters' broadcast shape when it is None (RNG-30)."""
    arg_shapes = [np.shape(a) for a in args]
    if shape is None:
        return _broadcast_shapes(*arg_shapes) if arg_shapes else ()
    shape = canonicalize_shape(shape)
    _check_shape(name, shape, *arg_shapes)
    return shape


def _safe_to_cast_all(name, dtype, *args):
    """Parameters must promote to ``dtype`` without widening it (RNG-30)."""
    for arg in args:
        in_dtype = dtypes.result_type(arg)
        if in_dtype != dtype and dtypes.result_type(arg, dtype) != dtype:
            raise dtypes.TypePromotionError(
                f"In arguments to {name}, cannot safely cast argument of type "
                f"{creation.asarray(arg).dtype} to {dtype}")


def _const(x, value):
    return np.array(value, dtypes.dtype(x) if hasattr(x, "dtype") else x)


def _uniform01(key, shape, dtype, minval=0.0, maxval=1.0):
    return _uniform(key, shape, dtype, minval, maxval)


# ---------------------------------------------------------------------------
# Closed-form transforms of one uniform draw (RNG-31 .. RNG-34)
# ---------------------------------------------------------------------------

def exponential(key, shape=(), dtype=None):
    """``-log1p(-u)``, u uniform in [0, 1) (RNG-31)."""
    key, _ = _check_prng_key("exponential", key)
    dtype = _float_dtype(dtype, "exponential")
    return _exponential(key, canonicalize_shape(shape), dtype)


def _exponential_impl(key, shape, dtype):
    _check_shape("exponential", shape)
    u = _uniform01(key, shape, dtype)
    # 1 - u lies in (0, 1], so the log is finite.
    return lax.neg(lax.log1p(lax.neg(u)))


_exponential = jit(_named(_exponential_impl, "_exponential"), static_argnums=(1, 2))


def laplace(key, shape=(), dtype=None):
    """``sign(u) * log1p(-|u|)``, u uniform in (-1 + epsneg, 1) (RNG-31)."""
    key, _ = _check_prng_key("laplace", key)
    dtype = _float_dtype(dtype, "laplace")
    return _laplace(key, canonicalize_shape(shape), dtype)


def _laplace_impl(key, shape, dtype):
    _check_shape("laplace", shape)
    lo = -1.0 + float(dtypes.finfo(dtype).epsneg)
    u = _uniform01(key, shape, dtype, lo, 1.0)
    return lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u))))


_laplace = jit(_named(_laplace_impl, "_laplace"), static_argnums=(1, 2))


def logistic(key, shape=(), dtype=None):
    """``log(u) - log1p(-u)``, u uniform in [tiny, 1) (RNG-31)."""
    key, _ = _check_prng_key("logistic", key)
    dtype = _float_dtype(dtype, "logistic")
    return _logistic(key, canonicalize_shape(shape), dtype)


def _logistic_impl(key, shape, dtype):
    _check_shape("logistic", shape)
    x = _uniform01(key, shape, dtype, float(dtypes.finfo(dtype).tiny), 1.0)
    return lax.sub(lax.log(x), lax.log1p(lax.neg(x)))


_logistic = jit(_named(_logistic_impl, "_logistic"), static_argnums=(1, 2))


def cauchy(key, shape=(), dtype=None):
    """``tan(pi * (u - 0.5))``, u uniform in [eps, 1) (RNG-31)."""
    key, _ = _check_prng_key("cauchy", key)
    dtype = _float_dtype(dtype, "cauchy")
    return _cauchy(key, canonicalize_shape(shape), dtype)


def _cauchy_impl(key, shape, dtype):
    _check_shape("cauchy", shape)
    u = _uniform01(key, shape, dtype, float(dtypes.finfo(dtype).eps), 1.0)
    return lax.tan(lax.mul(_const(dtype, np.pi), lax.sub(u, _const(dtype, 0.5))))


_cauchy = jit(_named(_cauchy_impl, "_cauchy"), static_argnums=(1, 2))


def gumbel(key, shape=(), dtype=None, mode=None):
    """``-log(-log(u))``; ``mode`` "low", "high" or "highest" trades speed
    for resolution near 0 (RNG-32); None reads
    ``jax_high_dynamic_range_gumbel`` ("high" when set, SPEC CFG-25)."""
    key, _ = _check_prng_key("gumbel", key)
    dtype = _float_dtype(dtype, "gumbel")
    if mode is None:
        mode = "high" if _config.use_high_dynamic_range_gumbel.value else "low"
    # Checked before the shape: JAX accepts a negative size until later.
    if mode not in ("highest", "high", "low"):
        raise ValueError("Must provide valid mode for gumbel got: %s" % mode)
    shape = canonicalize_shape(shape)
    return _gumbel(key, shape, dtype, mode)


def _gumbel_impl(key, shape, dtype, mode):
    _check_shape("gumbel", shape)
    info = dtypes.finfo(dtype)
    if dtype == np.float32 and mode == "highest":
        return _gumbel_highest(key, shape)
    if mode in ("high", "highest"):
        both = _uniform01(key, (2,) + shape, dtype)
        high, low = both[0], both[1]
        # Fill the bits below the resolution of ``high`` from ``low``.
        x = lax_numpy.where(high >= 0.5, high,
                      high + 2.0 ** -info.nmant * low + float(info.tiny))
        return -ufuncs.log(-ufuncs.log1p(-x))
    u = _uniform01(key, shape, dtype, float(info.tiny), 1.0)
    return -ufuncs.log(-ufuncs.log(u))


def _gumbel_highest(key, shape):
    """float32 "highest": 64 random bits as a fixed-point number in (0, 1),
    flipped to 1 - x above one half so both logs see full precision (RNG-32)."""
    u32 = np.uint32
    words = random_bits(key, 32, (2,) + shape)
    neg = lax.bitwise_not(words)
    carry = lax_numpy.stack([lax.convert_element_type(neg[1] == u32(0xFFFFFFFF), u32),
                       creation.ones_like(neg[1])])
    neg = neg + carry
    flip = words[0] < u32(1 << 31)
    x = _bits_to_float(lax_numpy.where(flip, words, neg))
    return lax_numpy.where(flip, -ufuncs.log(-ufuncs.log1p(-x)), -ufuncs.log(-ufuncs.log(x)))


def _bits_to_float(words):
    """A uint32 pair (hi, lo) read as a binary fraction, rounded down to float32."""
    u32 = np.uint32
    hi, lo = words[0], words[1]
    hiclz, loclz = lax.clz(hi), lax.clz(lo)
    mantissa = lax.bitwise_or(
        lax.shift_left(hi, hiclz),
        lax_numpy.where(hiclz == 32, lax.shift_left(lo, loclz),
                  lax.shift_right_logical(lo, u32(32) - hiclz)))
    mantissa = lax.shift_right_logical(mantissa, u32(32 - 23 - 1))
    mantissa = lax.bitwise_and(mantissa, u32((1 << 23) - 1))
    lead = lax_numpy.where(hiclz == 32, u32(32) + loclz, hiclz)
    exp = lax.shift_left(u32(126) - lead, u32(23))
    exp = lax.bitwise_and(exp, u32((1 << 30) - (1 << 22)))
    return lax.bitcast_convert_type(lax.bitwise_or(exp, mantissa), np.float32)


_gumbel = jit(_named(_gumbel_impl, "_gumbel"), static_argnums=(1, 2, 3))


# ---------------------------------------------------------------------------
# Normal-based samplers (RNG-33, RNG-34)
# ---------------------------------------------------------------------------

def truncated_normal(key, lower, upper, shape=None, dtype=None):
    """``sqrt(2) * erf_inv(u)`` for u uniform between ``erf(lower/sqrt2)``
    and ``erf(upper/sqrt2)``, clipped into the open interval (RNG-33)."""
    if shape is not None:
        shape = canonicalize_shape(shape)
    key, _ = _check_prng_key("truncated_normal", key)
    dtype = _float_dtype(dtype, "truncated_normal")
    return _truncated_normal(key, lower, upper, shape, dtype)


def _truncated_normal_impl(key, lower, upper, shape, dtype):
    shape = _broadcast_shape("truncated_normal", shape, lower, upper)
    sqrt2 = np.array(np.sqrt(2), dtype)
    lower = lax.convert_element_type(lower, dtype)
    upper = lax.convert_element_type(upper, dtype)
    a, b = lax.erf(lower / sqrt2), lax.erf(upper / sqrt2)
    u = _uniform01(key, shape, dtype, a, b)
    out = sqrt2 * lax.erf_inv(u)
    # Rounding (or u == a) could land on a bound: keep strictly inside.
    return ufuncs.clip(out,
                    lax.nextafter(stop_gradient(lower), np.array(np.inf, dtype)),
                    lax.nextafter(stop_gradient(upper), np.array(-np.inf, dtype)))


_truncated_normal = jit(_named(_truncated_normal_impl, "_truncated_normal"),
                        static_argnums=(3, 4))


def lognormal(key, sigma=np.float32(1), shape=None, dtype=None):
    """``exp(sigma * normal)`` (RNG-34)."""
    key, _ = _check_prng_key("lognormal", key)
    dtype = _float_dtype(dtype, "lognormal", np.inexact, "a float or complex")
    shape = _broadcast_shape("lognormal", shape, sigma)
    _safe_to_cast_all("lognormal", dtype, sigma)
    return _lognormal(key, sigma, shape, dtype)


def _lognormal_impl(key, sigma, shape, dtype):
    sigma = lax.convert_element_type(sigma, dtype)
    return lax.exp(_normal(key, shape, dtype) * sigma)


_lognormal = jit(_named(_lognormal_impl, "_lognormal"), static_argnums=(2, 3))


def maxwell(key, shape=(), dtype=None):
    """The norm of three standard normals (last axis) (RNG-34)."""
    key, _ = _check_prng_key("maxwell", key)
    dtype = _float_dtype(dtype, "maxwell")
    return _maxwell(key, canonicalize_shape(shape), dtype)


def _maxwell_impl(key, shape, dtype):
    return np_linalg.norm(_normal(key, shape + (3,), dtype), axis=-1)


_maxwell = jit(_named(_maxwell_impl, "_maxwell"), static_argnums=(1, 2))


def _rademacher(key, shape, dtype):
    """+-1 as ``2 * bernoulli(key, 0.5) - 1`` (uniform < 0.5, float32 draw)."""
    heads = _uniform01(key, shape, dtypes.default_float_dtype()) < 0.5
    heads = heads.astype(dtype)
    return (2 * heads - 1).astype(dtype)


def double_sided_maxwell(key, loc, scale, shape=(), dtype=None):
    """A Maxwell sample with a random sign, times ``scale`` plus ``loc``;
    the result shape is ``shape + broadcast(loc, scale)`` (RNG-34)."""
    key, _ = _check_prng_key("double_sided_maxwell", key)
    dtype = _float_dtype(dtype, "double_sided_maxwell")
    return _double_sided_maxwell(key, loc, scale, canonicalize_shape(shape), dtype)


def _double_sided_maxwell_impl(key, loc, scale, shape, dtype):
    params_shape = _broadcast_shapes(np.shape(loc), np.shape(scale))
    if not shape:
        shape = params_shape
    shape = shape + params_shape
    maxwell_key, sign_key = _split(key)
    magnitude = _maxwell(maxwell_key, shape, dtype)
    sign = _rademacher(sign_key, shape, dtype)
    return sign * magnitude * scale + loc


_double_sided_maxwell = jit(_named(_double_sided_maxwell_impl, "_double_sided_maxwell"),
                            static_argnums=(3, 4))


def multivariate_normal(key, mean, cov, shape=None, dtype=None, method="cholesky"):
    """``mean + factor @ z`` with ``factor`` from ``cov`` by Cholesky, SVD
    (``u * sqrt(s)``) or eigh (``v * sqrt(w)``) (RNG-34)."""
    key, _ = _check_prng_key("multivariate_normal", key)
    # Promoted together to an inexact dtype without jit, as JAX does, before
    # `method` is checked: a huge Python int becomes a float rather than an
    # OverflowError; a list is a TypeError and None a ValueError, as dtypes.
    mean, cov = util.promote_dtypes_inexact(*util.huge_ints_as_floats((mean, cov)))
    if method not in {"svd", "eigh", "cholesky"}:
        raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
    dtype = mean.dtype if dtype is None else user_dtype(dtype, None)
    if not dtypes.issubdtype(dtype, np.floating):
        raise ValueError("dtype argument to `multivariate_normal` must be a float "
                         f"dtype, got {dtype}")
    if shape is not None:
        shape = canonicalize_shape(shape)
    return _multivariate_normal(key, mean, cov, shape, dtype, method)


def _multivariate_normal_impl(key, mean, cov, shape, dtype, method):
    if not np.ndim(mean) >= 1:
        raise ValueError("multivariate_normal requires mean.ndim >= 1, got "
                         f"mean.ndim == {np.ndim(mean)}")
    if not np.ndim(cov) >= 2:
        raise ValueError("multivariate_normal requires cov.ndim >= 2, got "
                         f"cov.ndim == {np.ndim(cov)}")
    n = mean.shape[-1]
    if np.shape(cov)[-2:] != (n, n):
        raise ValueError(f"multivariate_normal requires cov.shape == (..., n, n) "
                         f"for n={n}, but got cov.shape == {np.shape(cov)}.")
    if shape is None:
        shape = _broadcast_shapes(mean.shape[:-1], cov.shape[:-2])
    else:
        _check_shape("normal", shape, mean.shape[:-1], cov.shape[:-2])
    factor = _cov_factor(cov, method)
    z = _normal(key, shape + mean.shape[-1:], dtype)
    return mean + contractions.einsum("...ij,...j->...i", factor, z)


def _cov_factor(cov, method):
    if method == "svd":
        u, s, _ = np_linalg.svd(cov)
        return u * ufuncs.sqrt(s[..., None, :])
    if method == "eigh":
        w, v = np_linalg.eigh(cov)
        return v * ufuncs.sqrt(w[..., None, :])
    return np_linalg.cholesky(cov)


_multivariate_normal = jit(_named(_multivariate_normal_impl, "_multivariate_normal"),
                           static_argnums=(3, 4, 5))


def orthogonal(key, n, shape=(), dtype=None, m=None):
    """Haar-random orthogonal (n, m) matrices: QR of a normal matrix with
    the columns' signs fixed by ``sign(diag(R))`` (RNG-34)."""
    from refjax._src import core
    m_ = n if m is None else m
    shape = canonicalize_shape(shape)
    key, _ = _check_prng_key("orthogonal", key)
    dtype = user_dtype(dtype, dtypes.default_float_dtype)
    _check_shape("orthogonal", shape)
    # operator.index, as JAX: 'a' or 2.5 is a TypeError, not int()'s ValueError.
    where = "The error occurred in jax.random.orthogonal()"
    n = core.concrete_or_error(operator.index, n, where)
    m_ = core.concrete_or_error(operator.index, m_, where)
    if not dtypes.issubdtype(dtype, np.inexact):
        # JAX's check is the one of the normal sampler it draws from.
        raise ValueError(f"dtype argument to `normal` must be a float or complex dtype, "
                         f"got {dtype}")
    if min(n, m_) < 0:
        # JAX draws the (max, min) normal matrix unchecked; its QR then
        # fails on the negative size (SPEC NP-74).
        raise ValueError(f"negative dimensions are not allowed, got {min(n, m_)} and None")
    return _orthogonal(key, n, m_, shape, dtype)


def _orthogonal_impl(key, n, m, shape, dtype):
    z = _normal(key, (*shape, max(n, m), min(n, m)), dtype)
    q, r = np_linalg.qr(z)
    d = contractions.diagonal(r, axis1=-2, axis2=-1)
    x = q * lax_numpy.expand_dims(ufuncs.sign(d), -2)
    return lax_numpy.swapaxes(x, -1, -2) if n < m else x


_orthogonal = jit(_named(_orthogonal_impl, "_orthogonal"), static_argnums=(1, 2, 3, 4))


# ---------------------------------------------------------------------------
# Uniform-based samplers with parameters (RNG-35)
# ---------------------------------------------------------------------------

def pareto(key, b, shape=None, dtype=None):
    """``exp(exponential / b)`` (RNG-35)."""
    key, _ = _check_prng_key("pareto", key)
    dtype = _float_dtype(dtype, "pareto")
    shape = _broadcast_shape("pareto", shape, b)
    _safe_to_cast_all("pareto", dtype, b)
    return _pareto(key, b, shape, dtype)


def _pareto_impl(key, b, shape, dtype):
    b = lax.convert_element_type(b, dtype)
    return lax.exp(_exponential(key, shape, dtype) / b)


_pareto = jit(_named(_pareto_impl, "_pareto"), static_argnums=(2, 3))


def weibull_min(key, scale, concentration, shape=(), dtype=None):
    """``(-log1p(-u)) ** (1 / concentration) * scale`` (RNG-35)."""
    key, _ = _check_prng_key("weibull_min", key)
    dtype = _float_dtype(dtype, "weibull_min")
    return _weibull_min(key, scale, concentration, canonicalize_shape(shape), dtype)


def _weibull_min_impl(key, scale, concentration, shape, dtype):
    u = _uniform01(key, shape, dtype, 0, 1)
    return ufuncs.power(-ufuncs.log1p(-u), 1.0 / concentration) * scale


_weibull_min = jit(_named(_weibull_min_impl, "_weibull_min"), static_argnums=(3, 4))


def rayleigh(key, scale, shape=None, dtype=None):
    """``scale * sqrt(-2 log u)`` (RNG-35)."""
    key, _ = _check_prng_key("rayleigh", key)
    dtype = _float_dtype(dtype, "rayleigh")
    shape = _broadcast_shape("rayleigh", shape, scale)
    _safe_to_cast_all("rayleigh", dtype, scale)
    return _rayleigh(key, scale, shape, dtype)


def _rayleigh_impl(key, scale, shape, dtype):
    u = _uniform01(key, shape, dtype)
    scale = lax_numpy.broadcast_to(creation.asarray(scale).astype(dtype), shape)
    root = lax.sqrt(lax.mul(lax.log(u), _const(dtype, -2)))
    return lax.mul(scale, root)


_rayleigh = jit(_named(_rayleigh_impl, "_rayleigh"), static_argnums=(2, 3))


def wald(key, mean, shape=None, dtype=None):
    """Inverse Gaussian by Michael-Schucany-Haas: a normal and a uniform
    draw from two split keys (RNG-35)."""
    key, _ = _check_prng_key("wald", key)
    dtype = _float_dtype(dtype, "wald")
    shape = _broadcast_shape("wald", shape, mean)
    _safe_to_cast_all("wald", dtype, mean)
    return _wald(key, mean, shape, dtype)


def _wald_impl(key, mean, shape, dtype):
    k1, k2 = _split(key, 2)
    mean = lax_numpy.broadcast_to(creation.asarray(mean).astype(dtype), shape)
    v = _normal(k1, shape, dtype)
    z = _uniform01(k2, shape, dtype)
    y = lax.integer_pow(v, 2)
    y_sq = lax.integer_pow(y, 2)
    mean_sq = lax.integer_pow(mean, 2)
    # XLA's CPU compiler contracts the first product of each sum below
    # into a multiply-add; refjax spells that out so that the cancellation
    # in ``x`` rounds as JAX's does (SPEC RNG-17, RNG-40).
    root = lax.sqrt(precision.fma(4 * mean, y, mean_sq * y_sq))
    x = precision.fma(-(mean / 2), root, mean + mean_sq * y / 2)
    return lax.select(lax.le(z, mean / (mean + x)), x, mean_sq / x)


_wald = jit(_named(_wald_impl, "_wald"), static_argnums=(2, 3))


def triangular(key, left, mode, right, shape=None, dtype=None):
    """Inverse CDF of the triangular distribution (RNG-35)."""
    key, _ = _check_prng_key("triangular", key)
    dtype = _float_dtype(dtype, "triangular")
    shape = _broadcast_shape("triangular", shape, left, mode, right)
    _safe_to_cast_all("triangular", dtype, left, mode, right)
    return _triangular(key, left, mode, right, shape, dtype)


def _triangular_impl(key, left, mode, right, shape, dtype):
    left = lax_numpy.broadcast_to(lax.convert_element_type(left, dtype), shape)
    right = lax_numpy.broadcast_to(lax.convert_element_type(right, dtype), shape)
    mode = lax_numpy.broadcast_to(lax.convert_element_type(mode, dtype), shape)
    fc = (mode - left) / (right - left)
    u = _uniform01(key, shape, dtype)
    out1 = left + lax.sqrt(u * (right - left) * (mode - left))
    out2 = right - lax.sqrt((1 - u) * (right - left) * (right - mode))
    return lax.select(u < fc, out1, out2)


_triangular = jit(_named(_triangular_impl, "_triangular"), static_argnums=(4, 5))


# ---------------------------------------------------------------------------
# Gamma: Marsaglia-Tsang per element (RNG-36 .. RNG-38)
# ---------------------------------------------------------------------------

def gamma(key, a, shape=None, dtype=None):
    """Gamma(a, 1) samples; differentiable in ``a`` (RNG-36, RNG-38)."""
    key, _ = _check_prng_key("gamma", key)
    dtype = _float_dtype(dtype, "gamma")
    if shape is not None:
        shape = canonicalize_shape(shape)
    return _gamma(key, a, shape, dtype, False)


def loggamma(key, a, shape=None, dtype=None):
    """``log`` of Gamma(a, 1) samples, computed in log space so tiny
    samples keep precision (RNG-37).  Its dtype error names `gamma`."""
    key, _ = _check_prng_key("loggamma", key)
    dtype = _float_dtype(dtype, "gamma")
    if shape is not None:
        shape = canonicalize_shape(shape)
    return _gamma(key, a, shape, dtype, True)


def _gamma_body(key, a, shape, dtype, log_space):
    if shape is None:
        shape = np.shape(a)
    else:
        _check_shape("gamma", shape, np.shape(a))
    a = lax.convert_element_type(a, dtype)
    if np.shape(a) != shape:
        a = lax_numpy.broadcast_to(a, shape)
    return _gamma_sample(key, a, log_space)


_gamma = jit(_named(_gamma_body, "_gamma"), static_argnums=(2, 3, 4))


def _gamma_keys_and_samples(key, a, log_space):
    """One key per element: each key of ``key`` (whose shape leads ``a``'s)
    split into as many keys as it has elements of ``a``, then Marsaglia-Tsang
    vectorized over the elements (JAX's lowering vmaps it) (RNG-36)."""
    from refjax._src.vmap_api import vmap
    size = int(np.prod(np.shape(a), dtype=np.int64))
    if key.ndim == 0:
        keys = _split(key, size).reshape((size,))
    else:
        per_key = int(np.prod(np.shape(a)[key.ndim:], dtype=np.int64))
        keys = vmap(lambda k: _split(k, per_key))(key.reshape((-1,))).reshape((size,))
    flat = lax_numpy.reshape(a, (size,))
    samples = vmap(partial(_gamma_one, log_space=log_space))(keys, flat)
    return lax_numpy.reshape(samples, np.shape(a))


_gamma_program = jit(_gamma_keys_and_samples, static_argnums=(2,))


def _gamma_one(key, alpha, log_space):
    """Marsaglia and Tsang's rejection sampler for one element; alpha < 1 is
    boosted to alpha + 1 and scaled by u ** (1 / alpha) (RNG-36)."""
    dtype = alpha.dtype
    c0 = lambda v: np.array(v, dtype)  # noqa: E731
    boost_mask = lax.ge(alpha, c0(1))
    alpha_orig = alpha
    alpha = lax.select(boost_mask, alpha, lax.add(alpha, c0(1)))
    d = lax.sub(alpha, c0(1.0 / 3.0))
    # JAX divides by sqrt(d); XLA's simplifier turns that into a product
    # with rsqrt(d), whose CPU value differs (RNG-36, LAX-11).
    c = lax.mul(c0(1.0 / 3.0), lax.rsqrt(d))
    key, subkey = _split(key)
    state = (key, lax.full_like(alpha, 0), lax.full_like(alpha, 1),
             lax.full_like(alpha, 2))
    _, _, V, _ = _while_loop(partial(_mt_reject, d=d, c0=c0),
                                partial(_mt_propose, c=c, c0=c0, dtype=dtype), state)
    if log_space:
        log_u = lax.neg(_exponential(subkey, (), dtype))
        log_boost = lax.select(boost_mask | (log_u == c0(0)), c0(0),
                               lax.mul(log_u, lax.div(c0(1), alpha_orig)))
        return lax.add(lax.add(lax.log(d), lax.log(V)), log_boost)
    u = c0(1) - _uniform01(subkey, (), dtype)
    boost = lax.select(boost_mask, c0(1), lax.pow(u, lax.div(c0(1), alpha_orig)))
    return lax.mul(lax.mul(d, V), boost)


def _mt_reject(state, d, c0):
    """Keep looping while the squeeze and the log test both reject."""
    _, X, V, U = state
    squeeze = lax.ge(U, lax.sub(c0(1), lax.mul(c0(0.0331), lax.mul(X, X))))
    log_test = lax.ge(lax.log(U), lax.add(lax.mul(X, c0(0.5)),
                                          lax.mul(d, lax.add(lax.sub(c0(1), V),
                                                             lax.log(V)))))
    return lax.bitwise_and(squeeze, log_test)


def _mt_propose(state, c, c0, dtype):
    """A proposal: normals until ``v = 1 + c x > 0``, then a uniform."""
    key = state[0]
    key, x_key, u_key = _split(key, 3)

    def next_x(kxv):
        k, sub = _split(kxv[0])
        x = _normal(sub, (), dtype)
        # XLA contracts ``1 + x * c`` into one multiply-add (RNG-36).
        return k, x, precision.fma(x, c, c0(1))

    init = (x_key, lax.full_like(c, 0), lax.full_like(c, -1))
    _, x, v = _while_loop(lambda kxv: lax.le(kxv[2], c0(0)), next_x, init)
    U = _uniform01(u_key, (), dtype)
    return key, lax.mul(x, x), lax.mul(lax.mul(v, v), v), U


# ---------------------------------------------------------------------------
# random_gamma_p: the primitive behind gamma and loggamma (RNG-36, RNG-38)
# ---------------------------------------------------------------------------

random_gamma_p = core.Primitive("random_gamma")


@random_gamma_p.def_abstract_eval
def _random_gamma_abstract_eval(key, a, *, log_space):
    return a


def _random_gamma_physical(buffers, avals_in, avals_out, *, log_space):
    """Runs the sampler (a compiled program of lax operations, JAX's
    lowering) on the key data and ``a``, eagerly whatever the caller traces."""
    with core.set_current_trace(core.eval_trace):
        key, a = (core.wrap_buffer(b, aval) for b, aval in zip(buffers, avals_in))
        return core.to_buffer(_gamma_program(key, a, log_space))


def _random_gamma_impl(key, a, *, log_space):
    raise TypeError("random_gamma needs a typed key operand")


random_gamma_p.physical = _random_gamma_physical
random_gamma_p.def_impl(_random_gamma_impl)


def _random_gamma_batch(axis_data, vals, dims, *, log_space):
    """Key and ``a`` both batched along their first axis: each key of the
    batch is split over its own row of ``a``."""
    key, a = (batching.bdim_at_front(v, d, axis_data.size) for v, d in zip(vals, dims))
    return random_gamma_p.bind(key, a, log_space=log_space), 0


random_gamma_p.batch = _random_gamma_batch


def _random_gamma_jvp(primals, tangents, *, log_space):
    """The key has no tangent; ``a`` moves the sample along P(a, x) = u:
    dx/da = random_gamma_grad(a, x), divided by x for log samples, where an
    x that underflows to 0 is taken as the smallest normal (RNG-38)."""
    key, a = primals
    sample = random_gamma_p.bind(key, a, log_space=log_space)
    if type(tangents[1]) is ad.Zero:
        return sample, ad.Zero.from_primal_value(sample)
    if log_space:
        x = lax.exp(sample)
        tiny = lax.full_like(x, float(dtypes.finfo(x.dtype).tiny))
        x = lax.select(lax.eq(x, lax.full_like(x, 0)), tiny, x)
        slope = lax.div(lax_special.random_gamma_grad(a, x), x)
    else:
        slope = lax_special.random_gamma_grad(a, sample)
    return sample, lax.mul(tangents[1], slope)


random_gamma_p.jvp = _random_gamma_jvp


def _gamma_sample(key, a, log_space):
    return random_gamma_p.bind(key, a, log_space=log_space)


# ---------------------------------------------------------------------------
# Gamma-based samplers (RNG-39, RNG-40)
# ---------------------------------------------------------------------------

def beta(key, a, b, shape=None, dtype=None):
    """``Ga / (Ga + Gb)`` from two log-gamma draws on split keys, scaled by
    their maximum so small ``a``, ``b`` keep precision (RNG-39)."""
    key, _ = _check_prng_key("beta", key)
    dtype = _float_dtype(dtype, "beta")
    _safe_to_cast_all("beta", dtype, a, b)
    shape = _broadcast_shape("beta", shape, a, b)
    return _beta(key, a, b, shape, dtype)


def _beta_impl(key, a, b, shape, dtype):
    a = lax_numpy.broadcast_to(lax.convert_element_type(a, dtype), shape)
    b = lax_numpy.broadcast_to(lax.convert_element_type(b, dtype), shape)
    key_a, key_b = _split(key)
    log_ga = _gamma(key_a, a, shape, dtype, True)
    log_gb = _gamma(key_b, b, shape, dtype, True)
    log_max = lax.max(log_ga, log_gb)
    ga, gb = ufuncs.exp(log_ga - log_max), ufuncs.exp(log_gb - log_max)
    return ga / (ga + gb)


_beta = jit(_named(_beta_impl, "_beta"), static_argnums=(3, 4))


def dirichlet(key, alpha, shape=None, dtype=None):
    """softmax of log-gamma draws over the last axis (RNG-39)."""
    key, _ = _check_prng_key("dirichlet", key)
    dtype = _float_dtype(dtype, "dirichlet")
    if shape is not None:
        shape = canonicalize_shape(shape)
    return _dirichlet(key, alpha, shape, dtype)


def _dirichlet_impl(key, alpha, shape, dtype):
    from refjax._src.nn.functions import softmax
    if not np.ndim(alpha) >= 1:
        raise ValueError("dirichlet requires alpha.ndim >= 1, got alpha.ndim == "
                         f"{np.ndim(alpha)}")
    if shape is None:
        shape = np.shape(alpha)[:-1]
    else:
        _check_shape("dirichlet", shape, np.shape(alpha)[:-1])
    alpha = lax.convert_element_type(alpha, dtype)
    log_g = _gamma(key, alpha, tuple(shape) + np.shape(alpha)[-1:], dtype, True)
    return softmax(log_g, -1)


_dirichlet = jit(_named(_dirichlet_impl, "_dirichlet"), static_argnums=(2, 3))


def t(key, df, shape=None, dtype=None):
    """Student's t: ``normal * sqrt((df/2) / gamma(df/2))`` (RNG-40)."""
    key, _ = _check_prng_key("t", key)
    dtype = _float_dtype(dtype, "t")
    shape = _broadcast_shape("t", shape, df)
    _safe_to_cast_all("t", dtype, df)
    return _t(key, df, shape, dtype)


def _t_impl(key, df, shape, dtype):
    df = lax.convert_element_type(df, dtype)
    key_n, key_g = _split(key)
    n = _normal(key_n, shape, dtype)
    half_df = lax.div(df, _const(dtype, 2))
    g = _gamma(key_g, half_df, shape, dtype, False)
    return n * ufuncs.sqrt(half_df / g)


_t = jit(_named(_t_impl, "_t"), static_argnums=(2, 3))


def chisquare(key, df, shape=None, dtype=None):
    """``2 * exp(loggamma(df / 2))`` (RNG-40)."""
    key, _ = _check_prng_key("chisquare", key)
    dtype = _float_dtype(dtype, "chisquare")
    shape = _broadcast_shape("chisquare", shape, df)
    _safe_to_cast_all("chisquare", dtype, df)
    return _chisquare(key, df, shape, dtype)


def _chisquare_impl(key, df, shape, dtype):
    df = lax.convert_element_type(df, dtype)
    two = _const(dtype, 2)
    log_g = _gamma(key, lax.div(df, two), shape, dtype, True)
    return lax.mul(ufuncs.exp(log_g), two)


_chisquare = jit(_named(_chisquare_impl, "_chisquare"), static_argnums=(2, 3))


def f(key, dfnum, dfden, shape=None, dtype=None):
    """``(chi2(dfnum) / dfnum) / (chi2(dfden) / dfden)``; the first split
    key feeds the denominator (RNG-40)."""
    key, _ = _check_prng_key("f", key)
    dtype = _float_dtype(dtype, "f")
    shape = _broadcast_shape("f", shape, dfnum, dfden)
    _safe_to_cast_all("f", dtype, dfnum, dfden)
    return _f(key, dfnum, dfden, shape, dtype)


def _f_impl(key, dfnum, dfden, shape, dtype):
    dfden = lax.convert_element_type(dfden, dtype)
    dfnum = lax.convert_element_type(dfnum, dtype)
    key_den, key_num = _split(key)
    chi2_num = _chisquare(key_num, dfnum, shape, dtype)
    chi2_den = _chisquare(key_den, dfden, shape, dtype)
    # JAX writes (chi2_num / dfnum) / (chi2_den / dfden); XLA's algebraic
    # simplifier turns that quotient of quotients into one quotient of
    # products, which rounds differently, so refjax writes that form (RNG-40).
    return lax.div(lax.mul(chi2_num, dfden), lax.mul(dfnum, chi2_den))


_f = jit(_named(_f_impl, "_f"), static_argnums=(3, 4))


def generalized_normal(key, p, shape=(), dtype=None):
    """``sign * gamma(1/p) ** (1/p)`` (RNG-40)."""
    shape = canonicalize_shape(shape)
    key, _ = _check_prng_key("generalized_normal", key)
    dtype = user_dtype(dtype, dtypes.default_float_dtype)
    util.check_arraylike("generalized_normal", p)   # JAX computes 1 / p first
    if not dtypes.issubdtype(dtype, np.floating):
        # JAX checks through the gamma sampler it calls, and names it.
        raise ValueError(f"dtype argument to `gamma` must be a float dtype, got {dtype}")
    _check_shape("generalized_normal", shape)
    return _generalized_normal(key, p, shape, dtype)


def _generalized_normal_impl(key, p, shape, dtype):
    keys = _split(key)
    g = _gamma(keys[0], 1 / p, shape, dtype, False)
    r = _rademacher(keys[1], shape, dtype)
    return r * g ** (1 / p)


_generalized_normal = jit(_named(_generalized_normal_impl, "_generalized_normal"),
                          static_argnums=(2, 3))


def ball(key, d, p=2, shape=(), dtype=None):
    """Uniform in the unit ``p``-ball of dimension ``d``: generalized
    normals divided by ``(sum |g|^p + exponential) ** (1/p)`` (RNG-40)."""
    from refjax._src import core
    shape = canonicalize_shape(shape)
    key, _ = _check_prng_key("ball", key)
    dtype = user_dtype(dtype, dtypes.default_float_dtype)
    _check_shape("ball", shape)
    d = core.concrete_or_error(operator.index, d, "The error occurred in jax.random.ball()")
    return _ball(key, p, d, shape, dtype)


def _ball_impl(key, p, d, shape, dtype):
    k1, k2 = _split(key)
    g = _generalized_normal(k1, p, (*shape, d), dtype)
    e = _exponential(k2, shape, dtype)
    return g / (((ufuncs.abs(g) ** p).sum(-1) + e) ** (1 / p))[..., None]


_ball = jit(_named(_ball_impl, "_ball"), static_argnums=(2, 3, 4))
