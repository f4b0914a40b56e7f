"""Per-student accommodations on a quiz: extra time, extra attempts, a later window.

The quiz-wide rules (an access code, allowed networks) live on `Quiz`; how both
combine for one student is decided once, in `quizbank.services.quiz_access`.
"""

from django.conf import settings
from django.core.validators import MaxValueValidator
from django.db import models
from django.db.models import Q

from quizbank.models.quizzes import Quiz


class QuizAccessOverride(models.Model):
    quiz = models.ForeignKey(Quiz, on_delete=models.CASCADE, related_name="access_overrides")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="quiz_overrides"
    )
    # 50 gives a 60-minute quiz 90 minutes.
    extra_time_percent = models.PositiveIntegerField(default=0, validators=[MaxValueValidator(400)])
    extra_attempts = models.PositiveIntegerField(default=0, validators=[MaxValueValidator(20)])
    # Either replaces the quiz's own time when set (a later window).
    opens_at = models.DateTimeField(null=True, blank=True)
    closes_at = models.DateTimeField(null=True, blank=True)
    reason = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["quiz_id", "user_id"]
        constraints = [
            models.UniqueConstraint(fields=["quiz", "user"], name="one_override_per_student"),
            models.CheckConstraint(
                condition=Q(extra_time_percent__lte=400) & Q(extra_attempts__lte=20),
                name="override_within_bounds",
            ),
            models.CheckConstraint(
                condition=Q(opens_at__isnull=True)
                | Q(closes_at__isnull=True)
                | Q(closes_at__gt=models.F("opens_at")),
                name="override_closes_after_opening",
            ),
        ]

    def __str__(self) -> str:
        return f"override for {self.user} on {self.quiz.slug}"
