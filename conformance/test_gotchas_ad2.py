"""Autodiff gotchas of gotchas.md, part two: G-AD-020 .. G-AD-038 and the
gotchas of other areas that involve differentiation (G-PURE-013, G-DBG-003,
G-IDX-009, G-AT-019, G-AT-020).  Part one is test_gotchas_ad.py.

Each test asserts what the gotcha's code printed on JAX 0.10.2 and names the
gotcha in a comment.
"""
import re
from functools import partial

import numpy as np
import pytest


def close(got, want, rtol=1e-6, atol=1e-6):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want, np.float32),
                               rtol=rtol, atol=atol)


def raises(cls, prefix):
    """``pytest.raises`` for a message starting with the literal ``prefix``."""
    return pytest.raises(cls, match="^" + re.escape(prefix))


# -- custom rules: tracers as nondiff arguments, higher order, linearity -------------

NONDIFF_TRACER = ("Found a JAX Tracer object passed as an argument to a custom_vjp "
                  "function in a position indicated by nondiff_argnums as "
                  "non-differentiable. Tracers cannot be passed as non-differentiable "
                  "arguments to custom_vjp functions; instead, nondiff_argnums shou")


@pytest.mark.spec("AD-85")
def test_custom_vjp_nondiff_arg_must_not_be_a_tracer(jax, jnp):
    # G-AD-020: fine with a Python float, an error once jit makes it a tracer.
    @partial(jax.custom_vjp, nondiff_argnums=(1,))
    def f(x, n):
        return x * n
    f.defvjp(lambda x, n: (f(x, n), None), lambda n, r, g: (g * n,))
    assert float(jax.grad(f)(2., 3.)) == 3.0
    with raises(jax.errors.UnexpectedTracerError, NONDIFF_TRACER):
        jax.jit(jax.grad(f))(2., jnp.float32(3.))
    # Differentiating is not needed for the error: jit alone makes n a tracer.
    with raises(jax.errors.UnexpectedTracerError, NONDIFF_TRACER):
        jax.jit(f)(2., 3.)


@pytest.mark.spec("AD-60")
def test_custom_jvp_rule_used_at_every_order(jax, jnp):
    # G-AD-021: the rule calls f for the primal, so grad(grad(f)) differentiates
    # the rule's tangent and f again.
    @jax.custom_jvp
    def f(x):
        return jnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        x, = primals
        t, = tangents
        return f(x), jnp.cos(x) * t
    close(jax.grad(f)(3.), -0.9899925)
    close(jax.grad(jax.grad(f))(3.), -np.sin(np.float32(3.)))
    close(jax.grad(jax.grad(f))(3.), -0.14112)


@pytest.mark.spec("AD-86")
def test_nonlinear_custom_tangent_works_forward_only(jax, jnp):
    # G-AD-022: t ** 2 is not linear in t, so it cannot be transposed.
    @jax.custom_jvp
    def f(x):
        return x
    f.defjvp(lambda p, t: (f(p[0]), t[0] ** 2))
    y, y_dot = jax.jvp(f, (3.,), (2.,))
    assert float(y) == 3.0 and float(y_dot) == 4.0
    with raises(NotImplementedError, "Transpose rule (for reverse-mode "
                                     "differentiation) for 'integer_pow' not "
                                     "implemented"):
        jax.grad(f)(3.)


# -- jvp, vjp, linearize, Jacobians ---------------------------------------------------

@pytest.mark.spec("AD-50")
def test_jvp_argument_checks(jax, jnp):
    # G-AD-023
    f = lambda x: x ** 2
    y, t = jax.jvp(f, (3.,), (1.,))
    assert repr(y) == "Array(9., dtype=float32, weak_type=True)"
    assert repr(t) == "Array(6., dtype=float32, weak_type=True)"
    with raises(TypeError, "primal and tangent arguments to jax.jvp must be tuples or "
                           "lists; found float and float."):
        jax.jvp(f, 3., 1.)
    with raises(TypeError, "primal and tangent arguments to jax.jvp do not match; "
                           "dtypes must be equal, or in case of int/bool primal dtype "
                           "the tangent dtype must be float0.Got primal dtype float32 "
                           "and so expected tangent dtype float32, but got tangent "
                           "dtype int32 instead."):
        jax.jvp(f, (3.,), (1,))
    with raises(TypeError, "primal and tangent arguments to jax.jvp must have the same "
                           "tree structure; primals have tree structure "
                           "PyTreeDef((*,)) whereas tangents have tree structure "
                           "PyTreeDef((*, *))."):
        jax.jvp(f, (3.,), (1., 2.))


@pytest.mark.spec("AD-54")
def test_vjp_pullback_and_cotangent_checks(jax, jnp):
    # G-AD-024
    y, f_vjp = jax.vjp(lambda x: x * 2, jnp.ones(3))
    assert y.tolist() == [2., 2., 2.]
    cts = f_vjp(jnp.arange(3.))
    assert isinstance(cts, tuple) and len(cts) == 1
    assert repr(cts[0]) == "Array([0., 2., 4.], dtype=float32)"
    with raises(ValueError, "unexpected JAX type (e.g. shape/dtype) for argument to VJP "
                            "function: got float32[2], but expected float32[3] because "
                            "the corresponding output of the differentiated function "
                            "had JAX type float32[3]"):
        f_vjp(jnp.ones(2))
    with raises(ValueError, "unexpected JAX type (e.g. shape/dtype) for argument to VJP "
                            "function: got int32[3], but expected float32[3] because "
                            "the corresponding output of the differentiated function "
                            "had JAX type float32[3]"):
        f_vjp(jnp.ones(3, jnp.int32))


@pytest.mark.spec("AD-53")
def test_linearize_evaluates_jvp_at_the_point(jax, jnp):
    # G-AD-025
    y, f_jvp = jax.linearize(jnp.sin, 1.)
    close(y, 0.84147096)
    close(f_jvp(1.), 0.5403023)
    close(f_jvp(2.), 1.0806046)
    close(f_jvp(2.), jnp.cos(1.) * 2)


@pytest.mark.spec("AD-62")
def test_jacobian_shapes_and_hessian(jax, jnp):
    # G-AD-026
    f = lambda x: jnp.array([x[0] * x[1], jnp.sin(x[2])])
    x = jnp.arange(1., 4.)
    assert jax.jacfwd(f)(x).shape == (2, 3)
    assert jax.jacrev(f)(x).shape == (2, 3)
    close(jax.jacfwd(f)(x), jax.jacrev(f)(x))
    h = jax.hessian(lambda x: jnp.sum(x ** 3))(x)
    assert h.dtype == jnp.float32
    assert h.tolist() == [[6., 0., 0.], [0., 12., 0.], [0., 0., 18.]]


@pytest.mark.spec("AD-62")
def test_jacrev_nests_output_tree_outside_input_tree(jax, jnp):
    # G-AD-026
    jac = jax.jacrev(lambda d: {'o': d['a'] * 2})({'a': jnp.ones(2)})
    assert list(jac) == ['o'] and list(jac['o']) == ['a']
    assert repr(jac['o']['a']) == "Array([[2., 0.],\n       [0., 2.]], dtype=float32)"


@pytest.mark.spec("AD-88")
def test_jacobian_is_jacrev(jax, jnp):
    # G-AD-026
    f = lambda x: jnp.array([x[0] * x[1], jnp.sin(x[2])])
    x = jnp.arange(1., 4.)
    jac = jax.jacobian(f)(x)
    assert jac.shape == (2, 3)
    close(jac, jax.jacrev(f)(x))
    with raises(TypeError, "jacrev requires real- or complex-valued inputs"):
        jax.jacobian(lambda x: x * 2.)(jnp.arange(3))


@pytest.mark.spec("AD-62")
def test_jacobians_reject_integer_inputs(jax, jnp):
    # G-AD-027
    with raises(TypeError, "jacfwd requires real-valued inputs (input dtype that is a "
                           "sub-dtype of np.floating), but got int32. For holomorphic "
                           "differentiation, pass holomorphic=True. For "
                           "differentiation of non-holomorphic funct"):
        jax.jacfwd(lambda x: x * 2.)(jnp.arange(3))
    with raises(TypeError, "jacrev requires real- or complex-valued inputs (input dtype "
                           "that is a sub-dtype of np.inexact), but got int32. If you "
                           "want to use Boolean- or integer-valued inputs, use vjp or "
                           "set allow_int to True."):
        jax.jacrev(lambda x: x * 2.)(jnp.arange(3))


# -- composition, inputs, casts, checkpoint, unused inputs, dtypes -------------------

@pytest.mark.spec("AD-60")
def test_higher_order_derivatives_compose(jax, jnp):
    # G-AD-031
    f = lambda x: x ** 3
    assert float(jax.grad(jax.grad(f))(2.)) == 12.0
    assert float(jax.grad(jax.jit(jax.grad(f)))(2.)) == 12.0
    assert float(jax.jacfwd(jax.jacrev(f))(2.)) == 12.0
    assert float(jax.hessian(f)(2.)) == 12.0


@pytest.mark.spec("AD-56")
def test_python_int_argument_is_not_differentiable(jax, jnp):
    # G-AD-032
    f = lambda x: x ** 2
    assert float(jax.grad(f)(2.)) == 4.0
    with raises(TypeError, "grad requires real- or complex-valued inputs"):
        jax.grad(f)(2)


@pytest.mark.spec("AD-3")
def test_integer_cast_cuts_the_gradient_path(jax, jnp):
    # G-AD-033: int(x) is a constant 2 for the derivative.
    g = jax.grad(lambda x: x.astype(jnp.int32).astype(jnp.float32) * x)(2.5)
    assert repr(g) == "Array(2., dtype=float32, weak_type=True)"


@pytest.mark.spec("AD-69")
def test_checkpoint_keeps_values_and_gradients(jax, jnp):
    # G-AD-034
    f = lambda x: jnp.sin(jnp.sin(x))
    want = np.cos(np.sin(np.float32(1.))) * np.cos(np.float32(1.))
    close(jax.grad(f)(1.), want)
    close(jax.grad(jax.checkpoint(f))(1.), want)
    close(jax.grad(jax.checkpoint(f))(1.), 0.36003947)
    assert float(jax.checkpoint(f)(1.)) == float(f(1.))


@pytest.mark.spec("AD-2")
def test_unused_inputs_get_zero_gradients(jax, jnp):
    # G-AD-035
    assert repr(jax.grad(lambda x: 3.)(1.)) == "Array(0., dtype=float32, weak_type=True)"
    g = jax.grad(lambda d: d['a'] * 2.)({'a': 1., 'b': 5.})
    assert sorted(g) == ['a', 'b']
    assert repr(g['a']) == "Array(2., dtype=float32, weak_type=True)"
    assert repr(g['b']) == "Array(0., dtype=float32, weak_type=True)"


@pytest.mark.spec("AD-56")
def test_gradient_dtype_and_weak_type_follow_input(jax, jnp):
    # G-AD-036
    assert repr(jax.grad(lambda x: x * 2)(jnp.float16(1.))) == "Array(2., dtype=float16)"
    assert repr(jax.grad(lambda x: x * 2)(1.)) == \
        "Array(2., dtype=float32, weak_type=True)"
    assert repr(jax.grad(lambda x: x * 2)(jnp.float32(1.))) == "Array(2., dtype=float32)"


@pytest.mark.spec("AD-59")
def test_where_gradient_selects_per_element(jax, jnp):
    # G-AD-038
    g = jax.grad(lambda x: jnp.where(x > 0, x ** 2, -x).sum())(jnp.array([-1., 2.]))
    assert g.dtype == jnp.float32 and g.tolist() == [-1.0, 4.0]


# -- printing under differentiation --------------------------------------------------

@pytest.mark.spec("AD-84")
def test_custom_vjp_bwd_prints_the_cotangent(jax, jnp, capsys):
    # G-AD-037
    @jax.custom_vjp
    def print_grad(x):
        return x
    print_grad.defvjp(lambda x: (x, None),
                      lambda _, g: (jax.debug.print("x_grad: {}", g) or g,))

    def f(x):
        jax.debug.print("x: {}", x)
        return print_grad(x) * 2.
    g = jax.grad(f)(1.)
    jax.effects_barrier()
    assert float(g) == 2.0
    assert capsys.readouterr().out == "x: 1.0\nx_grad: 2.0\n"


@pytest.mark.spec("AD-84")
def test_debug_print_fires_once_under_grad(jax, jnp, capsys):
    # G-DBG-003: on the forward pass only, with or without jit.
    def f(x):
        jax.debug.print("x: {}", x)
        return x * 2.
    assert float(jax.grad(f)(1.)) == 2.0
    jax.effects_barrier()
    assert capsys.readouterr().out == "x: 1.0\n"
    assert float(jax.jit(jax.grad(f))(1.)) == 2.0
    jax.effects_barrier()
    assert capsys.readouterr().out == "x: 1.0\n"


@pytest.mark.spec("AD-61")
def test_python_print_under_grad_shows_grad_tracer(jax, jnp, capsys):
    # G-PURE-013 (its vmap half: test_vmap_core.py).
    def f(x):
        print(type(x).__name__, x)
        return x * 2.
    jax.grad(f)(1.)
    assert capsys.readouterr().out == \
        "LinearizeTracer GradTracer(primal=1.0, typeof(tangent)=f32[])\n"


# -- indexing and .at updates --------------------------------------------------------

@pytest.mark.spec("AD-83")
def test_gradient_of_out_of_bounds_read(jax, jnp):
    # G-IDX-009: an out-of-bounds read with default indexing is undefined
    # behaviour under AD (only its not raising and its type are checked); 'clip'
    # reads the last element, 'fill' reads none.
    x = jnp.arange(10.)
    g = jax.grad(lambda x: x[11])(x)
    assert g.shape == (10,) and g.dtype == jnp.float32
    g = jax.grad(lambda x: x.at[11].get(mode='clip'))(x)
    assert g.tolist() == [0.] * 9 + [1.]
    g = jax.grad(lambda x: x.at[11].get(mode='fill', fill_value=0.))(x)
    assert g.tolist() == [0.] * 10


@pytest.mark.spec("AD-83")
def test_at_apply_is_not_differentiable(jax, jnp):
    # G-AT-019
    x = jnp.arange(4.)
    close(x.at[1:3].apply(jnp.sin), [0., np.sin(1.), np.sin(2.), 3.])
    with raises(NotImplementedError, "scatter_apply JVP not implemented"):
        jax.grad(lambda x: x.at[1].apply(jnp.sin).sum())(x)


@pytest.mark.spec("AD-83")
def test_at_set_and_add_gradients(jax, jnp):
    # G-AT-020: set overwrites slot 1, so x[1] gets no gradient; add keeps it.
    w = jnp.arange(1., 4.)
    f = lambda x, y: (x.at[1].set(y) * w).sum()
    gx, gy = jax.grad(f, argnums=(0, 1))(jnp.ones(3), 5.)
    assert repr(gx) == "Array([1., 0., 3.], dtype=float32)"
    assert repr(gy) == "Array(2., dtype=float32, weak_type=True)"
    g = lambda x, y: (x.at[1].add(y) * w).sum()
    gx, gy = jax.grad(g, argnums=(0, 1))(jnp.ones(3), 5.)
    assert repr(gx) == "Array([1., 2., 3.], dtype=float32)"
    assert repr(gy) == "Array(2., dtype=float32, weak_type=True)"
    gx, gy = jax.jit(jax.grad(f, argnums=(0, 1)))(jnp.ones(3), 5.)
    assert gx.tolist() == [1., 0., 3.] and float(gy) == 2.0
