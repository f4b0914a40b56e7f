"""Examiners' pages."""

from django.urls import path

from grading.pages import marking, marking_form, release, report, viva

app_name = "grading-pages"

urlpatterns = [
    path("quizzes/<int:quiz_id>/viva/", viva.viva_start_page, name="viva-start"),
    path("vivas/<int:session_id>/", viva.viva_page, name="viva"),
    path("marking/", marking.marking_queue_page, name="marking-queue"),
    path("marking/<int:response_id>/", marking_form.marking_page, name="marking"),
    path("quizzes/<int:quiz_id>/report/", report.quiz_report_page, name="quiz-report"),
    path("quizzes/<int:quiz_id>/release/", release.quiz_release_page, name="quiz-release"),
]
