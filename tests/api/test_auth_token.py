"""API clients (LMS integrations, scripts) exchange a username and password for a token."""

import pytest
from django.contrib.auth.hashers import make_password
from rest_framework.test import APIClient

from tests.api.conftest import World

pytestmark = pytest.mark.django_db


def test_a_member_gets_a_token_that_authenticates_later_requests(world: World) -> None:
    world.student.set_password("correct horse battery")
    world.student.save()
    anonymous = APIClient()

    response = anonymous.post(
        "/api/auth/token/",
        {"username": world.student.username, "password": "correct horse battery"},
        format="json",
    )

    assert response.status_code == 200
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    assert client.get("/api/courses/").status_code == 200


def test_wrong_credentials_get_the_one_error_shape(world: World) -> None:
    response = APIClient().post(
        "/api/auth/token/",
        {"username": world.student.username, "password": "wrong"},
        format="json",
    )

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"
    assert "non_field_errors" in response.json()["error"]["fields"]


def test_new_passwords_are_stored_with_argon2id(world: World) -> None:
    world.student.set_password("correct horse battery")

    assert world.student.password.startswith("argon2$argon2id$v=19$m=19456,t=2,p=1$")


def test_a_password_stored_with_pbkdf2_still_signs_in_and_is_rehashed_with_argon2(
    world: World,
) -> None:
    world.student.password = make_password("correct horse battery", hasher="pbkdf2_sha256")
    world.student.save()

    response = APIClient().post(
        "/api/auth/token/",
        {"username": world.student.username, "password": "correct horse battery"},
        format="json",
    )

    assert response.status_code == 200
    world.student.refresh_from_db()
    assert world.student.password.startswith("argon2$argon2id$")
    assert world.student.check_password("correct horse battery")
