"""``refjax.experimental.checkify``, as ``jax.experimental.checkify``.

The implementation lives in :mod:`refjax._src.checkify`.
"""
from refjax._src.checkify import (  # noqa: F401
    Error, ErrorCategory, JaxRuntimeError, all_checks, automatic_checks, check,
    check_error, checkify, div_checks, float_checks, index_checks, init_error,
    nan_checks, user_checks,
)
