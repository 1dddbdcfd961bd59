"""The autodiff API: ``jvp``, ``linearize``, ``vjp``, ``grad``,
``value_and_grad``, Jacobians, ``linear_transpose`` and ``stop_gradient``
(SPEC AD-50 .. AD-64).

Each test states one rule as JAX 0.10.2 behaves.  Error classes are asserted
exactly; messages by the stable part JAX prints (JAX's pytree-difference
explanations and object reprs after that part vary between versions).
"""
import re

import numpy as np
import pytest


def close(got, want, rtol=1e-6, atol=1e-6):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want, np.float32),
                               rtol=rtol, atol=atol)


def is_float0(jax, x, shape=()):
    return x.dtype == jax.dtypes.float0 and np.shape(x) == shape


def raises(cls, prefix):
    """``pytest.raises`` for a message starting with the literal ``prefix``."""
    return pytest.raises(cls, match="^" + re.escape(prefix))


# -- AD-50: jvp arguments and results ---------------------------------------------

@pytest.mark.spec("AD-50")
def test_jvp_tuple_of_pytrees(jax, jnp):
    f = lambda d, y: {"p": d["a"] * d["b"] * y}
    out, tan = jax.jvp(f, ({"a": 2., "b": 3.}, 4.), ({"a": 1., "b": 0.}, 0.5))
    assert list(out) == ["p"] and list(tan) == ["p"]
    close(out["p"], 24.)
    close(tan["p"], 1. * 3. * 4. + 2. * 3. * 0.5)


@pytest.mark.spec("AD-50")
def test_jvp_lists_and_list_output(jax, jnp):
    out, tan = jax.jvp(lambda a, b: [a * b, jnp.sin(a)], [2., 3.], [1., 1.])
    assert isinstance(out, list) and isinstance(tan, list)
    close(tan[0], 3. + 2.)
    close(tan[1], np.cos(np.float32(2.)))


@pytest.mark.spec("AD-50")
def test_jvp_needs_tuples_or_lists(jax, jnp):
    with raises(TypeError, "primal and tangent arguments to jax.jvp must be tuples "
                           "or lists; found float and float."):
        jax.jvp(jnp.sin, 1., 1.)


@pytest.mark.spec("AD-50")
def test_jvp_tree_structures_must_match(jax, jnp):
    with raises(TypeError, "primal and tangent arguments to jax.jvp must have the "
                           "same tree structure; primals have tree structure "
                           "PyTreeDef((*, *)) whereas tangents have tree structure "
                           "PyTreeDef((*,))."):
        jax.jvp(lambda x, y: x * y, (1., 2.), (1.,))
    # A tuple of primals and a list of tangents differ too.
    with raises(TypeError, "primal and tangent arguments to jax.jvp must have the "
                           "same tree structure"):
        jax.jvp(jnp.sin, (1.,), [1.])


@pytest.mark.spec("AD-50")
def test_jvp_tangent_dtype_must_match(jax, jnp):
    with raises(TypeError, "primal and tangent arguments to jax.jvp do not match; "
                           "dtypes must be equal, or in case of int/bool primal dtype "
                           "the tangent dtype must be float0.Got primal dtype float32 "
                           "and so expected tangent dtype float32, but got tangent "
                           "dtype float16 instead."):
        jax.jvp(jnp.sin, (1.,), (jnp.float16(1.),))
    with raises(TypeError, "primal and tangent arguments to jax.jvp do not match"):
        jax.jvp(lambda x: x, (1.,), (1,))


@pytest.mark.spec("AD-50")
def test_jvp_integer_primal_needs_float0_tangent(jax, jnp):
    with raises(TypeError, "primal and tangent arguments to jax.jvp do not match; "
                           "dtypes must be equal, or in case of int/bool primal dtype "
                           "the tangent dtype must be float0.Got primal dtype int32 "
                           "and so expected tangent dtype [('float0', 'V')], but got "
                           "tangent dtype int32 instead."):
        jax.jvp(lambda x: x * 2, (1,), (1,))


@pytest.mark.spec("AD-50")
def test_jvp_float0_tangent_for_float_primal_is_rejected(jax, jnp):
    with raises(TypeError, "primal and tangent arguments to jax.jvp do not match; "
                           "dtypes must be equal, or in case of int/bool primal dtype "
                           "the tangent dtype must be float0.Got primal dtype float32 "
                           "and so expected tangent dtype float32, but got tangent "
                           "dtype [('float0', 'V')] instead."):
        jax.jvp(lambda x: x, (1.,), (np.zeros((), jax.dtypes.float0),))


@pytest.mark.spec("AD-50")
def test_jvp_tangent_shape_must_match(jax, jnp):
    with raises(ValueError, "jvp called with different primal and tangent shapes;"
                            "Got primal shape (3,) and tangent shape as (2,)"):
        jax.jvp(jnp.sin, (jnp.ones(3),), (jnp.ones(2),))
    with raises(ValueError, "jvp called with different primal and tangent shapes;"
                            "Got primal shape (2,) and tangent shape as (2, 1)"):
        jax.jvp(lambda x: x, (jnp.ones(2),), (jnp.ones((2, 1)),))


# -- AD-51: jvp has_aux ---------------------------------------------------------------

@pytest.mark.spec("AD-51")
def test_jvp_has_aux_returns_aux_untangented(jax, jnp):
    out, tan, aux = jax.jvp(lambda x: (jnp.sin(x), {"twice": 2 * x}),
                            (1.,), (1.,), has_aux=True)
    close(out, np.sin(np.float32(1.)))
    close(tan, np.cos(np.float32(1.)))
    assert list(aux) == ["twice"]
    close(aux["twice"], 2.)


@pytest.mark.spec("AD-51")
def test_jvp_has_aux_needs_a_pair(jax, jnp):
    with pytest.raises(TypeError):
        jax.jvp(lambda x: 3 * x, (1.,), (1.,), has_aux=True)


# -- AD-52: float0 tangents and cotangents -------------------------------------------------

@pytest.mark.spec("AD-52")
def test_jvp_integer_primal_with_float0_tangent(jax, jnp):
    f0 = jax.dtypes.float0
    out, tan = jax.jvp(lambda x: x * 2, (jnp.int32(1),), (np.zeros((), f0),))
    assert out.dtype == np.int32 and int(out) == 2
    assert is_float0(jax, tan)
    out, tan = jax.jvp(lambda x: x, (jnp.arange(3),), (np.zeros(3, f0),))
    assert is_float0(jax, tan, (3,))


@pytest.mark.spec("AD-52")
def test_jvp_mixed_float_and_integer_primals(jax, jnp):
    out, tan = jax.jvp(lambda x, n: x * n, (1., 3),
                       (1., np.zeros((), jax.dtypes.float0)))
    close(out, 3.)
    close(tan, 3.)


@pytest.mark.spec("AD-52")
@pytest.mark.parametrize("to_int", ["compare", "astype"])
def test_jvp_integer_outputs_have_float0_tangents(jax, jnp, to_int):
    f = (lambda x: x > 0) if to_int == "compare" else (lambda x: x.astype(jnp.int32))
    out, tan = jax.jvp(f, (jnp.ones(2),), (jnp.ones(2),))
    assert out.dtype in (np.bool_, np.int32)
    assert is_float0(jax, tan, (2,))


@pytest.mark.spec("AD-52")
def test_vjp_integer_inputs_get_float0_cotangents(jax, jnp):
    _, f_vjp = jax.vjp(lambda x, n: x * n, 1., 3)
    gx, gn = f_vjp(1.)
    close(gx, 3.)
    assert is_float0(jax, gn)
    _, f_vjp = jax.vjp(lambda v: v.astype(jnp.float32) * 2., jnp.arange(3))
    g, = f_vjp(jnp.ones(3))
    assert is_float0(jax, g, (3,))


@pytest.mark.spec("AD-52")
def test_vjp_integer_output_takes_float0_cotangent(jax, jnp):
    _, f_vjp = jax.vjp(lambda x: (x * 2, x > 0), 1.)
    g, = f_vjp((1., np.zeros((), jax.dtypes.float0)))
    close(g, 2.)


# -- AD-53: linearize ------------------------------------------------------------------

@pytest.mark.spec("AD-53")
def test_linearize_reuse_matches_jvp(jax, jnp):
    def f(x):
        return jnp.sin(x) * jnp.sum(x ** 2)

    x = jnp.array([0.5, 1.0, 2.0])
    y, f_jvp = jax.linearize(f, x)
    close(y, f(x))
    for t in (jnp.array([1., 0., 0.]), jnp.array([0.3, -2., 1.]), jnp.ones(3)):
        close(f_jvp(t), jax.jvp(f, (x,), (t,))[1], rtol=1e-5)


@pytest.mark.spec("AD-53")
def test_linearize_several_primals_pytree_output(jax, jnp):
    y, f_jvp = jax.linearize(lambda a, b: {"p": a * b, "s": a + b}, 2., 3.)
    close(y["p"], 6.)
    t = f_jvp(1., 0.)
    close(t["p"], 3.)
    close(t["s"], 1.)
    t = f_jvp(0., 1.)
    close(t["p"], 2.)


@pytest.mark.spec("AD-53")
def test_linearize_has_aux(jax, jnp):
    y, f_jvp, aux = jax.linearize(lambda x: (jnp.sin(x), x * 2), 1., has_aux=True)
    close(y, np.sin(np.float32(1.)))
    close(aux, 2.)
    close(f_jvp(2.), 2 * np.cos(np.float32(1.)))


@pytest.mark.spec("AD-53")
def test_linearize_rejects_tangent_of_wrong_shape(jax, jnp):
    _, f_jvp = jax.linearize(jnp.sin, 1.)
    with raises(ValueError, "linearized function called on tangent values "
                            "inconsistent with the original primal values"):
        f_jvp(jnp.ones(3))


# -- AD-54: vjp --------------------------------------------------------------------------

@pytest.mark.spec("AD-54")
def test_vjp_returns_one_cotangent_per_primal(jax, jnp):
    y, f_vjp = jax.vjp(lambda x, y: x * y, jnp.ones(2), 3.)
    close(y, [3., 3.])
    g = f_vjp(jnp.array([1., 2.]))
    assert isinstance(g, tuple) and len(g) == 2
    close(g[0], [3., 6.])
    close(g[1], 3.)
    g = jax.vjp(jnp.sin, 0.)[1](1.)
    assert isinstance(g, tuple) and len(g) == 1


@pytest.mark.spec("AD-54")
def test_vjp_tuple_and_dict_outputs(jax, jnp):
    _, f_vjp = jax.vjp(lambda x: (jnp.sin(x), {"a": x * 2}), 1.)
    g, = f_vjp((1., {"a": 1.}))
    close(g, np.cos(np.float32(1.)) + 2.)


@pytest.mark.spec("AD-54")
def test_vjp_pytree_primals(jax, jnp):
    _, f_vjp = jax.vjp(lambda d: d["w"] @ d["x"], {"w": jnp.ones((2, 3)),
                                                   "x": jnp.arange(3.)})
    g, = f_vjp(jnp.array([1., 2.]))
    assert sorted(g) == ["w", "x"]
    close(g["w"], [[0., 1., 2.], [0., 2., 4.]])
    close(g["x"], [3., 3., 3.])


@pytest.mark.spec("AD-54")
def test_vjp_has_aux(jax, jnp):
    y, f_vjp, aux = jax.vjp(lambda x: (x * 2, {"a": x, "tag": "t"}), 1., has_aux=True)
    close(y, 2.)
    close(aux["a"], 1.)
    assert aux["tag"] == "t"
    close(f_vjp(1.)[0], 2.)


# -- AD-55: vjp cotangent checks -----------------------------------------------------------

@pytest.mark.spec("AD-55")
def test_vjp_cotangent_structure_error(jax, jnp):
    _, f_vjp = jax.vjp(lambda x: (jnp.sin(x), {"a": x * 2}), 1.)
    with pytest.raises(ValueError) as info:
        f_vjp((1., 1.))
    assert str(info.value).startswith(
        "unexpected tree structure.\n\nThe argument to a VJP function returned by "
        "`jax.vjp` must match the pytree\nstructure of the differentiated function")


@pytest.mark.spec("AD-55")
def test_vjp_cotangent_shape_error(jax, jnp):
    _, f_vjp = jax.vjp(lambda x: x * 2, jnp.ones(3))
    with raises(ValueError, "unexpected JAX type (e.g. shape/dtype) for argument "
                            "to VJP function: got float32[2], but expected "
                            "float32[3] because the corresponding output of the "
                            "differentiated function had JAX type float32[3]"):
        f_vjp(jnp.ones(2))
    with raises(ValueError, "unexpected JAX type (e.g. shape/dtype) for argument "
                            "to VJP function: got float32[], but expected float32[3]"):
        f_vjp(2.)


@pytest.mark.spec("AD-55")
def test_vjp_cotangent_dtype_error(jax, jnp):
    _, f_vjp = jax.vjp(lambda x: x * 2, jnp.ones(3))
    with raises(ValueError, "unexpected JAX type (e.g. shape/dtype) for argument "
                            "to VJP function: got int32[3], but expected float32[3]"):
        f_vjp(jnp.ones(3, jnp.int32))
    with raises(ValueError, "unexpected JAX type (e.g. shape/dtype) for argument "
                            "to VJP function: got float16[3], but expected float32[3]"):
        f_vjp(jnp.ones(3, jnp.float16))


@pytest.mark.spec("AD-55")
def test_vjp_python_float_cotangent(jax, jnp):
    """A Python float is a float32 cotangent: fine for float32 outputs only."""
    g, = jax.vjp(lambda x: x * 2, jnp.float32(1.))[1](2.)
    assert repr(g) == "Array(4., dtype=float32)"
    _, f_vjp = jax.vjp(lambda x: x * 2, jnp.float16(1.))
    with raises(ValueError, "unexpected JAX type (e.g. shape/dtype) for argument "
                            "to VJP function: got float32[], but expected float16[]"):
        f_vjp(2.)


@pytest.mark.spec("AD-55")
def test_vjp_function_takes_one_argument(jax, jnp):
    _, f_vjp = jax.vjp(lambda x: (x, x), 1.)
    with pytest.raises(TypeError):
        f_vjp(2., 2.)


# -- AD-56: grad / value_and_grad arguments and result structure ------------------------------

@pytest.mark.spec("AD-56")
def test_grad_argnums_int_gives_bare_gradient(jax, jnp):
    g = jax.grad(lambda x, y: x * y, argnums=1)(2., 3.)
    close(g, 2.)
    assert not isinstance(g, tuple)
    close(jax.grad(lambda x, y: x * y, argnums=-1)(2., 3.), 2.)


@pytest.mark.spec("AD-56")
@pytest.mark.parametrize("argnums", [(0, 1), [0, 1]])
def test_grad_argnums_sequence_gives_tuple(jax, jnp, argnums):
    g = jax.grad(lambda x, y: x * y, argnums=argnums)(2., 3.)
    assert isinstance(g, tuple) and len(g) == 2
    close(g[0], 3.)
    close(g[1], 2.)
    g = jax.grad(lambda x, y: x * y, argnums=(0,))(2., 3.)
    assert isinstance(g, tuple) and len(g) == 1


@pytest.mark.spec("AD-56")
def test_grad_has_the_structure_of_the_input(jax, jnp):
    def f(d):
        return d["a"] * d["b"][0] + d["b"][1][0] * jnp.sum(d["v"])

    x = {"a": 1., "b": (2., [3.]), "c": None, "v": jnp.ones(2)}
    g = jax.grad(f)(x)
    assert jax.tree_util.tree_structure(g) == jax.tree_util.tree_structure(x)
    assert g["c"] is None
    close(g["a"], 2.)
    close(g["b"][0], 1.)
    close(g["b"][1][0], 2.)
    close(g["v"], [3., 3.])


@pytest.mark.spec("AD-56")
def test_grad_of_list_and_tuple_inputs(jax, jnp):
    g = jax.grad(lambda x: x[0] * x[1])([2., 3.])
    assert isinstance(g, list)
    close(g[0], 3.)
    g = jax.grad(lambda x: x[0] * x[1])((2., 3.))
    assert isinstance(g, tuple)
    close(g[1], 2.)


@pytest.mark.spec("AD-56")
def test_grad_has_aux(jax, jnp):
    g, aux = jax.grad(lambda x: (x * x, {"x1": x + 1}), has_aux=True)(2.)
    close(g, 4.)
    close(aux["x1"], 3.)


@pytest.mark.spec("AD-56")
def test_value_and_grad(jax, jnp):
    v, g = jax.value_and_grad(lambda x, y: x * y, argnums=(0, 1))(2., 3.)
    close(v, 6.)
    close(g[0], 3.)
    close(g[1], 2.)
    (v, aux), g = jax.value_and_grad(lambda x: (x * x, "aux"), has_aux=True)(3.)
    close(v, 9.)
    assert aux == "aux"
    close(g, 6.)


@pytest.mark.spec("AD-56")
def test_grad_argnums_out_of_range(jax, jnp):
    with raises(TypeError, "differentiating with respect to argnums=2 requires at "
                           "least 3 positional arguments to be passed by the caller, "
                           "but got only 2 positional arguments."):
        jax.grad(lambda x, y: x * y, argnums=2)(2., 3.)
    with raises(TypeError, "differentiating with respect to argnums=(0, 2) requires "
                           "at least 3 positional arguments to be passed by the "
                           "caller, but got only 2 positional arguments."):
        jax.grad(lambda x, y: x * y, argnums=(0, 2))(2., 3.)


@pytest.mark.spec("AD-56")
def test_grad_needs_a_callable(jax, jnp):
    with raises(TypeError, "Expected a callable value, got 3"):
        jax.grad(3)


# -- AD-57: grad input and output types ------------------------------------------------------

@pytest.mark.spec("AD-57")
@pytest.mark.parametrize("fn", ["grad", "value_and_grad"])
def test_grad_non_scalar_output(jax, jnp, fn):
    with raises(TypeError, "Gradient only defined for scalar-output functions. "
                           "Output had shape: (3,)."):
        getattr(jax, fn)(lambda x: x * jnp.ones(3))(2.)


@pytest.mark.spec("AD-57")
@pytest.mark.parametrize("arg,name", [(2, "int32"), (True, "bool")])
def test_grad_integer_input(jax, jnp, arg, name):
    with raises(TypeError, "grad requires real- or complex-valued inputs (input "
                           "dtype that is a sub-dtype of np.inexact), but got "
                           f"{name}. If you want to use Boolean- or integer-valued "
                           "inputs, use vjp or set allow_int to True."):
        jax.grad(lambda x: x * 2.)(arg)


@pytest.mark.spec("AD-57")
def test_grad_allow_int_gives_float0(jax, jnp):
    g = jax.grad(lambda x: x * 2., allow_int=True)(2)
    assert is_float0(jax, g)
    gx, gn = jax.grad(lambda x, n: x * n, argnums=(0, 1), allow_int=True)(2., 3)
    close(gx, 3.)
    assert is_float0(jax, gn)


@pytest.mark.spec("AD-57")
def test_grad_integer_output(jax, jnp):
    with raises(TypeError, "grad requires real-valued outputs (output dtype that is "
                           "a sub-dtype of np.floating), but got int32. For "
                           "differentiation of functions with integer outputs, use "
                           "jax.vjp directly."):
        jax.grad(lambda x: x * 2, allow_int=True)(2)


@pytest.mark.spec("AD-57")
def test_grad_complex_output_needs_holomorphic(jax, jnp):
    msg = ("grad requires real-valued outputs (output dtype that is a sub-dtype of "
           "np.floating), but got complex64. For holomorphic differentiation, pass "
           "holomorphic=True. For differentiation of non-holomorphic functions "
           "involving complex outputs, use jax.vjp directly.")
    with raises(TypeError, msg):
        jax.grad(lambda z: z * z)(1 + 1j)
    with raises(TypeError, msg):
        jax.grad(lambda x: x * (1 + 1j))(1.)


@pytest.mark.spec("AD-57")
def test_grad_complex_input_real_output(jax, jnp):
    g = jax.grad(lambda z: jnp.real(z * z))(1 + 1j)
    assert g.dtype == np.complex64
    # re(z^2) = x^2 - y^2; JAX gives the conjugate of (d/dx + i d/dy) = 2x - 2iy.
    np.testing.assert_allclose(np.asarray(g), 2 + 2j)


@pytest.mark.spec("AD-57")
def test_grad_holomorphic(jax, jnp):
    g = jax.grad(lambda z: z ** 2, holomorphic=True)(1 + 1j)
    assert g.dtype == np.complex64
    np.testing.assert_allclose(np.asarray(g), 2 + 2j)


@pytest.mark.spec("AD-57")
def test_grad_holomorphic_needs_complex(jax, jnp):
    with raises(TypeError, "grad with holomorphic=True requires inputs with complex "
                           "dtype, but got float32."):
        jax.grad(lambda x: x * x, holomorphic=True)(1.)
    with raises(TypeError, "grad with holomorphic=True requires outputs with complex "
                           "dtype, but got float32."):
        jax.grad(lambda z: jnp.real(z * z), holomorphic=True)(1 + 1j)


@pytest.mark.spec("AD-57")
def test_grad_non_jax_argument(jax, jnp):
    with raises(TypeError, "Argument 'a' of type <class 'str'> is not a valid JAX type"):
        jax.grad(lambda x: x)("a")


# -- AD-58: weak types -----------------------------------------------------------------------

@pytest.mark.spec("AD-58")
def test_grad_keeps_weak_type_of_python_scalar(jax, jnp):
    assert repr(jax.grad(lambda x: 2 * x)(1.)) == \
        "Array(2., dtype=float32, weak_type=True)"


@pytest.mark.spec("AD-58")
def test_grad_strong_input_gives_strong_gradient(jax, jnp):
    assert repr(jax.grad(lambda x: 2 * x)(jnp.float32(1.))) == \
        "Array(2., dtype=float32)"
    assert repr(jax.grad(lambda x: 2 * x)(jnp.float16(1.))) == \
        "Array(2., dtype=float16)"


# -- AD-59: jnp.where and NaN gradients --------------------------------------------------------

@pytest.mark.spec("AD-59")
def test_where_nan_trap(jax, jnp):
    g = jax.grad(lambda x: jnp.where(x > 0, jnp.sqrt(x), 0.))(0.)
    assert np.isnan(np.asarray(g))


@pytest.mark.spec("AD-59")
def test_double_where_fix(jax, jnp):
    def safe_sqrt(x):
        safe_x = jnp.where(x > 0, x, 1.)
        return jnp.where(x > 0, jnp.sqrt(safe_x), 0.)

    close(jax.grad(safe_sqrt)(0.), 0.)
    close(jax.grad(safe_sqrt)(4.), 0.25)


@pytest.mark.spec("AD-59")
def test_where_routes_gradient_to_selected_branch(jax, jnp):
    f = lambda x: jnp.sum(jnp.where(x > 0, x ** 2, -3 * x))
    close(jax.grad(f)(jnp.array([-1., 2., 0.5])), [-3., 4., 1.])
    relu = lambda x: jnp.sum(jnp.where(x > 0, x, 0.))
    close(jax.grad(relu)(jnp.array([-1., 2.])), [0., 1.])


# -- AD-60: higher order and composition with jit ------------------------------------------------

def cubic(jnp):
    return lambda x: jnp.sum(x ** 3) + x[0] * x[1]


@pytest.mark.spec("AD-60")
def test_grad_of_grad(jax, jnp):
    close(jax.grad(jax.grad(jnp.sin))(1.), -np.sin(np.float32(1.)))
    close(jax.grad(jax.grad(jax.grad(lambda x: x ** 4)))(2.), 48.)


@pytest.mark.spec("AD-60")
def test_jvp_of_grad(jax, jnp):
    out, tan = jax.jvp(jax.grad(jnp.sin), (1.,), (1.,))
    close(out, np.cos(np.float32(1.)))
    close(tan, -np.sin(np.float32(1.)))


@pytest.mark.spec("AD-60")
def test_forward_over_reverse_hvp(jax, jnp):
    f = cubic(jnp)
    x = jnp.array([1., 2., 3.])
    v = jnp.array([1., 0., 2.])
    hvp = jax.jvp(jax.grad(f), (x,), (v,))[1]
    close(hvp, [6., 1., 36.])
    close(hvp, jax.hessian(f)(x) @ v)


@pytest.mark.spec("AD-60")
def test_derivatives_under_jit(jax, jnp):
    f = cubic(jnp)
    x = jnp.array([1., 2., 3.])
    v = jnp.array([1., 0., 2.])
    close(jax.jit(jax.grad(f))(x), [5., 13., 27.])
    close(jax.jit(jax.grad(jax.jit(f)))(x), [5., 13., 27.])
    close(jax.grad(jax.jit(f))(x), [5., 13., 27.])
    hvp = jax.jit(lambda x, v: jax.jvp(jax.grad(jax.jit(f)), (x,), (v,))[1])
    close(hvp(x, v), [6., 1., 36.])
    close(jax.jit(jax.grad(jax.jit(jax.grad(jnp.sin))))(1.), -np.sin(np.float32(1.)))


@pytest.mark.spec("AD-60")
def test_make_jaxpr_of_grad(jax, jnp):
    f = cubic(jnp)
    x = jnp.array([1., 2., 3.])
    closed = jax.make_jaxpr(jax.grad(f))(x)
    # Only ordinary lax primitives: autodiff leaves nothing of its own behind.
    known = {"integer_pow", "pow", "mul", "add", "add_any", "reduce_sum", "slice",
             "squeeze", "broadcast_in_dim", "pad", "dynamic_slice",
             "dynamic_update_slice", "gather", "scatter-add", "scatter_add",
             "convert_element_type", "reshape", "select_n", "neg"}
    names = {e.primitive.name for e in closed.jaxpr.eqns}
    assert names <= known, names - known
    out, = jax.core.eval_jaxpr(closed.jaxpr, closed.consts, x)
    close(out, [5., 13., 27.])


@pytest.mark.spec("AD-60")
def test_make_jaxpr_of_grad_of_jit(jax, jnp):
    f = cubic(jnp)
    x = jnp.array([1., 2., 3.])
    closed = jax.make_jaxpr(jax.grad(jax.jit(f)))(x)
    out, = jax.core.eval_jaxpr(closed.jaxpr, closed.consts, x)
    close(out, [5., 13., 27.])


# -- AD-61: concrete values under grad --------------------------------------------------------------

@pytest.mark.spec("AD-61")
def test_python_control_flow_under_grad(jax, jnp):
    def f(x):
        if x > 0:
            return 2 * x
        return -x

    close(jax.grad(f)(3.), 2.)
    close(jax.grad(f)(-3.), -1.)


@pytest.mark.spec("AD-61")
@pytest.mark.parametrize("conv", ["int", "bool", "item"])
def test_int_bool_item_of_concrete_primal(jax, jnp, conv):
    fn = {"int": int, "bool": bool, "item": lambda x: x.item()}[conv]
    want = {"int": 3., "bool": 1., "item": 3.}[conv]
    close(jax.grad(lambda x: fn(x) * x)(3.), want)


@pytest.mark.spec("AD-61")
@pytest.mark.parametrize("how", ["grad", "jvp"])
def test_float_under_autodiff_is_a_concretization_error(jax, jnp, how):
    f = lambda x: float(x) * x
    with pytest.raises(jax.errors.ConcretizationTypeError) as info:
        if how == "grad":
            jax.grad(f)(3.)
        else:
            jax.jvp(f, (3.,), (1.,))
    assert str(info.value).splitlines()[1] == (
        "The problem arose with the `float` function. If trying to convert the data "
        "type of a value, try using `x.astype(float)` or `jnp.array(x, float)` instead.")


@pytest.mark.spec("AD-61")
def test_int_under_jit_of_grad_is_a_concretization_error(jax, jnp):
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(jax.grad(lambda x: int(x) * x))(3.)


# -- AD-62: jacfwd / jacrev / hessian ---------------------------------------------------------------

JACOBIANS = ["jacfwd", "jacrev"]


def shapes(jax, tree):
    return jax.tree_util.tree_map(np.shape, tree)


@pytest.mark.spec("AD-62")
@pytest.mark.parametrize("jac", JACOBIANS)
def test_jacobian_rn_to_rm(jax, jnp, jac):
    A = jnp.arange(6.).reshape(2, 3)
    f = lambda x: jnp.tanh(A @ x)
    x = jnp.array([.1, .2, .3])
    J = getattr(jax, jac)(f)(x)
    assert J.shape == (2, 3)
    y = np.tanh(np.asarray(A) @ np.asarray(x))
    close(J, (1 - y ** 2)[:, None] * np.asarray(A), rtol=1e-5)


@pytest.mark.spec("AD-62")
@pytest.mark.parametrize("jac", JACOBIANS + ["hessian"])
def test_jacobian_scalar_in_and_out(jax, jnp, jac):
    J = getattr(jax, jac)(jnp.sin)(1.)
    assert np.shape(J) == ()
    want = -np.sin(np.float32(1.)) if jac == "hessian" else np.cos(np.float32(1.))
    close(J, want)
    x = jnp.array([1., 2., 3.])
    assert np.shape(getattr(jax, jac)(lambda x: jnp.sum(x ** 2))(x)) == \
        ((3, 3) if jac == "hessian" else (3,))


@pytest.mark.spec("AD-62")
def test_hessian_shape_of_vector_function(jax, jnp):
    A = jnp.arange(6.).reshape(2, 3)
    assert jax.hessian(lambda x: jnp.tanh(A @ x))(jnp.ones(3)).shape == (2, 3, 3)
    close(jax.hessian(lambda x: jnp.sum(x ** 3))(jnp.array([1., 2.])),
          [[6., 0.], [0., 12.]])


@pytest.mark.spec("AD-62")
@pytest.mark.parametrize("jac", JACOBIANS)
def test_jacobian_dict_in_tuple_out(jax, jnp, jac):
    f = lambda d: (d["a"] * 2, jnp.sum(d["b"] * d["a"]))
    J = getattr(jax, jac)(f)({"a": 1., "b": jnp.array([1., 2.])})
    assert shapes(jax, J) == ({"a": (), "b": (2,)}, {"a": (), "b": (2,)})
    close(J[0]["a"], 2.)
    close(J[0]["b"], [0., 0.])
    close(J[1]["a"], 3.)
    close(J[1]["b"], [1., 1.])


@pytest.mark.spec("AD-62")
def test_hessian_of_dict_input(jax, jnp):
    H = jax.hessian(lambda d: d["a"] ** 2 * jnp.sum(d["b"]))(
        {"a": 1., "b": jnp.ones(2)})
    assert shapes(jax, H) == {"a": {"a": (), "b": (2,)}, "b": {"a": (2,), "b": (2, 2)}}
    close(H["a"]["a"], 4.)
    close(H["a"]["b"], [2., 2.])
    close(H["b"]["b"], np.zeros((2, 2)))


@pytest.mark.spec("AD-62")
@pytest.mark.parametrize("jac", JACOBIANS + ["hessian"])
def test_jacobian_argnums(jax, jnp, jac):
    fn = getattr(jax, jac)
    f = lambda x, y: x * y ** 2
    J = fn(f, argnums=(0, 1))(jnp.ones(2), 3.)
    assert isinstance(J, tuple) and len(J) == 2
    if jac == "hessian":
        assert shapes(jax, J) == (((2, 2, 2), (2, 2)), ((2, 2), (2,)))
    else:
        assert shapes(jax, J) == ((2, 2), (2,))
        close(J[0], 9. * np.eye(2))
        close(J[1], [6., 6.])
    assert np.shape(fn(f, argnums=1)(jnp.ones(2), 3.)) == (2,)


@pytest.mark.spec("AD-62")
@pytest.mark.parametrize("jac", JACOBIANS + ["hessian"])
def test_jacobian_has_aux(jax, jnp, jac):
    J, aux = getattr(jax, jac)(lambda x: (jnp.sin(x), jnp.cos(x)), has_aux=True)(1.)
    close(aux, np.cos(np.float32(1.)))
    want = -np.sin(np.float32(1.)) if jac == "hessian" else np.cos(np.float32(1.))
    close(J, want)


@pytest.mark.spec("AD-62")
@pytest.mark.parametrize("jac", ["jacfwd", "hessian"])
def test_jacfwd_integer_input(jax, jnp, jac):
    with raises(TypeError, "jacfwd requires real-valued inputs (input dtype that is a "
                           "sub-dtype of np.floating), but got int32. For holomorphic "
                           "differentiation, pass holomorphic=True. For "
                           "differentiation of non-holomorphic functions involving "
                           "complex inputs or integer inputs, use jax.jvp directly."):
        getattr(jax, jac)(lambda x: x * 2)(jnp.arange(3))


@pytest.mark.spec("AD-62")
def test_jacrev_integer_input(jax, jnp):
    with raises(TypeError, "jacrev requires real- or complex-valued inputs (input "
                           "dtype that is a sub-dtype of np.inexact), but got int32. "
                           "If you want to use Boolean- or integer-valued inputs, use "
                           "vjp or set allow_int to True."):
        jax.jacrev(lambda x: x * 2)(jnp.arange(3))


@pytest.mark.spec("AD-62")
def test_jacrev_integer_output(jax, jnp):
    with raises(TypeError, "jacrev requires real-valued outputs (output dtype that is "
                           "a sub-dtype of np.floating), but got int32. For "
                           "differentiation of functions with integer outputs, use "
                           "jax.vjp directly."):
        jax.jacrev(lambda x: (x * 2).astype(jnp.int32))(1.)


@pytest.mark.spec("AD-62")
def test_jacfwd_complex_input_needs_holomorphic(jax, jnp):
    with raises(TypeError, "jacfwd requires real-valued inputs (input dtype that is a "
                           "sub-dtype of np.floating), but got complex64."):
        jax.jacfwd(lambda x: x * 2)(1 + 1j)
    J = jax.jacfwd(lambda z: z ** 2, holomorphic=True)(1 + 1j)
    np.testing.assert_allclose(np.asarray(J), 2 + 2j)


# -- AD-63: linear_transpose ----------------------------------------------------------------------

@pytest.mark.spec("AD-63")
def test_linear_transpose(jax, jnp):
    f_t = jax.linear_transpose(lambda x: 2 * x + jnp.sum(x), jnp.ones(3))
    out = f_t(jnp.array([1., 2., 3.]))
    assert isinstance(out, tuple) and len(out) == 1
    close(out[0], [8., 10., 12.])


@pytest.mark.spec("AD-63")
def test_linear_transpose_several_primals(jax, jnp):
    gx, gy = jax.linear_transpose(lambda x, y: x + 3 * y, 1., 1.)(1.)
    close(gx, 1.)
    close(gy, 3.)


@pytest.mark.spec("AD-63")
def test_linear_transpose_integer_to_integer(jax, jnp):
    out, = jax.linear_transpose(lambda x: 2 * x, jnp.arange(3))(jnp.arange(3))
    assert out.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(out), [0, 2, 4])


@pytest.mark.spec("AD-63")
def test_linear_transpose_float_to_integer_is_rejected(jax, jnp):
    with raises(TypeError, "linear_transpose only supports [float or complex] -> "
                           "[float or complex], and integer -> integer functions, "
                           "but got"):
        jax.linear_transpose(lambda x: x.astype(jnp.int32), jnp.ones(3))


@pytest.mark.spec("AD-63")
def test_linear_transpose_cotangent_checks(jax, jnp):
    f_t = jax.linear_transpose(lambda x: 2 * x, jnp.ones(3))
    with raises(TypeError, "cotangent type does not match function output, "
                           "expected"):
        f_t(jnp.ones(2))
    with raises(TypeError, "cotangent type does not match function output, "
                           "expected"):
        f_t(jnp.ones(3, jnp.int32))
    with raises(TypeError, "cotangent tree does not match function output, "
                           "expected PyTreeDef(*) but got PyTreeDef((*,))"):
        f_t((jnp.ones(3),))


# -- AD-64: stop_gradient ---------------------------------------------------------------------------

@pytest.mark.spec("AD-64")
def test_stop_gradient_zero_gradient(jax, jnp):
    lax = jax.lax
    close(jax.grad(lambda x: x * lax.stop_gradient(x))(3.), 3.)
    close(jax.grad(lambda x: lax.stop_gradient(x ** 2))(3.), 0.)
    out, tan = jax.jvp(lax.stop_gradient, (1.,), (1.,))
    close(out, 1.)
    close(tan, 0.)


@pytest.mark.spec("AD-64")
def test_stop_gradient_on_pytrees(jax, jnp):
    lax = jax.lax
    f = lambda d: jnp.sum(lax.stop_gradient(d)["a"]) * d["b"] + d["b"]
    g = jax.grad(f)({"a": jnp.ones(2), "b": 2.})
    close(g["a"], [0., 0.])
    close(g["b"], 3.)


@pytest.mark.spec("AD-64")
def test_stop_gradient_integer_passes_through(jax, jnp):
    out = jax.lax.stop_gradient(jnp.arange(3))
    assert out.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(out), [0, 1, 2])
    out = jax.lax.stop_gradient({"n": jnp.arange(2), "x": jnp.ones(2)})
    assert out["n"].dtype == np.int32 and out["x"].dtype == np.float32


@pytest.mark.spec("AD-64")
def test_stop_gradient_stages_one_primitive(jax, jnp):
    closed = jax.make_jaxpr(jax.lax.stop_gradient)(1.)
    assert [e.primitive.name for e in closed.jaxpr.eqns] == ["stop_gradient"]
