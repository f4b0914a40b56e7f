"""Attempt, result, code-run and solution-check endpoints under /api/."""

from django.urls import path

import config.converters  # noqa: F401  (registers <id:...>)
from grading.api import solution_checks, views, views_code, views_results

urlpatterns = [
    path("quizzes/<id:quiz_id>/attempts/", views.AttemptStartApi.as_view(), name="attempt-start"),
    path("quizzes/<id:quiz_id>/grade/", views_results.QuizGradeApi.as_view(), name="quiz-grade"),
    path("attempts/", views_results.AttemptListApi.as_view(), name="attempt-list"),
    path("attempts/<id:attempt_id>/", views.AttemptDetailApi.as_view(), name="attempt-detail"),
    path(
        "attempts/<id:attempt_id>/responses/<id:position>/",
        views.ResponseAutosaveApi.as_view(),
        name="response-autosave",
    ),
    path(
        "attempts/<id:attempt_id>/submit/", views.AttemptSubmitApi.as_view(), name="attempt-submit"
    ),
    path(
        "attempts/<id:attempt_id>/result/",
        views_results.AttemptResultApi.as_view(),
        name="attempt-result",
    ),
    path("code-runs/", views_code.CodeRunApi.as_view(), name="code-run"),
    path("code-runs/<slug:job_id>/", views_code.CodeRunResultApi.as_view(), name="code-run-result"),
    path(
        "questions/<id:question_id>/solution-checks/",
        solution_checks.SolutionCheckStartApi.as_view(),
        name="solution-check-start",
    ),
    path(
        "questions/<id:question_id>/solution-checks/<str:check_id>/",
        solution_checks.SolutionCheckApi.as_view(),
        name="solution-check",
    ),
]
