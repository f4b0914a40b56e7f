from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from pytest_django import Settings as SettingsWrapper

from quizbank.models import CourseMembership, QuestionVersion
from quizbank.models.quizzes import Quiz
from quizbank.selectors import slot_pool

pytestmark = pytest.mark.django_db


def load_demo() -> str:
    out = StringIO()
    call_command("load_demo", stdout=out)
    return out.getvalue()


def test_it_creates_the_demo_users_with_their_roles_and_prints_the_logins(
    settings: SettingsWrapper,
) -> None:
    settings.DEBUG = True
    output = load_demo()

    roles = set(CourseMembership.objects.values_list("user__username", "role"))
    # Two examiners: a second mark, and moderating a disagreement, each need another examiner.
    assert roles == {
        ("student", "student"),
        ("examiner", "examiner"),
        ("examiner2", "examiner"),
        ("author", "author"),
    }
    assert User.objects.get(username="admin").is_superuser
    assert User.objects.get(username="student").check_password("student-demo-pass")
    assert "student-demo-pass" in output


def test_it_creates_the_demo_quizzes_over_the_bank(settings: SettingsWrapper) -> None:
    settings.DEBUG = True
    load_demo()

    quiz = Quiz.objects.get(slug="fundamentals-check")
    assert quiz.slots.count() == 8
    assert _modes("autograd-viva") == ["written"] * 3
    assert _modes("live-viva") == ["oral"] * 3


def _modes(quiz_slug: str) -> list[str]:
    slots = Quiz.objects.get(slug=quiz_slug).slots.order_by("position")
    versions = slots.values_list("question__current_version__content", flat=True)
    return [content["mode"] for content in versions]


def test_loading_twice_changes_nothing(settings: SettingsWrapper) -> None:
    settings.DEBUG = True
    load_demo()
    versions = QuestionVersion.objects.count()
    slots = list(
        Quiz.objects.get(slug="fundamentals-check").slots.values_list("position", flat=True)
    )

    output = load_demo()

    assert QuestionVersion.objects.count() == versions
    assert "0 new versions" in output
    assert User.objects.filter(username="student").count() == 1
    assert (
        list(Quiz.objects.get(slug="fundamentals-check").slots.values_list("position", flat=True))
        == slots
    )


def test_it_refuses_to_create_known_passwords_without_debug(settings: SettingsWrapper) -> None:
    settings.DEBUG = False
    with pytest.raises(CommandError, match="DEBUG only"):
        load_demo()
    assert not User.objects.exists()


def test_the_demo_quizs_drawn_question_is_always_auto_graded(settings: SettingsWrapper) -> None:
    # The README's walkthrough ends with a score after one viva is marked: the draw must not
    # add a second answer for an examiner.
    settings.DEBUG = True
    load_demo()
    quiz = Quiz.objects.get(slug="fundamentals-check")
    pools = [slot_pool(slot) for slot in quiz.slots.filter(question__isnull=True)]
    assert pools
    assert all(pools)
    assert {question.type for pool in pools for question in pool} <= {"numeric", "single_choice"}
