"""Authors' pages."""

from django.urls import path

from quizbank.pages import access, builder

app_name = "quizbank-pages"

urlpatterns = [
    path("courses/<int:course_id>/quizzes/new/", builder.quiz_create_page, name="quiz-create"),
    path("quizzes/<int:quiz_id>/", builder.quiz_edit_page, name="quiz-edit"),
    path("quizzes/<int:quiz_id>/access/", access.quiz_access_page, name="quiz-access"),
]
