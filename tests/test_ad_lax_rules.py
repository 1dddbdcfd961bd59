"""The differentiation rules of the primitives of ``refjax._src.lax``
(``lax.py`` and its sibling modules ``shapes``, ``reductions``, ``dot``,
``sorting``).

Each rule is checked three ways:

* its JVP against central finite differences in float64 (``ad.jvp_flat``);
* its transpose with the dot-product test ``<T(ct), t> == <ct, L(t)>`` on
  the linear jaxpr of ``ad.linearize_flat``, transposed by
  ``ad.backward_pass`` (the pairing is ``Re sum(a * b)``: JAX's transposes
  are not conjugated, SPEC AD-27);
* selected values (ties, zeros, poles, infinities) against real JAX.
"""
import jax as real_jax
import jax.numpy as real_jnp
import numpy as np
import pytest

import refjax
import refjax.numpy as jnp
from refjax import lax
from refjax._src.interpreters import ad
from refjax._src import core


@pytest.fixture(autouse=True)
def x64():
    """float64 on both implementations, restored afterwards."""
    old, old_real = refjax.config.jax_enable_x64, real_jax.config.jax_enable_x64
    refjax.config.update("jax_enable_x64", True)
    real_jax.config.update("jax_enable_x64", True)
    yield
    refjax.config.update("jax_enable_x64", old)
    real_jax.config.update("jax_enable_x64", old_real)


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

def _like(x, seed):
    """A random tangent or cotangent for ``x`` (float0 zeros for integers)."""
    x = np.asarray(x)
    rng = np.random.RandomState(seed)
    if x.dtype.kind in "iub":
        return np.zeros(x.shape, refjax.dtypes.float0)
    v = rng.uniform(-1, 1, x.shape)
    if x.dtype.kind == "c":
        v = v + 1j * rng.uniform(-1, 1, x.shape)
    return v.astype(x.dtype)


def _flat(f):
    """``f`` as a function of flat arguments returning a flat list."""
    def flat(*xs):
        return refjax.tree_util.tree_leaves(f(*xs))
    return flat


def _pairing(a, b):
    """``Re sum(a * b)`` over lists of arrays."""
    return sum(float(np.real(np.sum(np.asarray(x) * np.asarray(y)))) for x, y in zip(a, b))


def _numeric_jvp(f, args, tangents, eps=1e-6):
    """Central differences of ``f`` along ``tangents`` (inexact args only)."""
    def at(sign):
        moved = [a + sign * eps * t if np.asarray(a).dtype.kind in "fc" else a
                 for a, t in zip(args, tangents)]
        return [np.asarray(o) for o in f(*moved)]
    return [(p - m) / (2 * eps) if p.dtype.kind in "fc" else None
            for p, m in zip(at(1), at(-1))]


def check_jvp(f, args, rtol=1e-6, atol=1e-8, eps=1e-6):
    """The JVP rule's tangents match central finite differences."""
    f = _flat(f)
    tangents = [_like(a, i) for i, a in enumerate(args)]
    tangents_in = [ad.Zero.from_primal_value(a) if np.asarray(a).dtype.kind in "iub"
                   else t for a, t in zip(args, tangents)]
    outs, touts = ad.jvp_flat(f, list(args), tangents_in)
    expected = _numeric_jvp(f, args, tangents, eps)
    for o, t, e in zip(outs, touts, expected):
        t = np.asarray(ad.instantiate_zeros(t))
        assert t.shape == np.shape(o)
        if np.asarray(o).dtype.kind in "iub":
            assert t.dtype == refjax.dtypes.float0
        else:
            np.testing.assert_allclose(t, e, rtol=rtol, atol=atol)


def check_transpose(f, args, rtol=1e-9):
    """``<T(ct), t> == <ct, L(t)>`` for the linearization of ``f`` at
    ``args``, and each cotangent has its input's type."""
    outs, lin, in_linear, out_zero = ad.linearize_flat(_flat(f), list(args))
    tangents = [_like(a, i) for i, (a, lin_) in enumerate(zip(args, in_linear)) if lin_]
    lt = core.eval_jaxpr(lin.jaxpr, lin.consts, *tangents)
    cts = [_like(o, 10 + i) for i, o in enumerate(lt)]
    undefined = [ad.UndefinedPrimal(v.aval) for v in lin.jaxpr.invars]
    ct_in = [ad.instantiate_zeros(c)
             for c in ad.backward_pass(lin.jaxpr, lin.consts, undefined, cts)]
    for c, t in zip(ct_in, tangents):
        assert (np.shape(c), np.asarray(c).dtype) == (t.shape, t.dtype)
    lhs, rhs = _pairing(ct_in, tangents), _pairing(cts, lt)
    assert abs(lhs - rhs) <= rtol * (1 + abs(rhs)), (lhs, rhs)


rng = np.random.RandomState(0)


def f64(*shape, lo=-1.5, hi=1.5):
    return rng.uniform(lo, hi, shape)


def c128(*shape):
    return rng.uniform(-1.5, 1.5, shape) + 1j * rng.uniform(-1.5, 1.5, shape)


def pos(*shape):
    return rng.uniform(0.3, 2.0, shape)


def _unary(name):
    return lambda x: getattr(lax, name)(x)


# ---------------------------------------------------------------------------
# Elementwise primitives (SPEC AD-20, AD-27)
# ---------------------------------------------------------------------------

UNARY = [
    (op, dom) for op, dom in [
        ("neg", f64), ("exp", f64), ("exp2", f64), ("tanh", f64),
        ("logistic", f64), ("sin", f64), ("cos", f64), ("sinh", f64),
        ("cosh", f64), ("asinh", f64), ("atan", f64), ("square", f64),
        ("log", pos), ("sqrt", pos), ("rsqrt", pos), ("log1p", pos),
        ("expm1", f64), ("cbrt", pos), ("lgamma", pos), ("digamma", pos),
        ("erf", f64), ("erfc", f64), ("abs", f64),
        ("tan", lambda *s: f64(*s, lo=-1, hi=1)),
        ("asin", lambda *s: f64(*s, lo=-0.9, hi=0.9)),
        ("acos", lambda *s: f64(*s, lo=-0.9, hi=0.9)),
        ("atanh", lambda *s: f64(*s, lo=-0.9, hi=0.9)),
        ("erf_inv", lambda *s: f64(*s, lo=-0.9, hi=0.9)),
        ("acosh", lambda *s: f64(*s, lo=1.2, hi=3.0)),
    ]]

COMPLEX_UNARY = ["neg", "exp", "tanh", "sin", "cos", "sinh", "cosh", "log",
                 "sqrt", "rsqrt", "log1p", "expm1", "square", "tan", "abs",
                 "real", "imag", "conj", "logistic", "exp2"]


@pytest.mark.spec("AD-20")
@pytest.mark.parametrize("op,domain", UNARY, ids=[u[0] for u in UNARY])
def test_unary_rules(op, domain):
    x = domain(2, 3)
    check_jvp(_unary(op), [x])
    check_transpose(_unary(op), [x])


@pytest.mark.spec("AD-27")
@pytest.mark.parametrize("op", COMPLEX_UNARY)
def test_complex_unary_rules(op):
    z = c128(4)
    check_jvp(_unary(op), [z])
    check_transpose(_unary(op), [z])


@pytest.mark.spec("AD-20")
@pytest.mark.parametrize("k", [-3, -1, 0, 1, 2, 3, 7])
def test_integer_pow_rules(k):
    x = pos(3) * np.array([1, -1, 1])
    check_jvp(lambda x: lax.integer_pow(x, k), [x])
    check_transpose(lambda x: lax.integer_pow(x, k), [x])


BINARY = ["add", "sub", "mul", "div", "max", "min", "atan2", "rem", "pow"]
SHAPES = {"same": ((2, 3), (2, 3)), "scalar-lhs": ((), (2, 3)),
          "scalar-rhs": ((2, 3), ()), "unit-axes": ((1, 3), (2, 1))}


@pytest.mark.spec("AD-20")
@pytest.mark.parametrize("shapes", list(SHAPES), ids=list(SHAPES))
@pytest.mark.parametrize("op", BINARY)
def test_binary_rules(op, shapes):
    sx, sy = SHAPES[shapes]
    x, y = (pos(*sx), pos(*sy)) if op == "pow" else (f64(*sx), f64(*sy))
    check_jvp(getattr(lax, op), [x, y])
    check_transpose(getattr(lax, op), [x, y])


@pytest.mark.spec("AD-27")
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "pow"])
def test_complex_binary_rules(op):
    check_jvp(getattr(lax, op), [c128(3), c128(3)])
    check_transpose(getattr(lax, op), [c128(3), c128(3)])


@pytest.mark.spec("AD-27")
def test_complex_and_conversion_rules():
    cases = [
        (lax.complex, [f64(2, 3), f64(2, 3)]),
        (lax.complex, [f64(2, 3), np.float64(0.5)]),
        (lax.conj, [f64(3)]),
        (lambda x: lax.convert_element_type(x, np.complex128), [f64(3)]),
        (lambda z: lax.convert_element_type(z, np.float64), [c128(3)]),
    ]
    for f, args in cases:
        check_jvp(f, args)
        check_transpose(f, args)
    # float32 results: a linear map, so a large step is exact up to rounding.
    to_f32 = lambda x: lax.convert_element_type(x, np.float32)  # noqa: E731
    check_jvp(to_f32, [f64(3)], rtol=1e-4, eps=1e-2)
    check_transpose(to_f32, [f64(3)], rtol=1e-6)


@pytest.mark.spec("AD-20")
def test_pow_with_integer_exponent():
    y = np.array([0, 1, 2, 3], np.int32)
    check_jvp(lambda x: lax.pow(x, y), [f64(4)])
    check_transpose(lambda x: lax.pow(x, y), [f64(4)])
    check_jvp(lambda x: lax.pow(x, np.int32(3)), [f64(2, 2)])


@pytest.mark.spec("AD-21")
def test_select_n_and_clamp_rules():
    which_bool = np.array([True, False, True])
    which_int = np.array([0, 2, 1, 2], np.int32)
    cases = [
        (lambda a, b: lax.select_n(which_bool, a, b), [f64(3), f64(3)]),
        (lambda a, b, c: lax.select_n(which_int, a, b, c), [f64(4), f64(4), f64(4)]),
        (lambda a, b: lax.select_n(np.bool_(True), a, b), [f64(3), f64(3)]),
        (lax.clamp, [np.full(4, -0.5), f64(4, lo=-2, hi=2), np.full(4, 0.5)]),
        (lambda lo, x: lax.clamp(lo, x, 2.0), [np.float64(0.1), pos(4)]),
    ]
    for f, args in cases:
        check_jvp(f, args)
        check_transpose(f, args)


@pytest.mark.spec("AD-21")
def test_linear_elementwise_transposes_sum_broadcast_axes():
    # The cotangent of a broadcast operand is summed back to its shape.
    x, y = f64(1, 3), f64(2, 1)
    _, f_vjp = refjax.vjp(lax.add, x, y)
    cx, cy = f_vjp(np.ones((2, 3)))
    np.testing.assert_array_equal(cx, np.full((1, 3), 2.0))
    np.testing.assert_array_equal(cy, np.full((2, 1), 3.0))
    _, f_vjp = refjax.vjp(lambda a: lax.div(a, 4.0), np.float64(1.0))
    assert float(f_vjp(np.ones(()))[0]) == 0.25


# ---------------------------------------------------------------------------
# Shape primitives (SPEC AD-21)
# ---------------------------------------------------------------------------

SHAPE_CASES = {
    "broadcast_in_dim": (lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (0, 2)), [f64(2, 1)]),
    "broadcast_in_dim-scalar": (lambda x: lax.broadcast_in_dim(x, (2, 3), ()), [np.float64(1.5)]),
    "broadcast_in_dim-unit": (lambda x: lax.broadcast_in_dim(x, (1, 3), (0, 1)), [f64(1, 3)]),
    "reshape": (lambda x: lax.reshape(x, (3, 2)), [f64(2, 3)]),
    "reshape-dimensions": (lambda x: lax.reshape(x, (6, 4), (2, 0, 1)), [f64(2, 3, 4)]),
    "transpose": (lambda x: lax.transpose(x, (2, 0, 1)), [f64(2, 3, 4)]),
    "squeeze": (lambda x: lax.squeeze(x, (0, 2)), [f64(1, 3, 1)]),
    "expand_dims": (lambda x: lax.expand_dims(x, (0, 2)), [f64(3, 2)]),
    "rev": (lambda x: lax.rev(x, (0, 1)), [f64(2, 3)]),
    "concatenate": (lambda a, b: lax.concatenate([a, b, a], 1), [f64(2, 3), f64(2, 1)]),
    "split": (lambda x: lax.split(x, (1, 3, 0), 1), [f64(2, 4)]),
    "stack": (lambda a, b: lax.stack([a, b], 1), [f64(2, 3), f64(2, 3)]),
    "tile": (lambda x: lax.tile(x, (2, 3)), [f64(2, 2)]),
    "pad": (lambda x, v: lax.pad(x, v, ((1, 2, 1), (-1, 0, 0))), [f64(3, 4), np.float64(0.5)]),
    "pad-negative": (lambda x, v: lax.pad(x, v, ((0, -2, 1), (2, -1, 2))),
                     [f64(3, 3), np.float64(0.5)]),
    "pad-scalar": (lambda x, v: lax.pad(x, v, ()), [np.float64(2.0), np.float64(0.5)]),
    "slice": (lambda x: lax.slice(x, (1, 0), (3, 4)), [f64(4, 5)]),
    "slice-strided": (lambda x: lax.slice(x, (1, 0), (4, 5), (2, 3)), [f64(4, 5)]),
    "slice-empty": (lambda x: lax.slice(x, (1, 2), (1, 5), (2, 2)), [f64(4, 5)]),
    "copy": (lambda x: lax.copy_p.bind(x), [f64(3)]),
    "iota": (lambda x: x * lax.broadcasted_iota(np.float64, (2, 3), 1), [f64(2, 3)]),
    "reduce_sum": (lambda x: lax.reduce_sum(x, (0, 2)), [f64(2, 3, 4)]),
    "cumsum": (lambda x: lax.cumsum(x, 1), [f64(2, 4)]),
    "cumsum-reverse": (lambda x: lax.cumsum(x, 0, reverse=True), [f64(5)]),
}


@pytest.mark.spec("AD-21")
@pytest.mark.parametrize("name", list(SHAPE_CASES))
def test_shape_primitive_rules(name):
    f, args = SHAPE_CASES[name]
    check_jvp(f, args)
    check_transpose(f, args)


@pytest.mark.spec("AD-21")
def test_pad_transpose_sends_padding_cotangent_to_value():
    _, f_vjp = refjax.vjp(lambda x, v: lax.pad(x, v, ((1, 1, 1),)), f64(3), np.float64(0.0))
    cx, cv = f_vjp(np.arange(7.0))
    np.testing.assert_array_equal(cx, [1.0, 3.0, 5.0])
    assert float(cv) == 0.0 + 2.0 + 4.0 + 6.0


# ---------------------------------------------------------------------------
# Reductions (SPEC AD-22, AD-23)
# ---------------------------------------------------------------------------

REDUCTION_CASES = {
    "reduce_prod": (lambda x: lax.reduce_prod(x, (1,)), [f64(2, 5)]),
    "reduce_prod-all": (lambda x: lax.reduce_prod(x, (0, 1)), [f64(3, 3)]),
    "reduce_prod-complex": (lambda x: lax.reduce_prod(x, (0,)), [c128(3)]),
    "reduce_max": (lambda x: lax.reduce_max(x, (1,)), [f64(3, 4)]),
    "reduce_min": (lambda x: lax.reduce_min(x, (0,)), [f64(3, 4)]),
}
for _op in ["cumprod", "cummax", "cummin", "cumlogsumexp"]:
    for _n in (1, 2, 5, 8):
        REDUCTION_CASES[f"{_op}-{_n}"] = (
            lambda x, op=_op: getattr(lax, op)(x, 0), [f64(_n)])
    REDUCTION_CASES[f"{_op}-reverse"] = (
        lambda x, op=_op: getattr(lax, op)(x, 1, reverse=True), [f64(2, 7)])


@pytest.mark.spec("AD-22")
@pytest.mark.parametrize("name", list(REDUCTION_CASES))
def test_reduction_rules(name):
    f, args = REDUCTION_CASES[name]
    check_jvp(f, args)
    check_transpose(f, args)


# ---------------------------------------------------------------------------
# dot_general and sort (SPEC AD-24, AD-25)
# ---------------------------------------------------------------------------

DOT_CASES = {
    "matmul": ((((1,), (0,)), ((), ())), f64(2, 3), f64(3, 4)),
    "batch": ((((2, 1), (3, 1)), ((0,), (2,))), f64(2, 3, 4, 5), f64(5, 3, 2, 4)),
    "outer": ((((), ()), ((), ())), f64(2), f64(3)),
    "mixed-complex": ((((0,), (0,)), ((), ())), c128(3), f64(3)),
}


@pytest.mark.spec("AD-24")
@pytest.mark.parametrize("name", list(DOT_CASES))
def test_dot_general_rules(name):
    dims, a, b = DOT_CASES[name]
    f = lambda a, b: lax.dot_general(a, b, dims)  # noqa: E731
    check_jvp(f, [a, b])
    check_transpose(f, [a, b])


@pytest.mark.spec("AD-24")
def test_dot_general_preferred_element_type_cotangent_dtypes():
    a, b = f64(2, 3).astype(np.float32), f64(3, 2).astype(np.float32)
    f = lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ())),  # noqa: E731
                                     preferred_element_type=np.float64)
    out, f_vjp = refjax.vjp(f, a, b)
    assert out.dtype == np.float64
    ca, cb = f_vjp(np.ones((2, 2)))
    assert (ca.dtype, cb.dtype) == (np.float32, np.float32)
    np.testing.assert_allclose(ca, np.ones((2, 2)) @ b.T, rtol=1e-6)


SORT_CASES = {
    "one": (lambda x: lax.sort(x), [f64(6)]),
    "axis0": (lambda x: lax.sort(x, dimension=0), [f64(4, 3)]),
    # Keys apart by more than the finite-difference step (ties: see below).
    "key-value": (lambda k, v: lax.sort((k, v), num_keys=1),
                  [np.array([3.0, 1.0, 4.0, 2.0]), f64(4)]),
    "two-keys": (lambda a, b: lax.sort((a, b), num_keys=2),
                 [np.array([3.0, 1.0, 4.0, 2.0]), np.array([1.0, 5.0, 0.0, 2.0])]),
    "int-key": (lambda v: lax.sort((np.array([3, 1, 2], np.int32), v), num_keys=1), [f64(3)]),
}


@pytest.mark.spec("AD-25")
@pytest.mark.parametrize("name", list(SORT_CASES))
def test_sort_rules(name):
    f, args = SORT_CASES[name]
    check_jvp(f, args)
    check_transpose(f, args)


@pytest.mark.spec("AD-25")
def test_sort_is_not_linear_in_its_keys():
    with pytest.raises(NotImplementedError, match="Transpose rule .* for 'sort' not implemented"):
        refjax.linear_transpose(lax.sort, np.ones(3))(np.ones(3))


# ---------------------------------------------------------------------------
# Primitives without derivatives (SPEC AD-29)
# ---------------------------------------------------------------------------

ZERO_CASES = {
    "sign": lambda x: lax.sign(x), "floor": lambda x: lax.floor(x),
    "ceil": lambda x: lax.ceil(x), "round": lambda x: lax.round(x),
    "is_finite": lambda x: lax.is_finite(x), "lt": lambda x: lax.lt(x, 0.5),
    "eq": lambda x: lax.eq(x, x), "argmax": lambda x: lax.argmax(x, 0, np.int32),
    "argmin": lambda x: lax.argmin(x, 0, np.int32),
    "bitcast": lambda x: lax.bitcast_convert_type(x, np.int64),
    "to-int": lambda x: lax.convert_element_type(x, np.int32),
    "bitcast-float": lambda x: lax.bitcast_convert_type(x, np.float64),
}


@pytest.mark.spec("AD-29")
@pytest.mark.parametrize("name", list(ZERO_CASES))
def test_zero_derivative_primitives(name):
    x = f64(4)
    out, tangent = refjax.jvp(ZERO_CASES[name], (x,), (np.ones(4),))
    tangent = np.asarray(tangent)
    if np.asarray(out).dtype.kind in "fc":
        np.testing.assert_array_equal(tangent, np.zeros_like(tangent))
    else:
        assert tangent.dtype == refjax.dtypes.float0


@pytest.mark.spec("AD-29")
def test_integer_and_bitwise_primitives_have_zero_rules():
    prims = [lax.and_p, lax.or_p, lax.xor_p, lax.not_p, lax.shift_left_p,
             lax.shift_right_arithmetic_p, lax.shift_right_logical_p,
             lax.population_count_p, lax.clz_p, lax.reduce_and_p, lax.reduce_or_p,
             lax.reduce_xor_p, lax.eq_p, lax.ne_p, lax.le_p, lax.ge_p, lax.gt_p]
    assert all(p.jvp is not None for p in prims)
    i = np.array([5, 12], np.int32)
    _, tangent = refjax.jvp(lambda x: lax.bitwise_and(i, i) * x, (1.0,), (1.0,))
    assert tangent.tolist() == [5.0, 12.0]


@pytest.mark.spec("AD-29")
def test_nextafter_is_not_differentiable_as_in_jax():
    message = "Differentiation rule for 'nextafter' not implemented"
    for impl in (refjax, real_jax):
        with pytest.raises(NotImplementedError, match=message):
            impl.grad(lambda x: impl.lax.nextafter(x, 1.0))(0.0)


# ---------------------------------------------------------------------------
# Values against real JAX (SPEC AD-20, AD-22..AD-28)
# ---------------------------------------------------------------------------

def _both(build):
    """``build(jax_module, lax_module, numpy_module)`` on both implementations."""
    return build(refjax, lax, jnp), build(real_jax, real_jax.lax, real_jnp)


def _assert_same(ours, theirs, rtol=1e-12):
    ours_leaves = refjax.tree_util.tree_leaves(ours)
    theirs_leaves = real_jax.tree_util.tree_leaves(theirs)
    assert len(ours_leaves) == len(theirs_leaves)
    for a, b in zip(ours_leaves, theirs_leaves):
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=rtol, atol=0)


JAX_VALUE_CASES = {}


def jax_case(clause):
    """Register ``fn(jax, lax, jnp)``, run on both implementations, as a
    value test citing ``clause``."""
    def register(fn):
        JAX_VALUE_CASES[fn.__name__] = (clause, fn)
        return fn
    return register


@jax_case("AD-20")
def sqrt_rsqrt_cbrt_at_zero(jax, lax, jnp):
    return [jax.grad(f)(0.0) for f in (lax.sqrt, lax.rsqrt, lax.cbrt)]


@jax_case("AD-20")
def log1p_at_minus_one(jax, lax, jnp):
    return jax.grad(lax.log1p)(-1.0)


@jax_case("AD-20")
def integer_pow_at_zero(jax, lax, jnp):
    return [jax.grad(lambda x: lax.integer_pow(x, k))(0.0) for k in (0, 1, 2, 3, -1)]


@jax_case("AD-20")
def pow_at_zero(jax, lax, jnp):
    points = [(0.0, 0.0), (0.0, 1.0), (0.0, 2.0), (0.0, 0.5), (-2.0, 2.0)]
    return [jax.grad(lax.pow, argnums=(0, 1))(x, y) for x, y in points]


@jax_case("AD-20")
def pow_integer_exponent(jax, lax, jnp):
    return [jax.grad(lambda x: lax.pow(x, np.int32(k)))(x) for k in (0, 2) for x in (0.0, 2.0)]


@jax_case("AD-20")
def rem(jax, lax, jnp):
    return [jax.grad(lax.rem, argnums=(0, 1))(x, 2.0) for x in (5.5, -5.5)]


@jax_case("AD-20")
def atan2_at_origin(jax, lax, jnp):
    return jax.grad(lax.atan2, argnums=(0, 1))(0.0, 0.0)


@jax_case("AD-26")
def erf_inv_at_one(jax, lax, jnp):
    return jax.grad(lax.erf_inv)(1.0)


@jax_case("AD-26")
def lgamma_at_zero(jax, lax, jnp):
    return jax.grad(lax.lgamma)(0.0)


@jax_case("AD-26")
def digamma(jax, lax, jnp):
    points = (1.0, 0.5, -0.5, -1.0, 0.0, 1e-3, 30.0, 1e4, np.inf)
    return [jax.grad(lax.digamma)(x) for x in points]


@jax_case("AD-23")
def max_min_ties(jax, lax, jnp):
    return [jax.grad(f, argnums=(0, 1))(1.0, 1.0) for f in (lax.max, lax.min)]


@jax_case("AD-23")
def max_nan(jax, lax, jnp):
    return jax.grad(lax.max, argnums=(0, 1))(np.nan, 1.0)


@jax_case("AD-23")
def reduce_max_ties(jax, lax, jnp):
    return jax.grad(lambda x: lax.reduce_max(x, (0,)))(np.array([1.0, 3.0, 3.0, 2.0]))


@jax_case("AD-23")
def clamp_ties(jax, lax, jnp):
    points = [(1.0, 1.0, 2.0), (1.0, 2.0, 2.0), (1.0, 1.0, 1.0), (3.0, 2.0, 1.0)]
    return [jax.grad(lax.clamp, argnums=(0, 1, 2))(*p) for p in points]


@jax_case("AD-23")
def cummax_ties(jax, lax, jnp):
    return jax.jacrev(lambda x: lax.cummax(x, 0))(np.ones(5))


@jax_case("AD-23")
def cummin_ties_reverse(jax, lax, jnp):
    x = np.array([1.0, 1.0, 2.0, 1.0, 1.0, 1.0, 0.0])
    return jax.jacrev(lambda x: lax.cummin(x, 0, reverse=True))(x)


@jax_case("AD-22")
def reduce_prod_zeros(jax, lax, jnp):
    points = ([2.0, 0.0, 3.0], [2.0, 0.0, 0.0], [np.inf, 0.0, 3.0])
    return [jax.grad(lambda x: lax.reduce_prod(x, (0,)))(np.array(p)) for p in points]


@jax_case("AD-22")
def cumprod_zeros(jax, lax, jnp):
    return jax.jacrev(lambda x: lax.cumprod(x, 0))(np.array([2.0, 0.0, 3.0, 0.0, 5.0]))


@jax_case("AD-22")
def cumlogsumexp_infinities(jax, lax, jnp):
    points = ([np.inf, 1.0, 2.0], [0.0, -np.inf, 1.0])
    return [jax.jacrev(lambda x: lax.cumlogsumexp(x, 0))(np.array(p)) for p in points]


@jax_case("AD-22")
def cumlogsumexp_hessian_at_ties(jax, lax, jnp):
    return jax.hessian(lambda x: jnp.sum(lax.cumlogsumexp(x, 1) ** 2))(np.zeros((2, 3)))


@jax_case("AD-22")
def cummax_hessian(jax, lax, jnp):
    x = np.array([1.0, 3.0, 2.0, 3.0])
    return jax.hessian(lambda x: jnp.sum(lax.cummax(x, 0) ** 3))(x)


@jax_case("AD-25")
def sort_duplicates_and_nan(jax, lax, jnp):
    points = ([2.0, 1.0, 2.0, 1.0], [np.nan, 1.0, -0.0, 0.0])
    return [jax.jacrev(lax.sort)(np.array(p)) for p in points]


@jax_case("AD-25")
def sort_key_value_with_tied_keys(jax, lax, jnp):
    primals = (np.array([3.0, 1.0, 3.0]), np.array([1.0, 5.0, 0.0]))
    tangents = (np.array([1.0, 2.0, 3.0]), np.array([10.0, 20.0, 30.0]))
    return jax.jvp(lambda k, v: lax.sort((k, v), num_keys=1), primals, tangents)


@jax_case("AD-27")
def abs_at_zero(jax, lax, jnp):
    return [jax.grad(lax.abs)(x) for x in (0.0, -0.0, 0j, 3 + 4j)]


@jax_case("AD-27")
def complex_cotangents(jax, lax, jnp):
    def pullback(f, *primals):
        return jax.vjp(f, *primals)[1]
    return [pullback(lax.conj, 1.0 + 2j)(1.0 + 1j),
            pullback(lax.conj, 1.0)(1.0 + 1j),
            pullback(lax.real, 1.0 + 2j)(3.0),
            pullback(lax.imag, 1.0 + 2j)(3.0),
            pullback(lax.complex, 1.0, 2.0)(1.0 + 3j),
            pullback(lax.mul, 1.0 + 2j, 3.0 - 1j)(1.0 + 1j),
            pullback(lambda x: lax.convert_element_type(x, np.complex128), 1.0)(1.0 + 1j)]


@jax_case("AD-27")
def conj_of_real(jax, lax, jnp):
    return [lax.conj(np.float32(1.5)), lax.conj(np.array([1.0, 2.0]))]


def _cited(cases):
    """Parameters for ``cases`` ({name: (clause, ...)}), each citing its clause."""
    return [pytest.param(name, marks=pytest.mark.spec(case[0]), id=name)
            for name, case in cases.items()]


@pytest.mark.parametrize("name", _cited(JAX_VALUE_CASES))
def test_values_match_jax(name):
    _, build = JAX_VALUE_CASES[name]
    ours, theirs = _both(build)
    _assert_same(ours, theirs, rtol=1e-12 if name != "digamma" else 1e-6)


@pytest.mark.spec("AD-26")
def test_trigamma_is_accurate_for_negative_arguments():
    # pi^2 / sin^2(pi x) - psi'(1 - x) at x = -7.3, against a high-precision value.
    assert abs(float(refjax.grad(lax.digamma)(-7.3)) - 14.951383181433921) < 1e-12


@pytest.mark.spec("AD-28")
def test_weak_types_match_jax():
    ops = ["sqrt", "exp2", "tan", "square", "cbrt", "asin", "atan", "erf", "digamma",
           "tanh", "logistic", "abs"]
    for x64 in (False, True):
        refjax.config.update("jax_enable_x64", x64)
        real_jax.config.update("jax_enable_x64", x64)
        for op in ops:
            ours = refjax.grad(getattr(lax, op))(0.5)
            theirs = real_jax.grad(getattr(real_jax.lax, op))(0.5)
            _assert_same_type(ours, theirs)
        for op in ["mul", "div", "max", "pow", "atan2"]:
            ours = refjax.grad(getattr(lax, op), argnums=(0, 1))(0.5, 0.75)
            theirs = real_jax.grad(getattr(real_jax.lax, op), argnums=(0, 1))(0.5, 0.75)
            for a, b in zip(ours, theirs):
                _assert_same_type(a, b)
        ours = refjax.grad(lambda z: lax.real(z) ** 2 + lax.imag(z) ** 2)(3.0 + 4j)
        theirs = real_jax.grad(
            lambda z: real_jax.lax.real(z) ** 2 + real_jax.lax.imag(z) ** 2)(3.0 + 4j)
        _assert_same_type(ours, theirs)


def _assert_same_type(ours, theirs):
    """Same dtype and weak type, values equal to float32 rounding."""
    assert (ours.dtype, ours.weak_type) == (theirs.dtype, theirs.weak_type)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-6)


@pytest.mark.spec("AD-28")
def test_full_like_keeps_weak_type_as_jax():
    for x in (1.0, np.float32(2.0), np.ones(3), 3, True):
        for dtype in (None, np.float32):
            ours = lax.full_like(x, 2, dtype)
            theirs = real_jax.lax.full_like(x, 2, dtype)
            assert repr(ours) == repr(theirs)


@pytest.mark.spec("AD-27")
def test_conj_rejects_other_real_dtypes():
    with pytest.raises(TypeError, match="conj does not accept dtype float16"):
        lax.conj(np.float16(1.0))


# ---------------------------------------------------------------------------
# Second order: the rules are differentiable (SPEC AD-20..AD-25)
# ---------------------------------------------------------------------------

SECOND_ORDER = {}


def second_order_case(clause, x):
    """Register ``fn(lax, jnp) -> scalar function``, whose Hessian at ``x``
    is compared with JAX's, citing ``clause``."""
    def register(fn):
        SECOND_ORDER[fn.__name__] = (clause, fn, x)
        return fn
    return register


@second_order_case("AD-20", f64(4))
def tanh_times_logistic(lax, jnp):
    return lambda x: jnp.sum(lax.tanh(x) * lax.logistic(x))


@second_order_case("AD-20", pos(3))
def pow_self(lax, jnp):
    return lambda x: jnp.sum(lax.pow(x, x))


@second_order_case("AD-26", np.array([-2.5, 0.7, 1.0, 2.0, 3.0, 40.0]))
def digamma_sum(lax, jnp):
    return lambda x: jnp.sum(lax.digamma(x))


@second_order_case("AD-22", np.array([2.0, 0.0, 3.0, 0.5]))
def reduce_prod_with_zero(lax, jnp):
    return lambda x: lax.reduce_prod(x, (0,))


@second_order_case("AD-22", f64(5))
def cumprod_squares(lax, jnp):
    return lambda x: jnp.sum(lax.cumprod(x, 0) ** 2)


@second_order_case("AD-25", f64(4))
def sort_weighted(lax, jnp):
    return lambda x: jnp.sum(lax.sort(x) * jnp.arange(4.0) * x)


@second_order_case("AD-24", f64(2, 3))
def gram_matrix(lax, jnp):
    return lambda x: jnp.sum(lax.dot_general(x, x, (((1,), (1,)), ((), ()))) ** 2)


@second_order_case("AD-21", f64(3))
def pad_then_strided_slice(lax, jnp):
    return lambda x: jnp.sum(lax.slice(lax.pad(x * x, 0.0, ((1, 1, 1),)), (1,), (6,), (2,)))


@pytest.mark.parametrize("name", _cited(SECOND_ORDER))
def test_hessians_match_jax(name):
    _, build, x = SECOND_ORDER[name]
    ours = refjax.hessian(build(lax, jnp))(x)
    theirs = real_jax.hessian(build(real_jax.lax, real_jnp))(x)
    _assert_same(ours, theirs, rtol=1e-9)
