"""``jax.interpreters.ad``: automatic-differentiation rules (SPEC EXT-1).

``primitive_jvps`` and ``primitive_transposes`` are live views of each
Primitive's ``jvp`` and ``transpose`` rules; the rule conventions are
JAX's (``jvp(primals, tangents, **params) -> (out, tangent)``,
``transpose(ct, *args, **params)`` with ``UndefinedPrimal`` operands).
"""
from __future__ import annotations  # noqa: F401  (JAX's module exposes ``annotations``)

from refjax._src.extension import (  # noqa: F401
    add_jaxvals, defbilinear, defjvp, defjvp2, deflinear, deflinear2,
    get_primitive_transpose,
)
from refjax._src.extension import jvp_flat as jvp  # noqa: F401
from refjax._src.extension import linearize_flat as linearize  # noqa: F401
from refjax._src.extension import primitive_jvps, primitive_transposes, zeros_like_aval
from refjax._src.interpreters.ad import (  # noqa: F401
    JVPTrace, JVPTracer, UndefinedPrimal, Zero,
)
from refjax._src.interpreters.ad import add_any_p as add_jaxvals_p  # noqa: F401
from refjax._src.interpreters.ad import (
    add_tangents, instantiate_zeros, is_undefined_primal,
)

__all__ = [
    "JVPTrace", "JVPTracer", "UndefinedPrimal", "Zero", "add_jaxvals",
    "add_jaxvals_p", "add_tangents", "annotations", "defbilinear", "defjvp",
    "defjvp2", "deflinear", "deflinear2", "get_primitive_transpose",
    "instantiate_zeros", "is_undefined_primal", "jvp", "linearize",
    "primitive_jvps", "primitive_transposes", "zeros_like_aval",
]
