"""The marking page: one viva answer beside its rubric; save, or save and go to the next."""

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from config.exceptions import DomainError
from config.fields import id_from_text
from grading.api.marking_presenters import marking_view
from grading.models.marking import Mark, MarkingStatus
from grading.selectors.marking import access_marking_response, marking_queue
from grading.services.marking.marks import (
    TEXT_LIMITS,
    MarkInput,
    mark_create,
    mark_moderate,
    mark_update,
    second_mark_request,
)


def _levels(form: QueryDict, criteria: int) -> list[int]:
    """Chosen level per criterion; -1 (refused by the service) where none or not a number."""
    raw = [form.get(f"level-{i}", "") for i in range(criteria)]
    return [n if (n := id_from_text(v)) is not None and n < 1000 else -1 for v in raw]


def _save(request: HttpRequest, response_id: int, view: dict[str, Any], marker: User) -> str:
    """Second marking request, moderation of a flagged answer, or one's own (blind) mark;
    what was done, in words."""
    now = timezone.now()
    second = "second" in request.POST
    chosen = any(request.POST.get(f"level-{i}") for i in range(len(view["rubric"])))
    if second and not chosen:
        second_mark_request(response_id=response_id, examiner=marker, now=now)
        return "A blind second mark is asked for: the answer waits in the queue for it."
    data = MarkInput(
        levels=_levels(request.POST, len(view["rubric"])),
        comment=request.POST.get("comment", ""),
        reason=request.POST.get("reason", ""),
        ask_second_mark=second,
    )
    own = Mark.objects.filter(response_id=response_id, marker=marker).first()
    if own is None and view["marking"]["status"] == MarkingStatus.FLAGGED:
        mark_moderate(response_id=response_id, moderator=marker, data=data, now=now)
    elif own is None:
        mark_create(response_id=response_id, marker=marker, data=data, now=now)
    else:
        mark_update(mark_id=own.pk, marker=marker, data=data, now=now)
    if second:
        return "Mark saved, and a blind second mark asked for: the answer waits in the queue."
    return "Mark saved."


def _next_unmarked(request: HttpRequest, after: int) -> int | None:
    """The next answer in the queue that waits for this examiner's mark, after `after` or else
    from the start (one skipped earlier is not left behind while the page says none is)."""
    rows = (
        marking_queue(request.user)
        .exclude(pk=after)
        .exclude(marking__status__in=[MarkingStatus.FINAL, MarkingStatus.MODERATED])
        .exclude(marks__marker_id=request.user.pk)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    later = rows.filter(pk__gt=after).first()
    return later if later is not None else rows.first()


@login_required
@require_http_methods(["GET", "POST"])
def marking_page(request: HttpRequest, response_id: int) -> HttpResponse:
    """GET: the answer, model answer, guidance and rubric; POST: save the mark."""
    answer = access_marking_response(request.user, response_id)
    anonymous = request.GET.get("anonymous") == "true"
    view = marking_view(request.user, answer, anonymous=anonymous)
    if request.method == "POST" and isinstance(request.user, User):
        try:
            done = _save(request, answer.pk, view, request.user)
        except DomainError as refused:
            messages.error(request, f"Not saved: {refused.message}")
            # Shown again as typed (levels, comment, reason), so nothing is lost to a refusal.
            typed = {
                "levels": _levels(request.POST, len(view["rubric"])),
                "comment": request.POST.get("comment", ""),
                "reason": request.POST.get("reason", ""),
            }
            return render(request, "grading/marking.html", _context(request, view, typed))
        following = _next_unmarked(request, answer.pk) if "next" in request.POST else None
        if "next" in request.POST and following is None:
            done += " No answer is left to mark in your queue."
        messages.success(request, done)
        target = following or answer.pk
        suffix = "?anonymous=true" if anonymous else ""
        return redirect(f"/examiner/marking/{target}/{suffix}")
    return render(request, "grading/marking.html", _context(request, view, None))


def _context(
    request: HttpRequest, view: dict[str, Any], typed: dict[str, Any] | None
) -> dict[str, Any]:
    own = next((m for m in view["marks"] if m.marker_id == request.user.pk), None)
    return {
        "view": view,
        "own": own,
        "shown": typed or own,
        "max_comment": TEXT_LIMITS["comment"],
        "max_reason": TEXT_LIMITS["reason"],
    }
