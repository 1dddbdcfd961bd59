"""``jax.interpreters.partial_eval``: tracing to jaxprs, partial evaluation
and dead-code elimination (SPEC EXT-5)."""
from typing import Any as Val  # noqa: F401  (JAX's ``Val`` is ``Any``)

from refjax._src.extension import (  # noqa: F401
    JaxprTracer, PartialVal, custom_partial_eval_rules, dce_jaxpr, dce_jaxpr_call_rule,
    dce_jaxpr_closed_call_rule, dce_jaxpr_consts, dce_rules,
    partial_eval_jaxpr_custom_rules, trace_to_jaxpr_dynamic, trace_to_jaxpr_nounits,
)
from refjax._src.interpreters.partial_eval import DynamicJaxprTracer  # noqa: F401

__all__ = [
    "DynamicJaxprTracer", "JaxprTracer", "PartialVal", "Val",
    "custom_partial_eval_rules", "dce_jaxpr", "dce_jaxpr_call_rule",
    "dce_jaxpr_closed_call_rule", "dce_jaxpr_consts", "dce_rules",
    "partial_eval_jaxpr_custom_rules", "trace_to_jaxpr_dynamic",
    "trace_to_jaxpr_nounits",
]
