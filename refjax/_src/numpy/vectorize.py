"""``jnp.vectorize``, ``jnp.apply_along_axis`` and ``jnp.apply_over_axes``:
NumPy's looping helpers, built on ``vmap`` so no Python loop runs over the
elements (SPEC VMAP-93, VMAP-94)."""
import functools
import re
import warnings

import numpy as np

from refjax._src import config, core
from refjax._src.lax import misc_ops
from refjax._src.lax import shapes as lax_shapes
from refjax._src.numpy import creation
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
    ``excluded`` positions or keywords are passed through unchanged, and so
    is a ``None`` argument with no core axes (SPEC VMAP-93, NP-212 ..
    NP-215)."""
    if any(not isinstance(e, (int, str)) for e in excluded):
        raise TypeError(f"jax.numpy.vectorize can only exclude integer or string "
                        f"arguments, but excluded={excluded!r}")
    if any(isinstance(e, int) and e < 0 for e in excluded):
        raise ValueError(f"excluded={excluded!r} contains negative numbers")
    context = (f"on vectorized function with excluded={excluded!r} and "
               f"signature={signature!r}")
    excluded_set = frozenset(excluded)

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        func, args = _apply_excluded(pyfunc, excluded_set, args, kwargs)
        if signature is None:
            in_cores, out_cores = [()] * len(args), None
        else:
            in_cores, out_cores = _parse_signature(signature)
            if len(in_cores) != len(args):
                raise TypeError(f"wrong number of positional arguments: expected "
                                f"{len(in_cores)}, got {len(args)} {context}")
        func, args, in_cores = _pass_none_through(func, args, in_cores, signature)
        args = [creation.asarray(a) for a in args]
        loop_shape, sizes = _loop_shape_and_core_sizes(args, in_cores, context)
        if out_cores is not None:
            func = _checked(func, sizes, out_cores, context)
        _check_rank_promotion(args, in_cores, signature)
        return _vectorized_call(func, args, in_cores, loop_shape)

    return wrapped


def _apply_excluded(pyfunc, excluded, args, kwargs):
    """``pyfunc`` with the excluded arguments bound, and the others."""
    extra = [k for k in kwargs if k not in excluded]
    if extra:
        raise TypeError(f"jax.numpy.vectorize maps positional arguments only: keyword "
                        f"argument {extra[0]!r} must be passed positionally or listed "
                        "in excluded")
    return _bind_positions(pyfunc, excluded, args, kwargs)


def _bind_positions(pyfunc, positions, args, kwargs=None):
    """``pyfunc`` with ``args`` at ``positions`` bound, and the other args."""
    fixed = {i: args[i] for i in positions if isinstance(i, int) and i < len(args)}
    dynamic = [a for i, a in enumerate(args) if i not in fixed]

    def func(*dyn):
        it = iter(dyn)
        full = [fixed[i] if i in fixed else next(it) for i in range(len(args))]
        return pyfunc(*full, **(kwargs or {}))
    return func, dynamic


def _pass_none_through(func, args, in_cores, signature):
    """A ``None`` argument is bound, not vectorized (SPEC NP-212); it must
    have no core axes."""
    nones = {i for i, a in enumerate(args) if a is None}
    # JAX 0.10.2 tests ``any(nones)``: a None only at position 0 is not
    # bound, and then fails as an array.
    if not any(nones):
        return func, args, in_cores
    if any(in_cores[i] for i in nones):
        raise ValueError(f"Cannot pass None at locations {nones} with {signature=}")
    func, args = _bind_positions(func, nones, args)
    return func, args, [c for i, c in enumerate(in_cores) if i not in nones]


def _check_rank_promotion(args, in_cores, signature):
    """Loop ranks that differ (scalars aside) are rank promotion, which
    ``jax_numpy_rank_promotion`` may forbid or warn about (SPEC NP-215)."""
    mode = config.numpy_rank_promotion.value
    if mode == "allow":
        return
    ranks = {np.ndim(a) - len(c) for a, c in zip(args, in_cores) if np.ndim(a) != 0}
    if len(ranks) < 2:
        return
    msg = (f"operands with shapes {[np.shape(a) for a in args]} require rank promotion "
           f"for jnp.vectorize function with signature {signature}. Set the "
           "jax_numpy_rank_promotion config option to 'allow' to disable this message; "
           "for more information, see "
           "https://docs.jax.dev/en/latest/rank_promotion_warning.html.")
    if mode == "raise":
        raise ValueError(msg)
    warnings.warn(msg, stacklevel=4)


def _loop_shape_and_core_sizes(args, in_cores, context):
    sizes, loop_shapes = {}, []
    for arg, cores in zip(args, in_cores):
        shape = np.shape(arg)
        if len(shape) < len(cores):
            raise ValueError(f"input with shape {shape} does not have enough dimensions "
                             f"for all core dimensions {cores} {context}")
        split = len(shape) - len(cores)
        _record_core_sizes(sizes, cores, shape[split:], context)
        loop_shapes.append(shape[:split])
    # lax's broadcast: JAX's "Incompatible shapes for broadcasting" (SPEC NP-74).
    loop_shape = misc_ops.broadcast_shapes(*loop_shapes) if loop_shapes else ()
    return tuple(loop_shape), sizes


def _record_core_sizes(sizes, cores, core_shape, context):
    """Note each core dimension's size in ``sizes``; a second, different
    size for the same name is a ValueError."""
    for name, size in zip(cores, core_shape):
        if sizes.setdefault(name, size) != size:
            raise ValueError(f"inconsistent size for core dimension {name!r}: "
                             f"{size} vs {sizes[name]} {context}")


def _checked(func, in_sizes, out_cores, context):
    """``func`` checking its outputs against the signature: a tuple when
    several are expected, the right count, the right rank, then each core
    size consistent with the inputs' (SPEC NP-214)."""
    def checked(*args):
        out = func(*args)
        if len(out_cores) > 1 and not isinstance(out, tuple):
            raise TypeError(f"output must be a tuple when multiple outputs are "
                            f"expected, got: {out!r}\n{context}")
        outs = out if isinstance(out, tuple) else (out,)
        if len(outs) != len(out_cores):
            raise TypeError(f"wrong number of output arguments: expected "
                            f"{len(out_cores)}, got {len(outs)} {context}")
        sizes = dict(in_sizes)
        for o, cores in zip(outs, out_cores):
            shape = np.shape(o)
            if len(shape) != len(cores):
                raise ValueError(f"output shape {shape} does not match core "
                                 f"dimensions {cores} {context}")
            _record_core_sizes(sizes, cores, shape, context)
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
        squeezed.append(lax_shapes.squeeze(arg, ones) if ones else arg)
    expand = [d for d in range(rank) if not any(m[d] for m in mapped)]
    f = func
    for d in reversed(range(rank)):
        if d not in expand:
            f = vmap(f, in_axes=tuple(0 if m[d] else None for m in mapped))
    out = f(*squeezed)
    if not expand:
        return out
    grow = lambda r: lax_shapes.expand_dims(r, tuple(expand))  # noqa: E731
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
            b = lax_shapes.expand_dims(creation.asarray(b), (axis,))
        elif np.ndim(b) != np.ndim(a):
            raise ValueError("function is not returning an array of the correct shape")
        a = b
    return a
