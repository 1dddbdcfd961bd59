"""lax.reduce and lax.reduce_window: monoids, general computations, window
shapes, derivatives and batching (SPEC WIN-1 .. WIN-7).

Every value is checked against a plain NumPy fold written here."""
import importlib
import itertools
import math

import numpy as np
import pytest

RNG = np.random.RandomState(0)


def _check_grads(jax, *args, **kwargs):
    """The implementation's own ``jax.test_util.check_grads``."""
    importlib.import_module(jax.__name__ + ".test_util").check_grads(*args, **kwargs)


def _same_pads(shape, window, strides, lower=False):
    pads = []
    for n, k, s in zip(shape, window, strides):
        total = max((-(-n // s) - 1) * s + k - n, 0)
        small, big = total // 2, total - total // 2
        pads.append((big, small) if lower else (small, big))
    return pads


def np_reduce_window(x, init, op, dims, strides, padding, base=None, wdil=None):
    """Fold ``op`` over every window, row-major, skipping padding and holes."""
    x = np.asarray(x)
    nd = x.ndim
    base = base or (1,) * nd
    wdil = wdil or (1,) * nd
    sizes = [0 if n == 0 else (n - 1) * b + 1 for n, b in zip(x.shape, base)]
    xd = np.zeros(sizes, x.dtype)
    valid = np.zeros(sizes, bool)
    xd[tuple(slice(None, None, b) for b in base)] = x
    valid[tuple(slice(None, None, b) for b in base)] = True
    for axis, (lo, hi) in enumerate(padding):
        width = [(0, 0)] * nd
        width[axis] = (max(lo, 0), max(hi, 0))
        xd, valid = np.pad(xd, width), np.pad(valid, width)
        n = xd.shape[axis]
        keep = slice(max(-lo, 0), n - max(-hi, 0))
        index = [slice(None)] * nd
        index[axis] = keep
        xd, valid = xd[tuple(index)], valid[tuple(index)]
    window = [(k - 1) * d + 1 for k, d in zip(dims, wdil)]
    out_shape = [max(0, (n - w) // s + 1) for n, w, s in zip(xd.shape, window, strides)]
    out = np.empty(out_shape, x.dtype)
    for pos in np.ndindex(*out_shape):
        acc = init
        for off in itertools.product(*[range(k) for k in dims]):
            idx = tuple(p * s + o * d for p, s, o, d in zip(pos, strides, off, wdil))
            if valid[idx]:
                acc = op(acc, xd[idx])
        out[pos] = acc
    return out


WINDOW_CASES = [
    ((2, 3), (1, 1), ((0, 0), (0, 0)), None, None),
    ((2, 3), (2, 1), ((1, 2), (0, 1)), None, None),
    ((2, 2), (1, 2), ((-1, 1), (2, -1)), None, None),
    ((2, 3), (1, 1), ((1, 0), (0, 1)), (2, 1), None),
    ((2, 3), (2, 1), ((0, 1), (1, 1)), None, (1, 2)),
    ((3, 2), (1, 2), ((1, 1), (0, 0)), (1, 2), (2, 1)),
]


@pytest.mark.spec("WIN-1")
def test_reduce_recognises_monoids(jax, jnp):
    lax = jax.lax
    x = jnp.asarray(RNG.randn(3, 4).astype(np.float32))
    xi = jnp.asarray(RNG.randint(0, 50, (3, 4)).astype(np.int32))
    cases = [
        (x, 0., lax.add, "reduce_sum", np.sum(np.asarray(x), 0)),
        (x, 1., lax.mul, "reduce_prod", np.prod(np.asarray(x), 0)),
        (x, -np.inf, lax.max, "reduce_max", np.max(np.asarray(x), 0)),
        (x, np.inf, lax.min, "reduce_min", np.min(np.asarray(x), 0)),
        (xi, np.int32(-1), lax.bitwise_and, "reduce_and",
         np.bitwise_and.reduce(np.asarray(xi), 0)),
        (xi, np.int32(0), lax.bitwise_or, "reduce_or", np.bitwise_or.reduce(np.asarray(xi), 0)),
        (xi, np.int32(0), lax.bitwise_xor, "reduce_xor",
         np.bitwise_xor.reduce(np.asarray(xi), 0)),
        (xi, np.iinfo(np.int32).min, lax.max, "reduce_max", np.max(np.asarray(xi), 0)),
    ]
    for operand, init, op, name, expected in cases:
        text = str(jax.make_jaxpr(lambda v: lax.reduce(v, init, op, (0,)))(operand))
        assert f"= {name}[" in text and "reduce[" not in text, text
        np.testing.assert_allclose(lax.reduce(operand, init, op, (0,)), expected, rtol=1e-5)
    # A non-identity initial value is a general reduction.
    text = str(jax.make_jaxpr(lambda v: lax.reduce(v, 1., lax.add, (0,)))(x))
    assert "reduce[" in text and "reduce_sum" not in text
    # Only the value is compared: int operand, float init 0.0.
    out = lax.reduce(xi, 0., lax.add, (0,))
    assert out.dtype == jnp.int32
    np.testing.assert_array_equal(out, np.sum(np.asarray(xi), 0))
    # Weak exactly when operand and initial value are weak.
    assert lax.reduce(lax.full((3,), 2.), 0., lax.add, (0,)).weak_type
    assert not lax.reduce(lax.full((3,), 2.), jnp.float32(0), lax.add, (0,)).weak_type
    assert not lax.reduce(x, 0., lax.add, (0,)).weak_type


@pytest.mark.spec("WIN-2")
def test_reduce_general_values_and_jaxpr(jax, jnp):
    lax = jax.lax
    xn = RNG.randn(3, 4).astype(np.float32)
    x = jnp.asarray(xn)
    np.testing.assert_allclose(lax.reduce(x, 2., lax.mul, (1,)), 2 * np.prod(xn, 1),
                               rtol=1e-5)
    np.testing.assert_allclose(lax.reduce(x, 2., lax.mul, (0, 1)), 2 * np.prod(xn),
                               rtol=1e-5)
    assert float(lax.reduce(jnp.arange(5.), 10., lax.sub, (0,))) == 0.0

    # A variadic reduction: the maximum and where it is.
    idx = jnp.broadcast_to(jnp.arange(4, dtype=jnp.int32), (3, 4))

    def pick(a, b):
        take_a = a[0] >= b[0]
        return (lax.select(take_a, a[0], b[0]), lax.select(take_a, a[1], b[1]))
    vals, where = lax.reduce((x, idx), (jnp.float32(-np.inf), jnp.int32(0)), pick, (1,))
    np.testing.assert_allclose(vals, xn.max(1))
    np.testing.assert_array_equal(where, xn.argmax(1))
    assert where.dtype == jnp.int32

    text = str(jax.make_jaxpr(lambda v: lax.reduce(v, 1., lax.add, (0,)))(x))
    assert "b:f32[4] = reduce[" in text
    assert "computation=<function add at 0x" in text
    assert "dimensions=(0,)" in text
    assert "jaxpr={ lambda ; c:f32[] d:f32[]. let e:f32[] = add c d in (e,) }" in text
    assert "] a 1.0:f32[]" in text
    weak = lax.full((3,), 2.)
    assert lax.reduce(weak, 1., lambda a, b: a * b, (0,)).weak_type
    assert not lax.reduce(weak, jnp.float32(1), lambda a, b: a * b, (0,)).weak_type


@pytest.mark.spec("WIN-2")
def test_reduce_x64(jax, jnp, x64):
    x = jnp.asarray(RNG.randn(3, 4))
    out = jax.lax.reduce(x, 1., lambda a, b: a * b, (1,))
    assert out.dtype == jnp.float64
    np.testing.assert_allclose(out, np.prod(np.asarray(x), 1))


@pytest.mark.spec("WIN-2")
def test_reduce_errors(jax, jnp):
    lax = jax.lax
    x = jnp.ones((4, 5))
    with pytest.raises(ValueError, match="same tree structure as init_values"):
        lax.reduce((x, x), 0., lax.add, (0,))
    with pytest.raises(TypeError, match="reduce operand dtypes should match"):
        lax.reduce(x, np.int32(0), lambda a, b: a + b, (0,))
    with pytest.raises(ValueError, match=r"reduce found non-scalar initial value: \[\(2,\)\]"):
        lax.reduce(x, jnp.zeros(2), lambda a, b: a + b, (0,))
    with pytest.raises(IndexError):
        lax.reduce(x, 1., lax.add, (2,))
    for bad in [lambda a, b: None, lambda a, b: (a, b)]:
        with pytest.raises(ValueError):
            lax.reduce(x, 1., bad, (0,))

    @jax.jit
    def closes_over(y):
        return lax.reduce(x, 1., lambda a, b: a * b + y, (0,))
    with pytest.raises(NotImplementedError, match="can't close over Tracers"):
        closes_over(2.)


@pytest.mark.spec("WIN-3")
def test_reduce_derivatives_and_batching(jax, jnp):
    lax = jax.lax
    x = jnp.asarray(RNG.uniform(0.5, 1.5, (3, 4)).astype(np.float32))

    def f(v):
        return lax.reduce(v, 1., lambda a, b: a * b, (0,))
    _check_grads(jax, f, (x,), order=2, modes=["fwd", "rev"], atol=2e-2, rtol=2e-2)
    # d prod / d x_i = prod / x_i
    grad = jax.grad(lambda v: lax.reduce(v, 1., lambda a, b: a * b, (0, 1)))(x)
    xn = np.asarray(x, np.float64)
    np.testing.assert_allclose(grad, np.prod(xn) / xn, rtol=1e-4)

    batched = jax.vmap(f, in_axes=1)(x)
    np.testing.assert_allclose(batched, np.stack([f(x[:, i]) for i in range(4)]),
                               rtol=1e-6)
    with pytest.raises(NotImplementedError):
        jax.vmap(lambda i: lax.reduce(x, i, lambda a, b: a * b, (0,)))(jnp.ones(3))
    with pytest.raises(NotImplementedError):
        jax.jvp(lambda i: lax.reduce(x, i, lambda a, b: a * b, (0,)), (1.,), (1.,))


@pytest.mark.spec("WIN-4")
@pytest.mark.parametrize("case", range(len(WINDOW_CASES)))
def test_reduce_window_monoids_match_numpy(jax, jnp, case):
    lax = jax.lax
    dims, strides, padding, base, wdil = WINDOW_CASES[case]
    xn = RNG.randn(5, 6).astype(np.float32)
    x = jnp.asarray(xn)
    for init, op, npop, name in [(0., lax.add, np.add, "reduce_window_sum"),
                                 (-np.inf, lax.max, np.maximum, "reduce_window_max"),
                                 (np.inf, lax.min, np.minimum, "reduce_window_min")]:
        out = lax.reduce_window(x, init, op, dims, strides, padding, base, wdil)
        ident = 0. if op is lax.add else init
        expected = np_reduce_window(xn, np.float32(ident), npop, dims, strides, padding,
                                    base, wdil)
        np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
        assert out.dtype == jnp.float32 and not out.weak_type
        assert out.shape == lax.reduce_window_shape_tuple(
            x.shape, dims, strides, padding, base, wdil)
        text = str(jax.make_jaxpr(lambda v: lax.reduce_window(
            v, init, op, dims, strides, padding, base, wdil))(x))
        assert f"= {name}[" in text


@pytest.mark.spec("WIN-4")
def test_reduce_window_padding_names_dtypes_and_weak_types(jax, jnp):
    lax = jax.lax
    xn = RNG.randn(5, 7).astype(np.float32)
    x = jnp.asarray(xn)
    for name, lower in [("SAME", False), ("SAME_LOWER", True), ("same", False)]:
        for strides, wdil in [((1, 1), None), ((2, 3), None), ((1, 2), (2, 1))]:
            window = (3, 2) if wdil is None else tuple((k - 1) * d + 1
                                                       for k, d in zip((3, 2), wdil))
            pads = _same_pads(x.shape, window, strides, lower)
            out = lax.reduce_window(x, -np.inf, lax.max, (3, 2), strides, name,
                                    window_dilation=wdil)
            expected = np_reduce_window(xn, np.float32(-np.inf), np.maximum, (3, 2),
                                        strides, pads, None, wdil)
            np.testing.assert_allclose(out, expected)
    assert lax.reduce_window(x, 0., lax.add, (2, 2)).shape == (4, 6)   # VALID, stride 1
    xi = jnp.asarray(RNG.randint(-9, 9, (4, 5)).astype(np.int32))
    out = lax.reduce_window(xi, 0, lax.add, (2, 2), (1, 1), "SAME")
    assert out.dtype == jnp.int32
    np.testing.assert_array_equal(out, np_reduce_window(
        np.asarray(xi), 0, np.add, (2, 2), (1, 1), _same_pads((4, 5), (2, 2), (1, 1))))
    out = lax.reduce_window(xi, np.iinfo(np.int32).min, lax.max, (2, 2), (1, 1), "VALID")
    np.testing.assert_array_equal(out, np_reduce_window(
        np.asarray(xi), np.iinfo(np.int32).min, np.maximum, (2, 2), (1, 1), [(0, 0)] * 2))
    b = lax.reduce_window(xi > 0, False, lax.max, (2, 2), (1, 1), "VALID")
    assert b.dtype == jnp.bool_
    np.testing.assert_array_equal(b, np.asarray(out) > 0)
    weak = lax.full((4,), 1.)
    assert lax.reduce_window(weak, 0., lax.add, (2,), (1,), "VALID").weak_type
    assert lax.reduce_window_shape_tuple((4, 5), (2, 2), (1, 1), ((0, 0), (0, 0)),
                                         (2, 1), (1, 2)) == (6, 3)


@pytest.mark.spec("WIN-4")
def test_reduce_window_errors(jax, jnp):
    lax = jax.lax
    x = jnp.ones((4, 5))
    with pytest.raises(TypeError, match="wrong number of window_dimensions"):
        lax.reduce_window(x, 0., lax.add, (2,), (1,), "VALID")
    with pytest.raises(TypeError, match="inconsistent window_strides"):
        lax.reduce_window(x, 0., lax.add, (2, 2), (1,), "VALID")
    with pytest.raises(TypeError, match="window_dimensions must have every element be "
                                        "strictly positive"):
        lax.reduce_window(x, 0., lax.add, (0, 2), (1, 1), "VALID")
    with pytest.raises(TypeError, match="window_strides must have every element be "
                                        "strictly positive"):
        lax.reduce_window(x, 0., lax.add, (2, 2), (0, 1), "VALID")
    with pytest.raises(TypeError, match=r"All dilations must be positive, got \(0, 1\)"):
        lax.reduce_window(x, 0., lax.add, (2, 2), (1, 1), "VALID", base_dilation=(0, 1))
    with pytest.raises(RuntimeError, match="Unrecognized padding type"):
        lax.reduce_window(x, 0., lax.add, (2, 2), (1, 1), "FOO")
    with pytest.raises(TypeError):
        lax.reduce_window(x, 0., lax.add, (2, 2), (1, 1), (1, 1))
    with pytest.raises(ValueError):
        lax.reduce_window(x, 0., lax.add, (2, 2), (1, 1), ((0, 0),))
    with pytest.raises(ValueError):
        lax.reduce_window(x, 0., lax.add, (2, 2), None, "SAME")
    with pytest.raises(TypeError, match="operand to reduce_window_sum must have a number "
                                        "dtype, got bool"):
        lax.reduce_window(x > 0, False, lax.add, (2, 2), (1, 1), "VALID")


@pytest.mark.spec("WIN-5")
@pytest.mark.parametrize("case", range(len(WINDOW_CASES)))
def test_reduce_window_general_matches_numpy(jax, jnp, case):
    lax = jax.lax
    dims, strides, padding, base, wdil = WINDOW_CASES[case]
    xn = RNG.uniform(0.5, 1.5, (5, 6)).astype(np.float32)
    out = lax.reduce_window(jnp.asarray(xn), 2., lax.mul, dims, strides, padding, base,
                            wdil)
    expected = np_reduce_window(xn, np.float32(2), np.multiply, dims, strides, padding,
                                base, wdil)
    np.testing.assert_allclose(out, expected, rtol=1e-5)
    assert out.dtype == jnp.float32 and not out.weak_type


@pytest.mark.spec("WIN-5")
def test_reduce_window_general_semantics_jaxpr_and_errors(jax, jnp):
    lax = jax.lax
    out = lax.reduce_window(jnp.arange(5.), 10., lax.sub, (2,), (1,), ((1, 1),))
    np.testing.assert_array_equal(out, [10., 9., 7., 5., 3., 6.])
    out = lax.reduce_window(jnp.arange(3.), 10., lax.sub, (2,), (1,), "VALID",
                            base_dilation=(2,))
    np.testing.assert_array_equal(out, [10., 9., 9., 8.])
    assert not lax.reduce_window(lax.full((4,), 1.), 1., lax.mul, (2,), (1,),
                                 "VALID").weak_type

    xn = RNG.randn(4, 5).astype(np.float32)
    yn = RNG.randn(4, 5).astype(np.float32)

    def both(a, b):
        return (lax.max(a[0], b[0]), a[1] + b[1])
    m, s = lax.reduce_window((jnp.asarray(xn), jnp.asarray(yn)), (-np.inf, 0.), both,
                             (2, 2), (1, 2), "VALID")
    np.testing.assert_allclose(m, np_reduce_window(xn, np.float32(-np.inf), np.maximum,
                                                   (2, 2), (1, 2), [(0, 0)] * 2))
    np.testing.assert_allclose(s, np_reduce_window(yn, np.float32(0), np.add, (2, 2),
                                                   (1, 2), [(0, 0)] * 2), rtol=1e-5)

    x = jnp.ones((4, 5))
    text = str(jax.make_jaxpr(lambda v: lax.reduce_window(
        v, 1., lax.mul, (2, 2), (1, 1), "VALID"))(x))
    assert text == (
        "{ lambda ; a:f32[4,5]. let\n"
        "    b:f32[3,4] = reduce_window[\n"
        "      base_dilation=(1, 1)\n"
        "      consts=()\n"
        "      jaxpr={ lambda ; c:f32[] d:f32[]. let e:f32[] = mul c d in (e,) }\n"
        "      padding=((0, 0), (0, 0))\n"
        "      window_dilation=(1, 1)\n"
        "      window_dimensions=(2, 2)\n"
        "      window_strides=(1, 1)\n"
        "    ] a 1.0:f32[]\n"
        "  in (b,) }")
    with pytest.raises(TypeError, match="reduce_window got inconsistent dtypes"):
        lax.reduce_window(x, np.int32(1), lambda a, b: a * b, (2, 2), (1, 1), "VALID")
    with pytest.raises(TypeError, match="reduce_window expected init_values to be "
                                        "scalars"):
        lax.reduce_window(x, jnp.ones(2), lambda a, b: a * b, (2, 2), (1, 1), "VALID")
    with pytest.raises(ValueError, match="reduce_window must have at least one operand"):
        lax.reduce_window((), (), lax.add, (2, 2), (1, 1), "VALID")
    with pytest.raises(ValueError, match="same tree structure as init_values"):
        lax.reduce_window((x, x), 0., lax.add, (2, 2), (1, 1), "VALID")


@pytest.mark.spec("WIN-6")
@pytest.mark.parametrize("case", range(len(WINDOW_CASES)))
def test_reduce_window_gradients(jax, jnp, case):
    lax = jax.lax
    dims, strides, padding, base, wdil = WINDOW_CASES[case]
    # Distinct, well separated values: no ties for max/min.
    xn = (RNG.permutation(30).reshape(5, 6) * 0.37).astype(np.float32)
    x = jnp.asarray(xn)
    for init, op in [(0., lax.add), (-np.inf, lax.max), (np.inf, lax.min)]:
        def f(v, init=init, op=op):
            return lax.reduce_window(v, init, op, dims, strides, padding, base, wdil)
        # JAX has no reverse mode for max/min with window dilation, and its
        # CPU lowering fails on negative padding; refjax's is tested in
        # tests/test_windowed_reductions.py.
        cropped = any(lo < 0 or hi < 0 for lo, hi in padding)
        modes = (["fwd", "rev"] if op is lax.add or (wdil is None and not cropped)
                 else ["fwd"])
        _check_grads(jax, f, (x,), order=2, modes=modes, eps=1e-2, atol=2e-2, rtol=2e-2)


@pytest.mark.spec("WIN-6")
def test_reduce_window_chooser_rules_ties_and_jaxprs(jax, jnp):
    lax = jax.lax
    x = jnp.array([1., 1., 3., 2., 2., 0.])
    # Ties: the first of equal maxima takes the whole cotangent.
    g = jax.grad(lambda v: lax.reduce_window(v, -np.inf, lax.max, (2,), (1,),
                                             "VALID").sum())(x)
    np.testing.assert_array_equal(g, [1., 0., 2., 1., 1., 0.])
    g = jax.grad(lambda v: lax.reduce_window(v, np.inf, lax.min, (3,), (2,),
                                             ((1, 1),)).sum())(
        jnp.array([3., 1., 1., 3., 2., 0.]))
    np.testing.assert_array_equal(g, [0., 2., 0., 0., 0., 1.])
    t = jnp.arange(6.) + 1
    _, tan = jax.jvp(lambda v: lax.reduce_window(v, -np.inf, lax.max, (2,), (1,),
                                                 "VALID"), (x,), (t,))
    np.testing.assert_array_equal(tan, [1., 3., 3., 4., 5.])

    xm = jnp.ones((4, 5))
    text = str(jax.make_jaxpr(jax.grad(lambda v: lax.reduce_window(
        v, -np.inf, lax.max, (2, 2), (1, 1), "VALID").sum()))(xm))
    assert "select_and_scatter_add[" in text and "select_prim=ge" in text
    text = str(jax.make_jaxpr(lambda v: jax.jvp(lambda w: lax.reduce_window(
        w, np.inf, lax.min, (2, 2), (1, 1), "VALID"), (v,), (v,)))(xm))
    assert "select_and_gather_add[" in text and "select_prim=le" in text
    text = str(jax.make_jaxpr(jax.grad(lambda v: lax.reduce_window(
        v, 0., lax.add, (2, 2), (1, 1), "SAME").sum()))(xm))
    assert "padding_config=((np.int64(1), np.int64(0), 0), (np.int64(1), np.int64(0), 0))" \
        in text
    # Reverse mode of a sum is the window count at each element.
    g = jax.grad(lambda v: lax.reduce_window(v, 0., lax.add, (2, 2), (1, 1),
                                             "VALID").sum())(xm)
    np.testing.assert_array_equal(g, np.outer([1, 2, 2, 1], [1, 2, 2, 2, 1]))


@pytest.mark.spec("WIN-6")
def test_reduce_window_general_jvp_only(jax, jnp):
    lax = jax.lax
    xn = RNG.uniform(0.5, 1.5, (4, 5)).astype(np.float32)
    x = jnp.asarray(xn)

    def f(v):
        return lax.reduce_window(v, 1., lax.mul, (2, 2), (1, 2), ((1, 0), (0, 1)))
    _check_grads(jax, f, (x,), order=2, modes=["fwd"], atol=2e-2, rtol=2e-2)
    with pytest.raises(ValueError):
        jax.grad(lambda v: f(v).sum())(x)
    with pytest.raises(TypeError, match="non-zero init_value_tangent"):
        jax.jvp(lambda i: lax.reduce_window(x, i, lambda a, b: a * b, (2, 2), (1, 1),
                                            "VALID"), (1.,), (1.,))


@pytest.mark.spec("WIN-7")
def test_reduce_window_vmap_matches_loop(jax, jnp):
    lax = jax.lax
    xn = (RNG.permutation(60).reshape(3, 4, 5) * 0.1).astype(np.float32)
    x = jnp.asarray(xn)
    fns = [
        lambda v: lax.reduce_window(v, 0., lax.add, (2, 2), (1, 2), "SAME"),
        lambda v: lax.reduce_window(v, -np.inf, lax.max, (2, 3), (1, 1), ((1, 0), (0, 1)),
                                    (2, 1)),
        lambda v: lax.reduce_window(v, np.inf, lax.min, (2, 2), (2, 1), "VALID"),
        lambda v: lax.reduce_window(v, 1., lax.mul, (2, 2), (1, 1), "SAME"),
        jax.grad(lambda v: (lax.reduce_window(v, -np.inf, lax.max, (2, 2), (1, 1),
                                              "SAME") ** 2).sum()),
        lambda v: jax.jvp(lambda w: lax.reduce_window(w, np.inf, lax.min, (2, 2), (1, 1),
                                                      "VALID"), (v,), (v * 2,))[1],
    ]
    for f in fns:
        for axis in range(3):
            batched = jax.vmap(f, in_axes=axis)(x)
            loop = np.stack([np.asarray(f(jnp.take(x, i, axis=axis)))
                             for i in range(x.shape[axis])])
            np.testing.assert_allclose(batched, loop, rtol=1e-5, atol=1e-6)
    with pytest.raises(NotImplementedError):
        jax.vmap(lambda i: lax.reduce_window(x[0], i, lambda a, b: a * b, (2, 2),
                                             (1, 1), "VALID"))(jnp.ones(3))


@pytest.mark.spec("WIN-7")
def test_reduce_window_grad_under_vmap_and_jit(jax, jnp):
    lax = jax.lax
    xn = (RNG.permutation(20).reshape(4, 5) * 0.3).astype(np.float32)
    x = jnp.asarray(xn)

    def loss(v):
        return lax.reduce_window(v, -np.inf, lax.max, (2,), (1,), "SAME").sum()
    g = jax.jit(jax.vmap(jax.grad(loss), in_axes=1, out_axes=1))(x)
    for j in range(5):
        col = xn[:, j]
        padded = np.append(col, -np.inf)
        expected = np.zeros(4, np.float32)
        for i in range(4):
            expected[i if padded[i] >= padded[i + 1] else i + 1] += 1
        np.testing.assert_array_equal(g[:, j], expected)
    assert math.isfinite(float(jax.jit(loss)(x[0])))


@pytest.mark.spec("WIN-4")
def test_reduce_window_x64_and_jit(jax, jnp, x64):
    lax = jax.lax
    xn = RNG.randn(4, 5)
    x = jnp.asarray(xn)
    out = jax.jit(lambda v: lax.reduce_window(v, 0., lax.add, (2, 2), (1, 1), "SAME"))(x)
    assert out.dtype == jnp.float64
    np.testing.assert_allclose(out, np_reduce_window(xn, 0., np.add, (2, 2), (1, 1),
                                                     _same_pads((4, 5), (2, 2), (1, 1))))
    xi = jnp.arange(20, dtype=jnp.int64).reshape(4, 5)
    out = jax.jit(lambda v: lax.reduce_window(v, 1, lax.mul, (2, 2), (1, 1), "VALID"))(xi)
    assert out.dtype == jnp.int64
    np.testing.assert_array_equal(out, np_reduce_window(np.asarray(xi), 1, np.multiply,
                                                        (2, 2), (1, 1), [(0, 0)] * 2))
    out = jax.jit(lambda v: lax.reduce(v, 1, lax.mul, (1,)))(xi + 1)
    assert out.dtype == jnp.int64
    np.testing.assert_array_equal(out, np.prod(np.asarray(xi) + 1, 1))
