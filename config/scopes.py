"""API client scopes: what a client's token may do, on top of the one access rule.

A user's own token (or session) carries no scopes: the user's course roles decide. An
API client's token (lms/) carries scopes; it reaches only the operations whose view
names a scope for the method in `client_scopes`, and only with that scope. Any view
may declare scopes, so the bank and grading apps need nothing from `lms`.
"""

from typing import Any

from django.db import models
from rest_framework.permissions import BasePermission
from rest_framework.request import Request


class Scope(models.TextChoices):
    READ_GRADES = "grades:read", "Read grades"
    MANAGE_ROSTER = "roster:manage", "Manage users, courses and memberships"
    MANAGE_QUIZZES = "quizzes:manage", "Create, schedule, open and close quizzes"
    MANAGE_QUESTIONS = "questions:manage", "Read and write the bank's questions"


def client_scopes_of(request: Request) -> frozenset[str] | None:
    """The scopes of the API client token that signed the request; None for a user."""
    scopes = getattr(request.auth, "scopes", None)
    return None if scopes is None else frozenset(scopes)


ANY_SCOPE = tuple(Scope)


def scopes_needed(view: Any, method: str) -> tuple[str, ...]:
    """The scopes, any one of which an API client needs for `method` on `view` (none: API
    clients may not call it)."""
    wanted: dict[str, tuple[str, ...]] = getattr(view, "client_scopes", {})
    return wanted.get("GET" if method in ("HEAD", "OPTIONS") else method, ())


class ClientScopes(BasePermission):
    """A client token needs the operation's scope; a user's credentials pass untouched."""

    message = "This API client's token lacks the scope this operation needs."
    code = "scope_missing"

    def has_permission(self, request: Request, view: Any) -> bool:
        granted = client_scopes_of(request)
        if granted is None:
            return True
        return bool(granted & set(scopes_needed(view, request.method or "GET")))
