"""``jax.scipy.stats``: probability distributions and statistics (SPEC STA-1).

One module per distribution, as in JAX; ``_common`` holds the promotion and
the constants they share, ``_core`` holds ``mode``, ``rankdata`` and ``sem``
and ``kde`` holds ``gaussian_kde``.  The public names are re-exported by
``refjax.scipy.stats``.
"""
