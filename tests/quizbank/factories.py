"""factory_boy factories for the question bank tests, with typed `make_*` helpers.

factory_boy's declarations are untyped and not re-exported from `factory`, so
this module turns those two checks off; tests call the typed helpers below.
"""

# mypy: disable-error-code="attr-defined,no-untyped-call,misc"

from __future__ import annotations

from typing import Any, cast

import factory
from django.contrib.auth.models import User

from quizbank.models import Choice, Course, CourseMembership, Question, Role, Topic


class UserFactory(factory.django.DjangoModelFactory[User]):
    class Meta:
        model = User
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password("a-long-test-password")


class CourseFactory(factory.django.DjangoModelFactory[Course]):
    class Meta:
        model = Course

    slug = factory.Sequence(lambda n: f"course-{n}")
    title = factory.Sequence(lambda n: f"Course {n}")


class MembershipFactory(factory.django.DjangoModelFactory[CourseMembership]):
    class Meta:
        model = CourseMembership

    course = factory.SubFactory(CourseFactory)
    user = factory.SubFactory(UserFactory)
    role = Role.AUTHOR


class TopicFactory(factory.django.DjangoModelFactory[Topic]):
    class Meta:
        model = Topic

    course = factory.SubFactory(CourseFactory)
    slug = factory.Sequence(lambda n: f"topic-{n}")
    title = factory.Sequence(lambda n: f"Topic {n}")


class QuestionFactory(factory.django.DjangoModelFactory[Question]):
    """A true/false question: complete without any child rows."""

    class Meta:
        model = Question

    topic = factory.SubFactory(TopicFactory)
    course = factory.SelfAttribute("topic.course")
    slug = factory.Sequence(lambda n: f"question-{n}")
    type = "true_false"
    title = "Leaf tensors have no grad_fn"
    prompt = "A leaf tensor has `grad_fn` equal to `None`."
    settings = factory.LazyFunction(lambda: {"answer": True})


class ChoiceFactory(factory.django.DjangoModelFactory[Choice]):
    class Meta:
        model = Choice

    question = factory.SubFactory(QuestionFactory, type="single_choice", settings={})
    position = factory.Sequence(int)
    text = factory.Sequence(lambda n: f"choice {n}")


def make_user(**fields: Any) -> User:
    return cast(User, UserFactory(**fields))


def make_course(**fields: Any) -> Course:
    return cast(Course, CourseFactory(**fields))


def make_membership(**fields: Any) -> CourseMembership:
    return cast(CourseMembership, MembershipFactory(**fields))


def make_topic(**fields: Any) -> Topic:
    return cast(Topic, TopicFactory(**fields))


def make_question(**fields: Any) -> Question:
    return cast(Question, QuestionFactory(**fields))


def make_choice(**fields: Any) -> Choice:
    return cast(Choice, ChoiceFactory(**fields))
