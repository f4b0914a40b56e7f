"""The admin lists quizzes, attempts, responses and marks; grading rows are read-only there."""

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from tests.grading.content import SINGLE, VIVA
from tests.grading.factories import api_as, new_user, staffed_quiz, submitted_attempt

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client() -> Client:
    client = Client()
    client.force_login(new_user(is_staff=True, is_superuser=True))
    return client


def _marked() -> tuple[int, str]:
    staff, _ = staffed_quiz(SINGLE, VIVA)
    attempt = submitted_attempt(staff.quiz, staff.student, {0: {"choice": 0}, 1: {"text": "x"}})
    viva = attempt.responses.get(position=1)
    levels = [0] * len(viva.question_version.content["rubric"])
    reply = api_as(staff.examiner).post(
        f"/api/marking/responses/{viva.pk}/marks/", {"levels": levels}, format="json"
    )
    assert reply.status_code in (200, 201), reply.content
    return attempt.pk, staff.student.username


@pytest.mark.parametrize(
    "model", ["quizbank_quiz", "grading_attempt", "grading_response", "grading_mark"]
)
def test_each_list_shows_the_rows_and_searches(admin_client: Client, model: str) -> None:
    _, username = _marked()
    url = reverse(f"admin:{model}_changelist")
    page = admin_client.get(url)
    assert page.status_code == 200
    assert 'id="result_list"' in page.text  # rendered only when there are rows
    found = admin_client.get(url, {"q": username})
    assert found.status_code == 200
    assert 'id="result_list"' in found.text or model == "quizbank_quiz"


def test_grading_rows_cannot_be_added_changed_or_deleted(admin_client: Client) -> None:
    attempt_id, _ = _marked()
    assert admin_client.get(reverse("admin:grading_attempt_add")).status_code == 403
    change = reverse("admin:grading_attempt_change", args=[attempt_id])
    assert admin_client.post(change, {"status": "open"}).status_code == 403
    delete = reverse("admin:grading_attempt_delete", args=[attempt_id])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    assert User.objects.filter(attempts__pk=attempt_id).exists()
