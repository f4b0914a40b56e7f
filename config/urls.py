"""Top-level URL map: admin, the REST API and its schema, the browser pages (web/, quizbank/)."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from config.api_docs import SwaggerDocsView
from config.health import healthz, queues_page, readyz
from config.signin import admin_login
from config.token_api import TokenObtainApi

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
    path("admin/queues/", queues_page, name="admin-queues"),  # before the admin's catch-all
    path("admin/login/", admin_login),  # before the admin's own, which it wraps
    path("admin/", admin.site.urls),
    path("api/auth/token/", TokenObtainApi.as_view(), name="api-token"),
    path("api/", include("quizbank.api.urls")),
    path("api/", include("grading.api.urls")),
    path("api/", include("grading.api.urls_examiner")),
    path("api/", include("lms.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SwaggerDocsView.as_view(url_name="schema"), name="api-docs"),
    path("lti/", include("lms.urls")),
    path("examiner/", include("grading.pages.urls")),
    path("author/", include("quizbank.pages.urls")),
    path("", include("web.urls")),
    path("", include("quizbank.urls")),
]

# Under /api/ these answer JSON in the one error shape; elsewhere Django's own pages.
handler400 = "config.http_errors.bad_request"
handler403 = "config.http_errors.permission_denied"
handler404 = "config.http_errors.page_not_found"
handler500 = "config.http_errors.server_error"
