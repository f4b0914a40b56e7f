"""GIFT import (Moodle's GIFT reference, docs/interchange.md): titles, formats, escapes,
categories, weights, numeric ranges and tolerances, essays; matching is reported."""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from typing import Any

from quizbank.bankfiles.source import NotText, utf8_text
from quizbank.errors import InterchangeRefused
from quizbank.interchange.common import (
    SlugPool,
    apply_extension,
    is_slug,
    load_extension,
    name_notes,
    open_question,
    share,
    slugify,
    title_of,
    to_float,
)
from quizbank.interchange.limits import check_size
from quizbank.interchange.moodle_xml import topic_from_path, wildcard_answer
from quizbank.interchange.report import DEFAULT_TOPIC, Conversion, Draft, TopicRef, Unsupported

EXTENSION = "// @vivabank "
TOPIC_EXTENSION = "// @vivabank-topic "
_SPECIAL = "~=#{}:\\"
_FORMAT = re.compile(r"^\s*\[(html|moodle|plain|markdown)\]", re.IGNORECASE)
# A weight is a number between % signs at the start of an answer; anything else there between
# two % signs (%abc%, %-1e309%) is refused by to_float rather than kept as answer text.
_WEIGHT = re.compile(r"^\s*%([^%\s]{1,40})%")
_TRUE_FALSE = re.compile(r"^(T|TRUE|F|FALSE)$", re.IGNORECASE)


@dataclass
class _Block:
    line: int
    text: str
    extension: str | None


@dataclass(frozen=True)
class Item:
    marker: str  # "=" or "~"
    weight: float | None
    text: str
    feedback: str


def unescape(text: str) -> str:
    """GIFT escapes: `\\~ \\= \\# \\{ \\} \\: \\\\` and `\\n`; other backslashes (`\\*`) stay."""
    return re.sub(r"\\([~=#{}:\\n])", lambda m: "\n" if m[1] == "n" else m[1], text)


def split_unescaped(text: str, separators: str) -> list[tuple[str, str]]:
    """(separator before, piece) for each piece of `text` cut at unescaped `separators`."""
    pieces, current, before, index = [], "", "", 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            current += text[index : index + 2]
            index += 2
            continue
        if char in separators:
            pieces.append((before, current))
            before, current = char, ""
        else:
            current += char
        index += 1
    pieces.append((before, current))
    return pieces


def find_unescaped(text: str, token: str, start: int = 0) -> int:
    index = start
    while index < len(text):
        if text[index] == "\\":
            index += 2
            continue
        if text.startswith(token, index):
            return index
        index += 1
    return -1


def read_gift(data: bytes) -> Conversion:
    """Convert a GIFT file into drafts; a file that is not UTF-8 text is refused, and so is
    one in another format (XML, a zip package) with a hint of which."""
    check_size(data)
    start = data.lstrip(b"\xef\xbb\xbf \t\r\n")
    if start.startswith(b"PK\x03\x04"):
        raise InterchangeRefused(
            "the file is a zip archive, not GIFT text: is it a QTI package? "
            "Choose the format the file is in"
        )
    if start.startswith((b"<?xml", b"<quiz", b"<assessmentItem", b"<qti-", b"<manifest")):
        raise InterchangeRefused(
            "the file is XML, not GIFT text: is it Moodle XML or a QTI item? "
            "Choose the format the file is in"
        )
    try:
        text = utf8_text(data.removeprefix(codecs.BOM_UTF8))
    except NotText as exc:
        raise InterchangeRefused(
            f"a GIFT file must be UTF-8 text: line {exc.line} {exc.message}"
        ) from exc
    conversion, slugs = Conversion(), SlugPool()
    topic, tags, topic_extension = DEFAULT_TOPIC, list[str](), None
    for block in _blocks(text):
        if block.text.startswith("$CATEGORY:"):
            topic, tags = _category(block, topic_extension)
            continue
        if block.extension is not None and block.extension.startswith(TOPIC_EXTENSION):
            topic_extension = block.extension
            continue
        location = f"line {block.line}"
        try:
            draft = read_block(block.text, block.extension, topic, tags, location)
        except Unsupported as exc:
            conversion.skip(location, exc.reason)
            continue
        draft.slug = slugs.take(draft.slug)
        conversion.drafts.append(draft)
    return conversion


def _blocks(text: str) -> list[_Block]:
    """Questions are separated by blank lines; `//` lines are comments (ours carry JSON)."""
    blocks: list[_Block] = []
    lines: list[str] = []
    start, extension = 0, None
    for number, line in enumerate([*text.splitlines(), ""], start=1):
        stripped = line.strip()
        if stripped.startswith("//"):
            if stripped.startswith(("// @vivabank ", "// @vivabank-topic ")):
                extension = stripped
            continue
        if stripped:
            start = start or number
            lines.append(line)
            continue
        if lines or extension is not None:
            blocks.append(_Block(start or number, "\n".join(lines).strip(), extension))
        lines, start, extension = [], 0, None
    return blocks


def _category(block: _Block, extension: str | None) -> tuple[TopicRef, list[str]]:
    """The topic of a `$CATEGORY:` line; a broken topic extension before it refuses the file
    (the category's questions would go to another topic than the file says)."""
    path = block.text.split("\n", 1)[0][len("$CATEGORY:") :].strip()
    try:
        extra = load_extension(extension[len(TOPIC_EXTENSION) :]) if extension else {}
    except Unsupported as exc:
        raise InterchangeRefused(f"the category at line {block.line}: {exc.reason}") from exc
    slug = str(extra.get("slug", ""))
    return topic_from_path(path, slug, str(extra.get("description", "")))


def read_block(
    text: str, extension: str | None, topic: TopicRef, tags: list[str], location: str
) -> Draft:
    """One GIFT question (its text without comments) as a draft."""
    title = None
    if text.startswith("::"):
        end = find_unescaped(text, "::", 2)
        if end < 0:
            raise Unsupported("the title's closing :: is missing")
        title, text = unescape(text[2:end]).strip(), text[end + 2 :]
    opening = find_unescaped(text, "{")
    closing = find_unescaped(text, "}", opening + 1) if opening >= 0 else -1
    if opening >= 0 and closing < 0:
        raise Unsupported("the answer part's { is never closed by a }")
    if opening < 0:
        raise Unsupported("no answer part {...}: a description, not a question")
    if find_unescaped(text[opening + 1 : closing], "{") >= 0:
        raise Unsupported(
            "a second { before the answer part's closing }: a } is missing (or a blank line "
            "before the next question), or a { in an answer is not written \\{"
        )
    if find_unescaped(text, "{", closing + 1) >= 0:
        raise Unsupported(
            "two answer parts {...} in one question: a blank line must separate questions"
        )
    before, after = _FORMAT.sub("", text[:opening]).strip(), text[closing + 1 :].strip()
    prompt = unescape(before) + (f" _____ {unescape(after)}" if after else "")
    content: dict[str, Any] = {"title": title_of(title or prompt, "Untitled question")}
    content.update(prompt=prompt, tags=list(tags))
    notes: list[str] = name_notes(title or "")
    try:
        read_answers(text[opening + 1 : closing], content, notes)
    except Unsupported:
        if extension is None:
            raise  # with an extension, what GIFT could not hold is in the extension
    if extension is not None:
        extra = load_extension(extension[len(EXTENSION) :])
        slug_hint = str(extra.pop("slug", ""))
        apply_extension(content, extra)
        notes.clear()
    else:
        slug_hint = ""
    named = is_slug(slug_hint)
    slug = slug_hint if named else slugify(title or content["title"])
    notes[:0] = topic.notes
    return Draft(
        slug=slug, topic=topic, content=content, location=location, notes=notes, named=named
    )


def read_answers(answer: str, content: dict[str, Any], notes: list[str]) -> None:
    """Fill `content` from the text between { and }."""
    parts = [piece for _, piece in split_unescaped_token(answer, "####")]
    answer = parts[0].strip()
    if len(parts) > 1:
        content["general_feedback"] = unescape(_FORMAT.sub("", parts[1]).strip())
    if not answer:
        open_question(content, "", notes)
    elif answer.startswith("#"):
        _numeric(answer[1:], content, notes)
    elif _TRUE_FALSE.match(split_unescaped(answer, "#")[0][1].strip()):
        _true_false(answer, content, notes)
    else:
        _choices_or_text(_items(answer, notes), content, notes)


def split_unescaped_token(text: str, token: str) -> list[tuple[str, str]]:
    index = find_unescaped(text, token)
    if index < 0:
        return [("", text)]
    return [("", text[:index]), (token, text[index + len(token) :])]


def with_feedback(body: str, feedbacks: int, notes: list[str]) -> list[str]:
    """`body` cut at its unescaped `#` into the answer and `feedbacks` feedbacks ("" when
    not given), still escaped. A further `#` stays in the last feedback, as Moodle reads
    GIFT, and is noted: it is more likely a `#` meant as text than a feedback with no place."""
    pieces = [piece for _, piece in split_unescaped(body, "#")]
    kept, further = pieces[: feedbacks + 1], pieces[feedbacks + 1 :]
    if further:
        kept[-1] = "#".join([kept[-1], *further])
        notes.append(
            f"the feedback {_clean(kept[-1])!r} holds a further #, kept as text as Moodle "
            "reads it: write \\# for a # in feedback"
        )
    return kept + [""] * (feedbacks + 1 - len(kept))


def _items(answer: str, notes: list[str]) -> list[Item]:
    pieces = split_unescaped(answer, "=~")
    if pieces[0][1].strip():
        raise Unsupported(f"answer text {pieces[0][1].strip()[:40]!r} must start with = or ~")
    items = []
    for marker, body in pieces[1:]:
        weight_match = _WEIGHT.match(body)
        weight = to_float(weight_match[1], "weight") if weight_match else None
        body = body[weight_match.end() :] if weight_match else body
        text, feedback = with_feedback(body, 1, notes)
        items.append(Item(marker, weight, _clean(text), _clean(feedback)))
    return items


def _clean(text: str) -> str:
    return unescape(_FORMAT.sub("", text).strip())


def _true_false(answer: str, content: dict[str, Any], notes: list[str]) -> None:
    # GIFT gives the feedback for a wrong answer first, then the one for a right answer.
    value, wrong, right = [_clean(piece) for piece in with_feedback(answer, 2, notes)]
    truth = value.upper().startswith("T")
    content.update(type="true_false", answer=truth)
    content["true_feedback"], content["false_feedback"] = (
        (right, wrong) if truth else (wrong, right)
    )


def _numeric(body: str, content: dict[str, Any], notes: list[str]) -> None:
    pieces = split_unescaped(body, "=~")
    if pieces[0][1].strip():
        pieces[0] = ("=", pieces[0][1])
    content.update(type="numeric", answers=[])
    for marker, piece in pieces:
        if not piece.strip():
            continue
        weight_match = _WEIGHT.match(piece)
        piece = piece[weight_match.end() :] if weight_match else piece
        spec, feedback = with_feedback(piece, 1, notes)
        if marker == "~" or not spec.strip():
            notes.append("a wrong-answer feedback (~) of a numeric question not kept")
            continue
        fraction = share(to_float(weight_match[1], "weight")) if weight_match else 1
        if not 0 <= fraction <= 1:
            raise Unsupported(f"weight {weight_match[1] if weight_match else ''}% is not 0 to 100")
        value, tolerance = _number_spec(unescape(spec.strip()))
        low, dots, high = unescape(spec.strip()).partition("..")
        if dots and to_float(low, "range bound") > to_float(high, "range bound"):
            notes.append(f"the range {low.strip()}..{high.strip()} was read low bound first")
        entry = {"value": value, "tolerance": tolerance, "fraction": fraction}
        content["answers"].append({**entry, "feedback": _clean(feedback)})


def _number_spec(spec: str) -> tuple[float, float]:
    """`5`, `5:0.1` (value and tolerance) or `4.9..5.1` (a range) -> (value, tolerance)."""
    if ".." in spec:
        low, high = (to_float(part, "range bound") for part in spec.split("..", 1))
        # 12 significant digits: 3.141..3.142 is 3.1415 +- 0.0005, not 3.1414999999999997.
        return float(f"{(low + high) / 2:.12g}"), float(f"{abs(high - low) / 2:.12g}")
    value, _, tolerance = spec.partition(":")
    margin = to_float(tolerance or "0", "tolerance")
    if margin < 0:
        raise Unsupported(f"tolerance {tolerance.strip()} is negative; a tolerance is a margin")
    return to_float(value, "number"), margin


def _choices_or_text(items: list[Item], content: dict[str, Any], notes: list[str]) -> None:
    if any(item.marker == "=" and "->" in item.text for item in items):
        raise Unsupported("matching questions have no counterpart in the bank")
    if all(item.marker == "=" for item in items):
        content.update(type="short_text", answers=[])
        for item in items:
            fraction = share(item.weight) if item.weight is not None else 1
            if not 0 <= fraction <= 1:
                raise Unsupported(f"answer {item.text!r} has weight {item.weight:g}%")
            answer = {**wildcard_answer(item.text), "fraction": fraction}
            content["answers"].append({**answer, "feedback": item.feedback})
        return
    _choices(items, content, notes)


def _choices(items: list[Item], content: dict[str, Any], notes: list[str]) -> None:
    if any(item.marker == "=" for item in items):
        correct = [item for item in items if item.marker == "="]
        if len(correct) != 1:
            raise Unsupported(f"{len(correct)} answers marked =; a single choice has one")
        content["type"] = "single_choice"
        for item in items:
            if item.marker == "~" and item.weight:
                notes.append(f"choice {item.text!r} gave {item.weight:g}%; here it gives 0")
    else:
        correct = [item for item in items if (item.weight or 0) > 0]
        if not correct:
            raise Unsupported("no answer earns marks")
        content.update(type="multiple_choice", scoring="partial")
        step = 100 / len(correct)
        if any(abs(abs(item.weight or 0) - step) > 0.01 for item in items):
            notes.append(
                "GIFT's weights became the bank's partial rule: each right choice "
                f"+1/{len(correct)}, each wrong one -1/{len(correct)}"
            )
    content["choices"] = [
        {"text": item.text, "correct": item in correct, "feedback": item.feedback} for item in items
    ]
