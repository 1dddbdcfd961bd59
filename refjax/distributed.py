"""``jax.distributed``: multi-process setup, for refjax's single process
(SPEC API-13).

refjax is always process 0 of 1.  ``initialize`` accepts a one-process
cluster (and records that it was called, as JAX does); asking for more
processes raises NotImplementedError.
"""

from refjax._src import config as _config

__all__ = ["initialize", "is_initialized", "shutdown"]

_state = {"initialized": False}


def initialize(coordinator_address=None, num_processes=None, process_id=None,
               local_device_ids=None, cluster_detection_method=None,
               initialization_timeout=300, heartbeat_timeout_seconds=100,
               shutdown_timeout_seconds=300, coordinator_bind_address=None,
               slice_index=None, partition_index=None):
    """Join a one-process "cluster"; JAX's errors for a repeated call or a
    missing coordinator address."""
    if _config._devices_in_use:
        raise RuntimeError(
            "jax.distributed.initialize() must be called before any JAX calls "
            "that might initialise the XLA backend. This includes any "
            "computation, but also calls to jax.devices, jax.device_put, and "
            "others.")
    if _state["initialized"]:
        raise RuntimeError("distributed.initialize should only be called once.")
    if coordinator_address is None:
        raise ValueError("coordinator_address should be defined.")
    if num_processes not in (None, 1) or process_id not in (None, 0):
        raise NotImplementedError(
            "refjax runs in a single process: jax.distributed.initialize "
            f"cannot join {num_processes} processes as process {process_id}")
    _state["initialized"] = True


def is_initialized():
    """Whether ``initialize`` was called (and not ``shutdown`` since)."""
    return _state["initialized"]


def shutdown():
    """Leave the cluster; a no-op when not initialized, as in JAX."""
    _state["initialized"] = False
