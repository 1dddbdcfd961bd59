"""refjax-only tests of trees deeper than Python's stack (SPEC TREE-28):
JAX stops near 1,000 levels; refjax goes on with explicit stacks."""
import pickle
import sys

import pytest

import refjax as jax
import refjax.numpy as jnp

DEPTH = 5 * sys.getrecursionlimit()


def nest(leaf, depth=DEPTH):
    tree = leaf
    for _ in range(depth):
        tree = {"a": [tree, None]}
    return tree


def innermost(tree, depth=DEPTH):
    for _ in range(depth):
        tree = tree["a"][0]
    return tree


@pytest.mark.spec("TREE-28")
def test_tree_utilities_past_the_recursion_limit():
    tree = nest(1.0)
    leaves, treedef = jax.tree_util.tree_flatten(tree)
    assert leaves == [1.0] and treedef.num_nodes == 3 * DEPTH + 1
    assert innermost(jax.tree_util.tree_unflatten(treedef, [2.0])) == 2.0
    assert innermost(jax.tree.map(lambda x, y: x + y, tree, tree)) == 2.0
    (path, _), = jax.tree_util.tree_leaves_with_path(tree)
    keys = (jax.tree_util.DictKey("a"), jax.tree_util.SequenceKey(0))
    assert path == keys * DEPTH
    (path, leaf), = jax.tree_util.tree_leaves_with_path(
        tree, is_leaf=lambda p, x: len(p) == 4 and x is not None,
        is_leaf_takes_path=True)
    assert path == keys * 2 and innermost(leaf, DEPTH - 2) == 1.0
    other = jax.tree_util.tree_structure(nest(3.0))
    assert treedef == other and hash(treedef) == hash(other)
    assert repr(treedef).count("None") == DEPTH
    copy = pickle.loads(pickle.dumps(treedef))
    assert copy == treedef and copy.num_nodes == treedef.num_nodes
    assert treedef.compose(treedef).num_nodes == 6 * DEPTH + 1
    iterables = 5.0
    for _ in range(DEPTH):
        iterables = [[iterables, []]]     # dict -> its one value, None -> nothing
    assert innermost(treedef.from_iterable_tree(iterables)) == 5.0
    assert treedef.walk(lambda results, aux: sum(results), None, [4]) == 4


@pytest.mark.spec("TREE-28")
def test_is_leaf_stops_a_deep_walk():
    tree = nest(1.0)
    leaves = jax.tree_util.tree_leaves(
        tree, is_leaf=lambda x: isinstance(x, list) and x[1] is None and x[0] == 1.0)
    assert leaves == [[1.0, None]]


@pytest.mark.spec("TREE-28")
def test_jit_past_the_recursion_limit():
    tree = nest(jnp.float32(2.0))
    out = jax.jit(lambda t: jax.tree.map(lambda v: v * 3, t))(tree)
    assert float(innermost(out)) == 6.0
