"""Placing arrays on devices and propagating shardings (SPEC SHD-13 .. SHD-46).

Computation in refjax runs on global values (a sharded operand is gathered
from its shards); what this module decides is *where results live*:

* ``device_put`` splits an array into per-device buffers under a sharding;
* an operation follows its committed operands: all on one device gives a
  result committed there, operands on different devices raise JAX's error;
* with NamedSharding operands (or ``with_sharding_constraint``, or jit's
  ``in_shardings``/``out_shardings``), a result's PartitionSpec comes from
  each primitive's ``sharding_rule`` (defined next to the primitive; the
  shared ones in ``mesh.py``), applied equation by equation over the jaxpr
  (SHD-46).  Primitives without a rule give replicated results; that choice
  is compiler-dependent in JAX (SHD-42).

A placement during propagation is ``dims``: per array dimension, the tuple of
mesh axes splitting it; ``None`` means "not sharded by anything".
"""
import functools
import math

import numpy as np

from refjax._src import backend as _backend
from refjax._src import core
from refjax._src import devices as _devices
from refjax._src import dispatch, dtypes
from refjax._src import mesh as shd
from refjax._src import tree_util
from refjax._src.array import Array, ArrayImpl
from refjax._src.casting import convert
from refjax._src.core import Literal, Primitive, Tracer
from refjax._src.devices import Device
from refjax._src.interpreters import ad

# ---------------------------------------------------------------------------
# device_put
# ---------------------------------------------------------------------------

def device_put(x, device=None, *, src=None, donate=False, may_alias=None):
    """Arrays for every leaf of ``x``, placed on ``device`` (a Device or a
    Sharding, or a pytree prefix of them); committed when a place is given
    (SHD-13).  ``may_alias=False`` always gives new buffers; ``may_alias``
    and ``donate`` both True is an error (JIT-14)."""
    if may_alias and donate:
        raise ValueError("may_alias and donate cannot be True at the same time.")
    out = _device_put(x, device)
    if may_alias:       # an array already placed there is returned itself
        out = tree_util.tree_map(
            lambda o, v: v if (isinstance(v, ArrayImpl) and v.committed and
                               type(o.sharding) is type(v.sharding) and
                               o.sharding == v.sharding) else o, out, x)
    elif may_alias is False:
        given = {id(v) for v in tree_util.tree_leaves(x)}
        out = tree_util.tree_map(
            lambda v: v.copy() if id(v) in given and not isinstance(v, Tracer) else v, out)
    return out


def _device_put(x, device):
    if device is None:
        return tree_util.tree_map(lambda v: v if isinstance(v, Tracer) else _put_host(v), x)
    if isinstance(device, (shd.Sharding, core_device_type())):
        return tree_util.tree_map(lambda v: _put_leaf(v, device), x)
    try:
        return tree_util.tree_map(lambda d, v: tree_util.tree_map(
            lambda leaf: _put_leaf(leaf, d), v), device, x,
            is_leaf=lambda d: d is None or isinstance(d, shd.Sharding))
    except ValueError as e:
        if "pytree structure error" in str(e):
            _raise_prefix_errors(device, x)
        raise


def _raise_prefix_errors(device, x):
    """The places must form a pytree prefix of ``x``: JAX lists every
    mismatch (SHD-104)."""
    errors = tree_util.prefix_errors(
        device, x, is_leaf=lambda d: d is None or isinstance(d, shd.Sharding))
    if errors:
        details = "\n".join("  " + str(e("device_put device")) for e in errors)
        raise ValueError(
            "device_put device specification must be a tree prefix of the "
            f"corresponding value; \n  Mismatch details ({len(errors)} found):\n"
            f"{details}")


def reshard(x, out_shardings):
    """``x`` laid out per ``out_shardings`` (a NamedSharding or a
    PartitionSpec on the context mesh, or a pytree prefix of them), values
    unchanged (SHD-51).  None raises ``ValueError``, any other kind of
    object ``TypeError``, a PartitionSpec outside a mesh ``ValueError``, as
    in JAX (SHD-96)."""
    for s in _placement_leaves(out_shardings):
        if s is None:
            raise ValueError(
                "reshard needs a NamedSharding or PartitionSpec for every output; "
                "got None. Pass jax.sharding.NamedSharding(mesh, P(...)), or a "
                "PartitionSpec inside `with jax.set_mesh(mesh)`.")
        if not isinstance(s, (shd.NamedSharding, shd.PartitionSpec)):
            raise TypeError(
                "`out_sharding` argument of reshard only supports instances of "
                f"`NamedSharding` or `PartitionSpec`. Got {s} of type: {type(s)}")
        if isinstance(s, shd.PartitionSpec) and shd.current_mesh() is None:
            raise ValueError(
                "reshard got a PartitionSpec outside a mesh context: enter one with "
                "`jax.set_mesh(mesh)` or pass a NamedSharding instead. Got "
                f"{s}")
    return with_sharding_constraint(x, out_shardings)


def _placement_leaves(tree):
    """The leaves of a pytree of shardings, None and PartitionSpecs kept."""
    return tree_util.tree_leaves(tree, is_leaf=lambda s: s is None or isinstance(
        s, (shd.Sharding, shd.PartitionSpec)))


def core_device_type():
    return Device


def _to_array(x, dtype=None):
    """``x`` (an Array, NumPy value or Python scalar) as a concrete Array,
    of ``dtype`` when one is given; a Python scalar stays weakly typed."""
    if isinstance(x, Array) and not isinstance(x, Tracer) and (
            dtype is None or x.dtype == dtype):
        return x
    aval = core.get_aval(x)
    buffer = core.to_buffer(x)
    if dtype is not None and dtype != aval.dtype:
        buffer = convert(buffer, aval.dtype, np.dtype(dtype))
        aval = core.ShapedArray(aval.shape, np.dtype(dtype), False)
    return core.wrap_buffer(buffer, aval)


def _put_host(x):
    """``device_put(x)``: a host value becomes an Array on the default device,
    an explicit transfer (SPEC CFG-27)."""
    if not isinstance(x, Array):
        _devices.guard_host_to_device(lambda: core.get_aval(x), explicit=True)
    with _devices.explicit_transfer():
        return _to_array(x)


def _guard_explicit(x, place):
    """The transfer guard of ``device_put(x, place)``: host-to-device for a
    host value, device-to-device for an Array living elsewhere (SPEC CFG-27)."""
    target = place if isinstance(place, shd.Sharding) else shd.SingleDeviceSharding(place)
    if not isinstance(x, Array):
        _devices.guard_transfer("host-to-device", True, lambda: (
            f"aval={core.get_aval(x)!r}, dst_sharding={target!r}"))
    elif type(x) is ArrayImpl and x.devices() != set(target.device_set):
        _devices.guard_transfer("device-to-device", True, lambda: (
            f"aval={core.get_aval(x)!r}, dst_sharding={target!r}"))


def _put_leaf(x, place):
    if place is None:
        return x if isinstance(x, Tracer) else _put_host(x)
    if isinstance(place, shd.PartitionSpec):
        place = _sharding_from_spec(place, "device_put")
    check_place(place)
    if not isinstance(x, Tracer):
        _guard_explicit(x, place)
    if isinstance(x, Tracer):
        if isinstance(place, shd.NamedSharding):
            return sharding_constraint_p.bind(x, sharding=place)
        return x
    if dtypes.is_extended(getattr(x, "dtype", None)):
        # A key array keeps no placement in refjax (it reports the default
        # device); its keys are returned unchanged, as JAX's values are.
        return x
    if not isinstance(x, ArrayImpl):
        with _devices.explicit_transfer():
            x = _to_array(x)
    return place_array(x, place)


def check_place(place):
    """A place is a Device or a Sharding; a platform name such as ``'cpu'``
    is not one, and JAX refuses it with ``ValueError`` -- or with
    ``TypeError`` when it is unhashable (an array, a set), as JAX hashes
    places first (SHD-93)."""
    try:
        hash(place)
    except TypeError:
        raise TypeError(
            f"unhashable type: {type(place).__name__!r}: jax.device_put takes a "
            "jax.Device (one of jax.devices()) or a jax.sharding.Sharding as the "
            "place, not an array or container of values.") from None
    if not isinstance(place, (shd.Sharding, core_device_type())):
        raise ValueError(
            "`jax.device_put` only accepts `None`, `jax.sharding.Sharding`, "
            "`jax.Device`, `Format`, `jax.memory.Space` or a pytree of these "
            f"values. Received invalid value: {place}. To place on a device, "
            "pass one of jax.devices() (e.g. jax.devices('cpu')[0]).")


def place_array(x, sharding):
    """``x`` committed to ``sharding``: one fresh buffer per device."""
    if isinstance(sharding, core_device_type()):
        sharding = shd.SingleDeviceSharding(sharding)
    be = _backend.get()
    if isinstance(sharding, shd.SingleDeviceSharding):
        device = sharding._device
        if not isinstance(device, core_device_type()):
            # JAX, too, accepts the sharding and fails here (SHD-93).
            raise AttributeError(
                f"SingleDeviceSharding({device!r}) names no device: build it from "
                "one of jax.devices(), e.g. SingleDeviceSharding(jax.devices()[0])")
        return ArrayImpl(be.put(x._value, device.id), x._dtype, x.weak_type,
                         device, True)
    if x._sharding == sharding and x._shards is not None:
        return x
    value = x._value
    shape = tuple(value.shape)
    indices = sharding._indices(shape)
    if sharding.is_fully_replicated:
        indices = [() for _ in indices]
    # Each block is copied onto its own device (SPEC BE-7).
    shards = [be.take_shard(value, i, d.id)
              for i, d in zip(indices, sharding._device_assignment)]
    return ArrayImpl._from_shards(shards, shape, x._dtype, x.weak_type, sharding)


def _sharding_from_spec(spec, what):
    """A PartitionSpec on the context mesh; ``what`` is ``(api, option)``."""
    api_name, option = what if isinstance(what, tuple) else (what, "shardings")
    mesh = shd.current_mesh()
    if mesh is None:
        raise RuntimeError(
            f"{api_name} requires a non-empty mesh in context if you are passing "
            f"`PartitionSpec`s to {option}. You can define a context mesh via "
            f"`jax.set_mesh(mesh)`. Alternatively, provide `Sharding`s to "
            f"{option} and then the mesh context manager is not required.")
    return shd.NamedSharding(mesh, spec)


# ---------------------------------------------------------------------------
# Where arguments live
# ---------------------------------------------------------------------------

def _assignment(x):
    """The devices a committed array lives on, or None if uncommitted."""
    if type(x) is not ArrayImpl or not x._committed:
        return None
    if x._sharding is not None:
        return x._sharding._device_assignment
    return (x._device,)


def _describe(name, fun_name, x, devs):
    ids = [d.id for d in devs]
    plat = devs[0].platform.upper()
    return (f"argument {name} of {fun_name} with shape {core.get_aval(x).str_short()} and with "
            f"device ids {ids} on platform {plat}")


def common_assignment(args, names, fun_name):
    """The device assignment shared by the committed ``args`` (None when
    none is committed); different ones raise JAX's ValueError (SHD-15)."""
    found = None
    for i, x in enumerate(args):
        devs = _assignment(x)
        if devs is None:
            continue
        if found is None:
            found = (i, devs)
        elif devs != found[1]:
            j = found[0]
            raise ValueError(
                "Received incompatible devices for jitted computation. Got "
                + _describe(names[j], fun_name, args[j], found[1]) + " and "
                + _describe(names[i], fun_name, x, devs))
    return None if found is None else found[1]


def _arg_dims(x):
    if type(x) is ArrayImpl and x._sharding is not None:
        return x._sharding._dims(x.ndim)
    return None


# ---------------------------------------------------------------------------
# Eager operations (SHD-16)
# ---------------------------------------------------------------------------

# jax.numpy's name for a primitive, which JAX's eager errors show (SHD-15).
_NUMPY_NAMES = {"mul": "multiply", "sub": "subtract", "div": "divide",
                "pow": "power", "max": "maximum", "min": "minimum"}


def _eager_names(n):
    return ("x", "y") if n == 2 else tuple(f"args[{i}]" for i in range(n))


def place_eager(primitive, params, args, avals_in, results):
    """Results of ``primitive`` on committed operands: on their device, or
    sharded as the propagation rule says."""
    devs = common_assignment(args, _eager_names(len(args)),
                             _NUMPY_NAMES.get(primitive.name, primitive.name))
    outs = results if primitive.multiple_results else [results]
    mesh = next((x._sharding.mesh for x in args
                 if type(x) is ArrayImpl and x._sharding is not None), None)
    if mesh is None:
        placed = [_on_device(r, devs[0]) for r in outs]
    else:
        in_dims = [_arg_dims(x) for x in args]
        out_avals = [core.get_aval(r) for r in outs]
        out_dims = rule_for(primitive)(params, in_dims, avals_in, out_avals)
        placed = [_place_dims(r, mesh, d) for r, d in zip(outs, out_dims)]
    return placed if primitive.multiple_results else placed[0]


def _on_device(x, device):
    """``x`` committed to ``device``, its buffer moved there if the kernel
    ran elsewhere (a no-op on one-device backends)."""
    if type(x) is not ArrayImpl:
        return x
    buffer = _backend.get().put(x._value, device.id)
    return ArrayImpl(buffer, x._dtype, x.weak_type, device, True)


def _place_dims(x, mesh, dims, like=()):
    """``x`` sharded over ``mesh`` as ``dims`` say; an input's sharding with
    the same layout is reused as is, so a spec like ``P('x', None)`` keeps
    its trailing None through jit (SHD-37)."""
    if type(x) is not ArrayImpl:
        return x
    dims = _valid_dims(dims, x.shape, mesh) if dims is not None else ((),) * x.ndim
    for s in like:
        if s.mesh == mesh and len(s.spec) <= x.ndim and s._dims(x.ndim) == dims:
            return place_array(x, s)
    return place_array(x, shd.NamedSharding(mesh, shd.spec_from_dims(dims)))


# ---------------------------------------------------------------------------
# jit (SHD-30 .. SHD-39)
# ---------------------------------------------------------------------------

def flat_shardings(shardings, tree, what):
    """One Sharding (or None) per leaf of ``tree``, from a pytree prefix of
    it (a single Sharding or PartitionSpec applies to every leaf)."""
    is_place = lambda s: s is None or isinstance(s, (shd.Sharding, shd.PartitionSpec))
    if is_place(shardings):
        return [_as_sharding(shardings, what)] * tree.num_leaves
    prefix, prefix_tree = tree_util.tree_flatten(shardings, is_leaf=is_place)
    full = tree_util.tree_unflatten(tree, [0] * tree.num_leaves)
    try:
        subtrees = prefix_tree.flatten_up_to(full)
    except (ValueError, TypeError) as e:
        api_name, option = what
        extra = ""
        if isinstance(shardings, tuple) and isinstance(full, tuple):
            extra = (f"\n\nBut pjit {option} is the wrong length: got a tuple or "
                     f"list of length {len(shardings)} for an args tuple of length "
                     f"{len(full)}.")
        raise ValueError(
            f"pjit {option} specification must be a tree prefix of the "
            f"positional arguments tuple.{extra}") from e
    return [_as_sharding(s, what) for s, sub in zip(prefix, subtrees)
            for _ in tree_util.tree_leaves(sub)]


def _as_sharding(s, what):
    if s is None or isinstance(s, shd.Sharding):
        return s
    return _sharding_from_spec(s, what)


def run_jit(wrapped, entry, call, execute):
    """Run a jitted call whose arguments or options involve placement:
    check the devices, place arguments per ``in_shardings``, run, and place
    the results (SHD-30, SHD-31)."""
    flat = list(call.flat)
    names = entry.arg_names
    in_sh = wrapped._flat_in_shardings(call)
    for i, (x, s) in enumerate(zip(flat, in_sh)):
        if s is None:
            continue
        if type(x) is ArrayImpl and x._committed and not _same_place(x, s):
            raise ValueError(
                "Sharding passed to jit does not match the sharding on the "
                f"respective arg. Got jit sharding: {s!r},\narg sharding: "
                f"{x.sharding!r} for arg type: {core.get_aval(x).str_short()}")
        if isinstance(s, shd.NamedSharding):
            s._check_shape(tuple(np.shape(x)), f"pjit arguments with pytree key "
                           f"path {names[i]}")
        flat[i] = place_array(x if type(x) is ArrayImpl else _as_array(x, entry.in_avals[i]), s)
    devs = common_assignment(flat, names, wrapped._name)
    outs = execute(entry, flat)
    out_sh = wrapped._flat_out_shardings(entry)
    jaxpr = entry.traced.closed.jaxpr
    mesh = _mesh_of(flat, in_sh, out_sh) or _constraint_mesh(jaxpr)
    if mesh is None:
        return [place_array(o, s) if s is not None and type(o) is ArrayImpl
                else o if devs is None else _on_device(o, devs[0])
                for o, s in zip(outs, out_sh)]
    out_dims = propagate(jaxpr, [_arg_dims(x) for x in flat])
    like = [x._sharding for x in flat if type(x) is ArrayImpl and x._sharding is not None]
    return [place_array(o, s) if s is not None and type(o) is ArrayImpl
            else _place_dims(o, mesh, d, like)
            for o, d, s in zip(outs, out_dims, out_sh)]


def _as_array(x, aval):
    return _to_array(x, aval.dtype)


def _same_place(x, s):
    return x.sharding == s or (
        x.sharding._device_assignment == s._device_assignment and
        x.sharding._dims(x.ndim) == s._dims(x.ndim))


def _mesh_of(flat, in_sh, out_sh):
    for x in flat:
        if type(x) is ArrayImpl and x._sharding is not None:
            return x._sharding.mesh
    for s in list(in_sh) + list(out_sh):
        if isinstance(s, shd.NamedSharding):
            return s.mesh
    return None


def entry_constrained(entry):
    """Whether a traced program holds sharding constraints (cached)."""
    flag = entry.traced._constrained
    if flag is None:
        flag = _constraint_mesh(entry.traced.closed.jaxpr) is not None
        entry.traced._constrained = flag
    return flag


def _constraint_mesh(jaxpr):
    """The mesh of the first sharding constraint in ``jaxpr``, or None."""
    for eqn in jaxpr.eqns:
        if eqn.primitive is sharding_constraint_p:
            return eqn.params["sharding"].mesh
        for sub in core.jaxprs_in_params(eqn.params):
            found = _constraint_mesh(getattr(sub, "jaxpr", sub))
            if found is not None:
                return found
    return None


# ---------------------------------------------------------------------------
# Propagation (SHD-37 .. SHD-46)
# ---------------------------------------------------------------------------

def propagate(jaxpr, in_dims):
    """Per output of ``jaxpr``: its dims (None: not sharded), given the
    inputs' dims, one equation at a time (SHD-46)."""
    env = {}
    for v, d in zip(jaxpr.invars, in_dims):
        env[v] = d
    for eqn in jaxpr.eqns:
        ins = [None if isinstance(v, Literal) else env.get(v) for v in eqn.invars]
        if eqn.primitive is sharding_constraint_p:
            outs = [eqn.params["sharding"]._dims(eqn.outvars[0].aval.ndim)]
        elif all(d is None for d in ins) and not getattr(
                eqn.primitive.sharding_rule, "reads_body", False):
            outs = [None] * len(eqn.outvars)
        else:
            outs = rule_for(eqn.primitive)(
                eqn.params, ins, [_aval(v) for v in eqn.invars],
                [v.aval for v in eqn.outvars])
        for v, d in zip(eqn.outvars, outs):
            env[v] = d
    return [None if isinstance(v, Literal) else env.get(v) for v in jaxpr.outvars]


def _aval(v):
    return v.aval


def _valid_dims(dims, shape, mesh):
    """``dims`` with each mesh axis used once and only where it divides the
    dimension (otherwise that dimension is replicated)."""
    used, out = set(), []
    sizes = mesh.shape
    for n, axes in zip(shape, dims):
        axes = tuple(a for a in axes if a in sizes and a not in used)
        if axes and n % math.prod(sizes[a] for a in axes) == 0:
            used.update(axes)
            out.append(axes)
        else:
            out.append(())
    return tuple(out)


def call_sharding_rule(key):
    """The sharding rule of a call (nested jit, custom derivatives): propagate
    through the body in ``params[key]``, even from unsharded operands, since
    the body may hold sharding constraints (SHD-46)."""
    def rule(params, in_dims, in_avals, out_avals):
        closed = params[key]
        jaxpr = getattr(closed, "jaxpr", closed)
        n_extra = len(in_dims) - len(jaxpr.invars)
        return propagate(jaxpr, in_dims[n_extra:] if n_extra > 0 else in_dims)
    rule.reads_body = True
    return rule


def rule_for(primitive):
    """The propagation rule of ``primitive``: its ``sharding_rule``, else
    replicated results (SHD-42, SHD-46)."""
    return primitive.sharding_rule or shd.replicated_sharding_rule


# ---------------------------------------------------------------------------
# with_sharding_constraint (SHD-35)
# ---------------------------------------------------------------------------

sharding_constraint_p = Primitive("sharding_constraint")
sharding_constraint_p.def_impl(lambda x, sharding: x)
sharding_constraint_p.def_abstract_eval(lambda x, sharding: x)
sharding_constraint_p.pp_params = lambda params: {
    "layout": None, "sharding": params["sharding"], "unconstrained_dims": set()}


def _constraint_jvp(primals, tangents, sharding):
    (x,), (t,) = primals, tangents
    out = sharding_constraint_p.bind(x, sharding=sharding)
    if type(t) is ad.Zero:
        return out, t
    return out, sharding_constraint_p.bind(t, sharding=sharding)


def _constraint_transpose(ct, x, sharding):
    if type(ct) is ad.Zero:
        return [ct]
    return [sharding_constraint_p.bind(ct, sharding=sharding)]


def _constraint_batch(axis_data, vals, dims, sharding):
    (x,), (d,) = vals, dims
    if d is None:
        return sharding_constraint_p.bind(x, sharding=sharding), None
    parts = list(sharding.spec._normalized(x.ndim - 1))
    parts.insert(d, ())
    new = shd.NamedSharding(sharding.mesh, shd.spec_from_dims(parts))
    return with_sharding_constraint(x, new), d


sharding_constraint_p.jvp = _constraint_jvp
sharding_constraint_p.transpose = _constraint_transpose
sharding_constraint_p.batch = _constraint_batch


def with_sharding_constraint(x, shardings):
    """Ask for each leaf of ``x`` to be laid out per ``shardings`` (a Sharding,
    a PartitionSpec inside a mesh context, or a pytree prefix of them); the
    values do not change (SHD-35).  A None leaf raises ``ValueError`` and
    any other non-sharding ``TypeError``, as in JAX (SHD-96)."""
    for s in _placement_leaves(shardings):
        if s is None:
            raise ValueError(
                "One of with_sharding_constraint arguments got sharding None, which "
                "is not allowed: pass a jax.sharding.Sharding (or a PartitionSpec "
                "inside a mesh context) for every argument.")
        if not isinstance(s, (shd.Sharding, shd.PartitionSpec)):
            raise TypeError(
                "shardings leaf specifications are expected to be PartitionSpec "
                f"instances or None, but got {s}")
    leaves, tree = tree_util.tree_flatten(x)
    per_leaf = flat_shardings(shardings, tree, ("with_sharding_constraint", "shardings"))
    out = []
    for leaf, s in zip(leaves, per_leaf):
        if s is None or not isinstance(s, shd.NamedSharding):
            out.append(leaf)
            continue
        s._check_shape(tuple(np.shape(leaf)), "with_sharding_constraint arguments")
        if isinstance(leaf, Tracer):
            out.append(sharding_constraint_p.bind(leaf, sharding=s))
        else:
            out.append(_put_leaf(leaf, s))
    return tree_util.tree_unflatten(tree, out)



dispatch.committed_placements.append(place_eager)


_devices.register_transfer_guard_site("device_put")


# ---------------------------------------------------------------------------
# auto_axes / explicit_axes (SPEC API-33)
# ---------------------------------------------------------------------------

def auto_axes(f=None, /, *, axes=None, out_sharding=None):
    """``f`` run with mesh ``axes`` (default: all) switched to
    ``AxisType.Auto``; its result laid out per ``out_sharding`` (given here
    or as a keyword of the call).  Without any mesh, ``f`` just runs."""
    if f is None:
        return lambda g: _auto_axes(g, axes, out_sharding)
    return _auto_axes(f, axes, out_sharding)


def explicit_axes(f=None, /, *, axes=None, in_sharding=None):
    """``f`` run with mesh ``axes`` (default: all) switched to
    ``AxisType.Explicit``, its arguments first laid out per
    ``in_sharding`` (given here or as a keyword of the call).  Needs a
    context mesh."""
    if f is None:
        return lambda g: _explicit_axes(g, axes, in_sharding)
    return _explicit_axes(f, axes, in_sharding)


def _required(kwargs, given, name):
    if given is not None:
        return given
    if name not in kwargs:
        raise TypeError(f"Missing required keyword argument: '{name}'")
    return kwargs.pop(name)


def _auto_axes(fun, axes, out_sharding):
    @functools.wraps(fun)
    def run(*args, **kwargs):
        sharding = _required(kwargs, out_sharding, "out_sharding")
        found = _switched_mesh(axes, shd.AxisType.Auto, "auto_axes", sharding)
        if found is None:
            return fun(*args, **kwargs)
        prev, new, names = found
        if set(prev.auto_axes) == set(names):
            return fun(*args, **kwargs)
        with shd.use_abstract_mesh(new):
            out = fun(*args, **kwargs)
        return reshard(out, sharding)
    return run


def _explicit_axes(fun, axes, in_sharding):
    @functools.wraps(fun)
    def run(*args, **kwargs):
        sharding = _required(kwargs, in_sharding, "in_sharding")
        found = _switched_mesh(axes, shd.AxisType.Explicit, "explicit_axes")
        if found is None:
            raise ValueError(
                "Context mesh cannot be empty. Please use `jax.set_mesh` API to "
                "enter into a mesh context when using `explicit_axes` API.")
        with shd.use_abstract_mesh(found[1]):
            args = reshard(args, sharding)
            return fun(*args, **kwargs)
    return run


def _switched_mesh(axes, axis_type, name, shardings=None):
    """(mesh in use, that mesh with ``axes`` of ``axis_type``, the axes),
    or None when neither the context nor ``shardings`` name a mesh."""
    cur = shd.get_abstract_mesh()
    from_shardings = None
    for s in _placement_leaves(shardings):
        if isinstance(s, shd.NamedSharding):
            m = s.mesh.abstract_mesh
            if from_shardings is not None and m != from_shardings:
                raise ValueError(
                    f"Shardings passed to {name} should have the same mesh. Got "
                    f"one mesh {from_shardings} and another {s.mesh}")
            from_shardings = m
    if from_shardings is None and cur.empty:
        return None
    if from_shardings is not None and not cur.empty and from_shardings != cur:
        raise ValueError(
            f"Context mesh {cur} must match the mesh passed to shardings "
            f"{from_shardings}. Recommended approach is to use `jax.set_mesh` "
            "context manager.")
    mesh = cur if not cur.empty else from_shardings
    names = mesh.axis_names if axes is None else (
        axes if isinstance(axes, tuple) else (axes,))
    types = dict(zip(mesh.axis_names, mesh.axis_types))
    for a in names:
        if a not in types:
            raise KeyError(f"{a!r} is not an axis of the mesh {mesh}")
        if types[a] == shd.AxisType.Manual:
            raise NotImplementedError(
                "Going from `Manual` AxisType to `Auto` or `Explicit` AxisType is "
                "not allowed. Please file a bug at "
                "https://github.com/jax-ml/jax/issues with your use case")
    return mesh, mesh.update_axis_types({a: axis_type for a in names}), names
