"""Bounded caches (SPEC THR-4 .. THR-6): JAX's bounds by default, least
recently used out first, ``jax.clear_caches()`` empties every one, and
memory stays flat over 20,000 distinct signatures."""
import gc
import tracemalloc

import numpy as np
import pytest

import refjax as jax
import refjax.numpy as jnp
from refjax._src import api, compiler, dispatch, lru
from refjax._src.interpreters import ad, batching
from refjax._src.interpreters import key_reuse as kr


@pytest.fixture
def small_bounds(monkeypatch):
    """Bounds small enough to fill quickly (read when a cache is made)."""
    monkeypatch.setattr(lru, "JIT_CACHE_SIZE", 64)
    monkeypatch.setattr(lru, "TRACE_CACHE_SIZE", 32)


# -- THR-4: least recently used out first -----------------------------------------

@pytest.mark.spec("THR-4")
def test_default_bounds_are_jaxs():
    assert (lru.JIT_CACHE_SIZE, lru.TRACE_CACHE_SIZE) == (8192, 2048)
    f = jax.jit(lambda x: x)
    assert f._calls.maxsize == 8192 and f._fast_max == 8192
    assert f._traces.maxsize == 2048
    assert dispatch._MAX_PLANS == 20000


@pytest.mark.spec("THR-4")
def test_lru_drops_the_least_recently_used():
    cache = lru.LRU(3)
    for k in "abc":
        cache[k] = k.upper()
    assert cache.get("a") == "A"            # a use: "b" is now the oldest
    cache["d"] = "D"
    assert cache.keys() == ["c", "a", "d"] and len(cache) == 3
    assert cache.get("b") is None and "b" not in cache
    assert cache.setdefault("a", "X") == "A" and cache.setdefault("e", "E") == "E"
    assert cache.keys() == ["d", "a", "e"]
    cache.clear()
    assert len(cache) == 0
    with pytest.raises(ValueError, match="maxsize=0"):
        lru.LRU(0)


@pytest.mark.spec("THR-4")
def test_jit_cache_size_never_exceeds_the_bound(small_bounds):
    traces = []

    def f(x):
        traces.append(x.shape)
        return x + 1

    g = jax.jit(f)
    for n in range(1, 201):
        out = g(np.ones(n, np.float32))
        assert g._cache_size() <= 64 and len(g._fast) <= 64 and len(g._traces) <= 32
    np.testing.assert_array_equal(np.asarray(out), np.full(200, 2, np.float32))
    assert g._cache_size() == 64 and len(traces) == 200
    g(np.ones(200, np.float32))             # recent: no new trace
    assert len(traces) == 200
    out = g(np.ones(1, np.float32))         # evicted long ago: traced again
    assert len(traces) == 201 and np.asarray(out).tolist() == [2.0]


@pytest.mark.spec("THR-4")
def test_static_values_are_bounded_too(small_bounds):
    g = jax.jit(lambda x, k: x * k, static_argnums=1)
    x = jnp.ones(2)
    for k in range(300):
        assert np.asarray(g(x, k)).tolist() == [k, k]
        assert g._cache_size() <= 64
    assert len(g._traces) == 32


@pytest.mark.spec("THR-4")
def test_transformation_caches_are_bounded_per_jaxpr(small_bounds):
    closed = jax.make_jaxpr(lambda x, y: x * y)(1., 2.)
    for i in range(100):
        ad.jvp_jaxpr(closed, (bool(i % 2), True))
        batching.batch_jaxpr(closed, batching.AxisData(None, i + 1), (True, False), False)
    assert len(ad._jvp_cache[closed]) == 2
    assert len(batching._batch_cache[closed]) == 32


# -- THR-5: hot-path indexes ------------------------------------------------------

@pytest.mark.spec("THR-5")
def test_put_bounded_drops_the_oldest_insertion():
    d = {}
    lru.put_bounded(d, "a", 1, 2)
    lru.put_bounded(d, "b", 2, 2)
    assert d["a"] == 1                      # a lookup is not a use
    lru.put_bounded(d, "c", 3, 2)
    assert d == {"b": 2, "c": 3}
    lru.put_bounded(d, "c", 4, 2)           # replacing keeps the others
    assert d == {"b": 2, "c": 4}


@pytest.mark.spec("THR-5")
def test_eager_plans_are_bounded(monkeypatch):
    plans = {}
    monkeypatch.setattr(dispatch, "_eager_plans", plans)
    monkeypatch.setattr(dispatch, "_MAX_PLANS", 8)
    for n in range(1, 30):
        assert np.asarray(jnp.sin(jnp.zeros(n))).tolist() == [0.0] * n
        assert len(plans) <= 8
    assert len(plans) == 8


# -- THR-6: clear_caches, flat memory ---------------------------------------------

def _fill_every_cache():
    f = jax.jit(lambda x: jnp.sin(x) * 2)
    x = jnp.ones(3)
    f(x)
    jnp.cos(x)                                              # an eager plan
    jax.grad(lambda v: jnp.sum(f(v)))(x)                    # jvp, partial eval, transpose
    jax.vmap(f)(jnp.ones((2, 3)))                           # batched jaxpr
    with jax.debug_key_reuse(True):
        jax.jit(lambda k: jax.random.normal(k))(jax.random.key(0))   # key-reuse signatures
    return f


@pytest.mark.spec("THR-6")
def test_clear_caches_empties_every_cache():
    f = _fill_every_cache()
    caches = {"calls": f._calls, "fast": f._fast, "traces": f._traces,
              "trace caches": api._trace_caches, "programs": compiler._executables,
              "eager plans": dispatch._eager_plans, "jvp": ad._jvp_cache,
              "partial eval": ad._pe_cache, "transpose": ad._transpose_cache,
              "batch": batching._batch_cache, "key reuse": kr._signatures}
    empty = [name for name, c in caches.items() if len(c) == 0]
    assert empty == [], f"not filled: {empty}"
    jax.clear_caches()
    left = {name: len(c) for name, c in caches.items() if len(c)}
    assert left == {}
    assert np.asarray(f(jnp.ones(3))).tolist() == pytest.approx([2 * np.sin(1.0)] * 3)
    assert f._cache_size() == 1


def _growth_at_the_end(call, n_calls=20_000, window=2_000):
    """Traced memory (bytes) gained over the last ``window`` of ``n_calls``
    calls, long after the caches filled.

    Only that window is traced (tracemalloc slows every allocation down):
    once the entries made before it are evicted, what it holds is one
    cache's worth of entries plus whatever leaks.  Cache entries are made
    of small objects; blocks of 64 KiB and more are the tables of
    long-lived dicts (the interned strings...) that happened to be resized
    in the window, which a partial trace would count whole, so they are
    left out."""
    for i in range(n_calls - window):
        call(i)
    gc.collect()
    tracemalloc.start()
    try:
        for i in range(n_calls - window, n_calls):
            call(i)
        gc.collect()
        traces = tracemalloc.take_snapshot().traces
    finally:
        tracemalloc.stop()
    return sum(t.size for t in traces if t.size < 64 * 2**10)


@pytest.mark.spec("THR-6")
def test_memory_is_flat_over_20000_shapes(small_bounds):
    g = jax.jit(lambda x: x * 2 + 1)
    growth = _growth_at_the_end(lambda i: g(np.ones(i + 1, np.float32)))
    assert g._cache_size() == 64
    # Unbounded, the last 2,000 signatures alone would hold about 12 MiB.
    assert growth < 2 * 2**20, growth


@pytest.mark.spec("THR-6")
def test_memory_is_flat_over_20000_static_values(small_bounds):
    g = jax.jit(lambda x, k: x * k, static_argnums=1)
    x = jnp.ones(3)
    growth = _growth_at_the_end(lambda i: g(x, i))
    assert g._cache_size() == 64
    assert growth < 2 * 2**20, growth
