"""Server-rendered pages: the home page, the author's question preview, question images."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_safe

from config.fields import id_from_text
from quizbank.access import AUTHORS, access_asset, access_question, questions_for
from quizbank.models import Course, QuestionVersion, Role
from quizbank.presenters import student_fields
from quizbank.rendering import pygments_css, render_markdown
from quizbank.selectors import question_versions


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    courses = Course.objects.order_by("title")
    return render(request, "quizbank/home.html", {"courses": courses})


@require_safe
@login_required
def question_preview(request: HttpRequest, pk: int) -> HttpResponse:
    """A version of a question as a student sees it: no answers, feedback or solutions.
    For the course's authors and examiners (the one access rule; staff status is no role)."""
    question = access_question(request.user, pk, roles=(Role.AUTHOR, Role.EXAMINER))
    asked = request.GET.get("version")
    number = id_from_text(asked) if asked else None
    if asked and number is None:
        raise Http404("This question has no such version.")
    version = (
        question_versions(question).filter(number=number).first()
        if number is not None
        else question.current_version
    )
    if version is None:
        raise Http404("This question has no such version.")
    can_edit = questions_for(request.user, AUTHORS).filter(pk=question.pk).exists()
    context = {
        "question": question,
        "version": version,
        "pygments_css": pygments_css(),
        "can_edit": can_edit,
    }
    context.update(student_view(version))
    return render(request, "quizbank/preview.html", context)


def student_view(version: QuestionVersion) -> dict[str, Any]:
    """What a student is shown of a version (quizbank.presenters), laid out for the page."""
    fields = student_fields(version.content)
    starter = fields.get("starter_code", "")
    return {
        **fields,
        "qtype": fields["type"],
        "points": version.content.get("points", 1),
        "prompt_html": version.prompt_html,
        "input_type": "radio" if fields["type"] == "single_choice" else "checkbox",
        "starter_html": render_markdown(f"```python\n{starter}\n```") if starter else "",
        "device": version.content.get("device", "cpu"),
    }


@require_GET
def question_asset(request: HttpRequest, digest: str, name: str) -> HttpResponse:
    """An image of a question, for the members of its course. The URL holds its sha256, so
    the bytes behind it never change and a browser may keep them."""
    blob = access_asset(request.user, digest)
    response = HttpResponse(bytes(blob.data), content_type=blob.content_type)
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Security-Policy"] = "default-src 'none'"
    response["Cache-Control"] = "private, max-age=31536000, immutable"
    return response
