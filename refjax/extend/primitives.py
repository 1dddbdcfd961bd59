"""``jax.extend.core.primitives``: the primitives of ``lax`` and the
transformations, by their JAX names (SPEC EXT-4).

Each name is refjax's own Primitive object of that name; the JAX names
refjax has no primitive for are listed in ``MISSING``.  Names resolve on
first use, when every refjax module defining a primitive is loaded.
"""
import sys as _sys

from refjax._src.core import Primitive as _Primitive

_JAX_NAMES = """
abs_p acos_p acosh_p add_jaxvals_p add_p after_all_p all_gather_p
all_to_all_p and_p approx_top_k_p argmax_p argmin_p asin_p asinh_p atan2_p
atan_p atanh_p axis_index_p bessel_i0e_p bessel_i1e_p bitcast_convert_type_p
broadcast_in_dim_p call_p cbrt_p ceil_p cholesky_p clamp_p closed_call_p
clz_p complex_p concatenate_p cond_p conj_p conv_general_dilated_p
convert_element_type_p copy_p cos_p cosh_p create_token_p cumlogsumexp_p
cummax_p cummin_p cumprod_p cumsum_p custom_jvp_call_p custom_lin_p
custom_vjp_call_p device_put_p digamma_p div_p dot_general_p dynamic_slice_p
dynamic_update_slice_p eig_p eigh_p empty2_p eq_p eq_to_p erf_inv_p erf_p
erfc_p exp2_p exp_p expm1_p fft_p floor_p gather_p ge_p get_p gt_p
hessenberg_p householder_product_p igamma_grad_a_p igamma_p igammac_p imag_p
integer_pow_p iota_p is_finite_p jit_p le_p le_to_p lgamma_p linear_solve_p
log1p_p log_p logistic_p lt_p lt_to_p lu_p max_p min_p mul_p name_p ne_p
neg_p nextafter_p not_p or_p pad_p pmax_p pmin_p polygamma_p
population_count_p pow_p ppermute_p psum_p qr_p ragged_all_to_all_p
random_bits_p random_fold_in_p random_gamma_p random_seed_p random_split_p
real_p reduce_and_p reduce_max_p reduce_min_p reduce_or_p reduce_p
reduce_precision_p reduce_prod_p reduce_sum_p reduce_window_max_p
reduce_window_min_p reduce_window_p reduce_window_sum_p reduce_xor_p
regularized_incomplete_beta_p rem_p remat_p reshape_p rev_p
rng_bit_generator_p rng_uniform_p round_p rsqrt_p scan_p scatter_add_p
scatter_max_p scatter_min_p scatter_mul_p scatter_p schur_p
select_and_gather_add_p select_and_scatter_add_p select_and_scatter_p
select_n_p sharding_constraint_p shift_left_p shift_right_arithmetic_p
shift_right_logical_p sign_p sin_p sinh_p slice_p sort_p sqrt_p square_p
squeeze_p stop_gradient_p sub_p svd_p swap_p tan_p tanh_p threefry2x32_p
top_k_p transpose_p triangular_solve_p tridiagonal_p tridiagonal_solve_p
while_p xor_p zeta_p
""".split()

# Names refjax spells differently from JAX.
_ALIASES = {"add_jaxvals_p": "add_any_p"}


def _find():
    found = {}
    for name, module in sorted(_sys.modules.items()):
        if module is None or not name.startswith("refjax._src"):
            continue
        for attr, value in list(vars(module).items()):
            if attr.endswith("_p") and isinstance(value, _Primitive):
                found.setdefault(attr, value)
    return found


_resolved = {}


def _resolve():
    """Name -> Primitive, found once refjax is fully imported (this module
    may be imported while refjax itself is still loading)."""
    if not _resolved:
        found = _find()
        for name in _JAX_NAMES:
            prim = found.get(_ALIASES.get(name, name))
            _resolved[name] = prim
    return _resolved


def __getattr__(name):
    prim = _resolve().get(name)
    if prim is None:
        if name == "MISSING":
            return [n for n, p in _resolve().items() if p is None]
        raise AttributeError(f"module 'refjax.extend.core.primitives' has no "
                             f"attribute {name!r}")
    return prim


def __dir__():
    return sorted([n for n, p in _resolve().items() if p is not None] + ["MISSING"])
