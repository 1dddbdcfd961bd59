"""``make_jaxpr`` of a VJP works for every jaxpr conformance program (SPEC AD-60).

Each program of ``test_jaxpr.cases`` is differentiated in reverse mode with
respect to all its arguments (integer ones get ``float0`` cotangents); the
staged program must trace, contain only equations of known primitives, and
compute what the VJP computes eagerly.  The text is not compared: JAX's AD
jaxprs are an implementation detail.
"""
import numpy as np
import pytest

from conformance.test_jaxpr import CASE_NAMES, _case, _extend_core


def _cotangent(jax, jnp, out):
    def one(o):
        o = jnp.asarray(o)
        if jnp.issubdtype(o.dtype, jnp.inexact):
            return jnp.ones(o.shape, o.dtype)
        return np.zeros(o.shape, jax.dtypes.float0)
    return jax.tree_util.tree_map(one, out)


def _pullback(jax, jnp, fun, args, static):
    """``args -> (out, cts)`` for ``fun``, static positions held fixed."""
    def pulled(*dyn):
        it = iter(dyn)
        full = [args[i] if i in static else next(it) for i in range(len(args))]
        out, f_vjp = jax.vjp(lambda *d: fun(*_merge(full, static, d)), *dyn)
        return out, f_vjp(_cotangent(jax, jnp, out))
    return pulled


def _merge(full, static, dyn):
    it = iter(dyn)
    return [full[i] if i in static else next(it) for i in range(len(full))]


def _leaves_close(jax, a, b):
    la, lb = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    assert len(la) == len(lb)
    for x, y in zip(la, lb):
        x, y = _as_array(jax, x), _as_array(jax, y)
        assert x.shape == y.shape and x.dtype == y.dtype
        if x.dtype != jax.dtypes.float0:
            np.testing.assert_allclose(x, y, rtol=1e-6)


def _as_array(jax, x):
    """A leaf as a NumPy array, a Python scalar taking JAX's dtype for it."""
    if isinstance(x, (int, float, complex)):
        return np.asarray(jax.numpy.asarray(x))
    return np.asarray(x)


@pytest.mark.spec("AD-60")
@pytest.mark.parametrize("name", CASE_NAMES)
def test_vjp_of_every_jaxpr_program_stages(jax, jnp, name):
    _, fun, args, kwargs = _case(jax, jnp, name)
    static = kwargs.get("static_argnums", ())
    static = {static} if isinstance(static, int) else set(static)
    dyn = [a for i, a in enumerate(args) if i not in static]
    pulled = _pullback(jax, jnp, fun, args, static)
    jaxpr = jax.make_jaxpr(pulled)(*dyn)
    assert all(eqn.primitive.name for eqn in jaxpr.eqns)
    staged = _extend_core(jax).jaxpr_as_fun(jaxpr)(*jax.tree_util.tree_leaves(dyn))
    eager = jax.tree_util.tree_leaves(pulled(*dyn))
    _leaves_close(jax, staged, eager)


@pytest.mark.spec("AD-14")
def test_grad_of_jit_is_two_jit_calls(jax, jnp):
    f = jax.jit(jnp.sin)
    jaxpr = jax.make_jaxpr(jax.grad(f))(1.0)
    assert [e.primitive.name for e in jaxpr.eqns] == ["jit", "jit"]
    known, linear = jaxpr.eqns
    # The known call returns the primal output and the residual cos(x).
    assert len(known.outvars) == 2 and len(linear.outvars) == 1
    assert float(jax.grad(f)(1.0)) == pytest.approx(float(jnp.cos(1.0)))


@pytest.mark.spec("AD-14")
def test_jvp_of_jit_is_one_jit_call(jax, jnp):
    f = jax.jit(lambda x: jnp.sin(x) * 2.0)
    jaxpr = jax.make_jaxpr(lambda x, t: jax.jvp(f, (x,), (t,)))(1.0, 1.0)
    assert [e.primitive.name for e in jaxpr.eqns] == ["jit"]
    assert len(jaxpr.eqns[0].invars) == 2 and len(jaxpr.eqns[0].outvars) == 2
