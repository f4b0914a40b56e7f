"""API client tokens: shown once, stored hashed, scoped, revocable, expiring when issued
with a lifetime, logged; users' own tokens keep working beside them."""

import hashlib
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from lms.models import ApiClient, ApiToken, TokenUse
from lms.services.tokens import api_client_create, token_issue, token_revoke
from tests.grading.factories import member, new_course, new_quiz
from tests.lms.conftest import MakeClient, bearer


def test_a_token_is_stored_only_as_its_hash(db: None) -> None:
    client = api_client_create(name="canvas")
    token, key = token_issue(client=client, scopes=["grades:read"])
    stored = ApiToken.objects.get(pk=token.pk)
    assert key.startswith("vbk_")
    assert len(key) > 40
    assert stored.key_hash == hashlib.sha256(key.encode()).hexdigest()
    assert key not in {stored.key_hash, stored.prefix}
    assert stored.prefix == key[:12]


def test_the_command_prints_a_token_once_that_then_works(db: None) -> None:
    out = StringIO()
    call_command("api_client", "create", "moodle", "--scope", "roster:manage", stdout=out)
    key = out.getvalue().rsplit(" ", 1)[-1].strip()
    assert bearer(key).get("/api/users/").status_code == 200
    assert ApiClient.objects.get(name="moodle").tokens.get().scopes == ["roster:manage"]


def test_a_scope_the_token_lacks_is_a_403_scope_missing(make_client: MakeClient) -> None:
    _, api = make_client(scopes=["grades:read"])
    reply = api.post("/api/courses/", {"slug": "c", "title": "C"}, format="json")
    assert reply.status_code == 403
    assert reply.json()["error"]["code"] == "scope_missing"
    assert api.get("/api/users/").json()["error"]["code"] == "scope_missing"


def test_a_client_token_reaches_no_operation_that_names_no_scope(make_client: MakeClient) -> None:
    _, api = make_client()
    assert api.get("/api/attempts/").status_code == 403
    assert api.post("/api/code-runs/", {}, format="json").status_code == 403


def test_a_revoked_token_is_refused(make_client: MakeClient) -> None:
    client, api = make_client(scopes=["roster:manage"])
    assert api.get("/api/users/").status_code == 200
    token_revoke(token=client.tokens.get())
    reply = api.get("/api/users/")
    assert reply.status_code == 401
    assert reply.json()["error"]["code"] == "authentication_failed"


def test_a_token_with_a_lifetime_is_refused_once_it_has_passed(db: None) -> None:
    client = api_client_create(name="canvas")
    token, key = token_issue(client=client, scopes=["roster:manage"], lifetime=timedelta(days=1))
    assert token.expires_at is not None
    assert abs(token.expires_at - timezone.now() - timedelta(days=1)) < timedelta(minutes=1)
    assert bearer(key).get("/api/users/").status_code == 200
    ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    reply = bearer(key).get("/api/users/")
    assert reply.status_code == 401
    assert reply.json()["error"]["code"] == "authentication_failed"
    with pytest.raises(ValueError, match="positive"):
        token_issue(client=client, scopes=["roster:manage"], lifetime=timedelta(0))


def test_the_command_issues_a_token_for_some_days(db: None) -> None:
    out = StringIO()
    call_command(
        "api_client", "create", "moodle", "--scope", "grades:read", "--days", "30", stdout=out
    )
    token = ApiClient.objects.get(name="moodle").tokens.get()
    assert token.expires_at is not None
    assert f"until {token.expires_at:%Y-%m-%d}" in out.getvalue()
    with pytest.raises(CommandError, match="--days"):
        call_command("api_client", "token", "moodle", "--scope", "grades:read", "--days", "0")


@pytest.mark.parametrize("days", ["0", "-1", "3651", "999999999", "1000000000"])
def test_a_refused_lifetime_creates_no_client(db: None, days: str) -> None:
    with pytest.raises(CommandError, match="--days must be between 1 and 3650"):
        call_command("api_client", "create", "lms-x", "--scope", "grades:read", "--days", days)
    assert not ApiClient.objects.exists()


def test_creating_a_client_that_exists_says_how_to_issue_another_token(db: None) -> None:
    call_command("api_client", "create", "moodle", "--scope", "grades:read", stdout=StringIO())
    with pytest.raises(CommandError, match="exists; `api_client token moodle"):
        call_command("api_client", "create", "moodle", "--scope", "grades:read")
    assert ApiClient.objects.get().tokens.count() == 1
    with pytest.raises(CommandError, match="1 to 100 characters"):
        call_command("api_client", "create", "x" * 101, "--scope", "grades:read")


def test_an_unknown_token_is_refused(db: None) -> None:
    assert bearer("vbk_not-a-token").get("/api/courses/").status_code == 401


def test_each_use_of_a_token_is_logged(make_client: MakeClient) -> None:
    client, api = make_client(scopes=["roster:manage"])
    api.get("/api/users/")
    api.get("/api/users/?external_id=x")
    token = client.tokens.get()
    uses = list(TokenUse.objects.filter(token=token).order_by("at"))
    assert [(u.method, u.path) for u in uses] == [("GET", "/api/users/")] * 2
    assert token.last_used_at is not None


def test_a_client_sees_only_courses_it_belongs_to(make_client: MakeClient) -> None:
    client, api = make_client()
    mine, other = new_course(), new_course()
    member(mine, "examiner", client.user)
    assert [c["id"] for c in api.get("/api/courses/").json()["results"]] == [mine.pk]
    assert api.get(f"/api/courses/{other.pk}/").status_code == 404


def test_users_tokens_keep_working_and_carry_no_scopes(make_client: MakeClient) -> None:
    make_client()
    quiz = new_quiz()
    student = member(quiz.course, "student")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=student).key}")
    assert api.get(f"/api/quizzes/{quiz.pk}/").status_code == 200
    assert api.get("/api/attempts/").status_code == 200
    assert api.get("/api/users/").json()["error"]["code"] == "client_required"


def test_the_schema_names_each_operations_scopes_and_the_bearer_scheme() -> None:
    generator = SchemaGenerator()  # type: ignore[no-untyped-call]  # untyped library
    schema = generator.get_schema(request=None, public=True)  # type: ignore[no-untyped-call]
    paths = schema["paths"]
    assert paths["/api/quizzes/{quiz_id}/grades/"]["get"]["x-client-scopes"] == ["grades:read"]
    assert paths["/api/users/"]["post"]["x-client-scopes"] == ["roster:manage"]
    assert "x-client-scopes" not in paths["/api/attempts/"]["get"]
    assert schema["components"]["securitySchemes"]["clientToken"]["scheme"] == "bearer"
    assert {"401", "403", "404"} <= set(paths["/api/users/{external_id}/"]["patch"]["responses"])
