"""Authoring in the admin: inlines save, a version follows, history is read-only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from quizbank.models import Question, QuestionVersion, Role
from quizbank.services.versioning import question_snapshot
from tests.quizbank.factories import (
    make_choice,
    make_course,
    make_membership,
    make_question,
    make_topic,
    make_user,
)
from tests.quizbank.formdata import form_data

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client() -> Client:
    client = Client()
    client.force_login(make_user(is_staff=True, is_superuser=True))
    return client


def new_question_data(client: Client, **fields: str) -> dict[str, Any]:
    data: dict[str, Any] = form_data(client.get(reverse("admin:quizbank_question_add")).text)
    topic = make_topic()
    data.update(
        course=str(topic.course.pk),
        topic=str(topic.pk),
        slug="batch-rank",
        type="single_choice",
        title="Rank of a batch",
        difficulty="beginner",
        tags='["tensors"]',
        objectives="[]",
        points="1",
        prompt="What is the rank of a (batch, tokens, emb) tensor?",
        settings="{}",
    )
    data.update(fields)
    return data


def with_choices(data: dict[str, Any], *choices: tuple[str, bool]) -> dict[str, Any]:
    data["choices-TOTAL_FORMS"] = str(len(choices))
    for index, (text, correct) in enumerate(choices):
        data[f"choices-{index}-position"] = str(index)
        data[f"choices-{index}-text"] = text
        if correct:
            data[f"choices-{index}-correct"] = "on"
    return data


def test_adding_a_question_with_inlines_creates_version_one(admin_client: Client) -> None:
    data = with_choices(new_question_data(admin_client), ("3", True), ("2", False))
    response = admin_client.post(reverse("admin:quizbank_question_add"), data)
    assert response.status_code == 302, response.context and response.context["errors"]
    question = Question.objects.get(slug="batch-rank")
    assert question.current_version is not None
    assert question.current_version.number == 1
    assert question.current_version.content["choices"] == [
        {"text": "3", "correct": True},
        {"text": "2"},
    ]


def test_the_admin_refuses_a_single_choice_with_two_correct_choices(admin_client: Client) -> None:
    data = with_choices(new_question_data(admin_client), ("3", True), ("2", True))
    response = admin_client.post(reverse("admin:quizbank_question_add"), data)
    assert response.status_code == 200
    assert "exactly one correct choice" in response.text
    assert not Question.objects.exists()


def test_the_admin_refuses_a_short_text_question_no_answer_scores_on(
    admin_client: Client,
) -> None:
    data = new_question_data(admin_client, type="short_text")
    data["text_answers-TOTAL_FORMS"] = "2"
    for index, text in enumerate(["blue", "grey"]):
        data[f"text_answers-{index}-position"] = str(index)
        data[f"text_answers-{index}-text"] = text
        data[f"text_answers-{index}-fraction"] = "0"
    response = admin_client.post(reverse("admin:quizbank_question_add"), data)
    assert response.status_code == 200
    assert "No answer earns marks" in response.text
    assert not Question.objects.exists()


def test_the_admin_refuses_a_title_that_is_not_one_line(admin_client: Client) -> None:
    data = with_choices(
        new_question_data(admin_client, title="Batch\u202erank"), ("3", True), ("2", False)
    )
    response = admin_client.post(reverse("admin:quizbank_question_add"), data)
    assert response.status_code == 200
    assert "a bidi formatting character (U+202E) at character 6" in response.text
    assert not Question.objects.exists()
    course = make_course()
    url = reverse("admin:quizbank_course_change", args=[course.pk])
    form = {**form_data(admin_client.get(url).text), "title": "two\nlines"}
    assert admin_client.post(url, form).status_code == 200
    course.refresh_from_db()
    assert "\n" not in course.title


def test_the_admin_checks_settings_against_the_format(admin_client: Client) -> None:
    data = with_choices(
        new_question_data(admin_client, settings='{"shuffle": "sometimes"}'),
        ("3", True),
        ("2", False),
    )
    response = admin_client.post(reverse("admin:quizbank_question_add"), data)
    assert response.status_code == 200
    assert "shuffle: must be true or false" in response.text
    assert not Question.objects.exists()


def test_saving_the_change_form_unchanged_creates_no_version(admin_client: Client) -> None:
    choice = make_choice(correct=True, feedback="Line one\nline two")
    make_choice(question=choice.question)
    question_snapshot(question=choice.question)
    url = reverse("admin:quizbank_question_change", args=[choice.question.pk])
    response = admin_client.post(url, form_data(admin_client.get(url).text))
    assert response.status_code == 302
    assert choice.question.versions.count() == 1


def test_editing_an_inline_in_the_admin_creates_the_next_version(admin_client: Client) -> None:
    choice = make_choice(correct=True)
    make_choice(question=choice.question)
    question_snapshot(question=choice.question)
    url = reverse("admin:quizbank_question_change", args=[choice.question.pk])
    data = form_data(admin_client.get(url).text)
    data["choices-1-feedback"] = "Not this one."
    response = admin_client.post(url, data)
    assert response.status_code == 302
    question = Question.objects.get(pk=choice.question.pk)
    assert question.current_version is not None
    assert question.current_version.number == 2
    assert question.current_version.content["choices"][1]["feedback"] == "Not this one."


def test_versions_cannot_be_added_changed_or_deleted_in_the_admin(admin_client: Client) -> None:
    question = make_question()
    version = question_snapshot(question=question)
    assert version is not None
    change = reverse("admin:quizbank_questionversion_change", args=[version.pk])
    delete = reverse("admin:quizbank_questionversion_delete", args=[version.pk])
    assert admin_client.get(reverse("admin:quizbank_questionversion_add")).status_code == 403
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    page = admin_client.get(change)
    assert page.status_code == 200
    assert 'name="_save"' not in page.text
    admin_client.post(change, {"number": "9"})
    assert QuestionVersion.objects.get(pk=version.pk).number == 1


def test_the_preview_renders_what_a_student_sees(admin_client: Client) -> None:
    choice = make_choice(
        correct=True, text="**three**", feedback="SECRET feedback", question__prompt="Rank of $x$?"
    )
    make_choice(question=choice.question, text="two")
    question_snapshot(question=choice.question)
    page = admin_client.get(reverse("quizbank:question-preview", args=[choice.question.pk]))
    assert page.status_code == 200
    assert '<span class="math inline">x</span>' in page.text
    assert "<strong>three</strong>" in page.text
    assert "SECRET" not in page.text
    assert "checked" not in page.text


def test_the_preview_never_shows_solutions_of_a_code_question(admin_client: Client) -> None:
    question = make_question(
        type="code",
        prompt="Write `f`.",
        settings={"entry_point": "f", "starter_code": "def f(x):\n    ...\n"},
    )
    question.code_files.create(kind="reference", name="reference.py", source="SECRET_REFERENCE")
    question.code_files.create(kind="wrong", name="wrong_a.py", source="SECRET_WRONG")
    question_snapshot(question=question)
    page = admin_client.get(reverse("quizbank:question-preview", args=[question.pk]))
    assert page.status_code == 200
    assert '<span class="k">def</span>' in page.text
    assert "SECRET" not in page.text


def test_the_preview_is_for_the_course_staff_only() -> None:
    question = make_question()
    question_snapshot(question=question)
    url = reverse("quizbank:question-preview", args=[question.pk])
    outsider, author = Client(), Client()
    outsider.force_login(make_user(is_staff=True))
    author_user = make_membership(course=question.course, role=Role.AUTHOR, user__is_staff=True)
    author.force_login(author_user.user)
    assert outsider.get(url).status_code == 404
    assert author.get(url).status_code == 200
    assert Client().get(url).status_code == 302


def test_the_preview_follows_course_roles_not_staff_status() -> None:
    question = make_question()
    question_snapshot(question=question)
    url = reverse("quizbank:question-preview", args=[question.pk])
    examiner, student = Client(), Client()
    examiner.force_login(make_membership(course=question.course, role=Role.EXAMINER).user)
    student.force_login(make_membership(course=question.course, role=Role.STUDENT).user)
    assert examiner.get(url).status_code == 200
    assert student.get(url).status_code == 404


def test_editing_rubric_levels_on_the_criterion_page_creates_a_version(
    admin_client: Client, every_type_bank: Path
) -> None:
    call_command("bank_import", str(every_type_bank), stdout=None)
    question = Question.objects.get(slug="why-grads-accumulate")
    criterion = question.rubric_criteria.get(position=0)
    url = reverse("admin:quizbank_rubriccriterion_change", args=[criterion.pk])
    data = form_data(admin_client.get(url).text)
    data["levels-2-descriptor"] = "Links summing to every use of the tensor."
    assert admin_client.post(url, data).status_code == 302
    question.refresh_from_db()
    assert question.current_version is not None
    assert question.current_version.number == 2
    levels = question.current_version.content["rubric"][0]["levels"]
    assert levels[2]["descriptor"] == "Links summing to every use of the tensor."


def test_the_admin_refuses_a_criterion_with_two_levels(
    admin_client: Client, every_type_bank: Path
) -> None:
    call_command("bank_import", str(every_type_bank), stdout=None)
    criterion = Question.objects.get(slug="why-grads-accumulate").rubric_criteria.get(position=0)
    url = reverse("admin:quizbank_rubriccriterion_change", args=[criterion.pk])
    data = form_data(admin_client.get(url).text)
    data["levels-2-DELETE"] = "on"
    response = admin_client.post(url, data)
    assert response.status_code == 200
    assert "A criterion needs 3 or 4 levels." in response.text
    assert criterion.levels.count() == 3


def code_question_data(client: Client, files: dict[str, str]) -> dict[str, Any]:
    data = new_question_data(
        client,
        type="code",
        prompt="Write `f(x)` that doubles `x`.",
        settings='{"entry_point": "f"}',
    )
    data.update(
        {
            "code_cases-TOTAL_FORMS": "1",
            "code_cases-0-position": "0",
            "code_cases-0-name": "one value",
            "code_cases-0-weight": "1",
            "code_cases-0-spec": '{"args": [{"tensor": [1.0]}]}',
            "code_files-TOTAL_FORMS": str(len(files)),
        }
    )
    for index, (name, kind) in enumerate(files.items()):
        data[f"code_files-{index}-kind"] = kind
        data[f"code_files-{index}-name"] = name
        data[f"code_files-{index}-source"] = "def f(x):\n    return 2 * x\n"
    return data


def test_the_admin_keeps_a_correct_alternative_beside_the_reference(admin_client: Client) -> None:
    files = {"reference.py": "reference", "correct_sum.py": "correct", "wrong_a.py": "wrong"}
    response = admin_client.post(
        reverse("admin:quizbank_question_add"), code_question_data(admin_client, files)
    )
    assert response.status_code == 302, response.context and response.context["errors"]
    version = Question.objects.get(slug="batch-rank").current_version
    assert version is not None
    assert sorted(version.content["files"]) == ["correct_sum.py", "reference.py", "wrong_a.py"]


def test_the_admin_names_every_allowed_file_when_one_is_not(admin_client: Client) -> None:
    files = {"reference.py": "reference", "solution.py": "correct", "wrong_a.py": "wrong"}
    response = admin_client.post(
        reverse("admin:quizbank_question_add"), code_question_data(admin_client, files)
    )
    assert response.status_code == 200
    said = "solution.py: not a file a code question may hold: use reference.py, "
    assert said + "correct_&lt;name&gt;.py, wrong_&lt;name&gt;.py or generate.py" in response.text
    assert not Question.objects.exists()


def test_the_admin_refuses_a_code_question_without_a_wrong_solution(admin_client: Client) -> None:
    files = {"reference.py": "reference", "correct_sum.py": "correct"}
    response = admin_client.post(
        reverse("admin:quizbank_question_add"), code_question_data(admin_client, files)
    )
    assert response.status_code == 200
    assert "A code question needs at least one wrong_&lt;name&gt;.py." in response.text
    assert not Question.objects.exists()
