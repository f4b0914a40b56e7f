"""Reads of the question bank; `access_*` is the only way to fetch what a user may see."""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet
from django.http import Http404

from quizbank.models import Course, Question, QuestionVersion, Role


def course_questions(course: Course) -> QuerySet[Question]:
    """The course's questions in teaching order (topic position, then slug)."""
    return (
        Question.objects.filter(course=course)
        .select_related("topic", "current_version")
        .order_by("topic__position", "topic__slug", "slug")
    )


def courses_for(
    user: AbstractBaseUser | AnonymousUser, roles: Iterable[str] | None = None
) -> QuerySet[Course]:
    """Courses `user` belongs to (with one of `roles`, if given); superusers see all."""
    if not user.is_authenticated or not user.is_active:
        return Course.objects.none()
    if getattr(user, "is_superuser", False):
        return Course.objects.all()
    # One filter() call, so user and role must hold for the same membership row.
    conditions: dict[str, object] = {"memberships__user": user}
    if roles is not None:
        conditions["memberships__role__in"] = list(roles)
    return Course.objects.filter(**conditions).distinct()


def access_course(
    *, user: AbstractBaseUser | AnonymousUser, slug: str, roles: Iterable[str] | None = None
) -> Course:
    """The course `slug` if `user` may see it; 404 otherwise, so existence never leaks."""
    course = courses_for(user, roles).filter(slug=slug).first()
    if course is None:
        raise Http404("No such course.")
    return course


def access_question(
    *,
    user: AbstractBaseUser | AnonymousUser,
    pk: int,
    roles: Iterable[str] = (Role.AUTHOR, Role.EXAMINER),
) -> Question:
    """A question of a course where `user` has one of `roles` (authors and examiners by default)."""
    course_ids = courses_for(user, roles).values("pk")
    question = (
        Question.objects.filter(pk=pk, course__in=course_ids)
        .select_related("course", "topic", "current_version")
        .first()
    )
    if question is None:
        raise Http404("No such question.")
    return question


def question_current_version(question: Question) -> QuestionVersion | None:
    """The version new attempts use (None only before the first save)."""
    return question.current_version


def question_versions(question: Question) -> QuerySet[QuestionVersion]:
    """Every version of the question, newest first."""
    return question.versions.select_related("created_by").order_by("-number")
