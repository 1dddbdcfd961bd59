"""Derivatives against finite differences over ``jax.numpy`` (SPEC AD-42),
``jax.nn`` and ``jax.scipy.special`` (SPEC AD-43).

The machinery (``Case``, the strategies, the settings) is shared with
``test_ad_check_grads.py``: every case is checked with the implementation's
``check_grads`` to order 2 in forward and reverse mode, at float64 points
drawn away from the function's singularities and kinks.
"""
import importlib
import types

import numpy as np
import pytest
from hypothesis import given, strategies as st

from test_ad_check_grads import (
    HYP, Case, apart, args, away, complexes, complexes_away, floats,
    off_integers, quotient_args, run_case, spread,
)

S = (2, 3)


@pytest.fixture(scope="session")
def lib(jax):
    """The namespaces the cases draw from."""
    special = importlib.import_module(jax.__name__ + ".scipy.special")
    return types.SimpleNamespace(jnp=jax.numpy, nn=jax.nn, special=special)


def _np(name, *strategies, **kw):
    return Case(name, lambda m: getattr(m.jnp, name), args(*strategies), **kw)


def _np_with(label, fn, *strategies, **kw):
    """A case calling ``fn(jnp, *args)``."""
    return Case(label, lambda m: lambda *a: fn(m.jnp, *a), args(*strategies), **kw)


def _ordered_pair(shape, lo, hi, sign=1.0):
    """``(x, sign * y)`` with ``x`` in ``[lo, hi]`` and ``y >= x + 0.2``."""
    def build(drawn):
        x, d = drawn
        return x, sign * (x + d)
    return st.tuples(floats(shape, lo, hi), floats(shape, 0.2, 1.0)).map(build)


def _kinks(shape, points, margin=0.2, lo=-4.0, hi=4.0):
    """Entries in ``[lo, hi]`` at least ``margin`` from each of ``points``."""
    def push(x):
        for p in points:
            x = np.where(np.abs(x - p) < margin, p + np.copysign(margin, x - p), x)
        return x
    return floats(shape, lo, hi).map(push)


# ---------------------------------------------------------------------------
# AD-42: jax.numpy elementwise functions
# ---------------------------------------------------------------------------

_UNARY = [
    *[_np(n, floats(S)) for n in
      ["sin", "cos", "tanh", "sinh", "cosh", "arctan", "atan", "arcsinh", "asinh",
       "exp", "exp2", "expm1", "negative", "positive", "square", "deg2rad",
       "degrees", "rad2deg", "radians", "nan_to_num", "conj", "conjugate",
       "real", "imag"]],
    _np("tan", floats(S, -1.2, 1.2)),
    _np("sinc", away(S, margin=0.1)),
    *[_np(n, floats(S, 0.5, 3.0)) for n in
      ["log", "log2", "log10", "sqrt", "reciprocal"]],
    _np("log1p", floats(S, -0.8, 3.0)),
    *[_np(n, floats(S, -0.9, 0.9)) for n in
      ["arcsin", "asin", "arccos", "acos", "arctanh", "atanh"]],
    *[_np(n, floats(S, 1.2, 3.0)) for n in ["arccosh", "acosh"]],
    *[_np(n, away(S)) for n in ["abs", "absolute", "fabs", "sign", "cbrt", "angle"]],
    *[_np(n, off_integers(S)) for n in
      ["floor", "ceil", "trunc", "rint", "round", "around"]],
    _np_with("modf", lambda jnp, x: jnp.modf(x), off_integers(S)),
]

_BINARY = [
    *[_np(n, floats(S), floats(S)) for n in ["add", "subtract", "multiply"]],
    *[_np(n, floats(S), away(S, margin=0.5)) for n in ["divide", "true_divide"]],
    *[_np(n, floats(S, 0.3, 3.0), floats(S)) for n in ["power", "pow", "float_power"]],
    _np_with("operators", lambda jnp, x, y: abs(-x) ** 1.5 / (y @ y.T)[0, 0] + x % 7.5
             - 2.0 * +y, away(S), away(S, margin=0.5)),
    _np_with("power_int", lambda jnp, x: jnp.power(x, 3), floats(S)),
    _np_with("power_negative_int", lambda jnp, x: x ** -2, away(S, margin=0.4)),
    *[_np(n, away(S, margin=0.3), floats(S)) for n in ["arctan2", "atan2"]],
    # JAX's hypot (and refjax's) has a wrong second derivative where
    # |x| == |y|: keep |y| > |x|.
    Case("hypot", lambda m: m.jnp.hypot, _ordered_pair(S, 0.3, 2.0, sign=-1.0)),
    *[_np(n, floats(S), floats(S)) for n in ["logaddexp", "logaddexp2"]],
    *[Case(n, lambda m, n=n: getattr(m.jnp, n), apart(S))
      for n in ["maximum", "minimum", "fmax", "fmin"]],
    _np("copysign", away(S), away(S)),
    _np("heaviside", away(S), floats(S)),
    *[Case(n, lambda m, n=n: getattr(m.jnp, n), quotient_args(S))
      for n in ["mod", "remainder", "fmod", "floor_divide", "divmod"]],
    _np_with("ldexp", lambda jnp, x: jnp.ldexp(x, np.array([1, -2, 3], np.int32)),
             away(S)),          # JAX's ldexp has derivative 1 at 0
]

_COMPLEX = [
    *[_np_with(f"{n}_complex", lambda jnp, x, n=n: getattr(jnp, n)(x), complexes(S))
      for n in ["sin", "exp", "square", "real", "imag", "conj"]],
    *[_np_with(f"{n}_complex", lambda jnp, x, n=n: getattr(jnp, n)(x),
               complexes_away(S)) for n in ["abs", "angle", "log", "sqrt"]],
    _np_with("multiply_complex", lambda jnp, a, b: a * b, complexes(S), complexes(S)),
    _np_with("matmul_complex", lambda jnp, a, b: a @ b,
             complexes((2, 3)), complexes((3, 2))),
]


# ---------------------------------------------------------------------------
# AD-42: reductions
# ---------------------------------------------------------------------------

def _red(name, strategy, label=None, **kw):
    label = label or "_".join([name] + [f"{k}={v}" for k, v in kw.items()])
    return _np_with(label, lambda jnp, x: getattr(jnp, name)(x, **kw), strategy)


R = (2, 3, 2)

_REDUCTIONS = [
    *[_red(n, floats(R), axis=ax) for n in ["sum", "mean", "nansum", "nanmean"]
      for ax in [None, 1, (0, 2)]],
    _red("sum", floats(R), keepdims=True, axis=-1),
    _np_with("sum_where", lambda jnp, x: jnp.sum(
        x, axis=1, where=np.array([[True, False, True], [False, True, True]])),
        floats(S)),
    *[_red(n, spread(R), axis=1, ddof=d) for n in ["var", "std", "nanvar", "nanstd"]
      for d in (0, 1)],
    *[_red(n, away(R, margin=0.3), axis=ax) for n in ["prod", "nanprod"]
      for ax in [None, 1]],
    *[_red(n, spread(R), axis=ax) for n in
      ["max", "min", "amax", "amin", "nanmax", "nanmin", "ptp"] for ax in [None, (0, 2)]],
    _np_with("average_weights", lambda jnp, x, w: jnp.average(x, axis=1, weights=w),
             floats(S), floats((3,), 0.5, 2.0)),
    *[_red(n, spread(R), axis=ax) for n in ["median", "nanmedian"] for ax in [None, 1]],
    *[_np_with(f"{n}_axis={ax}",
               lambda jnp, x, n=n, q=q, ax=ax: getattr(jnp, n)(x, q, axis=ax), spread(R))
      for n, q in [("quantile", 0.3), ("nanquantile", np.array([0.2, 0.9])),
                   ("percentile", 30.0), ("nanpercentile", 75.0)]
      for ax in [None, 1]],
    *[_red(n, floats(S), axis=ax) for n in ["cumsum", "nancumsum", "cumulative_sum"]
      for ax in [0, 1]],
    *[_red(n, away(S, margin=0.3), axis=1) for n in
      ["cumprod", "nancumprod", "cumulative_prod"]],
    _red("cumsum", floats(S), label="cumsum_flat"),
    _red("trace", floats((3, 3))),
    _red("trace", floats((2, 3, 3)), axis1=1, axis2=2, offset=1),
    *[_red("diff", floats((2, 4)), n=n, axis=-1) for n in (1, 2)],
    _red("ediff1d", floats(S)),
]


# ---------------------------------------------------------------------------
# AD-42: contractions
# ---------------------------------------------------------------------------

_CONTRACTIONS = [
    _np("dot", floats((2, 3)), floats((3, 2))),
    _np_with("dot_vector", lambda jnp, a, b: jnp.dot(a, b), floats((3,)), floats((3,))),
    _np("vdot", floats(S), floats(S)),
    _np("vecdot", floats(S), floats(S)),
    _np("inner", floats(S), floats((2, 3))),
    _np("outer", floats((2,)), floats((3,))),
    _np("matmul", floats((2, 2, 3)), floats((3, 2))),
    _np_with("matmul_operator", lambda jnp, a, b: a @ b, floats((3,)), floats((3, 2))),
    _np("tensordot", floats((2, 3, 2)), floats((3, 2, 2))),
    _np_with("tensordot_axes", lambda jnp, a, b: jnp.tensordot(
        a, b, axes=([0, 2], [2, 0])), floats((2, 3, 2)), floats((2, 2, 2))),
    *[_np_with(f"einsum_{spec}", lambda jnp, *ops, spec=spec: jnp.einsum(spec, *ops),
               *[floats(s) for s in shapes])
      for spec, shapes in [("ij,jk->ik", [(2, 3), (3, 2)]),
                           ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
                           ("ii->i", [(3, 3)]), ("ij->", [S]),
                           ("ij,ij,j->i", [S, S, (3,)]), ("i,j->ij", [(2,), (3,)])]],
    _np("kron", floats((2, 2)), floats((2, 1))),
    _np("cross", floats((2, 3)), floats((2, 3))),
    *[_np_with(f"{n}_{mode}", lambda jnp, a, v, n=n, mode=mode: getattr(jnp, n)(
        a, v, mode=mode), floats((5,)), floats((3,)))
      for n in ["convolve", "correlate"] for mode in ["full", "same", "valid"]],
    _np_with("convolve_complex", lambda jnp, a, v: jnp.convolve(a, v),
             complexes((4,)), complexes((2,))),
]


# ---------------------------------------------------------------------------
# AD-42: shapes, joins, splits, selections
# ---------------------------------------------------------------------------

def _as_list(fn):
    """A multi-output function returning its outputs as a list (a pytree)."""
    return lambda jnp, *a: list(fn(jnp, *a))


_SHAPES = [
    _np_with("reshape", lambda jnp, x: jnp.reshape(x, (3, 2)), floats(S)),
    _np_with("reshape_method", lambda jnp, x: x.reshape(-1, 1), floats(S)),
    _np("ravel", floats(S)),
    _np_with("ravel_F", lambda jnp, x: jnp.ravel(x, order="F"), floats(S)),
    _np_with("transpose", lambda jnp, x: jnp.transpose(x, (2, 0, 1)), floats(R)),
    _np_with("T", lambda jnp, x: x.T, floats(S)),
    _np_with("permute_dims", lambda jnp, x: jnp.permute_dims(x, (1, 0, 2)), floats(R)),
    _np("matrix_transpose", floats(R)),
    _np_with("swapaxes", lambda jnp, x: jnp.swapaxes(x, 0, 2), floats(R)),
    _np_with("moveaxis", lambda jnp, x: jnp.moveaxis(x, 0, -1), floats(R)),
    _np_with("rollaxis", lambda jnp, x: jnp.rollaxis(x, 2), floats(R)),
    _np("squeeze", floats((2, 1, 3))),
    _np_with("expand_dims", lambda jnp, x: jnp.expand_dims(x, (0, 3)), floats(S)),
    _np_with("broadcast_to", lambda jnp, x: jnp.broadcast_to(x, (2, 2, 3)),
             floats((1, 3))),
    _np_with("broadcast_arrays", _as_list(lambda jnp, a, b: jnp.broadcast_arrays(a, b)),
             floats((2, 1)), floats((3,))),
    *[_np_with(n, _as_list(lambda jnp, a, b, n=n: getattr(jnp, n)(a, b)),
               floats(()), floats((3,)))
      for n in ["atleast_1d", "atleast_2d", "atleast_3d"]],
    _np_with("concatenate", lambda jnp, a, b: jnp.concatenate([a, b], axis=1),
             floats((2, 1)), floats(S)),
    _np_with("concatenate_flat", lambda jnp, a, b: jnp.concatenate([a, b], axis=None),
             floats((2, 1)), floats(S)),
    _np_with("concat", lambda jnp, a, b: jnp.concat([a, b]), floats(S), floats((1, 3))),
    *[_np_with(n, lambda jnp, a, b, n=n: getattr(jnp, n)([a, b]), floats(S), floats(S))
      for n in ["stack", "hstack", "vstack", "dstack", "column_stack"]],
    _np_with("stack_axis", lambda jnp, a, b: jnp.stack([a, b], axis=-1),
             floats(S), floats(S)),
    _np_with("append", lambda jnp, a, b: jnp.append(a, b, axis=0),
             floats(S), floats((1, 3))),
    _np_with("split", _as_list(lambda jnp, x: jnp.split(x, [1, 2], axis=1)), floats(S)),
    _np_with("array_split", _as_list(lambda jnp, x: jnp.array_split(x, 2, axis=1)),
             floats(S)),
    *[_np_with(n, _as_list(lambda jnp, x, n=n: getattr(jnp, n)(x, 2)), floats((2, 2, 2)))
      for n in ["hsplit", "vsplit", "dsplit"]],
    _np_with("unstack", _as_list(lambda jnp, x: jnp.unstack(x, axis=1)), floats(S)),
    _np_with("tile", lambda jnp, x: jnp.tile(x, (2, 1, 2)), floats(S)),
    _np_with("repeat", lambda jnp, x: jnp.repeat(x, 2, axis=0), floats(S)),
    _np_with("repeat_array", lambda jnp, x: jnp.repeat(x, np.array([1, 0, 2]), axis=1),
             floats(S)),
    _np_with("flip", lambda jnp, x: jnp.flip(x, axis=(0, 2)), floats(R)),
    *[_np(n, floats(S)) for n in ["fliplr", "flipud"]],
    _np_with("rot90", lambda jnp, x: jnp.rot90(x, k=3), floats(S)),
    _np_with("roll", lambda jnp, x: jnp.roll(x, (1, -2), axis=(0, 1)), floats(S)),
    _np_with("roll_flat", lambda jnp, x: jnp.roll(x, 4), floats(S)),
    *[_np_with(f"pad_{mode}", lambda jnp, x, mode=mode: jnp.pad(
        x, ((1, 2), (2, 1)), mode=mode), floats(S))
      for mode in ["constant", "edge", "reflect", "symmetric", "wrap"]],
    _np_with("pad_constant_values", lambda jnp, x, v: jnp.pad(x, 1, constant_values=v),
             floats(S), floats(())),
    _np_with("diag", lambda jnp, x: jnp.diag(x, k=1), floats((3,))),
    _np_with("diag_of_matrix", lambda jnp, x: jnp.diag(x, k=-1), floats((3, 3))),
    _np("diagflat", floats((2, 2))),
    _np_with("diagonal", lambda jnp, x: jnp.diagonal(x, offset=1, axis1=0, axis2=2),
             floats((3, 2, 3))),
    *[_np(n, floats((3, 4))) for n in ["tril", "triu"]],
    _np_with("triu_offset", lambda jnp, x: jnp.triu(x, k=-1), floats((3, 4))),
    _np("copy", floats(S)),
    _np("array", floats(S)),
    _np("asarray", floats(S)),
    _np_with("astype", lambda jnp, x: x.astype(jnp.float32), floats(S), eps=1e-2),
    _np_with("astype_complex", lambda jnp, x: jnp.astype(x, jnp.complex128), floats(S)),
    *[_np(n, floats(S)) for n in ["zeros_like", "ones_like"]],
    _np_with("full_like", lambda jnp, x: jnp.full_like(x, 2.5), floats(S)),
    _np_with("linspace", lambda jnp, a, b: jnp.linspace(a, b, 5),
             floats(()), floats((2,))),
    _np_with("meshgrid", _as_list(lambda jnp, a, b: jnp.meshgrid(a, b)),
             floats((2,)), floats((3,))),
    _np_with("sort", lambda jnp, x: jnp.sort(x, axis=0), spread(S)),
    _np_with("sort_flat_descending", lambda jnp, x: jnp.sort(
        x, axis=None, descending=True), spread(S)),
    _np_with("partition", lambda jnp, x: jnp.partition(x, 1, axis=-1), spread(S)),
]

_SELECTIONS = [
    _np_with("where", lambda jnp, a, b: jnp.where(
        np.array([[True, False, True], [False, False, True]]), a, b), floats(S), floats(S)),
    _np_with("where_scalar", lambda jnp, a: jnp.where(a > 0, a, 0.5 * a ** 2), away(S)),
    _np_with("select", lambda jnp, a, b, c: jnp.select(
        [np.array([True, False, False]), np.array([False, True, False])], [a, b], c),
        floats((3,)), floats((3,)), floats((3,))),
    _np_with("clip", lambda jnp, x: jnp.clip(x, -1.0, 1.0), _kinks(S, [-1.0, 1.0])),
    _np_with("clip_arrays", lambda jnp, x, lo, hi: jnp.clip(x, lo, hi),
             _kinks(S, [-1.0, 1.0]), floats((3,), -1.0, -1.0), floats((3,), 1.0, 1.0)),
    _np_with("take", lambda jnp, x: jnp.take(x, np.array([2, 0, 2, 1]), axis=1),
             floats(S)),
    _np_with("take_flat_clip", lambda jnp, x: jnp.take(x, np.array([[7, -1], [0, 3]]),
                                                       mode="clip"), floats(S)),
    _np_with("take_fill", lambda jnp, x: jnp.take(x, np.array([0, 5, 1]), axis=1,
                                                  mode="fill", fill_value=1.5), floats(S)),
    _np_with("take_along_axis", lambda jnp, x: jnp.take_along_axis(
        x, np.array([[2, 0, 2], [1, 1, 0]]), axis=1), floats(S)),
    _np_with("choose", lambda jnp, a, b: jnp.choose(
        np.array([[0, 1, 1], [1, 0, 0]]), [a, b]), floats(S), floats(S)),
    _np_with("compress", lambda jnp, x: jnp.compress(np.array([True, False, True]), x,
                                                     axis=1), floats(S)),
    _np_with("put", lambda jnp, x, v: jnp.put(x, np.array([1, 4]), v, inplace=False),
             floats(S), floats((2,))),
    _np_with("put_along_axis", lambda jnp, x, v: jnp.put_along_axis(
        x, np.array([[2], [0]]), v, axis=1, inplace=False), floats(S), floats((2, 1))),
    _np_with("place", lambda jnp, x, v: jnp.place(
        x, np.array([[True, False, True], [False, True, False]]), v, inplace=False),
        floats(S), floats((3,))),
    _np_with("bincount_weights", lambda jnp, w: jnp.bincount(
        np.array([0, 2, 2, 1, 0]), weights=w, length=4), floats((5,))),
]

# Indexing and the .at property.
_INDEXES = {
    "int": 1, "negative": (-1, 2), "slice": slice(1, 3),
    "strided": (slice(None, None, -1), slice(None, None, 2)),
    "ellipsis": (Ellipsis, 1), "newaxis": (None, 1), "int_array": np.array([2, 0, 2]),
    "int_arrays": (np.array([0, 2]), np.array([1, 3])),
    "mixed": (slice(None), np.array([[1], [3]])),
    "bool_mask": np.array([True, False, True]),
    "bool_mask_2d": np.array([[True, False, True, False], [False] * 4,
                              [True, True, False, False]]),
}

_INDEXING = [
    *[_np_with(f"getitem_{label}", lambda jnp, x, idx=idx: x[idx], floats((3, 4)))
      for label, idx in _INDEXES.items()],
]


def _at(method, idx, shape, values=None, **kw):
    """``x.at[idx].method(v)``; mul, divide and power need
    ``unique_indices=True`` to be differentiable in JAX."""
    label = f"at_{method}_{'repeated' if idx is _REPEATED else 'unique'}"
    return _np_with(label, lambda jnp, x, v: getattr(jnp.asarray(x).at[idx], method)(
        v, **kw), floats((3, 4)), floats(shape) if values is None else values)


def _rows_apart():
    """``x`` of shape (3, 4) and updates for its rows 2 and 0 that differ
    from them by at least 0.2 everywhere (no ties for .at[].min/max)."""
    return st.tuples(floats((3, 4)), away((2, 4), margin=0.2)).map(
        lambda xd: (xd[0], xd[0][[2, 0]] + xd[1]))


_REPEATED = np.array([2, 0, 2])
_UNIQUE = np.array([2, 0])

_AT = [
    _at("set", _UNIQUE, (2, 4)),
    _at("set", _REPEATED, (3, 4)),
    _at("add", _REPEATED, (3, 4)),
    _at("subtract", _REPEATED, (3, 4)),
    _at("mul", _UNIQUE, (2, 4), unique_indices=True),
    _at("divide", _UNIQUE, (2, 4), away((2, 4), margin=0.5), unique_indices=True),
    *[Case(f"at_{m}_unique", lambda lib, m=m: lambda x, v: getattr(
        lib.jnp.asarray(x).at[_UNIQUE], m)(v), _rows_apart()) for m in ["min", "max"]],
    _np_with("at_power_unique", lambda jnp, x, v: jnp.asarray(x).at[_UNIQUE].power(
        v, unique_indices=True), floats((3, 4), 0.3, 2.0), floats((2, 4))),
    _np_with("at_set_slice", lambda jnp, x, v: jnp.asarray(x).at[1:, ::2].set(v),
             floats((3, 4)), floats((2, 2))),
    _np_with("at_add_scalar", lambda jnp, x, v: jnp.asarray(x).at[..., 1].add(v),
             floats((3, 4)), floats(())),
    _np_with("at_get", lambda jnp, x: jnp.asarray(x).at[np.array([2, 0, 5])].get(
        mode="fill", fill_value=0.5), floats((3, 4))),
]


# ---------------------------------------------------------------------------
# AD-43: jax.nn and jax.scipy.special
# ---------------------------------------------------------------------------

def _nn(name, strategy, label=None, **kw):
    return Case(label or name, lambda m: lambda x: getattr(m.nn, name)(x, **kw),
                args(strategy))


_NN = [
    *[_nn(n, floats(S, -4.0, 4.0)) for n in
      ["sigmoid", "log_sigmoid", "silu", "swish", "softplus", "identity"]],
    _nn("gelu", floats(S, -4.0, 4.0), label="gelu_tanh"),
    _nn("gelu", floats(S, -4.0, 4.0), label="gelu_exact", approximate=False),
    *[_nn(n, _kinks(S, [0.0])) for n in
      ["relu", "leaky_relu", "elu", "celu", "selu", "soft_sign"]],
    _nn("relu6", _kinks(S, [0.0, 6.0], lo=-2.0, hi=8.0)),
    *[_nn(n, _kinks(S, [-3.0, 3.0]))
      for n in ["hard_sigmoid", "hard_silu", "hard_swish"]],
    *[_nn(n, _kinks(S, [-1.0, 1.0]))
      for n in ["hard_tanh", "sparse_plus", "sparse_sigmoid"]],
    _nn("leaky_relu", _kinks(S, [0.0]), label="leaky_relu_slope", negative_slope=0.3),
    _nn("celu", _kinks(S, [0.0]), label="celu_alpha", alpha=0.5),
    *[_nn(n, floats(R), axis=ax, label=f"{n}_{ax}") for n in ["softmax", "log_softmax"]
      for ax in [-1, (0, 2)]],
    _nn("logsumexp", floats(R), label="logsumexp_nn", axis=1),
    _nn("standardize", spread((2, 4)), axis=-1),
    _nn("glu", floats((2, 4)), axis=-1),
]


def _sp(name, *strategies, label=None, **kw):
    return Case(label or name, lambda m: lambda *a: getattr(m.special, name)(*a, **kw),
                args(*strategies))


_SPECIAL = [
    *[_sp(n, floats(S, -3.0, 3.0))
      for n in ["erf", "erfc", "expit", "ndtr", "log_ndtr"]],
    _sp("erfinv", floats(S, -0.9, 0.9)),
    *[_sp(n, floats(S, 0.2, 0.8)) for n in ["logit", "ndtri"]],
    *[_sp(n, floats(S, 0.5, 4.0)) for n in ["gamma", "gammaln", "digamma", "gammasgn"]],
    # As for hypot, betaln's second derivative is wrong where a == b.
    Case("betaln", lambda m: m.special.betaln, _ordered_pair(S, 1.0, 2.5)),
    _sp("entr", floats(S, 0.2, 3.0)),
    _sp("xlogy", floats(S), floats(S, 0.2, 3.0)),
    _sp("xlog1py", floats(S), floats(S, -0.5, 2.0)),
    _sp("logsumexp", floats(R), axis=(0, 2)),
    Case("logsumexp_b", lambda m: lambda a, b: m.special.logsumexp(
        a, axis=1, b=b, keepdims=True), args(floats(R), floats(R, 0.5, 2.0))),
    Case("logsumexp_return_sign", lambda m: lambda a, b: m.special.logsumexp(
        a, b=b, return_sign=True)[0], args(floats(S), floats(S, 0.5, 2.0))),
]


NUMPY_CASES = (_UNARY + _BINARY + _COMPLEX + _REDUCTIONS + _CONTRACTIONS + _SHAPES
               + _SELECTIONS + _INDEXING + _AT)


@pytest.mark.spec("AD-42")
@pytest.mark.parametrize("case", NUMPY_CASES, ids=repr)
@HYP
@given(data=st.data())
def test_numpy_check_grads(lib, test_util, x64, case, data):
    run_case(test_util, lib, case, data)


@pytest.mark.spec("AD-43")
@pytest.mark.parametrize("case", _NN + _SPECIAL, ids=repr)
@HYP
@given(data=st.data())
def test_nn_and_special_check_grads(lib, test_util, x64, case, data):
    run_case(test_util, lib, case, data)
