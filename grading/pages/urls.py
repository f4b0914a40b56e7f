"""Examiners' pages."""

from django.urls import path

from grading.pages import release

app_name = "grading-pages"

urlpatterns = [
    path("quizzes/<int:quiz_id>/release/", release.quiz_release_page, name="quiz-release"),
]
