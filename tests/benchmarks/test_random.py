"""PRNG benchmarks: refjax's threefry samplers next to NumPy's generator and
(when installed) JAX, in one session (see README.md in this directory).

* ``normal(key, (100_000,))`` from one key, eagerly;
* ``split(key, 1000)``: key derivation only.

NumPy's row uses its own PCG64 generator (``standard_normal``), the floor
for drawing that many floats; refjax hashes with threefry2x32 in uint32
NumPy arithmetic.  No goal is set (the issue asks for bit-identity, not
speed); results are checked, timings are recorded.
"""
import importlib

import numpy as np
import pytest
from bench_impls import available, load, tag

N = 100_000
ROWS = available("numpy", "refjax", "jax")  # autograd has no PRNG of its own


def _normal_fn(impl):
    if impl.name == "numpy":
        rng = np.random.default_rng(0)
        return lambda: rng.standard_normal(N, dtype=np.float32)
    random = importlib.import_module(impl.name + ".random")
    key = random.key(0)
    return lambda: random.normal(key, (N,)).block_until_ready()


def _split_fn(impl):
    if impl.name == "numpy":
        seq = np.random.SeedSequence(0)
        return lambda: seq.spawn(1000)
    random = importlib.import_module(impl.name + ".random")
    key = random.key(0)
    return lambda: random.split(key, 1000).block_until_ready()


@pytest.mark.parametrize("name", ROWS)
def test_normal_100k(benchmark, name):
    impl = load(name)
    tag(benchmark, "random_normal", "normal(key, (100000,)) float32, eager", impl)
    fn = _normal_fn(impl)
    fn()
    out = np.asarray(benchmark.pedantic(fn, rounds=20, iterations=1, warmup_rounds=2))
    assert out.shape == (N,) and out.dtype == np.float32
    assert abs(out.mean()) < 0.02 and abs(out.std() - 1) < 0.02


@pytest.mark.parametrize("name", ROWS)
def test_split_1000(benchmark, name):
    impl = load(name)
    tag(benchmark, "random_split", "split(key, 1000)", impl)
    fn = _split_fn(impl)
    fn()
    out = benchmark.pedantic(fn, rounds=50, iterations=1, warmup_rounds=2)
    assert len(out) == 1000
