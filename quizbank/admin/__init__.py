"""Authoring in the Django admin: every save ends in `question_snapshot`."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.options import InlineModelAdmin
from django.db.models import QuerySet
from django.forms import BaseFormSet, ModelForm
from django.http import HttpRequest
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html

from config.exceptions import DomainError
from quizbank.admin import inlines, quizzes  # noqa: F401  (registers the quiz admin)
from quizbank.admin.forms import QuestionForm
from quizbank.admin.interchange import interchange_import_view
from quizbank.models import Course, Question, QuestionVersion, RubricCriterion, Topic
from quizbank.pages.importing import export_response
from quizbank.services.versioning import question_snapshot


def _snapshot_message(request: HttpRequest, question: Question) -> None:
    version = question_snapshot(question=question, user=request.user)
    if version is None:
        messages.info(request, f"{question.slug}: content unchanged, no new version.")
    else:
        messages.success(request, f"{question.slug}: saved as version {version.number}.")


@admin.register(Course)
class CourseAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # generic only in the stubs
    list_display = ["slug", "title", "created_at"]
    search_fields = ["slug", "title"]
    inlines = [inlines.TopicInline, inlines.CourseMembershipInline]

    actions = ["export_moodle", "export_gift", "export_qti"]

    def _export(self, request: HttpRequest, queryset: QuerySet[Course], fmt: str) -> Any:
        if queryset.count() != 1:
            self.message_user(request, "Pick exactly one course to export.", messages.ERROR)
            return None
        try:
            return export_response(request, queryset.get(), fmt)
        except DomainError as exc:
            self.message_user(request, exc.message, messages.ERROR)
            return None

    @admin.action(description="Export the course as Moodle XML")
    def export_moodle(self, request: HttpRequest, queryset: QuerySet[Course]) -> Any:
        return self._export(request, queryset, "moodle")

    @admin.action(description="Export the course as GIFT")
    def export_gift(self, request: HttpRequest, queryset: QuerySet[Course]) -> Any:
        return self._export(request, queryset, "gift")

    @admin.action(description="Export the course as a QTI 3.0 package")
    def export_qti(self, request: HttpRequest, queryset: QuerySet[Course]) -> Any:
        return self._export(request, queryset, "qti")

    def get_urls(self) -> list[URLPattern]:
        upload = self.admin_site.admin_view(interchange_import_view)
        own = [path("import-file/", upload, name="quizbank_course_import_file")]
        return own + super().get_urls()


@admin.register(Topic)
class TopicAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # generic only in the stubs
    list_display = ["slug", "title", "course", "position"]
    list_filter = ["course"]
    search_fields = ["slug", "title"]


@admin.register(Question)
class QuestionAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # generic only in the stubs
    form = QuestionForm
    list_display = ["slug", "title", "type", "course", "topic", "version_number", "preview_link"]
    list_filter = ["course", "type", "difficulty", "topic"]
    search_fields = ["slug", "title", "prompt"]
    list_select_related = ["course", "topic", "current_version"]
    readonly_fields = ["current_version", "preview_link"]

    def get_inlines(
        self, request: HttpRequest, obj: Question | None
    ) -> list[type[InlineModelAdmin[Any, Any]]]:
        answers = inlines.TYPE_INLINES.get(obj.type, ()) if obj else inlines.ALL_ANSWER_INLINES
        return [*answers, inlines.QuestionVersionInline] if obj else list(answers)

    def save_related(
        self,
        request: HttpRequest,
        form: ModelForm,  # type: ignore[type-arg]  # generic only in the stubs
        formsets: list[BaseFormSet],  # type: ignore[type-arg]  # generic only in the stubs
        change: bool,
    ) -> None:
        super().save_related(request, form, formsets, change)
        # After the inlines, so the version holds the rows just saved.
        _snapshot_message(request, form.instance)

    @admin.display(description="version")
    def version_number(self, obj: Question) -> str:
        return f"v{obj.current_version.number}" if obj.current_version else "-"

    @admin.display(description="preview")
    def preview_link(self, obj: Question) -> str:
        if obj.pk is None:
            return "-"
        url = reverse("quizbank:question-preview", args=[obj.pk])
        return format_html('<a href="{}" target="_blank">Preview</a>', url)


@admin.register(RubricCriterion)
class RubricCriterionAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # generic only in the stubs
    list_display = ["title", "question", "position"]
    list_select_related = ["question"]
    search_fields = ["title", "question__slug"]
    raw_id_fields = ["question"]
    inlines = [inlines.RubricLevelInline]

    def save_related(
        self,
        request: HttpRequest,
        form: ModelForm,  # type: ignore[type-arg]  # generic only in the stubs
        formsets: list[BaseFormSet],  # type: ignore[type-arg]  # generic only in the stubs
        change: bool,
    ) -> None:
        super().save_related(request, form, formsets, change)
        _snapshot_message(request, form.instance.question)

    def delete_model(self, request: HttpRequest, obj: RubricCriterion) -> None:
        question = obj.question
        super().delete_model(request, obj)
        _snapshot_message(request, question)


@admin.register(QuestionVersion)
class QuestionVersionAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # generic only in the stubs
    """Read-only history; nobody adds, edits or deletes versions here."""

    list_display = ["question", "number", "content_hash", "created_at", "created_by"]
    list_filter = ["question__course"]
    search_fields = ["question__slug", "content_hash"]
    list_select_related = ["question", "created_by"]
    fields = ["question", "number", "content_hash", "created_at", "created_by", "content"]
    readonly_fields = ["question", "number", "content_hash", "created_at", "created_by", "content"]
    actions = None

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_queryset(self, request: HttpRequest) -> QuerySet[QuestionVersion]:
        return super().get_queryset(request).select_related("question", "created_by")
