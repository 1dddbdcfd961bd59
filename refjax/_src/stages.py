"""The ahead-of-time stages of ``jit``: ``Traced``, ``Lowered``, ``Compiled``
and ``ArgInfo`` (SPEC JIT-7, API-11).

Each holds the ``PjitFunction`` it came from, the cache entry of one abstract
signature and the parsed call; running a ``Compiled`` goes back through the
``PjitFunction`` so that it obeys the same execution options as a call.
"""
from refjax._src import core, tree_util
from refjax._src.compiler import executable_for
from refjax._src.core import Tracer
from refjax._src.errors import JaxRuntimeError
from refjax._src.shape_dtype_struct import _shape_dtype_struct


class ArgInfo:
    """One argument's type and donation, as ``Lowered.args_info`` lists them
    (``jax.stages.ArgInfo``; SPEC API-11)."""

    __slots__ = ("_aval", "donated")

    def __init__(self, _aval, donated):
        self._aval = _aval
        self.donated = donated

    @property
    def shape(self):
        return self._aval.shape

    @property
    def dtype(self):
        return self._aval.dtype

    def __eq__(self, other):
        return (isinstance(other, ArgInfo) and
                (self._aval, self.donated) == (other._aval, other.donated))

    def __hash__(self):
        return hash((self._aval, self.donated))

    def __repr__(self):
        weak = ", weak_type=True" if self._aval.weak_type else ""
        return (f"ArgInfo(_aval=ShapedArray({self._aval.str_short()}{weak}), "
                f"donated={self.donated})")


def _args_info(entry, call):
    """``(args, kwargs)`` of the dynamic arguments, each leaf an ArgInfo."""
    donated = entry.donated or (False,) * len(entry.in_avals)
    return tree_util.tree_unflatten(
        call.in_tree, [ArgInfo(a, d) for a, d in zip(entry.in_avals, donated)])


class Traced:
    """``jit(f).trace(*args)``: the jaxpr and what lowering needs (JIT-7)."""

    def __init__(self, wrapped, entry, call):
        self._wrapped = wrapped
        self._entry = entry
        self._call = call

    @property
    def jaxpr(self):
        return self._entry.traced.closed

    @property
    def out_info(self):
        return tree_util.tree_unflatten(
            self._entry.traced.out_tree,
            [_shape_dtype_struct(a) for a in self._entry.out_avals])

    @property
    def args_info(self):
        return _args_info(self._entry, self._call)

    def lower(self, *, lowering_platforms=None, _private_parameters=None):
        """The lowered program; refjax has one platform, so
        ``lowering_platforms`` changes nothing (SPEC JIT-14)."""
        return Lowered(self._wrapped, self._entry, self._call)


def _module_name(name):
    """``jit_f``; ``<lambda>`` becomes ``_lambda`` as in JAX's module names."""
    name = name.replace("<", "_").replace(">", "")
    return "jit_" + "".join(c if c.isalnum() or c == "_" else "_" for c in name)


def _program_text(wrapped, entry):
    """``# module @jit_f``, the jaxpr as comments, then the program's source."""
    if entry.run is None:
        entry.run = executable_for(entry.traced.closed)
    jaxpr = "\n".join("#   " + line for line in str(entry.traced.closed).splitlines())
    return (f"# module @{_module_name(wrapped._name)}: the program refjax runs, "
            f"written from the jaxpr\n{jaxpr}\n{entry.run.source}")


class Lowered:
    """``jit(f).lower(*args)`` (SPEC JIT-7).

    refjax has no StableHLO: its lowered form is the jaxpr it will run,
    printed inside ``module @jit_<name> { ... }``.
    """

    def __init__(self, wrapped, entry, call):
        self._wrapped = wrapped
        self._entry = entry
        self._call = call
        entry.deletions()       # JAX reports unusable donations when lowering

    def as_text(self, dialect=None, **unused):
        """The Python program refjax runs, headed by ``# module @jit_f`` and
        the jaxpr it was written from (SPEC JIT-7, PERF-2)."""
        return _program_text(self._wrapped, self._entry)

    @property
    def out_info(self):
        return Traced(self._wrapped, self._entry, self._call).out_info

    @property
    def args_info(self):
        return _args_info(self._entry, self._call)

    @property
    def in_avals(self):
        """``(args, kwargs)`` of the dynamic arguments' avals (SPEC JIT-14)."""
        return tree_util.tree_unflatten(self._call.in_tree, list(self._entry.in_avals))

    @property
    def donate_argnums(self):
        """The positions the jitted function donates (SPEC JIT-14)."""
        return tuple(self._wrapped.donate_argnums)

    @property
    def in_tree(self):
        """The treedef of ``(args, kwargs)`` of the dynamic arguments (JIT-14)."""
        return self._call.in_tree

    def compile(self, compiler_options=None):
        """The compiled program.  ``compiler_options`` names XLA options;
        refjax has no XLA, so it checks only that each name is an XLA option
        name (``xla_...``) and ignores the values (SPEC JIT-15)."""
        for name in compiler_options or {}:
            if not (isinstance(name, str) and name.startswith("xla_")):
                raise JaxRuntimeError(f"INVALID_ARGUMENT: No such compile option: '{name}'")
        return Compiled(self._wrapped, self._entry, self._call)

    def cost_analysis(self):
        return {}


class Compiled:
    """A program fixed to one argument signature (SPEC JIT-7).

    It takes only the dynamic arguments (static ones were fixed when
    lowering) and refuses other pytree structures, shapes or dtypes, and
    tracers: a compiled program cannot be transformed further.
    """

    def __init__(self, wrapped, entry, call):
        self._wrapped = wrapped
        self._entry = entry
        self._call = call
        self._in_tree = call.in_tree

    in_avals = Lowered.in_avals
    donate_argnums = Lowered.donate_argnums
    in_tree = Lowered.in_tree

    def as_text(self):
        """The Python program refjax runs for this signature (JAX: HLO text)."""
        return _program_text(self._wrapped, self._entry)

    @property
    def out_info(self):
        return tree_util.tree_unflatten(
            self._entry.traced.out_tree,
            [_shape_dtype_struct(a) for a in self._entry.out_avals])

    def __call__(self, *args, **kwargs):
        flat, in_tree = tree_util.tree_flatten((args, kwargs))
        for x in flat:
            if isinstance(x, Tracer):
                raise TypeError(
                    "Cannot apply JAX transformations to a function lowered and "
                    "compiled for a particular signature. Detected argument of "
                    f"Tracer type {type(x)}.")
        if in_tree != self._in_tree:
            raise TypeError(
                "Function compiled with input pytree does not match the input "
                "pytree it was called with. There are 1 mismatches, including:\n"
                f"    * compiled for {self._in_tree}, called with {in_tree}")
        self._check_types(flat)
        return tree_util.tree_unflatten(self._entry.traced.out_tree,
                                        self._wrapped._run_compiled(self._entry, flat))

    def _check_types(self, flat):
        lines = []
        for name, want, x in zip(self._entry.arg_names, self._entry.in_avals, flat):
            got = core.get_aval(x)
            if (got.shape, got.dtype) != (want.shape, want.dtype):
                lines.append(f"Argument '{name}' compiled with {want.str_short()} "
                             f"and called with {got.str_short()}")
        if lines:
            raise TypeError(
                "Argument types differ from the types for which this computation "
                "was compiled. Perhaps you are calling the compiled executable "
                "with a different enable_x64 mode than when it was AOT compiled? "
                "The mismatches are:\n" + "\n".join(lines))
