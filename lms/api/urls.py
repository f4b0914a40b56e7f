"""Provisioning and grades endpoints under /api/."""

from django.urls import path

import config.converters  # noqa: F401  (registers <id:...>)
from lms.api import passback, registrations, roster_sync, views, webhooks

urlpatterns = [
    path("users/", views.UserListApi.as_view(), name="user-list"),
    path(
        "lti/registrations/",
        registrations.RegistrationListApi.as_view(),
        name="lti-registrations",
    ),
    path(
        "lti/registrations/<id:registration_id>/",
        registrations.RegistrationDetailApi.as_view(),
        name="lti-registration-detail",
    ),
    path("webhooks/", webhooks.WebhookListApi.as_view(), name="webhook-list"),
    path("webhooks/<id:webhook_id>/", webhooks.WebhookDetailApi.as_view(), name="webhook-detail"),
    path(
        "webhooks/<id:webhook_id>/deliveries/",
        webhooks.WebhookDeliveriesApi.as_view(),
        name="webhook-deliveries",
    ),
    path("users/<str:external_id>/", views.UserDetailApi.as_view(), name="user-detail"),
    path(
        "courses/<id:course_id>/memberships/",
        views.CourseMembershipsApi.as_view(),
        name="course-memberships",
    ),
    path("quizzes/<id:quiz_id>/grades/", views.QuizGradeRowsApi.as_view(), name="quiz-grade-rows"),
    path(
        "quizzes/<id:quiz_id>/grades/export.csv",
        views.QuizGradeRowsCsvApi.as_view(),
        name="quiz-grade-rows-csv",
    ),
    path(
        "courses/<id:course_id>/lti-roster-sync/",
        roster_sync.CourseRosterSyncApi.as_view(),
        name="course-lti-roster-sync",
    ),
    path(
        "quizzes/<id:quiz_id>/lms-scores/",
        passback.QuizScoreSyncsApi.as_view(),
        name="quiz-lms-scores",
    ),
    path(
        "quizzes/<id:quiz_id>/lms-scores/resend/",
        passback.QuizScoreSyncsResendApi.as_view(),
        name="quiz-lms-scores-resend",
    ),
]
