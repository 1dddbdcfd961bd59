"""``refjax.nn``: neural-network helpers, as ``jax.nn``.

This module holds the names; their rules live in ``refjax._src.nn``.
"""
from refjax._src.nn.attention import (  # noqa: F401
    dot_product_attention, get_scaled_dot_general_config, scaled_dot_general,
    scaled_matmul,
)
from refjax._src.nn.extra_functions import (  # noqa: F401
    log1mexp, logmeanexp, mish, squareplus, tanh,
)
from refjax._src.nn.functions import (  # noqa: F401
    celu, elu, gelu, glu, hard_sigmoid, hard_silu, hard_swish, hard_tanh,
    identity, leaky_relu, log_sigmoid, log_softmax, one_hot, relu, relu6, selu,
    sigmoid, silu, soft_sign, softmax, softplus, sparse_plus, sparse_sigmoid,
    standardize, swish,
)
from refjax._src.nn.logsumexp import logsumexp  # noqa: F401
from refjax.nn import initializers  # noqa: F401
