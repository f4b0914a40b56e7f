"""Domain errors of grading (attempts, marking, live vivas, regrades, releases, exports).

Each has a stable code and an HTTP status."""

from rest_framework import status

from config.exceptions import RETRY_AFTER_S, DomainError


class QuizNotOpen(DomainError):
    code = "quiz_not_open"
    status_code = status.HTTP_409_CONFLICT


class NoAttemptsLeft(DomainError):
    code = "no_attempts_left"
    status_code = status.HTTP_409_CONFLICT


class QuizIsEmpty(DomainError):
    code = "quiz_is_empty"
    status_code = status.HTTP_409_CONFLICT


class QuizIsLiveOnly(DomainError):
    code = "quiz_is_live_only"
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


class OwnAnswer(DomainError):
    code = "own_answer"
    status_code = status.HTTP_403_FORBIDDEN


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


class NoSuchTopic(DomainError):
    code = "no_such_topic"
    status_code = status.HTTP_400_BAD_REQUEST


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


class RegradeInProgress(DomainError):
    code = "regrade_in_progress"
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


class QuestionKept(DomainError):
    """A live viva's question that cannot be put back (not the last drawn, or marked)."""

    code = "viva_question_kept"
    status_code = status.HTTP_409_CONFLICT


class VivaQuestionChanged(DomainError):
    """A put-back naming another question than the one now at its position (a stale tab,
    or a second examiner who put it back and drew again meanwhile)."""

    code = "viva_question_changed"
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


class CodeRunInProgress(DomainError):
    code = "code_run_in_progress"
    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    retry_after_s = 2


class CodeRunNeedsAttempt(DomainError):
    """A run that names no attempt, from someone who is not course staff."""

    code = "code_run_needs_attempt"
    status_code = status.HTTP_400_BAD_REQUEST


class NotACodeQuestion(DomainError):
    code = "not_a_code_question"
    status_code = status.HTTP_400_BAD_REQUEST


class RunnerBusy(DomainError):
    code = "runner_busy"
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    retry_after_s = 10


class CodeRunNotFound(DomainError):
    """The same answer for a run that never existed and another user's run."""

    code = "not_found"
    status_code = status.HTTP_404_NOT_FOUND


class NotCheckable(DomainError):
    code = "not_checkable"
    status_code = status.HTTP_409_CONFLICT


class SolutionCheckNotFound(DomainError):
    code = "not_found"
    status_code = status.HTTP_404_NOT_FOUND


class JobQueueUnavailable(DomainError):
    """A request that needs a worker's answer to go on could not queue its job (Redis down or
    restarting): the same answer as the API gives any job it could not queue."""

    code = "broker_unavailable"
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    retry_after_s = RETRY_AFTER_S
