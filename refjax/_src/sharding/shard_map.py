"""``shard_map`` and ``pmap``: per-device code on simulated devices
(SPEC SHD-50 .. SHD-92).

``shard_map(f, mesh=m, in_specs=..., out_specs=...)`` runs ``f`` once per
device on that device's block.  refjax expresses it with ``vmap``: each
argument is rearranged so that the mesh axes splitting it become leading
axes (one per mesh axis, in mesh order), and ``f`` is vmapped once per mesh
axis with ``axis_name`` set to that axis.  The collectives (``psum``,
``all_gather``, ``ppermute``...) are then exactly the named-axis collectives
of ``vmap`` (SPEC VMAP-70 ..), and ``grad``, ``jit`` and ``vmap`` of a
``shard_map`` compose for free.  Outputs are reassembled by the inverse
rearrangement and placed with ``NamedSharding(mesh, out_spec)``.

Replication checking (``check_vma``) falls out of the same construction: an
output whose spec leaves a mesh axis out must not vary over it, which is
what ``vmap`` reports with ``out_axes=None``.

``pmap`` is ``vmap`` over the leading axis with ``axis_name``, compiled with
``jit``, whose results are placed one row per device, as JAX 0.10 runs it
through ``jit(shard_map)``.
"""
import functools
import math

import numpy as np

from refjax._src import api, core
from refjax._src import devices as _devices
from refjax._src import mesh as shd
from refjax._src import placement as sharding_impl
from refjax._src import tree_util
from refjax._src.lax import shapes
from refjax._src.numpy.creation import asarray
from refjax._src.vmap_api import vmap

# ---------------------------------------------------------------------------
# shard_map
# ---------------------------------------------------------------------------

def shard_map(f=None, /, *, out_specs, in_specs=None, mesh=None,
              axis_names=frozenset(), check_vma=True):
    """Map ``f`` over the blocks of its arguments, one per device of
    ``mesh`` (SHD-50).  ``in_specs``/``out_specs`` are PartitionSpecs or
    pytree prefixes of them."""
    if f is None:
        return functools.partial(shard_map, out_specs=out_specs, in_specs=in_specs,
                                 mesh=mesh, axis_names=axis_names,
                                 check_vma=check_vma)
    core.check_callable(f)
    if mesh is None:
        mesh = shd.current_mesh()
        if mesh is None:
            raise ValueError(
                "The context mesh cannot be empty. Use `jax.set_mesh(mesh)` to "
                "enter into a mesh context or pass a mesh to shard_map")
    if not isinstance(mesh, shd.Mesh):
        raise TypeError(f"shard_map requires a Mesh for `mesh`; got {mesh!r}")

    @functools.wraps(f)
    def mapped(*args):
        _check_spec_types(in_specs, "in_specs", none_is_leaf=True)
        if not isinstance(out_specs, _SpecsFromTree):    # pmap's own
            _check_spec_types(out_specs, "out_specs", none_is_leaf=False)
        _check_axis_names(axis_names, mesh)
        return _shard_map_call(f, mesh, in_specs, out_specs, check_vma, args)
    return mapped


class _SpecsFromTree:
    """pmap's ``out_specs``: one spec per output leaf, computed from the
    output tree once the function is traced.  A user's callable is not
    one: it fails the type check like any other non-spec (SHD-98)."""

    def __init__(self, fn):
        self.fn = fn


def _check_spec_types(specs, what, none_is_leaf):
    """Every leaf of ``in_specs``/``out_specs`` is a PartitionSpec (in
    ``in_specs`` None too), checked when the mapped function is called,
    before the arguments: JAX's ``TypeError`` listing each bad leaf (SHD-98)."""
    def is_leaf(s):
        return isinstance(s, shd.PartitionSpec) or (none_is_leaf and s is None)
    if specs is None and none_is_leaf:
        return
    leaves = tree_util.tree_flatten_with_path(specs, is_leaf=is_leaf)[0]
    bad = [f"  {what}{tree_util.keystr(path)} is {leaf} of type {type(leaf).__name__}, "
           for path, leaf in leaves if not is_leaf(leaf)]
    if bad:
        raise TypeError(
            f"shard_map {what} argument must be a pytree of "
            "`jax.sharding.PartitionSpec` instances, but:\n\n" + "\n\n".join(bad) +
            f"\n\nCheck the {what} values passed to shard_map.")


def _check_axis_names(axis_names, mesh):
    """``axis_names`` is a set (or frozenset) of the mesh's axis names
    (SHD-98)."""
    if not isinstance(axis_names, (set, frozenset)):
        raise TypeError("`axis_names` argument of shard_map should be of type "
                        f"`frozenset` or `set`. Got type: {type(axis_names)}")
    if not set(axis_names) <= set(mesh.axis_names):
        raise ValueError(f"jax.shard_map requires axis_names={frozenset(axis_names)} "
                         "to be a subset of mesh.axis_names="
                         f"{frozenset(mesh.axis_names)}")


def experimental_shard_map(f, mesh, in_specs, out_specs, check_rep=True):
    """``jax.experimental.shard_map.shard_map``: the older spelling."""
    return shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                     check_vma=check_rep)


def _fun_name(f):
    return getattr(f, "__name__", str(f))


def _specs_for(specs, tree, what, f):
    """One PartitionSpec per leaf of ``tree`` from a pytree prefix.  None
    stands for ``P()`` in ``in_specs``; in ``out_specs`` it is an empty
    subtree, so it matches no output (JAX's ``ValueError``; SHD-98)."""
    none_ok = what == "in_specs"
    is_spec = lambda s: (none_ok and s is None) or isinstance(s, shd.PartitionSpec)
    if is_spec(specs):
        flat = [specs] * tree.num_leaves
    else:
        prefix, prefix_tree = tree_util.tree_flatten(specs, is_leaf=is_spec)
        full = tree_util.tree_unflatten(tree, [0] * tree.num_leaves)
        try:
            subtrees = prefix_tree.flatten_up_to(full)
        except (ValueError, TypeError):
            raise ValueError(_prefix_error(specs, full, what)) from None
        flat = [s for s, sub in zip(prefix, subtrees)
                for _ in tree_util.tree_leaves(sub)]
    return [shd.PartitionSpec() if s is None else s for s in flat]


def _prefix_error(specs, full, what):
    """JAX's wording for specs that are not a prefix of the values."""
    if (type(specs) is type(full) and isinstance(specs, tuple)
            and len(specs) == len(full)):
        # Same length: the first entry that does not match (an out_specs None).
        i = next((i for i, s in enumerate(specs) if s is None), 0)
        return (f"pytree structure error: different types at key path\n    shard_map "
                f"{what}[{i}]\nAt that key path, the prefix pytree shard_map {what} "
                f"has a subtree of type {type(specs[i])}, but at the same key path the "
                f"full pytree has a subtree of different type {type(full[i])}. Use "
                "P() for a replicated value.")
    if type(specs) is type(full) and isinstance(specs, tuple):
        return (f"pytree structure error: different lengths of tuple at key path"
                f"\n    shard_map {what}\nAt that key path, the prefix pytree "
                f"shard_map {what} has a subtree of type tuple of length "
                f"{len(specs)}, but the full pytree has a subtree of the same type "
                f"but of length {len(full)}.")
    return (f"pytree structure error: different types at key path\n    shard_map "
            f"{what}\nAt that key path, the prefix pytree shard_map {what} has a "
            f"subtree of type {type(specs)}, but at the same key path the full "
            f"pytree has a subtree of different type {type(full)}.")


def _check_arg(f, mesh, spec, x, i):
    """Rank and divisibility of argument ``i`` under its spec (SHD-57)."""
    aval = core.get_aval(x)
    name = _fun_name(f)
    if len(spec) > aval.ndim:
        raise ValueError(
            f"shard_map applied to the function '{name}' was given an "
            f"in_specs entry which is too long to be compatible with the "
            f"corresponding input value from the function:\n\nin_specs is "
            f"{spec} which has length {len(spec)}, but the passed args[{i}] has "
            f"shape {aval.str_short()}, which has rank {aval.ndim} (and "
            f"{aval.ndim} < {len(spec)})\n\nEntries in in_specs must be of "
            "length no greater than the number of axes in the corresponding "
            "input value.")
    for d, axes in enumerate(spec._normalized(aval.ndim)):
        size = math.prod(mesh.shape[a] for a in axes)
        if aval.shape[d] % size:
            where = f"axes {axes}" if len(axes) > 1 else f"axis '{axes[0]}'"
            total = "total " if len(axes) > 1 else ""
            raise ValueError(
                f"shard_map applied to the function '{name}' was given "
                "argument arrays with axis sizes that are not evenly divisible "
                "by the corresponding mesh axis sizes:\n\nThe mesh given has "
                f"shape {tuple(mesh.shape.values())} with corresponding axis "
                f"names {mesh.axis_names}.\n\nthe passed args[{i}] of shape "
                f"{aval.str_short()} corresponds to in_specs of value {spec}, "
                f"which maps array axis {d} (of size {aval.shape[d]}) to mesh "
                f"{where} (of {total}size {size}), but {size} does not evenly "
                f"divide {aval.shape[d]}\n\nArray arguments' axis sizes must be "
                "evenly divisible by the mesh axis or axes indicated by the "
                "corresponding elements of the argument's in_specs entry.")


def _check_spec_names(specs, mesh, what, duplicates=True):
    """Specs are PartitionSpecs naming only mesh axes, each once (SHD-65);
    ``duplicates=False`` leaves the last check to the caller."""
    for s in specs:
        if not isinstance(s, shd.PartitionSpec):
            raise TypeError(
                f"shard_map {what} argument must be a pytree of "
                f"`jax.sharding.PartitionSpec` instances, but:\n\n{what} is "
                f"{s} of type {type(s).__name__}")
        for entry in s._normalized(0):
            for a in entry:
                if a not in mesh.shape:
                    raise ValueError(
                        f"shard_map {what} argument must refer to an axis marked "
                        f"as manual ({frozenset(mesh.axis_names)}), but:\n\n"
                        f"{what} refers to {a!r}")
        if duplicates:
            shd._check_spec_axes(s, mesh)


def _to_stacked(x, spec, mesh):
    """``x`` with one leading axis per mesh axis its spec uses (mesh
    order), followed by the block's own axes."""
    ndim = np.ndim(x)
    dims = spec._normalized(ndim)
    sizes = mesh.shape
    split_shape, where = [], {}
    for d, axes in enumerate(dims):
        for a in axes:
            where[a] = len(split_shape)
            split_shape.append(sizes[a])
        block = np.shape(x)[d] // math.prod(sizes[a] for a in axes)
        split_shape.append(block)
    lead = [where[a] for a in mesh.axis_names if a in where]
    rest = [i for i in range(len(split_shape)) if i not in lead]
    x = x.reshape(tuple(split_shape))
    return x.transpose(tuple(lead + rest))


def _from_stacked(y, spec, mesh):
    """The inverse of ``_to_stacked`` for an output of block shape."""
    used = [a for a in mesh.axis_names if a in {a for d in spec._normalized(0) for a in d}]
    block_ndim = np.ndim(y) - len(used)
    dims = spec._normalized(block_ndim)
    order, shape = [], []
    bshape = np.shape(y)[len(used):]
    for d, axes in enumerate(dims):
        for a in axes:
            order.append(used.index(a))
        order.append(len(used) + d)
        shape.append(bshape[d] * math.prod(mesh.shape[a] for a in axes))
    return y.transpose(tuple(order)).reshape(tuple(shape))


def _shard_map_call(f, mesh, in_specs, out_specs, check_vma, args):
    flat, in_tree = tree_util.tree_flatten(args)
    flat = [x if isinstance(x, core.Tracer) else asarray(x) for x in flat]
    if in_specs is None:
        in_specs = _infer_in_specs(mesh, flat, in_tree)
    specs = _specs_for(in_specs, in_tree, "in_specs", f)
    _check_spec_names(specs, mesh, "in_specs", duplicates=False)
    for i, (x, s) in enumerate(zip(flat, specs)):
        _check_arg(f, mesh, s, x, i)
        _check_explicit(mesh, s, x)
    # A spec too long for its argument is reported before a repeated axis,
    # as in JAX (SHD-98).
    for s in specs:
        shd._check_spec_axes(s, mesh)
    closed, out_tree = _trace_on_blocks(f, mesh, in_tree, flat, specs)
    if isinstance(out_specs, _SpecsFromTree):       # pmap's, per output leaf
        out_specs_flat = out_specs.fn(out_tree)
    else:
        out_specs_flat = _specs_for(out_specs, out_tree, "out_specs", f)
    # As for in_specs: too long before a repeated axis (SHD-98).
    _check_spec_names(out_specs_flat, mesh, "out_specs", duplicates=False)
    for aval, s in zip(closed.out_avals, out_specs_flat):
        if len(s) > aval.ndim:
            raise ValueError(
                f"shard_map applied to the function '{_fun_name(f)}' was given "
                "an out_specs entry which is too long to be compatible with the "
                "corresponding output value from the function:\n\nout_specs is "
                f"{s} which has length {len(s)}, but {_fun_name(f)}(*args) has "
                f"shape {aval.str_short()}, which has rank {aval.ndim} (and "
                f"{aval.ndim} < {len(s)})\n\nEntries in out_specs must be of "
                "length no greater than the number of axes in the corresponding "
                "output value.")
    for s in out_specs_flat:
        shd._check_spec_axes(s, mesh)

    # One vmap per mesh axis, the first mesh axis outermost.
    fun = core.jaxpr_as_fun(closed)
    for axis in reversed(mesh.axis_names):
        in_axes = [0 if _uses(s, axis) else None for s in specs]
        out_axes = [0 if (_uses(s, axis) or not check_vma) else None
                    for s in out_specs_flat]
        fun = vmap(fun, in_axes=in_axes, out_axes=out_axes, axis_name=axis,
                   axis_size=mesh.shape[axis])
    stacked = [_to_stacked(x, s, mesh) for x, s in zip(flat, specs)]
    try:
        outs = fun(*stacked)
    except ValueError as e:
        if not hasattr(e, "mapped_output"):
            raise
        index, axis = e.mapped_output
        raise ValueError(_replication_error(f, mesh, out_specs_flat[index], axis)) from None
    results = []
    for y, s in zip(outs, out_specs_flat):
        y = asarray(y) if not isinstance(y, core.Tracer) else y
        if not check_vma:
            y = _first_device_copy(y, s, mesh)
        g = _from_stacked(y, s, mesh)
        results.append(sharding_impl.with_sharding_constraint(g, shd.NamedSharding(mesh, s)))
    return tree_util.tree_unflatten(out_tree, results)


def _uses(spec, axis):
    return any(axis in d for d in spec._normalized(0))


def _trace_on_blocks(f, mesh, in_tree, flat, specs):
    """Trace ``f`` once on one device's block shapes, with the mesh axes
    bound as names (so its collectives type-check): a closed jaxpr of the
    per-device program, and the tree of its outputs."""
    blocks = [api.ShapeDtypeStruct(shd.NamedSharding(mesh, s).shard_shape(np.shape(x)),
                                   x.dtype) for x, s in zip(flat, specs)]
    box = []

    def flat_f(*xs):
        leaves, tree = tree_util.tree_flatten(f(*tree_util.tree_unflatten(in_tree, list(xs))))
        box.append(tree)
        return leaves
    env = list(mesh.shape.items())
    from refjax._src.lax import parallel
    parallel._manual_axes.append(frozenset(mesh.axis_names))
    try:
        closed = api.make_jaxpr(flat_f, axis_env=env)(*blocks)
    finally:
        parallel._manual_axes.pop()
    return closed, box[-1]


def _first_device_copy(y, spec, mesh):
    """With ``check_vma=False`` an output replicated over an axis is taken
    from the first device along it (SHD-58)."""
    used = {a for d in spec._normalized(0) for a in d}
    index = tuple(slice(None) if a in used else 0 for a in mesh.axis_names)
    return y[index]


def _replication_error(f, mesh, spec, varying_axis):
    """JAX's message for an output claimed replicated over an axis it varies
    along (SHD-56); ``varying_axis`` is the first such axis found."""
    used = {a for d in spec._normalized(0) for a in d}
    unmentioned = [a for a in mesh.axis_names if a not in used]
    if len(unmentioned) > 1:
        need = ",".join(a for a in mesh.axis_names if a in used)
        detail = (f"out_specs is {spec} which implies that the corresponding "
                  f"output value is only varying across mesh axes {{{need}}} and "
                  f"not {{{varying_axis}}}, but it was inferred to be possibly "
                  f"varying over {{{varying_axis}}}")
    else:
        detail = (f"out_specs is {spec} which implies that the corresponding "
                  "output value is replicated across mesh axis "
                  f"'{unmentioned[0]}', but could not infer replication over "
                  "any axes")
    return (
        f"shard_map applied to the function '{_fun_name(f)}' was given "
        "out_specs which require replication which can't be statically "
        f"inferred given the mesh:\n\nThe mesh given has shape "
        f"{tuple(mesh.shape.values())} with corresponding axis names "
        f"{mesh.axis_names}.\n\n{detail}\n\nCheck if these output values are "
        "meant to be replicated over those mesh axes. If not, consider revising "
        "the corresponding out_specs entries. If so, consider disabling the "
        "check by passing the check_vma=False argument to `jax.shard_map`.")


def _infer_in_specs(mesh, flat, in_tree):
    """With Explicit mesh axes, in_specs default to the inputs' own specs;
    with Auto ones they are required (SHD-51)."""
    if not any(t == shd.AxisType.Explicit for t in mesh.axis_types):
        raise TypeError(
            "shard_map in_specs argument must be a pytree of "
            "`jax.sharding.PartitionSpec` instances, but it was `None` when "
            f"axis_names={frozenset(mesh.axis_names)} are of type AxisType.Auto")
    return tree_util.tree_unflatten(in_tree, [_input_spec(mesh, x) for x in flat])


def _input_spec(mesh, x):
    s = getattr(x, "_sharding", None)
    if isinstance(s, shd.NamedSharding) and s.mesh == mesh:
        return s.spec
    return shd.PartitionSpec(*([None] * np.ndim(x)))


def _check_explicit(mesh, spec, x):
    """On Explicit axes an input must already be laid out as its in_spec
    says (shard_map does not reshard it; SHD-51)."""
    if not any(t == shd.AxisType.Explicit for t in mesh.axis_types):
        return
    have = _input_spec(mesh, x)
    if have._normalized(np.ndim(x)) != spec._normalized(np.ndim(x)):
        raise ValueError(
            f"in_specs passed to shard_map: {spec} does not match the specs of "
            f"the input: {have} for arg: {core.get_aval(x).str_short()}. Either "
            "pass in_specs that match the input, or place the input with "
            "`jax.reshard` / `jax.device_put` first.")


# ---------------------------------------------------------------------------
# pmap (SHD-80 .. SHD-92)
# ---------------------------------------------------------------------------

PMAP_AXIS = "_internal_pmap_axis_name"


def pmap(fun, axis_name=None, *, in_axes=0, out_axes=0,
         static_broadcasted_argnums=(), devices=None, backend=None,
         axis_size=None, donate_argnums=()):
    """Map ``fun`` over the leading axis (or ``in_axes``) of its arguments,
    one slice per device (SHD-80).  As in JAX 0.10 it is ``jit`` of a
    ``shard_map`` over a one-axis mesh of the first ``n`` devices, with
    replication checking off; each device's block (of size 1) is squeezed
    before ``fun`` sees it."""
    core.check_callable(fun)
    _check_axes_tree(in_axes, "in_axes")
    _check_axes_tree(out_axes, "out_axes")
    if devices is not None and len(devices) == 0:
        raise ValueError("'devices' argument to pmap must be non-empty, or None.")
    if isinstance(static_broadcasted_argnums, int):
        static_broadcasted_argnums = (static_broadcasted_argnums,)
    statics = tuple(static_broadcasted_argnums)
    name = PMAP_AXIS if axis_name is None else axis_name

    def run(*args, **kwargs):
        dyn = [a for i, a in enumerate(args) if i not in statics]
        fixed = {i: a for i, a in enumerate(args) if i in statics}

        def call(dyn_args, kw):
            it = iter(dyn_args)
            full = [fixed[i] if i in fixed else next(it) for i in range(len(args))]
            return fun(*full, **kw)
        # Keyword arguments are mapped along their leading axis, as in JAX.
        return _pmap_call(call, name, (tuple(dyn), kwargs),
                          (_dyn_in_axes(in_axes, args, statics), 0),
                          out_axes, devices, axis_size)

    jitted = api.jit(run, static_argnums=statics, donate_argnums=donate_argnums)

    @functools.wraps(fun)
    def pmapped(*args, **kwargs):
        _check_statics(fun, statics, args)
        dyn = [a for i, a in enumerate(args) if i not in statics]
        leaves = tree_util.tree_leaves((dyn, kwargs))
        if leaves and all(type(x) in (int, float, complex, bool) or
                          not core.is_array_like(x) for x in leaves):
            # A Python scalar, or what is not an array at all (a string, a
            # slice), has no axis to map (SHD-99).
            raise ValueError("pmap requires at least one argument with a mapped axis.")
        try:
            hash(name)      # JAX keys its cache by the name, next (SHD-99)
        except TypeError:
            raise TypeError(f"pmap axis_name must be hashable (a str, e.g. 'i'); "
                            f"got {name!r} of type {type(name).__name__}") from None
        return jitted(*args, **kwargs)

    def lower(*args, **kwargs):
        """Ahead-of-time: the pmapped program for these arguments, as
        ``jit(...).lower`` gives it (SPEC SHD-107)."""
        _check_statics(fun, statics, args)
        return jitted.lower(*args, **kwargs)

    pmapped.lower = lower
    return pmapped


def _check_statics(fun, statics, args):
    """JAX's messages for missing and unhashable static arguments (SHD-85)."""
    if statics and max(statics) >= len(args):
        raise ValueError(
            f"pmapped function has static_broadcasted_argnums={statics} but was "
            f"called with only {len(args)} positional argument"
            f"{'' if len(args) == 1 else 's'}. All static broadcasted arguments "
            "must be passed positionally.")
    for i in statics:
        try:
            hash(args[i])
        except TypeError:
            raise ValueError(
                "Non-hashable static arguments are not supported, as this can "
                f"lead to unexpected cache-misses. Static argument (index {i}) of "
                f"type {type(args[i])} for function {getattr(fun, '__name__', fun)} "
                "is non-hashable.") from None


def _check_axes_tree(axes, what):
    for leaf in tree_util.tree_leaves(axes):
        if not isinstance(leaf, int) or isinstance(leaf, bool):     # False is no axis
            raise TypeError(
                f"pmap {what} must be an int, None, or (nested) container with "
                f"those types as leaves, but got {leaf}.")


def _dyn_in_axes(in_axes, args, statics):
    if not isinstance(in_axes, (tuple, list)):
        return in_axes
    if len(in_axes) == len(args):
        return tuple(a for i, a in enumerate(in_axes) if i not in statics)
    return tuple(in_axes)


def _pmap_call(fun, name, args, in_axes, out_axes, devices, axis_size):
    flat, in_tree = tree_util.tree_flatten(args)
    axes = _flat_axes(in_axes, in_tree, args, "in_axes")
    mapped = [(x, a) for x, a in zip(flat, axes) if a is not None]
    if not mapped:
        raise ValueError("pmap requires at least one argument with a mapped axis.")
    n = _pmap_axis_size(flat, axes)
    if axis_size is not None and axis_size != n:
        raise ValueError(f"Specified axis_size {axis_size} doesn't match received "
                         f"axis_size {n}.")
    if n == 0:
        # No device would hold anything: JAX refuses the empty mesh (SHD-99).
        raise ValueError(
            "One of in_shardings leaf specifications got an empty NamedSharding: "
            f"NamedSharding(mesh=Mesh(), spec=P({name!r},)) which is not allowed. "
            "pmap needs a mapped axis of size 1 or more.")
    devs = list(_devices.devices() if devices is None else devices)
    mesh = shd.Mesh(np.array(devs[:min(n, len(devs))], dtype=object), (name,))
    row = shd.NamedSharding(mesh, shd.PartitionSpec(name))
    _check_mapped_ranks(flat, axes, mesh, name)
    moved = [x if a is None else _move_to_front(x, a) for x, a in zip(flat, axes)]
    for x, a in zip(moved, axes):
        if a is not None:
            row.shard_shape(np.shape(x))   # IndivisibleError, as JAX's device_put
    out_tree_box = []

    def per_device(*blocks):
        xs = [b if a is None else shapes.squeeze(b, (0,)) for b, a in zip(blocks, axes)]
        out = fun(*tree_util.tree_unflatten(in_tree, xs))
        leaves, tree = tree_util.tree_flatten(out)
        out_tree_box.append(tree)
        oaxes = _flat_axes(out_axes, tree, out, "out_axes")
        return [y if o is None else shapes.expand_dims(y, (0,)) for y, o in zip(leaves, oaxes)]

    in_specs = tuple(shd.PartitionSpec(name) if a is not None else shd.PartitionSpec()
                     for a in axes)
    def out_specs(_):     # known once the per-device function is traced
        tree = out_tree_box[-1]
        leaves = tree_util.tree_unflatten(tree, [0] * tree.num_leaves)
        return [shd.PartitionSpec() if o is None else shd.PartitionSpec(name)
                for o in _flat_axes(out_axes, tree, leaves, "out_axes")]
    outs = shard_map(per_device, mesh=mesh, in_specs=in_specs,
                     out_specs=_SpecsFromTree(out_specs), check_vma=False)(*moved)
    tree = out_tree_box[-1]
    oaxes = _flat_axes(out_axes, tree, tree_util.tree_unflatten(tree, outs), "out_axes")
    final = [y if o in (None, 0) else _move_from_front(y, o, mesh, name)
             for y, o in zip(outs, oaxes)]
    return tree_util.tree_unflatten(tree, final)


def _pmap_axis_size(flat, axes):
    """The mapped axis size, read from the first mapped argument that is not
    a Python scalar (the first mapped one if all are); only that argument
    raises ``IndexError`` when it lacks the axis (SPEC SHD-83)."""
    mapped = [(x, a) for x, a in zip(flat, axes) if a is not None]
    x, axis = next(((x, a) for x, a in mapped if not _from_python_scalar(x)), mapped[0])
    return np.shape(x)[axis]


def _from_python_scalar(x):
    # pmap runs under jit, so a Python scalar arrives as a weakly typed
    # rank-0 value.
    aval = getattr(x, "aval", None)
    return (isinstance(x, (bool, int, float, complex))
            or (np.ndim(x) == 0 and getattr(aval, "weak_type", False)))


def _check_mapped_ranks(flat, axes, mesh, name):
    """Any other mapped argument without the mapped axis fails the sharding
    check of the computation pmap runs, with JAX's message (SPEC SHD-83)."""
    for i, (x, axis) in enumerate(zip(flat, axes)):
        if axis is None or axis < 0 or np.ndim(x) > axis:
            continue
        sharding = shd.NamedSharding(mesh, shd.PartitionSpec(*([None] * axis), name))
        scalar = " For scalars the PartitionSpec should be P()" if np.ndim(x) == 0 else ""
        raise ValueError(
            f"One of pjit arguments with pytree key path flat_args[{i}] is incompatible "
            f"with its sharding annotation {sharding}: Sharding {sharding} is only valid "
            f"for values of rank at least {axis + 1}, but was applied to a value of rank "
            f"{np.ndim(x)}.{scalar}")


def _flat_axes(axes, tree, value, what):
    if isinstance(axes, int) or axes is None:
        return [axes] * tree.num_leaves
    if isinstance(axes, list):
        axes = tuple(axes)
    prefix, prefix_tree = tree_util.tree_flatten(axes, is_leaf=lambda a: a is None)
    try:
        subtrees = prefix_tree.flatten_up_to(value)
    except (ValueError, TypeError):
        raise ValueError(
            "pytree structure error: different lengths of tuple at key path\n"
            f"    pmap {what}\nAt that key path, the prefix pytree pmap {what} "
            f"is {axes!r}, which is not a prefix of the "
            f"{'arguments' if what == 'in_axes' else 'outputs'}.") from None
    return [a for a, sub in zip(prefix, subtrees) for _ in tree_util.tree_leaves(sub)]


def _move_to_front(x, axis):
    from refjax._src.numpy import lax_numpy as jnp_
    x = asarray(x) if not isinstance(x, core.Tracer) else x
    shape = np.shape(x)
    if axis >= len(shape) or axis < -len(shape):
        raise IndexError("tuple index out of range")
    return jnp_.moveaxis(x, axis, 0) if axis else x


def _move_from_front(y, axis, mesh, name):
    from refjax._src.numpy import lax_numpy as jnp_
    y = jnp_.moveaxis(y, 0, axis)
    parts = [None] * axis + [name]
    return sharding_impl.with_sharding_constraint(
        y, shd.NamedSharding(mesh, shd.PartitionSpec(*parts)))
