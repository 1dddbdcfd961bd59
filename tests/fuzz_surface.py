"""The bad-input fuzz harness: what it calls, how it runs a call, how it judges
the outcome (SPEC FUZZ-1..FUZZ-6).

A call is one line of Python source, such as ``jnp.sum(jnp.ones((2, 3)),
axis='abc')``, evaluated with ``jax``, ``jnp``, ``lax`` and ``np`` bound to the
library under test; the same line is its reproducer.  ``calls(family)`` is a
Hypothesis strategy drawing such lines over one family of the public surface,
with arguments taken from pools of ordinary and odd values.  ``run(source,
library)`` evaluates a line under a per-call time limit and describes what
happened; ``judge`` compares refjax's outcome with JAX's (when JAX is
importable) and names what is wrong.

``python tests/fuzz_surface.py --examples 10000`` runs a long fuzz and prints
its figures; the pytest entry point is tests/test_fuzz_bad_input.py.
"""
import collections
import contextlib
import dataclasses
import importlib
import inspect
import os
import re
import signal
import sys
import threading
import traceback
import warnings

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings, strategies as st

CALL_SECONDS = float(os.environ.get("REFJAX_FUZZ_CALL_SECONDS", "10"))

# -- value pools (source text) ---------------------------------------------
# Each pool has ordinary values (what a parameter of its kind is meant to
# take) and odd ones; a call makes at most one argument odd, drawn from its
# pool's odd values or the general ODD list, so that the error it provokes
# has one cause and the two libraries' classes can be compared (FUZZ-1).
ARRAYS = [
    "jnp.ones((2, 3))", "jnp.arange(4.)", "jnp.eye(3)", "jnp.arange(6).reshape(2, 3)",
    "jnp.array([True, False])", "jnp.ones(3, jnp.complex64)", "jnp.zeros(0)",
    "jnp.zeros((0, 3))", "jnp.array([jnp.nan, 1.])", "jnp.float32(2.)", "np.ones(3)",
    "1.0", "2", "jnp.ones((2, 2, 2))", "jnp.arange(3)",
]
# Wrong types, huge and negative numbers, keys, dtypes, NaN...
ODD = [
    "'abc'", "None", "{}", "{'a': 1.}", "object()", "[[1, 2], [3]]", "[1., 2.]",
    "(2, 3)", "2**70", "-2**70", "-1", "0", "1.5", "True", "1j", "float('nan')",
    "float('inf')", "jnp.float32", "'float32'", "'bogus'",
    "jax.ShapeDtypeStruct((2,), jnp.float32)", "jax.random.key(0)",
    "jax.random.PRNGKey(0)", "np.array(['a', 'b'])", "b'ab'", "slice(None)", "...",
    "lambda x: x", "[]", "()", "jnp.zeros((0, 0))", "np.float64(1.)", "2**62",
    "jnp.array(2**31 - 1)", "[jnp.ones(2), 'a']",
]
POOLS = {   # pool: (ordinary values, odd values besides ODD)
    "arr": (ARRAYS, []),
    "odd": (ODD, []),           # a template's slot that is always the odd one
    "axis": (["0", "1", "-1", "None"],
             ["5", "-5", "(0, 1)", "(0, 0)", "'a'", "1.5", "2**70", "[0]"]),
    "dtype": (["jnp.float32", "jnp.int32", "jnp.bool_", "jnp.complex64", "'float32'",
               "jnp.uint8", "int", "None"],
              ["'bogus'", "object", "str", "jnp.float32(1)", "np.dtype('U3')",
               "jax.dtypes.prng_key"]),
    "size": (["3", "(2, 3)", "0", "()", "(0,)", "[2, 3]"],
             ["-1", "2**70", "(2, -1)", "(2**62,)", "None", "'a'", "1.5", "(3.5,)",
              "(2**70, 1)", "jnp.array(3)"]),
    "str": (["'same'", "'VALID'", "None", "'clip'", "'fill'", "'highest'",
             "lax.Precision.HIGHEST", "'left'"], ["'bogus'", "''", "1", "(1, 2)"]),
    "fn": (["lambda x: x", "lambda x: x.sum()", "lambda x: jnp.sin(x)", "lambda *a: a",
            "lambda c, x: (c, x)", "lambda i, c: c + i", "lambda c: c < 3",
            "lambda x, y: x + y", "lambda x: (x, x)", "lambda x: x[0]",
            "lambda x: {'a': x}"],
           ["lambda x: 'abc'", "lambda x: None", "lambda x: float(x)"]),
    "key": (["jax.random.key(0)", "jax.random.PRNGKey(0)"],
            ["jax.random.split(jax.random.key(0))", "jax.random.key(0)[None]"]),
    "tree": (["{'a': 1., 'b': [2., 3.]}", "(1., (2., None))", "[jnp.ones(2)]", "[]",
              "(1., 2.)", "{'a': None}", "[[1.], [2.]]", "jnp.ones((2, 3))"], []),
    "idx": (["0", "-1", "(0, 0)", "...", "None", "jnp.array([0, 1])", "slice(None)",
             "(0, slice(None))", "np.array([0, 1])", "(slice(None), None)"],
            ["5", "-5", "(0, 0, 0)", "'a'", "1.5", "jnp.array([0, 5])",
             "jnp.array([True, False])", "slice(None, None, 0)", "2**70", "[0, 1]",
             "jnp.array(1.)", "{}", "jax.random.key(0)", "slice(0, 2**70)", "(..., ...)",
             "jnp.array([[0]])", "-2**70", "True", "jnp.zeros(0, int)",
             "(jnp.array([0, 1]), 0)"]),
    "device": (["jax.devices()[0]", "None",
                "jax.sharding.SingleDeviceSharding(jax.devices()[0])",
                "jax.sharding.NamedSharding(jax.make_mesh((1,), ('x',)), "
                "jax.sharding.PartitionSpec())"],
               ["jax.devices()", "'cpu'", "np.array(jax.devices())", "0"]),
    "mesh": (["jax.make_mesh((1,), ('x',))",
              "jax.sharding.Mesh(np.array(jax.devices()), ('x',))"],
             ["'x'", "jax.devices()"]),
    "spec": (["jax.sharding.PartitionSpec()", "jax.sharding.PartitionSpec('x')",
              "jax.sharding.PartitionSpec(None, 'x')"],
             ["jax.sharding.PartitionSpec('y')", "jax.sharding.PartitionSpec('x', 'x')",
              "'x'", "('x',)"]),
    "name": (["'x'", "('x',)", "'i'"], ["('x', 'y')", "1", "''", "('x', 'x')"]),
    "flag": (["True", "False"], ["jnp.array([True, False])", "jnp.ones((2, 3))"]),
    "none": (["None"], ["jnp.zeros(3)", "2"]),     # out=, accuracy=: only None works
}

# A parameter's name says which pool its values come from.
_HINTS = [
    ("dtype", {"dtype", "new_dtype", "preferred_element_type", "result_type", "type"}),
    ("axis", {"axis", "axes", "axis1", "axis2", "source", "destination", "dimension",
              "dimensions", "axisa", "axisb", "axisc", "broadcast_dimensions",
              "permutation", "start", "stop", "step", "offset"}),
    ("size", {"shape", "newshape", "new_sizes", "sizes", "reps", "N", "M", "n", "k", "num",
              "size", "length", "repeats", "window_dimensions", "window_strides",
              "start_indices", "limit_indices", "strides", "slice_sizes", "padding_config",
              "lhs_dilation", "rhs_dilation", "count", "total_repeat_length", "batch_shape",
              "bins", "ndim", "minlength", "out_shape", "num_samples", "lo", "hi", "lower",
              "upper", "index", "times", "indices_or_sections", "shift", "ord", "deg"}),
    ("str", {"mode", "method", "padding", "side", "order", "kind", "norm", "casting",
             "indexing", "interpolation", "precision", "rounding_method", "algorithm",
             "impl", "subscripts"}),
    ("fn", {"f", "fun", "func", "function", "fn", "body_fun", "cond_fun", "true_fun",
            "false_fun", "computation", "body", "pyfunc", "callback", "is_leaf", "reducer",
            "comparator", "operator", "branches"}),
    ("key", {"key", "keys"}),
    ("tree", {"tree", "trees", "pytree", "xs", "init", "init_val", "operand", "operands"}),
    ("name", {"axis_name", "axis_names", "names"}),
    ("flag", {"keepdims", "returned", "equal_nan", "unique_indices", "indices_are_sorted",
              "is_stable", "inplace", "sparse", "hermitian", "full_matrices", "compute_uv",
              "reverse", "tiled", "approximate", "return_sign", "copy", "assume_unique",
              "return_index", "return_inverse", "return_counts", "endpoint", "retstep",
              "symmetrize_input", "stable", "descending", "right",
              "promote_integers", "overwrite_a", "check_finite", "has_aux", "reduce_axes"}),
    ("none", {"out", "accuracy"}),
    ("device", {"device", "out_sharding", "sharding"}),
]


def pool_for(param):
    for pool, names in _HINTS:
        if param in names:
            return pool
    return "arr"


def fill(draw, pools):
    """One value per slot: ordinary values everywhere but at most one slot,
    which gets an odd value of its pool or of ODD (FUZZ-1).  A slot of pool
    ``odd`` (templates) is the odd one whenever it is present."""
    if "odd" in pools:
        odd_slot = pools.index("odd")
    else:
        odd_slot = draw(st.integers(-1, len(pools) - 1)) if pools else -1
    out = []
    for i, pool in enumerate(pools):
        ordinary, odd = POOLS[pool]
        choices = odd + ODD if i == odd_slot else ordinary
        out.append(draw(st.sampled_from(choices)))
    return out


# -- the surface -----------------------------------------------------------
# Left out only what a fuzz cannot safely call: functions that change the
# process (printing options, pytree registries, the mesh, caches, config),
# wait on a debugger, or read or write files; and the block-scaled matmuls, which JAX
# runs only through cuDNN, so on CPU its checks of bad input are accidents
# of that path (SPEC NN-13).
EXCLUDED = {
    "jax.nn.scaled_dot_general", "jax.nn.scaled_matmul",
    "jnp.set_printoptions", "jnp.printoptions", "jnp.load", "jnp.fromfile", "jnp.save",
    "jnp.savez",
    "jax.debug.breakpoint", "jax.clear_caches", "jax.set_mesh", "jax.config",
    "jax.tree_util.register_pytree_node", "jax.tree_util.register_pytree_node_class",
    "jax.tree_util.register_pytree_with_keys", "jax.tree_util.register_dataclass",
    "jax.tree_util.register_pytree_with_keys_class", "jax.tree_util.register_static",
}

# jax.scipy's modules with functions, and the distribution modules of
# jax.scipy.stats (issue 23).
SCIPY_DISTRIBUTIONS = [
    "bernoulli", "beta", "betabinom", "binom", "cauchy", "chi2", "dirichlet", "expon",
    "gamma", "gennorm", "geom", "gumbel_l", "gumbel_r", "laplace", "logistic",
    "multinomial", "multivariate_normal", "nbinom", "norm", "pareto", "poisson", "t",
    "truncnorm", "uniform", "vonmises", "wrapcauchy",
]
SCIPY_MODULES = ["linalg", "stats", "signal", "fft", "integrate", "interpolate", "ndimage",
                 "sparse.linalg", "cluster.vq", "optimize"] + [
                     "stats." + d for d in SCIPY_DISTRIBUTIONS]

# Module expression per generic family; names are the public callables the
# module has in refjax (and in JAX, when it is importable).
GENERIC = {
    "jnp": ["jnp", "jnp.linalg", "jnp.fft"],
    "lax": ["lax"],
    "random": ["jax.random"],
    "tree": ["jax.tree_util"],
    "nn": ["jax.nn", "jax.scipy.special"],
    "scipy": ["jax.scipy." + m for m in SCIPY_MODULES] + ["jax.image"],
}

# Hand-written calls: transformations, control flow, indexing and sharding,
# whose arguments are functions or need a shape the generic rule cannot guess.
TEMPLATES = {
    "transform": [
        "jax.jit({fn})({arr})", "jax.jit({fn}, static_argnums={axis})({arr})",
        "jax.jit({fn}, static_argnames={name})({arr})",
        "jax.jit({fn}, donate_argnums={axis})({arr})",
        "jax.jit(lambda x, y: x, donate_argnums=(0, 1))({arr}, {arr})",
        "jax.jit({fn}, in_shardings={device})({arr})",
        "jax.jit({fn}, out_shardings={device})({arr})",
        "jax.grad({fn})({arr})", "jax.grad({fn}, argnums={axis})({arr}, {arr})",
        "jax.grad({fn}, has_aux={odd})({arr})", "jax.value_and_grad({fn})({arr})",
        "jax.vmap({fn})({arr})", "jax.vmap({fn}, in_axes={axis})({arr})",
        "jax.vmap({fn}, in_axes={axis}, out_axes={axis})({arr})",
        "jax.vmap({fn}, axis_name={name})({arr})", "jax.vmap({fn}, axis_size={size})({arr})",
        "jax.jvp({fn}, ({arr},), ({arr},))", "jax.jvp({fn}, {tree}, {tree})",
        "jax.vjp({fn}, {arr})", "jax.vjp({fn}, {arr})[1]({arr})",
        "jax.jacfwd({fn})({arr})", "jax.jacrev({fn})({arr})", "jax.hessian({fn})({arr})",
        "jax.linearize({fn}, {arr})", "jax.eval_shape({fn}, {arr})",
        "jax.make_jaxpr({fn})({arr})", "jax.checkpoint({fn})({arr})",
        "jax.linear_transpose({fn}, {arr})", "jax.closure_convert({fn}, {arr})",
        "lax.scan({fn}, {arr}, {arr})", "lax.scan({fn}, {arr}, {odd}, length={size})",
        "lax.scan(lambda c, x: (c, x), 0., None, length={size})",
        "lax.scan(lambda c, x: (c, x), {tree}, {tree}, reverse={odd}, unroll={size})",
        "lax.cond({arr}, {fn}, {fn}, {arr})", "lax.cond(True, {fn}, {fn})",
        "lax.switch({arr}, [{fn}, {fn}], {arr})", "lax.switch(0, {odd}, {arr})",
        "lax.while_loop({fn}, {fn}, {arr})", "lax.while_loop(lambda c: c < 3, {fn}, {arr})",
        "lax.fori_loop({size}, {size}, lambda i, c: c, {arr})",
        "lax.fori_loop(0, {size}, lambda i, c: c + 1, {arr})",
        "lax.fori_loop({arr}, {arr}, {fn}, {arr})", "lax.map({fn}, {arr})",
        "lax.map({fn}, {arr}, batch_size={size})", "lax.associative_scan({fn}, {arr})",
        "jax.pure_callback({fn}, {odd}, {arr})",
        "jax.jit(lambda x: jax.pure_callback(lambda y: y, {odd}, x))({arr})",
        "jax.device_put({arr}, {device})", "jax.device_get({odd})",
        "jax.block_until_ready({odd})", "jax.devices({odd})", "jax.local_devices({odd})",
        "jax.device_count({odd})", "jax.typeof({odd})",
        "jax.ShapeDtypeStruct({size}, {dtype})",
        "jax.debug.print({odd}, {arr})", "jax.jit(lambda x: jax.debug.print({str}, x))({arr})",
        "jax.debug.callback({fn}, {arr})", "jax.custom_jvp({fn})({arr})",
        "jax.jit({fn}).lower({arr}).compile()({arr})", "jax.jit({fn}).trace({odd})",
    ],
    "index": [
        "{arr}[{idx}]", "{arr}[{idx}, {idx}]", "{arr}.at[{idx}].get()",
        "{arr}.at[{idx}].get(mode={str}, fill_value={odd})", "{arr}.at[{idx}].set({odd})",
        "{arr}.at[{idx}].add({arr})", "{arr}.at[{idx}].mul({arr}, mode={str})",
        "{arr}.at[{idx}].min({arr})", "{arr}.at[{idx}].apply({fn})", "{arr}.at[{idx}]",
        "{arr}.at[{idx}].set({arr}, indices_are_sorted={odd})",
        "{arr}.at[{idx}].set({arr}, unique_indices={odd})",
        "jax.jit(lambda x, i: x[i])({arr}, {idx})",
        "jax.jit(lambda x, i: x.at[i].set(0.))({arr}, {idx})",
        "jax.vmap(lambda x: x[{idx}])({arr})",
        "{arr}.T", "{arr}.mT", "{arr}.reshape({size})", "{arr}.astype({dtype})",
        "{arr}.view({dtype})", "{arr}.sum(axis={axis})", "{arr}.item({odd})",
        "{arr}.tolist()", "{arr}.transpose({axis})", "{arr}.squeeze({axis})",
        "{arr}.swapaxes({axis}, {axis})", "{arr}.clip({odd}, 1.)", "{arr}.round({odd})",
        "{arr}.argmax({axis})", "{arr}.sort({axis})", "{arr}.cumsum({axis})",
        "{arr}.repeat({size})", "{arr}.take({idx})", "{arr}.dot({odd})", "len({arr})",
        "bool({arr})", "int({arr})", "float({arr})", "complex({arr})", "list({arr})",
        "{arr}.__index__()", "{arr} + {odd}", "{arr} @ {odd}", "{arr} < {odd}",
        "{arr} ** {odd}", "{arr} // {odd}", "-{arr}", "~{arr}", "{arr} >> {odd}",
        "{arr}.flatten({odd})", "{arr}.ravel({odd})", "{arr}.real", "{arr}.conj()",
        "{arr}.block_until_ready()", "{arr}.copy()", "{arr}.devices()",
        "{arr}.sharding", "{arr}.nbytes", "{arr}.itemsize", "{arr}.size", "{arr}.ndim",
        "hash({arr})", "{arr}.__array__({dtype})", "np.asarray({arr})",
    ],
    "sharding": [
        "jax.sharding.NamedSharding({mesh}, {spec})",
        "jax.sharding.NamedSharding({mesh}, {spec}).shard_shape({size})",
        "jax.sharding.SingleDeviceSharding({device})",
        "jax.sharding.SingleDeviceSharding({device}).shard_shape({size})",
        "jax.sharding.PartitionSpec({name}, {name})", "jax.sharding.PartitionSpec({odd})",
        "jax.sharding.Mesh({device}, {name})", "jax.sharding.Mesh({odd}, ('x',))",
        "jax.make_mesh({size}, {name})", "jax.make_mesh((1,), ('x',), axis_types={odd})",
        "jax.device_put({arr}, jax.sharding.NamedSharding({mesh}, {spec}))",
        "jax.device_put({arr}, {device})",
        "jax.jit({fn}, out_shardings=jax.sharding.NamedSharding({mesh}, {spec}))({arr})",
        "jax.ShapeDtypeStruct({size}, {dtype}, sharding={device})",
        "jax.shard_map({fn}, mesh={mesh}, in_specs={spec}, out_specs={spec})({arr})",
        "jax.pmap({fn})({arr})", "jax.pmap({fn}, axis_name={name})({arr})",
        "jax.pmap(lambda x: lax.psum(x, {name}), axis_name='i')({arr})",
        "jax.vmap(lambda x: lax.psum(x, {name}), axis_name='i')({arr})",
        "lax.psum({arr}, {name})", "lax.axis_index({name})",
        "jax.vmap(lambda x: lax.axis_index({name}), axis_name='i')({arr})",
    ],
}

FAMILIES = ["jnp", "lax", "transform", "random", "tree", "nn", "index", "sharding", "scipy"]

# Operations where JAX's own class for a bad input is IndexError or NameError,
# accepted from refjax without JAX to compare (FUZZ-3).
_COLLECTIVES = ("psum", "pmean", "pmax", "pmin", "all_gather", "all_to_all", "ppermute",
                "axis_index", "psum_scatter", "pshuffle", "pbroadcast", "axis_size",
                "axis_name")


@dataclasses.dataclass(frozen=True)
class Call:
    family: str
    source: str

    @property
    def indexing(self):
        """An indexing operation: ``x[...]``, ``.at[...]``, take-like gathers."""
        return self.family == "index" or any(
            t in self.source for t in ("take", "dynamic_slice", "dynamic_index",
                                       "gather", "index_in_dim", "slice_in_dim"))

    @property
    def collective(self):
        return any(name in self.source for name in _COLLECTIVES)


# -- namespaces ------------------------------------------------------------
def load(library):
    """The modules a call's source refers to, imported from ``library``."""
    root = importlib.import_module(library)
    for sub in ("numpy", "lax", "random", "tree_util", "nn", "sharding", "scipy.special",
                "numpy.linalg", "numpy.fft", "debug", "dtypes"):
        importlib.import_module(f"{library}.{sub}")
    for sub in ["scipy." + m for m in SCIPY_MODULES] + ["image"]:
        importlib.import_module(f"{library}.{sub}")
    return {"jax": root, "jnp": root.numpy, "lax": root.lax, "np": np}


_NAMESPACES = {}


def namespace(library):
    if library not in _NAMESPACES:
        _NAMESPACES[library] = load(library)
    return dict(_NAMESPACES[library])


def jax_available():
    try:
        namespace("jax")
        return True
    except ImportError:
        return False


def _public_callables(module):
    return {n for n in dir(module) if not n.startswith("_")
            and callable(getattr(module, n)) and not inspect.isclass(getattr(module, n))
            and not inspect.ismodule(getattr(module, n))}


def _resolve(ns, expr):
    obj = ns[expr.split(".")[0]]
    for part in expr.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def generic_targets(family):
    """(callee source, refjax signature or None) for each public callable of
    the family's modules, sorted so that a run is reproducible."""
    ours = namespace("refjax")
    theirs = namespace("jax") if jax_available() else None
    targets = []
    for module in GENERIC[family]:
        names = _public_callables(_resolve(ours, module))
        if theirs is not None:
            names &= _public_callables(_resolve(theirs, module))
        for name in sorted(names):
            callee = f"{module}.{name}"
            if callee in EXCLUDED or (ONLY and callee not in ONLY):
                continue
            try:
                sig = inspect.signature(getattr(_resolve(ours, module), name))
            except (TypeError, ValueError):
                sig = None
            targets.append((callee, sig))
    return targets


_TARGETS = {}

# Restricts the generic families to these callees (``--only``), for fuzzing
# newly added names on their own.
ONLY = set(filter(None, os.environ.get("REFJAX_FUZZ_ONLY", "").split(",")))


def _targets(family):
    if family not in _TARGETS:
        _TARGETS[family] = generic_targets(family)
    return _TARGETS[family]


@st.composite
def generic_call(draw, family, target=None):
    """``module.name(args)``: each required parameter gets a value of its
    pool, up to two optional ones are passed by keyword, and at most one
    argument is odd (FUZZ-1).  ``target`` fixes the (callee, signature)."""
    callee, sig = target or draw(st.sampled_from(_targets(family)))
    if sig is None:
        count = draw(st.integers(1, 3))
        return Call(family, f"{callee}({', '.join(fill(draw, ['arr'] * count))})")
    params = [p for p in sig.parameters.values()
              if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    required = [p for p in params if p.default is p.empty and p.kind != p.KEYWORD_ONLY]
    optional = [p for p in params if p.default is not p.empty or p.kind == p.KEYWORD_ONLY]
    extra = 0
    if any(p.kind == p.VAR_POSITIONAL for p in sig.parameters.values()):
        extra = draw(st.integers(0, 2))
    chosen = draw(st.lists(st.sampled_from(optional), max_size=2, unique_by=lambda p: p.name)
                  ) if optional else []
    pools = [pool_for(p.name) for p in required] + ["arr"] * extra
    pools += [pool_for(p.name) for p in chosen]
    values = fill(draw, pools)
    positional = values[:len(required) + extra]
    keywords = [f"{p.name}={v}" for p, v in zip(chosen, values[len(positional):])]
    return Call(family, f"{callee}({', '.join(positional + keywords)})")


@st.composite
def template_call(draw, family):
    template = draw(st.sampled_from(TEMPLATES[family]))
    pieces, pools, rest = [], [], template
    while "{" in rest:
        head, _, tail = rest.partition("{")
        pool, _, rest = tail.partition("}")
        pieces.append(head)
        pools.append(pool)
    values = fill(draw, pools)
    return Call(family, "".join(h + v for h, v in zip(pieces, values)) + rest)


def calls(family):
    """Calls over one family of the public surface (FUZZ-1)."""
    return generic_call(family) if family in GENERIC else template_call(family)


# -- running a call --------------------------------------------------------
class Hang(BaseException):
    """The per-call time limit ran out (a BaseException, so that no
    ``except Exception`` in the library swallows it)."""


@dataclasses.dataclass
class Outcome:
    kind: str                   # "returned", "raised", "hung" or "crashed" (JAX)
    summary: object = None      # returned: shapes and dtypes of the result
    error: type = None          # raised: the exception's class
    message: str = ""
    origin: str = ""            # raised: innermost frame, "file:function"
    from_numpy: bool = False    # raised: the innermost frame is in NumPy/CuPy
    from_user: bool = False     # raised: the innermost frame is the call's own source

    def describe(self):
        if self.kind == "crashed":
            return "crashes the process"
        if self.kind == "returned":
            return f"returns {self.summary}"
        if self.kind == "hung":
            return f"hangs (over {CALL_SECONDS:g} s)"
        first = self.message.strip().splitlines()[0][:160] if self.message.strip() else ""
        name = f"{self.error.__module__}.{self.error.__qualname__}"
        return f"raises {name}: {first} [at {self.origin}]"


_NUMPY_DIRS = tuple(os.path.dirname(m.__file__) + os.sep for m in (np,))


def _is_numpy_file(filename):
    return filename.startswith(_NUMPY_DIRS) or f"{os.sep}cupy{os.sep}" in filename


def _origin(exc):
    """The innermost frame inside the library (for the report), and whether
    the innermost frame of all lies in NumPy/CuPy or in the call's own source
    (the evaluated line and its lambdas; FUZZ-2)."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "?", False, False
    last = frames[-1]
    lib = [f for f in frames if f"{os.sep}refjax{os.sep}" in f.filename
           or f"{os.sep}jax{os.sep}" in f.filename]
    where = lib[-1] if lib else last
    origin = f"{os.path.basename(where.filename)}:{where.lineno}:{where.name}"
    return origin, _is_numpy_file(last.filename), last.filename == "<string>"


def summarize(x, depth=0):
    """Shapes and dtypes of a result, its containers kept (FUZZ-4)."""
    if depth > 20:
        return "..."
    if isinstance(x, (tuple, list)):
        return tuple(summarize(v, depth + 1) for v in x)
    if isinstance(x, dict):
        return {k: summarize(v, depth + 1) for k, v in sorted(x.items(), key=repr)}
    if hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(x, type):
        try:
            shape = tuple(d if isinstance(d, int) else "?" for d in x.shape)
            return ("array", shape, str(x.dtype))
        except Exception:      # noqa: BLE001 - a ShapeDtypeStruct with an odd shape
            return ("array", "?")
    if x is None:
        return "NoneType"
    for scalar in (bool, int, float, complex, str, bytes):
        if isinstance(x, scalar):   # JAX's typed scalars (TypedFloat) count as float
            return scalar.__name__
    # Other objects (functions, devices, shardings, treedefs) have each
    # library's own classes: only their being objects is compared.
    return "object"


def _force(x, depth=0):
    """Wait for every array in the result: JAX reports some errors only then."""
    if depth > 20:
        return
    if isinstance(x, (tuple, list)):
        for v in x:
            _force(v, depth + 1)
    elif isinstance(x, dict):
        for v in x.values():
            _force(v, depth + 1)
    elif hasattr(x, "block_until_ready") and not isinstance(x, type):
        x.block_until_ready()


class _time_limit:
    """Raise ``Hang`` in the running call after ``seconds`` (SIGALRM; only
    on the main thread, where Python delivers signals)."""

    def __init__(self, seconds):
        self.seconds = seconds
        self.armed = (hasattr(signal, "setitimer")
                      and threading.current_thread() is threading.main_thread())

    def _alarm(self, signum, frame):
        raise Hang()

    def __enter__(self):
        if self.armed:
            self.previous = signal.signal(signal.SIGALRM, self._alarm)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)

    def __exit__(self, *exc):
        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous)


MEMORY_MB = int(os.environ.get("REFJAX_FUZZ_MEMORY_MB", "4096"))


class _memory_limit:
    """Cap the process's address space at its current size plus ``MEMORY_MB``
    while a call runs, so that a call asking for tens of gigabytes fails with
    MemoryError instead of exhausting the machine (Linux only; FUZZ-5)."""

    def __enter__(self):
        self.previous = None
        try:
            import resource
            with open("/proc/self/status") as f:
                vm = next(int(line.split()[1]) * 1024 for line in f
                          if line.startswith("VmSize:"))
            self.previous = resource.getrlimit(resource.RLIMIT_AS)
            cap = vm + MEMORY_MB * 2**20
            hard = self.previous[1]
            if hard != resource.RLIM_INFINITY:
                cap = min(cap, hard)
            resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
        except (ImportError, OSError, StopIteration, ValueError):
            self.previous = None

    def __exit__(self, *exc):
        if self.previous is not None:
            import resource
            resource.setrlimit(resource.RLIMIT_AS, self.previous)


def run(source, library, seconds=None):
    """Evaluate one call's source with ``library`` as ``jax`` (FUZZ-5)."""
    ns = namespace(library)
    # JAX's allocator reserves its memory up front: only refjax is capped.
    memory = _memory_limit() if library == "refjax" else contextlib.nullcontext()
    try:
        with _time_limit(seconds or CALL_SECONDS), memory, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = eval(source, ns)
            _force(result)
            summary = summarize(result)
        return Outcome("returned", summary=summary)
    except Hang:
        return Outcome("hung")
    except Exception as e:  # noqa: BLE001 - every class is data here
        origin, from_numpy, from_user = _origin(e)
        return Outcome("raised", error=type(e), message=str(e), origin=origin,
                       from_numpy=from_numpy, from_user=from_user)
    finally:
        ns.clear()


# -- JAX in a worker process ------------------------------------------------
# JAX runs in a child process: some inputs abort it from C++ (an unchecked
# StatusOr on a 2**62-element shape), which must not take the test run
# with it.  A crashed or stuck worker is replaced (FUZZ-5).
def _portable(outcome):
    """The outcome with an error class the parent can unpickle."""
    import pickle
    if outcome.error is not None:
        try:
            pickle.loads(pickle.dumps(outcome.error))
        except Exception:  # noqa: BLE001 - a local or unimportable class
            base = next(b for b in outcome.error.__mro__ if b.__module__ == "builtins")
            outcome.message = f"({outcome.error.__qualname__}) {outcome.message}"
            outcome.error = base
    return outcome


def _worker(conn, library, num_devices):
    if library == "jax" and num_devices:
        # The same number of CPU devices as refjax has in the parent (the
        # conformance suite asks for 8), so that sharding calls compare.
        import jax
        jax.config.update("jax_num_cpu_devices", num_devices)
    while True:
        try:
            source = conn.recv()
        except EOFError:
            return
        conn.send(_portable(run(source, library)))


class Worker:
    """Runs calls on ``library`` in a spawned child process."""

    def __init__(self, library="jax"):
        self.library = library
        self.process = None

    def _start(self):
        import multiprocessing
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        import refjax
        self.process = ctx.Process(target=_worker, daemon=True,
                                   args=(child, self.library, len(refjax.devices())))
        self.process.start()
        child.close()

    def stop(self):
        if self.process is not None:
            self.process.kill()
            self.process.join()
            self.conn.close()
            self.process = None

    def run(self, source):
        if self.process is None:
            self._start()
        try:
            self.conn.send(source)
            # The child enforces the time limit itself; the margin covers its start.
            if not self.conn.poll(CALL_SECONDS + 60):
                self.stop()
                return Outcome("hung")
            return self.conn.recv()
        except (EOFError, OSError):     # the child died (ConnectionResetError...)
            self.stop()
            return Outcome("crashed")


# -- judging ---------------------------------------------------------------
# Builtin classes that, raised by refjax, mean a bug in refjax rather than a
# reasoned rejection of the input (FUZZ-2).
INTERNAL = (AttributeError, KeyError, IndexError, ZeroDivisionError, UnboundLocalError,
            RecursionError, SystemError, AssertionError, NameError)

# Errors of FUZZ-2's classes that JAX raises on purpose, accepted from
# refjax when there is no JAX to ask (with JAX, its own class decides).
JAX_USES = [
    (AttributeError, "No JVP defined for custom_jvp function"),
    (AttributeError, "No VJP defined for custom_vjp function"),
]

# The classes of jax.errors / refjax.errors: compared by name (FUZZ-3).
_PUBLIC_ERRORS = {
    "ConcretizationTypeError", "InconclusiveDimensionOperation", "JAXIndexError",
    "JAXTypeError", "JaxRuntimeError", "JaxprTypeError", "KeyReuseError",
    "NonConcreteBooleanIndexError", "TracerArrayConversionError",
    "TracerBoolConversionError", "TracerIntegerConversionError", "UnexpectedTracerError",
}


def _library_class(cls):
    module = cls.__module__.split(".")[0]
    return module in ("jax", "jaxlib", "refjax")


def _numpy_class(cls):
    return cls.__module__.split(".")[0] in ("numpy", "cupy")


def canonical(cls):
    """The name an error class is compared by (FUZZ-3): a builtin class or a
    public JAX error class is itself; a library's internal class (defined in
    jax, jaxlib or refjax but not in jax.errors) is its nearest builtin base."""
    if _library_class(cls) and cls.__name__ not in _PUBLIC_ERRORS:
        for base in cls.__mro__:
            if base.__module__ == "builtins":
                return base.__name__
    return cls.__name__


def _same_message(a, b):
    """Equal but for object addresses (``<object object at 0x7f...>``)."""
    return re.sub(r"0x[0-9a-f]+", "0x?", a) == re.sub(r"0x[0-9a-f]+", "0x?", b)


def internal_error(call, ours, theirs):
    """Why refjax's exception is an internal error escaping it, or None
    (FUZZ-2)."""
    if ours.kind != "raised" or ours.from_user:
        return None     # raised by the user's own code ('abc'.size, a lambda)
    if theirs is None and any(ours.error is cls and text in ours.message
                              for cls, text in JAX_USES):
        return None
    numpy_origin = ours.from_numpy or _numpy_class(ours.error)
    builtin_internal = ours.error in INTERNAL
    if not (numpy_origin or builtin_internal):
        return None
    if theirs is not None and theirs.kind == "raised" and theirs.error is ours.error:
        # JAX's class for the input; a NumPy error only when JAX lets the
        # same one through (from NumPy's code, or with the same message).
        if (not numpy_origin or theirs.from_numpy or _numpy_class(theirs.error)
                or _same_message(theirs.message, ours.message)):
            return None
    # Without JAX's answer (or when JAX's own error is an accident), the
    # classes JAX uses for these operations are accepted.
    if (theirs is None or (theirs.kind == "raised" and _jax_internal(theirs))) \
            and not numpy_origin:
        if ours.error is IndexError and call.indexing:
            return None
        if ours.error is NameError and call.collective:
            return None
    return "a raw NumPy error escapes" if numpy_origin else f"{ours.error.__name__} escapes"


# When JAX's own error is an internal one, refjax may reject the input with
# one of these instead (FUZZ-3).
REASONED = (TypeError, ValueError, OverflowError)


# JAX failing to validate an input before its compiler or bindings see it:
# MLIR verifier errors, nanobind's argument errors and C++ casts (FUZZ-3).
_COMPILER_ACCIDENTS = ("incompatible function arguments", "Cannot lower jaxpr with verifier",
                       "Invalid type:", "std::bad_cast")


def _jax_internal(theirs):
    """JAX's own exception is an accident rather than a reasoned rejection."""
    return (theirs.error in INTERNAL or theirs.from_numpy or _numpy_class(theirs.error)
            or theirs.error.__module__.startswith("jaxlib.mlir")
            or any(text in theirs.message for text in _COMPILER_ACCIDENTS))


def compare(ours, theirs):
    """What differs between refjax's outcome and JAX's, or None (FUZZ-4)."""
    if theirs.kind in ("hung", "crashed") or ours.kind == "hung":
        return None
    if ours.kind == "raised" and theirs.kind == "raised":
        if canonical(ours.error) == canonical(theirs.error):
            return None
        # IndexError/NameError reach here only where FUZZ-2 accepts them.
        if _jax_internal(theirs) and (issubclass(ours.error, REASONED)
                                      or ours.error in (IndexError, NameError)):
            return None
        return "class"
    if ours.kind == "returned" and theirs.kind == "returned":
        return "result" if ours.summary != theirs.summary else None
    if ours.kind == "returned" and _jax_internal(theirs):
        return None     # JAX failed by accident, not by design (FUZZ-3)
    if ours.kind == "returned":
        return "refjax returns, JAX raises"
    return "refjax raises, JAX returns"


@dataclasses.dataclass
class Finding:
    call: Call
    problem: str
    ours: Outcome
    theirs: Outcome = None

    def report(self):
        lines = [f"[{self.problem}] {self.call.source}", f"    refjax: {self.ours.describe()}"]
        if self.theirs is not None:
            lines.append(f"    jax:    {self.theirs.describe()}")
        return "\n".join(lines)


def judge(call, ours, theirs):
    """The one thing wrong with a call, most serious first, or None."""
    if ours.kind == "hung" and (theirs is None or theirs.kind == "raised"):
        return Finding(call, "hang", ours, theirs)
    if ours.kind == "hung":
        return None     # JAX computed it (or hung too): counted as slow, not failed
    why = internal_error(call, ours, theirs)
    if why:
        return Finding(call, f"internal error: {why}", ours, theirs)
    if theirs is not None:
        diff = compare(ours, theirs)
        if diff:
            return Finding(call, diff, ours, theirs)
    return None


@dataclasses.dataclass
class Tally:
    """The figures of a run (FUZZ-6)."""
    calls: int = 0
    jax_hangs: int = 0
    jax_crashes: int = 0
    slow: int = 0
    findings: list = dataclasses.field(default_factory=list)

    def add(self, call, ours, theirs):
        self.calls += 1
        if theirs is not None and theirs.kind == "hung":
            self.jax_hangs += 1
        if theirs is not None and theirs.kind == "crashed":
            self.jax_crashes += 1
        if ours.kind == "hung" and theirs is not None and theirs.kind == "returned":
            self.slow += 1
        finding = judge(call, ours, theirs)
        if finding:
            self.findings.append(finding)

    def counts(self):
        kinds = collections.Counter()
        for f in self.findings:
            kinds["internal errors" if f.problem.startswith("internal") else
                  "hangs" if f.problem == "hang" else
                  "class mismatches" if f.problem == "class" else
                  "result mismatches" if f.problem == "result" else
                  f.problem] += 1
        return kinds

    def figures(self):
        counts = self.counts()
        parts = [f"calls made: {self.calls}"]
        for kind in ("internal errors", "hangs", "class mismatches", "result mismatches",
                     "refjax returns, JAX raises", "refjax raises, JAX returns"):
            parts.append(f"{kind}: {counts.get(kind, 0)}")
        parts.append(f"JAX hangs (not compared): {self.jax_hangs}")
        parts.append(f"JAX crashes (not compared): {self.jax_crashes}")
        parts.append(f"refjax over the time limit where JAX returns (slow): {self.slow}")
        return "; ".join(parts)

    def report(self, limit=40):
        seen, lines = set(), []
        for f in self.findings:
            key = (f.problem, f.call.source.split("(")[0], f.ours.origin)
            if key in seen:
                continue
            seen.add(key)
            lines.append(f.report())
        shown = lines[:limit]
        more = f"\n... and {len(lines) - limit} more distinct" if len(lines) > limit else ""
        return f"{self.figures()}\n" + "\n".join(shown) + more


def fuzz(family, examples, compare_with_jax=None, tally=None):
    """Run about ``examples`` calls of one family, derandomized (FUZZ-5), on
    refjax and (when importable) JAX; returns the tally.

    A generic family draws the same number of calls for each of its
    callees (at least ``MIN_PER_CALLEE``), each callee from its own
    derandomized stream: adding a public name adds its calls and leaves
    every other callee's calls as they were."""
    tally = tally if tally is not None else Tally()
    with_jax = jax_available() if compare_with_jax is None else compare_with_jax
    worker = _jax_worker() if with_jax else None

    def run_all(strategy, count):
        @settings(max_examples=count, derandomize=True, database=None, deadline=None,
                  phases=[Phase.generate], suppress_health_check=list(HealthCheck))
        @given(strategy)
        def one(call):
            ours = run(call.source, "refjax")
            theirs = worker.run(call.source) if worker else None
            tally.add(call, ours, theirs)
        one()

    if family not in GENERIC:
        run_all(template_call(family), examples)
        return tally
    targets = _targets(family)
    per_callee = max(MIN_PER_CALLEE, -(-examples // max(1, len(targets))))
    for target in targets:
        run_all(generic_call(family, target), per_callee)
    return tally


# Calls per callee of a generic family at the least: the first derandomized
# draw is the plainest call, the next ones vary the arguments.
MIN_PER_CALLEE = 3


_WORKERS = []


def _jax_worker():
    """One JAX worker for the whole run (its start costs seconds)."""
    if not _WORKERS:
        import atexit
        _WORKERS.append(Worker("jax"))
        atexit.register(_WORKERS[0].stop)
    return _WORKERS[0]


def main(argv=None):
    import argparse
    parser = argparse.ArgumentParser(description="refjax bad-input fuzz (SPEC FUZZ-6)")
    parser.add_argument("--examples", type=int, default=10000,
                        help="calls in all, spread over the families")
    parser.add_argument("--families", nargs="*", default=FAMILIES)
    parser.add_argument("--all", action="store_true", help="list every finding")
    parser.add_argument("--only", default="",
                        help="comma-separated callees (e.g. jnp.polyfit,lax.reduce) to fuzz alone")
    args = parser.parse_args(argv)
    if args.only:
        ONLY.update(args.only.split(","))
    total = Tally()
    per = max(1, args.examples // len(args.families))
    for family in args.families:
        tally = fuzz(family, per)
        print(f"{family}: {tally.figures()}", flush=True)
        total.calls += tally.calls
        total.jax_hangs += tally.jax_hangs
        total.jax_crashes += tally.jax_crashes
        total.slow += tally.slow
        total.findings += tally.findings
    print(total.report(limit=10**6 if args.all else 200))
    return 1 if total.findings else 0


if __name__ == "__main__":
    sys.exit(main())
