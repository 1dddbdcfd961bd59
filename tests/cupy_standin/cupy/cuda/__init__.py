"""``cupy.cuda`` of the stand-in: two simulated GPUs and a no-op stream.

``REFJAX_CUPY_STANDIN_GPUS`` sets how many GPUs it pretends to see (2 by
default; 0 reproduces a machine whose driver sees no GPU).
"""
import os
import threading

from cupy.cuda import runtime  # noqa: F401

_state = threading.local()


def _current_id():
    return getattr(_state, "device", 0)


class Device:
    """A simulated GPU; ``with Device(i):`` makes it current, as in CuPy."""

    def __init__(self, device=None):
        self.id = _current_id() if device is None else int(device)
        self._saved = []

    def __enter__(self):
        if not 0 <= self.id < runtime.getDeviceCount():
            raise runtime.CUDARuntimeError(
                "cudaErrorInvalidDevice: invalid device ordinal")
        self._saved.append(_current_id())
        _state.device = self.id
        return self

    def __exit__(self, *exc):
        _state.device = self._saved.pop()

    def use(self):
        _state.device = self.id

    def synchronize(self):
        pass

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return hash(self.id)

    def __repr__(self):
        return f"<CUDA Device {self.id}>"


class Stream:
    null = None

    def synchronize(self):
        pass


Stream.null = Stream()


def get_current_stream(device_id=None):
    return Stream.null


def get_device_id():
    return _current_id()
