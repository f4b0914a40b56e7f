"""Inlines of the question admin: answers, cases, files, rubric and read-only history."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.admin.options import InlineModelAdmin
from django.http import HttpRequest

from quizbank.admin import forms
from quizbank.models import (
    Choice,
    CodeCase,
    CodeFile,
    CourseMembership,
    NumericAnswer,
    QuestionVersion,
    RubricCriterion,
    RubricLevel,
    TextAnswer,
    Topic,
)


class CourseMembershipInline(admin.TabularInline):  # type: ignore[type-arg]  # generic only in the stubs
    model = CourseMembership
    extra = 0
    raw_id_fields = ["user"]


class TopicInline(admin.TabularInline):  # type: ignore[type-arg]  # generic only in the stubs
    model = Topic
    extra = 0
    fields = ["position", "slug", "title", "description"]


class ChoiceInline(admin.TabularInline):  # type: ignore[type-arg]  # generic only in the stubs
    model = Choice
    formset = forms.ChoiceFormSet
    extra = 0
    fields = ["position", "text", "correct", "feedback"]


class NumericAnswerInline(admin.TabularInline):  # type: ignore[type-arg]  # generic only in the stubs
    model = NumericAnswer
    formset = forms.NumericAnswerFormSet
    extra = 0
    fields = [
        "position",
        "value",
        "value_param",
        "tolerance",
        "tolerance_mode",
        "fraction",
        "feedback",
    ]


class TextAnswerInline(admin.TabularInline):  # type: ignore[type-arg]  # generic only in the stubs
    model = TextAnswer
    formset = forms.TextAnswerFormSet
    extra = 0
    fields = ["position", "text", "is_regex", "fraction", "feedback"]


class CodeCaseInline(admin.StackedInline):  # type: ignore[type-arg]  # generic only in the stubs
    model = CodeCase
    formset = forms.CodeCaseFormSet
    extra = 0
    fields = ["position", "name", "weight", "hidden", "spec"]


class CodeFileInline(admin.StackedInline):  # type: ignore[type-arg]  # generic only in the stubs
    model = CodeFile
    formset = forms.CodeFileFormSet
    extra = 0
    fields = ["kind", "name", "source"]


class RubricCriterionInline(admin.TabularInline):  # type: ignore[type-arg]  # generic only in the stubs
    """Criteria on the question; their levels are edited on the criterion's own page."""

    model = RubricCriterion
    formset = forms.RubricCriterionFormSet
    extra = 0
    fields = ["position", "title", "description"]
    show_change_link = True


class RubricLevelInline(admin.TabularInline):  # type: ignore[type-arg]  # generic only in the stubs
    model = RubricLevel
    formset = forms.RubricLevelFormSet
    extra = 0
    fields = ["position", "label", "points", "descriptor"]


class QuestionVersionInline(admin.TabularInline):  # type: ignore[type-arg]  # generic only in the stubs
    """The history: versions are immutable, so this inline only shows them."""

    model = QuestionVersion
    extra = 0
    fields = ["number", "content_hash", "created_at", "created_by"]
    readonly_fields = ["number", "content_hash", "created_at", "created_by"]
    ordering = ["-number"]
    show_change_link = True
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


# Which answer inlines a question of each type shows (all of them while adding).
TYPE_INLINES: dict[str, tuple[type[InlineModelAdmin[Any, Any]], ...]] = {
    "single_choice": (ChoiceInline,),
    "multiple_choice": (ChoiceInline,),
    "true_false": (),
    "numeric": (NumericAnswerInline,),
    "short_text": (TextAnswerInline,),
    "code": (CodeCaseInline, CodeFileInline),
    "viva": (RubricCriterionInline,),
}
ALL_ANSWER_INLINES = (
    ChoiceInline,
    NumericAnswerInline,
    TextAnswerInline,
    CodeCaseInline,
    CodeFileInline,
    RubricCriterionInline,
)
