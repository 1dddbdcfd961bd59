"""``jax.scipy.stats.gaussian_kde``: Gaussian kernel density estimation
(SPEC STA-8).

A frozen dataclass registered as a pytree whose leaves are ``neff``,
``dataset``, ``weights``, ``covariance`` and ``inv_cov``, so that an
estimator passes through ``jit``, ``vmap`` and ``grad``.  The kernel
covariance is the data's weighted covariance times ``factor**2``, the
factor coming from ``bw_method`` (Scott's rule by default).
"""
import dataclasses
import functools
import math

import numpy as np

from refjax._src import dtypes, tree_util
from refjax._src.api import jit
from refjax._src.lax import linalg as lax_linalg
from refjax._src.lax import shapes as lax_shapes
from refjax._src.nn.logsumexp import logsumexp
from refjax._src.numpy import contractions, creation, lax_numpy
from refjax._src.numpy import linalg as np_linalg
from refjax._src.numpy import reductions, statistics, ufuncs, util
from refjax._src.random import continuous as random_continuous
from refjax._src.random import discrete as random_discrete
from refjax._src.random.basic import split
from refjax._src.scipy import special
from refjax._src.scipy.stats._common import dtype_of
from refjax._src.vmap_api import vmap

__all__ = ["gaussian_kde"]


@tree_util.register_pytree_node_class
@dataclasses.dataclass(frozen=True, init=False, slots=True)
class gaussian_kde:  # noqa: N801 - JAX's name
    """A Gaussian KDE of ``dataset`` (``(d, n)``, or ``(n,)`` for d = 1),
    optionally ``weights``-weighted (SPEC STA-8)."""

    neff: object
    dataset: object
    weights: object
    covariance: object
    inv_cov: object

    def __init__(self, dataset, bw_method=None, weights=None):
        util.check_arraylike("gaussian_kde", dataset)
        dataset = lax_numpy.atleast_2d(dataset)
        if dtypes.issubdtype(dtype_of(dataset), np.complexfloating):
            raise NotImplementedError("gaussian_kde does not support complex data")
        if not dataset.size > 1:
            raise ValueError("`dataset` input should have multiple elements.")
        d, n = lax_numpy.shape(dataset)
        dataset, weights = _data_and_weights(dataset, weights, n)
        neff = ufuncs.true_divide(1, reductions.sum(ufuncs.square(weights)))
        self._set_fields(neff=neff, dataset=dataset, weights=weights)
        factor = _bandwidth_factor(self, bw_method, neff, d)
        data_cov = lax_numpy.atleast_2d(
            statistics.cov(dataset, rowvar=1, bias=False, aweights=weights))
        data_inv_cov = np_linalg.inv(data_cov)
        factor_sq = ufuncs.square(factor)
        self._set_fields(covariance=ufuncs.multiply(data_cov, factor_sq),
                         inv_cov=ufuncs.true_divide(data_inv_cov, factor_sq))

    def _set_fields(self, **values):
        # The dataclass is frozen; construction goes around that.
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def tree_flatten(self):
        return (self.neff, self.dataset, self.weights, self.covariance, self.inv_cov), None

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        del aux_data
        kde = cls.__new__(cls)
        kde._set_fields(**dict(zip(("neff", "dataset", "weights", "covariance", "inv_cov"),
                                   children)))
        return kde

    @property
    def d(self):
        """The number of dimensions."""
        return lax_numpy.shape(self.dataset)[0]

    @property
    def n(self):
        """The number of data points."""
        return lax_numpy.shape(self.dataset)[1]

    def evaluate(self, points):
        """The density at ``points`` (``(d, m)``, or ``(m,)`` for d = 1, or
        one point of ``d`` coordinates) (SPEC STA-8)."""
        util.check_arraylike("evaluate", points)
        points = self._reshape_points(points)
        return _kernel_sum(False, self.dataset, self.weights, points, self.inv_cov)

    def __call__(self, points):
        return self.evaluate(points)

    def pdf(self, x):
        """``evaluate(x)`` (SPEC STA-8)."""
        return self.evaluate(x)

    def logpdf(self, x):
        """``log(evaluate(x))`` as a ``logsumexp``, finite far in the tails
        (SPEC STA-8)."""
        util.check_arraylike("logpdf", x)
        x = self._reshape_points(x)
        return _kernel_sum(True, self.dataset, self.weights, x, self.inv_cov)

    def integrate_gaussian(self, mean, cov):
        """The integral of the density times the Gaussian N(``mean``, ``cov``)
        (SPEC STA-8)."""
        mean = lax_numpy.atleast_1d(lax_numpy.squeeze(mean))
        cov = lax_numpy.atleast_2d(cov)
        if lax_numpy.shape(mean) != (self.d,):
            raise ValueError(f"mean does not have dimension {self.d}")
        if lax_numpy.shape(cov) != (self.d, self.d):
            raise ValueError(f"covariance does not have dimension {self.d}")
        factor, norm = _gaussian_product(self.covariance, cov, self.d)
        return _convolve(factor, norm, self.dataset, self.weights, mean)

    @jit
    def integrate_box_1d(self, low, high):
        """The mass between the scalars ``low`` and ``high`` of a 1-D
        estimator (ValueError otherwise) (SPEC STA-8)."""
        if self.d != 1:
            raise ValueError("integrate_box_1d() only handles 1D pdfs")
        if np.ndim(low) != 0 or np.ndim(high) != 0:
            raise ValueError("the limits of integration in integrate_box_1d must be scalars")
        sigma = lax_numpy.squeeze(ufuncs.sqrt(self.covariance))
        low = lax_numpy.squeeze(ufuncs.true_divide(ufuncs.subtract(low, self.dataset), sigma))
        high = lax_numpy.squeeze(ufuncs.true_divide(ufuncs.subtract(high, self.dataset), sigma))
        mass = ufuncs.subtract(special.ndtr(high), special.ndtr(low))
        return reductions.sum(ufuncs.multiply(self.weights, mass))

    def integrate_kde(self, other):
        """The integral of the product of two estimators' densities
        (SPEC STA-8)."""
        if other.d != self.d:
            raise ValueError("KDEs are not the same dimensionality")
        factor, norm = _gaussian_product(self.covariance, other.covariance, self.d)
        small, large = (self, other) if self.n < other.n else (other, self)
        one_point = functools.partial(_convolve, factor, norm, large.dataset, large.weights)
        result = vmap(one_point, in_axes=1)(small.dataset)
        return reductions.sum(ufuncs.multiply(result, small.weights))

    @functools.partial(jit, static_argnames=("shape",))
    def resample(self, key, shape=()):
        """``d``-by-``shape`` draws: data points chosen by weight plus
        N(0, covariance) noise (SPEC STA-8)."""
        index_key, noise_key = split(key)
        index = random_discrete.choice(index_key, self.n, shape=shape, p=self.weights)
        zeros = creation.zeros(self.d, dtype_of(self.covariance))
        noise = random_continuous.multivariate_normal(
            noise_key, zeros, self.covariance, shape=shape, dtype=dtype_of(self.dataset))
        return ufuncs.add(self.dataset[:, index], lax_numpy.transpose(noise))

    def integrate_box(self, low_bounds, high_bounds, maxpts=None):
        """JAX's NotImplementedError: only ``integrate_box_1d`` exists."""
        del low_bounds, high_bounds, maxpts
        raise NotImplementedError(
            "only 1D box integrations are supported; use `integrate_box_1d`")

    def set_bandwidth(self, bw_method=None):
        """JAX's NotImplementedError: the estimator is immutable."""
        del bw_method
        raise NotImplementedError("dynamically changing the bandwidth method is not supported")

    def _reshape_points(self, points):
        if dtypes.issubdtype(util._aval(points).dtype, np.complexfloating):
            raise NotImplementedError("gaussian_kde does not support complex coordinates")
        points = lax_numpy.atleast_2d(points)
        d, m = lax_numpy.shape(points)
        if d != self.d:
            if d == 1 and m == self.d:
                return lax_numpy.reshape(points, (self.d, 1))
            raise ValueError(f"points have dimension {d}, dataset has dimension {self.d}")
        return points


def _data_and_weights(dataset, weights, n):
    """The dataset and normalized weights in one inexact dtype (uniform
    ``1/n`` weights when none are given)."""
    if weights is None:
        dataset, = util.promote_dtypes_inexact(dataset)
        return dataset, creation.full(n, 1.0 / n, dtype=dtype_of(dataset))
    util.check_arraylike("gaussian_kde", weights)
    dataset, weights = util.promote_dtypes_inexact(dataset, weights)
    weights = lax_numpy.atleast_1d(weights)
    weights = ufuncs.true_divide(weights, reductions.sum(weights))
    if len(lax_numpy.shape(weights)) != 1:
        raise ValueError("`weights` input should be one-dimensional.")
    if lax_numpy.shape(weights)[0] != n:
        raise ValueError("`weights` input should be of length n")
    return dataset, weights


def _bandwidth_factor(kde, bw_method, neff, d):
    """Scott's ``neff**(-1/(d+4))``, Silverman's ``(neff (d+2)/4)**(-1/(d+4))``,
    a scalar, or ``bw_method(kde)``."""
    if bw_method is None or (isinstance(bw_method, str) and bw_method == "scott"):
        return ufuncs.power(neff, -1.0 / (d + 4))
    if isinstance(bw_method, str) and bw_method == "silverman":
        return ufuncs.power(ufuncs.true_divide(ufuncs.multiply(neff, d + 2), 4.0),
                            -1.0 / (d + 4))
    if lax_numpy.isscalar(bw_method) and not isinstance(bw_method, str):
        return bw_method
    if callable(bw_method):
        return bw_method(kde)
    raise ValueError("`bw_method` should be 'scott', 'silverman', a scalar, or a callable.")


def _gaussian_product(cov_a, cov_b, d):
    """The Cholesky factor of ``cov_a + cov_b`` and the Gaussian
    normalization ``1 / ((2 pi)^(d/2) det(factor))``."""
    factor = lax_linalg.cholesky(ufuncs.add(cov_a, cov_b))
    det = reductions.prod(contractions.diag(factor))
    norm = ufuncs.multiply(ufuncs.power(ufuncs.sqrt(2 * np.pi), d), det)
    return factor, ufuncs.true_divide(1.0, norm)


def _cho_solve(factor, rhs):
    """``(L L^T)^-1 rhs`` for a lower-triangular ``L``."""
    y = lax_linalg.triangular_solve(factor, rhs, left_side=True, lower=True)
    return lax_linalg.triangular_solve(factor, y, left_side=True, lower=True,
                                       transpose_a=True)


def _convolve(factor, norm, target, weights, mean):
    """``norm * sum_j w_j exp(-(t_j - mean)^T C^-1 (t_j - mean) / 2)``."""
    diff = ufuncs.subtract(target, lax_shapes.expand_dims(mean, (1,)))
    alpha = _cho_solve(factor, diff)
    arg = ufuncs.multiply(0.5, reductions.sum(ufuncs.multiply(diff, alpha), axis=0))
    return ufuncs.multiply(norm, reductions.sum(ufuncs.multiply(ufuncs.exp(-arg), weights)))


@functools.partial(jit, static_argnums=0)
def _kernel_sum(in_log, dataset, weights, points, precision):
    """``sum_j w_j N(points_i; data_j, precision^-1)`` for each point (its
    log by ``logsumexp`` when ``in_log``): both sets are whitened by the
    Cholesky factor of the precision, so each kernel is
    ``exp(log_norm - |x - y|^2 / 2)``."""
    dataset, weights, points, precision = util.promote_dtypes_inexact(
        dataset, weights, points, precision)
    d = lax_numpy.shape(dataset)[0]
    whitening = lax_linalg.cholesky(precision)
    train = contractions.dot(lax_numpy.transpose(dataset), whitening)       # (n, d)
    test = contractions.dot(lax_numpy.transpose(points), whitening)         # (m, d)
    log_norm = ufuncs.subtract(reductions.sum(ufuncs.log(contractions.diag(whitening))),
                               0.5 * d * math.log(2 * np.pi))
    diff = ufuncs.subtract(lax_shapes.expand_dims(test, (1,)), lax_shapes.expand_dims(train, (0,)))
    arg = ufuncs.subtract(log_norm, ufuncs.multiply(0.5, reductions.sum(ufuncs.square(diff),
                                                                        axis=-1)))  # (m, n)
    if in_log:
        return logsumexp(ufuncs.add(ufuncs.log(weights), arg), axis=1)
    return reductions.sum(ufuncs.multiply(weights, ufuncs.exp(arg)), axis=1)
