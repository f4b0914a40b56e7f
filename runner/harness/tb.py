"""Exceptions from student code, described as data with a traceback of their own lines."""

from __future__ import annotations

from typing import Any

from runner.harness import pristine

MAX_MESSAGE = 1000
MAX_FRAMES = 20
UNPRINTABLE = "(the exception could not be printed)"


def register_source(filename: str, source: str) -> None:
    """Let tracebacks show the lines of code that was compiled from a string."""
    pristine.linecache_entries[filename] = (len(source), None, source.splitlines(True), filename)


def describe(error: BaseException, filename: str) -> dict[str, Any]:
    """Type, message and a traceback trimmed to frames of `filename` (the answer's code)."""
    return {
        "type": _safe(lambda: pristine.type_(error).__name__, "Exception"),
        "message": _safe(lambda: pristine.str_(error), UNPRINTABLE)[:MAX_MESSAGE],
        "traceback": _trimmed(error, filename),
    }


def _trimmed(error: BaseException, filename: str) -> str:
    frames = [
        frame for frame in pristine.extract_tb(error.__traceback__) if frame.filename == filename
    ]
    lines = []
    for frame in frames[-MAX_FRAMES:]:
        lines.append(f"  line {frame.lineno}, in {frame.name}")
        if frame.line:
            lines.append(f"    {frame.line.strip()}")
    return "\n".join(lines)


def format_error(info: dict[str, Any]) -> str:
    """One readable block: trimmed traceback then `Type: message`."""
    head = f"{info['type']}: {info['message']}" if info["message"] else str(info["type"])
    if info["traceback"]:
        return f"Traceback (your code):\n{info['traceback']}\n{head}"
    return head


def _safe(make: Any, fallback: str) -> str:
    try:
        value = make()
    except Exception:  # noqa: BLE001  # a hostile __str__ must not break reporting
        return fallback
    return value if pristine.type_(value) is pristine.str_ else fallback
