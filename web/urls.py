"""Browser pages: sign-in, the dashboard, the student's quiz and result pages, and the
authors' preview of a whole quiz."""

from django.urls import path

from web import accounts, code_runs, dashboard, quiz_preview, solution_checks, student_pages

app_name = "web"

urlpatterns = [
    path("signin/", accounts.sign_in, name="signin"),
    path("signout/", accounts.sign_out, name="signout"),
    path("password/", accounts.password_change, name="password-change"),
    path("password/done/", accounts.password_change_done, name="password-change-done"),
    path("code-runs/", code_runs.CodeRunStartPage.as_view(), name="code-run"),
    path("code-runs/<slug:job_id>/", code_runs.CodeRunResultPage.as_view(), name="code-run-result"),
    path("dashboard/", dashboard.dashboard, name="dashboard"),
    path(
        "author/questions/<int:question_id>/solution-checks/",
        solution_checks.solution_check_start_page,
        name="solution-check-start",
    ),
    path(
        "author/questions/<int:question_id>/solution-checks/<str:check_id>/",
        solution_checks.solution_check_page,
        name="solution-check",
    ),
    path("quizzes/<int:quiz_id>/start/", student_pages.quiz_start, name="quiz-start"),
    path("quizzes/<int:quiz_id>/preview/", quiz_preview.quiz_preview_page, name="quiz-preview"),
    path("attempts/<int:attempt_id>/", student_pages.attempt_page, name="attempt"),
    path(
        "attempts/<int:attempt_id>/result/",
        student_pages.attempt_result_page,
        name="attempt-result",
    ),
]
