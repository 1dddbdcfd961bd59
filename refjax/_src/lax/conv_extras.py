"""Convolution helpers built on ``conv_general_dilated`` (SPEC WIN-8 .. WIN-10).

* shape arithmetic: ``conv_shape_tuple`` (canonical layouts),
  ``conv_general_shape_tuple`` (layout strings), ``conv_transpose_shape_tuple``;
* ``conv_transpose``: a fractionally strided convolution (the input dilated
  by the strides), with Keras' padding conventions;
* ``conv_general_dilated_patches``: a convolution with a one-hot kernel, so
  that the output features are the flattened input patches;
* ``conv_general_dilated_local``: an unshared convolution, a contraction of
  those patches with a kernel per output position.

No new primitive: everything binds ``conv_general_dilated`` (and
``dot_general``), whose rules differentiate and batch it.
"""
import builtins
import math
import operator
from typing import Union

import numpy as np

from refjax._src import core
from refjax._src.lax import dot, lax, shapes
from refjax._src.lax.convolution import (
    ConvDimensionNumbers, conv_dimension_numbers, conv_general_dilated,
    conv_general_permutations, padtype_to_pads,
)
from refjax._src.lax.windowed_reductions import stride_dim

# What ``dimension_numbers`` may be: three layout strings, the canonical
# permutations, or None for (N, C, spatial...) everywhere.
ConvGeneralDilatedDimensionNumbers = Union[
    tuple[str, str, str],
    ConvDimensionNumbers,
    None,
]


# ---------------------------------------------------------------------------
# Shapes (SPEC WIN-8)
# ---------------------------------------------------------------------------

def conv_shape_tuple(lhs_shape, rhs_shape, strides, pads, batch_group_count=1):
    """The output shape of a convolution of operands in the canonical
    layouts (N, C, spatial...) and (O, I, spatial...) (SPEC WIN-8).

    ``pads`` is a padding name or (low, high) pairs; a wrong number of
    pairs is TypeError, padding cutting more than an axis holds ValueError."""
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise TypeError("Wrong number of explicit pads for convolution: expected "
                        f"{len(lhs_shape) - 2}, got {len(pads)}.")
    padded = np.add(lhs_shape[2:], np.sum(np.array(pads).reshape(-1, 2), axis=1))
    if np.any(padded < 0):
        raise ValueError("Negative padding is larger than the size of the "
                         f"corresponding dimension: got padding={pads} for "
                         f"lhs_shape[2:]={tuple(lhs_shape[2:])}")
    spatial = tuple(stride_dim(int(d), k, s)
                    for d, k, s in zip(padded, rhs_shape[2:], strides))
    batch = lhs_shape[0]
    if batch_group_count > 1:
        if batch % batch_group_count:
            raise ValueError(f"batch_group_count={batch_group_count} must divide the "
                             f"batch size {batch}.")
        batch = batch // batch_group_count
    return (batch, rhs_shape[0]) + spatial


def _permuted(shape, perm, what):
    """``shape`` in the canonical order ``perm`` (its layout's rank checked)."""
    if len(shape) != len(perm):
        raise ValueError(f"{what} {tuple(shape)} does not have the rank of its layout, "
                         f"{len(perm)}.")
    return tuple(shape[i] for i in perm)


def _unpermuted(shape, perm):
    out = [0] * len(perm)
    for value, axis in zip(shape, perm):
        out[axis] = value
    return tuple(out)


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding,
                             dimension_numbers):
    """:func:`conv_shape_tuple` for operands laid out as the three layout
    strings of ``dimension_numbers`` say (SPEC WIN-8)."""
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    out = conv_shape_tuple(_permuted(lhs_shape, lhs_perm, "lhs_shape"),
                           _permuted(rhs_shape, rhs_perm, "rhs_shape"),
                           window_strides, padding)
    return _unpermuted(out, out_perm)


def conv_transpose_shape_tuple(lhs_shape, rhs_shape, window_strides, padding,
                               dimension_numbers):
    """The output shape of :func:`conv_transpose` (no kernel dilation):
    per spatial axis ``(n - 1) * s - k + 2`` plus the padding (SPEC WIN-8)."""
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    lhs = _permuted(lhs_shape, lhs_perm, "lhs_shape")
    rhs = _permuted(rhs_shape, rhs_perm, "rhs_shape")
    if isinstance(padding, str):
        padding = [_conv_transpose_padding(k, s, padding)
                   for k, s in zip(rhs[2:], window_strides)]
    totals = [np.sum(p) for p in padding]
    unpadded = [(n - 1) * s - k + 2 for n, k, s in zip(lhs[2:], rhs[2:], window_strides)]
    spatial = np.sum([unpadded, totals], axis=0).tolist()
    return _unpermuted((lhs[0], rhs[0]) + tuple(spatial), out_perm)


# ---------------------------------------------------------------------------
# conv_transpose (SPEC WIN-9)
# ---------------------------------------------------------------------------

def _conv_transpose_padding(k, s, padding):
    """(before, after) padding of the dilated input along one axis, for a
    kernel of (dilated) size ``k`` and stride ``s``: 'SAME' and 'VALID' as
    Keras' Conv2DTranspose, a pair as the forward convolution's padding."""
    if padding == "SAME":
        total = k + s - 2
        before = k - 1 if s > k - 1 else int(np.ceil(total / 2))
    elif padding == "VALID":
        total = k + s - 2 + builtins.max(k - s, 0)
        before = k - 1
    elif isinstance(padding, tuple):
        pads = tuple(k - p - 1 for p in padding)
        before, total = pads[0], builtins.sum(pads)
    else:
        raise ValueError(f"Invalid padding mode: {padding}")
    return before, total - before


_DEFAULT_LAYOUTS = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"),
                    4: ("NHWC", "HWIO", "NHWC"), 5: ("NHWDC", "HWDIO", "NHWDC")}


def conv_transpose(lhs, rhs, strides, padding, rhs_dilation=None,
                   dimension_numbers=None, transpose_kernel=False, precision=None,
                   preferred_element_type=None, use_consistent_padding=False):
    """A convolution of ``lhs`` dilated by ``strides`` (SPEC WIN-9).

    The default layouts are TensorFlow's (``NHWC``/``HWIO``).  'SAME' and
    'VALID' (and, with ``use_consistent_padding``, pairs) name the forward
    convolution's padding; otherwise pairs pad the dilated input directly.
    ``transpose_kernel`` flips the kernel's spatial axes and swaps its
    feature axes, giving the gradient of the forward convolution."""
    lhs_aval, rhs_aval = core.get_aval(lhs), core.get_aval(rhs)
    ndims = lhs_aval.ndim
    if ndims != rhs_aval.ndim or ndims < 2:
        raise TypeError("conv_transpose needs lhs and rhs of one rank, at least 2, "
                        f"got shapes {lhs_aval.shape} and {rhs_aval.shape}.")
    if dimension_numbers is None:
        if ndims not in _DEFAULT_LAYOUTS:
            raise ValueError("No 4+ dimensional dimension_number defaults.")
        dimension_numbers = _DEFAULT_LAYOUTS[ndims]
    dn = conv_dimension_numbers(lhs_aval.shape, rhs_aval.shape, dimension_numbers)
    kernel_spatial = [rhs_aval.shape[i] for i in dn.rhs_spec[2:]]
    if rhs_dilation is None:
        rhs_dilation = (1,) * (ndims - 2)
    if use_consistent_padding or (isinstance(padding, str)
                                  and padding in ("SAME", "VALID")):
        sizes = [0 if k == 0 else 1 + r * (k - 1)
                 for k, r in zip(kernel_spatial, rhs_dilation)]
        per_axis = [padding] * len(strides) if isinstance(padding, str) else padding
        pads = tuple(_conv_transpose_padding(k, s, p)
                     for k, s, p in zip(sizes, strides, per_axis))
    else:
        pads = padding
    if transpose_kernel:
        rhs = shapes.rev(rhs, tuple(dn.rhs_spec[2:]))
        perm = list(range(ndims))
        perm[dn.rhs_spec[0]], perm[dn.rhs_spec[1]] = dn.rhs_spec[1], dn.rhs_spec[0]
        rhs = shapes.transpose(rhs, tuple(perm))
    return conv_general_dilated(lhs, rhs, (1,) * (ndims - 2), pads, strides,
                                rhs_dilation, dn, precision=precision,
                                preferred_element_type=preferred_element_type)


# ---------------------------------------------------------------------------
# Patches and unshared convolutions (SPEC WIN-10)
# ---------------------------------------------------------------------------

def _moveaxes(x, src, dst):
    """``x`` with axes ``src`` moved to positions ``dst`` (one transpose)."""
    ndim = core.get_aval(x).ndim
    src = [core.canonicalize_axis(a, ndim) for a in src]
    dst = [core.canonicalize_axis(a, ndim) for a in dst]
    perm = [i for i in range(ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    if perm == list(range(ndim)):
        return x
    return shapes.transpose(x, tuple(perm))


def _one_hot_kernel(dtype, n_channels, filter_shape, rhs_spec):
    """The kernel whose output feature ``c * S + j`` copies element ``j`` of
    the window of input feature ``c`` (``S`` elements per window)."""
    size = math.prod(filter_shape)
    # The zero offset of the diagonal is added, as JAX's identity does.
    rows = lax.add(shapes.broadcasted_iota(np.int32, (size, size), 0), np.int32(0))
    eye = lax.convert_element_type(
        lax.eq(rows, shapes.broadcasted_iota(np.int32, (size, size), 1)), dtype)
    kernel = shapes.broadcast_in_dim(eye, (n_channels, size, size), (1, 2))
    kernel = shapes.reshape(kernel, (n_channels * size, 1) + tuple(filter_shape))
    return _moveaxes(kernel, (0, 1), (rhs_spec[0], rhs_spec[1]))


def conv_general_dilated_patches(lhs, filter_shape, window_strides, padding,
                                 lhs_dilation=None, rhs_dilation=None,
                                 dimension_numbers=None, precision=None,
                                 preferred_element_type=None):
    """The patches a convolution with a kernel of spatial shape
    ``filter_shape`` reads, flattened into the output feature axis as
    (input feature, window position...) (SPEC WIN-10)."""
    aval = core.get_aval(lhs)
    filter_shape = tuple(operator.index(d) for d in filter_shape)
    dn = conv_dimension_numbers(aval.shape, (1, 1) + filter_shape, dimension_numbers)
    n_channels = aval.shape[dn.lhs_spec[1]]
    kernel = _one_hot_kernel(aval.dtype, n_channels, filter_shape, dn.rhs_spec)
    return conv_general_dilated(
        lhs, kernel, window_strides, padding, lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation, dimension_numbers=dn,
        precision=None if precision is None else (precision, dot.Precision.DEFAULT),
        feature_group_count=n_channels, preferred_element_type=preferred_element_type)


def conv_general_dilated_local(lhs, rhs, window_strides, padding, filter_shape,
                               lhs_dilation=None, rhs_dilation=None,
                               dimension_numbers=None, precision=None):
    """An unshared convolution: each output position has its own kernel,
    ``rhs``'s spatial axes indexing output positions and its input feature
    axis holding (input feature, window position...) (SPEC WIN-10)."""
    aval = core.get_aval(lhs)
    canonical = dot._canon_precision(precision)
    if canonical is not None and not (isinstance(canonical, tuple)
                                      and len(canonical) == 2):
        raise ValueError("Unsupported precision for conv_general_dilated_local: "
                         f"{precision}")
    patches = conv_general_dilated_patches(
        lhs, filter_shape, window_strides, padding, lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation, dimension_numbers=dimension_numbers,
        precision=None if canonical is None else canonical[0])
    lhs_spec, rhs_spec, out_spec = conv_dimension_numbers(
        aval.shape, (1, 1) + tuple(filter_shape), dimension_numbers)
    lhs_batch = list(out_spec[2:])
    rhs_batch = [rhs_spec[2:][i] for i in sorted(range(len(lhs_batch)),
                                                 key=lambda k: lhs_batch[k])]
    dims = (([out_spec[1]], [rhs_spec[1]]), (sorted(lhs_batch), rhs_batch))
    out = dot.dot_general(patches, rhs, dimension_numbers=dims, precision=precision)
    return _moveaxes(out, (-2, -1), (out_spec[0], out_spec[1]))
