"""bank.yaml: the course and its ordered topics."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from quizbank.bankfiles import schema
from quizbank.bankfiles.canonical import canonical_text
from quizbank.bankfiles.checker import Checker
from quizbank.bankfiles.source import (
    FieldPath,
    NotText,
    YamlSyntaxError,
    field_name,
    load_yaml,
    read_text,
)


@dataclass(frozen=True)
class TopicEntry:
    slug: str
    title: str
    description: str = ""
    line: int = 1


@dataclass
class BankHeader:
    slug: str
    title: str
    description: str = ""
    topics: list[TopicEntry] = field(default_factory=list)


def read_header(path: Path) -> tuple[BankHeader | None, list[str]]:
    """Parse and validate bank.yaml; the header is None when it has errors."""
    try:
        loaded = load_yaml(read_text(path))
    except (YamlSyntaxError, NotText) as exc:
        return None, [f"{path}:{exc.line} (file): {exc.message}"]
    check = Checker()
    check.issues.extend(loaded.issues)
    header = _validate(check, loaded.data)
    errors = [
        f"{path}:{loaded.source.line(issue.path)} {field_name(issue.path)}: {issue.message}"
        for issue in check.issues
    ]
    if errors or header is None:
        return None, errors
    topics = [
        TopicEntry(
            slug=topic.slug,
            title=topic.title,
            description=topic.description,
            line=loaded.source.line(("topics", index)),
        )
        for index, topic in enumerate(header.topics)
    ]
    return BankHeader(header.slug, header.title, header.description, topics), []


def _validate(check: Checker, data: object) -> BankHeader | None:
    bank = check.mapping(data, (), "bank.yaml")
    if bank is None:
        return None
    check.plain_values(bank, ())
    check.keys(bank, (), ("course", "topics"))
    course = check.mapping(check.required(bank, "course", ()) or {}, ("course",), "course")
    header = _course(check, course or {})
    topics = check.items(bank, "topics", ())
    seen: set[str] = set()
    for index, item in enumerate(topics or []):
        path: FieldPath = ("topics", index)
        topic = check.mapping(item, path, "a topic")
        if topic is None:
            continue
        check.keys(topic, path, ("slug", "title", "description"))
        slug = _slug(check, topic, path, schema.MAX_TOPIC_SLUG)
        title = check.text(
            topic, "title", path, required=True, max_length=schema.MAX_TITLE, one_line=True
        )
        description = check.text(topic, "description", path) or ""
        if slug in seen:
            check.error((*path, "slug"), "two topics have this slug")
        if slug and title:
            seen.add(slug)
            header.topics.append(
                TopicEntry(slug, canonical_text(title), canonical_text(description))
            )
    return header


def _course(check: Checker, course: dict[str, Any]) -> BankHeader:
    check.keys(course, ("course",), ("slug", "title", "description"))
    slug = _slug(check, course, ("course",), 80)
    title = check.text(
        course, "title", ("course",), required=True, max_length=schema.MAX_TITLE, one_line=True
    )
    description = check.text(course, "description", ("course",)) or ""
    return BankHeader(slug or "", canonical_text(title or ""), canonical_text(description))


def _slug(check: Checker, data: dict[str, Any], path: FieldPath, max_length: int) -> str | None:
    slug = check.text(data, "slug", path, required=True, max_length=max_length, one_line=True)
    if slug is not None and not schema.SLUG_RE.match(slug):
        check.error((*path, "slug"), "must be lowercase letters, digits and hyphens")
        return None
    return slug
