"""``refjax.scipy``: SciPy-like functions, as ``jax.scipy``.

The submodules mirror ``jax.scipy``'s: ``special``, ``linalg``, ``stats``,
``signal``, ``fft``, ``optimize``, ``integrate``, ``interpolate``,
``ndimage``, ``sparse``, ``cluster`` (and ``spatial``, which JAX does not
list until imported).  As in JAX they are submodules to import
(``import jax.scipy.linalg``); refjax also loads each on first attribute
access, so ``refjax.scipy.linalg`` works after ``import refjax`` without
making ``import refjax`` pay for it (SPEC PERF-4).
"""
import importlib as _importlib

_SUBMODULES = ("cluster", "fft", "integrate", "interpolate", "linalg", "ndimage", "signal",
               "sparse", "special", "stats")


def __getattr__(name):
    if name in _SUBMODULES or name == "spatial":
        return _importlib.import_module(f"refjax.scipy.{name}")
    raise AttributeError(f"module 'refjax.scipy' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_SUBMODULES))
