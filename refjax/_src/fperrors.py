"""Floating-point exceptions stay silent in kernels (SPEC LAX-10).

XLA never warns about overflow, division by zero or invalid operations: it
returns inf or nan.  NumPy warns unless its error state says otherwise, so
kernels run with NumPy's floating-point warnings off:

* ``quiet(fn, *args)`` calls one kernel that way (eager operations);
* ``silence()`` / ``restore(token)`` bracket a whole compiled program, so
  its kernels need no bracketing of their own (SPEC PERF-2).

With NumPy 2 this is one context-variable set and reset; ``np.errstate``
builds its state object anew on every entry, which costs as much as an
eager 8-element operation.  NumPy 1.x keeps the state elsewhere: there
``np.errstate`` / ``np.seterr`` are used.  Other backends (CuPy) never
warn, and NumPy's state does not affect them.
"""
import numpy as np

try:
    from numpy._core import _ufunc_config as _state
    _var = _state._extobj_contextvar
    _silent = _state._make_extobj(all="ignore")
except (ImportError, AttributeError):   # NumPy 1.x
    _var = None


if _var is not None:
    def quiet(fn, *args, **kwargs):
        """``fn(*args, **kwargs)`` with NumPy's floating-point warnings off."""
        token = _var.set(_silent)
        try:
            return fn(*args, **kwargs)
        finally:
            _var.reset(token)

    def silence():
        """Turn NumPy's floating-point warnings off; returns a token."""
        return _var.set(_silent)

    def restore(token):
        """Undo the ``silence()`` that returned ``token``."""
        _var.reset(token)
else:
    def quiet(fn, *args, **kwargs):
        """``fn(*args, **kwargs)`` with NumPy's floating-point warnings off."""
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)

    def silence():
        """Turn NumPy's floating-point warnings off; returns a token."""
        return np.seterr(all="ignore")

    def restore(token):
        """Undo the ``silence()`` that returned ``token``."""
        np.seterr(**token)
