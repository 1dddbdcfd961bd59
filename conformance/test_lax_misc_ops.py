"""Conformance: the smaller ``jax.lax`` operations (SPEC LXM-1..10,
LXM-17..22).

References are NumPy (broadcasting, Python big-int products for ``mulhi``,
``np.sort``/``argsort`` for the top-k functions, IEEE total order built from
the bit patterns) or the defining identities.
"""
import importlib
import warnings

import numpy as np
import pytest


def _lax(jax):
    return importlib.import_module(jax.__name__ + ".lax")


def _check_grads(jax):
    return importlib.import_module(jax.__name__ + ".test_util").check_grads


# ---------------------------------------------------------------------------
# LXM-1, LXM-2: shapes, dtypes, empty
# ---------------------------------------------------------------------------

@pytest.mark.spec("LXM-1")
def test_broadcast_shapes(jax):
    lax = _lax(jax)
    for shapes in [((2, 1), (3,)), ((3, 1), (1, 4), (5, 1, 1)), ((), (2,)), ((0,), (1,))]:
        assert lax.broadcast_shapes(*shapes) == np.broadcast_shapes(*shapes)
    assert lax.broadcast_shapes((2, 3)) == (2, 3)
    with pytest.raises(ValueError, match="Incompatible shapes for broadcasting"):
        lax.broadcast_shapes((2,), (3,))


@pytest.mark.spec("LXM-1")
def test_broadcast_like(jax, jnp):
    lax = _lax(jax)
    out = lax.broadcast_like(jnp.arange(3), jnp.zeros((2, 3)))
    np.testing.assert_array_equal(out, np.broadcast_to(np.arange(3), (2, 3)))
    assert out.dtype == np.int32
    weak = lax.broadcast_like(1.0, jnp.zeros(2))
    assert weak.dtype == np.float32 and weak.weak_type
    for bad in [(jnp.zeros(3), jnp.zeros(2)), (jnp.zeros(3), jnp.zeros((2, 1)))]:
        with pytest.raises(ValueError, match="Incompatible types for broadcasting"):
            lax.broadcast_like(*bad)
    text = str(jax.make_jaxpr(lax.broadcast_like)(jnp.zeros(3), jnp.zeros((2, 3))))
    assert "broadcast_in_dim[broadcast_dimensions=(1,)" in text


@pytest.mark.spec("LXM-1")
def test_dtype(jax, jnp):
    lax = _lax(jax)
    assert lax.dtype(1.0) == np.float32 and lax.dtype(1) == np.int32
    assert lax.dtype(True) == np.bool_ and lax.dtype(1j) == np.complex64
    assert lax.dtype(float) == np.float32 and lax.dtype(jnp.zeros(2, jnp.int16)) == np.int16
    assert lax.dtype("bfloat16") == jnp.bfloat16
    with pytest.warns(UserWarning, match="float64"):
        assert lax.dtype(np.float64) == np.float32
    with pytest.raises(ValueError, match="Invalid argument to dtype"):
        lax.dtype(None)
    with pytest.raises(TypeError):
        lax.dtype("foo")


@pytest.mark.spec("LXM-1")
def test_dtype_x64(jax, x64):
    lax = _lax(jax)
    assert lax.dtype(1.0) == np.float64 and lax.dtype(np.int64) == np.int64


@pytest.mark.spec("LXM-1")
def test_shape_as_value(jax):
    lax = _lax(jax)
    v = lax.shape_as_value((2, 3))
    np.testing.assert_array_equal(v, [2, 3])
    assert v.dtype == np.int32
    empty = lax.shape_as_value(())
    assert empty.shape == (0,) and empty.dtype == np.int32


@pytest.mark.spec("LXM-2")
def test_empty(jax, jnp):
    lax = _lax(jax)
    e = lax.empty((2, 3), jnp.float32)
    assert e.shape == (2, 3) and e.dtype == np.float32
    assert lax.empty(3, "int32").shape == (3,)
    text = str(jax.make_jaxpr(lambda: lax.empty((2, 3), jnp.float32))())
    assert "dtype=<class 'jax.numpy.float32'>" in text
    assert "shape=(2, 3)" in text and "out_sharding=None" in text


# ---------------------------------------------------------------------------
# LXM-3..5: unstack, optimization_barrier, mulhi
# ---------------------------------------------------------------------------

@pytest.mark.spec("LXM-3")
def test_unstack(jax, jnp):
    lax = _lax(jax)
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    for axis in (0, 1, -1):
        parts = lax.unstack(jnp.asarray(x), axis)
        assert isinstance(parts, tuple)
        want = [np.take(x, i, axis=axis) for i in range(x.shape[axis])]
        assert len(parts) == len(want)
        for p, w in zip(parts, want):
            np.testing.assert_array_equal(p, w)
    assert lax.unstack(jnp.zeros((0, 2))) == ()
    with pytest.raises(ValueError, match="out of bounds"):
        lax.unstack(jnp.float32(1.0), 1)
    text = str(jax.make_jaxpr(lambda x: lax.unstack(x, 1))(x))
    assert "b:f32[2] c:f32[2] d:f32[2] = unstack[axis=1] a" in text


@pytest.mark.spec("LXM-3")
def test_unstack_grad_vmap(jax, jnp):
    lax = _lax(jax)
    x = jnp.asarray(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    g = jax.grad(lambda x: lax.unstack(x, 1)[2].sum() * 3)(x)
    np.testing.assert_array_equal(g, [[0, 0, 3], [0, 0, 3]])
    _check_grads(jax)(lambda x: lax.unstack(x)[1] ** 2, (x,), order=2, atol=1e-2, rtol=1e-2)
    out = jax.vmap(lambda r: lax.unstack(r))(x)
    for i, o in enumerate(out):
        np.testing.assert_array_equal(o, np.asarray(x)[:, i])


@pytest.mark.spec("LXM-4")
def test_optimization_barrier(jax, jnp):
    lax = _lax(jax)
    tree = {"a": jnp.arange(3.0), "b": (1.0, jnp.int32(2))}
    out = lax.optimization_barrier(tree)
    assert jax.tree_util.tree_structure(out) == jax.tree_util.tree_structure(tree)
    np.testing.assert_array_equal(out["a"], [0, 1, 2])
    assert float(out["b"][0]) == 1.0
    text = str(jax.make_jaxpr(lambda x: lax.optimization_barrier((x, 2 * x)))(jnp.ones(2)))
    assert "c:f32[2] d:f32[2] = optimization_barrier a b" in text
    assert float(jax.grad(lambda x: lax.optimization_barrier(x) * x)(3.0)) == 6.0
    np.testing.assert_array_equal(jax.vmap(lambda x: lax.optimization_barrier(x) + 1)(
        jnp.arange(3.0)), [1, 2, 3])
    _check_grads(jax)(lambda x: lax.optimization_barrier(jnp.sin(x)), (jnp.arange(3.0),),
                      order=2, atol=1e-2, rtol=1e-2)


@pytest.mark.spec("LXM-5")
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.uint32])
def test_mulhi(jax, jnp, dtype):
    lax = _lax(jax)
    info = np.iinfo(dtype)
    rng = np.random.default_rng(0)
    x = rng.integers(info.min, info.max, 50, endpoint=True).astype(dtype)
    y = rng.integers(info.min, info.max, 50, endpoint=True).astype(dtype)
    x[:3] = [info.max, info.min, 0]
    y[:3] = [info.max, info.max, info.min]
    bits = info.bits
    want = [(int(a) * int(b)) >> bits for a, b in zip(x, y)]
    want = np.array([w - (1 << bits) if info.min < 0 and w >= 1 << (bits - 1) else
                     w % (1 << bits) for w in want]).astype(dtype)
    out = lax.mulhi(jnp.asarray(x), jnp.asarray(y))
    assert out.dtype == dtype
    np.testing.assert_array_equal(out, want)


@pytest.mark.spec("LXM-5")
@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_mulhi_64(jax, jnp, x64, dtype):
    lax = _lax(jax)
    info = np.iinfo(dtype)
    vals = [info.max, info.min, 0, 1, 12345678901234, info.max // 3]
    x = np.array(vals, dtype)
    y = np.array(vals[::-1], dtype)
    want = np.array([((int(a) * int(b)) >> 64) % (1 << 64) for a, b in zip(x, y)],
                    np.uint64).view(dtype)
    np.testing.assert_array_equal(lax.mulhi(jnp.asarray(x), jnp.asarray(y)), want)


@pytest.mark.spec("LXM-5")
def test_mulhi_jaxpr_and_errors(jax, jnp):
    lax = _lax(jax)
    text = str(jax.make_jaxpr(lambda x: lax.mulhi(x, jnp.int32(7)))(jnp.arange(3)))
    assert "b:i32[3] = mulhi a 7:i32[]" in text
    with pytest.raises(TypeError):
        lax.mulhi(jnp.ones(2), jnp.ones(2))
    out = jax.vmap(lambda a: lax.mulhi(a, jnp.int32(1 << 30)))(jnp.arange(8))
    np.testing.assert_array_equal(out, np.arange(8) >> 2)


# ---------------------------------------------------------------------------
# LXM-6: total order
# ---------------------------------------------------------------------------

def _total_key(a):
    bits = a.view(np.int32).astype(np.int64)
    return np.where(bits < 0, bits ^ 0x7FFFFFFF, bits)


@pytest.mark.spec("LXM-6")
def test_total_order_comparisons(jax, jnp):
    lax = _lax(jax)
    a = np.array([0.0, -0.0, np.nan, -np.nan, 1.0, np.inf, -np.inf, -2.5], np.float32)
    x, y = a[:, None], a[None, :]
    kx, ky = _total_key(x), _total_key(y)
    for prim, op in [(lax.eq_to_p, np.equal), (lax.lt_to_p, np.less),
                     (lax.le_to_p, np.less_equal)]:
        out = prim.bind(jnp.asarray(x), jnp.asarray(y))
        assert out.dtype == np.bool_
        np.testing.assert_array_equal(out, op(kx, ky))
    ints = np.array([3, -1, 0], np.int32)
    np.testing.assert_array_equal(lax.lt_to_p.bind(jnp.asarray(ints), jnp.int32(0)), ints < 0)
    assert str(lax.eq_to_p) == "eq_to" and str(lax.le_to_p) == "le_to"
    text = str(jax.make_jaxpr(lambda x: lax.lt_to_p.bind(x, x))(jnp.ones(2)))
    assert "b:bool[2] = lt_to a a" in text
    np.testing.assert_array_equal(jax.vmap(lambda v: lax.le_to_p.bind(v, 1.0))(
        jnp.arange(3.0)), [True, True, False])
    assert float(jax.grad(lambda v: lax.lt_to_p.bind(v, 2.0).astype(np.float32) * v)(1.0)) == 1


# ---------------------------------------------------------------------------
# LXM-7..10
# ---------------------------------------------------------------------------

@pytest.mark.spec("LXM-7")
def test_stage(jax, jnp):
    lax = _lax(jax)
    s = lax.stage(2.0)
    assert s.dtype == np.float32 and s.weak_type
    np.testing.assert_array_equal(lax.stage(np.arange(3)), [0, 1, 2])
    assert str(jax.make_jaxpr(lax.stage)(jnp.ones(2))) == "{ lambda ; a:f32[2]. let  in (a,) }"
    assert float(jax.grad(lambda x: lax.stage(x) * x)(3.0)) == 6.0
    with pytest.raises(TypeError, match="Error interpreting argument to stage"):
        lax.stage("a")


@pytest.mark.spec("LXM-7")
def test_dce_sink(jax, jnp):
    lax = _lax(jax)
    assert lax.dce_sink((jnp.ones(2), 1.0)) is None
    text = str(jax.make_jaxpr(lambda x: lax.dce_sink(x))(jnp.ones(2)))
    assert text == "{ lambda ; a:f32[2]. let dce_sink[prevent_mlir_dce=False] a in () }"
    assert float(jax.jit(lambda x: (lax.dce_sink(x * 2), x + 1)[1])(1.0)) == 2.0


@pytest.mark.spec("LXM-8")
def test_platform_dependent(jax, jnp):
    lax = _lax(jax)
    np.testing.assert_allclose(lax.platform_dependent(1.0, cpu=jnp.sin, default=jnp.cos),
                               np.sin(1.0), rtol=1e-6)
    np.testing.assert_allclose(lax.platform_dependent(1.0, tpu=jnp.sin, default=jnp.cos),
                               np.cos(1.0), rtol=1e-6)
    assert float(lax.platform_dependent(1.0, 2.0, cpu=lambda a, b: a + b)) == 3.0
    np.testing.assert_allclose(jax.grad(lambda x: lax.platform_dependent(x, cpu=jnp.sin))(1.0),
                               np.cos(1.0), rtol=1e-6)
    with pytest.raises(ValueError, match="Use 'cuda' or 'rocm'"):
        lax.platform_dependent(1.0, cpu=jnp.sin, gpu=jnp.cos)
    with pytest.raises(NotImplementedError, match="platform_index"):
        lax.platform_dependent(1.0, tpu=jnp.sin)


@pytest.mark.spec("LXM-9")
def test_composite(jax, jnp):
    lax = _lax(jax)

    def scale(x, *, eps=1.0):
        return x * eps
    f = lax.composite(scale, name="my.op")
    np.testing.assert_array_equal(f(jnp.arange(3.0), eps=2.0), [0, 2, 4])
    text = str(jax.make_jaxpr(lambda x: f(x, eps=2.0))(jnp.arange(3.0)))
    assert "composite[\n      attributes=(('eps', (2.0,), PyTreeDef(*)),)" in text
    assert "jaxpr={ lambda ; c:f32[3]. let d:f32[3] = mul c 2.0:f32[] in (d,) }" in text
    assert "name=my.op" in text and "version=0" in text
    np.testing.assert_array_equal(jax.jit(lambda x: f(x, eps=3.0))(jnp.ones(2)), [3, 3])
    with pytest.raises(ValueError, match="JVP rule for composite not implemented"):
        jax.grad(lambda x: f(x))(1.0)
    with pytest.raises(NotImplementedError, match="Batching rule for 'composite'"):
        jax.vmap(f)(jnp.ones(3))


@pytest.mark.spec("LXM-10")
def test_exported_primitives(jax, jnp):
    lax = _lax(jax)
    names = {"cond_p": "cond", "while_p": "while", "scan_p": "scan",
             "device_put_p": "device_put", "sharding_constraint_p": "sharding_constraint",
             "unstack_p": "unstack", "optimization_barrier_p": "optimization_barrier",
             "mulhi_p": "mulhi", "stage_p": "stage", "dce_sink_p": "dce_sink",
             "approx_top_k_p": "approx_top_k", "rng_bit_generator_p": "rng_bit_generator",
             "rng_uniform_p": "rng_uniform", "create_token_p": "create_token",
             "after_all_p": "after_all", "ragged_all_to_all_p": "ragged_all_to_all",
             "linear_solve_p": "custom_linear_solve"}
    for attr, name in names.items():
        assert str(getattr(lax, attr)) == name
    text = str(jax.make_jaxpr(lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x))(1.0))
    assert " = cond[" in text
    text = str(jax.make_jaxpr(lambda x: lax.while_loop(lambda v: v < 3, lambda v: v + 1, x))(0))
    assert " = while[" in text


@pytest.mark.spec("LXM-10")
def test_device_put_p(jax, jnp):
    lax = _lax(jax)
    params = dict(devices=(None,), srcs=(None,), copy_semantics=(None,))
    text = str(jax.make_jaxpr(lambda x: lax.device_put_p.bind(x, **params))(1.0))
    assert "b:f32[] = device_put[copy_semantics=(None,) devices=(None,) srcs=(None,)] a" in text
    text = str(jax.make_jaxpr(jax.vmap(lambda x: lax.device_put_p.bind(x, **params)[0]))(
        jnp.ones(2)))
    assert "b:f32[2] = device_put[" in text


# ---------------------------------------------------------------------------
# LXM-17: approx_max_k / approx_min_k
# ---------------------------------------------------------------------------

@pytest.mark.spec("LXM-17")
def test_approx_top_k_values(jax, jnp):
    lax = _lax(jax)
    rng = np.random.default_rng(1)
    x = rng.permutation(40).astype(np.float32).reshape(5, 8)
    for dim in (-1, 0, 1):
        vals, idx = lax.approx_max_k(jnp.asarray(x), 3, reduction_dimension=dim)
        order = np.flip(np.argsort(x, axis=dim, kind="stable"), axis=dim)
        want = np.take(order, np.arange(3), axis=dim)
        np.testing.assert_array_equal(idx, want)
        np.testing.assert_array_equal(vals, np.take_along_axis(x, want, axis=dim))
        assert idx.dtype == np.int32
        vals, idx = lax.approx_min_k(jnp.asarray(x), 2, reduction_dimension=dim)
        want = np.take(np.argsort(x, axis=dim, kind="stable"), np.arange(2), axis=dim)
        np.testing.assert_array_equal(idx, want)
    ties = jnp.asarray(np.array([3, 1, 4, 1, 5], np.float32))
    np.testing.assert_array_equal(lax.approx_min_k(ties, 2)[1], [1, 3])
    full = lax.approx_max_k(ties, 2, aggregate_to_topk=False)
    np.testing.assert_array_equal(full[0], [5, 4, 3, 1, 1])


@pytest.mark.spec("LXM-17")
def test_approx_top_k_errors(jax, jnp):
    lax = _lax(jax)
    x = jnp.arange(8.0)
    with pytest.raises(ValueError, match="k must be positive"):
        lax.approx_max_k(x, 0)
    with pytest.raises(ValueError, match="k must be smaller than the size"):
        lax.approx_max_k(x, 9)
    with pytest.raises(TypeError, match=">= 1 dimension"):
        lax.approx_max_k(jnp.float32(1.0), 1)
    with pytest.raises(ValueError, match="operand must be a floating type"):
        lax.approx_max_k(jnp.arange(8), 2)
    with pytest.raises(IndexError):
        lax.approx_max_k(x, 2, reduction_dimension=3)


@pytest.mark.spec("LXM-17")
def test_approx_top_k_jaxpr_grad_vmap(jax, jnp):
    lax = _lax(jax)
    x = jnp.asarray(np.array([3.0, 1.0, 4.0, 1.5, 5.0, 9.0, 2.0, 6.0], np.float32))
    text = str(jax.make_jaxpr(lambda x: lax.approx_max_k(x, 3))(x))
    assert "b:f32[3] c:i32[3] = approx_top_k[\n      aggregate_to_topk=True\n" in text
    assert "reduction_dimension=-1" in text and "recall_target=0.95" in text
    g = jax.grad(lambda x: lax.approx_max_k(x, 3)[0].sum())(x)
    np.testing.assert_array_equal(g, [0, 0, 0, 0, 1, 1, 0, 1])
    _check_grads(jax)(lambda x: lax.approx_min_k(x, 2)[0], (x,), order=1, modes=["fwd", "rev"])
    out = jax.vmap(lambda r: lax.approx_max_k(r, 2))(x.reshape(2, 4))
    np.testing.assert_array_equal(out[0], [[4, 3], [9, 6]])
    np.testing.assert_array_equal(out[1], [[2, 0], [1, 3]])


# ---------------------------------------------------------------------------
# LXM-18, LXM-19: rng_bit_generator, rng_uniform
# ---------------------------------------------------------------------------

@pytest.mark.spec("LXM-18")
def test_rng_bit_generator(jax, jnp):
    lax = _lax(jax)
    key = jnp.asarray(np.array([1, 2, 3, 4], np.uint32))
    new_key, bits = lax.rng_bit_generator(key, (2, 3))
    assert bits.shape == (2, 3) and bits.dtype == np.uint32
    np.testing.assert_array_equal(new_key, [1, 2, 5, 4])
    k8, b8 = lax.rng_bit_generator(key, (2,), dtype=jnp.uint8)
    assert b8.dtype == np.uint8
    np.testing.assert_array_equal(k8, [1, 2, 4, 4])
    again = lax.rng_bit_generator(key, (2, 3))[1]
    np.testing.assert_array_equal(again, bits)       # deterministic in the key
    other = lax.rng_bit_generator(new_key, (2, 3))[1]
    assert not np.array_equal(other, bits)
    with pytest.raises(TypeError, match="unsupported dtype"):
        lax.rng_bit_generator(key, (2,), dtype=jnp.int32)
    with pytest.warns(UserWarning):
        assert lax.rng_bit_generator(key, (2,), dtype=np.uint64)[1].dtype == np.uint32
    assert [a.name for a in lax.RandomAlgorithm] == ["RNG_DEFAULT", "RNG_THREE_FRY",
                                                     "RNG_PHILOX"]
    assert str(lax.RandomAlgorithm.RNG_PHILOX) == "RNG_PHILOX"
    text = str(jax.make_jaxpr(lambda k: lax.rng_bit_generator(k, (2, 3)))(key))
    assert "b:u32[4] c:u32[2,3] = rng_bit_generator[\n      algorithm=RNG_DEFAULT" in text


@pytest.mark.spec("LXM-18")
def test_rng_bit_generator_vmap(jax, jnp):
    lax = _lax(jax)
    keys = jnp.asarray(np.arange(12, dtype=np.uint32).reshape(3, 4))
    new_keys, bits = jax.vmap(lambda k: lax.rng_bit_generator(k, (2,)))(keys)
    assert bits.shape == (3, 2)
    first_key, first_bits = lax.rng_bit_generator(keys[0], (3, 2))
    np.testing.assert_array_equal(bits, first_bits)
    np.testing.assert_array_equal(new_keys[0], first_key)
    np.testing.assert_array_equal(new_keys[1:], np.asarray(keys)[1:])


@pytest.mark.spec("LXM-19")
def test_rng_uniform(jax, jnp):
    lax = _lax(jax)
    u = lax.rng_uniform(0.0, 1.0, (1000,))
    assert u.shape == (1000,) and u.dtype == np.float32
    assert float(u.min()) >= 0.0 and float(u.max()) < 1.0
    assert 0.4 < float(u.mean()) < 0.6
    ints = lax.rng_uniform(0, 10, (200,))
    assert ints.dtype == np.int32 and int(ints.min()) >= 0 and int(ints.max()) < 10
    with pytest.raises(ValueError, match="identical dtypes"):
        lax.rng_uniform(0, 1.0, (3,))
    with pytest.raises(ValueError, match="must be scalars"):
        lax.rng_uniform(jnp.zeros(2), 1.0, (3,))
    text = str(jax.make_jaxpr(lambda: lax.rng_uniform(0.0, 1.0, (3,)))())
    assert "a:f32[3] = rng_uniform[shape=(3,)] 0.0:f32[] 1.0:f32[]" in text


# ---------------------------------------------------------------------------
# LXM-20..22: tokens and collectives
# ---------------------------------------------------------------------------

@pytest.mark.spec("LXM-20")
def test_tokens(jax, jnp):
    lax = _lax(jax)
    t = lax.create_token()
    lax.after_all(t, lax.create_token(1.0))
    lax.after_all()
    with pytest.raises(TypeError, match="Arguments to after_all must be tokens"):
        lax.after_all(1.0)
    text = str(jax.make_jaxpr(lambda x: lax.after_all(lax.create_token(), lax.create_token()))(
        1.0))
    assert "b:Tok = create_token" in text and "d:Tok = after_all b c" in text


@pytest.mark.spec("LXM-21")
def test_point_to_point_outside_mapped_axes(jax, jnp):
    lax = _lax(jax)
    x = jnp.arange(4.0)
    with pytest.raises(NameError, match="unbound axis name: i"):
        lax.psend(x, "i", [(0, 1)])
    with pytest.raises(NotImplementedError, match="Evaluation rule for 'precv'"):
        lax.precv(lax.create_token(), x, "i", [(0, 1)])
    with pytest.raises(NotImplementedError, match="Evaluation rule for 'pbroadcast'"):
        lax.pbroadcast(x, "i", 0)
    with pytest.raises(ValueError, match="pvary should be called under jax.shard_map"):
        lax.pcast(x, "i", to="varying")
    with pytest.raises(ValueError, match="pvary should be called under jax.shard_map"):
        jax.vmap(lambda v: lax.pcast(v, "i", to="varying"), axis_name="i")(x)
    with pytest.raises(ValueError, match="Allowed `to` values"):
        lax.pcast(x, "i", to="bogus")
    with pytest.raises(TypeError, match="must be a tuple or a str"):
        lax.pcast(x, {"i"}, to="varying")


@pytest.mark.spec("LXM-22")
def test_ragged_all_to_all_unsupported(jax, jnp):
    lax = _lax(jax)
    x = jnp.arange(4.0)
    ints = [jnp.zeros(1, jnp.int32), jnp.ones(1, jnp.int32)] * 2
    with pytest.raises(RuntimeError, match="must be used within a mapped context"):
        lax.ragged_all_to_all(x, x, *ints, axis_name="i")
    with pytest.raises(NotImplementedError, match="Please open a feature request"):
        jax.vmap(lambda v: lax.ragged_all_to_all(v, v, *ints, axis_name="i"),
                 axis_name="i")(x.reshape(2, 2))


@pytest.mark.spec("LXM-21")
def test_collectives_in_shard_map(jax, jnp):
    lax = _lax(jax)
    if len(jax.devices()) < 4:
        pytest.skip("needs 4 devices")
    P = jax.sharding.PartitionSpec
    mesh = jax.make_mesh((4,), ("i",), axis_types=(jax.sharding.AxisType.Explicit,))
    x = jax.device_put(jnp.arange(8.0), jax.NamedSharding(mesh, P("i")))

    def run(f):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return jax.shard_map(f, mesh=mesh, in_specs=P("i"), out_specs=P("i"))(x)
    with pytest.raises(NotImplementedError, match="pbroadcast"):
        run(lambda v: lax.pbroadcast(v, "i", 1))
    ints = [jnp.zeros(4, jnp.int32)] * 4
    with pytest.raises(Exception, match="ragged-all-to-all"):
        run(lambda v: lax.ragged_all_to_all(v, v, *ints, axis_name="i"))
