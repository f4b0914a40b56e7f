"""Helpers every converter shares: slugs, fractions, a default rubric, and the extension that
carries what a format has no field for, so that our own bank round-trips unchanged."""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import unicodedata
from collections.abc import Iterator
from decimal import ROUND_HALF_UP, Decimal
from typing import Any
from xml.etree.ElementTree import Element, indent, tostring

from config.text import one_line_cleaned, one_line_dropped
from quizbank.bankfiles import canonicalize, schema
from quizbank.interchange.limits import NOT_IN_XML
from quizbank.interchange.report import Unsupported

_NON_SLUG = re.compile(r"[^a-z0-9]+")
# An extension value of None means "the format gave this key, our question does not have it".
EXTENSION_DROP = None
# How much of a name a note repeats.
_NAME_SHOWN = 80
# The points column's precision (Question.points, two decimal places).
_POINTS_STEP = Decimal("0.01")
PLACEHOLDER_MODEL_ANSWER = (
    "No model answer came with the imported question; its author can write one in the bank."
)


def xml_bytes(element: Element) -> bytes:
    """The element as an indented UTF-8 XML document. A control character that reached the
    bank (a question saved before the bank refused them) is left out: in the file it would
    make every question unreadable."""
    indent(element)
    data: bytes = tostring(element, encoding="utf-8", xml_declaration=True)
    return NOT_IN_XML.sub(b"", data)


def slugify(
    text: str, *, max_length: int = schema.MAX_QUESTION_SLUG, default: str = "question"
) -> str:
    """A bank slug for any text: ASCII letters and digits joined by single hyphens; text with
    none (`日本語`, `Русский`) is `default` and a digest of the text, so two such names stay
    two slugs, the same ones at every import; no text at all is `default`."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = _NON_SLUG.sub("-", ascii_text.lower()).strip("-")[:max_length].strip("-")
    if slug or not text.strip():
        return slug or default
    return f"{default}-{hashlib.sha256(text.strip().encode()).hexdigest()[:8]}"


def is_slug(text: str | None, max_length: int = schema.MAX_QUESTION_SLUG) -> bool:
    return bool(text) and len(str(text)) <= max_length and bool(schema.SLUG_RE.match(str(text)))


def numbered_slugs(wanted: str) -> Iterator[str]:
    """`wanted`, then `wanted-2`, `wanted-3`... each cut to fit a slug."""
    yield wanted
    for number in itertools.count(2):
        suffix = f"-{number}"
        yield wanted[: schema.MAX_QUESTION_SLUG - len(suffix)].rstrip("-") + suffix


class SlugPool:
    """Hands out slugs unique within one import: `name`, `name-2`, `name-3`..."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def take(self, wanted: str) -> str:
        slug = next(slug for slug in numbered_slugs(wanted) if slug not in self.used)
        self.used.add(slug)
        return slug


def _without_tags(text: str) -> str:
    return re.sub(r"<[^>]+>", " ", text)


def _one_line(text: str) -> str:
    plain = _without_tags(text)
    return " ".join(one_line_cleaned(plain, max_length=len(plain)).split())


def title_of(text: str, fallback: str) -> str:
    """A question or topic title: the text on one line, without the characters a one-line
    field cannot hold (config.text), cut to the column's length."""
    line = _one_line(text)
    if len(line) > schema.MAX_TITLE:
        line = line[: schema.MAX_TITLE - 1].rstrip() + "…"
    return line or fallback


def name_notes(name: str, what: str = "its name") -> list[str]:
    """The import report's notes on a name the file gives (a question's, a category's) that
    `title_of` had to change: control or bidi formatting characters removed, or a name longer
    than a title holds cut (a title made from the prompt is expected to be cut, and says
    nothing)."""
    notes = []
    dropped = one_line_dropped(_without_tags(name))
    if dropped:
        shown = _cut(name.strip())
        codes = ", ".join(f"U+{ord(character):04X}" for character in dropped)
        notes.append(
            f"{what} {shown!r} held {codes}, which a title cannot hold (control and bidi "
            "formatting characters): removed"
        )
    length = len(_one_line(name))
    if length > schema.MAX_TITLE:
        notes.append(f"{what} of {length:,} characters was cut to a title of {schema.MAX_TITLE}")
    return notes


def _cut(text: str) -> str:
    """A value from the file short enough to quote in a message."""
    return text if len(text) <= _NAME_SHOWN else text[: _NAME_SHOWN - 1] + "…"


def to_float(text: str | None, what: str) -> float:
    raw = str(text).strip()
    try:
        if "_" in raw:  # Python reads "1_000" as 1000; no file format writes numbers so
            raise ValueError(raw)
        value = float(raw)
    except ValueError as exc:
        raise Unsupported(f"{what} {_cut(str(text))!r} is not a number") from exc
    if value != value or value in (float("inf"), float("-inf")):
        raise Unsupported(f"{what} {_cut(str(text))!r} is not a finite number")
    return value


def points_of(text: str | None, what: str) -> tuple[float, list[str]]:
    """A question's points from the file, to the two decimals the bank holds (rounded half
    up), and the import report's notes when that changed the value or it is zero. Points that
    round to zero from more are Unsupported: the question would count for nothing, unlike the
    file's. Negative points are left for the bank's rules to refuse."""
    value = to_float(text, what)
    written = str(text).strip()
    kept = Decimal(written).quantize(_POINTS_STEP, ROUND_HALF_UP)
    if value > 0 and kept == 0:
        raise Unsupported(
            f"{what} {written} rounds to 0 points (the bank keeps two decimals), a question "
            f"worth nothing: give it {_POINTS_STEP} or more"
        )
    notes = []
    if value == 0:
        notes.append(f"{what} {written}: the question is worth no points in a quiz's score")
    elif kept != Decimal(written):
        notes.append(
            f"{what} {written} was rounded to {kept.normalize():f} points (the bank keeps two "
            "decimals)"
        )
    return float(kept), notes


def share(percent: float) -> float:
    """A Moodle or GIFT percentage as the bank's fraction, rounded as Moodle stores it."""
    return round(percent / 100, 7)


def percent(fraction: float) -> str:
    """A fraction as a Moodle percentage with at most 5 decimals (Moodle's grade list)."""
    return f"{fraction * 100:.5f}".rstrip("0").rstrip(".")


def default_rubric(points: float) -> list[dict[str, Any]]:
    """One criterion with three levels, for an open question that came without a rubric."""
    top = points if points > 0 else 1
    return [
        {
            "criterion": "Overall",
            "description": "The answer as a whole (made by the import; edit it).",
            "levels": [
                {"label": "Missing", "points": 0, "descriptor": "No relevant answer."},
                {"label": "Partial", "points": top / 2, "descriptor": "Partly right."},
                {"label": "Full", "points": top, "descriptor": "Fully right."},
            ],
        }
    ]


def open_question(prompt_content: dict[str, Any], guidance: str, notes: list[str]) -> None:
    """Fill in what a viva needs and an LMS essay lacks: a model answer and a rubric."""
    prompt_content["type"] = "viva"
    prompt_content["mode"] = "written"
    if guidance.strip():
        prompt_content["guidance"] = guidance
    prompt_content["model_answer"] = PLACEHOLDER_MODEL_ANSWER
    prompt_content["rubric"] = default_rubric(float(prompt_content.get("points", 1)))
    notes.append("no model answer or rubric in the file: a placeholder and a 3-level rubric made")


def extension_for(content: dict[str, Any], plain: dict[str, Any]) -> dict[str, Any]:
    """The keys where `content` differs from what the format alone gives back (`plain`)."""
    ours, theirs = canonicalize(content), canonicalize(plain)
    return {
        key: ours.get(key, EXTENSION_DROP)
        for key in dict.fromkeys([*ours, *theirs])
        if ours.get(key) != theirs.get(key)
    }


def load_extension(text: str) -> dict[str, Any]:
    """The JSON object of an extension written by `extension_for`."""
    try:
        extra = json.loads(text)
    except RecursionError as exc:
        raise Unsupported("the Vivabank extension nests too deeply") from exc
    except ValueError as exc:
        raise Unsupported(f"the Vivabank extension is not valid JSON: {exc}") from exc
    if not isinstance(extra, dict):
        raise Unsupported("the Vivabank extension must be a JSON object")
    return extra


def apply_extension(content: dict[str, Any], extra: dict[str, Any]) -> None:
    """Overlay an extension onto converted content (None removes a key)."""
    for key, value in extra.items():
        if value is EXTENSION_DROP:
            content.pop(key, None)
        else:
            content[key] = value


def dump_extension(extra: dict[str, Any]) -> str:
    return json.dumps(extra, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
