"""JAX's dtypes: the promotion lattice, weak types and canonicalization.

The rules (SPEC DT-1 .. DT-12):

* Types live on a lattice (``_lattice``); the result of combining values is
  the least upper bound of their types.  Python scalars are *weak*: they sit
  low on the lattice as the nodes ``int``, ``float`` and ``complex`` and take
  on the dtype of whatever they meet (DT-3).
* With ``jax_enable_x64`` off, 64-bit dtypes are *canonicalized* to 32-bit
  ones (DT-5); asking for one explicitly warns (DT-6).
* ``promote_types`` returns the raw join (no canonicalization, Python types
  treated as weak, a weak result given its 64-bit default dtype);
  ``result_type`` canonicalizes and tracks weakness (DT-4).
"""
import functools
import warnings

import ml_dtypes
import numpy as np

from refjax._src import config as _config

__all__ = [
    "TypePromotionError", "bfloat16", "canonicalize_dtype", "float0",
    "finfo", "iinfo", "issubdtype", "itemsize_bits", "promote_types",
    "result_type", "scalar_type_of",
]


class TypePromotionError(ValueError):
    """Raised when no implicit promotion path joins the given dtypes."""


# --- the dtypes ----------------------------------------------------------

bool_ = np.dtype(np.bool_)
uint8, uint16, uint32, uint64 = map(np.dtype, ("uint8", "uint16", "uint32", "uint64"))
int8, int16, int32, int64 = map(np.dtype, ("int8", "int16", "int32", "int64"))
float16, float32, float64 = map(np.dtype, ("float16", "float32", "float64"))
complex64, complex128 = np.dtype("complex64"), np.dtype("complex128")
bfloat16 = np.dtype(ml_dtypes.bfloat16)

# Sub-byte integers and small floats: valid array dtypes that never promote
# implicitly (DT-9); the 1-bit integers and 6-bit floats too (SPEC NPP-1).
_NARROW_INT_NAMES = ("int1", "int2", "int4", "uint1", "uint2", "uint4")
_SMALL_FLOAT_NAMES = (
    "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "float8_e3m4",
    "float8_e4m3", "float8_e8m0fnu", "float8_e4m3b11fnuz", "float8_e4m3fn",
    "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz")
narrow_int_dtypes = tuple(np.dtype(getattr(ml_dtypes, n))
                          for n in _NARROW_INT_NAMES if hasattr(ml_dtypes, n))
small_float_dtypes = tuple(np.dtype(getattr(ml_dtypes, n))
                           for n in _SMALL_FLOAT_NAMES if hasattr(ml_dtypes, n))

# Extended dtypes (RNG-3): types whose values are not numbers, such as PRNG
# keys.  ``extended`` and ``prng_key`` are the scalar classes that
# ``issubdtype`` places them under, as in JAX; each concrete extended dtype
# is an instance of :class:`ExtendedDType` (not a ``np.dtype``).
class extended(np.generic):
    """Scalar class of every extended dtype (``jax.dtypes.extended``)."""


class prng_key(extended):
    """Scalar class of PRNG key dtypes (``jax.dtypes.prng_key``)."""


class ExtendedDType:
    """Base of dtype objects that NumPy does not know (``key<fry>``).

    Subclasses set ``type`` (a subclass of :class:`extended`) and ``name``.
    ``np.dtype(d)`` fails on them with NumPy's own message, which is the
    error JAX gives when a numeric operation meets a key.
    """

    type = extended
    kind = "V"
    # The trailing shape of one element's physical data: an array of this
    # dtype and shape ``s`` holds data of shape ``s + data_shape`` (a
    # threefry key: ``(2,)`` uint32 words).  Primitives' ``physical`` rules
    # extend their parameters over these axes (SPEC RNG-20).
    data_shape = ()

    def __repr__(self):
        return self.name

    def full(self, shape, fill_value):
        """An array of this dtype and ``shape`` filled with ``fill_value``:
        what ``jnp.zeros``/``ones``/``empty``/``full`` and their ``*_like``
        forms make for it (SPEC RNG-104).  Subclasses define it."""
        raise TypeError(f"Cannot create arrays of dtype {self.name}")


def is_extended(dtype):
    return isinstance(dtype, ExtendedDType)


# float0: the dtype of tangents of integer values (DT-11).
float0 = np.dtype([("float0", np.void, 0)])

# Any operation on a float0 value is refused, in JAX's words (DT-19).
FLOAT0_NO_OPERATIONS = (
    "float0s do not support any operations by design{comma} because they are not "
    "compatible with non-trivial vector spaces. No implicit dtype conversion is "
    "done. You can use np.zeros_like(arr, dtype=np.float) to cast a float0 array "
    "to a regular zeros array. \nIf you didn't expect to get a float0 you might "
    "have accidentally taken a gradient with respect to an integer argument.")

# The weak (Python scalar) lattice nodes are the Python types themselves.
weak_types = (int, float, complex)

_ml_float_dtypes = frozenset((bfloat16,) + small_float_dtypes)
_ml_int_dtypes = frozenset(narrow_int_dtypes)

_X64_TO_X32 = {int64: int32, uint64: uint32, float64: float32,
               complex128: complex64}


# --- the lattice ---------------------------------------------------------

def _lattice_edges(strict, x64):
    """Each type mapped to the types immediately above it."""
    if strict:
        # Only weak scalars promote; every concrete type stands alone.
        edges = {t: [] for t in _all_lattice_dtypes()}
        edges[int] = [float, bool_, uint8, uint16, uint32, uint64,
                      int8, int16, int32, int64, *narrow_int_dtypes]
        edges[float] = [complex, *small_float_dtypes, bfloat16, float16,
                        float32, float64]
        edges[complex] = [complex64, complex128]
        return edges
    edges = {
        bool_: [int],
        int: [uint8, int8, *narrow_int_dtypes],
        uint8: [int16, uint16], uint16: [int32, uint32],
        # u32 x i32 -> i64 would form a 64-bit type from 32-bit inputs; with
        # x64 off JAX joins them at i32 instead (DT-7).
        uint32: [int64, uint64] if x64 else [int32, uint64],
        uint64: [float],
        int8: [int16], int16: [int32], int32: [int64], int64: [float],
        float: [*small_float_dtypes, bfloat16, float16, complex],
        bfloat16: [float32], float16: [float32],
        float32: [float64, complex64], float64: [complex128],
        complex: [complex64], complex64: [complex128], complex128: [],
    }
    for t in narrow_int_dtypes + small_float_dtypes:
        edges[t] = []
    return edges


def _all_lattice_dtypes():
    return [bool_, uint8, uint16, uint32, uint64, int8, int16, int32, int64,
            *narrow_int_dtypes, *small_float_dtypes, bfloat16, float16,
            float32, float64, complex64, complex128]


@functools.lru_cache(maxsize=None)
def _upper_bounds(strict, x64):
    """Each type mapped to the set of all types at or above it."""
    edges = _lattice_edges(strict, x64)
    bounds = {}

    def above(t):
        if t not in bounds:
            bounds[t] = {t}.union(*(above(u) for u in edges[t]))
        return bounds[t]

    for t in edges:
        above(t)
    return bounds


def _least_upper_bound(types, strict, x64):
    """The join of ``types`` on the lattice, or TypePromotionError (DT-2)."""
    bounds = _upper_bounds(strict, x64)
    first, *rest = types
    common = set(bounds[first]).intersection(*(bounds[t] for t in rest))
    for candidate in common:
        if bounds[candidate] == common:
            return candidate
    raise TypePromotionError(_no_path_message(types, strict))


def _small_float_bits(dt):
    """8, 6 or 4 for the small floats (by their ``float<bits>_`` name)."""
    return int(dt.name[len("float")])


def _no_path_message(types, strict):
    # JAX names Python types by their str(): "<class 'float'>" (SPEC NPP-1).
    names = tuple(str(t) for t in types)
    concrete = [t for t in types if not isinstance(t, type)]
    small = {_small_float_bits(t) for t in concrete if t in _ml_float_dtypes - {bfloat16}}
    # JAX names the widest kind of small float present first (SPEC NPP-1).
    for bits in (8, 6, 4):
        if not strict and bits in small:
            return (f"Input dtypes {names} have no available implicit dtype "
                    f"promotion path. To avoid unintended promotion, {bits}-bit "
                    "floats do not support implicit promotion. If you'd like your "
                    "inputs to be promoted to another type, you can do so "
                    "explicitly using e.g. x.astype('float32')")
    if not strict and any(t in _ml_int_dtypes for t in concrete):
        return (f"Input dtypes {names} have no available implicit dtype "
                "promotion path. To avoid unintended promotion, 1-bit, 2-bit and "
                "4-bit integers do not support implicit promotion. If you'd like "
                "your inputs to be promoted to another type, you can do so "
                "explicitly using e.g. x.astype('int32')")
    if strict:
        return (f"Input dtypes {names} have no available implicit dtype "
                "promotion path when jax_numpy_dtype_promotion=strict. Try "
                "explicitly casting inputs to the desired output type, or set "
                "jax_numpy_dtype_promotion=standard.")
    return f"Input dtypes {names} have no available implicit dtype promotion path."


# --- canonicalization ----------------------------------------------------

def x64_enabled():
    return _config.enable_x64.value


def canonicalize_dtype(dtype, allow_extended_dtype=False):
    """The dtype JAX actually uses for ``dtype`` (DT-5): 64-bit types become
    32-bit ones unless ``jax_enable_x64`` is on.  No warning."""
    if isinstance(dtype, ExtendedDType):
        if allow_extended_dtype:
            return dtype
        raise TypeError(f"Cannot interpret '{dtype.name}' as a data type")
    dt = to_dtype(dtype)
    if not x64_enabled():
        return _X64_TO_X32.get(dt, dt)
    return dt


def default_int_dtype():
    return int64 if x64_enabled() else int32


def default_uint_dtype():
    return uint64 if x64_enabled() else uint32


def default_float_dtype():
    return float64 if x64_enabled() else float32


def default_complex_dtype():
    return complex128 if x64_enabled() else complex64


_WEAK_DEFAULTS = {int: default_int_dtype, float: default_float_dtype,
                  complex: default_complex_dtype, bool: lambda: bool_}


def check_user_dtype(dtype, fun_name, allow_extended=False):
    """Canonicalize a dtype the user asked for, warning if it shrinks (DT-6).

    ``None`` stays ``None``; the Python types ``int``/``float``/``complex``
    mean "the default dtype of that kind" and never warn.  An extended
    dtype (``key<fry>``) passes where ``allow_extended`` says the caller
    can make arrays of it (SPEC RNG-104), else is NumPy's TypeError.
    """
    if dtype is None:
        return None
    if allow_extended and isinstance(dtype, ExtendedDType):
        return dtype
    if isinstance(dtype, type) and dtype in _WEAK_DEFAULTS:
        return _WEAK_DEFAULTS[dtype]()
    dt = to_dtype(dtype)
    if not is_valid_jax_dtype(dt):
        raise TypeError(f"JAX only supports number, bool, and string dtypes, "
                        f"got dtype {dt} in {fun_name}")
    canonical = canonicalize_dtype(dt)
    if canonical != dt:
        _explicit_x64_request(dt, canonical, fun_name)
    return canonical


def _explicit_x64_request(dt, canonical, fun_name):
    """A 64-bit dtype asked for with x64 off: ``jax_explicit_x64_dtypes``
    says whether that warns (and truncates) or raises ValueError (SPEC
    CFG-23); ``fun_name`` None leaves out "requested in ..."."""
    where = "" if fun_name is None else f" requested in {fun_name}"
    mode = _config.states["jax_explicit_x64_dtypes"].value
    if mode == _config.ExplicitX64Mode.ERROR:
        raise ValueError(
            f"Explicitly requested dtype {dt}{where} is not available. To enable "
            "more dtypes, set the jax_enable_x64 or allow_explicit_x64_dtypes "
            "configuration options.See https://github.com/jax-ml/jax#current-gotchas "
            "for more.")
    warnings.warn(
        f"Explicitly requested dtype {dt}{where} is not "
        f"available, and will be truncated to dtype {canonical}. To enable "
        "more dtypes, set the jax_enable_x64 configuration option or the "
        "JAX_ENABLE_X64 shell environment variable. See "
        "https://github.com/jax-ml/jax#current-gotchas for more.",
        UserWarning, stacklevel=4)


# The array types (refjax Arrays, tracers) that may not stand for a dtype;
# array.py and core.py add theirs, since they import this module.
array_types = []


def to_dtype(dtype):
    """``np.dtype(dtype)``, also accepting refjax scalar types (``jnp.float32``).

    A refjax array in place of a dtype is JAX's ValueError, where NumPy
    would read its ``.dtype`` (SPEC NP-71)."""
    if isinstance(dtype, np.dtype):
        return dtype
    if array_types and isinstance(dtype, tuple(array_types)):
        raise ValueError("Passing an array as a dtype argument is no longer "
                         "supported; instead of dtype=arr use dtype=arr.dtype.")
    inner = getattr(dtype, "dtype", None)
    if isinstance(inner, np.dtype) and isinstance(dtype, type):
        return inner
    return np.dtype(dtype)


def is_valid_jax_dtype(dt):
    return dt.kind in "biufc" or dt in _ml_float_dtypes or dt in _ml_int_dtypes or dt == float0


# --- values: dtype and weak type -----------------------------------------

def is_python_scalar(x):
    return type(x) in _PYTHON_SCALAR_TYPES


_PYTHON_SCALAR_TYPES = frozenset((bool, int, float, complex))


def dtype_and_weak_type(x):
    """The (canonical dtype, weak_type) that ``x`` has as a JAX value (DT-3).

    Python scalars are weak (bool excepted); arrays report their own weak flag;
    NumPy arrays and scalars are strong.
    """
    t = type(x)
    if t in _PYTHON_SCALAR_TYPES:
        if t is bool:
            return bool_, False
        return _WEAK_DEFAULTS[t](), True
    weak = getattr(x, "weak_type", False)
    dt = getattr(x, "dtype", None)
    if x is None:       # JAX's np.dtype(None) error (SPEC DT-18)
        raise ValueError("Invalid argument to dtype: None.")
    if dt is None:
        for base in (bool, int, float, complex):    # an IntEnum member (TRC-8)
            if isinstance(x, base):
                return dtype_and_weak_type(base(x))
        raise TypeError(f"Cannot determine dtype of {x!r}")
    if isinstance(dt, ExtendedDType):
        return dt, False
    return canonicalize_dtype(dt), bool(weak)


def _lattice_node(x):
    """The lattice node of a value, dtype-like or Python type (for result_type)."""
    t = type(x)
    if t in _PYTHON_SCALAR_TYPES:
        return bool_ if t is bool else t
    if x is None:
        return float
    if isinstance(x, (int, float, complex)) and not hasattr(x, "dtype"):
        # an IntEnum member: its Python base type (TRC-8)
        return next(b for b in (int, float, complex) if isinstance(x, b))
    if isinstance(x, type) and x in _WEAK_DEFAULTS:
        return bool_ if x is bool else x
    dt = getattr(x, "dtype", None)
    if isinstance(dt, ExtendedDType) or isinstance(x, ExtendedDType):
        name = (dt or x).name
        raise TypeError(f"Cannot interpret '{name}' as a data type")
    if isinstance(dt, np.dtype) and not isinstance(x, type):
        # An array or scalar value: strong unless it says it is weak.
        dt = _check_promotable(dt, x)
        if getattr(x, "weak_type", False):
            return _weak_node_of(dt)
        return canonicalize_dtype(dt)
    if isinstance(x, (np.dtype, str, type)):
        return _check_promotable(check_user_dtype(x, "dtype"), x)
    raise TypeError(f"Cannot determine dtype of {x!r}")


def _check_promotable(dt, x):
    if not is_valid_jax_dtype(dt) or dt == float0:
        raise TypeError(f"Value '{x}' with dtype {dt} is not a valid JAX array "
                        "type. Only arrays of numeric types are supported by JAX.")
    return dt


def _weak_node_of(dt):
    if dt == bool_:
        return bool_
    kind = dt.kind if dt not in _ml_float_dtypes else "f"
    return {"i": int, "u": int, "f": float, "c": complex}.get(kind, dt)


def _node_to_dtype(node, canonical):
    if isinstance(node, type):
        return _WEAK_DEFAULTS[node]() if canonical else np.dtype(node)
    return canonicalize_dtype(node) if canonical else node


def _promotion_mode():
    return _config.numpy_dtype_promotion.value == "strict", x64_enabled()


def result_type(*args, return_weak_type_flag=False):
    """The dtype of combining ``args`` (values or dtypes) under JAX's rules.

    Canonicalized (DT-5); the result is weak only when every input is weak.
    """
    if not args:
        raise ValueError("at least one array or dtype is required")
    if len(args) > 1:
        _check_no_key_promotion(args)
    key_dtype = _key_array_dtype(args[0])
    if key_dtype is not None:
        return (key_dtype, False) if return_weak_type_flag else key_dtype
    nodes = [_lattice_node(a) for a in args]
    strict, x64 = _promotion_mode()
    node = nodes[0] if len(nodes) == 1 else _least_upper_bound(nodes, strict, x64)
    weak = isinstance(node, type)
    dt = _node_to_dtype(node, canonical=True)
    return (dt, weak) if return_weak_type_flag else dt


def _key_array_dtype(x):
    """The extended dtype of an array of keys (None otherwise): the result
    type of key arrays of one dtype is that dtype (SPEC RNG-105)."""
    dt = getattr(x, "dtype", None)
    if isinstance(dt, ExtendedDType) and not isinstance(x, (type, ExtendedDType)):
        return dt
    return None


def _check_no_key_promotion(args):
    """Joining a PRNG key's dtype with any other dtype is JAX's ValueError;
    keys of one dtype only reach the caller's own TypeError (SPEC DT-18)."""
    found = [d for d in (a if isinstance(a, ExtendedDType) else getattr(a, "dtype", None)
                         for a in args) if isinstance(d, ExtendedDType)]
    if found and not (len(found) == len(args) and len(set(found)) == 1):
        raise ValueError(f"dtype={found[0]} is not a valid dtype for JAX type promotion.")


def promote_types(a, b):
    """The raw lattice join of two dtypes (DT-4).

    Python types ``int``/``float``/``complex`` are weak nodes; a weak result
    becomes that kind's 64-bit dtype.  No canonicalization, no warning.
    """
    # JAX reads both arguments as dtypes before it checks either (NP-71).
    na, nb = _promote_types_arg(a), _promote_types_arg(b)
    na, nb = _promote_types_node(na), _promote_types_node(nb)
    node = _least_upper_bound([na, nb], *_promotion_mode())
    return _node_to_dtype(node, canonical=False)


def _promote_types_arg(x):
    if isinstance(x, type) and x in _WEAK_DEFAULTS:
        return x
    return _query_dtype(x)


def _promote_types_node(x):
    if isinstance(x, type) and x in _WEAK_DEFAULTS:
        return bool_ if x is bool else x
    dt = x
    if not is_valid_jax_dtype(dt) or dt == float0:
        raise ValueError(f"dtype={dt!r} is not a valid dtype for JAX type promotion.")
    return dt


# --- queries -------------------------------------------------------------

_FLOAT_PARENTS = (np.floating, np.inexact, np.number, np.generic)
_SIGNED_PARENTS = (np.signedinteger, np.integer, np.number, np.generic)
_UNSIGNED_PARENTS = (np.unsignedinteger, np.integer, np.number, np.generic)


def _as_numpy_type_arg(x):
    """Unwrap refjax scalar types (``jnp.float32``) to NumPy scalar types."""
    inner = getattr(x, "dtype", None)
    if isinstance(x, type) and isinstance(inner, np.dtype):
        return inner.type
    return x


def _query_dtype(x):
    """``np.dtype(x)`` as JAX's ``promote_types`` and ``issubdtype`` read
    it: an array stands for its dtype, with a DeprecationWarning, and one
    whose dtype is no NumPy dtype (a key array) is NumPy's ValueError, raised
    here rather than inside NumPy (NP-71)."""
    if array_types and isinstance(x, tuple(array_types)):
        warnings.warn("Implicit conversion of an array to a dtype is deprecated; "
                      "rather than dtype=arr use dtype=arr.dtype. In the future "
                      "this will result in an error.", DeprecationWarning, stacklevel=4)
        return np.dtype(x)
    return to_dtype(x)


def _issubdtype_arg(x):
    """A type, dtype or extended dtype as is; anything else as
    ``_query_dtype`` reads it (NP-71)."""
    x = _as_numpy_type_arg(x)
    if isinstance(x, (type, np.dtype, ExtendedDType)):
        return x
    return _query_dtype(x)


def issubdtype(arg1, arg2):
    """``np.issubdtype`` that also places bfloat16, float8 and int4 types
    under ``np.floating`` / ``np.(un)signedinteger`` as JAX does (DT-10)."""
    a, b = _issubdtype_arg(arg1), _issubdtype_arg(arg2)
    if isinstance(a, ExtendedDType) or isinstance(b, ExtendedDType):
        return _extended_issubdtype(a, b)
    if isinstance(a, type) and issubclass(a, extended):
        return isinstance(b, type) and issubclass(a, b)
    try:
        dt = np.dtype(a)
    except TypeError:
        return np.issubdtype(a, b)
    if dt in _ml_float_dtypes:
        parents = _FLOAT_PARENTS
    elif dt in _ml_int_dtypes:
        parents = _UNSIGNED_PARENTS if dt.name.startswith("u") else _SIGNED_PARENTS
    else:
        return np.issubdtype(dt, b)
    if any(b is p for p in parents):
        return True
    try:
        return dt == np.dtype(b)
    except TypeError:
        return False


def _extended_issubdtype(a, b):
    """Extended dtypes sit under ``extended`` (and keys under ``prng_key``)
    and under nothing numeric (RNG-3)."""
    if isinstance(b, ExtendedDType):
        return a == b
    if not isinstance(a, ExtendedDType):
        return False
    return isinstance(b, type) and issubclass(a.type, b)


def iinfo(int_type):
    """Machine limits of an integer dtype (ml_dtypes' int4 types included);
    an array stands for its dtype (the array API's ``iinfo(x)``, NP-227)."""
    int_type = _dtype_of_array(int_type)
    dt = to_dtype(int_type) if not (isinstance(int_type, type) and int_type is int) \
        else default_int_dtype()
    if dt in _ml_int_dtypes:
        return ml_dtypes.iinfo(dt)
    if dt.kind not in "iu":
        raise ValueError(f"Invalid integer data type {dt.kind!r}.")
    return np.iinfo(dt)


def finfo(float_type):
    """Machine limits of a floating dtype (bfloat16 and float8 included);
    an array stands for its dtype (NP-227)."""
    float_type = _dtype_of_array(float_type)
    if isinstance(float_type, type) and float_type in (float, complex):
        return np.finfo(_WEAK_DEFAULTS[float_type]())
    dt = to_dtype(float_type)
    if dt in _ml_float_dtypes:
        return ml_dtypes.finfo(dt)
    return np.finfo(dt)


def _dtype_of_array(x):
    if array_types and isinstance(x, tuple(array_types)) or isinstance(x, np.ndarray):
        return x.dtype
    return x


def itemsize_bits(dtype):
    """Size of one element in bits (4 for int4)."""
    dt = to_dtype(dtype)
    if dt in _ml_int_dtypes or dt in _ml_float_dtypes:
        bits = {"int1": 1, "uint1": 1, "int2": 2, "uint2": 2, "int4": 4,
                "uint4": 4, "float4_e2m1fn": 4, "float6_e2m3fn": 6,
                "float6_e3m2fn": 6}
        return bits.get(dt.name, 8 * dt.itemsize)
    return 8 * dt.itemsize


def scalar_type_of(x):
    """The Python scalar type (bool, int, float, complex) matching ``x``'s dtype."""
    dt, _ = dtype_and_weak_type(x)
    if dt == bool_:
        return bool
    if issubdtype(dt, np.integer):
        return int
    if issubdtype(dt, np.floating):
        return float
    if issubdtype(dt, np.complexfloating):
        return complex
    raise TypeError(f"Invalid scalar value {x!r}")


def can_cast(from_, to, casting="safe"):
    """``np.can_cast`` on dtypes; Python scalars are rejected as in NumPy 2.
    A refjax array stands for its dtype on either side, as a JAX array does
    for ``np.dtype`` (SPEC DT-18)."""
    if is_python_scalar(from_):
        raise TypeError(
            "can_cast() does not support Python ints, floats, and complex "
            "because the result used to depend on the value.\nThis change was "
            "part of adopting NEP 50, we may explicitly allow them again in the "
            "future.")
    return np.can_cast(getattr(from_, "dtype", from_) if not isinstance(from_, type)
                       else to_dtype(from_), read_dtype(to), casting=casting)


def read_dtype(x):
    """``np.dtype(x)`` as NumPy reads a JAX array: its ``.dtype``.  Unlike
    ``to_dtype`` (for ``dtype=`` arguments, where an array is refused),
    functions that ask *about* dtypes (``can_cast``, ``isdtype``) accept an
    array (SPEC DT-18).  A NumPy array is NumPy's ``TypeError``."""
    if array_types and isinstance(x, tuple(array_types)):
        warnings.warn("Implicit conversion of an array to a dtype is deprecated; "
                      "rather than dtype=arr use dtype=arr.dtype. In the future "
                      "this will result in an error.", DeprecationWarning, stacklevel=3)
        return x.dtype
    return to_dtype(x)


_KIND_PARENTS = {"bool": (np.bool_,), "signed integer": (np.signedinteger,),
                 "unsigned integer": (np.unsignedinteger,),
                 "integral": (np.integer,), "real floating": (np.floating,),
                 "complex floating": (np.complexfloating,),
                 "numeric": (np.integer, np.floating, np.complexfloating)}


def isdtype(dtype, kind):
    """Array-API ``isdtype``: whether ``dtype`` is of ``kind`` (a kind name
    such as ``'real floating'``, a dtype, or a tuple of them).  Arrays stand
    for their dtypes, as in JAX (SPEC DT-18)."""
    dt = _numpy_dtype_of(dtype)
    parents, others = [], []
    # Every kind is read before any is compared, as in JAX (SPEC NP-75).
    for k in kind if isinstance(kind, tuple) else (kind,):
        if isinstance(k, str) and k in _KIND_PARENTS:
            parents.extend(_KIND_PARENTS[k])
            continue
        try:
            others.append(_numpy_dtype_of(k))
        except TypeError:
            if isinstance(k, str):
                raise ValueError(f"Unrecognized kind={k!r} expected one of "
                                 f"{list(_KIND_PARENTS)}, or a compatible input for "
                                 "jnp.dtype()") from None
            raise TypeError(f"Expected kind to be a dtype, string, or tuple; "
                            f"got kind={k!r}") from None
    return any(issubdtype(dt, p) for p in parents) or any(o == dt for o in others)


def _numpy_dtype_of(x):
    """``read_dtype``, except that a key array has no NumPy dtype: JAX's
    ``np.dtype(keys)`` is ValueError (SPEC NP-75)."""
    if array_types and isinstance(x, tuple(array_types)) and is_extended(x.dtype):
        raise ValueError(f"Could not convert {x!r} to a NumPy dtype (via "
                         f"`.__numpy_dtype__` value {x.dtype}).")
    return read_dtype(x)


# --- Python ints that must fit --------------------------------------------

def check_python_int(value, dtype):
    """Raise OverflowError if Python int ``value`` does not fit ``dtype`` (DT-8)."""
    info = np.iinfo(dtype)
    if not info.min <= value <= info.max:
        raise OverflowError(f"Python int {value} too large to convert to {dtype}")
