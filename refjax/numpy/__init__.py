"""``refjax.numpy``: the NumPy-like API, as ``jax.numpy``.

This module holds the names; their rules live in ``refjax._src``.
"""
import numpy as _np

from refjax._src import dtypes as _dtypes
from refjax._src.array import Array as ndarray
from refjax._src.numpy_creation import (  # noqa: F401
    arange, array, asarray, empty, empty_like, eye, full, full_like, identity,
    linspace, ones, ones_like, zeros, zeros_like,
)
from refjax._src.scalar_types import scalar_types as _scalar_types

globals().update(_scalar_types)

# NumPy's abstract scalar hierarchy and dtype constructor are shared.
from numpy import (  # noqa: E402,F401
    character, complexfloating, dtype, flexible, floating, generic, inexact,
    integer, number, object_, signedinteger, unsignedinteger,
)
from numpy import e, euler_gamma, inf, nan, newaxis, pi  # noqa: E402,F401
# NumPy's own helpers that JAX re-exports unchanged.
from numpy import (  # noqa: E402,F401
    get_printoptions, index_exp, iterable, printoptions, s_, set_printoptions,
)

promote_types = _dtypes.promote_types
result_type = _dtypes.result_type
issubdtype = _dtypes.issubdtype
iinfo = _dtypes.iinfo
finfo = _dtypes.finfo
can_cast = _dtypes.can_cast


def isdtype(dtype, kind):
    """Array-API ``isdtype`` (``'real floating'``, ``'integral'``, ...)."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    dt = _dtypes.to_dtype(dtype)
    for k in kinds:
        if isinstance(k, str):
            parent = {"bool": _np.bool_, "signed integer": _np.signedinteger,
                      "unsigned integer": _np.unsignedinteger,
                      "integral": _np.integer, "real floating": _np.floating,
                      "complex floating": _np.complexfloating,
                      "numeric": _np.number}.get(k)
            if parent is None:
                raise ValueError(f"Unrecognized {k=!r}")
            if _dtypes.issubdtype(dt, parent) and not (k == "numeric" and dt == _np.bool_):
                return True
        elif _dtypes.to_dtype(k) == dt:
            return True
    return False

# Each implementation module lists its public names in __all__.
from refjax._src.numpy.ufuncs import *  # noqa: E402,F401,F403
from refjax._src.numpy.reductions import *  # noqa: E402,F401,F403
from refjax._src.numpy.lax_numpy import *  # noqa: E402,F401,F403
from refjax._src.numpy.vectorize import (  # noqa: E402,F401
    apply_along_axis, apply_over_axes, vectorize,
)

# Operators and methods of Array come last: they bind to the names above.
from refjax._src.numpy import array_methods as _array_methods  # noqa: E402

import sys as _sys  # noqa: E402
_array_methods.install(_sys.modules[__name__])
from refjax.numpy import linalg  # noqa: E402,F401
from refjax.numpy import fft  # noqa: E402,F401
