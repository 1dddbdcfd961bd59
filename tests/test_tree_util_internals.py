"""refjax-only tests of the pytree module: its caches and registry internals,
and a differential check against real JAX (when installed) on random trees,
including the text of every structure-mismatch error."""
import collections
import dataclasses
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from refjax import tree_util as rtu
from refjax._src import tree_util as impl

Point = collections.namedtuple("Point", ["x", "y"])


@pytest.mark.spec("TREE-5")
def test_leaf_type_cache_is_bounded_and_registration_wins():
    for i in range(impl._CACHE_LIMIT + 10):
        rtu.tree_leaves(type(f"T{i}", (), {})())
    assert len(impl._leaf_types) <= impl._CACHE_LIMIT

    class Late:
        def __init__(self, x):
            self.x = x
    assert rtu.tree_leaves(Late(1))[0].x == 1  # cached as a leaf type
    assert Late in impl._leaf_types
    rtu.register_pytree_node(Late, lambda v: ((v.x,), None), lambda aux, ch: Late(*ch))
    assert rtu.tree_leaves(Late(1)) == [1]


@pytest.mark.spec("TREE-4")
def test_namedtuple_nodes_are_cached_per_class():
    rtu.tree_leaves(Point(1, 2))
    node = impl._namedtuple_nodes[Point]
    rtu.tree_leaves([Point(3, 4)])
    assert impl._namedtuple_nodes[Point] is node
    impl._namedtuple_nodes.clear()  # a new node record still compares equal
    assert rtu.tree_structure(Point(1, 2)) == impl._LEAF_DEF.compose(rtu.tree_structure(Point(0, 0)))


@pytest.mark.spec("TREE-7")
def test_deprecated_iterables_are_never_cached():
    gen = (i for i in ())
    for _ in range(2):
        with pytest.warns(DeprecationWarning):
            rtu.tree_leaves(gen)
    assert type(gen) not in impl._leaf_types


@pytest.mark.spec("TREE-7")
def test_iterator_warning_points_at_the_caller():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        rtu.tree_leaves({"a": [iter([])]})
    assert w[0].filename == __file__


@pytest.mark.spec("TREE-10")
def test_treedef_hash_is_cached():
    td = rtu.tree_structure([1, (2, 3)])
    assert td._hash is None
    h = hash(td)
    assert td._hash == h


@pytest.mark.spec("TREE-11")
def test_treedef_tuple_rejects_non_treedefs():
    with pytest.raises(TypeError, match="treedef_tuple expects PyTreeDefs, got int 1"):
        rtu.treedef_tuple([1])


@pytest.mark.spec("TREE-15")
def test_key_entry_type_errors_say_what_is_expected():
    with pytest.raises(TypeError, match=r"SequenceKey\(idx=\.\.\.\) takes an int, got str 'a'"):
        rtu.SequenceKey("a")
    with pytest.raises(TypeError, match=r"GetAttrKey\(name=\.\.\.\) takes a str, got int 1"):
        rtu.GetAttrKey(1)


# ---------------------------------------------------------------------------
# Differential tests against real JAX
# ---------------------------------------------------------------------------

try:
    import jax.tree_util as jtu
except ImportError:  # real JAX is a test extra; without it these are skipped
    jtu = None
needs_jax = pytest.mark.skipif(jtu is None, reason="needs real JAX to compare with")


class Pair:
    """A custom node registered in both libraries; aux is a hashable tag."""

    def __init__(self, a, b, tag="t"):
        self.a, self.b, self.tag = a, b, tag

    def __repr__(self):
        return f"Pair({self.a!r}, {self.b!r}, {self.tag!r})"


@dataclasses.dataclass
class DC:
    x: object
    y: object
    meta: str = "m"


for _lib in (rtu, jtu) if jtu is not None else (rtu,):
    _lib.register_pytree_node(Pair, lambda p: ((p.a, p.b), p.tag),
                              lambda tag, ch: Pair(*ch, tag=tag))
    _lib.register_dataclass(DC, ["x", "y"], ["meta"])

KEYS = ["a", "b", "c"]


def trees(max_leaves=10):
    leaves = st.one_of(st.integers(0, 3), st.none(), st.just("s"))

    def extend(children):
        return st.one_of(
            st.lists(children, max_size=3),
            st.lists(children, max_size=3).map(tuple),
            st.dictionaries(st.sampled_from(KEYS), children, max_size=3),
            st.tuples(children, children).map(lambda xy: Point(*xy)),
            st.lists(st.tuples(st.sampled_from(KEYS), children), max_size=3).map(
                collections.OrderedDict),
            st.dictionaries(st.sampled_from(KEYS), children, max_size=2).map(
                lambda d: collections.defaultdict(list, d)),
            st.tuples(children, children, st.sampled_from("tu")).map(lambda t: Pair(*t)),
            st.tuples(children, children, st.sampled_from("mn")).map(lambda t: DC(*t)),
        )
    return st.recursive(leaves, extend, max_leaves=max_leaves)


def subtrees(tree):
    """Every subtree with a function that rebuilds `tree` with it replaced."""
    yield tree, lambda new: new
    if type(tree) in (list, tuple, Point):
        for i, child in enumerate(tree):
            for sub, put in subtrees(child):
                def rebuild(new, i=i, put=put):
                    items = list(tree)
                    items[i] = put(new)
                    return type(tree)(*items) if type(tree) is Point else type(tree)(items)
                yield sub, rebuild
    elif isinstance(tree, dict):
        for k in list(tree):
            for sub, put in subtrees(tree[k]):
                def rebuild(new, k=k, put=put):
                    out = tree.copy()
                    out[k] = put(new)
                    return out
                yield sub, rebuild
    elif isinstance(tree, (Pair, DC)):
        names = ("a", "b") if isinstance(tree, Pair) else ("x", "y")
        for name in names:
            for sub, put in subtrees(getattr(tree, name)):
                def rebuild(new, name=name, put=put):
                    out = Pair(tree.a, tree.b, tree.tag) if isinstance(tree, Pair) else \
                        DC(tree.x, tree.y, tree.meta)
                    setattr(out, name, put(new))
                    return out
                yield sub, rebuild


def mutate(sub, choice):
    """One structural change to a subtree."""
    if choice == 0:
        return 0
    if choice == 1:
        return None
    if choice == 2 and type(sub) in (list, tuple):
        return (tuple if type(sub) is list else list)(sub)
    if choice == 3 and type(sub) in (list, tuple) and sub:
        return type(sub)(sub[:-1])
    if choice == 4 and type(sub) in (list, tuple):
        return type(sub)([*sub, 1])
    if choice == 5 and isinstance(sub, dict) and sub:
        out = sub.copy()
        k = next(iter(out))
        out["z" + k] = out.pop(k)
        return out
    if choice == 6 and isinstance(sub, dict):
        if isinstance(sub, collections.defaultdict):
            return collections.defaultdict(dict, sub)
        return collections.OrderedDict(sub) if type(sub) is dict else dict(sub)
    if choice == 7 and isinstance(sub, Pair):
        return Pair(sub.a, sub.b, "other")
    if choice == 8 and isinstance(sub, DC):
        return DC(sub.x, sub.y, "other")
    if choice == 9 and isinstance(sub, dict):
        return {**sub, "extra": 1} if type(sub) is dict else sub
    return [sub]


@st.composite
def tree_pairs(draw):
    a = draw(trees())
    spots = list(subtrees(a))
    sub, put = spots[draw(st.integers(0, len(spots) - 1))]
    return a, put(mutate(sub, draw(st.integers(0, 10))))


def outcome(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = fn()
    except Exception as e:  # noqa: BLE001 - the class is part of the outcome
        return ("error", type(e).__name__, re.sub(r"0x[0-9a-f]+", "0x", str(e)))
    return ("ok", re.sub(r"0x[0-9a-f]+", "0x", repr(result)))


def both(fn):
    ours, theirs = outcome(lambda: fn(rtu)), outcome(lambda: fn(jtu))
    assert ours == theirs
    return ours


@pytest.mark.spec("TREE-9")
@needs_jax
@settings(max_examples=300, deadline=None)
@given(tree=trees())
def test_same_structure_text_leaves_and_paths_as_jax(tree):
    both(lambda tu: tu.tree_structure(tree))
    both(lambda tu: (tu.tree_leaves(tree), tu.tree_structure(tree).num_nodes))
    both(lambda tu: [(tu.keystr(p), v) for p, v in tu.tree_flatten_with_path(tree)[0]])
    both(lambda tu: tu.tree_structure(tree).node_data())
    both(lambda tu: tu.tree_structure(tree).children())
    both(lambda tu: tu.tree_leaves(tree, is_leaf=lambda x: isinstance(x, tuple)))


@pytest.mark.spec("TREE-17")
@needs_jax
@settings(max_examples=500, deadline=None)
@given(pair=tree_pairs())
def test_same_map_outcome_as_jax_on_near_miss_trees(pair):
    a, b = pair
    both(lambda tu: tu.tree_map(lambda *xs: xs, a, b))
    both(lambda tu: tu.tree_map(lambda *xs: xs, b, a))
    both(lambda tu: tu.tree_map_with_path(lambda p, *xs: tu.keystr(p), a, b))
    both(lambda tu: tu.tree_structure(a).flatten_up_to(b))
    both(lambda tu: tu.tree_broadcast(a, b))
    both(lambda tu: tu.tree_structure(a) == tu.tree_structure(b))
    both(lambda tu: tu.tree_map(lambda *xs: xs, a, b, is_leaf=lambda x: isinstance(x, tuple)))


@pytest.mark.spec("TREE-19")
@needs_jax
@settings(max_examples=100, deadline=None)
@given(inner=trees(4), n=st.integers(1, 3))
def test_same_transpose_as_jax(inner, n):
    outer = [inner] * n
    both(lambda tu: tu.tree_transpose(tu.tree_structure([0] * n), tu.tree_structure(inner), outer))
    both(lambda tu: tu.tree_transpose(tu.tree_structure([0] * n), None, outer))
    both(lambda tu: tu.tree_transpose(tu.tree_structure([0] * (n + 1)), None, outer))


@pytest.mark.spec("TREE-18")
@needs_jax
@settings(max_examples=100, deadline=None)
@given(tree=trees())
def test_same_reductions_as_jax(tree):
    def show(a, b):
        return f"({a}+{b})"
    both(lambda tu: tu.tree_reduce(show, tree, "i"))
    both(lambda tu: tu.tree_reduce_associative(show, tree, identity="e"))
    both(lambda tu: tu.tree_all(tree))
    both(lambda tu: tu.all_leaves(tu.tree_leaves(tree)))
    both(lambda tu: tu.tree_structure(tree).compose(tu.tree_structure((1, None))))


@pytest.mark.spec("TREE-21")
@needs_jax
@settings(max_examples=100, deadline=None)
@given(tree=trees())
def test_same_one_level_flattening_as_jax(tree):
    def norm(out):
        children, meta = out
        return list(children), meta
    both(lambda tu: norm(tu.flatten_one_level(tree)))
    both(lambda tu: norm(tu.flatten_one_level_with_keys(tree)))


def test_numpy_leaves_are_kept_by_identity():
    x = np.zeros(3)
    leaves, td = rtu.tree_flatten((x, [x]))
    assert leaves[0] is x and leaves[1] is x
    assert td.unflatten(leaves)[1][0] is x
