"""``jax.flatten_util.ravel_pytree`` (SPEC OPS-3, OPS-4)."""
import math

import numpy as np

from refjax._src import dtypes
from refjax._src.lax import lax, shapes
from refjax._src.tree_util import tree_flatten, tree_unflatten


class _Unravel:
    """Splits a flat vector back into the leaves' shapes and dtypes and
    rebuilds the tree.  Equal (and hashable) when built from equal trees,
    so it can be passed to ``jit`` as a static argument, as JAX's can."""

    def __init__(self, treedef, sizes, shapes_, from_dtypes, to_dtype):
        self._key = (treedef, tuple(sizes), tuple(shapes_), tuple(from_dtypes), to_dtype)

    def __eq__(self, other):
        return isinstance(other, _Unravel) and self._key == other._key

    def __hash__(self):
        return hash(self._key)

    def __call__(self, flat):
        treedef, sizes, shapes_, from_dtypes, to_dtype = self._key
        mixed = any(dtype != to_dtype for dtype in from_dtypes)
        if mixed and dtypes.dtype_and_weak_type(flat)[0] != to_dtype:
            raise TypeError(f"unravel function given array of dtype {dtypes.dtype_and_weak_type(flat)[0]}, "
                            f"but expected dtype {to_dtype}")
        if np.ndim(flat) != 1 or np.shape(flat)[0] != sum(sizes):
            raise ValueError(f"Sum of sizes {sum(sizes)} must be equal to dimension 0 of "
                             f"the operand shape {list(np.shape(flat))}")
        pieces = shapes.split(flat, sizes) if sizes else []
        leaves = [_restore(shapes.reshape(piece, shape), dtype if mixed else None)
                  for piece, shape, dtype in zip(pieces, shapes_, from_dtypes)]
        return tree_unflatten(treedef, leaves)


def _restore(piece, dtype):
    """A piece back in its leaf's dtype; a real leaf of a complex vector
    keeps the real part, without the complex-to-real warning."""
    if dtype is None:
        return piece
    if (dtypes.issubdtype(piece.dtype, np.complexfloating)
            and not dtypes.issubdtype(dtype, np.complexfloating)):
        piece = lax.real(piece)
    return lax.convert_element_type(piece, dtype)


def ravel_pytree(pytree):
    """A pytree's leaves as one 1-D array, and the function that undoes it
    (SPEC OPS-3).

    Leaves are raveled in ``tree_flatten`` order and concatenated in the
    dtype their dtypes promote to; the inverse splits a vector of that
    length and dtype, restores each leaf's shape and casts it back to its
    own dtype (another dtype is a TypeError, another length a ValueError,
    SPEC OPS-4).  A tree without leaves gives an empty float32 vector.
    """
    leaves, treedef = tree_flatten(pytree)
    if not leaves:
        return lax.full((0,), 0, np.float32), _Unravel(treedef, (), (), (), np.float32)
    from_dtypes = [dtypes.dtype_and_weak_type(leaf)[0] for leaf in leaves]
    to_dtype = dtypes.result_type(*from_dtypes)
    sizes = [int(math.prod(np.shape(leaf))) for leaf in leaves]
    shapes_ = [tuple(np.shape(leaf)) for leaf in leaves]
    flat = shapes.concatenate(
        [shapes.reshape(lax.convert_element_type(leaf, to_dtype), (size,))
         for leaf, size in zip(leaves, sizes)], 0)
    return flat, _Unravel(treedef, sizes, shapes_, from_dtypes, to_dtype)
