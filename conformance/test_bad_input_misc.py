"""Bad input to meshes, PartitionSpecs, ShapeDtypeStruct, checkpoint, array
formatting and collectives: JAX's error class, or JAX's result where JAX
returns one (SPEC SHD-100, SHD-101, JIT-13, AD-93, ARR-12, VMAP-107,
AD-64, NP-71, NP-72, SPC-1, RNG-7)."""
import numpy as np
import pytest


@pytest.mark.spec("SHD-100")
@pytest.mark.parametrize("shape", ["ab", (2, "a")])
def test_make_mesh_wants_a_sequence_of_ints(jax, shape):
    with pytest.raises(ValueError, match="sequence of ints"):
        jax.make_mesh(shape, ("x", "y"))
    with pytest.raises(TypeError):
        jax.make_mesh(2.0, ("x",))


@pytest.mark.spec("SHD-100")
@pytest.mark.parametrize("types", [5, ("bogus",), (None,)])
def test_mesh_axis_types_must_be_axis_types(jax, types):
    with pytest.raises(TypeError, match="AxisType"):
        jax.make_mesh((2,), ("x",), axis_types=types)


@pytest.mark.spec("SHD-100")
@pytest.mark.parametrize("mesh", ["x", 5, (2,)])
def test_set_mesh_wants_a_mesh(jax, mesh):
    with pytest.raises(ValueError, match="Mesh"):
        jax.set_mesh(mesh)


@pytest.mark.spec("SHD-100")
def test_named_sharding_memory_kinds(jax):
    m = jax.make_mesh((2,), ("x",))
    P = jax.sharding.PartitionSpec
    with pytest.raises(ValueError, match="memory kind"):
        jax.sharding.NamedSharding(m, P("x"), memory_kind="bogus")
    s = jax.sharding.NamedSharding(m, P("x"), memory_kind="device")
    assert s.memory_kind == "device"


@pytest.mark.spec("SHD-101")
def test_partition_spec_accepts_any_name_and_named_sharding_checks_it(jax):
    P = jax.sharding.PartitionSpec
    m = jax.make_mesh((2,), ("x",))
    assert repr(P(1, "x")) == "P(1, 'x')"
    assert P(1.5)[0] == 1.5
    with pytest.raises(ValueError, match="not found in mesh"):
        jax.sharding.NamedSharding(m, P(1))


@pytest.mark.spec("SHD-101")
def test_partition_spec_refuses_nested_tuples(jax):
    with pytest.raises(ValueError, match="nested tuple"):
        jax.sharding.PartitionSpec(["x", ["y"]])


@pytest.mark.spec("JIT-13")
def test_shape_dtype_struct_needs_a_dtype(jax):
    with pytest.raises(ValueError, match="dtype must be specified"):
        jax.ShapeDtypeStruct((2,), None)


@pytest.mark.spec("JIT-13")
@pytest.mark.parametrize("sharding", ["cpu", 5])
def test_shape_dtype_struct_sharding_must_be_a_sharding(jax, jnp, sharding):
    with pytest.raises(ValueError, match="sharding should be an instance"):
        jax.ShapeDtypeStruct((2,), jnp.float32, sharding=sharding)


@pytest.mark.spec("JIT-13")
def test_shape_dtype_struct_bad_dtype_and_shape(jax, jnp):
    with pytest.raises(TypeError):
        jax.ShapeDtypeStruct((2,), "bogus")
    with pytest.raises(TypeError):
        jax.ShapeDtypeStruct(5, jnp.float32)


@pytest.mark.spec("AD-93")
@pytest.mark.parametrize("argnums", [(3,), (-3,), 1])
def test_checkpoint_static_argnums_out_of_range(jax, argnums):
    f = jax.checkpoint(lambda x: x * 2, static_argnums=argnums)
    with pytest.raises(ValueError, match="static_argnums"):
        f(1.)


@pytest.mark.spec("AD-93")
def test_checkpoint_policy_must_be_callable_when_differentiated(jax, jnp):
    f = jax.checkpoint(jnp.sin, policy=5)
    with pytest.raises(TypeError):
        jax.grad(f)(1.)
    primal, tangent = jax.jvp(f, (1.,), (1.,))       # jvp never asks the policy
    assert np.allclose(tangent, np.cos(1.))


@pytest.mark.spec("AD-93")
def test_checkpoint_returns_arrays_eagerly(jax, jnp):
    out = jax.checkpoint(lambda x: x * 2)(np.ones(3))
    assert isinstance(out, jax.Array) and out.dtype == jnp.float32
    s = jax.checkpoint(lambda x: x * 2)(3.)
    assert isinstance(s, jax.Array) and s.dtype == jnp.float32 and s.weak_type


@pytest.mark.spec("ARR-12")
@pytest.mark.parametrize("spec", ["d", ".2f", ">20"])
def test_format_spec_on_arrays_with_dimensions(jax, jnp, spec):
    with pytest.raises(TypeError):
        format(jnp.ones(2), spec)
    assert format(jnp.ones(()), ".2f") == "1.00"
    assert format(jnp.ones(2), "") == str(jnp.ones(2))


@pytest.mark.spec("VMAP-107")
def test_collective_with_unhashable_axis_name(jax, jnp):
    with pytest.raises(TypeError, match="unhashable"):
        jax.vmap(lambda x: jax.lax.axis_index({}), axis_name="i")(jnp.ones(2))
    with pytest.raises(TypeError, match="unhashable"):
        jax.vmap(lambda x: jax.lax.psum(x, {}), axis_name="i")(jnp.ones(2))


@pytest.mark.spec("AD-64")
@pytest.mark.parametrize("leaf, error", [("abc", TypeError), (object(), TypeError),
                                         (2**70, OverflowError)])
def test_stop_gradient_checks_its_leaves(jax, leaf, error):
    with pytest.raises(error):
        jax.lax.stop_gradient(leaf)
    with pytest.raises(error):
        jax.lax.stop_gradient([1., {"a": leaf}])
    assert jax.lax.stop_gradient(None) is None


@pytest.mark.spec("NP-71")
def test_lax_refuses_an_array_as_a_dtype(jax, jnp):
    with pytest.raises(ValueError, match="dtype=arr.dtype"):
        jax.lax.convert_element_type(1., jnp.ones(2))
    with pytest.raises(ValueError, match="dtype=arr.dtype"):
        jax.lax.full((2,), 1., jnp.ones(2, jnp.int32))
    # A NumPy scalar stands for its dtype, as in NumPy.
    assert jnp.zeros(3, dtype=np.int32(1)).dtype == jnp.int32


@pytest.mark.spec("NP-72")
def test_numpy_checks_options_before_operands(jax, jnp):
    with pytest.raises(ValueError, match="order must be one of"):
        jnp.reshape(np.float64(1.), (0,), order="VALID")
    with pytest.raises(NotImplementedError):
        jnp.add("abc", 1, where=jnp.ones(2))
    with pytest.raises(NotImplementedError):
        jnp.add("abc", 1, out=jnp.ones(2))
    for out in ({}, []):            # pytrees without leaves are still an `out`
        with pytest.raises(NotImplementedError):
            jnp.all(jnp.ones(2), out=out)
    with pytest.raises(TypeError):
        jnp.all(jnp.ones(2), out="abc")


@pytest.mark.spec("NP-72")
def test_ufunc_checks_operand_kinds_before_where(jax, jnp):
    with pytest.raises(TypeError, match="requires ndarray or scalar arguments"):
        jnp.logical_and(jnp.arange(6).reshape(2, 3), {}, where=jnp.eye(3))
    with pytest.raises(TypeError, match="requires ndarray or scalar arguments"):
        jnp.add(jnp.eye(3), (2, 3), where=jnp.zeros((0, 3)))


@pytest.mark.spec("NP-72")
def test_array_ndmin_is_one_integer(jax, jnp):
    with pytest.raises(ValueError, match="truth value"):
        jnp.array(1.0, ndmin=np.array(["a", "b"]))
    with pytest.raises(TypeError):
        jnp.array(1.0, ndmin=2.5)
    assert jnp.array(1.0, ndmin=np.int64(2)).shape == (1, 1)


@pytest.mark.spec("SPC-1")
def test_scipy_special_takes_huge_python_ints_as_floats(jax, jnp):
    special = jax.scipy.special
    assert float(special.erf(2**70)) == 1.0 and special.erf(2**70).weak_type
    assert float(special.erfc(-2**70)) == 2.0
    assert np.isnan(float(special.erfinv(2**70)))
    with pytest.raises(OverflowError):
        jnp.sin(2**70)              # jitted in JAX: the int must fit first


@pytest.mark.spec("RNG-7")
def test_keys_meeting_numbers_name_the_function(jax, jnp):
    key = jax.random.key(0)
    with pytest.raises(TypeError, match="right_shift does not accept dtypes"):
        1.0 >> key
    with pytest.raises(TypeError, match="does not accept dtypes"):
        jax.nn.softplus(key)
    with pytest.raises(ValueError, match="not a valid dtype for JAX type promotion"):
        jnp.tensordot(jnp.zeros((0, 3)), key)
    with pytest.raises(TypeError, match="Cannot interpret 'key<fry>' as a data type"):
        jnp.sin(key)
