"""``jax.ref``: mutable array references (SPEC EXT-7)."""
from refjax._src.refs import (  # noqa: F401
    AbstractRef, Ref, addupdate, empty_ref, free_ref, freeze, get, new_ref, set,
    swap,
)

__all__ = [
    "AbstractRef", "Ref", "addupdate", "empty_ref", "free_ref", "freeze", "get",
    "new_ref", "set", "swap",
]
