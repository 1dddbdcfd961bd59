"""The strong-Wolfe line search of ``jax.scipy.optimize`` (SPEC SOP-5).

Algorithms 3.5 (bracketing) and 3.6 (zoom) of Nocedal and Wright,
*Numerical Optimization* (1999), written as ``while_loop``s whose state is
updated with ``where`` instead of branches, so the search traces once and
batches under ``vmap``.  ``phi(a) = f(x + a p)`` is the function along the
search direction ``p``; ``dphi`` its derivative.
"""
import functools
from typing import Any, NamedTuple

from refjax._src import dtypes
from refjax._src.ad_api import value_and_grad
from refjax._src.lax.control_flow.loops import while_loop
from refjax._src.lax.dot import Precision
from refjax._src.numpy import contractions, creation, lax_numpy, ufuncs, util

_dot = functools.partial(contractions.dot, precision=Precision.HIGHEST)

# Zoom gives up after this many steps (more than SciPy's 10: float32
# brackets shrink more slowly).
_ZOOM_MAXITER = 30


class LineSearchResults(NamedTuple):
    """What the search found: ``a_k`` the step, ``f_k``/``g_k`` the value
    and gradient there; ``status`` 0 (success), 1 (zoom failed) or 3
    (``maxiter`` steps)."""
    failed: Any
    nit: Any
    nfev: Any
    ngev: Any
    k: Any
    a_k: Any
    f_k: Any
    g_k: Any
    status: Any


def _select(pred, new, old):
    """``old`` with the fields of ``new`` replaced where ``pred`` holds."""
    return old._replace(**{name: lax_numpy.where(pred, value, getattr(old, name))
                           for name, value in new.items()})


def _cubic_minimizer(a, fa, fpa, b, fb, c, fc):
    """Minimizer of the cubic through ``(a, fa)`` with slope ``fpa`` and
    through ``(b, fb)`` and ``(c, fc)`` (NaN when there is none)."""
    dtype = dtypes.result_type(a, fa, fpa, b, fb, c, fc)
    db, dc = b - a, c - a
    denom = (db * dc) ** 2 * (db - dc)
    m = creation.array([[dc ** 2, -db ** 2], [-dc ** 3, db ** 3]], dtype=dtype)
    rhs = creation.array([fb - fa - fpa * db, fc - fa - fpa * dc], dtype=dtype)
    A, B = _dot(m, rhs) / denom
    return a + (-B + ufuncs.sqrt(B * B - 3. * A * fpa)) / (3. * A)


def _quadratic_minimizer(a, fa, fpa, b, fb):
    """Minimizer of the parabola through ``(a, fa)`` with slope ``fpa`` and
    through ``(b, fb)``."""
    db = b - a
    curvature = (fb - fa - fpa * db) / (db ** 2)
    return a - fpa / (2. * curvature)


class _ZoomState(NamedTuple):
    done: Any
    failed: Any
    j: Any
    a_lo: Any
    phi_lo: Any
    dphi_lo: Any
    a_hi: Any
    phi_hi: Any
    dphi_hi: Any
    a_rec: Any   # the previous a_hi or a_lo, the third point of the cubic
    phi_rec: Any
    a_star: Any
    phi_star: Any
    dphi_star: Any
    g_star: Any
    nfev: Any
    ngev: Any


def _zoom_trial_step(s):
    """The next trial step inside the bracket: the cubic minimizer if it is
    well inside, else the quadratic one, else the midpoint."""
    width = s.a_hi - s.a_lo
    low, high = ufuncs.minimum(s.a_hi, s.a_lo), ufuncs.maximum(s.a_hi, s.a_lo)
    cubic = _cubic_minimizer(s.a_lo, s.phi_lo, s.dphi_lo, s.a_hi, s.phi_hi,
                             s.a_rec, s.phi_rec)
    use_cubic = (s.j > 0) & (cubic > low + 0.2 * width) & (cubic < high - 0.2 * width)
    quad = _quadratic_minimizer(s.a_lo, s.phi_lo, s.dphi_lo, s.a_hi, s.phi_hi)
    use_quad = ~use_cubic & (quad > low + 0.1 * width) & (quad < high - 0.1 * width)
    midpoint = (s.a_lo + s.a_hi) / 2.
    return lax_numpy.where(use_cubic, cubic, lax_numpy.where(use_quad, quad, midpoint))


def _zoom(phi_and_grad, sufficient_decrease_fails, curvature_holds, lo, hi, g_0, skip):
    """Shrink the bracket ``[lo, hi]`` (each ``(a, phi, dphi)``) until a step
    meets both Wolfe conditions; does nothing when ``skip``."""
    (a_lo, phi_lo, dphi_lo), (a_hi, phi_hi, dphi_hi) = lo, hi
    state = _ZoomState(
        done=False, failed=False, j=0, a_lo=a_lo, phi_lo=phi_lo, dphi_lo=dphi_lo,
        a_hi=a_hi, phi_hi=phi_hi, dphi_hi=dphi_hi, a_rec=(a_lo + a_hi) / 2.,
        phi_rec=(phi_lo + phi_hi) / 2., a_star=1., phi_star=phi_lo, dphi_star=dphi_lo,
        g_star=g_0, nfev=0, ngev=0)

    def step(s):
        width = s.a_hi - s.a_lo
        # A bracket this narrow cannot be refined: the search fails.
        threshold = lax_numpy.where(dtypes.finfo(width.dtype).bits < 64, 1e-5, 1e-10)
        s = s._replace(failed=s.failed | (width <= threshold))
        a_j = _zoom_trial_step(s)
        phi_j, dphi_j, g_j = phi_and_grad(a_j)
        phi_j = phi_j.astype(s.phi_lo.dtype)
        dphi_j = dphi_j.astype(s.dphi_lo.dtype)
        g_j = g_j.astype(s.g_star.dtype)
        s = s._replace(nfev=s.nfev + 1, ngev=s.ngev + 1)

        # Too high: a_j becomes the upper end.
        to_hi = sufficient_decrease_fails(a_j, phi_j) | (phi_j >= s.phi_lo)
        # Low enough and flat enough: accept a_j.
        accept = curvature_holds(dphi_j) & ~to_hi
        # Otherwise a_j becomes the lower end; if the slope points back,
        # the old lower end becomes the upper one first.
        flip = (dphi_j * (s.a_hi - s.a_lo) >= 0.) & ~to_hi & ~accept
        to_lo = ~to_hi & ~accept

        s = _select(to_hi, dict(a_hi=a_j, phi_hi=phi_j, dphi_hi=dphi_j,
                                a_rec=s.a_hi, phi_rec=s.phi_hi), s)
        s = _select(accept, dict(a_star=a_j, phi_star=phi_j, dphi_star=dphi_j,
                                 g_star=g_j), s)
        s = s._replace(done=accept | s.done)
        s = _select(flip, dict(a_hi=s.a_lo, phi_hi=s.phi_lo, dphi_hi=s.dphi_lo,
                               a_rec=s.a_hi, phi_rec=s.phi_hi), s)
        s = _select(to_lo & ~flip, dict(a_rec=s.a_lo, phi_rec=s.phi_lo), s)
        s = _select(to_lo, dict(a_lo=a_j, phi_lo=phi_j, dphi_lo=dphi_j), s)
        j = s.j + 1
        return s._replace(j=j, failed=s.failed | (j >= _ZOOM_MAXITER))

    return while_loop(lambda s: ~s.done & ~skip & ~s.failed, step, state)


class _SearchState(NamedTuple):
    done: Any
    failed: Any
    i: Any
    a_prev: Any
    phi_prev: Any
    dphi_prev: Any
    nfev: Any
    ngev: Any
    a_star: Any
    phi_star: Any
    dphi_star: Any
    g_star: Any


def line_search(f, xk, pk, old_fval=None, old_old_fval=None, gfk=None, c1=1e-4, c2=0.9,
                maxiter=20):
    """A step ``a`` along ``pk`` from ``xk`` meeting the strong Wolfe
    conditions ``f(xk + a pk) <= f(xk) + c1 a f'(xk; pk)`` and
    ``|f'(xk + a pk; pk)| <= c2 |f'(xk; pk)|`` (SPEC SOP-5).

    The first trial step is 1, or smaller when the previous decrease
    ``old_fval - old_old_fval`` suggests it; each later one doubles.  In
    32-bit precision a step below ``1e-8`` is raised to ``1e-8`` so the
    minimizer cannot stall.
    """
    xk, pk = util.promote_dtypes_inexact(xk, pk)

    def phi_and_grad(t):
        t = creation.array(t, dtype=pk.dtype)
        phi, g = value_and_grad(f)(xk + t * pk)
        return phi, ufuncs.real(_dot(g, pk)), g

    evaluated = old_fval is None or gfk is None
    if evaluated:
        phi_0, dphi_0, gfk = phi_and_grad(0)
    else:
        phi_0, dphi_0 = old_fval, ufuncs.real(_dot(gfk, pk))
    if old_old_fval is None:
        first_step = 1
    else:
        guess = 1.01 * 2 * (phi_0 - old_old_fval) / dphi_0
        first_step = lax_numpy.where(guess > 1, 1.0, guess)

    def sufficient_decrease_fails(a, phi):
        return phi > phi_0 + c1 * a * dphi_0

    def curvature_holds(dphi):
        return ufuncs.abs(dphi) <= -c2 * dphi_0

    state = _SearchState(
        done=creation.array(False), failed=creation.array(False), i=1, a_prev=0.,
        phi_prev=phi_0, dphi_prev=dphi_0, nfev=int(evaluated), ngev=int(evaluated),
        a_star=0., phi_star=phi_0, dphi_star=dphi_0, g_star=gfk)

    def step(s):
        a_i = lax_numpy.where(s.i == 1, first_step, s.a_prev * 2.)
        phi_i, dphi_i, g_i = phi_and_grad(a_i)
        s = s._replace(nfev=s.nfev + 1, ngev=s.ngev + 1)
        # A minimum lies in [a_prev, a_i] when a_i is too high ...
        bracket_above = (sufficient_decrease_fails(a_i, phi_i)
                         | ((phi_i >= s.phi_prev) & (s.i > 1)))
        # ... a_i is acceptable ...
        accept = curvature_holds(dphi_i) & ~bracket_above
        # ... or the slope at a_i is already uphill: a minimum in [a_i, a_prev].
        bracket_below = (dphi_i >= 0.) & ~bracket_above & ~accept
        prev = (s.a_prev, s.phi_prev, s.dphi_prev)
        here = (a_i, phi_i, dphi_i)
        zooms = [(bracket_above, _zoom(phi_and_grad, sufficient_decrease_fails,
                                       curvature_holds, prev, here, gfk, ~bracket_above)),
                 (bracket_below, _zoom(phi_and_grad, sufficient_decrease_fails,
                                       curvature_holds, here, prev, gfk, ~bracket_below))]
        for _, z in zooms:
            s = s._replace(nfev=s.nfev + z.nfev, ngev=s.ngev + z.ngev)
        s = _take_zoom(s, *zooms[0])
        s = _select(accept, dict(a_star=a_i, phi_star=phi_i, dphi_star=dphi_i,
                                 g_star=g_i), s)
        s = s._replace(done=accept | s.done)
        s = _take_zoom(s, *zooms[1])
        return s._replace(i=s.i + 1, a_prev=a_i, phi_prev=phi_i, dphi_prev=dphi_i)

    s = while_loop(lambda s: ~s.done & (s.i <= maxiter) & ~s.failed, step, state)
    return _results(s, maxiter)


def _take_zoom(s, used, z):
    s = s._replace(done=used | s.done, failed=(used & z.failed) | s.failed)
    return _select(used, dict(a_star=z.a_star, phi_star=z.phi_star,
                              dphi_star=z.dphi_star, g_star=z.g_star), s)


def _results(s, maxiter):
    status = lax_numpy.where(s.failed, creation.array(1),
                             lax_numpy.where(s.i > maxiter, creation.array(3),
                                             creation.array(0)))
    step = creation.asarray(s.a_star)
    # A vanishing step in 32-bit precision would freeze the iterate.
    step = lax_numpy.where((dtypes.finfo(step.dtype).bits != 64)
                           & (ufuncs.abs(step) < 1e-8), ufuncs.sign(step) * 1e-8, step)
    return LineSearchResults(failed=s.failed | ~s.done, nit=s.i - 1, nfev=s.nfev,
                             ngev=s.ngev, k=s.i, a_k=step, f_k=s.phi_star, g_k=s.g_star,
                             status=status)
