"""Pytrees: nested containers flattened into a list of leaves plus a structure.

A *pytree* is any Python value; the registry below decides which values are
*nodes* (containers whose children are pytrees again) and which are *leaves*.
Flattening walks a tree in a fixed order and returns its leaves together with
a ``PyTreeDef``, an immutable description of the nodes, from which
``unflatten`` rebuilds a tree of the same shape around new leaves.

The rules are stated in SPEC.md, section "Pytrees" (clauses TREE-1 ...);
each function cites the clause it implements.

Layout of this module:
  1. key path entries: in ``key_paths`` (SequenceKey, DictKey, ...)
  2. the registry: one ``_NodeType`` record per node type
  3. flattening (plain, with paths, one level)
  4. PyTreeDef
  5. the tree_* functions built on them (map, reduce, transpose, ...)
  6. structure-mismatch messages (``prefix_errors``)
  7. registration helpers and the built-in node types (OrderedDict,
     defaultdict, Partial)
"""
from __future__ import annotations

import collections
import dataclasses
import difflib
import functools
import operator
import sys
import textwrap
import warnings
from collections.abc import Callable, Hashable, Iterable
from typing import Any

from refjax._src.key_paths import (
    DictKey, FlattenedIndexKey, GetAttrKey, KeyPath, SequenceKey, keystr,
)

_PUBLIC_MODULE = "refjax.tree_util"

# ---------------------------------------------------------------------------
# 2. The registry (SPEC TREE-1..7, TREE-22..26)
# ---------------------------------------------------------------------------

# The kinds of node a PyTreeDef can hold.  CUSTOM covers every registered
# class (OrderedDict, defaultdict and Partial included); DATACLASS is a class
# registered with register_dataclass.
_LEAF, _NONE, _TUPLE, _LIST, _DICT, _NAMEDTUPLE, _CUSTOM, _DATACLASS = range(8)


class _NodeType:
    """How values of one Python type are taken apart and rebuilt.

    flatten(x) -> (children, aux)          children: an iterable of subtrees
    flatten_with_keys(x) -> ((key, child) pairs, aux)
    unflatten(aux, children_tuple) -> x
    """
    __slots__ = ("kind", "type", "flatten", "flatten_with_keys", "unflatten")

    def __init__(self, kind, typ, flatten, flatten_with_keys, unflatten):
        self.kind = kind
        self.type = typ
        self.flatten = flatten
        self.flatten_with_keys = flatten_with_keys
        self.unflatten = unflatten


def _sorted_dict_keys(d) -> tuple:
    """The keys of a dict in sorted order (SPEC TREE-3)."""
    try:
        return tuple(sorted(d))
    except Exception as e:
        raise ValueError("Comparator raised exception while sorting pytree "
                         "dictionary keys.") from e


def _flatten_dict(d):
    keys = _sorted_dict_keys(d)
    return tuple([d[k] for k in keys]), keys


def _flatten_dict_with_keys(d):
    keys = _sorted_dict_keys(d)
    return tuple([(DictKey(k), d[k]) for k in keys]), keys


def _flatten_sequence_with_keys(xs):
    return tuple([(SequenceKey(i), x) for i, x in enumerate(xs)]), None


_LEAF_NODE = _NodeType(_LEAF, None, None, None, None)
_NONE_NODE = _NodeType(_NONE, type(None), lambda x: ((), None),
                       lambda x: ((), None), lambda aux, children: None)
_TUPLE_NODE = _NodeType(_TUPLE, tuple, lambda x: (x, None),
                        _flatten_sequence_with_keys,
                        lambda aux, children: children)
_LIST_NODE = _NodeType(_LIST, list, lambda x: (x, None),
                       _flatten_sequence_with_keys,
                       lambda aux, children: list(children))
_DICT_NODE = _NodeType(_DICT, dict, _flatten_dict, _flatten_dict_with_keys,
                       lambda keys, children: dict(zip(keys, children)))

# Exact type -> node type.  Subclasses of registered types are leaves
# (SPEC TREE-5); only namedtuples are recognised without registration.
_registry: dict[Any, _NodeType] = {
    type(None): _NONE_NODE,
    tuple: _TUPLE_NODE,
    list: _LIST_NODE,
    dict: _DICT_NODE,
}

# Caches for unregistered types, bounded so that classes created on the fly
# are not kept alive forever.
_CACHE_LIMIT = 4096
_leaf_types: set[type] = set()            # known plain leaf types
_namedtuple_nodes: dict[type, _NodeType] = {}

# Iterator-like leaf types that JAX 0.10.1+ warns about (SPEC TREE-7).
_DEPRECATED_ITERABLE_LEAVES = (
    type(x for x in ()), type(iter([])), type(iter(())),
    type(iter({})), type(iter({}.values())), type(iter({}.items())),
    type(iter(set())), type({}.values()),
    zip, map, filter, enumerate, reversed,
)


def _is_namedtuple_type(t) -> bool:
    return issubclass(t, tuple) and hasattr(t, "_fields")


def _namedtuple_node(t) -> _NodeType:
    """Node type of a namedtuple class: every field is a child (SPEC TREE-4)."""
    node = _namedtuple_nodes.get(t)
    if node is None:
        fields = tuple(t._fields)

        def flatten_with_keys(x):
            return tuple([(GetAttrKey(f), c) for f, c in zip(fields, x)]), None

        node = _NodeType(_NAMEDTUPLE, t, lambda x: (x, None), flatten_with_keys,
                         lambda aux, children: t(*children))
        if len(_namedtuple_nodes) >= _CACHE_LIMIT:
            _namedtuple_nodes.clear()
        _namedtuple_nodes[t] = node
    return node


def _classify_unregistered(t) -> _NodeType | None:
    """Node type of an unregistered type: a namedtuple node or None (a leaf)."""
    if _is_namedtuple_type(t):
        return _namedtuple_node(t)
    if not issubclass(t, _DEPRECATED_ITERABLE_LEAVES):
        if len(_leaf_types) >= _CACHE_LIMIT:
            _leaf_types.clear()
        _leaf_types.add(t)
    return None


def _node_type_of(t) -> _NodeType | None:
    """The node type for values of type ``t``, or None if they are leaves."""
    node = _registry.get(t)
    if node is None and t not in _leaf_types:
        node = _classify_unregistered(t)
    return node


def _warn_iterable_leaf(t):
    """SPEC TREE-7: iterators and views used as leaves are deprecated."""
    # Attribute the warning to the first caller outside this module.
    frame, level = sys._getframe(0), 1
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        frame, level = frame.f_back, level + 1
    warnings.warn(
        f"Python iterable type '{t.__name__}' is treated as a leaf in PyTree. "
        "Use is_leaf to suppress this warning if you want this behavior. In a "
        "future version of JAX, this will become an error.",
        DeprecationWarning, stacklevel=level)


def is_tree_node(typ: type) -> bool:
    """True if values of type ``typ`` are pytree nodes (SPEC TREE-21)."""
    if not isinstance(typ, type):
        return False        # a value, hashable or not, is not a node type
    return typ in _registry or _node_type_of(typ) is not None


# ---------------------------------------------------------------------------
# 3. Flattening (SPEC TREE-1..8, TREE-14, TREE-21)
# ---------------------------------------------------------------------------


def _predicate_says_leaf(is_leaf, *args) -> bool:
    """Calls an is_leaf predicate; it must answer True, False or None (SPEC TREE-8)."""
    answer = is_leaf(*args)
    if answer is True:
        return True
    if answer is False or answer is None:
        return False
    raise ValueError(f"is_leaf predicate returned a non-boolean value "
                     f"{answer!r}; expected a boolean")


# Depth (SPEC TREE-28).  The walks below are recursive, the fastest way to
# take an ordinary tree apart in Python, but Python's stack holds only about
# a thousand frames.  A tree too deep for them is walked again with an
# explicit stack (the ``_deep_*`` functions): slower, but bounded only by
# memory.  A walk that ran out of stack halfway is simply started over, so
# an ``is_leaf`` predicate may then be asked twice about the same subtree.

def _flatten(x, is_leaf, leaves: list) -> PyTreeDef:
    """Appends the leaves of ``x`` to ``leaves``; returns its structure."""
    start = len(leaves)
    try:
        return _flatten_fast(x, is_leaf, leaves)
    except RecursionError:
        del leaves[start:]
        return _deep_flatten(x, None, is_leaf, leaves)


def _flatten_fast(x, is_leaf, leaves: list) -> PyTreeDef:
    if is_leaf is not None and _predicate_says_leaf(is_leaf, x):
        leaves.append(x)
        return _LEAF_DEF
    t = type(x)
    node = _registry.get(t)
    if node is None and t not in _leaf_types:
        node = _classify_unregistered(t)
    if node is None:
        if t not in _leaf_types:
            _warn_iterable_leaf(t)
        leaves.append(x)
        return _LEAF_DEF
    children, aux = node.flatten(x)
    return PyTreeDef(node, aux,
                     tuple([_flatten_fast(c, is_leaf, leaves) for c in children]))


def _flatten_with_path(x, path, is_leaf, out: list) -> PyTreeDef:
    """Like _flatten, but appends (key path, leaf) pairs (SPEC TREE-14)."""
    start = len(out)
    try:
        return _flatten_with_path_fast(x, path, is_leaf, out)
    except RecursionError:
        del out[start:]
        return _deep_flatten(x, path, is_leaf, out)


def _flatten_with_path_fast(x, path, is_leaf, out: list) -> PyTreeDef:
    if is_leaf is not None and _predicate_says_leaf(is_leaf, path, x):
        out.append((path, x))
        return _LEAF_DEF
    t = type(x)
    node = _node_type_of(t)
    if node is None:
        if t not in _leaf_types:
            _warn_iterable_leaf(t)
        out.append((path, x))
        return _LEAF_DEF
    keyed_children, aux = node.flatten_with_keys(x)
    return PyTreeDef(node, aux, tuple([
        _flatten_with_path_fast(c, (*path, k), is_leaf, out)
        for k, c in keyed_children]))


class _Pending:
    """A node of an explicit-stack walk whose children are still pending."""
    __slots__ = ("node", "aux", "arity")

    def __init__(self, node, aux, arity):
        self.node, self.aux, self.arity = node, aux, arity


def _pop(stack: list, n: int) -> tuple:
    """The last ``n`` items of ``stack``, removed from it."""
    cut = len(stack) - n
    items = tuple(stack[cut:])
    del stack[cut:]
    return items


def _spell(root: tuple, linked) -> tuple:
    """The key path ``root`` + the keys of ``linked``, a linked list of
    (parent, key) pairs ending in None."""
    keys = []
    while linked is not None:
        linked, key = linked
        keys.append(key)
    keys.reverse()
    return (*root, *keys)


def _deep_flatten(x, path, is_leaf, out: list) -> PyTreeDef:
    """``_flatten`` (``path`` None) or ``_flatten_with_path`` with an
    explicit stack, for trees deeper than Python's stack (SPEC TREE-28)."""
    with_path = path is not None
    root = path
    defs = []                       # finished structures, in order
    # A subtree's path is kept as (parent's path, key) -- a linked list --
    # and spelled out only where it is used, so a deep walk stays linear.
    todo = [(x, None)]
    while todo:
        item, item_path = todo.pop()
        if type(item) is _Pending:
            defs.append(PyTreeDef(item.node, item.aux, _pop(defs, item.arity)))
            continue
        if is_leaf is not None and _predicate_says_leaf(
                is_leaf, *((_spell(root, item_path), item) if with_path else (item,))):
            node = None
        else:
            node = _node_type_of(type(item))
            if node is None and type(item) not in _leaf_types:
                _warn_iterable_leaf(type(item))
        if node is None:
            out.append((_spell(root, item_path), item) if with_path else item)
            defs.append(_LEAF_DEF)
            continue
        if with_path:
            keyed, aux = node.flatten_with_keys(item)
            children = [(c, (item_path, k)) for k, c in keyed]
        else:
            kids, aux = node.flatten(item)
            children = [(c, None) for c in kids]
        todo.append((_Pending(node, aux, len(children)), None))
        todo.extend(reversed(children))
    return defs[0]


def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None
                 ) -> tuple[list, PyTreeDef]:
    """The leaves of ``tree`` in order, and its structure (SPEC TREE-1, TREE-9).

    ``is_leaf`` is asked about every subtree, the root and ``None`` included,
    before it is taken apart; True makes that subtree a leaf (SPEC TREE-8).
    """
    leaves = []
    treedef = _flatten(tree, is_leaf, leaves)
    return leaves, treedef


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None
                ) -> list:
    """The leaves of ``tree``, in flattening order (SPEC TREE-1)."""
    leaves = []
    _flatten(tree, is_leaf, leaves)
    return leaves


def tree_structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None
                   ) -> PyTreeDef:
    """The PyTreeDef of ``tree`` (SPEC TREE-9)."""
    return _flatten(tree, is_leaf, [])


def _path_predicate(is_leaf, is_leaf_takes_path):
    # The flag's truth is asked even without ``is_leaf``, as JAX does: an
    # array flag raises its ValueError (TREE-14).
    if not is_leaf_takes_path and is_leaf is not None:
        return lambda path, x: is_leaf(x)
    return is_leaf


def tree_flatten_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                           is_leaf_takes_path: bool = False
                           ) -> tuple[list[tuple[KeyPath, Any]], PyTreeDef]:
    """(key path, leaf) pairs and the structure of ``tree`` (SPEC TREE-14).

    ``is_leaf`` receives ``(path, x)`` when ``is_leaf_takes_path`` is true.
    """
    out = []
    treedef = _flatten_with_path(
        tree, (), _path_predicate(is_leaf, is_leaf_takes_path), out)
    return out, treedef


def tree_leaves_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                          is_leaf_takes_path: bool = False
                          ) -> list[tuple[KeyPath, Any]]:
    """The (key path, leaf) pairs of ``tree`` (SPEC TREE-14)."""
    return tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)[0]


def _one_level(tree, with_keys: bool):
    node = _node_type_of(type(tree))
    if node is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    kind = node.kind
    if with_keys:
        children, aux = node.flatten_with_keys(tree)
        if kind == _NAMEDTUPLE:
            # JAX 0.10.2 quirk, kept on purpose (SPEC TREE-21): one level of a
            # namedtuple names every child after its *first* field.
            first = GetAttrKey(type(tree)._fields[0]) if len(tree) else None
            children = [(first, c) for _, c in children]
    else:
        children, aux = node.flatten(tree)
    if kind == _NAMEDTUPLE:
        return list(children), type(tree)
    return children, aux


def flatten_one_level(tree: Any) -> tuple[Iterable[Any], Hashable]:
    """(children, metadata) of a node; ValueError for a leaf (SPEC TREE-21)."""
    return _one_level(tree, with_keys=False)


def flatten_one_level_with_keys(tree: Any) -> tuple[Iterable[Any], Hashable]:
    """((key, child) pairs, metadata) of a node; ValueError for a leaf (SPEC TREE-21)."""
    return _one_level(tree, with_keys=True)


def all_leaves(iterable: Iterable[Any],
               is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """True if every element of ``iterable`` is a leaf (SPEC TREE-21)."""
    if is_leaf is None:
        return all(_node_type_of(type(x)) is None for x in iterable)
    items = list(iterable)
    leaves = tree_leaves(items, is_leaf)
    return len(leaves) == len(items) and all(
        a is b for a, b in zip(items, leaves))


# ---------------------------------------------------------------------------
# 4. PyTreeDef (SPEC TREE-9..13)
# ---------------------------------------------------------------------------


class PyTreeDef:
    """The structure of a pytree: an immutable tree of nodes (SPEC TREE-9).

    Each PyTreeDef is one node: its node type (leaf, None, tuple, list, dict,
    namedtuple, registered class), the node's auxiliary data (dict keys, a
    custom class's metadata) and the PyTreeDefs of its children.  Build them
    with tree_structure / tree_flatten, never directly.
    """
    __slots__ = ("_node", "_aux", "_children", "_num_leaves", "_num_nodes",
                 "_hash")

    def __init__(self, node: _NodeType, aux, children: tuple):
        self._node = node
        self._aux = aux
        self._children = children
        num_leaves = 1 if node is _LEAF_NODE else 0
        num_nodes = 1
        for child in children:
            num_leaves += child._num_leaves
            num_nodes += child._num_nodes
        self._num_leaves = num_leaves
        self._num_nodes = num_nodes
        self._hash = None

    @property
    def num_leaves(self) -> int:
        """How many leaves a tree of this structure has."""
        return self._num_leaves

    @property
    def num_nodes(self) -> int:
        """How many nodes (leaves included) the structure has."""
        return self._num_nodes

    # -- building trees --------------------------------------------------------

    def unflatten(self, leaves: Iterable[Any]) -> Any:
        """A tree of this structure holding ``leaves`` (SPEC TREE-12)."""
        leaves = list(leaves)
        if len(leaves) < self._num_leaves:
            raise ValueError(f"Too few leaves for PyTreeDef; expected "
                             f"{self._num_leaves}, got {len(leaves)}")
        if len(leaves) > self._num_leaves:
            raise ValueError(
                f"Too many leaves for PyTreeDef; expected {self._num_leaves}.")
        try:
            return _build_fast(self, iter(leaves))
        except RecursionError:      # deeper than Python's stack (TREE-28)
            return _deep_build(self, leaves)

    def flatten_up_to(self, tree: Any) -> list:
        """The subtrees of ``tree`` sitting where this structure has leaves.

        This structure must be a prefix of ``tree`` (SPEC TREE-13).
        """
        out = []
        _flatten_up_to(self, tree, out)
        return out

    def from_iterable_tree(self, subtrees: Any) -> Any:
        """Rebuilds a tree of this structure from nested iterables (SPEC TREE-11)."""
        return _from_iterable(self, subtrees)

    def walk(self, f_node: Callable, f_leaf: Callable | None,
             leaves: Iterable[Any]) -> Any:
        """Folds ``f_node(children_results, node_aux)`` bottom-up over the leaves."""
        leaves = list(leaves)
        if len(leaves) != self._num_leaves:
            raise ValueError(f"walk expects {self._num_leaves} leaves, got "
                             f"{len(leaves)}")
        return _walk(self, f_node, f_leaf, iter(leaves))

    def compose(self, inner: PyTreeDef) -> PyTreeDef:
        """This structure with every leaf replaced by ``inner`` (SPEC TREE-11)."""
        return _fold(self, lambda td: inner,
                     lambda td, children: PyTreeDef(td._node, td._aux, children))

    # -- inspecting -------------------------------------------------------------

    def children(self) -> list[PyTreeDef]:
        """The PyTreeDefs of this node's children (SPEC TREE-11)."""
        return list(self._children)

    def node_data(self):
        """(node type, metadata) of the root node, or None for a leaf (SPEC TREE-11)."""
        node = self._node
        if node is _LEAF_NODE:
            return None
        if node.kind == _DICT:
            return dict, list(self._aux)
        return node.type, self._aux

    @staticmethod
    def from_node_data_and_children(registry, node_data, children):
        """A PyTreeDef whose root is described by ``node_data`` (see node_data())."""
        del registry  # refjax has a single registry
        children = tuple(children)
        if node_data is None:
            if children:
                raise RuntimeError("PyTreeDef traversal did not yield a singleton.")
            return _LEAF_DEF
        typ, aux = node_data
        node = _node_type_of(typ) if isinstance(typ, type) else None
        if node is None:
            raise RuntimeError(f"Could not find type: {typ}.")
        if node.kind == _DICT:
            aux = tuple(aux)
            if len(aux) != len(children):
                raise RuntimeError("Number of keys and entries does not match.")
        return PyTreeDef(node, aux, children)

    # -- comparing and printing -------------------------------------------------

    def __eq__(self, other):
        return isinstance(other, PyTreeDef) and _same_structure(self, other)

    def __ne__(self, other):
        # As in JAX 0.10.2, a non-PyTreeDef is neither equal nor unequal (SPEC TREE-10).
        return isinstance(other, PyTreeDef) and not _same_structure(self, other)

    def __hash__(self):
        """Hashes node kinds, types and arities; metadata is left out (SPEC TREE-10)."""
        h = self._hash
        if h is None:
            try:
                h = _hash_fast(self)
            except RecursionError:
                h = _deep_hash(self)
        return h

    def __repr__(self):
        try:
            text = _node_repr(self)
        except RecursionError:
            text = _deep_node_repr(self)
        return f"PyTreeDef({text})"

    def __reduce__(self):
        # Pickled as a flat list, so that pickle's own recursion never
        # limits the depth (SPEC TREE-28).
        return (_from_preorder, ([(td.node_data(), len(td._children))
                                  for td in _preorder(self)],))


PyTreeDef.__module__ = _PUBLIC_MODULE
_LEAF_DEF = PyTreeDef(_LEAF_NODE, None, ())


def _build_fast(td: PyTreeDef, leaves):
    """The tree of structure ``td`` around the iterator ``leaves``."""
    node = td._node
    if node is _LEAF_NODE:
        return next(leaves)
    return node.unflatten(td._aux,
                          tuple([_build_fast(c, leaves) for c in td._children]))


def _fold(td: PyTreeDef, on_leaf, on_node):
    """Folds ``td`` bottom-up from an explicit stack, so any depth works
    (SPEC TREE-28): ``on_leaf(leaf_def)`` for each leaf, left to right, and
    ``on_node(node_def, children_results)`` for every other node."""
    results = []
    todo = [td]
    while todo:
        item = todo.pop()
        if type(item) is _Pending:
            results.append(on_node(item.aux, _pop(results, item.arity)))
        elif item._node is _LEAF_NODE:
            results.append(on_leaf(item))
        else:
            todo.append(_Pending(None, item, len(item._children)))
            todo.extend(reversed(item._children))
    return results[0]


def _preorder(td: PyTreeDef) -> list:
    """The nodes of ``td``, each before its children, left to right."""
    nodes, todo = [], [td]
    while todo:
        item = todo.pop()
        nodes.append(item)
        todo.extend(reversed(item._children))
    return nodes


def _from_preorder(entries: list) -> PyTreeDef:
    """The PyTreeDef whose ``_preorder`` nodes are (node_data, arity)
    ``entries`` (unpickling; SPEC TREE-28)."""
    built = []
    for node_data, arity in reversed(entries):
        children = _pop(built, arity)[::-1]
        built.append(PyTreeDef.from_node_data_and_children(None, node_data, children))
    return built[0]


def _deep_build(td: PyTreeDef, leaves: list):
    """``PyTreeDef.unflatten`` with an explicit stack (SPEC TREE-28)."""
    leaves = iter(leaves)
    return _fold(td, lambda leaf: next(leaves),
                 lambda node, children: node._node.unflatten(node._aux, children))


def _hash_fast(td: PyTreeDef) -> int:
    h = td._hash
    if h is None:
        node = td._node
        h = td._hash = hash((node.kind, node.type,
                             tuple([_hash_fast(c) for c in td._children])))
    return h


def _deep_hash(td: PyTreeDef) -> int:
    """``hash(td)`` with an explicit stack, children first (SPEC TREE-28)."""
    todo = [(td, False)]
    while todo:
        item, ready = todo.pop()
        if item._hash is not None:
            continue
        if ready:
            item._hash = hash((item._node.kind, item._node.type,
                               tuple([c._hash for c in item._children])))
        else:
            todo.append((item, True))
            todo.extend((c, False) for c in item._children)
    return td._hash


def _deep_node_repr(td: PyTreeDef) -> str:
    """``_node_repr`` with an explicit stack (SPEC TREE-28)."""
    return _fold(td, lambda leaf: "*",
                 lambda node, parts: _node_text(node, list(parts)))


def _walk(td: PyTreeDef, f_node, f_leaf, leaves):
    def on_leaf(leaf_def):
        leaf = next(leaves)
        return leaf if f_leaf is None else f_leaf(leaf)

    def on_node(node_def, results):
        node = node_def._node
        if node.kind == _DICT:
            aux = list(node_def._aux)
        elif node.kind == _NAMEDTUPLE:
            aux = node.type
        else:
            aux = node_def._aux
        return f_node(results, aux)

    return _fold(td, on_leaf, on_node)


def _from_iterable(td: PyTreeDef, subtree):
    """``from_iterable_tree`` from an explicit stack (SPEC TREE-11, TREE-28)."""
    built = []
    todo = [(td, subtree)]
    while todo:
        item, sub = todo.pop()
        if type(item) is _Pending:
            built.append(item.node.unflatten(item.aux, _pop(built, item.arity)))
        elif item._node is _LEAF_NODE:
            built.append(sub)
        else:
            items = list(sub)
            if len(items) != len(item._children):
                raise ValueError("Arity mismatch between trees")
            todo.append((_Pending(item._node, item._aux, len(items)), None))
            todo.extend(reversed(list(zip(item._children, items))))
    return built[0]


def _metadata_equal(a, b) -> bool:
    if a is b:
        return True
    try:
        return bool(a == b)
    except RecursionError:
        raise       # too deep for the fast walk: the caller goes iterative
    except Exception as e:
        raise ValueError(
            "Exception raised while checking equality of metadata fields of "
            "pytree. Make sure that metadata fields are hashable and have simple "
            "equality semantics. (Note: arrays cannot be passed as metadata "
            "fields!)") from e


def _same_structure(a: PyTreeDef, b: PyTreeDef) -> bool:
    """Structural equality: kinds, types, arities and metadata (SPEC TREE-10)."""
    try:
        return _same_structure_fast(a, b)
    except RecursionError:
        return _deep_same_structure(a, b)


def _same_node(a: PyTreeDef, b: PyTreeDef) -> bool:
    """Whether the roots of ``a`` and ``b`` agree (children not compared)."""
    if (a._node.kind != b._node.kind or a._node.type is not b._node.type
        or len(a._children) != len(b._children)
        or a._num_leaves != b._num_leaves or a._num_nodes != b._num_nodes):
        return False
    return _metadata_equal(a._aux, b._aux)


def _same_structure_fast(a: PyTreeDef, b: PyTreeDef) -> bool:
    if a is b:
        return True
    if not _same_node(a, b):
        return False
    for x, y in zip(a._children, b._children):
        if not _same_structure_fast(x, y):
            return False
    return True


def _deep_same_structure(a: PyTreeDef, b: PyTreeDef) -> bool:
    """``_same_structure`` with an explicit stack (SPEC TREE-28)."""
    todo = [(a, b)]
    while todo:
        a, b = todo.pop()
        if a is not b:
            if not _same_node(a, b):
                return False
            todo.extend(zip(a._children, b._children))
    return True


def _node_repr(td: PyTreeDef) -> str:
    """``*`` for a leaf, Python syntax for built-ins, CustomNode(...) otherwise."""
    return _node_text(td, [_node_repr(c) for c in td._children])


def _node_text(td: PyTreeDef, parts: list) -> str:
    """The text of node ``td`` around its children's texts ``parts``."""
    node = td._node
    kind = node.kind
    if kind == _LEAF:
        return "*"
    if kind == _NONE:
        return "None"
    if kind == _TUPLE:
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
    if kind == _LIST:
        return "[" + ", ".join(parts) + "]"
    if kind == _DICT:
        return "{" + ", ".join(
            f"{k!r}: {p}" for k, p in zip(td._aux, parts)) + "}"
    if kind == _NAMEDTUPLE:
        label = f"namedtuple[{node.type.__name__}]"
    else:
        label = f"{node.type.__name__}[{td._aux}]"
    return f"CustomNode({label}, [{', '.join(parts)}])"


_NONE_PREFIX_HINT = (
    "\n\nIn previous releases of JAX, flatten-up-to used to consider None to "
    "be a tree-prefix of non-None values. To obtain the previous behavior, "
    "you can usually write:\n"
    "  jax.tree.map(lambda x, y: None if x is None else f(x, y), a, b, "
    "is_leaf=lambda x: x is None)")


def _flatten_up_to(td: PyTreeDef, x, out: list):
    """Collects into ``out`` the subtrees of ``x`` at td's leaves (SPEC TREE-13).

    Walks from an explicit stack, so any depth works (SPEC TREE-28)."""
    todo = [(td, x)]
    while todo:
        td, x = todo.pop()
        pairs = _up_to_children(td, x, out)
        if pairs is not None:
            todo.extend(reversed(pairs))


def _up_to_children(td: PyTreeDef, x, out: list):
    """One step of ``_flatten_up_to``: check ``x`` against node ``td``; a
    leaf goes to ``out``, else the (structure, subtree) pairs to visit."""
    node = td._node
    kind = node.kind
    arity = len(td._children)
    if kind == _LEAF:
        out.append(x)
        return None
    if kind == _NONE:
        if x is not None:
            raise ValueError(f"Expected None, got {x!r}.{_NONE_PREFIX_HINT}")
        return None
    if kind == _TUPLE or kind == _LIST:
        name = "tuple" if kind == _TUPLE else "list"
        if type(x) is not node.type:
            raise ValueError(f"Expected {name}, got {x!r}.")
        if len(x) != arity:
            raise ValueError(f"{name.capitalize()} arity mismatch: {len(x)} != "
                             f"{arity}; {name}: {x!r}.")
        children = x
    elif kind == _DICT:
        if type(x) is not dict:
            raise ValueError(f"Expected dict, got {x!r}.")
        keys = _sorted_dict_keys(x)
        if keys != td._aux:
            raise ValueError(f"Dict key mismatch; expected keys: {list(td._aux)!r};"
                             f" present keys: {list(keys)!r}.")
        children = [x[k] for k in keys]
    elif kind == _NAMEDTUPLE:
        if not _is_namedtuple_type(type(x)):
            raise ValueError(f"Expected named tuple, got {x!r}.")
        if len(x) != arity:
            raise ValueError(f"Named tuple arity mismatch: {len(x)} != {arity}; "
                             f"tuple: {x!r}.")
        if type(x) is not node.type:
            raise ValueError(f"Named tuple type mismatch: expected type: "
                             f"{node.type!r}, tuple: {x!r}.")
        children = x
    else:
        what = "custom dataclass" if kind == _DATACLASS else "custom"
        if type(x) is not node.type:
            raise ValueError(f"{what.capitalize()} node type mismatch: expected "
                             f"type: {node.type!r}, value: {x!r}.")
        children, aux = node.flatten(x)
        children = tuple(children)
        if not (aux is td._aux or aux == td._aux):
            raise ValueError(f"Mismatch {what} node data: {td._aux!r} != {aux!r}; "
                             f"value: {x!r}.")
        if len(children) != arity:
            raise ValueError(f"Custom type arity mismatch: {len(children)} != "
                             f"{arity}; value: {x!r}.")
    return list(zip(td._children, children))


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    """A tree of structure ``treedef`` around ``leaves`` (SPEC TREE-12)."""
    return treedef.unflatten(leaves)


def treedef_children(treedef: PyTreeDef) -> list[PyTreeDef]:
    """The PyTreeDefs of the root's children (SPEC TREE-11)."""
    return treedef.children()


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
    """True for a one-node structure: a leaf, None or an empty container (SPEC TREE-11)."""
    return treedef.num_nodes == 1


def treedef_tuple(treedefs: Iterable[PyTreeDef]) -> PyTreeDef:
    """The structure of a tuple whose children have the given structures (SPEC TREE-11)."""
    children = tuple(treedefs)
    for td in children:
        if not isinstance(td, PyTreeDef):
            raise TypeError(f"treedef_tuple expects PyTreeDefs, got "
                            f"{type(td).__name__} {td!r}.")
    return PyTreeDef(_TUPLE_NODE, None, children)


# ---------------------------------------------------------------------------
# 5. Functions over trees (SPEC TREE-17..20)
# ---------------------------------------------------------------------------


def _flatten_rest(treedef, tree, rest, is_leaf, name) -> list[list]:
    """flatten_up_to of each tree in ``rest``, with JAX's mismatch messages."""
    flats = []
    for other in rest:
        try:
            flats.append(treedef.flatten_up_to(other))
        except Exception as e:
            error = next(_prefix_mismatches((), tree, other, is_leaf), None)
            raise (e if error is None else error(name)) from None
    return flats


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any,
             is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """``f`` applied leafwise; ``tree`` is a prefix of every tree in ``rest``.

    A leaf of ``tree`` matches a whole subtree of the others; ``None`` is an
    empty node, so ``f`` is never called on it (SPEC TREE-17, TREE-2).
    """
    leaves, treedef = tree_flatten(tree, is_leaf)
    if not rest:
        return treedef.unflatten([f(x) for x in leaves])
    flats = _flatten_rest(treedef, tree, rest, is_leaf, "tree_map tree")
    return treedef.unflatten([f(*xs) for xs in zip(leaves, *flats)])


def tree_map_with_path(f: Callable[..., Any], tree: Any, *rest: Any,
                       is_leaf: Callable[..., bool] | None = None,
                       is_leaf_takes_path: bool = False) -> Any:
    """Like tree_map, but ``f(path, leaf, *others)`` (SPEC TREE-14, TREE-17)."""
    path_leaves, treedef = tree_flatten_with_path(tree, is_leaf,
                                                  is_leaf_takes_path)
    predicate = None if is_leaf_takes_path else is_leaf
    flats = _flatten_rest(treedef, tree, rest, predicate,
                          "tree_map_with_path tree")
    return treedef.unflatten([
        f(path, leaf, *others)
        for (path, leaf), *others in zip(path_leaves, *flats)])


class Unspecified:
    """Marks an omitted optional argument where None is a meaningful value."""


def tree_reduce(function: Callable[[Any, Any], Any], tree: Any,
                initializer: Any = Unspecified(),
                is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """functools.reduce of ``function`` over the leaves (SPEC TREE-18)."""
    leaves = tree_leaves(tree, is_leaf)
    if isinstance(initializer, Unspecified):
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def _balanced_reduce(items, operation, identity):
    if not items:
        if isinstance(identity, Unspecified):
            raise TypeError(
                "Must specify identity for parallel reduction of empty sequence.")
        return identity
    if len(items) == 1:
        return items[0]
    half = len(items) // 2
    return operation(_balanced_reduce(items[:half], operation, identity),
                     _balanced_reduce(items[half:], operation, identity))


def tree_reduce_associative(operation: Callable[[Any, Any], Any], tree: Any,
                            *, identity: Any = Unspecified(),
                            is_leaf: Callable[[Any], bool] | None = None
                            ) -> Any:
    """Reduces the leaves pairwise as a balanced tree, halves split at n//2 (SPEC TREE-18)."""
    return _balanced_reduce(tree_leaves(tree, is_leaf), operation, identity)


def tree_all(tree: Any, *,
             is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """True if every leaf is truthy; True for a tree without leaves (SPEC TREE-18)."""
    return all(tree_leaves(tree, is_leaf))


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None,
                   pytree_to_transpose: Any) -> Any:
    """Turns an outer tree of inner trees into an inner tree of outer trees.

    Only leaf counts are checked: the tree must have outer.num_leaves *
    inner.num_leaves leaves, else TypeError (SPEC TREE-19).
    """
    flat, treedef = tree_flatten(pytree_to_transpose)
    if inner_treedef is None:
        first_inner = outer_treedef.flatten_up_to(pytree_to_transpose)[0]
        inner_treedef = tree_structure(first_inner)
    inner_size = inner_treedef.num_leaves
    outer_size = outer_treedef.num_leaves
    if treedef.num_leaves != inner_size * outer_size:
        expected = outer_treedef.compose(inner_treedef)
        raise TypeError(f"Mismatch\n{treedef}\n != \n{expected}")
    rows = [flat[i * inner_size:(i + 1) * inner_size] for i in range(outer_size)]
    columns = [outer_treedef.unflatten(column) for column in zip(*rows)]
    return inner_treedef.unflatten(columns)


def broadcast_prefix(prefix_tree: Any, full_tree: Any,
                     is_leaf: Callable[[Any], bool] | None = None) -> list:
    """Each leaf of ``prefix_tree`` repeated once per leaf of its full subtree."""
    leaves, treedef = tree_flatten(prefix_tree, is_leaf)
    try:
        subtrees = treedef.flatten_up_to(full_tree)
    except Exception as e:
        error = next(_prefix_mismatches((), prefix_tree, full_tree, None), None)
        raise (e if error is None else
               error("broadcast_prefix prefix_tree")) from None
    result = []
    for leaf, subtree in zip(leaves, subtrees):
        result.extend([leaf] * tree_structure(subtree).num_leaves)
    return result


def tree_broadcast(prefix_tree: Any, full_tree: Any,
                   is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """``prefix_tree`` with each leaf copied over its subtree of ``full_tree`` (SPEC TREE-20)."""
    leaves = broadcast_prefix(prefix_tree, full_tree, is_leaf)
    return tree_structure(full_tree).unflatten(leaves)


# ---------------------------------------------------------------------------
# 6. Structure-mismatch messages (SPEC TREE-17)
# ---------------------------------------------------------------------------


def prefix_errors(prefix_tree: Any, full_tree: Any,
                  is_leaf: Callable[[Any], bool] | None = None
                  ) -> list[Callable[[str], ValueError]]:
    """Why ``prefix_tree`` is not a prefix of ``full_tree``, as error makers.

    Each entry takes the name to show for the tree (``"tree_map tree"``) and
    returns a ValueError.  An empty list means no mismatch was found.
    """
    return list(_prefix_mismatches((), prefix_tree, full_tree, is_leaf))


def _child_keys(tree) -> tuple:
    return tuple(k for k, _ in flatten_one_level_with_keys(tree)[0])


def _key_text(key) -> str:
    """The bare value of a key entry, as the 'child keys' lines show it."""
    for attr in ("key", "name", "idx"):
        if hasattr(key, attr):
            return str(getattr(key, attr))
    return str(key)


def _prefix_mismatches(path, prefix, full, is_leaf):
    """Yields error makers for the first mismatch under ``path``, depth first.

    As in JAX 0.10.2, ``is_leaf`` is honoured at the top level only
    (SPEC TREE-17).
    """
    structure = tree_structure(prefix, is_leaf)
    if structure.num_nodes == 1 and structure.num_leaves == 1:
        return  # a leaf is a prefix of anything

    where = keystr(path)
    if type(prefix) is not type(full):
        yield lambda name: ValueError(
            "pytree structure error: different types at key path\n"
            f"    {name}{where}\n"
            f"At that key path, the prefix pytree {name} has a subtree of type\n"
            f"    {type(prefix)}\n"
            "but at the same key path the full pytree has a subtree of different "
            f"type\n    {type(full)}.")
        return

    prefix_children, prefix_meta = flatten_one_level(prefix)
    full_children, full_meta = flatten_one_level(full)
    prefix_children, full_children = tuple(prefix_children), tuple(full_children)
    prefix_keys, full_keys = _child_keys(prefix), _child_keys(full)

    if isinstance(prefix, (list, tuple)):
        if len(prefix) != len(full):
            kind = type(prefix).__name__
            yield lambda name: ValueError(
                f"pytree structure error: different lengths of {kind} at key path\n"
                f"    {name}{where}\n"
                f"At that key path, the prefix pytree {name} has a subtree of type "
                f"{kind} of length {len(prefix)}, but the full pytree has a subtree "
                f"of the same type but of length {len(full)}.")
            return
    elif len(prefix_children) != len(full_children):
        try:
            diff = set(prefix_keys).symmetric_difference(set(full_keys))
        except Exception:
            diff = None
        diff_text = ("" if diff is None else
                     "so the symmetric difference on key sets is\n"
                     f"    {' '.join(_key_text(k) for k in diff)}")
        yield lambda name: ValueError(
            "pytree structure error: different numbers of pytree children at key "
            f"path\n    {name}{where}\n"
            f"At that key path, the prefix pytree {name} has a subtree of type\n"
            f"    {type(prefix)}\n"
            f"with {len(prefix_children)} child keys\n"
            f"    {' '.join(_key_text(k) for k in prefix_keys)}\n"
            "but at the same key path the full pytree has a subtree of the same "
            f"type but with {len(full_children)} child keys\n"
            f"    {' '.join(_key_text(k) for k in full_keys)}\n" + diff_text)
        return

    if prefix_meta != full_meta:
        prefix_text, full_text = str(prefix_meta), str(full_meta)
        diff_lines = textwrap.indent("\n".join(difflib.ndiff(
            prefix_text.splitlines(), full_text.splitlines())), prefix="    ")
        yield lambda name: ValueError(
            "pytree structure error: different pytree metadata at key path\n"
            f"    {name}{where}\n"
            f"At that key path, the prefix pytree {name} has a subtree of type\n"
            f"    {type(prefix)}\n"
            f"with metadata\n    {prefix_text}\n"
            "but at the same key path the full pytree has a subtree of the same "
            f"type but with metadata\n    {full_text}\n"
            f"so the diff in the metadata at these pytree nodes is\n{diff_lines}")
        return

    for key, p, f in zip(prefix_keys, prefix_children, full_children):
        yield from _prefix_mismatches((*path, key), p, f, None)


# ---------------------------------------------------------------------------
# 7. Registration (SPEC TREE-22..26) and the built-in custom nodes
# ---------------------------------------------------------------------------


def _checked_flatten(flatten_func):
    """flatten_func, with its result checked to be (iterable children, aux) (SPEC TREE-23)."""
    def flatten(x):
        out = flatten_func(x)
        if not isinstance(out, tuple) or len(out) != 2:
            raise ValueError("The to_iterable function for a custom PyTree node "
                             f"should return a (children, aux_data) tuple, got {out!r}")
        children = out[0]
        if not isinstance(children, (list, tuple)):
            try:
                children = tuple(children)
            except TypeError:
                raise ValueError("The to_iterable function for a custom PyTree node "
                                 "should return a (children, aux_data) tuple where "
                                 f"'children' is iterable, got {out!r}") from None
        return children, out[1]
    return flatten


def _checked_flatten_with_keys(flatten_with_keys):
    """flatten_with_keys, its result checked to be ((key, child)..., aux) (SPEC TREE-23)."""
    def flatten(x):
        out = flatten_with_keys(x)
        head = ("The to_iterable_with_keys function for a custom PyTree node "
                "should return a (key_leaf_pairs, aux_data) tuple")
        if not isinstance(out, tuple) or len(out) != 2:
            raise ValueError(f"{head}, got {out!r}")
        try:
            pairs = list(out[0])
        except TypeError:
            raise ValueError(f"{head} where 'key_leaf_pairs' is iterable, got "
                             f"{out!r}") from None
        for pair in pairs:
            if not isinstance(pair, tuple) or len(pair) != 2:
                raise ValueError(f"{head} where 'key_leaf_pairs' holds (key, child) "
                                 f"pairs, got {out!r}")
        return pairs, out[1]
    return flatten


def _indexed_keys(flatten):
    """A flatten_with_keys that names children FlattenedIndexKey(i) (SPEC TREE-15)."""
    def flatten_with_keys(x):
        children, aux = flatten(x)
        return [(FlattenedIndexKey(i), c) for i, c in enumerate(children)], aux
    return flatten_with_keys


def _add_node_type(node: _NodeType, what: str = "custom"):
    """Adds a node type; each type may be registered once (SPEC TREE-23)."""
    if node.type in _registry:
        raise ValueError(f"Duplicate {what} PyTreeDef type registration for "
                         f"{node.type}.")
    _registry[node.type] = node


def register_pytree_node(nodetype: type, flatten_func: Callable,
                         unflatten_func: Callable,
                         flatten_with_keys_func: Callable | None = None
                         ) -> None:
    """Makes ``nodetype`` a pytree node (SPEC TREE-22).

    ``flatten_func(x) -> (children, aux_data)``; ``unflatten_func(aux_data,
    children) -> x``, children as a tuple.  Without ``flatten_with_keys_func``
    the children get FlattenedIndexKey paths.  A type may be registered once.
    """
    flatten = _checked_flatten(flatten_func)
    if flatten_with_keys_func is None:
        with_keys = _indexed_keys(flatten)
    else:
        with_keys = _checked_flatten_with_keys(flatten_with_keys_func)
    _add_node_type(_NodeType(_CUSTOM, nodetype, flatten, with_keys,
                             unflatten_func))


def register_pytree_with_keys(nodetype: type, flatten_with_keys: Callable,
                              unflatten_func: Callable,
                              flatten_func: Callable | None = None) -> None:
    """Makes ``nodetype`` a node whose children carry the keys it returns (SPEC TREE-22).

    ``flatten_with_keys(x) -> (((key, child), ...), aux_data)``.
    ``flatten_func`` is an optional faster variant without keys.
    """
    if flatten_func is None:
        def flatten_func(x):
            pairs, aux = flatten_with_keys(x)
            return [c for _, c in pairs], aux
    register_pytree_node(nodetype, flatten_func, unflatten_func,
                         flatten_with_keys)


def register_pytree_node_class(cls):
    """Class decorator: registers ``cls`` through its ``tree_flatten`` method and
    ``tree_unflatten`` classmethod (SPEC TREE-22)."""
    register_pytree_node(cls, operator.methodcaller("tree_flatten"),
                         cls.tree_unflatten)
    return cls


def register_pytree_with_keys_class(cls):
    """Class decorator: registers ``cls`` through ``tree_flatten_with_keys``,
    ``tree_unflatten`` and, if defined, ``tree_flatten`` (SPEC TREE-22)."""
    flatten_func = (operator.methodcaller("tree_flatten")
                    if hasattr(cls, "tree_flatten") else None)
    register_pytree_with_keys(cls, operator.methodcaller("tree_flatten_with_keys"),
                              cls.tree_unflatten, flatten_func)
    return cls


def _dataclass_field_split(nodetype, data_fields, meta_fields, drop_fields):
    """The (data_fields, meta_fields) register_dataclass will use (SPEC TREE-24)."""
    if data_fields is None or meta_fields is None:
        if (data_fields is None) != (meta_fields is None):
            raise TypeError(
                "register_dataclass: data_fields and meta_fields must both be "
                "specified when either is specified. Got "
                f"data_fields={data_fields!r} meta_fields={meta_fields!r}.")
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError(
                "register_dataclass: data_fields and meta_fields are required when "
                f"nodetype is not a dataclass. Got nodetype={nodetype!r}.")
        fields = dataclasses.fields(nodetype)
        data_fields = [f.name for f in fields if not f.metadata.get("static", False)]
        meta_fields = [f.name for f in fields if f.metadata.get("static", False)]
    data_fields, meta_fields = tuple(data_fields), tuple(meta_fields)

    if dataclasses.is_dataclass(nodetype):
        init_fields = {f.name for f in dataclasses.fields(nodetype) if f.init}
        init_fields.difference_update(drop_fields)
        given = {*data_fields, *meta_fields}
        if given != init_fields:
            msg = ("data_fields and meta_fields must include all dataclass fields "
                   "with ``init=True`` and only them.")
            missing = init_fields - given
            if missing:
                msg += (f" Missing fields: {missing}. Add them to drop_fields to "
                        "suppress this error.")
            unexpected = given - init_fields
            if unexpected:
                msg += f" Unexpected fields: {unexpected}."
            raise ValueError(msg)
    overlap = set(data_fields) & set(meta_fields)
    if overlap:
        raise ValueError("data_fields and meta_fields must not overlap. "
                         f"Overlapping fields: {overlap}.")
    return data_fields, meta_fields


def register_dataclass(nodetype, data_fields=None, meta_fields=None,
                       drop_fields=()):
    """Registers a dataclass-like class: data fields are children, meta fields
    are static metadata compared for structure equality (SPEC TREE-24).

    For a dataclass both field lists may be omitted: fields whose metadata has
    ``static=True`` (see ``jax.tree.static``) are meta, the rest data.
    Returns ``nodetype``, so it works as a decorator.
    """
    data_fields, meta_fields = _dataclass_field_split(
        nodetype, data_fields, meta_fields, drop_fields)
    data_keys = tuple(GetAttrKey(name) for name in data_fields)

    def flatten(x):
        return ([getattr(x, name) for name in data_fields],
                tuple(getattr(x, name) for name in meta_fields))

    def flatten_with_keys(x):
        return ([(key, getattr(x, key.name)) for key in data_keys],
                tuple(getattr(x, name) for name in meta_fields))

    def unflatten(meta, data):
        return nodetype(**dict(zip(meta_fields, meta)), **dict(zip(data_fields, data)))

    _add_node_type(_NodeType(_DATACLASS, nodetype, flatten, flatten_with_keys,
                             unflatten), what="custom dataclass")
    return nodetype


def register_static(cls):
    """Registers ``cls`` as a node with no children whose instances are their own
    metadata, so they count as structure, not data (SPEC TREE-25)."""
    register_pytree_with_keys(cls, lambda x: ((), x), lambda x, children: x)
    return cls


def static(**kwargs):
    """A ``dataclasses.field`` marked ``static=True`` in its metadata, for
    register_dataclass (SPEC TREE-24).  Takes ``dataclasses.field``'s arguments;
    keys in ``metadata`` override the marker."""
    metadata = {"static": True, **(kwargs.pop("metadata", None) or {})}
    return dataclasses.field(metadata=metadata, **kwargs)


# OrderedDict keeps insertion order; defaultdict sorts like dict and keeps its
# default_factory in the metadata (SPEC TREE-3).
register_pytree_with_keys(
    collections.OrderedDict,
    lambda d: (tuple([(DictKey(k), v) for k, v in d.items()]), tuple(d)),
    lambda keys, values: collections.OrderedDict(zip(keys, values)),
    lambda d: (list(d.values()), tuple(d)))


def _flatten_defaultdict_with_keys(d):
    keys = tuple(sorted(d))
    return tuple([(DictKey(k), d[k]) for k in keys]), (d.default_factory, keys)


register_pytree_with_keys(
    collections.defaultdict, _flatten_defaultdict_with_keys,
    lambda aux, values: collections.defaultdict(aux[0], zip(aux[1], values)))


class _HashableCallableShim:
    """Holds a functools.partial given to Partial as its function.

    functools.partial would otherwise merge the inner partial's arguments into
    the new one, and those arguments must stay static (part of the metadata).
    """

    def __init__(self, fun):
        self.fun = fun

    def __call__(self, *args, **kwargs):
        return self.fun(*args, **kwargs)

    def __hash__(self):
        return hash(self.fun)

    def __eq__(self, other):
        if isinstance(other, _HashableCallableShim):
            return self.fun == other.fun
        return self.fun == other

    def __repr__(self):
        return f"_HashableCallableShim({self.fun!r})"


class Partial(functools.partial):
    """A functools.partial that is a pytree: the bound positional and keyword
    arguments are children, the function is static metadata (SPEC TREE-26).

    A plain functools.partial is a leaf.
    """

    def __new__(cls, func, *args, **kwargs):
        if isinstance(func, functools.partial):
            inner = func
            func = _HashableCallableShim(inner)
            out = super().__new__(cls, func, *args, **kwargs)
            func.func, func.args, func.keywords = inner.func, inner.args, inner.keywords
            return out
        return super().__new__(cls, func, *args, **kwargs)


Partial.__module__ = _PUBLIC_MODULE

register_pytree_node(
    Partial,
    lambda p: ((p.args, p.keywords), p.func),
    lambda func, children: Partial(func, *children[0], **children[1]))


# ---------------------------------------------------------------------------
# The registry object
# ---------------------------------------------------------------------------


class PyTreeRegistry:
    """The registry as an object, for code written against ``default_registry`` (SPEC TREE-21)."""

    def flatten(self, tree, leaf_predicate=None):
        return tree_flatten(tree, leaf_predicate)

    def flatten_with_path(self, tree, leaf_predicate=None):
        return tree_flatten_with_path(tree, leaf_predicate, is_leaf_takes_path=True)

    def flatten_one_level(self, tree):
        """(children, metadata) of a node, or None for a leaf."""
        return None if _node_type_of(type(tree)) is None else flatten_one_level(tree)

    def flatten_one_level_with_keys(self, tree):
        if _node_type_of(type(tree)) is None:
            return None
        return flatten_one_level_with_keys(tree)

    def is_node(self, typ) -> bool:
        return is_tree_node(typ)

    def register_node(self, nodetype, flatten_func, unflatten_func,
                      flatten_with_keys_func=None):
        register_pytree_node(nodetype, flatten_func, unflatten_func,
                             flatten_with_keys_func)

    def register_dataclass_node(self, nodetype, data_fields, meta_fields):
        register_dataclass(nodetype, data_fields, meta_fields)


PyTreeRegistry.__module__ = _PUBLIC_MODULE
default_registry = PyTreeRegistry()
