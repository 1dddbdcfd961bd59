"""Conformance: ``jax.numpy`` polynomials (SPEC NPP-2 .. NPP-5).

Values are checked against NumPy's polynomial functions in float64 (with
float32 tolerances), dtypes and weak types against JAX's rules, and
``roots`` by the defining identity ``polyval(p, r) == 0``.
"""

import numpy as np
import pytest

F32 = dict(rtol=1e-5, atol=1e-5)


def f32(jnp, values):
    return jnp.asarray(np.asarray(values, np.float32))


def i32(jnp, values):
    return jnp.asarray(np.asarray(values, np.int32))


# -- roots and poly (NPP-2) ---------------------------------------------------

@pytest.mark.spec("NPP-2")
def test_roots_are_zeros_of_the_polynomial(jnp):
    p = np.array([2., -3., -11., 6.])
    r = jnp.roots(f32(jnp, p))
    assert r.dtype == np.complex64 and r.shape == (3,)
    np.testing.assert_allclose(np.sort_complex(np.asarray(r)),
                               np.sort_complex(np.roots(p)), **F32)
    np.testing.assert_allclose(np.polyval(p, np.asarray(r, np.complex128)), 0, atol=1e-3)


@pytest.mark.spec("NPP-2")
def test_roots_leading_zeros_and_small_inputs(jax, jnp):
    r = jnp.roots(f32(jnp, [0., 0., 1., -3., 2.]))
    np.testing.assert_allclose(np.sort_complex(np.asarray(r)), [1, 2], **F32)
    # Integers become inexact; fewer than two coefficients give no roots.
    empty = jnp.roots(i32(jnp, [5]))
    assert empty.shape == (0,) and empty.dtype == np.complex64
    with pytest.raises(ValueError, match="rank-1"):
        jnp.roots(jnp.ones((2, 2)))


@pytest.mark.spec("NPP-2")
def test_roots_under_jit_needs_strip_zeros_false(jax, jnp):
    p = f32(jnp, [0., 1., -1.])
    with pytest.raises(jax.errors.ConcretizationTypeError, match="strip_zeros=False"):
        jax.jit(jnp.roots)(p)
    r = np.asarray(jax.jit(lambda q: jnp.roots(q, strip_zeros=False))(p))
    assert r.shape == (2,)
    np.testing.assert_allclose(r[0], 1, **F32)
    assert np.isnan(r[1])


@pytest.mark.spec("NPP-2")
def test_poly_builds_monic_polynomial(jnp):
    out = jnp.poly(i32(jnp, [1, 2, 3]))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, np.poly([1, 2, 3]), **F32)
    assert jnp.poly(f32(jnp, [])).shape == ()
    a = np.array([[1., 2.], [3., 4.]])
    mat = jnp.poly(f32(jnp, a))
    assert mat.dtype == np.complex64     # eigenvalues are complex
    np.testing.assert_allclose(np.asarray(mat).real, np.poly(a), **F32)
    with pytest.raises(ValueError, match="non-empty square 2d"):
        jnp.poly(jnp.ones((2, 3)))


# -- evaluation and arithmetic (NPP-3) ----------------------------------------

@pytest.mark.spec("NPP-3")
def test_polyval_matches_numpy_and_keeps_integers(jax, jnp):
    p = np.array([3., -2., 0.5, 1.])
    x = np.linspace(-2, 2, 7)
    np.testing.assert_allclose(jnp.polyval(f32(jnp, p), f32(jnp, x)), np.polyval(p, x), **F32)
    out = jnp.polyval(i32(jnp, [1, 2, 3]), 2)
    assert out.dtype == np.int32 and int(out) == 11
    assert jnp.polyval(f32(jnp, [1., 2.]), 2.0).weak_type is False
    batched = jnp.polyval(jnp.ones((3, 2)), f32(jnp, [0., 1.]))
    np.testing.assert_allclose(batched, [1., 3.])


@pytest.mark.spec("NPP-3")
def test_polyval_grad_vmap_and_jaxpr(jax, jnp, test_util):
    p = f32(jnp, [1., -2., 3.])
    x = f32(jnp, [0.5, 1.5])
    test_util.check_grads(lambda p, x: jnp.polyval(p, x), (p, x), order=2,
                          modes=["fwd", "rev"], atol=1e-2, rtol=1e-2)
    looped = np.stack([np.asarray(jnp.polyval(p, xi)) for xi in x])
    np.testing.assert_allclose(jax.vmap(jnp.polyval, (None, 0))(p, x), looped, **F32)
    text = str(jax.make_jaxpr(lambda p, x: jnp.polyval(p, x, unroll=2))(p, 1.0))
    assert "name=polyval" in text and "scan[" in text and "unroll=2" in text


@pytest.mark.spec("NPP-3")
def test_polyval_needs_coefficient_axis(jnp):
    with pytest.raises(IndexError):
        jnp.polyval(1.0, 2.0)


@pytest.mark.spec("NPP-3")
def test_polyadd_polysub_align_on_the_right(jnp):
    a, b = np.array([1, 2]), np.array([1., 2., 3.])
    out = jnp.polyadd(i32(jnp, a), f32(jnp, b))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, np.polyadd(a, b))
    sub = jnp.polysub(i32(jnp, [1, 2]), i32(jnp, [1, 2, 3]))
    assert sub.dtype == np.int32
    np.testing.assert_array_equal(sub, np.polysub([1, 2], [1, 2, 3]))


@pytest.mark.spec("NPP-3")
def test_polymul_is_inexact_convolution(jnp):
    out = jnp.polymul(i32(jnp, [1, 2]), i32(jnp, [1, 2, 3]))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, np.polymul([1, 2], [1, 2, 3]))
    trimmed = jnp.polymul(i32(jnp, [0, 0, 1]), f32(jnp, [0., 2.]), trim_leading_zeros=True)
    np.testing.assert_allclose(trimmed, [2.])
    assert jnp.polymul(f32(jnp, []), f32(jnp, [1., 2.])).tolist() == [0., 0.]


@pytest.mark.spec("NPP-3")
def test_polydiv_quotient_and_remainder(jax, jnp):
    u, v = np.array([1., 3., 3., 2.]), np.array([1., 1.])
    q, r = jnp.polydiv(f32(jnp, u), f32(jnp, v))
    nq, nr = np.polydiv(u, v)
    np.testing.assert_allclose(q, nq, **F32)
    # The remainder keeps u's length unless trimmed.
    assert r.shape == u.shape
    np.testing.assert_allclose(np.asarray(r)[-len(nr):], nr, **F32)
    q2, r2 = jnp.polydiv(f32(jnp, u), f32(jnp, v), trim_leading_zeros=True)
    np.testing.assert_allclose(r2, nr, **F32)
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(lambda a: jnp.polydiv(a, a, trim_leading_zeros=True))(f32(jnp, u))


# -- calculus (NPP-4) ---------------------------------------------------------

@pytest.mark.spec("NPP-4")
def test_polyder_polyint_match_numpy(jnp):
    p = np.array([1., 2., 3., 4.])
    for m in (0, 1, 2, 5):
        np.testing.assert_allclose(jnp.polyder(f32(jnp, p), m), np.polyder(p, m), **F32)
    assert jnp.polyder(i32(jnp, [1, 2, 3])).dtype == np.float32
    np.testing.assert_allclose(jnp.polyint(f32(jnp, p), 2, k=f32(jnp, [1., 2.])),
                               np.polyint(p, 2, k=[1., 2.]), **F32)
    np.testing.assert_allclose(jnp.polyint(i32(jnp, [1, 2, 3]), 1, k=3),
                               np.polyint([1, 2, 3], 1, k=3), **F32)


@pytest.mark.spec("NPP-4")
def test_polyder_polyint_errors(jax, jnp):
    with pytest.raises(ValueError, match="Order of derivative must be positive"):
        jnp.polyder(f32(jnp, [1., 2.]), -1)
    with pytest.raises(ValueError, match="Order of integral must be positive"):
        jnp.polyint(f32(jnp, [1., 2.]), -1)
    with pytest.raises(ValueError, match="k must be a scalar"):
        jnp.polyint(f32(jnp, [1., 2.]), 2, k=f32(jnp, [1., 2., 3.]))
    with pytest.raises(TypeError):
        jnp.polyder(f32(jnp, [1., 2.]), 1.5)


# -- polyfit (NPP-5) ----------------------------------------------------------

@pytest.mark.spec("NPP-5")
def test_polyfit_matches_numpy(jnp):
    x = np.linspace(-1, 1, 9)
    y = 2 * x ** 2 - x + 0.5 + 0.01 * np.cos(7 * x)
    c = jnp.polyfit(f32(jnp, x), f32(jnp, y), 2)
    assert c.dtype == np.float32
    np.testing.assert_allclose(c, np.polyfit(x, y, 2), rtol=1e-4, atol=1e-4)
    y2 = np.stack([y, -y], axis=1)
    np.testing.assert_allclose(jnp.polyfit(f32(jnp, x), f32(jnp, y2), 1),
                               np.polyfit(x, y2, 1), rtol=1e-4, atol=1e-4)
    w = np.linspace(1, 2, 9)
    np.testing.assert_allclose(jnp.polyfit(f32(jnp, x), f32(jnp, y), 1, w=f32(jnp, w)),
                               np.polyfit(x, y, 1, w=w), rtol=1e-4, atol=1e-4)


@pytest.mark.spec("NPP-5")
def test_polyfit_full_and_cov(jnp):
    x = np.arange(6.)
    y = x ** 2 + np.array([0, .1, 0, -.1, 0, .1])
    c, resid, rank, sv, rcond = jnp.polyfit(f32(jnp, x), f32(jnp, y), 2, full=True)
    nc, nresid, nrank, nsv, nrcond = np.polyfit(x, y, 2, full=True)
    np.testing.assert_allclose(resid, nresid, rtol=1e-2, atol=1e-4)
    assert int(rank) == nrank
    np.testing.assert_allclose(sv, nsv, rtol=1e-4)
    assert rcond.dtype == np.float32
    np.testing.assert_allclose(rcond, len(x) * np.finfo(np.float32).eps)
    _, cov = jnp.polyfit(f32(jnp, x), f32(jnp, y), 1, cov=True)
    np.testing.assert_allclose(cov, np.polyfit(x, y, 1, cov=True)[1], rtol=1e-3)
    _, cov_u = jnp.polyfit(f32(jnp, x), f32(jnp, y), 1, cov="unscaled")
    np.testing.assert_allclose(cov_u, np.polyfit(x, y, 1, cov="unscaled")[1], rtol=1e-3)


@pytest.mark.spec("NPP-5")
def test_polyfit_errors(jax, jnp):
    x = f32(jnp, [0., 1., 2.])
    with pytest.raises(ValueError, match="expected deg >= 0"):
        jnp.polyfit(x, x, -1)
    with pytest.raises(TypeError, match="expected 1D vector for x"):
        jnp.polyfit(jnp.ones((2, 2)), f32(jnp, [1., 2.]), 1)
    with pytest.raises(TypeError, match="expected non-empty vector for x"):
        jnp.polyfit(f32(jnp, []), f32(jnp, []), 1)
    with pytest.raises(TypeError, match="expected 1D or 2D array for y"):
        jnp.polyfit(x, jnp.ones((3, 1, 1)), 1)
    with pytest.raises(TypeError, match="same length"):
        jnp.polyfit(x, f32(jnp, [1., 2.]), 1)
    with pytest.raises(TypeError, match="1-d array for weights"):
        jnp.polyfit(x, x, 1, w=jnp.ones((3, 1)))
    with pytest.raises(ValueError, match="must exceed order"):
        jnp.polyfit(f32(jnp, [0., 1.]), f32(jnp, [0., 1.]), 1, cov=True)
