"""``jax.image.resize`` and ``jax.image.scale_and_translate`` (SPEC IMG-1 ..
IMG-13).

Resampling is separable: for each resampled axis a weight matrix ``W`` of
shape (input size, output size) is built from the kernel, and one
``einsum`` contracts every such axis of the image with its ``W``.  Output
pixel ``i`` samples the input at ``(i + 0.5 - translation) / scale - 0.5``
(pixel centres at half-integers).
"""
import numpy as np

from refjax._src import core, dtypes
from refjax._src.api import jit
from refjax._src.image import kernels
from refjax._src.image.kernels import ResizeMethod
from refjax._src.lax import dot as lax_dot
from refjax._src.lax import lax
from refjax._src.numpy import (
    contractions, creation, lax_numpy, reductions, ufuncs, util,
)

# A column whose weights sum to less than this has no input pixel in
# reach: it is set to zero rather than divided by a tiny sum.
_MIN_TOTAL_WEIGHT = 1000. * float(np.finfo(np.float32).eps)


# ---------------------------------------------------------------------------
# Weight matrices (SPEC IMG-4 .. IMG-7)
# ---------------------------------------------------------------------------

def _normalize_columns(weights):
    """Each output pixel's weights divided by their sum; all zero where the
    sum is (nearly) zero (SPEC IMG-5)."""
    total = reductions.sum(weights, axis=0, keepdims=True)
    safe_total = lax_numpy.where(total != 0, total, 1)
    return lax_numpy.where(ufuncs.abs(total) > _MIN_TOTAL_WEIGHT,
                           ufuncs.divide(weights, safe_total), 0)


def area_weights(in_size, out_size, scale, translation, dtype):
    """Overlap lengths of each input pixel ``[j, j + 1)`` with each output
    pixel's footprint mapped back to the input (SPEC IMG-6)."""
    inv_scale = 1. / scale
    left_out = creation.arange(out_size, dtype=dtype) * inv_scale - translation * inv_scale
    right_out = left_out + inv_scale
    left_in = creation.arange(in_size, dtype=dtype)
    right_in = left_in + 1.0
    overlap = (ufuncs.minimum(right_out[None, :], right_in[:, None])
               - ufuncs.maximum(left_out[None, :], left_in[:, None]))
    return ufuncs.maximum(0.0, overlap)


def _fold_onto_edges(weights, in_size, radius):
    """Rows ``-radius .. in_size + radius - 1`` of ``weights`` summed onto
    the clamped rows ``0 .. in_size - 1``: pixels beyond the edge repeat the
    edge pixel (SPEC IMG-7).  The fold is a constant 0/1 matrix product."""
    rows = np.clip(np.arange(-radius, in_size + radius), 0, max(in_size - 1, 0))
    fold = (rows[None, :] == np.arange(in_size)[:, None]).astype(weights.dtype)
    return lax_dot.dot_general(lax._convert_element_type(fold, weights.dtype, False),
                               weights, (((1,), (0,)), ((), ())),
                               precision=lax_dot.Precision.HIGHEST)


def weight_matrix(in_size, out_size, scale, translation, kernel, antialias,
                  edge_padding, radius):
    """The (in_size, out_size) resampling matrix of one axis (SPEC IMG-4).

    Downsampling with ``antialias`` stretches the kernel by ``1 / scale`` so
    that it low-pass filters; upsampling never stretches it.  Without edge
    padding, output pixels whose sample point lies outside the input get
    all-zero weights."""
    dtype = dtypes.result_type(scale, translation)
    inv_scale = 1. / scale
    stretch = ufuncs.maximum(inv_scale, 1.) if antialias else 1.
    sample = ((creation.arange(out_size, dtype=dtype) + 0.5) * inv_scale
              - translation * inv_scale - 0.5)
    pad = radius if edge_padding else 0
    if kernel is kernels.AREA:
        weights = area_weights(in_size, out_size, scale, translation, dtype)
    else:
        centres = creation.arange(-pad, in_size + pad, dtype=dtype)
        weights = kernel(ufuncs.abs(sample[None, :] - centres[:, None]) / stretch)
    if edge_padding:
        if out_size < 0:   # JAX's scatter onto an (in, out) matrix rejects it
            raise TypeError("broadcast_in_dim shape must have every element be "
                            f"nonnegative, got {(in_size, out_size)}.")
        return _normalize_columns(_fold_onto_edges(weights, in_size, pad))
    weights = _normalize_columns(weights)
    inside = ufuncs.logical_and(sample >= -0.5, sample <= in_size - 0.5)
    return lax_numpy.where(inside[None, :], weights, 0)


def _contract(image, out_shape, spatial_dims, scales, translations, method,
              antialias, precision):
    """The image with each axis of ``spatial_dims`` resampled (SPEC IMG-4):
    one einsum over the image and a weight matrix per axis."""
    if not spatial_dims:
        return image
    radius, kernel = kernels.KERNELS[method]
    edge_padding = method is ResizeMethod.CUBIC_PYTORCH and not antialias
    ndim = image.ndim
    operands = []
    out_labels = list(range(ndim))
    for i, d in enumerate(spatial_dims):
        w = weight_matrix(image.shape[d], out_shape[d], scales[i], translations[i],
                          kernel, antialias, edge_padding, radius)
        operands += [lax._convert_element_type(w, image.dtype, False), [d, ndim + i]]
        out_labels[d] = ndim + i
    return contractions.einsum(image, list(range(ndim)), *operands, out_labels,
                               precision=precision)


# ---------------------------------------------------------------------------
# Arguments (SPEC IMG-9, IMG-13)
# ---------------------------------------------------------------------------

def _image_array(fun_name, image):
    """``image`` as an array; a list or other non-array is a ``TypeError``
    (SPEC IMG-9).  JAX reads ``image.ndim`` and fails with AttributeError."""
    return util.ensure_arraylike(fun_name, image)


def _check_rank(shape, image):
    if len(shape) != image.ndim:
        raise ValueError("shape must have length equal to the number of dimensions "
                         f"of x;  {shape} vs {image.shape}")


def _spatial_dims(spatial_dims, ndim):
    if isinstance(spatial_dims, (int, np.integer)) or not hasattr(spatial_dims, "__iter__"):
        raise TypeError(f"spatial_dims must be a sequence of axes, got {spatial_dims!r}")
    return tuple(core.canonicalize_axis(d, ndim) for d in spatial_dims)


def _check_vectors(spatial_dims, scale, translation):
    for name, v in (("scale", scale), ("translation", translation)):
        if v.ndim == 0:
            raise TypeError(f"scale_and_translate: {name} must be a 1-d array with "
                            f"one entry per spatial dimension, got a scalar")
        if len(v) != len(spatial_dims):
            raise ValueError(f"scale_and_translate: {name} has {len(v)} entries but "
                             f"spatial_dims has {len(spatial_dims)}")


# ---------------------------------------------------------------------------
# Public functions
# ---------------------------------------------------------------------------

def scale_and_translate(image, shape, spatial_dims, scale, translation, method,
                        antialias=True, precision=lax_dot.Precision.HIGHEST):
    """Resample ``image`` so that input point ``x`` of axis ``spatial_dims[k]``
    lands on ``x * scale[k] + translation[k]`` (SPEC IMG-8).

    ``shape`` has one entry per axis of ``image``; only the entries of
    ``spatial_dims`` are used.  Output pixels that map outside the input are
    0.  ``NEAREST`` is a ``ValueError``.  The image is promoted to an
    inexact dtype, ``scale`` and ``translation`` together to another."""
    shape = core.canonicalize_shape(shape, allow_0d_array=False, nonnegative=False)
    image = _image_array("scale_and_translate", image)
    _check_rank(shape, image)
    method = kernels.canonical_method(method, antialias)
    if method is ResizeMethod.NEAREST:
        raise ValueError("Nearest neighbor resampling is not currently supported "
                         "for scale_and_translate.")
    image, = util.promote_dtypes_inexact(image)
    scale, translation = util.promote_dtypes_inexact(scale, translation)
    spatial_dims = _spatial_dims(spatial_dims, image.ndim)
    _check_vectors(spatial_dims, scale, translation)
    return _contract(image, shape, spatial_dims, scale, translation, method,
                     antialias, precision)


def _nearest(image, shape):
    """Nearest-neighbour resize: output pixel ``i`` of an axis of size
    ``m -> n`` copies input pixel ``floor((i + 0.5) * m / n)``, computed in
    float32 (SPEC IMG-12)."""
    for d, (m, n) in enumerate(zip(image.shape, shape)):
        if m == n:
            continue
        _check_not_empty(d, m, n)
        where = (creation.arange(n, dtype=np.float32) + 0.5) * m / n
        offsets = lax.convert_element_type(ufuncs.floor(where), np.int32)
        index = [slice(None)] * image.ndim
        index[d] = offsets
        image = image[tuple(index)]
    return image


def _check_not_empty(d, m, n):
    if m == 0 and n > 0:
        raise TypeError(f"resize cannot resample axis {d} from size 0 to size {n}: "
                        "it has no input pixels")


def _resize_impl(image, shape, method, antialias, precision):
    """The body of ``resize`` under ``jit`` (SPEC IMG-1, IMG-9, IMG-13).  The
    image is checked here, after ``jit`` has checked the static arguments,
    which is the order JAX's errors come in."""
    util.check_arraylike("resize", image)
    _check_rank(shape, image)
    method = kernels.canonical_method(method, antialias)
    if method is ResizeMethod.NEAREST:
        return _nearest(image, shape)
    image, = util.promote_dtypes_inexact(image)
    # Every kernel interpolates, so an axis that keeps its size is unchanged.
    spatial_dims = tuple(d for d in range(image.ndim) if image.shape[d] != shape[d])
    for d in spatial_dims:
        _check_not_empty(d, image.shape[d], shape[d])
    scales = [1.0 if shape[d] == 0 else shape[d] / image.shape[d] for d in spatial_dims]
    return _contract(image, shape, spatial_dims, scales, [0.] * len(spatial_dims),
                     method, antialias, precision)


_resize_jit = jit(_resize_impl, static_argnums=(1, 2, 3, 4))


def resize(image, shape, method, antialias=True, precision=lax_dot.Precision.HIGHEST):
    """``image`` resampled to ``shape`` (one size per axis, batch and channel
    axes included) with ``method`` (SPEC IMG-1).

    ``NEAREST`` keeps the dtype; the other methods promote to an inexact
    dtype and apply ``scale_and_translate`` with ``scale = new / old`` and
    no translation to each axis whose size changes.  ``antialias`` widens
    the kernel when downsampling.  Runs under ``jit`` with ``shape``,
    ``method``, ``antialias`` and ``precision`` static (so they must be
    hashable)."""
    shape = core.canonicalize_shape(shape, allow_0d_array=False, nonnegative=False)
    return _resize_jit(image, shape, method, antialias, precision)


__all__ = ["ResizeMethod", "resize", "scale_and_translate"]
