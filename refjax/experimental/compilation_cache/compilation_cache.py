"""``jax.experimental.compilation_cache.compilation_cache``: JAX's
persistent cache of compiled XLA executables (SPEC EXT-8).

refjax compiles jaxprs to Python closures held in memory and has nothing
to store on disk, so these accept their arguments and have no effect.
"""
__all__ = ["reset_cache", "set_cache_dir"]

_cache_dir = None


def set_cache_dir(path):
    """Remember ``path``; refjax writes no persistent cache there."""
    global _cache_dir
    _cache_dir = path


def reset_cache():
    """Forget the cache directory (there is no cache to clear)."""
    global _cache_dir
    _cache_dir = None
