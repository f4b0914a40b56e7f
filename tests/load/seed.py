"""Make `count` students of the demo course (after `load_demo`) with API tokens; print
{"quiz_id", "tokens"} as JSON. Used by `make load` and the fault tests' private databases.

Run as `python -m tests.load.seed COUNT` with DATABASE_URL (and DEBUG=true) set. One password
hash serves every student, so seeding 300 takes a second, not minutes of PBKDF2.
"""

import json
import os
import sys


def main(count: int) -> dict[str, object]:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.contrib.auth.hashers import make_password
    from django.contrib.auth.models import User
    from rest_framework.authtoken.models import Token

    from quizbank.models import Course, CourseMembership, Quiz, Role

    course = Course.objects.get(slug="pytorch-fundamentals")
    quiz = Quiz.objects.get(course=course, slug="fundamentals-check")
    password = make_password("load-student-pass")
    tokens = []
    for index in range(count):
        user, _ = User.objects.get_or_create(
            username=f"load{index:04d}", defaults={"password": password}
        )
        CourseMembership.objects.get_or_create(course=course, user=user, role=Role.STUDENT)
        tokens.append(Token.objects.get_or_create(user=user)[0].key)
    return {"quiz_id": quiz.pk, "tokens": tokens}


if __name__ == "__main__":
    print(json.dumps(main(int(sys.argv[1]))))
