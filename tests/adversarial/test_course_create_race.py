"""Two clients creating a course with the same slug at the same moment (an LMS retrying a
request whose reply it lost), on real transactions in two threads: the second is a 409
`slug_taken`, never a 500 from the unique index, and one course stands."""

import threading

import pytest
from django.contrib.auth.models import User
from django.db import connection, transaction
from rest_framework.test import APIClient

from quizbank.models import Course
from quizbank.services.quiz_write import course_create

pytestmark = pytest.mark.django_db(transaction=True)


def _create_held_open(owner: User, created: threading.Event, release: threading.Event) -> None:
    try:
        with transaction.atomic():
            course_create(slug="same", title="First", owner_id=owner.pk)
            created.set()
            release.wait(timeout=10)
    finally:
        connection.close()


def test_a_course_slug_created_meanwhile_is_a_409_not_a_500() -> None:
    owner = User.objects.create_superuser("owner", password="pw-owner-123")
    created, release = threading.Event(), threading.Event()
    first = threading.Thread(target=_create_held_open, args=(owner, created, release))
    first.start()
    assert created.wait(timeout=10)
    # The second insert waits on the first's uncommitted row, which commits meanwhile.
    threading.Timer(0.5, release.set).start()
    client = APIClient(raise_request_exception=False)
    client.force_authenticate(owner)
    reply = client.post("/api/courses/", {"slug": "same", "title": "Second"}, format="json")
    first.join(timeout=10)
    assert reply.status_code == 409, reply.content
    assert reply.json()["error"]["code"] == "slug_taken"
    assert list(Course.objects.values_list("title", flat=True)) == ["First"]
