"""``lax.scan``, ``fori_loop``, ``map`` and ``associative_scan`` (SPEC CF-50 .. CF-67).

Values are checked against plain Python loops, eagerly, under ``jit`` and
``vmap``; derivatives with ``jax.test_util.check_grads``; the printed
jaxprs of a simple scan and a static ``fori_loop`` against JAX 0.10.2's
text; errors against JAX's classes and messages.
"""
import importlib

import numpy as np
import pytest


@pytest.fixture
def check_grads(jax):
    """The implementation's ``jax.test_util.check_grads``."""
    return importlib.import_module(jax.__name__ + ".test_util").check_grads


def _loop(f, c, xs, reverse=False):
    """The reference: ``scan`` as a Python loop over NumPy rows."""
    ys = [None] * len(xs)
    for i in (reversed(range(len(xs))) if reverse else range(len(xs))):
        c, ys[i] = f(c, xs[i])
    return c, np.stack(ys)


def _body(np_like):
    return lambda c, x: (c * np_like.sin(x) + x, c * x)


XS = np.arange(1.0, 4.0, dtype=np.float32)


@pytest.mark.spec("CF-50")
@pytest.mark.parametrize("reverse", [False, True])
def test_scan_matches_python_loop(jax, jnp, reverse):
    expect = _loop(_body(np), np.float32(0.5), XS, reverse)
    run = lambda c, xs: jax.lax.scan(_body(jnp), c, xs, reverse=reverse)
    for fun in (run, jax.jit(run)):
        c, ys = fun(np.float32(0.5), XS)
        np.testing.assert_allclose(c, expect[0], rtol=1e-6)
        np.testing.assert_allclose(ys, expect[1], rtol=1e-6)


@pytest.mark.spec("CF-50")
def test_scan_unroll_does_not_change_values(jax, jnp):
    run = lambda u: jax.lax.scan(_body(jnp), np.float32(0.5), XS, unroll=u)
    base = run(1)
    for u in (2, True):
        np.testing.assert_allclose(run(u)[1], base[1], rtol=1e-6)


@pytest.mark.spec("CF-52")
def test_scan_pytrees_and_none(jax, jnp):
    xs = {"a": XS, "b": [XS * 2]}
    c, ys = jax.lax.scan(lambda c, x: (c + x["a"] * x["b"][0], {"o": c}), 0.0, xs)
    assert float(c) == 28.0
    np.testing.assert_allclose(ys["o"], [0.0, 2.0, 10.0])
    c, ys = jax.lax.scan(lambda c, x: ((c[0] + x, c[1] * 2), None), (0.0, 1), XS)
    assert ys is None and float(c[0]) == 6.0 and int(c[1]) == 8


@pytest.mark.spec("CF-53")
def test_scan_length_without_xs(jax, jnp):
    c, ys = jax.lax.scan(lambda c, _: (c + 1, c * 2), 0, None, length=4)
    assert int(c) == 4
    np.testing.assert_array_equal(ys, [0, 2, 4, 6])
    c, ys = jax.lax.scan(lambda c, x: (c, x), 0.0, np.zeros((0, 2), np.float32))
    assert ys.shape == (0, 2)


@pytest.mark.spec("CF-53")
@pytest.mark.parametrize("xs, length, message", [
    ((np.ones(3), np.ones(4)), None,
     "scan got values with different leading axis sizes: 3, 4."),
    (np.ones(3), 4,
     r"scan got `length` argument of 4 which disagrees with leading axis sizes \[3\]."),
    (None, None, "scan got no values to scan over and `length` not provided."),
])
def test_scan_length_errors(jax, xs, length, message):
    with pytest.raises(ValueError, match=message):
        jax.lax.scan(lambda c, x: (c, x), 1.0, xs, length=length)


@pytest.mark.spec("CF-54")
def test_scan_carry_type_errors(jax, jnp):
    with pytest.raises(TypeError) as e:
        jax.lax.scan(lambda c, x: (c.astype(jnp.int32), x), 1.0, jnp.ones(3))
    assert str(e.value) == (
        "scan body function carry input and carry output must have equal types, "
        "but they differ:\n\nThe input carry c has type float32[] but the "
        "corresponding output carry component has type int32[], so the dtypes do "
        "not match.\n\nRevise the function so that all output types match the "
        "corresponding input types.")
    with pytest.raises(TypeError, match="so the shapes do not match"):
        jax.lax.scan(lambda c, x: (jnp.ones(3), x), jnp.ones(2), jnp.ones(3))
    with pytest.raises(TypeError, match="carry input and carry output must have the "
                       "same pytree structure, but they differ"):
        jax.lax.scan(lambda c, x: ((c, c), x), 1.0, jnp.ones(3))
    with pytest.raises(TypeError) as e:
        jax.lax.scan(lambda cs, x: ((cs[0],), x), (1.0, 2.0), jnp.ones(3))
    assert ("The input carry cs is a tuple of length 2 but the corresponding component "
            "of the carry output is a tuple of length 1, so the lengths do not match."
            in str(e.value))
    with pytest.raises(TypeError, match=r"scan body output must be a pair, got ~float32\[\]."):
        jax.lax.scan(lambda c, x: c, 1.0, jnp.ones(3))


@pytest.mark.spec("CF-55")
def test_weak_carry_promoted(jax, jnp):
    c, ys = jax.lax.scan(lambda c, x: (c + x, c), 0, XS)
    assert c.dtype == np.float32 and float(c) == 6.0
    np.testing.assert_allclose(ys, [0.0, 1.0, 3.0])


SCAN_TEXT = """\
{ lambda ; a:f32[] b:f32[3]. let
    c:f32[] d:f32[3] = scan[
      jaxpr={ lambda ; e:f32[] f:f32[]. let
          g:f32[] = convert_element_type[new_dtype=float32 weak_type=False] e
          h:f32[] = add g f
          i:f32[] = convert_element_type[new_dtype=float32 weak_type=False] e
          j:f32[] = mul i f
        in (h, j) }
      length=3
      num_carry=1
      num_consts=0
      reverse=True
      unroll=2
    ] a b
  in (c, d) }"""

FORI_TEXT = """\
{ lambda ; a:f32[]. let
    _:i32[] b:f32[] = scan[
      jaxpr={ lambda ; c:i32[] d:f32[]. let
          e:i32[] = add c 1:i32[]
          f:f32[] = convert_element_type[new_dtype=float32 weak_type=True] c
          g:f32[] = add d f
        in (e, g) }
      length=3
      num_carry=2
      num_consts=0
      reverse=False
      unroll=1
    ] 0:i32[] a
  in (b,) }"""

MAP_TEXT = """\
{ lambda ; a:f32[3]. let
    b:f32[3] = scan[
      jaxpr={ lambda ; c:f32[]. let d:f32[] = sin c in (d,) }
      length=3
      num_carry=0
      num_consts=0
      reverse=False
      unroll=1
    ] a
  in (b,) }"""


@pytest.mark.spec("CF-51")
def test_scan_jaxpr_text(jax, jnp):
    f = lambda c, x: (c + x, c * x)
    text = jax.make_jaxpr(lambda c, xs: jax.lax.scan(f, c, xs, reverse=True, unroll=2))(
        1.0, jnp.ones(3))
    assert str(text) == SCAN_TEXT
    text = jax.make_jaxpr(lambda x: jax.lax.fori_loop(0, 3, lambda i, c: c + i, x))(1.0)
    assert str(text) == FORI_TEXT
    assert str(jax.make_jaxpr(lambda xs: jax.lax.map(jnp.sin, xs))(jnp.ones(3))) == MAP_TEXT


@pytest.mark.spec("CF-56")
def test_forwarded_carry_and_xs(jax, jnp):
    c, ys = jax.lax.scan(lambda c, x: ((c[0], c[1] + x), x), (1.0, 0.0), XS)
    assert float(c[0]) == 1.0 and float(c[1]) == 6.0
    np.testing.assert_array_equal(ys, XS)
    text = str(jax.make_jaxpr(
        lambda c, xs: jax.lax.scan(lambda c, x: ((c[0], c[1] + x), x), c, xs))((1.0, 0.0), XS))
    assert "num_carry=1" in text and "num_consts=1" in text


@pytest.mark.spec("CF-60")
def test_scan_jvp_and_grad(jax, jnp, check_grads):
    run = lambda c, xs: jax.lax.scan(_body(jnp), c, xs)
    check_grads(run, (np.float32(0.5), XS), order=2, modes=["fwd", "rev"])
    w = np.array([[0.5, 0.2], [0.1, 0.3]], np.float32)
    xs = np.ones((3, 2), np.float32)

    def rnn(w, xs):
        return jax.lax.scan(lambda c, x: (jnp.tanh(w @ c + x), (c * w[0]).sum()),
                            jnp.ones(2), xs, reverse=True)

    check_grads(rnn, (w, xs), order=2, modes=["fwd", "rev"])


@pytest.mark.spec("CF-61")
def test_grad_through_carry_started_known(jax, jnp, check_grads):
    # The carry's tangent is zero at first and non-zero after one step.
    f = lambda w: jax.lax.scan(lambda c, x: ((c[0] + 1, c[1] * w + x), c[1]),
                               (0, 1.0), XS)
    g = jax.grad(lambda w: f(w)[0][1] + f(w)[1].sum())(np.float32(2.0))
    assert float(g) == pytest.approx(24.0)
    check_grads(lambda w: f(w)[0][1], (np.float32(2.0),), order=2,
                              modes=["rev"])


@pytest.mark.spec("CF-62")
def test_nested_scan_grad_under_jit_and_vmap(jax, jnp, check_grads):
    def nested(w):
        inner = lambda c, x: jax.lax.scan(lambda c2, y: (c2 * w + y, None), c, x)[0]
        return jax.lax.scan(lambda c, x: (inner(c, x), c), 1.0, jnp.ones((2, 3)))[0]

    g = jax.grad(nested)
    ws = np.array([0.7, 0.3], np.float32)
    expect = [float(g(w)) for w in ws]
    np.testing.assert_allclose(jax.jit(jax.vmap(g))(ws), expect, rtol=1e-5)
    check_grads(nested, (np.float32(0.7),), order=1, modes=["fwd", "rev"])


@pytest.mark.spec("CF-63")
def test_scan_vmap_any_axis(jax, jnp):
    run = lambda c, xs: jax.lax.scan(_body(jnp), c, xs)
    cs = np.array([0.5, 1.0], np.float32)
    xss = np.stack([XS, XS * 2])
    expect = [_loop(_body(np), c, x) for c, x in zip(cs, xss)]
    c, ys = jax.vmap(run)(cs, xss)
    np.testing.assert_allclose(c, [e[0] for e in expect], rtol=1e-6)
    np.testing.assert_allclose(ys, [e[1] for e in expect], rtol=1e-6)
    # Unbatched carry that becomes batched; xs batched on axis 1.
    c, ys = jax.vmap(run, (None, 1))(np.float32(0.5), xss.T)
    np.testing.assert_allclose(ys, [_loop(_body(np), np.float32(0.5), x)[1] for x in xss],
                               rtol=1e-6)


@pytest.mark.spec("CF-65")
def test_fori_loop(jax, jnp):
    body = lambda i, c: c * 2.0 + i
    assert float(jax.lax.fori_loop(0, 5, body, 1.0)) == 58.0
    assert float(jax.jit(lambda n: jax.lax.fori_loop(0, n, body, 1.0))(5)) == 58.0
    g = jax.grad(lambda x: jax.lax.fori_loop(0, 5, lambda i, c: c * x + i, 1.0))
    assert float(g(np.float32(1.5))) == pytest.approx(41.0625)
    assert float(jax.lax.fori_loop(3, 1, body, 1.0)) == 1.0
    with pytest.raises(TypeError, match="lower and upper arguments to fori_loop must "
                       "have equal types, got int32 and int16"):
        jax.lax.fori_loop(np.int32(0), np.int16(3), body, 1.0)


@pytest.mark.spec("CF-66")
@pytest.mark.parametrize("batch_size", [None, 2, 5, 0])
def test_map(jax, jnp, batch_size):
    xs = np.arange(5.0, dtype=np.float32)
    out = jax.lax.map(lambda x: {"sq": x ** 2}, xs, batch_size=batch_size)
    np.testing.assert_allclose(out["sq"], xs ** 2)


@pytest.mark.spec("CF-67")
@pytest.mark.parametrize("n", [1, 6, 7])
def test_associative_scan(jax, jnp, n):
    xs = np.arange(1.0, n + 1, dtype=np.float32)
    np.testing.assert_allclose(jax.lax.associative_scan(jnp.add, xs), np.cumsum(xs))
    np.testing.assert_allclose(jax.lax.associative_scan(jnp.multiply, xs, reverse=True),
                               np.cumprod(xs[::-1])[::-1], rtol=1e-6)


@pytest.mark.spec("CF-67")
def test_associative_scan_axis_and_pytree(jax, jnp):
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    np.testing.assert_allclose(jax.lax.associative_scan(jnp.add, x, axis=1),
                               np.cumsum(x, axis=1))
    out = jax.lax.associative_scan(lambda a, b: (a[0] + b[0], jnp.maximum(a[1], b[1])),
                                   (x, -x), axis=-2)
    np.testing.assert_allclose(out[0], np.cumsum(x, axis=0))
    np.testing.assert_allclose(out[1], np.maximum.accumulate(-x, axis=0))


@pytest.mark.spec("CF-50")
def test_scan_argument_errors(jax, jnp):
    with pytest.raises(TypeError, match="lax.scan: f argument should be a callable."):
        jax.lax.scan(1, 0.0, XS)
    with pytest.raises(ValueError, match="`unroll` must be a `bool` or a non-negative `int`."):
        jax.lax.scan(lambda c, x: (c, x), 0.0, XS, unroll=-1)


@pytest.mark.spec("CF-65")
def test_fori_loop_unroll_needs_static_bounds(jax, jnp):
    with pytest.raises(ValueError, match="Can only use `unroll` in `fori_loop` if the "
                       "loop bounds are statically known."):
        jax.jit(lambda n: jax.lax.fori_loop(0, n, lambda i, c: c, 1.0, unroll=2))(3)


@pytest.mark.spec("CF-67")
def test_associative_scan_errors(jax, jnp):
    with pytest.raises(TypeError, match="lax.associative_scan: fn argument should be callable."):
        jax.lax.associative_scan(1, XS)
    with pytest.raises(ValueError, match="Array inputs to associative_scan must have the "
                       "same first dimension."):
        jax.lax.associative_scan(lambda a, b: a, (XS, XS[:2]))


@pytest.mark.spec("CF-57")
def test_scan_under_disable_jit(jax, jnp):
    with jax.disable_jit():
        c, ys = jax.lax.scan(lambda c, x: (c + x, {"p": c}), 0.0, XS, reverse=True)
        assert float(c) == 6.0
        np.testing.assert_allclose(ys["p"], [5.0, 3.0, 0.0])
        with pytest.raises(ValueError, match=r"zero-length scan is not supported in "
                           r"disable_jit\(\) mode because the output type is unknown."):
            jax.lax.scan(lambda c, x: (c + x, c), 0.0, XS[:0])
        assert float(jax.lax.fori_loop(2, 2, lambda i, c: c + 1, 1.0)) == 1.0
