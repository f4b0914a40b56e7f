"""Authors' pages."""

from django.urls import path

import config.converters  # noqa: F401  (registers <id:...>)
from quizbank.pages import access, builder, importing, questions, reference

app_name = "quizbank-pages"

urlpatterns = [
    path("courses/<int:course_id>/quizzes/new/", builder.quiz_create_page, name="quiz-create"),
    path("quizzes/<int:quiz_id>/", builder.quiz_edit_page, name="quiz-edit"),
    path("quizzes/<int:quiz_id>/access/", access.quiz_access_page, name="quiz-access"),
    path("courses/<int:course_id>/questions/", questions.question_list_page, name="question-list"),
    path(
        "courses/<int:course_id>/questions/new/",
        questions.question_create_page,
        name="question-create",
    ),
    path("questions/<int:question_id>/", questions.question_edit_page, name="question-edit"),
    path(
        "questions/<id:question_id>/versions/<id:number>/",
        questions.question_version_page,
        name="question-version",
    ),
    path("courses/<int:course_id>/import/", importing.import_page, name="import"),
    path("courses/<int:course_id>/export/", importing.export_page, name="export"),
    path("help/<slug:name>/", reference.reference_page, name="help"),
]
