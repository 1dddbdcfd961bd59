"""``lax.switch`` with negative and too-large indices in every mode (SPEC CF-24).

The index is clamped into ``[0, len(branches) - 1]``, never wrapped
Python-style: eagerly, under ``jit``, under ``disable_jit`` (where the
chosen branch is called directly), under ``vmap`` with a batched or an
unbatched index, and through ``grad``.  Found weakly covered by the mutation
tool (tests/mutation: cf-switch-*).
"""
import numpy as np
import pytest

INDICES = [-100, -3, -1, 0, 1, 2, 3, 7, 2 ** 31 - 1]
X = np.float32(1.5)


def _branches(jnp):
    return [lambda y: y + 1.0, jnp.sin, lambda y: y * y]


def _want(i, x=X):
    ref = [lambda y: y + 1.0, np.sin, lambda y: y * y]
    return np.float32(ref[min(max(i, 0), 2)](x))


def _close(got, want):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


@pytest.mark.spec("CF-24")
@pytest.mark.parametrize("i", INDICES)
def test_eager_and_jit_clamp(jax, jnp, i):
    f = lambda i, x: jax.lax.switch(i, _branches(jnp), x)
    _close(f(i, X), _want(i))
    _close(jax.jit(f)(i, X), _want(i))
    _close(jax.jit(f, static_argnums=0)(i, X), _want(i))


@pytest.mark.spec("CF-24")
@pytest.mark.parametrize("i", INDICES)
def test_disable_jit_clamps_before_choosing(jax, jnp, i):
    calls = []

    def branch(k):
        def run(y):
            calls.append(k)
            return _branches(jnp)[k](y)
        return run

    with jax.disable_jit():
        got = jax.lax.switch(i, [branch(0), branch(1), branch(2)], X)
        got_index_array = jax.lax.switch(jnp.int32(i), _branches(jnp), X)
    _close(got, _want(i))
    _close(got_index_array, _want(i))
    assert calls == [min(max(i, 0), 2)]


@pytest.mark.spec("CF-24")
def test_vmap_batched_index_clamps(jax, jnp):
    i = np.array(INDICES, np.int32)
    x = np.linspace(0.5, 2.5, len(INDICES)).astype(np.float32)
    want = [_want(int(k), v) for k, v in zip(i, x)]
    f = lambda i, x: jax.lax.switch(i, _branches(jnp), x)
    _close(jax.vmap(f)(i, x), want)
    _close(jax.jit(jax.vmap(f))(i, x), want)
    with jax.disable_jit():
        _close(jax.vmap(f)(i, x), want)


@pytest.mark.spec("CF-24")
def test_grad_through_vmap_of_a_batched_index(jax, jnp):
    """The clamped branch of each example is the one differentiated: a
    negative index is branch 0, not no branch at all."""
    i = np.array([-4, -1, 0, 1, 2, 5], np.int32)
    x = np.linspace(0.5, 1.5, len(i)).astype(np.float32)
    f = lambda x: jnp.sum(jax.vmap(lambda i, x: jax.lax.switch(i, _branches(jnp), x))(i, x))
    d = {0: lambda v: 1.0, 1: np.cos, 2: lambda v: 2 * v}
    want = [d[min(max(int(k), 0), 2)](v) for k, v in zip(i, x)]
    _close(jax.grad(f)(x), want)
    _close(jax.jit(jax.grad(f))(x), want)


@pytest.mark.spec("CF-24")
@pytest.mark.parametrize("i", [-2, -1, 3, 9])
def test_vmap_unbatched_index_clamps(jax, jnp, i):
    x = np.array([0.5, 1.0, 2.0], np.float32)
    f = lambda i, x: jax.lax.switch(i, _branches(jnp), x)
    want = [_want(i, v) for v in x]
    _close(jax.vmap(f, in_axes=(None, 0))(i, x), want)
    with jax.disable_jit():
        _close(jax.vmap(f, in_axes=(None, 0))(i, x), want)


@pytest.mark.spec("CF-24")
@pytest.mark.parametrize("i", [-5, -1, 4])
def test_grad_follows_the_clamped_branch(jax, jnp, i):
    f = lambda x: jax.lax.switch(i, _branches(jnp), x)
    want = {0: 1.0, 2: 2 * X}[min(max(i, 0), 2)]
    _close(jax.grad(f)(X), want)
    with jax.disable_jit():
        _close(jax.grad(f)(X), want)
    per_example = jax.vmap(jax.grad(lambda i, x: jax.lax.switch(i, _branches(jnp), x),
                                    argnums=1))
    _close(per_example(np.array([i, i], np.int32), np.array([X, X])), [want, want])
