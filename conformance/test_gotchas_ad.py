"""Autodiff gotchas of gotchas.md: G-AD-001 .. G-AD-038 (grad's argument and
output checks, complex gradients, has_aux, argnums, pytrees, stop_gradient,
jnp.where, derivative conventions, custom_jvp and custom_vjp, jvp, vjp,
linearize and Jacobians, composition, checkpoint, printing under
differentiation) and the gotchas of other areas that involve differentiation
(G-PURE-013, G-DBG-003, G-IDX-009, G-AT-019, G-AT-020).  G-AD-028 .. G-AD-030
(differentiating control flow) are in test_gotchas_control_flow.py.

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


# -- grad's checks on outputs and inputs -----------------------------------------

@pytest.mark.spec("AD-56")
def test_grad_needs_scalar_output_even_shape_1(jax, jnp):
    # G-AD-001
    with raises(TypeError, "Gradient only defined for scalar-output functions. "
                           "Output had shape: (3,)."):
        jax.grad(lambda x: x * 2)(jnp.ones(3))
    with raises(TypeError, "Gradient only defined for scalar-output functions. "
                           "Output had shape: (1,)."):
        jax.grad(lambda x: (x * 2)[:1])(jnp.ones(3))
    g = jax.grad(lambda x: (x * 2).sum())(jnp.ones(3))
    assert g.dtype == jnp.float32 and g.tolist() == [2.0, 2.0, 2.0]


@pytest.mark.spec("AD-56")
def test_grad_rejects_int_input_unless_allow_int(jax, jnp):
    # G-AD-002
    with raises(TypeError, "grad requires real- or complex-valued inputs (input dtype "
                           "that is a sub-dtype of np.inexact), but got int32. If you "
                           "want to use Boolean- or integer-valued inputs, use vjp or "
                           "set allow_int to True."):
        jax.grad(lambda x: x * 2.)(3)
    gx, gy = jax.grad(lambda x, y: x * y, argnums=(0, 1), allow_int=True)(3, 2.)
    assert isinstance(gx, np.ndarray)
    assert gx.dtype == jax.dtypes.float0 and gx.shape == ()
    assert str(gx.dtype) == "[('float0', 'V')]"
    assert repr(gy) == "Array(3., dtype=float32, weak_type=True)"


@pytest.mark.spec("AD-56")
def test_grad_rejects_int_output(jax, jnp):
    # G-AD-003
    with raises(TypeError, "grad requires real-valued outputs (output dtype that is a "
                           "sub-dtype of np.floating), but got int32. For "
                           "differentiation of functions with integer outputs, use "
                           "jax.vjp directly."):
        jax.grad(lambda x: jnp.round(x).astype(int))(3.)


@pytest.mark.spec("AD-56")
def test_complex_output_needs_holomorphic(jax, jnp):
    # G-AD-004
    with raises(TypeError, "grad requires real-valued outputs (output dtype that is a "
                           "sub-dtype of np.floating), but got complex64. For "
                           "holomorphic differentiation, pass holomorphic=True. For "
                           "differentiation of non-holomorphic f"):
        jax.grad(jnp.sin)(3. + 4j)
    g = jax.grad(jnp.sin, holomorphic=True)(3. + 4j)
    assert g.dtype == jnp.complex64 and g.weak_type
    np.testing.assert_allclose(complex(g), np.cos(3. + 4j), rtol=1e-5)
    close(g.real, -27.034946, rtol=1e-5)
    close(g.imag, -3.8511534, rtol=1e-5)
    with raises(TypeError, "grad with holomorphic=True requires inputs with complex "
                           "dtype, but got float32."):
        jax.grad(jnp.sin, holomorphic=True)(3.)


@pytest.mark.spec("AD-82")
def test_real_valued_function_of_complex_gives_conjugate_gradient(jax, jnp):
    # G-AD-005: d|z|^2 at 3+4j is 2 * conj(z) = 6-8j.
    def f(z):
        x, y = jnp.real(z), jnp.imag(z)
        return x ** 2 + y ** 2
    g = jax.grad(f)(3. + 4j)
    assert repr(g) == "Array(6.-8.j, dtype=complex64)"


@pytest.mark.spec("AD-82")
def test_holomorphic_on_non_holomorphic_function_is_silent(jax, jnp):
    # G-AD-005: conj is not holomorphic, yet no error: the result is 1-0j.
    g = jax.grad(jnp.conjugate, holomorphic=True)(3. + 4j)
    assert g.dtype == jnp.complex64 and g.weak_type
    assert complex(g) == 1 + 0j
    assert np.signbit(np.imag(np.asarray(g)))


# -- has_aux, argnums, value_and_grad, pytrees ------------------------------------

@pytest.mark.spec("AD-56")
def test_has_aux_results(jax, jnp):
    # G-AD-006
    f = lambda x: (x ** 2, {'note': x + 1})
    g, aux = jax.grad(f, has_aux=True)(3.)
    assert repr(g) == "Array(6., dtype=float32, weak_type=True)"
    assert list(aux) == ["note"]
    assert repr(aux["note"]) == "Array(4., dtype=float32, weak_type=True)"
    (value, aux), g = jax.value_and_grad(f, has_aux=True)(3.)
    assert repr(value) == "Array(9., dtype=float32, weak_type=True)"
    assert repr(aux["note"]) == "Array(4., dtype=float32, weak_type=True)"
    assert repr(g) == "Array(6., dtype=float32, weak_type=True)"


@pytest.mark.spec("AD-87")
def test_has_aux_without_pair_names_the_tracer(jax, jnp):
    # G-AD-006: the message shows the type and repr of what came back.
    with pytest.raises(TypeError) as info:
        jax.grad(lambda x: x ** 2, has_aux=True)(3.)
    msg = str(info.value)
    assert re.match(r"expected function with aux output to return a two-element "
                    r"tuple, but got type <class '[\w.]*LinearizeTracer'> with value "
                    r"GradTracer\(primal=9\.0, typeof\(tangent\)=f32\[\]\)", msg), msg


@pytest.mark.spec("AD-56")
def test_argnums_int_tuple_and_keywords(jax, jnp):
    # G-AD-007
    f = lambda x, y: x * y ** 2
    assert repr(jax.grad(f)(2., 3.)) == "Array(9., dtype=float32, weak_type=True)"
    assert repr(jax.grad(f, argnums=1)(2., 3.)) == "Array(12., dtype=float32, weak_type=True)"
    both = jax.grad(f, argnums=(0, 1))(2., 3.)
    assert isinstance(both, tuple) and [float(g) for g in both] == [9.0, 12.0]
    with raises(TypeError, "differentiating with respect to argnums=1 requires at least "
                           "2 positional arguments to be passed by the caller, but got "
                           "only 1 positional arguments."):
        jax.grad(f, argnums=1)(2., y=3.)
    # A keyword argument is never differentiated, but can be passed.
    assert float(jax.grad(f)(2., y=3.)) == 9.0


@pytest.mark.spec("AD-56")
def test_value_and_grad_calls_function_once(jax, jnp):
    # G-AD-008
    calls = []

    def f(x):
        calls.append(1)
        return jnp.sum(x ** 2)
    value, g = jax.value_and_grad(f)(jnp.arange(3.))
    assert repr(value) == "Array(5., dtype=float32)"
    assert g.dtype == jnp.float32 and g.tolist() == [0.0, 2.0, 4.0]
    assert len(calls) == 1


@pytest.mark.spec("AD-56")
def test_gradient_has_the_input_pytree_structure(jax, jnp):
    # G-AD-009
    params = {'W': jnp.ones((2,)), 'b': (1., [2.])}
    g = jax.grad(lambda p: p['W'].sum() * p['b'][0] + p['b'][1][0] ** 2)(params)
    assert (jax.tree_util.tree_structure(g)
            == jax.tree_util.tree_structure(params))
    assert isinstance(g['b'], tuple) and isinstance(g['b'][1], list)
    assert repr(g['W']) == "Array([1., 1.], dtype=float32)"
    assert repr(g['b'][0]) == "Array(2., dtype=float32, weak_type=True)"
    assert repr(g['b'][1][0]) == "Array(4., dtype=float32, weak_type=True)"


# -- stop_gradient, jnp.where, non-differentiable points ----------------------------

@pytest.mark.spec("AD-64")
def test_stop_gradient_blocks_derivative_not_value(jax, jnp):
    # G-AD-010
    lax = jax.lax
    f = lambda x: x * lax.stop_gradient(x)
    assert float(f(3.)) == 9.0
    assert float(jax.grad(f)(3.)) == 3.0
    g = jax.grad(lambda x: lax.stop_gradient(x ** 2))(3.)
    assert repr(g) == "Array(0., dtype=float32, weak_type=True)"


@pytest.mark.spec("AD-59")
def test_where_nan_trap_and_safe_where(jax, jnp):
    # G-AD-011: the untaken log branch has cotangent 0 but derivative inf.
    def my_log(x):
        return jnp.where(x > 0., jnp.log(x), 0.)

    def safe_for_grad_log(x):
        return jnp.log(jnp.where(x > 0., x, 1.))
    assert float(my_log(0.)) == 0.0
    assert np.isnan(float(jax.grad(my_log)(0.)))
    assert float(safe_for_grad_log(0.)) == 0.0
    assert float(jax.grad(safe_for_grad_log)(0.)) == 0.0


@pytest.mark.spec("AD-80")
def test_piecewise_constant_functions_have_zero_gradient(jax, jnp):
    # G-AD-012 (the gotcha maps grad with vmap; a Python loop checks the same
    # values, the discontinuity at 0 included).
    f = lambda x: (x > 0).astype(float)
    xs = [-1.0, -0.5, 0.0, 0.5, 1.0]
    assert f(jnp.array(xs)).tolist() == [0., 0., 0., 1., 1.]
    for x in xs:
        g = jax.grad(f)(x)
        assert float(g) == 0.0 and not np.signbit(np.asarray(g))
    assert repr(jax.grad(lambda x: jnp.round(x))(1.3)) == \
        "Array(0., dtype=float32, weak_type=True)"
    assert float(jax.grad(lambda x: jnp.floor(x))(1.3)) == 0.0


@pytest.mark.spec("AD-80")
def test_derivatives_at_kinks(jax, jnp):
    # G-AD-013
    assert float(jax.grad(jnp.abs)(0.)) == 1.0
    assert float(jax.grad(jax.nn.relu)(0.)) == 0.0
    assert float(jax.grad(jnp.sqrt)(0.)) == np.inf


@pytest.mark.spec("AD-80")
def test_norm_gradient_at_zero_is_nan(jax, jnp):
    # G-AD-013: x / norm(x) at the zero vector is 0 / 0.
    norm_grad = jax.grad(jnp.linalg.norm)(jnp.zeros(2))
    assert norm_grad.shape == (2,) and norm_grad.dtype == jnp.float32
    assert np.isnan(np.asarray(norm_grad)).all()


@pytest.mark.spec("AD-80")
def test_ties_split_the_gradient(jax, jnp):
    # G-AD-013
    assert jax.grad(jnp.max)(jnp.array([1., 1., 0.])).tolist() == [0.5, 0.5, 0.0]
    assert float(jax.grad(lambda x: jnp.maximum(x, x))(1.)) == 1.0
    assert float(jax.grad(lambda x: jnp.maximum(x, 1.))(1.)) == 0.5


@pytest.mark.spec("AD-80")
def test_sort_gradient_routes_to_source_position(jax, jnp):
    # G-AD-013
    g = jax.grad(lambda x: jnp.sort(x)[0])(jnp.array([3., 1., 2.]))
    assert g.tolist() == [0.0, 1.0, 0.0]


# -- custom_jvp ----------------------------------------------------------------------

def make_printing_sin(jax, jnp):
    @jax.custom_jvp
    def f(x):
        print('called f!')
        return jnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        print('called f_jvp!')
        x, = primals
        t, = tangents
        return f(x), jnp.cos(x) * t
    return f


@pytest.mark.spec("AD-65")
def test_custom_jvp_rule_runs_only_when_differentiating(jax, jnp, capsys):
    # G-AD-014 (the gotcha's vmap call is checked here with jit: f is traced
    # once and the rule is not called).
    f = make_printing_sin(jax, jnp)
    close(f(3.), np.sin(np.float32(3.)))
    assert capsys.readouterr().out == "called f!\n"
    close(jax.jit(f)(jnp.arange(3.)), np.sin(np.arange(3., dtype=np.float32)))
    assert capsys.readouterr().out == "called f!\n"
    _, y_dot = jax.jvp(f, (3.,), (1.,))
    close(y_dot, np.cos(np.float32(3.)))
    assert capsys.readouterr().out == "called f_jvp!\ncalled f!\n"
    close(jax.grad(f)(3.), -0.9899925)
    assert capsys.readouterr().out == "called f_jvp!\ncalled f!\n"


@pytest.mark.spec("AD-65")
def test_custom_jvp_fixes_log1pexp_overflow(jax, jnp):
    # G-AD-015
    def log1pexp(x):
        return jnp.log(1. + jnp.exp(x))
    assert np.isnan(float(jax.grad(log1pexp)(100.)))

    @jax.custom_jvp
    def log1pexp2(x):
        return jnp.log(1. + jnp.exp(x))

    @log1pexp2.defjvp
    def _(primals, tangents):
        x, = primals
        x_dot, = tangents
        return log1pexp2(x), (1 - 1 / (1 + jnp.exp(x))) * x_dot
    assert float(jax.grad(log1pexp2)(100.)) == 1.0
    assert float(jax.jit(jax.grad(log1pexp2))(100.)) == 1.0


@pytest.mark.spec("AD-65")
def test_defjvps_none_means_zero(jax, jnp):
    # G-AD-016
    @jax.custom_jvp
    def f(x, y):
        return x ** 2 * y
    f.defjvps(lambda x_dot, primal_out, x, y: 2 * x * y * x_dot, None)
    assert float(jax.grad(f)(2., 3.)) == 12.0
    gy = jax.grad(f, 1)(2., 3.)
    assert float(gy) == 0.0 and gy.dtype == jnp.float32


# -- custom_vjp ----------------------------------------------------------------------

def make_sin_times(jax, jnp):
    @jax.custom_vjp
    def f(x, y):
        return jnp.sin(x) * y

    def f_fwd(x, y):
        return f(x, y), (jnp.cos(x), jnp.sin(x), y)

    def f_bwd(res, g):
        cos_x, sin_x, y = res
        return (cos_x * g * y, sin_x * g)
    f.defvjp(f_fwd, f_bwd)
    return f


@pytest.mark.spec("AD-67")
def test_custom_vjp_reverse_mode_works(jax, jnp):
    # G-AD-017
    f = make_sin_times(jax, jnp)
    close(jax.grad(f)(2., 3.), -1.2484405, rtol=1e-5)
    close(jax.jacrev(f)(2., 3.), -1.2484405, rtol=1e-5)


@pytest.mark.spec("AD-67")
def test_custom_vjp_rejects_forward_mode(jax, jnp):
    # G-AD-017
    f = make_sin_times(jax, jnp)
    with raises(TypeError, "can't apply forward-mode autodiff (jvp) to a custom_vjp "
                           "function."):
        jax.jvp(f, (2., 3.), (1., 0.))
    with raises(TypeError, "can't apply forward-mode autodiff (jvp) to a custom_vjp "
                           "function."):
        jax.jacfwd(f)(2., 3.)


BWD_STRUCTURE = ("Custom VJP bwd rule must produce an output with the same container "
                 "(pytree) structure as the args tuple of the primal function, and in "
                 "particular must produce a tuple of length equal to the number of "
                 "arguments to the primal function, but got bwd outp")


@pytest.mark.spec("AD-67")
def test_custom_vjp_bwd_must_return_a_tuple(jax, jnp):
    # G-AD-018: a bare array instead of a 1-tuple.
    @jax.custom_vjp
    def f(x):
        return jnp.sin(x)
    f.defvjp(lambda x: (f(x), jnp.cos(x)), lambda c, g: c * g)
    with raises(TypeError, BWD_STRUCTURE):
        jax.grad(f)(1.)


@pytest.mark.spec("AD-67")
def test_custom_vjp_bwd_must_cover_every_argument(jax, jnp):
    # G-AD-018: one cotangent for two arguments.
    @jax.custom_vjp
    def h(x, y):
        return x * y
    h.defvjp(lambda x, y: (h(x, y), (x, y)), lambda r, g: (g * r[1],))
    with raises(TypeError, BWD_STRUCTURE):
        jax.grad(h)(1., 2.)


@pytest.mark.spec("AD-65")
def test_custom_jvp_nondiff_args_come_first_in_rule(jax, jnp):
    # G-AD-019: positions 0 and 2 are passed before primals and tangents.
    @partial(jax.custom_jvp, nondiff_argnums=(0, 2))
    def app2(f, x, g):
        return f(g(x))

    @app2.defjvp
    def app2_jvp(f, g, primals, tangents):
        x, = primals
        x_dot, = tangents
        return f(g(x)), 3. * x_dot
    cube, times5 = (lambda x: x ** 3), (lambda y: 5 * y)
    assert float(app2(cube, 3., times5)) == 3375.0
    assert float(jax.grad(app2, 1)(cube, 3., times5)) == 3.0


@pytest.mark.spec("AD-67")
def test_custom_vjp_nondiff_args_come_first_in_bwd(jax, jnp):
    # G-AD-019: fwd keeps the primal signature, bwd gets f before residuals.
    @partial(jax.custom_vjp, nondiff_argnums=(0,))
    def app(f, x):
        return f(x)
    app.defvjp(lambda f, x: (f(x), x), lambda f, x, g: (5 * g,))
    assert float(jax.grad(app, 1)(lambda x: x ** 2, 4.)) == 5.0


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
