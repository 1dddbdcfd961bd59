"""``refjax.ad_checkpoint``, as ``jax.ad_checkpoint``."""
from refjax._src.ad_checkpoint import (  # noqa: F401
    checkpoint, checkpoint_policies, remat, remat_p,
)
from refjax._src.ad_checkpoint import (  # noqa: F401
    Offloadable, Recompute, Saveable, checkpoint_name, print_saved_residuals,
)
