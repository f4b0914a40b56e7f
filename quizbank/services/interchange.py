"""Importing and exporting a course's questions in Moodle XML, GIFT and QTI.

A converter (quizbank.interchange) turns the file into drafts; each draft is validated by
the bank's own rules (the same as a bank folder's) and the valid ones are written in one
transaction, as a bank import writes them. Whatever is left out is in the report."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import QuerySet

from config.locking import for_update
from config.text import unstorable_text
from quizbank.access import courses_for
from quizbank.bankfiles import canonicalize, content_hash
from quizbank.errors import ExportImpossible, InterchangeRefused
from quizbank.interchange.common import numbered_slugs
from quizbank.interchange.formats import EXTENSIONS, FORMAT_NAMES, FORMATS, READERS, WRITERS
from quizbank.interchange.limits import check_size
from quizbank.interchange.report import Draft, Exported, Skipped, TopicRef
from quizbank.models import Course, Question, Quiz, Topic
from quizbank.selectors import course_questions, quiz_slots
from quizbank.services.assets import asset_blobs_missing, asset_blobs_store, asset_images
from quizbank.services.bank_import import bank_write_question, question_problems
from quizbank.services.content import question_content
from quizbank.services.topics import topic_create


@dataclass
class ImportedQuestion:
    slug: str
    title: str
    type: str
    topic: str
    location: str
    outcome: str = ""
    notes: list[str] = field(default_factory=list)


@dataclass
class InterchangeReport:
    course: str
    format: str
    dry_run: bool = False
    questions: list[ImportedQuestion] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return dict(Counter(question.outcome for question in self.questions))

    def wrote_anything(self) -> bool:
        """Whether the import created or changed a question (never so for a dry run)."""
        return not self.dry_run and any(
            question.outcome in ("created", "updated") for question in self.questions
        )

    def by_type(self) -> dict[str, int]:
        return dict(Counter(question.type for question in self.questions))

    def summary(self) -> str:
        counts = self.counts()
        lines = [
            f"{self.course}: {len(self.questions)} questions imported from {self.format} "
            f"({counts.get('created', 0)} created, {counts.get('updated', 0)} changed, "
            f"{counts.get('unchanged', 0)} unchanged), {len(self.skipped)} skipped"
        ]
        lines += [f"skipped {item.line()}" for item in self.skipped]
        lines += [f"note {q.location}: {note}" for q in self.questions for note in q.notes]
        if self.dry_run:
            lines.append("dry run: nothing was written")
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        return {
            "course": self.course,
            "format": self.format,
            "dry_run": self.dry_run,
            "counts": self.counts(),
            "by_type": self.by_type(),
            "questions": [vars(question) for question in self.questions],
            "skipped": [{"location": s.location, "reason": s.reason} for s in self.skipped],
        }


def check_format(fmt: str) -> None:
    if fmt not in FORMATS:
        raise InterchangeRefused(f"unknown format {fmt!r}; use one of: {', '.join(FORMATS)}")


def interchange_import(
    *, course: Course, fmt: str, data: bytes, dry_run: bool = False, user: User | None = None
) -> InterchangeReport:
    """Import the questions of `data` (in `fmt`) into `course`: every valid one or none at all;
    raises InterchangeRefused or FileTooLarge (writing nothing) for a file refused whole."""
    check_format(fmt)
    check_size(data)
    conversion = READERS[fmt](data)
    check_count(len(conversion.drafts) + len(conversion.skipped))
    if not conversion.drafts and not conversion.skipped:
        raise InterchangeRefused(
            f"the file holds no questions: is it a {FORMAT_NAMES.get(fmt, fmt)} file of questions?"
        )
    report = InterchangeReport(course=course.slug, format=fmt, dry_run=dry_run)
    report.skipped.extend(conversion.skipped)
    # Images named by sha256 alone: the course's own, or of another course the importer is in.
    seen = None if user is None else courses_for(user) | Course.objects.filter(pk=course.pk)
    accepted = [draft for draft in conversion.drafts if _valid(seen, draft, report.skipped)]
    with transaction.atomic():
        # One import of a course at a time: each decides new or updated from the bank as it
        # finds it, and two at once would both create the same slug.
        for_update(Course).get(pk=course.pk)
        _write(course, accepted, user, report)
        if dry_run:
            transaction.set_rollback(True)
    return report


def check_count(questions: int) -> None:
    """Refuse a file of more questions than one import writes: an import is one transaction,
    and on SQLite (`make run`) that holds every other writer (autosaves, submits, sign-ins)
    until it ends, about 12 ms a question."""
    limit = int(settings.INTERCHANGE_MAX_QUESTIONS)
    if questions > limit:
        raise InterchangeRefused(
            f"the file holds {questions:,} questions; one import takes at most {limit:,} "
            "(INTERCHANGE_MAX_QUESTIONS): split it into smaller files"
        )


def _valid(courses: QuerySet[Course] | None, draft: Draft, skipped: list[Skipped]) -> bool:
    problems = question_problems(draft.content) or _missing_images(courses, draft)
    if unstorable_text([draft.content, vars(draft.topic)]):
        problems.append("text holds NUL characters or unpaired surrogates")
    if problems:
        skipped.append(Skipped(draft.location, "; ".join(problems)))
        return False
    draft.content = canonicalize(draft.content)
    return True


def _missing_images(courses: QuerySet[Course] | None, draft: Draft) -> list[str]:
    """An asset named by a Vivabank extension whose bytes are neither in the file nor shown
    by a question of `courses` (any, for an import with no user: the command line)."""
    assets: dict[str, str] = draft.content.get("assets", {})
    named = set(assets.values()) - set(draft.images)
    missing = asset_blobs_missing(courses=courses, digests=named)
    return [
        f"assets.{name}: the image is neither in the file nor in this bank"
        for name, digest in assets.items()
        if digest in missing
    ]


def _write(course: Course, drafts: list[Draft], user: User | None, report: Any) -> None:
    topics: dict[str, Topic] = {}
    existing = {q.slug: q for q in course.questions.select_related("current_version")}
    written: set[str] = set()
    for draft in drafts:
        refused = _place(draft, existing, written)
        if refused is not None:
            report.skipped.append(Skipped(draft.location, refused))
            continue
        written.add(draft.slug)
        topic = topics.get(draft.topic.slug) or _topic(course, draft.topic)
        topics[draft.topic.slug] = topic
        asset_blobs_store(images=draft.images)
        question = existing.get(draft.slug)
        outcome = bank_write_question(
            course=course,
            topic=topic,
            slug=draft.slug,
            question=question,
            content=draft.content,
            user=user,
        )
        report.questions.append(
            ImportedQuestion(
                slug=draft.slug,
                title=draft.content["title"],
                type=draft.content["type"],
                topic=topic.slug,
                location=draft.location,
                outcome=outcome,
                notes=draft.notes,
            )
        )


def _place(draft: Draft, existing: dict[str, Question], written: set[str]) -> str | None:
    """Which question of the bank the draft becomes (its slug, changed where needed), or why
    it is skipped. A question the file names (Vivabank's own exports, a Moodle idnumber)
    replaces the bank's question of that slug and type; a slug made from a title replaces
    nothing ("Q1" is many files' first name, and a QTI round trip would drop fields): it
    goes to `name-2`, `name-3`... unless the bank's question has its very title."""
    question = existing.get(draft.slug)
    if draft.slug not in written and (question is None or _replaces(draft, question)):
        return None
    if (
        question is not None
        and draft.slug not in written
        and question.type == draft.content["type"]
        and question.title == draft.content["title"]
    ):
        return (
            f"the bank's question {draft.slug} has this title and other content; a file that "
            "does not name it (Vivabank's own Moodle XML and GIFT exports do) does not replace "
            "it: edit it in the bank, or import the file into another course to compare"
        )
    slug = next(s for s in numbered_slugs(draft.slug) if _free_for(s, draft, existing, written))
    taken = existing.get(draft.slug)
    other_type = taken is not None and taken.type != draft.content["type"]
    kind = f"a {taken.type} question" if taken is not None and other_type else "another question"
    draft.notes.append(f"imported as {slug}: {draft.slug} is {kind} in the bank")
    draft.slug = slug
    return None


def _replaces(draft: Draft, question: Question) -> bool:
    if question.type != draft.content["type"]:
        return False
    current = question.current_version
    same = current is not None and current.content_hash == content_hash(draft.content)
    return draft.named or same


def _free_for(slug: str, draft: Draft, existing: dict[str, Question], written: set[str]) -> bool:
    question = existing.get(slug)
    if slug in written:
        return False
    if question is None:
        return True
    current = question.current_version
    return current is not None and current.content_hash == content_hash(draft.content)


def _topic(course: Course, ref: TopicRef) -> Topic:
    topic = (
        course.topics.filter(slug=ref.slug).first()
        or course.topics.filter(title__iexact=ref.title).order_by("position").first()
    )
    if topic is not None:
        return topic
    return topic_create(course=course, title=ref.title, slug=ref.slug, description=ref.description)


def interchange_export(*, course: Course, fmt: str, quiz: Quiz | None = None) -> Exported:
    """The course's questions (or the quiz's fixed questions) as a file in `fmt`; what the
    format cannot hold is listed in `skipped`. Raises ExportImpossible when nothing fits."""
    check_format(fmt)
    items, skipped = _quiz_items(quiz) if quiz is not None else (_course_items(course), [])
    name = quiz.slug if quiz is not None else course.slug
    exported = WRITERS[fmt](items, f"{name}.{EXTENSIONS[fmt]}")
    exported.skipped[:0] = skipped
    if len(exported.skipped) == len(items) + len(skipped):
        raise ExportImpossible(f"none of the questions of {name} can be written as {fmt}")
    return exported


def _course_items(course: Course) -> list[Draft]:
    return [_item(question) for question in course_questions(course)]


def _quiz_items(quiz: Quiz) -> tuple[list[Draft], list[Skipped]]:
    items, skipped = [], []
    for slot in quiz_slots(quiz):
        if slot.question is None:
            reason = "a slot that draws at random from a pool is not exported"
            skipped.append(Skipped(f"slot {slot.position}", reason))
        else:
            items.append(_item(slot.question, points=slot.points))
    return items, skipped


def _item(question: Any, points: Decimal | None = None) -> Draft:
    """The question as a draft; `points` (a quiz slot's) replaces its own, since a quiz's file
    says what each question is worth in that quiz (a viva's rubric scores a share of it)."""
    topic = question.topic
    content = (
        question.current_version.content
        if question.current_version is not None
        else question_content(question)
    )
    if points is not None:
        content = {
            **content,
            "points": int(points) if points == points.to_integral() else float(points),
        }
    return Draft(
        slug=question.slug,
        topic=TopicRef(slug=topic.slug, title=topic.title, description=topic.description),
        content=canonicalize(content),
        location=question.slug,
        images=asset_images(content.get("assets", {}).values()),
    )
