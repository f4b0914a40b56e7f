"""The one module that uses PyLTI1p3 and django-lti: OIDC login, launch validation, JWKS.

PyLTI1p3 checks the id_token's signature (by `kid`, against the platform's JWKS URL or
the keys pasted at registration; one pasted PEM key serves whatever the `kid`), issuer,
audience (the registration's client id, as the first), expiry, deployment, message type
and version, nonce and state. Three things are ours: the authorized party (`azp`) of an
id_token for several audiences must be us, a launch with an unknown (or inactive)
deployment is refused instead of registering it, and a nonce is good for one launch only
(`lms.services.lti_launch` records it; PyLTI1p3 alone accepts a replay). PyLTI1p3 trusts
the id_token's shape (a JSON object whose claims have their LTI types), so that is checked
first.
"""

import base64
import json
import logging
import math
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Final, cast
from urllib.parse import urlsplit

import requests
import requests.adapters
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.http.request import validate_host
from django.utils.html import format_html
from lti_tool.models import Key, LtiDeployment, LtiRegistration
from lti_tool.utils import DjangoToolConfig
from pylti1p3.assignments_grades import AssignmentsGradesService
from pylti1p3.contrib.django.launch_data_storage.cache import DjangoCacheDataStorage
from pylti1p3.contrib.django.message_launch import DjangoMessageLaunch
from pylti1p3.contrib.django.oidc_login import DjangoOIDCLogin
from pylti1p3.deep_link import DeepLink
from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.deployment import Deployment
from pylti1p3.exception import LtiException, OIDCException
from pylti1p3.grade import Grade
from pylti1p3.lineitem import LineItem
from pylti1p3.names_roles import NamesRolesProvisioningService
from pylti1p3.registration import Registration, TKeySet
from pylti1p3.service_connector import ServiceConnector

from config.exceptions import DomainError
from config.text import unstorable_text
from lms.errors import (
    LaunchRefused,
    RosterNotFetched,
    ScoreNotSent,
    ToolKeyMissing,
    WebhookUrlRefused,
)
from lms.services.platform_keys import platform_keys_of
from lms.services.webhook_targets import (
    WebhookTarget,
    host_header,
    platform_refusal,
    platform_target,
    platform_url_refusal,
)

logger = logging.getLogger(__name__)

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
DL_CLAIM = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
RESOURCE_LINK = "LtiResourceLinkRequest"
DEEP_LINKING = "LtiDeepLinkingRequest"
SCORE_SCOPE: Final = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
LIS_ROLE = "http://purl.imsglobal.org/vocab/lis/v2/membership"


@dataclass(frozen=True)
class LaunchClaims:
    """What a validated launch says, in our terms."""

    registration_id: int
    issuer: str
    nonce: str
    subject: str
    message_type: str
    roles: frozenset[str]  # the LIS membership role names: Learner, Instructor, ...
    custom: dict[str, Any] = field(default_factory=dict)
    name: str = ""
    given_name: str = ""
    family_name: str = ""
    email: str = ""
    ags: dict[str, Any] = field(default_factory=dict)  # the AGS endpoint claim, if any
    deployment_id: str = ""
    deep_linking: dict[str, Any] = field(default_factory=dict)  # a deep linking request's
    memberships_url: str = ""  # NRPS: where the platform lists the context's members
    context_id: str = ""  # the LMS course launched from


NO_TOOL_KEY = (
    "Vivabank has no LTI signing key yet: its operator must run "
    "`python manage.py rotate_keys` (see docs/lms.md)."
)


@contextmanager
def _tool_key_needed() -> Iterator[None]:
    """django-lti gives a registration our newest active key, and raises Key.DoesNotExist
    while there is none."""
    try:
        yield
    except Key.DoesNotExist as exc:
        logger.error("LTI refused: the tool has no signing key; run `manage.py rotate_keys`")
        raise ToolKeyMissing(NO_TOOL_KEY) from exc


class _ToolConf(DjangoToolConfig):  # type: ignore[misc]  # django-lti is untyped
    """django-lti's registry, except that a launch never creates a deployment, and that
    a registration's pasted keys replace its JWKS URL."""

    platform_pem: str | None = None  # one pasted PEM key: it verifies whatever the kid

    def _with_pasted_keys(self, found: Registration | None) -> Registration | None:
        keys = None if found is None else platform_keys_of(self.registration)
        self.platform_pem = None if keys is None else keys.pem
        if found is not None and keys is not None and keys.jwks is not None:
            found.set_key_set(cast(TKeySet, keys.jwks))  # checked by platform_keys_parse
        return found

    def find_registration_by_issuer(self, iss: str, *args: Any, **kwargs: Any) -> Any:
        with _tool_key_needed():
            found = super().find_registration_by_issuer(iss, *args, **kwargs)
        return self._with_pasted_keys(found)

    def find_registration_by_params(
        self, iss: str, client_id: str, *args: Any, **kwargs: Any
    ) -> Any:
        with _tool_key_needed():
            found = super().find_registration_by_params(iss, client_id, *args, **kwargs)
        return self._with_pasted_keys(found)

    def _known(self, **lookups: Any) -> Deployment | None:
        found = LtiDeployment.objects.filter(
            registration__is_active=True, is_active=True, **lookups
        ).first()
        self.deployment = found
        return None if found is None else Deployment().set_deployment_id(found.deployment_id)

    def find_deployment(self, iss: str, deployment_id: str) -> Deployment | None:
        return self._known(registration__issuer=iss, deployment_id=deployment_id)

    def find_deployment_by_params(
        self, iss: str, deployment_id: str, client_id: str, *args: Any, **kwargs: Any
    ) -> Deployment | None:
        return self._known(
            registration__issuer=iss,
            registration__client_id=client_id,
            deployment_id=deployment_id,
        )


class _Launch(DjangoMessageLaunch):
    def get_public_key(self) -> tuple[str, str]:
        pem = self._tool_config.platform_pem
        if pem:
            return str(pem), "RS256"
        key: tuple[str, str] = super().get_public_key()
        return key


def _storage() -> DjangoCacheDataStorage:
    # Login and launch may reach different processes: production needs a shared CACHE_URL.
    return DjangoCacheDataStorage()  # type: ignore[no-untyped-call]  # untyped contrib module


def oidc_login(request: HttpRequest) -> HttpResponse:
    """Answer the platform's third-party login initiation: a redirect to its auth URL
    with a fresh state (also set as a cookie) and nonce."""
    params = request.POST if request.method == "POST" else request.GET
    target = params.get("target_link_uri")
    if not target:
        raise LaunchRefused("The login initiation has no target_link_uri.")
    if not _is_http_url(target) or not validate_host(
        urlsplit(target).hostname or "", settings.ALLOWED_HOSTS
    ):
        # The platform sends the id_token there: it must be this site.
        raise LaunchRefused("The login initiation's target_link_uri is not on this site.")
    login = DjangoOIDCLogin(request, _ToolConf(), launch_data_storage=_storage())  # type: ignore[no-untyped-call]  # untyped
    try:
        response: HttpResponse = login.redirect(target)
    except (LtiException, OIDCException) as exc:  # OIDCException: no iss, no login_hint
        raise LaunchRefused(str(exc)) from exc
    return response


def role_names(roles: Any) -> frozenset[str]:
    """LIS membership role names (Learner, Instructor...) from a list of context role URIs,
    a sub-role as its principal; NRPS may also give the short names themselves. Anything
    else (institution and system roles, look-alike URIs) names no role."""
    names = set()
    for role in roles if isinstance(roles, list) else []:
        if not isinstance(role, str):
            continue
        if role.startswith(f"{LIS_ROLE}#"):
            names.add(role.removeprefix(f"{LIS_ROLE}#"))
        elif role.startswith(f"{LIS_ROLE}/") and "#" in role:
            # A sub-role counts as its principal (before the `#`): Learner#Instructor is a
            # learner, Instructor#TeachingAssistant an instructor.
            names.add(role.removeprefix(f"{LIS_ROLE}/").split("#", 1)[0])
        elif ":" not in role and "/" not in role:
            names.add(role)
    return frozenset(names)


def _roles(body: dict[str, Any]) -> frozenset[str]:
    return role_names(body.get(CLAIM + "roles", []))


def _object(claim: Any) -> dict[str, Any]:
    """A claim that should be a JSON object; a platform's malformed one counts as absent."""
    return dict(claim) if isinstance(claim, dict) else {}


def claim_text(claim: Any) -> str:
    """A claim that should be a string; a platform's claim of another type counts as absent."""
    return claim if isinstance(claim, str) else ""


# The claims PyLTI1p3 reads while it validates a launch, some before the signature is
# checked: it calls `.get` (or `in`) on the objects, makes cache keys of the strings and
# looks both up in the database, and fails with an AttributeError or TypeError on others.
_TEXT_CLAIMS = ("iss", "nonce", CLAIM + "deployment_id", CLAIM + "message_type")
_OBJECT_CLAIMS = (CLAIM + "resource_link", CLAIM + "for_user", AGS_CLAIM, DL_CLAIM)


def _unverified(part: str) -> Any:
    """One base64url part of a JWT, parsed as JSON (its signature not checked)."""
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def id_token_malformation(id_token: str) -> str | None:
    """What is wrong with the shape of an id_token's header or claims, if anything. Read
    before the signature is checked, so nothing in it is trusted, only refused."""
    parts = id_token.split(".")
    if len(parts) != 3:
        return "it is not three dot-separated parts"
    try:
        header, body = _unverified(parts[0]), _unverified(parts[1])
    except (ValueError, RecursionError):  # binascii.Error, UnicodeDecodeError: ValueErrors
        return "its header or payload is not base64url-encoded JSON"
    if not isinstance(header, dict):
        return "its header is not a JSON object"
    if not isinstance(body, dict):
        return "its payload is not a JSON object"
    for name in _TEXT_CLAIMS:
        if name in body and not isinstance(body[name], str):
            return f"the claim {name} is not a string"
    aud = body.get("aud")
    if "aud" in body and not (
        isinstance(aud, str) or (isinstance(aud, list) and aud and _all_text(aud))
    ):
        return "the claim aud is not a string or a list of strings"
    for name in _OBJECT_CLAIMS:
        if name in body and not isinstance(body[name], dict):
            return f"the claim {name} is not a JSON object"
    return None


def _all_text(values: list[Any]) -> bool:
    return all(isinstance(value, str) for value in values)


def _validated_body(request: HttpRequest, conf: _ToolConf) -> dict[str, Any]:
    id_token = request.POST.get("id_token")  # a missing one PyLTI1p3 refuses by name
    malformation = id_token_malformation(id_token) if id_token else None
    if malformation:
        logger.warning("LTI launch refused: malformed id_token: %s", malformation)
        raise LaunchRefused(f"The launch's id_token is malformed: {malformation}.")
    launch = _Launch(request, conf, launch_data_storage=_storage())  # type: ignore[no-untyped-call]  # untyped base
    try:
        return dict(launch.validate().get_launch_data())
    except (LtiException, requests.RequestException) as exc:
        raise LaunchRefused(str(exc)) from exc
    except (AttributeError, TypeError, ValueError, LookupError) as exc:
        # What PyLTI1p3 raises on a claim of a type it assumes and the check above missed.
        logger.warning("LTI launch refused: PyLTI1p3 could not read the id_token", exc_info=True)
        raise LaunchRefused("The launch's id_token is malformed: it could not be read.") from exc


def non_finite_numbers(data: Any) -> list[str]:
    """Where parsed JSON holds NaN or an infinity (Python's parser reads them, but they are
    no JSON: PostgreSQL's json columns refuse them), as paths like `claim.scope[1]`."""
    found: list[str] = []
    pending: list[tuple[str, Any]] = [("", data)]
    while pending:
        path, value = pending.pop()
        if isinstance(value, float) and not math.isfinite(value):
            found.append(path)
        elif isinstance(value, dict):
            pending.extend((f"{path}.{k}" if path else str(k), v) for k, v in value.items())
        elif isinstance(value, list):
            pending.extend((f"{path}[{i}]", v) for i, v in enumerate(value))
    return sorted(found)


def _is_http_url(value: Any) -> bool:
    try:
        parts = urlsplit(value) if isinstance(value, str) else None
    except ValueError:  # an unclosed IPv6 bracket
        return False
    return parts is not None and parts.scheme in ("http", "https") and bool(parts.hostname)


def _ags_malformation(ags: dict[str, Any]) -> str | None:
    """What is wrong with the AGS endpoint claim's parts Vivabank stores, if anything."""
    scope = ags.get("scope", [])
    if not isinstance(scope, list) or not _all_text(scope):
        return "its scope is not a list of strings"
    if "lineitem" in ags and not _is_http_url(ags["lineitem"]):
        return "its lineitem is not an http(s) URL"
    return None


def _deep_linking_malformation(settings: dict[str, Any]) -> str | None:
    """What is wrong with the deep linking settings claim, if anything: its return URL is
    where the instructor's browser is sent (a `javascript:` one would run on our pages)."""
    url = settings.get("deep_link_return_url")
    if url is not None and not _is_http_url(url):
        return "its deep_link_return_url is not an http(s) URL"
    return None


def _refuse_unstorable(body: dict[str, Any]) -> None:
    if unstorable := unstorable_text(body):
        names = ", ".join(sorted(unstorable))
        raise LaunchRefused(f"The launch's claims hold a NUL or an unpaired surrogate: {names}.")
    if non_finite := non_finite_numbers(body):
        names = ", ".join(non_finite)
        raise LaunchRefused(f"The launch's claims hold NaN or Infinity (not JSON): {names}.")
    if malformation := _ags_malformation(_object(body.get(AGS_CLAIM))):
        claim = f"The launch's AGS endpoint claim ({AGS_CLAIM})"
        raise LaunchRefused(f"{claim} is malformed: {malformation}.")
    if malformation := _deep_linking_malformation(_object(body.get(DL_CLAIM))):
        claim = f"The launch's deep linking settings claim ({DL_CLAIM})"
        raise LaunchRefused(f"{claim} is malformed: {malformation}.")


def _refuse_other_party(body: dict[str, Any], client_id: str) -> None:
    """An id_token for several audiences names the one it was issued to in `azp` (OpenID
    Connect, the LTI security framework), and it must be us; PyLTI1p3 checks only that
    the first audience is."""
    several = isinstance(body.get("aud"), list) and len(body["aud"]) > 1
    if (several or "azp" in body) and body.get("azp") != client_id:
        raise LaunchRefused(
            "The launch's id_token was not issued to this tool: with several audiences "
            "its azp (authorized party) must be this tool's client id."
        )


# A platform's clock may run a little ahead of ours; an id_token lives minutes (Canvas: an
# hour), so one issued for longer was not made for one launch.
_CLOCK_SKEW_S = 60
_LONGEST_TOKEN_S = 24 * 3600


def refuse_untimely_token(body: dict[str, Any], now: float) -> None:
    """PyJWT refuses an expired id_token; one issued in the future, or to live for days,
    is refused here (each nonce and state is used once, but a leaked token should not
    keep for long)."""
    issued, expires = body.get("iat"), body.get("exp")
    if not isinstance(issued, int | float) or not isinstance(expires, int | float):
        raise LaunchRefused("The launch's id_token needs numeric iat and exp claims.")
    if issued > now + _CLOCK_SKEW_S:
        raise LaunchRefused("The launch's id_token was issued in the future (its iat).")
    if expires - issued > _LONGEST_TOKEN_S:
        raise LaunchRefused("The launch's id_token lives longer than a day (its exp).")


def launch_claims(request: HttpRequest) -> LaunchClaims:
    """Validate the launch POSTed by the platform; LaunchRefused says why not."""
    conf = _ToolConf()
    body = _validated_body(request, conf)
    refuse_untimely_token(body, time.time())
    _refuse_other_party(body, str(conf.registration.client_id))
    _refuse_unstorable(body)
    return LaunchClaims(
        registration_id=conf.registration.pk,
        issuer=str(body["iss"]),
        nonce=str(body["nonce"]),
        subject=str(body.get("sub", "")),
        message_type=str(body.get(CLAIM + "message_type", "")),
        roles=_roles(body),
        custom=_object(body.get(CLAIM + "custom")),
        name=claim_text(body.get("name")),
        given_name=claim_text(body.get("given_name")),
        family_name=claim_text(body.get("family_name")),
        email=claim_text(body.get("email")),
        ags=_object(body.get(AGS_CLAIM)),
        deployment_id=str(body.get(CLAIM + "deployment_id", "")),
        deep_linking=_object(body.get(DL_CLAIM)),
        context_id=claim_text(_object(body.get(CLAIM + "context")).get("id")),
        memberships_url=claim_text(_object(body.get(NRPS_CLAIM)).get("context_memberships_url")),
    )


def tool_jwks() -> dict[str, Any]:
    """Our public keys: every active key, so a new key and the one it replaces are both
    live while platforms refresh their copy (the newest signs)."""
    jwks: dict[str, Any] = Key.objects.as_jwks()
    return jwks


def _registered_urls(registration: LtiRegistration) -> list[str]:
    return [registration.auth_url, registration.token_url, registration.keyset_url]


def _service_url_refusal(registration: LtiRegistration, url: str) -> str | None:
    return platform_url_refusal(url, _registered_urls(registration))


# A platform's token and service calls: a score is sent with its sync row locked (so two sends
# never cross), and grading a student's next attempt waits on that row, so a platform that
# hangs must not hold it for ever.
PLATFORM_TIMEOUT_S = 10.0


class _CheckedAddressAdapter(requests.adapters.HTTPAdapter):
    """Sends each request to the address the URL rule (`platform_target`) checked just
    before, not to a fresh lookup of the host name: a name that re-resolves to an internal
    address in between (DNS rebinding) reaches nothing. TLS still names and verifies the
    host; a registered host is reached by its name."""

    def __init__(self, registered_urls: list[str]) -> None:
        super().__init__(max_retries=0)
        self.registered_urls = registered_urls
        self._checked: WebhookTarget | None = None

    def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> Any:
        try:
            self._checked = platform_target(str(request.url), self.registered_urls)
        except WebhookUrlRefused as refused:
            raise requests.RequestException(platform_refusal(refused)) from refused
        if self._checked is not None:
            request.headers["Host"] = host_header(self._checked)
        return super().send(request, *args, **kwargs)

    def build_connection_pool_key_attributes(
        self, request: requests.PreparedRequest, verify: Any, cert: Any = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        host_params, pool_kwargs = super().build_connection_pool_key_attributes(
            request, verify, cert
        )
        checked = self._checked
        if checked is not None:
            host_params["host"] = checked.address
            if checked.scheme == "https":
                pool_kwargs.update(server_hostname=checked.host, assert_hostname=checked.host)
        return host_params, pool_kwargs


class _PlatformSession(requests.Session):
    """Every call to a platform's services: each URL held to the rule of
    `platform_target` (a roster's next page comes in the platform's answer) and sent to
    the address it checked, no redirect followed (it would lead past that rule), and a
    timeout."""

    def __init__(self, registration: LtiRegistration) -> None:
        super().__init__()
        adapter = _CheckedAddressAdapter(_registered_urls(registration))
        self.mount("http://", adapter)
        self.mount("https://", adapter)
        self.headers["User-Agent"] = "Vivabank-LTI/1"

    def request(  # type: ignore[override]  # the same call, its arguments passed through
        self, method: str, url: str, *args: Any, **kwargs: Any
    ) -> requests.Response:
        kwargs.setdefault("timeout", PLATFORM_TIMEOUT_S)
        kwargs["allow_redirects"] = False
        response = super().request(method, url, *args, **kwargs)
        if response.is_redirect:
            where = response.headers.get("Location", "")[:200]
            raise requests.RequestException(
                f"the platform answered {response.status_code}, a redirect to {where!r}; "
                "redirects are not followed"
            )
        return response


def _signing_registration(stored: LtiRegistration) -> Registration:
    """The registration with the key our messages are signed with; ToolKeyMissing while
    the tool has none (every key deleted since the launch)."""
    with _tool_key_needed():
        registration: Registration = stored.to_registration()
    return registration


_GRANT_UNREADABLE = (
    "the platform's token endpoint answer could not be read: it holds no access_token text"
)


class _Connector(ServiceConnector):
    """PyLTI1p3's connector, refusing a token endpoint's answer that holds no token (an error
    answered with 200, a list): PyLTI1p3 would fail on it with a KeyError or TypeError."""

    def get_access_token(self, scopes: Sequence[str]) -> str:
        try:
            token = super().get_access_token(scopes)
        except (LookupError, TypeError) as exc:
            raise LtiException(_GRANT_UNREADABLE) from exc
        if not isinstance(token, str) or not token:
            raise LtiException(_GRANT_UNREADABLE)
        return token


def _connector(stored: LtiRegistration, fails_as: type[DomainError]) -> ServiceConnector:
    """A connector to the platform's services; `fails_as` says why while we cannot sign."""
    try:
        registration = _signing_registration(stored)
    except ToolKeyMissing as exc:
        raise fails_as(NO_TOOL_KEY) from exc
    return _Connector(registration, requests_session=_PlatformSession(stored))


def send_score(*, registration_id: int, line_item_url: str, score: dict[str, Any]) -> None:
    """POST one AGS score to the line item (a client-credentials token first, signed with
    our newest key); ScoreNotSent says why it failed."""
    stored = LtiRegistration.objects.get(pk=registration_id)
    refusal = _service_url_refusal(stored, line_item_url)
    if refusal:
        raise ScoreNotSent(refusal)
    service = AssignmentsGradesService(
        _connector(stored, ScoreNotSent),
        {"scope": [SCORE_SCOPE], "lineitem": line_item_url},
    )
    try:
        grade = (
            Grade()
            .set_user_id(score["userId"])
            .set_activity_progress(score["activityProgress"])
            .set_grading_progress(score["gradingProgress"])
            .set_timestamp(score["timestamp"])
        )
        if "scoreGiven" in score:  # absent while an answer waits for an examiner
            grade.set_score_given(score["scoreGiven"]).set_score_maximum(score["scoreMaximum"])
        service.put_grade(grade)
    except (LtiException, requests.RequestException) as exc:
        raise ScoreNotSent(str(exc)[:2000]) from exc


@dataclass(frozen=True)
class LinkedQuiz:
    """What goes back to the platform for a picked quiz: a resource link and a line item."""

    quiz_id: int
    title: str
    score_maximum: float
    launch_url: str


DEEP_LINK_FORM = (
    '<form id="lti13_deep_link_auto_submit" action="{}" method="POST">'
    '<input type="hidden" name="JWT" value="{}" /></form>'
    "<script>document.getElementById('lti13_deep_link_auto_submit').submit();</script>"
)


def deep_link_response_form(
    *, registration_id: int, deployment_id: str, settings: dict[str, Any], quiz: LinkedQuiz
) -> str:
    """The auto-submitting HTML form that returns the picked quiz to the platform, signed
    with our newest key; ToolKeyMissing while there is none."""
    registration = _signing_registration(LtiRegistration.objects.get(pk=registration_id))
    try:
        line_item = (
            LineItem()
            .set_score_maximum(quiz.score_maximum)
            .set_label(quiz.title)
            .set_tag(f"vivabank-quiz-{quiz.quiz_id}")
            .set_resource_id(str(quiz.quiz_id))
        )
    except LtiException as exc:
        raise LaunchRefused(str(exc)) from exc
    resource = (
        DeepLinkResource()
        .set_url(quiz.launch_url)
        .set_title(quiz.title)
        .set_custom_params({"quiz_id": str(quiz.quiz_id)})
        .set_lineitem(line_item)
    )
    # The platform's deep_linking_settings claim, as the launch carried it.
    deep_link = DeepLink(registration, deployment_id, cast(Any, settings))
    jwt = deep_link.get_response_jwt([resource])
    # PyLTI1p3's own form writes the platform's return URL into the HTML unescaped.
    return format_html(DEEP_LINK_FORM, settings["deep_link_return_url"], jwt)


class _RosterService(NamesRolesProvisioningService):
    """PyLTI1p3's roster reader, refusing a page that is no membership container (no list
    of members): PyLTI1p3 would fail on it, or read a missing list as an empty roster."""

    def get_members_page(self, members_url: str | None = None) -> tuple[list[Any], str | None]:
        data = self.get_nrps_data(members_url=members_url)
        body = data.get("body")
        members = body.get("members") if isinstance(body, dict) else None
        if not isinstance(members, list):
            raise LtiException(
                "the platform's roster answer could not be read: it is no membership "
                "container (a JSON object with a members list)"
            )
        return members, data.get("next_page_url")


def roster_members(*, registration_id: int, memberships_url: str) -> list[dict[str, Any]]:
    """Every member the platform lists (NRPS, all pages), skipping entries that are no
    JSON objects or hold unstorable text; RosterNotFetched says why not."""
    stored = LtiRegistration.objects.get(pk=registration_id)
    refusal = _service_url_refusal(stored, memberships_url)
    if refusal:
        raise RosterNotFetched(refusal)
    service = _RosterService(
        _connector(stored, RosterNotFetched), {"context_memberships_url": memberships_url}
    )
    try:
        members = service.get_members()
    except (LtiException, requests.RequestException, ValueError) as exc:
        raise RosterNotFetched(str(exc)[:2000]) from exc
    return [dict(m) for m in members if isinstance(m, dict) and not unstorable_text(m)]
