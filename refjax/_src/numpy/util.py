"""Argument checking and promotion shared by ``jax.numpy`` (SPEC NP-1, NP-2).

NumPy-style functions accept array-likes (arrays, NumPy values, Python
scalars), promote them to a common dtype with JAX's lattice (weak scalars
defer to arrays), and broadcast ranks by adding leading size-1 axes before
binding a ``lax`` primitive, which itself requires equal ranks.
"""
import warnings

import numpy as np

from refjax._src import config as _config
from refjax._src import core
from refjax._src import dtypes
from refjax._src.array import Array
from refjax._src.lax import lax


def check_arraylike(fun_name, *args):
    """TypeError naming ``fun_name`` for a non-array argument (lists included)."""
    for pos, arg in enumerate(args):
        if not core.is_array_like(arg):
            raise TypeError(f"{fun_name} requires ndarray or scalar arguments, got "
                            f"{type(arg)} at position {pos}.")


def promote_dtypes(*args):
    """Convert ``args`` to their common JAX dtype (weak only if all are weak)."""
    if len(args) < 2:
        return [lax._convert_element_type(a, None, core.get_aval(a).weak_type)
                for a in args]
    to_dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    return [lax._convert_element_type(a, to_dtype, weak) for a in args]


def promote_dtypes_inexact(*args):
    """Like ``promote_dtypes``, then to the default float if not inexact."""
    to_dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    to_dtype = to_inexact_dtype(to_dtype)
    return [lax._convert_element_type(a, to_dtype, weak) for a in args]


def promote_dtypes_numeric(*args):
    """Like ``promote_dtypes``, with bool promoted to the default int."""
    to_dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    if to_dtype == dtypes.bool_:
        to_dtype = dtypes.default_int_dtype()
    return [lax._convert_element_type(a, to_dtype, weak) for a in args]


def to_inexact_dtype(dtype):
    if dtypes.issubdtype(dtype, np.inexact):
        return dtype
    return dtypes.default_float_dtype()


def promote_shapes(fun_name, *args):
    """Give lower-rank operands leading size-1 axes (NumPy rank promotion).

    Rank-0 operands are left alone: primitives broadcast them.  Honours
    ``jax_numpy_rank_promotion`` ('allow', 'warn', 'raise').
    """
    if len(args) < 2:
        return list(args)
    shapes = [np.shape(a) if not isinstance(a, (Array,)) else a.shape for a in args]
    nonscalar = [len(s) for s in shapes if len(s)]
    if not nonscalar:
        return list(args)
    rank = max(nonscalar)
    if all(r == rank for r in nonscalar):
        return list(args)
    mode = _config.numpy_rank_promotion.value
    if mode != "allow":
        _rank_promotion_warning_or_error(fun_name, shapes, mode)
    return [a if len(s) in (0, rank) else lax.broadcast_to_rank(a, rank)
            for a, s in zip(args, shapes)]


def _rank_promotion_warning_or_error(fun_name, shapes, mode):
    msg = ("Following NumPy automatic rank promotion for {} on shapes {}. "
           "Set the jax_numpy_rank_promotion config option to 'allow' to "
           "disable this message; for more information, see "
           "https://docs.jax.dev/en/latest/rank_promotion_warning.html.")
    text = msg.format(fun_name, " ".join(str(s) for s in shapes))
    if mode == "warn":
        warnings.warn(text, stacklevel=4)
    else:
        raise ValueError(text)


def promote_args(fun_name, *args):
    """check_arraylike, promote_dtypes and promote_shapes, in that order."""
    check_arraylike(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes(*args))


def promote_args_inexact(fun_name, *args):
    check_arraylike(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes_inexact(*args))


def promote_args_numeric(fun_name, *args):
    check_arraylike(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes_numeric(*args))
