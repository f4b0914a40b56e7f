"""Deep Linking round trip: the instructor picks a quiz and the platform (lti1p3platform)
verifies the signed response: a resource link with the quiz and a line item."""

import re
from typing import Any

import pytest
from lti1p3platform.registration import Registration
from lti_tool.models import Key

from lms.lti import CLAIM, DL_CLAIM
from lms.models import ExternalIdentity, LtiCourseGrant
from quizbank.models import CourseMembership
from tests.grading.content import SINGLE, TRUE_FALSE, VIVA
from tests.grading.factories import add_slots, new_quiz, question
from tests.lms.lti_world import Lti, launch
from tests.lms.platform import INSTRUCTOR, LEARNER, new_private_key, public_key_of

RETURN = "https://lms.uni.example/deep-link/return"


def test_an_instructor_picks_a_quiz_and_it_returns_as_a_resource_link(lti: Lti) -> None:
    course = lti.quiz.course
    add_slots(lti.quiz, question(course, TRUE_FALSE), question(course, VIVA, points="2"))
    hidden = new_quiz(title="Another university's quiz")
    reply, _ = launch(lti, roles=[INSTRUCTOR], user_id="teacher-1", deep_link_return=RETURN)
    assert reply.status_code == 200, reply.content
    page = reply.content.decode()
    assert "Week 1: tensors" in page
    assert hidden.title not in page
    picked = lti.browser.post("/lti/deep-link/", {"quiz": lti.quiz.pk})
    assert picked.status_code == 200
    html = picked.content.decode()
    assert f'action="{RETURN}"' in html
    jwt = re.search(r'name="JWT" value="([^"]+)"', html)
    assert jwt is not None
    platform = lti.conf()
    platform.get_registration()
    [item] = platform.validate_deeplinking_resp({"JWT": jwt.group(1)})
    assert item["type"] == "ltiResourceLink"
    assert item["url"] == "http://testserver/lti/launch/"
    assert item["custom"] == {"quiz_id": str(lti.quiz.pk)}
    assert item["lineItem"] == {
        "scoreMaximum": 3.0,
        "label": "Week 1: tensors",
        "resourceId": str(lti.quiz.pk),
        "tag": f"vivabank-quiz-{lti.quiz.pk}",
    }
    teacher = CourseMembership.objects.get(course=course, role="examiner")
    assert ExternalIdentity.objects.get(user=teacher.user).external_id == "teacher-1"


def test_a_learner_cannot_deep_link(lti: Lti) -> None:
    reply, _ = launch(lti, roles=[LEARNER], deep_link_return=RETURN)
    assert reply.status_code == 403
    assert "Only an instructor" in reply.content.decode()


def test_a_quiz_of_a_course_not_granted_cannot_be_picked(lti: Lti) -> None:
    other = new_quiz()
    add_slots(other, question(other.course, SINGLE))
    launch(lti, roles=[INSTRUCTOR], deep_link_return=RETURN)
    reply = lti.browser.post("/lti/deep-link/", {"quiz": other.pk})
    assert reply.status_code == 403
    assert not LtiCourseGrant.objects.filter(course=other.course).exists()


def test_picking_without_a_deep_linking_launch_is_refused(lti: Lti) -> None:
    assert lti.browser.post("/lti/deep-link/", {"quiz": lti.quiz.pk}).status_code == 403


def test_the_platform_rejects_a_response_signed_with_a_key_we_do_not_publish(lti: Lti) -> None:
    add_slots(lti.quiz, question(lti.quiz.course, TRUE_FALSE))
    launch(lti, roles=[INSTRUCTOR], deep_link_return=RETURN)
    html = lti.browser.post("/lti/deep-link/", {"quiz": lti.quiz.pk}).content.decode()
    jwt = re.search(r'name="JWT" value="([^"]+)"', html)
    assert jwt is not None
    stranger = {"keys": [Registration.get_jwk(public_key_of(new_private_key()))]}
    platform = lti.conf(tool_jwks=stranger)
    platform.get_registration()
    with pytest.raises(Exception, match="Unable to find public key"):
        platform.validate_deeplinking_resp({"JWT": jwt.group(1)})


def test_a_quiz_without_questions_cannot_be_linked(lti: Lti) -> None:
    launch(lti, roles=[INSTRUCTOR], deep_link_return=RETURN)
    reply = lti.browser.post("/lti/deep-link/", {"quiz": lti.quiz.pk})
    assert reply.status_code == 403
    assert "no questions" in reply.content.decode()


def test_a_pick_after_every_tool_key_was_deleted_says_to_run_rotate_keys(lti: Lti) -> None:
    add_slots(lti.quiz, question(lti.quiz.course, TRUE_FALSE))
    launch(lti, roles=[INSTRUCTOR], deep_link_return=RETURN)
    Key.objects.all().delete()
    reply = lti.browser.post("/lti/deep-link/", {"quiz": lti.quiz.pk})
    assert reply.status_code == 503
    assert "manage.py rotate_keys" in reply.content.decode()
    Key.objects.generate()  # the operator runs it: the same pick goes through
    again = lti.browser.post("/lti/deep-link/", {"quiz": lti.quiz.pk})
    assert again.status_code == 200
    assert f'action="{RETURN}"' in again.content.decode()


def _deep_linking_request(lti: Lti, return_url: str) -> Any:
    settings = {
        "deep_link_return_url": return_url,
        "accept_types": ["ltiResourceLink"],
        "accept_presentation_document_targets": ["window"],
    }
    claims = {CLAIM + "message_type": "LtiDeepLinkingRequest", DL_CLAIM: settings}
    reply, _ = launch(lti, roles=[INSTRUCTOR], user_id="teacher-1", extra_claims=claims)
    return reply


@pytest.mark.parametrize(
    "return_url", ["javascript:alert(document.domain)", "data:text/html,x", "//lms.uni.example/r"]
)
def test_a_deep_linking_request_whose_return_url_is_not_http_is_refused(
    lti: Lti, return_url: str
) -> None:
    add_slots(lti.quiz, question(lti.quiz.course, TRUE_FALSE))
    reply = _deep_linking_request(lti, return_url)
    assert reply.status_code == 403
    assert "deep_link_return_url is not an http(s) URL" in reply.content.decode()
    assert not ExternalIdentity.objects.exists()


def test_the_return_form_escapes_the_platforms_return_url(lti: Lti) -> None:
    add_slots(lti.quiz, question(lti.quiz.course, TRUE_FALSE))
    hostile = f'{RETURN}?a=1&b="><script>alert(1)</script>'
    assert _deep_linking_request(lti, hostile).status_code == 200
    html = lti.browser.post("/lti/deep-link/", {"quiz": lti.quiz.pk}).content.decode()
    assert "<script>alert(1)" not in html
    escaped = f"{RETURN}?a=1&amp;b=&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"
    assert f'action="{escaped}"' in html
