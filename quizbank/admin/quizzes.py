"""Quizzes in the admin: settings, slots and each student's access override."""

from django.contrib import admin

from quizbank.models import SLOT_FIELDS, Quiz, QuizAccessOverride, QuizSlot


class QuizSlotInline(admin.TabularInline):  # type: ignore[type-arg]  # generic only in the stubs
    model = QuizSlot
    extra = 0
    fields = list(SLOT_FIELDS)
    raw_id_fields = ["question"]


class QuizAccessOverrideInline(admin.TabularInline):  # type: ignore[type-arg]  # generic only in the stubs
    model = QuizAccessOverride
    extra = 0
    fields = ["user", "extra_time_percent", "extra_attempts", "opens_at", "closes_at", "reason"]
    raw_id_fields = ["user"]


@admin.register(Quiz)
class QuizAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # generic only in the stubs
    list_display = [
        "title",
        "slug",
        "course",
        "opens_at",
        "closes_at",
        "time_limit",
        "attempts_allowed",
        "release_policy",
        "released_at",
    ]
    list_filter = ["course", "release_policy", "grading_method"]
    search_fields = ["slug", "title", "course__slug"]
    date_hierarchy = "opens_at"
    readonly_fields = ["released_at", "created_at"]
    inlines = [QuizSlotInline, QuizAccessOverrideInline]
