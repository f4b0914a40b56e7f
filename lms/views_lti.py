"""LTI 1.3 endpoints (browser-facing, outside /api/): login initiation, launch (into the
student's quiz page or the examiner's report), deep linking and JWKS."""

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from config.exceptions import DomainError
from config.fields import id_from_text
from config.signin import client_address
from lms import lti
from lms.errors import LaunchRefused
from lms.services.lti_deep_link import (
    deep_link_accept,
    deep_link_pick,
    quiz_score_maximum,
    quizzes_to_link,
)
from lms.services.lti_launch import launch_accept, launch_attempt, launch_roles
from quizbank.models import Quiz, Role

DEEP_LINK_SESSION = "lms_deep_link"
BACKEND = "django.contrib.auth.backends.ModelBackend"


def _refused(request: HttpRequest, exc: LaunchRefused) -> HttpResponse:
    context = {"message": exc.message}
    return render(request, "lms/launch_refused.html", context, status=exc.status_code)


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
    """A resource link launch signs the user in and opens the quiz: an examiner on its
    report, a student on their attempt."""
    try:
        claims = lti.launch_claims(request)
        if claims.message_type == lti.DEEP_LINKING:
            return _deep_link_start(request, claims)
        if claims.message_type != lti.RESOURCE_LINK:
            raise LaunchRefused(f"Unsupported LTI message type {claims.message_type!r}.")
        user, quiz = launch_accept(claims=claims, now=timezone.now())
    except LaunchRefused as exc:
        return _refused(request, exc)
    login(request, user, backend=BACKEND)
    roles = launch_roles(claims)
    if Role.EXAMINER in roles:
        return redirect("grading-pages:quiz-report", quiz_id=quiz.pk)
    if Role.STUDENT in roles:
        return _student_landing(request, user, quiz)
    messages.error(request, "Your LMS role gives you no part in this quiz.")
    return redirect("web:dashboard")


def _student_landing(request: HttpRequest, user: User, quiz: Quiz) -> HttpResponse:
    try:
        attempt = launch_attempt(
            quiz=quiz, user=user, now=timezone.now(), address=client_address(request)
        )
    except DomainError as error:
        messages.error(request, error.message)
        return redirect("web:dashboard")
    if attempt is None:
        messages.info(
            request,
            f"{quiz.title} has a time limit of {quiz.time_limit}: it starts when you press Start.",
        )
        return redirect(f"{reverse('web:dashboard')}#quiz-{quiz.pk}")
    return redirect("web:attempt", attempt_id=attempt.pk)


def _deep_link_start(request: HttpRequest, claims: lti.LaunchClaims) -> HttpResponse:
    user = deep_link_accept(claims=claims, now=timezone.now())
    login(request, user, backend=BACKEND)
    request.session[DEEP_LINK_SESSION] = {
        "registration_id": claims.registration_id,
        "deployment_id": claims.deployment_id,
        "context_id": claims.context_id,
        "settings": claims.deep_linking,
    }
    quizzes = quizzes_to_link(registration_id=claims.registration_id, context_id=claims.context_id)
    return render(request, "lms/deep_link_pick.html", {"quizzes": quizzes})


@xframe_options_exempt
@require_POST
def deep_link_pick_view(request: HttpRequest) -> HttpResponse:
    """The instructor's pick goes back to the LMS as a resource link with a line item."""
    started = request.session.get(DEEP_LINK_SESSION)
    picked = id_from_text(request.POST.get("quiz", ""))
    try:
        user = request.user
        if not started or not isinstance(user, User) or picked is None:
            raise LaunchRefused("Start again from your LMS: no deep linking request is open.")
        quiz = deep_link_pick(
            registration_id=started["registration_id"],
            context_id=str(started.get("context_id", "")),
            user=user,
            quiz_id=picked,
        )
        linked = lti.LinkedQuiz(
            quiz_id=quiz.pk,
            title=quiz.title,
            score_maximum=float(quiz_score_maximum(quiz)),
            launch_url=request.build_absolute_uri(reverse("lms:launch")),
        )
        form = lti.deep_link_response_form(
            registration_id=started["registration_id"],
            deployment_id=started["deployment_id"],
            settings=started["settings"],
            quiz=linked,
        )
    except LaunchRefused as exc:
        # The request stays open: once the operator has fixed it, the pick can be sent again.
        return _refused(request, exc)
    del request.session[DEEP_LINK_SESSION]
    return HttpResponse(form)


@require_GET
def jwks(request: HttpRequest) -> JsonResponse:
    return JsonResponse(lti.tool_jwks())
