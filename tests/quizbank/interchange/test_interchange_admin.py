"""The admin's import: upload, a preview that writes nothing, then confirm; authors only."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from quizbank.models import Course, Role
from tests.quizbank.factories import make_course, make_membership, make_user
from tests.quizbank.interchange.helpers import THIRD_PARTY
from tests.quizbank.interchange.test_hostile_files import BILLION_LAUGHS

pytestmark = pytest.mark.django_db
URL = "/admin/quizbank/course/import-file/"
GIFT_FILE = THIRD_PARTY / "gift/moodle-format_gift-fixtures/questions.gift.txt"


@pytest.fixture
def course() -> Course:
    return make_course(slug="target")


def staff_client(course: Course, role: str) -> Client:
    user = make_user(username=f"staff-{role}", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_course"))
    make_membership(course=course, user=user, role=role)
    client = Client()
    client.force_login(user)
    return client


def post_file(client: Client, course: Course, data: bytes, fmt: str = "gift") -> str:
    upload = SimpleUploadedFile("bank.txt", data)
    reply = client.post(URL, {"course": course.pk, "format": fmt, "file": upload})
    assert reply.status_code == 200
    return reply.content.decode()


def confirm(page: str) -> dict[str, str]:
    found = re.search(r'name="token" value="([^"]+)"', page)
    assert found is not None, "the preview offers no import"
    return {"confirm": "1", "token": found.group(1)}


def test_preview_then_confirm_imports_what_the_preview_showed(course: Course) -> None:
    client = staff_client(course, Role.AUTHOR)
    page = post_file(client, course, GIFT_FILE.read_bytes())
    assert f"Preview: what the import would do in {course.title}" in page
    assert "8 questions: " in page
    assert "1 skipped" in page
    assert "matching questions have no counterpart in the bank" in page
    assert not course.questions.exists()
    done = client.post(URL, confirm(page)).content.decode()
    assert f"Imported into {course.title}" in done
    assert course.questions.count() == 8


def test_the_preview_names_types_as_people_read_them(course: Course) -> None:
    client = staff_client(course, Role.AUTHOR)
    page = post_file(client, course, b"::Leaf:: A leaf has no grad_fn. {TRUE}\n")
    assert "1 question: 1 true/false." in page
    assert "<td>True/false</td>" in page
    assert "true_false" not in page


def test_a_refused_file_shows_the_reason_on_the_form(course: Course) -> None:
    page = post_file(staff_client(course, Role.AUTHOR), course, BILLION_LAUGHS, "moodle")
    assert "declares a DTD" in page
    assert not course.questions.exists()


def test_a_staff_examiner_cannot_pick_the_course(course: Course) -> None:
    page = post_file(staff_client(course, Role.EXAMINER), course, GIFT_FILE.read_bytes())
    assert "Select a valid choice" in page
    assert not course.questions.exists()


def test_confirm_without_an_upload_imports_nothing(course: Course) -> None:
    page = staff_client(course, Role.AUTHOR).post(URL, {"confirm": "1"}).content.decode()
    assert "Nothing imported: this preview was imported already, or has expired." in page


def test_an_author_exports_a_course_from_the_course_list(course: Course) -> None:
    client = staff_client(course, Role.AUTHOR)
    client.post(URL, confirm(post_file(client, course, GIFT_FILE.read_bytes())))
    action = {"action": "export_moodle", "_selected_action": [str(course.pk)]}
    reply = client.post("/admin/quizbank/course/", action)
    assert reply.status_code == 200
    assert reply["Content-Disposition"] == 'attachment; filename="target.xml"'
    assert reply.content.count(b'<question type="') == 9  # a category and eight questions


def test_a_staff_examiner_cannot_export_a_course(course: Course) -> None:
    client = staff_client(course, Role.EXAMINER)
    action = {"action": "export_gift", "_selected_action": [str(course.pk)]}
    reply = client.post("/admin/quizbank/course/", action)
    assert reply.status_code == 403
    assert "Content-Disposition" not in reply


def test_the_course_list_links_to_the_import(course: Course) -> None:
    page = staff_client(course, Role.AUTHOR).get("/admin/quizbank/course/").content.decode()
    assert f'href="{URL}"' in page


def test_a_file_with_nothing_importable_offers_no_import_button(course: Course) -> None:
    # A numeric answer that is not a number: skipped, so there is nothing to confirm.
    page = post_file(staff_client(course, Role.AUTHOR), course, b"::q:: What? {#not a number}\n")
    assert 'name="confirm"' not in page
    assert "No question in this file can be imported" in page
    assert '<form method="post" enctype="multipart/form-data"' in page  # to upload it again
    assert f'<option value="{course.pk}" selected>' in page


def test_a_preview_links_back_to_the_form_for_another_file(course: Course) -> None:
    page = post_file(staff_client(course, Role.AUTHOR), course, b"::q:: 2 + 2? {#4}\n")
    assert 'name="confirm"' in page
    assert f'<a href="{URL}">Upload another file instead</a>' in page
