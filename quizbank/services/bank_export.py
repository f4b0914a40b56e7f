"""Exporting a course's current versions as a bank folder in the canonical layout."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from quizbank.bankfiles import (
    BankHeader,
    QuestionOut,
    TopicEntry,
    canonical_text,
    canonicalize,
    write_bank,
)
from quizbank.errors import ExportFailed, ExportTargetNotEmpty
from quizbank.models import Course, Question
from quizbank.selectors import course_questions
from quizbank.services.assets import asset_images
from quizbank.services.content import question_content


def bank_export(*, course: Course, path: Path) -> int:
    """Write `course` under `path` (absent or empty); returns the number of files written."""
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise ExportTargetNotEmpty(f"{path} must be an empty folder or not exist yet")
    topics = [
        TopicEntry(
            slug=topic.slug,
            title=canonical_text(topic.title),
            description=canonical_text(topic.description),
        )
        for topic in course.topics.order_by("position", "slug")
    ]
    header = BankHeader(
        slug=course.slug,
        title=canonical_text(course.title),
        description=canonical_text(course.description),
        topics=topics,
    )
    questions = [_question_out(question) for question in course_questions(course)]
    # Written beside `path` and renamed into place at the end: a failure (a full disk, a name
    # the file system refuses) leaves no half-written folder behind.
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}.partial-"))
    try:
        written = write_bank(partial, header, questions)
        partial.chmod(0o755)  # mkdtemp's folder is private to its owner
        if path.exists():
            path.rmdir()
        os.replace(partial, path)
    except OSError as error:
        raise ExportFailed(
            f"Nothing was exported to {path}: {error.strerror or error} ({error.filename or path})."
        ) from error
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return written


def _question_out(question: Question) -> QuestionOut:
    # Versions hold the content; jsonb loses key order, so it is restored here.
    content = canonicalize(
        question.current_version.content
        if question.current_version is not None
        else question_content(question)
    )
    images = asset_images(content.get("assets", {}).values())
    return QuestionOut(
        topic=question.topic.slug, slug=question.slug, content=content, images=images
    )
