"""What a student sees of a drawn question: an explicit allow-list, never the content dict.

Correct flags, accepted answers, reference and wrong solutions, generators,
hidden cases, model answers, guidance and rubrics are never copied out.
"""

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
from grading.services.attempts import PENDING, answers_close_at
from quizbank.access import AnyUser, user_id
from quizbank.rendering import render_markdown


def _prompt_html(response: Response) -> str:
    if not response.params:
        return response.question_version.prompt_html
    # Substitute in the Markdown and render again: highlighting splits `{{x}}` across spans.
    prompt = str(response.question_version.content.get("prompt", ""))
    return render_markdown(str(substitute(prompt, _text_params(response))))


def _text_params(response: Response) -> dict[str, str]:
    return {name: str(value) for name, value in response.params.items()}


def _choices(content: dict[str, Any], response: Response) -> list[dict[str, Any]]:
    choices = content.get("choices", [])
    order = response.choice_order or list(range(len(choices)))
    texts = {
        index: str(substitute(str(choices[index].get("text", "")), response.params))
        for index in order
        if 0 <= index < len(choices)
    }
    return [
        {"id": index, "text": text, "html": render_markdown(text)} for index, text in texts.items()
    ]


def _extras(qtype: str, content: dict[str, Any], response: Response) -> dict[str, Any]:
    if qtype in ("single_choice", "multiple_choice"):
        return {"choices": _choices(content, response)}
    if qtype == "numeric":
        return {"unit": str(content.get("unit", ""))}
    if qtype == "code":
        return {
            "entry_point": str(content.get("entry_point", "")),
            "starter_code": str(content.get("starter_code", "")),
        }
    if qtype == "viva":
        return {"mode": str(content.get("mode", "written"))}
    return {}


def student_question(response: Response) -> dict[str, Any]:
    """The question as the student sees it, with this variant's parameters filled in."""
    content = response.question_version.content
    qtype = str(content.get("type", ""))
    return {
        "type": qtype,
        "title": str(content.get("title", "")),
        "prompt_html": _prompt_html(response),
        "points": response.points,
        **_extras(qtype, content, response),
    }


def _points(response: Response, score: float | None) -> Decimal | None:
    if score is None:
        return None
    return (Decimal(str(score)) * response.points).quantize(Decimal("0.001"))


def _response_view(response: Response, visible: bool, update: ScoreUpdate | None) -> dict[str, Any]:
    shown = update if visible else None
    return {
        "position": response.position,
        "question": student_question(response),
        "answer": response.answer,
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
    # Answers first, then the attempt's totals: grading commits both at once, so answers read
    # as graded are never shown beside totals read from before that commit.
    responses = list(attempt_responses(attempt))
    attempt.refresh_from_db(fields=["status", "score", "max_score", "graded_at"])
    visible = results_visible(user, attempt, now)
    pending = attempt.status == AttemptStatus.SUBMITTED
    # The owner never sees a total that may still change as if it were final.
    total_shown = visible and (attempt.user_id != user_id(user) or not pending)
    updates = score_updates(attempt, now) if visible else {}
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
    keys = ("position", "status", "pending", "score", "points_awarded", "feedback",
            "updated_at", "previous_score", "previous_points_awarded")  # fmt: skip
    questions = [
        {"title": r["question"]["title"], "type": r["question"]["type"],
         "points": r["question"]["points"], **{k: r[k] for k in keys}}
        for r in full["responses"]
    ]  # fmt: skip
    totals = ("status", "results_visible", "pending", "score", "final_score", "max_score",
              "updated_at")  # fmt: skip
    return {"attempt": attempt.pk, **{k: full[k] for k in totals}, "questions": questions}
