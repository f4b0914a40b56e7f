"""Admin forms and formsets that apply the bank format's rules to edits in the admin."""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from config.text import sentence
from quizbank.bankfiles import schema, validate_question
from quizbank.bankfiles.codefiles import (
    NOT_A_FILE_NAME,
    check_python,
    file_kind,
    missing_files,
)
from quizbank.bankfiles.questions import NO_ANSWER_SCORES, scores_nothing
from quizbank.bankfiles.schema import MAX_CODE_FILES
from quizbank.bankfiles.source import field_name
from quizbank.models import Question

# The common bank-format fields that the question form edits directly.
_FORM_FIELDS = tuple(key for key in schema.COMMON_KEYS if key != "type")


class QuestionForm(forms.ModelForm):  # type: ignore[type-arg]  # ModelForm is generic only in the stubs
    class Meta:
        model = Question
        fields = [
            "course",
            "topic",
            "slug",
            "type",
            *_FORM_FIELDS,
            "settings",
        ]

    def clean_slug(self) -> str:
        slug = str(self.cleaned_data["slug"])
        if not schema.SLUG_RE.match(slug):
            raise ValidationError("Use lowercase letters, digits and hyphens.")
        return slug

    def clean(self) -> dict[str, Any]:
        cleaned: dict[str, Any] = super().clean() or {}
        topic, course = cleaned.get("topic"), cleaned.get("course")
        if topic is not None and course is not None and topic.course_id != course.pk:
            self.add_error("topic", "The topic belongs to another course.")
        settings = cleaned.get("settings")
        if not isinstance(settings, dict):
            self.add_error("settings", "Settings must be a JSON object.")
            return cleaned
        data = dict(settings)
        data["type"] = cleaned.get("type")
        data.update({key: cleaned[key] for key in _FORM_FIELDS if cleaned.get(key) is not None})
        data["points"] = float(data.get("points", 1))
        for issue in validate_question(data, rows=False):
            top = str(issue.path[0]) if issue.path else "settings"
            target = top if top in _FORM_FIELDS else "settings"
            self.add_error(target, f"{field_name(issue.path)}: {issue.message}")
        return cleaned


def _live_forms(formset: forms.BaseInlineFormSet) -> list[dict[str, Any]]:  # type: ignore[type-arg]  # generic only in the stubs
    return [
        form.cleaned_data
        for form in formset.forms
        if form.cleaned_data and not form.cleaned_data.get("DELETE")
    ]


def _question_type(formset: forms.BaseInlineFormSet) -> str:  # type: ignore[type-arg]  # generic only in the stubs
    return str(getattr(formset.instance, "type", ""))


class ChoiceFormSet(forms.BaseInlineFormSet):  # type: ignore[type-arg]  # generic only in the stubs
    def clean(self) -> None:
        super().clean()
        qtype = _question_type(self)
        if qtype not in ("single_choice", "multiple_choice"):
            return
        rows = _live_forms(self)
        correct = sum(1 for row in rows if row.get("correct"))
        if len(rows) < 2:
            raise ValidationError("A choice question needs at least two choices.")
        if qtype == "single_choice" and correct != 1:
            raise ValidationError("A single-choice question needs exactly one correct choice.")
        if qtype == "multiple_choice" and correct < 1:
            raise ValidationError("A multiple-choice question needs at least one correct choice.")


class RequiredForTypeFormSet(forms.BaseInlineFormSet):  # type: ignore[type-arg]  # generic only in the stubs
    """At least one row when the question has the type this inline belongs to."""

    question_types: tuple[str, ...] = ()
    message = "Add at least one row."

    def clean(self) -> None:
        super().clean()
        if _question_type(self) in self.question_types and not _live_forms(self):
            raise ValidationError(self.message)


class AnswerFormSet(RequiredForTypeFormSet):
    """A numeric or short-text question's answers: at least one, and one that earns marks."""

    def clean(self) -> None:
        super().clean()
        rows = _live_forms(self)
        if not rows or _question_type(self) not in self.question_types:
            return
        if scores_nothing([row.get("fraction") for row in rows]):
            raise ValidationError(sentence(NO_ANSWER_SCORES))


class NumericAnswerFormSet(AnswerFormSet):
    question_types = ("numeric",)
    message = "A numeric question needs at least one answer."


class TextAnswerFormSet(AnswerFormSet):
    question_types = ("short_text",)
    message = "A short-text question needs at least one answer."

    def clean(self) -> None:
        super().clean()
        for row in _live_forms(self):
            if row.get("is_regex"):
                try:
                    re.compile(str(row.get("text", "")))
                except re.error as exc:
                    message = f"{row.get('text')!r} is not a valid regular expression: {exc}"
                    raise ValidationError(message) from exc


class CodeCaseFormSet(RequiredForTypeFormSet):
    question_types = ("code",)
    message = "A code question needs at least one case."


class RubricCriterionFormSet(RequiredForTypeFormSet):
    question_types = ("viva",)
    message = "A viva question needs a rubric of at least one criterion."


class CodeFileFormSet(forms.BaseInlineFormSet):  # type: ignore[type-arg]  # generic only in the stubs
    def clean(self) -> None:
        super().clean()
        rows = _live_forms(self)
        if len(rows) > MAX_CODE_FILES:
            raise ValidationError(f"A code question holds at most {MAX_CODE_FILES} files.")
        names = [str(row.get("name", "")) for row in rows]
        for row in rows:
            name = str(row.get("name", ""))
            if file_kind(name) is None:
                raise ValidationError(f"{name}: {NOT_A_FILE_NAME}.")
            problem = check_python(name, str(row.get("source", "")), defines=None)
            if problem is not None:
                raise ValidationError(f"{name}:{problem[0]} {problem[1]}")
        problems = "; ".join(missing_files(_question_type(self), names))
        if problems:
            raise ValidationError(f"{problems[0].upper()}{problems[1:]}.")


class RubricLevelFormSet(forms.BaseInlineFormSet):  # type: ignore[type-arg]  # generic only in the stubs
    def clean(self) -> None:
        super().clean()
        rows = sorted(_live_forms(self), key=lambda row: row.get("position") or 0)
        if not 3 <= len(rows) <= 4:
            raise ValidationError("A criterion needs 3 or 4 levels.")
        points = [float(row.get("points") or 0) for row in rows]
        if any(b <= a for a, b in zip(points, points[1:], strict=False)):
            raise ValidationError("Levels go from weakest to strongest: points must rise.")
