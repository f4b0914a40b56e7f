"""Browser pages of the bank (question preview)."""

from django.urls import path

from quizbank import views

app_name = "quizbank"

urlpatterns = [
    path("", views.home, name="home"),
]
