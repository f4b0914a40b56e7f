"""Domain errors of the question bank, each with a stable code."""

from typing import ClassVar

from rest_framework import status

from config.exceptions import DomainError


class BankInvalid(DomainError):
    """A bank folder broke the file format; `errors` holds one `file:line field: message` each."""

    code: ClassVar[str] = "bank_invalid"

    def __init__(self, errors: list[str]) -> None:
        plural = "error" if len(errors) == 1 else "errors"
        super().__init__(f"the bank has {len(errors)} {plural}; nothing was written")
        self.errors = errors


class ExportTargetNotEmpty(DomainError):
    code: ClassVar[str] = "export_target_not_empty"


class ExportFailed(DomainError):
    code: ClassVar[str] = "export_failed"


class VersionImmutable(DomainError):
    code: ClassVar[str] = "version_immutable"
    status_code: ClassVar[int] = status.HTTP_409_CONFLICT


class QuestionInvalid(DomainError):
    """A question edited outside the bank files breaks a rule of the format; `fields` names
    each (`content.choices`, `topic`)."""

    code: ClassVar[str] = "question_invalid"


class QuestionChanged(DomainError):
    """Someone saved the question since this edit began (another tab, another author)."""

    code: ClassVar[str] = "question_changed"
    status_code: ClassVar[int] = status.HTTP_409_CONFLICT


class QuizInvalid(DomainError):
    """An author's quiz settings or slots break a rule; `fields` names each one."""

    code: ClassVar[str] = "quiz_invalid"


class QuizChanged(DomainError):
    """Someone saved the quiz since this edit began (another tab, another author)."""

    code: ClassVar[str] = "quiz_changed"
    status_code: ClassVar[int] = status.HTTP_409_CONFLICT


class QuizChangedSinceRead(QuizChanged):
    """An API client's If-Match names a version of the quiz it no longer is."""

    status_code: ClassVar[int] = status.HTTP_412_PRECONDITION_FAILED


class QuizLocked(DomainError):
    code: ClassVar[str] = "quiz_locked"
    status_code: ClassVar[int] = status.HTTP_409_CONFLICT


class SlugTaken(DomainError):
    code: ClassVar[str] = "slug_taken"
    status_code: ClassVar[int] = status.HTTP_409_CONFLICT


class InterchangeRefused(DomainError):
    """An import file that is refused whole (hostile, malformed, or of the wrong format)."""

    code: ClassVar[str] = "file_refused"


class FileTooLarge(DomainError):
    code: ClassVar[str] = "file_too_large"
    status_code: ClassVar[int] = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE


class ExportImpossible(DomainError):
    """Nothing of what was asked for can be written in the requested format."""

    code: ClassVar[str] = "export_impossible"


class AccessCodeWrong(DomainError):
    """The quiz asks for an access code and the one given (if any) is not it."""

    code: ClassVar[str] = "access_code_wrong"
    status_code: ClassVar[int] = status.HTTP_403_FORBIDDEN


class AccessCodeTriesUsedUp(DomainError):
    """Too many wrong access codes for this quiz lately; no code is checked for a while."""

    code: ClassVar[str] = "access_code_tries_used_up"
    status_code: ClassVar[int] = status.HTTP_429_TOO_MANY_REQUESTS


class NetworkNotAllowed(DomainError):
    """The quiz is limited to an invigilated room's networks and the request came from outside."""

    code: ClassVar[str] = "network_not_allowed"
    status_code: ClassVar[int] = status.HTTP_403_FORBIDDEN


class AccessRuleInvalid(DomainError):
    code: ClassVar[str] = "access_rule_invalid"


class TopicInvalid(DomainError):
    code: ClassVar[str] = "topic_invalid"
