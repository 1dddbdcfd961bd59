"""Conformance: operations on whole pytrees: tree.map over several trees and
its mismatch errors, reduce, reduce_associative, all, transpose, broadcast,
one-level flattening and node queries (SPEC TREE-17 .. TREE-21).

Only tree utilities and plain Python/NumPy values are used, so these tests run
before the rest of the implementation exists.  Classes are defined inside each
test because registration is global and permanent.  Shared helpers are in
conformance/_tree_util_helpers.py; the other TREE-* modules are
test_tree_util_*.py.
"""
import collections
import functools
import operator

import numpy as np
import pytest

from conformance._tree_util_helpers import ATuple, Point, lines, make_pair_node


# --------------------------------------------------------------------------
# TREE-17: tree.map over several trees
# --------------------------------------------------------------------------


@pytest.mark.spec("TREE-17")
def test_map_multi_tree(jax):
    assert jax.tree.map(lambda x, y: x + y, [1, (2, 3)], [10, (20, 30)]) == [11, (22, 33)]
    assert jax.tree.map(lambda x, y: (x, y), [1, 2], [(3, 4), 5]) == [(1, (3, 4)), (2, 5)]
    assert jax.tree.map(lambda x, y: (x, y), [None, 1], [None, 2]) == [None, (1, 2)]
    assert jax.tree.map(lambda x, y: (x, y), [1, None], [(2, 3), None]) == [(1, (2, 3)), None]
    assert jax.tree.map(lambda x, y, z: x + y + z, {"a": 1}, {"a": 2}, {"a": 3}) == {"a": 6}
    assert jax.tree.map(lambda x, y: x, 1, [1, 2]) == 1
    assert jax.tree.map(lambda *xs: list(xs), *[dict(t=1, obs=3), dict(t=2, obs=4)]) == \
        {"obs": [3, 4], "t": [1, 2]}
    assert jax.tree.map(lambda x: (x, x), [1, 2]) == [(1, 1), (2, 2)]
    assert jax.tree_util.tree_map(lambda x: x + 1, {"a": 1, "b": (2, None)}) == {"a": 2, "b": (3, None)}
    with pytest.raises(ZeroDivisionError):
        jax.tree.map(lambda x: 1 / 0, [1])


def map_error(jax, *trees, **kw):
    with pytest.raises(ValueError) as e:
        jax.tree.map(lambda *xs: xs, *trees, **kw)
    return lines(e)


@pytest.mark.spec("TREE-17")
def test_map_error_different_lengths(jax):
    assert map_error(jax, [1, 2], [1, 2, 3]) == [
        "pytree structure error: different lengths of list at key path",
        "    tree_map tree",
        "At that key path, the prefix pytree tree_map tree has a subtree of type list of "
        "length 2, but the full pytree has a subtree of the same type but of length 3."]
    assert map_error(jax, {"a": [1, [2, 3]]}, {"a": [1, [2]]})[:2] == [
        "pytree structure error: different lengths of list at key path",
        "    tree_map tree['a'][1]"]
    assert map_error(jax, [1, 2], [1, 2], [1])[0] == \
        "pytree structure error: different lengths of list at key path"
    assert map_error(jax, (1, 2), (1,))[0] == \
        "pytree structure error: different lengths of tuple at key path"


@pytest.mark.spec("TREE-17")
def test_map_error_different_types(jax):
    assert map_error(jax, (1, 2), [1, 2]) == [
        "pytree structure error: different types at key path",
        "    tree_map tree",
        "At that key path, the prefix pytree tree_map tree has a subtree of type",
        "    <class 'tuple'>",
        "but at the same key path the full pytree has a subtree of different type",
        "    <class 'list'>."]
    assert map_error(jax, [None, 1], [5, 2])[:6] == [
        "pytree structure error: different types at key path",
        "    tree_map tree[0]",
        "At that key path, the prefix pytree tree_map tree has a subtree of type",
        "    <class 'NoneType'>",
        "but at the same key path the full pytree has a subtree of different type",
        "    <class 'int'>."]
    assert map_error(jax, None, [1])[3] == "    <class 'NoneType'>"
    assert map_error(jax, {"a": 1}, collections.OrderedDict(a=1))[5] == \
        "    <class 'collections.OrderedDict'>."
    assert map_error(jax, collections.defaultdict(list, a=1), {"a": 1})[3] == \
        "    <class 'collections.defaultdict'>"
    assert map_error(jax, Point(1, 2), ATuple(1, 2))[3:] == [
        f"    {Point!r}",
        "but at the same key path the full pytree has a subtree of different type",
        f"    {ATuple!r}."]
    assert map_error(jax, [(1, 2)], [5])[1] == "    tree_map tree[0]"
    assert map_error(jax, {"a": 1}, 3)[0] == "pytree structure error: different types at key path"


@pytest.mark.spec("TREE-17")
def test_map_error_different_metadata(jax):
    assert map_error(jax, {"a": 1}, {"b": 1}) == [
        "pytree structure error: different pytree metadata at key path",
        "    tree_map tree",
        "At that key path, the prefix pytree tree_map tree has a subtree of type",
        "    <class 'dict'>",
        "with metadata",
        "    ('a',)",
        "but at the same key path the full pytree has a subtree of the same type but with metadata",
        "    ('b',)",
        "so the diff in the metadata at these pytree nodes is",
        "    - ('a',)",
        "    ?   ^",
        "",
        "    + ('b',)",
        "    ?   ^"]
    Pair = make_pair_node(jax.tree_util)
    assert map_error(jax, Pair(1, 2, aux="m"), Pair(2, 3, aux="n"))[3:] == [
        f"    {Pair!r}", "with metadata", "    m",
        "but at the same key path the full pytree has a subtree of the same type but with metadata",
        "    n", "so the diff in the metadata at these pytree nodes is", "    - m", "    + n"]
    assert map_error(jax, collections.OrderedDict(a=1, b=2), collections.OrderedDict(b=1, a=2))[5] == \
        "    ('a', 'b')"
    assert map_error(jax, collections.defaultdict(list, a=1), collections.defaultdict(dict, a=1))[5] == \
        "    (<class 'list'>, ('a',))"


@pytest.mark.spec("TREE-17")
def test_map_error_different_numbers_of_children(jax):
    assert map_error(jax, {"a": 1}, {"a": 1, "b": 2}) == [
        "pytree structure error: different numbers of pytree children at key path",
        "    tree_map tree",
        "At that key path, the prefix pytree tree_map tree has a subtree of type",
        "    <class 'dict'>",
        "with 1 child keys",
        "    a",
        "but at the same key path the full pytree has a subtree of the same type but with 2 child keys",
        "    a b",
        "so the symmetric difference on key sets is",
        "    b"]
    assert map_error(jax, {}, {"a": 1})[4:] == [
        "with 0 child keys", "    ",
        "but at the same key path the full pytree has a subtree of the same type but with 1 child keys",
        "    a", "so the symmetric difference on key sets is", "    a"]

    class V:
        def __init__(self, *xs):
            self.xs = xs
    jax.tree_util.register_pytree_node(V, lambda v: (v.xs, None), lambda aux, ch: V(*ch))
    assert map_error(jax, V(1, 2), V(1))[:8] == [
        "pytree structure error: different numbers of pytree children at key path",
        "    tree_map tree",
        "At that key path, the prefix pytree tree_map tree has a subtree of type",
        f"    {V!r}", "with 2 child keys", "    0 1",
        "but at the same key path the full pytree has a subtree of the same type but with 1 child keys",
        "    0"]
    assert map_error(jax, collections.OrderedDict(a=1), collections.OrderedDict(a=1, b=2))[0] == \
        "pytree structure error: different numbers of pytree children at key path"


@pytest.mark.spec("TREE-17")
def test_map_error_paths_through_custom_nodes(jax):
    tu = jax.tree_util

    class V:
        def __init__(self, *xs):
            self.xs = xs
    tu.register_pytree_node(V, lambda v: (v.xs, None), lambda aux, ch: V(*ch))
    assert map_error(jax, V(1, [1, 2]), V(1, [1]))[1] == "    tree_map tree[<flat index 1>]"
    assert map_error(jax, collections.OrderedDict(a=[1]), collections.OrderedDict(a=[1, 2]))[1] == \
        "    tree_map tree['a']"
    assert map_error(jax, tu.Partial(print, [1]), tu.Partial(print, [1, 2]))[1] == \
        "    tree_map tree[<flat index 0>][0]"


@pytest.mark.spec("TREE-17")
def test_map_error_quirks_of_jax_0_10_2(jax):
    NT = collections.namedtuple("NT", "a b c")
    # namedtuple children are all named after the first field in error paths
    assert map_error(jax, NT(1, 2, [1, 2]), NT(1, 2, [1]))[1] == "    tree_map tree.a"
    # is_leaf is only honoured at the root when locating the difference
    is_tuple = lambda x: isinstance(x, tuple)  # noqa: E731
    assert map_error(jax, [[(1, 2)], [1, 2]], [[[3]], [1]], is_leaf=is_tuple)[:2] == [
        "pytree structure error: different types at key path", "    tree_map tree[0][0]"]
    assert map_error(jax, [[(1, 2)], [1, 2]], [[(3, 4)], [1]], is_leaf=is_tuple)[:2] == [
        "pytree structure error: different lengths of list at key path", "    tree_map tree[1]"]


@pytest.mark.spec("TREE-17")
def test_map_with_path_error_name(jax):
    with pytest.raises(ValueError) as e:
        jax.tree.map_with_path(lambda p, x, y: 0, {"a": [1]}, {"a": [2, 3]})
    assert lines(e) == [
        "pytree structure error: different lengths of list at key path",
        "    tree_map_with_path tree['a']",
        "At that key path, the prefix pytree tree_map_with_path tree has a subtree of type "
        "list of length 1, but the full pytree has a subtree of the same type but of length 2."]


@pytest.mark.spec("TREE-17")
def test_map_error_from_unsortable_keys_in_other_tree(jax):
    with pytest.raises(ValueError, match="Comparator raised exception while sorting pytree"):
        jax.tree.map(lambda *x: x, {"a": 1}, {1: 2, "a": 3})


@pytest.mark.spec("TREE-17")
def test_static_metadata_compares_with_eq(jax):
    tu = jax.tree_util

    class S:
        def __init__(self, v):
            self.v = v
    tu.register_static(S)
    # no __eq__: distinct instances are different metadata
    assert map_error(jax, [S(1)], [S(1)])[:2] == [
        "pytree structure error: different pytree metadata at key path", "    tree_map tree[0]"]


# --------------------------------------------------------------------------
# TREE-18: reduce, reduce_associative, all
# --------------------------------------------------------------------------


@pytest.mark.spec("TREE-18")
def test_reduce(jax):
    assert jax.tree.reduce(operator.add, [1, (2, 3), {"x": 4}]) == 10
    assert jax.tree.reduce(operator.add, [], 0) == 0
    assert jax.tree.reduce(operator.add, [1, (2, 3)], 100) == 106
    assert jax.tree.reduce(operator.add, [1], initializer=5) == 6
    assert jax.tree.reduce(lambda a, b: (a, b), [1, 2], None) == ((None, 1), 2)
    assert jax.tree.reduce(lambda a, b: a + [b], [(1, 2), [3]], [],
                           is_leaf=lambda x: isinstance(x, tuple)) == [(1, 2), 3]
    assert jax.tree_util.tree_reduce(operator.mul, {"a": 2, "b": [3, None]}) == 6
    with pytest.raises(TypeError, match="reduce\\(\\) of empty iterable with no initial value"):
        jax.tree.reduce(operator.add, [None])


@pytest.mark.spec("TREE-18")
def test_reduce_associative(jax):
    show = lambda a, b: f"({a}+{b})"  # noqa: E731
    assert jax.tree.reduce_associative(show, [1, 2, 3, 4, 5]) == "((1+2)+(3+(4+5)))"
    assert jax.tree.reduce_associative(show, [1, 2, 3], identity=0) == "(1+(2+3))"
    assert jax.tree.reduce_associative(operator.add, [7], identity=0) == 7
    assert jax.tree.reduce_associative(operator.add, [], identity=0) == 0
    assert jax.tree_util.tree_reduce_associative(operator.add, {"a": 1, "b": (2, 3)}) == 6
    with pytest.raises(TypeError) as e:
        jax.tree.reduce_associative(operator.add, [])
    assert str(e.value) == "Must specify identity for parallel reduction of empty sequence."
    with pytest.raises(TypeError):
        jax.tree.reduce_associative(operator.add, [1], 0)  # identity is keyword-only


@pytest.mark.spec("TREE-18")
def test_all(jax):
    assert jax.tree.all([True, (1, 0)]) is False
    assert jax.tree.all([]) is True and jax.tree.all(None) is True
    assert jax.tree.all({"a": 1, "b": [2]}) is True
    assert jax.tree.all([(), 1], is_leaf=lambda x: x == ()) is False
    assert jax.tree_util.tree_all([1, "x"]) is True
    with pytest.raises(ValueError, match="truth value of an array"):
        jax.tree.all([np.array([True, False])])


# --------------------------------------------------------------------------
# TREE-19: transpose
# --------------------------------------------------------------------------


@pytest.mark.spec("TREE-19")
def test_transpose(jax):
    s = jax.tree.structure
    steps = [dict(t=1, obs=3), dict(t=2, obs=4)]
    assert jax.tree.transpose(s([0, 0]), s(steps[0]), steps) == {"obs": [3, 4], "t": [1, 2]}
    assert jax.tree.transpose(s([0, 0]), s((0, 0)), [(1, 2), (3, 4)]) == ([1, 3], [2, 4])
    assert jax.tree.transpose(s([0, 0]), None, [(1, 2), (3, 4)]) == ([1, 3], [2, 4])
    assert jax.tree.transpose(s({"a": 0, "b": 0}), s([0, 0, 0]),
                              {"a": [1, 2, 3], "b": [4, 5, 6]}) == \
        [{"a": 1, "b": 4}, {"a": 2, "b": 5}, {"a": 3, "b": 6}]
    assert jax.tree.transpose(s(0), s([0, 0]), [1, 2]) == [1, 2]
    # only the leaf count is checked
    assert jax.tree.transpose(s([0, 0]), s({"a": 0, "b": 0}), [(1, 2), (3, 4)]) == \
        {"a": [1, 3], "b": [2, 4]}
    assert jax.tree_util.tree_transpose(s([0, 0]), None, [(1, 2), [3, 4]]) == ([1, 3], [2, 4])


@pytest.mark.spec("TREE-19")
def test_transpose_mismatch(jax):
    s = jax.tree.structure
    with pytest.raises(TypeError) as e:
        jax.tree.transpose(s([0, 0]), s((0, 0, 0)), [(1, 2), (3, 4)])
    assert str(e.value) == ("Mismatch\nPyTreeDef([(*, *), (*, *)])\n != \n"
                            "PyTreeDef([(*, *, *), (*, *, *)])")
    with pytest.raises(TypeError) as e:
        jax.tree.transpose(s([0, 0]), None, [(1, 2), (3, 4, 5)])
    assert str(e.value) == ("Mismatch\nPyTreeDef([(*, *), (*, *, *)])\n != \n"
                            "PyTreeDef([(*, *), (*, *)])")


# --------------------------------------------------------------------------
# TREE-20: broadcast
# --------------------------------------------------------------------------


@pytest.mark.spec("TREE-20")
def test_broadcast(jax):
    assert jax.tree.broadcast([1, 2], [(3, 4), {"a": 5, "b": [6]}]) == [(1, 1), {"a": 2, "b": [2]}]
    assert jax.tree.broadcast(1, [(3, 4), None]) == [(1, 1), None]
    assert jax.tree.broadcast([None, 1], [None, (2, 3)]) == [None, (1, 1)]
    assert jax.tree.broadcast([(1, 2)], [[(5, 6), 7]], is_leaf=lambda x: isinstance(x, tuple)) == \
        [[((1, 2), (1, 2)), (1, 2)]]
    assert jax.tree_util.tree_broadcast({"a": 0}, {"a": {"x": 1, "y": 2}}) == {"a": {"x": 0, "y": 0}}


@pytest.mark.spec("TREE-20")
def test_broadcast_errors(jax):
    with pytest.raises(ValueError) as e:
        jax.tree.broadcast([1, 2], [1, 2, 3])
    assert lines(e) == [
        "pytree structure error: different lengths of list at key path",
        "    broadcast_prefix prefix_tree",
        "At that key path, the prefix pytree broadcast_prefix prefix_tree has a subtree of type "
        "list of length 2, but the full pytree has a subtree of the same type but of length 3."]
    with pytest.raises(ValueError) as e:
        jax.tree.broadcast([None, 1], [(5,), (2, 3)])
    assert lines(e)[:4] == [
        "pytree structure error: different types at key path",
        "    broadcast_prefix prefix_tree[0]",
        "At that key path, the prefix pytree broadcast_prefix prefix_tree has a subtree of type",
        "    <class 'NoneType'>"]
    with pytest.raises(ValueError, match="different pytree metadata at key path"):
        jax.tree.broadcast({"a": 1}, {"b": 1})


# --------------------------------------------------------------------------
# TREE-21: one-level flattening and node queries
# --------------------------------------------------------------------------


@pytest.mark.spec("TREE-21")
def test_flatten_one_level(jax):
    tu = jax.tree_util
    children, meta = tu.flatten_one_level((1, 2))
    assert tuple(children) == (1, 2) and meta is None
    children, meta = tu.flatten_one_level([1, [2]])
    assert list(children) == [1, [2]] and meta is None
    children, meta = tu.flatten_one_level({"b": 1, "a": 2})
    assert tuple(children) == (2, 1) and meta == ("a", "b")
    children, meta = tu.flatten_one_level(None)
    assert tuple(children) == () and meta is None
    children, meta = tu.flatten_one_level(Point(1, 2))
    assert list(children) == [1, 2] and meta is Point
    children, meta = tu.flatten_one_level(collections.defaultdict(list, b=1, a=2))
    assert list(children) == [2, 1] and meta == (list, ("a", "b"))
    for leaf in (1, "abc", object()):
        with pytest.raises(ValueError) as e:
            tu.flatten_one_level(leaf)
        assert str(e.value) == f"can't tree-flatten type: {type(leaf)}"


@pytest.mark.spec("TREE-21")
def test_flatten_one_level_with_keys(jax):
    tu = jax.tree_util
    pairs, meta = tu.flatten_one_level_with_keys([1, 2])
    assert list(pairs) == [(tu.SequenceKey(0), 1), (tu.SequenceKey(1), 2)] and meta is None
    pairs, meta = tu.flatten_one_level_with_keys({"b": 1, "a": 2})
    assert list(pairs) == [(tu.DictKey("a"), 2), (tu.DictKey("b"), 1)] and meta == ("a", "b")
    Pair = make_pair_node(tu)
    pairs, meta = tu.flatten_one_level_with_keys(Pair(1, 2, aux="m"))
    assert list(pairs) == [(tu.FlattenedIndexKey(0), 1), (tu.FlattenedIndexKey(1), 2)]
    assert meta == "m"
    # JAX 0.10.2 quirk: every namedtuple child is keyed by the first field
    pairs, meta = tu.flatten_one_level_with_keys(ATuple(1, 2))
    assert list(pairs) == [(tu.GetAttrKey("foo"), 1), (tu.GetAttrKey("foo"), 2)] and meta is ATuple
    with pytest.raises(ValueError, match="can't tree-flatten type: <class 'int'>"):
        tu.flatten_one_level_with_keys(1)


@pytest.mark.spec("TREE-21")
def test_is_tree_node_and_all_leaves(jax):
    tu = jax.tree_util
    nodes = [list, tuple, dict, type(None), collections.OrderedDict,
             collections.defaultdict, tu.Partial, Point]
    leaves = [int, str, functools.partial, object, np.ndarray]
    assert all(tu.is_tree_node(t) for t in nodes)
    assert not any(tu.is_tree_node(t) for t in leaves)
    assert tu.all_leaves(jax.tree.leaves({"a": [1, 2, 3]}))
    assert not tu.all_leaves([{"a": [1, 2, 3]}])
    assert tu.all_leaves([1, 2]) and not tu.all_leaves([1, (2,)])
    assert not tu.all_leaves([None]) and tu.all_leaves([])
    assert tu.all_leaves(iter([np.zeros(2), "x", object()]))
    assert tu.all_leaves([1, (2,)], is_leaf=lambda x: isinstance(x, tuple))
    assert tu.all_leaves([None], is_leaf=lambda x: x is None)
    assert not tu.all_leaves([[1]], is_leaf=lambda x: False)


@pytest.mark.spec("TREE-21")
def test_default_registry(jax):
    tu = jax.tree_util
    reg = tu.default_registry
    leaves, td = reg.flatten([1, (2,)])
    assert leaves == [1, 2] and td == jax.tree.structure([1, (2,)])
    assert reg.flatten([None], lambda x: x is None)[0] == [None]
    flat, _ = reg.flatten_with_path({"a": [1]})
    assert flat == [((tu.DictKey("a"), tu.SequenceKey(0)), 1)]
    assert reg.flatten_one_level(1) is None
    assert tuple(reg.flatten_one_level((1, 2))[0]) == (1, 2)
    assert reg.flatten_one_level_with_keys(1) is None
    assert reg.is_node(list) and not reg.is_node(int)

    class R:
        def __init__(self, x):
            self.x = x
    reg.register_node(R, lambda r: ((r.x,), None), lambda aux, ch: R(*ch))
    assert jax.tree.leaves(R(5)) == [5]
