"""Conformance: the jitted callable as an object, values JAX will not
abstractify, user primitives without rules, float0 values, tokens and
device_put details met by JAX's own api_test (SPEC TRC-8, JIT-14, EXT-13,
AD-96, NP-226, DT-19, LXM-37, VMAP-109, SHD-104)."""
import contextlib
import enum
import functools
import io
import importlib
import types
import unittest.mock

import numpy as np
import pytest


@pytest.fixture(scope="module")
def lax(jax):
    return importlib.import_module(jax.__name__ + ".lax")


@pytest.fixture(scope="module")
def extend_core(jax):
    return importlib.import_module(jax.__name__ + ".extend.core")


# ---------------------------------------------------------------------------
# TRC-8: values JAX will not abstractify
# ---------------------------------------------------------------------------

@pytest.mark.spec("TRC-8")
def test_masked_arrays_are_refused(jax, jnp):
    masked = np.ma.array([1, 2, 3], mask=[True, False, True])
    for call in (lambda: jax.jit(lambda x: x)(masked), lambda: jnp.asarray(masked),
                 lambda: jnp.sin(masked.astype(np.float32))):
        with pytest.raises(ValueError, match="numpy masked arrays are not supported"):
            call()


class _Wrapped:
    def __init__(self, value):
        self.value = value

    def __jax_array__(self):
        return self.value


@pytest.mark.spec("TRC-8")
def test_jax_array_protocol_only_when_converted_explicitly(jax, jnp):
    x = _Wrapped(jnp.arange(3.0))
    np.testing.assert_array_equal(np.asarray(jnp.asarray(x)), [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(np.asarray(jnp.array(x)), [0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match=r"Triggering __jax_array__\(\) during "
                                         "abstractification is no longer supported"):
        jax.jit(lambda v: v)(x)


class _Color(enum.IntEnum):
    RED = 1


@pytest.mark.spec("TRC-8")
def test_int_enum_members_are_weak_ints(jax, jnp):
    out = jax.jit(lambda: _Color.RED)()
    assert int(out) == 1 and out.dtype == jnp.int32 and out.weak_type
    total = jnp.add(_Color.RED, 1)
    assert int(total) == 2 and total.weak_type


@pytest.mark.spec("TRC-8")
def test_non_numeric_numpy_operand_message(jnp, lax):
    with pytest.raises(TypeError, match="Error interpreting argument to add as a JAX "
                                        "value.*passed to add at position 1"):
        lax.add(jnp.array(7), np.array("hello"))


@pytest.mark.spec("TRC-8")
def test_tracer_sharding_points_to_typeof(jax):
    with pytest.raises(AttributeError, match=r"jax\.typeof"):
        jax.jit(lambda x: x.sharding)(1.0)


# ---------------------------------------------------------------------------
# JIT-14: the jitted callable, AOT stages, output buffers
# ---------------------------------------------------------------------------

@pytest.mark.spec("JIT-14")
def test_wrapper_repr_attributes_and_state(jax):
    class BadRepr:
        def __call__(self):
            return None

        def __repr__(self):
            raise ValueError("no repr")

    assert repr(jax.jit(BadRepr())) == "<PjitFunction>"

    def f(x):
        """Adds one."""
        return x + 1
    f.some_value = 4
    jf = jax.jit(f)
    assert jf.some_value == 4 and jf.__name__ == "f" and jf.__doc__ == f.__doc__
    assert jf.__getstate__()["function_name"] == "f"
    assert jax.jit(functools.partial(f)).__getstate__()["function_name"] == "f"


@pytest.mark.spec("JIT-14")
def test_unweakrefable_callable(jax):
    class Slotted:
        __slots__ = ()

        def __call__(self, x):
            return x + 1

    jf = jax.jit(Slotted())          # building the wrapper is fine
    with pytest.raises(TypeError, match="cannot create weak reference"):
        jf(3)
    assert "add" in str(jax.make_jaxpr(Slotted())(3))


@pytest.mark.spec("JIT-14")
def test_static_argument_eq_errors_are_reported(jax):
    class HashOnly:
        def __hash__(self):
            return 1

        def __eq__(self, other):
            raise NotImplementedError("no comparing")

    jf = jax.jit(lambda x, y: x + 3, static_argnums=1)
    with pytest.raises(ValueError, match="static arguments should be comparable using __eq__"):
        jf(1, HashOnly())
        jf(1, HashOnly())


@pytest.mark.spec("JIT-14")
def test_jit_outputs_are_fresh_buffers(jax, jnp):
    x = jnp.array([1, 2, 3])
    y = jax.jit(lambda v: v)(x)
    assert y.unsafe_buffer_pointer() != x.unsafe_buffer_pointer()
    a, b = jax.jit(lambda v: (v, v))(x)
    assert a.unsafe_buffer_pointer() != b.unsafe_buffer_pointer()
    np.testing.assert_array_equal(np.asarray(a), [1, 2, 3])


@pytest.mark.spec("JIT-14")
def test_device_put_may_alias(jax):
    arr = jax.device_put(np.arange(8), jax.devices()[0])
    assert jax.device_put(arr, may_alias=True, donate=False) is arr
    copied = jax.device_put(arr, may_alias=False, donate=False)
    assert copied is not arr
    np.testing.assert_array_equal(np.asarray(copied), np.arange(8))
    with pytest.raises(ValueError, match="may_alias and donate cannot be True"):
        jax.device_put(arr, may_alias=True, donate=True)


@pytest.mark.spec("JIT-14")
def test_lowered_and_compiled_in_avals_and_donation(jax):
    jf = jax.jit(lambda x, y: x * y, donate_argnums=0)
    lowered = jf.trace(np.ones(3, np.float32), 2.0).lower(lowering_platforms=("cpu",))
    args, kwargs = lowered.in_avals
    assert kwargs == {} and [a.shape for a in args] == [(3,), ()]
    assert lowered.donate_argnums == (0,)
    compiled = lowered.compile()
    assert compiled.donate_argnums == (0,)
    assert [a.shape for a in compiled.in_avals[0]] == [(3,), ()]


@pytest.mark.spec("JIT-14")
def test_eval_shape_carries_out_shardings(jax):
    s = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    out = jax.jit(lambda x: x * 2, out_shardings=s).eval_shape(np.arange(8))
    assert out.sharding == s and out.shape == (8,)


@pytest.mark.spec("JIT-14")
def test_duck_typed_abstract_arguments(jax, jnp):
    spec = types.SimpleNamespace(shape=(3,), dtype=np.dtype(np.float32))
    out = jax.eval_shape(lambda x: jnp.sum(x * 2), spec)
    assert out.shape == () and out.dtype == jnp.float32
    jaxpr = jax.make_jaxpr(lambda x: x + 2.0)(spec)
    assert jaxpr.in_avals[0].shape == (3,)
    transposed = jax.linear_transpose(lambda x: 2 * x, spec)(jnp.ones(3))
    np.testing.assert_allclose(np.asarray(transposed[0]), [2.0, 2.0, 2.0])
    with pytest.raises(TypeError, match="is not a valid JAX type"):
        jax.jit(lambda x: x + 1)(spec)


@pytest.mark.spec("JIT-14")
def test_make_jaxpr_names_and_copy_to_host_async(jax):
    def foo(x):
        return x
    jfoo = jax.make_jaxpr(foo)
    assert jfoo.__name__ == "make_jaxpr(foo)" and jfoo.__module__ == "jax"
    mock = unittest.mock.Mock()
    mock.copy_to_host_async.return_value = None
    tree = [object(), 1, mock]
    assert jax.copy_to_host_async(tree) is tree
    mock.copy_to_host_async.assert_called_once()


# ---------------------------------------------------------------------------
# EXT-13: user primitives without rules
# ---------------------------------------------------------------------------

@pytest.mark.spec("EXT-13")
def test_user_primitive_missing_rules(jax, extend_core):
    foo_p = extend_core.Primitive("foo_ext13")
    with pytest.raises(NotImplementedError, match="Evaluation rule for 'foo_ext13' not implemented"):
        foo_p.bind(1.0)
    with pytest.raises(NotImplementedError, match="Abstract evaluation for 'foo_ext13' not implemented"):
        jax.jit(foo_p.bind)(1.0)
    foo_p.def_abstract_eval(lambda x: x)
    with pytest.raises(NotImplementedError, match="rule for primitive 'foo_ext13' not found"):
        jax.jit(foo_p.bind)(1.0)


@pytest.mark.spec("EXT-13")
def test_user_primitive_abstract_eval_result_kind(jax, extend_core):
    bar_p = extend_core.Primitive("bar_ext13")
    bar_p.def_abstract_eval(lambda x: [x])
    bar_p.def_impl(lambda x: x)
    with pytest.raises(ValueError, match=r"bar_ext13\.abstract_eval\(\) method should "
                                         "return a tuple or a list iff"):
        jax.jit(bar_p.bind)(1.0)


# ---------------------------------------------------------------------------
# AD-96: tangents given to a linearized function
# ---------------------------------------------------------------------------

@pytest.mark.spec("AD-96")
def test_linearized_function_checks_tangent_types(jax):
    float0 = jax.dtypes.float0
    _, f_jvp = jax.linearize(lambda x: x, 1.0)
    assert float(f_jvp(2.0)) == 2.0
    with pytest.raises(ValueError, match="tangent values inconsistent"):
        f_jvp(1)
    _, g_jvp = jax.linearize(lambda x: x, np.ones(2, np.int32))
    assert g_jvp(np.zeros(2, float0)).dtype == float0
    with pytest.raises(ValueError, match="expected float0"):
        g_jvp(np.ones(2, np.int32))


@pytest.mark.spec("AD-96")
def test_vjp_function_called_with_several_arguments(jax):
    def f(x):
        return x, x
    _, pullback = jax.vjp(f, 1.0)
    with pytest.raises(TypeError, match="f was called with 2 arguments"):
        pullback(1.0, 1.0)


# ---------------------------------------------------------------------------
# NP-226, DT-19, LXM-37, VMAP-109, SHD-104
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-226")
def test_full_like_of_committed_array_stays_committed(jax, jnp):
    x = jax.device_put(jnp.arange(3.0), jax.devices()[0])
    assert x.committed
    assert jnp.full_like(x, 2.0).committed
    assert jnp.zeros_like(x).committed
    assert not jnp.full_like(jnp.arange(3.0), 2.0).committed


@pytest.mark.spec("DT-19")
def test_float0_values_take_no_operations(jax, jnp, lax):
    zero = jax.grad(lambda x: x + 0.0, allow_int=True)(1)
    assert zero.dtype == jax.dtypes.float0
    with pytest.raises(TypeError, match="Called add with a float0 array. float0s do "
                                        "not support any operations by design"):
        zero + jnp.zeros(())
    with pytest.raises(TypeError, match="Called add with a float0 at position 0"):
        lax.add(zero, jnp.zeros(()))


@pytest.mark.spec("DT-19")
def test_jit_returns_float0_as_numpy(jax):
    grad_f = jax.grad(lambda x, i: x[i], argnums=(0, 1), allow_int=True)
    grad_x, grad_i = jax.jit(grad_f)(np.ones(2), 1)
    np.testing.assert_array_equal(np.asarray(grad_x), [0.0, 1.0])
    assert isinstance(grad_i, np.ndarray) and grad_i.dtype == jax.dtypes.float0
    _, pullback = jax.vjp(lambda x, y: x + y, 2, 1)
    tx, ty = jax.jit(pullback)(np.zeros((), jax.dtypes.float0))
    assert tx.dtype == ty.dtype == jax.dtypes.float0


@pytest.mark.spec("LXM-37")
def test_tokens_cross_jit(jax, jnp, lax):
    token = lax.create_token()
    arr, out = jax.jit(lambda a, t: (a, t))(jnp.ones(2), token)
    assert type(out) is type(token) and out is not token
    assert type(jax.jit(lax.create_token)(1.0)) is type(token)
    seven, captured = jax.jit(lambda x: (x + 2, token))(5)
    assert int(seven) == 7 and type(captured) is type(token)


@pytest.mark.spec("VMAP-109")
def test_vmap_out_axes_none_names_the_axis(jax, jnp):
    with pytest.raises(ValueError, match=r"vmap has mapped output \(axis_name=foo\) "
                                         "but out_axes is None"):
        jax.vmap(lambda x: x, out_axes=None, axis_name="foo")(jnp.arange(3))
    with pytest.raises(ValueError, match="got axis spec None but output was batched"):
        jax.vmap(lambda x: x, out_axes=None)(jnp.arange(3))


@pytest.mark.spec("SHD-104")
def test_device_put_prefix_mismatch_lists_every_mismatch(jax, jnp):
    x = {"a": jnp.arange(2), "b": jnp.arange(3)}
    with pytest.raises(ValueError, match=r"(?s)device_put device specification must be "
                                         r"a tree prefix.*Mismatch details \(2 found\)"):
        jax.device_put(x, device={"a": [None, None], "b": (None, None)})
    placed = jax.device_put(x, device={"a": None, "b": jax.devices()[0]})
    np.testing.assert_array_equal(np.asarray(placed["b"]), [0, 1, 2])


@pytest.mark.spec("AD-103")
def test_linearize_saves_no_residual_for_dead_tangent_work(jax, jnp):
    ckpt = importlib.import_module(jax.__name__ + ".ad_checkpoint")
    x = jnp.asarray(np.array([0.5, -1.0, 2.0, 0.0], np.float32))

    def f(x):       # the maximum's tangent is cut by stop_gradient
        m = jax.lax.stop_gradient(jnp.max(x))
        return jnp.sum(jnp.exp(x - m))
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        ckpt.print_saved_residuals(f, x)
    lines = [line for line in buf.getvalue().splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("f32[4] output of exp")
    np.testing.assert_allclose(np.asarray(jax.grad(f)(x)),
                               np.exp(np.asarray(x) - 2.0), rtol=1e-6)


@pytest.mark.spec("LXM-38")
def test_round_is_exact_and_keeps_the_sign_of_zero(jnp, lax):
    x = np.array([-0.0, -0.3, 0.3, -0.7, 2.5, -2.5, 0.49999997, np.inf, 8388609.0],
                 np.float32)
    got = np.asarray(lax.round(x))
    want = np.array([-0.0, -0.0, 0.0, -1.0, 3.0, -3.0, 0.0, np.inf, 8388609.0], np.float32)
    np.testing.assert_array_equal(got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want))
    assert np.signbit(np.asarray(jnp.floor_divide(0.0, -1.0)))


@pytest.mark.spec("AD-104")
def test_vjp_types_python_scalar_primals(jax, jnp):
    out = jax.vjp(lambda x: x, 1.0)[0]
    assert isinstance(out, float) and str(out) == "1.0" and out.dtype == jnp.float32
    assert type(out + 1.0) is float
    assert jax.vjp(lambda x: x, 2)[0].dtype == jnp.int32
    assert jax.vjp(lambda x: x, True)[0] is True

    def fun(x):
        with jax.enable_x64(True):
            return jnp.sin(x)
    g = jax.grad(fun)(0.5)
    assert g.dtype == jnp.float32
    np.testing.assert_allclose(float(g), np.cos(0.5), rtol=1e-6)


@pytest.mark.spec("NP-227")
def test_iinfo_finfo_of_arrays(jnp):
    assert jnp.iinfo(jnp.asarray(1, dtype=jnp.int8)).max == 127
    assert jnp.finfo(jnp.asarray(1.0, dtype=jnp.float32)).bits == 32
    assert jnp.iinfo(jnp.asarray(1, dtype=jnp.int16).dtype).min == -32768


@pytest.mark.spec("LXM-29")
def test_complex_log1p_of_zero_dimensional_operands(jnp):
    for z in (0j, 0.5 + 1j, -0.25 - 2j):
        got = complex(jnp.log1p(jnp.asarray(z, dtype=jnp.complex64)))
        np.testing.assert_allclose(got, np.log1p(np.complex128(z)), rtol=2e-6)
    grid = jnp.asarray(np.array([[0.5 + 1j]], np.complex64))
    assert jnp.log1p(grid).shape == (1, 1)


@pytest.mark.spec("LXM-39")
def test_division_by_a_scalar_multiplies_by_its_reciprocal(jax, jnp, lax):
    x = np.random.default_rng(3).uniform(-100, 100, 4096).astype(np.float32)
    by_reciprocal = x * (np.float32(1) / np.float32(7))
    exact = x / np.float32(7)
    assert not np.array_equal(by_reciprocal, exact)     # the rule is visible
    np.testing.assert_array_equal(np.asarray(jnp.asarray(x) / 7), by_reciprocal)
    np.testing.assert_array_equal(np.asarray(jax.jit(lambda v, s: v / s)(x, np.float32(7))),
                                  by_reciprocal)
    np.testing.assert_array_equal(
        np.asarray(lax.div(jnp.asarray(x), jnp.full(x.shape, 7, jnp.float32))), exact)
