"""LTI 1.3 endpoints (browser-facing, outside /api/): login initiation, launch, JWKS,
and the page a launch lands on."""

from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from lms import lti
from lms.errors import LaunchRefused
from lms.services.lti_launch import launch_accept
from quizbank.access import access_quiz

RESOURCE_LINK = "LtiResourceLinkRequest"


def _refused(request: HttpRequest, exc: LaunchRefused) -> HttpResponse:
    return render(request, "lms/launch_refused.html", {"message": exc.message}, status=403)


@csrf_exempt
@xframe_options_exempt
@require_http_methods(["GET", "POST"])
def login_initiation(request: HttpRequest) -> HttpResponse:
    try:
        return lti.oidc_login(request)
    except LaunchRefused as exc:
        return _refused(request, exc)


@csrf_exempt
@xframe_options_exempt
@require_POST
def launch(request: HttpRequest) -> HttpResponse:
    """A resource link launch signs the user in and opens the quiz."""
    try:
        claims = lti.launch_claims(request)
        if claims.message_type != RESOURCE_LINK:
            raise LaunchRefused(f"Unsupported LTI message type {claims.message_type!r}.")
        user, quiz = launch_accept(claims=claims, now=timezone.now())
    except LaunchRefused as exc:
        return _refused(request, exc)
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    return redirect("lms:quiz", quiz_id=quiz.pk)


@require_GET
def jwks(request: HttpRequest) -> JsonResponse:
    return JsonResponse(lti.tool_jwks())


@login_required
@xframe_options_exempt
@require_GET
def quiz_page(request: HttpRequest, quiz_id: int) -> HttpResponse:
    """Where a launch lands: the quiz, for a signed-in member of its course."""
    quiz = access_quiz(request.user, quiz_id)
    return render(request, "lms/quiz.html", {"quiz": quiz})
