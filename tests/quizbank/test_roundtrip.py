"""bank_export: import -> export -> import changes nothing; exports are byte-identical."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from quizbank.models import QuestionVersion
from tests.quizbank.conftest import BANKS, FIXTURE_BANK

pytestmark = pytest.mark.django_db


def files_of(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def quiet(command: str, *args: str) -> str:
    out = io.StringIO()
    call_command(command, *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_import_export_import_creates_no_new_versions(tmp_path: Path) -> None:
    quiet("bank_import", str(BANKS / "every-type"))
    hashes = sorted(QuestionVersion.objects.values_list("content_hash", flat=True))
    quiet("bank_export", "every-type", str(tmp_path / "out"))
    out = quiet("bank_import", str(tmp_path / "out"))
    assert "7 questions unchanged, 0 new versions" in out
    assert sorted(QuestionVersion.objects.values_list("content_hash", flat=True)) == hashes


def test_exporting_twice_is_byte_identical(tmp_path: Path) -> None:
    quiet("bank_import", str(BANKS / "every-type"))
    quiet("bank_export", "every-type", str(tmp_path / "one"))
    quiet("bank_export", "every-type", str(tmp_path / "two"))
    assert files_of(tmp_path / "one") == files_of(tmp_path / "two")


def test_exporting_a_canonical_bank_reproduces_its_files(tmp_path: Path) -> None:
    quiet("bank_import", str(BANKS / "every-type"))
    quiet("bank_export", "every-type", str(tmp_path / "out"))
    assert files_of(tmp_path / "out") == files_of(BANKS / "every-type")


def test_export_keeps_code_folders_and_the_generator(tmp_path: Path) -> None:
    quiet("bank_import", str(BANKS / "every-type"))
    quiet("bank_export", "every-type", str(tmp_path / "out"))
    folder = tmp_path / "out" / "autograd" / "leaf-grad-sum"
    assert sorted(path.name for path in folder.iterdir()) == [
        "correct_by_hand.py",
        "generate.py",
        "question.yaml",
        "reference.py",
        "wrong_forgets_factor_two.py",
    ]


def test_export_writes_defaults_out_and_orders_keys_as_the_doc(tmp_path: Path) -> None:
    source = tmp_path / "bank"
    (source / "t").mkdir(parents=True)
    (source / "bank.yaml").write_text(
        "topics: [{slug: t, title: T}]\ncourse: {title: C, slug: c}\n"
    )
    (source / "t" / "q.yaml").write_text(
        "prompt: P\nanswer: true\ndifficulty: beginner\npoints: 1.0\ntitle: T\ntype: true_false\n"
    )
    quiet("bank_import", str(source))
    quiet("bank_export", "c", str(tmp_path / "out"))
    text = (tmp_path / "out" / "t" / "q.yaml").read_text()
    assert text == "type: true_false\ntitle: T\nprompt: P\nanswer: true\n"


def test_export_refuses_a_folder_that_is_not_empty(tmp_path: Path) -> None:
    quiet("bank_import", str(BANKS / "every-type"))
    (tmp_path / "notes.txt").write_text("keep me")
    with pytest.raises(CommandError, match="must be an empty folder"):
        quiet("bank_export", "every-type", str(tmp_path))
    assert (tmp_path / "notes.txt").read_text() == "keep me"


def test_export_of_an_unknown_course_fails(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no course with the slug nope"):
        quiet("bank_export", "nope", str(tmp_path / "out"))


def test_a_parameterised_numeric_question_keeps_its_placeholders(tmp_path: Path) -> None:
    source = tmp_path / "bank"
    folder = source / "t" / "quadratic"
    folder.mkdir(parents=True)
    (source / "bank.yaml").write_text(
        "course:\n  slug: c\n  title: C\ntopics:\n  - slug: t\n    title: T\n"
    )
    (folder / "question.yaml").write_text(
        'type: numeric\ntitle: T\nprompt: dy/dx at {{x}}?\nanswers:\n  - value: "{{dydx}}"\n'
        "  - value: 3\n    fraction: 0\n"
    )
    (folder / "generate.py").write_text("def generate(rng):\n    return {}\n")
    quiet("bank_import", str(source))
    assert "1 questions unchanged, 0 new versions" in quiet("bank_import", str(source))
    quiet("bank_export", "c", str(tmp_path / "out"))
    assert files_of(tmp_path / "out") == files_of(source)


def test_the_fixture_bank_is_kept_in_canonical_form(tmp_path: Path) -> None:
    """Authors can export after editing in the admin and get a diff of only their change."""
    quiet("bank_import", str(FIXTURE_BANK))
    quiet("bank_export", "pytorch-fundamentals", str(tmp_path / "out"))
    exported, kept = files_of(tmp_path / "out"), files_of(FIXTURE_BANK)
    assert sorted(exported) == sorted(kept)
    assert [name for name in kept if exported[name] != kept[name]] == []
