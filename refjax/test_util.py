"""``refjax.test_util``: derivative checks, as ``jax.test_util``.

``check_grads(f, args, order)`` compares automatic derivatives with finite
differences (SPEC AD-40); the rules live in ``refjax._src.public_test_util``.
"""
from refjax._src.public_test_util import (  # noqa: F401
    check_grads as check_grads,
    check_jvp as check_jvp,
    check_vjp as check_vjp,
)
