"""What a student sees of a drawn question and of their attempt (quizbank.presenters holds
the allow-list of a question's fields, shared with the authors' preview)."""

from datetime import datetime
from decimal import Decimal
from typing import Any

from grading.content import substitute
from grading.models import Attempt, AttemptStatus, Response
from grading.selectors import (
    ScoreUpdate,
    attempt_final_score,
    attempt_responses,
    results_visible,
    score_updates,
)
from grading.selectors.marking import blind_responses
from grading.services.attempts import PENDING, answers_close_at
from grading.services.responses import answer_as_shown
from quizbank.access import AnyUser, user_id
from quizbank.presenters import student_fields
from quizbank.rendering import render_markdown


def _prompt_html(response: Response) -> str:
    if not response.params:
        return response.question_version.prompt_html
    # Substitute in the Markdown and render again: highlighting splits `{{x}}` across spans.
    prompt = str(response.question_version.content.get("prompt", ""))
    return render_markdown(str(substitute(prompt, _text_params(response))))


def _text_params(response: Response) -> dict[str, str]:
    return {name: str(value) for name, value in response.params.items()}


def student_question(response: Response) -> dict[str, Any]:
    """The question as the student sees it, with this variant's parameters filled in."""
    fields = student_fields(
        response.question_version.content,
        choice_order=response.choice_order,
        fill=lambda text: str(substitute(text, response.params)),
    )
    return {**fields, "prompt_html": _prompt_html(response), "points": response.points}


def _points(response: Response, score: float | None) -> Decimal | None:
    if score is None:
        return None
    return (Decimal(str(score)) * response.points).quantize(Decimal("0.001"))


def _response_view(response: Response, visible: bool, update: ScoreUpdate | None) -> dict[str, Any]:
    shown = update if visible else None
    return {
        "position": response.position,
        "question": student_question(response),
        "answer": answer_as_shown(response),
        "version": response.version,
        "saved_at": response.saved_at,
        "status": response.status,
        # Waiting for the runner or a marker: no score yet, which is not a score of 0.
        "pending": response.status in PENDING,
        "score": response.score if visible else None,
        "points_awarded": _points(response, response.score) if visible else None,
        "feedback": response.feedback if visible else None,
        "updated_at": shown.updated_at if shown else None,
        "previous_score": shown.previous if shown else None,
        "previous_points_awarded": _points(response, shown.previous) if shown else None,
    }


def attempt_view(user: AnyUser, attempt: Attempt, now: datetime) -> dict[str, Any]:
    """The attempt for `user`: scores and feedback only where the release policy allows;
    the student sees no total while any answer is pending, and is told of changed marks."""
    responses = attempt_responses(attempt)
    visible = results_visible(user, attempt, now)
    pending = attempt.status == AttemptStatus.SUBMITTED
    # The owner never sees a total that may still change as if it were final.
    total_shown = visible and (attempt.user_id != user_id(user) or not pending)
    updates = score_updates(attempt, now) if visible else {}
    if attempt.user_id != user_id(user):
        # A blind second marker must not learn the first mark from the score it replaced.
        blind = blind_responses(user, responses)
        updates = {pk: u for pk, u in updates.items() if pk not in blind}
    return {
        "id": attempt.pk,
        "quiz": attempt.quiz_id,
        "user": attempt.user_id,
        "number": attempt.number,
        "status": attempt.status,
        "started_at": attempt.started_at,
        "deadline": attempt.deadline,
        "answers_close_at": answers_close_at(attempt),
        "server_time": now,
        "submitted_at": attempt.submitted_at,
        "auto_submitted": attempt.auto_submitted,
        "results_visible": visible,
        "pending": pending,
        "score": attempt.score if total_shown else None,
        "final_score": attempt_final_score(attempt) if total_shown else None,
        "max_score": attempt.max_score,
        "updated_at": max((u.updated_at for u in updates.values()), default=None),
        "responses": [_response_view(r, visible, updates.get(r.pk)) for r in responses],
    }


def attempt_result(user: AnyUser, attempt: Attempt, now: datetime) -> dict[str, Any]:
    """A compact result: per-question status always, scores and feedback once visible."""
    full = attempt_view(user, attempt, now)
    keys = (
        "position",
        "status",
        "pending",
        "score",
        "points_awarded",
        "feedback",
        "updated_at",
        "previous_score",
        "previous_points_awarded",
    )
    questions = [
        {
            "title": r["question"]["title"],
            "type": r["question"]["type"],
            "points": r["question"]["points"],
            **{k: r[k] for k in keys},
        }
        for r in full["responses"]
    ]
    totals = (
        "status",
        "results_visible",
        "pending",
        "score",
        "final_score",
        "max_score",
        "updated_at",
    )
    return {"attempt": attempt.pk, **{k: full[k] for k in totals}, "questions": questions}
