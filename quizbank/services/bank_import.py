"""Importing a bank folder: validate every file first, then write it all in one transaction."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from quizbank.assets import asset_problems
from quizbank.bankfiles import (
    ParsedBank,
    QuestionFile,
    content_hash,
    read_bank,
    schema,
    validate_question,
)
from quizbank.bankfiles.codefiles import (
    NOT_A_FILE_NAME,
    check_python,
    file_kind,
    missing_files,
)
from quizbank.bankfiles.reader import Progress
from quizbank.bankfiles.source import field_name
from quizbank.errors import BankInvalid
from quizbank.models import Course, Question, Topic
from quizbank.services.assets import asset_blobs_store
from quizbank.services.question_write import question_apply_content
from quizbank.services.versioning import question_snapshot
from runner.contract import GENERATOR_FILE


@dataclass
class ImportReport:
    course: str
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    new_versions: int = 0
    left_alone: list[str] = field(default_factory=list)
    dry_run: bool = False

    def summary(self) -> str:
        total = self.created + self.updated + self.unchanged
        lines = [
            f"{self.course}: {total} questions read: {self.created} created, "
            f"{self.updated} changed, {self.unchanged} questions unchanged, "
            f"{self.new_versions} new versions"
        ]
        if self.left_alone:
            lines.append(
                f"{len(self.left_alone)} questions not in the files were left unchanged: "
                + ", ".join(self.left_alone)
            )
        if self.dry_run:
            lines.append("dry run: nothing was written")
        return "\n".join(lines)


def bank_import(
    *,
    path: Path,
    course_slug: str | None = None,
    dry_run: bool = False,
    user: User | None = None,
    progress: Progress | None = None,
) -> ImportReport:
    """Import the bank folder at `path`; raises BankInvalid (writing nothing) on any error."""
    bank = read_bank(path, progress=progress)
    if course_slug is not None and not schema.SLUG_RE.match(course_slug):
        bank.errors.append(f"--course {course_slug}: must be lowercase letters, digits and hyphens")
    if bank.errors or bank.header is None:
        raise BankInvalid(bank.errors)
    with transaction.atomic():
        report = _write_bank(bank, course_slug or bank.header.slug, user, progress)
        report.dry_run = dry_run
        if dry_run:
            transaction.set_rollback(True)
    return report


def _write_bank(
    bank: ParsedBank, slug: str, user: User | None, progress: Progress | None
) -> ImportReport:
    assert bank.header is not None  # noqa: S101 (checked by the caller)
    course, _ = Course.objects.update_or_create(
        slug=slug, defaults={"title": bank.header.title, "description": bank.header.description}
    )
    topics: dict[str, Topic] = {}
    for position, entry in enumerate(bank.header.topics):
        topics[entry.slug], _ = Topic.objects.update_or_create(
            course=course,
            slug=entry.slug,
            defaults={"title": entry.title, "description": entry.description, "position": position},
        )
    existing = {q.slug: q for q in course.questions.select_related("current_version")}
    report = ImportReport(course=slug)
    for done, item in enumerate(bank.questions, start=1):
        question = existing.pop(item.slug, None)
        _write_question(course, topics[item.topic], question, item, user, report)
        if progress is not None:
            progress("written", done, len(bank.questions))
    report.left_alone = sorted(existing)
    return report


def _write_question(
    course: Course,
    topic: Topic,
    question: Question | None,
    item: QuestionFile,
    user: User | None,
    report: ImportReport,
) -> None:
    asset_blobs_store(images=item.images)
    outcome = bank_write_question(
        course=course,
        topic=topic,
        slug=item.slug,
        question=question,
        content=item.content,
        user=user,
    )
    report.new_versions += outcome != "unchanged"
    if outcome == "created":
        report.created += 1
    elif outcome == "updated":
        report.updated += 1
    else:
        report.unchanged += 1


def bank_write_question(
    *,
    course: Course,
    topic: Topic,
    slug: str,
    question: Question | None,
    content: dict[str, Any],
    user: User | None,
) -> str:
    """Store canonical `content` as `question` (None: a new one, named `slug`); returns
    "created", "updated" or "unchanged" (same content hash: no new version)."""
    current = question.current_version if question is not None else None
    if question is not None and current and current.content_hash == content_hash(content):
        if question.topic_id != topic.pk:
            Question.objects.filter(pk=question.pk).update(topic=topic)
        return "unchanged"
    is_new = question is None
    question = question or Question(course=course, slug=slug)
    question.topic = topic
    question_apply_content(question=question, content=content)
    version = question_snapshot(question=question, user=user)
    if is_new:
        return "created"
    return "unchanged" if version is None else "updated"


def question_problems(content: dict[str, Any]) -> list[str]:
    """What breaks the bank's rules in one question given as a dict, its source files under
    "files" and its images under "assets" (as an import from another format or a scratch
    question brings them), one line each."""
    fields = dict(content)
    files = fields.pop("files", {})
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        return ["files: must map file names to text"]
    problems = asset_problems(fields.pop("assets", {}))
    problems += [
        f"{field_name(issue.path)}: {issue.message}"
        for issue in validate_question(fields, parameterised=GENERATOR_FILE in files)
    ]
    problems += missing_files(str(fields.get("type")), list(files))
    if len(files) > schema.MAX_CODE_FILES:
        problems.append(f"files: at most {schema.MAX_CODE_FILES} files ({len(files)} given)")
    for name, source in files.items():
        kind = file_kind(name)
        if kind is None:
            problems.append(f"files.{name[:80]!r}: {NOT_A_FILE_NAME}")
            continue
        defines = fields.get("entry_point") if kind in ("reference", "correct") else None
        problem = check_python(name, source, defines=str(defines) if defines else None)
        if problem is not None:
            problems.append(f"{name}, line {problem[0]}: {problem[1]}")
    return problems
