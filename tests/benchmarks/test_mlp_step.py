"""One SGD training step of a 784-512-512-10 tanh MLP (batch 128, float32).

The step is the loss (mean softmax cross-entropy), its gradients with respect
to every ``(W, b)``, and the update ``params - 0.1 * grads``, computed by:

* ``numpy``: forward, backward and update written out by hand (the floor);
* ``autograd``: HIPS autograd's ``value_and_grad`` plus the same update;
* ``refjax`` / ``jax``: ``jit(step)`` of that same step function.

Two measurements: a warmed-up step, and the first call of a fresh ``jit``
(trace + compile + run, caches cleared every round; for NumPy and autograd,
which compile nothing, the first call is just a call).  Every row's loss and
new parameters are checked against a float64 step, so a wrong gradient fails
the test; refjax's goals (step within 1.15x of NumPy and faster than
autograd; first call within 0.1 s) are tracked in ``extra_info``, not
asserted.  See README.md here.
"""
import pytest
from bench_impls import available, load, tag
from bench_mlp import BATCH, SIZES, check_step, make_step, numpy_step, problem

SHAPE = f"{'-'.join(map(str, SIZES))} tanh MLP, batch {BATCH}, float32"
GOAL_STEP = {"max_ratio_to_numpy": 1.15, "faster_than": "autograd"}
GOAL_FIRST_CALL = {"max_s": 0.1}


def _step(impl):
    """The step function ``impl`` runs; a fresh ``jit`` each time."""
    if impl.name == "numpy":
        return numpy_step
    return impl.jit(make_step(impl.xnp, impl.value_and_grad))


@pytest.mark.parametrize("name", available())
def test_mlp_training_step(benchmark, name):
    """A warmed-up training step: loss, gradients and the SGD update."""
    impl = load(name)
    tag(benchmark, "mlp_step", f"training step (loss, grads, SGD update) of a {SHAPE}", impl,
        goal=GOAL_STEP if name == "refjax" else None)
    host = problem()
    args, step = impl.put(host), _step(impl)
    call = lambda: impl.block(step(*args))  # noqa: E731
    call()  # trace and compile outside the measurement
    result = benchmark.pedantic(call, rounds=20, iterations=1, warmup_rounds=2)
    check_step(result, host)


@pytest.mark.parametrize("name", available())
def test_mlp_training_step_first_call(benchmark, name):
    """``clear_caches()``, a fresh ``jit(step)``, then its first call."""
    impl = load(name)
    tag(benchmark, "mlp_first_call", f"first call (trace + compile + run) of jit(step), {SHAPE}",
        impl, goal=GOAL_FIRST_CALL if name == "refjax" else None)
    host = problem()
    args = impl.put(host)

    def fresh_step():
        impl.clear_caches()
        return (_step(impl),), {}

    # One warm-up round keeps the process's one-off lazy imports out.
    result = benchmark.pedantic(lambda step: impl.block(step(*args)), setup=fresh_step,
                                rounds=3, iterations=1, warmup_rounds=1)
    check_step(result, host)
