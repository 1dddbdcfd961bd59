"""Mutable array references: ``jax.new_ref``, ``jax.Ref``, ``jax.ref.*``
(SPEC EXT-7).

A :class:`Ref` is a box holding an array value that reads (``r[idx]``) and
writes (``r[idx] = v``, ``r[idx] += v``) replace.  refjax keeps the box on
the Python side: each read gives the current value and each write rebinds
it to a new value computed with ordinary ``lax`` operations, so inside the
transformation that created the ref (``jit``, ``grad``, ``vmap``) reads and
writes become ordinary equations and the results are JAX's.

refjax's jaxprs have no ref types, so a ref that crosses a staging
boundary (passed to, or closed over by, a ``jit``, ``make_jaxpr`` or loop
body traced after the ref was made) enters it as a value: the staged
function gets an extra input holding the ref's value on entry and, when it
writes the ref, an extra output holding the final value, which the caller
stores back into the box (SPEC EXT-9, EXT-10).  A :class:`_Scope` records
the refs one staging trace let in this way.  ``cond``/``switch`` branches
and ``checkpoint`` thread the values of the refs they reach in and out the
same way (EXT-11, EXT-12); ``custom_jvp``/``custom_vjp`` functions run
unstaged when that is exact (EXT-12).  Other staged traces without a scope
(``custom_linear_solve``, ``closure_convert``...) refuse a ref from outside
with a ``TypeError`` naming the limitation.
"""
import contextlib
import functools
import types

import numpy as np

from refjax._src import api, core, dtypes, tree_util
from refjax._src.compiler import executable_for
from refjax._src.core import ShapedArray, Tracer
from refjax._src.interpreters import ad, batching
from refjax._src.interpreters import partial_eval as pe


class AbstractRef:
    """The type of a :class:`Ref`: ``Ref{float32[3]}`` around the type of
    its value, ``inner_aval``."""

    __slots__ = ("inner_aval", "memory_space", "kind")

    def __init__(self, inner_aval, memory_space=None, kind=None):
        self.inner_aval = inner_aval
        self.memory_space = memory_space
        self.kind = kind

    shape = property(lambda self: self.inner_aval.shape)
    dtype = property(lambda self: self.inner_aval.dtype)
    ndim = property(lambda self: self.inner_aval.ndim)
    size = property(lambda self: self.inner_aval.size)
    weak_type = property(lambda self: self.inner_aval.weak_type)

    def str_short(self, short_dtypes=False):
        return f"Ref{{{self.inner_aval.str_short(short_dtypes)}}}"

    def __str__(self):
        return self.str_short()

    __repr__ = __str__

    def __eq__(self, other):
        return isinstance(other, AbstractRef) and self.inner_aval == other.inner_aval

    def __hash__(self):
        return hash(("Ref", self.inner_aval))


class Ref:
    """A mutable array reference (SPEC EXT-7)."""

    # ``_trace`` is the trace that owns the value now (a staging scope the
    # ref was lifted into, EXT-9); ``_home`` the one it was made in.
    __slots__ = ("_value", "_trace", "_home", "_aval", "__weakref__")
    __hash__ = object.__hash__

    def __init__(self, value, trace, memory_space=None, kind=None):
        self._value = value
        self._trace = self._home = trace
        self._aval = AbstractRef(core.get_aval(value), memory_space, kind)

    aval = property(lambda self: self._aval, doc="The ref's AbstractRef.")
    shape = property(lambda self: self._aval.shape)
    dtype = property(lambda self: self._aval.dtype)
    ndim = property(lambda self: self._aval.ndim)
    size = property(lambda self: self._aval.size)

    @property
    def sharding(self):
        return self._aval.inner_aval.sharding

    def __len__(self):
        if not self.ndim:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __getitem__(self, idx):
        return get(self, idx)

    def __setitem__(self, idx, value):
        set(self, idx, value)

    def addupdate(self, x, idx=()):
        """``self[idx] += x`` in one step."""
        addupdate(self, idx, x)

    def __repr__(self):
        value = self._value
        if isinstance(value, Tracer):
            return f"Ref{{{value.aval.str_short()}}}"
        text = repr(value)
        return "Ref" + text[text.index("("):] if "(" in text else f"Ref({text})"

    def __bool__(self):
        raise TypeError("The truth value of a Ref is ambiguous; read it with r[...]")


def _asarray(x):
    from refjax._src.numpy.creation import asarray
    return asarray(x)


def _is_staging(trace):
    return isinstance(trace, pe.DynamicJaxprTrace) and not isinstance(
        trace, ad.PartialEvalTrace)


_CROSSING = ("refjax keeps a Ref's value on the Python side and lets it into "
             "a staged trace begun after the Ref was made only through jit, "
             "make_jaxpr, eval_shape, scan, fori_loop, while_loop, map, cond, "
             "switch and checkpoint; pass the value r[...] into this one "
             "(custom_linear_solve, closure_convert, checkify...) and write "
             "the result back outside it.")


def _reach(ref):
    """Make ``ref`` usable from the current trace: lift it into every
    staging trace begun since its value's trace (SPEC EXT-9).  A staging
    trace with no scope for Refs refuses it with a ``TypeError``."""
    t, staging = core.current_trace(), []
    while t is not None and t is not ref._trace:
        if _is_staging(t):
            staging.append(t)
        t = t.parent
    if t is None:
        raise TypeError("A jax.Ref made inside a transformation was used after "
                        "that transformation finished.")
    if staging:
        scopes = [_scopes.get(id(t)) for t in staging]
        if any(s is None or s.trace is not t for s, t in zip(scopes, staging)):
            raise TypeError(f"Using a jax.Ref inside a transformation: {_CROSSING}")
        for scope in reversed(scopes):
            scope.lift(ref)


_DIFFERENTIATED = ("performing a set/swap operation with a "
                   "differentiated value on a non-differentiated array reference "
                   "of type {}. Move the array reference to be an argument of "
                   "the differentiated function?")
_VMAPPED = ("performing a set/swap operation with vmapped value on "
            "an unbatched array reference of type {}. Move the array reference "
            "to be an argument to the vmapped function?")


def _check_write(ref, value):
    """A write of ``value`` into ``ref`` from the current trace: JAX's
    errors for a write under a ``vmap`` of a ref made outside it and for a
    differentiated value written into a ref made outside the ``grad``."""
    _reach(ref)
    t = core.current_trace()
    while t is not ref._trace:
        if isinstance(t, batching.BatchTrace):
            raise Exception(_VMAPPED.format(ref._aval))
        t = t.parent
    if not isinstance(value, Tracer):
        return
    owner = ref._trace
    while owner is not None and value._trace is not owner:
        owner = owner.parent
    if owner is None:
        if isinstance(value, ad.JVPTracer):
            raise Exception(_DIFFERENTIATED.format(ref._aval))
        raise TypeError(
            "Writing a traced value into a jax.Ref created outside the "
            "transformation tracing it is not supported by refjax, which "
            "keeps Ref values on the Python side.")


def _check_valid(value, fun_name):
    try:
        core.get_aval(value)
    except TypeError:
        raise TypeError(f"Error interpreting argument to {fun_name} as a JAX value. "
                        f"The problematic value is of type {type(value)} and was "
                        f"passed to {fun_name} at position 0.") from None


def new_ref(init_val, *, memory_space=None, kind=None):
    """A new Ref holding ``init_val`` (SPEC EXT-7)."""
    if isinstance(init_val, Ref):
        raise TypeError("new_ref expects an array value, got a Ref")
    _check_valid(init_val, "new_ref")
    value = init_val if isinstance(init_val, Tracer) else _asarray(init_val)
    return Ref(value, core.current_trace(), memory_space, kind)


def empty_ref(ty, memory_space=None):
    """A Ref of type ``ty`` (``ShapeDtypeStruct`` or aval) with unspecified
    contents.  As in JAX it exists only inside a traced function: eagerly
    it raises ``NotImplementedError``."""
    if core.current_trace() is core.eval_trace:
        raise NotImplementedError("Evaluation rule for 'empty_ref' not implemented")
    aval = ShapedArray(ty.shape, dtypes.canonicalize_dtype(ty.dtype))
    zero = core.lax_ops.convert_element_type(0, aval.dtype, False)
    return Ref(core.lax_ops.broadcast(zero, aval.shape), core.current_trace(),
               memory_space)


def freeze(ref):
    """The Ref's current value as an (immutable) array."""
    _check_ref(ref, "freeze")
    return get(ref, None)


def free_ref(ref):
    """Release ``ref``: refjax's buffers are garbage collected, so this only
    checks its argument and returns ``()`` as JAX does."""
    _check_ref(ref, "free_ref")
    return ()


def _check_ref(ref, fun_name):
    if not isinstance(ref, Ref):
        raise TypeError(f"{fun_name} expects a jax.Ref, got {type(ref).__name__}")


def _whole(idx):
    return idx is None or idx is Ellipsis or (isinstance(idx, tuple) and (
        idx == () or idx == (Ellipsis,)))


def get(ref, idx=None):
    """``ref[idx]``: the current value, indexed as arrays are."""
    _check_ref(ref, "get")
    _reach(ref)
    if _whole(idx):
        return ref._value
    _check_bounds(ref, idx)
    return ref._value[idx]


def _check_bounds(ref, idx):
    """Eagerly, a static integer index past the end is JAX's ``ValueError``
    (so iterating over a Ref ends), not a clamped read; traced indexing
    clamps, as in JAX (SPEC EXT-7)."""
    parts = idx if isinstance(idx, tuple) else (idx,)
    if isinstance(ref._value, Tracer) or any(p is None or p is Ellipsis for p in parts):
        return
    for p, dim in zip(parts, ref.shape):
        if isinstance(p, (int, np.integer)) and not isinstance(p, bool) and p >= dim:
            raise ValueError(f"Out of bound indexer: idx={p}, dim={dim}.")


def _as_value(ref, idx, value, fun_name):
    """``value`` checked against the slot ``ref[idx]``: the same shape and
    dtype.  A ``swap`` casts a weakly typed float into a float Ref and any
    integer into an integer Ref first, as JAX does; ``addupdate`` casts
    nothing (SPEC EXT-7)."""
    _check_valid(value, fun_name)
    aval = core.get_aval(value)
    slot = core.get_aval(get(ref, idx))
    if fun_name == "swap" and aval.dtype != slot.dtype and (
            aval.weak_type and _both(aval.dtype, slot.dtype, np.floating)
            or _both(aval.dtype, slot.dtype, np.integer)):
        value = core.lax_ops.convert_element_type(value, slot.dtype, False)
        aval = core.get_aval(value)
    if aval.shape != slot.shape:
        raise ValueError(f"Invalid shape for `{fun_name}`. Ref shape: {ref.shape}. "
                         f"Expected shape: {slot.shape}. Value shape: {aval.shape}.")
    if aval.dtype != slot.dtype:
        raise ValueError(f"Invalid dtype for `{fun_name}`. Ref dtype: {slot.dtype}. "
                         f"Value dtype: {aval.dtype}. ")
    return value


def _both(a, b, kind):
    return dtypes.issubdtype(a, kind) and dtypes.issubdtype(b, kind)


def _store(ref, idx, new_slot):
    _check_write(ref, new_slot)
    if _whole(idx):
        new = new_slot if isinstance(new_slot, Tracer) else _asarray(new_slot)
    else:
        new = ref._value.at[_clamped(ref, idx)].set(new_slot)
    _check_write(ref, new)
    ref._value = _conform(ref, new)


def _clamped(ref, idx):
    """A traced write at a static integer index past the end writes the
    last row, as JAX's dynamic update does (eagerly it is an error)."""
    if not isinstance(ref._value, Tracer):
        return idx
    parts = idx if isinstance(idx, tuple) else (idx,)
    if any(p is None or p is Ellipsis for p in parts):
        return idx
    fixed = tuple(min(p, d - 1) if type(p) is int and d else p
                  for p, d in zip(parts, ref.shape)) + parts[len(ref.shape):]
    return fixed if isinstance(idx, tuple) else fixed[0]


def _conform(ref, value):
    """A concrete ``value`` with the ref's weak type: eager reads give the
    ref's type whatever the weak type written; traced reads give the value
    written, as in JAX."""
    inner = ref._aval.inner_aval
    if not isinstance(value, Tracer) and core.get_aval(value).weak_type != inner.weak_type:
        value = core.lax_ops.convert_element_type(value, inner.dtype, inner.weak_type)
    return value


def swap(ref, idx, value, _function_name="ref_swap"):
    """Write ``value`` at ``ref[idx]``; return what was there."""
    _check_ref(ref, "swap")
    value = _as_value(ref, idx, value, "swap")
    old = get(ref, idx)
    _store(ref, idx, value)
    return old


def set(ref, idx, value):  # noqa: A001  (JAX's name)
    """``ref[idx] = value``; returns None."""
    swap(ref, idx, value)


def addupdate(ref, idx, x):
    """``ref[idx] += x``; returns None."""
    _check_ref(ref, "addupdate")
    x = _as_value(ref, idx, x, "addupdate")
    _store(ref, idx, get(ref, idx) + x)


# ---------------------------------------------------------------------------
# Refs crossing into staged functions (SPEC EXT-9, EXT-10)
# ---------------------------------------------------------------------------

_scopes = {}    # id(trace) -> the _Scope of a staging trace that lets Refs in


class _Scope:
    """The Refs one staging trace let in from outside, in order: each
    became an extra (trailing) input of that trace holding the Ref's value
    on entry.  Leaving the scope gives every Ref back its outer value."""

    def __init__(self, trace, boxes=(), arg_names=()):
        self.trace = trace
        self.boxes = dict(zip(map(id, boxes), arg_names))  # jit's Ref arguments
        self.refs, self.entry, self.saved = [], [], []

    def __enter__(self):
        self.outer = _scopes.get(id(self.trace))
        _scopes[id(self.trace)] = self
        return self

    def __exit__(self, *exc):
        if self.outer is None:
            del _scopes[id(self.trace)]
        else:
            _scopes[id(self.trace)] = self.outer
        for ref, (value, owner) in zip(reversed(self.refs), reversed(self.saved)):
            ref._value, ref._trace = value, owner

    def lift(self, ref):
        tracer = self.trace.new_arg(ref._aval.inner_aval)
        self.refs.append(ref)
        self.entry.append(tracer)
        self.saved.append((ref._value, ref._trace))
        ref._value, ref._trace = tracer, self.trace


class _JitPlan:
    """How a traced ``jit`` function takes and gives back Refs: the flat
    positions of its Ref arguments, the Refs it captured, and which of both
    it wrote (each written one has a trailing output, in that order)."""

    __slots__ = ("arg_refs", "arg_written", "captured", "captured_written",
                 "n_out", "cacheable")

    def written(self, boxes):
        return ([b for b, w in zip(boxes, self.arg_written) if w] +
                [r for r, w in zip(self.captured, self.captured_written) if w])


def _trace_jit(fun, avals, debug):
    """``jit``'s tracing (installed in api): ``(closed jaxpr, plan)``, the
    plan None when no Ref is involved.  Each Ref argument is a fresh box
    around the input's tracer (SPEC EXT-9)."""
    ref_pos = [i for i, a in enumerate(avals) if type(a) is AbstractRef]
    names = debug.arg_names or () if debug is not None else ()
    plan = _JitPlan()

    def scoped(*args):
        trace, args = core.current_trace(), list(args)
        boxes = [Ref(args[i], trace, avals[i].memory_space, avals[i].kind)
                 for i in ref_pos]
        entry = [args[i] for i in ref_pos]
        for i, box in zip(ref_pos, boxes):
            args[i] = box
        box_names = [names[i] if i < len(names) else str(i) for i in ref_pos]
        with _Scope(trace, boxes, box_names) as scope:
            outs = list(fun(*args))
            plan.n_out = len(outs)
            plan.arg_refs = ref_pos
            plan.arg_written = [b._value is not e for b, e in zip(boxes, entry)]
            plan.captured = list(scope.refs)
            plan.captured_written = [r._value is not e for r, e in zip(scope.refs, scope.entry)]
            plan.cacheable = all(r._home is core.eval_trace for r in scope.refs)
            return outs + [r._value for r in plan.written(boxes)]

    in_avals = [a.inner_aval if type(a) is AbstractRef else a for a in avals]
    closed = pe.trace_to_jaxpr(scoped, in_avals, debug)
    return closed, (plan if ref_pos or plan.captured else None)


def _check_output(jitted, leaf, path):
    """A Ref returned from a jitted function: JAX's ``ValueError`` (SPEC
    EXT-9)."""
    if not isinstance(leaf, Ref):
        return
    scope = _scopes.get(id(core.current_trace()))
    name = scope.boxes.get(id(leaf)) if scope is not None else None
    where = f" at output tree path result{tree_util.keystr(path)}" if path else ""
    raise ValueError(
        f"function {jitted._src} traced for {jitted._traced_for} returned a "
        f"mutable array reference of type {leaf._aval}{where}, but mutable array "
        "references cannot be returned." + (
            "" if name is None else
            f"\n\nThe returned mutable array was passed in as the argument {name}."))


def _check_distinct(jitted, call, plan):
    """A Ref may be passed once, and not also be closed over (JAX's
    ``ValueError``s, SPEC EXT-9)."""
    seen = {}
    for i in plan.arg_refs:
        box = call.flat[i]
        if id(box) in seen or any(box is r for r in plan.captured):
            names = jitted._names_of(call)
            if id(box) not in seen:
                raise ValueError(
                    f"when tracing {jitted._src} for {jitted._traced_for}, a mutable "
                    f"array reference of type {box._aval} was both closed over "
                    f"and passed as the argument {names[i]}")
            raise ValueError(
                "only one reference to a mutable array may be passed as an "
                f"argument to a function, but when tracing {jitted._src} for "
                f"{jitted._traced_for} the mutable array reference of type "
                f"{box._aval} appeared at both {names[seen[id(box)]]} and {names[i]}.")
        seen[id(box)] = i


def _call_jit(jitted, entry, call):
    """Run (or stage) a jitted call whose function takes or captures Refs:
    their values go in after the arguments, the written ones come back and
    are stored into the boxes (SPEC EXT-9)."""
    plan = entry.traced.refs
    _check_distinct(jitted, call, plan)
    boxes = [call.flat[i] for i in plan.arg_refs]
    ins = list(call.flat)
    for i, box in zip(plan.arg_refs, boxes):
        ins[i] = get(box)
    ins += [get(r) for r in plan.captured]
    if core.current_trace() is core.eval_trace:
        if entry.run is None:
            entry.run = executable_for(entry.traced.closed)
        outs = [api._wrap_out(b, a) for b, a in zip(
            entry.run(*api._to_buffers(ins)), entry.traced.closed.out_avals)]
    else:
        outs = jitted._bind(entry, ins)
    _write_back(plan.written(boxes), outs[plan.n_out:])
    return tree_util.tree_unflatten(entry.traced.out_tree, outs[:plan.n_out])


def _write_back(refs, values):
    """Store each final value into its Ref, all checked before any is."""
    for ref, value in zip(refs, values):
        _check_write(ref, value)
    for ref, value in zip(refs, values):
        ref._value = _conform(ref, value)


# -- loops: Refs a body reaches from outside ride in the carry (EXT-10) ------

def _discover(fun, found, traced_for):
    """``fun`` run in a scope of the trace calling it: the Refs it reaches
    from outside are lifted (so that this trace succeeds) and listed in
    ``found``; the loop then traces again, threading them (SPEC EXT-10)."""
    @functools.wraps(fun)
    def scoped(*args):
        with _Scope(core.current_trace()) as scope:
            try:
                out = fun(*args)
            finally:
                found.extend(r for r in scope.refs if not any(r is f for f in found))
        if not any(isinstance(leaf, Ref) for leaf in tree_util.tree_leaves(out)):
            return out
        for path, leaf in tree_util.tree_flatten_with_path(out)[0]:
            if isinstance(leaf, Ref):
                where = f" at output tree path result{tree_util.keystr(path)}" if path else ""
                raise ValueError(
                    f"function {core.fun_source_info(fun)} traced for {traced_for} "
                    f"returned a mutable array reference of type {leaf._aval}{where}, "
                    "but mutable array references cannot be returned.")
        return out
    return scoped


@contextlib.contextmanager
def _bound(refs, values):
    """Inside a loop body: each Ref holds the body's carried value."""
    saved = [(r._value, r._trace) for r in refs]
    trace = core.current_trace()
    for r, v in zip(refs, values):
        r._value, r._trace = v, trace
    try:
        yield
    finally:
        for r, (v, t) in zip(refs, saved):
            r._value, r._trace = v, t


def _loop_write_back(refs, before, after):
    changed = [(r, v) for r, b, v in zip(refs, before, after) if v is not b]
    _write_back([r for r, _ in changed], [v for _, v in changed])


def _scan_with_refs(scan, f, refs, init, xs, **params):
    """``scan`` whose body reaches ``refs``: their values join the carry
    (SPEC EXT-10)."""
    @functools.wraps(f)
    def body(carry, x):
        c, vals = carry
        with _bound(refs, vals):
            c, y = f(c, x)
            return (c, [r._value for r in refs]), y

    before = [get(r) for r in refs]
    (carry, after), ys = scan(body, (init, before), xs, **params)
    _loop_write_back(refs, before, after)
    return carry, ys


def _while_with_refs(while_loop, cond_fun, body_fun, refs, init_val):
    """``while_loop`` whose functions reach ``refs``: their values join the
    carry; ``cond_fun`` may read them only (SPEC EXT-10)."""
    @functools.wraps(cond_fun)
    def cond(carry):
        c, vals = carry
        with _bound(refs, vals):
            out = cond_fun(c)
            if any(r._value is not v for r, v in zip(refs, vals)):
                raise TypeError("refjax does not support writing a jax.Ref in "
                                "the cond_fun of a while_loop")
            return out

    @functools.wraps(body_fun)
    def body(carry):
        c, vals = carry
        with _bound(refs, vals):
            return body_fun(c), [r._value for r in refs]

    before = [get(r) for r in refs]
    carry, after = while_loop(cond, body, (init_val, before))
    _loop_write_back(refs, before, after)
    return carry


# -- cond/switch branches, checkpoint, custom_jvp/vjp (SPEC EXT-11, EXT-12) --

def close_over_refs(fun, args):
    """``(fun2, args2)``: ``args`` with each Ref leaf replaced by ``None``
    and ``fun2`` putting the Refs back before calling ``fun``, so a Ref
    passed as an operand is reached like a captured one (SPEC EXT-11)."""
    is_leaf = lambda x: x is None or isinstance(x, Ref)  # noqa: E731
    leaves, tree = tree_util.tree_flatten(args, is_leaf=is_leaf)
    if not any(isinstance(x, Ref) for x in leaves):
        return fun, args
    placed = tree_util.tree_unflatten(
        tree, [None if isinstance(x, Ref) else x for x in leaves])

    @functools.wraps(fun)
    def with_refs(*given):
        got = tree_util.tree_flatten(given, is_leaf=lambda x: x is None)[0]
        full = [x if isinstance(x, Ref) else g for x, g in zip(leaves, got)]
        return fun(*tree_util.tree_unflatten(tree, full))

    return with_refs, placed


def _threaded(fun, refs, written):
    """``fun(*args)`` as ``lifted(*args, values) -> (out, new values)``:
    inside, each Ref holds the given value; ``written[i]`` becomes true
    when it writes Ref ``i``."""
    @functools.wraps(fun)
    def lifted(*args_and_values):
        *args, values = args_and_values
        with _bound(refs, values):
            out = fun(*args)
            news = [r._value for r in refs]
        for i, (v, n) in enumerate(zip(values, news)):
            written[i] = written[i] or v is not n
        return out, news
    return lifted


def call_with_refs(bind, funs, refs, args):
    """Run a staged call whose functions reach ``refs`` from outside:
    ``bind(lifted_funs, args + (values,))`` gets each Ref's value as an
    extra trailing operand, every function returns the Refs' final values
    as an extra output (a Ref it does not write passes its value through),
    and the values of the Refs some function wrote are stored back (SPEC
    EXT-11, EXT-12)."""
    before, written = [get(r) for r in refs], [False] * len(refs)
    out, after = bind([_threaded(f, refs, written) for f in funs], (*args, before))
    _write_back([r for r, w in zip(refs, written) if w],
                [v for v, w in zip(after, written) if w])
    return out


def check_cond_index(index):
    """A ``cond`` with Refs under a ``vmap`` is JAX's
    ``NotImplementedError`` (SPEC EXT-11)."""
    t = core.current_trace()
    while t is not core.eval_trace:
        if isinstance(t, batching.BatchTrace):
            raise NotImplementedError("State effect not supported in vmap-of-cond.")
        t = t.parent


def only_vmapped():
    """Whether every trace from the current one out is a ``vmap``'s: a
    custom-derivative function reaching Refs then runs as is, as in JAX
    (no derivative rule can be needed) (SPEC EXT-12)."""
    t = core.current_trace()
    while t is not core.eval_trace:
        if not isinstance(t, batching.BatchTrace):
            return False
        t = t.parent
    return True


def _install():
    core.pytype_aval_mappings[Ref] = lambda r: r._aval
    hooks = api.ref_hooks
    hooks.trace, hooks.call_jit = _trace_jit, _call_jit
    hooks.check_output, hooks.discover = _check_output, _discover
    hooks.scan, hooks.while_loop = _scan_with_refs, _while_with_refs
    hooks.close_over, hooks.call_with_refs = close_over_refs, call_with_refs
    hooks.check_cond_index, hooks.only_vmapped = check_cond_index, only_vmapped


_install()


# ``jax.ad``: markers JAX's ``vjp`` accepts for accumulating cotangents into
# refs.  refjax's ``vjp`` has no ref accumulators; the markers exist so code
# naming them imports (SPEC EXT-7).
class GradValue:
    """Marker: return this argument's cotangent as a value."""


class GradRef:
    """Marker: this argument's cotangent was accumulated into a ref."""


class DontWant:
    """Marker: this argument's cotangent is not wanted."""


class DidntWant:
    """Marker: this argument's cotangent was not computed."""


ad_namespace = types.SimpleNamespace(
    DontWant=DontWant, DidntWant=DidntWant, GradRef=GradRef, GradValue=GradValue)
