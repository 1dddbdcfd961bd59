"""The jaxpr compiler: a closed jaxpr as straight-line Python (SPEC PERF-2).

``executable_for(closed)`` compiles once per jaxpr and caches the program;
``jit`` runs it, and control-flow primitives run their branch and body
programs through it.
"""
import collections
import functools
import weakref

import numpy as np

from refjax._src import backend as _backend
from refjax._src import core, dispatch, dtypes, fperrors
from refjax._src.array import ArrayImpl

_executables = weakref.WeakKeyDictionary()


def executable_for(closed):
    """The compiled program for ``closed`` (built once per jaxpr)."""
    exe = _executables.get(closed)
    if exe is None:
        exe = _executables[closed] = compile_jaxpr(closed)
    return exe


def clear_cache():
    """Forget every compiled program (``jax.clear_caches``, SPEC JIT-6)."""
    _executables.clear()


def compile_jaxpr(closed):
    """Turn a closed jaxpr into ``run(*buffers) -> [buffers]`` (SPEC PERF-2).

    "Compiling" writes the program out as straight-line Python over the
    backend's kernels, one line per equation that matters::

        def run(a0, a1):
            _token = _silence()
            try:
                v0 = _as_dtype(k_dot_general(a0, a1), t_f32_128_512)
                ...

    Every name the program uses comes from its own namespace, so no
    primitive name can collide with another or break the source (PERF-5).

    * Calls (``jit``, ``custom_jvp_call``, ``checkpoint``...) are inlined:
      their equations become lines of the calling program.
    * Dead code is removed after inlining: only equations whose results
      are used, or that call back into Python, are written (SPEC DBG-6).
    * Constants and literals become buffers once, here, as names of the
      program's namespace; a call does no interpretation work.
    * Each equation's kernel is specialized to its operand types and
      parameters when its primitive has a ``specialize`` rule (PERF-3).
    * An intermediate is deleted (``del v2``) right after its last use, so
      a long program (a backward pass) holds only the buffers it still
      needs, as XLA frees a buffer after its last use.
    * NumPy's floating-point warnings are off for the whole body (LAX-10).

    Control flow (``cond``, ``while``, ``scan``) keeps its primitive: its
    impl runs the branch or body programs, compiled the same way.  The
    source is kept as ``run.source``; ``jit(f).lower(...).as_text()`` shows it.
    """
    source, namespace = _Program(closed).write()
    exec(compile(source, "<refjax program>", "exec"), namespace)
    run = namespace["run"]
    run.source = source
    return run


class _Step:
    """One equation of the flattened program, over source-level names;
    ``kernel`` replaces the equation's own when steps were fused."""

    __slots__ = ("eqn", "ins", "outs", "kernel")

    def __init__(self, eqn, ins, outs, kernel=None):
        self.eqn, self.ins, self.outs, self.kernel = eqn, ins, outs, kernel


class _Program:
    """The flattening, dead-code elimination and writing of ``compile_jaxpr``."""

    def __init__(self, closed):
        self.closed = closed
        array_type = _backend.get().xp.ndarray
        self.namespace = {"_as_dtype": _conformer(array_type), "_silence": fperrors.silence,
                          "_restore": fperrors.restore}
        self.constants = []     # comment lines describing hoisted constants
        self.steps = []
        self.count = 0
        self.kernels = {}       # kernel object -> its name in the namespace
        self.avals = {}         # aval -> its name in the namespace

    # -- names (SPEC PERF-5) ---------------------------------------------
    # Generated names come from disjoint namespaces, told apart by their
    # first characters: arguments ``a<n>``, intermediates ``v<n>``,
    # constants ``c<n>``, kernels ``k_<name>``, avals ``t_<type>``, helpers
    # ``_<name>``, the function ``run``.  User text (a primitive's name, a
    # PRNG implementation's) only ever appears escaped to ASCII after a
    # ``k_`` or ``t_`` prefix, and a name already taken gets a suffix.
    def _unique(self, prefix, text):
        """A name ``prefix + text`` (escaped), not yet in the namespace."""
        base = prefix + _identifier(text)
        name, n = base, 0
        while name in self.namespace:
            name, n = f"{base}_{n}", n + 1
        return name

    def _fresh(self):
        self.count += 1
        return f"v{self.count - 1}"

    def _constant(self, value, aval):
        name = f"c{len(self.constants)}"
        self.namespace[name] = core.to_buffer(value)
        if isinstance(aval.dtype, dtypes.ExtendedDType) or aval.shape:
            text = f"array of shape {aval.shape}"
        else:
            text = str(np.asarray(value._host() if isinstance(value, ArrayImpl) else value))
        self.constants.append(f"# {name}: {aval.str_short(short_dtypes=True)} = {text}")
        return name

    def _bind(self, kernel, base):
        """The namespace name of ``kernel`` (one name per kernel object)."""
        name = self.kernels.get(id(kernel))
        if name is None:
            name = self._unique("k_", base)
            self.namespace[name] = kernel      # keeps the object (and id) alive
            self.kernels[id(kernel)] = name
        return name

    # -- flattening ----------------------------------------------------
    def _inline(self, closed, in_names):
        """Append ``closed``'s equations, reading its inputs from
        ``in_names``; returns the names of its outputs."""
        jaxpr = closed.jaxpr
        env = dict(zip(jaxpr.invars, in_names))
        for v, c in zip(jaxpr.constvars, closed.consts):
            env[v] = self._constant(c, v.aval)

        def read(atom):
            if isinstance(atom, core.Literal):
                return self._constant(atom.val, atom.aval)
            return env[atom]

        for eqn in jaxpr.eqns:
            ins = [read(a) for a in eqn.invars]
            param = eqn.primitive.call_param
            if param is not None and not _key_typed(eqn):
                outs = self._inline(eqn.params[param], ins)
            else:
                outs = [self._fresh() for _ in eqn.outvars]
                self.steps.append(_Step(eqn, ins, outs))
            env.update(zip(eqn.outvars, outs))
        return [read(v) for v in jaxpr.outvars]

    def _live_steps(self, results):
        """Steps worth running: effectful ones, and those whose outputs are
        used (dead code is skipped, as XLA would; SPEC DBG-6)."""
        live = set(results)
        kept = []
        for step in reversed(self.steps):
            if _has_effects(step.eqn) or any(o in live for o in step.outs):
                kept.append(step)
                live.update(step.ins)
        kept.reverse()
        return kept

    # -- writing -------------------------------------------------------
    def write(self):
        jaxpr = self.closed.jaxpr
        args = [f"a{i}" for i in range(len(jaxpr.invars))]
        results = self._inline(self.closed, args)
        steps = _fuse_transposed_dots(self._live_steps(results), results)
        body = []
        for step, dead in zip(steps, _last_uses(steps, set(args) | set(results))):
            body.extend(self._line(step))
            if dead:
                body.append(f"del {', '.join(dead)}")
        body.append(f"return [{', '.join(results)}]")
        head = [f"# {len(steps)} equations, {len(self.constants)} constants",
                *self.constants,
                f"def run({', '.join(args)}):",
                "    _token = _silence()",
                "    try:"]
        lines = head + ["        " + line for line in body]
        lines += ["    finally:", "        _restore(_token)"]
        return "\n".join(lines) + "\n", self.namespace

    def _line(self, step):
        eqn = step.eqn
        kernel = (self._kernel(eqn) if step.kernel is None
                  else self._bind(step.kernel, "dot_general_transposed"))
        call = f"{kernel}({', '.join(step.ins)})"
        avals = [v.aval for v in eqn.outvars]
        if not eqn.primitive.multiple_results:
            return [f"{step.outs[0]} = _as_dtype({call}, {self._aval(avals[0])})"]
        out = self._fresh()
        lines = [f"{out} = {call}"]
        lines += [f"{o} = _as_dtype({out}[{j}], {self._aval(a)})"
                  for j, (o, a) in enumerate(zip(step.outs, avals))]
        return lines

    def _aval(self, aval):
        """A namespace name for ``aval``, e.g. ``t_f32_128_512`` (``w``: weak)."""
        name = self.avals.get(aval)
        if name is None:
            text = ("w" if aval.weak_type else "") + aval.str_short(short_dtypes=True)
            name = self.avals[aval] = self._unique("t_", text)
            self.namespace[name] = aval
        return name

    def _kernel(self, eqn):
        """The kernel an equation runs, bound in the namespace: specialized
        to its types when the primitive can be (PERF-3), the physical rule
        for key-typed operands (RNG-20), else ``impl`` with its params."""
        prim = eqn.primitive
        avals_in = [v.aval for v in eqn.invars]
        avals_out = [v.aval for v in eqn.outvars]
        # A primitive with no physical rule that specializes itself (the host
        # callbacks) handles key operands in its own kernel.
        if _key_typed(eqn) and not (prim.physical is None and prim.specialize is not None):
            out = avals_out if prim.multiple_results else avals_out[0]
            kernel = dispatch.physical_impl(prim, avals_in, out)
            kernel = functools.partial(kernel, **eqn.params) if eqn.params else kernel
        elif prim.specialize is not None:
            kernel = prim.specialize(avals_in, avals_out, **eqn.params)
        elif prim.impl is None:     # a user primitive without def_impl (EXT-13)
            raise NotImplementedError(
                f"MLIR translation rule for primitive '{prim.name}' not found for "
                "platform cpu")
        elif eqn.params:
            kernel = functools.partial(prim.impl, **eqn.params)
        else:
            kernel = prim.impl
        return self._bind(kernel, prim.name)


def _fuse_transposed_dots(steps, results):
    """Replace ``transpose(producer(a, b))``, where nothing else reads the
    product, by one kernel writing the transposed product directly, for
    primitives with a ``specialize_transposed`` rule (``dot_general``;
    SPEC PERF-3)."""
    reads = collections.Counter(name for step in steps for name in step.ins)
    reads.update(results)
    producer = {step.outs[0]: step for step in steps
                if step.eqn.primitive.specialize_transposed is not None}
    fused, dropped = [], set()
    for step in steps:
        eqn = step.eqn
        source = producer.get(step.ins[0]) if eqn.primitive.name == "transpose" else None
        kernel = None
        if source is not None and reads[step.ins[0]] == 1 and not _key_typed(eqn):
            kernel = source.eqn.primitive.specialize_transposed(
                [v.aval for v in source.eqn.invars], eqn.outvars[0].aval,
                source.eqn.params, eqn.params["permutation"])
        if kernel is None:
            fused.append(step)
        else:
            dropped.add(id(source))
            fused.append(_Step(eqn, source.ins, step.outs, kernel))
    return [step for step in fused if id(step) not in dropped]


def _identifier(text):
    """``text`` as the tail of an ASCII identifier: ``f32[128,512]`` ->
    ``f32_128_512``; a non-ASCII character becomes ``u`` and its code point
    in hex (``x²`` -> ``xu00b2``), so Python's NFKC normalization of
    identifiers cannot turn it into another name (SPEC PERF-5)."""
    def escape(ch):
        if ch.isascii():
            return ch if ch.isalnum() else "_"
        return f"u{ord(ch):04x}"
    return "".join(map(escape, text)).strip("_")


def _key_typed(eqn):
    """Whether an operand or result of ``eqn`` is a PRNG key (RNG-20)."""
    return any(isinstance(v.aval.dtype, dtypes.ExtendedDType)
               for v in (*eqn.invars, *eqn.outvars))


def _last_uses(steps, kept):
    """Per step, the intermediates no later step reads (names in ``kept``
    -- inputs and results -- are never listed)."""
    last = {}
    for k, step in enumerate(steps):
        for name in step.ins:
            if name[0] == "v" and name not in kept:
                last[name] = k
    dead = [[] for _ in steps]
    for name, k in last.items():
        dead[k].append(name)
    return dead


def _has_effects(eqn):
    """Whether ``eqn`` or a jaxpr nested in it calls back into Python."""
    return eqn.primitive.effectful or any(
        _has_effects(e) for sub in core.jaxprs_in_params(eqn.params) for e in sub.eqns)


def _conformer(array_type):
    """``_as_dtype(buffer, aval)`` for a program on a backend whose arrays
    have type ``array_type``: ``buffer`` itself when it already is such an
    array of ``aval``'s dtype, else converted as eager results are
    (``core.conform_buffer``: kernels may return scalars, host arrays or a wider
    dtype).  Key data stays uint32 (SPEC RNG-3)."""
    def as_dtype(buffer, aval):
        if type(buffer) is array_type and buffer.dtype == aval.dtype:
            return buffer
        if isinstance(aval.dtype, dtypes.ExtendedDType):
            return buffer
        return core.conform_buffer(buffer, aval)
    return as_dtype
