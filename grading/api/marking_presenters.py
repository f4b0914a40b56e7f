"""What an examiner sees of a viva answer while marking (model answer, guidance, rubric)."""

from collections.abc import Sequence
from typing import Any

from django.utils import timezone

from grading.api.presenters import student_question
from grading.content import variant_content
from grading.models import Response
from grading.models.marking import MarkingState, MarkingStatus
from grading.selectors.marking import marks_hidden, visible_marks
from grading.services.marking.outcome import rubric_of
from grading.services.marking.policy import anonymous_quizzes, names_hidden, student_label
from quizbank.access import AnyUser


def _state(response: Response) -> dict[str, Any]:
    state = MarkingState.objects.filter(response=response).first()
    if state is None:
        return {"status": MarkingStatus.UNMARKED, "second_requested": False, "final_score": None}
    return {
        "status": state.status,
        "second_requested": state.second_requested,
        "final_score": state.final_score,
    }


def student_labels(
    responses: Sequence[Response], *, requested: bool
) -> dict[int, tuple[str, bool]]:
    """Per response id: the student's name or pseudonym, and whether it is a pseudonym (then
    the attempt id stays hidden too: the attempt endpoints lead from it to the student)."""
    policy = anonymous_quizzes(r.attempt.quiz_id for r in responses)
    now = timezone.now()
    labels = {}
    for r in responses:
        hidden = names_hidden(r, policy=r.attempt.quiz_id in policy, requested=requested, now=now)
        labels[r.pk] = (student_label(r, hidden), hidden)
    return labels


def marking_view(user: AnyUser, response: Response, *, anonymous: bool) -> dict[str, Any]:
    """The answer with everything a marker needs; other marks hidden while marking is blind,
    the student's name while marking is anonymous (asked for, or by the quiz's policy)."""
    content = variant_content(
        response.question_version.content, response.params, response.generated_answers
    )
    hidden = marks_hidden(user, response)
    student, pseudonym = student_labels([response], requested=anonymous)[response.pk]
    return {
        "id": response.pk,
        "attempt": None if pseudonym else response.attempt_id,
        "quiz": response.attempt.quiz_id,
        "student": student,
        "anonymous": pseudonym,
        "position": response.position,
        "question": student_question(response),
        "answer": response.answer,
        "model_answer": str(content.get("model_answer", "")),
        "guidance": str(content.get("guidance", "")),
        "rubric": rubric_of(content),
        "marking": _state(response),
        "score": None if hidden else response.score,
        "marks_hidden": hidden,
        "marks": visible_marks(user, response),
    }
