"""The mutants: realistic semantic faults, each planted alone in a copy of
refjax and run against the test files that should notice it (SPEC MUT-1).

Each :class:`Mutant` names a file under ``refjax/`` (``backends/...`` for the
top-level backends directory), a piece of its text that must occur there
exactly once, the text that replaces it, the test files (or node ids) that
should fail, and a one-line description of the bug.  A mutant that cannot
change any observable behaviour carries ``equivalent=`` with the reason: it
is still run, but it does not count in the score.

Keep each selection focused (a mutant should take well under a minute) and
keep the original text short but unique; ``tests/test_mutation_catalogue.py``
checks every mutant still applies to the tree.
"""
from typing import NamedTuple, Optional, Tuple


class Mutant(NamedTuple):
    id: str
    file: str
    old: str
    new: str
    tests: Tuple[str, ...]
    description: str
    equivalent: Optional[str] = None

    @property
    def area(self):
        return self.id.split("-", 1)[0]


M = Mutant
CF = "_src/lax/control_flow/"
RND = "_src/random/"
SWITCH_TESTS = "conformance/test_control_flow_switch_index.py"
# lax.switch's clamp and its disable_jit shortcut, as they stand in the source.
_SWITCH_CLAMP = ("    index = lax.clamp(np.array(0, np.int32), index, "
                 "np.array(len(branches) - 1, np.int32))\n")
_SWITCH_EAGER = ("    if _config.disable_jit.value and _is_concrete(index):\n"
                 "        return branches[int(core.concrete_value(index))](*operands)\n")

MUTANTS = (
    # -- dtypes -------------------------------------------------------------
    M("dt-bf16-f16-join", "_src/dtypes.py",
      "bfloat16: [float32], float16: [float32],",
      "bfloat16: [float16], float16: [float32],",
      ("conformance/test_dtypes.py",),
      "promotion lattice: bfloat16 placed below float16, so bf16 + f16 gives f16"),
    M("dt-int8-edge", "_src/dtypes.py",
      "int8: [int16], int16: [int32],", "int8: [int32], int16: [int32],",
      ("conformance/test_dtypes.py",),
      "promotion lattice: int8 joins int32 directly (int8 + int16 gives int32)"),
    M("dt-x64-uint64", "_src/dtypes.py",
      "_X64_TO_X32 = {int64: int32, uint64: uint32,",
      "_X64_TO_X32 = {int64: int32, uint64: int32,",
      ("conformance/test_dtypes.py",),
      "x64 canonicalization: uint64 becomes int32 (not uint32) with x64 off"),
    M("dt-weak-dropped", "_src/dtypes.py",
      "    weak = isinstance(node, type)\n", "    weak = False\n",
      ("conformance/test_dtypes.py",),
      "result_type drops the weak type of an all-weak combination"),
    M("dt-u32-i32-x32", "_src/dtypes.py",
      "uint32: [int64, uint64] if x64 else [int32, uint64],",
      "uint32: [int64, uint64],",
      ("conformance/test_dtypes.py",),
      "u32 x i32 joined at int64 even with x64 off"),
    M("dt-python-bool-weak", "_src/dtypes.py",
      "            return bool_, False\n", "            return bool_, True\n",
      ("conformance/test_dtypes.py", "conformance/test_arrays.py"),
      "Python bool scalars reported as weakly typed"),

    # -- lax ------------------------------------------------------------------
    M("lax-gather-clamp", "_src/lax/gather_scatter.py",
      "xp.clip(s, 0, max(size - w, 0))", "xp.clip(s, 0, max(size - w - 1, 0))",
      ("conformance/test_lax_slicing.py", "conformance/test_indexing_basic.py"),
      "gather/scatter CLIP clamps window starts one short of the end"),
    M("lax-dslice-clamp", "_src/lax/dynamic_slice.py",
      "lo = min(max(int(start), 0), size - want)",
      "lo = min(max(int(start), 0), max(size - want - 1, 0))",
      ("conformance/test_lax_slicing.py",),
      "dynamic_slice clamps starts one short of the end"),
    M("lax-rem-by-zero", "_src/lax/arith_kernels.py",
      "return xp.where(zero, x, xp.fmod(x, safe)).astype(x.dtype)",
      "return xp.where(zero, 0, xp.fmod(x, safe)).astype(x.dtype)",
      ("conformance/test_lax.py", "conformance/test_numpy_ufuncs.py"),
      "integer rem by zero gives 0 instead of XLA's dividend"),
    M("lax-cumsum-transpose", "_src/lax/reductions.py",
      "[cumsum(ct, axis, reverse=not reverse)])",
      "[cumsum(ct, axis, reverse=reverse)])",
      ("conformance/test_autodiff.py", "conformance/test_ad_check_grads.py",
       "conformance/test_numpy_reductions.py"),
      "cumsum transpose runs in the same direction (gradient of cumsum wrong)"),
    M("lax-clamp-jvp-tie", "_src/lax/lax.py",
      "_clamp_jvp_part(lambda lo, x, hi: lt(hi, x)))",
      "_clamp_jvp_part(lambda lo, x, hi: le(hi, x)))",
      ("conformance/test_ad_rule_details.py", "conformance/test_ad_special_points.py",
       "conformance/test_autodiff.py"),
      "clamp JVP gives the upper bound the tangent at a tie"),
    M("lax-integer-pow-jvp", "_src/lax/lax.py",
      "integer_pow(x, y - 1)))", "integer_pow(x, y)))",
      ("conformance/test_autodiff.py", "conformance/test_ad_check_grads.py"),
      "integer_pow JVP uses x**y instead of x**(y-1) for y > 2"),

    # -- ad -------------------------------------------------------------------
    M("ad-stop-gradient-jvp", "_src/interpreters/ad.py",
      "return stop_gradient_p.bind(x), Zero.from_primal_value(x)",
      "return stop_gradient_p.bind(x), tangents[0]",
      ("conformance/test_autodiff.py",),
      "stop_gradient passes the tangent through"),
    M("ad-abs-at-zero", "_src/lax/lax.py",
      "return select(ge(x, _zeros(x)), g, neg(g))",
      "return select(gt(x, _zeros(x)), g, neg(g))",
      ("conformance/test_ad_special_points.py", "conformance/test_autodiff.py"),
      "abs has slope -1 at 0 (JAX: +1)"),
    M("ad-max-ties", "_src/lax/lax.py",
      "select(eq(y, ans), full_like(ans, 2), _ones(ans)))",
      "select(eq(y, ans), _ones(ans), _ones(ans)))",
      ("conformance/test_ad_special_points.py", "conformance/test_autodiff.py"),
      "max/min ties give each operand the whole tangent instead of half"),
    M("ad-sub-transpose", "_src/lax/lax.py",
      "sub_p.transpose = _linear_unbroadcast_transpose([lambda ct: ct, neg])",
      "sub_p.transpose = _linear_unbroadcast_transpose([lambda ct: ct, lambda ct: ct])",
      ("conformance/test_ad_rule_details.py", "conformance/test_autodiff.py"),
      "sub transpose drops the negation for the subtrahend"),
    M("ad-cos-jvp-sign", "_src/lax/lax.py",
      "neg(mul(g, sin(x, accuracy=accuracy)))", "mul(g, sin(x, accuracy=accuracy))",
      ("conformance/test_autodiff.py",),
      "d cos = +sin (sign dropped)"),
    M("ad-div-jvp-sign", "_src/lax/lax.py",
      "mul(mul(neg(g), x), integer_pow(y, -2))", "mul(mul(g, x), integer_pow(y, -2))",
      ("conformance/test_ad_rule_details.py", "conformance/test_autodiff.py"),
      "d(x/y)/dy loses its minus sign"),
    M("ad-atan2-jvp-swap", "_src/lax/lax.py",
      "ad.defjvp(atan2_p, lambda g, x, y: mul(g, div(y, add(square(x), square(y)))),",
      "ad.defjvp(atan2_p, lambda g, x, y: mul(g, div(x, add(square(x), square(y)))),",
      ("conformance/test_autodiff.py", "conformance/test_ad_check_grads.py"),
      "atan2 JVP uses the swapped operand (x for y) in d/dx"),
    M("ad-convert-transpose-weak", "_src/lax/lax.py",
      "weak_type=aval.weak_type, sharding=None)]",
      "weak_type=False, sharding=None)]",
      ("conformance/test_ad_rule_details.py", "conformance/test_autodiff.py",
       "conformance/test_ad_jaxprs.py"),
      "convert_element_type transpose drops the operand's weak type"),

    # -- numpy ----------------------------------------------------------------
    M("np-floor-divide", "_src/numpy/ufuncs.py",
      "        select = logical_and(not_equal(lax.sign(x1), lax.sign(x2)),\n"
      "                             not_equal(lax.rem(x1, x2), 0))\n",
      "        select = not_equal(lax.sign(x1), lax.sign(x2))\n",
      ("conformance/test_numpy_ufuncs.py",),
      "integer floor_divide corrects exact quotients too (-4 // 2 == -3)"),
    M("np-remainder-sign", "_src/numpy/ufuncs.py",
      "lax.bitwise_and(lax.ne(lax.lt(trunc_mod, zero), lax.lt(x2, zero)),",
      "lax.bitwise_and(lax.lt(trunc_mod, zero),",
      ("conformance/test_numpy_ufuncs.py",),
      "remainder takes the sign of the dividend for a negative divisor"),
    M("np-var-ddof-default", "_src/numpy/reductions.py",
      "def var(a, axis=None, dtype=None, out=None, ddof=0,",
      "def var(a, axis=None, dtype=None, out=None, ddof=1,",
      ("conformance/test_numpy_reductions.py",),
      "jnp.var defaults to the unbiased estimator (ddof=1)"),
    M("np-linspace-endpoint", "_src/numpy/creation.py",
      "def linspace(start, stop, num=50, endpoint=True,",
      "def linspace(start, stop, num=50, endpoint=False,",
      ("conformance/test_numpy_shapes.py", "conformance/test_arrays.py"),
      "jnp.linspace excludes the endpoint by default"),
    M("np-triu-offset", "_src/numpy/contractions.py",
      "_tri_bool(sh[-2], sh[-1], k - 1), sh[:-2])",
      "_tri_bool(sh[-2], sh[-1], k), sh[:-2])",
      ("conformance/test_numpy_triangles.py", "conformance/test_numpy_linalg.py",
       "conformance/test_numpy_shapes.py"),
      "jnp.triu also zeroes the diagonal"),
    M("np-take-negative", "_src/numpy/lax_numpy.py",
      "        indices = util._where(indices < 0, indices + n, indices)\n",
      "",
      ("conformance/test_indexing.py", "conformance/test_numpy_shapes.py"),
      "jnp.take (mode fill) no longer wraps negative indices"),

    # -- vmap -----------------------------------------------------------------
    M("vmap-reducer-axis", "_src/interpreters/batching.py",
      "axes = tuple(np.where(np.less(params[axes_param], bdim),",
      "axes = tuple(np.where(np.less_equal(params[axes_param], bdim),",
      ("conformance/test_vmap_lax.py",),
      "reduction batching rule renumbers an axis equal to the batch dim wrongly"),
    M("vmap-shift-axis", "_src/interpreters/batching.py",
      "return axis + (axis >= bdim)", "return axis + (axis > bdim)",
      ("conformance/test_vmap_lax.py", "conformance/test_vmap_numpy_helpers.py"),
      "axis parameters at the batch dim are not shifted past it"),
    M("vmap-out-axes-negative", "_src/interpreters/batching.py",
      "    dst = dst % ndim\n    if src is None:\n", "    if src is None:\n",
      ("conformance/test_vmap_api.py", "conformance/test_vmap_core.py"),
      "a negative out_axes for an unmapped output is not normalized"),

    M("vmap-in-axes-negative", "_src/vmap_api.py",
      "return axis % np.ndim(x) if axis < 0 else axis",
      "return axis % (np.ndim(x) - 1) if axis < 0 else axis",
      ("conformance/test_vmap_api.py", "conformance/test_vmap_core.py"),
      "a negative in_axes is counted from the per-example rank, one axis short"),

    # -- control flow ---------------------------------------------------------
    M("cf-cond-branches-swapped", CF + "conditionals.py",
      'return _bind_cond("cond", index, (false_fun, true_fun),',
      'return _bind_cond("cond", index, (true_fun, false_fun),',
      ("conformance/test_control_flow_cond.py",),
      "cond's branch index picks true_fun for False"),
    M("cf-cond-disable-jit-swapped", CF + "conditionals.py",
      "return (true_fun if core.concrete_value(pred) else false_fun)(*operands)",
      "return (false_fun if core.concrete_value(pred) else true_fun)(*operands)",
      ("conformance/test_control_flow_cond.py",),
      "under disable_jit a concrete predicate runs the wrong branch"),
    M("cf-switch-negative-wraps", CF + "conditionals.py",
      "    index = lax.clamp(np.array(0, np.int32), index,",
      "    index = lax.select(lax.lt(index, np.array(0, np.int32)),\n"
      "                       lax.add(index, np.array(len(branches), np.int32)), index)\n"
      "    index = lax.clamp(np.array(0, np.int32), index,",
      (SWITCH_TESTS, "conformance/test_control_flow_cond.py"),
      "switch wraps a negative index Python-style (-1 = last branch), "
      "eagerly, under jit and under vmap"),
    M("cf-switch-disable-jit-unclamped", CF + "conditionals.py",
      _SWITCH_CLAMP + _SWITCH_EAGER, _SWITCH_EAGER + _SWITCH_CLAMP,
      (SWITCH_TESTS, "conformance/test_control_flow_cond.py"),
      "under disable_jit switch indexes the branch list before clamping"),
    M("cf-switch-clamp-concrete-only", CF + "conditionals.py",
      _SWITCH_CLAMP,
      "    if _is_concrete(index):\n    " + _SWITCH_CLAMP,
      (SWITCH_TESTS, "conformance/test_control_flow_cond.py"),
      "switch clamps only concrete indices (traced ones under jit/vmap are not)"),
    M("cf-switch-disable-jit-negative", CF + "conditionals.py",
      _SWITCH_CLAMP + _SWITCH_EAGER,
      "    if _config.disable_jit.value and _is_concrete(index):\n"
      "        i = min(int(core.concrete_value(index)), len(branches) - 1)\n"
      "        return branches[i](*operands)\n" + _SWITCH_CLAMP,
      (SWITCH_TESTS, "conformance/test_control_flow_cond.py"),
      "under disable_jit switch clamps only from above (-1 picks the last branch)"),
    M("cf-switch-batched-unclamped", CF + "conditionals.py",
      _SWITCH_CLAMP,
      "    if not isinstance(index, batching.BatchTracer):\n    " + _SWITCH_CLAMP,
      (SWITCH_TESTS, "conformance/test_control_flow_cond.py"),
      "switch leaves a batched index unclamped (vmap with negative indices)"),
    M("cf-cond-impl-unclipped", CF + "conditionals.py",
      "i = int(np.clip(backend.get().to_host(index), 0, len(branches) - 1))",
      "i = int(backend.get().to_host(index))",
      (SWITCH_TESTS, "conformance/test_control_flow_cond.py"),
      "the cond primitive's implementation no longer clips its index",
      equivalent="every binder of cond_p passes an index already in range: switch "
                 "clamps it first, cond converts a boolean to 0/1, and the JVP, "
                 "partial-eval and batching rules rebind the same index; refjax does "
                 "not export cond_p, so no program can bind it out of range"),
    M("cf-scan-reverse-ignored", CF + "scan.py",
      "    order = range(length - 1, -1, -1) if reverse else range(length)\n"
      "    ys = []\n",
      "    order = range(length)\n    ys = []\n",
      ("conformance/test_control_flow_scan.py",),
      "scan's implementation ignores reverse=True (runs forwards, then flips ys)"),
    M("cf-scan-disable-jit-reverse", CF + "scan.py",
      "    carry, ys = init, []\n"
      "    order = range(length - 1, -1, -1) if reverse else range(length)\n",
      "    carry, ys = init, []\n    order = range(length)\n",
      ("conformance/test_control_flow_scan.py",),
      "under disable_jit scan ignores reverse=True"),
    M("cf-scan-transpose-direction", CF + "scan.py",
      "length=length, reverse=not reverse, unroll=unroll,",
      "length=length, reverse=reverse, unroll=unroll,",
      ("conformance/test_control_flow_scan.py",),
      "scan's transpose runs in the same direction as the forward scan"),
    M("cf-fori-static-off-by-one", CF + "scan.py",
      "length = builtins.max(hi - lo, 0)", "length = builtins.max(hi - lo + 1, 0)",
      ("conformance/test_control_flow_while.py", "conformance/test_control_flow_scan.py"),
      "fori_loop with static bounds runs one iteration too many"),
    M("cf-fori-traced-off-by-one", CF + "scan.py",
      "while_loop(lambda c: lax.lt(c[0], c[1]), body,",
      "while_loop(lambda c: lax.le(c[0], c[1]), body,",
      ("conformance/test_control_flow_while.py", "conformance/test_control_flow_scan.py"),
      "fori_loop with traced bounds runs while i <= upper"),

    # -- random ---------------------------------------------------------------
    M("rng-normal-dtype-default", RND + "basic.py",
      "def normal(key, shape=(), dtype=None):",
      "def normal(key, shape=(), dtype=np.float32):",
      ("conformance/test_random_defaults.py", "conformance/test_random_continuous.py",
       "conformance/test_random_known_answers.py"),
      "random.normal defaults to float32 even with x64 on"),
    M("rng-uniform-minval-default", RND + "basic.py",
      "def uniform(key, shape=(), dtype=None, minval=0.0, maxval=1.0):",
      "def uniform(key, shape=(), dtype=None, minval=-1.0, maxval=1.0):",
      ("conformance/test_random_defaults.py", "conformance/test_random_continuous.py",
       "conformance/test_random_known_answers.py"),
      "random.uniform defaults to [-1, 1)"),
    M("rng-uniform-maxval-default", RND + "basic.py",
      "def uniform(key, shape=(), dtype=None, minval=0.0, maxval=1.0):",
      "def uniform(key, shape=(), dtype=None, minval=0.0, maxval=2.0):",
      ("conformance/test_random_defaults.py", "conformance/test_random_continuous.py",
       "conformance/test_random_known_answers.py"),
      "random.uniform defaults to [0, 2)"),
    M("rng-uniform-int-defaults", RND + "basic.py",
      "def uniform(key, shape=(), dtype=None, minval=0.0, maxval=1.0):",
      "def uniform(key, shape=(), dtype=None, minval=0, maxval=1):",
      ("conformance/test_random_defaults.py", "conformance/test_random_continuous.py"),
      "random.uniform's default bounds written as ints: same samples, but the "
      "jaxpr passes i32 bounds to the inner jit (JAX: f32)"),
    M("rng-randint-narrow-max", RND + "basic.py",
      "clip(int(info.min), int(info.max) + 1)", "clip(int(info.min), int(info.max))",
      ("conformance/test_random_defaults.py", "conformance/test_random_discrete.py"),
      "randint for 8/16-bit dtypes clips maxval so the dtype's maximum is never drawn"),
    M("rng-bernoulli-p-default", RND + "discrete.py",
      'def bernoulli(key, p=0.5, shape=None, mode="low"):',
      'def bernoulli(key, p=np.float32(0.5), shape=None, mode="low"):',
      ("conformance/test_random_defaults.py", "conformance/test_random_discrete.py",
       "conformance/test_random_known_answers.py"),
      "bernoulli's default p is a float32, so it samples in float32 with x64 on"),
    M("rng-bernoulli-mode-default", RND + "discrete.py",
      'def bernoulli(key, p=0.5, shape=None, mode="low"):',
      'def bernoulli(key, p=0.5, shape=None, mode="high"):',
      ("conformance/test_random_defaults.py", "conformance/test_random_discrete.py",
       "conformance/test_random_known_answers.py"),
      "bernoulli defaults to mode='high' (two uniforms per sample)"),
    M("rng-exponential-formula", RND + "continuous.py",
      "return lax.neg(lax.log1p(lax.neg(u)))", "return lax.neg(lax.log(u))",
      ("conformance/test_random_continuous.py", "conformance/test_random_known_answers.py"),
      "exponential as -log(u): right distribution, different samples than JAX"),
    M("rng-threefry-rotation", RND + "prng.py",
      "_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))",
      "_ROTATIONS = ((13, 15, 26, 6), (17, 29, 24, 16))",
      ("conformance/test_random_known_answers.py",),
      "a threefry rotation constant pair swapped"),
    M("rng-choice-replace-default", RND + "discrete.py",
      "def choice(key, a, shape=(), replace=True,",
      "def choice(key, a, shape=(), replace=False,",
      ("conformance/test_random_discrete.py",),
      "random.choice samples without replacement by default"),
    M("rng-categorical-axis-default", RND + "discrete.py",
      "def categorical(key, logits, axis=-1,", "def categorical(key, logits, axis=0,",
      ("conformance/test_random_discrete.py",),
      "random.categorical picks along axis 0 by default"),

    # -- tree_util ------------------------------------------------------------
    M("tree-dict-insertion-order", "_src/tree_util.py",
      "    keys = _sorted_dict_keys(d)\n    return tuple([d[k] for k in keys]), keys\n",
      "    keys = tuple(d)\n    return tuple([d[k] for k in keys]), keys\n",
      ("conformance/test_tree_util_ops.py", "conformance/test_tree_util_leaves.py"),
      "dicts flatten in insertion order instead of sorted key order"),
    M("tree-none-is-leaf", "_src/tree_util.py",
      "    type(None): _NONE_NODE,\n    tuple: _TUPLE_NODE,\n",
      "    tuple: _TUPLE_NODE,\n",
      ("conformance/test_tree_util_leaves.py", "conformance/test_tree_util_ops.py"),
      "None is a leaf instead of an empty node"),
    M("tree-list-unflattens-tuple", "_src/tree_util.py",
      "                       lambda aux, children: list(children))",
      "                       lambda aux, children: tuple(children))",
      ("conformance/test_tree_util_ops.py", "conformance/test_tree_util_treedef.py"),
      "lists unflatten as tuples"),

    M("tree-path-index-off-by-one", "_src/tree_util.py",
      "return tuple([(SequenceKey(i), x) for i, x in enumerate(xs)]), None",
      "return tuple([(SequenceKey(i), x) for i, x in enumerate(xs, 1)]), None",
      ("conformance/test_tree_util_paths.py",),
      "key paths number sequence children from 1"),

    # -- jit ------------------------------------------------------------------
    M("jit-fast-key-weak", "_src/api.py",
      "key.append((buf.shape, a._dtype, a.weak_type))",
      "key.append((buf.shape, a._dtype))",
      ("conformance/test_jit_weak_type_keys.py", "conformance/test_jit.py"),
      "jit's fast cache key omits weak_type (a weak trace reused for strong args)"),
    M("jit-aval-key-weak", "_src/core.py",
      "    def _key(self):\n        return (self.shape, self.dtype, self.weak_type)\n",
      "    def _key(self):\n        return (self.shape, self.dtype)\n",
      ("conformance/test_jit_weak_type_keys.py", "conformance/test_jit.py",
       "conformance/test_dtypes.py"),
      "abstract values compare equal across weak types (slow-path cache key)"),
    M("jit-eager-sig-weak", "_src/dispatch.py",
      "s = a._sig = (a._buffer.shape, a._dtype, a.weak_type)",
      "s = a._sig = (a._buffer.shape, a._dtype)",
      ("conformance/test_jit_weak_type_keys.py", "conformance/test_dtypes.py",
       "conformance/test_arrays.py"),
      "eager dispatch plan cache ignores weak_type"),
    M("jit-static-negative-argnums", "_src/api.py",
      "static_pos = {i + nargs if i < 0 else i for i in self.static_argnums}",
      "static_pos = set(self.static_argnums)",
      ("conformance/test_jit.py",),
      "negative static_argnums are not counted from the end"),

    # -- indexing -------------------------------------------------------------
    M("idx-scatter-mode-default", "_src/lax/gather_scatter.py",
      '        if s == "clip":\n            return GatherScatterMode.CLIP\n',
      '        if s is None or s == "clip":\n            return GatherScatterMode.CLIP\n',
      ("conformance/test_at.py",),
      "a missing mode means CLIP: .at[].set clamps out-of-bounds updates instead of "
      "dropping them"),
    M("idx-negative-step-slice", "_src/numpy/indexing.py",
      "low = min(size, stop + 1 + abs(start - stop - 1) % -step)",
      "low = min(size, stop + abs(start - stop - 1) % -step)",
      ("conformance/test_indexing_basic.py", "conformance/test_indexing.py"),
      "negative-step static slices start one element early"),
    M("idx-array-negative", "_src/numpy/indexing.py",
      "out.append(p._replace(index=lax.select(i < 0, lax.add(i, size), i)))",
      "out.append(p._replace(index=lax.select(i <= 0, lax.add(i, size), i)))",
      ("conformance/test_indexing_basic.py", "conformance/test_indexing.py"),
      "integer-array index 0 is treated as negative (x[jnp.array([0])] reads the end)"),
    M("idx-static-int-negative", "_src/numpy/indexing.py",
      "            if normalize_indices and i < 0:\n                i += size\n",
      "            if normalize_indices and i < 0:\n                i += size - 1\n",
      ("conformance/test_indexing_basic.py", "conformance/test_indexing.py"),
      "static negative integer index off by one (x[-1] reads x[-2])"),
)


def by_id():
    return {m.id: m for m in MUTANTS}
