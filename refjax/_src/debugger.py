"""``jax.debug.breakpoint``: an interactive debugger at a traced point.

The Python frames around the call are captured when it is traced.  Their
local variables that are tracers travel as the operands of a debug
callback, so when the program runs (eagerly, or at every execution of a
``jit`` program) the debugger sees their runtime values; the other locals
are shown as they were at trace time.  The ``cli`` debugger reads commands
from stdin (SPEC DBG-17).

Layer 6: built on ``debug_callback`` and ``pure_callback``.
"""
import cmd
import dataclasses
import inspect
import os
import pprint
import sys
import threading
import traceback
import warnings

from refjax._src import core, tree_util
from refjax._src.api import ShapeDtypeStruct
from refjax._src.debugging import debug_callback, pure_callback
from refjax._src.interpreters import ad

_REFJAX_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclasses.dataclass(frozen=True)
class DebuggerFrame:
    """One Python frame as the debugger shows it."""
    filename: str
    locals: dict
    globals: dict
    code_context: object
    source: list
    lineno: int
    offset: object    # index of ``lineno`` in ``source``; None: no source

    @classmethod
    def from_frameinfo(cls, info):
        try:
            lines, start = inspect.getsourcelines(info.frame)
            source = "".join(lines).split("\n")
            offset = info.lineno - max(start, 1)
            if offset >= len(source):   # code from eval() and the like
                source, offset = [], None
        except (OSError, TypeError):
            source, offset = [], None
        return cls(info.filename, dict(info.frame.f_locals), {}, info.code_context,
                   source, info.lineno, offset)


def _split_frames(frames):
    """(tracer leaves of the frames' locals, rebuild(values) -> frames with
    those leaves replaced by ``values``)."""
    plans, dynamic = [], []
    for frame in frames:
        plan = {}
        for name, value in frame.locals.items():
            try:
                with warnings.catch_warnings():
                    # Locals are whatever the user has (generators...); only
                    # their tracers matter here.
                    warnings.simplefilter("ignore")
                    leaves, tree = tree_util.tree_flatten(value)
            except Exception:  # noqa: BLE001 -- an unflattenable local stays as is
                continue
            mask = [isinstance(x, core.Tracer) for x in leaves]
            if any(mask):
                plan[name] = (tree, leaves, mask)
                dynamic.extend(x for x, m in zip(leaves, mask) if m)
        plans.append(plan)

    def rebuild(values):
        it = iter(values)
        out = []
        for frame, plan in zip(frames, plans):
            local = dict(frame.locals)
            for name, (tree, leaves, mask) in plan.items():
                local[name] = tree_util.tree_unflatten(
                    tree, [next(it) if m else x for x, m in zip(leaves, mask)])
            out.append(dataclasses.replace(frame, locals=local))
        return out

    return dynamic, rebuild


# ---------------------------------------------------------------------------
# The debuggers
# ---------------------------------------------------------------------------

_debuggers = {}
_debug_lock = threading.Lock()


def register_debugger(name, debugger, priority):
    if name in _debuggers:
        raise ValueError(f'Debugger with name "{name}" already registered.')
    _debuggers[name] = (priority, debugger)


def get_debugger(backend=None):
    """The debugger named ``backend``, else the one of highest priority."""
    if backend is not None and backend in _debuggers:
        return _debuggers[backend][1]
    if not _debuggers:
        raise ValueError("No debuggers registered!")
    return max(_debuggers.values(), key=lambda entry: entry[0])[1]


class CliDebugger(cmd.Cmd):
    """A pdb-like prompt, ``(jdb)``, over the captured frames (innermost
    first): ``p``/``pp`` expr, ``u``/``d``, ``l``, ``w``/``bt``, ``c``, ``q``;
    any other line is evaluated and its repr printed."""

    prompt = "(jdb) "

    def __init__(self, frames, thread_id, stdin=None, stdout=None, completekey="tab"):
        super().__init__(stdin=stdin, stdout=stdout, completekey=completekey)
        # With an explicit stdin, read lines from it rather than input().
        self.use_rawinput = stdin is None
        self.frames = frames
        self.frame_index = 0
        self.thread_id = thread_id
        self.intro = "Entering jdb:"

    def _say(self, text):
        print(text, file=self.stdout)

    def _evaluate(self, expr):
        frame = self.frames[self.frame_index]
        return eval(expr, {}, {**frame.globals, **frame.locals})  # noqa: S307

    def _show(self, expr, fmt):
        try:
            self._say(fmt(self._evaluate(expr)))
        except Exception:  # noqa: BLE001 -- report the user's error, stay in jdb
            err = sys.exc_info()[:2]
            self._say("*** " + traceback.format_exception_only(*err)[-1].strip())

    def default(self, line):
        self._show(line, repr)

    def do_p(self, arg):
        """p expression: print the value of the expression."""
        self._show(arg, repr)

    def do_pp(self, arg):
        """pp expression: pretty-print the value of the expression."""
        self._show(arg, pprint.pformat)

    def do_up(self, arg):
        """u(p): move one frame out."""
        if self.frame_index == len(self.frames) - 1:
            self._say("At topmost frame.")
        else:
            self.frame_index += 1
        self._context()

    def do_down(self, arg):
        """d(own): move one frame in."""
        if self.frame_index == 0:
            self._say("At bottommost frame.")
        else:
            self.frame_index -= 1
        self._context()

    def do_list(self, arg):
        """l(ist): show the source around the current line."""
        self._context(num_lines=5)

    def do_where(self, arg):
        """w(here), bt: the captured stack, innermost frame last."""
        lines = ["Traceback:"]
        for frame in reversed(self.frames):
            lines.append(f'  File "{frame.filename}", line {frame.lineno}')
            lines.append("    <no source>" if frame.offset is None
                         else "    " + frame.source[frame.offset].strip())
        self._say("\n".join(lines))

    def do_continue(self, arg):
        """c(ont(inue)): leave the debugger; the program goes on."""
        return True

    def do_quit(self, arg):
        """q(uit), exit: end the program (SystemExit)."""
        sys.exit(0)

    do_u, do_d, do_l = do_up, do_down, do_list
    do_w = do_bt = do_where
    do_c = do_cont = do_continue
    do_q = do_exit = do_EOF = do_quit

    def _context(self, num_lines=2):
        frame = self.frames[self.frame_index]
        lines = [f"> {frame.filename}({frame.lineno})"]
        if frame.offset is not None:
            for i, line in enumerate(frame.source):
                if frame.offset - 1 - num_lines <= i <= frame.offset + num_lines:
                    lines.append(("->  " if i == frame.offset else "    ") + line)
        self._say("\n".join(lines))

    def run(self):
        while True:
            try:
                self.cmdloop()
                return
            except KeyboardInterrupt:
                print("--KeyboardInterrupt--", file=sys.stdout)


def _run_cli(frames, thread_id, **kwargs):
    CliDebugger(frames, thread_id, **kwargs).run()


register_debugger("cli", _run_cli, -1)


# ---------------------------------------------------------------------------
# jax.debug.breakpoint
# ---------------------------------------------------------------------------

def breakpoint(*, backend=None, filter_frames=True, num_frames=None, ordered=False,
               token=None, **kwargs):
    """Stop in the debugger ``backend`` (``'cli'``) where this is called,
    eagerly or whenever the traced program runs (SPEC DBG-17).

    ``filter_frames`` leaves out refjax's own frames; ``num_frames`` keeps
    that many frames, innermost first; ``kwargs`` go to the debugger (the
    ``cli`` one takes ``stdin``/``stdout``).  With ``token`` (a pytree of
    arrays) the stop waits for ``token``'s value and ``token`` is returned;
    ``ordered`` and ``token`` exclude each other (ValueError)."""
    if token is not None and ordered:
        raise ValueError("`ordered` and `token` are mutually exclusive arguments.")
    infos = inspect.stack()[1:]
    if filter_frames:
        infos = [i for i in infos if not os.path.abspath(i.filename).startswith(_REFJAX_DIR)]
    frames = [DebuggerFrame.from_frameinfo(i) for i in infos]
    del infos
    if num_frames is not None:
        frames = frames[:num_frames]
    dynamic, rebuild = _split_frames(frames)

    def stop(*values):
        thread_id = (None if threading.current_thread() is threading.main_thread()
                     else threading.get_ident())
        debugger = get_debugger(backend)
        with _debug_lock:
            debugger(rebuild(values), thread_id, **kwargs)

    if token is None:
        debug_callback(stop, *dynamic, ordered=ordered)
        return None
    token, dynamic = ad.stop_gradient((token, dynamic))

    def stop_then_pass(tok, *values):
        stop(*values)
        return tok

    shapes = tree_util.tree_map(
        lambda x: ShapeDtypeStruct(core.get_aval(x).shape, core.get_aval(x).dtype), token)
    return pure_callback(stop_then_pass, shapes, token, *dynamic)
