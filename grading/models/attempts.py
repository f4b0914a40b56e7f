"""Attempts and their responses: one `Response` row per question the attempt drew.

A response pins the `QuestionVersion` the student saw, the variant parameters
of a parameterised question and the choice order, so grading, review,
marking and regrade always see exactly that variant.
"""

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.db.models import Q

from quizbank.models import QuestionVersion, Quiz


class AttemptStatus(models.TextChoices):
    OPEN = "open", "In progress"
    SUBMITTED = "submitted", "Submitted, grading"
    GRADED = "graded", "Graded"


class Attempt(models.Model):
    quiz = models.ForeignKey(Quiz, on_delete=models.PROTECT, related_name="attempts")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="attempts"
    )
    number = models.PositiveIntegerField()
    seed = models.BigIntegerField()
    status = models.CharField(
        max_length=10, choices=AttemptStatus.choices, default=AttemptStatus.OPEN
    )
    started_at = models.DateTimeField()
    deadline = models.DateTimeField(null=True, blank=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    auto_submitted = models.BooleanField(default=False)
    idempotency_key = models.CharField(max_length=100, blank=True)
    # Totals in quiz points; `score` is before the per-attempt penalty.
    score = models.DecimalField(max_digits=9, decimal_places=3, null=True, blank=True)
    max_score = models.DecimalField(max_digits=9, decimal_places=3, default=0)
    graded_at = models.DateTimeField(null=True, blank=True)
    # The start or the latest autosave: the next autosave's time is counted from here.
    last_activity_at = models.DateTimeField(null=True, blank=True)
    # An examiner's live viva session (set once, at its start): its results wait for a
    # release that covers it, whatever the quiz's release policy.
    live_viva = models.BooleanField(default=False)
    # When a release first covered this attempt (cleared when the release is withdrawn).
    released_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["quiz_id", "user_id", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["quiz", "user", "number"], name="unique_attempt_number"
            ),
            # At most one attempt in progress per student and quiz.
            models.UniqueConstraint(
                fields=["quiz", "user"],
                condition=Q(status="open"),
                name="one_open_attempt",
            ),
        ]
        indexes = [models.Index(fields=["status", "deadline"], name="attempt_open_deadline")]

    def __str__(self) -> str:
        return f"attempt {self.number} of {self.user} on {self.quiz.slug}"


class ResponseStatus(models.TextChoices):
    EMPTY = "empty", "Not answered"
    SAVED = "saved", "Saved"
    QUEUED = "queued", "Queued for the runner"
    RUNNING = "running", "Running"
    NEEDS_MARKING = "needs_marking", "Waiting for an examiner"
    GRADED = "graded", "Graded"
    ERROR = "error", "Could not be graded"


class Response(models.Model):
    attempt = models.ForeignKey(Attempt, on_delete=models.CASCADE, related_name="responses")
    position = models.PositiveIntegerField()
    slot_position = models.PositiveIntegerField()
    question_version = models.ForeignKey(
        QuestionVersion, on_delete=models.PROTECT, related_name="responses"
    )
    points = models.DecimalField(max_digits=6, decimal_places=2)
    params = models.JSONField(default=dict, blank=True)
    generated_answers = models.JSONField(default=dict, blank=True)
    choice_order = models.JSONField(default=list, blank=True)
    answer = models.JSONField(null=True, blank=True)
    version = models.PositiveIntegerField(default=0)
    saved_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(
        max_length=14, choices=ResponseStatus.choices, default=ResponseStatus.EMPTY
    )
    # Share of `points` earned, in [0, 1]; null until graded.
    score = models.FloatField(null=True, blank=True)
    feedback = models.JSONField(default=dict, blank=True)
    job_id = models.CharField(max_length=64, blank=True)
    graded_at = models.DateTimeField(null=True, blank=True)
    # Working time credited to this question by its autosaves (each gap capped).
    time_spent = models.DurationField(default=timedelta(0))

    class Meta:
        ordering = ["attempt_id", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["attempt", "position"], name="unique_response_position"
            ),
            models.UniqueConstraint(
                fields=["job_id"], condition=~Q(job_id=""), name="unique_response_job"
            ),
            models.CheckConstraint(
                condition=Q(score__isnull=True) | Q(score__gte=0, score__lte=1),
                name="response_score_is_fraction",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.attempt} #{self.position}"
