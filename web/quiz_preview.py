"""A whole quiz previewed as a student would see it (the course's authors and examiners):
the quiz page's own question partial and presenter, drawn with a seed in the query string
(`?seed=`) so a reload shows the same draw and "Draw again" a new one. Nothing is saved."""

import secrets
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from config.exceptions import DomainError
from grading.api.presenters import student_question
from grading.services.preview import PreviewQuestion, quiz_preview
from quizbank.access import access_quiz, course_roles
from quizbank.models import Quiz, Role
from quizbank.rendering import pygments_css

PREVIEWERS = (Role.AUTHOR, Role.EXAMINER)
SEED_BITS = 62  # as an attempt's seed


def _seed(text: str) -> int | None:
    """The seed in the query string, or None when it is not a whole number in range."""
    text = text.strip()
    if not text.isascii() or not text.isdigit() or len(text) > len(str(2**SEED_BITS)):
        return None
    seed = int(text)
    return seed if seed < 2**SEED_BITS else None


def _url(quiz: Quiz, seed: int) -> str:
    return f"{reverse('web:quiz-preview', args=[quiz.pk])}?seed={seed}"


def _question(item: PreviewQuestion) -> dict[str, Any]:
    """What the quiz page's partial reads of a response, for a question nobody answered."""
    response = item.response
    return {
        "position": response.position,
        "question": student_question(response),
        "answer": None,
        "pool_size": item.pool_size,
    }


def _page(request: HttpRequest, quiz: Quiz, context: dict[str, Any], status: int) -> HttpResponse:
    page = {
        "quiz": quiz,
        "draw_again": _url(quiz, secrets.randbits(SEED_BITS)),
        "can_edit": Role.AUTHOR in course_roles(request.user, quiz.course_id),
        **context,
    }
    return render(request, "web/quiz_preview.html", page, status=status)


@require_GET
@login_required
def quiz_preview_page(request: HttpRequest, quiz_id: int) -> HttpResponse:
    """The quiz drawn with `?seed=` (a fresh seed when none is given)."""
    quiz = access_quiz(request.user, quiz_id, roles=PREVIEWERS)
    if "seed" not in request.GET:
        return redirect(_url(quiz, secrets.randbits(SEED_BITS)))
    seed = _seed(request.GET["seed"])
    if seed is None:
        error = f"The seed must be a whole number from 0 to 2^{SEED_BITS} - 1."
        return _page(request, quiz, {"error": error}, status=400)
    try:
        drawn = quiz_preview(quiz=quiz, seed=seed)
    except DomainError as refused:
        return _page(request, quiz, {"error": refused.message, "seed": seed}, status=200)
    questions = [_question(item) for item in drawn]
    context = {"seed": seed, "responses": questions, "pygments_css": pygments_css()}
    return _page(request, quiz, context, status=200)
