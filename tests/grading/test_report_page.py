"""The quiz report page: charts and figures from the statistics service, CSV links."""

import re
from xml.etree import ElementTree

import pytest
from django.test import Client
from django.utils import timezone

from grading.models.marking import QuizMarkingPolicy
from grading.services.marking.marks import MarkInput, mark_create
from quizbank.models import Role
from tests.grading.content import SINGLE, VIVA
from tests.grading.factories import Staff, browser_as, member, staffed_quiz, submitted_attempt

NS = "{http://www.w3.org/2000/svg}"

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff() -> Staff:
    made, _ = staffed_quiz(SINGLE)
    submitted_attempt(made.quiz, made.student, {0: {"choice": 0}})
    return made


def _report(staff: Staff) -> str:
    page = browser_as(staff.examiner).get(f"/examiner/quizzes/{staff.quiz.pk}/report/")
    assert page.status_code == 200
    return page.text


def _chart(page: str, name: str) -> ElementTree.Element:
    """The page's SVG chart whose accessible name is `name`."""
    for svg in re.findall(r"<svg .*?</svg>", page, re.DOTALL):
        chart = ElementTree.fromstring(svg)  # noqa: S314  (our own page, not untrusted input)
        if chart.get("aria-label") == name:
            return chart
    raise AssertionError(f"no chart named {name!r}")


def _bars(chart: ElementTree.Element) -> dict[str, tuple[float, str]]:
    """Each bar's tooltip -> its width and fill (pattern tiles have no tooltip)."""
    return {
        str(bar.findtext(f"{NS}title")): (float(bar.get("width", "nan")), str(bar.get("fill")))
        for bar in chart.iter(f"{NS}rect")
        if bar.find(f"{NS}title") is not None
    }


def test_the_report_draws_its_charts_and_links_the_csvs(staff: Staff) -> None:
    page = _report(staff)
    assert page.count("<svg") == 2  # one student: no discrimination to plot yet
    assert "Not enough data yet: a question's discrimination needs" in page
    assert "No data yet: no answer has been marked by two examiners." in page
    assert "1 graded attempt" in page
    second = member(staff.quiz.course, Role.STUDENT)
    submitted_attempt(staff.quiz, second, {0: {"choice": 1}})
    assert _chart(_report(staff), "Facility against discrimination") is not None
    csv_url = f"/api/quizzes/{staff.quiz.pk}/statistics.csv?attempts=all"
    assert csv_url in page
    assert browser_as(staff.examiner).get(csv_url).status_code == 200


def test_a_bad_scope_falls_back_and_outsiders_get_nothing(staff: Staff) -> None:
    url = f"/examiner/quizzes/{staff.quiz.pk}/report/"
    assert browser_as(staff.examiner).get(url, {"attempts": "nonsense"}).status_code == 200
    assert browser_as(staff.outsider).get(url).status_code == 404
    assert browser_as(staff.student).get(url).status_code == 403


def test_anonymous_visitors_are_sent_to_sign_in(staff: Staff) -> None:
    url = f"/examiner/quizzes/{staff.quiz.pk}/report/"
    reply = Client().get(url)
    assert reply.status_code == 302
    assert url in reply["Location"]


@pytest.fixture
def four_answers() -> Staff:
    """Four students pick options 0 (correct), 0, 0 and 1 of SINGLE; two examiners mark
    their viva answers at levels (first, second) (2, 2), (1, 1), (0, 1), (2, 0)."""
    staff, _ = staffed_quiz(SINGLE, VIVA)
    QuizMarkingPolicy.objects.create(quiz=staff.quiz, double_marking=True, disagreement_threshold=1)
    now = timezone.now()
    for pick, first, second in ((0, 2, 2), (0, 1, 1), (0, 0, 1), (1, 2, 0)):
        student = member(staff.course, Role.STUDENT)
        attempt = submitted_attempt(staff.quiz, student, {0: {"choice": pick}, 1: {"text": "t"}})
        viva = attempt.responses.get(position=1)
        for marker, level in ((staff.examiner, first), (staff.second, second)):
            mark_create(response_id=viva.pk, marker=marker, data=MarkInput(levels=[level]), now=now)
    return staff


def test_option_bars_are_as_long_as_the_share_of_answers_that_picked_them(
    four_answers: Staff,
) -> None:
    chart = _chart(_report(four_answers), "Option rates")
    bars = _bars(chart)
    assert list(bars) == ["A. 3 (correct): 75% (3)", "B. 2: 25% (1)", "C. 4: 0% (0)"]
    (right, striped), (wrong, solid), (none, _) = bars.values()
    assert right == pytest.approx(3 * wrong, abs=0.2)
    assert none == 0
    assert (striped, solid) == ("url(#correct-option)", "#2f6690")
    assert chart.get("role") == "img"
    assert chart.get("aria-describedby") == "option-rates"


def test_marker_agreement_bars_show_exact_agreement_and_the_mean_gap(
    four_answers: Staff,
) -> None:
    page = _report(four_answers)
    chart = _chart(page, "Marker agreement")
    # Pairs (2, 2), (1, 1), (0, 1), (2, 0): exact 2 of 4; gaps 0, 0, 1, 2, mean 0.75 of at
    # most 2 levels.
    bars = _bars(chart)
    assert list(bars) == ["Mechanism: exact 50%", "Mechanism: mean gap 0.75 of 2"]
    (exact, solid), (gap, striped) = bars.values()
    assert gap == pytest.approx(exact * 0.75, abs=0.2)
    assert (solid, striped) == ("#2f6690", "url(#mean-gap)")
    assert chart.get("aria-describedby") == "marker-agreement"
    assert 'id="marker-agreement"' in page


def test_an_empty_quiz_says_no_data_yet_and_draws_no_chart() -> None:
    staff, _ = staffed_quiz(SINGLE, VIVA)
    page = _report(staff)
    assert "<svg" not in page
    assert page.count("No data yet") == 4
