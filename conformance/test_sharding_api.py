"""Conformance: devices, arrays on devices and the sharding API (SPEC SHD-1..SHD-21).

The session runs with 8 simulated CPU devices (conftest.py sets
``jax_num_cpu_devices`` to 8 before any test runs).  Every expectation below was
observed on JAX 0.10.2 (CPU).
"""
import collections
import importlib
import importlib.util
import math
import os
import re
import subprocess
import sys

import numpy as np
import pytest

NDEV = 8
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def sh(jax, impl_name):
    """The implementation's ``sharding`` module."""
    return importlib.import_module(f"{impl_name}.sharding")


@pytest.fixture(scope="module")
def devs(jax):
    devices = jax.devices()
    assert len(devices) == NDEV, "the conformance session must have 8 CPU devices"
    return devices


def _mesh(sh, devs, shape, names, order=None):
    arr = np.array(devs, dtype=object)
    if order is not None:
        arr = arr[list(order)]
    return sh.Mesh(arr.reshape(shape), names)


def _ref_indices(mesh, spec, shape):
    """Independent model of devices_indices_map: {device: tuple of slices}, in
    the order of mesh.devices.flat."""
    sizes = dict(zip(mesh.axis_names, mesh.devices.shape))
    out = {}
    for pos in np.ndindex(*mesh.devices.shape):
        coord = dict(zip(mesh.axis_names, pos))
        idx = []
        for d, n in enumerate(shape):
            entry = spec[d] if d < len(spec) else None
            axes = () if entry is None else ((entry,) if isinstance(entry, str) else tuple(entry))
            k = math.prod(sizes[a] for a in axes)
            if k == 1:
                idx.append(slice(None, None, None))
                continue
            block = 0
            for a in axes:
                block = block * sizes[a] + coord[a]
            step = n // k
            idx.append(slice(block * step, (block + 1) * step, None))
        out[mesh.devices[pos]] = tuple(idx)
    return out


def _ref_replica_ids(mesh, spec):
    """replica_id: row-major position of a device over the mesh axes the spec
    does not use."""
    used = set()
    for entry in spec:
        if entry is None:
            continue
        used.update((entry,) if isinstance(entry, str) else entry)
    sizes = dict(zip(mesh.axis_names, mesh.devices.shape))
    out = {}
    for pos in np.ndindex(*mesh.devices.shape):
        rid = 0
        for name, p in zip(mesh.axis_names, pos):
            if name not in used:
                rid = rid * sizes[name] + p
        out[mesh.devices[pos]] = rid
    return out


# --------------------------------------------------------------------------
# Devices

@pytest.mark.spec("SHD-1")
def test_num_cpu_devices_fixed_after_backend_start(jax, jnp, devs):
    assert jax.config.jax_num_cpu_devices == NDEV
    jnp.ones(2).block_until_ready()  # the backend is certainly running
    old = jax.config.jax_num_cpu_devices
    try:
        with pytest.raises(RuntimeError) as info:
            jax.config.update("jax_num_cpu_devices", 4)
        assert str(info.value) == (
            "jax_num_cpu_devices config should be updated before backends are "
            "initialized i.e. before any JAX operation is executed. You should "
            "initialize this config immediately after `import jax`.")
        assert jax.config.jax_num_cpu_devices == NDEV
        # Setting the value it already has is accepted.
        jax.config.update("jax_num_cpu_devices", NDEV)
    finally:
        if jax.config.jax_num_cpu_devices != old:
            jax.config.update("jax_num_cpu_devices", old)
    assert jax.device_count() == NDEV


@pytest.mark.spec("SHD-2")
def test_device_queries(jax, devs):
    assert isinstance(devs, list)
    assert [d.id for d in devs] == list(range(NDEV))
    assert jax.local_devices() == devs
    assert jax.devices("cpu") == devs
    assert jax.device_count() == NDEV
    assert jax.local_device_count() == NDEV
    assert jax.process_index() == 0
    assert jax.process_count() == 1
    assert jax.default_backend() == "cpu"
    assert repr(devs) == "[" + ", ".join(f"CpuDevice(id={i})" for i in range(NDEV)) + "]"


@pytest.mark.spec("SHD-3")
def test_device_objects(jax, devs):
    d = devs[3]
    assert repr(d) == "CpuDevice(id=3)"
    assert str(d) == "cpu:3"
    assert d.id == 3
    assert d.platform == "cpu"
    assert d.device_kind == "cpu"
    assert d.process_index == 0
    assert d == jax.devices()[3]
    assert hash(d) == hash(jax.devices()[3])
    assert d != devs[2]
    assert len({*devs, *jax.devices()}) == NDEV
    assert {devs[1]: "one"}[jax.devices()[1]] == "one"
    with pytest.raises(TypeError):
        devs[0] < devs[1]  # noqa: B015 -- devices are not ordered


@pytest.mark.spec("SHD-4")
def test_single_device_process(impl_name):
    code = f"""
import {impl_name} as jax
import {impl_name}.sharding
import numpy as np
print(jax.device_count(), jax.local_device_count(), jax.devices())
mesh = jax.sharding.Mesh(np.array(jax.devices()), ('x',))
s = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec('x'))
x = jax.device_put(jax.numpy.arange(3.), s)
print(x.sharding)
print(len(x.addressable_shards), x.addressable_shards[0].index, s.shard_shape((3,)))
print(np.asarray(x.addressable_shards[0].data).tolist(), np.asarray(x).tolist())
"""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("JAX_") and k != "XLA_FLAGS"}
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (REPO_ROOT, os.environ.get("PYTHONPATH")) if p)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True,
                            text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "1 1 [CpuDevice(id=0)]",
        "NamedSharding(mesh=Mesh('x': 1, axis_types=(Auto,)), spec=P('x',), memory_kind=device)",
        "1 (slice(None, None, None),) (3,)",
        "[0.0, 1.0, 2.0] [0.0, 1.0, 2.0]",
    ]


# --------------------------------------------------------------------------
# Arrays on devices

@pytest.mark.spec("SHD-5")
def test_default_placement_uncommitted(jax, jnp, sh, devs):
    x = jnp.arange(4)
    assert repr(x.sharding) == "SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)"
    assert isinstance(x.sharding, sh.SingleDeviceSharding)
    assert x.devices() == {devs[0]}
    assert x.committed is False
    assert x.is_fully_replicated is True
    assert x.is_fully_addressable is True


@pytest.mark.spec("SHD-5")
def test_device_put_commits(jax, jnp, devs):
    x = jnp.arange(4)
    y = jax.device_put(x, devs[1])
    assert y.devices() == {devs[1]}
    assert y.committed is True
    assert repr(y.sharding) == "SingleDeviceSharding(device=CpuDevice(id=1), memory_kind=device)"
    np.testing.assert_array_equal(np.asarray(y), np.arange(4))
    z = jax.device_put(x)
    assert z.committed is False
    assert z.devices() == {devs[0]}
    # Committing to the default device is still a commitment.
    assert jax.device_put(x, devs[0]).committed is True
    # A committed array moves when put on another device.
    w = jax.device_put(y, devs[2])
    assert w.devices() == {devs[2]} and w.committed is True
    np.testing.assert_array_equal(np.asarray(w), np.arange(4))


@pytest.mark.spec("SHD-6")
def test_device_put_host_values_and_pytrees(jax, devs):
    n = jax.device_put(np.arange(3.0))
    assert isinstance(n, jax.Array)
    assert repr(n) == "Array([0., 1., 2.], dtype=float32)"
    assert n.committed is False
    s = jax.device_put(3.0)
    assert repr(s) == "Array(3., dtype=float32, weak_type=True)"
    assert s.committed is False
    i = jax.device_put(3)
    assert repr(i) == "Array(3, dtype=int32, weak_type=True)"
    tree = jax.device_put({"a": np.ones(2), "b": (1, 2.0)}, devs[2])
    assert sorted(tree) == ["a", "b"] and isinstance(tree["b"], tuple)
    for leaf in (tree["a"], *tree["b"]):
        assert isinstance(leaf, jax.Array)
        assert leaf.devices() == {devs[2]}
        assert leaf.committed is True
    assert repr(tree["b"][0]) == "Array(1, dtype=int32, weak_type=True)"


@pytest.mark.spec("SHD-6")
def test_device_get(jax, jnp, devs):
    y = jax.device_put(jnp.arange(4), devs[1])
    g = jax.device_get(y)
    assert type(g) is np.ndarray and g.dtype == np.int32
    np.testing.assert_array_equal(g, np.arange(4))
    s = jax.device_get(jnp.float32(3))
    assert type(s) is np.ndarray and s.shape == ()
    tree = jax.device_get({"a": y, "b": 3, "c": 3.5})
    assert type(tree["a"]) is np.ndarray
    assert tree["b"] == 3 and type(tree["b"]) is int
    assert tree["c"] == 3.5 and type(tree["c"]) is float


@pytest.mark.spec("SHD-7")
def test_uncommitted_follows_committed(jax, jnp, devs):
    a = jax.device_put(jnp.ones(2), devs[1])
    b = jnp.ones(2)
    for out in (a + b, b + a, jnp.sin(a), jax.jit(lambda u, v: u + v)(a, b),
                jax.jit(lambda u: u * 2)(a)):
        assert out.devices() == {devs[1]}
        assert out.committed is True
    c = jax.jit(lambda u: u * 2)(b)
    assert c.committed is False and c.devices() == {devs[0]}


@pytest.mark.spec("SHD-7")
def test_incompatible_committed_devices(jax, jnp, devs):
    a = jax.device_put(jnp.ones(2), devs[1])
    c = jax.device_put(jnp.ones(2), devs[2])
    with pytest.raises(ValueError) as info:
        a + c
    assert str(info.value) == (
        "Received incompatible devices for jitted computation. Got argument x of "
        "add with shape float32[2] and with device ids [1] on platform CPU and "
        "argument y of add with shape float32[2] and with device ids [2] on "
        "platform CPU")
    with pytest.raises(ValueError, match=r"argument x of multiply .* device ids \[2\]"):
        jnp.multiply(c, a)

    def f(u, v):
        return u + v

    with pytest.raises(ValueError) as info:
        jax.jit(f)(a, c)
    msg = str(info.value)
    assert msg.startswith("Received incompatible devices for jitted computation. "
                          "Got argument u of ")
    assert "f with shape float32[2] and with device ids [1] on platform CPU and argument v of " in msg
    assert msg.endswith("f with shape float32[2] and with device ids [2] on platform CPU")


@pytest.mark.spec("SHD-8")
def test_single_device_shards(jax, jnp, devs):
    x = jnp.arange(4)
    shards = x.addressable_shards
    assert len(shards) == 1 and len(x.global_shards) == 1
    s = shards[0]
    assert s.device == devs[0]
    assert s.index == (slice(None, None, None),)
    assert s.replica_id == 0
    assert isinstance(s.data, jax.Array)
    np.testing.assert_array_equal(np.asarray(s.data), np.arange(4))
    assert repr(s) == ("Shard(device=CpuDevice(id=0), index=(slice(None, None, None),), "
                       "replica_id=0, data=[0 1 2 3])")


@pytest.mark.spec("SHD-8")
def test_sharded_array_introspection(jax, jnp, sh, devs):
    mesh = _mesh(sh, devs, (NDEV,), ("x",))
    x = jax.device_put(jnp.arange(8.0), sh.NamedSharding(mesh, sh.PartitionSpec("x")))
    assert repr(x) == "Array([0., 1., 2., 3., 4., 5., 6., 7.], dtype=float32)"
    assert x.committed is True
    assert x.devices() == set(devs)
    assert x.is_fully_replicated is False
    assert x.is_fully_addressable is True
    assert len(x.global_shards) == NDEV
    assert [s.device for s in x.global_shards] == [s.device for s in x.addressable_shards]
    for i, s in enumerate(x.addressable_shards):
        assert s.device == devs[i]
        assert s.index == (slice(i, i + 1, None),)
        assert s.replica_id == 0
        assert s.data.shape == (1,)
        assert s.data.devices() == {devs[i]}
        assert s.data.committed is True
        assert repr(s.data.sharding) == (
            f"SingleDeviceSharding(device=CpuDevice(id={i}), memory_kind=device)")
        np.testing.assert_array_equal(np.asarray(s.data), [float(i)])
    np.testing.assert_array_equal(jax.device_get(x), np.arange(8.0))


# --------------------------------------------------------------------------
# Mesh

@pytest.mark.spec("SHD-9")
def test_mesh_attributes_and_reprs(jax, sh, devs):
    arr = np.array(devs).reshape(4, 2)
    mesh = sh.Mesh(arr, ("x", "y"))
    assert mesh.shape == collections.OrderedDict([("x", 4), ("y", 2)])
    assert type(mesh.shape) is collections.OrderedDict
    assert mesh.axis_names == ("x", "y")
    assert isinstance(mesh.devices, np.ndarray) and mesh.devices.shape == (4, 2)
    assert mesh.devices.tolist() == arr.tolist()
    assert mesh.size == 8
    assert mesh.axis_sizes == (4, 2)
    assert mesh.axis_types == (sh.AxisType.Auto, sh.AxisType.Auto)
    assert repr(mesh) == "Mesh(axis_sizes=(4, 2), axis_names=('x', 'y'), axis_types=(Auto, Auto))"
    assert str(mesh) == "Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto))"
    assert mesh == sh.Mesh(arr, ("x", "y"))
    assert hash(mesh) == hash(sh.Mesh(arr, ("x", "y")))
    assert mesh != sh.Mesh(arr, ("a", "b"))
    # A flat device list and a single axis name string are accepted.
    flat = sh.Mesh(devs, "x")
    assert flat.axis_names == ("x",) and flat.devices.shape == (8,)
    assert repr(flat) == "Mesh(axis_sizes=(8,), axis_names=('x',), axis_types=(Auto,))"


@pytest.mark.spec("SHD-9")
def test_mesh_rank_mismatch(sh, devs):
    with pytest.raises(ValueError) as info:
        sh.Mesh(np.array(devs).reshape(4, 2), ("x",))
    assert str(info.value) == (
        "Mesh requires the ndim of its first argument (`devices`) to equal the "
        "length of its second argument (`axis_names`), but got devices.ndim == 2 "
        "and len(axis_names) == 1.")
    with pytest.raises(ValueError, match=r"devices.ndim == 1 and len\(axis_names\) == 2"):
        sh.Mesh(np.array(devs), ("x", "y"))


@pytest.mark.spec("SHD-10")
def test_mesh_context_manager(jax, jnp, sh, devs):
    mesh = _mesh(sh, devs, (4, 2), ("x", "y"))
    P = sh.PartitionSpec

    def f(v):
        return jax.lax.with_sharding_constraint(v * 2, P("x"))

    with pytest.raises(RuntimeError, match="requires a non-empty mesh in context"):
        jax.jit(f)(jnp.arange(8.0))
    with pytest.warns(DeprecationWarning, match=r"`with mesh:` context manager has been "
                      r"deprecated. Please use `with jax.set_mesh\(mesh\):` instead."):
        with mesh as entered:
            assert entered is mesh
            y = jax.jit(f)(jnp.arange(8.0))
    assert repr(y.sharding) == ("NamedSharding(mesh=Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto)), "
                                "spec=P('x',), memory_kind=device)")
    np.testing.assert_array_equal(np.asarray(y), np.arange(8.0) * 2)


@pytest.mark.spec("SHD-11")
def test_make_mesh(jax, jnp, sh, devs):
    mesh = jax.make_mesh((2, 4), ("a", "b"))
    assert isinstance(mesh, sh.Mesh)
    assert mesh.shape == collections.OrderedDict([("a", 2), ("b", 4)])
    assert mesh.axis_names == ("a", "b")
    assert mesh.devices.shape == (2, 4)
    assert set(mesh.devices.flat) == set(devs)
    assert mesh.axis_types == (sh.AxisType.Explicit, sh.AxisType.Explicit)
    assert repr(mesh) == ("Mesh(axis_sizes=(2, 4), axis_names=('a', 'b'), "
                          "axis_types=(Explicit, Explicit))")
    auto = jax.make_mesh((2, 4), ("a", "b"), axis_types=(sh.AxisType.Auto,) * 2)
    assert str(auto) == "Mesh('a': 2, 'b': 4, axis_types=(Auto, Auto))"
    with pytest.raises(ValueError, match=r"Number of devices 8 must be >= the product "
                       r"of mesh_shape \(3, 3\)"):
        jax.make_mesh((3, 3), ("a", "b"))
    x = jax.device_put(np.arange(8.0), sh.NamedSharding(mesh, jax.P("b")))
    assert repr(x.sharding) == ("NamedSharding(mesh=Mesh('a': 2, 'b': 4, axis_types=(Explicit, "
                                "Explicit)), spec=P('b',), memory_kind=device)")
    np.testing.assert_array_equal(np.asarray(x), np.arange(8.0))


@pytest.mark.spec("SHD-11")
def test_create_device_mesh(jax, impl_name, sh, devs):
    mesh_utils = importlib.import_module(f"{impl_name}.experimental.mesh_utils")
    for shape in [(2, 4), (4, 2), (8,)]:
        arr = mesh_utils.create_device_mesh(shape)
        assert isinstance(arr, np.ndarray)
        assert arr.shape == shape
        assert sorted(d.id for d in arr.flat) == list(range(NDEV))
        assert set(arr.flat) == set(devs)
    mesh = sh.Mesh(mesh_utils.create_device_mesh((2, 4)), ("a", "b"))
    assert mesh.shape == collections.OrderedDict([("a", 2), ("b", 4)])


# --------------------------------------------------------------------------
# PartitionSpec

@pytest.mark.spec("SHD-12")
def test_partition_spec_reprs_and_alias(jax, sh):
    P = sh.PartitionSpec
    assert jax.P is P
    assert repr(P("x", None)) == "P('x', None)"
    assert repr(P()) == "P()"
    assert repr(P(("x", "y"))) == "P(('x', 'y'),)"
    assert repr(P("x")) == "P('x',)"
    assert repr(P(None)) == "P(None,)"
    assert repr(P(None, "x")) == "P(None, 'x')"
    assert str(P("x", "y")) == "P('x', 'y')"
    # A list entry is normalised to a tuple.
    assert repr(P(["x", "y"])) == "P(('x', 'y'),)"
    assert P(["x", "y"]) == P(("x", "y"))


@pytest.mark.spec("SHD-12")
def test_partition_spec_not_a_tuple(sh):
    P = sh.PartitionSpec
    assert not isinstance(P("x"), tuple)
    assert P("x", None) != ("x", None)
    assert not (P("x", None) == ("x", None))
    assert P() != ()
    assert P("x", None) == P("x", None)
    assert P(None) != P()
    assert P("x", None) != P("x")
    assert P(None, None) != P(None)
    # A one-axis tuple entry is the same as the bare name.
    assert P(("x",)) == P("x")


@pytest.mark.spec("SHD-12")
def test_partition_spec_sequence_protocol(sh):
    P = sh.PartitionSpec
    p = P("x", None, ("a", "b"))
    assert len(p) == 3 and len(P()) == 0
    assert p[0] == "x" and p[1] is None and p[2] == ("a", "b") and p[-1] == ("a", "b")
    assert list(p) == ["x", None, ("a", "b")]
    assert tuple(P("x", "y")) == ("x", "y")
    assert p[1:] == (None, ("a", "b")) and type(p[1:]) is tuple
    assert hash(p) == hash(P("x", None, ("a", "b")))
    assert {P("x"): 1}[P("x")] == 1
    assert len({P("x"), P("x"), P("x", None)}) == 2


# --------------------------------------------------------------------------
# NamedSharding / SingleDeviceSharding

@pytest.mark.spec("SHD-13")
def test_named_sharding_attributes(jax, sh, devs):
    mesh = _mesh(sh, devs, (4, 2), ("x", "y"))
    P = sh.PartitionSpec
    s = sh.NamedSharding(mesh, P("x", "y"))
    assert repr(s) == ("NamedSharding(mesh=Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto)), "
                       "spec=P('x', 'y'), memory_kind=device)")
    assert str(s) == repr(s)
    assert s.spec == P("x", "y")
    assert s.mesh is mesh
    assert s.memory_kind == "device"
    assert s.shard_shape((8, 4)) == (2, 2)
    assert s.is_fully_replicated is False
    assert s.is_fully_addressable is True
    assert s.num_devices == 8
    assert type(s.device_set) is set and s.device_set == set(devs)
    assert type(s.addressable_devices) is set and s.addressable_devices == set(devs)
    assert sh.NamedSharding(mesh, P()).is_fully_replicated is True
    assert sh.NamedSharding(mesh, P("x")).is_fully_replicated is False
    tall = _mesh(sh, devs, (8, 1), ("x", "y"))  # an axis of size 1 does not partition
    assert sh.NamedSharding(tall, P("y")).is_fully_replicated is True
    assert sh.NamedSharding(tall, P("x")).is_fully_replicated is False
    assert s == sh.NamedSharding(mesh, P("x", "y"))
    assert hash(s) == hash(sh.NamedSharding(mesh, P("x", "y")))
    assert s != sh.NamedSharding(mesh, P("y", "x"))
    assert sh.NamedSharding(mesh, P("x")) != sh.NamedSharding(mesh, P("x", None))
    for spec, text in [(P(), "P()"), (P("y"), "P('y',)"), (P(None, "x"), "P(None, 'x')"),
                       (P(("x", "y")), "P(('x', 'y'),)")]:
        assert repr(sh.NamedSharding(mesh, spec)) == (
            f"NamedSharding(mesh=Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto)), "
            f"spec={text}, memory_kind=device)")
    sub = sh.NamedSharding(_mesh(sh, devs[:4], (2, 2), ("x", "y")), P("x"))
    assert sub.num_devices == 4 and sub.device_set == set(devs[:4])


@pytest.mark.spec("SHD-14")
def test_devices_indices_map_exact(sh, devs):
    mesh = _mesh(sh, devs, (4, 2), ("x", "y"))
    P = sh.PartitionSpec
    m = sh.NamedSharding(mesh, P("x", "y")).devices_indices_map((8, 4))
    assert type(m) is dict
    assert list(m) == devs
    assert m[devs[0]] == (slice(0, 2, None), slice(0, 2, None))
    assert m[devs[1]] == (slice(0, 2, None), slice(2, 4, None))
    assert m[devs[5]] == (slice(4, 6, None), slice(2, 4, None))
    assert m[devs[7]] == (slice(6, 8, None), slice(2, 4, None))
    rep = sh.NamedSharding(mesh, P()).devices_indices_map((3,))
    assert rep == {d: (slice(None, None, None),) for d in devs}
    # Unsharded trailing dimensions get slice(None); so does a dimension
    # "sharded" over mesh axes whose sizes multiply to 1.
    m = sh.NamedSharding(mesh, P("x")).devices_indices_map((8, 2))
    assert m[devs[3]] == (slice(2, 4, None), slice(None, None, None))
    tall = _mesh(sh, devs, (8, 1), ("x", "y"))
    m = sh.NamedSharding(tall, P("x", "y")).devices_indices_map((8, 3))
    assert m[devs[6]] == (slice(6, 7, None), slice(None, None, None))
    # Order follows mesh.devices.flat, not device ids.
    perm = _mesh(sh, devs, (4, 2), ("x", "y"), order=[3, 1, 7, 5, 0, 2, 6, 4])
    m = sh.NamedSharding(perm, P("y", "x")).devices_indices_map((4, 8))
    assert [d.id for d in m] == [3, 1, 7, 5, 0, 2, 6, 4]
    assert m[devs[7]] == (slice(0, 2, None), slice(2, 4, None))
    assert m[devs[4]] == (slice(2, 4, None), slice(6, 8, None))


@pytest.mark.spec("SHD-14")
def test_shard_shape(sh, devs):
    mesh = _mesh(sh, devs, (4, 2), ("x", "y"))
    P = sh.PartitionSpec
    assert sh.NamedSharding(mesh, P()).shard_shape((3, 5)) == (3, 5)
    assert sh.NamedSharding(mesh, P("x")).shard_shape((8, 2, 3)) == (2, 2, 3)
    assert sh.NamedSharding(mesh, P(None, ("x", "y"))).shard_shape((3, 16)) == (3, 2)
    assert sh.NamedSharding(mesh, P("x", "y")).shard_shape((8, 4, 2)) == (2, 2, 2)
    with pytest.raises(ValueError) as info:
        sh.NamedSharding(mesh, P("x", "y")).shard_shape((7, 4))
    assert type(info.value).__name__ == "IndivisibleError"
    assert "implies that array axis 0 is partitioned 4 times, but the dimension size is 7 " \
           "(full shape: (7, 4), per-dimension tiling factors: [4, 2] should evenly divide " \
           "the shape)" in str(info.value)


@pytest.mark.spec("SHD-15")
def test_single_device_sharding(jax, sh, devs):
    s = sh.SingleDeviceSharding(devs[2])
    assert repr(s) == "SingleDeviceSharding(device=CpuDevice(id=2), memory_kind=device)"
    assert s.device_set == {devs[2]}
    assert s.memory_kind == "device"
    assert s.is_fully_replicated is True
    assert s.is_fully_addressable is True
    assert s.num_devices == 1
    assert s.shard_shape((3, 4)) == (3, 4)
    assert s.devices_indices_map((3, 4)) == {
        devs[2]: (slice(None, None, None), slice(None, None, None))}
    x = jax.device_put(np.arange(3.0), s)
    assert x.devices() == {devs[2]} and x.committed is True
    assert x.sharding == s
    assert jax.numpy.arange(4).sharding == sh.SingleDeviceSharding(devs[0])


# --------------------------------------------------------------------------
# device_put with NamedSharding: every partition-spec shape

LAYOUTS = [
    # (mesh shape, axis names, device order or None, spec entries, array shape)
    ((8,), ("x",), None, (), (8,)),
    ((8,), ("x",), None, (), ()),
    ((8,), ("x",), None, ("x",), (8,)),
    ((8,), ("x",), None, ("x",), (16, 3)),
    ((8,), ("x",), None, (None, "x"), (3, 8)),
    ((8,), ("x",), None, (None, None, "x"), (2, 3, 16)),
    ((8,), ("x",), None, ("x", None), (8, 2)),
    ((4, 2), ("x", "y"), None, (), (8, 4)),
    ((4, 2), ("x", "y"), None, ("x",), (8, 4)),
    ((4, 2), ("x", "y"), None, ("y",), (8, 4)),
    ((4, 2), ("x", "y"), None, ("x", None), (8, 4)),
    ((4, 2), ("x", "y"), None, (None, "x"), (6, 8)),
    ((4, 2), ("x", "y"), None, (None, "y"), (6, 8)),
    ((4, 2), ("x", "y"), None, ("x", "y"), (8, 4)),
    ((4, 2), ("x", "y"), None, ("y", "x"), (8, 4)),
    ((4, 2), ("x", "y"), None, (("x", "y"),), (16,)),
    ((4, 2), ("x", "y"), None, (("y", "x"),), (16,)),
    ((4, 2), ("x", "y"), None, (("x", "y"), None), (8, 3)),
    ((4, 2), ("x", "y"), None, (None, ("x", "y")), (3, 8)),
    ((4, 2), ("x", "y"), None, (None, ("y", "x")), (3, 16)),
    ((4, 2), ("x", "y"), None, ("x", None, "y"), (4, 3, 2)),
    ((2, 4), ("a", "b"), None, ("b", "a"), (4, 6)),
    ((4, 2), ("x", "y"), [3, 1, 7, 5, 0, 2, 6, 4], ("y", "x"), (4, 8)),
    ((4, 2), ("x", "y"), [3, 1, 7, 5, 0, 2, 6, 4], ("x",), (8,)),
    ((2, 2, 2), ("a", "b", "c"), None, (("c", "a"), "b"), (16, 2)),
    ((2, 2, 2), ("a", "b", "c"), None, ("b",), (16, 2)),
    ((2, 2, 2), ("a", "b", "c"), None, ("a", "b", "c"), (2, 4, 6)),
    ((8, 1), ("x", "y"), None, ("x", "y"), (8, 3)),
    ((8, 1), ("x", "y"), None, (None, "y"), (3, 5)),
    ((2, 2), ("x", "y"), "first4", ("x",), (8,)),
]


def _layout_id(layout):
    shape, names, order, spec, arr = layout
    o = "" if order is None else ("-perm" if order != "first4" else "-4dev")
    return f"{'x'.join(map(str, shape))}{o}-P{spec}-{arr}".replace(" ", "").replace("'", "")


@pytest.mark.spec("SHD-16")
@pytest.mark.parametrize("layout", LAYOUTS, ids=_layout_id)
def test_device_put_named_sharding_layout(jax, sh, devs, layout):
    mesh_shape, names, order, spec, arr_shape = layout
    if order == "first4":
        mesh = _mesh(sh, devs[:4], mesh_shape, names)
    else:
        mesh = _mesh(sh, devs, mesh_shape, names, order)
    s = sh.NamedSharding(mesh, sh.PartitionSpec(*spec))
    glob = np.arange(math.prod(arr_shape), dtype=np.float32).reshape(arr_shape)
    x = jax.device_put(glob, s)
    assert x.shape == arr_shape and x.dtype == np.float32
    assert x.sharding == s and x.committed is True
    assert x.devices() == set(mesh.devices.flat)
    np.testing.assert_array_equal(np.asarray(x), glob)

    expected = _ref_indices(mesh, spec, arr_shape)
    dim = s.devices_indices_map(arr_shape)
    assert list(dim.items()) == list(expected.items())
    replica = _ref_replica_ids(mesh, spec)
    shards = x.addressable_shards
    assert [t.device for t in shards] == list(mesh.devices.flat)
    assert len(shards) == mesh.devices.size
    for t in shards:
        assert t.index == dim[t.device]
        assert t.replica_id == replica[t.device]
        assert t.data.shape == s.shard_shape(arr_shape)
        assert t.data.devices() == {t.device}
        np.testing.assert_array_equal(np.asarray(t.data), glob[t.index])
    fully = all(r == rid for r, rid in zip(sorted(replica.values()), range(len(replica))))
    assert x.is_fully_replicated == s.is_fully_replicated == fully


@pytest.mark.spec("SHD-16")
def test_gotcha_4x2_example(jax, jnp, sh, devs):
    P = sh.PartitionSpec
    mesh = sh.Mesh(np.array(devs).reshape(4, 2), ("x", "y"))
    x = jax.device_put(jnp.arange(32.0).reshape(8, 4), sh.NamedSharding(mesh, P("x", "y")))
    assert repr(x.sharding) == ("NamedSharding(mesh=Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto)), "
                                "spec=P('x', 'y'), memory_kind=device)")
    assert [t.data.shape for t in x.addressable_shards] == [(2, 2)] * 8
    r = jax.device_put(jnp.arange(8.0), sh.NamedSharding(mesh, P()))
    assert [t.data.shape for t in r.addressable_shards] == [(8,)] * 8
    assert r.sharding.is_fully_replicated is True
    assert [t.replica_id for t in r.addressable_shards] == list(range(8))
    # A pytree of values with a matching pytree of shardings.
    a, b = jax.device_put((np.ones(8), np.ones(4)),
                          (sh.NamedSharding(mesh, P("x")), sh.NamedSharding(mesh, P("y"))))
    assert a.sharding.spec == P("x") and b.sharding.spec == P("y")
    assert [t.data.shape for t in b.addressable_shards] == [(2,)] * 8


@pytest.mark.spec("SHD-17")
def test_buffers_hold_only_their_shard(jax, sh, devs):
    P = sh.PartitionSpec
    mesh = _mesh(sh, devs, (4, 2), ("x", "y"))
    glob = np.arange(64.0, dtype=np.float32).reshape(16, 4)
    full = jax.device_put(glob, sh.NamedSharding(mesh, P("x", "y")))
    sizes = [t.data.size for t in full.addressable_shards]
    assert sizes == [8] * 8 and sum(sizes) == glob.size
    pieces = np.zeros_like(glob)
    for t in full.addressable_shards:
        pieces[t.index] += np.asarray(t.data)
    np.testing.assert_array_equal(pieces, glob)  # the shards tile the array exactly once
    rep = jax.device_put(glob, sh.NamedSharding(mesh, P()))
    for t in rep.addressable_shards:
        assert t.data.shape == glob.shape
        np.testing.assert_array_equal(np.asarray(t.data), glob)
    half = jax.device_put(glob, sh.NamedSharding(mesh, P("x")))
    assert sum(t.data.size for t in half.addressable_shards) == 2 * glob.size


# --------------------------------------------------------------------------
# Errors

@pytest.mark.spec("SHD-18")
def test_indivisible_error(jax, jnp, sh, devs):
    P = sh.PartitionSpec
    mesh = sh.Mesh(np.array(devs), ("x",))
    with pytest.raises(ValueError) as info:
        jax.device_put(jnp.arange(7.0), sh.NamedSharding(mesh, P("x")))
    err = info.value
    assert type(err).__name__ == "IndivisibleError"
    assert isinstance(err, ValueError)
    assert type(err).__mro__[1] is ValueError
    assert str(err) == (
        "Sharding NamedSharding(mesh=Mesh('x': 8, axis_types=(Auto,)), spec=P('x',), "
        "memory_kind=device) implies that array axis 0 is partitioned 8 times, but the "
        "dimension size is 7 (full shape: (7,), per-dimension tiling factors: [8] should "
        "evenly divide the shape)")
    mesh2 = _mesh(sh, devs, (4, 2), ("x", "y"))
    with pytest.raises(ValueError) as info:
        jax.device_put(np.zeros((8, 6)), sh.NamedSharding(mesh2, P(None, "x")))
    assert type(info.value).__name__ == "IndivisibleError"
    assert ("implies that array axis 1 is partitioned 4 times, but the dimension size is 6 "
            "(full shape: (8, 6), per-dimension tiling factors: [1, 4] should evenly divide "
            "the shape)") in str(info.value)
    with pytest.raises(ValueError, match=r"axis 0 is partitioned 8 times, but the dimension "
                       r"size is 7 \(full shape: \(7,\)"):
        jax.device_put(np.zeros(7), sh.NamedSharding(mesh2, P(("x", "y"))))


@pytest.mark.spec("SHD-19")
def test_duplicate_mesh_axis_in_spec(jax, sh, devs):
    P = sh.PartitionSpec
    mesh = _mesh(sh, devs, (4, 2), ("x", "y"))
    for spec, text in [(P("x", "x"), "P('x', 'x')"), (P(("x", "x")), "P(('x', 'x'),)"),
                       (P(("x", "y"), "x"), "P(('x', 'y'), 'x')")]:
        with pytest.raises(Exception) as info:
            sh.NamedSharding(mesh, spec)
        err = info.value
        assert type(err).__name__ == "DuplicateSpecError"
        assert not isinstance(err, ValueError)
        assert str(err) == (
            "A single NamedSharding spec specification can map every mesh axis to at most "
            f"one positional dimension, but {text} has duplicate entries for `x`")


@pytest.mark.spec("SHD-19")
def test_unknown_mesh_axis_in_spec(jax, sh, devs):
    P = sh.PartitionSpec
    mesh = _mesh(sh, devs, (4, 2), ("x", "y"))
    with pytest.raises(ValueError) as info:
        sh.NamedSharding(mesh, P("z"))
    assert type(info.value) is ValueError
    assert str(info.value) == "Resource axis: z of P('z',) is not found in mesh: ('x', 'y')."


@pytest.mark.spec("SHD-19")
def test_spec_longer_than_rank(jax, sh, devs):
    P = sh.PartitionSpec
    mesh = _mesh(sh, devs, (4, 2), ("x", "y"))
    s = sh.NamedSharding(mesh, P("x", "y", None))  # constructing it is fine
    with pytest.raises(ValueError) as info:
        jax.device_put(np.zeros((8, 4)), s)
    assert type(info.value) is ValueError
    assert str(info.value) == (
        "One of device_put args is incompatible with its sharding annotation "
        "NamedSharding(mesh=Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto)), "
        "spec=P('x', 'y', None), memory_kind=device): Sharding "
        "NamedSharding(mesh=Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto)), "
        "spec=P('x', 'y', None), memory_kind=device) is only valid for values of rank "
        "at least 3, but was applied to a value of rank 2.")
    with pytest.raises(ValueError, match="is only valid for values of rank at least 2, "
                       "but was applied to a value of rank 1"):
        jax.device_put(np.zeros(8), sh.NamedSharding(mesh, P("x", "y")))


@pytest.mark.spec("SHD-20")
def test_removed_device_put_variants(jax):
    for name in ("device_put_sharded", "device_put_replicated"):
        with pytest.raises(AttributeError) as info:
            getattr(jax, name)
        assert str(info.value).startswith(
            f"jax.{name} is deprecated; use jax.device_put instead. See "
            "https://docs.jax.dev/en/latest/migrate_pmap.html#drop-in-replacements")
        assert not hasattr(jax, name)


# --------------------------------------------------------------------------
# visualize_array_sharding

def _cpu_label_lines(text):
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)  # colour codes, if a terminal is forced
    return [line for line in text.splitlines() if "CPU" in line]


@pytest.mark.spec("SHD-21")
def test_visualize_array_sharding(jax, jnp, sh, devs, capsys):
    P = sh.PartitionSpec
    mesh1 = _mesh(sh, devs, (8,), ("x",))
    mesh2 = _mesh(sh, devs, (4, 2), ("x", "y"))
    row = jax.device_put(jnp.arange(8.0), sh.NamedSharding(mesh1, P("x")))
    if importlib.util.find_spec("rich") is None:
        with pytest.raises(ValueError) as info:
            jax.debug.visualize_array_sharding(row)
        assert str(info.value) == "`visualize_sharding` requires `rich` to be installed."
        return
    capsys.readouterr()
    jax.debug.visualize_array_sharding(row)
    lines = _cpu_label_lines(capsys.readouterr().out)
    assert len(lines) == 1
    positions = [lines[0].index(f"CPU {i}") for i in range(8)]
    assert positions == sorted(positions)

    grid = jax.device_put(jnp.arange(32.0).reshape(8, 4), sh.NamedSharding(mesh2, P("x", "y")))
    jax.debug.visualize_array_sharding(grid)
    lines = _cpu_label_lines(capsys.readouterr().out)
    assert len(lines) == 4
    for r, line in enumerate(lines):
        assert f"CPU {2 * r}" in line and f"CPU {2 * r + 1}" in line
        assert line.index(f"CPU {2 * r}") < line.index(f"CPU {2 * r + 1}")

    rep = jax.device_put(jnp.arange(8.0), sh.NamedSharding(mesh2, P()))
    jax.debug.visualize_array_sharding(rep)
    lines = _cpu_label_lines(capsys.readouterr().out)
    assert len(lines) == 1 and "CPU 0,1,2,3,4,5,6,7" in lines[0]

    rows = jax.device_put(jnp.arange(32.0).reshape(8, 4), sh.NamedSharding(mesh2, P("x")))
    jax.debug.visualize_array_sharding(rows)
    lines = _cpu_label_lines(capsys.readouterr().out)
    assert [line.strip("│ ") for line in lines] == ["CPU 0,1", "CPU 2,3", "CPU 4,5", "CPU 6,7"]

    jax.debug.visualize_array_sharding(jnp.arange(3.0))
    lines = _cpu_label_lines(capsys.readouterr().out)
    assert [line.strip("│ ") for line in lines] == ["CPU 0"]

    with pytest.raises(ValueError, match="`visualize_sharding` only works for shapes with 1 "
                       "and 2 dimensions."):
        jax.debug.visualize_array_sharding(jnp.zeros((2, 2, 2)))
