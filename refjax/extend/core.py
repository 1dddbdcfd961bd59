"""``refjax.extend.core``: jaxpr data structures and primitives (SPEC JXP-4)."""
from refjax._src.core import (  # noqa: F401
    ClosedJaxpr, DebugInfo, DropVar, Jaxpr, JaxprEqn, Literal, Primitive, Var,
    concrete_or_error, jaxpr_as_fun, jaxprs_in_params, new_jaxpr_eqn,
    set_current_trace, subjaxprs, take_current_trace,
)
from refjax._src.errors import (  # noqa: F401
    InconclusiveDimensionOperation, JaxprTypeError,
)
