"""A question's rows as the canonical bank-format dictionary (what a version stores)."""

from __future__ import annotations

from typing import Any

from quizbank.bankfiles import canonicalize, schema
from quizbank.models import CodeCase, NumericAnswer, Question, RubricCriterion, TextAnswer


def question_content(question: Question) -> dict[str, Any]:
    """The canonical content of `question` built from its current rows."""
    qtype = question.type
    settings = question.settings if isinstance(question.settings, dict) else {}
    data: dict[str, Any] = {
        key: settings[key]
        for key in schema.TYPE_KEYS.get(qtype, ())
        if key in settings and key not in schema.ROW_KEYS
    }
    data.update(
        type=qtype,
        title=question.title,
        difficulty=question.difficulty,
        tags=list(question.tags or []),
        objectives=list(question.objectives or []),
        points=question.points,
        prompt=question.prompt,
        general_feedback=question.general_feedback,
    )
    data.update(_rows(question))
    data["files"] = {item.name: item.source for item in question.code_files.all()}
    data["assets"] = {item.name: item.blob_id for item in question.assets.all()}
    return canonicalize(data)


def _rows(question: Question) -> dict[str, Any]:
    qtype = question.type
    if qtype in ("single_choice", "multiple_choice"):
        choices = [
            {"text": choice.text, "correct": choice.correct, "feedback": choice.feedback}
            for choice in question.choices.all()
        ]
        return {"choices": choices}
    if qtype == "numeric":
        return {"answers": [_numeric(answer) for answer in question.numeric_answers.all()]}
    if qtype == "short_text":
        return {"answers": [_text(answer) for answer in question.text_answers.all()]}
    if qtype == "code":
        return {"cases": [_case(case) for case in question.code_cases.all()]}
    if qtype == "viva":
        return {"rubric": [_criterion(item) for item in question.rubric_criteria.all()]}
    return {}


def _numeric(answer: NumericAnswer) -> dict[str, Any]:
    return {
        "value": f"{{{{{answer.value_param}}}}}" if answer.value_param else answer.value,
        "tolerance": answer.tolerance,
        "tolerance_mode": answer.tolerance_mode,
        "fraction": answer.fraction,
        "feedback": answer.feedback,
    }


def _text(answer: TextAnswer) -> dict[str, Any]:
    key = "regex" if answer.is_regex else "text"
    return {key: answer.text, "fraction": answer.fraction, "feedback": answer.feedback}


def _case(case: CodeCase) -> dict[str, Any]:
    spec = case.spec if isinstance(case.spec, dict) else {}
    extra = {key: value for key, value in spec.items() if key not in ("name", "weight", "hidden")}
    return {"name": case.name, "weight": case.weight, "hidden": case.hidden, **extra}


def _criterion(criterion: RubricCriterion) -> dict[str, Any]:
    levels = [
        {"label": level.label, "points": level.points, "descriptor": level.descriptor}
        for level in criterion.levels.all()
    ]
    return {"criterion": criterion.title, "description": criterion.description, "levels": levels}
