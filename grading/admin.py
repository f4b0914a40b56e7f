"""Attempts, responses and marks in the admin: read-only, for looking things up.

Every change goes through the services (marking, release, regrade), which keep the
audit trail; the admin never writes these rows."""

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from grading.models import Attempt, Response
from grading.models.marking import Mark


class ReadOnlyAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # generic only in the stubs
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Attempt)
class AttemptAdmin(ReadOnlyAdmin):
    list_display = [
        "id",
        "quiz",
        "user",
        "number",
        "status",
        "started_at",
        "deadline",
        "submitted_at",
        "score",
        "max_score",
        "live_viva",
        "released_at",
    ]
    list_filter = ["status", "live_viva", "auto_submitted", "quiz__course", "quiz"]
    search_fields = ["user__username", "user__email", "quiz__slug", "quiz__title"]
    date_hierarchy = "started_at"
    list_select_related = ["quiz", "user"]


@admin.register(Response)
class ResponseAdmin(ReadOnlyAdmin):
    list_display = [
        "id",
        "attempt",
        "position",
        "question_version",
        "status",
        "score",
        "points",
        "saved_at",
        "graded_at",
    ]
    list_filter = ["status", "attempt__quiz__course", "attempt__quiz"]
    search_fields = ["attempt__user__username", "question_version__question__slug"]
    list_select_related = ["attempt__quiz", "attempt__user", "question_version__question"]


@admin.register(Mark)
class MarkAdmin(ReadOnlyAdmin):
    list_display = [
        "id",
        "response",
        "marker",
        "role",
        "rubric_points",
        "adjustment",
        "score",
        "updated_at",
    ]
    list_filter = ["role", "response__attempt__quiz__course", "response__attempt__quiz"]
    search_fields = ["marker__username", "response__attempt__user__username", "comment"]
    list_select_related = ["marker", "response__attempt__user"]
