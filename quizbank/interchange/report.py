"""What a converter hands back: drafts of questions, and every question it had to leave out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class TopicRef:
    """The topic a question goes into: created in the course when its slug is new."""

    slug: str
    title: str
    description: str = ""
    # What the import changed in the file's name for it, for the report of each question in it.
    notes: tuple[str, ...] = field(default=(), compare=False)


DEFAULT_TOPIC = TopicRef(slug="imported", title="Imported")


@dataclass
class Draft:
    """One converted question: bank-format content (no validation yet) and where it came from."""

    slug: str
    topic: TopicRef
    content: dict[str, Any]
    location: str
    notes: list[str] = field(default_factory=list)
    # Whether the file named the question itself (Moodle's idnumber, the slug in Vivabank's
    # GIFT extension) rather than its slug being made from its title: only a named question
    # replaces the bank's question of that slug.
    named: bool = False
    # The bytes of the images named in content["assets"], by sha256.
    images: dict[str, bytes] = field(default_factory=dict)


@dataclass(frozen=True)
class Skipped:
    """A question left out, where it was and why."""

    location: str
    reason: str

    def line(self) -> str:
        return f"{self.location}: {self.reason}"


@dataclass
class Conversion:
    drafts: list[Draft] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    def skip(self, location: str, reason: str) -> None:
        self.skipped.append(Skipped(location, reason))


class Unsupported(Exception):
    """Raised inside a converter for one question it cannot represent; the rest go on."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class Exported:
    """An export's bytes, and the questions it could not hold."""

    data: bytes
    filename: str
    content_type: str
    skipped: list[Skipped] = field(default_factory=list)
