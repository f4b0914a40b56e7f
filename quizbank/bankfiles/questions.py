"""Validation of one question's YAML data: the common fields and every type but code."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import regex

from quizbank.bankfiles import schema
from quizbank.bankfiles.checker import Checker
from quizbank.bankfiles.code import check_code
from quizbank.bankfiles.source import FieldPath, Issue
from quizbank.rendering import render_inline_markdown, render_markdown, shows_nothing


def validate_question(
    data: object, *, rows: bool = True, parameterised: bool = False
) -> list[Issue]:
    """Every rule of docs/bank-format.md for one question; `rows=False` skips row lists.

    `parameterised` says the question has generate.py, so `{{name}}` answers are allowed.
    """
    check = Checker()
    question = check.mapping(data, (), "a question file")
    if question is None:
        return check.issues
    check.plain_values(question, ())
    qtype = question.get("type")
    if qtype not in schema.QUESTION_TYPES:
        message = "is required" if qtype is None else "is not a question type"
        check.error(("type",), f"{message}; use one of: {', '.join(schema.QUESTION_TYPES)}")
        return check.issues
    allowed = schema.COMMON_KEYS + schema.TYPE_KEYS[qtype]
    check.keys(question, (), allowed if rows else (*allowed, *schema.ROW_KEYS))
    _check_common(check, question)
    if qtype == "numeric":
        _check_numeric(check, question, rows, parameterised=parameterised)
    else:
        TYPE_CHECKS[qtype](check, question, rows)
    return check.issues


def _check_common(check: Checker, data: dict[str, Any]) -> None:
    check.text(data, "title", (), required=True, max_length=schema.MAX_TITLE, one_line=True)
    check.text(data, "prompt", (), required=True)
    _check_shows_something(check, data, "prompt", (), render_markdown)
    check.text(data, "general_feedback", ())
    check.choice(data, "difficulty", (), schema.DIFFICULTIES)
    for index, tag in enumerate(check.text_list(data, "tags", ())):
        if isinstance(tag, str) and not schema.SLUG_RE.match(tag):
            check.error(("tags", index), "a tag is a lowercase slug (letters, digits, hyphens)")
    check.text_list(data, "objectives", ())
    points = check.number(data, "points", (), minimum=0, maximum=schema.MAX_POINTS)
    if points is not None and _decimal_places(data["points"]) > 2:
        check.error(("points",), "may have at most two decimal places")


def _decimal_places(number: float) -> int:
    exponent = Decimal(str(number)).as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


def _check_shows_something(
    check: Checker,
    data: dict[str, Any],
    key: str,
    path: FieldPath,
    render: Callable[[str], str],
) -> None:
    value = data.get(key)
    if isinstance(value, str) and value.strip() and shows_nothing(render(value)):
        check.error(
            (*path, key),
            "shows nothing once its HTML is made safe (scripts, styles and unknown tags are "
            "removed): write it as text",
        )


def _check_choices(check: Checker, data: dict[str, Any], rows: bool) -> None:
    check.boolean(data, "shuffle", ())
    check.choice(data, "scoring", (), schema.SCORING_RULES)
    if not rows:
        return
    choices = check.items(data, "choices", ())
    if choices is None:
        return
    correct = 0
    seen: dict[str, int] = {}
    for index, item in enumerate(choices):
        path: FieldPath = ("choices", index)
        choice = check.mapping(item, path, "a choice")
        if choice is None:
            continue
        check.keys(choice, path, ("text", "correct", "feedback"))
        check.text(choice, "text", path, required=True)
        _check_shows_something(check, choice, "text", path, render_inline_markdown)
        if isinstance(choice.get("text"), str):
            same = seen.setdefault(" ".join(choice["text"].split()).casefold(), index)
            if same != index:
                check.error(
                    (*path, "text"),
                    f"the same text as choice {same}: students could not tell them apart",
                )
        check.boolean(choice, "correct", path)
        check.text(choice, "feedback", path)
        correct += choice.get("correct") is True
    if len(choices) < 2:
        check.error(("choices",), "a choice question needs at least two choices")
    if data["type"] == "single_choice" and correct != 1:
        check.error(("choices",), "a single-choice question needs exactly one correct choice")
    if data["type"] == "multiple_choice" and correct < 1:
        check.error(("choices",), "a multiple-choice question needs at least one correct choice")


def _check_true_false(check: Checker, data: dict[str, Any], rows: bool) -> None:
    if check.required(data, "answer", ()) is not None:
        check.boolean(data, "answer", ())
    check.text(data, "true_feedback", ())
    check.text(data, "false_feedback", ())


NO_ANSWER_SCORES = "no answer earns marks: at least one needs a fraction above 0"


def scores_nothing(fractions: list[object]) -> bool:
    """Whether answers of these fractions (None: not given, worth 1) leave no answer that
    earns marks, so no response could score on the question. A fraction that is not a number
    is left to its own check."""
    given = [1 if fraction is None else fraction for fraction in fractions]
    numbers = [value for value in given if isinstance(value, int | float)]
    return len(numbers) == len(given) and all(value <= 0 for value in numbers)


def _check_answers_score(check: Checker, answers: list[Any] | None) -> None:
    mappings = [answer for answer in answers or [] if isinstance(answer, dict)]
    if mappings and scores_nothing([answer.get("fraction") for answer in mappings]):
        check.error(("answers",), NO_ANSWER_SCORES)


def _check_numeric(
    check: Checker, data: dict[str, Any], rows: bool, *, parameterised: bool = False
) -> None:
    check.text(data, "unit", (), one_line=True)
    answers = check.items(data, "answers", ()) if rows else None
    for index, item in enumerate(answers or []):
        path: FieldPath = ("answers", index)
        answer = check.mapping(item, path, "an answer")
        if answer is None:
            continue
        check.keys(answer, path, ("value", "tolerance", "tolerance_mode", "fraction", "feedback"))
        value = answer.get("value")
        if isinstance(value, str) and schema.PARAM_RE.match(value):
            if not parameterised:
                check.error((*path, "value"), "a {{name}} value needs generate.py beside it")
        else:
            check.number(answer, "value", path, required=True, largest=schema.MAX_MAGNITUDE)
        check.number(answer, "tolerance", path, minimum=0, largest=schema.MAX_MAGNITUDE)
        check.choice(answer, "tolerance_mode", path, schema.TOLERANCE_MODES)
        check.number(answer, "fraction", path, minimum=0, maximum=1)
        check.text(answer, "feedback", path)
    _check_answers_score(check, answers)


def _check_short_text(check: Checker, data: dict[str, Any], rows: bool) -> None:
    check.boolean(data, "case_sensitive", ())
    check.choice(data, "whitespace", (), schema.WHITESPACE_RULES)
    answers = check.items(data, "answers", ()) if rows else None
    for index, item in enumerate(answers or []):
        path: FieldPath = ("answers", index)
        answer = check.mapping(item, path, "an answer")
        if answer is None:
            continue
        check.keys(answer, path, ("text", "regex", "fraction", "feedback"))
        if ("text" in answer) == ("regex" in answer):
            check.error(path, "an answer needs exactly one of text or regex")
        accepted = check.text(answer, "text", path, max_length=schema.MAX_TEXT_ANSWER)
        if accepted is not None and not accepted.replace("`", "").strip():
            # Grading reads `x` as x: a blank text would match an answer of only backticks.
            check.error((*path, "text"), "must not be empty (a blank answer would match it)")
        pattern = check.text(answer, "regex", path, max_length=schema.MAX_TEXT_ANSWER)
        if pattern is not None:
            _check_regex(check, pattern, (*path, "regex"))
        check.number(answer, "fraction", path, minimum=0, maximum=1)
        check.text(answer, "feedback", path)
    _check_answers_score(check, answers)


def _check_regex(check: Checker, pattern: str, path: FieldPath) -> None:
    # Compiled by the engine that grades (the `regex` module), with both case rules: Python's
    # `re` accepts patterns `regex` refuses (`[[:letters:]]`) and the other way round.
    try:
        for flags in (0, regex.IGNORECASE):
            regex.compile(pattern, flags)
    except (regex.error, OverflowError, ValueError, RecursionError) as exc:
        check.error(path, f"is not a valid regular expression: {exc}")


def _check_viva(check: Checker, data: dict[str, Any], rows: bool) -> None:
    if check.required(data, "mode", ()) is not None:
        check.choice(data, "mode", (), schema.VIVA_MODES)
    check.text(data, "model_answer", (), required=True)
    check.text(data, "guidance", ())
    criteria = check.items(data, "rubric", ()) if rows else None
    for index, item in enumerate(criteria or []):
        path: FieldPath = ("rubric", index)
        criterion = check.mapping(item, path, "a rubric criterion")
        if criterion is None:
            continue
        check.keys(criterion, path, ("criterion", "description", "levels"))
        check.text(
            criterion, "criterion", path, required=True, max_length=schema.MAX_TITLE, one_line=True
        )
        check.text(criterion, "description", path)
        _check_levels(check, criterion, path)


def _check_levels(check: Checker, criterion: dict[str, Any], path: FieldPath) -> None:
    levels = check.items(criterion, "levels", path)
    if levels is None:
        return
    if not 3 <= len(levels) <= 4:
        check.error((*path, "levels"), "a criterion needs 3 or 4 levels")
    points: list[float] = []
    for index, item in enumerate(levels):
        level_path = (*path, "levels", index)
        level = check.mapping(item, level_path, "a level")
        if level is None:
            continue
        check.keys(level, level_path, ("label", "points", "descriptor"))
        check.text(
            level,
            "label",
            level_path,
            required=True,
            max_length=schema.MAX_LEVEL_LABEL,
            one_line=True,
        )
        check.text(level, "descriptor", level_path, required=True)
        value = check.number(
            level, "points", level_path, minimum=0, maximum=schema.MAX_POINTS, required=True
        )
        if value is not None:
            points.append(value)
    if len(points) == len(levels) and any(b <= a for a, b in zip(points, points[1:], strict=False)):
        check.error((*path, "levels"), "levels go from weakest to strongest: points must rise")


def _check_code(check: Checker, data: dict[str, Any], rows: bool) -> None:
    check_code(check, data, rows=rows)


TYPE_CHECKS = {
    "single_choice": _check_choices,
    "multiple_choice": _check_choices,
    "true_false": _check_true_false,
    "short_text": _check_short_text,
    "code": _check_code,
    "viva": _check_viva,
}
