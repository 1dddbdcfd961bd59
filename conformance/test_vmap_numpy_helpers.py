"""``jnp.vectorize``, ``jnp.apply_along_axis`` and ``jnp.apply_over_axes``
(SPEC VMAP-93, VMAP-94): NumPy's looping helpers, built on ``vmap``."""
import re

import numpy as np
import pytest

A = np.arange(12.0, dtype=np.float32).reshape(4, 3)
B3 = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)


def raises(cls, prefix):
    return pytest.raises(cls, match="^" + re.escape(prefix))


def dot_v(jnp):
    return jnp.vectorize(lambda a, b: jnp.dot(a, b), signature="(n),(n)->()")


@pytest.mark.spec("VMAP-93")
def test_vectorize_signature_broadcasts_loop_axes(jnp):
    v = dot_v(jnp)
    np.testing.assert_allclose(v(A, np.arange(3.0, dtype=np.float32)), A @ np.arange(3.0))
    out = v(A.reshape(4, 1, 3), np.ones((5, 3), np.float32))
    assert out.shape == (4, 5)
    np.testing.assert_allclose(out, np.broadcast_to(A.sum(1)[:, None], (4, 5)))


@pytest.mark.spec("VMAP-93")
def test_vectorize_matrix_signature(jnp):
    mm = jnp.vectorize(jnp.matmul, signature="(n,m),(m,k)->(n,k)")
    x = np.arange(30.0, dtype=np.float32).reshape(5, 2, 3)
    np.testing.assert_allclose(mm(x, A.T), x @ A.T)


@pytest.mark.spec("VMAP-93")
def test_vectorize_without_signature(jnp):
    v = jnp.vectorize(lambda a, b: a * b + 1)
    np.testing.assert_allclose(v(A, np.arange(3.0, dtype=np.float32)), A * np.arange(3.0) + 1)
    out = v(2.0, 3)
    assert out.shape == () and float(out) == 7.0
    first, second = jnp.vectorize(lambda a: (a, a * 2))(A)
    np.testing.assert_allclose(second, 2 * A)


@pytest.mark.spec("VMAP-93")
def test_vectorize_new_output_core_dim(jnp):
    out = jnp.vectorize(lambda a: jnp.stack([a, a * 2]), signature="()->(k)")(A[:2])
    np.testing.assert_allclose(out, np.stack([A[:2], 2 * A[:2]], axis=-1))


@pytest.mark.spec("VMAP-93")
def test_vectorize_excluded(jnp):
    f = jnp.vectorize(lambda a, s: a * len(s), excluded={1})
    np.testing.assert_allclose(f(A, "xyz"), A * 3)
    g = jnp.vectorize(lambda a, s=1: a * len(s), excluded={"s"})
    np.testing.assert_allclose(g(A, s="xy"), A * 2)


@pytest.mark.spec("VMAP-93")
def test_vectorize_errors(jnp):
    v = dot_v(jnp)
    tail = "on vectorized function with excluded=frozenset() and signature='(n),(n)->()'"
    with raises(ValueError, "inconsistent size for core dimension 'n': 2 vs 3 " + tail):
        v(A, jnp.ones(2))
    with raises(ValueError, "input with shape () does not have enough dimensions for "
                            "all core dimensions ('n',) " + tail):
        v(jnp.ones(()), jnp.ones(3))
    with raises(TypeError, "wrong number of positional arguments: expected 2, got 3 " + tail):
        v(jnp.ones(3), jnp.ones(3), jnp.ones(3))
    with raises(ValueError, "output shape (3,) does not match core dimensions ()"):
        jnp.vectorize(lambda a: a, signature="(n)->()")(A)
    with raises(TypeError, "wrong number of output arguments: expected 3, got 2"):
        jnp.vectorize(lambda a: (a, a), signature="(n)->(n),(n),(n)")(A)
    with pytest.raises(TypeError):
        jnp.vectorize(lambda a, b: a * b)(A, b=jnp.ones(3))


@pytest.mark.spec("VMAP-94")
def test_apply_along_axis(jnp):
    np.testing.assert_allclose(jnp.apply_along_axis(jnp.sum, 1, B3), B3.sum(1))
    out = jnp.apply_along_axis(lambda x: jnp.stack([x.sum(), x.max()]), 1, B3)
    np.testing.assert_allclose(out, np.apply_along_axis(
        lambda x: np.stack([x.sum(), x.max()]), 1, B3))
    out = jnp.apply_along_axis(lambda x: jnp.outer(x, x), -1, B3)
    np.testing.assert_allclose(out, np.apply_along_axis(lambda x: np.outer(x, x), -1, B3))
    out = jnp.apply_along_axis(lambda x, k: x * k, 0, B3, 3.0)
    np.testing.assert_allclose(out, B3 * 3)


@pytest.mark.spec("VMAP-94")
def test_apply_over_axes(jnp):
    out = jnp.apply_over_axes(jnp.sum, B3, [0, 2])
    assert out.shape == (1, 3, 1)
    np.testing.assert_allclose(out, np.apply_over_axes(np.sum, B3, [0, 2]))
