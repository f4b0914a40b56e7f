"""Live viva sessions: an examiner questions one student and marks as the exam goes.

The session owns an `Attempt` of a quiz in the course; each drawn question is a
`Response` of that attempt, so the ended session shows up in results, release,
statistics and grade export like any other attempt.
"""

from django.conf import settings
from django.db import models

from grading.models.attempts import Attempt


class VivaSessionStatus(models.TextChoices):
    OPEN = "open", "In progress"
    ENDED = "ended", "Ended"


class VivaSession(models.Model):
    attempt = models.OneToOneField(Attempt, on_delete=models.CASCADE, related_name="viva_session")
    examiner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    status = models.CharField(
        max_length=8, choices=VivaSessionStatus.choices, default=VivaSessionStatus.OPEN
    )
    notes = models.TextField(blank=True)
    # Questions drawn and put back unasked (ids): never drawn again in this session.
    discarded = models.JSONField(default=list, blank=True)
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at"]

    def __str__(self) -> str:
        return f"viva session {self.pk} ({self.status})"
