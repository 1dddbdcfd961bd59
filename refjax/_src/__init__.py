"""refjax internals: the rules behind the public modules.

The modules form layers; each imports only from its own layer or below
(README "Layout"; ``tests/test_layers.py`` checks it):

0. base: ``config``, ``dtypes``, ``tree_util``, ``errors``, ``devices``,
   ``backend``, ``mesh``, ``array``, ``pretty_printer``, ``fperrors``, ``casting``;
1. ``core``: avals, ``Primitive`` and its rule slots, traces, tracers, jaxprs;
2. ``interpreters/``: partial evaluation, AD, batching, key-reuse signatures;
3. running programs: ``dispatch`` (eager), ``compiler`` (jaxprs), ``placement``;
4. the transformations lax uses: ``api`` (jit), ``vmap_api``, ``custom_derivatives``;
5. ``lax/``: the primitives, each with all of its rules;
6. features: ``numpy/``, ``nn/``, ``scipy/``, ``random/``, ``sharding/``,
   ``ad_api`` (grad, jacobians), ``ad_checkpoint``, ``debugging``, ``checkify``;
7. tools over the public API: ``public_test_util``, ``conformance_cli``,
   ``primitive_index``.
"""
