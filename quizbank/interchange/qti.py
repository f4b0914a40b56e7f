"""QTI 2.1/2.2 and 3.0 import: single items and content packages (a zip with
imsmanifest.xml). Choice, text entry and extended text interactions map; others are reported.

QTI 3.0 names (`qti-choice-interaction`, `response-identifier`) are read as the 2.x names
(`choiceInteraction`, `responseIdentifier`), so one reader serves both versions."""

from __future__ import annotations

import math
import posixpath
import re
import textwrap
from html import escape
from typing import Any
from xml.etree.ElementTree import Element

from quizbank.errors import InterchangeRefused
from quizbank.interchange.common import (
    SlugPool,
    name_notes,
    open_question,
    points_of,
    slugify,
    title_of,
    to_float,
)
from quizbank.interchange.limits import parse_xml, read_zip, safe_member_name
from quizbank.interchange.qti_rules import (
    choice_feedback,
    is_match_correct_with_feedback,
    read_text_conditions,
)
from quizbank.interchange.report import DEFAULT_TOPIC, Conversion, Draft, Unsupported

_INTERACTIONS = ("choiceInteraction", "textEntryInteraction", "extendedTextInteraction")
_BLANK = "_____"
# A short-text answer that every answer (not blank) matches.
_ANY_TEXT = ".*"
_VOID = ("br", "hr", "img", "col", "wbr")
_TAG_LIKE = re.compile(r"<(?=[A-Za-z/!?])")
_ENTITY_LIKE = re.compile(r"&(?=#?[A-Za-z0-9]+;)")


def _camel(name: str) -> str:
    name = name.rsplit("}", 1)[-1]
    name = name.removeprefix("qti-")
    return re.sub(r"-([a-z])", lambda m: m[1].upper(), name)


def normalise(root: Element) -> Element:
    """Strip namespaces and turn QTI 3.0's kebab-case names into QTI 2's camelCase."""
    for element in root.iter():
        element.tag = _camel(element.tag)
        for key in list(element.attrib):
            value = element.attrib.pop(key)
            element.attrib[_camel(key)] = value
    return root


def read_qti(data: bytes) -> Conversion:
    """Convert a QTI item (XML) or content package (zip) into drafts."""
    conversion, slugs = Conversion(), SlugPool()
    for location, document in _documents(data):
        root = normalise(parse_xml(document, location).root)
        try:
            draft = read_item(root, location)
        except Unsupported as exc:
            conversion.skip(location, exc.reason)
            continue
        draft.slug = slugs.take(draft.slug)
        conversion.drafts.append(draft)
    return conversion


def _documents(data: bytes) -> list[tuple[str, bytes]]:
    if not data.startswith(b"PK"):
        return [("item", data)]
    files = read_zip(data)
    if "imsmanifest.xml" not in files:
        raise InterchangeRefused("a QTI package needs imsmanifest.xml at its root")
    manifest = normalise(parse_xml(files["imsmanifest.xml"], "imsmanifest.xml").root)
    documents = []
    for resource in manifest.iter("resource"):
        if "item" not in resource.get("type", ""):
            continue
        href = safe_member_name(
            posixpath.join(resource.get("xmlBase", ""), resource.get("href", ""))
        )
        if href not in files:
            raise InterchangeRefused(f"imsmanifest.xml lists {href}, which the package lacks")
        documents.append((href, files[href]))
    if not documents:
        raise InterchangeRefused("imsmanifest.xml lists no assessment items")
    return documents


def read_item(root: Element, location: str) -> Draft:
    """One assessmentItem as a draft."""
    if root.tag != "assessmentItem":
        raise Unsupported(f"<{root.tag}> is not a QTI assessment item")
    body = root.find("itemBody")
    interactions = [
        e for e in (body.iter() if body is not None else []) if e.tag.endswith("Interaction")
    ]
    if body is None or len(interactions) != 1:
        raise Unsupported(f"{len(interactions)} interactions; an item maps when it has one")
    interaction = interactions[0]
    if interaction.tag not in _INTERACTIONS:
        raise Unsupported(f"the {interaction.tag} has no counterpart in the bank")
    files = [e.get("src") or e.get("data") for e in body.iter() if e.tag in ("img", "object")]
    if files:
        raise Unsupported(
            f"it shows files from the package ({', '.join(map(str, files))}); a QTI package's "
            "files are not imported, and the question would be incomplete without them"
        )
    identifier = root.get("identifier", "")
    content: dict[str, Any] = {
        "title": title_of(root.get("title", ""), identifier or "Untitled question"),
        "prompt": _prompt(body, interaction),
    }
    notes: list[str] = name_notes(root.get("title", ""))
    maximum = root.findtext("outcomeDeclaration[@identifier='MAXSCORE']/defaultValue/value")
    if maximum is not None:
        content["points"], point_notes = points_of(maximum, "MAXSCORE")
        notes.extend(point_notes)
    declaration = _declaration(root, interaction)
    if interaction.tag == "choiceInteraction":
        _choice(interaction, declaration, content, notes)
    elif interaction.tag == "textEntryInteraction":
        _text_entry(declaration, content, notes)
    else:
        open_question(content, "", notes)
    if root.find("modalFeedback") is not None:
        notes.append("modal feedback not kept")
    _read_processing(root.find("responseProcessing"), content, notes)
    slug = slugify(identifier or content["title"])
    return Draft(slug=slug, topic=DEFAULT_TOPIC, content=content, location=location, notes=notes)


def _read_processing(processing: Element | None, content: dict[str, Any], notes: list[str]) -> None:
    """Answers that our export (or a like item) states in response processing: numeric
    tolerances, short-text conditions with regexes; other custom processing is noted."""
    tolerances = tolerance_answers(processing) if content["type"] == "numeric" else []
    conditions = read_text_conditions(processing) if content["type"] == "short_text" else None
    if tolerances:
        content["answers"] = tolerances
    elif conditions is not None:
        content["answers"], content["case_sensitive"] = conditions
    elif (
        processing is not None
        and not processing.get("template")
        and len(processing)
        and not is_match_correct_with_feedback(processing)
    ):
        notes.append("custom response processing not read: the bank's own scoring applies")


def inner_html(element: Element, replace: Element | None = None, by: str = "") -> str:
    """The markup inside `element`, with `replace` (and its content) swapped for `by`."""
    out = _markup_safe(element.text or "")
    for child in element:
        if child is replace:
            out += by
        elif child.tag not in ("prompt", "simpleChoice", "feedbackInline"):
            attributes = "".join(f' {k}="{escape(v)}"' for k, v in child.attrib.items())
            inside = inner_html(child, replace, by)
            closing = f">{inside}</{child.tag}>" if inside or child.tag not in _VOID else " />"
            out += f"<{child.tag}{attributes}{closing}"
        out += _markup_safe(child.tail or "")
    return out


def _markup_safe(text: str) -> str:
    """Text that stays text in Markdown with HTML: only a `<` that would open a tag and an
    `&` that would start an entity are escaped, so code in a prompt keeps its `>` and `&`."""
    text = _ENTITY_LIKE.sub("&amp;", text)
    return _TAG_LIKE.sub("&lt;", text)


def _prompt(body: Element, interaction: Element) -> str:
    inline = interaction.tag == "textEntryInteraction"
    prompt = interaction.find("prompt")
    own = inner_html(prompt) if prompt is not None else ""
    by = _BLANK if inline and not _ends_its_line(body, interaction) else own
    text = inner_html(_unwrapped(body), interaction, by)
    # The markup's own indentation would read as a Markdown code block: remove what every
    # line shares (a Markdown prompt, as our export writes it, has none to remove).
    return textwrap.dedent(text.expandtabs(4)).strip()


def _ends_its_line(body: Element, interaction: Element) -> bool:
    """Whether a text entry stands on a line of its own at the end of its block (as our export
    writes it, below the prompt): a blank there marks nothing the answer box does not."""
    parent = next(element for element in body.iter() if interaction in list(element))
    siblings = list(parent)
    index = siblings.index(interaction)
    before = (siblings[index - 1].tail if index else parent.text) or ""
    last = not (interaction.tail or "").strip() and index == len(siblings) - 1
    return last and (not before.strip() or before.rstrip(" \t").endswith("\n"))


def _unwrapped(body: Element) -> Element:
    """The body, or the one plain `div` that holds all of it (our export's wrapper around a
    text entry's Markdown prompt, which Markdown would not read inside a block of HTML)."""
    children = list(body)
    only = children[0] if len(children) == 1 else None
    if (
        only is not None
        and only.tag == "div"
        and not only.attrib
        and not (body.text or "").strip()
        and not (only.tail or "").strip()
    ):
        return only
    return body


def _declaration(root: Element, interaction: Element) -> Element:
    wanted = interaction.get("responseIdentifier")
    for declaration in root.findall("responseDeclaration"):
        if declaration.get("identifier") == wanted:
            return declaration
    raise Unsupported(f"no responseDeclaration for {wanted!r}")


def _correct(declaration: Element) -> list[str]:
    return [(v.text or "").strip() for v in declaration.findall("correctResponse/value")]


def _choice(
    interaction: Element, declaration: Element, content: dict[str, Any], notes: list[str]
) -> None:
    correct = set(_correct(declaration))
    choices = interaction.findall("simpleChoice")
    single = declaration.get("cardinality") == "single"
    content["type"] = "single_choice" if single else "multiple_choice"
    content["shuffle"] = interaction.get("shuffle", "false") == "true"
    mapping = declaration.find("mapping")
    if single and mapping is not None:
        correct = correct or _top_choice(mapping, choices)
        notes.extend(_single_mapping_notes(mapping, choices, correct))
    if not single and mapping is not None:
        _bounds(mapping)  # refused when they contradict, though the partial rule replaces them
        content["scoring"] = "partial"
        if not _is_partial_rule(mapping, correct, choices):
            notes.append(
                "the item's mapping became the bank's partial rule (+1/k right, -1/k wrong)"
                + _unlisted_choices(mapping, choices)
            )
    content["choices"] = [
        {
            "text": "\n".join(line.strip() for line in inner_html(choice).splitlines()).strip(),
            "correct": choice.get("identifier") in correct,
            "feedback": choice_feedback(choice),
        }
        for choice in choices
    ]
    _as_true_false(content)


def _choice_scores(mapping: Element, choices: list[Element]) -> list[tuple[str, float]]:
    """Each choice as the mapping scores it (mapResponse): what the mapping says of it, for
    the report, and its score within the bounds."""
    bounds = _bounds(mapping)
    listed = {
        entry.get("mapKey"): entry.get("mappedValue", "0") for entry in mapping.findall("mapEntry")
    }
    default, written_default = _mapped_default(mapping)
    scored = []
    for choice in choices:
        identifier = choice.get("identifier")
        written = listed.get(identifier)
        if written is None:
            what = f"the choice {identifier!r}, which the mapping does not list, has"
            scored.append(
                (f"{what} {_as_mapped('defaultValue', written_default, default)}", default)
            )
        else:
            score = _bounded(to_float(written, "mappedValue"), bounds)
            mapped = _as_mapped("mappedValue", written, score)
            scored.append((f"the choice {identifier!r} has {mapped}", score))
    return scored


def _top_choice(mapping: Element, choices: list[Element]) -> set[str]:
    """The choice the mapping scores highest (above 0): the right one of a single-choice item
    that gives no correctResponse; Unsupported, saying why, when there is not exactly one."""
    scores = [score for _, score in _choice_scores(mapping, choices)]
    top = max(scores, default=0)
    best = [
        str(choice.get("identifier"))
        for choice, score in zip(choices, scores, strict=True)
        if top > 0 and score == top
    ]
    if len(best) == 1:
        return set(best)
    if best:
        tied = ", ".join(repr(identifier) for identifier in best)
        problems = [f"the choices {tied} tie for its top score {top:g}"]
    else:
        problems = ["it scores no choice above 0"]
    names = {choice.get("identifier") for choice in choices}
    unknown = [e.get("mapKey") for e in mapping.findall("mapEntry") if e.get("mapKey") not in names]
    problems += [f"its mapKey {key!r} is no choice of the item" for key in unknown]
    raise Unsupported(
        "no correctResponse, and the mapping names no one right choice: " + "; ".join(problems)
    )


def _single_mapping_notes(mapping: Element, choices: list[Element], correct: set[str]) -> list[str]:
    """What a single-choice item's mapping gives that the bank's rule does not: here the
    correct choice gives full marks and every other choice 0."""
    scored = _choice_scores(mapping, choices)
    top = max(score for _, score in scored) if scored else 0
    notes = []
    for choice, (what, score) in zip(choices, scored, strict=True):
        if choice.get("identifier") in correct:
            if top <= 0 or score < top:
                best = "no choice a score above 0" if top <= 0 else f"another choice {top:g}"
                notes.append(f"{what} (and the mapping gives {best}); here it gives full marks")
        elif score > 0:
            notes.append(f"{what}; here it gives 0 (a single choice has no partial credit)")
        elif score < 0:
            notes.append(f"{what}; here it gives 0 (no marks are taken off)")
    return notes


def _is_partial_rule(mapping: Element, correct: set[str], choices: list[Element]) -> bool:
    """Whether the mapping gives exactly the bank's partial rule (as our export writes it)."""
    share = 1 / max(1, len(correct))
    wanted = {
        str(choice.get("identifier")): share if choice.get("identifier") in correct else -share
        for choice in choices
    }
    try:
        given = {
            str(entry.get("mapKey")): float(entry.get("mappedValue", "nan"))
            for entry in mapping.findall("mapEntry")
        }
        bounds = (float(mapping.get("lowerBound", "nan")), float(mapping.get("upperBound", "nan")))
    except ValueError:
        return False
    return (
        bounds == (0, 1)
        and given.keys() == wanted.keys()
        and all(abs(given[key] - wanted[key]) < 1e-9 for key in wanted)
    )


def _unlisted_choices(mapping: Element, choices: list[Element]) -> str:
    """What the partial rule replaced of the mapping's defaultValue: the score it gave each
    choice it does not list ("" when it lists them all or gives them 0)."""
    listed = {entry.get("mapKey") for entry in mapping.findall("mapEntry")}
    unlisted = [choice for choice in choices if choice.get("identifier") not in listed]
    written = mapping.get("defaultValue", "0").strip()
    if not unlisted or to_float(written, "defaultValue") == 0:
        return ""
    count = f"{len(unlisted)} choice{'s' if len(unlisted) > 1 else ''}"
    return f"; its defaultValue {written} for the {count} it does not list not kept"


def _as_true_false(content: dict[str, Any]) -> None:
    """A single choice between exactly "True" and "False", one of them right, is the bank's
    true/false question (as Vivabank's own export and other systems write one)."""
    choices = content["choices"]
    texts = [choice["text"].strip().lower() for choice in choices]
    if content["type"] != "single_choice" or texts != ["true", "false"]:
        return
    if sum(choice["correct"] for choice in choices) != 1:
        return
    true, false = choices
    content.update(type="true_false", answer=bool(true["correct"]))
    for key, choice in (("true_feedback", true), ("false_feedback", false)):
        if choice["feedback"]:
            content[key] = choice["feedback"]
    for key in ("choices", "shuffle", "scoring"):
        content.pop(key, None)


def _text_entry(declaration: Element, content: dict[str, Any], notes: list[str]) -> None:
    mapping = declaration.find("mapping")
    numeric = declaration.get("baseType") in ("float", "integer")
    content["type"] = "numeric" if numeric else "short_text"
    if mapping is None or not mapping.findall("mapEntry"):
        values = _correct(declaration)
        content["answers"] = (
            [{"value": to_float(value, "correct response")} for value in values]
            if numeric
            else [{"text": value} for value in values]
        )
        if not numeric:
            content["case_sensitive"] = True
        _note_numeric_default(mapping, numeric, notes)
        return
    scored = _MappedScores(mapping, keeps_default=not numeric)
    if numeric:
        content["answers"] = [
            {"value": to_float(key, "mapKey"), "fraction": fraction}
            for key, fraction in zip(scored.keys, scored.fractions(), strict=True)
        ]
    else:
        content["case_sensitive"] = _case_sensitive(mapping, notes)
        content["answers"] = [
            {"text": key, "fraction": fraction}
            for key, fraction in zip(scored.keys, scored.fractions(), strict=True)
        ]
        if scored.default > 0:
            # Answers are tried in order: the listed ones first, then this one matches the rest.
            content["answers"].append({"regex": _ANY_TEXT, "fraction": scored.default / scored.top})
    _note_numeric_default(mapping, numeric, notes)
    notes.extend(scored.negative_notes())


def _case_sensitive(mapping: Element, notes: list[str]) -> bool:
    """The question's case rule: a bank question has one, so a mapping whose entries differ
    keeps every answer case-sensitive (none then gives marks its entry would not), noted."""
    entries = mapping.findall("mapEntry")
    loose = [e.get("mapKey", "") for e in entries if e.get("caseSensitive", "true") == "false"]
    if loose and len(loose) < len(entries):
        keys = ", ".join(repr(key) for key in loose)
        notes.append(
            f'the mapping matches {keys} in any case (caseSensitive="false") but its other '
            "answers only in their own case: here every answer must match in case"
        )
    return len(loose) < len(entries)


def _note_numeric_default(mapping: Element | None, numeric: bool, notes: list[str]) -> None:
    """A numeric item's defaultValue has no counterpart: a number no answer accepts gives 0."""
    default, written = _mapped_default(mapping)
    if numeric and default:
        notes.append(
            f"{_as_mapped('defaultValue', written, default)} (the score of a number the mapping "
            "does not list) not kept: here such a number gives 0"
        )


class _MappedScores:
    """A text entry's mapping read as mapResponse scores it: each listed answer's score and
    the default's, within the bounds, and the top of those the question keeps (the bank's
    full marks): a numeric question has no answer for the default (`keeps_default` False)."""

    def __init__(self, mapping: Element, *, keeps_default: bool) -> None:
        bounds = _bounds(mapping)
        entries = mapping.findall("mapEntry")
        self.keys = [entry.get("mapKey", "") for entry in entries]
        self.written = [entry.get("mappedValue", "0") for entry in entries]
        self.scores = [_bounded(to_float(value, "mappedValue"), bounds) for value in self.written]
        self.default, self.written_default = _mapped_default(mapping)
        self.keeps_default = keeps_default
        self.top = max(self.scores + [self.default] * keeps_default)

    def fractions(self) -> list[float]:
        """Each listed answer's share of the top score; a negative score gives 0. With no
        score above 0 every fraction is 0, and the bank's rules skip the question."""
        return [max(score, 0) / self.top if self.top > 0 else 0 for score in self.scores]

    def negative_notes(self) -> list[str]:
        """Notes on the scores below 0, which the bank cannot give (when another scores)."""
        lost = [
            (f"the answer {key!r} has {_as_mapped('mappedValue', written, score)}", score)
            for key, written, score in zip(self.keys, self.written, self.scores, strict=True)
        ]
        if self.keeps_default:
            default = _as_mapped("defaultValue", self.written_default, self.default)
            lost.append((f"an answer the mapping does not list has {default}", self.default))
        return [
            f"{what}; here it gives 0 (no marks are taken off)"
            for what, score in lost
            if score < 0 and self.top > 0
        ]


def _bounds(mapping: Element) -> tuple[float, float]:
    """The mapping's lowerBound and upperBound (none: unbounded); Unsupported when the lower
    is above the upper, which no score could be within (every response would get the upper)."""
    lower, upper = mapping.get("lowerBound"), mapping.get("upperBound")
    bounds = (
        -math.inf if lower is None else to_float(lower, "lowerBound"),
        math.inf if upper is None else to_float(upper, "upperBound"),
    )
    if bounds[0] > bounds[1]:
        raise Unsupported(f"the mapping's lowerBound {lower!r} is above its upperBound {upper!r}")
    return bounds


def _as_mapped(name: str, written: str, score: float) -> str:
    """A mapping's value for a report: as written, and the score it gives when its bounds
    change it ("defaultValue 0, 0.5 within the mapping's bounds")."""
    if to_float(written, name) == score:
        return f"{name} {written}"
    return f"{name} {written}, {score:g} within the mapping's bounds"


def _bounded(score: float, bounds: tuple[float, float]) -> float:
    """A response's score as the mapping gives it: within the bounds (QTI's mapResponse)."""
    lower, upper = bounds
    return min(max(score, lower), upper)


def _mapped_default(mapping: Element | None) -> tuple[float, str]:
    """The score of a response the mapping does not list (its defaultValue, within its
    bounds), and the defaultValue as written."""
    if mapping is None:
        return 0.0, "0"
    written = mapping.get("defaultValue", "0").strip()
    return _bounded(to_float(written, "defaultValue"), _bounds(mapping)), written


def tolerance_answers(processing: Element | None) -> list[dict[str, Any]]:
    """Numeric answers from `equal` conditions on RESPONSE with a tolerance (as our export
    writes them): each branch's value, tolerance and the SCORE it sets."""
    answers: list[dict[str, Any]] = []
    branches = [] if processing is None else processing.findall("responseCondition/*")
    for branch in branches:
        equal, score = branch.find("equal"), branch.find("setOutcomeValue/baseValue")
        value = equal.find("baseValue") if equal is not None else None
        if equal is None or value is None or score is None:
            return []
        relative = equal.get("toleranceMode") == "relative"
        # QTI's tolerance is one or two numbers (the second for the upper bound); none is 0.
        tolerance = to_float(((equal.get("tolerance") or "").split() or ["0"])[0], "tolerance")
        answer: dict[str, Any] = {
            "value": to_float(value.text, "baseValue"),
            "tolerance": float(f"{tolerance / 100:.12g}") if relative else tolerance,
            "fraction": to_float(score.text, "SCORE"),
        }
        if relative:
            answer["tolerance_mode"] = "relative"
        answers.append(answer)
    return answers
