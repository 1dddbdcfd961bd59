"""Operators, methods and properties of ``jax.Array`` (SPEC NP-4).

Both concrete arrays and tracers get them from the shared ``Array`` base
class, so ``x + 1`` is ``jnp.add(x, 1)`` whether or not ``x`` is traced.

Operator rules, as JAX's:

* A binary operator accepts Python scalars, NumPy values, Arrays and objects
  with ``__jax_array__``; any other operand (a list, a string, None) returns
  ``NotImplemented``, so Python tries the reflected operator and then raises
  its usual ``TypeError`` (for ``==``/``!=``: compares identities, False).
* ``==`` and ``!=`` with a list, tuple, dict or set raise ``TypeError``.
* ``x ** n`` is ``jnp.power``: a concrete integer ``n`` stages
  ``integer_pow[y=n]``, anything else ``pow``.
* ``round(x)`` rounds half to even and gives the default int dtype;
  ``round(x, n)`` keeps the dtype.
* ``v in x`` is ``jnp.any(x == v)`` for a 1-d ``x`` and a scalar ``v``.

Methods mirror JAX's signatures and call the ``jax.numpy`` function of the
same name (``x.sum(axis=0)`` is ``jnp.sum(x, axis=0)``).
"""
import operator

import numpy as np

from refjax._src import core, dtypes
from refjax._src.array import Array, ArrayImpl
from refjax._src.lax import gather_scatter, lax, shapes
from refjax._src.numpy import util

# The jax.numpy namespace, bound by install() once every module is loaded.
_jnp = None

# dunder -> (jax.numpy function name, swap operands)
_BINARY = {
    "__add__": ("add", False), "__radd__": ("add", True),
    "__sub__": ("subtract", False), "__rsub__": ("subtract", True),
    "__mul__": ("multiply", False), "__rmul__": ("multiply", True),
    "__truediv__": ("true_divide", False), "__rtruediv__": ("true_divide", True),
    "__floordiv__": ("floor_divide", False), "__rfloordiv__": ("floor_divide", True),
    "__mod__": ("mod", False), "__rmod__": ("mod", True),
    "__divmod__": ("divmod", False), "__rdivmod__": ("divmod", True),
    "__pow__": ("power", False), "__rpow__": ("power", True),
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

# Methods: name -> the jax.numpy function each one calls (see _method_table).
_METHODS = (
    "all", "any", "argmax", "argmin", "argpartition", "argsort", "astype",
    "byteswap", "choose", "clip", "compress", "conj", "conjugate", "copy",
    "cumprod", "cumsum", "diagonal", "dot", "flatten", "max", "mean", "min",
    "nonzero", "prod", "ptp", "ravel", "repeat", "reshape", "round",
    "searchsorted", "sort", "squeeze", "std", "sum", "swapaxes", "take",
    "to_device", "trace", "transpose", "var", "view",
)

_ACCEPTED_OPERANDS = (int, float, complex, np.generic, np.ndarray, Array)
_CONTAINERS = (dict, list, set, tuple)


# ---------------------------------------------------------------------------
# Operators
# ---------------------------------------------------------------------------

def _binary_op(jnp_fn, swap, symbol=None):
    """The dunder for ``jnp_fn``; ``symbol`` marks ==/!= (containers raise)."""
    def op(self, other):
        unwrap = getattr(other, "__jax_array__", None)
        if unwrap is not None:
            other = unwrap()
        if isinstance(other, _ACCEPTED_OPERANDS):
            return jnp_fn(other, self) if swap else jnp_fn(self, other)
        if symbol is not None and type(other) in _CONTAINERS:
            raise TypeError(f"unsupported operand type(s) for {symbol}: "
                            f"{type(self).__name__!r} and {type(other).__name__!r}")
        return NotImplemented
    op.__name__ = jnp_fn.__name__
    return op


def _unary_op(jnp_fn):
    def op(self):
        return jnp_fn(self)
    op.__name__ = jnp_fn.__name__
    return op


def _round_operator(number, ndigits=None):
    """``round(x)``: half to even, in the default int dtype; ``round(x, n)``
    keeps the dtype."""
    out = _jnp.round(number, decimals=ndigits or 0)
    if ndigits is None:
        return lax.convert_element_type(out, dtypes.default_int_dtype())
    return out


def _contains(self, other):
    """``other in self`` for a 1-d array and a scalar: ``any(self == other)``."""
    if other is None or isinstance(other, str):
        raise TypeError(f"Array.__contains__: unsupported operand type {type(other)}.")
    query = util.ensure_arraylike("Array.__contains__", other)
    if self.ndim != 1:
        raise ValueError("Array.__contains__: search array must be one-dimensional, "
                         f"got arr.shape={self.shape}.")
    if query.ndim != 0:
        raise ValueError("Array.__contains__: query value must be a scalar, got "
                         f"query.shape={query.shape!r}")
    return _jnp.any(self == query)


# ---------------------------------------------------------------------------
# Methods (signatures as JAX's)
# ---------------------------------------------------------------------------

def _all(self, axis=None, out=None, keepdims=False, *, where=None):
    return _jnp.all(self, axis=axis, out=out, keepdims=keepdims, where=where)


def _any(self, axis=None, out=None, keepdims=False, *, where=None):
    return _jnp.any(self, axis=axis, out=out, keepdims=keepdims, where=where)


def _argmax(self, axis=None, out=None, keepdims=None):
    return _jnp.argmax(self, axis=axis, out=out, keepdims=keepdims)


def _argmin(self, axis=None, out=None, keepdims=None):
    return _jnp.argmin(self, axis=axis, out=out, keepdims=keepdims)


def _argpartition(self, kth, axis=-1):
    return _jnp.argpartition(self, kth=kth, axis=axis)


def _argsort(self, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    return _jnp.argsort(self, axis=axis, kind=kind, order=order, stable=stable,
                        descending=descending)


def _astype(self, dtype, copy=False, device=None):
    return _jnp.astype(self, dtype, copy=copy, device=device)


def _byteswap(self):
    """The array with the bytes of each element reversed."""
    if dtypes.issubdtype(self.dtype, np.complexfloating):
        return lax.complex(_byteswap(self.real), _byteswap(self.imag))
    if self.dtype.itemsize == 1:
        return self.copy()
    as_bytes = lax.bitcast_convert_type(self, np.dtype("uint8"))
    return lax.bitcast_convert_type(shapes.rev(as_bytes, (self.ndim,)), self.dtype)


def _choose(self, choices, out=None, mode="raise"):
    return _jnp.choose(self, choices=choices, out=out, mode=mode)


def _clip(self, min=None, max=None):  # noqa: A002 - NumPy's names
    return _jnp.clip(self, min=min, max=max)


def _compress(self, condition, axis=None, *, out=None, size=None, fill_value=0):
    return _jnp.compress(condition, self, axis=axis, out=out, size=size,
                         fill_value=fill_value)


def _conj(self):
    return _jnp.conj(self)


def _conjugate(self):
    return _jnp.conjugate(self)


def _copy(self):
    return _jnp.copy(self) if hasattr(_jnp, "copy") else _jnp.array(self, copy=True)


def _cumprod(self, axis=None, dtype=None, out=None):
    return _jnp.cumprod(self, axis=axis, dtype=dtype, out=out)


def _cumsum(self, axis=None, dtype=None, out=None):
    return _jnp.cumsum(self, axis=axis, dtype=dtype, out=out)


def _diagonal(self, offset=0, axis1=0, axis2=1):
    return _jnp.diagonal(self, offset=offset, axis1=axis1, axis2=axis2)


def _dot(self, b, *, precision=None, preferred_element_type=None):
    return _jnp.dot(self, b, precision=precision,
                    preferred_element_type=preferred_element_type)


def _flatten(self, order="C"):
    return _jnp.ravel(self, order=order)


def _max(self, axis=None, out=None, keepdims=False, initial=None, where=None):
    return _jnp.max(self, axis=axis, out=out, keepdims=keepdims, initial=initial,
                    where=where)


def _mean(self, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    return _jnp.mean(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                     where=where)


def _min(self, axis=None, out=None, keepdims=False, initial=None, where=None):
    return _jnp.min(self, axis=axis, out=out, keepdims=keepdims, initial=initial,
                    where=where)


def _nonzero(self, *, fill_value=None, size=None):
    return _jnp.nonzero(self, size=size, fill_value=fill_value)


def _prod(self, axis=None, dtype=None, out=None, keepdims=False, initial=None,
          where=None, promote_integers=True):
    return _jnp.prod(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                     initial=initial, where=where, promote_integers=promote_integers)


def _ptp(self, axis=None, out=None, keepdims=False):
    return _jnp.ptp(self, axis=axis, out=out, keepdims=keepdims)


def _repeat(self, repeats, axis=None, *, total_repeat_length=None):
    return _jnp.repeat(self, repeats=repeats, axis=axis,
                       total_repeat_length=total_repeat_length)


def _reshape(self, *args, order="C"):
    """``x.reshape(2, 3)`` or ``x.reshape((2, 3))``; the shape is checked
    before ``order``, as by ``jnp.reshape``."""
    shape = args[0] if len(args) == 1 else args
    return _jnp.reshape(self, shape, order=order)


def _round(self, decimals=0, out=None):
    return _jnp.round(self, decimals=decimals, out=out)


def _searchsorted(self, v, side="left", sorter=None, *, method="scan"):
    return _jnp.searchsorted(self, v, side=side, sorter=sorter, method=method)


def _sort(self, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    return _jnp.sort(self, axis=axis, kind=kind, order=order, stable=stable,
                     descending=descending)


def _squeeze(self, axis=None):
    return _jnp.squeeze(self, axis=axis)


def _std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *,
         where=None, correction=None):
    return _jnp.std(self, axis=axis, dtype=dtype, out=out, ddof=ddof,
                    keepdims=keepdims, where=where, correction=correction)


def _sum(self, axis=None, dtype=None, out=None, keepdims=False, initial=None,
         where=None, promote_integers=True):
    # JAX 0.10.2's method accepts ``initial`` but does not pass it on.
    return _jnp.sum(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                    where=where, promote_integers=promote_integers)


def _swapaxes(self, axis1, axis2):
    return _jnp.swapaxes(self, axis1=axis1, axis2=axis2)


def _take(self, indices, axis=None, out=None, mode=None, unique_indices=False,
          indices_are_sorted=False, fill_value=None):
    return _jnp.take(self, indices, axis=axis, out=out, mode=mode,
                     unique_indices=unique_indices,
                     indices_are_sorted=indices_are_sorted, fill_value=fill_value)


def _to_device(self, device, *, stream=None):
    if stream is not None:
        raise NotImplementedError("stream argument of array.to_device()")
    from refjax._src.api import device_put
    return device_put(self, device)


def _trace(self, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    return _jnp.trace(self, offset=offset, axis1=axis1, axis2=axis2, dtype=dtype,
                      out=out)


def _transpose(self, *args):
    """``x.transpose()``, ``x.transpose(1, 0)`` or ``x.transpose((1, 0))``."""
    if not args:
        axes = None
    elif len(args) == 1:
        axes = None if args[0] is None else _index_tuple(args[0])
    else:
        axes = args
    return _jnp.transpose(self, axes)


def _index_tuple(x):
    """``x`` as a tuple of axes; ragged or non-integer entries are the
    TypeError of ``operator.index`` (SPEC NP-71)."""
    if isinstance(x, (list, tuple)):
        return tuple(operator.index(a) for a in x)
    return (x,) if np.ndim(x) == 0 else tuple(x)


def _var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *,
         where=None, correction=None):
    return _jnp.var(self, axis=axis, dtype=dtype, out=out, ddof=ddof,
                    keepdims=keepdims, where=where, correction=correction)


def _view(self, dtype=None, type=None):  # noqa: A002 - NumPy's name
    """Reinterpret the bits as ``dtype``, as NumPy's ``view`` does (SPEC
    NP-71): a smaller item size multiplies the last axis, a larger one
    divides it (the last axis' bytes must be a multiple of the new item
    size); a 0-d array keeps its item size."""
    if type is not None:
        raise NotImplementedError("`type` argument of array.view() is not supported.")
    if dtype is None:
        return self
    new = dtypes.check_user_dtype(dtype, "view")
    # Sizes in bits: int4/uint4 take half a byte here, as in JAX (SPEC NP-219).
    old_size, new_size = dtypes.itemsize_bits(self.dtype), dtypes.itemsize_bits(new)
    if old_size == new_size:
        return lax.bitcast_convert_type(self, new)
    if self.ndim == 0:
        raise ValueError("view() of a 0d array is only supported if the itemsize "
                         "is unchanged.")
    if _NIBBLE in (old_size, new_size):
        return _from_bytes(_to_bytes(self), new)
    return _view_bytes(self, new, old_size, new_size)


def _view_bytes(self, new, old_size, new_size):
    """``view`` between dtypes whose sizes are whole, different bytes."""
    *lead, last = self.shape
    if new_size < old_size:
        out = lax.bitcast_convert_type(self, new)
        return shapes.reshape(out, (*lead, last * old_size // new_size))
    if (last * old_size) % new_size:
        raise ValueError("When changing to a larger dtype, its size must be a divisor "
                         "of the total size in bytes of the last axis of the array.")
    grouped = shapes.reshape(self, (*lead, last * old_size // new_size,
                                    new_size // old_size))
    return lax.bitcast_convert_type(grouped, new)


_NIBBLE = 4      # bits of int4/uint4; two share one byte, low bits first


def _to_bytes(x):
    """The bytes of ``x`` as uint8 along a last axis (two 4-bit items make
    one byte, the first in the low bits)."""
    bits = dtypes.itemsize_bits(x.dtype)
    if bits != _NIBBLE:
        return _view(x, np.uint8)
    *lead, last = x.shape
    if last % 2:
        raise ValueError("When changing to a larger dtype, its size must be a divisor "
                         "of the total size in bytes of the last axis of the array.")
    nibbles = lax.bitwise_and(lax.convert_element_type(x, np.uint8), np.uint8(15))
    pairs = shapes.reshape(nibbles, (*lead, last // 2, 2))
    low = shapes.squeeze(shapes.slice_in_dim(pairs, 0, 1, axis=-1), (-1,))
    high = shapes.squeeze(shapes.slice_in_dim(pairs, 1, 2, axis=-1), (-1,))
    return lax.bitwise_or(low, lax.shift_left(high, np.uint8(_NIBBLE)))


def _from_bytes(b, new):
    """uint8 bytes along the last axis reinterpreted as ``new``."""
    if dtypes.itemsize_bits(new) != _NIBBLE:
        return _view(b, new)
    *lead, last = b.shape
    low = lax.bitwise_and(b, np.uint8(15))
    high = lax.shift_right_logical(b, np.uint8(_NIBBLE))
    pairs = shapes.concatenate([shapes.expand_dims(low, (-1,)),
                                shapes.expand_dims(high, (-1,))], len(lead) + 1)
    nibbles = shapes.reshape(pairs, (*lead, last * 2))
    if dtypes.issubdtype(new, np.signedinteger):      # the sign bit is bit 3
        signed = lax.convert_element_type(nibbles, np.int8)
        nibbles = lax.select(lax.ge(signed, np.int8(8)), lax.sub(signed, np.int8(16)), signed)
    return lax.convert_element_type(nibbles, new)


def _matrix_transpose_property(self):
    """``x.mT``: the last two axes swapped; fewer than two is a ValueError
    (SPEC NP-71)."""
    if self.ndim < 2:
        raise ValueError("x must be at least two-dimensional for matrix_transpose; "
                         f"got ndim={self.ndim}")
    return _jnp.swapaxes(self, -1, -2)


_METHOD_IMPLS = {
    "all": _all, "any": _any, "argmax": _argmax, "argmin": _argmin,
    "argpartition": _argpartition, "argsort": _argsort, "astype": _astype,
    "byteswap": _byteswap, "choose": _choose, "clip": _clip, "compress": _compress,
    "conj": _conj, "conjugate": _conjugate, "copy": _copy, "cumprod": _cumprod,
    "cumsum": _cumsum, "diagonal": _diagonal, "dot": _dot, "flatten": _flatten,
    "max": _max, "mean": _mean, "min": _min, "nonzero": _nonzero, "prod": _prod,
    "ptp": _ptp, "ravel": _flatten, "repeat": _repeat, "reshape": _reshape,
    "round": _round, "searchsorted": _searchsorted, "sort": _sort,
    "squeeze": _squeeze, "std": _std, "sum": _sum, "swapaxes": _swapaxes,
    "take": _take, "to_device": _to_device, "trace": _trace,
    "transpose": _transpose, "var": _var, "view": _view,
}

# The jax.numpy function a method needs (when it is not the method's name).
_NEEDS = {"flatten": "ravel", "ravel": "ravel", "byteswap": "copy",
          "to_device": "asarray", "view": "asarray", "conj": "conj",
          "copy": "array"}


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------

def _real(self):
    return _jnp.real(self)


def _imag(self):
    return _jnp.imag(self)


def _transpose_property(self):
    return _jnp.transpose(self)




def _flat(self):
    raise NotImplementedError("JAX Arrays do not implement the arr.flat property: "
                              "consider arr.flatten() instead.")


_PROPERTIES = {"real": (_real, "real"), "imag": (_imag, "imag"),
               "T": (_transpose_property, "transpose"),
               "mT": (_matrix_transpose_property, "swapaxes"),
               "flat": (_flat, None)}


# ---------------------------------------------------------------------------
# x.at[index]: functional updates (SPEC IDX-20 .. IDX-24)
# ---------------------------------------------------------------------------

class _IndexUpdateHelper:
    """``x.at``: ``x.at[index]`` names the positions of ``x[index]`` for an
    update method; nothing happens until one is called (SPEC IDX-20).

    Each method returns a new array and leaves ``x`` unchanged: ``set``,
    ``add``, ``subtract``, ``multiply`` (``mul``), ``divide``, ``power``,
    ``min``, ``max``, ``apply`` and ``get``.  Repeated positions all apply
    (``add`` accumulates).  Out-of-bounds updates are dropped unless
    ``mode='clip'``; ``get`` clamps unless ``mode='fill'``.
    """

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, index):
        return _IndexUpdateRef(self.array, index)

    def __repr__(self):
        return f"_IndexUpdateHelper({self.array!r})"


def _update_method(scatter_name, doc):
    """An update method binding ``lax.<scatter_name>`` through
    ``indexing.scatter_update``."""
    def method(self, values, *, indices_are_sorted=False, unique_indices=False,
               mode=None, out_sharding=None, wrap_negative_indices=True):
        from refjax._src.numpy import indexing
        return indexing.scatter_update(
            self.array, self.index, values, getattr(gather_scatter, scatter_name),
            indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
            mode=mode, normalize_indices=wrap_negative_indices)
    method.__doc__ = doc
    return method


class _IndexUpdateRef:
    """``x.at[index]``: the array and the index an update method applies to
    (SPEC IDX-20)."""

    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array = array
        self.index = index

    def __repr__(self):
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(self, *, indices_are_sorted=False, unique_indices=False, mode=None,
            fill_value=None, out_sharding=None, wrap_negative_indices=True):
        """``x[index]``, with out-of-bounds reads clamped (default,
        'clip', 'promise_in_bounds') or filled ('fill', 'drop') with
        ``fill_value`` (NaN, the most negative or largest integer, True)
        (SPEC IDX-22)."""
        from refjax._src.numpy import indexing
        return indexing.rewriting_take(
            self.array, self.index, indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices, mode=mode, fill_value=fill_value,
            normalize_indices=wrap_negative_indices)

    set = _update_method("scatter", "``x[index] = values``, functionally.")
    add = _update_method("scatter_add", "``x[index] += values``; repeated "
                         "positions all add.")
    subtract = _update_method("scatter_sub", "``x[index] -= values``.")
    multiply = _update_method("scatter_mul", "``x[index] *= values``.")
    mul = multiply
    min = _update_method("scatter_min", "``x[index] = minimum(x[index], values)``.")
    max = _update_method("scatter_max", "``x[index] = maximum(x[index], values)``.")

    def divide(self, values, *, indices_are_sorted=False, unique_indices=False,
               mode=None, out_sharding=None, wrap_negative_indices=True):
        """``x[index] /= values``: ``x`` divided by ``ones_like(x)`` with the
        values multiplied in, so integer arrays give floats (SPEC IDX-21)."""
        return _jnp.divide(self.array, self._on_ones(
            values, indices_are_sorted, unique_indices, mode, wrap_negative_indices))

    def power(self, values, *, indices_are_sorted=False, unique_indices=False,
              mode=None, out_sharding=None, wrap_negative_indices=True):
        """``x[index] **= values``: ``x`` to the power of ``ones_like(x)``
        with the exponents multiplied in (SPEC IDX-21)."""
        return _jnp.power(self.array, self._on_ones(
            values, indices_are_sorted, unique_indices, mode, wrap_negative_indices))

    def _on_ones(self, values, indices_are_sorted, unique_indices, mode, normalize):
        from refjax._src.numpy import indexing
        return indexing.scatter_update(
            _jnp.ones_like(self.array), self.index, values, gather_scatter.scatter_mul,
            indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
            mode=mode, normalize_indices=normalize)

    def apply(self, func, *, indices_are_sorted=False, unique_indices=False,
              mode=None, wrap_negative_indices=True):
        """``func.at(x, index)``: the unary ``func`` applied at each position,
        once per occurrence of a repeated one (SPEC IDX-21)."""
        from refjax._src.numpy import indexing

        def scatter_apply(x, indices, y, dnums, **kwargs):
            return gather_scatter.scatter_apply(x, indices, func, dnums,
                                         update_shape=core.get_aval(y).shape, **kwargs)
        zero = lax.full_like(self.array, 0, shape=())
        return indexing.scatter_update(
            self.array, self.index, zero, scatter_apply,
            indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
            mode=mode, normalize_indices=wrap_negative_indices)


def _at(self):
    return _IndexUpdateHelper(self)


# ---------------------------------------------------------------------------
# Installation
# ---------------------------------------------------------------------------

def install(jnp):
    """Attach the operators, methods and properties to ``Array``."""
    global _jnp
    _jnp = jnp
    for dunder, (name, swap) in _BINARY.items():
        symbol = "==" if dunder in ("__eq__", "__ne__") else None
        setattr(Array, dunder, _binary_op(getattr(jnp, name), swap, symbol))
    for dunder, name in _UNARY.items():
        setattr(Array, dunder, _unary_op(getattr(jnp, name)))
    Array.__round__ = _round_operator
    Array.__contains__ = _contains
    from refjax._src.numpy.indexing import getitem
    Array.__getitem__ = getitem
    for name in _METHODS:
        getattr(jnp, _NEEDS.get(name, name))  # fails loudly if jnp lacks it
        setattr(Array, name, _METHOD_IMPLS[name])
    for name, (getter, needs) in _PROPERTIES.items():
        if needs is not None:
            getattr(jnp, needs)
        setattr(Array, name, property(getter))
    Array.at = property(_at, doc=_IndexUpdateHelper.__doc__)
    # The array API entry point returns this namespace (SPEC NPP-14).
    from refjax._src.numpy.array_api import namespace_method
    Array.__array_namespace__ = namespace_method(jnp)
    # Arrays are unhashable; defining __eq__ on the base class would
    # otherwise re-enable the default hash through the subclasses.
    ArrayImpl.__hash__ = None
    core.Tracer.__hash__ = None
