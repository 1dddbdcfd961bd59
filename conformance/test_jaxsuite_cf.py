"""Conformance: loop trace caching, fori_loop argument checks, custom
vmappable types, and jax.nn details met by JAX's own test suite
(SPEC CF-92, CF-93, VMAP-108, NN-14 .. NN-17)."""
import contextlib
import importlib
import io

import numpy as np
import pytest


@pytest.fixture(scope="module")
def lax(jax):
    return importlib.import_module(jax.__name__ + ".lax")


@pytest.fixture(scope="module")
def nn(jax):
    return importlib.import_module(jax.__name__ + ".nn")


# ---------------------------------------------------------------------------
# CF-92: loop bodies traced once per signature
# ---------------------------------------------------------------------------

@pytest.mark.spec("CF-92")
def test_while_loop_body_python_runs_once(lax):
    calls = []

    def cond(x):
        calls.append("cond")
        return x < 7

    def body(x):
        calls.append("body")
        return x + 3

    assert int(lax.while_loop(cond, body, 0)) == 9
    first = len(calls)
    assert int(lax.while_loop(cond, body, 1)) == 7
    assert len(calls) == first      # same functions, same types: no Python ran


@pytest.mark.spec("CF-92")
def test_scan_retraces_for_new_types(jnp, lax):
    calls = []

    def step(c, x):
        calls.append(1)
        return c + x, c * x

    xs = np.arange(4, dtype=np.float32)
    c1, ys = lax.scan(step, np.float32(1), xs)
    once = len(calls)
    lax.scan(step, np.float32(2), xs)
    assert len(calls) == once
    lax.scan(step, np.float32(1), np.arange(9, dtype=np.float32))
    assert len(calls) == once           # the body sees one slice: same signature
    c2, _ = lax.scan(step, np.float32(1), np.arange(5, dtype=np.int32))
    assert len(calls) > once            # a new slice dtype: a new signature
    np.testing.assert_allclose(np.asarray(c1), 1 + xs.sum())
    np.testing.assert_allclose(np.asarray(ys), np.cumsum(np.r_[1, xs])[:-1] * xs)
    np.testing.assert_allclose(np.asarray(c2), 1 + np.arange(5).sum())


@pytest.mark.spec("CF-92")
def test_closure_over_tracer_is_not_reused(jax, lax):
    def outer(y):
        return lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] + y),
                              (0, 0.0))[1]

    f = jax.jit(outer)
    assert float(f(1.0)) == 3.0
    assert float(f(2.0)) == 6.0
    assert float(jax.jvp(outer, (5.0,), (1.0,))[1]) == 3.0


# ---------------------------------------------------------------------------
# CF-93: fori_loop's body must be callable
# ---------------------------------------------------------------------------

@pytest.mark.spec("CF-93")
def test_fori_loop_rejects_non_callable_body(lax):
    with pytest.raises(TypeError, match=r"lax\.fori_loop: body_fun argument should be callable"):
        lax.fori_loop(0, 3, 42, 0)
    with pytest.raises(TypeError, match=r"lax\.fori_loop: body_fun argument should be callable"):
        lax.fori_loop(0, 3, "body", 0.0)


# ---------------------------------------------------------------------------
# VMAP-108: custom vmappable types
# ---------------------------------------------------------------------------

class Tagged:
    """A value with a tag list naming its axes; not a pytree."""

    def __init__(self, tags, data):
        self.tags = list(tags)
        self.data = data


class TagSpec:
    def __init__(self, tag, axis):
        self.tag, self.axis = tag, axis


def _to_elt(cont, _, val, spec):
    tags = list(val.tags)
    del tags[spec.axis]
    return Tagged(tags, cont(val.data, spec.axis))


def _from_elt(cont, size, elt, spec):
    tags = list(elt.tags)
    tags.insert(spec.axis, spec.tag)
    return Tagged(tags, cont(size, elt.data, spec.axis))


@pytest.fixture(scope="module")
def tagged_pytree(jax):
    # Also a pytree, so that jit can take it (vmap treats it as a leaf).
    jax.tree_util.register_pytree_node(
        Tagged, lambda t: ((t.data,), tuple(t.tags)),
        lambda tags, kids: Tagged(list(tags), kids[0]))


@pytest.fixture
def tagged(jax, tagged_pytree):
    batching = importlib.import_module(jax.__name__ + ".interpreters.batching")
    batching.register_vmappable(Tagged, TagSpec, int, _to_elt, _from_elt, None)
    yield
    batching.unregister_vmappable(Tagged)


@pytest.mark.spec("VMAP-108")
@pytest.mark.parametrize("use_jit", [False, True])
def test_vmappable_in_and_out(jax, jnp, tagged, use_jit):
    def f(t):
        assert t.tags == ["col"]
        return Tagged(t.tags, t.data * 2.0 + 1.0)

    g = jax.jit(f) if use_jit else f
    data = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    out = jax.vmap(g, in_axes=TagSpec("row", 0), out_axes=TagSpec("row", 1),
                   axis_size=2)(Tagged(["row", "col"], jnp.asarray(data)))
    assert out.tags == ["col", "row"]
    np.testing.assert_allclose(np.asarray(out.data), (data * 2 + 1).T)


@pytest.mark.spec("VMAP-108")
def test_vmappable_handlers_bind_under_jit(jax, jnp):
    batching = importlib.import_module(jax.__name__ + ".interpreters.batching")

    class Box:
        def __init__(self, data):
            self.data = data

    def to_elt(cont, _, val, spec):
        return cont(val.data * 10.0, spec)

    def from_elt(cont, size, elt, spec):
        return Box(cont(size, elt.data - 1.0, spec))

    @jax.jit
    def f(x):
        return jax.vmap(lambda v: Box(v + 1.0), axis_size=3)(Box(x)).data

    batching.register_vmappable(Box, int, int, to_elt, from_elt, None)
    try:
        out = f(jnp.arange(3.0))
    finally:
        batching.unregister_vmappable(Box)
    np.testing.assert_allclose(np.asarray(out), np.arange(3.0) * 10.0)


# ---------------------------------------------------------------------------
# NN-14 .. NN-17
# ---------------------------------------------------------------------------

@pytest.mark.spec("NN-14")
def test_attention_masks_without_rank_promotion(jax, jnp, nn):
    rng = np.random.RandomState(0)
    b, t, n, h = 2, 5, 2, 4
    q, k, v = (jnp.asarray(rng.randn(b, t, n, h).astype(np.float32)) for _ in range(3))
    lengths = jnp.asarray(np.array([5, 3], np.int32))
    with jax.numpy_rank_promotion("allow"):
        want = nn.dot_product_attention(q, k, v, is_causal=True,
                                        key_value_seq_lengths=lengths,
                                        local_window_size=(2, 0))
    with jax.numpy_rank_promotion("raise"):
        got = nn.dot_product_attention(q, k, v, is_causal=True,
                                       key_value_seq_lengths=lengths,
                                       local_window_size=(2, 0))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
    # Query 0 attends to key 0 only (causal): its output is v[:, 0].
    np.testing.assert_allclose(np.asarray(got)[:, 0], np.asarray(v)[:, 0], rtol=1e-5)


@pytest.mark.spec("NN-15")
def test_standardize_stable_algorithm(jax, jnp, nn):
    x = jnp.asarray(np.array([1e6, 1e6 + 1, 1e6 + 2], np.float32))
    want = np.array([-1.0, 0.0, 1.0]) / np.sqrt(2.0 / 3.0 + 1e-5)
    eager = nn.standardize(x, algorithm="stable")
    jitted = jax.jit(lambda x: nn.standardize(x, algorithm="stable"))(x)
    np.testing.assert_allclose(np.asarray(eager), want, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(jitted), want, rtol=1e-5)
    y = np.array([[1.0, 2.0, 4.0], [3.0, 3.0, 9.0]], np.float32)
    np.testing.assert_allclose(np.asarray(nn.standardize(jnp.asarray(y), algorithm="fast")),
                               np.asarray(nn.standardize(jnp.asarray(y), algorithm="stable")),
                               rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="Unknown algorithm 'bogus'"):
        nn.standardize(x, algorithm="bogus")


def _residual_lines(jax, fun, x):
    ckpt = importlib.import_module(jax.__name__ + ".ad_checkpoint")
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        ckpt.print_saved_residuals(fun, x)
    return [line for line in buf.getvalue().splitlines() if line.strip()]


@pytest.mark.spec("NN-16")
def test_softmax_residuals_and_custom_jvp_flag(jax, jnp, nn):
    x = jnp.asarray(np.array([2.0, -1.0, 0.5, 3.0], np.float32))
    with jax.softmax_custom_jvp(False):
        plain = _residual_lines(jax, nn.softmax, x)
        g_plain = jax.grad(lambda x: nn.softmax(x)[1])(x)
    with jax.softmax_custom_jvp(True):
        custom = _residual_lines(jax, nn.softmax, x)
        g_custom = jax.grad(lambda x: nn.softmax(x)[1])(x)
    assert len(plain) == 3 and plain[0].startswith("f32[4]")
    assert len(custom) == 1 and custom[0].startswith("f32[4]")
    e = np.exp(np.asarray(x, np.float64) - 3.0)
    y = e / e.sum()
    want = y[1] * (np.eye(4)[1] - y)       # d softmax_1 / dx
    np.testing.assert_allclose(np.asarray(g_plain), want, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(np.asarray(g_custom), want, rtol=1e-5, atol=1e-7)


@pytest.mark.spec("NN-17")
def test_one_hot_traced_num_classes(jax, jnp, nn):
    with pytest.raises(jax.errors.ConcretizationTypeError,
                       match="in jax.nn.one_hot argument `num_classes`"):
        jax.jit(nn.one_hot)(3, 5)
    with pytest.raises(TypeError):
        nn.one_hot(jnp.arange(3), 2.5)
    out = jax.jit(nn.one_hot, static_argnums=1)(jnp.asarray([2, 0]), 3)
    np.testing.assert_array_equal(np.asarray(out), np.eye(3)[[2, 0]])


@pytest.mark.spec("NN-18")
def test_standardize_given_variance_ignores_algorithm(jnp, nn):
    x = jnp.asarray(np.array([1.0, 2.0, 6.0], np.float32))
    out = nn.standardize(x, mean=3.0, variance=4.0, algorithm="whatever")
    np.testing.assert_allclose(np.asarray(out), (np.array([1.0, 2.0, 6.0]) - 3) / np.sqrt(4 + 1e-5),
                               rtol=1e-6)
    with pytest.raises(ValueError, match="Expected 'fast' or 'stable'"):
        nn.standardize(x, mean=3.0, algorithm="whatever")
