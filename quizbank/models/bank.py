"""The question bank: courses, topics, questions and their immutable versions.

Authors edit `Question` and its child rows (choices, answers, test cases,
rubric). Every save snapshots the whole question into a `QuestionVersion`
whose `content` is the canonical dictionary of the bank file format; grading
only ever reads versions, so past attempts keep exactly what students saw.
"""

from typing import Any

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models

from config.text import validate_one_line
from quizbank.errors import VersionImmutable


class Course(models.Model):
    slug = models.SlugField(max_length=80, unique=True)
    title = models.CharField(max_length=200, validators=[validate_one_line])
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.title


class Role(models.TextChoices):
    STUDENT = "student", "Student"
    EXAMINER = "examiner", "Examiner"
    AUTHOR = "author", "Author"


class CourseMembership(models.Model):
    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="course_memberships"
    )
    role = models.CharField(max_length=16, choices=Role.choices)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["course", "user", "role"], name="unique_course_role"),
        ]

    def __str__(self) -> str:
        return f"{self.user} is {self.role} in {self.course.slug}"


class Topic(models.Model):
    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="topics")
    slug = models.SlugField(max_length=80)
    title = models.CharField(max_length=200, validators=[validate_one_line])
    description = models.TextField(blank=True)
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["course_id", "position", "slug"]
        constraints = [
            models.UniqueConstraint(fields=["course", "slug"], name="unique_topic_slug"),
        ]

    def __str__(self) -> str:
        return self.title


class QuestionType(models.TextChoices):
    SINGLE_CHOICE = "single_choice", "Single choice"
    MULTIPLE_CHOICE = "multiple_choice", "Multiple choice"
    TRUE_FALSE = "true_false", "True/false"
    NUMERIC = "numeric", "Numeric"
    SHORT_TEXT = "short_text", "Short text"
    CODE = "code", "Code (PyTorch)"
    VIVA = "viva", "Viva (written or oral)"


class Difficulty(models.TextChoices):
    BEGINNER = "beginner", "Beginner"
    INTERMEDIATE = "intermediate", "Intermediate"
    ADVANCED = "advanced", "Advanced"


class Question(models.Model):
    """The editable head of a question; `current_version` is what new attempts use."""

    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="questions")
    topic = models.ForeignKey(Topic, on_delete=models.PROTECT, related_name="questions")
    slug = models.SlugField(max_length=120)
    type = models.CharField(max_length=20, choices=QuestionType.choices)
    title = models.CharField(max_length=200, validators=[validate_one_line])
    difficulty = models.CharField(
        max_length=16, choices=Difficulty.choices, default=Difficulty.BEGINNER
    )
    tags = models.JSONField(default=list, blank=True)
    objectives = models.JSONField(default=list, blank=True)
    prompt = models.TextField(help_text="Markdown with $LaTeX$ math and fenced code.")
    general_feedback = models.TextField(blank=True)
    points = models.DecimalField(
        max_digits=6, decimal_places=2, default=1, validators=[MinValueValidator(0)]
    )
    # Type-specific settings that are not rows of their own (shuffle, scoring
    # rule, text matching, code comparison and limits, viva model answer...).
    settings = models.JSONField(default=dict, blank=True)
    current_version = models.ForeignKey(
        "QuestionVersion",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["course_id", "topic__position", "slug"]
        constraints = [
            models.UniqueConstraint(fields=["course", "slug"], name="unique_question_slug"),
        ]

    def __str__(self) -> str:
        return f"{self.slug}: {self.title}"


class QuestionVersion(models.Model):
    """An immutable snapshot of a question, identified by its content hash."""

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    content_hash = models.CharField(max_length=64)
    content = models.JSONField()
    prompt_html = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )

    class Meta:
        ordering = ["question_id", "-number"]
        get_latest_by = "number"
        constraints = [
            models.UniqueConstraint(fields=["question", "number"], name="unique_version_number"),
        ]

    def __str__(self) -> str:
        return f"{self.question.slug} v{self.number}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        # Attempts point at versions, so a version, once written, never changes.
        if not self._state.adding:
            raise VersionImmutable("A question version cannot be changed; save the question.")
        super().save(*args, **kwargs)


class Choice(models.Model):
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="choices")
    position = models.PositiveIntegerField(default=0)
    text = models.TextField()
    correct = models.BooleanField(default=False)
    feedback = models.TextField(blank=True)

    class Meta:
        ordering = ["question_id", "position"]

    def __str__(self) -> str:
        return self.text[:60]


class NumericAnswer(models.Model):
    class ToleranceMode(models.TextChoices):
        ABSOLUTE = "absolute", "Absolute"
        RELATIVE = "relative", "Relative"

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="numeric_answers")
    position = models.PositiveIntegerField(default=0)
    value = models.FloatField(default=0.0)
    # Set for parameterised questions: the accepted value is the generator's
    # answer of this name (written "{{name}}" in the bank file); `value` is unused.
    value_param = models.CharField(max_length=64, blank=True)
    tolerance = models.FloatField(default=0, validators=[MinValueValidator(0)])
    tolerance_mode = models.CharField(
        max_length=8, choices=ToleranceMode.choices, default=ToleranceMode.ABSOLUTE
    )
    fraction = models.FloatField(default=1.0)
    feedback = models.TextField(blank=True)

    class Meta:
        ordering = ["question_id", "position"]

    def __str__(self) -> str:
        return f"{self.value} ± {self.tolerance} ({self.tolerance_mode})"


class TextAnswer(models.Model):
    """An accepted short-text answer: a literal text or, if `is_regex`, a pattern."""

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="text_answers")
    position = models.PositiveIntegerField(default=0)
    text = models.CharField(max_length=500)
    is_regex = models.BooleanField(default=False)
    fraction = models.FloatField(default=1.0)
    feedback = models.TextField(blank=True)

    class Meta:
        ordering = ["question_id", "position"]

    def __str__(self) -> str:
        return self.text


class CodeCase(models.Model):
    """One case of a code question; `spec` is the runner's case format (JSON)."""

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="code_cases")
    position = models.PositiveIntegerField(default=0)
    name = models.CharField(max_length=200)
    weight = models.FloatField(default=1.0, validators=[MinValueValidator(0)])
    hidden = models.BooleanField(default=False)
    spec = models.JSONField(default=dict)

    class Meta:
        ordering = ["question_id", "position"]

    def __str__(self) -> str:
        return self.name


class CodeFile(models.Model):
    """Source files of a code question: the reference, correct alternatives, known-wrong
    solutions, a generator."""

    class Kind(models.TextChoices):
        REFERENCE = "reference", "Reference solution"
        CORRECT = "correct", "Correct alternative"
        WRONG = "wrong", "Known-wrong solution"
        GENERATOR = "generator", "Parameter generator"

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="code_files")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    name = models.CharField(max_length=120)
    source = models.TextField()

    class Meta:
        ordering = ["question_id", "kind", "name"]
        constraints = [
            models.UniqueConstraint(fields=["question", "name"], name="unique_code_file_name"),
        ]

    def __str__(self) -> str:
        return self.name


class RubricCriterion(models.Model):
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="rubric_criteria")
    position = models.PositiveIntegerField(default=0)
    title = models.CharField(max_length=200, validators=[validate_one_line])
    description = models.TextField(blank=True)

    class Meta:
        ordering = ["question_id", "position"]
        verbose_name_plural = "rubric criteria"

    def __str__(self) -> str:
        return self.title


class RubricLevel(models.Model):
    criterion = models.ForeignKey(RubricCriterion, on_delete=models.CASCADE, related_name="levels")
    position = models.PositiveIntegerField(default=0)
    label = models.CharField(max_length=100)
    points = models.FloatField(validators=[MinValueValidator(0)])
    descriptor = models.TextField()

    class Meta:
        ordering = ["criterion_id", "position"]

    def __str__(self) -> str:
        return f"{self.label} ({self.points})"
