"""``jit``, ``make_jaxpr``, ``eval_shape`` and friends (SPEC JIT-1 .. JIT-12).

``jit(f)`` traces ``f`` once per *abstract signature* of its arguments (the
pytree structure, each leaf's shape, dtype and weak type, and the values of
static arguments) into a jaxpr, "compiles" it into a straight-line program
over backend buffers, and runs that program on later calls with the same
signature.  Python side effects therefore happen only while tracing.

Under another trace (``jit`` inside ``jit``, ``make_jaxpr``), calling a jitted
function records one ``jit`` equation holding the inner jaxpr.
"""
import functools
import inspect
import warnings
import weakref

import numpy as np

from refjax._src import config as _config
from refjax._src import core
from refjax._src import dtypes
from refjax._src import errors
from refjax._src import partial_eval as pe
from refjax._src import tree_util
from refjax._src.array import ArrayImpl
from refjax._src.core import Primitive, ShapedArray, Tracer


# ---------------------------------------------------------------------------
# ShapeDtypeStruct
# ---------------------------------------------------------------------------

class ShapeDtypeStruct:
    """A shape, dtype and weak type standing in for an array (``eval_shape``)."""

    __slots__ = ("shape", "dtype", "weak_type", "sharding")

    def __init__(self, shape, dtype, *, weak_type=False, sharding=None):
        self.shape = tuple(shape)
        self.dtype = dtypes.canonicalize_dtype(dtypes.to_dtype(dtype))
        self.weak_type = bool(weak_type)
        self.sharding = sharding

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{weak})"

    def __eq__(self, other):
        return (isinstance(other, ShapeDtypeStruct) and
                (self.shape, self.dtype, self.weak_type) ==
                (other.shape, other.dtype, other.weak_type))

    def __hash__(self):
        return hash((self.shape, self.dtype, self.weak_type))


def _abstractify(x, path_name):
    """The aval of one argument leaf, with JAX's message for non-arrays."""
    if isinstance(x, ShapeDtypeStruct):
        return ShapedArray(x.shape, x.dtype, x.weak_type)
    try:
        return core.get_aval(x)
    except TypeError:
        raise TypeError(
            f"Error interpreting argument to {path_name[0]} as an abstract array. "
            f"The problematic value is of type {type(x)} and was passed to the "
            f"function at path {path_name[1]}.\nThis typically means that a "
            "jit-wrapped function was called with a non-array argument, and this "
            "argument must be marked as static using the static_argnums or "
            "static_argnames parameters of jax.jit.") from None


# ---------------------------------------------------------------------------
# The jit primitive: a call of a closed jaxpr
# ---------------------------------------------------------------------------

class _Unspecified:
    def __repr__(self):
        return "UnspecifiedValue"


UNSPECIFIED = _Unspecified()

jit_p = Primitive("jit", multiple_results=True)


@jit_p.def_abstract_eval
def _jit_abstract_eval(*avals, jaxpr, **params):
    return jaxpr.out_avals


@jit_p.def_impl
def _jit_impl(*buffers, jaxpr, **params):
    return executable_for(jaxpr)(*buffers)


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


# ---------------------------------------------------------------------------
# Executables: a jaxpr flattened into a list of steps over buffer slots
# ---------------------------------------------------------------------------

_executables = weakref.WeakKeyDictionary()


def executable_for(closed):
    """The compiled program for ``closed`` (built once per jaxpr)."""
    exe = _executables.get(closed)
    if exe is None:
        exe = _executables[closed] = compile_jaxpr(closed)
    return exe


def compile_jaxpr(closed):
    """Turn a closed jaxpr into ``run(*buffers) -> [buffers]`` (SPEC JIT-10).

    Every variable gets a slot in a flat list; constants and literals are
    converted to buffers once, here, rather than on every call.
    """
    jaxpr = closed.jaxpr
    slots = {}
    template = []

    def slot_of(atom):
        if isinstance(atom, core.Literal):
            template.append(core.to_buffer(atom.val))
            return len(template) - 1
        if atom not in slots:
            slots[atom] = len(template)
            template.append(None)
        return slots[atom]

    for v, c in zip(jaxpr.constvars, closed.consts):
        template.append(core.to_buffer(c))
        slots[v] = len(template) - 1
    in_slots = [slot_of(v) for v in jaxpr.invars]
    steps = []
    for eqn in _live_equations(jaxpr):
        ins = tuple(slot_of(v) for v in eqn.invars)
        outs = tuple(slot_of(v) for v in eqn.outvars)
        steps.append((eqn.primitive, eqn.params, ins, outs,
                      [v.aval for v in eqn.outvars]))
    out_slots = [slot_of(v) for v in jaxpr.outvars]

    def run(*buffers):
        env = list(template)
        for i, b in zip(in_slots, buffers):
            env[i] = b
        check = _config.debug_nans.value or _config.debug_infs.value
        for prim, params, ins, outs, avals in steps:
            result = prim.impl(*[env[i] for i in ins], **params)
            if not prim.multiple_results:
                result = (result,)
            for i, r, aval in zip(outs, result, avals):
                env[i] = _as_dtype(r, aval)
            if check:
                core.check_nans(prim.name, [core.wrap_buffer(env[i], a)
                                            for i, a in zip(outs, avals)])
        return [env[i] for i in out_slots]

    return run


def _live_equations(jaxpr):
    """The equations worth running: effectful ones, and those whose outputs
    are used (dead code is skipped, as XLA would; SPEC DBG-6)."""
    live = {v for v in jaxpr.outvars if isinstance(v, core.Var)}
    kept = []
    for eqn in reversed(jaxpr.eqns):
        if _has_effects(eqn) or any(v in live for v in eqn.outvars):
            kept.append(eqn)
            live.update(v for v in eqn.invars if isinstance(v, core.Var))
    kept.reverse()
    return kept


def _has_effects(eqn):
    """Whether ``eqn`` or a jaxpr nested in it calls back into Python."""
    return eqn.primitive.effectful or any(
        _has_effects(e) for sub in core.jaxprs_in_params(eqn.params) for e in sub.eqns)


def _as_dtype(buffer, aval):
    dt = getattr(buffer, "dtype", None)
    if dt is None or dt != aval.dtype or not hasattr(buffer, "shape"):
        from refjax._src import backend
        buffer = backend.get().xp.asarray(buffer).astype(aval.dtype)
    return buffer


# ---------------------------------------------------------------------------
# jit
# ---------------------------------------------------------------------------

_all_jit_functions = weakref.WeakSet()


def _normalize_argnums(argnums, nargs_hint=None):
    if argnums is None:
        return ()
    if isinstance(argnums, int):
        return (argnums,)
    return tuple(int(a) for a in argnums)


def _normalize_argnames(argnames):
    if argnames is None:
        return ()
    if isinstance(argnames, str):
        return (argnames,)
    return tuple(argnames)


def _signature(fun):
    try:
        return inspect.signature(fun)
    except (TypeError, ValueError):
        return None


def _infer_names_and_nums(sig, nums, names):
    """Fill in static/donated argnames from argnums and back (as JAX does)."""
    if sig is None:
        return nums, names
    params = list(sig.parameters.values())
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                  p.POSITIONAL_OR_KEYWORD)]
    names = tuple(names) + tuple(
        positional[i].name for i in nums
        if -len(positional) <= i < len(positional)
        and positional[i].kind != positional[i].POSITIONAL_ONLY
        and positional[i].name not in names)
    by_name = {p.name: i for i, p in enumerate(positional)}
    nums = tuple(nums) + tuple(by_name[n] for n in names
                               if n in by_name and by_name[n] not in nums)
    return nums, names


class _HashableStatic:
    """A static argument in a cache key, hashed once with JAX's error."""

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
        if not isinstance(other, _HashableStatic):
            return False
        if type(self.value) is not type(other.value):
            return False
        try:
            return bool(self.value == other.value)
        except Exception:
            return False


def _config_key():
    """The options that change tracing, so they are part of the cache key."""
    return (_config.enable_x64.value, _config.numpy_dtype_promotion.value,
            _config.numpy_rank_promotion.value, _config.default_matmul_precision.value)


class _CacheEntry:
    __slots__ = ("closed", "out_tree", "run", "hoisted", "donated")

    def __init__(self, closed, out_tree, donated):
        self.closed = closed
        self.out_tree = out_tree
        self.donated = donated
        self.run = None


class JitWrapped:
    """The callable ``jax.jit`` returns (SPEC JIT-1)."""

    def __init__(self, fun, static_argnums, static_argnames, donate_argnums,
                 donate_argnames, inline, keep_unused):
        if not callable(fun):
            raise TypeError(f"Expected a callable value, got {fun!r}")
        self.fun = fun
        self._sig = _signature(fun)
        self.static_argnums, self.static_argnames = _infer_names_and_nums(
            self._sig, _normalize_argnums(static_argnums),
            _normalize_argnames(static_argnames))
        self.donate_argnums, self.donate_argnames = _infer_names_and_nums(
            self._sig, _normalize_argnums(donate_argnums),
            _normalize_argnames(donate_argnames))
        self.inline = inline
        self.keep_unused = keep_unused
        self._cache = {}
        self._name = getattr(fun, "__name__", type(fun).__name__)
        functools.update_wrapper(self, fun, updated=())
        _all_jit_functions.add(self)

    def __repr__(self):
        return f"<PjitFunction of {self.fun!r}>"

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self, obj)

    # -- argument handling ------------------------------------------------------
    def _split_args(self, args, kwargs):
        """(dynamic args, dynamic kwargs, static key) with JAX's checks."""
        nargs = len(args)
        statics = []
        dyn_args = []
        static_nums = {i % nargs if -nargs <= i < nargs else i
                       for i in self.static_argnums} if nargs else set()
        for i, a in enumerate(args):
            if i in static_nums:
                statics.append((i, _HashableStatic(a)))
            else:
                dyn_args.append((i, a))
        dyn_kwargs = {}
        for k in sorted(kwargs):
            if k in self.static_argnames:
                statics.append((k, _HashableStatic(kwargs[k])))
            else:
                dyn_kwargs[k] = kwargs[k]
        return dyn_args, dyn_kwargs, tuple(statics)

    def _arg_names(self, dyn_args, dyn_kwargs):
        params = list(self._sig.parameters.values()) if self._sig else []
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                      p.POSITIONAL_OR_KEYWORD)]
        names = []
        for i, a in dyn_args:
            base = positional[i].name if i < len(positional) else f"args[{i}]"
            names.extend(base + tree_util.keystr(path)
                         for path, _ in tree_util.tree_flatten_with_path(a)[0])
        for k, v in dyn_kwargs.items():
            names.extend(k + tree_util.keystr(path)
                         for path, _ in tree_util.tree_flatten_with_path(v)[0])
        return tuple(names)

    def _donated_leaves(self, dyn_args, dyn_kwargs):
        nargs = len(dyn_args) + len(dyn_kwargs)
        flags = []
        donate_nums = set(self.donate_argnums)
        for i, a in dyn_args:
            n = len(tree_util.tree_leaves(a))
            flags.extend([i in donate_nums] * n)
        for k, v in dyn_kwargs.items():
            n = len(tree_util.tree_leaves(v))
            flags.extend([k in self.donate_argnames] * n)
        del nargs
        return tuple(flags)

    # -- tracing ----------------------------------------------------------------
    def _trace(self, args, kwargs):
        """(entry, flat args) for this call, tracing on a cache miss."""
        dyn_args, dyn_kwargs, statics = self._split_args(args, kwargs)
        flat, in_tree = tree_util.tree_flatten(
            ([a for _, a in dyn_args], dyn_kwargs))
        avals = []
        for x in flat:
            if type(x) in core._SCALAR_TYPES or isinstance(x, (Tracer, ArrayImpl)):
                avals.append(core.get_aval(x))
            else:
                avals.append(None)
        if None in avals:
            names = self._arg_names(dyn_args, dyn_kwargs)
            avals = [_abstractify(x, (self._name, names[i] if i < len(names) else "?"))
                     for i, x in enumerate(flat)]
        key = (in_tree, tuple(avals), statics,
               tuple(i for i, _ in dyn_args), _config_key())
        entry = self._cache.get(key)
        if entry is None:
            entry = self._trace_new(dyn_args, dyn_kwargs, statics, in_tree, avals, args)
            self._cache[key] = entry
        return entry, flat

    def _trace_new(self, dyn_args, dyn_kwargs, statics, in_tree, avals, args):
        static_pos = {k: s.value for k, s in statics if isinstance(k, int)}
        static_kw = {k: s.value for k, s in statics if isinstance(k, str)}
        debug = core.DebugInfo("jit", core.fun_source_info(self.fun),
                               self._arg_names(dyn_args, dyn_kwargs))
        out_tree_box = []

        def flat_fun(*leaves):
            dyn_vals, kw = tree_util.tree_unflatten(in_tree, leaves)
            it = iter(dyn_vals)
            full = [static_pos[i] if i in static_pos else next(it)
                    for i in range(len(args))]
            out = self.fun(*full, **kw, **static_kw)
            out_flat, out_tree = tree_util.tree_flatten(out)
            for o in out_flat:
                if not (isinstance(o, (Tracer, ArrayImpl, np.ndarray, np.generic))
                        or type(o) in core._SCALAR_TYPES):
                    raise TypeError(
                        f"Value {o!r} of type {type(o)} is not a valid JAX type")
            out_tree_box.append(out_tree)
            return out_flat

        closed = pe.trace_to_jaxpr(flat_fun, avals, debug)
        donated = self._donated_leaves(dyn_args, dyn_kwargs)
        return _CacheEntry(closed, out_tree_box[0], donated)

    # -- calling ----------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if _config.disable_jit.value:
            return self.fun(*args, **kwargs)
        entry, flat = self._trace(args, kwargs)
        trace = core.current_trace()
        if trace is core.eval_trace:
            outs = _execute(entry, flat)
        else:
            outs = self._bind(trace, entry, flat)
        return tree_util.tree_unflatten(entry.out_tree, outs)

    def _bind(self, trace, entry, flat):
        closed, hoisted = pe.closure_convert(entry.closed)
        if self.inline:
            return core.eval_jaxpr(closed.jaxpr, closed.consts, *hoisted, *flat)
        n = len(hoisted) + len(flat)
        donated = (False,) * len(hoisted) + entry.donated
        return jit_p.bind(*hoisted, *flat, jaxpr=closed, name=self._name,
                          donated_invars=donated, inline=self.inline,
                          keep_unused=self.keep_unused,
                          in_shardings=(UNSPECIFIED,) * n,
                          out_shardings=(UNSPECIFIED,) * len(closed.jaxpr.outvars))

    # -- introspection and AOT --------------------------------------------------
    def _cache_size(self):
        return len(self._cache)

    def clear_cache(self):
        self._cache.clear()

    def trace(self, *args, **kwargs):
        entry, flat = self._trace(args, kwargs)
        return Traced(self, entry, flat)

    def lower(self, *args, **kwargs):
        return self.trace(*args, **kwargs).lower()

    def eval_shape(self, *args, **kwargs):
        entry, _ = self._trace(args, kwargs)
        return tree_util.tree_unflatten(
            entry.out_tree, [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
                             for a in entry.closed.out_avals])


def _to_buffers(flat):
    return [x._value if isinstance(x, ArrayImpl) else core.to_buffer(x) for x in flat]


def _execute(entry, flat):
    """Run a cache entry's program on concrete leaves (SPEC JIT-10, JIT-8)."""
    if entry.run is None:
        entry.run = executable_for(entry.closed)
    buffers = _to_buffers(flat)
    out = entry.run(*buffers)
    avals = entry.closed.out_avals
    results = [ArrayImpl(b, a.dtype, a.weak_type) for b, a in zip(out, avals)]
    if any(entry.donated):
        _donate(flat, entry.donated, avals)
    return results


def _donate(flat, donated, out_avals):
    """Delete donated inputs that an output of the same type can reuse."""
    free = [(a.shape, a.dtype) for a in out_avals]
    unusable = []
    for x, d in zip(flat, donated):
        if not d or not isinstance(x, ArrayImpl):
            continue
        kind = (x.shape, x.dtype)
        if kind in free:
            free.remove(kind)
            x.delete()
        else:
            unusable.append(f"{x.dtype.name}[{','.join(map(str, x.shape))}]")
    if unusable:
        warnings.warn(f"Some donated buffers were not usable: {', '.join(unusable)}.",
                      UserWarning, stacklevel=4)


class Traced:
    """``jit(f).trace(*args)``: the jaxpr and what lowering needs."""

    def __init__(self, wrapped, entry, flat):
        self._wrapped = wrapped
        self._entry = entry
        self._flat = flat

    @property
    def jaxpr(self):
        return self._entry.closed

    @property
    def out_info(self):
        return self._wrapped.eval_shape  # pragma: no cover - rarely used

    def lower(self):
        return Lowered(self._wrapped, self._entry)


class Lowered:
    """``jit(f).lower(*args)``: ``as_text()`` shows refjax's program."""

    def __init__(self, wrapped, entry):
        self._wrapped = wrapped
        self._entry = entry

    def as_text(self, dialect=None, **unused):
        """The jaxpr refjax will run, headed by the function's name.

        refjax has no StableHLO; its lowered form is the jaxpr itself.
        """
        return f"module @jit_{self._wrapped._name} {{\n{self._entry.closed}\n}}\n"

    def compile(self):
        return Compiled(self._wrapped, self._entry)

    def cost_analysis(self):
        return {}


class Compiled:
    """A lowered program ready to run on arguments of the traced signature."""

    def __init__(self, wrapped, entry):
        self._wrapped = wrapped
        self._entry = entry

    def as_text(self):
        return Lowered(self._wrapped, self._entry).as_text()

    def __call__(self, *args, **kwargs):
        entry, flat = self._wrapped._trace(args, kwargs)
        if entry is not self._entry:
            raise TypeError(
                "Argument types differ from the types for which this computation "
                "was compiled. Call the jitted function instead, or lower and "
                "compile again for the new argument types.")
        return tree_util.tree_unflatten(entry.out_tree, _execute(entry, flat))


def jit(fun=None, *, in_shardings=None, out_shardings=None, static_argnums=None,
        static_argnames=None, donate_argnums=None, donate_argnames=None,
        keep_unused=False, device=None, backend=None, inline=False,
        abstracted_axes=None, compiler_options=None):
    """Compile ``fun`` by tracing it once per abstract signature (SPEC JIT-1)."""
    if fun is None:
        return functools.partial(
            jit, static_argnums=static_argnums, static_argnames=static_argnames,
            donate_argnums=donate_argnums, donate_argnames=donate_argnames,
            keep_unused=keep_unused, inline=inline)
    return JitWrapped(fun, static_argnums, static_argnames, donate_argnums,
                      donate_argnames, inline, keep_unused)


def clear_caches():
    """Drop every jit cache entry (SPEC JIT-6)."""
    for f in list(_all_jit_functions):
        f.clear_cache()
    _executables.clear()


# ---------------------------------------------------------------------------
# make_jaxpr and eval_shape
# ---------------------------------------------------------------------------

def make_jaxpr(fun, static_argnums=(), axis_env=None, return_shape=False,
               abstracted_axes=None):
    """A function returning the ``ClosedJaxpr`` of ``fun`` (SPEC JXP-2)."""
    static_argnums = _normalize_argnums(static_argnums)

    @functools.wraps(fun)
    def make_jaxpr_f(*args, **kwargs):
        wrapped = JitWrapped(fun, static_argnums, None, None, None, False, False)
        entry, _ = wrapped._trace(args, kwargs)
        if not return_shape:
            return entry.closed
        shapes = [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
                  for a in entry.closed.out_avals]
        return entry.closed, tree_util.tree_unflatten(entry.out_tree, shapes)

    make_jaxpr_f.__name__ = f"make_jaxpr({getattr(fun, '__name__', fun)})"
    return make_jaxpr_f


def eval_shape(fun, *args, **kwargs):
    """The output ``ShapeDtypeStruct``s of ``fun`` without running it."""
    wrapped = JitWrapped(fun, None, None, None, None, False, False)
    return wrapped.eval_shape(*args, **kwargs)


def block_until_ready(x):
    """Wait for every array in the pytree ``x``; returns ``x``."""
    for leaf in tree_util.tree_leaves(x):
        if isinstance(leaf, ArrayImpl):
            leaf.block_until_ready()
    return x


def device_put(x, device=None, *, src=None, donate=False, may_alias=None):
    """Arrays for every leaf of ``x`` (one simulated device: a copy)."""
    from refjax._src.numpy_creation import asarray

    def put(leaf):
        if isinstance(leaf, Tracer):
            return leaf
        return asarray(leaf)
    return tree_util.tree_map(put, x)


def device_get(x):
    """NumPy arrays for every Array leaf of ``x``."""
    def get(leaf):
        return np.asarray(leaf) if isinstance(leaf, ArrayImpl) else leaf
    return tree_util.tree_map(get, x)


def effects_barrier():
    """Wait until every debug callback issued so far has run (all are synchronous)."""
    return None


def ensure_compile_time_eval():
    """Run primitives eagerly inside the block, even while tracing."""
    return core.set_current_trace(core.eval_trace)

