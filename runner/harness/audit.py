"""The interpreter's own veto, behind the static check, while a graded answer runs.

The static check refuses what an answer may not name, but values reach an answer unnamed
(a function's result, an exception's `.obj`), and from a module object every other module
is a few attribute reads away. Every escape from there needs one of a few interpreter
operations: unpickling, building code or function objects, raw memory (ctypes), frames and
the garbage collector's object lists, processes, sockets, writing files. Python raises an
audit event (PEP 578) for each, whoever asks; once armed in a graded child, the hook below
refuses them. Torch's lazy imports do some of these legitimately, so code running inside
the import machinery is let through, as long as the import path is the one the child
started with (an import from a folder the answer added would run its file). Torch itself
reads frames and ids (typing, torch.library): those are refused only to the answer's code.
"""

from __future__ import annotations

import collections
import dataclasses
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
# Refused to the answer's own code only: torch reads frames (`typing`, `torch.library`) and
# ids (hashing tensors) for itself.
REFUSED_TO_THE_ANSWER = frozenset({"sys._getframe", "object.__getattr__", "builtins.id"})
# New code from source: only the standard modules that generate their classes' methods.
CODE_EVENTS = frozenset({"compile", "exec"})
CODE_GENERATORS = frozenset(
    os.path.realpath(str(module.__file__)) for module in (collections, dataclasses, typing)
)
_IMPORT_MACHINERY = "<frozen importlib._bootstrap"
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
_getframe = sys._getframe


def arm(answer_code: CodeType, answer_file: str, refuse: Callable[[str], object]) -> None:
    """Install the veto for the rest of this process (hooks cannot be removed: the child
    runs one job and exits). `answer_code` may be executed once, to load the answer;
    `refuse(hit)` records a refusal and raises."""
    import_path = tuple(sys.path)
    loaded = [False]
    busy = [False]

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if busy[0]:
            return  # an event raised by the hook's own look at the frames
        if event == "exec" and args and args[0] is answer_code and not loaded[0]:
            loaded[0] = True
            return
        busy[0] = True
        try:
            refused = _refusal(event, args, answer_file, import_path)
        finally:
            busy[0] = False
        if refused:
            refuse(event + RUN_TIME_MARK)

    sys.addaudithook(hook)


def _refusal(
    event: str, args: tuple[Any, ...], answer_file: str, import_path: tuple[str, ...]
) -> bool:
    watched = (
        event in REFUSED
        or event.startswith(REFUSED_PREFIXES)
        or event in REFUSED_TO_THE_ANSWER
        or event in CODE_EVENTS
        or event in ("open", "import")
    )
    if not watched:
        return False
    if event == "import":
        return len(args) > 2 and tuple(args[2] or ()) != import_path
    if event == "open" and not _writes(args):
        return False  # reads: imports, linecache, /proc; the cheap test first
    caller = _getframe(2)  # 0 here, 1 the hook, 2 the code that raised the event
    # The frame's own file first: id() and frame reads are frequent in torch, the walk up the
    # stack for the import machinery is not cheap.
    if event in REFUSED_TO_THE_ANSWER and caller.f_code.co_filename != answer_file:
        return False
    if event in CODE_EVENTS and os.path.realpath(caller.f_code.co_filename) in CODE_GENERATORS:
        return False
    return not _importing(caller)


def _importing(frame: FrameType | None) -> bool:
    while frame is not None:
        if frame.f_code.co_filename.startswith(_IMPORT_MACHINERY):
            return True
        frame = frame.f_back
    return False


def _writes(args: tuple[Any, ...]) -> bool:
    """Whether an `open` event (path, mode, flags) opens for writing."""
    mode = args[1] if len(args) > 1 else None
    flags = args[2] if len(args) > 2 else 0
    if isinstance(mode, str):
        return any(letter in mode for letter in "wax+")
    return isinstance(flags, int) and bool(flags & _WRITE_FLAGS)
