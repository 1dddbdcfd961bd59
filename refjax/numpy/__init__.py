"""``refjax.numpy``: the NumPy-like API, as ``jax.numpy``.

This module holds the names, each imported from the ``refjax._src`` module
that defines it; their rules live there.
"""
import sys as _sys

# NumPy's abstract scalar hierarchy and dtype constructor are shared.
from numpy import (  # noqa: F401
    character, complexfloating, dtype, flexible, floating, generic, inexact,
    integer, number, object_, signedinteger, unsignedinteger,
)
from numpy import e, euler_gamma, inf, nan, newaxis, pi  # noqa: F401
# NumPy's own helpers that JAX re-exports unchanged.
from numpy import (  # noqa: F401
    get_printoptions, index_exp, iterable, printoptions, s_, set_printoptions,
)

from refjax._src import dtypes as _dtypes
from refjax._src.array import Array as ndarray
from refjax._src.numpy import array_methods as _array_methods
from refjax._src.numpy.contractions import (  # noqa: F401
    cross, diag, diagflat, diagonal, dot, einsum, indices, inner, kron, matmul,
    meshgrid, outer, tensordot, trace, tri, tril, triu, vdot, vecdot,
)
from refjax._src.numpy.creation import (  # noqa: F401
    arange, array, asarray, empty, empty_like, eye, full, full_like, identity,
    linspace, ones, ones_like, zeros, zeros_like,
)
from refjax._src.numpy.index_tricks import (  # noqa: F401
    diag_indices, diag_indices_from, ix_, place, put, put_along_axis, ravel_multi_index,
    tril_indices, tril_indices_from, triu_indices, triu_indices_from, unravel_index,
)
from refjax._src.numpy.lax_numpy import (  # noqa: F401
    allclose, append, argwhere, array_equal, array_equiv, array_split, astype,
    atleast_1d, atleast_2d, atleast_3d, bincount, broadcast_arrays, broadcast_shapes,
    broadcast_to, choose, column_stack, concat, concatenate, copy, dsplit,
    dstack, expand_dims, flatnonzero, flip, fliplr, flipud, hsplit, hstack, isclose,
    iscomplexobj, isrealobj, isscalar, matrix_transpose, moveaxis, ndim, nonzero,
    permute_dims, ravel, repeat, reshape, roll, rollaxis, rot90, select, shape, size,
    split, squeeze, stack, swapaxes, take, take_along_axis, tile, transpose, unstack,
    vsplit, vstack, where,
)
from refjax._src.numpy.padding import pad  # noqa: F401
from refjax._src.numpy.reductions import (  # noqa: F401
    all, amax, amin, any, argmax, argmin, average, count_nonzero, cumprod, cumsum,
    cumulative_prod, cumulative_sum, max, mean, median, min, nanargmax, nanargmin,
    nancumprod, nancumsum, nanmax, nanmean, nanmedian, nanmin, nanpercentile, nanprod,
    nanquantile, nanstd, nansum, nanvar, percentile, prod, ptp, quantile, std, sum, var,
)
from refjax._src.numpy.scalar_types import scalar_types as _scalar_types
from refjax._src.numpy.signal import (  # noqa: F401
    convolve, correlate, diff, ediff1d,
)
from refjax._src.numpy.sorting import (  # noqa: F401
    argpartition, argsort, compress, lexsort, partition, searchsorted, sort, unique, unique_all,
    unique_counts, unique_inverse, unique_values,
)
from refjax._src.numpy.ufuncs import (  # noqa: F401
    abs, absolute, acos, acosh, add, angle, arccos, arccosh, arcsin, arcsinh, arctan,
    arctan2, arctanh, around, asin, asinh, atan, atan2, atanh, bitwise_and,
    bitwise_count, bitwise_invert, bitwise_left_shift, bitwise_not, bitwise_or,
    bitwise_right_shift, bitwise_xor, cbrt, ceil, clip, conj, conjugate, copysign, cos,
    cosh, deg2rad, degrees, divide, divmod, equal, exp, exp2, expm1, fabs, float_power,
    floor, floor_divide, fmax, fmin, fmod, frexp, frompyfunc, gcd, greater,
    greater_equal, heaviside, hypot, imag, invert, iscomplex, isfinite, isinf, isnan,
    isneginf, isposinf, isreal, lcm, ldexp, left_shift, less, less_equal, log, log10,
    log1p, log2, logaddexp, logaddexp2, logical_and, logical_not, logical_or,
    logical_xor, maximum, minimum, mod, modf, multiply, nan_to_num, negative, nextafter,
    not_equal, positive, pow, power, rad2deg, radians, real, reciprocal, remainder,
    right_shift, rint, round, sign, signbit, sin, sinc, sinh, spacing, sqrt, square,
    subtract, tan, tanh, true_divide, trunc, ufunc,
)
from refjax._src.numpy.vectorize import (  # noqa: F401
    apply_along_axis, apply_over_axes, vectorize,
)
from refjax.numpy import fft, linalg  # noqa: F401
from refjax._src.numpy.setops import (  # noqa: F401
    intersect1d, isin, setdiff1d, setxor1d, union1d,
)
from refjax._src.numpy.statistics import (  # noqa: F401
    corrcoef, cov, digitize, gradient, histogram, histogram2d, histogram_bin_edges,
    histogramdd, interp, piecewise, trapezoid, unwrap,
)
from refjax._src.numpy.array_api import (  # noqa: F401
    __array_api_version__, __array_namespace_info__,
)
from refjax._src.numpy.host_io import (  # noqa: F401
    ComplexWarning, array_repr, array_str, from_dlpack, frombuffer, fromfile,
    fromfunction, fromiter, fromstring, load, packbits, save, savez, unpackbits,
)
from refjax._src.numpy.polynomial import (  # noqa: F401
    poly, polyadd, polyder, polydiv, polyfit, polyint, polymul, polysub, polyval, roots,
)
from refjax._src.numpy.products import (  # noqa: F401
    einsum_path, matvec, vecmat,
)
from refjax._src.numpy.windows import (  # noqa: F401
    bartlett, blackman, geomspace, hamming, hanning, i0, kaiser, logspace,
)
from refjax._src.numpy.editing import (  # noqa: F401
    block, delete, extract, fill_diagonal, insert, resize, sort_complex, trim_zeros, vander,
)
from refjax._src.numpy.index_grids import (  # noqa: F401
    c_, mask_indices, mgrid, ogrid, r_,
)

# The scalar types (jnp.float32, jnp.int8...): callables that make arrays.
globals().update(_scalar_types)

promote_types = _dtypes.promote_types


def result_type(*args):
    """The dtype ``args`` promote to (SPEC DT-4); unlike the internal
    ``dtypes.result_type``, no keyword arguments, as in JAX."""
    return _dtypes.result_type(*args)


issubdtype = _dtypes.issubdtype
iinfo = _dtypes.iinfo
finfo = _dtypes.finfo
can_cast = _dtypes.can_cast


isdtype = _dtypes.isdtype


# Operators and methods of Array bind to the names above: installed last.
_array_methods.install(_sys.modules[__name__])
