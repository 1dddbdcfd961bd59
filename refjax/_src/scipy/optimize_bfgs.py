"""BFGS and L-BFGS minimization for ``jax.scipy.optimize.minimize``
(SPEC SOP-3, SOP-4).

BFGS is Algorithm 6.1 of Nocedal and Wright, *Numerical Optimization*
(1999); L-BFGS is their Algorithm 7.5 (two-loop recursion), extended to
complex variables as in Sorber, Van Barel and De Lathauwer (SIAM J. Optim.
22(3), 2012).  Both iterate in a ``while_loop`` and use the strong-Wolfe
line search of :mod:`optimize_line_search`.
"""
import functools
from typing import Any, NamedTuple

import numpy as np

from refjax._src.ad_api import value_and_grad
from refjax._src.lax.control_flow.loops import while_loop
from refjax._src.lax.control_flow.scan import fori_loop
from refjax._src.lax.dot import Precision
from refjax._src.numpy import contractions, creation, lax_numpy
from refjax._src.numpy import linalg as jnp_linalg
from refjax._src.numpy import ufuncs
from refjax._src.scipy.optimize_line_search import line_search

_dot = functools.partial(contractions.dot, precision=Precision.HIGHEST)
_einsum = functools.partial(contractions.einsum, precision=Precision.HIGHEST)


def _check_x0(x0, method):
    """``x0`` must be an array (JAX reads its ``shape``)."""
    if not hasattr(x0, "shape") or not hasattr(x0, "dtype"):
        raise TypeError(f"minimize with method={method!r} needs x0 to be a 1-d array, "
                        f"got {type(x0).__name__}")


# ---------------------------------------------------------------------------
# BFGS
# ---------------------------------------------------------------------------

class BFGSResults(NamedTuple):
    """State and result of BFGS; ``H_k`` the inverse Hessian estimate;
    ``status`` 0 converged, 1 ``maxiter`` reached, ``2 + s`` line search
    failed with status ``s``, -1 otherwise."""
    converged: Any
    failed: Any
    k: Any
    nfev: Any
    ngev: Any
    nhev: Any
    x_k: Any
    f_k: Any
    g_k: Any
    H_k: Any
    old_old_fval: Any
    status: Any
    line_search_status: Any


def _bfgs_update(H, s, y):
    """``(I - rho s y^T) H (I - rho y s^T) + rho s s^T`` with
    ``rho = 1 / y^T s``; ``H`` unchanged when ``rho`` is not finite."""
    rho = ufuncs.reciprocal(_dot(y, s))
    w = creation.eye(s.shape[0], dtype=rho.dtype) - rho * (s[:, None] * y[None, :])
    updated = _einsum("ij,jk,lk", w, H, w) + rho * s[:, None] * s[None, :]
    return lax_numpy.where(ufuncs.isfinite(rho), updated, H)


def minimize_bfgs(fun, x0, maxiter=None, norm=np.inf, gtol=1e-5, line_search_maxiter=10):
    """Minimize ``fun`` from the 1-d ``x0`` by BFGS until
    ``|grad|_norm < gtol``, a line search fails, or ``maxiter`` iterations
    (default ``200 * size(x0)``) ran (SPEC SOP-3)."""
    _check_x0(x0, "BFGS")
    if maxiter is None:
        maxiter = np.size(x0) * 200
    f_0, g_0 = value_and_grad(fun)(x0)
    state = BFGSResults(
        converged=jnp_linalg.norm(g_0, ord=norm) < gtol, failed=False, k=0, nfev=1,
        ngev=1, nhev=0, x_k=x0, f_k=f_0, g_k=g_0,
        H_k=creation.eye(x0.shape[0], dtype=x0.dtype),
        old_old_fval=f_0 + jnp_linalg.norm(g_0) / 2, status=0, line_search_status=0)

    def running(s):
        return ufuncs.logical_not(s.converged) & ufuncs.logical_not(s.failed) & (s.k < maxiter)

    def step(s):
        p = -_dot(s.H_k, s.g_k)
        ls = line_search(fun, s.x_k, p, old_fval=s.f_k, old_old_fval=s.old_old_fval,
                         gfk=s.g_k, maxiter=line_search_maxiter)
        dx = ls.a_k * p
        return s._replace(
            nfev=s.nfev + ls.nfev, ngev=s.ngev + ls.ngev, failed=ls.failed,
            line_search_status=ls.status, converged=jnp_linalg.norm(ls.g_k, ord=norm) < gtol,
            k=s.k + 1, x_k=s.x_k + dx, f_k=ls.f_k, g_k=ls.g_k,
            H_k=_bfgs_update(s.H_k, dx, ls.g_k - s.g_k), old_old_fval=s.f_k)

    s = while_loop(running, step, state)
    status = lax_numpy.where(
        s.converged, 0,
        lax_numpy.where(s.k == maxiter, 1,
                        lax_numpy.where(s.failed, 2 + s.line_search_status, -1)))
    return s._replace(status=status)


# ---------------------------------------------------------------------------
# L-BFGS
# ---------------------------------------------------------------------------

class LBFGSResults(NamedTuple):
    """State and result of L-BFGS; the last ``maxcor`` steps ``s``, gradient
    changes ``y`` and ``rho = 1 / Re(y^H s)`` are kept, oldest first;
    ``status`` 0 converged, 1 ``maxiter``, 2 ``maxfun``, 3 ``maxgrad``,
    4 decrease below ``ftol``, 5 line search failed."""
    converged: Any
    failed: Any
    k: Any
    nfev: Any
    ngev: Any
    x_k: Any
    f_k: Any
    g_k: Any
    s_history: Any
    y_history: Any
    rho_history: Any
    gamma: Any
    status: Any
    ls_status: Any


def _search_direction(state):
    """``-H grad`` for the L-BFGS inverse Hessian ``H`` (the two-loop
    recursion over the stored pairs, newest first, then oldest first)."""
    dtype = state.rho_history.dtype
    memory = len(state.rho_history)
    used = lax_numpy.where(state.k < memory, state.k, memory)
    q = -ufuncs.conj(state.g_k)

    def newest_first(j, carry):
        q, alphas = carry
        i = memory - 1 - j
        alpha = state.rho_history[i] * _dot(ufuncs.conj(state.s_history[i]), q).real.astype(dtype)
        return q - alpha * ufuncs.conj(state.y_history[i]), alphas.at[i].set(alpha)

    q, alphas = fori_loop(0, used, newest_first,
                          (q, creation.zeros_like(state.rho_history)))
    q = state.gamma * q

    def oldest_first(j, q):
        i = memory - used + j
        beta = state.rho_history[i] * _dot(state.y_history[i], q).real.astype(dtype)
        return q + (alphas[i] - beta) * state.s_history[i]

    return fori_loop(0, used, oldest_first, q)


def _push(history, new):
    """Drop the oldest entry (row 0) and append ``new``."""
    return lax_numpy.roll(history, -1, axis=0).at[-1].set(new)


def minimize_lbfgs(fun, x0, maxiter=None, norm=np.inf, maxcor=10, ftol=2.220446049250313e-09,
                   gtol=1e-05, maxfun=None, maxgrad=None, maxls=20):
    """Minimize ``fun`` from the 1-d (real or complex) ``x0`` by L-BFGS with
    ``maxcor`` stored pairs until ``|grad|_norm < gtol`` or a limit is hit;
    without any of ``maxiter``/``maxfun``/``maxgrad``, ``maxiter`` is
    ``200 * len(x0)``; the limits are tested after each step (SPEC SOP-4, SOP-7)."""
    _check_x0(x0, "l-bfgs-experimental-do-not-rely-on-this")
    d = len(x0)
    dtype = x0.dtype
    if maxiter is None and maxfun is None and maxgrad is None:
        maxiter = d * 200
    maxiter, maxfun, maxgrad = (np.inf if v is None else v for v in (maxiter, maxfun, maxgrad))
    f_0, g_0 = value_and_grad(fun)(x0)
    state = LBFGSResults(
        converged=creation.array(False), failed=creation.array(False), k=0, nfev=1, ngev=1,
        x_k=x0, f_k=f_0, g_k=g_0, s_history=creation.zeros((maxcor, d), dtype=dtype),
        y_history=creation.zeros((maxcor, d), dtype=dtype),
        rho_history=creation.zeros((maxcor,), dtype=dtype), gamma=1., status=0, ls_status=0)

    def step(s):
        p = _search_direction(s)
        ls = line_search(f=fun, xk=s.x_k, pk=p, old_fval=s.f_k, gfk=s.g_k, maxiter=maxls)
        dx = creation.asarray(ls.a_k).astype(p.dtype) * p
        dg = ls.g_k - s.g_k
        curvature = ufuncs.real(_dot(dg, dx))
        # The last matching condition wins: a failed line search first.
        status = creation.array(0)
        status = lax_numpy.where(s.f_k - ls.f_k < ftol, 4, status)
        status = lax_numpy.where(s.ngev >= maxgrad, 3, status)
        status = lax_numpy.where(s.nfev >= maxfun, 2, status)
        status = lax_numpy.where(s.k >= maxiter, 1, status)
        status = lax_numpy.where(ls.failed, 5, status)
        converged = jnp_linalg.norm(ls.g_k, ord=norm) < gtol
        gamma = curvature / ufuncs.real(_dot(ufuncs.conj(dg), dg))
        return s._replace(
            converged=converged, failed=(status > 0) & ~converged, k=s.k + 1,
            nfev=s.nfev + ls.nfev, ngev=s.ngev + ls.ngev,
            x_k=(s.x_k + dx).astype(s.x_k.dtype), f_k=ls.f_k.astype(s.f_k.dtype),
            g_k=ls.g_k.astype(s.g_k.dtype), s_history=_push(s.s_history, dx),
            y_history=_push(s.y_history, dg),
            rho_history=_push(s.rho_history, ufuncs.reciprocal(curvature).astype(dg.dtype)),
            gamma=gamma.astype(s.g_k.dtype), status=lax_numpy.where(converged, 0, status),
            ls_status=ls.status)

    return while_loop(lambda s: ~s.converged & ~s.failed, step, state)
