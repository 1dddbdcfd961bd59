"""refjax's version, in one place (``jax.__version__``, ``jax.version``)."""
__version__ = "0.1.0"
