"""Model rules and versioning: unique slugs, numbering, no version for identical content."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from quizbank.errors import VersionImmutable
from quizbank.models import Question, QuestionVersion
from quizbank.services.content import question_content
from quizbank.services.question_write import question_apply_content
from quizbank.services.versioning import question_snapshot
from tests.quizbank.factories import make_choice, make_question, make_topic, make_user

pytestmark = pytest.mark.django_db


def test_question_slugs_are_unique_within_a_course() -> None:
    question = make_question(slug="same")
    with transaction.atomic(), pytest.raises(IntegrityError):
        make_question(slug="same", topic=question.topic)


def test_the_same_slug_may_be_used_in_another_course() -> None:
    make_question(slug="same")
    make_question(slug="same")
    assert Question.objects.filter(slug="same").count() == 2


def test_topic_slugs_are_unique_within_a_course() -> None:
    topic = make_topic(slug="tensors")
    with transaction.atomic(), pytest.raises(IntegrityError):
        make_topic(slug="tensors", course=topic.course)


def test_the_first_snapshot_is_version_one() -> None:
    user = make_user()
    question = make_question()
    version = question_snapshot(question=question, user=user)
    assert version is not None
    assert (version.number, version.created_by) == (1, user)
    question.refresh_from_db()
    assert question.current_version == version
    assert version.content == {
        "type": "true_false",
        "title": "Leaf tensors have no grad_fn",
        "prompt": "A leaf tensor has `grad_fn` equal to `None`.",
        "answer": True,
    }
    assert "<code>grad_fn</code>" in version.prompt_html


def test_identical_content_creates_no_new_version() -> None:
    question = make_question()
    question_snapshot(question=question)
    question.title = "Leaf tensors have no grad_fn"  # same text
    question.save()
    assert question_snapshot(question=question) is None
    assert question.versions.count() == 1


def test_changed_content_gets_the_next_number_and_becomes_current() -> None:
    question = make_question()
    question_snapshot(question=question)
    question.settings = {"answer": False}
    question.save()
    version = question_snapshot(question=question)
    assert version is not None
    assert version.number == 2
    assert Question.objects.get(pk=question.pk).current_version == version
    assert list(question.versions.values_list("number", flat=True)) == [2, 1]


def test_reverting_to_old_content_is_a_new_version_not_a_rewind() -> None:
    question = make_question()
    first = question_snapshot(question=question)
    question.settings = {"answer": False}
    question.save()
    question_snapshot(question=question)
    question.settings = {"answer": True}
    question.save()
    third = question_snapshot(question=question)
    assert first is not None
    assert third is not None
    assert third.number == 3
    assert third.content_hash == first.content_hash


def test_a_child_row_change_makes_a_version() -> None:
    choice = make_choice(correct=True)
    make_choice(question=choice.question)
    question_snapshot(question=choice.question)
    choice.feedback = "Right."
    choice.save()
    version = question_snapshot(question=choice.question)
    assert version is not None
    assert version.content["choices"][0] == {
        "text": choice.text,
        "correct": True,
        "feedback": "Right.",
    }


def test_whitespace_and_newline_style_do_not_make_a_version() -> None:
    question = make_question(prompt="First line\nsecond line\n")
    question_snapshot(question=question)
    question.prompt = "  First line\r\nsecond line  "
    question.save()
    assert question_snapshot(question=question) is None


def test_a_version_cannot_be_changed() -> None:
    question = make_question()
    version = question_snapshot(question=question)
    assert version is not None
    version.content = {"type": "true_false"}
    with pytest.raises(VersionImmutable):
        version.save()
    assert QuestionVersion.objects.get(pk=version.pk).content["answer"] is True


def test_rows_written_from_content_give_back_the_same_content() -> None:
    question = make_question(type="numeric", settings={})
    content = {
        "type": "numeric",
        "title": "T",
        "points": 2.5,
        "prompt": "P",
        "answers": [{"value": 11, "tolerance": 0.001}, {"value": 6, "fraction": 0}],
        "unit": "m",
    }
    question_apply_content(question=question, content=content)
    assert question_content(question) == content
