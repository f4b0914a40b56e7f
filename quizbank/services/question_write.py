"""Writing a question's rows from canonical bank-format content."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from quizbank.bankfiles import schema
from quizbank.bankfiles.codefiles import file_kind
from quizbank.models import (
    Choice,
    CodeCase,
    CodeFile,
    NumericAnswer,
    Question,
    QuestionAsset,
    RubricCriterion,
    RubricLevel,
    TextAnswer,
)


@transaction.atomic
def question_apply_content(*, question: Question, content: dict[str, Any]) -> Question:
    """Replace the fields and child rows of `question` (saved or new) with `content`."""
    qtype = content["type"]
    question.type = qtype
    question.title = content["title"]
    question.difficulty = content.get("difficulty", "beginner")
    question.tags = list(content.get("tags", []))
    question.objectives = list(content.get("objectives", []))
    question.points = content.get("points", 1)
    question.prompt = content["prompt"]
    question.general_feedback = content.get("general_feedback", "")
    question.settings = {
        key: content[key]
        for key in schema.TYPE_KEYS[qtype]
        if key in content and key not in schema.ROW_KEYS
    }
    question.save()
    _replace_rows(question, content)
    return question


def _replace_rows(question: Question, content: dict[str, Any]) -> None:
    for related in (
        question.choices,
        question.numeric_answers,
        question.text_answers,
        question.code_cases,
        question.code_files,
        question.assets,
        question.rubric_criteria,
    ):
        related.all().delete()
    qtype = content["type"]
    Choice.objects.bulk_create(
        Choice(
            question=question,
            position=index,
            text=item["text"],
            correct=item.get("correct", False),
            feedback=item.get("feedback", ""),
        )
        for index, item in enumerate(content.get("choices", []))
    )
    answers = content.get("answers", [])
    if qtype == "numeric":
        NumericAnswer.objects.bulk_create(_numeric(question, answers))
    elif qtype == "short_text":
        TextAnswer.objects.bulk_create(_text(question, answers))
    CodeCase.objects.bulk_create(_cases(question, content.get("cases", [])))
    CodeFile.objects.bulk_create(
        CodeFile(question=question, kind=file_kind(name) or "wrong", name=name, source=source)
        for name, source in content.get("files", {}).items()
    )
    QuestionAsset.objects.bulk_create(
        QuestionAsset(question=question, name=name, blob_id=digest)
        for name, digest in content.get("assets", {}).items()
    )
    _rubric(question, content.get("rubric", []))


def _numeric(question: Question, answers: list[dict[str, Any]]) -> list[NumericAnswer]:
    return [
        NumericAnswer(
            question=question,
            position=index,
            value=0.0 if isinstance(item["value"], str) else item["value"],
            value_param=_param_name(item["value"]),
            tolerance=item.get("tolerance", 0),
            tolerance_mode=item.get("tolerance_mode", "absolute"),
            fraction=item.get("fraction", 1),
            feedback=item.get("feedback", ""),
        )
        for index, item in enumerate(answers)
    ]


def _param_name(value: object) -> str:
    if isinstance(value, str) and (match := schema.PARAM_RE.match(value)):
        return match.group(1)
    return ""


def _text(question: Question, answers: list[dict[str, Any]]) -> list[TextAnswer]:
    return [
        TextAnswer(
            question=question,
            position=index,
            text=item.get("regex", item.get("text", "")),
            is_regex="regex" in item,
            fraction=item.get("fraction", 1),
            feedback=item.get("feedback", ""),
        )
        for index, item in enumerate(answers)
    ]


def _cases(question: Question, cases: list[dict[str, Any]]) -> list[CodeCase]:
    return [
        CodeCase(
            question=question,
            position=index,
            name=item["name"],
            weight=item.get("weight", 1),
            hidden=item.get("hidden", False),
            spec={k: v for k, v in item.items() if k not in ("name", "weight", "hidden")},
        )
        for index, item in enumerate(cases)
    ]


def _rubric(question: Question, rubric: list[dict[str, Any]]) -> None:
    for index, item in enumerate(rubric):
        criterion = RubricCriterion.objects.create(
            question=question,
            position=index,
            title=item["criterion"],
            description=item.get("description", ""),
        )
        RubricLevel.objects.bulk_create(
            RubricLevel(
                criterion=criterion,
                position=position,
                label=level["label"],
                points=level["points"],
                descriptor=level["descriptor"],
            )
            for position, level in enumerate(item["levels"])
        )
