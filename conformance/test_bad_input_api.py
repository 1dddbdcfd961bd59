"""Bad input to the API-level functions: devices and shardings, debugging
callbacks, argnums, custom derivatives and vmap axis names (SPEC SHD-93 ..
SHD-103, DBG-5, DBG-9 .. DBG-13, AD-50, AD-54, AD-63, AD-64, AD-89 .. AD-93,
TREE-14, JIT-4, JIT-8, JIT-13, VMAP-105, VMAP-106).

Each test feeds what a careless or hostile user might pass and checks JAX's
error class, or JAX's result where JAX returns one.
"""
import importlib

import numpy as np
import pytest


@pytest.fixture
def A(jnp):
    return jnp.ones((2, 3))


def _mul(x, y):
    return x * y


# ---------------------------------------------------------------------------
# Devices and shardings (SHD-93 .. SHD-97)
# ---------------------------------------------------------------------------

@pytest.mark.spec("SHD-93")
@pytest.mark.parametrize("place", ["cpu", 5, 1.5])
def test_device_put_refuses_what_is_not_a_place(jax, A, place):
    with pytest.raises(ValueError, match="device_put"):
        jax.device_put(A, place)
    with pytest.raises(ValueError):
        jax.device_put({"a": A}, {"a": place})
    with pytest.raises(ValueError):
        jax.jit(lambda x: jax.device_put(x, place))(A)


@pytest.mark.spec("SHD-93")
def test_device_put_refuses_unhashable_places(jax, jnp, A):
    for place in (np.ones(2), jnp.ones(2), jax.random.key(0), {1}, slice(None)):
        with pytest.raises(TypeError, match="unhashable"):
            jax.device_put(A, place)
    with pytest.raises(TypeError, match="unhashable"):
        jax.device_put((A,), (np.ones(2),))


@pytest.mark.spec("SHD-93")
def test_device_put_still_takes_devices_shardings_and_none(jax, A):
    d = jax.devices()[1]
    assert jax.device_put(A, d).devices() == {d}
    s = jax.sharding.SingleDeviceSharding(d)
    assert jax.device_put(A, s).sharding == s
    assert jax.device_put(A, None).shape == (2, 3)


@pytest.mark.spec("SHD-93")
def test_device_put_of_key_arrays_keeps_the_keys(jax):
    keys = jax.random.split(jax.random.key(0), 4)
    mesh = jax.make_mesh((2,), ("x",), devices=jax.devices()[:2])
    for place in (jax.devices()[0], jax.sharding.SingleDeviceSharding(jax.devices()[0]),
                  jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("x"))):
        out = jax.device_put(keys, place)
        assert out.dtype == keys.dtype and out.shape == (4,)
        np.testing.assert_array_equal(jax.random.key_data(out),
                                      jax.random.key_data(keys))


@pytest.mark.spec("SHD-93")
def test_single_device_sharding_needs_a_device(jax):
    with pytest.raises(TypeError):
        jax.sharding.SingleDeviceSharding(None)
    with pytest.raises(TypeError):
        jax.sharding.SingleDeviceSharding()
    with pytest.raises(ValueError, match="memory kind"):
        jax.sharding.SingleDeviceSharding(jax.devices()[0], memory_kind="bogus")


@pytest.mark.spec("SHD-94")
@pytest.mark.parametrize("call", [
    lambda jnp: jnp.array([1.0], device="cpu"),
    lambda jnp: jnp.asarray([1.0], device="cpu"),
    lambda jnp: jnp.linspace(0.0, 1.0, 3, device="cpu"),
    lambda jnp: jnp.eye(3, device="cpu"),
], ids=["array", "asarray", "linspace", "eye"])
def test_creation_device_refuses_platform_names(jnp, call):
    with pytest.raises(ValueError):
        call(jnp)


@pytest.mark.spec("SHD-94")
@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "arange", "eye"])
def test_creation_device_places_the_result(jax, jnp, name):
    d = jax.devices()[2]
    x = getattr(jnp, name)(3, device=d)
    assert x.devices() == {d}
    assert x.committed
    np.testing.assert_array_equal(x, getattr(jnp, name)(3))


@pytest.mark.spec("SHD-94")
def test_creation_device_takes_a_sharding(jax, jnp):
    s = jax.sharding.SingleDeviceSharding(jax.devices()[3])
    for x in (jnp.array([1.0, 2.0], device=s), jnp.full(2, 7.0, device=s),
              jnp.zeros_like(jnp.ones(2), device=s), jnp.linspace(0, 1, 2, device=s)):
        assert x.sharding == s


@pytest.mark.spec("SHD-95")
@pytest.mark.parametrize("backend", ["bogus", "CPU", "cuda", "rocm"])
def test_unknown_backend_names_raise_runtime_error(jax, backend):
    for query in (jax.devices, jax.device_count, jax.local_device_count,
                  jax.process_index, jax.process_count,
                  lambda b: jax.local_devices(backend=b)):
        with pytest.raises(RuntimeError, match="backend"):
            query(backend)


@pytest.mark.spec("SHD-95")
def test_gpu_backend_name_without_a_gpu(jax):
    if jax.default_backend() != "cpu":
        pytest.skip("only meaningful on a CPU-only installation")
    with pytest.raises(RuntimeError, match="gpu"):
        jax.devices("gpu")


@pytest.mark.spec("SHD-95")
def test_known_backend_names(jax):
    platform = jax.default_backend()
    assert jax.devices(platform) == jax.devices()
    assert jax.devices(None) == jax.devices()
    assert jax.device_count(platform) == len(jax.devices())
    assert jax.local_devices(process_index=0) == jax.devices()
    with pytest.raises(ValueError, match="process_index"):
        jax.local_devices(process_index=5)


@pytest.mark.spec("SHD-96")
def test_with_sharding_constraint_targets(jax, A):
    wsc = jax.lax.with_sharding_constraint
    for bad in ("x", 5, ("x",)):
        with pytest.raises(TypeError):
            wsc(A if not isinstance(bad, tuple) else (A,), bad)
    with pytest.raises(ValueError):
        wsc(A, None)
    with pytest.raises(ValueError):
        jax.jit(lambda x: wsc(x, None))(A)


@pytest.mark.spec("SHD-96")
def test_reshard_targets(jax, A):
    with pytest.raises(TypeError):
        jax.sharding.reshard(A, "x")
    with pytest.raises(TypeError):
        jax.reshard(A, jax.sharding.SingleDeviceSharding(jax.devices()[0]))
    with pytest.raises(ValueError):
        jax.reshard(A, None)
    with pytest.raises(ValueError):
        jax.reshard(A, jax.sharding.PartitionSpec("x"))
    mesh = jax.make_mesh((2,), ("x",), devices=jax.devices()[:2])
    s = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("x"))
    y = jax.sharding.reshard(A, s)
    assert y.sharding.is_equivalent_to(s, 2)
    np.testing.assert_array_equal(y, A)


def _shard_map(jax, **kwargs):
    mesh = jax.make_mesh((2,), ("x",), devices=jax.devices()[:2])
    P = jax.sharding.PartitionSpec
    options = dict(mesh=mesh, in_specs=P(), out_specs=P())
    options.update(kwargs)
    return jax.shard_map(lambda *a: a[0], **options)


@pytest.mark.spec("SHD-98")
@pytest.mark.parametrize("specs", ["x", 5, (2, 3), np.array(["a", "b"])],
                         ids=["str", "int", "tuple", "ndarray"])
def test_shard_map_spec_leaves_must_be_partition_specs(jax, jnp, specs):
    mapped = _shard_map(jax, in_specs=specs)      # accepted until called
    with pytest.raises(TypeError, match="in_specs"):
        mapped(jnp.ones(2))
    with pytest.raises(TypeError, match="out_specs"):
        _shard_map(jax, out_specs=specs)(jnp.ones(2))
    # Checked before the arguments: a spec too long for a scalar is not reached.
    P = jax.sharding.PartitionSpec
    with pytest.raises(TypeError, match="out_specs"):
        _shard_map(jax, in_specs=P(None, "x"), out_specs=specs)(1.0)


@pytest.mark.spec("SHD-98")
def test_shard_map_none_specs(jax, jnp):
    P = jax.sharding.PartitionSpec
    np.testing.assert_array_equal(_shard_map(jax, in_specs=None)(jnp.ones(2)), np.ones(2))
    np.testing.assert_array_equal(_shard_map(jax, in_specs=(None,))(jnp.ones(2)), np.ones(2))
    with pytest.raises(ValueError, match="pytree structure"):
        _shard_map(jax, out_specs=None)(jnp.ones(2))
    with pytest.raises(ValueError, match="pytree structure"):
        jax.shard_map(lambda x: (x, x), mesh=jax.make_mesh((1,), ("x",)), in_specs=P(),
                      out_specs=(P(), None))(jnp.ones(2))


@pytest.mark.spec("SHD-98")
def test_shard_map_spec_too_long_is_reported_before_a_repeated_axis(jax):
    P = jax.sharding.PartitionSpec
    with pytest.raises(ValueError, match="too long"):
        _shard_map(jax, in_specs=P("x", "x"))(1.0)


@pytest.mark.spec("SHD-98")
def test_shard_map_axis_names(jax, jnp):
    with pytest.raises(TypeError, match="axis_names"):
        _shard_map(jax, axis_names="x")(jnp.ones(2))
    with pytest.raises(TypeError, match="axis_names"):
        _shard_map(jax, axis_names=["x"])(jnp.ones(2))
    with pytest.raises(ValueError, match="subset"):
        _shard_map(jax, axis_names={"q"})(jnp.ones(2))


@pytest.mark.spec("SHD-99")
@pytest.mark.parametrize("arg", [slice(None), "abc", object()], ids=["slice", "str", "object"])
def test_pmap_of_values_without_an_axis(jax, arg):
    with pytest.raises(ValueError, match="at least one argument with a mapped axis"):
        jax.pmap(lambda x: x)(arg)


@pytest.mark.spec("SHD-99")
@pytest.mark.parametrize("shape", [(0,), (0, 3)])
def test_pmap_over_an_empty_axis(jax, jnp, shape):
    with pytest.raises(ValueError, match="empty NamedSharding"):
        jax.pmap(lambda x: x, axis_name="i")(jnp.zeros(shape))


@pytest.mark.spec("SHD-97")
def test_visualize_array_sharding_wants_an_array(jax):
    with pytest.raises(TypeError):
        jax.debug.visualize_array_sharding("ab")


# ---------------------------------------------------------------------------
# Debugging (DBG-9 .. DBG-11)
# ---------------------------------------------------------------------------

@pytest.mark.spec("DBG-9")
def test_debug_print_indexes_arrays_as_jax_does(jax, jnp, capsys):
    x = jnp.arange(6.0).reshape(2, 3)
    jax.debug.print("eager {0[5]}", x)
    jax.jit(lambda v: jax.debug.print("jit {0[5]} {0[1][9]} {0!r}", v))(x)
    jax.vmap(lambda v: jax.debug.print("vmap {0[7]}", v))(x)
    jax.effects_barrier()
    assert capsys.readouterr().out.splitlines() == [
        "eager [3. 4. 5.]",
        "jit [3. 4. 5.] 5.0 Array([[0., 1., 2.],",
        "       [3., 4., 5.]], dtype=float32)",
        "vmap 2.0",
        "vmap 5.0",
    ]


@pytest.mark.spec("DBG-9")
def test_debug_print_bad_fields_fail_while_tracing(jax, jnp):
    x = jnp.arange(3.0)
    with pytest.raises(TypeError, match="string indexing"):
        jax.jit(lambda v: jax.debug.print("{0[a]}", v))(x)
    with pytest.raises(IndexError):
        jax.jit(lambda v: jax.debug.print("{0[5]}", (v, v)))(x)
    with pytest.raises(KeyError):
        jax.jit(lambda v: jax.debug.print("{0[b]}", {"a": v}))(x)


def _fail(*args):
    return 1 / 0


@pytest.mark.spec("DBG-10")
def test_failing_debug_callback_eagerly_raises_its_own_error(jax, A):
    with pytest.raises(ZeroDivisionError):
        jax.debug.callback(_fail, A)
    with pytest.raises(ZeroDivisionError):
        jax.vmap(lambda x: jax.debug.callback(_fail, x))(A)
    with pytest.raises(ZeroDivisionError):
        jax.grad(lambda x: (jax.debug.callback(_fail, x), x)[1])(1.0)


@pytest.mark.spec("DBG-10")
def test_failing_debug_callback_in_a_compiled_program(jax, jnp, A):
    def f(x):
        jax.debug.callback(_fail, x)
        return x + 1
    runtime_error = jax.errors.JaxRuntimeError
    with pytest.raises(runtime_error, match="ZeroDivisionError"):
        jax.jit(f)(A).block_until_ready()
    with pytest.raises(runtime_error):
        jax.jit(jax.vmap(f))(A).block_until_ready()
    with pytest.raises(runtime_error):
        jax.grad(jax.jit(lambda x: f(x).sum()))(A)
    with pytest.raises(runtime_error):
        jax.lax.cond(True, f, lambda x: x, A).block_until_ready()
    with pytest.raises(runtime_error):
        jax.lax.scan(lambda c, x: (f(c), x), 0.0, jnp.arange(3.0))
    with pytest.raises(runtime_error):   # a KeyError is wrapped the same way
        jax.jit(lambda x: jax.debug.callback(lambda v: {}["k"], x))(A)
    with jax.disable_jit():
        with pytest.raises(ZeroDivisionError):
            jax.jit(f)(A)


@pytest.mark.spec("DBG-10")
def test_debug_print_format_failure_at_run_time(jax, jnp):
    x = jnp.float32(1.5)       # a float has no integer format 'd'
    with pytest.raises(ValueError):
        jax.debug.print("{0:d}", x)
    with pytest.raises(jax.errors.JaxRuntimeError):
        jax.jit(lambda v: jax.debug.print("{0:d}", v))(x)
        jax.effects_barrier()


@pytest.mark.spec("DBG-10")
def test_failing_pure_callback_always_raises_runtime_error(jax, jnp, A):
    shape = jax.ShapeDtypeStruct(A.shape, A.dtype)
    runtime_error = jax.errors.JaxRuntimeError
    with pytest.raises(runtime_error, match="ZeroDivisionError"):
        jax.pure_callback(_fail, shape, A)
    with pytest.raises(runtime_error):
        jax.jit(lambda x: jax.pure_callback(_fail, shape, x))(A)
    with pytest.raises(runtime_error):
        jax.pure_callback(5, shape, A)      # not callable: found when it runs
    with pytest.raises(runtime_error):
        jax.vmap(lambda x: jax.pure_callback(
            _fail, jax.ShapeDtypeStruct((), x.dtype), x,
            vmap_method="sequential"))(jnp.ones(3))
    io_callback = importlib.import_module(jax.__name__ + ".experimental").io_callback
    with pytest.raises(runtime_error):
        io_callback(_fail, shape, A)


@pytest.mark.spec("DBG-12")
@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.uint64, np.complex128])
def test_callback_results_cannot_be_64_bit_without_x64(jax, dtype):
    io_callback = importlib.import_module(jax.__name__ + ".experimental").io_callback
    declared = jax.ShapeDtypeStruct((), dtype)
    with pytest.raises(ValueError, match="64-bit"):
        jax.pure_callback(lambda x: np.zeros((), dtype), declared, 1.0)
    with pytest.raises(ValueError, match="64-bit"):
        jax.jit(lambda x: jax.pure_callback(lambda v: np.zeros((), dtype), declared, x))(1.0)
    with pytest.raises(ValueError, match="64-bit"):
        io_callback(lambda x: np.zeros((), dtype), np.zeros((), dtype), 1.0)


@pytest.mark.spec("DBG-12")
def test_callback_results_keep_64_bit_with_x64(jax, x64):
    out = jax.pure_callback(lambda x: np.float64(x) / 3, np.float64(0), 1.0)
    assert out.dtype == np.float64


def _checkify(jax):
    return importlib.import_module(jax.__name__ + ".experimental.checkify")


@pytest.mark.spec("DBG-11")
@pytest.mark.parametrize("errors", [5, None, "abc"])
def test_checkify_errors_must_be_a_set_of_categories(jax, jnp, errors):
    checkify = _checkify(jax)
    with pytest.raises(TypeError):
        checkify.checkify(lambda x: checkify.check(x[0] > 5, "boom"),
                          errors=errors)(jnp.ones(3))


@pytest.mark.spec("DBG-11")
def test_checkify_check_error_needs_an_error(jax):
    checkify = _checkify(jax)
    for bad in (5, None, [1]):
        with pytest.raises(TypeError, match="check_error takes an Error"):
            checkify.check_error(bad)


# ---------------------------------------------------------------------------
# argnums and the VJP function (AD-89, AD-90)
# ---------------------------------------------------------------------------

_ALL_AD = ["grad", "value_and_grad", "jacfwd", "jacrev", "hessian"]


@pytest.mark.spec("AD-89")
@pytest.mark.parametrize("api", _ALL_AD)
@pytest.mark.parametrize("argnums", [(0, 0), (1, 1), (0, -2), [1, 1]])
def test_repeated_argnums_raise_type_error(jax, api, argnums):
    with pytest.raises(TypeError):
        getattr(jax, api)(_mul, argnums=argnums)(2.0, 3.0)


@pytest.mark.spec("AD-89")
@pytest.mark.parametrize("api", _ALL_AD)
def test_empty_argnums_raise_value_error(jax, api):
    with pytest.raises(ValueError):
        getattr(jax, api)(_mul, argnums=())(2.0, 3.0)


@pytest.mark.spec("AD-89")
@pytest.mark.parametrize("api,error", [
    ("grad", TypeError), ("value_and_grad", TypeError),
    ("jacfwd", ValueError), ("jacrev", ValueError), ("hessian", ValueError)])
def test_argnums_past_the_end(jax, api, error):
    with pytest.raises(error):
        getattr(jax, api)(_mul, argnums=2)(2.0, 3.0)
    with pytest.raises(error):
        getattr(jax, api)(_mul, argnums=(0, 2))(2.0, 3.0)


@pytest.mark.spec("AD-89")
@pytest.mark.parametrize("api", _ALL_AD)
def test_argnums_below_minus_len_raise_value_error(jax, api):
    with pytest.raises(ValueError):
        getattr(jax, api)(_mul, argnums=-3)(2.0, 3.0)


@pytest.mark.spec("AD-89")
@pytest.mark.parametrize("api", _ALL_AD)
@pytest.mark.parametrize("argnums", [1.0, "a", None, (1.5,)])
def test_argnums_that_are_not_ints(jax, api, argnums):
    with pytest.raises(TypeError):
        getattr(jax, api)(_mul, argnums=argnums)(2.0, 3.0)


@pytest.mark.spec("AD-89")
def test_argnums_bool_and_numpy_integers(jax):
    assert float(jax.grad(_mul, argnums=True)(2.0, 3.0)) == 2.0
    assert float(jax.grad(_mul, argnums=-1)(2.0, 3.0)) == 2.0
    g = jax.grad(_mul, argnums=np.int64(1))(2.0, 3.0)
    assert not isinstance(g, tuple) and float(g) == 2.0
    v, g = jax.value_and_grad(_mul, argnums=np.int64(1))(2.0, 3.0)
    assert not isinstance(g, tuple) and float(g) == 2.0
    g = jax.jacfwd(_mul, argnums=np.int64(1))(2.0, 3.0)
    assert not isinstance(g, tuple) and float(g) == 2.0
    # jacrev (and so hessian) nests a NumPy integer's result in a tuple.
    g = jax.jacrev(_mul, argnums=np.int64(1))(2.0, 3.0)
    assert isinstance(g, tuple) and float(g[0]) == 2.0
    g = jax.grad(_mul, argnums=[0, 1])(2.0, 3.0)
    assert isinstance(g, tuple) and [float(v) for v in g] == [3.0, 2.0]


@pytest.mark.spec("AD-92")
def test_jacfwd_of_a_function_returning_its_input(jax):
    jac = jax.jacfwd(lambda x: (x, x))(1.5)
    assert [float(j) for j in jac] == [1.0, 1.0]


@pytest.mark.spec("AD-92")
@pytest.mark.parametrize("empty", [None, (), {}], ids=["None", "tuple", "dict"])
def test_jacobians_of_empty_pytrees(jax, empty):
    for api in ("jacfwd", "jacrev", "hessian"):
        with pytest.raises(ValueError):
            getattr(jax, api)(lambda x: 1.0)(empty)
    for api in ("jacrev", "hessian"):
        with pytest.raises(ValueError):
            getattr(jax, api)(lambda x: empty)(np.ones(3))
    assert jax.jacfwd(lambda x: empty)(1.0) == empty


@pytest.mark.spec("AD-90")
@pytest.mark.parametrize("n_args", [0, 2])
def test_vjp_function_takes_one_cotangent(jax, n_args):
    _, f_vjp = jax.vjp(_mul, 2.0, 3.0)
    with pytest.raises(TypeError):
        f_vjp(*[1.0] * n_args)
    _, f_vjp = jax.vjp(lambda x: (x, x), 1.0)
    assert [float(c) for c in f_vjp((2.0, 2.0))] == [4.0]


# ---------------------------------------------------------------------------
# custom_jvp / custom_vjp (AD-91)
# ---------------------------------------------------------------------------

@pytest.mark.spec("AD-91")
@pytest.mark.parametrize("n_rules", [1, 3])
def test_defjvps_needs_one_rule_per_argument(jax, n_rules):
    f = jax.custom_jvp(_mul)
    f.defjvps(*([lambda t, ans, x, y: t * y] + [None] * (n_rules - 1)))
    assert float(f(2.0, 3.0)) == 6.0      # the rules run only when differentiating
    with pytest.raises(ValueError):
        jax.jvp(f, (2.0, 3.0), (1.0, 1.0))
    with pytest.raises(ValueError):
        jax.grad(f)(2.0, 3.0)


@pytest.mark.spec("AD-91")
def test_negative_nondiff_argnums(jax):
    f = jax.custom_jvp(lambda x, n: x * n, nondiff_argnums=(-1,))
    f.defjvp(lambda n, primals, tangents: (primals[0] * n, tangents[0] * n))
    assert float(jax.jit(f, static_argnums=1)(2.0, 3)) == 6.0
    assert float(jax.grad(f)(2.0, 3)) == 3.0


@pytest.mark.spec("AD-91")
def test_nondiff_argnums_in_any_order(jax):
    # The rule receives the non-differentiable arguments in positional order.
    f = jax.custom_jvp(lambda a, x, b: a * x + b, nondiff_argnums=(2, 0))
    f.defjvp(lambda a, b, primals, tangents: (a * primals[0] + b, a * tangents[0]))
    assert float(jax.jit(f, static_argnums=(0, 2))(3, 2.0, 1)) == 7.0
    assert float(jax.grad(f, argnums=1)(3, 2.0, 1)) == 3.0
    assert float(jax.jvp(lambda x: f(3, x, 1), (2.0,), (1.0,))[1]) == 3.0


@pytest.mark.spec("AD-91")
def test_nondiff_argnums_that_are_not_ints(jax):
    f = jax.custom_jvp(_mul, nondiff_argnums=("a",))
    f.defjvp(lambda *args: args)
    with pytest.raises(TypeError):
        f(2.0, 3.0)
    with pytest.raises(TypeError):
        jax.jit(f)(2.0, 3.0)


# ---------------------------------------------------------------------------
# vmap axis names (VMAP-105)
# ---------------------------------------------------------------------------

@pytest.mark.spec("VMAP-105")
@pytest.mark.parametrize("option", ["axis_name", "spmd_axis_name"])
@pytest.mark.parametrize("name", [[1], {}, {"i"}])
def test_unhashable_axis_names(jax, A, option, name):
    mapped = jax.vmap(lambda x: x, **{option: name})   # accepted until called
    with pytest.raises(TypeError):
        mapped(A)


@pytest.mark.spec("VMAP-105")
def test_hashable_axis_names(jax, A):
    out = jax.vmap(lambda x: x * 2, axis_name=("a", "b"))(A)
    np.testing.assert_array_equal(out, np.full((2, 3), 2.0))
    out = jax.vmap(lambda x: jax.lax.psum(x, "i"), axis_name="i")(A)
    np.testing.assert_array_equal(out, np.full((2, 3), 2.0))


@pytest.mark.spec("VMAP-106")
def test_unhashable_axis_size(jax, jnp):
    with pytest.raises(ValueError, match="inconsistent sizes"):
        jax.vmap(lambda x: x, axis_size=[2, 3])(jnp.zeros(2))
    with pytest.raises(TypeError):
        jax.vmap(lambda x: x, in_axes=None, axis_size=[2, 3])(1.0)


@pytest.mark.spec("VMAP-106")
def test_mapped_int_too_wide(jax):
    with pytest.raises(OverflowError):
        jax.vmap(lambda x: x)(2**70)


# ---------------------------------------------------------------------------
# Issue 21, part 3: shardings, AD entry points, callbacks, pytrees, jit
# (SHD-98, SHD-101 .. SHD-103, AD-50, AD-54, AD-63, AD-64, AD-93, DBG-5,
# DBG-13, TREE-14, JIT-4, JIT-8, JIT-13)
# ---------------------------------------------------------------------------

def _mesh_of(jax, n):
    return jax.sharding.Mesh(np.array(jax.devices()[:n]), ("x",))


@pytest.mark.spec("SHD-102")
def test_shard_shape_of_an_unsplit_sharding_is_the_shape_as_given(jax):
    P = jax.sharding.PartitionSpec
    NS = jax.sharding.NamedSharding
    assert NS(_mesh_of(jax, 1), P(None, "x")).shard_shape(()) == ()
    assert NS(_mesh_of(jax, 1), P(None, "x")).shard_shape((2,)) == (2,)
    assert NS(_mesh_of(jax, 2), P()).shard_shape("abc") == "abc"
    assert jax.sharding.SingleDeviceSharding(jax.devices()[0]).shard_shape("abc") == "abc"
    assert NS(_mesh_of(jax, 2), P(None, "x")).shard_shape((2, 4)) == (2, 2)


@pytest.mark.spec("SHD-102")
@pytest.mark.parametrize("shape", [[2, 3], 5, None])
def test_shard_shape_takes_a_tuple(jax, shape):
    P = jax.sharding.PartitionSpec
    for s in (jax.sharding.NamedSharding(_mesh_of(jax, 1), P(None, "x")),
              jax.sharding.NamedSharding(_mesh_of(jax, 2), P("x")),
              jax.sharding.SingleDeviceSharding(jax.devices()[0])):
        with pytest.raises(TypeError):
            s.shard_shape(shape)


@pytest.mark.spec("SHD-102")
def test_shard_shape_of_a_split_sharding_needs_numbers(jax):
    s = jax.sharding.NamedSharding(_mesh_of(jax, 2), jax.sharding.PartitionSpec("x"))
    with pytest.raises(TypeError):
        s.shard_shape(("ab",))


@pytest.mark.spec("SHD-101")
@pytest.mark.parametrize("entry", [{}, [], (), set(), "", 0, None])
def test_false_partition_spec_entries_mean_not_split(jax, entry):
    P = jax.sharding.PartitionSpec
    spec = P(entry)
    assert spec == P(None) and spec[0] is None and len(spec) == 1
    jax.sharding.NamedSharding(_mesh_of(jax, 1), spec)


@pytest.mark.spec("SHD-101")
def test_partition_spec_odd_entries(jax, jnp):
    P = jax.sharding.PartitionSpec
    assert P(b"ab")[0] == b"ab"
    assert len(P(float("nan"))) == 1
    with pytest.raises(ValueError):
        P(np.ones(3))
    with pytest.raises(ValueError):
        P(jnp.ones(3))
    for bad in ({"a": 1}, slice(1), ("a", {})):
        with pytest.raises(TypeError):
            P(bad)
    spec = P("x", None, ("a", "b"))
    assert spec.index(["a", "b"]) == 2
    assert spec.count(()) == 1 and spec.count("x") == 1


@pytest.mark.spec("SHD-103")
def test_local_devices_process_index(jax, jnp):
    assert jax.local_devices(0.0) == jax.devices()
    assert jax.local_devices(np.int64(0)) == jax.devices()
    assert jax.local_devices(0.5) == []
    for bad in (1.5, 1, -1, True, float("nan"), 2**70):
        with pytest.raises(ValueError, match="Unknown process_index"):
            jax.local_devices(bad)
    for bad in (jnp.array(7), jnp.array(0), np.array(0), [0], "a", 1j):
        with pytest.raises(TypeError):
            jax.local_devices(bad)


@pytest.mark.spec("SHD-98")
def test_shard_map_out_specs_may_not_be_a_function(jax, jnp):
    P = jax.sharding.PartitionSpec
    f = jax.shard_map(lambda *a: a, mesh=_mesh_of(jax, 1), in_specs=P("x"),
                      out_specs=lambda x: x)
    with pytest.raises(TypeError, match="out_specs argument must be a pytree"):
        f(jnp.ones(2))


@pytest.mark.spec("AD-64")
def test_stop_gradient_of_numpy_values_is_canonical(jax):
    assert jax.lax.stop_gradient(np.ones(3)).dtype == np.float32
    assert jax.lax.stop_gradient(np.float64(1.0)).dtype == np.float32
    assert jax.lax.stop_gradient(np.int64(3)).dtype == np.int32
    out = jax.lax.stop_gradient({"a": np.ones(2), "b": 1.5})
    assert out["a"].dtype == np.float32 and isinstance(out["b"], float)


@pytest.mark.spec("AD-54")
def test_vjp_of_numpy_primals_is_canonical(jax):
    out, f_vjp = jax.vjp(lambda x: x, np.ones(3))
    assert out.dtype == np.float32 and out.shape == (3,)
    ct, = f_vjp(np.ones(3, np.float32))
    assert ct.dtype == np.float32
    value, grad = jax.value_and_grad(lambda x: x)(np.float64(3))
    assert value.dtype == np.float32 and grad.dtype == np.float32


@pytest.mark.spec("AD-93")
def test_checkpoint_passes_uncomputed_outputs_through(jax, jnp):
    out = jax.checkpoint(lambda *a: a)([[1, 2], [3]])
    leaves = jax.tree_util.tree_leaves(out)
    assert len(leaves) == 3
    assert all(isinstance(v, int) and not isinstance(v, jax.Array) for v in leaves)
    a, b = jax.checkpoint(lambda x: (x, x))(float("inf"))
    assert isinstance(a, float) and isinstance(b, float) and a == float("inf")
    assert not isinstance(a, jax.Array)
    c = jax.checkpoint(lambda x: 2.0)(1.0)
    assert isinstance(c, float) and not isinstance(c, jax.Array)
    n = jax.checkpoint(lambda x: x)(np.ones(3))
    assert isinstance(n, np.ndarray) and n.dtype == np.float32
    same, computed = jax.checkpoint(lambda x: (x, x + 1))(3)
    assert isinstance(same, int) and not isinstance(same, jax.Array)
    assert isinstance(computed, jax.Array) and computed.dtype == np.int32
    assert isinstance(jax.checkpoint(lambda x: x * 2)(1.0), jax.Array)
    assert isinstance(jax.checkpoint(lambda x: x)(jnp.ones(2)), jax.Array)
    assert jax.grad(jax.checkpoint(lambda x: (x, x * 3)[1]))(2.0) == 3.0


@pytest.mark.spec("AD-63")
def test_linear_transpose_refuses_bool_and_key_types(jax, jnp):
    for x in (jnp.array([True, False]), jax.random.key(0)):
        with pytest.raises(TypeError, match="linear_transpose only supports"):
            jax.linear_transpose(lambda *a: a, x)
    jax.linear_transpose(lambda x: x, jnp.arange(2))


@pytest.mark.spec("AD-50")
def test_jvp_checks_the_function_before_its_arguments(jax, jnp):
    with pytest.raises(TypeError, match="Expected a callable value"):
        jax.jvp((), (jnp.zeros((0, 3)),), (jnp.ones((2, 3)),))
    with pytest.raises(TypeError, match="Expected a callable value"):
        jax.jvp(1, 2, 3)


@pytest.mark.spec("AD-50")
@pytest.mark.parametrize("big", [2**62, 2**70])
def test_jvp_huge_int_tangent_is_a_dtype_mismatch(jax, jnp, big):
    for primal in (jnp.ones(3, jnp.complex64), jnp.ones(3), 1.0):
        with pytest.raises(TypeError, match="do not match"):
            jax.jvp(lambda x: x, (primal,), (big,))


@pytest.mark.spec("DBG-5")
def test_debug_callback_receives_a_key_as_a_key(jax):
    seen = []
    jax.debug.callback(lambda x: seen.append((x.shape, str(x.dtype))), jax.random.key(0))
    assert seen == [((), "key<fry>")]
    with pytest.raises(IndexError):
        jax.debug.callback(lambda x: x[0], jax.random.key(0))


@pytest.mark.spec("DBG-13")
@pytest.mark.parametrize("jit", [False, True])
def test_pure_callback_with_only_empty_results_is_not_run(jax, jnp, jit):
    calls = []

    def cb(y):
        calls.append(1)
        return y

    def f(x):
        return jax.pure_callback(cb, (jnp.zeros((0, 3)),
                                      jax.ShapeDtypeStruct((2, 0), jnp.int32)), x)
    a, b = (jax.jit(f) if jit else f)(jnp.arange(4.0))
    assert (a.shape, a.dtype, b.shape, b.dtype) == ((0, 3), np.float32, (2, 0), np.int32)
    assert calls == []
    g = jax.jit(lambda x: jax.pure_callback(lambda y: "abc", jnp.zeros((0, 3)), x))
    assert g(jnp.arange(4.0)).shape == (0, 3)


@pytest.mark.spec("DBG-13")
def test_pure_callback_with_a_nonempty_result_is_checked(jax, jnp):
    specs = (jax.ShapeDtypeStruct((0,), jnp.float32), jax.ShapeDtypeStruct((4,), jnp.float32))
    with pytest.raises(jax.errors.JaxRuntimeError):
        jax.pure_callback(lambda y: (y, y), specs, jnp.arange(4.0))


@pytest.mark.spec("TREE-14")
@pytest.mark.parametrize("is_leaf", [None, lambda p, x: False])
def test_is_leaf_takes_path_truth_is_asked(jax, jnp, is_leaf):
    for flag in (jnp.eye(3), np.ones(2)):
        with pytest.raises(ValueError):
            jax.tree_util.tree_flatten_with_path(None, is_leaf, is_leaf_takes_path=flag)
    leaves, _ = jax.tree_util.tree_flatten_with_path([1, (2,)], is_leaf_takes_path=np.ones(()))
    assert [v for _, v in leaves] == [1, 2]


@pytest.mark.spec("JIT-8")
def test_shape_dtype_struct_len(jax, jnp):
    assert len(jax.ShapeDtypeStruct((2,), jnp.float32)) == 2
    assert len(jax.ShapeDtypeStruct((0, 5), jnp.float32)) == 0
    with pytest.raises(TypeError):
        len(jax.ShapeDtypeStruct((), jnp.float32))


@pytest.mark.spec("JIT-13")
def test_shape_dtype_struct_checks_shape_then_dtype_then_sharding(jax, jnp):
    dev = jax.devices()[0]
    with pytest.raises(TypeError):
        jax.ShapeDtypeStruct(-1, jnp.float32, sharding=dev)
    with pytest.raises(TypeError):
        jax.ShapeDtypeStruct((0,), 2**70, sharding=dev)
    with pytest.raises(ValueError, match="sharding should be"):
        jax.ShapeDtypeStruct((0,), jnp.float32, sharding=dev)


@pytest.mark.spec("JIT-4")
def test_jit_checks_argument_types_then_statics_then_ranges(jax):
    f = jax.jit(lambda x, y: x, static_argnums=1)
    with pytest.raises(TypeError, match="as an abstract array"):
        f("abc", [1])
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        f(2**70, [1])
    with pytest.raises(OverflowError):
        f(2**70, 1)
    g = jax.jit(lambda x, y: x, static_argnames="y")
    with pytest.raises(TypeError, match="as an abstract array"):
        g("abc", y=[1])
    assert f(2.0, 3) == 2.0


@pytest.mark.spec("DBG-6")
@pytest.mark.parametrize("result", [
    lambda y: np.ones(2, np.int32), lambda y: np.ones(2, bool),
    lambda y: np.ones(2, np.float16), lambda y: [1.0, 2.0]])
def test_pure_callback_results_must_have_the_declared_dtype(jax, jnp, result):
    spec = jax.ShapeDtypeStruct((2,), jnp.float32)
    with pytest.raises(jax.errors.JaxRuntimeError):
        jax.pure_callback(result, spec, 1.0)


@pytest.mark.spec("DBG-6")
def test_pure_callback_results_are_canonicalized(jax, jnp):
    f32 = jax.ShapeDtypeStruct((2,), jnp.float32)
    assert jax.pure_callback(lambda y: np.ones(2), f32, 1.0).dtype == np.float32
    i32 = jax.ShapeDtypeStruct((2,), jnp.int32)
    assert jax.pure_callback(lambda y: np.ones(2, np.int64), i32, 1.0).dtype == np.int32
    assert jax.pure_callback(lambda y: 1.0, jax.ShapeDtypeStruct((), jnp.float32), 1.0) == 1.0


@pytest.mark.spec("DBG-6")
@pytest.mark.parametrize("spec", [np.array(["a", "b"]), np.array([object()])])
def test_pure_callback_result_dtype_must_be_a_jax_type(jax, spec):
    with pytest.raises(TypeError):
        jax.pure_callback(lambda y: y, spec, 1.0)
    with pytest.raises(TypeError):
        jax.jit(lambda x: jax.pure_callback(lambda y: y, spec, x))(1.0)


@pytest.mark.spec("SHD-100")
@pytest.mark.parametrize("count", [0, 2])
def test_mesh_axis_types_one_per_axis(jax, count):
    types = (jax.sharding.AxisType.Auto,) * count
    with pytest.raises(ValueError, match="Number of axis names should match"):
        jax.make_mesh((1,), ("x",), axis_types=types)
    with pytest.raises(ValueError, match="Number of axis names should match"):
        jax.sharding.Mesh(np.array(jax.devices()[:1]), ("x",), axis_types=types)


@pytest.mark.spec("SHD-100")
def test_mesh_axis_types_list_is_one_entry(jax):
    # Only a tuple lists the types; a list is taken as one (bad) entry.
    with pytest.raises(TypeError):
        jax.make_mesh((1,), ("x",), axis_types=[jax.sharding.AxisType.Auto])


@pytest.mark.spec("SHD-100")
def test_mesh_of_ragged_devices(jax):
    d = jax.devices()[0]
    for devices, names in (([[1, 2], [3]], ("x",)), ([[d], [d, d]], ("x", "y"))):
        with pytest.raises(ValueError):
            jax.sharding.Mesh(devices, names)
    assert jax.sharding.Mesh([[d]], ("x", "y")).shape == {"x": 1, "y": 1}


@pytest.mark.spec("SHD-102")
def test_shard_shape_of_a_sharding_with_an_unhashable_device(jax):
    with pytest.raises(TypeError):
        jax.sharding.SingleDeviceSharding(jax.devices()).shard_shape((2, 3))
    assert jax.sharding.SingleDeviceSharding("abc").shard_shape((2, 3)) == (2, 3)


@pytest.mark.spec("SHD-98")
def test_shard_map_out_spec_too_long_before_repeated_axis(jax):
    P = jax.sharding.PartitionSpec
    f = jax.shard_map(lambda *a: a, mesh=_mesh_of(jax, 1), in_specs=P(),
                      out_specs=P("x", "x"))
    with pytest.raises(ValueError, match="too long"):
        f(2)


@pytest.mark.spec("SHD-99")
@pytest.mark.parametrize("name", [[1], {"a": 1}, "key"])
def test_pmap_axis_name_must_be_hashable(jax, jnp, name):
    if name == "key":
        name = jax.random.PRNGKey(0)
    with pytest.raises(TypeError):
        jax.pmap(lambda c: c, axis_name=name)(jnp.zeros((0, 3)))
    # No mapped axis at all is reported first.
    with pytest.raises(ValueError, match="at least one argument with a mapped axis"):
        jax.pmap(lambda c: c, axis_name=name)(2)


@pytest.mark.spec("JIT-13")
def test_shape_dtype_struct_dtype_from_a_jax_array(jax, jnp):
    with pytest.warns(DeprecationWarning, match="dtype=arr.dtype"):
        s = jax.ShapeDtypeStruct((2, 3), jnp.float32(1))
    assert s.dtype == np.float32
    with pytest.warns(DeprecationWarning):
        assert jax.ShapeDtypeStruct((2,), jnp.ones(3, jnp.int8)).dtype == np.int8
    with pytest.raises(TypeError):
        jax.ShapeDtypeStruct((2,), np.ones(2))
    with pytest.raises(ValueError):
        jax.ShapeDtypeStruct((2,), jax.random.key(0))


@pytest.mark.spec("AD-93")
def test_checkpoint_needs_a_function(jax, jnp):
    with pytest.raises(TypeError):
        jax.checkpoint(policy=None)
    for fun in (None, 3):
        wrapped = jax.checkpoint(fun)
        with pytest.raises(TypeError):
            wrapped(jnp.float32(2.0))


@pytest.mark.spec("DBG-5")
@pytest.mark.parametrize("jit", [False, True])
def test_debug_callback_passes_non_array_leaves_as_they_are(jax, jnp, jit):
    seen = []

    def f(y):
        jax.debug.callback(lambda a, b, c, w: seen.append((a, b, c, float(w[1]))),
                           "abc", jnp.float32, object, w=["q", y])
    (jax.jit(f) if jit else f)(2.0)
    assert seen == [("abc", jnp.float32, object, 2.0)]
