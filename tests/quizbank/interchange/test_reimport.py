"""Importing into a bank that already holds questions of the same names: a re-import updates
a question of the same type; a name shared with a question of another type never changes
that question's type."""

from __future__ import annotations

import pytest

from quizbank.services.interchange import interchange_import
from tests.quizbank.factories import make_course
from tests.quizbank.interchange.helpers import notes_of, stored

pytestmark = pytest.mark.django_db

CHOICE = b"::Q1:: What is 2 + 2? {=4 ~3 ~5}\n"
TRUE_FALSE = b"::Q1:: A leaf tensor has no grad_fn. {TRUE}\n"
CHOICE_EDITED = b"::Q1:: What is 2 + 3? {=5 ~3 ~4}\n"


def test_a_name_taken_by_another_type_imports_a_new_question_and_says_so() -> None:
    course = make_course()
    interchange_import(course=course, fmt="gift", data=CHOICE)
    report = interchange_import(course=course, fmt="gift", data=TRUE_FALSE)
    bank = stored(course)
    assert bank["q1"]["type"] == "single_choice"
    assert bank["q1"]["prompt"].startswith("What is 2 + 2?")
    assert bank["q1-2"]["type"] == "true_false"
    assert report.counts() == {"created": 1}
    assert notes_of(report, "q1-2") == [
        "imported as q1-2: q1 is a single_choice question in the bank"
    ]
    again = interchange_import(course=course, fmt="gift", data=TRUE_FALSE)
    assert again.counts() == {"unchanged": 1}  # the re-import finds its own question again
    assert sorted(stored(course)) == ["q1", "q1-2"]


def test_a_file_that_names_the_question_updates_it() -> None:
    """Vivabank's own GIFT export names each question in its extension: an edit made
    outside and imported again is a new version of the same question."""
    course = make_course()
    interchange_import(course=course, fmt="gift", data=CHOICE)
    named = b'// @vivabank {"slug": "q1"}\n' + CHOICE_EDITED
    report = interchange_import(course=course, fmt="gift", data=named)
    assert report.counts() == {"updated": 1}
    assert list(stored(course)) == ["q1"]
    assert stored(course)["q1"]["prompt"].startswith("What is 2 + 3?")


def test_a_title_shared_with_a_bank_question_replaces_nothing() -> None:
    """A slug made from a title ("Q1") is no identity: the same title with other content is
    skipped with why; another title under the same slug becomes a new question."""
    course = make_course()
    interchange_import(course=course, fmt="gift", data=CHOICE)
    same_title = interchange_import(course=course, fmt="gift", data=CHOICE_EDITED)
    assert same_title.questions == []
    [skipped] = same_title.skipped
    assert "the bank's question q1 has this title and other content" in skipped.reason
    other = interchange_import(course=course, fmt="gift", data=b"::q1:: Is 1 odd? {=yes ~no}\n")
    assert other.counts() == {"created": 1}
    assert notes_of(other, "q1-2") == ["imported as q1-2: q1 is another question in the bank"]
    assert stored(course)["q1"]["prompt"].startswith("What is 2 + 2?")  # never overwritten
    again = interchange_import(course=course, fmt="gift", data=b"::q1:: Is 1 odd? {=yes ~no}\n")
    assert again.counts() == {"unchanged": 1}  # it finds its own copy again


def test_a_second_clash_takes_the_next_free_name() -> None:
    course = make_course()
    interchange_import(course=course, fmt="gift", data=CHOICE)
    interchange_import(course=course, fmt="gift", data=TRUE_FALSE)
    report = interchange_import(course=course, fmt="gift", data=b"::Q1:: Explain a leaf. {}\n")
    assert report.questions[0].slug == "q1-3"  # q1 and q1-2 hold other types
    assert sorted(stored(course)) == ["q1", "q1-2", "q1-3"]
