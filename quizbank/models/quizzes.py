"""Quizzes: an ordered list of slots over the bank, with timing and release settings.

A slot is either one fixed question or a draw of `draw_count` questions from a
pool chosen by tag, topic and difficulty; its `points` (empty: each question's
own) are what every question it draws is worth in this quiz. Attempts (in
`grading`) pin the question versions they drew and their points, so editing a
quiz never changes a past attempt.
"""

from datetime import timedelta

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from config.text import validate_one_line
from quizbank.models.bank import Course, Difficulty, Question, Topic


class GradingMethod(models.TextChoices):
    HIGHEST = "highest", "Highest attempt"
    LAST = "last", "Last attempt"
    AVERAGE = "average", "Average of attempts"


class ReleasePolicy(models.TextChoices):
    IMMEDIATELY = "immediately", "As soon as graded"
    AFTER_CLOSE = "after_close", "After the quiz closes"
    MANUAL = "manual", "When an examiner releases"


class Quiz(models.Model):
    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="quizzes")
    slug = models.SlugField(max_length=80)
    title = models.CharField(max_length=200, validators=[validate_one_line])
    description = models.TextField(blank=True)
    time_limit = models.DurationField(null=True, blank=True, help_text="Empty: untimed.")
    opens_at = models.DateTimeField(null=True, blank=True)
    closes_at = models.DateTimeField(null=True, blank=True)
    grace_period = models.DurationField(default=timedelta(0))
    attempts_allowed = models.PositiveIntegerField(default=1, help_text="0 means unlimited.")
    grading_method = models.CharField(
        max_length=10, choices=GradingMethod.choices, default=GradingMethod.HIGHEST
    )
    # A share of the attempt's marks taken off for each attempt after the first.
    penalty_per_attempt = models.FloatField(
        default=0.0, validators=[MinValueValidator(0.0), MaxValueValidator(1.0)]
    )
    shuffle_questions = models.BooleanField(default=False)
    shuffle_choices = models.BooleanField(default=True)
    release_policy = models.CharField(
        max_length=12, choices=ReleasePolicy.choices, default=ReleasePolicy.IMMEDIATELY
    )
    released_at = models.DateTimeField(null=True, blank=True)
    # Empty: no code. Given to the room by the invigilator; asked for at the start.
    access_code = models.CharField(max_length=64, blank=True)
    # CIDR blocks ("10.2.0.0/16"); empty: any address may start and answer.
    allowed_networks = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["course_id", "slug"]
        verbose_name_plural = "quizzes"
        constraints = [
            models.UniqueConstraint(fields=["course", "slug"], name="unique_quiz_slug"),
            models.CheckConstraint(
                condition=Q(opens_at__isnull=True)
                | Q(closes_at__isnull=True)
                | Q(closes_at__gt=models.F("opens_at")),
                name="quiz_closes_after_opening",
            ),
        ]

    def __str__(self) -> str:
        return self.title


# What an author sets on a slot, in the order the admin and the API show it.
SLOT_FIELDS = (
    "position",
    "question",
    "draw_count",
    "pool_tag",
    "pool_topic",
    "pool_difficulty",
    "points",
)


class QuizSlot(models.Model):
    """One position of a quiz: a fixed question, or `draw_count` questions from a pool."""

    quiz = models.ForeignKey(Quiz, on_delete=models.CASCADE, related_name="slots")
    position = models.PositiveIntegerField(default=0)
    question = models.ForeignKey(
        Question, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    draw_count = models.PositiveIntegerField(default=1, validators=[MinValueValidator(1)])
    pool_tag = models.SlugField(max_length=80, blank=True)
    pool_topic = models.ForeignKey(
        Topic, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    pool_difficulty = models.CharField(max_length=16, choices=Difficulty.choices, blank=True)
    # What each question this slot draws is worth in the quiz; null: the question's own points.
    points = models.DecimalField(max_digits=6, decimal_places=2, null=True, blank=True)

    class Meta:
        ordering = ["quiz_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["quiz", "position"], name="unique_slot_position"),
            models.CheckConstraint(
                condition=Q(question__isnull=False, draw_count=1)
                | (
                    Q(question__isnull=True)
                    & (~Q(pool_tag="") | Q(pool_topic__isnull=False) | ~Q(pool_difficulty=""))
                ),
                name="slot_is_fixed_or_pool",
            ),
            models.CheckConstraint(
                condition=Q(points__isnull=True) | Q(points__gt=0), name="slot_points_positive"
            ),
        ]

    def __str__(self) -> str:
        if self.question_id is not None:
            return f"slot {self.position}: question {self.question_id}"
        return f"slot {self.position}: draw {self.draw_count}"

    @property
    def is_pool(self) -> bool:
        return self.question_id is None
