"""Sign-in is throttled per username and per address, on the token endpoint and the admin
login: past the limit even the right password gets 429 with Retry-After until the lockout
ends."""

from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.contrib.auth.models import User
from django.test import Client, override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from config.signin import signin_begin, signin_end
from tests.api.conftest import World

PASSWORD = "correct horse battery"


@pytest.fixture(autouse=True)
def _fast_hashing(settings: Any) -> None:
    """Each failed sign-in hashes a password; the slow production hasher adds nothing here."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def student(world: World, _fast_hashing: None) -> User:
    world.student.set_password(PASSWORD)
    world.student.save()
    return world.student


def _token(username: str, password: str, address: str = "192.0.2.1", forwarded: str = "") -> Any:
    body = {"username": username, "password": password}
    headers = {"X-Forwarded-For": forwarded} if forwarded else {}
    return APIClient(REMOTE_ADDR=address).post("/api/auth/token/", body, headers=headers)


def _admin_login(username: str, password: str, address: str = "192.0.2.1") -> Any:
    body = {"username": username, "password": password, "next": "/admin/"}
    return Client().post("/admin/login/", body, REMOTE_ADDR=address)


def test_150_wrong_passwords_then_the_right_one_is_refused_with_retry_after(
    student: User,
) -> None:
    statuses = [_token(student.username, f"wrong-{i}").status_code for i in range(150)]

    right = _token(student.username, PASSWORD)

    assert statuses[:9] == [400] * 9
    assert set(statuses[10:]) == {429}
    assert right.status_code == 429
    assert right.json()["error"]["code"] == "throttled"
    assert 0 < int(right["Retry-After"]) <= 900


def test_the_username_is_locked_from_every_address_and_in_any_case(student: User) -> None:
    for i in range(10):
        _token(student.username, "wrong", address=f"198.51.100.{i}")

    assert _token(student.username.upper(), PASSWORD, address="203.0.113.7").status_code == 429


@override_settings(SIGNIN_FAILURES_PER_ADDRESS=5)
def test_an_address_is_locked_across_usernames_and_others_are_not(student: User) -> None:
    for i in range(5):
        _token(f"guess-{i}", "wrong", address="192.0.2.66")

    assert _token(student.username, PASSWORD, address="192.0.2.66").status_code == 429
    assert _token(student.username, PASSWORD, address="192.0.2.67").status_code == 200


@override_settings(SIGNIN_FAILURES_PER_ADDRESS=5)
def test_a_forwarded_for_header_does_not_escape_the_address_lock(student: User) -> None:
    for i in range(5):
        _token(f"guess-{i}", "wrong", address="192.0.2.66")

    reply = _token(student.username, PASSWORD, address="192.0.2.66", forwarded="203.0.113.9")
    assert reply.status_code == 429


def test_the_right_password_works_again_once_the_lockout_ends(student: User) -> None:
    with time_machine.travel(timezone.now(), tick=False) as clock:
        for _ in range(10):
            _token(student.username, "wrong")
        assert _token(student.username, PASSWORD).status_code == 429

        clock.shift(timedelta(seconds=901))
        assert _token(student.username, PASSWORD).status_code == 200


def test_the_admin_login_is_throttled_the_same_way(world: World) -> None:
    staff = world.examiner
    staff.is_staff = True
    staff.set_password(PASSWORD)
    staff.save()

    statuses = [_admin_login(staff.username, f"wrong-{i}").status_code for i in range(150)]
    right = _admin_login(staff.username, PASSWORD)

    assert statuses[:10] == [200] * 10  # the form again, with its error
    assert set(statuses[10:]) == {429}
    assert right.status_code == 429
    assert int(right["Retry-After"]) > 0


def test_a_right_admin_login_signs_in(world: World) -> None:
    staff = world.examiner
    staff.is_staff = True
    staff.set_password(PASSWORD)
    staff.save()

    assert _admin_login(staff.username, PASSWORD).status_code == 302


@override_settings(GRADING_MAX_REQUEST_BYTES=1000)
def test_the_token_endpoint_takes_only_bounded_json(db: None) -> None:
    client = APIClient()
    too_big = client.post("/api/auth/token/", "x" * 3_000, content_type="application/json")
    form = client.post(
        "/api/auth/token/",
        "username=a&password=b",
        content_type="application/x-www-form-urlencoded",
    )

    assert too_big.status_code == 413
    assert too_big.json()["error"]["code"] == "request_too_large"
    assert form.status_code == 415
    assert form.json()["error"]["code"] == "unsupported_media_type"


def test_sign_ins_being_checked_at_once_count_before_their_passwords_are_checked(
    student: User,
) -> None:
    """Parallel guesses: ten still being checked leave no room for an eleventh, which is
    refused before its password is read; a success does not count as a failure."""
    begun = [signin_begin(username=student.username, address="203.0.113.7") for _ in range(10)]
    assert begun == [0] * 10
    assert signin_begin(username=student.username, address="203.0.113.7") > 0
    for _ in range(10):
        signin_end(username=student.username, address="203.0.113.7", succeeded=True)
    assert _token(student.username, PASSWORD, address="203.0.113.7").status_code == 200
