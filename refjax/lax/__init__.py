"""``refjax.lax``: the primitive operations, as ``jax.lax``.

This module holds the names; each primitive's rules live in
``refjax._src.lax``.
"""
from refjax._src.lax.lax import (  # noqa: F401
    Precision, RoundingMethod, abs, batch_matmul, collapse, full, full_like, reciprocal, acos, acosh, add, argmax, argmin, asin,
    asinh, atan, atan2, atanh, bitcast_convert_type, bitwise_and,
    bitwise_not, bitwise_or, bitwise_xor, broadcast, broadcast_in_dim,
    broadcast_to_rank, broadcasted_iota, cbrt, ceil, clamp, clz, complex,
    concatenate, conj, convert_element_type, cos, cosh, cumlogsumexp,
    cummax, cummin, cumprod, cumsum, digamma, div, dot, dot_general, eq,
    erf, erf_inv, erfc, exp, exp2, expand_dims, expm1, floor, ge, gt, imag,
    index_in_dim, integer_pow, iota, is_finite, le, lgamma, log, log1p,
    logistic, lt, max, min, mul, ne, neg, nextafter, pad,
    population_count, pow, real, reduce_and, reduce_max, reduce_min,
    reduce_or, reduce_prod, reduce_sum, reduce_xor, rem, reshape, rev,
    round, rsqrt, select, select_n, shift_left, shift_right_arithmetic,
    shift_right_logical, sign, sin, sinh, slice, slice_in_dim, sort,
    sort_key_val, split, sqrt, square, squeeze, stack, sub, tan, tanh, tile,
    transpose,
)
from refjax._src.lax.lax import (  # noqa: F401
    abs_p, acos_p, acosh_p, add_p, and_p, argmax_p, argmin_p, asin_p,
    asinh_p, atan2_p, atan_p, atanh_p, bitcast_convert_type_p,
    broadcast_in_dim_p, cbrt_p, ceil_p, clamp_p, clz_p, complex_p,
    concatenate_p, conj_p, convert_element_type_p, copy_p, cos_p, cosh_p,
    cumlogsumexp_p, cummax_p, cummin_p, cumprod_p, cumsum_p, digamma_p,
    div_p, dot_general_p, eq_p, erf_inv_p, erf_p, erfc_p, exp2_p, exp_p,
    expm1_p, floor_p, ge_p, gt_p, imag_p, integer_pow_p, iota_p,
    is_finite_p, le_p, lgamma_p, log1p_p, log_p, logistic_p, lt_p, max_p,
    min_p, mul_p, ne_p, neg_p, nextafter_p, not_p, or_p, pad_p,
    population_count_p, pow_p, real_p, reduce_and_p, reduce_max_p,
    reduce_min_p, reduce_or_p, reduce_prod_p, reduce_sum_p, reduce_xor_p,
    rem_p, reshape_p, rev_p, round_p, rsqrt_p, select_n_p, shift_left_p,
    shift_right_arithmetic_p, shift_right_logical_p, sign_p, sin_p, sinh_p,
    slice_p, sort_p, split_p, sqrt_p, square_p, squeeze_p, stack_p, sub_p,
    tan_p, tanh_p, tile_p, transpose_p, xor_p,
)
from refjax._src.lax.convolution import (  # noqa: F401,E402
    ConvDimensionNumbers, conv, conv_dimension_numbers, conv_general_dilated,
    conv_general_dilated_p, conv_with_general_padding, padtype_to_pads,
)
from refjax._src.lax.fft import FftType, fft, fft_p  # noqa: F401,E402
from refjax._src.lax.other import (  # noqa: F401,E402
    reduce_precision, reduce_precision_p, top_k, top_k_p,
)
from refjax._src.lax.slicing import (  # noqa: F401,E402
    dynamic_index_in_dim, dynamic_slice, dynamic_slice_in_dim, dynamic_slice_p,
)
from refjax._src.lax.slicing import (  # noqa: F401,E402
    GatherDimensionNumbers, GatherScatterMode, ScatterDimensionNumbers,
    dynamic_update_index_in_dim, dynamic_update_slice,
    dynamic_update_slice_in_dim, dynamic_update_slice_p, gather, gather_p,
    index_take, scatter, scatter_add, scatter_add_p, scatter_apply,
    scatter_max, scatter_max_p, scatter_min, scatter_min_p, scatter_mul,
    scatter_mul_p, scatter_p, scatter_sub, scatter_sub_p,
)
from refjax._src.ad import stop_gradient, stop_gradient_p  # noqa: F401,E402
from refjax.lax import linalg  # noqa: E402,F401
from refjax._src.lax.parallel import (  # noqa: F401,E402
    all_gather, all_gather_p, all_to_all, all_to_all_p, axis_index,
    axis_index_p, axis_size, pmax, pmax_p, pmean, pmin, pmin_p, ppermute,
    ppermute_p, pshuffle, psum, psum_p, psum_scatter, pswapaxes,
)
from refjax._src.lax.control_flow.conditionals import cond, switch  # noqa: F401,E402
from refjax._src.lax.control_flow.loops import while_loop  # noqa: F401,E402
from refjax._src.lax.control_flow.scan import (  # noqa: F401,E402
    associative_scan, fori_loop, map, scan,
)
from refjax._src.sharding_impl import with_sharding_constraint  # noqa: F401,E402
