"""``custom_linear_solve`` and ``custom_root``: solves whose derivatives
come from the equation they solve, not from the solver (SPEC LXM-11..13).

``custom_linear_solve`` is one primitive holding four closed jaxprs (the
linear map ``matvec``, its transpose ``vecmat``, ``solve`` and
``transpose_solve``), each taking its own constants first and then the
right-hand side's leaves.  ``custom_root`` is a ``custom_jvp`` function
whose rule applies the implicit function theorem.
"""
import functools
from typing import Any, NamedTuple

import numpy as np

from refjax._src import core, tree_util
from refjax._src.compiler import executable_for
from refjax._src.core import Primitive
from refjax._src.custom_derivatives import custom_jvp
from refjax._src.interpreters import ad, batching
from refjax._src.lax import lax
from refjax._src.lax.control_flow import common


class _LinearSolveTuple(NamedTuple):
    matvec: Any
    vecmat: Any
    solve: Any
    transpose_solve: Any

    def transpose(self):
        """The tuple of the transposed system: A^T x = b."""
        return type(self)(self.vecmat, self.matvec, self.transpose_solve, self.solve)


def _split(args, const_lengths):
    """(per-jaxpr constants as a _LinearSolveTuple, the remaining args)."""
    out, i = [], 0
    for n in const_lengths:
        out.append(list(args[i:i + n]))
        i += n
    return _LinearSolveTuple(*out), list(args[i:])


# ---------------------------------------------------------------------------
# Tracing the user's functions (SPEC LXM-11)
# ---------------------------------------------------------------------------

def _check_tree(func_name, expected_name, actual_tree, expected_tree, has_aux=False):
    """JAX's errors for an output tree unlike the right-hand side's."""
    if has_aux:
        children = tree_util.treedef_children(actual_tree)
        if len(children) != 2:
            raise ValueError(
                f"{func_name}() produced a pytree with structure {actual_tree}, but a "
                "pytree tuple with auxiliary output was expected because has_aux "
                "was set to True.")
        actual_tree = children[0]
    if actual_tree != expected_tree:
        raise TypeError(f"{func_name}() output pytree structure must match "
                        f"{expected_name}, got {actual_tree} and {expected_tree}.")


def _check_shapes(func_name, leaves, b_avals):
    actual = [tuple(np.shape(x)) for x in leaves]
    expected = [a.shape for a in b_avals]
    if actual != expected:
        raise ValueError(f"{func_name}() output shapes must match b, got "
                         f"{actual} and {expected}")


def _first_of_pair(out):
    """``out[0]`` of a pair, else ``out`` (the tree check then fails)."""
    try:
        y, _ = out
    except (TypeError, ValueError):
        return out
    return y


def _trace(fun, name, b_tree, b_avals, has_aux=False):
    """(closed jaxpr, consts, output tree) of ``fun`` on the right-hand
    side's type, its outputs checked against it."""
    def checked(x):
        out = fun(x)
        # As JAX: leaf shapes first (after unpacking ``(x, aux)``), then trees.
        y = _first_of_pair(out) if has_aux else out
        _check_shapes(name, tree_util.tree_leaves(y), b_avals)
        _check_tree(name, "b", tree_util.tree_structure(out), b_tree, has_aux)
        return out
    return _trace_hoisted(checked, b_tree_of(b_tree), b_avals, name)


def _trace_hoisted(fun, in_tree, avals, name):
    """``common.trace_to_jaxpr`` with every constant made an operand: the
    jaxpr's constants become leading inputs, passed before the traced
    values it closes over (as JAX's jaxprs show them)."""
    closed, consts, out_tree = common.trace_to_jaxpr(fun, in_tree, avals, name)
    jaxpr = closed.jaxpr
    if not jaxpr.constvars:
        return closed, consts, out_tree
    hoisted = core.ClosedJaxpr(
        jaxpr.replace(constvars=[], invars=list(jaxpr.constvars) + list(jaxpr.invars)), [])
    return hoisted, list(closed.consts) + list(consts), out_tree


def b_tree_of(b_tree):
    """The tree of the single argument ``(b,)`` functions are traced on."""
    return tree_util.tree_structure((tree_util.tree_unflatten(b_tree, [0] * b_tree.num_leaves),))


def _transpose_of(matvec_closed, n_consts, b_avals):
    """The jaxpr of ``vecmat``: ``matvec`` transposed in its vector leaves."""
    linear = (False,) * n_consts + (True,) * len(b_avals)
    return ad.transpose_jaxpr(matvec_closed, linear, (True,) * len(b_avals))


def custom_linear_solve(matvec, b, solve, transpose_solve=None, symmetric=False,
                        has_aux=False):
    """``solve(matvec, b)``, differentiated as the solution of
    ``matvec(x) == b``: tangents and cotangents are further solves with
    ``solve`` and ``transpose_solve`` (``solve`` again when ``symmetric``).
    ``has_aux``: the solvers return ``(x, aux)``, ``aux`` not differentiated
    (SPEC LXM-11, LXM-12)."""
    if transpose_solve is None and symmetric:
        transpose_solve = solve
    b_leaves, b_tree = tree_util.tree_flatten(b)
    b_avals = [core.get_aval(x) for x in b_leaves]
    matvec_jaxpr, matvec_consts, _ = _trace(matvec, "matvec", b_tree, b_avals)
    solve_jaxpr, solve_consts, solve_tree = _trace(functools.partial(solve, matvec), "solve",
                                       b_tree, b_avals, has_aux)
    vecmat_jaxpr = tr_jaxpr = None
    vecmat_consts = tr_consts = []
    if transpose_solve is not None:
        if symmetric:
            vecmat_jaxpr, vecmat_consts = matvec_jaxpr, matvec_consts
        else:
            vecmat_jaxpr = _transpose_of(matvec_jaxpr, len(matvec_consts), b_avals)
            vecmat_consts = matvec_consts
        vecmat = functools.partial(_call_flat, vecmat_jaxpr, vecmat_consts, b_tree)
        tr_jaxpr, tr_consts, _ = _trace(functools.partial(transpose_solve, vecmat),
                                     "transpose_solve", b_tree, b_avals, has_aux)
    consts = [matvec_consts, vecmat_consts, solve_consts, tr_consts]
    const_lengths = _LinearSolveTuple(*map(len, consts))
    jaxprs = _LinearSolveTuple(matvec_jaxpr, vecmat_jaxpr, solve_jaxpr, tr_jaxpr)
    outs = linear_solve_p.bind(*[c for cs in consts for c in cs], *b_leaves,
                               const_lengths=const_lengths, jaxprs=jaxprs)
    x = tree_util.tree_unflatten(b_tree, outs[:len(b_leaves)])
    if not has_aux:
        return x
    aux_tree = tree_util.treedef_children(solve_tree)[1]
    return x, tree_util.tree_unflatten(aux_tree, outs[len(b_leaves):])


def _call_flat(closed, consts, b_tree, x):
    """A closed jaxpr taking (consts, leaves of ``x``) as a function of ``x``."""
    outs = core.eval_jaxpr(closed.jaxpr, closed.consts, *consts, *tree_util.tree_leaves(x))
    return tree_util.tree_unflatten(b_tree, outs)


# ---------------------------------------------------------------------------
# The primitive (SPEC LXM-12)
# ---------------------------------------------------------------------------

linear_solve_p = Primitive("custom_linear_solve", multiple_results=True)


@linear_solve_p.def_abstract_eval
def _linear_solve_abstract_eval(*avals, const_lengths, jaxprs):
    """The right-hand side's types, then ``solve``'s auxiliary outputs."""
    b_avals = list(avals[sum(const_lengths):])
    n_aux = len(jaxprs.solve.out_avals) - len(jaxprs.matvec.out_avals)
    return b_avals + list(jaxprs.solve.out_avals[len(b_avals):][:n_aux])


@linear_solve_p.def_impl
def _linear_solve_impl(*args, const_lengths, jaxprs):
    params, b = _split(args, const_lengths)
    return executable_for(jaxprs.solve)(*params.solve, *b)


def _linear_solve_jvp(primals, tangents, *, const_lengths, jaxprs):
    """x' solves A x' = b' - A' x, with A' the tangent of ``matvec`` in its
    constants; auxiliary outputs get zero tangents."""
    params = dict(const_lengths=const_lengths, jaxprs=jaxprs)
    x = linear_solve_p.bind(*primals, **params)
    consts, _ = _split(primals, const_lengths)
    consts_dot, b_dot = _split(tangents, const_lengths)
    n_b = len(b_dot)
    b_dot = [ad.instantiate_zeros(t) if type(t) is not ad.Zero
             else ad.zeros_like_aval(t.aval) for t in b_dot]
    if any(type(t) is not ad.Zero for t in consts_dot.matvec):
        a_dot_x = _matvec_tangent(jaxprs.matvec, consts.matvec, consts_dot.matvec, x[:n_b])
        b_dot = [ad.add_tangents(t, lax.neg(m)) for t, m in zip(b_dot, a_dot_x)]
    flat_consts = [c for cs in consts for c in cs]
    x_dot = linear_solve_p.bind(*flat_consts, *b_dot, **params)
    aux_zero = [ad.Zero.from_primal_value(a) for a in x[n_b:]]
    return x, list(x_dot[:n_b]) + aux_zero


def _matvec_tangent(matvec, consts, consts_dot, x):
    """``A' x``: the JVP of ``matvec`` in its constants at the point ``x``."""
    nonzeros = [type(t) is not ad.Zero for t in consts_dot] + [False] * len(x)
    jvp_closed, out_nz = ad.jvp_jaxpr(matvec, nonzeros)
    outs = core.eval_jaxpr(jvp_closed.jaxpr, jvp_closed.consts, *consts, *x,
                           *[t for t in consts_dot if type(t) is not ad.Zero])
    tangents = iter(outs[len(x):])
    return [next(tangents) if nz else ad.zeros_like_aval(a)
            for nz, a in zip(out_nz, matvec.out_avals)]


def _linear_solve_transpose(cts, *args, const_lengths, jaxprs):
    """The cotangent of b solves A^T y = ct with ``transpose_solve``."""
    if jaxprs.transpose_solve is None:
        raise TypeError("transpose_solve required for backwards mode automatic "
                        "differentiation of custom_linear_solve")
    consts, b = _split(args, const_lengths)
    if any(ad.is_undefined_primal(c) for cs in consts for c in cs):
        raise NotImplementedError(
            "custom_linear_solve is not linear in the constants of its functions")
    cts_b = [ad.instantiate_zeros(c) if type(c) is not ad.Zero
             else ad.zeros_like_aval(c.aval) for c in cts[:len(b)]]
    t_consts = consts.transpose()
    outs = linear_solve_p.bind(*[c for cs in t_consts for c in cs], *cts_b,
                               const_lengths=const_lengths.transpose(),
                               jaxprs=jaxprs.transpose())
    return [None] * sum(const_lengths) + [
        o if ad.is_undefined_primal(x) else None for o, x in zip(outs[:len(b)], b)]


class _JaxprsParam:
    """Prints the ``jaxprs`` parameter on one line, each jaxpr in full, as
    JAX's jaxprs show it (SPEC LXM-12)."""

    def __init__(self, jaxprs):
        self.jaxprs = jaxprs

    def __str__(self):
        parts = ", ".join(f"{k}={v}" for k, v in zip(self.jaxprs._fields, self.jaxprs))
        return f"_LinearSolveTuple({parts})"


linear_solve_p.pp_params = lambda params: dict(params, jaxprs=_JaxprsParam(params["jaxprs"]))
linear_solve_p.jvp = _linear_solve_jvp
linear_solve_p.transpose = _linear_solve_transpose


def _linear_solve_batch(axis_data, vals, dims, *, const_lengths, jaxprs):
    """Every operand moved to (or broadcast along) axis 0, except constants
    that are not batched; each jaxpr batched accordingly, all its outputs
    batched (SPEC LXM-12)."""
    n_const = sum(const_lengths)
    bat = [d is not batching.not_mapped for d in dims]
    vals = [batching.bdim_at_front(v, d, axis_data.size) if (b or i >= n_const) else v
            for i, (v, d, b) in enumerate(zip(vals, dims, bat))]
    consts_bat, _ = _split(bat, const_lengths)
    n_b = len(vals) - n_const
    new = [None if j is None else
           batching.batch_jaxpr(j, axis_data, list(cb) + [True] * n_b, True)[0]
           for j, cb in zip(jaxprs, consts_bat)]
    outs = linear_solve_p.bind(*vals, const_lengths=const_lengths,
                               jaxprs=_LinearSolveTuple(*new))
    return outs, [0] * len(outs)


linear_solve_p.batch = _linear_solve_batch


# ---------------------------------------------------------------------------
# custom_root (SPEC LXM-13)
# ---------------------------------------------------------------------------

class _RootTuple(NamedTuple):
    f: Any
    solve: Any
    l_and_s: Any


def custom_root(f, initial_guess, solve, tangent_solve, has_aux=False):
    """``solve(f, initial_guess)``, differentiated by the implicit function
    theorem at the root x*: x*' = -(∂f/∂x)⁻¹ (∂f/∂θ) θ', the inverse applied
    by ``tangent_solve(g, y)`` with g the linearization of ``f`` at x*.
    Derivatives flow to the values ``f`` closes over (SPEC LXM-13)."""
    guess, tree = tree_util.tree_flatten(initial_guess)
    avals = [core.get_aval(x) for x in guess]
    arg_tree = b_tree_of(tree)
    f_jaxpr, f_consts, f_tree = _trace_hoisted(f, arg_tree, avals, "custom_root")
    _check_tree("f", "initial_guess", f_tree, tree, False)
    solve_jaxpr, solve_consts, solve_tree = _trace_hoisted(
        functools.partial(solve, f), arg_tree, avals, "custom_root solve")
    _check_tree("solve", "initial_guess", solve_tree, tree, has_aux)

    def linearize_and_solve(x, b):
        return tangent_solve(_linear_map(f, x), b)

    pair_tree = tree_util.tree_structure((initial_guess, initial_guess))
    ls_jaxpr, ls_consts, ls_tree = _trace_hoisted(
        linearize_and_solve, pair_tree, avals + avals, "custom_root tangent_solve")
    _check_tree("tangent_solve", "x", ls_tree, tree, False)
    consts = [f_consts, solve_consts, ls_consts]
    out = _custom_root(_RootTuple(*map(len, consts)),
                       _RootTuple(f_jaxpr, solve_jaxpr, ls_jaxpr),
                       *[c for cs in consts for c in cs], *guess)
    return tree_util.tree_unflatten(solve_tree, out)


def _linear_map(f, x):
    """``t -> f'(x) t``: the linearization of ``f`` at ``x`` (pytrees)."""
    x_leaves, x_tree = tree_util.tree_flatten(x)

    def g(t):
        def flat(*xs):
            return tree_util.tree_leaves(f(tree_util.tree_unflatten(x_tree, xs)))
        t_leaves = [ad.instantiate_zeros(v) for v in tree_util.tree_leaves(t)]
        _, out = ad.jvp_flat(flat, x_leaves, t_leaves)
        out = [ad.instantiate_zeros(o) if type(o) is not ad.Zero
               else ad.zeros_like_aval(o.aval) for o in out]
        return tree_util.tree_unflatten(x_tree, out)
    return g


def _split_root(args, const_lengths):
    out, i = [], 0
    for n in const_lengths:
        out.append(list(args[i:i + n]))
        i += n
    return _RootTuple(*out), list(args[i:])


def _custom_root_fun(const_lengths, jaxprs, *args):
    consts, guess = _split_root(args, const_lengths)
    return core.eval_jaxpr(jaxprs.solve.jaxpr, jaxprs.solve.consts, *consts.solve, *guess)


_custom_root_fun.__name__ = "_custom_root"
_custom_root = custom_jvp(_custom_root_fun, nondiff_argnums=(0, 1))


def _root_jvp(const_lengths, jaxprs, primals, tangents):
    """x*' = -tangent_solve(f'(x*), ∂f/∂θ θ') (the implicit function theorem)."""
    consts, _ = _split_root(primals, const_lengths)
    consts_dot, _ = _split_root(tangents, const_lengths)
    sol = _custom_root(const_lengths, jaxprs, *primals)
    n = len(jaxprs.f.out_avals)
    solution, aux = list(sol[:n]), list(sol[n:])
    f = jaxprs.f

    def f_at_solution(*fc):
        return core.eval_jaxpr(f.jaxpr, f.consts, *fc, *solution)
    _, rhs = ad.jvp_flat(f_at_solution, consts.f, consts_dot.f)
    rhs = [ad.instantiate_zeros(r) if type(r) is not ad.Zero
           else ad.zeros_like_aval(r.aval) for r in rhs]
    ls = jaxprs.l_and_s
    sol_dot = core.eval_jaxpr(ls.jaxpr, ls.consts, *consts.l_and_s, *solution, *rhs)
    sol_dot = [lax.neg(t) for t in sol_dot]
    return solution + aux, sol_dot + [ad.zeros_like(a) for a in aux]


_root_jvp.__name__ = "_root_jvp"
_custom_root.defjvp(_root_jvp)
