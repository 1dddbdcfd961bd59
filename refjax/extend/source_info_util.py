"""``jax.extend.source_info_util``: where operations come from (SPEC EXT-6).

A name stack is the tuple of ``named_scope`` / transformation names an
operation is nested in; a ``SourceInfo`` pairs the user frame with it.
refjax keeps this stack per thread for code that reads it; its jaxprs
print no name stacks, as JAX's printed jaxprs show none either.
"""
import contextlib
import threading

from refjax._src import core

__all__ = [
    "NameStack", "SourceInfo", "current", "current_name_stack",
    "extend_name_stack", "new_name_stack", "new_source_info",
    "register_exclusion", "reset_name_stack", "set_name_stack", "summarize",
    "transform_name_stack", "user_context",
]


class NameStack:
    """An immutable stack of scope names; ``str`` joins them with ``/``."""

    __slots__ = ("stack",)

    def __init__(self, stack=()):
        self.stack = tuple(stack)

    def extend(self, name):
        names = name if isinstance(name, (tuple, list)) else (name,)
        return NameStack(self.stack + tuple(names))

    def transform(self, name):
        return NameStack(self.stack + (f"{name}()",))

    def __str__(self):
        return "/".join(self.stack)

    def __repr__(self):
        return f"NameStack(stack={self.stack!r})"

    def __eq__(self, other):
        return isinstance(other, NameStack) and self.stack == other.stack

    def __hash__(self):
        return hash(self.stack)

    def __len__(self):
        return len(self.stack)


class SourceInfo:
    """The user frame an operation comes from, and its name stack."""

    __slots__ = ("traceback", "name_stack")

    def __init__(self, traceback, name_stack):
        self.traceback = traceback
        self.name_stack = name_stack

    def replace(self, traceback=None, name_stack=None):
        return SourceInfo(self.traceback if traceback is None else traceback,
                          self.name_stack if name_stack is None else name_stack)


class _State(threading.local):
    def __init__(self):
        self.name_stack = NameStack()


_state = _State()
_exclusions = []


def current_name_stack():
    """This thread's current name stack."""
    return _state.name_stack


def new_name_stack(name=""):
    """A name stack holding ``name`` (empty for ``""``)."""
    return NameStack((name,) if name else ())


def current():
    """The SourceInfo of the innermost user frame."""
    return SourceInfo(core.current_source_info(), _state.name_stack)


new_source_info = current


def summarize(source_info, num_frames=1):
    """``file:line:column (function)`` of ``source_info``'s frame."""
    frame = source_info.traceback
    return "unknown" if frame is None else frame.summary()


def register_exclusion(path):
    """Treat files under ``path`` as library code (refjax keeps the list;
    it skips its own frames when finding the user's)."""
    _exclusions.append(path)


@contextlib.contextmanager
def _with_stack(stack):
    prev = _state.name_stack
    _state.name_stack = stack
    try:
        yield
    finally:
        _state.name_stack = prev


def extend_name_stack(name):
    """Push ``name`` on the name stack inside the block."""
    return _with_stack(_state.name_stack.extend(name))


def transform_name_stack(name):
    """Push the transformation ``name`` on the name stack inside the block."""
    return _with_stack(_state.name_stack.transform(name))


def set_name_stack(name_stack):
    """Use ``name_stack`` inside the block."""
    return _with_stack(name_stack)


def reset_name_stack():
    """An empty name stack inside the block."""
    return _with_stack(NameStack())


@contextlib.contextmanager
def user_context(traceback, *, name_stack=None):
    """Attribute operations in the block to ``traceback``/``name_stack``
    (the name stack is applied; refjax finds user frames itself)."""
    with _with_stack(_state.name_stack if name_stack is None else name_stack):
        yield
