"""The password hasher of sign-ins (Argon2id at OWASP's recommended minimum cost), and the
longest password a user may choose.

Django's own Argon2 parameters (100 MiB, 8 lanes) cost as much CPU per check as its PBKDF2,
and a room of 300 students signing in within a minute spends that on two cores while their
autosaves wait. 19 MiB, 2 passes and 1 lane is the first of OWASP's equivalent Argon2id
settings (Password Storage Cheat Sheet): memory-hard, about a fifth of the CPU
(docs/benchmarks.md). A stored hash with other parameters verifies and is re-hashed with
these at its user's next sign-in.
"""

from django.contrib.auth.hashers import Argon2PasswordHasher
from django.core.exceptions import ValidationError


class ExamArgon2PasswordHasher(Argon2PasswordHasher):
    time_cost = 2
    memory_cost = 19 * 1024  # KiB
    parallelism = 1


# The length a new password must have: Django's MinimumLengthValidator's default (as
# settings use it) and MaximumLengthValidator's below; the API's password fields say both.
PASSWORD_MIN_LENGTH = 8
PASSWORD_MAX_LENGTH = 1000


class MaximumLengthValidator:
    """A new password of at most `max_length` characters: a longer one protects no better
    and costs every later sign-in its hashing."""

    def __init__(self, max_length: int = PASSWORD_MAX_LENGTH) -> None:
        self.max_length = max_length

    def validate(self, password: str, user: object = None) -> None:
        if len(password) > self.max_length:
            raise ValidationError(
                f"This password is {len(password):,} characters long; "
                f"use at most {self.max_length:,}.",
                code="password_too_long",
            )

    def get_help_text(self) -> str:
        return f"Your password can't be longer than {self.max_length:,} characters."
