"""Array-library backends for refjax, installed as ``refjax.backends``.

The core of refjax never calls NumPy or CuPy kernels directly: every
primitive implementation asks the active backend (``refjax._src.backend.get()``)
for its array namespace or for one of the few kernels whose spelling differs
between libraries.  A backend is a small object implementing :class:`Backend`.

Adding a library means writing one subclass and naming it in ``REGISTRY``.
"""
import abc
import contextlib
import importlib

__all__ = ["Backend", "REGISTRY", "load"]


class Backend(abc.ABC):
    """The interface every backend implements.

    Attributes:
      name: the name used by ``refjax_backend`` / ``REFJAX_BACKEND``.
      platform: the JAX platform name of its devices (``"cpu"``, ``"gpu"``).
      xp: the array namespace (``numpy`` or ``cupy``); elementwise math,
        reshapes and reductions are spelled the NumPy way through it.
    """

    name = None
    platform = None
    xp = None

    # -- data movement ----------------------------------------------------
    @abc.abstractmethod
    def asarray(self, value, dtype=None):
        """A backend array holding ``value`` (host data is copied over)."""

    @abc.abstractmethod
    def to_host(self, array):
        """A NumPy array with the contents of backend array ``array``."""

    def is_array(self, value):
        """Whether ``value`` is this backend's native array type."""
        return isinstance(value, self.xp.ndarray)

    def block_until_ready(self, array):
        """Wait for pending work on ``array``; synchronous backends return."""
        return array

    # -- placement (SPEC SHD-14, BE-7) ---------------------------------------
    # ``device_id`` is the id of a refjax Device of this backend.  A backend
    # with one physical device (NumPy: the simulated CPU devices share host
    # memory) ignores it.
    def put(self, array, device_id):
        """``array`` on device ``device_id``: itself if already there, else a
        copy made there."""
        return array

    def device_of(self, array):
        """The id of the device holding ``array``."""
        return 0

    def on_device(self, device_id):
        """A context manager under which new buffers and kernels go to
        device ``device_id``."""
        return contextlib.nullcontext()

    def take_shard(self, array, index, device_id=0):
        """A fresh buffer on ``device_id`` holding ``array[index]`` (that
        device's block): a copy, so the block does not keep the global buffer
        alive."""
        with self.on_device(device_id):
            return self.xp.array(array[index], copy=True)

    def assemble(self, shape, dtype, pieces, device_id=0):
        """A fresh array of ``shape`` on ``device_id`` filled from
        ``(index, block)`` pairs (blocks may live on other devices)."""
        with self.on_device(device_id):
            out = self.xp.empty(shape, dtype=dtype)
            for index, block in pieces:
                out[index] = self.put(block, device_id)
        return out

    # -- devices ----------------------------------------------------------
    @abc.abstractmethod
    def device_count(self):
        """How many physical devices the library sees."""

    @abc.abstractmethod
    def device_kind(self):
        """JAX's ``device_kind`` string for this backend's devices."""

    # -- kernels whose spelling differs between libraries -----------------
    # Scatter contract: ``indices`` is a tuple of in-bounds integer arrays,
    # one per axis of ``target``, broadcastable against each other and
    # ``updates``; ``target`` is a fresh C-contiguous array updated in place
    # and returned.  Duplicate positions must all take effect.
    @abc.abstractmethod
    def scatter_add(self, target, indices, updates):
        """``target[indices] += updates`` in place, accumulating duplicates."""

    @abc.abstractmethod
    def scatter_mul(self, target, indices, updates):
        """``target[indices] *= updates`` in place, accumulating duplicates."""

    @abc.abstractmethod
    def scatter_min(self, target, indices, updates):
        """``target[indices] = min(target[indices], updates)``, all duplicates."""

    @abc.abstractmethod
    def scatter_max(self, target, indices, updates):
        """``target[indices] = max(target[indices], updates)``, all duplicates."""

    # -- kernels with a portable default (SPEC BE-6) ------------------------
    # NumPy has one-call spellings (ufunc.reduce/accumulate, lexsort with an
    # axis); CuPy has them only for some operations, so the defaults below
    # are written with basic array operations that every namespace has.
    def lexsort(self, keys):
        """Indices that stably sort the last axis by ``keys`` (same-shape
        arrays, the *last* one primary, as ``numpy.lexsort``)."""
        xp, perm = self.xp, None
        for key in keys:  # least significant first; each pass is stable
            if perm is not None:
                key = xp.take_along_axis(key, perm, axis=-1)
            order = xp.argsort(key, axis=-1, kind="stable")
            perm = order if perm is None else xp.take_along_axis(perm, order, axis=-1)
        return perm

    def reduce(self, op, x, axes):
        """``x`` reduced over ``axes`` (a tuple) with the associative ufunc
        named ``op`` (``bitwise_and``, ``bitwise_or``, ``bitwise_xor``...)."""
        return _tree_reduce(self.xp, getattr(self.xp, op), x, tuple(axes),
                            _IDENTITY[op](x.dtype))

    def cumulative(self, op, x, axis):
        """Inclusive scan of ``x`` along ``axis`` with the associative ufunc
        named ``op`` (``maximum``, ``minimum``, ``logaddexp``...)."""
        return _log_step_scan(self.xp, getattr(self.xp, op), x, axis)

    def linalg_errors(self):
        """A context manager under which ``xp.linalg`` raises its
        ``LinAlgError`` for a singular or non-definite matrix (refjax turns
        that into NaNs, as XLA does).  NumPy always raises."""
        return contextlib.nullcontext()

    def lapack(self, name, dtype):
        """The LAPACK routine ``name`` (``"syevd"``, ``"geqrf"``...) for
        ``dtype``, as the library JAX's CPU kernels call exposes it, or
        None: refjax then uses ``xp.linalg`` (SPEC LAX-11)."""
        return None

    def special(self, name):
        """The elementwise special function ``name`` (``erf``, ``erfc``,
        ``erfinv``, ``gammaln``, ``digamma``) on this backend's arrays."""
        raise NotImplementedError(f"backend {self.name!r} has no special "
                                  f"function {name!r}")

    def __repr__(self):
        return f"<refjax backend {self.name!r}>"


_IDENTITY = {
    "bitwise_and": lambda dt: ~dt.type(0),
    "bitwise_or": lambda dt: dt.type(0),
    "bitwise_xor": lambda dt: dt.type(0),
}


def _tree_reduce(xp, fn, x, axes, identity):
    """Reduce the trailing block of ``axes`` by halving: log2(n) kernel calls."""
    kept = [d for d in range(x.ndim) if d not in axes]
    kept_shape = tuple(x.shape[d] for d in kept)
    n = 1
    for d in axes:
        n *= x.shape[d]
    if n == 0:
        return xp.full(kept_shape, identity, dtype=x.dtype)
    x = xp.transpose(x, kept + list(axes)).reshape(kept_shape + (n,))
    while x.shape[-1] > 1:
        half = x.shape[-1] // 2
        head = fn(x[..., :half], x[..., half:2 * half])
        x = xp.concatenate([head, x[..., 2 * half:]], axis=-1)
    return x[..., 0]


def _log_step_scan(xp, fn, x, axis):
    """Hillis-Steele inclusive scan: after the pass with shift ``s`` every
    element combines the ``2 s`` elements ending at it."""
    x = xp.moveaxis(x, axis, -1)
    shift = 1
    while shift < x.shape[-1]:
        x = xp.concatenate([x[..., :shift], fn(x[..., :-shift], x[..., shift:])],
                           axis=-1)
        shift *= 2
    return xp.moveaxis(x, -1, axis)


# name -> "module:class", imported only when chosen so that a missing CuPy
# costs nothing until someone asks for it.
REGISTRY = {
    "numpy": "refjax.backends.numpy_backend:NumpyBackend",
    "cupy": "refjax.backends.cupy_backend:CupyBackend",
}


def load(name):
    """Instantiate the backend called ``name``.

    Raises ValueError for an unknown name and RuntimeError (from the backend)
    when its library or hardware is missing.
    """
    try:
        target = REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown refjax backend {name!r}; choose one of "
                         f"{sorted(REGISTRY)}") from None
    module_name, class_name = target.split(":")
    module = importlib.import_module(module_name)
    return getattr(module, class_name)()
