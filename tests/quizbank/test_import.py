"""bank_import: atomic, idempotent, honest about what it did."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from quizbank.models import Choice, CodeFile, Course, Question, QuestionVersion, Topic
from tests.quizbank.conftest import FIXTURE_BANK

pytestmark = pytest.mark.django_db


def run_import(*args: str, verbosity: int = 1) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("bank_import", *args, stdout=out, stderr=err, verbosity=verbosity)
    return out.getvalue(), err.getvalue()


def test_it_imports_one_question_of_every_type(every_type_bank: Path) -> None:
    out, _ = run_import(str(every_type_bank))
    course = Course.objects.get(slug="every-type")
    types = set(course.questions.values_list("type", flat=True))
    assert types == {"single_choice", "multiple_choice", "true_false", "numeric"} | {
        "short_text",
        "code",
        "viva",
    }
    assert list(course.topics.values_list("slug", flat=True)) == ["tensors", "autograd", "viva"]
    assert "7 created, 0 changed, 0 questions unchanged, 7 new versions" in out


def test_it_stores_rows_and_files_of_a_code_question(every_type_bank: Path) -> None:
    run_import(str(every_type_bank))
    question = Question.objects.get(slug="leaf-grad-sum")
    kinds = dict(question.code_files.values_list("name", "kind"))
    assert kinds == {
        "correct_by_hand.py": "correct",
        "generate.py": "generator",
        "reference.py": "reference",
        "wrong_forgets_factor_two.py": "wrong",
    }
    assert [case.name for case in question.code_cases.all()][:2] == ["two values", "random vector"]
    hidden = question.code_cases.get(name="random vector")
    assert (hidden.weight, hidden.hidden, hidden.spec["seed"]) == (2.0, True, 7)
    assert question.settings["entry_point"] == "grad_of_square_sum"


def test_reimporting_unchanged_files_creates_no_versions_and_says_so(every_type_bank: Path) -> None:
    run_import(str(every_type_bank))
    versions = QuestionVersion.objects.count()
    out, _ = run_import(str(every_type_bank))
    assert QuestionVersion.objects.count() == versions == 7
    assert "7 questions unchanged, 0 new versions" in out


def test_a_changed_file_gives_that_question_one_new_version(every_type_bank: Path) -> None:
    run_import(str(every_type_bank))
    path = every_type_bank / "autograd" / "leaf-grad-fn.yaml"
    path.write_text(path.read_text().replace("answer: true", "answer: false"))
    out, _ = run_import(str(every_type_bank))
    question = Question.objects.get(slug="leaf-grad-fn")
    assert question.current_version is not None
    assert question.current_version.number == 2
    assert question.current_version.content["answer"] is False
    assert "1 changed, 6 questions unchanged, 1 new versions" in out


def test_one_broken_file_writes_nothing_even_when_it_sorts_last(every_type_bank: Path) -> None:
    broken = every_type_bank / "viva" / "zz-last.yaml"
    broken.write_text(
        "type: single_choice\ntitle: T\nprompt: P\nchoices:\n  - text: a\n  - text: b\n"
    )
    with pytest.raises(CommandError):
        run_import(str(every_type_bank))
    assert not Course.objects.exists()
    assert not Topic.objects.exists()
    assert not Question.objects.exists()


def test_a_broken_file_leaves_an_imported_course_as_it_was(every_type_bank: Path) -> None:
    run_import(str(every_type_bank))
    path = every_type_bank / "tensors" / "batch-rank.yaml"
    path.write_text(path.read_text().replace("title: Rank", "title: Changed rank"))
    (every_type_bank / "viva" / "zz-last.yaml").write_text("type: viva\n")
    with pytest.raises(CommandError):
        run_import(str(every_type_bank))
    assert Question.objects.get(slug="batch-rank").title == "Rank of a batch of embeddings"
    assert QuestionVersion.objects.count() == 7


def test_the_command_prints_every_error_and_fails(every_type_bank: Path) -> None:
    (every_type_bank / "viva" / "one.yaml").write_text("type: viva\ntitle: T\n")
    (every_type_bank / "tensors" / "two.yaml").write_text("type: numeric\ntitle: T\nprompt: P\n")
    err = io.StringIO()
    with pytest.raises(CommandError, match="nothing was written"):
        call_command("bank_import", str(every_type_bank), stdout=io.StringIO(), stderr=err)
    lines = err.getvalue().splitlines()
    assert f"{every_type_bank}/viva/one.yaml:1 prompt: is required" in lines
    assert f"{every_type_bank}/viva/one.yaml:1 rubric: is required" in lines
    assert f"{every_type_bank}/tensors/two.yaml:1 answers: is required" in lines


def test_a_dry_run_validates_and_writes_nothing(every_type_bank: Path) -> None:
    out, _ = run_import(str(every_type_bank), "--dry-run")
    assert "7 created" in out
    assert "dry run: nothing was written" in out
    assert not Course.objects.exists()


def test_the_course_option_overrides_the_slug_in_bank_yaml(every_type_bank: Path) -> None:
    run_import(str(every_type_bank), "--course", "other-course")
    assert list(Course.objects.values_list("slug", flat=True)) == ["other-course"]
    assert Question.objects.filter(course__slug="other-course").count() == 7


def test_questions_missing_from_the_files_are_left_and_reported(every_type_bank: Path) -> None:
    run_import(str(every_type_bank))
    (every_type_bank / "tensors" / "batch-rank.yaml").unlink()
    out, _ = run_import(str(every_type_bank))
    assert Question.objects.filter(slug="batch-rank").exists()
    assert "1 questions not in the files were left unchanged: batch-rank" in out


def test_moving_a_file_to_another_topic_moves_the_question_without_a_version(
    every_type_bank: Path,
) -> None:
    run_import(str(every_type_bank))
    shutil.move(
        every_type_bank / "tensors" / "batch-rank.yaml",
        every_type_bank / "autograd" / "batch-rank.yaml",
    )
    run_import(str(every_type_bank))
    question = Question.objects.get(slug="batch-rank")
    assert question.topic.slug == "autograd"
    assert question.versions.count() == 1


def test_it_replaces_child_rows_rather_than_adding_to_them(every_type_bank: Path) -> None:
    run_import(str(every_type_bank))
    path = every_type_bank / "tensors" / "batch-rank.yaml"
    path.write_text(path.read_text().replace('  - text: "4"\n', ""))
    run_import(str(every_type_bank))
    assert Choice.objects.filter(question__slug="batch-rank").count() == 2


def test_progress_is_shown_at_verbosity_two(every_type_bank: Path) -> None:
    _, quiet = run_import(str(every_type_bank))
    _, loud = run_import(str(every_type_bank), verbosity=2)
    assert quiet == ""
    assert "read 7/7 questions" in loud
    assert "written 7/7 questions" in loud


def test_the_fixture_bank_imports_cleanly() -> None:
    out, _ = run_import(str(FIXTURE_BANK))
    course = Course.objects.get()
    assert course.questions.count() >= 48
    assert QuestionVersion.objects.count() == course.questions.count()
    again, _ = run_import(str(FIXTURE_BANK))
    assert ", 0 new versions" in again


@pytest.mark.parametrize(
    "link", ["autograd/leaf-grad-sum/correct_outside.py", "tensors/outside.yaml", "elsewhere"]
)
def test_a_symbolic_link_in_the_bank_refuses_it_naming_the_link(
    every_type_bank: Path, tmp_path: Path, link: str
) -> None:
    """A link could bring a file from outside the bank (a secret, /etc/passwd) in as a
    question or a solution that course authors then read."""
    outside = tmp_path / "secret_module.py"
    outside.write_text("SECRET_TOKEN = 'not for the bank'\n")
    (every_type_bank / link).symlink_to(outside if link.endswith(".py") else tmp_path)
    err = io.StringIO()
    with pytest.raises(CommandError, match="nothing was written"):
        call_command("bank_import", str(every_type_bank), stdout=io.StringIO(), stderr=err)
    assert f"{every_type_bank}/{link}:1 (file): is a symbolic link" in err.getvalue()
    assert not CodeFile.objects.filter(source__contains="SECRET_TOKEN").exists()
