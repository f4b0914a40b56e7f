"""Server-rendered pages: the home page and the author's question preview."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from quizbank.access import access_question
from quizbank.models import Course, QuestionVersion, Role
from quizbank.rendering import pygments_css, render_markdown
from quizbank.selectors import question_versions


def home(request: HttpRequest) -> HttpResponse:
    courses = Course.objects.order_by("title")
    return render(request, "quizbank/home.html", {"courses": courses})


@login_required
def question_preview(request: HttpRequest, pk: int) -> HttpResponse:
    """A version of a question as a student sees it: no answers, feedback or solutions.
    For the course's authors and examiners (the one access rule; staff status is no role)."""
    question = access_question(request.user, pk, roles=(Role.AUTHOR, Role.EXAMINER))
    number = request.GET.get("version")
    version = (
        question_versions(question).filter(number=number).first()
        if number and number.isdigit()
        else question.current_version
    )
    if version is None:
        raise Http404("This question has no such version.")
    context = {"question": question, "version": version, "pygments_css": pygments_css()}
    context.update(student_view(version))
    return render(request, "quizbank/preview.html", context)


def student_view(version: QuestionVersion) -> dict[str, Any]:
    """What a student is shown of a version; answers and examiner notes stay out."""
    content = version.content
    qtype = content["type"]
    view: dict[str, Any] = {
        "qtype": qtype,
        "title": content["title"],
        "points": content.get("points", 1),
        "prompt_html": version.prompt_html,
    }
    if qtype in ("single_choice", "multiple_choice"):
        view["input_type"] = "radio" if qtype == "single_choice" else "checkbox"
        view["choices"] = [render_markdown(choice["text"]) for choice in content["choices"]]
    elif qtype == "numeric":
        view["unit"] = content.get("unit", "")
    elif qtype == "code":
        view["entry_point"] = content["entry_point"]
        starter = content.get("starter_code", "")
        view["starter_html"] = render_markdown(f"```python\n{starter}\n```") if starter else ""
        view["device"] = content.get("device", "cpu")
    elif qtype == "viva":
        view["mode"] = content["mode"]
    return view
