"""``jax.scipy.optimize``: ``minimize`` and its results (SPEC SOP-1 .. SOP-7).

Only the gradient-based methods JAX has: ``'BFGS'`` and
``'l-bfgs-experimental-do-not-rely-on-this'``; gradients come from
``value_and_grad``, so ``fun`` must be differentiable.  Everything is traced
into ``while_loop``s, so ``minimize`` runs under ``jit`` and ``vmap``.
"""
from typing import Any, NamedTuple

from refjax._src.numpy import ufuncs
from refjax._src.scipy.optimize_bfgs import minimize_bfgs, minimize_lbfgs

__all__ = ["OptimizeResults", "minimize"]


class OptimizeResults(NamedTuple):
    """The result of :func:`minimize` (SPEC SOP-2).

    ``x`` the solution; ``success`` converged without a failed line search;
    ``status`` the method's end code (0 converged); ``fun`` and ``jac`` the
    value and gradient at ``x``; ``hess_inv`` BFGS's inverse Hessian
    estimate (None for L-BFGS); ``nfev``, ``njev`` the numbers of function
    and gradient evaluations; ``nit`` the number of iterations.
    """
    x: Any
    success: Any
    status: Any
    fun: Any
    jac: Any
    hess_inv: Any
    nfev: Any
    njev: Any
    nit: Any


_LBFGS = "l-bfgs-experimental-do-not-rely-on-this"


def minimize(fun, x0, args=(), *, method, tol=None, options=None):
    """Minimize ``fun(x, *args)`` over the 1-d ``x`` from ``x0`` (SPEC SOP-1).

    ``method`` (case-insensitive) is ``'BFGS'`` or
    ``'l-bfgs-experimental-do-not-rely-on-this'``; ``options`` are passed to
    the method as keywords (BFGS: ``maxiter``, ``norm``, ``gtol``,
    ``line_search_maxiter``; L-BFGS also ``maxcor``, ``ftol``, ``maxfun``,
    ``maxgrad``, ``maxls``), an unknown one raising ``TypeError``.  ``tol`` is
    accepted and, as in JAX, not used.  Runs under ``jit`` and ``vmap``
    (SPEC SOP-6).
    """
    options = {} if options is None else options
    if not isinstance(args, tuple):
        raise TypeError(f"args argument to jax.scipy.optimize.minimize must be a tuple, "
                        f"got {args}")
    if not isinstance(method, str):
        raise TypeError(f"method must be a string naming the solver, got {method!r}")

    def objective(x):
        return fun(x, *args)

    if method.lower() == "bfgs":
        r = minimize_bfgs(objective, x0, **options)
        hess_inv = r.H_k
    elif method.lower() == _LBFGS:
        r = minimize_lbfgs(objective, x0, **options)
        hess_inv = None
    else:
        raise ValueError(f"Method {method} not recognized")
    return OptimizeResults(x=r.x_k, success=r.converged & ufuncs.logical_not(r.failed),
                           status=r.status, fun=r.f_k, jac=r.g_k, hess_inv=hess_inv,
                           nfev=r.nfev, njev=r.ngev, nit=r.k)
