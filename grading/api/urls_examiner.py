"""Examiner endpoints under /api/: marking, release, live vivas, regrades, statistics, exports."""

from django.urls import path

import config.converters  # noqa: F401  (registers <id:...>)
from grading.api import (
    marking,
    marking_policy,
    regrade,
    regrade_requests,
    release,
    stats,
    viva_sessions,
)

urlpatterns = [
    path("marking/queue/", marking.MarkingQueueApi.as_view(), name="marking-queue"),
    path(
        "marking/responses/<id:response_id>/",
        marking.MarkingResponseApi.as_view(),
        name="marking-response",
    ),
    path(
        "marking/responses/<id:response_id>/marks/",
        marking.MarkCreateApi.as_view(),
        name="mark-create",
    ),
    path(
        "marking/responses/<id:response_id>/moderation/",
        marking.ModerationApi.as_view(),
        name="mark-moderate",
    ),
    path(
        "marking/responses/<id:response_id>/second-mark/",
        marking.SecondMarkRequestApi.as_view(),
        name="mark-request-second",
    ),
    path(
        "marking/responses/<id:response_id>/history/",
        marking.MarkingHistoryApi.as_view(),
        name="marking-history",
    ),
    path("marking/marks/<id:mark_id>/", marking.MarkUpdateApi.as_view(), name="mark-update"),
    path(
        "quizzes/<id:quiz_id>/marking-policy/",
        marking_policy.MarkingPolicyApi.as_view(),
        name="marking-policy",
    ),
    path("quizzes/<id:quiz_id>/release/", release.QuizReleaseApi.as_view(), name="quiz-release"),
]

urlpatterns += [
    path("viva-sessions/", viva_sessions.VivaSessionListStartApi.as_view(), name="viva-sessions"),
    path(
        "viva-sessions/<id:session_id>/",
        viva_sessions.VivaSessionDetailApi.as_view(),
        name="viva-detail",
    ),
    path(
        "viva-sessions/<id:session_id>/draws/",
        viva_sessions.VivaDrawApi.as_view(),
        name="viva-draw",
    ),
    path(
        "viva-sessions/<id:session_id>/questions/<id:position>/",
        viva_sessions.VivaRecordApi.as_view(),
        name="viva-record",
    ),
    path("viva-sessions/<id:session_id>/end/", viva_sessions.VivaEndApi.as_view(), name="viva-end"),
]

urlpatterns += [
    path(
        "quizzes/<id:quiz_id>/regrade-runs/",
        regrade.RegradeRunStartApi.as_view(),
        name="regrade-run-start",
    ),
    path("regrade-runs/", regrade.RegradeRunListApi.as_view(), name="regrade-run-list"),
    path("regrade-runs/<id:run_id>/", regrade.RegradeRunDetailApi.as_view(), name="regrade-run"),
    path(
        "attempts/<id:attempt_id>/responses/<id:position>/regrade-requests/",
        regrade_requests.RegradeRequestCreateApi.as_view(),
        name="regrade-request-create",
    ),
    path(
        "regrade-requests/",
        regrade_requests.RegradeRequestListApi.as_view(),
        name="regrade-request-list",
    ),
    path(
        "regrade-requests/<id:request_id>/answer/",
        regrade_requests.RegradeRequestAnswerApi.as_view(),
        name="regrade-request-answer",
    ),
]

urlpatterns += [
    path(
        "quizzes/<id:quiz_id>/statistics/",
        stats.QuizStatisticsApi.as_view(),
        name="quiz-statistics",
    ),
    path(
        "quizzes/<id:quiz_id>/statistics.csv",
        stats.QuizStatisticsCsvApi.as_view(),
        name="quiz-statistics-csv",
    ),
    path(
        "quizzes/<id:quiz_id>/grades.csv", stats.QuizGradesCsvApi.as_view(), name="quiz-grades-csv"
    ),
]
