"""Browser pages of the bank (home, question preview)."""

from django.urls import path

from quizbank import views

app_name = "quizbank"

urlpatterns = [
    path("", views.home, name="home"),
    path("questions/<int:pk>/preview/", views.question_preview, name="question-preview"),
]
