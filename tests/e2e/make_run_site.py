"""Students and a one-question code quiz in the `make run` site's database, for
test_make_run_sqlite (run as `python -m tests.e2e.make_run_site N` beside the site).

Prints one JSON object: the quiz id, a second quiz's (one parameterised question), one API
token per student and the code question's reference solution (a correct answer).
"""

import json
import sys
from typing import Any


def build(students: int) -> dict[str, Any]:
    from django.contrib.auth.models import User
    from rest_framework.authtoken.models import Token

    from quizbank.models import Course, CourseMembership, Question, Quiz, QuizSlot, Role

    course = Course.objects.get(slug="pytorch-fundamentals")
    code = Question.objects.select_related("current_version").get(slug="softmax-rows")
    quiz = Quiz.objects.create(
        course=course,
        slug="sqlite-concurrency",
        title="Everyone submits at once",
        attempts_allowed=0,
        shuffle_choices=False,
    )
    QuizSlot.objects.create(quiz=quiz, position=0, question=code)
    variant = Quiz.objects.create(course=course, slug="sqlite-variant", title="A variant each")
    parameterised = Question.objects.get(slug="quadratic-derivative-variant")
    QuizSlot.objects.create(quiz=variant, position=0, question=parameterised)
    tokens = []
    for number in range(students):
        user = User.objects.create_user(username=f"concurrent-{number}")
        CourseMembership.objects.create(course=course, user=user, role=Role.STUDENT)
        tokens.append(Token.objects.create(user=user).key)
    assert code.current_version is not None
    source = code.current_version.content["files"]["reference.py"]
    return {"quiz": quiz.pk, "variant_quiz": variant.pk, "tokens": tokens, "source": source}


if __name__ == "__main__":
    import django

    django.setup()
    print(json.dumps(build(int(sys.argv[1]))))
