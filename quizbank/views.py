"""Server-rendered pages."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from quizbank.models import Course


def home(request: HttpRequest) -> HttpResponse:
    courses = Course.objects.order_by("title")
    return render(request, "quizbank/home.html", {"courses": courses})
