"""The tracing core: abstract values, primitives, traces, tracers, jaxprs.

How a program runs (SPEC TRC-1, TRC-2, LEAK-1):

* Every operation ends in ``primitive.bind(*args, **params)``.
* ``bind`` hands the operation to the *current trace*.  Outside any
  transformation that is the :class:`EvalTrace`, which runs the primitive's
  implementation on concrete buffers through the backend.  Inside ``jit`` or
  ``make_jaxpr`` it is a staging trace that records an equation instead
  (``refjax._src.interpreters.partial_eval``); later transformations (JVP, batching) are
  further traces that interpret the primitive and re-bind on their parent.
* A tracer belongs to exactly one trace.  Reaching a trace that is not its
  own and not an enclosing one means it escaped: ``UnexpectedTracerError``.

Each primitive is defined once, in one place (``refjax._src.lax``), by its
implementation and its abstract evaluation; autodiff, batching and
transposition rules are attributes on the same :class:`Primitive` object.
"""
import contextlib
import inspect
import itertools
import operator
import os
import sys
import threading

import numpy as np

from refjax._src import backend as _backend
from refjax._src import devices as _devices
from refjax._src import dtypes, errors, literals
from refjax._src import mesh as _mesh
from refjax._src import pretty_printer as pp
from refjax._src.array import Array, ArrayImpl, check_truth_value_size
from refjax._src.casting import freeze

# ---------------------------------------------------------------------------
# Abstract values
# ---------------------------------------------------------------------------

class ShapedArray:
    """The abstract value of an array: shape, dtype and weak type (TRC-1)."""

    __slots__ = ("shape", "dtype", "weak_type")
    array_abstraction_level = 1

    def __init__(self, shape, dtype, weak_type=False):
        # Built on every primitive application: skip conversions when the
        # inputs already have the right types.
        self.shape = shape if type(shape) is tuple else tuple(shape)
        self.dtype = (dtype if isinstance(dtype, (np.dtype, dtypes.ExtendedDType))
                      else np.dtype(dtype))
        self.weak_type = weak_type if type(weak_type) is bool else bool(weak_type)

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    def update(self, shape=None, dtype=None, weak_type=None):
        return ShapedArray(self.shape if shape is None else shape,
                           self.dtype if dtype is None else dtype,
                           self.weak_type if weak_type is None else weak_type)

    def update_weak_type(self, weak_type):
        return self.update(weak_type=weak_type)

    def str_short(self, short_dtypes=False):
        """``f32[3,4]`` (short dtypes, as in jaxprs) or ``float32[3,4]``."""
        name = short_dtype_name(self.dtype) if short_dtypes else self.dtype.name
        name = name.replace("void", "float0")
        return f"{name}[{','.join(map(str, self.shape))}]"

    def __str__(self):
        return ("~" if self.weak_type else "") + self.str_short()

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.str_short()}{weak})"

    def _key(self):
        return (self.shape, self.dtype, self.weak_type)

    def __eq__(self, other):
        return isinstance(other, ShapedArray) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    @property
    def sharding(self):
        """The type's sharding: unsharded, over the empty abstract mesh, as
        JAX gives for a value outside any mesh (SPEC API-16)."""
        return _mesh.NamedSharding(_mesh.EMPTY_ABSTRACT_MESH,
                                   _mesh.PartitionSpec(*(None,) * len(self.shape)))

    def strip_weak_type(self):
        return self.update(weak_type=False) if self.weak_type else self

    def to_tangent_aval(self):
        """The type of this type's tangents (and cotangents): the same
        shape, ``float0`` unless the dtype is inexact (SPEC EXT-16)."""
        inexact = (not isinstance(self.dtype, dtypes.ExtendedDType)
                   and dtypes.issubdtype(self.dtype, np.inexact))
        return self if inexact else self.update(dtype=dtypes.float0)

    to_ct_aval = to_tangent_aval


# ``x.aval`` for a concrete array: array.py cannot import this module.
ArrayImpl.aval = property(lambda self: get_aval(self), doc="The array's type "
                          "(a ShapedArray), as jax.typeof(x) (SPEC API-15).")


def short_dtype_name(dtype):
    """``float32`` -> ``f32``, ``uint8`` -> ``u8``, ``complex64`` -> ``c64``."""
    return (dtype.name.replace("float", "f").replace("uint", "u")
            .replace("int", "i").replace("complex", "c"))


_SCALAR_TYPES = (bool, int, float, complex)


def get_aval(x):
    """The abstract value of a tracer, array, NumPy value or Python scalar."""
    if isinstance(x, Tracer):
        return x.aval
    if isinstance(x, ArrayImpl):
        return ShapedArray(x._value.shape, x.dtype, x.weak_type)
    if isinstance(x, Array):    # a key array (RNG-3) or another Array kind
        return x.aval
    t = type(x)
    if t in _SCALAR_TYPES:
        dt, weak = dtypes.dtype_and_weak_type(x)
        if t is int:
            dtypes.check_python_int(x, dt)
        return ShapedArray((), dt, weak)
    if isinstance(x, (np.ndarray, np.generic)):
        if t is not np.ndarray and isinstance(x, np.ma.MaskedArray):
            raise ValueError(_MASKED_ARRAY_MESSAGE)
        if not dtypes.is_valid_jax_dtype(x.dtype):
            raise TypeError(f"Value {x!r} with dtype {x.dtype} is not a valid "
                            "JAX array type. Only arrays of numeric types are "
                            "supported by JAX.")
        return ShapedArray(np.shape(x), dtypes.canonicalize_dtype(x.dtype))
    rule = pytype_aval_mappings.get(t)
    if rule is not None:
        return rule(x)
    for base in _SCALAR_TYPES:          # an IntEnum member, a bool subclass...
        if isinstance(x, base):
            return get_aval(base(x))
    if hasattr(x, "__jax_array__"):
        raise ValueError(_JAX_ARRAY_MESSAGE)
    raise TypeError(f"Value {x!r} of type {type(x)} is not a valid JAX type")


# JAX's words for inputs it refuses to abstractify (SPEC TRC-8).
_MASKED_ARRAY_MESSAGE = (
    "numpy masked arrays are not supported as direct inputs to JAX functions. "
    "Use arr.filled() to convert the value to a standard numpy array.")
_JAX_ARRAY_MESSAGE = (
    "Triggering __jax_array__() during abstractification is no longer supported. "
    "To avoid this error, either explicitly convert your object using "
    "jax.numpy.array(), or register your object as a pytree.")


# ``type -> aval rule`` for Python types that higher layers define and that
# ``get_aval`` knows through them (``jax.Ref`` -> ``Ref{f32[3]}``, SPEC EXT-9).
pytype_aval_mappings = {}

for _typed in literals.TYPED.values():     # typed Python scalars (AD-104)
    pytype_aval_mappings[_typed] = lambda x: ShapedArray((), x.dtype, True)

# Non-array values a jitted function may take and return (tokens, LXM-37):
# their avals convert them with ``to_buffer(value)`` / ``from_buffer(buf)``.
opaque_types = set()


def is_array_like(x):
    """Whether ``x`` can be an operand of a primitive."""
    return (isinstance(x, (Array, np.ndarray, np.generic))
            or isinstance(x, _SCALAR_TYPES) or hasattr(x, "__jax_array__"))


# ---------------------------------------------------------------------------
# Primitives
# ---------------------------------------------------------------------------

class Primitive:
    """A named operation with one definition site (SPEC JXP-4).

    ``impl(*buffers, **params)`` computes on backend buffers;
    ``abstract_eval(*avals, **params)`` gives the output aval(s).  Rules for
    later transformations live on the same object: ``jvp``, ``transpose``,
    ``batch`` (``None`` until a transformation defines them).
    """

    multiple_results = False

    def __init__(self, name, multiple_results=False):
        self.name = name
        self.multiple_results = multiple_results
        self.impl = None
        self.abstract_eval = None
        self.jvp = None
        self.partial_eval = None     # for primitives holding jaxprs (AD-4)
        self.transpose = None
        self.batch = None
        # ``batch_unmapped(params, axis_data)``: whether the batch rule must
        # run although no operand is mapped (collectives over the axis).
        self.batch_unmapped = None
        self.is_collective = False
        self.effectful = False
        # ``sharding_rule(params, in_dims, in_avals, out_avals)``: the mesh
        # axes of each result dimension (SPEC SHD-46); None: replicated.
        self.sharding_rule = None
        # ``key_reuse``: what the primitive does to PRNG-key operands, a
        # ``KeyReuseSignature`` or a function of the equation (SPEC RNG-66,
        # ``interpreters/key_reuse.py``); None consumes every key operand.
        self.key_reuse = None
        # Printing hooks: ``pp_params(params) -> params to show`` or a full
        # ``pp_rule(eqn, context) -> Doc`` (SPEC JXP-1).
        self.pp_params = None
        self.pp_rule = None
        # ``physical(buffers, avals_in, avals_out, **params)``: how the
        # primitive acts on the data of extended-dtype operands such as PRNG
        # keys (RNG-3); ``None`` rejects them.
        self.physical = None
        # ``specialize(avals_in, avals_out, **params) -> kernel(*buffers)``:
        # the implementation with everything that depends only on operand
        # types and parameters worked out once, for compiled programs and
        # eager plans; kernels run with floating-point warnings off
        # (SPEC PERF-3).  ``None``: ``impl`` with its params is used.
        self.specialize = None
        # For a primitive that only calls the closed jaxpr in this parameter
        # (``jit``, ``custom_jvp_call``, ``checkpoint``...): the compiler
        # inlines that jaxpr into the calling program (SPEC PERF-2).
        self.call_param = None
        # ``specialize_transposed(avals_in, out_aval, params, permutation)
        # -> kernel or None``: a kernel writing the result already
        # transposed, which the compiler uses for ``transpose(prim(...))``
        # when nothing else reads the untransposed result (SPEC PERF-3).
        self.specialize_transposed = None
        # Rules this primitive deliberately lacks: rule name ("jvp",
        # "transpose", "batch"...) -> why, matching JAX (an integer-only
        # primitive has no JVP).  Set with ``not_supported``; the rule
        # table in docs/primitives.md and its test read it.
        self.unsupported = {}

    def __repr__(self):
        return self.name

    def bind(self, *args, **params):
        trace = _trace_state.trace
        if trace is eval_trace:     # eager: skip a call (SPEC PERF-1)
            return _apply_primitive(self, args, params)
        return trace.process_primitive(self, args, params)

    def get_bind_params(self, params):
        """The keyword arguments that apply an equation of this primitive
        again: ``prim.bind(*operands, **prim.get_bind_params(eqn.params))``
        (SPEC EXT-17)."""
        return dict(params)

    def not_supported(self, rule, reason):
        """Record that this primitive has no ``rule`` on purpose, and why."""
        self.unsupported[rule] = reason

    def def_impl(self, impl):
        self.impl = impl
        return impl

    def def_abstract_eval(self, rule):
        self.abstract_eval = rule
        return rule


class _LaxOps:
    """The lax operations that core and the interpreters apply to tracers:
    ``index_in_dim`` (iterating over a tracer), ``convert_element_type`` and
    ``broadcast`` (materialised zeros in AD), ``transpose`` and
    ``broadcast_in_dim`` (moving batch axes).  They are lax primitives,
    defined above this layer: ``refjax._src.lax.shapes`` installs them when
    it is imported (``install``), so core imports nothing above it."""

    NAMES = ("index_in_dim", "convert_element_type", "broadcast", "transpose",
             "broadcast_in_dim")

    def install(self, **functions):
        assert set(functions) == set(self.NAMES), sorted(functions)
        self.__dict__.update(functions)

    def __getattr__(self, name):
        raise RuntimeError(f"lax.{name} is not loaded yet: import refjax first.")


lax_ops = _LaxOps()


# ---------------------------------------------------------------------------
# Traces
# ---------------------------------------------------------------------------

class Trace:
    """An interpreter for primitives; one per transformation in progress."""

    is_valid = True
    parent = None

    def process_primitive(self, primitive, args, params):
        raise NotImplementedError

    def invalidate(self):
        self.is_valid = False

    @property
    def main(self):
        """The identity of this transformation: a tracer ``t`` belongs to it
        when ``t._trace.main is trace.main`` (SPEC EXT-15)."""
        return self


class EvalTrace(Trace):
    """Runs primitives on concrete values (eager execution)."""

    def process_primitive(self, primitive, args, params):
        return _apply_primitive(primitive, args, params)

    def __repr__(self):
        return "EvalTrace"


class CompileTimeEvalTrace(Trace):
    """``jax.ensure_compile_time_eval()`` while tracing (SPEC TRC-5).

    An operation whose operands are all concrete runs now, on the backend,
    and gives a concrete Array usable in Python control flow; an operation
    on a tracer is handed to the trace that was current when the block
    began, so it is still staged into the jaxpr.
    """

    def __init__(self, parent):
        self.parent = parent

    def process_primitive(self, primitive, args, params):
        for a in args:
            if isinstance(a, Tracer):
                return self.parent.process_primitive(primitive, args, params)
        return _apply_primitive(primitive, args, params)

    def __repr__(self):
        return "CompileTimeEvalTrace"


def _no_dispatch(primitive, args, params):
    raise RuntimeError("refjax._src.dispatch is not loaded: import refjax first.")


# Eager execution of one primitive on concrete operands.  It lives in
# ``refjax._src.dispatch`` (which knows the backend kernels, eager plans and
# the checks that watch them) and is installed from there at import, so
# that core imports nothing above it.
_apply_primitive = _no_dispatch


def set_eager_dispatch(apply_primitive):
    """Install ``apply_primitive(primitive, args, params)``, which runs a
    primitive eagerly (``refjax._src.dispatch`` does at import)."""
    global _apply_primitive
    _apply_primitive = apply_primitive


def conform_buffer(buffer, aval):
    """A kernel's result as a backend array of ``aval``'s dtype (kernels may
    return NumPy scalars, or compute in a wider dtype)."""
    if type(buffer) is not _backend_array_type():
        backend = _backend.get()
        if not backend.is_array(buffer):
            buffer = backend.xp.asarray(buffer)
    if buffer.dtype != aval.dtype:
        buffer = buffer.astype(aval.dtype)
    return buffer


def to_buffer(x):
    """The backend buffer of a concrete operand (Array, NumPy or scalar)."""
    if isinstance(x, ArrayImpl):
        return x._value
    if isinstance(x, Tracer):
        raise escaped_tracer_error(x)
    if isinstance(x, Array):    # a key array: its uint32 data (RNG-3)
        return x._value
    if type(x) in opaque_types:
        return get_aval(x).to_buffer(x)
    _devices.guard_host_to_device(lambda: get_aval(x))      # SPEC CFG-27
    backend = _backend.get()
    if backend.is_array(x):
        # A float64 NumPy operand with x64 off computes as float32, like JAX.
        # Always a frozen copy: the caller may write to ``x`` later, and a
        # result may be a view of its operand (reshape) or the operand itself
        # (an identity jit), so sharing ``x`` would let that write reach an
        # Array (SPEC ARR-2).
        dt = dtypes.canonicalize_dtype(x.dtype)
        return freeze(x.astype(dt, copy=True))
    aval = get_aval(x)
    return backend.asarray(np.asarray(x, dtype=aval.dtype))


def wrap_buffer(buffer, aval):
    """A concrete Array holding ``buffer`` with the metadata of ``aval``."""
    if isinstance(aval.dtype, dtypes.ExtendedDType):
        return aval.dtype.wrap_physical(buffer, aval)
    if hasattr(aval, "from_buffer"):        # a token (LXM-37)
        return aval.from_buffer(buffer)
    return ArrayImpl(conform_buffer(buffer, aval), aval.dtype, aval.weak_type)


def _backend_array_type():
    """The exact array type of the active backend (a fast path for checks)."""
    return _backend.get().xp.ndarray


eval_trace = EvalTrace()


class _TraceState(threading.local):
    """The current trace, one per thread (SPEC THR-1): a thread tracing a
    function never sees, nor disturbs, another thread's trace.  Each thread
    starts evaluating eagerly.  ``trace`` is a plain attribute of a
    thread-local object, so the per-call read stays one attribute lookup."""

    def __init__(self):
        self.trace = eval_trace


_trace_state = _TraceState()


def current_trace():
    return _trace_state.trace


@contextlib.contextmanager
def set_current_trace(trace):
    """Make ``trace`` receive every ``bind`` inside the block."""
    prev = _trace_state.trace
    _trace_state.trace = trace
    try:
        yield trace
    finally:
        _trace_state.trace = prev


take_current_trace = current_trace


def is_trace_active(trace):
    """Whether ``trace`` is the current trace or one it was nested inside."""
    t = _trace_state.trace
    while t is not None:
        if t is trace:
            return True
        t = t.parent
    return False


# ---------------------------------------------------------------------------
# Tracers
# ---------------------------------------------------------------------------

class Tracer(Array):
    """A stand-in for an array while a trace is running (SPEC TRC-1).

    Arithmetic works as on arrays; asking for a concrete value (``bool``,
    ``int``, ``np.asarray``...) raises the error class JAX raises, with the
    function being traced and the argument the value depends on.
    """

    __slots__ = ("_trace", "aval")
    __hash__ = None

    def __init__(self, trace, aval):
        self._trace = trace
        self.aval = aval

    # -- metadata -----------------------------------------------------------
    @property
    def shape(self):
        return self.aval.shape

    @property
    def dtype(self):
        return self.aval.dtype

    @property
    def ndim(self):
        return self.aval.ndim

    @property
    def sharding(self):
        """Not known while tracing: JAX points to ``jax.typeof`` (SPEC TRC-8)."""
        raise AttributeError(
            f"The 'sharding' attribute is not available on traced array with "
            f"shape {self.aval.str_short()}. To query sharding information on "
            "tracers, use `jax.typeof(x)`.")

    @property
    def size(self):
        return self.aval.size

    @property
    def weak_type(self):
        return self.aval.weak_type

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    def __len__(self):
        if not self.ndim:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.ndim:
            raise TypeError("iteration over a 0-d array")
        return iter([lax_ops.index_in_dim(self, i, keepdims=False)
                     for i in range(self.shape[0])])

    def __repr__(self):
        return f"{self._tracer_kind()}({self.aval})"

    def _tracer_kind(self):
        return type(self).__name__

    # -- the places a concrete value is required ---------------------------
    # Shape problems are reported first, as for concrete arrays; then the
    # error class JAX raises, built from the tracer (SPEC ERR-2 .. ERR-5).
    def _error_repr(self):
        return f"traced array with shape {self.aval.str_short()}"

    def _origin_msg(self):
        """A newline and the sentence naming the traced function and the
        arguments this value depends on (SPEC ERR-6); empty if unknown."""
        context = self._trace.describe_tracer(self) if hasattr(
            self._trace, "describe_tracer") else ""
        return "\n" + context if context else ""

    def to_concrete_value(self):
        """The value, when this trace knows it (a JVP tracer of a concrete
        primal), else None: ``bool``/``int``/``item`` then work (SPEC AD-61)."""
        return None

    def __bool__(self):
        check_truth_value_size(self.size)
        value = self.to_concrete_value()
        if value is not None:
            return bool(value)
        raise errors.TracerBoolConversionError(self)

    def _scalar_conversion_error(self, fun_name):
        if self.ndim:
            return TypeError("Only scalar arrays can be converted to Python "
                             f"scalars; got arr.ndim={self.ndim}")
        return errors.ConcretizationTypeError(
            self, f"The problem arose with the `{fun_name}` function. If trying "
            "to convert the data type of a value, try using "
            f"`x.astype({fun_name})` or `jnp.array(x, {fun_name})` instead.")

    def __int__(self):
        value = self.to_concrete_value()
        if value is not None:
            return int(value)
        raise self._scalar_conversion_error("int")

    def __float__(self):
        raise self._scalar_conversion_error("float")

    def __complex__(self):
        raise self._scalar_conversion_error("complex")

    def __index__(self):
        if self.ndim or not dtypes.issubdtype(self.dtype, np.integer):
            raise TypeError("Only integer scalar arrays can be converted to a "
                            "scalar index.")
        value = self.to_concrete_value()
        if value is not None:
            return value.__index__()
        raise errors.TracerIntegerConversionError(self)

    def __array__(self, dtype=None, copy=None):
        raise errors.TracerArrayConversionError(self)

    def tolist(self):
        raise errors.ConcretizationTypeError(
            self, f"The tolist() method was called on {self._error_repr()}."
            f"{self._origin_msg()}")

    # A tracer has no bytes to export (SPEC ARR-11): ConcretizationTypeError,
    # as JAX raises for these methods.
    def tobytes(self, order="C"):
        raise errors.ConcretizationTypeError(
            self, f"The tobytes() method was called on {self._error_repr()}."
            f"{self._origin_msg()}")

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None,
                   copy=None):
        raise errors.ConcretizationTypeError(
            self, "__dlpack__() was called on a traced array; only concrete "
            "arrays can be exported.")

    def item(self, *args):
        value = self.to_concrete_value()
        if value is not None:
            return np.asarray(value).item(*args)
        raise errors.ConcretizationTypeError(
            self, "This occurred in the item() method of jax.Array")

    def __reduce__(self):
        raise errors.ConcretizationTypeError(
            self, f"The __reduce__() method was called on {self._error_repr()}."
            f"{self._origin_msg()}")

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def check_valid_jaxtype(x):
    """An operand of a transformation must be an array or scalar; JAX words
    the message for strings slightly differently from other objects."""
    if is_array_like(x):
        return
    typ = type(x) if isinstance(x, str) else f"'{type(x)}'"
    raise TypeError(f"Argument '{x}' of type {typ} is not a valid JAX type")


def check_callable(fun):
    """JAX's checks on the function given to a transformation (SPEC VMAP-18)."""
    if isinstance(fun, staticmethod):
        raise TypeError(f"staticmethod arguments are not supported, got {fun}")
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")
    if inspect.isgeneratorfunction(fun):
        raise TypeError(f"Expected a function, got a generator function: {fun}")


def concrete_value(x):
    """``x`` itself if concrete, a tracer's known value, or None."""
    return x.to_concrete_value() if isinstance(x, Tracer) else x


_SEPARATOR = "-" * 30 + "\n"


def escaped_tracer_error(tracer, detail=""):
    """``UnexpectedTracerError`` for a tracer used outside its trace (LEAK-1).

    The message names the function whose trace the value escaped from and
    the line where the value was created, as JAX's does.
    """
    trace = tracer._trace
    fun = getattr(trace, "debug_info", None)
    where = (f"The function being traced when the value leaked was "
             f"{fun.func_src_info} traced for {fun.traced_for}.\n"
             if fun is not None else "")
    created = getattr(tracer, "_created_at", None)
    line = ""
    if created is not None:
        line = (f"{_SEPARATOR}The leaked intermediate value was created on line "
                f"{created.summary()}. \n{_SEPARATOR}"
                "When the value was created, the final 5 stack frames (most "
                "recent last) excluding JAX-internal frames were:\n"
                f"{_SEPARATOR}{created.summary()}\n{_SEPARATOR}\n")
    return errors.UnexpectedTracerError(
        "Encountered an unexpected tracer. A function transformed by JAX had "
        "a side effect, allowing for a reference to an intermediate value "
        f"with type {tracer.aval.str_short()} wrapped in a "
        f"{type(tracer).__name__} to escape the scope of the transformation.\n"
        "JAX transformations require that functions explicitly return their "
        "outputs, and disallow saving intermediate values to global state.\n"
        f"{where}{line}{detail}"
        "To catch the leak earlier, try setting the environment variable "
        "JAX_CHECK_TRACER_LEAKS or using the `jax.checking_leaks` context "
        "manager.")


def concrete_or_error(force, value, context=""):
    """``force(value)`` for a concrete value; a ConcretizationTypeError naming
    ``context`` when ``value`` is a tracer (SPEC ERR-2)."""
    if isinstance(value, Tracer):
        known = value.to_concrete_value()
        if known is None:
            raise errors.ConcretizationTypeError(value, context)
        value = known
    return force(value) if force is not None else value


# ---------------------------------------------------------------------------
# Jaxprs
# ---------------------------------------------------------------------------

class Var:
    """A jaxpr variable; its printed name is chosen when printing."""

    __slots__ = ("aval", "__weakref__")

    def __init__(self, aval):
        self.aval = aval

    def __repr__(self):
        return f"Var(id={id(self)}):{self.aval.str_short()}"

    def pretty_print(self, context):
        return context.name_of(self)


class DropVar(Var):
    """An output binder whose value nobody reads (printed ``_``)."""

    __slots__ = ()

    def __repr__(self):
        return "_"

    def pretty_print(self, context):
        return "_"


class Literal:
    """A scalar constant written inline in a jaxpr (``2.0:f32[]``)."""

    __slots__ = ("val", "aval")

    def __init__(self, val, aval):
        self.val = val
        self.aval = aval

    def __repr__(self):
        return f"Literal({self.val})"

    def pretty_print(self, context):
        val = self.val
        if isinstance(val, ArrayImpl):
            val = val._host()
        return f"{np.asarray(val).item()}:{self.aval.str_short(short_dtypes=True)}"


Atom = (Var, Literal)


class JaxprEqn:
    """One equation: ``outvars = primitive[params] invars``."""

    __slots__ = ("invars", "outvars", "primitive", "params", "effects",
                 "source_info")

    def __init__(self, invars, outvars, primitive, params, effects=frozenset(),
                 source_info=None):
        self.invars = list(invars)
        self.outvars = list(outvars)
        self.primitive = primitive
        self.params = params
        self.effects = effects
        self.source_info = source_info

    def replace(self, **kw):
        fields = {s: getattr(self, s) for s in self.__slots__}
        fields.update(kw)
        return JaxprEqn(**fields)

    def __repr__(self):
        return str(pp_eqn(self, PpContext(), top=False)).rstrip()


def new_jaxpr_eqn(invars, outvars, primitive, params, effects=frozenset(),
                  source_info=None):
    return JaxprEqn(invars, outvars, primitive, params, effects, source_info)


class DebugInfo:
    """Where a jaxpr came from: used in error messages (SPEC ERR-6)."""

    __slots__ = ("traced_for", "func_src_info", "arg_names", "result_paths")

    def __init__(self, traced_for, func_src_info, arg_names, result_paths=None):
        self.traced_for = traced_for
        self.func_src_info = func_src_info
        self.arg_names = arg_names
        self.result_paths = result_paths

    def __repr__(self):
        return (f"DebugInfo(traced_for={self.traced_for!r}, "
                f"func_src_info={self.func_src_info!r}, "
                f"arg_names={self.arg_names!r}, "
                f"result_paths={self.result_paths!r})")


class Jaxpr:
    """A typed first-order program: constvars, invars, equations, outvars."""

    __slots__ = ("constvars", "invars", "outvars", "eqns", "effects",
                 "debug_info", "__weakref__")

    def __init__(self, constvars, invars, outvars, eqns, effects=frozenset(),
                 debug_info=None):
        self.constvars = list(constvars)
        self.invars = list(invars)
        self.outvars = list(outvars)
        self.eqns = list(eqns)
        self.effects = effects
        self.debug_info = debug_info

    @property
    def in_avals(self):
        return [v.aval for v in self.invars]

    @property
    def out_avals(self):
        return [v.aval for v in self.outvars]

    def replace(self, **kw):
        fields = {s: getattr(self, s) for s in self.__slots__ if s != "__weakref__"}
        fields.update(kw)
        return Jaxpr(**fields)

    def pretty_print(self, width=80, **unused):
        return pp_toplevel_jaxpr(self).format(width)

    def __str__(self):
        return self.pretty_print()

    __repr__ = __str__


class ClosedJaxpr:
    """A jaxpr together with the values of its constvars."""

    __slots__ = ("jaxpr", "consts", "__weakref__")

    def __init__(self, jaxpr, consts):
        self.jaxpr = jaxpr
        self.consts = list(consts)

    @property
    def in_avals(self):
        return self.jaxpr.in_avals

    @property
    def out_avals(self):
        return self.jaxpr.out_avals

    @property
    def literals(self):
        return self.consts

    @property
    def eqns(self):
        return self.jaxpr.eqns

    @property
    def effects(self):
        return self.jaxpr.effects

    def pretty_print(self, width=80, **unused):
        return self.jaxpr.pretty_print(width)

    def __str__(self):
        return str(self.jaxpr)

    __repr__ = __str__


def jaxprs_in_params(params):
    """The jaxprs held in an equation's parameters (for nested programs)."""
    for value in params.values():
        vals = value if isinstance(value, tuple) else (value,)
        for v in vals:
            if isinstance(v, Jaxpr):
                yield v
            elif isinstance(v, ClosedJaxpr):
                yield v.jaxpr


subjaxprs = jaxprs_in_params


# ---------------------------------------------------------------------------
# Evaluation
# ---------------------------------------------------------------------------

def eval_jaxpr(jaxpr, consts, *args, propagate_source_info=True):
    """Interpret ``jaxpr`` by binding each equation on the current trace."""
    env = {}

    def read(v):
        return v.val if isinstance(v, Literal) else env[v]

    for v, x in zip(jaxpr.constvars, consts):
        env[v] = x
    if len(args) != len(jaxpr.invars):
        raise TypeError(f"eval_jaxpr expected {len(jaxpr.invars)} arguments, "
                        f"got {len(args)}")
    for v, x in zip(jaxpr.invars, args):
        env[v] = x
    for eqn in jaxpr.eqns:
        out = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
        outs = out if eqn.primitive.multiple_results else [out]
        for v, x in zip(eqn.outvars, outs):
            if not isinstance(v, DropVar):
                env[v] = x
    return [read(v) for v in jaxpr.outvars]


def jaxpr_as_fun(closed_jaxpr):
    """A Python function evaluating ``closed_jaxpr``."""
    def fun(*args):
        return eval_jaxpr(closed_jaxpr.jaxpr, closed_jaxpr.consts, *args)
    return fun


# ---------------------------------------------------------------------------
# Printing (SPEC JXP-1): the layout JAX 0.10 prints, character for character
# ---------------------------------------------------------------------------

def _alphabetic(n):
    """0 -> a, 25 -> z, 26 -> ba: base 26 with letters as digits."""
    s = ""
    while not s or n:
        n, i = divmod(n, 26)
        s = chr(97 + i) + s
    return s


class PpContext:
    """Names variables in order of first appearance across nested jaxprs."""

    def __init__(self, names=None):
        self.names = dict(names or {})
        self._counter = itertools.count()
        self.shared_jaxprs = {}   # Jaxpr -> name, printed once at the top

    def name_of(self, var):
        name = self.names.get(var)
        if name is None:
            name = _alphabetic(next(self._counter))
            while name in self.shared_jaxprs.values():
                name = _alphabetic(next(self._counter))
            self.names[var] = name
        return name

    def suggest_same_names(self, for_vars, like_vars):
        """Give an inner jaxpr's binders the names of the outer atoms they
        are bound to, so a nested call reads naturally."""
        if len(for_vars) != len(like_vars):
            return
        used = set()
        for v, like in zip(for_vars, like_vars):
            if (isinstance(like, Var) and like not in used
                    and isinstance(v, Var) and v not in self.names):
                used.add(like)
                self.names[v] = like.pretty_print(self)


def _dropped_outputs(jaxpr):
    """Equation outputs nobody reads print as ``_``."""
    used = {v for v in jaxpr.outvars if isinstance(v, Var)}
    names = {}
    for eqn in reversed(jaxpr.eqns):
        for v in eqn.outvars:
            if v not in used:
                names[v] = "_"
        used.update(v for v in eqn.invars if isinstance(v, Var))
    return names


def pp_toplevel_jaxpr(jaxpr):
    """The whole program; nested jaxprs used twice (or long ones) are printed
    once up front as ``let name = { ... } in`` and referred to by name."""
    context = PpContext(_dropped_outputs(jaxpr))
    docs = []
    for name, shared in _shared_jaxprs(jaxpr):
        context.shared_jaxprs[shared] = name
    for shared, name in list(context.shared_jaxprs.items()):
        body = _pp_jaxpr_body(shared, context)
        docs.append(pp.text(f"let {name} = ") + body + pp.text(" in") + pp.brk())
    docs.append(pp_jaxpr(jaxpr, context))
    return pp.concat(docs)


def _shared_jaxprs(top):
    """(name, jaxpr) for nested jaxprs that occur more than once, counting
    one with more than ten equations twice; named after the call's ``name``."""
    from collections import Counter, deque
    counts, names = Counter(), {}
    queue = deque([top])
    while queue:
        jaxpr = queue.popleft()
        counts[jaxpr] += 1
        if jaxpr is not top and len(jaxpr.eqns) > 10:
            counts[jaxpr] += 1
        for eqn in jaxpr.eqns:
            # Only jit names the jaxprs it holds; others print as ``jaxpr``.
            name = eqn.params.get("name") if eqn.primitive.name == "jit" else None
            for sub in jaxprs_in_params(eqn.params):
                queue.append(sub)
                if name is not None:
                    names.setdefault(sub, str(name).strip("<>"))
    used, out = Counter(), []
    for jaxpr, n in counts.items():
        if n == 1:
            continue
        name = names.get(jaxpr, "jaxpr")
        if used[name]:
            used[name] += 1
            name += str(used[name] - 1)
        used[name] += 1
        out.append((name, jaxpr))
    return out


def pp_vars(vs, context, separator="", print_shapes=False):
    def one(v):
        s = v.pretty_print(context)
        return s + ":" + v.aval.str_short(short_dtypes=True) if print_shapes else s
    docs = [pp.text(one(v)) for v in vs]
    return pp.nest(2, pp.group(pp.join(pp.text(separator) + pp.group(pp.brk()),
                                       docs)))


def pp_param_value(value, context):
    if isinstance(value, tuple) and value and all(
            isinstance(j, (Jaxpr, ClosedJaxpr)) for j in value):
        docs = [pp_jaxpr(j.jaxpr if isinstance(j, ClosedJaxpr) else j, context)
                for j in value]
        return pp.group(pp.nest(2, pp.text("(") + pp.brk("") + pp.join(pp.brk(), docs))
                        + pp.brk("") + pp.text(")"))
    if isinstance(value, ClosedJaxpr):
        return pp_jaxpr(value.jaxpr, context)
    if isinstance(value, Jaxpr):
        return pp_jaxpr(value, context)
    if isinstance(value, frozenset):
        return pp.text("frozenset({" + ", ".join(repr(e) for e in sorted(value)) + "})")
    s = str(value)
    if " at 0x" in s:
        import re
        s = re.sub(r" at 0x([0-9a-fA-F]+)", lambda m: " at 0x" + "X" * len(m.group(1)), s)
    return pp.text(s)


def pp_params(items, context):
    if not items:
        return pp.nil()
    pairs = [pp.text(f"{k}=") + pp_param_value(v, context) for k, v in items]
    return pp.group(pp.nest(2, pp.text("[") + pp.brk("") + pp.join(pp.brk(), pairs))
                    + pp.brk("") + pp.text("]"))


def pp_eqn(eqn, context, top=True):
    prim = eqn.primitive
    if prim.pp_rule is not None:
        return prim.pp_rule(eqn, context)
    shown = prim.pp_params(eqn.params) if prim.pp_params else eqn.params
    return pp_eqn_with_params(eqn, context, shown, sorted(shown))


def pp_eqn_with_params(eqn, context, params, names):
    """The generic layout: ``outs = name[k=v ...] ins`` with chosen params."""
    lhs = pp_vars(eqn.outvars, context, print_shapes=True)
    rhs = [pp.text(eqn.primitive.name),
           pp_params([(k, params[k]) for k in names], context),
           pp.text(" ") + pp_vars(eqn.invars, context)]
    if eqn.outvars:
        return pp.concat([lhs, pp.text(" = ")] + rhs)
    return pp.concat(rhs)


def pp_jaxpr(jaxpr, context):
    name = context.shared_jaxprs.get(jaxpr)
    if name is not None:
        return pp.text(name)
    return _pp_jaxpr_body(jaxpr, context)


def _pp_jaxpr_body(jaxpr, context):
    constvars = pp_vars(jaxpr.constvars, context, print_shapes=True)
    invars = pp_vars(jaxpr.invars, context, print_shapes=True)
    eqns = pp.join(pp.brk("; "), [pp_eqn(e, context) for e in jaxpr.eqns])
    outvars = pp.concat([pp.text("("), pp_vars(jaxpr.outvars, context, separator=","),
                         pp.text(")" if len(jaxpr.outvars) != 1 else ",)")])
    return pp.group(pp.nest(2, pp.concat([
        pp.text("{ lambda "), constvars, pp.text("; "), invars,
        pp.text(". let"), pp.nest(2, pp.brk() + eqns), pp.brk(),
        pp.text("in "), outvars])) + pp.text(" }"))


# ---------------------------------------------------------------------------
# Helpers shared by the transformations
# ---------------------------------------------------------------------------

_REFJAX_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class SourceInfo:
    """Where an operation was called from: the innermost frame outside refjax.

    Only the code object and instruction offset are kept; the text
    ``file:line:column (function)`` is made when a message needs it, so
    recording an equation stays cheap.
    """

    __slots__ = ("code", "lasti", "lineno")

    def __init__(self, code, lasti, lineno):
        self.code = code
        self.lasti = lasti
        self.lineno = lineno

    def column(self):
        """The 0-based column of the expression being evaluated (Python 3.11+)."""
        positions = getattr(self.code, "co_positions", None)
        if positions is None:
            return None
        pos = next(itertools.islice(positions(), self.lasti // 2, None), None)
        return None if pos is None or pos[2] is None else pos[2]

    def summary(self):
        col = self.column()
        col = "" if col is None else f":{col}"
        name = getattr(self.code, "co_qualname", self.code.co_name)
        return f"{self.code.co_filename}:{self.lineno}{col} ({name})"

    def __repr__(self):
        return f"SourceInfo({self.summary()})"


def current_source_info():
    """The :class:`SourceInfo` of the innermost frame outside refjax."""
    f = sys._getframe(1)
    while f is not None and f.f_code.co_filename.startswith(_REFJAX_DIR):
        f = f.f_back
    if f is None:
        return None
    return SourceInfo(f.f_code, f.f_lasti, f.f_lineno)


def user_frame_summary(skip_prefixes=None):
    """``file:line:col (function)`` of the innermost frame outside refjax."""
    info = current_source_info()
    return None if info is None else info.summary()


def fun_source_info(fun):
    """``name at file:line`` as JAX prints it in debug info."""
    import functools
    inner = fun
    while isinstance(inner, functools.partial):
        inner = inner.func
    inner = getattr(inner, "__wrapped__", inner)
    name = getattr(inner, "__name__", type(inner).__name__)
    code = getattr(inner, "__code__", None)
    if code is None:
        return name
    return f"{name} at {code.co_filename}:{code.co_firstlineno}"


def canonicalize_shape(shape, context="Shapes", op="broadcast_in_dim", *,
                       allow_0d_array=True, nonnegative=True):
    """A tuple of non-negative ints, or TypeError as JAX gives (SPEC ARR-6,
    LAX-14).

    An int is a 1-d shape; any other value is iterated as JAX does, so a
    1-d integer array or ``b'ab'`` gives its elements and ``{}`` gives
    ``()``.  A 0-d array is one dimension unless ``allow_0d_array`` is
    False (``lax`` and ``jax.random`` shapes), where, not being iterable,
    it is a ``TypeError``.  A shape NumPy cannot allocate is a
    ``ValueError`` (SPEC LAX-14).  With ``nonnegative=False`` only the types
    are checked, as JAX's ``broadcast_to`` does before comparing shapes."""
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    elif getattr(shape, "ndim", None) == 0 and allow_0d_array:
        shape = (shape,)
    elif not isinstance(shape, (tuple, list)):
        shape = _iterate_shape(shape)
    dims = []
    for d in shape:
        try:
            dims.append(operator.index(d))
        except TypeError:
            msg = ("Shapes must be 1D sequences of concrete values of "
                   f"integer type, got {tuple(shape)}.")
            if any(isinstance(x, Tracer) for x in shape):
                msg += ("\nIf using `jit`, try using `static_argnums` or applying "
                        "`jit` to smaller subfunctions.")
            raise TypeError(msg) from None
    dims = tuple(dims)
    if any(d < 0 for d in dims):
        if not nonnegative:
            return dims
        raise TypeError(f"{op} shape must have every element be "
                        f"nonnegative, got {dims}.")
    check_array_size(dims)
    return dims


def canonicalize_jnp_shape(shape, context="Shapes"):
    """``canonicalize_shape`` as ``jax.numpy``'s creation functions apply it:
    any value NumPy sees as 0-d (a 0-d array, ``b'ab'``) is one dimension, so
    ``jnp.zeros(jnp.array(3))`` has shape ``(3,)`` (SPEC ARR-6)."""
    if not isinstance(shape, (tuple, list)) and np.ndim(shape) == 0:
        shape = (shape,)
    return canonicalize_shape(shape, context)


def _iterate_shape(shape):
    if getattr(shape, "ndim", None) == 0:
        raise TypeError(f"Shapes must be 1D sequences of concrete values of integer "
                        f"type, got the 0-d array {shape!r}; pass (n,) instead.")
    try:
        return tuple(shape)
    except TypeError:
        raise TypeError("Shapes must be 1D sequences of concrete values of "
                        f"integer type, got {(shape,)}.") from None


_MAX_SIZE = np.iinfo(np.intp).max


def check_array_size(shape, itemsize=1):
    """An array NumPy can allocate: every dimension, and the size in bytes,
    at most ``2**63 - 1``.  XLA aborts the process on larger shapes; refjax
    raises ``ValueError`` when it builds the shape (SPEC FUZZ-3)."""
    total = itemsize
    for d in shape:
        total *= d
        if d > _MAX_SIZE or total > _MAX_SIZE:
            raise ValueError(f"An array of shape {tuple(shape)} is too large: its "
                             f"dimensions and size in bytes must be at most {_MAX_SIZE}.")


def canonicalize_axis(axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim if ndim else axis


# ---------------------------------------------------------------------------
# Named axes: the axes collectives may refer to (SPEC VMAP-70)
# ---------------------------------------------------------------------------
# ``vmap(..., axis_name=n)`` (and later ``pmap``/``shard_map``) bind ``n`` to
# its size for as long as the mapped function is traced; collectives look the
# name up here.  Inner names shadow outer ones.

class _AxisEnv(threading.local):
    """The bound axis names of this thread, outermost first (SPEC THR-1):
    a ``vmap(axis_name=...)`` in one thread binds nothing in another."""

    def __init__(self):
        self.names = []


_axis_env = _AxisEnv()


@contextlib.contextmanager
def extend_axis_env(name, size):
    """Bind the axis ``name`` to ``size`` inside the block (None: no-op)."""
    if name is None:
        yield
        return
    env = _axis_env.names
    env.append((name, size))
    try:
        yield
    finally:
        env.pop()


def axis_exists(name):
    return any(n == name for n, _ in _axis_env.names)


def axis_size(name):
    """The size bound to ``name``; ``NameError`` when it is unbound."""
    for n, size in reversed(_axis_env.names):
        if n == name:
            return size
    raise NameError(f"unbound axis name: {name}")


def axis_env_key():
    """The bound names and sizes, part of jit's trace-cache key: a trace
    made under an axis name may hold collectives over it."""
    return tuple(_axis_env.names)


_devices.register_transfer_guard_site("eager operands")
