"""``refjax.lax``: the primitive operations, as ``jax.lax``.

This module holds the names; each primitive's rules live in
``refjax._src.lax``.
"""
from refjax._src.lax.lax import (  # noqa: F401
    Precision, RoundingMethod,
    abs, acos, acosh, add, argmax, argmin, asin, asinh, atan, atan2, atanh,
    bitcast_convert_type, bitwise_and, bitwise_not, bitwise_or, bitwise_xor,
    broadcast, broadcast_in_dim, broadcast_to_rank, broadcasted_iota, cbrt,
    ceil, clamp, clz, complex, concatenate, conj, convert_element_type, cos,
    cosh, cumlogsumexp, cummax, cummin, cumprod, cumsum, digamma, div, dot,
    dot_general, eq, erf, erf_inv, erfc, exp, exp2, expand_dims, expm1, floor,
    ge, gt, imag, index_in_dim, integer_pow, iota, is_finite, le, lgamma, log,
    log1p, logistic, lt, max, min, mul, ne, neg, nextafter, pad,
    population_count, pow, real, reduce_and, reduce_max, reduce_min,
    reduce_or, reduce_prod, reduce_sum, reduce_xor, rem, reshape, rev, round,
    rsqrt, select, select_n, shift_left, shift_right_arithmetic,
    shift_right_logical, sign, sin, sinh, slice, slice_in_dim, sort,
    sort_key_val, sqrt, squeeze, sub, tan, tanh, transpose,
)
from refjax._src.lax.lax import (  # noqa: F401
    abs_p, add_p, argmax_p, argmin_p, bitcast_convert_type_p,
    broadcast_in_dim_p, clamp_p, concatenate_p, convert_element_type_p, copy_p,
    cumsum_p, cumprod_p, cummax_p, cummin_p, div_p, dot_general_p, eq_p, exp_p,
    iota_p, log_p, max_p, min_p, mul_p, neg_p, pad_p, reduce_and_p,
    reduce_max_p, reduce_min_p, reduce_or_p, reduce_prod_p, reduce_sum_p,
    reshape_p, rev_p, select_n_p, sin_p, slice_p, sort_p, squeeze_p, sub_p,
    transpose_p,
)
from refjax._src.lax.lax import split, split_p, stack, stack_p, tile, tile_p  # noqa: F401,E402
from refjax._src.lax.convolution import (  # noqa: F401,E402
    ConvDimensionNumbers, conv, conv_dimension_numbers, conv_general_dilated,
    conv_general_dilated_p, conv_with_general_padding, padtype_to_pads,
)
from refjax._src.lax.other import (  # noqa: F401,E402
    reduce_precision, reduce_precision_p, top_k, top_k_p,
)
