"""Which stack frames are library code (``jax._src.traceback_util``,
SPEC EXT-14).

Libraries built on JAX (equinox, for one) register their own source files
here and ask ``include_frame`` which frames of a stack belong to the user,
to build error messages that point at user code.  refjax registers its own
package, so its frames count as library code as JAX's do.  refjax does not
rewrite the tracebacks of exceptions: ``filter_traceback`` and
``api_boundary`` leave them as they are.
"""
import os
import traceback
from typing import TypeVar

C = TypeVar("C")

# Paths (files or folders) whose frames are library code.
_exclude_paths = []


class UnfilteredStackTrace(Exception):
    """The exception JAX chains to show unfiltered frames (never raised by
    refjax, which does not filter)."""


SimplifiedTraceback = UnfilteredStackTrace


def register_exclusion(path):
    """Mark the file or folder ``path`` as library code (SPEC EXT-14)."""
    _exclude_paths.append(os.fspath(path))


def _under(filename, path):
    filename, path = os.path.abspath(filename), os.path.abspath(path)
    return filename == path or filename.startswith(path.rstrip(os.sep) + os.sep)


def include_filename(filename):
    """Whether a frame from ``filename`` is user code: not under any
    registered path (SPEC EXT-14)."""
    return not any(_under(filename, p) for p in _exclude_paths)


def include_frame(frame):
    """Whether ``frame`` is user code (its file is not registered)."""
    return include_filename(frame.f_code.co_filename)


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

# refjax's own frames are library code, as JAX's are.
register_exclusion(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
