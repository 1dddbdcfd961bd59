"""``jax.interpreters.traceback_util``: JAX's filtering of its own frames
from tracebacks (SPEC EXT-3).

refjax does not rewrite tracebacks: every frame is kept, so the filtering
hooks here accept their arguments and change nothing, and ``api_boundary``
returns the function it decorates.
"""
import functools  # noqa: F401  (names JAX's module exposes)
import os  # noqa: F401
import traceback  # noqa: F401
import types  # noqa: F401
from typing import TypeVar, cast  # noqa: F401

from refjax._src import config  # noqa: F401

C = TypeVar("C")


class UnfilteredStackTrace(Exception):
    """The exception JAX chains to show unfiltered frames (never raised by
    refjax, which does not filter)."""


SimplifiedTraceback = UnfilteredStackTrace
_exclusions = []


def register_exclusion(path):
    """Remember ``path`` as library code (refjax shows all frames anyway)."""
    _exclusions.append(path)


def include_filename(filename):
    """Whether a frame from ``filename`` would be shown: always."""
    return True


def include_frame(frame):
    """Whether ``frame`` would be shown: always."""
    return True


def filter_traceback(tb):
    """``tb`` unchanged: refjax keeps every frame."""
    return tb


def format_exception_only(e):
    """The last line(s) of a traceback for ``e``."""
    return "".join(traceback.format_exception_only(type(e), e)).strip()


def api_boundary(fun=None, *, repro_api_name=None, repro_user_func=False):
    """``fun`` itself: refjax does not trim frames at API boundaries."""
    if fun is None:
        return lambda f: f
    return fun


def repro_is_enabled():
    """JAX's repro-generation debugging mode: off in refjax."""
    return False


repro = None

__all__ = [
    "C", "SimplifiedTraceback", "TypeVar", "UnfilteredStackTrace",
    "api_boundary", "cast", "config", "filter_traceback",
    "format_exception_only", "functools", "include_filename", "include_frame",
    "os", "register_exclusion", "repro", "repro_is_enabled", "traceback",
    "types",
]
