"""The author's import page (/author/courses/<id>/import/): the admin's steps for authors who
are not staff, linked from the course's questions."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from quizbank.models import Course, Role
from tests.quizbank.factories import make_course, make_membership, make_user

pytestmark = pytest.mark.django_db
GIFT = b"::Leaf:: A leaf tensor has no grad_fn. {TRUE}\n\n::Sum:: 2 + 2? {#4}\n"


def signed_in(course: Course, role: str) -> Client:
    user = make_user(username=f"member-{role}")  # not staff: no way into the admin
    make_membership(course=course, user=user, role=role)
    client = Client()
    client.force_login(user)
    return client


def confirm(page: str) -> dict[str, str]:
    """The preview page's confirm form: it names the preview it imports."""
    found = re.search(r'name="token" value="([^"]+)"', page)
    assert found is not None, "the preview offers no import"
    return {"confirm": "1", "token": found.group(1)}


def url(course: Course) -> str:
    return f"/author/courses/{course.pk}/import/"


def test_an_author_previews_then_imports_from_the_questions_page() -> None:
    course = make_course()
    author = signed_in(course, Role.AUTHOR)
    listing = author.get(f"/author/courses/{course.pk}/questions/").content.decode()
    assert f'href="{url(course)}"' in listing
    form = author.get(url(course))
    assert form.status_code == 200
    assert form.context["form"].initial == {"course": course.pk}
    upload = SimpleUploadedFile("bank.gift", GIFT)
    preview = author.post(url(course), {"course": course.pk, "format": "gift", "file": upload})
    page = preview.content.decode()
    assert f"Preview: what the import would do in {course.title}" in page
    assert "2 questions: 1 true/false, 1 numeric." in page
    assert not course.questions.exists()
    done = author.post(url(course), confirm(page)).content.decode()
    assert f"Imported into {course.title}" in done
    assert sorted(course.questions.values_list("slug", flat=True)) == ["leaf", "sum"]


def test_a_preview_leads_back_to_the_upload_form() -> None:
    """ "Upload it again" once named a form the preview did not show."""
    course = make_course()
    author = signed_in(course, Role.AUTHOR)
    nothing = SimpleUploadedFile("bank.gift", b"::q:: What? {#not a number}\n")
    body = {"course": course.pk, "format": "gift"}
    refused = author.post(url(course), {**body, "file": nothing}).content.decode()
    assert "No question in this file can be imported" in refused
    assert "upload it again below." in refused
    assert '<h2 id="upload-again">Upload the file again</h2>' in refused
    assert 'name="file"' in refused
    assert '<option value="gift" selected>' in refused  # the format as chosen
    again = author.post(url(course), {**body, "file": SimpleUploadedFile("bank.gift", GIFT)})
    importable = again.content.decode()
    assert "2 questions: 1 true/false, 1 numeric." in importable
    assert 'name="file"' not in importable
    assert f'<a href="{url(course)}">Upload another file instead</a>' in importable
    assert 'name="file"' in author.get(url(course)).content.decode()


def test_a_file_in_another_format_is_refused_on_the_form_with_a_hint() -> None:
    course = make_course()
    author = signed_in(course, Role.AUTHOR)
    upload = SimpleUploadedFile("bank.gift", GIFT)
    page = author.post(url(course), {"course": course.pk, "format": "moodle", "file": upload})
    assert page.status_code == 200
    assert "is it in another format, such as GIFT?" in page.content.decode()
    assert not course.questions.exists()


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (
            b'<?xml version="1.0"?>\n<quiz></quiz>',
            "the file is XML, not GIFT text: is it Moodle XML",
        ),
        (b"\xef\xbb\xbf  <quiz><question/></quiz>", "the file is XML, not GIFT text"),
        (b"PK\x03\x04rest-of-a-zip", "the file is a zip archive, not GIFT text"),
    ],
)
def test_a_file_in_another_format_sent_as_gift_says_which(data: bytes, said: str) -> None:
    course = make_course()
    author = signed_in(course, Role.AUTHOR)
    upload = SimpleUploadedFile("bank.txt", data)
    page = author.post(url(course), {"course": course.pk, "format": "gift", "file": upload})
    assert said in page.content.decode()
    assert not course.questions.exists()


def test_only_the_course_authors_import() -> None:
    course = make_course()
    assert signed_in(course, Role.STUDENT).get(url(course)).status_code == 403
    assert signed_in(course, Role.EXAMINER).get(url(course)).status_code == 403
    outsider = signed_in(make_course(), Role.AUTHOR)
    assert outsider.get(url(course)).status_code == 404
    upload = SimpleUploadedFile("bank.gift", GIFT)
    outsider.post(url(course), {"course": course.pk, "format": "gift", "file": upload})
    assert not course.questions.exists()


def test_an_author_exports_the_bank_from_the_questions_page() -> None:
    course = make_course()
    author = signed_in(course, Role.AUTHOR)
    upload = SimpleUploadedFile("bank.gift", GIFT)
    preview = author.post(url(course), {"course": course.pk, "format": "gift", "file": upload})
    author.post(url(course), confirm(preview.content.decode()))
    exported = author.get(f"/author/courses/{course.pk}/export/?format=gift")
    assert exported.status_code == 200
    assert exported["Content-Disposition"] == f'attachment; filename="{course.slug}.gift.txt"'
    assert b"A leaf tensor has no grad_fn" in exported.content


def test_an_export_that_cannot_be_made_says_why_on_the_questions_page() -> None:
    course = make_course()
    author = signed_in(course, Role.AUTHOR)
    unknown = author.get(f"/author/courses/{course.pk}/export/?format=pdf", follow=True)
    assert "Not exported: unknown format &#x27;pdf&#x27;" in unknown.content.decode()
    empty = author.get(f"/author/courses/{course.pk}/export/?format=gift", follow=True)
    assert "Not exported:" in empty.content.decode()
    assert (
        signed_in(course, Role.STUDENT)
        .get(f"/author/courses/{course.pk}/export/?format=gift")
        .status_code
        == 403
    )


def test_a_confirm_imports_only_the_preview_its_page_showed() -> None:
    """Two tabs: preview one file for course A, another for course B, then confirm in the
    first tab. Nothing is imported (not B's file into B); the second tab's confirm works."""
    first, second = make_course(), make_course()
    author = signed_in(first, Role.AUTHOR)
    make_membership(
        course=second, user=User.objects.get(username="member-author"), role=Role.AUTHOR
    )
    one = author.post(
        url(first),
        {"course": first.pk, "format": "gift", "file": SimpleUploadedFile("a.gift", GIFT)},
    ).content.decode()
    other = b"::Other:: Another file. {TRUE}\n"
    two = author.post(
        url(second),
        {"course": second.pk, "format": "gift", "file": SimpleUploadedFile("b.gift", other)},
    ).content.decode()
    stale = author.post(url(first), confirm(one)).content.decode()
    assert "Nothing imported: this preview is no longer the latest one" in stale
    assert not first.questions.exists()
    assert not second.questions.exists()
    wrong_page = author.post(url(first), confirm(two)).content.decode()
    assert "Nothing imported: that preview was for another course." in wrong_page
    assert not first.questions.exists()
    assert not second.questions.exists()
    done = author.post(url(second), confirm(two)).content.decode()
    assert f"Imported into {second.title}" in done
    assert list(second.questions.values_list("slug", flat=True)) == ["other"]
    again = author.post(url(second), confirm(two)).content.decode()
    assert "Nothing imported: this preview was imported already" in again
    assert 'type="hidden" name="course"' in again  # the course's own page: no course to pick
    assert second.questions.count() == 1


def test_two_confirms_of_one_preview_import_once() -> None:
    """A double click: the second confirm arrives with the same session before the first
    has ended, and is told so instead of importing again."""
    course = make_course()
    author = signed_in(course, Role.AUTHOR)
    upload = SimpleUploadedFile("bank.gift", GIFT)
    page = author.post(url(course), {"course": course.pk, "format": "gift", "file": upload})
    body = confirm(page.content.decode())
    session = dict(author.session.items())  # as the second request reads it: still pending
    first = author.post(url(course), body).content.decode()
    assert f"Imported into {course.title}" in first
    restored = author.session
    restored.update(session)  # the second click's request carries the same session as the first
    restored.save()
    second = author.post(url(course), body).content.decode()
    assert "Nothing imported again: this preview is being imported already" in second
    assert course.questions.count() == 2
