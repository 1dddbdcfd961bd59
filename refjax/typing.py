"""``jax.typing``: annotations for array-like values and dtypes (SPEC API-11)."""
import typing

import numpy as np

from refjax._src.array import Array


class SupportsDType(typing.Protocol):
    """Anything with a ``dtype`` attribute (``np.dtype`` or an array)."""

    @property
    def dtype(self) -> np.dtype: ...


# What jax.numpy functions accept as an array: arrays and scalars.
ArrayLike = typing.Union[Array, np.ndarray, np.bool_, np.number, bool, int,
                         float, complex]

# What they accept as a dtype: names, scalar types, dtypes, or dtype-holders.
DTypeLike = typing.Union[str, type[typing.Any], np.dtype, SupportsDType]

__all__ = ["ArrayLike", "DTypeLike"]
