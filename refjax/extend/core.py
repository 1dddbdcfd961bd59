"""``refjax.extend.core``: jaxpr data structures and primitives (SPEC JXP-4)."""
from refjax._src.core import (  # noqa: F401
    ClosedJaxpr, DebugInfo, DropVar, Jaxpr, JaxprEqn, Literal, Primitive, Var,
    concrete_or_error, jaxpr_as_fun, jaxprs_in_params, new_jaxpr_eqn,
    set_current_trace, subjaxprs, take_current_trace,
)
from refjax._src.errors import (  # noqa: F401
    InconclusiveDimensionOperation, JaxprTypeError,
)
from refjax._src.extension import (  # noqa: F401
    CallPrimitive, Effect, Effects, TraceTag, array_types, call_impl, check_jaxpr,
    find_top_trace, gensym, get_opaque_trace_state, mapped_aval, no_effects,
    primal_dtype_to_tangent_dtype, unmapped_aval, valid_jaxtype,
)
from refjax._src.extension import (  # noqa: F401
    nonempty_axis_env as nonempty_axis_env_DO_NOT_USE,
    unsafe_am_i_under_a_jit as unsafe_am_i_under_a_jit_DO_NOT_USE,
    unsafe_am_i_under_a_vmap as unsafe_am_i_under_a_vmap_DO_NOT_USE,
    unsafe_get_axis_names as unsafe_get_axis_names_DO_NOT_USE,
)
from refjax._src.lax.tokens import AbstractToken, Token  # noqa: F401
from refjax.extend import primitives  # noqa: F401
