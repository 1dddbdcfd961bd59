"""Gradient benchmark: ``jit(value_and_grad(loss))`` of a 784-512-512-10 MLP.

The loss is the mean softmax cross-entropy of a tanh MLP (``params`` a list
of ``(W, b)`` pairs, float32) on a batch of 128 one-hot examples.  The same
loss and its gradient with respect to ``params`` are computed by:

* ``numpy``: a forward and backward pass written out by hand below (the
  floor: the arithmetic with no tracing, no autodiff and no dispatch);
* ``refjax``: ``refjax.jit(refjax.value_and_grad(loss))``;
* ``autograd``: HIPS autograd's ``value_and_grad(loss)`` (when installed);
* ``jax``: ``jax.jit(jax.value_and_grad(loss))`` (when installed).

Every implementation's loss and gradients are checked against a float64 run
of the hand-written pass, so the benchmark also asserts correctness.  The
refjax goal (median within 1.3x of NumPy's, and below autograd's) is stored
in ``extra_info`` and tracked, not asserted.  See README.md here.
"""
import importlib
import importlib.util

import numpy as np
import pytest

SIZES = (784, 512, 512, 10)
BATCH = 128
GOAL = {"ratio_to_numpy": 1.3, "faster_than": "autograd"}


def mlp_problem(sizes, batch, seed, dtype):
    """(params, x, y) for an MLP of layer ``sizes``: Glorot-scaled weights,
    N(0, 1) inputs, one-hot labels; also used by test_per_example_grads."""
    rng = np.random.default_rng(seed)
    params = [(rng.standard_normal((m, n)) / np.sqrt(m), 0.1 * rng.standard_normal(n))
              for m, n in zip(sizes[:-1], sizes[1:])]
    x = rng.standard_normal((batch, sizes[0]))
    y = np.eye(sizes[-1])[rng.integers(0, sizes[-1], batch)]
    cast = lambda a: np.asarray(a, dtype)  # noqa: E731
    return [(cast(w), cast(b)) for w, b in params], cast(x), cast(y)


def _problem(dtype=np.float32):
    return mlp_problem(SIZES, BATCH, 0, dtype)


def make_loss(xnp):
    """The loss, written once against a NumPy-like module ``xnp``."""

    def loss(params, x, y):
        h = x
        for w, b in params[:-1]:
            h = xnp.tanh(xnp.dot(h, w) + b)
        w, b = params[-1]
        logits = xnp.dot(h, w) + b
        shift = xnp.max(logits, axis=1, keepdims=True)
        lse = xnp.log(xnp.sum(xnp.exp(logits - shift), axis=1, keepdims=True)) + shift
        return -xnp.mean(xnp.sum(y * (logits - lse), axis=1))

    return loss


def numpy_value_and_grad(params, x, y):
    """Loss and d loss / d params by hand, in the dtype of the inputs."""
    dtype = x.dtype
    hs = [x]  # the input of each layer
    for w, b in params[:-1]:
        hs.append(np.tanh(hs[-1] @ w + b))
    w, b = params[-1]
    logits = hs[-1] @ w + b
    shifted = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    s = e.sum(axis=1, keepdims=True)
    log_probs = shifted - np.log(s)
    loss = -(y * log_probs).sum(axis=1).mean(dtype=dtype)

    # loss = -mean_i sum_j y_ij log_softmax(logits)_ij, so
    # d loss / d logits = (softmax * sum_j y_ij - y) / batch.
    batch = dtype.type(x.shape[0])
    g = (e / s * y.sum(axis=1, keepdims=True) - y) / batch
    grads = []
    for k in range(len(params) - 1, -1, -1):
        w, _ = params[k]
        grads.append((hs[k].T @ g, g.sum(axis=0)))
        if k:  # through tanh: d tanh(z) = 1 - tanh(z)^2
            g = (g @ w.T) * (1 - hs[k] * hs[k])
    return loss, grads[::-1]


def _numpy_runner(params, x, y):
    return lambda: numpy_value_and_grad(params, x, y)


def _autograd_runner(params, x, y):
    autograd = importlib.import_module("autograd")
    anp = importlib.import_module("autograd.numpy")
    value_and_grad = autograd.value_and_grad(make_loss(anp))
    return lambda: value_and_grad(params, x, y)


def _jax_like_runner(module_name):
    """refjax or JAX: ``jit(value_and_grad(loss))`` on device arrays."""

    def runner(params, x, y):
        jax = importlib.import_module(module_name)
        jnp = importlib.import_module(module_name + ".numpy")
        f = jax.jit(jax.value_and_grad(make_loss(jnp)))
        params, x, y = jax.tree_util.tree_map(jnp.asarray, (params, x, y))
        block = jax.block_until_ready
        call = lambda: block(f(params, x, y))
        call()  # trace and compile outside the measurement
        return call

    return runner


RUNNERS = {"numpy": _numpy_runner, "refjax": _jax_like_runner("refjax"),
           "autograd": _autograd_runner, "jax": _jax_like_runner("jax")}


def _available():
    optional = [name for name in ("autograd", "jax")
                if importlib.util.find_spec(name) is not None]
    return ["refjax", "numpy", *optional]


def _check(result, expected):
    """Loss and gradients float32, and equal to the float64 reference."""
    (loss, grads), (ref_loss, ref_grads) = result, expected
    assert np.asarray(loss).dtype == np.float32
    np.testing.assert_allclose(np.asarray(loss), ref_loss, rtol=1e-5)
    assert len(grads) == len(ref_grads)
    for got_pair, ref_pair in zip(grads, ref_grads):
        for got, ref in zip(got_pair, ref_pair):
            got = np.asarray(got)
            assert got.dtype == np.float32 and got.shape == ref.shape
            np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-5 * np.abs(ref).max())


@pytest.mark.parametrize("name", _available())
def test_value_and_grad_mlp(benchmark, name):
    """One gradient step's worth of work: loss and gradients of every layer."""
    benchmark.group = (f"value_and_grad of a {'-'.join(map(str, SIZES))} tanh MLP, "
                       f"batch {BATCH}, float32")
    benchmark.extra_info["implementation"] = name
    if name == "refjax":
        benchmark.extra_info["goal"] = GOAL
    params, x, y = _problem()
    call = RUNNERS[name](params, x, y)
    result = benchmark.pedantic(call, rounds=20, iterations=1, warmup_rounds=2)
    _check(result, numpy_value_and_grad(*_problem(np.float64)))
