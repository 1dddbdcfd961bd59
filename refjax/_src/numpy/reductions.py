"""Reductions of ``jax.numpy`` (SPEC NP-5)."""

__all__ = []
