"""``refjax.nn``: neural-network helpers, as ``jax.nn``."""
