"""``jnp.tril`` and ``jnp.triu`` against NumPy for every diagonal offset
(SPEC NP-52).  Found by the mutation tool (tests/mutation: np-triu-offset)."""
import numpy as np
import pytest


@pytest.mark.spec("NP-52")
@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3), (2, 3, 4)])
@pytest.mark.parametrize("k", [-3, -1, 0, 1, 2, 6])
def test_tril_triu_match_numpy(jax, jnp, shape, k):
    m = np.arange(1, np.prod(shape) + 1, dtype=np.float32).reshape(shape)
    for name in ("tril", "triu"):
        got = getattr(jnp, name)(m, k)
        np.testing.assert_array_equal(np.asarray(got), getattr(np, name)(m, k))
        jitted = jax.jit(getattr(jnp, name), static_argnums=1)(m, k)
        np.testing.assert_array_equal(np.asarray(jitted), getattr(np, name)(m, k))


@pytest.mark.spec("NP-52")
def test_tril_plus_strict_triu_is_the_matrix(jnp):
    m = np.arange(12, dtype=np.float32).reshape(3, 4) + 1
    for k in (-1, 0, 2):
        np.testing.assert_array_equal(np.asarray(jnp.tril(m, k) + jnp.triu(m, k + 1)), m)
