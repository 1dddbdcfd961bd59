"""``cupy.linalg`` of the stand-in: the names CuPy exports, NumPy underneath."""
import numpy as _np

from cupy._standin import _kernel

LinAlgError = _np.linalg.LinAlgError

# cupyx.errstate(linalg=...): "ignore" (CuPy's default) or "raise".
_mode = ["ignore"]


def _quiet(np_fn, out_shape):
    """Without ``linalg="raise"``, a failed factorisation returns junk in
    CuPy instead of raising; NaNs of the result's shape stand for it."""
    kernel = _kernel(np_fn)

    def fn(*args, **kwargs):
        try:
            return kernel(*args, **kwargs)
        except LinAlgError:
            if _mode[0] == "raise":
                raise
            import cupy
            return cupy.full(out_shape(*args), _np.nan, dtype=args[-1].dtype)
    fn.__name__ = np_fn.__name__
    return fn


for _name in ("cholesky", "cond", "cross", "det", "eig", "eigh", "eigvals",
              "eigvalsh", "inv", "lstsq", "matmul", "matrix_power",
              "matrix_rank", "matrix_transpose", "norm", "pinv", "qr",
              "slogdet", "solve", "svd", "tensorinv", "tensorsolve"):
    globals()[_name] = _kernel(getattr(_np.linalg, _name))

cholesky = _quiet(_np.linalg.cholesky, lambda a: a.shape)
inv = _quiet(_np.linalg.inv, lambda a: a.shape)
solve = _quiet(_np.linalg.solve, lambda a, b: b.shape)
