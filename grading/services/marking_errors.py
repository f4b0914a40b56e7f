"""Domain errors of marking, live vivas, regrades, releases and exports (stable codes)."""

from rest_framework import status

from config.exceptions import DomainError


class NotMarkable(DomainError):
    code = "not_markable"
    status_code = status.HTTP_409_CONFLICT


class InvalidMark(DomainError):
    code = "invalid_mark"
    status_code = status.HTTP_400_BAD_REQUEST


class AlreadyMarked(DomainError):
    code = "already_marked"
    status_code = status.HTTP_409_CONFLICT


class SameMarker(DomainError):
    code = "same_marker"
    status_code = status.HTTP_409_CONFLICT


class NotFlagged(DomainError):
    code = "not_flagged"
    status_code = status.HTTP_409_CONFLICT


class NotYourMark(DomainError):
    code = "not_your_mark"
    status_code = status.HTTP_403_FORBIDDEN


class SessionClosed(DomainError):
    code = "viva_session_closed"
    status_code = status.HTTP_409_CONFLICT


class PoolExhausted(DomainError):
    code = "pool_exhausted"
    status_code = status.HTTP_409_CONFLICT


class UnmarkedQuestions(DomainError):
    code = "viva_unmarked_questions"
    status_code = status.HTTP_409_CONFLICT


class NotAStudent(DomainError):
    code = "not_a_student"
    status_code = status.HTTP_400_BAD_REQUEST


class AttemptInProgress(DomainError):
    code = "attempt_in_progress"
    status_code = status.HTTP_409_CONFLICT


class NothingToRegrade(DomainError):
    code = "nothing_to_regrade"
    status_code = status.HTTP_409_CONFLICT


class RegradeNotAllowed(DomainError):
    code = "regrade_request_not_allowed"
    status_code = status.HTTP_409_CONFLICT


class RequestAlreadyAnswered(DomainError):
    code = "regrade_request_answered"
    status_code = status.HTTP_409_CONFLICT


class VivaQuizReleasesImmediately(DomainError):
    code = "viva_quiz_releases_immediately"
    status_code = status.HTTP_409_CONFLICT


class NoSuchPosition(DomainError):
    code = "no_such_position"
    status_code = status.HTTP_404_NOT_FOUND


class ReleaseBlocked(DomainError):
    """`fields.responses` lists the answers that are not final (ids to name in an
    override); one more key per state lists them by attempt and position."""

    code = "release_blocked"
    status_code = status.HTTP_409_CONFLICT


class InvalidRelease(DomainError):
    code = "invalid_release"
    status_code = status.HTTP_400_BAD_REQUEST
