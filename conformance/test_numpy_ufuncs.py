"""jax.numpy elementwise functions and Array operators (SPEC NP-1 .. NP-4,
NP-16 .. NP-27, NP-29).

Values are checked against NumPy (or against the numbers JAX 0.10.2 prints,
where JAX and NumPy differ on purpose); dtypes and weak types through
``dtype``/``weak_type``; jaxpr texts are the strings real JAX 0.10.2 prints.
"""
import math
import warnings

import numpy as np
import pytest

F32 = np.array([-2.5, -0.5, 0.0, 0.5, 1.5, 3.0], np.float32)
I32 = np.array([-7, -3, 0, 2, 5, 9], np.int32)


def kind(x):
    """``dtype`` name with a ``~`` for weak types: ``'~float32'``."""
    return ("~" if x.weak_type else "") + x.dtype.name


def jaxpr(jax, f, *args):
    return str(jax.make_jaxpr(f)(*args))


def close(got, want, rtol=1e-6):
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=1e-7)


# ---------------------------------------------------------------------------
# NP-1, NP-2: arguments and promotion
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-1")
@pytest.mark.parametrize("name", ["sin", "add", "power", "floor_divide", "clip"])
def test_lists_are_rejected(jnp, name):
    fn = getattr(jnp, name)
    args = ([1.0, 2.0],) if name in ("sin", "clip") else (jnp.ones(2), [1.0, 2.0])
    pos = 0 if len(args) == 1 else 1
    with pytest.raises(TypeError, match=rf"{name} requires ndarray or scalar arguments, "
                                        rf"got <class 'list'> at position {pos}\."):
        fn(*args)


@pytest.mark.spec("NP-1")
def test_numpy_values_are_strong_python_scalars_weak(jnp):
    x = jnp.ones(3, jnp.int8)
    assert kind(x + 1) == "int8"
    assert kind(x + np.int32(1)) == "int32"
    assert kind(x + np.float32(1)) == "float32"
    assert kind(jnp.add(2, 3)) == "~int32"
    assert kind(jnp.add(2, 3.5)) == "~float32"
    assert kind(jnp.add(np.int16(2), 3)) == "int16"


@pytest.mark.spec("NP-2")
def test_float_functions_promote_integers(jnp):
    assert kind(jnp.sin(jnp.arange(3))) == "float32"
    assert kind(jnp.sqrt(jnp.array([True, False]))) == "float32"
    assert kind(jnp.exp(jnp.ones(2, jnp.uint8))) == "float32"
    assert kind(jnp.sin(2)) == "~float32"
    assert kind(jnp.sin(jnp.ones(2, jnp.float16))) == "float16"
    assert kind(jnp.true_divide(jnp.arange(3), 2)) == "float32"
    assert kind(jnp.arctan2(jnp.ones(2, jnp.int8), jnp.ones(2, jnp.float16))) == "float16"


@pytest.mark.spec("NP-2")
def test_float_functions_of_32_bit_ints_stay_float32_with_x64(jnp, x64):
    assert jnp.sin(np.arange(3, dtype=np.int32)).dtype == np.float32
    assert jnp.sqrt(np.array([True])).dtype == np.float32
    assert jnp.sin(np.arange(3, dtype=np.int64)).dtype == np.float64
    assert kind(jnp.sin(1)) == "~float64"
    assert jnp.mean(np.ones(3, np.int16)).dtype == np.float32
    # Numeric-only functions make booleans int32, not the default int.
    assert jnp.square(np.array([True])).dtype == np.int32
    assert jnp.sum(np.array([True])).dtype == np.int64


@pytest.mark.spec("NP-2")
def test_mixed_dtypes(jnp):
    u8, i8 = jnp.ones(2, jnp.uint8), jnp.ones(2, jnp.int8)
    assert kind(u8 + i8) == "int16"
    assert kind(jnp.ones(2, jnp.float16) + jnp.ones(2, jnp.float32)) == "float32"
    assert kind(jnp.ones(2, jnp.bfloat16) * jnp.ones(2, jnp.float16)) == "float32"
    assert kind(i8 * 2.5) == "~float32"
    assert kind(jnp.ones(2) + 1j) == "complex64"
    assert kind(jnp.maximum(u8, 300)) == "uint8"


@pytest.mark.spec("NP-2")
def test_rank_promotion(jax, jnp):
    a, b = jnp.ones(3), jnp.ones((2, 3))
    assert (a + b).shape == (2, 3)
    assert jaxpr(jax, jnp.add, np.ones(3, np.float32), np.ones((2, 3), np.float32)) == (
        "{ lambda ; a:f32[3] b:f32[2,3]. let\n"
        "    c:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a\n"
        "    d:f32[2,3] = add c b\n"
        "  in (d,) }")
    with jax.numpy_rank_promotion("raise"):
        with pytest.raises(ValueError, match=r"Operands could not be broadcast together for "
                                             r"add on shapes \(3,\) \(2, 3\) and with the config "
                                             r"option jax_numpy_rank_promotion='raise'"):
            jnp.add(a, b)
        assert (a + 1.0).shape == (3,)   # rank 0 never counts
    with jax.numpy_rank_promotion("warn"):
        with pytest.warns(UserWarning, match=r"Following NumPy automatic rank promotion for "
                                             r"multiply on shapes \(3,\) \(2, 3\)\. Set the "
                                             r"jax_numpy_rank_promotion config option to "
                                             r"'allow' to disable this warning"):
            jnp.multiply(a, b)


@pytest.mark.spec("NP-2")
def test_incompatible_shapes(jnp):
    with pytest.raises((TypeError, ValueError)):
        jnp.add(jnp.ones(3), jnp.ones(4))


# ---------------------------------------------------------------------------
# NP-3: elementwise functions
# ---------------------------------------------------------------------------

_UNARY_FLOAT = ["sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh",
                "tanh", "arcsinh", "arctanh", "exp", "exp2", "expm1", "log", "log2",
                "log10", "log1p", "sqrt", "cbrt", "deg2rad", "rad2deg", "degrees",
                "radians", "reciprocal", "square", "fabs"]


@pytest.mark.spec("NP-3")
@pytest.mark.parametrize("name", _UNARY_FLOAT)
def test_unary_float_functions_match_numpy(jnp, name):
    x = np.array([-0.75, -0.25, 0.1, 0.5, 0.9], np.float32)
    if name == "arccosh":
        x = x + 2
    with np.errstate(all="ignore"):
        want = getattr(np, name)(x.astype(np.float64))
    got = getattr(jnp, name)(x)
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got), want, rtol=2e-6, atol=1e-7, equal_nan=True)


@pytest.mark.spec("NP-3")
def test_array_api_aliases(jnp):
    x = np.array([0.25, 0.5], np.float32)
    for alias, name in [("acos", "arccos"), ("asin", "arcsin"), ("atan", "arctan"),
                        ("asinh", "arcsinh"), ("atanh", "arctanh")]:
        np.testing.assert_array_equal(getattr(jnp, alias)(x), getattr(jnp, name)(x))
    np.testing.assert_array_equal(jnp.acosh(x + 1), jnp.arccosh(x + 1))
    np.testing.assert_array_equal(jnp.atan2(x, x[::-1]), jnp.arctan2(x, x[::-1]))
    np.testing.assert_array_equal(jnp.pow(x, 3), jnp.power(x, 3))


@pytest.mark.spec("NP-3")
def test_complex_functions(jnp):
    z = np.array([1 + 2j, -0.5 + 0.25j, 3 - 1j], np.complex64)
    for name in ["sqrt", "exp", "log", "log2", "log10", "sin", "tanh"]:
        got = getattr(jnp, name)(z)
        assert got.dtype == np.complex64
        np.testing.assert_allclose(np.asarray(got), getattr(np, name)(z.astype(complex)),
                                   rtol=1e-5)
    got = jnp.arccosh(z)
    assert np.all(np.asarray(got).real >= 0)
    np.testing.assert_allclose(np.cosh(np.asarray(got).astype(complex)), z, rtol=1e-5)


@pytest.mark.spec("NP-3")
def test_nan_and_inf_are_silent(jnp):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(float(jnp.log(-1.0)))
        assert np.isnan(float(jnp.sqrt(-1.0)))
        assert float(jnp.true_divide(1.0, 0.0)) == np.inf


@pytest.mark.spec("NP-3")
def test_unary_jaxprs(jax, jnp):
    assert jaxpr(jax, jnp.sin, I32) == (
        "{ lambda ; a:i32[6]. let\n"
        "    b:f32[6] = convert_element_type[new_dtype=float32 weak_type=False] a\n"
        "    c:f32[6] = sin b\n"
        "  in (c,) }")
    assert jaxpr(jax, jnp.log2, F32) == (
        "{ lambda ; a:f32[6]. let\n"
        "    b:f32[6] = log a\n"
        "    c:f32[] = log 2.0:f32[]\n"
        "    d:f32[6] = div b c\n"
        "  in (d,) }")
    assert jaxpr(jax, jnp.reciprocal, F32) == (
        "{ lambda ; a:f32[6]. let b:f32[6] = integer_pow[y=-1] a in (b,) }")
    assert jaxpr(jax, jnp.square, np.array([True])) == (
        "{ lambda ; a:bool[1]. let\n"
        "    b:i32[1] = convert_element_type[new_dtype=int32 weak_type=False] a\n"
        "    c:i32[1] = square b\n"
        "  in (c,) }")


# ---------------------------------------------------------------------------
# NP-4: Array operators and methods
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-4")
def test_operators_call_jnp_functions(jnp):
    x, y = jnp.asarray(I32), jnp.asarray(I32[::-1].copy())
    pairs = [(x + y, I32 + I32[::-1]), (x - y, I32 - I32[::-1]), (x * y, I32 * I32[::-1]),
             (x // 4, I32 // 4), (x % 4, I32 % 4), (x & 6, I32 & 6), (x | 6, I32 | 6),
             (x ^ 6, I32 ^ 6), (x << 2, I32 << 2), (x >> 1, I32 >> 1), (-x, -I32),
             (+x, I32), (abs(x), np.abs(I32)), (~x, ~I32), (3 - x, 3 - I32),
             (100 // (x + 8), 100 // (I32 + 8)), (x < 2, I32 < 2), (x >= 2, I32 >= 2),
             (x == 2, I32 == 2), (x != 2, I32 != 2)]
    for got, want in pairs:
        np.testing.assert_array_equal(np.asarray(got), want)
    q, r = divmod(x, 4)
    np.testing.assert_array_equal(q, I32 // 4)
    np.testing.assert_array_equal(r, I32 % 4)
    close(x / 4, I32 / 4)
    close(2 ** jnp.asarray(F32), 2 ** F32.astype(np.float64))


@pytest.mark.spec("NP-4")
def test_operators_with_non_arrays(jnp):
    x = jnp.arange(3)
    assert (x == "a") is False
    assert (x == None) is False  # noqa: E711 - the operator is the point
    assert (x != None) is True  # noqa: E711
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for ==: "
                                        r"'ArrayImpl' and 'list'"):
        x == [1, 2, 3]
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for ==: "
                                        r"'ArrayImpl' and 'tuple'"):
        x != (1, 2, 3)
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+"):
        x + [1]
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for -"):
        x - "a"


@pytest.mark.spec("NP-4")
def test_power_operator_jaxprs(jax, jnp):
    assert jaxpr(jax, lambda x: x ** 2, F32) == (
        "{ lambda ; a:f32[6]. let b:f32[6] = integer_pow[y=2] a in (b,) }")
    assert jaxpr(jax, lambda x: x ** 2.5, F32) == (
        "{ lambda ; a:f32[6]. let b:f32[6] = pow a 2.5:f32[] in (b,) }")
    assert jaxpr(jax, lambda x: jnp.power(x, np.int64(3)), F32) == (
        "{ lambda ; a:f32[6]. let b:f32[6] = integer_pow[y=3] a in (b,) }")


@pytest.mark.spec("NP-4")
def test_round_and_contains(jnp):
    assert repr(round(jnp.float32(2.5))) == "Array(2, dtype=int32)"
    assert repr(round(jnp.float32(3.5))) == "Array(4, dtype=int32)"
    assert repr(round(jnp.float32(2.567), 2)) == "Array(2.57, dtype=float32)"
    assert (2 in jnp.arange(3)) is True
    assert (5 in jnp.arange(3)) is False
    with pytest.raises(TypeError, match="Array.__contains__: unsupported operand type"):
        None in jnp.arange(3)  # noqa: B015
    with pytest.raises(ValueError, match="search array must be one-dimensional"):
        1 in jnp.ones((2, 2))  # noqa: B015


@pytest.mark.spec("NP-4")
def test_methods(jnp):
    a = np.array([[1.5, -2.0, 3.0], [4.0, 0.5, -6.0]], np.float32)
    x = jnp.asarray(a)
    close(x.sum(axis=0), a.sum(axis=0))
    close(x.mean(), a.mean())
    close(x.var(ddof=1), a.var(ddof=1))
    close(x.std(axis=1), a.std(axis=1))
    close(x.max(keepdims=True), a.max(keepdims=True))
    close(x.min(axis=1), a.min(axis=1))
    close(x.prod(), a.prod())
    close(x.ptp(), np.ptp(a))
    assert int(x.argmax()) == 3 and x.argmin(axis=1).tolist() == [1, 2]
    close(x.cumsum(axis=1), a.cumsum(axis=1))
    close(x.cumprod(), a.cumprod())
    close(x.clip(0, 2), a.clip(0, 2))
    close(x.round(), np.round(a))
    assert x.all().tolist() is True and x.any(axis=0).tolist() == [True] * 3
    close(x.conj(), a)
    close(x.conjugate(), a)
    close(x.real, a)
    close(x.imag, np.zeros_like(a))
    # JAX 0.10.2's Array.sum accepts ``initial`` and ignores it.
    assert float(x.sum(initial=100.0)) == pytest.approx(float(a.sum()))
    with pytest.raises(NotImplementedError, match="arr.flat"):
        x.flat  # noqa: B018


@pytest.mark.spec("NP-4")
def test_operators_on_tracers(jax, jnp):
    @jax.jit
    def f(x):
        return (x + 1) * 2 - x ** 2, x // 2, -x % 3
    a, b, c = f(jnp.arange(4))
    assert a.tolist() == [2, 3, 2, -1]
    assert b.tolist() == [0, 0, 1, 1]
    assert c.tolist() == [0, 2, 1, 0]


# ---------------------------------------------------------------------------
# NP-16: integer division and remainder
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-16")
def test_floor_division_and_remainder_signs(jnp):
    a = np.array([7, -7, 7, -7], np.int32)
    b = np.array([2, 2, -2, -2], np.int32)
    assert jnp.floor_divide(a, b).tolist() == (a // b).tolist() == [3, -4, -4, 3]
    assert jnp.remainder(a, b).tolist() == (a % b).tolist() == [1, 1, -1, -1]
    assert jnp.mod(a, b).tolist() == [1, 1, -1, -1]
    assert jnp.fmod(a, b).tolist() == np.fmod(a, b).tolist() == [1, -1, 1, -1]
    fa, fb = a.astype(np.float32) + 0.5, b.astype(np.float32)
    close(jnp.floor_divide(fa, fb), fa // fb)
    close(jnp.remainder(fa, fb), fa % fb)
    close(jnp.fmod(fa, fb), np.fmod(fa, fb))
    q, r = jnp.divmod(fa, fb)
    close(q, fa // fb)
    close(r, fa % fb)
    u = np.array([7, 200, 255], np.uint8)
    assert jnp.floor_divide(u, np.uint8(3)).tolist() == (u // 3).tolist()
    assert jnp.remainder(u, np.uint8(3)).tolist() == (u % 3).tolist()


@pytest.mark.spec("NP-16")
def test_division_by_zero(jnp):
    x = jnp.array([7, -7, 0], jnp.int32)
    assert (x // 0).tolist() == [-2, -2, -1]
    assert (x % 0).tolist() == [0, 0, 0]
    assert jnp.fmod(x, 0).tolist() == [0, 0, 0]
    assert repr(jnp.float32(1) / 0) == "Array(inf, dtype=float32)"
    assert np.isnan(float(jnp.float32(0) / 0))
    f = jnp.array([7.0, -7.0])
    assert (f // 0).tolist() == [np.inf, -np.inf]


@pytest.mark.spec("NP-16")
def test_division_dtypes(jnp):
    i8 = jnp.ones(2, jnp.int8)
    assert kind(i8 // 2) == "int8"
    assert kind(i8 / 2) == "float32"
    assert kind(jnp.floor_divide(7, 2)) == "~int32"
    assert kind(jnp.remainder(7.5, 2)) == "~float32"
    assert kind(jnp.floor_divide(jnp.array([True]), True)) == "int32"
    with pytest.raises(TypeError, match="floor_divide does not support complex-valued inputs"):
        jnp.floor_divide(jnp.ones(2) + 1j, 2)


@pytest.mark.spec("NP-16")
def test_division_jaxprs(jax, jnp):
    assert jaxpr(jax, lambda x: jnp.remainder(x, 2), F32) == (
        "{ lambda ; a:f32[6]. let\n"
        "    b:f32[6] = jit[\n"
        "      name=remainder\n"
        "      jaxpr={ lambda ; a:f32[6] c:i32[]. let\n"
        "          d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c\n"
        "          e:f32[6] = rem a d\n"
        "          f:bool[6] = ne e 0.0:f32[]\n"
        "          g:bool[6] = lt e 0.0:f32[]\n"
        "          h:bool[] = lt d 0.0:f32[]\n"
        "          i:bool[6] = ne g h\n"
        "          j:bool[6] = and i f\n"
        "          k:f32[6] = add e d\n"
        "          b:f32[6] = select_n j e k\n"
        "        in (b,) }\n"
        "    ] a 2:i32[]\n"
        "  in (b,) }")
    assert jaxpr(jax, lambda x: x // 2, I32) == (
        "{ lambda ; a:i32[6]. let\n"
        "    b:i32[6] = jit[\n"
        "      name=floor_divide\n"
        "      jaxpr={ lambda ; a:i32[6] c:i32[]. let\n"
        "          d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] c\n"
        "          e:i32[6] = div a d\n"
        "          f:i32[6] = sign a\n"
        "          g:i32[] = sign d\n"
        "          h:bool[6] = ne f g\n"
        "          i:i32[6] = rem a d\n"
        "          j:bool[6] = ne i 0:i32[]\n"
        "          k:bool[6] = and h j\n"
        "          l:i32[6] = sub e 1:i32[]\n"
        "          b:i32[6] = jit[\n"
        "            name=_where\n"
        "            jaxpr={ lambda ; k:bool[6] l:i32[6] e:i32[6]. let\n"
        "                b:i32[6] = select_n k e l\n"
        "              in (b,) }\n"
        "          ] k l e\n"
        "        in (b,) }\n"
        "    ] a 2:i32[]\n"
        "  in (b,) }")


# ---------------------------------------------------------------------------
# NP-17: rounding
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-17")
def test_round_half_to_even(jnp):
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 3.5], np.float32)
    assert jnp.round(x).tolist() == [0.0, 2.0, 2.0, -0.0, -2.0, 4.0]
    assert jnp.around(x).tolist() == jnp.round(x).tolist()
    assert jnp.rint(x).tolist() == np.rint(x).tolist()
    assert np.signbit(np.asarray(jnp.round(x))[3])
    y = np.array([1.25, -2.5, 3.456, 0.125], np.float32)
    close(jnp.round(y, 1), np.round(y, 1))
    close(jnp.round(y, 2), np.round(y, 2))
    close(jnp.round(np.array([1234.5, 1250.0], np.float32), -2), [1200.0, 1200.0])
    assert jnp.round(y.astype(np.float16), 1).dtype == np.float16


@pytest.mark.spec("NP-17")
def test_rounding_dtypes(jnp):
    i = jnp.array([-3, 2], jnp.int8)
    assert kind(jnp.round(i)) == "int8" and jnp.round(i).tolist() == [-3, 2]
    assert kind(jnp.floor(i)) == "int8" and kind(jnp.ceil(i)) == "int8"
    assert kind(jnp.trunc(i)) == "int8"
    assert kind(jnp.rint(i)) == "float32"
    assert kind(jnp.rint(3)) == "float32"
    assert kind(jnp.round(2.5)) == "~float32"
    assert kind(jnp.floor(jnp.array([True]))) == "bool"
    with pytest.raises(NotImplementedError, match="integer np.round not implemented"):
        jnp.round(i, -1)
    with pytest.raises(ValueError, match="not inexact"):
        jnp.round(jnp.array([True]))
    with pytest.raises(TypeError, match="floor does not accept dtype complex64"):
        jnp.floor(jnp.ones(2) + 1j)
    z = jnp.array([1.5 + 2.5j, -0.5 - 1.5j])
    assert jnp.round(z).tolist() == [2 + 2j, -0.0 - 2j]


@pytest.mark.spec("NP-17")
def test_trunc_floor_ceil(jnp):
    close(jnp.trunc(F32), np.trunc(F32))
    close(jnp.floor(F32), np.floor(F32))
    close(jnp.ceil(F32), np.ceil(F32))


@pytest.mark.spec("NP-17")
def test_rounding_jaxprs(jax, jnp):
    assert jaxpr(jax, jnp.round, F32) == (
        "{ lambda ; a:f32[6]. let\n"
        "    b:f32[6] = jit[\n"
        "      name=round\n"
        "      jaxpr={ lambda ; a:f32[6]. let\n"
        "          b:f32[6] = round[rounding_method=1] a\n"
        "        in (b,) }\n"
        "    ] a\n"
        "  in (b,) }")
    assert jaxpr(jax, jnp.rint, I32) == (
        "{ lambda ; a:i32[6]. let\n"
        "    b:f32[6] = jit[\n"
        "      name=rint\n"
        "      jaxpr={ lambda ; a:i32[6]. let\n"
        "          b:f32[6] = convert_element_type[new_dtype=float32 weak_type=False] a\n"
        "        in (b,) }\n"
        "    ] a\n"
        "  in (b,) }")


# ---------------------------------------------------------------------------
# NP-18: power
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-18")
def test_power(jnp):
    a = np.array([2, 3, -2, 0, 1, -1], np.int32)
    b = np.array([3, 2, 3, 0, -5, -3], np.int32)
    assert jnp.power(a, b).tolist() == [8, 9, -8, 1, 1, -1]
    assert kind(jnp.power(a, b)) == "int32"
    assert jnp.power(np.int32(2), np.array([-1, 31], np.int32)).tolist() == [0, -2 ** 31]
    assert jnp.power(jnp.array([True, False]), 2).tolist() == [1, 0]
    assert kind(jnp.power(jnp.array([True, False]), 2)) == "int32"
    close(jnp.power(F32, 2), F32.astype(np.float64) ** 2)
    close(jnp.power(np.abs(F32), 0.5), np.abs(F32) ** 0.5)
    with np.errstate(divide="ignore"):
        close(jnp.power(F32, a), F32.astype(np.float64) ** a)
    assert kind(jnp.power(F32, a)) == "float32"
    assert kind(jnp.power(a, 0.5)) == "~float32"
    assert kind(jnp.power(3, 2)) == "~int32"
    with pytest.raises(TypeError, match=r"Integers cannot be raised to negative powers, got "
                                        r"integer_pow\(int32\[6\], -2\)"):
        jnp.power(a, -2)
    close(jnp.float_power(a, 2), a.astype(np.float64) ** 2)
    assert kind(jnp.float_power(a, 2)) == "float32"


@pytest.mark.spec("NP-18")
def test_power_jaxpr_int_exponent_array(jax, jnp):
    # The promoted exponent is computed, unused (``_``), and not passed to pow.
    assert jaxpr(jax, jnp.power, F32, I32) == (
        "{ lambda ; a:f32[6] b:i32[6]. let\n"
        "    _:f32[6] = convert_element_type[new_dtype=float32 weak_type=False] b\n"
        "    c:f32[6] = pow a b\n"
        "  in (c,) }")


# ---------------------------------------------------------------------------
# NP-19: comparisons and logic
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-19")
def test_comparisons(jnp):
    x, y = F32, F32[::-1].copy()
    for name in ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]:
        got = getattr(jnp, name)(x, y)
        assert kind(got) == "bool"
        np.testing.assert_array_equal(got, getattr(np, name)(x, y))
    assert kind(jnp.less(1, 2)) == "~bool"
    nan = jnp.array([np.nan, 1.0])
    assert (nan == nan).tolist() == [False, True]
    assert (nan != nan).tolist() == [True, False]


@pytest.mark.spec("NP-19")
def test_complex_comparisons_are_lexicographic(jnp):
    a = jnp.array([1 + 5j, 2 + 1j, 2 + 3j])
    b = jnp.array([2 + 0j, 2 + 2j, 2 + 3j])
    assert jnp.less(a, b).tolist() == [True, True, False]
    assert jnp.less_equal(a, b).tolist() == [True, True, True]
    assert jnp.greater(a, b).tolist() == [False, False, False]


@pytest.mark.spec("NP-19")
def test_logical_functions(jax, jnp):
    a = np.array([0.0, 2.0, -1.0, 0.0], np.float32)
    b = np.array([0, 0, 3, 4], np.int32)
    np.testing.assert_array_equal(jnp.logical_and(a, b), np.logical_and(a, b))
    np.testing.assert_array_equal(jnp.logical_or(a, b), np.logical_or(a, b))
    np.testing.assert_array_equal(jnp.logical_xor(a, b), np.logical_xor(a, b))
    np.testing.assert_array_equal(jnp.logical_not(a), np.logical_not(a))
    assert jaxpr(jax, jnp.logical_not, I32) == (
        "{ lambda ; a:i32[6]. let b:bool[6] = ne a 0:i32[]; c:bool[6] = not b in (c,) }")


# ---------------------------------------------------------------------------
# NP-20: bitwise functions and shifts
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-20")
def test_bitwise(jnp):
    a = np.array([12, -7, 0, 255], np.int32)
    b = np.array([10, 3, -1, 15], np.int32)
    for name in ["bitwise_and", "bitwise_or", "bitwise_xor"]:
        np.testing.assert_array_equal(getattr(jnp, name)(a, b), getattr(np, name)(a, b))
    np.testing.assert_array_equal(jnp.invert(a), np.invert(a))
    np.testing.assert_array_equal(jnp.bitwise_not(a), np.invert(a))
    np.testing.assert_array_equal(jnp.bitwise_invert(a), np.invert(a))
    assert jnp.invert(jnp.array([True, False])).tolist() == [False, True]
    assert jnp.invert(jnp.array([1, 254], jnp.uint8)).tolist() == [254, 1]
    with pytest.raises(TypeError, match=r"and does not accept dtype float32 at position 0\. "
                                        r"Accepted dtypes at position 0 are subtypes of "
                                        r"integer, bool\."):
        jnp.bitwise_and(jnp.ones(2), 1)


@pytest.mark.spec("NP-20")
def test_shifts(jnp):
    a = np.array([1, -8, 8, 3], np.int32)
    assert jnp.left_shift(a, 2).tolist() == (a << 2).tolist()
    assert jnp.right_shift(a, 1).tolist() == (a >> 1).tolist()
    assert jnp.left_shift(np.int32(1), np.array([31, 32, 40])).tolist() == [-2 ** 31, 0, 0]
    assert jnp.right_shift(np.int32(-8), 40).tolist() == -1
    assert jnp.right_shift(np.int32(8), 40).tolist() == 0
    u = np.array([200, 128], np.uint8)
    assert jnp.right_shift(u, np.uint8(1)).tolist() == [100, 64]   # logical
    assert kind(jnp.left_shift(jnp.array([True]), 1)) == "~int32"
    assert kind(jnp.left_shift(jnp.array([True]), np.int8(1))) == "int8"
    assert kind(jnp.left_shift(jnp.array([True]), jnp.array([True]))) == "int32"
    assert jnp.bitwise_left_shift(a, 1).tolist() == (a << 1).tolist()
    assert jnp.bitwise_right_shift(a, 1).tolist() == (a >> 1).tolist()


@pytest.mark.spec("NP-20")
def test_bitwise_count(jnp):
    got = jnp.bitwise_count(np.array([-1, 7, 0, -8], np.int8))
    assert kind(got) == "uint8"
    assert got.tolist() == [1, 3, 0, 1]
    assert jnp.bitwise_count(np.array([255], np.uint8)).tolist() == [8]


# ---------------------------------------------------------------------------
# NP-21: floating-point classification
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-21")
def test_classification(jnp):
    x = np.array([1.0, np.nan, np.inf, -np.inf, -0.0, 0.0], np.float32)
    for name in ["isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit"]:
        got = getattr(jnp, name)(x)
        assert kind(got) == "bool"
        np.testing.assert_array_equal(got, getattr(np, name)(x), err_msg=name)
    i = np.array([-1, 0, 3], np.int32)
    assert jnp.isnan(i).tolist() == [False] * 3
    assert jnp.isinf(i).tolist() == [False] * 3
    assert jnp.isfinite(i).tolist() == [True] * 3
    assert jnp.signbit(i).tolist() == [True, False, False]
    assert jnp.signbit(np.array([True])).tolist() == [False]
    z = np.array([1 + 1j, complex(np.inf, 0), complex(0, np.nan)], np.complex64)
    assert jnp.isinf(z).tolist() == [False, True, False]
    assert jnp.isfinite(z).tolist() == [True, False, False]
    with pytest.raises(ValueError, match="isposinf/isneginf are not well defined for complex"):
        jnp.isposinf(z)
    with pytest.raises(ValueError, match="jax.numpy.signbit is not well defined for complex64"):
        jnp.signbit(z)


@pytest.mark.spec("NP-21")
def test_classification_jaxprs(jax, jnp):
    assert jaxpr(jax, jnp.isinf, F32) == (
        "{ lambda ; a:f32[6]. let\n"
        "    b:bool[6] = jit[\n"
        "      name=isinf\n"
        "      jaxpr={ lambda ; a:f32[6]. let\n"
        "          c:f32[6] = abs a\n"
        "          b:bool[6] = eq c inf:f32[]\n"
        "        in (b,) }\n"
        "    ] a\n"
        "  in (b,) }")
    assert jaxpr(jax, jnp.isnan, F32) == (
        "{ lambda ; a:f32[6]. let b:bool[6] = ne a a in (b,) }")
    assert jaxpr(jax, jnp.signbit, F32) == (
        "{ lambda ; a:f32[6]. let\n"
        "    b:bool[6] = jit[\n"
        "      name=signbit\n"
        "      jaxpr={ lambda ; a:f32[6]. let\n"
        "          c:i32[6] = bitcast_convert_type[new_dtype=int32] a\n"
        "          d:i32[6] = shift_right_arithmetic c 31:i32[]\n"
        "          b:bool[6] = convert_element_type[new_dtype=bool weak_type=False] d\n"
        "        in (b,) }\n"
        "    ] a\n"
        "  in (b,) }")


# ---------------------------------------------------------------------------
# NP-22: complex parts
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-22")
def test_complex_parts(jnp):
    z = np.array([1 + 2j, -3 - 0.5j, 0j], np.complex64)
    assert kind(jnp.real(z)) == "float32" and jnp.real(z).tolist() == [1.0, -3.0, 0.0]
    assert jnp.imag(z).tolist() == [2.0, -0.5, 0.0]
    np.testing.assert_array_equal(jnp.conj(z), np.conj(z))
    np.testing.assert_array_equal(jnp.conjugate(z), np.conj(z))
    close(jnp.angle(z), np.angle(z))
    close(jnp.angle(z, deg=True), np.angle(z, deg=True), rtol=1e-5)
    assert jnp.iscomplex(np.array([1 + 1j, 2 + 0j])).tolist() == [True, False]
    assert jnp.isreal(np.array([1 + 1j, 2 + 0j])).tolist() == [False, True]
    assert jnp.iscomplexobj(z) and not jnp.iscomplexobj(F32)
    assert jnp.isrealobj(F32) and jnp.iscomplexobj(1j)


@pytest.mark.spec("NP-22")
def test_complex_parts_of_real_input(jnp):
    i = np.array([-1, 2], np.int8)
    assert kind(jnp.real(i)) == "int8" and kind(jnp.imag(i)) == "int8"
    assert jnp.imag(i).tolist() == [0, 0]
    assert kind(jnp.imag(2.0)) == "~float32"
    assert kind(jnp.conj(i)) == "int8"
    assert kind(jnp.angle(i)) == "float32"
    assert jnp.angle(i).tolist() == pytest.approx([math.pi, 0.0])
    assert kind(jnp.angle(np.float16(-1))) == "float32"
    assert kind(jnp.angle(np.array([-1.0], np.float16))) == "float16"


# ---------------------------------------------------------------------------
# NP-23: maximum, minimum, fmax, fmin, clip
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-23")
def test_extrema_and_nan(jnp):
    a = np.array([1.0, np.nan, 3.0, np.nan], np.float32)
    b = np.array([2.0, 2.0, np.nan, np.nan], np.float32)
    for name in ["maximum", "minimum", "fmax", "fmin"]:
        np.testing.assert_array_equal(getattr(jnp, name)(a, b), getattr(np, name)(a, b))
    assert kind(jnp.maximum(jnp.ones(2, jnp.int8), 3)) == "int8"


@pytest.mark.spec("NP-23")
def test_clip(jax, jnp):
    x = np.array([-3.0, 0.5, 2.0, np.nan, 7.0], np.float32)
    np.testing.assert_array_equal(jnp.clip(x, 0, 2), np.clip(x, 0, 2))
    np.testing.assert_array_equal(jnp.clip(x, min=0), np.clip(x, 0, None))
    np.testing.assert_array_equal(jnp.clip(x, max=1), np.clip(x, None, 1))
    np.testing.assert_array_equal(jnp.clip(x), x)
    np.testing.assert_array_equal(jnp.clip(x, np.array([0, 1, 2, 3, 4], np.float32), 3),
                                  np.clip(x, np.array([0, 1, 2, 3, 4]), 3))
    got = jnp.clip(np.array([1, 5, 9], np.int32), 2.5, 7.5)
    assert kind(got) == "~float32" and got.tolist() == [2.5, 5.0, 7.5]
    assert kind(jnp.clip(np.array([1, 5], np.int32), 2, 3)) == "int32"
    with pytest.raises(ValueError, match="Clip received a complex value"):
        jnp.clip(jnp.ones(2) + 1j, 0, 1)
    with pytest.raises(ValueError, match="No input was provided to the clip function."):
        jnp.clip()
    with pytest.raises(TypeError):
        jnp.clip(x, a_min=1)
    assert jaxpr(jax, lambda x: jnp.clip(x, 0, 2), F32) == (
        "{ lambda ; a:f32[6]. let\n"
        "    b:f32[6] = jit[\n"
        "      name=clip\n"
        "      jaxpr={ lambda ; a:f32[6] c:i32[] d:i32[]. let\n"
        "          e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c\n"
        "          f:f32[6] = max e a\n"
        "          g:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d\n"
        "          b:f32[6] = min g f\n"
        "        in (b,) }\n"
        "    ] a 0:i32[] 2:i32[]\n"
        "  in (b,) }")


# ---------------------------------------------------------------------------
# NP-24: abs, sign, negative, positive
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-24")
def test_abs_sign_negative(jax, jnp):
    np.testing.assert_array_equal(jnp.abs(I32), np.abs(I32))
    np.testing.assert_array_equal(jnp.absolute(F32), np.abs(F32))
    np.testing.assert_array_equal(jnp.sign(F32), np.sign(F32))
    np.testing.assert_array_equal(jnp.sign(I32), np.sign(I32))
    np.testing.assert_array_equal(jnp.negative(I32), -I32)
    np.testing.assert_array_equal(jnp.positive(F32), F32)
    z = np.array([3 + 4j, -1j], np.complex64)
    assert kind(jnp.abs(z)) == "float32" and jnp.abs(z).tolist() == [5.0, 1.0]
    close(jnp.sign(z), [0.6 + 0.8j, -1j])
    u = np.array([1, 200], np.uint8)
    assert jnp.negative(u).tolist() == [255, 56]
    assert jnp.abs(u).tolist() == [1, 200]
    assert jnp.abs(np.array([True])).tolist() == [True]
    assert kind(jnp.fabs(I32)) == "float32"
    with pytest.raises(TypeError, match="ufunc 'fabs' does not support complex dtypes"):
        jnp.fabs(z)
    with pytest.raises(TypeError, match="neg does not accept dtype bool"):
        jnp.negative(jnp.array([True]))
    with pytest.raises(TypeError, match="sign does not accept dtype bool"):
        jnp.sign(jnp.array([True]))
    assert jaxpr(jax, jnp.abs, np.array([1], np.uint8)) == (
        "{ lambda ; a:u8[1]. let  in (a,) }")


# ---------------------------------------------------------------------------
# NP-25: floating-point decomposition and special functions
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-25")
def test_frexp_ldexp_modf(jnp):
    x = np.array([0.0, 1.0, -3.0, 0.375, 1e30, np.inf, np.nan], np.float32)
    m, e = jnp.frexp(x)
    wm, we = np.frexp(x)
    np.testing.assert_array_equal(m, wm)
    assert kind(e) == "int32"
    np.testing.assert_array_equal(e, we)
    n = np.array([3, -2, 5, 0, 1, 2, 0], np.int32)
    np.testing.assert_array_equal(jnp.ldexp(x, n), np.ldexp(x, n))
    with pytest.raises(ValueError, match="ldexp not supported for input types"):
        jnp.ldexp(x, 1.5)
    frac, whole = jnp.modf(np.array([-2.5, 2.25, -0.0], np.float32))
    assert frac.tolist() == [-0.5, 0.25, -0.0] and whole.tolist() == [-2.0, 2.0, -0.0]
    with pytest.raises(TypeError, match="frexp does not support complex-valued inputs"):
        jnp.frexp(jnp.ones(2) + 1j)


@pytest.mark.spec("NP-25")
def test_sign_and_neighbours(jnp):
    a = np.array([1.0, -2.0, 3.0], np.float32)
    b = np.array([-0.0, 0.0, -5.0], np.float32)
    np.testing.assert_array_equal(jnp.copysign(a, b), np.copysign(a, b))
    np.testing.assert_array_equal(jnp.nextafter(a, b), np.nextafter(a, b))
    s = np.array([1.0, -1.0, 1e30], np.float32)
    np.testing.assert_array_equal(jnp.spacing(s), np.spacing(s))
    with pytest.raises(TypeError, match="copysign does not support complex-valued inputs"):
        jnp.copysign(jnp.ones(1) + 1j, 1.0)


@pytest.mark.spec("NP-25")
def test_special_functions(jnp):
    x = np.array([-1.0, 0.0, 2.0, np.nan], np.float32)
    np.testing.assert_array_equal(jnp.heaviside(x, 0.5), np.heaviside(x, 0.5))
    a = np.array([3.0, 1e30, np.inf, 0.0], np.float32)
    b = np.array([4.0, 1e30, np.nan, 0.0], np.float32)
    close(jnp.hypot(a, b), [5.0, np.hypot(1e30, 1e30), np.inf, 0.0], rtol=1e-6)
    with pytest.raises(ValueError, match="jnp.hypot is not well defined for complex-valued"):
        jnp.hypot(jnp.ones(1) + 1j, 1.0)
    s = np.array([0.0, 0.5, 1.0, -1.5], np.float32)
    close(jnp.sinc(s), np.sinc(s.astype(np.float64)), rtol=1e-5)
    v = np.array([np.nan, np.inf, -np.inf, 1.0], np.float32)
    f = np.finfo(np.float32)
    assert jnp.nan_to_num(v).tolist() == [0.0, float(f.max), float(f.min), 1.0]
    assert jnp.nan_to_num(v, nan=1.0, posinf=2.0, neginf=-2.0).tolist() == [1.0, 2.0, -2.0, 1.0]
    assert jnp.nan_to_num(I32).tolist() == I32.tolist()


@pytest.mark.spec("NP-25")
def test_logaddexp(jnp):
    a = np.array([1.0, -3.0, 100.0, np.inf, -np.inf, np.inf], np.float32)
    b = np.array([2.0, 0.5, 100.0, np.inf, -np.inf, -np.inf], np.float32)
    np.testing.assert_allclose(jnp.logaddexp(a, b), np.logaddexp(a, b), rtol=1e-6)
    np.testing.assert_allclose(jnp.logaddexp2(a, b), np.logaddexp2(a, b), rtol=1e-6)
    assert kind(jnp.logaddexp(1, 2)) == "~float32"


# ---------------------------------------------------------------------------
# NP-26: gcd and lcm
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-26")
def test_gcd_lcm(jnp):
    a = np.array([12, -18, 0, 0, 7], np.int32)
    b = np.array([8, 12, 5, 0, -21], np.int32)
    np.testing.assert_array_equal(jnp.gcd(a, b), np.gcd(a, b))
    np.testing.assert_array_equal(jnp.lcm(a, b), np.lcm(a, b))
    assert kind(jnp.gcd(np.array([4], np.uint8), np.array([6], np.int8))) == "int16"
    assert jnp.gcd(a, 6).tolist() == np.gcd(a, 6).tolist()
    with pytest.raises(ValueError, match="Arguments to jax.numpy.gcd must be integers."):
        jnp.gcd(1.0, 2)
    with pytest.raises(ValueError, match="Arguments to jax.numpy.lcm must be integers."):
        jnp.lcm(np.array([True]), np.array([True]))


# ---------------------------------------------------------------------------
# NP-27: how jnp functions are staged
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-27")
def test_inline_functions_leave_no_jit_equation(jax, jnp):
    assert jaxpr(jax, lambda x: jnp.sin(x) + 1, F32) == (
        "{ lambda ; a:f32[6]. let b:f32[6] = sin a; c:f32[6] = add b 1.0:f32[] in (c,) }")
    assert jaxpr(jax, lambda x, y: jnp.maximum(x, y), F32, I32) == (
        "{ lambda ; a:f32[6] b:i32[6]. let\n"
        "    c:f32[6] = convert_element_type[new_dtype=float32 weak_type=False] b\n"
        "    d:f32[6] = max a c\n"
        "  in (d,) }")


@pytest.mark.spec("NP-27")
@pytest.mark.parametrize("name", ["floor_divide", "remainder", "fmod", "rint", "round",
                                  "around", "trunc", "isinf", "signbit", "copysign",
                                  "heaviside", "hypot", "fmax", "fmin", "arccosh",
                                  "nan_to_num", "modf", "iscomplex", "isreal", "angle",
                                  "sinc", "clip", "frexp"])
def test_jitted_functions_appear_by_name(jax, jnp, name):
    fn = getattr(jnp, name)
    binary = name in ("floor_divide", "remainder", "fmod", "copysign", "heaviside",
                      "hypot", "fmax", "fmin")
    args = (F32, F32) if binary else (F32,)
    text = jaxpr(jax, fn, *args)
    assert text.count(f"name={name}") >= 1 or text.count(f"jaxpr={name}") >= 1


@pytest.mark.spec("NP-27")
def test_python_scalars_are_literal_arguments_of_a_jit(jax, jnp):
    assert jaxpr(jax, lambda x: jnp.fmod(x, 3), I32) == (
        "{ lambda ; a:i32[6]. let\n"
        "    b:i32[6] = jit[\n"
        "      name=fmod\n"
        "      jaxpr={ lambda ; a:i32[6] c:i32[]. let\n"
        "          d:bool[] = eq c 0:i32[]\n"
        "          e:i32[] = jit[\n"
        "            name=_where\n"
        "            jaxpr={ lambda ; d:bool[] f:i32[] c:i32[]. let\n"
        "                e:i32[] = select_n d c f\n"
        "              in (e,) }\n"
        "          ] d 1:i32[] c\n"
        "          g:i32[] = convert_element_type[new_dtype=int32 weak_type=False] e\n"
        "          b:i32[6] = rem a g\n"
        "        in (b,) }\n"
        "    ] a 3:i32[]\n"
        "  in (b,) }")


# ---------------------------------------------------------------------------
# NP-29: boolean arithmetic
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-29")
def test_boolean_arithmetic(jnp):
    a = jnp.array([True, True, False, False])
    b = jnp.array([True, False, True, False])
    assert kind(a + b) == "bool" and (a + b).tolist() == [True, True, True, False]
    assert kind(a * b) == "bool" and (a * b).tolist() == [True, False, False, False]
    with pytest.raises(TypeError, match="sub does not accept dtype bool at position 0"):
        a - b
    with pytest.raises(TypeError, match="neg does not accept dtype bool"):
        -a
    assert kind(jnp.sum(a)) == "int32" and int(jnp.sum(a)) == 2
    assert kind(jnp.exp(a)) == "float32"


# ---------------------------------------------------------------------------
# NP-3: ufunc objects
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-3")
def test_ufunc_objects(jax, jnp):
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    assert repr(jnp.add) == "<jnp.ufunc 'add'>"
    assert isinstance(jnp.multiply, jnp.ufunc)
    assert (jnp.add.nin, jnp.add.nout, jnp.add.identity) == (2, 1, 0)
    assert (jnp.negative.nin, jnp.subtract.identity, jnp.logical_and.identity) == (1, None, True)
    assert jnp.add.reduce(x).tolist() == [5, 7, 9]            # axis 0 by default
    assert int(jnp.add.reduce(x, axis=None)) == 21
    assert jnp.multiply.reduce(x, axis=1).tolist() == [6, 120]
    assert jnp.subtract.reduce(x, axis=1).tolist() == [-4, -7]
    assert jnp.maximum.reduce(x, axis=1).tolist() == [3, 6]
    assert jnp.bitwise_or.reduce(x, axis=1).tolist() == [3, 7]
    assert jnp.add.accumulate(x, axis=1).tolist() == np.add.accumulate(x, axis=1).tolist()
    assert jnp.subtract.accumulate(x[0]).tolist() == [1, -1, -4]
    assert jnp.multiply.outer(np.arange(3), np.arange(1, 3)).tolist() == [[0, 0], [1, 2], [2, 4]]
    close(jnp.logaddexp.reduce(np.array([1.0, 2.0, 3.0], np.float32)),
          np.logaddexp.reduce([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="zero-size array to reduction operation subtract "
                                         "which has no identity"):
        jnp.subtract.reduce(np.zeros((0,), np.float32))
    with pytest.raises(ValueError, match="reduce only supported for binary ufuncs"):
        jnp.negative.reduce(x)
    with pytest.raises(NotImplementedError, match="out argument of <jnp.ufunc 'add'>"):
        jnp.add(x, x, out=x)
    f = jnp.frompyfunc(lambda a, b: a * b + 1, nin=2, nout=1)
    assert int(f.reduce(np.arange(4))) == 10
    assert jaxpr(jax, jnp.add.reduce, x) == (
        "{ lambda ; a:i32[2,3]. let\n"
        "    b:i32[3] = jit[\n"
        "      name=reduce\n"
        "      jaxpr={ lambda ; a:i32[2,3]. let\n"
        "          b:i32[3] = reduce_sum[axes=(0,) out_sharding=None] a\n"
        "        in (b,) }\n"
        "    ] a\n"
        "  in (b,) }")
