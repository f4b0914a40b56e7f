"""Who may see what: the one access rule of Vivabank, used by every app.

A signed-in, active superuser holds every role in every course; anyone else holds
exactly the roles of their course memberships (staff status opens the admin site and
grants no course role). The `access_*` functions are the only way to fetch an object
for a user: an object outside the user's courses is a 404, so its existence never
leaks; a member without the role an action needs gets a 403.
"""

from collections.abc import Iterable

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser, PermissionsMixin
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404

from quizbank.models import (
    AssetBlob,
    Course,
    CourseMembership,
    Question,
    QuestionAsset,
    Quiz,
    Role,
)

AnyUser = AbstractBaseUser | AnonymousUser
ALL_ROLES = frozenset({Role.STUDENT, Role.EXAMINER, Role.AUTHOR})
AUTHORS = (Role.AUTHOR,)


def user_id(user: AnyUser) -> int:
    """The user's primary key, or 0 (matches nobody) for an anonymous or inactive user."""
    if not user.is_authenticated or not user.is_active or user.pk is None:
        return 0
    return int(user.pk)


def holds_every_role(user: AnyUser) -> bool:
    """True for an active superuser: every role in every course."""
    return bool(user_id(user) and getattr(user, "is_superuser", False))


def course_roles(user: AnyUser, course_id: int) -> frozenset[str]:
    """The user's roles in a course."""
    if holds_every_role(user):
        return ALL_ROLES
    rows = CourseMembership.objects.filter(user_id=user_id(user), course_id=course_id)
    return frozenset(rows.values_list("role", flat=True))


def courses_for(user: AnyUser, roles: Iterable[str] | None = None) -> QuerySet[Course]:
    """Courses where the user holds one of `roles` (any role when None)."""
    if holds_every_role(user):
        return Course.objects.all()
    memberships = CourseMembership.objects.filter(user_id=user_id(user))
    if roles is not None:
        memberships = memberships.filter(role__in=list(roles))
    return Course.objects.filter(pk__in=memberships.values("course_id"))


def courses_studied(user: AnyUser) -> QuerySet[Course]:
    """Courses where the user is enrolled as a student. A site administrator holds every
    role to manage a course, but takes its quizzes only when enrolled: an attempt of theirs
    would count in the course's statistics and grades."""
    enrolled = CourseMembership.objects.filter(user_id=user_id(user), role=Role.STUDENT)
    return Course.objects.filter(pk__in=enrolled.values("course_id"))


def studies(user: AnyUser, course_id: int) -> bool:
    """True when the user is enrolled as a student of the course (see courses_studied)."""
    return courses_studied(user).filter(pk=course_id).exists()


def require_role(user: AnyUser, course_id: int, roles: Iterable[str] | None) -> frozenset[str]:
    """The user's roles in the course: 404 for non-members, 403 for members without one
    of `roles` (None: any role)."""
    held = course_roles(user, course_id)
    if not held:
        raise Http404("No such object.")
    if roles is not None and not held & set(roles):
        raise PermissionDenied("Your role in this course does not allow this.")
    return held


def require_role_somewhere(user: AnyUser, roles: Iterable[str]) -> None:
    """403 unless the user holds one of `roles` in some course: the check for an action
    whose course is named only in the body it has not read yet."""
    if not courses_for(user, roles).exists():
        raise PermissionDenied("Your role does not allow this.")


def access_course(user: AnyUser, course_id: int, roles: Iterable[str] | None = None) -> Course:
    """A course the user belongs to (with one of `roles`, if given)."""
    course = Course.objects.filter(pk=course_id).first()
    if course is None:
        raise Http404("No such course.")
    require_role(user, course.pk, roles)
    return course


def quizzes_for(user: AnyUser) -> QuerySet[Quiz]:
    """Quizzes of the user's courses."""
    return Quiz.objects.filter(course__in=courses_for(user)).select_related("course")


def access_quiz(user: AnyUser, quiz_id: int, roles: Iterable[str] | None = None) -> Quiz:
    """A quiz of the user's courses (with one of `roles` there, if given)."""
    quiz = Quiz.objects.select_related("course").filter(pk=quiz_id).first()
    if quiz is None:
        raise Http404("No such quiz.")
    require_role(user, quiz.course_id, roles)
    return quiz


def questions_for(user: AnyUser, roles: Iterable[str] = AUTHORS) -> QuerySet[Question]:
    """Questions of the courses where the user holds one of `roles` (authors by default)."""
    return Question.objects.filter(course__in=courses_for(user, roles)).select_related(
        "course", "topic", "current_version"
    )


def access_question(user: AnyUser, question_id: int, roles: Iterable[str] = AUTHORS) -> Question:
    """A question of a course where the user holds one of `roles`; a 404 otherwise, since a
    question (unlike a quiz) is invisible to the course's other members."""
    question = questions_for(user, roles).filter(pk=question_id).first()
    if question is None:
        raise Http404("No such question.")
    return question


def access_asset(user: AnyUser, digest: str) -> AssetBlob:
    """An image shown by a question of one of the user's courses (any role: students see
    the prompts that show it); a 404 otherwise."""
    uses = QuestionAsset.objects.filter(blob_id=digest, question__course__in=courses_for(user))
    blob = AssetBlob.objects.filter(pk=digest).first() if uses.exists() else None
    if blob is None:
        raise Http404("No such image.")
    return blob


def require_course_creator(user: AnyUser) -> None:
    """403 unless the user may create courses (Django's `quizbank.add_course` permission,
    which API clients' service accounts hold and active superusers have)."""
    if not (isinstance(user, PermissionsMixin) and user.has_perm("quizbank.add_course")):
        raise PermissionDenied("You may not create courses.")


def require_site_admin(user: AnyUser) -> None:
    """403 unless the user holds every role (an active superuser): site-wide settings."""
    if not holds_every_role(user):
        raise PermissionDenied("Only a site administrator may do this.")
