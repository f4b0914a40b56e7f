"""The examiner's marking queue page: the API's queue, filters and anonymity rule."""

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Exists, OuterRef
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from grading.api.marking_filters import MarkingQueueFilter
from grading.api.marking_presenters import student_labels
from grading.models.marking import Mark, MarkingStatus
from grading.selectors.marking import marking_queue
from quizbank.access import courses_for, require_role_somewhere
from quizbank.models import Quiz, Role

PAGE_SIZE = 50


@login_required
@require_GET
def marking_queue_page(request: HttpRequest) -> HttpResponse:
    """Viva answers to mark in the examiner's courses, filtered like the API's queue."""
    require_role_somewhere(request.user, [Role.EXAMINER])
    mine = Mark.objects.filter(response=OuterRef("pk"), marker_id=request.user.pk)
    rows = (
        marking_queue(request.user)
        .select_related("attempt__quiz", "attempt__user", "question_version__question", "marking")
        .annotate(marked_by_me=Exists(mine))
    )
    chosen = MarkingQueueFilter(request.GET, queryset=rows)
    valid = chosen.is_valid()  # a bad filter shows its error; never a 500
    rows = chosen.qs if valid else rows.none()
    page = Paginator(rows.order_by("attempt__quiz", "position", "id"), PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    anonymous = request.GET.get("anonymous") == "true"
    labels = student_labels(list(page), requested=anonymous)
    context = {
        "page": page,
        "items": [(row, *labels[row.pk]) for row in page],
        "errors": chosen.errors if not valid else {},
        "quizzes": Quiz.objects.filter(course__in=courses_for(request.user, [Role.EXAMINER])),
        "chosen": request.GET,
        "anonymous": anonymous,
        "awaiting_second": MarkingStatus.AWAITING_SECOND,
    }
    return render(request, "grading/marking_queue.html", context)
