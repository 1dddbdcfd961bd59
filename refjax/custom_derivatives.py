"""``refjax.custom_derivatives``, as ``jax.custom_derivatives``."""
from refjax._src.custom_derivatives import (  # noqa: F401
    SymbolicZero, closure_convert, custom_jvp, custom_jvp_call_p, custom_vjp,
    custom_vjp_call_p,
)
from refjax._src.custom_derivatives import (  # noqa: F401
    CustomVJPPrimal, custom_vjp_primal_tree_values, linear_call, remat_opt_p,
    zero_from_primal,
)
from refjax._src.custom_gradient import custom_gradient  # noqa: F401
