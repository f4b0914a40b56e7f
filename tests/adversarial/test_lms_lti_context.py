"""An instructor of one LMS course (context) adds a link whose custom quiz_id names a
quiz of another Vivabank course granted to the same platform: without a binding, their
launch makes them an examiner there and their students its students. A grant bound to
an LMS course (context id) opens only to launches and deep linking from that course."""

from lms.models import ExternalIdentity, LtiCourseGrant
from quizbank.models import CourseMembership
from tests.grading.content import TRUE_FALSE
from tests.grading.factories import add_slots, question
from tests.lms.lti_world import Lti, launch
from tests.lms.platform import INSTRUCTOR

LAUNCH_CONTEXT = "course-dl-101"  # the context every test launch comes from


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


def test_deep_linking_from_another_lms_course_offers_no_bound_quiz(lti: Lti) -> None:
    _bind(lti, "course-exam-board")
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
