"""The report page's marker-agreement chart counts in words that agree with the number:
"1 pair", "1 criterion"."""

import pytest
from django.utils import timezone

from grading.models.marking import QuizMarkingPolicy
from grading.services.marking.marks import MarkInput, mark_create
from tests.grading.content import VIVA
from tests.grading.factories import browser_as, staffed_quiz, submitted_attempt

pytestmark = pytest.mark.django_db


def test_one_double_marked_answer_is_one_pair_of_one_criterion() -> None:
    staff, _ = staffed_quiz(VIVA)
    QuizMarkingPolicy.objects.create(quiz=staff.quiz, double_marking=True, disagreement_threshold=1)
    attempt = submitted_attempt(staff.quiz, staff.student, {0: {"text": "It adds."}})
    answer = attempt.responses.get(position=0).pk
    for marker, level in ((staff.examiner, 2), (staff.second, 1)):
        mark_create(
            response_id=answer, marker=marker, data=MarkInput(levels=[level]), now=timezone.now()
        )

    page = browser_as(staff.examiner).get(f"/examiner/quizzes/{staff.quiz.pk}/report/").text

    assert ">Mechanism (1 pair)</text>" in page
    assert "<desc>1 criterion marked by two examiners:" in page
    assert "1 pairs" not in page
