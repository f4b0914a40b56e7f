from grading.models.attempts import Attempt, AttemptStatus, Response, ResponseStatus

__all__ = ["Attempt", "AttemptStatus", "Response", "ResponseStatus"]
