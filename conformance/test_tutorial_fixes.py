"""What JAX's tutorial pages, run cell by cell, showed refjax doing
differently (SPEC DBG-18, CDR-21): a failing or exiting debug callback, as a
breakpoint reading the end of stdin is, and custom derivative functions
called on known values while linearizing."""
import io
import logging
import sys

import numpy as np
import pytest


def _failures(caplog):
    return [r for r in caplog.records if r.getMessage() == "jax.debug.callback failed"]


@pytest.mark.spec("DBG-18")
def test_breakpoint_at_end_of_stdin_eagerly(jax, jnp, caplog):
    out = io.StringIO()
    with caplog.at_level(logging.ERROR), pytest.raises(SystemExit):
        jax.debug.breakpoint(backend="cli", stdin=io.StringIO(""), stdout=out)
    assert out.getvalue() == "Entering jdb:\n(jdb) "
    [record] = _failures(caplog)
    assert record.levelno == logging.ERROR and record.exc_info[0] is SystemExit


@pytest.mark.spec("DBG-18")
def test_breakpoint_at_end_of_stdin_under_jit_and_vmap(jax, jnp, caplog):
    def f(x):
        jax.debug.breakpoint(backend="cli", stdin=io.StringIO(""), stdout=io.StringIO())
        return x * 2

    with caplog.at_level(logging.ERROR):
        with pytest.raises(jax.errors.JaxRuntimeError, match="SystemExit"):
            jax.jit(f)(1.)
            jax.effects_barrier()
        with pytest.raises(SystemExit):
            jax.vmap(f)(jnp.arange(2.))
    assert len(_failures(caplog)) == 2


@pytest.mark.spec("DBG-18")
def test_failing_and_exiting_callbacks_are_logged(jax, jnp, caplog):
    def exits(x):
        sys.exit(3)

    def fails(x):
        raise ZeroDivisionError("no")

    with caplog.at_level(logging.ERROR):
        with pytest.raises(SystemExit) as exited:
            jax.debug.callback(exits, jnp.float32(1.))
        with pytest.raises(jax.errors.JaxRuntimeError, match="SystemExit"):
            jax.jit(lambda x: jax.debug.callback(exits, x))(1.)
            jax.effects_barrier()
        with pytest.raises(ZeroDivisionError):
            jax.debug.callback(fails, 1.)
    assert exited.value.code == 3
    assert [r.exc_info[0] for r in _failures(caplog)] == [SystemExit, SystemExit,
                                                          ZeroDivisionError]
    # A callback that returns normally logs nothing.
    caplog.clear()
    with caplog.at_level(logging.ERROR):
        jax.jit(lambda x: jax.debug.callback(lambda v: None, x))(1.)
        jax.effects_barrier()
    assert _failures(caplog) == []


def _noisy_sin(jax, jnp, calls):
    @jax.custom_jvp
    def f(x):
        calls.append("f")
        return jnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        calls.append("f_jvp")
        (x,), (t,) = primals, tangents
        return f(x), jnp.cos(x) * t

    return f


@pytest.mark.spec("CDR-21")
@pytest.mark.parametrize("order", [1, 2, 3])
def test_custom_jvp_rule_calls_under_nested_grad(jax, jnp, order):
    calls = []
    g = _noisy_sin(jax, jnp, calls)
    for _ in range(order):
        g = jax.grad(g)
    value = g(3.)
    assert calls == ["f_jvp"] * order + ["f"]
    expected = [np.cos(3.), -np.sin(3.), -np.cos(3.)][order - 1]
    np.testing.assert_allclose(float(value), expected, rtol=1e-5)


@pytest.mark.spec("CDR-21")
def test_custom_jvp_rule_calls_under_jit_of_nested_grad(jax, jnp):
    calls = []
    f = _noisy_sin(jax, jnp, calls)
    value = jax.jit(jax.grad(jax.grad(f)))(3.)
    assert calls == ["f_jvp", "f_jvp", "f"]
    np.testing.assert_allclose(float(value), -np.sin(3.), rtol=1e-5)
    calls.clear()
    # Only known values reach the rule's own call of f: x * grad(f)(x) has
    # an unknown tangent only outside it.
    value = jax.grad(lambda x: jax.grad(f)(x) * x)(3.)
    assert calls == ["f_jvp", "f_jvp", "f"]
    np.testing.assert_allclose(float(value), np.cos(3.) - 3 * np.sin(3.), rtol=1e-5)


@pytest.mark.spec("CDR-21")
def test_custom_vjp_called_by_a_jvp_rule_under_nested_grad(jax, jnp):
    calls = []

    @jax.custom_vjp
    def g(x):
        calls.append("g")
        return jnp.sin(x)

    def g_fwd(x):
        calls.append("g_fwd")
        return g(x), jnp.cos(x)

    def g_bwd(res, t):
        calls.append("g_bwd")
        return (res * t,)

    g.defvjp(g_fwd, g_bwd)
    np.testing.assert_allclose(float(jax.grad(g)(3.)), np.cos(3.), rtol=1e-6)
    assert calls == ["g_fwd", "g", "g_bwd"]
    calls.clear()

    @jax.custom_jvp
    def h(x):
        calls.append("h")
        return g(x)

    @h.defjvp
    def h_jvp(primals, tangents):
        calls.append("h_jvp")
        return h(primals[0]), g(primals[0]) * tangents[0]

    np.testing.assert_allclose(float(jax.grad(jax.grad(h))(3.)), np.cos(3.), rtol=1e-5)
    assert calls == ["h_jvp", "h_jvp", "h", "g", "g", "g_fwd", "g", "g_bwd"]
