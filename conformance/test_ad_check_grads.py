"""Derivatives against finite differences: ``jax.test_util.check_grads``
itself (SPEC AD-40) and a sweep over the differentiable ``jax.lax``
functions (SPEC AD-41).

Each sweep case is a function of floating arguments and a Hypothesis
strategy drawing those arguments away from the function's singularities and
kinks (``away``, ``spread``, ``apart``...).  ``check_grads`` of the
implementation under test checks orders 1 and 2 in forward and reverse mode
at each drawn point.  Inputs are float64 (or complex128) with x64 on, so the
finite differences are accurate and the default tolerances tight.

``test_ad_check_grads_numpy.py`` runs the same machinery over
``jax.numpy``, ``jax.nn`` and ``jax.scipy.special`` (AD-42, AD-43).
Set ``AD_MAX_EXAMPLES`` for a deeper search than the default 5 points per
function (the sweep passes with 40).
"""
import functools
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

# Reproducible and quick; no shrinking, since every drawn point is as good a
# reproducer as any other and a missing rule fails on the first one.
HYP = settings(max_examples=int(os.environ.get("AD_MAX_EXAMPLES", 5)),
               deadline=None, derandomize=True, database=None,
               phases=[Phase.explicit, Phase.generate],
               suppress_health_check=list(HealthCheck))


# ---------------------------------------------------------------------------
# Shared machinery (imported by test_ad_check_grads_numpy.py)
# ---------------------------------------------------------------------------


# The finite-difference step: float64 affords a smaller one than JAX's
# default 1e-4, which keeps the truncation error (about eps**2 times the
# third derivative) well inside the float64 tolerance near steep points.
EPS = 1e-5


class Case:
    """``build(module)`` gives the function to check; ``args`` is a
    strategy for its argument tuple; the rest goes to ``check_grads``."""

    def __init__(self, name, build, args, order=2, modes=("fwd", "rev"),
                 eps=EPS, **tols):
        self.name, self.build, self.args = name, build, args
        self.order, self.modes, self.tols = order, modes, dict(tols, eps=eps)

    def __repr__(self):
        return self.name

    def check(self, test_util, module, args):
        f = self.build(module)
        test_util.check_grads(f, args, self.order, modes=self.modes,
                              **self.tols)


def run_case(test_util, module, case, data):
    args = data.draw(case.args, label="args")
    case.check(test_util, module, args)


def _floats(lo, hi):
    # Subnormals are left out: they probe underflow, not derivative rules.
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False,
                     allow_subnormal=False)


def floats(shape, lo=-2.0, hi=2.0):
    """float64 arrays with entries in ``[lo, hi]``."""
    return hnp.arrays(np.float64, shape, elements=_floats(lo, hi))


def away(shape, point=0.0, lo=-2.0, hi=2.0, margin=0.2):
    """Entries in ``[lo, hi]`` at least ``margin`` from ``point`` (a kink
    or a pole)."""
    below = _floats(lo, point - margin) if point - margin > lo else None
    above = _floats(point + margin, hi) if point + margin < hi else None
    elements = st.one_of([s for s in (below, above) if s is not None])
    return hnp.arrays(np.float64, shape, elements=elements)


def off_integers(shape, lo=-3, hi=3, frac=(0.1, 0.4)):
    """Entries ``k + u`` with integer ``k`` and ``u`` in ``frac``: away from
    the steps of floor, ceil, round and trunc."""
    ints = hnp.arrays(np.int64, shape, elements=st.integers(lo, hi - 1))
    return st.tuples(ints, floats(shape, *frac)).map(lambda ku: ku[0] + ku[1])


def spread(shape, lo=-2.0, hi=2.0):
    """Entries in a random order, pairwise at least ``(hi - lo) / (2 n)``
    apart: no ties for sort, max, median and friends."""
    n = int(np.prod(shape))
    step = (hi - lo) / max(n, 1)

    def build(drawn):
        order, offsets = drawn
        values = lo + (np.asarray(order) + 0.5 * offsets) * step
        return values.reshape(shape)

    return st.tuples(st.permutations(range(n)),
                     floats((n,), 0.0, 1.0)).map(build)


def apart(shape, margin=0.2):
    """A pair ``(x, y)`` with ``|x - y| >= margin`` everywhere (max, min)."""
    def build(drawn):
        x, d = drawn
        return x, x + d
    return st.tuples(floats(shape), away(shape, margin=margin)).map(build)


def complexes(shape, lo=-2.0, hi=2.0):
    """complex128 arrays, real and imaginary parts in ``[lo, hi]``."""
    return st.tuples(floats(shape, lo, hi), floats(shape, lo, hi)).map(
        lambda ri: ri[0] + 1j * ri[1])


def complexes_away(shape, margin=0.3):
    """complex128 entries with real part in ``[margin, 2]``: off the branch
    cuts of log and sqrt (the negative real axis) and the kink of abs."""
    return st.tuples(floats(shape, margin, 2.0), floats(shape)).map(
        lambda ri: ri[0] + 1j * ri[1])


def quotient_args(shape):
    """``(x, y)`` with ``x / y`` at least 0.2 from an integer (rem, mod,
    floor_divide jump there)."""
    def build(drawn):
        y, k, u = drawn
        return y * (k + u), y
    ints = hnp.arrays(np.int64, shape, elements=st.integers(-2, 1))
    return st.tuples(away(shape, margin=0.5), ints, floats(shape, 0.2, 0.8)).map(build)


def args(*strategies):
    return st.tuples(*strategies)


# ---------------------------------------------------------------------------
# AD-40: check_grads itself
# ---------------------------------------------------------------------------

def _sin_with_jvp(jax, jnp, scale=1.0, second_order=True):
    """``sin`` with a custom JVP ``scale * cos(x) * t``; without
    ``second_order`` the derivative is hidden from further differentiation,
    so only the second-order check can see it is wrong."""
    @jax.custom_jvp
    def f(x):
        return jnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        slope = jnp.cos(x) if second_order else jax.lax.stop_gradient(jnp.cos(x))
        return jnp.sin(x), scale * slope * t

    return f


@pytest.mark.spec("AD-40")
def test_check_grads_passes_correct_derivatives(jax, jnp, test_util):
    x = jnp.array([0.3, -1.2, 2.0])
    for order in (1, 2, 3):
        test_util.check_grads(jnp.sin, (x,), order)
    y = jnp.array([0.3, -0.6, 0.9])
    for order in (1, 2):
        test_util.check_grads(lambda a, b: a * jnp.exp(b), (y, y[::-1]), order,
                              modes=("fwd", "rev", "lin"))
    # Python scalars and pytrees of arguments and results.
    test_util.check_grads(jnp.tanh, (0.7,), 2)
    test_util.check_grads(lambda d: {"s": d["a"] * d["b"][0], "t": [jnp.cos(d["a"])]},
                          ({"a": y, "b": [y + 1.0]},), 2)
    assert test_util.check_grads(_sin_with_jvp(jax, jnp), (x,), 2) is None


@pytest.mark.spec("AD-40")
def test_check_grads_detects_wrong_jvp(jax, jnp, test_util):
    x = jnp.array([0.3, -1.2, 2.0])
    wrong = _sin_with_jvp(jax, jnp, scale=-1.0)
    with pytest.raises(AssertionError, match="JVP tangent"):
        test_util.check_grads(wrong, (x,), 1, modes=("fwd",))
    with pytest.raises(AssertionError, match="VJP cotangent projection"):
        test_util.check_grads(wrong, (x,), 1, modes=("rev",))
    with pytest.raises(AssertionError, match="LIN tangent"):
        test_util.check_grads(wrong, (x,), 1, modes=("lin",))


@pytest.mark.spec("AD-40")
def test_check_grads_detects_wrong_derivative_at_order_two(jax, jnp, test_util):
    x = jnp.array([0.3, -1.2, 2.0])
    f = _sin_with_jvp(jax, jnp, second_order=False)
    test_util.check_grads(f, (x,), 1)
    with pytest.raises(AssertionError, match="JVP of JVP tangent"):
        test_util.check_grads(f, (x,), 2, modes=("fwd",))
    with pytest.raises(AssertionError, match="VJP of VJP cotangent projection"):
        test_util.check_grads(f, (x,), 2, modes=("rev",))
    # A derivative with no derivative at all fails at order 1.
    frozen = lambda a: jax.lax.stop_gradient(jnp.sin(a))  # noqa: E731
    with pytest.raises(AssertionError, match="JVP tangent"):
        test_util.check_grads(frozen, (x,), 1)


@pytest.mark.spec("AD-40")
def test_check_grads_detects_wrong_vjp(jax, jnp, test_util):
    @jax.custom_vjp
    def f(x):
        return jnp.sin(x)

    f.defvjp(lambda x: (jnp.sin(x), x), lambda x, g: (2.0 * jnp.cos(x) * g,))
    x = jnp.array([0.3, -1.2, 2.0])
    with pytest.raises(AssertionError, match="VJP cotangent projection"):
        test_util.check_grads(f, (x,), 1, modes=("rev",))


@pytest.mark.spec("AD-40")
def test_check_grads_tolerances(jax, jnp, test_util):
    # A JVP 1% off: beyond the float32 default (2e-3) for one element,
    # within it for ten, since the tolerances grow with the element count.
    off = _sin_with_jvp(jax, jnp, scale=1.01)
    with pytest.raises(AssertionError, match="JVP tangent"):
        test_util.check_grads(off, (jnp.array([0.5]),), 1, modes=("fwd",))
    test_util.check_grads(off, (jnp.full(10, 0.5),), 1, modes=("fwd",))
    # Explicit tolerances: a number, or a dict by dtype.
    test_util.check_grads(off, (jnp.array([0.5]),), 1, modes=("fwd",),
                          atol=0.1, rtol=0.1)
    test_util.check_grads(off, (jnp.array([0.5]),), 1, modes=("fwd",),
                          atol={np.float32: 0.1}, rtol={np.float32: 0.1})
    with pytest.raises(AssertionError):
        test_util.check_grads(off, (jnp.array([0.5]),), 1, modes=("fwd",),
                              atol={np.float64: 0.1}, rtol={np.float64: 0.1})


@pytest.mark.spec("AD-40")
def test_check_jvp_and_check_vjp(jax, jnp, test_util):
    x = (jnp.array([0.3, -1.2]),)
    test_util.check_jvp(jnp.sin, functools.partial(jax.jvp, jnp.sin), x)
    test_util.check_vjp(jnp.sin, functools.partial(jax.vjp, jnp.sin), x)
    wrong = _sin_with_jvp(jax, jnp, scale=-1.0)
    with pytest.raises(AssertionError, match="mine tangent"):
        test_util.check_jvp(jnp.sin, functools.partial(jax.jvp, wrong), x,
                            err_msg="mine")
    with pytest.raises(AssertionError, match="cotangent projection"):
        test_util.check_vjp(jnp.sin, functools.partial(jax.vjp, wrong), x)


@pytest.mark.spec("AD-40")
def test_check_grads_x64(jax, jnp, test_util, x64):
    # float64 gets tight default tolerances (1e-5): a 0.1% error is caught.
    x = np.array([0.3, -1.2, 2.0])
    test_util.check_grads(jnp.sin, (x,), 2)
    with pytest.raises(AssertionError, match="JVP tangent"):
        test_util.check_grads(_sin_with_jvp(jax, jnp, scale=1.001), (x,), 1,
                              modes=("fwd",))


# ---------------------------------------------------------------------------
# AD-41: jax.lax
# ---------------------------------------------------------------------------

S = (2, 3)


def _unary(name, strategy, suffix="", **kw):
    return Case(name + suffix, lambda lax: getattr(lax, name), args(strategy), **kw)


def _binary(name, strategy, suffix="", **kw):
    return Case(name + suffix, lambda lax: getattr(lax, name), strategy, **kw)


def _clamp_args(shape):
    """``(lo, x, hi)`` with ``x`` at least 0.1 from both bounds."""
    def build(drawn):
        lo, width, x = drawn
        hi = lo + width
        x = np.where(np.abs(x - lo) < 0.1, lo - 0.1, x)
        x = np.where(np.abs(x - hi) < 0.1, hi + 0.1, x)
        return lo, x, hi
    return st.tuples(floats(shape, -1.5, 0.0), floats(shape, 0.5, 1.5),
                     floats(shape, -3.0, 3.0)).map(build)


_TAKE_ROWS = dict(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
_PUT_ROWS = dict(update_window_dims=(1,), inserted_window_dims=(0,),
                 scatter_dims_to_operand_dims=(0,))
_ROWS = np.array([[2], [0], [2]], np.int32)          # row 2 twice
_UNIQUE_ROWS = np.array([[2], [0]], np.int32)


def _gather(lax, x):
    dnums = lax.GatherDimensionNumbers(**_TAKE_ROWS)
    return lax.gather(x, _ROWS, dnums, slice_sizes=(1, 3))


def _scatter(name, rows, **kw):
    def build(lax):
        dnums = lax.ScatterDimensionNumbers(**_PUT_ROWS)
        return lambda x, u: getattr(lax, name)(x, rows, u, dnums, **kw)
    return build


def _conv(lax, lhs, rhs, **kw):
    return lax.conv_general_dilated(lhs, rhs, **kw)


_ELEMENTWISE = [
    *[_unary(n, floats(S)) for n in
      ["neg", "sin", "cos", "exp", "exp2", "expm1", "tanh", "logistic", "sinh",
       "cosh", "atan", "asinh", "erf", "erfc", "square"]],
    _unary("tan", floats(S, -1.2, 1.2)),
    *[_unary(n, floats(S, 0.5, 3.0)) for n in ["log", "sqrt", "rsqrt", "reciprocal"]],
    _unary("log1p", floats(S, -0.8, 3.0)),
    *[_unary(n, floats(S, -0.9, 0.9)) for n in ["asin", "acos", "atanh", "erf_inv"]],
    _unary("acosh", floats(S, 1.2, 3.0)),
    *[_unary(n, away(S)) for n in ["cbrt", "abs", "sign"]],
    *[_unary(n, floats(S, 0.5, 4.0)) for n in ["lgamma", "digamma"]],
    *[_unary(n, off_integers(S)) for n in ["floor", "ceil", "round"]],
    *[_binary(n, args(floats(S), floats(S))) for n in ["add", "sub", "mul"]],
    _binary("div", args(floats(S), away(S, margin=0.5))),
    _binary("pow", args(floats(S, 0.3, 3.0), floats(S))),
    _binary("atan2", args(away(S, margin=0.3), floats(S))),
    *[_binary(n, apart(S)) for n in ["max", "min"]],
    _binary("rem", quotient_args(S)),
    *[Case(f"integer_pow_{n}", lambda lax, n=n: lambda x: lax.integer_pow(x, n),
           args(away(S, margin=0.3)))
      for n in [0, 1, 2, 3, 5, -1, -2]],
    Case("clamp", lambda lax: lax.clamp, _clamp_args(S)),
    Case("select_n_2", lambda lax: lambda a, b: lax.select_n(
        np.array([[True, False, True], [False, False, True]]), a, b),
        args(floats(S), floats(S))),
    Case("select_n_3", lambda lax: lambda a, b, c: lax.select_n(
        np.array([[0, 1, 2], [2, 1, 0]], np.int32), a, b, c),
        args(floats(S), floats(S), floats(S))),
    Case("select", lambda lax: lambda a, b: lax.select(
        np.array([[True, False, True], [False, False, True]]), a, b),
        args(floats(S), floats(S))),
    Case("convert_element_type_f32", lambda lax: lambda x: lax.convert_element_type(
        x, np.float32), args(floats(S)), eps=1e-2),
    Case("convert_element_type_c128", lambda lax: lambda x: lax.convert_element_type(
        x, np.complex128), args(floats(S))),
    Case("reduce_precision", lambda lax: lambda x: lax.reduce_precision(
        x, exponent_bits=11, mantissa_bits=52), args(floats(S))),
]

_C = "_complex"
_COMPLEX = [
    *[_unary(n, complexes(S), _C) for n in
      ["exp", "sin", "cos", "neg", "square", "real", "imag", "conj"]],
    _unary("tanh", complexes(S, -1.0, 1.0), _C),   # poles at +-i pi/2
    *[_unary(n, complexes_away(S), _C) for n in ["log", "sqrt", "abs"]],
    _unary("reciprocal", complexes_away(S, margin=0.6), _C),
    Case("complex", lambda lax: lax.complex, args(floats(S), floats(S))),
    *[_binary(n, args(complexes(S), complexes(S)), _C) for n in ["add", "mul"]],
    _binary("div", args(complexes(S), complexes_away(S)), _C),
    Case("integer_pow_complex", lambda lax: lambda x: lax.integer_pow(x, 3),
         args(complexes(S))),
    Case("dot_general_complex", lambda lax: lambda a, b: lax.dot_general(
        a, b, (((1,), (0,)), ((), ()))), args(complexes((2, 3)), complexes((3, 2)))),
]

_STRUCTURAL = [
    Case("broadcast_in_dim", lambda lax: lambda x: lax.broadcast_in_dim(x, (2, 3), (1,)),
         args(floats((3,)))),
    Case("broadcast", lambda lax: lambda x: lax.broadcast(x, (2,)), args(floats(S))),
    Case("broadcast_to_rank", lambda lax: lambda x: lax.broadcast_to_rank(x, 3),
         args(floats(S))),
    Case("reshape", lambda lax: lambda x: lax.reshape(x, (3, 2)), args(floats(S))),
    Case("reshape_dimensions", lambda lax: lambda x: lax.reshape(x, (3, 2), (1, 0)),
         args(floats(S))),
    Case("collapse", lambda lax: lambda x: lax.collapse(x, 0, 2), args(floats((2, 3, 2)))),
    Case("transpose", lambda lax: lambda x: lax.transpose(x, (2, 0, 1)),
         args(floats((2, 3, 2)))),
    Case("squeeze", lambda lax: lambda x: lax.squeeze(x, (1,)), args(floats((2, 1, 3)))),
    Case("expand_dims", lambda lax: lambda x: lax.expand_dims(x, (0, 2)), args(floats(S))),
    Case("rev", lambda lax: lambda x: lax.rev(x, (0, 1)), args(floats(S))),
    Case("concatenate", lambda lax: lambda a, b, c: lax.concatenate([a, b, c], 1),
         args(floats((2, 1)), floats(S), floats((2, 2)))),
    Case("pad", lambda lax: lambda x, v: lax.pad(x, v, [(1, 2, 0), (-1, 0, 1)]),
         args(floats(S), floats(()))),
    Case("slice", lambda lax: lambda x: lax.slice(x, (0, 1), (3, 4), (2, 2)),
         args(floats((3, 5)))),
    Case("slice_in_dim", lambda lax: lambda x: lax.slice_in_dim(x, 1, 3, axis=1),
         args(floats(S))),
    Case("index_in_dim", lambda lax: lambda x: lax.index_in_dim(x, 1, axis=1,
                                                                keepdims=False),
         args(floats(S))),
    Case("stack", lambda lax: lambda a, b: lax.stack([a, b], axis=1),
         args(floats(S), floats(S))),
    Case("split", lambda lax: lambda x: lax.split(x, (1, 2), axis=1), args(floats(S))),
    Case("tile", lambda lax: lambda x: lax.tile(x, (2, 1)), args(floats(S))),
    Case("dynamic_slice", lambda lax: lambda x: lax.dynamic_slice(x, (1, 2), (2, 2)),
         args(floats((3, 4)))),
    Case("dynamic_slice_clamped", lambda lax: lambda x: lax.dynamic_slice(
        x, (np.int32(-1), np.int32(3)), (2, 2)), args(floats((3, 4)))),
    Case("dynamic_slice_in_dim", lambda lax: lambda x: lax.dynamic_slice_in_dim(
        x, 1, 2, axis=1), args(floats((3, 4)))),
    Case("dynamic_index_in_dim", lambda lax: lambda x: lax.dynamic_index_in_dim(
        x, 2, axis=0, keepdims=False), args(floats((3, 4)))),
    Case("dynamic_update_slice", lambda lax: lambda x, u: lax.dynamic_update_slice(
        x, u, (1, 1)), args(floats((3, 4)), floats((2, 2)))),
    Case("dynamic_update_slice_clamped", lambda lax: lambda x, u: lax.dynamic_update_slice(
        x, u, (2, -1)), args(floats((3, 4)), floats((2, 2)))),
    Case("dynamic_update_slice_in_dim", lambda lax: lambda x, u:
         lax.dynamic_update_slice_in_dim(x, u, 1, axis=0),
         args(floats((3, 4)), floats((1, 4)))),
    Case("dynamic_update_index_in_dim", lambda lax: lambda x, u:
         lax.dynamic_update_index_in_dim(x, u, 2, axis=1),
         args(floats((3, 4)), floats((3,)))),
    Case("gather", lambda lax: lambda x: _gather(lax, x), args(floats((4, 3)))),
    Case("index_take", lambda lax: lambda x: lax.index_take(
        x, (np.array([2, 0, 2]), np.array([1, 1, 0])), (0, 1)), args(floats((4, 3)))),
    Case("scatter_add", _scatter("scatter_add", _ROWS),
         args(floats((4, 3)), floats((3, 3)))),
    Case("scatter_sub", _scatter("scatter_sub", _ROWS),
         args(floats((4, 3)), floats((3, 3)))),
    Case("scatter_mul", _scatter("scatter_mul", _UNIQUE_ROWS, unique_indices=True),
         args(floats((4, 3)), floats((2, 3)))),
    Case("scatter", _scatter("scatter", _UNIQUE_ROWS),
         args(floats((4, 3)), floats((2, 3)))),
    *[Case(name, _scatter(name, _UNIQUE_ROWS),
           args(floats((4, 3)), floats((2, 3))).map(
               lambda xu: (xu[0], xu[1] + np.where(xu[1] >= xu[0][[2, 0]], 0.2, -0.2))))
      for name in ["scatter_max", "scatter_min"]],
]

_REDUCTIONS = [
    Case("reduce_sum", lambda lax: lambda x: lax.reduce_sum(x, (0, 2)),
         args(floats((2, 3, 2)))),
    Case("reduce_prod", lambda lax: lambda x: lax.reduce_prod(x, (1,)),
         args(away((2, 3), margin=0.3))),
    Case("reduce_max", lambda lax: lambda x: lax.reduce_max(x, (1,)), args(spread(S))),
    Case("reduce_min", lambda lax: lambda x: lax.reduce_min(x, (0, 1)), args(spread(S))),
    *[Case(f"{name}{'_reverse' if reverse else ''}",
           lambda lax, name=name, reverse=reverse: lambda x: getattr(lax, name)(
               x, axis=1, reverse=reverse),
           args(strategy))
      for name, strategy in [("cumsum", floats(S)), ("cumprod", away(S, margin=0.3)),
                             ("cummax", spread(S)), ("cummin", spread(S)),
                             ("cumlogsumexp", floats(S))]
      for reverse in (False, True)],
    Case("sort", lambda lax: lambda x: lax.sort(x, dimension=1), args(spread(S))),
    Case("sort_dim0", lambda lax: lambda x: lax.sort(x, dimension=0), args(spread(S))),
    Case("sort_multi_operand", lambda lax: lambda k, v: lax.sort(
        (k, v), dimension=1, num_keys=1), args(spread(S), floats(S))),
    Case("sort_key_val", lambda lax: lambda k, v: lax.sort_key_val(k, v),
         args(spread(S), floats(S))),
    Case("top_k", lambda lax: lambda x: lax.top_k(x, 2)[0], args(spread(S))),
]

_CONTRACTIONS = [
    Case("dot", lambda lax: lax.dot, args(floats((2, 3)), floats((3,)))),
    Case("dot_general", lambda lax: lambda a, b: lax.dot_general(
        a, b, (((2,), (1,)), ((0,), (0,)))), args(floats((2, 3, 4)), floats((2, 4, 2)))),
    Case("dot_general_outer", lambda lax: lambda a, b: lax.dot_general(
        a, b, (((), ()), ((), ()))), args(floats((2,)), floats((3,)))),
    Case("batch_matmul", lambda lax: lax.batch_matmul,
         args(floats((2, 2, 3)), floats((2, 3, 2)))),
    Case("conv_general_dilated", lambda lax: lambda l, r: _conv(
        lax, l, r, window_strides=(1, 1), padding="VALID"),
        args(floats((1, 2, 4, 4)), floats((3, 2, 2, 2)))),
    Case("conv_general_dilated_strided_padded", lambda lax: lambda l, r: _conv(
        lax, l, r, window_strides=(2, 1), padding=((1, 0), (0, 2)),
        lhs_dilation=(1, 2), rhs_dilation=(2, 1)),
        args(floats((2, 1, 5, 3)), floats((2, 1, 2, 2)))),
    Case("conv_general_dilated_same_nhwc", lambda lax: lambda l, r: _conv(
        lax, l, r, window_strides=(1, 1), padding="SAME",
        dimension_numbers=("NHWC", "HWIO", "NHWC")),
        args(floats((1, 3, 3, 2)), floats((2, 2, 2, 2)))),
    Case("conv_general_dilated_feature_groups", lambda lax: lambda l, r: _conv(
        lax, l, r, window_strides=(1, 1), padding="VALID", feature_group_count=2),
        args(floats((1, 4, 3, 3)), floats((4, 2, 2, 2)))),
    Case("conv_general_dilated_batch_groups", lambda lax: lambda l, r: _conv(
        lax, l, r, window_strides=(1, 1), padding="VALID", batch_group_count=2),
        args(floats((2, 2, 3, 3)), floats((4, 2, 2, 2)))),
    Case("conv", lambda lax: lambda l, r: lax.conv(l, r, (1, 1), "SAME"),
         args(floats((1, 1, 3, 3)), floats((2, 1, 2, 2)))),
    Case("conv_with_general_padding", lambda lax: lambda l, r:
         lax.conv_with_general_padding(l, r, (1, 1), ((1, 1), (0, 1)), (1, 1), (1, 1)),
         args(floats((1, 1, 3, 3)), floats((1, 1, 2, 2)))),
]

LAX_CASES = _ELEMENTWISE + _COMPLEX + _STRUCTURAL + _REDUCTIONS + _CONTRACTIONS


@pytest.mark.spec("AD-41")
@pytest.mark.parametrize("case", LAX_CASES, ids=repr)
@HYP
@given(data=st.data())
def test_lax_check_grads(jax, test_util, x64, case, data):
    run_case(test_util, jax.lax, case, data)
