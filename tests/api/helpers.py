"""Small helpers for driving the attempt API in tests."""

from typing import Any

from rest_framework.test import APIClient


def start(client: APIClient, quiz_id: int) -> dict[str, Any]:
    reply = client.post(f"/api/quizzes/{quiz_id}/attempts/")
    assert reply.status_code == 201, reply.content
    data: dict[str, Any] = reply.json()
    return data


def save(client: APIClient, attempt: int, position: int, answer: Any, version: int = 0) -> Any:
    return client.put(
        f"/api/attempts/{attempt}/responses/{position}/",
        {"answer": answer, "version": version},
        format="json",
    )


def submit(client: APIClient, attempt: int, key: str = "") -> Any:
    headers = {"Idempotency-Key": key} if key else {}
    return client.post(f"/api/attempts/{attempt}/submit/", headers=headers)
