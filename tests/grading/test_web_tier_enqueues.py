"""The web tier only enqueues: try-it runs and parameter generators run on a worker."""

import random
from collections.abc import Iterator

import pytest
from rest_framework.test import APIClient

from config.celery import app
from config.celery_workers import worker_processes
from grading.models import Attempt, Response
from grading.services.variants import variant_seed
from quizbank.models import Role
from runner import registry
from runner.models import JobKind, JobRecord
from tests.api.helpers import start
from tests.grading.factories import add_slots, member, new_course, new_quiz, question
from tests.grading.test_variants import GENERATOR, PARAM_NUMERIC

# tests/test_web_tier.py checks that the web tier (runner.tasks included) loads without torch.


@pytest.fixture
def no_supervisor_yet(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Set aside the supervisor earlier tests may have started here, so only new ones show."""
    monkeypatch.setattr(registry, "_state", {"supervisor": None, "pid": None})
    yield
    registry.shutdown()  # stops one the code under test wrongly started; the old one comes back


def _expected_variant(seed: int) -> dict[str, int]:
    namespace: dict[str, object] = {}
    exec(GENERATOR, namespace)  # noqa: S102  (the test's own generator, to predict the variant)
    generate = namespace["generate"]
    assert callable(generate)
    variant: dict[str, dict[str, int]] = generate(random.Random(seed))  # noqa: S311
    return variant["params"]


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("no_supervisor_yet")
def test_a_code_run_and_a_parameterised_start_never_start_a_sandbox_here(redis_url: str) -> None:
    assert app.conf.task_always_eager is False
    course = new_course()
    quiz = new_quiz(course=course)
    add_slots(quiz, question(course, PARAM_NUMERIC))
    client, author = APIClient(), APIClient()
    client.force_authenticate(member(course, Role.STUDENT))
    author.force_authenticate(member(course, Role.AUTHOR))  # runs code outside any attempt

    with worker_processes(redis_url, count=1):
        run = author.post("/api/code-runs/", {"code": "print(6 * 7)"}, format="json")
        started = start(client, quiz.pk)

    assert not registry.started()
    assert run.status_code == 200
    assert (run.json()["status"], run.json()["stdout"]) == ("ok", "42\n")
    attempt = Attempt.objects.get(pk=started["id"])
    response = Response.objects.get(attempt=attempt)
    assert response.params == _expected_variant(variant_seed(attempt.seed, 0))
    a, x = response.params["a"], response.params["x"]
    assert response.generated_answers == {"slope": 2 * x + a}
    kinds = sorted(JobRecord.objects.values_list("kind", "deliveries"))
    assert kinds == [(JobKind.GENERATE, 1), (JobKind.RUN, 1)]
