"""Importing a Moodle XML, GIFT or QTI file: upload, preview (a dry run of the same service
the API and the command use), confirm. Only a course's authors may do it, by the one access
rule; the uploaded bytes wait in the session between the two steps. Served as an author's
page (/author/courses/<id>/import/) and in the admin, with the same form and steps; and the
export of a course's bank as a file, on the same two sides."""

from __future__ import annotations

import base64
import secrets
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from config.exceptions import DomainError
from quizbank.access import AUTHORS, access_course, courses_for
from quizbank.interchange.formats import FORMAT_NAMES, FORMATS
from quizbank.interchange.limits import max_file_bytes
from quizbank.models import Course
from quizbank.services.interchange import interchange_export, interchange_import

_SESSION_KEY = "interchange_upload"


class InterchangeImportForm(forms.Form):
    course = forms.ModelChoiceField(queryset=Course.objects.none())
    format = forms.ChoiceField(choices=[(name, FORMAT_NAMES[name]) for name in FORMATS])
    file = forms.FileField()

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["course"].queryset = courses_for(user, AUTHORS)  # type: ignore[attr-defined]  # a ModelChoiceField

    def clean_file(self) -> Any:
        upload = self.cleaned_data["file"]
        if upload.size > max_file_bytes():
            raise forms.ValidationError(f"The file is over {max_file_bytes()} bytes.")
        return upload


def import_steps(request: HttpRequest, course: Course | None = None) -> dict[str, Any]:
    """The page's context: GET the form (for `course` if given); POST with a file the
    preview; POST `confirm` the import itself."""
    if request.method == "POST" and "confirm" in request.POST:
        return _confirm(request, course)
    form = _form(request, course, bound=request.method == "POST")
    context: dict[str, Any] = {"form": form}
    if request.method == "POST" and form.is_valid():
        chosen = access_course(request.user, form.cleaned_data["course"].pk, AUTHORS)
        data = form.cleaned_data["file"].read()
        fmt = form.cleaned_data["format"]
        try:
            user = request.user if request.user.is_authenticated else None
            report = interchange_import(course=chosen, fmt=fmt, data=data, dry_run=True, user=user)
        except DomainError as exc:
            form.add_error("file", exc.message)
        else:
            token = secrets.token_urlsafe(16)
            request.session[_SESSION_KEY] = {
                "token": token,
                "course": chosen.pk,
                "format": fmt,
                "data": base64.b64encode(data).decode(),
            }
            context.update(report=report, preview=True, course=chosen, token=token)
    return context


def _form(
    request: HttpRequest, course: Course | None, *, bound: bool = False
) -> InterchangeImportForm:
    """The upload form, for `course` when the page is that course's own (no course to
    choose there)."""
    initial = {"course": course.pk} if course is not None else {}
    data, files = (request.POST, request.FILES) if bound else (None, None)
    form = InterchangeImportForm(data, files, user=request.user, initial=initial)
    if course is not None:
        form.fields["course"].widget = forms.HiddenInput()
    return form


def _confirm(request: HttpRequest, page_course: Course | None) -> dict[str, Any]:
    """Import the file of the preview the form names. The session keeps only the latest
    preview: a form from an earlier one (another tab previewed since) or from another
    course's page imports nothing, so what is written is always what the page showed."""
    pending = request.session.get(_SESSION_KEY)
    form = _form(request, page_course)
    token = request.POST.get("token", "")
    if pending is None:
        return {
            "form": form,
            "error": "Nothing imported: this preview was imported already, or has expired. "
            "Upload the file again to import it.",
        }
    if not secrets.compare_digest(str(pending.get("token", "")), token):
        return {
            "form": form,
            "error": "Nothing imported: this preview is no longer the latest one of this "
            "browser (another tab or window previewed a file since). Upload the file again.",
        }
    if page_course is not None and int(pending["course"]) != page_course.pk:
        return {"form": form, "error": "Nothing imported: that preview was for another course."}
    # A double click sends two confirms with one session: the first claims the preview. (The
    # cache is shared by the processes that share a CACHE_URL; where it is not, the second
    # import finds every question in place and changes nothing.)
    if not cache.add(f"interchange-confirm:{token}", True, timeout=3600):
        return {
            "form": form,
            "error": "Nothing imported again: this preview is being imported already "
            "(a second click).",
            "course": page_course,
        }
    del request.session[_SESSION_KEY]
    course = access_course(request.user, int(pending["course"]), AUTHORS)
    data = base64.b64decode(pending["data"])
    user = request.user if request.user.is_authenticated else None
    try:
        report = interchange_import(course=course, fmt=pending["format"], data=data, user=user)
    except DomainError as exc:
        return {"form": form, "error": exc.message, "course": course}
    return {"form": form, "report": report, "done": True, "course": course}


@login_required
@require_http_methods(["GET", "POST"])
def import_page(request: HttpRequest, course_id: int) -> HttpResponse:
    course = access_course(request.user, course_id, roles=AUTHORS)
    context = {"course": course, **import_steps(request, course)}
    return render(request, "quizbank/author/import.html", context)


def export_response(request: HttpRequest, course: Course, fmt: str) -> HttpResponse:
    """The course's bank as a file in `fmt`, for one of its authors."""
    course = access_course(request.user, course.pk, AUTHORS)
    exported = interchange_export(course=course, fmt=fmt)
    reply = HttpResponse(exported.data, content_type=exported.content_type)
    reply["Content-Disposition"] = f'attachment; filename="{exported.filename}"'
    reply["X-Skipped-Questions"] = str(len(exported.skipped))
    return reply


@login_required
@require_GET
def export_page(request: HttpRequest, course_id: int) -> HttpResponse:
    """`?format=moodle|gift|qti`: the file, or back to the questions with what went wrong."""
    course = access_course(request.user, course_id, roles=AUTHORS)
    try:
        return export_response(request, course, str(request.GET.get("format", ""))[:20])
    except DomainError as refused:
        messages.error(request, f"Not exported: {refused.message}")
        return redirect("quizbank-pages:question-list", course_id=course.pk)
