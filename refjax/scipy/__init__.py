"""``refjax.scipy``: SciPy-like functions, as ``jax.scipy``.

Only ``refjax.scipy.special`` exists so far. As in JAX it is a submodule to
import (``import jax.scipy.special``); refjax also loads it on first
attribute access, so ``refjax.scipy.special`` works after ``import refjax``
without making ``import refjax`` pay for it (SPEC PERF-4).
"""
import importlib


def __getattr__(name):
    if name == "special":
        return importlib.import_module("refjax.scipy.special")
    raise AttributeError(f"module 'refjax.scipy' has no attribute {name!r}")
