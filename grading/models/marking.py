"""Rubric marks on viva responses, the per-response marking state and the audit logs.

A response gets at most one first, one second and one moderator mark. The
logs (`MarkChange`, `ScoreChange`) are append-only: rows are never updated
or deleted, so every change of a mark or a score can be traced.
"""

from typing import Any, NoReturn

from django.conf import settings
from django.db import models
from django.db.models import Q

from grading.models.attempts import Response
from quizbank.models import Quiz


class MarkRole(models.TextChoices):
    FIRST = "first", "First marker"
    SECOND = "second", "Second marker"
    MODERATOR = "moderator", "Moderator"


class Mark(models.Model):
    """One examiner's rubric mark: a level per criterion, an adjustment and a comment."""

    response = models.ForeignKey(Response, on_delete=models.CASCADE, related_name="marks")
    marker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    role = models.CharField(max_length=10, choices=MarkRole.choices)
    # Chosen level index per criterion, in rubric order (0 is the weakest level).
    levels = models.JSONField(default=list)
    rubric_points = models.FloatField()
    adjustment = models.FloatField(default=0.0)
    adjustment_reason = models.TextField(blank=True)
    comment = models.TextField(blank=True)
    # Share of the question's marks, in [0, 1]: (rubric points + adjustment) / rubric maximum.
    score = models.FloatField()
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    class Meta:
        ordering = ["response_id", "created_at"]
        constraints = [
            models.UniqueConstraint(fields=["response", "role"], name="one_mark_per_role"),
            models.CheckConstraint(
                condition=Q(score__gte=0, score__lte=1), name="mark_score_is_fraction"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.role} mark on response {self.response_id}"


class MarkingStatus(models.TextChoices):
    UNMARKED = "unmarked", "Not marked yet"
    AWAITING_SECOND = "awaiting_second", "Waiting for a second mark"
    FINAL = "final", "Mark is final"
    FLAGGED = "flagged", "Markers disagree: needs moderation"
    MODERATED = "moderated", "Moderated"


class MarkingState(models.Model):
    """Where a viva response is in marking; the queue filters on it."""

    response = models.OneToOneField(Response, on_delete=models.CASCADE, related_name="marking")
    status = models.CharField(
        max_length=16, choices=MarkingStatus.choices, default=MarkingStatus.UNMARKED
    )
    second_requested = models.BooleanField(default=False)
    final_score = models.FloatField(null=True, blank=True)
    updated_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"response {self.response_id}: {self.status}"


class QuizMarkingPolicy(models.Model):
    """Per-quiz marking settings; quizzes without one use the site defaults."""

    quiz = models.OneToOneField(Quiz, on_delete=models.CASCADE, related_name="marking_policy")
    double_marking = models.BooleanField(default=False)
    # Largest gap between two marks (a share of the maximum) that needs no moderator.
    disagreement_threshold = models.FloatField(default=0.2)
    # Markers see a pseudonym instead of the student's name until the answer is released.
    anonymous_marking = models.BooleanField(default=False)

    class Meta:
        verbose_name_plural = "quiz marking policies"
        constraints = [
            models.CheckConstraint(
                condition=Q(disagreement_threshold__gte=0, disagreement_threshold__lte=1),
                name="threshold_is_fraction",
            ),
        ]

    def __str__(self) -> str:
        return f"marking policy of quiz {self.quiz_id}"


class AppendOnlyModel(models.Model):
    """A log row: created once, never changed or deleted through the ORM."""

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None and not self._state.adding:
            raise ValueError(f"{type(self).__name__} rows are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise ValueError(f"{type(self).__name__} rows are append-only")


class MarkChange(AppendOnlyModel):
    """A mark was created or changed: who, when, and the mark before and after."""

    # Logs go only when their answer is deleted on purpose (a course or student removed).
    mark = models.ForeignKey(Mark, on_delete=models.CASCADE, related_name="changes")
    response = models.ForeignKey(Response, on_delete=models.CASCADE, related_name="mark_changes")
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField()
    # The examiner's reason for changing the mark (optional; blank for a first mark).
    reason = models.TextField(blank=True)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["response_id", "created_at", "pk"]

    def __str__(self) -> str:
        return f"change of mark {self.mark_id} at {self.created_at:%Y-%m-%d %H:%M}"


class ScoreSource(models.TextChoices):
    MARKING = "marking", "Viva marking"
    REGRADE = "regrade", "Bulk regrade"
    REGRADE_REQUEST = "regrade_request", "Answer to a regrade request"


class ScoreChange(AppendOnlyModel):
    """A response's score changed after grading: before, after, who and why."""

    response = models.ForeignKey(Response, on_delete=models.CASCADE, related_name="score_changes")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, related_name="+"
    )
    source = models.CharField(max_length=16, choices=ScoreSource.choices)
    before = models.FloatField(null=True, blank=True)
    after = models.FloatField(null=True, blank=True)
    reason = models.TextField(blank=True)
    regrade_run = models.ForeignKey(
        "grading.RegradeRun", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["response_id", "created_at", "pk"]

    def __str__(self) -> str:
        return f"score of response {self.response_id}: {self.before} -> {self.after}"
