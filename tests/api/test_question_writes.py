"""Authors write questions over the API: checked by the bank's rules, saved as versions,
and attempts keep the version they drew."""

import hashlib
import threading
from concurrent.futures import ThreadPoolExecutor
from copy import deepcopy
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from grading.services.attempts import attempt_start
from quizbank.models import Question, QuestionAsset, QuestionVersion, Role
from quizbank.services.assets import asset_blobs_store
from quizbank.services.question_authoring import STARTERS
from tests.grading.factories import add_slots, api_as, member, new_course, new_quiz, new_topic

pytestmark = pytest.mark.django_db


@pytest.fixture
def world() -> dict[str, Any]:
    course = new_course()
    topic = new_topic(course=course, slug="tensors")
    return {"course": course, "topic": topic, "author": member(course, Role.AUTHOR)}


def _create(world: dict[str, Any], content: dict[str, Any], slug: str = "shape-of-zeros") -> Any:
    body = {"course": world["course"].pk, "slug": slug, "topic": "tensors", "content": content}
    return api_as(world["author"]).post("/api/questions/", body, format="json")


@pytest.mark.parametrize("qtype", sorted(STARTERS))
def test_an_author_writes_each_type_and_reads_it_back(world: dict[str, Any], qtype: str) -> None:
    reply = _create(world, STARTERS[qtype])
    assert reply.status_code == 201, reply.content
    body = reply.json()
    assert (body["type"], body["slug"]) == (qtype, "shape-of-zeros")
    assert [v["number"] for v in body["versions"]] == [1]


def test_an_edit_is_a_new_version_and_the_same_content_is_none(world: dict[str, Any]) -> None:
    question = _create(world, STARTERS["numeric"]).json()
    edited = {**STARTERS["numeric"], "prompt": "How many elements in a `(2, 3, 4)` tensor?"}
    edited["answers"] = [{"value": 24}]
    url = f"/api/questions/{question['id']}/"
    author = api_as(world["author"])
    again = author.put(url, {"topic": "tensors", "content": edited}, format="json")
    assert again.status_code == 200, again.content
    assert sorted(v["number"] for v in again.json()["versions"]) == [1, 2]
    same = author.put(url, {"topic": "tensors", "content": edited}, format="json")
    assert sorted(v["number"] for v in same.json()["versions"]) == [1, 2]


def test_an_attempt_keeps_the_version_it_drew(world: dict[str, Any]) -> None:
    question = Question.objects.get(pk=_create(world, STARTERS["true_false"]).json()["id"])
    quiz = new_quiz(course=world["course"])
    add_slots(quiz, question)
    student = member(world["course"], Role.STUDENT)
    attempt = attempt_start(quiz=quiz, user=student, now=timezone.now())
    edited = {**STARTERS["true_false"], "prompt": "A tensor made by an operation is a leaf."}
    edited["answer"] = False
    url = f"/api/questions/{question.pk}/"
    reply = api_as(world["author"]).put(url, {"topic": "tensors", "content": edited}, format="json")
    assert reply.status_code == 200
    drawn = attempt.responses.get().question_version
    assert drawn.number == 1
    assert drawn.content["answer"] is True


def test_a_question_breaking_the_rules_is_refused_by_field_and_nothing_is_written(
    world: dict[str, Any],
) -> None:
    two_right = deepcopy(STARTERS["single_choice"])
    two_right["choices"][1]["correct"] = True
    reply = _create(world, two_right)
    assert reply.status_code == 400
    assert reply.json()["error"]["code"] == "question_invalid"
    assert any(name.startswith("content.choices") for name in reply.json()["error"]["fields"])
    no_wrong_answer = deepcopy(STARTERS["code"])
    del no_wrong_answer["files"]["wrong_adds_two.py"]
    assert _create(world, no_wrong_answer).status_code == 400
    not_a_type = {"type": "essay", "title": "T", "prompt": "P"}
    assert list(_create(world, not_a_type).json()["error"]["fields"]) == ["content.type"]
    assert not Question.objects.exists()
    assert not QuestionVersion.objects.exists()


@pytest.mark.parametrize(
    ("answer", "field", "given"),
    [
        ({"value": 1e200}, "content.answers[0].value", "1e+200"),
        ({"value": -(10**101)}, "content.answers[0].value", "-1e+101"),
        ({"value": 2, "tolerance": 1e101}, "content.answers[0].tolerance", "1e+101"),
    ],
)
def test_a_numeric_answer_grading_could_not_read_is_refused(
    world: dict[str, Any], answer: dict[str, Any], field: str, given: str
) -> None:
    reply = _create(world, {**STARTERS["numeric"], "answers": [answer]})
    assert reply.status_code == 400, reply.content
    fields = reply.json()["error"]["fields"]
    assert fields == {field: [f"must be at most 1e+100 in size ({given} given)"]}
    assert not Question.objects.exists()
    assert (
        _create(world, {**STARTERS["numeric"], "answers": [{"value": -1e100}]}).status_code == 201
    )


def test_an_unknown_topic_or_a_taken_slug_is_refused(world: dict[str, Any]) -> None:
    body = {
        "course": world["course"].pk,
        "slug": "s",
        "topic": "nowhere",
        "content": STARTERS["true_false"],
    }
    reply = api_as(world["author"]).post("/api/questions/", body, format="json")
    assert reply.status_code == 400
    assert list(reply.json()["error"]["fields"]) == ["topic"]
    assert _create(world, STARTERS["true_false"]).status_code == 201
    taken = _create(world, STARTERS["numeric"])
    assert taken.status_code == 409
    assert list(taken.json()["error"]["fields"]) == ["slug"]


def test_only_the_courses_authors_write_its_questions(world: dict[str, Any]) -> None:
    body = {
        "course": world["course"].pk,
        "slug": "s",
        "topic": "tensors",
        "content": STARTERS["true_false"],
    }
    for role in (Role.STUDENT, Role.EXAMINER):
        user = member(world["course"], role)
        assert api_as(user).post("/api/questions/", body, format="json").status_code == 403
    outsider = member(new_course(), Role.AUTHOR)
    assert api_as(outsider).post("/api/questions/", body, format="json").status_code in (403, 404)
    question = _create(world, STARTERS["true_false"]).json()
    put = {"topic": "tensors", "content": STARTERS["true_false"]}
    url = f"/api/questions/{question['id']}/"
    assert api_as(outsider).put(url, put, format="json").status_code == 404
    assert Question.objects.count() == 1


def test_an_edit_begun_from_an_older_version_is_a_409(world: dict[str, Any]) -> None:
    question = _create(world, STARTERS["numeric"]).json()
    url = f"/api/questions/{question['id']}/"
    author = api_as(world["author"])
    newer = {**STARTERS["numeric"], "title": "Elements of a tensor"}
    body = {"topic": "tensors", "content": newer, "version": 1}
    assert author.put(url, body, format="json").status_code == 200
    stale = {"topic": "tensors", "content": {**STARTERS["numeric"], "title": "Mine"}, "version": 1}
    refused = author.put(url, stale, format="json")
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "question_changed"
    assert Question.objects.get().title == "Elements of a tensor"


@pytest.mark.django_db(transaction=True)
def test_the_same_slug_created_at_once_gives_one_201_and_409s_never_a_500() -> None:
    course = new_course()
    new_topic(course=course, slug="tensors")
    author = member(course, Role.AUTHOR)
    body = {"course": course.pk, "slug": "race", "topic": "tensors", "content": STARTERS["numeric"]}
    gate = threading.Barrier(6)

    def create() -> int:
        gate.wait(timeout=30)
        try:
            return int(api_as(author).post("/api/questions/", body, format="json").status_code)
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=6) as pool:
        statuses = sorted(pool.map(lambda _: create(), range(6)))
    assert statuses == [201] + [409] * 5
    assert Question.objects.filter(course=course).count() == 1


def test_an_image_is_reused_only_within_its_course(world: dict[str, Any]) -> None:
    """The editor uploads no images: a question may show one its course already shows, and
    never one of another course (its digest is all an author would need)."""
    image = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32
    digest = hashlib.sha256(image).hexdigest()
    asset_blobs_store(images={digest: image})
    shown = Question.objects.get(pk=_create(world, STARTERS["true_false"]).json()["id"])
    QuestionAsset.objects.create(question=shown, name="graph.png", blob_id=digest)
    with_image = {**STARTERS["numeric"], "assets": {"graph.png": digest}}
    assert _create(world, with_image, slug="same-course").status_code == 201

    other = new_course()
    new_topic(course=other, slug="tensors")
    stranger = member(other, Role.AUTHOR)
    body = {"course": other.pk, "slug": "borrowed", "topic": "tensors", "content": with_image}
    refused = api_as(stranger).post("/api/questions/", body, format="json")
    assert refused.status_code == 400
    assert list(refused.json()["error"]["fields"]) == ["content.assets.graph.png"]
