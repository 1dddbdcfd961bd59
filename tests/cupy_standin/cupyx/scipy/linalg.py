"""``cupyx.scipy.linalg`` of the stand-in: the names CuPy exports, SciPy
underneath."""
import scipy.linalg as _sl

from cupy._standin import _kernel

for _name in ("lu", "lu_factor", "lu_solve", "solve_triangular", "expm",
              "block_diag", "toeplitz"):
    globals()[_name] = _kernel(getattr(_sl, _name))
