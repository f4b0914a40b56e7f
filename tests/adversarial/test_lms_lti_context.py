"""An instructor of one LMS course (context) adds a link whose custom quiz_id names a
quiz of another Vivabank course granted to the same platform. A grant bound to an LMS
course (context id) opens only to launches and deep linking from that course; a grant bound
to none admits learners from any of the platform's courses, but never makes anyone an
examiner (on some platforms anyone may make a course and be its instructor) and never lets
a launch's roster stand for the course's."""

import pytest

from lms.models import ExternalIdentity, LtiCourseGrant, LtiRosterSource
from quizbank.models import CourseMembership
from tests.grading.content import TRUE_FALSE
from tests.grading.factories import add_slots, question
from tests.lms.lti_world import Lti, launch
from tests.lms.platform import CONTEXT_ID, INSTRUCTOR, LEARNER

LAUNCH_CONTEXT = CONTEXT_ID


def _bind(lti: Lti, context_id: str) -> None:
    LtiCourseGrant.objects.filter(course=lti.quiz.course).update(context_id=context_id)


def test_an_instructor_of_another_lms_course_gets_no_role_in_a_bound_course(lti: Lti) -> None:
    _bind(lti, "course-exam-board")
    reply, _ = launch(lti, roles=[INSTRUCTOR], user_id="teacher-elsewhere")
    assert reply.status_code == 403
    assert not ExternalIdentity.objects.exists()
    assert not CourseMembership.objects.filter(course=lti.quiz.course, role="examiner").exists()


def test_a_launch_from_the_bound_lms_course_opens_it(lti: Lti) -> None:
    _bind(lti, LAUNCH_CONTEXT)
    reply, _ = launch(lti, roles=[INSTRUCTOR], user_id="teacher-1")
    assert reply.status_code == 302


@pytest.mark.parametrize("binding", ["course-exam-board", ""], ids=["elsewhere", "unbound"])
def test_deep_linking_offers_no_quiz_of_a_grant_not_bound_here(lti: Lti, binding: str) -> None:
    # A grant bound to no LMS course admits learners only: picking would make an examiner.
    _bind(lti, binding)
    add_slots(lti.quiz, question(lti.quiz.course, TRUE_FALSE))
    reply, _ = launch(lti, roles=[INSTRUCTOR], deep_link_return="https://lms.uni.example/dl")
    assert reply.status_code == 200, reply.content
    assert lti.quiz.title not in reply.content.decode()
    picked = lti.browser.post("/lti/deep-link/", {"quiz": str(lti.quiz.pk)})
    assert picked.status_code == 403
    assert not CourseMembership.objects.filter(course=lti.quiz.course, role="examiner").exists()


def test_deep_linking_from_the_bound_lms_course_links_its_quiz(lti: Lti) -> None:
    _bind(lti, LAUNCH_CONTEXT)
    add_slots(lti.quiz, question(lti.quiz.course, TRUE_FALSE))
    reply, _ = launch(lti, roles=[INSTRUCTOR], deep_link_return="https://lms.uni.example/dl")
    assert lti.quiz.title in reply.content.decode()
    picked = lti.browser.post("/lti/deep-link/", {"quiz": str(lti.quiz.pk)})
    assert picked.status_code == 200
    assert CourseMembership.objects.filter(course=lti.quiz.course, role="examiner").exists()


def test_a_grant_bound_to_no_lms_course_admits_a_learner_but_keeps_no_roster(lti: Lti) -> None:
    _bind(lti, "")
    reply, _ = launch(
        lti, roles=[LEARNER], memberships_url=f"{lti.base}/memberships/{LAUNCH_CONTEXT}"
    )
    assert reply.status_code == 302
    assert CourseMembership.objects.filter(course=lti.quiz.course, role="student").exists()
    assert not LtiRosterSource.objects.exists()


def test_a_grant_bound_to_no_lms_course_makes_no_instructor_an_examiner(lti: Lti) -> None:
    _bind(lti, "")
    reply, _ = launch(lti, roles=[INSTRUCTOR, LEARNER], user_id="teacher-of-own-course")
    assert reply.status_code == 403
    page = reply.content.decode()
    assert "bound to no LMS course" in page
    assert LAUNCH_CONTEXT in page  # the context id an administrator binds the grant to
    assert not ExternalIdentity.objects.exists()
    assert not CourseMembership.objects.filter(course=lti.quiz.course).exists()
