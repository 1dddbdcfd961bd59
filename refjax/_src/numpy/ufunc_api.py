"""``jnp.ufunc`` objects and ``jnp.frompyfunc`` (SPEC NP-3, NP-206 .. NP-211).

A ufunc wraps an elementwise function and adds NumPy's methods: ``reduce``,
``accumulate``, ``outer``, ``at`` and ``reduceat``.  The built-in ufuncs
(``jnp.add``, ...; made in ``ufuncs``) bring their own call and, where jnp
has one, a faster method (``add.reduce`` is ``jnp.sum``).  Every other
method, and every method of a ``frompyfunc`` ufunc, is built here from
calls of the ufunc itself inside a loop, so a user function only ever sees
what NumPy's ``frompyfunc`` would give it: one element per input.
"""
import math
import operator
from functools import partial

import numpy as np

from refjax._src import core, dtypes
from refjax._src.api import eval_shape, jit
from refjax._src.lax import dynamic_slice as lax_dynamic_slice
from refjax._src.lax import lax
from refjax._src.lax import shapes as lax_shapes
from refjax._src.lax.control_flow.scan import fori_loop, scan
from refjax._src.numpy import util
from refjax._src.numpy.util import _full_like, _where
from refjax._src.numpy.vectorize import vectorize

__all__ = ["frompyfunc", "ufunc"]

_AT_INPLACE_WARNING = (
    "Because JAX arrays are immutable, jnp.ufunc.at() cannot operate inplace like\n"
    "np.ufunc.at(). Instead, you can pass inplace=False and capture the result; e.g.\n"
    ">>> arr = jnp.add.at(arr, ind, val, inplace=False)\n")


class ufunc:
    """A NumPy-style universal function: callable elementwise, with
    ``reduce``, ``accumulate``, ``outer``, ``at`` and ``reduceat`` for
    binary ones.  ``_func``, ``nin``, ``nout``, ``nargs`` and ``identity``
    are read-only (SPEC NP-206).

    ``call``, ``reduce``, ``accumulate``, ``at`` and ``reduceat`` are
    optional fast paths; without one, the method is built from calls of
    the ufunc (SPEC NP-207 .. NP-211).
    """

    def __init__(self, func, /, nin, nout, *, name=None, nargs=None, identity=None,
                 call=None, reduce=None, accumulate=None, at=None, reduceat=None):
        self.__doc__ = func.__doc__
        self.__name__ = name or func.__name__
        # Name-mangled: the public attributes below are properties without
        # setters, so a ufunc (a static jit argument) cannot change its hash.
        self.__props = {
            "func": func, "nin": operator.index(nin), "nout": operator.index(nout),
            "nargs": operator.index(nargs or nin), "identity": identity,
            "call": call, "reduce": reduce, "accumulate": accumulate, "at": at,
            "reduceat": reduceat,
        }

    _func = property(lambda self: self.__props["func"])
    nin = property(lambda self: self.__props["nin"])
    nout = property(lambda self: self.__props["nout"])
    nargs = property(lambda self: self.__props["nargs"])
    identity = property(lambda self: self.__props["identity"])

    def _key(self):
        return (self._func, self.__name__, self.identity, self.nin, self.nout, self.nargs)

    def __repr__(self):
        return f"<jnp.ufunc '{self.__name__}'>"

    def __hash__(self):
        return hash(self._key())

    def __eq__(self, other):
        return isinstance(other, ufunc) and self._key() == other._key()

    def __call__(self, *args, out=None, where=None):
        if out is not None or where is not None:
            # JAX's order (SPEC NP-72): the operands' kinds, where a string
            # still counts as a scalar (NumPy's ``isscalar``), then ``out``
            # and ``where``.
            util.check_arraylike(self.__name__, *[a if type(a) is not str else 0
                                                  for a in args])
            if out is not None:
                raise NotImplementedError(f"out argument of {self}")
            raise NotImplementedError(f"where argument of {self}")
        util.check_arraylike(self.__name__, *args)
        call = self.__props["call"] or self._call_vectorized
        return call(*args)

    @partial(jit, static_argnames=("self",))
    def _call_vectorized(self, *args):
        """``_func`` on each element of the broadcast operands (SPEC NP-207)."""
        return vectorize(self._func)(*args)

    def _check_binary(self, method):
        if self.nin != 2:
            raise ValueError(f"{method} only supported for binary ufuncs")
        if self.nout != 1:
            raise ValueError(f"{method} only supported for functions returning a single value")

    def _result_dtype(self, *arrays):
        """The dtype ``_func`` gives for one element of each of ``arrays``."""
        ones = [_full_like(x, 1, shape=()) for x in arrays]
        return eval_shape(self._func, *ones).dtype

    # -- reduce ---------------------------------------------------------------

    @partial(jit, static_argnames=("self", "axis", "dtype", "out", "keepdims"))
    def reduce(self, a, axis=0, dtype=None, out=None, keepdims=False, initial=None,
               where=None):
        """Reduce ``a`` along ``axis`` (default 0, as NumPy) with this function
        (SPEC NP-208)."""
        name = f"{self.__name__}.reduce"
        util.check_arraylike(name, a)
        self._check_binary("reduce")
        if out is not None:
            raise NotImplementedError(f"out argument of {name}()")
        if initial is not None:
            util.check_arraylike(name, initial)
        if where is not None:
            util.check_arraylike(name, where)
            if self.identity is None and initial is None:
                raise ValueError(f"reduction operation {self.__name__!r} does not have an "
                                 "identity, so to use a where mask one has to specify "
                                 "'initial'.")
            if util._aval(where).dtype != dtypes.bool_:
                raise ValueError("where argument must have dtype=bool; got "
                                 f"dtype={util._aval(where).dtype}")
        reduce = self.__props["reduce"] or self._reduce_via_loop
        return reduce(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial,
                      where=where)

    def _reduce_via_loop(self, arr, axis=0, dtype=None, keepdims=False, initial=None,
                         where=None):
        arr = util.asarray(arr)
        initial = self.identity if initial is None else initial
        dtype = self._result_dtype(arr, arr) if dtype is None else dtype
        shape = util._aval(arr).shape
        if where is not None:
            where = util._broadcast_to(where, shape)
        if isinstance(axis, tuple):
            for ax in axis:     # an axis out of range is reported first
                core.canonicalize_axis(ax, len(shape))
            raise NotImplementedError("tuple of axes")
        if axis is None:
            final_shape = (1,) * len(shape) if keepdims else ()
            arr, where, axis = _ravel(arr), _ravel(where), 0
        else:
            axis = core.canonicalize_axis(axis, len(shape))
            final_shape = shape[:axis] + ((1,) if keepdims else ()) + shape[axis + 1:]
        arr, where = _to_front(arr, axis), _to_front(where, axis)
        n = util._aval(arr).shape[0]
        if n == 0:
            if initial is None:
                raise ValueError(f"zero-size array to reduction operation {self.__name__} "
                                 "which has no identity")
            return lax.full(final_shape, initial, dtype)

        def step(i, acc):
            new = self(acc, lax.convert_element_type(arr[i], dtype))
            return new if where is None else _where(where[i], new, acc)

        start, acc = (1, arr[0]) if initial is None else (0, initial)
        acc = util._broadcast_to(lax.convert_element_type(util.asarray(acc), dtype),
                                 util._aval(arr).shape[1:])
        result = fori_loop(start, n, step, acc)
        return lax_shapes.reshape(result, final_shape) if keepdims else result

    # -- accumulate -----------------------------------------------------------

    @partial(jit, static_argnames=("self", "axis", "dtype"))
    def accumulate(self, a, axis=0, dtype=None, out=None):
        """Running reduction of ``a`` along ``axis`` (``add``: ``cumsum``)
        (SPEC NP-209)."""
        self._check_binary("accumulate")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.accumulate()")
        accumulate = self.__props["accumulate"] or self._accumulate_via_scan
        return accumulate(a, axis=axis, dtype=dtype)

    def _accumulate_via_scan(self, arr, axis=0, dtype=None):
        util.check_arraylike(f"{self.__name__}.accumulate", arr)
        arr = util.asarray(arr)
        dtype = self._result_dtype(arr, arr) if dtype is None else dtype
        if axis is None or isinstance(axis, tuple):
            raise ValueError("accumulate does not allow multiple axes")
        shape = util._aval(arr).shape
        axis = core.canonicalize_axis(axis, len(shape))
        if 0 in shape:
            return lax.full(shape, 0, dtype)
        arr = lax.convert_element_type(_to_front(arr, axis), dtype)

        def step(acc, x):
            acc = self(acc, x)
            return acc, acc

        _, rest = scan(step, arr[0], arr[1:])
        return _from_front(lax_shapes.concatenate([arr[:1], rest], 0), axis)

    # -- outer ----------------------------------------------------------------

    @partial(jit, static_argnums=(0,))
    def outer(self, A, B, /):
        """``f(a, b)`` for every pair: shape ``A.shape + B.shape``."""
        self._check_binary("outer")
        util.check_arraylike(f"{self.__name__}.outer", A, B)
        a, b = util.asarray(A), util.asarray(B)
        sa, sb = util._aval(a).shape, util._aval(b).shape
        a = lax_shapes.reshape(a, (math.prod(sa), 1))
        b = lax_shapes.reshape(b, (1, math.prod(sb)))
        return lax_shapes.reshape(self(a, b), sa + sb)

    # -- at -------------------------------------------------------------------

    @partial(jit, static_argnums=(0,), static_argnames=("inplace",))
    def at(self, a, indices, b=None, /, *, inplace=True):
        """``a`` with ``f`` applied at ``indices``, once per index, so a
        repeated index is updated repeatedly; ``inplace=False`` is required
        (SPEC NP-210)."""
        if inplace:
            raise NotImplementedError(_AT_INPLACE_WARNING)
        at = self.__props["at"] or self._at_via_loop
        return at(a, indices) if b is None else at(a, indices, b)

    def _at_via_loop(self, a, indices, *args):
        util.check_arraylike(f"{self.__name__}.at", a, *args)
        dtype = self._result_dtype(a, *args)
        a = lax.convert_element_type(util.asarray(a), dtype)
        args = [lax.convert_element_type(util.asarray(x), dtype) for x in args]
        indices = _index_tuple(a, indices)
        if not indices:
            return a
        shapes = [np.shape(i) for i in indices if not isinstance(i, slice)]
        shape = util.broadcast_shapes(*shapes)
        if not shape:
            ref = a.at[indices]
            return ref.set(self(ref.get(), *args))
        count = math.prod(shape)
        if args:
            tail = util._aval(args[0]).shape[len(shape):]
            args = [lax_shapes.reshape(util._broadcast_to(args[0], shape + tail),
                                       (count,) + tail)]
        flat = [i if isinstance(i, slice) else
                lax_shapes.reshape(util._broadcast_to(i, shape), (count,))
                for i in indices]

        def step(k, a):
            ref = a.at[tuple(i if isinstance(i, slice) else i[k] for i in flat)]
            return ref.set(self(ref.get(), *(x[k] for x in args)))

        return fori_loop(0, count, step, a)

    # -- reduceat -------------------------------------------------------------

    @partial(jit, static_argnames=("self", "axis", "dtype"))
    def reduceat(self, a, indices, axis=0, dtype=None, out=None):
        """Reductions of ``a`` over the slices ``indices[k]:indices[k+1]``
        along ``axis``, the last running to the end; where
        ``indices[k] >= indices[k+1]`` the result is ``a[indices[k]]``
        (SPEC NP-211)."""
        self._check_binary("reduceat")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.reduceat()")
        reduceat = self.__props["reduceat"] or self._reduceat_via_loop
        return reduceat(a, indices, axis=axis, dtype=dtype)

    def _reduceat_via_loop(self, a, indices, axis=0, dtype=None):
        util.check_arraylike(f"{self.__name__}.reduceat", a, indices)
        a, indices = util.asarray(a), util.asarray(indices)
        shape = util._aval(a).shape
        if not shape:
            raise ValueError(f"reduceat: a must have 1 or more dimension, got a.shape={shape}")
        if np.ndim(indices) != 1:
            raise ValueError("reduceat: indices must be one-dimensional, got "
                             f"indices.shape={np.shape(indices)}")
        if axis is None or isinstance(axis, (tuple, list)):
            raise ValueError("reduceat requires a single integer axis.")
        if util._aval(indices).dtype == dtypes.bool_:
            indices = lax.convert_element_type(indices, np.int32)   # as jnp.take reads them
        elif not np.issubdtype(util._aval(indices).dtype, np.integer):
            raise ValueError("indices must have an integer type")
        # ``dtype`` is accepted and not used: JAX 0.10.2 keeps ``a``'s dtype.
        axis = core.canonicalize_axis(axis, len(shape))
        n = shape[axis]
        if n == 0:
            raise IndexError(f"reduceat: cannot reduce along axis {axis} of a, which is "
                             f"empty (a.shape={shape})")
        out = a.at[(slice(None),) * axis + (indices,)].get(mode="fill")
        bounds = lax_shapes.concatenate(
            [indices, lax.full((1,), n, util._aval(indices).dtype)], 0)
        along = [1] * len(shape)
        along[axis] = np.shape(indices)[0]
        starts = lax_shapes.reshape(bounds[:-1], tuple(along))
        ends = lax_shapes.reshape(bounds[1:], tuple(along))

        def step(i, out):
            inside = (i > starts) & (i < ends)
            row = lax_dynamic_slice.dynamic_index_in_dim(a, i, axis, keepdims=True)
            return _where(inside, self(out, row), out)

        return fori_loop(0, n, step, out)


def _ravel(x):
    return None if x is None else lax_shapes.reshape(x, (math.prod(util._aval(x).shape),))


def _to_front(x, axis):
    """``x`` with ``axis`` moved to the front (``None`` stays ``None``)."""
    if x is None or axis == 0:
        return x
    rest = [d for d in range(util._aval(x).ndim) if d != axis]
    return lax_shapes.transpose(x, (axis, *rest))


def _from_front(x, axis):
    """Undo ``_to_front``: the leading axis goes back to ``axis``."""
    if axis == 0:
        return x
    perm = list(range(1, util._aval(x).ndim))
    perm.insert(axis, 0)
    return lax_shapes.transpose(x, tuple(perm))


def _index_tuple(a, indices):
    """``indices`` as a tuple of index entries, as array indexing reads them."""
    if isinstance(indices, tuple):
        return indices
    if isinstance(indices, list):
        a[indices]   # raises JAX's TypeError for a non-tuple sequence index
    return (indices,)


def frompyfunc(func, /, nin, nout, *, identity=None):
    """A ``ufunc`` calling ``func`` on one element of each input at a time
    (SPEC NP-207)."""
    return ufunc(func, nin, nout, identity=identity)
