"""``jax.interpreters.xla``: eager application of a primitive (SPEC EXT-3).

refjax has no XLA client: ``Backend`` (JAX's XLA client class) cannot be
constructed, and ``canonicalize_dtype_handlers`` is empty because refjax
canonicalizes every value type in one place (``jax.dtypes``).
"""
from refjax._src.extension import mlir_unavailable_class as _unavailable_class

Backend = _unavailable_class("Backend")
canonicalize_dtype_handlers = {}


def apply_primitive(prim, *args, **params):
    """Run ``prim`` eagerly on concrete ``args`` (SPEC EXT-3)."""
    from refjax._src import core
    with core.set_current_trace(core.eval_trace):
        return prim.bind(*args, **params)
