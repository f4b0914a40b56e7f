"""Two first LTI launches of one learner at once (two tabs), on real transactions in two
threads: the launch that loses the race finds the account the other made, never an
IntegrityError. (The LMS API's races: test_lms_provisioning_races.py.)"""

import threading

import pytest
from django.contrib.auth.models import User
from django.db import connection, transaction

from lms.lti import LaunchClaims
from lms.services.lti_launch import user_for_launch

pytestmark = pytest.mark.django_db(transaction=True)


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
