"""refjax internals of the windowed and general reductions (SPEC WIN-2, WIN-6):
rules JAX cannot be compared on, and the primitives bound directly."""
import numpy as np
import pytest

import refjax
import refjax.numpy as jnp
from refjax import lax
from refjax._src.core import ShapedArray
from refjax._src.lax import windowed_reductions as W
from refjax._src.lax.generic_reduce import reduction_jaxpr

RNG = np.random.RandomState(3)


@pytest.mark.spec("WIN-6")
@pytest.mark.parametrize("op,init", [(lax.max, -np.inf), (lax.min, np.inf)])
def test_chooser_gradient_with_negative_padding(op, init):
    """JAX's CPU lowering fails here; refjax's gradient equals the gradient
    through an explicit crop-and-pad followed by a VALID window."""
    x = jnp.asarray((RNG.permutation(30).reshape(5, 6) * 0.3).astype(np.float32))
    padding = ((-1, 1), (2, -1))

    def direct(v):
        return (lax.reduce_window(v, init, op, (2, 2), (1, 2), padding) ** 2).sum()

    def explicit(v):
        padded = lax.pad(v, jnp.float32(init), [(lo, hi, 0) for lo, hi in padding])
        return (lax.reduce_window(padded, init, op, (2, 2), (1, 2), "VALID") ** 2).sum()
    np.testing.assert_allclose(refjax.grad(direct)(x), refjax.grad(explicit)(x))


@pytest.mark.spec("WIN-6")
def test_select_and_scatter_matches_select_and_scatter_add():
    """The general primitive, with ``ge`` and ``add`` jaxprs, is the
    specialised one when no window is all padding."""
    operand = jnp.asarray(RNG.randn(5, 6).astype(np.float32))
    params = dict(window_dimensions=(2, 3), window_strides=(2, 1),
                  padding=((1, 0), (0, 1)))
    source = jnp.asarray(RNG.randn(3, 5).astype(np.float32))
    aval = ShapedArray((), np.dtype(np.float32))
    tree = refjax.tree_util.tree_structure(0.)
    select, _ = reduction_jaxpr(lambda a, b: lax.ge(a, b), [aval], tree, "select")
    scatter, _ = reduction_jaxpr(lax.add, [aval], tree, "scatter")
    general = W.select_and_scatter_p.bind(
        operand, source, jnp.float32(0), select_jaxpr=select.jaxpr, select_consts=(),
        scatter_jaxpr=scatter.jaxpr, scatter_consts=(), **params)
    special = W.select_and_scatter_add_p.bind(source, operand, select_prim=lax.ge_p,
                                              **params)
    np.testing.assert_allclose(general, special, rtol=1e-6)
    assert np.asarray(special).sum() == pytest.approx(np.asarray(source).sum(), rel=1e-5)


@pytest.mark.spec("WIN-2")
def test_reduction_jaxpr_is_cached_per_function():
    aval = ShapedArray((), np.dtype(np.float32))
    tree = refjax.tree_util.tree_structure(0.)

    def comp(a, b):
        return a * b
    first = reduction_jaxpr(comp, [aval], tree)
    assert reduction_jaxpr(comp, [aval], tree) is first


@pytest.mark.spec("WIN-7")
def test_window_rules_are_registered():
    for prim in (W.reduce_window_sum_p, W.reduce_window_max_p, W.reduce_window_min_p,
                 W.select_and_gather_add_p, W.select_and_scatter_add_p, W.reduce_window_p):
        assert prim.impl and prim.abstract_eval and prim.jvp and prim.batch
    for prim in (W.reduce_window_sum_p, W.select_and_gather_add_p,
                 W.select_and_scatter_add_p):
        assert prim.transpose is not None
    assert set(W.select_and_scatter_p.unsupported) == {"jvp", "batch"}
