"""``refjax.scipy.stats.multinomial``, as ``jax.scipy.stats.multinomial``; the rules live in
``refjax._src.scipy.stats.multinomial``."""
from refjax._src.scipy.stats.multinomial import logpmf, pmf  # noqa: F401

__all__ = ["logpmf", "pmf"]
