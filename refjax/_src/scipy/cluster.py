"""``jax.scipy.cluster.vq``: vector quantisation (SPEC SIG-13)."""
import numpy as np

from refjax._src import core
from refjax._src.numpy import linalg, reductions, util
from refjax._src.vmap_api import vmap

__all__ = ["vq"]


def vq(obs, code_book, check_finite=True):
    """The index of the nearest code (Euclidean distance) for each
    observation, and that distance.  Both arguments are promoted to one
    inexact dtype; 1-d arguments are scalar features.  ``check_finite`` is
    accepted and ignored, as in JAX (SPEC SIG-13)."""
    del check_finite
    util.check_arraylike("scipy.cluster.vq.vq", obs, code_book)
    # The ranks are read first: a Python scalar (possibly an int too large
    # for int32) is rejected for its rank, as JAX rejects it.
    ndim = core.get_aval(obs).ndim if hasattr(obs, "shape") else np.ndim(obs)
    if ndim != (core.get_aval(code_book).ndim if hasattr(code_book, "shape")
                else np.ndim(code_book)):
        raise ValueError("Observation and code_book should have the same rank")
    if ndim not in (1, 2):
        raise ValueError("ndim different than 1 or 2 are not supported")
    obs, code_book = util.promote_dtypes_inexact(obs, code_book)
    if ndim == 1:
        obs, code_book = obs[..., None], code_book[..., None]
    dist = vmap(lambda ob: linalg.norm(ob[None] - code_book, axis=-1))(obs)
    code = reductions.argmin(dist, axis=-1)
    return code, vmap(lambda row, i: row[i])(dist, code)
