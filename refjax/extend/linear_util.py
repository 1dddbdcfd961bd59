"""``jax.extend.linear_util``: functions wrapped with a stack of
transformations (SPEC EXT-6).

A :class:`WrappedFun` is a function ``f`` plus transformations applied
around it; ``call_wrapped`` runs the composition.  A transformation is a
function ``gen(f, *static_args, *args)`` receiving the inner function
``f`` (``transformation2``), or also a :class:`Store` for an auxiliary
output (``transformation_with_aux2``).  The generator forms
(``transformation``, ``transformation_with_aux``: ``yield`` the inner
call's arguments, receive its result, ``yield`` the outer result) are
supported as well.
"""
import functools
import weakref
from collections.abc import Callable  # noqa: F401  (JAX's module exposes it)

__all__ = [
    "Callable", "StoreException", "WrappedFun", "cache", "merge_linear_aux",
    "transformation", "transformation2", "transformation_with_aux",
    "transformation_with_aux2", "wrap_init",
]


class StoreException(Exception):
    """Reading an empty store, or storing twice."""


_EMPTY = object()


class Store:
    """A slot for one auxiliary output, filled when the function runs."""

    __slots__ = ("_val",)

    def __init__(self):
        self._val = _EMPTY

    def store(self, val):
        if self._val is not _EMPTY:
            raise StoreException("Store occupied")
        self._val = val

    def reset(self):
        self._val = _EMPTY

    @property
    def val(self):
        if self._val is _EMPTY:
            raise StoreException("Store empty")
        return self._val


class WrappedFun:
    """``f`` with ``transforms`` applied around it (outermost first)."""

    __slots__ = ("f", "f_transformed", "transforms", "stores", "params",
                 "in_type", "debug_info")

    def __init__(self, f, f_transformed, transforms, stores, params, in_type,
                 debug_info):
        self.f = f
        self.f_transformed = f_transformed
        self.transforms = transforms
        self.stores = stores
        self.params = params
        self.in_type = in_type
        self.debug_info = debug_info

    @property
    def __name__(self):
        return getattr(self.f, "__name__", "<unnamed wrapped function>")

    def wrap(self, gen, static_args, store):
        """This function with one more transformation outside it."""
        inner = self.f_transformed
        outer = (functools.partial(gen, inner, *static_args) if store is None
                 else functools.partial(gen, inner, store, *static_args))
        return WrappedFun(self.f, outer, ((gen, static_args),) + self.transforms,
                          (store,) + self.stores, self.params, None, self.debug_info)

    def call_wrapped(self, *args, **kwargs):
        """Run ``f`` under every transformation."""
        return self.f_transformed(*args, **kwargs)

    def populate_stores(self, stores):
        for mine, other in zip(self.stores, stores):
            if mine is not None:
                mine.store(other.val)

    def __repr__(self):
        names = [getattr(g, "__name__", repr(g)) for g, _ in self.transforms]
        return f"Wrapped function: {' . '.join(names + [self.__name__])}"

    def _key(self):
        return (self.f, self.transforms, self.params, self.in_type)

    def __hash__(self):
        return hash(self._key())

    def __eq__(self, other):
        return isinstance(other, WrappedFun) and self._key() == other._key()


def wrap_init(f, params=None, *, debug_info=None):
    """``f`` as a WrappedFun with no transformation; ``params`` are passed
    to ``f`` as keyword arguments."""
    params = tuple(sorted((params or {}).items()))
    call = functools.partial(f, **dict(params)) if params else f
    return WrappedFun(f, call, (), (), params, None, debug_info)


def transformation2(gen, fun=None, *static_args):
    """``transformation2(gen)(fun, *static_args)``: ``fun`` wrapped in
    ``gen(inner, *static_args, *args)``."""
    if fun is None:
        return lambda fun, *static: fun.wrap(gen, static, None)
    return fun.wrap(gen, static_args, None)


def transformation_with_aux2(gen, fun=None, *static_args, use_eq_store=False,
                             unk_names=False):
    """As :func:`transformation2`, ``gen(inner, store, *static_args, *args)``
    also storing an auxiliary output; returns ``(fun, aux_thunk)``."""
    def apply(fun, *static):
        store = Store()
        return fun.wrap(gen, static, store), lambda: store.val
    if fun is None:
        return apply
    return apply(fun, *static_args)


def _run_generator(gen, f, args, kwargs, store=None):
    g = gen(*args, **kwargs)
    inner_args, inner_kwargs = next(g)
    out = g.send(f(*inner_args, **inner_kwargs))
    if store is None:
        return out
    ans, aux = out
    store.store(aux)
    return ans


def transformation(gen, fun=None, *static_args):
    """The generator form: ``gen(*static_args, *args)`` yields the inner
    call's ``(args, kwargs)``, receives its result, yields the result."""
    def apply(fun, *static):
        def gen2(f, *args, **kwargs):
            return _run_generator(gen, f, static + args, kwargs)
        return fun.wrap(gen2, (), None)
    if fun is None:
        return apply
    return apply(fun, *static_args)


def transformation_with_aux(gen, fun=None, *static_args):
    """The generator form with an auxiliary output (yields ``(ans, aux)``)."""
    def apply(fun, *static):
        store = Store()

        def gen2(f, st, *args, **kwargs):
            return _run_generator(gen, f, static + args, kwargs, st)
        return fun.wrap(gen2, (), store), lambda: store.val
    if fun is None:
        return apply
    return apply(fun, *static_args)


def cache(call, *, explain=None):
    """Memoize ``call(fun, *args)`` on ``fun``'s function, transformations
    and params and on ``args`` (kept while ``fun.f`` lives)."""
    caches = weakref.WeakKeyDictionary()

    def memoized(fun, *args):
        table = caches.setdefault(fun.f, {})
        key = (fun.transforms, fun.params, fun.in_type, args)
        hit = table.get(key)
        if hit is not None:
            ans, stores = hit
            fun.populate_stores(stores)
            return ans
        ans = call(fun, *args)
        table[key] = (ans, fun.stores)
        return ans

    memoized.cache_clear = caches.clear
    memoized.evict_function = lambda f: caches.pop(f, None)
    return memoized


def merge_linear_aux(aux1, aux2):
    """``(True, aux1())`` or ``(False, aux2())``: exactly one of the two
    stores must be filled."""
    try:
        out1 = aux1()
    except StoreException:
        try:
            return False, aux2()
        except StoreException:
            raise StoreException("neither store occupied") from None
    try:
        aux2()
    except StoreException:
        return True, out1
    raise StoreException("both stores occupied")
