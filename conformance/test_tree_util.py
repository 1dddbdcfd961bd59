"""Conformance: pytrees, jax.tree_util and jax.tree (SPEC TREE-*).

Only tree utilities and plain Python/NumPy values are used, so these tests run
before the rest of the implementation exists.  Classes are defined inside each
test because registration is global and permanent.
"""
import collections
import dataclasses
import functools
import operator
import pickle
import warnings
from typing import Any, NamedTuple

import numpy as np
import pytest

ATuple = collections.namedtuple("ATuple", ("foo", "bar"))
Point = collections.namedtuple("Point", ["x", "y"])


def lines(excinfo):
    return str(excinfo.value).splitlines()


def make_pair_node(tu, name="Pair", aux_attr=None):
    """A fresh class with two children, registered without keys."""
    cls = type(name, (), {
        "__init__": lambda self, a, b, aux=None: self.__dict__.update(a=a, b=b, aux=aux),
        "__repr__": lambda self: f"{name}({self.a!r}, {self.b!r})",
    })
    tu.register_pytree_node(cls, lambda p: ((p.a, p.b), p.aux),
                            lambda aux, ch: cls(*ch, aux=aux))
    return cls


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


# --------------------------------------------------------------------------
# TREE-9: PyTreeDef text and sizes
# --------------------------------------------------------------------------

TREE_STRINGS = [
    (None, "PyTreeDef(None)", 0, 1),
    ((None,), "PyTreeDef((None,))", 0, 2),
    ((), "PyTreeDef(())", 0, 1),
    ([()], "PyTreeDef([()])", 0, 2),
    ((1, 2), "PyTreeDef((*, *))", 2, 3),
    (((1, "foo"), ["bar", (3, None, 7)]), "PyTreeDef(((*, *), [*, (*, None, *)]))", 5, 10),
    ([3], "PyTreeDef([*])", 1, 2),
    ([3, ATuple(foo=(3, ATuple(foo=3, bar=None)), bar={"baz": 34})],
     "PyTreeDef([*, CustomNode(namedtuple[ATuple], [(*, CustomNode(namedtuple[ATuple], "
     "[*, None])), {'baz': *}])])", 4, 10),
    ({"a": 1, "b": 2}, "PyTreeDef({'a': *, 'b': *})", 2, 3),
    ({"b": 1, "a": 2}, "PyTreeDef({'a': *, 'b': *})", 2, 3),
    (collections.OrderedDict([("foo", 34), ("baz", 101)]),
     "PyTreeDef(CustomNode(OrderedDict[('foo', 'baz')], [*, *]))", 2, 3),
    ({}, "PyTreeDef({})", 0, 1),
    ([1, (2, 3)], "PyTreeDef([*, (*, *)])", 3, 5),
    (Point(1.0, 2.0), "PyTreeDef(CustomNode(namedtuple[Point], [*, *]))", 2, 3),
    (1.0, "PyTreeDef(*)", 1, 1),
    (np.zeros(2), "PyTreeDef(*)", 1, 1),
    ({"a\"b": 1, "it's": 2}, "PyTreeDef({'a\"b': *, \"it's\": *})", 2, 3),
    ({(1, "a"): 1, (0, "b"): [2, None]}, "PyTreeDef({(0, 'b'): [*, None], (1, 'a'): *})", 2, 5),
]


@pytest.mark.spec("TREE-9")
@pytest.mark.parametrize("tree,text,num_leaves,num_nodes", TREE_STRINGS)
def test_treedef_strings_and_counts(jax, tree, text, num_leaves, num_nodes):
    td = jax.tree.structure(tree)
    assert repr(td) == text and str(td) == text
    assert (td.num_leaves, td.num_nodes) == (num_leaves, num_nodes)


@pytest.mark.spec("TREE-9")
def test_custom_node_strings(jax):
    tu = jax.tree_util

    class Outer:
        class Inner:
            def __init__(self, x, aux):
                self.x, self.aux = x, aux
    tu.register_pytree_node(Outer.Inner, lambda v: ((v.x,), v.aux),
                            lambda aux, ch: Outer.Inner(ch[0], aux))
    # The class's __name__, and str() (not repr) of the metadata.
    assert repr(jax.tree.structure(Outer.Inner(1, "m"))) == "PyTreeDef(CustomNode(Inner[m], [*]))"
    assert repr(jax.tree.structure(Outer.Inner(Outer.Inner(1, 2), (3,)))) == \
        "PyTreeDef(CustomNode(Inner[(3,)], [CustomNode(Inner[2], [*])]))"
    assert repr(jax.tree.structure(Outer.Inner(None, [1, 2]))) == \
        "PyTreeDef(CustomNode(Inner[[1, 2]], [None]))"
    assert repr(jax.tree.structure(collections.defaultdict(None, a=1))) == \
        "PyTreeDef(CustomNode(defaultdict[(None, ('a',))], [*]))"

    def add(a, b):
        return a + b
    td = jax.tree.structure(jax.tree_util.Partial(add, 1, b=2))
    assert repr(td) == f"PyTreeDef(CustomNode(Partial[{add}], [(*,), {{'b': *}}]))"
    assert (td.num_leaves, td.num_nodes) == (2, 5)


@pytest.mark.spec("TREE-9")
def test_treedef_sizes_are_read_only(jax):
    td = jax.tree.structure([1, 2])
    with pytest.raises(AttributeError):
        td.num_leaves = 3
    with pytest.raises(AttributeError):
        td.num_nodes = 3
    assert type(td.num_leaves) is int and type(td.num_nodes) is int


# --------------------------------------------------------------------------
# TREE-10: equality and hashing
# --------------------------------------------------------------------------


@pytest.mark.spec("TREE-10")
def test_treedef_equality(jax):
    s = jax.tree.structure
    assert s([1, (2, 3)]) == s(["a", ("b", "c")])
    assert not s([1, (2, 3)]) != s([4, (5, 6)])
    assert s([1, (2, 3)]) != s([1, [2, 3]])
    assert s({"a": 1}) != s({"b": 1})
    assert s({1: 0}) == s({True: 0}) and s({1: 0}) == s({1.0: 0})
    assert s((1,)) != s([1]) and s(None) != s(()) and s(1) != s(None)
    assert s(1) == s("x")
    assert (s([1]) == 5) is False and (s([1]) != 5) is False  # sic, as JAX 0.10.2
    with pytest.raises(TypeError):
        s([1]) < s([1])  # noqa: B015


@pytest.mark.spec("TREE-10")
def test_treedef_equality_compares_metadata(jax):
    Pair = make_pair_node(jax.tree_util)
    s = jax.tree.structure
    assert s(Pair(1, 2, aux="m")) == s(Pair(3, 4, aux="m"))
    assert s(Pair(1, 2, aux="m")) != s(Pair(1, 2, aux="n"))
    assert s(Pair(1, 2, aux=1)) == s(Pair(1, 2, aux=1.0))
    nan = float("nan")
    assert s(Pair(1, 2, aux=nan)) == s(Pair(1, 2, aux=nan))  # identity first
    assert s(Pair(1, 2, aux=float("nan"))) != s(Pair(1, 2, aux=float("nan")))

    class BadEq:
        def __eq__(self, other):
            raise RuntimeError("boom")
        __hash__ = object.__hash__
    with pytest.raises(ValueError) as e:
        s(Pair(1, 2, aux=BadEq())) == s(Pair(1, 2, aux=BadEq()))  # noqa: B015
    assert str(e.value).startswith(
        "Exception raised while checking equality of metadata fields of pytree.")
    with pytest.raises(ValueError, match="arrays cannot be passed as metadata fields"):
        s(Pair(1, 2, aux=np.arange(2))) == s(Pair(1, 2, aux=np.arange(2)))  # noqa: B015


@pytest.mark.spec("TREE-10")
def test_treedef_hashing(jax):
    s = jax.tree.structure
    Pair = make_pair_node(jax.tree_util)
    assert hash(s([1, (2, 3)])) == hash(s([4, (5, 6)]))
    assert len({s([1, 2]), s([3, 4]), s((1, 2)), s({"a": 1})}) == 3
    # metadata is not hashed: unhashable metadata is fine, equal hashes differ in ==
    assert isinstance(hash(s(Pair(1, 2, aux={"unhashable": 1}))), int)
    assert hash(s(Pair(1, 2, aux="m"))) == hash(s(Pair(1, 2, aux="n")))
    assert hash(s({"a": 1})) == hash(s({"b": 1}))
    d = {s([1, 2]): "list2"}
    assert d[s([7, 8])] == "list2"


# --------------------------------------------------------------------------
# TREE-11: inspection and construction
# --------------------------------------------------------------------------


@pytest.mark.spec("TREE-11")
def test_children_and_treedef_children(jax):
    tu = jax.tree_util
    x = [(1, 2), 3, {"a": 4}]
    td = jax.tree.structure(x)
    kids = tu.treedef_children(td)
    assert [repr(k) for k in kids] == ["PyTreeDef((*, *))", "PyTreeDef(*)", "PyTreeDef({'a': *})"]
    assert kids == [jax.tree.structure(v) for v in x]
    assert td.children() == kids
    assert jax.tree.structure(1).children() == []
    assert jax.tree.structure(None).children() == []
    assert [repr(k) for k in jax.tree.structure(Point(1, (2,))).children()] == \
        ["PyTreeDef(*)", "PyTreeDef((*,))"]


@pytest.mark.spec("TREE-11")
def test_node_data(jax):
    s = jax.tree.structure
    assert s(1).node_data() is None
    assert s(None).node_data() == (type(None), None)
    assert s((1, 2)).node_data() == (tuple, None)
    assert s([1]).node_data() == (list, None)
    assert s({"b": 1, "a": 2}).node_data() == (dict, ["a", "b"])
    assert s(Point(1, 2)).node_data() == (Point, None)
    assert s(collections.OrderedDict(b=1, a=2)).node_data() == (collections.OrderedDict, ("b", "a"))
    Pair = make_pair_node(jax.tree_util)
    assert s(Pair(1, 2, aux="m")).node_data() == (Pair, "m")


@pytest.mark.spec("TREE-11")
def test_treedef_is_leaf_and_tuple(jax):
    tu = jax.tree_util
    s = jax.tree.structure
    assert [tu.treedef_is_leaf(s(v)) for v in [1, None, (), [1], {}, [None]]] == \
        [True, True, True, False, True, False]
    td = tu.treedef_tuple([s([1, (2, 3)]), s(None), s(1)])
    assert repr(td) == "PyTreeDef(([*, (*, *)], None, *))"
    assert td == s(([1, (2, 3)], None, 1))
    assert repr(tu.treedef_tuple([])) == "PyTreeDef(())"
    assert repr(tu.treedef_tuple(iter([s(1)]))) == "PyTreeDef((*,))"
    assert tu.treedef_tuple([s({"a": 1}), s([2])]) == s(({"a": 1}, [2]))


@pytest.mark.spec("TREE-11")
def test_compose(jax):
    s = jax.tree.structure
    td = s([1, (2, 3)])
    assert repr(td.compose(s((1, 2)))) == "PyTreeDef([(*, *), ((*, *), (*, *))])"
    assert repr(td.compose(s(1))) == "PyTreeDef([*, (*, *)])"
    assert repr(td.compose(s(None))) == "PyTreeDef([None, (None, None)])"
    composed = s(Point(1, 2)).compose(s([1, None]))
    assert repr(composed) == "PyTreeDef(CustomNode(namedtuple[Point], [[*, None], [*, None]]))"
    assert (composed.num_leaves, composed.num_nodes) == (2, 7)


@pytest.mark.spec("TREE-11")
def test_walk(jax):
    td = jax.tree.structure([1, (2, 3), None, {"a": 4}])
    out = td.walk(lambda kids, aux: ("N", kids, aux), lambda x: x * 10, [1, 2, 3, 4])
    assert out == ("N", (10, ("N", (20, 30), None), ("N", (), None), ("N", (40,), ["a"])), None)
    td = jax.tree.structure({"a": Point(1, 2), "b": collections.OrderedDict(z=3)})
    out = td.walk(lambda kids, aux: (kids, aux), lambda x: x, [1, 2, 3])
    assert out == ((((1, 2), Point), ((3,), ("z",))), ["a", "b"])


@pytest.mark.spec("TREE-11")
def test_from_iterable_tree(jax):
    assert jax.tree.structure([1, (2, 3)]).from_iterable_tree([7, [8, 9]]) == [7, (8, 9)]
    assert jax.tree.structure([1, 2]).from_iterable_tree([(5, 6), 7]) == [(5, 6), 7]
    with pytest.raises(ValueError, match="Arity mismatch between trees"):
        jax.tree.structure([1, 2]).from_iterable_tree([5])


@pytest.mark.spec("TREE-11")
def test_from_node_data_and_children(jax):
    tu = jax.tree_util
    P = tu.PyTreeDef
    leaf = jax.tree.structure(1)
    reg = tu.default_registry
    assert repr(P.from_node_data_and_children(reg, None, [])) == "PyTreeDef(*)"
    assert repr(P.from_node_data_and_children(reg, (type(None), None), [])) == "PyTreeDef(None)"
    assert repr(P.from_node_data_and_children(reg, (tuple, None), [leaf, leaf])) == "PyTreeDef((*, *))"
    assert repr(P.from_node_data_and_children(reg, (Point, None), [leaf, leaf])) == \
        "PyTreeDef(CustomNode(namedtuple[Point], [*, *]))"
    assert repr(P.from_node_data_and_children(
        reg, (collections.OrderedDict, ("x",)), [leaf])) == \
        "PyTreeDef(CustomNode(OrderedDict[('x',)], [*]))"
    td = jax.tree.structure({"a": [1, (2,)], "b": Point(3, None)})
    assert P.from_node_data_and_children(reg, td.node_data(), td.children()) == td


@pytest.mark.spec("TREE-11")
def test_treedef_pickles(jax):
    for tree in [[1, (2, 3)], {"a": None, "b": Point(1, 2)}, collections.OrderedDict(z=1), 5]:
        td = jax.tree.structure(tree)
        assert pickle.loads(pickle.dumps(td)) == td


# --------------------------------------------------------------------------
# TREE-12: unflatten
# --------------------------------------------------------------------------


@pytest.mark.spec("TREE-12")
def test_unflatten_round_trip_and_errors(jax):
    leaves, td = jax.tree.flatten([1.0, (2.0, 3.0)])
    assert leaves == [1.0, 2.0, 3.0] and repr(td) == "PyTreeDef([*, (*, *)])"
    assert jax.tree.unflatten(td, [4, 5, 6]) == [4, (5, 6)]
    assert td.unflatten(iter([1, 2, 3])) == [1, (2, 3)]
    assert td.unflatten((7, 8, 9)) == [7, (8, 9)]
    assert jax.tree_util.tree_unflatten(td, np.arange(3)) == [0, (1, 2)]
    with pytest.raises(ValueError) as e:
        jax.tree.unflatten(td, [1, 2])
    assert str(e.value) == "Too few leaves for PyTreeDef; expected 3, got 2"
    with pytest.raises(ValueError) as e:
        td.unflatten([1, 2, 3, 4])
    assert str(e.value) == "Too many leaves for PyTreeDef; expected 3."
    with pytest.raises(ValueError, match="Too many leaves for PyTreeDef; expected 0."):
        jax.tree.structure(None).unflatten([1])
    with pytest.raises(TypeError):
        td.unflatten(5)
    assert jax.tree.structure(1).unflatten(["x"]) == "x"


@pytest.mark.spec("TREE-12")
def test_unflatten_passes_children_as_tuple(jax):
    tu = jax.tree_util
    seen = []

    class Box:
        def __init__(self, items):
            self.items = items
    tu.register_pytree_node(Box, lambda b: ((i for i in b.items), "aux"),
                            lambda aux, ch: seen.append((aux, ch)) or Box(list(ch)))
    leaves, td = jax.tree.flatten(Box([1, 2]))
    assert leaves == [1, 2] and repr(td) == "PyTreeDef(CustomNode(Box[aux], [*, *]))"
    out = td.unflatten([3, 4])
    assert seen == [("aux", (3, 4))] and out.items == [3, 4]


@pytest.mark.spec("TREE-12")
def test_round_trip_of_mixed_tree(jax):
    Pair = make_pair_node(jax.tree_util)

    def add(a, b):
        return a + b
    tree = {"a": [1, (2, None)], "b": Point(3, {"c": 4}),
            "d": collections.OrderedDict([("z", 5), ("y", 6)]),
            "e": collections.defaultdict(int, q=7), "f": Pair(8, [9], aux="m"),
            "g": jax.tree_util.Partial(add, 10), "h": ()}
    leaves, td = jax.tree.flatten(tree)
    assert leaves == list(range(1, 11))
    back = td.unflatten(leaves)
    assert jax.tree.structure(back) == td
    assert jax.tree.leaves(back) == leaves
    assert back["d"] == tree["d"] and back["g"](1) == 11


# --------------------------------------------------------------------------
# TREE-13: flatten_up_to
# --------------------------------------------------------------------------


@pytest.mark.spec("TREE-13")
def test_flatten_up_to_returns_subtrees(jax):
    td = jax.tree.structure([1, (2, 3)])
    assert td.flatten_up_to([[1], ({"a": 2}, None)]) == [[1], {"a": 2}, None]
    assert jax.tree.structure(1).flatten_up_to({"x": [1]}) == [{"x": [1]}]
    assert jax.tree.structure(None).flatten_up_to(None) == []


FLATTEN_UP_TO_ERRORS = [
    ([1, (2, 3)], [1, (2, 3, 4)], "Tuple arity mismatch: 3 != 2; tuple: (2, 3, 4)."),
    ([1, (2, 3)], [1, [2, 3]], "Expected tuple, got [2, 3]."),
    ([1, (2, 3)], [1, 2], "Expected tuple, got 2."),
    ([1, (2, 3)], [1], "List arity mismatch: 1 != 2; list: [1]."),
    ([1], (1,), "Expected list, got (1,)."),
    ({"a": 1}, [1], "Expected dict, got [1]."),
    ({"a": 1}, {"b": 1}, "Dict key mismatch; expected keys: ['a']; present keys: ['b']."),
    ({"a": 1}, {"b": 1, "a": 2}, "Dict key mismatch; expected keys: ['a']; present keys: ['a', 'b']."),
    ({"a": 1}, collections.OrderedDict(a=1), "Expected dict, got OrderedDict([('a', 1)])."),
    (Point(1, 2), (1, 2), "Expected named tuple, got (1, 2)."),
    ((1, 2), Point(1, 2), "Expected tuple, got Point(x=1, y=2)."),
    (Point(1, 2), ATuple(1, 2),
     f"Named tuple type mismatch: expected type: {Point!r}, tuple: ATuple(foo=1, bar=2)."),
    (ATuple(1, 2), collections.namedtuple("NT3", "a b c")(1, 2, 3),
     "Named tuple arity mismatch: 3 != 2; tuple: NT3(a=1, b=2, c=3)."),
    (collections.OrderedDict(a=1), {"a": 1},
     "Custom node type mismatch: expected type: <class 'collections.OrderedDict'>, value: {'a': 1}."),
    (collections.OrderedDict(a=1, b=2), collections.OrderedDict(b=1, a=2),
     "Mismatch custom node data: ('a', 'b') != ('b', 'a'); value: OrderedDict([('b', 1), ('a', 2)])."),
    (collections.defaultdict(list, a=1), collections.defaultdict(list, b=1),
     "Mismatch custom node data: (<class 'list'>, ('a',)) != (<class 'list'>, ('b',)); "
     "value: defaultdict(<class 'list'>, {'b': 1})."),
    ((1,), type("TS", (tuple,), {})((1,)), "Expected tuple, got (1,)."),
    ([1, {"x": (1, 2)}], [1, {"x": (1, 2, 3)}], "Tuple arity mismatch: 3 != 2; tuple: (1, 2, 3)."),
]


@pytest.mark.spec("TREE-13")
@pytest.mark.parametrize("prefix,full,message", FLATTEN_UP_TO_ERRORS)
def test_flatten_up_to_errors(jax, prefix, full, message):
    with pytest.raises(ValueError) as e:
        jax.tree.structure(prefix).flatten_up_to(full)
    assert str(e.value) == message


@pytest.mark.spec("TREE-13")
def test_flatten_up_to_custom_node_errors(jax):
    tu = jax.tree_util
    A = make_pair_node(tu, "A")
    B = make_pair_node(tu, "B")

    class V:
        def __init__(self, *xs):
            self.xs = xs

        def __repr__(self):
            return f"V{self.xs}"
    tu.register_pytree_node(V, lambda v: (v.xs, None), lambda aux, ch: V(*ch))

    @dataclasses.dataclass
    class DC:
        a: int
        b: int
    tu.register_dataclass(DC, ["a"], ["b"])
    s = jax.tree.structure
    cases = [
        (A(1, 2), B(1, 2), f"Custom node type mismatch: expected type: {A!r}, value: B(1, 2)."),
        (A(1, 2), [1, 2], f"Custom node type mismatch: expected type: {A!r}, value: [1, 2]."),
        (A(1, 2, aux="m"), A(1, 2, aux="n"), "Mismatch custom node data: 'm' != 'n'; value: A(1, 2)."),
        (V(1, 2), V(1), "Custom type arity mismatch: 1 != 2; value: V(1,)."),
        ([1], A(1, 2), "Expected list, got A(1, 2)."),
        (DC(1, 2), 5, f"Custom dataclass node type mismatch: expected type: {DC!r}, value: 5."),
        (DC(1, 2), DC(1, 3), f"Mismatch custom dataclass node data: (2,) != (3,); value: {DC(1, 3)!r}."),
    ]
    for prefix, full, message in cases:
        with pytest.raises(ValueError) as e:
            s(prefix).flatten_up_to(full)
        assert str(e.value) == message


@pytest.mark.spec("TREE-13")
def test_flatten_up_to_none_is_not_a_prefix(jax):
    for full in (1, [], (None,)):
        with pytest.raises(ValueError) as e:
            jax.tree.structure(None).flatten_up_to(full)
        assert lines(e) == [
            f"Expected None, got {full!r}.", "",
            "In previous releases of JAX, flatten-up-to used to consider None to be a "
            "tree-prefix of non-None values. To obtain the previous behavior, you can usually write:",
            "  jax.tree.map(lambda x, y: None if x is None else f(x, y), a, b, "
            "is_leaf=lambda x: x is None)"]
    with pytest.raises(ValueError, match=r"^Expected tuple, got None\.$"):
        jax.tree.structure((1,)).flatten_up_to(None)


# --------------------------------------------------------------------------
# TREE-14: key paths
# --------------------------------------------------------------------------


@pytest.mark.spec("TREE-14")
def test_flatten_with_path_doc_example(jax):
    tu = jax.tree_util
    NameTuple = collections.namedtuple("NameTuple", ("name"))
    tree = [1, {"k1": 2, "k2": (3, 4)}, NameTuple("foo")]
    flat, td = tu.tree_flatten_with_path(tree)
    assert td == jax.tree.structure(tree)
    assert [f"tree{tu.keystr(p)}: {v}" for p, v in flat] == [
        "tree[0]: 1", "tree[1]['k1']: 2", "tree[1]['k2'][0]: 3", "tree[1]['k2'][1]: 4",
        "tree[2].name: foo"]
    assert [repr(p) for p, _ in flat] == [
        "(SequenceKey(idx=0),)",
        "(SequenceKey(idx=1), DictKey(key='k1'))",
        "(SequenceKey(idx=1), DictKey(key='k2'), SequenceKey(idx=0))",
        "(SequenceKey(idx=1), DictKey(key='k2'), SequenceKey(idx=1))",
        "(SequenceKey(idx=2), GetAttrKey(name='name'))"]
    assert tu.tree_leaves_with_path(tree) == flat
    assert jax.tree.leaves_with_path(tree) == flat
    assert jax.tree.flatten_with_path(tree) == (flat, td)


@pytest.mark.spec("TREE-14")
def test_key_kinds_per_node_type(jax):
    tu = jax.tree_util
    Pair = make_pair_node(tu)

    def add(a, b=0):
        return a + b

    @dataclasses.dataclass
    class DC:
        x: Any
        y: Any
    tu.register_dataclass(DC, ["x"], ["y"])
    tree = {"od": collections.OrderedDict([("z", 1), ("a", 2)]),
            "dd": collections.defaultdict(list, b=3, a=4), "p": Pair(5, 6),
            "part": tu.Partial(add, 7, b=8), "dc": DC(9, "static"), "nt": Point(10, 11),
            "none": None}
    paths = [p for p, _ in tu.tree_flatten_with_path({"t": tree}, is_leaf=lambda x: x == 1)[0]]
    assert [tu.keystr(p) for p in paths] == [
        "['t']['dc'].x", "['t']['dd']['a']", "['t']['dd']['b']", "['t']['nt'].x",
        "['t']['nt'].y", "['t']['od']['z']", "['t']['od']['a']",
        "['t']['p'][<flat index 0>]", "['t']['p'][<flat index 1>]",
        "['t']['part'][<flat index 0>][0]", "['t']['part'][<flat index 1>]['b']"]
    assert repr(paths[-1]) == ("(DictKey(key='t'), DictKey(key='part'), "
                               "FlattenedIndexKey(key=1), DictKey(key='b'))")


@pytest.mark.spec("TREE-14")
def test_map_with_path(jax):
    tu = jax.tree_util
    assert jax.tree.map_with_path(lambda p, v: tu.keystr(p), {"a": [1, 2], "b": 3}) == \
        {"a": ["['a'][0]", "['a'][1]"], "b": "['b']"}
    out = tu.tree_map_with_path(lambda p, x, y: (tu.keystr(p), x, y), {"a": [1]}, {"a": [2]})
    assert out == {"a": [("['a'][0]", 1, 2)]}
    out = jax.tree.map_with_path(lambda p, x, y: (x, y), [1, None], [(2, 3), None])
    assert out == [(1, (2, 3)), None]


@pytest.mark.spec("TREE-14")
def test_path_is_leaf(jax):
    tu = jax.tree_util
    tree = {"a": [1, 2], "b": [3]}
    out = jax.tree.map_with_path(lambda p, x: tu.keystr(p), tree,
                                 is_leaf=lambda p, x: tu.keystr(p) == "['a']",
                                 is_leaf_takes_path=True)
    assert out == {"a": "['a']", "b": ["['b'][0]"]}
    flat, td = tu.tree_flatten_with_path(tree, is_leaf=lambda p, x: len(p) == 1,
                                         is_leaf_takes_path=True)
    assert [(tu.keystr(p), v) for p, v in flat] == [("['a']", [1, 2]), ("['b']", [3])]
    assert repr(td) == "PyTreeDef({'a': *, 'b': *})"
    flat, _ = tu.tree_flatten_with_path({"a": [1], "b": None}, is_leaf=lambda x: x is None)
    assert [(tu.keystr(p), v) for p, v in flat] == [("['a'][0]", 1), ("['b']", None)]


@pytest.mark.spec("TREE-14")
def test_keyed_registration_is_used_for_paths(jax):
    tu = jax.tree_util

    class J:
        def __init__(self, x):
            self.x = x
    tu.register_pytree_node(J, lambda j: ([j.x, 2], None), lambda aux, ch: J(ch[0]),
                            lambda j: ([(tu.DictKey("q"), j.x)], "keyed"))
    assert repr(jax.tree.structure(J(1))) == "PyTreeDef(CustomNode(J[None], [*, *]))"
    flat, td = tu.tree_flatten_with_path(J(1))
    assert flat == [((tu.DictKey("q"),), 1)]
    assert repr(td) == "PyTreeDef(CustomNode(J[keyed], [*]))"


# --------------------------------------------------------------------------
# TREE-15: key entries
# --------------------------------------------------------------------------


@pytest.mark.spec("TREE-15")
def test_key_entry_repr_str_and_attributes(jax):
    tu = jax.tree_util
    S, D, G, F = tu.SequenceKey, tu.DictKey, tu.GetAttrKey, tu.FlattenedIndexKey
    cases = [(S(0), "SequenceKey(idx=0)", "[0]"), (S(-1), "SequenceKey(idx=-1)", "[-1]"),
             (D("a"), "DictKey(key='a')", "['a']"), (D(1), "DictKey(key=1)", "[1]"),
             (D((1, "x")), "DictKey(key=(1, 'x'))", "[(1, 'x')]"), (D(None), "DictKey(key=None)", "[None]"),
             (G("foo"), "GetAttrKey(name='foo')", ".foo"),
             (F(3), "FlattenedIndexKey(key=3)", "[<flat index 3>]")]
    for key, r, s in cases:
        assert (repr(key), str(key)) == (r, s)
    assert (S(2).idx, D("k").key, G("n").name, F(4).key) == (2, "k", "n", 4)
    assert S(idx=2) == S(2) and D(key=2) == D(2)
    assert S.__match_args__ == ("idx",) and D.__match_args__ == ("key",)
    assert G.__match_args__ == ("name",) and F.__match_args__ == ("key",)
    match D("z"):
        case D(k):
            assert k == "z"
    match S(3):
        case S(idx=i):
            assert i == 3


@pytest.mark.spec("TREE-15")
def test_key_entry_equality_and_hash(jax):
    tu = jax.tree_util
    S, D, G, F = tu.SequenceKey, tu.DictKey, tu.GetAttrKey, tu.FlattenedIndexKey
    assert S(0) == S(0) and S(0) != S(1) and S(0) != F(0) and S(0) != 0
    assert D("a") == D("a") and D(1) == D(True) and G("a") == G("a") and G("a") != D("a")
    assert hash(D("a")) == hash("a") and hash(G("x")) == hash("x")
    assert hash(S(3)) == hash(S(3)) and hash(F(3)) == hash(F(3))
    assert len({S(0), S(0), D("a"), D("a"), G("n"), F(1)}) == 4
    with pytest.raises(TypeError):
        hash(D([1]))
    with pytest.raises(TypeError):
        S(0) < S(1)  # noqa: B015
    with pytest.raises(AttributeError):
        S(0).idx = 2
    assert pickle.loads(pickle.dumps(S(0))) == S(0)


@pytest.mark.spec("TREE-15")
def test_key_entry_argument_types(jax):
    tu = jax.tree_util
    assert tu.SequenceKey(np.int64(3)).idx == 3 and type(tu.SequenceKey(np.int64(3)).idx) is int
    assert tu.SequenceKey(True).idx == 1
    assert repr(tu.DictKey([1])) == "DictKey(key=[1])"
    for bad in (lambda: tu.SequenceKey("a"), lambda: tu.SequenceKey(1.5),
                lambda: tu.GetAttrKey(1), lambda: tu.FlattenedIndexKey("a")):
        with pytest.raises(TypeError):
            bad()


# --------------------------------------------------------------------------
# TREE-16: keystr
# --------------------------------------------------------------------------


@pytest.mark.spec("TREE-16")
def test_keystr_forms(jax):
    tu = jax.tree_util
    paths = [p for p, _ in tu.tree_flatten_with_path(
        [ATuple(foo=1, bar={"cin": [1, 2, 3]}), 4])[0]]
    assert [tu.keystr(p) for p in paths] == [
        "[0].foo", "[0].bar['cin'][0]", "[0].bar['cin'][1]", "[0].bar['cin'][2]", "[1]"]
    assert [tu.keystr(p, simple=True, separator="/") for p in paths] == [
        "0/foo", "0/bar/cin/0", "0/bar/cin/1", "0/bar/cin/2", "1"]


@pytest.mark.spec("TREE-16")
def test_keystr_details(jax):
    tu = jax.tree_util
    S, D, G, F = tu.SequenceKey, tu.DictKey, tu.GetAttrKey, tu.FlattenedIndexKey
    keys = (S(0), D("a"), G("b"), F(2), "raw", 5)
    assert tu.keystr(keys) == "[0]['a'].b[<flat index 2>]raw5"
    assert tu.keystr(keys, simple=True) == "0ab2raw5"
    assert tu.keystr((S(0), D("a")), separator="/") == "[0]/['a']"
    assert tu.keystr((D((1, 2)), D("a")), simple=True, separator=".") == "(1, 2).a"
    assert tu.keystr(()) == "" and tu.keystr([S(0)]) == "[0]"
    assert tu.keystr((D("a"), S(0)), simple=True, separator="/") == "a/0"
    with pytest.raises(TypeError):
        tu.keystr((S(0),), True)


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


# --------------------------------------------------------------------------
# TREE-22: registering node types
# --------------------------------------------------------------------------


@pytest.mark.spec("TREE-22")
def test_register_pytree_node(jax):
    tu = jax.tree_util

    class RegisteredSpecial:
        def __init__(self, x, y):
            self.x, self.y = x, y

        def __repr__(self):
            return f"RegisteredSpecial(x={self.x}, y={self.y})"
    assert tu.register_pytree_node(
        RegisteredSpecial, lambda v: ((v.x, v.y), None),
        lambda aux, ch: RegisteredSpecial(*ch)) is None
    out = jax.tree.map(lambda x: x + 1, [RegisteredSpecial(0, 1), RegisteredSpecial(2, 4)])
    assert repr(out) == "[RegisteredSpecial(x=1, y=2), RegisteredSpecial(x=3, y=5)]"
    assert repr(jax.tree.structure(RegisteredSpecial(0, 1))) == \
        "PyTreeDef(CustomNode(RegisteredSpecial[None], [*, *]))"
    nested = RegisteredSpecial(RegisteredSpecial(1, [2]), {"k": 3})
    assert jax.tree.leaves(nested) == [1, 2, 3]


@pytest.mark.spec("TREE-22")
def test_register_pytree_node_class(jax):
    tu = jax.tree_util

    @tu.register_pytree_node_class
    class RS2:
        def __init__(self, x, y):
            self.x, self.y = x, y

        def tree_flatten(self):
            return (self.x, self.y), "aux"

        @classmethod
        def tree_unflatten(cls, aux, children):
            assert aux == "aux"
            return cls(*children)
    assert isinstance(RS2, type)
    out = jax.tree.map(lambda v: v * 2, RS2(1.0, 2.0))
    assert (out.x, out.y) == (2.0, 4.0)
    assert repr(jax.tree.structure(RS2(1, 2))) == "PyTreeDef(CustomNode(RS2[aux], [*, *]))"
    with pytest.raises(AttributeError, match="tree_unflatten"):
        tu.register_pytree_node_class(type("NoMethods", (), {}))


@pytest.mark.spec("TREE-22")
def test_register_pytree_with_keys(jax):
    tu = jax.tree_util

    class A:
        def __init__(self, x, y):
            self.x, self.y = x, y
    tu.register_pytree_node(A, lambda a: ((a.x, a.y), None), lambda _, c: A(*c))
    assert [tu.keystr(p) for p, _ in tu.tree_flatten_with_path(A(1, 2))[0]] == \
        ["[<flat index 0>]", "[<flat index 1>]"]

    class B:
        def __init__(self, x, y):
            self.x, self.y = x, y
    tu.register_pytree_with_keys(
        B, lambda b: (((tu.GetAttrKey("x"), b.x), (tu.GetAttrKey("y"), b.y)), None),
        lambda _, c: B(*c))
    assert [tu.keystr(p) for p, _ in tu.tree_flatten_with_path(B(1, 2))[0]] == [".x", ".y"]
    assert jax.tree.leaves(B(1, [2])) == [1, 2]
    assert jax.tree.map(lambda v: v * 3, B(1, 2)).y == 6

    class H:
        def __init__(self, x):
            self.x = x
    tu.register_pytree_with_keys(H, lambda h: ([(tu.GetAttrKey("x"), h.x), ("weird", 2)], None),
                                 lambda aux, ch: ("H", ch))
    flat, _ = tu.tree_flatten_with_path(H(1))
    assert flat == [((tu.GetAttrKey("x"),), 1), (("weird",), 2)]
    assert [tu.keystr(p) for p, _ in flat] == [".x", "weird"]
    assert jax.tree.map(lambda x: x, H(1)) == ("H", (1, 2))


@pytest.mark.spec("TREE-22")
def test_register_pytree_with_keys_class(jax):
    tu = jax.tree_util

    @tu.register_pytree_with_keys_class
    class K:
        def __init__(self, a, b):
            self.a, self.b = a, b

        def tree_flatten_with_keys(self):
            return ((tu.GetAttrKey("a"), self.a), (tu.GetAttrKey("b"), self.b)), None

        @classmethod
        def tree_unflatten(cls, aux, children):
            return cls(*children)
    assert [tu.keystr(p) for p, _ in tu.tree_leaves_with_path(K(1, (2, 3)))] == \
        [".a", ".b[0]", ".b[1]"]
    assert jax.tree.leaves(K(1, 2)) == [1, 2]


# --------------------------------------------------------------------------
# TREE-23: registration errors and bad flatten results
# --------------------------------------------------------------------------


@pytest.mark.spec("TREE-23")
def test_duplicate_registration(jax):
    tu = jax.tree_util

    class A:
        pass
    tu.register_pytree_node(A, lambda a: ((), None), lambda aux, c: A())
    for again in (lambda: tu.register_pytree_node(A, lambda a: ((), None), lambda aux, c: A()),
                  lambda: tu.register_pytree_with_keys(A, lambda a: ((), None), lambda aux, c: A()),
                  lambda: tu.register_static(A)):
        with pytest.raises(ValueError) as e:
            again()
        assert str(e.value) == f"Duplicate custom PyTreeDef type registration for {A!r}."
    for builtin in (list, tuple, dict, type(None), collections.OrderedDict,
                    collections.defaultdict, tu.Partial):
        with pytest.raises(ValueError, match="Duplicate custom PyTreeDef type registration for"):
            tu.register_pytree_node(builtin, lambda a: ((), None), lambda aux, c: None)

    @dataclasses.dataclass
    class DC:
        a: int
    tu.register_dataclass(DC, ["a"], [])
    with pytest.raises(ValueError) as e:
        tu.register_dataclass(DC, ["a"], [])
    assert str(e.value) == f"Duplicate custom dataclass PyTreeDef type registration for {DC!r}."


@pytest.mark.spec("TREE-23")
def test_bad_flatten_results(jax):
    tu = jax.tree_util
    head = "The to_iterable function for a custom PyTree node should return a (children, aux_data) tuple"

    class C:
        pass
    tu.register_pytree_node(C, lambda c: [1, 1], lambda aux, ch: C())
    with pytest.raises(ValueError) as e:
        jax.tree.leaves(C())
    assert str(e.value) == f"{head}, got [1, 1]"

    class D:
        pass
    tu.register_pytree_node(D, lambda c: 5, lambda aux, ch: D())
    with pytest.raises(ValueError) as e:
        jax.tree.leaves([D()])
    assert str(e.value) == f"{head}, got 5"

    class E:
        pass
    tu.register_pytree_node(E, lambda c: (5, None), lambda aux, ch: E())
    with pytest.raises(ValueError) as e:
        jax.tree.structure(E())
    assert str(e.value) == f"{head} where 'children' is iterable, got (5, None)"


@pytest.mark.spec("TREE-23")
def test_bad_flatten_with_keys_results(jax):
    tu = jax.tree_util
    head = ("The to_iterable_with_keys function for a custom PyTree node should return a "
            "(key_leaf_pairs, aux_data) tuple")

    class D:
        def __init__(self, x):
            self.x = x
    tu.register_pytree_with_keys(D, lambda d: [[(tu.DictKey("a"), d.x)], None],
                                 lambda aux, ch: D(*ch))
    with pytest.raises(ValueError) as e:
        tu.tree_flatten_with_path(D(1))
    assert str(e.value) == f"{head}, got [[(DictKey(key='a'), 1)], None]"
    assert jax.tree.leaves(D(1)) == [1]  # the derived plain flatten unpacks any pair

    class E:
        pass
    tu.register_pytree_with_keys(E, lambda c: (5, None), lambda aux, ch: E())
    with pytest.raises(ValueError) as e:
        tu.tree_flatten_with_path(E())
    assert str(e.value) == f"{head} where 'key_leaf_pairs' is iterable, got (5, None)"

    class F:
        pass
    tu.register_pytree_with_keys(F, lambda c: ([1], None), lambda aux, ch: F())
    with pytest.raises(ValueError, match=r"^The to_iterable_with_keys function for a custom PyTree"):
        tu.tree_flatten_with_path(F())


# --------------------------------------------------------------------------
# TREE-24: dataclasses
# --------------------------------------------------------------------------


@pytest.mark.spec("TREE-24")
def test_register_dataclass_explicit_fields(jax):
    tu = jax.tree_util

    @dataclasses.dataclass
    class Plain:
        a: Any
    assert jax.tree.leaves(Plain(1)) == [Plain(1)]

    @functools.partial(tu.register_dataclass, data_fields=["a", "b"], meta_fields=["name"])
    @dataclasses.dataclass
    class MDC:
        name: str
        a: Any
        b: Any
    assert isinstance(MDC, type)
    leaves, td = jax.tree.flatten(MDC("apple", 5.3, 1.2))
    assert leaves == [5.3, 1.2]
    assert repr(td) == "PyTreeDef(CustomNode(MDC[('apple',)], [*, *]))"
    assert td.node_data() == (MDC, ("apple",))
    assert jax.tree.map(lambda x: x * 2, MDC("m", 1, 2)) == MDC("m", 2, 4)
    assert [tu.keystr(p) for p, _ in tu.tree_flatten_with_path(MDC("m", 1, [2]))[0]] == \
        [".a", ".b[0]"]
    assert td != jax.tree.structure(MDC("pear", 5.3, 1.2))
    assert td == jax.tree.structure(MDC("apple", 0, 0))


@pytest.mark.spec("TREE-24")
def test_register_dataclass_inferred_fields(jax):
    tu = jax.tree_util

    @tu.register_dataclass
    @dataclasses.dataclass
    class MyOp:
        x: Any
        y: Any
        op: str = jax.tree.static(default="add")
        k: int = dataclasses.field(default=0, metadata={"static": True})
    m = MyOp(x=1, y=2)
    leaves, td = jax.tree.flatten(m)
    assert leaves == [1, 2] and repr(td) == "PyTreeDef(CustomNode(MyOp[('add', 0)], [*, *]))"
    assert jax.tree.unflatten(td, [3, 4]) == MyOp(3, 4, "add", 0)

    @tu.register_dataclass
    @dataclasses.dataclass
    class Empty:
        pass
    assert repr(jax.tree.structure(Empty())) == "PyTreeDef(CustomNode(Empty[()], []))"


@pytest.mark.spec("TREE-24")
def test_tree_static_field(jax):
    f = jax.tree.static(default=1)
    assert isinstance(f, dataclasses.Field) and dict(f.metadata) == {"static": True}
    assert dict(jax.tree.static(metadata={"doc": "x"}).metadata) == {"static": True, "doc": "x"}
    assert dict(jax.tree.static(metadata={"static": False}).metadata) == {"static": False}
    assert dict(jax.tree.static(metadata=None).metadata) == {"static": True}


@pytest.mark.spec("TREE-24")
def test_register_dataclass_field_errors(jax):
    tu = jax.tree_util

    def make():
        @dataclasses.dataclass
        class P:
            x: int
            y: int = 0
            z: int = dataclasses.field(default=5, metadata={"static": True})
            w: int = dataclasses.field(default=7, init=False)
        return P
    with pytest.raises(TypeError) as e:
        tu.register_dataclass(make(), data_fields=["x"])
    assert str(e.value) == ("register_dataclass: data_fields and meta_fields must both be "
                            "specified when either is specified. Got data_fields=['x'] meta_fields=None.")
    with pytest.raises(TypeError, match="Got data_fields=None meta_fields=\\['x'\\]"):
        tu.register_dataclass(make(), meta_fields=["x"])
    with pytest.raises(ValueError) as e:
        tu.register_dataclass(make())  # infers w, which has init=False
    assert str(e.value) == ("data_fields and meta_fields must include all dataclass fields with "
                            "``init=True`` and only them. Unexpected fields: {'w'}.")
    with pytest.raises(ValueError) as e:
        tu.register_dataclass(make(), data_fields=["x"], meta_fields=["z"])
    assert str(e.value) == ("data_fields and meta_fields must include all dataclass fields with "
                            "``init=True`` and only them. Missing fields: {'y'}. Add them to "
                            "drop_fields to suppress this error.")
    with pytest.raises(ValueError, match="Unexpected fields: {'q'}"):
        tu.register_dataclass(make(), data_fields=["x", "y", "q"], meta_fields=["z"])
    with pytest.raises(ValueError) as e:
        tu.register_dataclass(make(), data_fields=["x", "y", "z"], meta_fields=["z"])
    assert str(e.value) == "data_fields and meta_fields must not overlap. Overlapping fields: {'z'}."

    class NotDC:
        def __init__(self, a, b):
            self.a, self.b = a, b
    with pytest.raises(TypeError) as e:
        tu.register_dataclass(NotDC)
    assert str(e.value) == ("register_dataclass: data_fields and meta_fields are required when "
                            f"nodetype is not a dataclass. Got nodetype={NotDC!r}.")


@pytest.mark.spec("TREE-24")
def test_register_dataclass_drop_fields_and_non_dataclass(jax):
    tu = jax.tree_util

    @dataclasses.dataclass
    class P:
        x: int
        y: int = 0
        z: int = 5
    tu.register_dataclass(P, data_fields=["x"], meta_fields=["z"], drop_fields=["y"])
    leaves, td = jax.tree.flatten(P(1, 2))
    assert leaves == [1] and repr(td) == "PyTreeDef(CustomNode(P[(5,)], [*]))"
    assert jax.tree.map(lambda v: v, P(1, 2)) == P(1, 0, 5)  # dropped field is not kept

    class NotDC:
        def __init__(self, a, b):
            self.a, self.b = a, b
    tu.register_dataclass(NotDC, data_fields=["a"], meta_fields=["b"])
    out = jax.tree.map(lambda v: v + 1, NotDC(1, 2))
    assert (out.a, out.b) == (2, 2)
    assert [tu.keystr(p) for p, _ in tu.tree_leaves_with_path(NotDC(1, 2))] == [".a"]


# --------------------------------------------------------------------------
# TREE-25: static types
# --------------------------------------------------------------------------


@pytest.mark.spec("TREE-25")
def test_register_static(jax):
    tu = jax.tree_util

    @tu.register_static
    class St:
        def __init__(self, v):
            self.v = v

        def __repr__(self):
            return f"St({self.v})"

        def __eq__(self, other):
            return isinstance(other, St) and other.v == self.v

        def __hash__(self):
            return hash(self.v)
    assert isinstance(St, type)
    leaves, td = jax.tree.flatten([St(3), 1])
    assert leaves == [1]
    assert repr(td) == "PyTreeDef([CustomNode(St[St(3)], []), *])"
    assert td.unflatten([2]) == [St(3), 2]
    assert jax.tree.structure(St(3)) == jax.tree.structure(St(3))
    assert jax.tree.structure(St(3)) != jax.tree.structure(St(4))
    assert tu.tree_flatten_with_path(St(3))[0] == []
    assert jax.tree.map(lambda a, b: a + b, [St(1), 2], [St(1), 3]) == [St(1), 5]


# --------------------------------------------------------------------------
# TREE-26: Partial
# --------------------------------------------------------------------------


def add3(a, b=0, c=0):
    return a + b + c


@pytest.mark.spec("TREE-26")
def test_partial_is_a_pytree_and_callable(jax):
    Partial = jax.tree_util.Partial
    p = Partial(add3, 1, c=5)
    assert p(2) == 8 and isinstance(p, functools.partial)
    assert (p.func, p.args, p.keywords) == (add3, (1,), {"c": 5})
    assert jax.tree.leaves(p) == [1, 5]
    assert jax.tree.map(lambda x: x * 10, p)(0) == 60
    assert jax.tree.structure(Partial(add3, 1)) == jax.tree.structure(Partial(add3, 2))
    assert jax.tree.structure(Partial(add3, 1)) != jax.tree.structure(Partial(max, 1))
    assert jax.tree.leaves(Partial(add3)) == []
    assert Partial(func=add3)(1) == 1
    with pytest.raises(TypeError, match="the first argument must be callable"):
        Partial(3)


@pytest.mark.spec("TREE-26")
def test_functools_partial_is_a_leaf(jax):
    fp = functools.partial(add3, 1.0)
    assert jax.tree.leaves(fp) == [fp]
    assert jax.tree.leaves(jax.tree_util.Partial(add3, 1.0)) == [1.0]


@pytest.mark.spec("TREE-26")
def test_partial_of_partial_keeps_the_inner_partial_static(jax):
    Partial = jax.tree_util.Partial
    fp = functools.partial(add3, 1)
    p = Partial(fp, 2)
    assert jax.tree.leaves(p) == [2] and p(3) == 6
    assert p.args == (2,)
    assert (p.func.func, p.func.args, p.func.keywords) == (add3, (1,), {})
    assert repr(jax.tree.structure(p)) == \
        f"PyTreeDef(CustomNode(Partial[_HashableCallableShim({fp!r})], [(*,), {{}}]))"
    nested = Partial(Partial(add3, 1), 2)
    assert jax.tree.leaves(nested) == [2] and nested(3) == 6
    assert jax.tree.map(lambda x: x * 10, nested)(0) == 21


# --------------------------------------------------------------------------
# Properties over random trees (TREE-1, TREE-9, TREE-10, TREE-12, TREE-14)
# --------------------------------------------------------------------------

from hypothesis import given, settings, strategies as st  # noqa: E402


def random_trees(max_leaves=12):
    keys = st.sampled_from(["a", "b", "c", "d"])
    leaves = st.one_of(st.integers(-5, 5), st.text(max_size=2), st.none())

    def extend(children):
        return st.one_of(
            st.lists(children, max_size=3),
            st.lists(children, max_size=3).map(tuple),
            st.dictionaries(keys, children, max_size=3),
            st.tuples(children, children).map(lambda xy: Point(*xy)),
            st.lists(st.tuples(keys, children), max_size=3).map(collections.OrderedDict),
            st.dictionaries(keys, children, max_size=2).map(
                lambda d: collections.defaultdict(list, d)),
        )
    return st.recursive(leaves, extend, max_leaves=max_leaves)


def shape_of(tree):
    """Structure as plain data, types included (the rule of TREE-1..6)."""
    if tree is None:
        return None
    if isinstance(tree, collections.defaultdict):
        return ("defaultdict", tree.default_factory,
                tuple((k, shape_of(tree[k])) for k in sorted(tree)))
    if isinstance(tree, collections.OrderedDict):
        return ("OrderedDict", tuple((k, shape_of(v)) for k, v in tree.items()))
    if type(tree) is dict:
        return ("dict", tuple((k, shape_of(tree[k])) for k in sorted(tree)))
    if type(tree) in (list, tuple, Point):
        return (type(tree).__name__, tuple(shape_of(c) for c in tree))
    return "*"


@pytest.mark.spec("TREE-12")
@settings(max_examples=150, deadline=None)
@given(tree=random_trees())
def test_random_flatten_unflatten_round_trip(jax, tree):
    leaves, td = jax.tree.flatten(tree)
    assert td.num_leaves == len(leaves)
    back = td.unflatten(leaves)
    assert shape_of(back) == shape_of(tree)
    assert jax.tree.leaves(back) == leaves
    assert jax.tree.structure(back) == td and hash(jax.tree.structure(back)) == hash(td)


@pytest.mark.spec("TREE-10")
@settings(max_examples=150, deadline=None)
@given(a=random_trees(6), b=random_trees(6))
def test_random_structure_equality_follows_shape(jax, a, b):
    sa, sb = jax.tree.structure(a), jax.tree.structure(b)
    assert (sa == sb) == (shape_of(a) == shape_of(b))
    if sa == sb:
        assert hash(sa) == hash(sb)
        boxed = jax.tree.map(lambda x, y: [[x, y]].pop, a, b)  # a bound method is a leaf
        assert [f() for f in jax.tree.leaves(boxed)] == \
            [[x, y] for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b))]


@pytest.mark.spec("TREE-14")
@settings(max_examples=100, deadline=None)
@given(tree=random_trees())
def test_random_paths_match_leaves(jax, tree):
    tu = jax.tree_util
    flat, td = tu.tree_flatten_with_path(tree)
    assert td == jax.tree.structure(tree)
    assert [v for _, v in flat] == jax.tree.leaves(tree)
    strings = [tu.keystr(p) for p, _ in flat]
    assert len(set(strings)) == len(strings)
    assert jax.tree.map_with_path(lambda p, x: tu.keystr(p), tree) == \
        td.unflatten(strings)


@pytest.mark.spec("TREE-9")
@settings(max_examples=100, deadline=None)
@given(tree=random_trees())
def test_random_counts_and_children(jax, tree):
    td = jax.tree.structure(tree)
    kids = td.children()
    if td.num_nodes > 1 or td.num_leaves == 0:
        assert td.num_leaves == sum(k.num_leaves for k in kids)
        assert td.num_nodes == 1 + sum(k.num_nodes for k in kids)
    assert repr(td).startswith("PyTreeDef(") and repr(td) == str(td)
