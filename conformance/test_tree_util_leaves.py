"""Conformance: pytrees, what is a leaf and what is a node: leaves and nodes,
None, dict key order, namedtuples, exact node types, empty containers,
iterator leaves and is_leaf (SPEC TREE-1 .. TREE-8).

Only tree utilities and plain Python/NumPy values are used, so these tests run
before the rest of the implementation exists.  Classes are defined inside each
test because registration is global and permanent.  Shared helpers are in
conformance/_tree_util_helpers.py; the other TREE-* modules are
test_tree_util_*.py.
"""
import collections
import dataclasses
import functools
import warnings
from typing import Any, NamedTuple

import numpy as np
import pytest

from conformance._tree_util_helpers import ATuple, Point, make_pair_node


# --------------------------------------------------------------------------
# TREE-1: leaves and nodes
# --------------------------------------------------------------------------


@pytest.mark.spec("TREE-1")
def test_leaf_counts_of_doc_examples(jax):
    trees = [[1, "a", object()], (1, (2, 3), ()), [1, {"k1": 2, "k2": (3, 4)}, 5],
             {"a": 2, "b": (2, 3)}, np.array([1, 2, 3])]
    assert [len(jax.tree.leaves(t)) for t in trees] == [3, 3, 5, 3, 1]


@pytest.mark.spec("TREE-1")
def test_non_container_values_are_single_leaves(jax):
    class Special:
        def __init__(self, x, y):
            self.x, self.y = x, y

    @dataclasses.dataclass
    class Plain:
        a: Any

    values = ["abc", b"x", np.zeros(3), np.float32(1), {1, 2}, frozenset([1]),
              range(3), functools.partial(max, 1), Special(1, 2), Plain(1), 1.5,
              3 + 1j, True, object, Ellipsis]
    for v in values:
        leaves, treedef = jax.tree.flatten(v)
        assert len(leaves) == 1 and leaves[0] is v
        assert repr(treedef) == "PyTreeDef(*)"


@pytest.mark.spec("TREE-1")
def test_flatten_order_is_depth_first_left_to_right(jax):
    tree = [1, (2, [3, {"b": 5, "a": 4}]), ATuple(6, (7, None)), 8]
    assert jax.tree.leaves(tree) == [1, 2, 3, 4, 5, 6, 7, 8]


@pytest.mark.spec("TREE-1")
def test_shape_tuples_are_nodes(jax):
    tree = [np.zeros((2, 3)), np.zeros((3, 4))]
    shapes = jax.tree.map(lambda x: x.shape, tree)
    assert shapes == [(2, 3), (3, 4)]
    assert jax.tree.map(lambda n: n * 10, shapes) == [(20, 30), (30, 40)]
    assert jax.tree.leaves(shapes) == [2, 3, 3, 4]


@pytest.mark.spec("TREE-1")
def test_map_on_unregistered_class_gets_the_whole_object(jax):
    class Special:
        def __init__(self, x, y):
            self.x, self.y = x, y
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+: 'Special' and 'int'"):
        jax.tree.map(lambda x: x + 1, [Special(0, 1), Special(2, 4)])


@pytest.mark.spec("TREE-1")
def test_any_leaf_type_is_fine_for_tree_utilities(jax):
    assert jax.tree.map(lambda v: v * 2, {"s": "ab", "n": 3}) == {"n": 6, "s": "abab"}


TREE_UTIL_NAMES = [
    "DictKey", "FlattenedIndexKey", "GetAttrKey", "KeyEntry", "KeyPath", "Partial",
    "PyTreeDef", "SequenceKey", "all_leaves", "default_registry", "flatten_one_level",
    "flatten_one_level_with_keys", "is_tree_node", "keystr", "register_dataclass",
    "register_pytree_node", "register_pytree_node_class", "register_pytree_with_keys",
    "register_pytree_with_keys_class", "register_static", "tree_all", "tree_broadcast",
    "tree_flatten", "tree_flatten_with_path", "tree_leaves", "tree_leaves_with_path",
    "tree_map", "tree_map_with_path", "tree_reduce", "tree_reduce_associative",
    "tree_structure", "tree_transpose", "tree_unflatten", "treedef_children",
    "treedef_is_leaf", "treedef_tuple"]
TREE_NAMES = ["all", "broadcast", "flatten", "flatten_with_path", "leaves", "leaves_with_path",
              "map", "map_with_path", "reduce", "reduce_associative", "static", "structure",
              "transpose", "unflatten"]


@pytest.mark.spec("TREE-1")
def test_public_names_and_aliases(jax):
    tu = jax.tree_util
    assert all(hasattr(tu, name) for name in TREE_UTIL_NAMES)
    assert all(hasattr(jax.tree, name) for name in TREE_NAMES)
    tree = {"b": [1, (2, None)], "a": Point(3, 4)}
    assert tu.tree_leaves(tree) == jax.tree.leaves(tree) == [3, 4, 1, 2]
    assert tu.tree_structure(tree) == jax.tree.structure(tree)
    assert tu.tree_flatten(tree) == jax.tree.flatten(tree)
    assert tu.tree_unflatten(tu.tree_structure(tree), range(4)) == \
        {"a": Point(0, 1), "b": [2, (3, None)]}
    assert tu.tree_flatten_with_path(tree) == jax.tree.flatten_with_path(tree)
    assert tu.tree_all(tree) == jax.tree.all(tree)


# --------------------------------------------------------------------------
# TREE-2: None
# --------------------------------------------------------------------------


@pytest.mark.spec("TREE-2")
def test_none_is_an_empty_node(jax):
    assert jax.tree.leaves([None, None, None]) == []
    assert jax.tree.leaves([None, None, None], is_leaf=lambda x: x is None) == [None] * 3
    assert repr(jax.tree.structure(None)) == "PyTreeDef(None)"
    assert repr(jax.tree.structure([None, 1])) == "PyTreeDef([None, *])"
    assert jax.tree.map(lambda x: x + 1, [None, 1]) == [None, 2]
    td = jax.tree.structure(None)
    assert (td.num_leaves, td.num_nodes) == (0, 1)
    assert td.unflatten([]) is None


@pytest.mark.spec("TREE-2")
def test_map_never_calls_f_on_none(jax):
    calls = []
    out = jax.tree.map(lambda x: calls.append(x) or x, {"a": None, "b": 1})
    assert out == {"a": None, "b": 1} and calls == [1]
    assert jax.tree.map(lambda x: x * 2, {"a": 1, "b": None, "c": (3, 4)}) == \
        {"a": 2, "b": None, "c": (6, 8)}


@pytest.mark.spec("TREE-2")
def test_none_leaf_via_is_leaf_in_map(jax):
    out = jax.tree.map(lambda x, y: (x, y), [None, 1], [5, 6],
                       is_leaf=lambda x: x is None)
    assert out == [(None, 5), (1, 6)]


# --------------------------------------------------------------------------
# TREE-3: dict key order
# --------------------------------------------------------------------------


@pytest.mark.spec("TREE-3")
def test_dicts_flatten_in_sorted_key_order(jax):
    leaves, td = jax.tree.flatten({"b": 1, "a": 2, "c": 3})
    assert leaves == [2, 1, 3]
    assert repr(td) == "PyTreeDef({'a': *, 'b': *, 'c': *})"
    out = jax.tree.unflatten(td, [10, 20, 30])
    assert out == {"a": 10, "b": 20, "c": 30} and list(out) == ["a", "b", "c"]
    assert jax.tree.structure({"b": 1, "a": 2}) == jax.tree.structure({"a": 0, "b": 0})
    assert list(jax.tree.map(lambda x: x, {"z": 1, "y": 2})) == ["y", "z"]


@pytest.mark.spec("TREE-3")
def test_non_string_keys_sort_too(jax):
    assert jax.tree.leaves({2: "a", 1: "b"}) == ["b", "a"]
    assert repr(jax.tree.structure({(1, 2): 1, (0, 5): 2})) == "PyTreeDef({(0, 5): *, (1, 2): *})"
    assert repr(jax.tree.structure({1.5: 1, 1: 2})) == "PyTreeDef({1: *, 1.5: *})"
    assert jax.tree.leaves({None: 1}) == [1]


@pytest.mark.spec("TREE-3")
def test_unsortable_dict_keys_raise(jax):
    for fn in (jax.tree.leaves, jax.tree.structure, jax.tree.flatten_with_path,
               lambda t: jax.tree.map(lambda x: x + 1, t)):
        with pytest.raises(ValueError) as e:
            fn({"outer": {1: 7, "y": 42}})
        assert str(e.value) == "Comparator raised exception while sorting pytree dictionary keys."
        assert isinstance(e.value.__cause__, TypeError)


@pytest.mark.spec("TREE-3")
def test_ordered_dict_keeps_insertion_order(jax):
    od = collections.OrderedDict([("b", 1), ("a", 2)])
    assert jax.tree.leaves(od) == [1, 2]
    out = jax.tree.map(lambda x: x * 10, od)
    assert type(out) is collections.OrderedDict and list(out.items()) == [("b", 10), ("a", 20)]
    assert jax.tree.leaves(collections.OrderedDict([(1, "x"), ("y", 2)])) == ["x", 2]
    assert jax.tree.structure(od) != jax.tree.structure(collections.OrderedDict([("a", 1), ("b", 2)]))


@pytest.mark.spec("TREE-3")
def test_defaultdict_sorts_and_keeps_factory(jax):
    d = collections.defaultdict(list, b=1, a=2)
    leaves, td = jax.tree.flatten(d)
    assert leaves == [2, 1]
    assert repr(td) == "PyTreeDef(CustomNode(defaultdict[(<class 'list'>, ('a', 'b'))], [*, *]))"
    out = jax.tree.map(lambda x: x + 1, d)
    assert type(out) is collections.defaultdict and out.default_factory is list
    assert dict(out) == {"a": 3, "b": 2}
    assert td != jax.tree.structure(collections.defaultdict(dict, b=1, a=2))
    with pytest.raises(TypeError, match="'<' not supported"):
        jax.tree.leaves(collections.defaultdict(list, {1: 7, "y": 42}))


# --------------------------------------------------------------------------
# TREE-4: namedtuples
# --------------------------------------------------------------------------


@pytest.mark.spec("TREE-4")
def test_namedtuple_fields_are_all_children(jax):
    class MyOtherContainer(NamedTuple):
        name: str
        a: Any
        b: Any
    assert jax.tree.leaves([MyOtherContainer("Alice", 1, 2)]) == ["Alice", 1, 2]
    assert repr(jax.tree.structure(MyOtherContainer("Alice", 1, 2))) == \
        "PyTreeDef(CustomNode(namedtuple[MyOtherContainer], [*, *, *]))"
    out = jax.tree.map(lambda x: x * 2, MyOtherContainer("A", 1, 2))
    assert type(out) is MyOtherContainer and out == ("AA", 2, 4)


@pytest.mark.spec("TREE-4")
def test_namedtuple_structures_differ_by_class(jax):
    P1 = collections.namedtuple("P", "a")
    P2 = collections.namedtuple("P", "a")
    assert jax.tree.structure(P1(1)) != jax.tree.structure(P2(1))
    assert jax.tree.structure(P1(1)) == jax.tree.structure(P1(2))
    assert jax.tree.structure(P1(1)) != jax.tree.structure((1,))


@pytest.mark.spec("TREE-4")
def test_namedtuple_subclass_and_fields_attribute(jax):
    class Sub(ATuple):
        pass

    class Fake(tuple):
        _fields = ("a",)
    assert repr(jax.tree.structure(Sub(1, 2))) == "PyTreeDef(CustomNode(namedtuple[Sub], [*, *]))"
    assert jax.tree.leaves(Fake((1,))) == [1]
    assert repr(jax.tree.structure(Fake((1,)))) == "PyTreeDef(CustomNode(namedtuple[Fake], [*]))"


@pytest.mark.spec("TREE-4")
def test_registering_a_namedtuple_replaces_the_default(jax):
    tu = jax.tree_util
    NT = collections.namedtuple("NT", "a b")
    tu.register_pytree_node(NT, lambda t: ((t.a,), t.b), lambda aux, ch: NT(ch[0], aux))
    assert repr(jax.tree.structure(NT(1, 2))) == "PyTreeDef(CustomNode(NT[2], [*]))"
    assert [tu.keystr(p) for p, _ in tu.tree_flatten_with_path(NT(1, 2))[0]] == ["[<flat index 0>]"]


# --------------------------------------------------------------------------
# TREE-5: exact types
# --------------------------------------------------------------------------


@pytest.mark.spec("TREE-5")
def test_subclasses_of_node_types_are_leaves(jax):
    class LSub(list):
        pass

    class TSub(tuple):
        pass

    class DSub(dict):
        pass
    Pair = make_pair_node(jax.tree_util)

    class PairSub(Pair):
        pass
    for v in [LSub([1, 2]), TSub((1, 2)), DSub(a=1), PairSub(1, 2)]:
        assert jax.tree.leaves(v) == [v]
        assert repr(jax.tree.structure(v)) == "PyTreeDef(*)"


# --------------------------------------------------------------------------
# TREE-6: empty containers
# --------------------------------------------------------------------------


@pytest.mark.spec("TREE-6")
def test_empty_containers_are_distinct(jax):
    defs = [jax.tree.structure(v) for v in [(), [], {}]]
    assert [repr(d) for d in defs] == ["PyTreeDef(())", "PyTreeDef([])", "PyTreeDef({})"]
    assert defs[0] != defs[1] and defs[1] != defs[2] and defs[0] != defs[2]
    assert all(d.num_leaves == 0 and d.num_nodes == 1 for d in defs)
    assert jax.tree.map(lambda x: x, ((), [], {})) == ((), [], {})
    E = collections.namedtuple("E", [])
    assert repr(jax.tree.structure(E())) == "PyTreeDef(CustomNode(namedtuple[E], []))"
    assert repr(jax.tree.structure(collections.OrderedDict())) == \
        "PyTreeDef(CustomNode(OrderedDict[()], []))"
    td = jax.tree.structure([None, {}, (), [()]])
    assert repr(td) == "PyTreeDef([None, {}, (), [()]])"
    assert (td.num_leaves, td.num_nodes) == (0, 6)
    assert td.unflatten([]) == [None, {}, (), [()]]


# --------------------------------------------------------------------------
# TREE-7: deprecated iterator leaves
# --------------------------------------------------------------------------


@pytest.mark.spec("TREE-7")
def test_iterator_leaves_warn(jax):
    msg = r"Python iterable type '{}' is treated as a leaf in PyTree\. Use is_leaf to suppress"
    od = collections.OrderedDict(a=1)
    cases = [((i for i in range(3)), "generator"), (iter([1]), "list_iterator"),
             (iter((1,)), "tuple_iterator"), (iter({1}), "set_iterator"),
             (iter({1: 2}), "dict_keyiterator"), ({1: 2}.values(), "dict_values"),
             (od.values(), "odict_values"), (zip([1], [2]), "zip"),
             (map(int, [1]), "map"), (filter(None, [1]), "filter"),
             (enumerate([1]), "enumerate"), (reversed((1, 2)), "reversed")]
    for value, name in cases:
        with pytest.warns(DeprecationWarning, match=msg.format(name)):
            assert jax.tree.leaves([value]) == [value]


@pytest.mark.spec("TREE-7")
def test_iterator_leaf_warning_per_leaf_and_in_every_flatten(jax):
    def gen():
        yield 1
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        jax.tree.leaves([gen(), gen()])
    assert len(w) == 2 and all(x.category is DeprecationWarning for x in w)
    for fn in (jax.tree.structure, jax.tree.flatten, jax.tree.flatten_with_path,
               lambda t: jax.tree.map(lambda x: x, t)):
        with pytest.warns(DeprecationWarning, match="'generator' is treated as a leaf"):
            fn(gen())


@pytest.mark.spec("TREE-7")
def test_other_iterables_and_is_leaf_do_not_warn(jax, no_warnings):
    d = {1: 2}
    quiet = [d.keys(), d.items(), range(3), iter(range(3)), iter("ab"),
             reversed([1, 2]), collections.deque([1])]
    for v in quiet:
        assert jax.tree.leaves(v) == [v]
    g = (i for i in range(2))
    assert jax.tree.leaves([g], is_leaf=lambda x: not isinstance(x, list)) == [g]
    assert jax.tree.structure(1).flatten_up_to(g) == [g]
    assert jax.tree_util.all_leaves([g])


# --------------------------------------------------------------------------
# TREE-8: is_leaf
# --------------------------------------------------------------------------


@pytest.mark.spec("TREE-8")
def test_is_leaf_is_asked_about_every_subtree_top_down(jax):
    calls = []

    def is_leaf(x):
        calls.append(x)
        return False
    tree = [None, (1, {"a": 2}), ()]
    assert jax.tree.leaves(tree, is_leaf=is_leaf) == [1, 2]
    assert calls == [tree, None, (1, {"a": 2}), 1, {"a": 2}, 2, ()]


@pytest.mark.spec("TREE-8")
def test_is_leaf_stops_recursion(jax):
    assert jax.tree.leaves([(1, 2), [3]], is_leaf=lambda x: isinstance(x, tuple)) == [(1, 2), 3]
    td = jax.tree.structure([1, 2], is_leaf=lambda x: isinstance(x, list))
    assert repr(td) == "PyTreeDef(*)"
    leaves, td = jax.tree.flatten([None, 1], is_leaf=lambda x: x is None)
    assert leaves == [None, 1] and repr(td) == "PyTreeDef([*, *])"


@pytest.mark.spec("TREE-8")
def test_is_leaf_must_return_a_bool(jax):
    assert jax.tree.leaves([1, [2]], is_leaf=lambda x: None) == [1, 2]
    for bad in (0, 1, np.bool_(False), np.bool_(True), [1], [], 0.0, "x"):
        with pytest.raises(ValueError) as e:
            jax.tree.leaves([1, [2]], is_leaf=lambda x, bad=bad: bad)
        assert str(e.value) == (f"is_leaf predicate returned a non-boolean value {bad!r}; "
                                "expected a boolean")
    with pytest.raises(ZeroDivisionError):
        jax.tree.leaves([1], is_leaf=lambda x: 1 / 0)


@pytest.mark.spec("TREE-8")
def test_is_leaf_applies_to_the_first_tree_of_map(jax):
    calls = []

    def is_leaf(x):
        calls.append(x)
        return False
    out = jax.tree.map(lambda x, y: (x, y), [1, (2,)], [3, (4,)], is_leaf=is_leaf)
    assert out == [(1, 3), ((2, 4),)]
    assert calls == [[1, (2,)], 1, (2,), 2]
    out = jax.tree.map(lambda x, y: (x, y), [(1, 2)], [[3, 4]],
                       is_leaf=lambda x: isinstance(x, tuple))
    assert out == [((1, 2), [3, 4])]
