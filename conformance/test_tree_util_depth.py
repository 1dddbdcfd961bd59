"""Conformance: pytrees nested 900 levels deep work in every tree utility
and through jit, grad and vmap (SPEC TREE-28).

JAX's own limit is near Python's recursion limit (about 1,000 levels), so
900 is as deep as both implementations must go.  The other TREE-* modules
are test_tree_util_*.py.
"""
import collections

import numpy as np
import pytest

DEPTH = 900

Pair = collections.namedtuple("Pair", ["left", "right"])


def nest(leaf, depth=DEPTH, wrap=lambda t: [t]):
    tree = leaf
    for _ in range(depth):
        tree = wrap(tree)
    return tree


def innermost(tree, depth=DEPTH, unwrap=lambda t: t[0]):
    """The leaf of ``nest(leaf, depth, wrap)``, found without recursion (a
    comparison such as ``==`` of two such trees recurses in CPython)."""
    for _ in range(depth):
        tree = unwrap(tree)
    return tree


WRAPS = {
    "list": (lambda t: [t], lambda t: t[0]),
    "tuple with None": (lambda t: (None, t), lambda t: t[1]),
    "dict": (lambda t: {"a": t, "b": 2}, lambda t: t["a"]),
    "namedtuple": (lambda t: Pair(1, t), lambda t: t.right),
}


@pytest.mark.spec("TREE-28")
@pytest.mark.parametrize("kind", list(WRAPS))
def test_flatten_unflatten_and_map(jax, kind):
    wrap, unwrap = WRAPS[kind]
    tree = nest(1.0, wrap=wrap)
    leaves, treedef = jax.tree_util.tree_flatten(tree)
    extra = {"list": 0, "tuple with None": 0, "dict": DEPTH, "namedtuple": DEPTH}[kind]
    assert len(leaves) == 1 + extra and leaves[0] == 1.0
    assert treedef.num_leaves == 1 + extra
    rebuilt = jax.tree_util.tree_unflatten(treedef, leaves)
    assert innermost(rebuilt, unwrap=unwrap) == 1.0
    assert jax.tree_util.tree_structure(rebuilt) == treedef
    doubled = jax.tree.map(lambda x: x * 2, tree)
    assert innermost(doubled, unwrap=unwrap) == 2.0
    summed = jax.tree.map(lambda x, y: x + y, tree, doubled)
    assert innermost(summed, unwrap=unwrap) == 3.0


@pytest.mark.spec("TREE-28")
def test_paths_structure_equality_hash_and_repr(jax):
    tree = nest(1.0)
    (path, leaf), = jax.tree_util.tree_leaves_with_path(tree)
    assert leaf == 1.0 and len(path) == DEPTH
    assert jax.tree_util.keystr(path) == "[0]" * DEPTH
    a, b = jax.tree_util.tree_structure(tree), jax.tree_util.tree_structure(nest(2.0))
    assert a == b and hash(a) == hash(b)
    assert a != jax.tree_util.tree_structure(nest(1.0, DEPTH - 1))
    assert repr(a) == "PyTreeDef(" + "[" * DEPTH + "*" + "]" * DEPTH + ")"
    assert jax.tree_util.tree_leaves(tree, is_leaf=lambda x: x == [1.0]) == [[1.0]]


@pytest.mark.spec("TREE-28")
def test_jit_grad_and_vmap_of_a_deep_tree(jax, jnp):
    tree = nest(jnp.float32(3.0))
    out = jax.jit(lambda t: jax.tree.map(lambda v: v * 2, t))(tree)
    assert float(innermost(out)) == 6.0
    assert float(jax.jit(lambda t: jax.tree.leaves(t)[0] + 1)(tree)) == 4.0
    grads = jax.grad(lambda t: jax.tree.leaves(t)[0] ** 2)(tree)
    assert float(innermost(grads)) == 6.0
    batched = jax.vmap(lambda t: jax.tree.leaves(t)[0] * 2)(nest(jnp.arange(3.0)))
    np.testing.assert_array_equal(batched, [0.0, 2.0, 4.0])


@pytest.mark.spec("TREE-28")
def test_treedef_methods_and_pickling(jax):
    import pickle
    treedef = jax.tree_util.tree_structure(nest(1.0))
    assert innermost(treedef.from_iterable_tree(nest(5.0))) == 5.0
    pair = jax.tree_util.tree_structure((1, 2))
    composed = treedef.compose(pair)
    assert composed.num_leaves == 2 and composed.num_nodes == DEPTH + 3
    assert pickle.loads(pickle.dumps(treedef)) == treedef
    assert jax.tree_util.tree_transpose(
        treedef, pair, nest((1.0, 2.0))) == (nest(1.0), nest(2.0))
