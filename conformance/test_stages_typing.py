"""Conformance: jax.stages, jax.typing and make_user_context (SPEC API-11,
API-12)."""
import typing

import numpy as np
import pytest


@pytest.mark.spec("API-11")
def test_stage_classes(jax, jnp):
    stages = jax.stages
    f = jax.jit(lambda x, y: x * y)
    assert isinstance(f, stages.Wrapped)
    traced = f.trace(1.0, jnp.ones(2))
    lowered = f.lower(1.0, jnp.ones(2))
    compiled = lowered.compile()
    assert isinstance(traced, stages.Traced)
    assert isinstance(lowered, stages.Lowered)
    assert isinstance(compiled, stages.Compiled)
    np.testing.assert_allclose(compiled(2.0, jnp.ones(2)), [2.0, 2.0])
    assert stages.CompilerOptions is not None


@pytest.mark.spec("API-11")
def test_args_info(jax, jnp):
    f = jax.jit(lambda x, y: x + y)
    args, kwargs = f.lower(1.0, jnp.ones(2, jnp.int32)).args_info
    assert kwargs == {}
    a, b = args
    assert isinstance(a, jax.stages.ArgInfo)
    assert (a.shape, a.dtype, a.donated) == ((), np.dtype("float32"), False)
    assert (b.shape, b.dtype) == ((2,), np.dtype("int32"))
    assert repr(a) == ("ArgInfo(_aval=ShapedArray(float32[], weak_type=True), "
                       "donated=False)")
    g = jax.jit(lambda x: x * 2, donate_argnums=0)
    (info,), _ = g.trace(jnp.ones(3)).args_info
    assert info.donated is True


@pytest.mark.spec("API-11")
def test_typing_aliases(jax, jnp):
    array_like = typing.get_args(jax.typing.ArrayLike)
    assert jax.Array in array_like and np.ndarray in array_like
    assert {bool, int, float, complex} <= set(array_like)
    dtype_like = typing.get_args(jax.typing.DTypeLike)
    assert str in dtype_like and np.dtype in dtype_like

    def f(x: jax.typing.ArrayLike, d: jax.typing.DTypeLike = None) -> jax.Array:
        return jnp.asarray(x, dtype=d)
    assert f(3, "float32").dtype == np.float32


@pytest.mark.spec("API-12")
def test_make_user_context_keys_jit_cache(jax):
    ctx = jax.make_user_context(default_value=0)
    traces = []

    @jax.jit
    def f(x):
        traces.append(ctx.value)
        return x + 1
    f(1.0)
    with ctx(1):
        assert ctx.value == 1
        f(1.0)
        f(1.0)
    f(1.0)
    assert traces == [0, 1]
    assert ctx.value == 0
    ctx.set_global(2)
    try:
        assert ctx.get_global() == 2
        f(1.0)
        assert traces == [0, 1, 2]
    finally:
        ctx.set_global(0)


@pytest.mark.spec("API-12")
def test_context_manager_names(jax):
    for name in ["log_compiles", "explain_cache_misses", "enable_checks",
                 "check_tracer_leaks", "enable_custom_prng", "no_tracing",
                 "no_execution", "thread_guard", "allow_f16_reductions",
                 "auto_pcast", "softmax_custom_jvp",
                 "remove_size_one_mesh_axis_from_type",
                 "jax2tf_associative_scan_reductions"]:
        option = getattr(jax, name)
        flag = [k for k in jax.config.values if k.endswith(name)][0]
        with option(True):
            assert jax.config.values[flag] is True, name
    with jax.array_garbage_collection_guard("allow"):
        assert jax.config.jax_array_garbage_collection_guard == "allow"
    with jax.default_device(jax.devices()[0]):
        assert jax.config.jax_default_device == jax.devices()[0]
    with jax.default_device("cpu"):
        assert float(jax.numpy.ones(()) + 1) == 2.0


@pytest.mark.spec("API-12")
def test_named_call_and_scope(jax, jnp):
    def f(x):
        return jnp.sin(x) * 2
    g = jax.named_call(f, name="foo")
    np.testing.assert_allclose(g(1.0), np.sin(1.0) * 2, rtol=1e-6)
    assert str(jax.make_jaxpr(g)(1.0)) == str(jax.make_jaxpr(f)(1.0))

    def h(x):
        with jax.named_scope("bar"):
            return f(x)
    assert str(jax.make_jaxpr(h)(1.0)) == str(jax.make_jaxpr(f)(1.0))
    assert float(jax.named_scope("s")(f)(0.0)) == 0.0
    with pytest.raises(TypeError, match="named_scope name argument must be a string."):
        jax.named_scope(3)


@pytest.mark.spec("API-12")
def test_fwd_and_bwd(jax, jnp):
    def f(x, w):
        return jnp.sin(x) * w
    fwd, bwd = jax.fwd_and_bwd(f, argnums=0)
    y, res = fwd(0.5, 3.0)
    np.testing.assert_allclose(y, np.sin(0.5) * 3, rtol=1e-6)
    np.testing.assert_allclose(bwd(res, 1.0), np.cos(0.5) * 3, rtol=1e-6)
    fwd, bwd = jax.fwd_and_bwd(f, argnums=(0, 1), jitted=False)
    y, res = fwd(0.5, 3.0)
    dx, dw = bwd(res, 1.0)
    np.testing.assert_allclose([dx, dw], [np.cos(0.5) * 3, np.sin(0.5)], rtol=1e-6)

    def g(x):
        return x * x, jnp.ones(2)
    fwd, bwd = jax.fwd_and_bwd(g, argnums=0, has_aux=True)
    y, res, aux = fwd(3.0)
    assert float(y) == 9.0 and aux.shape == (2,)
    assert float(bwd(res, 1.0)) == 6.0
