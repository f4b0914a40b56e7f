"""Deep Linking: an instructor, launched from the LMS, picks a quiz of a course the
platform is granted, and it goes back as a resource link with a line item."""

from datetime import datetime
from decimal import Decimal

from django.contrib.auth.models import User
from django.db import transaction

from lms.errors import LaunchRefused
from lms.lti import LaunchClaims
from lms.services.lti_launch import grants_for, refuse_replay, user_for_launch
from quizbank.models import CourseMembership, Quiz, Role
from quizbank.selectors import quiz_slots, slot_pool, slot_question_points

PICKERS = frozenset({"Instructor", "TeachingAssistant"})


@transaction.atomic
def deep_link_accept(*, claims: LaunchClaims, now: datetime) -> User:
    """The instructor who may pick a quiz (refused for anyone else, or a replay)."""
    refuse_replay(claims, now)
    if not claims.roles & PICKERS:
        raise LaunchRefused("Only an instructor may add a Vivabank quiz to the course.")
    if not claims.deep_linking.get("deep_link_return_url"):
        raise LaunchRefused("The deep linking request has no return URL.")
    return user_for_launch(claims)


def quizzes_to_link(*, registration_id: int, context_id: str) -> list[Quiz]:
    """The quizzes of the courses granted to the platform for this LMS course (context)
    by a grant bound to it, by course and title (picking makes the instructor an examiner,
    which a grant bound to no LMS course never does)."""
    granted = grants_for(registration_id=registration_id, context_id=context_id, bound_only=True)
    quizzes = Quiz.objects.filter(course_id__in=granted.values("course_id"))
    return list(quizzes.select_related("course").order_by("course__title", "title"))


def quiz_score_maximum(quiz: Quiz) -> Decimal:
    """The most a quiz can score: fixed questions' points, and for a pool its draw count
    times its highest-scoring question (a slot's own points replacing its questions')."""
    total = Decimal(0)
    for slot in quiz_slots(quiz):
        if slot.question is not None:
            total += slot_question_points(slot, slot.question)
        else:
            pool = [slot_question_points(slot, q) for q in slot_pool(slot)]
            total += max(pool, default=Decimal(0)) * slot.draw_count
    return total


@transaction.atomic
def deep_link_pick(*, registration_id: int, context_id: str, user: User, quiz_id: int) -> Quiz:
    """The picked quiz, if granted to the platform for the LMS course; the instructor
    becomes its examiner."""
    linkable = quizzes_to_link(registration_id=registration_id, context_id=context_id)
    quiz = next((q for q in linkable if q.pk == quiz_id), None)
    if quiz is None:
        raise LaunchRefused("This quiz cannot be linked from this platform.")
    if quiz_score_maximum(quiz) <= 0:
        raise LaunchRefused("This quiz has no questions yet, so it has no score to send.")
    CourseMembership.objects.get_or_create(course=quiz.course, user=user, role=Role.EXAMINER)
    return quiz
