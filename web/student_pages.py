"""The student's pages: start an attempt, the quiz page, the result page. Each is parse →
access_* → one service → render; answers are saved and submitted by the page's module through
the JSON API (grading/api), so the rules live in one place."""

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST, require_safe

from config.exceptions import DomainError
from config.signin import client_address
from grading.api.presenters import attempt_view
from grading.models import AttemptStatus
from grading.models.viva_sessions import VivaSession
from grading.selectors import access_attempt, access_own_attempt
from grading.services.attempts import MACHINE_GRADING, attempt_start
from grading.services.responses import attempt_close_if_overdue
from quizbank.access import access_quiz
from quizbank.models import Role
from quizbank.rendering import pygments_css
from web.accounts import form_action_login_required


@require_POST
@form_action_login_required
def quiz_start(request: HttpRequest, quiz_id: int) -> HttpResponse:
    """Start (or resume) an attempt and open it; a refusal is a message on the dashboard."""
    quiz = access_quiz(request.user, quiz_id, roles=[Role.STUDENT])
    try:
        attempt = attempt_start(
            quiz=quiz,
            user=request.user,  # type: ignore[arg-type]  # login_required: a User
            now=timezone.now(),
            access_code=request.POST.get("access_code", "")[:64],
            address=client_address(request),
        )
    except DomainError as error:
        # Tagged with the quiz, so its row says it too (beside the access code, say).
        messages.error(request, error.message, extra_tags=f"quiz-{quiz.pk}")
        return redirect(f"{reverse('web:dashboard')}#quiz-{quiz.pk}")
    return redirect("web:attempt", attempt_id=attempt.pk)


def _client_state(view: dict[str, Any]) -> dict[str, Any]:
    """What the page's module needs: the server's clock and each answer's version."""
    return {
        "id": view["id"],
        "deadline": view["deadline"].isoformat() if view["deadline"] else None,
        "server_time": view["server_time"].isoformat(),
        "responses": [
            {
                "position": r["position"],
                "type": r["question"]["type"],
                "version": r["version"],
                "answer": r["answer"],
            }
            for r in view["responses"]
        ],
    }


@require_safe
@never_cache  # Back after a submit must ask the server again, not show the open quiz
@login_required
def attempt_page(request: HttpRequest, attempt_id: int) -> HttpResponse:
    """The quiz page of an open attempt; a submitted one goes to its result."""
    attempt = access_own_attempt(request.user, attempt_id)
    attempt = attempt_close_if_overdue(attempt=attempt, now=timezone.now())
    if attempt.status != AttemptStatus.OPEN:
        return redirect("web:attempt-result", attempt_id=attempt.pk)
    view = attempt_view(request.user, attempt, timezone.now())
    context = {
        "attempt": attempt,
        "view": view,
        "state": _client_state(view),
        "pygments_css": pygments_css(),
        "max_answer_bytes": settings.GRADING_MAX_ANSWER_BYTES,
    }
    return render(request, "web/attempt.html", context)


@require_safe
@never_cache
@login_required
def attempt_result_page(request: HttpRequest, attempt_id: int) -> HttpResponse:
    """What was saved, and scores, feedback and rubric marks once released."""
    attempt = access_attempt(request.user, attempt_id)
    attempt = attempt_close_if_overdue(attempt=attempt, now=timezone.now())
    view = attempt_view(request.user, attempt, timezone.now())
    context = {
        "attempt": attempt,
        "view": view,
        "pygments_css": pygments_css(),
        # A live viva's answers are the examiner's notes of what the student said.
        "live_viva": VivaSession.objects.filter(attempt=attempt).exists(),
        # The page polls only while the runner grades; a person's marking can take days.
        "machine_grading": any(r["status"] in MACHINE_GRADING for r in view["responses"]),
    }
    return render(request, "web/result.html", context)
