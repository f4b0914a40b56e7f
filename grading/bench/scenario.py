"""The benchmark's scratch course: a quiz with one code question and a student."""

from dataclasses import dataclass
from decimal import Decimal

from django.contrib.auth.models import User

from grading.models import Attempt
from quizbank.models import (
    Course,
    CourseMembership,
    Question,
    QuestionVersion,
    Quiz,
    QuizSlot,
    Role,
    Topic,
)

BENCH_SLUG = "grading-bench"
SOURCE = "import torch\n\ndef double(x):\n    return x * 2\n"
CONTENT = {
    "type": "code",
    "title": "Double a tensor",
    "prompt": "Write `double(x)` returning 2x.",
    "points": 1.0,
    "entry_point": "double",
    "cases": [
        {"name": "literal", "args": [{"tensor": [1.0, 2.0]}]},
        {"name": "random", "seed": 3, "args": [{"random": [8, 4]}]},
    ],
    "files": {"reference.py": SOURCE},
}


@dataclass(frozen=True)
class Scenario:
    quiz: Quiz
    student: User


def scenario_create() -> Scenario:
    """A fresh scratch course (any earlier one is removed first)."""
    scenario_delete()
    course = Course.objects.create(slug=BENCH_SLUG, title="Grading benchmark (scratch)")
    topic = Topic.objects.create(course=course, slug="bench", title="Bench")
    question = Question.objects.create(
        course=course,
        topic=topic,
        slug="double",
        type="code",
        title="Double",
        prompt=str(CONTENT["prompt"]),
        points=Decimal(1),
    )
    version = QuestionVersion.objects.create(
        question=question,
        number=1,
        content_hash="bench",
        content=CONTENT,
        prompt_html="<p>Write double(x).</p>",
    )
    question.current_version = version
    question.save(update_fields=["current_version"])
    quiz = Quiz.objects.create(course=course, slug="bench", title="Bench", attempts_allowed=0)
    QuizSlot.objects.create(quiz=quiz, position=0, question=question)
    student, _ = User.objects.get_or_create(username="grading-bench-student")
    CourseMembership.objects.create(course=course, user=student, role=Role.STUDENT)
    return Scenario(quiz, student)


def scenario_delete() -> None:
    """Remove the scratch course, children first (the bank protects its rows)."""
    scope = {"course__slug": BENCH_SLUG}
    Attempt.objects.filter(quiz__course__slug=BENCH_SLUG).delete()
    QuizSlot.objects.filter(quiz__course__slug=BENCH_SLUG).delete()
    Quiz.objects.filter(**scope).delete()
    Question.objects.filter(**scope).update(current_version=None)
    Question.objects.filter(**scope).delete()
    Topic.objects.filter(**scope).delete()
    Course.objects.filter(slug=BENCH_SLUG).delete()
