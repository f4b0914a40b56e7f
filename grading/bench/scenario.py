"""The benchmark's scratch course: a quiz with one code question and a student."""

from dataclasses import dataclass

from django.contrib.auth.models import User

from grading.models import Attempt
from quizbank.bankfiles import canonicalize
from quizbank.models import Course, CourseMembership, Question, Quiz, QuizSlot, Role, Topic
from quizbank.services.bank_import import bank_write_question, question_problems
from quizbank.services.quiz_write import SlotSpec, quiz_create

BENCH_SLUG = "grading-bench"
SOURCE = "import torch\n\ndef double(x):\n    return x * 2\n"
CONTENT = {
    "type": "code",
    "title": "Double a tensor",
    "prompt": "Write `double(x)` returning 2x.",
    "points": 1,
    "entry_point": "double",
    "cases": [
        {"name": "literal", "args": [{"tensor": [1.0, 2.0]}]},
        {"name": "random", "seed": 3, "args": [{"random": [8, 4]}]},
    ],
    "files": {
        "reference.py": SOURCE,
        "wrong_adds_two.py": "import torch\n\ndef double(x):\n    return x + 2\n",
    },
}


@dataclass(frozen=True)
class Scenario:
    quiz: Quiz
    student: User


def scenario_create() -> Scenario:
    """A fresh scratch course (any earlier one is removed first), written by the bank's own
    services as an import and the quiz builder write them."""
    scenario_delete()
    course = Course.objects.create(slug=BENCH_SLUG, title="Grading benchmark (scratch)")
    topic = Topic.objects.create(course=course, slug="bench", title="Bench")
    problems = question_problems(CONTENT)
    if problems:
        raise ValueError(f"the benchmark's question breaks the bank's rules: {problems}")
    bank_write_question(
        course=course,
        topic=topic,
        slug="double",
        question=None,
        content=canonicalize(CONTENT),
        user=None,
    )
    question = Question.objects.get(course=course, slug="double")
    quiz = quiz_create(
        course=course,
        data={"slug": "bench", "title": "Bench", "attempts_allowed": 0},
        slots=[SlotSpec(question=question.pk)],
    )
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
