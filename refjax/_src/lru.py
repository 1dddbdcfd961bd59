"""Bounded, thread-safe caches (SPEC THR-4 .. THR-6).

Every cache refjax keeps across calls is bounded, so that a program calling
``jit(f)`` on ever new shapes or static values runs in flat memory, and
``jax.clear_caches()`` empties every one of them.

* :class:`LRU` drops the least recently used entry past its bound.  A hit
  reorders the entries, so every operation holds the cache's lock: two
  threads sharing a cache can never leave it inconsistent.
* :func:`put_bounded` fills a plain ``dict`` for hot paths that can afford
  one ``dict`` lookup and nothing more: reads take no lock and do not
  reorder; past the bound the oldest insertion goes.
* :func:`register` / :func:`clear_all`: the module-level caches that
  ``jax.clear_caches`` empties (per-function jit caches are found through
  the jit functions themselves).

The default bounds are JAX's: 8192 call signatures per jitted function, and
2048 entries in a tracing cache.
"""
import collections
import threading

__all__ = ["LRU", "put_bounded", "JIT_CACHE_SIZE", "TRACE_CACHE_SIZE",
           "cached_per", "register", "clear_all"]

JIT_CACHE_SIZE = 8192       # call signatures per jitted function (JAX's bound)
TRACE_CACHE_SIZE = 2048     # entries of one tracing cache (JAX's LRU bound)


class LRU:
    """A mapping of at most ``maxsize`` entries, least recently used first
    out (SPEC THR-4).  ``get`` counts as a use."""

    __slots__ = ("maxsize", "_data", "_lock", "__weakref__")

    def __init__(self, maxsize):
        if maxsize < 1:
            raise ValueError(f"an LRU cache needs room for an entry; got maxsize={maxsize}")
        self.maxsize = maxsize
        self._data = collections.OrderedDict()
        # Reentrant: hashing or comparing a key may run user code (a static
        # argument's __eq__) that uses the same cache.
        self._lock = threading.RLock()

    def get(self, key, default=None):
        with self._lock:
            try:
                self._data.move_to_end(key)
            except KeyError:
                return default
            return self._data[key]

    def __setitem__(self, key, value):
        with self._lock:
            # Evict first, so that a lock-free ``len`` never sees maxsize + 1.
            if key in self._data:
                self._data.move_to_end(key)
            else:
                while len(self._data) >= self.maxsize:
                    self._data.popitem(last=False)
            self._data[key] = value

    def setdefault(self, key, value):
        """The entry for ``key``, inserting ``value`` when there is none."""
        with self._lock:
            found = self.get(key, _MISSING)
            if found is _MISSING:
                self[key] = found = value
            return found

    def __contains__(self, key):
        with self._lock:
            return key in self._data

    def __len__(self):
        return len(self._data)

    def keys(self):
        with self._lock:
            return list(self._data)

    def values(self):
        with self._lock:
            return list(self._data.values())

    def clear(self):
        with self._lock:
            self._data.clear()

    def __repr__(self):
        return f"LRU(maxsize={self.maxsize}, size={len(self)})"


_MISSING = object()


_put_lock = threading.Lock()


def put_bounded(table, key, value, maxsize):
    """``table[key] = value`` on a plain ``dict`` of at most ``maxsize``
    entries: past the bound the oldest insertion goes (SPEC THR-5).

    For the hot paths (a warmed ``jit`` call, an eager operation), whose
    lookups stay a bare ``table[key]`` or ``table.get(key)``: no lock, no
    reordering, and an exact ``dict`` (a subclass would make every lookup
    slower).  A dropped entry sends its next call down the slow path once
    more.  Inserts take a lock so that two never evict at once."""
    with _put_lock:
        if len(table) >= maxsize and key not in table:
            try:
                del table[next(iter(table))]
            except (StopIteration, KeyError, RuntimeError):
                pass    # emptied meanwhile by clear(), which takes no lock
        table[key] = value


def cached_per(cache, obj, key, build):
    """``build(obj, key)``, remembered in ``cache`` (a WeakKeyDictionary:
    ``obj`` -> :class:`LRU` of ``TRACE_CACHE_SIZE``) for as long as ``obj``
    lives.  ``build`` runs outside any lock: it may trace, and so come back
    here for an inner jaxpr."""
    per = cache.get(obj)
    if per is None:
        per = cache.setdefault(obj, LRU(TRACE_CACHE_SIZE))
    found = per.get(key, _MISSING)
    if found is _MISSING:
        found = build(obj, key)
        per[key] = found
    return found


_caches = []


def register(cache):
    """Have ``jax.clear_caches()`` empty ``cache`` (anything with ``clear``);
    returns ``cache``."""
    _caches.append(cache)
    return cache


def clear_all():
    """Empty every registered cache (SPEC THR-6)."""
    for cache in list(_caches):
        cache.clear()
