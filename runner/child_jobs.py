"""What a sandboxed child does with its one message: grade, run a snippet, or generate.

Runs inside the confined child only. Returned bytes become the single result
frame; anything the student's code prints goes to the capped stdout/stderr pipes.
"""

from __future__ import annotations

import json
import linecache
import random
import sys
import traceback
from typing import Any

from runner.harness.child import run_request as _harness_run_request
from runner.harness.child_timing import run_timing

STUDENT_FILE = "<student>"


def _register_source(source: str) -> None:
    # Lets tracebacks show the student's own lines although the file exists nowhere.
    lines = source.splitlines(keepends=True)
    linecache.cache[STUDENT_FILE] = (len(source), None, lines, STUDENT_FILE)


def student_traceback(error: BaseException) -> str:
    """The traceback trimmed to frames in the student's own code."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == STUDENT_FILE]
    lines = ["Traceback (most recent call last):\n"] if frames else []
    lines += traceback.format_list(frames)
    lines += traceback.format_exception_only(type(error), error)
    return "".join(lines)


def _exec_source(source: str, name: str) -> dict[str, Any]:
    _register_source(source)
    namespace: dict[str, Any] = {"__name__": name, "__file__": STUDENT_FILE}
    exec(compile(source, STUDENT_FILE, "exec", dont_inherit=True), namespace)  # noqa: S102 - the sandbox's job
    return namespace


def _run_snippet(source: str) -> bytes:
    exit_code = 0
    try:
        _exec_source(source, "__main__")
    except SystemExit as stop:
        exit_code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    except BaseException as error:  # noqa: BLE001 - reported to the student as their traceback
        sys.stderr.write(student_traceback(error))
        exit_code = 1
    return json.dumps({"exit_code": exit_code}).encode()


def _run_generator(source: str, seed: int) -> bytes:
    try:
        namespace = _exec_source(source, "generator")
        value = namespace["generate"](random.Random(seed))  # noqa: S311 - not for security
        return json.dumps({"ok": True, "value": value}, allow_nan=False).encode()
    except Exception as error:  # noqa: BLE001 - the author sees their traceback
        return json.dumps({"ok": False, "error": student_traceback(error)}).encode()


def run_message(message: dict[str, Any]) -> bytes:
    """Dispatch the job message by kind and return the result payload."""
    kind = message["kind"]
    if kind == "exec":
        return _run_snippet(message["source"])
    if kind == "generate":
        return _run_generator(message["source"], int(message["seed"]))
    if kind == "harness":
        payload: bytes = _harness_run_request(message["request"])
        return payload
    if kind == "timing":
        timed: bytes = run_timing(message["request"])
        return timed
    raise ValueError(f"unknown job kind {kind!r}")
