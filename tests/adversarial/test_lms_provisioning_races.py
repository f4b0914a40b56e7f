"""An LMS that sends the same provisioning call twice at once (a retry of a request whose
reply it lost), on real transactions in two threads: the second is the documented 409, or
a 200 that changes nothing, never a 500 from a unique index."""

import threading
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.db import connection, transaction

from lms.models import ExternalIdentity
from lms.services.roster import MembershipChange, memberships_upsert
from lms.services.users import user_create
from quizbank.models import Course, CourseMembership, Role
from tests.lms.conftest import MakeClient

pytestmark = pytest.mark.django_db(transaction=True)


def _held_open(write: Callable[[], object], done: threading.Event, go: threading.Event) -> None:
    try:
        with transaction.atomic():
            write()
            done.set()
            go.wait(timeout=10)
    finally:
        connection.close()


def _meanwhile(write: Callable[[], object]) -> threading.Thread:
    """Run `write` in a transaction of another thread that commits 0.5 s from now, while
    this thread's next write waits on the rows it holds."""
    done, go = threading.Event(), threading.Event()
    first = threading.Thread(target=_held_open, args=(write, done, go))
    first.start()
    assert done.wait(timeout=10)
    threading.Timer(0.5, go.set).start()
    return first


@pytest.mark.parametrize("username", ["", "chosen-name"])
def test_a_user_created_meanwhile_is_a_409_naming_the_external_id(
    make_client: MakeClient, username: str
) -> None:
    client, api = make_client()
    first = _meanwhile(
        lambda: user_create(namespace=client.namespace, external_id="s-1", username=username)
    )
    body = {"external_id": "s-1", **({"username": username} if username else {})}
    reply = api.post("/api/users/", body, format="json")
    first.join(timeout=10)
    assert reply.status_code == 409, reply.content
    assert reply.json()["error"]["code"] == "external_id_taken"
    assert ExternalIdentity.objects.filter(external_id="s-1").count() == 1


@pytest.mark.parametrize("taken", ["same", "Same"])  # unique ignoring case
def test_a_username_taken_meanwhile_is_a_409_naming_the_username(
    make_client: MakeClient, taken: str
) -> None:
    client, api = make_client()
    first = _meanwhile(
        lambda: user_create(namespace=client.namespace, external_id="s-1", username=taken)
    )
    reply = api.post("/api/users/", {"external_id": "s-2", "username": "same"}, format="json")
    first.join(timeout=10)
    assert reply.status_code == 409, reply.content
    assert reply.json()["error"]["code"] == "username_taken"
    assert not ExternalIdentity.objects.filter(external_id="s-2").exists()
    assert list(User.objects.filter(username__iexact="same").values_list("username")) == [(taken,)]


def test_the_same_roles_set_meanwhile_are_a_200_that_adds_nothing(
    make_client: MakeClient,
) -> None:
    client, api = make_client()
    course_id = api.post("/api/courses/", {"slug": "c", "title": "C"}, format="json").json()["id"]
    user_create(namespace=client.namespace, external_id="t-1")
    course = Course.objects.get(pk=course_id)
    change = MembershipChange("t-1", frozenset({Role.EXAMINER, Role.AUTHOR}))
    first = _meanwhile(
        lambda: memberships_upsert(course=course, namespace=client.namespace, changes=[change])
    )
    body = {"memberships": [{"external_id": "t-1", "roles": ["examiner", "author"]}]}
    reply = api.post(f"/api/courses/{course_id}/memberships/", body, format="json")
    first.join(timeout=10)
    assert reply.status_code == 200, reply.content
    assert reply.json()["added"] == 0
    user = ExternalIdentity.objects.get(external_id="t-1").user
    held = CourseMembership.objects.filter(course_id=course_id, user=user)
    assert sorted(held.values_list("role", flat=True)) == ["author", "examiner"]
