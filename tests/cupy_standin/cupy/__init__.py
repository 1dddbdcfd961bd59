"""A NumPy-backed STAND-IN for CuPy.  This is not CuPy and runs on no GPU.

It exists so that refjax's CuPy code paths (``backends/cupy_backend.py`` and
every kernel reached through ``backend.get().xp``) can be exercised on a
machine without CUDA.  It is activated by ``REFJAX_CUPY_STANDIN=1`` (the
root ``conftest.py`` puts this directory first on ``sys.path``) and is never
installed.

What it reproduces from real CuPy, because refjax code must respect it:

* ``ndarray`` is *not* a ``numpy.ndarray``: ``numpy.asarray(x)`` raises
  CuPy's TypeError (implicit device-to-host conversion is refused); the
  explicit ways out are ``x.get()`` and ``cupy.asnumpy(x)``.
* kernels refuse ``numpy.ndarray`` operands (``Unsupported type``); only
  ``cupy.asarray``/``cupy.array`` copy host data over.  NumPy and Python
  scalars are accepted, as CuPy does.
* reductions and integer indexing return 0-d arrays, never NumPy scalars;
  there is no ``__index__``, no ``tobytes`` and no ``flags.writeable``.
* only the names real CuPy exports exist (the list was taken from CuPy's
  ``cupy/__init__.py``); ``ufunc.reduce``/``accumulate`` exist only for
  ``add`` and ``multiply``; ``ufunc.at`` only where CuPy has a scatter op;
  ``lexsort`` takes at most 2-D keys; ``cupy.vectorize`` is refused (CuPy's
  compiles Python to CUDA and cannot call ``math`` functions).
* dtypes CuPy lacks (``float8_*``, ``int4``, ...) are refused; ``bfloat16``
  is accepted, as in CuPy 15 with ``ml_dtypes`` installed.
* ``cupy.cuda.Device(i)`` switches the current device among two simulated
  GPUs; arrays remember the device they were made on (``x.device.id``),
  and copying one under ``with Device(j)`` puts the copy on ``j``.

What it cannot tell: kernel speed, CUDA numerics (it computes with NumPy),
streams, memory limits.  A pass here is not a GPU run.
"""
import numpy as _np

from cupy import cuda  # noqa: F401 - the subpackage, as in CuPy
from cupy._standin import (  # noqa: F401
    ndarray, asnumpy, get_array_module, wrap_namespace, ufunc, _wrap, _unwrap)

__version__ = "0.0.0+standin"
STANDIN = True

wrap_namespace(globals())

from cupy import linalg  # noqa: E402,F401  (after the namespace is built)
from cupy import random  # noqa: E402,F401
from cupy import fft  # noqa: E402,F401
