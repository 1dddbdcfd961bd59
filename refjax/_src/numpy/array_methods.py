"""Operators and methods of ``jax.Array`` (SPEC NP-4).

Both concrete arrays and tracers get them from the shared ``Array`` base
class, so ``x + 1`` is ``jnp.add(x, 1)`` whether or not ``x`` is traced.
A binary operator with a non-array operand (a list, a string) returns
``NotImplemented`` so that Python raises its usual ``TypeError``.
"""
from refjax._src import core
from refjax._src.array import Array, ArrayImpl

# dunder -> (jax.numpy function name, swap operands)
_BINARY = {
    "__add__": ("add", False), "__radd__": ("add", True),
    "__sub__": ("subtract", False), "__rsub__": ("subtract", True),
    "__mul__": ("multiply", False), "__rmul__": ("multiply", True),
    "__truediv__": ("true_divide", False), "__rtruediv__": ("true_divide", True),
    "__floordiv__": ("floor_divide", False), "__rfloordiv__": ("floor_divide", True),
    "__mod__": ("remainder", False), "__rmod__": ("remainder", True),
    "__divmod__": ("divmod", False), "__rdivmod__": ("divmod", True),
    "__pow__": ("_power_operator", False), "__rpow__": ("_power_operator", True),
    "__matmul__": ("matmul", False), "__rmatmul__": ("matmul", True),
    "__and__": ("bitwise_and", False), "__rand__": ("bitwise_and", True),
    "__or__": ("bitwise_or", False), "__ror__": ("bitwise_or", True),
    "__xor__": ("bitwise_xor", False), "__rxor__": ("bitwise_xor", True),
    "__lshift__": ("left_shift", False), "__rlshift__": ("left_shift", True),
    "__rshift__": ("right_shift", False), "__rrshift__": ("right_shift", True),
    "__eq__": ("equal", False), "__ne__": ("not_equal", False),
    "__lt__": ("less", False), "__le__": ("less_equal", False),
    "__gt__": ("greater", False), "__ge__": ("greater_equal", False),
}

_UNARY = {
    "__neg__": "negative", "__pos__": "positive", "__abs__": "abs",
    "__invert__": "invert",
}

# method name -> jax.numpy function taking the array first
_METHODS = (
    "all", "any", "argmax", "argmin", "argpartition", "argsort", "clip",
    "conj", "conjugate", "cumprod", "cumsum", "diagonal", "dot", "max", "mean",
    "min", "nonzero", "prod", "ptp", "ravel", "repeat", "round",
    "searchsorted", "sort", "squeeze", "std", "sum", "swapaxes", "take",
    "trace", "var",
)


def _binary_op(jnp_fn, swap):
    def op(self, other):
        if not core.is_array_like(other):
            return NotImplemented
        return jnp_fn(other, self) if swap else jnp_fn(self, other)
    return op


def _method(jnp_fn):
    def method(self, *args, **kwargs):
        return jnp_fn(self, *args, **kwargs)
    method.__name__ = jnp_fn.__name__
    method.__doc__ = jnp_fn.__doc__
    return method


def install(jnp):
    """Attach the operators and methods, bound to the ``jax.numpy`` namespace."""
    for dunder, (name, swap) in _BINARY.items():
        if hasattr(jnp, name):  # BOOTSTRAP: every name must exist; drop this guard
            setattr(Array, dunder, _binary_op(getattr(jnp, name), swap))
    for dunder, name in _UNARY.items():
        if hasattr(jnp, name):  # BOOTSTRAP
            setattr(Array, dunder, _method(getattr(jnp, name)))
    for name in _METHODS:
        if hasattr(jnp, name):  # BOOTSTRAP
            setattr(Array, name, _method(getattr(jnp, name)))
    _install_named(jnp)
    # Arrays are unhashable; defining __eq__ on the base class would
    # otherwise re-enable the default hash through the subclasses.
    ArrayImpl.__hash__ = None
    core.Tracer.__hash__ = None


def _install_named(jnp):
    """Methods whose signature differs from their jax.numpy function's."""
    if not hasattr(jnp, "transpose"):  # BOOTSTRAP: drop once jnp is complete
        return
    Array.__round__ = lambda self, ndigits=None: jnp.round(self, ndigits or 0)
    Array.reshape = _reshape_method(jnp)
    Array.transpose = _transpose_method(jnp)
    Array.flatten = lambda self, order="C": jnp.ravel(self, order)
    Array.astype = lambda self, dtype, copy=False, device=None: jnp.astype(self, dtype)
    Array.copy = lambda self: jnp.array(self, copy=True)
    Array.view = _view
    Array.real = property(jnp.real)
    Array.imag = property(jnp.imag)
    Array.T = property(lambda self: jnp.transpose(self))
    Array.mT = property(lambda self: jnp.swapaxes(self, -1, -2))


def _reshape_method(jnp):
    def reshape(self, *args, order="C", **kwargs):
        shape = args[0] if len(args) == 1 else args
        if "shape" in kwargs:
            shape = kwargs.pop("shape")
        return jnp.reshape(self, shape, order=order)
    return reshape


def _transpose_method(jnp):
    def transpose(self, *args):
        axes = args[0] if len(args) == 1 else (args or None)
        return jnp.transpose(self, axes)
    return transpose


def _view(self, dtype=None, type=None):
    from refjax._src.lax import lax
    if type is not None:
        raise NotImplementedError("`type` argument of array.view() is not supported.")
    if dtype is None:
        return self
    return lax.bitcast_convert_type(self, dtype)
