"""JVP and transpose rules of slicing, gather/scatter, convolution, top_k,
reduce_precision and the debugging primitives (SPEC AD-30 .. AD-39).

JVPs are checked against central finite differences in float64; transpose
rules by the dot-product identity ``<T(ct), t> == <ct, L(t)>`` on the
linear jaxpr that ``linearize`` stages; a few gradients against real JAX.
"""
import jax
import numpy as np
import pytest

import refjax
import refjax.numpy as rnp
from refjax import lax
from refjax._src.interpreters import ad
from refjax._src import core
from refjax._src.lax import gather_scatter

GDN = lax.GatherDimensionNumbers
SDN = lax.ScatterDimensionNumbers


@pytest.fixture(autouse=True)
def x64():
    old = refjax.config.jax_enable_x64
    refjax.config.update("jax_enable_x64", True)
    yield
    refjax.config.update("jax_enable_x64", old)


def _rng(seed=0):
    return np.random.default_rng(seed)


def _arr(x):
    return rnp.asarray(np.asarray(x))


def _np(x):
    return np.asarray(x)


# ---------------------------------------------------------------------------
# Checkers
# ---------------------------------------------------------------------------

def _random_like(args, rng):
    return [rng.standard_normal(np.shape(a)) for a in args]


def check_jvp(f, args, seed=0, eps=1e-6, rtol=1e-6, atol=1e-7):
    """``f`` maps float64 arrays to one array: its JVP against central
    differences along a random tangent."""
    rng = _rng(seed)
    args = [np.asarray(a, np.float64) for a in args]
    tangents = _random_like(args, rng)
    (out,), (t_out,) = ad.jvp_flat(lambda *xs: [f(*xs)], [_arr(a) for a in args],
                                   [_arr(t) for t in tangents])
    plus = f(*[_arr(a + eps * t) for a, t in zip(args, tangents)])
    minus = f(*[_arr(a - eps * t) for a, t in zip(args, tangents)])
    numeric = (_np(plus) - _np(minus)) / (2 * eps)
    np.testing.assert_allclose(_np(out), _np(f(*[_arr(a) for a in args])))
    np.testing.assert_allclose(_np(t_out), numeric, rtol=rtol, atol=atol)
    return _np(t_out)


def _linearize(f, args):
    outs, lin, in_linear, out_zero = ad.linearize_flat(
        lambda *xs: [f(*xs)], [_arr(np.asarray(a, np.float64)) for a in args])
    assert all(in_linear) and out_zero == [False]
    return outs[0], lin


def vjp(f, args, ct):
    """Cotangents of ``args`` for output cotangent ``ct`` via linearize +
    backward_pass (zeros materialised)."""
    _, lin = _linearize(f, args)
    cts = ad.backward_pass(lin.jaxpr, lin.consts,
                           [ad.UndefinedPrimal(a) for a in lin.in_avals], [_arr(ct)])
    return [_np(ad.instantiate_zeros(c)) if type(c) is ad.Zero else _np(c)
            for c in cts]


def check_transpose(f, args, seed=1):
    """The dot-product test of the transposed linear map of ``f`` at ``args``."""
    rng = _rng(seed)
    out, lin = _linearize(f, args)
    tangents = _random_like(args, rng)
    lin_out, = core.eval_jaxpr(lin.jaxpr, lin.consts, *[_arr(t) for t in tangents])
    ct = rng.standard_normal(np.shape(out))
    cts = vjp(f, args, ct)
    lhs = sum(np.vdot(c, t) for c, t in zip(cts, tangents))
    rhs = np.vdot(ct, _np(lin_out))
    np.testing.assert_allclose(lhs, rhs, rtol=1e-10, atol=1e-10)
    for c, a in zip(cts, args):
        assert c.shape == np.shape(a)
    return cts


def check_both(f, args, **kw):
    check_jvp(f, args, **kw)
    return check_transpose(f, args)


# ---------------------------------------------------------------------------
# dynamic_slice / dynamic_update_slice (AD-30)
# ---------------------------------------------------------------------------

@pytest.mark.spec("AD-30")
@pytest.mark.parametrize("starts", [(1, 2), (8, 0), (-3, 4), (-20, 50)])
def test_dynamic_slice_rules(starts):
    x = _rng().standard_normal((10, 6))
    check_both(lambda x: lax.dynamic_slice(x, starts, (4, 3)), [x])


@pytest.mark.spec("AD-30")
def test_dynamic_slice_clamped_start_cotangent_lands_in_the_clamped_window():
    ct = np.arange(1.0, 5.0)
    got, = vjp(lambda x: lax.dynamic_slice(x, (8,), (4,)), [np.zeros(10)], ct)
    np.testing.assert_array_equal(got, [0, 0, 0, 0, 0, 0, 1, 2, 3, 4])


@pytest.mark.spec("AD-30")
def test_dynamic_slice_traced_start_has_float0_zero_tangent():
    x = _arr(np.arange(6.0))
    start = _arr(np.int32(4))
    outs, touts = ad.jvp_flat(
        lambda x, i: [lax.dynamic_slice(x, (i,), (3,))], [x, start],
        [_arr(np.ones(6)), ad.Zero.from_primal_value(start)])
    np.testing.assert_array_equal(_np(outs[0]), [3, 4, 5])
    np.testing.assert_array_equal(_np(touts[0]), [1, 1, 1])


@pytest.mark.spec("AD-30")
@pytest.mark.parametrize("starts", [(2, 1), (9, 9), (-1, 0)])
def test_dynamic_update_slice_rules(starts):
    rng = _rng()
    x, u = rng.standard_normal((7, 5)), rng.standard_normal((3, 2))
    check_both(lambda x, u: lax.dynamic_update_slice(x, u, starts), [x, u])


@pytest.mark.spec("AD-30")
def test_dynamic_update_slice_cotangents():
    ct = np.arange(1.0, 7.0)
    cx, cu = vjp(lambda x, u: lax.dynamic_update_slice(x, u, (5,)),
                 [np.zeros(6), np.zeros(2)], ct)
    np.testing.assert_array_equal(cx, [1, 2, 3, 4, 0, 0])
    np.testing.assert_array_equal(cu, [5, 6])


@pytest.mark.spec("AD-30")
def test_dynamic_update_slice_only_update_differentiated():
    x = np.ones(5)
    cu, = vjp(lambda u: lax.dynamic_update_slice(_arr(x), u, (1,)),
              [np.zeros(2)], np.arange(5.0))
    np.testing.assert_array_equal(cu, [1, 2])


# ---------------------------------------------------------------------------
# gather (AD-31)
# ---------------------------------------------------------------------------

ROWS = (GDN(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)),
        (1, 3))
WINDOWS = (GDN(offset_dims=(1, 2), collapsed_slice_dims=(), start_index_map=(0, 1)),
           (2, 3))
SWAPPED = (GDN(offset_dims=(0,), collapsed_slice_dims=(1,), start_index_map=(1,)),
           (5, 1))
BATCHED = (GDN(offset_dims=(), collapsed_slice_dims=(1,), start_index_map=(1,),
               operand_batching_dims=(0,), start_indices_batching_dims=(0,)),
           (1, 1))

GATHER_CASES = [
    ("rows-duplicates", ROWS, [[1], [4], [1], [1]], "promise_in_bounds"),
    ("rows-clip", ROWS, [[-2], [7], [3]], "clip"),
    ("rows-fill", ROWS, [[-1], [5], [2], [2]], "fill"),
    ("windows-clip", WINDOWS, [[0, 0], [4, 3], [5, -1]], "clip"),
    ("windows-fill", WINDOWS, [[0, 0], [4, 3], [5, -1], [3, 2]], "fill"),
    ("swapped", SWAPPED, [[2], [0], [2]], None),
    ("batched", BATCHED, [[[1], [3]], [[0], [0]], [[2], [2]], [[4], [1]],
                          [[0], [4]]], "fill"),
]


@pytest.mark.parametrize("name,spec,indices,mode", GATHER_CASES,
                         ids=[c[0] for c in GATHER_CASES])
@pytest.mark.spec("AD-31")
def test_gather_rules(name, spec, indices, mode):
    dnums, sizes = spec
    idx = _arr(np.array(indices, np.int32))
    x = _rng().standard_normal((6, 5) if spec is WINDOWS else (5, 3))

    def f(x):
        # A finite fill keeps finite differences finite.
        fill = 0.5 if mode == "fill" else None
        return lax.gather(x, idx, dnums, sizes, mode=mode, fill_value=fill)

    check_both(f, [x])


@pytest.mark.spec("AD-31")
def test_gather_fill_tangent_is_zero_where_filled():
    dnums, sizes = ROWS
    idx = _arr(np.array([[9], [0]], np.int32))
    x = _arr(np.ones((5, 3)))
    (out,), (t,) = ad.jvp_flat(
        lambda x: [lax.gather(x, idx, dnums, sizes, mode="fill")], [x],
        [_arr(np.ones((5, 3)))])
    assert np.isnan(_np(out)[0]).all()
    np.testing.assert_array_equal(_np(t), [[0, 0, 0], [1, 1, 1]])


@pytest.mark.spec("AD-31")
def test_gather_transpose_sums_duplicates_and_drops_filled():
    dnums, sizes = ROWS
    idx = _arr(np.array([[1], [1], [7], [0]], np.int32))
    ct = np.ones((4, 3))
    got, = vjp(lambda x: lax.gather(x, idx, dnums, sizes, mode="fill"),
               [np.zeros((3, 3))], ct)
    np.testing.assert_array_equal(got, [[1] * 3, [2] * 3, [0] * 3])


@pytest.mark.spec("AD-31")
def test_gather_transpose_clip_sums_at_the_clamped_row():
    dnums, sizes = ROWS
    idx = _arr(np.array([[5], [-4]], np.int32))
    got, = vjp(lambda x: lax.gather(x, idx, dnums, sizes, mode="clip"),
               [np.zeros((3, 3))], np.ones((2, 3)))
    np.testing.assert_array_equal(got, [[1] * 3, [0] * 3, [1] * 3])


@pytest.mark.spec("AD-31")
def test_gather_index_operand_not_differentiated():
    dnums, sizes = ROWS
    idx = _arr(np.array([[2]], np.int32))
    x = _arr(np.ones((3, 3)))
    _, (t,) = ad.jvp_flat(lambda x, i: [lax.gather(x, i, dnums, sizes)], [x, idx],
                          [_arr(np.ones((3, 3))), ad.Zero.from_primal_value(idx)])
    np.testing.assert_array_equal(_np(t), np.ones((1, 3)))


@pytest.mark.spec("AD-31")
def test_numpy_indexing_gradients_go_through_gather():
    x = _rng().standard_normal((4, 5))
    check_both(lambda x: x[_arr(np.array([3, 0, 3])), 1:4], [x])
    check_both(lambda x: x[::2, _arr(np.array([[1], [4]]))], [x])


# ---------------------------------------------------------------------------
# scatter-add / scatter-sub (AD-32)
# ---------------------------------------------------------------------------

ROW_SCATTER = SDN(update_window_dims=(1,), inserted_window_dims=(0,),
                  scatter_dims_to_operand_dims=(0,))
POINT_SCATTER_1D = SDN(update_window_dims=(), inserted_window_dims=(0,),
                       scatter_dims_to_operand_dims=(0,))
WINDOW_SCATTER = SDN(update_window_dims=(1, 2), inserted_window_dims=(),
                     scatter_dims_to_operand_dims=(0, 1))

# duplicates, and (for the drop modes) out-of-bounds rows
ROW_INDICES = np.array([[1], [3], [1], [9], [-1]], np.int32)


def _row_indices(mode):
    """Duplicates, plus out-of-bounds rows unless in-bounds was promised:
    for those, the scatter drops what the gather of its transpose clamps,
    in JAX as well."""
    if mode == "promise_in_bounds":
        return _arr(np.array([[1], [3], [1], [0], [3]], np.int32))
    return _arr(ROW_INDICES)


@pytest.mark.spec("AD-32")
@pytest.mark.parametrize("op", [lax.scatter_add, lax.scatter_sub])
@pytest.mark.parametrize("mode", [None, "clip", "promise_in_bounds"])
def test_scatter_addsub_rules(op, mode):
    rng = _rng()
    x, u = rng.standard_normal((4, 3)), rng.standard_normal((5, 3))
    idx = _row_indices(mode)
    check_both(lambda x, u: op(x, idx, u, ROW_SCATTER, mode=mode), [x, u])


@pytest.mark.spec("AD-32")
def test_scatter_add_windows_rules():
    rng = _rng(3)
    x, u = rng.standard_normal((5, 6)), rng.standard_normal((3, 2, 3))
    idx = _arr(np.array([[0, 0], [1, 2], [4, 4]], np.int32))   # last one dropped
    check_both(lambda x, u: lax.scatter_add(x, idx, u, WINDOW_SCATTER), [x, u])


@pytest.mark.spec("AD-32")
def test_scatter_add_update_cotangent_zero_when_dropped():
    idx = _arr(ROW_INDICES)
    ct = np.arange(12.0).reshape(4, 3)
    cx, cu = vjp(lambda x, u: lax.scatter_add(x, idx, u, ROW_SCATTER),
                 [np.zeros((4, 3)), np.zeros((5, 3))], ct)
    np.testing.assert_array_equal(cx, ct)
    np.testing.assert_array_equal(cu, [ct[1], ct[3], ct[1], [0] * 3, [0] * 3])


@pytest.mark.spec("AD-32")
def test_scatter_sub_update_cotangent_is_negated():
    idx = _arr(np.array([[2]], np.int32))
    _, cu = vjp(lambda x, u: lax.scatter_sub(x, idx, u, ROW_SCATTER),
                [np.zeros((3, 2)), np.zeros((1, 2))], np.array([[1., 2], [3, 4], [5, 6]]))
    np.testing.assert_array_equal(cu, [[-5, -6]])


# ---------------------------------------------------------------------------
# scatter-mul (AD-33)
# ---------------------------------------------------------------------------

@pytest.mark.spec("AD-33")
def test_scatter_mul_unique_rules():
    rng = _rng()
    x, u = rng.standard_normal((4, 3)), rng.standard_normal((2, 3))
    idx = _arr(np.array([[2], [0]], np.int32))
    check_both(lambda x, u: lax.scatter_mul(x, idx, u, ROW_SCATTER,
                                            unique_indices=True), [x, u])


@pytest.mark.spec("AD-33")
def test_scatter_mul_duplicates_differentiable_in_operand_only():
    rng = _rng()
    u = _arr(rng.standard_normal((5, 3)))
    idx = _arr(ROW_INDICES)
    check_both(lambda x: lax.scatter_mul(x, idx, u, ROW_SCATTER),
               [rng.standard_normal((4, 3))])
    x = _arr(rng.standard_normal((4, 3)))
    msg = "scatter_mul gradients are only implemented if `unique_indices=True`"
    with pytest.raises(NotImplementedError, match=msg):
        ad.jvp_flat(lambda u: [lax.scatter_mul(x, idx, u, ROW_SCATTER)], [u],
                    [u])


# ---------------------------------------------------------------------------
# scatter-min / scatter-max (AD-34)
# ---------------------------------------------------------------------------

@pytest.mark.spec("AD-34")
@pytest.mark.parametrize("op", [lax.scatter_min, lax.scatter_max])
@pytest.mark.parametrize("mode", [None, "clip"])
def test_scatter_extremum_rules_without_ties(op, mode):
    rng = _rng(5)
    x, u = rng.standard_normal((4, 3)), rng.standard_normal((5, 3))
    idx = _arr(ROW_INDICES)
    check_both(lambda x, u: op(x, idx, u, ROW_SCATTER, mode=mode), [x, u])


@pytest.mark.spec("AD-34")
def test_scatter_max_ties_share_the_tangent():
    x = np.array([1.0, 5.0, 0.0, np.nan])
    u = np.array([5.0, 5.0, 2.0, 3.0, 7.0])
    idx = _arr(np.array([[1], [1], [2], [2], [6]], np.int32))
    f = lambda x, u: lax.scatter_max(x, idx, u, POINT_SCATTER_1D)
    tx, tu = np.array([10.0, 20.0, 30.0, 40.0]), np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    _, (t,) = ad.jvp_flat(lambda x, u: [f(x, u)], [_arr(x), _arr(u)],
                          [_arr(tx), _arr(tu)])
    # position 1: operand 5 and two updates 5 tie -> mean of 20, 1, 2
    # position 2: update 3 wins; position 3 untouched keeps its tangent
    np.testing.assert_allclose(_np(t), [10.0, 23.0 / 3, 4.0, 40.0])
    check_transpose(f, [x, u])


# ---------------------------------------------------------------------------
# scatter (overwrite) (AD-35)
# ---------------------------------------------------------------------------

@pytest.mark.spec("AD-35")
@pytest.mark.parametrize("mode", [None, "clip", "promise_in_bounds"])
def test_scatter_rules_with_duplicates(mode):
    rng = _rng(7)
    x, u = rng.standard_normal((4, 3)), rng.standard_normal((5, 3))
    idx = _row_indices(mode)
    check_both(lambda x, u: lax.scatter(x, idx, u, ROW_SCATTER, mode=mode), [x, u])


@pytest.mark.spec("AD-35")
def test_scatter_winner_gets_the_cotangent():
    idx = _arr(np.array([[1], [1], [5]], np.int32))
    ct = np.array([1.0, 2.0, 3.0])
    f = lambda x, u: lax.scatter(x, idx, u, POINT_SCATTER_1D)
    cx, cu = vjp(f, [np.zeros(3), np.arange(3.0)], ct)
    np.testing.assert_array_equal(cx, [1, 0, 3])
    assert sorted(cu[:2]) == [0, 2] and cu[2] == 0


@pytest.mark.spec("AD-35")
def test_scatter_unique_rules():
    rng = _rng(8)
    x, u = rng.standard_normal((5, 6)), rng.standard_normal((2, 2, 3))
    idx = _arr(np.array([[0, 0], [3, 2]], np.int32))
    check_both(lambda x, u: lax.scatter(x, idx, u, WINDOW_SCATTER,
                                        unique_indices=True), [x, u])


@pytest.mark.spec("AD-35")
def test_scatter_apply_has_no_jvp():
    idx = _arr(np.array([[1]], np.int32))
    x = _arr(np.ones(3))
    with pytest.raises(NotImplementedError, match="scatter_apply JVP not implemented"):
        ad.jvp_flat(lambda x: [lax.scatter_apply(x, idx, lambda v: v * 2,
                                                 POINT_SCATTER_1D)], [x], [x])


@pytest.mark.spec("AD-35")
def test_scatter_transpose_needs_unique_indices():
    idx = _arr(np.array([[1]], np.int32))
    ct = _arr(np.ones(3))
    args = [ad.UndefinedPrimal(core.ShapedArray((3,), np.float64)), idx,
            _arr(np.ones(1))]
    params = dict(update_jaxpr=None, update_consts=(),
                  dimension_numbers=POINT_SCATTER_1D, indices_are_sorted=False,
                  unique_indices=False, mode=lax.GatherScatterMode.FILL_OR_DROP)
    with pytest.raises(NotImplementedError, match="unique_indices=True"):
        gather_scatter.scatter_p.transpose(ct, *args, **params)


@pytest.mark.spec("AD-35")
def test_numpy_at_updates_gradients():
    rng = _rng(9)
    i = _arr(np.array([0, 2, 0]))
    check_both(lambda x: x.at[i].add(x[1] * 2.0), [rng.standard_normal(4)])
    check_both(lambda x: x.at[i].set(x[3] ** 2), [rng.standard_normal(4)])
    check_both(lambda x: x.at[1:3].multiply(x[0]), [rng.standard_normal(4)])


# ---------------------------------------------------------------------------
# conv_general_dilated (AD-36)
# ---------------------------------------------------------------------------

CONV_CASES = [
    ("plain", dict(window_strides=(1, 1), padding="VALID"), (2, 3, 6, 5), (4, 3, 3, 2)),
    ("strided-same", dict(window_strides=(2, 3), padding="SAME"), (2, 3, 7, 8),
     (4, 3, 3, 3)),
    ("explicit-pads", dict(window_strides=(2, 1), padding=((1, 2), (-1, 3))),
     (1, 2, 6, 6), (3, 2, 2, 3)),
    ("rhs-dilation", dict(window_strides=(1, 2), padding="VALID",
                          rhs_dilation=(2, 1)), (2, 2, 8, 7), (2, 2, 3, 2)),
    ("lhs-dilation", dict(window_strides=(1, 1), padding=((1, 1), (0, 2)),
                          lhs_dilation=(2, 3)), (1, 2, 4, 3), (3, 2, 2, 2)),
    ("feature-groups", dict(window_strides=(1, 1), padding="SAME",
                            feature_group_count=3), (2, 6, 5, 4), (9, 2, 3, 2)),
    ("batch-groups", dict(window_strides=(2, 1), padding="VALID",
                          batch_group_count=2), (4, 3, 6, 5), (4, 3, 2, 2)),
    ("nhwc", dict(window_strides=(1, 2), padding="SAME",
                  dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=2),
     (2, 5, 6, 4), (3, 2, 2, 6)),
    ("1d-everything", dict(window_strides=(3,), padding=((2, 1),), lhs_dilation=(2,),
                           rhs_dilation=(2,)), (2, 3, 9), (2, 3, 3)),
]


@pytest.mark.parametrize("name,kw,lhs_shape,rhs_shape", CONV_CASES,
                         ids=[c[0] for c in CONV_CASES])
@pytest.mark.spec("AD-36")
def test_conv_rules(name, kw, lhs_shape, rhs_shape):
    rng = _rng(11)
    x, w = rng.standard_normal(lhs_shape), rng.standard_normal(rhs_shape)
    check_both(lambda x, w: lax.conv_general_dilated(x, w, **kw), [x, w],
               rtol=1e-6, atol=1e-6)


@pytest.mark.spec("AD-36")
def test_conv_empty_output_has_zero_cotangents():
    f = lambda x, w: lax.conv_general_dilated(x, w, (1,), "VALID")
    cx, cw = vjp(f, [np.ones((0, 2, 4)), np.ones((3, 2, 2))], np.zeros((0, 3, 3)))
    assert cx.shape == (0, 2, 4)
    np.testing.assert_array_equal(cw, np.zeros((3, 2, 2)))


# ---------------------------------------------------------------------------
# top_k and reduce_precision (AD-37)
# ---------------------------------------------------------------------------

@pytest.mark.spec("AD-37")
@pytest.mark.parametrize("axis", [-1, 0])
def test_top_k_rules(axis):
    x = _rng(12).permutation(24).reshape(4, 6) * 0.5

    def f(x):
        return lax.top_k(x, 3, axis=axis)[0]
    check_both(f, [x])


@pytest.mark.spec("AD-37")
def test_top_k_index_output_tangent_is_float0():
    x = _arr(np.array([3.0, 1.0, 2.0]))
    _, (tv, ti) = ad.jvp_flat(lambda x: lax.top_k(x, 2), [x],
                              [_arr(np.array([10.0, 20.0, 30.0]))])
    np.testing.assert_array_equal(_np(tv), [10.0, 30.0])
    assert type(ti) is ad.Zero and ti.aval.dtype == ad.float0


@pytest.mark.spec("AD-37")
def test_reduce_precision_is_linear():
    x = np.array([1.0, 1.0 + 2.0 ** -20, 3.3])
    t = np.array([1.0 + 2.0 ** -20, 2.0, 0.1])
    rp = lambda v: lax.reduce_precision(v, exponent_bits=8, mantissa_bits=7)
    _, (tout,) = ad.jvp_flat(lambda v: [rp(v)], [_arr(x)], [_arr(t)])
    np.testing.assert_array_equal(_np(tout), _np(rp(_arr(t))))
    ct = np.array([1.0 + 2.0 ** -12, -4.0, 0.5])
    got, = vjp(rp, [x], ct)
    np.testing.assert_array_equal(got, _np(rp(_arr(ct))))


# ---------------------------------------------------------------------------
# Debugging primitives and callbacks (AD-38, AD-39)
# ---------------------------------------------------------------------------

@pytest.mark.spec("AD-38")
def test_debug_print_under_jvp_and_linearize_prints_primal_once(capsys):
    def f(x):
        refjax.debug.print("x={}", x)
        return x * x
    ad.jvp_flat(lambda x: [f(x)], [_arr(1.5)], [_arr(1.0)])
    assert capsys.readouterr().out == "x=1.5\n"
    _linearize(f, [2.0])
    assert capsys.readouterr().out == "x=2.0\n"


@pytest.mark.spec("AD-38")
def test_debug_callback_under_jvp_sees_primals_only():
    seen = []

    def f(x):
        refjax.debug.callback(lambda v: seen.append(float(v)), x)
        return x
    _, (t,) = ad.jvp_flat(lambda x: [f(x)], [_arr(3.0)], [_arr(7.0)])
    assert seen == [3.0] and float(_np(t)) == 7.0


@pytest.mark.spec("AD-38")
def test_debug_transposes_to_no_cotangents():
    undefined = ad.UndefinedPrimal(core.ShapedArray((), np.float64))
    assert refjax._src.debugging.debug_print_p.transpose([], undefined) == [None]
    assert refjax._src.debugging.debug_callback_p.transpose([], undefined) == [None]


@pytest.mark.spec("AD-39")
def test_pure_callback_jvp_raises():
    def f(x):
        result = refjax.ShapeDtypeStruct((), np.float64)
        return refjax.pure_callback(lambda v: v, result, x)
    msg = ("Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use "
           "callbacks while taking gradients.")
    with pytest.raises(ValueError) as info:
        ad.jvp_flat(lambda x: [f(x)], [_arr(1.0)], [_arr(1.0)])
    assert str(info.value) == msg


@pytest.mark.spec("AD-39")
def test_io_callback_jvp_raises():
    from refjax.experimental import io_callback

    def f(x):
        return io_callback(lambda v: v, refjax.ShapeDtypeStruct((), np.float64), x)
    with pytest.raises(ValueError, match="^IO callbacks do not support JVP.$"):
        ad.jvp_flat(lambda x: [f(x)], [_arr(1.0)], [_arr(1.0)])


@pytest.mark.spec("AD-39")
def test_callback_on_non_differentiated_values_is_fine():
    def f(x):
        refjax.pure_callback(lambda v: v, refjax.ShapeDtypeStruct((), np.int32),
                             np.int32(3))
        return x * 2.0
    _, (t,) = ad.jvp_flat(lambda x: [f(x)], [_arr(1.0)], [_arr(1.0)])
    assert float(_np(t)) == 2.0


# ---------------------------------------------------------------------------
# Against real JAX
# ---------------------------------------------------------------------------

def _both(fn, args, ct):
    """(refjax cotangents in float64, JAX's ``vjp`` cotangents in float32)."""
    ours = vjp(lambda *xs: fn(lax, rnp, *xs), args, ct)
    _, pullback = jax.vjp(lambda *xs: fn(jax.lax, jax.numpy, *xs),
                          *[np.asarray(a, np.float32) for a in args])
    theirs = pullback(np.asarray(ct, np.float32))
    return ours, [np.asarray(t) for t in theirs]


JAX_CASES = {
    "gather-fill": (lambda L, N, x: L.gather(
        x, N.asarray(np.array([[4], [1], [1], [-2]], np.int32)), ROWS[0], ROWS[1],
        mode="fill"), [(5, 3)]),
    "gather-clip-windows": (lambda L, N, x: L.gather(
        x, N.asarray(np.array([[0, 0], [4, 3], [9, -1]], np.int32)), WINDOWS[0],
        WINDOWS[1], mode="clip"), [(6, 5)]),
    "scatter-add": (lambda L, N, x, u: L.scatter_add(
        x, N.asarray(ROW_INDICES), u, ROW_SCATTER), [(4, 3), (5, 3)]),
    "scatter-dup": (lambda L, N, x, u: L.scatter(
        x, N.asarray(np.array([[1], [3], [9]], np.int32)), u, ROW_SCATTER),
        [(4, 3), (3, 3)]),
    "scatter-mul-unique": (lambda L, N, x, u: L.scatter_mul(
        x, N.asarray(np.array([[3], [0]], np.int32)), u, ROW_SCATTER,
        unique_indices=True), [(4, 3), (2, 3)]),
    "dynamic-update-slice": (lambda L, N, x, u: L.dynamic_update_slice(
        x, u, (3, -1)), [(5, 4), (3, 2)]),
    "conv-groups-dilated": (lambda L, N, x, w: L.conv_general_dilated(
        x, w, (2, 1), ((1, 0), (2, 1)), lhs_dilation=(1, 2), rhs_dilation=(2, 1),
        feature_group_count=2), [(2, 4, 7, 5), (6, 2, 2, 3)]),
    "conv-batch-groups": (lambda L, N, x, w: L.conv_general_dilated(
        x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "OIHW", "NCHW"),
        batch_group_count=3), [(6, 5, 4, 2), (6, 2, 3, 2)]),
    "top-k": (lambda L, N, x: L.top_k(x, 2)[0], [(3, 5)]),
}


JAX_CASE_CLAUSES = {"gather-fill": "AD-31", "gather-clip-windows": "AD-31",
                    "scatter-add": "AD-32", "scatter-dup": "AD-35",
                    "scatter-mul-unique": "AD-33", "dynamic-update-slice": "AD-30",
                    "conv-groups-dilated": "AD-36", "conv-batch-groups": "AD-36",
                    "top-k": "AD-37"}


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=pytest.mark.spec(JAX_CASE_CLAUSES[name]))
    for name in sorted(JAX_CASES)])
def test_cotangents_match_jax(name):
    fn, shapes = JAX_CASES[name]
    rng = _rng(13)
    args = [rng.standard_normal(s) for s in shapes]
    out = np.asarray(fn(jax.lax, jax.numpy, *[np.asarray(a, np.float32) for a in args]))
    ct = rng.standard_normal(out.shape)
    ours, theirs = _both(fn, args, ct)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=2e-4, atol=2e-4)


@pytest.mark.spec("AD-34")
def test_scatter_max_tie_tangents_match_jax():
    x = np.array([1.0, 5.0, 0.0, 2.0])
    u = np.array([5.0, 5.0, 2.0, 3.0, 7.0])
    tx = np.array([10.0, 20.0, 30.0, 40.0])
    tu = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    idx = np.array([[1], [1], [2], [2], [6]], np.int32)

    def fn(L, x, u):
        return L.scatter_max(x, idx, u, POINT_SCATTER_1D)
    _, (ours,) = ad.jvp_flat(lambda x, u: [fn(lax, x, u)], [_arr(x), _arr(u)],
                             [_arr(tx), _arr(tu)])
    f32 = lambda a: np.asarray(a, np.float32)
    _, theirs = jax.jvp(lambda x, u: fn(jax.lax, x, u), (f32(x), f32(u)),
                        (f32(tx), f32(tu)))
    np.testing.assert_allclose(_np(ours), np.asarray(theirs), rtol=1e-6)


# ---------------------------------------------------------------------------
# Through the public API: the SPEC examples
# ---------------------------------------------------------------------------

@pytest.mark.spec("AD-30")
def test_grad_of_clamped_dynamic_slice():
    g = refjax.grad(lambda x: lax.dynamic_slice(x, (4,), (3,)).sum())(rnp.arange(5.0))
    np.testing.assert_array_equal(_np(g), [0, 0, 1, 1, 1])


@pytest.mark.spec("AD-35")
def test_grad_of_duplicate_set_goes_to_the_winner():
    def f(x):
        i = rnp.asarray([1, 1, 3])
        return x.at[i].set(rnp.asarray([5.0, 6.0, 7.0]) * x[0]).sum()
    np.testing.assert_array_equal(_np(refjax.grad(f)(rnp.arange(5.0))), [14, 0, 1, 0, 1])


@pytest.mark.spec("AD-35")
def test_grad_of_scatter_apply_raises():
    f = lambda x: x.at[1].apply(rnp.sin).sum()
    with pytest.raises(NotImplementedError, match="scatter_apply JVP not implemented"):
        refjax.grad(f)(rnp.arange(3.0))


@pytest.mark.spec("AD-38")
def test_debug_print_under_grad_prints_once(capsys):
    g = refjax.grad(lambda x: (refjax.debug.print("x={}", x), x * x)[1])(1.0)
    assert capsys.readouterr().out == "x=1.0\n"
    assert float(g) == 2.0


@pytest.mark.spec("AD-39")
def test_pure_callback_under_grad_raises():
    def f(x):
        result = refjax.ShapeDtypeStruct((), np.float32)
        return refjax.pure_callback(lambda v: v, result, x)
    with pytest.raises(ValueError, match="Pure callbacks do not support JVP"):
        refjax.grad(f)(1.0)
