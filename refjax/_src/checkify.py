"""``jax.experimental.checkify``: run-time checks as values (SPEC NAN-4, NAN-5).

``checkify(f, errors)`` traces ``f`` to a jaxpr and evaluates it equation by
equation, binding each primitive on the current trace (so it works eagerly
and under an outer ``jit``) and, for the enabled error categories, computing
a predicate "this equation failed" next to it: NaN produced by a floating
point primitive, an out-of-bounds start of ``dynamic_slice``,
``dynamic_update_slice``, ``gather`` or a scatter, integer division by zero, and the
user's ``check`` calls.  The predicates and their payloads are returned as
an ``Error`` pytree; ``Error.get()`` names the first failed check in program
order.  Nested ``jit`` equations are checked inside; the bodies of control
flow primitives are not (refjax limitation).

``check`` outside ``checkify`` raises at once when run eagerly and cannot be
staged: tracing it raises ``ValueError``.
"""
import collections.abc
import contextlib
import threading

import numpy as np

from refjax._src import core, dtypes, tree_util
from refjax._src.api import jit_p
from refjax._src.core import Literal, Primitive
from refjax._src.interpreters import batching
from refjax._src.interpreters import partial_eval as pe
from refjax._src.numpy import creation, lax_numpy, reductions, ufuncs


class JaxRuntimeError(ValueError):
    """The error ``Error.throw()`` and eager ``check`` raise (a ValueError, as in JAX)."""


class ErrorCategory:
    """An error kind; ``errors=`` takes a frozenset of them."""


class FailedCheckError(ErrorCategory):
    pass


class NaNError(ErrorCategory):
    pass


class OOBError(ErrorCategory):
    pass


class DivisionByZeroError(ErrorCategory):
    pass


user_checks = frozenset({FailedCheckError})
nan_checks = frozenset({NaNError})
index_checks = frozenset({OOBError})
div_checks = frozenset({DivisionByZeroError})
float_checks = nan_checks | div_checks
automatic_checks = float_checks | index_checks
all_checks = automatic_checks | user_checks

# Primitives whose floating outputs are checked for NaN (as JAX's list).
_NAN_PRIMITIVES = frozenset({
    "acos", "acosh", "add", "asin", "asinh", "atan2", "atan", "atanh",
    "bessel_i0e", "bessel_i1e", "cbrt", "conv_general_dilated", "cos", "cosh",
    "cumlogsumexp", "cummax", "cummin", "cumprod", "cumsum", "digamma",
    "dot_general", "erf_inv", "erf", "erfc", "exp", "expm1", "fft",
    "igamma_grad_a", "igamma", "igammac", "integer_pow", "lgamma",
    "linear_solve", "log1p", "log", "logistic", "mul", "pad", "pow", "psum",
    "reduce", "reduce_prod", "reduce_sum", "reduce_window", "reduce_window_sum",
    "regularized_incomplete_beta", "rem", "rng_uniform", "rsqrt", "sin", "sinh",
    "sqrt", "sub", "tan", "tanh", "div"})


# ---------------------------------------------------------------------------
# check
# ---------------------------------------------------------------------------

check_p = Primitive("check", multiple_results=True)


class _Functionalizing(threading.local):
    """How deep this thread is inside ``checkify``: per thread, so that one
    thread's checkify does not let another stage an unchecked ``check``
    (SPEC THR-1)."""
    depth = 0


_functionalizing = _Functionalizing()


@contextlib.contextmanager
def _allow_checks():
    _functionalizing.depth += 1
    try:
        yield
    finally:
        _functionalizing.depth -= 1


@check_p.def_abstract_eval
def _check_abstract_eval(pred, *fmt_avals, msg, fmt_tree):
    if not _functionalizing.depth:
        raise ValueError(
            "Cannot abstractly evaluate a checkify.check which was not "
            "functionalized. This probably means you tried to stage "
            "(jit/scan/pmap/...) a `check` without functionalizing it through "
            "`checkify.checkify`.")
    return []


@check_p.def_impl
def _check_impl(pred, *fmt_args, msg, fmt_tree):
    if not bool(np.asarray(pred)):
        raise JaxRuntimeError(_failed_check_message(msg, fmt_tree, fmt_args))
    return []


def _check_jvp(primals, tangents, *, msg, fmt_tree):
    """As JAX: the check runs on the primals; it has no outputs, so no tangents."""
    check_p.bind(*primals, msg=msg, fmt_tree=fmt_tree)
    return [], []


def _check_batch(axis_data, vals, dims, *, msg, fmt_tree):
    """As JAX: one check for the whole batch, failing if any example fails,
    with the message of the last failing example."""
    pred, *fmt = [batching.bdim_at_front(v, d, axis_data.size)
                  for v, d in zip(vals, dims)]
    last = pred.shape[0] - 1 - reductions.argmin(lax_numpy.flip(pred, 0))
    check_p.bind(pred[last], *(f[last] for f in fmt), msg=msg, fmt_tree=fmt_tree)
    return [], []


check_p.jvp = _check_jvp
check_p.batch = _check_batch


def _failed_check_message(msg, fmt_tree, fmt_leaves):
    args, kwargs = tree_util.tree_unflatten(fmt_tree, list(fmt_leaves))
    return msg.format(*args, **kwargs) + " (`check` failed)"


def check(pred, msg, *fmt_args, **fmt_kwargs):
    """Fails with ``msg`` (formatted with the arrays ``fmt_args``/``fmt_kwargs``)
    where the scalar boolean ``pred`` is False (SPEC NAN-5)."""
    from refjax._src.array import Array
    if not (isinstance(pred, bool) or isinstance(pred, Array) and pred.shape == ()
            and pred.dtype == np.dtype(bool)):
        raise TypeError(f"check takes a scalar pred as argument, got {pred}")
    if not isinstance(msg, str):
        # JAX fails inside str.format with AttributeError (SPEC DBG-11).
        raise TypeError(f"check takes a str message as argument, got {msg!r} of "
                        f"type {type(msg).__name__}")
    leaves, fmt_tree = tree_util.tree_flatten((fmt_args, fmt_kwargs))
    for leaf in leaves:
        if not isinstance(leaf, (Array, np.ndarray)):
            raise TypeError("Formatting arguments to checkify.check need to be "
                            f"PyTrees of arrays, but got {leaf!r} of type {type(leaf)}.")
    if core.current_trace() is core.eval_trace:
        # Eager, outside any trace: the check runs now.
        _check_impl(pred, *leaves, msg=msg, fmt_tree=fmt_tree)
        return
    check_p.bind(pred, *leaves, msg=msg, fmt_tree=fmt_tree)


# ---------------------------------------------------------------------------
# Error values
# ---------------------------------------------------------------------------

def _entry(payload, index):
    """Example ``index`` of a batched payload (a pytree of arrays whose
    leading axes are the batch)."""
    return tree_util.tree_map(lambda leaf: np.asarray(leaf)[index], payload)


class Error:
    """The checks of one checkified call: for each, a boolean "failed" and the
    values its message needs.  A pytree (the values are its leaves), so it can
    be returned from ``jit``."""

    def __init__(self, preds, payloads, messages):
        self._preds = tuple(preds)
        self._payloads = tuple(payloads)
        self._messages = tuple(messages)  # payload -> message, one per check

    def get(self):
        """The message of the first failed check, or None (SPEC NAN-4).

        A batched error (from ``vmap``) lists, for each mapped index with a
        failed check, ``at mapped index i: message`` (``i, j`` under nested
        ``vmap``), one line per index in row-major order."""
        preds = [np.asarray(p) for p in self._preds]
        batch = next((p.shape for p in preds if p.ndim), ())
        if not batch:
            for pred, payload, message in zip(preds, self._payloads, self._messages):
                if bool(pred):
                    return message(payload)
            return None
        lines = []
        for index in np.ndindex(*batch):
            for pred, payload, message in zip(preds, self._payloads, self._messages):
                if bool(pred[index] if pred.ndim else pred):
                    at = ", ".join(str(i) for i in index)
                    lines.append(f"at mapped index {at}: {message(_entry(payload, index))}")
                    break
        return "\n".join(lines) or None

    def throw(self):
        """Raises ``JaxRuntimeError`` with ``get()``'s message if a check failed."""
        message = self.get()
        if message is not None:
            raise JaxRuntimeError(message)

    def __str__(self):
        return f"Error({self.get()})"

    __repr__ = __str__


tree_util.register_pytree_node(
    Error,
    lambda e: ((e._preds, e._payloads), e._messages),
    lambda messages, children: Error(children[0], children[1], messages))

init_error = Error((), (), ())


def check_error(error):
    """Raise ``error`` if it holds a failed check (the checkified result
    re-raised outside ``checkify``); anything but an ``Error`` is a
    ``TypeError`` (SPEC DBG-11)."""
    if not isinstance(error, Error):
        raise TypeError(f"check_error takes an Error as argument, got type "
                        f"{type(error)} instead.")
    error.throw()


# ---------------------------------------------------------------------------
# checkify
# ---------------------------------------------------------------------------

def checkify(f, errors=user_checks):
    """``f`` returning ``(Error, out)``: its checks as a value (SPEC NAN-4)."""
    errors = _error_set(errors)

    def checked(*args, **kwargs):
        leaves, in_tree = tree_util.tree_flatten((args, kwargs))
        out_trees = []

        def flat(*xs):
            a, k = tree_util.tree_unflatten(in_tree, list(xs))
            out_leaves, out_tree = tree_util.tree_flatten(f(*a, **k))
            out_trees.append(out_tree)
            return out_leaves

        with _allow_checks():
            closed = pe.trace_to_jaxpr(flat, [core.get_aval(x) for x in leaves])
        records = []
        outs = _eval_checked(closed.jaxpr, closed.consts, leaves, errors, records)
        error = Error(*zip(*records)) if records else init_error
        return error, tree_util.tree_unflatten(out_trees[0], outs)

    return checked


def _error_set(errors):
    """``errors`` as a frozenset of error categories (``user_checks``,
    ``nan_checks``... or their unions).  JAX raises ``TypeError`` when it
    meets a check under ``errors`` that is not a collection; refjax raises
    it at once, also for a string or members that are not categories
    (SPEC DBG-11)."""
    def category(e):
        return isinstance(e, type) and issubclass(e, ErrorCategory)
    if isinstance(errors, str) or not isinstance(errors, collections.abc.Iterable) or \
            not all(category(e) for e in errors):
        raise TypeError(
            "checkify errors must be a set of error categories such as "
            "checkify.user_checks, checkify.float_checks or "
            f"checkify.all_checks (or unions of them); got {errors!r}")
    return frozenset(errors)


def _eval_checked(jaxpr, consts, args, errors, records):
    env = {}

    def read(v):
        return v.val if isinstance(v, Literal) else env[v]

    env.update(zip(jaxpr.constvars, consts))
    env.update(zip(jaxpr.invars, args))
    for eqn in jaxpr.eqns:
        invals = [read(v) for v in eqn.invars]
        if eqn.primitive is check_p:
            if FailedCheckError in errors:
                records.append(_user_check(invals, **eqn.params))
            continue
        if eqn.primitive is jit_p:
            inner = eqn.params["jaxpr"]
            outs = _eval_checked(inner.jaxpr, inner.consts, invals, errors, records)
        else:
            out = eqn.primitive.bind(*invals, **eqn.params)
            outs = out if eqn.primitive.multiple_results else [out]
            records.extend(_automatic_checks(eqn, invals, outs, errors))
        for v, x in zip(eqn.outvars, outs):
            env[v] = x
    return [read(v) for v in jaxpr.outvars]


# The checks below are written with jax.numpy so that they trace under jit.

def _user_check(invals, msg, fmt_tree):
    pred, *fmt = invals
    return (ufuncs.logical_not(pred), tuple(fmt),
            lambda payload: _failed_check_message(msg, fmt_tree, payload))


def _automatic_checks(eqn, invals, outs, errors):
    name = eqn.primitive.name
    found = []
    if DivisionByZeroError in errors and name == "div":
        found.append(_division_check(invals))
    if OOBError in errors and name in _OOB_CHECKS:
        found.append(_OOB_CHECKS[name](eqn, invals))
    if NaNError in errors and name in _NAN_PRIMITIVES:
        found.extend(_nan_check(name, outs))
    return found


def _nan_check(name, outs):
    floating = [o for o in outs if dtypes.issubdtype(o.dtype, np.inexact)]
    if not floating:
        return []
    pred = reductions.any(lax_numpy.stack([reductions.any(ufuncs.isnan(o)) for o in floating]))
    return [(pred, (), lambda _: f"nan generated by primitive: {name}.")]


def _division_check(invals):
    """A zero divisor of ``div`` of any dtype, as JAX checks it: float
    division by zero is flagged too, though it gives inf rather than a
    trap; ``rem`` is left to the NaN check (SPEC DBG-23)."""
    _, y = invals
    return (reductions.any(creation.asarray(y) == 0), (), lambda _: "division by zero")


def _oob_record(mask, starts, axes, shape):
    """The first out-of-bounds start: its value, axis and that axis' size."""
    if not len(axes):
        return False, (), None
    flat = reductions.argmax(lax_numpy.ravel(mask))
    axis = creation.asarray(np.asarray(axes, np.int32))[flat % len(axes)]
    payload = lax_numpy.stack([lax_numpy.ravel(starts)[flat].astype(np.int32), axis,
                         creation.asarray(np.asarray(shape, np.int32))[axis]])

    def message(p):
        index, ax, size = (int(v) for v in np.asarray(p))
        return (f"out-of-bounds indexing for array of shape {tuple(shape)}: index "
                f"{index} is out of bounds for axis {ax} with size {size}. ")
    return reductions.any(mask), payload, message


def _dynamic_slice_oob(eqn, invals):
    operand, *starts = invals
    shape = core.get_aval(operand).shape
    starts = lax_numpy.stack([creation.asarray(s) for s in starts]) if starts else creation.zeros(0, int)
    limits = np.asarray(shape) - np.asarray(eqn.params["slice_sizes"])
    mask = (starts < 0) | (starts > limits.astype(starts.dtype))
    return _oob_record(mask, starts, range(len(shape)), shape)


def _dynamic_update_slice_oob(eqn, invals):
    operand, update, *starts = invals
    shape = core.get_aval(operand).shape
    starts = lax_numpy.stack([creation.asarray(s) for s in starts]) if starts else creation.zeros(0, int)
    limits = np.asarray(shape) - np.asarray(core.get_aval(update).shape)
    mask = (starts < 0) | (starts > limits.astype(starts.dtype))
    return _oob_record(mask, starts, range(len(shape)), shape)


def _gather_oob(eqn, invals):
    operand, indices = invals
    shape = core.get_aval(operand).shape
    dnums = eqn.params["dimension_numbers"]
    index_map = np.asarray(dnums.start_index_map, int)
    sizes = np.asarray(eqn.params["slice_sizes"])
    limits = (np.asarray(shape)[index_map] - sizes[index_map]).astype(np.int32)
    indices = creation.asarray(indices)
    mask = (indices < 0) | (indices > limits.astype(indices.dtype))
    return _oob_record(mask, indices, index_map.tolist(), shape)


def _scatter_oob(eqn, invals):
    """Each index component against its operand axis, less the size of the
    update window along that axis (1 for inserted and batching axes)."""
    operand, indices, updates = invals
    shape = core.get_aval(operand).shape
    update_shape = core.get_aval(updates).shape
    dnums = eqn.params["dimension_numbers"]
    windows = iter(dnums.update_window_dims)
    sizes = [1 if i in dnums.inserted_window_dims or i in dnums.operand_batching_dims
             else update_shape[next(windows)] for i in range(len(shape))]
    index_map = np.asarray(dnums.scatter_dims_to_operand_dims, int)
    limits = (np.asarray(shape)[index_map] - np.asarray(sizes)[index_map]).astype(np.int32)
    indices = creation.asarray(indices)
    mask = (indices < 0) | (indices > limits.astype(indices.dtype))
    return _oob_record(mask, indices, index_map.tolist(), shape)


_OOB_CHECKS = {"dynamic_slice": _dynamic_slice_oob,
               "dynamic_update_slice": _dynamic_update_slice_oob,
               "gather": _gather_oob,
               **{name: _scatter_oob for name in (
                   "scatter", "scatter-add", "scatter-sub", "scatter-mul",
                   "scatter-min", "scatter-max")}}
