"""Odd external ids sent by a client: a NUL byte (which PostgreSQL refuses in any text;
every request with a client token is logged with its path, so `%00` in any URL counted)
in the user's URL or in the list filter is a 404 or an empty list, never a 500."""

import pytest

from tests.lms.conftest import MakeClient


@pytest.mark.parametrize("method", ["get", "patch", "delete"])
def test_an_external_id_with_a_nul_byte_in_the_url_is_a_404(
    make_client: MakeClient, method: str
) -> None:
    _, api = make_client(scopes=["roster:manage"])
    reply = getattr(api, method)("/api/users/a%00b/", {}, format="json")
    assert reply.status_code == 404


def test_a_nul_byte_in_the_external_id_filter_is_no_500(make_client: MakeClient) -> None:
    _, api = make_client(scopes=["roster:manage"])
    assert api.get("/api/users/?external_id=a%00b").status_code in (200, 400)


def test_a_nul_byte_in_a_new_users_external_id_is_a_400_naming_it(
    make_client: MakeClient,
) -> None:
    _, api = make_client(scopes=["roster:manage"])
    reply = api.post("/api/users/", {"external_id": "a\x00b"}, format="json")
    assert reply.status_code == 400
    assert "external_id" in reply.json()["error"]["fields"]


def test_a_nul_byte_in_any_url_called_with_a_client_token_is_no_500(
    make_client: MakeClient,
) -> None:
    _, api = make_client()
    assert api.get("/api/courses/%00/").status_code == 404
    assert api.get("/api/webhooks/?event=%00").status_code in (200, 400)
