"""LTI 1.3 launches from a real platform (lti1p3platform), its JWKS served over HTTP:
login initiation, a signed launch that signs the user in and opens the quiz, and every
refused launch refused clearly with nothing created."""

import base64
import json
import logging
import time
from datetime import timedelta
from typing import Any
from urllib.parse import quote

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone
from lti1p3platform.registration import Registration
from lti_tool.models import Key, LtiDeployment

from grading.models import Attempt
from lms.errors import LaunchRefused
from lms.lti import AGS_CLAIM, CLAIM, DL_CLAIM, SCORE_SCOPE, refuse_untimely_token
from lms.models import ExternalIdentity, LtiCourseGrant, LtiLineItem, LtiNonceUse
from quizbank.models import CourseMembership
from tests.grading.content import TRUE_FALSE
from tests.grading.factories import add_slots, question
from tests.lms.lti_world import Lti, launch
from tests.lms.platform import (
    CLIENT_ID,
    INSTRUCTOR,
    ISSUER,
    LEARNER,
    login_url,
    new_private_key,
    path_and_query,
    public_key_of,
    query_of,
    signed_launch,
)


def test_a_learner_lands_in_the_quiz_signed_in(lti: Lti) -> None:
    add_slots(lti.quiz, question(lti.quiz.course, TRUE_FALSE))
    reply, _ = launch(lti)
    assert reply.status_code == 302, reply.content
    attempt = Attempt.objects.get(quiz=lti.quiz)
    assert reply["Location"] == f"/attempts/{attempt.pk}/"
    page = lti.browser.get(reply["Location"])
    assert page.status_code == 200
    html = page.content.decode()
    assert "Week 1: tensors" in html
    assert TRUE_FALSE["prompt"] in html
    identity = ExternalIdentity.objects.get(namespace=f"lti:{ISSUER}", external_id="moodle-user-7")
    assert attempt.user == identity.user
    assert identity.user.email == "ada@uni.example"
    roles = CourseMembership.objects.filter(user=identity.user, course=lti.quiz.course)
    assert list(roles.values_list("role", flat=True)) == ["student"]


def test_a_launch_after_submitting_shows_the_result_and_starts_nothing(lti: Lti) -> None:
    add_slots(lti.quiz, question(lti.quiz.course, TRUE_FALSE))
    launch(lti)
    attempt = Attempt.objects.get(quiz=lti.quiz)
    assert lti.browser.post(f"/api/attempts/{attempt.pk}/submit/").status_code == 200
    reply, _ = launch(lti)
    assert reply["Location"] == f"/attempts/{attempt.pk}/"
    page = lti.browser.get(reply["Location"], follow=True)
    assert page.redirect_chain == [(f"/attempts/{attempt.pk}/result/", 302)]
    assert "Week 1: tensors" in page.content.decode()
    assert Attempt.objects.filter(quiz=lti.quiz).count() == 1


def test_a_first_launch_into_a_timed_quiz_starts_no_clock(lti: Lti) -> None:
    add_slots(lti.quiz, question(lti.quiz.course, TRUE_FALSE))
    lti.quiz.time_limit = timedelta(minutes=30)
    lti.quiz.save()
    reply, _ = launch(lti)
    assert reply["Location"] == f"/dashboard/#quiz-{lti.quiz.pk}"
    assert not Attempt.objects.exists()
    page = lti.browser.get("/dashboard/").content.decode()
    assert "time limit of 0:30:00: it starts when you press Start" in page
    assert f'<tr id="quiz-{lti.quiz.pk}">' in page
    started = lti.browser.post(f"/quizzes/{lti.quiz.pk}/start/")
    attempt = Attempt.objects.get(quiz=lti.quiz)
    assert started["Location"] == f"/attempts/{attempt.pk}/"
    assert launch(lti)[0]["Location"] == f"/attempts/{attempt.pk}/", "a later launch resumes"


def test_a_launch_into_a_quiz_not_open_yet_lands_on_the_dashboard_saying_so(lti: Lti) -> None:
    add_slots(lti.quiz, question(lti.quiz.course, TRUE_FALSE))
    lti.quiz.opens_at = timezone.now() + timedelta(days=1)
    lti.quiz.save()
    reply, _ = launch(lti)
    assert reply["Location"] == "/dashboard/"
    page = lti.browser.get(reply["Location"])
    assert page.status_code == 200
    assert "not open" in page.content.decode().lower()
    assert not Attempt.objects.exists()


def test_an_instructor_lands_on_the_quiz_report(lti: Lti) -> None:
    reply, _ = launch(lti, roles=[INSTRUCTOR], user_id="teacher-1")
    assert reply["Location"] == f"/examiner/quizzes/{lti.quiz.pk}/report/"
    page = lti.browser.get(reply["Location"])
    assert page.status_code == 200
    assert "Week 1: tensors" in page.content.decode()
    assert not Attempt.objects.exists()


def test_a_second_launch_matches_the_same_user(lti: Lti) -> None:
    launch(lti)
    launch(lti)
    assert ExternalIdentity.objects.filter(external_id="moodle-user-7").count() == 1
    assert User.objects.filter(external_identities__external_id="moodle-user-7").count() == 1


def test_a_later_launch_brings_names_and_email_up_to_date(lti: Lti) -> None:
    launch(lti)
    renamed = {"given_name": "Ada", "family_name": "King", "email": "ada.king@uni.example"}
    launch(lti, extra_claims=renamed)
    user = User.objects.get(external_identities__external_id="moodle-user-7")
    assert (user.first_name, user.last_name, user.email) == ("Ada", "King", "ada.king@uni.example")
    # A platform that stops sending a field (a privacy setting) does not blank it here.
    launch(lti, extra_claims={"name": None, "given_name": None, "family_name": "", "email": "x"})
    user.refresh_from_db()
    assert (user.first_name, user.last_name, user.email) == ("Ada", "King", "ada.king@uni.example")


def test_an_instructor_becomes_an_examiner(lti: Lti) -> None:
    launch(lti, roles=[INSTRUCTOR], user_id="teacher-1")
    user = User.objects.get(external_identities__external_id="teacher-1")
    roles = CourseMembership.objects.filter(user=user, course=lti.quiz.course)
    assert list(roles.values_list("role", flat=True)) == ["examiner"]


def _rows() -> tuple[int, ...]:
    return (
        User.objects.count(),
        ExternalIdentity.objects.count(),
        CourseMembership.objects.count(),
        LtiDeployment.objects.count(),
    )


def _refused(reply: Any, words: str, before: tuple[int, ...]) -> None:
    assert reply.status_code == 403
    assert words in reply.content.decode()
    assert _rows() == before
    assert "_auth_user_id" not in reply.wsgi_request.session


def test_a_replayed_launch_is_refused(lti: Lti) -> None:
    first, body = launch(lti)
    assert first.status_code == 302
    before = _rows()
    replayed = Client().post("/lti/launch/", body)  # the same id_token and state, elsewhere
    _refused(replayed, "already used", before)
    cookie_replay = lti.browser.post("/lti/launch/", body)  # and from the same browser
    assert cookie_replay.status_code == 403
    assert LtiNonceUse.objects.count() == 1


def test_a_launch_signed_with_another_key_under_the_platforms_kid_is_refused(lti: Lti) -> None:
    kid = Registration.get_jwk(public_key_of(lti.settings.private_key))["kid"]
    forger = lti.conf(private_key=new_private_key(), kid=kid)
    before = _rows()
    reply, _ = launch(lti, forger)
    _refused(reply, "Signature verification failed", before)


def test_a_launch_under_an_unknown_kid_is_refused(lti: Lti) -> None:
    before = _rows()
    reply, _ = launch(lti, lti.conf(private_key=new_private_key()))
    _refused(reply, "Unable to find public key", before)


def test_a_launch_from_an_unknown_deployment_is_refused(lti: Lti) -> None:
    before = _rows()
    reply, _ = launch(lti, lti.conf(deployment_id="somewhere-else"))
    _refused(reply, "Unable to find deployment", before)


def test_an_expired_launch_is_refused(lti: Lti) -> None:
    before = _rows()
    reply, _ = launch(lti, expires_in=-120)
    _refused(reply, "Signature has expired", before)


def test_a_launch_for_another_audience_is_refused(lti: Lti) -> None:
    before = _rows()
    reply, _ = launch(lti, lti.conf(client_id="another-tool"))
    _refused(reply, "Registration not found", before)


def test_a_launch_whose_state_does_not_match_is_refused(lti: Lti) -> None:
    before = _rows()
    reply, _ = launch(lti, state="forged-state")
    _refused(reply, "State not found", before)


def test_a_launch_into_a_course_not_granted_to_the_platform_is_refused(lti: Lti) -> None:
    LtiCourseGrant.objects.all().delete()
    before = _rows()
    reply, _ = launch(lti)
    _refused(reply, "names no quiz this platform may open", before)
    assert LtiNonceUse.objects.count() == 0


def test_the_jwks_lists_both_keys_while_one_replaces_the_other(lti: Lti) -> None:
    old = Key.objects.get()
    new = Key.objects.generate()
    kids = {k["kid"] for k in lti.browser.get("/lti/jwks/").json()["keys"]}
    assert len(kids) == 2
    old.is_active = False
    old.save()
    assert len(lti.browser.get("/lti/jwks/").json()["keys"]) == 1
    assert new.is_active


def _b64(part: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(part).encode()).rstrip(b"=").decode()


def _unsigned(header: Any, payload: Any) -> str:
    return f"{_b64(header)}.{_b64(payload)}.sig"


# Payloads PyLTI1p3 would read with .get, or use as a cache key, before any signature check.
NOT_OBJECTS_OR_BAD_NONCES = [[1], "str", 1, None, {"nonce": ["x"]}, {"nonce": {"a": 1}}]


@pytest.mark.parametrize("payload", NOT_OBJECTS_OR_BAD_NONCES)
def test_a_token_whose_payload_has_the_wrong_shape_is_refused_and_logged(
    lti: Lti, payload: Any, caplog: pytest.LogCaptureFixture
) -> None:
    browser = Client()
    browser.cookies["lti1p3-abc"] = "abc"
    before = _rows()
    with caplog.at_level(logging.WARNING, logger="lms.lti"):
        reply = browser.post(
            "/lti/launch/", {"state": "abc", "id_token": _unsigned({"alg": "RS256"}, payload)}
        )
    _refused(reply, "malformed", before)
    assert "This launch from your LMS was refused" in reply.content.decode()
    assert "malformed id_token" in caplog.text
    assert LtiNonceUse.objects.count() == 0


# Past the nonce check (a real login's nonce and state), still unsigned: the header, issuer,
# audience and deployment PyLTI1p3 reads (and looks up in the database) before the signature.
AFTER_LOGIN: list[tuple[Any, dict[str, Any]]] = [
    ([1], {}),
    ({"alg": "RS256"}, {"aud": []}),
    ({"alg": "RS256"}, {"aud": [{"a": 1}]}),
    ({"alg": "RS256"}, {"iss": {"a": 1}}),
    ({"alg": "RS256"}, {"iss": ["x"]}),
    ({"alg": "RS256"}, {CLAIM + "deployment_id": {"a": 1}}),
]


@pytest.mark.parametrize(("header", "claims"), AFTER_LOGIN)
def test_a_token_with_a_malformed_header_or_registration_claim_is_refused(
    lti: Lti, header: Any, claims: dict[str, Any]
) -> None:
    login = lti.browser.get(path_and_query(login_url(lti.conf(), "student-9")))
    asked = query_of(login["Location"])
    payload = {"iss": ISSUER, "aud": CLIENT_ID, "nonce": asked["nonce"], **claims}
    before = _rows()
    reply = lti.browser.post(
        "/lti/launch/", {"state": asked["state"], "id_token": _unsigned(header, payload)}
    )
    _refused(reply, "malformed", before)


# Signed by the platform, so past the signature: claims PyLTI1p3's message validators read.
SIGNED_MALFORMED = [
    {CLAIM + "resource_link": ["x"]},
    {CLAIM + "message_type": "LtiDeepLinkingRequest", DL_CLAIM: ["x"]},
    {CLAIM + "message_type": "LtiSubmissionReviewRequest", AGS_CLAIM: 5, CLAIM + "for_user": 5},
    {
        CLAIM + "message_type": "LtiSubmissionReviewRequest",
        AGS_CLAIM: {"lineitem": "x"},
        CLAIM + "for_user": 5,
    },
]


@pytest.mark.parametrize("claims", SIGNED_MALFORMED)
def test_a_signed_launch_with_a_malformed_validated_claim_is_refused(
    lti: Lti, claims: dict[str, Any]
) -> None:
    before = _rows()
    reply, _ = launch(lti, extra_claims=claims)
    _refused(reply, "malformed", before)


def test_what_pylti1p3_raises_on_a_malformed_token_the_check_missed_is_a_refusal(
    lti: Lti, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr("lms.lti.id_token_malformation", lambda id_token: None)
    browser = Client()
    browser.cookies["lti1p3-abc"] = "abc"
    before = _rows()
    with caplog.at_level(logging.WARNING, logger="lms.lti"):
        reply = browser.post(
            "/lti/launch/", {"state": "abc", "id_token": _unsigned({"alg": "RS256"}, [1])}
        )
    _refused(reply, "could not be read", before)
    assert "AttributeError" in caplog.text


LINE_ITEM = "https://lms.uni.example/lineitems/9/lineitem"
BAD_AGS: list[tuple[dict[str, Any], str]] = [
    ({"scope": [SCORE_SCOPE, float("nan")], "lineitem": LINE_ITEM}, "NaN or Infinity"),
    ({"scope": [SCORE_SCOPE], "lineitem": LINE_ITEM, "x": float("inf")}, "NaN or Infinity"),
    ({"scope": SCORE_SCOPE, "lineitem": LINE_ITEM}, "scope is not a list of strings"),
    ({"scope": [SCORE_SCOPE, 3], "lineitem": LINE_ITEM}, "scope is not a list of strings"),
    ({"scope": [SCORE_SCOPE], "lineitem": 7}, "lineitem is not an http(s) URL"),
    ({"scope": [SCORE_SCOPE], "lineitem": "lineitems/9"}, "lineitem is not an http(s) URL"),
]


@pytest.mark.parametrize(("endpoint", "words"), BAD_AGS)
def test_a_launch_whose_grade_service_claim_cannot_be_stored_is_refused_naming_it(
    lti: Lti, endpoint: dict[str, Any], words: str
) -> None:
    before = _rows()
    reply, _ = launch(lti, extra_claims={AGS_CLAIM: endpoint})
    _refused(reply, words, before)
    assert AGS_CLAIM in reply.content.decode()
    assert not LtiLineItem.objects.exists()
    assert LtiNonceUse.objects.count() == 0


def test_a_login_before_the_tool_has_a_key_says_to_run_rotate_keys(lti: Lti) -> None:
    Key.objects.all().delete()
    reply = lti.browser.get(path_and_query(login_url(lti.conf(), "student-9")))
    assert reply.status_code == 503
    assert "manage.py rotate_keys" in reply.content.decode()


def test_a_launch_before_the_tool_has_a_key_says_to_run_rotate_keys(lti: Lti) -> None:
    login = lti.browser.get(path_and_query(login_url(lti.conf(), "student-9")))
    Key.objects.all().delete()  # between the login and the launch
    data = signed_launch(
        lti.conf(),
        login["Location"],
        user_id="student-9",
        roles=[LEARNER],
        custom={"quiz_id": str(lti.quiz.pk)},
    )
    before = _rows()
    reply = lti.browser.post("/lti/launch/", {"id_token": data["id_token"], "state": data["state"]})
    assert reply.status_code == 503
    assert "manage.py rotate_keys" in reply.content.decode()
    assert _rows() == before


# What an LMS sends as a display name is not ours to refuse: it is stored under the one-line
# rule (line breaks as spaces; control and bidi characters dropped), and a claim that is no
# string, or an email that is no address, is left out rather than stored as its repr.
ODD_PROFILES: list[tuple[dict[str, Any], tuple[str, str, str]]] = [
    (
        {"given_name": " Ada\x07\x1b[31m\u202e ", "family_name": "Love\nlace\u2066"},
        ("Ada[31m", "Love lace", "ada@uni.example"),
    ),
    (
        {"given_name": "x" * 10_000, "family_name": "\u202e" * 200},
        ("x" * 150, "", "ada@uni.example"),
    ),
    ({"given_name": {"a": 1}, "name": ["x"], "family_name": 5, "email": 7}, ("", "", "")),
    ({"email": "ada@uni.example\r\nBcc: all@uni.example"}, ("Ada Lovelace", "", "")),
    ({"email": "a" * 10_000 + "@uni.example"}, ("Ada Lovelace", "", "")),
    ({"email": "a" * 250 + "@uni.example"}, ("Ada Lovelace", "", "")),  # valid, over 254
]


@pytest.mark.parametrize(("claims", "stored"), ODD_PROFILES)
def test_an_lms_display_name_is_stored_on_one_clean_line(
    lti: Lti, claims: dict[str, Any], stored: tuple[str, str, str]
) -> None:
    reply, _ = launch(lti, extra_claims=claims)
    assert reply.status_code == 302, reply.content
    user = User.objects.get(external_identities__external_id="moodle-user-7")
    assert (user.first_name, user.last_name, user.email) == stored


# OpenID Connect and the LTI security framework: an id_token for several audiences names
# the one it was issued to in `azp`, and it must be us.
@pytest.mark.parametrize(
    "claims",
    [
        {"aud": [CLIENT_ID, "another-tool"], "azp": None},
        {"aud": [CLIENT_ID, "another-tool"], "azp": "another-tool"},
        {"aud": CLIENT_ID, "azp": "another-tool"},
    ],
)
def test_a_launch_issued_to_another_party_is_refused(lti: Lti, claims: dict[str, Any]) -> None:
    before = _rows()
    reply, _ = launch(lti, extra_claims=claims)
    _refused(reply, "azp", before)


def test_a_launch_for_several_audiences_issued_to_us_is_accepted(lti: Lti) -> None:
    reply, _ = launch(lti, extra_claims={"aud": [CLIENT_ID, "another-tool"], "azp": CLIENT_ID})
    assert reply.status_code == 302, reply.content


def test_a_launch_issued_to_live_for_years_is_refused(lti: Lti) -> None:
    before = _rows()
    reply, _ = launch(lti, expires_in=10 * 365 * 86400)
    _refused(reply, "lives longer than a day", before)


def test_an_id_token_issued_in_the_future_is_refused() -> None:
    now = time.time()
    refuse_untimely_token({"iat": now + 30, "exp": now + 330}, now)  # clock skew: accepted
    for body in ({"iat": now + 3600, "exp": now + 3900}, {"iat": "now", "exp": now}, {}):
        with pytest.raises(LaunchRefused, match="iat"):
            refuse_untimely_token(body, now)


def test_a_login_initiation_aiming_the_token_at_another_site_is_refused(lti: Lti) -> None:
    """The platform posts the id_token to target_link_uri: one off this site would hand a
    valid launch to whoever owns it, if the platform does not check the redirect itself."""
    login = login_url(lti.conf(), "student-9").replace(
        "target_link_uri=", "target_link_uri=https%3A%2F%2Fevil.example%2Fcatch&x="
    )
    reply = lti.browser.get(path_and_query(login))
    assert reply.status_code == 403
    assert "not on this site" in reply.content.decode()


@pytest.mark.parametrize("target", ["http://[", "https://[::1/lti/launch/", "https://testserver]/"])
def test_a_login_initiation_whose_target_is_no_url_is_refused(lti: Lti, target: str) -> None:
    login = login_url(lti.conf(), "student-9").replace(
        "target_link_uri=", f"target_link_uri={quote(target, safe='')}&x="
    )
    reply = lti.browser.get(path_and_query(login))
    assert reply.status_code == 403
    assert "not on this site" in reply.content.decode()
