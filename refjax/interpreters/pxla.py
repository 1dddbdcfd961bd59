"""``jax.interpreters.pxla``: XLA compile options (SPEC EXT-3).

refjax has no XLA compiler, so there are no compile options to make."""
from refjax._src.extension import mlir_unavailable as _unavailable

create_compile_options = _unavailable("create_compile_options")
create_compile_options.__doc__ = (
    "XLA compile options: refjax has no XLA compiler, so this raises "
    "NotImplementedError (SPEC EXT-3).")
