"""QTI response processing that templates cannot say, written by our export and read back by
our import: short-text answers as first-match conditions (`qti-string-match` for a text,
`qti-pattern-match` for a regex), and per-choice feedback (`qti-feedback-inline` shown when
the FEEDBACK outcome holds the chosen identifier).

Element names here are QTI 3.0's; the reader gets them as QTI 2 names (qti.normalise)."""

from __future__ import annotations

import re
from typing import Any
from xml.etree.ElementTree import Element, SubElement

from quizbank.interchange.common import to_float

# A pattern is anchored at both ends in QTI (XML Schema regexes) as in the bank (fullmatch),
# and `^`/`$` are literal characters there, so the bank's anchors are dropped.
_ANCHORS = re.compile(r"^\^|(?<!\\)\$$")
_FOLDED_LETTER = re.compile(r"\[([a-z])([A-Z])\]")


def _value(parent: Element, base_type: str, text: str) -> None:
    SubElement(parent, "qti-base-value", {"base-type": base_type}).text = text


def _set_score(branch: Element, fraction: float) -> None:
    _value(
        SubElement(branch, "qti-set-outcome-value", {"identifier": "SCORE"}),
        "float",
        repr(fraction),
    )


def write_text_conditions(
    root: Element, answers: list[dict[str, Any]], case_sensitive: bool
) -> None:
    """Each short-text answer as a condition on RESPONSE, the first that matches setting SCORE
    to its fraction, as the bank scores."""
    condition = SubElement(SubElement(root, "qti-response-processing"), "qti-response-condition")
    for index, answer in enumerate(answers):
        branch = SubElement(condition, "qti-response-if" if index == 0 else "qti-response-else-if")
        if "regex" in answer:
            pattern = xsd_pattern(answer["regex"], case_sensitive)
            test = SubElement(branch, "qti-pattern-match", {"pattern": pattern})
            SubElement(test, "qti-variable", {"identifier": "RESPONSE"})
        else:
            sensitive = "true" if case_sensitive else "false"
            test = SubElement(branch, "qti-string-match", {"case-sensitive": sensitive})
            SubElement(test, "qti-variable", {"identifier": "RESPONSE"})
            _value(test, "string", answer["text"])
        _set_score(branch, answer.get("fraction", 1))


def xsd_pattern(regex: str, case_sensitive: bool) -> str:
    """The bank's regex as a QTI pattern: no anchors, and each letter as `[xX]` when case does
    not count (XML Schema regexes have no case-insensitive flag)."""
    pattern = _ANCHORS.sub("", regex)
    return pattern if case_sensitive else _fold_case(pattern)


def _fold_case(pattern: str) -> str:
    out, index = [], 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            end = index + 2
            if pattern[index + 1 : index + 2] in ("p", "P"):  # \p{Lu}: a name, not letters
                end = max(end, pattern.find("}", index) + 1)
            out.append(pattern[index:end])
            index = end
            continue
        if char == "[" and (close := _class_end(pattern, index)) > 0:
            out.append(_fold_class(pattern[index + 1 : close]))
            index = close + 1
            continue
        out.append(f"[{char.lower()}{char.upper()}]" if _is_letter(char) else char)
        index += 1
    return "".join(out)


def _is_letter(char: str) -> bool:
    return char.isascii() and char.isalpha()


def _class_end(pattern: str, start: int) -> int:
    index = start + 1
    while index < len(pattern):
        if pattern[index] == "\\":
            index += 2
            continue
        if pattern[index] == "]":
            return index
        index += 1
    return -1


def _fold_class(body: str) -> str:
    """A character class with the other case of each letter and letter range added."""
    negated = body.startswith("^")
    items, extra, index = body[1:] if negated else body, [], 0
    while index < len(items):
        char = items[index]
        if char == "\\":
            index += 2
            continue
        last = items[index + 2] if index + 2 < len(items) and items[index + 1] == "-" else ""
        if last and _is_letter(char) and _is_letter(last) and char.islower() == last.islower():
            extra.append(f"{char.swapcase()}-{last.swapcase()}")
            index += 3
            continue
        if _is_letter(char):
            extra.append(char.swapcase())
        index += 1
    added = "".join(item for item in dict.fromkeys(extra) if item not in items)
    # The other case goes first: after a trailing "-" it would make a range.
    return f"[{'^' if negated else ''}{added}{items}]"


def read_text_conditions(processing: Element | None) -> tuple[list[dict[str, Any]], bool] | None:
    """The answers and case rule of conditions written by `write_text_conditions`, or None
    when the processing is something else."""
    branches = [] if processing is None else processing.findall("responseCondition/*")
    tests = [
        (branch, branch.find("stringMatch"), branch.find("patternMatch")) for branch in branches
    ]
    if not tests or any(text is None and regex is None for _, text, regex in tests):
        return None
    texts = [text for _, text, _ in tests if text is not None]
    patterns = [regex.get("pattern", "") for _, _, regex in tests if regex is not None]
    if texts:
        case_sensitive = texts[0].get("caseSensitive", "true") != "false"
    else:
        case_sensitive = not all(_is_folded(pattern) for pattern in patterns)
    answers = []
    for branch, text, regex in tests:
        score = branch.find("setOutcomeValue/baseValue")
        fraction = to_float(score.text if score is not None else "1", "SCORE")
        if regex is not None:
            pattern = regex.get("pattern", "")
            answer = {"regex": pattern if case_sensitive else _unfold(pattern)}
        else:
            assert text is not None  # noqa: S101 (one of the two, checked above)
            answer = {"text": text.findtext("baseValue") or ""}
        answers.append({**answer, "fraction": fraction})
    return answers, case_sensitive


def _is_folded(pattern: str) -> bool:
    """True when every letter outside a class stands as `[xX]` (as `_fold_case` writes it)."""
    bare = re.sub(r"\\.|\[[^\]]*\]", "", _FOLDED_LETTER.sub("", pattern))
    return bool(_FOLDED_LETTER.search(pattern)) and not re.search(r"[A-Za-z]", bare)


def _unfold(pattern: str) -> str:
    return _FOLDED_LETTER.sub(lambda m: m[1] if m[1].upper() == m[2] else m[0], pattern)


def write_choice_feedback(
    root: Element, interaction: Element, feedback: list[str], *, mapped: bool = False
) -> None:
    """Per-choice feedback as `qti-feedback-inline` in each choice, shown when FEEDBACK (set
    from RESPONSE by the processing) holds the choice's identifier; the score is
    match_correct's (or with `mapped`, map_response's), written out, since a template cannot
    set FEEDBACK."""
    declaration = root.find("qti-response-declaration")
    assert declaration is not None  # noqa: S101 (made by the export's _item)
    outcome = Element(
        "qti-outcome-declaration",
        {
            "identifier": "FEEDBACK",
            "cardinality": declaration.get("cardinality", "single"),
            "base-type": "identifier",
        },
    )
    root.insert(list(root).index(declaration) + 2, outcome)
    for choice, text in zip(interaction.findall("qti-simple-choice"), feedback, strict=True):
        if text:
            attributes = {
                "outcome-identifier": "FEEDBACK",
                "identifier": choice.get("identifier", ""),
                "show-hide": "show",
            }
            SubElement(choice, "qti-feedback-inline", attributes).text = text
    processing = SubElement(root, "qti-response-processing")
    if mapped:
        score = SubElement(processing, "qti-set-outcome-value", {"identifier": "SCORE"})
        SubElement(score, "qti-map-response", {"identifier": "RESPONSE"})
    else:
        condition = SubElement(processing, "qti-response-condition")
        matched = SubElement(SubElement(condition, "qti-response-if"), "qti-match")
        SubElement(matched, "qti-variable", {"identifier": "RESPONSE"})
        SubElement(matched, "qti-correct", {"identifier": "RESPONSE"})
        _set_score(condition[0], 1)
        _set_score(SubElement(condition, "qti-response-else"), 0)
    feedback_value = SubElement(processing, "qti-set-outcome-value", {"identifier": "FEEDBACK"})
    SubElement(feedback_value, "qti-variable", {"identifier": "RESPONSE"})


def choice_feedback(choice: Element) -> str:
    """The inline feedback of a (normalised) simpleChoice, "" when it has none."""
    inline = choice.find("feedbackInline")
    return "".join(inline.itertext()).strip() if inline is not None else ""


def is_match_correct_with_feedback(processing: Element) -> bool:
    """True for the processing `write_choice_feedback` writes (nothing in it is lost)."""
    sets = {item.get("identifier"): item for item in processing.iter("setOutcomeValue")}
    matched = processing.find("responseCondition/responseIf/match/correct") is not None
    mapped = "SCORE" in sets and sets["SCORE"].find("mapResponse") is not None
    return "FEEDBACK" in sets and (matched or mapped)
