"""Configuration options, mirroring ``jax.config`` (SPEC CFG-1 .. CFG-5).

Each option has a global value (``config.update(name, value)``, or an
environment variable read at import) and can be overridden for a ``with``
block by calling its context manager (``refjax.enable_x64(True)``), exactly as
in JAX.  Overrides are thread-local; the global value is not.
"""
import contextlib
import enum
import os
import threading

from refjax._src import config_options as _options_table

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

    ``kind`` is ``bool``, ``int``, ``float``, ``str``, an ``enum.Enum``
    subclass, ``object`` (any value, checked by ``validator``) or a tuple of
    allowed strings (an enum); ``None`` is allowed where ``allow_none`` is
    set.  ``validator(value)`` runs after the type check and may raise.  A
    ``flag`` (JAX's ``Flag``) has no context manager, no validation and no
    attribute on ``config`` (SPEC CFG-8).
    """

    def __init__(self, name, default, kind, *, env=None, allow_none=False,
                 help="", on_update=None, validator=None, flag=False):
        self.name = name
        self.__name__ = name[4:] if name.startswith("jax_") else name
        self.kind = kind
        self.allow_none = allow_none
        self.help = help
        self.flag = flag
        self._on_update = on_update
        self._validator = validator
        self.default = default
        if env is not None and env in os.environ:
            default = self._from_env(env, os.environ[env])
        self._global = default

    def _from_env(self, env, text):
        if self.kind is bool:
            return _env_bool(env, text)
        if self.kind in (int, float):
            try:
                return self.kind(text)
            except ValueError:
                raise ValueError(
                    f'Invalid value "{text}" for JAX flag {self.name}') from None
        if isinstance(self.kind, type) and issubclass(self.kind, enum.Enum):
            try:
                return self.kind(text)
            except ValueError:
                raise ValueError(
                    f'Invalid value "{text}" for JAX flag {self.name}') from None
        if isinstance(self.kind, tuple) and text not in self.kind:
            raise ValueError(f'Invalid value "{text}" for JAX flag {self.name}')
        return text

    def validate(self, value):
        """Return the stored form of ``value`` or raise JAX's error (CFG-5)."""
        if self.flag:
            return value
        value = self._check_type(value)
        if self._validator is not None and value is not None:
            self._validator(value)
        return value

    def _check_type(self, value):
        kind = self.kind
        if kind is bool:
            return bool(value)
        if value is None and (self.allow_none or kind in (int, float)):
            return None
        none = "None or " if self.allow_none else ""
        if kind is int:
            if not isinstance(value, int):
                raise ValueError(
                    f"new int config value must be None or of type int, got "
                    f"{value} of type {type(value)}")
            return value
        if kind is float:
            if not isinstance(value, (int, float)):
                raise ValueError(
                    f"new float config value must be None or of type float, "
                    f"got {value} of type {type(value)}")
            return value
        if kind is str:
            if not isinstance(value, str):
                # JAX: a non-optional string option raises TypeError.
                error = ValueError if self.allow_none else TypeError
                raise error(
                    f"new string config value must be {none}of type str, got "
                    f"{value} of type {type(value)}.")
            return value
        if kind is object:
            return value
        if isinstance(kind, type) and issubclass(kind, enum.Enum):
            return self._check_enum_class(value)
        if type(value) is not str or value not in kind:
            raise ValueError(
                f"new enum value must be {none}in {list(kind)}, got "
                f"{value} of type {type(value)}.")
        return value

    def _check_enum_class(self, value):
        if isinstance(value, str):
            return self.kind(value)
        if not isinstance(value, self.kind):
            raise TypeError(
                f"new enum value must be an instance of {self.kind}, got "
                f"{value} of type {type(value)}.")
        return value

    @property
    def value(self):
        v = _overrides.values.get(self.name, _UNSET)
        return self._global if v is _UNSET else v

    def get_global(self):
        return self._global

    def set_global(self, value):
        value = self.validate(value)
        if self._on_update is not None:
            self._on_update(self, value)
        self._global = value
        for callback in _global_listeners:
            callback()

    @contextlib.contextmanager
    def _override(self, value):
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

    def __call__(self, new_val=_UNSET):
        """``with option(value):`` -- override this option for the block.

        Also a decorator.  Only boolean options have a default (``True``);
        the value is checked here, before the block (SPEC CFG-3).
        """
        if new_val is _UNSET:
            if self.kind is not bool:
                raise TypeError(
                    f"Context manager for {self.__name__} config option requires "
                    "an argument representing the new value for the config option.")
            new_val = True
        return self._override(self.validate(new_val))

    def __bool__(self):
        raise TypeError(
            "bool() not supported for instances of type 'State' (did you mean "
            "to use 'State.value' instead?)")

    def __repr__(self):
        return f"Option({self.name}={self.value!r})"


class Config:
    """``refjax.config``: read options as attributes, set them with ``update``.

    Unknown names raise ``AttributeError`` (SPEC CFG-2), as JAX does; so do
    flags (options without a context manager), which are read with ``read``.
    """

    def __init__(self):
        object.__setattr__(self, "_options", {})
        object.__setattr__(self, "meta", {})
        object.__setattr__(self, "use_absl", False)

    def define(self, option):
        if option.name in self._options:
            raise Exception(f"Config option {option.name} already defined")
        self._options[option.name] = option
        self.meta[option.name] = _meta_of(option)
        return option

    def add_option(self, name, holder, opt_type, meta_args, meta_kwargs):
        """Register ``holder`` (an object with ``.value`` and ``_set``) as
        option ``name``, as JAX's ``Config.add_option`` (SPEC CFG-9)."""
        if name in self._options:
            raise Exception(f"Config option {name} already defined")
        self._options[name] = _Holder(name, holder)
        self.meta[name] = (opt_type, meta_args, meta_kwargs)

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

    _read = read

    @property
    def values(self):
        return {name: opt.value for name, opt in self._options.items()}

    @property
    def x64_enabled(self):
        """Whether 64-bit types are on (``jax_enable_x64``), as JAX's
        ``config.x64_enabled`` (SPEC CFG-9)."""
        return self._options["jax_enable_x64"].value

    def config_with_absl(self):
        """Define an absl flag per option and read them once absl parsed the
        command line (SPEC CFG-9); needs the ``absl`` package."""
        from absl import app
        from absl import flags as absl_flags
        object.__setattr__(self, "use_absl", True)
        object.__setattr__(self, "absl_flags", absl_flags)
        for name, option in self._options.items():
            _define_absl_flag(absl_flags, name, option.value, self.meta[name])
        app.call_after_init(lambda: self.complete_absl_config(absl_flags))

    def complete_absl_config(self, absl_flags):
        """Copy every absl flag given on the command line into its option."""
        for name in list(self._options):
            try:
                flag = absl_flags.FLAGS[name]
            except KeyError:
                continue
            if flag.present:
                self.update(name, flag.value)

    def parse_flags_with_absl(self):
        """Parse the ``--jax*`` arguments of ``sys.argv`` with absl, once."""
        global _configured_with_absl
        if _configured_with_absl:
            return
        import itertools
        import sys

        import absl.flags
        argv = itertools.takewhile(lambda a: a != "--", sys.argv)
        self.config_with_absl()
        absl.flags.FLAGS(["", *(a for a in argv if a.startswith("--jax"))],
                         known_only=True)
        self.complete_absl_config(absl.flags)
        _configured_with_absl = True

    def __getattr__(self, name):
        option = self._options.get(name)
        if option is None or getattr(option, "flag", False):
            raise AttributeError(
                f"'Config' object has no attribute '{name}'")
        return option.value

    def __setattr__(self, name, value):
        raise AttributeError(
            f"Use config.update({name!r}, value) to set a config option.")

    def __dir__(self):
        attrs = [n for n, o in self._options.items() if not getattr(o, "flag", False)]
        return sorted(attrs) + [
            "add_option", "complete_absl_config", "config_with_absl", "meta",
            "parse_flags_with_absl", "read", "update", "use_absl", "values",
            "x64_enabled"]


_configured_with_absl = False


class _Holder:
    """An option registered through ``add_option``: a flag-like wrapper."""

    flag = True

    def __init__(self, name, holder):
        self.name = name
        self._holder = holder

    @property
    def value(self):
        return self._holder.value

    def set_global(self, value):
        self._holder._set(value)


def _meta_of(option):
    """``(type, args, kwargs)`` as JAX's ``config.meta`` holds them."""
    kind, kwargs = option.kind, {"help": option.help}
    if isinstance(kind, tuple):
        return "enum", [], {"enum_values": list(kind), **kwargs}
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return "enum_class", [], {"enum_class": kind, **kwargs}
    return (str if kind is object else kind), [], kwargs


def _define_absl_flag(absl_flags, name, value, meta):
    opt_type, args, kwargs = meta
    define = {bool: absl_flags.DEFINE_bool, int: absl_flags.DEFINE_integer,
              float: absl_flags.DEFINE_float, str: absl_flags.DEFINE_string,
              "enum": absl_flags.DEFINE_enum,
              "enum_class": absl_flags.DEFINE_enum_class}[opt_type]
    define(name, value, *args, **kwargs)


config = Config()

# The precision names, then the DotAlgorithmPreset names (SPEC LXM-33).
_PRECISIONS = ("default", "high", "highest", "bfloat16", "tensorfloat32",
               "float32") + tuple(
    "ANY_F8_ANY_F8_F32 ANY_F8_ANY_F8_F32_FAST_ACCUM ANY_F8_ANY_F8_ANY "
    "ANY_F8_ANY_F8_ANY_FAST_ACCUM F16_F16_F16 F16_F16_F32 BF16_BF16_BF16 "
    "BF16_BF16_F32 BF16_BF16_F32_X3 BF16_BF16_F32_X6 BF16_BF16_F32_X9 "
    "TF32_TF32_F32 TF32_TF32_F32_X3 F32_F32_F32 F64_F64_F64".split())

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
    "jax_default_prng_impl", "threefry2x32",
    ("threefry2x32", "threefry4x32", "rbg", "unsafe_rbg", "philox2x32", "philox4x32"),
    env="JAX_DEFAULT_PRNG_IMPL")
legacy_prng_key = _define(
    "jax_legacy_prng_key", "allow", ("allow", "warn", "error"),
    env="JAX_LEGACY_PRNG_KEY")
platforms = _define("jax_platforms", None, str, allow_none=True,
                    env="JAX_PLATFORMS")


# -- the rest of JAX 0.10.2's options (SPEC CFG-8) ---------------------------

def _check_default_device(value):
    # A device is recognised by its type's name, as JAX does for devices
    # that are not its own (config cannot import the device layer).
    if "Device" not in type(value).__name__ and value not in ("cpu", "gpu", "tpu"):
        raise ValueError(
            "jax.default_device must be passed either a Device object (e.g. "
            "`jax.devices('cpu')[0]`) or a platform name string like 'cpu' or "
            f"'gpu', got: {value!r}")


def _check_pjrt_options(value):
    if not isinstance(value, (str, dict)):
        raise ValueError("new string config value must be None or of type dict"
                         f" | str, got {value} of type {type(value)}.")


_TYPE_CHECKS = {"jax_default_device": _check_default_device,
                "jax_pjrt_client_create_options": _check_pjrt_options}


def _validator_for(name):
    """The JAX type check of option ``name``, then refjax's refusal of the
    values whose effect it lacks (SPEC CFG-10)."""
    check = _TYPE_CHECKS.get(name)
    unsupported = _options_table.UNSUPPORTED.get(name)
    if check is None and unsupported is None:
        return None

    def validate(value):
        if check is not None:
            check(value)
        if unsupported is not None and not unsupported[0](value):
            why = unsupported[1]() if callable(unsupported[1]) else unsupported[1]
            raise NotImplementedError(f"{name}={value!r} is not supported: {why}.")
    return validate


def _define_row(name, default, kind, *marks):
    flag = _options_table._FLAG in marks
    allow_none = _options_table._NONE in marks
    if kind == _options_table._OPTSTR:
        kind, allow_none = str, True
    help = _options_table.EFFECTS.get(name, "No effect in refjax.")
    return _define(name, default, kind, env=name.upper(), allow_none=allow_none,
                   flag=flag, validator=None if flag else _validator_for(name),
                   help=help)


states = {row[0]: _define_row(*row) for row in _options_table.OPTIONS}
ExplicitX64Mode = _options_table.ExplicitX64Mode
TRANSFER_GUARD_SITES = _options_table.TRANSFER_GUARD_SITES
transfer_guard_sites = _options_table.transfer_guard_sites
RuntimeTracebackMode = _options_table.RuntimeTracebackMode

# JAX's module-level name for this option, which the samplers read.
use_high_dynamic_range_gumbel = states["jax_high_dynamic_range_gumbel"]

# ``jax.log_compiles`` and the other option context managers JAX exports.
for _public, _name in _options_table.CONTEXT_MANAGERS.items():
    globals()[_public] = states[_name]
del _public, _name


@contextlib.contextmanager
def transfer_guard(new_val):
    """Set all four transfer guards for a ``with`` block (SPEC CFG-10)."""
    with contextlib.ExitStack() as stack:
        for name in ("jax_transfer_guard_host_to_device",
                     "jax_transfer_guard_device_to_device",
                     "jax_transfer_guard_device_to_host", "jax_transfer_guard"):
            stack.enter_context(states[name](new_val))
        yield


# -- jax.make_user_context (SPEC API-12) -------------------------------------

user_contexts = []


def user_context_values():
    """The current value of every user context, in creation order.  Outside
    ``with`` overrides the values are global ones, so the tuple is made once
    and kept until a global value changes or a context is added: jit asks
    for it on every call."""
    if _overrides.values:
        return tuple(_UserValue(c.value) for c in user_contexts)
    key = _global_user_values[0]
    if key is None:
        key = _global_user_values[0] = tuple(_UserValue(c.value) for c in user_contexts)
    return key


_global_user_values = [None]


def _forget_user_values():
    _global_user_values[0] = None


on_global_update(_forget_user_values)


class _UserValue:
    """A user context's value inside jit's cache key: equal values compare
    equal, and unhashable ones compare by identity."""

    __slots__ = ("value", "_hash")

    def __init__(self, value):
        self.value = value
        # Computed once: these keys are hashed on every jit call.
        try:
            self._hash = hash(value)
        except TypeError:
            self._hash = id(value)

    def __eq__(self, other):
        if self.value is other.value:
            return True
        try:
            return bool(self.value == other.value)
        except Exception:
            return False

    def __hash__(self):
        return self._hash


class UserContext:
    """``jax.make_user_context(default)``: a value that ``jit`` keys its
    caches on; ``with ctx(value):`` sets it for a block, ``set_global``
    everywhere (SPEC API-12)."""

    def __init__(self, default_value):
        self._option = Option(f"user_context_{len(user_contexts)}",
                              default_value, object)
        user_contexts.append(self)
        _forget_user_values()

    @property
    def value(self):
        return self._option.value

    def get_global(self):
        return self._option.get_global()

    def set_global(self, new_value):
        self._option.set_global(new_value)

    def __call__(self, new_value):
        return self._option._override(new_value)


def make_user_context(default_value=None):
    """A new user context whose value is part of every jit cache key."""
    return UserContext(default_value)
