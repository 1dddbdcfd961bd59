"""``vmap``: the public batching transformation (SPEC VMAP-10 .. VMAP-19).

Axis specifications follow JAX's prefix-pytree rules: ``in_axes`` is an
int, None, or a tuple with one entry per positional argument, each entry a
prefix of that argument's pytree (a leaf applies to its whole subtree, None
leaves mean "not mapped"); keyword arguments are always mapped along axis 0.
``out_axes`` is a prefix of the output pytree.
"""
import collections
import functools
import inspect

import numpy as np

from refjax._src import core, tree_util
from refjax._src.array import ArrayImpl
from refjax._src.core import check_callable
from refjax._src.interpreters import batching
from refjax._src.interpreters.batching import AxisData, not_mapped

# ---------------------------------------------------------------------------
# Custom vmappable types (SPEC VMAP-108)
# ---------------------------------------------------------------------------

# data type -> (spec type, axis-size type, to_elt, from_elt)
_vmappables = {}
# Types an in_axes / out_axes entry may have besides int and None.
_spec_types = set()


def register_vmappable(data_type, spec_type, axis_size_type, to_elt, from_elt,
                       make_iota=None):
    """Let ``vmap`` map values of ``data_type`` itself: an ``in_axes`` entry
    of ``spec_type`` at such a value calls ``to_elt(cont, get_idx, value,
    spec)`` for the per-example value, and an ``out_axes`` entry at a
    returned one calls ``from_elt(cont, axis_size, elt, spec)`` for the
    batched result; ``cont`` does the same for the arrays inside
    (SPEC VMAP-108).  ``make_iota`` is accepted and unused."""
    _vmappables[data_type] = (spec_type, axis_size_type, to_elt, from_elt)
    _spec_types.add(spec_type)


def unregister_vmappable(data_type):
    """A no-op, as in JAX: a registration stays in force (SPEC VMAP-108)."""
    return None


def is_vmappable(x):
    """Whether ``x`` is a value of a registered vmappable type."""
    return type(x) in _vmappables


def _is_axis_leaf(x):
    return type(x) is int or x is None or type(x) in _spec_types


def _none_is_leaf(x):
    return x is None


def _check_axis_spec(in_axes, out_axes):
    """Axis specifications are checked when ``vmap`` is called, before any
    argument is seen: only ints and None, with ``in_axes`` itself an int,
    None or a tuple (SPEC VMAP-16)."""
    if not (in_axes is None or type(in_axes) in (int, tuple, *_spec_types)):
        raise TypeError("vmap in_axes must be an int, None, or a tuple of entries "
                        "corresponding to the positional arguments passed to the "
                        f"function, but got {in_axes}.")
    for name, spec in (("in_axes", in_axes), ("out_axes", out_axes)):
        leaves = tree_util.tree_leaves(spec, is_leaf=_none_is_leaf)
        if not all(_is_axis_leaf(x) for x in leaves):
            raise TypeError(f"vmap {name} must be an int, None, or (nested) container "
                            f"with those types as leaves, but got {spec}.")


def vmap(fun, in_axes=0, out_axes=0, axis_name=None, axis_size=None,
         spmd_axis_name=None):
    """Vectorise ``fun`` along a mapped axis of its inputs (SPEC VMAP-10).

    The result computes, in one program, what stacking ``fun`` applied to
    each slice would give.  ``axis_name`` names the mapped axis for
    collectives (``lax.psum``...); ``axis_size`` is required when no input
    is mapped (SPEC VMAP-14).  Keyword arguments are mapped along axis 0
    whatever ``in_axes`` says (SPEC VMAP-12)."""
    check_callable(fun)
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    _check_axis_spec(in_axes, out_axes)

    @_wraps(fun)
    def vmap_f(*args, **kwargs):
        _check_axis_name(axis_name, "axis_name")
        _check_axis_name(spmd_axis_name, "spmd_axis_name")
        if isinstance(in_axes, tuple) and len(in_axes) != len(args):
            raise ValueError("vmap in_axes must be an int, None, or a tuple of entries "
                             "corresponding to the positional arguments passed to the "
                             f"function, but got len(in_axes)={len(in_axes)}, "
                             f"len(args)={len(args)}")
        custom = bool(_vmappables)     # any registered vmappable type
        leaf = is_vmappable if custom else None
        flat, in_tree = tree_util.tree_flatten((args, kwargs), is_leaf=leaf)
        specs = _flatten_in_axes(in_axes, args, kwargs, in_tree)
        dims = [None if is_vmappable(x) else d for x, d in zip(flat, specs)]
        for x, d in zip(flat, dims):
            if d is not None:  # unmapped arguments reach ``fun`` untouched
                core.check_valid_jaxtype(x)
        size = _mapped_axis_size(fun, in_tree, flat, dims, axis_size)
        dims = [None if d is None else _canonical_in_axis(d, x)
                for x, d in zip(flat, dims)]
        out_tree_box, resolved = [], set()

        def flat_fun(*leaves):
            if custom:
                leaves = _to_elts(leaves, specs, size)
            a, kw = tree_util.tree_unflatten(in_tree, leaves)
            out = fun(*a, **kw)
            out_leaves, out_tree = tree_util.tree_flatten(out, is_leaf=leaf)
            out_tree_box.append((out, out_tree))
            if custom and any(is_vmappable(o) for o in out_leaves):
                out_leaves = _from_elts(out_leaves, out_axes, out, out_tree,
                                        size, resolved)
            for i, o in enumerate(out_leaves):
                if i not in resolved:
                    _check_output(o)
            return out_leaves

        axis_data = AxisData(axis_name, size)
        vals, out_dims = batching.batch_flat(flat_fun, flat, dims, axis_data)
        out, out_tree = out_tree_box[0]
        dst = _flatten_out_axes(out_axes, out, out_tree)
        results = [v if i in resolved else
                   _move_out(axis_data, v, s, d, out_axes, out_tree, i)
                   for i, (v, s, d) in enumerate(zip(vals, out_dims, dst))]
        return tree_util.tree_unflatten(out_tree, results)

    return vmap_f


def _to_elts(leaves, specs, size):
    """Inside the batch trace: each vmappable argument replaced by its
    per-example value, as its ``to_elt`` handler builds it (VMAP-108)."""
    trace = core.current_trace()

    def get_idx():
        return trace.new(np.arange(size, dtype=np.int32), 0)

    return [_to_elt(trace, get_idx, x, spec) if is_vmappable(x) else x
            for x, spec in zip(leaves, specs)]


def _to_elt(trace, get_idx, x, spec):
    entry = _vmappables.get(type(x))
    if entry is not None:
        return entry[2](functools.partial(_to_elt, trace, get_idx), get_idx, x, spec)
    if spec is None:
        return x
    if type(spec) is not int:
        raise TypeError(f"vmap in_axes entry {spec!r} of type {type(spec).__name__} "
                        f"applies to a value of type {type(x).__name__}, which is "
                        "not a registered vmappable type")
    core.check_valid_jaxtype(x)
    return trace.new(x, _canonical_in_axis(spec, x))


def _from_elts(leaves, out_axes, out, out_tree, size, resolved):
    """Inside the batch trace: each vmappable output replaced by the batched
    value its ``from_elt`` handler builds for its ``out_axes`` entry; their
    positions are added to ``resolved`` (SPEC VMAP-108)."""
    trace = core.current_trace()
    dst = _flatten_out_axes(out_axes, out, out_tree)
    result = []
    for i, (x, spec) in enumerate(zip(leaves, dst)):
        if is_vmappable(x):
            x = _from_elt(trace, size, x, spec)
            resolved.add(i)
        result.append(x)
    return result


def _from_elt(trace, size, x, spec):
    entry = _vmappables.get(type(x))
    if entry is not None:
        return entry[3](functools.partial(_from_elt, trace), size, x, spec)
    val, bdim = trace.to_batch_info(x)
    return batching.matchaxis(trace.axis_data, bdim, spec, val)


def _fun_name(fun):
    """The name JAX shows for ``fun``: a ``partial``'s is its function's."""
    name = getattr(fun, "__name__", None)
    if name is not None:
        return name
    if isinstance(fun, functools.partial):
        return _fun_name(fun.func)
    return "<unnamed function>"


def _wraps(fun):
    """Copy ``fun``'s metadata onto the vmapped function, whose docstring
    says what it is and then quotes ``fun``'s own (SPEC VMAP-17)."""
    name = _fun_name(fun)
    doc = (f"Vectorized version of {name}. Takes similar arguments as {name} but "
           f"with additional array axes over which {name} is mapped.")
    if getattr(fun, "__doc__", None):
        doc += "\n\nOriginal documentation:\n\n" + fun.__doc__

    def wrap(vmap_f):
        try:
            vmap_f.__dict__.update(getattr(fun, "__dict__", {}))
            vmap_f.__name__ = name
            vmap_f.__qualname__ = getattr(fun, "__qualname__", name)
            vmap_f.__module__ = getattr(fun, "__module__", "<unknown module>")
            vmap_f.__doc__ = doc
            vmap_f.__annotations__ = getattr(fun, "__annotations__", {})
            vmap_f.__wrapped__ = fun
        except Exception:
            pass        # a callable whose metadata cannot be set is vmapped as is
        return vmap_f
    return wrap


# ---------------------------------------------------------------------------
# Axis specifications
# ---------------------------------------------------------------------------

def _prefix_error(name, prefix, full):
    """JAX's message when ``prefix`` is not a tree prefix of ``full``."""
    errors = tree_util.prefix_errors(prefix, full, is_leaf=_none_is_leaf)
    details = "\n  ".join(e(name).args[0] for e in errors)
    return ValueError(f"{name} specification must be a tree prefix of the "
                      f"corresponding value; \n  Mismatch details ({len(errors)} "
                      f"found):\n  {details}")


class _Leaf:
    def __repr__(self):
        return "pytree leaf"


def _broadcast_axes(spec, tree_def):
    """Each leaf of ``spec`` (None counts as a leaf) repeated over its subtree
    of the tree ``tree_def``, flat; None on a mismatch.

    The structures are matched node by node, never by rebuilding a tree of
    ``tree_def``: a custom class is not unflattened with placeholder leaves,
    so an ``__init__`` that converts its fields still works (SPEC TREE-27).
    """
    leaves, spec_def = tree_util.tree_flatten(spec, is_leaf=_none_is_leaf)
    out = []
    if not _broadcast_node(spec_def, tree_def, iter(leaves), out):
        return None
    return out


def _broadcast_node(prefix_def, full_def, leaves, out):
    """Extends ``out`` with ``prefix_def``'s leaves broadcast over
    ``full_def``; False where ``prefix_def`` is not a prefix of it."""
    prefix_data = prefix_def.node_data()
    if prefix_data is None:
        out.extend([next(leaves)] * full_def.num_leaves)
        return True
    prefix_children, full_children = prefix_def.children(), full_def.children()
    if (full_def.node_data() is None
            or len(prefix_children) != len(full_children)
            or not _same_node(prefix_data, full_def.node_data())):
        return False
    return all(_broadcast_node(p, f, leaves, out)
               for p, f in zip(prefix_children, full_children))


def _same_node(a, b):
    (a_type, a_aux), (b_type, b_aux) = a, b
    if a_type is not b_type:
        return False
    try:
        return a_aux is b_aux or bool(a_aux == b_aux)
    except Exception:  # noqa: BLE001 -- metadata without a usable ==
        return False


def _flatten_in_axes(in_axes, args, kwargs, in_tree):
    dims = _broadcast_axes((in_axes, 0), in_tree)
    if dims is None:
        args_def = tree_util.tree_structure(args)
        dummy = tree_util.tree_unflatten(args_def, [_Leaf()] * args_def.num_leaves)
        raise _prefix_error("vmap in_axes", in_axes, dummy)
    return dims


def _flatten_out_axes(out_axes, out, out_tree):
    dims = _broadcast_axes(out_axes, out_tree)
    if dims is None:
        dummy = tree_util.tree_unflatten(out_tree, [_Leaf()] * out_tree.num_leaves)
        raise _prefix_error("vmap out_axes", out_axes, dummy)
    return dims


def _canonical_in_axis(axis, x):
    return axis % np.ndim(x) if axis < 0 else axis


def _check_output(x):
    if not (isinstance(x, (core.Tracer, ArrayImpl)) or core.is_array_like(x)):
        raise TypeError(f"Output from batched function {x!r} with type {type(x)} "
                        "is not a valid JAX type")


def _check_axis_name(name, option):
    """An axis name is looked up by hash, so an unhashable one (a list, a
    dict) raises ``TypeError`` when the mapped function is called, as in
    JAX (SPEC VMAP-105)."""
    try:
        hash(name)
    except TypeError:
        raise TypeError(f"vmap {option} must be hashable, such as a string or a "
                        f"tuple of strings; got {name!r} of type "
                        f"{type(name).__name__}") from None


def mapped_output_error(message, index, axis_name):
    """JAX's ValueError for an output with ``out_axes`` None that varies
    along the mapped axis; it carries the output's flat ``index`` and the
    ``axis_name`` for shard_map's replication error (SHD-62)."""
    error = ValueError(message)
    error.mapped_output = (index, axis_name)
    return error


def _move_out(axis_data, val, src, dst, out_axes, out_tree, index):
    """An output delivered along its ``out_axes`` entry (SPEC VMAP-13); None
    is only for outputs that are the same for every example (SPEC VMAP-16)."""
    if dst is None and src is not not_mapped:
        full = tree_util.tree_unflatten(out_tree, _broadcast_axes(out_axes, out_tree))
        paths = [p for p, _ in tree_util.tree_flatten_with_path(
            full, is_leaf=_none_is_leaf)[0]]
        message = (f"at vmap out_axes{tree_util.keystr(paths[index])}, got "
                   f"axis spec None but output was batched on axis {src}")
        if axis_data.name is not None:      # JAX names the axis (VMAP-109)
            message = (f"vmap has mapped output (axis_name={axis_data.name}) "
                       "but out_axes is None")
        raise mapped_output_error(message, index, axis_data.name)
    return batching.matchaxis(axis_data, src, dst, val)


# ---------------------------------------------------------------------------
# The mapped size
# ---------------------------------------------------------------------------

def _mapped_axis_size(fun, in_tree, flat, dims, axis_size):
    """The size of the mapped axis; JAX's errors when it is missing or when
    inputs disagree (the message lists every mapped argument's size; SPEC
    VMAP-14, VMAP-15, VMAP-18)."""
    if not flat:
        if axis_size is not None:
            return axis_size
        args, kwargs = tree_util.tree_unflatten(in_tree, flat)
        raise ValueError("vmap wrapped function must be passed at least one argument "
                         "containing an array or axis_size must be specified, got "
                         f"empty *args={args} and **kwargs={kwargs}")
    sizes = [None if d is None else _axis_size_of(x, d) for x, d in zip(flat, dims)]
    distinct = {s for s in sizes if s is not None}
    if axis_size is not None:
        if distinct and axis_size.__hash__ is None:
            # An unhashable axis_size (a list) equals no mapped size (VMAP-106).
            raise ValueError(_inconsistent_sizes_msg(fun, in_tree, flat, dims, sizes,
                                                     axis_size))
        distinct.add(axis_size)
    if len(distinct) == 1:
        return distinct.pop()
    if not distinct:
        raise ValueError("vmap must have at least one non-None value in in_axes or "
                         "axis_size must be specified")
    raise ValueError(_inconsistent_sizes_msg(fun, in_tree, flat, dims, sizes, axis_size))


def _axis_size_of(x, axis):
    shape = np.shape(x) if core.is_array_like(x) else None
    if shape is None:
        return None
    if type(x) is int:
        core.get_aval(x)    # an int too wide for its dtype: OverflowError, as in JAX
    if not -len(shape) <= axis < len(shape):
        min_rank = axis + 1 if axis >= 0 else -axis
        raise ValueError(f"vmap was requested to map its argument along axis {axis}, "
                         f"which implies that its rank should be at least {min_rank}, "
                         f"but is only {len(shape)} (its shape is {shape})")
    return shape[axis]


def _inconsistent_sizes_msg(fun, in_tree, flat, dims, sizes, axis_size):
    args, kwargs = tree_util.tree_unflatten(in_tree, flat)
    try:
        params = list(inspect.signature(fun).bind(*args, **kwargs).signature.parameters)
    except (TypeError, ValueError):
        params = None

    def arg_name(path):
        i = path[0].idx
        if params is None or i >= len(params):
            return f"args{tree_util.keystr(path)}"
        return f"argument {params[i]}" + tree_util.keystr(path[1:])

    def type_of(x):
        try:
            return core.get_aval(x).str_short()
        except TypeError:
            return "unknown"

    where = [f"{arg_name(p)} of type {type_of(x)}"
             for p, x in tree_util.tree_flatten_with_path(args)[0]]
    where += [f"kwargs{tree_util.keystr(p)} of type {type_of(x)}"
              for p, x in tree_util.tree_flatten_with_path(kwargs)[0]]
    counts = collections.Counter(s for s in sizes if s is not None).most_common()
    lines = ["vmap got inconsistent sizes for array axes to be mapped:\n"]
    if axis_size is not None:
        lines.append(f"  * the `axis_size` argument was {axis_size};\n")
    for k, (size, count) in enumerate(counts):
        i = sizes.index(size)
        if count == 1:
            lines.append(f"  * one axis had size {size}: axis {dims[i]} of {where[i]};\n")
        elif k == 0:
            lines.append(f"  * most axes ({count} of them) had size {size}, e.g. "
                         f"axis {dims[i]} of {where[i]};\n")
        else:
            lines.append(f"  * some axes ({count} of them) had size {size}, e.g. "
                         f"axis {dims[i]} of {where[i]};\n")
    return "".join(lines)[:-2]
