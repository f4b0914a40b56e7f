"""Domain errors of grading, each with a stable code and HTTP status."""

from rest_framework import status

from config.exceptions import DomainError


class QuizNotOpen(DomainError):
    code = "quiz_not_open"
    status_code = status.HTTP_409_CONFLICT


class NoAttemptsLeft(DomainError):
    code = "no_attempts_left"
    status_code = status.HTTP_409_CONFLICT


class QuizIsEmpty(DomainError):
    code = "quiz_is_empty"
    status_code = status.HTTP_409_CONFLICT


class DeadlinePassed(DomainError):
    code = "deadline_passed"
    status_code = status.HTTP_409_CONFLICT


class AttemptClosed(DomainError):
    code = "attempt_closed"
    status_code = status.HTTP_409_CONFLICT


class StaleVersion(DomainError):
    """The client saved from an older copy; `fields.current_version` tells it the newest."""

    code = "stale_version"
    status_code = status.HTTP_409_CONFLICT


class InvalidAnswer(DomainError):
    code = "invalid_answer"
    status_code = status.HTTP_400_BAD_REQUEST


class AnswerTooLarge(DomainError):
    code = "answer_too_large"
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE


class VariantGenerationFailed(DomainError):
    code = "generator_failed"
    status_code = status.HTTP_502_BAD_GATEWAY
