"""``jax.smap``: ``shard_map`` over one mesh axis, with vmap-style axes
(SPEC API-31).

``smap(f, in_axes=0, out_axes=0, axis_name='x')`` is ``shard_map`` on the
context mesh with ``axis_names={'x'}``, where an integer axis ``a`` stands
for the PartitionSpec splitting array axis ``a`` over ``'x'`` and None for
``P()`` (replicated).  Without ``in_axes`` (``jax.sharding.Infer``), each
argument keeps the part of its own sharding that names ``axis_name``: a
plain array is replicated, so every instance of ``f`` sees all of it.
"""
import functools

from refjax._src import mesh as shd
from refjax._src import tree_util
from refjax._src.array import ArrayImpl
from refjax._src.sharding.shard_map import shard_map

__all__ = ["Infer", "smap"]


class _InferFromArgs:
    """``jax.sharding.Infer``: take ``in_axes`` from the arguments."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self):
        return "jax.sharding.Infer"

    def __reduce__(self):
        return (_InferFromArgs, ())


Infer = _InferFromArgs()


def smap(f=None, /, *, in_axes=Infer, out_axes, axis_name):
    """Map ``f`` over the blocks of its arguments along mesh axis
    ``axis_name`` (SPEC API-31); a decorator when ``f`` is omitted."""
    if f is None:
        return lambda g: _smap(g, in_axes=in_axes, out_axes=out_axes,
                               axis_name=axis_name)
    return _smap(f, in_axes=in_axes, out_axes=out_axes, axis_name=axis_name)


def _smap(f, *, in_axes, out_axes, axis_name):
    _check_axes(in_axes, out_axes, axis_name)
    out_specs = _specs(axis_name, out_axes)

    @functools.wraps(f)
    def mapped(*args):
        mesh = shd.current_mesh()
        if mesh is None:
            raise ValueError("The context mesh cannot be empty. Use "
                             "`jax.set_mesh(mesh)` to enter into a mesh context")
        in_specs = (_inferred_specs(axis_name, args) if in_axes is Infer
                    else _specs(axis_name, in_axes))
        if axis_name not in mesh.axis_names:
            raise ValueError(
                f"jax.shard_map requires axis_names={frozenset({axis_name})} to be "
                f"a subset of mesh.axis_names={frozenset(mesh.axis_names)}")
        return shard_map(f, mesh=_manual_over(mesh), in_specs=in_specs,
                         out_specs=out_specs, axis_names={axis_name})(*args)
    return mapped


def _manual_over(mesh):
    """``mesh`` with Auto axis types.  JAX's smap is manual over one axis
    only and moves each input to its spec itself; refjax arrays carry no
    sharding types, so running shard_map with Auto axes (which lays the
    inputs out as the specs say) computes the same values."""
    return shd.Mesh(mesh.devices, mesh.axis_names)


def _check_axes(in_axes, out_axes, axis_name):
    """JAX's TypeErrors for an axis name that is a sequence and for axes
    that are not ints or None."""
    if isinstance(axis_name, (list, tuple)):
        raise TypeError("smap axis_name should be a `str` or a `Hashable`, but "
                        f"got {axis_name}")
    if in_axes is not None and in_axes is not Infer and not isinstance(
            in_axes, (int, tuple)):
        raise TypeError(
            "smap in_axes must be an int, None, jax.sharding.Infer, or a tuple of"
            " entries corresponding to the positional arguments passed to the"
            f" function, but got {in_axes}.")
    if in_axes is not Infer and not _int_leaves(in_axes):
        raise TypeError(
            "smap in_axes must be an int, None, jax.sharding.Infer, or (nested)"
            f" container with those types as leaves, but got {in_axes}.")
    if not _int_leaves(out_axes):
        raise TypeError("smap out_axes must be an int, None, or (nested) container "
                        f"with those types as leaves, but got {out_axes}.")


def _int_leaves(tree):
    return all(isinstance(leaf, int) for leaf in tree_util.tree_leaves(tree))


def _axis_spec(axis_name, axis):
    """The PartitionSpec that splits array axis ``axis`` over ``axis_name``."""
    if axis is None:
        return shd.PartitionSpec()
    return shd.PartitionSpec(*([None] * axis + [axis_name]))


def _specs(axis_name, axes):
    return tree_util.tree_map(functools.partial(_axis_spec, axis_name), axes,
                              is_leaf=lambda a: a is None)


def _inferred_specs(axis_name, args):
    """Each argument's own sharding, kept only where it names
    ``axis_name``; anything else is replicated."""
    def spec_of(x):
        sharding = x.sharding if isinstance(x, ArrayImpl) else None
        if not isinstance(sharding, shd.NamedSharding):
            return shd.PartitionSpec()
        keep = []
        for entry in sharding.spec:
            names = entry if isinstance(entry, tuple) else (entry,)
            keep.append(axis_name if axis_name in names else None)
        while keep and keep[-1] is None:
            keep.pop()
        return shd.PartitionSpec(*keep)
    return tuple(tree_util.tree_map(spec_of, a) for a in args)
