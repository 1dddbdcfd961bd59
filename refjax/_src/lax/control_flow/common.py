"""Tracing the functions handed to control-flow constructs (SPEC CF-1).

A branch or loop body is traced once, on abstract values of its operands,
to a closed jaxpr.  Values it closes over that are tracers of an enclosing
trace become leading operands of the primitive (``consts``), so the
primitive's jaxprs only hold concrete constants.
"""
import inspect
import weakref

from refjax._src import api, core, lru, tree_util
from refjax._src.interpreters import partial_eval as pe


def trace_to_jaxpr(fun, in_tree, in_avals, name, *, key_fun=None,
                   cacheable=None):
    """``(closed jaxpr, consts, out_tree)`` of ``fun`` applied to the pytree
    ``in_tree`` of values of ``in_avals``.

    The closed jaxpr's invars are the hoisted consts followed by the flat
    arguments; ``consts`` are the enclosing-trace values to pass for them.
    A trace is remembered per function (``key_fun``, default ``fun``),
    argument signature and tracing options, so that calling a loop again
    with the same body does not run the body's Python again (SPEC CF-92);
    a trace that closed over a tracer, or for which ``cacheable()`` is
    false, is not remembered."""
    key = _trace_key(fun if key_fun is None else key_fun, in_tree, in_avals, name)
    per_fun = _cache_for(key)
    found = per_fun.get(key[1]) if per_fun is not None else None
    if found is not None:
        return found
    result = _trace_uncached(fun, in_tree, in_avals, name)
    if per_fun is not None and _reusable(result[1]) and (cacheable is None or cacheable()):
        per_fun[key[1]] = result
    return result


def _trace_uncached(fun, in_tree, in_avals, name):
    out_tree_box = []

    def flat_fun(*leaves):
        out = fun(*tree_util.tree_unflatten(in_tree, leaves))
        out_leaves, out_tree = tree_util.tree_flatten(out)
        out_tree_box.append(out_tree)
        return out_leaves

    closed = pe.trace_to_jaxpr(flat_fun, list(in_avals),
                               core.DebugInfo(name, name, None))
    closed, consts = pe.closure_convert(closed)
    return closed, consts, out_tree_box[0]


# fun -> LRU of (signature, options) -> trace; emptied by jax.clear_caches.
_traces = lru.register(weakref.WeakKeyDictionary())


def _trace_key(fun, in_tree, in_avals, name):
    """``(fun, rest)``: the options that change a trace (x64, promotion,
    ...) and the bound axis names are part of ``rest``."""
    options = api._trace_key_options(api._config_key())
    return fun, (in_tree, tuple(in_avals), name, options, core.axis_env_key())


def _cache_for(key):
    """The per-function LRU for ``key``, or None when the function or the
    signature cannot be a cache key (not weakly referable, unhashable)."""
    fun, rest = key
    try:
        hash(rest)
        per_fun = _traces.get(fun)
        if per_fun is None:
            per_fun = _traces.setdefault(fun, lru.LRU(lru.TRACE_CACHE_SIZE))
        return per_fun
    except TypeError:
        return None


def _reusable(consts):
    """A trace holding a tracer of the calling trace is good for that call
    only."""
    return not any(isinstance(c, core.Tracer) for c in consts)


def aval_of(x):
    """The abstract value of an operand leaf (arrays, tracers, scalars)."""
    return core.get_aval(x)


# ---------------------------------------------------------------------------
# Type and structure mismatches, in JAX's words (SPEC CF-15, CF-33, CF-34, CF-54)
# ---------------------------------------------------------------------------

def typematch(a, b):
    """Equal shape and dtype; weak types are ignored."""
    return a.shape == b.shape and a.dtype == b.dtype


def mismatch_reason(a, b):
    """``, so the dtypes do not match`` (and/or the shapes), or ``""``."""
    why = (["the dtypes do not match"] if a.dtype != b.dtype else []) + \
          (["the shapes do not match"] if a.shape != b.shape else [])
    if not why:
        return ""
    return ", so " + (why[0] if len(why) == 1 else f"{why[0]}, and {why[1]}")


def bulleted(diffs):
    """One difference as a sentence, several as a bulleted list."""
    if len(diffs) == 1:
        return diffs[0][0].upper() + diffs[0][1:] + ".\n"
    return "\n".join(f"  * {d};\n" for d in diffs[:-1]) + f"  * {diffs[-1]}.\n"


# A placeholder leaf whose *type* prints as JAX's messages say, "pytree leaf".
_Leaf = type("LeafMeta", (type,), {"__repr__": lambda cls: "pytree leaf"})("Leaf", (), {})


def structure_diffs(tree1, tree2):
    """``(path, thing1, thing2, why)`` for where two pytree structures part,
    the first difference on each path (JAX's ``equality_errors``)."""
    t1 = tree_util.tree_unflatten(tree1, [_Leaf()] * tree1.num_leaves)
    t2 = tree_util.tree_unflatten(tree2, [_Leaf()] * tree2.num_leaves)
    return list(_walk((), t1, t2))


def _walk(path, t1, t2):
    if type(t1) is _Leaf and type(t2) is _Leaf:
        return
    if type(t1) != type(t2):
        yield path, str(type(t1)), str(type(t2)), "their Python types differ"
        return
    if isinstance(t1, (list, tuple)) and len(t1) != len(t2):
        yield (path, f"{type(t1).__name__} of length {len(t1)}",
               f"{type(t2).__name__} of length {len(t2)}", "the lengths do not match")
        return
    kids1, meta1 = tree_util.flatten_one_level_with_keys(t1)
    kids2, meta2 = tree_util.flatten_one_level_with_keys(t2)
    kids1, kids2 = list(kids1), list(kids2)
    if len(kids1) != len(kids2):
        yield _children_diff(path, t1, kids1, t2, kids2)
    elif meta1 != meta2:
        yield (path, f"{type(t1)} with pytree metadata {meta1}",
               f"{type(t2)} with pytree metadata {meta2}",
               "the pytree node metadata does not match")
    else:
        for (k, c1), (_, c2) in zip(kids1, kids2):
            yield from _walk((*path, k), c1, c2)


def _children_diff(path, t1, kids1, t2, kids2):
    def count(kids):
        return f"{len(kids)} child{'ren' if len(kids) > 1 else ''}"

    keys = " ".join(repr(getattr(k, "key", k))
                    for k in {k for k, _ in kids1} ^ {k for k, _ in kids2})
    why = "the numbers of children do not match" + (
        keys and f", with the symmetric difference of key sets: {{{keys}}}")
    return path, f"{type(t1)} with {count(kids1)}", f"{type(t2)} with {count(kids2)}", why


def _carry_describer(body_fun):
    """``component(path)``: how the messages name a part of the carry,
    after the body's first parameter when it has one."""
    try:
        name = next(iter(inspect.signature(body_fun).parameters), None)
    except (ValueError, TypeError):
        name = None
    if name:
        return lambda p: (f"the input carry component {name}{tree_util.keystr(p)}"
                          if p else f"the input carry {name}")
    return lambda p: (f"the input carry at path {tree_util.keystr(p)}"
                      if p else "the input carry")


def check_carry_type(name, body_fun, in_tree, in_avals, out_tree, out_avals):
    """JAX's ``TypeError`` when a loop body changes the carry's pytree
    structure or a leaf's shape or dtype (SPEC CF-33, CF-34, CF-54)."""
    component = _carry_describer(body_fun)
    if in_tree != out_tree:
        diffs = [f"{component(path)} is a {a} but the corresponding component "
                 f"of the carry output is a {b}, so {why}"
                 for path, a, b, why in structure_diffs(in_tree, out_tree)]
        if not diffs:
            return
        raise TypeError(
            f"{name} function carry input and carry output must have the same "
            "pytree structure, but they differ:\n\n"
            f"{bulleted(diffs)}\n"
            "Revise the function so that the carry output has the same pytree "
            "structure as the carry input.")
    paths = [p for p, _ in tree_util.tree_flatten_with_path(
        tree_util.tree_unflatten(in_tree, in_avals))[0]]
    diffs = [f"{component(path)} has type {a.str_short()} but the corresponding "
             f"output carry component has type {b.str_short()}{mismatch_reason(a, b)}"
             for path, a, b in zip(paths, in_avals, out_avals) if not typematch(a, b)]
    if diffs:
        raise TypeError(
            f"{name} function carry input and carry output must have equal types, "
            "but they differ:\n\n"
            f"{bulleted(diffs)}\n"
            "Revise the function so that all output types match the corresponding "
            "input types.")
