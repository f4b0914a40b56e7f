"""QTI 3.0 export: a content package (zip) with imsmanifest.xml, one assessment test and one
item per question. Choice, true/false, numeric (tolerances as `qti-equal`) and short text
answers and vivas map; code questions are reported. Regex answers and per-choice feedback
are written as response processing (quizbank.interchange.qti_rules)."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from typing import Any
from xml.etree.ElementTree import Element, SubElement

from quizbank.interchange.common import xml_bytes
from quizbank.interchange.qti_rules import write_choice_feedback, write_text_conditions
from quizbank.interchange.report import Draft, Exported, Skipped
from runner.contract import GENERATOR_FILE

ITEM_NS = "http://www.imsglobal.org/xsd/imsqtiasi_v3p0"
CP_NS = "http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1"
_TEMPLATES = "https://purl.imsglobal.org/spec/qti/v3p0/rptemplates/"
_CODE_REASON = "QTI has no code questions the bank's cases could run in"
_PARAMETERISED_REASON = (
    "a parameterised question: QTI cannot draw its values per student, and its {{name}} "
    "placeholders would reach students as text; Moodle XML and GIFT keep it"
)
# Prompts are written as Markdown text, so an <img> in one would come back as text.
_IMAGES_REASON = "its images are not written into QTI packages; Moodle XML keeps them"


def write_qti_package(items: list[Draft], filename: str) -> Exported:
    """A QTI 3.0 content package of `items`; code questions are reported."""
    skipped: list[Skipped] = []
    written: dict[str, bytes] = {}
    for item in items:
        writer = _WRITERS.get(item.content["type"])
        if writer is None or item.content.get("assets"):
            skipped.append(Skipped(item.location, _IMAGES_REASON if writer else _CODE_REASON))
            continue
        if GENERATOR_FILE in (item.content.get("files") or {}):
            skipped.append(Skipped(item.location, _PARAMETERISED_REASON))
            continue
        written[f"items/{item.slug}.xml"] = _xml(_item(item, writer))
    written["assessment.xml"] = _xml(_test(filename, written))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("imsmanifest.xml", _xml(_manifest(filename, written)))
        for name, data in written.items():
            archive.writestr(name, data)
    return Exported(buffer.getvalue(), filename, "application/zip", skipped)


def _xml(element: Element) -> bytes:
    return xml_bytes(element) + b"\n"


def _identifier(path: str) -> str:
    return "I-" + path.removeprefix("items/").removesuffix(".xml")


def _manifest(filename: str, files: dict[str, bytes]) -> Element:
    manifest = Element("manifest", {"xmlns": CP_NS, "identifier": "M-" + filename})
    metadata = SubElement(manifest, "metadata")
    SubElement(metadata, "schema").text = "QTI Package"
    SubElement(metadata, "schemaversion").text = "3.0.0"
    SubElement(manifest, "organizations")
    resources = SubElement(manifest, "resources")
    test = SubElement(
        resources,
        "resource",
        {"identifier": "T-test", "type": "imsqti_test_xmlv3p0", "href": "assessment.xml"},
    )
    SubElement(test, "file", {"href": "assessment.xml"})
    for path in files:
        if path.startswith("items/"):
            SubElement(test, "dependency", {"identifierref": _identifier(path)})
            attributes = {
                "identifier": _identifier(path),
                "type": "imsqti_item_xmlv3p0",
                "href": path,
            }
            SubElement(SubElement(resources, "resource", attributes), "file", {"href": path})
    return manifest


def _test(filename: str, files: dict[str, bytes]) -> Element:
    test = Element(
        "qti-assessment-test", {"xmlns": ITEM_NS, "identifier": "T-test", "title": filename}
    )
    part = SubElement(
        test,
        "qti-test-part",
        {"identifier": "P1", "navigation-mode": "nonlinear", "submission-mode": "simultaneous"},
    )
    section = SubElement(
        part,
        "qti-assessment-section",
        {"identifier": "S1", "title": "Questions", "visible": "true"},
    )
    for path in files:
        SubElement(
            section, "qti-assessment-item-ref", {"identifier": _identifier(path), "href": path}
        )
    return test


def _item(item: Draft, writer: Callable[[Element, Element, dict[str, Any]], None]) -> Element:
    content = item.content
    root = Element(
        "qti-assessment-item",
        {
            "xmlns": ITEM_NS,
            "identifier": _identifier(f"items/{item.slug}.xml")[2:],
            "title": content["title"],
            "adaptive": "false",
            "time-dependent": "false",
        },
    )
    declaration = SubElement(root, "qti-response-declaration", {"identifier": "RESPONSE"})
    outcome = SubElement(
        root,
        "qti-outcome-declaration",
        {"identifier": "SCORE", "cardinality": "single", "base-type": "float"},
    )
    SubElement(SubElement(outcome, "qti-default-value"), "qti-value").text = "0"
    # MAXSCORE: what the item is worth (SCORE is the share of it earned).
    maximum = SubElement(
        root,
        "qti-outcome-declaration",
        {"identifier": "MAXSCORE", "cardinality": "single", "base-type": "float"},
    )
    SubElement(SubElement(maximum, "qti-default-value"), "qti-value").text = repr(
        float(content.get("points", 1))
    )
    SubElement(root, "qti-item-body")
    writer(root, declaration, content)
    return root


def _prompt(parent: Element, content: dict[str, Any]) -> None:
    SubElement(parent, "qti-prompt").text = content["prompt"]


def _template(root: Element, name: str) -> None:
    SubElement(root, "qti-response-processing", {"template": _TEMPLATES + name + ".xml"})


def _choice_items(content: dict[str, Any]) -> list[tuple[str, bool, str]]:
    """(text, correct, feedback) of each choice; true/false as the two choices it is."""
    if content["type"] == "true_false":
        answer = content["answer"]
        return [
            ("True", answer is True, content.get("true_feedback", "")),
            ("False", answer is False, content.get("false_feedback", "")),
        ]
    return [
        (choice["text"], bool(choice.get("correct")), choice.get("feedback", ""))
        for choice in content["choices"]
    ]


def _choices(root: Element, declaration: Element, content: dict[str, Any]) -> None:
    options = _choice_items(content)
    single = content["type"] != "multiple_choice"
    declaration.attrib.update(
        cardinality="single" if single else "multiple", **{"base-type": "identifier"}
    )
    correct = SubElement(declaration, "qti-correct-response")
    for index, (_, right, _) in enumerate(options):
        if right:
            SubElement(correct, "qti-value").text = f"C{index}"
    mapped = content["type"] == "multiple_choice" and content.get("scoring") == "partial"
    if mapped:
        _partial_mapping(declaration, [right for _, right, _ in options])
    body = root.find("qti-item-body")
    assert body is not None  # noqa: S101 (made by _item)
    attributes = {
        "response-identifier": "RESPONSE",
        "shuffle": "true"
        if content.get("shuffle", True) and content["type"] != "true_false"
        else "false",
        "max-choices": "1" if single else "0",
    }
    interaction = SubElement(body, "qti-choice-interaction", attributes)
    _prompt(interaction, content)
    for index, (text, _, _) in enumerate(options):
        SubElement(interaction, "qti-simple-choice", {"identifier": f"C{index}"}).text = text
    feedback = [text for _, _, text in options]
    if any(feedback):
        write_choice_feedback(root, interaction, feedback, mapped=mapped)
    else:
        _template(root, "map_response" if mapped else "match_correct")


def _partial_mapping(declaration: Element, correct: list[bool]) -> None:
    """The bank's partial rule as a QTI mapping: +1/k for each of the k right choices picked,
    -1/k for each wrong one, the sum kept within [0, 1]."""
    share = 1 / max(1, sum(correct))
    bounds = {"default-value": "0", "lower-bound": "0", "upper-bound": "1"}
    mapping = SubElement(declaration, "qti-mapping", bounds)
    for index, right in enumerate(correct):
        value = {"map-key": f"C{index}", "mapped-value": repr(share if right else -share)}
        SubElement(mapping, "qti-map-entry", value)


def _numeric(root: Element, declaration: Element, content: dict[str, Any]) -> None:
    answers = [a for a in content["answers"] if not isinstance(a["value"], str)]
    declaration.attrib.update(cardinality="single", **{"base-type": "float"})
    correct = SubElement(declaration, "qti-correct-response")
    for answer in answers:
        if answer.get("fraction", 1) == 1:
            SubElement(correct, "qti-value").text = repr(answer["value"])
    _text_body(root, content)
    _tolerance_processing(root, answers)


def _tolerance_processing(root: Element, answers: list[dict[str, Any]]) -> None:
    """`qti-equal` with each answer's tolerance, first match wins, as the bank scores."""
    condition = SubElement(SubElement(root, "qti-response-processing"), "qti-response-condition")
    for index, answer in enumerate(answers):
        branch = SubElement(condition, "qti-response-if" if index == 0 else "qti-response-else-if")
        relative = answer.get("tolerance_mode") == "relative"
        tolerance = float(f"{answer.get('tolerance', 0) * (100 if relative else 1):.12g}")
        mode = {"tolerance-mode": "relative" if relative else "absolute"}
        equal = SubElement(
            branch, "qti-equal", {**mode, "tolerance": f"{tolerance!r} {tolerance!r}"}
        )
        SubElement(equal, "qti-variable", {"identifier": "RESPONSE"})
        SubElement(equal, "qti-base-value", {"base-type": "float"}).text = repr(answer["value"])
        score = SubElement(branch, "qti-set-outcome-value", {"identifier": "SCORE"})
        fraction = answer.get("fraction", 1)
        SubElement(score, "qti-base-value", {"base-type": "float"}).text = repr(fraction)


def _short_text(root: Element, declaration: Element, content: dict[str, Any]) -> None:
    declaration.attrib.update(cardinality="single", **{"base-type": "string"})
    texts = [a for a in content["answers"] if "text" in a]
    correct = SubElement(declaration, "qti-correct-response")
    mapping = SubElement(declaration, "qti-mapping", {"default-value": "0"})
    sensitive = "true" if content.get("case_sensitive") else "false"
    for answer in texts:
        if answer.get("fraction", 1) == 1:
            SubElement(correct, "qti-value").text = answer["text"]
        entry = {
            "map-key": answer["text"],
            "mapped-value": repr(answer.get("fraction", 1)),
            "case-sensitive": sensitive,
        }
        SubElement(mapping, "qti-map-entry", entry)
    _text_body(root, content)
    if any("regex" in answer for answer in content["answers"]):
        write_text_conditions(root, content["answers"], bool(content.get("case_sensitive")))
    else:
        _template(root, "map_response")


def _text_body(root: Element, content: dict[str, Any]) -> None:
    body = root.find("qti-item-body")
    assert body is not None  # noqa: S101 (made by _item)
    paragraph = SubElement(body, "div")
    paragraph.text = content["prompt"] + "\n"
    SubElement(paragraph, "qti-text-entry-interaction", {"response-identifier": "RESPONSE"})


def _viva(root: Element, declaration: Element, content: dict[str, Any]) -> None:
    declaration.attrib.update(cardinality="single", **{"base-type": "string"})
    body = root.find("qti-item-body")
    assert body is not None  # noqa: S101 (made by _item)
    interaction = SubElement(
        body, "qti-extended-text-interaction", {"response-identifier": "RESPONSE"}
    )
    _prompt(interaction, content)


_WRITERS: dict[str, Callable[[Element, Element, dict[str, Any]], None]] = {
    "single_choice": _choices,
    "multiple_choice": _choices,
    "true_false": _choices,
    "numeric": _numeric,
    "short_text": _short_text,
    "viva": _viva,
}
