"""``jax.numpy``'s internals, built on lax: array creation, ufuncs,
reductions, shape functions (``lax_numpy``), contractions, indexing, sorting,
padding, signal processing, linear algebra, FFTs and Array's methods."""
