"""Moodle XML import (docs/interchange.md): categories, multichoice, truefalse, shortanswer,
numerical, essay and CodeRunner python3; every other question is reported, never dropped."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from xml.etree.ElementTree import Element

from quizbank.errors import InterchangeRefused
from quizbank.interchange.common import (
    SlugPool,
    apply_extension,
    is_slug,
    load_extension,
    name_notes,
    open_question,
    points_of,
    share,
    slugify,
    title_of,
    to_float,
)
from quizbank.interchange.limits import parse_xml
from quizbank.interchange.moodle_code import read_coderunner
from quizbank.interchange.moodle_files import embedded_images, keep_images
from quizbank.interchange.report import DEFAULT_TOPIC, Conversion, Draft, TopicRef, Unsupported

EXTENSION_TAG = "vivabank"
_PATH_SEPARATOR = re.compile(r"(?<!/)/(?!/)")
_TRUE = ("1", "true")


@dataclass(frozen=True)
class _Answer:
    fraction: float
    text: str
    feedback: str
    element: Element


def text_of(element: Element, path: str) -> str:
    """The `<text>` inside `path` (Moodle wraps every text so), or ""."""
    return element.findtext(f"{path}/text") or ""


def read_moodle_xml(data: bytes) -> Conversion:
    """Convert a Moodle XML file into drafts; raises InterchangeRefused for a hostile file."""
    doc = parse_xml(data)
    if doc.root.tag != "quiz":
        raise InterchangeRefused("not a Moodle XML file: its root element must be <quiz>")
    conversion, slugs = Conversion(), SlugPool()
    topic, category_tags = DEFAULT_TOPIC, list[str]()
    for index, element in enumerate(doc.root.findall("question"), start=1):
        if element.get("type") == "category":
            topic, category_tags = read_category(element)
            continue
        location = f"question {index} {text_of(element, 'name')!r} (line {doc.line(element)})"
        try:
            draft = read_question(element, topic, category_tags, location)
        except Unsupported as exc:
            conversion.skip(location, exc.reason)
            continue
        draft.slug = slugs.take(draft.slug)
        conversion.drafts.append(draft)
    return conversion


def read_category(element: Element) -> tuple[TopicRef, list[str]]:
    """A category pseudo-question: its path, idnumber and info."""
    idnumber = (element.findtext("idnumber") or "").strip()
    return topic_from_path(text_of(element, "category"), idnumber, text_of(element, "info"))


def topic_from_path(path: str, idnumber: str, info: str) -> tuple[TopicRef, list[str]]:
    """`$course$/A/B` (`//` is a slash): A becomes the topic, B and deeper become tags."""
    parts = [part.replace("//", "/").strip() for part in _PATH_SEPARATOR.split(path)]
    parts = [part for part in parts if part and not (part.startswith("$") and part.endswith("$"))]
    if parts and parts[0] == "top":
        parts = parts[1:]
    if not parts:
        return DEFAULT_TOPIC, []
    own = len(parts) == 1
    # The slug is made from the title, not the name: names that differ only in what a title
    # drops (control characters, runs of spaces) are one topic, and no slug holds that.
    title = title_of(parts[0], "")
    slug = (
        idnumber
        if own and is_slug(idnumber, 80)
        else slugify(title, max_length=80, default="imported")
    )
    description = info.strip() if own else ""
    topic = TopicRef(
        slug=slug,
        title=title or slug,
        description=description,
        notes=tuple(name_notes(parts[0], "the category name")),
    )
    return topic, [slugify(part, max_length=50, default="tag") for part in parts[1:]]


def read_question(
    element: Element, topic: TopicRef, category_tags: list[str], location: str
) -> Draft:
    qtype = element.get("type", "")
    reader = _READERS.get(qtype)
    if reader is None:
        raise Unsupported(
            f"Moodle's {qtype or 'untyped'} questions have no counterpart in the bank"
        )
    images = embedded_images(element)
    name = text_of(element, "name")
    content: dict[str, Any] = {
        "title": title_of(name, "Untitled question"),
        "prompt": text_of(element, "questiontext"),
        "general_feedback": text_of(element, "generalfeedback"),
        "tags": list(dict.fromkeys([*_tags(element), *category_tags])),
    }
    notes: list[str] = name_notes(name)
    if element.findtext("defaultgrade") is not None:
        content["points"], point_notes = points_of(element.findtext("defaultgrade"), "defaultgrade")
        notes.extend(point_notes)
    extension = element.find(EXTENSION_TAG)
    try:
        reader(element, content, notes)
    except Unsupported:
        if extension is None:
            raise  # with an extension, what Moodle could not hold is in the extension
    kept = keep_images(content, images)
    notes.extend(_unkept(element))
    if extension is not None:
        apply_extension(content, load_extension(extension.text or ""))
        notes.clear()  # the extension restores what Moodle could not hold
    idnumber = (element.findtext("idnumber") or "").strip()
    named = is_slug(idnumber)
    return Draft(
        slug=idnumber if named else slugify(name),
        topic=topic,
        content=content,
        location=location,
        notes=[*topic.notes, *notes],
        images=kept,
        named=named,
    )


def _tags(element: Element) -> list[str]:
    tags = element.findall("tags/tag/text")
    return [slugify(tag.text, max_length=50, default="tag") for tag in tags if tag.text]


def _unkept(element: Element) -> list[str]:
    notes = []
    penalty = to_float(element.findtext("penalty") or "0", "penalty")
    if penalty > 0:
        notes.append(f"penalty {penalty:g} per wrong try not kept: quizzes are not interactive")
    hints = element.findall("hint")
    if hints:
        notes.append(f"{len(hints)} hints not kept: quizzes give no hints")
    combined = ("correctfeedback", "partiallycorrectfeedback", "incorrectfeedback")
    if any(text_of(element, tag).strip() for tag in combined):
        notes.append("combined feedback (correct / partially correct / incorrect) not kept")
    return notes


def _answers(element: Element) -> list[_Answer]:
    return [
        _Answer(
            fraction=to_float(answer.get("fraction", "0"), "answer fraction"),
            text=answer.findtext("text") or "",
            feedback=text_of(answer, "feedback"),
            element=answer,
        )
        for answer in element.findall("answer")
    ]


def _flag(element: Element, tag: str, default: str) -> bool:
    return (element.findtext(tag) or default).strip().lower() in _TRUE


def _multichoice(element: Element, content: dict[str, Any], notes: list[str]) -> None:
    answers = _answers(element)
    if len(answers) < 2:
        raise Unsupported("a choice question needs at least two answers")
    content["shuffle"] = _flag(element, "shuffleanswers", "1")
    if _flag(element, "single", "true"):
        correct = [answer for answer in answers if answer.fraction >= 100]
        if len(correct) != 1:
            raise Unsupported(f"{len(correct)} answers give full marks; single choice needs one")
        content["type"] = "single_choice"
        for answer in answers:
            if answer.fraction and answer not in correct:
                notes.append(f"choice {answer.text!r} gave {answer.fraction:g}%; here it gives 0")
    else:
        correct = [answer for answer in answers if answer.fraction > 0]
        if not correct:
            raise Unsupported("no answer earns marks")
        content["type"] = "multiple_choice"
        content["scoring"] = "partial"
        if not _is_partial_rule(answers, len(correct)):
            notes.append(
                "Moodle's per-choice fractions became the bank's partial rule: "
                f"each right choice +1/{len(correct)}, each wrong one -1/{len(correct)}"
            )
    content["choices"] = [
        {"text": answer.text, "correct": answer in correct, "feedback": answer.feedback}
        for answer in answers
    ]


def _is_partial_rule(answers: list[_Answer], right: int) -> bool:
    step = 100 / right
    return all(abs(abs(answer.fraction) - step) < 0.01 for answer in answers)


def _truefalse(element: Element, content: dict[str, Any], notes: list[str]) -> None:
    by_text = {answer.text.strip().lower(): answer for answer in _answers(element)}
    true, false = by_text.get("true"), by_text.get("false")
    if true is None or false is None:
        raise Unsupported("a true/false question needs the answers true and false")
    if (true.fraction >= 100) == (false.fraction >= 100):
        raise Unsupported("exactly one of true and false must give full marks")
    content.update(
        type="true_false",
        answer=true.fraction >= 100,
        true_feedback=true.feedback,
        false_feedback=false.feedback,
    )


def wildcard_answer(text: str) -> dict[str, str]:
    """A Moodle short answer: `*` matches anything, `\\*` is a star; without `*`, plain text."""
    pieces = re.split(r"(?<!\\)\*", text)
    if len(pieces) == 1:
        return {"text": text.replace("\\*", "*")}
    return {"regex": ".*".join(re.escape(piece.replace("\\*", "*")) for piece in pieces)}


def _shortanswer(element: Element, content: dict[str, Any], notes: list[str]) -> None:
    answers = _answers(element)
    if not answers:
        raise Unsupported("a short-answer question needs at least one answer")
    content["type"] = "short_text"
    content["case_sensitive"] = _flag(element, "usecase", "0")
    content["answers"] = [
        {**wildcard_answer(a.text), "fraction": _fraction(a), "feedback": a.feedback}
        for a in answers
    ]


def _fraction(answer: _Answer) -> float:
    if not 0 <= answer.fraction <= 100:
        raise Unsupported(f"answer {answer.text!r} has fraction {answer.fraction:g}%; use 0 to 100")
    return share(answer.fraction)


def _numerical(element: Element, content: dict[str, Any], notes: list[str]) -> None:
    content["type"] = "numeric"
    content["answers"] = []
    for answer in _answers(element):
        if answer.text.strip() == "*":
            notes.append(f"the catch-all answer '*' ({answer.fraction:g}%) not kept")
            continue
        tolerance = to_float(answer.element.findtext("tolerance") or "0", "tolerance")
        content["answers"].append(
            {
                "value": to_float(answer.text, "answer"),
                "tolerance": abs(tolerance),
                "fraction": _fraction(answer),
                "feedback": answer.feedback,
            }
        )
    _units(element, content, notes)


def _units(element: Element, content: dict[str, Any], notes: list[str]) -> None:
    units = element.findall("units/unit")
    base = [u for u in units if to_float(u.findtext("multiplier") or "1", "multiplier") == 1]
    if base:
        content["unit"] = base[0].findtext("unit_name") or ""
    if len(units) > len(base[:1]):
        notes.append("units other than the first with multiplier 1 not kept")
    if (element.findtext("unitgradingtype") or "0").strip() not in ("", "0"):
        notes.append("units are not graded here: the unit is shown, the number is marked")


def _essay(element: Element, content: dict[str, Any], notes: list[str]) -> None:
    open_question(content, text_of(element, "graderinfo"), notes)
    if text_of(element, "responsetemplate").strip():
        notes.append("response template not kept")
    if (element.findtext("attachments") or "0").strip() not in ("", "0"):
        notes.append("attachments not taken: answers are text")


_READERS: dict[str, Callable[[Element, dict[str, Any], list[str]], None]] = {
    "multichoice": _multichoice,
    "truefalse": _truefalse,
    "shortanswer": _shortanswer,
    "numerical": _numerical,
    "essay": _essay,
    "coderunner": read_coderunner,
}
