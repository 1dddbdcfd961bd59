"""``jax.profiler``: annotations work; capturing profiles raises (SPEC API-14)."""
from refjax._src.profiler import (  # noqa: F401
    StepTraceAnnotation, TraceAnnotation, annotate_function, device_memory_profile,
    save_device_memory_profile, start_server, start_trace, stop_server, stop_trace,
    trace,
)
