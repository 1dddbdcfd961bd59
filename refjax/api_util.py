"""``jax.api_util``: the helpers that API wrappers (``jit``, ``vmap``)
build on, backed by refjax's own pytrees, avals and ``WrappedFun``
(``refjax.extend.linear_util``) (SPEC API-34)."""
import inspect

from refjax._src import core, tree_util
from refjax._src.api import ShapeDtypeStruct
from refjax.extend import linear_util as lu

__all__ = [
    "argnums_partial", "debug_info", "donation_vector", "flatten_axes",
    "flatten_fun", "flatten_fun_nokwargs", "rebase_donate_argnums", "safe_map",
    "shaped_abstractify",
]


def safe_map(f, *iterables):
    """``list(map(f, *iterables))`` for iterables of one length (ValueError
    naming the first shorter or longer one otherwise)."""
    lists = [list(it) for it in iterables]
    n = len(lists[0]) if lists else 0
    for i, lst in enumerate(lists[1:], start=2):
        if len(lst) != n:
            side = "shorter" if len(lst) < n else "longer"
            raise ValueError(f"safe_map() argument {i} is {side} than argument 1")
    return list(map(f, *lists))


def shaped_abstractify(x):
    """The ``ShapedArray`` of ``x`` (an array, a scalar or anything with
    ``shape`` and ``dtype``, such as ``ShapeDtypeStruct``); TypeError for
    other values."""
    if isinstance(x, ShapeDtypeStruct):
        return core.ShapedArray(tuple(x.shape), x.dtype, x.weak_type)
    try:
        return core.get_aval(x)
    except TypeError:
        raise TypeError(f"Argument {x!r} of type {type(x)} is not a valid JAX "
                        "type") from None


def rebase_donate_argnums(donate_argnums, static_argnums):
    """The positions of ``donate_argnums`` among the arguments left once the
    ``static_argnums`` are removed; the two may not share a position."""
    if not (static_argnums and donate_argnums):
        return tuple(sorted(donate_argnums))
    static = sorted(static_argnums)
    donate = sorted(donate_argnums)
    common = set(static) & set(donate)
    if common:
        raise ValueError(f"`static_argnums` {static} and `donate_argnums` {donate} "
                         "cannot intersect.")
    return tuple(i - sum(s < i for s in static) for i in donate)


def donation_vector(donate_argnums, donate_argnames, in_tree, kws=True):
    """One bool per leaf of ``in_tree`` (the structure of ``(args, kwargs)``,
    or of ``args`` when ``kws`` is False): whether that leaf is donated."""
    if kws:
        args_tree, kwargs_tree = in_tree.children()
    else:
        args_tree, kwargs_tree = in_tree, None
    out = []
    for i, arg in enumerate(args_tree.children()):
        out += [i in donate_argnums] * arg.num_leaves
    if kwargs_tree is not None:
        keys = tree_util.tree_unflatten(kwargs_tree, [None] * kwargs_tree.num_leaves)
        for name, sub in zip(sorted(keys), kwargs_tree.children()):
            out += [name in donate_argnames] * sub.num_leaves
    return tuple(out)


def flatten_axes(name, treedef, axis_tree, *, kws=False, tupled_args=False):
    """``axis_tree`` (a pytree prefix of ``treedef``'s tree, None leaves
    allowed) broadcast to one entry per leaf.  When it is no prefix,
    ValueError naming ``name`` with the mismatches (about the positional
    arguments only when ``treedef`` is that of ``(args, kwargs)``: ``kws``)."""
    none_leaf = lambda a: a is None  # noqa: E731
    full = tree_util.tree_unflatten(treedef, [object()] * treedef.num_leaves)
    try:
        return tree_util.broadcast_prefix(axis_tree, full, is_leaf=none_leaf)
    except ValueError:
        pass
    if kws:
        full, axis_tree = full[0], axis_tree[0]
    hint = ""
    if tupled_args:
        hint = (f" Note that {name} that are non-trivial pytrees should always be "
                "wrapped in a tuple representing the argument list.")
    errors = tree_util.prefix_errors(axis_tree, full, is_leaf=none_leaf)
    details = "\n  ".join(e(name).args[0] for e in errors)
    raise ValueError(
        f"{name} specification must be a tree prefix of the corresponding value; "
        f"{hint}\n  Mismatch details ({len(errors)} found):\n  {details}") from None


def debug_info(traced_for, fun, args, kwargs, *, static_argnums=(),
               static_argnames=(), result_paths_thunk=None, sourceinfo=None,
               signature=None):
    """What traced ``fun`` for ``traced_for``: its source location and the
    names of its non-static arguments."""
    src = sourceinfo or _source_info(fun)
    names = _arg_names(fun, signature, args, kwargs, static_argnums, static_argnames)
    paths = result_paths_thunk() if callable(result_paths_thunk) else result_paths_thunk
    return core.DebugInfo(traced_for, src, names, paths)


def _source_info(fun):
    code = getattr(getattr(fun, "__wrapped__", fun), "__code__", None)
    name = getattr(fun, "__name__", type(fun).__name__)
    if code is None:
        return name
    return f"{name} at {code.co_filename}:{code.co_firstlineno}"


def _arg_names(fun, signature, args, kwargs, static_argnums, static_argnames):
    try:
        signature = signature or inspect.signature(fun)
        bound = signature.bind_partial(*args, **kwargs)
    except (TypeError, ValueError):
        return None
    static = {i % max(len(args), 1) for i in static_argnums}
    names = []
    for i, (name, value) in enumerate(bound.arguments.items()):
        if i in static or name in static_argnames:
            continue
        leaves, _ = tree_util.tree_flatten_with_path(value)
        names += [name + tree_util.keystr(path) for path, _ in leaves]
    return tuple(names)


def _flatten_fun(f, store, in_tree, *flat_args):
    args, kwargs = tree_util.tree_unflatten(in_tree, flat_args)
    out = f(*args, **kwargs)
    leaves, out_tree = tree_util.tree_flatten(out)
    store.store(out_tree)
    return leaves


def _flatten_fun_nokwargs(f, store, in_tree, *flat_args):
    out = f(*tree_util.tree_unflatten(in_tree, flat_args))
    leaves, out_tree = tree_util.tree_flatten(out)
    store.store(out_tree)
    return leaves


def flatten_fun(fun, in_tree):
    """``fun`` (a ``WrappedFun`` of ``(*args, **kwargs)``) taking the flat
    leaves of ``(args, kwargs)`` (structure ``in_tree``) and returning flat
    outputs; also a thunk giving the output structure after a call."""
    return lu.transformation_with_aux2(_flatten_fun, fun, in_tree)


def flatten_fun_nokwargs(fun, in_tree):
    """As ``flatten_fun`` for a function of positional arguments only
    (``in_tree`` is the structure of ``args``)."""
    return lu.transformation_with_aux2(_flatten_fun_nokwargs, fun, in_tree)


class _Hashed:
    """A static argument in a cache key: compared by value."""

    __slots__ = ("val",)

    def __init__(self, val):
        self.val = val

    def __hash__(self):
        return hash(self.val)

    def __eq__(self, other):
        return isinstance(other, _Hashed) and self.val == other.val


def _argnums_partial(f, dyn_argnums, fixed, *dyn_args, **kwargs):
    args = [None if a is None else a.val for a in fixed]
    it = iter(dyn_args)
    args = [next(it) if a is None else a for a in args]
    return f(*args, **kwargs)


def argnums_partial(f, dyn_argnums, args, require_static_args_hashable=True):
    """``(f', dyn_args)``: ``f'`` takes only the arguments at
    ``dyn_argnums`` (the others fixed to their values in ``args``, which
    must hash when ``require_static_args_hashable``)."""
    dyn = (dyn_argnums,) if isinstance(dyn_argnums, int) else tuple(dyn_argnums)
    dyn = tuple(sorted({i % len(args) if len(args) else i for i in dyn}))
    fixed = []
    for i, a in enumerate(args):
        if i in dyn:
            fixed.append(None)
            continue
        if require_static_args_hashable:
            try:
                hash(a)
            except TypeError:
                raise ValueError(
                    "Non-hashable static arguments are not supported, as this can "
                    f"lead to unexpected cache-misses. Static argument (index {i}) "
                    f"of type {type(a)} for function {getattr(f, '__name__', f)} "
                    "is non-hashable.") from None
        fixed.append(_Hashed(a))
    dyn_args = tuple(args[i] for i in dyn)
    return lu.transformation2(_argnums_partial, f, dyn, tuple(fixed)), dyn_args
