"""jax.debug.log, inspect_array_sharding, the debug effects and breakpoint
(SPEC DBG-14 .. DBG-17)."""
import io
import logging
import sys

import numpy as np
import pytest


@pytest.mark.spec("DBG-14")
def test_debug_log_goes_to_logging(jax, jnp, caplog, capsys):
    @jax.jit
    def f(x):
        jax.debug.log("x is {x}", x=x)
        jax.debug.log("pos {} {}", x, 3)
        return x + 1

    with caplog.at_level(logging.INFO):
        f(2.)
        f(2.)
        jax.effects_barrier()
    records = [r for r in caplog.records if r.name.endswith("_src.debugging")]
    assert [r.getMessage() for r in records] == ["x is 2.0", "pos 2.0 3"] * 2
    assert all(r.levelno == logging.INFO and r.pathname == __file__ for r in records)
    assert capsys.readouterr().out == ""
    text = str(jax.make_jaxpr(lambda x: jax.debug.log("v {}", x))(1.))
    assert "debug_print[" in text and "logging_record=<LogRecord:" in text


@pytest.mark.spec("DBG-14")
def test_debug_print_two_call_form(jax, jnp, capsys):
    printer = jax.debug.print(ordered=True)
    printer("value {}", jnp.int32(4))
    jax.debug.print(skip_format_check=True)("plain", jnp.int32(5))
    jax.effects_barrier()
    assert capsys.readouterr().out.splitlines() == ["value 4", "plain 5"]
    with pytest.raises(TypeError, match="two-call form"):
        jax.debug.print(None, 1)


@pytest.mark.spec("DBG-15")
def test_inspect_array_sharding_eager(jax, jnp):
    seen = []
    x = jnp.ones(3)
    assert jax.debug.inspect_array_sharding(x, callback=seen.append) is None
    assert seen == [x.sharding] and seen[0].is_fully_replicated
    seen.clear()
    jax.debug.inspect_array_sharding({"a": x, "b": jnp.ones(2)}, callback=seen.append)
    assert len(seen) == 2
    with pytest.raises(AttributeError, match="sharding"):
        jax.debug.inspect_array_sharding(2.0, callback=seen.append)


@pytest.mark.spec("DBG-16")
def test_debug_effect_classes(jax):
    d, o = jax.debug.DebugEffect, jax.debug.OrderedDebugEffect
    assert isinstance(d, type) and isinstance(o, type)
    assert not issubclass(o, d) and not issubclass(d, o)
    text = str(jax.make_jaxpr(lambda x: jax.debug.callback(print, x, ordered=True))(1.))
    assert "effect=OrderedDebug" in text


def _feed(lines):
    return io.StringIO("".join(line + "\n" for line in lines))


@pytest.mark.spec("DBG-17")
def test_breakpoint_eager_and_under_jit(jax, jnp):
    outs = []

    def f(x):
        y = jnp.sin(x)
        out = io.StringIO()
        jax.debug.breakpoint(backend="cli", stdin=_feed(["p y", "p y + 1", "zzz", "c"]),
                             stdout=out)
        outs.append(out)
        return y * 2

    for run in (f, jax.jit(f)):
        result = run(1.)
        jax.effects_barrier()
        np.testing.assert_allclose(float(result), 2 * np.sin(1.), rtol=1e-6)
        lines = outs[-1].getvalue().splitlines()
        assert lines[0] == "Entering jdb:"
        assert lines[1].startswith("(jdb) Array(0.84147")
        assert lines[2].startswith("(jdb) Array(1.84147")
        assert lines[3] == "(jdb) *** NameError: name 'zzz' is not defined"


@pytest.mark.spec("DBG-17")
def test_breakpoint_reads_sys_stdin_and_continues(jax, jnp, monkeypatch, capsys):
    @jax.jit
    def g(x):
        jax.debug.breakpoint()
        return x + 1

    monkeypatch.setattr(sys, "stdin", _feed(["p x", "c"]))
    assert float(g(3.)) == 4.0
    jax.effects_barrier()
    out = capsys.readouterr().out
    assert "Entering jdb:" in out and "Array(3." in out


@pytest.mark.spec("DBG-17")
def test_breakpoint_vmap_grad_and_options(jax, jnp):
    out = io.StringIO()
    feed = _feed(["p x", "c", "p x", "c"])

    def h(x):
        jax.debug.breakpoint(backend="cli", stdin=feed, stdout=out)
        return x * x

    np.testing.assert_allclose(jax.vmap(h)(jnp.arange(2.)), [0., 1.])
    jax.effects_barrier()
    assert out.getvalue().count("Entering jdb:") == 2
    out2 = io.StringIO()
    feed2 = _feed(["p x", "c"])
    g = jax.grad(lambda x: (jax.debug.breakpoint(backend="cli", stdin=feed2, stdout=out2),
                            x * x)[1])
    assert float(g(3.)) == 6.0
    assert out2.getvalue().count("Entering jdb:") == 1
    with pytest.raises(ValueError, match="mutually exclusive"):
        jax.debug.breakpoint(token=1., ordered=True)
    with pytest.raises(SystemExit):
        jax.debug.breakpoint(backend="cli", stdin=io.StringIO(""), stdout=io.StringIO())
