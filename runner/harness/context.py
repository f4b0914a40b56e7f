"""What a child-side case run needs: the entry point, device, guard and encoder."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from runner.harness import values
from runner.harness.encode import Encoder
from runner.harness.guard import Guard
from runner.harness.tb import describe

_perf_counter = time.perf_counter


class StudentError(Exception):
    """Student (or reference) code raised; `info` describes it as data."""

    def __init__(self, info: dict[str, Any]) -> None:
        super().__init__(info["message"])
        self.info = info


@dataclass
class ChildContext:
    entry: Callable[..., Any]
    device: str
    guard: Guard
    encoder: Encoder
    filename: str
    record: dict[str, Any] = field(default_factory=dict)  # the case being run

    def call(
        self, args: list[Any], kwargs: dict[str, Any], seed: int, watch: bool = True
    ) -> tuple[Any, float]:
        """Seed every RNG, call the entry point (under the guard); (output, seconds)."""
        guard = self.guard if watch else Guard([])
        values.seed_everything(seed, self.device)
        start = _perf_counter()
        try:
            with guard.watching():
                output = self.entry(*args, **kwargs)
        except (Exception, SystemExit) as error:  # noqa: BLE001  # student code: any failure is data
            raise StudentError(describe(error, self.filename)) from None
        return output, _perf_counter() - start

    def run(self, action: Callable[[], Any]) -> Any:
        """Run harness steps that execute student code (backward, training) as data."""
        try:
            with self.guard.watching():
                return action()
        except (Exception, SystemExit) as error:  # noqa: BLE001  # student code: any failure is data
            raise StudentError(describe(error, self.filename)) from None

    def encode(self, value: Any) -> dict[str, Any]:
        return self.encoder.encode(value)


def bad(reason: str) -> dict[str, Any]:
    return {"k": "bad", "reason": reason}


def error_text(error: StudentError) -> str:
    return f"{error.info['type']}: {error.info['message']}"
