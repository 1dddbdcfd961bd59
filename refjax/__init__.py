"""refjax: a readable pure-Python reference implementation of JAX.

``import refjax as jax`` runs JAX programs on NumPy (or CuPy).  The public
modules mirror JAX's: ``refjax.numpy``, ``refjax.tree_util``, ``refjax.tree``,
``refjax.dtypes``, ``refjax.errors``; ``refjax.config`` holds the options.
"""
from refjax import (  # noqa: F401
    core, custom_derivatives, debug, dtypes, errors, experimental, extend, lax, nn,
    numpy, random, scipy, sharding, tree, tree_util,
)
from refjax._src import config as _config_module
from refjax._src.ad_api import (  # noqa: F401
    grad, hessian, jacfwd, jacrev, jvp, linear_transpose, linearize, value_and_grad, vjp,
)
from refjax._src.ad_api import jacrev as jacobian  # noqa: F401
from refjax._src.ad_checkpoint import checkpoint, checkpoint_policies, remat  # noqa: F401
from refjax._src.api import (  # noqa: F401
    ShapeDtypeStruct, block_until_ready, clear_caches, device_get, device_put,
    disable_jit, effects_barrier, ensure_compile_time_eval, eval_shape, jit, make_jaxpr, typeof,
)
from refjax._src.array import Array  # noqa: F401
# refjax.backends lives in backends/ in a source checkout and in
# refjax/backends once installed; it is registered under its package name
# below, so that `import refjax.backends` works either way (it is small and
# imports no array library).
from refjax._src.backend import _backends_package as _load_backends
from refjax._src.config import config  # noqa: F401
from refjax._src.custom_derivatives import (  # noqa: F401
    closure_convert, custom_jvp, custom_vjp,
)
from refjax._src.debugging import pure_callback  # noqa: F401
from refjax._src.devices import (  # noqa: F401
    default_backend, device_count, devices, local_device_count, local_devices,
    process_count, process_index,
)
from refjax._src.mesh import PartitionSpec as P  # noqa: F401
from refjax._src.mesh import make_mesh, set_mesh  # noqa: F401
from refjax._src.placement import reshard  # noqa: F401
from refjax._src.sharding.shard_map import pmap, shard_map  # noqa: F401
from refjax._src.vmap_api import vmap  # noqa: F401
from refjax import ops  # noqa: F401
from refjax import custom_batching  # noqa: F401
from refjax._src.custom_gradient import custom_gradient  # noqa: F401
from refjax import (  # noqa: F401
    distributed, dlpack, export, ffi, memory, monitoring, profiler, stages, typing,
    version,
)
from refjax._src.config import (  # noqa: F401
    allow_f16_reductions, array_garbage_collection_guard, auto_pcast,
    check_tracer_leaks, default_device, enable_checks, enable_custom_prng,
    explain_cache_misses, jax2tf_associative_scan_reductions, log_compiles,
    make_user_context, no_execution, no_tracing, remove_size_one_mesh_axis_from_type,
    softmax_custom_jvp, thread_guard, transfer_guard, transfer_guard_device_to_device,
    transfer_guard_device_to_host, transfer_guard_host_to_device,
)
from refjax._src.devices import Device  # noqa: F401
from refjax._src.dtypes import float0  # noqa: F401
from refjax._src.mesh import NamedSharding, Shard  # noqa: F401
from refjax._src.toplevel import (  # noqa: F401
    copy_to_host_async, fwd_and_bwd, host_count, host_id, host_ids, live_arrays,
    make_array_from_callback, make_array_from_process_local_data,
    make_array_from_single_device_arrays, named_call, named_scope,
    print_environment_info, process_indices,
)
from refjax import interpreters, ref  # noqa: F401
from refjax._src.refs import (  # noqa: F401
    Ref, empty_ref, free_ref, freeze, new_ref,
)
from refjax._src.refs import ad_namespace as ad  # noqa: F401
from refjax import api_util, lib  # noqa: F401
from refjax._src.numpy.indexing import ds  # noqa: F401
from refjax._src.sharding.smap import smap  # noqa: F401

from refjax._src.version import __version__  # noqa: E402

# Context managers that override one option for a `with` block (SPEC CFG-3).
enable_x64 = _config_module.enable_x64
numpy_dtype_promotion = _config_module.numpy_dtype_promotion
numpy_rank_promotion = _config_module.numpy_rank_promotion
debug_nans = _config_module.debug_nans
debug_infs = _config_module.debug_infs
default_matmul_precision = _config_module.default_matmul_precision
threefry_partitionable = _config_module.threefry_partitionable
debug_key_reuse = _config_module.debug_key_reuse
checking_leaks = _config_module.check_tracer_leaks
default_prng_impl = _config_module.default_prng_impl
legacy_prng_key = _config_module.legacy_prng_key

backends = _load_backends()


_REMOVED = {
    # Removed in JAX 0.10.0 (SPEC SHD-20).
    "device_put_sharded": "jax.device_put_sharded is deprecated; use jax.device_put instead.",
    "device_put_replicated": "jax.device_put_replicated is deprecated; use jax.device_put instead.",
}


# Loaded on first use, to keep `import refjax` short (SPEC PERF-4).
_LAZY_SUBMODULES = ("test_util", "image")


def __getattr__(name):
    if name in _LAZY_SUBMODULES:
        import importlib
        return importlib.import_module(f"refjax.{name}")
    if name in _REMOVED:
        raise AttributeError(
            _REMOVED[name] + " See https://docs.jax.dev/en/latest/migrate_pmap.html"
            "#drop-in-replacements for a drop-in replacement.")
    raise AttributeError(f"module 'refjax' has no attribute {name!r}")


def __dir__():
    # jax lists ``image`` among its attributes; refjax loads it lazily.
    return sorted(set(globals()) | {"image"})
