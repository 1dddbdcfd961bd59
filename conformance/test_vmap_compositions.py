"""``vmap`` composed with ``grad``, ``jit``, ``jvp``/``vjp``, itself, and the
Jacobians that are built on it (SPEC VMAP-40 .. VMAP-49).

Expected values come from a Python loop over examples (for ``vmap``) or from
closed-form derivatives (for Jacobians), computed with NumPy.
"""
import numpy as np
import pytest

W = np.array([0.5, -1., 2.], np.float32)
XS = np.arange(6., dtype=np.float32).reshape(2, 3) / 4.


def close(out, expected, rtol=1e-5):
    assert np.shape(out) == np.shape(expected)
    np.testing.assert_allclose(np.asarray(out), expected, rtol=rtol, atol=1e-6)


def loss(jnp):
    """A per-example loss of weights ``w`` and one example ``x``."""
    return lambda w, x: jnp.sum(jnp.tanh(w * x) * x)


def loss_grad_w(w, x):
    """d/dw of sum(tanh(w x) x), in closed form."""
    return (1 - np.tanh(w * x) ** 2) * x * x


def n_eqns(jax, f, *args):
    return len(jax.make_jaxpr(f)(*args).eqns)


# -- VMAP-40: per-example gradients ----------------------------------------------

@pytest.mark.spec("VMAP-40")
def test_vmap_of_grad_gives_per_example_gradients(jax, jnp):
    f = loss(jnp)
    out = jax.vmap(jax.grad(f), in_axes=(None, 0))(W, XS)
    loop = np.stack([np.asarray(jax.grad(f)(W, x)) for x in XS])
    close(out, loop)
    close(out, np.stack([loss_grad_w(W, x) for x in XS]))


@pytest.mark.spec("VMAP-40")
def test_vmap_of_grad_with_respect_to_the_mapped_argument(jax, jnp):
    out = jax.vmap(jax.grad(lambda x: jnp.sum(jnp.sin(x) * x)))(XS)
    close(out, np.cos(XS) * XS + np.sin(XS))


@pytest.mark.spec("VMAP-40")
def test_vmap_of_value_and_grad_with_argnums(jax, jnp):
    f = loss(jnp)
    val, (gw, gx) = jax.vmap(jax.value_and_grad(f, argnums=(0, 1)), in_axes=(None, 0))(W, XS)
    close(val, [np.sum(np.tanh(W * x) * x) for x in XS])
    close(gw, np.stack([loss_grad_w(W, x) for x in XS]))
    close(gx, np.stack([(1 - np.tanh(W * x) ** 2) * W * x + np.tanh(W * x) for x in XS]))


@pytest.mark.spec("VMAP-40")
def test_grad_of_a_summed_vmap(jax, jnp):
    xs = jnp.asarray(XS[0])
    out = jax.grad(lambda w: jax.vmap(lambda x: jnp.sin(w * x))(xs).sum())(0.7)
    close(out, np.sum(np.cos(0.7 * XS[0]) * XS[0]))


@pytest.mark.spec("VMAP-40")
def test_grad_through_vmap_with_respect_to_the_mapped_input(jax, jnp):
    out = jax.grad(lambda xs: jax.vmap(lambda x: jnp.sin(x) * x)(xs).sum())(jnp.asarray(XS))
    close(out, np.cos(XS) * XS + np.sin(XS))


@pytest.mark.spec("VMAP-40")
def test_grad_through_vmap_with_out_axes(jax, jnp):
    def f(w):
        out = jax.vmap(lambda x: w * x, in_axes=1, out_axes=1)(jnp.asarray(XS))
        return jnp.sum(out * jnp.asarray(XS))
    close(jax.grad(f)(0.7), np.sum(XS * XS))


# -- VMAP-41: vmap and jit ---------------------------------------------------------

@pytest.mark.spec("VMAP-41")
def test_jit_of_vmap(jax, jnp):
    f = jax.jit(jax.vmap(lambda a, b: jnp.sin(a) * b, in_axes=(0, None)))
    close(f(jnp.asarray(W), 2.), np.sin(W) * 2.)


@pytest.mark.spec("VMAP-41")
def test_vmap_of_jit(jax, jnp):
    f = jax.vmap(jax.jit(lambda a, b: jnp.sin(a) * b), in_axes=(0, None))
    close(f(jnp.asarray(W), 2.), np.sin(W) * 2.)


@pytest.mark.spec("VMAP-41")
def test_vmap_of_jit_is_one_jit_holding_the_batched_jaxpr(jax, jnp):
    f = jax.vmap(jax.jit(lambda a, b: jnp.sin(a) * b), in_axes=(0, None))
    closed = jax.make_jaxpr(f)(jnp.asarray(W), 2.)
    (eqn,) = closed.eqns
    assert eqn.primitive.name == "jit"
    inner = eqn.params["jaxpr"]
    assert [str(a) for a in inner.in_avals] == ["float32[3]", "~float32[]"]
    assert [str(a) for a in inner.out_avals] == ["float32[3]"]
    assert [e.primitive.name for e in inner.eqns] == ["sin", "convert_element_type", "mul"]


@pytest.mark.spec("VMAP-41")
def test_vmap_of_jit_with_an_unbatched_output(jax, jnp):
    f = jax.vmap(jax.jit(lambda a, b: (a * b, b + 1.)), in_axes=(0, None),
                 out_axes=(0, None))
    prod, b1 = f(jnp.asarray(W), 2.)
    close(prod, W * 2.)
    close(b1, 3.)


@pytest.mark.spec("VMAP-41")
def test_jit_of_vmap_of_grad(jax, jnp):
    f = jax.jit(jax.vmap(jax.grad(loss(jnp)), in_axes=(None, 0)))
    close(f(W, XS), np.stack([loss_grad_w(W, x) for x in XS]))


# -- VMAP-42: nested vmap -----------------------------------------------------------

@pytest.mark.spec("VMAP-42")
def test_nested_vmap_outer_product(jax, jnp):
    inner = jax.vmap(lambda a, b: a * b, in_axes=(None, 0))
    out = jax.vmap(inner, in_axes=(0, None))(jnp.asarray(W), jnp.asarray(XS[1]))
    close(out, np.outer(W, XS[1]))


@pytest.mark.spec("VMAP-42")
def test_nested_vmap_with_in_and_out_axes(jax, jnp):
    t = np.arange(24., dtype=np.float32).reshape(2, 3, 4)
    inner = jax.vmap(lambda a: a + 1., out_axes=1)
    out = jax.vmap(inner, in_axes=1, out_axes=0)(jnp.asarray(t))
    # outer maps axis 1 (size 3) to front; inner maps the old axis 0 (size 2)
    # and puts it last of the per-example (4,) result.
    expected = np.stack([np.stack([t[i, j] + 1. for i in range(2)], axis=1)
                         for j in range(3)])
    close(out, expected)


@pytest.mark.spec("VMAP-42")
def test_nested_vmap_over_both_axes_equals_elementwise(jax, jnp):
    f = jax.vmap(jax.vmap(lambda a: jnp.sin(a) * a))
    close(f(jnp.asarray(XS)), np.sin(XS) * XS)


@pytest.mark.spec("VMAP-42")
def test_nested_vmap_inner_axis_size(jax, jnp):
    f = jax.vmap(lambda a: jax.vmap(lambda: a * 2., axis_size=4)())
    close(f(jnp.asarray(W)), np.repeat(2. * W[:, None], 4, axis=1))


@pytest.mark.spec("VMAP-42")
def test_nested_vmap_closing_over_the_outer_tracer(jax, jnp):
    f = jax.vmap(lambda x: jax.vmap(lambda y: x * y)(jnp.asarray(W)))
    close(f(jnp.asarray(XS[1])), np.outer(XS[1], W))


# -- VMAP-43: vmap of jvp and vjp -----------------------------------------------------

@pytest.mark.spec("VMAP-43")
def test_vmap_of_jvp_over_primals_and_tangents(jax, jnp):
    p, t = jax.vmap(lambda x, tx: jax.jvp(jnp.sin, (x,), (tx,)))(jnp.asarray(W),
                                                               jnp.ones(3))
    close(p, np.sin(W))
    close(t, np.cos(W))


@pytest.mark.spec("VMAP-43")
def test_vmap_of_jvp_over_tangents_gives_jacobian_rows(jax, jnp):
    f = lambda v: jnp.sin(v) * v[0]
    w = jnp.asarray(W)
    _, jac_t = jax.vmap(lambda t: jax.jvp(f, (w,), (t,)))(jnp.eye(3))
    jac = np.diag(np.cos(W) * W[0])
    jac[:, 0] += np.sin(W)
    close(jac_t, jac.T)


@pytest.mark.spec("VMAP-43")
def test_vmap_of_vjp(jax, jnp):
    out = jax.vmap(lambda x, c: jax.vjp(jnp.sin, x)[1](c))(jnp.asarray(W), jnp.asarray(XS[1]))
    assert isinstance(out, tuple) and len(out) == 1
    close(out[0], np.cos(W) * XS[1])


@pytest.mark.spec("VMAP-43")
def test_vmap_of_a_vjp_function_over_cotangents(jax, jnp):
    _, pullback = jax.vjp(lambda v: jnp.sin(v) * 2., jnp.asarray(W))
    (rows,) = jax.vmap(pullback)(jnp.eye(3))
    close(rows, np.diag(2. * np.cos(W)))


# -- VMAP-44: vmap of Jacobians ------------------------------------------------------

def _jac_sin_times_first(v):
    """Jacobian of sin(v) * v[0]."""
    jac = np.diag(np.cos(v) * v[0])
    jac[:, 0] += np.sin(v)
    return jac


@pytest.mark.spec("VMAP-44")
@pytest.mark.parametrize("jacobian", ["jacfwd", "jacrev"])
def test_vmap_of_a_jacobian(jax, jnp, jacobian):
    jac = getattr(jax, jacobian)(lambda v: jnp.sin(v) * v[0])
    out = jax.vmap(jac)(jnp.asarray(XS))
    close(out, np.stack([_jac_sin_times_first(x) for x in XS]))


@pytest.mark.spec("VMAP-44")
def test_vmap_of_hessian(jax, jnp):
    # jit: one compilation for real JAX instead of one per op.
    out = jax.jit(jax.vmap(jax.hessian(lambda v: jnp.sum(v * v * v))))(jnp.asarray(XS))
    close(out, np.stack([np.diag(6. * x) for x in XS]))


@pytest.mark.spec("VMAP-44")
def test_jacobian_of_a_vmapped_function(jax, jnp):
    f = jax.vmap(lambda v: jnp.sin(v))
    close(jax.jacrev(f)(jnp.asarray(W)), np.diag(np.cos(W)))
    close(jax.jacfwd(f)(jnp.asarray(W)), np.diag(np.cos(W)))


# -- VMAP-45: Jacobians of pytrees -----------------------------------------------------

def _tree_fun(jnp):
    return lambda d: {"o": d["a"] * d["b"][0], "s": jnp.sum(d["a"])}


def _check_tree_jacobian(jac):
    a = W
    assert set(jac) == {"o", "s"}
    assert set(jac["o"]) == {"a", "b"} and isinstance(jac["o"]["b"], tuple)
    close(jac["o"]["a"], 2. * np.eye(3))
    close(jac["o"]["b"][0], a)
    close(jac["s"]["a"], np.ones(3))
    close(jac["s"]["b"][0], 0.)


@pytest.mark.spec("VMAP-45")
@pytest.mark.parametrize("jacobian", ["jacfwd", "jacrev"])
def test_jacobian_of_a_pytree_function(jax, jnp, jacobian):
    jac = getattr(jax, jacobian)(_tree_fun(jnp))({"a": jnp.asarray(W), "b": (2.,)})
    _check_tree_jacobian(jac)


@pytest.mark.spec("VMAP-45")
@pytest.mark.parametrize("jacobian", ["jacfwd", "jacrev"])
def test_jacobian_of_a_matrix_function_has_out_then_in_shape(jax, jnp, jacobian):
    m = jnp.asarray(XS)
    jac = getattr(jax, jacobian)(lambda x: x.T * 3.)(m)
    expected = np.zeros((3, 2, 2, 3), np.float32)
    for i in range(2):
        for j in range(3):
            expected[j, i, i, j] = 3.
    close(jac, expected)


@pytest.mark.spec("VMAP-45")
@pytest.mark.parametrize("jacobian", ["jacfwd", "jacrev"])
def test_jacobian_of_a_tuple_output(jax, jnp, jacobian):
    j1, j2 = getattr(jax, jacobian)(lambda v: (jnp.sin(v), v[1] * 2.))(jnp.asarray(W))
    close(j1, np.diag(np.cos(W)))
    close(j2, [0., 2., 0.])


# -- VMAP-46: has_aux and argnums -------------------------------------------------------

@pytest.mark.spec("VMAP-46")
@pytest.mark.parametrize("jacobian", ["jacfwd", "jacrev"])
def test_jacobian_has_aux(jax, jnp, jacobian):
    jac, aux = getattr(jax, jacobian)(lambda v: (jnp.sin(v), {"s": v.sum()}),
                                      has_aux=True)(jnp.asarray(W))
    close(jac, np.diag(np.cos(W)))
    assert set(aux) == {"s"}
    close(aux["s"], W.sum())


@pytest.mark.spec("VMAP-46")
@pytest.mark.parametrize("jacobian", ["jacfwd", "jacrev"])
def test_jacobian_argnums_tuple(jax, jnp, jacobian):
    ja, jb = getattr(jax, jacobian)(lambda a, b: a * b, argnums=(0, 1))(jnp.asarray(W), 2.)
    close(ja, 2. * np.eye(3))
    close(jb, W)


@pytest.mark.spec("VMAP-46")
@pytest.mark.parametrize("jacobian", ["jacfwd", "jacrev"])
def test_jacobian_argnums_int_picks_one_argument(jax, jnp, jacobian):
    jb = getattr(jax, jacobian)(lambda a, b: a * b, argnums=1)(jnp.asarray(W), 2.)
    close(jb, W)


@pytest.mark.spec("VMAP-46")
def test_hessian_argnums_tuple(jax, jnp):
    h = jax.jit(jax.hessian(lambda a, b: jnp.sum(a * a * b), argnums=(0, 1)))(jnp.ones(3), 3.)
    (haa, hab), (hba, hbb) = h
    close(haa, 6. * np.eye(3))
    close(hab, 2. * np.ones(3))
    close(hba, 2. * np.ones(3))
    close(hbb, 0.)


@pytest.mark.spec("VMAP-46")
def test_hessian_has_aux(jax, jnp):
    h, aux = jax.hessian(lambda v: (jnp.sum(jnp.sin(v)), v[0]), has_aux=True)(jnp.asarray(W))
    close(h, np.diag(-np.sin(W)))
    close(aux, W[0])


# -- VMAP-47: Jacobians are one batched program ----------------------------------------

@pytest.mark.spec("VMAP-47")
def test_jacrev_jaxpr_does_not_grow_with_the_output_size(jax, jnp):
    f = jax.jacrev(lambda v: jnp.sin(v) * 2.)
    assert n_eqns(jax, f, jnp.ones(3)) == n_eqns(jax, f, jnp.ones(7))


@pytest.mark.spec("VMAP-47")
def test_jacfwd_jaxpr_does_not_grow_with_the_input_size(jax, jnp):
    f = jax.jacfwd(lambda v: jnp.sum(jnp.sin(v)) * v[0])
    assert n_eqns(jax, f, jnp.ones(3)) == n_eqns(jax, f, jnp.ones(7))


@pytest.mark.spec("VMAP-47")
def test_jacobian_jaxprs_have_a_matrix_shaped_result(jax, jnp):
    for jacobian in (jax.jacfwd, jax.jacrev):
        closed = jax.make_jaxpr(jacobian(lambda v: jnp.sin(v) * 2.))(jnp.ones(7))
        assert [str(v.aval) for v in closed.jaxpr.outvars] == ["float32[7,7]"]


# -- VMAP-48: Hessians ------------------------------------------------------------------

@pytest.mark.spec("VMAP-48")
def test_hessian_of_a_scalar_function(jax, jnp):
    h = jax.hessian(lambda v: jnp.sum(jnp.sin(v)) * v[0])(jnp.asarray(W))
    expected = np.diag(-np.sin(W) * W[0])
    expected[0, :] += np.cos(W)
    expected[:, 0] += np.cos(W)
    close(h, expected)


@pytest.mark.spec("VMAP-48")
def test_hessian_of_a_pytree_input(jax, jnp):
    h = jax.jit(jax.hessian(lambda d: d["x"] * d["x"] * d["y"]))({"x": 3., "y": 2.})
    close(h["x"]["x"], 4.)
    close(h["x"]["y"], 6.)
    close(h["y"]["x"], 6.)
    close(h["y"]["y"], 0.)


@pytest.mark.spec("VMAP-48")
def test_hessian_equals_jacfwd_of_jacrev(jax, jnp):
    f = lambda v: jnp.sum(jnp.tanh(v) * v)
    w = jnp.asarray(W)
    close(jax.hessian(f)(w), jax.jacfwd(jax.jacrev(f))(w))
    close(jax.hessian(f)(w), jax.jacrev(jax.jacrev(f))(w), rtol=1e-4)


# -- VMAP-49: one program whatever the batch size ---------------------------------------

@pytest.mark.spec("VMAP-49")
def test_vmap_of_grad_jaxpr_does_not_grow_with_the_batch(jax, jnp):
    f = jax.vmap(jax.grad(loss(jnp)), in_axes=(None, 0))
    assert n_eqns(jax, f, W, jnp.ones((2, 3))) == n_eqns(jax, f, W, jnp.ones((64, 3)))


@pytest.mark.spec("VMAP-49")
def test_vmap_of_jacobian_jaxpr_does_not_grow_with_the_batch(jax, jnp):
    f = jax.vmap(jax.jacrev(lambda v: jnp.sin(v) * v[0]))
    assert n_eqns(jax, f, jnp.ones((2, 3))) == n_eqns(jax, f, jnp.ones((64, 3)))


@pytest.mark.spec("VMAP-49")
def test_nested_vmap_jaxpr_has_the_batched_shapes(jax, jnp):
    f = jax.vmap(jax.vmap(lambda a, b: jnp.sin(a) * b, in_axes=(0, None)), in_axes=(None, 0))
    closed = jax.make_jaxpr(f)(jnp.ones(3), jnp.ones(2))
    assert [str(v.aval) for v in closed.jaxpr.outvars] == ["float32[2,3]"]
    assert n_eqns(jax, f, jnp.ones(3), jnp.ones(2)) == n_eqns(jax, f, jnp.ones(5), jnp.ones(4))
