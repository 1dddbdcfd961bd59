"""Array-library backends for refjax, installed as ``refjax.backends``.

The core of refjax never calls NumPy or CuPy kernels directly: every
primitive implementation asks the active backend (``refjax._src.backend.get()``)
for its array namespace or for one of the few kernels whose spelling differs
between libraries.  A backend is a small object implementing :class:`Backend`.

Adding a library means writing one subclass and naming it in ``REGISTRY``.
"""
import abc
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

    # -- shards (SPEC SHD-14) ---------------------------------------------
    def take_shard(self, array, index):
        """A fresh buffer holding ``array[index]`` (a device's block): a copy,
        so the block does not keep the global buffer alive."""
        return self.xp.array(array[index], copy=True)

    def assemble(self, shape, dtype, pieces):
        """A fresh array of ``shape`` filled from ``(index, block)`` pairs."""
        out = self.xp.empty(shape, dtype=dtype)
        for index, block in pieces:
            out[index] = block
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

    def special(self, name):
        """The elementwise special function ``name`` (``erf``, ``erfc``,
        ``erfinv``, ``gammaln``, ``digamma``) on this backend's arrays."""
        raise NotImplementedError(f"backend {self.name!r} has no special "
                                  f"function {name!r}")

    def __repr__(self):
        return f"<refjax backend {self.name!r}>"


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
