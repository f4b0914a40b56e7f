"""A student without the access code tries to guess it through the attempts API and the
quiz page's start form."""

import pytest
from django.test import Client, override_settings
from drf_spectacular.generators import SchemaGenerator

from grading.models import Attempt
from quizbank.models import Role
from tests.grading.content import NUMERIC
from tests.grading.factories import api_as, member, new_quiz, question

pytestmark = pytest.mark.django_db


@override_settings(ACCESS_CODE_FAILURES=5)
def test_guessing_the_access_code_stops_after_a_few_wrong_tries_even_with_the_right_code() -> None:
    quiz = new_quiz(access_code="4821")
    question_ = question(quiz.course, NUMERIC)
    quiz.slots.create(position=0, question=question_)
    student = member(quiz.course, Role.STUDENT)
    client = api_as(student)
    url = f"/api/quizzes/{quiz.pk}/attempts/"
    for guess in range(5):
        wrong = client.post(url, {"access_code": f"{guess:04d}"}, format="json")
        assert wrong.json()["error"]["code"] == "access_code_wrong"
    locked = client.post(url, {"access_code": "4821"}, format="json")
    assert locked.status_code == 429, locked.content
    assert locked.json()["error"]["fields"] == {"access_code": ["too many wrong tries"]}
    assert locked["Retry-After"] == "900"  # ACCESS_CODE_FAILURE_WINDOW_S, an upper bound
    assert not Attempt.objects.exists()
    other = api_as(member(quiz.course, Role.STUDENT))
    assert other.post(url, {"access_code": "4821"}, format="json").status_code == 201


def test_the_schema_documents_the_429_of_starting_an_attempt() -> None:
    # Schemathesis met the 429 above as a status attempt_start did not list.
    generator = SchemaGenerator()  # type: ignore[no-untyped-call]  # untyped library
    schema = generator.get_schema(request=None, public=True)  # type: ignore[no-untyped-call]
    responses = schema["paths"]["/api/quizzes/{quiz_id}/attempts/"]["post"]["responses"]
    assert "Retry-After" in responses["429"]["headers"]


@override_settings(ACCESS_CODE_FAILURES=3)
def test_the_start_form_counts_wrong_codes_too() -> None:
    quiz = new_quiz(access_code="4821")
    quiz.slots.create(position=0, question=question(quiz.course, NUMERIC))
    browser = Client()
    browser.force_login(member(quiz.course, Role.STUDENT))
    url = f"/quizzes/{quiz.pk}/start/"
    for guess in ("1", "2", "3"):
        browser.post(url, {"access_code": guess})
    page = browser.post(url, {"access_code": "4821"}, follow=True)
    assert "Too many wrong access codes" in page.content.decode()
    assert not Attempt.objects.exists()


@override_settings(ACCESS_CODE_FAILURES=2)
def test_a_missing_access_code_is_asked_for_and_uses_up_no_try() -> None:
    quiz = new_quiz(access_code="4821")
    quiz.slots.create(position=0, question=question(quiz.course, NUMERIC))
    client = api_as(member(quiz.course, Role.STUDENT))
    url = f"/api/quizzes/{quiz.pk}/attempts/"
    for body in ({}, {"access_code": ""}, {"access_code": "   "}):
        missing = client.post(url, body, format="json")
        assert missing.status_code == 403
        assert missing.json()["error"]["fields"] == {"access_code": ["required"]}
        assert "needs an access code" in missing.json()["error"]["message"]
    assert client.post(url, {"access_code": "4821"}, format="json").status_code == 201
