"""``refjax.lax``: the primitive operations, as ``jax.lax``.

This module holds the names; each primitive's rules live in
``refjax._src.lax``.
"""
# Each name is imported from the module that defines it.  refjax._src.lax.lax
# comes first: its sibling modules (dot, reductions, shapes, sorting) import it,
# and it imports them back.
from refjax._src.lax.lax import (  # noqa: F401
    RoundingMethod, abs, abs_p, acos, acos_p, acosh, acosh_p, add, add_p, and_p, asin,
    asin_p, asinh, asinh_p, atan, atan2, atan2_p, atan_p, atanh, atanh_p,
    bitcast_convert_type, bitcast_convert_type_p, bitwise_and, bitwise_not, bitwise_or,
    bitwise_xor, cbrt, cbrt_p, ceil, ceil_p, clamp, clamp_p, clz, clz_p, collapse,
    complex, complex_p, conj, conj_p, convert_element_type, convert_element_type_p, cos,
    cos_p, cosh, cosh_p, digamma, digamma_p, div, div_p, eq, eq_p, erf, erf_inv,
    erf_inv_p, erf_p, erfc, erfc_p, exp, exp2, exp2_p, exp_p, expm1, expm1_p, floor,
    floor_p, full, full_like, ge, ge_p, gt, gt_p, imag, imag_p, integer_pow,
    integer_pow_p, is_finite, is_finite_p, le, le_p, lgamma, lgamma_p, log, log1p,
    log1p_p, log_p, logistic, logistic_p, lt, lt_p, max, max_p, min, min_p, mul, mul_p,
    ne, ne_p, neg, neg_p, nextafter, nextafter_p, not_p, or_p, population_count,
    population_count_p, pow, pow_p, real, real_p, reciprocal, rem, rem_p, round,
    round_p, rsqrt, rsqrt_p, select, select_n, select_n_p, shift_left, shift_left_p,
    shift_right_arithmetic, shift_right_arithmetic_p, shift_right_logical,
    shift_right_logical_p, sign, sign_p, sin, sin_p, sinh, sinh_p, sqrt, sqrt_p, square,
    square_p, sub, sub_p, tan, tan_p, tanh, tanh_p, xor_p,
)
from refjax._src.interpreters.ad import stop_gradient, stop_gradient_p  # noqa: F401
from refjax._src.lax.control_flow.conditionals import cond, switch  # noqa: F401
from refjax._src.lax.control_flow.loops import while_loop  # noqa: F401
from refjax._src.lax.control_flow.scan import (  # noqa: F401
    associative_scan, fori_loop, map, scan,
)
from refjax._src.lax.convolution import (  # noqa: F401
    ConvDimensionNumbers, conv, conv_dimension_numbers, conv_general_dilated,
    conv_general_dilated_p, conv_with_general_padding, padtype_to_pads,
)
from refjax._src.lax.dot import (  # noqa: F401
    Precision, batch_matmul, dot, dot_general, dot_general_p,
)
from refjax._src.lax.fft import FftType, fft, fft_p  # noqa: F401
from refjax._src.lax.precision import reduce_precision, reduce_precision_p  # noqa: F401
from refjax._src.lax.parallel import (  # noqa: F401
    all_gather, all_gather_p, all_to_all, all_to_all_p, axis_index, axis_index_p,
    axis_size, pmax, pmax_p, pmean, pmin, pmin_p, ppermute, ppermute_p, pshuffle, psum,
    psum_p, psum_scatter, pswapaxes,
)
from refjax._src.lax.reductions import (  # noqa: F401
    argmax, argmax_p, argmin, argmin_p, cumlogsumexp, cumlogsumexp_p, cummax, cummax_p,
    cummin, cummin_p, cumprod, cumprod_p, cumsum, cumsum_p, reduce_and, reduce_and_p,
    reduce_max, reduce_max_p, reduce_min, reduce_min_p, reduce_or, reduce_or_p,
    reduce_prod, reduce_prod_p, reduce_sum, reduce_sum_p, reduce_xor, reduce_xor_p,
)
from refjax._src.lax.shapes import (  # noqa: F401
    broadcast, broadcast_in_dim, broadcast_in_dim_p, broadcast_to_rank,
    broadcasted_iota, concatenate, concatenate_p, copy_p, expand_dims, index_in_dim,
    iota, iota_p, pad, pad_p, reshape, reshape_p, rev, rev_p, slice, slice_in_dim,
    slice_p, split, split_p, squeeze, squeeze_p, stack, stack_p, tile, tile_p,
    transpose, transpose_p,
)
from refjax._src.lax.gather_scatter import (  # noqa: F401
    GatherDimensionNumbers, GatherScatterMode, ScatterDimensionNumbers, gather,
    gather_p, index_take, scatter, scatter_add, scatter_add_p, scatter_apply,
    scatter_max, scatter_max_p, scatter_min, scatter_min_p, scatter_mul, scatter_mul_p,
    scatter_p, scatter_sub, scatter_sub_p,
)
from refjax._src.lax.dynamic_slice import (  # noqa: F401
    dynamic_index_in_dim, dynamic_slice, dynamic_slice_in_dim, dynamic_slice_p,
    dynamic_update_index_in_dim, dynamic_update_slice, dynamic_update_slice_in_dim,
    dynamic_update_slice_p,
)
from refjax._src.lax.sorting import (  # noqa: F401
    sort, sort_key_val, sort_p, top_k, top_k_p,
)
from refjax._src.placement import with_sharding_constraint  # noqa: F401
from refjax.lax import linalg  # noqa: F401
from refjax._src.lax.generic_reduce import reduce, reduce_p  # noqa: F401
from refjax._src.lax.windowed_reductions import (  # noqa: F401
    reduce_window, reduce_window_max_p, reduce_window_min_p, reduce_window_p,
    reduce_window_shape_tuple, reduce_window_sum_p, select_and_gather_add_p,
    select_and_scatter_add_p, select_and_scatter_p,
)
from refjax._src.lax.convolution import conv_general_permutations  # noqa: F401
from refjax._src.lax.conv_extras import (  # noqa: F401
    ConvGeneralDilatedDimensionNumbers, conv_general_dilated_local,
    conv_general_dilated_patches, conv_general_shape_tuple, conv_shape_tuple,
    conv_transpose, conv_transpose_shape_tuple,
)
from refjax._src.lax.special import (  # noqa: F401
    betainc, bessel_i0e, bessel_i0e_p, bessel_i1e, bessel_i1e_p, igamma, igamma_grad_a,
    igamma_grad_a_p, igamma_p, igammac, igammac_p, polygamma, polygamma_p,
    random_gamma_grad, regularized_incomplete_beta_p, zeta, zeta_p,
)
from refjax._src.lax.control_flow.conditionals import cond_p  # noqa: F401
from refjax._src.lax.control_flow.loops import while_p  # noqa: F401
from refjax._src.lax.control_flow.scan import scan_p  # noqa: F401
from refjax._src.lax.control_flow.solves import (  # noqa: F401
    custom_linear_solve, custom_root, linear_solve_p,
)
from refjax._src.lax.dot_algorithms import (  # noqa: F401
    AccuracyMode, DotAlgorithm, DotAlgorithmPreset, DotDimensionNumbers, Tolerance,
)
from refjax._src.lax.misc_ops import (  # noqa: F401
    broadcast_like, broadcast_shapes, composite, dce_sink, dce_sink_p, device_put_p,
    dtype, empty, eq_to_p, le_to_p, lt_to_p, mulhi, mulhi_p, optimization_barrier,
    optimization_barrier_p, platform_dependent, shape_as_value, stage, stage_p, unstack,
    unstack_p,
)
from refjax._src.lax.ragged import (  # noqa: F401
    PrecisionLike, RaggedDotDimensionNumbers, ragged_dot, ragged_dot_general, scaled_dot,
)
from refjax._src.lax.rng_ann import (  # noqa: F401
    RandomAlgorithm, approx_max_k, approx_min_k, approx_top_k_p, rng_bit_generator,
    rng_bit_generator_p, rng_uniform, rng_uniform_p,
)
from refjax._src.lax.tokens import (  # noqa: F401
    after_all, after_all_p, create_token, create_token_p, pbroadcast, pcast, precv, psend,
    ragged_all_to_all, ragged_all_to_all_p,
)
from refjax._src.placement import sharding_constraint_p  # noqa: F401
