"""One row per grading, try-it or generator job, keyed by job id: one result per job."""

from django.db import models


class JobKind(models.TextChoices):
    GRADE = "grade", "Grading"
    RUN = "run", "Try-it run"
    GENERATE = "generate", "Parameter generator"


class JobState(models.TextChoices):
    RUNNING = "running", "Running"
    FINISHED = "finished", "Finished"


class JobRecord(models.Model):
    job_id = models.CharField(max_length=100, unique=True)
    kind = models.CharField(max_length=8, choices=JobKind.choices)
    state = models.CharField(max_length=10, choices=JobState.choices, default=JobState.RUNNING)
    status = models.CharField(max_length=16, blank=True)  # a runner.api.Status value once finished
    score = models.FloatField(null=True, blank=True)
    result = models.JSONField(default=dict, blank=True)
    deliveries = models.PositiveIntegerField(default=0)  # how often a worker picked the job up
    created_at = models.DateTimeField(auto_now_add=True)
    claimed_at = models.DateTimeField(null=True, blank=True)  # when a worker last picked it up
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(score__isnull=True) | models.Q(score__gte=0, score__lte=1),
                name="runner_jobrecord_score_in_unit_interval",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.job_id} ({self.state} {self.status})".strip()
