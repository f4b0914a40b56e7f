"""Parameterised questions: a worker runs the author's generator once per attempt and slot."""

import hashlib
from dataclasses import asdict, is_dataclass
from typing import Any

from config.exceptions import BROKER_ERRORS, BROKER_UNAVAILABLE
from grading.content import generator_source
from grading.errors import JobQueueUnavailable, VariantGenerationFailed
from runner import api as runner_api


def variant_seed(attempt_seed: int, position: int) -> int:
    """A stable 31-bit seed for one slot of one attempt."""
    digest = hashlib.sha256(f"{attempt_seed}:{position}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def _as_dict(result: object) -> dict[str, Any]:
    if is_dataclass(result) and not isinstance(result, type):
        return asdict(result)
    if isinstance(result, dict):
        return result
    raise VariantGenerationFailed("The question's generator returned an unreadable result.")


def variant_generate(
    *, content: dict[str, Any], seed: int, timeout_s: float = runner_api.REQUEST_TIMEOUT_S
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(params, answers) for a question with a generator; ({}, {}) for any other question."""
    source = generator_source(content)
    if source is None:
        return {}, {}
    try:
        payload = _as_dict(
            runner_api.request_generator(
                source, seed, runner_api.Limits(time_s=5.0), timeout_s=timeout_s
            )
        )
    except runner_api.GeneratorFailed as exc:
        raise VariantGenerationFailed(f"The question's parameter generator failed: {exc}") from None
    except BROKER_ERRORS:
        raise JobQueueUnavailable(BROKER_UNAVAILABLE) from None
    params, answers = payload.get("params", {}), payload.get("answers", {})
    if not isinstance(params, dict) or not isinstance(answers, dict):
        raise VariantGenerationFailed(
            "The question's generator must return params and answers mappings."
        )
    return params, answers
