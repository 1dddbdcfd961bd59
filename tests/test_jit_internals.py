"""refjax-only tests of jit's machinery: the hot call path, the two cache
levels, source locations and compile-time evaluation."""
import gc

import numpy as np
import pytest

import refjax as jax
import refjax.numpy as jnp
from refjax._src import api, core


@pytest.mark.spec("JIT-2")
def test_plain_calls_take_the_fast_path():
    f = jax.jit(lambda x, y: x * y)
    x = jnp.ones(3)
    assert f._fast == {}
    first = f(x, 2.)
    assert len(f._fast) == 1
    entry = next(iter(f._fast.values()))
    assert entry.scalar_dtypes == (None, np.dtype("float32"))
    again = f(x, 3.)
    assert repr(again) == "Array([3., 3., 3.], dtype=float32)"
    assert repr(first) == "Array([2., 2., 2.], dtype=float32)"
    assert f._cache_size() == 1


@pytest.mark.spec("JIT-2")
def test_fast_path_steps_aside_for_options_and_odd_arguments():
    f = jax.jit(lambda x: x + 1)
    f(1)
    with pytest.raises(OverflowError, match="argument path is x"):
        f(2 ** 40)              # not a fast-path int: the slow path names it
    with jax.disable_jit():
        assert f(2) == 3        # plain Python
    x = jnp.ones(2)
    f(x)
    x.delete()
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        f(x)


@pytest.mark.spec("JIT-3")
def test_traces_are_shared_by_function_object():
    def g(x):
        return x * 2

    jax.jit(g)(1.)
    assert len(api._trace_caches[g]) == 1
    jax.jit(g)(1.)
    jax.eval_shape(g, 1.)
    assert len(api._trace_caches[g]) == 1
    jax.clear_caches()
    assert g not in api._trace_caches


@pytest.mark.spec("JIT-9")
def test_closures_over_outer_tracers_are_not_cached():
    inner_traces = []

    def inner_fn(y):
        inner_traces.append(None)
        return y * captured[0]

    captured = []
    inner = jax.jit(inner_fn)

    @jax.jit
    def outer(x):
        captured[:] = [x]
        return inner(1.)

    assert float(outer(2.)) == 2.0
    assert float(outer(jnp.float32(3.))) == 3.0
    assert len(inner_traces) == 2
    assert not any(api._has_tracer_consts(t.closed)
                   for t in api._trace_caches.get(inner_fn, {}).values())


@pytest.mark.spec("LEAK-1")
def test_source_info_has_line_and_column():
    def f(x):
        return   x + 1     # noqa: E271  (the column is that of `x + 1`)

    closed = jax.make_jaxpr(f)(1.)
    summary = closed.eqns[0].source_info.summary()
    line = f.__code__.co_firstlineno + 1
    assert summary == (f"{__file__}:{line}:17 "
                       "(test_source_info_has_line_and_column.<locals>.f)")


@pytest.mark.spec("TRC-5")
def test_compile_time_eval_trace_hands_tracers_to_its_parent():
    seen = []

    def f(x):
        with jax.ensure_compile_time_eval():
            seen.append(type(core.current_trace()).__name__)
            y = x * 2
        return y

    closed = jax.make_jaxpr(f)(1.)
    assert seen == ["CompileTimeEvalTrace"]
    assert [e.primitive.name for e in closed.eqns] == ["mul"]
    assert core.current_trace() is core.eval_trace


@pytest.mark.spec("LEAK-2")
def test_leak_check_keeps_no_strong_references():
    with jax.checking_leaks():
        closed = jax.make_jaxpr(lambda x: jnp.sin(x) * 2)(1.)
    gc.collect()
    assert len(closed.eqns) == 2
