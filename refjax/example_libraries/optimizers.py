"""``optimizers``: gradient-descent optimizers as function triples
(SPEC EXL-11 .. EXL-20).

An optimizer is ``(init_fun, update_fun, get_params)``:
``init_fun(params)`` returns an ``OptimizerState``, ``update_fun(step,
grads, opt_state)`` the next state, ``get_params(opt_state)`` the
parameters, with ``get_params(init_fun(params)) == params``.  Each
optimizer below is written for one array and lifted to pytrees of
parameters by the ``optimizer`` decorator.  Step sizes may be constants or
schedules (functions of the step number).  This is an example library
written on refjax's public API, as JAX's is written on JAX's.
"""
from __future__ import annotations

import builtins as _builtins
import functools
from collections import namedtuple
from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple

import refjax as jax
import refjax.numpy as jnp
from refjax.api_util import safe_map


def safe_zip(*args):
    """``list(zip(*args))`` for sequences of one length; ``ValueError``
    otherwise (SPEC EXL-19)."""
    lists = [list(a) for a in args]
    lengths = tuple(len(lst) for lst in lists)
    for i, n in enumerate(lengths[1:], start=1):
        if n != lengths[0]:
            raise ValueError(f"safe_zip() argument {i} has length {n} but argument 0 "
                             f"has length {lengths[0]}. All lengths: {lengths}")
    return list(_builtins.zip(*lists))


def unzip2(pairs):
    """The two tuples of firsts and seconds of an iterable of pairs
    (SPEC EXL-19)."""
    firsts, seconds = [], []
    for a, b in pairs:
        firsts.append(a)
        seconds.append(b)
    return tuple(firsts), tuple(seconds)


# Length-checked map and zip, as in JAX's module.
map = safe_map  # noqa: A001
zip = safe_zip  # noqa: A001


# ---------------------------------------------------------------------------
# Optimizer state and types (SPEC EXL-11, EXL-12)
# ---------------------------------------------------------------------------

OptimizerState = namedtuple("OptimizerState", ["packed_state", "tree_def", "subtree_defs"])
# Only the flat per-parameter states are leaves; the tree structures are
# static auxiliary data, so an OptimizerState passes through jit and grad.
jax.tree_util.register_pytree_node(
    OptimizerState,
    lambda state: ((state.packed_state,), (state.tree_def, state.subtree_defs)),
    lambda aux, children: OptimizerState(children[0], aux[0], aux[1]))

Array = Any
Params = Any
State = Any
Updates = Params

InitFn = Callable[[Params], OptimizerState]
Step = int
UpdateFn = Callable[[Step, Updates, OptimizerState], OptimizerState]
ParamsFn = Callable[[OptimizerState], Params]


class Optimizer(NamedTuple):
    """The ``(init_fn, update_fn, params_fn)`` triple (SPEC EXL-11)."""
    init_fn: InitFn
    update_fn: UpdateFn
    params_fn: ParamsFn


Schedule = Callable[[Step], float]


def _check_same_tree(expected, got, message):
    if got != expected:
        raise TypeError(message.format(expected, got))


def optimizer(opt_maker):
    """Lift an optimizer written for one array to pytrees (SPEC EXL-12).

    ``opt_maker(*args)`` returns ``(init, update, get_params)`` on single
    arrays; the lifted ``init`` flattens the parameters and keeps, per leaf,
    the flattened state and its structure in an ``OptimizerState``.
    ``update`` checks that the gradients have the parameters' structure and
    that each leaf's state keeps its structure (``TypeError`` otherwise)."""
    @functools.wraps(opt_maker)
    def tree_opt_maker(*args, **kwargs):
        init, update, get_params = opt_maker(*args, **kwargs)

        @functools.wraps(init)
        def tree_init(x0_tree):
            leaves, tree = jax.tree.flatten(x0_tree)
            states_flat, subtrees = unzip2(map(jax.tree.flatten, [init(x) for x in leaves]))
            return OptimizerState(states_flat, tree, subtrees)

        @functools.wraps(update)
        def tree_update(i, grad_tree, opt_state):
            states_flat, tree, subtrees = opt_state
            grads, grad_def = jax.tree.flatten(grad_tree)
            _check_same_tree(tree, grad_def,
                             "optimizer update function was passed a gradient tree that "
                             "did not match the parameter tree structure with which it "
                             "was initialized: parameter tree {} and grad tree {}.")
            states = map(jax.tree.unflatten, subtrees, states_flat)
            new_states = map(partial(update, i), grads, states)
            new_flat, new_subtrees = unzip2(map(jax.tree.flatten, new_states))
            for old, new in zip(subtrees, new_subtrees):
                _check_same_tree(old, new,
                                 "optimizer update function produced an output structure "
                                 "that did not match its input structure: input {} and "
                                 "output {}.")
            return OptimizerState(new_flat, tree, subtrees)

        @functools.wraps(get_params)
        def tree_get_params(opt_state):
            states_flat, tree, subtrees = opt_state
            states = map(jax.tree.unflatten, subtrees, states_flat)
            return jax.tree.unflatten(tree, map(get_params, states))

        return Optimizer(tree_init, tree_update, tree_get_params)
    return tree_opt_maker


# ---------------------------------------------------------------------------
# Optimizers (SPEC EXL-13 .. EXL-15)
# ---------------------------------------------------------------------------

def _first(state):
    return state[0]


@optimizer
def sgd(step_size):
    """``x <- x - step_size(i) * g`` (SPEC EXL-13)."""
    step_size = make_schedule(step_size)

    def update(i, g, x):
        return x - step_size(i) * g
    return Optimizer(lambda x0: x0, update, lambda x: x)


def _momentum_optimizer(step_size, mass, nesterov):
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0)

    def update(i, g, state):
        x, velocity = state
        velocity = mass * velocity + g
        direction = mass * velocity + g if nesterov else velocity
        return x - step_size(i) * direction, velocity
    return init, update, _first


@optimizer
def momentum(step_size: Schedule, mass: float):
    """Heavy-ball momentum: ``v <- mass v + g``, ``x <- x - step v``
    (SPEC EXL-13)."""
    return _momentum_optimizer(step_size, mass, nesterov=False)


@optimizer
def nesterov(step_size: Schedule, mass: float):
    """Nesterov momentum: ``v <- mass v + g``, ``x <- x - step (mass v + g)``
    (SPEC EXL-13)."""
    return _momentum_optimizer(step_size, mass, nesterov=True)


def _inv_sqrt_or_zero(a):
    return jnp.where(a > 0, 1. / jnp.sqrt(a), 0.0)


@optimizer
def adagrad(step_size, momentum=0.9):
    """Adagrad with momentum: ``G <- G + g**2``, ``m <- (1 - momentum) g /
    sqrt(G) + momentum m`` (0 where ``G == 0``), ``x <- x - step m``
    (SPEC EXL-14)."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, g_sq, m = state
        g_sq = g_sq + jnp.square(g)
        m = (1. - momentum) * (g * _inv_sqrt_or_zero(g_sq)) + momentum * m
        return x - step_size(i) * m, g_sq, m
    return init, update, _first


@optimizer
def rmsprop(step_size, gamma=0.9, eps=1e-8):
    """``a <- gamma a + (1 - gamma) g**2``, ``x <- x - step g / sqrt(a +
    eps)`` (SPEC EXL-14)."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0)

    def update(i, g, state):
        x, avg_sq_grad = state
        avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1. - gamma)
        return x - step_size(i) * g / jnp.sqrt(avg_sq_grad + eps), avg_sq_grad
    return init, update, _first


@optimizer
def rmsprop_momentum(step_size, gamma=0.9, eps=1e-8, momentum=0.9):
    """RMSProp whose scaled steps accumulate in a momentum term:
    ``mom <- momentum mom + step g / sqrt(a + eps)``, ``x <- x - mom``
    (SPEC EXL-14)."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, avg_sq_grad, mom = state
        avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1. - gamma)
        mom = momentum * mom + step_size(i) * g / jnp.sqrt(avg_sq_grad + eps)
        return x - mom, avg_sq_grad, mom
    return init, update, _first


def _bias_correction(beta, like, i):
    """``1 - beta**(i + 1)`` with ``beta`` in the state's dtype."""
    return 1 - jnp.asarray(beta, like.dtype) ** (i + 1)


@optimizer
def adam(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """Adam: moment estimates ``m``, ``v`` with bias corrections ``1 -
    b**(i+1)``; ``x <- x - step mhat / (sqrt(vhat) + eps)`` (SPEC EXL-15)."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, m, v = state
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * jnp.square(g) + b2 * v
        mhat = m / _bias_correction(b1, m, i)
        vhat = v / _bias_correction(b2, m, i)
        return x - step_size(i) * mhat / (jnp.sqrt(vhat) + eps), m, v
    return init, update, _first


@optimizer
def adamax(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """AdaMax: ``u <- max(b2 u, |g|)``, ``x <- x - step / (1 - b1**(i+1)) m
    / (u + eps)`` (SPEC EXL-15)."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, m, u = state
        m = (1 - b1) * g + b1 * m
        u = jnp.maximum(b2 * u, jnp.abs(g))
        x = x - (step_size(i) / _bias_correction(b1, m, i)) * m / (u + eps)
        return x, m, u
    return init, update, _first


def _splice(seq, i, items):
    """``seq`` as a list with position ``i`` replaced by ``items``."""
    out = list(seq)
    out[i:i + 1] = items
    return out


@optimizer
def sm3(step_size, momentum=0.9):
    """SM3: one accumulator vector per axis; the accumulator of an entry is
    the minimum over its axes' vectors plus ``g**2``, each vector then keeps
    the maximum over the other axes.  Scalars are treated as 1-d
    (SPEC EXL-15)."""
    step_size = make_schedule(step_size)

    def init(x0):
        shape = x0.shape
        x0 = jnp.atleast_1d(x0)
        accumulators = [jnp.zeros(n, dtype=x0.dtype) for n in x0.shape]
        return x0, jnp.zeros_like(x0), accumulators, shape

    def update(i, g, state):
        x, m, vs, shape = state
        vs = [v[tuple(_splice([None] * g.ndim, axis, [slice(None)]))]
              for axis, v in enumerate(vs)]
        accum = functools.reduce(jnp.minimum, vs) + jnp.square(g)
        m = (1. - momentum) * (g * jnp.where(accum > 0, 1. / jnp.sqrt(accum), 0)) \
            + momentum * m
        x = x - step_size(i) * m
        vs = [accum.max(_splice(range(x.ndim), j, [])) for j in range(x.ndim)]
        return x, m, vs, shape

    def get_params(state):
        return state[0].reshape(state[3])
    return init, update, get_params


# ---------------------------------------------------------------------------
# Step-size schedules (SPEC EXL-16, EXL-17)
# ---------------------------------------------------------------------------

def constant(step_size) -> Schedule:
    """The schedule ``i -> step_size`` (SPEC EXL-16)."""
    def schedule(i):
        return step_size
    return schedule


def exponential_decay(step_size, decay_steps, decay_rate):
    """``step_size * decay_rate ** (i / decay_steps)`` (SPEC EXL-16)."""
    def schedule(i):
        return step_size * decay_rate ** (i / decay_steps)
    return schedule


def inverse_time_decay(step_size, decay_steps, decay_rate, staircase=False):
    """``step_size / (1 + decay_rate * i / decay_steps)``, with ``floor(i /
    decay_steps)`` when ``staircase`` (SPEC EXL-16)."""
    def schedule(i):
        t = jnp.floor(i / decay_steps) if staircase else i / decay_steps
        return step_size / (1 + decay_rate * t)
    return schedule


def polynomial_decay(step_size, decay_steps, final_step_size, power=1.0):
    """From ``step_size`` to ``final_step_size`` as ``(1 - i /
    decay_steps) ** power``, constant after ``decay_steps`` (SPEC EXL-16)."""
    def schedule(step_num):
        step_num = jnp.minimum(step_num, decay_steps)
        step_mult = (1 - step_num / decay_steps) ** power
        return step_mult * (step_size - final_step_size) + final_step_size
    return schedule


def piecewise_constant(boundaries: Any, values: Any):
    """``values[k]`` where ``k`` is the number of boundaries below ``i``;
    ``ValueError`` unless both are 1-d with one more value than boundaries
    (SPEC EXL-16)."""
    boundaries = jnp.array(boundaries)
    values = jnp.array(values)
    if not boundaries.ndim == values.ndim == 1:
        raise ValueError("boundaries and values must be sequences")
    if not boundaries.shape[0] == values.shape[0] - 1:
        raise ValueError("boundaries length must be one shorter than values length")

    def schedule(i):
        return values[jnp.sum(i > boundaries)]
    return schedule


def make_schedule(scalar_or_schedule: float | Schedule) -> Schedule:
    """A callable as is, a scalar as a ``constant`` schedule; anything else
    is ``TypeError(type(value))`` (SPEC EXL-17)."""
    if callable(scalar_or_schedule):
        return scalar_or_schedule
    if jnp.ndim(scalar_or_schedule) == 0:
        return constant(scalar_or_schedule)
    raise TypeError(type(scalar_or_schedule))


# ---------------------------------------------------------------------------
# Utilities (SPEC EXL-18, EXL-20)
# ---------------------------------------------------------------------------

def l2_norm(tree):
    """The Euclidean norm of all the leaves of ``tree`` together
    (SPEC EXL-18)."""
    leaves, _ = jax.tree.flatten(tree)
    return jnp.sqrt(sum(jnp.vdot(x, x) for x in leaves))


def clip_grads(grad_tree, max_norm):
    """``grad_tree`` scaled by ``max_norm / norm`` when its ``l2_norm`` is at
    least ``max_norm`` (SPEC EXL-18)."""
    norm = l2_norm(grad_tree)
    return jax.tree.map(lambda g: jnp.where(norm < max_norm, g, g * (max_norm / norm)),
                        grad_tree)


class JoinPoint:
    """A leaf of an unpacked optimizer state that holds one parameter's
    state pytree (SPEC EXL-20)."""

    def __init__(self, subtree):
        self.subtree = subtree

    def __iter__(self):
        # Iterable like the containers it stands among.
        yield self.subtree


def unpack_optimizer_state(opt_state):
    """The state as the parameters' pytree with a ``JoinPoint`` holding each
    leaf's state, for serialization (SPEC EXL-20)."""
    states_flat, tree_def, subtree_defs = opt_state
    subtrees = map(jax.tree.unflatten, subtree_defs, states_flat)
    return jax.tree.unflatten(tree_def, [JoinPoint(s) for s in subtrees])


def pack_optimizer_state(marked_pytree):
    """The inverse of ``unpack_optimizer_state`` (SPEC EXL-20); every leaf
    must be a ``JoinPoint`` (``AssertionError`` otherwise, as in JAX)."""
    sentinels, tree_def = jax.tree.flatten(marked_pytree)
    assert all(isinstance(s, JoinPoint) for s in sentinels)
    states_flat, subtree_defs = unzip2(map(jax.tree.flatten, [s.subtree for s in sentinels]))
    return OptimizerState(states_flat, tree_def, subtree_defs)
