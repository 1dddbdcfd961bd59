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
        return self.xp.asarray(value, dtype=dtype)

    def to_host(self, array):
        return self.xp.asnumpy(array)

    def block_until_ready(self, array):
        self.xp.cuda.get_current_stream().synchronize()
        return array

    def device_count(self):
        return self.xp.cuda.runtime.getDeviceCount()

    def device_kind(self):
        props = self.xp.cuda.runtime.getDeviceProperties(0)
        name = props["name"]
        return name.decode() if isinstance(name, bytes) else str(name)

    def special(self, name):
        return _cupy_special(name)

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


def _sequential_scatter(xp, op, target, indices, updates):
    """Scatter with ``op`` so that every duplicate index takes effect.

    Works in rounds of plain fancy assignment; each round applies the first
    remaining occurrence of every distinct position, so the number of rounds
    is the largest multiplicity of a position, not the number of updates.
    """
    idx = xp.broadcast_arrays(*[xp.asarray(i) for i in indices])
    positions = xp.ravel_multi_index(tuple(idx), target.shape).reshape(-1)
    values = xp.broadcast_to(updates, idx[0].shape).reshape(-1)
    flat = target.reshape(-1)
    remaining = xp.arange(positions.size)
    while remaining.size:
        _, first = xp.unique(positions[remaining], return_index=True)
        chosen = remaining[first]
        where = positions[chosen]
        flat[where] = op(flat[where], values[chosen])
        keep = xp.ones(remaining.size, dtype=bool)
        keep[first] = False
        remaining = remaining[keep]


def _cupy_special(name):
    import cupyx.scipy.special as special
    return getattr(special, name)
