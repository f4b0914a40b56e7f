"""The interpreter's own veto, behind the static check, while a graded answer runs.

The static check refuses what an answer may not name, but values reach an answer unnamed
(a function's result, an exception's `.obj`), and from a module object every other module
is a few attribute reads away. Every escape from there needs one of a few interpreter
operations: unpickling, building code or function objects, running source text, raw memory
(ctypes), frames and the garbage collector's object lists, processes, sockets, writing
files. Python raises an audit event (PEP 578) for each, whoever asks; once armed in a graded
child, the hook below refuses them. Torch's lazy imports do some of these legitimately, so
code running inside the import machinery is let through, as long as the import path is the
one the child started with (an import from a folder the answer added would run its file).
Torch itself reads frames and ids (typing, torch.library): those are refused only to code
that is not in a file (the answer's, or source text it got run).

The hook keeps everything it decides with in its own closure: an answer that reached this
module and replaced its functions or sets would change nothing the hook uses.
"""

from __future__ import annotations

import collections
import dataclasses
import gc
import os
import sys
import typing
from collections.abc import Callable
from types import CodeType, FrameType
from typing import Any

# Hits the guard records for these read "<event> (refused while the answer ran)".
RUN_TIME_MARK = " (refused while the answer ran)"

# Refused outside imports, whoever asks: no answer and no torch operation needs them.
REFUSED = frozenset(
    """
    pickle.find_class marshal.load marshal.loads marshal.dumps code.__new__ function.__new__
    sys._current_frames sys.settrace sys.setprofile sys.addaudithook sys.setrecursionlimit
    gc.get_objects gc.get_referrers gc.get_referents gc.freeze gc.unfreeze
    subprocess.Popen builtins.input builtins.breakpoint _thread.start_new_thread
    setopencodehook cpython.run_command cpython.run_file cpython.run_module
""".split()
)
REFUSED_PREFIXES = ("ctypes.", "socket.", "os.", "mmap.", "shutil.", "resource.", "signal.")
# Refused to code that is not in a file (the answer's, or text it got run): torch reads
# frames (`typing`, `torch.library`) and ids (hashing tensors) for itself.
REFUSED_TO_THE_ANSWER = frozenset({"sys._getframe", "object.__getattr__", "builtins.id"})
# Source text run as code: only namedtuple's and dataclasses' generated methods. typing only
# compiles (a string annotation's ForwardRef); running one is get_type_hints' eval.
CODE_RUNNERS = frozenset(os.path.realpath(str(m.__file__)) for m in (collections, dataclasses))
CODE_COMPILERS = CODE_RUNNERS | {os.path.realpath(str(typing.__file__))}
_IMPORT_MACHINERY = "<frozen importlib._bootstrap"
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def arm(answer_code: CodeType, answer_file: str, refuse: Callable[[str], object]) -> None:
    """Install the veto for the rest of this process (hooks cannot be removed: the child
    runs one job and exits). `answer_code` may be executed once, to load the answer;
    `refuse(hit)` records a refusal and raises."""
    judge = _judge(tuple(sys.path), answer_file)
    loaded = [False]
    busy = [False]
    collecting, stop_collecting, collect = gc.isenabled, gc.disable, gc.enable

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if busy[0]:
            return  # an event raised by the hook's own look at the frames
        if event == "exec" and args and args[0] is answer_code and not loaded[0]:
            loaded[0] = True
            return
        # The collector stays off while busy: a collection there would run the answer's
        # __del__ methods with every event they raise let through.
        was_collecting = collecting()
        stop_collecting()
        busy[0] = True
        try:
            refused = judge(event, args)
        finally:
            busy[0] = False
            if was_collecting:
                collect()
        if refused:
            refuse(event + RUN_TIME_MARK)

    sys.addaudithook(hook)


def _judge(
    import_path: tuple[str, ...], answer_file: str
) -> Callable[[str, tuple[Any, ...]], bool]:
    """Whether an event is refused, with every function it calls bound here, once."""
    getframe, realpath = sys._getframe, os.path.realpath
    watched, writes, importing, not_in_a_file = _watched, _writes, _importing, _not_in_a_file
    to_the_answer, runners, compilers = REFUSED_TO_THE_ANSWER, CODE_RUNNERS, CODE_COMPILERS

    def judge(event: str, args: tuple[Any, ...]) -> bool:
        if not watched(event):
            return False
        if event == "import":
            return len(args) > 2 and tuple(args[2] or ()) != import_path
        if event == "open" and not writes(args):
            return False  # reads: imports, linecache, /proc; the cheap test first
        caller = getframe(2)  # 0 here, 1 the hook, 2 the code that raised the event
        filename = caller.f_code.co_filename
        # The frame's own file first: id() and frame reads are frequent in torch, the walk
        # up the stack for the import machinery is not cheap.
        if event in to_the_answer and not not_in_a_file(filename, answer_file):
            return False
        if event in ("compile", "exec"):
            allowed = runners if event == "exec" else compilers
            if realpath(filename) in allowed:
                return False
        return not importing(caller, answer_file)

    return judge


# Constants are bound as defaults, so that replacing this module's globals changes nothing.
def _watched(
    event: str,
    refused: frozenset[str] = REFUSED,
    prefixes: tuple[str, ...] = REFUSED_PREFIXES,
    to_the_answer: frozenset[str] = REFUSED_TO_THE_ANSWER,
) -> bool:
    return (
        event in refused
        or event.startswith(prefixes)
        or event in to_the_answer
        or event in ("compile", "exec", "open", "import")
    )


def _writes(args: tuple[Any, ...], write_flags: int = _WRITE_FLAGS) -> bool:
    """Whether an `open` event (path, mode, flags) opens for writing."""
    mode = args[1] if len(args) > 1 else None
    flags = args[2] if len(args) > 2 else 0
    if isinstance(mode, str):
        return any(letter in mode for letter in "wax+")
    return isinstance(flags, int) and bool(flags & write_flags)


def _not_in_a_file(filename: str, answer_file: str, frozen: str = "<frozen ") -> bool:
    """The answer's code, or source text run from it ("<string>"), not a module's file nor
    the standard library's frozen modules ("<frozen os>", the import machinery)."""
    return filename == answer_file or (filename.startswith("<") and not filename.startswith(frozen))


def _importing(
    frame: FrameType | None,
    answer_file: str,
    machinery: str = _IMPORT_MACHINERY,
    not_in_a_file: Callable[[str, str], bool] = _not_in_a_file,
) -> bool:
    """Whether the event comes from an import under way, not from the answer's code that the
    import called back (a str subclass's method, a __del__ the collector ran mid-import)."""
    while frame is not None:
        filename = frame.f_code.co_filename
        if filename.startswith(machinery):
            return True
        if not_in_a_file(filename, answer_file):
            return False
        frame = frame.f_back
    return False
