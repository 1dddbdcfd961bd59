"""``refjax.core``: the public names of ``jax.core`` (SPEC JXP-4)."""
from refjax._src.core import (  # noqa: F401
    ShapedArray, Trace, Tracer, concrete_or_error, eval_jaxpr,
)
from refjax._src.core import ShapedArray as AbstractValue  # noqa: F401
from refjax._src.api import ensure_compile_time_eval  # noqa: F401
from refjax._src.core import (  # noqa: F401  (also importable here, as in older JAX)
    ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Primitive, Var,
)

Atom = (Var, Literal)
eval_context = ensure_compile_time_eval
from refjax._src.extension import (  # noqa: F401
    ParamDict, Value, max_dim, min_dim,
)
