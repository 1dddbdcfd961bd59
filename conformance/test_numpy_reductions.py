"""jax.numpy reductions (SPEC NP-5 .. NP-15, NP-27, NP-28).

Values are compared with NumPy; dtypes and weak types through ``dtype`` and
``weak_type``; jaxpr texts are the strings real JAX 0.10.2 prints.
"""
import numpy as np
import pytest

A = np.array([[1.5, -2.0, 3.0], [4.0, 0.5, -6.0]], np.float32)
N = np.array([[1.5, np.nan, 3.0], [np.nan, np.nan, np.nan]], np.float32)
I8 = np.array([[1, -2, 3], [4, 5, -6]], np.int8)
W = np.array([[True, False, True], [False, True, True]])
EMPTY = np.zeros((0, 3), np.float32)


def kind(x):
    return ("~" if x.weak_type else "") + x.dtype.name


def jaxpr(jax, f, *args):
    return str(jax.make_jaxpr(f)(*args))


def close(got, want, rtol=1e-6):
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=1e-6)


# ---------------------------------------------------------------------------
# NP-5: axes, keepdims, out
# ---------------------------------------------------------------------------

_SIMPLE = ["sum", "prod", "max", "min", "mean", "var", "std", "all", "any", "ptp"]


@pytest.mark.spec("NP-5")
@pytest.mark.parametrize("name", _SIMPLE)
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 1), (1, 0), (-2,)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_axes_and_keepdims_match_numpy(jnp, name, axis, keepdims):
    got = getattr(jnp, name)(A, axis=axis, keepdims=keepdims)
    want = getattr(np, name)(A, axis=axis, keepdims=keepdims)
    assert got.shape == want.shape
    close(got, want, rtol=2e-6)


@pytest.mark.spec("NP-5")
def test_bad_axes(jnp):
    with pytest.raises(ValueError, match=r"duplicate value in 'axis': \(0, 0\)"):
        jnp.sum(A, axis=(0, 0))
    with pytest.raises(ValueError, match="axis 2 is out of bounds for array of dimension 2"):
        jnp.sum(A, axis=2)
    with pytest.raises(ValueError, match="axis -3 is out of bounds for array of dimension 2"):
        jnp.max(A, axis=-3)
    with pytest.raises(IndexError):
        jnp.mean(A, axis=2)
    with pytest.raises(TypeError):
        jnp.sum(A, axis=1.0)
    assert jnp.sum(A, axis=[0, 1]).shape == ()


@pytest.mark.spec("NP-5")
@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "mean", "all", "any",
                                  "argmax", "cumsum", "var", "std", "ptp"])
def test_out_is_not_supported(jnp, name):
    with pytest.raises(NotImplementedError,
                       match=rf"The 'out' argument to jnp.{name} is not supported"):
        getattr(jnp, name)(A, out=np.zeros(3, np.float32))


@pytest.mark.spec("NP-5")
def test_lists_are_rejected(jnp):
    with pytest.raises(TypeError, match=r"sum requires ndarray or scalar arguments, got "
                                        r"<class 'list'> at position 0\."):
        jnp.sum([1, 2])
    with pytest.raises(TypeError, match="mean requires ndarray or scalar arguments"):
        jnp.mean([1, 2])


@pytest.mark.spec("NP-5")
def test_reduction_jaxprs(jax, jnp):
    assert jaxpr(jax, lambda x: jnp.max(x, axis=1, keepdims=True), A) == (
        "{ lambda ; a:f32[2,3]. let\n"
        "    b:f32[2] = reduce_max[axes=(1,)] a\n"
        "    c:f32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] b\n"
        "  in (c,) }")
    assert jaxpr(jax, lambda x: jnp.any(x, axis=0), A) == (
        "{ lambda ; a:f32[2,3]. let\n"
        "    b:bool[2,3] = convert_element_type[new_dtype=bool weak_type=False] a\n"
        "    c:bool[3] = reduce_or[axes=(0,)] b\n"
        "  in (c,) }")


# ---------------------------------------------------------------------------
# NP-6: sum and prod
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-6")
def test_sum_prod_dtypes(jnp):
    assert kind(jnp.sum(I8)) == "int32" and int(jnp.sum(I8)) == 5
    assert kind(jnp.prod(I8)) == "int32" and int(jnp.prod(I8)) == 720
    assert kind(jnp.sum(np.ones(3, np.uint8))) == "uint32"
    assert kind(jnp.sum(np.array([True, True]))) == "int32"
    assert kind(jnp.sum(I8, promote_integers=False)) == "int8"
    assert kind(jnp.sum(A.astype(np.float16))) == "float16"
    assert kind(jnp.sum(A, dtype=jnp.int32)) == "int32"
    assert kind(jnp.sum(I8, dtype=bool)) == "bool" and bool(jnp.sum(I8, dtype=bool))
    assert kind(jnp.prod(I8, dtype=bool)) == "bool"
    assert kind(jnp.sum(3.0)) == "float32"
    assert kind(jnp.sum(jnp.ones(2, jnp.bfloat16))) == "bfloat16"


@pytest.mark.spec("NP-6")
def test_sum_prod_dtypes_x64(jnp, x64):
    assert jnp.sum(I8).dtype == np.int64
    assert jnp.sum(np.ones(3, np.uint16)).dtype == np.uint64
    assert jnp.prod(np.array([True])).dtype == np.int64


@pytest.mark.spec("NP-6")
def test_float16_sums_accumulate_in_float32(jnp):
    x = np.full(4096, 1.0, np.float16)
    got = jnp.sum(x)
    assert got.dtype == np.float16 and float(got) == 4096.0


@pytest.mark.spec("NP-6")
def test_initial_and_empty(jnp):
    assert float(jnp.sum(A, initial=10.0)) == pytest.approx(11.0)
    close(jnp.prod(A, axis=0, initial=2), 2 * A.prod(axis=0))
    assert repr(jnp.sum(EMPTY)) == "Array(0., dtype=float32)"
    assert repr(jnp.prod(EMPTY)) == "Array(1., dtype=float32)"
    assert jnp.sum(EMPTY, axis=0).tolist() == [0.0, 0.0, 0.0]


@pytest.mark.spec("NP-6")
def test_sum_jaxprs(jax, jnp):
    assert jaxpr(jax, jnp.sum, I8) == (
        "{ lambda ; a:i8[2,3]. let\n"
        "    b:i32[2,3] = convert_element_type[new_dtype=int32 weak_type=False] a\n"
        "    c:i32[] = reduce_sum[axes=(0, 1) out_sharding=None] b\n"
        "  in (c,) }")
    assert jaxpr(jax, lambda x: jnp.prod(x, axis=(0, 1), initial=2.0), A) == (
        "{ lambda ; a:f32[2,3]. let\n"
        "    b:f32[] = reduce_prod[axes=(0, 1)] a\n"
        "    c:f32[] = mul 2.0:f32[] b\n"
        "  in (c,) }")


# ---------------------------------------------------------------------------
# NP-7: max, min, ptp
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-7")
def test_max_min_values_and_dtypes(jnp):
    assert kind(jnp.max(I8)) == "int8" and int(jnp.max(I8)) == 5
    assert kind(jnp.amin(I8, axis=0)) == "int8"
    assert jnp.amin(I8, axis=0).tolist() == [1, -2, -6]
    assert np.isnan(float(jnp.max(N)))
    assert np.isnan(float(jnp.min(N)))
    z = np.array([1 + 5j, 2 + 0j, 2 + 1j], np.complex64)
    assert complex(jnp.max(z)) == 2 + 1j and complex(jnp.min(z)) == 1 + 5j
    assert kind(jnp.ptp(I8)) == "int8" and int(jnp.ptp(I8)) == 11


@pytest.mark.spec("NP-7")
def test_no_identity(jnp):
    with pytest.raises(ValueError, match="zero-size array to reduction operation max which "
                                         "has no identity"):
        jnp.max(EMPTY)
    with pytest.raises(ValueError, match="zero-size array to reduction operation min"):
        jnp.min(EMPTY, axis=0)
    assert jnp.max(EMPTY, axis=1).shape == (0,)
    assert float(jnp.max(EMPTY, initial=-1.0)) == -1.0
    with pytest.raises(ValueError, match="reduction operation max does not have an identity, "
                                         "so to use a where mask one has to specify 'initial'"):
        jnp.max(A, where=W)


@pytest.mark.spec("NP-7")
def test_where_with_initial(jnp):
    assert float(jnp.max(A, where=W, initial=-100.0)) == 3.0
    assert jnp.min(A, axis=1, where=W, initial=100.0).tolist() == [1.5, -6.0]
    assert int(jnp.max(I8, where=W, initial=-128)) == 5
    assert float(jnp.max(A, initial=10.0)) == 10.0


# ---------------------------------------------------------------------------
# NP-8: all, any, count_nonzero
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-8")
def test_all_any_count_nonzero(jax, jnp):
    x = np.array([[0.0, 1.0, np.nan], [0.0, 0.0, 0.0]], np.float32)
    assert jnp.all(x, axis=1).tolist() == [False, False]
    assert jnp.any(x, axis=1).tolist() == [True, False]
    assert bool(jnp.all(EMPTY)) is True and bool(jnp.any(EMPTY)) is False
    assert jnp.any(np.array([1j, 0j])).tolist() is False   # real parts only
    got = jnp.count_nonzero(x, axis=0)
    assert kind(got) == "int32" and got.tolist() == [0, 1, 1]
    assert jnp.count_nonzero(x, axis=0, keepdims=True).shape == (1, 3)
    assert jaxpr(jax, jnp.count_nonzero, A) == (
        "{ lambda ; a:f32[2,3]. let\n"
        "    b:i32[] = jit[\n"
        "      name=count_nonzero\n"
        "      jaxpr={ lambda ; a:f32[2,3]. let\n"
        "          c:bool[2,3] = ne a 0.0:f32[]\n"
        "          d:i32[2,3] = convert_element_type[new_dtype=int32 weak_type=False] c\n"
        "          b:i32[] = reduce_sum[axes=(0, 1) out_sharding=None] d\n"
        "        in (b,) }\n"
        "    ] a\n"
        "  in (b,) }")


# ---------------------------------------------------------------------------
# NP-9: mean
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-9")
def test_mean(jax, jnp):
    close(jnp.mean(A, axis=0), A.mean(axis=0))
    assert kind(jnp.mean(I8)) == "float32"
    assert kind(jnp.mean(np.array([True, False]))) == "float32"
    assert kind(jnp.mean(A.astype(np.float16))) == "float16"
    assert kind(jnp.mean(A, dtype=jnp.float16)) == "float16"
    assert kind(jnp.mean(2)) == "float32"
    assert repr(jnp.mean(EMPTY)) == "Array(nan, dtype=float32)"
    assert float(jnp.mean(A, where=W)) == pytest.approx(A[W].mean())
    close(jnp.mean(A, axis=1, where=W), [2.25, -2.75])
    assert jaxpr(jax, jnp.mean, A) == (
        "{ lambda ; a:f32[2,3]. let\n"
        "    b:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] a\n"
        "    c:f32[] = div b 6.0:f32[]\n"
        "  in (c,) }")


@pytest.mark.spec("NP-9")
def test_mean_x64(jnp, x64):
    assert jnp.mean(np.ones(3, np.int32)).dtype == np.float32
    assert jnp.mean(np.ones(3, np.int64)).dtype == np.float64
    assert jnp.mean(np.ones(3)).dtype == np.float64


# ---------------------------------------------------------------------------
# NP-10: var and std
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-10")
def test_var_std(jnp):
    for axis in (None, 0, 1):
        for ddof in (0, 1):
            close(jnp.var(A, axis=axis, ddof=ddof), A.var(axis=axis, ddof=ddof), rtol=1e-5)
            close(jnp.std(A, axis=axis, ddof=ddof), A.std(axis=axis, ddof=ddof), rtol=1e-5)
    close(jnp.var(A, correction=1), A.var(ddof=1), rtol=1e-5)
    close(jnp.std(A, axis=0, correction=1.5), np.sqrt(((A - A.mean(0)) ** 2).sum(0) / 0.5),
          rtol=1e-5)
    with pytest.raises(ValueError, match="ddof and correction can't be provided simultaneously."):
        jnp.var(A, ddof=1, correction=1)
    assert np.isnan(jnp.var(A, axis=0, ddof=2)).all()
    assert kind(jnp.var(I8)) == "float32"
    z = (A + 1j * A[::-1]).astype(np.complex64)
    assert kind(jnp.var(z)) == "float32"
    close(jnp.var(z), np.var(z.astype(complex)), rtol=1e-5)
    assert kind(jnp.std(A.astype(np.float16))) == "float16"
    with pytest.raises(ValueError, match="dtype argument to jnp.std must be inexact; got int32"):
        jnp.std(A, dtype=jnp.int32)
    close(jnp.var(A, where=W), A[W].var(), rtol=1e-5)


@pytest.mark.spec("NP-10")
def test_var_jaxpr(jax, jnp):
    assert jaxpr(jax, jnp.var, A) == (
        "let _var = { lambda ; a:f32[2,3] b:i32[]. let\n"
        "    c:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] a\n"
        "    d:f32[1,1] = broadcast_in_dim c\n"
        "    e:f32[1,1] = div d 6.0:f32[]\n"
        "    f:f32[2,3] = sub a e\n"
        "    g:f32[2,3] = square f\n"
        "    h:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b\n"
        "    i:f32[] = sub 6.0:f32[] h\n"
        "    j:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] g\n"
        "    k:f32[] = div j i\n"
        "    l:bool[] = gt i 0.0:f32[]\n"
        "    m:f32[] = jit[\n"
        "      name=_where\n"
        "      jaxpr={ lambda ; l:bool[] k:f32[] n:f32[]. let\n"
        "          o:f32[] = convert_element_type[new_dtype=float32 weak_type=False] n\n"
        "          m:f32[] = select_n l o k\n"
        "        in (m,) }\n"
        "    ] l k nan:f32[]\n"
        "  in (m,) } in\n"
        "{ lambda ; p:f32[2,3]. let\n"
        "    q:f32[] = jit[name=_var jaxpr=_var] p 0:i32[]\n"
        "  in (q,) }")


# ---------------------------------------------------------------------------
# NP-11: argmax and argmin
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-11")
def test_argmax_argmin(jax, jnp):
    for axis in (None, 0, 1, -1):
        np.testing.assert_array_equal(jnp.argmax(A, axis=axis), np.argmax(A, axis=axis))
        np.testing.assert_array_equal(jnp.argmin(A, axis=axis), np.argmin(A, axis=axis))
    assert kind(jnp.argmax(A)) == "int32"
    assert jnp.argmax(A, axis=0, keepdims=True).shape == (1, 3)
    assert jnp.argmin(A, keepdims=True).shape == (1, 1)
    nan = np.array([1.0, np.nan, 5.0, np.nan], np.float32)
    assert int(jnp.argmax(nan)) == 1 and int(jnp.argmin(nan)) == 1
    with pytest.raises(ValueError, match="attempt to get argmax of an empty sequence"):
        jnp.argmax(EMPTY, axis=0)
    with pytest.raises(ValueError, match="attempt to get argmin of an empty sequence"):
        jnp.argmin(EMPTY)
    assert jnp.argmax(EMPTY, axis=1).shape == (0,)
    with pytest.raises(TypeError):
        jnp.argmax(jnp.ones(2) + 1j)
    assert jaxpr(jax, jnp.argmax, A) == (
        "{ lambda ; a:f32[2,3]. let\n"
        "    b:f32[6] = reshape[dimensions=None new_sizes=(6,) sharding=None] a\n"
        "    c:i32[] = argmax[axes=(0,) index_dtype=int32] b\n"
        "  in (c,) }")


@pytest.mark.spec("NP-11")
def test_argmax_x64(jnp, x64):
    assert jnp.argmax(A).dtype == np.int64


# ---------------------------------------------------------------------------
# NP-12: cumulative reductions
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-12")
def test_cumsum_cumprod(jax, jnp):
    for axis in (None, 0, 1, -1):
        close(jnp.cumsum(A, axis=axis), np.cumsum(A, axis=axis))
        close(jnp.cumprod(A, axis=axis), np.cumprod(A, axis=axis))
    assert kind(jnp.cumsum(I8)) == "int8"
    assert kind(jnp.cumsum(np.array([True, True]))) == "int32"
    assert jnp.cumsum(np.array([True, True])).tolist() == [1, 2]
    assert kind(jnp.cumsum(I8, dtype=jnp.float16)) == "float16"
    got = jnp.cumsum(np.array([0, 2, 0], np.int8), dtype=bool)
    assert kind(got) == "bool" and got.tolist() == [False, True, True]
    assert jnp.cumsum(3.0).shape == (1,)
    assert jaxpr(jax, lambda x: jnp.cumsum(x, axis=1), I8) == (
        "{ lambda ; a:i8[2,3]. let\n"
        "    b:i8[2,3] = jit[\n"
        "      name=cumsum\n"
        "      jaxpr={ lambda ; a:i8[2,3]. let\n"
        "          b:i8[2,3] = cumsum[axis=1 reverse=False] a\n"
        "        in (b,) }\n"
        "    ] a\n"
        "  in (b,) }")


@pytest.mark.spec("NP-12")
def test_cumulative_sum_prod(jnp):
    x = np.array([1, 2, 3], np.int8)
    got = jnp.cumulative_sum(x)
    assert kind(got) == "int32" and got.tolist() == [1, 3, 6]
    assert kind(jnp.cumulative_prod(x)) == "int8"
    assert jnp.cumulative_sum(x, include_initial=True).tolist() == [0, 1, 3, 6]
    assert jnp.cumulative_prod(x, include_initial=True).tolist() == [1, 1, 2, 6]
    close(jnp.cumulative_sum(A, axis=1), np.cumsum(A, axis=1))
    assert jnp.cumulative_sum(A, axis=0, include_initial=True).shape == (3, 3)
    with pytest.raises(ValueError, match="The input must be non-scalar to take a cumulative sum"):
        jnp.cumulative_sum(jnp.float32(1))
    with pytest.raises(ValueError, match="The input array has rank 2, however axis was not set"):
        jnp.cumulative_prod(A)


# ---------------------------------------------------------------------------
# NP-13: NaN-ignoring reductions
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-13")
@pytest.mark.parametrize("name", ["nansum", "nanprod", "nanmax", "nanmin", "nanmean",
                                  "nanvar", "nanstd"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_nan_reductions_match_numpy(jnp, name, axis):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = getattr(np, name)(N, axis=axis)
    got = getattr(jnp, name)(N, axis=axis)
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, equal_nan=True)


@pytest.mark.spec("NP-13")
def test_nan_reductions_details(jax, jnp):
    assert jnp.nanargmax(N, axis=1).tolist() == [2, -1]
    assert jnp.nanargmin(N, axis=1).tolist() == [0, -1]
    assert float(jnp.nanmax(N, initial=10.0)) == 10.0
    assert kind(jnp.nansum(I8)) == "int32"
    assert kind(jnp.nanmax(I8)) == "int8"
    assert kind(jnp.nanmean(I8)) == "float32"
    assert jnp.nanvar(N, axis=1, ddof=1).tolist()[0] == pytest.approx(np.nanvar(N[0], ddof=1))
    assert np.isnan(jnp.nanvar(N, axis=1, ddof=1).tolist()[1])
    assert jaxpr(jax, jnp.nanmax, A) == (
        "{ lambda ; a:f32[2,3]. let\n"
        "    b:f32[] = jit[\n"
        "      name=nanmax\n"
        "      jaxpr={ lambda ; a:f32[2,3]. let\n"
        "          c:bool[2,3] = ne a a\n"
        "          d:f32[2,3] = jit[\n"
        "            name=_where\n"
        "            jaxpr={ lambda ; c:bool[2,3] e:f32[] a:f32[2,3]. let\n"
        "                f:f32[2,3] = broadcast_in_dim e\n"
        "                d:f32[2,3] = select_n c a f\n"
        "              in (d,) }\n"
        "          ] c -inf:f32[] a\n"
        "          g:f32[] = reduce_max[axes=(0, 1)] d\n"
        "          h:bool[2,3] = ne a a\n"
        "          i:bool[] = reduce_and[axes=(0, 1)] h\n"
        "          b:f32[] = jit[\n"
        "            name=_where\n"
        "            jaxpr={ lambda ; i:bool[] j:f32[] g:f32[]. let\n"
        "                b:f32[] = select_n i g j\n"
        "              in (b,) }\n"
        "          ] i nan:f32[] g\n"
        "        in (b,) }\n"
        "    ] a\n"
        "  in (b,) }")


@pytest.mark.spec("NP-13")
def test_nancumulative(jnp):
    close(jnp.nancumsum(N, axis=1), np.nancumsum(N, axis=1))
    close(jnp.nancumprod(N), np.nancumprod(N))


# ---------------------------------------------------------------------------
# NP-14: quantiles
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-14")
@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest",
                                    "inverted_cdf"])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
def test_quantile_matches_numpy(jnp, method, axis):
    x = np.array([[3.0, 1.0, 4.0, 1.5], [5.0, 9.0, 2.0, 6.0], [5.0, 3.0, 5.0, 8.0]],
                 np.float32)
    q = np.array([0.0, 0.1, 0.5, 0.75, 1.0], np.float32)
    got = jnp.quantile(x, q, axis=axis, method=method)
    want = _np_quantile(x, q, axis, method)
    assert got.shape == want.shape and got.dtype == np.float32
    close(got, want, rtol=1e-5)
    got = jnp.quantile(x, 0.3, axis=axis, method=method, keepdims=True)
    want = _np_quantile(x, np.float32(0.3), axis, method, keepdims=True)
    assert got.shape == want.shape
    close(got, want, rtol=1e-5)


def _np_quantile(x, q, axis, method, keepdims=False):
    """NumPy's quantile, except that JAX's "nearest" breaks ties toward the
    lower order statistic (NumPy rounds the position half to even)."""
    if method != "nearest":
        return np.quantile(x, q, axis=axis, method=method, keepdims=keepdims)
    n = x.size if axis is None else np.prod([x.shape[a] for a in np.atleast_1d(axis)])
    frac = np.asarray(q, np.float64) * (n - 1) % 1
    lower = np.quantile(x, q, axis=axis, method="lower", keepdims=keepdims)
    higher = np.quantile(x, q, axis=axis, method="higher", keepdims=keepdims)
    frac = frac.reshape(frac.shape + (1,) * (lower.ndim - frac.ndim))
    return np.where(frac <= 0.5, lower, higher)


@pytest.mark.spec("NP-14")
def test_percentile_median(jnp):
    close(jnp.percentile(A, 30), np.percentile(A, 30))
    close(jnp.percentile(A, np.array([10, 90]), axis=0), np.percentile(A, [10, 90], axis=0))
    close(jnp.median(A), np.median(A))
    close(jnp.median(A, axis=1, keepdims=True), np.median(A, axis=1, keepdims=True))
    assert kind(jnp.median(I8)) == "float32"
    assert np.isnan(jnp.median(N, axis=1)).all()
    close(jnp.nanmedian(N, axis=1), [2.25, np.nan])
    close(jnp.nanquantile(N, 0.25, axis=1), [1.875, np.nan])
    close(jnp.nanpercentile(N, 50), np.nanpercentile(N, 50))
    with pytest.raises(ValueError, match="method can only be 'linear', 'lower', 'higher', "
                                         "'midpoint', 'nearest' or 'inverted_cdf'"):
        jnp.quantile(A, 0.5, method="foo")
    with pytest.raises(ValueError, match=r"q must be have rank <= 1, got shape \(1, 1\)"):
        jnp.quantile(A, np.ones((1, 1)))
    with pytest.raises(ValueError, match="quantile does not support complex input"):
        jnp.quantile(A + 1j, 0.5)


# ---------------------------------------------------------------------------
# NP-15: where= masks
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-15")
def test_where_masks(jax, jnp):
    assert float(jnp.sum(A, where=W)) == pytest.approx(A[W].sum())
    assert float(jnp.prod(A, where=W)) == pytest.approx(A[W].prod())
    assert jnp.sum(A, axis=0, where=np.array([True, False, True])).tolist() == [5.5, 0.0, -3.0]
    assert bool(jnp.all(np.array([0.0, 1.0]), where=np.array([False, True])))
    with pytest.raises(ValueError, match=r"jnp.sum: where must be None or a boolean array; "
                                         r"got where.dtype=dtype\('int32'\)."):
        jnp.sum(A, where=np.ones((2, 3), np.int32))
    with pytest.raises(ValueError, match="jnp.mean: where must be None or a boolean array"):
        jnp.mean(A, where=np.ones((2, 3), np.float32))
    assert jaxpr(jax, lambda x: jnp.sum(x, where=W), A) == (
        "{ lambda a:bool[2,3]; b:f32[2,3]. let\n"
        "    c:f32[2,3] = jit[\n"
        "      name=_where\n"
        "      jaxpr={ lambda ; a:bool[2,3] b:f32[2,3] d:f32[]. let\n"
        "          e:f32[2,3] = broadcast_in_dim d\n"
        "          c:f32[2,3] = select_n a e b\n"
        "        in (c,) }\n"
        "    ] a b 0.0:f32[]\n"
        "    f:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] c\n"
        "  in (f,) }")


# ---------------------------------------------------------------------------
# NP-27: reductions under jit
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-27")
def test_reductions_under_jit(jax, jnp):
    @jax.jit
    def f(x):
        return (jnp.sum(x, axis=0), jnp.mean(x), jnp.var(x, axis=1), jnp.argmax(x),
                jnp.cumsum(x), jnp.median(x), jnp.nanmax(x))
    s, m, v, a, c, med, nm = f(A)
    close(s, A.sum(0))
    close(m, A.mean())
    close(v, A.var(1), rtol=1e-5)
    assert int(a) == 3
    close(c, A.cumsum())
    close(med, np.median(A))
    close(nm, A.max())


# ---------------------------------------------------------------------------
# NP-28: average
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-28")
def test_average(jnp):
    close(jnp.average(A), np.average(A))
    close(jnp.average(A, axis=0), np.average(A, axis=0))
    w = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
    close(jnp.average(A, weights=w), np.average(A, weights=w))
    w1 = np.array([1.0, 2.0, 3.0], np.float32)
    close(jnp.average(A, axis=1, weights=w1), np.average(A, axis=1, weights=w1))
    avg, total = jnp.average(A, axis=1, weights=w1, returned=True)
    close(avg, np.average(A, axis=1, weights=w1))
    assert total.tolist() == [6.0, 6.0]
    avg, total = jnp.average(A, axis=1, returned=True)
    assert total.tolist() == [3.0, 3.0]
    assert kind(jnp.average(I8)) == "float32"
    assert jnp.average(A, axis=1, keepdims=True).shape == (2, 1)
    with pytest.raises(ValueError, match="Axis must be specified when shapes of a and "
                                         "weights differ."):
        jnp.average(A, weights=w1)
    with pytest.raises(ValueError, match="Shape of weights must be consistent with shape of "
                                         "a along specified axis."):
        jnp.average(A, axis=0, weights=w1)
