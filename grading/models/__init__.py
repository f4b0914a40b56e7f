import grading.models.marking  # noqa: F401  (registers the examiner models)
import grading.models.regrade  # noqa: F401
import grading.models.release  # noqa: F401
import grading.models.viva_sessions  # noqa: F401
from grading.models.attempts import Attempt, AttemptStatus, Response, ResponseStatus

__all__ = ["Attempt", "AttemptStatus", "Response", "ResponseStatus"]
