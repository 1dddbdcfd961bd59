"""``jax.interpreters.traceback_util``: which stack frames are library code
(SPEC EXT-3, EXT-14); the same module as ``jax._src.traceback_util``."""
import functools  # noqa: F401  (names JAX's module exposes)
import os  # noqa: F401
import traceback  # noqa: F401
import types  # noqa: F401
from typing import TypeVar, cast  # noqa: F401

from refjax._src import config  # noqa: F401
from refjax._src.traceback_util import (  # noqa: F401
    C, SimplifiedTraceback, UnfilteredStackTrace, api_boundary, filter_traceback,
    format_exception_only, include_filename, include_frame, register_exclusion, repro,
    repro_is_enabled,
)

__all__ = [
    "C", "SimplifiedTraceback", "TypeVar", "UnfilteredStackTrace",
    "api_boundary", "cast", "config", "filter_traceback",
    "format_exception_only", "functools", "include_filename", "include_frame",
    "os", "register_exclusion", "repro", "repro_is_enabled", "traceback",
    "types",
]
