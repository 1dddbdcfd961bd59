"""Helpers shared by the jax.tree_util conformance modules
(conformance/test_tree_util_*.py, SPEC TREE-*).

Not a test module: pytest collects only ``test_*.py`` files.
"""
import collections

from hypothesis import strategies as st

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
