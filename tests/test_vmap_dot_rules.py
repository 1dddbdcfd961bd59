"""The batching rules of dot_general, conv_general_dilated and the linalg
primitives, exhaustively over mapped-axis positions (SPEC VMAP-60..VMAP-63).

refjax only: it runs every case quickly, where real JAX would compile each.
The conformance file conformance/test_vmap_linalg.py holds the checks that
run on both implementations."""
import itertools

import numpy as np
import pytest

import refjax
from refjax import lax
from refjax._src.lax import dot as dot_mod

B = 3


def _stacked(f, args, in_axes):
    outs = [f(*[a if ax is None else np.take(a, i, axis=ax)
                for a, ax in zip(args, in_axes)]) for i in range(B)]
    return [np.stack([np.asarray(o[k]) for o in outs]) for k in range(len(outs[0]))]


def _check(f, args, in_axes, tol=2e-4):
    got = refjax.vmap(lambda *a: tuple(refjax.tree_util.tree_leaves(f(*a))),
                      in_axes=in_axes)(*args)
    want = _stacked(lambda *a: tuple(refjax.tree_util.tree_leaves(f(*a))), args, in_axes)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), w, rtol=tol, atol=tol)


def _mapped(x, axis):
    """``x`` (per-example) stacked ``B`` times along ``axis``, copies scaled
    apart (which keeps matrices triangular-solvable and positive definite);
    ``x`` itself when ``axis`` is None."""
    if axis is None:
        return x
    copies = np.stack([x * (1 + 0.25 * i) for i in range(B)])
    return np.moveaxis(copies, 0, axis)


# Per-example operands (2, 4, 5) and (2, 5, 3) under several dimension numbers.
_DOT_CASES = [
    (((2,), (1,)), ((0,), (0,))),         # batched matmul
    (((1, 2), (2, 0)), ((), ())),         # contract two axes, no batch
    (((), ()), ((0,), (0,))),             # batch only: outer products
    (((2,), (1,)), ((), ())),             # free axes on both sides
]


@pytest.mark.parametrize("dn", _DOT_CASES)
@pytest.mark.parametrize("lbd,rbd", [(l, r) for l in (None, 0, 1, 2, 3)
                                     for r in (None, 0, 1, 2, 3)
                                     if (l, r) != (None, None)])
def test_dot_general_every_mapped_position(dn, lbd, rbd):
    rng = np.random.RandomState(0)
    lhs = rng.randn(2, 4, 5).astype(np.float32)
    rhs = rng.randn(2, 5, 3).astype(np.float32)
    if dn[0] == ((1, 2), (2, 0)):
        rhs = rng.randn(5, 3, 4).astype(np.float32)
    _check(lambda a, b: (lax.dot_general(a, b, dn),),
           (_mapped(lhs, lbd), _mapped(rhs, rbd)), (lbd, rbd))


def test_dot_general_output_axis_is_where_the_free_axis_lands():
    """Mapped on one side, the output's mapped axis is counted among that
    operand's free axes; no transpose of the operand is needed."""
    dn = (((2,), (1,)), ((0,), (0,)))
    assert dot_mod._batched_dimension_numbers(4, (1, None), dn) == (
        (((3,), (1,)), ((0,), (0,))), 1)
    assert dot_mod._batched_dimension_numbers(4, (3, None), dn) == (
        (((2,), (1,)), ((0,), (0,))), 2)
    assert dot_mod._batched_dimension_numbers(3, (None, 3), dn) == (
        (((2,), (1,)), ((0,), (0,))), 3)
    assert dot_mod._batched_dimension_numbers(4, (2, 0), dn) == (
        (((3,), (2,)), ((2, 0), (0, 1))), 0)


@pytest.mark.parametrize("groups,batch_groups", [(1, 1), (2, 1), (1, 2)])
@pytest.mark.parametrize("lbd,rbd", [(l, r) for l in (None, 0, 2, 3)
                                     for r in (None, 0, 1, 3)
                                     if (l, r) != (None, None)])
def test_conv_every_mapped_position(groups, batch_groups, lbd, rbd):
    rng = np.random.RandomState(1)
    x = rng.randn(4, 4, 5).astype(np.float32)                # N C H
    w = rng.randn(6, 4 // groups, 3).astype(np.float32)      # O I K

    def f(x, w):
        return (lax.conv_general_dilated(x, w, (2,), [(1, 2)], rhs_dilation=(2,),
                                         feature_group_count=groups,
                                         batch_group_count=batch_groups),)
    _check(f, (_mapped(x, lbd), _mapped(w, rbd)), (lbd, rbd))


@pytest.mark.parametrize("left_side,lower,transpose_a,unit_diagonal",
                         list(itertools.product((True, False), repeat=4)))
@pytest.mark.parametrize("a_dim,b_dim", [(None, 0), (None, 1), (None, 2), (0, None),
                                         (1, 2)])
def test_triangular_solve_every_flag(left_side, lower, transpose_a, unit_diagonal,
                                     a_dim, b_dim):
    rng = np.random.RandomState(2)
    a = (rng.randn(4, 4) + 4 * np.eye(4)).astype(np.float32)
    b = rng.randn(4, 2).astype(np.float32) if left_side else \
        rng.randn(2, 4).astype(np.float32)

    def f(a, b):
        return (lax.linalg.triangular_solve(
            a, b, left_side=left_side, lower=lower, transpose_a=transpose_a,
            unit_diagonal=unit_diagonal),)
    _check(f, (_mapped(a, a_dim), _mapped(b, b_dim)), (a_dim, b_dim))


@pytest.mark.parametrize("axis", [0, 1, 2, 3])
def test_factorisations_with_extra_batch_axis(axis):
    """Operands that already have a leading batch axis of their own."""
    rng = np.random.RandomState(3)
    a = (rng.randn(2, 4, 4) + 4 * np.eye(4)).astype(np.float32)
    spd = np.einsum("bij,bkj->bik", a, a)

    def f(a, spd):
        q, r = lax.linalg.qr(a)
        return (lax.linalg.cholesky(spd), *lax.linalg.lu(a),
                lax.linalg.svd(a, compute_uv=False), lax.linalg.eigh(spd)[1],
                abs(r))
    _check(f, (_mapped(a, axis), _mapped(spd, axis)), (axis, axis), tol=1e-3)
