"""The long table of JAX 0.10.2's configuration options (SPEC CFG-8).

Pure data, imported only by ``config.py``, which turns each row into an
``Option``: ``(name, default, kind[, _NONE][, _FLAG])``.  ``kind`` is as in
``config.Option``; ``_OPTSTR`` is a string that may be None (JAX's optional
string, ValueError on a non-string), ``str`` one that may not (TypeError).
``_NONE`` lets an enum be None; ``_FLAG`` marks JAX's ``Flag`` options (no
context manager, no validation, not an attribute of ``config``).

Most rows are compiler, cache, runtime or accelerator knobs: refjax accepts,
validates and stores them, and they change nothing (SPEC CFG-8).  The
options that do act in refjax are listed in ``EFFECTS``; those whose effect
refjax does not reproduce refuse the values that would need it
(``UNSUPPORTED``), so that no setting is silently ignored.
"""
import enum

__all__ = ["ExplicitX64Mode", "RuntimeTracebackMode", "OPTIONS", "UNSUPPORTED",
           "EFFECTS", "CONTEXT_MANAGERS", "TRANSFER_GUARD_SITES",
           "transfer_guard_sites"]


class ExplicitX64Mode(enum.IntEnum):
    """``jax_explicit_x64_dtypes``: what asking for a 64-bit dtype does
    while ``jax_enable_x64`` is off.  Lower-case names are accepted."""
    WARN = 1
    ERROR = 2
    ALLOW = 3

    @classmethod
    def _missing_(cls, value):
        if isinstance(value, str) and value.upper() in cls.__members__:
            return cls[value.upper()]
        return None


class RuntimeTracebackMode(enum.StrEnum):
    """``jax_send_traceback_to_runtime``: off, on or full."""
    OFF = "off"
    ON = "on"
    FULL = "full"

    @classmethod
    def _missing_(cls, value):
        if isinstance(value, str) and value.upper() in cls.__members__:
            return cls[value.upper()]
        return None


_OPTSTR = "optional str"
_NONE = "none"
_FLAG = "flag"
_GUARD = ("allow", "log", "disallow", "log_explicit", "disallow_explicit")
_LEVELS = ("UNKNOWN", "O0", "O1", "O2", "O3")
_IGNORE_RAISE = ("ignore", "raise")

OPTIONS = [
    ('jax2tf_associative_scan_reductions', False, bool),
    ('jax2tf_default_native_serialization', True, bool),
    ('jax_serialization_version', 0, int),
    ('jax_export_calling_convention_version', 10, int),
    ('jax_export_ignore_forward_compatibility', False, bool),
    ('jax_pjrt_client_create_options', None, object),
    ('jax_check_static_indices', False, bool),
    ('jax_captured_constants_warn_bytes', 2000000000, int),
    ('jax_captured_constants_report_frames', 0, int),
    ('jax_debug_leaked_clients_on_clear_backends', False, bool),
    ('jax_log_compiles', False, bool),
    ('jax_explain_cache_misses', False, bool),
    ('jax_log_checkpoint_residuals', False, bool),
    ('jax_scan3', False, bool),
    ('jax_remat3', False, bool),
    ('jax_custom_vjp3', False, bool),
    ('jax_distributed_debug', False, bool),
    ('jax_random_seed_offset', 0, int),
    ('jax_enable_custom_prng', False, bool),
    ('jax_threefry_gpu_kernel_lowering', False, bool),
    ('jax_use_direct_linearize', True, bool),
    ('jax_use_simplified_jaxpr_constants', False, bool),
    ('jax_embedded_constants_max_bytes', 32, int),
    ('jax_remove_size_one_mesh_axis_from_type', False, bool),
    ('check_vma', False, bool),
    ('jax_softmax_custom_jvp', False, bool),
    ('jax_raise_persistent_cache_errors', False, bool),
    ('jax_persistent_cache_min_compile_time_secs', 1.0, float),
    ('jax_persistent_cache_min_entry_size_bytes', 0, int),
    ('jax_persistent_cache_enable_xla_caches', 'xla_gpu_per_fusion_autotune_cache_dir', _OPTSTR),
    ('jax_compilation_cache_include_metadata_in_key', False, bool),
    ('jax_hlo_source_file_canonicalization_regex', None, _OPTSTR),
    ('jax_source_url_schema', None, _OPTSTR),
    ('jax_include_full_tracebacks_in_locations', True, bool),
    ('jax_traceback_in_locations_limit', 100, int),
    ('jax_share_binary_between_hosts', False, bool),
    ('jax_share_binary_between_hosts_timeout_ms', 1200000, int),
    ('jax_enable_pgle', False, bool),
    ('jax_pgle_profiling_runs', 3, int),
    ('jax_pgle_aggregation_percentile', 90, int),
    ('jax_enable_compilation_cache', True, bool),
    ('jax_compilation_cache_dir', None, _OPTSTR),
    ('jax_compilation_cache_check_contents', False, bool),
    ('jax_compilation_cache_expect_pgle', False, bool),
    ('jax_compilation_cache_max_size', -1, int),
    ('jax_remove_custom_partitioning_ptr_from_cache_key', False, bool),
    ('jax_explicit_x64_dtypes', ExplicitX64Mode.WARN, ExplicitX64Mode),
    ('jax_disallow_mesh_context_manager', False, bool),
    ('jax_error_checking_behavior_nan', 'ignore', _IGNORE_RAISE),
    ('jax_error_checking_behavior_divide', 'ignore', _IGNORE_RAISE),
    ('jax_error_checking_behavior_oob', 'ignore', _IGNORE_RAISE),
    ('jax_default_device', None, object),
    ('jax_auto_pcast', True, bool),
    ('jax_allow_f16_reductions', True, bool),
    ('jax_traceback_filtering', 'auto', ('off', 'tracebackhide', 'remove_frames', 'quiet_remove_frames', 'auto')),
    ('jax_use_emit_pipeline_primitive', False, bool),
    ('jax_bcoo_cusparse_lowering', False, bool),
    ('eager_constant_folding', False, bool),
    ('jax_compiler_enable_remat_pass', True, bool),
    ('jax_no_tracing', False, bool),
    ('jax_no_execution', False, bool),
    ('jax_disable_vmap_shmap_error', False, bool),
    ('jax_mutable_array_checks', True, bool),
    ('jax_refs_to_pins', False, bool),
    ('jax_disable_bwd_checks', False, bool),
    ('jax_experimental_unsafe_xla_runtime_errors', False, bool),
    ('jax_xla_profile_version', 0, int),
    ('jax_transfer_guard_host_to_device', None, _GUARD, _NONE),
    ('jax_transfer_guard_device_to_device', None, _GUARD, _NONE),
    ('jax_transfer_guard_device_to_host', None, _GUARD, _NONE),
    ('jax_transfer_guard', None, _GUARD, _NONE),
    ('jax_array_garbage_collection_guard', None, ('allow', 'log', 'fatal'), _NONE),
    ('jax_thread_guard', False, bool),
    ('jax_send_traceback_to_runtime', RuntimeTracebackMode.OFF, RuntimeTracebackMode),
    ('jax_debug_log_modules', '', str),
    ('jax_logging_level', 'NOTSET', ('NOTSET', 'DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL')),
    ('jax_use_shardy_partitioner', True, bool),
    ('jax_use_magma', 'auto', ('off', 'on', 'auto')),
    ('jax_exec_time_optimization_effort', 0.0, float),
    ('jax_memory_fitting_effort', 0.0, float),
    ('jax_optimization_level', 'UNKNOWN', _LEVELS),
    ('jax_memory_fitting_level', 'O2', _LEVELS),
    ('jax_cpu_collectives_implementation', 'gloo', ('gloo', 'mpi', 'megascale'), _NONE),
    ('jax_high_dynamic_range_gumbel', False, bool),
    ('jax_dump_ir_to', '', str, _FLAG),
    ('jax_include_debug_info_in_dumps', True, bool, _FLAG),
    ('jax_dump_ir_modes', 'stablehlo', str, _FLAG),
    ('jax_ragged_dot_use_ragged_dot_instruction', True, bool),
    ('jax_ragged_dot_use_gpu_pallas_triton_lowering', False, bool),
    ('jax_pallas_verbose_errors', False, bool, _FLAG),
    ('jax_pallas_enable_debug_checks', False, bool),
    ('jax_pallas_use_mosaic_gpu', True, bool),
    ('jax_mosaic_allow_hlo', False, bool),
    ('jax_pallas_poison_buffers', False, bool),
    ('jax_check_proxy_envs', True, bool, _FLAG),
    ('jax_enable_recoverability', False, bool),
    ('jax_enable_preemption_service', True, bool),
    ('jax_xla_backend', '', str, _FLAG),
    ('jax_backend_target', '', str, _FLAG),
    ('jax_platform_name', '', str, _FLAG),
    ('jax_cuda_visible_devices', 'all', str, _FLAG),
    ('jax_rocm_visible_devices', 'all', str, _FLAG),
    ('jax_oneapi_visible_devices', 'all', str, _FLAG),
    ('mock_num_gpu_processes', 0, int, _FLAG),
    ('jax_mock_gpu_topology', '', str, _FLAG),
    ('jax_cpu_enable_async_dispatch', True, bool, _FLAG),
    ('jax_force_dcn_cross_host_transfers', False, bool, _FLAG),
    ('jax_sort_devices_by_process_index', True, bool, _FLAG),
    ('jax_cross_host_transfer_socket_address', '', str, _FLAG),
    ('jax_cross_host_transport_addresses', '', str, _FLAG),
    ('jax_cross_host_transfer_timeout_seconds', None, int, _FLAG),
    ('jax_cross_host_transfer_transfer_size', None, int, _FLAG),
    ('jax_cpu_get_local_topology_timeout_minutes', 2, int),
    ('jax_cpu_get_global_topology_timeout_minutes', 5, int),
    ('jax_pprint_use_color', True, bool),
    ('jax_tracer_error_num_traceback_frames', 5, int, _FLAG),
    ('jax_disable_most_optimizations', False, bool, _FLAG),
    ('jax_compiler_detailed_logging_min_ops', 10, int, _FLAG),
]


# Options whose non-default values would need an effect refjax does not have
# yet: name -> (accepts(value), why), ``why`` a text or a function giving
# one.  Setting another value raises NotImplementedError with the reason
# (SPEC CFG-10).
UNSUPPORTED = {
    "jax_explicit_x64_dtypes": (
        lambda v: v != ExplicitX64Mode.ALLOW,
        "refjax cannot make the explicitly requested 64-bit arrays that "
        "'allow' asks for while jax_enable_x64 is off (its dtype "
        "canonicalization makes every value 32-bit then); 'warn' and 'error' "
        "work"),
}
# The places where a host value (NumPy array, Python scalar) becomes an
# Array call ``devices.guard_transfer``, and each registers its name here
# when it does.  The transfer guards act only once every place does: with
# one missing, a guard would silently let some transfers through
# (SPEC CFG-27).
TRANSFER_GUARD_SITES = frozenset({"device_put", "jit arguments", "eager operands",
                                  "array creation"})
transfer_guard_sites = set()


def _guards_complete(value):
    return value in (None, "allow") or TRANSFER_GUARD_SITES <= transfer_guard_sites


def _guard_reason():
    missing = sorted(TRANSFER_GUARD_SITES - transfer_guard_sites)
    return ("refjax guards transfers only where every host-to-device conversion "
            f"calls the guard; these do not yet: {', '.join(missing)}")


for _name in ("jax_transfer_guard", "jax_transfer_guard_host_to_device",
              "jax_transfer_guard_device_to_host",
              "jax_transfer_guard_device_to_device"):
    UNSUPPORTED[_name] = (_guards_complete, _guard_reason)

# What the options that do act in refjax do (documentation, SPEC CFG-10).
EFFECTS = {
    "jax_log_compiles": "jit logs a WARNING (logger refjax._src.api) for "
                        "each trace and each compile",
    "jax_random_seed_offset": "added to every seed of jax.random.key/PRNGKey",
    "jax_explicit_x64_dtypes": "'warn' truncates an explicitly requested "
                               "64-bit dtype with a warning, 'error' raises",
    "jax_check_static_indices": "x[i] with a static out-of-bounds integer "
                                "raises IndexError",
    "jax_high_dynamic_range_gumbel": "jax.random.gumbel (and categorical, "
                                     "choice) sample in mode 'high'",
    "jax_default_device": "new uncommitted arrays live on this device",
    "jax_explain_cache_misses": "jit logs a WARNING explaining each trace "
                                "cache miss",
    "jax_no_tracing": "jit raises RuntimeError instead of tracing again",
    "jax_no_execution": "calling a jitted function raises RuntimeError",
}

# Options JAX exposes as ``jax.<name>`` context managers (SPEC CFG-3).
CONTEXT_MANAGERS = {
    "default_device": "jax_default_device",
    "log_compiles": "jax_log_compiles",
    "explain_cache_misses": "jax_explain_cache_misses",
    "enable_custom_prng": "jax_enable_custom_prng",
    "no_tracing": "jax_no_tracing",
    "no_execution": "jax_no_execution",
    "thread_guard": "jax_thread_guard",
    "allow_f16_reductions": "jax_allow_f16_reductions",
    "array_garbage_collection_guard": "jax_array_garbage_collection_guard",
    "auto_pcast": "jax_auto_pcast",
    "softmax_custom_jvp": "jax_softmax_custom_jvp",
    "remove_size_one_mesh_axis_from_type":
        "jax_remove_size_one_mesh_axis_from_type",
    "jax2tf_associative_scan_reductions": "jax2tf_associative_scan_reductions",
    "transfer_guard_host_to_device": "jax_transfer_guard_host_to_device",
    "transfer_guard_device_to_host": "jax_transfer_guard_device_to_host",
    "transfer_guard_device_to_device": "jax_transfer_guard_device_to_device",
}
