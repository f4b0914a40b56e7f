"""The quiz report page: the statistics API's figures as SVG charts and tables."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from grading.charts import (
    criterion_rows,
    distractor_rates_svg,
    facility_discrimination_svg,
    marker_agreement_svg,
    option_rows,
    score_histogram_svg,
)
from grading.statistics.report import quiz_statistics
from grading.statistics.scope import AttemptScope
from quizbank.access import access_quiz
from quizbank.models import Role


@login_required
@require_GET
def quiz_report_page(request: HttpRequest, quiz_id: int) -> HttpResponse:
    """Score histogram, facility against discrimination, option rates, marker agreement."""
    quiz = access_quiz(request.user, quiz_id, roles=[Role.EXAMINER])
    scope = request.GET.get("attempts", AttemptScope.ALL)
    if scope not in AttemptScope.values:
        # Shown on the page, as the API's 400 would say it: the figures are of every attempt.
        messages.error(
            request, f"Unknown attempts filter; choose one of: {', '.join(AttemptScope.values)}."
        )
        scope = AttemptScope.ALL
    report = quiz_statistics(quiz, scope=scope)
    options, criteria = option_rows(report["questions"]), criterion_rows(report["questions"])
    context = {
        "quiz": quiz,
        "report": report,
        "scope": scope,
        "histogram": score_histogram_svg(report["distribution"]),
        "scatter": facility_discrimination_svg(report["questions"], described_by="questions"),
        "plotted": any(
            q.get("facility") is not None and q.get("discrimination_index") is not None
            for q in report["questions"]
        ),
        "options": options,
        "options_chart": distractor_rates_svg(options, described_by="option-rates"),
        "criteria": criteria,
        "agreement_chart": marker_agreement_svg(criteria, described_by="marker-agreement"),
    }
    return render(request, "grading/report.html", context)
