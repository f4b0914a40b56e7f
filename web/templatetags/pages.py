"""Template filters of the pages."""

import math
from datetime import datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from django import template
from django.template.defaultfilters import date
from django.utils.safestring import SafeString, mark_safe

from grading.models import ResponseStatus
from grading.models.marking import MarkingStatus
from quizbank import rendering
from quizbank.models import QuestionType
from quizbank.rendering import render_markdown

register = template.Library()


@register.filter
def markdown(text: object) -> SafeString:
    """An author's Markdown (feedback, descriptors) as sanitized HTML, math left for KaTeX."""
    return mark_safe(render_markdown(str(text or "")))  # noqa: S308 (nh3-sanitized in render_markdown)


@register.filter
def plain_text(html: object) -> str:
    """Rendered HTML as the text a screen reader falls back to: an accessible name where the
    rendered form has none (KaTeX's)."""
    return rendering.plain_text(str(html or ""))


@register.filter
def minutes(value: object) -> str:
    """A time limit as people say it: "45 min", "1 h", "1 h 30 min", "2 min 30 s" (extra
    time can make a limit that is not whole minutes; whole seconds, rounded up)."""
    if not isinstance(value, timedelta):
        return str(value)
    total = math.ceil(value.total_seconds())
    hours, rest = divmod(total, 3600)
    mins, secs = divmod(rest, 60)
    parts = [f"{hours} h"] if hours else []
    if mins or not (hours or secs):
        parts.append(f"{mins} min")
    if secs:
        parts.append(f"{secs} s")
    return " ".join(parts)


# Readers may sit in another time zone than the server's: every page writes the zone.
DATE_TIME_FORMAT = "j M Y, H:i e"


@register.filter(expects_localtime=True)
def when(value: datetime | None) -> str:
    """A date and time as every page writes it, with its zone ("3 Mar 2025, 14:05 UTC");
    "" for none."""
    return str(date(value, DATE_TIME_FORMAT))


@register.filter
def points(value: object) -> str:
    """A score as people write it: at most three decimals, no trailing zeros ("0.75", "13")."""
    if value is None or value == "":
        return ""
    try:
        number = Decimal(str(value)).quantize(Decimal("0.001"), rounding=ROUND_HALF_UP)
    except InvalidOperation:
        return str(value)
    return f"{number.normalize():f}"


@register.filter
def chosen_levels(levels: object, rubric: object) -> str:
    """A mark's chosen levels as the rubric names them ("Full (2), Partial (1)"): the stored
    indexes count from 0, and beside a rubric whose levels count from 1 they misread."""
    if not isinstance(levels, list) or not isinstance(rubric, list):
        return ""
    return ", ".join(
        _level_name(level, criterion) for level, criterion in zip(levels, rubric, strict=False)
    )


def _level_name(level: object, criterion: object) -> str:
    options = criterion.get("levels", []) if isinstance(criterion, dict) else []
    if not isinstance(level, int) or not 0 <= level < len(options):
        return "no level"
    chosen = options[level]
    return f"{chosen.get('label', '')} ({points(chosen.get('points'))})"


@register.filter
def has_feedback(feedback: object) -> bool:
    """Whether an answer's feedback has anything to show under its heading."""
    shown = ("answer", "choices", "general", "message", "cases", "marks")
    return isinstance(feedback, dict) and any(feedback.get(key) for key in shown)


@register.filter
def question_type(value: object) -> str:
    """A question type as people read it ("true_false": "True/false")."""
    return (
        QuestionType(value).label
        if isinstance(value, str) and value in QuestionType.values
        else str(value)
    )


@register.filter
def response_status(value: object) -> str:
    """A response's status as students read it ("needs_marking": "Waiting for an examiner")."""
    labels = dict(ResponseStatus.choices)
    return str(labels.get(str(value), value))


@register.filter
def marking_status(value: object) -> str:
    """A marking's status as examiners read it ("awaiting_second": "Waiting for a second
    mark"), as the marking queue shows it."""
    labels = dict(MarkingStatus.choices)
    return str(labels.get(str(value), value))


# Why an answer holds a release back (grading.services.release.BLOCKING_STATES), in words.
_RELEASE_STATES = {
    "unmarked": "Not marked yet",
    "awaiting_second_mark": "Waiting for a second mark",
    "flagged": "Markers disagree: needs moderation",
    "grading": "Still being graded",
    "grading_failed": "Grading failed: regrade it",
}


@register.filter
def release_state(value: object) -> str:
    return _RELEASE_STATES.get(str(value), str(value))
