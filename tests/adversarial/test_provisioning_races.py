"""Two provisioning calls, or two first LTI launches, for the same user at once, on real
transactions in two threads: the API call that loses the race is refused in the API's shape
(409), the launch that loses finds the account the other made; never an IntegrityError."""

import threading
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.db import connection, transaction

from config.exceptions import DomainError
from lms.errors import ExternalIdTaken, UsernameTaken
from lms.lti import LaunchClaims
from lms.services.lti_launch import user_for_launch
from lms.services.users import user_create

pytestmark = pytest.mark.django_db(transaction=True)


def _created_and_held_open(
    created: threading.Event, release: threading.Event, **fields: str
) -> None:
    try:
        with transaction.atomic():
            user_create(namespace="client:moodle", **fields)
            created.set()
            release.wait(timeout=10)
    finally:
        connection.close()


def _race(first: dict[str, str], second: dict[str, str]) -> Callable[[], object]:
    """Start `first` in a thread and hold its transaction open; the returned call runs
    `second` here, while the first commits half a second later."""
    created, release = threading.Event(), threading.Event()
    thread = threading.Thread(target=_created_and_held_open, args=(created, release), kwargs=first)
    thread.start()
    assert created.wait(timeout=10)
    threading.Timer(0.5, release.set).start()

    def second_call() -> object:
        try:
            return user_create(namespace="client:moodle", **second)
        finally:
            thread.join(timeout=10)

    return second_call


@pytest.mark.parametrize(
    ("second", "refusal"),
    [
        ({"external_id": "s-2", "username": "ada"}, UsernameTaken),
        ({"external_id": "s-2", "username": "ADA"}, UsernameTaken),
        ({"external_id": "s-1", "username": "grace"}, ExternalIdTaken),
    ],
)
def test_the_second_of_two_concurrent_creations_is_refused_as_taken(
    second: dict[str, str], refusal: type[DomainError]
) -> None:
    second_call = _race({"external_id": "s-1", "username": "ada"}, second)
    with pytest.raises(refusal):
        second_call()
    assert list(User.objects.values_list("username", flat=True)) == ["ada"]


def _launch(subject: str = "learner-7") -> LaunchClaims:
    return LaunchClaims(
        registration_id=1,
        issuer="https://lms.example",
        nonce="n",
        subject=subject,
        message_type="LtiResourceLinkRequest",
        roles=frozenset({"Learner"}),
        name="Ada Lovelace",
    )


def _launched_and_held_open(launched: threading.Event, release: threading.Event) -> None:
    try:
        with transaction.atomic():
            user_for_launch(_launch())
            launched.set()
            release.wait(timeout=10)
    finally:
        connection.close()


def test_two_first_launches_of_one_learner_at_once_share_one_account() -> None:
    launched, release = threading.Event(), threading.Event()
    first = threading.Thread(target=_launched_and_held_open, args=(launched, release))
    first.start()
    assert launched.wait(timeout=10)
    threading.Timer(0.5, release.set).start()
    try:
        with transaction.atomic():
            second = user_for_launch(_launch())
    finally:
        first.join(timeout=10)
    assert User.objects.get() == second
    assert second.external_identities.get().external_id == "learner-7"
