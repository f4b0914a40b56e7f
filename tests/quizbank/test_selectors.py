"""access_* selectors: members see their courses, everyone else gets a 404."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.http import Http404

from quizbank.models import Role
from quizbank.selectors import access_course, access_question, course_questions
from tests.quizbank.factories import make_membership, make_question, make_topic, make_user

pytestmark = pytest.mark.django_db


def test_a_member_can_access_their_course() -> None:
    membership = make_membership(role=Role.STUDENT)
    course = access_course(user=membership.user, slug=membership.course.slug)
    assert course == membership.course


def test_a_member_without_the_role_gets_a_404() -> None:
    membership = make_membership(role=Role.STUDENT)
    with pytest.raises(Http404):
        access_course(user=membership.user, slug=membership.course.slug, roles=[Role.AUTHOR])


def test_other_users_and_anonymous_get_a_404() -> None:
    membership = make_membership()
    with pytest.raises(Http404):
        access_course(user=make_user(), slug=membership.course.slug)
    with pytest.raises(Http404):
        access_course(user=AnonymousUser(), slug=membership.course.slug)


def test_superusers_see_every_course() -> None:
    membership = make_membership()
    admin = make_user(is_superuser=True, is_staff=True)
    assert access_course(user=admin, slug=membership.course.slug) == membership.course


def test_only_authors_and_examiners_reach_a_question() -> None:
    question = make_question()
    author = make_membership(course=question.course, role=Role.AUTHOR).user
    student = make_membership(course=question.course, role=Role.STUDENT).user
    assert access_question(user=author, pk=question.pk) == question
    with pytest.raises(Http404):
        access_question(user=student, pk=question.pk)


def test_course_questions_follow_the_topic_order() -> None:
    second = make_topic(position=2)
    first = make_topic(course=second.course, position=1)
    make_question(topic=second, slug="a")
    make_question(topic=first, slug="b")
    slugs = [q.slug for q in course_questions(second.course)]
    assert slugs == ["b", "a"]
