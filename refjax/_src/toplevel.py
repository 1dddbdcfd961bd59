"""Top-level ``jax`` functions of issue 22 (SPEC API-12 .. API-15): name
scopes, building arrays from per-device pieces, process queries and
environment information.

Layer 7: only the public facades import this module.
"""
import contextlib
import functools
import gc
import platform as _platform
import sys
import warnings

import numpy as np

from refjax._src import devices as _devices
from refjax._src import dtypes, tree_util
from refjax._src.ad_api import vjp
from refjax._src.api import device_put, jit
from refjax._src.array import ArrayImpl
from refjax._src.random import basic as _random

__all__ = [
    "copy_to_host_async", "fwd_and_bwd", "host_count", "host_id", "host_ids",
    "live_arrays", "make_array_from_callback", "make_array_from_process_local_data",
    "make_array_from_single_device_arrays", "named_call", "named_scope",
    "print_environment_info", "process_indices",
]


# -- name stacks (SPEC API-12) -------------------------------------------------

def named_call(fun, *, name=None):
    """``fun`` under the name ``name`` (default: its own).  refjax's jaxprs
    carry no name stacks, and neither do JAX's printed jaxprs, so the result
    behaves exactly as ``fun``."""
    @functools.wraps(fun)
    def named(*args, **kwargs):
        with named_scope(name or getattr(fun, "__name__", "named_call")):
            return fun(*args, **kwargs)
    return named


class named_scope(contextlib.ContextDecorator):
    """``with jax.named_scope('name'):`` or ``@jax.named_scope('name')``:
    a label for the operations inside (shown only in compiler metadata)."""

    def __init__(self, name):
        if not isinstance(name, str):
            raise TypeError("named_scope name argument must be a string.")
        self.name = name

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


# -- arrays built from pieces (SPEC API-13) ------------------------------------

def _assemble(shape, sharding, pieces, dtype):
    """The global array whose block on each device is ``pieces[device]``."""
    first = next(iter(pieces.values()), None)
    if dtypes.is_extended(getattr(first, "dtype", None)):
        return _assemble_keys(shape, sharding, pieces)
    index_map = sharding.devices_indices_map(shape)
    want = sharding.shard_shape(shape)
    dtype = dtypes.to_dtype(dtype) if dtype is not None else np.result_type(
        *[np.asarray(p).dtype for p in pieces.values()])
    out = np.zeros(shape, dtype)
    for device, index in index_map.items():
        piece = np.asarray(pieces[device])
        if piece.shape != tuple(want):
            raise ValueError(
                f"Expected shard shape {tuple(want)} doesn't match the single "
                f"device array shape {piece.shape}. Shape of Array is "
                f"{np.dtype(dtype).name}{list(shape)} with sharding {sharding!r}")
        out[index] = piece
    return device_put(out, sharding)


def _assemble_keys(shape, sharding, pieces):
    """Key arrays from pieces of keys: the pieces' key data assembled, then
    wrapped as keys of the pieces' dtype (SPEC RNG-109)."""
    dtype = next(iter(pieces.values())).dtype
    data = {d: _random.key_data(p) for d, p in pieces.items()}
    base = _assemble(tuple(shape) + tuple(dtype.data_shape), sharding, data, None)
    return _random.wrap_key_data(base, dtype=dtype)


def make_array_from_callback(shape, sharding, data_callback, dtype=None):
    """An array of ``shape`` whose block at each device's index is
    ``data_callback(index)``."""
    shape = tuple(shape)
    pieces = {d: data_callback(i)
              for d, i in sharding.devices_indices_map(shape).items()}
    return _assemble(shape, sharding, pieces, dtype)


def make_array_from_single_device_arrays(shape, sharding, arrays, *, dtype=None):
    """An array of ``shape`` made of ``arrays``, one per device of
    ``sharding`` in its device order."""
    shape = tuple(shape)
    devices = list(sharding.devices_indices_map(shape))
    arrays = list(arrays)
    if len(arrays) != len(devices):
        raise ValueError(
            f"Expected {len(devices)} arrays, one per addressable device of "
            f"{sharding!r}, got {len(arrays)}")
    return _assemble(shape, sharding, dict(zip(devices, arrays)), dtype)


def make_array_from_process_local_data(sharding, local_data, global_shape=None):
    """This process's data placed with ``sharding``; refjax's one process
    holds all of it, so ``global_shape`` must be its shape."""
    local = np.asarray(local_data)
    if global_shape is not None and tuple(global_shape) != local.shape:
        raise ValueError(
            f"refjax runs one process, which holds the whole array: "
            f"global_shape {tuple(global_shape)} must equal the local data's "
            f"shape {local.shape}")
    return device_put(local, sharding)


def copy_to_host_async(x):
    """Call ``copy_to_host_async`` on every leaf that has one (an Array, a
    key array, any duck-typed value); return ``x`` (SPEC JIT-14)."""
    for leaf in tree_util.tree_leaves(x):
        method = getattr(leaf, "copy_to_host_async", None)
        if method is not None:
            method()
    return x


def live_arrays(platform=None):
    """Every Array alive (not deleted) in this process."""
    _devices._check_backend(platform, _devices._backend.get())
    return [x for x in gc.get_objects()
            if type(x) is ArrayImpl and not x.is_deleted()]


# -- processes (SPEC API-13) ----------------------------------------------------

def process_indices(backend=None):
    """The indices of all processes: ``[0]``."""
    return list(range(_devices.process_count(backend)))


def _renamed(old, new):
    warnings.warn(f"jax.{old} has been renamed to jax.{new}. This alias will "
                  "eventually be removed; please update your code.",
                  UserWarning, stacklevel=3)


def host_count(backend=None):
    _renamed("host_count", "process_count")
    return _devices.process_count(backend)


def host_id(backend=None):
    _renamed("host_id", "process_index")
    return _devices.process_index(backend)


def host_ids(backend=None):
    _renamed("host_ids", "process_indices")
    return process_indices(backend)


def print_environment_info(return_string=False):
    """Versions, devices and platform, printed (or returned)."""
    from refjax._src.version import __version__
    devs = _devices.devices()
    text = (f"refjax: {__version__}\nnumpy:  {np.__version__}\n"
            f"python: {sys.version.replace(chr(10), ' ')}\n"
            f"device info: {_devices.default_backend()}-{len(devs)}, "
            f"{len(devs)} local devices\nprocess_count: 1\n"
            f"platform: {_platform.uname()}\n")
    if return_string:
        return text
    print(text)
    return None


# -- fwd_and_bwd (SPEC API-12) --------------------------------------------------

def fwd_and_bwd(fun, argnums, has_aux=False, jitted=True):
    """``fwd(*args)`` gives ``(out, residuals)`` (and ``aux``), as ``vjp``
    of ``fun`` in the ``argnums`` arguments; ``bwd(residuals, ct)`` gives
    the cotangents of those arguments (one value for an int ``argnums``).
    With ``jitted``, ``fun`` runs under ``jit``."""
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    inner = jit(fun) if jitted else fun

    def fwd(*args):
        def partial(*dyn):
            full = list(args)
            for i, v in zip(nums, dyn):
                full[i] = v
            return inner(*full)
        return vjp(partial, *[args[i] for i in nums], has_aux=has_aux)

    def bwd(residuals, cotangent):
        cts = residuals(cotangent)
        return cts[0] if isinstance(argnums, int) else cts
    return fwd, bwd
