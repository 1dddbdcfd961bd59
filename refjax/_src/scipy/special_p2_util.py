"""Small helpers shared by ``special_integrals`` and the ``special_p2_*``
modules: Horner evaluation with constant tables, dtype checks and the
float16/bfloat16 upcast (SPEC SPC-30)."""
import numpy as np

from refjax._src import dtypes
from refjax._src.lax import lax
from refjax._src.nn import numpy_ops as jnp


def polyval(coefs, x):
    """``coefs[0] x**(k-1) + ... + coefs[k-1]`` by Horner's rule, the
    coefficients taken as strong constants of ``x``'s dtype.

    The accumulator starts at ``0`` of ``x``'s shape, as ``jnp.polyval``
    does, so an infinite ``x`` gives NaN here too (``0 * inf``)."""
    dtype = jnp.dtype_of(x)
    acc = lax.full_like(x, 0)
    for c in coefs:
        acc = acc * x + np.array(c, dtype)
    return acc


def reject_complex(name, x, message=None):
    """JAX's ``ValueError`` for a complex argument of a real function."""
    if dtypes.issubdtype(jnp.dtype_of(x), np.complexfloating):
        raise ValueError(message or f"{name} does not support complex-valued inputs.")


def in_float32_if_half(fun, x):
    """``fun(x)`` for float32/float64 ``x``; other floats (float16,
    bfloat16) are computed in float32 and rounded back, since the tables
    overflow or lose all accuracy in half precision (SPEC SPC-30)."""
    dtype = jnp.dtype_of(x)
    if dtype in (np.float32, np.float64):
        return fun(x)
    out = fun(lax.convert_element_type(x, np.float32))
    if isinstance(out, tuple):
        return tuple(lax.convert_element_type(o, dtype) for o in out)
    return lax.convert_element_type(out, dtype)
