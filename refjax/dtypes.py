"""Public dtype utilities, as ``jax.dtypes``."""
from refjax._src.dtypes import (  # noqa: F401
    TypePromotionError, bfloat16, extended, prng_key, canonicalize_dtype, finfo, float0, iinfo,
    issubdtype, itemsize_bits, result_type, scalar_type_of,
)
