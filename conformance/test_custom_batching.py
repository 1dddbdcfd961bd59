"""jax.custom_batching: custom_vmap and sequential_vmap (SPEC CDR-5 .. CDR-7)."""
import importlib

import numpy as np
import pytest


@pytest.fixture
def cb(jax):
    return importlib.import_module(jax.__name__ + ".custom_batching")


def _sin_times(cb, jnp, calls):
    @cb.custom_vmap
    def f(x, y):
        return jnp.sin(x) * y

    @f.def_vmap
    def rule(axis_size, in_batched, xs, ys):
        calls.append((axis_size, in_batched, type(in_batched)))
        return jnp.sin(xs) * ys, any(in_batched)

    return f


@pytest.mark.spec("CDR-5")
def test_custom_vmap_rule_replaces_batching(jax, jnp, cb):
    calls = []
    f = _sin_times(cb, jnp, calls)
    xs = np.arange(3.0, dtype=np.float32)
    np.testing.assert_allclose(float(f(1., 2.)), np.sin(1.) * 2, rtol=1e-6)
    assert calls == []
    np.testing.assert_allclose(jax.vmap(f, (0, None))(xs, 2.), np.sin(xs) * 2, rtol=1e-6)
    np.testing.assert_allclose(jax.jit(jax.vmap(f, (0, None)))(xs, 2.), np.sin(xs) * 2,
                               rtol=1e-6)
    assert calls == [(3, [True, False], list)] * 2
    out = jax.vmap(jax.vmap(f, (0, None)), (None, 0))(xs, xs)
    np.testing.assert_allclose(out, np.sin(xs)[None, :] * xs[:, None], rtol=1e-6)


@pytest.mark.spec("CDR-5")
def test_custom_vmap_jaxprs(jax, jnp, cb):
    f = _sin_times(cb, jnp, [])
    text = str(jax.make_jaxpr(f)(1., 2.))
    assert text.startswith("{ lambda ; a:f32[] b:f32[]. let\n    c:f32[] = custom_vmap_call[\n"
                           "      call={ lambda ; d:f32[] e:f32[]. let\n")
    assert "in_tree=PyTreeDef(([], (*, *)))" in text
    assert "out_tree=PyTreeDef(*)" in text and "rule=<function" in text
    batched = str(jax.make_jaxpr(jax.vmap(f, (0, None)))(jnp.ones(3), 2.))
    assert "custom_vmap_call" not in batched and "sin a" in batched


@pytest.mark.spec("CDR-5")
def test_custom_vmap_errors(jax, jnp, cb):
    @cb.custom_vmap
    def h(x):
        return x

    with pytest.raises(AttributeError, match="No batching rule defined for custom_vmap "
                                             "function h using def_vmap."):
        h(1.)

    @h.def_vmap
    def bad_pair(axis_size, in_batched, x):
        return (x, x), True
    with pytest.raises(ValueError, match="do not match"):
        jax.vmap(h)(jnp.ones(3))

    @h.def_vmap
    def bad_tree(axis_size, in_batched, x):
        return (x, x), (True, True)
    with pytest.raises(ValueError, match="does not match that of original"):
        jax.vmap(h)(jnp.ones(3))


@pytest.mark.spec("CDR-6")
def test_custom_vmap_jvp_and_no_reverse_mode(jax, jnp, cb):
    calls = []
    f = _sin_times(cb, jnp, calls)
    p, t = jax.jvp(f, (1., 2.), (1., 0.))
    np.testing.assert_allclose([float(p), float(t)], [np.sin(1.) * 2, np.cos(1.) * 2],
                               rtol=1e-6)
    xs = np.arange(3.0, dtype=np.float32)
    p, t = jax.vmap(lambda a: jax.jvp(f, (a, 2.), (1., 0.)))(xs)
    np.testing.assert_allclose(p, np.sin(xs) * 2, rtol=1e-6)
    np.testing.assert_allclose(t, np.cos(xs) * 2, rtol=1e-6)
    # The primal is batched but not its tangent: the rule sees nothing batched.
    assert calls == [(3, [False, False], list)]
    with pytest.raises(ValueError, match="Linearization failed"):
        jax.grad(f)(1., 2.)


@pytest.mark.spec("CDR-7")
def test_sequential_vmap_loops(jax, jnp, cb, capsys):
    @cb.sequential_vmap
    def g(x, y):
        jax.debug.print("{}", x)
        return x + y

    out = jax.vmap(g, (0, None))(jnp.arange(3), 10)
    jax.effects_barrier()
    np.testing.assert_array_equal(out, [10, 11, 12])
    assert out.dtype == jnp.int32
    assert capsys.readouterr().out.splitlines() == ["0", "1", "2"]
    text = str(jax.make_jaxpr(jax.vmap(g, (0, None)))(jnp.arange(3), 10))
    assert "scan[" in text and "custom_vmap_call[" in text and "length=3" in text
