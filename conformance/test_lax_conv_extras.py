"""Convolution helpers: shape tuples, conv_transpose, patches and unshared
convolutions (SPEC WIN-8 .. WIN-10), against NumPy loops written here."""
import importlib
import itertools
import typing

import numpy as np
import pytest

RNG = np.random.RandomState(1)


def _check_grads(jax, *args, **kwargs):
    importlib.import_module(jax.__name__ + ".test_util").check_grads(*args, **kwargs)


def _same_pads(n, k, s):
    total = max((-(-n // s) - 1) * s + k - n, 0)
    return total // 2, total - total // 2


@pytest.mark.spec("WIN-8")
def test_conv_shape_tuples_match_convolutions(jax, jnp):
    lax = jax.lax
    lhs, rhs = (2, 3, 9, 7), (4, 3, 3, 2)
    for strides in [(1, 1), (2, 3)]:
        for pads in ["SAME", "VALID", ((1, 2), (0, -1))]:
            out = lax.conv_general_dilated(jnp.ones(lhs), jnp.ones(rhs), strides, pads)
            assert tuple(lax.conv_shape_tuple(lhs, rhs, strides, pads)) == out.shape
    assert tuple(lax.conv_shape_tuple((4, 3, 5, 5), (6, 3, 2, 2), (1, 1), "VALID",
                                      batch_group_count=2)) == (2, 6, 4, 4)
    dn = ("NHWC", "HWIO", "NHWC")
    assert lax.conv_general_permutations(dn) == ((0, 3, 1, 2), (3, 2, 0, 1),
                                                 (0, 3, 1, 2))
    assert lax.conv_general_permutations(("NCHW", "OIWH", "CNHW")) == (
        (0, 1, 3, 2), (0, 1, 2, 3), (1, 0, 3, 2))
    x, k = jnp.ones((2, 9, 7, 3)), jnp.ones((3, 2, 3, 4))
    for strides in [(1, 1), (2, 3)]:
        for pads in ["SAME", "VALID", ((1, 2), (0, 1))]:
            out = lax.conv_general_dilated(x, k, strides, pads, dimension_numbers=dn)
            assert tuple(lax.conv_general_shape_tuple(x.shape, k.shape, strides, pads,
                                                      dn)) == out.shape
            t = lax.conv_transpose(x, k, strides, pads, dimension_numbers=dn)
            assert tuple(lax.conv_transpose_shape_tuple(x.shape, k.shape, strides, pads,
                                                        dn)) == t.shape
    assert typing.get_args(lax.ConvGeneralDilatedDimensionNumbers) == (
        tuple[str, str, str], lax.ConvDimensionNumbers, type(None))
    with pytest.raises(TypeError, match="Wrong number of explicit pads"):
        lax.conv_shape_tuple(lhs, rhs, (1, 1), ((0, 0),))
    with pytest.raises(ValueError, match="Negative padding is larger"):
        lax.conv_shape_tuple(lhs, rhs, (1, 1), ((-10, 0), (0, 0)))
    with pytest.raises(TypeError, match="must contain the characters 'N' and 'C'"):
        lax.conv_general_permutations(("NHWX", "HWIO", "NHWC"))


def np_transposed_conv_1d(x, w, s, before, total):
    """x (N, n, I), w (k, I, O): scatter each input through the reversed
    kernel, then read the window the padding selects."""
    n_batch, n, _ = x.shape
    k, _, o = w.shape
    full = np.zeros((n_batch, (n - 1) * s + k + 4 * (k + s), o), np.float64)
    for i, j in itertools.product(range(n), range(k)):
        full[:, i * s + (k - 1 - j)] += x[:, i] @ w[j]
    size = (n - 1) * s + 1 + total - k + 1
    start = k - 1 - before
    out = np.zeros((n_batch, size, o))
    for q in range(size):
        if 0 <= q + start < full.shape[1]:
            out[:, q] = full[:, q + start]
    return out


@pytest.mark.spec("WIN-9")
def test_conv_transpose_matches_numpy(jax, jnp):
    lax = jax.lax
    x = RNG.randn(2, 5, 3).astype(np.float32)
    for k, s in [(3, 1), (3, 2), (2, 3), (4, 2)]:
        w = RNG.randn(k, 3, 4).astype(np.float32)
        same = (k - 1 if s > k - 1 else int(np.ceil((k + s - 2) / 2)), k + s - 2)
        valid = (k - 1, k + s - 2 + max(k - s, 0))
        for padding, (before, total) in [("SAME", same), ("VALID", valid),
                                         (((1, 2),), (1, 3))]:
            out = lax.conv_transpose(jnp.asarray(x), jnp.asarray(w), (s,), padding)
            expected = np_transposed_conv_1d(x, w, s, before, total)
            np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)
        # use_consistent_padding: pairs are the forward convolution's padding.
        out = lax.conv_transpose(jnp.asarray(x), jnp.asarray(w), (s,), ((1, 0),),
                                 use_consistent_padding=True)
        expected = np_transposed_conv_1d(x, w, s, k - 2, 2 * k - 3)
        np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)


@pytest.mark.spec("WIN-9")
def test_conv_transpose_kernel_gives_input_gradient(jax, jnp):
    lax = jax.lax
    dn = ("NHWC", "HWIO", "NHWC")
    x = jnp.asarray(RNG.randn(2, 8, 6, 3).astype(np.float32))
    w = jnp.asarray(RNG.randn(3, 3, 3, 5).astype(np.float32))
    for strides in [(1, 1), (2, 2)]:
        def forward(v):
            return lax.conv_general_dilated(v, w, strides, "SAME", dimension_numbers=dn)
        y, vjp = jax.vjp(forward, x)
        ct = jnp.asarray(RNG.randn(*y.shape).astype(np.float32))
        # The kernel is given with its O and I roles as the forward conv's.
        got = lax.conv_transpose(ct, w, strides, "SAME", dimension_numbers=dn,
                                 transpose_kernel=True)
        np.testing.assert_allclose(got, vjp(ct)[0], rtol=1e-4, atol=1e-4)


@pytest.mark.spec("WIN-9")
def test_conv_transpose_defaults_errors_and_gradients(jax, jnp):
    lax = jax.lax
    x = jnp.asarray(RNG.randn(2, 4, 3).astype(np.float32))     # NHC
    w = jnp.asarray(RNG.randn(3, 3, 2).astype(np.float32))     # HIO
    assert lax.conv_transpose(x, w, (2,), "SAME").shape == (2, 8, 2)
    assert lax.conv_transpose(jnp.ones((2, 3)), jnp.ones((3, 4)), (), "VALID").shape == (2, 4)
    out = lax.conv_transpose(jnp.ones((1, 4, 2), jnp.int32), jnp.ones((2, 2, 3), jnp.int32),
                             (2,), "SAME")
    assert out.dtype == jnp.int32
    with pytest.raises(ValueError, match="No 4\\+ dimensional dimension_number defaults"):
        lax.conv_transpose(jnp.ones((1,) * 6), jnp.ones((1,) * 6), (1,) * 4, "SAME")
    with pytest.raises(ValueError, match="Invalid padding mode"):
        lax.conv_transpose(x, w, (1,), "SAME_LOWER", use_consistent_padding=True)
    _check_grads(jax, lambda a, b: lax.conv_transpose(a, b, (2,), "SAME"), (x, w),
                 order=2, modes=["fwd", "rev"], atol=2e-2, rtol=2e-2)
    batched = jax.vmap(lambda a: lax.conv_transpose(a, w, (2,), "VALID"))(x[:, None])
    loop = np.stack([lax.conv_transpose(x[i:i + 1], w, (2,), "VALID") for i in range(2)])
    np.testing.assert_allclose(batched, loop, rtol=1e-5, atol=1e-5)


def np_patches(x, filter_shape, strides, padding):
    """x (N, C, H, W) -> (N, C * kh * kw, out_h, out_w), channel-major."""
    n, c, h, w = x.shape
    (pt, pb), (pl, pr) = padding
    xp = np.zeros((n, c, h + pt + pb, w + pl + pr), x.dtype)
    xp[:, :, pt:pt + h, pl:pl + w] = x
    kh, kw = filter_shape
    oh = (xp.shape[2] - kh) // strides[0] + 1
    ow = (xp.shape[3] - kw) // strides[1] + 1
    out = np.zeros((n, c, kh, kw, oh, ow), x.dtype)
    for i, j in itertools.product(range(oh), range(ow)):
        r, q = i * strides[0], j * strides[1]
        out[..., i, j] = xp[:, :, r:r + kh, q:q + kw]
    return out.reshape(n, c * kh * kw, oh, ow)


@pytest.mark.spec("WIN-10")
def test_patches_match_numpy(jax, jnp):
    lax = jax.lax
    xn = RNG.randn(2, 3, 5, 6).astype(np.float32)
    x = jnp.asarray(xn)
    for strides in [(1, 1), (2, 1)]:
        for padding in ["VALID", "SAME", ((1, 0), (2, 1))]:
            pads = padding if not isinstance(padding, str) else (
                [(0, 0)] * 2 if padding == "VALID"
                else [_same_pads(5, 2, strides[0]), _same_pads(6, 3, strides[1])])
            out = lax.conv_general_dilated_patches(x, (2, 3), strides, padding)
            np.testing.assert_allclose(out, np_patches(xn, (2, 3), strides, pads))
            # Other layouts hold the same numbers, permuted.
            nhwc = lax.conv_general_dilated_patches(
                jnp.transpose(x, (0, 2, 3, 1)), (2, 3), strides, padding,
                dimension_numbers=("NHWC", "HWIO", "NHWC"))
            np.testing.assert_allclose(jnp.transpose(nhwc, (0, 3, 1, 2)), out)
    xi = jnp.arange(12).reshape(1, 1, 3, 4)
    out = lax.conv_general_dilated_patches(xi, (2, 2), (1, 1), "VALID")
    assert out.dtype == jnp.int32
    np.testing.assert_array_equal(out, np_patches(np.asarray(xi), (2, 2), (1, 1),
                                                  [(0, 0)] * 2))
    _check_grads(jax, lambda v: lax.conv_general_dilated_patches(v, (2, 2), (1, 1), "SAME"),
                 (x,), order=1, modes=["fwd", "rev"])
    batched = jax.vmap(lambda v: lax.conv_general_dilated_patches(v, (2, 2), (1, 2),
                                                                  "SAME"))(x[:, None])
    loop = np.stack([lax.conv_general_dilated_patches(x[i:i + 1], (2, 2), (1, 2), "SAME")
                     for i in range(2)])
    np.testing.assert_allclose(batched, loop)


@pytest.mark.spec("WIN-10")
def test_unshared_convolution_matches_numpy(jax, jnp):
    lax = jax.lax
    xn = RNG.randn(2, 3, 5, 6).astype(np.float32)
    x = jnp.asarray(xn)
    for strides, padding in [((1, 1), "VALID"), ((2, 1), ((1, 0), (2, 1)))]:
        pads = [(0, 0)] * 2 if padding == "VALID" else padding
        patches = np_patches(xn, (2, 3), strides, pads)         # (N, C*6, oh, ow)
        oh, ow = patches.shape[2:]
        wn = RNG.randn(oh, ow, 3 * 6, 4).astype(np.float32)      # HWIO
        out = lax.conv_general_dilated_local(x, jnp.asarray(wn), strides, padding, (2, 3),
                                             dimension_numbers=("NCHW", "HWIO", "NCHW"))
        expected = np.einsum("nphw,hwpo->nohw", patches, wn)
        np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)
        again = lax.conv_general_dilated_local(
            x, jnp.asarray(wn), strides, padding, (2, 3),
            dimension_numbers=("NCHW", "HWIO", "NCHW"), precision=lax.Precision.HIGHEST)
        np.testing.assert_allclose(again, expected, rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError):
        lax.conv_general_dilated_local(x, jnp.asarray(wn), strides, padding, (2, 3),
                                       dimension_numbers=("NCHW", "HWIO", "NCHW"),
                                       precision="bogus")
