"""LTI 1.3 endpoints under /lti/."""

from django.urls import path

from lms import views_lti

app_name = "lms"

urlpatterns = [
    path("login/", views_lti.login_initiation, name="login"),
    path("launch/", views_lti.launch, name="launch"),
    path("jwks/", views_lti.jwks, name="jwks"),
    path("deep-link/", views_lti.deep_link_pick_view, name="deep-link"),
]
