"""Check an answer's shape for its question type before it is saved."""

import json
from typing import Any

from django.conf import settings

from grading.errors import AnswerTooLarge, InvalidAnswer
from grading.scoring.numeric import parse_number

_SHAPES: dict[str, tuple[str, type | tuple[type, ...]]] = {
    "single_choice": ("choice", int),
    "multiple_choice": ("choices", list),
    "true_false": ("value", bool),
    "numeric": ("value", (int, float, str)),
    "short_text": ("text", str),
    "code": ("source", str),
    "viva": ("text", str),
}


def _invalid(field: str, message: str) -> InvalidAnswer:
    return InvalidAnswer(message, fields={f"answer.{field}": [message]})


def _check_choices(field: str, content: dict[str, Any], picked: list[Any]) -> None:
    count = len(content.get("choices", []))
    if not all(isinstance(i, int) and not isinstance(i, bool) for i in picked):
        raise _invalid(field, "Choices are identified by whole numbers.")
    if len(set(picked)) != len(picked) or any(not 0 <= i < count for i in picked):
        raise _invalid(field, f"Each choice must be a distinct number from 0 to {count - 1}.")


def _check_value(qtype: str, field: str, value: Any, content: dict[str, Any]) -> None:
    if qtype == "single_choice":
        _check_choices(field, content, [value])
    elif qtype == "multiple_choice":
        _check_choices(field, content, value)
    elif qtype == "numeric":
        try:
            parse_number(value)
        except ValueError as exc:
            raise _invalid(field, f"Not a number: {exc}.") from None


def answer_validate(*, content: dict[str, Any], answer: Any) -> dict[str, Any] | None:
    """The answer if its shape fits the question type; None clears the response."""
    if answer is None:
        return None
    limit = int(settings.GRADING_MAX_ANSWER_BYTES)
    size = len(json.dumps(answer).encode())
    if size > limit:
        raise AnswerTooLarge(f"The answer is {size} bytes; the limit is {limit} bytes.")
    qtype = str(content.get("type"))
    field, kind = _SHAPES[qtype]
    if not isinstance(answer, dict) or set(answer) != {field}:
        raise _invalid(field, f"A {qtype} answer is an object with exactly the key '{field}'.")
    value = answer[field]
    wrong_bool = isinstance(value, bool) and kind is not bool
    if not isinstance(value, kind) or wrong_bool:
        raise _invalid(field, f"'{field}' has the wrong type for a {qtype} question.")
    _check_value(qtype, field, value, content)
    return {field: value}
