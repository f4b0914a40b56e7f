"""Importing a Moodle XML, GIFT or QTI file in the admin: upload, preview (a dry run of the
same service the API and the command use), confirm. Only a course's authors may do it,
by the one access rule; the uploaded bytes wait in the session between the two steps."""

from __future__ import annotations

import base64
from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from config.exceptions import DomainError
from quizbank.access import AUTHORS, access_course, courses_for
from quizbank.interchange.formats import FORMATS
from quizbank.interchange.limits import max_file_bytes
from quizbank.models import Course
from quizbank.services.interchange import interchange_export, interchange_import

_SESSION_KEY = "interchange_upload"
_FORMAT_NAMES = {"moodle": "Moodle XML", "gift": "GIFT", "qti": "QTI 2.1/3.0 item or package"}


class InterchangeImportForm(forms.Form):
    course = forms.ModelChoiceField(queryset=Course.objects.none())
    format = forms.ChoiceField(choices=[(name, _FORMAT_NAMES[name]) for name in FORMATS])
    file = forms.FileField()

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["course"].queryset = courses_for(user, AUTHORS)  # type: ignore[attr-defined]  # a ModelChoiceField

    def clean_file(self) -> Any:
        upload = self.cleaned_data["file"]
        if upload.size > max_file_bytes():
            raise forms.ValidationError(f"The file is over {max_file_bytes()} bytes.")
        return upload


def interchange_import_view(request: HttpRequest) -> HttpResponse:
    """GET: the form; POST with a file: the preview; POST `confirm`: the import itself."""
    if request.method == "POST" and "confirm" in request.POST:
        return _confirm(request)
    form = InterchangeImportForm(request.POST or None, request.FILES or None, user=request.user)
    context: dict[str, Any] = {"form": form}
    if request.method == "POST" and form.is_valid():
        course = access_course(request.user, form.cleaned_data["course"].pk, AUTHORS)
        data = form.cleaned_data["file"].read()
        fmt = form.cleaned_data["format"]
        try:
            report = interchange_import(course=course, fmt=fmt, data=data, dry_run=True)
        except DomainError as exc:
            form.add_error("file", exc.message)
        else:
            request.session[_SESSION_KEY] = {
                "course": course.pk,
                "format": fmt,
                "data": base64.b64encode(data).decode(),
            }
            context.update(report=report, preview=True)
    return _render(request, context)


def _confirm(request: HttpRequest) -> HttpResponse:
    pending = request.session.pop(_SESSION_KEY, None)
    form = InterchangeImportForm(user=request.user)
    if pending is None:
        return _render(
            request, {"form": form, "error": "Nothing to import: upload the file again."}
        )
    course = access_course(request.user, int(pending["course"]), AUTHORS)
    data = base64.b64decode(pending["data"])
    user = request.user if request.user.is_authenticated else None
    try:
        report = interchange_import(
            course=course,
            fmt=pending["format"],
            data=data,
            user=user,
        )
    except DomainError as exc:
        return _render(request, {"form": form, "error": exc.message})
    return _render(request, {"form": form, "report": report, "done": True})


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
