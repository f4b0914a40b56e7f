"""What a child-side case run needs: the entry point, device, guard and encoder.

Student code runs only inside `ChildContext.call` and `ChildContext.run`; on the
way out of either, global torch state the code left changed is restored and
reported as the answer's error, so harness code never runs under it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from runner.harness import pristine, values
from runner.harness.encode import Encoder
from runner.harness.guard import GraphProbe, Guard, leftover_state, mode_stacks, same_modes
from runner.harness.tb import describe


class GraderWatchChanged(RuntimeError):
    """The answer removed, replaced or added torch modes while it ran."""

    def __init__(self) -> None:
        super().__init__("the answer changed the torch modes the grader runs it under")


class StudentError(Exception):
    """Student (or reference) code raised; `info` describes it as data."""

    def __init__(self, info: dict[str, Any]) -> None:
        super().__init__(info["message"])
        self.info = info


@dataclass(frozen=True)
class Called:
    """The output of one call of the entry point, and what the watch saw during it."""

    output: Any
    graph_recorded: bool = False
    # Autograd nodes created on the calling thread during the call (its own backward passes
    # build nodes only with create_graph=True).
    graph_nodes: int = 0


@dataclass
class ChildContext:
    entry: Callable[..., Any]
    device: str
    guard: Guard
    encoder: Encoder
    filename: str
    record: dict[str, Any] = field(default_factory=dict)  # the case being run

    def call(
        self, args: list[Any], kwargs: dict[str, Any], seed: int, *, probe_graph: bool = False
    ) -> Called:
        """Seed every RNG and call the entry point under the guard (raises StudentError)."""
        values.seed_everything(seed, self.device)
        first_node = pristine.autograd_sequence_nr()
        with self._student_code(self.guard.watching(probe_graph=probe_graph)) as watch:
            output = self.entry(*args, **kwargs)
        nodes = pristine.autograd_sequence_nr() - first_node
        return Called(output, bool(watch and watch.graph_recorded), nodes)

    def run(self, action: Callable[[], Any]) -> Any:
        """Run harness steps that execute student code (backward, training) as data."""
        with self._student_code(self.guard.watching(operators=False)):
            return action()

    @contextlib.contextmanager
    def _student_code(
        self, watching: AbstractContextManager[GraphProbe | None]
    ) -> Iterator[GraphProbe | None]:
        """Run the block under the guard's watch; any failure becomes a StudentError."""
        depths = _depths()
        try:
            with watching as watch:
                try:
                    modes = mode_stacks()
                    yield watch
                    if not same_modes(modes):
                        raise GraderWatchChanged
                except (Exception, SystemExit) as error:  # noqa: BLE001  # student code: data
                    # Described while still watched: an exception's __str__ is answer code.
                    raise StudentError(describe(error, self.filename)) from None
        except StudentError:
            raise
        except (Exception, SystemExit) as error:  # noqa: BLE001  # the watch's own exit refused
            raise StudentError(describe(error, self.filename)) from None
        finally:
            _raise_on_leftover_state(depths)

    def encode(self, value: Any, *, with_grads: bool = False) -> dict[str, Any]:
        return self.encoder.encode(value, with_grads=with_grads)


def _depths() -> tuple[int, int]:
    return pristine.function_mode_depth(), pristine.dispatch_mode_depth()


def _raise_on_leftover_state(depths: tuple[int, int]) -> None:
    problem = leftover_state(depths)
    if problem is not None:
        info = {"type": "GlobalStateChanged", "message": problem, "traceback": ""}
        raise StudentError(info)


def bad(reason: str) -> dict[str, Any]:
    return {"k": "bad", "reason": reason}


def error_text(error: StudentError) -> str:
    return f"{error.info['type']}: {error.info['message']}"
