"""Every field of a question's preview has a label, disabled ones included: a screen reader
announces the written answer's box as what it is."""

import re

import pytest

from quizbank.models import Role
from tests.grading.content import VIVA
from tests.grading.factories import browser_as, member, new_course, new_topic, question

pytestmark = pytest.mark.django_db


def test_a_written_vivas_answer_box_is_labelled_and_an_oral_one_has_none() -> None:
    course = new_course()
    topic = new_topic(course=course)
    written = question(course, VIVA, topic=topic)
    oral = question(course, {**VIVA, "mode": "oral"}, topic=topic)
    author = browser_as(member(course, Role.AUTHOR))

    page = author.get(f"/questions/{written.pk}/preview/").content.decode()
    spoken = author.get(f"/questions/{oral.pk}/preview/").content.decode()

    box = re.search(r"<textarea[^>]*>", page)
    assert box is not None
    assert 'id="written-answer"' in box.group(0)
    assert '<label for="written-answer">A written answer</label>' in page
    assert "<textarea" not in spoken
    assert "An oral answer, given to an examiner." in spoken
