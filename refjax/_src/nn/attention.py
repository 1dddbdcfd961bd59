"""``jax.nn.dot_product_attention`` and the block-scaled matmuls
(SPEC NN-12, NN-13).

Attention is computed as JAX's portable ("xla") implementation defines it:
logits ``q . k`` in at least float32, scaled, biased, masked with a large
negative number, a float32 softmax over the keys, and the weighted sum of
the values.  Grouped-query attention (fewer key/value heads than query
heads) shares each key/value head among ``N // K`` query heads.
"""
import dataclasses

import ml_dtypes
import numpy as np

from refjax._src import dtypes
from refjax._src.interpreters.ad import stop_gradient
from refjax._src.lax import dot as lax_dot
from refjax._src.nn.functions import softmax
from refjax._src.nn.logsumexp import logsumexp
from refjax._src.numpy import contractions, creation, lax_numpy, ufuncs


def _as_4d(t):
    """Leading axes added until ``t`` has four (batch, seq, heads, features)."""
    t = creation.asarray(t)
    return lax_numpy.expand_dims(t, tuple(range(4 - t.ndim))) if t.ndim < 4 else t


def _check(t, shape, dtype, name):
    """JAX's ValueError when ``t`` (if given) differs from ``shape``
    (-1 matches any size) or ``dtype``."""
    if t is None:
        return
    if t.ndim != len(shape):
        raise ValueError(f"{name} ndim should be {len(shape)}, but got {t.ndim}")
    if dtype is not None and t.dtype != dtype:
        raise ValueError(f"{name} dtype should be {dtype}, but got {t.dtype}")
    if any(want not in (-1, got) for want, got in zip(shape, t.shape)):
        raise ValueError(f"{name} shape should be {list(shape)}: but got {t.shape}")


def _large_negative(dtype):
    """The masked-logit value: -0.7 times the dtype's largest finite value,
    capped at float32's so that the float32 softmax never sees -inf."""
    top = min(float(dtypes.finfo(dtype).max), float(np.finfo(np.float32).max))
    return creation.asarray(-0.7 * top, dtype=dtype)


def _grouped(t, heads, groups):
    """A (B, N or 1, T, S) bias or mask as (B, K, G, T, S)."""
    if t is None:
        return None
    b, n, tq, s = t.shape
    if n == 1:
        return lax_numpy.broadcast_to(t[:, :, None], (b, 1, groups, tq, s))
    return lax_numpy.reshape(t, (b, heads, groups, tq, s))


def _mask(logits, mask, is_causal, q_len, kv_len, window):
    """Where the (B, K, G, T, S) logits may attend, or None for everywhere."""
    tq, s = logits.shape[-2:]
    keep = None if mask is None else mask

    def both(a, b):
        return b if a is None else ufuncs.logical_and(a, b)

    # Positions as rank-5 arrays, so that the masks combine without rank
    # promotion (jax_numpy_rank_promotion='raise' allows none; SPEC NN-14).
    q_pos = lax_numpy.reshape(creation.arange(tq), (1, 1, 1, tq, 1))
    k_pos = lax_numpy.reshape(creation.arange(s), (1, 1, 1, 1, s))
    if is_causal:
        keep = both(keep, ufuncs.greater_equal(q_pos, k_pos))
    if window is not None:
        left, right = window
        keep = both(keep, ufuncs.logical_and(
            ufuncs.less_equal(q_pos, ufuncs.add(k_pos, left)),
            ufuncs.greater_equal(q_pos, ufuncs.subtract(k_pos, right))))
    if q_len is not None:
        rows = ufuncs.less(creation.arange(tq)[None, :], q_len[:, None])
        keep = both(keep, rows[:, None, None, :, None])
    if kv_len is not None:
        cols = ufuncs.less(creation.arange(s)[None, :], kv_len[:, None])
        keep = both(keep, cols[:, None, None, None, :])
    return keep


def _attend(q, k, v, bias, mask, *, scale, is_causal, q_len, kv_len, window,
            return_residual):
    b, tq, n, h = q.shape
    heads = k.shape[2]
    groups = n // heads
    q = lax_numpy.reshape(q, (b, tq, heads, groups, h))
    logits_dtype = dtypes.promote_types(q.dtype, np.float32)
    logits = contractions.einsum("btkgh,bskh->bkgts", q, k,
                                 preferred_element_type=logits_dtype)
    logits = ufuncs.multiply(logits, creation.asarray(scale, dtype=logits.dtype))
    if bias is not None:
        logits = ufuncs.add(logits, _grouped(bias, heads, groups)).astype(logits.dtype)
    keep = _mask(logits, _grouped(mask, heads, groups), is_causal, q_len, kv_len, window)
    if keep is not None:
        logits = lax_numpy.where(keep, logits, _large_negative(logits.dtype))
    logits = logits.astype(np.float32)
    probs = softmax(logits, axis=-1).astype(k.dtype)
    out = contractions.einsum("bkgts,bskh->btkgh", probs, v)
    if q_len is not None:
        rows = ufuncs.less(creation.arange(tq)[None, :], q_len[:, None])
        out = ufuncs.multiply(out, rows[:, :, None, None, None].astype(out.dtype))
    out = lax_numpy.reshape(out, (b, tq, n, h))
    if not return_residual:
        return out
    lse = logsumexp(logits, axis=-1).astype(k.dtype)                 # (B, K, G, T)
    lse = lax_numpy.reshape(lax_numpy.transpose(lse, (0, 3, 1, 2)), (b, tq, n))
    return out, stop_gradient(lse)


def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None,
                          is_causal=False, query_seq_lengths=None,
                          key_value_seq_lengths=None, local_window_size=None,
                          implementation=None, return_residual=False):
    """Scaled dot-product attention, ``softmax(q k^T * scale + bias) v``
    (SPEC NN-12).

    ``query`` is (B, T, N, H) and ``key``/``value`` (B, S, K, H) with
    ``N % K == 0`` (leading axes may be dropped: missing ones are added).
    ``scale`` defaults to ``1/sqrt(H)``.  ``mask`` (boolean), ``is_causal``,
    ``local_window_size`` (int or (left, right)) and the per-example
    sequence lengths (int32, shape (B,)) restrict which keys a query sees;
    padded query rows give zeros.  ``implementation`` is None or 'xla'
    ('cudnn' needs an NVIDIA GPU and cuDNN, as in JAX).  With
    ``return_residual`` the log-sum-exp of each query's logits, (B, T, N),
    comes back too, under ``stop_gradient``.
    """
    out_shape = creation.asarray(query).shape
    q, k, v = _as_4d(query), _as_4d(key), _as_4d(value)
    bias = None if bias is None else _as_4d(bias)
    mask = None if mask is None else _as_4d(mask)
    q_len = None if query_seq_lengths is None else creation.asarray(query_seq_lengths)
    kv_len = (None if key_value_seq_lengths is None
              else creation.asarray(key_value_seq_lengths))
    if isinstance(local_window_size, int):
        local_window_size = (local_window_size, local_window_size)
    b, s, heads, h = k.shape
    _check(v, (b, s, heads, h), k.dtype, "value")
    _check(q, (b, -1, -1, h), k.dtype, "query")
    _check(mask, (-1,) * 4, np.dtype(bool), "mask")
    _check(bias, (-1,) * 4, None, "bias")
    _check(q_len, (b,), np.dtype("int32"), "query_seq_lengths")
    _check(kv_len, (b,), np.dtype("int32"), "key_value_seq_lengths")
    if q.shape[-2] % heads:
        raise ValueError("The number of query heads must be a multiple of key/value "
                         f"heads, but got {q.shape[-2]} vs {heads}")
    if implementation == "cudnn":
        raise RuntimeError("cuDNN is not detected: dot_product_attention("
                           "implementation='cudnn') needs an NVIDIA GPU; use "
                           "implementation=None or 'xla'.")
    if implementation not in (None, "xla"):
        raise ValueError(f"Unsupported implementation option: {implementation}")
    scale = 1.0 / np.sqrt(h) if scale is None else scale
    out = _attend(q, k, v, bias, mask, scale=scale, is_causal=is_causal, q_len=q_len,
                  kv_len=kv_len, window=local_window_size,
                  return_residual=return_residual)
    if return_residual:
        out, lse = out
        return (lax_numpy.reshape(out, out_shape),
                lax_numpy.reshape(lse, out_shape[:-1]))
    return lax_numpy.reshape(out, out_shape)


# -- block-scaled matmuls (SPEC NN-13) -------------------------------------

@dataclasses.dataclass
class BlockScaleConfig:
    """How ``scaled_dot_general`` quantizes an operand: ``mode``
    ('nvfp4' or 'mxfp8'), the block size along the contracting axis, the
    element and scale types, an optional global scale, and ``infer_only``."""
    mode: str
    block_size: int
    data_type: type
    scale_type: type
    global_scale: object
    infer_only: bool


def get_scaled_dot_general_config(mode, global_scale=None):
    """The block-scale configuration of a named format (SPEC NN-13):
    'nvfp4' (16-element blocks of float4_e2m1fn scaled by float8_e4m3fn, with
    a global scale, 1 by default) or 'mxfp8' (32-element blocks of
    float8_e4m3fn scaled by float8_e8m0fnu)."""
    if mode == "nvfp4":
        one = creation.ones((1,), dtype=np.float32)
        return BlockScaleConfig("nvfp4", 16, ml_dtypes.float4_e2m1fn, ml_dtypes.float8_e4m3fn,
                                one if global_scale is None else global_scale, False)
    if mode == "mxfp8":
        return BlockScaleConfig("mxfp8", 32, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e8m0fnu,
                                None, False)
    raise ValueError(f"Unsupported mode: {mode}")


def _scaled_shapes_error(a, b, a_scales, b_scales):
    """JAX's message for operands and scales whose shapes do not line up."""
    if not all(x.ndim == 3 for x in (a, b, a_scales, b_scales)):
        return "scaled_matmul requires all inputs to be 3-dimensional arrays"
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[2]:
        return ("scaled_matmul requires inputs a and b to have matching batch (B) and "
                f"contract (K) dimensions, but got shapes {a.shape} and {b.shape}")
    if a_scales.shape[0] != b_scales.shape[0] or a_scales.shape[2] != b_scales.shape[2]:
        return ("scaled_matmul requires scales to have matching batch (B) and contract "
                f"(K) dimensions, but got shapes {a_scales.shape} and {b_scales.shape}")
    if a_scales.shape[1] != a.shape[1] or b_scales.shape[1] != b.shape[1]:
        return ("scaled_matmul requires scales to match non-contract dimensions of "
                f"inputs, but got shapes a: {a.shape}, b: {b.shape}, a_scales: "
                f"{a_scales.shape}, b_scales: {b_scales.shape}")
    return None


def scaled_matmul(lhs, rhs, lhs_scales, rhs_scales, preferred_element_type=np.float32):
    """``out[b, m, n] = sum_k lhs[b,m,k] * lhs_scales[b,m,k//blk] *
    rhs[b,n,k] * rhs_scales[b,n,k//blk]`` (SPEC NN-13).

    The operands are (B, M, K) and (B, N, K), their scales (B, M, K/blk) and
    (B, N, K/blk).  JAX runs this only through cuDNN on an NVIDIA GPU and
    raises NotImplementedError on CPU; refjax computes the definition.
    """
    error = _scaled_shapes_error(lhs, rhs, lhs_scales, rhs_scales)
    if error:
        raise ValueError(error)
    out_dtype = dtypes.canonicalize_dtype(preferred_element_type)

    def dequantize(x, scales):
        block = x.shape[2] // scales.shape[2]
        wide = lax_numpy.repeat(scales.astype(np.float32), block, axis=2)
        return ufuncs.multiply(x.astype(np.float32), wide)

    out = lax_dot.dot_general(dequantize(lhs, lhs_scales), dequantize(rhs, rhs_scales),
                              (((2,), (2,)), ((0,), (0,))),
                              preferred_element_type=np.float32)
    return out.astype(out_dtype)


def scaled_dot_general(lhs, rhs, dimension_numbers, preferred_element_type=np.float32,
                       configs=None, implementation=None):
    """``lax.dot_general`` with optional block-scaled quantization (SPEC NN-13).

    Without ``configs`` it is ``dot_general(lhs, rhs, dimension_numbers,
    preferred_element_type=...)``.  Quantizing through ``configs`` runs on
    cuDNN only, in JAX as here: on CPU it raises NotImplementedError.
    """
    if implementation is not None:
        import warnings
        warnings.warn("Backend selector, now ignored. The system chooses the backend "
                      "automatically.", DeprecationWarning, stacklevel=2)
    if configs is None:
        return lax_dot.dot_general(lhs, rhs, dimension_numbers,
                                   preferred_element_type=preferred_element_type)
    raise NotImplementedError(
        "scaled_dot_general with block-scale configs quantizes through cuDNN, which "
        "only NVIDIA GPUs have (JAX raises on CPU too); call it without configs, or "
        "quantize by hand and use jax.nn.scaled_matmul.")
