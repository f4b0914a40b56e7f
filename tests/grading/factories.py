"""Typed builders for courses, questions with versions, quizzes and users in grading tests."""

import hashlib
import itertools
import json
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import User

from quizbank.models import (
    Course,
    CourseMembership,
    Question,
    QuestionVersion,
    Quiz,
    QuizSlot,
    Topic,
)

_serial = itertools.count(1)


def new_user(**fields: Any) -> User:
    return User.objects.create(**{"username": f"user{next(_serial)}", **fields})


def new_course(**fields: Any) -> Course:
    n = next(_serial)
    return Course.objects.create(**{"slug": f"course-{n}", "title": f"Course {n}", **fields})


def new_topic(**fields: Any) -> Topic:
    if "course" not in fields:
        fields["course"] = new_course()
    return Topic.objects.create(**{"slug": f"topic-{next(_serial)}", "title": "Tensors", **fields})


def new_quiz(**fields: Any) -> Quiz:
    if "course" not in fields:
        fields["course"] = new_course()
    defaults = {"slug": f"quiz-{next(_serial)}", "title": "Weekly quiz", "attempts_allowed": 0}
    return Quiz.objects.create(**{**defaults, **fields})


def member(course: Course, role: str, user: User | None = None) -> User:
    user = user or new_user()
    CourseMembership.objects.create(course=course, user=user, role=role)
    return user


def question(
    course: Course, content: dict[str, Any], *, topic: Topic | None = None, points: str = "1"
) -> Question:
    """A question whose current version holds `content` (the bank format as a dict)."""
    topic = topic or new_topic(course=course)
    slug = f"q-{Question.objects.count() + 1}-{content['type'].replace('_', '-')}"
    full = {"points": float(points), **content}
    q = Question.objects.create(
        course=course, topic=topic, slug=slug, type=content["type"], title=content["title"],
        prompt=content["prompt"], tags=content.get("tags", []),
        difficulty=content.get("difficulty", "beginner"), points=Decimal(points),
    )  # fmt: skip
    digest = hashlib.sha256(json.dumps(full, sort_keys=True).encode()).hexdigest()
    version = QuestionVersion.objects.create(
        question=q, number=1, content_hash=digest, content=full,
        prompt_html=f"<p>{content['prompt']}</p>",
    )  # fmt: skip
    q.current_version = version
    q.save(update_fields=["current_version"])
    return q


def add_slots(quiz: Quiz, *questions: Question) -> None:
    start = quiz.slots.count()
    for offset, q in enumerate(questions):
        QuizSlot.objects.create(quiz=quiz, position=start + offset, question=q)


SINGLE = {
    "type": "single_choice",
    "title": "Rank of a batch",
    "prompt": "What is the rank of a (8, 128, 512) tensor?",
    "choices": [
        {"text": "3", "correct": True, "feedback": "Three axes."},
        {"text": "2", "feedback": "That drops the batch axis."},
        {"text": "4", "feedback": "One axis too many."},
    ],
}
MULTIPLE = {
    "type": "multiple_choice",
    "title": "Leaf tensors",
    "prompt": "Which are leaves?",
    "scoring": "partial",
    "choices": [
        {"text": "torch.ones(2, requires_grad=True)", "correct": True},
        {"text": "x * 2 for a leaf x that requires grad"},
        {"text": "torch.zeros(3)", "correct": True},
    ],
}
TRUE_FALSE = {
    "type": "true_false",
    "title": "grad_fn of a leaf",
    "prompt": "A user-created leaf has grad_fn None.",
    "answer": True,
    "true_feedback": "Right.",
    "false_feedback": "Leaves have no grad_fn.",
}
NUMERIC = {
    "type": "numeric",
    "title": "Derivative",
    "prompt": "dy/dx of x^2 + 5x + 2 at x = 3?",
    "answers": [
        {"value": 11, "tolerance": 0.001, "feedback": "2x + 5 at 3."},
        {"value": 6, "fraction": 0, "feedback": "You dropped the linear term."},
    ],
}
SHORT_TEXT = {
    "type": "short_text",
    "title": "Creator attribute",
    "prompt": "Which attribute names the creating function?",
    "answers": [{"text": "grad_fn", "feedback": "Yes."}, {"regex": r"^\.grad_fn$"}],
}
CODE = {
    "type": "code",
    "title": "Double it",
    "prompt": "Write `double(x)` returning 2x.",
    "entry_point": "double",
    "starter_code": "def double(x):\n    ...\n",
    "cases": [{"name": "small", "args": [{"tensor": [1.0, 2.0]}]}],
    "files": {
        "reference.py": "def double(x):\n    return x * 2\n",
        "wrong_add.py": "def double(x):\n    return x + 2\n",
    },
}
VIVA = {
    "type": "viva",
    "title": "Why gradients accumulate",
    "prompt": "Explain why .grad accumulates.",
    "mode": "written",
    "model_answer": "MODEL-ANSWER-SECRET",
    "guidance": "GUIDANCE-SECRET",
    "rubric": [
        {
            "criterion": "Mechanism",
            "levels": [
                {"label": "Missing", "points": 0, "descriptor": "none"},
                {"label": "Full", "points": 2, "descriptor": "RUBRIC-SECRET"},
            ],
        }
    ],
}
