"""Access rules at the service level: each student's terms, the access code and networks."""

from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import User

from grading.errors import NoAttemptsLeft, QuizNotOpen
from grading.services.attempts import attempt_start
from grading.services.responses import attempt_submit, response_autosave
from quizbank.errors import AccessCodeWrong, AccessRuleInvalid, NetworkNotAllowed
from quizbank.models import Quiz, Role
from quizbank.services.quiz_access import address_allowed, quiz_terms
from quizbank.services.quiz_overrides import (
    OverrideInput,
    quiz_access_rules_set,
    quiz_override_set,
)
from tests.grading.content import SINGLE
from tests.grading.factories import add_slots, member, new_course, new_quiz, question

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def quiz() -> Quiz:
    """A one-attempt, 60-minute quiz open from T0 for two hours."""
    course = new_course()
    made = new_quiz(
        course=course,
        time_limit=timedelta(minutes=60),
        attempts_allowed=1,
        opens_at=T0,
        closes_at=T0 + timedelta(hours=2),
    )
    add_slots(made, question(course, SINGLE))
    return made


def student(quiz: Quiz) -> User:
    return member(quiz.course, Role.STUDENT)


def test_fifty_percent_extra_time_gives_ninety_minutes(quiz: Quiz) -> None:
    alice = student(quiz)
    quiz_override_set(quiz=quiz, student=alice, data=OverrideInput(extra_time_percent=50))
    attempt = attempt_start(quiz=quiz, user=alice, now=T0)
    assert attempt.deadline == T0 + timedelta(minutes=90)


def test_an_override_applies_to_its_student_only(quiz: Quiz) -> None:
    alice, bob = student(quiz), student(quiz)
    quiz_override_set(quiz=quiz, student=alice, data=OverrideInput(extra_time_percent=50))
    assert attempt_start(quiz=quiz, user=bob, now=T0).deadline == T0 + timedelta(minutes=60)
    assert quiz_terms(quiz=quiz, user_id=bob.pk).has_override is False


def test_the_close_time_still_caps_extra_time(quiz: Quiz) -> None:
    alice = student(quiz)
    quiz_override_set(quiz=quiz, student=alice, data=OverrideInput(extra_time_percent=100))
    late = attempt_start(quiz=quiz, user=alice, now=T0 + timedelta(minutes=90))
    assert late.deadline == T0 + timedelta(hours=2)


def test_an_extra_attempt_allows_a_second_start_and_no_third(quiz: Quiz) -> None:
    alice = student(quiz)
    quiz_override_set(quiz=quiz, student=alice, data=OverrideInput(extra_attempts=1))
    for _ in range(2):
        attempt = attempt_start(quiz=quiz, user=alice, now=T0)
        attempt_submit(attempt=attempt, now=T0 + timedelta(minutes=1))
    with pytest.raises(NoAttemptsLeft):
        attempt_start(quiz=quiz, user=alice, now=T0 + timedelta(minutes=2))


def test_a_later_window_opens_after_the_quiz_closed_for_that_student_only(quiz: Quiz) -> None:
    alice, bob = student(quiz), student(quiz)
    later = OverrideInput(
        opens_at=T0 + timedelta(days=1), closes_at=T0 + timedelta(days=1, hours=2)
    )
    quiz_override_set(quiz=quiz, student=alice, data=later)
    with pytest.raises(QuizNotOpen):
        attempt_start(quiz=quiz, user=alice, now=T0)
    assert attempt_start(quiz=quiz, user=alice, now=T0 + timedelta(days=1)).pk
    with pytest.raises(QuizNotOpen):
        attempt_start(quiz=quiz, user=bob, now=T0 + timedelta(days=1))


def test_an_override_for_someone_outside_the_course_is_refused(quiz: Quiz) -> None:
    outsider = member(new_course(), Role.STUDENT)
    with pytest.raises(AccessRuleInvalid):
        quiz_override_set(quiz=quiz, student=outsider, data=OverrideInput(extra_attempts=1))
    examiner = member(quiz.course, Role.EXAMINER)
    with pytest.raises(AccessRuleInvalid):
        quiz_override_set(quiz=quiz, student=examiner, data=OverrideInput(extra_attempts=1))


def test_out_of_range_overrides_are_refused(quiz: Quiz) -> None:
    alice = student(quiz)
    for bad in (
        OverrideInput(extra_time_percent=401),
        OverrideInput(extra_attempts=-1),
        OverrideInput(opens_at=T0, closes_at=T0),
    ):
        with pytest.raises(AccessRuleInvalid):
            quiz_override_set(quiz=quiz, student=alice, data=bad)


def test_a_wrong_or_missing_access_code_starts_nothing(quiz: Quiz) -> None:
    quiz_access_rules_set(quiz=quiz, access_code="OWL-42", networks=[])
    alice = student(quiz)
    for wrong in ("", "owl-42", "OWL-4", "OWL-42x"):
        with pytest.raises(AccessCodeWrong):
            attempt_start(quiz=quiz, user=alice, now=T0, access_code=wrong)
    assert not alice.attempts.exists()
    assert attempt_start(quiz=quiz, user=alice, now=T0, access_code=" OWL-42 ").pk


def test_an_address_outside_the_networks_is_refused_at_start_and_on_save(quiz: Quiz) -> None:
    quiz_access_rules_set(quiz=quiz, access_code="", networks=["10.2.0.0/16", "2001:db8::/32"])
    alice = student(quiz)
    for outside in ("", "10.3.0.1", "192.168.1.1", "not an address", "2001:db9::1"):
        with pytest.raises(NetworkNotAllowed):
            attempt_start(quiz=quiz, user=alice, now=T0, address=outside)
    attempt = attempt_start(quiz=quiz, user=alice, now=T0, address="10.2.7.9")
    with pytest.raises(NetworkNotAllowed):
        response_autosave(
            attempt=attempt, position=0, answer={"choice": 0}, version=0, now=T0, address="10.9.0.1"
        )
    saved = response_autosave(
        attempt=attempt, position=0, answer={"choice": 0}, version=0, now=T0, address="2001:db8::5"
    )
    assert saved.version == 1


@pytest.mark.parametrize(
    ("code", "networks", "field"),
    [
        ("zero\u200bwidth", [], "access_code"),
        ("no\u00a0break", [], "access_code"),
        ("x" * 65, [], "access_code"),
        ("", ["10.2.0.0/16", "10.0.0.0/255.0.0.0"], "allowed_networks[1]"),
        ("", ["::ffff:10.0.0.1"], "allowed_networks[0]"),
    ],
)
def test_the_page_and_the_api_refuse_the_same_codes_and_networks(
    quiz: Quiz, code: str, networks: list[str], field: str
) -> None:
    """The page reaches the same service, which holds the rules the API's schema says."""
    with pytest.raises(AccessRuleInvalid) as refused:
        quiz_access_rules_set(quiz=quiz, access_code=code, networks=networks)
    assert list(refused.value.fields) == [field]


def test_networks_are_checked_when_set(quiz: Quiz) -> None:
    with pytest.raises(AccessRuleInvalid):
        quiz_access_rules_set(quiz=quiz, access_code="", networks=["10.2.0.0/33"])
    assert address_allowed(networks=[], address="") is True
    assert address_allowed(networks=["10.0.0.0/8"], address="10.255.255.255") is True
