"""Threads: tracing state is per thread, caches are shared safely (SPEC
THR-1 .. THR-3).

The stress test runs the same work -- jit, grad, vmap, scan, cond,
collectives, shard_map and configuration contexts over shapes that differ
per thread -- once serially and once in overlapping threads (a barrier
before each step makes them run it at the same moment), and requires
identical results, every one a concrete Array.
"""
import sys
import threading
import time

import numpy as np
import pytest

import refjax as jax
import refjax.numpy as jnp
from refjax import lax
from refjax._src import core, lru
from refjax._src import mesh as mesh_lib
from refjax.sharding import Mesh, PartitionSpec as P

N_THREADS = 8
ROUNDS = 3


@pytest.fixture(autouse=True)
def frequent_switches():
    """Switch threads every 10 us rather than every 5 ms, so that their
    steps interleave finely."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(before)


def _slow(v):
    time.sleep(0.002)       # keeps a trace open while other threads trace
    return v * 2 + 1


def _steps(n):
    """(name, thunk) pairs over arrays of size ``n``.  Functions are made
    afresh in each thunk, so every run traces them again."""
    x = np.linspace(-0.5, 1.5, n, dtype=np.float32)
    mesh = Mesh(np.array(jax.devices()), ("d",))

    def x64():
        with jax.enable_x64(True):
            return jax.jit(lambda v: v.astype(jnp.float64) * 3)(x), jnp.arange(n)

    def rank_promotion():
        with jax.numpy_rank_promotion("raise"):
            try:
                jnp.ones(n) + jnp.ones((2, n))
                raised = False
            except ValueError:
                raised = True
            return raised, jax.jit(lambda v: v[None] + v[:, None] * 0)(x)

    def shard_map():
        f = jax.shard_map(lambda v: lax.psum(v, "d"), mesh=mesh,
                          in_specs=P("d"), out_specs=P())
        return jax.jit(f)(np.tile(x, len(jax.devices())))

    return [
        ("jit", lambda: jax.jit(_slow)(x)),
        ("eager", lambda: (jnp.sin(x) * 2, jnp.sin(1.0))),
        ("grad", lambda: jax.grad(lambda v: jnp.sum(jnp.sin(v) ** 2))(x)),
        ("jit_grad", lambda: jax.jit(jax.grad(lambda v, w: jnp.sum(v * w) ** 2))(x, x + 1)),
        ("value_and_grad_of_jit", lambda: jax.value_and_grad(
            jax.jit(lambda v: jnp.sum(jnp.tanh(v))))(x)),
        ("vmap", lambda: jax.vmap(lambda r: jnp.dot(r, x))(np.outer(x, x))),
        ("scan", lambda: lax.scan(lambda c, v: (c + v, c * v), np.float32(0), x)),
        ("jit_cond", lambda: jax.jit(lambda p, v: lax.cond(p, jnp.sin, jnp.cos, v))(
            n % 2 == 0, x)),
        ("psum", lambda: jax.vmap(lambda v: v - lax.psum(v, "i") / n, axis_name="i")(x)),
        ("jit_pmean", lambda: jax.jit(jax.vmap(lambda v: lax.pmean(v, "i") * v,
                                               axis_name="i"))(x)),
        ("grad_of_vmap_psum", lambda: jax.grad(lambda v: jnp.sum(jax.vmap(
            lambda e: e * lax.psum(e, "j"), axis_name="j")(v)))(x)),
        ("x64", x64),
        ("rank_promotion", rank_promotion),
        ("broadcast", lambda: jnp.ones(n) + jnp.ones((2, n))),
        ("shard_map", shard_map),
    ]


def _summary(result):
    """Each leaf as (type is a concrete Array, dtype, values)."""
    def one(leaf):
        if isinstance(leaf, (bool, str)):
            return leaf
        return (isinstance(leaf, jax.Array) and not isinstance(leaf, core.Tracer),
                str(leaf.dtype), np.asarray(leaf).tolist())
    return jax.tree_util.tree_map(one, result)


def _run(n, barrier=None):
    """{step name: summary of its result, or the exception's repr}."""
    out = {}
    for name, step in _steps(n):
        if barrier is not None:
            barrier.wait(timeout=60)
        try:
            out[name] = _summary(step())
        except Exception as e:              # noqa: BLE001 -- compared below
            out[name] = f"raised {e!r}"
    return out


def _in_threads(target, n_threads):
    """Run ``target(k)`` in ``n_threads`` threads; their results by k."""
    results, errors = {}, []

    def main(k):
        try:
            results[k] = target(k)
        except Exception as e:              # noqa: BLE001
            errors.append(repr(e))

    threads = [threading.Thread(target=main, args=(k,)) for k in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    assert not any(t.is_alive() for t in threads)
    return results


def _run_together(*targets):
    """Start one thread per target, then wait for all of them."""
    threads = [threading.Thread(target=t) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)


@pytest.mark.spec("THR-1")
@pytest.mark.spec("THR-3")
def test_threads_get_the_results_of_a_serial_run():
    sizes = [3 + k for k in range(N_THREADS)]
    serial = {k: _run(n) for k, n in enumerate(sizes)}
    for k, out in serial.items():
        for name, summary in out.items():
            assert not isinstance(summary, str), (k, name, summary)
    barrier = threading.Barrier(N_THREADS)
    for _ in range(ROUNDS):
        jax.clear_caches()
        threaded = _in_threads(lambda k: _run(sizes[k], barrier), N_THREADS)
        for k in range(N_THREADS):
            for name in serial[k]:
                assert threaded[k][name] == serial[k][name], (k, name)
    assert type(jnp.sin(1.0)) is type(jnp.ones(()))
    assert core.current_trace() is core.eval_trace


@pytest.mark.spec("THR-1")
def test_the_issue_repro_leaves_the_process_eager():
    def slow(x):
        time.sleep(0.01)
        return x + 1

    def work(k):
        return [jax.jit(slow)(np.ones(k * 10 + j + 1, np.float32)) for j in range(5)]

    results = _in_threads(work, 4)
    for k, outs in results.items():
        for j, out in enumerate(outs):
            assert type(out) is type(jnp.ones(()))
            np.testing.assert_array_equal(np.asarray(out),
                                          np.full(k * 10 + j + 1, 2, np.float32))
    assert type(jnp.sin(1.0)) is type(jnp.ones(()))


def _observe_from_new_thread():
    """What a thread started now sees: the type of an eager result, the
    bound axis names, the current mesh."""
    seen = {}

    def look():
        seen["sin"] = type(jnp.sin(1.0))
        seen["axes"] = core.axis_env_key()
        seen["mesh"] = mesh_lib.current_mesh()
        seen["trace"] = core.current_trace() is core.eval_trace
    t = threading.Thread(target=look)
    t.start()
    t.join()
    return seen


@pytest.mark.spec("THR-1")
def test_a_thread_started_while_tracing_starts_eager():
    seen = []

    def f(v):
        seen.append(_observe_from_new_thread())
        return v * 2

    jax.jit(f)(jnp.ones(2))
    jax.vmap(f, axis_name="i")(jnp.ones(3))
    jax.grad(lambda v: jnp.sum(f(v)))(jnp.ones(2))
    assert len(seen) == 3
    for s in seen:
        assert s["sin"] is type(jnp.ones(())) and s["trace"]
        assert s["axes"] == ()


@pytest.mark.spec("THR-1")
def test_an_axis_name_bound_in_one_thread_is_unbound_in_another():
    inside, other = threading.Event(), threading.Event()
    seen = {}

    def binder():
        def body(v):
            inside.set()
            other.wait(timeout=30)      # keep the name bound meanwhile
            return lax.psum(v, "i")
        seen["psum"] = np.asarray(jax.vmap(body, axis_name="i")(jnp.arange(3.))).tolist()

    def prober():
        inside.wait(timeout=30)
        try:
            jax.jit(lambda v: lax.psum(v, "i"))(jnp.ones(2))
            seen["probe"] = "bound"
        except NameError:
            seen["probe"] = "unbound"
        finally:
            other.set()

    _run_together(binder, prober)
    assert seen == {"psum": [3.0, 3.0, 3.0], "probe": "unbound"}


@pytest.mark.spec("THR-2")
def test_a_context_mesh_belongs_to_its_thread():
    mesh = Mesh(np.array(jax.devices()), ("d",))
    entered, checked = threading.Event(), threading.Event()
    seen = {}

    def holder():
        with jax.set_mesh(mesh):
            entered.set()
            checked.wait(timeout=30)
            seen["holder"] = mesh_lib.current_mesh()

    def other():
        entered.wait(timeout=30)
        seen["other"] = mesh_lib.current_mesh()
        checked.set()

    _run_together(holder, other)
    assert seen == {"holder": mesh, "other": None}
    with jax.set_mesh(mesh):
        assert _observe_from_new_thread()["mesh"] is None
        assert mesh_lib.current_mesh() is mesh
    assert mesh_lib.current_mesh() is None


@pytest.mark.spec("THR-3")
def test_one_jitted_function_shared_by_threads():
    traces = []

    def f(v):
        traces.append(v.shape)
        time.sleep(0.002)
        return v * 3

    g = jax.jit(f)
    barrier = threading.Barrier(N_THREADS)

    def work(k):
        barrier.wait(timeout=60)
        return [np.asarray(g(jnp.ones(1 + (k + j) % 4))).tolist() for j in range(12)]

    results = _in_threads(work, N_THREADS)
    for k, outs in results.items():
        assert outs == [[3.0] * (1 + (k + j) % 4) for j in range(12)]
    assert g._cache_size() == 4
    # Two threads missing the same signature at once may both trace it.
    assert 4 <= len(traces) <= 4 * N_THREADS


@pytest.mark.spec("THR-3")
def test_an_lru_hammered_by_threads_stays_consistent():
    cache = lru.LRU(16)
    barrier = threading.Barrier(N_THREADS)

    def work(k):
        barrier.wait(timeout=60)
        wrong = 0
        for i in range(3000):
            key = (k * 7 + i) % 40
            found = cache.get(key)
            if found is not None and found != key * 2:
                wrong += 1
            cache[key] = key * 2
            assert len(cache) <= 16
        return wrong

    assert set(_in_threads(work, N_THREADS).values()) == {0}
    assert len(cache) == 16 and all(cache.get(k) == k * 2 for k in cache.keys())
