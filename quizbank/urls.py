"""Browser pages of the bank (home, question preview)."""

from django.urls import path, re_path

from quizbank import views

app_name = "quizbank"

urlpatterns = [
    path("", views.home, name="home"),
    path("questions/<int:pk>/preview/", views.question_preview, name="question-preview"),
    # The prefix is quizbank.assets.ASSET_URL_PREFIX, which question texts hold.
    re_path(
        r"^question-assets/(?P<digest>[0-9a-f]{64})/(?P<name>[^/]*)$",
        views.question_asset,
        name="question-asset",
    ),
]
