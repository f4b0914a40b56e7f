"""The question editor's "Check the solutions": start a check (POST) and show it as it
fills in (GET, polled by htmx every second until every solution is judged)."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST
from rest_framework.throttling import ScopedRateThrottle

from config.exceptions import BROKER_ERRORS, BROKER_UNAVAILABLE, DomainError
from grading.api.solution_checks import solution_check_body
from grading.services.solution_checks import solution_check_start, solution_check_state
from quizbank.access import access_question
from web.accounts import form_action_login_required

FRAGMENT = "web/solution_check.html"


class _CheckRate:
    """The API's `solution_check` rate (ScopedRateThrottle), counted in the same place."""

    throttle_scope = "solution_check"


@form_action_login_required
@require_POST
def solution_check_start_page(request: HttpRequest, question_id: int) -> HttpResponse:
    question = access_question(request.user, question_id)
    throttle = ScopedRateThrottle()
    # arg-type: DRF's stubs want a Request and an APIView; the throttle reads only the
    # user, the address and `throttle_scope`, which these have.
    if not throttle.allow_request(request, _CheckRate()):  # type: ignore[arg-type]
        wait = f"{throttle.wait() or 60:.0f}"
        refused = f"Too many checks in a short time; try again in {wait} s."
        return render(request, FRAGMENT, {"question": question, "refused": refused})
    now = timezone.now()
    try:
        check_id = solution_check_start(question=question, now=now)
    except DomainError as refused:
        return render(request, FRAGMENT, {"question": question, "refused": refused.message})
    except BROKER_ERRORS:
        return render(request, FRAGMENT, {"question": question, "refused": BROKER_UNAVAILABLE})
    verdicts = solution_check_state(question=question, check_id=check_id, now=now)
    context = {"question": question, "check": solution_check_body(check_id, verdicts)}
    return render(request, FRAGMENT, context)


@login_required
@require_GET
def solution_check_page(request: HttpRequest, question_id: int, check_id: str) -> HttpResponse:
    question = access_question(request.user, question_id)
    try:
        verdicts = solution_check_state(question=question, check_id=check_id, now=timezone.now())
    except DomainError as refused:
        return render(request, FRAGMENT, {"question": question, "refused": refused.message})
    context = {"question": question, "check": solution_check_body(check_id, verdicts)}
    return render(request, FRAGMENT, context)
