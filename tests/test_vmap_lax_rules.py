"""The batching rules of the primitives of ``refjax._src.lax`` (refjax only).

* The batched programs print as real JAX's do (the same primitives and
  parameters), up to JAX's ``np.int64(...)`` reprs and line breaks.
* Cases JAX 0.10.2 cannot batch give the stacked per-example results:
  bitcasts to a wider dtype batched along the last axis, clamping a scalar
  between batched upper bounds, and scans of scalars (which refjax accepts
  per example, unlike JAX) (SPEC VMAP-25, VMAP-30, VMAP-31).  A sort of a
  scalar is JAX's ValueError, batched or not (VMAP-26).
* Differentiation goes through the batched rules: ``vmap(grad(f))`` and
  ``grad`` of a sum of ``vmap(f)`` equal the per-example gradients.
"""
import re

import jax as real_jax
import numpy as np
import pytest

import refjax
from refjax import lax


def _normalised(jaxpr):
    text = re.sub(r"np\.int64\((-?\d+)\)", r"\1", str(jaxpr))
    text = " ".join(text.split())
    return re.sub(r"\[ | \]", lambda m: m.group().strip(), text)


X = np.linspace(-2, 2, 36).reshape(3, 3, 4).astype(np.float32)
S = np.array([0.5, -1.0, 2.0], np.float32)

# (clause, function of lax, arguments, in_axes)
PRINTED = [
    ("VMAP-24", lambda m: m.numpy.sum, (X,), 0),
    ("VMAP-24", lambda m: lambda v: m.lax.argmax(v, 1, np.int32), (X,), 1),
    ("VMAP-25", lambda m: lambda v: m.lax.cumsum(v, 0, reverse=True), (X,), 2),
    ("VMAP-26", lambda m: lambda k, v: m.lax.sort((k, v), dimension=0, num_keys=1),
     (X, np.ones((3, 3), np.int32)), (2, None)),
    ("VMAP-23", lambda m: lambda v, p: m.lax.pad(v, p, [(1, 0, 1), (0, 1, 0)]),
     (X, S), (1, 0)),
    ("VMAP-29", lambda m: lambda p, a, b: m.lax.select(p, a, b),
     (S > 0, X, np.ones((3, 4), np.float32)), (0, 1, None)),
    ("VMAP-30", lambda m: lambda lo, v: m.lax.clamp(lo, v, 1.0), (S, X), (0, 1)),
    ("VMAP-22", lambda m: lambda a, b: m.lax.stack([a, b], 1), (X, X), (2, 2)),
    ("VMAP-20", lambda m: lambda v: m.lax.squeeze(m.lax.reshape(v, (3, 1, 3)), (1,)),
     (X,), 2),
    ("VMAP-27", lambda m: lambda v: m.lax.top_k(v, 2), (X,), 2),
    ("VMAP-21", lambda m: lambda v: m.lax.slice(v, (0, 1), (2, 4), (1, 2)), (X,), 1),
    ("VMAP-21", lambda m: lambda v: m.lax.split(v, (1, 3), axis=1), (X,), 1),
]


@pytest.mark.parametrize("clause, make, args, in_axes",
                         [pytest.param(*case, marks=pytest.mark.spec(case[0]),
                                       id=f"{case[0]}-{i}")
                          for i, case in enumerate(PRINTED)])
def test_batched_jaxpr_prints_like_jax(clause, make, args, in_axes):
    ours = refjax.make_jaxpr(refjax.vmap(make(refjax), in_axes))(*args)
    theirs = real_jax.make_jaxpr(real_jax.vmap(make(real_jax), in_axes))(*args)
    assert _normalised(ours) == _normalised(theirs)


@pytest.mark.spec("VMAP-24")
def test_vmap_sum_prints_exactly_like_jax():
    x = np.ones((3, 2), np.float32)
    ours = str(refjax.make_jaxpr(refjax.vmap(refjax.numpy.sum))(x))
    assert ours == str(real_jax.make_jaxpr(real_jax.vmap(real_jax.numpy.sum))(x))
    assert "reduce_sum[axes=(np.int64(1),) out_sharding=None] a" in ours


def _stacked(f, args, in_axes):
    examples = [f(*[a if ax is None else np.take(a, i, ax) for a, ax in zip(args, in_axes)])
                for i in range(len(S))]
    return np.stack([np.asarray(e) for e in examples])


def _check(f, args, in_axes):
    out = refjax.vmap(f, in_axes)(*args)
    np.testing.assert_array_equal(np.asarray(out), _stacked(f, args, in_axes))


@pytest.mark.spec("VMAP-31")
def test_bitcast_to_wider_dtype_batched_along_last_axis():
    x = np.arange(24, dtype=np.uint8).reshape(2, 4, 3)
    _check(lambda v: lax.bitcast_convert_type(v, np.int32), (x,), (2,))


@pytest.mark.spec("VMAP-30")
def test_clamp_of_scalar_between_batched_upper_bounds():
    _check(lambda hi: lax.clamp(np.float32(0), np.float32(1), hi), (S,), (0,))
    _check(lambda lo, hi: lax.clamp(lo, np.float32(1), hi), (S - 1, S), (0, 0))


@pytest.mark.spec("VMAP-25")
@pytest.mark.parametrize("op", [lax.cumsum, lax.cumprod, lax.cummax, lax.cummin,
                                lax.cumlogsumexp])
def test_cumulative_of_scalar_examples(op):
    _check(lambda v: op(v, 0, reverse=True), (S,), (0,))
    assert not refjax.make_jaxpr(refjax.vmap(op))(S).eqns


@pytest.mark.spec("VMAP-26")
def test_sort_of_scalar_examples():
    with pytest.raises(ValueError, match="out of bounds for array of dimension 0"):
        refjax.vmap(lambda a, b: lax.sort((a, b), dimension=0, num_keys=1),
                    (0, None))(S, np.float32(3))


# ---------------------------------------------------------------------------
# Differentiation through batched rules
# ---------------------------------------------------------------------------

def _loss_pad(x, p):
    return lax.reduce_sum(lax.mul(lax.pad(x, p, [(1, 1, 1), (0, 1, 0)]),
                                  lax.pad(x, p, [(1, 1, 1), (0, 1, 0)])), (0, 1))


def _loss_sort_cum(x, p):
    keys, vals = lax.sort((x, lax.mul(x, p)), dimension=1, num_keys=1)
    return lax.reduce_sum(lax.mul(lax.cumsum(vals, 0), lax.sin(keys)), (0, 1))


def _loss_select_clamp(x, p):
    picked = lax.select(lax.gt(p, 0.0), lax.clamp(lax.neg(p), x, p), lax.mul(x, x))
    return lax.reduce_max(lax.add(picked, lax.rev(x, (1,))), (0, 1))


LOSSES = [_loss_pad, _loss_sort_cum, _loss_select_clamp]


@pytest.mark.spec("VMAP-23", "VMAP-26", "VMAP-29")
@pytest.mark.parametrize("loss", LOSSES)
def test_vmap_of_grad_is_per_example_grad(loss):
    grad = refjax.grad(loss, argnums=(0, 1))
    gx, gp = refjax.vmap(grad, (1, 0))(X, S)
    per = [grad(X[:, i], S[i]) for i in range(len(S))]
    np.testing.assert_allclose(np.asarray(gx), np.stack([np.asarray(g[0]) for g in per]),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(gp), np.stack([np.asarray(g[1]) for g in per]),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.spec("VMAP-23", "VMAP-26", "VMAP-29")
@pytest.mark.parametrize("loss", LOSSES)
def test_grad_of_vmap_and_jacobians(loss):
    def total(x, p):
        return lax.reduce_sum(refjax.vmap(loss, (1, 0))(x, p), (0,))
    gx, gp = refjax.grad(total, argnums=(0, 1))(X, S)
    per = [refjax.grad(loss, argnums=(0, 1))(X[:, i], S[i]) for i in range(len(S))]
    np.testing.assert_allclose(np.asarray(gx), np.stack([np.asarray(g[0]) for g in per], 1),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(gp), [np.asarray(g[1]) for g in per],
                               rtol=1e-5, atol=1e-6)
    fwd = refjax.jacfwd(lambda p: refjax.vmap(loss, (1, 0))(X, p))(S)
    rev = refjax.jacrev(lambda p: refjax.vmap(loss, (1, 0))(X, p))(S)
    np.testing.assert_allclose(np.asarray(fwd), np.diag(np.asarray(gp)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(rev), np.diag(np.asarray(gp)), rtol=1e-5, atol=1e-6)
