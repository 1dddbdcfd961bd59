"""``jax.profiler`` (SPEC API-14).

Annotations (``TraceAnnotation``, ``StepTraceAnnotation``,
``annotate_function``) only label work for a profiler; JAX runs them without
one, and so does refjax, where they do nothing else.  Capturing a profile
(``trace``, ``start_trace``, ``start_server``) needs XLA's profiler, which
refjax does not have: those raise NotImplementedError saying so.
"""
import contextlib
import functools

__all__ = [
    "StepTraceAnnotation", "TraceAnnotation", "annotate_function",
    "device_memory_profile", "save_device_memory_profile", "start_server",
    "start_trace", "stop_server", "stop_trace", "trace",
]

_NO_PROFILER = ("refjax runs on NumPy without XLA's profiler, so there is "
                "no {} to capture")


class TraceAnnotation(contextlib.ContextDecorator):
    """Label a block (``with``) or a function (decorator) in a profile."""

    def __init__(self, name, **kwargs):
        self.name = name
        self.kwargs = kwargs

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class StepTraceAnnotation(TraceAnnotation):
    """Label one training step (``step_num=``) in a profile."""

    def __init__(self, name, **kwargs):
        super().__init__(name, **kwargs)


def annotate_function(func, name=None, **decorator_kwargs):
    """``func`` wrapped in a ``TraceAnnotation`` named after it."""
    label = name or getattr(func, "__qualname__", getattr(func, "__name__", ""))

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with TraceAnnotation(label, **decorator_kwargs):
            return func(*args, **kwargs)
    return wrapper


def start_trace(log_dir, create_perfetto_link=False,
                create_perfetto_trace=False, profiler_options=None):
    raise NotImplementedError(_NO_PROFILER.format("trace"))


def stop_trace():
    """No trace can have been started: JAX's RuntimeError."""
    raise RuntimeError("No profile started")


@contextlib.contextmanager
def trace(log_dir, create_perfetto_link=False, create_perfetto_trace=False,
          profiler_options=None):
    start_trace(log_dir, create_perfetto_link, create_perfetto_trace,
                profiler_options)
    yield


def start_server(port):
    raise NotImplementedError(_NO_PROFILER.format("profiler server"))


def stop_server():
    raise ValueError("No active profiler server.")


def device_memory_profile(backend=None):
    raise NotImplementedError(_NO_PROFILER.format("device memory profile"))


def save_device_memory_profile(filename, backend=None):
    raise NotImplementedError(_NO_PROFILER.format("device memory profile"))
