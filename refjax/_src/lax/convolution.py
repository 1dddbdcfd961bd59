"""The ``conv_general_dilated`` primitive and its wrappers (SPEC NP-56, NP-57).

A convolution slides a kernel (``rhs``) over an input (``lhs``).  Both, and
the output, name which of their axes is the batch (N), feature (C for the
input, O/I for the kernel) and spatial dimensions through
``ConvDimensionNumbers``; the primitive works in the canonical layout
``(N, C, spatial...)`` / ``(O, I, spatial...)`` and permutes in and out.

The implementation dilates and pads the input, then, for every kernel
offset, contracts a strided window of the input with that kernel slice:
plain slicing and ``einsum`` on backend buffers.

Under ``vmap`` the mapped axis folds into an axis the convolution already
treats independently: the input's batch axis, the kernel's output
features, or, when both are mapped, feature groups (SPEC VMAP-61).
"""
import builtins
import itertools
import operator
from typing import NamedTuple, Sequence

import numpy as np

from refjax._src import core, dtypes
from refjax._src.core import Primitive, ShapedArray
from refjax._src.interpreters import ad
from refjax._src.lax import dot, lax
from refjax._src.lax import shapes as lax_shapes
from refjax._src.lax.lax import _xp


class ConvDimensionNumbers(NamedTuple):
    """Where the batch, feature and spatial axes of each operand are.

    ``lhs_spec`` and ``out_spec``: (batch, feature, spatial...) axis numbers;
    ``rhs_spec``: (out feature, in feature, spatial...).
    """
    lhs_spec: Sequence[int]
    rhs_spec: Sequence[int]
    out_spec: Sequence[int]


# ---------------------------------------------------------------------------
# Dimension numbers and padding
# ---------------------------------------------------------------------------

def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers):
    """``dimension_numbers`` (None, three layout strings, or
    ``ConvDimensionNumbers``) as ``ConvDimensionNumbers`` (SPEC NP-56)."""
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return dimension_numbers
    if len(lhs_shape) != len(rhs_shape):
        raise TypeError("convolution requires lhs and rhs ndim to be equal, got "
                        f"{len(lhs_shape)} and {len(rhs_shape)}.")
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    if not isinstance(dimension_numbers, (list, tuple)):
        raise TypeError("convolution dimension_numbers must be tuple/list or None, "
                        f"got {type(dimension_numbers)}.")
    if len(dimension_numbers) != 3:
        raise TypeError("convolution dimension_numbers list/tuple must be length 3, "
                        f"got {len(dimension_numbers)}.")
    if not all(isinstance(s, str) for s in dimension_numbers):
        raise TypeError("convolution dimension_numbers elements must be strings, got "
                        f"{tuple(map(type, dimension_numbers))}.")
    for i, spec in enumerate(dimension_numbers):
        if len(spec) != len(lhs_shape):
            raise TypeError(
                f"convolution dimension_numbers[{i}] must have len equal to the "
                f"ndim of lhs and rhs, got {len(spec)} for lhs and rhs shapes "
                f"{lhs_shape} and {rhs_shape}.")
    return ConvDimensionNumbers(*conv_general_permutations(dimension_numbers))


def conv_general_permutations(dimension_numbers):
    """Axis permutations of three layout strings such as ('NCHW', 'OIHW', 'NCHW').

    Spatial axes are ordered as they appear in the kernel's layout.
    """
    lhs, rhs, out = dimension_numbers
    pairs = (("N", "C"), ("O", "I"), ("N", "C"))
    for i, (a, b) in enumerate(pairs):
        spec = dimension_numbers[i]
        if not spec.count(a) == spec.count(b) == 1:
            raise TypeError(f"convolution dimension_numbers[{i}] must contain the "
                            f"characters '{a}' and '{b}' exactly once, got {spec}.")
        if len(spec) != len(set(spec)):
            raise TypeError(f"convolution dimension_numbers[{i}] cannot have "
                            f"duplicate characters, got {spec}.")
    spatial = [set(s) - set(p) for s, p in zip(dimension_numbers, pairs)]
    if not spatial[0] == spatial[1] == spatial[2]:
        raise TypeError("convolution dimension_numbers elements must each have the "
                        f"same set of spatial characters, got {dimension_numbers}.")

    def perm(spec, pair):
        rest = [i for i, c in enumerate(spec) if c not in pair]
        if spec is not rhs:
            rest.sort(key=lambda i: rhs.index(spec[i]))
        return (spec.index(pair[0]), spec.index(pair[1])) + tuple(rest)

    return tuple(perm(s, p) for s, p in zip(dimension_numbers, pairs))


def padtype_to_pads(in_shape, window_shape, window_strides, padding):
    """(low, high) pads for 'VALID', 'SAME' (extra at the end) or
    'SAME_LOWER' (extra at the start)."""
    name = _padding_name(padding)
    if name == "VALID":
        return [(0, 0)] * len(in_shape)
    # Elementwise NumPy arithmetic over the three shapes, as in JAX: shapes
    # that do not broadcast are NumPy's (or jnp's) ValueError (SPEC LAX-17).
    out = -np.floor_divide(np.negative(in_shape), window_strides)
    pads = []
    for total in (out - 1) * window_strides + window_shape - in_shape:
        total = builtins.max(total, 0)
        small, big = total // 2, total - total // 2
        pads.append((small, big) if name == "SAME" else (big, small))
    return [tuple(int(v) if isinstance(v, np.generic) else v for v in pair)
            for pair in pads]


def _padding_name(padding):
    """The upper-cased padding name, checked before anything else about the
    window (a bad stride included), as in JAX (SPEC LAX-12)."""
    if not isinstance(padding, str):
        raise TypeError(f"Unknown padding type: {padding}.")
    name = padding.upper()
    if name not in ("VALID", "SAME", "SAME_LOWER"):
        raise RuntimeError("Unrecognized padding type: expected 'VALID', 'SAME', or "
                           f"'SAME_LOWER', got {padding}.")
    return name


def _dilate(size, dilation):
    return builtins.max(0, 1 + dilation * (size - 1))


# ---------------------------------------------------------------------------
# The primitive
# ---------------------------------------------------------------------------

conv_general_dilated_p = Primitive("conv_general_dilated")


def _check_groups(lhs, rhs, dn, feature_group_count, batch_group_count):
    """JAX's checks of the group counts against the feature/batch sizes."""
    if not feature_group_count > 0:
        raise ValueError("conv_general_dilated feature_group_count must be a positive "
                         f"integer, got {feature_group_count}.")
    in_features = lhs.shape[dn.lhs_spec[1]]
    quot, rem = divmod(in_features, feature_group_count)
    if rem:
        raise ValueError("conv_general_dilated feature_group_count must divide lhs "
                         f"feature dimension size, but {feature_group_count} does not "
                         f"divide {in_features}.")
    kernel_in = rhs.shape[dn.rhs_spec[1]]
    if quot != kernel_in:
        raise ValueError("conv_general_dilated lhs feature dimension size divided by "
                         "feature_group_count must equal the rhs input feature "
                         f"dimension size, but {in_features} // {feature_group_count} "
                         f"!= {kernel_in}.")
    out_features = rhs.shape[dn.rhs_spec[0]]
    _check_multiple(out_features, feature_group_count, "feature_group_count")
    if not batch_group_count > 0:
        raise ValueError("conv_general_dilated batch_group_count must be a positive "
                         f"integer, got {batch_group_count}.")
    batch = lhs.shape[dn.lhs_spec[0]]
    if batch_group_count > 1 and batch % batch_group_count:
        raise ValueError("conv_general_dilated batch_group_count must divide lhs "
                         f"batch dimension size, but {batch} does not divide "
                         f"{batch_group_count}.")
    _check_multiple(out_features, batch_group_count, "batch_group_count")
    if batch_group_count > 1 and feature_group_count > 1:
        raise ValueError("At most one of batch_group_count and feature_group_count may "
                         f"be > 1, got batch_group_count={batch_group_count} and "
                         f"feature_group_count={feature_group_count}")


def _check_multiple(out_features, count, name):
    if out_features % count:
        raise ValueError("conv_general_dilated rhs output feature dimension size "
                         f"must be a multiple of {name}, but {out_features} is not "
                         f"a multiple of {count}.")


def _check_strides(window_strides):
    """A window stride below 1 is JAX's ValueError, not a division by zero
    (SPEC LAX-12)."""
    if any(int(s) <= 0 for s in window_strides):
        raise ValueError("conv_general_dilated window_strides must all be positive, "
                         f"got {tuple(window_strides)}.")


@conv_general_dilated_p.def_abstract_eval
def _conv_abstract_eval(lhs, rhs, *, window_strides, padding, lhs_dilation,
                        rhs_dilation, dimension_numbers, feature_group_count,
                        batch_group_count, precision, preferred_element_type,
                        out_sharding):
    dn = dimension_numbers
    if lhs.ndim != rhs.ndim:
        raise ValueError("conv_general_dilated lhs and rhs must have the same number "
                         f"of dimensions, but got {lhs.shape} and {rhs.shape}.")
    _check_groups(lhs, rhs, dn, feature_group_count, batch_group_count)
    if len(dn.rhs_spec) - 2 != len(window_strides):
        raise ValueError("conv_general_dilated window and window_strides must have the "
                         f"same number of dimensions, but got {len(dn.rhs_spec) - 2} "
                         f"and {len(window_strides)}")
    if len(padding) != lhs.ndim - 2:
        raise TypeError("Wrong number of explicit pads for convolution: expected "
                        f"{lhs.ndim - 2}, got {len(padding)}.")
    _check_strides(window_strides)
    for dilation in (lhs_dilation, rhs_dilation):
        if any(d <= 0 for d in dilation):
            raise TypeError(f"All dilations must be positive, got {dilation}.")
    out_dtype = _conv_dtype(lhs, rhs, preferred_element_type)
    shape = _conv_out_shape(lhs.shape, rhs.shape, dn, window_strides, padding,
                            lhs_dilation, rhs_dilation, batch_group_count)
    return ShapedArray(shape, out_dtype, lhs.weak_type and rhs.weak_type)


def _conv_dtype(lhs, rhs, preferred):
    if lhs.dtype != rhs.dtype:
        raise TypeError("lax.conv_general_dilated requires arguments to have the same "
                        f"dtypes, got {lhs.dtype.name}, {rhs.dtype.name}.")
    if preferred is None:
        return lhs.dtype
    _check_preferred(lhs.dtype, preferred)
    return preferred


def _check_preferred(dtype, preferred):
    """JAX's rule for ``preferred_element_type``: the same kind (integer,
    floating, complex) as the operands, or floating for integers; a signed
    integer stays signed; never narrower (SPEC LAX-17)."""
    sub = dtypes.issubdtype
    if not (sub(dtype, np.integer) and sub(preferred, np.floating)):
        if any(sub(dtype, t) and not sub(preferred, t)
               for t in (np.integer, np.floating, np.complexfloating)):
            raise TypeError("Input type is incompatible with `preferred_element_type`. "
                            "The compatible combinations of (input_type, "
                            "preferred_element_type) are (integral, integral), "
                            "(integral, floating), (floating, floating), (complex, "
                            "complex.")
        if sub(dtype, np.signedinteger) and not sub(preferred, np.signedinteger):
            raise TypeError("`preferred_element_type` must have the same signedness "
                            "as the original type.")
    if np.dtype(preferred).itemsize < np.dtype(dtype).itemsize:
        raise TypeError("`preferred_element_type` must not be narrower than the "
                        "original type.")


def _conv_out_shape(lhs_shape, rhs_shape, dn, strides, padding, lhs_dilation,
                    rhs_dilation, batch_group_count):
    """The output shape, from the canonical (N, C, spatial) view of each operand."""
    lhs_c = [lhs_shape[i] for i in dn.lhs_spec]
    rhs_c = [rhs_shape[i] for i in dn.rhs_spec]
    spatial = []
    for n, k, s, (lo, hi), ld, rd in zip(lhs_c[2:], rhs_c[2:], strides, padding,
                                         lhs_dilation, rhs_dilation):
        padded = _dilate(n, ld) + lo + hi
        if padded < 0:
            raise ValueError("Negative padding is larger than the size of the "
                             f"corresponding dimension: got padding={padding} for "
                             f"lhs_shape[2:]={tuple(lhs_c[2:])}")
        spatial.append(builtins.max(0, (padded - _dilate(k, rd)) // s + 1))
    canonical = [lhs_c[0] // batch_group_count, rhs_c[0]] + spatial
    out = [0] * len(canonical)
    for j, axis in enumerate(dn.out_spec):
        out[axis] = canonical[j]
    return tuple(out)


def _dilate_and_pad(xp, x, lhs_dilation, padding):
    """Insert ``dilation - 1`` zeros between input elements, then pad the
    spatial axes (negative padding crops)."""
    spatial = x.shape[2:]
    grown = [(builtins.max(lo, 0), builtins.max(hi, 0)) for lo, hi in padding]
    shape = list(x.shape[:2]) + [_dilate(n, d) + lo + hi for n, d, (lo, hi)
                                 in zip(spatial, lhs_dilation, grown)]
    out = xp.zeros(shape, dtype=x.dtype)
    place = tuple(builtins.slice(lo, lo + _dilate(n, d), d)
                  for n, d, (lo, _) in zip(spatial, lhs_dilation, grown))
    out[(builtins.slice(None),) * 2 + place] = x
    crop = tuple(builtins.slice(-lo if lo < 0 else 0, size + hi if hi < 0 else size)
                 for size, (lo, hi) in zip(shape[2:], padding))
    return out[(builtins.slice(None),) * 2 + crop]


@conv_general_dilated_p.def_impl
def _conv_impl(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
               dimension_numbers, feature_group_count, batch_group_count,
               precision, preferred_element_type, out_sharding):
    xp = _xp()
    dn = dimension_numbers
    out_dtype = preferred_element_type or lhs.dtype
    compute = dot._dot_compute_dtype(lhs.dtype, rhs.dtype, out_dtype)
    x = _dilate_and_pad(xp, xp.transpose(lhs, dn.lhs_spec).astype(compute),
                        lhs_dilation, padding)
    w = xp.transpose(rhs, dn.rhs_spec).astype(compute)
    out_spatial = [builtins.max(0, (n - _dilate(k, d)) // s + 1) for n, k, d, s
                   in zip(x.shape[2:], w.shape[2:], rhs_dilation, window_strides)]
    out = _accumulate(xp, x, w, out_spatial, window_strides, rhs_dilation,
                      feature_group_count, batch_group_count)
    with np.errstate(all="ignore"):
        result = xp.transpose(out, tuple(int(d) for d in np.argsort(dn.out_spec)))
        return result.astype(out_dtype)


def _accumulate(xp, x, w, out_spatial, strides, rhs_dilation, groups, batch_groups):
    """Sum over kernel offsets of (strided input window) x (kernel slice)."""
    n, c = x.shape[:2]
    o = w.shape[0]
    total = xp.zeros((n // batch_groups, o) + tuple(out_spatial), dtype=x.dtype)
    for offset in itertools.product(*[range(k) for k in w.shape[2:]]):
        window = tuple(builtins.slice(k * d, k * d + (m - 1) * s + 1, s) if m else
                       builtins.slice(0, 0)
                       for k, d, m, s in zip(offset, rhs_dilation, out_spatial, strides))
        patch = x[(builtins.slice(None),) * 2 + window]       # (N, C, out...)
        kernel = w[(builtins.slice(None),) * 2 + offset]      # (O, I)
        with np.errstate(all="ignore"):
            total = total + _contract_groups(xp, patch, kernel, groups, batch_groups)
    return total


def _contract_groups(xp, patch, kernel, groups, batch_groups):
    """(N, C, out...) x (O, I) -> (N', O, out...) honouring feature groups
    (input features split among output features) and batch groups (the
    batch split among output features)."""
    n, c = patch.shape[:2]
    o, i = kernel.shape
    rest = patch.shape[2:]
    if batch_groups > 1:
        p = patch.reshape((batch_groups, n // batch_groups, c) + rest)
        k = kernel.reshape(batch_groups, o // batch_groups, i)
        out = xp.einsum("gnc...,goc->ngo...", p, k)
        return out.reshape((n // batch_groups, o) + rest)
    p = patch.reshape((n, groups, c // groups) + rest)
    k = kernel.reshape(groups, o // groups, i)
    out = xp.einsum("ngc...,goc->ngo...", p, k)
    return out.reshape((n, o) + rest)


# ---------------------------------------------------------------------------
# Derivatives (SPEC AD-36)
#
# The convolution is bilinear, so its JVP is the sum of the convolution with
# each tangent in turn, and each transpose is itself a convolution.  Along
# one spatial axis, with the input padded by ``(lo, hi)`` and dilated by
# ``ld``, strides ``s`` and kernel dilation ``rd``:
#
#     out[y] = sum_k in_padded[y * s + k * rd] * kernel[k]
#
# * lhs: the output cotangent, dilated by ``s``, convolved with the
#   spatially reversed kernel (its in/out feature roles swapped) at kernel
#   dilation ``rd`` and stride ``ld``;
# * rhs: the input, dilated by ``ld``, convolved with the output cotangent
#   dilated by ``s`` as the kernel, at stride ``rd``; the batch axis is the
#   one contracted, the input features play the batch.
#
# Feature groups of the forward pass become batch groups of the rhs
# transpose and vice versa.
# ---------------------------------------------------------------------------

def _swap_roles(spec):
    """Exchange the first two entries (batch/feature or out/in feature)."""
    return (spec[1], spec[0]) + tuple(spec[2:])


def _spatial_sizes(shape, spec):
    return [shape[i] for i in spec[2:]]


def _split_axis(x, axis, parts):
    """Axis ``axis`` of size ``parts * m`` as two axes ``(parts, m)``."""
    shape = list(core.get_aval(x).shape)
    shape[axis:axis + 1] = [parts, shape[axis] // parts]
    return lax_shapes.reshape(x, shape)


def _merge_axis(x, src, dst):
    """Remove axis ``src`` and fold it, as the major part, into the axis that
    is ``dst`` once ``src`` is removed: one ``reshape`` that permutes first."""
    shape = core.get_aval(x).shape
    order = [i for i in range(len(shape)) if i != src]
    order.insert(dst, src)
    merged = [shape[i] for i in range(len(shape)) if i != src]
    merged[dst] *= shape[src]
    return lax_shapes.reshape(x, tuple(merged), tuple(order))


def _lhs_transpose_padding(lhs_sizes, kernel_sizes, out_sizes, strides, padding,
                           lhs_dilation, rhs_dilation):
    """Pads that align the reversed kernel with every input position and
    give back exactly the input's spatial size."""
    pads = []
    for n, k, y, s, (lo, _), ld, rd in zip(lhs_sizes, kernel_sizes, out_sizes,
                                           strides, padding, lhs_dilation,
                                           rhs_dilation):
        before = _dilate(k, rd) - 1 - lo
        after = _dilate(n, ld) + _dilate(k, rd) - 1 - _dilate(y, s) - before
        pads.append((before, after))
    return tuple(pads)


def _rhs_transpose_padding(lhs_sizes, kernel_sizes, out_sizes, strides, padding,
                           lhs_dilation, rhs_dilation):
    """The forward low pads, and high pads that make the output exactly the
    kernel's spatial size (input beyond the last window is not read)."""
    pads = []
    for n, k, y, s, (lo, _), ld, rd in zip(lhs_sizes, kernel_sizes, out_sizes,
                                           strides, padding, lhs_dilation,
                                           rhs_dilation):
        after = _dilate(y, s) - _dilate(n, ld) + (k - 1) * rd - lo
        pads.append((lo, after))
    return tuple(pads)


def _cast(x, dtype):
    """``x`` as ``dtype``, untouched when it already is."""
    if core.get_aval(x).dtype == dtype:
        return x
    return lax.convert_element_type(x, dtype)


def _empty_cotangent(ct):
    """An empty output cotangent: the operand's cotangent is all zeros."""
    return 0 in core.get_aval(ct).shape


def _conv_transpose_lhs(ct, lhs, rhs, *, window_strides, padding, lhs_dilation,
                        rhs_dilation, dimension_numbers, feature_group_count,
                        batch_group_count, precision, preferred_element_type,
                        out_sharding):
    """The cotangent of ``lhs`` (SPEC AD-36)."""
    lhs_aval = lhs.aval
    if _empty_cotangent(ct):
        return lax.full(lhs_aval.shape, 0, lhs_aval.dtype)
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    kernel = rhs
    groups = feature_group_count
    if feature_group_count > 1 or batch_group_count > 1:
        # The kernel's out-feature groups become groups of its in-features.
        groups = builtins.max(feature_group_count, batch_group_count)
        kernel = _merge_axis(_split_axis(kernel, rhs_spec[0], groups),
                             rhs_spec[0], rhs_spec[1])
    kernel = lax_shapes.rev(kernel, tuple(rhs_spec[2:]))
    kernel = _cast(kernel, core.get_aval(ct).dtype)
    rhs_shape = core.get_aval(rhs).shape
    pads = _lhs_transpose_padding(
        _spatial_sizes(lhs_aval.shape, lhs_spec), _spatial_sizes(rhs_shape, rhs_spec),
        _spatial_sizes(core.get_aval(ct).shape, out_spec), window_strides, padding,
        lhs_dilation, rhs_dilation)
    out = conv_general_dilated(
        ct, kernel, window_strides=lhs_dilation, padding=pads,
        lhs_dilation=window_strides, rhs_dilation=rhs_dilation,
        dimension_numbers=ConvDimensionNumbers(out_spec, _swap_roles(rhs_spec),
                                               lhs_spec),
        feature_group_count=groups, precision=precision,
        preferred_element_type=preferred_element_type)
    if batch_group_count > 1:
        # Output features came out as (batch group, feature): move the group
        # back into the batch axis, where the forward pass took it from.
        out = _merge_axis(_split_axis(out, lhs_spec[1], batch_group_count),
                          lhs_spec[1], lhs_spec[0])
    return _cast(out, lhs_aval.dtype)


def _conv_transpose_rhs(ct, lhs, rhs, *, window_strides, padding, lhs_dilation,
                        rhs_dilation, dimension_numbers, feature_group_count,
                        batch_group_count, precision, preferred_element_type,
                        out_sharding):
    """The cotangent of ``rhs`` (SPEC AD-36)."""
    rhs_aval = rhs.aval
    if _empty_cotangent(ct):
        return lax.full(rhs_aval.shape, 0, rhs_aval.dtype)
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    lhs_shape = core.get_aval(lhs).shape
    pads = _rhs_transpose_padding(
        _spatial_sizes(lhs_shape, lhs_spec), _spatial_sizes(rhs_aval.shape, rhs_spec),
        _spatial_sizes(core.get_aval(ct).shape, out_spec), window_strides, padding,
        lhs_dilation, rhs_dilation)
    lhs = _cast(lhs, core.get_aval(ct).dtype)
    out = conv_general_dilated(
        lhs, ct, window_strides=rhs_dilation, padding=pads,
        lhs_dilation=lhs_dilation, rhs_dilation=window_strides,
        dimension_numbers=ConvDimensionNumbers(
            _swap_roles(lhs_spec), _swap_roles(out_spec), _swap_roles(rhs_spec)),
        feature_group_count=batch_group_count,
        batch_group_count=feature_group_count, precision=precision,
        preferred_element_type=preferred_element_type)
    return _cast(out, rhs_aval.dtype)


ad.defbilinear(conv_general_dilated_p, _conv_transpose_lhs, _conv_transpose_rhs)


# ---------------------------------------------------------------------------
# Batching (SPEC VMAP-61)
#
# The mapped axis is folded, as the major part, into an axis along which the
# convolution computes independent results, and split out of the matching
# output axis afterwards.  Group counts keep the groups outermost: where a
# folded axis carries groups, the groups are split off first and merged back
# around the mapped axis.
# ---------------------------------------------------------------------------

def _conv_batch_rule(axis_data, vals, dims, **params):
    """One convolution of the batched operands (SPEC VMAP-61)."""
    (lhs, rhs), (lbd, rbd) = vals, dims
    if any(d is not None and np.shape(v)[d] == 0 for v, d in zip(vals, dims)):
        return _empty_batch_conv(lhs, rhs, lbd, rbd, params), 0
    if lbd is not None and rbd is not None:
        return _conv_batch_both(lhs, rhs, lbd, rbd, params)
    if lbd is not None:
        return _conv_batch_lhs(lhs, rhs, lbd, params)
    return _conv_batch_rhs(lhs, rhs, rbd, params)


def _empty_batch_conv(lhs, rhs, lbd, rbd, params):
    """A mapped axis of size 0 cannot be folded into another axis: the
    (empty) result is built from the per-example output shape."""
    lhs_shape = [s for i, s in enumerate(np.shape(lhs)) if i != lbd]
    rhs_shape = [s for i, s in enumerate(np.shape(rhs)) if i != rbd]
    shape = _conv_out_shape(lhs_shape, rhs_shape, params["dimension_numbers"],
                            params["window_strides"], params["padding"],
                            params["lhs_dilation"], params["rhs_dilation"],
                            params["batch_group_count"])
    dtype = params["preferred_element_type"] or core.get_aval(lhs).dtype
    return lax.full((0,) + tuple(shape), 0, dtype)


def _conv_batch_both(lhs, rhs, lbd, rbd, params):
    """Each example convolves its own input with its own kernel: the
    examples become groups.  The kernel's output features take the mapped
    axis, and the input's features take it as extra feature groups (or its
    batch as extra batch groups when those are in use)."""
    lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
    size = np.shape(lhs)[lbd]
    groups, batch_groups = params["feature_group_count"], params["batch_group_count"]
    if batch_groups > 1:
        lhs = _merge_axis(lhs, lbd, lhs_spec[0])
        batch_groups *= size
    else:
        lhs = _merge_axis(lhs, lbd, lhs_spec[1])
        groups *= size
    rhs = _merge_axis(rhs, rbd, rhs_spec[0])
    out = conv_general_dilated_p.bind(lhs, rhs, **dict(
        params, feature_group_count=groups, batch_group_count=batch_groups))
    return _split_axis(out, out_spec[1], size), out_spec[1]


def _conv_batch_lhs(lhs, rhs, lbd, params):
    """Only the input is mapped: the examples join the input's batch axis,
    behind its batch groups if any."""
    lhs_spec, _, out_spec = params["dimension_numbers"]
    size = np.shape(lhs)[lbd]
    batch_groups = params["batch_group_count"]
    if batch_groups == 1:
        lhs = _merge_axis(lhs, lbd, lhs_spec[0])
    else:
        lhs = _fold_inside_groups(lhs, lbd, lhs_spec[0], batch_groups)
    out = conv_general_dilated_p.bind(lhs, rhs, **params)
    return _split_axis(out, out_spec[0], size), out_spec[0]


def _conv_batch_rhs(lhs, rhs, rbd, params):
    """Only the kernel is mapped: the examples join its output features,
    behind its feature (or batch) groups if any, and the output features
    are put back as (example, group, feature)."""
    _, rhs_spec, out_spec = params["dimension_numbers"]
    size = np.shape(rhs)[rbd]
    groups = builtins.max(params["feature_group_count"], params["batch_group_count"])
    if groups == 1:
        rhs = _merge_axis(rhs, rbd, rhs_spec[0])
        out = conv_general_dilated_p.bind(lhs, rhs, **params)
        return _split_axis(out, out_spec[1], size), out_spec[1]
    rhs = _fold_inside_groups(rhs, rbd, rhs_spec[0], groups)
    out = conv_general_dilated_p.bind(lhs, rhs, **params)
    out = _split_axis(out, out_spec[1], groups)            # (group, example * o)
    out = _split_axis(out, out_spec[1] + 1, size)          # (group, example, o)
    return _merge_axis(out, out_spec[1], out_spec[1] + 1), out_spec[1]


def _fold_inside_groups(x, bdim, axis, groups):
    """Fold mapped axis ``bdim`` of ``x`` into axis ``axis`` (numbered
    without ``bdim``), of size ``groups * m``, as ``(groups, example, m)``:
    the groups stay outermost, as the convolution reads them."""
    pos = axis + (bdim <= axis)
    x = _split_axis(x, pos, groups)
    x = _merge_axis(x, bdim + (bdim > pos), axis + 1)
    return _merge_axis(x, axis, axis)


conv_general_dilated_p.batch = _conv_batch_rule


# ---------------------------------------------------------------------------
# Public functions
# ---------------------------------------------------------------------------

def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None,
                         rhs_dilation=None, dimension_numbers=None,
                         feature_group_count=1, batch_group_count=1, precision=None,
                         preferred_element_type=None, out_sharding=None):
    """General n-d convolution with strides, padding and dilations (SPEC NP-56).

    ``padding`` is 'SAME', 'SAME_LOWER', 'VALID' (computed from the dilated
    kernel) or a sequence of (low, high) pairs.
    """
    lhs_aval, rhs_aval = core.get_aval(lhs), core.get_aval(rhs)
    dn = conv_dimension_numbers(lhs_aval.shape, rhs_aval.shape, dimension_numbers)
    nspatial = lhs_aval.ndim - 2
    if lhs_dilation is None:
        lhs_dilation = (1,) * nspatial
    elif isinstance(padding, str) and any(d != 1 for d in lhs_dilation):
        raise ValueError("String padding is not implemented for transposed convolution "
                         "using this op. Please either exactly specify the required "
                         "padding or use conv_transpose.")
    if rhs_dilation is None:
        rhs_dilation = (1,) * (rhs_aval.ndim - 2)
    if isinstance(padding, str):
        _padding_name(padding)
    _check_strides(window_strides)
    if isinstance(padding, str):
        kernel = [_dilate(rhs_aval.shape[i], d) for i, d in zip(dn.rhs_spec[2:], rhs_dilation)]
        spatial = [lhs_aval.shape[i] for i in dn.lhs_spec[2:]]
        padding = padtype_to_pads(spatial, kernel, window_strides, padding)
    else:
        try:
            padding = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
        except (ValueError, TypeError) as e:
            raise ValueError("padding argument to conv_general_dilated should be a "
                             "string or a sequence of (low, high) pairs, got "
                             f"{padding}") from e
    pet = _preferred_arg(preferred_element_type)
    return conv_general_dilated_p.bind(
        lhs, rhs, window_strides=tuple(window_strides),
        padding=tuple(tuple(p) for p in padding),
        lhs_dilation=tuple(lhs_dilation), rhs_dilation=tuple(rhs_dilation),
        dimension_numbers=dn, feature_group_count=operator.index(feature_group_count),
        batch_group_count=operator.index(batch_group_count),
        precision=dot._canon_precision(precision), preferred_element_type=pet,
        out_sharding=None)


def _preferred_arg(preferred):
    """The ``preferred_element_type`` argument: a dtype, checked as users'
    dtypes are; JAX's abstract key types (``jax.dtypes.prng_key``) pass here
    and fail the type rule, after ``precision`` is read (SPEC LAX-17)."""
    if preferred is None:
        return None
    if isinstance(preferred, type) and issubclass(preferred, dtypes.extended):
        return preferred
    return dtypes.canonicalize_dtype(
        dtypes.check_user_dtype(preferred, "conv_general_dilated"))


def conv(lhs, rhs, window_strides, padding, precision=None,
         preferred_element_type=None):
    """``conv_general_dilated`` in the default NC... / OI... layout."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation,
                              rhs_dilation, precision=None, preferred_element_type=None):
    """``conv_general_dilated`` with dilations, in the default layout."""
    return conv_general_dilated(lhs, rhs, window_strides, padding,
                                lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
                                precision=precision,
                                preferred_element_type=preferred_element_type)
