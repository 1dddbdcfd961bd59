"""The CuPy backend: kernels run on NVIDIA GPUs.

CuPy is imported when this backend is chosen, never before, so refjax works
without it.  Choosing it without CuPy or without a visible GPU raises a
RuntimeError that says which of the two is missing.
"""
from refjax.backends import Backend


def _import_cupy():
    try:
        import cupy
    except ImportError as e:
        raise RuntimeError(
            "The 'cupy' backend needs CuPy, which is not installed here "
            f"({e}). Install it with `pip install \"refjax[cupy]\"` (or the "
            "cupy-cudaXXx wheel matching your CUDA), or use the default "
            "'numpy' backend.") from None
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # CUDA driver missing or broken
        raise RuntimeError(
            "The 'cupy' backend needs a CUDA GPU, but CuPy could not reach "
            f"one ({type(e).__name__}: {e}). Check the NVIDIA driver, or use "
            "the default 'numpy' backend.") from None
    if count == 0:
        raise RuntimeError(
            "The 'cupy' backend needs a CUDA GPU, but none is visible "
            "(cupy.cuda.runtime.getDeviceCount() == 0). Use the default "
            "'numpy' backend on this machine.")
    return cupy


class CupyBackend(Backend):
    name = "cupy"
    platform = "gpu"

    def __init__(self):
        self.xp = _import_cupy()
        import cupyx
        self._cupyx = cupyx

    def asarray(self, value, dtype=None):
        if _is_float0(value, dtype):
            # float0 (a tangent of an integer) holds no data and CuPy has no
            # such dtype; like JAX, keep it as a NumPy array on the host.
            import numpy as np
            return np.asarray(value, dtype=dtype)
        return self.xp.asarray(value, dtype=dtype)

    def is_array(self, value):
        return isinstance(value, self.xp.ndarray) or _is_float0(value, None)

    def to_host(self, array):
        return self.xp.asnumpy(array)

    def block_until_ready(self, array):
        self.xp.cuda.get_current_stream().synchronize()
        return array

    def put(self, array, device_id):
        # cupy.asarray copies an array from another GPU onto the current
        # one, and returns it unchanged when it is already there.
        with self.xp.cuda.Device(device_id):
            return self.xp.asarray(array)

    def device_of(self, array):
        return array.device.id

    def on_device(self, device_id):
        return self.xp.cuda.Device(device_id)

    def linalg_errors(self):
        # CuPy reports cuSOLVER failures only when asked to.
        return self._cupyx.errstate(linalg="raise")

    def device_count(self):
        return self.xp.cuda.runtime.getDeviceCount()

    def device_kind(self):
        props = self.xp.cuda.runtime.getDeviceProperties(0)
        name = props["name"]
        return name.decode() if isinstance(name, bytes) else str(name)

    def special(self, name):
        return _cupy_special(name)

    # CuPy's ufunc.reduce/accumulate exist for add and multiply only.
    _REDUCTIONS = {"add": "sum", "multiply": "prod", "maximum": "max",
                   "minimum": "min"}

    def reduce(self, op, x, axes):
        if op in self._REDUCTIONS:
            return getattr(self.xp, self._REDUCTIONS[op])(x, axis=tuple(axes))
        return super().reduce(op, x, axes)

    def cumulative(self, op, x, axis):
        if op in ("add", "multiply"):
            return getattr(self.xp, op).accumulate(x, axis=axis)
        return super().cumulative(op, x, axis)

    def scatter_add(self, target, indices, updates):
        self._cupyx.scatter_add(target, indices, updates)
        return target

    def scatter_mul(self, target, indices, updates):
        # cupyx has no scatter_mul; apply duplicates one occurrence at a time.
        _sequential_scatter(self.xp, self.xp.multiply, target, indices, updates)
        return target

    def scatter_min(self, target, indices, updates):
        self._cupyx.scatter_min(target, indices, updates)
        return target

    def scatter_max(self, target, indices, updates):
        self._cupyx.scatter_max(target, indices, updates)
        return target


def _is_float0(value, dtype):
    dt = dtype if dtype is not None else getattr(value, "dtype", None)
    return dt is not None and getattr(dt, "kind", None) == "V"


def _sequential_scatter(xp, op, target, indices, updates):
    """Scatter with ``op`` so that every duplicate index takes effect.

    Works in rounds of plain fancy assignment; each round applies the first
    remaining occurrence of every distinct position, so the number of rounds
    is the largest multiplicity of a position, not the number of updates.
    Positions are unravelled back to one index per axis, so ``target`` may
    have any memory layout (a reshaped view of a strided array would be a
    copy, and writes to it would be lost).
    """
    idx = xp.broadcast_arrays(*[xp.asarray(i) for i in indices])
    positions = xp.ravel_multi_index(tuple(idx), target.shape).reshape(-1)
    values = xp.broadcast_to(updates, idx[0].shape).reshape(-1)
    remaining = xp.arange(positions.size)
    while remaining.size:
        _, first = xp.unique(positions[remaining], return_index=True)
        chosen = remaining[first]
        where = xp.unravel_index(positions[chosen], target.shape)
        target[where] = op(target[where], values[chosen])
        keep = xp.ones(remaining.size, dtype=bool)
        keep[first] = False
        remaining = remaining[keep]


def _cupy_special(name):
    """``cupyx.scipy.special.<name>`` with XLA's values at the edges.

    SciPy's conventions (which cupyx follows) differ from XLA's at poles:
    XLA's digamma is NaN at 0, the negative integers and -inf, and its
    lgamma is +inf at the poles and at both infinities.  Half-precision
    inputs are computed in float32 (cupyx kernels lack bfloat16) and the
    result keeps the input's dtype, as the NumPy backend does.
    """
    import cupy
    import cupyx.scipy.special as special
    if name not in _SPECIAL_NAMES:
        raise NotImplementedError(f"backend 'cupy' has no special function {name!r}")
    fn = getattr(special, name)

    def apply(x):
        wide = x.astype(cupy.float32) if x.dtype.itemsize < 4 else x
        out = fn(wide)
        if name in ("digamma", "gammaln"):
            pole = (wide <= 0) & (wide == cupy.floor(wide))
            if name == "digamma":
                out = cupy.where(pole | (wide == -cupy.inf), cupy.nan, out)
            else:
                out = cupy.where(pole | cupy.isinf(wide), cupy.inf, out)
        return out.astype(x.dtype, copy=False)
    return apply


# The names Backend.special is asked for (refjax/_src/lax/lax.py).
_SPECIAL_NAMES = ("erf", "erfc", "erfinv", "gammaln", "digamma")
