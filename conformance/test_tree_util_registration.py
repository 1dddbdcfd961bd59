"""Conformance: registering pytree node types: register_pytree_node and its
variants, registration errors, dataclasses, static types, Partial and custom
nodes rebuilt with placeholder leaves (SPEC TREE-22 .. TREE-27).

Classes are defined inside each test because registration is global and
permanent.  The TREE-22 .. TREE-26 tests use only tree utilities and plain
Python values; the TREE-27 tests (gotcha G-TREE-011) use jax.numpy and
transformations.  The other TREE-* modules are test_tree_util_*.py.
"""
import collections
import dataclasses
import functools
from typing import Any

import numpy as np
import pytest


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
# TREE-27: custom nodes rebuilt with placeholder leaves
# --------------------------------------------------------------------------

def _converting_tree_class(jax, jnp):
    class MyTree:
        def __init__(self, a):
            self.a = jnp.asarray(a)
    jax.tree_util.register_pytree_node(
        MyTree, lambda tree: ((tree.a,), None), lambda _, args: MyTree(*args))
    return MyTree


@pytest.mark.spec("TREE-27")
def test_vmap_never_rebuilds_custom_nodes_with_placeholders(jax, jnp):
    # G-TREE-011: vmap succeeds in 0.10.2 (the docs say it fails).
    MyTree = _converting_tree_class(jax, jnp)
    out = jax.vmap(lambda t: t)(MyTree(jnp.arange(5.0)))
    assert type(out) is MyTree and out.a.tolist() == [0., 1., 2., 3., 4.]
    out = jax.vmap(lambda t: t, out_axes=1)(MyTree(jnp.ones((3, 2))))
    assert out.a.shape == (2, 3)


@pytest.mark.spec("TREE-27")
def test_vmap_with_validating_init(jax, jnp):
    # G-TREE-011: an __init__ that rejects non-arrays is never fed anything else.
    class Strict:
        def __init__(self, a):
            if not isinstance(a, (jax.Array, np.ndarray)):
                raise TypeError(f"bad leaf {type(a).__name__}")
            self.a = a
    jax.tree_util.register_pytree_node(
        Strict, lambda t: ((t.a,), None), lambda _, args: Strict(*args))
    assert jax.vmap(lambda t: t)(Strict(jnp.arange(3.))).a.tolist() == [0., 1., 2.]
    with pytest.raises(TypeError, match="bad leaf NoneType"):
        jax.jacobian(lambda t: t)(Strict(jnp.arange(3.)))


@pytest.mark.spec("TREE-27")
@pytest.mark.parametrize("transform", ["jacobian", "jacfwd", "jacrev"])
def test_jacobian_rebuilds_custom_nodes_with_none(jax, jnp, transform):
    # G-TREE-011
    MyTree = _converting_tree_class(jax, jnp)
    with pytest.raises(ValueError, match="^None is not a valid value for jnp.array$"):
        getattr(jax, transform)(lambda t: t)(MyTree(jnp.arange(5.0)))


@pytest.mark.spec("TREE-27")
def test_grad_of_converting_custom_node(jax, jnp):
    # G-TREE-011: grad checks the leaves without rebuilding the tree.
    MyTree = _converting_tree_class(jax, jnp)
    g = jax.grad(lambda t: t.a.sum())(MyTree(jnp.arange(5.0)))
    assert type(g) is MyTree and g.a.tolist() == [1.] * 5
