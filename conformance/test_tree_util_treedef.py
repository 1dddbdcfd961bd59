"""Conformance: PyTreeDef and flattening: treedef text, sizes, equality,
hashing, inspection and construction, unflatten, flatten_up_to, and
properties over random trees (SPEC TREE-9 .. TREE-13).

Only tree utilities and plain Python/NumPy values are used, so these tests run
before the rest of the implementation exists.  Classes are defined inside each
test because registration is global and permanent.  Shared helpers are in
conformance/_tree_util_helpers.py; the other TREE-* modules are
test_tree_util_*.py.
"""
import collections
import dataclasses
import pickle

import numpy as np
import pytest
from hypothesis import given, settings

from conformance._tree_util_helpers import ATuple, Point, lines, make_pair_node, random_trees


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
# Properties over random trees (TREE-9, TREE-10, TREE-12; key paths:
# test_tree_util_paths.py)
# --------------------------------------------------------------------------

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
