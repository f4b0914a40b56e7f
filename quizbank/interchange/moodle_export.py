"""Moodle XML export: one category per topic, then its questions; what Moodle has no field
for (difficulty, objectives, a regex answer, a viva's rubric, a code question's cases...)
travels in a `<vivabank>` element that Moodle ignores and our import reads back, so our
bank round-trips unchanged."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from xml.etree.ElementTree import Element, SubElement

from quizbank.interchange.common import dump_extension, extension_for, percent, xml_bytes
from quizbank.interchange.moodle_files import with_pluginfile_references, write_files
from quizbank.interchange.moodle_xml import EXTENSION_TAG, read_question
from quizbank.interchange.report import Draft, Exported, TopicRef, Unsupported


def write_moodle_xml(items: list[Draft], filename: str) -> Exported:
    """A Moodle XML file of `items` (in topic order); code questions are reported."""
    quiz = Element("quiz")
    topic: TopicRef | None = None
    for item in items:
        writer = _WRITERS[item.content["type"]]
        if item.topic != topic:
            topic = item.topic
            quiz.append(_category(topic))
        quiz.append(_question(item, writer))
    return Exported(data=xml_bytes(quiz), filename=filename, content_type="application/xml")


def _text(parent: Element, tag: str, text: str, fmt: str | None = "markdown") -> Element:
    element = SubElement(parent, tag, {"format": fmt} if fmt else {})
    SubElement(element, "text").text = text
    return element


def _category(topic: TopicRef) -> Element:
    element = Element("question", {"type": "category"})
    _text(element, "category", "$course$/" + topic.title.replace("/", "//"), None)
    _text(element, "info", topic.description)
    SubElement(element, "idnumber").text = topic.slug
    return element


def _question(item: Draft, writer: Callable[[Element, dict[str, Any]], str]) -> Element:
    content = with_pluginfile_references(item.content)
    element = Element("question")
    _text(element, "name", content["title"], None)
    prompt = _text(element, "questiontext", content["prompt"])
    # Every image goes with the question text, whichever of the question's texts shows it.
    write_files(prompt, content.get("assets", {}), item.images)
    _text(element, "generalfeedback", content.get("general_feedback", ""))
    SubElement(element, "defaultgrade").text = str(content.get("points", 1))
    SubElement(element, "penalty").text = "0"
    SubElement(element, "hidden").text = "0"
    SubElement(element, "idnumber").text = item.slug
    element.set("type", writer(element, content))
    if content.get("tags"):
        tags = SubElement(element, "tags")
        for tag in content["tags"]:
            _text(tags, "tag", tag, None)
    try:
        plain = read_question(element, item.topic, [], item.location).content
    except Unsupported:
        plain = {}
    extra = extension_for(item.content, plain)
    if extra:
        SubElement(element, EXTENSION_TAG, {"format": "json"}).text = dump_extension(extra)
    return element


def _answer(parent: Element, fraction: float, text: str, feedback: str) -> Element:
    answer = SubElement(parent, "answer", {"fraction": percent(fraction), "format": "markdown"})
    SubElement(answer, "text").text = text
    _text(answer, "feedback", feedback)
    return answer


def _choices(element: Element, content: dict[str, Any]) -> str:
    single = content["type"] == "single_choice"
    SubElement(element, "single").text = "true" if single else "false"
    SubElement(element, "shuffleanswers").text = "true" if content.get("shuffle", True) else "false"
    SubElement(element, "answernumbering").text = "abc"
    right = sum(1 for choice in content["choices"] if choice.get("correct"))
    for choice in content["choices"]:
        correct = bool(choice.get("correct"))
        # Each right choice +1/k, each wrong one -1/k: the bank's partial rule in Moodle terms.
        fraction = (1 if correct else 0) if single else (1 if correct else -1) / right
        _answer(element, fraction, choice["text"], choice.get("feedback", ""))
    return "multichoice"


def _true_false(element: Element, content: dict[str, Any]) -> str:
    _answer(element, float(content["answer"]), "true", content.get("true_feedback", ""))
    _answer(element, float(not content["answer"]), "false", content.get("false_feedback", ""))
    return "truefalse"


def _numeric(element: Element, content: dict[str, Any]) -> str:
    for entry in content["answers"]:
        if isinstance(entry["value"], str):
            continue  # a {{name}} answer of a parameterised question: the extension keeps it
        tolerance = entry.get("tolerance", 0)
        if entry.get("tolerance_mode") == "relative":
            tolerance = tolerance * abs(entry["value"])
        answer = _answer(
            element, entry.get("fraction", 1), repr(entry["value"]), entry.get("feedback", "")
        )
        SubElement(answer, "tolerance").text = repr(tolerance)
    if content.get("unit"):
        unit = SubElement(SubElement(element, "units"), "unit")
        SubElement(unit, "multiplier").text = "1"
        SubElement(unit, "unit_name").text = content["unit"]
    SubElement(element, "unitgradingtype").text = "0"
    return "numerical"


def _short_text(element: Element, content: dict[str, Any]) -> str:
    SubElement(element, "usecase").text = "1" if content.get("case_sensitive") else "0"
    for entry in content["answers"]:
        if "text" in entry:
            text = entry["text"].replace("*", "\\*")
            _answer(element, entry.get("fraction", 1), text, entry.get("feedback", ""))
    return "shortanswer"


def _viva(element: Element, content: dict[str, Any]) -> str:
    SubElement(element, "responseformat").text = "editor"
    SubElement(element, "responserequired").text = "1"
    SubElement(element, "attachments").text = "0"
    _text(element, "graderinfo", content.get("guidance", ""))
    _text(element, "responsetemplate", "")
    return "essay"


def _code(element: Element, content: dict[str, Any]) -> str:
    """A CodeRunner python3 shell: the reference as the answer, the starter code preloaded.
    Its cases compare results with the reference in PyTorch, which CodeRunner's printed,
    known-in-advance outputs cannot express: they travel in the extension, not as tests."""
    SubElement(element, "coderunnertype").text = "python3"
    SubElement(element, "prototypetype").text = "0"
    SubElement(element, "answer").text = content.get("files", {}).get("reference.py", "")
    SubElement(element, "answerpreload").text = content.get("starter_code", "")
    SubElement(element, "testcases")
    return "coderunner"


_WRITERS: dict[str, Callable[[Element, dict[str, Any]], str]] = {
    "code": _code,
    "single_choice": _choices,
    "multiple_choice": _choices,
    "true_false": _true_false,
    "numeric": _numeric,
    "short_text": _short_text,
    "viva": _viva,
}
