"""factory_boy factories for the question bank tests."""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model

from quizbank.models import Choice, Course, CourseMembership, Question, Role, Topic


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.PostGenerationMethodCall("set_password", "a-long-test-password")


class CourseFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Course

    slug = factory.Sequence(lambda n: f"course-{n}")
    title = factory.Sequence(lambda n: f"Course {n}")


class MembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = CourseMembership

    course = factory.SubFactory(CourseFactory)
    user = factory.SubFactory(UserFactory)
    role = Role.AUTHOR


class TopicFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Topic

    course = factory.SubFactory(CourseFactory)
    slug = factory.Sequence(lambda n: f"topic-{n}")
    title = factory.Sequence(lambda n: f"Topic {n}")


class QuestionFactory(factory.django.DjangoModelFactory):
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


class ChoiceFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Choice

    question = factory.SubFactory(QuestionFactory, type="single_choice", settings={})
    position = factory.Sequence(int)
    text = factory.Sequence(lambda n: f"choice {n}")
