"""The release page of a quiz: what is not final yet, then release (examiners)."""

from datetime import datetime
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from config.exceptions import DomainError
from config.fields import id_from_text
from grading.models.release import QuizRelease
from grading.services.release import (
    ReleaseOverride,
    quiz_release_history,
    quiz_results_release,
    release_blockers,
    release_pending_attempts,
    released_not_final,
)
from quizbank.access import access_quiz
from quizbank.models import Quiz, Role


@login_required
@require_http_methods(["GET", "POST"])
def quiz_release_page(request: HttpRequest, quiz_id: int) -> HttpResponse:
    """GET: the answers a release would show before they are final; POST: release."""
    quiz = access_quiz(request.user, quiz_id, roles=[Role.EXAMINER])
    if request.method == "POST" and isinstance(request.user, User):
        override = _override(request) if "override" in request.POST else None
        now = timezone.now()
        try:
            release = quiz_results_release(
                quiz=quiz, actor=request.user, now=now, override=override
            )
        except DomainError as refused:
            messages.error(request, f"Not released: {refused.message}")
            if override is None:
                return redirect("grading-pages:quiz-release", quiz_id=quiz.pk)
            # The reason is shown again as typed: the answers listed may have changed since
            # the page was loaded, and releasing anyway with the fresh list needs it again.
            context = _context(quiz, typed_reason=request.POST.get("reason", ""))
            return render(request, "grading/release.html", context)
        messages.success(request, _released(release, now))
        return redirect("grading-pages:quiz-release", quiz_id=quiz.pk)
    return render(request, "grading/release.html", _context(quiz, typed_reason=None))


def _context(quiz: Quiz, *, typed_reason: str | None) -> dict[str, Any]:
    return {
        "quiz": quiz,
        "blockers": release_blockers(quiz),
        "released_pending": released_not_final(quiz),
        "pending": release_pending_attempts(quiz).count(),
        "history": quiz_release_history(quiz).select_related("actor"),
        "typed_reason": typed_reason,
    }


def _released(release: QuizRelease, now: datetime) -> str:
    if release.created_at != now:  # the release that stands: nothing new was shown
        return "Nothing new to release: every submitted attempt's results are released already."
    count = len(release.attempts)
    return (
        f"Results of {count} attempt{pluralize(count)} released: their students can see them now."
    )


# The most answers one page's override names (far more than any one release page lists).
MAX_LISTED = 100_000


def _override(request: HttpRequest) -> ReleaseOverride:
    """The answers the page listed as not final (released anyway, as the examiner saw them:
    one that became a blocker since is not named, so the release is refused) and why. The
    answers come as one field of comma-separated ids: one field each would stop at Django's
    limit on the number of fields (DATA_UPLOAD_MAX_NUMBER_FIELDS) with a bare 400."""
    listed = request.POST.get("responses", "").split(",", MAX_LISTED)[:MAX_LISTED]
    named = (id_from_text(value.strip()) for value in listed)
    return ReleaseOverride(
        responses=frozenset(pk for pk in named if pk is not None),
        reason=request.POST.get("reason", "")[:2000],
    )
