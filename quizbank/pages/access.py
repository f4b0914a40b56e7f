"""A quiz's access page (authors): enrol and remove students, set overrides, the code and
networks."""

from datetime import datetime

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.utils.dateparse import parse_datetime
from django.utils.timezone import get_current_timezone, is_naive, make_aware
from django.views.decorators.http import require_http_methods

from config.exceptions import DomainError
from config.fields import id_from_text
from quizbank.access import AUTHORS, access_quiz
from quizbank.errors import AccessRuleInvalid
from quizbank.models import Quiz, Role
from quizbank.selectors import course_student_named
from quizbank.services.enrolment import (
    course_enrol_students,
    course_unenrol_students,
    entries_from_csv,
    entries_from_text,
)
from quizbank.services.quiz_overrides import (
    OverrideInput,
    quiz_access_rules_set,
    quiz_override_delete,
    quiz_override_set,
)

MAX_UPLOAD_BYTES = 1_000_000


def _when(form: QueryDict, name: str, label: str) -> datetime | None:
    """The field's date and time (in the site's time zone when it names none); None when
    left empty, and a refusal naming the field when it is not a date and time."""
    value = form.get(name, "").strip()
    if not value:
        return None
    try:
        parsed = parse_datetime(value)
    except ValueError:  # well formed, but no such day or hour (30 February)
        parsed = None
    if parsed is None:
        raise AccessRuleInvalid(
            f"{label} {value[:40]!r} is not a date and time (e.g. 2030-02-28 10:00).",
            fields={name: ["not a date and time"]},
        )
    return make_aware(parsed, get_current_timezone()) if is_naive(parsed) else parsed


def _number(form: QueryDict, name: str) -> int:
    number = id_from_text(form.get(name, "").strip() or "0")
    return number if number is not None and number < 1_000_000 else -1


def _listed(names: list[str], most: int = 10) -> str:
    """Names as a message shows them: the first few, each cut to a readable length."""
    shown = [name if len(name) <= 40 else f"{name[:40]}…" for name in names[:most]]
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return ", ".join(shown) + more


def _enrol(request: HttpRequest, quiz: Quiz) -> str:
    upload = request.FILES.get("csv")
    if upload is not None and upload.size and upload.size > MAX_UPLOAD_BYTES:
        return "That file is over 1 MB."
    entries = entries_from_text(request.POST.get("entries", ""))
    if upload is not None:
        entries += entries_from_csv(upload.read())
    result = course_enrol_students(course=quiz.course, entries=entries)
    unknown = f"; no account for {_listed(result.unknown)}" if result.unknown else ""
    unknown += _ambiguous(result.ambiguous)
    staff = (
        f"; {_listed(result.staff)} also teach{'es' if len(result.staff) == 1 else ''} this "
        "course: as students they see its quizzes as students do, and cannot mark their own "
        "answers"
        if result.staff
        else ""
    )
    return f"Enrolled {len(result.added)}, already enrolled {len(result.already)}{unknown}{staff}."


def _unenrol(request: HttpRequest, quiz: Quiz) -> str:
    entries = entries_from_text(request.POST.get("entries", ""))
    if not entries:
        raise AccessRuleInvalid(
            "Give the usernames or e-mails of the students to remove.",
            fields={"entries": ["empty"]},
        )
    result = course_unenrol_students(course=quiz.course, entries=entries)
    parts = [f"Removed {len(result.removed)} from the course"]
    if result.removed:
        parts[0] += f" ({_listed(result.removed)}); their attempts and grades are kept"
    if result.not_enrolled:
        parts.append(f"not enrolled as students: {_listed(result.not_enrolled)}")
    if result.unknown:
        parts.append(f"no account for {_listed(result.unknown)}")
    return "; ".join(parts) + _ambiguous(result.ambiguous) + "."


def _ambiguous(entries: list[str]) -> str:
    if not entries:
        return ""
    return f"; several accounts match {_listed(entries)} ignoring case: give the exact username"


def _override(request: HttpRequest, quiz: Quiz) -> str:
    name = request.POST.get("student", "").strip()
    student = course_student_named(quiz.course_id, name)
    if student is None:  # refused, so the form comes back as typed, to be corrected
        raise AccessRuleInvalid(
            f"No student {_listed([name])!r} in this course.", fields={"student": ["unknown"]}
        )
    data = OverrideInput(
        extra_time_percent=_number(request.POST, "extra_time_percent"),
        extra_attempts=_number(request.POST, "extra_attempts"),
        opens_at=_when(request.POST, "opens_at", "Opens at"),
        closes_at=_when(request.POST, "closes_at", "Closes at"),
        reason=request.POST.get("reason", ""),
    )
    quiz_override_set(quiz=quiz, student=student, data=data)
    return f"Saved the override for {student.username}."


def _rules(request: HttpRequest, quiz: Quiz) -> str:
    networks = entries_from_text(request.POST.get("allowed_networks", ""))
    quiz_access_rules_set(
        quiz=quiz, access_code=request.POST.get("access_code", ""), networks=networks
    )
    return "Saved the access code and networks."


def _remove_override(request: HttpRequest, quiz: Quiz) -> str:
    override = quiz.access_overrides.filter(
        pk=id_from_text(request.POST.get("override", "")) or 0
    ).first()
    if override is None:
        return "No such accommodation on this quiz (removed already, or another quiz's)."
    username = override.user.username
    quiz_override_delete(quiz=quiz, override_id=override.pk)
    return f"Removed the accommodation of {username}: the quiz's own terms apply to them again."


ACTIONS = {
    "enrol": _enrol,
    "unenrol": _unenrol,
    "override": _override,
    "remove_override": _remove_override,
    "rules": _rules,
}


@login_required
@require_http_methods(["GET", "POST"])
def quiz_access_page(request: HttpRequest, quiz_id: int) -> HttpResponse:
    """GET: students, overrides and rules; POST: one of the forms (`action`)."""
    quiz = access_quiz(request.user, quiz_id, roles=AUTHORS)
    action = ACTIONS.get(request.POST.get("action", ""))
    posted = None
    if request.method == "POST":
        try:
            note = action(request, quiz) if action else "Unknown form."
            messages.info(request, note)
            return redirect("quizbank-pages:quiz-access", quiz_id=quiz.pk)
        except DomainError as refused:
            messages.error(request, f"Not saved: {refused.message}")
            posted = request.POST  # the form comes back as typed, to be corrected
    context = {
        "quiz": quiz,
        "posted": posted,
        "students": quiz.course.memberships.filter(role=Role.STUDENT)
        .select_related("user")
        .order_by("user__username"),
        "overrides": quiz.access_overrides.select_related("user").order_by("user__username"),
    }
    return render(request, "quizbank/author/access.html", context)
