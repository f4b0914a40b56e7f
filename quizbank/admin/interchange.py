"""The admin's import page (the steps are quizbank/pages/importing.py's) and export."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from quizbank.access import AUTHORS, access_course
from quizbank.models import Course
from quizbank.pages.importing import import_steps
from quizbank.services.interchange import interchange_export


def interchange_import_view(request: HttpRequest) -> HttpResponse:
    """The import's steps (quizbank/pages/importing.py) in the admin's layout."""
    return _render(request, import_steps(request))


def _render(request: HttpRequest, context: dict[str, Any]) -> HttpResponse:
    context.update(admin.site.each_context(request), title="Import questions from a file")
    return TemplateResponse(request, "admin/quizbank/interchange_import.html", context)


def export_response(request: HttpRequest, course: Course, fmt: str) -> HttpResponse:
    """The course's bank as a file in `fmt`, for one of its authors."""
    course = access_course(request.user, course.pk, AUTHORS)
    exported = interchange_export(course=course, fmt=fmt)
    reply = HttpResponse(exported.data, content_type=exported.content_type)
    reply["Content-Disposition"] = f'attachment; filename="{exported.filename}"'
    reply["X-Skipped-Questions"] = str(len(exported.skipped))
    return reply
