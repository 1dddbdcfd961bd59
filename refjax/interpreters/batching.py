"""``jax.interpreters.batching``: batching rules (SPEC EXT-2).

``fancy_primitive_batchers`` is a live view of each Primitive's ``batch``
rule, ``rule(axis_data, args, dims, **params) -> (out, out_dims)``;
``primitive_batchers`` (``rule(args, dims, **params)``) and
``axis_primitive_batchers`` (``rule(size, name, trace_type, args, dims,
**params)``) take rules in JAX's older conventions and install them there.
"""
from refjax._src.extension import (  # noqa: F401
    axis_primitive_batchers, bdim_at_front, broadcast, defbroadcasting, defreducer,
    defvectorized, fancy_primitive_batchers, primitive_batchers, register_vmappable,
    unregister_vmappable,
)

__all__ = [
    "axis_primitive_batchers", "bdim_at_front", "broadcast", "defbroadcasting",
    "defreducer", "defvectorized", "fancy_primitive_batchers",
    "primitive_batchers", "register_vmappable", "unregister_vmappable",
]
