"""GIFT export: a `$CATEGORY:` per topic, then one question per block; what GIFT cannot hold
travels in a `// @vivabank {json}` comment line that Moodle skips and our import reads."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from quizbank.interchange.common import dump_extension, extension_for, percent, slugify
from quizbank.interchange.gift import EXTENSION, TOPIC_EXTENSION, read_block
from quizbank.interchange.report import Draft, Exported, Skipped, TopicRef, Unsupported

_CODE_REASON = "GIFT has no code questions"


def escape(text: str) -> str:
    """GIFT's escapes for its control characters; newlines as \\n keep a question one block."""
    escaped = "".join(f"\\{char}" if char in "~=#{}:\\" else char for char in text)
    return escaped.replace("\n", "\\n")


def write_gift(items: list[Draft], filename: str) -> Exported:
    """A GIFT file of `items` (in topic order); code questions are reported."""
    blocks: list[str] = []
    skipped: list[Skipped] = []
    topic: TopicRef | None = None
    for item in items:
        writer = _WRITERS.get(item.content["type"])
        if writer is None:
            skipped.append(Skipped(item.location, _CODE_REASON))
            continue
        if item.topic != topic:
            topic = item.topic
            blocks.append(_category(topic))
        blocks.append(_question(item, writer))
    data = ("\n\n".join(blocks) + "\n").encode()
    return Exported(data=data, filename=filename, content_type="text/plain", skipped=skipped)


def _category(topic: TopicRef) -> str:
    lines = [f"$CATEGORY: $course$/{topic.title.replace('/', '//')}"]
    extra = {"slug": topic.slug, "description": topic.description}
    return f"{TOPIC_EXTENSION}{dump_extension(extra)}\n\n" + "\n".join(lines)


def _question(item: Draft, writer: Callable[[dict[str, Any]], str]) -> str:
    content = item.content
    answers = writer(content)
    feedback = content.get("general_feedback", "")
    if feedback:
        answers += f"\n\t####[markdown]{escape(feedback)}"
    text = f"::{escape(content['title'])}::[markdown]{escape(content['prompt'])} {{{answers}\n}}"
    try:
        plain = read_block(text, None, item.topic, [], item.location).content
    except Unsupported:
        plain = {}
    extra = extension_for(content, plain)
    if item.slug != slugify(content["title"]):
        extra["slug"] = item.slug
    return f"{EXTENSION}{dump_extension(extra)}\n{text}" if extra else text


def _line(marker: str, weight: str | None, text: str, feedback: str) -> str:
    line = f"\n\t{marker}{f'%{weight}%' if weight is not None else ''}{escape(text)}"
    return line + (f"#{escape(feedback)}" if feedback else "")


def _choices(content: dict[str, Any]) -> str:
    single = content["type"] == "single_choice"
    right = sum(1 for choice in content["choices"] if choice.get("correct"))
    out = ""
    for choice in content["choices"]:
        correct = bool(choice.get("correct"))
        if single:
            marker, weight = ("=" if correct else "~"), None
        else:
            marker, weight = "~", percent((1 if correct else -1) / right)
        out += _line(marker, weight, choice["text"], choice.get("feedback", ""))
    return out


def _true_false(content: dict[str, Any]) -> str:
    truth = bool(content["answer"])
    right = content.get("true_feedback" if truth else "false_feedback", "")
    wrong = content.get("false_feedback" if truth else "true_feedback", "")
    # GIFT gives the feedback for a wrong answer first, then the one for a right answer.
    tail = f"#{escape(wrong)}#{escape(right)}" if right or wrong else ""
    return ("TRUE" if truth else "FALSE") + tail


def _numeric(content: dict[str, Any]) -> str:
    out = "#"
    for entry in content["answers"]:
        if isinstance(entry["value"], str):
            continue  # a {{name}} answer of a parameterised question: the extension keeps it
        tolerance = entry.get("tolerance", 0)
        if entry.get("tolerance_mode") == "relative":
            tolerance = tolerance * abs(entry["value"])
        out += f"\n\t=%{percent(entry.get('fraction', 1))}%{entry['value']!r}:{tolerance!r}"
        out += f"#{escape(entry['feedback'])}" if entry.get("feedback") else ""
    return out


def _short_text(content: dict[str, Any]) -> str:
    out = ""
    for entry in content["answers"]:
        if "text" in entry:
            # A star would be Moodle's wildcard: a literal one is written \*.
            text = escape(entry["text"]).replace("*", "\\*")
            out += f"\n\t=%{percent(entry.get('fraction', 1))}%{text}"
            out += f"#{escape(entry['feedback'])}" if entry.get("feedback") else ""
    return out


def _viva(content: dict[str, Any]) -> str:
    return ""


_WRITERS: dict[str, Callable[[dict[str, Any]], str]] = {
    "single_choice": _choices,
    "multiple_choice": _choices,
    "true_false": _true_false,
    "numeric": _numeric,
    "short_text": _short_text,
    "viva": _viva,
}
