"""What a student sees of a drawn question and of their attempt (quizbank.presenters holds
the allow-list of a question's fields, shared with the authors' preview)."""

from dataclasses import dataclass
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
from grading.services.responses import answer_as_shown, feedback_as_shown
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


def _response_scores(
    response: Response, visible: bool, update: ScoreUpdate | None
) -> dict[str, Any]:
    """The answer's status, and its score and feedback where `visible`."""
    shown = update if visible else None
    return {
        "status": response.status,
        # Waiting for the runner or a marker: no score yet, which is not a score of 0.
        "pending": response.status in PENDING,
        "score": response.score if visible else None,
        "points_awarded": _points(response, response.score) if visible else None,
        "feedback": feedback_as_shown(response) if visible else None,
        "updated_at": shown.updated_at if shown else None,
        "previous_score": shown.previous if shown else None,
        "previous_points_awarded": _points(response, shown.previous) if shown else None,
    }


@dataclass(frozen=True)
class _Shown:
    """What `user` may see of an attempt now."""

    responses: list[Response]
    visible: bool
    updates: dict[int, ScoreUpdate]
    totals: dict[str, Any]

    def scores(self, response: Response) -> dict[str, Any]:
        return _response_scores(response, self.visible, self.updates.get(response.pk))


def _shown(
    user: AnyUser, attempt: Attempt, now: datetime, responses: list[Response] | None
) -> _Shown:
    """Scores and feedback only where the release policy allows; the student sees no total
    while any answer is pending, and is told of changed marks. `responses`, when given, are
    the attempt's answers as `attempt_responses` reads them."""
    if responses is None:
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
    totals = {
        "status": attempt.status,
        "results_visible": visible,
        "pending": pending,
        "score": attempt.score if total_shown else None,
        "final_score": attempt_final_score(attempt) if total_shown else None,
        "max_score": attempt.max_score,
        "updated_at": max((u.updated_at for u in updates.values()), default=None),
    }
    return _Shown(responses, visible, updates, totals)


def attempt_view(
    user: AnyUser, attempt: Attempt, now: datetime, responses: list[Response] | None = None
) -> dict[str, Any]:
    """The attempt for `user`, its questions and answers with what `_shown` allows."""
    shown = _shown(user, attempt, now, responses)
    return {
        "id": attempt.pk,
        "quiz": attempt.quiz_id,
        "user": attempt.user_id,
        "number": attempt.number,
        "started_at": attempt.started_at,
        "deadline": attempt.deadline,
        "answers_close_at": answers_close_at(attempt),
        "server_time": now,
        "submitted_at": attempt.submitted_at,
        "auto_submitted": attempt.auto_submitted,
        **shown.totals,
        "responses": [
            {
                "position": r.position,
                "question": student_question(r),
                "answer": answer_as_shown(r),
                "version": r.version,
                "saved_at": r.saved_at,
                **shown.scores(r),
            }
            for r in shown.responses
        ],
    }


def attempt_result(
    user: AnyUser, attempt: Attempt, now: datetime, responses: list[Response] | None = None
) -> dict[str, Any]:
    """A compact result: per-question status always, scores and feedback once visible (the
    questions by title, type and points only: nothing of their text is rendered)."""
    shown = _shown(user, attempt, now, responses)
    questions = [
        {
            "title": str(r.question_version.content.get("title", "")),
            "type": str(r.question_version.content.get("type", "")),
            "points": r.points,
            "position": r.position,
            **shown.scores(r),
        }
        for r in shown.responses
    ]
    return {"attempt": attempt.pk, **shown.totals, "questions": questions}
