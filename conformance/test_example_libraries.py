"""Conformance: ``jax.example_libraries.stax`` and ``.optimizers`` (SPEC
EXL-1 .. EXL-20).

References are NumPy computations of the SPEC's formulas, applied to the
parameters the library itself initialized.
"""
import importlib

import numpy as np
import pytest

F32 = dict(rtol=1e-5, atol=1e-6)


@pytest.fixture(scope="module")
def stax(jax):
    return importlib.import_module(jax.__name__ + ".example_libraries.stax")


@pytest.fixture(scope="module")
def opt(jax):
    return importlib.import_module(jax.__name__ + ".example_libraries.optimizers")


def host(x):
    return np.asarray(x, np.float64)


X = np.random.RandomState(0).randn(2, 5, 6, 3).astype(np.float32)


@pytest.mark.spec("EXL-1")
def test_dense(jax, stax):
    init, apply = stax.Dense(4)
    shape, (W, b) = init(jax.random.PRNGKey(0), (2, 3))
    assert shape == (2, 4) and W.shape == (3, 4) and b.shape == (4,)
    x = X[0, 0, :2]
    np.testing.assert_allclose(host(apply((W, b), x)), host(x) @ host(W) + host(b), **F32)


@pytest.mark.spec("EXL-2")
def test_convolutions(jax, stax):
    lax = jax.lax
    init, apply = stax.Conv(4, (3, 2), strides=(1, 2), padding="SAME")
    shape, (W, b) = init(jax.random.PRNGKey(1), X.shape)
    assert W.shape == (3, 2, 3, 4) and b.shape == (1, 1, 1, 4)
    out = apply((W, b), X)
    assert out.shape == shape == (2, 5, 3, 4)
    want = lax.conv_general_dilated(X, W, (1, 2), "SAME", (1, 1), (1, 1),
                                    dimension_numbers=("NHWC", "HWIO", "NHWC"))
    np.testing.assert_allclose(host(out), host(want) + host(b), **F32)
    init, apply = stax.ConvTranspose(2, (2, 2), strides=(2, 2))
    shape, params = init(jax.random.PRNGKey(2), X.shape)
    assert apply(params, X).shape == shape == (2, 10, 12, 2)
    init, apply = stax.Conv1DTranspose(2, (3,))
    shape, params = init(jax.random.PRNGKey(2), (2, 5, 3))
    assert apply(params, X[:, :, 0]).shape == shape == (2, 7, 2)


@pytest.mark.spec("EXL-3")
def test_batch_norm(jax, stax):
    init, apply = stax.BatchNorm(axis=(0, 1, 2))
    shape, (beta, gamma) = init(jax.random.PRNGKey(0), X.shape)
    assert shape == X.shape and beta.shape == gamma.shape == (3,)
    beta, gamma = beta + 0.5, gamma * 2
    x = host(X)
    z = (x - x.mean((0, 1, 2))) / np.sqrt(x.var((0, 1, 2)) + 1e-5)
    np.testing.assert_allclose(host(apply((beta, gamma), X)), 2 * z + 0.5, rtol=1e-4,
                               atol=1e-4)
    init, apply = stax.BatchNorm(axis=0, center=False)
    _, (beta, gamma) = init(jax.random.PRNGKey(0), (4, 3))
    assert beta == () and gamma.shape == (3,)


@pytest.mark.spec("EXL-4")
def test_elementwise(jax, jnp, stax):
    x = X[0, 0]
    nn = jax.nn
    for layer, fun in [(stax.Tanh, jnp.tanh), (stax.Relu, nn.relu), (stax.Exp, jnp.exp),
                       (stax.Softplus, nn.softplus), (stax.Sigmoid, nn.sigmoid),
                       (stax.Elu, nn.elu), (stax.LeakyRelu, nn.leaky_relu),
                       (stax.Selu, nn.selu), (stax.Gelu, nn.gelu),
                       (stax.LogSoftmax, nn.log_softmax), (stax.Softmax, nn.softmax)]:
        assert layer[0](None, (5, 6)) == ((5, 6), ())
        np.testing.assert_allclose(host(layer[1]((), x)), host(fun(x)), **F32)
    init, apply = stax.elementwise(jnp.clip, min=-0.5, max=0.5)
    np.testing.assert_allclose(host(apply((), x)), np.clip(x, -0.5, 0.5))


@pytest.mark.spec("EXL-5")
def test_pooling(jax, stax):
    x = host(X)
    for layer, reduce in [(stax.MaxPool, np.max), (stax.SumPool, np.sum), (stax.AvgPool, np.mean)]:
        init, apply = layer((2, 3), strides=(1, 3))
        shape, params = init(None, X.shape)
        out = host(apply(params, X))
        assert params == () and out.shape == shape == (2, 4, 2, 3)
        want = np.stack([np.stack([reduce(x[:, i:i + 2, 3 * j:3 * j + 3], axis=(1, 2))
                                   for j in range(2)], 1) for i in range(4)], 1)
        np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
    # 'SAME' averages only the real pixels of an edge window.
    init, apply = stax.AvgPool((2, 2), padding="SAME")
    ones = np.ones((1, 3, 3, 1), np.float32)
    np.testing.assert_allclose(host(apply((), ones)), 1, rtol=1e-6)
    init, apply = stax.MaxPool((2,), spec="NCW")
    assert init(None, (2, 3, 5))[0] == (2, 3, 4)


@pytest.mark.spec("EXL-6")
def test_shape_layers(jnp, stax):
    x = X[:, 0]
    assert stax.Flatten[0](None, (2, 6, 3)) == ((2, 18), ())
    np.testing.assert_array_equal(host(stax.Flatten[1]((), x)), x.reshape(2, 18))
    assert stax.Identity[1]((), x) is x
    shapes, _ = stax.FanOut(3)[0](None, (2, 6, 3))
    assert shapes == [(2, 6, 3)] * 3 and len(stax.FanOut(3)[1]((), x)) == 3
    assert stax.FanInSum[0](None, [(2, 3), (2, 3)])[0] == (2, 3)
    np.testing.assert_allclose(host(stax.FanInSum[1]((), [x, 2 * x])), 3 * host(x), **F32)
    init, apply = stax.FanInConcat(axis=-2)
    assert init(None, [(2, 6, 3), (2, 1, 3)])[0] == (2, 7, 3)
    assert apply((), [x, x[:, :1]]).shape == (2, 7, 3)


@pytest.mark.spec("EXL-7")
def test_dropout(jax, stax):
    init, apply = stax.Dropout(0.75)
    assert init(None, (4,)) == ((4,), ())
    with pytest.raises(ValueError, match="Dropout layer requires apply_fun to be called"):
        apply((), X)
    out = host(apply((), X, rng=jax.random.PRNGKey(0)))
    kept = out != 0
    np.testing.assert_allclose(out[kept], host(X)[kept] / 0.75, rtol=1e-6)
    assert 0.6 < kept.mean() < 0.9
    _, apply = stax.Dropout(0.5, mode="test")
    assert apply((), X, rng=jax.random.PRNGKey(0)) is X


@pytest.mark.spec("EXL-8")
def test_serial(jax, stax):
    init, apply = stax.serial(stax.Dense(5), stax.Relu, stax.Dense(2), stax.Dropout(0.9))
    key = jax.random.PRNGKey(3)
    shape, params = init(key, (4, 3))
    assert shape == (4, 2) and isinstance(params, list) and len(params) == 4
    _, k1 = jax.random.split(key)
    assert np.array_equal(host(params[0][0]), host(stax.Dense(5)[0](k1, (4, 3))[1][0]))
    x = X[0, :4, 0, :3]
    h = np.maximum(host(x) @ host(params[0][0]) + host(params[0][1]), 0)
    h = h @ host(params[2][0]) + host(params[2][1])
    rng = jax.random.PRNGKey(4)
    mask = host(stax.Dropout(0.9)[1]((), np.ones((4, 2), np.float32),
                                     rng=jax.random.split(rng, 4)[3]))
    np.testing.assert_allclose(host(apply(params, x, rng=rng)), h * mask, rtol=1e-5, atol=1e-5)


@pytest.mark.spec("EXL-9")
def test_parallel(jax, stax):
    init, apply = stax.parallel(stax.Dense(2), stax.Identity)
    shapes, params = init(jax.random.PRNGKey(0), [(3, 4), (3, 5)])
    assert shapes == ((3, 2), (3, 5)) and params[1] == ()
    outs = apply(params, [X[0, :3, :4, 0], X[0, :3, :5, 1]])
    assert isinstance(outs, list) and outs[0].shape == (3, 2)


@pytest.mark.spec("EXL-10")
def test_shape_dependent(jax, stax):
    layer = stax.shape_dependent(lambda shape: stax.Dense(shape[-1] * 2))
    shape, params = layer[0](jax.random.PRNGKey(0), (2, 3))
    assert shape == (2, 6)
    assert layer[1](params, X[0, 0, :2]).shape == (2, 6)


@pytest.mark.spec("EXL-11")
def test_optimizer_state_is_a_pytree(jax, jnp, opt):
    init, update, get_params = opt.adam(0.1)
    params = {"w": jnp.ones(3), "b": (jnp.zeros(2), jnp.ones(()))}
    state = init(params)
    assert isinstance(state, opt.OptimizerState)
    assert len(jax.tree_util.tree_leaves(state)) == 3 * 3
    assert isinstance(opt.sgd(0.1), opt.Optimizer)
    step = jax.jit(lambda i, s: update(i, get_params(s), s))
    state = step(0, state)
    assert jax.tree_util.tree_structure(get_params(state)) == \
        jax.tree_util.tree_structure(params)


@pytest.mark.spec("EXL-12")
def test_optimizer_decorator(jnp, opt):
    init, update, get_params = opt.momentum(0.1, 0.9)
    params = (jnp.ones(2), [jnp.zeros(3)])
    state = init(params)
    for a, b in zip(get_params(state), params):
        assert a is b or np.array_equal(host(a[0] if isinstance(a, list) else a),
                                        host(b[0] if isinstance(b, list) else b))
    with pytest.raises(TypeError, match="optimizer update function was passed a gradient "
                                        "tree that did not match"):
        update(0, (jnp.ones(2),), state)

    @opt.optimizer
    def bad(step):
        return (lambda x: (x, x), lambda i, g, s: (s[0],), lambda s: s[0])
    init, update, _ = bad(0.1)
    with pytest.raises(TypeError, match="produced an output structure that did not match"):
        update(0, jnp.ones(2), init(jnp.ones(2)))


def _run(opt, maker, args, x0, grads):
    init, update, get_params = maker(*args)
    state = init(x0)
    for i, g in enumerate(grads):
        state = update(i, g, state)
    return host(get_params(state))


G = [np.array([0.5, -1.0, 2.0], np.float32), np.array([0.1, 0.3, -0.2], np.float32)]
X0 = np.array([1.0, -2.0, 0.5], np.float32)


def ref_optimizer(name, x, grads, lr=0.1, mass=0.9):
    x = x.astype(np.float64)
    a, b = np.zeros_like(x), np.zeros_like(x)
    for i, g in enumerate(grads):
        g = g.astype(np.float64)
        if name == "sgd":
            x = x - lr * g
        elif name in ("momentum", "nesterov"):
            a = mass * a + g
            x = x - lr * (mass * a + g if name == "nesterov" else a)
        elif name == "adagrad":
            a = a + g * g
            b = (1 - 0.9) * g / np.sqrt(a) + 0.9 * b
            x = x - lr * b
        elif name == "rmsprop":
            a = 0.9 * a + 0.1 * g * g
            x = x - lr * g / np.sqrt(a + 1e-8)
        elif name == "rmsprop_momentum":
            a = 0.9 * a + 0.1 * g * g
            b = 0.9 * b + lr * g / np.sqrt(a + 1e-8)
            x = x - b
        elif name == "adam":
            a = 0.1 * g + 0.9 * a
            b = 0.001 * g * g + 0.999 * b
            x = x - lr * (a / (1 - 0.9 ** (i + 1))) / (np.sqrt(b / (1 - 0.999 ** (i + 1))) + 1e-8)
        elif name == "adamax":
            a = 0.1 * g + 0.9 * a
            b = np.maximum(0.999 * b, np.abs(g))
            x = x - lr / (1 - 0.9 ** (i + 1)) * a / (b + 1e-8)
        elif name == "sm3":   # 1-d: the accumulator is adagrad's
            a = a + g * g
            b = 0.1 * g / np.sqrt(a) + 0.9 * b
            x = x - lr * b
    return x


@pytest.mark.spec("EXL-13")
@pytest.mark.spec("EXL-14")
@pytest.mark.spec("EXL-15")
@pytest.mark.parametrize("name", ["sgd", "momentum", "nesterov", "adagrad", "rmsprop",
                                  "rmsprop_momentum", "adam", "adamax", "sm3"])
def test_optimizer_updates(opt, name):
    args = (0.1, 0.9) if name in ("momentum", "nesterov") else (0.1,)
    got = _run(opt, getattr(opt, name), args, X0, G)
    np.testing.assert_allclose(got, ref_optimizer(name, X0, G), rtol=1e-5, atol=1e-6)


@pytest.mark.spec("EXL-15")
def test_sm3_matrix_and_scalar(jnp, opt):
    x0 = np.array([[1., 2.], [3., 4.]], np.float32)
    g = np.array([[0.5, -1.], [2., 0.1]], np.float32)
    # First step: the accumulators are zero, so the accumulator is g**2.
    want = x0 - 0.1 * (0.1 * np.sign(g))
    np.testing.assert_allclose(_run(opt, opt.sm3, (0.1,), x0, [g]), want, rtol=1e-6)
    out = _run(opt, opt.sm3, (0.1,), np.float32(2.0), [np.float32(0.5)])
    assert out.shape == () and np.isclose(out, 2.0 - 0.01)


@pytest.mark.spec("EXL-16")
def test_schedules(jax, jnp, opt):
    assert opt.constant(0.3)(7) == 0.3
    np.testing.assert_allclose(float(opt.exponential_decay(0.1, 10, 0.5)(20)), 0.025)
    np.testing.assert_allclose(float(opt.inverse_time_decay(1.0, 10, 1.0)(15)), 0.4)
    np.testing.assert_allclose(
        float(opt.inverse_time_decay(1.0, 10, 1.0, staircase=True)(15)), 0.5)
    poly = opt.polynomial_decay(1.0, 10, 0.1, power=2.0)
    np.testing.assert_allclose([float(poly(i)) for i in (0, 5, 10, 20)],
                               [1.0, 0.1 + 0.9 * 0.25, 0.1, 0.1], rtol=1e-6)
    pc = opt.piecewise_constant([2, 5], [1.0, 0.5, 0.1])
    assert [float(pc(i)) for i in (0, 2, 3, 5, 6)] == [1.0, 1.0, 0.5, 0.5, np.float32(0.1)]
    assert float(jax.jit(pc)(4)) == 0.5
    with pytest.raises(ValueError, match="boundaries and values must be sequences"):
        opt.piecewise_constant(2, [1., 2.])
    with pytest.raises(ValueError, match="boundaries length must be one shorter"):
        opt.piecewise_constant([1, 2], [1., 2.])


@pytest.mark.spec("EXL-17")
def test_make_schedule(jax, jnp, opt):
    f = lambda i: 1.0 / (i + 1)
    assert opt.make_schedule(f) is f
    assert opt.make_schedule(0.5)(3) == 0.5
    with pytest.raises(TypeError):
        opt.make_schedule(np.array([0.1, 0.2]))
    # A traced step size is a scalar too.
    x = jax.jit(lambda lr: _first_sgd_step(opt, lr))(jnp.float32(0.5))
    np.testing.assert_allclose(host(x), X0 - 0.5 * G[0], rtol=1e-6)


def _first_sgd_step(opt, lr):
    init, update, get_params = opt.sgd(lr)
    return get_params(update(0, G[0], init(X0)))


@pytest.mark.spec("EXL-18")
def test_l2_norm_and_clip(jnp, opt):
    tree = {"a": jnp.asarray([3.0]), "b": (jnp.asarray([[4.0, 0.0]]),)}
    assert float(opt.l2_norm(tree)) == 5.0
    clipped = opt.clip_grads(tree, 1.0)
    np.testing.assert_allclose(host(clipped["a"]), [0.6], rtol=1e-6)
    np.testing.assert_allclose(host(clipped["b"][0]), [[0.8, 0.0]], rtol=1e-6)
    same = opt.clip_grads(tree, 10.0)
    np.testing.assert_array_equal(host(same["a"]), [3.0])


STAX_NAMES = """AvgPool BatchNorm Conv Conv1DTranspose ConvTranspose Dense Dropout Elu Exp
FanInConcat FanInSum FanOut Flatten Gelu GeneralConv GeneralConvTranspose Identity LeakyRelu
LogSoftmax MaxPool Relu Selu Sigmoid Softmax Softplus SumPool Tanh elementwise elu functools
gelu glorot glorot_normal jnp lax leaky_relu log_softmax logsoftmax math normal ones parallel
randn random relu selu serial shape_dependent sigmoid softmax softplus standardize
zeros""".split()
OPTIMIZER_NAMES = """Any Array Callable InitFn JoinPoint NamedTuple Optimizer OptimizerState
Params ParamsFn Schedule State Step UpdateFn Updates adagrad adam adamax annotations clip_grads
constant exponential_decay functools inverse_time_decay jax jnp l2_norm make_schedule map
momentum namedtuple nesterov optimizer pack_optimizer_state partial piecewise_constant
polynomial_decay rmsprop rmsprop_momentum safe_map safe_zip sgd sm3 unpack_optimizer_state
unzip2 zip""".split()


@pytest.mark.spec("EXL-19")
def test_module_names(jax, stax, opt):
    assert set(STAX_NAMES) <= set(dir(stax))
    assert set(OPTIMIZER_NAMES) <= set(dir(opt))
    package = importlib.import_module(jax.__name__ + ".example_libraries")
    assert {n for n in vars(package) if not n.startswith("_")} <= {"stax", "optimizers"}
    assert stax.jnp is jax.numpy and stax.glorot is stax.glorot_normal
    assert opt.jax is jax and opt.map is opt.safe_map and opt.zip is opt.safe_zip
    assert opt.safe_zip([1, 2], "ab") == [(1, "a"), (2, "b")]
    with pytest.raises(ValueError):
        opt.safe_zip([1], [1, 2])
    with pytest.raises(ValueError):
        opt.safe_map(lambda a, b: a, [1], [1, 2])
    assert tuple(opt.unzip2([(1, 2), (3, 4)])) == ((1, 3), (2, 4))


@pytest.mark.spec("EXL-20")
def test_pack_unpack(jax, jnp, opt):
    init, update, get_params = opt.momentum(0.1, 0.9)
    state = init({"x": jnp.ones(2), "y": [jnp.zeros(3)]})
    state = update(0, {"x": jnp.ones(2), "y": [jnp.ones(3)]}, state)
    marked = opt.unpack_optimizer_state(state)
    assert isinstance(marked["x"], opt.JoinPoint) and len(marked["x"].subtree) == 2
    again = opt.pack_optimizer_state(marked)
    assert jax.tree_util.tree_structure(again) == jax.tree_util.tree_structure(state)
    assert again.tree_def == state.tree_def and again.subtree_defs == state.subtree_defs
    for a, b in zip(jax.tree_util.tree_leaves(again), jax.tree_util.tree_leaves(state)):
        np.testing.assert_array_equal(host(a), host(b))
    with pytest.raises(AssertionError):
        opt.pack_optimizer_state({"x": jnp.ones(2)})
