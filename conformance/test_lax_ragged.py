"""Conformance: dot algorithms, ``ragged_dot``/``ragged_dot_general`` and
``scaled_dot`` (SPEC LXM-14..16).

References: per-group NumPy matmuls for ragged dots, NumPy products of
bfloat16-rounded, block-scaled operands for ``scaled_dot``.
"""
import importlib

import ml_dtypes
import numpy as np
import pytest


def _lax(jax):
    return importlib.import_module(jax.__name__ + ".lax")


# ---------------------------------------------------------------------------
# LXM-14: dot algorithms
# ---------------------------------------------------------------------------

PRESETS = ["DEFAULT", "ANY_F8_ANY_F8_F32", "ANY_F8_ANY_F8_F32_FAST_ACCUM", "ANY_F8_ANY_F8_ANY",
           "ANY_F8_ANY_F8_ANY_FAST_ACCUM", "F16_F16_F16", "F16_F16_F32", "BF16_BF16_BF16",
           "BF16_BF16_F32", "BF16_BF16_F32_X3", "BF16_BF16_F32_X6", "BF16_BF16_F32_X9",
           "TF32_TF32_F32", "TF32_TF32_F32_X3", "F32_F32_F32", "F64_F64_F64"]
CPU_OK = ["DEFAULT", "BF16_BF16_F32", "BF16_BF16_F32_X3", "BF16_BF16_F32_X6", "F32_F32_F32",
          "F64_F64_F64"]


@pytest.mark.spec("LXM-14")
def test_dot_algorithm_types(jax, jnp):
    lax = _lax(jax)
    P = lax.DotAlgorithmPreset
    assert [p.name for p in P] == PRESETS
    assert str(P.F32_F32_F32) == "F32_F32_F32" and repr(P.DEFAULT) == "DotAlgorithmPreset.DEFAULT"
    assert P.DEFAULT.supported_lhs_types is None
    assert P.F32_F32_F32.supported_lhs_types == (np.float32,)
    assert P.F32_F32_F32.accumulation_type == np.float32
    assert P.F64_F64_F64.supported_rhs_types == (np.float64,)
    algo = lax.DotAlgorithm(jnp.float32, jnp.float32, jnp.float32)
    assert algo.lhs_component_count == 1 and algo.allow_imprecise_accumulation is False
    assert [m.name for m in lax.AccuracyMode] == ["HIGHEST", "DEFAULT"]
    assert lax.AccuracyMode.HIGHEST.value == 1
    assert lax.Tolerance(atol=1e-3).atol == 1e-3
    for bad in [dict(), dict(atol=-1.0)]:
        with pytest.raises(ValueError):
            lax.Tolerance(**bad)
    assert lax.DotDimensionNumbers is not None and lax.PrecisionLike is not None


@pytest.mark.spec("LXM-14")
def test_dot_with_algorithms(jax, jnp):
    lax = _lax(jax)
    P = lax.DotAlgorithmPreset
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = np.arange(12, dtype=np.float32).reshape(3, 4)
    for name in CPU_OK:
        out = lax.dot(jnp.asarray(x), jnp.asarray(y), precision=P[name])
        assert out.dtype == np.float32
        np.testing.assert_allclose(out, x @ y, rtol=1e-6)
    for name in sorted(set(PRESETS) - set(CPU_OK) - {"F16_F16_F16"}):
        with pytest.raises(ValueError, match=f"The precision '{name}' is not supported"):
            lax.dot(jnp.asarray(x), jnp.asarray(y), precision=P[name])
    text = str(jax.make_jaxpr(lambda a, b: lax.dot(a, b, precision=P.F32_F32_F32))(x, y))
    assert "precision=F32_F32_F32" in text
    text = str(jax.make_jaxpr(lambda a, b: lax.dot(a, b, precision=P.TF32_TF32_F32))(x, y))
    assert "precision=TF32_TF32_F32" in text          # tracing is not an error
    algo = lax.DotAlgorithm(jnp.float32, jnp.float32, jnp.float32)
    text = str(jax.make_jaxpr(lambda a, b: lax.dot(a, b, precision=algo))(x, y))
    assert ("precision=DotAlgorithm(lhs_precision_type=<class 'jax.numpy.float32'>, "
            "rhs_precision_type=<class 'jax.numpy.float32'>") in text
    g = jax.grad(lambda a: lax.dot(a, jnp.asarray(y), precision=P.F32_F32_F32).sum())(x)
    np.testing.assert_allclose(g, np.broadcast_to(y.sum(1), (2, 3)), rtol=1e-6)


# ---------------------------------------------------------------------------
# LXM-15: ragged dots
# ---------------------------------------------------------------------------

def _ragged_ref(lhs, rhs, sizes):
    out = np.zeros((lhs.shape[0], rhs.shape[2]), np.float64)
    start = 0
    for g, n in enumerate(sizes):
        out[start:start + n] = lhs[start:start + n] @ rhs[g]
        start += n
    return out


@pytest.mark.spec("LXM-15")
@pytest.mark.parametrize("sizes", [[1, 2, 0], [0, 0, 5], [2, 2, 1], [1, 1, 1]])
def test_ragged_dot_values(jax, jnp, sizes):
    lax = _lax(jax)
    rng = np.random.default_rng(0)
    lhs = rng.normal(size=(5, 3)).astype(np.float32)
    rhs = rng.normal(size=(3, 3, 2)).astype(np.float32)
    out = lax.ragged_dot(jnp.asarray(lhs), jnp.asarray(rhs), jnp.asarray(sizes, jnp.int32))
    assert out.shape == (5, 2) and out.dtype == np.float32
    np.testing.assert_allclose(out, _ragged_ref(lhs, rhs, sizes), rtol=1e-5, atol=1e-5)


@pytest.mark.spec("LXM-15")
def test_ragged_dot_general_modes(jax, jnp):
    lax = _lax(jax)
    rng = np.random.default_rng(1)
    sizes = np.array([1, 2, 0], np.int32)
    lhs = rng.normal(size=(4, 3)).astype(np.float32)
    rhs = rng.normal(size=(3, 2)).astype(np.float32)
    dn = lax.RaggedDotDimensionNumbers(dot_dimension_numbers=(([1], [0]), ([], [])),
                                       lhs_ragged_dimensions=[1], rhs_group_dimensions=[])
    out = lax.ragged_dot_general(jnp.asarray(lhs), jnp.asarray(rhs), jnp.asarray(sizes), dn)
    assert out.shape == (3, 4, 2)
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    for g in range(3):
        lo, hi = bounds[g], bounds[g + 1]
        np.testing.assert_allclose(out[g], lhs[:, lo:hi] @ rhs[lo:hi], rtol=1e-5, atol=1e-6)
    assert repr(dn) == ("RaggedDotDimensionNumbers(dot_dimension_numbers=(((1,), (0,)), "
                        "((), ())), lhs_ragged_dimensions=(1,), rhs_group_dimensions=())")
    dn2 = lax.RaggedDotDimensionNumbers((([2], [1]), ([0], [0])), [0], [])
    a = rng.normal(size=(3, 4, 5)).astype(np.float32)
    b = rng.normal(size=(3, 5, 2)).astype(np.float32)
    out = lax.ragged_dot_general(jnp.asarray(a), jnp.asarray(b), jnp.asarray(sizes), dn2)
    np.testing.assert_allclose(out, np.einsum("bij,bjk->bik", a, b), rtol=1e-5, atol=1e-5)


@pytest.mark.spec("LXM-15")
def test_ragged_dot_jaxpr_grad_vmap_errors(jax, jnp):
    lax = _lax(jax)
    rng = np.random.default_rng(2)
    lhs = jnp.asarray(rng.normal(size=(4, 3)).astype(np.float32))
    rhs = jnp.asarray(rng.normal(size=(3, 3, 2)).astype(np.float32))
    gs = jnp.asarray(np.array([1, 2, 0], np.int32))
    text = str(jax.make_jaxpr(lambda a, b, g: lax.ragged_dot(a, b, g))(lhs, rhs, gs))
    assert "d:f32[4,2] = ragged_dot_general[\n      group_offset=None" in text
    assert ("ragged_dot_dimension_numbers=RaggedDotDimensionNumbers(dot_dimension_numbers="
            "(((1,), (1,)), ((), ())), lhs_ragged_dimensions=(0,), rhs_group_dimensions=(0,))"
            ) in text
    # d sum(out) / d lhs[r] = sum_n rhs[g(r), :, n] for grouped rows, 0 past the groups.
    g = jax.grad(lambda a: lax.ragged_dot(a, rhs, gs).sum())(lhs)
    r = np.asarray(rhs).sum(2)
    np.testing.assert_allclose(g, np.stack([r[0], r[1], r[1], 0 * r[0]]), rtol=1e-5)
    gr = jax.grad(lambda b: lax.ragged_dot(lhs, b, gs).sum())(rhs)
    a = np.asarray(lhs)
    want = np.stack([np.outer(a[:1].sum(0), np.ones(2)), np.outer(a[1:3].sum(0), np.ones(2)),
                     np.zeros((3, 2))])
    np.testing.assert_allclose(gr, want, rtol=1e-5, atol=1e-6)
    check_grads = importlib.import_module(jax.__name__ + ".test_util").check_grads
    check_grads(lambda a, b: lax.ragged_dot(a, b, gs), (lhs, rhs), order=1,
                modes=["fwd", "rev"], atol=1e-2, rtol=1e-2)
    gs2 = jnp.asarray(np.array([[1, 2, 0], [0, 3, 1]], np.int32))
    out = jax.vmap(lax.ragged_dot)(jnp.stack([lhs, 2 * lhs]), jnp.stack([rhs, rhs]), gs2)
    np.testing.assert_allclose(out[0], lax.ragged_dot(lhs, rhs, gs), rtol=1e-5)
    np.testing.assert_allclose(out[1], _ragged_ref(2 * a, np.asarray(rhs), [0, 3, 1]),
                               rtol=1e-5, atol=1e-5)
    with pytest.raises(TypeError):
        lax.ragged_dot(lhs, rhs, gs.astype(jnp.float32))


# ---------------------------------------------------------------------------
# LXM-16: scaled_dot
# ---------------------------------------------------------------------------

def _bf16(x):
    return np.asarray(x, np.float32).astype(ml_dtypes.bfloat16).astype(np.float32)


@pytest.mark.spec("LXM-16")
def test_scaled_dot(jax, jnp):
    lax = _lax(jax)
    a = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    b = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    out = lax.scaled_dot(jnp.asarray(a), jnp.asarray(b))
    assert out.dtype == jnp.bfloat16
    np.testing.assert_array_equal(np.asarray(out, np.float32), _bf16(a @ b))
    a = (np.arange(64.0).reshape(2, 32) / 10).astype(np.float32)
    ones = np.ones((32, 3), np.float32)
    ls = np.array([[2.0, 1.0], [4.0, 1.0]], np.float32)
    out = lax.scaled_dot(jnp.asarray(a), jnp.asarray(ones), lhs_scale=jnp.asarray(ls),
                         rhs_scale=jnp.ones((2, 3)), preferred_element_type=jnp.float32)
    want = (_bf16(a) * np.repeat(ls, 16, axis=1)) @ ones
    np.testing.assert_allclose(out, want, rtol=1e-6)
    text = str(jax.make_jaxpr(lambda x, y: lax.scaled_dot(x, y))(jnp.ones((2, 3)),
                                                                  jnp.ones((3, 4))))
    assert "d:f8_e8m0fnu[2,1] = convert_element_type[" in text
    assert ("g:bf16[2,4] = scaled_dot[\n      dimension_numbers=(((1,), (0,)), ((), ()))\n"
            "      preferred_element_type=bfloat16\n    ] a b d f") in text
    with pytest.raises(TypeError, match="0-rank and 1-rank"):
        lax.scaled_dot(jnp.ones(3), jnp.ones(3))
    with pytest.raises(NotImplementedError):
        jax.grad(lambda x: lax.scaled_dot(x, jnp.asarray(ones),
                                          preferred_element_type=jnp.float32).sum())(
            jnp.asarray(a))
    out = jax.vmap(lambda x: lax.scaled_dot(x, jnp.asarray(ones),
                                            preferred_element_type=jnp.float32))(
        jnp.asarray(a)[None])
    np.testing.assert_allclose(out[0], _bf16(a) @ ones, rtol=1e-6)
