"""``jax.monitoring``: events, durations and scalars sent to listeners
(SPEC API-13).

Listeners are plain callables kept in module-level lists; recording an
event calls each listener of its kind in registration order.  refjax itself
records no events of its own.
"""

__all__ = [
    "clear_event_listeners", "record_event", "record_event_duration_secs",
    "record_event_time_span", "record_scalar",
    "register_event_duration_secs_listener", "register_event_listener",
    "register_event_time_span_listener", "register_scalar_listener",
    "unregister_event_duration_listener", "unregister_event_listener",
    "unregister_event_time_span_listener", "unregister_scalar_listener",
]

_event_listeners = []
_duration_listeners = []
_time_span_listeners = []
_scalar_listeners = []


def record_event(event, **kwargs):
    """Call every event listener with ``(event, **kwargs)``."""
    for callback in list(_event_listeners):
        callback(event, **kwargs)


def record_event_duration_secs(event, duration, **kwargs):
    """Call every duration listener with ``(event, duration, **kwargs)``."""
    for callback in list(_duration_listeners):
        callback(event, duration, **kwargs)


def record_event_time_span(event, start_time, end_time, **kwargs):
    """Call every time-span listener with ``(event, start, end, **kwargs)``."""
    for callback in list(_time_span_listeners):
        callback(event, start_time, end_time, **kwargs)


def record_scalar(event, value, **kwargs):
    """Call every scalar listener with ``(event, value, **kwargs)``."""
    for callback in list(_scalar_listeners):
        callback(event, value, **kwargs)


def register_event_listener(callback):
    _event_listeners.append(callback)


def register_event_duration_secs_listener(callback):
    _duration_listeners.append(callback)


def register_event_time_span_listener(callback):
    _time_span_listeners.append(callback)


def register_scalar_listener(callback):
    _scalar_listeners.append(callback)


def _unregister(listeners, callback):
    # JAX asserts the listener was registered (AssertionError otherwise).
    assert callback in listeners
    listeners.remove(callback)


def unregister_event_listener(callback):
    _unregister(_event_listeners, callback)


def unregister_event_duration_listener(callback):
    _unregister(_duration_listeners, callback)


def unregister_event_time_span_listener(callback):
    _unregister(_time_span_listeners, callback)


def unregister_scalar_listener(callback):
    _unregister(_scalar_listeners, callback)


def clear_event_listeners():
    """Forget every listener of every kind."""
    for listeners in (_event_listeners, _duration_listeners,
                      _time_span_listeners, _scalar_listeners):
        listeners.clear()
