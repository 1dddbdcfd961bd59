"""``jnp.vectorize``, ``jnp.apply_along_axis`` and ``jnp.apply_over_axes``:
NumPy's looping helpers, built on ``vmap`` so no Python loop runs over the
elements (SPEC VMAP-93, VMAP-94)."""
import functools
import re

import numpy as np

from refjax._src import core
from refjax._src.lax import misc_ops
from refjax._src.numpy import creation, lax_numpy
from refjax._src.vmap_api import vmap

_DIM = r"\w+"
_CORE = rf"\((?:{_DIM}(?:,{_DIM})*)?\)"
_ARGS = rf"{_CORE}(?:,{_CORE})*"
_SIGNATURE = re.compile(rf"^{_ARGS}->{_ARGS}$")


def _parse_signature(signature):
    """``'(m,n),(n)->(m)'`` -> ([('m', 'n'), ('n',)], [('m',)])."""
    signature = signature.replace(" ", "")
    if not _SIGNATURE.match(signature):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    ins, outs = signature.split("->")

    def cores(text):
        return [tuple(re.findall(_DIM, c)) for c in re.findall(_CORE, text)]
    return cores(ins), cores(outs)


def vectorize(pyfunc, *, excluded=frozenset(), signature=None):
    """``pyfunc`` applied over the leading (loop) axes of its arguments,
    broadcast against each other; ``signature`` names the trailing core
    axes each argument and output has (NumPy's gufunc signatures);
    ``excluded`` positions or keywords are passed through unchanged
    (SPEC VMAP-93)."""
    excluded = frozenset(excluded)
    for e in excluded:
        if not isinstance(e, (int, str)):
            raise TypeError(f"jax.numpy.vectorize can only exclude integer or string "
                            f"arguments, but excluded={excluded!r}")

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        context = (f"on vectorized function with excluded={excluded!r} and "
                   f"signature={signature!r}")
        func, args = _apply_excluded(pyfunc, excluded, args, kwargs)
        if signature is None:
            in_cores, out_cores = [()] * len(args), None
        else:
            in_cores, out_cores = _parse_signature(signature)
            if len(in_cores) != len(args):
                raise TypeError(f"wrong number of positional arguments: expected "
                                f"{len(in_cores)}, got {len(args)} {context}")
        args = [creation.asarray(a) for a in args]
        loop_shape, sizes = _loop_shape_and_core_sizes(args, in_cores, context)
        if out_cores is not None:
            func = _checked(func, sizes, out_cores, context)
        return _vectorized_call(func, args, in_cores, loop_shape)

    return wrapped


def _apply_excluded(pyfunc, excluded, args, kwargs):
    """``pyfunc`` with the excluded arguments bound, and the others."""
    extra = [k for k in kwargs if k not in excluded]
    if extra:
        raise TypeError(f"jax.numpy.vectorize maps positional arguments only: keyword "
                        f"argument {extra[0]!r} must be passed positionally or listed "
                        "in excluded")
    fixed = {i: args[i] for i in excluded if isinstance(i, int) and i < len(args)}
    dynamic = [a for i, a in enumerate(args) if i not in fixed]

    def func(*dyn):
        it = iter(dyn)
        full = [fixed[i] if i in fixed else next(it) for i in range(len(args))]
        return pyfunc(*full, **kwargs)
    return func, dynamic


def _loop_shape_and_core_sizes(args, in_cores, context):
    sizes, loop_shapes = {}, []
    for arg, cores in zip(args, in_cores):
        shape = np.shape(arg)
        if len(shape) < len(cores):
            raise ValueError(f"input with shape {shape} does not have enough dimensions "
                             f"for all core dimensions {cores} {context}")
        split = len(shape) - len(cores)
        for name, size in zip(cores, shape[split:]):
            if sizes.setdefault(name, size) != size:
                raise ValueError(f"inconsistent size for core dimension {name!r}: "
                                 f"{size} vs {sizes[name]} {context}")
        loop_shapes.append(shape[:split])
    # lax's broadcast: JAX's "Incompatible shapes for broadcasting" (SPEC NP-74).
    loop_shape = misc_ops.broadcast_shapes(*loop_shapes) if loop_shapes else ()
    return tuple(loop_shape), sizes


def _checked(func, sizes, out_cores, context):
    """``func`` checking its outputs' core shapes against the signature."""
    def checked(*args):
        out = func(*args)
        outs = out if isinstance(out, tuple) else (out,)
        if len(out_cores) != len(outs) or (len(out_cores) == 1) != (not isinstance(out, tuple)):
            got = len(outs) if isinstance(out, tuple) else 1
            raise TypeError(f"wrong number of output arguments: expected "
                            f"{len(out_cores)}, got {got} {context}")
        for o, cores in zip(outs, out_cores):
            shape = np.shape(o)
            expected = tuple(sizes.setdefault(n, s) for n, s in zip(cores, shape))
            if len(shape) != len(cores) or shape != expected:
                raise ValueError(f"output shape {shape} does not match core "
                                 f"dimensions {cores} {context}")
        return out
    return checked


def _vectorized_call(func, args, in_cores, loop_shape):
    """One ``vmap`` per loop axis, outermost first; an argument of size 1
    along a loop axis is not mapped over it (broadcasting)."""
    rank = len(loop_shape)
    squeezed, mapped = [], []
    for arg, cores in zip(args, in_cores):
        own = np.shape(arg)[:np.ndim(arg) - len(cores)]
        full = (1,) * (rank - len(own)) + own
        mapped.append([s != 1 for s in full])
        ones = tuple(i for i, s in enumerate(own) if s == 1)
        squeezed.append(lax_numpy.squeeze(arg, axis=ones) if ones else arg)
    expand = [d for d in range(rank) if not any(m[d] for m in mapped)]
    f = func
    for d in reversed(range(rank)):
        if d not in expand:
            f = vmap(f, in_axes=tuple(0 if m[d] else None for m in mapped))
    out = f(*squeezed)
    if not expand:
        return out
    grow = lambda r: lax_numpy.expand_dims(r, tuple(expand))  # noqa: E731
    return tuple(map(grow, out)) if isinstance(out, tuple) else grow(out)


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``func1d`` applied to every 1-D slice of ``arr`` along ``axis``; the
    axis is replaced by the dims of ``func1d``'s result (SPEC VMAP-94)."""
    arr = creation.asarray(arr)
    ndim = np.ndim(arr)
    axis = core.canonicalize_axis(axis, ndim)
    f = lambda x: func1d(x, *args, **kwargs)  # noqa: E731
    # Axes after ``axis`` (outermost = last axis) are delivered after the
    # result's dims; axes before it are mapped and delivered first.
    for i in range(1, ndim - axis):
        f = vmap(f, in_axes=i, out_axes=-1)
    for _ in range(axis):
        f = vmap(f, in_axes=0, out_axes=0)
    return f(arr)


def apply_over_axes(func, a, axes):
    """``func(a, axis)`` applied for each axis in turn, a removed axis put
    back with size 1 (SPEC VMAP-94)."""
    a = creation.asarray(a)
    for axis in axes:
        b = func(a, axis)
        if np.ndim(b) == np.ndim(a) - 1:
            b = lax_numpy.expand_dims(b, axis)
        elif np.ndim(b) != np.ndim(a):
            raise ValueError("function is not returning an array of the correct shape")
        a = b
    return a
