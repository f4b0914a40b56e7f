"""Authors' pages."""

from django.urls import path

from quizbank.pages import access

app_name = "quizbank-pages"

urlpatterns = [
    path("quizzes/<int:quiz_id>/access/", access.quiz_access_page, name="quiz-access"),
]
