"""Two imports of the same file into one course at once, on real transactions in two
threads: the second waits for the first and finds its questions, instead of failing on the
slug the first created."""

import threading

import pytest
from django.db import connection, transaction

from quizbank.models import Course
from quizbank.services.interchange import interchange_import
from tests.quizbank.factories import make_course

pytestmark = pytest.mark.django_db(transaction=True)

GIFT = b"::Leaf:: A leaf tensor has no grad_fn. {TRUE}\n\n::Sum:: 2 + 2? {#4}\n"


def _import_held_open(course: Course, imported: threading.Event, release: threading.Event) -> None:
    try:
        with transaction.atomic():
            interchange_import(course=course, fmt="gift", data=GIFT)
            imported.set()
            release.wait(timeout=10)
    finally:
        connection.close()


def test_a_second_import_waits_for_the_first_and_finds_its_questions() -> None:
    course = make_course()
    imported, release = threading.Event(), threading.Event()
    first = threading.Thread(target=_import_held_open, args=(course, imported, release))
    first.start()
    assert imported.wait(timeout=10)
    threading.Timer(0.5, release.set).start()
    second = interchange_import(course=course, fmt="gift", data=GIFT)
    first.join(timeout=10)
    assert second.counts() == {"unchanged": 2}
    assert sorted(course.questions.values_list("slug", flat=True)) == ["leaf", "sum"]
