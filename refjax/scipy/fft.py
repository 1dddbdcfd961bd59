"""``refjax.scipy.fft``: discrete cosine transforms, as ``jax.scipy.fft``.

This module holds the names; their rules live in ``refjax._src.scipy.fft``.
"""
from refjax._src.scipy.fft import dct, dctn, idct, idctn  # noqa: F401
