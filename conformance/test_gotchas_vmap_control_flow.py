"""vmap gotchas of gotchas.md that need control flow: G-VMAP-013 (cond with a
batched predicate runs both branches), G-VMAP-014 (while_loop with a batched
predicate runs until every example is done) and the ``lax.map`` half of
G-VMAP-015 (debug prints per iteration).  The rest of G-VMAP is in
test_gotchas_vmap.py.

Each test runs the gotcha's snippet and asserts what it printed on JAX 0.10.2;
a comment names the gotcha.
"""
import numpy as np
import pytest


def printed(jax, capsys):
    jax.effects_barrier()
    return capsys.readouterr().out.splitlines()


@pytest.mark.spec("CF-90")
def test_vmap_of_cond_with_batched_predicate_runs_both_branches(jax, jnp, capsys):
    # G-VMAP-013
    lax = jax.lax

    def f(x):
        return lax.cond(x > 0,
                        lambda v: (jax.debug.print("true branch {}", v), v)[1],
                        lambda v: (jax.debug.print("false branch {}", v), -v)[1], x)
    out = jax.vmap(f)(jnp.array([1., -2.]))
    lines = printed(jax, capsys)
    assert out.dtype == jnp.float32 and np.asarray(out).tolist() == [1., 2.]
    # Unordered effects: only the set of lines is part of the contract.
    assert sorted(lines) == sorted(["false branch 1.0", "false branch -2.0",
                                    "true branch 1.0", "true branch -2.0"])


COND_AS_SELECT = """\
{ lambda ; a:f32[2]. let
    b:bool[2] = gt a 0.0:f32[]
    c:i32[2] = convert_element_type[new_dtype=int32 weak_type=False] b
    d:bool[2] = eq c 0:i32[]
    e:f32[2] = stop_gradient a
    f:f32[2] = select_n d e a
    g:f32[2] = cos f
    h:bool[2] = eq c 1:i32[]
    i:f32[2] = stop_gradient a
    j:f32[2] = select_n h i a
    k:f32[2] = sin j
    l:f32[2] = select_n c g k
  in (l,) }"""


@pytest.mark.spec("CF-90")
def test_vmap_of_cond_with_batched_predicate_is_select_n(jax, jnp):
    # G-VMAP-013
    lax = jax.lax
    f = jax.vmap(lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x))
    assert str(jax.make_jaxpr(f)(jnp.ones(2))) == COND_AS_SELECT
    out = f(jnp.array([1., -2.]))
    np.testing.assert_allclose(np.asarray(out), [np.sin(1.), np.cos(-2.)], rtol=1e-6)


@pytest.mark.spec("CF-90")
def test_vmap_of_while_loop_with_batched_predicate_freezes_finished_examples(jax, jnp):
    # G-VMAP-014
    lax = jax.lax
    f = lambda n: lax.while_loop(lambda c: c[0] < n,
                                 lambda c: (c[0] + 1, c[1] * 2), (0, 1))[1]
    out = jax.vmap(f)(jnp.array([1, 3, 5]))
    assert out.dtype == jnp.int32
    assert np.asarray(out).tolist() == [2, 8, 32]


@pytest.mark.spec("CF-90")
def test_debug_print_under_lax_map_prints_per_iteration(jax, jnp, capsys):
    # G-VMAP-015 (the lax.map half; the vmap half is in test_gotchas_vmap.py)
    def f(x):
        jax.debug.print("x: {}", x)
        y = jnp.sin(x)
        jax.debug.print("y: {}", y)
        return y
    out = jax.lax.map(f, jnp.arange(3.))
    lines = printed(jax, capsys)
    np.testing.assert_allclose(np.asarray(out), np.sin(np.arange(3.)), rtol=1e-6)
    assert len(lines) == 6
    # Each iteration prints its x and y lines before the next iteration's, but
    # within one iteration the two unordered prints may come in either order
    # (JAX 0.10.2 printed y first).
    for k in range(3):
        pair = dict(line.split(": ") for line in lines[2 * k:2 * k + 2])
        assert sorted(pair) == ["x", "y"]
        assert pair["x"] == f"{float(k)}"
        # The float32 sine may differ in the last bit between backends.
        np.testing.assert_allclose(float(pair["y"]), np.sin(np.float32(k)), rtol=1e-6)
