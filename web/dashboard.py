"""The signed-in home: one section per role the user holds in some course."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from quizbank.access import courses_for
from quizbank.models import Course, Quiz, Role
from web.student_dashboard import student_dashboard


def _courses(request: HttpRequest, role: str) -> list[Course]:
    return list(courses_for(request.user, [role]).order_by("title"))


@login_required
def dashboard(request: HttpRequest) -> HttpResponse:
    """Student, examiner and author sections, each shown only to holders of that role."""
    studying = _courses(request, Role.STUDENT)
    examining = _courses(request, Role.EXAMINER)
    authoring = _courses(request, Role.AUTHOR)
    context = {
        "studying": studying,
        "examining": examining,
        "authoring": authoring,
        "examined_quizzes": Quiz.objects.filter(course__in=examining).order_by("title"),
        "student": student_dashboard(request.user, timezone.now()) if studying else None,
    }
    return render(request, "web/dashboard.html", context)
