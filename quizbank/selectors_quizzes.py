"""Reads for quizzes and course-scoped access.

`access_*` functions are the only way views fetch an object for a user: an
object outside the user's courses is a 404 (its existence never leaks); a
member without the role the action needs gets a 403.
"""

from collections.abc import Iterable

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404

from quizbank.models import Course, CourseMembership, Question, Quiz, QuizSlot, Role

AnyUser = AbstractBaseUser | AnonymousUser
ALL_ROLES = frozenset({Role.STUDENT, Role.EXAMINER, Role.AUTHOR})


def user_id(user: AnyUser) -> int:
    """The user's primary key, or 0 (matches nobody) for an anonymous user."""
    return int(user.pk) if user.is_authenticated and user.pk is not None else 0


def is_admin(user: AnyUser) -> bool:
    return bool(user.is_authenticated and getattr(user, "is_staff", False))


def course_roles(user: AnyUser, course_id: int) -> frozenset[str]:
    """The user's roles in a course; staff hold every role."""
    if is_admin(user):
        return frozenset(ALL_ROLES)
    if not user.is_authenticated:
        return frozenset()
    rows = CourseMembership.objects.filter(user_id=user_id(user), course_id=course_id)
    return frozenset(rows.values_list("role", flat=True))


def _member_course_ids(user: AnyUser, roles: Iterable[str] | None = None) -> QuerySet[Course]:
    memberships = CourseMembership.objects.filter(user_id=user_id(user))
    if roles is not None:
        memberships = memberships.filter(role__in=list(roles))
    return Course.objects.filter(pk__in=memberships.values("course_id"))


def courses_for_user(user: AnyUser) -> QuerySet[Course]:
    """Courses the user belongs to (all of them for staff)."""
    if is_admin(user):
        return Course.objects.all()
    return _member_course_ids(user)


def require_role(user: AnyUser, course_id: int, roles: Iterable[str] | None) -> frozenset[str]:
    """404 for non-members, 403 for members without one of `roles` (None: any role)."""
    held = course_roles(user, course_id)
    if not held:
        raise Http404("No such object.")
    if roles is not None and not held & set(roles):
        raise PermissionDenied("Your role in this course does not allow this.")
    return held


def require_role_somewhere(user: AnyUser, roles: Iterable[str]) -> None:
    """403 unless the user holds one of `roles` in some course (staff hold every role):
    the check for an action whose course is named only in the body it has not read yet."""
    if is_admin(user) or _member_course_ids(user, roles).exists():
        return
    raise PermissionDenied("Your role does not allow this.")


def access_course(user: AnyUser, course_id: int) -> Course:
    course = Course.objects.filter(pk=course_id).first()
    if course is None:
        raise Http404("No such course.")
    require_role(user, course.pk, None)
    return course


def quizzes_for_user(user: AnyUser) -> QuerySet[Quiz]:
    """Quizzes of the user's courses."""
    return Quiz.objects.filter(course__in=courses_for_user(user)).select_related("course")


def access_quiz(user: AnyUser, quiz_id: int, roles: Iterable[str] | None = None) -> Quiz:
    quiz = Quiz.objects.select_related("course").filter(pk=quiz_id).first()
    if quiz is None:
        raise Http404("No such quiz.")
    require_role(user, quiz.course_id, roles)
    return quiz


def questions_for_author(user: AnyUser) -> QuerySet[Question]:
    """Questions of the courses the user authors (all for staff)."""
    qs = Question.objects.select_related("course", "topic", "current_version")
    if is_admin(user):
        return qs
    return qs.filter(course__in=_member_course_ids(user, [Role.AUTHOR]))


def access_question(user: AnyUser, question_id: int) -> Question:
    question = questions_for_author(user).filter(pk=question_id).first()
    if question is None:
        raise Http404("No such question.")
    return question


def quiz_slots(quiz: Quiz) -> list[QuizSlot]:
    return list(quiz.slots.select_related("question__current_version").order_by("position"))


def slot_pool(slot: QuizSlot) -> list[Question]:
    """Questions a pool slot may draw from, in a stable order (tags filtered in Python
    because SQLite, the development database, has no JSON containment lookup)."""
    qs = Question.objects.filter(course_id=slot.quiz.course_id, current_version__isnull=False)
    if slot.pool_topic_id is not None:
        qs = qs.filter(topic_id=slot.pool_topic_id)
    if slot.pool_difficulty:
        qs = qs.filter(difficulty=slot.pool_difficulty)
    questions = list(qs.select_related("current_version").order_by("pk"))
    if slot.pool_tag:
        questions = [q for q in questions if slot.pool_tag in (q.tags or [])]
    return questions
