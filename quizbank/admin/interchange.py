"""The admin's import page; its steps are quizbank/pages/importing.py's."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from quizbank.pages.importing import import_steps


def interchange_import_view(request: HttpRequest) -> HttpResponse:
    """The import's steps (quizbank/pages/importing.py) in the admin's layout."""
    return _render(request, import_steps(request))


def _render(request: HttpRequest, context: dict[str, Any]) -> HttpResponse:
    context.update(admin.site.each_context(request), title="Import questions from a file")
    return TemplateResponse(request, "admin/quizbank/interchange_import.html", context)
