"""Meshes, partition specs and shardings (SPEC SHD-1 .. SHD-21).

A *sharding* says which part of an array each device holds.  refjax keeps
JAX's objects and their arithmetic: a ``Mesh`` is an n-d grid of devices with
named axes, a ``PartitionSpec`` names, per array dimension, the mesh axes that
split it, and a ``NamedSharding`` pairs the two.  From them follow each
device's *index* (a tuple of slices into the global array) and the shard
shape.  Arrays placed with a sharding keep one backend buffer per device
(``ArrayImpl._shards``), holding only that device's block.
"""
import collections
import enum
import math
import numbers
import threading
import warnings
import weakref

import numpy as np

from refjax._src import devices as _devices


class IndivisibleError(ValueError):
    """A sharded dimension is not divisible by its mesh axes (SHD-12)."""


class DuplicateSpecError(Exception):
    """A mesh axis is used twice in one PartitionSpec (SHD-12)."""


class AxisType(enum.Enum):
    """How a mesh axis is treated by the partitioner (only Auto is used)."""
    Auto = enum.auto()
    Explicit = enum.auto()
    Manual = enum.auto()

    def __repr__(self):
        return self.name


# ---------------------------------------------------------------------------
# PartitionSpec
# ---------------------------------------------------------------------------

class PartitionSpec:
    """Per array dimension: ``None`` (not split), one mesh axis name, or a
    tuple of names (split over their product, major first).  Not a tuple and
    never equal to one; trailing ``None`` entries count (SHD-8)."""

    __slots__ = ("_parts",)

    def __init__(self, *parts, unreduced=None, reduced=None):
        self._parts = tuple(_canonical_entry(p) for p in parts)

    def __repr__(self):
        return "P" + repr(self._parts)

    def __len__(self):
        return len(self._parts)

    def __getitem__(self, i):
        return self._parts[i]   # a slice gives a plain tuple, as in JAX

    def __iter__(self):
        return iter(self._parts)

    def index(self, value):
        return self._parts.index(_canonical_entry(value))

    def count(self, value):
        return self._parts.count(_canonical_entry(value))

    def __eq__(self, other):
        return isinstance(other, PartitionSpec) and other._parts == self._parts

    def __hash__(self):
        return hash(("PartitionSpec", self._parts))

    def __reduce__(self):
        return (PartitionSpec, self._parts)

    def _normalized(self, ndim):
        """One tuple of axis names per dimension, padded to ``ndim``."""
        dims = [() if p is None else p if isinstance(p, tuple) else (p,)
                for p in self._parts]
        return tuple(dims + [()] * (ndim - len(dims)))


P = PartitionSpec


def _canonical_entry(p):
    """A list becomes a tuple and a 1-tuple its only name: ``P(('x',))`` is
    ``P('x')`` (SHD-8); an entry that is false (``()``, ``{}``, ``''``, 0)
    means "not split" and becomes None, as in JAX (SHD-101)."""
    if not p:
        return None
    if isinstance(p, list):
        p = tuple(p)
    if isinstance(p, tuple) and len(p) == 1:
        p = p[0]
    # Any hashable name is accepted here, as in JAX (mesh axis names need
    # not be strings); NamedSharding checks the names against its mesh.
    if isinstance(p, tuple) and any(isinstance(a, (tuple, list)) for a in p):
        raise ValueError(
            "A tuple inside PartitionSpec cannot contain a nested tuple. Got "
            f"partition: {list(p)} and the nested tuple: "
            f"{next(a for a in p if isinstance(a, (tuple, list)))}")
    try:
        hash(p)
    except TypeError:
        raise TypeError("PartitionSpec entries must be None, a mesh axis name "
                        f"or a tuple of axis names; got {p!r}") from None
    return p


def spec_from_dims(dims):
    """The PartitionSpec of per-dimension axis tuples, without trailing Nones."""
    parts = [None if not d else d[0] if len(d) == 1 else tuple(d) for d in dims]
    while parts and parts[-1] is None:
        parts.pop()
    return PartitionSpec(*parts)


# ---------------------------------------------------------------------------
# Mesh
# ---------------------------------------------------------------------------

class _MeshContext(threading.local):
    """The meshes of this thread's ``with mesh:`` / ``with set_mesh(m):``
    blocks, innermost last: a context mesh is per thread, as in JAX
    (SPEC THR-2); a new thread starts with none."""

    def __init__(self):
        self.stack = []


_mesh_context = _MeshContext()


class Mesh:
    """An n-d array of devices with one name per axis (SHD-6)."""

    def __init__(self, devices, axis_names, axis_types=None):
        if isinstance(axis_names, str):
            axis_names = (axis_names,)
        arr = np.array(_device_grid(devices), dtype=object)
        axis_names = tuple(axis_names)
        if arr.ndim != len(axis_names):
            raise ValueError(
                "Mesh requires the ndim of its first argument (`devices`) to "
                "equal the length of its second argument (`axis_names`), but "
                f"got devices.ndim == {arr.ndim} and len(axis_names) == "
                f"{len(axis_names)}.")
        if len(set(axis_names)) != len(axis_names):
            raise ValueError(f"Mesh axis names must be unique; got {axis_names}")
        self.devices = arr
        self.axis_names = axis_names
        if axis_types is None:
            axis_types = (AxisType.Auto,) * len(axis_names)
        elif isinstance(axis_types, AxisType):
            axis_types = (axis_types,) * len(axis_names)
        # Only a tuple lists one type per axis; a list is one (bad) entry,
        # as in JAX (SHD-100).
        if not isinstance(axis_types, tuple):
            axis_types = (axis_types,)
        if not all(isinstance(t, AxisType) for t in axis_types):
            raise TypeError(
                "axis_types passed to Mesh must be of type "
                f"`jax.sharding.AxisType`. Got {axis_types} of type "
                f"{tuple(type(t) for t in axis_types)}.")
        if len(axis_types) != len(axis_names):
            raise ValueError(
                "Number of axis names should match the number of axis_types. "
                f"Got axis_names={axis_names} and axis_types={axis_types}")
        self.axis_types = axis_types

    @property
    def shape(self):
        return collections.OrderedDict(zip(self.axis_names, self.devices.shape))

    @property
    def axis_sizes(self):
        return tuple(self.devices.shape)

    @property
    def shape_tuple(self):
        return tuple(zip(self.axis_names, self.devices.shape))

    @property
    def size(self):
        return int(self.devices.size)

    @property
    def empty(self):
        return self.devices.size == 0

    @property
    def device_ids(self):
        return np.vectorize(lambda d: d.id, otypes=[int])(self.devices)

    @property
    def _flat_devices(self):
        return tuple(self.devices.flat)

    @property
    def local_devices(self):
        return list(self._flat_devices)

    @property
    def local_mesh(self):
        return self

    def axis_size(self, name):
        return self.shape[name]

    def __eq__(self, other):
        return (isinstance(other, Mesh) and other.axis_names == self.axis_names
                and other.axis_types == self.axis_types
                and other.devices.shape == self.devices.shape
                and other._flat_devices == self._flat_devices)

    def __hash__(self):
        return hash((self.axis_names, self.devices.shape, self._flat_devices))

    def __enter__(self):
        warnings.warn("`with mesh:` context manager has been deprecated. Please "
                      "use `with jax.set_mesh(mesh):` instead.",
                      DeprecationWarning, stacklevel=2)
        _mesh_context.stack.append(self)
        return self

    def __exit__(self, *exc):
        _mesh_context.stack.pop()
        return False

    def _short_repr(self):
        sizes = ", ".join(f"'{n}': {s}" for n, s in self.shape.items())
        types = ", ".join(repr(t) for t in self.axis_types)
        comma = "," if len(self.axis_types) == 1 else ""
        return f"Mesh({sizes}, axis_types=({types}{comma}))"

    __str__ = _short_repr

    def __repr__(self):
        types = ", ".join(repr(t) for t in self.axis_types)
        comma = "," if len(self.axis_types) == 1 else ""
        return (f"Mesh(axis_sizes={self.axis_sizes}, axis_names="
                f"{self.axis_names}, axis_types=({types}{comma}))")


class AbstractDevice:
    """The kind of device a mesh is made of, without the devices (SPEC API-16)."""

    def __init__(self, device_kind, num_cores, platform):
        self.device_kind = device_kind
        self.num_cores = num_cores
        self.platform = platform

    def __eq__(self, other):
        return (isinstance(other, AbstractDevice) and
                (self.device_kind, self.num_cores, self.platform) ==
                (other.device_kind, other.num_cores, other.platform))

    def __hash__(self):
        return hash((self.device_kind, self.num_cores, self.platform))

    def __repr__(self):
        return (f"AbstractDevice(device_kind={self.device_kind}, "
                f"num_cores={self.num_cores}, platform={self.platform})")


class AbstractMesh:
    """A mesh's axis names, sizes and types without its devices: what a
    traced value's type refers to (SPEC API-16)."""

    def __init__(self, axis_sizes, axis_names, axis_types=None, *,
                 abstract_device=None):
        axis_sizes, axis_names = tuple(axis_sizes), tuple(axis_names)
        if len(axis_sizes) != len(axis_names):
            raise ValueError(
                f"AbstractMesh needs one axis name per axis size; got "
                f"axis_sizes={axis_sizes} and axis_names={axis_names}")
        if axis_types is None:
            axis_types = (AxisType.Auto,) * len(axis_names)
        elif isinstance(axis_types, AxisType):
            axis_types = (axis_types,) * len(axis_names)
        self.axis_sizes = axis_sizes
        self.axis_names = axis_names
        self.axis_types = tuple(axis_types)
        self.abstract_device = abstract_device

    @property
    def shape(self):
        return collections.OrderedDict(zip(self.axis_names, self.axis_sizes))

    @property
    def shape_tuple(self):
        return tuple(zip(self.axis_names, self.axis_sizes))

    @property
    def size(self):
        return math.prod(self.axis_sizes)

    @property
    def empty(self):
        return not self.axis_names

    def axis_size(self, name):
        return self.shape[name]

    @property
    def abstract_mesh(self):
        return self

    def _axes_of_type(self, kind):
        return tuple(n for n, t in zip(self.axis_names, self.axis_types) if t == kind)

    @property
    def manual_axes(self):
        return self._axes_of_type(AxisType.Manual)

    @property
    def explicit_axes(self):
        return self._axes_of_type(AxisType.Explicit)

    @property
    def auto_axes(self):
        return self._axes_of_type(AxisType.Auto)

    @property
    def are_all_axes_auto(self):
        return all(t == AxisType.Auto for t in self.axis_types)

    @property
    def are_all_axes_explicit(self):
        return all(t == AxisType.Explicit for t in self.axis_types)

    @property
    def are_all_axes_manual(self):
        return all(t == AxisType.Manual for t in self.axis_types)

    def update(self, axis_sizes=None, axis_names=None, axis_types=None):
        return AbstractMesh(
            self.axis_sizes if axis_sizes is None else axis_sizes,
            self.axis_names if axis_names is None else axis_names,
            self.axis_types if axis_types is None else axis_types,
            abstract_device=self.abstract_device)

    def update_axis_types(self, name_to_type):
        types = tuple(name_to_type.get(n, t)
                      for n, t in zip(self.axis_names, self.axis_types))
        return self.update(axis_types=types)

    def _key(self):
        return (self.axis_sizes, self.axis_names, self.axis_types,
                self.abstract_device)

    def __eq__(self, other):
        return isinstance(other, AbstractMesh) and other._key() == self._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        if self.empty:
            return "AbstractMesh((), axis_types=())"
        sizes = ", ".join(f"'{n}': {s}" for n, s in zip(self.axis_names,
                                                         self.axis_sizes))
        types = ", ".join(repr(t) for t in self.axis_types)
        comma = "," if len(self.axis_types) == 1 else ""
        dev = self.abstract_device
        extra = "" if dev is None else (
            f", device_kind={dev.device_kind}, num_cores={dev.num_cores}, "
            f"platform={dev.platform}")
        return f"AbstractMesh({sizes}, axis_types=({types}{comma}){extra})"

    __str__ = __repr__


def _abstract_mesh_of(mesh):
    """``mesh.abstract_mesh``: its axes, and the kind of its devices."""
    first = mesh._flat_devices[0] if mesh.size else None
    device = None if first is None else AbstractDevice(
        first.device_kind, None, first.platform)
    return AbstractMesh(mesh.axis_sizes, mesh.axis_names, mesh.axis_types,
                        abstract_device=device)


Mesh.abstract_mesh = property(_abstract_mesh_of)


class _AbstractMeshContext(threading.local):
    def __init__(self):
        self.stack = []


_abstract_mesh_context = _AbstractMeshContext()


class use_abstract_mesh:
    """``with use_abstract_mesh(am):`` sets the abstract mesh that
    ``get_abstract_mesh`` returns (SPEC API-16)."""

    def __init__(self, mesh):
        if not isinstance(mesh, AbstractMesh):
            raise ValueError("Expected mesh of type `jax.sharding.AbstractMesh`. "
                             f"Got type: {type(mesh)}")
        self.mesh = mesh

    def __enter__(self):
        _abstract_mesh_context.stack.append(self.mesh)
        return self.mesh

    def __exit__(self, *exc):
        _abstract_mesh_context.stack.pop()
        return False


EMPTY_ABSTRACT_MESH = AbstractMesh((), ())


def get_abstract_mesh():
    """The innermost abstract mesh in effect: set by ``use_abstract_mesh``
    or by the concrete mesh of ``set_mesh``; empty otherwise."""
    if _abstract_mesh_context.stack:
        return _abstract_mesh_context.stack[-1]
    mesh = current_mesh()
    return EMPTY_ABSTRACT_MESH if mesh is None else mesh.abstract_mesh


def get_mesh():
    """The concrete mesh of the innermost ``set_mesh`` block, or an empty
    mesh (no axes, no devices)."""
    mesh = current_mesh()
    return Mesh(np.empty((), dtype=object), ()) if mesh is None else mesh


def make_single_device_sharding(device, *, memory_kind=None):
    """``SingleDeviceSharding(device)`` (SPEC API-16)."""
    return SingleDeviceSharding(device, memory_kind=memory_kind)


def _device_grid(devices):
    """``devices`` as an n-d array; nested lists of unequal lengths are
    refused, as NumPy refuses them (SHD-100)."""
    if isinstance(devices, np.ndarray):
        return devices
    try:
        return np.asarray(devices)
    except ValueError:
        raise ValueError(
            "Mesh expects its devices as an n-d array (or nested lists of "
            f"equal lengths), one axis per axis name; got the ragged {devices!r}"
        ) from None


def current_mesh():
    """The mesh of the innermost ``with mesh:`` block, or None."""
    stack = _mesh_context.stack
    return stack[-1] if stack else None


class set_mesh:
    """``with jax.set_mesh(mesh):`` makes ``mesh`` the context mesh, so a
    bare PartitionSpec works where a Sharding is expected (SHD-36)."""

    def __init__(self, mesh):
        if not (mesh is None or isinstance(mesh, Mesh)):
            raise ValueError(f"Expected mesh of type `jax.sharding.Mesh`. Got "
                             f"{type(mesh)}. Build one with jax.make_mesh.")
        self.mesh = mesh

    def __enter__(self):
        _mesh_context.stack.append(self.mesh)
        return self.mesh

    def __exit__(self, *exc):
        _mesh_context.stack.pop()
        return False


def make_mesh(axis_shapes, axis_names, axis_types=None, *, devices=None):
    """A mesh of the first ``prod(axis_shapes)`` devices; its axes are
    Explicit unless ``axis_types`` says otherwise (SHD-6)."""
    if axis_types is None:
        axis_types = AxisType.Explicit
    if not all(isinstance(s, (int, np.integer)) for s in axis_shapes):
        raise ValueError(
            "`axis_shapes` passed to `make_mesh` should be a sequence of ints. "
            f"Got axis_shapes={axis_shapes!r}")
    axis_shapes = tuple(int(s) for s in axis_shapes)
    if any(s < 1 for s in axis_shapes):
        raise ValueError(f"Mesh axis sizes must be positive; got {axis_shapes}")
    devs = _devices.devices() if devices is None else list(devices)
    n = math.prod(axis_shapes)
    if n > len(devs):
        raise ValueError(
            f"Number of devices {len(devs)} must be >= the product of mesh_shape "
            f"{axis_shapes}")
    return Mesh(np.array(devs[:n], dtype=object).reshape(axis_shapes),
                axis_names, axis_types)


def create_device_mesh(mesh_shape, devices=None, **_):
    """``jax.experimental.mesh_utils.create_device_mesh``: devices in id
    order, reshaped (there is no physical topology to follow)."""
    devs = _devices.devices() if devices is None else list(devices)
    mesh_shape = tuple(int(s) for s in mesh_shape)
    if math.prod(mesh_shape) != len(devs):
        raise ValueError(
            f"Number of devices {len(devs)} must equal the product of "
            f"mesh_shape {mesh_shape}")
    return np.array(devs, dtype=object).reshape(mesh_shape)


# ---------------------------------------------------------------------------
# Shardings
# ---------------------------------------------------------------------------

class Sharding:
    """Base class: which slice of an array each device holds."""

    memory_kind = "device"

    @property
    def device_set(self):
        return set(self._device_assignment)

    @property
    def addressable_devices(self):
        return self.device_set

    @property
    def num_devices(self):
        return len(self._device_assignment)

    @property
    def is_fully_addressable(self):
        return True

    def addressable_devices_indices_map(self, global_shape):
        return self.devices_indices_map(global_shape)

    def devices_indices_map(self, global_shape):
        """``{device: tuple of slices}``: the block each device holds."""
        return dict(zip(self._device_assignment,
                        self._indices(tuple(global_shape))))

    def shard_shape(self, global_shape):
        """The shape of every device's block (SHD-14, SHD-102).  A sharding
        that splits nothing returns ``global_shape`` itself, unchecked, as
        JAX does."""
        try:
            hash(self)
        except TypeError:
            raise TypeError(
                f"{self!r} holds an unhashable device; build the sharding "
                "from one jax.Device, e.g. jax.devices()[0]") from None
        _check_global_shape(global_shape)
        if self.is_fully_replicated:
            return global_shape
        shape = tuple(global_shape)
        if not all(isinstance(n, numbers.Real) for n in shape):
            raise TypeError("shard_shape expects the global shape as a tuple "
                            f"of ints, e.g. (8, 4); got {global_shape!r}")
        factors = self._check_shape(shape, "shard_shape arguments")
        return tuple(n // f for n, f in zip(shape, factors))

    def _check_shape(self, shape, what=None):
        return [1] * len(shape)

    def is_equivalent_to(self, other, ndim):
        return (self._device_assignment == other._device_assignment and
                self._dims(ndim) == other._dims(ndim))


def _check_global_shape(global_shape):
    """``shard_shape`` takes a hashable sequence (a tuple), as JAX, which
    caches the answer by shape: a list or a number is a TypeError (SHD-102)."""
    try:
        hash(global_shape)
        len(global_shape)
    except TypeError:
        raise TypeError(
            "shard_shape expects the global shape as a tuple of ints, e.g. "
            f"(8, 4); got {global_shape!r} of type "
            f"{type(global_shape).__name__}") from None


class SingleDeviceSharding(Sharding):
    """The whole array on one device (SHD-9)."""

    def __init__(self, device, *, memory_kind=None):
        # As in JAX, only None is refused here; other junk fails on use (SHD-93).
        if device is None:
            raise TypeError("SingleDeviceSharding expects a jax.Device, e.g. "
                            "jax.devices()[0]; got None")
        if memory_kind not in (None, "device", "pinned_host", "unpinned_host"):
            raise ValueError(
                f"Could not find memory addressable by device {device}. Device "
                f"{device} can address the following memory kinds: device, "
                f"pinned_host, unpinned_host. Got memory kind: {memory_kind}")
        self._device = device

    @property
    def _device_assignment(self):
        return (self._device,)

    def _dims(self, ndim):
        return ((),) * ndim

    def _indices(self, shape):
        return [tuple(slice(None) for _ in shape)]

    @property
    def is_fully_replicated(self):
        return True

    def __eq__(self, other):
        return isinstance(other, SingleDeviceSharding) and other._device == self._device

    def __hash__(self):
        return hash(("SingleDeviceSharding", self._device))

    def __repr__(self):
        return f"SingleDeviceSharding(device={self._device!r}, memory_kind=device)"


_MEMORY_KINDS = (None, "device", "pinned_host", "unpinned_host")


class NamedSharding(Sharding):
    """A mesh and a PartitionSpec over its axis names (SHD-10)."""

    def __init__(self, mesh, spec, *, memory_kind=None):
        if not isinstance(mesh, (Mesh, AbstractMesh)):
            raise TypeError(f"NamedSharding expects a Mesh; got {type(mesh).__name__}")
        if not isinstance(spec, PartitionSpec):
            raise TypeError(
                "NamedSharding expects a PartitionSpec as its spec; got "
                f"{spec!r}. Wrap it: PartitionSpec(...)")
        if memory_kind not in _MEMORY_KINDS:
            raise ValueError(
                "Could not find memory addressable by device cpu. Device cpu can "
                "address the following memory kinds: "
                f"{', '.join(k for k in _MEMORY_KINDS if k)}. Got memory kind: "
                f"{memory_kind}")
        self.mesh = mesh
        self.spec = spec
        _check_spec_axes(spec, mesh)

    @property
    def _device_assignment(self):
        return self.mesh._flat_devices

    def _dims(self, ndim):
        return self.spec._normalized(ndim)

    @property
    def is_fully_replicated(self):
        sizes = self.mesh.shape
        return all(sizes[a] == 1 for p in self.spec._normalized(0) for a in p)

    def _check_shape(self, shape, what="device_put args"):
        """Rank and divisibility of ``shape`` under this spec (SHD-12)."""
        if len(self.spec) > len(shape):
            raise ValueError(
                f"One of {what} is incompatible with its sharding "
                f"annotation {self!r}: Sharding {self!r} is only valid for values "
                f"of rank at least {len(self.spec)}, but was applied to a value "
                f"of rank {len(shape)}.")
        sizes = self.mesh.shape
        factors = [math.prod(sizes[a] for a in d) for d in self._dims(len(shape))]
        for axis, (n, f) in enumerate(zip(shape, factors)):
            if n % f:
                raise IndivisibleError(
                    f"Sharding {self!r} implies that array axis {axis} is "
                    f"partitioned {f} times, but the dimension size is {n} "
                    f"(full shape: {shape}, per-dimension tiling factors: "
                    f"{factors} should evenly divide the shape)")
        return factors

    def _indices(self, shape):
        """Per device (in mesh order): its block as a tuple of slices."""
        factors = self._check_shape(shape)
        names = self.mesh.axis_names
        sizes = self.mesh.devices.shape
        dims = self._dims(len(shape))
        out = []
        for coords in np.ndindex(*sizes):
            at = dict(zip(names, coords))
            index = []
            for n, f, axes in zip(shape, factors, dims):
                if f == 1:
                    index.append(slice(None))
                    continue
                block = 0
                for a in axes:
                    block = block * self.mesh.shape[a] + at[a]
                step = n // f
                index.append(slice(block * step, (block + 1) * step))
            out.append(tuple(index))
        return out

    def replica_ids(self, ndim):
        """Per device: its position among the devices holding the same block."""
        used = {a for d in self._dims(ndim) for a in d}
        free = [i for i, a in enumerate(self.mesh.axis_names) if a not in used]
        sizes = self.mesh.devices.shape
        ids = []
        for coords in np.ndindex(*sizes):
            r = 0
            for i in free:
                r = r * sizes[i] + coords[i]
            ids.append(r)
        return ids

    def __eq__(self, other):
        return (isinstance(other, NamedSharding) and other.mesh == self.mesh
                and other.spec == self.spec)

    def __hash__(self):
        return hash(("NamedSharding", self.mesh, self.spec))

    def __repr__(self):
        if isinstance(self.mesh, AbstractMesh):     # a type's sharding
            return f"NamedSharding(mesh={self.mesh!r}, spec={self.spec!r})"
        return (f"NamedSharding(mesh={self.mesh._short_repr()}, spec={self.spec!r}, "
                "memory_kind=device)")


def _check_spec_axes(spec, mesh):
    """Every name in ``spec`` is a mesh axis, used once (SHD-12)."""
    seen = set()
    for entry in spec._normalized(0):
        for a in entry:
            if a not in mesh.shape:
                raise ValueError(
                    f"Resource axis: {a} of {spec!r} is not found in mesh: "
                    f"{mesh.axis_names}.")
            if a in seen:
                raise DuplicateSpecError(
                    f"A single NamedSharding spec specification can map every "
                    f"mesh axis to at most one positional dimension, but {spec!r} "
                    f"has duplicate entries for `{a}`")
            seen.add(a)


class Shard:
    """One device's block of an array (``x.addressable_shards[i]``)."""

    __slots__ = ("device", "index", "replica_id", "data")

    def __init__(self, device, index, replica_id, data):
        self.device = device
        self.index = index
        self.replica_id = replica_id
        self.data = data

    def __repr__(self):
        return (f"Shard(device={self.device!r}, index={self.index}, "
                f"replica_id={self.replica_id}, data={self.data})")


# ---------------------------------------------------------------------------
# Sharding propagation rules shared by many primitives (SPEC SHD-37 .. SHD-46)
# ---------------------------------------------------------------------------
# A primitive's ``sharding_rule(params, in_dims, in_avals, out_avals)`` gives,
# per output, the mesh axes splitting each dimension (``in_dims`` entries are
# None for unsharded operands).  A primitive without one gives replicated
# results.

def elementwise_sharding_rule(params, in_dims, in_avals, out_avals):
    """Elementwise ops keep the sharding of their full-rank operands (SHD-37)."""
    ndim = out_avals[0].ndim
    dims = [()] * ndim
    for d, a in zip(in_dims, in_avals):
        if d is None or a.ndim != ndim:
            continue
        for i, axes in enumerate(d):
            if not dims[i] and axes and a.shape[i] == out_avals[0].shape[i]:
                dims[i] = axes
    return [tuple(dims)] * len(out_avals)


def reduce_sharding_rule(params, in_dims, in_avals, out_avals):
    """Reduced dimensions drop their axes: reducing over a sharded dimension
    gives a replicated result (SHD-38)."""
    axes = set(params["axes"])
    d = in_dims[0] or ((),) * in_avals[0].ndim
    return [tuple(x for i, x in enumerate(d) if i not in axes)] * len(out_avals)


def replicated_sharding_rule(params, in_dims, in_avals, out_avals):
    """No rule: results are replicated (compiler-dependent in JAX, SHD-42)."""
    return [((),) * a.ndim for a in out_avals]


# -- jax.sharding.ManualAxisType (SPEC API-32) -------------------------------

class ManualAxisType:
    """How a value inside ``shard_map`` relates to the manual mesh axes:
    the axes it varies over, is unreduced over or reduced over (three
    disjoint-ish frozensets).  Instances are interned: equal contents give
    the same object, so ``==`` is identity (SPEC API-32)."""

    __slots__ = ("varying", "unreduced", "reduced", "__weakref__")
    _interned = weakref.WeakValueDictionary()

    def __new__(cls, *, varying=frozenset(), unreduced=frozenset(),
                reduced=frozenset()):
        if varying & unreduced:
            raise ValueError(
                "varying and unreduced cannot have common mesh axes. Got"
                f" varying={varying} and unreduced={unreduced}")
        if varying & reduced:
            raise ValueError(
                "varying and reduced cannot have common mesh axes. Got"
                f" varying={varying} and reduced={reduced}")
        key = (frozenset(varying), frozenset(unreduced), frozenset(reduced))
        found = cls._interned.get(key)
        if found is None:
            found = object.__new__(cls)
            for name, value in zip(("varying", "unreduced", "reduced"), key):
                object.__setattr__(found, name, value)
            cls._interned[key] = found
        return found

    def __setattr__(self, name, value):
        raise AttributeError(f"ManualAxisType is immutable: cannot set {name!r}")

    def __repr__(self):
        return (f"ManualAxisType(varying={self.varying}, "
                f"unreduced={self.unreduced}, reduced={self.reduced})")

    def __getnewargs_ex__(self):
        return (), {"varying": self.varying, "unreduced": self.unreduced,
                    "reduced": self.reduced}

    def __reduce__(self):
        return (_make_manual_axis_type, (self.varying, self.unreduced, self.reduced))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def update(self, **kwargs):
        """A ManualAxisType with some of the three sets replaced."""
        for name in ("varying", "unreduced", "reduced"):
            kwargs.setdefault(name, getattr(self, name))
        return ManualAxisType(**kwargs)

    def to_ct_mat(self):
        """The type of a cotangent: unreduced and reduced swap."""
        return self.update(unreduced=self.reduced, reduced=self.unreduced)

    @property
    def empty(self):
        return not (self.varying or self.unreduced or self.reduced)

    def invarying(self, mesh):
        """The manual axes of ``mesh`` this value is the same over."""
        return frozenset(mesh.manual_axes) - self.vur

    @property
    def vur(self):
        return self.varying | self.unreduced | self.reduced


def _make_manual_axis_type(varying, unreduced, reduced):
    return ManualAxisType(varying=varying, unreduced=unreduced, reduced=reduced)


# -- memory layouts: Layout and Format (SPEC API-36) -------------------------

class _AutoLayout:
    """``Layout.AUTO``: let the compiler choose (refjax: row-major)."""

    def __repr__(self):
        return "AUTO"


class Layout:
    """How an array's elements lie in memory: the dimensions from the most
    to the least significant (``major_to_minor``), optional tiles, and the
    element width of sub-byte types (0 for whole bytes)."""

    AUTO = _AutoLayout()

    def __init__(self, major_to_minor, tiling=None, sub_byte_element_size_in_bits=0):
        self.major_to_minor = tuple(major_to_minor)
        self.tiling = None if tiling is None else tuple(map(tuple, tiling))
        self.sub_byte_element_size_in_bits = sub_byte_element_size_in_bits

    def _key(self):
        return (self.major_to_minor, self.tiling, self.sub_byte_element_size_in_bits)

    def __repr__(self):
        return (f"Layout(major_to_minor={self.major_to_minor}, tiling={self.tiling}, "
                f"sub_byte_element_size_in_bits={self.sub_byte_element_size_in_bits})")

    def __hash__(self):
        return hash(self._key())

    def __eq__(self, other):
        return isinstance(other, Layout) and self._key() == other._key()

    def update(self, **changes):
        fields = dict(zip(("major_to_minor", "tiling", "sub_byte_element_size_in_bits"),
                          self._key()))
        fields.update(changes)
        return Layout(**fields)

    def check_compatible_aval(self, aval_shape):
        if len(self.major_to_minor) != len(aval_shape):
            raise ValueError(
                "Length of major_to_minor and the rank of the value should match."
                f" Got major_to_minor={self.major_to_minor} and shape={aval_shape}")


def row_major_layout(ndim):
    """The layout of every refjax buffer: C order, no tiles.  JAX's CPU
    arrays report this too, with ``tiling=()``."""
    return Layout(tuple(range(ndim)), ())


class Format:
    """A ``Layout`` (or None, or ``Layout.AUTO``) with a ``Sharding`` (or
    None); a concrete layout needs a concrete sharding."""

    __slots__ = ("layout", "sharding")

    def __init__(self, layout=None, sharding=None):
        if isinstance(layout, Layout) and sharding is None:
            raise ValueError(
                "Sharding has to be concrete when layout is of type "
                f"{type(layout)}. Please pass a `jax.sharding.NamedSharding` or "
                "`jax.sharding.SingleDeviceSharding` to the sharding argument. Got "
                f"sharding {sharding}")
        if not isinstance(layout, (Layout, type(None), _AutoLayout)):
            raise TypeError(
                "Invalid value received for the layout argument. Expected values "
                "are `None`, `Layout.AUTO` or an instance of `Layout`. Got "
                f"{layout} of type {type(layout)}")
        if not isinstance(sharding, (Sharding, type(None))):
            raise TypeError(
                "Invalid value received for the sharding argument. Expected values "
                f"are `None` or an instance of `jax.Sharding`. Got {sharding} of "
                f"type {type(sharding)}")
        self.layout = layout
        self.sharding = sharding

    def __repr__(self):
        return f"Format(layout={self.layout}, sharding={self.sharding})"

    def __hash__(self):
        return hash((self.layout, self.sharding))

    def __eq__(self, other):
        return (isinstance(other, Format) and self.layout == other.layout
                and self.sharding == other.sharding)
