"""custom_gradient, linear_call, symbolic zeros and optimize_remat in
jax.custom_derivatives (SPEC CDR-1 .. CDR-4)."""
import importlib
from functools import partial

import numpy as np
import pytest


@pytest.fixture
def cd(jax):
    return importlib.import_module(jax.__name__ + ".custom_derivatives")


@pytest.mark.spec("CDR-1")
def test_custom_gradient_value_and_grad(jax, jnp):
    @jax.custom_gradient
    def f(x):
        return x ** 2, lambda g: (g * x,)

    assert float(f(3.)) == 9.0
    assert float(jax.grad(f)(3.)) == 3.0          # the custom rule, not 2x
    assert float(jax.jit(jax.grad(f))(3.)) == 3.0
    xs = np.arange(4.0, dtype=np.float32)
    np.testing.assert_allclose(jax.vmap(jax.grad(f))(xs), xs)


@pytest.mark.spec("CDR-1")
def test_custom_gradient_two_args_and_bare_cotangent(jax, jnp, cd):
    @cd.custom_gradient
    def h(x, y):
        return x * y, lambda g: (g * y, g * x)

    gx, gy = jax.grad(h, argnums=(0, 1))(3., 4.)
    assert (float(gx), float(gy)) == (4.0, 3.0)
    assert gx.dtype == jnp.float32 and gx.weak_type

    @jax.custom_gradient
    def k(x):
        return jnp.sin(x), lambda g: g * 10.0     # one bare cotangent
    assert float(jax.grad(k)(1.)) == 10.0


@pytest.mark.spec("CDR-1")
def test_custom_gradient_jaxpr_is_a_custom_vjp(jax):
    @jax.custom_gradient
    def f(x):
        return x ** 2, lambda g: (g * x,)
    text = str(jax.make_jaxpr(f)(3.))
    assert "custom_vjp_call[" in text and "name=wrapped_fun" in text
    assert "fwd=fwd" in text and "bwd=bwd" in text


def _transpose(jax, f, example):
    return lambda y: jax.linear_transpose(f, example)(y)[0]


@pytest.mark.spec("CDR-2")
def test_linear_call_value_and_custom_transpose(jax, jnp, cd):
    def f(r, x):
        return x / r

    def t(r, ct):
        return ct / r

    def div_add(x, denom):
        return x + cd.linear_call(f, t, denom, x)

    assert float(div_add(9., 3.)) == 12.0
    assert float(jax.jit(div_add)(9., 3.)) == 12.0
    # The transpose uses t: d/dx (x + x/3) = 4/3, transposed at 18 -> 24.
    assert float(_transpose(jax, partial(div_add, denom=3.), 1.)(18.)) == 24.0
    p, tan = jax.jvp(partial(div_add, denom=3.), (9.,), (1.,))
    assert float(p) == 12.0
    np.testing.assert_allclose(float(tan), 4 / 3, rtol=1e-6)
    np.testing.assert_allclose(float(jax.grad(partial(div_add, denom=3.))(9.)), 4 / 3,
                               rtol=1e-6)
    text = str(jax.make_jaxpr(div_add)(9., 3.))
    assert "linear_call[" in text and "num_res=1" in text
    assert "callee={ lambda ; d:f32[] e:f32[]. let f:f32[] = div e d in (f,) }" in text


@pytest.mark.spec("CDR-2")
def test_linear_call_transposes_back_to_the_original(jax, cd):
    def custom_id(x):
        return cd.linear_call(lambda _, x: x, lambda _, t: 7. * jax.numpy.ones_like(t),
                              (), x)

    once = _transpose(jax, custom_id, 1.)
    twice = _transpose(jax, once, 1.)
    thrice = _transpose(jax, twice, 1.)
    assert [float(g(1.)) for g in (custom_id, once, twice, thrice)] == [1.0, 7.0, 1.0, 7.0]


@pytest.mark.spec("CDR-2")
def test_linear_call_errors(jax, jnp, cd):
    def bad(x):
        return cd.linear_call(lambda r, x: x, lambda r, t: (t, t), (), x)
    with pytest.raises(TypeError, match="transpose output pytree structure"):
        jax.linear_transpose(bad, 1.)(1.)

    def div(x, r):
        return cd.linear_call(lambda r, x: x / r, lambda r, t: t / r, r, x)
    with pytest.raises(AssertionError):
        jax.grad(div, 1)(9., 3.)
    with pytest.raises(NotImplementedError, match="linear_call"):
        jax.vmap(div)(jnp.arange(3.), jnp.ones(3))


@pytest.mark.spec("CDR-3")
def test_symbolic_zeros_fwd_sees_custom_vjp_primal(jax, cd):
    seen = []

    @jax.custom_vjp
    def f(x, y):
        return x * y

    def fwd(x, y):
        seen.append((type(x).__name__, x.perturbed, y.perturbed))
        xv, yv = cd.custom_vjp_primal_tree_values((x, y))
        return xv * yv, (xv, yv)

    def bwd(res, g):
        xv, yv = res
        return g * yv, g * xv

    f.defvjp(fwd, bwd, symbolic_zeros=True)
    assert float(jax.grad(f)(2., 3.)) == 3.0
    assert float(jax.grad(f, 1)(2., 3.)) == 2.0
    assert float(jax.jit(jax.grad(f))(2., 3.)) == 3.0
    assert seen == [("CustomVJPPrimal", True, False), ("CustomVJPPrimal", False, True),
                    ("CustomVJPPrimal", True, False)]
    xs = np.arange(3.0, dtype=np.float32)
    np.testing.assert_allclose(jax.vmap(jax.grad(f), (0, None))(xs, 3.), [3., 3., 3.])


@pytest.mark.spec("CDR-3")
def test_symbolic_zero_cotangent_reaches_bwd(jax, cd):
    kinds = []

    @jax.custom_vjp
    def g(x):
        return x, x * 2

    def gf(x):
        return g(x.value), None

    def gb(res, cts):
        kinds.append([type(c) is cd.SymbolicZero for c in cts])
        return (cts[0],)

    g.defvjp(gf, gb, symbolic_zeros=True)
    assert float(jax.grad(lambda x: g(x)[0])(2.)) == 1.0
    assert kinds == [[False, True]]


@pytest.mark.spec("CDR-3")
def test_custom_vjp_primal_helpers(jax, jnp, cd):
    p = cd.CustomVJPPrimal(1.0, True)
    assert (p.value, p.perturbed) == (1.0, True)
    assert cd.custom_vjp_primal_tree_values({"a": p}) == {"a": 1.0}
    with pytest.raises(TypeError, match="unexpected leaf type"):
        cd.custom_vjp_primal_tree_values({"a": 1.0})
    z = cd.zero_from_primal(jnp.ones(3))
    np.testing.assert_array_equal(z, np.zeros(3))
    assert z.dtype == jnp.float32
    zi = cd.zero_from_primal(jnp.arange(2))
    assert zi.dtype == jax.dtypes.float0 and zi.shape == (2,)
    sz = cd.zero_from_primal(jnp.ones(3), symbolic_zeros=True)
    assert type(sz) is cd.SymbolicZero


@pytest.mark.spec("CDR-4")
def test_optimize_remat(jax, jnp, cd):
    @jax.custom_vjp
    def f(x):
        return jnp.sin(x)

    def fwd(x):
        return jnp.sin(x), jnp.cos(x)

    def bwd(c, g):
        return (c * g,)

    f.defvjp(fwd, bwd, optimize_remat=True)
    np.testing.assert_allclose(float(f(1.)), np.sin(1.), rtol=1e-6)
    np.testing.assert_allclose(float(jax.grad(f)(1.)), np.cos(1.), rtol=1e-6)
    np.testing.assert_allclose(float(jax.jit(jax.grad(f))(1.)), np.cos(1.), rtol=1e-6)
    np.testing.assert_allclose(float(jax.grad(jax.checkpoint(f))(1.)), np.cos(1.),
                               rtol=1e-6)
    xs = np.arange(3.0, dtype=np.float32)
    np.testing.assert_allclose(jax.vmap(jax.grad(f))(xs), np.cos(xs), rtol=1e-6)
    text = str(jax.make_jaxpr(jax.grad(f))(1.))
    assert "remat_opt[" in text and "num_res=1" in text
    assert cd.remat_opt_p.name == "remat_opt"
    with pytest.raises(ValueError, match="Linearization failed"):
        jax.grad(jax.grad(f))(1.)
    with pytest.raises(NotImplementedError, match="symbolic zeros"):
        f.defvjp(fwd, bwd, symbolic_zeros=True, optimize_remat=True)


@pytest.mark.spec("CDR-3")
def test_symbolic_zero_answers_for_its_type(jax, jnp, cd):
    seen = []

    @jax.custom_jvp
    def f(x, y):
        return x * jnp.sum(y)

    def f_jvp(primals, tangents):
        tx, ty = tangents
        seen.extend((type(t) is cd.SymbolicZero, t.shape, t.dtype) for t in tangents
                    if type(t) is cd.SymbolicZero)
        x, y = primals
        return f(x, y), (tx * jnp.sum(y) if type(tx) is not cd.SymbolicZero
                         else jnp.zeros_like(x))

    f.defjvp(f_jvp, symbolic_zeros=True)
    assert float(jax.grad(f)(2., jnp.ones(3))) == 3.0
    assert seen == [(True, (3,), np.dtype("float32"))]
