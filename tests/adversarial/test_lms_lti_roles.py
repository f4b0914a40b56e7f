"""Role escalation through LIS role URIs: a sub-role names its principal role before the
`#` (membership/Learner#Instructor is a kind of Learner, the LIS vocabulary's learner who
instructs), so only the principal role may decide the course role."""

from quizbank.models import CourseMembership
from tests.lms.lti_world import Lti, launch
from tests.lms.platform import LEARNER

MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"


def _roles_after_launch(lti: Lti, roles: list[str]) -> list[str]:
    reply, _ = launch(lti, roles=roles, user_id="student-9")
    assert reply.status_code == 302, reply.content
    rows = CourseMembership.objects.filter(
        course=lti.quiz.course, user__external_identities__external_id="student-9"
    )
    return sorted(rows.values_list("role", flat=True))


def test_a_learner_sub_role_named_instructor_gives_no_examiner_role(lti: Lti) -> None:
    assert _roles_after_launch(lti, [LEARNER, f"{MEMBERSHIP}/Learner#Instructor"]) == ["student"]


def test_a_look_alike_role_uri_gives_no_role(lti: Lti) -> None:
    looks_alike = f"{MEMBERSHIP}-extension#Instructor"
    assert _roles_after_launch(lti, [LEARNER, looks_alike]) == ["student"]


def test_a_teaching_assistant_sub_role_still_examines(lti: Lti) -> None:
    teaching_assistant = f"{MEMBERSHIP}/Instructor#TeachingAssistant"
    assert _roles_after_launch(lti, [teaching_assistant]) == ["examiner"]
