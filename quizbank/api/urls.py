"""Bank endpoints under /api/."""

from django.urls import path

import config.converters  # noqa: F401  (registers <id:...>)
from quizbank.api import access_rules, enrolment, interchange, topics, views

urlpatterns = [
    path("courses/", views.CourseListApi.as_view(), name="course-list"),
    path("courses/<id:course_id>/", views.CourseDetailApi.as_view(), name="course-detail"),
    path(
        "courses/<id:course_id>/bank/import/",
        interchange.BankImportApi.as_view(),
        name="course-bank-import",
    ),
    path(
        "courses/<id:course_id>/bank/export/",
        interchange.BankExportApi.as_view(),
        name="course-bank-export",
    ),
    path("courses/<id:course_id>/topics/", topics.CourseTopicsApi.as_view(), name="course-topics"),
    path(
        "courses/<id:course_id>/students/",
        enrolment.CourseEnrolApi.as_view(),
        name="course-enrol",
    ),
    path(
        "courses/<id:course_id>/students/remove/",
        enrolment.CourseUnenrolApi.as_view(),
        name="course-unenrol",
    ),
    path("questions/", views.QuestionListApi.as_view(), name="question-list"),
    path("questions/<id:question_id>/", views.QuestionDetailApi.as_view(), name="question-detail"),
    path("quizzes/", views.QuizListApi.as_view(), name="quiz-list"),
    path("quizzes/<id:quiz_id>/", views.QuizDetailApi.as_view(), name="quiz-detail"),
    path("quizzes/<id:quiz_id>/open/", views.QuizOpenApi.as_view(), name="quiz-open"),
    path("quizzes/<id:quiz_id>/close/", views.QuizCloseApi.as_view(), name="quiz-close"),
    path(
        "quizzes/<id:quiz_id>/access/",
        access_rules.QuizAccessRulesApi.as_view(),
        name="quiz-access-rules",
    ),
    path(
        "quizzes/<id:quiz_id>/access/overrides/<id:student_id>/",
        access_rules.QuizOverrideApi.as_view(),
        name="quiz-override",
    ),
    path(
        "quizzes/<id:quiz_id>/my-terms/", access_rules.QuizTermsApi.as_view(), name="quiz-my-terms"
    ),
]
