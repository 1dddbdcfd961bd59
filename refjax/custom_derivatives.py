"""``refjax.custom_derivatives``, as ``jax.custom_derivatives``."""
from refjax._src.custom_derivatives import (  # noqa: F401
    SymbolicZero, closure_convert, custom_jvp, custom_jvp_call_p, custom_vjp,
    custom_vjp_call_p,
)
