"""refjax-only behaviour of the collectives (SPEC VMAP-70 .. VMAP-79):
where refjax checks what JAX 0.10.2 leaves unchecked under ``vmap``, and
the flags that make a ``vmap`` see collectives with no mapped operand."""
import numpy as np
import pytest

import refjax as jax
import refjax.numpy as jnp
from refjax import lax
from refjax._src.interpreters import batching
from refjax._src.lax import parallel


def vmap_i(f, **kw):
    return jax.vmap(f, axis_name="i", **kw)


@pytest.mark.spec("VMAP-73")
def test_collective_primitives_are_flagged():
    for prim in (lax.psum_p, lax.pmax_p, lax.pmin_p, lax.axis_index_p, lax.ppermute_p,
                 lax.all_gather_p, parallel.reduce_scatter_p, lax.all_to_all_p):
        assert prim.is_collective
        assert prim.batch_unmapped is not None
    named = batching.AxisData("i", 3)
    assert lax.psum_p.batch_unmapped({"axes": ("i", 0), "axis_index_groups": None}, named)
    assert not lax.psum_p.batch_unmapped({"axes": ("j",), "axis_index_groups": None}, named)
    assert not lax.psum_p.batch_unmapped({"axes": (0,), "axis_index_groups": None},
                                         batching.AxisData(None, 3))
    assert lax.all_to_all_p.batch_unmapped({"axis_name": "i"}, named)


@pytest.mark.spec("VMAP-75")
def test_psum_scatter_checks_the_scattered_size_under_vmap():
    # JAX 0.10.2 returns a wrongly sized result (or fails an assertion) here.
    with pytest.raises(ValueError, match="^reduce_scatter operand scatter dimension size "
                       "2 must match shard count 3$"):
        vmap_i(lambda a: lax.psum_scatter(a, "i"))(jnp.ones((3, 2)))
    with pytest.raises(ValueError, match="^tiled reduce_scatter operand scatter dimension "
                       "size 4 must be divisible by shard_count 3$"):
        vmap_i(lambda a: lax.psum_scatter(a, "i", tiled=True))(jnp.ones((3, 4)))


@pytest.mark.spec("VMAP-75")
def test_psum_scatter_negative_dimension():
    z = np.arange(18., dtype=np.float32).reshape(3, 2, 3)
    out = vmap_i(lambda a: lax.psum_scatter(a, "i", scatter_dimension=-1))(jnp.asarray(z))
    np.testing.assert_allclose(np.asarray(out), z.sum(0).T)


@pytest.mark.spec("VMAP-79")
def test_all_to_all_transpose_of_unmapped_cotangent():
    # JAX 0.10.2 fails here ("Expected cotangent type float32[3] but got
    # float32[3,3]"); member m's cotangent of a_m[j] is c[m].
    c = jnp.arange(3.)
    out = vmap_i(jax.grad(lambda a: jnp.sum(lax.all_to_all(a, "i", 0, 0) * c)))(
        jnp.arange(9.).reshape(3, 3))
    np.testing.assert_allclose(np.asarray(out), np.repeat(np.arange(3.)[:, None], 3, 1))


@pytest.mark.spec("VMAP-78")
def test_bound_name_met_by_eager_evaluation():
    """A name bound only by ``make_jaxpr(axis_env=...)`` has no members to
    reduce over: evaluating the collective on concrete values fails."""
    def f():
        with jax.ensure_compile_time_eval():
            return lax.pmax(jnp.ones(3), "i")
    with pytest.raises(RuntimeError, match="^pmax must be used within a mapped context"):
        jax.make_jaxpr(f, axis_env=[("i", 3)])()


@pytest.mark.spec("VMAP-73")
def test_unmapped_collective_inside_jit_is_batched():
    # The jit's operand is unmapped; its jaxpr still sees the named axis.
    closed = jax.make_jaxpr(vmap_i(lambda a, b: jax.jit(lambda c: lax.psum(c, "i"))(b),
                                   in_axes=(0, None)))(jnp.ones(3), 2.)
    inner = closed.jaxpr.eqns[0].params["jaxpr"].jaxpr
    assert [e.primitive.name for e in inner.eqns] == ["mul"]


@pytest.mark.spec("VMAP-77")
def test_all_to_all_negative_axes():
    z = np.arange(18., dtype=np.float32).reshape(3, 2, 3)
    out = vmap_i(lambda a: lax.all_to_all(a, "i", -1, 0))(jnp.asarray(z))
    np.testing.assert_allclose(np.asarray(out), z.transpose(2, 0, 1))
