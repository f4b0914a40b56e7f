"""The quiz builder (authors): settings, then fixed questions and pools from the bank."""

from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import NON_FIELD_ERRORS
from django.forms.boundfield import BoundField, BoundWidget
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from config.exceptions import DomainError
from config.text import validate_one_line
from quizbank.access import AUTHORS, access_course, access_quiz
from quizbank.models import Course, Difficulty, GradingMethod, Question, Quiz, ReleasePolicy
from quizbank.services.quiz_write import (
    MAX_DESCRIPTION,
    MAX_SLOT_POINTS,
    SlotSpec,
    quiz_create,
    quiz_stamp,
    quiz_update,
    slot_spec,
)

SETTINGS = (
    "title",
    "slug",
    "description",
    "opens_at",
    "closes_at",
    "attempts_allowed",
    "grading_method",
    "shuffle_questions",
    "shuffle_choices",
    "release_policy",
)

SAVED = (*SETTINGS, "time_limit")  # what the form saves of the quiz's own fields
FORM_FIELDS = {"time_limit": "minutes"}  # the service's name for a setting -> the form's
POOL_FIELDS = ("pool_topic", "pool_tag", "pool_difficulty", "pool_draw", "pool_points")


def _points_field(label: str, own_points: str) -> forms.DecimalField:
    return forms.DecimalField(
        required=False,
        min_value=Decimal("0.01"),
        max_value=MAX_SLOT_POINTS,
        max_digits=6,
        decimal_places=2,
        label=label,
        widget=forms.NumberInput(attrs={"step": "0.01", "placeholder": own_points}),
    )


def _points_name(question_id: int) -> str:
    return f"points_{question_id}"


@dataclass(frozen=True)
class QuestionRow:
    """One bank question on the form: its checkbox and its points in this quiz."""

    choice: BoundWidget
    points: BoundField


class QuizForm(forms.Form):
    title = forms.CharField(max_length=200, validators=[validate_one_line])
    slug = forms.SlugField(
        max_length=80,
        help_text="Its short name in the course, for the API and exports: letters, digits, "
        "hyphens and underscores (week-3-check).",
    )
    description = forms.CharField(
        required=False, max_length=MAX_DESCRIPTION, widget=forms.Textarea(attrs={"rows": 2})
    )
    minutes = forms.IntegerField(
        required=False, min_value=1, max_value=10000, label="Time limit in minutes (empty: untimed)"
    )
    opens_at = forms.DateTimeField(
        required=False,
        label=f"Opens ({settings.TIME_ZONE})",
        help_text="Empty: enrolled students can start it as soon as it is saved. Give a time "
        "to keep it closed while you finish setting it up.",
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
    )
    closes_at = forms.DateTimeField(
        required=False,
        label=f"Closes ({settings.TIME_ZONE})",
        help_text="Empty: it never closes.",
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
    )
    attempts_allowed = forms.IntegerField(
        min_value=0, max_value=100, initial=1, label="Attempts (0: unlimited)"
    )
    grading_method = forms.ChoiceField(choices=GradingMethod.choices)
    shuffle_questions = forms.BooleanField(required=False)
    shuffle_choices = forms.BooleanField(required=False, initial=True)
    release_policy = forms.ChoiceField(choices=ReleasePolicy.choices)
    questions = forms.MultipleChoiceField(
        required=False, widget=forms.CheckboxSelectMultiple, label="Fixed questions"
    )
    pool_topic = forms.ChoiceField(required=False, label="Also draw questions from topic")
    pool_tag = forms.ChoiceField(required=False, label="with tag")
    pool_difficulty = forms.ChoiceField(
        required=False, choices=[("", "any difficulty"), *Difficulty.choices], label="of difficulty"
    )
    pool_draw = forms.IntegerField(required=False, min_value=1, max_value=100, label="How many")
    pool_points = _points_field("Points for each drawn question (empty: its own)", "")
    # The quiz as the page was drawn (quiz_stamp): a save from a stale page is refused.
    stamp = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)

    def __init__(self, course: Course, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if "stamp" not in self.initial:  # a new quiz
            del self.fields["stamp"]
        for field in self.fields.values():
            if isinstance(field, forms.ChoiceField):
                # Django's own message repeats the value sent, however long.
                field.error_messages["invalid_choice"] = "Choose one of the options offered."
        self.bank: list[Question] = list(
            course.questions.filter(current_version__isnull=False)
            .select_related("topic")
            .order_by("topic__position", "title", "slug")
        )
        self.fields["questions"].choices = [  # type: ignore[attr-defined]  # a ChoiceField
            (str(q.pk), f"{q.title} ({q.get_type_display()}, {q.topic.title}; {q.slug})")
            for q in self.bank
        ]
        for q in self.bank:
            label = f"Points in this quiz for {q.title} (empty: its own {q.points})"
            self.fields[_points_name(q.pk)] = _points_field(label, str(q.points))
        topics = [("", "any topic")] + [(t.slug, t.title) for t in course.topics.all()]
        self.fields["pool_topic"].choices = topics  # type: ignore[attr-defined]  # a ChoiceField
        # The saved pool's tag stays offered when no question carries it any more.
        saved = str(self.initial.get("pool_tag") or "")
        tags = sorted({tag for q in self.bank for tag in q.tags or [] if isinstance(tag, str)})
        tags = sorted({*tags, saved} - {""})
        self.fields["pool_tag"].choices = [("", "any tag"), *((t, t) for t in tags)]  # type: ignore[attr-defined]

    def clean(self) -> dict[str, Any]:
        """A pool's count or points without a topic, tag or difficulty to draw from would be
        dropped without a word: say so beside the count instead."""
        data = super().clean() or {}
        criteria = any(data.get(name) for name in ("pool_topic", "pool_tag", "pool_difficulty"))
        asked = data.get("pool_draw") is not None or data.get("pool_points") is not None
        if asked and not criteria and not self.fields["pool_draw"].disabled:
            self.add_error(
                "pool_draw",
                "Choose a topic, a tag or a difficulty for the pool to draw from, "
                "or leave How many and the pool's points empty for no pool.",
            )
        return data

    def question_rows(self) -> list[QuestionRow]:
        """The fixed-question checkboxes, each beside its points input."""
        choices = list(self["questions"])
        return [
            QuestionRow(choice, self[_points_name(q.pk)])
            for choice, q in zip(choices, self.bank, strict=True)
        ]

    def lock_questions(self) -> None:
        """Show the questions as they are, not to be changed (the quiz has attempts): disabled
        fields keep their initial values whatever a POST sends."""
        for name in ("questions", *POOL_FIELDS, *self.points_fields()):
            self.fields[name].disabled = True

    def points_fields(self) -> set[str]:
        """The names of the per-question points inputs (shown in the questions' table)."""
        return {_points_name(q.pk) for q in self.bank}


def _form_slots(quiz: Quiz) -> tuple[list[SlotSpec], bool]:
    """The quiz's slots, and whether the form shows them all (fixed questions, then at most
    one pool: quizzes with more pools, made over the API, are not on this form)."""
    specs = [slot_spec(s) for s in quiz.slots.select_related("pool_topic").order_by("position")]
    pools = [s for s in specs if s.question is None]
    shown = not pools or (len(pools) == 1 and specs[-1].question is None)
    return specs, shown


def _initial(quiz: Quiz) -> dict[str, Any]:
    specs, _ = _form_slots(quiz)
    pool = next((s for s in specs if s.question is None), None)
    minutes = int(quiz.time_limit.total_seconds() // 60) if quiz.time_limit else None
    fixed = [s for s in specs if s.question is not None]
    return {
        **{name: getattr(quiz, name) for name in SETTINGS},
        "minutes": minutes,
        "questions": [str(s.question) for s in fixed],
        **{_points_name(s.question): s.points for s in fixed if s.question is not None},
        "pool_topic": pool.pool_topic if pool else "",
        "pool_tag": pool.pool_tag if pool else "",
        "pool_difficulty": pool.pool_difficulty if pool else "",
        "pool_draw": pool.draw_count if pool else None,
        "pool_points": pool.points if pool else None,
        "stamp": quiz_stamp(quiz, SAVED),
    }


def _slots(quiz: Quiz | None, data: dict[str, Any]) -> list[SlotSpec] | None:
    """The slots the form asks for: questions already in the quiz keep their order, new ones
    follow, then the pool. None (keep the slots) when the quiz has slots the form cannot show."""
    chosen = [int(pk) for pk in data["questions"]]
    kept: list[int] = []
    if quiz is not None:
        specs, shown = _form_slots(quiz)
        if not shown:
            return None
        kept = [s.question for s in specs if s.question in chosen]
    slots = [
        SlotSpec(question=pk, points=data.get(_points_name(pk)))
        for pk in kept + [pk for pk in chosen if pk not in kept]
    ]
    if data["pool_topic"] or data["pool_tag"] or data["pool_difficulty"]:
        pool = SlotSpec(
            pool_topic=data["pool_topic"],
            pool_tag=data["pool_tag"],
            pool_difficulty=data["pool_difficulty"],
            draw_count=data["pool_draw"] or 1,
            points=data["pool_points"],
        )
        slots.append(pool)
    return slots


def _save(course: Course, quiz: Quiz | None, data: dict[str, Any]) -> Quiz:
    settings = {name: data[name] for name in SETTINGS}
    settings["time_limit"] = timedelta(minutes=data["minutes"]) if data["minutes"] else None
    slots = _slots(quiz, data)
    if quiz is None:
        return quiz_create(course=course, data=settings, slots=slots or [])
    # No stamp (a page drawn before pages carried one) is as stale as a wrong one.
    return quiz_update(quiz=quiz, data=settings, slots=slots, seen=data.get("stamp") or "")


def _show_refusal(form: QuizForm, refused: DomainError) -> None:
    """Each problem beside its field; the refusal's own message only for problems no field
    of the form shows (once, not again above the field that says it)."""
    placed = 0
    for name, problems in refused.fields.items():
        field = "pool_draw" if name.endswith(".draw_count") else FORM_FIELDS.get(name, name)
        if field in form.fields:
            form.add_error(field, "; ".join(problems))
            placed += 1
    if placed < len(refused.fields) or not refused.fields:
        form.add_error(None, refused.message)


def _asked_other_questions(request: HttpRequest, initial: dict[str, Any]) -> bool:
    """Whether the POST asked for other fixed questions than the quiz has (a page opened
    before the quiz had attempts)."""
    return sorted(request.POST.getlist("questions")) != sorted(initial.get("questions", []))


def _page(request: HttpRequest, course: Course, quiz: Quiz | None) -> HttpResponse:
    initial = _initial(quiz) if quiz else {}
    form = QuizForm(course, request.POST or None, initial=initial)
    locked = quiz is not None and quiz.attempts.exists()
    if locked:
        form.lock_questions()
    if request.method == "POST" and form.is_valid():
        try:
            saved = _save(course, quiz, form.cleaned_data)
            messages.success(request, f"Saved {saved.title}.")
            if locked and _asked_other_questions(request, initial):
                messages.warning(
                    request,
                    "Students have attempted this quiz since the page was opened: its "
                    "questions and points stay as they were; the other settings are saved.",
                )
            return redirect("quizbank-pages:quiz-edit", quiz_id=saved.pk)
        except DomainError as refused:
            _show_refusal(form, refused)
    context = {
        "form": form,
        "course": course,
        "quiz": quiz,
        "slots_elsewhere": quiz is not None and not _form_slots(quiz)[1],
        "locked": locked,
        "fields_marked": any(name != NON_FIELD_ERRORS for name in form.errors),
    }
    return render(request, "quizbank/author/builder.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def quiz_create_page(request: HttpRequest, course_id: int) -> HttpResponse:
    """A new quiz in the course (authors)."""
    return _page(request, access_course(request.user, course_id, roles=AUTHORS), None)


@login_required
@require_http_methods(["GET", "POST"])
def quiz_edit_page(request: HttpRequest, quiz_id: int) -> HttpResponse:
    """Edit a quiz's settings and slots (authors); past attempts keep what they drew."""
    quiz = access_quiz(request.user, quiz_id, roles=AUTHORS)
    return _page(request, quiz.course, quiz)
