"""Topics an author adds (the question list page, the API) and the names a code question's
files may have: what an outsider or a careless author sends is refused with why, and an
export never writes outside its folder."""

import re
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from lms.services.tokens import api_client_create, token_issue
from quizbank.errors import ExportFailed, ExportImpossible, TopicInvalid
from quizbank.models import Course, Role, Topic
from quizbank.services.bank_export import bank_export
from quizbank.services.question_authoring import STARTERS
from quizbank.services.topics import topic_create
from tests.grading.content import CODE
from tests.grading.factories import api_as, member, new_course, new_topic, question

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("titles", "slugs"),
    [
        (["C++", "C#"], ["c", "c-2"]),
        (["Autograd", "Autograd!", "AUTOGRAD?"], ["autograd", "autograd-2", "autograd-3"]),
    ],
)
def test_titles_that_make_the_same_slug_each_get_a_topic(
    titles: list[str], slugs: list[str]
) -> None:
    course = new_course()
    page = Client()
    page.force_login(member(course, Role.AUTHOR))
    for title in titles:
        reply = page.post(f"/author/courses/{course.pk}/questions/", {"title": title}, follow=True)
        assert f"Added the topic {title}." in reply.content.decode()
    assert list(course.topics.order_by("position").values_list("title", "slug")) == list(
        zip(titles, slugs, strict=True)
    )


def test_titles_with_no_ascii_letters_each_get_a_topic_of_their_own_slug() -> None:
    course = new_course()
    page = Client()
    page.force_login(member(course, Role.AUTHOR))
    titles = ["线性代数", "微积分"]
    for title in titles:
        page.post(f"/author/courses/{course.pk}/questions/", {"title": title})
    rows = list(course.topics.order_by("position").values_list("title", "slug"))
    assert [title for title, _slug in rows] == titles
    slugs = [slug for _title, slug in rows]
    assert len(set(slugs)) == 2
    assert all(re.fullmatch(r"topic-[0-9a-f]{8}", slug) for slug in slugs), slugs


def test_a_slug_given_that_the_course_has_is_refused() -> None:
    course = new_course()
    new_topic(course=course, slug="tensors")
    api = api_as(member(course, Role.AUTHOR))
    reply = api.post(
        f"/api/courses/{course.pk}/topics/", {"title": "T", "slug": "tensors"}, format="json"
    )
    assert (reply.status_code, reply.json()["error"]["code"]) == (409, "slug_taken")
    assert reply.json()["error"]["fields"] == {"slug": ["the course already has a topic 'tensors'"]}


def _client_in(course: Course, scopes: list[str]) -> APIClient:
    client = api_client_create(name=f"client-{'-'.join(scopes)}")
    member(course, Role.AUTHOR, user=client.user)
    _, key = token_issue(client=client, scopes=scopes)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return api


def test_topics_take_the_banks_scopes() -> None:
    course = new_course()
    url = f"/api/courses/{course.pk}/topics/"
    bank = _client_in(course, ["questions:manage"])
    assert bank.post(url, {"title": "Autograd"}, format="json").status_code == 201
    assert bank.get(url).status_code == 200
    assert _client_in(course, ["quizzes:manage"]).get(url).status_code == 200
    roster = _client_in(course, ["roster:manage"])
    assert roster.post(url, {"title": "Roster"}, format="json").status_code == 403
    assert _client_in(course, ["grades:read"]).get(url).status_code == 403
    assert list(Topic.objects.filter(course=course).values_list("title", flat=True)) == ["Autograd"]


def test_questions_writes_take_the_questions_scope() -> None:
    course = new_course()
    new_topic(course=course, slug="tensors")
    body = {"course": course.pk, "slug": "q", "topic": "tensors", "content": STARTERS["numeric"]}
    bank = _client_in(course, ["questions:manage"])
    created = bank.post("/api/questions/", body, format="json")
    assert created.status_code == 201, created.content
    update = {"topic": "tensors", "content": STARTERS["numeric"]}
    assert (
        bank.put(f"/api/questions/{created.json()['id']}/", update, format="json").status_code
        == 200
    )
    quizzes = _client_in(course, ["quizzes:manage"])
    refused = quizzes.post("/api/questions/", {**body, "slug": "q2"}, format="json")
    assert (refused.status_code, refused.json()["error"]["code"]) == (403, "scope_missing")
    assert list(course.questions.values_list("slug", flat=True)) == ["q"]


def _code_with(course: Course, files: dict[str, str]) -> Any:
    new_topic(course=course, slug="tensors")
    content = {**STARTERS["code"], "files": {**STARTERS["code"]["files"], **files}}
    body = {"course": course.pk, "slug": "odd", "topic": "tensors", "content": content}
    return api_as(member(course, Role.AUTHOR)).post("/api/questions/", body, format="json")


@pytest.mark.parametrize(
    "name",
    [
        "wrong_a.py\n",
        "correct_b.py\n",
        "../../wrong_x.py",
        "/tmp/wrong_y.py",
        "notes.txt",
        "wrong_é.py",
        "wrong_" + "a" * 101 + ".py",
    ],
)
def test_a_code_file_name_that_is_no_solution_name_is_refused(name: str) -> None:
    course = new_course()
    reply = _code_with(course, {name: "def f(x):\n    return x\n"})
    assert reply.status_code == 400, reply.content
    assert "not a file a code question may hold" in reply.content.decode()
    assert not course.questions.exists()


def test_a_code_question_holds_at_most_thirty_files() -> None:
    course = new_course()
    wrong = {f"wrong_w{i}.py": "def double(x):\n    return x + 2\n" for i in range(30)}
    reply = _code_with(course, wrong)
    assert reply.status_code == 400
    assert "at most 30 files" in reply.content.decode()


def test_an_export_refuses_a_file_name_stored_before_names_were_checked(tmp_path: Path) -> None:
    course = new_course()
    question(course, {**CODE, "files": {**CODE["files"], "../../../escaped.py": "x = 1\n"}})
    with pytest.raises(ExportImpossible, match="escaped.py"):
        bank_export(course=course, path=tmp_path / "export")
    assert not (tmp_path / "escaped.py").exists()
    assert not list(tmp_path.rglob("escaped.py"))


def test_a_solution_name_of_a_hundred_characters_is_taken() -> None:
    course = new_course()
    reply = _code_with(course, {"wrong_" + "a" * 100 + ".py": "def double(x):\n    return x\n"})
    assert reply.status_code == 201, reply.content


def test_an_export_that_fails_half_way_leaves_no_folder(tmp_path: Path) -> None:
    """A path the file system refuses half-way (here: longer than PATH_MAX once a long
    question slug is added; a full disk alike) stops the export with the reason, and nothing
    of it is left but the empty target folder it was given."""
    course = new_course()
    question(course, CODE, slug_prefix="s" * 60)
    parent = tmp_path
    while len(str(parent)) < 4096 - 110:  # room for the root files, not for a question's
        parent = parent / ("d" * min(200, 4096 - 110 - len(str(parent))))
    parent.mkdir(parents=True)
    target = parent / "export"
    target.mkdir()
    with pytest.raises(ExportFailed, match="Nothing was exported to .*File name too long"):
        bank_export(course=course, path=target)
    assert list(parent.iterdir()) == [target]
    assert not list(target.iterdir())


@pytest.mark.parametrize(
    ("title", "named"),
    [
        ("a\x01b", "a control character (U+0001) at character 2"),
        ("Bell \x07", "a control character (U+0007) at character 6"),
        ("two\nlines", "a line break (U+000A) at character 4"),
        ("tensor\u202e.py", "a bidi formatting character (U+202E) at character 7"),
    ],
)
def test_a_topic_title_that_is_not_one_line_is_refused(title: str, named: str) -> None:
    with pytest.raises(TopicInvalid) as refused:
        topic_create(course=new_course(), title=title)
    assert list(refused.value.fields) == ["title"]
    assert named in refused.value.fields["title"][0]
