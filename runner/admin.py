from django.contrib import admin

from runner.models import JobRecord


@admin.register(JobRecord)
class JobRecordAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # ModelAdmin is generic only in the stubs
    list_display = ["job_id", "kind", "state", "status", "score", "deliveries", "created_at"]
    list_filter = ["kind", "state", "status"]
    search_fields = ["job_id"]
    readonly_fields = [
        "job_id",
        "kind",
        "state",
        "status",
        "score",
        "result",
        "deliveries",
        "created_at",
        "finished_at",
    ]
