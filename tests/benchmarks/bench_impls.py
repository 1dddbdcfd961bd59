"""The implementations every benchmark compares, behind one small interface.

Rows, each present when its library is importable:

* ``numpy``: the same work written by hand in NumPy, the floor;
* ``autograd``: HIPS autograd (``autograd.numpy`` plus its ``grad``), which
  has no compiler, so its ``jit`` is the identity;
* ``refjax``: this project, on the backend ``REFJAX_BACKEND`` chooses;
* ``jax``: real JAX.

On a GPU machine, ``REFJAX_BACKEND=cupy`` turns the comparison into refjax
on CuPy against real JAX on the same GPU: the ``refjax`` row skips (with the
reason) when CuPy or a GPU is missing, and the ``jax`` row skips when JAX
has no GPU, so the run never silently compares a GPU with a CPU.  The NumPy
and autograd rows stay on the CPU as the reference.

``tag`` writes what tests/benchmarks/report.py reads from the benchmark
JSON: the benchmark's key, the row, its device and refjax's goal.
"""
import importlib
import importlib.util
import os

import numpy as np
import pytest

ORDER = ("numpy", "autograd", "refjax", "jax")
GPU_MODE = os.environ.get("REFJAX_BACKEND", "numpy") == "cupy"


def available(*names):
    """The rows among ``names`` (default: all four) whose library imports."""
    return [name for name in (names or ORDER)
            if name == "numpy" or importlib.util.find_spec(name) is not None]


class Impl:
    """One row: its array module ``xnp`` and ``jit``/``grad``/``block``.

    ``jax`` is the JAX-like module (None for NumPy and autograd, which then
    get an identity ``jit`` and ``block``); ``grad``, ``value_and_grad`` and
    ``lax`` are the library's own, where it has them.
    """

    grad = value_and_grad = lax = None

    def __init__(self, name, xnp, device="cpu", jax=None):
        self.name, self.xnp, self.device, self.jax = name, xnp, device, jax

    def asarray(self, x):
        return self.xnp.asarray(x)

    def put(self, tree):
        """``tree``'s host arrays as this row's arrays (on its device)."""
        if self.jax is None:
            return tree
        return self.jax.tree_util.tree_map(self.xnp.asarray, tree)

    def jit(self, fun):
        return fun if self.jax is None else self.jax.jit(fun)

    def clear_caches(self):
        if self.jax is not None:
            self.jax.clear_caches()

    def block(self, tree):
        """Wait for asynchronous dispatch (JAX, CuPy) to finish."""
        return tree if self.jax is None else self.jax.block_until_ready(tree)


def _refjax_device_or_skip(jax):
    try:
        return jax.devices()[0].platform
    except RuntimeError as e:  # REFJAX_BACKEND=cupy without CuPy or a GPU
        pytest.skip(f"refjax's {os.environ.get('REFJAX_BACKEND')} backend cannot run: {e}")


def _jax_device_or_skip(jax):
    platform = jax.default_backend()
    if GPU_MODE and platform != "gpu":
        pytest.skip(f"REFJAX_BACKEND=cupy compares GPUs, but JAX runs on {platform} here")
    return platform


def load(name):
    """The ``Impl`` for row ``name``; skips the test when it cannot run."""
    if name == "numpy":
        return Impl("numpy", np)
    if name == "autograd":
        autograd = importlib.import_module("autograd")
        xnp = importlib.import_module("autograd.numpy")
        impl = Impl("autograd", xnp)
        impl.grad, impl.value_and_grad = autograd.grad, autograd.value_and_grad
        return impl
    jax = importlib.import_module(name)
    device = (_refjax_device_or_skip if name == "refjax" else _jax_device_or_skip)(jax)
    impl = Impl(name, importlib.import_module(name + ".numpy"), device, jax)
    impl.grad, impl.value_and_grad = jax.grad, jax.value_and_grad
    impl.lax = importlib.import_module(name + ".lax")
    return impl


def tag(benchmark, bench, group, impl, variant=None, goal=None):
    """Label a result for the report: ``impl`` is an ``Impl`` or a row name
    (a CPU row); ``goal`` is refjax's (tracked, not asserted)."""
    benchmark.group = group
    name, device = (impl, "cpu") if isinstance(impl, str) else (impl.name, impl.device)
    info = benchmark.extra_info
    info.update(bench=bench, implementation=name, device=device)
    if variant is not None:
        info["variant"] = variant
    if goal is not None:
        info["goal"] = goal
