"""Conformance: pytree key paths: *_with_path functions, key entries
(DictKey, SequenceKey, GetAttrKey, FlattenedIndexKey) and keystr
(SPEC TREE-14 .. TREE-16).

Only tree utilities and plain Python/NumPy values are used, so these tests run
before the rest of the implementation exists.  Classes are defined inside each
test because registration is global and permanent.  Shared helpers are in
conformance/_tree_util_helpers.py; the other TREE-* modules are
test_tree_util_*.py.
"""
import collections
import dataclasses
import pickle
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings

from conformance._tree_util_helpers import ATuple, Point, make_pair_node, random_trees


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
# Properties over random trees (TREE-14)
# --------------------------------------------------------------------------

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
