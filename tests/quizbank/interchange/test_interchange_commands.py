"""`bank_import --format` and `bank_export --format`: the same service from the shell."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from quizbank.models import Course
from tests.quizbank.factories import make_course
from tests.quizbank.interchange.helpers import THIRD_PARTY
from tests.quizbank.interchange.test_hostile_files import BILLION_LAUGHS

pytestmark = pytest.mark.django_db
GIFT_FILE = THIRD_PARTY / "gift/moodle-format_gift-fixtures/questions.gift.txt"


def run(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.fixture
def course() -> Course:
    return make_course(slug="target")


def test_import_prints_counts_skips_and_notes(course: Course) -> None:
    out, _ = run("bank_import", str(GIFT_FILE), "--format", "gift", "--course", "target")
    assert "8 questions imported from gift (8 created, 0 changed, 0 unchanged), 1 skipped" in out
    assert "skipped line 5: matching questions have no counterpart in the bank" in out
    assert course.questions.count() == 8


def test_import_needs_an_existing_course() -> None:
    with pytest.raises(CommandError, match="--course SLUG"):
        run("bank_import", str(GIFT_FILE), "--format", "gift")


def test_a_refused_file_is_a_command_error_and_writes_nothing(
    course: Course, tmp_path: Path
) -> None:
    bomb = tmp_path / "bomb.xml"
    bomb.write_bytes(BILLION_LAUGHS)
    with pytest.raises(CommandError, match="nothing was written"):
        run("bank_import", str(bomb), "--format", "moodle", "--course", "target")
    assert not course.questions.exists()


def test_export_writes_a_new_file_that_imports_back(course: Course, tmp_path: Path) -> None:
    run("bank_import", str(GIFT_FILE), "--format", "gift", "--course", "target")
    target = tmp_path / "out.xml"
    out, _ = run("bank_export", "target", str(target), "--format", "moodle")
    assert "0 questions skipped" in out
    make_course(slug="copy")
    out, _ = run("bank_import", str(target), "--format", "moodle", "--course", "copy")
    assert "8 created" in out
    with pytest.raises(CommandError, match="exists"):
        run("bank_export", "target", str(target), "--format", "moodle")
