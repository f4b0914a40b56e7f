"""What a student is shown of a question: an explicit allow-list, never the content dict.

Correct flags, accepted answers, reference and wrong solutions, generators, hidden cases,
model answers, guidance and rubrics are never copied out. The API's attempt view and the
authors' preview both build on `student_fields`, so the two can never disagree.
"""

from collections.abc import Callable
from typing import Any

from quizbank.rendering import render_inline_markdown

CHOICE_TYPES = ("single_choice", "multiple_choice")


def _as_is(text: str) -> str:
    return text


def shown_order(content: dict[str, Any], choice_order: list[int] | None) -> list[int]:
    """The indexes of the question's choices in the order the student sees them. A choice's
    id for the student is its place in this list, never its index in the author's list: the
    author's order (the correct choice is often first) must not show through a shuffle."""
    count = len(content.get("choices", []))
    return [index for index in (choice_order or range(count)) if 0 <= index < count]


def _choices(
    content: dict[str, Any], order: list[int] | None, fill: Callable[[str], str]
) -> list[dict[str, Any]]:
    choices = content.get("choices", [])
    texts = [fill(str(choices[index].get("text", ""))) for index in shown_order(content, order)]
    return [
        {"id": shown_id, "text": text, "html": render_inline_markdown(text)}
        for shown_id, text in enumerate(texts)
    ]


def student_fields(
    content: dict[str, Any],
    *,
    choice_order: list[int] | None = None,
    fill: Callable[[str], str] = _as_is,
) -> dict[str, Any]:
    """Type, title and the per-type fields a student needs to answer; `fill` puts a
    parameterised variant's values into choice texts, `choice_order` is the shuffled order."""
    qtype = str(content.get("type", ""))
    fields: dict[str, Any] = {"type": qtype, "title": str(content.get("title", ""))}
    if qtype in CHOICE_TYPES:
        fields["choices"] = _choices(content, choice_order, fill)
    elif qtype == "numeric":
        fields["unit"] = str(content.get("unit", ""))
    elif qtype == "code":
        fields["entry_point"] = str(content.get("entry_point", ""))
        fields["starter_code"] = str(content.get("starter_code", ""))
    elif qtype == "viva":
        fields["mode"] = str(content.get("mode", "written"))
    return fields
