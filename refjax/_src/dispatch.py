"""Eager dispatch: running one primitive on concrete operands (SPEC PERF-1).

``Primitive.bind`` outside every transformation lands in
:func:`apply_primitive` (installed into core at import).  The common case --
plain arrays on the default device, no option overridden -- runs a
remembered :class:`_EagerPlan` for the operands' types; everything else
takes :func:`_apply_general`.

Modules above this one watch eager primitives through two hook lists that they
fill when they are imported, so this module imports none of them:

* ``key_array_checks``: objects with ``before(primitive, args, avals_in,
  avals_out, params)`` and ``after(primitive, args, results, avals_in,
  avals_out, params)``, run around a primitive with PRNG-key operands
  (the key-reuse checker, SPEC RNG-65);
* ``committed_placements``: ``place(primitive, params, args, avals_in,
  results) -> results``, run when an operand is committed to a device
  (sharding placement, SPEC SHD-16).

NaN and Inf checks (``jax_debug_nans``, SPEC NAN-2) are options of every
run, so they live here.
"""
import enum

import numpy as np

from refjax._src import config as _config
from refjax._src import core, dtypes, errors, lru
from refjax._src.array import ArrayImpl
from refjax._src.core import (
    ShapedArray, _backend_array_type, conform_buffer, get_aval, jaxprs_in_params,
    to_buffer, wrap_buffer,
)
from refjax._src.fperrors import quiet

key_array_checks = []
committed_placements = []


def apply_primitive(primitive, args, params):
    """Run ``primitive`` on concrete arguments and wrap the results.

    The common case -- every operand a plain array on the default device,
    no configuration override active -- takes a remembered plan for the
    operands' shapes, dtypes and weak types (SPEC PERF-1): no abstract
    evaluation, no jaxpr, just the kernel and the wrapping of its result.
    """
    sig = [primitive]
    for a in args:
        if type(a) is not ArrayImpl:
            return _apply_general(primitive, args, params)
        s = a._sig
        if s is None:
            if a._committed or a._buffer is None:   # the general path decides
                return _apply_general(primitive, args, params)
            s = a._sig = (a._buffer.shape, a._dtype, a.weak_type)
        sig.append(s)
    if params:
        sig.append(tuple(params.items()))
    sig = tuple(sig)
    try:
        plan = _eager_plans.get(sig, _MISSING)
    except TypeError:           # a parameter that cannot be hashed
        return _apply_general(primitive, args, params)
    if plan is _MISSING:
        # Outside the lookup's try: an error of the primitive itself must
        # not carry a KeyError as its context in the user's traceback.
        if _config.overrides_active() or not _plain_params(params):
            return _apply_general(primitive, args, params)
        plan = _EagerPlan.make(primitive, args, params)
        lru.put_bounded(_eager_plans, sig, plan, _MAX_PLANS)  # oldest out (THR-5)
    if plan is None or _overrides.values:
        return _apply_general(primitive, args, params)
    return plan.run([a._buffer for a in args], params)


_MISSING = object()
_PLAIN_TYPES = (type(None), bool, int, float, str, np.dtype, enum.Enum)


def _plain_params(params):
    """Whether ``params`` are plain data (numbers, strings, dtypes, tuples):
    a jaxpr or a callback made afresh per call would make every call a new
    plan, and keep its objects alive in the table."""
    def plain(value):
        if isinstance(value, tuple):
            return all(plain(v) for v in value)
        return isinstance(value, _PLAIN_TYPES)
    return all(plain(v) for v in params.values())


class _EagerPlan:
    """What eager dispatch of one primitive on one operand signature needs:
    the output avals (computed once), and whether results must be checked
    for NaN (``jax_debug_nans``, read when the plan is made; plans are
    dropped whenever the configuration changes)."""

    __slots__ = ("name", "impl", "kernel", "multiple", "avals", "dtypes",
                 "weak", "sigs", "array_type", "check")

    @classmethod
    def make(cls, primitive, args, params):
        """The plan, or None when the general path must run every time
        (PRNG keys in or out, whose key-reuse checks run per call)."""
        check_has_impl(primitive)
        avals_in = [_concrete_aval(a, a._buffer) for a in args]
        avals = primitive.abstract_eval(*avals_in, **params)
        outs = avals if primitive.multiple_results else [avals]
        if any(isinstance(a.dtype, dtypes.ExtendedDType) for a in outs):
            return None
        plan = cls()
        plan.name = primitive.name
        if primitive.specialize is not None:    # SPEC PERF-3
            plan.kernel = primitive.specialize(avals_in, outs, **params)
            plan.impl = None
        else:
            plan.impl = primitive.impl
        plan.multiple = primitive.multiple_results
        plan.avals = outs
        plan.dtypes = [a.dtype for a in outs]
        plan.weak = [a.weak_type for a in outs]
        plan.sigs = [(a.shape, a.dtype, a.weak_type) for a in outs]
        plan.array_type = _backend_array_type()
        plan.check = _config.any_enabled(_debug_nans, _debug_infs)
        return plan

    def run(self, buffers, params):
        try:
            if self.impl is None:
                out = quiet(self.kernel, *buffers)
            else:
                out = self.impl(*buffers, **params)
        except MemoryError as e:
            raise out_of_memory(e) from None
        if not self.multiple:
            dtype = self.dtypes[0]
            if type(out) is not self.array_type or out.dtype is not dtype:
                out = conform_buffer(out, self.avals[0])
            result = ArrayImpl(out, dtype, self.weak[0])
            result._sig = self.sigs[0]
            if self.check:
                check_nans(self.name, [result])
            return result
        results = [wrap_buffer(b, a) for b, a in zip(out, self.avals)]
        if self.check:
            check_nans(self.name, results)
        return results


# Plans by operand signature: a lock-free ``dict`` on the eager hot path,
# bounded (a program sweeping over many shapes), emptied by clear_caches.
_MAX_PLANS = 20000
_eager_plans = lru.register({})
_overrides = _config._overrides
_config.on_global_update(_eager_plans.clear)


def check_has_impl(primitive):
    """A user primitive bound eagerly without ``def_impl``: JAX's words
    (SPEC EXT-13)."""
    if primitive.impl is None and primitive.specialize is None and primitive.physical is None:
        raise NotImplementedError(f"Evaluation rule for '{primitive.name}' not implemented")


def _operand(primitive, x, position):
    """The buffer and aval of a non-Array operand, with JAX's words for a
    value of no JAX type (TRC-8)."""
    try:
        b = to_buffer(x)
        return b, _concrete_aval(x, b)
    except TypeError as e:
        if "not a valid JAX" not in str(e):
            raise
        raise TypeError(
            f"Error interpreting argument to {primitive.name} as a JAX value. The "
            f"problematic value is of type {type(x)} and was passed to "
            f"{primitive.name} at position {position}.") from None


def _apply_general(primitive, args, params):
    """``apply_primitive`` for any operands: scalars, NumPy values, key
    arrays, committed or sharded arrays, and under configuration overrides."""
    check_has_impl(primitive)
    buffers, avals_in = [], []
    extended = placed = False
    for a in args:
        if type(a) is ArrayImpl:  # the common case, kept short: eager speed
            b = a._value
            avals_in.append(ShapedArray(b.shape, a._dtype, a.weak_type))
            placed = placed or a._committed
        else:
            b, aval = _operand(primitive, a, len(buffers))
            extended = extended or isinstance(aval.dtype, dtypes.ExtendedDType)
            avals_in.append(aval)
        buffers.append(b)
    avals_out = primitive.abstract_eval(*avals_in, **params)
    if extended:
        for check in key_array_checks:      # key reuse (SPEC RNG-65)
            check.before(primitive, args, avals_in, avals_out, params)
        out = _run_kernel(physical_impl(primitive, avals_in, avals_out), buffers, params)
    else:
        out = _run_kernel(primitive.impl, buffers, params)
    if primitive.multiple_results:
        results = [wrap_buffer(b, a) for b, a in zip(out, avals_out)]
    else:
        results = wrap_buffer(out, avals_out)
    if extended:
        for check in key_array_checks:
            check.after(primitive, args, results, avals_in, avals_out, params)
    if placed:   # committed operands decide where results live (SPEC SHD-16)
        for place in committed_placements:
            results = place(primitive, params, args, avals_in, results)
    if _config.any_enabled(_debug_nans, _debug_infs):
        check_nans(primitive.name, results)
    return results


_debug_nans, _debug_infs = _config.debug_nans, _config.debug_infs


def _run_kernel(kernel, buffers, params):
    try:
        return kernel(*buffers, **params)
    except MemoryError as e:
        raise out_of_memory(e) from None


def out_of_memory(exc):
    """The ``JaxRuntimeError`` JAX raises when a buffer cannot be allocated,
    for NumPy's ``MemoryError`` ``exc`` (SPEC ERR-1, FUZZ-2): the user must
    ask for a smaller array."""
    shape, dtype = getattr(exc, "shape", None), getattr(exc, "dtype", None)
    if shape is None or dtype is None:
        return errors.JaxRuntimeError("RESOURCE_EXHAUSTED: Out of memory.")
    nbytes = int(np.prod(shape, dtype=object)) * np.dtype(dtype).itemsize
    return errors.JaxRuntimeError(
        f"RESOURCE_EXHAUSTED: Out of memory allocating {nbytes} bytes.")


def physical_impl(primitive, avals_in, avals_out):
    """A buffers-only implementation of ``primitive`` for operands of these
    avals, some of extended dtype (RNG-20): its ``physical`` rule, which
    knows the shape of the key data behind each key."""
    rule = primitive.physical
    if rule is not None:
        return lambda *buffers, **params: rule(buffers, avals_in, avals_out, **params)

    def run(*buffers, **params):
        # Primitives holding jaxprs (jit, cond, scan...) pass buffers on to
        # compiled sub-programs, which apply these rules equation by equation.
        if jaxprs_in_params(params):
            return primitive.impl(*buffers, **params)
        names = ", ".join(a.dtype.name for a in avals_in)
        raise TypeError(f"{primitive.name} does not accept dtypes {names}.")
    return run


def _concrete_aval(arg, buffer):
    if isinstance(arg, ArrayImpl):
        return ShapedArray(buffer.shape, arg.dtype, arg.weak_type)
    return get_aval(arg)


def check_nans(name, results):
    """``jax_debug_nans``/``jax_debug_infs``: raise naming the primitive."""
    outs = results if isinstance(results, list) else [results]
    for r in outs:
        if not dtypes.issubdtype(r.dtype, np.inexact):
            continue
        host = np.asarray(r._host(), dtype=np.complex128 if r.dtype.kind == "c"
                          else np.float64)
        if _config.debug_nans.value and np.isnan(host).any():
            raise FloatingPointError(f"invalid value (nan) encountered in {name}")
        if _config.debug_infs.value and np.isinf(host).any():
            raise FloatingPointError(f"invalid value (inf) encountered in {name}")


core.set_eager_dispatch(apply_primitive)
