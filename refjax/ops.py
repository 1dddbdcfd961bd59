"""``refjax.ops``: segment reductions, as ``jax.ops`` (SPEC OPS-1, OPS-2)."""
from refjax._src.ops import (  # noqa: F401
    segment_max, segment_min, segment_prod, segment_sum,
)
