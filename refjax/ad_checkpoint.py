"""``refjax.ad_checkpoint``, as ``jax.ad_checkpoint``."""
from refjax._src.ad_checkpoint import (  # noqa: F401
    checkpoint, checkpoint_policies, remat, remat_p,
)
