"""Fixtures for the attacks: the API tests' world (a course, a quiz of every type, a student)."""

from tests.api.conftest import _fresh_cache, student_api, world  # noqa: F401  (fixtures)
