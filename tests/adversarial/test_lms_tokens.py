"""Client tokens on every LMS endpoint: a revoked token is refused on each (grades CSV
and webhook deliveries included), a token carried in the query string instead of the
header counts for nothing, a header with a non-ASCII or extra part is a 401, and a
client never reads another client's webhooks, deliveries or users."""

import pytest
from rest_framework.test import APIClient

from lms.models import WebhookSubscription
from lms.services.tokens import token_issue, token_revoke
from tests.grading.factories import member, new_quiz
from tests.lms.conftest import MakeClient


def _paths(make_client: MakeClient) -> list[str]:
    client, _ = make_client("owner")
    quiz = new_quiz()
    member(quiz.course, "examiner", client.user)
    member(quiz.course, "author", client.user)
    sub = WebhookSubscription.objects.create(client=client, url="https://x.example/", secret="s")
    return [
        "/api/users/",
        f"/api/courses/{quiz.course_id}/memberships/",
        f"/api/quizzes/{quiz.pk}/grades/",
        f"/api/quizzes/{quiz.pk}/grades/export.csv",
        "/api/webhooks/",
        f"/api/webhooks/{sub.pk}/deliveries/",
    ]


def test_a_revoked_token_is_refused_on_every_lms_endpoint(make_client: MakeClient) -> None:
    paths = _paths(make_client)
    client, api = make_client("owner")
    assert [api.get(p).status_code for p in paths] == [200] * len(paths)
    for token in client.tokens.all():
        token_revoke(token=token)
    assert [api.get(p).status_code for p in paths] == [401] * len(paths)


def test_a_token_in_the_query_string_counts_for_nothing(make_client: MakeClient) -> None:
    paths = _paths(make_client)
    client, _ = make_client("owner")
    _, key = token_issue(client=client, scopes=["grades:read", "roster:manage"])
    anonymous = APIClient()
    for path in paths:
        for name in ("access_token", "token", "bearer"):
            assert anonymous.get(f"{path}?{name}={key}").status_code in (401, 403)


@pytest.mark.parametrize("header", ["Bearer vbk_é", "Bearer a b", "Bearer"])
def test_a_malformed_bearer_header_is_a_401(make_client: MakeClient, header: str) -> None:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=header)
    assert api.get("/api/users/").status_code == 401


def test_a_client_reads_no_other_clients_webhooks_or_users(make_client: MakeClient) -> None:
    paths = _paths(make_client)
    _, other = make_client("intruder")
    listed = other.get("/api/webhooks/").json()["results"]
    assert listed == []
    assert other.get(paths[-1]).status_code == 404
    assert other.get("/api/users/").json()["results"] == []
    assert other.get(paths[2]).status_code in (403, 404)
    assert other.get(paths[3]).status_code in (403, 404)
