"""The live viva page (examiners): start, draw the next question, notes and rubric marks,
a timer, finish. Each step is one of the viva-session services the API uses."""

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from config.exceptions import DomainError
from config.fields import id_from_text
from grading.api.viva_presenters import viva_session_view
from grading.errors import NoSuchPosition, VivaQuestionChanged
from grading.models.marking import Mark
from grading.models.viva_sessions import VivaSession, VivaSessionStatus
from grading.selectors.viva_sessions import access_viva_session
from grading.services.marking.marks import MarkInput, mark_create, mark_update
from grading.services.viva_sessions import (
    MAX_NOTES_CHARS,
    Pool,
    viva_pool_choices,
    viva_questions_of,
    viva_session_cancel,
    viva_session_discard,
    viva_session_draw,
    viva_session_end,
    viva_session_notes,
    viva_session_start,
)
from quizbank.access import access_quiz
from quizbank.models import Difficulty, Role
from quizbank.selectors import quiz_is_live_only


def _number(value: str) -> int | None:
    return id_from_text(value)


def _record(request: HttpRequest, session: VivaSession, examiner: User) -> str:
    position = _number(request.POST.get("position", ""))
    if position is None:
        raise NoSuchPosition("Say which question of the viva the notes are for.")
    # The page names the question (a form drawn before it did is taken by position alone).
    drawn_id = _number(request.POST.get("id", ""))
    answer = viva_session_notes(
        session=session, position=position, notes=request.POST.get("notes", ""), drawn_id=drawn_id
    )
    criteria = len(answer.question_version.content.get("rubric", []))
    raw = [request.POST.get(f"level-{i}", "") for i in range(criteria)]
    if not any(raw):
        return "Notes saved; choose a level for each criterion to mark the answer."
    levels = [n if (n := _number(v)) is not None else -1 for v in raw]
    data = MarkInput(levels=levels, comment=request.POST.get("comment", ""))
    own = Mark.objects.filter(response_id=answer.pk, marker=examiner).first()
    try:
        if own is None:
            mark_create(response_id=answer.pk, marker=examiner, data=data, now=timezone.now())
        else:
            mark_update(mark_id=own.pk, marker=examiner, data=data, now=timezone.now())
    except DomainError as refused:
        raise _MarkRefused(f"The notes are saved, but not the mark: {refused.message}") from None
    return "Notes and mark saved."


class _MarkRefused(DomainError):
    """The notes were saved and the mark refused: said as such, not as "Not done"."""


def _typed(request: HttpRequest) -> dict[str, Any] | None:
    """What a refused `record` sent, to show again as typed (None for other actions)."""
    position = _number(request.POST.get("position", ""))
    if request.POST.get("action") != "record" or position is None:
        return None
    levels = [
        n if (n := _number(request.POST.get(f"level-{i}", ""))) is not None else -1
        for i in range(100)
        if f"level-{i}" in request.POST
    ]
    return {"position": position, "notes": request.POST.get("notes", ""), "levels": levels}


def _draw(request: HttpRequest, session: VivaSession) -> str:
    topic = request.POST.get("topic", "")
    topic_id = _number(topic)
    if topic and topic_id is None:
        raise DomainError(
            "Choose a topic from the list, or any topic.", fields={"topic": ["not a topic"]}
        )
    difficulty = request.POST.get("difficulty", "")
    if difficulty and difficulty not in Difficulty.values:
        raise DomainError(
            "Choose a difficulty from the list, or any difficulty.",
            fields={"difficulty": ["not a difficulty"]},
        )
    pool = Pool(topic_id=topic_id, tag=request.POST.get("tag", ""), difficulty=difficulty)
    viva_session_draw(session=session, pool=pool, now=timezone.now())
    return "A question was drawn."


def _discard(request: HttpRequest, session: VivaSession) -> str:
    position = _number(request.POST.get("position", ""))
    drawn_id = _number(request.POST.get("id", ""))
    if position is None:
        raise NoSuchPosition("Say which question of the viva to put back.")
    if drawn_id is None:  # a page drawn before put-backs named their question
        raise VivaQuestionChanged(
            "This page does not say which question it means to put back; reload it and "
            "put the question back again."
        )
    viva_session_discard(session=session, position=position, now=timezone.now(), drawn_id=drawn_id)
    return "The question was put back; it is not drawn again in this viva."


def _act(request: HttpRequest, session: VivaSession, examiner: User) -> str:
    """What was done, as a message; a DomainError says why nothing was."""
    action = request.POST.get("action")
    if action == "draw":
        return _draw(request, session)
    if action == "record":
        return _record(request, session, examiner)
    if action == "discard":
        return _discard(request, session)
    if action == "end":
        viva_session_end(session=session, now=timezone.now())
        return "The viva is over and its marks are totalled."
    raise DomainError(
        "Choose draw, record, discard, end or cancel.", fields={"action": ["unknown"]}
    )


@login_required
@require_http_methods(["GET", "POST"])
def viva_page(request: HttpRequest, session_id: int) -> HttpResponse:
    """GET: the session; POST: draw, record notes and marks, end, or cancel (`action`)."""
    session = access_viva_session(request.user, session_id)
    typed = None
    if request.method == "POST" and isinstance(request.user, User):
        try:
            if request.POST.get("action") == "cancel":
                quiz = viva_session_cancel(session=session)
                messages.success(
                    request, "The viva is cancelled; the student has the attempt again."
                )
                return redirect("grading-pages:viva-start", quiz_id=quiz.pk)
            messages.success(request, _act(request, session, request.user))
            return redirect("grading-pages:viva", session_id=session.pk)
        except _MarkRefused as refused:
            messages.error(request, refused.message)
        except DomainError as refused:
            messages.error(request, f"Not done: {refused.message}")
        typed = _typed(request)  # shown again as typed, so a refusal loses nothing
        session.refresh_from_db()
    view = viva_session_view(request.user, session)
    for question in view["questions"]:  # the levels this examiner recorded, shown checked
        own = [mark for mark in question["marks"] if mark.marker_id == request.user.pk]
        question["own_levels"] = own[0].levels if own else []
        if typed is not None and typed["position"] == question["position"]:
            question["answer"] = {"text": typed["notes"]}
            question["own_levels"] = typed["levels"]
    allowed, _ = viva_questions_of(session.attempt.quiz)
    context = {
        "view": view,
        "choices": viva_pool_choices(session.attempt.quiz),
        "pool_size": None if allowed is None else len(allowed),
        "max_notes": MAX_NOTES_CHARS,
        "quiz_id": session.attempt.quiz_id,
    }
    return render(request, "grading/viva.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def viva_start_page(request: HttpRequest, quiz_id: int) -> HttpResponse:
    """Choose a student of the course and start their live viva."""
    quiz = access_quiz(request.user, quiz_id, roles=[Role.EXAMINER])
    students = User.objects.filter(
        course_memberships__course=quiz.course, course_memberships__role=Role.STUDENT
    ).order_by("username")
    if request.method == "POST" and isinstance(request.user, User):
        student = students.filter(pk=_number(request.POST.get("student", "")) or 0).first()
        going = VivaSession.objects.filter(
            attempt__quiz=quiz, attempt__user=student, status=VivaSessionStatus.OPEN
        ).first()
        if going is not None:  # a second click, another examiner: the viva already under way
            messages.info(request, f"The live viva with {student} is under way: here it is.")
            return redirect("grading-pages:viva", session_id=going.pk)
        try:
            if student is None:
                raise LookupError
            session = viva_session_start(
                quiz=quiz, student=student, examiner=request.user, now=timezone.now()
            )
            return redirect("grading-pages:viva", session_id=session.pk)
        except LookupError:
            messages.error(request, "Choose a student of this course.")
        except DomainError as refused:
            messages.error(request, f"Not started: {refused.message}")
    context = {
        "quiz": quiz,
        "students": students,
        # Students may also start it online: a live viva uses up one of their attempts.
        "taken_online": quiz.slots.exists() and not quiz_is_live_only(quiz),
        "has_viva_questions": viva_questions_of(quiz)[0] is not None,
    }
    return render(request, "grading/viva_start.html", context)
