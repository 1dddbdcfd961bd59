"""The autodiff API: ``jvp``, ``linearize``, ``vjp``, ``grad`` and friends.

Each function flattens its pytree arguments, runs the machinery of
:mod:`refjax._src.interpreters.ad` on flat lists, and rebuilds the pytrees; this module
is where JAX's argument checks and error messages live (SPEC AD-50..AD-60).
"""
import functools

import numpy as np

from refjax._src import api, core, dtypes, literals, tree_util
from refjax._src.interpreters import ad
from refjax._src.interpreters import partial_eval as pe
from refjax._src.interpreters.ad import Zero, float0
from refjax._src.lax import lax
from refjax._src.lax import shapes as lax_shapes
from refjax._src.vmap_api import vmap

# ---------------------------------------------------------------------------
# Flattening functions of pytrees
# ---------------------------------------------------------------------------

def _flat_fun(fun, in_tree, has_aux=False):
    """``fun`` as a function of flat leaves; the output tree (and the aux
    value) land in the returned ``store`` once it has run."""
    store = {}

    def flat(*leaves):
        out = fun(*tree_util.tree_unflatten(in_tree, leaves))
        if has_aux:
            out, aux = _split_aux(out)
            store["aux"] = aux
        out_leaves, store["out_tree"] = tree_util.tree_flatten(out)
        for leaf in out_leaves:
            _check_output_type(leaf)
        return out_leaves

    return flat, store


def _split_aux(out):
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise TypeError("expected function with aux output to return a two-element "
                        f"tuple, but got type {type(out)} with value {out!r}")
    return out


def _check_output_type(leaf):
    if isinstance(leaf, (core.Tracer, np.ndarray, np.generic, *core._SCALAR_TYPES)) or \
            hasattr(leaf, "_value"):
        return
    raise TypeError(f"Value {leaf!r} of type {type(leaf)} is not a valid JAX type")


def _unwrap_aux(aux):
    """Aux values leave the transformation as their primal values."""
    def strip(x):
        while isinstance(x, ad.JVPTracer) and not x._trace.is_valid:
            x = x.primal
        return x
    return tree_util.tree_map(strip, aux)


def _check_args(leaves):
    for x in leaves:
        try:
            core.get_aval(x)
        except TypeError:
            raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid "
                            "JAX type.") from None


# ---------------------------------------------------------------------------
# jvp and linearize
# ---------------------------------------------------------------------------

def jvp(fun, primals, tangents, has_aux=False):
    """``(fun(*primals), d fun(primals) . tangents)`` (SPEC AD-50).

    ``primals`` and ``tangents`` are tuples or lists of the same pytree
    structure; each tangent has its primal's shape and dtype (``float0``
    for integer primals)."""
    _check_callable(fun)    # before the arguments, as JAX (FUZZ-3)
    p_leaves, t_leaves, in_tree = _check_jvp_args(primals, tangents)
    flat, store = _flat_fun(fun, in_tree, has_aux)
    t_in = [Zero(ad.tangent_aval(core.get_aval(p))) if _is_float0(t) else t
            for p, t in zip(p_leaves, t_leaves)]
    outs, touts = ad.jvp_flat(flat, p_leaves, t_in)
    touts = [ad.instantiate_zeros(t) for t in touts]
    out_tree = store["out_tree"]
    result = (tree_util.tree_unflatten(out_tree, outs),
              tree_util.tree_unflatten(out_tree, touts))
    if has_aux:
        return result + (_unwrap_aux(store["aux"]),)
    return result


def _is_float0(x):
    return getattr(x, "dtype", None) == float0


def _check_jvp_args(primals, tangents):
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("primal and tangent arguments to jax.jvp must be tuples "
                        f"or lists; found {type(primals).__name__} and "
                        f"{type(tangents).__name__}.")
    p_tree, t_tree = tree_util.tree_structure(primals), tree_util.tree_structure(tangents)
    if p_tree != t_tree:
        raise TypeError("primal and tangent arguments to jax.jvp must have the "
                        f"same tree structure; primals have tree structure {p_tree} "
                        f"whereas tangents have tree structure {t_tree}.")
    p_leaves, p_tree = tree_util.tree_flatten(tuple(primals))
    t_leaves = tree_util.tree_leaves(tuple(tangents))
    _check_args(p_leaves)
    for p, t in zip(p_leaves, t_leaves):
        pa = core.get_aval(p)
        ta = _tangent_dtype(t)
        expected = ad.tangent_dtype(pa.dtype)
        if ta != expected:
            raise TypeError(
                "primal and tangent arguments to jax.jvp do not match; dtypes "
                "must be equal, or in case of int/bool primal dtype the tangent "
                "dtype must be float0.Got primal dtype "
                f"{_dtype_str(pa.dtype)} and so expected tangent dtype "
                f"{_dtype_str(expected)}, but got tangent dtype "
                f"{_dtype_str(ta)} instead.")
        if np.shape(t) != pa.shape:
            raise ValueError("jvp called with different primal and tangent shapes;"
                             f"Got primal shape {pa.shape} and tangent shape as "
                             f"{np.shape(t)}")
    return p_leaves, t_leaves, p_tree


def _tangent_dtype(t):
    """A tangent's dtype for the check against its primal's.  A Python
    scalar's is its type's default (int32 for any int): a huge int tangent
    is a dtype mismatch, not an overflow, as in JAX (AD-50)."""
    if _is_float0(t):
        return np.dtype(float0)
    if type(t) in core._SCALAR_TYPES:
        return dtypes.dtype_and_weak_type(t)[0]
    return core.get_aval(t).dtype


def _dtype_str(dtype):
    return str(np.dtype(dtype))


def linearize(fun, *primals, has_aux=False):
    """``(fun(*primals), f_jvp)``: ``f_jvp(*tangents)`` evaluates the linear
    map staged once, so it can be called many times (SPEC AD-53)."""
    p_leaves, in_tree = tree_util.tree_flatten(primals)
    _check_args(p_leaves)
    flat, store = _flat_fun(fun, in_tree, has_aux)
    outs, lin = _linearize(flat, p_leaves, has_aux, store)
    out_tree = store["out_tree"]
    # The residuals are the Partial's leaves, as in JAX: f_jvp can leave a
    # jit as a pytree of arrays, and a trace of it shows them (AD-102).
    residuals, j = list(lin.closed.consts), lin.closed.jaxpr
    lin.closed = core.ClosedJaxpr(j.replace(constvars=[], invars=[*j.constvars, *j.invars]), [])
    f_jvp = tree_util.Partial(functools.partial(_apply_linear_res, lin, in_tree, out_tree,
                                                len(residuals)), *residuals)
    result = (tree_util.tree_unflatten(out_tree, outs), f_jvp)
    if has_aux:
        return result + (store["aux"],)
    return result


class _Linear:
    """A linearized function: its jaxpr and which inputs/outputs it has."""

    def __init__(self, closed, in_avals, in_linear, out_avals, out_zero):
        self.closed = closed
        self.in_avals = in_avals
        self.in_linear = in_linear
        self.out_avals = out_avals
        self.out_zero = out_zero


def _linearize(flat, p_leaves, has_aux, store):
    outs, closed, in_linear, out_zero = ad.linearize_flat(flat, p_leaves)
    if has_aux:
        store["aux"] = _unwrap_aux(store["aux"])
    lin = _Linear(closed, [core.get_aval(p) for p in p_leaves], in_linear,
                  [core.get_aval(o) for o in outs], out_zero)
    return outs, lin


def _apply_linear_res(lin, in_tree, out_tree, n_res, *args):
    return _apply_linear(lin, in_tree, out_tree, *args[n_res:], residuals=args[:n_res])


def _apply_linear(lin, in_tree, out_tree, *tangents, residuals=()):
    t_leaves, t_tree = tree_util.tree_flatten(tangents)
    if t_tree != in_tree:
        raise ValueError("linearized function called on tangent values "
                         f"inconsistent with the original primal values: got "
                         f"tangent structure {t_tree} for primal structure {in_tree}")
    for t, a in zip(t_leaves, lin.in_avals):
        got, want = core.get_aval(t), ad.tangent_aval(a)
        if (got.shape, got.dtype) != (want.shape, want.dtype):
            # A tangent has the primal's tangent type: float0 for integers (AD-96).
            raise ValueError("linearized function called on tangent values "
                             "inconsistent with the original primal values:\nGot "
                             f"tangent aval {got.str_short()} for primal aval "
                             f"{a.str_short()} but expected {want.str_short()}.")
    args = [t for t, lin_in in zip(t_leaves, lin.in_linear) if lin_in]
    nonzero = iter(eval_closed(lin.closed, [*residuals, *args]))
    outs = [ad.zeros_like_aval(ad.tangent_aval(a)) if z else next(nonzero)
            for a, z in zip(lin.out_avals, lin.out_zero)]
    return tree_util.tree_unflatten(out_tree, outs)


def eval_closed(closed, args):
    """Run a closed jaxpr: compiled when eager, bound equation by equation
    under a transformation."""
    if core.current_trace() is core.eval_trace:
        from refjax._src.compiler import executable_for
        outs = executable_for(closed)(*[core.to_buffer(a) for a in args])
        return [core.wrap_buffer(b, v.aval) for b, v in zip(outs, closed.jaxpr.outvars)]
    return core.eval_jaxpr(closed.jaxpr, closed.consts, *args)


# ---------------------------------------------------------------------------
# vjp
# ---------------------------------------------------------------------------

def vjp(fun, *primals, has_aux=False, reduce_axes=()):
    """``(fun(*primals), f_vjp)``: ``f_vjp(ct)`` pulls an output cotangent
    back to one cotangent per primal, by transposing the linearized
    function (SPEC AD-54)."""
    if reduce_axes:
        raise NotImplementedError("reduce_axes argument to vjp is deprecated")
    p_leaves, in_tree = tree_util.tree_flatten(primals)
    _check_args(p_leaves)
    p_leaves = [_canonical_numpy(x) for x in p_leaves]
    flat, store = _flat_fun(fun, in_tree, has_aux)
    outs, lin = _linearize(flat, p_leaves, has_aux, store)
    out_tree = store["out_tree"]
    # The residuals are the Partial's leaves, so that f_vjp can leave a jit
    # or cross a transformation as a pytree of arrays (AD-54).
    residuals = list(lin.closed.consts)
    lin.closed = core.ClosedJaxpr(lin.closed.jaxpr, [])
    f_vjp = tree_util.Partial(functools.partial(
        _apply_with_residuals, lin, in_tree, out_tree, getattr(fun, "__name__", "fun"),
        core.fun_source_info(fun), len(residuals)), *residuals)
    result = (tree_util.tree_unflatten(out_tree, outs), f_vjp)
    if has_aux:
        return result + (store["aux"],)
    return result


def _canonical_numpy(x):
    """A NumPy primal of ``vjp`` in its canonical dtype, as JAX converts it:
    with x64 off ``vjp(lambda x: x, np.ones(3))[0]`` is float32 (AD-54)."""
    if isinstance(x, (np.ndarray, np.generic)):
        return np.asarray(x, dtypes.canonicalize_dtype(x.dtype))
    typed = literals.TYPED.get(type(x))
    if typed is not None:   # the type fixed now, x64 or not later (AD-104)
        return typed(x, core.get_aval(x).dtype)
    return x


def _apply_with_residuals(lin, in_tree, out_tree, name, src, n_res, *args):
    res, args = args[:n_res], args[n_res:]
    with_res = _Linear(core.ClosedJaxpr(lin.closed.jaxpr, list(res)), lin.in_avals,
                       lin.in_linear, lin.out_avals, lin.out_zero)
    return _apply_transpose(with_res, in_tree, out_tree, name, src, *args)


def _apply_transpose(lin, in_tree, out_tree, name, src, *args):
    if len(args) != 1:
        # One cotangent, shaped like the whole output, even a tuple (AD-90).
        raise TypeError(
            f"The function returned by `jax.vjp` applied to {name} was called with "
            f"{len(args)} arguments, but it takes exactly one: the cotangent of "
            f"{name}'s whole output. If {name} returns a tuple, pass one tuple: "
            "`f_vjp((ct1, ct2))`, not `f_vjp(ct1, ct2)`.")
    ct, = args
    ct_leaves, ct_tree = tree_util.tree_flatten(ct)
    if ct_tree != out_tree:
        raise ValueError(
            "unexpected tree structure.\n\nThe argument to a VJP function "
            "returned by `jax.vjp` must match the pytree\nstructure of the "
            f"differentiated function {src}.\n\nBut the tree structures "
            f"differ: got {ct_tree}, expected {out_tree}.")
    cts = []
    for c, a, z in zip(ct_leaves, lin.out_avals, lin.out_zero):
        _check_cotangent(c, a)
        if not z:
            cts.append(Zero(ad.tangent_aval(a)) if _is_float0(c) else c)
    cts_in = backward_closed(lin.closed, [True] * len(lin.closed.jaxpr.invars), cts)
    it = iter(cts_in)
    out = [ad.instantiate_zeros(next(it)) if is_lin
           else ad.zeros_like_aval(ad.tangent_aval(a))
           for a, is_lin in zip(lin.in_avals, lin.in_linear)]
    return tree_util.tree_unflatten(in_tree, out)



def _check_cotangent(ct, aval):
    expected = ad.tangent_aval(aval)
    got = np.dtype(float0) if _is_float0(ct) else None
    got_aval = core.get_aval(ct) if got is None else core.ShapedArray(np.shape(ct), got)
    same_dtype = got_aval.dtype == expected.dtype or expected.dtype == float0
    if got_aval.shape != expected.shape or not same_dtype:
        raise ValueError(
            "unexpected JAX type (e.g. shape/dtype) for argument to VJP function: "
            f"got {got_aval.str_short()}, but expected {expected.str_short()} because "
            "the corresponding output of the differentiated function had JAX "
            f"type {aval.strip_weak_type().str_short()}")


def backward_closed(closed, linear, cts):
    """Transpose a closed linear jaxpr all of whose inputs are linear."""
    args = [ad.UndefinedPrimal(v.aval) for v in closed.jaxpr.invars]
    return ad.backward_pass(closed.jaxpr, closed.consts, args, cts)


# ---------------------------------------------------------------------------
# grad and value_and_grad
# ---------------------------------------------------------------------------

def grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False,
         reduce_axes=()):
    """The gradient of scalar ``fun`` with respect to ``argnums`` (SPEC AD-56)."""
    vg = value_and_grad(fun, argnums, has_aux=has_aux, holomorphic=holomorphic,
                        allow_int=allow_int, reduce_axes=reduce_axes)

    @functools.wraps(fun)
    def grad_f(*args, **kwargs):
        if has_aux:
            (_, aux), g = vg(*args, **kwargs)
            return g, aux
        return vg(*args, **kwargs)[1]

    return grad_f


def value_and_grad(fun, argnums=0, has_aux=False, holomorphic=False,
                   allow_int=False, reduce_axes=()):
    """``(fun(*args), grad(fun)(*args))`` in one pass (SPEC AD-56)."""
    _check_callable(fun)
    argnums_t = _argnums_tuple(argnums)

    @functools.wraps(fun)
    def value_and_grad_f(*args, **kwargs):
        dyn = _dynamic_args(args, argnums_t)
        partial_fun = _bind_static(fun, args, kwargs, argnums_t)
        _check_args(tree_util.tree_leaves(dyn))
        for leaf in tree_util.tree_leaves(dyn):
            _check_input_dtype_grad("grad", holomorphic, allow_int, leaf)
        if has_aux:
            ans, f_vjp, aux = vjp(partial_fun, *dyn, has_aux=True)
        else:
            ans, f_vjp = vjp(partial_fun, *dyn)
        _check_scalar(ans)
        _check_output_dtype("grad", holomorphic, ans)
        g = f_vjp(_ones_like(ans))
        g = g[0] if isinstance(argnums, (int, np.integer)) else g
        return ((ans, aux), g) if has_aux else (ans, g)

    return value_and_grad_f


_check_callable = core.check_callable


def _argnums_tuple(argnums):
    """``argnums`` as a tuple: an int (a bool or NumPy integer counts, as in
    JAX) or a sequence of them (SPEC AD-89)."""
    if isinstance(argnums, (int, np.integer)):
        return (int(argnums),)
    if isinstance(argnums, (tuple, list)) and all(
            isinstance(a, (int, np.integer)) for a in argnums):
        return tuple(int(a) for a in argnums)
    raise TypeError("argnums must be an int or a tuple of ints, got "
                    f"{argnums!r}")


def _dynamic_args(args, argnums, too_few=TypeError):
    """The positional arguments ``argnums`` name (SPEC AD-89).

    As in JAX, an index past the end raises ``too_few`` (``TypeError`` from
    ``grad``, ``ValueError`` from the Jacobians), one below ``-len(args)``
    ``ValueError``, and so does an empty ``argnums``.  Naming one argument
    twice (``(0, 0)``, or ``(0, -2)`` of two) raises ``TypeError``: JAX then
    passes None for the repeat and fails, or returns junk, in the function.
    """
    n = len(args)
    if not argnums:
        raise ValueError("argnums must name at least one positional argument to "
                         "differentiate with respect to; got an empty sequence.")
    if too_few is TypeError and max(argnums) >= n:
        shown = argnums[0] if len(argnums) == 1 else argnums
        raise TypeError(
            f"differentiating with respect to argnums={shown} "
            f"requires at least {max(argnums) + 1} positional arguments to be "
            f"passed by the caller, but got only {n} positional arguments.")
    for i in argnums:
        if not -n <= i < n:
            raise ValueError(
                "Positional argument indices, e.g. for `argnums`, must have value "
                "greater than or equal to -len(args) and less than len(args), but "
                f"got value {i} for len(args) == {n}.")
    positions = [i % n for i in argnums]
    if len(set(positions)) != len(positions):
        raise TypeError(
            f"argnums={tuple(argnums)} names the same positional argument more "
            f"than once (of {n} arguments); list each argument to differentiate "
            "with respect to once.")
    return tuple(args[i] for i in argnums)


def _bind_static(fun, args, kwargs, argnums):
    """``fun`` as a function of the arguments in ``argnums`` only."""
    positions = [i % len(args) for i in argnums]

    def partial_fun(*dyn):
        full = list(args)
        for i, x in zip(positions, dyn):
            full[i] = x
        return fun(*full, **kwargs)

    return partial_fun


def _ones_like(x):
    return lax.full_like(x, 1)


def _check_input_dtype_grad(name, holomorphic, allow_int, x):
    dt = core.get_aval(x).dtype
    if holomorphic and not dtypes.issubdtype(dt, np.complexfloating):
        raise TypeError(f"{name} with holomorphic=True requires inputs with "
                        f"complex dtype, but got {dt.name}.")
    if not dtypes.issubdtype(dt, np.inexact) and not allow_int:
        raise TypeError(
            f"{name} requires real- or complex-valued inputs (input dtype that is "
            f"a sub-dtype of np.inexact), but got {dt.name}. If you want to use "
            "Boolean- or integer-valued inputs, use vjp or set allow_int to True.")


def _check_output_dtype(name, holomorphic, x):
    dt = core.get_aval(x).dtype
    if holomorphic:
        if not dtypes.issubdtype(dt, np.complexfloating):
            raise TypeError(f"{name} with holomorphic=True requires outputs with "
                            f"complex dtype, but got {dt.name}.")
    elif dtypes.issubdtype(dt, np.complexfloating):
        raise TypeError(
            f"{name} requires real-valued outputs (output dtype that is a sub-dtype "
            f"of np.floating), but got {dt.name}. For holomorphic differentiation, "
            "pass holomorphic=True. For differentiation of non-holomorphic functions "
            "involving complex outputs, use jax.vjp directly.")
    elif not dtypes.issubdtype(dt, np.floating):
        raise TypeError(
            f"{name} requires real-valued outputs (output dtype that is a sub-dtype "
            f"of np.floating), but got {dt.name}. For differentiation of functions "
            "with integer outputs, use jax.vjp directly.")


def _check_scalar(x):
    msg = "Gradient only defined for scalar-output functions. Output {}."
    try:
        aval = core.get_aval(x)
    except TypeError:
        raise TypeError(msg.format(f"was {x}")) from None
    if aval.shape:
        raise TypeError(msg.format(f"had shape: {aval.shape}"))


# ---------------------------------------------------------------------------
# Jacobians and Hessians
# ---------------------------------------------------------------------------

def jacfwd(fun, argnums=0, has_aux=False, holomorphic=False):
    """The Jacobian by forward mode: the JVP ``vmap``-ped over the standard
    basis of the inputs (SPEC AD-62, VMAP-47).  Result leaves have shape
    ``out.shape + in.shape``."""
    _check_callable(fun)
    argnums_t = _argnums_tuple(argnums)

    @functools.wraps(fun)       # the signature jit's static_argnames read (AD-62)
    def jacfun(*args, **kwargs):
        dyn, partial_fun, in_leaves, in_tree = _differentiated_args(
            fun, args, kwargs, argnums_t, lambda x: _check_input_dtype_fwd(holomorphic, x))
        _check_some_leaves(in_leaves, "jacfwd", "differentiated arguments")
        basis = tree_util.tree_unflatten(in_tree, _std_basis(in_leaves))

        def pushfwd(tangents):
            res = jvp(partial_fun, dyn, tangents, has_aux=has_aux)
            return (res[0], res[1], res[2]) if has_aux else (res[0], res[1], None)

        out, tan, aux = vmap(pushfwd, out_axes=(None, -1, None),
                             axis_size=_total_size(in_leaves))(basis)
        out_leaves, out_tree = tree_util.tree_flatten(out)
        jac = [_split_basis_axis(t, -1, in_leaves, core.get_aval(o).dtype)
               for t, o in zip(tree_util.tree_leaves(tan), out_leaves)]
        # A NumPy integer counts as one index here, not in jacrev, as in JAX.
        single = isinstance(argnums, (int, np.integer))
        jac = _to_argnums_structure(jac, out_tree, in_tree, single)
        return (jac, aux) if has_aux else jac

    return jacfun


def jacrev(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False):
    """The Jacobian by reverse mode: the VJP ``vmap``-ped over the standard
    basis of the outputs (SPEC AD-62, VMAP-47)."""
    _check_callable(fun)
    argnums_t = _argnums_tuple(argnums)

    @functools.wraps(fun)       # the signature jit's static_argnames read (AD-62)
    def jacfun(*args, **kwargs):
        dyn, partial_fun, in_leaves, in_tree = _differentiated_args(
            fun, args, kwargs, argnums_t,
            lambda x: _check_input_dtype_grad("jacrev", holomorphic, allow_int, x))
        res = vjp(partial_fun, *dyn, has_aux=has_aux)
        out, f_vjp = res[0], res[1]
        tree_util.tree_map(lambda o: _check_output_dtype("jacrev", holomorphic, o), out)
        out_leaves, out_tree = tree_util.tree_flatten(out)
        # Checked once the function has run, as in JAX (AD-92).
        _check_some_leaves(out_leaves, "jacrev", "function's outputs")
        _check_some_leaves(in_leaves, "jacrev", "differentiated arguments")
        inexact = [ad.tangent_dtype(core.get_aval(x).dtype) != float0 for x in in_leaves]

        def pullback(ct):
            cts = tree_util.tree_leaves(f_vjp(ct))
            return [c for c, keep in zip(cts, inexact) if keep]

        basis = tree_util.tree_unflatten(out_tree, _std_basis(out_leaves))
        rows = vmap(pullback, axis_size=_total_size(out_leaves))(basis)
        jac = [[] for _ in out_leaves]
        rows = iter(rows)
        for x, keep in zip(in_leaves, inexact):
            blocks = (_split_basis_axis(next(rows), 0, out_leaves, None) if keep
                      else [np.zeros(o.shape + np.shape(x), float0) for o in out_leaves])
            for row, block in zip(jac, blocks):
                row.append(block)
        jac = _to_argnums_structure(jac, out_tree, in_tree, isinstance(argnums, int))
        return (jac, res[2]) if has_aux else jac

    return jacfun


def _check_some_leaves(leaves, api, what):
    """A Jacobian needs an array to build its basis from: jacfwd among the
    inputs, jacrev among the inputs and the outputs (SPEC AD-62).  An empty
    pytree (None, ``()``) there raises ``ValueError``, as in JAX."""
    if not leaves:
        raise ValueError(f"{api} needs at least one array among the {what}, but "
                         "they hold none (an empty pytree such as None or ()).")


def _total_size(leaves):
    return sum(core.get_aval(x).size for x in leaves)


def _std_basis(leaves):
    """The rows of an identity matrix over every element of ``leaves``, as
    one stacked array per leaf: leaf ``i`` gets shape ``(N,) + shape_i``."""
    from refjax._src.numpy import creation as nc
    avals = [core.get_aval(x) for x in leaves]
    n = _total_size(leaves)
    eye = np.eye(n)
    out, start = [], 0
    for a in avals:
        part = eye[:, start:start + a.size].reshape((n,) + a.shape)
        # A weakly typed input gets weakly typed tangents (and so results).
        out.append(lax._convert_element_type(
            nc.asarray(part.astype(ad.tangent_dtype(a.dtype))), weak_type=a.weak_type))
        start += a.size
    return out


def _split_basis_axis(x, axis, leaves, dtype):
    """Split axis ``axis`` of ``x`` (one entry per element of ``leaves``) into
    one block per leaf, that axis replaced by the leaf's shape."""
    axis = axis % np.ndim(x)
    shape, blocks, start = np.shape(x), [], 0
    for leaf in leaves:
        a = core.get_aval(leaf)
        part = (x if a.size == shape[axis] else
                lax_shapes.slice_in_dim(x, start, start + a.size, axis=axis))
        block = lax_shapes.reshape(part, shape[:axis] + a.shape + shape[axis + 1:])
        if dtype is not None and core.get_aval(block).dtype != dtype:
            block = lax.convert_element_type(block, dtype)
        blocks.append(block)
        start += a.size
    return blocks


def _differentiated_args(fun, args, kwargs, argnums, check):
    """(the differentiated arguments, ``fun`` of them alone, their leaves,
    their tree), each leaf passed through ``check``.

    As in JAX, the checks run through ``tree_map``, which rebuilds the
    arguments' tree from the checks' None results: a custom pytree whose
    ``__init__`` rejects None fails here (SPEC TREE-27).
    """
    dyn = _dynamic_args(args, argnums, too_few=ValueError)
    in_leaves, in_tree = tree_util.tree_flatten(dyn)
    _check_args(in_leaves)
    tree_util.tree_map(check, dyn)
    return dyn, _bind_static(fun, args, kwargs, argnums), in_leaves, in_tree


def hessian(fun, argnums=0, has_aux=False, holomorphic=False):
    """``jacfwd(jacrev(fun))`` (SPEC AD-62)."""
    return jacfwd(jacrev(fun, argnums, has_aux=has_aux, holomorphic=holomorphic),
                  argnums, has_aux=has_aux, holomorphic=holomorphic)


def _check_input_dtype_fwd(holomorphic, x):
    dt = core.get_aval(x).dtype
    if holomorphic:
        if not dtypes.issubdtype(dt, np.complexfloating):
            raise TypeError("jacfwd with holomorphic=True requires inputs with "
                            f"complex dtype, but got {dt.name}.")
    elif not dtypes.issubdtype(dt, np.floating):
        raise TypeError(
            "jacfwd requires real-valued inputs (input dtype that is a sub-dtype of "
            f"np.floating), but got {dt.name}. For holomorphic differentiation, pass "
            "holomorphic=True. For differentiation of non-holomorphic functions "
            "involving complex inputs or integer inputs, use jax.jvp directly.")


def _to_argnums_structure(blocks, out_tree, in_tree, single):
    """Nest blocks as JAX does: the output's structure outside, and inside
    each output leaf the structure of the differentiated arguments (bare
    when ``single``: ``argnums`` was one index)."""
    per_out = []
    for row in blocks:
        inner = tree_util.tree_unflatten(in_tree, row)
        per_out.append(inner[0] if single else inner)
    return tree_util.tree_unflatten(out_tree, per_out)


# ---------------------------------------------------------------------------
# linear_transpose
# ---------------------------------------------------------------------------

def linear_transpose(fun, *primals, reduce_axes=()):
    """The transpose of the linear function ``fun`` at ``primals``' types
    (SPEC AD-63): ``f_t(ct)`` returns a tuple like ``primals``."""
    p_leaves, in_tree = tree_util.tree_flatten(primals)
    # Only the primals' types matter: ShapeDtypeStructs and any object with
    # .shape and .dtype serve (AD-63).
    in_avals = [api._abstractify(p, fun, "primals") for p in p_leaves]
    flat, store = _flat_fun(fun, in_tree)
    closed = pe.trace_to_jaxpr(flat, in_avals, trace_type=ad.PartialEvalTrace)
    _check_linear_dtypes(in_avals, closed.out_avals)
    out_tree = store["out_tree"]
    out_avals = closed.out_avals

    def transposed(ct):
        ct_leaves, ct_tree = tree_util.tree_flatten(ct)
        if ct_tree != out_tree:
            raise TypeError("cotangent tree does not match function output, "
                            f"expected {out_tree} but got {ct_tree}")
        ct_avals = [core.get_aval(c) for c in ct_leaves]
        if any(c.shape != a.shape or c.dtype != a.dtype
               for c, a in zip(ct_avals, out_avals)):
            raise TypeError(
                "cotangent type does not match function output, expected "
                f"{tuple(a.strip_weak_type() for a in out_avals)} but got "
                f"{[c.strip_weak_type() for c in ct_avals]}")
        cts = backward_closed(closed, None, ct_leaves)
        out = [ad.instantiate_zeros(c) if c is not None else ad.zeros_like_aval(a)
               for c, a in zip(cts, in_avals)]
        return tree_util.tree_unflatten(in_tree, out)

    return tree_util.Partial(transposed)


def _check_linear_dtypes(in_avals, out_avals):
    """Linear maps go float/complex -> float/complex or integer -> integer;
    bool (and key) types are neither (AD-63)."""
    dts = [a.dtype for a in (*in_avals, *out_avals)]
    if not (all(dtypes.issubdtype(d, np.inexact) for d in dts) or
            all(dtypes.issubdtype(d, np.integer) for d in dts)):
        raise TypeError(
            "linear_transpose only supports [float or complex] -> [float or complex], "
            "and integer -> integer functions, but got "
            f"{[a.dtype for a in in_avals]} -> {[a.dtype for a in out_avals]}.")
