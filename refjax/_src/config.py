"""Configuration options, mirroring ``jax.config`` (SPEC CFG-1 .. CFG-5).

Each option has a global value (``config.update(name, value)``, or an
environment variable read at import) and can be overridden for a ``with``
block by calling its context manager (``refjax.enable_x64(True)``), exactly as
in JAX.  Overrides are thread-local; the global value is not.
"""
import contextlib
import os
import threading

__all__ = ["config", "Config", "Option"]

_TRUE = ("y", "yes", "t", "true", "on", "1")
_FALSE = ("n", "no", "f", "false", "off", "0")


def _env_bool(name, text):
    low = text.strip().lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    raise ValueError(f"invalid truth value {text!r} for environment variable "
                     f"{name}; use one of {_TRUE + _FALSE}")


class _Overrides(threading.local):
    def __init__(self):
        self.values = {}


_overrides = _Overrides()
_UNSET = object()

# Callbacks run after any option's global value changes: caches of results
# that depend on the configuration (the eager dispatch plans) drop them.
_global_listeners = []


def on_global_update(callback):
    """Call ``callback()`` after every ``config.update``."""
    _global_listeners.append(callback)


def overrides_active():
    """Whether this thread is inside any ``with option(value):`` block."""
    return bool(_overrides.values)


def any_enabled(*options):
    """Whether any of the boolean ``options`` is on, with a single lookup of
    this thread's overrides (the eager path asks this on every operation)."""
    table = _overrides.values
    for option in options:
        value = table.get(option.name, _UNSET)
        if option._global if value is _UNSET else value:
            return True
    return False


class Option:
    """One configuration option: its default, validation and context manager.

    ``kind`` is ``bool``, ``int``, ``str`` or a tuple of allowed values
    (an enum); ``None`` is allowed where ``allow_none`` is set.
    """

    def __init__(self, name, default, kind, *, env=None, allow_none=False,
                 help="", on_update=None):
        self.name = name
        self.kind = kind
        self.allow_none = allow_none
        self.help = help
        self._on_update = on_update
        self.default = default
        if env is not None and env in os.environ:
            default = self._from_env(env, os.environ[env])
        self._global = default

    def _from_env(self, env, text):
        if self.kind is bool:
            return _env_bool(env, text)
        if self.kind is int:
            return int(text)
        return self.validate(text)

    def validate(self, value):
        """Return the stored form of ``value`` or raise JAX's ValueError."""
        if value is None and self.allow_none:
            return None
        none = "None or " if self.allow_none else ""
        if self.kind is bool:
            return bool(value)
        if self.kind is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(
                    f"new int config value must be {none}of type int, got "
                    f"{value} of type {type(value)}")
            return value
        if self.kind is str:
            if not isinstance(value, str):
                raise ValueError(
                    f"new string config value must be {none}of type str, got "
                    f"{value} of type {type(value)}")
            return value
        if value not in self.kind:
            raise ValueError(
                f"new enum value must be {none}in {list(self.kind)}, got "
                f"{value} of type {type(value)}.")
        return value

    @property
    def value(self):
        v = _overrides.values.get(self.name, _UNSET)
        return self._global if v is _UNSET else v

    def set_global(self, value):
        value = self.validate(value)
        if self._on_update is not None:
            self._on_update(self, value)
        self._global = value
        for callback in _global_listeners:
            callback()

    @contextlib.contextmanager
    def _override(self, value):
        value = self.validate(value)
        table = _overrides.values
        old = table.get(self.name, _UNSET)
        table[self.name] = value
        try:
            yield
        finally:
            if old is _UNSET:
                del table[self.name]
            else:
                table[self.name] = old

    def __call__(self, new_val=True):
        """``with option(value):`` -- override this option for the block."""
        return self._override(new_val)

    def __repr__(self):
        return f"Option({self.name}={self.value!r})"


class Config:
    """``refjax.config``: read options as attributes, set them with ``update``.

    Unknown names raise ``AttributeError`` (SPEC CFG-2), as JAX does.
    """

    def __init__(self):
        object.__setattr__(self, "_options", {})

    def define(self, option):
        self._options[option.name] = option
        return option

    def update(self, name, value):
        """Set the global value of option ``name`` (SPEC CFG-1)."""
        option = self._options.get(name)
        if option is None:
            raise AttributeError(f"Unrecognized config option: {name}")
        option.set_global(value)

    def read(self, name):
        option = self._options.get(name)
        if option is None:
            raise AttributeError(f"Unrecognized config option: {name}")
        return option.value

    @property
    def values(self):
        return {name: opt.value for name, opt in self._options.items()}

    def __getattr__(self, name):
        option = self._options.get(name)
        if option is None:
            raise AttributeError(
                f"'Config' object has no attribute '{name}'")
        return option.value

    def __setattr__(self, name, value):
        raise AttributeError(
            f"Use config.update({name!r}, value) to set a config option.")

    def __dir__(self):
        return sorted(self._options) + ["update", "read", "values"]


config = Config()

_PRECISIONS = ("default", "high", "highest", "bfloat16", "tensorfloat32",
               "float32")

_devices_in_use = False


def mark_devices_in_use():
    """Called by the device layer once a device has been handed out."""
    global _devices_in_use
    _devices_in_use = True


def _check_num_cpu_devices(option, value):
    if _devices_in_use and value != option.value:
        raise RuntimeError(
            "jax_num_cpu_devices config should be updated before backends are "
            "initialized i.e. before any JAX operation is executed. You should "
            "initialize this config immediately after `import jax`.")


def _define(*args, **kwargs):
    return config.define(Option(*args, **kwargs))


enable_x64 = _define(
    "jax_enable_x64", False, bool, env="JAX_ENABLE_X64",
    help="Enable 64-bit types: Python floats default to float64, ints to int64.")
num_cpu_devices = _define(
    "jax_num_cpu_devices", -1, int, env="JAX_NUM_CPU_DEVICES", allow_none=True,
    on_update=_check_num_cpu_devices,
    help="Number of simulated CPU devices (-1: one). Set before first use.")
threefry_partitionable = _define(
    "jax_threefry_partitionable", True, bool, env="JAX_THREEFRY_PARTITIONABLE",
    help="Generate random bits in a way that is invariant to sharding.")
debug_nans = _define("jax_debug_nans", False, bool, env="JAX_DEBUG_NANS")
debug_infs = _define("jax_debug_infs", False, bool, env="JAX_DEBUG_INFS")
disable_jit = _define("jax_disable_jit", False, bool, env="JAX_DISABLE_JIT")
debug_key_reuse = _define("jax_debug_key_reuse", False, bool,
                          env="JAX_DEBUG_KEY_REUSE")
check_tracer_leaks = _define("jax_check_tracer_leaks", False, bool,
                             env="JAX_CHECK_TRACER_LEAKS")
enable_checks = _define("jax_enable_checks", False, bool,
                        env="JAX_ENABLE_CHECKS")
numpy_dtype_promotion = _define(
    "jax_numpy_dtype_promotion", "standard", ("standard", "strict"),
    env="JAX_NUMPY_DTYPE_PROMOTION")
numpy_rank_promotion = _define(
    "jax_numpy_rank_promotion", "allow", ("allow", "warn", "raise"),
    env="JAX_NUMPY_RANK_PROMOTION")
default_matmul_precision = _define(
    "jax_default_matmul_precision", None, _PRECISIONS, allow_none=True,
    env="JAX_DEFAULT_MATMUL_PRECISION")
default_prng_impl = _define(
    "jax_default_prng_impl", "threefry2x32", ("threefry2x32", "rbg", "unsafe_rbg"),
    env="JAX_DEFAULT_PRNG_IMPL")
legacy_prng_key = _define(
    "jax_legacy_prng_key", "allow", ("allow", "warn", "error"),
    env="JAX_LEGACY_PRNG_KEY")
platforms = _define("jax_platforms", None, str, allow_none=True,
                    env="JAX_PLATFORMS")
