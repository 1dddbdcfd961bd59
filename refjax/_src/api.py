"""``jit``, ``make_jaxpr``, ``eval_shape`` and friends (SPEC JIT-1 .. JIT-10,
DON-1 .. DON-4, TRC-4, NAN-3).

``jit(f)`` traces ``f`` once per *abstract signature* of its arguments (the
pytree structure, each leaf's shape, dtype and weak type, and the values of
static arguments) into a jaxpr, "compiles" it into a straight-line program
over backend buffers, and runs that program on later calls with the same
signature.  Python side effects therefore happen only while tracing.

Under another trace (``jit`` inside ``jit``, ``make_jaxpr``), calling a jitted
function records one ``jit`` equation holding the inner jaxpr.
"""
import contextlib
import functools
import inspect
import logging
import operator
import threading
import time
import warnings
import weakref

import numpy as np

from refjax._src import backend as _backend
from refjax._src import compiler
from refjax._src import config as _config
from refjax._src import core
from refjax._src import devices as _devices
from refjax._src import dispatch, dtypes, lru, mesh
from refjax._src import placement as sharding_impl
from refjax._src import tree_util
from refjax._src.array import Array, ArrayImpl
from refjax._src.compiler import executable_for
from refjax._src.core import Primitive, ShapedArray, Tracer
from refjax._src.errors import JaxRuntimeError
from refjax._src.interpreters import key_reuse as kr
from refjax._src.interpreters import partial_eval as pe
from refjax._src.shape_dtype_struct import ShapeDtypeStruct, _shape_dtype_struct
from refjax._src.stages import Traced

# ---------------------------------------------------------------------------
# typeof
# ---------------------------------------------------------------------------

def typeof(x):
    """The abstract value of ``x``: ``float32[2,3]``, ``~float32[]`` (JIT-8)."""
    if isinstance(x, ShapeDtypeStruct):
        return ShapedArray(x.shape, dtypes.canonicalize_dtype(x.dtype), x.weak_type)
    return core.get_aval(x)


def _abstractify(x, fun, path):
    """The aval of one argument leaf, with JAX's messages (SPEC JIT-5)."""
    if isinstance(x, ShapeDtypeStruct):
        return ShapedArray(x.shape, dtypes.canonicalize_dtype(
            x.dtype, allow_extended_dtype=True), x.weak_type)
    if type(x) is int:
        try:
            return core.get_aval(x)
        except OverflowError:
            raise OverflowError(
                "An overflow was encountered while parsing an argument to a "
                f"jitted computation, whose argument path is {path}. Got "
                f"{type(x)} with value {x}") from None
    try:
        return core.get_aval(x)
    except TypeError:
        if _duck_typed(x):
            # Any object with .shape and .dtype stands for an array when
            # only tracing: eval_shape, make_jaxpr, jit(f).trace (JIT-14).
            return ShapedArray(tuple(x.shape), dtypes.canonicalize_dtype(x.dtype),
                               bool(getattr(x, "weak_type", False)))
        raise TypeError(
            f"Error interpreting argument to {fun!r} as an abstract array. "
            f"The problematic value is of type {type(x)} and was passed to the "
            f"function at path {path}.\nThis typically means that a "
            "jit-wrapped function was called with a non-array argument, and this "
            "argument was not marked as static using the static_argnums or "
            "static_argnames parameters of jax.jit.") from None


def _duck_typed(x):
    try:
        return (isinstance(x.shape, (tuple, list)) and x.dtype is not None
                and not isinstance(x, type))
    except AttributeError:
        return False


def _refuse_duck_typed(flat):
    """A call that runs a program needs arrays, not shape-and-dtype stand-ins."""
    for x in flat:
        if not core.is_array_like(x) and _duck_typed(x) and \
                type(x) not in core.pytype_aval_mappings:   # a jax.Ref is a value
            raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type.")


# ---------------------------------------------------------------------------
# The jit primitive: a call of a closed jaxpr
# ---------------------------------------------------------------------------

class _Unspecified:
    def __repr__(self):
        return "UnspecifiedValue"


UNSPECIFIED = _Unspecified()

jit_p = Primitive("jit", multiple_results=True)
jit_p.sharding_rule = sharding_impl.call_sharding_rule("jaxpr")


@jit_p.def_abstract_eval
def _jit_abstract_eval(*avals, jaxpr, **params):
    return jaxpr.out_avals


def def_call(primitive, param):
    """Make ``primitive`` one that runs the closed jaxpr in ``params[param]``
    (``jit``, ``custom_jvp_call``, ``remat2``...): eagerly it runs that
    jaxpr's compiled program; inside a compiled program its equations are
    inlined (SPEC PERF-2)."""
    def impl(*buffers, **params):
        return executable_for(params[param])(*buffers)
    primitive.def_impl(impl)
    primitive.call_param = param


def_call(jit_p, "jaxpr")


def _pp_jit(eqn, context):
    """``jit[name=f jaxpr={...}]``: name first, defaults hidden (JXP-1)."""
    params = dict(eqn.params)
    del params["inline"]
    if not any(params["donated_invars"]):
        del params["donated_invars"]
    if not params["keep_unused"]:
        del params["keep_unused"]
    for key in ("in_shardings", "out_shardings"):
        if all(s is UNSPECIFIED for s in params[key]):
            del params[key]
    inner = params["jaxpr"].jaxpr
    if inner not in context.shared_jaxprs:
        context.suggest_same_names(inner.invars, eqn.invars)
        context.suggest_same_names(inner.outvars, eqn.outvars)
    del params["name"]
    names = ["name"] + sorted(params)
    return core.pp_eqn_with_params(eqn, context, eqn.params, names)


jit_p.pp_rule = _pp_jit


def _jit_key_reuse(eqn):
    """A ``jit`` equation: its jaxpr's signature.  Keys closed over by the
    inner function are constants of that jaxpr, not operands of the
    equation, so effects on them are left out here."""
    return kr.operands_only(kr.jaxpr_signature(eqn.params["jaxpr"].jaxpr),
                          len(eqn.invars))


jit_p.key_reuse = _jit_key_reuse


# Autodiff of a jit call transforms the jaxpr it holds and binds ``jit``
# again, so the derivative is itself one compiled call (SPEC AD-14).

def _jit_params(params, closed):
    """``params`` for a ``jit`` of ``closed`` (lengths follow its arity)."""
    n_in, n_out = len(closed.jaxpr.invars), len(closed.jaxpr.outvars)
    return dict(params, jaxpr=closed, donated_invars=(False,) * n_in,
                in_shardings=(UNSPECIFIED,) * n_in,
                out_shardings=(UNSPECIFIED,) * n_out)


def _define_jit_ad_rules():
    from refjax._src.interpreters import ad
    jit_p.jvp = ad.call_jvp(jit_p, _jit_params)
    jit_p.partial_eval = ad.call_partial_eval(jit_p, _jit_params)
    jit_p.transpose = ad.call_transpose(jit_p, _jit_params)
    from refjax._src.interpreters import batching
    batching.call_batch(jit_p, _jit_params)


_define_jit_ad_rules()


# ---------------------------------------------------------------------------
# Executables: a jaxpr flattened into a list of steps over buffer slots
# ---------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# jit: resolving static and donated arguments (SPEC JIT-4, DON-4)
# ---------------------------------------------------------------------------

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY,
               inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _fun_name(fun):
    """``f.__name__``; a ``functools.partial`` without one is named after
    the function it wraps (JIT-14)."""
    name = getattr(fun, "__name__", None)
    if isinstance(name, str):
        return name
    if isinstance(fun, functools.partial):
        return _fun_name(fun.func)
    return type(fun).__name__


def _signature(fun):
    try:
        return inspect.signature(fun)
    except (TypeError, ValueError):
        return None


def _index_tuple(x):
    """An int or a sequence of ints as a tuple (``TypeError`` otherwise)."""
    try:
        return (operator.index(x),)
    except TypeError:
        return tuple(map(operator.index, x))


def _str_tuple(x):
    """A string or a sequence of strings as a tuple."""
    if isinstance(x, str):
        return (x,)
    out = tuple(x)
    for name in out:
        if not isinstance(name, str):
            raise TypeError(f"argument is not a string: {name}")
    return out


def _infer_argnums_and_argnames(sig, argnums, argnames):
    """Fill in argnames from argnums or the reverse, through the signature.

    Only positional-or-keyword parameters have both a position and a name;
    a negative argnum names no parameter (it is resolved per call).
    """
    if argnums is None and argnames is None:
        return (), ()
    if argnums is not None and argnames is not None:
        return _index_tuple(argnums), _str_tuple(argnames)
    params = list(sig.parameters.values())
    if argnums is None:
        argnames = _str_tuple(argnames)
        argnums = tuple(i for i, p in enumerate(params)
                        if p.kind is p.POSITIONAL_OR_KEYWORD and p.name in argnames)
    else:
        argnums = _index_tuple(argnums)
        argnames = tuple(p.name for i, p in enumerate(params)
                         if p.kind is p.POSITIONAL_OR_KEYWORD and i in argnums)
    return argnums, argnames


def _validate_argnums(sig, argnums, what):
    n_positional = 0
    for p in sig.parameters.values():
        if p.kind in _POSITIONAL:
            n_positional += 1
        elif p.kind is p.VAR_POSITIONAL:
            return          # any position is valid
    if argnums and (-min(argnums) > n_positional or max(argnums) >= n_positional):
        raise ValueError(f"Jitted function has {what}={argnums}, but only "
                         f"accepts {n_positional} positional arguments.")


def _validate_argnames(sig, argnames, what):
    valid, positional_only, var_kwargs = set(), set(), False
    for p in sig.parameters.values():
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            valid.add(p.name)
        elif p.kind is p.VAR_KEYWORD:
            var_kwargs = True
        else:
            positional_only.add(p.name)
    bad = positional_only & set(argnames)
    if bad:
        raise ValueError(f"Jitted function has invalid argnames {bad} in "
                         f"{what}. These are positional-only")
    bad = set(argnames) - valid
    if bad and not var_kwargs:
        raise ValueError(f"Jitted function has invalid argnames {bad} in "
                         f"{what}. Function does not take these args.")


def _resolve_argnums(fun, sig, static_argnums, static_argnames,
                     donate_argnums, donate_argnames):
    """Validated (static nums, static names, donate nums, donate names).

    Names and numbers are inferred from each other through the signature, so
    an argument marked static by position is also static when passed by
    keyword (SPEC JIT-4).  Without a signature nothing is checked.
    """
    if sig is None:
        if donate_argnames is not None:
            raise ValueError(f"Getting the signature of function {fun} failed. "
                             "Pass donate_argnums instead of donate_argnames.")
        static = (() if static_argnums is None else _index_tuple(static_argnums),
                  () if static_argnames is None else _str_tuple(static_argnames))
        donate = () if donate_argnums is None else _index_tuple(donate_argnums)
        return static + (donate, ())
    snums, snames = _infer_argnums_and_argnames(sig, static_argnums, static_argnames)
    dnums, dnames = _infer_argnums_and_argnames(sig, donate_argnums, donate_argnames)
    _validate_argnums(sig, snums, "static_argnums")
    _validate_argnames(sig, snames, "static_argnames")
    _validate_argnums(sig, dnums, "donate_argnums")
    _validate_argnames(sig, dnames, "donate_argnames")
    both = set(snames) & set(dnames)
    if both:
        raise ValueError(
            "static_argnames and donate_argnames cannot intersect. Argument "
            f"names {both} appear in both static_argnames and donate_argnames")
    return snums, snames, dnums, dnames


class _Static:
    """A static argument in a cache key (SPEC JIT-4).

    Static values are compared by type and ``==`` and hashed once; values
    that cannot be hashed raise JAX's ``ValueError``.
    """

    __slots__ = ("value", "hash")

    def __init__(self, value):
        try:
            self.hash = hash(value)
        except TypeError as e:
            raise ValueError(
                "Non-hashable static arguments are not supported. An error "
                "occurred while trying to hash an object of type "
                f"{type(value)}, {value}. The error was:\n"
                f"{type(e).__name__}: {e}\n") from None
        self.value = value

    def __hash__(self):
        return self.hash

    def __eq__(self, other):
        if not isinstance(other, _Static) or type(self.value) is not type(other.value):
            return False
        try:
            return bool(self.value == other.value)
        except Exception as e:
            # JAX reports a failing __eq__ rather than missing the cache (JIT-14).
            raise ValueError(
                "static arguments should be comparable using __eq__.The following "
                "error was raised when comparing two objects of types "
                f"{type(self.value)} and {type(other.value)}. The error was:\n"
                f"{type(e).__name__}: {e}") from e


def _hashed_statics(statics):
    """``(name or position, value)`` pairs with each value a ``_Static``."""
    return tuple((k, _Static(v)) for k, v in statics)


class _ArgNamer:
    """Argument names as JAX prints them: ``x``, ``args[1]``, ``kw['m']``."""

    def __init__(self, sig):
        self.positional, self.varargs, self.varkw, self.named = [], None, None, set()
        if sig is None:
            self.varargs, self.varkw = "args", "kwargs"
            return
        for p in sig.parameters.values():
            if p.kind in _POSITIONAL:
                self.positional.append(p.name)
            elif p.kind is p.VAR_POSITIONAL:
                self.varargs = p.name
            elif p.kind is p.VAR_KEYWORD:
                self.varkw = p.name
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
                self.named.add(p.name)

    def position(self, i):
        if i < len(self.positional):
            return self.positional[i]
        return f"{self.varargs or 'args'}[{i - len(self.positional)}]"

    def keyword(self, k):
        if k in self.named or self.varkw is None:
            return k
        return f"{self.varkw}[{k!r}]"


# ---------------------------------------------------------------------------
# jit: the caches (SPEC JIT-2, JIT-3)
# ---------------------------------------------------------------------------
#
# Two levels, as in JAX:
# * the trace cache, shared by every jit of the same function object (and by
#   make_jaxpr, eval_shape, lower): abstract signature -> traced jaxpr;
# * each jitted callable's call cache: call signature (which also tells
#   jax.Arrays from NumPy values) -> what is needed to run, including the
#   donation plan.  ``_cache_size()`` counts these.
#
# Both are bounded LRU caches (SPEC THR-4): ``lru.JIT_CACHE_SIZE`` call
# signatures per jitted callable, ``lru.TRACE_CACHE_SIZE`` traces per
# function, as in JAX.  The hot path looks a signature up in ``_fast``, a
# lock-free index of the call cache bounded the same way (SPEC THR-5).

_trace_caches = weakref.WeakKeyDictionary()   # function -> LRU {signature: _Traced}
_all_jit_functions = weakref.WeakSet()
# Guards _all_jit_functions: clear_caches iterates it while other threads
# may be creating jitted functions.
_registry_lock = threading.Lock()

_x64 = _config.enable_x64
_promotion = _config.numpy_dtype_promotion
_rank_promotion = _config.numpy_rank_promotion
_matmul_precision = _config.default_matmul_precision
_disable_jit = _config.disable_jit
_debug_nans = _config.debug_nans
_debug_infs = _config.debug_infs
_debug_key_reuse = _config.debug_key_reuse


@contextlib.contextmanager
def disable_jit(disable=True):
    """``jax.disable_jit``: inside the block jitted functions run op by op
    (SPEC DBG-8); ``disable`` (read as a bool) sets the option for the block,
    so ``disable_jit(disable=False)`` turns jit back on (SPEC API-108)."""
    with _disable_jit(bool(disable)):
        yield


_no_execution = _config.states["jax_no_execution"]
# Options that JAX keys its jit caches on because they change the trace
# (SPEC CFG-21).  (``jax_high_dynamic_range_gumbel`` is not one: JAX keeps
# a function's trace when only that option changes.)
_seed_offset = _config.states["jax_random_seed_offset"]
_explicit_x64 = _config.states["jax_explicit_x64_dtypes"]
_static_indices = _config.states["jax_check_static_indices"]
_f16_reductions = _config.states["jax_allow_f16_reductions"]


def _config_key():
    """The options a jitted call depends on.

    The first four change tracing; the next five change how the program is
    run (the last of them, ``jax_no_execution``, forbids running it); the
    four after them change tracing too (SPEC CFG-21), and so do the values
    of ``jax.make_user_context`` contexts that follow (SPEC API-12).  Read
    straight from the options' global values when no ``with`` override is
    active, since this runs on every call.
    """
    if not _config._overrides.values:
        key = (_x64._global, _promotion._global, _rank_promotion._global,
               _matmul_precision._global, _disable_jit._global,
               _debug_nans._global, _debug_infs._global, _debug_key_reuse._global,
               _no_execution._global, _seed_offset._global, _explicit_x64._global,
               _static_indices._global, _f16_reductions._global)
    else:
        key = (_x64.value, _promotion.value, _rank_promotion.value,
               _matmul_precision.value, _disable_jit.value, _debug_nans.value,
               _debug_infs.value, _debug_key_reuse.value, _no_execution.value,
               _seed_offset.value, _explicit_x64.value, _static_indices.value,
               _f16_reductions.value)
    if _config.user_contexts:
        key += _config.user_context_values()
    return key


def _trace_key_options(cfg):
    """The part of a call's options that changes its trace."""
    return cfg[:4] + cfg[9:]


def _trace_cache_for(fun):
    """The trace cache every jit of ``fun`` shares (one per function)."""
    try:
        weakref.ref(fun)
    except TypeError:       # JAX refuses such a function when it is called (JIT-14)
        return None
    try:
        cache = _trace_caches.get(fun)
        if cache is None:
            # setdefault: of two threads jitting ``fun`` at once, both
            # end up with the cache that was stored.
            cache = _trace_caches.setdefault(fun, lru.LRU(lru.TRACE_CACHE_SIZE))
        return cache
    except TypeError:           # not weakly referenceable or not hashable
        return lru.LRU(lru.TRACE_CACHE_SIZE)


class _Traced:
    """One trace of a function: its closed jaxpr and output tree."""

    __slots__ = ("closed", "out_tree", "in_tree", "_constrained", "refs")

    def __init__(self, closed, out_tree, in_tree, refs=None):
        self.closed = closed
        self.out_tree = out_tree
        self.in_tree = in_tree
        self._constrained = None   # holds sharding constraints (SHD-35)
        self.refs = refs           # how jax.Refs enter and leave (EXT-9)


class _CallEntry:
    """What a jitted callable needs to run one call signature."""

    __slots__ = ("traced", "arg_names", "in_avals", "donated", "_delete", "run",
                 "out_avals", "single", "scalar_dtypes", "copies")

    def __init__(self, traced, arg_names, in_avals, donated):
        self.traced = traced
        self.arg_names = arg_names
        self.in_avals = in_avals
        self.donated = donated          # per input leaf: donated by the user
        self._delete = None
        self.run = None
        # The trailing outputs (final values of Refs, EXT-9) are not the user's.
        self.out_avals = traced.closed.out_avals[:traced.out_tree.num_leaves]
        self.single = traced.out_tree.num_leaves == 1 and traced.out_tree.num_nodes == 1
        self.scalar_dtypes = None
        self.copies = _forwarded_outputs(traced.closed.jaxpr, len(self.out_avals))

    def deletions(self):
        """Per input leaf, whether a call deletes it (worked out, and warned
        about, once: when the program is first run or lowered)."""
        if self._delete is None and self.donated is not None:
            self._delete = _donation_plan(self.in_avals, self.donated,
                                          self.out_avals)
        return self._delete

    def call_fast(self, args):
        """Run on positional leaves already known to match (the hot path)."""
        if self.scalar_dtypes is None:
            bufs = [a._buffer for a in args]
        else:
            bufs = [a._buffer if dt is None else _scalar_buffer(a, dt)
                    for a, dt in zip(args, self.scalar_dtypes)]
        try:
            outs = self.run(*bufs)
        except MemoryError as e:        # JAX's out-of-memory error (SPEC FUZZ-2)
            raise dispatch.out_of_memory(e) from None
        if self.copies:
            _copy_outputs(outs, self.copies)
        if self.single:
            return _wrap_out(outs[0], self.out_avals[0])
        return tree_util.tree_unflatten(
            self.traced.out_tree, [_wrap_out(b, a) for b, a in zip(outs, self.out_avals)])


class _KeyReuseChecker:
    """Where the key-reuse checker (``random/key_reuse.py``, SPEC RNG-67)
    plugs into ``jit`` when ``jax_debug_key_reuse`` is on; it sits above
    this module and installs both functions when it is imported."""

    def call_jitted(self, jitted, entry, call, args, kwargs, trace):
        raise RuntimeError("the key-reuse checker is not loaded: import refjax.random")

    def check_jaxpr(self, closed):
        raise RuntimeError("the key-reuse checker is not loaded: import refjax.random")


key_reuse_checker = _KeyReuseChecker()


class _RefHooks:
    """Where ``refs.py`` (above this module) plugs ``jax.Ref`` arguments and
    captures into ``jit`` and the loops when imported (SPEC EXT-9)."""

    def trace(self, fun, avals, debug):
        return pe.trace_to_jaxpr(fun, avals, debug), None

    check_output = discover = staticmethod(lambda fun, *_: fun)


ref_hooks = _RefHooks()


def _needs_placement(entry, flat):
    """Whether a call must work out where its results live (SHD-30): a
    committed argument, or sharding constraints in the program."""
    for x in flat:
        if type(x) is ArrayImpl and x._committed:
            return True
    return sharding_impl.entry_constrained(entry)


def _scalar_buffer(x, dtype):
    _devices.guard_host_to_device(lambda: core.get_aval(x))     # SPEC CFG-27
    return _backend.get().asarray(np.asarray(x, dtype=dtype))


_devices.register_transfer_guard_site("jit arguments")


_INT32_MIN, _INT32_MAX = -(1 << 31), 1 << 31


def _fast_key(args, cfg):
    """The call signature of plain positional Arrays and Python scalars, or
    None when the slow path must look (pytrees, NumPy values, big ints...)."""
    key = [cfg]
    for a in args:
        t = type(a)
        if t is ArrayImpl:
            buf = a._buffer
            if buf is None or a._committed:   # placement needs the slow path
                return None
            key.append((buf.shape, a._dtype, a.weak_type))
        elif t is float or t is bool or t is complex or (
                t is int and _INT32_MIN <= a < _INT32_MAX):
            key.append(t)
        else:
            return None
    return tuple(key)


class _Call:
    """One call's arguments, split into static values and array leaves."""

    __slots__ = ("cfg", "flat", "in_tree", "avals", "statics", "dyn_positions",
                 "key", "names", "axis_env")


# ---------------------------------------------------------------------------
# Compile logging and the no_tracing / no_execution guards (SPEC CFG-10)
# ---------------------------------------------------------------------------

_logger = logging.getLogger(__name__)
_log_compiles = _config.states["jax_log_compiles"]
_explain_misses = _config.states["jax_explain_cache_misses"]
_no_tracing = _config.states["jax_no_tracing"]


def _log_compile(message):
    if _log_compiles.value:
        _logger.warning(message)


def _tuple_text(parts):
    """A Python tuple's text: ``(a,)`` or ``(a, b)``."""
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def _avals_text(avals):
    """``(ShapedArray(float32[], weak_type=True),)`` as JAX logs them."""
    return _tuple_text([
        f"ShapedArray({a.str_short()}"
        f"{', weak_type=True' if getattr(a, 'weak_type', False) else ''})"
        for a in avals])


def _before_trace(wrapped, call, key):
    """On a trace-cache miss: refuse under ``jax_no_tracing``, explain the
    miss under ``jax_explain_cache_misses``."""
    if _no_tracing.value:
        raise RuntimeError(f"re-tracing function {wrapped._src} for "
                           f"`{wrapped._traced_for}`, but 'no_tracing' is set")
    if _explain_misses.value:
        _logger.warning(_explain_miss(wrapped, key))


def _explain_miss(wrapped, key):
    cache = wrapped._traces
    with cache._lock:
        seen = list(cache._data)
    head = f"TRACING CACHE MISS for {wrapped._src}:\n"
    if not seen:
        return head + f"  never seen function:\n    {wrapped._name} id={id(wrapped.fun)}"
    what = ("configuration options", "input pytree structure",
            "input types", "static arguments", "bound axis names")
    closest = min(seen, key=lambda k: sum(a != b for a, b in zip(k, key)))
    diffs = [w for w, a, b in zip(what, closest, key) if a != b]
    return (head + "  all previously seen cache keys differ. For the closest "
            "previous key:\n" + "".join(f"  * different {d}\n" for d in diffs))


def _refuse_execution(traced_for, name):
    raise RuntimeError(f"JAX tried to execute function {traced_for}({name}), "
                       "but the no_execution config option is set")


# ---------------------------------------------------------------------------
# jit
# ---------------------------------------------------------------------------

class PjitFunction:
    """The callable ``jax.jit`` returns (SPEC JIT-1); its type is named
    ``PjitFunction`` as JAX's is, which libraries test for (SPEC API-107).

    Everything that depends only on ``fun`` and the jit options (signature,
    argument names, static and donated positions) is worked out here, once,
    so a call does no introspection.
    """

    def __init__(self, fun, static_argnums=None, static_argnames=None,
                 donate_argnums=None, donate_argnames=None, inline=False,
                 keep_unused=False, traced_for="jit", in_shardings=None,
                 out_shardings=None):
        core.check_callable(fun)
        _check_sharding_specs(in_shardings, "in_shardings")
        _check_sharding_specs(out_shardings, "out_shardings")
        self.in_shardings = in_shardings
        self.out_shardings = out_shardings
        self._placed = in_shardings is not None or out_shardings is not None
        self.fun = fun
        sig = _signature(fun)
        (self.static_argnums, self.static_argnames, self.donate_argnums,
         self.donate_argnames) = _resolve_argnums(
            fun, sig, static_argnums, static_argnames, donate_argnums,
            donate_argnames)
        self._static_names = frozenset(self.static_argnames)
        self._donate_nums = frozenset(self.donate_argnums)
        self._donate_names = frozenset(self.donate_argnames)
        self._namer = _ArgNamer(sig)
        self._plain = not (self.static_argnums or self.static_argnames or
                           self.donate_argnums or self.donate_argnames or
                           self._placed)
        self.inline = inline
        self.keep_unused = keep_unused
        self._traced_for = traced_for
        self._name = _fun_name(fun)
        self._src = core.fun_source_info(fun)
        self._traces = _trace_cache_for(fun)
        self._calls = lru.LRU(lru.JIT_CACHE_SIZE)
        self._fast = {}     # bounded by lru.put_bounded (SPEC THR-5)
        self._fast_max = lru.JIT_CACHE_SIZE
        functools.update_wrapper(self, fun, updated=())
        with _registry_lock:
            _all_jit_functions.add(self)

    @property
    def __signature__(self):
        """The wrapped function's signature (None if it has none): what
        ``inspect.signature`` gives even with ``follow_wrapped=False``
        (SPEC API-109)."""
        return _signature(self.fun)

    def __repr__(self):
        try:
            return f"<PjitFunction of {self.fun!r}>"
        except Exception:       # a function whose repr fails (JIT-14)
            return "<PjitFunction>"

    def __getattr__(self, name):
        """The wrapped function's own attributes (``f.some_value``; JIT-14)."""
        fun = self.__dict__.get("fun")
        if fun is None or name.startswith("__"):
            raise AttributeError(name)
        try:
            return getattr(fun, name)
        except AttributeError:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute "
                                 f"{name!r}") from None

    def __getstate__(self):
        """Pickled state; ``function_name`` as JAX names the function (JIT-14)."""
        return {**self.__dict__, "function_name": self._name}

    def __setstate__(self, state):
        state = dict(state)
        state.pop("function_name", None)
        self.__dict__.update(state)

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self, obj)

    # -- calling ----------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if self._plain and not kwargs and core._trace_state.trace is core.eval_trace:
            key = _fast_key(args, _config_key())
            entry = self._fast.get(key) if key is not None else None
            if entry is not None:
                return entry.call_fast(args)
        return self._call(args, kwargs)

    def _call(self, args, kwargs):
        """The general path: any arguments, any trace, debug options."""
        cfg = _config_key()
        if cfg[4]:                                  # jax_disable_jit
            return self.fun(*args, **kwargs)
        call = self._parse(args, kwargs, cfg)
        entry = self._entry(call)
        trace = core.current_trace()
        if cfg[8] and trace is core.eval_trace:      # jax_no_execution
            _refuse_execution(self._traced_for, self._name)
        if trace is core.eval_trace and not all(call.key[3]):   # not all arrays
            _refuse_duck_typed(call.flat)
        if entry.traced.refs is not None:           # jax.Ref in or out (EXT-9)
            return ref_hooks.call_jit(self, entry, call)
        if cfg[7]:                          # key reuse (SPEC RNG-67, RNG-68)
            return key_reuse_checker.call_jitted(self, entry, call, args, kwargs, trace)
        if trace is not core.eval_trace:
            outs = self._bind(entry, call.flat)
        elif cfg[5] or cfg[6]:
            outs = self._execute_checked(entry, call.flat, args, kwargs, cfg)
        elif self._placed or _needs_placement(entry, call.flat):
            outs = sharding_impl.run_jit(self, entry, call, _execute)
        else:
            outs = _execute(entry, call.flat)
            self._remember_fast(entry, call, args, kwargs, cfg)
        return tree_util.tree_unflatten(entry.traced.out_tree, outs)

    def _remember_fast(self, entry, call, args, kwargs, cfg):
        """Let later calls with this signature take the hot path."""
        if not self._plain or kwargs:
            return
        if sharding_impl.entry_constrained(entry):
            return
        key = _fast_key(args, cfg)
        if key is None:
            return
        if any(type(a) is not ArrayImpl for a in args):
            entry.scalar_dtypes = tuple(None if type(a) is ArrayImpl else av.dtype
                                        for a, av in zip(args, call.avals))
        lru.put_bounded(self._fast, key, entry, self._fast_max)

    # -- shardings (SPEC SHD-30) --------------------------------------------------
    def _flat_in_shardings(self, call):
        """Per flat argument leaf: its ``in_shardings`` entry or None."""
        dyn_args, dyn_kwargs = tree_util.tree_unflatten(call.in_tree, call.flat)
        args_tree = tree_util.tree_structure(dyn_args)
        n_kw = len(call.flat) - args_tree.num_leaves
        if self.in_shardings is None:
            return [None] * len(call.flat)
        spec = self.in_shardings
        if isinstance(spec, list):
            spec = tuple(spec)
        if n_kw:
            raise ValueError("pjit does not support kwargs when in_shardings is "
                             "specified.")
        return sharding_impl.flat_shardings(spec, args_tree, ("jit", "in_shardings"))

    def _flat_out_shardings(self, entry):
        spec = self.out_shardings
        if isinstance(spec, list):
            spec = tuple(spec)
        return sharding_impl.flat_shardings(spec, entry.traced.out_tree,
                                            ("jit", "out_shardings"))

    # -- arguments --------------------------------------------------------------
    def _parse(self, args, kwargs, cfg):
        """Split static from dynamic arguments; abstract the dynamic leaves."""
        nargs = len(args)
        static_pos = {i + nargs if i < 0 else i for i in self.static_argnums}
        statics, dyn_positions, dyn_args = [], [], []
        for i, a in enumerate(args):
            if i in static_pos:
                statics.append((i, a))
            else:
                dyn_positions.append(i)
                dyn_args.append(a)
        dyn_kwargs = {}
        for k in sorted(kwargs):
            if k in self._static_names:
                statics.append((k, kwargs[k]))
            else:
                dyn_kwargs[k] = kwargs[k]
        call = _Call()
        call.cfg = cfg
        call.flat, call.in_tree = tree_util.tree_flatten((tuple(dyn_args), dyn_kwargs))
        call.dyn_positions = tuple(dyn_positions)
        call.names = None
        # JAX's order (FUZZ-3): a dynamic leaf that is no JAX type (TypeError),
        # then an unhashable static argument (ValueError), then an int too
        # large for its dtype (OverflowError).
        try:
            call.avals = self._avals(call, dyn_positions, dyn_args, dyn_kwargs)
        except OverflowError:
            _hashed_statics(statics)
            raise
        call.statics = _hashed_statics(statics)
        kinds = tuple(type(x) is ArrayImpl for x in call.flat)
        # Names bound by vmap may appear in collectives of the trace.
        call.axis_env = core.axis_env_key()
        call.key = (cfg, call.in_tree, tuple(call.avals), kinds, call.statics,
                    call.axis_env)
        return call

    def _avals(self, call, dyn_positions, dyn_args, dyn_kwargs):
        try:
            return [x.aval if isinstance(x, Tracer) else core.get_aval(x)
                    for x in call.flat]
        except (TypeError, OverflowError):
            pass            # redo leaf by leaf, naming the culprit
        names = self._leaf_names(dyn_positions, dyn_args, dyn_kwargs)
        return [_abstractify(x, self.fun, n) for x, n in zip(call.flat, names)]

    def _leaf_names(self, dyn_positions, dyn_args, dyn_kwargs):
        """``x``, ``d['a'][1]``, ``args[0]``: one name per dynamic leaf."""
        names = []
        for i, a in zip(dyn_positions, dyn_args):
            base = self._namer.position(i)
            names.extend(base + tree_util.keystr(path)
                         for path, _ in tree_util.tree_flatten_with_path(a)[0])
        for k, v in dyn_kwargs.items():
            base = self._namer.keyword(k)
            names.extend(base + tree_util.keystr(path)
                         for path, _ in tree_util.tree_flatten_with_path(v)[0])
        return names

    def _donated(self, call):
        """Per dynamic leaf: whether the user donated it (SPEC DON-1).

        Donated positions are matched literally (a negative number donates
        nothing); keyword arguments by name.  Donation is off under
        ``jax_debug_nans``, as in JAX.
        """
        if not (self._donate_nums or self._donate_names) or _debug_nans.value:
            return None
        dyn_args, dyn_kwargs = tree_util.tree_unflatten(call.in_tree, call.flat)
        flags = []
        for i, a in zip(call.dyn_positions, dyn_args):
            flags.extend([i in self._donate_nums] * len(tree_util.tree_leaves(a)))
        for k, v in dyn_kwargs.items():
            flags.extend([k in self._donate_names] * len(tree_util.tree_leaves(v)))
        return tuple(flags) if any(flags) else None

    # -- tracing ----------------------------------------------------------------
    def _entry(self, call):
        """The call entry for ``call``, tracing on a miss of both caches."""
        entry = self._calls.get(call.key)
        if entry is not None:
            return entry
        traced = self._traced(call)
        if call.names is None:
            call.names = self._names_of(call)
        entry = _CallEntry(traced, call.names, call.avals, self._donated(call))
        _log_compile(f"Compiling {self._traced_for}({self._name}) with global "
                     f"shapes and types {_avals_text(call.avals)}. Argument "
                     f"mapping: {_tuple_text(['UnspecifiedValue'] * len(call.avals))}.")
        if _cacheable(entry.traced):
            self._calls[call.key] = entry
        return entry

    def _names_of(self, call):
        dyn_args, dyn_kwargs = tree_util.tree_unflatten(call.in_tree, call.flat)
        return tuple(self._leaf_names(call.dyn_positions, dyn_args, dyn_kwargs))

    def _traced(self, call):
        key = (_trace_key_options(call.cfg), call.in_tree, tuple(call.avals),
               call.statics, call.axis_env)
        if self._traces is None:
            raise TypeError("cannot create weak reference to "
                            f"'{type(self.fun).__name__}' object")
        traced = self._traces.get(key)
        if traced is None:
            _before_trace(self, call, key)
            start = time.perf_counter()
            traced = self._trace_now(call)
            _log_compile(f"Finished tracing {self._name} for {self._traced_for} "
                         f"in {time.perf_counter() - start:.9f} sec")
            if _cacheable(traced):
                self._traces[key] = traced
        return traced

    def _trace_now(self, call):
        """Run ``fun`` on tracers: the only place user code runs under jit."""
        call.names = self._names_of(call)
        debug = core.DebugInfo(self._traced_for, self._src, call.names)
        static_pos = {k: s.value for k, s in call.statics if isinstance(k, int)}
        static_kw = {k: s.value for k, s in call.statics if isinstance(k, str)}
        nargs = len(call.dyn_positions) + len(static_pos)
        out_tree_box = []

        def flat_fun(*leaves):
            dyn_args, dyn_kwargs = tree_util.tree_unflatten(call.in_tree, leaves)
            dyn = iter(dyn_args)
            full = [static_pos[i] if i in static_pos else next(dyn)
                    for i in range(nargs)]
            out = self.fun(*full, **dyn_kwargs, **static_kw)
            out_paths, out_tree = tree_util.tree_flatten_with_path(out)
            for path, leaf in out_paths:
                self._check_output(leaf, path)
            out_tree_box.append(out_tree)
            return [leaf for _, leaf in out_paths]

        closed, refs = ref_hooks.trace(flat_fun, call.avals, debug)
        return _Traced(closed, out_tree_box[0], call.in_tree, refs)

    def _check_output(self, leaf, path):
        # ``Array`` covers key arrays closed over as constants (SPEC API-110).
        if isinstance(leaf, (Tracer, Array, np.ndarray, np.generic, *core._SCALAR_TYPES)) \
                or type(leaf) in core.opaque_types:
            return
        ref_hooks.check_output(self, leaf, path)
        where = f" at output component {tree_util.keystr(path)}" if path else ""
        raise TypeError(
            f"function {self._src} traced for {self._traced_for} returned a "
            f"value of type {type(leaf)}{where}, which is not a valid JAX type")

    # -- running ------------------------------------------------------------------
    def _bind(self, entry, flat):
        """Under another trace: one ``jit`` equation (or the body, inlined)."""
        closed, hoisted = pe.closure_convert(entry.traced.closed)
        if self.inline:
            return core.eval_jaxpr(closed.jaxpr, closed.consts, *hoisted, *flat)
        n = len(hoisted) + len(flat)
        donated = (False,) * len(hoisted) + (entry.donated or (False,) * len(flat))
        return jit_p.bind(*hoisted, *flat, jaxpr=closed, name=self._name,
                          donated_invars=donated, inline=self.inline,
                          keep_unused=self.keep_unused,
                          in_shardings=(UNSPECIFIED,) * n,
                          out_shardings=(UNSPECIFIED,) * len(closed.jaxpr.outvars))

    def _execute_checked(self, entry, flat, args, kwargs, cfg):
        """Run, then look for NaN/Inf in the outputs (SPEC NAN-3).

        On a hit, the function is run again without ``jit``, op by op, so
        that the primitive that produced the value raises; if that run
        finds nothing, the jitted result itself is reported.
        """
        outs = _execute(entry, flat)
        bad = _first_invalid(outs, entry.out_avals, nans=cfg[5], infs=cfg[6])
        if bad is None:
            return outs
        print("Invalid nan value encountered in the output of a jax.jit "
              "function. Calling the de-optimized version.")
        try:
            self.fun(*args, **kwargs)
        except (FloatingPointError, ZeroDivisionError) as e:
            raise e from None
        raise FloatingPointError(
            f"{('jit(' + self._name + ')', bad)}. Because "
            "jax_config.debug_nans.value and/or config.jax_debug_infs is set, the "
            "de-optimized function (i.e., the function as if the `jit` "
            "decorator were removed) was called in an attempt to get a more "
            "precise error message. However, the de-optimized function did not "
            "produce invalid values during its execution. This behavior can "
            "result from `jit` optimizations causing the invalid value to be "
            "produced. It may also arise from having nan/inf literals as "
            "inputs or outputs, like `jax.jit(lambda ...: jax.numpy.nan)(...)`. "
            "\n\nIt may be possible to avoid the invalid value by removing the "
            "`jit` decorator, at the cost of losing optimizations. \n\n"
            "If you see this error, consider opening a bug report at "
            "https://github.com/jax-ml/jax.") from None

    # -- introspection and AOT --------------------------------------------------
    def _cache_size(self):
        """How many call signatures this jitted function has compiled for."""
        return len(self._calls)

    def clear_cache(self):
        self._calls.clear()
        self._fast.clear()
        if self._traces is not None:
            self._traces.clear()

    def _entry_for(self, args, kwargs):
        call = self._parse(args, kwargs, _config_key())
        return self._entry(call), call

    def trace(self, *args, **kwargs):
        entry, call = self._entry_for(args, kwargs)
        return Traced(self, entry, call)

    def _run_compiled(self, entry, flat):
        """Run ``Compiled(...)``'s program, as a call of ``self`` would."""
        if _no_execution.value:
            _refuse_execution("jit", self._name)
        return _execute(entry, flat)

    def lower(self, *args, **kwargs):
        return self.trace(*args, **kwargs).lower()

    def eval_shape(self, *args, **kwargs):
        """The outputs' ShapeDtypeStructs, with ``out_shardings`` (JIT-14)."""
        entry, _ = self._entry_for(args, kwargs)
        outs = [_shape_dtype_struct(a) for a in entry.out_avals]
        if self.out_shardings is not None:
            outs = [o if s is None else ShapeDtypeStruct(
                        o.shape, o.dtype, weak_type=o.weak_type, sharding=s)
                    for o, s in zip(outs, self._flat_out_shardings(entry))]
        return tree_util.tree_unflatten(entry.traced.out_tree, outs)


def _is_sharding_spec(s):
    return s is None or s is UNSPECIFIED or isinstance(
        s, (mesh.Sharding, mesh.PartitionSpec))


def _check_sharding_specs(specs, option):
    """``in_shardings``/``out_shardings`` are pytrees whose leaves are
    Shardings, PartitionSpecs or None; anything else is a ``TypeError`` when
    ``jit`` is called, before any tracing (SPEC JIT-11)."""
    if specs is None:
        return
    for leaf in tree_util.tree_leaves(specs, is_leaf=_is_sharding_spec):
        if not _is_sharding_spec(leaf):
            raise TypeError(
                f"{option} leaf specifications are expected to be PartitionSpec "
                f"instances or None, but got {leaf}")


def _cacheable(traced):
    """A jaxpr closing over tracers (or Refs, EXT-9) of an enclosing trace
    is valid only inside that trace, so it is never cached."""
    return not (any(isinstance(c, Tracer) for c in traced.closed.consts)
                or traced.refs is not None and not traced.refs.cacheable)


def _first_invalid(outs, avals, nans, infs):
    """``'nan'`` or ``'inf'`` for the first output buffer holding one."""
    xp = _backend.get().xp
    for b, a in zip(outs, avals):
        if not dtypes.issubdtype(a.dtype, np.inexact):
            continue
        host = np.asarray(_backend.get().to_host(xp.asarray(b)))
        if host.dtype.kind == "V" or host.dtype not in (np.float16, np.float32,
                                                        np.float64, np.complex64,
                                                        np.complex128):
            host = host.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
        if nans and np.isnan(host).any():
            return "nan"
        if infs and np.isinf(host).any():
            return "inf"
    return None


def _donation_plan(in_avals, donated, out_avals):
    """Which donated inputs an output can reuse (SPEC DON-2).

    As XLA:CPU does it: first each output takes the first unused donated
    input of the same shape and dtype; then inputs still unused take an
    unclaimed output with the same number of elements.  The rest are
    reported in one ``UserWarning`` and left alive.
    """
    from collections import defaultdict, deque
    by_type = defaultdict(deque)
    for i, (a, d) in enumerate(zip(in_avals, donated)):
        if d:
            by_type[(a.shape, a.dtype)].append(i)
    used, claimed = set(), set()
    for j, a in enumerate(out_avals):
        queue = by_type.get((a.shape, a.dtype))
        if queue:
            used.add(queue.popleft())
            claimed.add(j)
    by_size = defaultdict(deque)
    for j, a in enumerate(out_avals):
        if j not in claimed:
            by_size[a.size].append(j)
    for i, (a, d) in enumerate(zip(in_avals, donated)):
        if d and i not in used and by_size.get(a.size):
            by_size[a.size].popleft()
            used.add(i)
    unusable = [str(a) for i, (a, d) in enumerate(zip(in_avals, donated))
                if d and i not in used]
    if unusable:
        warnings.warn(
            f"Some donated buffers were not usable: {', '.join(unusable)}.\n"
            "See an explanation at "
            "https://docs.jax.dev/en/latest/faq.html#buffer-donation.",
            UserWarning, stacklevel=6)
    return tuple(i in used for i in range(len(in_avals)))


def _to_buffers(flat):
    return [x._value if type(x) is ArrayImpl else core.to_buffer(x) for x in flat]


def _wrap_out(buffer, aval):
    """An output buffer as an Array (a key array for key avals, RNG-3)."""
    if isinstance(aval.dtype, dtypes.ExtendedDType) or type(aval) is not ShapedArray:
        return core.wrap_buffer(buffer, aval)       # keys, tokens
    if aval.dtype.kind == "V" and aval.dtype == dtypes.float0:
        # float0 is no array dtype: JAX hands back NumPy zeros (DT-19)
        return np.zeros(aval.shape, dtypes.float0)
    return ArrayImpl(buffer, aval.dtype, aval.weak_type)


def _execute(entry, flat):
    """Run a call entry's program on concrete leaves (SPEC JIT-2, DON-1)."""
    if entry.run is None:
        entry.run = executable_for(entry.traced.closed)
    if entry.donated is not None:
        _check_donated_once(flat, entry.deletions())
    try:
        out = entry.run(*_to_buffers(flat))
    except MemoryError as e:            # JAX's out-of-memory error (SPEC FUZZ-2)
        raise dispatch.out_of_memory(e) from None
    if entry.copies:
        _copy_outputs(out, entry.copies)
    results = [_wrap_out(b, a) for b, a in zip(out, entry.out_avals)]
    if entry.donated is not None:
        for x, d in zip(flat, entry.deletions()):
            if d and isinstance(x, ArrayImpl):
                x.delete()
    return results


def _forwarded_outputs(jaxpr, n_out):
    """Output positions whose buffer a run would share with an input, a
    constant or an earlier output: each call copies them, so every output
    of a jitted call is a buffer of its own, as XLA's are (SPEC JIT-14)."""
    shared = set(jaxpr.invars) | set(jaxpr.constvars)
    copies = []
    for i, v in enumerate(jaxpr.outvars[:n_out]):
        if isinstance(v, core.Literal) or v in shared:
            copies.append(i)
        shared.add(v)
    return tuple(copies)


def _copy_outputs(outs, positions):
    xp = _backend.get().xp
    for i in positions:
        outs[i] = xp.array(outs[i], copy=True)


def _check_donated_once(flat, deleted):
    """A buffer the call donates may be passed only once (SPEC JIT-12).

    As XLA does when it runs a program: donating an array that another
    argument of the same call also passes (``f(x, x)`` donating either) is
    a ``JaxRuntimeError``, raised before anything runs or is deleted.
    """
    first = {}
    for i, (x, donates) in enumerate(zip(flat, deleted)):
        if type(x) is not ArrayImpl:
            continue
        seen = first.setdefault(id(x), (i, donates))
        if seen[0] == i or not (donates or seen[1]):
            continue
        if donates and seen[1]:
            what, toy = ("Attempt to donate the same buffer twice in Execute()",
                         "f(donate(a), donate(a))")
        elif donates:
            what, toy = ("Attempt to donate a buffer which is also used by the "
                         "same call to Execute()", "f(a, donate(a))")
        else:
            what, toy = ("Attempt to use a buffer that was previously donated in "
                         "the same call to Execute()", "f(donate(a), a)")
        raise JaxRuntimeError(
            f"INVALID_ARGUMENT: {what} (flattened argument {i}, "
            f"replica 0, partition 0, first use: {seen[0]}). Toy example for "
            f"this bug: `{toy}`.")


_NOT_GIVEN = object()


def jit(fun=_NOT_GIVEN, *, in_shardings=None, out_shardings=None, static_argnums=None,
        static_argnames=None, donate_argnums=None, donate_argnames=None,
        keep_unused=False, device=None, backend=None, inline=False,
        abstracted_axes=None, compiler_options=None):
    """Compile ``fun`` by tracing it once per abstract signature (SPEC JIT-1).

    ``jax.jit(f, ...)`` or, as a decorator factory, ``jax.jit(static_argnums=...)``;
    every option is keyword-only.
    """
    if fun is _NOT_GIVEN:
        return functools.partial(
            jit, static_argnums=static_argnums, static_argnames=static_argnames,
            donate_argnums=donate_argnums, donate_argnames=donate_argnames,
            keep_unused=keep_unused, inline=inline, in_shardings=in_shardings,
            out_shardings=out_shardings)
    return PjitFunction(fun, static_argnums, static_argnames, donate_argnums,
                      donate_argnames, inline, keep_unused,
                      in_shardings=in_shardings, out_shardings=out_shardings)


def clear_caches():
    """Drop every jit cache entry, compiled program, eager plan and cached
    transformed jaxpr (SPEC JIT-6, THR-6)."""
    with _registry_lock:
        jitted = list(_all_jit_functions)
    for f in jitted:
        f.clear_cache()
    _trace_caches.clear()
    compiler.clear_cache()
    lru.clear_all()


# ---------------------------------------------------------------------------
# make_jaxpr and eval_shape
# ---------------------------------------------------------------------------

def make_jaxpr(fun, static_argnums=(), axis_env=None, return_shape=False,
               abstracted_axes=None):
    """A function returning the ``ClosedJaxpr`` of ``fun`` (SPEC TRC-4).

    It shares jit's trace cache; ``static_argnums`` are Python values fixed
    at trace time; ``return_shape=True`` also returns the output
    ``ShapeDtypeStruct``s.
    """
    if not callable(fun):
        raise TypeError("the first argument must be callable")
    static_argnums = () if static_argnums is None else _index_tuple(static_argnums)

    @functools.wraps(fun)
    def make_jaxpr_f(*args, **kwargs):
        wrapped = _tracing_only(PjitFunction(fun, static_argnums))
        with contextlib.ExitStack() as stack:
            for name, size in axis_env or ():
                stack.enter_context(core.extend_axis_env(name, size))
            entry, _ = wrapped._entry_for(args, kwargs)
        closed = entry.traced.closed
        if _config.debug_key_reuse.value:   # checked at trace time (SPEC RNG-67)
            key_reuse_checker.check_jaxpr(closed)
        if not return_shape:
            return closed
        shapes = [_shape_dtype_struct(a) for a in entry.out_avals]
        return closed, tree_util.tree_unflatten(entry.traced.out_tree, shapes)

    # JAX's names for the wrapper (JIT-14).
    make_jaxpr_f.__name__ = f"make_jaxpr({getattr(fun, '__name__', fun)})"
    make_jaxpr_f.__qualname__ = f"make_jaxpr({getattr(fun, '__qualname__', fun)})"
    make_jaxpr_f.__module__ = "jax"
    return make_jaxpr_f


def eval_shape(fun, *args, **kwargs):
    """The output ``ShapeDtypeStruct``s of ``fun``, traced but not run (JIT-8)."""
    return _tracing_only(PjitFunction(fun)).eval_shape(*args, **kwargs)


def _tracing_only(wrapped):
    """Tracing without running needs no weak reference to the function:
    a callable without one gets a private trace cache (JIT-14)."""
    if wrapped._traces is None:
        wrapped._traces = lru.LRU(lru.TRACE_CACHE_SIZE)
    return wrapped


def block_until_ready(x):
    """Wait for every array in the pytree ``x``; returns ``x``."""
    if type(x) is ArrayImpl:        # one array: no pytree walk (PERF-1)
        return x.block_until_ready()
    for leaf in tree_util.tree_leaves(x):
        if isinstance(leaf, ArrayImpl):
            leaf.block_until_ready()
    return x


def device_put(x, device=None, *, src=None, donate=False, may_alias=None):
    """Arrays for every leaf of ``x``; committed to ``device`` (a Device or
    a Sharding) when one is given (SPEC SHD-13)."""
    return sharding_impl.device_put(x, device, src=src, donate=donate,
                                    may_alias=may_alias)


def device_get(x):
    """NumPy arrays for every Array leaf of ``x``."""
    def get(leaf):
        return np.asarray(leaf) if isinstance(leaf, ArrayImpl) else leaf
    return tree_util.tree_map(get, x)


def effects_barrier():
    """Wait until every debug callback issued so far has run (all are synchronous)."""
    return None


def ensure_compile_time_eval():
    """Evaluate operations on concrete values now, even while tracing (TRC-5).

    Operations on tracers inside the block are still staged.
    """
    trace = core.current_trace()
    if trace is core.eval_trace:
        return core.set_current_trace(trace)
    return core.set_current_trace(core.CompileTimeEvalTrace(trace))

