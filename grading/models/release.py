"""The audit log of releases: who released (or withdrew) a quiz's results, when, which
attempts the release covered, and the answers released anyway while not yet final."""

from django.conf import settings
from django.db import models

from grading.models.marking import AppendOnlyModel
from quizbank.models import Quiz


class ReleaseAction(models.TextChoices):
    RELEASE = "release", "Released"
    WITHDRAW = "withdraw", "Withdrawn"


class QuizRelease(AppendOnlyModel):
    quiz = models.ForeignKey(Quiz, on_delete=models.CASCADE, related_name="releases")
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    action = models.CharField(max_length=8, choices=ReleaseAction.choices)
    # Ids of the attempts this release made visible for the first time.
    attempts = models.JSONField(default=list, blank=True)
    # The override: answers released while unmarked, flagged or ungraded, one
    # {"response", "attempt", "position", "state"} each, and the examiner's reason.
    overridden = models.JSONField(default=list, blank=True)
    reason = models.TextField(blank=True)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["quiz_id", "created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.action} of quiz {self.quiz_id} at {self.created_at:%Y-%m-%d %H:%M}"
