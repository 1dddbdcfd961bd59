"""Conformance: top-level functions, small public modules, Array attributes
and abstract meshes (SPEC API-13 .. API-16)."""
import importlib
import os
import subprocess
import sys

import numpy as np
import pytest


def _sub(jax, name):
    return importlib.import_module(f"{jax.__name__}.{name}")


@pytest.mark.spec("API-13")
def test_process_queries(jax):
    assert jax.process_indices() == [0]
    for name, want in [("host_count", 1), ("host_id", 0), ("host_ids", [0])]:
        with pytest.warns(UserWarning, match="has been renamed"):
            assert getattr(jax, name)() == want


@pytest.mark.spec("API-13")
def test_arrays_from_pieces(jax, jnp):
    mesh = jax.make_mesh((1,), ("x",))
    sharding = jax.NamedSharding(mesh, jax.P("x"))
    full = np.arange(8.0, dtype=np.float32).reshape(4, 2)
    a = jax.make_array_from_callback((4, 2), sharding, lambda idx: full[idx])
    np.testing.assert_array_equal(a, full)
    assert a.sharding == sharding
    b = jax.make_array_from_single_device_arrays((4, 2), sharding, [jnp.asarray(full)])
    np.testing.assert_array_equal(b, full)
    with pytest.raises(ValueError, match="Expected shard shape"):
        jax.make_array_from_single_device_arrays((4, 2), sharding,
                                                 [jnp.ones((3, 2))])
    c = jax.make_array_from_process_local_data(sharding, full)
    np.testing.assert_array_equal(c, full)
    assert c.dtype == np.float32


@pytest.mark.spec("API-13")
def test_copy_to_host_async_and_live_arrays(jax, jnp):
    x = jnp.arange(3)
    tree = {"a": x, "b": 3}
    assert jax.copy_to_host_async(tree) is tree
    assert any(y is x for y in jax.live_arrays())
    x.delete()
    assert not any(y is x for y in jax.live_arrays())


@pytest.mark.spec("API-13")
def test_print_environment_info(jax, capsys):
    text = jax.print_environment_info(return_string=True)
    assert "numpy:" in text and "python:" in text and "process_count: 1" in text
    assert jax.print_environment_info() is None
    assert "numpy:" in capsys.readouterr().out


@pytest.mark.spec("API-13")
def test_monitoring(jax):
    monitoring = _sub(jax, "monitoring")
    seen = []

    def on_event(event, **kw):
        seen.append(("event", event, kw))

    def on_duration(event, duration, **kw):
        seen.append(("duration", event, duration))

    def on_scalar(event, value, **kw):
        seen.append(("scalar", event, value))
    monitoring.register_event_listener(on_event)
    monitoring.register_event_duration_secs_listener(on_duration)
    monitoring.register_scalar_listener(on_scalar)
    try:
        monitoring.record_event("/test/event", tag="a")
        monitoring.record_event_duration_secs("/test/duration", 1.5)
        monitoring.record_scalar("/test/scalar", 7)
    finally:
        monitoring.unregister_event_listener(on_event)
        monitoring.unregister_event_duration_listener(on_duration)
        monitoring.unregister_scalar_listener(on_scalar)
    mine = [s for s in seen if s[1].startswith("/test/")]
    assert mine == [("event", "/test/event", {"tag": "a"}),
                    ("duration", "/test/duration", 1.5),
                    ("scalar", "/test/scalar", 7)]
    with pytest.raises(AssertionError):
        monitoring.unregister_event_listener(on_event)


@pytest.mark.spec("API-13")
def test_distributed_single_process(jax, jnp):
    distributed = _sub(jax, "distributed")
    assert distributed.is_initialized() is False
    jnp.ones(2) + 1
    with pytest.raises(RuntimeError, match="must be called before any JAX calls"):
        distributed.initialize("localhost:1234", num_processes=1, process_id=0)
    distributed.shutdown()
    assert distributed.is_initialized() is False


@pytest.mark.spec("API-13")
def test_distributed_needs_a_coordinator(impl_name):
    code = (f"import {impl_name}.distributed as d\n"
            "try:\n    d.initialize()\nexcept ValueError as e:\n    print(e)\n"
            "print(d.is_initialized())")
    env = {k: v for k, v in os.environ.items() if not k.startswith("JAX_")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, env={**env, "JAX_PLATFORMS": "cpu"})
    assert out.stdout.split("\n")[:2] == ["coordinator_address should be defined.",
                                          "False"], out.stderr


@pytest.mark.spec("API-13")
def test_dlpack_memory_version(jax, jnp):
    dlpack = _sub(jax, "dlpack")
    for t in (jnp.float32, jnp.float16, jnp.bfloat16, jnp.bool_, jnp.complex64,
              jnp.int8, jnp.uint64):
        assert dlpack.is_supported_dtype(t), t
    assert not dlpack.is_supported_dtype(jnp.float8_e4m3fn)
    x = jnp.arange(4.0)
    np.testing.assert_array_equal(dlpack.from_dlpack(x), x)
    assert [s.name for s in jax.memory.Space] == ["Device", "Host", "Any"]
    assert isinstance(_sub(jax, "version").__version__, str)
    assert jax.float0 == np.dtype([("float0", "V")])
    assert isinstance(jax.devices()[0], jax.Device)
    assert isinstance(jnp.ones(2).addressable_shards[0], jax.Shard)


@pytest.mark.spec("API-14")
def test_profiler_annotations(jax, jnp):
    profiler = _sub(jax, "profiler")
    with profiler.TraceAnnotation("block", step=1):
        y = jnp.ones(2) + 1
    with profiler.StepTraceAnnotation("train", step_num=3):
        y = y * 2
    np.testing.assert_array_equal(y, [4.0, 4.0])
    add = profiler.annotate_function(lambda x: x + 1, name="add")
    assert add(1) == 2
    with pytest.raises(RuntimeError, match="No profile started"):
        profiler.stop_trace()


@pytest.mark.spec("API-14")
def test_export_surface(jax):
    export = _sub(jax, "export")
    assert export.default_export_platform() == "cpu"
    assert export.minimum_supported_calling_convention_version == 9
    assert export.maximum_supported_calling_convention_version == 10
    assert export.is_symbolic_dim(3) is False
    with pytest.raises(ValueError, match="must be the result of `jit`"):
        export.export(lambda x: x)
    assert export.DisabledSafetyCheck.platform() == export.DisabledSafetyCheck.platform()


@pytest.mark.spec("API-15")
def test_array_runtime_attributes(jax, jnp):
    x = jnp.arange(3.0)
    assert x.aval == jax.typeof(x)
    assert x.is_ready() is True
    assert x.copy_to_host_async() is None
    np.testing.assert_array_equal(x.addressable_data(0), [0.0, 1.0, 2.0])
    assert x.on_device_size_in_bytes() == 12
    assert x.platform() == "cpu"
    assert isinstance(x.unsafe_buffer_pointer(), int)
    y = x.clone()
    assert y is not x and y.dtype == x.dtype
    np.testing.assert_array_equal(y, x)
    w = jnp.asarray(2.0) if False else jnp.ones(()) + 1.0
    assert jax.numpy.array(3.0).clone().weak_type == jax.numpy.array(3.0).weak_type
    assert w.clone().weak_type == w.weak_type
    with pytest.raises(AttributeError, match="arr.addressable_data"):
        x.device_buffer
    with pytest.raises(AttributeError, match="addressable_shards"):
        x.device_buffers


@pytest.mark.spec("API-15")
def test_shape_dtype_struct_fields(jax, jnp):
    s = jax.ShapeDtypeStruct((2, 3), jnp.float32, weak_type=True)
    assert s.is_ref is False and s.manual_axis_type is None
    t = s.update(dtype=jnp.int32)
    assert (t.shape, t.dtype, t.weak_type) == ((2, 3), np.dtype("int32"), True)
    assert s.update(shape=(1,)).shape == (1,)
    assert repr(jax.ShapeDtypeStruct((2,), jnp.float32, is_ref=True)) == \
        "ShapeDtypeStruct(shape=(2,), dtype=float32, is_ref=True)"
    for like in (jnp.zeros_like, jnp.ones_like, jnp.empty_like):
        out = like(jax.ShapeDtypeStruct((2,), jnp.int16))
        assert out.shape == (2,) and out.dtype == np.int16
    np.testing.assert_array_equal(
        jnp.full_like(jax.ShapeDtypeStruct((2,), jnp.float32), 5), [5.0, 5.0])


@pytest.mark.spec("API-16")
def test_abstract_mesh(jax):
    sharding = jax.sharding
    am = sharding.AbstractMesh((2, 3), ("x", "y"))
    assert repr(am) == "AbstractMesh('x': 2, 'y': 3, axis_types=(Auto, Auto))"
    assert am.axis_sizes == (2, 3) and am.axis_names == ("x", "y")
    assert dict(am.shape) == {"x": 2, "y": 3} and am.size == 6 and not am.empty
    assert am.shape_tuple == (("x", 2), ("y", 3))
    assert am == sharding.AbstractMesh((2, 3), ("x", "y"))
    assert hash(am) == hash(sharding.AbstractMesh((2, 3), ("x", "y")))
    ex = sharding.AbstractMesh((2,), ("x",), axis_types=(sharding.AxisType.Explicit,))
    assert repr(ex) == "AbstractMesh('x': 2, axis_types=(Explicit,))"
    assert ex.are_all_axes_explicit and not ex.are_all_axes_auto


@pytest.mark.spec("API-16")
def test_mesh_context_queries(jax, jnp):
    sharding = jax.sharding
    assert repr(sharding.get_abstract_mesh()) == "AbstractMesh((), axis_types=())"
    assert sharding.get_abstract_mesh().empty
    assert sharding.get_mesh().axis_names == ()
    mesh = jax.make_mesh((1,), ("a",))
    with jax.set_mesh(mesh):
        assert sharding.get_abstract_mesh() == mesh.abstract_mesh
        assert sharding.get_abstract_mesh().axis_names == ("a",)
        assert sharding.get_mesh() == mesh
    am = sharding.AbstractMesh((4,), ("z",))
    with sharding.use_abstract_mesh(am):
        assert sharding.get_abstract_mesh() == am
    with pytest.raises(ValueError, match="Expected mesh of type"):
        sharding.use_abstract_mesh(3)
    d = jax.devices()[0]
    assert sharding.make_single_device_sharding(d) == sharding.SingleDeviceSharding(d)


@pytest.mark.spec("API-16")
def test_typeof_sharding_unsharded(jax, jnp):
    assert str(jax.typeof(jnp.ones(3)).sharding) == \
        "NamedSharding(mesh=AbstractMesh((), axis_types=()), spec=P(None,))"
    assert str(jax.typeof(jnp.ones((2, 3))).sharding) == \
        "NamedSharding(mesh=AbstractMesh((), axis_types=()), spec=P(None, None))"
    assert str(jax.typeof(1.0).sharding) == \
        "NamedSharding(mesh=AbstractMesh((), axis_types=()), spec=P())"
