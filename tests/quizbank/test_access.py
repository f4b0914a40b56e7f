"""The one access rule: members hold their roles, active superusers every role, staff none."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.http import Http404

from quizbank.access import (
    access_course,
    access_question,
    access_quiz,
    course_roles,
    courses_for,
    questions_for,
    require_role_somewhere,
)
from quizbank.models import Role
from quizbank.selectors import course_questions
from tests.grading.factories import new_quiz
from tests.quizbank.factories import make_membership, make_question, make_topic, make_user

pytestmark = pytest.mark.django_db


def test_a_member_can_access_their_course() -> None:
    membership = make_membership(role=Role.STUDENT)
    assert access_course(membership.user, membership.course_id) == membership.course


def test_a_member_without_the_role_gets_a_403_and_others_a_404() -> None:
    membership = make_membership(role=Role.STUDENT)
    with pytest.raises(PermissionDenied):
        access_course(membership.user, membership.course_id, roles=[Role.AUTHOR])
    for outsider in (make_user(), AnonymousUser()):
        with pytest.raises(Http404):
            access_course(outsider, membership.course_id)


def test_an_active_superuser_holds_every_role_in_every_course() -> None:
    membership = make_membership()
    admin = make_user(is_superuser=True)
    assert course_roles(admin, membership.course_id) == {"student", "examiner", "author"}
    assert access_course(admin, membership.course_id, roles=[Role.AUTHOR]) == membership.course
    assert list(courses_for(admin)) == [membership.course]


def test_staff_status_alone_grants_no_course_role() -> None:
    quiz = new_quiz()
    staff = make_user(is_staff=True)
    assert course_roles(staff, quiz.course_id) == frozenset()
    assert not courses_for(staff).exists()
    with pytest.raises(Http404):
        access_quiz(staff, quiz.pk)
    with pytest.raises(PermissionDenied):
        require_role_somewhere(staff, [Role.EXAMINER])


def test_an_inactive_account_holds_nothing_even_as_a_superuser_or_member() -> None:
    membership = make_membership(role=Role.AUTHOR, user__is_active=False)
    fallen = make_user(is_superuser=True, is_active=False)
    for user in (membership.user, fallen):
        assert course_roles(user, membership.course_id) == frozenset()
        with pytest.raises(Http404):
            access_course(user, membership.course_id)


def test_only_the_given_roles_reach_a_question_and_others_get_a_404() -> None:
    question = make_question()
    author = make_membership(course=question.course, role=Role.AUTHOR).user
    examiner = make_membership(course=question.course, role=Role.EXAMINER).user
    student = make_membership(course=question.course, role=Role.STUDENT).user
    assert access_question(author, question.pk) == question
    assert list(questions_for(author)) == [question]
    with pytest.raises(Http404):
        access_question(examiner, question.pk)
    assert access_question(examiner, question.pk, roles=[Role.EXAMINER]) == question
    with pytest.raises(Http404):
        access_question(student, question.pk, roles=[Role.AUTHOR, Role.EXAMINER])


def test_course_questions_follow_the_topic_order() -> None:
    second = make_topic(position=2)
    first = make_topic(course=second.course, position=1)
    make_question(topic=second, slug="a")
    make_question(topic=first, slug="b")
    assert [q.slug for q in course_questions(second.course)] == ["b", "a"]
