"""The signed-in home: one section per role the user holds in some course."""

from django.contrib.auth.decorators import login_required
from django.db.models import Prefetch
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_safe

from quizbank.access import courses_for, courses_studied
from quizbank.models import Course, Quiz, Role
from web.student_dashboard import student_dashboard


def _courses(request: HttpRequest, role: str) -> list[Course]:
    return list(courses_for(request.user, [role]).order_by("title"))


def _with_quizzes(courses: list[Course]) -> list[Course]:
    """The courses again, each with its quizzes (by title) prefetched for the author's links."""
    by_title = Prefetch("quizzes", queryset=Quiz.objects.order_by("title"))
    return list(
        Course.objects.filter(pk__in=[c.pk for c in courses])
        .order_by("title")
        .prefetch_related(by_title)
    )


@require_safe
@login_required
def dashboard(request: HttpRequest) -> HttpResponse:
    """Student, examiner and author sections, each shown only to holders of that role."""
    studying = list(courses_studied(request.user).order_by("title"))
    examining = _courses(request, Role.EXAMINER)
    authoring = _courses(request, Role.AUTHOR)
    context = {
        "studying": studying,
        "examining": examining,
        "authoring": _with_quizzes(authoring),
        "examined_quizzes": Quiz.objects.filter(course__in=examining)
        .select_related("course")
        .order_by("title"),
        "student": student_dashboard(request.user, timezone.now(), enrolled=bool(studying)),
    }
    return render(request, "web/dashboard.html", context)
