"""``refjax.scipy``: SciPy-like functions, as ``jax.scipy``."""
