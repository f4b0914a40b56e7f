"""An account deactivated in Vivabank (its admin unticks *active*, say after misconduct)
must stay so: the client that provisioned it may undo only its own deactivations."""

from lms.models import ExternalIdentity
from tests.lms.conftest import MakeClient


def _active(external_id: str) -> bool:
    return ExternalIdentity.objects.get(external_id=external_id).user.is_active


def test_a_client_cannot_reactivate_an_account_deactivated_in_vivabank(
    make_client: MakeClient,
) -> None:
    _, api = make_client(scopes=["roster:manage"])
    assert api.post("/api/users/", {"external_id": "r-1"}, format="json").status_code == 201
    user = ExternalIdentity.objects.get(external_id="r-1").user
    user.is_active = False
    user.save()  # as the admin's form saves it

    # Deactivating it again changes nothing, and so gives the client no right to undo it.
    assert api.delete("/api/users/r-1/").status_code == 200
    reply = api.patch("/api/users/r-1/", {"is_active": True}, format="json")

    assert reply.status_code == 409, reply.content
    assert reply.json()["error"]["code"] == "deactivated_in_vivabank"
    assert list(reply.json()["error"]["fields"]) == ["is_active"]
    assert not _active("r-1")


def test_a_client_reactivates_an_account_it_deactivated_itself(make_client: MakeClient) -> None:
    _, api = make_client(scopes=["roster:manage"])
    api.post("/api/users/", {"external_id": "r-2"}, format="json")
    assert api.delete("/api/users/r-2/").json()["is_active"] is False
    reply = api.patch("/api/users/r-2/", {"is_active": True}, format="json")
    assert reply.status_code == 200, reply.content
    assert _active("r-2")
    # Once reactivated, a later deactivation in Vivabank is the admin's again.
    user = ExternalIdentity.objects.get(external_id="r-2").user
    user.is_active = False
    user.save()
    assert api.patch("/api/users/r-2/", {"is_active": True}, format="json").status_code == 409


def test_an_admin_who_reactivates_then_deactivates_takes_the_deactivation_over(
    make_client: MakeClient,
) -> None:
    _, api = make_client(scopes=["roster:manage"])
    api.post("/api/users/", {"external_id": "r-3"}, format="json")
    assert api.delete("/api/users/r-3/").status_code == 200  # the client's deactivation
    user = ExternalIdentity.objects.get(external_id="r-3").user
    user.is_active = True
    user.save()  # the admin reactivates it...
    user.is_active = False
    user.save()  # ...and deactivates it again, in Vivabank this time
    reply = api.patch("/api/users/r-3/", {"is_active": True}, format="json")
    assert reply.status_code == 409, reply.content
    assert not _active("r-3")
