# lti1p3platform ships no type information, so its classes are Any to subclass:
# mypy: disable-error-code="misc"
"""A real LTI 1.3 platform for the tests: lti1p3platform signs the launches, and its JWKS
is served over HTTP on 127.0.0.1, so the tool really fetches the platform's keys."""

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlparse

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.oidc_login import OIDCLoginAbstract
from lti1p3platform.registration import Registration

LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
ISSUER = "https://lms.uni.example"
CLIENT_ID = "vivabank-tool"
DEPLOYMENT_ID = "deployment-1"
CONTEXT_ID = "course-dl-101"  # the LMS course every test launch comes from
TOOL = "http://testserver"


def new_private_key() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()


def public_key_of(private_pem: str) -> str:
    key = serialization.load_pem_private_key(private_pem.encode(), password=None)
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
NRPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"


@dataclass
class GradeService:
    """The platform's token endpoint and line item score service."""

    conf: "PlatformConf | None" = None
    scores: list[dict[str, Any]] = field(default_factory=list)
    fail_next: int = 0  # answer this many score posts with a 500 first
    hang_s: float = 0.0  # wait this long before answering a score post (a platform that hangs)
    refused: int = 0
    members: list[dict[str, Any]] = field(default_factory=list)  # the NRPS roster
    members_next: str = ""  # a `Link: <...>; rel="next"` page URL the roster answers with
    redirect_to: str = ""  # answer score posts and roster pages with a 307 to this URL
    token_answer: Any = None  # answer token requests with this JSON (200) instead of a token
    roster_answer: Any = None  # answer roster pages with this JSON (200) instead of the roster


class _Handler(BaseHTTPRequestHandler):
    routes: dict[str, Any] = {}
    grades: GradeService

    def _answer(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
        body = json.dumps(data).encode()
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path.startswith("/memberships"):
            conf = self.grades.conf
            token = self.headers.get("Authorization", "").removeprefix("Bearer ")
            if conf is None or not conf.validate_token(token, [NRPS_SCOPE]):
                self._answer(401, {})
                return
            if self.grades.redirect_to:
                self._answer(307, {}, {"Location": self.grades.redirect_to})
                return
            if self.grades.roster_answer is not None:
                self._answer(200, self.grades.roster_answer)
                return
            roster = {"id": self.path, "context": {"id": "course-dl-101"}}
            nxt = self.grades.members_next
            link = {"Link": f'<{nxt}>; rel="next"'} if nxt else {}
            self._answer(200, {**roster, "members": self.grades.members}, link)
            return
        self._answer(200 if self.path in self.routes else 404, self.routes.get(self.path, {}))

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
        conf = self.grades.conf
        assert conf is not None
        if self.path == "/token":
            form = dict(parse_qsl(raw))
            token = self.grades.token_answer
            self._answer(200, conf.get_access_token(form) if token is None else token)
            return
        token = self.headers.get("Authorization", "").removeprefix("Bearer ")
        if not self.path.endswith("/scores") or not conf.validate_token(token, [SCORE_SCOPE]):
            self.grades.refused += 1
            self._answer(401, {})
            return
        time.sleep(self.grades.hang_s)
        if self.grades.redirect_to:
            self._answer(307, {}, {"Location": self.grades.redirect_to})
            return
        if self.grades.fail_next > 0:
            self.grades.fail_next -= 1
            self._answer(500, {"error": "down"})
            return
        self.grades.scores.append({"path": self.path, **json.loads(raw)})
        self._answer(200, {})

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def platform_http(routes: dict[str, Any], grades: GradeService | None = None) -> Iterator[str]:
    """Serve `routes` (path -> JSON), the token endpoint and line item scores on 127.0.0.1;
    yields the base URL."""
    attrs = {"routes": routes, "grades": grades or GradeService()}
    handler = type("Handler", (_Handler,), attrs)
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class PlatformSettings:
    private_key: str
    client_id: str = CLIENT_ID
    deployment_id: str = DEPLOYMENT_ID
    tool_jwks: dict[str, Any] = field(default_factory=dict)
    kid: str = ""  # sign under this kid instead of the key's own thumbprint


class _Registration(Registration):
    kid_override = ""

    def get_kid(self) -> str | None:
        return self.kid_override or super().get_kid()


class PlatformConf(LTI1P3PlatformConfAbstract):
    settings: PlatformSettings

    def init_platform_config(self, **kwargs: Any) -> None:
        self.settings = kwargs["settings"]

    def get_registration_by_params(self, **kwargs: Any) -> Registration:
        s = self.settings
        registration = _Registration()
        registration.kid_override = s.kid
        (
            registration.set_iss(ISSUER)
            .set_client_id(s.client_id)
            .set_deployment_id(s.deployment_id)
            .set_oidc_login_url(f"{TOOL}/lti/login/")
            .set_launch_url(f"{TOOL}/lti/launch/")
            .set_deeplink_launch_url(f"{TOOL}/lti/launch/")
            .set_platform_public_key(public_key_of(s.private_key))
            .set_platform_private_key(s.private_key)
        )
        registration.set_tool_key_set(s.tool_jwks)  # the tool's keys, from its JWKS
        return registration


class Login(OIDCLoginAbstract):
    def set_lti_message_hint(self, **kwargs: Any) -> None:
        self._lti_message_hint = kwargs["hint"]

    def get_redirect(self, url: str) -> str:
        return url


class _Preflight:
    """What the tool's redirect to our auth URL carried, as lti1p3platform reads it."""

    def __init__(self, params: dict[str, str]) -> None:
        self.get_data = params
        self.form_data: dict[str, str] = {}


class Launch(LTIAdvantageMessageLaunchAbstract):
    def render_launch_form(self, launch_data: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return launch_data


def login_url(conf: PlatformConf, user_id: str) -> str:
    """Step 1: the platform sends the browser to the tool's login initiation URL."""
    login = Login(None, conf)
    login.set_lti_message_hint(hint="resource-1")
    url: str = login.initiate_login(user_id)
    return url


def signed_launch(
    conf: PlatformConf,
    auth_redirect: str,
    *,
    user_id: str,
    roles: list[str],
    custom: dict[str, str],
    expires_in: int = 300,
    line_item: str = "",
    deep_link_return: str = "",
    memberships_url: str = "",
    extra_claims: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Step 3: the platform answers the tool's auth request with a signed id_token
    (`extra_claims` added last, over any claim of the same name)."""
    params = dict(parse_qsl(urlparse(auth_redirect).query))
    params["client_id"] = conf.settings.client_id  # so a wrong-audience launch can be signed
    launch = Launch(_Preflight(params), conf)  # a stand-in request: lti1p3platform reads get_data
    launch.set_user_data(user_id, roles, full_name="Ada Lovelace", email_address="ada@uni.example")
    launch.set_resource_link_claim("resource-1", title="Week 1")
    launch.set_launch_context_claim(CONTEXT_ID, context_title="Deep learning")
    launch.set_custom_parameters_claim(custom)
    launch.set_id_token_expiration(expires_in)
    if line_item:
        launch.set_ags(line_item.rsplit("/", 1)[0], line_item)
    if memberships_url:
        launch.set_nrps(memberships_url)
    if deep_link_return:
        launch.set_dl(deep_link_return, title="Add a quiz", accept_types={"ltiResourceLink"})
    if extra_claims:
        launch.set_extra_claims(extra_claims)
    data: dict[str, Any] = launch.lti_launch()
    return data


def path_and_query(url: str) -> str:
    parts = urlparse(url)
    return f"{parts.path}?{parts.query}" if parts.query else parts.path


def query_of(url: str) -> dict[str, str]:
    return dict(parse_qsl(urlparse(url).query))
