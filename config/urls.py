"""Top-level URL map: admin, the REST API and its schema, the browser pages."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.authtoken.views import obtain_auth_token

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/auth/token/", obtain_auth_token, name="api-token"),
    path("api/", include("quizbank.api.urls")),
    path("api/", include("grading.api.urls")),
    path("api/", include("grading.api.urls_examiner")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("", include("quizbank.urls")),
]

# Under /api/ these answer JSON in the one error shape; elsewhere Django's own pages.
handler400 = "config.http_errors.bad_request"
handler403 = "config.http_errors.permission_denied"
handler404 = "config.http_errors.page_not_found"
handler500 = "config.http_errors.server_error"
