"""Argument checking and promotion shared by ``jax.numpy`` (SPEC NP-1, NP-2).

NumPy-style functions accept array-likes (arrays, NumPy values, Python
scalars), promote them to a common dtype with JAX's lattice (weak scalars
defer to arrays), and broadcast ranks by adding leading size-1 axes before
binding a ``lax`` primitive, which itself requires equal ranks.

Also here: the small building blocks the jnp modules share — constants of an
operand's dtype (``_const``), ``full_like`` without a creation routine,
NumPy broadcasting (``broadcast_shapes``, ``_broadcast_arrays``) and the
jitted ``_where`` that ``jnp.where`` and many jnp functions stage as
``jit[name=_where]`` (SPEC NP-2).
"""
import warnings

import numpy as np

from refjax._src import api
from refjax._src import config as _config
from refjax._src import core, dtypes, placement, tree_util
from refjax._src.array import Array, ArrayImpl
from refjax._src.core import Tracer
from refjax._src.devices import Device
from refjax._src.lax import lax
from refjax._src.lax import shapes as lax_shapes
from refjax._src.mesh import Sharding

_SCALAR_TYPES = core._SCALAR_TYPES


# ---------------------------------------------------------------------------
# Checking arguments
# ---------------------------------------------------------------------------

def check_jit_arrays(fun_name, *args):
    """The array arguments of a function JAX runs under jit are read before
    its static ones are hashed: a leaf that is no JAX value (``...``, a
    string) is that TypeError first (SPEC NP-72).  An empty list passes, as
    an empty pytree does in JAX."""
    for arg in args:
        for leaf in tree_util.tree_leaves(arg):
            if hasattr(leaf, "shape") and hasattr(leaf, "dtype"):
                continue
            try:
                core.get_aval(leaf)
            except TypeError:
                raise TypeError(
                    f"Error interpreting argument to {fun_name} as an abstract array. "
                    f"The problematic value is of type {type(leaf)}; pass an array "
                    "or a Python scalar.") from None


def check_static(*values):
    """Hash the static arguments of a ``jax.numpy`` function (flags, modes,
    ``keepdims``) as JAX's jit does: an unhashable one (a list, an array) is
    JAX's ValueError "Non-hashable static arguments are not supported"
    (SPEC NP-72)."""
    for value in values:
        api._Static(value)


def check_hashable_params(**params):
    """Parameters that end up on a primitive (``out_sharding``,
    ``unique_indices``) must be hashable; an unhashable one is a TypeError,
    JAX's class (SPEC NP-72, IDX-38)."""
    for name, value in params.items():
        try:
            hash(value)
        except TypeError as e:
            raise TypeError(f"{e}: the {name} argument must be a hashable value "
                            f"(got {value!r}).") from None


def check_method_order(order):
    """``ravel`` and the ``x.reshape`` method word a bad ``order`` as NumPy's
    ValueError, before anything else (SPEC NP-72)."""
    if not (isinstance(order, str) and order in ("C", "F", "A")):
        raise ValueError(f"Unexpected value for 'order' argument: {order}.")


def check_device(device):
    """A ``device=`` JAX turns into a sharding is None, a Device or a
    Sharding; anything else is JAX's ValueError ``sharding=... must be an
    instance of jax.sharding.Sharding`` (SPEC NP-71)."""
    if device is not None and not isinstance(device, (Device, Sharding)):
        raise ValueError(f"sharding={device!r} must be an instance of "
                         "jax.sharding.Sharding")


def place_on_device(x, device):
    """``x`` committed to ``device`` (checked by ``check_device``), as by
    ``jax.device_put``; ``x`` itself when ``device`` is None."""
    check_device(device)
    return x if device is None else placement.device_put(x, device)


def check_arraylike(fun_name, *args):
    """TypeError naming ``fun_name`` for a non-array argument (lists included)."""
    for pos, arg in enumerate(args):
        if type(arg) is ArrayImpl:
            continue
        if not core.is_array_like(arg):
            raise TypeError(f"{fun_name} requires ndarray or scalar arguments, got "
                            f"{type(arg)} at position {pos}.")
        if getattr(arg, "dtype", None) == dtypes.float0:
            raise TypeError(f"Called {fun_name} with a float0 array. "
                            + dtypes.FLOAT0_NO_OPERATIONS.format(comma=""))


def check_arraylike_unjitted(fun_name, *args):
    """JAX's own check for functions it does not jit: NumPy counts text as a
    scalar, so a string passes and fails later in ``asarray`` (a dtype's
    name: ValueError, other text: TypeError) (SPEC NP-74)."""
    check_arraylike(fun_name, *[0 if np.isscalar(a) else a for a in args])


def check_arraylike_or_none(fun_name, *args):
    for pos, arg in enumerate(args):
        if arg is not None and not core.is_array_like(arg):
            raise TypeError(f"{fun_name} requires ndarray, scalar, or None "
                            f"arguments, got {type(arg)} at position {pos}.")


asarray = lax.asarray


def ensure_arraylike(fun_name, *args):
    """``check_arraylike`` then ``asarray``: one Array, or a tuple of them."""
    check_arraylike(fun_name, *args)
    if len(args) == 1:
        return asarray(args[0])
    return tuple(asarray(a) for a in args)


def _shape_of(x):
    """``x``'s shape, without building an aval for a concrete array."""
    if type(x) is ArrayImpl and x._buffer is not None:
        return x._buffer.shape
    return _aval(x).shape


def _aval(x):
    """The aval of ``x``, skipping ``get_aval``'s dispatch for the common kinds."""
    if isinstance(x, Tracer):
        return x.aval
    return core.get_aval(x)


# ---------------------------------------------------------------------------
# Dtype promotion
# ---------------------------------------------------------------------------

_ARRAYS = (ArrayImpl, Tracer)


def _same_type_arrays(args):
    """Whether every argument is an Array of one dtype and weak type: then
    promotion changes nothing (the common ``x * y`` case, kept cheap)."""
    first = args[0]
    if not isinstance(first, _ARRAYS):
        return False
    key = (first.dtype, first.weak_type)
    if key == (dtypes.bool_, True):
        return False            # promotion makes weak booleans strong
    return all(isinstance(a, _ARRAYS) and (a.dtype, a.weak_type) == key
               for a in args[1:])


def _result_type(args):
    """``dtypes.result_type`` with the weak flag, memoized on the argument
    kinds (dtype and weak type of arrays, type of Python scalars)."""
    key = []
    for a in args:
        t = type(a)
        if t in _SCALAR_TYPES:
            key.append(t)
        elif isinstance(a, _ARRAYS):
            key.append((a.dtype, a.weak_type))
        else:
            return dtypes.result_type(*args, return_weak_type_flag=True)
    key.append(dtypes.x64_enabled())
    key.append(_config.numpy_dtype_promotion.value)
    key = tuple(key)
    hit = _RESULT_TYPES.get(key)
    if hit is None:
        hit = _RESULT_TYPES[key] = dtypes.result_type(*args, return_weak_type_flag=True)
    return hit


_RESULT_TYPES = {}


def promote_dtypes(*args):
    """Convert ``args`` to their common JAX dtype (weak only if all are weak)."""
    if len(args) < 2:
        return [asarray(a) for a in args]
    if _same_type_arrays(args):
        return list(args)
    try:
        to_dtype, weak = _result_type(args)
    except TypeError:
        if _same_extended_dtype(args):
            return list(args)    # key arrays meet only their own kind (RNG-7)
        raise
    return [lax._convert_element_type(a, to_dtype, weak) for a in args]


def _extended_dtypes(args):
    """The dtypes of ``args`` if one of them is extended (a key), else None."""
    if not any(isinstance(a, Array) and dtypes.is_extended(a.dtype) for a in args):
        return None
    return [core.get_aval(a).dtype for a in args]


def _same_extended_dtype(args):
    found = _extended_dtypes(args)
    return found is not None and all(d == found[0] for d in found)


def promote_dtypes_inexact(*args):
    """Like ``promote_dtypes``, then to an inexact dtype (``to_inexact_dtype``)."""
    if _same_type_arrays(args) and args[0].dtype.kind in "fc":
        return list(args)       # the hot path of float functions
    to_dtype, weak = _result_type(args)
    to_dtype = to_inexact_dtype(to_dtype)
    return [lax._convert_element_type(a, to_dtype, weak) for a in args]


def promote_dtypes_numeric(*args):
    """Like ``promote_dtypes``, with bool promoted to int32."""
    if _same_type_arrays(args) and args[0].dtype != dtypes.bool_:
        return list(args)
    to_dtype, weak = _result_type(args)
    to_dtype = to_numeric_dtype(to_dtype)
    return [lax._convert_element_type(a, to_dtype, weak) for a in args]


def promote_dtypes_complex(*args):
    """Like ``promote_dtypes``, then to the matching complex dtype."""
    to_dtype, weak = _result_type(args)
    to_dtype = to_complex_dtype(to_dtype)
    return [lax._convert_element_type(a, to_dtype, weak) for a in args]


_WIDE_INTS = (np.dtype(np.int64), np.dtype(np.uint64))


def to_inexact_dtype(dtype):
    """``dtype`` if inexact; 64-bit integers become float64 and every other
    integer or bool float32, whatever ``jax_enable_x64`` says (SPEC NP-2).
    A PRNG key dtype has no inexact counterpart: TypeError (SPEC NP-72)."""
    if isinstance(dtype, dtypes.ExtendedDType):
        raise TypeError(f"Cannot interpret '{dtype.name}' as a data type")
    if dtypes.issubdtype(dtype, np.inexact):
        return dtype
    return np.dtype(np.float64) if dtype in _WIDE_INTS else np.dtype(np.float32)


def to_numeric_dtype(dtype):
    """``dtype``, except bool becomes int32 (even with x64 on)."""
    return np.dtype(np.int32) if dtype == dtypes.bool_ else dtype


def to_complex_dtype(dtype):
    """complex128 for 64-bit types, complex64 for the rest."""
    inexact = to_inexact_dtype(dtype)
    if inexact in (np.dtype(np.float64), np.dtype(np.complex128)):
        return np.dtype(np.complex128)
    return np.dtype(np.complex64)


# ---------------------------------------------------------------------------
# Shape promotion and broadcasting
# ---------------------------------------------------------------------------

def promote_shapes(fun_name, *args):
    """Give lower-rank operands leading size-1 axes (NumPy rank promotion).

    Nothing changes when all ranks are equal, or when at most one rank other
    than 0 occurs (primitives broadcast rank-0 operands).  Otherwise every
    operand, scalars included, is raised to the largest rank.  Honours
    ``jax_numpy_rank_promotion`` ('allow', 'warn', 'raise').
    """
    if len(args) < 2:
        return [asarray(a) for a in args]
    shapes = [_shape_of(a) for a in args]
    first = len(shapes[0])
    if all(len(s) == first for s in shapes[1:]):
        return [asarray(a) for a in args]
    nonscalar = {len(s) for s in shapes if s}
    if len(nonscalar) < 2:
        return [asarray(a) for a in args]
    mode = _config.numpy_rank_promotion.value
    if mode != "allow":
        _rank_promotion_warning_or_error(fun_name, shapes, mode)
    rank = len(broadcast_shapes(*shapes))
    return [lax_shapes.broadcast_to_rank(asarray(a), rank) for a in args]


def _rank_promotion_warning_or_error(fun_name, shapes, mode):
    listed = " ".join(str(s) for s in shapes)
    if mode == "warn":
        warnings.warn(
            f"Following NumPy automatic rank promotion for {fun_name} on shapes "
            f"{listed}. Set the jax_numpy_rank_promotion config option to "
            "'allow' to disable this warning; for more information, see "
            "https://docs.jax.dev/en/latest/rank_promotion_warning.html.",
            stacklevel=4)
    else:
        raise ValueError(
            f"Operands could not be broadcast together for {fun_name} on shapes "
            f"{listed} and with the config option jax_numpy_rank_promotion="
            "'raise'. For more information, see "
            "https://docs.jax.dev/en/latest/rank_promotion_warning.html.")


def broadcast_shapes(*shapes):
    """The NumPy broadcast of ``shapes``; ValueError if they are incompatible."""
    shapes = [tuple(s) for s in shapes]
    if not shapes:
        return ()
    rank = max(len(s) for s in shapes)
    padded = [(1,) * (rank - len(s)) + s for s in shapes]
    out = []
    for sizes in zip(*padded):
        big = {d for d in sizes if d != 1}
        if len(big) > 1:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={list(shapes)}")
        out.append(big.pop() if big else 1)
    return tuple(out)


def _broadcast_to(x, shape):
    """``lax.broadcast_to``: ``broadcast_in_dim`` onto the trailing axes."""
    shape = tuple(shape)
    x = asarray(x)
    old = _aval(x).shape
    if old == shape:
        return x
    nlead = len(shape) - len(old)
    if nlead < 0 or any(d not in (1, s) for d, s in zip(old, shape[nlead:])):
        raise ValueError(f"Incompatible shapes for broadcasting: {old} and "
                         f"requested shape {shape}")
    return lax_shapes.broadcast_in_dim(x, shape, tuple(range(nlead, len(shape))))


def _broadcast_arrays(*args):
    """Broadcast every argument to the common shape (NumPy rules)."""
    shapes = [_aval(a).shape for a in args]
    if not shapes or all(s == shapes[0] for s in shapes):
        return [asarray(a) for a in args]
    shape = broadcast_shapes(*shapes)
    return [_broadcast_to(a, shape) for a in args]


def _uniform_arrays(args):
    """Whether every argument is a concrete array of one shape, dtype and
    weak type (not a weak boolean): then promotion changes nothing, and the
    eager ``x + y`` skips it (SPEC PERF-1)."""
    first = args[0]
    if type(first) is not ArrayImpl or first._buffer is None:
        return False
    key = (first._buffer.shape, first._dtype, first.weak_type)
    if key[1] == dtypes.bool_ and key[2]:
        return False            # promotion makes weak booleans strong
    for a in args[1:]:
        if (type(a) is not ArrayImpl or a._buffer is None
                or (a._buffer.shape, a._dtype, a.weak_type) != key):
            return False
    return True


def _array_and_scalar(args):
    """``(x, 2)`` or ``(2.5, x)`` for a concrete float, complex or integer
    array ``x`` and a Python scalar whose kind does not lift ``x``'s dtype:
    the scalar is weak, so the result has ``x``'s dtype and weak type
    (SPEC DT-3) and only the scalar needs converting (SPEC PERF-1).
    None for anything else."""
    if len(args) != 2:
        return None
    first, second = args
    array, scalar = (first, second) if type(first) is ArrayImpl else (second, first)
    if type(array) is not ArrayImpl or type(scalar) not in (int, float):
        return None
    kind = array._dtype.kind
    if not (kind in "fc" or (kind in "iu" and type(scalar) is int)):
        return None
    converted = lax._scalar_array(scalar, array._dtype, array.weak_type)
    if converted is None:
        return None
    return (array, converted) if array is first else (converted, array)


def promote_args(fun_name, *args):
    """check_arraylike, promote_dtypes and promote_shapes, in that order."""
    if _uniform_arrays(args):
        return args
    fast = _array_and_scalar(args)
    if fast is not None:
        return fast
    check_arraylike(fun_name, *args)
    found = _check_no_mixed_keys(fun_name, args)
    try:
        promoted = promote_dtypes(*args)
    except TypeError:
        if found is None:
            raise
        names = ", ".join(d.name for d in found)
        raise TypeError(f"{fun_name} does not accept dtypes {names}.") from None
    return promote_shapes(fun_name, *promoted)


def _check_no_mixed_keys(fun_name, args):
    """A key meeting another dtype in a jnp function is that function's
    TypeError, before any promotion (SPEC RNG-7); returns the operands'
    dtypes when one is a key."""
    found = _extended_dtypes(args)
    if found is not None and not all(d == found[0] for d in found):
        names = ", ".join(d.name for d in found)
        raise TypeError(f"{fun_name} does not accept dtypes {names}.")
    return found


def huge_ints_as_floats(args):
    """``args`` with each Python int beyond the 64-bit integer range made a
    float: a JAX function that is not jitted converts its operands with
    NumPy, which takes such an int as a float, where a jitted one raises
    OverflowError (SPEC SPC-1, RNG-34)."""
    return [float(a) if type(a) is int and not -2**63 <= a < 2**64 else a for a in args]


def promote_args_inexact(fun_name, *args):
    check_arraylike(fun_name, *args)
    _check_no_mixed_keys(fun_name, args)
    return promote_shapes(fun_name, *promote_dtypes_inexact(*args))


def promote_args_inexact_unjitted(fun_name, *args):
    """``promote_args_inexact`` for functions JAX runs without ``jit``
    (``gelu``, ``logsumexp``): a Python int beyond int32 converts straight
    to the inexact dtype, as JAX's ``convert_element_type`` converts it,
    where a jitted function fails on it as an argument (SPEC NP-74)."""
    check_arraylike(fun_name, *args)
    _check_no_mixed_keys(fun_name, args)
    to_dtype, _ = _result_type(args)
    to_dtype = to_inexact_dtype(to_dtype)
    args = [lax.big_int_to(a, to_dtype) if type(a) is int and a not in _INT32 else a
            for a in args]
    return promote_args_inexact(fun_name, *args)


_INT32 = range(-2**31, 2**31)


def promote_args_numeric(fun_name, *args):
    check_arraylike(fun_name, *args)
    _check_no_mixed_keys(fun_name, args)
    return promote_shapes(fun_name, *promote_dtypes_numeric(*args))


def promote_args_complex(fun_name, *args):
    check_arraylike(fun_name, *args)
    _check_no_mixed_keys(fun_name, args)
    return promote_shapes(fun_name, *promote_dtypes_complex(*args))


# ---------------------------------------------------------------------------
# Constants and fills
# ---------------------------------------------------------------------------

def _const(x, value):
    """``value`` as a constant of ``x``'s dtype (a literal in jaxprs).

    When ``x`` is a weakly typed scalar (a Python scalar, or a weak rank-0
    array or tracer) the constant is a Python scalar of the same kind, so it
    stays weak; otherwise it is a strong NumPy scalar of ``x``'s dtype.
    """
    aval = _aval(x)
    if aval.weak_type and aval.shape == ():
        kind = dtypes.scalar_type_of(x) if type(x) not in _SCALAR_TYPES else type(x)
        value = kind(value)
        if dtypes.dtype_and_weak_type(value)[0] == aval.dtype:
            return value
    return np.array(value, aval.dtype)


def _full_like(x, fill_value, dtype=None, shape=None):
    """``lax.full_like``: ``fill_value`` broadcast to ``x``'s shape.

    Keeps ``x``'s weak type when no dtype is given; a scalar result is the
    converted constant itself (no equation).
    """
    aval = _aval(x)
    dt = aval.dtype if dtype is None else dtypes.canonicalize_dtype(dtypes.to_dtype(dtype))
    weak = dtype is None and aval.weak_type
    shape = aval.shape if shape is None else tuple(shape)
    fill = lax._convert_element_type(np.array(fill_value, dt), dt, weak)
    if not shape:
        return fill
    return lax_shapes.broadcast_in_dim(fill, shape, ())


def _zeros(x):
    return _full_like(x, 0)


def _ones(x):
    return _full_like(x, 1)


def _isnan(x):
    return lax.ne(x, x)


# ---------------------------------------------------------------------------
# where
# ---------------------------------------------------------------------------

def _where_impl(condition, x, y):
    """Elementwise ``x if condition else y`` after promotion and broadcasting.

    A non-boolean condition means ``condition != 0``; ``x`` and ``y`` are
    promoted to a common dtype; all three broadcast to one shape (a scalar
    condition is left as it is).  Staged as ``select_n``.
    """
    condition, x, y = ensure_arraylike("where", condition, x, y)
    if _aval(condition).dtype != dtypes.bool_:
        condition = lax.ne(condition, _const(condition, 0))
    x, y = promote_dtypes(x, y)
    if _aval(condition).shape == ():
        x, y = _broadcast_arrays(x, y)
    else:
        condition, x, y = _broadcast_arrays(condition, x, y)
    if 0 in _aval(x).shape:
        return x
    return lax.select(condition, x, y)


def _make_where():
    from refjax._src.api import jit

    def _where(condition, x, y):
        return _where_impl(condition, x, y)
    _where.__doc__ = _where_impl.__doc__
    return jit(_where)


_where = _make_where()


def check_where(name, where):
    """``where=`` of a reduction: None or a boolean array (SPEC NP-15)."""
    if where is None:
        return None
    where = ensure_arraylike(name, where)
    if _aval(where).dtype != dtypes.bool_:
        raise ValueError(f"jnp.{name}: where must be None or a boolean array; got "
                         f"where.dtype={_aval(where).dtype!r}.")
    return where
