"""Key path entries: how a path through a pytree names each step
(``SequenceKey``, ``DictKey``, ``GetAttrKey``, ``FlattenedIndexKey``) and
``keystr`` (SPEC TREE-15, TREE-16).  Part of ``tree_util``, kept apart
because nothing here depends on the registry or on PyTreeDef."""
from __future__ import annotations

import operator
from collections.abc import Hashable
from typing import Any, TypeVar

_PUBLIC_MODULE = "refjax.tree_util"

# ---------------------------------------------------------------------------
# 1. Key path entries (SPEC TREE-15)
# ---------------------------------------------------------------------------


def _as_index(value, cls_name, field):
    """`value` as a Python int, or TypeError naming the key class."""
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{cls_name}({field}=...) takes an int, got "
                        f"{type(value).__name__} {value!r}.") from None


class SequenceKey:
    """Key of a child of a list or tuple: its position ``idx`` (SPEC TREE-15)."""
    __slots__ = ("_idx",)
    __match_args__ = ("idx",)

    def __init__(self, idx: int):
        self._idx = _as_index(idx, "SequenceKey", "idx")

    @property
    def idx(self) -> int:
        return self._idx

    def __str__(self):
        return f"[{self._idx!r}]"

    def __repr__(self):
        return f"SequenceKey(idx={self._idx!r})"

    def __eq__(self, other):
        if not isinstance(other, SequenceKey):
            return NotImplemented
        return self._idx == other._idx

    def __hash__(self):
        return hash(("SequenceKey", self._idx))


class DictKey:
    """Key of a child of a dict-like node: the dict key ``key`` (SPEC TREE-15)."""
    __slots__ = ("_key",)
    __match_args__ = ("key",)

    def __init__(self, key: Hashable):
        self._key = key

    @property
    def key(self):
        return self._key

    def __str__(self):
        return f"[{self._key!r}]"

    def __repr__(self):
        return f"DictKey(key={self._key!r})"

    def __eq__(self, other):
        if not isinstance(other, DictKey):
            return NotImplemented
        return self._key == other._key

    def __hash__(self):
        return hash(self._key)


class GetAttrKey:
    """Key of a child stored as an attribute ``name`` (SPEC TREE-15)."""
    __slots__ = ("_name",)
    __match_args__ = ("name",)

    def __init__(self, name: str):
        if not isinstance(name, str):
            raise TypeError(f"GetAttrKey(name=...) takes a str, got "
                            f"{type(name).__name__} {name!r}.")
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    def __str__(self):
        return f".{self._name}"

    def __repr__(self):
        return f"GetAttrKey(name={self._name!r})"

    def __eq__(self, other):
        if not isinstance(other, GetAttrKey):
            return NotImplemented
        return self._name == other._name

    def __hash__(self):
        return hash(self._name)


class FlattenedIndexKey:
    """Key of the ``key``-th child of a node registered without keys (SPEC TREE-15)."""
    __slots__ = ("_key",)
    __match_args__ = ("key",)

    def __init__(self, key: int):
        self._key = _as_index(key, "FlattenedIndexKey", "key")

    @property
    def key(self) -> int:
        return self._key

    def __str__(self):
        return f"[<flat index {self._key!r}>]"

    def __repr__(self):
        return f"FlattenedIndexKey(key={self._key!r})"

    def __eq__(self, other):
        if not isinstance(other, FlattenedIndexKey):
            return NotImplemented
        return self._key == other._key

    def __hash__(self):
        return hash(("FlattenedIndexKey", self._key))


for _cls in (SequenceKey, DictKey, GetAttrKey, FlattenedIndexKey):
    _cls.__module__ = _PUBLIC_MODULE

KeyEntry = TypeVar("KeyEntry", bound=Any)
KeyPath = tuple[KeyEntry, ...]


def keystr(keys: KeyPath, *, simple: bool = False, separator: str = "") -> str:
    """Renders a key path: ``str`` of each entry joined by ``separator``.

    With ``simple=True`` a known key entry renders as its bare value (``0``,
    ``a``, ``name``) instead of ``[0]``, ``['a']``, ``.name``; anything else
    renders with ``str`` (SPEC TREE-16).
    """
    if simple:
        return separator.join(map(_simple_key_str, keys))
    return separator.join(map(str, keys))


def _simple_key_str(key) -> str:
    if isinstance(key, SequenceKey):
        return str(key.idx)
    if isinstance(key, (DictKey, FlattenedIndexKey)):
        return str(key.key)
    if isinstance(key, GetAttrKey):
        return key.name
    return str(key)
