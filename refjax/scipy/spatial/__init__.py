"""``refjax.scipy.spatial``, as ``jax.scipy.spatial``: its ``transform``
submodule (SPEC SOP-21)."""
