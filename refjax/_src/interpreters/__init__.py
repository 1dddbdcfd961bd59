"""The interpreters that transformations are built from: partial evaluation
(tracing to jaxprs), AD (JVP and transposition), batching, and the key-reuse
signatures walked over jaxprs.  Each defines the rule combinators that
primitives use (``ad.defjvp``, ``batching.defbroadcasting``...)."""
