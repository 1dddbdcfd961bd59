"""vmap of the lax primitives (SPEC VMAP-20 .. VMAP-31).

Every case checks, for a batch axis at the front, in the middle and last,
and with some operands unbatched (``in_axes`` None), that ``vmap(f)``
equals stacking ``f`` over the examples (values and dtypes), that the
outputs' weak types are the per-example ones, and that the batched program
does not grow with the batch size (no unrolling over examples).

Cases are ``(clause, function of (lax, *args), per-example (shape, dtype)
of each argument, list of in_axes)``.  Shapes are few: JAX compiles every
primitive per shape.
"""
import numpy as np
import pytest

B = 3                       # examples per batch
X = (2, 4)                  # the usual per-example shape
F32, I32, U8, BOOL = np.float32, np.int32, np.uint8, np.bool_
SCALAR = ()
AXES = [(0,), (1,), (2,)]   # a rank-2 example's batch axis: front, middle, last


def _values(shape, dtype, rng):
    """Small values with ties, halves (rounding) and both signs."""
    if dtype == BOOL:
        return rng.random(shape) < 0.5
    if dtype == U8:
        return rng.integers(0, 256, shape).astype(dtype)
    ints = rng.integers(-6, 7, shape)
    return ints.astype(dtype) if dtype == I32 else (ints / 4).astype(dtype)


def _batch_shape(shape, axis, size=B):
    return shape if axis is None else shape[:axis] + (size,) + shape[axis:]


def _example(a, axis, i):
    return a if axis is None else np.take(a, i, axis)


def _example_shape(a, axis):
    shape = np.shape(a)
    return shape if axis is None else shape[:axis] + shape[axis + 1:]


def _eqn_count(jax, f, args, in_axes, size):
    zeros = [np.zeros(_batch_shape(_example_shape(a, ax), ax, size), a.dtype)
             for a, ax in zip(args, in_axes)]
    return len(jax.make_jaxpr(jax.vmap(f, in_axes=in_axes))(*zeros).eqns)


def _weak_types(jax, tree):
    return [s.weak_type for s in jax.tree_util.tree_leaves(tree)]


def check_vmap(jax, f, args, in_axes):
    """``vmap(f)`` agrees with ``f`` applied to each example, stacked.

    The batched function runs under ``jit`` (one compilation instead of one
    per primitive in JAX); the weak-type test below runs it eagerly."""
    out = jax.jit(jax.vmap(f, in_axes=in_axes))(*args)
    examples = [f(*[_example(np.asarray(a), ax, i) for a, ax in zip(args, in_axes)])
                for i in range(B)]
    leaves = jax.tree_util.tree_leaves(out)
    per_example = [jax.tree_util.tree_leaves(e) for e in examples]
    assert len(leaves) == len(per_example[0])
    for k, leaf in enumerate(leaves):
        got = np.asarray(leaf)
        expected = np.stack([np.asarray(e[k]) for e in per_example])
        assert got.dtype == expected.dtype
        if got.dtype.kind == "f":
            np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
        else:
            np.testing.assert_array_equal(got, expected)
    structs = [jax.ShapeDtypeStruct(_example_shape(a, ax), a.dtype,
                                    weak_type=bool(getattr(a, "weak_type", False)))
               for a, ax in zip(args, in_axes)]
    assert _weak_types(jax, out) == _weak_types(jax, jax.eval_shape(f, *structs))
    assert _eqn_count(jax, f, args, in_axes, 2) == _eqn_count(jax, f, args, in_axes, 64)
    return out


def _cases(table):
    return [pytest.param(clause, fn, specs, axes, marks=pytest.mark.spec(clause),
                         id=f"{name}-{'_'.join(map(str, axes))}")
            for clause, name, fn, specs, axes_list in table for axes in axes_list]


def _run_case(jax, fn, specs, in_axes, seed=0):
    rng = np.random.default_rng(seed)
    args = [_values(_batch_shape(shape, ax), dtype, rng)
            for (shape, dtype), ax in zip(specs, in_axes)]
    check_vmap(jax, lambda *xs: fn(jax.lax, *xs), args, in_axes)


# ---------------------------------------------------------------------------
# Shape primitives (SPEC VMAP-20 .. VMAP-23)
# ---------------------------------------------------------------------------

SHAPES = [
    ("VMAP-20", "broadcast_in_dim",
     lambda lax, x: lax.broadcast_in_dim(x, (3, 2, 4), (1, 2)), [(X, F32)], AXES),
    ("VMAP-20", "broadcast_in_dim_unit",
     lambda lax, x: lax.broadcast_in_dim(lax.slice(x, (0, 0), (1, 4)), (2, 3, 4), (0, 2)),
     [(X, F32)], [(0,), (2,)]),
    ("VMAP-20", "reshape", lambda lax, x: lax.reshape(x, (4, 2)), [(X, F32)], AXES),
    ("VMAP-20", "reshape_dimensions",
     lambda lax, x: lax.reshape(x, (2, 2, 2), (1, 0)), [(X, F32)], AXES),
    ("VMAP-20", "transpose", lambda lax, x: lax.transpose(x, (1, 0)), [(X, F32)], AXES),
    ("VMAP-20", "squeeze",
     lambda lax, x: lax.squeeze(lax.reshape(x, (2, 1, 4)), (1,)), [(X, F32)], AXES),
    ("VMAP-21", "rev", lambda lax, x: lax.rev(x, (0,)), [(X, F32)], AXES),
    ("VMAP-21", "rev_both", lambda lax, x: lax.rev(x, (0, 1)), [(X, I32)], [(1,)]),
    ("VMAP-21", "slice",
     lambda lax, x: lax.slice(x, (0, 1), (2, 4), (1, 2)), [(X, F32)], AXES),
    ("VMAP-21", "slice_unstrided",
     lambda lax, x: lax.slice(x, (1, 0), (2, 3)), [(X, F32)], [(0,), (2,)]),
    ("VMAP-21", "split", lambda lax, x: lax.split(x, (1, 3), axis=1), [(X, F32)], AXES),
    ("VMAP-21", "split_axis0", lambda lax, x: lax.split(x, (1, 1), axis=0),
     [(X, I32)], [(1,)]),
    ("VMAP-21", "tile", lambda lax, x: lax.tile(x, (2, 1)), [(X, F32)], AXES),
    ("VMAP-21", "iota",
     lambda lax, x: lax.add(x, lax.broadcasted_iota(np.float32, X, 1)), [(X, F32)],
     [(1,)]),
    ("VMAP-22", "concatenate",
     lambda lax, x, y: lax.concatenate([x, y], 1), [(X, F32), (X, F32)],
     [(0, 0), (1, 2), (2, None), (None, 1)]),
    ("VMAP-22", "concatenate_three",
     lambda lax, x, y, z: lax.concatenate([x, y, z], 0),
     [(X, I32), (X, I32), (X, I32)], [(0, None, 2)]),
    ("VMAP-22", "stack_axis0",
     lambda lax, x, y: lax.stack([x, y], 0), [(X, F32), (X, F32)],
     [(0, 0), (1, 1), (2, 2), (None, 1)]),
    ("VMAP-22", "stack_axis2",
     lambda lax, x, y: lax.stack([x, y], 2), [(X, F32), (X, F32)],
     [(0, 0), (1, 1), (2, 2), (0, 2)]),
    ("VMAP-23", "pad",
     lambda lax, x, v: lax.pad(x, v, [(1, 0, 1), (0, 2, 0)]), [(X, F32), (SCALAR, F32)],
     [(0, None), (1, None), (2, None), (None, 0), (0, 0), (2, 0)]),
    ("VMAP-23", "pad_negative",
     lambda lax, x, v: lax.pad(x, v, [(-1, 1, 0), (1, -2, 1)]),
     [(X, I32), (SCALAR, I32)], [(1, None), (1, 0), (None, 0)]),
]


@pytest.mark.parametrize("clause, fn, specs, in_axes", _cases(SHAPES))
def test_shape_primitives(jax, clause, fn, specs, in_axes):
    _run_case(jax, fn, specs, in_axes)


@pytest.mark.spec("VMAP-28")
@pytest.mark.parametrize("axis", [0, 2])
def test_copy(jax, jnp, axis):
    check_vmap(jax, jnp.copy, [_values(_batch_shape(X, axis), F32,
                                       np.random.default_rng(1))], (axis,))


# ---------------------------------------------------------------------------
# Reductions, cumulative reductions, sort, top_k (SPEC VMAP-24 .. VMAP-27)
# ---------------------------------------------------------------------------

REDUCTIONS = [
    ("VMAP-24", "reduce_sum_0", lambda lax, x: lax.reduce_sum(x, (0,)), [(X, F32)], AXES),
    ("VMAP-24", "reduce_sum_1", lambda lax, x: lax.reduce_sum(x, (1,)), [(X, F32)], AXES),
    ("VMAP-24", "reduce_sum_all",
     lambda lax, x: lax.reduce_sum(x, (0, 1)), [(X, I32)], AXES),
    ("VMAP-24", "reduce_prod", lambda lax, x: lax.reduce_prod(x, (1,)), [(X, F32)],
     [(0,), (2,)]),
    ("VMAP-24", "reduce_max", lambda lax, x: lax.reduce_max(x, (0,)), [(X, F32)],
     [(1,), (2,)]),
    ("VMAP-24", "reduce_min", lambda lax, x: lax.reduce_min(x, (0, 1)), [(X, I32)],
     [(0,), (1,)]),
    ("VMAP-24", "reduce_and", lambda lax, x: lax.reduce_and(x, (1,)), [(X, BOOL)],
     [(0,), (2,)]),
    ("VMAP-24", "reduce_or", lambda lax, x: lax.reduce_or(x, (0,)), [(X, I32)],
     [(1,), (2,)]),
    ("VMAP-24", "reduce_xor", lambda lax, x: lax.reduce_xor(x, (0, 1)), [(X, BOOL)],
     [(0,), (1,)]),
    ("VMAP-24", "argmax_0", lambda lax, x: lax.argmax(x, 0, np.int32), [(X, F32)], AXES),
    ("VMAP-24", "argmin_1", lambda lax, x: lax.argmin(x, 1, np.int32), [(X, F32)], AXES),
    ("VMAP-25", "cumsum", lambda lax, x: lax.cumsum(x, 1), [(X, F32)], AXES),
    ("VMAP-25", "cumsum_int_reverse",
     lambda lax, x: lax.cumsum(x, 0, reverse=True), [(X, I32)], AXES),
    ("VMAP-25", "cumprod", lambda lax, x: lax.cumprod(x, 0, reverse=True), [(X, F32)],
     [(0,), (2,)]),
    ("VMAP-25", "cummax", lambda lax, x: lax.cummax(x, 1, reverse=True), [(X, F32)],
     [(1,), (2,)]),
    ("VMAP-25", "cummin", lambda lax, x: lax.cummin(x, 0), [(X, I32)], [(0,), (1,)]),
    ("VMAP-25", "cumlogsumexp", lambda lax, x: lax.cumlogsumexp(x, 1), [(X, F32)],
     [(0,), (2,)]),
    ("VMAP-26", "sort_last", lambda lax, x: lax.sort(x), [(X, F32)], AXES),
    ("VMAP-26", "sort_first", lambda lax, x: lax.sort(x, dimension=0), [(X, I32)], AXES),
    ("VMAP-26", "sort_key_val",
     lambda lax, k, v: lax.sort((k, v), dimension=1, num_keys=1), [(X, I32), (X, F32)],
     [(0, 0), (1, None), (None, 2), (2, 0)]),
    ("VMAP-26", "sort_two_keys",
     lambda lax, k1, k2, v: lax.sort((k1, k2, v), dimension=0, num_keys=2),
     [(X, I32), (X, F32), (X, I32)], [(1, None, 0), (None, 2, None)]),
    ("VMAP-27", "top_k", lambda lax, x: lax.top_k(x, 2), [(X, F32)], AXES),
    ("VMAP-27", "top_k_axis0", lambda lax, x: lax.top_k(x, 1, axis=0), [(X, I32)], AXES),
]


@pytest.mark.parametrize("clause, fn, specs, in_axes", _cases(REDUCTIONS))
def test_reductions_and_sorts(jax, clause, fn, specs, in_axes):
    _run_case(jax, fn, specs, in_axes)


# ---------------------------------------------------------------------------
# Elementwise primitives with parameters, select_n, clamp, conversions
# (SPEC VMAP-28 .. VMAP-31)
# ---------------------------------------------------------------------------

ELEMENTWISE = [
    ("VMAP-28", "round",
     lambda lax, x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN), [(X, F32)], AXES),
    ("VMAP-28", "integer_pow", lambda lax, x: lax.integer_pow(x, 3), [(X, F32)], AXES),
    ("VMAP-28", "integer_pow_int", lambda lax, x: lax.integer_pow(x, 2), [(X, I32)],
     [(1,)]),
    ("VMAP-28", "reduce_precision",
     lambda lax, x: lax.reduce_precision(x, 5, 2), [(X, F32)], AXES),
    ("VMAP-28", "convert_to_int",
     lambda lax, x: lax.convert_element_type(x, np.int32), [(X, F32)], AXES),
    ("VMAP-28", "convert_to_bool",
     lambda lax, x: lax.convert_element_type(x, np.bool_), [(X, I32)], [(2,)]),
    ("VMAP-29", "select_n_same_shape",
     lambda lax, p, a, b: lax.select_n(p, a, b), [(X, BOOL), (X, F32), (X, F32)],
     [(0, 0, 0), (1, 1, 1), (1, None, 2), (None, 0, 1), (2, None, None),
      (None, None, 2)]),
    ("VMAP-29", "select_n_scalar_pred",
     lambda lax, p, a, b: lax.select_n(p, a, b), [(SCALAR, BOOL), (X, F32), (X, F32)],
     [(0, 0, 0), (0, 1, 2), (None, 0, 2), (None, 1, 1), (0, None, None), (0, None, 1),
      (None, None, 2)]),
    ("VMAP-29", "select_n_scalars",
     lambda lax, p, a, b: lax.select_n(p, a, b),
     [(SCALAR, BOOL), (SCALAR, I32), (SCALAR, I32)],
     [(0, None, None), (0, 0, None), (None, 0, None), (None, 0, 0)]),
    ("VMAP-29", "select_n_int32",
     lambda lax, p, a, b, c: lax.select_n(lax.clamp(0, p, 2), a, b, c),
     [(X, I32), (X, F32), (X, F32), (X, F32)], [(0, 1, None, 2), (None, 0, 0, 0)]),
    ("VMAP-30", "clamp_scalar_bounds",
     lambda lax, lo, x, hi: lax.clamp(lo, x, hi), [(SCALAR, F32), (X, F32), (SCALAR, F32)],
     [(None, 0, None), (0, 1, 0), (0, 0, 0), (None, 2, 0), (0, None, None),
      (None, None, 0)]),
    ("VMAP-30", "clamp_full_bounds",
     lambda lax, lo, x, hi: lax.clamp(lo, x, hi), [(X, F32), (X, F32), (X, F32)],
     [(0, 0, 0), (1, None, 2), (None, 1, None)]),
    ("VMAP-30", "clamp_mixed_bounds",
     lambda lax, lo, x, hi: lax.clamp(lo, x, hi), [(X, I32), (X, I32), (SCALAR, I32)],
     [(0, 0, None), (2, 1, 0), (None, 2, 0)]),
    ("VMAP-30", "clamp_scalar_operand",
     lambda lax, lo, x, hi: lax.clamp(lo, x, hi),
     [(SCALAR, F32), (SCALAR, F32), (SCALAR, F32)],
     [(0, 0, 0), (None, 0, None), (0, None, None), (0, None, 0)]),
    ("VMAP-31", "bitcast_same_width",
     lambda lax, x: lax.bitcast_convert_type(x, np.int32), [(X, F32)], AXES),
    ("VMAP-31", "bitcast_narrower",
     lambda lax, x: lax.bitcast_convert_type(x, np.uint16), [(X, F32)], AXES),
    ("VMAP-31", "bitcast_wider",
     lambda lax, x: lax.bitcast_convert_type(x, np.int32), [(X, U8)], [(0,), (1,)]),
]


@pytest.mark.parametrize("clause, fn, specs, in_axes", _cases(ELEMENTWISE))
def test_elementwise_primitives(jax, clause, fn, specs, in_axes):
    _run_case(jax, fn, specs, in_axes)


# ---------------------------------------------------------------------------
# Weak types go through batching (SPEC VMAP-28): (name, the outputs' weak
# types, function)
# ---------------------------------------------------------------------------

WEAK = [
    ("broadcast_in_dim", [True],
     lambda lax, x: lax.broadcast_in_dim(x, (3, 2, 4), (1, 2))),
    ("reshape", [True], lambda lax, x: lax.reshape(x, (8,), (1, 0))),
    ("transpose", [True], lambda lax, x: lax.transpose(x, (1, 0))),
    ("rev", [True], lambda lax, x: lax.rev(x, (1,))),
    ("slice", [True], lambda lax, x: lax.slice(x, (0, 1), (2, 3))),
    ("tile", [True], lambda lax, x: lax.tile(x, (1, 2))),
    ("concatenate", [True], lambda lax, x: lax.concatenate([x, x], 0)),
    ("pad", [True], lambda lax, x: lax.pad(x, 0.0, [(1, 0, 0), (0, 1, 1)])),
    ("pad_strong_value", [False],
     lambda lax, x: lax.pad(x, np.float32(0), [(1, 0, 0), (0, 1, 1)])),
    ("pad_batched_value", [True],
     lambda lax, x: lax.pad(x, lax.reduce_max(x, (0, 1)), [(1, 0, 0), (0, 1, 1)])),
    ("clamp_batched_bound", [True],
     lambda lax, x: lax.clamp(lax.reduce_min(x, (0, 1)), x, 0.5)),
    ("reduce_sum", [True], lambda lax, x: lax.reduce_sum(x, (1,))),
    ("argmax", [False], lambda lax, x: lax.argmax(x, 1, np.int32)),
    ("cummax", [True], lambda lax, x: lax.cummax(x, 0)),
    ("sort", [True], lambda lax, x: lax.sort(x, dimension=0)),
    ("top_k", [True, True], lambda lax, x: lax.top_k(x, 2)),
    ("integer_pow", [True], lambda lax, x: lax.integer_pow(x, 2)),
    ("round", [True], lambda lax, x: lax.round(x)),
    ("select_n", [True], lambda lax, x: lax.select_n(lax.lt(x, 0.0), x, lax.neg(x))),
    ("convert_element_type", [False],
     lambda lax, x: lax.convert_element_type(x, np.float32)),
]


@pytest.mark.spec("VMAP-28")
@pytest.mark.parametrize("weak, fn", [pytest.param(w, fn, id=name) for name, w, fn in WEAK])
def test_weak_types_preserved(jax, weak, fn):
    lax = jax.lax
    # A weakly typed batch with varied values: sin of running sums of a
    # weak fill stay weak (SPEC LAX-3).
    x = lax.sin(lax.cumsum(lax.cumsum(lax.full(_batch_shape(X, 1), 0.7), 0), 2))
    assert x.weak_type
    f = lambda v: fn(lax, v)  # noqa: E731
    compiled = check_vmap(jax, f, [x], (1,))
    eager = jax.vmap(f, in_axes=1)(x)
    assert _weak_types(jax, eager) == _weak_types(jax, compiled) == weak
    for a, b in zip(jax.tree_util.tree_leaves(eager), jax.tree_util.tree_leaves(compiled)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)
