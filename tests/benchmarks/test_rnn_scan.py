"""A ``scan``-based RNN: loss and gradients through 100 steps, under ``jit``.

A tanh cell ``h_t = tanh(x_t @ Wx + h_{t-1} @ Wh + b)`` (input 32, hidden
64, batch 16, float32, ``h_0 = 0``) runs over 100 steps; the loss is the mean
of every hidden state squared, and we want it with its gradients with
respect to ``(Wx, Wh, b)``.  Computed by:

* ``numpy``: backpropagation through time written out by hand (the floor):
  a forward loop and a backward loop over the steps, with the input
  projection and the weight gradients done for all steps in one product;
* ``autograd``: ``value_and_grad`` of the same loss with the scan as a
  Python loop (autograd has no ``scan``);
* ``refjax`` / ``jax``: ``jit(value_and_grad(loss))`` with ``lax.scan``.

Every row is checked against a float64 run of the hand-written pass.  No
goal is set for refjax; the timings are recorded.
"""
import numpy as np
import pytest
from bench_impls import available, load, tag
from bench_mlp import check_arrays

STEPS, BATCH, INPUT, HIDDEN = 100, 16, 32, 64


def _problem(dtype=np.float32):
    """``((Wx, Wh, b), xs)``: Glorot-scaled weights, N(0, 1) inputs."""
    rng = np.random.default_rng(2)
    params = (rng.standard_normal((INPUT, HIDDEN)) / np.sqrt(INPUT),
              rng.standard_normal((HIDDEN, HIDDEN)) / np.sqrt(HIDDEN),
              0.1 * rng.standard_normal(HIDDEN))
    xs = rng.standard_normal((STEPS, BATCH, INPUT))
    return tuple(p.astype(dtype) for p in params), xs.astype(dtype)


def python_scan(xnp):
    """``lax.scan`` as a Python loop, stacking with ``xnp`` (for autograd)."""

    def scan(f, init, xs):
        carry, ys = init, []
        for x in xs:
            carry, y = f(carry, x)
            ys.append(y)
        return carry, xnp.stack(ys)

    return scan


def make_loss(xnp, scan):
    """The RNN loss, written against a NumPy-like ``xnp`` and a ``scan``."""

    def loss(params, xs):
        wx, wh, b = params

        def cell(h, x):
            h = xnp.tanh(xnp.dot(x, wx) + xnp.dot(h, wh) + b)
            return h, h

        _, hs = scan(cell, xnp.zeros((xs.shape[1], wh.shape[0]), xs.dtype), xs)
        return xnp.mean(hs * hs)

    return loss


def numpy_value_and_grad(params, xs):
    """The loss and d loss / d (Wx, Wh, b) by hand, in the inputs' dtype."""
    wx, wh, b = params
    steps, batch, _ = xs.shape
    dtype, hidden = xs.dtype, wh.shape[0]
    projected = xs @ wx + b
    hs = np.zeros((steps + 1, batch, hidden), dtype)  # hs[0] is h_0
    for t in range(steps):
        hs[t + 1] = np.tanh(projected[t] + hs[t] @ wh)
    loss = np.mean(hs[1:] * hs[1:])

    # d loss / d h_t = 2 h_t / n from the loss, plus what flows back from
    # step t + 1; then through tanh: d z_t = d h_t * (1 - h_t^2).
    scale = dtype.type(2) / dtype.type(hs[1:].size)
    dz = np.empty((steps, batch, hidden), dtype)
    back = np.zeros((batch, hidden), dtype)
    for t in range(steps - 1, -1, -1):
        dz[t] = (hs[t + 1] * scale + back) * (1 - hs[t + 1] * hs[t + 1])
        back = dz[t] @ wh.T
    flat_dz = dz.reshape(steps * batch, hidden)
    grads = (xs.reshape(steps * batch, -1).T @ flat_dz,
             hs[:-1].reshape(steps * batch, hidden).T @ flat_dz,
             flat_dz.sum(axis=0))
    return loss, grads


def _runner(impl, args):
    if impl.name == "numpy":
        return lambda: numpy_value_and_grad(*args)
    scan = python_scan(impl.xnp) if impl.name == "autograd" else impl.lax.scan
    f = impl.jit(impl.value_and_grad(make_loss(impl.xnp, scan)))
    return lambda: impl.block(f(*args))


@pytest.mark.parametrize("name", available())
def test_rnn_scan_value_and_grad(benchmark, name):
    """Loss and gradients of a 100-step tanh RNN."""
    impl = load(name)
    tag(benchmark, "rnn_scan", f"value_and_grad of a {STEPS}-step scan RNN (tanh cell, input "
        f"{INPUT}, hidden {HIDDEN}, batch {BATCH}), float32", impl)
    host = _problem()
    call = _runner(impl, impl.put(host))
    call()  # trace and compile outside the measurement
    loss, grads = benchmark.pedantic(call, rounds=10, iterations=1, warmup_rounds=1)
    ref_loss, ref_grads = numpy_value_and_grad(*_problem(np.float64))
    assert np.asarray(loss).dtype == np.float32
    np.testing.assert_allclose(np.asarray(loss), ref_loss, rtol=1e-5)
    for got, ref in zip(grads, ref_grads, strict=True):
        check_arrays(got, ref)
