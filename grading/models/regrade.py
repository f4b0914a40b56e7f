"""Bulk regrade runs (one per corrected question and quiz) and student regrade requests."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from grading.models.attempts import Response
from quizbank.models import Question, QuestionVersion, Quiz


class RegradeMode(models.TextChoices):
    KEEP = "keep", "Keep the pinned version"
    APPLY = "apply", "Apply the new version"


class RegradeStatus(models.TextChoices):
    PENDING = "pending", "Waiting for a worker"
    RUNNING = "running", "Running"
    DONE = "done", "Done"


class RegradeRun(models.Model):
    """Regrade every affected response of `question` in `quiz`; counts show progress."""

    quiz = models.ForeignKey(Quiz, on_delete=models.CASCADE, related_name="regrade_runs")
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+")
    mode = models.CharField(max_length=6, choices=RegradeMode.choices)
    # The version applied in `apply` mode (the question's current one when the run began).
    target_version = models.ForeignKey(
        QuestionVersion, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    reason = models.TextField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    status = models.CharField(
        max_length=8, choices=RegradeStatus.choices, default=RegradeStatus.PENDING
    )
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    changed = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"regrade {self.pk} of {self.question_id} in quiz {self.quiz_id}"


class RegradeItemStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class RegradeItem(models.Model):
    """One response in a run; a code answer waits here for the runner's verdict."""

    run = models.ForeignKey(RegradeRun, on_delete=models.CASCADE, related_name="items")
    response = models.ForeignKey(Response, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(
        max_length=8, choices=RegradeItemStatus.choices, default=RegradeItemStatus.PENDING
    )
    job_id = models.CharField(max_length=64, blank=True)
    before = models.FloatField(null=True, blank=True)
    after = models.FloatField(null=True, blank=True)
    message = models.TextField(blank=True)

    class Meta:
        ordering = ["run_id", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["run", "response"], name="unique_regrade_item"),
            models.UniqueConstraint(
                fields=["job_id"], condition=~Q(job_id=""), name="unique_regrade_job"
            ),
        ]

    def __str__(self) -> str:
        return f"regrade item {self.pk} ({self.status})"


class RegradeRequestStatus(models.TextChoices):
    OPEN = "open", "Waiting for an examiner"
    ACCEPTED = "accepted", "Accepted"
    REJECTED = "rejected", "Rejected"


class RegradeRequest(models.Model):
    """A student asks for a released question to be looked at again."""

    response = models.ForeignKey(
        Response, on_delete=models.CASCADE, related_name="regrade_requests"
    )
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    reason = models.TextField()
    status = models.CharField(
        max_length=8, choices=RegradeRequestStatus.choices, default=RegradeRequestStatus.OPEN
    )
    reply = models.TextField(blank=True)
    score_before = models.FloatField(null=True, blank=True)
    score_after = models.FloatField(null=True, blank=True)
    answered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField()
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["response"], condition=Q(status="open"), name="one_open_regrade_request"
            ),
        ]

    def __str__(self) -> str:
        return f"regrade request {self.pk} ({self.status})"
