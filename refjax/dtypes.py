"""Public dtype utilities, as ``jax.dtypes``."""
from ml_dtypes import bfloat16  # noqa: F401  (the scalar type, as jax.dtypes gives it)

from refjax._src.dtypes import (  # noqa: F401
    TypePromotionError, canonicalize_dtype, extended, finfo, float0, iinfo, issubdtype,
    itemsize_bits, prng_key, result_type, scalar_type_of,
)
