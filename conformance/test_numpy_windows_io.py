"""Conformance: ``jax.numpy`` windows, ``i0``, log-spaced sequences,
``matvec``/``vecmat``, ``einsum_path``, packed bits and arrays from host
data (SPEC NPP-6 .. NPP-13).

References are NumPy's functions (``np.hanning``, ``np.packbits``...) and
SciPy's ``i0``/``i1`` in float64, compared with float32 tolerances.
"""
import io

import ml_dtypes
import numpy as np
import pytest
import scipy.special

F32 = dict(rtol=2e-6, atol=2e-6)


def f32(jnp, values):
    return jnp.asarray(np.asarray(values, np.float32))


# -- i0 (NPP-6) ---------------------------------------------------------------

@pytest.mark.spec("NPP-6")
def test_i0_values_and_dtypes(jnp):
    x = np.array([-30., -2.5, -1., 0., 0.5, 1., 4., 30.])
    out = jnp.i0(f32(jnp, x))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, scipy.special.i0(x), rtol=1e-5)
    weak = jnp.i0(3)
    assert weak.dtype == np.float32 and weak.weak_type
    with pytest.raises(ValueError, match="Unsupported input type"):
        jnp.i0(1j)


@pytest.mark.spec("NPP-6")
def test_i0_derivative_is_i1_and_zero_at_zero(jax, jnp, test_util):
    x = np.array([-2., -0.5, 0., 0.5, 3.])
    g = jax.vmap(jax.grad(jnp.i0))(f32(jnp, x))
    np.testing.assert_allclose(g, scipy.special.i1(x), rtol=1e-5, atol=1e-6)
    assert float(jax.grad(jnp.i0)(0.0)) == 0.0
    test_util.check_grads(jnp.i0, (f32(jnp, [0.7, -1.3]),), order=2, atol=1e-2, rtol=1e-2)


@pytest.mark.spec("NPP-6")
def test_i0_x64(jnp, x64):
    x = np.array([0.1, 2., 10.])
    out = jnp.i0(jnp.asarray(x))
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, scipy.special.i0(x), rtol=1e-13)


# -- windows (NPP-7) ----------------------------------------------------------

WINDOWS = ["bartlett", "blackman", "hamming", "hanning"]


@pytest.mark.spec("NPP-7")
@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("M", [0, 1, 2, 5, 8])
def test_windows_match_numpy(jnp, name, M):
    out = getattr(jnp, name)(M)
    assert out.dtype == np.float32 and not out.weak_type
    np.testing.assert_allclose(out, getattr(np, name)(M), rtol=1e-6, atol=1e-6)


@pytest.mark.spec("NPP-7")
@pytest.mark.parametrize("name", WINDOWS)
def test_windows_x64_and_static_length(jax, jnp, name, x64):
    assert getattr(jnp, name)(6).dtype == np.float64
    with pytest.raises(jax.errors.ConcretizationTypeError, match=f"M argument of jnp.{name}"):
        jax.jit(getattr(jnp, name))(3)


@pytest.mark.spec("NPP-7")
def test_kaiser_matches_numpy_and_differentiates_in_beta(jax, jnp):
    for M, beta in [(1, 3.), (5, 0.), (7, 8.6), (10, 14.)]:
        np.testing.assert_allclose(jnp.kaiser(M, beta), np.kaiser(M, beta), rtol=1e-5, atol=1e-6)
    assert jnp.kaiser(4, 2).dtype == np.float32
    g = jax.grad(lambda b: jnp.kaiser(5, b).sum())(3.0)
    h = 1e-3
    fd = (np.kaiser(5, 3 + h).sum() - np.kaiser(5, 3 - h).sum()) / (2 * h)
    np.testing.assert_allclose(g, fd, rtol=1e-3)


# -- logspace and geomspace (NPP-8) -------------------------------------------

@pytest.mark.spec("NPP-8")
def test_logspace_matches_numpy(jnp):
    np.testing.assert_allclose(jnp.logspace(0, 2, 5), np.logspace(0, 2, 5), rtol=1e-5)
    np.testing.assert_allclose(jnp.logspace(1, 3, 4, endpoint=False, base=2),
                               np.logspace(1, 3, 4, endpoint=False, base=2), rtol=1e-5)
    out = jnp.logspace(f32(jnp, [0., 1.]), 2, 3, axis=-1)
    np.testing.assert_allclose(out, np.logspace([0., 1.], 2, 3, axis=-1), rtol=1e-5)
    assert jnp.logspace(0, 2, 3).dtype == np.float32
    assert jnp.logspace(0, 2, 3, dtype=jnp.int32).dtype == np.int32


@pytest.mark.spec("NPP-8")
def test_geomspace_matches_numpy(jnp):
    np.testing.assert_allclose(jnp.geomspace(1, 1000, 4), np.geomspace(1, 1000, 4), rtol=1e-5)
    np.testing.assert_allclose(jnp.geomspace(-1, -1000, 4, endpoint=False),
                               np.geomspace(-1, -1000, 4, endpoint=False), rtol=1e-5)
    a, b = np.array([1., 2.]), np.array([10., 20.])
    np.testing.assert_allclose(jnp.geomspace(f32(jnp, a), f32(jnp, b), 3, axis=-1),
                               np.geomspace(a, b, 3, axis=-1), rtol=1e-5)


@pytest.mark.spec("NPP-8")
def test_spaced_sequences_need_static_num(jax, jnp):
    with pytest.raises(jax.errors.ConcretizationTypeError, match="'num' argument of jnp.logspace"):
        jax.jit(lambda n: jnp.logspace(0., 1., n))(3)
    with pytest.raises(TypeError):
        jnp.geomspace(1, 10, 3.5)


# -- matvec and vecmat (NPP-9) ------------------------------------------------

@pytest.mark.spec("NPP-9")
def test_matvec_vecmat_match_numpy(jnp):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    v = rng.standard_normal(4).astype(np.float32)
    np.testing.assert_allclose(jnp.matvec(a, v), np.matvec(a, v), **F32)
    z = (rng.standard_normal(3) + 1j * rng.standard_normal(3)).astype(np.complex64)
    m = rng.standard_normal((3, 2)).astype(np.float32)
    out = jnp.vecmat(z, m)
    assert out.dtype == np.complex64
    np.testing.assert_allclose(out, np.vecmat(z, m), rtol=1e-5, atol=1e-5)


@pytest.mark.spec("NPP-9")
def test_matvec_errors(jnp):
    with pytest.raises(ValueError):
        jnp.matvec(jnp.ones((3, 4)), jnp.ones(3))
    with pytest.raises(ValueError):
        jnp.matvec(jnp.ones(3), jnp.ones(3))
    with pytest.raises(TypeError, match="matvec requires ndarray"):
        jnp.vecmat([1, 2], jnp.ones((2, 3)))


# -- einsum_path (NPP-10) -----------------------------------------------------

@pytest.mark.spec("NPP-10")
def test_einsum_path_is_opt_einsums_answer(jnp):
    opt_einsum = pytest.importorskip("opt_einsum")
    ops = [jnp.ones((2, 3)), jnp.ones((3, 100)), jnp.ones((100, 5))]
    path, info = jnp.einsum_path("ij,jk,kl", *ops)
    ref_path, _ = opt_einsum.contract_path("ij,jk,kl", *[np.ones(o.shape) for o in ops])
    assert path == ref_path
    assert type(info).__name__ == "PathInfo" and "Complete contraction" in str(info)
    assert jnp.einsum_path("ij,jk,kl", *ops, optimize=False)[0] == [(0, 1), (0, 1)]
    np.testing.assert_allclose(jnp.einsum("ij,jk,kl", *ops, optimize=path),
                               np.full((2, 5), 300.))
    with pytest.raises(ValueError):
        jnp.einsum_path("ij,jk", jnp.ones((2, 3)))


# -- host data (NPP-11) -------------------------------------------------------

@pytest.mark.spec("NPP-11")
def test_frombuffer_fromstring(jnp):
    out = jnp.frombuffer(np.arange(3.).tobytes())
    assert out.dtype == np.float32            # float64 canonicalized
    np.testing.assert_array_equal(out, [0., 1., 2.])
    half = jnp.frombuffer(b"\x01\x02\x03\x04", dtype=np.int16, count=1, offset=2)
    np.testing.assert_array_equal(half, np.frombuffer(b"\x03\x04", np.int16))
    # An Array's bytes are a buffer, as a NumPy array's are.
    raw = jnp.frombuffer(jnp.ones((2, 3)), dtype="float32")
    assert raw.shape == (6,) and raw.tolist() == [1.0] * 6
    text = jnp.fromstring("1, 2, 3", dtype=int, sep=",")
    assert text.dtype == np.int32 and text.tolist() == [1, 2, 3]


@pytest.mark.spec("NPP-11")
def test_fromfile_fromiter_are_refused(jnp):
    with pytest.raises(NotImplementedError, match="non-pure"):
        jnp.fromfile("anything")
    with pytest.raises(NotImplementedError, match="non-pure"):
        jnp.fromiter(iter([1, 2]))


@pytest.mark.spec("NPP-11")
def test_fromfunction_vmaps_over_index_grids(jnp):
    out = jnp.fromfunction(lambda i, j: i * 10 + j, (2, 3))
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, np.fromfunction(lambda i, j: i * 10 + j, (2, 3)))
    ints = jnp.fromfunction(lambda i: i + 2, (3,), dtype=jnp.int32)
    assert ints.dtype == np.int32 and ints.tolist() == [2, 3, 4]
    with pytest.raises(TypeError):
        jnp.fromfunction(lambda i: i, jnp.array(3))   # a 0-d array is no shape


@pytest.mark.spec("NPP-11")
def test_save_load_roundtrip_keeps_bfloat16(jnp):
    f = io.BytesIO()
    jnp.save(f, jnp.array([2, 4, 6], dtype=jnp.bfloat16))
    f.seek(0)
    out = jnp.load(f)
    assert out.dtype == ml_dtypes.bfloat16 and out.tolist() == [2, 4, 6]
    f = io.BytesIO()
    np.save(f, np.array(["a"]))
    f.seek(0)
    assert isinstance(jnp.load(f), np.ndarray)     # not a JAX dtype: NumPy's
    f = io.BytesIO()
    jnp.savez(f, a=np.arange(2))
    f.seek(0)
    assert jnp.load(f)["a"].tolist() == [0, 1]


@pytest.mark.spec("NPP-11")
def test_numpy_reexports(jnp):
    assert jnp.ComplexWarning is np.exceptions.ComplexWarning
    assert jnp.array_str(jnp.arange(3)) == np.array_str(np.arange(3))
    assert jnp.array_repr(jnp.arange(3)).endswith("([0, 1, 2], dtype=int32)")


# -- DLPack (NPP-12) ----------------------------------------------------------

@pytest.mark.spec("NPP-12")
def test_from_dlpack(jax, jnp):
    out = jnp.from_dlpack(np.arange(3, dtype=np.int64))
    assert out.dtype == np.int32 and out.tolist() == [0, 1, 2]
    assert jnp.from_dlpack(np.ones(2, np.float16), copy=True).dtype == np.float16
    placed = jnp.from_dlpack(np.arange(2.), device=jax.devices()[0])
    assert placed.devices() == {jax.devices()[0]}
    with pytest.raises(TypeError, match="__dlpack__ and __dlpack_device__"):
        jnp.from_dlpack([1, 2])


# -- packed bits (NPP-13) -----------------------------------------------------

@pytest.mark.spec("NPP-13")
@pytest.mark.parametrize("bitorder", ["big", "little"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_packbits_unpackbits_match_numpy(jnp, bitorder, axis):
    bits = np.random.default_rng(1).integers(0, 3, (3, 11))
    packed = jnp.packbits(jnp.asarray(bits), axis=axis, bitorder=bitorder)
    ref = np.packbits(bits != 0, axis=axis, bitorder=bitorder)
    assert packed.dtype == np.uint8
    np.testing.assert_array_equal(packed, ref)
    np.testing.assert_array_equal(
        jnp.unpackbits(jnp.asarray(ref), axis=axis, bitorder=bitorder),
        np.unpackbits(ref, axis=axis, bitorder=bitorder))


@pytest.mark.spec("NPP-13")
def test_unpackbits_count_and_errors(jnp):
    b = np.array([3, 200], np.uint8)
    for count in (-3, 5, 20):
        np.testing.assert_array_equal(jnp.unpackbits(jnp.asarray(b), count=count),
                                      np.unpackbits(b, count=count))
    with pytest.raises(TypeError, match="unsigned byte"):
        jnp.unpackbits(jnp.array([3]))
    with pytest.raises(TypeError, match="integer or boolean"):
        jnp.packbits(jnp.array([1.0]))
    with pytest.raises(ValueError, match="'little' or 'big'"):
        jnp.packbits(jnp.array([1]), bitorder="middle")


@pytest.mark.spec("NPP-13")
def test_packbits_vmap_and_jit(jax, jnp):
    x = jnp.asarray(np.random.default_rng(2).integers(0, 2, (4, 9)))
    looped = np.stack([np.asarray(jnp.packbits(row)) for row in x])
    np.testing.assert_array_equal(jax.vmap(jnp.packbits)(x), looped)
    np.testing.assert_array_equal(jax.jit(jnp.packbits)(x), np.packbits(np.asarray(x)))
