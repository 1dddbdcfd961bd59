"""``jax.ffi``: calling compiled (C++/CUDA) functions through XLA's foreign
function interface (SPEC API-14).

refjax has no XLA runtime to register or call such targets, so every entry
point raises NotImplementedError naming that reason.  Use
``jax.pure_callback`` for host functions instead.
"""

__all__ = [
    "build_ffi_lowering_function", "ffi_call", "ffi_lowering", "include_dir",
    "pycapsule", "register_ffi_target", "register_ffi_target_as_batch_partitionable",
    "register_ffi_type", "register_ffi_type_id",
]


def _refuse(what):
    raise NotImplementedError(
        f"refjax runs on NumPy without XLA, so it cannot {what}; "
        "jax.pure_callback calls a Python function from traced code")


def ffi_call(target_name, result_shape_dtypes, *args, **kwargs):
    _refuse(f"call the XLA FFI target {target_name!r}")


def register_ffi_target(name, fn, platform="cpu", api_version=1, **kwargs):
    _refuse(f"register the XLA FFI target {name!r}")


def register_ffi_target_as_batch_partitionable(c_api_name):
    _refuse(f"register the XLA FFI target {c_api_name!r}")


def register_ffi_type(type_name, type_info, platform="cpu"):
    _refuse(f"register the XLA FFI type {type_name!r}")


def register_ffi_type_id(name, obj, platform="cpu"):
    _refuse(f"register the XLA FFI type {name!r}")


def ffi_lowering(call_target_name, **kwargs):
    _refuse("lower to an XLA custom call")


def build_ffi_lowering_function(call_target_name, **kwargs):
    _refuse("lower to an XLA custom call")


def pycapsule(funcptr):
    _refuse("wrap a C function pointer for XLA")


def include_dir():
    _refuse("provide the XLA FFI C++ headers")
