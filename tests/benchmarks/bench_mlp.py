"""The MLP problem shared by the training-step and per-example benchmarks.

A tanh MLP (``params`` a list of ``(W, b)`` pairs) with a softmax
cross-entropy loss against one-hot labels.  The loss and the SGD step are
written once against a NumPy-like module, so NumPy, autograd, refjax and
JAX all run the same program; ``numpy_value_and_grad`` is the backward pass
written out by hand (the floor, and in float64 the reference).
"""
import numpy as np

SIZES = (784, 512, 512, 10)
BATCH = 128
LR = 0.1  # SGD learning rate of the training step


def mlp_problem(sizes, batch, seed, dtype):
    """(params, x, y) for an MLP of layer ``sizes``: Glorot-scaled weights,
    N(0, 1) inputs, one-hot labels."""
    rng = np.random.default_rng(seed)
    params = [(rng.standard_normal((m, n)) / np.sqrt(m), 0.1 * rng.standard_normal(n))
              for m, n in zip(sizes[:-1], sizes[1:])]
    x = rng.standard_normal((batch, sizes[0]))
    y = np.eye(sizes[-1])[rng.integers(0, sizes[-1], batch)]
    cast = lambda a: np.asarray(a, dtype)  # noqa: E731
    return [(cast(w), cast(b)) for w, b in params], cast(x), cast(y)


def problem(dtype=np.float32):
    """The 784-512-512-10 problem, batch 128."""
    return mlp_problem(SIZES, BATCH, 0, dtype)


def as_float64(tree):
    """``(params, x, y)`` widened to float64, values unchanged."""
    params, x, y = tree
    return ([(w.astype(np.float64), b.astype(np.float64)) for w, b in params],
            x.astype(np.float64), y.astype(np.float64))


def mlp_logits(xnp, params, x):
    """The tanh MLP's logits, written against a NumPy-like ``xnp``."""
    h = x
    for w, b in params[:-1]:
        h = xnp.tanh(xnp.dot(h, w) + b)
    w, b = params[-1]
    return xnp.dot(h, w) + b


def make_loss(xnp):
    """The mean softmax cross-entropy, written against a NumPy-like ``xnp``."""

    def loss(params, x, y):
        logits = mlp_logits(xnp, params, x)
        shift = xnp.max(logits, axis=1, keepdims=True)
        lse = xnp.log(xnp.sum(xnp.exp(logits - shift), axis=1, keepdims=True)) + shift
        return -xnp.mean(xnp.sum(y * (logits - lse), axis=1))

    return loss


def sgd(params, grads):
    """``params - LR * grads``, pair by pair (a Python float keeps float32)."""
    return [(w - LR * gw, b - LR * gb) for (w, b), (gw, gb) in zip(params, grads)]


def make_step(xnp, value_and_grad):
    """One training step ``(params, x, y) -> (loss, new_params)``, for any
    library with a ``value_and_grad`` (autograd, refjax, JAX)."""
    loss_and_grads = value_and_grad(make_loss(xnp))

    def step(params, x, y):
        loss, grads = loss_and_grads(params, x, y)
        return loss, sgd(params, grads)

    return step


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


def numpy_step(params, x, y):
    """The training step by hand: forward, backward, update."""
    loss, grads = numpy_value_and_grad(params, x, y)
    return loss, sgd(params, grads)


def check_arrays(got, ref, rtol=1e-4):
    """float32 arrays equal to float64 ``ref`` up to float32 rounding: relative
    ``rtol``, absolute 1e-5 of ``ref``'s largest entry."""
    got = np.asarray(got)
    assert got.dtype == np.float32 and got.shape == ref.shape
    np.testing.assert_allclose(got, ref, rtol=rtol, atol=1e-5 * np.abs(ref).max())


def check_loss_and_pairs(result, expected):
    """``(loss, [(W, b), ...])`` against the float64 ``expected``."""
    (loss, pairs), (ref_loss, ref_pairs) = result, expected
    assert np.asarray(loss).dtype == np.float32
    np.testing.assert_allclose(np.asarray(loss), ref_loss, rtol=1e-5)
    assert len(pairs) == len(ref_pairs)
    for got_pair, ref_pair in zip(pairs, ref_pairs):
        for got, ref in zip(got_pair, ref_pair):
            check_arrays(got, ref)


def check_step(result, problem32):
    """A training step's ``(loss, new_params)`` on the float32 ``problem32``:
    the loss, the new parameters, and the update they apply (``new - old``,
    which is ``-LR * grads``), all against a float64 step from the same
    float32 starting point."""
    ref_loss, ref_new = numpy_step(*as_float64(problem32))
    check_loss_and_pairs(result, (ref_loss, ref_new))
    for got_pair, ref_pair, old_pair in zip(result[1], ref_new, problem32[0]):
        for got, ref, old in zip(got_pair, ref_pair, old_pair):
            old = old.astype(np.float64)
            update = np.asarray(got).astype(np.float64) - old
            np.testing.assert_allclose(update, ref - old, rtol=1e-3,
                                       atol=1e-3 * np.abs(ref - old).max())
