"""Shape manipulation, contractions, sorting and the rest of ``jax.numpy`` (SPEC NP-6)."""

__all__ = []
