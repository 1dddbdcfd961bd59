"""The default backend: NumPy on the host CPU."""
import numpy as np

from refjax.backends import Backend
from refjax.backends.special_functions import FUNCTIONS as _SPECIAL


class NumpyBackend(Backend):
    name = "numpy"
    platform = "cpu"
    xp = np

    def asarray(self, value, dtype=None):
        return np.asarray(value, dtype=dtype)

    def to_host(self, array):
        return np.asarray(array)

    def is_array(self, value):
        return type(value) is np.ndarray or isinstance(value, np.ndarray)

    def device_count(self):
        return 1

    # jaxlib's CPU kernels call the LAPACK that SciPy ships (through
    # scipy.linalg.cython_lapack); calling the same routines gives JAX's
    # factorizations bit for bit, where NumPy's own LAPACK build differs.
    def lapack(self, name, dtype):
        prefix = {"float32": "s", "float64": "d", "complex64": "c",
                  "complex128": "z"}.get(np.dtype(dtype).name)
        try:
            from scipy.linalg import lapack
        except ImportError:
            return None
        return getattr(lapack, prefix + name, None) if prefix else None

    def device_kind(self):
        return "cpu"

    # np.ufunc.at is NumPy's unbuffered scatter: duplicates accumulate.
    def scatter_add(self, target, indices, updates):
        np.add.at(target, indices, updates)
        return target

    def scatter_mul(self, target, indices, updates):
        np.multiply.at(target, indices, updates)
        return target

    def scatter_min(self, target, indices, updates):
        np.minimum.at(target, indices, updates)
        return target

    def scatter_max(self, target, indices, updates):
        np.maximum.at(target, indices, updates)
        return target

    def lexsort(self, keys):
        return np.lexsort(keys, axis=-1)

    def reduce(self, op, x, axes):
        return getattr(np, op).reduce(x, axis=tuple(axes))

    def cumulative(self, op, x, axis):
        return getattr(np, op).accumulate(x, axis=axis)

    def special(self, name):
        return _SPECIAL[name]
