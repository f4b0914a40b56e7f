"""The authors' import and export endpoints: permissions, the report, and errors in the one
shape (`file_refused`, `file_too_large`, invalid fields), with nothing written on refusal."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from rest_framework.test import APIClient

from quizbank.models import Course, Quiz, Role
from tests.quizbank.factories import make_course, make_membership, make_user
from tests.quizbank.interchange.helpers import THIRD_PARTY
from tests.quizbank.interchange.test_hostile_files import BILLION_LAUGHS

pytestmark = pytest.mark.django_db
NUMERICAL = THIRD_PARTY / "moodle_xml/moodle-qtype_numerical/testquestion.moodle.xml"


@pytest.fixture
def course() -> Course:
    return make_course(slug="target")


def client_for(course: Course, role: str | None) -> APIClient:
    client = APIClient()
    if role is not None:
        user = make_user(username=f"{role}-user")
        make_membership(course=course, user=user, role=role)
        client.force_authenticate(user)
    return client


def upload(client: APIClient, course: Course, data: bytes, **fields: Any) -> Any:
    body = {"format": "moodle", "file": SimpleUploadedFile("bank.xml", data), **fields}
    return client.post(f"/api/courses/{course.pk}/bank/import/", body, format="multipart")


def test_an_author_imports_and_gets_the_report(course: Course) -> None:
    reply = upload(client_for(course, Role.AUTHOR), course, NUMERICAL.read_bytes())
    assert reply.status_code == 201, reply.content
    report = reply.json()
    assert report["counts"] == {"created": 1}
    assert report["by_type"] == {"numeric": 1}
    assert report["questions"][0]["slug"] == "numerical-001"
    assert any("hints" in note for note in report["questions"][0]["notes"])
    assert course.questions.get().slug == "numerical-001"


def test_an_import_that_writes_nothing_answers_200_not_201(course: Course) -> None:
    client = client_for(course, Role.AUTHOR)
    assert upload(client, course, NUMERICAL.read_bytes()).status_code == 201
    again = upload(client, course, NUMERICAL.read_bytes())
    assert again.status_code == 200, again.content
    assert again.json()["counts"] == {"unchanged": 1}
    only_skipped = b"<quiz><question type='cloze'><name><text>C</text></name></question></quiz>"
    skipped = upload(client, course, only_skipped)
    assert skipped.status_code == 200, skipped.content
    assert skipped.json()["counts"] == {}
    assert len(skipped.json()["skipped"]) == 1
    assert course.questions.count() == 1


def test_a_dry_run_previews_and_writes_nothing(course: Course) -> None:
    client = client_for(course, Role.AUTHOR)
    reply = upload(client, course, NUMERICAL.read_bytes(), dry_run="true")
    assert reply.status_code == 200
    assert reply.json()["dry_run"] is True
    assert not course.questions.exists()


@pytest.mark.parametrize(
    ("role", "status"), [(Role.STUDENT, 403), (Role.EXAMINER, 403), (None, 401)]
)
def test_only_authors_may_import(course: Course, role: str | None, status: int) -> None:
    reply = upload(client_for(course, role), course, NUMERICAL.read_bytes())
    assert reply.status_code == status
    assert "error" in reply.json()
    assert not course.questions.exists()


def test_an_author_of_another_course_gets_a_404(course: Course) -> None:
    other = make_course(slug="other")
    reply = upload(client_for(other, Role.AUTHOR), course, NUMERICAL.read_bytes())
    assert reply.status_code == 404


def test_a_hostile_file_is_a_400_in_the_error_shape(course: Course) -> None:
    reply = upload(client_for(course, Role.AUTHOR), course, BILLION_LAUGHS)
    assert reply.status_code == 400
    assert reply.json()["error"]["code"] == "file_refused"
    assert not course.questions.exists()


@override_settings(INTERCHANGE_MAX_FILE_BYTES=100)
def test_a_file_over_the_cap_is_a_413(course: Course) -> None:
    reply = upload(client_for(course, Role.AUTHOR), course, NUMERICAL.read_bytes())
    assert reply.status_code == 413
    assert reply.json()["error"]["code"] == "file_too_large"


def test_an_unknown_format_names_the_field(course: Course) -> None:
    reply = upload(client_for(course, Role.AUTHOR), course, b"x", format="blackboard")
    assert reply.status_code == 400
    assert list(reply.json()["error"]["fields"]) == ["format"]


def test_a_json_body_is_a_415(course: Course) -> None:
    client = client_for(course, Role.AUTHOR)
    reply = client.post(
        f"/api/courses/{course.pk}/bank/import/", {"format": "moodle"}, format="json"
    )
    assert reply.status_code == 415


def test_an_author_exports_a_file_and_learns_what_was_left_out(course: Course) -> None:
    client = client_for(course, Role.AUTHOR)
    upload(client, course, NUMERICAL.read_bytes())
    reply = client.get(f"/api/courses/{course.pk}/bank/export/?format=gift")
    assert reply.status_code == 200
    assert reply["Content-Disposition"] == 'attachment; filename="target.gift.txt"'
    assert reply["X-Skipped-Questions"] == "0"
    assert b"::Numerical-001::" in reply.content


def test_exporting_an_empty_course_is_a_400(course: Course) -> None:
    reply = client_for(course, Role.AUTHOR).get(f"/api/courses/{course.pk}/bank/export/?format=qti")
    assert reply.status_code == 400
    assert reply.json()["error"]["code"] == "export_impossible"


def test_a_quiz_of_another_course_is_an_invalid_field(course: Course) -> None:
    other = make_course(slug="other")
    quiz = Quiz.objects.create(course=other, slug="q", title="Q")
    client = client_for(course, Role.AUTHOR)
    reply = client.get(f"/api/courses/{course.pk}/bank/export/?format=qti&quiz={quiz.pk}")
    assert reply.status_code == 400
    assert list(reply.json()["error"]["fields"]) == ["quiz"]


@pytest.mark.parametrize(("role", "status"), [(Role.STUDENT, 403), (None, 401)])
def test_only_authors_may_export(course: Course, role: str | None, status: int) -> None:
    reply = client_for(course, role).get(f"/api/courses/{course.pk}/bank/export/?format=moodle")
    assert reply.status_code == status


def test_a_superuser_may_import(course: Course) -> None:
    client = APIClient()
    client.force_authenticate(User.objects.create(username="root", is_superuser=True))
    assert upload(client, course, NUMERICAL.read_bytes()).status_code == 201
