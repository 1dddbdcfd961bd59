"""``jax.interpreters.mlir``: lowering primitives to MLIR (SPEC EXT-3).

refjax interprets jaxprs with NumPy and has no compiler IR.  What carries
over is ``register_lowering(prim, lower_fun(f, multiple_results))``: ``f``,
a function of Arrays, becomes the primitive's implementation (eagerly and
under ``jit``).  Every function that builds or reads MLIR objects exists
and raises ``NotImplementedError`` naming that reason; constructing an
MLIR-side class does too; plain constants and type aliases are JAX's.
"""
import types as _types
import typing as _typing
from collections.abc import Callable as _Callable
from collections.abc import Sequence as _Sequence

from refjax._src.extension import lower_fun  # noqa: F401
from refjax._src.extension import mlir_unavailable as _fn
from refjax._src.extension import mlir_unavailable_class as _cls
from refjax._src.extension import register_lowering
from refjax._src.mesh import Mesh  # noqa: F401

# Channel kinds of host transfers, JAX's values.
DEVICE_TO_DEVICE_TYPE = 1
SEND_TO_HOST_TYPE = 2
RECV_FROM_HOST_TYPE = 3

MeshAxisName = _typing.Any

# MLIR-side classes: constructing one raises.
Value = _cls("Value")
Token = Value
LoweringRuleContext = _cls("LoweringRuleContext")
ModuleContext = _cls("ModuleContext")
LoweringParameters = _cls("LoweringParameters")
LoweringResult = _cls("LoweringResult")
ShapePolyLoweringState = _cls("ShapePolyLoweringState")
TokenSet = _cls("TokenSet")
SPMDAxisContext = _cls("SPMDAxisContext")
ShardingContext = _cls("ShardingContext")
ConstantHandler = _cls("ConstantHandler")
AxisContext = _typing.Union[SPMDAxisContext, ShardingContext]
LoweringRule = _Callable[..., _Sequence[Value]]


class _NoMLIR(_types.ModuleType):
    """Stands for ``jaxlib.mlir.ir``: any attribute raises."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _fn(f"ir.{name}")


ir = _NoMLIR("ir", "jaxlib's MLIR bindings, which refjax lacks (SPEC EXT-3).")

# Registries of MLIR-side handlers: empty, nothing in refjax reads them.
ir_type_handlers = {}
ir_tree_registry = None
lowerable_effects = frozenset()

aval_to_ir_type = _fn("aval_to_ir_type")
aval_to_ir_types = _fn("aval_to_ir_types")
core_call_lowering = _fn("core_call_lowering")
dense_int_array = _fn("dense_int_array")
dense_int_elements = _fn("dense_int_elements")
dtype_to_ir_type = _fn("dtype_to_ir_type")
emit_python_callback = _fn("emit_python_callback")
flatten_ir_types = _fn("flatten_ir_types")
flatten_ir_values = _fn("flatten_ir_values")
i32_attr = _fn("i32_attr")
i64_attr = _fn("i64_attr")
ir_attribute = _fn("ir_attribute")
ir_constant = _fn("ir_constant")
ir_constants = _fn("ir_constants")
jaxpr_subcomp = _fn("jaxpr_subcomp")
lower_jaxpr_to_fun = _fn("lower_jaxpr_to_fun")
lower_jaxpr_to_module = _fn("lower_jaxpr_to_module")
make_ir_context = _fn("make_ir_context")
merge_mlir_modules = _fn("merge_mlir_modules")
module_to_bytecode = _fn("module_to_bytecode")
module_to_string = _fn("module_to_string")
register_constant_handler = _fn("register_constant_handler")
shape_tensor = _fn("shape_tensor")
token_type = _fn("token_type")
unflatten_ir_values_like_types = _fn("unflatten_ir_values_like_types")

__all__ = [
    "AxisContext", "ConstantHandler", "DEVICE_TO_DEVICE_TYPE",
    "LoweringParameters", "LoweringResult", "LoweringRule",
    "LoweringRuleContext", "Mesh", "MeshAxisName", "ModuleContext",
    "RECV_FROM_HOST_TYPE", "SEND_TO_HOST_TYPE", "SPMDAxisContext",
    "ShapePolyLoweringState", "ShardingContext", "Token", "TokenSet", "Value",
    "aval_to_ir_type", "aval_to_ir_types", "core_call_lowering",
    "dense_int_array", "dense_int_elements", "dtype_to_ir_type",
    "emit_python_callback", "flatten_ir_types", "flatten_ir_values",
    "i32_attr", "i64_attr", "ir", "ir_attribute", "ir_constant",
    "ir_constants", "ir_tree_registry", "ir_type_handlers", "jaxpr_subcomp",
    "lower_fun", "lower_jaxpr_to_fun", "lower_jaxpr_to_module",
    "lowerable_effects", "make_ir_context", "merge_mlir_modules",
    "module_to_bytecode", "module_to_string", "register_constant_handler",
    "register_lowering", "shape_tensor", "token_type",
    "unflatten_ir_values_like_types",
]
