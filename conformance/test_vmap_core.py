"""Batching machinery: elementwise rules, unmapped values, composition with
autodiff, and ``jit``/``checkpoint``/``custom_jvp``/``custom_vjp`` under
``vmap`` (SPEC VMAP-1 .. VMAP-6, VMAP-90 .. VMAP-92)."""
import numpy as np
import pytest


def close(got, want, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol)


def prims(jaxpr):
    return [e.primitive.name for e in jaxpr.eqns]


XS = np.array([0.5, 1.0, 2.0], np.float32)


# -- VMAP-1 .. VMAP-6: the machinery -------------------------------------------

@pytest.mark.spec("VMAP-1")
def test_tracer_has_per_example_shape(jax, jnp):
    seen = []

    def f(x):
        seen.append((x.shape, x.dtype, x.ndim))
        return x.sum()

    out = jax.vmap(f, in_axes=1)(jnp.ones((2, 5, 3), jnp.int32))
    assert seen == [((2, 3), np.dtype("int32"), 2)]
    assert out.shape == (5,) and out.dtype == np.int32


@pytest.mark.spec("VMAP-1")
def test_tracer_bool_conversion_raises(jax, jnp):
    # G-CONC-014
    with pytest.raises(jax.errors.TracerBoolConversionError) as info:
        jax.vmap(lambda x: x if x > 0 else -x)(jnp.array([-1.0, 2.0]))
    assert str(info.value).splitlines()[0] == (
        "Attempted boolean conversion of traced array with shape bool[].")


@pytest.mark.spec("VMAP-1")
def test_boolean_mask_under_vmap_raises(jax, jnp):
    # G-DYN-007: vmap traces with abstract values, so the mask is not concrete.
    with pytest.raises(jax.errors.NonConcreteBooleanIndexError):
        jax.vmap(lambda x: x[x > 0].sum())(jnp.ones((2, 3)))


@pytest.mark.spec("VMAP-1")
def test_print_under_vmap_shows_batched_aval(jax, jnp, capsys):
    # G-PURE-013, the vmap half
    def f(x):
        print(type(x).__name__, x)
        return x * 2.0

    jax.vmap(f)(jnp.arange(2.0))
    assert capsys.readouterr().out == (
        "BatchTracer VmapTracer(aval=float32[], batched=float32[2])\n")


@pytest.mark.spec("VMAP-2")
def test_elementwise_with_unmapped_operand_jaxpr(jax, jnp):
    f = jax.vmap(lambda a, b: a + b, in_axes=(0, None))
    jaxpr = jax.make_jaxpr(f)(jnp.ones((3, 4)), jnp.ones(4))
    assert prims(jaxpr) == ["broadcast_in_dim", "add"]
    assert jaxpr.eqns[0].outvars[0].aval.shape == (1, 4)
    close(f(jnp.ones((3, 4)), jnp.arange(4.0)), np.ones((3, 4)) + np.arange(4.0))


@pytest.mark.spec("VMAP-2")
def test_elementwise_with_different_mapped_axes(jax, jnp):
    a = np.arange(12.0, dtype=np.float32).reshape(4, 3)
    b = np.arange(12.0, dtype=np.float32).reshape(3, 4) * 10
    f = jax.vmap(lambda x, y: x * y, in_axes=(1, 0))
    assert prims(jax.make_jaxpr(f)(a, b)) == ["transpose", "mul"]
    close(f(a, b), a.T * b)


@pytest.mark.spec("VMAP-2")
def test_elementwise_scalar_operand_keeps_axis(jax, jnp):
    a = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    f = jax.vmap(lambda x: jnp.sin(x) * 2.0 + 1.0, in_axes=1, out_axes=1)
    assert prims(jax.make_jaxpr(f)(a)) == ["sin", "mul", "add"]
    close(f(a), np.sin(a) * 2 + 1)


@pytest.mark.spec("VMAP-2")
def test_elementwise_weak_type_kept(jax, jnp):
    out = jax.vmap(lambda x: x * 2)(jnp.arange(3))
    assert out.dtype == np.int32
    out = jax.vmap(lambda x, y: x + y, in_axes=(0, None))(jnp.arange(3.0), 1)
    assert out.dtype == np.float32


@pytest.mark.spec("VMAP-3")
def test_equation_count_independent_of_batch(jax, jnp):
    def f(x, y):
        return jnp.tanh(x * y + 1.0) - jnp.exp(-x)

    counts = {len(jax.make_jaxpr(jax.vmap(f, in_axes=(0, None)))(
        jnp.ones((n, 3)), jnp.ones(3)).eqns) for n in (2, 64)}
    assert len(counts) == 1


@pytest.mark.spec("VMAP-4")
def test_unmapped_work_is_not_batched(jax, jnp):
    def f(x, w):
        v = jnp.cos(w) * 3.0          # depends on w only: computed once
        return x + v

    jaxpr = jax.make_jaxpr(jax.vmap(f, in_axes=(0, None)))(jnp.ones((5, 2)), jnp.ones(2))
    cos = [e for e in jaxpr.eqns if e.primitive.name == "cos"]
    assert cos[0].outvars[0].aval.shape == (2,)


@pytest.mark.spec("VMAP-4")
def test_constant_output_broadcast_at_exit(jax, jnp):
    f = jax.vmap(lambda x: 1.0)
    jaxpr = jax.make_jaxpr(f)(jnp.ones((4, 3)))
    assert prims(jaxpr) == ["broadcast_in_dim"]
    out = f(jnp.ones((4, 3)))
    assert out.shape == (4,) and out.dtype == np.float32


@pytest.mark.spec("VMAP-5")
def test_per_example_grad_accumulates_tangents(jax, jnp):
    # x appears twice, so its cotangents are summed (add_any) under vmap.
    g = jax.vmap(jax.grad(lambda x: jnp.sin(x) * x + x * x))
    close(g(XS), np.cos(XS) * XS + np.sin(XS) + 2 * XS)


@pytest.mark.spec("VMAP-5")
def test_stop_gradient_under_vmap(jax, jnp):
    g = jax.vmap(jax.grad(lambda x: x * jax.lax.stop_gradient(x)))
    close(g(XS), XS)


@pytest.mark.spec("VMAP-6")
def test_outer_tracer_is_unmapped_constant(jax, jnp):
    def f(w):
        return jax.vmap(lambda x: x * w)(jnp.asarray(XS)).sum()

    close(jax.grad(f)(2.0), XS.sum())


@pytest.mark.spec("VMAP-6")
def test_escaped_batch_tracer(jax, jnp):
    leaked = []
    jax.vmap(lambda x: leaked.append(x) or x)(jnp.asarray(XS))
    with pytest.raises(jax.errors.UnexpectedTracerError):
        jnp.sin(leaked[0])


# -- VMAP-90: jit and checkpoint -------------------------------------------------

@pytest.mark.spec("VMAP-90")
def test_jit_under_vmap_is_one_call(jax, jnp):
    f = jax.vmap(jax.jit(lambda a, b: jnp.sin(a) * b), in_axes=(0, None))
    jaxpr = jax.make_jaxpr(f)(jnp.ones((3, 2)), 2.0)
    assert prims(jaxpr) == ["jit"]
    inner = jaxpr.eqns[0].params["jaxpr"]
    assert inner.in_avals[0].shape == (3, 2)
    close(f(jnp.asarray(np.ones((3, 2), np.float32)), 2.0), np.sin(np.ones((3, 2))) * 2)


@pytest.mark.spec("VMAP-90")
def test_jit_of_unmapped_args_under_vmap(jax, jnp):
    g = jax.jit(lambda w: w * 2.0)
    f = jax.vmap(lambda x, w: x + g(w), in_axes=(0, None))
    close(f(jnp.asarray(XS), 1.5), XS + 3.0)


@pytest.mark.spec("VMAP-90")
def test_checkpoint_under_vmap(jax, jnp):
    c = jax.checkpoint(lambda x: jnp.sin(jnp.sin(x)))
    jaxpr = jax.make_jaxpr(jax.vmap(c))(jnp.asarray(XS))
    assert prims(jaxpr) == ["remat2"]
    close(jax.vmap(c)(jnp.asarray(XS)), np.sin(np.sin(XS)))
    close(jax.vmap(jax.grad(c))(jnp.asarray(XS)), np.cos(np.sin(XS)) * np.cos(XS))


# -- VMAP-91 / VMAP-92: custom derivatives ------------------------------------------

def _custom_jvp_f(jax, jnp):
    @jax.custom_jvp
    def f(x, y):
        return jnp.sin(x) * y

    @f.defjvp
    def f_jvp(primals, tangents):
        x, y = primals
        tx, ty = tangents
        # Deliberately 2x the true x-derivative, so the rule is visibly used.
        return f(x, y), 2 * jnp.cos(x) * y * tx + jnp.sin(x) * ty

    return f


def _custom_vjp_g(jax, jnp):
    @jax.custom_vjp
    def g(x, y):
        return jnp.sin(x) * y

    def fwd(x, y):
        assert jnp.shape(x) == ()          # the rules see one example
        return g(x, y), (jnp.cos(x), jnp.sin(x), y)

    def bwd(res, ct):
        c, s, y = res
        return 3 * c * y * ct, s * ct      # 3x the true x-derivative

    g.defvjp(fwd, bwd)
    return g


@pytest.mark.spec("VMAP-91")
def test_custom_jvp_values_under_vmap(jax, jnp):
    f = _custom_jvp_f(jax, jnp)
    close(jax.vmap(f, in_axes=(0, None))(jnp.asarray(XS), 2.0), np.sin(XS) * 2)


@pytest.mark.spec("VMAP-91")
def test_custom_jvp_rule_used_in_both_orders(jax, jnp):
    f = _custom_jvp_f(jax, jnp)
    xs = jnp.asarray(XS)
    want = 2 * np.cos(XS) * 2.0
    close(jax.vmap(jax.grad(f), in_axes=(0, None))(xs, 2.0), want)
    total = lambda xs: jax.vmap(f, in_axes=(0, None))(xs, 2.0).sum()  # noqa: E731
    close(jax.grad(total)(xs), want)
    _, t = jax.jvp(jax.vmap(f, in_axes=(0, None)), (xs, 2.0), (jnp.ones(3), 0.0))
    close(t, want)
    _, t = jax.vmap(lambda x: jax.jvp(f, (x, 2.0), (1.0, 0.0)))(xs)
    close(t, want)


@pytest.mark.spec("VMAP-91")
def test_custom_jvp_under_vmap_stays_custom(jax, jnp):
    f = _custom_jvp_f(jax, jnp)
    jaxpr = jax.make_jaxpr(jax.vmap(f, in_axes=(0, None)))(jnp.asarray(XS), 2.0)
    assert prims(jaxpr) == ["custom_jvp_call"]


@pytest.mark.spec("VMAP-92")
def test_custom_vjp_per_example_grads(jax, jnp):
    g = _custom_vjp_g(jax, jnp)
    dx, dy = jax.vmap(jax.grad(g, argnums=(0, 1)), in_axes=(0, None))(jnp.asarray(XS), 2.0)
    close(dx, 3 * np.cos(XS) * 2.0)
    close(dy, np.sin(XS))


@pytest.mark.spec("VMAP-92")
def test_custom_vjp_grad_of_vmap_sums_unmapped_cotangent(jax, jnp):
    g = _custom_vjp_g(jax, jnp)
    total = lambda xs, y: jax.vmap(g, in_axes=(0, None))(xs, y).sum()  # noqa: E731
    dx, dy = jax.grad(total, argnums=(0, 1))(jnp.asarray(XS), 2.0)
    close(dx, 3 * np.cos(XS) * 2.0)
    close(dy, np.sin(XS).sum())
    assert np.shape(dy) == ()


@pytest.mark.spec("VMAP-92")
def test_custom_vjp_jacrev_through_vmap(jax, jnp):
    g = _custom_vjp_g(jax, jnp)
    jac = jax.jacrev(lambda xs: jax.vmap(g, in_axes=(0, None))(xs, 2.0))(jnp.asarray(XS))
    close(jac, np.diag(3 * np.cos(XS) * 2.0))


@pytest.mark.spec("VMAP-47")
def test_jacobians_keep_weak_types(jax, jnp):
    # The basis pushed through vmap has the input's weak type, as in JAX.
    assert repr(jax.jacfwd(lambda x: x * 2.)(1.)) == "Array(2., dtype=float32, weak_type=True)"
    assert repr(jax.jacrev(lambda x: x * 2.)(1.)) == "Array(2., dtype=float32, weak_type=True)"
    assert repr(jax.jacfwd(lambda x: x * 2.)(jnp.float32(1.))) == "Array(2., dtype=float32)"
    assert repr(jax.hessian(lambda x: x ** 3)(1.)) == "Array(6., dtype=float32, weak_type=True)"
